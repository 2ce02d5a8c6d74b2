//! Codec layer: words <-> variants and field values, built at run time from parsed tables.

mod check;
pub mod coverage;
mod fuzz;
mod index;
mod layout;
mod roundtrip;
mod sweep;
mod word;

pub use check::Verdict;
pub use fuzz::{FuzzCase, FuzzFailure, FuzzRunner, put_flags_first, run_case, run_case_observed};
pub use roundtrip::{
    RoundTrip, RoundTripError, decoded_roundtrip, values_roundtrip, values_roundtrip_into,
    word_roundtrip,
};
pub use sweep::{SplitMix64, sweep_words, swept_values};
pub use word::{Word, bit_list};

use crate::arch::Arch;
use crate::spec::{Field, ModifierName, Table, Variant};
use index::{Candidate, Index};
use layout::Layouts;
use std::collections::BTreeMap;

/// Errors of the codec layer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodecError {
    /// A value wider than its field.
    #[error("value {value} does not fit field `{field}` ({width} bits)")]
    OutOfRange {
        /// Field label (or bit range).
        field: String,
        /// Field width in bits.
        width: u32,
        /// The refused value.
        value: u64,
    },
    /// A modifier value the table marks `INVALIDn`, refused unless invalid values are allowed.
    #[error(
        "value {value:#b} of `{field}` is {name} in the table; pass --allow-invalid to encode it"
    )]
    InvalidModifier {
        /// Field label.
        field: String,
        /// The value.
        value: u64,
        /// The table's name (`INVALID6`).
        name: String,
    },
    /// The number of values differs from the number of fields.
    #[error("variant {key} has {fields} fields, {given} values given")]
    ValueCount {
        /// Variant key.
        key: String,
        /// Field count.
        fields: usize,
        /// Values given.
        given: usize,
    },
    /// No variant has this key.
    #[error("no variant with key `{0}`")]
    UnknownKey(String),
    /// `LABEL=VALUE` names no field, or the value is neither a number nor a modifier name.
    #[error("variant {key}: {message}")]
    BadAssignment {
        /// Variant key.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// A table with no arch (no header line, no manifest entry, no --arch).
    #[error("{0}: table has no arch; give --arch or add it to specs/ARCH_MANIFEST.tsv")]
    NoArch(String),
    /// No table for this arch.
    #[error("no table is loaded for {0}")]
    NoTables(Arch),
}

/// Identifies a variant inside a [`Codec`]: (table index, variant index).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VariantId {
    /// Index into [`Codec::tables`].
    pub table: u16,
    /// Index into that table's variants.
    pub variant: u16,
}

pub use crate::spec::MAX_FIELDS;
/// Most further matching variants a decode records.
pub const MAX_OTHERS: usize = 16;

/// A decoded word: the matching variant and every field's value, without heap allocation.
#[derive(Debug, Clone, Copy)]
pub struct Decoded {
    /// The word.
    pub word: Word,
    /// The first matching variant (table order).
    pub id: VariantId,
    /// Field values in the variant's field order (`values[..n_fields]`).
    pub values: [u64; MAX_FIELDS],
    /// Number of fields.
    pub n_fields: usize,
    /// Bits set in the word that the variant's table does not describe.
    pub undescribed_set: u128,
    /// Other variants whose fixed bits also match (a table ambiguity).
    pub others: [VariantId; MAX_OTHERS],
    /// Number of entries in `others`.
    pub n_others: usize,
    /// Number of variants that match in all (`n_others + 1` unless more than
    /// [`MAX_OTHERS`] others match).
    pub n_matches: usize,
}

impl Decoded {
    /// A decoded word of no variant and no field (all zero), to decode into
    /// ([`Codec::decode_into`]).
    pub const EMPTY: Decoded = Decoded {
        word: Word(0),
        id: VariantId {
            table: 0,
            variant: 0,
        },
        values: [0; MAX_FIELDS],
        n_fields: 0,
        undescribed_set: 0,
        others: [VariantId {
            table: 0,
            variant: 0,
        }; MAX_OTHERS],
        n_others: 0,
        n_matches: 0,
    };

