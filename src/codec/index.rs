//! Decode index: a decision tree over fixed bits, built once per arch, so that a word is
//! checked against a handful of variants instead of every variant of the arch.
//!
//! A split node gathers a few bits of the word (at most [`MAX_KEY_BITS`], in at most
//! [`MAX_RUNS`] runs of adjacent bits) into a child number and looks the child up in a dense
//! table: no hashing. A leaf lists the variants left to check one by one, in table order.
//! A variant that does not fix a split bit is listed under every child, so the leaf a word
//! reaches holds every variant whose fixed bits can match that word.

use super::VariantId;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

/// One variant as the index sees it: its id and its fixed bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Candidate {
    /// The variant.
    pub(super) id: VariantId,
    /// Bits the variant fixes.
    pub(super) mask: u128,
    /// Values of those bits (zero outside `mask`).
    pub(super) value: u128,
}

impl Candidate {
    /// Whether `word`'s fixed bits are this variant's.
    fn matches(&self, word: u128) -> bool {
        word & self.mask == self.value
    }
}

/// Most word bits one split node gathers (its child table has `2^bits` entries).
const MAX_KEY_BITS: u32 = 6;
/// Most runs of adjacent bits one split node gathers.
const MAX_RUNS: usize = 4;
/// Lists this short are left as leaves.
const LEAF_LEN: usize = 2;
/// Leaf entries allowed per variant before the builder stops splitting: duplicated variants
/// (those that do not fix a split bit) cannot blow the index up on odd tables.
const ENTRIES_PER_VARIANT: usize = 32;

/// Word bits `lo .. lo + len`, placed at bit `at` of a child number (what the builder
/// needs; [`Take`] is what the walk reads).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Run {
    lo: u8,
    take: Take,
}

/// A [`Run`]'s bits as the walk reads them: bits `sh .. sh + len` of the word's 64-bit window
/// `win` ([`windows`]), placed at bit `at` of a child number; [`gather`] shifts a `u64`, not
/// the `u128`. Four bytes, so that a split node is 24 bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Take {
    len: u8,
    at: u8,
    win: u8,
    sh: u8,
}

impl Run {
    /// The run of `len` (1..=[`MAX_KEY_BITS`]) word bits from `lo`, at bit `at` of a child
    /// number.
    fn new(lo: u32, len: u32, at: u8) -> Run {
        let (win, start) = if lo + len <= 64 {
            (0, 0)
        } else if lo >= 64 {
            (1, 64)
        } else {
            // Crosses bit 64: with at most MAX_KEY_BITS bits it lies inside bits 32..=95.
            (2, 32)
        };
        Run {
            lo: lo as u8,
            take: Take {
                len: len as u8,
                at,
                win,
                sh: (lo - start) as u8,
            },
        }
    }
}

/// The [`Take`]s of `runs` (the unused ones default).
fn takes_of(runs: &[Run; MAX_RUNS]) -> [Take; MAX_RUNS] {
    runs.map(|r| r.take)
}

/// The word's 64-bit windows a [`Run`] reads: bits 0..=63, 64..=127 and 32..=95 (and a zero
/// fourth, so that a window is picked with a mask).
#[inline]
fn windows(word: u128) -> [u64; 4] {
    [word as u64, (word >> 64) as u64, (word >> 32) as u64, 0]
}

/// A tree node; nodes refer to each other by index into [`Index::nodes`].
#[derive(Debug, Clone, Copy)]
enum Node {
    /// The child of a word is `children[first + n]`, `n` the word's bits under `takes`.
    Split {
        takes: [Take; MAX_RUNS],
        n_runs: u8,
        first: u32,
    },
    /// The variants to check: `entries[start..end]`, in table order.
    Leaf { start: u32, end: u32 },
}

/// The node index of the empty leaf (no variant), shared by every empty child.
const EMPTY: u32 = 0;

