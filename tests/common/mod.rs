//! Helpers shared by integration tests (each test file includes this with `mod common;`).

use std::path::PathBuf;

/// The cubins of corpus/synth/sm90 the synth recordings were made from (`--cubins` each):
/// those added later (ptx/synth/sanitize.ptx and opt_o1.ptx, compiled with other ptxas
/// options; minmax3 and texlod) hold real words that would make other bases.
pub fn recorded_cubins() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir("corpus/synth/sm90")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.ends_with(".cubin")
                && ![
                    "sanitize.cubin",
                    "opt_o1.cubin",
                    "minmax3.cubin",
                    "texlod.cubin",
                ]
                .contains(&n.as_ref())
        })
        .collect();
    v.sort();
    v
}
