//! Round trip of 128-bit words and operand sets through the table-built encoder and decoder:
//! (a) word -> decode -> encode keeps every described bit; (b) variant + values -> encode ->
//! decode gives the same variant and values (or a table overlap). Input layout: see
//! `sass_conform::codec::FuzzCase`.
//!
//! Table-aware coverage: every (variant, field, value class) triple and modifier-group pair
//! the input reaches (`sass_conform::codec::coverage`) sets one counter of libFuzzer's extra
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
//! every counter on every run: 2 KiB of them, not one byte per feature); the reporting is
//! `sass_conform::codec::FuzzRunner`'s (its doc comment has the details). ASan's fake stack
//! (use-after-return checks, which safe Rust cannot need) is off by default, since it costs an
//! allocation per call in libFuzzer's own per-feature callback.
//!
//! The library is linked as `sass_conform_plain` (fuzz/plain): the same source, compiled
//! without sanitizer-coverage instrumentation and without AddressSanitizer (safe Rust on a
//! run's path) by scripts/rustc-wrapper, which .cargo/config.toml names as cargo's workspace
//! wrapper (so plain `cargo fuzz run roundtrip` gets it).
//! libFuzzer sees the table features, not the codec's branches and comparisons: per run it no
//! longer pays for thousands of code counters and traced comparisons (most of each run, issue
//! 23), and the table features, which found what the code coverage found and more, guide it.
//! The whole run is one call, `FuzzRunner::run`, on a runner built once, before the first run
//! (not generic, so none of it is compiled here). This file is compiled without
//! sanitizer-coverage instrumentation too (AddressSanitizer kept; the same wrapper): its code
//! coverage, a call and a branch, told libFuzzer nothing and cost every run its counters and
//! traced comparisons. libFuzzer's code counters are libfuzzer-sys's (9 reached per run;
//! `empty`: 14).
//!
//! Run-time defaults (issue 23), each overridden by the same setting given by you:
//! - libFuzzer runs this target with `-entropic=0` (its vanilla schedule): a table feature is
//!   reported once, so its frequency, which the entropic schedule weighs inputs by, stays 1
//!   and tells it nothing, while the schedule rebuilt its weights over the whole corpus (8,000
//!   inputs after a minute) every hundred picks: a fifth of the time. Coverage holds
//!   (README.md, "Where users wait"). `LLVMFuzzerInitialize` puts the flag first on the
//!   command line, so a `-entropic=1` of yours, which comes later, wins.
//! - ASan: no fake stack (`detect_stack_use_after_return=0`: use-after-return checks, which
//!   safe Rust cannot need, cost an allocation per call in libFuzzer's own per-feature
//!   callback), no quarantine of freed memory and no allocation stack traces
//!   (`quarantine_size_mb=0:malloc_context_size=0`: what libFuzzer allocates for each run and
//!   each corpus update was recycled through page faults and an unwinding of the stack). The
//!   library, all of a run's work, is built without ASan (fuzz/README.md), so these guard
//!   only this file and libfuzzer-sys. No range checks in `memcpy`, `memmove` and `memset`
//!   (`replace_intrin=0`): ASan checked the range of every such call, libFuzzer's own copies of
//!   each input and the library's (uninstrumented, safe Rust) copies and fills included; the
//!   loads and stores of this file and libfuzzer-sys stay checked. An `ASAN_OPTIONS` setting
//!   wins.
//!
//! Written out rather than through `fuzz_target!`, whose `LLVMFuzzerInitialize` does not hand
//! the command line to its `init` code; the two functions below do what the macro's do
//! (libfuzzer-sys 0.4), plus the flag.
#![no_main]

use sass_conform_plain::codec::{FuzzRunner, put_flags_first};
use std::ffi::{CStr, c_char, c_int};

/// Extra counters. libFuzzer scans and clears every one of them on every run, and reads a
/// counter's value by buckets (1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+): each bucket of each
/// counter is a feature of its own. A table feature is reported once (module notes), so it
/// gets a (counter, bucket) pair of its own: 8 features a byte, 16,384 in all (14,765 for the
/// bundled tables; more wrap around).
const COUNTERS: usize = 1 << 11;

