//! A small decision tree over the 128 bits of a word (ID3: greedy information gain), learned
//! from recorded answers. A node tests one bit or the value of a short run of bits (a field:
//! which of its values go one way). Used where nvdisasm's choice depends on bits the tables do
//! not name: which mnemonic a word is (SM80 `LD` or `LDG`) and which words it does not
//! recognise at all ("Unrecognized operation for functional unit 'uC'").

use serde::{Deserialize, Serialize};

/// A node: a leaf naming a class, or a test of one word bit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tree {
    /// Every learned word that reaches here had this class (or most did, at the depth limit).
    Leaf {
        /// Index into the owner's class list.
        class: u16,
        /// Learned words that reached this leaf.
        support: u32,
    },
    /// `if word bit `bit` is 1 { one } else { zero }`.
    Split {
        /// Word bit 0..=127.
        bit: u8,
        /// Subtree for bit = 0.
        zero: Box<Tree>,
        /// Subtree for bit = 1.
        one: Box<Tree>,
    },
    /// `if values has bit v { one } else { zero }`, v the value of `bits` in the word (bit
    /// `bits[i]` has weight 2^i): a field's values, or two bits' pairs, that nvdisasm treats
    /// alike. Needed where no one bit says anything alone: SM80 F2FP's rounding bits 79-80 are
    /// recognised at values 0 and 3 and unrecognised at 1 and 2; SM80 F2F's constant-bank
    /// words are unrecognised where bits 76 and 85 are equal (each bit alone splits the words
    /// evenly).
    Field {
        /// The word bits tested, 2..=[`MAX_FIELD_WIDTH`] of them, ascending.
        bits: Vec<u8>,
        /// Bit v set: value v goes to `one`.
        values: u16,
        /// Subtree for values not in `values`.
        zero: Box<Tree>,
        /// Subtree for values in `values`.
        one: Box<Tree>,
    },
    /// `if the `width` word bits from `lo` up are all ones { one } else { zero }`: a register
    /// field at its highest value (`RZ` in 8 bits, `URZ` in 6, `PT` in 3), which nvdisasm
    /// reads as another variant (SM80 ALD: an address register at `RZ` is the immediate form
    /// `a[0x10]`, any other `a[R249+0x10]`). Single-bit tests need every bit of the run on
    /// the path, and answers with a register just below the top (R249, R251) are too rare to
    /// learn them from.
    Ones {
        /// Lowest word bit of the run.
        lo: u8,
        /// Bits in the run, 3..=[`MAX_RUN_WIDTH`].
        width: u8,
        /// Subtree for a run not all ones.
        zero: Box<Tree>,
        /// Subtree for a run all ones.
        one: Box<Tree>,
    },
}

/// Widest run a [`Tree::Ones`] node tests (a register field).
pub const MAX_RUN_WIDTH: u8 = 8;

/// Narrowest run a [`Tree::Ones`] node tests (a predicate field).
pub const MIN_RUN_WIDTH: u8 = 3;

// [`best_run`] counts runs from two bits up.
const _: () = assert!(MIN_RUN_WIDTH >= 2 && MIN_RUN_WIDTH <= MAX_RUN_WIDTH);

/// Most bits a [`Tree::Field`] node tests: runs of 2..=4 adjacent bits, and any two bits.
pub const MAX_FIELD_WIDTH: usize = 4;

/// Deepest tree learned (a guard against noise; the rules seen need 4 levels).
pub const MAX_DEPTH: usize = 12;

impl Tree {
    /// Learns a tree of single-bit tests and of runs of adjacent bits all ones
    /// ([`Tree::Ones`], taken only where one gains strictly more than every single bit) from
    /// (word, class) samples; `None` when there are no samples. Bits that every sample has
    /// equal are never tested; ties in gain go to the lowest bit.
    pub fn learn(samples: &[(u128, u16)]) -> Option<Tree> {
        grown(
            samples,
            Tests {
                fields: false,
                runs: true,
            },
        )
    }

    /// A tree of single-bit tests and, with `fields`, tests of runs of
    /// 2..=[`MAX_FIELD_WIDTH`] adjacent bits and of any two bits ([`Tree::Field`]), taken only
    /// where one gains strictly more than every single bit.
    pub fn learn_with(samples: &[(u128, u16)], fields: bool) -> Option<Tree> {
        grown(
            samples,
            Tests {
                fields,
                runs: false,
            },
        )
    }

