//! Form bits: bits a table fixes that nvdisasm refuses alone but reads together with another
//! bit, so they choose an operand form rather than the instruction. SM80 LD bit 76 is one:
//! flipped alone on a `[R+UR]` form's fixed word nvdisasm answers "Unrecognized operation for
//! functional unit 'uC'"; with bit 90 (`.64`) set too it prints `[R0.64]` (no uniform register),
//! and with bit 101 as well `desc[UR0][R0.64]`. ptxas sets bit 76 in every `LD` it emits.
//!
//! The designed experiment, per variant whose fixed word nvdisasm accepts (the words are in
//! `oracle/forms/<ARCH>-<MNEMONIC>.tsv`, see [`experiment_words`]):
//! 1. each bit flipped alone (as in the sweeps);
//! 2. for each fixed bit `b` refused alone for a reason other than a constraint-table lookup
//!    (`... undefined value 0x10 for table 'TABLES_opex_0'` is the opex index, learned in
//!    [`crate::reading::legality`]): `b` with every other bit `c` flipped too;
//! 3. for the first such `c` that makes the word legal with the same mnemonic (the partner),
//!    every other bit flipped around `fixed ^ b ^ c`: a bit outside every field, that changes
//!    nothing around the fixed word but changes the text here, is a context bit of the form
//!    (bit 101: `desc[...]`).
//!
//! The reading view then leaves form and context bits free ([`unfix`]), so the combination
//! words vary them and the legality tree and the operand names learn them
//! ([`crate::reading::operands`] tries them as context bits).

use super::flips::Answers;
use crate::arch::Arch;
use crate::oracle::Answer;
use crate::oracle::text::Line;
use crate::spec::{Table, Variant};
use serde::{Deserialize, Serialize};

/// Folder under the oracle root that holds the form experiments.
pub const FORMS_DIR: &str = "forms";

/// Path of a table's form experiment file, relative to the oracle root: `forms/SM80-LD.tsv`.
pub fn forms_file(arch: Arch, mnemonic: &str) -> String {
    format!("{FORMS_DIR}/{arch}-{mnemonic}.tsv")
}

/// A form bit of one variant, learned from the experiment's answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Form {
    /// The bit the table fixes (SM80 LD: 76).
    pub bit: u8,
    /// The first bit that, flipped with it, makes the word legal (SM80 LD: 90).
    pub partner: u8,
    /// Bits outside every field that nvdisasm ignores around the fixed word but not around
    /// `fixed ^ bit ^ partner` (SM80 LD: 101, `desc[...]`).
    pub context: Vec<u8>,
    /// The partner is a bit the table fixes too, and flipping it with `bit` changes only the
    /// modifiers, in a word no other variant of the table matches: both bits are a modifier
    /// the table holds at one value, and both are left free ([`find_forms`]). nv_isa_solver's
    /// SM103 ULEA page fixes bits 73 and 80 to 1 (`.HI.SX32`); 80 alone is refused, both
    /// flipped print plain `ULEA`, which ptxas writes. (SM80 LD's partner 90 is a field.)
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub free_partner: bool,
}

/// Whether an illegal reason is a constraint-table lookup (the opex index), which
/// [`crate::reading::legality`] learns; such bits are not form candidates.
fn table_reason(reason: &str) -> bool {
    reason.contains("for table '")
}

/// The mnemonic of an accepted text.
fn mnemonic(t: &str) -> Option<&str> {
    Line::parse(t).map(|l| l.mnemonic)
}

/// The bits of `v` outside its opcode bits ([`Variant::opcode_mask`]), ascending.
fn outside_opcode(v: &Variant) -> impl Iterator<Item = u8> + '_ {
    let opcode = v.opcode_mask();
    (0..128u8).filter(move |&b| opcode >> b & 1 == 0)
}

/// Fixed bits of `v` outside its opcode bits.
fn fixed_bits(v: &Variant) -> impl Iterator<Item = u8> + '_ {
    outside_opcode(v).filter(move |&b| v.fixed_mask >> b & 1 == 1)
}

/// Candidates: fixed bits whose lone flip nvdisasm refuses for a reason other than a
/// constraint-table lookup (what is known so far).
fn candidates(v: &Variant, arch: Arch, known: &Answers) -> Vec<u8> {
    fixed_bits(v)
        .filter(|&b| {
            matches!(known.get(arch, v.fixed_value ^ 1 << b),
                Some(Answer::Illegal(r)) if !table_reason(r))
        })
        .collect()
}

