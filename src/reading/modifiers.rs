//! Modifiers as nvdisasm prints them, learned from words with many modifiers set at once:
//! which fields are one value to nvdisasm (two table fields whose joint values print a third
//! name, as TLD's `LZ` + `LB` -> `LL`, or `MS` + `INVALID2` -> `INVALID3`), and the order the
//! modifiers print in (`TLD.LZ.EF.INVALID2`, not `TLD.LZ.INVALID2.EF`).
//!
//! Method, per variant, over nvdisasm's accepted texts of the learn words: each modifier field
//! value prints a token run (the resolved tables' names); a text whose tokens are not the
//! multiset union of its fields' runs shows fields that are not independent. The pair whose
//! merging (with joint names learned from the same texts) explains the most such texts is
//! merged, and again, while that explains at least [`MIN_EXPLAINED`] more texts. Then every text
//! whose tokens split into the fields' runs in exactly one way votes which field prints first,
//! for every pair; the print order is the order that agrees with most votes.

use crate::codec::{Codec, Word};
use crate::oracle::{Answer, Entry};
use crate::render::field_modifier_text;
use crate::spec::{Field, FieldKind, Table, Variant};
use rustc_hash::FxHashMap as HashMap;

/// Fewest texts a merge must newly explain to be made.
pub const MIN_EXPLAINED: usize = 8;

/// Widest merged field (bits): joint values are learned one by one.
pub const MAX_MERGED_BITS: u32 = 8;

/// A modifier token by its number in the variant's [`Vocab`].
type Tok = u32;

/// The modifier tokens of one variant (its texts', its title's, its fields' names), numbered
/// in text order: runs of numbers compare as the runs of texts do.
struct Vocab {
    names: Vec<String>,
}

impl Vocab {
    fn new<'s>(texts: impl Iterator<Item = &'s String>) -> Self {
        let set: std::collections::BTreeSet<&String> = texts.collect();
        Vocab {
            names: set.into_iter().cloned().collect(),
        }
    }
    /// The numbers of a run of tokens, every one of which the vocabulary holds.
    fn run(&self, r: &[String]) -> Vec<Tok> {
        r.iter()
            .map(|t| self.names.binary_search(t).expect("a known token") as Tok)
            .collect()
    }
    fn text(&self, t: Tok) -> &str {
        &self.names[t as usize]
    }
}

/// One learn word of a variant: the word, nvdisasm's modifier tokens, and those without the
/// title tokens (`None` when the text lacks one of them).
struct Sample {
    word: u128,
    mods: Vec<Tok>,
    untitled: Option<Vec<Tok>>,
}

/// What the modifier learning changed in one variant, for findings.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Merge {
    /// Variant key.
    pub key: String,
    /// The two segment labels merged (the first keeps its label).
    pub fields: (String, String),
    /// Texts the merge explains.
    pub explained: usize,
}

/// Re-estimation rounds of the segments' names.
const ROUNDS: usize = 3;

