//! `synth` offline, on recorded nvdisasm answers (tests/data/synth/SM90-S2R-ISETP.tsv, made by
//! `sass-conform synth --arch SM90 --mnemonic S2R --mnemonic ISETP --record-used FILE` with
//! nvdisasm 13.5.37): the real S2R and ISETP words of corpus/synth/sm90 and every experiment
//! word. Asserts real values of the synthesised tables: fixed bits, operand fields, a modifier
//! group's values as nvdisasm names them, and that the text parses with the project's parser.

use sass_conform::Arch;
use sass_conform::oracle::read_entries;
use sass_conform::spec::{FieldKind, ModifierName, parse_table};
use sass_conform::synth::{self, Answers, Options};
use std::collections::HashSet;

mod common;
use common::recorded_cubins;

fn synthesise() -> synth::Outcome {
    synthesise_sm90("tests/data/synth/SM90-S2R-ISETP.tsv", &["S2R", "ISETP"])
}

/// `synth` of `mnemonics` on SM90 from a recording (`--record-used FILE`) that holds the real
/// words of those mnemonics only, of the cubins [`recorded_cubins`] names.
fn synthesise_sm90(file: &str, mnemonics: &[&str]) -> synth::Outcome {
    let arch: Arch = "SM90".parse().unwrap();
    let rec = read_entries(file).unwrap();
    let recorded: HashSet<u128> = rec.iter().map(|e| e.word).collect();
    let words: Vec<u128> = synth::corpus_words(&recorded_cubins(), arch)
        .unwrap()
        .into_iter()
        .filter(|w| recorded.contains(w))
        .collect();
    synthesise_recorded(arch, rec, &words, mnemonics)
}

/// `synth` of `mnemonics` on `arch` from the real `words`, nvdisasm's answers all in `rec`.
fn synthesise_recorded(
    arch: Arch,
    rec: Vec<sass_conform::oracle::Entry>,
    words: &[u128],
    mnemonics: &[&str],
) -> synth::Outcome {
    let mut answers = Answers::new(arch, rec, None);
    let mut opts = Options::new(arch);
    opts.mnemonics = mnemonics.iter().map(|m| m.to_string()).collect();
    synth::synthesize(words, &mut answers, &opts).unwrap()
}

fn bits(v: &sass_conform::spec::Variant, label: &str) -> Vec<(u8, u8)> {
    v.fields
        .iter()
        .find(|f| f.label == label)
        .unwrap_or_else(|| panic!("{}: no field `{label}`", v.key))
        .ranges
        .iter()
        .map(|r| (r.lo, r.hi()))
        .collect()
}

#[test]
fn s2r_and_isetp_tables_from_recorded_answers() {
    let out = synthesise();
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    let names: Vec<&str> = out.tables.iter().map(|t| t.mnemonic.as_str()).collect();
    assert_eq!(names, ["ISETP", "S2R"]);

    // S2R: one variant; opcode 0x919 in bits 0-11, guard 12-15, destination 16-23, the special
    // register 72-79 (its flips print SR_CLOCK, SR_VIRTCFG, SR4, ...).
    let s2r = &out.tables[1];
    assert_eq!(s2r.variants.len(), 1);
    assert_eq!(s2r.variants[0].words.len(), 77);
    let t = parse_table("S2R.txt", &s2r.text).unwrap();
    assert_eq!(t.arch, Some("SM90".parse().unwrap()));
    let v = &t.variants[0];
    assert_eq!(v.key, "S2R_R_SR");
    assert_eq!(v.signature.text, "R,SR");
    assert_eq!(v.distilled, "@P0 S2R R0, SR_LANEID ;");
    assert_eq!(v.fixed_value, 0x919);
    assert_eq!(v.fixed_mask & 0xfff, 0xfff);
    assert_eq!(bits(v, "pred"), [(12, 15)]);
    assert_eq!(bits(v, "operand 0"), [(16, 23)]);
    assert_eq!(bits(v, "operand 1"), [(72, 79)]);
    assert_eq!(bits(v, "stall"), [(105, 108)]);
    assert!(s2r.variants[0].fixed_legal);

    // ISETP: six variants (R, I, UR sources, each with and without .EX).
    let isetp = &out.tables[0];
    let t = parse_table("ISETP.txt", &isetp.text).unwrap();
    let keys: Vec<&str> = t.variants.iter().map(|v| v.key.as_str()).collect();
    assert_eq!(
        keys,
        [
            "ISETP_P_P_R_R_P",
            "ISETP_P_P_R_I_P",
            "ISETP_P_P_R_R_P_P",
            "ISETP_P_P_R_UR_P",
            "ISETP_P_P_R_UR_P_P",
            "ISETP_P_P_R_I_P_P"
        ]
    );
    let v = &t.variants[0];
    assert_eq!(v.distilled, "@P0 ISETP.F.U32.AND P0, P0, R0, R0, P0;");
    // Opcode 0x20c, and bits 68-70 at 7 (a predicate nvdisasm leaves out at PT: a form bit).
    assert_eq!(v.fixed_value, 0x0000000000000070_000000000000020c);
    assert_eq!(bits(v, "operand 0"), [(81, 83)]);
    assert_eq!(bits(v, "operand 1"), [(84, 86)]);
    assert_eq!(bits(v, "operand 2"), [(24, 31)]);
    assert_eq!(bits(v, "operand 3"), [(32, 39)]);
    assert_eq!(bits(v, "operand 4"), [(87, 89)]);
    // Bit 90 negates the last predicate (`!P0`): an operand modifier flag.
    assert_eq!(bits(v, "op4.NOT"), [(90, 90)]);
    // Bits 73-78 are three independent fields (groups::pieces): 73 `.U32` (printed at 0),
    // 74-75 the boolean operation, 76-78 the comparison, named as nvdisasm prints them.
    let m = v.fields.iter().find(|f| f.label == "modi 1").unwrap();
    assert_eq!(m.kind, FieldKind::Modifier(1));
    assert_eq!(bits(v, "modi 1"), [(73, 73)]);
    assert_eq!(bits(v, "modi 2"), [(74, 75)]);
    assert_eq!(bits(v, "modi 3"), [(76, 78)]);
    let names = |g: &sass_conform::spec::ModifierGroup| -> Vec<ModifierName> {
        g.values.iter().map(|r| r.name.clone()).collect()
    };
    let named = |s: &str| ModifierName::Named(s.into());
    assert_eq!(names(&v.groups[0]), [named("U32"), ModifierName::Default]);
    // nvdisasm prints the fourth boolean operation as `INVALID3` (not a refusal).
    assert_eq!(
        names(&v.groups[1]),
        [
            named("AND"),
            named("OR"),
            named("XOR"),
            ModifierName::Invalid(3)
        ]
    );
    assert_eq!(
        names(&v.groups[2]),
        ["F", "LT", "EQ", "LE", "GT", "NE", "GE", "T"].map(named)
    );
}

