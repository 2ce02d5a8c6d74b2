//! Every committed roundtrip fuzz input (real words, and minimised crashes kept as regression
//! tests) replayed through the same function the fuzz target calls.

use sass_conform::codec::{Codec, FuzzCase, RoundTrip, run_case};
use sass_conform::spec::bundled_tables;

#[test]
fn corpus_roundtrip_replays_clean() {
    let c = Codec::new(bundled_tables().unwrap()).unwrap();
    let mut files: Vec<_> = std::fs::read_dir("corpus/roundtrip")
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut exact = 0;
    for f in &files {
        let data = std::fs::read(f).unwrap();
        let Some(case) = FuzzCase::from_bytes(&c, &data) else {
            continue;
        };
        match run_case(&c, &case) {
            Ok((RoundTrip::Exact, _)) => exact += 1,
            Ok(_) => {}
            Err(e) => panic!("{}: {e}", f.display()),
        }
    }
    // The seeds are real words: each variant's fixed word at least.
    assert!(files.len() >= 143, "{} files", files.len());
    assert!(
        exact >= 143,
        "{exact} of {} round-trip exactly",
        files.len()
    );
}