/// Learns every variant's modifier fields as nvdisasm reads them, and their print order, from
/// the accepted texts of `entries` (the caller keeps the check split out). Returns the new
/// tables and the merges made.
pub fn learn_modifiers(mut tables: Vec<Table>, entries: &[Entry]) -> (Vec<Table>, Vec<Merge>) {
    let Ok(codec) = Codec::new(tables.clone()) else {
        return (tables, Vec::new());
    };
    let mut samples: HashMap<(u16, u16), Vec<TextSample>> = HashMap::default();
    for e in entries {
        let Answer::Text(t) = &e.answer else { continue };
        let Some(d) = codec.decode(e.arch, Word(e.word)) else {
            continue;
        };
        let v = codec.variant(d.id);
        let Some((mnemonic, mods)) = split_mods(t) else {
            continue;
        };
        if mnemonic != v.title.split('.').next().unwrap_or("") {
            continue;
        }
        samples
            .entry((d.id.table, d.id.variant))
            .or_default()
            .push((e.word, mods));
    }
    let mut merges = Vec::new();
    let mut keys: Vec<_> = samples.keys().copied().collect();
    keys.sort_unstable();
    for (ti, vi) in keys {
        let v = &mut tables[ti as usize].variants[vi as usize];
        let Numbered {
            vocab,
            titles,
            samples: s,
            mut segs,
        } = numbered(v, &samples[&(ti, vi)]);
        let s = &s[..];
        for _ in 0..ROUNDS {
            reestimate(&mut segs, s);
        }
        for _ in 0..12 {
            let m = best_merge(&segs, s);
            let c = best_context(v, &segs, s);
            let debug = std::env::var_os("SASS_CONFORM_DEBUG_MERGES").is_some();
            match (m, c) {
                (Some((a, b, gain)), c) if c.as_ref().is_none_or(|c| gain > c.3) => {
                    if debug {
                        eprintln!(
                            "merge {}: {} + {} explains {gain}",
                            v.key, segs[a].label, segs[b].label
                        );
                    }
                    merges.push(Merge {
                        key: v.key.clone(),
                        fields: (segs[a].label.clone(), segs[b].label.clone()),
                        explained: gain,
                    });
                    merge(&mut segs, a, b, s);
                }
                (_, Some((k, b, names, gain))) => {
                    if debug {
                        eprintln!(
                            "context {}: {} reads bit {b}, explains {gain}",
                            v.key, segs[k].label
                        );
                    }
                    apply_context(&mut segs[k], b, names);
                }
                _ => break,
            }
            for _ in 0..ROUNDS {
                reestimate(&mut segs, s);
            }
        }
        let order = learn_order(&segs, (&titles, &vocab), s);
        install(v, segs, order, &vocab);
    }
    (tables, merges)
}

/// One learn word of a variant with its modifier tokens as texts.
type TextSample = (u128, Vec<String>);

/// A variant's title tokens, learn words and segments with their tokens numbered.
struct Numbered {
    vocab: Vocab,
    titles: Vec<Tok>,
    samples: Vec<Sample>,
    segs: Vec<Seg>,
}

/// The [`Numbered`] tokens of variant `v` and its learn words `raw`.
fn numbered(v: &Variant, raw: &[TextSample]) -> Numbered {
    let named = segments(v);
    let title_texts = title_tokens(v);
    let vocab = Vocab::new(
        raw.iter()
            .flat_map(|(_, m)| m)
            .chain(&title_texts)
            .chain(named.iter().flat_map(|(_, n)| n.iter().flatten())),
    );
    let titles = vocab.run(&title_texts);
    let samples = raw
        .iter()
        .map(|(word, m)| {
            let mods = vocab.run(m);
            let untitled = minus(&mods, &titles);
            Sample {
                word: *word,
                mods,
                untitled,
            }
        })
        .collect();
    let segs = named
        .into_iter()
        .map(|(mut g, n)| {
            g.names = n.iter().map(|r| vocab.run(r)).collect();
            g
        })
        .collect();
    Numbered {
        vocab,
        titles,
        samples,
        segs,
    }
}

/// `@P0 TLD.LZ.EF P0, ... ;` -> ("TLD", ["LZ", "EF"]).
fn split_mods(t: &str) -> Option<(&str, Vec<String>)> {
    let mut it = t.split_whitespace();
    let mut op = it.next()?;
    if op.starts_with('@') {
        op = it.next()?;
    }
    let mut parts = op.split('.');
    let m = parts.next()?;
    Some((m, parts.map(str::to_string).collect()))
}

fn tokens_of(text: &str) -> Vec<String> {
    if text.is_empty() {
        Vec::new()
    } else {
        text.split('.').map(str::to_string).collect()
    }
}

