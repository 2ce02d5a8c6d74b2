//! Fuzz crashes: the inputs kept under `<dir>/<target>/` (corpus/regressions holds minimised
//! crashes, fuzz/artifacts what libFuzzer saved), with the variants their bytes name and the
//! command that reproduces each.
//!
//! `<dir>/MANIFEST.tsv` (written by scripts/nightly) describes kept crashes, one per line:
//! `target<TAB>file<TAB>found<TAB>minimized<TAB>original<TAB>command<TAB>message`
//! (`#` lines are comments; `minimized` is `yes` or `no`).

use super::{ReportError, io_err, variant_name};
use crate::codec::{Codec, FuzzCase, Word};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// File name prefixes libFuzzer gives the inputs it saves, and their kind.
const PREFIXES: [(&str, &str); 6] = [
    ("crash-", "crash"),
    ("leak-", "leak"),
    ("timeout-", "timeout"),
    ("oom-", "oom"),
    ("slow-unit-", "slow-unit"),
    ("minimized-from-", "crash"),
];

/// One kept fuzz crash.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Crash {
    /// Fuzz target.
    pub target: String,
    /// Path of the input.
    pub file: String,
    /// `crash`, `leak`, `timeout`, `oom`, `slow-unit`.
    pub kind: String,
    /// Bytes.
    pub size: usize,
    /// FNV-1a 64 of the bytes, 16 hex digits (identity in comparisons, with `target`).
    pub hash: String,
    /// Whether `cargo fuzz tmin` minimised it.
    pub minimized: bool,
    /// Variants the input names (`SM100 KEY`): for roundtrip the variant of each property, for
    /// decode_render the variants decoding its word on each arch.
    pub variants: Vec<String>,
    /// Command that reproduces it.
    pub reproduce: String,
    /// First line of the failure, when the manifest has it.
    pub message: Option<String>,
    /// Date it was found, when the manifest has it.
    pub found: Option<String>,
    /// libFuzzer's file it was minimised from, when the manifest has it.
    pub original: Option<String>,
}

/// FNV-1a 64-bit hash (stable across Rust versions, unlike `DefaultHasher`).
pub fn fnv1a(data: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

#[derive(Debug, Clone, Default)]
struct ManifestRow {
    found: String,
    minimized: bool,
    original: String,
    command: String,
    message: String,
}

fn read_manifest(dir: &Path) -> Result<HashMap<(String, String), ManifestRow>, ReportError> {
    let path = dir.join("MANIFEST.tsv");
    let mut out = HashMap::new();
    if !path.is_file() {
        return Ok(out);
    }
    let text = std::fs::read_to_string(&path).map_err(io_err(&path))?;
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let c: Vec<&str> = line.split('\t').collect();
        let get = |i: usize| c.get(i).copied().unwrap_or("").to_string();
        out.insert(
            (get(0), get(1)),
            ManifestRow {
                found: get(2),
                minimized: get(3) == "yes",
                original: get(4),
                command: get(5),
                message: get(6),
            },
        );
    }
    Ok(out)
}

