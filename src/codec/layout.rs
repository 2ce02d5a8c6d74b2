//! Field plans, built once per codec: every field of every variant as a list of (bit position,
//! mask, shift, field) segments, so that decoding or encoding a word walks one flat array
//! instead of each field's `Vec<BitRange>`.

use super::VariantId;
use crate::spec::{Table, Variant, bits_mask};

/// Most bits one segment holds: a longer range is cut into several segments, and a range that
/// crosses bit 64 is cut there, so that every segment lies inside one of the word's two 64-bit
/// halves (see [`halves`]).
const SEGMENT_BITS: u32 = 32;

/// Up to [`SEGMENT_BITS`] adjacent bits of one field, inside one half of the word:
/// `values[field] |= ((halves[half] >> at) & mask) << shift`.
#[derive(Debug, Clone, Copy)]
struct Segment {
    /// The bits, right-aligned (`len` ones).
    mask: u32,
    /// Which half holds the segment: 0 = bits 0..=63, 1 = bits 64..=127.
    half: u8,
    /// Lowest bit of the segment in its half (`at + len <= 64`).
    at: u8,
    /// Where the segment lands in the field's value.
    shift: u8,
    /// Index of the field in the variant's field order.
    field: u8,
}

impl Segment {
    /// The segment of `len` (1..=32) bits from word bit `lo`, landing at bit `shift` of field
    /// `field`'s value; the bits must not cross bit 64.
    fn new(lo: u32, len: u32, shift: u32, field: usize) -> Segment {
        debug_assert!(lo >= 64 || lo + len <= 64, "segment crosses bit 64");
        Segment {
            mask: bits_mask(len) as u32,
            half: (lo / 64) as u8,
            at: (lo % 64) as u8,
            shift: shift as u8,
            field: field as u8,
        }
    }
}

/// The word's two 64-bit halves (bits 0..=63, 64..=127): reading and writing a segment shifts
/// a `u64`, never the `u128` (a variable 128-bit shift is two shifts and a branch).
#[inline]
fn halves(word: u128) -> [u64; 2] {
    [word as u64, (word >> 64) as u64]
}

/// What decoding and encoding need of one variant.
#[derive(Debug, Clone, Copy)]
struct Span {
    /// `segments[start..end]` are the variant's segments, field order.
    start: u32,
    end: u32,
    /// `field_masks[fields..fields + n_fields]` are its fields' value masks.
    fields: u32,
    /// Number of fields.
    n_fields: usize,
    /// Bits no cell describes.
    undescribed: u128,
    /// Fixed bits and field bits.
    described: u128,
    /// The bits the variant fixes, and their values.
    fixed_mask: u128,
    fixed_value: u128,
}

/// Plans of every variant of a codec's tables.
#[derive(Debug, Default)]
pub(super) struct Layouts {
    segments: Vec<Segment>,
    /// Per field: the values it holds, `width` ones (all ones from 64 bits).
    field_masks: Vec<u64>,
    /// One per variant, tables in order.
    spans: Vec<Span>,
    /// Per table: the index in `spans` of its first variant.
    first: Vec<u32>,
}

impl Layouts {
    /// Plans every variant of `tables`.
    pub(super) fn build(tables: &[Table]) -> Layouts {
        let mut l = Layouts::default();
        for t in tables {
            l.first.push(l.spans.len() as u32);
            for v in &t.variants {
                l.add(v);
            }
        }
        l
    }

    fn add(&mut self, v: &Variant) {
        let start = self.segments.len() as u32;
        let fields = self.field_masks.len() as u32;
        for (i, f) in v.fields.iter().enumerate() {
            self.field_masks.push(bits_mask(f.width()) as u64);
            let mut shift = 0u32;
            for r in &f.ranges {
                let (lo, len) = (r.lo as u32, r.len as u32);
                let mut done = 0;
                while done < len {
                    let at = lo + done;
                    // At most SEGMENT_BITS, and never past the end of the half it starts in.
                    let n = (len - done).min(SEGMENT_BITS).min(64 - at % 64);
                    self.segments.push(Segment::new(at, n, shift + done, i));
                    done += n;
                }
                shift += len;
            }
        }
        self.spans.push(Span {
            start,
            end: self.segments.len() as u32,
            fields,
            n_fields: v.fields.len(),
            undescribed: v.undescribed,
            described: v.described_mask(),
            fixed_mask: v.fixed_mask,
            fixed_value: v.fixed_value,
        });
    }

    #[inline]
    fn span(&self, id: VariantId) -> &Span {
        &self.spans[self.first[id.table as usize] as usize + id.variant as usize]
    }

    /// Number of fields of `id`.
    #[inline]
    pub(super) fn n_fields(&self, id: VariantId) -> usize {
        self.span(id).n_fields
    }

    /// Bits of `id` that no cell describes.
    #[inline]
    pub(super) fn undescribed(&self, id: VariantId) -> u128 {
        self.span(id).undescribed
    }

    /// Bits of `id` the table describes (fixed bits and field bits).
    #[inline]
    pub(super) fn described(&self, id: VariantId) -> u128 {
        self.span(id).described
    }