/// Tokens of the title after the mnemonic (`TMML.LOD` -> `LOD`): printed whatever the word.
fn title_tokens(v: &Variant) -> Vec<String> {
    v.title
        .split('.')
        .skip(1)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

/// A modifier segment: bit ranges whose value prints one token run.
#[derive(Debug, Clone)]
struct Seg {
    label: String,
    kind: FieldKind,
    line: usize,
    ranges: Vec<crate::spec::BitRange>,
    /// Bits of other fields that also choose the run (see [`Field::context`]).
    context: Vec<crate::spec::BitRange>,
    /// Token run per key (value, context bits above it).
    names: Vec<Vec<Tok>>,
}

impl Seg {
    fn width(&self) -> u32 {
        self.ranges.iter().map(|r| r.len as u32).sum()
    }
    /// The key of `names`: the value with the context bits above it.
    fn value(&self, word: u128) -> u64 {
        let mut v = 0u64;
        let mut shift = 0;
        for r in self.ranges.iter().chain(&self.context) {
            v |= ((word >> r.lo) as u64 & ((1u64 << r.len) - 1)) << shift;
            shift += r.len as u32;
        }
        v
    }
    fn run(&self, word: u128) -> &[Tok] {
        &self.names[self.value(word) as usize]
    }
}

/// One segment per contiguous range of every modifier or flag field (a field the table
/// writes in several places is several segments until the texts show otherwise), named from
/// the resolved tables with the field's other ranges at their fixed-word values: each
/// segment (its names left to fill) with its names as texts.
fn segments(v: &Variant) -> Vec<(Seg, Vec<Vec<String>>)> {
    let mut out = Vec::new();
    for (fi, f) in v.fields.iter().enumerate() {
        if !matches!(f.kind, FieldKind::Modifier(_) | FieldKind::Flag(_))
            || f.width() > MAX_MERGED_BITS
        {
            continue;
        }
        let base = Word(v.fixed_value).get_field(f);
        let mut shift = 0u32;
        for (k, r) in f.ranges.iter().enumerate() {
            let mask = ((1u64 << r.len) - 1) << shift;
            let names: Vec<Vec<String>> = (0..1u64 << r.len)
                .map(|x| tokens_of(&field_modifier_text(v, fi, (base & !mask) | x << shift)))
                .collect();
            let label = if f.ranges.len() == 1 {
                f.label.clone()
            } else {
                format!("{} #{k}", f.label)
            };
            let seg = Seg {
                label,
                kind: f.kind.clone(),
                line: f.line,
                ranges: vec![*r],
                context: Vec::new(),
                names: Vec::new(),
            };
            out.push((seg, names));
            shift += r.len as u32;
        }
    }
    out
}

/// `have` minus `take` as multisets, keeping `have`'s order; `None` when `take` is not inside.
fn minus<T: PartialEq + Clone>(have: &[T], take: &[T]) -> Option<Vec<T>> {
    let mut rest = have.to_vec();
    take_out(&mut rest, take).then_some(rest)
}

/// Takes each of `take` out of `rest` (its first occurrence left), keeping the order; false
/// when one is not there.
fn take_out<T: PartialEq>(rest: &mut Vec<T>, take: &[T]) -> bool {
    for t in take {
        let Some(i) = rest.iter().position(|r| r == t) else {
            return false;
        };
        rest.remove(i);
    }
    true
}

fn same_multiset<T: PartialEq + Clone>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && minus(a, b).is_some_and(|r| r.is_empty())
}

/// A sample's tokens minus the title tokens and every segment's run but `skip`'s.
fn leftover(segs: &[Seg], s: &Sample, skip: &[usize]) -> Option<Vec<Tok>> {
    let mut rest = s.untitled.clone()?;
    for (k, g) in segs.iter().enumerate() {
        if !skip.contains(&k) && !take_out(&mut rest, g.run(s.word)) {
            return None;
        }
    }
    Some(rest)
}

/// [`leftover`] of each sample, in order.
fn leftovers(segs: &[Seg], samples: &[Sample], skip: &[usize]) -> Vec<Option<Vec<Tok>>> {
    samples.iter().map(|s| leftover(segs, s, skip)).collect()
}

/// `(value, leftover)` votes: texts per leftover per value.
type Votes = HashMap<u64, HashMap<Vec<Tok>, usize>>;

/// Counts one vote for `rest` at `value` (the leftover copied only when first seen there).
fn vote(votes: &mut Votes, value: u64, rest: &[Tok]) {
    let per = votes.entry(value).or_default();
    match per.get_mut(rest) {
        Some(n) => *n += 1,
        None => {
            per.insert(rest.to_vec(), 1);
        }
    }
}