    /// Field values as a slice.
    pub fn values(&self) -> &[u64] {
        &self.values[..self.n_fields]
    }
    /// Other matching variants.
    pub fn others(&self) -> &[VariantId] {
        &self.others[..self.n_others]
    }
}

/// Options for [`Codec::encode`].
#[derive(Debug, Clone, Copy, Default)]
pub struct EncodeOptions {
    /// Encode modifier values the table marks `INVALIDn`.
    pub allow_invalid: bool,
}

/// Tables plus what decoding needs, built once: a per-arch decode index and per-variant
/// field-reading plans.
#[derive(Debug)]
pub struct Codec {
    /// The tables, as loaded.
    pub tables: Vec<Table>,
    /// Per arch (ascending): the decode index of its variants.
    index: Vec<(Arch, Index)>,
    /// The archs of `index`, ascending.
    archs: Vec<Arch>,
    /// Every variant id, in table order.
    ids: Vec<VariantId>,
    /// Field-reading plans of every variant.
    layouts: Layouts,
    /// Per variant: what its verdict needs (layout class, modifier fields' bad values).
    verdicts: check::VerdictPlans,
    /// Per table: its arch (every table of a codec has one).
    table_archs: Vec<Arch>,
}

impl Codec {
    /// Builds the decode index of every table. Errors if a table has no arch.
    pub fn new(tables: Vec<Table>) -> Result<Codec, CodecError> {
        let mut by_arch: BTreeMap<Arch, Vec<Candidate>> = BTreeMap::new();
        let mut ids = Vec::new();
        let mut table_archs = Vec::with_capacity(tables.len());
        for (ti, t) in tables.iter().enumerate() {
            let arch = t.arch.ok_or_else(|| CodecError::NoArch(t.path.clone()))?;
            table_archs.push(arch);
            let list = by_arch.entry(arch).or_default();
            for (vi, v) in t.variants.iter().enumerate() {
                let id = VariantId {
                    table: ti as u16,
                    variant: vi as u16,
                };
                ids.push(id);
                list.push(Candidate {
                    id,
                    mask: v.fixed_mask,
                    value: v.fixed_value,
                });
            }
        }
        let index: Vec<(Arch, Index)> = by_arch
            .into_iter()
            .map(|(a, vs)| (a, Index::build(vs)))
            .collect();
        Ok(Codec {
            archs: index.iter().map(|(a, _)| *a).collect(),
            layouts: Layouts::build(&tables),
            verdicts: check::VerdictPlans::build(&tables),
            tables,
            index,
            ids,
            table_archs,
        })
    }

    /// The archs that have tables, ascending.
    pub fn archs(&self) -> Vec<Arch> {
        self.archs.clone()
    }

    /// The archs that have tables, ascending, without allocating.
    pub fn arch_list(&self) -> &[Arch] {
        &self.archs
    }

    /// The variant behind an id.
    pub fn variant(&self, id: VariantId) -> &Variant {
        &self.tables[id.table as usize].variants[id.variant as usize]
    }

    /// The table behind an id.
    pub fn table(&self, id: VariantId) -> &Table {
        &self.tables[id.table as usize]
    }

