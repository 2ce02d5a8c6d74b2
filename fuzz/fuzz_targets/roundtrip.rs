//! Round trip of 128-bit words and operand sets through the table-built encoder and decoder:
//! (a) word -> decode -> encode keeps every described bit; (b) variant + values -> encode ->
//! decode gives the same variant and values (or a table overlap). Input layout: see
//! `sass_conform::codec::FuzzCase`.
//!
//! Table-aware coverage: every (variant, field, value class) triple and modifier-group pair
//! the input reaches (`sass_conform::codec::coverage`) bumps one counter of libFuzzer's extra
//! counters (the `__libfuzzer_extra_counters` section libFuzzer reads beside its code
//! coverage), so an input that reaches a new part of the tables is kept even when it runs no
//! new code. `SASS_TABLE_COVERAGE=0` turns it off (for the side-by-side comparison in
//! scripts/bench-campaign). Dictionary: fuzz/roundtrip.dict (`sass-conform corpus dict`).
//!
//! Cost per execution (issue 23): a table feature is reported in the run that first reaches
//! it, and never again in this process: libFuzzer keeps that input (a new feature) and never
//! pays for the feature again (its entropic schedule keeps every rarely seen feature in a
//! list that it searches for each feature of each run, and rarely seen is what most table
//! features stay). So a table feature keeps exactly one input and never multiplies the
//! corpus; a replay of one input still reports all of its features. A counter is set, never
//! counted up, and holds 8 features, one per hit-count bucket (libFuzzer scans and clears
//! every counter on every run: 2 KiB of them, not one byte per feature);
//! the word is decoded once for the coverage and the round trip; and ASan's fake stack
//! (use-after-return checks, which safe Rust cannot need) is off by default, since it costs
//! an allocation per call in libFuzzer's own per-feature callback.
//!
//! The library is linked as `sass_conform_plain` (fuzz/plain): the same source, compiled
//! without sanitizer-coverage instrumentation by scripts/rustc-wrapper, which
//! .cargo/config.toml names as cargo's workspace wrapper (so plain `cargo fuzz run roundtrip`
//! gets it), AddressSanitizer kept.
//! libFuzzer sees this file's code and the table features, not the codec's branches and
//! comparisons: per run it no longer pays for thousands of code counters and traced
//! comparisons (most of each run, issue 23), and the table features, which found what the
//! code coverage found and more, guide it. The whole run is one call,
//! `run_fuzz_input` (not generic, so none of it is compiled, and instrumented, here).
#![no_main]

use libfuzzer_sys::fuzz_target;
use sass_conform_plain::codec::coverage::CoverageMap;
use sass_conform_plain::codec::{Codec, run_fuzz_input};
use std::sync::OnceLock;

/// Extra counters. libFuzzer scans and clears every one of them on every run, and reads a
/// counter's value by buckets (1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+): each bucket of each
/// counter is a feature of its own. A table feature is reported once (module notes), so it
/// gets a (counter, bucket) pair of its own: 8 features a byte, 16,384 in all (14,765 for the
/// bundled tables; more wrap around).
const COUNTERS: usize = 1 << 11;

/// Features that have a (counter, bucket) pair of their own.
const FEATURES: usize = COUNTERS * 8;

/// A counter value in each bucket.
const BUCKET_VALUES: [u8; 8] = [1, 2, 3, 4, 8, 16, 32, 128];

#[used]
#[unsafe(link_section = "__libfuzzer_extra_counters")]
static mut TABLE_COUNTERS: [u8; COUNTERS] = [0; COUNTERS];

fn codec() -> &'static Codec {
    static C: OnceLock<Codec> = OnceLock::new();
    C.get_or_init(|| Codec::new(sass_conform_plain::spec::bundled_tables().unwrap()).unwrap())
}

/// The feature numbering, unless `SASS_TABLE_COVERAGE=0`.
fn table_map() -> Option<&'static CoverageMap> {
    static M: OnceLock<Option<CoverageMap>> = OnceLock::new();
    M.get_or_init(|| {
        let off = std::env::var("SASS_TABLE_COVERAGE").is_ok_and(|v| v == "0");
        (!off).then(|| CoverageMap::new(codec()))
    })
    .as_ref()
}

/// Table features this process has reported (module notes).
static mut SEEN: [u64; FEATURES / 64] = [0; FEATURES / 64];

/// Reports a feature the first time this process reaches it (module notes): sets its
/// counter to a value in its bucket. When another feature already set that counter in this
/// run, it waits for a later run that reaches it.
fn bump(feature: usize) {
    let i = feature % FEATURES;
    // SAFETY: libFuzzer runs the target on one thread; it reads and clears the counters
    // between runs only, and never touches `SEEN`.
    unsafe {
        let seen = &mut *(&raw mut SEEN as *mut [u64; FEATURES / 64]);
        let (word, bit) = (i / 64, 1u64 << (i % 64));
        let counter = (&raw mut TABLE_COUNTERS as *mut u8).add(i / 8);
        if seen[word] & bit == 0 && *counter == 0 {
            seen[word] |= bit;
            *counter = BUCKET_VALUES[i % 8];
        }
    }
}

/// ASan's run-time defaults for this target: no fake stack (module notes). An
/// `ASAN_OPTIONS` setting still wins.
#[unsafe(no_mangle)]
pub extern "C" fn __asan_default_options() -> *const std::ffi::c_char {
    c"detect_stack_use_after_return=0".as_ptr()
}

fuzz_target!(|data: &[u8]| {
    let mut hit = bump;
    if let Some((case, Err(e))) = run_fuzz_input(codec(), table_map(), data, &mut hit) {
        panic!("round trip broken: {e}\ncase: {case:?}");
    }
});