/// Majority run per value from `(value, leftover)` votes.
fn majority(votes: Votes) -> HashMap<u64, Vec<Tok>> {
    votes
        .into_iter()
        .filter_map(|(j, m)| {
            m.into_iter()
                .max_by(|x, y| x.1.cmp(&y.1).then_with(|| y.0.cmp(&x.0)))
                .map(|(r, _)| (j, r))
        })
        .collect()
}

/// Each segment's value names re-estimated from the leftovers of the texts (the other
/// segments' runs taken out), all segments from the same old names.
fn reestimate(segs: &mut [Seg], samples: &[Sample]) {
    let mut new: Vec<HashMap<u64, Vec<Tok>>> = Vec::with_capacity(segs.len());
    for k in 0..segs.len() {
        let mut votes = Votes::default();
        for s in samples {
            if let Some(rest) = leftover(segs, s, &[k]) {
                vote(&mut votes, segs[k].value(s.word), &rest);
            }
        }
        new.push(majority(votes));
    }
    for (g, n) in segs.iter_mut().zip(new) {
        for (val, run) in n {
            g.names[val as usize] = run;
        }
    }
}

fn explained(segs: &[Seg], s: &Sample) -> bool {
    leftover(segs, s, &[]).is_some_and(|r| r.is_empty())
}

/// Whether two segments touch in the word (one's highest bit right below the other's
/// lowest): nvdisasm's fields are bit ranges, so only touching segments may be one value.
fn adjacent(a: &Seg, b: &Seg) -> bool {
    let touch = |x: &Seg, y: &Seg| {
        x.ranges
            .iter()
            .any(|r| y.ranges.iter().any(|q| r.hi() as u16 + 1 == q.lo as u16))
    };
    touch(a, b) || touch(b, a)
}

/// The merge of two touching segments that explains the most texts not explained now, with
/// joint names learned from the leftovers: (a, b, texts newly explained).
fn best_merge(segs: &[Seg], samples: &[Sample]) -> Option<(usize, usize, usize)> {
    let (near, any) = best_merges(segs, samples)?;
    // A merge of touching segments is preferred unless one of distant ones explains twice as
    // many texts (TEX's LOD mode is bit 59 with bits 87-89).
    match (near, any) {
        (Some(n), Some(a)) if a.2 > 2 * n.2 => Some(a),
        (Some(n), _) => Some(n),
        (None, a) => a,
    }
}

/// The best merge among touching segments only, and among all pairs (each pair's gain
/// worked out once for both): `None` when too few texts are unexplained for either.
#[allow(clippy::type_complexity)]
fn best_merges(
    segs: &[Seg],
    samples: &[Sample],
) -> Option<(Option<(usize, usize, usize)>, Option<(usize, usize, usize)>)> {
    let unexplained: Vec<bool> = samples.iter().map(|s| !explained(segs, s)).collect();
    if unexplained.iter().filter(|&&u| u).count() < MIN_EXPLAINED {
        return None;
    }
    let mut near: Option<(usize, usize, usize)> = None;
    let mut any: Option<(usize, usize, usize)> = None;
    for a in 0..segs.len() {
        for b in a + 1..segs.len() {
            if segs[a].width() + segs[b].width() > MAX_MERGED_BITS
                || !segs[a].context.is_empty()
                || !segs[b].context.is_empty()
            {
                continue;
            }
            let rests = leftovers(segs, samples, &[a, b]);
            let names = joint_names_of(segs, samples, (a, b), &rests);
            let wa = segs[a].width();
            let gain = samples
                .iter()
                .zip(&rests)
                .zip(&unexplained)
                .filter(|((s, rest), u)| {
                    let j = segs[a].value(s.word) | segs[b].value(s.word) << wa;
                    **u && rest
                        .as_ref()
                        .is_some_and(|rest| names.get(&j).is_some_and(|n| same_multiset(n, rest)))
                })
                .count();
            if gain < MIN_EXPLAINED {
                continue;
            }
            if adjacent(&segs[a], &segs[b]) && near.is_none_or(|x| gain > x.2) {
                near = Some((a, b, gain));
            }
            if any.is_none_or(|x| gain > x.2) {
                any = Some((a, b, gain));
            }
        }
    }
    Some((near, any))
}

