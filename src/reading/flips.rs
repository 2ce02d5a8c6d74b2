//! Single-bit flips: what nvdisasm says each bit of each variant does, read from its answers
//! for the variant's fixed word with one bit flipped (the sweeps in oracle/<arch>/).
//!
//! For a variant whose fixed word nvdisasm accepts (text T0), each bit b outside its opcode
//! bits ([`crate::spec::Variant::opcode_mask`]: bits 0-11 in the seeds) is read
//! from nvdisasm's answer for `fixed ^ (1 << b)`: illegal; unchanged (ignored, or not shown
//! in the text, as scheduling bits are); the guard, one operand atom, or the modifiers changed.
//! A changed operand atom whose value moved by 2^j gives "operand m, bit j"; a changed modifier
//! is matched against the variant's modifier tables to give "group g, bit j".

use crate::arch::Arch;
use crate::codec::{Codec, VariantId, Word};
use crate::conform::finding::Evidence;
use crate::oracle::text::{Line, atom_class, atom_value};
use crate::oracle::{Answer, Entry};
use crate::spec::{FieldKind, GroupKind, ModifierName, Variant};
use serde::Serialize;
use std::collections::HashMap;
/// What the table says one bit is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum TableBit {
    /// A fixed bit with this value.
    Fixed(bool),
    /// Bit `index` (0 = least significant) of the field labelled `label`.
    Field {
        /// Field label.
        label: String,
        /// Field kind.
        kind: FieldKind,
        /// Bit position inside the field's value.
        index: u8,
    },
    /// No cell describes it.
    Undescribed,
}

/// What nvdisasm shows flipping one bit of the fixed word does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Effect {
    /// No recorded answer for the flipped word.
    Unseen,
    /// Same text as the fixed word (ignored, or not printed, like scheduling bits).
    Same,
    /// nvdisasm rejects the word, with this reason.
    Illegal(String),
    /// Another mnemonic: the bit selects the instruction.
    Mnemonic(String),
    /// The guard changed; bit `bit` of the 4-bit guard field (bit 3 = negate).
    Guard {
        /// Bit position inside the guard field.
        bit: u8,
    },
    /// Operand atom `atom` (0-based, brackets flattened) changed by 2^`bit`.
    Operand {
        /// Atom index in the text.
        atom: usize,
        /// Bit position inside the operand's value.
        bit: u8,
    },
    /// One written operand gained a part (its atoms split at `[`, `]` and `+`): a number of
    /// value 2^`bit` (sign aside), or a register one bit away from its zero register (all
    /// ones of a field of at most 8 bits: `RZ`, `URZ`, `PT`), appeared at place `part` of the
    /// operand whose first atom is `atom`. nvdisasm leaves a number part out at 0 (SM80
    /// ALD's synthesised table fixes bits 40-50; flipping bit 40 prints `a[R0+0x1]` for
    /// `a[R0]`, bit 50 `a[R0+-0x400]`) and a register part at its zero register (SM80 ATOMS's
    /// synthesised `ATOMS_R_UR` fixes bits 24-31 at 255 and 40-63 at 0: flipping bit 24
    /// prints `[R254+UR0]` for `[UR0]`, bit 40 `[UR0+0x1]`).
    Added {
        /// Atom index in the text (brackets flattened, as [`Effect::Operand`]).
        atom: usize,
        /// Place of the new part inside that atom.
        part: usize,
        /// Bit position inside the new part's value.
        bit: u8,
    },
    /// Modifiers changed: `removed` / `added` token runs; `group`/`bit` when a modifier table
    /// of the variant explains it (value 0 -> value 2^bit); a lone added token no table names
    /// is a flag.
    Modifier {
        /// Tokens that disappeared (dot-joined).
        removed: String,
        /// Tokens that appeared (dot-joined).
        added: String,
        /// The modifier table that explains it.
        group: Option<u8>,
        /// Bit of that table's value.
        bit: Option<u8>,
    },
    /// Something else changed (several places, operand count...): both texts.
    Other(String),
}

