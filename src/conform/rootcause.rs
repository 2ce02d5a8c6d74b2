//! Root causes: findings that share one cause across variants (the same off-by-one label in
//! all six TLD variants, the same ignored bits), grouped under one id with the variant list,
//! as mishegos groups decoder disagreements. A cause is (table file, kind, bits, message):
//! the message names the table's label and what nvdisasm reads instead, never the variant.

use super::finding::{Finding, compact_bits};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;

/// One root cause and the variants it shows in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RootCause {
    /// `rc-` and 8 hex digits of a hash of (file, kind, bits, message): stable while the
    /// cause stays.
    pub id: String,
    /// Finding kind.
    pub kind: String,
    /// Table file.
    pub file: String,
    /// Bits concerned (0..=127).
    pub bits: Vec<u8>,
    /// The findings' shared message.
    pub message: String,
    /// Variant keys, in table order.
    pub variants: Vec<String>,
    /// 1-based lines of the instances, parallel to `variants`.
    pub lines: Vec<usize>,
    /// Evidence words of the first instance: `word (arch): nvdisasm's answer`, the fixed word
    /// first, at most 4.
    pub evidence: Vec<String>,
    /// nvdisasm's reading of the first instance.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reading: String,
    /// The patch hunk(s) that correct it (`resolve --patch`), when the text format can hold
    /// the correction.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub patch: String,
}

/// The id of a finding's root cause: a hash of the table file (from its last folder named
/// `specs`, see [`id_path`]), the kind, the bits and the message.
pub fn id_of(f: &Finding) -> String {
    // FNV-1a, 64 bits: stable across runs and platforms.
    let mut h: u64 = 0xcbf29ce484222325;
    let key = format!("{}|{}|{:?}|{}", id_path(&f.file), f.kind, f.bits, f.message);
    for b in key.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    format!("rc-{:08x}", (h >> 32) as u32 ^ h as u32)
}

/// The part of a table's path a root cause's id reads: from its last folder named `specs`
/// (`specs/sm100/TLD.txt`, as the bundled tables are named), so that a `learn` workspace's
/// causes keep their ids whether the path was given absolute or relative
/// (`/tmp/w/ULEA.txt.learn/specs/ULEA.txt` and `ULEA.txt.learn/specs/ULEA.txt`); the whole
/// path when no folder is named `specs`.
fn id_path(file: &str) -> &str {
    if file.starts_with("specs/") {
        return file;
    }
    match file.rfind("/specs/") {
        Some(i) => &file[i + 1..],
        None => file,
    }
}

/// Groups `findings` by root cause; the largest (most variants) first, then by file, kind and
/// first bit.
pub fn group(findings: &[Finding]) -> Vec<RootCause> {
    let mut by: BTreeMap<String, RootCause> = BTreeMap::new();
    for f in findings {
        let id = id_of(f);
        let rc = by.entry(id.clone()).or_insert_with(|| RootCause {
            id,
            kind: f.kind.clone(),
            file: f.file.clone(),
            bits: f.bits.clone(),
            message: f.message.clone(),
            variants: vec![],
            lines: vec![],
            evidence: f
                .evidence
                .iter()
                .take(4)
                .map(|e| format!("{} ({}): {}", e.word, e.arch, e.nvdisasm))
                .collect(),
            reading: f.reading.clone().unwrap_or_default(),
            patch: String::new(),
        });
        rc.variants.push(f.key.clone());
        rc.lines.push(f.line);
    }
    let mut out: Vec<RootCause> = by.into_values().collect();
    out.sort_by(|a, b| {
        b.variants
            .len()
            .cmp(&a.variants.len())
            .then_with(|| a.file.cmp(&b.file))
            .then_with(|| a.kind.cmp(&b.kind))
            .then_with(|| a.bits.cmp(&b.bits))
            .then_with(|| a.id.cmp(&b.id))
    });
    out
}

/// The root-cause summary: how many, per table, per kind.
pub fn summary_lines(causes: &[RootCause], findings: usize) -> Vec<String> {
    let mut per_table: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut per_kind: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for c in causes {
        let t = per_table.entry(&c.file).or_default();
        t.0 += 1;
        t.1 += c.variants.len();
        let k = per_kind.entry(&c.kind).or_default();
        k.0 += 1;
        k.1 += c.variants.len();
    }
    let mut out = vec![format!(
        "{} behind {}, in {}",
        counted(causes.len(), "root cause"),
        counted(findings, "finding"),
        counted(per_table.len(), "table")
    )];
    for (t, (n, f)) in per_table {
        out.push(format!(
            "  {n:5} {} ({}) in {t}",
            noun(n, "root cause"),
            counted(f, "finding")
        ));
    }
    out.push("by kind:".into());
    for (k, (n, f)) in per_kind {
        out.push(format!(
            "  {n:5} {} ({}) {k}",
            noun(n, "root cause"),
            counted(f, "finding")
        ));
    }
    out
}

/// `n` and the noun, plural unless `n` is 1 (`1 root cause`, `3 findings`).
pub fn counted(n: usize, noun_one: &str) -> String {
    format!("{n} {}", noun(n, noun_one))
}

/// The noun, plural (an `s` added) unless `n` is 1.
fn noun(n: usize, one: &str) -> String {
    match n {
        1 => one.to_string(),
        _ => format!("{one}s"),
    }
}

