//! Where the data a command reads by default is found, so an installed binary
//! (`cargo install --path .`) works from any directory.
//!
//! A default path (`specs`, `resolved/tables.json`, `oracle`, ...) is looked up in the
//! current directory first, as before. When it is not there:
//! - the tables: the ones compiled into the binary ([`crate::spec::bundled_tables`]);
//! - the resolved view: the `resolved/tables.json` compiled into the binary
//!   ([`BUNDLED_RESOLVED`]), used only over the bundled tables (it names their variants);
//! - the recorded oracle (67 MB, not compiled in), the cubins, corpora and reports, and a
//!   table file named under `specs/`: the same path under the repository the binary was
//!   built from ([`REPO`]), if that still exists ([`data_path`]); a table file named under
//!   `specs/` that is not here is the bundled table of that name.
//!
//! A path given on the command line that differs from the default is used as given.

use std::path::{Path, PathBuf};

/// The repository the binary was built from (`CARGO_MANIFEST_DIR` at build time).
pub const REPO: &str = env!("CARGO_MANIFEST_DIR");

/// Default folder of tables (clap default of `--specs` and of the table path arguments).
pub const SPECS: &str = "specs";

/// Default resolved view (clap default of `--resolved`).
pub const RESOLVED: &str = "resolved/tables.json";

/// `resolved/tables.json` as it was when the binary was built (the readings of the bundled
/// tables, written by `sass-conform resolve --write`).
pub const BUNDLED_RESOLVED: &[u8] = include_bytes!("../resolved/tables.json");

/// `oracle/MANIFEST.json` as it was when the binary was built (which nvdisasm recorded the
/// oracle).
pub const BUNDLED_ORACLE_MANIFEST: &str = include_str!("../oracle/MANIFEST.json");

/// True when `paths` is the default table folder and the current directory has none: the
/// bundled tables are meant.
pub fn wants_bundled_tables(paths: &[PathBuf]) -> bool {
    matches!(paths, [p] if p == Path::new(SPECS) && !p.exists())
}

/// The `learn` workspaces (folders named `*.learn`) in the current directory, sorted.
pub fn learn_workspaces_here() -> Vec<PathBuf> {
    let Ok(dir) = std::fs::read_dir(".") else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = dir
        .filter_map(|e| e.ok())
        .map(|e| PathBuf::from(e.file_name()))
        .filter(|p| p.extension().is_some_and(|x| x == "learn") && p.is_dir())
        .collect();
    out.sort();
    out
}

/// A note for a command that reads the bundled tables by default (no `specs/` here) in a
/// directory that holds `learn` workspaces: which workspace the user may have meant and the
/// options that read it. `None` where there is none.
pub fn bundled_beside_workspaces() -> Option<String> {
    let ws = learn_workspaces_here();
    let first = ws.first()?;
    let names: Vec<String> = ws.iter().map(|p| p.display().to_string()).collect();
    Some(format!(
        "note: no {SPECS}/ here: reading the bundled tables; this folder holds learn \
         workspace(s) {}: to read one, pass --specs {1}/specs --resolved {1}/resolved/tables.json \
         (and --oracle {1}/oracle where the command takes it)",
        names.join(", "),
        first.display()
    ))
}

/// True when `path` is the default resolved view and the current directory has none: the
/// bundled view is meant (over the bundled tables only).
pub fn wants_bundled_resolved(path: &Path) -> bool {
    path == Path::new(RESOLVED) && !path.exists()
}

/// The data folder or file a command reads: `given` when it exists here or is absolute,
/// else the same relative path under [`REPO`] when that exists (`oracle`, `corpus/cubins/sm90`,
/// `reports/baseline.json` from another directory), else `given` (the caller reports it
/// missing). Only inputs go through here: outputs are written where they are named.
pub fn data_path(given: &Path) -> PathBuf {
    if given.exists() || given.is_absolute() {
        return given.to_path_buf();
    }
    let in_repo = Path::new(REPO).join(given);
    if in_repo.exists() {
        in_repo
    } else {
        given.to_path_buf()
    }
}

/// The nvdisasm versions (sorted, unique) that recorded the oracle at `oracle/` as found by
/// [`data_path`]; the build's manifest when none is found or it cannot be read.
pub fn oracle_nvdisasm_versions() -> Vec<String> {
    let manifest = data_path(Path::new("oracle")).join("MANIFEST.json");
    let text =
        std::fs::read_to_string(manifest).unwrap_or_else(|_| BUNDLED_ORACLE_MANIFEST.to_string());
    let m: crate::oracle::Manifest = serde_json::from_str(&text)
        .or_else(|_| serde_json::from_str(BUNDLED_ORACLE_MANIFEST))
        .unwrap_or_default();
    let mut v: Vec<String> = m.files.into_iter().map(|f| f.nvdisasm_version).collect();
    v.sort();
    v.dedup();
    v
}

/// The `--version` text: the crate version and the nvdisasm that recorded the oracle
/// (`0.1.0 (oracle recorded with nvdisasm 13.5.37)`).
pub fn version_text() -> String {
    let v = oracle_nvdisasm_versions();
    let nv = if v.is_empty() {
        "no oracle".to_string()
    } else {
        format!("oracle recorded with nvdisasm {}", v.join(", "))
    };
    format!("{} ({nv})", env!("CARGO_PKG_VERSION"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_manifest_names_the_recording_nvdisasm() {
        let m: crate::oracle::Manifest = serde_json::from_str(BUNDLED_ORACLE_MANIFEST).unwrap();
        assert!(m.files.iter().all(|f| f.nvdisasm_version == "13.5.37"));
    }

    #[test]
    fn outputs_and_given_paths_are_not_redirected() {
        assert_eq!(
            data_path(Path::new("no/such/dir")),
            Path::new("no/such/dir")
        );
        assert_eq!(data_path(Path::new("oracle-out")), Path::new("oracle-out"));
        assert_eq!(data_path(Path::new("/no/oracle")), Path::new("/no/oracle"));
        // A repository path missing here is the repository's.
        let in_repo = Path::new(REPO).join("corpus/cubins/sm90");
        let got = data_path(Path::new("corpus/cubins/sm90"));
        assert!(
            got == in_repo || Path::new("corpus/cubins/sm90").exists(),
            "{got:?}"
        );
    }
}
