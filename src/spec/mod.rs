//! Spec layer: the table model, the parser for both dialects, and loading of the specs/ folder.

pub mod emit;
pub mod html;
pub mod model;
pub mod parse;
pub mod printer;

pub use html::parse_html;
pub use model::*;
pub use parse::parse_table;

use crate::arch::Arch;
use std::path::{Path, PathBuf};

/// Errors of the spec layer. Every variant names the file (and line where there is one).
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// A line that fits neither dialect. The message is shown cut to [`MAX_SHOWN`] bytes
    /// (a 10 MB line quoted whole filled the terminal).
    #[error("{file}:{line}: {}", clip(.message))]
    Syntax {
        /// File as given.
        file: String,
        /// 1-based line.
        line: usize,
        /// What was expected and found.
        message: String,
    },
    /// A path that cannot be used as a table (a symbolic link out of the specs folder).
    #[error("{path}: {message}")]
    Path {
        /// The path as found.
        path: PathBuf,
        /// Why.
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

/// Most bytes of a [`SpecError::Syntax`] message shown; the rest is counted, not printed.
pub const MAX_SHOWN: usize = 400;

/// `message` cut at a character boundary near [`MAX_SHOWN`] bytes, with how much was left out.
fn clip(message: &str) -> std::borrow::Cow<'_, str> {
    if message.len() <= MAX_SHOWN {
        return message.into();
    }
    let mut end = MAX_SHOWN;
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{} ... ({} more bytes not shown)",
        &message[..end],
        message.len() - end
    )
    .into()
}

/// File name of the arch manifest in a specs folder: `path<TAB>arch<TAB>why` per line.
pub const ARCH_MANIFEST: &str = "ARCH_MANIFEST.tsv";

/// Whether `path` is an nv_isa_solver HTML page (`.html`/`.htm`), read by [`parse_html`].
pub fn is_html(path: &Path) -> bool {
    path.extension()
        .is_some_and(|x| x.eq_ignore_ascii_case("html") || x.eq_ignore_ascii_case("htm"))
}

/// Reads and parses one table file: a text table ([`parse_table`], dialect A or B) or, for
/// `.html`/`.htm`, an nv_isa_solver page ([`parse_html`]). `arch` (from `--arch`) overrides a
/// missing header arch and wins over the manifest; a header arch always stands. HTML pages
/// and dialect B name no arch: theirs comes from `arch` or the `ARCH_MANIFEST.tsv` of the
/// file's folder or the folder above (`path<TAB>arch<TAB>why[<TAB>variants]`, the path
/// relative to the manifest's folder, e.g. `LDS.html<TAB>SM100<TAB>nv_isa_solver output`).
///
/// Errors ([`SpecError::Syntax`] with file and line): bytes that are not UTF-8; anything
/// [`parse_table`] or [`parse_html`] refuses; a variant count other than the one the arch
/// manifest gives for the file (its optional fourth column; dialect B declares none in the
/// file itself).
pub fn load_table(path: &Path, arch: Option<Arch>) -> Result<Table, SpecError> {
    let bytes = std::fs::read(path).map_err(|source| SpecError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let text = utf8(&path.display().to_string(), bytes)?;
    let mut t = if is_html(path) {
        parse_html(&path.display().to_string(), &text)?
    } else {
        parse_table(&path.display().to_string(), &text)?
    };
    let row = manifest_row(path)?;
    if t.arch.is_none() {
        if let Some(a) = arch {
            t.arch = Some(a);
            t.arch_source = "option".into();
        } else if let Some(r) = &row {
            t.arch = Some(r.arch);
            t.arch_source = "manifest".into();
        }
    }
    if let Some(r) = &row
        && let Some(n) = r.variants
        && n != t.variants.len()
    {
        return Err(SpecError::Syntax {
            file: t.path.clone(),
            line: 1,
            message: format!(
                "{}:{} expects {n} variants, the file has {} (cut short or extended?)",
                r.file,
                r.line,
                t.variants.len()
            ),
        });
    }
    Ok(t)
}

/// `bytes` as text, or [`SpecError::Syntax`] naming the line and column of the first byte
/// that is not UTF-8.
fn utf8(file: &str, bytes: Vec<u8>) -> Result<String, SpecError> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let line_start = bytes[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        SpecError::Syntax {
            file: file.to_string(),
            line: bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1,
            message: format!(
                "not UTF-8: byte 0x{:02x} at byte {} of the line",
                bytes[at],
                at - line_start + 1
            ),
        }
    })
}

/// A table's row of an arch manifest.
struct ManifestRow {
    arch: Arch,
    /// The optional fourth column: how many variants the table has.
    variants: Option<usize>,
    /// The manifest file and the row's 1-based line.
    file: String,
    line: usize,
}

