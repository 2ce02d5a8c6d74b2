//! Hidden operand fields: bits that nothing describes and that read as ignored around a
//! variant's fixed word, but that change one operand's value around other words of the
//! variant: an operand nvdisasm prints only in some form, which the single-bit sweeps of the
//! fixed word never show. SM80 RED (synthesised table, nvdisasm 13.5.37): the fixed word
//! prints `[R0]` and bits 64-69 change nothing; with bit 91 set it prints `[R0.U32+UR0]`,
//! and there bits 64-69 are the uniform register (`UR35` -> `UR34` flipping bit 64).
//!
//! The evidence is every pair of recorded legal words of the variant that differ in that bit
//! alone (the sweeps around combination and form words make such pairs): a bit becomes bit
//! `j` of a new operand field when at least [`MIN_PAIRS`] pairs move one operand atom's value
//! by `2^j` and nearly every pair that changes the text at all does so
//! ([`MIN_AGREEMENT_PERMILLE`]). The bits that move an atom of the same register class make
//! one field, numbered after the signature's operands.

use crate::codec::{Codec, VariantId, Word};
use crate::oracle::text::Line;
use crate::oracle::{Answer, Entry};
use crate::spec::{BitRange, Field, FieldKind, Table, Variant};
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeMap;

/// Fewest pairs of words (differing in the bit alone) that must show a bit moving an operand.
pub const MIN_PAIRS: usize = 2;

/// Of the pairs whose texts differ, the share (per mille) that must move the same operand atom
/// by the same power of two.
pub const MIN_AGREEMENT_PERMILLE: usize = 950;

/// What flipping one bit between two legal words of a variant did to the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PairEffect {
    /// One operand atom of this register class moved by `2^bit` (its place in the text can
    /// differ from form to form: SM80 RED's `UR` is the second atom of `[R0.U32+UR0]` and the
    /// first of `desc[UR0][R0.64]`).
    Operand {
        /// [`crate::oracle::text::atom_class`] of the atom (`R`, `UR`, `P`, `imm`, ...).
        class: &'static str,
        /// The value bit that moved.
        bit: u8,
    },
    /// The text changed otherwise.
    Other,
}

/// Per variant, per candidate bit: how often each effect was seen.
type Votes = HashMap<VariantId, BTreeMap<u8, HashMap<PairEffect, usize>>>;

/// The tables with each hidden operand field (see the module doc) added to its variant as
/// `operand N`, N after every operand the variant has. Tables the codec cannot build from
/// are returned unchanged.
pub fn learn_hidden_operands(mut tables: Vec<Table>, entries: &[Entry]) -> Vec<Table> {
    let Ok(codec) = Codec::new(tables.clone()) else {
        return tables;
    };
    let votes = pair_votes(&codec, entries);
    for (id, per_bit) in votes {
        if std::env::var_os("SASS_CONFORM_DEBUG_HIDDEN").is_some() {
            eprintln!("hidden {}: {:?}", codec.variant(id).key, per_bit);
        }
        let v = &mut tables[id.table as usize].variants[id.variant as usize];
        let fields = hidden_fields(v, &per_bit);
        v.undescribed &= !fields.iter().fold(0u128, |m, f| m | f.mask());
        v.fields.extend(fields);
    }
    tables
}

/// Bits no field covers and the variant does not fix: where a hidden operand can be.
fn free_bits(v: &Variant) -> u128 {
    !(v.fixed_mask | v.field_mask())
}

/// Tallies, for each legal recorded word of each variant and each of its free bits set to 0,
/// what the word with that bit set prints, where that word is recorded, legal and read as the
/// same variant.
fn pair_votes(codec: &Codec, entries: &[Entry]) -> Votes {
    let texts = legal_texts(entries);
    let mut votes: Votes = HashMap::default();
    for (&(arch, w), &t) in &texts {
        let Some(d) = codec.decode(arch, Word(w)) else {
            continue;
        };
        let free = free_bits(codec.variant(d.id));
        for b in (0..128u8).filter(|&b| free >> b & 1 == 1 && w >> b & 1 == 0) {
            let w1 = w | 1 << b;
            let Some(&t1) = texts.get(&(arch, w1)) else {
                continue;
            };
            if t1 == t || codec.decode(arch, Word(w1)).map(|d1| d1.id) != Some(d.id) {
                continue;
            }
            *votes
                .entry(d.id)
                .or_default()
                .entry(b)
                .or_default()
                .entry(pair_effect(t, t1))
                .or_default() += 1;
        }
    }
    votes
}

