//! Seeds the working corpus of each fuzz target: every committed seed `corpus/<target>/<file>`
//! missing from `fuzz/corpus/<target>/` is copied there. `cargo fuzz run <target>` with no
//! corpus argument reads and writes `fuzz/corpus/<target>/` (ignored by git), so it starts
//! from the seeds and its new inputs never show up in `git status`; `scripts/corpus-promote`
//! moves the ones that add coverage into the committed `corpus/<target>/`.

use std::path::Path;

fn main() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR"));
    let seeds = fuzz.join("../corpus");
    // Rerun when a seed is added or removed (not on the working corpus's own growth).
    println!("cargo::rerun-if-changed=../corpus");
    println!("cargo::rerun-if-changed=fuzz_targets");
    let Ok(targets) = std::fs::read_dir(fuzz.join("fuzz_targets")) else {
        return;
    };
    for t in targets.flatten() {
        let path = t.path();
        let Some(name) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        let (from, to) = (seeds.join(name), fuzz.join("corpus").join(name));
        let Ok(files) = std::fs::read_dir(&from) else {
            continue;
        };
        if let Err(e) = std::fs::create_dir_all(&to) {
            println!("cargo::warning={}: {e}", to.display());
            continue;
        }
        for f in files.flatten() {
            let dest = to.join(f.file_name());
            if f.path().is_file() && !dest.exists() {
                if let Err(e) = std::fs::copy(f.path(), &dest) {
                    println!("cargo::warning={}: {e}", dest.display());
                }
            }
        }
    }
}
