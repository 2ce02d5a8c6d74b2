//! Each learned rule of the reading (resolved/tables.json), pinned with nvdisasm's own words
//! and texts (offline: the words are from oracle/combos/check, never learned from, and from
//! the ptxas cubins; the texts are nvdisasm 13.5.37's as recorded there).

use sass_conform::Arch;
use sass_conform::codec::{Codec, Word};
use sass_conform::conform::{Prediction, predict};
use sass_conform::reading::legality::Legality;
use sass_conform::reading::model::Model;
use sass_conform::reading::resolved::ResolvedSet;
use sass_conform::render::Renderer;
use sass_conform::spec::load_tables;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

struct Reading {
    codec: Codec,
    model: Model,
}

fn reading() -> &'static Reading {
    static R: OnceLock<Reading> = OnceLock::new();
    R.get_or_init(|| {
        let tables = load_tables(&[PathBuf::from("specs")], None).unwrap();
        let set = ResolvedSet::read(Path::new("resolved/tables.json"), &tables).unwrap();
        Reading {
            codec: Codec::new(set.tables).unwrap(),
            model: set.model,
        }
    })
}

fn read(arch: &str, word: &str) -> Prediction {
    let r = reading();
    let renderer = Renderer::new(&r.codec);
    let arch: Arch = arch.parse().unwrap();
    predict(
        &r.codec,
        &renderer,
        Some(&r.model),
        arch,
        Word::from_hex(word).unwrap(),
    )
}

fn text(arch: &str, word: &str) -> String {
    read(arch, word).text.unwrap_or_default()
}

#[test]
fn lod_mode_is_one_value_of_bit_59_and_bits_87_to_89() {
    // ptxas word (corpus/cubins): LZ (bit 59) and LB (bits 87-89 = 1) together print LL.
    assert_eq!(
        text("SM100", "00016400089e0f04e8ff040004067f60"),
        "TEX.LL R4, R6, R4, R0, UR4, ARRAY_CUBE ;"
    );
    assert_eq!(
        text("SM100", "09649e06888968a03a21110488c6ff60"),
        "@!PT TEX.SCR.F16.RZ.LL.INVALID2.DC.EF.FDV P4, R160, R198, R136, R4, UR17, 2D, 0x8 ;"
    );
}

#[test]
fn tld_bits_77_78_are_one_field_printed_after_the_cache_mode() {
    // The table puts bit 78 in `modi 1` and bit 77 is `MS`: nvdisasm reads one field
    // (MS, INVALID2, INVALID3) and prints it after EL/EU/...
    assert_eq!(
        text("SM100", "0213d0a18d126662d4463484cc41cd67"),
        "@!P4 TLD.SCR.B.INVALID2.INVALID3.NODEP P1, R98, R65, R204, R132, INVALID6, 0x6 ;"
    );
    assert_eq!(
        text("SM100", "289406000b25d0e410004a5e6d0eff60"),
        "@!PT TEX.SCR.INVALID3.INVALID12.DC.EL.NDV P2, R228, R14, R109, R94, UR74, 1D, 0x0 ;"
    );
}

#[test]
fn ld_print_order_predicate_complement_and_signed_offsets() {
    // E first; the predicate operand P(7-v) with `!` from bit 67 (the table's cNOT).
    assert_eq!(
        text("SM80", "0c614a000070cf2800000100a7928980"),
        "@!P0 LD.E.INVALID7.LTC128B.INVALID7.STRONG.GPU.PRIVATE R146, [R167+0x100], !PT ;"
    );
    // A 32-bit signed offset.
    assert_eq!(
        text("SM80", "2d19a4000041c335aa03d86a25b60980"),
        "@P0 LD.E.EU.LTC256B.S8.CONSTANT.VC.PRIVATE R182, [R37+-0x55fc2796], P2 ;"
    );
    assert_eq!(
        text("SM80", "01500a966bd343a840425f1115a4d980"),
        "@!P5 LD.E.NA.LTC128B.S8.STRONG.SYS R164, [R21.U32+UR17+0x40425f], !PT ;"
    );
}

