//! The fuzz input of the `roundtrip` target, shared with `cargo test` (which replays every
//! file of corpus/roundtrip through [`run_case`]).
//!
//! Byte layout of an input (the seeds in corpus/roundtrip are written this way):
//! `[mode: u8][word: 16 bytes, little-endian][variant: u16 LE][values: the rest]`.
//! `mode & 0x7f` picks the arch (modulo the number of archs); with `mode & 0x80` the word's
//! fixed bits are replaced by those of the chosen variant (so property (a) sees matching words);
//! `values` are read as `arbitrary` reads a `Vec<u64>` (a continue flag byte, then 8 bytes per
//! value), one per field; reading stops after the variant's last field (later values would
//! go unused).
//!
//! Reading a case allocates nothing: the target runs this for every input.

use super::{
    Codec, MAX_FIELDS, RoundTrip, RoundTripError, VariantId, Word, decoded_roundtrip,
    values_roundtrip,
};
use crate::arch::Arch;

/// One decoded fuzz input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FuzzCase {
    /// Arch for property (a).
    pub arch: Arch,
    /// Word for property (a).
    pub word: Word,
    /// Variant for property (b).
    pub variant: VariantId,
    /// Field values for property (b) in `values[..n_values]`, field order (masked to each
    /// field's width when used; fields past `n_values` get 0).
    pub values: [u64; MAX_FIELDS],
    /// Number of values read (at most the variant's field count).
    pub n_values: usize,
}

impl FuzzCase {
    /// Reads a case from fuzz bytes; `None` when shorter than the 19-byte header.
    pub fn from_bytes(codec: &Codec, data: &[u8]) -> Option<FuzzCase> {
        if data.len() < 19 {
            return None;
        }
        let archs = codec.arch_list();
        let ids = codec.id_list();
        if archs.is_empty() || ids.is_empty() {
            return None;
        }
        let mode = data[0];
        let word = u128::from_le_bytes(data[1..17].try_into().ok()?);
        let vsel = u16::from_le_bytes([data[17], data[18]]) as usize;
        let variant = ids[vsel % ids.len()];
        let mut arch = archs[(mode & 0x7f) as usize % archs.len()];
        let mut word = Word(word);
        if mode & 0x80 != 0 {
            let v = codec.variant(variant);
            word = Word((word.0 & !v.fixed_mask) | v.fixed_value);
            arch = codec.table(variant).arch.unwrap_or(arch);
        }
        let mut case = FuzzCase {
            arch,
            word,
            variant,
            values: [0; MAX_FIELDS],
            n_values: 0,
        };
        let wanted = codec.field_masks(variant).len().min(MAX_FIELDS);
        case.read_values(&data[19..], wanted);
        Some(case)
    }

    /// Reads up to `wanted` values as `arbitrary` reads a `Vec<u64>`.
    fn read_values(&mut self, data: &[u8], wanted: usize) {
        let mut u = arbitrary::Unstructured::new(data);
        let Ok(values) = u.arbitrary_iter::<u64>() else {
            return;
        };
        for (slot, value) in self.values[..wanted].iter_mut().zip(values) {
            let Ok(value) = value else {
                // `Vec<u64>` would be an error, read as no values.
                self.n_values = 0;
                return;
            };
            *slot = value;
            self.n_values += 1;
        }
    }

    /// The values read, field order.
    pub fn values(&self) -> &[u64] {
        &self.values[..self.n_values]
    }

    /// The bytes that [`FuzzCase::from_bytes`] reads back as a case with this word, with the
    /// variant's fixed bits forced (mode 0x80) and no values.
    pub fn seed_bytes(codec: &Codec, variant: VariantId, word: Word) -> Vec<u8> {
        let pos = codec.ids().position(|i| i == variant).unwrap_or(0) as u16;
        let mut out = vec![0x80];
        out.extend_from_slice(&word.0.to_le_bytes());
        out.extend_from_slice(&pos.to_le_bytes());
        out
    }
}

/// Runs both round-trip properties on a case.
pub fn run_case(codec: &Codec, case: &FuzzCase) -> Result<(RoundTrip, RoundTrip), RoundTripError> {
    run_case_observed(codec, case, |_, _| {})
}

/// [`run_case`], calling `observe` with the (variant, field values) of the decoded word (when
/// a variant matches) and then with the case's variant and values: what the table coverage
/// counts ([`super::coverage::CoverageMap::for_each_feature`]). The word is decoded once for
/// both.
pub fn run_case_observed(
    codec: &Codec,
    case: &FuzzCase,
    mut observe: impl FnMut(VariantId, &[u64]),
) -> Result<(RoundTrip, RoundTrip), RoundTripError> {
    let d = codec.decode(case.arch, case.word);
    if let Some(d) = &d {
        observe(d.id, d.values());
    }
    observe(case.variant, case.values());
    let a = decoded_roundtrip(codec, case.arch, case.word, d.as_ref())?;
    let b = values_roundtrip(codec, case.variant, case.values())?;
    Ok((a, b))
}