/// One line per root cause: `rc-id [kind] file (bits ..): message — N variants: keys`.
pub fn cause_line(c: &RootCause) -> String {
    let bits = if c.bits.is_empty() {
        String::new()
    } else {
        format!(" (bits {})", compact_bits(&c.bits))
    };
    format!(
        "{} [{}] {}{bits}: {} — {} variant(s): {}",
        c.id,
        c.kind,
        c.file,
        c.message,
        c.variants.len(),
        c.variants.join(", ")
    )
}

/// `resolve`'s output: the root-cause summary and the causes, then every instance (one line
/// per finding), then the counts by kind. With `json`: one object per finding (with its
/// `root_cause` id), then one `{"root_causes": [...]}` line.
pub fn print(
    out: &mut impl Write,
    findings: &[Finding],
    causes: &[RootCause],
    json: bool,
) -> std::io::Result<()> {
    if json {
        #[derive(Serialize)]
        struct Row<'a> {
            #[serde(flatten)]
            f: &'a Finding,
            root_cause: String,
        }
        for f in findings {
            serde_json::to_writer(
                &mut *out,
                &Row {
                    f,
                    root_cause: id_of(f),
                },
            )?;
            writeln!(out)?;
        }
        #[derive(Serialize)]
        struct Causes<'a> {
            root_causes: &'a [RootCause],
        }
        serde_json::to_writer(
            &mut *out,
            &Causes {
                root_causes: causes,
            },
        )?;
        writeln!(out)?;
        return Ok(());
    }
    for l in summary_lines(causes, findings.len()) {
        writeln!(out, "{l}")?;
    }
    writeln!(out, "root causes (most variants first):")?;
    for c in causes {
        writeln!(out, "  {}", cause_line(c))?;
    }
    writeln!(out, "instances:")?;
    let mut by_kind: BTreeMap<&str, usize> = BTreeMap::new();
    for f in findings {
        *by_kind.entry(&f.kind).or_default() += 1;
        writeln!(out, "{} [{}]", f.line_text(), id_of(f))?;
    }
    writeln!(out, "{} findings", findings.len())?;
    for (k, n) in by_kind {
        writeln!(out, "  {n:5} {k}")?;
    }
    Ok(())
}

/// Adds each hunk of `patches` to the root causes it names (`patch`, hunks in file order, each
/// after its file's `---`/`+++` header).
pub fn attach_patches(causes: &mut [RootCause], patches: &[super::patch::TablePatch]) {
    for p in patches {
        for h in &p.hunks {
            for c in causes.iter_mut().filter(|c| h.causes.contains(&c.id)) {
                if c.patch.is_empty() || !c.patch.contains(&format!("+++ b/{}\n", p.path)) {
                    c.patch.push_str(&format!("--- a/{0}\n+++ b/{0}\n", p.path));
                }
                c.patch.push_str(&h.text);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(key: &str, kind: &str, bits: Vec<u8>) -> Finding {
        Finding {
            file: "specs/sm100/TLD.txt".into(),
            line: 18,
            key: key.into(),
            kind: kind.into(),
            bits,
            message: "table: `modi 4`; nvdisasm disagrees on 2 bit(s)".into(),
            evidence: vec![],
            reading: None,
        }
    }

    #[test]
    fn a_workspace_cause_has_one_id_for_an_absolute_and_a_relative_path() {
        let at = |file: &str| Finding {
            file: file.into(),
            ..f("A", "fixed-bit-ignored", vec![74])
        };
        let rel = id_of(&at("ULEA.txt.learn/specs/ULEA.txt"));
        assert_eq!(rel, id_of(&at("/tmp/w/ULEA.txt.learn/specs/ULEA.txt")));
        assert_eq!(rel, id_of(&at("specs/ULEA.txt")));
        // Another table file is another cause; the bundled tables' ids read the path as is.
        assert_ne!(rel, id_of(&at("ULEA.txt.learn/specs/sm90/ULEA.txt")));
        assert_eq!(id_path("specs/sm100/TLD.txt"), "specs/sm100/TLD.txt");
        assert_eq!(id_path("/x/tables/LD.txt"), "/x/tables/LD.txt");
    }

    #[test]
    fn same_cause_in_several_variants_is_one_root_cause() {
        let fs = vec![
            f("A", "label-wrong-group", vec![79, 80]),
            f("B", "label-wrong-group", vec![79, 80]),
            f("B", "field-boundary", vec![79, 80]),
            f("C", "label-wrong-group", vec![80]),
        ];
        let rc = group(&fs);
        assert_eq!(rc.len(), 3);
        assert_eq!(rc[0].variants, vec!["A", "B"]);
        assert_eq!(rc[0].kind, "label-wrong-group");
        assert_eq!(id_of(&fs[0]), id_of(&fs[1]));
        assert_ne!(id_of(&fs[1]), id_of(&fs[2]));
        assert!(rc[0].id.starts_with("rc-") && rc[0].id.len() == 11);
        let lines = summary_lines(&rc, 4);
        assert_eq!(lines[0], "3 root causes behind 4 findings, in 1 table");
        // Per kind: field-boundary has one root cause of one finding.
        assert_eq!(lines[3], "      1 root cause (1 finding) field-boundary");
    }
}