#[test]
fn ld_e_reads_the_address_mode_bit_and_a_zero_offset_is_left_out() {
    // E = 0 with bit 90 (`.64`) set prints `???0`; offset 0 and predicate PT are left out.
    let p = read("SM80", "002a4a092eb480a0000000334b6da980");
    assert_eq!(p.key.as_deref(), Some("LD_R_R_UR_I_P"));
    assert_eq!(
        p.text.as_deref(),
        Some("@!P2 LD.???0.LU.LTC128B.U8.CONSTANT R109, [R75.64+UR51] ;")
    );
}

#[test]
fn tld4_overlapping_forms_pick_the_one_nvdisasm_prints() {
    assert_eq!(
        text("SM90", "37df540004338fd7e1f626ff68db8b63"),
        "@!P0 TLD4.R.INVALID3.LU.NODEP P1, R215, R219, R104, 0x7, 0x3626, ARRAY_CUBE ;"
    );
}

#[test]
fn legality_follows_nvdisasm_reasons() {
    // Opclass 'tld_urc_', undefined value 0x10 for table 'TABLES_opex_0'.
    assert_eq!(
        read("SM100", "0004a1425db0a80bc02ea21ad315cf66").legality,
        Some(Legality::Undefined {
            table: "TABLES_opex_0".into(),
            value: 0x10
        })
    );
    // Opclass 'tld_scr_b_noConst_', undefined value 0x1e.
    assert_eq!(
        read("SM100", "00cefcd389a8b9fdb4c426acd8fd2d67").legality,
        Some(Legality::Undefined {
            table: "TABLES_opex_0".into(),
            value: 0x1e
        })
    );
    assert_eq!(
        read("SM80", "0029e265138e754100000100517fe981").legality,
        Some(Legality::Unrecognized {
            reason: "Unrecognized operation for functional unit 'uC'".into()
        })
    );
    // nvdisasm prints LDG for this one: the LD table does not claim it.
    assert_eq!(
        read("SM80", "0014dcd808ce67c0bffa625aa7f48981").legality,
        Some(Legality::OtherMnemonic {
            mnemonic: "LDG".into()
        })
    );
}

#[test]
fn the_constraint_table_index_is_learned_from_the_reasons() {
    let r = reading();
    for t in &r.model.tables {
        let c = &t.constraints[0];
        assert_eq!(c.table, "TABLES_opex_0", "{}", t.path);
        assert_eq!(
            c.index_bits,
            [105, 106, 107, 108, 109, 122, 123, 124].map(Some).to_vec(),
            "{}",
            t.path
        );
        assert_eq!(
            (c.defined.len(), c.undefined().len()),
            (157, 99),
            "{}",
            t.path
        );
    }
}

#[test]
fn ld_bit_76_leaves_the_uniform_register_out_and_bit_101_makes_it_a_descriptor() {
    // ptxas words (oracle/cubins/sm80.tsv): bit 76 set in a `[R+UR+I]` form, with bit 90
    // (`.64`); nvdisasm prints no uniform register, or `desc[URn]` before the brackets when
    // bit 101 is set too.
    assert_eq!(
        text("SM80", "000768000c101900000000041c1b7980"),
        "LD.E R27, [R28.64] ;"
    );
    assert_eq!(
        text("SM80", "0000a4000c501d00000370041a0c7980"),
        "LD.E.NA.128 R12, [R26.64+0x370] ;"
    );
    assert_eq!(
        text("SM80", "000162200c5019200002100402167980"),
        "LD.E.NA.LTC128B R22, desc[UR4][R2.64+0x210] ;"
    );
    // With a descriptor the base register is written even at RZ, the offset after it signed;
    // an offset alone in the brackets is an absolute address, unsigned (oracle/combos).
    assert_eq!(
        text("SM80", "1491563cec089c3094f8a4eeff3ae980"),
        "@!P6 LD.???0.EF.LTC256B.128.CONSTANT R58, desc[UR46][RZ.64+-0x6b075c] ;"
    );
    assert_eq!(
        text("SM80", "e46be468d391acc4a422eb98ff26e980"),
        "@!P6 LD.128.CONSTANT.VC R38, [0xa422eb98], P3 ;"
    );
    assert_eq!(
        text("SM80", "000000000000000000000000ff000980"),
        "@P0 LD.EF.U8 R0, [RZ] ;"
    );
    // With the base register left out (RZ before a uniform register), bit 90 (its `.64`) is
    // not read by the E slot either: no `???0` (campaign seed 11).
    assert_eq!(
        text("SM80", "000000000c00000000000000ff000980"),
        "@P0 LD.EF.U8 R0, [UR0] ;"
    );
    assert_eq!(
        text("SM80", "000000000c00000000000000fe000980"),
        "@P0 LD.???0.EF.U8 R0, [R254.64+UR0] ;"
    );
    // Without a uniform register the base register keeps its `.64` at RZ (campaign seed 11).
    assert_eq!(
        text("SM80", "000000000c00100000000100ff000980"),
        "@P0 LD.???0.EF.U8 R0, [RZ.64+0x1] ;"
    );
    // oracle/forms/SM80-LD.tsv: bit 76 alone on the `[R.U32+UR]` fixed word is refused.
    assert_eq!(
        read("SM80", "00000000080010000000000000000980").legality,
        Some(Legality::Unrecognized {
            reason: "Unrecognized operation for functional unit 'uC'".into()
        })
    );
}