/// The decision tree of one arch, in flat arrays.
#[derive(Debug)]
pub(super) struct Index {
    /// Node 0 is the empty leaf; the root is `root`.
    nodes: Vec<Node>,
    root: u32,
    /// Child node indices of all split nodes, each node's `2^bits` in a row.
    children: Vec<u32>,
    /// `nodes[children[i]]` for every `i`: a word's walk loads the next node straight from
    /// here, not its index and then the node (one dependent load per level instead of two;
    /// the tree walk is most of a decode). Filled once the tree is built.
    child_nodes: Vec<Node>,
    /// Leaf lists, concatenated.
    entries: Vec<Candidate>,
    /// Every variant of the arch, in table order.
    all: Vec<Candidate>,
    /// `entries.len()` beyond which no node is split further.
    budget: usize,
}

/// Builds an [`Index`]. Lists of the same candidates reached with the same used bits (of
/// those the candidates fix) share one subtree.
struct Builder {
    ix: Index,
    shared: FxHashMap<(Vec<VariantId>, u128), u32>,
}

impl Builder {
    /// Adds the subtree for `cands` (table order), which agree on the bits of `used`;
    /// returns its node index.
    fn add(&mut self, cands: Vec<Candidate>, used: u128) -> u32 {
        if cands.is_empty() {
            return EMPTY;
        }
        let fixed = cands.iter().fold(0, |m, c| m | c.mask);
        let key = (cands.iter().map(|c| c.id).collect(), used & fixed);
        if let Some(&node) = self.shared.get(&key) {
            return node;
        }
        let split = if cands.len() > LEAF_LEN && self.ix.entries.len() < self.ix.budget {
            choose_split(&cands, used)
        } else {
            None
        };
        let node = match split {
            Some(bits) => self.add_split(&cands, used, bits),
            None => self.ix.push_leaf(cands),
        };
        self.shared.insert(key, node);
        node
    }

    fn add_split(&mut self, cands: &[Candidate], used: u128, bits: u128) -> u32 {
        let (runs, n_runs) = runs_of(bits);
        let n_children = 1usize << bits.count_ones();
        let first = self.ix.children.len();
        self.ix.children.resize(first + n_children, EMPTY);
        let node = self.ix.nodes.len() as u32;
        self.ix.nodes.push(Node::Split {
            takes: takes_of(&runs),
            n_runs: n_runs as u8,
            first: first as u32,
        });
        for n in 0..n_children {
            let at = scatter(n, &runs[..n_runs]);
            let below: Vec<Candidate> = cands
                .iter()
                .filter(|c| (c.value ^ at) & c.mask & bits == 0)
                .copied()
                .collect();
            self.ix.children[first + n] = self.add(below, used | bits);
        }
        node
    }
}

impl Index {
    /// Builds the tree for one arch's variants, given in table order.
    pub(super) fn build(all: Vec<Candidate>) -> Index {
        let ix = Index {
            nodes: vec![Node::Leaf { start: 0, end: 0 }],
            root: EMPTY,
            children: Vec::new(),
            child_nodes: Vec::new(),
            entries: Vec::new(),
            budget: ENTRIES_PER_VARIANT * all.len(),
            all: all.clone(),
        };
        let mut b = Builder {
            ix,
            shared: FxHashMap::default(),
        };
        b.ix.root = b.add(all, 0);
        let mut ix = b.ix;
        ix.child_nodes = ix.children.iter().map(|&c| ix.nodes[c as usize]).collect();
        ix
    }

    fn push_leaf(&mut self, cands: Vec<Candidate>) -> u32 {
        let start = self.entries.len() as u32;
        self.entries.extend(cands);
        self.nodes.push(Node::Leaf {
            start,
            end: self.entries.len() as u32,
        });
        (self.nodes.len() - 1) as u32
    }

    /// Writes the first `out.len()` matching variants (table order) into `out`; returns how
    /// many match in all.
    #[inline]
    pub(super) fn matches(&self, word: u128, out: &mut [VariantId]) -> usize {
        self.matches_with(word, |n, id| {
            if let Some(slot) = out.get_mut(n) {
                *slot = id;
            }
        })
    }