/// Legal, non-empty recorded texts by (arch, word).
pub type Texts<'a> = HashMap<(crate::arch::Arch, u128), &'a str>;

/// nvdisasm's text for every legal recorded word of `entries` that printed something.
pub fn legal_texts(entries: &[Entry]) -> Texts<'_> {
    entries
        .iter()
        .filter_map(|e| match &e.answer {
            Answer::Text(t) if !t.is_empty() => Some(((e.arch, e.word), t.as_str())),
            _ => None,
        })
        .collect()
}

/// What changed from `t0` (bit clear) to `t1` (bit set): one operand atom moved by a power
/// of two ([`PairEffect::Operand`]), else [`PairEffect::Other`].
pub fn pair_effect(t0: &str, t1: &str) -> PairEffect {
    let (Some(a), Some(b)) = (Line::parse(t0), Line::parse(t1)) else {
        return PairEffect::Other;
    };
    if a.mnemonic != b.mnemonic || a.guard != b.guard || a.mods != b.mods {
        return PairEffect::Other;
    }
    match super::flips::moved_atom(&a, &b, unwrap_desc) {
        Some((_, class, bit)) => PairEffect::Operand { class, bit },
        None => PairEffect::Other,
    }
}

/// The register inside a descriptor atom (`desc[UR4]` -> `UR4`, as nvdisasm writes a memory
/// operand's descriptor); any other atom as it is.
fn unwrap_desc(atom: &str) -> &str {
    atom.strip_prefix("desc[")
        .and_then(|a| a.strip_suffix(']'))
        .unwrap_or(atom)
}

/// The hidden operand fields of `v` from its pair votes: per bit, the one operand effect that
/// holds enough pairs and nearly all that changed the text; bits moving an atom of the same
/// register class make one field when their value bits are 0, 1, ... with none twice.
fn hidden_fields(v: &Variant, per_bit: &BTreeMap<u8, HashMap<PairEffect, usize>>) -> Vec<Field> {
    let mut by_class: BTreeMap<&'static str, Vec<(u8, u8)>> = BTreeMap::new();
    for (&b, effects) in per_bit {
        let changed: usize = effects.values().sum();
        let Some((&effect, &n)) = effects.iter().max_by_key(|(e, n)| (**n, *e)) else {
            continue;
        };
        let PairEffect::Operand { class, bit } = effect else {
            continue;
        };
        if n >= MIN_PAIRS && n * 1000 >= MIN_AGREEMENT_PERMILLE * changed {
            by_class.entry(class).or_default().push((bit, b));
        }
    }
    let first = next_operand(v);
    let mut out = Vec::new();
    for mut bits in by_class.into_values() {
        if !value_bits_in_order(&mut bits) {
            continue;
        }
        let n = first + out.len();
        let Ok(n) = u8::try_from(n) else { break };
        out.push(Field {
            label: format!("operand {n}"),
            kind: FieldKind::Operand(n),
            ranges: ranges_of(bits.iter().map(|&(_, b)| b)),
            line: 0,
            names: Default::default(),
            rejected: Vec::new(),
            signed: false,
            context: Vec::new(),
        });
    }
    out
}

/// Sorts (value bit, word bit) pairs and tells whether the value bits are 0, 1, 2, ... each
/// once: the bits of one new operand field, lowest value bit first.
pub(crate) fn value_bits_in_order<T: Ord>(bits: &mut [(u8, T)]) -> bool {
    bits.sort_unstable();
    bits.iter()
        .enumerate()
        .all(|(j, (bit, _))| *bit as usize == j)
}