fn joint_names(segs: &[Seg], samples: &[Sample], a: usize, b: usize) -> HashMap<u64, Vec<Tok>> {
    joint_names_of(segs, samples, (a, b), &leftovers(segs, samples, &[a, b]))
}

/// [`joint_names`] from the samples' leftovers without `a` and `b` (`rests`, in order).
fn joint_names_of(
    segs: &[Seg],
    samples: &[Sample],
    (a, b): (usize, usize),
    rests: &[Option<Vec<Tok>>],
) -> HashMap<u64, Vec<Tok>> {
    let wa = segs[a].width();
    let mut votes = Votes::default();
    for (s, rest) in samples.iter().zip(rests) {
        if let Some(rest) = rest {
            let j = segs[a].value(s.word) | segs[b].value(s.word) << wa;
            vote(&mut votes, j, rest);
        }
    }
    majority(votes)
}

/// Segment `b` becomes the high bits of segment `a`; joint values never seen print `a`'s run
/// then `b`'s.
fn merge(segs: &mut Vec<Seg>, a: usize, b: usize, samples: &[Sample]) {
    let learned = joint_names(segs, samples, a, b);
    let wa = segs[a].width();
    let wb = segs[b].width();
    let names = (0..1u64 << (wa + wb))
        .map(|j| {
            learned.get(&j).cloned().unwrap_or_else(|| {
                let mut r = segs[a].names[(j & ((1 << wa) - 1)) as usize].clone();
                r.extend(segs[b].names[(j >> wa) as usize].iter().cloned());
                r
            })
        })
        .collect();
    let sb = segs.remove(b);
    let sa = &mut segs[a];
    sa.ranges.extend(sb.ranges);
    sa.names = names;
    if let FieldKind::Flag(_) = sa.kind
        && let FieldKind::Modifier(g) = sb.kind
    {
        sa.kind = FieldKind::Modifier(g);
    }
}

/// A context bit chosen for a segment: (segment, word bit, names per key, texts explained).
type ContextChoice = (usize, u8, HashMap<u64, Vec<Tok>>, usize);

/// The best context bit: the (segment, bit) whose naming by value and bit explains the most
/// texts not explained now, at least [`MIN_EXPLAINED`], with its names and that count
/// (SM80 LD: `E` at bit 72 prints `???0` when bit 90, the `.64` address mode, is set without
/// it). Candidates are the bits of the variant's flag, modifier and operand-modifier fields
/// of up to 3 bits that the segment does not hold.
fn best_context(v: &Variant, segs: &[Seg], samples: &[Sample]) -> Option<ContextChoice> {
    let candidates: Vec<u8> = v
        .fields
        .iter()
        .filter(|f| {
            matches!(
                f.kind,
                FieldKind::Modifier(_) | FieldKind::Flag(_) | FieldKind::OperandModifier
            ) && f.width() <= 3
        })
        .flat_map(|f| f.ranges.iter().flat_map(|r| r.lo..=r.hi()))
        .collect();
    let unexplained: Vec<bool> = samples.iter().map(|s| !explained(segs, s)).collect();
    if unexplained.iter().filter(|&&u| u).count() < MIN_EXPLAINED {
        return None;
    }
    let mut best: Option<ContextChoice> = None;
    for k in 0..segs.len() {
        if segs[k].width() + segs[k].context.len() as u32 >= MAX_MERGED_BITS {
            continue;
        }
        // The leftovers without segment `k` are the same for every candidate bit.
        let mut rests: Option<Vec<Option<Vec<Tok>>>> = None;
        for &b in &candidates {
            let held = segs[k]
                .ranges
                .iter()
                .chain(&segs[k].context)
                .any(|r| (r.lo..=r.hi()).contains(&b));
            if held {
                continue;
            }
            let mut trial = segs[k].clone();
            trial.context.push(crate::spec::BitRange { lo: b, len: 1 });
            let rests = rests.get_or_insert_with(|| leftovers(segs, samples, &[k]));
            let mut votes = Votes::default();
            for (s, rest) in samples.iter().zip(rests.iter()) {
                if let Some(rest) = rest {
                    vote(&mut votes, trial.value(s.word), rest);
                }
            }
            let names = majority(votes);
            let gain = samples
                .iter()
                .zip(rests.iter())
                .zip(&unexplained)
                .filter(|((s, rest), u)| {
                    **u && rest.as_ref().is_some_and(|rest| {
                        names
                            .get(&trial.value(s.word))
                            .is_some_and(|n| same_multiset(n, rest))
                    })
                })
                .count();
            if gain >= MIN_EXPLAINED && best.as_ref().is_none_or(|x| gain > x.3) {
                best = Some((k, b, names, gain));
            }
        }
    }
    best
}

