//! Operands as nvdisasm prints them, learned per value for every operand field of up to
//! [`MAX_BITS`] bits (a wider one: whether its 0 is left out, `[R34]` not `[R34+0x0]`), with
//! a context bit where one explains more texts: SM80 LD's predicate
//! operand (bits 64-66) prints `P(7-v)`, nothing at v = 0 (PT), and `!` when bit 67 (the
//! table's `cNOT` flag, which prints nothing itself) is set: `!P3`, `!PT`.
//!
//! Method, per variant and operand field, over the learn words whose fixed bits the variant
//! matches (every such variant reads the word; alignment keeps only readings that fit): render
//! the word with the field printed by the plain rule (`P5`, `R12`), and take nvdisasm's atom at
//! the field's place when every other atom agrees (one atom fewer: nvdisasm left it out). The
//! text per value (and context bit) is the majority; a context bit (a one-bit flag field that
//! prints nothing) is kept when it makes at least [`MIN_GAIN`] more texts agree.

use crate::codec::{Codec, Word};
use crate::oracle::text::Line;
use crate::oracle::{Answer, Entry};
use crate::reading::forms::Form;
use crate::render::Renderer;
use crate::spec::{BitRange, FieldKind, Table};
use rustc_hash::FxHashMap as HashMap;

/// Widest operand field learned value by value.
pub const MAX_BITS: u32 = 8;

/// Widest name key a field takes with context bits ([`crate::spec::Field::name_key`]: its
/// value and the context above it): every key up to it gets a name when the context is kept.
pub const MAX_KEY_BITS: u32 = 16;

/// Fewest more agreeing texts a context bit must bring.
pub const MIN_GAIN: usize = 8;

/// Votes per (variant, field): key (value, context bit above it) -> text -> count.
type Votes = HashMap<u64, HashMap<String, usize>>;

/// Context candidates of one operand field: each a list of word bit ranges read above the
/// value (a silent flag field's ranges, or a form bit with its context bits).
type Contexts = Vec<Vec<BitRange>>;

/// One operand field to learn: (table, variant, field, signature atom, context candidates).
type Target = (usize, usize, usize, usize, Contexts);

/// Votes per (table, variant, field): without context, and per context candidate.
type FieldVotes = HashMap<(usize, usize, usize), (Votes, HashMap<usize, Votes>)>;

/// Learns operand names (and context bits) for every variant of `tables` from the accepted
/// texts of `entries` (the caller keeps the check split out): first the fields of up to
/// [`MAX_BITS`] bits (wide fields printed in full), then whether each wide field's 0 is left
/// out (with the small fields printed as learned, so a word whose predicate nvdisasm also
/// leaves out lines up).
///
/// `forms` (indexed like the tables, see [`crate::reading::forms`]) adds context candidates:
/// each form bit alone and with its context bits (SM80 LD's uniform register: bit 76 leaves
/// it out, bits 76 and 101 print it `desc[URn]`).
pub fn learn_operands(
    tables: Vec<Table>,
    entries: &[Entry],
    forms: &[Vec<Vec<Form>>],
) -> Vec<Table> {
    let tables = learn_pass(tables, entries, Pass::Small, forms);
    let tables = learn_pass(tables, entries, Pass::SmallAgain, forms);
    learn_pass(tables, entries, Pass::Wide, forms)
}

/// Which operand fields a pass learns, and how the others print meanwhile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// Fields of up to [`MAX_BITS`] bits; every operand field printed by the plain rule.
    Small,
    /// The small fields again but the special ones (a context bit, or a value left out: the
    /// LD predicate `P(7-v)`), which print as learned, so a field whose words need the
    /// predicate right to line up (the uniform register of `LD_R_R_UR_I_P`) is learned too.
    SmallAgain,
    /// The wider fields (whether their 0 is left out); the small ones print as learned.
    Wide,
}

/// A field that prints otherwise than a plain value: a context bit, or a value left out.
fn special(f: &crate::spec::Field) -> bool {
    !f.context.is_empty() || f.names.values().any(String::is_empty)
}

/// The context candidates of variant `v`: its one-bit flag and modifier fields (SM80 LD's
/// `cNOT`, which prints nothing: `!P3`; SM90 TMML's bit 59, `B`: the LOD register at 255 is
/// written `???255` with it and left out without), and each form bit alone and with its
/// context bits.
fn contexts(v: &crate::spec::Variant, forms: &[Form]) -> Contexts {
    let mut out: Contexts = v
        .fields
        .iter()
        .filter(|f| matches!(f.kind, FieldKind::Flag(_) | FieldKind::Modifier(_)) && f.width() == 1)
        .map(|f| f.ranges.clone())
        .collect();
    for f in forms {
        let bit = BitRange { lo: f.bit, len: 1 };
        out.push(vec![bit]);
        if !f.context.is_empty() {
            let mut all = vec![bit];
            all.extend(f.context.iter().map(|&b| BitRange { lo: b, len: 1 }));
            out.push(all);
        }
    }
    out
}