#[test]
fn offline_without_an_answer_names_the_word() {
    let arch: Arch = "SM90".parse().unwrap();
    let mut answers = Answers::new(arch, Vec::new(), None);
    let err = synth::synthesize(&[0x919], &mut answers, &Options::new(arch))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("SM90 word 00000000000000000000000000000919"),
        "{err}"
    );
}

/// RET and EXIT from tests/data/synth/SM90-RET-EXIT.tsv (`synth --arch SM90 --mnemonic RET
/// --mnemonic EXIT --record-used FILE`, nvdisasm 13.5.37).
fn synthesise_ret_exit() -> synth::Outcome {
    synthesise_sm90("tests/data/synth/SM90-RET-EXIT.tsv", &["RET", "EXIT"])
}

#[test]
fn ret_target_is_an_operand_of_its_own_and_exit_barriers_are_fixed() {
    let out = synthesise_ret_exit();
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    let names: Vec<&str> = out.tables.iter().map(|t| t.mnemonic.as_str()).collect();
    assert_eq!(names, ["EXIT", "RET"]);

    // RET prints `RET.REL.NODEC R2 -0x1400`: the register and the target (no comma between
    // them) are two operands, so the target is no 65-bit field holding the register too.
    let t = parse_table("RET.txt", &out.tables[1].text).unwrap();
    assert_eq!(t.variants.len(), 1);
    let v = &t.variants[0];
    assert_eq!(v.signature.text, "R,I");
    assert_eq!(v.key, "RET_R_I");
    assert_eq!(bits(v, "operand 0"), [(24, 31)]);
    // The target: bits 16-23 (its low byte) and 34-81, written as one field in two runs.
    assert_eq!(
        bits(v, "operand 1")
            .iter()
            .map(|(lo, hi)| (hi - lo + 1) as u32)
            .sum::<u32>(),
        8 + 48
    );
    assert_eq!(bits(v, "operand 1")[0], (16, 23));
    assert_eq!(v.distilled, "@P0 RET.REL R0 0x10;");

    // EXIT: nvdisasm refuses any read or write barrier but 7 (bits 110-115 all set), on every
    // base: those scheduling bits are fixed, and the fixed word is legal.
    let exit = &out.tables[0];
    assert!(exit.variants[0].fixed_legal);
    let t = parse_table("EXIT.txt", &exit.text).unwrap();
    let v = &t.variants[0];
    let barriers: u128 = 0x3f << 110;
    assert_eq!(v.fixed_mask & barriers, barriers);
    assert_eq!(v.fixed_value & barriers, barriers);
    assert!(
        v.fields
            .iter()
            .all(|f| f.label != "r-bar" && f.label != "w-bar")
    );
    assert_eq!(bits(v, "stall"), [(105, 108)]);
    assert_eq!(v.distilled, "@P0 EXIT;");
}