/// The reading of one bit: the table's claim and nvdisasm's answer.
#[derive(Debug, Clone, Serialize)]
pub struct BitReading {
    /// Bit number.
    pub bit: u8,
    /// What the table says.
    pub table: TableBit,
    /// What flipping it does.
    pub effect: Effect,
    /// The flipped word.
    pub word: Word,
    /// nvdisasm's text or `illegal: reason` for it ("" when unseen).
    pub nvdisasm: String,
}

/// Every bit reading of one variant.
#[derive(Debug, Clone, Serialize)]
pub struct VariantReading {
    /// Variant key.
    pub key: String,
    /// Arch.
    pub arch: Arch,
    /// The fixed word and nvdisasm's answer for it (text or `illegal: reason`).
    pub base: Evidence,
    /// Whether nvdisasm accepts the fixed word, or the legal word the variant was read around
    /// instead ([`rebase_centre`]); no bit readings otherwise.
    pub base_legal: bool,
    /// The word the bits were read around when nvdisasm refuses the table's own fixed word
    /// ([`rebase_centre`]); `base` is then that word's answer, and `refused` the table's fixed
    /// word with nvdisasm's reason.
    pub centre: Option<u128>,
    /// The table's fixed word and nvdisasm's refusal, when the variant was read around another
    /// word (`centre`).
    pub refused: Option<Evidence>,
    /// Readings of the bits outside the opcode bits ([`crate::spec::Variant::opcode_mask`];
    /// read there, a flip that lands on a sibling variant's fixed word, SM90 TMML bit 1, would
    /// be reported as a field), in ascending bit order.
    pub bits: Vec<BitReading>,
}

/// Index of recorded answers by (arch, word).
pub struct Answers<'a> {
    map: HashMap<(Arch, u128), &'a Answer>,
}

impl<'a> Answers<'a> {
    /// Indexes `entries`.
    pub fn new(entries: &'a [Entry]) -> Answers<'a> {
        Answers {
            map: entries
                .iter()
                .map(|e| ((e.arch, e.word), &e.answer))
                .collect(),
        }
    }
    /// Indexes the entries of every part (a later part's answer for a word wins), without
    /// copying them into one list.
    pub fn of_parts(parts: &[&'a [Entry]]) -> Answers<'a> {
        Answers {
            map: parts
                .iter()
                .flat_map(|p| p.iter())
                .map(|e| ((e.arch, e.word), &e.answer))
                .collect(),
        }
    }
    /// The recorded answer, if any.
    pub fn get(&self, arch: Arch, w: u128) -> Option<&'a Answer> {
        self.map.get(&(arch, w)).copied()
    }
}

/// The mnemonic nvdisasm printed for `v`'s fixed word on `arch`; `None` when it was refused,
/// does not parse or was not recorded.
pub fn base_mnemonic<'a>(v: &Variant, arch: Arch, known: &Answers<'a>) -> Option<&'a str> {
    text_mnemonic(known.get(arch, v.fixed_value)?)
}

/// The mnemonic nvdisasm printed for `v`'s fixed word with bit `b` flipped alone: `None` when
/// that word was not recorded, `Some(None)` when it was refused or does not parse.
pub fn flip_mnemonic<'a>(
    v: &Variant,
    arch: Arch,
    known: &Answers<'a>,
    b: u8,
) -> Option<Option<&'a str>> {
    known.get(arch, v.fixed_value ^ 1 << b).map(text_mnemonic)
}

fn text_mnemonic(a: &Answer) -> Option<&str> {
    match a {
        Answer::Text(t) => Line::parse(t).map(|l| l.mnemonic),
        Answer::Illegal(_) => None,
    }
}

/// `text` or `illegal: reason`.
pub fn answer_text(a: &Answer) -> String {
    match a {
        Answer::Text(t) => t.clone(),
        Answer::Illegal(r) => format!("illegal: {r}"),
    }
}

/// Reads every bit of every variant from the recorded answers.
pub fn read_bits(codec: &Codec, answers: &Answers) -> Vec<(VariantId, VariantReading)> {
    codec
        .ids()
        .filter_map(|id| read_variant(codec, id, answers).map(|r| (id, r)))
        .collect()
}

