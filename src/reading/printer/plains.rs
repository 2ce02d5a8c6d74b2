//! Plain slot fits ([`super::fit_plain`]) kept for the whole process by a digest of everything
//! they read, so that a slot fitted again from the same texts by another variant fit (the
//! learning again without an alias's tokens, the second attribution of the answers, the
//! shared printers of overlapping variants, `learn`'s next round) is not fitted again.

use super::Slot;
use rustc_hash::FxHashMap as HashMap;
use std::sync::Mutex;

/// A digest of what [`super::fit_plain`] reads: the slot's bits, the base word, the candidate
/// groups and the (word, text) pairs in order.
type PlainKey = [u8; 32];

/// The plain fits of the current and the previous generation ([`next_generation`], one per
/// [`super::learn_printers`]), each with the generation it was last asked in.
#[derive(Default)]
struct Plains {
    generation: u64,
    kept: HashMap<PlainKey, (u64, Slot)>,
}

static PLAINS: Mutex<Option<Plains>> = Mutex::new(None);

/// Starts a new generation: fits last asked for before the previous one are forgotten (a
/// slot whose texts changed since is fitted anew; the memory stays that of two rounds).
pub(super) fn next_generation() {
    with_plains(|p| {
        p.generation += 1;
        let keep_from = p.generation - 1;
        p.kept.retain(|_, (seen, _)| *seen >= keep_from);
    });
}

/// Runs `f` on the kept fits, under the lock (a poisoned lock is taken as it is: fits are
/// only ever inserted whole).
fn with_plains<R>(f: impl FnOnce(&mut Plains) -> R) -> R {
    let mut g = PLAINS.lock().unwrap_or_else(|e| e.into_inner());
    f(g.get_or_insert_with(Plains::default))
}

/// The digest of a plain fit's inputs ([`PlainKey`]): every length is hashed before what it
/// counts, so two different inputs never hash the same bytes.
fn key(mask: u128, texts: &[(u128, &str)], groups: &[u128], base: u128) -> PlainKey {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(mask.to_le_bytes());
    h.update(base.to_le_bytes());
    h.update((groups.len() as u64).to_le_bytes());
    for g in groups {
        h.update(g.to_le_bytes());
    }
    h.update((texts.len() as u64).to_le_bytes());
    for (w, t) in texts {
        h.update(w.to_le_bytes());
        h.update((t.len() as u64).to_le_bytes());
        h.update(t.as_bytes());
    }
    h.finalize().into()
}

/// [`super::fit_plain`], or what it gave for the same inputs in this generation or the one
/// before.
pub(super) fn fit_plain(mask: u128, texts: &[(u128, &str)], groups: &[u128], base: u128) -> Slot {
    let k = key(mask, texts, groups, base);
    let kept = with_plains(|p| {
        let now = p.generation;
        p.kept.get_mut(&k).map(|(seen, slot)| {
            *seen = now;
            slot.clone()
        })
    });
    if let Some(slot) = kept {
        return slot;
    }
    let slot = super::fit_plain(mask, texts, groups, base);
    with_plains(|p| p.kept.insert(k, (p.generation, slot.clone())));
    slot
}
