//! The fuzz input of the `roundtrip` target, shared with `cargo test` (which replays every
//! file of corpus/roundtrip through [`run_case`]).
//!
//! Byte layout of an input (the seeds in corpus/roundtrip are written this way):
//! `[mode: u8][word: 16 bytes, little-endian][variant: u16 LE][values: the rest]`.
//! `mode & 0x7f` picks the arch (modulo the number of archs); with `mode & 0x80` the word's
//! fixed bits are replaced by those of the chosen variant (so property (a) sees matching words);
//! `values` are read as `arbitrary` reads a `Vec<u64>` (a continue flag byte, then 8 bytes per
//! value), one per field; reading stops after the variant's last field (later values would
//! go unused).
//!
//! Reading a case allocates nothing: the target runs this for every input.

use super::{
    Codec, MAX_FIELDS, RoundTrip, RoundTripError, VariantId, Word, decoded_roundtrip,
    values_roundtrip, values_roundtrip_into,
};
use crate::arch::Arch;

/// One decoded fuzz input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FuzzCase {
    /// Arch for property (a).
    pub arch: Arch,
    /// Word for property (a).
    pub word: Word,
    /// Variant for property (b).
    pub variant: VariantId,
    /// Field values for property (b) in `values[..n_values]`, field order (masked to each
    /// field's width when used; fields past `n_values` get 0).
    pub values: [u64; MAX_FIELDS],
    /// Number of values read (at most the variant's field count).
    pub n_values: usize,
}

impl FuzzCase {
    /// Reads a case from fuzz bytes; `None` when shorter than the 19-byte header.
    pub fn from_bytes(codec: &Codec, data: &[u8]) -> Option<FuzzCase> {
        let mut case = FuzzCase {
            arch: Arch(0),
            word: Word(0),
            variant: VariantId::default(),
            values: [0; MAX_FIELDS],
            n_values: 0,
        };
        case.read_from(codec, data).then_some(case)
    }

    /// [`FuzzCase::from_bytes`] into this case, in place (the fuzz target reuses one case):
    /// false, leaving the case unspecified, when `data` is shorter than the 19-byte header
    /// or the codec has no variant. `values[n_values..]` keep what they held (only
    /// [`FuzzCase::values`] is read, never the slots past it).
    pub fn read_from(&mut self, codec: &Codec, data: &[u8]) -> bool {
        let archs = codec.arch_list();
        let ids = codec.id_list();
        let (Some(header), Some(values)) = (data.get(..19), data.get(19..)) else {
            return false;
        };
        if archs.is_empty() || ids.is_empty() {
            return false;
        }
        let mode = header[0];
        let mut word = [0u8; 16];
        word.copy_from_slice(&header[1..17]);
        let vsel = u16::from_le_bytes([header[17], header[18]]) as usize;
        self.variant = ids[vsel % ids.len()];
        self.arch = archs[(mode & 0x7f) as usize % archs.len()];
        self.word = Word(u128::from_le_bytes(word));
        if mode & 0x80 != 0 {
            let (fixed_mask, fixed_value) = codec.fixed_bits(self.variant);
            self.word = Word((self.word.0 & !fixed_mask) | fixed_value);
            self.arch = codec.arch_of(self.variant);
        }
        let wanted = codec.field_masks(self.variant).len().min(MAX_FIELDS);
        self.read_values(values, wanted);
        true
    }

    /// Reads up to `wanted` values as `arbitrary` 1.x reads a `Vec<u64>`: while a byte is
    /// left and its low bit is set (the continue flag), the next 8 bytes are a value,
    /// little-endian, zero-filled past the end of the data. Written out rather than through
    /// `arbitrary::Unstructured` (the same bytes and values): the fuzz target runs this for
    /// every input, and each branch of the general reader is code coverage and comparisons
    /// libFuzzer traces.
    fn read_values(&mut self, data: &[u8], wanted: usize) {
        let mut rest = data;
        let mut n = 0;
        while n < wanted {
            let Some((&flag, after)) = rest.split_first() else {
                break;
            };
            if flag & 1 == 0 {
                break;
            }
            let take = after.len().min(8);
            let mut buf = [0u8; 8];
            buf[..take].copy_from_slice(&after[..take]);
            self.values[n] = u64::from_le_bytes(buf);
            rest = &after[take..];
            n += 1;
        }
        self.n_values = n;
    }

