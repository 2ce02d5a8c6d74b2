//! Findings a table maintainer can act on (issue 11), checked offline from oracle/: every
//! bit reading is explained in table words (field, value, transform), never only "the text
//! changes".

use sass_conform::codec::Codec;
use sass_conform::conform::Finding;
use sass_conform::conform::resolve::bit_findings_read;
use sass_conform::oracle::{is_sweep_file, load_entries_where};
use sass_conform::reading::flips::{Answers, read_bits};
use sass_conform::reading::resolved::ResolvedSet;
use sass_conform::spec::load_tables;
use std::path::{Path, PathBuf};

/// `resolve`'s findings with the committed learned reading, as the CLI makes them.
fn findings() -> Vec<Finding> {
    let tables = load_tables(&[PathBuf::from("specs")], None).unwrap();
    let set = ResolvedSet::read(Path::new("resolved/tables.json"), &tables).unwrap();
    let codec = Codec::new(tables).unwrap();
    let es = load_entries_where("oracle", is_sweep_file).unwrap();
    let answers = Answers::new(&es);
    bit_findings_read(&codec, &read_bits(&codec, &answers), Some(&set.tables))
}

/// The reading of one bit inside a finding's reading (`bit N: ...`).
fn bit_reading(f: &Finding, bit: u8) -> String {
    let r = f.reading.as_deref().unwrap_or("");
    let first = format!("bit {bit}: ");
    let rest = format!("; bit {bit}: ");
    let start = if let Some(s) = r.strip_prefix(&first) {
        s
    } else {
        let i = r
            .find(&rest)
            .unwrap_or_else(|| panic!("no bit {bit} in {r}"));
        &r[i + rest.len()..]
    };
    start.split("; bit ").next().unwrap().to_string()
}

fn find<'a>(fs: &'a [Finding], key: &str, kind: &str, bit: u8) -> &'a Finding {
    fs.iter()
        .find(|f| f.key == key && f.kind == kind && f.bits.contains(&bit))
        .unwrap_or_else(|| panic!("no {kind} finding of {key} at bit {bit}"))
}

#[test]
fn no_reading_is_only_that_the_text_changes() {
    let fs = findings();
    let vague: Vec<String> = fs
        .iter()
        .filter(|f| {
            f.reading.as_deref().is_some_and(|r| {
                r.contains("changes the text in several places") || r.contains(": the text changes")
            })
        })
        .map(|f| f.line_text())
        .collect();
    assert!(
        vague.is_empty(),
        "{} vague readings: {vague:#?}",
        vague.len()
    );
    assert!(fs.len() > 1000);
}

#[test]
fn ld_immediate_is_a_signed_offset_printed_only_when_non_zero() {
    let fs = findings();
    let f = find(&fs, "LD_R_R", "fixed-bit-is-field", 33);
    assert_eq!(
        bit_reading(f, 33),
        "read as LD_R_R_I: bit 1 of its `operand 2` (32 bits, signed, left out at 0); prints \
         `0x2`: bit 1 of an immediate printed only when non-zero (left out at 0) \
         (`@P0 LD.EF.U8 R0, [R0] ;` -> `@P0 LD.EF.U8 R0, [R0+0x2] ;`)"
    );
    assert_eq!(
        bit_reading(f, 63),
        "read as LD_R_R_I: bit 31 of its `operand 2` (32 bits, signed, left out at 0); prints \
         `-0x80000000`: the sign bit 31 of a signed 32-bit immediate (two's complement), \
         printed only when non-zero (`@P0 LD.EF.U8 R0, [R0] ;` -> \
         `@P0 LD.EF.U8 R0, [R0+-0x80000000] ;`)"
    );
    let f = find(&fs, "LD_R_R_UR", "fixed-bit-is-field", 63);
    assert!(
        bit_reading(f, 63).contains("the sign bit 23 of a signed 24-bit immediate"),
        "{}",
        bit_reading(f, 63)
    );
}