    /// The largest class index any leaf holds (a resolved file's trees must index their
    /// owner's class list: [`crate::reading::resolved::ResolvedSet::from_slice`] checks it).
    pub fn max_class(&self) -> u16 {
        match self {
            Tree::Leaf { class, .. } => *class,
            Tree::Split { zero, one, .. }
            | Tree::Field { zero, one, .. }
            | Tree::Ones { zero, one, .. } => zero.max_class().max(one.max_class()),
        }
    }

    /// The class of `word`.
    pub fn classify(&self, word: u128) -> u16 {
        let mut t = self;
        loop {
            let (go_one, zero, one) = match t {
                Tree::Leaf { class, .. } => return *class,
                Tree::Split { bit, zero, one } => (word >> bit & 1 == 1, zero, one),
                Tree::Field {
                    bits,
                    values,
                    zero,
                    one,
                } => (values >> value_of(word, bits) & 1 == 1, zero, one),
                Tree::Ones {
                    lo,
                    width,
                    zero,
                    one,
                } => (all_ones(word, *lo, *width), zero, one),
            };
            t = if go_one { one } else { zero };
        }
    }

    /// Every word bit some node tests, as a mask.
    pub fn bits(&self) -> u128 {
        match self {
            Tree::Leaf { .. } => 0,
            Tree::Split { bit, zero, one } => 1u128 << bit | zero.bits() | one.bits(),
            Tree::Field {
                bits, zero, one, ..
            } => bits.iter().fold(0, |m, b| m | 1u128 << b) | zero.bits() | one.bits(),
            Tree::Ones {
                lo,
                width,
                zero,
                one,
            } => run_mask(*lo, *width) | zero.bits() | one.bits(),
        }
    }

    /// Number of leaves.
    pub fn leaves(&self) -> usize {
        match self {
            Tree::Leaf { .. } => 1,
            Tree::Split { zero, one, .. }
            | Tree::Field { zero, one, .. }
            | Tree::Ones { zero, one, .. } => zero.leaves() + one.leaves(),
        }
    }
}

impl Tree {
    /// Each leaf as the tests on its path, in words, with its class and support:
    /// `(["bit 91 = 1", "bits 79, 80 in {1, 2}"], class, support)`.
    pub fn paths(&self) -> Vec<(Vec<String>, u16, u32)> {
        let mut out = Vec::new();
        self.walk(&mut Vec::new(), &mut out);
        out
    }

    fn walk(&self, path: &mut Vec<String>, out: &mut Vec<(Vec<String>, u16, u32)>) {
        if let Tree::Ones {
            lo,
            width,
            zero,
            one,
        } = self
        {
            let name = format!("bits {}-{}", lo, lo + width - 1);
            for (t, test) in [(zero, "not all ones"), (one, "all ones")] {
                path.push(format!("{name} {test}"));
                t.walk(path, out);
                path.pop();
            }
            return;
        }
        let (zero, one, name, width, values) = match self {
            Tree::Leaf { class, support } => {
                out.push((path.clone(), *class, *support));
                return;
            }
            Tree::Split { bit, zero, one } => (zero, one, format!("bit {bit}"), 1, 2u16),
            Tree::Ones { .. } => return,
            Tree::Field {
                bits,
                values,
                zero,
                one,
            } => {
                let names: Vec<String> = bits.iter().map(u8::to_string).collect();
                let name = format!("bits {}", names.join(", "));
                (zero, one, name, bits.len(), *values)
            }
        };
        let set = |v: u16| {
            let list: Vec<String> = (0..16)
                .filter(|i| v >> i & 1 == 1)
                .map(|i| i.to_string())
                .collect();
            if list.len() == 1 {
                format!("= {}", list[0])
            } else {
                format!("in {{{}}}", list.join(", "))
            }
        };
        // Every value the tested bits can hold (at most 2^MAX_FIELD_WIDTH = 16).
        let all: u16 = ((1u32 << (1 << width)) - 1) as u16;
        path.push(format!("{name} {}", set(all & !values)));
        zero.walk(path, out);
        path.pop();
        path.push(format!("{name} {}", set(values)));
        one.walk(path, out);
        path.pop();
    }
}

