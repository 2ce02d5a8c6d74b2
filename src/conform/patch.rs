//! `resolve --patch`: a unified diff (`patch -p1` from the folder holding the tables' paths)
//! of the table files, from each table as written to the same table corrected by its resolved
//! layouts ([`crate::spec::emit::emit_table`], what `--emit-tables` writes: labels, cells,
//! value names, distilled lines). Each hunk header carries the ids of the root causes it
//! corrects (`@@ -12,3 +12,3 @@ rc-1a2b3c4d rc-...`, text `patch` ignores).

use super::distilled::lines_differ;
use super::finding::Finding;
use super::rootcause::id_of;
use crate::oracle::Answer;
use crate::reading::flips::Answers;
use crate::spec::{SpecError, Table, Variant};
use similar::TextDiff;
use std::collections::BTreeSet;

/// The resolved layouts as the table files should hold them, with each variant's distilled
/// line as nvdisasm prints the corrected layout's fixed word ([`corrected_fixed_word`]: the
/// table's fixed word with the bits the correction makes field bits cleared) where the
/// distilled check ([`super::distilled::lines_differ`]) finds the written line differs from
/// that recorded text in `answers`; else the line as written (also where that word is not
/// recorded or nvdisasm rejects it). So a line with an example value (SM80 LD's
/// `[R0+0x1], P6`) becomes nvdisasm's `[R0]`, and a line whose fixed bit the correction makes
/// a field bit (TLD's `ARRAY_1D` with bit 63 fixed to 1, nvdisasm's dimension bit 2) the
/// text of the word without it. `--emit-tables`, `--patch` and the report's hunks all use this.
pub fn corrections(tables: &[Table], resolved: &[Table], answers: &Answers) -> Vec<Table> {
    let mut out = resolved.to_vec();
    for (t, r) in tables.iter().zip(out.iter_mut()) {
        for (v, rv) in t.variants.iter().zip(r.variants.iter_mut()) {
            let text = t
                .arch
                .and_then(|arch| answers.get(arch, corrected_fixed_word(v, rv)));
            rv.distilled = match text {
                Some(Answer::Text(n))
                    if !n.is_empty() && v.key == rv.key && lines_differ(&v.distilled, n) =>
                {
                    n.clone()
                }
                _ => v.distilled.clone(),
            };
        }
    }
    out
}

/// The fixed word of variant `v` once corrected to `rv`: its fixed bits with those `rv` makes
/// field bits cleared (a bit nvdisasm ignores keeps its cell, see
/// [`crate::spec::emit::emit_table`]).
pub fn corrected_fixed_word(v: &Variant, rv: &Variant) -> u128 {
    v.fixed_value & !rv.field_mask()
}

/// One hunk of a table's patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    /// 1-based first and last line of the original file the hunk covers (context included).
    pub old_lines: (usize, usize),
    /// The hunk as `patch` reads it: the annotated `@@` header and its lines.
    pub text: String,
    /// Root-cause ids it corrects.
    pub causes: Vec<String>,
}

/// The patch of one table file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TablePatch {
    /// The table's path (`specs/sm100/TLD.txt`), written `a/<path>` and `b/<path>`.
    pub path: String,
    /// Hunks in file order (empty when the table needs no change the format can hold).
    pub hunks: Vec<Hunk>,
}

impl TablePatch {
    /// The unified diff of the file: `---`/`+++` header then every hunk (empty when no hunk).
    pub fn text(&self) -> String {
        if self.hunks.is_empty() {
            return String::new();
        }
        let mut s = format!("--- a/{p}\n+++ b/{p}\n", p = self.path);
        for h in &self.hunks {
            s.push_str(&h.text);
        }
        s
    }
}