#[test]
fn ld_predicate_is_inverted_with_a_complement_bit() {
    let fs = findings();
    let f = find(&fs, "LD_R_R", "undescribed-bit-matters", 64);
    assert_eq!(
        bit_reading(f, 64),
        "read as LD_R_R_P: bit 0 of its `operand 2` (3 bits, printed name also keyed by bit \
         67); prints `P6`: a predicate operand printed inverted, P(7-v): v = 1 (bit 0) prints \
         P6; left out at v = 0 (PT) (`@P0 LD.EF.U8 R0, [R0] ;` -> `@P0 LD.EF.U8 R0, [R0], P6 ;`)"
    );
    let f = find(&fs, "LD_R_R_P", "field-effect-unexplained", 67);
    assert!(
        bit_reading(f, 67).starts_with(
            "bit 0 of the table's `cNOT` (1 bits, left out at 0); a context bit of `operand 2`"
        ),
        "{}",
        bit_reading(f, 67)
    );
    assert!(bit_reading(f, 67).contains("prints `!PT`: the complement bit (`!`)"));
    // The table's own operand 3 of LD_R_R_I_P is right: nvdisasm only leaves it out at PT.
    assert!(
        !fs.iter()
            .any(|f| f.key == "LD_R_R_I_P" && f.message.contains("`operand 3`")),
        "LD_R_R_I_P operand 3 agrees with nvdisasm"
    );
}

#[test]
fn tld4_operands_left_out_at_their_defaults() {
    let fs = findings();
    let f = find(&fs, "TLD4_P_R_R_R_I_I_ARRAY_D", "fixed-bit-is-field", 72);
    assert!(
        bit_reading(f, 72).starts_with(
            "read as TLD4_P_R_R_R_I_I_ARRAY_D_I: bit 0 of its `operand 7` (4 bits); prints \
             `0xe`: an immediate left out at its default 0xf (all 4 bits set); this bit is its \
             bit 0"
        ),
        "{}",
        bit_reading(f, 72)
    );
    let f = find(&fs, "TLD4_P_R_R_R_I_I_ARRAY_D", "fixed-bit-is-field", 32);
    assert!(
        bit_reading(f, 32).contains(
            "prints `R254`: a register operand left out at RZ (255); this bit is bit 0 of the \
             register number (255 -> 254)"
        ),
        "{}",
        bit_reading(f, 32)
    );
    let f = find(&fs, "LD_R_R", "fixed-bit-is-field", 91);
    assert!(
        bit_reading(f, 91).starts_with("selects variant LD_R_R_UR"),
        "{}",
        bit_reading(f, 91)
    );
}

