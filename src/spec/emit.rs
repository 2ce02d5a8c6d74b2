//! Corrected tables: a table file rewritten, in its own dialect, with a resolved reading of it
//! (the same variants as nvdisasm reads them), so that `diff -u` against the original shows
//! exactly what nvdisasm proved wrong.
//!
//! [`emit_table`] works line by line on the original text, using the model's line numbers.
//! Every line that needs no change is kept byte for byte. It changes:
//! - a layout half (header row + cell row) whose bits the resolved reading gives other roles:
//!   the cell row is written again (`0`/`1` for fixed bits, the label on the first bit of each
//!   field range, empty cells for the rest); the header row is kept unless it skips a column,
//!   in which case it is written in full (`0..7` eight times);
//! - the `distilled:` line, where the resolved table's differs (whitespace aside): nvdisasm's
//!   text for the corrected fixed word, see `conform::patch::corrections`;
//! - a modifier-table row whose name nvdisasm prints otherwise (the resolved modifier field's
//!   `names`), where the row is unambiguous.
//!
//! A bit nvdisasm ignores has no "don't care" cell in the format: it keeps its original cell
//! where that was `0`/`1`, stays without a cell in a half that is not rewritten, and is written
//! as the fixed word's value (`0`) where it was part of a field or had no cell in a rewritten
//! half. What the format cannot hold at all (operand value names, rejected values) is listed
//! by [`unwritten`].

use super::model::*;
use super::{SpecError, parse_table};
use std::collections::BTreeMap;
use std::path::Path;

/// What one bit is in a layout, as far as the cell rows can say.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Role {
    /// No cell describes it.
    None,
    /// A fixed bit.
    Fixed(bool),
    /// A bit of the field with this (emitted) label.
    Field(String),
}

/// Per-bit roles of a variant; `label` maps a field to the label to write.
fn roles(v: &Variant, label: impl Fn(&Field) -> String) -> Vec<Role> {
    let mut out: Vec<Role> = (0..128u32)
        .map(|b| match v.fixed_mask >> b & 1 {
            1 => Role::Fixed(v.fixed_value >> b & 1 == 1),
            _ => Role::None,
        })
        .collect();
    for f in &v.fields {
        let l = label(f);
        for r in &f.ranges {
            for b in r.lo..=r.hi() {
                out[b as usize] = Role::Field(l.clone());
            }
        }
    }
    out
}

/// The cell of each bit of one half: `0`/`1`, a label where a field range starts (or the half
/// starts), `""` where it continues. `None` roles become `fill(bit)`.
fn cells(
    roles: &[Role],
    starts: &[bool],
    half: usize,
    fill: impl Fn(usize) -> bool,
) -> Vec<String> {
    (64 * half..64 * half + 64)
        .map(|b| match &roles[b] {
            Role::None => bit_cell(fill(b)),
            Role::Fixed(x) => bit_cell(*x),
            Role::Field(l) if starts[b] || b == 64 * half => l.clone(),
            Role::Field(_) => String::new(),
        })
        .collect()
}

fn bit_cell(x: bool) -> String {
    if x { "1" } else { "0" }.to_string()
}

/// Which bits start a field range (a field's bits that do not continue the bit below).
fn range_starts(v: &Variant) -> Vec<bool> {
    let mut s = vec![false; 128];
    for f in &v.fields {
        for r in &f.ranges {
            s[r.lo as usize] = true;
        }
    }
    s
}

/// Bit numbers (0..64 inside the half) of a header row, aligned by label as the parser does:
/// a new byte starts whenever the label does not increase.
fn header_bits(text: &str) -> Vec<u8> {
    let mut bits = Vec::new();
    let mut byte = 0u8;
    let mut prev: Option<u8> = None;
    for cell in text.split('\t') {
        let label: u8 = cell.trim().parse().unwrap_or(0);
        if prev.is_some_and(|p| label <= p) {
            byte = byte.saturating_add(1);
        }
        prev = Some(label);
        bits.push(8u8.saturating_mul(byte).saturating_add(label));
    }
    bits
}

