//! The campaign's minimiser and root-cause grouping, offline: nvdisasm is played by the
//! recorded answers (`Recorded`) of oracle/ and of the campaign recordings in
//! tests/data/campaign/campaign/ (`sass-conform campaign --words 20000 --seed 1 --record
//! --record-max 300`, and `--words 1000000 --seed 1313` by the reading before the quiet
//! control rule; nvdisasm 13.5.37, MANIFEST-checked), which hold every word the live
//! minimiser asked. (Kept out of oracle/ so that it is not learned from: a recording
//! there changes resolved/tables.json and the pinned figures.)

use sass_conform::Arch;
use sass_conform::codec::{Codec, Word};
use sass_conform::conform::campaign::{Cause, Causes, Disagreement, Judge};
use sass_conform::oracle::ask::{Ask, Recorded};
use sass_conform::oracle::{self, Entry};
use sass_conform::reading::model::Model;
use sass_conform::reading::resolved::ResolvedSet;
use sass_conform::render::Renderer;
use sass_conform::spec::load_tables;
use std::path::{Path, PathBuf};

/// The campaign recording's oracle root.
const CAMPAIGN: &str = "tests/data/campaign";

fn view() -> (Codec, Model) {
    let tables = load_tables(&[PathBuf::from("specs")], None).unwrap();
    let set = ResolvedSet::read(Path::new("resolved/tables.json"), &tables).unwrap();
    (Codec::new(set.tables).unwrap(), set.model)
}

/// `SM80 LD`: the table of the variant `word` decodes as.
fn table_of(codec: &Codec, arch: Arch, word: u128) -> Option<String> {
    let d = codec.decode(arch, Word(word))?;
    Some(format!("{arch} {}", codec.table(d.id).mnemonic))
}

fn campaign_entries() -> Vec<Entry> {
    oracle::load_entries_where(Path::new(CAMPAIGN), |_| true).unwrap()
}

/// Every disagreement among the recorded campaign words.
fn disagreements(codec: &Codec, r: &Renderer, model: &Model) -> Vec<Disagreement> {
    campaign_entries()
        .into_iter()
        .filter_map(|e| {
            let judge = Judge {
                codec,
                renderer: r,
                model: Some(model),
                arch: e.arch,
                table: table_of(codec, e.arch, e.word)?,
            };
            judge.judge(e.word, e.answer)
        })
        .collect()
}

/// The three root causes the seed-1 campaign found (its minimiser's words: SM80 LD `[RZ]`,
/// SM80 LD `.???0` with the base register left out, SM90 TMML `???255`), each with nvdisasm's
/// recorded text for its minimal word. All three are fixed in the reading since; the
/// minimiser itself is tested against a fake oracle in `conform::campaign`'s unit tests.
const FIXED: [(&str, &str, &str); 3] = [
    (
        "SM80",
        "000000000000000000000000ff000980",
        "@P0 LD.EF.U8 R0, [RZ] ;",
    ),
    (
        "SM80",
        "000000000c00000000000000ff000980",
        "@P0 LD.EF.U8 R0, [UR0] ;",
    ),
    (
        "SM90",
        "0000000000000000080000ff00000b69",
        "@P0 TMML.B.LOD R0, R0, R0, ???255, 0x0, 0x0, 1D, 0x0 ;",
    ),
];

/// The five root causes the seed-1313 campaign found, one per variant, all one cause: a quiet
/// scheduling control (stall 0, yield 0, both barriers 7, wait mask 0; bits 102-103 at 0 on
/// SM90 and later) takes the space before `;`. The minimiser cut each to the fixed word with
/// that control; each recorded text, and the reading's since the fix.
const QUIET: [(&str, &str, &str); 5] = [
    (
        "SM100",
        "000fc000080000000000000000000f60",
        "@P0 TEX.EF P0, R0, R0, R0, R0, UR0, 1D, 0x0;",
    ),
    (
        "SM100",
        "000fc000080000000000000000000d67",
        "@P0 TLD.B.LZ.EF P0, R0, R0, R0, R0, 1D, 0x0;",
    ),
    (
        "SM80",
        "000fc000000000000000000000000980",
        "@P0 LD.EF.U8 R0, [R0];",
    ),
    (
        "SM80",
        "000fc000080000000000000000000980",
        "@P0 LD.EF.U8 R0, [R0.U32+UR0];",
    ),
    (
        "SM90",
        "000fc000000000000000000000000b69",
        "@P0 TMML.LOD R0, R0, R0, R0, 0x0, 0x0, 1D, 0x0;",
    ),
];