/// The mask of `width` bits from `lo` up.
fn run_mask(lo: u8, width: u8) -> u128 {
    ((1u128 << width) - 1) << lo
}

/// Whether the `width` bits of `word` from `lo` up are all ones.
fn all_ones(word: u128, lo: u8, width: u8) -> bool {
    let m = run_mask(lo, width);
    word & m == m
}

/// The value of `bits` in `word` (bit `bits[i]` has weight 2^i).
fn value_of(word: u128, bits: &[u8]) -> usize {
    bits.iter()
        .enumerate()
        .map(|(i, &b)| ((word >> b & 1) as usize) << i)
        .sum()
}

fn entropy(counts: &[u32], n: u32) -> f64 {
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n as f64;
            -p * p.log2()
        })
        .sum()
}

fn class_counts(samples: &[(u128, u16)], idx: &[usize]) -> Vec<u32> {
    let mut counts = Vec::new();
    for &i in idx {
        let c = samples[i].1 as usize;
        if counts.len() <= c {
            counts.resize(c + 1, 0);
        }
        counts[c] += 1;
    }
    counts
}

fn leaf(counts: &[u32], n: usize) -> Tree {
    let class = (0..counts.len())
        .max_by_key(|&c| (counts[c], std::cmp::Reverse(c)))
        .unwrap_or(0) as u16;
    Tree::Leaf {
        class,
        support: n as u32,
    }
}

/// A tree grown from all of `samples` with `tests`; `None` without samples.
fn grown(samples: &[(u128, u16)], tests: Tests) -> Option<Tree> {
    if samples.is_empty() {
        return None;
    }
    let mut idx: Vec<usize> = (0..samples.len()).collect();
    let x = XLog2::upto(samples.len());
    Some(grow((samples, &x), &mut idx, 0, tests))
}

/// `c * log2(c)` for every count `c` up to a tree's sample count (`0` at `c = 0`), so a
/// split's gain costs table lookups, not a logarithm per class per candidate test (SM100
/// F2FP's legality tree, 2 x 8128 pair tests per node, spent 86% of its CPU in them).
struct XLog2(Vec<f64>);

impl XLog2 {
    fn upto(n: usize) -> XLog2 {
        XLog2(
            (0..=n)
                .map(|c| {
                    if c == 0 {
                        0.0
                    } else {
                        c as f64 * (c as f64).log2()
                    }
                })
                .collect(),
        )
    }

    fn of(&self, c: u32) -> f64 {
        self.0[c as usize]
    }
}

/// Which tests besides single bits a tree may take.
#[derive(Clone, Copy)]
struct Tests {
    /// [`Tree::Field`] tests.
    fields: bool,
    /// [`Tree::Ones`] tests.
    runs: bool,
}

fn grow(
    (samples, x): (&[(u128, u16)], &XLog2),
    idx: &mut [usize],
    depth: usize,
    tests: Tests,
) -> Tree {
    let counts = class_counts(samples, idx);
    let n = idx.len() as u32;
    if counts.iter().filter(|&&c| c > 0).count() <= 1 || depth >= MAX_DEPTH {
        return leaf(&counts, idx.len());
    }
    let h = entropy(&counts, n);
    // The tests are weighed over the classes this node holds only (a guess's tree over a
    // slot of 1,344 texts holds a few per node deep down): the gains are those over every
    // class, whose absent ones add nothing.
    let (local, local_counts) = present_classes(samples, idx, &counts);
    let all: Vec<usize> = (0..local.len()).collect();
    let at = (local.as_slice(), x);
    let bit = best_bit(at, &all, &local_counts, h);
    // A bit that leaves every side pure cannot be beaten.
    let perfect = bit.is_some_and(|(g, _)| g >= h - 1e-9);
    let field = if tests.fields && !perfect {
        best_field(at, &all, &local_counts, h)
    } else if tests.runs && !perfect {
        best_run(at, &all, &local_counts, h)
    } else {
        None
    };
    let test = match (bit, field) {
        (Some((gb, _)), Some((gf, f))) if gf > gb + 1e-9 => f,
        (Some((_, b)), _) => Test::Bit(b),
        (None, Some((_, f))) => f,
        (None, None) => return leaf(&counts, idx.len()),
    };
    let node = |zero, one| match test {
        Test::Bit(bit) => Tree::Split { bit, zero, one },
        Test::Field { bits, n, values } => Tree::Field {
            bits: bits[..n as usize].to_vec(),
            values,
            zero,
            one,
        },
        Test::Ones { lo, width } => Tree::Ones {
            lo,
            width,
            zero,
            one,
        },
    };
    let split = partition(idx, |i| test.goes_one(samples[i].0));
    let (zero, one) = idx.split_at_mut(split);
    node(
        Box::new(grow((samples, x), zero, depth + 1, tests)),
        Box::new(grow((samples, x), one, depth + 1, tests)),
    )
}

