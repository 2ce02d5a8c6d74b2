//! Table coverage: which parts of the tables' space a set of words reaches, as numbered
//! features (the fuzz target feeds them to libFuzzer as extra counters; `corpus coverage`
//! counts them).
//!
//! Two kinds of feature per variant:
//! - a **triple** (variant, field, value class) for every field of the layout. A value's class
//!   ([`ValueClass`]): for a modifier field with a table, the table's row (`listed` i-th row)
//!   or `unlisted`; for a field of at most [`SMALL_WIDTH`] bits, the value itself; for wider
//!   fields, `zero`, `one`, `max` (all ones), `top` (top bit set, not all ones) or `other`.
//! - a **pair** (variant, modifier group i, modifier group j) for every two modifier fields
//!   with a table, reached when both hold a value other than their table's default row
//!   (`(default)`, or 0 when the table has none).
//!
//! Features are numbered densely: triples first, variant by variant in codec order, then the
//! pairs ([`CoverageMap::feature_count`]).

use super::{Codec, Decoded, VariantId, Word, field_group};
use crate::arch::Arch;
use crate::spec::{Field, ModifierName, Variant, bits_mask};
use serde::Serialize;

/// Widest field whose every value is its own class.
pub const SMALL_WIDTH: u32 = 3;

/// Largest listed value for which a field's classes are a lookup table.
const LOOKUP_MAX: usize = 1 << 12;

/// A field value's class (module notes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ValueClass {
    /// The i-th row of the field's modifier table.
    Listed(usize),
    /// A value the modifier table has no row for.
    Unlisted,
    /// The value itself (fields of at most [`SMALL_WIDTH`] bits).
    Value(u64),
    /// 0 (wide fields).
    Zero,
    /// 1 (wide fields).
    One,
    /// All ones (wide fields).
    Max,
    /// Top bit set, not all ones (wide fields).
    Top,
    /// Anything else (wide fields).
    Other,
}

/// How one field's values map to classes.
#[derive(Debug, Clone)]
enum Classes {
    /// Modifier table rows (values in table order), whether unlisted values exist, and each
    /// value's class index below `lookup.len()` (the fuzz target classes every field of every
    /// input: no search on its hot path).
    Listed {
        values: Vec<u64>,
        unlisted: bool,
        lookup: Vec<u16>,
    },
    /// Every value of a small field.
    Small { width: u32 },
    /// The five classes of a wide field.
    Wide { width: u32 },
}

impl Classes {
    fn of(v: &Variant, f: &Field) -> Classes {
        let width = f.width();
        match field_group(v, f) {
            Some(g) => {
                let values: Vec<u64> = g.values.iter().map(|r| r.value as u64).collect();
                let space = if width >= 64 { u64::MAX } else { 1u64 << width };
                let unlisted = (values.len() as u64) < space;
                let lookup = Self::lookup(&values);
                Classes::Listed {
                    values,
                    unlisted,
                    lookup,
                }
            }
            None if width <= SMALL_WIDTH => Classes::Small { width },
            None => Classes::Wide { width },
        }
    }

    /// Class index of every value up to the largest listed one (at most [`LOOKUP_MAX`]
    /// entries), as `class` finds it: the first row with the value, else `values.len()`.
    fn lookup(values: &[u64]) -> Vec<u16> {
        let top = values.iter().copied().max().unwrap_or(0);
        if top >= LOOKUP_MAX as u64 || values.len() >= u16::MAX as usize {
            return Vec::new();
        }
        let mut t = vec![values.len() as u16; top as usize + 1];
        for (i, &v) in values.iter().enumerate().rev() {
            t[v as usize] = i as u16;
        }
        t
    }

    fn count(&self) -> usize {
        match self {
            Classes::Listed {
                values, unlisted, ..
            } => values.len() + *unlisted as usize,
            Classes::Small { width } => 1 << width,
            Classes::Wide { .. } => 5,
        }
    }

    /// Class indices [`Classes::class`] can give: [`Classes::count`], and for a listed field
    /// whose rows fill its width one more (a value wider than the field is unlisted; its
    /// feature is then the next field's first).
    fn reach(&self) -> usize {
        match self {
            Classes::Listed { values, .. } => values.len() + 1,
            _ => self.count(),
        }
    }

