//! The report's first section: findings grouped by root cause (most variants first), each
//! with its variants, evidence words and the patch hunk that corrects it.

use super::Report;
use super::html::esc;
use super::text::{md_code, md_text};
use crate::conform::finding::compact_bits;
use crate::conform::rootcause::summary_lines;
use std::fmt::Write;

/// Root causes shown in full; the rest are counted.
pub const SHOWN: usize = 60;

fn bits(c: &crate::conform::rootcause::RootCause) -> String {
    if c.bits.is_empty() {
        String::new()
    } else {
        format!(" bits {}", compact_bits(&c.bits))
    }
}

/// The markdown section.
pub fn markdown(o: &mut String, r: &Report) {
    let rc = &r.root_causes;
    let _ = writeln!(o, "## Root causes\n");
    let n: usize = rc.iter().map(|c| c.variants.len()).sum();
    for l in summary_lines(rc, n) {
        let _ = writeln!(o, "    {l}");
    }
    o.push('\n');
    for c in rc.iter().take(SHOWN) {
        let _ = writeln!(
            o,
            "### {} [{}] {}{}\n\n{} — {} variant(s): {}\n",
            c.id,
            md_text(&c.kind),
            md_code(&c.file),
            bits(c),
            md_text(&c.message),
            c.variants.len(),
            md_text(&c.variants.join(", "))
        );
        if !c.evidence.is_empty() {
            let _ = writeln!(o, "Evidence:\n");
            for e in &c.evidence {
                let _ = writeln!(o, "- {}", md_code(e));
            }
            o.push('\n');
        }
        if !c.patch.is_empty() {
            let _ = writeln!(o, "```diff\n{}```\n", c.patch);
        }
    }
    if rc.len() > SHOWN {
        let _ = writeln!(
            o,
            "... and {} more root causes (report.json).\n",
            rc.len() - SHOWN
        );
    }
}

/// The HTML section.
pub fn html(o: &mut String, r: &Report) {
    let rc = &r.root_causes;
    let n: usize = rc.iter().map(|c| c.variants.len()).sum();
    let _ = writeln!(
        o,
        "<section id=\"root-causes\"><h2>Root causes</h2><pre>{}</pre>",
        esc(&summary_lines(rc, n).join("\n"))
    );
    for c in rc.iter().take(SHOWN) {
        let _ = write!(
            o,
            "<details><summary><code>{}</code> [{}] <code>{}</code>{}: {} — {} variant(s)</summary>\
             <p>{}</p>",
            esc(&c.id),
            esc(&c.kind),
            esc(&c.file),
            esc(&bits(c)),
            esc(&c.message),
            c.variants.len(),
            esc(&c.variants.join(", "))
        );
        if !c.evidence.is_empty() {
            let _ = write!(o, "<ul>");
            for e in &c.evidence {
                let _ = write!(o, "<li><code>{}</code></li>", esc(e));
            }
            let _ = write!(o, "</ul>");
        }
        if !c.patch.is_empty() {
            let _ = write!(o, "<pre class=\"patch\">{}</pre>", esc(&c.patch));
        }
        let _ = writeln!(o, "</details>");
    }
    if rc.len() > SHOWN {
        let _ = writeln!(
            o,
            "<p>... and {} more root causes (report.json).</p>",
            rc.len() - SHOWN
        );
    }
    let _ = writeln!(o, "</section>");
}