/// The table's view of every bit of `v`.
pub fn table_bits(v: &Variant) -> Vec<TableBit> {
    let mut out: Vec<TableBit> = (0..128u32)
        .map(|b| {
            if v.fixed_mask >> b & 1 == 1 {
                TableBit::Fixed(v.fixed_value >> b & 1 == 1)
            } else {
                TableBit::Undescribed
            }
        })
        .collect();
    for f in &v.fields {
        let mut index = 0u8;
        for r in &f.ranges {
            for b in r.lo..=r.hi() {
                out[b as usize] = TableBit::Field {
                    label: f.label.clone(),
                    kind: f.kind.clone(),
                    index,
                };
                index += 1;
            }
        }
    }
    out
}

fn read_variant(codec: &Codec, id: VariantId, answers: &Answers) -> Option<VariantReading> {
    let v = codec.variant(id);
    let arch = codec.table(id).arch?;
    let base_answer = answers.get(arch, v.fixed_value)?;
    let base = Evidence {
        word: Word(v.fixed_value).to_string(),
        arch,
        nvdisasm: answer_text(base_answer),
    };
    let tbits = table_bits(v);
    let (base, t0, centre, refused) = match base_answer {
        Answer::Text(t0) => (base, t0.as_str(), None, None),
        Answer::Illegal(_) => {
            let mnemonic = &codec.table(id).mnemonic;
            let Some((w, t)) = rebase_centre(v, mnemonic, arch, answers) else {
                return Some(VariantReading {
                    key: v.key.clone(),
                    arch,
                    base,
                    base_legal: false,
                    centre: None,
                    refused: None,
                    bits: vec![],
                });
            };
            let near = Evidence {
                word: Word(w).to_string(),
                arch,
                nvdisasm: t.to_string(),
            };
            (near, t, Some(w), Some(base))
        }
    };
    let around = centre.unwrap_or(v.fixed_value);
    let l0 = Line::parse(t0);
    let opcode = v.opcode_mask();
    let bits = (0..128u8)
        .filter(|&b| opcode >> b & 1 == 0)
        .map(|b| {
            let w = around ^ (1u128 << b);
            let (effect, nv) = match answers.get(arch, w) {
                None => (Effect::Unseen, String::new()),
                Some(a @ Answer::Illegal(r)) => (Effect::Illegal(r.clone()), answer_text(a)),
                Some(Answer::Text(t)) => (effect_of(v, t0, l0.as_ref(), t), t.clone()),
            };
            BitReading {
                bit: b,
                table: tbits[b as usize].clone(),
                effect,
                word: Word(w),
                nvdisasm: nv,
            }
        })
        .collect();
    Some(VariantReading {
        key: v.key.clone(),
        arch,
        base,
        base_legal: true,
        centre,
        refused,
        bits,
    })
}

/// The words [`rebase_centre`] chooses from, for a variant whose fixed word nvdisasm refuses:
/// the fixed word with one fixed bit flipped (the sweeps ask these), with one field at each of
/// its swept values (every value up to 8 bits, else each single bit: the sweeps ask these
/// too), and its quiet word (scheduling fields quiet, [`crate::reading::semicolon::quiet_word`]:
/// asked by [`rebase_words`]). A designed set, so the choice does not depend on which random
/// combinations happen to be recorded.
pub fn centre_candidates(v: &Variant) -> Vec<u128> {
    let fixed = v.fixed_value;
    let mut out: Vec<u128> = (0..128u32)
        .filter(|&b| v.fixed_mask >> b & 1 == 1)
        .map(|b| fixed ^ 1 << b)
        .collect();
    for f in &v.fields {
        for val in crate::codec::swept_values(f.width()) {
            let mut w = Word(fixed);
            if w.set_field(f, val).is_ok() {
                out.push(w.0);
            }
        }
    }
    out.extend(crate::reading::semicolon::quiet_word(v));
    out
}

