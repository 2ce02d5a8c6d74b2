//! Corrected tables (`resolve --emit-tables`): the committed resolved readings
//! (resolved/tables.json) written back into the five table files, read back and compared line
//! by line with the originals.

use sass_conform::oracle::{Answer, read_entries};
use sass_conform::reading::resolved::ResolvedSet;
use sass_conform::spec::emit::{emit_table, unwritten};
use sass_conform::spec::{BitRange, FieldKind, Table, Variant, load_tables, parse_table};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// A modifier table's index, title line and (value, line) rows.
type GroupRows = (u8, usize, Vec<(u32, usize)>);

fn tables() -> Vec<Table> {
    load_tables(&[PathBuf::from("specs")], None).unwrap()
}

fn resolved(tables: &[Table]) -> Vec<Table> {
    ResolvedSet::read(Path::new("resolved/tables.json"), tables)
        .unwrap()
        .layouts
}

/// (original table, original text, resolved table, emitted text) per file.
fn emitted() -> Vec<(Table, String, Table, String)> {
    let ts = tables();
    let rs = resolved(&ts);
    ts.into_iter()
        .zip(rs)
        .map(|(t, r)| {
            let text = std::fs::read_to_string(&t.path).unwrap();
            let out = emit_table(&text, &t, &r).unwrap();
            (t, text, r, out)
        })
        .collect()
}

fn one(path: &str) -> (Table, String, Table, String) {
    emitted().into_iter().find(|e| e.0.path == path).unwrap()
}

/// 1-based numbers of the lines that differ (emitting never adds or removes lines).
fn changed(a: &str, b: &str) -> Vec<usize> {
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.split('\n').collect(), b.split('\n').collect());
    assert_eq!(la.len(), lb.len(), "same number of lines");
    (0..la.len())
        .filter(|&i| la[i] != lb[i])
        .map(|i| i + 1)
        .collect()
}

fn line(text: &str, no: usize) -> &str {
    text.split('\n').nth(no - 1).unwrap()
}

fn ranges(v: &Variant, label: &str) -> Vec<(u8, u8)> {
    v.fields
        .iter()
        .find(|f| f.label == label)
        .unwrap_or_else(|| panic!("{}: no `{label}`", v.key))
        .ranges
        .iter()
        .map(|r| (r.lo, r.hi()))
        .collect()
}

#[test]
fn emitted_tables_read_back_as_resolved() {
    for (t, _, r, out) in emitted() {
        let back = parse_table(&t.path, &out).unwrap();
        assert_eq!(back.dialect, t.dialect);
        assert_eq!(back.variants.len(), r.variants.len(), "{}", t.path);
        for (vr, ve) in r.variants.iter().zip(&back.variants) {
            assert_eq!(ve.key, vr.key);
            let shape = |v: &Variant| -> Vec<(FieldKind, Vec<BitRange>)> {
                v.fields
                    .iter()
                    .map(|f| (f.kind.clone(), f.ranges.clone()))
                    .collect()
            };
            assert_eq!(shape(ve), shape(vr), "{}: fields", vr.key);
            let described = !vr.undescribed;
            assert_eq!(ve.fixed_mask & described, vr.fixed_mask, "{}", vr.key);
            assert_eq!(ve.fixed_value & vr.fixed_mask, vr.fixed_value, "{}", vr.key);
            // Bits nvdisasm ignores are written as the fixed word's value or left without a
            // cell; never as a field.
            assert_eq!(ve.field_mask() & vr.undescribed, 0, "{}", vr.key);
            assert_eq!(ve.distilled, vr.distilled, "{}", vr.key);
            // Modifier tables keep their rows (only names may be corrected).
            let rows = |v: &Variant| -> Vec<GroupRows> {
                v.groups
                    .iter()
                    .map(|g| {
                        let r = g.values.iter().map(|r| (r.value, r.line)).collect();
                        (g.index, g.line, r)
                    })
                    .collect()
            };
            assert_eq!(rows(ve), rows(vr), "{}", vr.key);
        }
    }
}

#[test]
fn an_unchanged_table_is_emitted_byte_identical() {
    for t in tables() {
        let text = std::fs::read_to_string(&t.path).unwrap();
        assert_eq!(emit_table(&text, &t, &t).unwrap(), text, "{}", t.path);
    }
    // And emitting the corrected file against its own reading changes nothing more.
    for (t, _, r, out) in emitted() {
        let back = parse_table(&t.path, &out).unwrap();
        assert_eq!(emit_table(&out, &back, &back).unwrap(), out, "{}", t.path);
        assert_eq!(emit_table(&out, &back, &r).unwrap(), out, "{}", t.path);
    }
}

