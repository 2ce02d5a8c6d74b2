//! Issue 12, item 8: damaged tables are errors naming file and line, never silently fewer
//! variants or odd fields; the bundled tables still parse as they are.

use sass_conform::spec::{load_table, load_tables, parse_table};
use std::path::{Path, PathBuf};
use std::process::Command;

const TLD: &str = "specs/sm100/TLD.txt";
const TLD4: &str = "specs/unknown-arch/TLD4.txt";

/// A fresh folder `target/tmp/spec-faults-<name>-<pid>`.
fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("spec-faults-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn read(p: &str) -> String {
    std::fs::read_to_string(p).unwrap()
}

/// The error of parsing `text` as file `t.txt`.
fn parse_err(text: &str) -> String {
    parse_table("t.txt", text).unwrap_err().to_string()
}

/// `text` with the first `from` replaced by `to` (which must occur).
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "{from}");
    text.replacen(from, to, 1)
}

#[test]
fn the_bundled_tables_still_parse_as_before() {
    let tables = load_tables(&[PathBuf::from("specs")], None).unwrap();
    let counts: Vec<(String, usize)> = tables
        .iter()
        .map(|t| (t.path.clone(), t.variants.len()))
        .collect();
    assert_eq!(
        counts,
        [
            ("specs/sm100/TEX.txt".to_string(), 6),
            ("specs/sm100/TLD.txt".to_string(), 6),
            ("specs/sm80/LD.txt".to_string(), 8),
            ("specs/sm90/TMML.txt".to_string(), 12),
            ("specs/unknown-arch/TLD4.txt".to_string(), 111),
        ]
    );
    let oddities: usize = tables.iter().map(|t| t.oddities.len()).sum();
    assert_eq!(oddities, 758);
}

#[test]
fn a_dialect_b_file_cut_mid_variant_is_an_error() {
    let text = read(TLD4);
    let cut = &text[..30_000];
    let line = cut.lines().count();
    assert_eq!(
        parse_err(cut),
        format!(
            "t.txt:{line}: file ends inside the layout of `TLD4_R_R_R_SNOWFLAKE_I_I_D_I`: the row has 21 of 64 cells (cut short?)"
        )
    );
}

#[test]
fn a_file_that_ends_after_a_layout_with_modi_labels_is_an_error() {
    // TLD's first variant, up to and including its layout (line 18), no modifier tables.
    let text: String = read(TLD)
        .lines()
        .take(18)
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        parse_err(&text),
        "t.txt:18: file ends after the layout of `TLD_P_R_R_R_R_UR_D_I`: label `modi 1` has no \
         modifier table (cut short?)"
    );
}

#[test]
fn a_dialect_b_modifier_row_without_its_dot_is_an_error() {
    let text = read(TLD4);
    let last = text.trim_end().len();
    assert!(text[..last].ends_with("11 A."));
    assert_eq!(
        parse_err(&text[..last - 1]),
        "t.txt:4742: modifier row `11 A` does not end with `.` (cut short?)"
    );
}

#[test]
fn a_declared_variant_count_that_does_not_match_is_an_error() {
    let text = edit(&read(TLD), "6 variants on SM100", "7 variants on SM100");
    assert_eq!(
        parse_err(&text),
        "t.txt:5: header declares 7 variants, the file has 6 (cut short or extended?)"
    );
}

