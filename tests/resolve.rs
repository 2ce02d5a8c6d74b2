//! Resolution re-checked offline from the recorded nvdisasm answers (oracle/): the findings
//! with their evidence, the committed resolved tables, and the agreement they reach.

use sass_conform::codec::Codec;
use sass_conform::conform::resolve::bit_findings;
use sass_conform::conform::{Finding, diff, diff_with};
use sass_conform::oracle::{Entry, is_evidence_file, is_sweep_file, load_entries_where};
use sass_conform::reading::flips::{Answers, read_bits};
use sass_conform::reading::resolved::{ResolvedSet, resolve_tables};
use sass_conform::render::Renderer;
use sass_conform::spec::{Table, load_tables};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn tables() -> Vec<Table> {
    load_tables(&[PathBuf::from("specs")], None).unwrap()
}

fn entries() -> Vec<Entry> {
    load_entries_where("oracle", is_sweep_file).unwrap()
}

/// Every recorded answer `resolve --write` and `diff` read: oracle/ without arch-infer/.
fn all_entries() -> Vec<Entry> {
    load_entries_where("oracle", is_evidence_file).unwrap()
}

fn findings() -> Vec<Finding> {
    let codec = Codec::new(tables()).unwrap();
    let es = entries();
    let answers = Answers::new(&es);
    bit_findings(&codec, &read_bits(&codec, &answers))
}

#[test]
fn tld_modifier_labels_are_bound_to_the_wrong_groups() {
    let f = findings();
    let g = f
        .iter()
        .find(|f| {
            f.key == "TLD_P_R_R_R_R_UR_D_I"
                && f.kind == "label-wrong-group"
                && f.message.contains("`modi 4`")
        })
        .expect("TLD modi 4 finding");
    assert_eq!(g.file, "specs/sm100/TLD.txt");
    assert_eq!(g.line, 18, "the second cell row of the layout");
    assert_eq!(g.bits, vec![79, 80]);
    assert_eq!(
        g.reading.as_deref(),
        Some(
            "bit 79: Modifier Group 3, value bit 0 (`` -> `F16.RN`); bit 80: Modifier Group 3, value bit 1 (`` -> `F16.RZ`)"
        )
    );
    assert_eq!(g.evidence[1].word, "00000000080080000000000000000f66");
    assert_eq!(
        g.evidence[1].nvdisasm,
        "@P0 TLD.F16.RN.LZ.EF P0, R0, R0, R0, R0, UR0, 1D, 0x0 ;"
    );
}

#[test]
fn tld_dimension_is_three_bits_not_two() {
    let f = findings();
    let g = f
        .iter()
        .find(|f| f.key == "TLD_P_R_R_R_R_UR_D_I" && f.kind == "fixed-bit-is-field")
        .expect("bit 63 finding");
    assert_eq!(g.bits, vec![63]);
    assert_eq!(g.reading.as_deref(), Some("bit 63: operand 6, bit 2"));
    assert_eq!(
        g.evidence[1].nvdisasm,
        "@P0 TLD.LZ.EF P0, R0, R0, R0, R0, UR0, ARRAY_1D, 0x0 ;"
    );
}

#[test]
fn finding_counts_by_kind() {
    let mut by_kind: BTreeMap<String, usize> = BTreeMap::new();
    for f in findings() {
        assert!(!f.evidence.is_empty(), "{}", f.line_text());
        *by_kind.entry(f.kind).or_default() += 1;
    }
    let expected: BTreeMap<String, usize> = [
        // 14 distilled lines write 16 values nvdisasm prints otherwise for the fixed word.
        ("distilled-example-values", 16),
        ("field-bit-ignored", 24),
        ("field-bit-order", 72),
        ("field-boundary", 117),
        ("field-effect-unexplained", 8),
        ("field-wrong-operand", 195),
        ("fixed-bit-ignored", 143),
        ("fixed-bit-is-field", 268),
        ("label-wrong-group", 243),
        ("modifier-name-differs", 9),
        ("sched-value-rejected", 286),
        ("undescribed-bit-matters", 6),
    ]
    .into_iter()
    .map(|(k, n)| (k.to_string(), n))
    .collect();
    assert_eq!(by_kind, expected);
}