    /// The bits `id` fixes and their values (`Variant::fixed_mask`, `Variant::fixed_value`).
    #[inline]
    pub(super) fn fixed(&self, id: VariantId) -> (u128, u128) {
        let s = self.span(id);
        (s.fixed_mask, s.fixed_value)
    }

    /// Per field of `id` (field order): the values that fit it, right-aligned ones.
    #[inline]
    pub(super) fn field_masks(&self, id: VariantId) -> &[u64] {
        let s = self.span(id);
        &self.field_masks[s.fields as usize..s.fields as usize + s.n_fields]
    }

    /// `word` with each field of `id` set to its value (field order, each field's bits cleared
    /// first), as [`super::Word::set_field`] would; values must fit their fields.
    #[inline]
    pub(super) fn write(&self, id: VariantId, values: &[u64], word: u128) -> u128 {
        let s = self.span(id);
        let mut h = halves(word);
        for seg in &self.segments[s.start as usize..s.end as usize] {
            let mask = seg.mask as u64;
            // A field is at most 64 bits wide (the parser refuses wider), so `shift < 64`;
            // `at + len <= 64`: shifts that need no overflow check, which the fuzz build would
            // trace as a comparison on every segment.
            let bits = values[seg.field as usize].wrapping_shr(seg.shift as u32) & mask;
            let at = seg.at as u32;
            let half = &mut h[seg.half as usize & 1];
            *half = (*half & !mask.wrapping_shl(at)) | bits.wrapping_shl(at);
        }
        (h[1] as u128) << 64 | h[0] as u128
    }

    /// ORs every field value of `id` read from `word` into `values` (field order; the slots
    /// must be zero and at least `n_fields` long). Same result as [`super::Word::get_field`].
    #[inline]
    pub(super) fn read(&self, id: VariantId, word: u128, values: &mut [u64]) {
        let s = self.span(id);
        let h = halves(word);
        for seg in &self.segments[s.start as usize..s.end as usize] {
            // `at < 64` (a bit of the half): no overflow check (see `write`).
            let bits = h[seg.half as usize & 1].wrapping_shr(seg.at as u32) & seg.mask as u64;
            // A field is at most 64 bits wide (the parser refuses wider), so `shift < 64`.
            values[seg.field as usize] |= bits.wrapping_shl(seg.shift as u32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{SplitMix64, Word};

    #[test]
    fn long_and_crossing_ranges_are_cut_into_halves() {
        use crate::spec::{BitRange, Field, FieldKind};
        let field = |ranges: Vec<BitRange>| Field {
            label: "x".into(),
            kind: FieldKind::Flag("x".into()),
            ranges,
            line: 1,
            names: Default::default(),
            rejected: Vec::new(),
            signed: false,
            context: Vec::new(),
        };
        let mut l = Layouts::default();
        l.first.push(0);
        let mut v = crate::spec::bundled_tables().unwrap()[0].variants[0].clone();
        v.fields = vec![
            field(vec![BitRange { lo: 40, len: 64 }]),
            field(vec![
                BitRange { lo: 60, len: 8 },
                BitRange { lo: 100, len: 20 },
            ]),
        ];
        l.add(&v);
        let id = VariantId::default();
        let mut rng = SplitMix64(5);
        for _ in 0..100 {
            let w = (rng.next_u64() as u128) << 64 | rng.next_u64() as u128;
            let mut values = [0; 2];
            l.read(id, w, &mut values);
            assert_eq!(values[0], Word(w).get_field(&v.fields[0]));
            assert_eq!(values[1], Word(w).get_field(&v.fields[1]));
            let mut back = Word(0);
            back.set_field(&v.fields[0], values[0]).unwrap();
            back.set_field(&v.fields[1], values[1]).unwrap();
            assert_eq!(l.write(id, &values, 0), back.0);
        }
    }

    #[test]
    fn reads_what_get_field_reads() {
        let tables = crate::spec::bundled_tables().unwrap();
        let l = Layouts::build(&tables);
        let mut rng = SplitMix64(3);
        for (ti, t) in tables.iter().enumerate() {
            for (vi, v) in t.variants.iter().enumerate() {
                let id = VariantId {
                    table: ti as u16,
                    variant: vi as u16,
                };
                assert_eq!(l.n_fields(id), v.fields.len());
                assert_eq!(l.described(id), v.described_mask());
                for _ in 0..20 {
                    let w = (rng.next_u64() as u128) << 64 | rng.next_u64() as u128;
                    let mut values = vec![0; v.fields.len()];
                    l.read(id, w, &mut values);
                    let want: Vec<u64> = v.fields.iter().map(|f| Word(w).get_field(f)).collect();
                    assert_eq!(values, want, "{}", v.key);
                    let mut back = Word(v.fixed_value);
                    for (f, &val) in v.fields.iter().zip(&values) {
                        back.set_field(f, val).unwrap();
                    }
                    assert_eq!(l.write(id, &values, v.fixed_value), back.0, "{}", v.key);
                    let masks: Vec<u64> = v
                        .fields
                        .iter()
                        .map(|f| bits_mask(f.width()) as u64)
                        .collect();
                    assert_eq!(l.field_masks(id), &masks[..]);
                }
            }
        }
    }
}
