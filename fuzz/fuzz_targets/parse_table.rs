//! Arbitrary text through the table parsers: an error or a table, never a panic; a parsed
//! table must also build a codec and decode its own fixed words. Input that looks like HTML
//! (starts with `<` after blanks) goes to the nv_isa_solver page reader, the rest to the text
//! dialects.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sass_conform::codec::{Codec, Word};
use sass_conform::spec::{parse_html, parse_table};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = if text.trim_start().starts_with('<') {
        parse_html("fuzz.html", text)
    } else {
        parse_table("fuzz.txt", text)
    };
    let Ok(mut t) = parsed else { return };
    t.arch.get_or_insert(sass_conform::Arch(90));
    let fixed: Vec<u128> = t.variants.iter().map(|v| v.fixed_value).collect();
    let Ok(c) = Codec::new(vec![t]) else { return };
    for (i, w) in fixed.into_iter().enumerate() {
        let arch = c.arch_list()[0];
        let d = c.decode(arch, Word(w));
        assert!(d.is_some(), "variant {i}'s fixed word does not decode");
    }
});