/// The samples `idx` of `samples` with their classes renumbered over those `counts` (their
/// per-class counts) holds, in class order, and the counts of those: (samples, counts).
fn present_classes(
    samples: &[(u128, u16)],
    idx: &[usize],
    counts: &[u32],
) -> (Vec<(u128, u16)>, Vec<u32>) {
    let mut renumber = vec![0u16; counts.len()];
    let mut local_counts = Vec::new();
    for (c, &n) in counts.iter().enumerate().filter(|(_, n)| **n > 0) {
        renumber[c] = local_counts.len() as u16;
        local_counts.push(n);
    }
    let local = idx
        .iter()
        .map(|&i| (samples[i].0, renumber[usize::from(samples[i].1)]))
        .collect();
    (local, local_counts)
}

/// One node's test while growing: a bit, or the first `n` of `bits` and the values of them
/// that go to `one`.
#[derive(Clone, Copy)]
enum Test {
    Bit(u8),
    Field {
        bits: [u8; MAX_FIELD_WIDTH],
        n: u8,
        values: u16,
    },
    Ones {
        lo: u8,
        width: u8,
    },
}

impl Test {
    fn goes_one(self, word: u128) -> bool {
        match self {
            Test::Bit(b) => word >> b & 1 == 1,
            Test::Field { bits, n, values } => {
                values >> value_of(word, &bits[..n as usize]) & 1 == 1
            }
            Test::Ones { lo, width } => all_ones(word, lo, width),
        }
    }

    fn field(bits: &[u8], values: u16) -> Test {
        let mut b = [0u8; MAX_FIELD_WIDTH];
        b[..bits.len()].copy_from_slice(bits);
        Test::Field {
            bits: b,
            n: bits.len() as u8,
            values,
        }
    }
}

/// Information gain of splitting `counts` (n samples, entropy h) into `c1` and the rest:
/// `h` less the sides' entropies weighted by their sizes, where a side of `m` samples in
/// classes `c` holds `m log2 m - sum(c log2 c)` bits.
fn split_gain(x: &XLog2, counts: &[u32], c1: &[u32], n: u32, h: f64) -> Option<f64> {
    let n1: u32 = c1.iter().sum();
    if n1 == 0 || n1 == n {
        return None;
    }
    let classes: f64 = counts
        .iter()
        .zip(c1)
        .map(|(&a, &b)| x.of(a - b) + x.of(b))
        .sum();
    let rest = (x.of(n - n1) + x.of(n1) - classes) / n as f64;
    Some(h - rest)
}

/// The single bit of highest gain above zero (ties to the lowest bit): (gain, bit).
fn best_bit(
    (samples, x): (&[(u128, u16)], &XLog2),
    idx: &[usize],
    counts: &[u32],
    h: f64,
) -> Option<(f64, u8)> {
    let n = idx.len() as u32;
    let k = counts.len();
    // Every bit's per-class counts in one pass over the samples, each sample counted at the
    // bits it sets (the counts a pass per bit gave).
    let mut ones = vec![0u32; 128 * k];
    for &i in idx {
        let (w, c) = samples[i];
        for_each_one(w, |b| ones[b * k + c as usize] += 1);
    }
    let mut best: Option<(f64, u8)> = None;
    for (bit, c1) in (0..128u8).zip(ones.chunks_exact(k)) {
        let Some(gain) = split_gain(x, counts, c1, n, h) else {
            continue;
        };
        if best.is_none_or(|(g, _)| gain > g + 1e-12) {
            best = Some((gain, bit));
        }
    }
    best.filter(|(g, _)| *g > 1e-9)
}

