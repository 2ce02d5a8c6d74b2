//! A small decision tree over the 128 bits of a word (ID3: greedy information gain, one bit
//! per node), learned from recorded answers. Used where nvdisasm's choice depends on bits the
//! tables do not name: which mnemonic a word is (SM80 `LD` or `LDG`) and which words it does
//! not recognise at all ("Unrecognized operation for functional unit 'uC'").

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
}

/// Deepest tree learned (a guard against noise; the rules seen need 4 levels).
pub const MAX_DEPTH: usize = 12;

impl Tree {
    /// Learns a tree from (word, class) samples; `None` when there are no samples. Bits that
    /// every sample has equal are never tested; ties in gain go to the lowest bit.
    pub fn learn(samples: &[(u128, u16)]) -> Option<Tree> {
        if samples.is_empty() {
            return None;
        }
        let mut idx: Vec<usize> = (0..samples.len()).collect();
        Some(grow(samples, &mut idx, 0))
    }

    /// The class of `word`.
    pub fn classify(&self, word: u128) -> u16 {
        let mut t = self;
        loop {
            match t {
                Tree::Leaf { class, .. } => return *class,
                Tree::Split { bit, zero, one } => {
                    t = if word >> bit & 1 == 1 { one } else { zero };
                }
            }
        }
    }

    /// Number of leaves.
    pub fn leaves(&self) -> usize {
        match self {
            Tree::Leaf { .. } => 1,
            Tree::Split { zero, one, .. } => zero.leaves() + one.leaves(),
        }
    }

    /// Each leaf as its path: (bits that must be 1, bits that must be 0, class).
    pub fn rules(&self) -> Vec<(Vec<u8>, Vec<u8>, u16)> {
        let mut out = Vec::new();
        self.walk(&mut Vec::new(), &mut Vec::new(), &mut out);
        out
    }

    fn walk(
        &self,
        ones: &mut Vec<u8>,
        zeros: &mut Vec<u8>,
        out: &mut Vec<(Vec<u8>, Vec<u8>, u16)>,
    ) {
        match self {
            Tree::Leaf { class, .. } => out.push((ones.clone(), zeros.clone(), *class)),
            Tree::Split { bit, zero, one } => {
                zeros.push(*bit);
                zero.walk(ones, zeros, out);
                zeros.pop();
                ones.push(*bit);
                one.walk(ones, zeros, out);
                ones.pop();
            }
        }
    }
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

fn grow(samples: &[(u128, u16)], idx: &mut [usize], depth: usize) -> Tree {
    let counts = class_counts(samples, idx);
    let n = idx.len() as u32;
    if counts.iter().filter(|&&c| c > 0).count() <= 1 || depth >= MAX_DEPTH {
        return leaf(&counts, idx.len());
    }
    let h = entropy(&counts, n);
    let mut best: Option<(f64, u8)> = None;
    for bit in 0..128u8 {
        let mut c1 = vec![0u32; counts.len()];
        for &i in idx.iter() {
            if samples[i].0 >> bit & 1 == 1 {
                c1[samples[i].1 as usize] += 1;
            }
        }
        let n1: u32 = c1.iter().sum();
        if n1 == 0 || n1 == n {
            continue;
        }
        let c0: Vec<u32> = counts.iter().zip(&c1).map(|(a, b)| a - b).collect();
        let n0 = n - n1;
        let rest = (n0 as f64 * entropy(&c0, n0) + n1 as f64 * entropy(&c1, n1)) / n as f64;
        let gain = h - rest;
        if best.is_none_or(|(g, _)| gain > g + 1e-12) {
            best = Some((gain, bit));
        }
    }
    let Some((gain, bit)) = best.filter(|(g, _)| *g > 1e-9) else {
        return leaf(&counts, idx.len());
    };
    let _ = gain;
    let split = partition(samples, idx, bit);
    let (zero, one) = idx.split_at_mut(split);
    Tree::Split {
        bit,
        zero: Box::new(grow(samples, zero, depth + 1)),
        one: Box::new(grow(samples, one, depth + 1)),
    }
}

/// Reorders `idx` so samples with `bit` = 0 come first; returns how many there are.
fn partition(samples: &[(u128, u16)], idx: &mut [usize], bit: u8) -> usize {
    let mut k = 0;
    for j in 0..idx.len() {
        if samples[idx[j]].0 >> bit & 1 == 0 {
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
