//! Fast start-up for the commands that read words (`decode`, `check`): the bundled resolved
//! view (resolved/tables.json) is split per table when the crate is built (build.rs), and
//! such a command parses only the tables of the arch it decodes, with their learned reading;
//! the layouts and the other archs' tables are never read. Parsing the whole file took most
//! of a short run's time (issue 23). What the command prints is the same: every word is
//! decoded by the tables of its arch only.

use crate::arch::Arch;
use crate::reading::model::{Model, TableModel};
use crate::reading::resolved::{ResolvedError, ResolvedSet};
use crate::spec::Table;
use std::path::Path;

/// One table of the bundled resolved view, as build.rs splits it.
#[derive(Debug)]
pub struct Part {
    /// The table's path (`specs/sm100/TLD.txt`).
    pub path: &'static str,
    /// Its arch (`SM100`), if it has one.
    pub arch: Option<&'static str>,
    /// Its variants' keys, in order.
    pub keys: &'static [&'static str],
    /// The resolved table, compact JSON.
    pub table: &'static str,
    /// Its learned reading, compact JSON (`None` in files written before it).
    pub model: Option<&'static str>,
}

include!(concat!(env!("OUT_DIR"), "/resolved_parts.rs"));

/// The resolved view of one arch's tables.
#[derive(Debug)]
pub struct ArchView {
    /// The arch's resolved tables (empty when none has the arch), in file order.
    pub tables: Vec<Table>,
    /// Their learned reading, parallel to `tables` (`None` when the file has none).
    pub model: Option<Model>,
    /// Every arch the file has tables for, ascending (as [`crate::codec::Codec::archs`]).
    pub archs: Vec<Arch>,
}

/// Whether `data` is the bundled resolved view and it was split when the crate was built.
pub fn is_bundled(data: &[u8]) -> bool {
    !PARTS.is_empty() && data == crate::locate::BUNDLED_RESOLVED
}

/// The bundled resolved view restricted to `arch`, checked as [`ResolvedSet::read`] checks
/// the whole (the same variants as `tables`, matched by the last two components of their
/// paths); `name` names the file in errors. `None` when the view was not split (build.rs).
pub fn bundled_arch_view(
    arch: Arch,
    tables: &[Table],
    name: &Path,
) -> Result<Option<ArchView>, ResolvedError> {
    if PARTS.is_empty() {
        return Ok(None);
    }
    check_bundled_keys(tables, name)?;
    parse_bundled_arch(arch, name)
}

/// Whether the bundled view names the variants of `tables` (matched by the last two
/// components of their paths, in order), as [`bundled_arch_view`] checks them; an error
/// naming `name` when not. Apart from [`parse_bundled_arch`] so that a caller can parse the
/// tables and the view at the same time.
pub fn check_bundled_keys(tables: &[Table], name: &Path) -> Result<(), ResolvedError> {
    let tail = |p: &str| -> String {
        let parts: Vec<&str> = p.rsplit(['/', '\\']).take(2).collect();
        parts.into_iter().rev().collect::<Vec<_>>().join("/")
    };
    let ours = PARTS
        .iter()
        .flat_map(|p| p.keys.iter().map(move |k| (tail(p.path), *k)));
    let theirs = tables.iter().flat_map(|t| {
        t.variants
            .iter()
            .map(move |v| (tail(&t.path), v.key.as_str()))
    });
    if !ours.eq(theirs) {
        return Err(ResolvedError::Stale {
            path: name.to_path_buf(),
            message: "its variants differ from the tables loaded".into(),
        });
    }
    Ok(())
}

/// The bundled resolved view restricted to `arch`, unchecked (see [`check_bundled_keys`]):
/// the arch's tables and their learned reading parsed from their compact JSON, every part on
/// its own core (rayon). `None` when the view was not split (build.rs).
pub fn parse_bundled_arch(arch: Arch, name: &Path) -> Result<Option<ArchView>, ResolvedError> {
    use rayon::prelude::*;
    if PARTS.is_empty() {
        return Ok(None);
    }
    let json = |e: serde_json::Error| ResolvedError::Json {
        path: name.to_path_buf(),
        line: e.line(),
        message: e.to_string(),
    };
    let arch_of = |p: &Part| p.arch.and_then(|a| a.parse::<Arch>().ok());
    let mut archs: Vec<Arch> = PARTS.iter().filter_map(arch_of).collect();
    archs.sort();
    archs.dedup();
    let ours: Vec<&Part> = PARTS.iter().filter(|p| arch_of(p) == Some(arch)).collect();
    // Tables and models parsed side by side; errors reported in file order, as one by one.
    let (skeleton, parts) = rayon::join(
        || serde_json::from_str::<ResolvedSet>(SKELETON),
        || {
            ours.par_iter()
                .map(|p| {
                    let (table, model) = rayon::join(
                        || serde_json::from_str::<Table>(p.table),
                        || p.model.map(serde_json::from_str::<TableModel>).transpose(),
                    );
                    (table, model)
                })
                .collect::<Vec<_>>()
        },
    );
    let mut set = skeleton.map_err(json)?;
    let mut models: Vec<TableModel> = Vec::new();
    for (table, model) in parts {
        set.tables.push(table.map_err(json)?);
        if let Some(m) = model.map_err(json)? {
            models.push(m);
        }
    }
    let model = match models.len() {
        0 => None,
        n if n == set.tables.len() => {
            set.model.tables = models;
            Some(set.model)
        }
        // Not parallel: build.rs splits only files whose reading is.
        _ => None,
    };
    Ok(Some(ArchView {
        tables: set.tables,
        model,
        archs,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_view_is_split_and_each_arch_reads_as_the_whole() {
        // Fails when build.rs did not split the file (its warning says why): a field it does
        // not know in resolved/tables.json; teach build.rs and this module about it.
        assert!(is_bundled(crate::locate::BUNDLED_RESOLVED));
        let tables = crate::spec::bundled_tables().unwrap();
        let name = Path::new("resolved/tables.json");
        let whole =
            ResolvedSet::from_slice(crate::locate::BUNDLED_RESOLVED, name, &tables).unwrap();
        let archs: Vec<Arch> = {
            let mut a: Vec<Arch> = whole.tables.iter().filter_map(|t| t.arch).collect();
            a.sort();
            a.dedup();
            a
        };
        for &arch in &archs {
            let view = bundled_arch_view(arch, &tables, name).unwrap().unwrap();
            assert_eq!(view.archs, archs);
            let (mut t, mut m) = (Vec::new(), Vec::new());
            for (i, wt) in whole.tables.iter().enumerate() {
                if wt.arch == Some(arch) {
                    t.push(serde_json::to_string(wt).unwrap());
                    m.push(whole.model.tables[i].clone());
                }
            }
            let got: Vec<String> = view
                .tables
                .iter()
                .map(|x| serde_json::to_string(x).unwrap())
                .collect();
            assert_eq!(got, t, "{arch}");
            let model = view.model.unwrap();
            assert_eq!(model.tables, m);
            assert_eq!(model.learned_from, whole.model.learned_from);
        }
        // A table missing from the tables loaded: the file is stale.
        let err = bundled_arch_view(archs[0], &tables[1..], name).unwrap_err();
        assert!(
            err.to_string().contains("differ from the tables loaded"),
            "{err}"
        );
    }
}