/// Calls `f` with the place of each bit `w` sets, lowest first.
fn for_each_one(mut w: u128, mut f: impl FnMut(usize)) {
    while w != 0 {
        f(w.trailing_zeros() as usize);
        w &= w - 1;
    }
}

/// The field test of highest gain above zero: over every run of 2..=[`MAX_FIELD_WIDTH`]
/// adjacent bits and every pair of bits, the values ordered by how often they hold each class,
/// cut where the gain is highest (the best binary grouping for two classes; a good one for
/// more). (gain, test).
fn best_field(
    (samples, x): (&[(u128, u16)], &XLog2),
    idx: &[usize],
    counts: &[u32],
    h: f64,
) -> Option<(f64, Test)> {
    let n = idx.len() as u32;
    let k = counts.len();
    let mut best: Option<(f64, Test)> = None;
    // The value orders of one field already cut: a class that orders the values as another
    // did offers the same cuts, none of which gains more than the best already kept.
    let mut cut: Vec<Vec<usize>> = Vec::new();
    let mut consider = |bits: &[u8], hist: &[u32]| {
        let sums: Vec<u32> = hist.chunks_exact(k).map(|row| row.iter().sum()).collect();
        let present: Vec<usize> = (0..1usize << bits.len()).filter(|&v| sums[v] > 0).collect();
        if present.len() < 2 {
            return;
        }
        cut.clear();
        for class in (0..k).filter(|&c| counts[c] > 0) {
            let order = share_order(&present, |v| {
                f64::from(hist[v * k + class]) / f64::from(sums[v])
            });
            if cut.contains(&order) {
                continue;
            }
            if let Some((g, values)) = best_cut(x, (hist, k), &order, counts, n, h)
                && best.as_ref().is_none_or(|(bg, _)| g > bg + 1e-12)
            {
                best = Some((g, Test::field(bits, values)));
            }
            cut.push(order);
        }
    };
    // Pairs first: a wider run that gains no more (a fixed bit beside them) is not taken.
    let sets = BitSets::new(samples, idx, k);
    for a in 0..128u8 {
        if !sets.varies(a) {
            continue;
        }
        for b in a + 1..128 {
            if sets.varies(b) {
                consider(&[a, b], &sets.pair_hist(a, b));
            }
        }
    }
    for width in 3..=MAX_FIELD_WIDTH as u8 {
        for lo in 0..=(128 - width) {
            let bits: Vec<u8> = (lo..lo + width).collect();
            let mut hist = vec![0u32; k << width];
            let low = (1u128 << width) - 1;
            for &i in idx {
                let (w, c) = samples[i];
                hist[(w >> lo & low) as usize * k + c as usize] += 1;
            }
            consider(&bits, &hist);
        }
    }
    best.filter(|(g, _)| *g > 1e-9)
}

/// The run of [`MIN_RUN_WIDTH`]..=[`MAX_RUN_WIDTH`] adjacent bits whose all-ones test gains
/// most above zero (ties to the widest, then the lowest: a register field at all ones is the
/// whole field, where its top bits alone are all ones in every answer that shows them):
/// (gain, test).
fn best_run(
    (samples, x): (&[(u128, u16)], &XLog2),
    idx: &[usize],
    counts: &[u32],
    h: f64,
) -> Option<(f64, Test)> {
    let n = idx.len() as u32;
    let k = counts.len();
    // Per (width, lowest bit), the per-class counts of the samples whose run there is all
    // ones, in one pass over the samples: a word's runs of `width` ones start at the bits of
    // the word ANDed with itself shifted down by 1..width (the counts a pass per run gave).
    let widths = usize::from(MAX_RUN_WIDTH - MIN_RUN_WIDTH) + 1;
    let mut ones = vec![0u32; widths * 128 * k];
    for &i in idx {
        let (w, c) = samples[i];
        let mut starts = w;
        for shift in 1..MAX_RUN_WIDTH {
            starts &= w >> shift;
            if shift + 1 >= MIN_RUN_WIDTH {
                let at = usize::from(shift + 1 - MIN_RUN_WIDTH) * 128;
                for_each_one(starts, |lo| ones[(at + lo) * k + c as usize] += 1);
            }
        }
    }
    let mut best: Option<(f64, Test)> = None;
    for width in (MIN_RUN_WIDTH..=MAX_RUN_WIDTH).rev() {
        for lo in 0..=(128 - width) {
            let at = (usize::from(width - MIN_RUN_WIDTH) * 128 + usize::from(lo)) * k;
            let c1 = &ones[at..at + k];
            let Some(gain) = split_gain(x, counts, c1, n, h) else {
                continue;
            };
            if best.as_ref().is_none_or(|(g, _)| gain > g + 1e-12) {
                best = Some((gain, Test::Ones { lo, width }));
            }
        }
    }
    best.filter(|(g, _)| *g > 1e-9)
}