    /// Every variant id, in table order.
    pub fn ids(&self) -> impl Iterator<Item = VariantId> + '_ {
        self.ids.iter().copied()
    }

    /// Every variant id, in table order, as a slice.
    pub fn id_list(&self) -> &[VariantId] {
        &self.ids
    }

    /// Per field of variant `id` (field order): the values that fit it, as right-aligned ones
    /// (`width` ones; all ones for a 64-bit field).
    pub fn field_masks(&self, id: VariantId) -> &[u64] {
        self.layouts.field_masks(id)
    }

    /// Bits of variant `id` that its table describes: fixed bits and field bits (as
    /// [`Variant::described_mask`], precomputed).
    pub fn described_mask(&self, id: VariantId) -> u128 {
        self.layouts.described(id)
    }

    /// The arch of variant `id`'s table (every table of a codec has one).
    #[inline]
    pub fn arch_of(&self, id: VariantId) -> Arch {
        self.table_archs[id.table as usize]
    }

    /// The bits variant `id` fixes and their values (its [`Variant::fixed_mask`] and
    /// [`Variant::fixed_value`], kept beside the field plans).
    #[inline]
    pub fn fixed_bits(&self, id: VariantId) -> (u128, u128) {
        self.layouts.fixed(id)
    }

    /// Bits of variant `id` that no cell of its table describes ([`Variant::undescribed`]).
    #[inline]
    pub fn undescribed_mask(&self, id: VariantId) -> u128 {
        self.layouts.undescribed(id)
    }

    /// The number of fields of variant `id`.
    #[inline]
    pub fn n_fields(&self, id: VariantId) -> usize {
        self.layouts.n_fields(id)
    }

    /// The variant with this key (and arch, when given).
    pub fn find_key(&self, key: &str, arch: Option<Arch>) -> Option<VariantId> {
        self.ids().find(|&id| {
            self.variant(id).key == key && arch.is_none_or(|a| self.table(id).arch == Some(a))
        })
    }

    /// Decodes `word` on `arch`: the first variant (table order) whose fixed bits all match,
    /// with the others that also match. `None` when no variant matches.
    #[inline]
    pub fn decode(&self, arch: Arch, word: Word) -> Option<Decoded> {
        let idx = self.arch_index(arch)?;
        let mut found = [VariantId::default(); MAX_OTHERS + 1];
        let n = idx.matches(word.0, &mut found);
        if n == 0 {
            return None;
        }
        let kept = n.min(MAX_OTHERS + 1);
        // Unused slots hold the variant itself, as in `decode_as`.
        let id = found[0];
        for slot in &mut found[kept..] {
            *slot = id;
        }
        let mut others = [id; MAX_OTHERS];
        others.copy_from_slice(&found[1..]);
        self.decoded(id, word, others, kept - 1, n)
    }

    /// Decodes `word` on `arch` into `out`, as [`Codec::decode`] does, without building and
    /// moving a new [`Decoded`] (the bulk paths keep one and reuse it); false, leaving `out`
    /// unspecified, when no variant matches. Field values past the variant's are zero when
    /// they were zero in `out` past its previous `n_fields`.
    #[inline]
    pub fn decode_into(&self, arch: Arch, word: Word, out: &mut Decoded) -> bool {
        let Some(idx) = self.arch_index(arch) else {
            return false;
        };
        let mut found = [VariantId::default(); MAX_OTHERS + 1];
        let n = idx.matches(word.0, &mut found);
        if n == 0 {
            return false;
        }
        let kept = n.min(MAX_OTHERS + 1);
        let id = found[0];
        let n_fields = self.layouts.n_fields(id);
        if n_fields > MAX_FIELDS {
            return false;
        }
        // Unused slots hold the variant itself, as in `decode`.
        for slot in &mut found[kept..] {
            *slot = id;
        }
        out.others.copy_from_slice(&found[1..]);
        let used = out.n_fields.clamp(n_fields, MAX_FIELDS);
        out.values[..used].fill(0);
        out.word = word;
        out.id = id;
        out.n_fields = n_fields;
        out.undescribed_set = word.0 & self.layouts.undescribed(id);
        out.n_others = kept - 1;
        out.n_matches = n;
        self.layouts.read(id, word.0, &mut out.values);
        true
    }

    /// [`Codec::decode_into`] without the field reads: the matching variants, word and
    /// undescribed bits put in `out`, its field values and `n_fields` left as they were (read them with
    /// [`Codec::read_fields`] once the variant is final, e.g. after [`Codec::retarget`]).
    /// False, leaving `out` unspecified, when no variant matches.
    #[inline(always)]
    pub fn match_into(&self, arch: Arch, word: Word, out: &mut Decoded) -> bool {
        let Some(idx) = self.arch_index(arch) else {
            return false;
        };
        // The first match and the others written where they are kept.
        let mut id = VariantId::default();
        let others = &mut out.others;
        let n = idx.matches_with(word.0, |k, v| match k.checked_sub(1) {
            None => id = v,
            Some(k) => {
                if let Some(slot) = others.get_mut(k) {
                    *slot = v;
                }
            }
        });
        if n == 0 || self.layouts.n_fields(id) > MAX_FIELDS {
            return false;
        }
        let kept = n.min(MAX_OTHERS + 1);
        // Unused slots hold the variant itself, as in `decode`.
        for slot in &mut out.others[kept - 1..] {
            *slot = id;
        }
        out.word = word;
        out.id = id;
        out.undescribed_set = word.0 & self.layouts.undescribed(id);
        out.n_others = kept - 1;
        out.n_matches = n;
        true
    }

    /// Reads the field values of `out.word` as `out.id` into `out` (sets `n_fields`), zeroing
    /// the values past them that `out` held before ([`Codec::match_into`] and this are
    /// [`Codec::decode_into`]).
    #[inline(always)]
    pub fn read_fields(&self, out: &mut Decoded) {
        let n_fields = self.layouts.n_fields(out.id);
        let used = out.n_fields.clamp(n_fields, MAX_FIELDS);
        out.values[..used].fill(0);
        out.n_fields = n_fields;
        self.layouts.read(out.id, out.word.0, &mut out.values);
    }

    /// Makes `out` what [`Codec::decode_as`] gives for `id` and `out.word`, the field values
    /// aside (read them with [`Codec::read_fields`]); false, leaving `out` unchanged, where
    /// `decode_as` gives `None` (more than [`MAX_FIELDS`] fields).
    #[inline]
    pub fn retarget(&self, id: VariantId, out: &mut Decoded) -> bool {
        if self.layouts.n_fields(id) > MAX_FIELDS {
            return false;
        }
        out.id = id;
        out.others = [id; MAX_OTHERS];
        out.n_others = 0;
        out.n_matches = 1;
        out.undescribed_set = out.word.0 & self.layouts.undescribed(id);
        true
    }

    /// Decodes `word` as variant `id` whether or not its fixed bits match (`None` if the
    /// variant has more than [`MAX_FIELDS`] fields).
    pub fn decode_as(&self, id: VariantId, word: Word) -> Option<Decoded> {
        self.decoded(id, word, [id; MAX_OTHERS], 0, 1)
    }

    /// `word` read as `id`, with the other matching variants (`others[..n_others]`) and the
    /// match count.
    #[inline]
    fn decoded(
        &self,
        id: VariantId,
        word: Word,
        others: [VariantId; MAX_OTHERS],
        n_others: usize,
        n_matches: usize,
    ) -> Option<Decoded> {
        let n_fields = self.layouts.n_fields(id);
        if n_fields > MAX_FIELDS {
            return None;
        }
        // The `Option` built in place and returned: no copy of the ~450 bytes.
        let mut out = Some(Decoded {
            word,
            id,
            values: [0; MAX_FIELDS],
            n_fields,
            undescribed_set: word.0 & self.layouts.undescribed(id),
            others,
            n_others,
            n_matches,
        });
        if let Some(d) = &mut out {
            self.layouts.read(id, word.0, &mut d.values);
        }
        out
    }

    /// Encodes a variant with one value per field (field order). Undescribed bits are zero.
    /// Errors: wrong value count, a value wider than its field, an `INVALIDn` modifier value
    /// unless `opts.allow_invalid`.
    pub fn encode(
        &self,
        id: VariantId,
        values: &[u64],
        opts: EncodeOptions,
    ) -> Result<Word, CodecError> {
        // The field count from the plans (no look at the table's variant on the fuzz path).
        let n_fields = self.layouts.n_fields(id);
        let v = || self.variant(id);
        if values.len() != n_fields {
            let v = v();
            return Err(CodecError::ValueCount {
                key: v.key.clone(),
                fields: v.fields.len(),
                given: values.len(),
            });
        }
        let masks = self.layouts.field_masks(id);
        let misfit = |i: usize| CodecError::OutOfRange {
            field: v().fields[i].label.clone(),
            width: v().fields[i].width(),
            value: values[i],
        };
        if opts.allow_invalid {
            // The fuzz targets' path: one test for all fields, the culprit looked up after.
            let wide = values
                .iter()
                .zip(masks)
                .fold(0, |acc, (v, m)| acc | (v & !m));
            if wide != 0 {
                let i = (0..values.len()).find(|&i| values[i] & !masks[i] != 0);
                return Err(misfit(i.unwrap_or(0)));
            }
        } else {
            let v = v();
            for (i, (f, &val)) in v.fields.iter().zip(values).enumerate() {
                if val & !masks[i] != 0 {
                    return Err(misfit(i));
                }
                if let Some(ModifierName::Invalid(n)) = modifier_name(v, f, val) {
                    return Err(CodecError::InvalidModifier {
                        field: f.label.clone(),
                        value: val,
                        name: format!("INVALID{n}"),
                    });
                }
            }
        }
        Ok(Word(self.layouts.write(
            id,
            values,
            self.layouts.fixed(id).1,
        )))
    }

    /// The arch index, for verdicts.
    #[inline]
    fn arch_index(&self, arch: Arch) -> Option<&Index> {
        self.index
            .iter()
            .find(|(a, _)| *a == arch)
            .map(|(_, ix)| ix)
    }
}