/// A full 64-column header row: `0..7` eight times.
fn full_header() -> String {
    (0..64)
        .map(|b| (b % 8).to_string())
        .collect::<Vec<_>>()
        .join("\t")
}

/// One line of the original text: its content and its terminator (`\n`, `\r\n` or none).
struct TextLine<'a> {
    body: &'a str,
    end: &'a str,
}

fn split_lines(text: &str) -> Vec<TextLine<'_>> {
    text.split_inclusive('\n')
        .map(|l| {
            let body = l.trim_end_matches(['\n', '\r']);
            TextLine {
                body,
                end: &l[body.len()..],
            }
        })
        .collect()
}

/// Whitespace-normalised text.
fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The label the table uses for the guard predicate (`pred` or `predicate`), if any variant
/// has one.
fn guard_label(t: &Table) -> Option<String> {
    t.variants
        .iter()
        .flat_map(|v| &v.fields)
        .find(|f| f.kind == FieldKind::Guard)
        .map(|f| f.label.clone())
}

/// The label to write for a resolved field: the table's own vocabulary.
fn emitted_label(f: &Field, guard: Option<&str>) -> String {
    match (&f.kind, guard) {
        (FieldKind::Guard, Some(g)) => g.to_string(),
        _ => f.label.clone(),
    }
}

/// The text a modifier row prints, as the resolved `names` write it (`""` = nothing).
fn printed(name: &ModifierName) -> String {
    match name {
        ModifierName::Default => String::new(),
        ModifierName::Invalid(k) => format!("INVALID{k}"),
        ModifierName::Unknown(k) => format!("???{k}"),
        ModifierName::Named(s) => s.clone(),
    }
}

/// The modifier table a resolved modifier field is looked up in.
fn field_group<'a>(v: &'a Variant, f: &Field) -> Option<&'a ModifierGroup> {
    v.field_group(f)
}

/// Whether `name` can be written as a row name in `dialect` and read back unchanged.
fn writable_name(name: &str, dialect: Dialect) -> bool {
    !name.contains(char::is_whitespace)
        && name != "(default)"
        && !(dialect == Dialect::B && name.ends_with('.'))
}

/// Row renames a resolved variant proves: (1-based line, new name) for every modifier row
/// whose name nvdisasm prints otherwise, where exactly one field uses the table, the row's
/// value appears once, and the name can be written.
fn row_renames(v: &Variant, dialect: Dialect) -> BTreeMap<usize, String> {
    let mut out = BTreeMap::new();
    for f in v.fields.iter().filter(|f| !f.names.is_empty()) {
        let Some(g) = field_group(v, f) else { continue };
        let users = v
            .fields
            .iter()
            .filter(|o| field_group(v, o).is_some_and(|og| std::ptr::eq(og, g)))
            .count();
        if users != 1 {
            continue;
        }
        for (&val, name) in &f.names {
            let Ok(val) = u32::try_from(val) else {
                continue;
            };
            let rows: Vec<&ModifierValue> = g.values.iter().filter(|r| r.value == val).collect();
            let [row] = rows.as_slice() else { continue };
            if printed(&row.name) != *name && writable_name(name, dialect) {
                out.insert(row.line, name.clone());
            }
        }
    }
    out
}

/// A modifier row written again with a new name, keeping its binary column and separator.
fn renamed_row(body: &str, name: &str, dialect: Dialect) -> String {
    let indent = &body[..body.len() - body.trim_start().len()];
    let rest = body.trim_start();
    let bin_len = rest
        .find(|c: char| c != '0' && c != '1')
        .unwrap_or(rest.len());
    let (bin, after) = rest.split_at(bin_len);
    let sep_len = after.len() - after.trim_start().len();
    let sep = match (&after[..sep_len], dialect) {
        ("", Dialect::A | Dialect::Html) => "\t",
        ("", Dialect::B) => " ",
        (s, _) => s,
    };
    match (dialect, name.is_empty()) {
        (Dialect::A | Dialect::Html, true) => format!("{indent}{bin}{sep}(default)"),
        (Dialect::A | Dialect::Html, false) => format!("{indent}{bin}{sep}{name}"),
        (Dialect::B, true) => format!("{indent}{bin}"),
        (Dialect::B, false) => format!("{indent}{bin}{sep}{name}."),
    }
}