/// The word to read `v` around when nvdisasm refuses its fixed word on `arch`, with
/// nvdisasm's text for it: of [`centre_candidates`], the recorded word nvdisasm prints with
/// `mnemonic` (the table's) nearest the fixed word (fewest bits apart). A generator can write
/// one fixed bit wrong (a synthesised table with one fixed bit set that nvdisasm refuses), or
/// a fixed word whose zero fields nvdisasm refuses: nv_isa_solver's SM103 BPT page, whose
/// fixed word has both scoreboard barrier fields at 0; nvdisasm prints BPT only with them at
/// 7, as in the quiet word. Of the nearest, the one whose text shares the most tokens with the
/// variant's distilled line, then the lowest word. `None` when the fixed word is accepted or
/// unrecorded, or no candidate is a recorded legal word of `mnemonic`.
pub fn rebase_centre<'a>(
    v: &Variant,
    mnemonic: &str,
    arch: Arch,
    known: &Answers<'a>,
) -> Option<(u128, &'a str)> {
    if !matches!(known.get(arch, v.fixed_value)?, Answer::Illegal(_)) {
        return None;
    }
    centre_candidates(v)
        .into_iter()
        .filter_map(|w| match known.get(arch, w)? {
            Answer::Text(t) if Line::parse(t).is_some_and(|l| l.mnemonic == mnemonic) => {
                let shared = crate::reading::printer::common_tokens(t, &v.distilled);
                let apart = (w ^ v.fixed_value).count_ones();
                Some(((apart, std::cmp::Reverse(shared), w), t.as_str()))
            }
            _ => None,
        })
        .min_by_key(|(k, _)| *k)
        .map(|((_, _, w), t)| (w, t))
}

/// The words to read a variant whose fixed word nvdisasm refuses around another word: its
/// quiet word while unrecorded ([`centre_candidates`]), then the word [`rebase_centre`] gives
/// with each of the 128 bits flipped alone; only those not in `known` (the sweeps recorded the
/// flips of the table's own fixed word only). Empty when the fixed word is accepted.
pub fn rebase_words(v: &Variant, mnemonic: &str, arch: Arch, known: &Answers) -> Vec<u128> {
    if !matches!(known.get(arch, v.fixed_value), Some(Answer::Illegal(_))) {
        return Vec::new();
    }
    let mut out: Vec<u128> = crate::reading::semicolon::quiet_word(v)
        .into_iter()
        .collect();
    if let Some((centre, _)) = rebase_centre(v, mnemonic, arch, known) {
        out.extend((0..128u32).map(|j| centre ^ 1 << j));
    }
    out.retain(|&w| known.get(arch, w).is_none());
    out
}

/// What changed between the fixed word's text `t0` and a flipped word's text `t`.
fn effect_of(v: &Variant, t0: &str, l0: Option<&Line>, t: &str) -> Effect {
    // Only the space before `;` differs: nvdisasm reads the bit as scheduling control
    // ([`crate::reading::semicolon`] learns which bits decide that space), not as text.
    fn unspaced(x: &str) -> &str {
        x.trim_end().trim_end_matches(';').trim_end()
    }
    if t == t0 || unspaced(t) == unspaced(t0) {
        return Effect::Same;
    }
    let (Some(a), Some(b)) = (l0, Line::parse(t)) else {
        return Effect::Other(format!("`{t0}` -> `{t}`"));
    };
    if a.mnemonic != b.mnemonic {
        return Effect::Mnemonic(b.mnemonic.to_string());
    }
    let guard = a.guard != b.guard;
    let mods = a.mods != b.mods;
    let ops = a.operands != b.operands;
    match (guard, mods, ops) {
        (true, false, false) => guard_bit(a.guard, b.guard)
            .map(|bit| Effect::Guard { bit })
            .unwrap_or_else(|| Effect::Other(format!("`{t0}` -> `{t}`"))),
        (false, true, false) => modifier_effect(v, &a.mods, &b.mods),
        (false, false, true) => {
            operand_effect(a, &b).unwrap_or_else(|| Effect::Other(format!("`{t0}` -> `{t}`")))
        }
        _ => Effect::Other(format!("`{t0}` -> `{t}`")),
    }
}

/// Which bit of the 4-bit guard field turns guard `a` into `b` (`P0` -> `!P0` is bit 3).
fn guard_bit(a: &str, b: &str) -> Option<u8> {
    let val = |g: &str| -> Option<u64> {
        if g.is_empty() {
            return Some(7);
        }
        let (neg, r) = match g.strip_prefix('!') {
            Some(r) => (8, r),
            None => (0, g),
        };
        Some(neg | atom_value(r)?)
    };
    one_bit(val(a)? ^ val(b)?)
}

