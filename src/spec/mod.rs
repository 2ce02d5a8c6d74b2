//! Spec layer: the table model, the parser for both dialects, and loading of the specs/ folder.

pub mod emit;
pub mod model;
pub mod parse;

pub use model::*;
pub use parse::parse_table;

use crate::arch::Arch;
use std::path::{Path, PathBuf};

/// Errors of the spec layer. Every variant names the file (and line where there is one).
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// A line that fits neither dialect.
    #[error("{file}:{line}: {message}")]
    Syntax {
        /// File as given.
        file: String,
        /// 1-based line.
        line: usize,
        /// What was expected and found.
        message: String,
    },
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// File name of the arch manifest in a specs folder: `path<TAB>arch<TAB>why` per line.
pub const ARCH_MANIFEST: &str = "ARCH_MANIFEST.tsv";

/// Reads and parses one table file. `arch` (from `--arch`) overrides a missing header arch and
/// wins over the manifest; a header arch always stands.
pub fn load_table(path: &Path, arch: Option<Arch>) -> Result<Table, SpecError> {
    let text = std::fs::read_to_string(path).map_err(|source| SpecError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut t = parse_table(&path.display().to_string(), &text)?;
    if t.arch.is_none() {
        if let Some(a) = arch {
            t.arch = Some(a);
            t.arch_source = "option".into();
        } else if let Some(a) = manifest_arch(path)? {
            t.arch = Some(a);
            t.arch_source = "manifest".into();
        }
    }
    Ok(t)
}

/// Looks `path` up in the `ARCH_MANIFEST.tsv` of its folder or the folder above.
fn manifest_arch(path: &Path) -> Result<Option<Arch>, SpecError> {
    let mut dir = path.parent();
    for _ in 0..2 {
        let Some(d) = dir else { break };
        let m = d.join(ARCH_MANIFEST);
        if m.is_file() {
            let text = std::fs::read_to_string(&m).map_err(|source| SpecError::Io {
                path: m.clone(),
                source,
            })?;
            let rel = path.strip_prefix(d).unwrap_or(path);
            for (i, line) in text.lines().enumerate() {
                if line.starts_with('#') || line.trim().is_empty() {
                    continue;
                }
                let mut cols = line.split('\t');
                let (Some(p), Some(a)) = (cols.next(), cols.next()) else {
                    return Err(SpecError::Syntax {
                        file: m.display().to_string(),
                        line: i + 1,
                        message: "expected `path<TAB>arch<TAB>why`".into(),
                    });
                };
                if Path::new(p) == rel {
                    return parse::parse_arch(&m.display().to_string(), i + 1, a).map(Some);
                }
            }
        }
        dir = d.parent();
    }
    Ok(None)
}

/// Every `*.txt` table under `dir` (recursively, sorted by path), or `dir` itself if it is a
/// file.
pub fn table_paths(dir: &Path) -> Result<Vec<PathBuf>, SpecError> {
    if dir.is_file() {
        return Ok(vec![dir.to_path_buf()]);
    }
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let rd = std::fs::read_dir(&d).map_err(|source| SpecError::Io {
            path: d.clone(),
            source,
        })?;
        for e in rd {
            let p = e
                .map_err(|source| SpecError::Io {
                    path: d.clone(),
                    source,
                })?
                .path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "txt") {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Loads every table under each of `paths` (folders or files). `arch` as in [`load_table`].
pub fn load_tables(paths: &[PathBuf], arch: Option<Arch>) -> Result<Vec<Table>, SpecError> {
    let mut out = Vec::new();
    for p in paths {
        for f in table_paths(p)? {
            out.push(load_table(&f, arch)?);
        }
    }
    Ok(out)
}

/// The five seed tables and the arch manifest, compiled into the binary (for fuzz targets and
/// benchmarks that must not depend on the working directory): (path under specs/, text).
pub const BUNDLED: [(&str, &str); 5] = [
    ("sm100/TEX.txt", include_str!("../../specs/sm100/TEX.txt")),
    ("sm100/TLD.txt", include_str!("../../specs/sm100/TLD.txt")),
    ("sm80/LD.txt", include_str!("../../specs/sm80/LD.txt")),
    ("sm90/TMML.txt", include_str!("../../specs/sm90/TMML.txt")),
    (
        "unknown-arch/TLD4.txt",
        include_str!("../../specs/unknown-arch/TLD4.txt"),
    ),
];

/// Parses [`BUNDLED`]; tables without an arch line get theirs from the bundled
/// `specs/ARCH_MANIFEST.tsv`.
pub fn bundled_tables() -> Result<Vec<Table>, SpecError> {
    const MANIFEST: &str = include_str!("../../specs/ARCH_MANIFEST.tsv");
    BUNDLED
        .iter()
        .map(|(path, text)| {
            let mut t = parse_table(&format!("specs/{path}"), text)?;
            if t.arch.is_none() {
                let row = MANIFEST
                    .lines()
                    .enumerate()
                    .find(|(_, l)| l.split('\t').next() == Some(path));
                if let Some((i, l)) = row {
                    let a = l.split('\t').nth(1).unwrap_or("");
                    t.arch = Some(parse::parse_arch("specs/ARCH_MANIFEST.tsv", i + 1, a)?);
                    t.arch_source = "manifest".into();
                }
            }
            Ok(t)
        })
        .collect()
}