    /// Gives each matching variant (table order) to `put` with its place among them (0 the
    /// first); returns how many match in all. The caller puts them where it keeps them,
    /// with no list in between to copy (a copy that reads a freshly written list with wider
    /// loads than its stores waits for the stores).
    #[inline]
    pub(super) fn matches_with(&self, word: u128, put: impl FnMut(usize, VariantId)) -> usize {
        let win = windows(word);
        let mut node = self.nodes[self.root as usize];
        loop {
            match node {
                Node::Split {
                    takes,
                    n_runs,
                    first,
                } => {
                    let n = gather(&win, &takes[..n_runs as usize]);
                    node = self.child_nodes[first as usize + n];
                }
                Node::Leaf { start, end } => {
                    return scan(&self.entries[start as usize..end as usize], word, put);
                }
            }
        }
    }

    /// Every variant of the arch, in table order (for nearest-variant searches).
    pub(super) fn all(&self) -> &[Candidate] {
        &self.all
    }

    /// (nodes, leaf entries, longest leaf): the size of the tree, for tests.
    #[cfg(test)]
    fn shape(&self) -> (usize, usize, usize) {
        let longest = self
            .nodes
            .iter()
            .map(|n| match n {
                Node::Leaf { start, end } => (end - start) as usize,
                Node::Split { .. } => 0,
            })
            .max()
            .unwrap_or(0);
        (self.nodes.len(), self.entries.len(), longest)
    }
}

/// Checks a leaf's variants in order; see [`Index::matches`].
#[inline]
fn scan(cands: &[Candidate], word: u128, mut put: impl FnMut(usize, VariantId)) -> usize {
    let mut n = 0;
    for c in cands {
        if c.matches(word) {
            put(n, c.id);
            n += 1;
        }
    }
    n
}

/// The word's bits under `runs`, packed into a child number.
#[inline]
fn gather(win: &[u64; 4], takes: &[Take]) -> usize {
    takes.iter().fold(0, |n, r| {
        // `sh < 64`, `len <= MAX_KEY_BITS` and `at < MAX_KEY_BITS`: no overflow checks, which
        // the fuzz build would trace as comparisons.
        let bits = win[r.win as usize & 3].wrapping_shr(r.sh as u32) as usize;
        n | (bits & ((1usize << r.len) - 1)).wrapping_shl(r.at as u32)
    })
}

/// The word bits a child number `n` stands for (the inverse of [`gather`]).
fn scatter(n: usize, runs: &[Run]) -> u128 {
    runs.iter().fold(0, |w, r| {
        w | ((((n >> r.take.at) & ((1 << r.take.len) - 1)) as u128) << r.lo)
    })
}

/// The runs of adjacent bits of `bits` (at most [`MAX_RUNS`] of them), lowest first.
fn runs_of(bits: u128) -> ([Run; MAX_RUNS], usize) {
    let mut runs = [Run::default(); MAX_RUNS];
    let (mut n, mut rest, mut at) = (0, bits, 0u8);
    while rest != 0 && n < MAX_RUNS {
        let lo = rest.trailing_zeros();
        let len = (rest >> lo).trailing_ones();
        runs[n] = Run::new(lo, len, at);
        at += len as u8;
        rest &= !(crate::spec::bits_mask(len) << lo);
        n += 1;
    }
    (runs, n)
}

/// The bits to split `cands` on, if a split helps: of the groups of bits that the same
/// candidates fix, the one that leaves the fewest candidates to check (see [`expected_scan`]),
/// if that saves at least one check.
fn choose_split(cands: &[Candidate], used: u128) -> Option<u128> {
    let now = cands.len() as f64;
    bit_groups(cands, used)
        .into_iter()
        .map(|bits| (expected_scan(cands, bits), bits.count_ones(), bits))
        .filter(|&(scan, _, _)| scan <= now - 1.0)
        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
        .map(|(_, _, bits)| bits)
}

