//! Conform layer: the project's prediction for a word, and the diff against recorded nvdisasm
//! answers (counts, and mismatches grouped by variant, field and cause).

pub mod archinfer;
pub mod finding;
pub mod lint;
pub mod resolve;
pub mod resolved;
pub mod scan;
pub mod text;

pub use finding::{Evidence, Finding};
pub use lint::lint;

use crate::arch::Arch;
use crate::codec::{Codec, Verdict, Word};
use crate::oracle::{Answer, Entry};
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
}

/// Predicts nvdisasm's answer for `word` on `arch` from the tables.
pub fn predict(codec: &Codec, r: &Renderer, arch: Arch, word: Word) -> Prediction {
    let (key, text, verdict) = match codec.decode(arch, word) {
        Some(d) => (
            Some(codec.variant(d.id).key.clone()),
            (!rejected(codec, &d)).then(|| r.render(codec, &d)),
            codec.verdict_of(&d),
        ),
        None => (None, None, codec.check(arch, word)),
    };
    Prediction {
        word: word.to_string(),
        arch,
        key,
        text,
        verdict,
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
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
    /// Share of nvdisasm-legal entries whose text we reproduce exactly (0..=1). Words of
    /// opcodes no table covers (`no_variant`) are left out: not implemented, not wrong.
    pub fn legal_agreement(&self) -> f64 {
        let legal = self.matched + self.text_mismatch + self.we_reject_oracle_decodes;
        ratio(self.matched, legal)
    }
    /// Share of entries where we and nvdisasm agree on legal vs illegal (0..=1), leaving out
    /// `no_variant` words.
    pub fn verdict_agreement(&self) -> f64 {
        ratio(
            self.matched + self.text_mismatch + self.agree_illegal,
            self.total - self.no_variant,
        )
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 1.0 } else { a as f64 / b as f64 }
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
}

/// Compares the project's predictions with every recorded entry.
pub fn diff(codec: &Codec, r: &Renderer, entries: &[Entry]) -> DiffResult {
    let mut counts = DiffCounts::default();
    let mut groups: BTreeMap<(String, String, String), (usize, u32, Mismatch)> = BTreeMap::new();
    let mut text = String::with_capacity(96);
    for e in entries {
        counts.total += 1;
        let word = Word(e.word);
        let raw = codec.decode(e.arch, word);
        let decoded = raw.filter(|d| !rejected(codec, d));
        let (cause, key, field, ours, closeness) = match (&e.answer, decoded) {
            (Answer::Text(t), Some(d)) => {
                text.clear();
                r.render_into(codec, &d, &mut text);
                if *t == text {
                    counts.matched += 1;
                    continue;
                }
                counts.text_mismatch += 1;
                let v = codec.variant(d.id);
                (
                    "text",
                    v.key.clone(),
                    first_difference(&text, t),
                    Some(text.clone()),
                    ((e.word ^ v.fixed_value) & !v.fixed_mask).count_ones(),
                )
            }
            (Answer::Illegal(_), Some(d)) => {
                counts.oracle_illegal_we_decode += 1;
                let v = codec.variant(d.id);
                text.clear();
                r.render_into(codec, &d, &mut text);
                (
                    "oracle-illegal",
                    v.key.clone(),
                    "-".to_string(),
                    Some(text.clone()),
                    (e.word ^ v.fixed_value).count_ones(),
                )
            }
            (Answer::Illegal(_), None) => {
                counts.agree_illegal += 1;
                continue;
            }
            (Answer::Text(_), None) if raw.is_some() => {
                counts.we_reject_oracle_decodes += 1;
                let v = codec.variant(raw.expect("checked").id);
                ("we-reject", v.key.clone(), "rejected value".into(), None, 0)
            }
            (Answer::Text(t), None) => match codec.check(e.arch, word) {
                // nvdisasm names another instruction: a word of an un-tabled mnemonic whose
                // opcode bits only look like the table's.
                Verdict::ReservedBit { key, .. } if other_mnemonic(codec, e.arch, &key, t) => {
                    counts.no_variant += 1;
                    ("no-variant", key, "other mnemonic".into(), None, 0)
                }
                Verdict::ReservedBit { key, bits } => {
                    counts.we_reject_oracle_decodes += 1;
                    let field = format!("fixed bits {bits:?}");
                    ("we-reject", key, field, None, bits.len() as u32)
                }
                _ => {
                    counts.no_variant += 1;
                    ("no-variant", "-".into(), "-".into(), None, 0)
                }
            },
        };
        let m = Mismatch {
            word: word.to_string(),
            arch: e.arch,
            nvdisasm: e.answer.text().to_string(),
            diff: inline_diff(ours.as_deref().unwrap_or(""), e.answer.text()),
            ours,
        };
        let g = groups
            .entry((key, field, cause.to_string()))
            .or_insert((0, u32::MAX, m.clone()));
        g.0 += 1;
        if closeness < g.1 || (closeness == g.1 && m.word < g.2.word) {
            g.1 = closeness;
            g.2 = m;
        }
    }
    let mut groups: Vec<MismatchGroup> = groups
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
    DiffResult { counts, groups }
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

/// Word-level diff `[-removed-]{+added+}` from `ours` to `theirs` (the `similar` crate).
pub fn inline_diff(ours: &str, theirs: &str) -> String {
    use similar::{ChangeTag, TextDiff};
    let d = TextDiff::from_words(ours, theirs);
    let mut out = String::new();
    for c in d.iter_all_changes() {
        match c.tag() {
            ChangeTag::Equal => out.push_str(c.value()),
            ChangeTag::Delete => {
                out.push_str("[-");
                out.push_str(c.value());
                out.push_str("-]");
            }
            ChangeTag::Insert => {
                out.push_str("{+");
                out.push_str(c.value());
                out.push_str("+}");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