    /// (class index, class) of `value`.
    fn class(&self, value: u64) -> (usize, ValueClass) {
        match self {
            Classes::Listed { values, lookup, .. } if !lookup.is_empty() => {
                match lookup.get(value as usize).map(|&i| i as usize) {
                    Some(i) if i < values.len() => (i, ValueClass::Listed(i)),
                    _ => (values.len(), ValueClass::Unlisted),
                }
            }
            Classes::Listed { values, .. } => match values.iter().position(|&x| x == value) {
                Some(i) => (i, ValueClass::Listed(i)),
                None => (values.len(), ValueClass::Unlisted),
            },
            Classes::Small { width } => {
                let v = value & bits_mask(*width) as u64;
                (v as usize, ValueClass::Value(v))
            }
            Classes::Wide { width } => {
                let max = bits_mask(*width) as u64;
                let v = value & max;
                let top = 1u64 << (width - 1).min(63);
                match v {
                    0 => (0, ValueClass::Zero),
                    1 => (1, ValueClass::One),
                    _ if v == max => (2, ValueClass::Max),
                    _ if v & top != 0 => (3, ValueClass::Top),
                    _ => (4, ValueClass::Other),
                }
            }
        }
    }
}

/// One variant's feature numbering.
#[derive(Debug, Clone)]
struct Slots {
    /// Per field: first triple feature and the classes.
    fields: Vec<(usize, Classes)>,
    /// Modifier fields with a table: (field index, default value).
    mods: Vec<(usize, u64)>,
    /// First pair feature (relative to the pairs' start).
    pair_base: usize,
}

/// The feature numbering of a codec's tables (module notes).
#[derive(Debug, Clone)]
pub struct CoverageMap {
    /// Per table: per variant slots.
    slots: Vec<Vec<Slots>>,
    triples: usize,
    pairs: usize,
}

/// Features one table has and reaches.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TableCoverage {
    /// Arch of the table (`SM100`).
    pub arch: String,
    /// Mnemonic of the table (`TLD`).
    pub mnemonic: String,
    /// (variant, field, value class) triples reached.
    pub triples_hit: usize,
    /// Triples in the table.
    pub triples: usize,
    /// (variant, modifier group pair at non-default values) pairs reached.
    pub pairs_hit: usize,
    /// Pairs in the table.
    pub pairs: usize,
}

impl TableCoverage {
    /// Share of triples reached (0..=1; 1 for a table with none).
    pub fn triple_share(&self) -> f64 {
        ratio(self.triples_hit, self.triples)
    }
    /// Share of pairs reached (0..=1; 1 for a table with none).
    pub fn pair_share(&self) -> f64 {
        ratio(self.pairs_hit, self.pairs)
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 1.0 } else { a as f64 / b as f64 }
}

impl CoverageMap {
    /// The numbering for every variant of `codec`.
    pub fn new(codec: &Codec) -> CoverageMap {
        let (mut triples, mut pairs) = (0usize, 0usize);
        let mut slots = Vec::with_capacity(codec.tables.len());
        for t in &codec.tables {
            let mut ts = Vec::with_capacity(t.variants.len());
            for v in &t.variants {
                let mut fields = Vec::with_capacity(v.fields.len());
                let mut mods = Vec::new();
                for (i, f) in v.fields.iter().enumerate() {
                    let c = Classes::of(v, f);
                    if let Some(g) = field_group(v, f) {
                        let default = g
                            .values
                            .iter()
                            .find(|r| r.name == ModifierName::Default)
                            .map_or(0, |r| r.value as u64);
                        mods.push((i, default));
                    }
                    let n = c.count();
                    fields.push((triples, c));
                    triples += n;
                }
                let pair_base = pairs;
                pairs += mods.len() * mods.len().saturating_sub(1) / 2;
                ts.push(Slots {
                    fields,
                    mods,
                    pair_base,
                });
            }
            slots.push(ts);
        }
        CoverageMap {
            slots,
            triples,
            pairs,
        }
    }

