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

/// Names a variant across [`super::learn_printers`] calls: its table's path and arch, and its
/// key (its place in the codec is only an index).
type VariantName = (String, Option<String>, String);

fn name_of(codec: &crate::codec::Codec, id: (u16, u16)) -> Option<VariantName> {
    let t = codec.tables.get(id.0 as usize)?;
    let v = t.variants.get(id.1 as usize)?;
    Some((t.path.clone(), t.arch.map(|a| a.to_string()), v.key.clone()))
}

/// The printers one [`super::learn_printers`] call ended with, each with how many of the
/// answers it was learned from it printed otherwise than nvdisasm, for the next call on the
/// same tables (`learn`'s next round, in the same process) to start from
/// ([`Carried::still_right`]). A variant left to the table-shaped reading is not kept.
#[derive(Debug, Default)]
pub struct Carried(HashMap<VariantName, (super::Printer, usize)>);

impl Carried {
    /// Keeps `learned` (a call's printers, with their counts), in place of what was kept.
    pub(super) fn remember(&mut self, codec: &crate::codec::Codec, learned: &[Learned]) {
        self.0 = learned
            .iter()
            .filter_map(|(id, p, ok, n)| Some((name_of(codec, *id)?, (p.clone()?, n - ok))))
            .collect();
    }

    /// The printer kept for variant `id`, with its counts on `samples` (the variant's answers
    /// now), when it prints no more of them otherwise than nvdisasm than it did of the answers
    /// it was learned from: the answers added since (a sweep round) are then all printed
    /// right, and learning again from them is skipped. From scratch on SM80 LDS, SM89 I2F and
    /// SM121 ATOM, `learn` records the same words either way and reads all of the check split
    /// right, in 24-62% of our CPU time.
    pub(super) fn still_right(
        &self,
        codec: &crate::codec::Codec,
        id: (u16, u16),
        samples: &[Sample],
    ) -> Option<Learned> {
        let (p, missed) = self.0.get(&name_of(codec, id)?)?.clone();
        let v = codec.variant(crate::codec::VariantId {
            table: id.0,
            variant: id.1,
        });
        let (p, ok) = kept_if_right(p, missed, samples, |p, s| {
            super::reproduced_as_decoded(v, p, s)
        })?;
        Some((id, Some(p), ok, samples.len()))
    }
}

/// `p` with its share of `samples` printed right (`right` counts them), when it misses at
/// most `missed` of them.
fn kept_if_right(
    mut p: super::Printer,
    missed: usize,
    samples: &[Sample],
    right: impl Fn(&super::Printer, &[Sample]) -> usize,
) -> Option<(super::Printer, usize)> {
    let n = samples.len();
    let ok = right(&p, samples);
    if n - ok > missed {
        return None;
    }
    p.learned_permille = (ok * 1000 / n.max(1)) as u32;
    Some((p, ok))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `OP R<n>, 0x<imm> ;`: a register at bits 24-31 and an immediate at bits 32-47, over
    /// opcode bits 0-11 (0x123).
    fn text(w: u128) -> String {
        format!("OP R{}, 0x{:x} ;", w >> 24 & 0xff, w >> 32 & 0xffff)
    }

    #[test]
    fn a_printer_is_kept_only_while_the_added_answers_print_as_answered() {
        let (reg, imm) = (0xffu128 << 24, 0xffffu128 << 32);
        let word = |r: u128, i: u128| 0x123 | r << 24 | i << 32;
        // The base word, each of its 24 operand bits flipped alone (sweeps), then 15 others.
        let owned: Vec<(u128, String)> = std::iter::once(word(0, 0))
            .chain((24..48).map(|b| word(0, 0) | 1 << b))
            .chain((1..16u128).map(|k| word(k * 5 % 250, k * 977 % 0xffff)))
            .map(|w| (w, text(w)))
            .collect();
        let samples: Vec<Sample> = owned.iter().map(|(w, t)| (*w, t.as_str())).collect();
        let p = super::super::learn(0xfff, &[reg, imm], &samples).expect("a printer");
        let right = |p: &super::super::Printer, s: &[Sample]| super::super::reproduced(p, s);
        assert_eq!(right(&p, &samples), 40);
        // Ten more answers of the same reading: kept, every one of the 50 right.
        let more: Vec<(u128, String)> = (0..10u128)
            .map(|k| word(k * 7 + 3, k * 4099 + 11))
            .map(|w| (w, text(w)))
            .collect();
        let mut grown = samples.clone();
        grown.extend(more.iter().map(|(w, t)| (*w, t.as_str())));
        let (kept, ok) = kept_if_right(p.clone(), 0, &grown, right).expect("kept");
        assert_eq!((ok, kept.learned_permille), (50, 1000));
        // One added answer printed otherwise (a `.reuse` the printer never saw): learned again.
        let odd = (word(9, 9), "OP R9.reuse, 0x9 ;".to_string());
        grown.push((odd.0, odd.1.as_str()));
        assert!(kept_if_right(p.clone(), 0, &grown, right).is_none());
        // A printer that missed one answer already may miss that many again.
        let (_, ok) = kept_if_right(p, 1, &grown, right).expect("kept with one miss");
        assert_eq!(ok, 50);
    }
}