fn one_bit(x: u64) -> Option<u8> {
    (x.count_ones() == 1).then(|| x.trailing_zeros() as u8)
}

fn operand_effect(a: &Line, b: &Line) -> Option<Effect> {
    if let Some((atom, _, bit)) = moved_atom(a, b, |x| x) {
        return Some(Effect::Operand { atom, bit });
    }
    if let Some((atom, bit)) = dropped_atom(a, b) {
        return Some(Effect::Operand { atom, bit });
    }
    let (atom, part, bit) = added_part(a, b)?;
    Some(Effect::Added { atom, part, bit })
}

/// Where `b`'s operands are `a`'s with one whole operand left out, and that operand is an
/// immediate of value 2^j: (its atom index in `a`, j). nvdisasm leaves such an operand out
/// at 0, so the flip cleared its only set bit (nv_isa_solver's SM103 BAR page: `BAR_I_I`
/// fixes bit 53, the top bit of the 12-bit count, at 1; flipped, `BAR.SYNC 0x0, 0x800` prints
/// `BAR.SYNC 0x0`). A part left out inside an operand (`[R0+0x1]` -> `[R0]`) is not this.
fn dropped_atom(a: &Line, b: &Line) -> Option<(usize, u8)> {
    let (oa, ob) = (&a.operands, &b.operands);
    if oa.len() != ob.len() + 1 {
        return None;
    }
    let i = (0..ob.len()).find(|&i| oa[i] != ob[i]).unwrap_or(ob.len());
    let [atom] = oa[i].as_slice() else {
        return None;
    };
    if oa[i + 1..] != ob[i..] || atom_class(atom) != "imm" {
        return None;
    }
    let index = oa[..i].iter().map(Vec::len).sum();
    Some((index, one_bit(atom_value(atom)?)?))
}

/// Where two lines' written operands differ in one operand alone, and `b`'s has one part
/// more than `a`'s (its atoms split at `[`, `]` and `+`), the others equal and in order, and
/// the new part is a number of value 2^j (a leading `-` aside: a sign bit prints the
/// negative) or a register one bit j away from its zero register ([`zero_register_bit`]):
/// (index of the operand's first atom, place of the new part, j).
fn added_part(a: &Line, b: &Line) -> Option<(usize, usize, u8)> {
    let (oa, ob) = (&a.operands, &b.operands);
    if oa.len() != ob.len() {
        return None;
    }
    let diff: Vec<usize> = (0..oa.len()).filter(|&i| oa[i] != ob[i]).collect();
    let [i] = diff.as_slice() else { return None };
    let (pa, pb) = (operand_parts(&oa[*i]), operand_parts(&ob[*i]));
    if pb.len() != pa.len() + 1 {
        return None;
    }
    let k = (0..pa.len()).find(|&k| pa[k] != pb[k]).unwrap_or(pa.len());
    if pa[k..] != pb[k + 1..] {
        return None;
    }
    let new = pb[k].strip_prefix('-').unwrap_or(pb[k]);
    let value = atom_value(new)?;
    let bit = match atom_class(new) {
        "imm" => one_bit(value)?,
        "R" | "UR" | "P" => zero_register_bit(value)?,
        _ => return None,
    };
    let atom = oa[..*i].iter().map(Vec::len).sum();
    Some((atom, k, bit))
}

/// A written operand's atoms split at `[`, `]` and `+` (`a[R0+0x1]` -> `a`, `R0`, `0x1`).
fn operand_parts<'t>(atoms: &[&'t str]) -> Vec<&'t str> {
    atoms
        .iter()
        .flat_map(|x| x.split(['[', ']', '+']))
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

/// The bit j where register number `value` is its zero register with bit j cleared: `value`
/// = 2^w - 1 - 2^j for a field of w <= 8 bits (`R254` in an 8-bit field is `RZ` without bit
/// 0, `UR62` in a 6-bit one `URZ` without bit 0). At most one such j exists.
fn zero_register_bit(value: u64) -> Option<u8> {
    (1..=8u32).find_map(|w| {
        let ones = (1u64 << w) - 1;
        (value < ones)
            .then(|| one_bit(value ^ ones))
            .flatten()
            .filter(|&j| u32::from(j) < w)
    })
}