    /// Number of triple features (numbered `0..triples()`).
    pub fn triples(&self) -> usize {
        self.triples
    }

    /// Number of features, triples then pairs.
    pub fn feature_count(&self) -> usize {
        self.triples + self.pairs
    }

    /// The features variant `id` can reach (those [`CoverageMap::for_each_feature`] may
    /// report for it), as ranges of feature numbers: each field's (field order: its triples,
    /// and for a listed field whose rows fill its width the next feature too, which a value
    /// wider than the field reaches), and its pairs (empty for an id the map does not know).
    pub fn feature_ranges(
        &self,
        id: VariantId,
    ) -> (Vec<std::ops::Range<usize>>, std::ops::Range<usize>) {
        let Some(s) = self
            .slots
            .get(id.table as usize)
            .and_then(|t| t.get(id.variant as usize))
        else {
            return (Vec::new(), 0..0);
        };
        let fields = s
            .fields
            .iter()
            .map(|(base, c)| *base..base + c.reach())
            .collect();
        let pairs = self.triples + s.pair_base;
        let m = s.mods.len();
        (fields, pairs..pairs + m * m.saturating_sub(1) / 2)
    }

    /// Calls `hit(feature)` for every feature of variant `id` with field `values` (field
    /// order; missing values count as 0, values are masked to their field's width).
    pub fn for_each_feature(&self, id: VariantId, values: &[u64], hit: impl FnMut(usize)) {
        self.for_each_feature_in(id, values, u64::MAX, true, hit)
    }

    /// [`CoverageMap::for_each_feature`] for the triples of the fields whose bit is set in
    /// `fields` (bit `i` for field `i`; fields from 64 on always) and, when `pairs` is set,
    /// the pairs; in the same order.
    pub fn for_each_feature_in(
        &self,
        id: VariantId,
        values: &[u64],
        fields: u64,
        pairs: bool,
        mut hit: impl FnMut(usize),
    ) {
        let Some(s) = self
            .slots
            .get(id.table as usize)
            .and_then(|t| t.get(id.variant as usize))
        else {
            return;
        };
        let value = |i: usize| values.get(i).copied().unwrap_or(0);
        if fields == u64::MAX {
            for (i, (base, c)) in s.fields.iter().enumerate() {
                hit(base + c.class(value(i)).0);
            }
        } else {
            let mut rest = fields;
            while rest != 0 {
                let i = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let Some((base, c)) = s.fields.get(i) else {
                    break;
                };
                hit(base + c.class(value(i)).0);
            }
            for (i, (base, c)) in s.fields.iter().enumerate().skip(64) {
                hit(base + c.class(value(i)).0);
            }
        }
        if !pairs {
            return;
        }
        let m = s.mods.len();
        let pairs = self.triples + s.pair_base;
        if m <= 64 {
            // The groups at a non-default value, one bit each; then every two of them, in
            // the order of the loop below (the fuzz target runs this for every input).
            let mut off_default = 0u64;
            for (j, &(f, default)) in s.mods.iter().enumerate() {
                off_default |= ((value(f) != default) as u64) << j;
            }
            let mut rest = off_default;
            while rest != 0 {
                let a = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                // Pairs (a', b) with a' < a come first: sum of (m - a' - 1).
                let row = pairs + a * (2 * m - a - 1) / 2;
                let mut later = rest;
                while later != 0 {
                    let b = later.trailing_zeros() as usize;
                    later &= later - 1;
                    hit(row + b - a - 1);
                }
            }
            return;
        }
        let mut k = 0usize;
        for a in 0..m {
            for b in a + 1..m {
                let (fa, da) = s.mods[a];
                let (fb, db) = s.mods[b];
                if value(fa) != da && value(fb) != db {
                    hit(pairs + k);
                }
                k += 1;
            }
        }
    }

    /// [`CoverageMap::for_each_feature`] of a decoded word.
    pub fn for_each_decoded(&self, d: &Decoded, hit: impl FnMut(usize)) {
        self.for_each_feature(d.id, d.values(), hit)
    }