fn syntax(t: &Table, line: usize, message: String) -> SpecError {
    SpecError::Syntax {
        file: t.path.clone(),
        line,
        message,
    }
}

/// Rewrites `original_text` (the file `original` was parsed from) so that it says what
/// `resolved` (the same table as nvdisasm reads it) says, changing only the lines that must
/// change (see the module documentation).
///
/// The result is parsed again and checked: every variant must have the resolved fields (kind
/// and bit ranges), the resolved fixed bits and the resolved distilled line. Errors
/// ([`SpecError::Syntax`] at the variant's first line) where the resolved table does not
/// match the original (other variants or keys) or where its layout cannot be written in the
/// text format (a field whose value bits do not ascend with the word's bits, say).
pub fn emit_table(
    original_text: &str,
    original: &Table,
    resolved: &Table,
) -> Result<String, SpecError> {
    if original.dialect == Dialect::Html {
        return Err(syntax(
            original,
            1,
            "an HTML page cannot be rewritten (only the text dialects can)".into(),
        ));
    }
    let keys = |t: &Table| t.variants.iter().map(|v| v.key.clone()).collect::<Vec<_>>();
    if keys(original) != keys(resolved) {
        return Err(syntax(
            original,
            1,
            "the resolved table's variants differ from the file's".into(),
        ));
    }
    let lines = split_lines(original_text);
    let mut new: BTreeMap<usize, String> = BTreeMap::new();
    let body = |no: usize| lines.get(no.wrapping_sub(1)).map_or("", |l| l.body);
    let guard = guard_label(original);
    for (vo, vr) in original.variants.iter().zip(&resolved.variants) {
        // Layout.
        let old = roles(vo, |f| f.label.clone());
        let mut now = roles(vr, |f| emitted_label(f, guard.as_deref()));
        let base = vo.fixed_value;
        for (b, r) in now.iter_mut().enumerate() {
            // A bit nvdisasm ignores keeps its original cell; a former field bit becomes the
            // fixed word's value (it has no "don't care" cell).
            if *r == Role::None {
                *r = match &old[b] {
                    Role::Field(_) => Role::Fixed(base >> b & 1 == 1),
                    other => other.clone(),
                };
            }
        }
        let (s_old, s_now) = (range_starts(vo), range_starts(vr));
        for half in 0..2 {
            let (h_no, c_no) = (vo.layout_lines[2 * half], vo.layout_lines[2 * half + 1]);
            let unchanged = (64 * half..64 * half + 64).all(|b| {
                old[b] == now[b] && (!matches!(old[b], Role::Field(_)) || s_old[b] == s_now[b])
            });
            if unchanged {
                continue;
            }
            let row = cells(&now, &s_now, half, |b| base >> b & 1 == 1).join("\t");
            let hbits = header_bits(body(h_no));
            if !hbits.iter().copied().eq(0..64u8) {
                new.insert(h_no, full_header());
            }
            new.insert(c_no, row);
        }
        // Distilled line.
        if norm(&vo.distilled) != norm(&vr.distilled)
            && let Some(no) = (vo.line..vo.layout_lines[0])
                .find(|&no| body(no).trim_start().starts_with("distilled:"))
        {
            new.insert(no, format!("distilled: {}", vr.distilled));
        }
        // Modifier rows.
        for (no, name) in row_renames(vr, original.dialect) {
            new.insert(no, renamed_row(body(no), &name, original.dialect));
        }
    }
    let mut out = String::with_capacity(original_text.len() + 256);
    for (i, l) in lines.iter().enumerate() {
        match new.get(&(i + 1)) {
            Some(b) => out.push_str(b),
            None => out.push_str(l.body),
        }
        out.push_str(l.end);
    }
    check(&out, original, resolved, guard.as_deref())?;
    Ok(out)
}