#[test]
fn form_bits_are_found_by_the_recorded_experiment() {
    use sass_conform::oracle::for_each_entry_in_files;
    use sass_conform::reading::flips::Answers;
    use sass_conform::reading::forms::{Form, forms_of};
    let mut entries = Vec::new();
    for_each_entry_in_files(
        Path::new("oracle"),
        |p| p.components().any(|c| c.as_os_str() == "forms"),
        |_, e| entries.push(e),
    )
    .unwrap();
    let answers = Answers::new(&entries);
    let tables = load_tables(&[PathBuf::from("specs")], None).unwrap();
    let set = ResolvedSet::read(Path::new("resolved/tables.json"), &tables).unwrap();
    let forms = |mn: &str, key: &str| {
        let t = set.layouts.iter().find(|t| t.mnemonic == mn).unwrap();
        let v = t.variants.iter().find(|v| v.key == key).unwrap();
        forms_of(v, t.arch.unwrap(), &answers)
    };
    let ld76 = Form {
        bit: 76,
        partner: 90,
        context: vec![101],
        free_partner: false,
    };
    assert_eq!(forms("LD", "LD_R_R_UR_I_P"), vec![ld76.clone()]);
    assert_eq!(forms("LD", "LD_R_R_UR"), vec![ld76]);
    // Bit 76 of the forms without a uniform register: nvdisasm ignores it (not fixed).
    assert_eq!(forms("LD", "LD_R_R_I_P"), vec![]);
    // TEX bit 91 is refused alone and with every other bit: a fixed bit, not a form bit.
    assert_eq!(forms("TEX", "TEX_P_R_R_R_R_UR_D_I"), vec![]);
}

#[test]
fn tmml_lod_register_at_255_prints_with_b_and_is_left_out_without() {
    // oracle/combos: TMML_R_R_R_R_I_I_D_I's operand 3 (bits 32-39) at 255 reads bit 59 (`B`)
    // as context: `???255` with it, left out without it.
    assert_eq!(
        text("SM90", "440c52b8817579c0a9e7acff44884b69"),
        "@P4 TMML.B.LOD.NDV R192, R136, R68, ???255, 0x7, 0x27ac, ARRAY_2D, 0x9 ;"
    );
    assert_eq!(
        text("SM90", "471adb1b264055d9a2e21eff1cb82b69"),
        "@P2 TMML.LOD.NODEP R217, R184, R28, 0xb, 0x221e, ARRAY_2D, 0x5 ;"
    );
}

