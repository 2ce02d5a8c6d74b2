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

    /// Reads up to `wanted` values as `arbitrary` 1.x reads a `Vec<u64>`: while a byte is
    /// left and its low bit is set (the continue flag), the next 8 bytes are a value,
    /// little-endian, zero-filled past the end of the data. Written out rather than through
    /// `arbitrary::Unstructured` (the same bytes and values): the fuzz target runs this for
    /// every input, and each branch of the general reader is code coverage and comparisons
    /// libFuzzer traces.
    fn read_values(&mut self, data: &[u8], wanted: usize) {
        let mut rest = data;
        let mut n = 0;
        while n < wanted {
            let Some((&flag, after)) = rest.split_first() else {
                break;
            };
            if flag & 1 == 0 {
                break;
            }
            let take = after.len().min(8);
            let mut buf = [0u8; 8];
            buf[..take].copy_from_slice(&after[..take]);
            self.values[n] = u64::from_le_bytes(buf);
            rest = &after[take..];
            n += 1;
        }
        self.n_values = n;
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

/// What [`run_case`] gives: the two round trips, or how one broke.
pub type CaseResult = Result<(RoundTrip, RoundTrip), RoundTripError>;

/// One run of the `roundtrip` fuzz target on its input bytes: reads the case
/// ([`FuzzCase::from_bytes`]; `None` when the bytes are too short), runs both properties
/// ([`run_case_observed`]) and, given a coverage map, calls `hit` with every table feature of
/// the decoded word and of the case's variant and values
/// ([`super::coverage::CoverageMap::for_each_feature`]).
///
/// Not generic, and kept out of line, so that all of it is compiled in this crate: the fuzz
/// target builds this crate without sanitizer-coverage instrumentation (fuzz/README.md,
/// issue 23), and only the target's own small feature callback, `hit`, is instrumented. A
/// generic function would be compiled, and instrumented, in the fuzz target's crate.
#[inline(never)]
pub fn run_fuzz_input(
    codec: &Codec,
    map: Option<&super::coverage::CoverageMap>,
    data: &[u8],
    hit: &mut dyn FnMut(usize),
) -> Option<(FuzzCase, CaseResult)> {
    let case = FuzzCase::from_bytes(codec, data)?;
    let result = run_case_observed(codec, &case, |id, values| {
        if let Some(map) = map {
            map.for_each_feature(id, values, &mut *hit);
        }
    });
    Some((case, result))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The values `arbitrary` reads from `data` as a `Vec<u64>`, at most `wanted`.
    fn arbitrary_values(data: &[u8], wanted: usize) -> Vec<u64> {
        let mut u = arbitrary::Unstructured::new(data);
        u.arbitrary_iter::<u64>()
            .unwrap()
            .take(wanted)
            .map(|v| v.unwrap())
            .collect()
    }

    #[test]
    fn values_are_read_as_arbitrary_reads_them() {
        let mut rng = super::super::SplitMix64(3);
        for k in 0..20_000 {
            let len = k % 64;
            let data: Vec<u8> = (0..len)
                .map(|_| {
                    let b = rng.next_u64() as u8;
                    // Mostly continue flags, so that long runs of values are read.
                    if rng.next_u64().is_multiple_of(4) {
                        b
                    } else {
                        b | 1
                    }
                })
                .collect();
            let wanted = k % (MAX_FIELDS + 1);
            let mut case = FuzzCase {
                arch: Arch(90),
                word: Word(0),
                variant: VariantId::default(),
                values: [0; MAX_FIELDS],
                n_values: 0,
            };
            case.read_values(&data, wanted);
            assert_eq!(case.values(), arbitrary_values(&data, wanted), "{data:?}");
        }
    }
}