#[test]
fn the_recorded_campaign_has_no_disagreement_left() {
    let (codec, model) = view();
    let r = Renderer::new(&codec);
    let entries = campaign_entries();
    assert!(entries.len() > 1000, "{}", entries.len());
    let ds = disagreements(&codec, &r, &model);
    let mut causes = Causes::default();
    for d in ds.iter().cloned() {
        causes.add(d);
    }
    let left: Vec<&Cause> = causes.by_cause.keys().collect();
    assert!(left.is_empty(), "{left:?}");
    let recorded = Recorded::new(&entries);
    for &(arch, word, text) in FIXED.iter().chain(&QUIET) {
        let arch: Arch = arch.parse().unwrap();
        let w = oracle::parse_word_hex(word).unwrap();
        // The recording holds nvdisasm's answer for the minimal word, and it is `text`.
        let answer = recorded.ask_some(arch, &[w]).unwrap().remove(0).unwrap();
        assert_eq!(answer, sass_conform::oracle::Answer::Text(text.into()));
        let p = sass_conform::conform::predict(&codec, &r, Some(&model), arch, Word(w));
        assert_eq!(p.text.as_deref(), Some(text), "{word}");
    }
}

fn sass_conform(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_sass-conform"))
        .args(args)
        .output()
        .unwrap()
}

/// `corpus coverage` of the committed roundtrip corpus: the features the tables have (exact)
/// and at least the figures in README.md (adding inputs to the corpus only adds features).
#[test]
fn corpus_coverage_of_the_committed_corpus() {
    let o = sass_conform(&["corpus", "coverage", "corpus/roundtrip"]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    // (hit, total) of triples and pairs on a table's line.
    let figures = |name: &str| -> [(usize, usize); 2] {
        let l = out
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no {name} line in {out}"));
        let f: Vec<(usize, usize)> = l
            .split_whitespace()
            .filter_map(|w| w.split_once('/'))
            .map(|(a, b)| (a.parse().unwrap(), b.parse().unwrap()))
            .collect();
        [f[0], f[1]]
    };
    for (name, triples, pairs) in [
        ("SM100 TEX", (145, 651), (0, 36)),
        ("SM100 TLD", (147, 643), (0, 36)),
        ("SM80 LD", (157, 776), (8, 64)),
        ("SM90 TMML", (230, 975), (0, 0)),
        ("SM90 TLD4", (2571, 11107), (4, 477)),
        ("all", (3250, 14152), (12, 613)),
    ] {
        let [t, p] = figures(name);
        assert_eq!((t.1, p.1), (triples.1, pairs.1), "{name}: features");
        assert!(t.0 >= triples.0 && p.0 >= pairs.0, "{name}: {t:?} {p:?}");
    }
}

/// fuzz/roundtrip.dict is what `corpus dict` writes from the tables.
#[test]
fn the_fuzz_dictionary_is_fresh() {
    let o = sass_conform(&["corpus", "dict"]);
    assert_eq!(o.status.code(), Some(0));
    let committed = std::fs::read_to_string("fuzz/roundtrip.dict").unwrap();
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        committed,
        "run `sass-conform corpus dict --out fuzz/roundtrip.dict`"
    );
    assert_eq!(
        committed.lines().filter(|l| !l.starts_with('#')).count(),
        475
    );
    // The TLD fixed word's low bytes (0x...0f66) as the opcode pattern of SM100 TLD.
    assert!(
        committed.contains(
            "opcode_SM100_TLD_P_R_R_R_R_UR_D_I=\"\\x66\\x0F\\x00\\x00\\x00\\x00\\x00\\x00\""
        ),
        "{}",
        committed
            .lines()
            .find(|l| l.contains("opcode_SM100_TLD_P"))
            .unwrap_or("")
    );
}