/// What `resolve --write` learns from: oracle/ without arch-infer/, the check split and the
/// compiler's words.
fn learnable() -> Vec<Entry> {
    load_entries_where("oracle", sass_conform::reading::combos::is_learnable).unwrap()
}

#[test]
fn committed_resolved_tables_are_what_the_oracle_gives() {
    let t = tables();
    let set = ResolvedSet::read(Path::new("resolved/tables.json"), &t).unwrap();
    let codec = Codec::new(t).unwrap();
    let again = resolve_tables(&codec, &learnable());
    assert_eq!(
        serde_json::to_value(&again).unwrap(),
        serde_json::to_value(&set.layouts).unwrap(),
        "resolved/tables.json is stale: run `sass-conform resolve --write`"
    );
}

/// The headline: on the check split (another seed, never learned from) every table reaches
/// 99.9% legal text and legal/illegal verdict; the counts are pinned.
#[test]
fn the_check_split_agrees_per_table() {
    let set = ResolvedSet::read(Path::new("resolved/tables.json"), &tables()).unwrap();
    let c = Codec::new(set.tables).unwrap();
    let r = Renderer::new(&c);
    let mut all = (0, 0, 0, 0);
    for (file, legal, matched) in [
        ("SM100-TEX", 3694, 3694),
        ("SM100-TLD", 3690, 3690),
        ("SM80-LD", 3238, 3238),
        ("SM90-TLD4", 68060, 68060),
        ("SM90-TMML", 7347, 7347),
    ] {
        let path = format!("oracle/combos/check/{file}.tsv");
        let es = load_entries_where("oracle", |p| p == Path::new(&path)).unwrap();
        let n = diff_with(&c, &r, Some(&set.model), &es).counts;
        let legal_n = n.matched + n.text_mismatch + n.we_reject_oracle_decodes;
        assert_eq!((legal_n, n.matched), (legal, matched), "{file}: {n:?}");
        assert!(n.legal_agreement() >= 0.999, "{file}: {n:?}");
        assert!(n.verdict_agreement() >= 0.999, "{file}: {n:?}");
        all.0 += n.total;
        all.1 += n.matched;
        all.2 += n.agree_illegal;
        all.3 += n.oracle_illegal_we_decode + n.we_reject_oracle_decodes;
    }
    assert_eq!(all, (143_000, 86_029, 56_517, 0));
}

/// The compiler's words (ptxas cubins, never learned from) all agree, SM80 LD's included:
/// ptxas sets bit 76 ("no uniform register", a form bit learned from oracle/forms and the
/// combination words that vary it) in every LD it emits.
#[test]
fn compiler_words_agree_on_every_arch() {
    let set = ResolvedSet::read(Path::new("resolved/tables.json"), &tables()).unwrap();
    let c = Codec::new(set.tables).unwrap();
    let r = Renderer::new(&c);
    for (file, legal, matched) in [("sm100", 253, 253), ("sm90", 255, 255), ("sm80", 495, 495)] {
        let path = format!("oracle/cubins/{file}.tsv");
        let es = load_entries_where("oracle", |p| p == Path::new(&path)).unwrap();
        let n = diff_with(&c, &r, Some(&set.model), &es).counts;
        let legal_n = n.matched + n.text_mismatch + n.we_reject_oracle_decodes;
        assert_eq!((legal_n, n.matched), (legal, matched), "{file}: {n:?}");
    }
}