    /// The values read, field order.
    pub fn values(&self) -> &[u64] {
        &self.values[..self.n_values]
    }

    /// The bytes that [`FuzzCase::from_bytes`] reads back as a case with this word, with the
    /// variant's fixed bits forced (mode 0x80) and no values.
    pub fn seed_bytes(codec: &Codec, variant: VariantId, word: Word) -> Vec<u8> {
        let pos = codec.ids().position(|i| i == variant).unwrap_or(0) as u16;
        let mut out = vec![0x80];
        out.extend_from_slice(&word.0.to_le_bytes());
        out.extend_from_slice(&pos.to_le_bytes());
        out
    }
}

/// Runs both round-trip properties on a case.
pub fn run_case(codec: &Codec, case: &FuzzCase) -> Result<(RoundTrip, RoundTrip), RoundTripError> {
    run_case_observed(codec, case, |_, _| {})
}

/// [`run_case`], calling `observe` with the (variant, field values) of the decoded word (when
/// a variant matches) and then with the case's variant and values: what the table coverage
/// counts ([`super::coverage::CoverageMap::for_each_feature`]). The word is decoded once for
/// both.
pub fn run_case_observed(
    codec: &Codec,
    case: &FuzzCase,
    mut observe: impl FnMut(VariantId, &[u64]),
) -> Result<(RoundTrip, RoundTrip), RoundTripError> {
    let d = codec.decode(case.arch, case.word);
    if let Some(d) = &d {
        observe(d.id, d.values());
    }
    observe(case.variant, case.values());
    let a = decoded_roundtrip(codec, case.arch, case.word, d.as_ref())?;
    let b = values_roundtrip(codec, case.variant, case.values())?;
    Ok((a, b))
}

/// libFuzzer's hit-count buckets (1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+): a value in each.
/// libFuzzer reads every counter by bucket, and each (counter, bucket) pair is a feature of
/// its own.
const BUCKET_VALUES: [u8; 8] = [1, 2, 3, 4, 8, 16, 32, 128];

/// Where (counter, bucket) pair `i` (below `8 * n_counters`, `n_counters` a power of two) is
/// reported: counter `i % n_counters`, set to a value in bucket `i / n_counters`. Pairs next
/// to each other are on different counters ([`FuzzRunner`] notes).
#[inline]
fn slot_place(i: usize, n_counters: usize) -> (usize, u8) {
    (i & (n_counters - 1), BUCKET_VALUES[(i / n_counters) & 7])
}

/// The `roundtrip` fuzz target's state, built once per process: the codec, the table
/// feature numbering ([`super::coverage::CoverageMap`], unless table coverage is off), which
/// features this process has already reported, and the case and decodes each run reuses.
///
/// [`FuzzRunner::run`] is the whole of one run, kept out of line and not generic, so that
/// all of it is compiled in this crate: the fuzz target builds this crate without
/// sanitizer-coverage instrumentation (fuzz/README.md, issue 23), and the target itself is a
/// call and a branch. A run allocates nothing.
///
/// How a table feature reaches libFuzzer: feature `f`, as (counter, bucket) pair `i = f`
/// modulo `8 * counters.len()` (see [`FuzzRunner::new`]), is counter `i % counters.len()` of
/// libFuzzer's extra counters set to a value in hit-count bucket `i / counters.len()`
/// ([`slot_place`]). It is reported only in the first run of the process that reaches it:
/// libFuzzer keeps that input (a new feature) and never pays for the feature again, so a
/// table feature keeps one input and never multiplies the corpus. A counter another feature
/// already set in the same run is left alone: that feature waits for a later run that reaches
/// it. Neighbouring features (the value classes of one field, the fields of one variant: what
/// one run reaches together) are on neighbouring counters, not on the buckets of one counter,
/// so a run reports all of its new features at once and one input is kept for them, not one
/// input per feature that shared a counter.
///
/// A variant whose every feature's (counter, bucket) pair has been reported has nothing left
/// to report: its features are not worked out at all (most runs, once the corpus has found
/// most of the tables; the counters are the same).
#[derive(Debug)]
pub struct FuzzRunner {
    codec: Codec,
    map: Option<TableFeatures>,
    /// One bit per (counter, bucket) pair: reported in this process.
    seen: Vec<u64>,
    /// The case of the current run.
    case: FuzzCase,
    /// The case's word, decoded.
    word: super::Decoded,
    /// Property (b)'s decode of the encoded word.
    back: super::Decoded,
}