#[test]
fn changed_lines_per_file_are_layout_distilled_lines_only() {
    let mut counts = Vec::new();
    for (t, text, _, out) in emitted() {
        let ch = changed(&text, &out);
        let mut allowed = BTreeSet::new();
        for v in &t.variants {
            allowed.extend(v.layout_lines);
            allowed.extend(v.line..v.layout_lines[0]);
        }
        for no in &ch {
            assert!(allowed.contains(no), "{}:{no} changed", t.path);
            let (a, b) = (line(&text, *no), line(&out, *no));
            assert!(
                a.contains('\t') || a.starts_with("distilled:"),
                "{}:{no}: `{a}` -> `{b}`",
                t.path
            );
        }
        let distilled = ch
            .iter()
            .filter(|&&no| line(&text, no).starts_with("distilled:"))
            .count();
        counts.push((t.path.clone(), ch.len(), distilled));
    }
    assert_eq!(
        counts,
        vec![
            ("specs/sm100/TEX.txt".to_string(), 18, 0),
            ("specs/sm100/TLD.txt".to_string(), 18, 0),
            ("specs/sm80/LD.txt".to_string(), 13, 6),
            ("specs/sm90/TMML.txt".to_string(), 30, 0),
            ("specs/unknown-arch/TLD4.txt".to_string(), 258, 8),
        ]
    );
}

#[test]
fn tld_first_variant_is_corrected_as_nvdisasm_reads_it() {
    let (t, text, _, out) = one("specs/sm100/TLD.txt");
    let back = parse_table(&t.path, &out).unwrap();
    let v = &back.variants[0];
    assert_eq!(v.key, "TLD_P_R_R_R_R_UR_D_I");
    // The label the table wrote `modi 4` at bits 79-80 is Modifier Group 3.
    assert_eq!(ranges(v, "modi 3"), vec![(79, 80)]);
    assert_eq!(ranges(v, "modi 2"), vec![(77, 77)]);
    assert_eq!(ranges(v, "modi 1"), vec![(56, 57), (78, 78)]);
    assert_eq!(ranges(v, "modi 4"), vec![(84, 86)]);
    assert_eq!(ranges(v, "modi 5"), vec![(87, 88)]);
    assert!(!v.fields.iter().any(|f| f.label == "modi 6"));
    // Bit 63 belongs to the dimension operand 6.
    assert_eq!(ranges(v, "operand 6"), vec![(61, 63)]);
    // The fixed word's text, as nvdisasm printed it.
    let oracle = read_entries("oracle/sm100/TLD.tsv").unwrap();
    let base = oracle.iter().find(|e| e.word == v.fixed_value).unwrap();
    assert_eq!(
        base.answer,
        Answer::Text(v.distilled.clone()),
        "distilled line is nvdisasm's text for the fixed word"
    );
    assert_eq!(
        v.distilled,
        "@P0 TLD.LZ.EF P0, R0, R0, R0, R0, UR0, 1D, 0x0 ;"
    );
    // Only the two cell rows of this variant change; header rows and the rest stay.
    let ch: Vec<usize> = changed(&text, &out)
        .into_iter()
        .filter(|&n| n < 60)
        .collect();
    assert_eq!(ch, vec![16, 18]);
    assert!(
        line(&out, 18).starts_with(
            "operand 1\t\t\t\t\t\t\t\toperand 7\t\t\t\tCL\tmodi 2\tmodi 1\tmodi 3\t\toperand 0"
        ),
        "{}",
        line(&out, 18)
    );
    for no in (1..=15).chain([17]).chain(19..=59) {
        assert_eq!(line(&out, no), line(&text, no), "line {no}");
    }
}

#[test]
fn header_gaps_become_full_headers_where_the_half_is_rewritten() {
    let full = (0..64)
        .map(|b| (b % 8).to_string())
        .collect::<Vec<_>>()
        .join("\t");
    let (_, text, _, out) = one("specs/sm100/TLD.txt");
    // TLD_P_R_R_R_R_D_I: 63-cell headers (bits 40 and 104 have no cell); nvdisasm ignores
    // both, they are written as the fixed word's `0`.
    assert_eq!(line(&text, 186).split('\t').count(), 63);
    assert_eq!(line(&out, 186), full);
    assert_eq!(line(&out, 188), full);
    let back = parse_table("TLD", &out).unwrap();
    let v = back
        .variants
        .iter()
        .find(|v| v.key == "TLD_P_R_R_R_R_D_I")
        .unwrap();
    assert_eq!(v.undescribed, 0);
    assert_eq!(v.fixed_mask >> 40 & 1, 1);
    assert_eq!(v.fixed_value >> 40 & 1, 0);
    // LD_R_R's layout (61-cell headers) reads as the table says: kept as written, gaps and
    // all. LD_R_R_UR's first half changes (bit 38 is not part of operand 2): full header.
    let (_, text, _, out) = one("specs/sm80/LD.txt");
    for no in 13..=16 {
        assert_eq!(line(&out, no), line(&text, no));
    }
    assert_eq!(line(&text, 202).split('\t').count(), 62);
    assert_eq!(line(&out, 202), full);
    assert_eq!(line(&out, 204), line(&text, 204));
}

#[test]
fn ld_distilled_lines_take_nvdisasm_text() {
    let (_, text, _, out) = one("specs/sm80/LD.txt");
    assert_eq!(line(&text, 72), "distilled: @P0 LD.EF.U8 R0, [R0+0x1] ;");
    assert_eq!(line(&out, 72), "distilled: @P0 LD.EF.U8 R0, [R0] ;");
    assert_eq!(line(&text, 135), "distilled: @P0 LD.EF.U8 R0, [R0], P6 ;");
    assert_eq!(line(&out, 135), "distilled: @P0 LD.EF.U8 R0, [R0] ;");
}

