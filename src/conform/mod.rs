//! Conform layer: the project's prediction for a word, and the diff against recorded nvdisasm
//! answers (counts, and mismatches grouped by variant, field and cause).

pub mod aliases;
pub mod archinfer;
pub mod campaign;
pub mod distilled;
pub mod explain;
pub mod finding;
pub mod forms;
pub mod hidden;
pub mod hint;
pub mod lint;
pub mod names;
pub mod patch;
pub mod resolve;
pub mod rootcause;
pub mod scan;
pub mod word_json;
pub use crate::oracle::text;

pub use finding::{Evidence, Finding};
pub use lint::lint;

use crate::arch::Arch;
use crate::codec::{Codec, Decoded, Verdict, Word};
use crate::oracle::{Answer, Entry};
use crate::reading::legality::{Legality, text_mnemonic};
use crate::reading::model::Model;
use crate::render::Renderer;
use serde::Serialize;
use std::collections::BTreeMap;

/// What the project says nvdisasm will do with a word.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Prediction {
    /// 32 hex digits.
    pub word: String,
    /// Arch, `SM100`.
    pub arch: Arch,
    /// Key of the matching variant (the first, when ambiguous), or null.
    pub key: Option<String>,
    /// Predicted nvdisasm text, or null where the project predicts nvdisasm rejects the word
    /// (no variant's fixed bits match).
    pub text: Option<String>,
    /// The table-based verdict.
    pub verdict: Verdict,
    /// What the learned reading says nvdisasm does with the word (null when no variant
    /// matches).
    pub legality: Option<Legality>,
}

/// Predicts nvdisasm's answer for `word` on `arch` from the tables and, when given, the
/// learned reading (legality).
pub fn predict(
    codec: &Codec,
    r: &Renderer,
    model: Option<&Model>,
    arch: Arch,
    word: Word,
) -> Prediction {
    let (key, text, verdict, l) = match codec.decode(arch, word).map(|d| choose(codec, model, d)) {
        Some(d) => {
            let l = legality(codec, model, &d);
            let verdict = verdict(codec, model, &d);
            (
                Some(codec.variant(d.id).key.clone()),
                l.text(|| r.render(codec, &d)),
                verdict,
                Some(l),
            )
        }
        None => (None, None, codec.check(arch, word), None),
    };
    Prediction {
        word: word.to_string(),
        arch,
        key,
        text,
        verdict,
        legality: l,
    }
}

/// The table verdict of a decoded word ([`Codec::verdict_of`]), except that a word several
/// variants match is `valid` for the one the learned reading picks ([`choose`]: its
/// preference), when there is a learned reading.
pub fn verdict(codec: &Codec, model: Option<&Model>, d: &Decoded) -> Verdict {
    match codec.verdict_of(d) {
        Verdict::Ambiguous { .. } if model.is_some() => Verdict::Valid {
            key: codec.variant(d.id).key.clone(),
        },
        v => v,
    }
}

/// [`Verdict::name`] of [`verdict`], without building the verdict (no allocation).
pub fn verdict_name(codec: &Codec, model: Option<&Model>, d: &Decoded) -> &'static str {
    match codec.verdict_name_of(d) {
        "ambiguous" if model.is_some() => "valid",
        name => name,
    }
}

/// The variant the learned reading picks among those matching (the decoded one without it).
pub fn choose(
    codec: &Codec,
    model: Option<&Model>,
    d: crate::codec::Decoded,
) -> crate::codec::Decoded {
    match model {
        Some(m) => m.choose(codec, d),
        None => d,
    }
}

/// Legality of a decoded word: the learned reading's when there is one, else the resolved
/// tables' rejected values (an undefined "rejected value").
pub fn legality(codec: &Codec, model: Option<&Model>, d: &crate::codec::Decoded) -> Legality {
    match model {
        Some(m) => m.legality(codec, d),
        None if rejected(codec, d) => Legality::Unrecognized {
            reason: "rejected value".into(),
        },
        None => Legality::Legal,
    }
}