/// The table features of a [`FuzzRunner`]: the numbering, and which fields and pairs of
/// each variant have some left to report.
#[derive(Debug)]
struct TableFeatures {
    map: super::coverage::CoverageMap,
    pending: Pending,
}

/// What is left to report, per variant: the features of a group (one field's triples, or
/// the variant's pairs) are worked out while one of their (counter, bucket) pairs is not
/// reported yet.
#[derive(Debug)]
struct Pending {
    /// Per table: the dense index (codec order) of its first variant.
    first: Vec<u32>,
    /// Per variant (dense index): bit `i` while field `i` has a triple left (fields 0..64).
    fields: Vec<u64>,
    /// Per variant: whether a pair is left.
    pairs: Vec<bool>,
    /// Per variant: more than 64 fields (the fields from 64 on are always worked out).
    wide: Vec<bool>,
    /// Per group: its variant, and its field (`PAIRS` for the pairs).
    group: Vec<(u32, u16)>,
    /// Per group: its distinct (counter, bucket) pairs not reported yet.
    left: Vec<u32>,
    /// The groups with a feature on pair `i` are `owners[owner_start[i]..owner_start[i + 1]]`.
    owner_start: Vec<u32>,
    owners: Vec<u32>,
}

/// The field number of a variant's pair group.
const PAIRS: u16 = u16::MAX;

impl TableFeatures {
    /// The features of `codec`'s tables on `slots` (counter, bucket) pairs (a power of two).
    fn new(codec: &Codec, slots: usize) -> TableFeatures {
        let map = super::coverage::CoverageMap::new(codec);
        let n = codec.id_list().len();
        let mut p = Pending {
            first: Vec::with_capacity(codec.tables.len()),
            fields: vec![0; n],
            pairs: vec![false; n],
            wide: vec![false; n],
            group: Vec::new(),
            left: Vec::new(),
            owner_start: vec![0; slots + 1],
            owners: Vec::new(),
        };
        let mut on: Vec<(u32, u32)> = Vec::new();
        let mut own: Vec<u32> = Vec::new();
        for (dense, &id) in codec.id_list().iter().enumerate() {
            if id.variant == 0 {
                p.first.push(dense as u32);
            }
            let (fields, pairs) = map.feature_ranges(id);
            p.wide[dense] = fields.len() > 64;
            let groups = fields.into_iter().take(64).enumerate();
            for (field, range) in groups.map(|(i, r)| (i as u16, r)).chain([(PAIRS, pairs)]) {
                own.clear();
                own.extend(range.map(|f| (f & (slots - 1)) as u32));
                own.sort_unstable();
                own.dedup();
                if own.is_empty() {
                    continue;
                }
                let g = p.group.len() as u32;
                p.group.push((dense as u32, field));
                p.left.push(own.len() as u32);
                on.extend(own.iter().map(|&slot| (slot, g)));
                match field {
                    PAIRS => p.pairs[dense] = true,
                    i => p.fields[dense] |= 1 << i,
                }
            }
        }
        on.sort_unstable();
        for &(slot, _) in &on {
            p.owner_start[slot as usize + 1] += 1;
        }
        for i in 0..slots {
            p.owner_start[i + 1] += p.owner_start[i];
        }
        p.owners = on.into_iter().map(|(_, g)| g).collect();
        TableFeatures { map, pending: p }
    }
}

impl Pending {
    /// What variant `id` has left: (fields with a triple left, whether a pair is left, whether
    /// anything is).
    #[inline]
    fn of(&self, id: VariantId) -> (u64, bool, bool) {
        let v = self.first[id.table as usize] as usize + id.variant as usize;
        let (fields, pairs) = (self.fields[v], self.pairs[v]);
        (fields, pairs, fields != 0 || pairs || self.wide[v])
    }