    /// The class of `value` in field `field` of variant `id` (`None` past the fields).
    pub fn class_of(&self, id: VariantId, field: usize, value: u64) -> Option<ValueClass> {
        let s = self
            .slots
            .get(id.table as usize)?
            .get(id.variant as usize)?;
        s.fields.get(field).map(|(_, c)| c.class(value).1)
    }

    /// Per table, the features among `reached` (indexed by feature number) against those the
    /// table has, in codec table order.
    pub fn tables(&self, codec: &Codec, reached: &[bool]) -> Vec<TableCoverage> {
        let got = |i: usize| reached.get(i).copied().unwrap_or(false);
        codec
            .tables
            .iter()
            .zip(&self.slots)
            .map(|(t, ts)| {
                let mut c = TableCoverage {
                    arch: t.arch.map_or("-".into(), |a| a.to_string()),
                    mnemonic: t.mnemonic.clone(),
                    ..TableCoverage::default()
                };
                for s in ts {
                    for (base, cl) in &s.fields {
                        let n = cl.count();
                        c.triples += n;
                        c.triples_hit += (*base..base + n).filter(|&i| got(i)).count();
                    }
                    let n = s.mods.len() * s.mods.len().saturating_sub(1) / 2;
                    let b = self.triples + s.pair_base;
                    c.pairs += n;
                    c.pairs_hit += (b..b + n).filter(|&i| got(i)).count();
                }
                c
            })
            .collect()
    }
}

/// Features reached by a set of words, kept as a bitmap over a [`CoverageMap`].
#[derive(Debug, Clone)]
pub struct Reached {
    /// One flag per feature.
    pub hit: Vec<bool>,
}

impl Reached {
    /// Nothing reached yet.
    pub fn new(map: &CoverageMap) -> Reached {
        Reached {
            hit: vec![false; map.feature_count()],
        }
    }

    /// Adds the features of `word` decoded on `arch` (nothing when no variant matches).
    pub fn add_word(&mut self, codec: &Codec, map: &CoverageMap, arch: Arch, word: u128) {
        if let Some(d) = codec.decode(arch, Word(word)) {
            map.for_each_decoded(&d, |i| self.hit[i] = true);
        }
    }

    /// Adds the features of variant `id` with field `values`.
    pub fn add_values(&mut self, map: &CoverageMap, id: VariantId, values: &[u64]) {
        map.for_each_feature(id, values, |i| self.hit[i] = true);
    }

