//! The summary a maintainer acts on (`sass-conform report --top N`, the end of
//! `scripts/main`): per table, the kinds of finding nvdisasm proves, largest first, each with
//! one example and one evidence word (word, arch, nvdisasm's text); then the groups of words
//! where the project's decoding still disagrees with nvdisasm, each with one example word.

use super::{FindingRow, Report};
use crate::conform::rootcause::counted;
use std::collections::BTreeMap;
use std::fmt::Write;

/// One kind of proven finding in one table: how many, and the first example with evidence.
struct Cause<'a> {
    kind: &'a str,
    count: usize,
    variants: std::collections::BTreeSet<&'a str>,
    example: &'a FindingRow,
}

/// The maintainer's summary of `r`: for each table (file order) its `top` largest kinds of
/// nvdisasm-proven finding (`resolve`; static `lint` findings are counted only), each as
/// `COUNT KIND in N variants, e.g. KEY: MESSAGE (bits B)` and `evidence: ARCH WORD -> TEXT`;
/// then the `top` largest mismatch groups. Empty when `top` is 0.
pub fn actions_text(r: &Report, top: usize) -> String {
    let mut o = String::new();
    if top == 0 {
        return o;
    }
    // Arch and mnemonic of each table file, from the variant rows.
    let mut table_of: BTreeMap<&str, (String, usize)> = BTreeMap::new();
    for v in &r.variants {
        let e = table_of.entry(v.file.as_str()).or_insert_with(|| {
            let arch = v.arch.map_or("-".to_string(), |a| a.to_string());
            (format!("{arch} {}", v.mnemonic), 0)
        });
        e.1 += 1;
    }
    let arch_of = |file: &str| -> String {
        table_of
            .get(file)
            .and_then(|(n, _)| n.split(' ').next())
            .unwrap_or("-")
            .to_string()
    };
    let _ = writeln!(
        o,
        "What the tables get wrong: per table, the {top} largest kinds of finding nvdisasm \
         proves (sass-conform resolve), one evidence word each"
    );
    let mut files: Vec<&str> = table_of.keys().copied().collect();
    files.sort_by_key(|f| r.variants.iter().position(|v| v.file == *f));
    for file in files {
        let (name, variants) = &table_of[file];
        let mut causes: Vec<Cause> = Vec::new();
        let mut lint = 0;
        for f in r.findings.iter().filter(|f| f.file == file) {
            if f.source != "resolve" {
                lint += 1;
                continue;
            }
            match causes.iter_mut().find(|c| c.kind == f.kind) {
                Some(c) => {
                    c.count += 1;
                    c.variants.insert(&f.key);
                    if c.example.evidence.is_none() && f.evidence.is_some() {
                        c.example = f;
                    }
                }
                None => causes.push(Cause {
                    kind: &f.kind,
                    count: 1,
                    variants: [f.key.as_str()].into(),
                    example: f,
                }),
            }
        }
        causes.sort_by(|a, b| b.count.cmp(&a.count).then(a.kind.cmp(b.kind)));
        let proven: usize = causes.iter().map(|c| c.count).sum();
        let _ = writeln!(
            o,
            "{file} ({name}, {}): {} in {}, {lint} static (lint)",
            counted(*variants, "variant"),
            counted(proven, "proven finding"),
            counted(causes.len(), "kind"),
        );
        for c in causes.iter().take(top) {
            let e = c.example;
            let bits = match e.bits.is_empty() {
                true => String::new(),
                false => format!(" (bits {})", e.bits),
            };
            let _ = writeln!(
                o,
                "  {:5} {} in {} variants, e.g. {}:{} {}: {}{bits}",
                c.count,
                c.kind,
                c.variants.len(),
                file,
                e.line,
                e.key,
                e.message
            );
            if let Some(ev) = &e.evidence {
                let (word, text) = ev.split_once(": ").unwrap_or((ev.as_str(), ""));
                let _ = writeln!(
                    o,
                    "        evidence: {} {word} -> nvdisasm: {text}",
                    arch_of(file)
                );
            }
        }
    }
    // Words no table's variant reads (other opcodes, or printed as another instruction) say
    // nothing against a table: counted, not listed.
    let (groups, elsewhere): (Vec<_>, Vec<_>) = r
        .mismatch_groups
        .iter()
        .partition(|g| g.cause != "no-variant");
    if !groups.is_empty() {
        let _ = writeln!(
            o,
            "Where the project still disagrees with nvdisasm: the {top} largest of {} mismatch \
             groups (variant: where (cause)), one example word each",
            groups.len()
        );
        for g in groups.iter().take(top) {
            let x = &g.example;
            let arch = x.arch.map_or("-".to_string(), |a| a.to_string());
            let _ = writeln!(
                o,
                "  {:5} {} {}: {} ({})",
                g.count, arch, g.key, g.field, g.cause
            );
            let _ = writeln!(
                o,
                "        evidence: {arch} {} -> nvdisasm: {}  (ours: {})",
                x.word,
                x.nvdisasm,
                x.ours.as_deref().unwrap_or("(rejected)")
            );
        }
    }
    if !elsewhere.is_empty() {
        let n: usize = elsewhere.iter().map(|g| g.count).sum();
        let _ = writeln!(
            o,
            "({n} recorded words in {} groups are other instructions, which no table describes: \
             not listed)",
            elsewhere.len()
        );
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{GroupRow, MismatchRow, VariantRow};

    #[test]
    fn causes_are_counted_per_table_with_one_evidence_word() {
        let finding = |source: &str, kind: &str, key: &str, evidence: Option<&str>| FindingRow {
            source: source.into(),
            file: "specs/sm80/LD.txt".into(),
            line: 7,
            key: key.into(),
            kind: kind.into(),
            bits: "91".into(),
            message: "fixed bit ignored".into(),
            reading: None,
            evidence: evidence.map(String::from),
        };
        let r = Report {
            variants: vec![VariantRow {
                arch: Some(crate::Arch(80)),
                mnemonic: "LD".into(),
                key: "LD_R_R_I".into(),
                file: "specs/sm80/LD.txt".into(),
                ..Default::default()
            }],
            findings: vec![
                finding("lint", "header-gap", "LD_R_R_I", None),
                finding("resolve", "fixed-bit-ignored", "LD_R_R_I", None),
                finding(
                    "resolve",
                    "fixed-bit-ignored",
                    "LD_R_R",
                    Some("00000000080010000000080000000980: LD.EF.U8 R0, [R0] ;"),
                ),
                finding("resolve", "field-boundary", "LD_R_R", None),
            ],
            mismatch_groups: vec![
                GroupRow {
                    key: "-".into(),
                    cause: "no-variant".into(),
                    count: 12069,
                    ..Default::default()
                },
                GroupRow {
                    key: "LD_R_R_I".into(),
                    field: "fixed bits [91]".into(),
                    cause: "we-reject".into(),
                    count: 494,
                    example: MismatchRow {
                        arch: Some(crate::Arch(80)),
                        word: "0000a4000c501d00000370041a0c7980".into(),
                        nvdisasm: "LD.E.NA.128 R12, [R26.64+0x370] ;".into(),
                        ..Default::default()
                    },
                },
            ],
            ..Default::default()
        };
        assert_eq!(actions_text(&r, 0), "");
        let text = actions_text(&r, 1);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[1],
            "specs/sm80/LD.txt (SM80 LD, 1 variant): 3 proven findings in 2 kinds, 1 static (lint)"
        );
        assert_eq!(
            lines[2],
            "      2 fixed-bit-ignored in 2 variants, e.g. specs/sm80/LD.txt:7 LD_R_R: fixed bit \
             ignored (bits 91)"
        );
        assert_eq!(
            lines[3],
            "        evidence: SM80 00000000080010000000080000000980 -> nvdisasm: LD.EF.U8 R0, [R0] ;"
        );
        assert_eq!(
            lines[5],
            "    494 SM80 LD_R_R_I: fixed bits [91] (we-reject)"
        );
        assert_eq!(
            lines[6],
            "        evidence: SM80 0000a4000c501d00000370041a0c7980 -> nvdisasm: LD.E.NA.128 \
             R12, [R26.64+0x370] ;  (ours: (rejected))"
        );
        assert_eq!(
            lines[7],
            "(12069 recorded words in 1 groups are other instructions, which no table describes: \
             not listed)"
        );
        assert_eq!(lines.len(), 8);
    }
}