/// Parses the emitted text and checks it says what `resolved` says.
fn check(
    text: &str,
    original: &Table,
    resolved: &Table,
    guard: Option<&str>,
) -> Result<(), SpecError> {
    let back = parse_table(&original.path, text)?;
    for ((vo, vr), ve) in original
        .variants
        .iter()
        .zip(&resolved.variants)
        .zip(&back.variants)
    {
        let want: Vec<(String, &FieldKind, &[BitRange])> = vr
            .fields
            .iter()
            .map(|f| (emitted_label(f, guard), &f.kind, f.ranges.as_slice()))
            .collect();
        let got: Vec<(String, &FieldKind, &[BitRange])> = ve
            .fields
            .iter()
            .map(|f| (f.label.clone(), &f.kind, f.ranges.as_slice()))
            .collect();
        let err = |what: String| {
            syntax(
                original,
                vo.line,
                format!(
                    "{}: the resolved reading cannot be written in the table format: {what}",
                    vo.key
                ),
            )
        };
        if want != got {
            let diff: Vec<String> = want
                .iter()
                .filter(|w| !got.contains(w))
                .map(|(l, _, r)| format!("`{l}` at {r:?}"))
                .collect();
            return Err(err(format!(
                "fields read back differ ({})",
                diff.join(", ")
            )));
        }
        let described = !vr.undescribed;
        if ve.fixed_mask & described != vr.fixed_mask
            || ve.fixed_value & vr.fixed_mask != vr.fixed_value
        {
            return Err(err("fixed bits read back differ".into()));
        }
        if norm(&ve.distilled) != norm(&vr.distilled) {
            return Err(err("distilled line reads back differently".into()));
        }
    }
    Ok(())
}

/// What `resolved` says that the text format cannot hold, one line per item: printed names of
/// operand and flag values, modifier names with no (unambiguous) row, and values nvdisasm
/// rejects. (The modifier print order is not listed: only the distilled line shows it.)
pub fn unwritten(original: &Table, resolved: &Table) -> Vec<String> {
    let mut out = Vec::new();
    for vr in &resolved.variants {
        let renames = row_renames(vr, original.dialect);
        for f in &vr.fields {
            for (val, name) in &f.names {
                let row = field_group(vr, f).and_then(|g| {
                    u32::try_from(*val)
                        .ok()
                        .and_then(|v| g.lookup(v))
                        .map(|r| r.line)
                });
                let written = row.is_some_and(|l| renames.contains_key(&l))
                    || field_group(vr, f).is_some_and(|g| {
                        u32::try_from(*val)
                            .ok()
                            .and_then(|v| g.lookup(v))
                            .is_some_and(|r| printed(&r.name) == *name)
                    });
                if !written {
                    out.push(format!(
                        "{}: `{}` value {val} prints as `{name}`",
                        vr.key, f.label
                    ));
                }
            }
            if !f.rejected.is_empty() {
                let vals: std::collections::BTreeSet<u64> = f.rejected.iter().copied().collect();
                out.push(format!(
                    "{}: `{}` values {:?} are rejected by nvdisasm",
                    vr.key, f.label, vals
                ));
            }
        }
    }
    out
}

/// Writes `text` to `dir/rel` through a temp file and a rename, creating folders as needed.
pub fn write_emitted(dir: &Path, rel: &Path, text: &str) -> Result<(), SpecError> {
    let path = dir.join(rel);
    let io = |source| SpecError::Io {
        path: path.clone(),
        source,
    };
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).map_err(io)?;
    }
    let tmp = path.with_extension("txt.tmp");
    std::fs::write(&tmp, text).map_err(io)?;
    std::fs::rename(&tmp, &path).map_err(io)
}
