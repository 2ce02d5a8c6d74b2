//! Issue 21, item 4 ("every form tables take") and the parser part of item 5 ("never a
//! panic"): signature forms table generators write, operand-modifier and joint modifier
//! tables, nv_isa_solver's HTML pages (tests/data/html/, real pages, see SOURCE.md), and
//! loading that skips a bad table instead of stopping.

use sass_conform::Arch;
use sass_conform::spec::html::inst_hex_word;
use sass_conform::spec::parse::parse_signature;
use sass_conform::spec::{
    BitRange, Dialect, FieldKind, GroupKind, ModifierName, OperandKind, SigOperand, Table,
    load_table, load_tables, load_tables_lenient, parse_html, parse_table,
};
use std::path::{Path, PathBuf};

const LDS: &str = "tests/data/html/LDS.html";
const LDC: &str = "tests/data/html/LDC.html";
const S2R: &str = "tests/data/html/S2R.html";
/// Kept with its source in tests/data/tables/nv_isa_solver-sm103/SOURCE.md.
const BRA: &str = "tests/data/tables/nv_isa_solver-sm103/BRA.html";

fn page(p: &str) -> Table {
    parse_html(p, &std::fs::read_to_string(p).unwrap()).unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("spec-forms-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

use OperandKind::{Imm, Reg, UniformReg};

fn other(s: &str) -> OperandKind {
    OperandKind::Other(s.into())
}

fn bracketed(prefix: &str, groups: &[&[usize]]) -> SigOperand {
    SigOperand::Bracketed {
        prefix: prefix.into(),
        groups: groups.iter().map(|g| g.to_vec()).collect(),
    }
}

#[test]
fn every_signature_form_parses_to_its_atoms_and_operands() {
    // (signature, atoms, written operands)
    let cases: Vec<(&str, Vec<OperandKind>, Vec<SigOperand>)> = vec![
        (
            "R,c[I][I]",
            vec![Reg, Imm, Imm],
            vec![SigOperand::Plain(0), bracketed("c", &[&[1], &[2]])],
        ),
        // `RI` inside brackets is two atoms (LDC.html: operand 2 register, operand 3 offset).
        (
            "R,c[I][RI]",
            vec![Reg, Imm, Reg, Imm],
            vec![SigOperand::Plain(0), bracketed("c", &[&[1], &[2, 3]])],
        ),
        (
            "R,cx[UR][I]",
            vec![Reg, UniformReg, Imm],
            vec![SigOperand::Plain(0), bracketed("cx", &[&[1], &[2]])],
        ),
        (
            "R, cx[UR][RI]",
            vec![Reg, UniformReg, Reg, Imm],
            vec![SigOperand::Plain(0), bracketed("cx", &[&[1], &[2, 3]])],
        ),
        (
            "R,desc[UR][R+I]",
            vec![Reg, UniformReg, Reg, Imm],
            vec![SigOperand::Plain(0), bracketed("desc", &[&[1], &[2, 3]])],
        ),
        (
            "R,[R+UR+I]",
            vec![Reg, Reg, UniformReg, Imm],
            vec![SigOperand::Plain(0), SigOperand::Memory(vec![1, 2, 3])],
        ),
        (
            "R, [R+INT_IMM]",
            vec![Reg, Reg, Imm],
            vec![SigOperand::Plain(0), SigOperand::Memory(vec![1, 2])],
        ),
        (
            "R,[UR+I],P",
            vec![Reg, UniformReg, Imm, OperandKind::Pred],
            vec![
                SigOperand::Plain(0),
                SigOperand::Memory(vec![1, 2]),
                SigOperand::Plain(3),
            ],
        ),
        (
            "R, SR",
            vec![Reg, other("SR")],
            vec![SigOperand::Plain(0), SigOperand::Plain(1)],
        ),
        (
            "R,SR_TID",
            vec![Reg, other("SR_TID")],
            vec![SigOperand::Plain(0), SigOperand::Plain(1)],
        ),
        (
            "R,SM_SHADER_TYPE",
            vec![Reg, other("SM_SHADER_TYPE")],
            vec![SigOperand::Plain(0), SigOperand::Plain(1)],
        ),
        (
            "P,R,R,UR,ARRAY_D,TEX_KIND2,I",
            vec![
                OperandKind::Pred,
                Reg,
                Reg,
                UniformReg,
                OperandKind::ArrayDim,
                other("TEX_KIND2"),
                Imm,
            ],
            (0..7).map(SigOperand::Plain).collect(),
        ),
        // A signed constant operand (nv_isa_solver's SM103 HADD2 page, `HADD2_R_R_+SNAN_FI`).
        (
            "R, R, +SNAN, FIMM",
            vec![Reg, Reg, other("+SNAN"), other("FIMM")],
            (0..4).map(SigOperand::Plain).collect(),
        ),
    ];
    for (text, atoms, operands) in cases {
        let s = parse_signature(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(s.atoms, atoms, "{text}");
        assert_eq!(s.operands, operands, "{text}");
        let flat: Vec<usize> = s.operands.iter().flat_map(SigOperand::atoms).collect();
        assert_eq!(flat, (0..s.atoms.len()).collect::<Vec<_>>(), "{text}");
    }
}

#[test]
fn malformed_signatures_are_errors_that_quote_the_operand() {
    for (text, needle) in [
        ("R,cx[UR][I", "unclosed `[`"),
        ("R,c[I]x", "text after a bracket group"),
        ("R,c1[I][I]", "must be letters"),
        ("R,[R+]", "empty atom"),
        ("R,R]", "`]` with no `[`"),
        ("R,[R[I]]", "nested"),
        ("R,,R", "empty operand"),
        ("R,R R", "one word"),
        ("R,+", "one word"),
        ("R,+A+B", "one word"),
        ("R,-+A", "one word"),
    ] {
        let e = parse_signature(text).unwrap_err();
        assert!(e.contains(needle), "{text}: {e}");
        assert!(e.contains(text), "{text}: {e}");
    }
}

/// The first variant of SM80 LD with its `Modifier Group 1` and `2` replaced by one joint
/// table `Modifier Group 1 + 2` listing two of its 32 values.
fn ld_with_joint(rows: &str) -> String {
    let text = std::fs::read_to_string("specs/sm80/LD.txt").unwrap();
    let from = "Modifier Group 1\n\nBinary\tValue\n00\t(default)\n01\tLTC64B\n10\tLTC128B\n11\tLTC256B\n\nModifier Group 2\n\nBinary\tValue\n000\tU8\n001\tS8\n010\tU16\n011\tS16\n100\t(default)\n101\t64\n110\t128\n111\tINVALID7\n";
    assert!(text.contains(from));
    text.replacen(
        from,
        &format!("Modifier Group 1 + 2\n\nBinary\tValue\n{rows}"),
        1,
    )
}

#[test]
fn a_joint_table_over_two_modifier_fields_parses() {
    let t = parse_table("LD.txt", &ld_with_joint("00000\tU8\n01001\tLTC64B.S8\n")).unwrap();
    let v = &t.variants[0];
    assert_eq!(v.key, "LD_R_R");
    let g = v.joint_group(1).expect("a joint table");
    assert_eq!(v.joint_group(2), Some(g));
    assert_eq!(
        (g.kind, g.index, g.joint.clone(), g.width, g.field),
        (GroupKind::Mnemonic, 1, vec![1, 2], 5, None)
    );
    // value = modi 1 (2 bits) << 3 | modi 2 (3 bits): 01 001 names LTC64B.S8.
    assert_eq!(
        g.lookup(0b01_001).map(|r| r.name.clone()),
        Some(ModifierName::Named("LTC64B.S8".into()))
    );
    assert_eq!(g.lookup(0b11_111), None, "only some values are listed");
    let modi1 = v.fields.iter().find(|f| f.label == "modi 1").unwrap();
    // The second header row starts at bit label 1 (bit 64 has no cell): modi 1 is 68-69.
    assert_eq!(modi1.ranges, vec![BitRange { lo: 68, len: 2 }]);
    assert!(v.field_group(modi1).is_none(), "modi 1 alone has no table");
    let odd: Vec<_> = t.oddities.iter().filter(|o| o.key == "LD_R_R").collect();
    assert!(
        odd.iter().all(|o| o.kind != "modi-without-group"
            || !o.message.contains("`modi 1`") && !o.message.contains("`modi 2`")),
        "{odd:?}"
    );
    // A joint table whose width is not the sum of its fields' is an oddity.
    let t = parse_table("LD.txt", &ld_with_joint("0000\tU8\n")).unwrap();
    assert!(
        t.oddities
            .iter()
            .any(|o| o.kind == "group-width" && o.message.contains("joint modifier table 1 + 2")),
        "{:?}",
        t.oddities
    );
}

#[test]
fn operand_modifier_tables_and_flags_in_the_text_dialect() {
    let t = load_table(Path::new("specs/sm80/LD.txt"), None).unwrap();
    let v = t.variants.iter().find(|v| v.key == "LD_R_R_UR_I").unwrap();
    let g = v
        .groups
        .iter()
        .find(|g| g.kind == GroupKind::Operand)
        .unwrap();
    assert_eq!((g.index, g.operand(), g.field), (1, Some(1), None));
    let m = v
        .fields
        .iter()
        .find(|f| f.kind == FieldKind::OperandModifier)
        .unwrap();
    assert_eq!(v.field_group(m), Some(g));
    // `cNOT` is a one-bit flag field.
    let v = t.variants.iter().find(|v| v.key == "LD_R_R_I_P").unwrap();
    let f = v.fields.iter().find(|f| f.label == "cNOT").unwrap();
    assert_eq!(f.kind, FieldKind::Flag("cNOT".into()));
    assert_eq!(f.width(), 1);
}

#[test]
fn the_lds_page_parses_with_its_layouts_and_partial_tables() {
    let t = page(LDS);
    assert_eq!(
        (t.dialect, t.mnemonic.as_str(), t.arch),
        (Dialect::Html, "LDS", None)
    );
    let keys: Vec<&str> = t.variants.iter().map(|v| v.key.as_str()).collect();
    assert_eq!(
        keys,
        [
            "LDS_R_I",
            "LDS_R_R",
            "LDS_R_RI",
            "LDS_R_RUR",
            "LDS_R_RURI",
            "LDS_R_UR",
            "LDS_R_URI"
        ]
    );
    assert!(t.oddities.is_empty(), "{:?}", t.oddities);
    let v = &t.variants[0];
    assert_eq!(v.title, "LDS.U8");
    assert_eq!(v.signature.text, "R, [INT_IMM]");
    assert_eq!(v.distilled, "@!PT LDS.U8 R0, [0x800000] ;");
    // Operand 1 (the immediate) is bits 40-63; 0x800000 is its top bit, bit 63 of the word.
    let op1 = v.operand_field(1).unwrap();
    assert_eq!(op1.ranges, vec![BitRange { lo: 40, len: 24 }]);
    assert_eq!(
        v.operand_field(0).unwrap().ranges,
        vec![BitRange { lo: 16, len: 8 }]
    );
    let guard = v
        .fields
        .iter()
        .find(|f| f.kind == FieldKind::Guard)
        .unwrap();
    assert_eq!(guard.ranges, vec![BitRange { lo: 12, len: 4 }]);
    assert_eq!(v.fixed_mask, 0xc00001fffffff9ff000000ffff000fff);
    assert_eq!(v.fixed_value, 0x000000000000000000000000ff000984);
    assert_eq!(v.undescribed, 0);
    // LDS_R_R: `Operand 1 operand modifiers (modi 2)` lists 01 X4, 10 X8, 11 X16, not 00.
    let v = &t.variants[1];
    let m2 = v.fields.iter().find(|f| f.label == "modi 2").unwrap();
    assert_eq!(m2.ranges, vec![BitRange { lo: 78, len: 2 }]);
    let g = v.field_group(m2).expect("modi 2 reads the operand table");
    assert_eq!(
        (g.kind, g.index, g.operand(), g.field, g.width),
        (GroupKind::Operand, 1, Some(1), Some(2), 2)
    );
    let names: Vec<(u32, ModifierName)> =
        g.values.iter().map(|r| (r.value, r.name.clone())).collect();
    assert_eq!(
        names,
        [1, 2, 3]
            .into_iter()
            .zip(["X4", "X8", "X16"].map(|n| ModifierName::Named(n.into())))
            .collect::<Vec<_>>()
    );
    assert_eq!(g.lookup(0), None);
    let m1 = v.fields.iter().find(|f| f.label == "modi 1").unwrap();
    assert_eq!(v.field_group(m1).unwrap().kind, GroupKind::Mnemonic);
}

#[test]
fn every_fixed_word_of_the_pages_agrees_with_its_layout() {
    for p in [LDS, LDC, S2R] {
        let text = std::fs::read_to_string(p).unwrap();
        let t = parse_html(p, &text).unwrap();
        assert!(
            !t.oddities.iter().any(|o| o.kind.starts_with("inst-hex")),
            "{p}: {:?}",
            t.oddities
        );
        let hexes: Vec<&str> = text
            .split("data-inst-hex=\"")
            .skip(1)
            .map(|s| &s[..32])
            .collect();
        assert_eq!(hexes.len(), t.variants.len(), "{p}");
        for (v, h) in t.variants.iter().zip(hexes) {
            let w = inst_hex_word(h).unwrap();
            assert_eq!(w & v.fixed_mask, v.fixed_value, "{p} {}", v.key);
        }
    }
    // Memory byte order: byte 0 is bits 0-7.
    assert_eq!(
        inst_hex_word("84f900ff000000800000000000000000"),
        Some(0x8000_0000_ff00_f984)
    );
    assert_eq!(inst_hex_word("84f9"), None);
}

#[test]
fn a_fixed_word_that_disagrees_with_the_layout_is_an_oddity() {
    let text = std::fs::read_to_string(LDS).unwrap();
    // LDS_R_I's fixed word with bit 2 cleared (0x84 -> 0x80); the layout fixes it to 1.
    let bad = text.replacen("data-inst-hex=\"84f900ff", "data-inst-hex=\"80f900ff", 1);
    let t = parse_html("LDS.html", &bad).unwrap();
    let o = t
        .oddities
        .iter()
        .find(|o| o.kind == "inst-hex-fixed-bits")
        .expect("an oddity");
    assert_eq!((o.key.as_str(), o.bits.clone()), ("LDS_R_I", vec![2]));
}

#[test]
fn the_ldc_page_has_constant_bank_forms_and_split_operands() {
    let t = page(LDC);
    let v = t
        .variants
        .iter()
        .find(|v| v.key == "LDC_R_cx[UR][RI]")
        .unwrap();
    assert_eq!(v.signature.atoms, vec![Reg, UniformReg, Reg, Imm]);
    let ranges = |v: &sass_conform::spec::Variant, n| v.operand_field(n).unwrap().ranges.clone();
    assert_eq!(ranges(v, 1), vec![BitRange { lo: 24, len: 8 }]);
    assert_eq!(ranges(v, 2), vec![BitRange { lo: 64, len: 8 }]);
    assert_eq!(ranges(v, 3), vec![BitRange { lo: 37, len: 17 }]);
    // c[I][RI]: the offset (operand 3) and bank (operand 1) are written around each other.
    let v = t
        .variants
        .iter()
        .find(|v| v.key == "LDC_R_c[I][RI]")
        .unwrap();
    assert_eq!(
        ranges(v, 3),
        vec![
            BitRange { lo: 37, len: 2 },
            BitRange { lo: 40, len: 13 },
            BitRange { lo: 54, len: 1 }
        ]
    );
    assert_eq!(
        ranges(v, 1),
        vec![BitRange { lo: 53, len: 1 }, BitRange { lo: 55, len: 4 }]
    );
    assert_eq!(
        v.fixed_value >> 39 & 1,
        1,
        "bit 39 is a fixed 1 inside the offset"
    );
    let split: Vec<Vec<u8>> = t
        .oddities
        .iter()
        .filter(|o| o.key == "LDC_R_c[I][RI]" && o.kind == "split-label")
        .map(|o| o.bits.clone())
        .collect();
    assert_eq!(split, vec![vec![40], vec![54], vec![55]]);
    // `modi 2` lists IL, IS, ISL only.
    let g = t.variants[0].group(GroupKind::Mnemonic, 2).unwrap();
    assert_eq!(g.values.len(), 3);
    assert_eq!(g.lookup(0), None);
}

#[test]
fn the_s2r_page_splits_the_special_register_over_two_fields() {
    let t = page(S2R);
    let v = &t.variants[1];
    assert_eq!(v.key, "S2R_R_SR");
    assert_eq!(v.signature.atoms, vec![Reg, other("SR")]);
    assert_eq!(
        v.operand_field(1).unwrap().ranges,
        vec![BitRange { lo: 74, len: 6 }]
    );
    let m1 = v.fields.iter().find(|f| f.label == "modi 1").unwrap();
    assert_eq!(m1.ranges, vec![BitRange { lo: 72, len: 2 }]);
    let g = v.field_group(m1).unwrap();
    assert_eq!((g.operand(), g.field), (Some(1), Some(1)));
    assert_eq!(
        t.variants[0].signature.atoms,
        vec![Reg, other("SM_SHADER_TYPE")]
    );
}

#[test]
fn a_field_wider_than_64_bits_is_split_into_its_low_64_bits_and_the_rest() {
    let t = page(BRA);
    assert_eq!(t.variants.len(), 6);
    let v = t.variants.iter().find(|v| v.key == "BRA_I").unwrap();
    // `operand 0` covers 83 bits on the page: 16-80, 82-86, 92-104 (`BRA_P_UP_I`'s
    // `operand 2` 85).
    let low = v.operand_field(0).unwrap();
    assert_eq!(low.ranges, vec![BitRange { lo: 16, len: 64 }]);
    let high = v
        .fields
        .iter()
        .find(|f| f.label == "operand 0 (bits 64+)")
        .unwrap();
    assert_eq!(
        high.ranges,
        vec![
            BitRange { lo: 80, len: 1 },
            BitRange { lo: 82, len: 5 },
            BitRange { lo: 92, len: 13 }
        ]
    );
    assert_eq!(high.kind, FieldKind::Flag("operand 0 (bits 64+)".into()));
    assert_eq!(low.width() + high.width(), 83);
}

#[test]
fn the_arch_of_a_page_comes_from_the_option_or_the_manifest() {
    let d = scratch("arch");
    std::fs::copy(S2R, d.join("S2R.html")).unwrap();
    let t = load_table(&d.join("S2R.html"), Some(Arch(100))).unwrap();
    assert_eq!(
        (t.arch, t.arch_source.as_str()),
        (Some(Arch(100)), "option")
    );
    std::fs::write(
        d.join("ARCH_MANIFEST.tsv"),
        "S2R.html\tSM100\tnv_isa_solver output\t2\n",
    )
    .unwrap();
    let t = load_table(&d.join("S2R.html"), None).unwrap();
    assert_eq!(
        (t.arch, t.arch_source.as_str()),
        (Some(Arch(100)), "manifest")
    );
    std::fs::write(
        d.join("ARCH_MANIFEST.tsv"),
        "S2R.html\tSM100\tnv_isa_solver output\t3\n",
    )
    .unwrap();
    let e = load_table(&d.join("S2R.html"), None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("expects 3 variants, the file has 2"), "{e}");
}

#[test]
fn bad_tables_are_skipped_and_the_others_load() {
    let d = scratch("lenient");
    std::fs::copy(LDS, d.join("LDS.html")).unwrap();
    std::fs::copy("specs/sm80/LD.txt", d.join("LD.txt")).unwrap();
    let lds = std::fs::read_to_string(LDS).unwrap();
    // A page cut inside its third variant, and a text table with a broken signature.
    std::fs::write(d.join("CUT.html"), &lds[..20000]).unwrap();
    let ld = std::fs::read_to_string("specs/sm80/LD.txt").unwrap();
    std::fs::write(d.join("BAD.txt"), ld.replacen("R,[R]", "R,[R", 1)).unwrap();
    let (tables, skipped) = load_tables_lenient(std::slice::from_ref(&d), None);
    let loaded: Vec<String> = tables.iter().map(|t| t.mnemonic.clone()).collect();
    assert_eq!(loaded, ["LD", "LDS"]);
    let why: Vec<(String, String)> = skipped
        .iter()
        .map(|s| {
            (
                s.path.file_name().unwrap().to_string_lossy().into_owned(),
                s.error.to_string(),
            )
        })
        .collect();
    assert_eq!(why.len(), 2, "{why:?}");
    assert_eq!(why[0].0, "BAD.txt");
    assert!(
        why[0].1.contains("BAD.txt:5: malformed operand `[R`") || why[0].1.contains("unclosed"),
        "{why:?}"
    );
    assert_eq!(why[1].0, "CUT.html");
    assert!(
        why[1].1.contains("CUT.html:") && why[1].1.contains("never closed"),
        "{why:?}"
    );
    // The strict loader stops at the first bad table.
    assert!(load_tables(std::slice::from_ref(&d), None).is_err());
    // A missing folder is one skipped entry.
    let (t, s) = load_tables_lenient(&[d.join("nothing-here")], None);
    assert!(t.is_empty() && s.len() == 1);
}

#[test]
fn damaged_pages_give_errors_naming_the_variant_not_panics() {
    let text = std::fs::read_to_string(LDS).unwrap();
    let cases = [
        // (from, to, expected text in the error)
        (
            "colspan=\"24\"",
            "colspan=\"99\"",
            "colspan `99` is not a number 1-64",
        ),
        (
            "colspan=\"24\"",
            "colspan=\"40\"",
            "cells span more than 64 bits",
        ),
        (
            "<td class=\"\" colspan=\"1\">7</td></tr>",
            "<td class=\"\" colspan=\"1\">9</td></tr>",
            "not a bit number 0-7",
        ),
        ("<p> key: LDS_R_R</p>", "", "no `<p> key: ...</p>`"),
        (
            "<span class=\"base-name\">LDS.U8</span>",
            "",
            "no `span.base-name`",
        ),
        (
            "[<span class='flat-operand-section' style='background-color:#F5B7DC'>INT_IMM</span>]",
            "[INT_IMM",
            "unclosed `[`",
        ),
        (
            "<td class=\"\">01</td><td class=\"\">S8</td>",
            "<td class=\"\">0x</td><td class=\"\">S8</td>",
            "not a binary value",
        ),
        ("predicate</td>", "predicate</tr>", "where `<td>`"),
        (
            "<div class=\"spec\"",
            "<span class=\"spec\"",
            "where `<span>`",
        ),
    ];
    for (from, to, needle) in cases {
        assert!(text.contains(from), "{from}");
        let bad = text.replacen(from, to, 1);
        let e = parse_html("LDS.html", &bad).unwrap_err().to_string();
        assert!(
            e.starts_with("LDS.html:") && e.contains(needle),
            "{from} -> {to}: {e}"
        );
    }
    // Named by variant: the second variant's header.
    let second = text.find("LDS_R_R<").unwrap();
    let mut bad = text.clone();
    let at = second + bad[second..].find(">3</td>").unwrap();
    bad.replace_range(at..at + 7, ">x</td>");
    let e = parse_html("LDS.html", &bad).unwrap_err().to_string();
    assert!(e.contains("variant #1 `LDS_R_R`"), "{e}");
    // Cut anywhere, or with bytes changed anywhere: an error or a table, never a panic.
    let s2r = std::fs::read_to_string(S2R).unwrap();
    for cut in (0..s2r.len()).step_by(37) {
        let _ = parse_html("S2R.html", &s2r[..cut]);
    }
    let bytes = s2r.as_bytes();
    let mut seed = 0x2545f4914f6cdd1du64;
    for _ in 0..3000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let mut b = bytes.to_vec();
        let i = (seed % b.len() as u64) as usize;
        b[i] = b"<>/\"'=0123456789 abc&;\n"[(seed >> 32) as usize % 23];
        if let Ok(s) = std::str::from_utf8(&b) {
            let _ = parse_html("S2R.html", s);
        }
    }
}

#[test]
fn the_pages_build_a_codec_that_decodes_their_fixed_words() {
    use sass_conform::codec::{Codec, Word};
    for p in [LDS, LDC, S2R] {
        let mut t = page(p);
        t.arch = Some(Arch(100));
        let fixed: Vec<(String, u128)> = t
            .variants
            .iter()
            .map(|v| (v.key.clone(), v.fixed_value))
            .collect();
        let c = Codec::new(vec![t]).unwrap();
        for (key, w) in fixed {
            assert!(c.decode(Arch(100), Word(w)).is_some(), "{p} {key}");
        }
    }
}