/// One node's samples as bit sets: per word bit, the samples with it set; per class, its
/// samples. Pair counts then cost one AND and a popcount per 64 samples.
struct BitSets {
    /// `bit[b]`: samples with word bit b set.
    bit: Vec<Vec<u64>>,
    /// `class[c]`: samples of class c.
    class: Vec<Vec<u64>>,
    /// `ones[b][c]`: samples of class c with bit b set.
    ones: Vec<Vec<u32>>,
    /// Samples per class.
    counts: Vec<u32>,
}

impl BitSets {
    fn new(samples: &[(u128, u16)], idx: &[usize], k: usize) -> BitSets {
        let words = idx.len().div_ceil(64);
        let mut bit = vec![vec![0u64; words]; 128];
        let mut class = vec![vec![0u64; words]; k];
        let mut ones = vec![vec![0u32; k]; 128];
        let mut counts = vec![0u32; k];
        for (j, &i) in idx.iter().enumerate() {
            let (w, c) = samples[i];
            class[c as usize][j / 64] |= 1 << (j % 64);
            counts[c as usize] += 1;
            for (b, set) in bit.iter_mut().enumerate() {
                if w >> b & 1 == 1 {
                    set[j / 64] |= 1 << (j % 64);
                    ones[b][c as usize] += 1;
                }
            }
        }
        BitSets {
            bit,
            class,
            ones,
            counts,
        }
    }

    /// Whether bit b is set in some samples and clear in others.
    fn varies(&self, b: u8) -> bool {
        let set: u32 = self.ones[b as usize].iter().sum();
        set > 0 && set < self.counts.iter().sum::<u32>()
    }

    /// Class counts per value of (a, b) (a weight 1, b weight 2), as `hist[v * k + c]`.
    fn pair_hist(&self, a: u8, b: u8) -> Vec<u32> {
        let k = self.counts.len();
        let (sa, sb) = (&self.bit[a as usize], &self.bit[b as usize]);
        let mut hist = vec![0u32; 4 * k];
        for c in 0..k {
            let both: u32 = sa
                .iter()
                .zip(sb)
                .zip(&self.class[c])
                .map(|((x, y), z)| (x & y & z).count_ones())
                .sum();
            let (only_a, only_b) = (
                self.ones[a as usize][c] - both,
                self.ones[b as usize][c] - both,
            );
            hist[3 * k + c] = both;
            hist[k + c] = only_a;
            hist[2 * k + c] = only_b;
            hist[c] = self.counts[c] - both - only_a - only_b;
        }
        hist
    }
}

/// `present` (values of one field) by `share` (of one class among each value's samples),
/// highest first, ties to the lower value.
fn share_order(present: &[usize], share: impl Fn(usize) -> f64) -> Vec<usize> {
    let mut order = present.to_vec();
    order.sort_by(|&a, &b| share(b).total_cmp(&share(a)).then(a.cmp(&b)));
    order
}

/// The values of one field in `order` ([`share_order`]), cut at the prefix of highest gain:
/// (gain, values of the prefix as a bit set).
fn best_cut(
    x: &XLog2,
    (hist, k): (&[u32], usize),
    order: &[usize],
    counts: &[u32],
    n: u32,
    h: f64,
) -> Option<(f64, u16)> {
    let mut c1 = vec![0u32; k];
    let mut values = 0u16;
    let mut best: Option<(f64, u16)> = None;
    for &v in &order[..order.len() - 1] {
        values |= 1 << v;
        for (c, x) in c1.iter_mut().enumerate() {
            *x += hist[v * k + c];
        }
        if let Some(g) = split_gain(x, counts, &c1, n, h)
            && best.is_none_or(|(bg, _)| g > bg + 1e-12)
        {
            best = Some((g, values));
        }
    }
    best
}

