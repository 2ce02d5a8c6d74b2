//! fuzz/plain builds this repository's library a second time, as `sass_conform_plain`, for the
//! `roundtrip` fuzz target (compiled without sanitizer-coverage instrumentation; issue 23). Its
//! manifest repeats the dependencies of the root one: this checks that it repeats them
//! exactly, so that a dependency added to one is added to the other.

use std::path::Path;

/// The lines of `[section]` in a manifest, up to the next section, blank lines and comments
/// dropped.
fn section(manifest: &str, name: &str) -> Vec<String> {
    let head = format!("[{name}]");
    let mut lines = manifest.lines().skip_while(|l| l.trim() != head);
    assert!(lines.next().is_some(), "no {head} section");
    lines
        .take_while(|l| !l.trim_start().starts_with('['))
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

#[test]
fn fuzz_plain_has_the_root_dependencies() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = std::fs::read_to_string(here.join("Cargo.toml")).unwrap();
    let plain = std::fs::read_to_string(here.join("fuzz/plain/Cargo.toml")).unwrap();
    for name in ["dependencies", "build-dependencies"] {
        let (r, p) = (section(&root, name), section(&plain, name));
        assert!(r.len() > 3 || name != "dependencies", "{r:?}");
        assert_eq!(
            r, p,
            "[{name}] of Cargo.toml and fuzz/plain/Cargo.toml differ"
        );
    }
    // The library it builds is this one.
    assert!(plain.contains("path = \"../../src/lib.rs\""));
    // Its build script is the root one (fuzz/plain/build.rs is a link to it: the script's
    // `rerun-if-changed` paths are relative to the package).
    assert!(plain.contains("build = \"build.rs\""));
    assert_eq!(
        std::fs::read(here.join("fuzz/plain/build.rs")).unwrap(),
        std::fs::read(here.join("build.rs")).unwrap()
    );
}