#[test]
fn a_quiet_scheduling_control_takes_the_space_before_the_semicolon() {
    // Stall 0, yield 0, both barriers 7, wait mask 0 (bits 105-121 = 0x7e0): nvdisasm 13.5.37
    // writes `;` right after the text (campaign seed 1313's minimal words; each checked alone
    // in raw mode). The same word with a stall of 1 (bit 105) has the space again.
    assert_eq!(
        text("SM80", "400fc1954bdca7905514feeb45230980"),
        "@P0 LD.E.NA.LTC64B.S16.STRONG.SM R35, [R69.U32+UR43+0x5514fe];"
    );
    assert_eq!(
        text("SM80", "400fc3954bdca7905514feeb45230980"),
        "@P0 LD.E.NA.LTC64B.S16.STRONG.SM R35, [R69.U32+UR43+0x5514fe] ;"
    );
    // A wait-mask bit (116) or another barrier value (w-bar 6) brings the space back too.
    assert_eq!(
        text("SM80", "402fc1954bdca7905514feeb45230980"),
        "@P0 LD.E.NA.LTC64B.S16.STRONG.SM R35, [R69.U32+UR43+0x5514fe] ;"
    );
    assert_eq!(
        text("SM80", "400f81954bdca7905514feeb45230980"),
        "@P0 LD.E.NA.LTC64B.S16.STRONG.SM R35, [R69.U32+UR43+0x5514fe] ;"
    );
    // The decode_render fuzz target's crash (CI, 2026-12-01): a TLD4 word on SM90 with a quiet
    // control; nvdisasm 13.5.37 `-b SM90` prints exactly this (checked alone in raw mode).
    assert_eq!(
        text("SM90", "000fc000000000003f66002020003b65"),
        "@P3 TLD4.SCR.R.B.EF P0, R0, R0, R32, R32, 0x1d, 0x0, 0x98, 2D, 0x0;"
    );
    assert_eq!(
        text("SM100", "800fc011d800e1120be7ddea96e29f60"),
        "@!P1 TEX.F16.RN.LZ.INVALID3.DC.EF.FDV P0, R18, R226, R150, R234, UR221, 1D, 0x1;"
    );
    assert_eq!(
        text("SM100", "400fc132e957b359638ba05133ffcd67"),
        "@!P4 TLD.B.INVALID3.INVALID2.INVALID3.NA.MS.CL P3, R89, RZ, R51, R81, INVALID3, 0x3;"
    );
    assert_eq!(
        text("SM80", "c00fc09b84f65bfa33b70922ffff1980"),
        "@P1 LD.E.INVALID7.LTC256B.64.CONSTANT.CTA RZ, [0x33b70922], !P5;"
    );
    // On SM90 and later bits 102-103 (in no table field) must be 0 as well; on SM80 they do
    // not count (bit 103 is set in the two LD words above). Campaign seed 1313 words.
    assert_eq!(
        text("SM90", "400fc15f35ad69ff2b6c71120100f36a"),
        "@!PT TMML.B.LOD.NDV.NODEP RZ, R0, R1, R18, 2D, 0x9 ;"
    );
    assert_eq!(
        text("SM90", "400fc11f35ad69ff2b6c71120100f36a"),
        "@!PT TMML.B.LOD.NDV.NODEP RZ, R0, R1, R18, 2D, 0x9;"
    );
    assert_eq!(
        text("SM100", "000fc0fe0de02297903e56b14c0bcd61"),
        "@!P4 TEX.SCR.B.INVALID6.INVALID6.FDV.NODEP P0, R151, R11, R76, R177, ARRAY_1D, 0x2 ;"
    );
}

#[test]
fn the_bits_before_the_semicolon_are_learned_per_table() {
    // The quiet-word experiment (oracle/forms/, nvdisasm 13.5.37): on SM90 and SM100 bits
    // 102-103 bring the space before `;` back as well as the scheduling fields; on SM80 they
    // do not. Bit 104 is in no mask (it changes nothing); bit 109 makes the quiet word
    // illegal, so the experiment cannot read it and it keeps the table's rule (in the mask).
    use sass_conform::reading::semicolon::Semicolon;
    let r = reading();
    // Bits 105-121: stall, yield, r-bar, w-bar, b-mask.
    let sched: u128 = 0x1ffff << 105;
    for t in &r.codec.tables {
        let extra: u128 = if t.arch == Some(Arch(80)) {
            0
        } else {
            0b11 << 102
        };
        for v in &t.variants {
            let Some(Semicolon::Quiet { mask, value }) = v.semicolon else {
                panic!("{} {}: no quiet control learned", t.path, v.key);
            };
            assert_eq!(mask, sched | extra, "{}", v.key);
            assert_eq!(value, 0x000f_c000 << 96, "{}", v.key);
        }
    }
}
