#![no_main]

//! Baseline target: does nothing with its input. Compare its exec/s with the
//! real targets' to see how much of a run is harness overhead.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = data;
});
