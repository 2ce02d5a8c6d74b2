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
    // The table's own operand 3 of LD_R_R_I_P is right: nvdisasm only leaves it out at PT
    // (the distilled line's example value `P6` of it is a finding of its own).
    assert!(
        !fs.iter().any(|f| f.key == "LD_R_R_I_P"
            && !f.kind.starts_with("distilled-")
            && f.message.contains("`operand 3`")),
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
        text.starts_with("174 root causes behind 1391 findings, in 5 tables\n"),
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
    assert_eq!(findings.len(), 1391);
    let causes = last["root_causes"].as_array().unwrap();
    assert_eq!(causes.len(), 174);
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

/// Every distilled line the bundled tables write otherwise than nvdisasm prints the
/// variant's fixed word: 16 values in 14 lines, each an example value of the variant's own
/// operand field (SM80 LD's `[R0+0x1]` and `P6`, which nvdisasm leaves out at the fixed word;
/// TLD4's `INVALID2` where the fixed word reads `INVALID0`), with the recorded flip that
/// prints it.
#[test]
fn distilled_example_values_are_findings() {
    let fs = findings();
    let distilled: Vec<&Finding> = fs
        .iter()
        .filter(|f| f.kind.starts_with("distilled-"))
        .collect();
    assert_eq!(distilled.len(), 16);
    assert!(
        distilled
            .iter()
            .all(|f| f.kind == "distilled-example-values")
    );
    let lines: std::collections::BTreeSet<(&str, &str)> = distilled
        .iter()
        .map(|f| (f.file.as_str(), f.key.as_str()))
        .collect();
    assert_eq!(lines.len(), 14);

    let ld: Vec<&&Finding> = distilled.iter().filter(|f| f.key == "LD_R_R_I_P").collect();
    assert_eq!(ld.len(), 2);
    assert_eq!(ld[0].file, "specs/sm80/LD.txt");
    assert_eq!(ld[0].line, 265);
    assert_eq!(
        ld[0].message,
        "operand 2: distilled `0x1`, nvdisasm prints nothing there for the fixed word; the \
         table's `operand 2` with value bit 0 set gives it: an example value, not the fixed \
         word's"
    );
    assert_eq!(ld[0].bits, vec![32]);
    assert_eq!(
        ld[1].message,
        "operand 3: distilled `P6`, nvdisasm prints nothing there for the fixed word; the \
         table's `operand 3` with value bit 0 set gives it: an example value, not the fixed \
         word's"
    );
    assert_eq!(ld[1].bits, vec![64]);
    assert_eq!(
        ld[1].reading.as_deref(),
        Some("bit 64: `operand 3` value bit 0 (`` -> `P6`)")
    );
    let ev = |f: &Finding| -> Vec<(String, String)> {
        f.evidence
            .iter()
            .map(|e| (e.word.clone(), e.nvdisasm.clone()))
            .collect()
    };
    assert_eq!(
        ev(ld[1]),
        vec![
            (
                "00000000000000000000000000000980".to_string(),
                "@P0 LD.EF.U8 R0, [R0] ;".to_string()
            ),
            (
                "00000000000000010000000000000980".to_string(),
                "@P0 LD.EF.U8 R0, [R0], P6 ;".to_string()
            ),
        ]
    );

    let tld4 = distilled
        .iter()
        .find(|f| f.key == "TLD4_P_R_R_R_SNOWFLAKE_I_I_SNOWFLAKE_I")
        .unwrap();
    assert_eq!(tld4.line, 698);
    assert_eq!(
        tld4.message,
        "operand 7: distilled `INVALID2`, nvdisasm prints `INVALID0` for the fixed word; the \
         table's `operand 7` with value bit 1 set gives it: an example value, not the fixed \
         word's"
    );
    assert_eq!(tld4.bits, vec![62]);
    assert_eq!(
        ev(tld4),
        vec![
            (
                "0000000000000000080000ff00000b63".to_string(),
                "@P0 TLD4.R.B.EF P0, R0, R0, R0, ???255, 0x0, 0x0, INVALID0, 0x0 ;".to_string()
            ),
            (
                "0000000000000000480000ff00000b63".to_string(),
                "@P0 TLD4.R.B.EF P0, R0, R0, R0, ???255, 0x0, 0x0, INVALID2, 0x0 ;".to_string()
            ),
        ]
    );
}

/// The distilled findings of SM100 `TLD_P_R_R_R_R_UR_D_I` (fixed word
/// 00000000080000000000000000000f66, nvdisasm `@P0 TLD.LZ.EF P0, R0, R0, R0, R0, UR0, 1D,
/// 0x0 ;`) with its distilled line altered: (kind, bits, message) of each.
fn altered_tld(distilled: &str) -> Vec<(String, Vec<u8>, String)> {
    use sass_conform::conform::distilled::distilled_findings;
    let mut tables = load_tables(&[PathBuf::from("specs/sm100/TLD.txt")], None).unwrap();
    let v = &mut tables[0].variants[0];
    assert_eq!(v.key, "TLD_P_R_R_R_R_UR_D_I");
    v.distilled = distilled.to_string();
    let codec = Codec::new(tables).unwrap();
    let es = load_entries_where("oracle", is_sweep_file).unwrap();
    let answers = Answers::new(&es);
    let (id, vr) = read_bits(&codec, &answers)
        .into_iter()
        .find(|(id, _)| codec.variant(*id).key == "TLD_P_R_R_R_R_UR_D_I")
        .unwrap();
    distilled_findings(&codec, id, &vr)
        .into_iter()
        .map(|f| (f.kind, f.bits, f.message))
        .collect()
}

#[test]
fn a_distilled_value_nvdisasm_prints_otherwise_is_a_finding() {
    let s = |k: &str, b: Vec<u8>, m: &str| vec![(k.to_string(), b, m.to_string())];
    assert_eq!(
        altered_tld("@P0 TLD.LZ.EF P0, R0, R0, R0, R0, UR0, 1D, 0x0 ;"),
        vec![]
    );
    // A register one flip of the table's own operand field gives.
    assert_eq!(
        altered_tld("@P0 TLD.LZ.EF P0, R1, R0, R0, R0, UR0, 1D, 0x0 ;"),
        s(
            "distilled-example-values",
            vec![64],
            "operand 1: distilled `R1`, nvdisasm prints `R0` for the fixed word; the table's \
             `operand 1` with value bit 0 set gives it: an example value, not the fixed word's"
        )
    );
    // A value made of two bits of the own field: both flips are the evidence.
    assert_eq!(
        altered_tld("@P0 TLD.LZ.EF P0, R0, R0, R0, R0, UR5, 1D, 0x0 ;"),
        s(
            "distilled-example-values",
            vec![40, 42],
            "operand 5: distilled `UR5`, nvdisasm prints `UR0` for the fixed word; the table's \
             `operand 5` with value bits 0,2 set gives it: an example value, not the fixed word's"
        )
    );
    // A value only a bit the table fixes gives: not a word of this variant.
    assert_eq!(
        altered_tld("@P0 TLD.LZ.EF P0, R0, R0, R0, R0, UR0, ARRAY_1D, 0x0 ;"),
        s(
            "distilled-values",
            vec![63],
            "operand 6: distilled `ARRAY_1D`, nvdisasm prints `1D` for the fixed word; only bit \
             63 set prints it, which the table fixes to 0: the line is not a word of this variant"
        )
    );
    // A value no flip gives (the register field has 8 bits).
    assert_eq!(
        altered_tld("@P0 TLD.LZ.EF P0, R300, R0, R0, R0, UR0, 1D, 0x0 ;"),
        s(
            "distilled-values",
            vec![],
            "operand 1: distilled `R300`, nvdisasm prints `R0` for the fixed word; no single flip \
             of the fixed word prints `R300` there"
        )
    );
    // An operand left out, and one nvdisasm never prints there.
    assert_eq!(
        altered_tld("@P0 TLD.LZ.EF P0, R0, R0, R0, R0, 1D, 0x0 ;"),
        s(
            "distilled-operands",
            vec![],
            "distilled operands `P0, R0, R0, R0, R0, 1D, 0x0`; nvdisasm prints `P0, R0, R0, R0, \
             R0, UR0, 1D, 0x0` for the fixed word: it leaves out `UR0`"
        )
    );
    assert_eq!(
        altered_tld("@P0 TLD.LZ.EF P0, R0, R0, R0, R0, UR0, 1D, 0x0, R7 ;"),
        s(
            "distilled-operands",
            vec![],
            "distilled operands `P0, R0, R0, R0, R0, UR0, 1D, 0x0, R7`; nvdisasm prints `P0, R0, \
             R0, R0, R0, UR0, 1D, 0x0` for the fixed word: it writes `R7` where nvdisasm prints \
             nothing and no single flip of the fixed word prints it"
        )
    );
}
