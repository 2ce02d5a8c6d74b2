//! Variant fits kept by everything they read, so that a process that learns again from
//! answers of which a variant's did not change (`learn`'s rounds) does not fit it again.

use super::{Learned, Sample};
use rustc_hash::FxHashMap as HashMap;
use std::sync::{Mutex, OnceLock};

/// A digest of what [`super::fit_variant`] reads: the variant's table (its layout, names and
/// printers, as serialised: [`TableDigests`]), the variant's place, and its (word, text)
/// answers in order.
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
    with_fits(|fits| {
        fits.generation += 1;
        let keep_from = fits.generation - 1;
        fits.kept.retain(|_, (seen, _)| *seen >= keep_from);
    });
}

/// Runs `f` on the kept fits, under the lock (a poisoned lock is taken as it is: the fits
/// are only ever inserted whole).
fn with_fits<R>(f: impl FnOnce(&mut Fits) -> R) -> R {
    let mut g = FITS.lock().unwrap_or_else(|e| e.into_inner());
    f(g.get_or_insert_with(Fits::default))
}

/// The SHA-256 digests of a codec's tables as serialised, each worked out once, when first
/// asked: every variant fit of a table reads its digest ([`key`]), and a table of many
/// variants is serialised once per set of fits, not once per variant.
pub(super) struct TableDigests<'c> {
    codec: &'c crate::codec::Codec,
    digests: Vec<OnceLock<Option<[u8; 32]>>>,
}

impl<'c> TableDigests<'c> {
    /// No digest worked out yet, for the tables of `codec`.
    pub(super) fn new(codec: &'c crate::codec::Codec) -> Self {
        TableDigests {
            codec,
            digests: codec.tables.iter().map(|_| OnceLock::new()).collect(),
        }
    }

    /// The digest of table `table` (its length as serialised, then its JSON).
    fn of(&self, table: u16) -> Option<[u8; 32]> {
        use sha2::{Digest, Sha256};
        *self.digests.get(table as usize)?.get_or_init(|| {
            let json = serde_json::to_vec(self.codec.tables.get(table as usize)?).ok()?;
            let mut h = Sha256::new();
            h.update((json.len() as u64).to_le_bytes());
            h.update(&json);
            Some(h.finalize().into())
        })
    }
}

/// The digest of a fit's inputs ([`FitKey`]).
fn key(tables: &TableDigests, id: (u16, u16), samples: &[Sample]) -> Option<FitKey> {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(tables.of(id.0)?);
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
    tables: &TableDigests,
    renderer: &crate::render::Renderer,
    id: (u16, u16),
    samples: &[Sample],
) -> Learned {
    let codec = tables.codec;
    let Some(k) = key(tables, id, samples) else {
        return super::fit_variant(codec, renderer, id, samples);
    };
    let kept = with_fits(|fits| {
        let now = fits.generation;
        fits.kept.get_mut(&k).map(|(seen, learned)| {
            *seen = now;
            learned.clone()
        })
    });
    if let Some(learned) = kept {
        return learned;
    }
    let learned = super::fit_variant(codec, renderer, id, samples);
    with_fits(|fits| fits.kept.insert(k, (fits.generation, learned.clone())));
    learned
}