    /// Features reached.
    pub fn count(&self) -> usize {
        self.hit.iter().filter(|&&h| h).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codec() -> Codec {
        Codec::new(crate::spec::bundled_tables().unwrap()).unwrap()
    }

    #[test]
    fn classes_of_wide_small_and_listed_fields() {
        let w = Classes::Wide { width: 8 };
        assert_eq!(w.class(0).1, ValueClass::Zero);
        assert_eq!(w.class(1).1, ValueClass::One);
        assert_eq!(w.class(0xff).1, ValueClass::Max);
        assert_eq!(w.class(0x80).1, ValueClass::Top);
        assert_eq!(w.class(0x42).1, ValueClass::Other);
        assert_eq!(Classes::Small { width: 2 }.class(3).1, ValueClass::Value(3));
        let values = vec![0, 2, 2, 5];
        for l in [
            Classes::Listed {
                lookup: Classes::lookup(&values),
                values: values.clone(),
                unlisted: true,
            },
            Classes::Listed {
                values: values.clone(),
                unlisted: true,
                lookup: Vec::new(),
            },
        ] {
            assert_eq!(l.class(2), (1, ValueClass::Listed(1)));
            assert_eq!(l.class(5), (3, ValueClass::Listed(3)));
            assert_eq!(l.class(1), (4, ValueClass::Unlisted));
            assert_eq!(l.class(6), (4, ValueClass::Unlisted));
            assert_eq!(l.class(1 << 40), (4, ValueClass::Unlisted));
            assert_eq!(l.count(), 5);
        }
    }

    /// Every feature of a variant, in the order of the plain loops over fields and over
    /// every two modifier groups (what `for_each_feature` did before its pair loop skipped
    /// the groups at their default).
    fn features_by_plain_loops(map: &CoverageMap, id: VariantId, values: &[u64]) -> Vec<usize> {
        let s = &map.slots[id.table as usize][id.variant as usize];
        let value = |i: usize| values.get(i).copied().unwrap_or(0);
        let mut out: Vec<usize> = s
            .fields
            .iter()
            .enumerate()
            .map(|(i, (base, c))| base + c.class(value(i)).0)
            .collect();
        let mut k = 0;
        for a in 0..s.mods.len() {
            for b in a + 1..s.mods.len() {
                let ((fa, da), (fb, db)) = (s.mods[a], s.mods[b]);
                if value(fa) != da && value(fb) != db {
                    out.push(map.triples + s.pair_base + k);
                }
                k += 1;
            }
        }
        out
    }

    #[test]
    fn pairs_are_those_of_the_plain_loops() {
        let c = codec();
        let map = CoverageMap::new(&c);
        let mut rng = crate::codec::SplitMix64(17);
        let mut pairs = 0;
        for id in c.ids() {
            let n = c.variant(id).fields.len();
            for k in 0..50 {
                // Mostly small values, so that modifier groups are at their default often.
                let values: Vec<u64> = (0..n)
                    .map(|_| match rng.next_u64() % 4 {
                        0 => 0,
                        1 => rng.next_u64() % 4,
                        _ => rng.next_u64() >> (rng.next_u64() % 64),
                    })
                    .take(n.saturating_sub(k % 2))
                    .collect();
                let mut got = Vec::new();
                map.for_each_feature(id, &values, |f| got.push(f));
                let (t, p) = map.feature_ranges(id);
                assert!(
                    got.iter()
                        .all(|f| t.iter().any(|t| t.contains(f)) || p.contains(f))
                );
                // Some fields and no pairs: the same features, less the others.
                let mask = rng.next_u64();
                let mut some = Vec::new();
                map.for_each_feature_in(id, &values, mask, false, |f| some.push(f));
                // One triple per field, in field order, then the pairs.
                let kept: Vec<usize> = (got.iter().take(t.len()).enumerate())
                    .filter(|&(i, _)| mask >> i & 1 == 1)
                    .map(|(_, &f)| f)
                    .collect();
                assert_eq!(some, kept);
                let want = features_by_plain_loops(&map, id, &values);
                assert_eq!(got, want, "{}", c.variant(id).key);
                pairs += got.iter().filter(|&&f| f >= map.triples).count();
            }
        }
        assert!(pairs > 1000, "{pairs}");
    }

    /// The variants' feature ranges cover the features: triples in codec order, then pairs.
    #[test]
    fn feature_ranges_split_the_features() {
        let c = codec();
        let map = CoverageMap::new(&c);
        let (mut triples, mut pairs) = (0, map.triples());
        for id in c.ids() {
            let (fields, p) = map.feature_ranges(id);
            for t in fields {
                // A listed field whose rows fill its width reaches the next field's first.
                assert!(
                    t.start == triples || t.start + 1 == triples,
                    "{}",
                    c.variant(id).key
                );
                triples = triples.max(t.end);
            }
            assert_eq!(p.start, pairs, "{}", c.variant(id).key);
            pairs = p.end;
        }
        assert!(triples == map.triples() || triples == map.triples() + 1);
        assert_eq!(pairs, map.feature_count());
    }

    #[test]
    fn fixed_words_reach_one_class_per_field_and_no_pair() {
        let c = codec();
        let map = CoverageMap::new(&c);
        let id = c.ids().next().unwrap();
        let v = c.variant(id);
        let arch = c.table(id).arch.unwrap();
        let mut r = Reached::new(&map);
        r.add_word(&c, &map, arch, v.fixed_value);
        let d = c.decode(arch, Word(v.fixed_value)).unwrap();
        // Every field of the decoded variant holds 0 in its fixed word: one triple each.
        assert_eq!(r.count(), c.variant(d.id).fields.len());
        let t = map.tables(&c, &r.hit);
        assert_eq!(t.iter().map(|t| t.triples_hit).sum::<usize>(), r.count());
        assert_eq!(t.iter().map(|t| t.pairs_hit).sum::<usize>(), 0);
        assert_eq!(t.iter().map(|t| t.triples).sum::<usize>(), map.triples());
    }
}