/// Where two lines' operands (as many atoms each) differ in one atom alone: its index and
/// the two atoms.
fn differing_atom<'t>(a: &Line<'t>, b: &Line<'t>) -> Option<(usize, &'t str, &'t str)> {
    let (xa, xb) = (a.atoms(), b.atoms());
    if xa.len() != xb.len() {
        return None;
    }
    let diff: Vec<usize> = (0..xa.len()).filter(|&i| xa[i] != xb[i]).collect();
    let [i] = diff.as_slice() else { return None };
    Some((*i, xa[*i], xb[*i]))
}

/// Where two lines' operands (as many atoms each) differ in one atom alone, of one register
/// class ([`atom_class`]) whose value moved by a single bit: (atom index, class, bit). `norm`
/// maps each atom before it is read (as it is, or a descriptor's register out of `desc[UR4]`).
pub(crate) fn moved_atom(
    a: &Line,
    b: &Line,
    norm: fn(&str) -> &str,
) -> Option<(usize, &'static str, u8)> {
    let (i, xa, xb) = differing_atom(a, b)?;
    let (x0, x1) = (norm(xa), norm(xb));
    let class = atom_class(x0);
    if class != atom_class(x1) {
        return None;
    }
    let bit = one_bit(atom_value(x0)? ^ atom_value(x1)?)?;
    Some((i, class, bit))
}

/// Tokens removed from and added to the modifier list, as dot-joined runs.
fn modifier_effect(v: &Variant, a: &[&str], b: &[&str]) -> Effect {
    let removed: Vec<&str> = a.iter().filter(|m| !b.contains(m)).copied().collect();
    let added: Vec<&str> = b.iter().filter(|m| !a.contains(m)).copied().collect();
    let (removed, added) = (removed.join("."), added.join("."));
    let (group, bit) = explain_modifier(v, &removed, &added).unzip();
    Effect::Modifier {
        removed,
        added,
        group,
        bit,
    }
}

