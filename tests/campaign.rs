//! The campaign's minimiser and root-cause grouping, offline: nvdisasm is played by the
//! recorded answers (`Recorded`) of oracle/ and of the campaign recording in
//! tests/data/campaign/campaign/*-1.tsv (`sass-conform campaign --words 20000 --seed 1
//! --record --record-max 300`, nvdisasm 13.5.37, MANIFEST-checked), which holds every word
//! the live minimiser asked. (Kept out of oracle/ so that it is not learned from: a recording
//! there changes resolved/tables.json and the pinned figures.)

use sass_conform::Arch;
use sass_conform::codec::{Codec, Word};
use sass_conform::conform::campaign::{Cause, Causes, Disagreement, Judge, minimise};
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

fn cause(table: &str, key: &str, field: &str) -> Cause {
    Cause {
        table: table.into(),
        key: key.into(),
        field: field.into(),
        kind: "text".into(),
    }
}

/// The three root causes of the seed-1 campaign, with the minimal word the live minimiser
/// found for each.
fn expected() -> Vec<(Cause, &'static str)> {
    vec![
        (
            cause("SM80 LD", "LD_R_R_I_P", "operand 1"),
            "000000000000000000000000ff000980",
        ),
        (
            cause("SM80 LD", "LD_R_R_UR_I_P", "modifiers"),
            "000000000c00000000000000ff000980",
        ),
        (
            cause("SM90 TMML", "TMML_R_R_R_R_I_I_D_I", "operand 3"),
            "0000000000000000080000ff00000b69",
        ),
    ]
}

#[test]
fn recorded_disagreements_group_into_three_root_causes() {
    let (codec, model) = view();
    let r = Renderer::new(&codec);
    let ds = disagreements(&codec, &r, &model);
    let mut causes = Causes::default();
    for d in ds.iter().cloned() {
        causes.add(d);
    }
    let got: Vec<&Cause> = causes.by_cause.keys().collect();
    let want: Vec<Cause> = expected().into_iter().map(|(c, _)| c).collect();
    assert_eq!(got, want.iter().collect::<Vec<_>>());
    // Every cause's example texts: ours leaves out what nvdisasm prints, or adds `???0`.
    let ld = &causes.by_cause[&want[0]];
    assert!(ld.count >= 29, "{}", ld.count);
    let m = ds
        .iter()
        .find(|d| d.mismatch.word == "000000000000000000000000ff000980")
        .unwrap();
    assert_eq!(m.mismatch.nvdisasm, "@P0 LD.EF.U8 R0, [RZ] ;");
    assert_eq!(m.mismatch.ours.as_deref(), Some("@P0 LD.EF.U8 R0, [] ;"));
}

#[test]
fn the_minimiser_replays_offline_to_each_minimal_word() {
    let (codec, model) = view();
    let r = Renderer::new(&codec);
    let mut all =
        oracle::load_entries_where(Path::new("oracle"), oracle::is_evidence_file).unwrap();
    all.extend(campaign_entries());
    let recorded = Recorded::new(&all);
    let ds = disagreements(&codec, &r, &model);
    for (cause, minimal) in expected() {
        let arch: Arch = cause.table.split(' ').next().unwrap().parse().unwrap();
        let judge = Judge {
            codec: &codec,
            renderer: &r,
            model: Some(&model),
            arch,
            table: cause.table.clone(),
        };
        // Words of the live minimiser's path: every candidate was asked, so recorded. The
        // one with the most bits set is where the path starts.
        let on_path = |w: u128| {
            let c = judge.candidates(w);
            let answers = recorded.ask_some(arch, &c).unwrap();
            answers.iter().all(Option::is_some)
        };
        let start = ds
            .iter()
            .filter(|d| d.cause == cause)
            .filter(|d| on_path(oracle::parse_word_hex(&d.mismatch.word).unwrap()))
            .max_by_key(|d| {
                let w = oracle::parse_word_hex(&d.mismatch.word).unwrap();
                (w.count_ones(), w)
            })
            .unwrap_or_else(|| panic!("{cause:?}: no recorded minimising path"))
            .clone();
        let (min, asked) = minimise(&judge, &recorded, &[start.clone()], 64).unwrap();
        assert_eq!(min[0].cause, cause);
        assert_eq!(
            min[0].mismatch.word, minimal,
            "{cause:?} from {}",
            start.mismatch.word
        );
        assert!(!asked.is_empty());
        // A fixpoint: no candidate of the minimal word disagrees the same way.
        let w = oracle::parse_word_hex(minimal).unwrap();
        let cands = judge.candidates(w);
        let answers = recorded.ask(arch, &cands).unwrap();
        for (c, a) in cands.iter().zip(answers) {
            assert_ne!(
                judge.judge(*c, a).map(|d| d.cause),
                Some(cause.clone()),
                "{c:032x}"
            );
        }
    }
}
