//! Helpers shared by integration tests (each test file includes this with `mod common;`).

use std::path::PathBuf;

/// The cubins of corpus/synth/sm90 the synth recordings were made from: those added later
/// (ptx/synth/sanitize.ptx and opt_o1.ptx, compiled with other ptxas options) hold real words
/// that earlier runs asked as experiments, which would make other bases.
pub fn recorded_cubins() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir("corpus/synth/sm90")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.ends_with(".cubin") && n != "sanitize.cubin" && n != "opt_o1.cubin"
        })
        .collect();
    v.sort();
    v
}