/// Whether a decoded word holds a field value nvdisasm is known to reject (resolved
/// readings' `rejected` values).
pub fn rejected(codec: &Codec, d: &crate::codec::Decoded) -> bool {
    let v = codec.variant(d.id);
    v.fields
        .iter()
        .zip(d.values())
        .any(|(f, val)| f.rejected.contains(val))
}

/// Counts of a diff. Every entry lands in exactly one of the six outcome counters.
/// (Read back from a report's JSON, where a missing counter is 0.)
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct DiffCounts {
    /// Entries compared.
    pub total: usize,
    /// nvdisasm legal, same text.
    pub matched: usize,
    /// nvdisasm illegal, and no variant of ours matches either.
    pub agree_illegal: usize,
    /// nvdisasm legal, we decode, texts differ.
    pub text_mismatch: usize,
    /// nvdisasm illegal, but a variant matches.
    pub oracle_illegal_we_decode: usize,
    /// nvdisasm legal, we reject (a tabled opcode, but fixed bits differ from every variant).
    pub we_reject_oracle_decodes: usize,
    /// nvdisasm legal, and no table of the arch knows the opcode (not implemented; left out
    /// of the agreement figures).
    pub no_variant: usize,
}

impl DiffCounts {
    /// Share of nvdisasm-legal entries whose text we reproduce exactly (0..=1; 1 when there
    /// is none). Words of opcodes no table covers (`no_variant`) are left out: not
    /// implemented, not wrong.
    pub fn legal_agreement(&self) -> f64 {
        self.legal_share().unwrap_or(1.0)
    }
    /// Share of entries where we and nvdisasm agree on legal vs illegal (0..=1; 1 when there
    /// is none), leaving out `no_variant` words.
    pub fn verdict_agreement(&self) -> f64 {
        self.verdict_share().unwrap_or(1.0)
    }
    /// [`DiffCounts::legal_agreement`], `None` when no entry counts.
    pub fn legal_share(&self) -> Option<f64> {
        let legal = self.matched + self.text_mismatch + self.we_reject_oracle_decodes;
        share(self.matched, legal)
    }
    /// [`DiffCounts::verdict_agreement`], `None` when no entry counts.
    pub fn verdict_share(&self) -> Option<f64> {
        share(
            self.matched + self.text_mismatch + self.agree_illegal,
            self.total - self.no_variant,
        )
    }
    /// Entries that disagree with nvdisasm (every outcome but match and agree-illegal).
    pub fn mismatched(&self) -> usize {
        self.total - self.matched - self.agree_illegal
    }
    /// The counts added since `before` (an earlier copy of these).
    pub fn since(&self, before: &DiffCounts) -> DiffCounts {
        DiffCounts {
            total: self.total - before.total,
            matched: self.matched - before.matched,
            agree_illegal: self.agree_illegal - before.agree_illegal,
            text_mismatch: self.text_mismatch - before.text_mismatch,
            oracle_illegal_we_decode: self.oracle_illegal_we_decode
                - before.oracle_illegal_we_decode,
            we_reject_oracle_decodes: self.we_reject_oracle_decodes
                - before.we_reject_oracle_decodes,
            no_variant: self.no_variant - before.no_variant,
        }
    }
    /// Adds another diff's counts to these.
    pub fn add(&mut self, c: &DiffCounts) {
        self.total += c.total;
        self.matched += c.matched;
        self.agree_illegal += c.agree_illegal;
        self.text_mismatch += c.text_mismatch;
        self.oracle_illegal_we_decode += c.oracle_illegal_we_decode;
        self.we_reject_oracle_decodes += c.we_reject_oracle_decodes;
        self.no_variant += c.no_variant;
    }
}

fn share(a: usize, b: usize) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}

/// One disagreement with nvdisasm.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mismatch {
    /// 32 hex digits.
    pub word: String,
    /// Arch.
    pub arch: Arch,
    /// nvdisasm's text, or its error reason for an illegal word.
    pub nvdisasm: String,
    /// Our text, or null where we reject.
    pub ours: Option<String>,
    /// `similar` word diff, ours -> nvdisasm: `[-ours-]{+nvdisasm+}`.
    pub diff: String,
}