/// The modifier table a field is looked up in, if it is a modifier field and the table exists.
pub fn field_group<'a>(v: &'a Variant, f: &Field) -> Option<&'a crate::spec::ModifierGroup> {
    v.field_group(f)
}

/// The table's name for a modifier field's value (`None` for non-modifier fields and values
/// the table has no row for).
pub fn modifier_name<'a>(v: &'a Variant, f: &Field, value: u64) -> Option<&'a ModifierName> {
    let g = field_group(v, f)?;
    g.lookup(u32::try_from(value).ok()?).map(|r| &r.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_into_a_reused_struct_is_decode() {
        let codec = Codec::new(crate::spec::bundled_tables().unwrap()).unwrap();
        let mut rng = SplitMix64(9);
        let mut into = Decoded::EMPTY;
        for &arch in codec.arch_list() {
            for k in 0..20_000 {
                // Half the words from a variant's fixed bits, so that most of them match.
                let id = codec.id_list()[k % codec.id_list().len()];
                let v = codec.variant(id);
                let noise = (rng.next_u64() as u128) << 64 | rng.next_u64() as u128;
                let w = if k % 2 == 0 {
                    (noise & !v.fixed_mask) | v.fixed_value
                } else {
                    noise
                };
                let want = codec.decode(arch, Word(w));
                assert_eq!(codec.decode_into(arch, Word(w), &mut into), want.is_some());
                if let Some(want) = want {
                    assert_eq!(format!("{into:?}"), format!("{want:?}"));
                }
            }
        }
    }

    #[test]
    fn retarget_then_read_fields_is_decode_as() {
        let codec = Codec::new(crate::spec::bundled_tables().unwrap()).unwrap();
        let mut rng = SplitMix64(11);
        let mut into = Decoded::EMPTY;
        let mut retargeted = 0;
        for &arch in codec.arch_list() {
            for k in 0..5_000 {
                let id = codec.id_list()[k % codec.id_list().len()];
                let v = codec.variant(id);
                let noise = (rng.next_u64() as u128) << 64 | rng.next_u64() as u128;
                let w = Word((noise & !v.fixed_mask) | v.fixed_value);
                if !codec.match_into(arch, w, &mut into) {
                    continue;
                }
                // Every variant of the word's table, whether it matches or not.
                let table = codec.table(into.id);
                let to = VariantId {
                    table: into.id.table,
                    variant: (k % table.variants.len()) as u16,
                };
                assert!(codec.retarget(to, &mut into));
                codec.read_fields(&mut into);
                let want = codec.decode_as(to, w).unwrap();
                assert_eq!(format!("{into:?}"), format!("{want:?}"));
                retargeted += 1;
            }
        }
        assert!(retargeted > 1000, "{retargeted}");
    }
}
