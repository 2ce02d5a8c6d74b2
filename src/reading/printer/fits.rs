//! Fits kept by everything they read, for the whole process: variant fits, so that a process
//! that learns again from answers of which a variant's did not change (`learn`'s rounds) does
//! not fit it again, and ([`Kept`]) the plain slot fits of [`super::plains`].

use super::{Learned, Sample};
use rustc_hash::FxHashMap as HashMap;
use std::sync::{Mutex, OnceLock};

/// A SHA-256 digest of everything a fit reads.
pub(super) type Digest = [u8; 32];

/// Values kept by the digest of their inputs, for the current and the previous generation
/// ([`Kept::next_generation`]; older ones are dropped: a fit whose inputs changed since is
/// made anew, and the memory stays that of two rounds), each with the generation it was last
/// asked in. A poisoned lock is taken as it is: values are only ever inserted whole.
pub(super) struct Kept<V>(Mutex<Option<Generations<V>>>);

struct Generations<V> {
    generation: u64,
    kept: HashMap<Digest, (u64, V)>,
}

impl<V: Clone> Kept<V> {
    /// Nothing kept yet.
    pub(super) const fn new() -> Self {
        Kept(Mutex::new(None))
    }

    fn with<R>(&self, f: impl FnOnce(&mut Generations<V>) -> R) -> R {
        let mut g = self.0.lock().unwrap_or_else(|e| e.into_inner());
        f(g.get_or_insert_with(|| Generations {
            generation: 0,
            kept: HashMap::default(),
        }))
    }

    /// Starts a new generation: values last asked for before the previous one are forgotten.
    pub(super) fn next_generation(&self) {
        self.with(|g| {
            g.generation += 1;
            let keep_from = g.generation - 1;
            g.kept.retain(|_, (seen, _)| *seen >= keep_from);
        });
    }

    /// The value kept for `key` in this generation or the one before, else `fit()`, kept.
    pub(super) fn get_or_fit(&self, key: Digest, fit: impl FnOnce() -> V) -> V {
        let kept = self.with(|g| {
            let now = g.generation;
            g.kept.get_mut(&key).map(|(seen, v)| {
                *seen = now;
                v.clone()
            })
        });
        if let Some(v) = kept {
            return v;
        }
        let v = fit();
        self.with(|g| g.kept.insert(key, (g.generation, v.clone())));
        v
    }
}

/// Hashes (word, text) pairs in order, each length before what it counts, so that two
/// different lists never hash the same bytes.
pub(super) fn hash_samples(h: &mut sha2::Sha256, samples: &[Sample]) {
    use sha2::Digest as _;
    h.update((samples.len() as u64).to_le_bytes());
    for (w, t) in samples {
        h.update(w.to_le_bytes());
        h.update((t.len() as u64).to_le_bytes());
        h.update(t.as_bytes());
    }
}

/// The variant fits ([`fit_variant`]).
static FITS: Kept<Learned> = Kept::new();

/// Starts a new round of variant fits ([`super::learn_printers`] calls it once per call).
pub(super) fn next_generation() {
    FITS.next_generation();
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

/// The digest of what [`super::fit_variant`] reads: the variant's table (its layout, names and
/// printers, as serialised: [`TableDigests`]), the variant's place, and its (word, text)
/// answers in order.
fn key(tables: &TableDigests, id: (u16, u16), samples: &[Sample]) -> Option<Digest> {
    use sha2::{Digest as _, Sha256};
    let mut h = Sha256::new();
    h.update(tables.of(id.0)?);
    h.update(id.0.to_le_bytes());
    h.update(id.1.to_le_bytes());
    hash_samples(&mut h, samples);
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
    FITS.get_or_fit(k, || super::fit_variant(codec, renderer, id, samples))
}
