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
        });
    }
    out
}

/// Form bits of every variant of `tables` (the resolved layouts), indexed like the tables.
pub fn find_forms(tables: &[Table], known: &Answers) -> Vec<Vec<Vec<Form>>> {
    tables
        .iter()
        .map(|t| {
            t.variants
                .iter()
                .map(|v| match t.arch {
                    Some(arch) => forms_of(v, arch, known),
                    None => Vec::new(),
                })
                .collect()
        })
        .collect()
}

/// The layouts with every form bit no longer fixed (it becomes undescribed: the legality
/// tree and the operand names read it). Context bits are undescribed already.
pub fn unfix(mut tables: Vec<Table>, forms: &[Vec<Vec<Form>>]) -> Vec<Table> {
    for (t, tf) in tables.iter_mut().zip(forms) {
        for (v, vf) in t.variants.iter_mut().zip(tf) {
            for f in vf {
                let m = 1u128 << f.bit;
                v.fixed_mask &= !m;
                v.fixed_value &= !m;
                v.undescribed |= m;
            }
        }
    }
    tables
}