/// The value of the word bits `ranges` (concatenated low first).
fn bits_of(word: u128, ranges: &[BitRange]) -> u64 {
    let (mut v, mut shift) = (0u64, 0u32);
    for r in ranges {
        v |= ((word >> r.lo) as u64 & ((1u64 << r.len) - 1)) << shift;
        shift += r.len as u32;
    }
    v
}

/// One pass over the operand fields of `pass` (see [`Pass`]).
fn learn_pass(
    mut tables: Vec<Table>,
    entries: &[Entry],
    pass: Pass,
    forms: &[Vec<Vec<Form>>],
) -> Vec<Table> {
    let mut plain = tables.clone();
    let mut targets: Vec<Target> = Vec::new();
    for (ti, t) in plain.iter_mut().enumerate() {
        for (vi, v) in t.variants.iter_mut().enumerate() {
            let no_forms = Vec::new();
            let vf = forms.get(ti).and_then(|t| t.get(vi)).unwrap_or(&no_forms);
            let silent = contexts(v, vf);
            for fi in 0..v.fields.len() {
                let f = &mut v.fields[fi];
                let FieldKind::Operand(k) = f.kind else {
                    continue;
                };
                let is_wide = f.width() > MAX_BITS;
                let (target, clear) = match pass {
                    Pass::Small => (!is_wide, true),
                    Pass::SmallAgain => {
                        let t = !is_wide && !special(f);
                        (t, t || is_wide)
                    }
                    Pass::Wide => (is_wide, is_wide),
                };
                if clear {
                    f.names.clear();
                    f.context.clear();
                }
                if target {
                    // A wide field is only asked whether its 0 is left out (no context).
                    let ctx = if is_wide { Vec::new() } else { silent.clone() };
                    targets.push((ti, vi, fi, k as usize, ctx));
                }
            }
        }
    }
    let Ok(codec) = Codec::new(plain) else {
        return tables;
    };
    let r = Renderer::new(&codec);
    // (table, variant, field) -> (votes without context, votes per context field).
    let mut votes: FieldVotes = HashMap::default();
    let by_variant: HashMap<(usize, usize), Vec<&Target>> =
        targets.iter().fold(HashMap::default(), |mut m, t| {
            m.entry((t.0, t.1)).or_default().push(t);
            m
        });
    let mut text = String::new();
    for e in entries {
        let Answer::Text(theirs) = &e.answer else {
            continue;
        };
        let Some(d) = codec.decode(e.arch, Word(e.word)) else {
            continue;
        };
        let Some(b) = Line::parse(theirs) else {
            continue;
        };
        // The matching variants whose text lines up with nvdisasm's (same guard and
        // modifiers, as many atoms or one more), the first of each atom count: a form with
        // one more operand reads the word too (LD_R_R_I_P's predicate at PT, left out), a
        // sibling with the same operands is not another reading.
        let mut counts: Vec<usize> = Vec::new();
        for id in std::iter::once(d.id).chain(d.others().iter().copied()) {
            let Some(dd) = codec.decode_as(id, d.word) else {
                continue;
            };
            text.clear();
            r.render_into(&codec, &dd, &mut text);
            let Some(a) = Line::parse(&text) else {
                continue;
            };
            if a.guard != b.guard || a.mods != b.mods || a.mnemonic != b.mnemonic {
                continue;
            }
            let v = codec.variant(id);
            let (xa, xb) = (a.atoms(), b.atoms());
            if xa.len() != v.signature.atoms.len()
                || !(xa.len() == xb.len() || xa.len() == xb.len() + 1)
                || counts.contains(&xa.len())
            {
                continue;
            }
            counts.push(xa.len());
            let Some(fs) = by_variant.get(&(id.table as usize, id.variant as usize)) else {
                continue;
            };
            for &&(ti, vi, fi, k, ref silent) in fs.iter() {
                let Some(seen) = atom_at(&xa, &xb, k) else {
                    continue;
                };
                let val = dd.values()[fi];
                let w = v.fields[fi].width();
                let entry = votes.entry((ti, vi, fi)).or_default();
                *entry
                    .0
                    .entry(val)
                    .or_default()
                    .entry(seen.clone())
                    .or_default() += 1;
                for (c, ranges) in silent.iter().enumerate() {
                    // A key wider than MAX_KEY_BITS is not tried: a kept context gets a name
                    // for every key below it (SM90 IMAD's synthesised table ran out of memory
                    // at 23.5 GB filling them; 228 MB with this bound).
                    if w + ranges.iter().map(|r| r.len as u32).sum::<u32>() > MAX_KEY_BITS {
                        continue;
                    }
                    let key = val | bits_of(d.word.0, ranges) << w;
                    *entry
                        .1
                        .entry(c)
                        .or_default()
                        .entry(key)
                        .or_default()
                        .entry(seen.clone())
                        .or_default() += 1;
                }
            }
        }
    }
    let ctx_of: HashMap<(usize, usize, usize), &Contexts> =
        targets.iter().map(|t| ((t.0, t.1, t.2), &t.4)).collect();
    for ((ti, vi, fi), (plain_votes, ctx_votes)) in votes {
        let v = &mut tables[ti].variants[vi];
        if v.fields[fi].width() > MAX_BITS {
            let zero = majority(&plain_votes).get(&0).cloned();
            let f = &mut v.fields[fi];
            f.names.clear();
            if zero.as_deref() == Some("") {
                f.names.insert(0, String::new());
            }
            continue;
        }
        let base = agreeing(&plain_votes);
        let best = ctx_votes
            .into_iter()
            .map(|(c, vs)| (agreeing(&vs), c, vs))
            .max_by_key(|(n, c, _)| (*n, std::cmp::Reverse(*c)));
        let (names, context) = match best {
            Some((n, c, vs)) if n >= base + MIN_GAIN => (majority(&vs), Some(c)),
            _ => (majority(&plain_votes), None),
        };
        let w = v.fields[fi].width();
        let ctx_ranges: Vec<BitRange> = context
            .and_then(|c| ctx_of.get(&(ti, vi, fi)).and_then(|cs| cs.get(c)).cloned())
            .unwrap_or_default();
        let ctx_bits: u32 = ctx_ranges.iter().map(|r| r.len as u32).sum();
        let f = &mut v.fields[fi];
        f.names = names;
        f.context = ctx_ranges;
        // Keys never seen print as the value alone would have.
        if !f.context.is_empty() {
            for key in 0..1u64 << (w + ctx_bits) {
                if !f.names.contains_key(&key)
                    && let Some(t) = f.names.get(&(key & ((1 << w) - 1))).cloned()
                {
                    f.names.insert(key, t);
                }
            }
        }
    }
    tables
}

