//! The differential campaign (issue 13): words generated from the tables (every variant,
//! random field values biased to each field's value classes, random scheduling/reuse and
//! undescribed bits), words from the fuzz corpora and mutations of words that disagreed,
//! predicted with the learned reading, asked of nvdisasm, diffed; each disagreement is
//! minimised and grouped by root cause (table, variant, field, kind), mishegos-style.
//!
//! The oracle is anything implementing [`Ask`]: live nvdisasm in a campaign, recorded answers
//! ([`crate::oracle::ask::Recorded`]) in tests. Recording the words (`campaign --record`) goes
//! through [`crate::oracle::OracleWriter`]; the files are `campaign/<ARCH>-<seed>.tsv` (or
//! `campaign/<ARCH>-<MNEMONIC>-<seed>.tsv` for one table), one per shard, so shards made on
//! several machines never write the same file; [`merge_shards`] joins them and refuses
//! conflicting answers.

use super::{Comparer, Mismatch, Outcome};
use crate::arch::Arch;
use crate::codec::{Codec, SplitMix64, VariantId, Word, field_group};
use crate::oracle::ask::Ask;
use crate::oracle::{Answer, Entry, OracleError};
use crate::reading::model::Model;
use crate::render::Renderer;
use crate::spec::bits_mask;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// Folder under the oracle root that holds campaign recordings.
pub const CAMPAIGN_DIR: &str = "campaign";

/// Errors of the campaign.
#[derive(Debug, thiserror::Error)]
pub enum CampaignError {
    /// Asking the oracle failed.
    #[error(transparent)]
    Oracle(#[from] OracleError),
    /// Two shards recorded different answers for one word.
    #[error("{arch} word {word}: shards disagree: {a:?} in {file_a}, {b:?} in {file_b}")]
    Conflict {
        /// Arch of the word.
        arch: Arch,
        /// The word, 32 hex digits.
        word: String,
        /// One answer.
        a: String,
        /// Its file.
        file_a: String,
        /// The other answer.
        b: String,
        /// Its file.
        file_b: String,
    },
    /// No table matches the selection.
    #[error("no table matches {0}")]
    NoTable(String),
}

/// Path of a shard's recording relative to the oracle root: `campaign/SM90-7.tsv`, or
/// `campaign/SM90-TLD4-7.tsv` when the shard ran one table.
pub fn shard_file(arch: Arch, table: Option<&str>, seed: u64) -> String {
    match table {
        Some(t) => format!("{CAMPAIGN_DIR}/{arch}-{t}-{seed}.tsv"),
        None => format!("{CAMPAIGN_DIR}/{arch}-{seed}.tsv"),
    }
}

/// What a disagreement is: the root cause key of mishegos-style grouping.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Cause {
    /// `SM100 TLD`.
    pub table: String,
    /// Variant key (the nearest variant's when we reject).
    pub key: String,
    /// Where it shows: `guard`, `modifiers`, `operand N`, `fixed bits [..]`, `-`.
    pub field: String,
    /// `text`, `oracle-illegal`, `we-reject`.
    pub kind: String,
}

/// One word that disagrees, with its cause.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Disagreement {
    /// The root cause.
    pub cause: Cause,
    /// The word, answers and diff.
    pub mismatch: Mismatch,
}

/// The disagreement a comparison found in `table` (`SM100 TLD`): `None` when our reading
/// and nvdisasm agree, or the word is another instruction's (`no-variant`: not implemented,
/// not wrong).
pub fn disagreement(table: &str, o: &Outcome) -> Option<Disagreement> {
    let d = o.disagreement()?;
    Some(Disagreement {
        cause: Cause {
            table: table.to_string(),
            key: d.key.clone(),
            field: d.field.clone(),
            kind: d.cause.to_string(),
        },
        mismatch: d.mismatch.clone(),
    })
}

/// The word generator of one table (module notes). Deterministic in its seed and the order
/// of [`Generator::push_mismatch`] calls.
pub struct Generator<'a> {
    codec: &'a Codec,
    ids: Vec<VariantId>,
    rng: SplitMix64,
    corpus: Vec<u128>,
    corpus_pos: usize,
    mismatches: Vec<u128>,
}

/// Where a generated word comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// Drawn from the tables ([`Generator::table_word`]): the unbiased sample the agreement
    /// figure is measured on.
    Table,
    /// A fuzz corpus word, or its mutation.
    Corpus,
    /// A mutation of a disagreeing word (biased towards disagreement by design).
    Mutation,
}

/// Mismatching words kept for mutation (the newest replace random older ones past this).
pub const MUTATION_POOL: usize = 4096;