/// The modifier table (and value bit) whose value 0 prints `removed` and value 2^bit prints
/// `added`.
fn explain_modifier(v: &Variant, removed: &str, added: &str) -> Option<(u8, u8)> {
    let printed = |n: &ModifierName| match n {
        ModifierName::Default => String::new(),
        ModifierName::Named(s) => s.clone(),
        ModifierName::Invalid(k) => format!("INVALID{k}"),
        ModifierName::Unknown(k) => format!("???{k}"),
    };
    let mut found = None;
    for g in v.groups.iter().filter(|g| g.kind == GroupKind::Mnemonic) {
        let zero = g.lookup(0).map(|r| printed(&r.name));
        if zero.as_deref().unwrap_or("") != removed {
            continue;
        }
        for bit in 0..g.width.min(8) as u8 {
            if g.lookup(1 << bit).map(|r| printed(&r.name)).as_deref() == Some(added) {
                found.get_or_insert((g.index, bit));
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_that_appears_in_an_operand_is_read_as_its_value_bit() {
        let l = |t| Line::parse(t).unwrap();
        // nvdisasm 13.5.37, SM80 ALD.P: the offset is left out at 0.
        let a = l("@P0 ALD.P R0, a[R0], ???0 ;");
        let added = |t| operand_effect(&a, &l(t));
        assert_eq!(
            added("@P0 ALD.P R0, a[R0+0x8], ???0 ;"),
            Some(Effect::Added {
                atom: 1,
                part: 2,
                bit: 3
            })
        );
        // The sign bit prints the negative.
        assert_eq!(
            added("@P0 ALD.P R0, a[R0+-0x400], ???0 ;"),
            Some(Effect::Added {
                atom: 1,
                part: 2,
                bit: 10
            })
        );
        // Not a single bit; two atoms changed; a part that replaced another.
        assert_eq!(added("@P0 ALD.P R0, a[R0+0x3], ???0 ;"), None);
        assert_eq!(added("@P0 ALD.P R1, a[R0+0x8], ???0 ;"), None);
        assert_eq!(added("@P0 ALD.P R0, a[R1+0x8], ???0 ;"), None);
    }

    #[test]
    fn a_part_that_appears_inside_brackets_is_read_as_its_value_bit() {
        let l = |t| Line::parse(t).unwrap();
        // nvdisasm 13.5.37, SM80 ATOMS_R_UR (synthesised): bits 24-31 fixed at 255 (RZ, left
        // out), bits 40-63 at 0 (left out).
        let a = l("@P0 ATOMS.ARRIVE.???0 R0, [UR0] ;");
        let added = |t| operand_effect(&a, &l(t));
        let part = |part, bit| Some(Effect::Added { atom: 1, part, bit });
        assert_eq!(added("@P0 ATOMS.ARRIVE.???0 R0, [R254+UR0] ;"), part(0, 0));
        assert_eq!(added("@P0 ATOMS.ARRIVE.???0 R0, [R127+UR0] ;"), part(0, 7));
        assert_eq!(added("@P0 ATOMS.ARRIVE.???0 R0, [UR0+0x1] ;"), part(1, 0));
        assert_eq!(
            added("@P0 ATOMS.ARRIVE.???0 R0, [UR0+-0x800000] ;"),
            part(1, 23)
        );
        // The zero register with a scale, a register two bits from it, a second operand
        // changed too.
        assert_eq!(added("@P0 ATOMS.ARRIVE.???0 R0, [RZ.X4+UR0] ;"), None);
        assert_eq!(added("@P0 ATOMS.ARRIVE.???0 R0, [R252+UR0] ;"), None);
        assert_eq!(added("@P0 ATOMS.ARRIVE.???0 R1, [R254+UR0] ;"), None);
    }

    #[test]
    fn a_register_one_bit_from_its_zero_register_names_that_bit() {
        // RZ (8 bits), URZ on SM80 (6 bits), PT (3 bits), each with one bit cleared.
        assert_eq!(zero_register_bit(254), Some(0));
        assert_eq!(zero_register_bit(127), Some(7));
        assert_eq!(zero_register_bit(62), Some(0));
        assert_eq!(zero_register_bit(31), Some(5));
        assert_eq!(zero_register_bit(6), Some(0));
        // Two bits cleared; the zero register itself.
        assert_eq!(zero_register_bit(252), None);
        assert_eq!(zero_register_bit(255), None);
    }

    #[test]
    fn an_immediate_left_out_is_read_as_its_only_set_bit() {
        let l = |t| Line::parse(t).unwrap();
        // nvdisasm 13.5.37, nv_isa_solver's SM103 BAR page, `BAR_I_I`: bit 53 (the count's
        // bit 11) fixed at 1; flipped, the count is 0 and left out.
        let a = l("@P0 BAR.SYNC 0x0, 0x800 ;");
        let dropped = |t| operand_effect(&a, &l(t));
        assert_eq!(
            dropped("@P0 BAR.SYNC 0x0 ;"),
            Some(Effect::Operand { atom: 1, bit: 11 })
        );
        // An immediate of more than one set bit; a register; two atoms fewer.
        assert_eq!(
            operand_effect(&l("@P0 BAR.SYNC 0x0, 0x801 ;"), &l("@P0 BAR.SYNC 0x0 ;")),
            None
        );
        assert_eq!(
            operand_effect(&l("@P0 BAR.SYNC R0, R2 ;"), &l("@P0 BAR.SYNC R0 ;")),
            None
        );
        assert_eq!(dropped("@P0 BAR.SYNC ;"), None);
        // A part left out inside a bracket is no operand left out.
        assert_eq!(
            operand_effect(&l("@P0 CCTL.IV [R0+0x1] ;"), &l("@P0 CCTL.IV [R0] ;")),
            None
        );
        // The atom index counts the atoms of the operands before.
        assert_eq!(
            operand_effect(&l("@P0 BAR.X [R1+0x4], 0x20 ;"), &l("@P0 BAR.X [R1+0x4] ;")),
            Some(Effect::Operand { atom: 2, bit: 5 })
        );
        // The first of two left out, the rest in place.
        assert_eq!(
            operand_effect(&l("@P0 BAR.SYNC 0x4, 0x800 ;"), &l("@P0 BAR.SYNC 0x800 ;")),
            Some(Effect::Operand { atom: 0, bit: 2 })
        );
    }
}