/// nvdisasm's atom at signature atom `k`, given our atoms `xa` (every atom printed) and
/// theirs `xb`: when every other atom agrees, `xb[k]`, or "" when nvdisasm has exactly that
/// atom fewer.
fn atom_at(xa: &[&str], xb: &[&str], k: usize) -> Option<String> {
    if k >= xa.len() {
        return None;
    }
    // nvdisasm writes a descriptor before the brackets (`desc[UR4][R2.64+0x10]`): line its
    // atom up with the field's place.
    if let Some(j) = xb
        .iter()
        .position(|a| a.starts_with("desc["))
        .filter(|&j| j != k)
        && xa.len() == xb.len()
    {
        let mut moved = xb.to_vec();
        let d = moved.remove(j);
        moved.insert(k, d);
        return atom_at(xa, &moved, k);
    }
    if xa.len() == xb.len() {
        let others = (0..xa.len()).all(|j| j == k || xa[j] == xb[j]);
        return others.then(|| xb[k].to_string());
    }
    if xa.len() == xb.len() + 1 && xa[..k] == xb[..k] && xa[k + 1..] == xb[k..] {
        return Some(String::new());
    }
    None
}

/// Texts that agree with their key's majority text.
fn agreeing(v: &Votes) -> usize {
    v.values()
        .map(|m| m.values().max().copied().unwrap_or(0))
        .sum()
}

/// The majority text per key (ties: the smaller text).
fn majority(v: &Votes) -> std::collections::BTreeMap<u64, String> {
    v.iter()
        .filter_map(|(k, m)| {
            m.iter()
                .max_by(|x, y| x.1.cmp(y.1).then_with(|| y.0.cmp(x.0)))
                .map(|(t, _)| (*k, t.clone()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atoms_align_around_one_field() {
        let ours = ["R1", "R2", "0x10", "P5"];
        assert_eq!(
            atom_at(&ours, &["R1", "R2", "0x10", "!P2"], 3),
            Some("!P2".into())
        );
        assert_eq!(
            atom_at(&ours, &["R1", "R2", "0x10"], 3),
            Some(String::new())
        );
        assert_eq!(atom_at(&ours, &["R1", "R9", "0x10", "!P2"], 3), None);
        assert_eq!(atom_at(&ours, &["R1", "R2"], 3), None);
        let mem = ["R2.64", "UR4", "0x10"];
        assert_eq!(
            atom_at(&mem, &["desc[UR4]", "R2.64", "0x10"], 1),
            Some("desc[UR4]".into())
        );
    }
}