impl<'a> Generator<'a> {
    /// A generator over the variants `ids` of `codec` (the view the prediction uses), with
    /// `corpus` words of the same table, seeded by `seed`.
    pub fn new(codec: &'a Codec, ids: Vec<VariantId>, corpus: Vec<u128>, seed: u64) -> Self {
        Generator {
            codec,
            ids,
            rng: SplitMix64(seed ^ 0xca4a_1900_0000_0013),
            corpus,
            corpus_pos: 0,
            mismatches: Vec::new(),
        }
    }

    /// Keeps a disagreeing word for mutation.
    pub fn push_mismatch(&mut self, w: u128) {
        if self.mismatches.len() < MUTATION_POOL {
            self.mismatches.push(w);
        } else {
            let i = (self.rng.next_u64() % MUTATION_POOL as u64) as usize;
            self.mismatches[i] = w;
        }
    }

    fn below(&mut self, n: usize) -> usize {
        (self.rng.next_u64() % n.max(1) as u64) as usize
    }

    /// The next word: 10% corpus words (each once as it is, then mutated), 15% mutations of
    /// disagreeing words (when there are any), the rest table-aware.
    pub fn next_word(&mut self) -> (u128, Source) {
        let roll = self.rng.next_u64() % 100;
        if roll < 10 && !self.corpus.is_empty() {
            let i = self.corpus_pos % self.corpus.len();
            let w = self.corpus[i];
            self.corpus_pos += 1;
            return if self.corpus_pos <= self.corpus.len() {
                (w, Source::Corpus)
            } else {
                (self.mutate(w), Source::Corpus)
            };
        }
        if roll < 25 && !self.mismatches.is_empty() {
            let i = self.below(self.mismatches.len());
            return (self.mutate(self.mismatches[i]), Source::Mutation);
        }
        (self.table_word(), Source::Table)
    }

    /// A word of a random variant: its fixed bits kept, every other bit random, then each
    /// field with probability 1/2 set to a value picked by class (0, 1, all ones, top bit, a
    /// modifier table row).
    pub fn table_word(&mut self) -> u128 {
        if self.ids.is_empty() {
            return 0;
        }
        let i = self.below(self.ids.len());
        let id = self.ids[i];
        let v = self.codec.variant(id);
        let r = ((self.rng.next_u64() as u128) << 64) | self.rng.next_u64() as u128;
        let mut w = Word((v.fixed_value & v.fixed_mask) | (r & !v.fixed_mask));
        for f in &v.fields {
            if self.rng.next_u64() & 1 == 0 {
                continue;
            }
            let max = bits_mask(f.width()) as u64;
            let value = match (field_group(v, f), self.rng.next_u64() % 5) {
                (Some(g), _) if !g.values.is_empty() => {
                    g.values[self.below(g.values.len())].value as u64
                }
                (_, 0) => 0,
                (_, 1) => 1,
                (_, 2) => max,
                (_, 3) => (max >> 1) + 1 + (self.rng.next_u64() & (max >> 1)),
                _ => self.rng.next_u64() & max,
            };
            let _ = w.set_field(f, value & max);
        }
        (w.0 & !v.fixed_mask) | (v.fixed_value & v.fixed_mask)
    }

    /// `w` with 1 to 3 bits flipped, or one field set to a random value, keeping the fixed
    /// bits of the variant it decodes as (any bit when none).
    pub fn mutate(&mut self, w: u128) -> u128 {
        let fixed = self
            .ids
            .iter()
            .map(|&id| self.codec.variant(id))
            .find(|v| w & v.fixed_mask == v.fixed_value & v.fixed_mask)
            .map_or(0, |v| v.fixed_mask);
        let free = !fixed;
        if free == 0 {
            return w;
        }
        let bits: Vec<u32> = (0..128).filter(|b| free >> b & 1 == 1).collect();
        let mut out = w;
        for _ in 0..1 + self.below(3) {
            out ^= 1u128 << bits[self.below(bits.len())];
        }
        out
    }
}

/// Outcome counts of one table's campaign (the words are fresh: never learned from).
#[derive(Debug, Clone, Default, Serialize)]
pub struct TableResult {
    /// `SM100 TLD`.
    pub table: String,
    /// The counts (see [`super::DiffCounts`]).
    pub counts: super::DiffCounts,
    /// Seconds spent.
    pub seconds: f64,
}

/// A root cause: its disagreements counted, with the first example and its minimised form.
#[derive(Debug, Clone, Serialize)]
pub struct RootCause {
    /// The cause.
    pub cause: Cause,
    /// Disagreeing words with this cause.
    pub count: usize,
    /// The first word seen with this cause.
    pub example: Mismatch,
    /// The smallest word found that disagrees the same way (null before minimising).
    pub minimal: Option<Mismatch>,
    /// nvdisasm asked this many words while minimising.
    pub minimise_asked: usize,
}