/// `resolve --patch` applied with `patch -p1` to a copy of specs/, then `resolve` on the copy:
/// only the kinds the table format cannot hold remain (fixed bits nvdisasm ignores: the format
/// has no "don't care" cell; scheduling values nvdisasm rejects and other value constraints;
/// fixed bits that select a sibling variant whose field they are; a flag whose effect is a
/// context bit of an operand; a form bit fixed unless its partner is set; the TLD `modi 1`
/// bit 78 joint field; `modifier-name-differs`
/// where nvdisasm prints a modifier no table value names). `--emit-tables` writes the same
/// corrections.
#[test]
fn the_patch_leaves_only_what_the_format_cannot_hold() {
    let bin = env!("CARGO_BIN_EXE_sass-conform");
    let out = std::process::Command::new(bin)
        .args(["resolve", "--patch"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let patch = String::from_utf8(out.stdout).unwrap();
    assert!(patch.starts_with("--- a/specs/sm100/TEX.txt\n+++ b/specs/sm100/TEX.txt\n@@ "));
    // Every hunk names the root causes it corrects.
    let hunks: Vec<&str> = patch.lines().filter(|l| l.starts_with("@@ ")).collect();
    assert!(hunks.len() > 100, "{} hunks", hunks.len());
    let annotated = hunks.iter().filter(|h| h.contains(" @@ rc-")).count();
    assert_eq!(annotated, hunks.len(), "hunks without a root cause");

    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("specs");
    std::fs::create_dir_all(&copy).unwrap();
    for t in load_tables(&[PathBuf::from("specs")], None).unwrap() {
        let to = dir.path().join(&t.path);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&t.path, &to).unwrap();
    }
    // The arch of TLD4 (no arch line) comes from the folder's manifest.
    std::fs::copy("specs/ARCH_MANIFEST.tsv", copy.join("ARCH_MANIFEST.tsv")).unwrap();
    let mut child = std::process::Command::new("patch")
        .args(["-p1", "-s"])
        .current_dir(dir.path())
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("GNU patch (scripts/setup installs it)");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(patch.as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success(), "patch -p1 failed");

    // --emit-tables writes the same files the patch makes.
    let emitted = tempfile::tempdir().unwrap();
    let st = std::process::Command::new(bin)
        .args(["resolve", "--emit-tables"])
        .arg(emitted.path())
        .output()
        .unwrap();
    assert!(st.status.success());
    for t in load_tables(&[PathBuf::from("specs")], None).unwrap() {
        let rel = t.path.strip_prefix("specs/").unwrap();
        assert_eq!(
            std::fs::read_to_string(copy.join(rel)).unwrap(),
            std::fs::read_to_string(emitted.path().join(rel)).unwrap(),
            "{rel}: --patch and --emit-tables disagree"
        );
    }

    let out = std::process::Command::new(bin)
        .arg("resolve")
        .arg(&copy)
        .args(["--json", "--resolved", "/nonexistent"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut kinds: std::collections::BTreeMap<String, usize> = Default::default();
    for l in String::from_utf8(out.stdout).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        if let Some(k) = v.get("kind").and_then(|k| k.as_str()) {
            *kinds.entry(k.to_string()).or_default() += 1;
        }
    }
    let cannot_hold = [
        "field-effect-unexplained",
        "fixed-bit-ignored",
        "fixed-bit-is-field",
        // A bit fixed unless another is set (SM80 LD bit 76 with bit 90): no cell says so.
        "fixed-bit-is-form",
        "modifier-name-differs",
        "sched-value-rejected",
        "undescribed-bit-matters",
        "field-boundary",
    ];
    let left: Vec<&String> = kinds
        .keys()
        .filter(|k| !cannot_hold.contains(&k.as_str()))
        .collect();
    assert!(
        left.is_empty(),
        "kinds the patch should have corrected remain: {kinds:?}"
    );
    eprintln!("left after the patch, by kind: {kinds:?}");
}

/// `resolve` leads with the root-cause summary; `--json` ends with the root causes, and every
/// finding names its root cause. The TLD4 `modi 2` label that nvdisasm reads as Modifier Group
/// 3 is one root cause over 48 variants.
#[test]
fn resolve_leads_with_root_causes() {
    let bin = env!("CARGO_BIN_EXE_sass-conform");
    let out = std::process::Command::new(bin)
        .arg("resolve")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("164 root causes behind 1375 findings, in 5 tables\n"),
        "{}",
        &text[..200.min(text.len())]
    );
    let out = std::process::Command::new(bin)
        .args(["resolve", "--json"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (last, findings) = lines.split_last().unwrap();
    assert_eq!(findings.len(), 1375);
    let causes = last["root_causes"].as_array().unwrap();
    assert_eq!(causes.len(), 164);
    assert!(findings.iter().all(|f| f["root_cause"].as_str().is_some()));
    let c = causes
        .iter()
        .find(|c| {
            c["kind"] == "label-wrong-group"
                && c["file"] == "specs/unknown-arch/TLD4.txt"
                && c["bits"] == serde_json::json!([79, 80])
                && c["message"]
                    .as_str()
                    .unwrap()
                    .ends_with("(nvdisasm: Modifier Group 3)")
        })
        .expect("TLD4 modi 2 -> group 3 root cause");
    assert_eq!(c["variants"].as_array().unwrap().len(), 48);
    assert!(c["evidence"][0].as_str().unwrap().contains("TLD4"));
}