/// The bits outside `used` that some candidates fix, grouped by which candidates fix them
/// (each group cut to what one split node gathers, see [`lowest_bits`]). Bits every candidate
/// fixes to the same value tell nothing and are left out. Candidate sets are compared by a
/// 64-bit fingerprint: a collision merges two groups, which costs speed, never correctness.
fn bit_groups(cands: &[Candidate], used: u128) -> Vec<u128> {
    let all_fix = cands.iter().fold(!used, |m, c| m & c.mask);
    let differ = cands.iter().fold(0, |m, c| m | (c.value ^ cands[0].value));
    let mut fingerprint = [0u64; 128];
    let mut rng = super::SplitMix64(0x5eed);
    for c in cands {
        let key = rng.next_u64();
        let mut rest = c.mask & !used;
        while rest != 0 {
            let b = rest.trailing_zeros() as usize;
            fingerprint[b] = fingerprint[b].wrapping_add(key);
            rest &= rest - 1;
        }
    }
    let mut groups: BTreeMap<u64, u128> = BTreeMap::new();
    for b in (0..128u32).filter(|b| used >> b & 1 == 0) {
        let useless = all_fix >> b & 1 == 1 && differ >> b & 1 == 0;
        if fingerprint[b as usize] != 0 && !useless {
            *groups.entry(fingerprint[b as usize]).or_default() |= 1 << b;
        }
    }
    groups.into_values().map(lowest_bits).collect()
}

/// How many of `cands` a word meets at the leaf after splitting on `bits`, on average over
/// words that match one of `cands` (each equally likely, other bits random): `d` is still a
/// candidate for a word of `c` when they agree on the split bits both fix, with probability
/// one half per split bit that `d` fixes and `c` does not. Worked out per distinct pattern
/// of the split bits, so it costs little for long lists.
fn expected_scan(cands: &[Candidate], bits: u128) -> f64 {
    // (fixed split bits, their values, how many candidates have this pattern)
    let mut patterns: Vec<(u128, u128, usize)> = Vec::new();
    for c in cands {
        let (m, v) = (c.mask & bits, c.value & bits);
        match patterns.iter_mut().find(|p| p.0 == m && p.1 == v) {
            Some(p) => p.2 += 1,
            None => patterns.push((m, v, 1)),
        }
    }
    let mut total = 0.0;
    for &(cm, cv, cn) in &patterns {
        for &(dm, dv, dn) in &patterns {
            if (cv ^ dv) & cm & dm == 0 {
                total += (cn * dn) as f64 * 0.5f64.powi((dm & !cm).count_ones() as i32);
            }
        }
    }
    total / cands.len() as f64
}