/// Lists the crashes under each `<dir>/<target>/`: every file with a libFuzzer prefix
/// (`crash-`, `leak-`, `timeout-`, `oom-`, `slow-unit-`, `minimized-from-`) or a row in
/// `<dir>/MANIFEST.tsv`. The same bytes for the same target are listed once (the first
/// folder's). Missing folders are skipped.
pub fn scan_crashes(dirs: &[PathBuf]) -> Result<Vec<Crash>, ReportError> {
    let mut out: Vec<Crash> = Vec::new();
    let mut codec: Option<Option<Codec>> = None;
    for dir in dirs {
        if !dir.is_dir() {
            continue;
        }
        let manifest = read_manifest(dir)?;
        let mut targets: Vec<PathBuf> = read_dir_sorted(dir)?
            .into_iter()
            .filter(|p| p.is_dir())
            .collect();
        targets.sort();
        for tdir in targets {
            let target = file_name(&tdir);
            for f in read_dir_sorted(&tdir)? {
                let name = file_name(&f);
                if !f.is_file() || name.starts_with('.') {
                    continue;
                }
                let row = manifest.get(&(target.clone(), name.clone()));
                let kind = PREFIXES
                    .iter()
                    .find(|(p, _)| name.starts_with(p))
                    .map(|(_, k)| k.to_string());
                let kind = match (kind, row) {
                    (Some(k), _) => k,
                    (None, Some(_)) => "crash".to_string(),
                    (None, None) => continue,
                };
                let data = std::fs::read(&f).map_err(io_err(&f))?;
                let hash = fnv1a(&data);
                if out.iter().any(|c| c.target == target && c.hash == hash) {
                    continue;
                }
                let c = codec.get_or_insert_with(|| {
                    crate::spec::bundled_tables()
                        .ok()
                        .and_then(|t| Codec::new(t).ok())
                });
                let path = f.display().to_string();
                let nonempty = |s: &str| (!s.is_empty()).then(|| s.to_string());
                out.push(Crash {
                    variants: c
                        .as_ref()
                        .map(|c| input_variants(c, &target, &data))
                        .unwrap_or_default(),
                    reproduce: row
                        .and_then(|r| nonempty(&r.command))
                        .unwrap_or_else(|| format!("cargo fuzz run {target} {path}")),
                    minimized: row.is_some_and(|r| r.minimized) || name.starts_with("minimized-"),
                    message: row.and_then(|r| nonempty(&r.message)),
                    found: row.and_then(|r| nonempty(&r.found)),
                    original: row.and_then(|r| nonempty(&r.original)),
                    target: target.clone(),
                    file: path,
                    kind,
                    size: data.len(),
                    hash,
                });
            }
        }
    }
    Ok(out)
}

fn read_dir_sorted(dir: &Path) -> Result<Vec<PathBuf>, ReportError> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io_err(dir))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    v.sort();
    Ok(v)
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The variants a fuzz input names (see [`Crash::variants`]).
pub fn input_variants(codec: &Codec, target: &str, data: &[u8]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |s: String| {
        if !out.contains(&s) {
            out.push(s);
        }
    };
    match target {
        "roundtrip" => {
            if let Some(case) = FuzzCase::from_bytes(codec, data) {
                if let Some(d) = codec.decode(case.arch, case.word) {
                    push(variant_name(Some(case.arch), &codec.variant(d.id).key));
                }
                let t = codec.table(case.variant);
                push(variant_name(t.arch, &codec.variant(case.variant).key));
            }
        }
        "decode_render" => {
            if let Some(b) = data.get(..16) {
                let word = Word(u128::from_le_bytes(b.try_into().unwrap_or([0; 16])));
                for arch in codec.archs() {
                    if let Some(d) = codec.decode(arch, word) {
                        push(variant_name(Some(arch), &codec.variant(d.id).key));
                    }
                }
            }
        }
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_is_stable() {
        assert_eq!(fnv1a(b""), "cbf29ce484222325");
        assert_eq!(fnv1a(b"a"), "af63dc4c8601ec8c");
    }

    #[test]
    fn scans_prefixed_files_and_manifest_rows() {
        let d = tempfile::tempdir().unwrap();
        let t = d.path().join("decode_render");
        std::fs::create_dir_all(&t).unwrap();
        // TLD's fixed word, little-endian.
        let w: u128 = 0x00000000080000000000000000000f66;
        std::fs::write(t.join("crash-abc"), w.to_le_bytes()).unwrap();
        std::fs::write(t.join("kept"), b"xyz").unwrap();
        std::fs::write(t.join("not-a-crash"), b"q").unwrap();
        std::fs::write(
            d.path().join("MANIFEST.tsv"),
            "# header\ndecode_render\tkept\t2025-01-01\tyes\tcrash-1\tcargo fuzz run decode_render kept\tpanicked at x\n",
        )
        .unwrap();
        let c = scan_crashes(&[d.path().to_path_buf()]).unwrap();
        assert_eq!(c.len(), 2, "{c:?}");
        assert_eq!(c[0].kind, "crash");
        assert_eq!(
            c[0].variants,
            vec!["SM100 TLD_P_R_R_R_R_UR_D_I".to_string()]
        );
        assert!(c[0].reproduce.starts_with("cargo fuzz run decode_render "));
        assert!(c[1].minimized);
        assert_eq!(c[1].message.as_deref(), Some("panicked at x"));
        assert_eq!(c[1].found.as_deref(), Some("2025-01-01"));
    }
}