#[test]
fn resolved_tables_agree_with_nvdisasm() {
    let es = all_entries();
    let set = ResolvedSet::read(Path::new("resolved/tables.json"), &tables()).unwrap();
    let c = Codec::new(set.tables).unwrap();
    let res = diff_with(&c, &Renderer::new(&c), Some(&set.model), &es);
    let n = &res.counts;
    eprintln!("{n:?}");
    assert_eq!(n.total, es.len());
    assert_eq!(
        (n.matched, n.text_mismatch, n.agree_illegal),
        (435_264, 0, 177_969)
    );
    // On the per-table sweeps alone.
    let sweeps = entries();
    let n = diff_with(&c, &Renderer::new(&c), Some(&set.model), &sweeps).counts;
    eprintln!("sweeps {n:?}");
    assert!(n.legal_agreement() >= 0.999, "{n:?}");
    assert!(n.verdict_agreement() >= 0.999, "{n:?}");
}

#[test]
fn readings_learned_from_half_the_answers_predict_the_other_half() {
    // Learn from the fixed words and their single-bit flips plus every other remaining
    // answer; check on the answers left out (random fills and field sweeps).
    let es = entries();
    let codec = Codec::new(tables()).unwrap();
    let fixed: Vec<(sass_conform::Arch, u128)> = codec
        .ids()
        .map(|id| (codec.table(id).arch.unwrap(), codec.variant(id).fixed_value))
        .collect();
    let near = |e: &Entry| {
        fixed
            .iter()
            .any(|(a, f)| *a == e.arch && (e.word ^ f).count_ones() <= 1)
    };
    #[allow(clippy::type_complexity)]
    let (learn, check): (Vec<(usize, Entry)>, Vec<(usize, Entry)>) = es
        .into_iter()
        .enumerate()
        .partition(|(i, e)| near(e) || i % 2 == 0);
    let learn: Vec<Entry> = learn.into_iter().map(|(_, e)| e).collect();
    let check: Vec<Entry> = check.into_iter().map(|(_, e)| e).collect();
    let c = Codec::new(resolve_tables(&codec, &learn)).unwrap();
    let res = diff(&c, &Renderer::new(&c), &check);
    eprintln!(
        "held out: {} answers, legal text {:.4}, verdict {:.4}",
        res.counts.total,
        res.counts.legal_agreement(),
        res.counts.verdict_agreement()
    );
    assert!(res.counts.total > 50_000);
    assert!(res.counts.legal_agreement() >= 0.99, "{:?}", res.counts);
    assert!(res.counts.verdict_agreement() >= 0.99, "{:?}", res.counts);
}

/// SM80 LD bit 76 (fixed to 0 in the four `[R+UR]` variants) is a form bit: one finding per
/// variant, with nvdisasm's words from oracle/forms/SM80-LD.tsv.
#[test]
fn ld_bit_76_is_a_form_bit_of_the_uniform_register_variants() {
    let es = load_entries_where("oracle", sass_conform::reading::combos::is_learnable).unwrap();
    let codec = Codec::new(tables()).unwrap();
    let found = sass_conform::conform::forms::form_findings(&codec, &Answers::new(&es));
    let keys: Vec<&str> = found.iter().map(|f| f.key.as_str()).collect();
    assert_eq!(
        keys,
        ["LD_R_R_UR", "LD_R_R_UR_P", "LD_R_R_UR_I", "LD_R_R_UR_I_P"]
    );
    let f = &found[0];
    assert_eq!(f.kind, "fixed-bit-is-form");
    assert_eq!(f.bits, [76, 90, 101]);
    let texts: Vec<&str> = f.evidence.iter().map(|e| e.nvdisasm.as_str()).collect();
    assert_eq!(
        texts,
        [
            "@P0 LD.EF.U8 R0, [R0.U32+UR0] ;",
            "illegal: Unrecognized operation for functional unit 'uC'",
            "@P0 LD.???0.EF.U8 R0, [R0.64] ;",
            "@P0 LD.???0.EF.U8 R0, desc[UR0][R0.64] ;",
        ]
    );
}