/// The lowest set bits of `bits` that fit one split node ([`MAX_KEY_BITS`], [`MAX_RUNS`]).
fn lowest_bits(bits: u128) -> u128 {
    let mut out = 0u128;
    let (mut runs, mut prev) = (0, None);
    for b in (0..128u32).filter(|b| bits >> b & 1 == 1) {
        if prev != Some(b.wrapping_sub(1)) {
            runs += 1;
        }
        if runs > MAX_RUNS || out.count_ones() == MAX_KEY_BITS {
            break;
        }
        out |= 1 << b;
        prev = Some(b);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(n: u16, mask: u128, value: u128) -> Candidate {
        Candidate {
            id: VariantId {
                table: 0,
                variant: n,
            },
            mask,
            value,
        }
    }

    /// Every match, by brute force, in table order.
    fn brute(all: &[Candidate], word: u128) -> Vec<VariantId> {
        all.iter()
            .filter(|c| c.matches(word))
            .map(|c| c.id)
            .collect()
    }

    #[test]
    fn a_split_node_is_24_bytes() {
        // 36 bytes with each run's `lo` kept in the node: one node in two crossed a cache line.
        assert_eq!(std::mem::size_of::<Node>(), 24);
    }

    #[test]
    fn runs_round_trip() {
        // Runs in the low half, across bit 64, and in the high half.
        for (bits, want) in [
            (0b1100_0111u128 | 1 << 91, 3),
            (0b11u128 << 63 | 1 << 2 | 0b11 << 120, 3),
        ] {
            let (runs, n) = runs_of(bits);
            assert_eq!(n, want);
            for k in 0..1usize << bits.count_ones() {
                let w = scatter(k, &runs[..n]);
                assert_eq!(w & !bits, 0);
                let takes = takes_of(&runs);
                assert_eq!(gather(&windows(w), &takes[..n]), k);
                // Bits outside the runs do not change the child.
                assert_eq!(gather(&windows(w | !bits & u128::MAX >> 1), &takes[..n]), k);
            }
        }
        assert_eq!(lowest_bits(u128::MAX).count_ones(), MAX_KEY_BITS);
        assert_eq!(lowest_bits(0b1010_1010_1010), 0b1010_1010);
        assert_eq!(lowest_bits(0b1111_1111 << 4), 0b11_1111 << 4);
    }

    #[test]
    fn tree_finds_what_a_scan_finds() {
        // Overlapping variants: shared opcode bits, some fixing extra bits, duplicates.
        let op = 0xfffu128;
        let all = vec![
            cand(0, op | 1 << 91, 0x961 | 1 << 91),
            cand(1, op | 0xf << 72, 0x961 | 0x3 << 72),
            cand(2, op, 0x961),
            cand(3, op | 0xf << 72, 0x961 | 0x3 << 72),
            cand(4, op | 0xff << 24, 0x963 | 0x12 << 24),
            cand(5, op | 1 << 59, 0x963),
            cand(6, op | 1 << 59, 0x963 | 1 << 59),
            cand(7, op, 0x964),
        ];
        let ix = Index::build(all.clone());
        let mut rng = crate::codec::SplitMix64(7);
        for i in 0..20_000u32 {
            let r = (rng.next_u64() as u128) << 64 | rng.next_u64() as u128;
            // Mostly words with a tabled opcode.
            let w = if i.is_multiple_of(4) {
                r
            } else {
                let c = all[i as usize % all.len()];
                (r & !c.mask) | c.value
            };
            let mut out = [VariantId::default(); 3];
            let n = ix.matches(w, &mut out);
            let want = brute(&all, w);
            assert_eq!(n, want.len(), "{w:032x}");
            assert_eq!(&out[..n.min(3)], &want[..n.min(3)], "{w:032x}");
        }
        assert_eq!(ix.all(), &all[..]);
    }

    #[test]
    fn no_variants_matches_nothing() {
        let ix = Index::build(Vec::new());
        assert_eq!(ix.matches(0, &mut []), 0);
        assert_eq!(ix.shape(), (1, 0, 0));
    }

    #[test]
    fn real_tables_match_a_scan() {
        let tables = crate::spec::bundled_tables().unwrap();
        let codec = crate::codec::Codec::new(tables).unwrap();
        let mut rng = crate::codec::SplitMix64(11);
        for (arch, ix) in &codec.index {
            let (nodes, entries, _) = ix.shape();
            let all = ix.all();
            assert!(
                entries <= ENTRIES_PER_VARIANT * all.len(),
                "{arch}: {nodes} nodes"
            );
            for c in all {
                for _ in 0..200 {
                    let r = (rng.next_u64() as u128) << 64 | rng.next_u64() as u128;
                    // The variant's fixed bits, other bits random or mostly ones.
                    let fill = if rng.next_u64().is_multiple_of(2) {
                        r
                    } else {
                        r | r << 1 | r >> 1
                    };
                    let w = (fill & !c.mask) | c.value;
                    let mut out = [VariantId::default(); 4];
                    let n = ix.matches(w, &mut out);
                    let want = brute(all, w);
                    assert_eq!(n, want.len(), "{arch} {w:032x}");
                    assert_eq!(&out[..n.min(4)], &want[..n.min(4)], "{arch} {w:032x}");
                }
            }
        }
    }
}