/// Mismatches sharing (variant key, field, cause), with the smallest example.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MismatchGroup {
    /// Variant key (the nearest variant's when we reject; `-` when there is none).
    pub key: String,
    /// Field the difference starts in: `guard`, `modifiers`, `operand N`, or `-`.
    pub field: String,
    /// `text`, `oracle-illegal`, `we-reject`, `no-variant`.
    pub cause: String,
    /// Entries in the group.
    pub count: usize,
    /// The example closest to its variant's fixed word (fewest bits changed), then lowest.
    pub example: Mismatch,
}

/// Result of [`diff`].
#[derive(Debug, Clone, Serialize)]
pub struct DiffResult {
    /// Outcome counts.
    pub counts: DiffCounts,
    /// Mismatch groups sorted by count (descending), then key, field, cause.
    pub groups: Vec<MismatchGroup>,
    /// Counts per figure (`check SM80 LD`: the check split, never learned from; `ptxas SM80`:
    /// the compiler's words, never learned from; `learned`), when the caller keeps them.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub figures: BTreeMap<String, DiffCounts>,
}

/// Compares the project's predictions with every recorded entry (see [`Differ`]).
pub fn diff(codec: &Codec, r: &Renderer, entries: &[Entry]) -> DiffResult {
    diff_with(codec, r, None, entries)
}

/// [`diff`] with the learned reading (variant choice, legality) when given.
pub fn diff_with(
    codec: &Codec,
    r: &Renderer,
    model: Option<&Model>,
    entries: &[Entry],
) -> DiffResult {
    let mut d = Differ::new(codec, r).with_model(model);
    for e in entries {
        d.add(e);
    }
    d.finish()
}

/// Mismatch groups keyed by (variant key, field, cause): (count, closeness, example).
type Groups = BTreeMap<(String, String, String), (usize, u32, Mismatch)>;

/// What comparing one entry found ([`Comparer::compare`]), for [`Differ::record`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// nvdisasm's text is ours, character for character.
    Matched,
    /// nvdisasm and we both call the word illegal.
    AgreeIllegal,
    /// A disagreement, or a word of another instruction (`no-variant`).
    Differs(Box<Difference>),
}

/// One entry's disagreement: its group and its evidence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// The group: (variant key, field, cause) as in [`MismatchGroup`].
    pub key: String,
    /// See [`MismatchGroup::field`].
    pub field: String,
    /// See [`MismatchGroup::cause`].
    pub cause: &'static str,
    /// Bits of the word away from its variant's fixed word (smaller: a better example).
    pub closeness: u32,
    /// The word, both texts and their diff.
    pub mismatch: Mismatch,
}

impl Outcome {
    /// The disagreement, unless the word agrees or is another instruction's (`no-variant`:
    /// not implemented, not wrong).
    pub fn disagreement(&self) -> Option<&Difference> {
        match self {
            Outcome::Differs(d) if d.cause != "no-variant" => Some(d),
            _ => None,
        }
    }
}

/// Our reading of words (tables, renderer, learned model) compared with nvdisasm's answers,
/// one entry at a time, sharing nothing mutable: `Copy` and `Sync`, so it runs on the worker
/// threads of [`crate::oracle::Nvdisasm::disassemble_stream_judged`].
#[derive(Clone, Copy)]
pub struct Comparer<'a> {
    codec: &'a Codec,
    r: &'a Renderer,
    model: Option<&'a Model>,
}

