//! Test words for a variant: the fixed word, field sweeps, flipped fixed bits, random fills.

use super::Word;
use crate::spec::{Variant, bits_mask};

/// SplitMix64: a tiny deterministic generator so recorded word sets are reproducible.
#[derive(Debug, Clone)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// At least `min` distinct words for `v`, deterministic in `seed`, in this order:
/// 1. the table's fixed word (every field 0);
/// 2. per field: every value for fields up to 8 bits, else walking ones plus 8 random values;
/// 3. every bit outside the fields (fixed, or left undescribed by the table) flipped, one at a
///    time: a defective table can leave an opcode bit out (its flip names another mnemonic);
/// 4. random fills of every field (fixed bits kept) until `min` words.
pub fn sweep_words(v: &Variant, min: usize, seed: u64) -> Vec<Word> {
    let mut rng = SplitMix64(seed ^ hash(&v.key));
    let base = v.fixed_value;
    let mut out = vec![Word(base)];
    for f in &v.fields {
        let width = f.width();
        let mut vals = swept_values(width);
        if width > 8 {
            vals.extend((0..8).map(|_| rng.next_u64() & bits_mask(width) as u64));
        }
        for val in vals {
            let mut w = Word(base);
            w.set_field(f, val)
                .expect("value masked to the field width");
            out.push(w);
        }
    }
    let fields = v.field_mask();
    for bit in 0..128u32 {
        if fields >> bit & 1 == 0 {
            out.push(Word(base ^ (1u128 << bit)));
        }
    }
    let mut guard = 0;
    while dedup_len(&mut out) < min && guard < 100 * min {
        guard += 1;
        let r = ((rng.next_u64() as u128) << 64) | rng.next_u64() as u128;
        out.push(Word(base | (r & fields)));
    }
    out
}

/// The values the sweeps give a field of `width` bits on its own: every non-zero value up to
/// 8 bits, else each single bit (walking ones).
pub fn swept_values(width: u32) -> Vec<u64> {
    if width <= 8 {
        (1..1u64 << width).collect()
    } else {
        (0..width).map(|b| 1u64 << b).collect()
    }
}

fn dedup_len(words: &mut Vec<Word>) -> usize {
    let mut seen = std::collections::HashSet::new();
    words.retain(|w| seen.insert(*w));
    words.len()
}

fn hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}