/// The first operand number neither the signature nor a field of `v` uses.
pub(crate) fn next_operand(v: &Variant) -> usize {
    v.fields
        .iter()
        .filter_map(|f| match f.kind {
            FieldKind::Operand(n) => Some(n as usize + 1),
            _ => None,
        })
        .chain([v.signature.atoms.len()])
        .max()
        .unwrap_or(0)
}

/// Word bits in value order (least significant first) as ranges, joining neighbours.
fn ranges_of(bits: impl Iterator<Item = u8>) -> Vec<BitRange> {
    let mut ranges: Vec<BitRange> = Vec::new();
    for b in bits {
        match ranges.last_mut() {
            Some(r) if r.lo as u16 + r.len as u16 == b as u16 => r.len += 1,
            _ => ranges.push(BitRange { lo: b, len: 1 }),
        }
    }
    ranges
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::arch::Arch;

    /// SM80 RED_R_I_R (synthesised table) with the resolved layout's fixed bits (0-11 and
    /// 110-112: bits 64-71 and 91 read as ignored around the fixed word, so they are freed).
    pub(crate) fn red() -> Table {
        let text = include_str!("../../synth/SM80/RED.txt");
        let mut t = crate::spec::parse_table("synth/SM80/RED.txt", text).unwrap();
        t.variants.truncate(1);
        let v = &mut t.variants[0];
        assert_eq!(v.key, "RED_R_I_R");
        v.fixed_mask = 0xfff | 0x7 << 110;
        v.fixed_value &= v.fixed_mask;
        t
    }

    /// nvdisasm's text for a RED word with bit 91 set: the uniform register is bits 64-69
    /// (as nvdisasm 13.5.37 prints `[R61.U32+UR35+0x476e64]` and, bit 64 flipped, `UR34`).
    fn text(w: u128) -> String {
        format!("@P0 RED.ADD.EF [R0.U32+UR{}], R0 ;", w >> 64 & 0x3f)
    }

    /// For each uniform register of `urs`: the word of `v` with bit 91 set and that register,
    /// and that word with each of bits 64-69 flipped, with [`text`] for each.
    pub(crate) fn entries(v: &Variant, urs: &[u128]) -> Vec<Entry> {
        let mut out = Vec::new();
        for &ur in urs {
            let w0 = v.fixed_value | 1 << 91 | ur << 64;
            for w in std::iter::once(w0).chain((64..70).map(|b| w0 ^ 1 << b)) {
                out.push(Entry {
                    arch: Arch(80),
                    word: w,
                    answer: Answer::Text(text(w)),
                });
            }
        }
        out
    }

    #[test]
    fn bits_that_move_a_register_only_in_another_form_become_an_operand_field() {
        let t = red();
        let es = entries(&t.variants[0], &[35, 40]);
        let out = learn_hidden_operands(vec![t], &es);
        let v = &out[0].variants[0];
        let f = v.fields.last().unwrap();
        assert_eq!(f.kind, FieldKind::Operand(3));
        assert_eq!(f.label, "operand 3");
        assert_eq!(f.mask(), 0x3f << 64);
        assert_eq!(v.undescribed & 0x3f << 64, 0);
    }

    #[test]
    fn one_pair_per_bit_is_not_enough() {
        let t = red();
        let n = t.variants[0].fields.len();
        let es = entries(&t.variants[0], &[35]);
        let out = learn_hidden_operands(vec![t], &es);
        assert_eq!(out[0].variants[0].fields.len(), n);
    }

    #[test]
    fn a_descriptor_register_is_the_same_operand() {
        assert_eq!(
            pair_effect(
                "RED.E.INC.64 desc[UR0][R39.64+-0x745a01], R65 ;",
                "RED.E.INC.64 desc[UR8][R39.64+-0x745a01], R65 ;"
            ),
            PairEffect::Operand {
                class: "UR",
                bit: 3
            }
        );
        assert_eq!(
            pair_effect("RED.ADD [R0], R0 ;", "RED.MAX [R0], R0 ;"),
            PairEffect::Other
        );
    }
}