impl<'a> Comparer<'a> {
    /// Our reading over `codec`'s tables, rendered by `r`, with the learned reading's
    /// legality and variant choice when `model` is given.
    pub fn new(codec: &'a Codec, r: &'a Renderer, model: Option<&'a Model>) -> Comparer<'a> {
        Comparer { codec, r, model }
    }

    /// Compares the answer for `word` of `arch` with our decoding of it: legality from the
    /// learned model when given (else the resolved tables' rejected values), text from the
    /// renderer.
    pub fn compare(&self, arch: Arch, word: u128, answer: &Answer) -> Outcome {
        let w = Word(word);
        let raw = self
            .codec
            .decode(arch, w)
            .map(|d| choose(self.codec, self.model, d));
        let legality = raw.map(|d| legality(self.codec, self.model, &d));
        let render = |d: &Decoded| {
            let mut text = String::with_capacity(96);
            self.r.render_into(self.codec, d, &mut text);
            text
        };
        let (cause, key, field, ours, closeness) = match (answer, raw, legality) {
            (Answer::Text(t), Some(d), Some(Legality::Legal)) => {
                let text = render(&d);
                if *t == text {
                    return Outcome::Matched;
                }
                let v = self.codec.variant(d.id);
                (
                    "text",
                    v.key.clone(),
                    first_difference(&text, t),
                    Some(text),
                    ((word ^ v.fixed_value) & !v.fixed_mask).count_ones(),
                )
            }
            // A word nvdisasm prints as nothing: ours is nothing too.
            (Answer::Text(t), Some(d), Some(Legality::Silent)) => {
                if t.is_empty() {
                    return Outcome::Matched;
                }
                let v = self.codec.variant(d.id);
                (
                    "text",
                    v.key.clone(),
                    "silent".into(),
                    Some(String::new()),
                    ((word ^ v.fixed_value) & !v.fixed_mask).count_ones(),
                )
            }
            // Another instruction's word, and nvdisasm prints that instruction: not claimed.
            (Answer::Text(t), Some(d), Some(Legality::OtherMnemonic { mnemonic }))
                if text_mnemonic(t) == mnemonic =>
            {
                let v = self.codec.variant(d.id);
                (
                    "no-variant",
                    v.key.clone(),
                    "other mnemonic".into(),
                    None,
                    0,
                )
            }
            (Answer::Text(_), Some(d), Some(Legality::OtherMnemonic { mnemonic })) => {
                let v = self.codec.variant(d.id);
                (
                    "text",
                    v.key.clone(),
                    "mnemonic".into(),
                    Some(format!("({mnemonic})")),
                    ((word ^ v.fixed_value) & !v.fixed_mask).count_ones(),
                )
            }
            (Answer::Illegal(_), Some(d), Some(l)) if l.is_legal() => {
                let v = self.codec.variant(d.id);
                (
                    "oracle-illegal",
                    v.key.clone(),
                    "-".to_string(),
                    Some(render(&d)),
                    (word ^ v.fixed_value).count_ones(),
                )
            }
            (Answer::Illegal(_), _, _) => return Outcome::AgreeIllegal,
            (Answer::Text(_), Some(d), Some(l)) => {
                let v = self.codec.variant(d.id);
                let why = match l {
                    Legality::Undefined { table, .. } => format!("undefined in {table}"),
                    Legality::Unrecognized { .. } => "unrecognized".into(),
                    _ => "rejected value".into(),
                };
                ("we-reject", v.key.clone(), why, None, 0)
            }
            (Answer::Text(t), _, _) => match self.codec.check(arch, w) {
                // nvdisasm names another instruction: a word of an un-tabled mnemonic whose
                // opcode bits only look like the table's.
                Verdict::ReservedBit { key, .. } if other_mnemonic(self.codec, arch, &key, t) => {
                    ("no-variant", key, "other mnemonic".into(), None, 0)
                }
                Verdict::ReservedBit { key, bits } => {
                    let field = format!("fixed bits {bits:?}");
                    ("we-reject", key, field, None, bits.len() as u32)
                }
                _ => ("no-variant", "-".into(), "-".into(), None, 0),
            },
        };
        let mismatch = Mismatch {
            word: w.to_string(),
            arch,
            nvdisasm: answer.text().to_string(),
            diff: inline_diff(ours.as_deref().unwrap_or(""), answer.text()),
            ours,
        };
        Outcome::Differs(Box::new(Difference {
            key,
            field,
            cause,
            closeness,
            mismatch,
        }))
    }
}

/// A diff fed one entry at a time, so a recording of any size is compared in flat memory:
/// it keeps the counts and one example per mismatch group, never the entries.
pub struct Differ<'a> {
    cmp: Comparer<'a>,
    counts: DiffCounts,
    groups: Groups,
}