#[test]
fn description_line_names_the_sources_of_the_words() {
    // No source given: the count alone.
    let out = synthesise();
    let line = |o: &synth::Outcome, mn: &str| {
        let t = o.tables.iter().find(|t| t.mnemonic == mn).unwrap();
        t.text.lines().nth(2).unwrap().to_string()
    };
    assert_eq!(
        line(&out, "S2R"),
        "Synthesised by sass-conform synth from 77 words and nvdisasm's answers"
    );
    // Each word's source: S2R's words from the second source, ISETP's from the first.
    let arch: Arch = "SM90".parse().unwrap();
    let rec = read_entries("tests/data/synth/SM90-S2R-ISETP.tsv").unwrap();
    let s2r: HashSet<u128> = out
        .tables
        .iter()
        .filter(|t| t.mnemonic == "S2R")
        .flat_map(|t| t.variants.iter().flat_map(|v| v.words.iter().copied()))
        .collect();
    let words: Vec<u128> = out
        .tables
        .iter()
        .flat_map(|t| t.variants.iter().flat_map(|v| v.words.iter().copied()))
        .collect();
    let mut opts = Options::new(arch);
    opts.mnemonics = vec!["S2R".into(), "ISETP".into()];
    opts.sources = vec!["corpus/synth/sm90".into(), "seed.txt".into()];
    opts.word_source = words
        .iter()
        .map(|&w| (w, usize::from(s2r.contains(&w))))
        .collect();
    let mut answers = Answers::new(arch, rec, None);
    let named = synth::synthesize(&words, &mut answers, &opts).unwrap();
    assert_eq!(
        line(&named, "S2R"),
        "Synthesised by sass-conform synth from 77 words of seed.txt and nvdisasm's answers"
    );
    assert!(
        line(&named, "ISETP").contains(" words of corpus/synth/sm90 and nvdisasm's answers"),
        "{}",
        line(&named, "ISETP")
    );
}

/// MUFU on SM100 from tests/data/synth/SM100-MUFU.tsv (`synth --arch SM100 --mnemonic MUFU
/// --record-used FILE`, nvdisasm 13.5.37, corpus/synth/sm100 as of 2026-12-03).
#[test]
fn bits_hidden_by_every_real_base_are_found_on_the_cleared_base() {
    let arch: Arch = "SM100".parse().unwrap();
    let rec = read_entries("tests/data/synth/SM100-MUFU.tsv").unwrap();
    // The real MUFU words: those of corpus/synth/sm100 recorded with a MUFU text.
    let mufu: HashSet<u128> = rec
        .iter()
        .filter(|e| {
            e.answer.is_legal() && synth::mnemonic_of(e.answer.text()).as_deref() == Some("MUFU")
        })
        .map(|e| e.word)
        .collect();
    let cubins: Vec<std::path::PathBuf> = std::fs::read_dir("corpus/synth/sm100")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "cubin"))
        .collect();
    let words: Vec<u128> = synth::corpus_words(&cubins, arch)
        .unwrap()
        .into_iter()
        .filter(|w| mufu.contains(w))
        .collect();
    let out = synthesise_recorded(arch, rec, &words, &["MUFU"]);
    let t = parse_table("MUFU.txt", &out.tables[0].text).unwrap();
    let v = t.variants.iter().find(|v| v.key == "MUFU_R_F").unwrap();
    // Every real float immediate is -QNAN (0xffc00000): flipping its mantissa bits 32-53
    // prints -QNAN again. On the base with its fields cleared (`MUFU.COS R0, 0`) bit 32
    // prints 1.4012984643248170709e-45: the immediate is bits 32-63, not 54-63.
    assert_eq!(bits(v, "operand 1"), [(32, 63)]);
    assert_eq!(v.distilled, "@P0 MUFU.COS R0, 0 ;");
}

/// A mnemonic asked for that no input word disassembles as (a typo, lower case) is named in
/// `skipped` (so `synth` exits 1 and SKIPPED.tsv lists it), and the others are still written.
#[test]
fn a_mnemonic_no_word_has_is_named_not_silently_dropped() {
    let out = synthesise_sm90(
        "tests/data/synth/SM90-S2R-ISETP.tsv",
        &["S2R", "isetp", "ZZZNOPE"],
    );
    let names: Vec<&str> = out.tables.iter().map(|t| t.mnemonic.as_str()).collect();
    assert_eq!(names, ["S2R"]);
    let skipped: Vec<String> = out.skipped.iter().map(|e| e.to_string()).collect();
    assert_eq!(
        skipped,
        [
            "SM90 isetp: no word of the input disassembles as isetp (2 mnemonics found in it; names are nvdisasm's, in capitals)",
            "SM90 ZZZNOPE: no word of the input disassembles as ZZZNOPE (2 mnemonics found in it; names are nvdisasm's, in capitals)",
        ]
    );
}