/// Looks `path` up in the `ARCH_MANIFEST.tsv` of its folder or the folder above:
/// `path<TAB>arch<TAB>why[<TAB>variants]`.
fn manifest_row(path: &Path) -> Result<Option<ManifestRow>, SpecError> {
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
                    let file = m.display().to_string();
                    let arch = parse::parse_arch(&file, i + 1, a)?;
                    let variants = match cols.nth(1).map(str::trim) {
                        None | Some("") => None,
                        Some(n) => Some(n.parse().map_err(|_| SpecError::Syntax {
                            file: file.clone(),
                            line: i + 1,
                            message: format!("`{n}` is not a variant count"),
                        })?),
                    };
                    return Ok(Some(ManifestRow {
                        arch,
                        variants,
                        file,
                        line: i + 1,
                    }));
                }
            }
        }
        dir = d.parent();
    }
    Ok(None)
}

/// Every `*.txt` table and `*.html`/`*.htm` page under `dir` (recursively, sorted by path),
/// or `dir` itself if it is a file. Symbolic links are followed only to places inside `dir`; a link pointing out of it is
/// an error. A file or folder reached twice (through links) is listed once, under its first
/// path in sorted order.
pub fn table_paths(dir: &Path) -> Result<Vec<PathBuf>, SpecError> {
    if dir.is_file() {
        return Ok(vec![dir.to_path_buf()]);
    }
    let root = dir.canonicalize().map_err(|source| SpecError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut seen_dirs = std::collections::HashSet::from([root.clone()]);
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
            let canonical = p.canonicalize().map_err(|_| SpecError::Path {
                path: p.clone(),
                message: "symbolic link to nothing".into(),
            })?;
            if !canonical.starts_with(&root) {
                return Err(SpecError::Path {
                    path: p.clone(),
                    message: format!(
                        "symbolic link out of {} (to {}): not followed",
                        dir.display(),
                        canonical.display()
                    ),
                });
            }
            if p.is_dir() {
                if seen_dirs.insert(canonical) {
                    stack.push(p);
                }
            } else if p.extension().is_some_and(|x| x == "txt") || is_html(&p) {
                out.push((p, canonical));
            }
        }
    }
    out.sort();
    let mut seen = std::collections::HashSet::new();
    Ok(out
        .into_iter()
        .filter(|(_, c)| seen.insert(c.clone()))
        .map(|(p, _)| p)
        .collect())
}

/// Loads every table under each of `paths` (folders or files). `arch` as in [`load_table`].
///
/// A table reached twice (the same path given twice, or through a link) is loaded once.
pub fn load_tables(paths: &[PathBuf], arch: Option<Arch>) -> Result<Vec<Table>, SpecError> {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for p in paths {
        for f in table_paths(p)? {
            let canonical = f.canonicalize().map_err(|source| SpecError::Io {
                path: f.clone(),
                source,
            })?;
            if seen.insert(canonical) {
                out.push(load_table(&f, arch)?);
            }
        }
    }
    Ok(out)
}

/// A table [`load_tables_lenient`] could not load, and why.
#[derive(Debug)]
pub struct Skipped {
    /// The table's path as found.
    pub path: PathBuf,
    /// Why it was skipped (names the file, line and, for HTML, the variant).
    pub error: SpecError,
}

/// Like [`load_tables`], but a table that does not load is skipped, not fatal: returns the
/// tables that loaded (in path order) and, for every other one, its path and error. A folder
/// that cannot be listed (a missing path, a link out of it) is one skipped entry for that
/// path. Callers report the skipped tables and exit non-zero when there are any; the others
/// still run. Never panics on any file content.
pub fn load_tables_lenient(paths: &[PathBuf], arch: Option<Arch>) -> (Vec<Table>, Vec<Skipped>) {
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for p in paths {
        let files = match table_paths(p) {
            Ok(f) => f,
            Err(error) => {
                skipped.push(Skipped {
                    path: p.clone(),
                    error,
                });
                continue;
            }
        };
        for f in files {
            let canonical = f.canonicalize().unwrap_or_else(|_| f.clone());
            if !seen.insert(canonical) {
                continue;
            }
            match load_table(&f, arch) {
                Ok(t) => out.push(t),
                Err(error) => skipped.push(Skipped { path: f, error }),
            }
        }
    }
    (out, skipped)
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

/// The bundled `specs/ARCH_MANIFEST.tsv` (arch of the tables without an arch line).
pub const BUNDLED_ARCH_MANIFEST: &str = include_str!("../../specs/ARCH_MANIFEST.tsv");

/// The text of the table at `path` (as a [`Table::path`] gives it): the file, or, when there
/// is no such file and `path` is a bundled table's (`specs/sm80/LD.txt`, as
/// [`bundled_tables`] names them, e.g. run away from the repository), the bundled text.
/// Errors: [`SpecError::Io`] naming the path.
pub fn table_text(path: &str) -> Result<String, SpecError> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(t),
        Err(source) => BUNDLED
            .iter()
            .find(|(p, _)| path.strip_prefix("specs/") == Some(p))
            .filter(|_| source.kind() == std::io::ErrorKind::NotFound)
            .map(|(_, t)| t.to_string())
            .ok_or_else(|| SpecError::Io {
                path: path.into(),
                source,
            }),
    }
}

/// Parses [`BUNDLED`]; tables without an arch line get theirs from the bundled
/// `specs/ARCH_MANIFEST.tsv`.
pub fn bundled_tables() -> Result<Vec<Table>, SpecError> {
    const MANIFEST: &str = BUNDLED_ARCH_MANIFEST;
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