/// The root causes a hunk over original lines `lo..=hi` corrects: the causes of the findings
/// of `table` that point at a line inside it; failing that, those of the variants whose
/// text it touches.
fn causes_for(table: &Table, findings: &[Finding], lo: usize, hi: usize) -> Vec<String> {
    let mine: Vec<&Finding> = findings.iter().filter(|f| f.file == table.path).collect();
    let mut ids: BTreeSet<String> = mine
        .iter()
        .filter(|f| (lo..=hi).contains(&f.line))
        .map(|f| id_of(f))
        .collect();
    if ids.is_empty() {
        let spans = table.variants.iter().enumerate().map(|(i, v)| {
            let end = table
                .variants
                .get(i + 1)
                .map_or(usize::MAX, |n| n.line.saturating_sub(1));
            (v.key.as_str(), v.line, end)
        });
        let keys: BTreeSet<&str> = spans
            .filter(|(_, a, b)| *a <= hi && lo <= *b)
            .map(|(k, ..)| k)
            .collect();
        ids = mine
            .iter()
            .filter(|f| keys.contains(f.key.as_str()))
            .map(|f| id_of(f))
            .collect();
    }
    ids.into_iter().collect()
}

/// The patch from `original_text` (the file of `original`) to the same table corrected by
/// `resolved` (its resolved layouts), annotated with the root causes of `findings`.
pub fn table_patch(
    original_text: &str,
    original: &Table,
    resolved: &Table,
    findings: &[Finding],
) -> Result<TablePatch, SpecError> {
    let corrected = crate::spec::emit::emit_table(original_text, original, resolved)?;
    Ok(diff_patch(original_text, &corrected, original, findings))
}

/// The patch from `original_text` to `corrected`, hunks annotated with the root causes of
/// `findings` (pass only the ones the correction removes).
fn diff_patch(
    original_text: &str,
    corrected: &str,
    original: &Table,
    findings: &[Finding],
) -> TablePatch {
    let diff = TextDiff::from_lines(original_text, corrected);
    let mut hunks = Vec::new();
    let mut udiff = diff.unified_diff();
    udiff.context_radius(1);
    for h in udiff.iter_hunks() {
        let ops = h.ops();
        let (Some(first), Some(last)) = (ops.first(), ops.last()) else {
            continue;
        };
        let (lo, hi) = (
            first.old_range().start + 1,
            last.old_range().end.max(first.old_range().start + 1),
        );
        let causes = causes_for(original, findings, lo, hi);
        let body = h.to_string();
        let (header, rest) = body.split_once('\n').unwrap_or((body.as_str(), ""));
        let text = if causes.is_empty() {
            format!("{header}\n{rest}")
        } else {
            format!("{header} {}\n{rest}", causes.join(" "))
        };
        hunks.push(Hunk {
            old_lines: (lo, hi),
            text,
            causes,
        });
    }
    TablePatch {
        path: original.path.clone(),
        hunks,
    }
}

/// Every table's patch (files read from the tables' paths, or the bundled texts), each hunk annotated with the
/// root causes it corrects: those of the findings at its lines (or of the variants it
/// touches) that are gone when lint and resolve read the corrected tables (parsed back, with
/// the originals' archs) on `answers`.
pub fn patches(
    tables: &[Table],
    corrected: &[Table],
    findings: &[Finding],
    answers: &Answers,
) -> Result<Vec<TablePatch>, SpecError> {
    let mut texts = Vec::new();
    let mut parsed = Vec::new();
    for (t, c) in tables.iter().zip(corrected) {
        let text = crate::spec::table_text(&t.path)?;
        let out = crate::spec::emit::emit_table(&text, t, c)?;
        let mut back = crate::spec::parse_table(&t.path, &out)?;
        back.arch = t.arch;
        parsed.push(back);
        texts.push((text, out));
    }
    let after: BTreeSet<String> = match crate::codec::Codec::new(parsed) {
        Ok(codec) => {
            let readings = crate::reading::flips::read_bits(&codec, answers);
            super::lint(&codec)
                .iter()
                .chain(&super::resolve::bit_findings(&codec, &readings))
                .map(id_of)
                .collect()
        }
        Err(_) => BTreeSet::new(),
    };
    let gone: Vec<Finding> = findings
        .iter()
        .filter(|f| !after.contains(&id_of(f)))
        .cloned()
        .collect();
    Ok(tables
        .iter()
        .zip(&texts)
        .map(|(t, (text, out))| diff_patch(text, out, t, &gone))
        .collect())
}
