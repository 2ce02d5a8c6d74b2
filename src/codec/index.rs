//! Decode index: a decision tree over fixed bits, so a word is checked against a handful of
//! variants instead of every variant of the arch.

use super::VariantId;
use std::collections::HashMap;

/// One node: split on the bits every variant below fixes, or a short list to scan.
#[derive(Debug)]
pub(super) enum Index {
    /// Variants with their (fixed mask, fixed value), checked one by one.
    Leaf(Vec<(VariantId, u128, u128)>),
    /// `word & mask` selects the child.
    Split {
        mask: u128,
        children: HashMap<u128, Index>,
    },
}

impl Index {
    /// Builds the tree for one arch's variants.
    pub(super) fn build(vs: Vec<(VariantId, u128, u128)>) -> Index {
        Self::build_from(vs, 0)
    }

    fn build_from(vs: Vec<(VariantId, u128, u128)>, used: u128) -> Index {
        let common = vs.iter().fold(!0u128, |m, v| m & v.1) & !used;
        if vs.len() <= 2 || common == 0 {
            return Index::Leaf(vs);
        }
        let mut groups: HashMap<u128, Vec<(VariantId, u128, u128)>> = HashMap::new();
        for v in vs {
            groups.entry(v.2 & common).or_default().push(v);
        }
        let children = groups
            .into_iter()
            .map(|(k, g)| (k, Self::build_from(g, used | common)))
            .collect();
        Index::Split {
            mask: common,
            children,
        }
    }

    /// Writes the first `out.len()` matching variants (table order) into `out`; returns how
    /// many match in all.
    pub(super) fn matches(&self, word: u128, out: &mut [VariantId]) -> usize {
        match self {
            Index::Split { mask, children } => match children.get(&(word & mask)) {
                Some(c) => c.matches(word, out),
                None => 0,
            },
            Index::Leaf(vs) => {
                let mut n = 0;
                for (id, m, val) in vs {
                    if word & m == *val {
                        if n < out.len() {
                            out[n] = *id;
                        }
                        n += 1;
                    }
                }
                n
            }
        }
    }

    /// Every variant under this node (for nearest-variant searches).
    pub(super) fn all(&self, out: &mut Vec<(VariantId, u128, u128)>) {
        match self {
            Index::Leaf(vs) => out.extend(vs.iter().copied()),
            Index::Split { children, .. } => children.values().for_each(|c| c.all(out)),
        }
    }
}
