//! report.csv (one row per variant) and report.md.

use super::{Report, VariantRow, cut, pct, variant_name};
use crate::conform::finding::compact_bits;
use crate::conform::rootcause::counted;
use serde::Serialize;
use std::fmt::Write;

/// One CSV row.
#[derive(Serialize)]
struct CsvRow<'a> {
    arch: String,
    key: &'a str,
    mnemonic: &'a str,
    words_checked: usize,
    /// Legal-text agreement in percent (report's view), empty when nvdisasm accepted none.
    agreement_pct: String,
    agreement_as_written_pct: String,
    mismatches: usize,
    findings: usize,
    fuzz_crashes: usize,
    bits_confirmed: usize,
    bits_contradicted: usize,
    bits_unseen: usize,
    file: &'a str,
    line: usize,
}

fn pct_num(x: Option<f64>) -> String {
    x.map(|v| format!("{:.2}", 100.0 * v)).unwrap_or_default()
}

/// report.csv: a header, then one row per variant in table order.
pub fn csv(r: &Report) -> Result<Vec<u8>, String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for v in &r.variants {
        w.serialize(CsvRow {
            arch: v.arch.map(|a| a.to_string()).unwrap_or_default(),
            key: &v.key,
            mnemonic: &v.mnemonic,
            words_checked: v.words_checked,
            agreement_pct: pct_num(v.agreement),
            agreement_as_written_pct: pct_num(v.agreement_as_written),
            mismatches: v.mismatches,
            findings: v.findings,
            fuzz_crashes: v.fuzz_crashes,
            bits_confirmed: v.bit_counts.confirmed,
            bits_contradicted: v.bit_counts.contradicted,
            bits_unseen: v.bit_counts.unseen,
            file: &v.file,
            line: v.line,
        })
        .map_err(|e| e.to_string())?;
    }
    w.into_inner().map_err(|e| e.to_string())
}

/// Escapes `|` and newlines for a Markdown table cell, in backticks when `code`.
fn cell(s: &str, code: bool) -> String {
    if code && !s.is_empty() {
        md_code(s).replace('|', "\\|")
    } else {
        md_text(s)
    }
}

/// `s` as markdown text that renders as itself: HTML special characters as entities, markdown
/// punctuation backslash-escaped, line breaks as spaces (names from folders and baselines are
/// not trusted to be plain).
pub(crate) fn md_text(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut o = String::with_capacity(s.len());
    for (i, &c) in chars.iter().enumerate() {
        match c {
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '&' => o.push_str("&amp;"),
            // An `_` between two letters or digits cannot start or end emphasis: kept plain,
            // so variant keys read as they are.
            '_' if i > 0
                && chars[i - 1].is_alphanumeric()
                && chars.get(i + 1).is_some_and(|n| n.is_alphanumeric()) =>
            {
                o.push('_')
            }
            '\\' | '`' | '*' | '_' | '[' | ']' | '(' | ')' | '#' | '|' | '!' | '~' => {
                o.push('\\');
                o.push(c);
            }
            '\n' | '\r' | '\t' => o.push(' '),
            c if c.is_control() => o.push('\u{fffd}'),
            c => o.push(c),
        }
    }
    o
}

/// `s` as a markdown code span: nothing in it is read as HTML or markdown; a backtick (which
/// would end the span) becomes `'`, line breaks spaces.
pub(crate) fn md_code(s: &str) -> String {
    let t: String = s
        .chars()
        .map(|c| match c {
            '`' => '\'',
            '\n' | '\r' | '\t' => ' ',
            c if c.is_control() => '\u{fffd}',
            c => c,
        })
        .collect();
    if t.trim().is_empty() {
        return "` `".into();
    }
    format!("`{t}`")
}

/// Rows grouped by arch (arch order), table order inside.
pub(crate) fn by_arch(r: &Report) -> Vec<(String, Vec<&VariantRow>)> {
    let mut archs: Vec<Option<crate::Arch>> = r.variants.iter().map(|v| v.arch).collect();
    archs.sort();
    archs.dedup();
    archs
        .into_iter()
        .map(|a| {
            let name = a.map_or("no arch".to_string(), |a| a.to_string());
            (name, r.variants.iter().filter(|v| v.arch == a).collect())
        })
        .collect()
}

