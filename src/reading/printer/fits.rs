//! Variant fits kept by everything they read, so that a process that learns again from
//! answers of which a variant's did not change (`learn`'s rounds) does not fit it again.

use super::{Learned, Sample};
use rustc_hash::FxHashMap as HashMap;
use std::sync::Mutex;

/// A digest of what [`super::fit_variant`] reads: the variant's table (its layout, names and
/// printers, as serialised), the variant's place, and its (word, text) answers in order.
type FitKey = [u8; 32];

/// The fits of the current and the previous [`next_generation`] (older ones are dropped: a
/// variant whose answers changed since is fitted anew), each with the generation it was last
/// asked in.
#[derive(Default)]
struct Fits {
    generation: u64,
    kept: HashMap<FitKey, (u64, Learned)>,
}

static FITS: Mutex<Option<Fits>> = Mutex::new(None);

/// Starts a new round of fits ([`super::learn_printers`] calls it once per call): fits last
/// asked for before the previous round are forgotten.
pub(super) fn next_generation() {
    let mut g = FITS.lock().unwrap_or_else(|e| e.into_inner());
    let fits = g.get_or_insert_with(Fits::default);
    fits.generation += 1;
    let keep_from = fits.generation - 1;
    fits.kept.retain(|_, (seen, _)| *seen >= keep_from);
}

/// The digest of a fit's inputs ([`FitKey`]).
fn key(codec: &crate::codec::Codec, id: (u16, u16), samples: &[Sample]) -> Option<FitKey> {
    use sha2::{Digest, Sha256};
    let table = serde_json::to_vec(codec.tables.get(id.0 as usize)?).ok()?;
    let mut h = Sha256::new();
    h.update((table.len() as u64).to_le_bytes());
    h.update(&table);
    h.update(id.0.to_le_bytes());
    h.update(id.1.to_le_bytes());
    h.update((samples.len() as u64).to_le_bytes());
    for (w, t) in samples {
        h.update(w.to_le_bytes());
        h.update((t.len() as u64).to_le_bytes());
        h.update(t.as_bytes());
    }
    Some(h.finalize().into())
}

/// [`super::fit_variant`], or what it gave for the same inputs in this round or the one
/// before.
pub(super) fn fit_variant(
    codec: &crate::codec::Codec,
    renderer: &crate::render::Renderer,
    id: (u16, u16),
    samples: &[Sample],
) -> Learned {
    let Some(k) = key(codec, id, samples) else {
        return super::fit_variant(codec, renderer, id, samples);
    };
    {
        let mut g = FITS.lock().unwrap_or_else(|e| e.into_inner());
        let fits = g.get_or_insert_with(Fits::default);
        let now = fits.generation;
        if let Some((seen, learned)) = fits.kept.get_mut(&k) {
            *seen = now;
            return learned.clone();
        }
    }
    let learned = super::fit_variant(codec, renderer, id, samples);
    let mut g = FITS.lock().unwrap_or_else(|e| e.into_inner());
    let fits = g.get_or_insert_with(Fits::default);
    let now = fits.generation;
    fits.kept.insert(k, (now, learned.clone()));
    learned
}
