//! Round trip of 128-bit words and operand sets through the table-built encoder and decoder:
//! (a) word -> decode -> encode keeps every described bit; (b) variant + values -> encode ->
//! decode gives the same variant and values (or a table overlap). Input layout: see
//! `sass_conform::codec::FuzzCase`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sass_conform::codec::{Codec, FuzzCase, run_case};
use std::sync::OnceLock;

fn codec() -> &'static Codec {
    static C: OnceLock<Codec> = OnceLock::new();
    C.get_or_init(|| Codec::new(sass_conform::spec::bundled_tables().unwrap()).unwrap())
}

fuzz_target!(|data: &[u8]| {
    let c = codec();
    if let Some(case) = FuzzCase::from_bytes(c, data)
        && let Err(e) = run_case(c, &case)
    {
        panic!("round trip broken: {e}\ncase: {case:?}");
    }
});
