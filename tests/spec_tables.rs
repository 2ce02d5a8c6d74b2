//! The five seed tables parse into the model with the counts and fields the files give.

use sass_conform::Arch;
use sass_conform::spec::*;
use std::path::PathBuf;

fn specs() -> Vec<Table> {
    load_tables(&[PathBuf::from("specs")], None).expect("specs/ parses")
}

#[test]
fn all_143_variants_parse() {
    let t = specs();
    let counts: Vec<(String, usize)> = t
        .iter()
        .map(|t| (t.mnemonic.clone(), t.variants.len()))
        .collect();
    assert_eq!(
        counts,
        vec![
            ("TEX".to_string(), 6),
            ("TLD".to_string(), 6),
            ("LD".to_string(), 8),
            ("TMML".to_string(), 12),
            ("TLD4".to_string(), 111)
        ]
    );
    let arches: Vec<Option<Arch>> = t.iter().map(|t| t.arch).collect();
    assert_eq!(
        arches,
        vec![
            Some(Arch(100)),
            Some(Arch(100)),
            Some(Arch(80)),
            Some(Arch(90)),
            Some(Arch(90))
        ]
    );
    assert_eq!(t[4].arch_source, "manifest");
}

#[test]
fn tld_first_variant_fields() {
    let t = specs();
    let tld = &t[1].variants[0];
    assert_eq!(tld.key, "TLD_P_R_R_R_R_UR_D_I");
    assert_eq!(
        tld.distilled,
        "@P0 TLD.LZ.EF P0, R0, R0, R0, R0, UR0, 1D, 0x0 ;"
    );
    // Fixed word of the table's own bits equals nvdisasm's word for the distilled line.
    assert_eq!(tld.fixed_value, 0x00000000080000000000000000000f66);
    let f = |label: &str| {
        tld.fields
            .iter()
            .find(|f| f.label == label)
            .unwrap()
            .clone()
    };
    assert_eq!(f("pred").ranges, vec![BitRange { lo: 12, len: 4 }]);
    assert_eq!(f("operand 1").ranges, vec![BitRange { lo: 64, len: 8 }]);
    assert_eq!(f("operand 0").ranges, vec![BitRange { lo: 81, len: 3 }]);
    assert_eq!(f("modi 4").ranges, vec![BitRange { lo: 79, len: 2 }]);
    assert_eq!(f("stall").ranges, vec![BitRange { lo: 105, len: 4 }]);
    assert_eq!(tld.undescribed, 0, "TLD's first variant has no header gap");
    let g4 = tld.group(GroupKind::Mnemonic, 4).unwrap();
    assert_eq!(g4.width, 3);
    assert_eq!(g4.lookup(0).unwrap().name, ModifierName::Named("EF".into()));
    assert_eq!(g4.lookup(1).unwrap().name, ModifierName::Default);
    assert_eq!(g4.lookup(6).unwrap().name, ModifierName::Invalid(6));
}

#[test]
fn ld_header_gaps_leave_bits_undescribed() {
    let t = specs();
    let ld = &t[2].variants[0];
    assert_eq!(ld.key, "LD_R_R");
    assert_eq!(ld.title, "LD");
    // Header row 1 starts at bit 1 and skips the first bit of bytes 4 and 5.
    assert_eq!(
        ld.undescribed & 0xffff_ffff_ffff_ffff,
        (1 << 0) | (1 << 32) | (1 << 40)
    );
    assert_eq!(ld.fixed_value & 0xfff, 0x980);
}

#[test]
fn ld_cut_off_row_extends_the_immediate() {
    let t = specs();
    let v = t[2].variants.iter().find(|v| v.key == "LD_R_R_I").unwrap();
    let imm = v.fields.iter().find(|f| f.label == "operand 2").unwrap();
    assert_eq!(imm.ranges, vec![BitRange { lo: 32, len: 32 }]);
    assert!(
        t[2].oddities
            .iter()
            .any(|o| o.kind == "row-cut-off" && o.key == "LD_R_R_I")
    );
}

#[test]
fn tld4_dialect_b() {
    let t = specs();
    let v = &t[4].variants[0];
    assert_eq!(t[4].dialect, Dialect::B);
    assert_eq!(v.title, "TLD4");
    assert_eq!(v.signature.atoms.len(), 7);
    assert_eq!(v.slots.len(), 4);
    assert_eq!(
        v.slots[1],
        RegSlot {
            access: Access::Write,
            file: "R".into(),
            slots: 2
        }
    );
    let op5 = v.fields.iter().find(|f| f.label == "operand 5").unwrap();
    assert_eq!(
        op5.ranges,
        vec![BitRange { lo: 40, len: 13 }, BitRange { lo: 54, len: 1 }]
    );
    let g1 = v.group(GroupKind::Mnemonic, 1).unwrap();
    assert_eq!(
        g1.lookup(1).unwrap().name,
        ModifierName::Named("AOFFI".into())
    );
    assert_eq!(g1.lookup(0).unwrap().name, ModifierName::Default);
}

#[test]
fn malformed_input_names_file_and_line() {
    let bad = "TLD\n\nTexture Load\n\n6 variants on SM100 (B200)\n\nTLD\n\nP,R\n\ndistilled: x\n\nkey: K\n\n0\t1\tx\n0\t1\t1\n";
    let e = parse_table("bad.txt", bad).unwrap_err().to_string();
    assert_eq!(e, "bad.txt:15: header cell 3 is `x`, not a bit number 0-7");
    // A mnemonic names the oracle file: one longer than a file name can be is refused here.
    let long = format!("{}\n\nd\n\n1 variant on SM90 (x)\n", "A".repeat(300));
    let e = parse_table("long.txt", &long).unwrap_err().to_string();
    assert!(
        e.starts_with(
            "long.txt:1: expected a mnemonic (letters, digits, `_`, at most 64 bytes), found `AAA"
        ),
        "{e}"
    );
    let e = parse_table("t.txt", "TLD\nTexture\n6 variants on SM100\nTLD\nP\n").unwrap_err();
    assert!(
        e.to_string().starts_with("t.txt:4: expected a variant"),
        "{e}"
    );
}

/// A file cut inside its last modifier group (a row left with fewer digits than the rows
/// above: `11` after `110 ...`) is an error naming the row's line, not the value 3.
#[test]
fn a_modifier_row_cut_short_is_an_error() {
    let text = std::fs::read_to_string("specs/sm100/TEX.txt").unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    let last = lines.len();
    let full = lines[last - 1]
        .split(['\t', ' '])
        .next()
        .unwrap()
        .to_string();
    assert!(full.len() >= 2, "{full}");
    let cut = &full[..full.len() - 1];
    let mut cut_text = lines[..last - 1].join("\n");
    cut_text.push('\n');
    cut_text.push_str(cut);
    let e = parse_table("TEX.txt", &cut_text).unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "TEX.txt:{last}: modifier row `{cut}` has {} binary digits, the rows above {} (cut short?)",
            cut.len(),
            full.len()
        )
    );
}

/// A table of one variant says so in the singular (`1 variant on SM90`, as `synth` writes it).
#[test]
fn one_variant_header_in_the_singular() {
    let text = std::fs::read_to_string("synth/SM90/YIELD.txt").unwrap();
    assert!(text.contains("\n1 variant on SM90 (synthesised)\n"));
    let t = parse_table("synth/SM90/YIELD.txt", &text).unwrap();
    assert_eq!(t.declared_variants, Some(1));
    assert_eq!(t.variants.len(), 1);
    assert_eq!(t.arch.map(|a| a.to_string()), Some("SM90".to_string()));
}