/// Gives segment `k` the context bit `b` with the names learned for (value, bit); keys never
/// seen keep the name of the value alone.
fn apply_context(g: &mut Seg, b: u8, names: HashMap<u64, Vec<Tok>>) {
    let old = std::mem::take(&mut g.names);
    let key_bits = g.width() + g.context.len() as u32;
    g.context.push(crate::spec::BitRange { lo: b, len: 1 });
    g.names = (0..1u64 << (key_bits + 1))
        .map(|j| {
            names
                .get(&j)
                .cloned()
                .unwrap_or_else(|| old[(j & ((1 << key_bits) - 1)) as usize].clone())
        })
        .collect();
}

/// Print order: slot labels (`=TOKEN` for a title token, else a segment label) ordered by
/// pairwise votes from the texts whose tokens split into the runs in exactly one way.
fn learn_order(segs: &[Seg], (titles, vocab): (&[Tok], &Vocab), samples: &[Sample]) -> Vec<String> {
    let n_slots = titles.len() + segs.len();
    let mut votes: HashMap<(usize, usize), usize> = HashMap::default();
    for s in samples {
        let mut pieces: Vec<(usize, Vec<Tok>)> = titles
            .iter()
            .enumerate()
            .map(|(k, t)| (k, vec![*t]))
            .collect();
        pieces.extend(
            segs.iter()
                .enumerate()
                .map(|(k, g)| (titles.len() + k, g.run(s.word).to_vec()))
                .filter(|(_, r)| !r.is_empty()),
        );
        let found = splits(&s.mods, &pieces);
        if found.len() != 1 {
            continue;
        }
        let order = &found[0];
        for i in 0..order.len() {
            for j in i + 1..order.len() {
                *votes.entry((order[i], order[j])).or_default() += 1;
            }
        }
    }
    rank(n_slots, &votes)
        .into_iter()
        .map(|k| {
            if k < titles.len() {
                format!("={}", vocab.text(titles[k]))
            } else {
                segs[k - titles.len()].label.clone()
            }
        })
        .collect()
}

/// A total order of `n` slots from pairwise votes (`votes[(a, b)]`: texts with a before b):
/// a topological order of the majority relation (a before b when more texts say so), the
/// next slot among those nothing unplaced must precede being the one with the fewest
/// majority losses, then the lowest index; a cycle is broken the same way.
pub fn rank<S: std::hash::BuildHasher>(
    n: usize,
    votes: &std::collections::HashMap<(usize, usize), usize, S>,
) -> Vec<usize> {
    let v = |a: usize, b: usize| votes.get(&(a, b)).copied().unwrap_or(0);
    let before = |a: usize, b: usize| v(a, b) > v(b, a);
    let losses = |k: usize| (0..n).filter(|&x| x != k && before(x, k)).count();
    let mut left: Vec<usize> = (0..n).collect();
    let mut out = Vec::with_capacity(n);
    while !left.is_empty() {
        let free: Vec<usize> = left
            .iter()
            .copied()
            .filter(|&k| !left.iter().any(|&x| x != k && before(x, k)))
            .collect();
        let pool = if free.is_empty() { left.clone() } else { free };
        let pick = *pool
            .iter()
            .min_by_key(|&&k| (losses(k), k))
            .expect("non-empty");
        out.push(pick);
        left.retain(|&k| k != pick);
    }
    out
}