/// report.md.
pub fn markdown(r: &Report) -> String {
    let mut o = String::new();
    let s = &r.summary;
    let _ = writeln!(o, "# sass-conform report\n");
    let _ = writeln!(
        o,
        "Generated {} by sass-conform {}; tables {}, view **{}**; oracle {}; nvdisasm {}.\n",
        md_text(&r.generated),
        md_text(&r.tool_version),
        md_code(&r.inputs.specs),
        md_text(&r.inputs.view),
        r.inputs
            .oracle
            .iter()
            .map(|o| format!("{} ({} entries)", md_code(&o.dir), o.entries))
            .collect::<Vec<_>>()
            .join(", "),
        if r.inputs.nvdisasm_versions.is_empty() {
            "-".to_string()
        } else {
            md_text(&r.inputs.nvdisasm_versions.join(", "))
        }
    );
    if !r.inputs.skipped_tables.is_empty() {
        let _ = writeln!(
            o,
            "**{} skipped** (not read; every figure below is without {}):\n",
            counted(r.inputs.skipped_tables.len(), "table"),
            if r.inputs.skipped_tables.len() == 1 {
                "it"
            } else {
                "them"
            }
        );
        for why in &r.inputs.skipped_tables {
            let _ = writeln!(o, "- {}", md_text(why));
        }
        o.push('\n');
    }
    if let Some(text) = &r.campaign {
        let _ = writeln!(
            o,
            "## Campaign: fresh words against live nvdisasm\n\n~~~\n{}\n~~~\n",
            text.trim_end().replace("~~~", "~ ~ ~")
        );
    }
    if let Some(c) = &r.comparison {
        if c.regressions.is_empty() {
            let _ = writeln!(o, "**No regression** against {}.\n", md_code(&c.baseline));
        } else {
            let _ = writeln!(o, "**REGRESSION** against {}:\n", md_code(&c.baseline));
            for g in &c.regressions {
                let _ = writeln!(o, "- {}", md_text(g));
            }
            o.push('\n');
        }
    }
    super::rootcauses::markdown(&mut o, r);
    headline_md(&mut o, s);
    let _ = writeln!(o, "## Summary\n");
    let _ = writeln!(
        o,
        "| | now |{}",
        if r.comparison.is_some() {
            " baseline |"
        } else {
            ""
        }
    );
    let _ = writeln!(
        o,
        "|---|---:|{}",
        if r.comparison.is_some() { "---:|" } else { "" }
    );
    let before = r.comparison.as_ref().map(|c| &c.summary_before);
    let mut line = |name: &str, now: String, was: Option<String>| {
        let _ = match was {
            Some(w) => writeln!(o, "| {name} | {now} | {w} |"),
            None => writeln!(o, "| {name} | {now} |"),
        };
    };
    line(
        "tables / variants",
        format!("{} / {}", s.tables, s.variants),
        before.map(|b| format!("{} / {}", b.tables, b.variants)),
    );
    line(
        "oracle entries",
        s.counts.total.to_string(),
        before.map(|b| b.counts.total.to_string()),
    );
    line(
        "legal-text agreement",
        pct(s.legal_agreement),
        before.map(|b| pct(b.legal_agreement)),
    );
    line(
        "legal/illegal verdict agreement",
        pct(s.verdict_agreement),
        before.map(|b| pct(b.verdict_agreement)),
    );
    line(
        "legal-text agreement, tables as written",
        pct(s.legal_agreement_as_written),
        before.map(|b| pct(b.legal_agreement_as_written)),
    );
    line(
        "mismatching words (attributed)",
        s.mismatches.to_string(),
        before.map(|b| b.mismatches.to_string()),
    );
    line(
        "words no table knows",
        s.counts.no_variant.to_string(),
        before.map(|b| b.counts.no_variant.to_string()),
    );
    line(
        "findings",
        s.findings.to_string(),
        before.map(|b| b.findings.to_string()),
    );
    line(
        "bits confirmed / contradicted / unseen",
        format!(
            "{} / {} / {}",
            s.bits.confirmed, s.bits.contradicted, s.bits.unseen
        ),
        before.map(|b| {
            format!(
                "{} / {} / {}",
                b.bits.confirmed, b.bits.contradicted, b.bits.unseen
            )
        }),
    );
    line(
        "fuzz crashes",
        s.fuzz_crashes.to_string(),
        before.map(|b| b.fuzz_crashes.to_string()),
    );
    o.push('\n');

    if let Some(c) = &r.comparison {
        let _ = writeln!(
            o,
            "## Changes since the baseline ({})\n",
            md_text(&c.baseline_generated)
        );
        let section = |o: &mut String, title: &str, n: usize| {
            if !o.ends_with("\n\n") {
                o.push('\n');
            }
            let _ = writeln!(o, "### {title} ({n})\n");
        };
        section(&mut o, "New mismatches", c.new_mismatches.len());
        for m in c.new_mismatches.iter().take(50) {
            let _ = writeln!(
                o,
                "- {} word {} ({} {}): {}",
                md_text(&variant_name(m.arch, &m.key)),
                md_code(&m.word),
                md_text(&m.cause.to_string()),
                md_text(&m.field),
                md_code(&m.diff)
            );
        }
        section(&mut o, "Fixed mismatches", c.fixed_mismatches.len());
        for m in c.fixed_mismatches.iter().take(50) {
            let _ = writeln!(
                o,
                "- {} word {}: nvdisasm {}",
                md_text(&variant_name(m.arch, &m.key)),
                md_code(&m.word),
                md_code(&m.nvdisasm)
            );
        }
        section(&mut o, "Changed texts", c.changed_texts.len());
        for t in c.changed_texts.iter().take(50) {
            let _ = writeln!(
                o,
                "- {} word {}, {}: {}",
                md_text(&variant_name(t.arch, &t.key)),
                md_code(&t.word),
                md_text(&t.side),
                md_code(&t.diff)
            );
        }
        section(&mut o, "Agreement down", c.agreement_down.len());
        for a in &c.agreement_down {
            let _ = writeln!(
                o,
                "- {}: {} -> {} ({} -> {} words)",
                md_text(&variant_name(a.arch, &a.key)),
                pct(a.before),
                pct(a.after),
                a.words_before,
                a.words_after
            );
        }
        section(&mut o, "Agreement up", c.agreement_up.len());
        for a in &c.agreement_up {
            let _ = writeln!(
                o,
                "- {}: {} -> {}",
                md_text(&variant_name(a.arch, &a.key)),
                pct(a.before),
                pct(a.after)
            );
        }
        section(&mut o, "Bits whose status changed", c.bits_changed.len());
        for b in &c.bits_changed {
            let _ = writeln!(
                o,
                "- {}: bits {} {} -> {}",
                md_text(&variant_name(b.arch, &b.key)),
                compact_bits(&b.bits),
                md_code(&b.before),
                md_code(&b.after)
            );
        }
        section(&mut o, "New findings", c.new_findings.len());
        for f in c.new_findings.iter().take(50) {
            let _ = writeln!(o, "- {}", md_text(&f.line_text()));
        }
        section(&mut o, "Gone findings", c.gone_findings.len());
        for f in c.gone_findings.iter().take(50) {
            let _ = writeln!(o, "- {}", md_text(&f.line_text()));
        }
        section(&mut o, "New fuzz crashes", c.new_crashes.len());
        for x in &c.new_crashes {
            let _ = writeln!(
                o,
                "- {} {}: {}",
                md_text(&x.target),
                md_code(&x.file),
                md_code(&x.reproduce)
            );
        }
        o.push('\n');
        if !c.variants_added.is_empty() || !c.variants_removed.is_empty() {
            let _ = writeln!(
                o,
                "Variants added: {}; removed: {}.\n",
                md_text(&c.variants_added.join(", ")),
                md_text(&c.variants_removed.join(", "))
            );
        }
    }

    let _ = writeln!(o, "## Variants\n");
    let _ = writeln!(
        o,
        "Agreement: share of nvdisasm-legal words whose text we reproduce ({} tables; \"as \
         written\": the tables as written). Bits: confirmed / contradicted / never seen by \
         nvdisasm.\n",
        r.inputs.view
    );
    for (arch, rows) in by_arch(r) {
        let _ = writeln!(o, "### {arch}\n");
        let _ = writeln!(
            o,
            "| variant | words | agreement | as written | mismatches | findings | crashes | bits c/x/u |"
        );
        let _ = writeln!(o, "|---|---:|---:|---:|---:|---:|---:|---|");
        for v in rows {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {} | {} | {}/{}/{} |",
                cell(&v.key, true),
                v.words_checked,
                pct(v.agreement),
                pct(v.agreement_as_written),
                v.mismatches,
                v.findings,
                v.fuzz_crashes,
                v.bit_counts.confirmed,
                v.bit_counts.contradicted,
                v.bit_counts.unseen
            );
        }
        o.push('\n');
    }

    let _ = writeln!(o, "## Mismatch groups\n");
    let _ = writeln!(
        o,
        "| count | key | field | cause | example | diff (ours -> nvdisasm) |"
    );
    let _ = writeln!(o, "|---:|---|---|---|---|---|");
    for g in r.mismatch_groups.iter().take(40) {
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} | {} |",
            g.count,
            cell(&g.key, true),
            cell(&g.field, false),
            md_text(&g.cause.to_string()),
            cell(&g.example.word, true),
            cell(&cut(&g.example.diff, 160), true)
        );
    }
    if r.mismatch_groups.len() > 40 {
        let _ = writeln!(
            o,
            "\n{} more groups in report.json.",
            r.mismatch_groups.len() - 40
        );
    }
    o.push('\n');

    let _ = writeln!(o, "## Fuzz crashes ({})\n", r.crashes.len());
    for x in &r.crashes {
        let _ = writeln!(
            o,
            "- {} {} ({}, {} bytes{}){}: reproduce with {}{}",
            md_text(&x.target),
            md_code(&x.file),
            md_text(&x.kind.to_string()),
            x.size,
            if x.minimized { ", minimised" } else { "" },
            if x.variants.is_empty() {
                String::new()
            } else {
                format!(" on {}", md_text(&x.variants.join(", ")))
            },
            md_code(&x.reproduce),
            x.message
                .as_ref()
                .map(|m| format!(" — {}", cell(m, false)))
                .unwrap_or_default()
        );
    }
    o.push('\n');

    let _ = writeln!(o, "## Findings by kind\n");
    let _ = writeln!(o, "| kind | count |");
    let _ = writeln!(o, "|---|---:|");
    for (k, n) in &s.findings_by_kind {
        let _ = writeln!(o, "| {} | {n} |", md_text(k));
    }
    o
}