impl<'a> Differ<'a> {
    /// An empty diff over `codec`'s tables, rendered by `r`.
    pub fn new(codec: &'a Codec, r: &'a Renderer) -> Differ<'a> {
        Differ {
            cmp: Comparer::new(codec, r, None),
            counts: DiffCounts::default(),
            groups: Groups::new(),
        }
    }

    /// Uses a learned reading for legality (recognition, constraint tables) instead of the
    /// resolved tables' rejected values.
    pub fn with_model(mut self, model: Option<&'a Model>) -> Differ<'a> {
        self.cmp.model = model;
        self
    }

    /// The comparison this diff makes, to run elsewhere (worker threads) and
    /// [`Differ::record`] here.
    pub fn comparer(&self) -> Comparer<'a> {
        self.cmp
    }

    /// The counts so far.
    pub fn counts(&self) -> &DiffCounts {
        &self.counts
    }

    /// Compares one recorded answer with our decoding of its word, counts it
    /// ([`Differ::record`]) and returns the outcome (its disagreement, if any, for a caller
    /// that lists every word: `diff --words`).
    pub fn add(&mut self, e: &Entry) -> Outcome {
        let o = self.cmp.compare(e.arch, e.word, &e.answer);
        self.record(&o);
        o
    }

    /// Counts one comparison's outcome (from this diff's [`Differ::comparer`]); a
    /// disagreement joins its group, whose example is the closest word to its variant's
    /// fixed word, then the lowest.
    pub fn record(&mut self, o: &Outcome) {
        self.counts.total += 1;
        let d = match o {
            Outcome::Matched => return self.counts.matched += 1,
            Outcome::AgreeIllegal => return self.counts.agree_illegal += 1,
            Outcome::Differs(d) => d,
        };
        *match d.cause {
            "text" => &mut self.counts.text_mismatch,
            "no-variant" => &mut self.counts.no_variant,
            "oracle-illegal" => &mut self.counts.oracle_illegal_we_decode,
            _ => &mut self.counts.we_reject_oracle_decodes,
        } += 1;
        let g = self
            .groups
            .entry((d.key.clone(), d.field.clone(), d.cause.to_string()))
            .or_insert((0, u32::MAX, d.mismatch.clone()));
        g.0 += 1;
        if d.closeness < g.1 || (d.closeness == g.1 && d.mismatch.word < g.2.word) {
            g.1 = d.closeness;
            g.2 = d.mismatch.clone();
        }
    }

    /// The counts and the mismatch groups, sorted by count (descending), then key.
    pub fn finish(self) -> DiffResult {
        let mut groups: Vec<MismatchGroup> = self
            .groups
            .into_iter()
            .map(|((key, field, cause), (count, _, example))| MismatchGroup {
                key,
                field,
                cause,
                count,
                example,
            })
            .collect();
        groups.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.key.cmp(&b.key)));
        DiffResult {
            counts: self.counts,
            groups,
            figures: BTreeMap::new(),
        }
    }
}

/// Whether nvdisasm's text `t` names another mnemonic than the variant `key` of `arch`.
fn other_mnemonic(codec: &Codec, arch: Arch, key: &str, t: &str) -> bool {
    let Some(id) = codec.find_key(key, Some(arch)) else {
        return false;
    };
    let ours = codec.variant(id).title.split('.').next().unwrap_or("");
    text::Line::parse(t).is_some_and(|l| l.mnemonic != ours)
}

/// Where two instruction texts first differ: `guard`, `modifiers`, `operand N` (0-based
/// written operand), or `operand-count`.
pub fn first_difference(ours: &str, theirs: &str) -> String {
    let (ga, ma, oa) = split_text(ours);
    let (gb, mb, ob) = split_text(theirs);
    if ga != gb {
        return "guard".into();
    }
    if ma != mb {
        return "modifiers".into();
    }
    match oa.iter().zip(&ob).position(|(a, b)| a != b) {
        Some(i) => format!("operand {i}"),
        None => "operand-count".into(),
    }
}

/// (guard, mnemonic with modifiers, operands) of a normalised nvdisasm line.
fn split_text(t: &str) -> (&str, &str, Vec<&str>) {
    let t = t.trim().trim_end_matches(';').trim();
    let (guard, rest) = match t.strip_prefix('@') {
        Some(r) => {
            let (g, rest) = r.split_once(' ').unwrap_or((r, ""));
            (g, rest)
        }
        None => ("", t),
    };
    let (mnem, ops) = rest.split_once(' ').unwrap_or((rest, ""));
    let ops = ops
        .split(", ")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    (guard, mnem, ops)
}