/// Reorders `idx` so samples with `one(i)` false come first; returns how many there are.
fn partition(idx: &mut [usize], one: impl Fn(usize) -> bool) -> usize {
    let mut k = 0;
    for j in 0..idx.len() {
        if !one(idx[j]) {
            idx.swap(k, j);
            k += 1;
        }
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_split_gain_by_table_is_the_entropy_difference() {
        // 10 samples in classes (5, 3, 2), split into (4, 0, 1) and (1, 3, 1).
        let (counts, c1, n) = ([5u32, 3, 2], [4u32, 0, 1], 10);
        let h = entropy(&counts, n);
        let by_entropy = h - (5.0 * entropy(&[4, 0, 1], 5) + 5.0 * entropy(&[1, 3, 1], 5)) / 10.0;
        let x = XLog2::upto(10);
        let gain = split_gain(&x, &counts, &c1, n, h).unwrap();
        assert!((gain - by_entropy).abs() < 1e-12, "{gain} vs {by_entropy}");
        assert!((gain - 0.439_035_952_556_319).abs() < 1e-9, "{gain}");
        // A side with every sample or none is no split.
        assert_eq!(split_gain(&x, &counts, &counts, n, h), None);
        assert_eq!(split_gain(&x, &counts, &[0, 0, 0], n, h), None);
    }

    #[test]
    fn learns_a_two_bit_rule_exactly() {
        // class 1 (e.g. "unrecognised") iff bit 0 = 1 and bit 91 = 0, as nvdisasm does for
        // SM80 LD words with opcode bit 0 set.
        let mut s = Vec::new();
        let mut x = 0x9e37_79b9_7f4a_7c15u128;
        for _ in 0..400 {
            x = x
                .wrapping_mul(0x2545_f491_4f6c_dd1d_u128 | 1)
                .rotate_left(17)
                ^ 0x1234_5678;
            let class = u16::from(x & 1 == 1 && x >> 91 & 1 == 0);
            s.push((x, class));
        }
        let t = Tree::learn(&s).unwrap();
        for &(w, c) in &s {
            assert_eq!(t.classify(w), c);
        }
        assert_eq!(t.classify(1), 1);
        assert_eq!(t.classify(1 | 1 << 91), 0);
        assert_eq!(t.classify(0), 0);
        assert_eq!(t.leaves(), 3);
    }

    #[test]
    fn a_tree_over_sparse_class_numbers_names_them_as_given() {
        // Classes numbered 7, 900 and 1,500 (three texts of a slot of many): a node weighs
        // only the classes it holds, and its leaves still name the numbers given. Bits 4-5 pick
        // the class (0 -> 7, 1 or 2 -> 900, 3 -> 1,500).
        let s: Vec<(u128, u16)> = words(600, 0x51)
            .into_iter()
            .map(|w| (w, [7, 900, 900, 1500][(w >> 4 & 3) as usize]))
            .collect();
        for fields in [false, true] {
            let t = Tree::learn_with(&s, fields).unwrap();
            assert_eq!(t.max_class(), 1500);
            for &(w, c) in &s {
                assert_eq!(t.classify(w), c);
            }
            assert_eq!(t.classify(0), 7);
            assert_eq!(t.classify(0x30), 1500);
            assert_eq!(t.classify(0x20), 900);
        }
    }

    /// Pseudo-random words (a fixed sequence; no test depends on the seed's luck).
    fn words(n: usize, seed: u128) -> Vec<u128> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(0x2545_f491_4f6c_dd1d_u128 | 1)
                    .rotate_left(29)
                    ^ 0x9e37_79b9;
                x
            })
            .collect()
    }

    #[test]
    fn two_bits_that_say_nothing_alone_are_one_field_node() {
        // Unrecognised (class 1) iff bits 76 and 85 are equal, as nvdisasm does for SM80 F2F's
        // constant-bank words: each bit alone splits both classes evenly.
        let class = |w: u128| u16::from((w >> 76 & 1) == (w >> 85 & 1));
        let learned: Vec<(u128, u16)> = words(600, 7).into_iter().map(|w| (w, class(w))).collect();
        let t = Tree::learn_with(&learned, true).unwrap();
        assert_eq!(t.leaves(), 2);
        assert_eq!(t.bits(), 1 << 76 | 1 << 85);
        // Words it never learned from.
        for w in words(600, 99) {
            assert_eq!(t.classify(w), class(w), "{w:032x}");
        }
        // Single bits alone do not find it: on the same unseen words they miss.
        let plain = Tree::learn(&learned).unwrap();
        let missed = words(600, 99)
            .into_iter()
            .filter(|&w| plain.classify(w) != class(w))
            .count();
        assert!(missed > 30, "single-bit tree missed only {missed}");
    }

    #[test]
    fn a_run_of_three_bits_with_scattered_values_is_one_field_node() {
        // Class 1 iff bits 84-86 hold 1, 4 or 6.
        let class = |w: u128| u16::from(matches!(w >> 84 & 7, 1 | 4 | 6));
        let learned: Vec<(u128, u16)> = words(800, 3).into_iter().map(|w| (w, class(w))).collect();
        let t = Tree::learn_with(&learned, true).unwrap();
        assert_eq!(t.leaves(), 2);
        assert_eq!(t.bits(), 7 << 84);
        for w in words(400, 11) {
            assert_eq!(t.classify(w), class(w));
        }
        let paths: Vec<(Vec<String>, u16)> =
            t.paths().into_iter().map(|(p, c, _)| (p, c)).collect();
        assert_eq!(
            paths,
            vec![
                (vec!["bits 84, 85, 86 in {1, 4, 6}".to_string()], 1),
                (vec!["bits 84, 85, 86 in {0, 2, 3, 5, 7}".to_string()], 0),
            ]
        );
        // A four-bit field's complement spans all 16 values.
        let four = Tree::Field {
            bits: vec![24, 25, 26, 27],
            values: 1 << 15,
            zero: Box::new(Tree::Leaf {
                class: 0,
                support: 3,
            }),
            one: Box::new(Tree::Leaf {
                class: 1,
                support: 1,
            }),
        };
        assert_eq!(
            four.paths()[1].0,
            vec!["bits 24, 25, 26, 27 = 15".to_string()]
        );
        assert_eq!(four.paths()[0].0[0].matches(',').count(), 3 + 14);
        assert_eq!(four.classify(0xf << 24), 1);
        assert_eq!(four.classify(0x7 << 24), 0);
    }

    #[test]
    fn a_register_field_at_its_highest_value_is_one_run_node() {
        // Class 1 (the immediate form) iff bits 24-31 are all ones (RZ), as nvdisasm reads
        // SM80 ALD's address register: a third of the words at RZ, the others below R248;
        // none with R249 or R251, which a tree of single bits (or of bits 27-31 alone, all
        // ones in the same answers) then misreads.
        let s: Vec<(u128, u16)> = words(600, 0x5151)
            .into_iter()
            .enumerate()
            .map(|(i, w)| {
                let reg = if i % 3 == 0 {
                    0xff
                } else {
                    (w >> 24 & 0xff) % 0xf8
                };
                let w = w & !(0xffu128 << 24) | reg << 24;
                (w, u16::from(reg == 0xff))
            })
            .collect();
        let t = Tree::learn(&s).unwrap();
        assert_eq!(t.leaves(), 2);
        assert_eq!(t.bits(), 0xffu128 << 24);
        assert_eq!(t.classify(0xf9u128 << 24), 0);
        assert_eq!(t.classify(0xfbu128 << 24), 0);
        assert_eq!(t.classify(0xffu128 << 24 | 1 << 100), 1);
        let paths: Vec<String> = t
            .paths()
            .into_iter()
            .map(|(p, _, _)| p.join(", "))
            .collect();
        assert_eq!(
            paths,
            vec!["bits 24-31 not all ones", "bits 24-31 all ones"]
        );
    }

    #[test]
    fn one_class_is_one_leaf() {
        let t = Tree::learn(&[(5, 2), (9, 2)]).unwrap();
        assert_eq!(
            t,
            Tree::Leaf {
                class: 2,
                support: 2
            }
        );
        assert!(Tree::learn(&[]).is_none());
    }
}