#[test]
fn tld4_keeps_its_dialect_and_label_vocabulary() {
    let (t, text, _, out) = one("specs/unknown-arch/TLD4.txt");
    let back = parse_table(&t.path, &out).unwrap();
    assert!(back.variants.iter().all(|v| {
        v.fields
            .iter()
            .filter(|f| f.kind == FieldKind::Guard)
            .all(|f| f.label == "predicate")
    }));
    // The split `modi 2` (bits 76-77 and 79-80) is Modifier Group 1 at 76-77.
    let v = &back.variants[0];
    assert_eq!(ranges(v, "modi 1"), vec![(76, 77)]);
    assert_eq!(ranges(v, "modi 2"), vec![(79, 80)]);
    for (a, b) in text.split('\n').zip(out.split('\n')) {
        if !a.contains('\t') && !a.starts_with("distilled:") {
            assert_eq!(a, b);
        }
    }
}

#[test]
fn modifier_rows_take_the_names_nvdisasm_prints() {
    let ts = tables();
    let mut rs = resolved(&ts);
    for (path, row_line, name, new_line) in [
        ("specs/sm100/TLD.txt", "01\tLL", "LL.X", "01\tLL.X"),
        ("specs/unknown-arch/TLD4.txt", "01 G.", "G.X", "01 G.X."),
    ] {
        let i = ts.iter().position(|t| t.path == path).unwrap();
        let (t, r) = (&ts[i], &mut rs[i]);
        let v = &mut r.variants[0];
        let f = v
            .fields
            .iter_mut()
            .rev()
            .find(|f| matches!(f.kind, FieldKind::Modifier(_)))
            .unwrap();
        let FieldKind::Modifier(g) = f.kind else {
            unreachable!()
        };
        f.names.insert(1, name.to_string());
        f.names.insert(0, String::new());
        let text = std::fs::read_to_string(path).unwrap();
        let out = emit_table(&text, t, r).unwrap();
        let group = r.variants[0]
            .groups
            .iter()
            .find(|x| x.index == g)
            .unwrap()
            .clone();
        let row1 = group.lookup(1).unwrap().line;
        let row0 = group.lookup(0).unwrap().line;
        assert_eq!(line(&text, row1), row_line, "{path}");
        assert_eq!(line(&out, row1), new_line, "{path}");
        let want0 = if t.path.contains("TLD4") {
            "00"
        } else {
            "00\t(default)"
        };
        assert_eq!(line(&out, row0), want0, "{path}");
        // The renamed row is written; what stays unwritable (values past the table's rows,
        // learned from words with several modifiers set) is not about that row.
        let label = r.variants[0]
            .fields
            .iter()
            .rev()
            .find(|f| matches!(f.kind, FieldKind::Modifier(_)))
            .unwrap()
            .label
            .clone();
        assert!(
            unwritten(t, r)
                .iter()
                .all(|u| !u.contains(&format!("`{label}` value 1 "))),
            "{path}"
        );
    }
}

#[test]
fn what_the_format_cannot_hold_is_listed_and_unwritable_layouts_fail() {
    let ts = tables();
    let rs = resolved(&ts);
    let tld = ts
        .iter()
        .position(|t| t.path == "specs/sm100/TLD.txt")
        .unwrap();
    let u = unwritten(&ts[tld], &rs[tld]);
    assert!(
        u.contains(&"TLD_P_R_R_R_R_UR_D_I: `operand 4` value 255 prints as ``".to_string()),
        "{u:?}"
    );
    // A field whose value bits do not ascend with the word's bits has no text form.
    let mut r = rs[tld].clone();
    let f = r.variants[0]
        .fields
        .iter_mut()
        .find(|f| f.label == "modi 1")
        .unwrap();
    f.ranges.reverse();
    let text = std::fs::read_to_string("specs/sm100/TLD.txt").unwrap();
    let e = emit_table(&text, &ts[tld], &r).unwrap_err().to_string();
    assert!(
        e.starts_with(
            "specs/sm100/TLD.txt:7: TLD_P_R_R_R_R_UR_D_I: the resolved reading cannot be written"
        ),
        "{e}"
    );
}

#[test]
fn cli_writes_the_five_files_under_the_same_relative_paths() {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sass-conform"))
        .args(["resolve", "--emit-tables"])
        .arg(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    for t in tables() {
        let rel = t.path.strip_prefix("specs/").unwrap();
        let text = std::fs::read_to_string(dir.path().join(rel)).unwrap();
        let back = parse_table(rel, &text).unwrap();
        assert_eq!(back.variants.len(), t.variants.len(), "{rel}");
        assert!(err.contains(rel), "{err}");
    }
    let tld = std::fs::read_to_string(dir.path().join("sm100/TLD.txt")).unwrap();
    assert!(line(&tld, 18).contains("CL\tmodi 2\tmodi 1\tmodi 3\t\toperand 0"));
}