/// The accepted text of the fixed word, if nvdisasm accepts it.
fn base_text<'a>(v: &Variant, arch: Arch, known: &Answers<'a>) -> Option<&'a str> {
    match known.get(arch, v.fixed_value)? {
        Answer::Text(t) => Some(t),
        Answer::Illegal(_) => None,
    }
}

/// The first partner of candidate `b`: the lowest bit `c` with `fixed ^ b ^ c` legal and the
/// same mnemonic as the fixed word.
fn partner(v: &Variant, arch: Arch, b: u8, base: &str, known: &Answers) -> Option<u8> {
    let m = mnemonic(base)?;
    outside_opcode(v).filter(|&c| c != b).find(|&c| {
        matches!(known.get(arch, v.fixed_value ^ 1 << b ^ 1 << c),
            Some(Answer::Text(t)) if mnemonic(t) == Some(m))
    })
}

/// The words of the experiment for variant `v` that what is `known` so far calls for (see the
/// module doc; the caller asks nvdisasm about those it lacks and calls again until no new word
/// comes). The fixed word itself is included.
pub fn experiment_words(v: &Variant, arch: Arch, known: &Answers) -> Vec<u128> {
    let fixed = v.fixed_value;
    let mut out = vec![fixed];
    out.extend((0..128u8).map(|b| fixed ^ 1 << b));
    let Some(base) = base_text(v, arch, known) else {
        return out;
    };
    for b in candidates(v, arch, known) {
        out.extend(
            outside_opcode(v)
                .filter(|&c| c != b)
                .map(|c| fixed ^ 1 << b ^ 1 << c),
        );
        if let Some(c) = partner(v, arch, b, base, known) {
            let base2 = fixed ^ 1 << b ^ 1 << c;
            out.extend(
                outside_opcode(v)
                    .filter(|&d| d != b && d != c)
                    .map(|d| base2 ^ 1 << d),
            );
        }
    }
    out
}

/// The form bits of variant `v` (see [`Form`]) from the recorded answers; empty when the
/// fixed word or the experiment was not recorded.
pub fn forms_of(v: &Variant, arch: Arch, known: &Answers) -> Vec<Form> {
    let Some(base) = base_text(v, arch, known) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for b in candidates(v, arch, known) {
        let Some(c) = partner(v, arch, b, base, known) else {
            continue;
        };
        let base2 = v.fixed_value ^ 1 << b ^ 1 << c;
        let Some(Answer::Text(t2)) = known.get(arch, base2) else {
            continue;
        };
        let described = v.fields.iter().fold(0u128, |m, f| m | f.mask());
        let context = outside_opcode(v)
            .filter(|&d| d != b && d != c)
            .filter(|&d| described >> d & 1 == 0)
            .filter(|&d| {
                matches!(known.get(arch, v.fixed_value ^ 1 << d), Some(Answer::Text(t)) if t == base)
            })
            .filter(|&d| {
                matches!(known.get(arch, base2 ^ 1 << d), Some(Answer::Text(t)) if t != t2)
            })
            .collect();
        out.push(Form {
            bit: b,
            partner: c,
            context,
            free_partner: false,
        });
    }
    out
}

/// `v` as the experiment sees it: itself, or, when nvdisasm refuses its fixed word, a copy
/// whose fixed word is the legal word it is read around ([`super::flips::rebase_centre`]:
/// nv_isa_solver's SM103 BPT page is read around its quiet word), so the form bits of a
/// variant whose zero fields are refused are found around that word.
pub fn centred<'v>(
    v: &'v Variant,
    mnemonic: &str,
    arch: Arch,
    known: &Answers,
) -> std::borrow::Cow<'v, Variant> {
    match super::flips::rebase_centre(v, mnemonic, arch, known) {
        Some((c, _)) => {
            let mut centred = v.clone();
            centred.fixed_value = c;
            std::borrow::Cow::Owned(centred)
        }
        None => std::borrow::Cow::Borrowed(v),
    }
}

/// Form bits of every variant of `tables` (the resolved layouts), indexed like the tables,
/// each with [`Form::free_partner`] decided against the table's other variants.
pub fn find_forms(tables: &[Table], known: &Answers) -> Vec<Vec<Vec<Form>>> {
    tables
        .iter()
        .map(|t| {
            t.variants
                .iter()
                .enumerate()
                .map(|(vi, v)| match t.arch {
                    Some(arch) => {
                        let v = centred(v, &t.mnemonic, arch, known);
                        let mut forms = forms_of(&v, arch, known);
                        for f in &mut forms {
                            f.free_partner = partner_is_modifier(t, vi, &v, f, arch, known);
                        }
                        forms
                    }
                    None => Vec::new(),
                })
                .collect()
        })
        .collect()
}

