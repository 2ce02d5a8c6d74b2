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
//! scripts/bench-coverage). Dictionary: fuzz/roundtrip.dict (`sass-conform corpus dict`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use sass_conform::codec::coverage::CoverageMap;
use sass_conform::codec::{Codec, FuzzCase, run_case};
use std::sync::OnceLock;

/// Extra counters: one per table feature (14,765 for the bundled tables), modulo the size.
const COUNTERS: usize = 1 << 15;

#[used]
#[unsafe(link_section = "__libfuzzer_extra_counters")]
static mut TABLE_COUNTERS: [u8; COUNTERS] = [0; COUNTERS];

fn codec() -> &'static Codec {
    static C: OnceLock<Codec> = OnceLock::new();
    C.get_or_init(|| Codec::new(sass_conform::spec::bundled_tables().unwrap()).unwrap())
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

fn bump(feature: usize) {
    // SAFETY: libFuzzer runs the target on one thread; it reads and clears the counters
    // between runs only.
    unsafe {
        let p = (&raw mut TABLE_COUNTERS as *mut u8).add(feature % COUNTERS);
        *p = (*p).saturating_add(1);
    }
}

fuzz_target!(|data: &[u8]| {
    let c = codec();
    let Some(case) = FuzzCase::from_bytes(c, data) else {
        return;
    };
    if let Some(map) = table_map() {
        if let Some(d) = c.decode(case.arch, case.word) {
            map.for_each_decoded(&d, bump);
        }
        map.for_each_feature(case.variant, case.values(), bump);
    }
    if let Err(e) = run_case(c, &case) {
        panic!("round trip broken: {e}\ncase: {case:?}");
    }
});
