//! Plain slot fits ([`super::fit_plain`]) kept for the whole process by a digest of everything
//! they read, so that a slot fitted again from the same texts by another variant fit (the
//! learning again without an alias's tokens, the second attribution of the answers, the
//! shared printers of overlapping variants, `learn`'s next round) is not fitted again.

use super::Slot;
use super::fits::{Digest, Kept, hash_samples};

/// The plain fits, two generations ([`next_generation`], one per [`super::learn_printers`]).
static PLAINS: Kept<Slot> = Kept::new();

/// Starts a new generation: fits last asked for before the previous one are forgotten (a
/// slot whose texts changed since is fitted anew; the memory stays that of two rounds).
pub(super) fn next_generation() {
    PLAINS.next_generation();
}

/// The digest of what [`super::fit_plain`] reads: the slot's bits, the base word, the
/// candidate groups and the (word, text) pairs in order, every length hashed before what it
/// counts, so two different inputs never hash the same bytes.
fn key(mask: u128, texts: &[(u128, &str)], groups: &[u128], base: u128) -> Digest {
    use sha2::{Digest as _, Sha256};
    let mut h = Sha256::new();
    h.update(mask.to_le_bytes());
    h.update(base.to_le_bytes());
    h.update((groups.len() as u64).to_le_bytes());
    for g in groups {
        h.update(g.to_le_bytes());
    }
    hash_samples(&mut h, texts);
    h.finalize().into()
}

/// [`super::fit_plain`], or what it gave for the same inputs in this generation or the one
/// before.
pub(super) fn fit_plain(mask: u128, texts: &[(u128, &str)], groups: &[u128], base: u128) -> Slot {
    PLAINS.get_or_fit(key(mask, texts, groups, base), || {
        super::fit_plain(mask, texts, groups, base)
    })
}