/// Whether form `f` of variant `vi` of `t` (`v`: that variant as the experiment sees it,
/// [`centred`]) frees its partner too ([`Form::free_partner`]): the partner is fixed in the
/// variant, nvdisasm's text for the fixed word and for it with both bits flipped have the same
/// guard and operands and other modifiers, and no other variant's fixed bits match that word.
fn partner_is_modifier(
    t: &Table,
    vi: usize,
    v: &Variant,
    f: &Form,
    arch: Arch,
    known: &Answers,
) -> bool {
    if v.fixed_mask >> f.partner & 1 == 0 {
        return false;
    }
    let both = v.fixed_value ^ 1 << f.bit ^ 1 << f.partner;
    let (Some(base), Some(Answer::Text(t2))) = (base_text(v, arch, known), known.get(arch, both))
    else {
        return false;
    };
    let (Some(a), Some(b)) = (Line::parse(base), Line::parse(t2)) else {
        return false;
    };
    let only_modifiers = a.mnemonic == b.mnemonic
        && a.guard == b.guard
        && a.operands == b.operands
        && a.mods != b.mods;
    let taken = t
        .variants
        .iter()
        .enumerate()
        .any(|(ui, u)| ui != vi && both & u.fixed_mask == u.fixed_value & u.fixed_mask);
    only_modifiers && !taken
}

/// The layouts with every form bit no longer fixed (it becomes undescribed: the legality
/// tree and the operand names read it), and its partner where [`Form::free_partner`].
/// Context bits are undescribed already.
pub fn unfix(mut tables: Vec<Table>, forms: &[Vec<Vec<Form>>]) -> Vec<Table> {
    for (t, tf) in tables.iter_mut().zip(forms) {
        for (v, vf) in t.variants.iter_mut().zip(tf) {
            for f in vf {
                let m = 1u128 << f.bit | (f.free_partner as u128) << f.partner;
                v.fixed_mask &= !m;
                v.fixed_value &= !m;
                v.undescribed |= m;
            }
        }
    }
    tables
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::Entry;

    /// The synthesised SM80 ALD table (bits 40-63 of `ALD_R_A_R_N` fixed) and that variant.
    use crate::reading::resolved::tests::ald_table as ald;

    fn entry(word: u128, answer: Answer) -> Entry {
        Entry {
            arch: Arch(80),
            word,
            answer,
        }
    }

    /// Bit 61 refused alone, read with bit 60 (fixed too) as the same operands without `.P`:
    /// both bits are a modifier the table holds at one value, and both are left free. With
    /// another operand printed the partner stays fixed.
    #[test]
    fn a_fixed_partner_that_only_changes_modifiers_is_left_free() {
        let (t, vi) = ald();
        let fixed = t.variants[vi].fixed_value;
        assert_eq!(
            t.variants[vi].fixed_mask >> 60 & 3,
            3,
            "the table fixes bits 60-61"
        );
        let both = fixed ^ 1 << 60 ^ 1 << 61;
        let base = entry(fixed, Answer::Text("@P0 ALD.P R0, a[R0], ???0 ;".into()));
        let alone = entry(
            fixed ^ 1 << 61,
            Answer::Illegal("Unrecognized operation".into()),
        );
        let taken = t
            .variants
            .iter()
            .enumerate()
            .any(|(ui, u)| ui != vi && both & u.fixed_mask == u.fixed_value & u.fixed_mask);
        assert!(
            !taken,
            "no other ALD variant matches the word with both bits flipped"
        );
        let read = |text: &str| {
            let entries = vec![
                base.clone(),
                alone.clone(),
                entry(both, Answer::Text(text.into())),
            ];
            let forms = find_forms(std::slice::from_ref(&t), &Answers::new(&entries));
            assert_eq!(forms[0][vi].len(), 1, "one form bit");
            let f = forms[0][vi][0].clone();
            (
                f,
                unfix(vec![t.clone()], &forms).remove(0).variants.remove(vi),
            )
        };
        let (f, v) = read("@P0 ALD R0, a[R0], ???0 ;");
        assert_eq!((f.bit, f.partner, f.free_partner), (61, 60, true));
        assert_eq!(v.fixed_mask >> 60 & 3, 0, "bits 60 and 61 are free");
        assert_eq!(v.undescribed >> 60 & 3, 3);
        let (f, v) = read("@P0 ALD R0, a[R0+0x1], ???0 ;");
        assert_eq!((f.bit, f.partner, f.free_partner), (61, 60, false));
        assert_eq!(v.fixed_mask >> 60 & 3, 1, "bit 61 free, bit 60 stays fixed");
    }
}