#[used]
#[unsafe(link_section = "__libfuzzer_extra_counters")]
static mut TABLE_COUNTERS: [u8; COUNTERS] = [0; COUNTERS];

/// The runner, built by `LLVMFuzzerInitialize` before the first run.
static mut RUNNER: Option<FuzzRunner> = None;

/// libFuzzer flags put before the command line's (module notes).
const DEFAULT_FLAGS: [&CStr; 1] = [c"-entropic=0"];

/// libFuzzer calls this once, before any run, with `main`'s argument count and vector:
/// installs libfuzzer-sys's panic hook (a panic aborts, as `fuzz_target!` does), puts
/// [`DEFAULT_FLAGS`] after the program name, and builds the runner (table features on unless
/// `SASS_TABLE_COVERAGE=0`).
#[unsafe(no_mangle)]
pub extern "C" fn LLVMFuzzerInitialize(argc: *mut c_int, argv: *mut *mut *mut c_char) -> c_int {
    libfuzzer_sys::initialize(argc as *const isize, argv as *const *const *const u8);
    // SAFETY: libFuzzer passes pointers to `main`'s argc and argv (argc strings, then a null),
    // and parses its flags from them after this returns.
    unsafe { put_flags_first(&mut *argc, &mut *argv, &DEFAULT_FLAGS) };
    let off = std::env::var("SASS_TABLE_COVERAGE").is_ok_and(|v| v == "0");
    // SAFETY: libFuzzer runs the initializer and every run on one thread, one after another.
    // Written, not assigned: nothing to drop, so no drop code of the runner is compiled, and
    // instrumented, here (counters libFuzzer would scan on every run).
    unsafe { (&raw mut RUNNER).write(Some(FuzzRunner::bundled(!off, COUNTERS))) };
    0
}

/// ASan's run-time defaults for this target (module notes). An `ASAN_OPTIONS` setting still
/// wins.
#[unsafe(no_mangle)]
pub extern "C" fn __asan_default_options() -> *const c_char {
    c"detect_stack_use_after_return=0:quarantine_size_mb=0:malloc_context_size=0:replace_intrin=0"
        .as_ptr()
}

/// One run, called by libfuzzer-sys's `LLVMFuzzerTestOneInput` with the input bytes; 0 keeps
/// the input's features (as `fuzz_target!`'s function does). With `RUST_LIBFUZZER_DEBUG_PATH`
/// (`cargo fuzz fmt`), writes the input's bytes there instead.
#[unsafe(no_mangle)]
#[allow(improper_ctypes_definitions)]
pub extern "C" fn rust_fuzzer_test_input(bytes: &[u8]) -> i32 {
    if let Some(path) = libfuzzer_sys::rust_libfuzzer_debug_path() {
        use std::io::Write;
        let mut file =
            std::fs::File::create(path).expect("failed to create `RUST_LIBFUZZER_DEBUG_PATH` file");
        writeln!(&mut file, "{bytes:?}")
            .expect("failed to write to `RUST_LIBFUZZER_DEBUG_PATH` file");
        return 0;
    }
    roundtrip(bytes);
    0
}

/// The round trip of one input (a frame of its own, named after the target, for crash
/// reports, as `fuzz_target!` does).
#[inline(never)]
fn roundtrip(data: &[u8]) {
    // SAFETY: libFuzzer runs the target on one thread, after `LLVMFuzzerInitialize`; it reads
    // and clears the counters between runs only.
    let (runner, counters) = unsafe { (&mut *(&raw mut RUNNER), &mut *(&raw mut TABLE_COUNTERS)) };
    let Some(runner) = runner else {
        unreachable!("LLVMFuzzerInitialize builds the runner")
    };
    if let Err(failure) = runner.run(data, counters) {
        // Never dropped (the panic aborts): no drop code here either.
        let failure = std::mem::ManuallyDrop::new(failure);
        panic!("{}", *failure);
    }
}