    /// (counter, bucket) pair `slot` is reported: one less left in every group with a
    /// feature on it.
    fn reported(&mut self, slot: usize) {
        let (a, b) = (self.owner_start[slot], self.owner_start[slot + 1]);
        for &g in &self.owners[a as usize..b as usize] {
            self.left[g as usize] -= 1;
            if self.left[g as usize] == 0 {
                let (v, field) = self.group[g as usize];
                match field {
                    PAIRS => self.pairs[v as usize] = false,
                    i => self.fields[v as usize] &= !(1 << i),
                }
            }
        }
    }
}

/// A broken round-trip property found by [`FuzzRunner::run`]: the case and the error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FuzzFailure {
    /// The case, as [`FuzzCase::from_bytes`] reads the input.
    pub case: FuzzCase,
    /// How the round trip broke.
    pub error: RoundTripError,
}

impl std::fmt::Display for FuzzFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "round trip broken: {}\ncase: {:?}",
            self.error, self.case
        )
    }
}

impl FuzzRunner {
    /// The runner of `codec`, for `counters` bytes of libFuzzer extra counters
    /// ([`FuzzRunner::run`] must get exactly that many), reporting table features when
    /// `table_coverage` is set.
    ///
    /// Panics unless `counters` is a power of two, at least 8.
    pub fn new(codec: Codec, table_coverage: bool, counters: usize) -> FuzzRunner {
        assert!(
            counters.is_power_of_two() && counters >= 8,
            "extra counters: {counters} bytes, not a power of two from 8"
        );
        let map = table_coverage.then(|| TableFeatures::new(&codec, counters * 8));
        FuzzRunner {
            codec,
            map,
            seen: vec![0; counters.div_ceil(8)],
            case: FuzzCase {
                arch: Arch(0),
                word: Word(0),
                variant: VariantId::default(),
                values: [0; MAX_FIELDS],
                n_values: 0,
            },
            word: super::Decoded::EMPTY,
            back: super::Decoded::EMPTY,
        }
    }

    /// [`FuzzRunner::new`] on the codec of the bundled tables ([`crate::spec::bundled_tables`]).
    ///
    /// Panics when the bundled tables do not load (they are checked by the tests).
    pub fn bundled(table_coverage: bool, counters: usize) -> FuzzRunner {
        let tables = crate::spec::bundled_tables().expect("the bundled tables load");
        let codec = Codec::new(tables).expect("the bundled tables have archs");
        FuzzRunner::new(codec, table_coverage, counters)
    }

    /// The codec.
    pub fn codec(&self) -> &Codec {
        &self.codec
    }

    /// One run on the input bytes `data`: reads the case ([`FuzzCase::read_from`]; nothing
    /// happens when the bytes are too short), reports the table features of the decoded word
    /// and of the case's variant and values into `counters` (struct notes;
    /// [`super::coverage::CoverageMap::for_each_feature`]), and runs both properties, as
    /// [`run_case_observed`] does. Errors: the broken property, with the case.
    ///
    /// Panics when `counters.len()` is not the count given to [`FuzzRunner::new`].
    #[inline(never)]
    pub fn run(&mut self, data: &[u8], counters: &mut [u8]) -> Result<(), Box<FuzzFailure>> {
        let FuzzRunner {
            codec,
            map,
            seen,
            case,
            word,
            back,
        } = self;
        if !case.read_from(codec, data) {
            return Ok(());
        }
        let found = codec.decode_into(case.arch, case.word, word);
        if let Some(TableFeatures { map, pending }) = map {
            assert_eq!(counters.len(), seen.len() * 8, "extra counters");
            // A power of two (`new`): the feature's slot is a mask, not a division.
            let slots = counters.len() * 8 - 1;
            let mut features = |id: VariantId, values: &[u64]| {
                let (fields, pairs, any) = pending.of(id);
                if !any {
                    return;
                }
                map.for_each_feature_in(id, values, fields, pairs, |feature: usize| {
                    let i = feature & slots;
                    let (w, bit) = (i / 64, 1u64 << (i % 64));
                    let (counter, value) = slot_place(i, counters.len());
                    if seen[w] & bit == 0 && counters[counter] == 0 {
                        seen[w] |= bit;
                        counters[counter] = value;
                        pending.reported(i);
                    }
                });
            };
            if found {
                features(word.id, word.values());
            }
            features(case.variant, case.values());
        }
        let found = found.then_some(&*word);
        let result = decoded_roundtrip(codec, case.arch, case.word, found)
            .and_then(|_| values_roundtrip_into(codec, case.variant, case.values(), back));
        result.map(|_| ()).map_err(|error| {
            Box::new(FuzzFailure {
                case: FuzzCase::from_bytes(codec, data).unwrap_or_else(|| case.clone()),
                error,
            })
        })
    }
}

