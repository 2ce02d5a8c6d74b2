//! Arbitrary words on every arch through decode, check and render: no panic, and every
//! rendered text is a complete nvdisasm-style line (ends in `;`, which nvdisasm 13.5.37 writes
//! right after the text when the scheduling control is quiet, else after a space).
#![no_main]

use libfuzzer_sys::fuzz_target;
use sass_conform::codec::{Codec, Word};
use sass_conform::render::Renderer;
use std::sync::OnceLock;

fn tools() -> &'static (Codec, Renderer) {
    static C: OnceLock<(Codec, Renderer)> = OnceLock::new();
    C.get_or_init(|| {
        let c = Codec::new(sass_conform::spec::bundled_tables().unwrap()).unwrap();
        let r = Renderer::new(&c);
        (c, r)
    })
}

fuzz_target!(|data: &[u8]| {
    let (c, r) = tools();
    let Some(bytes) = data.get(..16) else { return };
    let word = Word(u128::from_le_bytes(bytes.try_into().unwrap()));
    for &arch in c.arch_list() {
        let _ = c.check(arch, word);
        if let Some(d) = c.decode(arch, word) {
            let text = r.render(c, &d);
            assert!(text.ends_with(';'), "{word} on {arch}: `{text}`");
            assert!(!text.contains("  "), "{word} on {arch}: `{text}`");
        }
    }
});