/// The few lines `sass-conform report` prints: totals and, with a baseline, the changes.
/// The headline figures (check split per table, the compiler's words per arch; both never
/// learned from) as one line each: `check SM80 LD: legal text 99.946% (3693/3695), verdict
/// 100.000% of 8000 words`.
pub fn headline_lines(s: &super::Summary) -> Vec<String> {
    s.figures
        .iter()
        .filter(|(k, _)| k.as_str() != "learned")
        .map(|(k, c)| {
            let legal = c.matched + c.text_mismatch + c.we_reject_oracle_decodes;
            format!(
                "{k}: legal text {} ({}/{legal}), verdict {} of {} words",
                pct(c.legal_share()),
                c.matched,
                pct(c.verdict_share()),
                c.total
            )
        })
        .collect()
}

fn headline_md(o: &mut String, s: &super::Summary) {
    let lines = headline_lines(s);
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "## Headline: words never learned from\n\nThe check split (random combination words of \
         another seed) per table, and the compiler's words (ptxas cubins) per arch.\n"
    );
    for l in lines {
        let _ = writeln!(o, "- {}", md_text(&l));
    }
    o.push('\n');
}

pub fn summary_text(r: &Report) -> String {
    let s = &r.summary;
    let mut o = String::new();
    if let Some(text) = &r.campaign {
        let _ = writeln!(o, "{}", text.trim_end());
    }
    for l in headline_lines(s) {
        let _ = writeln!(o, "{l}");
    }
    for skipped in &r.inputs.skipped_tables {
        let _ = writeln!(o, "table skipped (not read): {skipped}");
    }
    let _ = writeln!(
        o,
        "{} in {}; {} oracle words ({} view): legal-text agreement {}, verdict agreement {}, \
         as written {}",
        counted(s.variants, "variant"),
        counted(s.tables, "table"),
        s.counts.total,
        r.inputs.view,
        pct(s.legal_agreement),
        pct(s.verdict_agreement),
        pct(s.legal_agreement_as_written)
    );
    let _ = writeln!(
        o,
        "{} disagree with nvdisasm; {} (nvdisasm prints a mnemonic no table has); {} of \
         mismatches in all; {} (lint and resolve together); table bits (every variant's, by \
         nvdisasm's single flips) {} confirmed, {} contradicted, {} never reached; {}",
        counted(s.mismatches - s.other_instructions, "word"),
        match s.counts.no_variant {
            1 => "1 answer is another instruction no table describes".to_string(),
            n => format!("{n} answers are other instructions no table describes"),
        },
        counted(s.mismatch_groups, "group"),
        counted(s.findings, "finding"),
        s.bits.confirmed,
        s.bits.contradicted,
        s.bits.unseen,
        match s.fuzz_crashes {
            1 => "1 fuzz crash".to_string(),
            n => format!("{n} fuzz crashes"),
        }
    );
    if let Some(c) = &r.comparison {
        // Words nvdisasm prints as another instruction: listed, not disagreements.
        let other = c
            .new_mismatches
            .iter()
            .filter(|m| m.cause == "no-variant")
            .count();
        let _ = writeln!(
            o,
            "against {} ({}): {} new / {} fixed mismatches{}, {} changed texts, {} new / {} \
             gone findings, agreement up in {} / down in {} variants, {} variants with bit \
             changes, {} new fuzz crashes",
            c.baseline,
            c.baseline_generated,
            c.new_mismatches.len(),
            c.fixed_mismatches.len(),
            match other {
                0 => String::new(),
                n => format!(" ({n} new ones are other instructions no table describes)"),
            },
            c.changed_texts.len(),
            c.new_findings.len(),
            c.gone_findings.len(),
            c.agreement_up.len(),
            c.agreement_down.len(),
            c.bits_changed.len(),
            c.new_crashes.len()
        );
    }
    o
}

/// The last line `sass-conform report` prints: `regression: ...` naming each regression, or
/// `no regression against ...`; None without a baseline.
pub fn last_line(r: &Report) -> Option<String> {
    let c = r.comparison.as_ref()?;
    Some(if c.regressions.is_empty() {
        format!("no regression against {}", c.baseline)
    } else {
        format!("regression: {}", c.regressions.join("; "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md_text_escapes_html_and_markdown() {
        assert_eq!(
            md_text("<img src=x>&[a](b) *x* `c` |d| #e _f_ TLD_P_R\nnext"),
            "&lt;img src=x&gt;&amp;\\[a\\]\\(b\\) \\*x\\* \\`c\\` \\|d\\| \\#e \\_f\\_ TLD_P_R next"
        );
        assert_eq!(md_text("a\u{0}b"), "a\u{fffd}b");
    }

    #[test]
    fn md_code_is_one_span() {
        assert_eq!(md_code("a`b<c>\nd"), "`a'b<c> d`");
        assert_eq!(md_code(""), "` `");
        assert_eq!(cell("x|y", true), "`x\\|y`");
        assert_eq!(cell("<x>|y", false), "&lt;x&gt;\\|y");
    }
}