/// Word-level diff `[-removed-]{+added+}` from `ours` to `theirs` (the `similar` crate); a run
/// of removed or added words, spaces included, is one bracket (`{+@P0 FCHK P0, RZ, R0 ;+}`
/// where we print nothing, not one bracket per word and space).
pub fn inline_diff(ours: &str, theirs: &str) -> String {
    use similar::{ChangeTag, TextDiff};
    let d = TextDiff::from_words(ours, theirs);
    let mut runs: Vec<(ChangeTag, String)> = Vec::new();
    for c in d.iter_all_changes() {
        match runs.last_mut() {
            Some((tag, text)) if *tag == c.tag() => text.push_str(c.value()),
            _ => runs.push((c.tag(), c.value().to_string())),
        }
    }
    let mut out = String::new();
    for (tag, text) in runs {
        let (open, close) = match tag {
            ChangeTag::Equal => ("", ""),
            ChangeTag::Delete => ("[-", "-]"),
            ChangeTag::Insert => ("{+", "+}"),
        };
        out.push_str(open);
        out.push_str(&text);
        out.push_str(close);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_names_match_the_verdicts() {
        let tables = crate::spec::bundled_tables().unwrap();
        let written = Codec::new(tables.clone()).unwrap();
        let set = crate::reading::resolved::ResolvedSet::from_slice(
            crate::locate::BUNDLED_RESOLVED,
            std::path::Path::new("resolved/tables.json"),
            &tables,
        )
        .unwrap();
        let resolved = Codec::new(set.tables).unwrap();
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut seen = std::collections::BTreeSet::new();
        for (codec, model) in [(&written, None), (&resolved, Some(&set.model))] {
            for id in codec.ids() {
                let v = codec.variant(id);
                let arch = codec.table(id).arch.unwrap();
                for _ in 0..200 {
                    let r = (next() as u128) << 64 | next() as u128;
                    let w = Word(v.fixed_value | (r & !v.fixed_mask));
                    let Some(d) = codec.decode(arch, w) else {
                        continue;
                    };
                    let d = choose(codec, model, d);
                    let name = verdict_name(codec, model, &d);
                    assert_eq!(name, verdict(codec, model, &d).name(), "{w}");
                    assert_eq!(codec.verdict_name_of(&d), codec.verdict_of(&d).name());
                    seen.insert(name);
                }
            }
        }
        // Every kind a decoded word can get is met.
        assert_eq!(seen.len(), 4, "{seen:?}");
    }

    #[test]
    fn differences_are_located() {
        let a = "@P0 TLD.LZ.EF P0, R0, R0 ;";
        assert_eq!(first_difference(a, "@P1 TLD.LZ.EF P0, R0, R0 ;"), "guard");
        assert_eq!(first_difference(a, "@P0 TLD.LZ P0, R0, R0 ;"), "modifiers");
        assert_eq!(
            first_difference(a, "@P0 TLD.LZ.EF P0, R0, RZ ;"),
            "operand 2"
        );
        assert_eq!(
            first_difference(a, "@P0 TLD.LZ.EF P0, R0 ;"),
            "operand-count"
        );
    }

    #[test]
    fn inline_diff_marks_words() {
        assert_eq!(
            inline_diff("TLD.LZ P0, R1 ;", "TLD.LZ P0, RZ ;"),
            "TLD.LZ P0, [-R1-]{+RZ+} ;"
        );
        // Nothing printed on our side: one bracket, not one per word and space.
        assert_eq!(
            inline_diff("", "@P0 FCHK P0, RZ, R0 ;"),
            "{+@P0 FCHK P0, RZ, R0 ;+}"
        );
        assert_eq!(
            inline_diff("@P0 AST a[UR0], R0, R255 ;", "@P0 AST a[UR0], R0 ;"),
            "@P0 AST a[UR0], [-R0, R255-]{+R0+} ;"
        );
    }
}
