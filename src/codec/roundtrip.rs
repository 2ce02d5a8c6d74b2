//! The round-trip properties shared by `cargo test` and the `roundtrip` fuzz target.

use super::{Codec, CodecError, Decoded, EncodeOptions, MAX_FIELDS, VariantId, Word, bit_list};
use crate::arch::Arch;

/// What a successful round trip found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RoundTrip {
    /// No variant of the arch matches the word (nothing to round-trip).
    NoVariant,
    /// Same bits / same variant and values.
    Exact,
    /// The encoded word also matches other variants: a table overlap, not a codec bug.
    Overlap {
        /// The variant that was encoded.
        encoded: VariantId,
        /// The variant decode picked first.
        decoded: VariantId,
    },
}

/// A broken round-trip property: a codec bug (or a table the codec cannot represent).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RoundTripError {
    /// decode -> encode changed described bits.
    #[error("{arch} word {word}: decode -> encode as {key} gives {back}; bits {bits:?} differ")]
    Bits {
        /// Arch.
        arch: Arch,
        /// Input word.
        word: Word,
        /// Variant key.
        key: String,
        /// Re-encoded word.
        back: Word,
        /// Described bits that differ.
        bits: Vec<u8>,
    },
    /// encode -> decode lost the variant or changed a value.
    #[error("{key}: encode -> decode gives {message}")]
    Values {
        /// Variant key.
        key: String,
        /// What differs.
        message: String,
    },
    /// The codec refused its own decoded values.
    #[error("{0}")]
    Codec(#[from] CodecError),
}

/// Property (a): decode `word`, encode the values again; every described bit must come back
/// and no undescribed bit may be set.
pub fn word_roundtrip(codec: &Codec, arch: Arch, word: Word) -> Result<RoundTrip, RoundTripError> {
    decoded_roundtrip(codec, arch, word, codec.decode(arch, word).as_ref())
}

/// [`word_roundtrip`] of a word already decoded: `d` is `codec.decode(arch, word)`.
pub fn decoded_roundtrip(
    codec: &Codec,
    arch: Arch,
    word: Word,
    d: Option<&Decoded>,
) -> Result<RoundTrip, RoundTripError> {
    let Some(d) = d else {
        return Ok(RoundTrip::NoVariant);
    };
    let back = codec.encode(
        d.id,
        d.values(),
        EncodeOptions {
            allow_invalid: true,
        },
    )?;
    let differ =
        ((back.0 ^ word.0) & codec.described_mask(d.id)) | (back.0 & codec.undescribed_mask(d.id));
    if differ != 0 {
        return Err(RoundTripError::Bits {
            arch,
            word,
            key: codec.variant(d.id).key.clone(),
            back,
            bits: bit_list(differ),
        });
    }
    Ok(RoundTrip::Exact)
}

/// Property (b): encode variant `id` with `values` (each masked to its field's width), decode;
/// the variant and every value must come back, or the word must also match `id` (an overlap).
pub fn values_roundtrip(
    codec: &Codec,
    id: VariantId,
    values: &[u64],
) -> Result<RoundTrip, RoundTripError> {
    let mut scratch = Decoded::EMPTY;
    values_roundtrip_into(codec, id, values, &mut scratch)
}

/// [`values_roundtrip`], decoding the encoded word into `scratch` ([`Codec::decode_into`])
/// instead of a new [`Decoded`]: the fuzz target keeps one and reuses it on every run.
/// `scratch` may hold any earlier decode (or [`Decoded::EMPTY`]); the result is the same.
pub fn values_roundtrip_into(
    codec: &Codec,
    id: VariantId,
    values: &[u64],
    scratch: &mut Decoded,
) -> Result<RoundTrip, RoundTripError> {
    // On the stack: the fuzz target runs this for every input.
    let mut on_stack = [0u64; MAX_FIELDS];
    let mut on_heap = Vec::new();
    let masked: &mut [u64] = match codec.n_fields(id) {
        n if n <= MAX_FIELDS => &mut on_stack[..n],
        n => {
            on_heap.resize(n, 0);
            &mut on_heap
        }
    };
    for ((m, &width_mask), given) in masked
        .iter_mut()
        .zip(codec.field_masks(id))
        .zip(values.iter().chain(std::iter::repeat(&0)))
    {
        *m = given & width_mask;
    }
    let masked: &[u64] = masked;
    let w = codec.encode(
        id,
        masked,
        EncodeOptions {
            allow_invalid: true,
        },
    )?;
    let arch = codec.arch_of(id);
    let err = |message: String| RoundTripError::Values {
        key: codec.variant(id).key.clone(),
        message,
    };
    if !codec.decode_into(arch, w, scratch) {
        return Err(err(format!("no variant for {w}")));
    }
    let d: &Decoded = scratch;
    if d.id != id {
        let (fixed_mask, fixed_value) = codec.fixed_bits(id);
        return if w.0 & fixed_mask == fixed_value {
            Ok(RoundTrip::Overlap {
                encoded: id,
                decoded: d.id,
            })
        } else {
            Err(err(format!(
                "{w} decodes as {} and not as itself",
                codec.variant(d.id).key
            )))
        };
    }
    if d.values() != masked {
        return Err(err(format!("values {:?}, encoded {masked:?}", d.values())));
    }
    Ok(RoundTrip::Exact)
}