/// Puts `flags` after the program name in a C argument vector (what `main` receives):
/// `argv` becomes a new vector, `[argv[0], flags..., argv[1..]..., null]`, leaked (it lives as
/// long as the process, as `main`'s does), and `argc` grows by `flags.len()`. Nothing changes
/// when `argc` is below 1 or `argv` is null. The `roundtrip` fuzz target runs this from
/// `LLVMFuzzerInitialize`, before libFuzzer parses its flags, so that flags given on the
/// command line, which come later, win over these (fuzz/fuzz_targets/roundtrip.rs). Here
/// rather than in the target so that none of it is instrumented (fuzz/README.md).
///
/// # Safety
///
/// `*argv` must be null or point to at least `*argc` valid pointers (C's `argv`).
pub unsafe fn put_flags_first(
    argc: &mut std::ffi::c_int,
    argv: &mut *mut *mut std::ffi::c_char,
    flags: &[&'static std::ffi::CStr],
) {
    let n = usize::try_from(*argc).unwrap_or(0);
    if n == 0 || argv.is_null() {
        return;
    }
    // SAFETY: the caller's promise: `*argv` holds `n` pointers.
    let old = unsafe { std::slice::from_raw_parts(*argv, n) };
    let mut new: Vec<*mut std::ffi::c_char> = Vec::with_capacity(n + flags.len() + 1);
    new.push(old[0]);
    new.extend(flags.iter().map(|f| f.as_ptr().cast_mut()));
    new.extend_from_slice(&old[1..]);
    new.push(std::ptr::null_mut());
    *argc += flags.len() as std::ffi::c_int;
    *argv = new.leak().as_mut_ptr();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The values `arbitrary` reads from `data` as a `Vec<u64>`, at most `wanted`.
    fn arbitrary_values(data: &[u8], wanted: usize) -> Vec<u64> {
        let mut u = arbitrary::Unstructured::new(data);
        u.arbitrary_iter::<u64>()
            .unwrap()
            .take(wanted)
            .map(|v| v.unwrap())
            .collect()
    }

    /// The runner reports what the fuzz target reported before it moved here (run_case_observed
    /// and for_each_feature, each feature once per process unless its counter is taken in
    /// that run; (counter, bucket) pair `i` on counter `i % counters`, bucket
    /// `i / counters`), with the counters cleared between runs as libFuzzer clears them, and gives
    /// the same verdicts as [`run_case`], on the committed seeds and on random inputs; with
    /// the target's 2 KiB of counters, and with 64 bytes, where features share pairs and
    /// every variant runs out of features to report (the runner then skips them).
    #[test]
    fn runner_is_the_target_it_replaced() {
        let codec = Codec::new(crate::spec::bundled_tables().unwrap()).unwrap();
        let map = super::super::coverage::CoverageMap::new(&codec);
        let mut inputs: Vec<Vec<u8>> = std::fs::read_dir("corpus/roundtrip")
            .map(|d| {
                d.flatten()
                    .filter_map(|f| std::fs::read(f.path()).ok())
                    .collect()
            })
            .unwrap_or_default();
        let mut rng = super::super::SplitMix64(11);
        for k in 0..20_000usize {
            let mut data: Vec<u8> = (0..k % 120)
                .map(|_| rng.next_u64() as u8 | (k & 1) as u8)
                .collect();
            if let Some(b) = data.first_mut() {
                *b = if k % 3 == 0 { *b | 0x80 } else { *b };
            }
            inputs.push(data);
        }
        for counters in [1 << 11, 1 << 6] {
            let mut runner = FuzzRunner::new(
                Codec::new(crate::spec::bundled_tables().unwrap()).unwrap(),
                true,
                counters,
            );
            let mut seen = vec![0u64; counters / 8];
            let (mut want, mut got) = (vec![0u8; counters], vec![0u8; counters]);
            let mut reported = 0;
            for data in &inputs {
                want.fill(0);
                got.fill(0);
                let expected = FuzzCase::from_bytes(&codec, data).map(|case| {
                    run_case_observed(&codec, &case, |id, values| {
                        map.for_each_feature(id, values, |f| {
                            let i = f % (counters * 8);
                            let (w, bit) = (i / 64, 1u64 << (i % 64));
                            let (counter, bucket) = (i % counters, i / counters);
                            if seen[w] & bit == 0 && want[counter] == 0 {
                                seen[w] |= bit;
                                want[counter] = BUCKET_VALUES[bucket];
                            }
                        })
                    })
                    .err()
                    .map(|error| FuzzFailure { case, error })
                });
                let result = runner.run(data, &mut got);
                assert_eq!(result.err().map(|b| *b), expected.flatten(), "{data:?}");
                assert_eq!(got, want, "{data:?}");
                reported += got.iter().filter(|&&c| c != 0).count();
            }
            assert!(reported > counters.min(1000), "{reported}");
            let pending = &runner.map.as_ref().unwrap().pending;
            if counters == 1 << 6 {
                assert!(codec.ids().all(|id| !pending.of(id).2), "{counters}");
            }
            // Left to report: the pairs of the features no input reached.
            let left = |range: std::ops::Range<usize>| {
                range
                    .map(|f| f % (counters * 8))
                    .any(|i| seen[i / 64] & (1 << (i % 64)) == 0)
            };
            for id in codec.ids() {
                let (ranges, pair_range) = map.feature_ranges(id);
                let fields = ranges
                    .into_iter()
                    .enumerate()
                    .filter(|(_, r)| left(r.clone()))
                    .fold(0u64, |m, (i, _)| m | 1 << i);
                let pairs = left(pair_range);
                assert_eq!(
                    pending.of(id),
                    (fields, pairs, fields != 0 || pairs),
                    "{counters}"
                );
            }
        }
    }

    #[test]
    fn flags_go_after_the_program_name() {
        let args = [c"prog", c"-runs=5", c"corpus"];
        let mut ptrs: Vec<*mut std::ffi::c_char> =
            args.iter().map(|a| a.as_ptr().cast_mut()).collect();
        ptrs.push(std::ptr::null_mut());
        let (mut argc, mut argv) = (3, ptrs.as_mut_ptr());
        // SAFETY: `argv` holds `argc` valid pointers and a null.
        unsafe { put_flags_first(&mut argc, &mut argv, &[c"-entropic=0"]) };
        assert_eq!(argc, 4);
        // SAFETY: the new vector holds `argc` valid pointers and a null.
        let got: Vec<String> = unsafe { std::slice::from_raw_parts(argv, 5) }
            .iter()
            .map(|&p| {
                (!p.is_null()).then(|| {
                    // SAFETY: a pointer of the vector, to a C string.
                    unsafe { std::ffi::CStr::from_ptr(p) }
                        .to_string_lossy()
                        .into_owned()
                })
            })
            .map(|s| s.unwrap_or_default())
            .collect();
        assert_eq!(got, ["prog", "-entropic=0", "-runs=5", "corpus", ""]);
    }

    #[test]
    fn values_are_read_as_arbitrary_reads_them() {
        let mut rng = super::super::SplitMix64(3);
        for k in 0..20_000 {
            let len = k % 64;
            let data: Vec<u8> = (0..len)
                .map(|_| {
                    let b = rng.next_u64() as u8;
                    // Mostly continue flags, so that long runs of values are read.
                    if rng.next_u64().is_multiple_of(4) {
                        b
                    } else {
                        b | 1
                    }
                })
                .collect();
            let wanted = k % (MAX_FIELDS + 1);
            let mut case = FuzzCase {
                arch: Arch(90),
                word: Word(0),
                variant: VariantId::default(),
                values: [0; MAX_FIELDS],
                n_values: 0,
            };
            case.read_values(&data, wanted);
            assert_eq!(case.values(), arbitrary_values(&data, wanted), "{data:?}");
        }
    }
}