/// Root causes keyed by cause, in cause order.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Causes {
    /// By cause.
    pub by_cause: BTreeMap<Cause, RootCause>,
}

impl Causes {
    /// Counts one disagreement; `true` when its cause is new.
    pub fn add(&mut self, d: Disagreement) -> bool {
        match self.by_cause.get_mut(&d.cause) {
            Some(rc) => {
                rc.count += 1;
                false
            }
            None => {
                self.by_cause.insert(
                    d.cause.clone(),
                    RootCause {
                        cause: d.cause,
                        count: 1,
                        example: d.mismatch,
                        minimal: None,
                        minimise_asked: 0,
                    },
                );
                true
            }
        }
    }

    /// Number of root causes.
    pub fn len(&self) -> usize {
        self.by_cause.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.by_cause.is_empty()
    }
}

/// What the minimiser needs to predict and ask about words of one table.
pub struct Judge<'a> {
    /// The view the prediction uses.
    pub codec: &'a Codec,
    /// Its renderer.
    pub renderer: &'a Renderer,
    /// The learned reading.
    pub model: Option<&'a Model>,
    /// Arch of the words.
    pub arch: Arch,
    /// `SM100 TLD`.
    pub table: String,
}

impl Judge<'_> {
    /// The disagreement of `word` given nvdisasm's `answer` (`None`: they agree).
    pub fn judge(&self, word: u128, answer: Answer) -> Option<Disagreement> {
        let cmp = Comparer::new(self.codec, self.renderer, self.model);
        disagreement(&self.table, &cmp.compare(self.arch, word, &answer))
    }

    /// The bits of `word` the variant it decodes as does not fix (all bits when none
    /// matches).
    fn free_bits(&self, word: u128) -> u128 {
        match self.codec.decode(self.arch, Word(word)) {
            Some(d) => !self.codec.variant(d.id).fixed_mask,
            None => !0,
        }
    }

    /// The candidates one step smaller than `word`: each field set to its default (0, or the
    /// modifier table's `(default)` row), then each set free bit cleared; only those with fewer
    /// free bits set.
    pub fn candidates(&self, word: u128) -> Vec<u128> {
        let free = self.free_bits(word);
        let size = (word & free).count_ones();
        let mut out = Vec::new();
        if let Some(d) = self.codec.decode(self.arch, Word(word)) {
            let v = self.codec.variant(d.id);
            for f in &v.fields {
                let default = field_group(v, f)
                    .and_then(|g| {
                        g.values
                            .iter()
                            .find(|r| r.name == crate::spec::ModifierName::Default)
                    })
                    .map_or(0, |r| r.value as u64);
                let mut w = Word(word);
                if w.set_field(f, default).is_ok() {
                    out.push((w.0 & !v.fixed_mask) | (v.fixed_value & v.fixed_mask));
                }
            }
        }
        for b in 0..128 {
            if (word & free) >> b & 1 == 1 {
                out.push(word & !(1u128 << b));
            }
        }
        out.retain(|&c| c != word && (c & free).count_ones() < size);
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// Minimises disagreeing words together: each round asks the oracle about every pending
/// word's [`Judge::candidates`] in one batch and moves each word to its candidate with the
/// fewest free bits set that still disagrees with the same [`Cause`]; a word is done when no
/// candidate does, or after `max_rounds`. Candidates the oracle cannot answer
/// ([`Ask::ask_some`]: a recorded oracle lacking them) are skipped. Returns, per input word in
/// order, the smallest disagreement found (the input's own when no step kept the cause), and
/// every answer asked (for recording).
///
/// Errors: those of the oracle.
pub fn minimise(
    judge: &Judge<'_>,
    oracle: &dyn Ask,
    start: &[Disagreement],
    max_rounds: usize,
) -> Result<(Vec<Disagreement>, Vec<Entry>), CampaignError> {
    let mut cur: Vec<Disagreement> = start.to_vec();
    let mut words: Vec<u128> = cur.iter().map(|d| parse_word(&d.mismatch.word)).collect();
    let mut pending: Vec<usize> = (0..cur.len()).collect();
    let mut asked = Vec::new();
    for _ in 0..max_rounds {
        if pending.is_empty() {
            break;
        }
        let cands: Vec<Vec<u128>> = pending
            .iter()
            .map(|&i| judge.candidates(words[i]))
            .collect();
        let mut batch: Vec<u128> = cands.iter().flatten().copied().collect();
        batch.sort_unstable();
        batch.dedup();
        if batch.is_empty() {
            break;
        }
        let answers = oracle.ask_some(judge.arch, &batch)?;
        let by_word: HashMap<u128, Answer> = batch
            .into_iter()
            .zip(answers)
            .filter_map(|(w, a)| Some((w, a?)))
            .collect();
        asked.extend(by_word.iter().map(|(&word, a)| Entry {
            arch: judge.arch,
            word,
            answer: a.clone(),
        }));
        let mut next = Vec::new();
        for (&i, cs) in pending.iter().zip(&cands) {
            let best = cs
                .iter()
                .filter_map(|&c| {
                    let a = by_word.get(&c)?.clone();
                    let d = judge.judge(c, a)?;
                    (d.cause == cur[i].cause).then(|| ((c & judge.free_bits(c)).count_ones(), c, d))
                })
                .min_by_key(|(n, c, _)| (*n, *c));
            if let Some((_, c, d)) = best {
                words[i] = c;
                cur[i] = d;
                next.push(i);
            }
        }
        pending = next;
    }
    Ok((cur, asked))
}

fn parse_word(s: &str) -> u128 {
    crate::oracle::parse_word_hex(s).unwrap_or(0)
}

/// Joins the entries of several shards' recordings (`(file name, entries)`): sorted by
/// (arch, word), one entry per word where shards agree. Errors: [`CampaignError::Conflict`]
/// naming the word and both files when two shards recorded different answers.
pub fn merge_shards(shards: &[(String, Vec<Entry>)]) -> Result<Vec<Entry>, CampaignError> {
    let mut seen: BTreeMap<(Arch, u128), (&Answer, &str)> = BTreeMap::new();
    for (file, entries) in shards {
        for e in entries {
            match seen.get(&(e.arch, e.word)) {
                Some((a, f)) if **a != e.answer => {
                    return Err(CampaignError::Conflict {
                        arch: e.arch,
                        word: crate::oracle::word_to_hex(e.word),
                        a: a.text().to_string(),
                        file_a: f.to_string(),
                        b: e.answer.text().to_string(),
                        file_b: file.clone(),
                    });
                }
                Some(_) => {}
                None => {
                    seen.insert((e.arch, e.word), (&e.answer, file));
                }
            }
        }
    }
    Ok(seen
        .into_iter()
        .map(|((arch, word), (a, _))| Entry {
            arch,
            word,
            answer: a.clone(),
        })
        .collect())
}

/// The entries a campaign may record as learnable: every entry but those whose word is in
/// the check split (`check`: (arch, word) of oracle/combos/check), which must stay never
/// learned from.
pub fn learnable_entries(
    entries: Vec<Entry>,
    check: &std::collections::HashSet<(Arch, u128)>,
) -> Vec<Entry> {
    entries
        .into_iter()
        .filter(|e| !check.contains(&(e.arch, e.word)))
        .collect()
}

/// The shell line that shows nvdisasm's answer for `word` on `arch` (raw, 16 little-endian
/// bytes): `printf '\x66\x0f...' > w.bin && nvdisasm -b SM100 w.bin`.
pub fn nvdisasm_command(arch: Arch, word: u128) -> String {
    let bytes: String = word
        .to_le_bytes()
        .iter()
        .map(|b| format!("\\x{b:02x}"))
        .collect();
    format!("printf '{bytes}' > w.bin && nvdisasm -b {arch} w.bin")
}

/// `sass-conform decode --arch SM100 WORD`.
pub fn decode_command(arch: Arch, word: &str) -> String {
    format!("sass-conform decode --arch {arch} {word}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(arch: Arch, word: u128, t: &str) -> Entry {
        Entry {
            arch,
            word,
            answer: Answer::Text(t.into()),
        }
    }

    #[test]
    fn shards_merge_without_duplicates_and_conflicts_name_the_word() {
        let a: Arch = "SM90".parse().unwrap();
        let s1 = (
            "campaign/SM90-1.tsv".to_string(),
            vec![e(a, 5, "X ;"), e(a, 1, "Y ;")],
        );
        let s2 = (
            "campaign/SM90-2.tsv".to_string(),
            vec![e(a, 5, "X ;"), e(a, 9, "Z ;")],
        );
        let m = merge_shards(&[s1.clone(), s2]).unwrap();
        assert_eq!(m.iter().map(|e| e.word).collect::<Vec<_>>(), vec![1, 5, 9]);
        let s3 = ("campaign/SM90-3.tsv".to_string(), vec![e(a, 5, "W ;")]);
        let err = merge_shards(&[s1, s3]).unwrap_err().to_string();
        assert!(
            err.contains("SM90 word 00000000000000000000000000000005")
                && err.contains("campaign/SM90-1.tsv")
                && err.contains("campaign/SM90-3.tsv"),
            "{err}"
        );
    }

    #[test]
    fn shard_files_are_learnable_and_check_words_are_kept_out() {
        use crate::reading::combos::{figure_of, is_learnable};
        let a: Arch = "SM100".parse().unwrap();
        let f = shard_file(a, Some("TLD"), 7);
        assert_eq!(f, "campaign/SM100-TLD-7.tsv");
        assert_eq!(shard_file(a, None, 7), "campaign/SM100-7.tsv");
        let p = std::path::Path::new("oracle").join(&f);
        assert!(is_learnable(&p));
        assert_eq!(figure_of(&p), "learned");
        let check: std::collections::HashSet<_> = [(a, 2u128)].into_iter().collect();
        let kept = learnable_entries(vec![e(a, 1, "A ;"), e(a, 2, "B ;")], &check);
        assert_eq!(kept.iter().map(|e| e.word).collect::<Vec<_>>(), vec![1]);
    }

    /// An "nvdisasm" that prints what we predict, except for words with bit `bit` set, whose
    /// text it garbles: the minimal disagreeing word is then the variant's fixed word plus
    /// that bit.
    struct Garbling<'a> {
        codec: &'a Codec,
        r: &'a Renderer,
        bit: u32,
    }

    impl Ask for Garbling<'_> {
        fn ask(&self, arch: Arch, words: &[u128]) -> Result<Vec<Answer>, OracleError> {
            Ok(words
                .iter()
                .map(|&w| {
                    let p = super::super::predict(self.codec, self.r, None, arch, Word(w));
                    match p.text {
                        // The guard kept, the rest garbled.
                        Some(t) if w >> self.bit & 1 == 1 => match t.split_once(' ') {
                            Some((g, _)) if g.starts_with('@') => {
                                Answer::Text(format!("{g} XX R0 ;"))
                            }
                            _ => Answer::Text("XX R0 ;".into()),
                        },
                        Some(t) => Answer::Text(t),
                        None => Answer::Illegal("Unrecognized".into()),
                    }
                })
                .collect())
        }
    }

    #[test]
    fn minimiser_reaches_the_fixed_word_plus_the_culprit_bit() {
        let codec = Codec::new(crate::spec::bundled_tables().unwrap()).unwrap();
        let r = Renderer::new(&codec);
        let id = codec.ids().next().unwrap();
        let v = codec.variant(id);
        let arch = codec.table(id).arch.unwrap();
        // A free bit inside a field: the culprit.
        let bit = (0..128u32)
            .find(|&b| v.fixed_mask >> b & 1 == 0 && v.field_mask() >> b & 1 == 1)
            .unwrap();
        let fake = Garbling {
            codec: &codec,
            r: &r,
            bit,
        };
        let mut g = Generator::new(&codec, vec![id], Vec::new(), 3);
        let start = (0..200)
            .map(|_| g.table_word() | 1u128 << bit)
            .find(|&w| {
                let a = fake.ask(arch, &[w]).unwrap().remove(0);
                a.text().contains("XX")
            })
            .unwrap();
        let table = format!("{arch} {}", codec.table(id).mnemonic);
        let judge = Judge {
            codec: &codec,
            renderer: &r,
            model: None,
            arch,
            table: table.clone(),
        };
        let d0 = judge
            .judge(start, fake.ask(arch, &[start]).unwrap().remove(0))
            .unwrap();
        assert_eq!(d0.cause.kind, "text");
        assert_eq!(d0.cause.field, "modifiers");
        let (min, asked) = minimise(&judge, &fake, std::slice::from_ref(&d0), 128).unwrap();
        assert_eq!(min[0].cause, d0.cause);
        assert_eq!(
            min[0].mismatch.word,
            Word(v.fixed_value | 1u128 << bit).to_string()
        );
        assert!(!asked.is_empty());
        let mut causes = Causes::default();
        assert!(causes.add(d0.clone()));
        assert!(!causes.add(min[0].clone()));
        assert_eq!(causes.len(), 1);
        assert_eq!(causes.by_cause[&d0.cause].count, 2);
    }

    #[test]
    fn nvdisasm_command_writes_little_endian_bytes() {
        let a: Arch = "SM100".parse().unwrap();
        let c = nvdisasm_command(a, 0x0102);
        assert!(c.starts_with("printf '\\x02\\x01\\x00"), "{c}");
        assert!(c.ends_with("nvdisasm -b SM100 w.bin"), "{c}");
    }
}