#[test]
fn the_arch_manifest_count_checks_dialect_b() {
    let d = scratch("manifest");
    std::fs::create_dir_all(d.join("unknown-arch")).unwrap();
    std::fs::copy("specs/ARCH_MANIFEST.tsv", d.join("ARCH_MANIFEST.tsv")).unwrap();
    // Cut at the line boundary before the last variant: the file itself looks complete.
    let text = read(TLD4);
    let kept: String = text.lines().take(4698).map(|l| format!("{l}\n")).collect();
    let path = d.join("unknown-arch/TLD4.txt");
    std::fs::write(&path, &kept).unwrap();
    assert_eq!(
        load_table(&path, None).unwrap_err().to_string(),
        format!(
            "{}:1: {}:4 expects 111 variants, the file has 110 (cut short or extended?)",
            path.display(),
            d.join("ARCH_MANIFEST.tsv").display()
        )
    );
    std::fs::write(&path, &text).unwrap();
    assert_eq!(load_table(&path, None).unwrap().variants.len(), 111);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_byte_order_mark_is_stripped() {
    let text = read(TLD);
    let plain = parse_table("t.txt", &text).unwrap();
    let bom = parse_table("t.txt", &format!("\u{feff}{text}")).unwrap();
    assert_eq!(bom.mnemonic, "TLD");
    assert_eq!(bom.variants.len(), 6);
    assert_eq!(format!("{bom:?}"), format!("{plain:?}"));
}

#[test]
fn field_labels_are_checked_against_the_known_kinds() {
    let text = read(TLD);
    let cases = [
        (
            "operand 3",
            "operand 300",
            "t.txt:16: label `operand 300`: operand index 300 is out of range (at most 63)",
        ),
        (
            "modi 1",
            "modi 999",
            "t.txt:16: label `modi 999`: modifier group index 999 is out of range (at most 63)",
        ),
        (
            "operand 3",
            "operand x",
            "t.txt:16: label `operand x`: expected `operand N` with N a number 0-63",
        ),
        (
            "SCR",
            "S\0CR",
            "t.txt:16: label `S\\u{0}CR` holds a control character",
        ),
        (
            "SCR",
            "S<b>",
            "t.txt:16: label `S<b>` is none of the known kinds (`operand N`, `modi N`, `modi`, \
             `pred`, `predicate`, a scheduling field, or a flag name: a letter or two digits \
             or more, then letters, digits, `_`, `-`, `.`)",
        ),
        (
            "00\t(default)",
            "00\t(def\0ault)",
            "t.txt:23: modifier name `(def\\u{0}ault)` holds a control character",
        ),
    ];
    for (from, to, msg) in cases {
        assert_eq!(parse_err(&edit(&text, from, to)), msg, "{to:?}");
    }
    // A segment of a split field, as `emit` writes resolved tables, is a known label.
    let t = parse_table("t.txt", &edit(&text, "modi 1", "modi 1 #0")).unwrap();
    assert!(t.variants[0].fields.iter().any(|f| f.label == "modi 1 #0"));
}

#[test]
fn bytes_that_are_not_utf8_are_named_by_line() {
    let d = scratch("utf8");
    let mut bytes = read(TLD).into_bytes();
    // Line 7 is the variant title `TLD`: spoil its second byte.
    let start: usize = read(TLD).lines().take(6).map(|l| l.len() + 1).sum();
    assert_eq!(&bytes[start..start + 3], b"TLD");
    bytes[start + 1] = 0xff;
    let path = d.join("TLD.txt");
    std::fs::write(&path, &bytes).unwrap();
    assert_eq!(
        load_table(&path, None).unwrap_err().to_string(),
        format!(
            "{}:7: not UTF-8: byte 0xff at byte 2 of the line",
            path.display()
        )
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn symlinks_are_not_followed_out_of_the_specs_folder_and_load_once() {
    let d = scratch("links");
    let specs = d.join("specs");
    std::fs::create_dir_all(specs.join("sm100")).unwrap();
    std::fs::copy(TLD, specs.join("sm100/TLD.txt")).unwrap();
    // A link to a folder inside: its tables are loaded once.
    std::os::unix::fs::symlink("sm100", specs.join("again")).unwrap();
    std::os::unix::fs::symlink("sm100/TLD.txt", specs.join("TLD-link.txt")).unwrap();
    let tables = load_tables(&[specs.clone(), specs.join("sm100")], None).unwrap();
    let paths: Vec<&str> = tables.iter().map(|t| t.path.as_str()).collect();
    assert_eq!(paths, [format!("{}/TLD-link.txt", specs.display())]);

    // A link upwards is not followed, and named; the tables inside are read (exit 1).
    std::os::unix::fs::symlink("..", specs.join("up")).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_sass-conform"))
        .args(["spec", "list", specs.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stdout).ends_with("total\t1 table\t6 variants\n"));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        format!(
            "warning: table skipped (the others are read): {}/up: symbolic link out of {} (to \
             {}): not followed\nsass-conform: 1 table skipped (named above): exit status 1\n",
            specs.display(),
            specs.display(),
            d.canonicalize().unwrap().display()
        )
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_cut_off_bit_row_is_one_finding_not_one_per_missing_cell() {
    // synth/SM120/FRND.txt line 18 (bits 64-127) cut to its first 40 cells: they end in fixed
    // `0` cells, so no field continues over bits 104-127; the cut is named once, with every
    // missing bit, and no missing cell is also an `empty-cell`.
    let text = read("synth/SM120/FRND.txt");
    let row = text.lines().nth(17).unwrap().to_string();
    let cut = row.split('\t').take(40).collect::<Vec<_>>().join("\t");
    let t = parse_table("t.txt", &edit(&text, &row, &cut)).unwrap();
    let on_18 = |kind: &str| {
        t.oddities
            .iter()
            .filter(|o| o.kind == kind && o.line == 18)
            .collect::<Vec<_>>()
    };
    let cuts = on_18("row-cut-off");
    assert_eq!(cuts.len(), 1);
    assert_eq!(cuts[0].bits, (104..128).collect::<Vec<u8>>());
    assert_eq!(on_18("empty-cell").len(), 0);
}