/// Replaces the variant's modifier and flag fields by the learned segments (every value named)
/// and sets its print order.
fn install(v: &mut Variant, segs: Vec<Seg>, order: Vec<String>, vocab: &Vocab) {
    v.fields.retain(|f| {
        !matches!(f.kind, FieldKind::Modifier(_) | FieldKind::Flag(_))
            || f.width() > MAX_MERGED_BITS
    });
    for g in segs {
        v.fields.push(Field {
            label: g.label,
            kind: g.kind,
            ranges: g.ranges,
            line: g.line,
            names: g
                .names
                .iter()
                .enumerate()
                .map(|(x, r)| {
                    let texts: Vec<&str> = r.iter().map(|&t| vocab.text(t)).collect();
                    (x as u64, texts.join("."))
                })
                .collect(),
            rejected: Vec::new(),
            signed: false,
            context: g.context,
        });
    }
    v.print_order = order;
}

/// Every way `mods` is the concatenation of all `pieces` (each used once), as slot orders;
/// at most two (a text that splits twice votes for nothing).
fn splits<T: PartialEq>(mods: &[T], pieces: &[(usize, Vec<T>)]) -> Vec<Vec<usize>> {
    let mut found = Vec::new();
    split_into(
        mods,
        pieces,
        &mut vec![false; pieces.len()],
        &mut Vec::new(),
        &mut found,
    );
    found
}

/// [`splits`]' search: extends `order` (slots used so far, `used` marking them) by every
/// piece that starts `mods`; stops at two.
fn split_into<T: PartialEq>(
    mods: &[T],
    pieces: &[(usize, Vec<T>)],
    used: &mut [bool],
    order: &mut Vec<usize>,
    found: &mut Vec<Vec<usize>>,
) {
    if found.len() >= 2 {
        return;
    }
    if mods.is_empty() {
        if used.iter().all(|u| *u) {
            found.push(order.clone());
        }
        return;
    }
    for (p, (k, run)) in pieces.iter().enumerate() {
        if used[p] || !mods.starts_with(run) {
            continue;
        }
        used[p] = true;
        order.push(*k);
        split_into(&mods[run.len()..], pieces, used, order, found);
        order.pop();
        used[p] = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &[&str]) -> Vec<String> {
        x.iter().map(|t| t.to_string()).collect()
    }

    #[test]
    fn multiset_minus_keeps_order() {
        assert_eq!(
            minus(&s(&["A", "INVALID2", "B", "INVALID2"]), &s(&["INVALID2"])),
            Some(s(&["A", "B", "INVALID2"]))
        );
        assert_eq!(minus(&s(&["A"]), &s(&["B"])), None);
        assert!(same_multiset(&s(&["A", "B"]), &s(&["B", "A"])));
    }

    #[test]
    fn a_text_splits_into_runs_once_or_more() {
        let pieces = vec![
            (0, s(&["INVALID2"])),
            (1, s(&["EU"])),
            (2, s(&["INVALID2"])),
        ];
        // Fields 0 and 2 print the same token: two splits, so the text votes for nothing.
        assert_eq!(
            splits(&s(&["INVALID2", "EU", "INVALID2"]), &pieces).len(),
            2
        );
        let pieces = vec![(0, s(&["F16", "RN"])), (1, s(&["EF"]))];
        assert_eq!(splits(&s(&["F16", "RN", "EF"]), &pieces), vec![vec![0, 1]]);
    }

    #[test]
    fn rank_follows_majorities_even_with_missing_pairs() {
        // 0 = SCR, 1 = title B, 2 = F16, 3 = EF: SCR before B (5 texts), B before F16 and EF,
        // F16 before EF; SCR never compared with EF.
        let votes: HashMap<(usize, usize), usize> = [
            ((0, 1), 5),
            ((1, 2), 9),
            ((1, 3), 9),
            ((2, 3), 4),
            ((3, 2), 1),
            ((0, 2), 2),
        ]
        .into_iter()
        .collect();
        assert_eq!(rank(4, &votes), vec![0, 1, 2, 3]);
    }
}
