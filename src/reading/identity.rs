//! Identity bits: the fixed bits of a variant whose lone flip nvdisasm reads as another
//! instruction, learned from the sweeps (the fixed word with each bit flipped alone).
//!
//! A word that matches no variant gets a reserved-bit verdict naming its nearest variant
//! ([`crate::codec::Codec::verdict_of`]); a word that differs from that variant in an identity
//! bit is another instruction, not that variant with a reserved bit set. SM120 FHADD
//! (synthesised, nvdisasm 13.5.37): its fixed word with bit 81 cleared reads `FADD`, and ptxas
//! emits 1,149 such words.

use super::flips::{Answers, base_mnemonic, flip_mnemonic};
use crate::spec::{Table, Variant};

/// The fixed bits of `v` whose lone flip on its fixed word nvdisasm prints with another
/// mnemonic (bit 0 = least significant); 0 when the fixed word is refused or not recorded.
pub fn identity_bits(v: &Variant, arch: crate::arch::Arch, known: &Answers) -> u128 {
    let Some(m0) = base_mnemonic(v, arch, known) else {
        return 0;
    };
    (0..128u8)
        .filter(|&b| v.fixed_mask >> b & 1 == 1)
        .filter(|&b| {
            flip_mnemonic(v, arch, known, b)
                .flatten()
                .is_some_and(|m| m != m0)
        })
        .fold(0, |m, b| m | 1 << b)
}

/// Writes [`identity_bits`] into each variant's `identity`.
pub fn learn_identities(mut tables: Vec<Table>, known: &Answers) -> Vec<Table> {
    for t in &mut tables {
        let Some(arch) = t.arch else { continue };
        for v in &mut t.variants {
            v.identity = identity_bits(v, arch, known);
        }
    }
    tables
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::Arch;
    use crate::oracle::{Answer, Entry};

    #[test]
    fn a_fixed_bit_whose_flip_reads_another_mnemonic_is_an_identity_bit() {
        let text = include_str!("../../specs/sm90/TMML.txt");
        let v = crate::spec::parse_table("TMML.txt", text).unwrap().variants[0].clone();
        let arch = Arch(90);
        let entry = |word: u128, t: &str| Entry {
            arch,
            word,
            answer: Answer::Text(t.into()),
        };
        let fixed: Vec<u8> = (0..128u8).filter(|&b| v.fixed_mask >> b & 1 == 1).collect();
        let (a, b, c) = (fixed[0], fixed[1], fixed[2]);
        let es = vec![
            entry(v.fixed_value, "@P0 TMML.LOD R0, R0, R0, R0, 1D, 0x0 ;"),
            entry(v.fixed_value ^ 1 << a, "@P0 TEX R0, R0 ;"),
            entry(
                v.fixed_value ^ 1 << b,
                "@P0 TMML.LOD R0, R0, R0, R0, 2D, 0x0 ;",
            ),
            Entry {
                arch,
                word: v.fixed_value ^ 1 << c,
                answer: Answer::Illegal("Unrecognized operation".into()),
            },
        ];
        assert_eq!(identity_bits(&v, arch, &Answers::new(&es)), 1 << a);
        assert_eq!(identity_bits(&v, arch, &Answers::new(&es[1..])), 0);
    }
}
