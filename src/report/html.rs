//! report.html: one self-contained page (inline CSS, inline SVG, a few lines of inline
//! script; no external asset). A summary at the top, the changes since the baseline, then per
//! arch a table of its variants followed by each variant's 128-bit layout: two rows of 64
//! cells (bits 0-63, then 64-127, in the tables' own left-to-right order), labelled by field,
//! each cell coloured by what nvdisasm says of the bit.

use super::{
    CONFIRMED, CONTRADICTED, Crash, MismatchRow, Report, UNSEEN, VariantRow, cut, pct, variant_name,
};
use crate::conform::finding::compact_bits;
use std::fmt::Write;

/// Fill colours of the three bit statuses (also read back by the page's script).
pub const COLOURS: [(char, &str, &str); 3] = [
    (CONFIRMED, "#2f9e44", "confirmed by nvdisasm"),
    (CONTRADICTED, "#e03131", "contradicted by nvdisasm"),
    (UNSEEN, "#ced4da", "never seen by nvdisasm"),
];

const CELL: usize = 14;
const LEFT: usize = 52;
const ROW_H: usize = 60;

/// Escapes text for HTML content and attribute values.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            _ => o.push(c),
        }
    }
    o
}

/// Instruction text cut into tokens: runs of word characters, and each other character
/// (`.`, `,`, space, brackets) on its own, so modifiers diff one by one.
fn tokens(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in s.char_indices() {
        if !(c.is_alphanumeric() || c == '_' || c == '?' || c == '!') {
            if start < i {
                out.push(&s[start..i]);
            }
            out.push(&s[i..i + c.len_utf8()]);
            start = i + c.len_utf8();
        }
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// `similar` diff of `a` -> `b` over [`tokens`], as HTML (`<del>`/`<ins>`).
pub fn diff_html(a: &str, b: &str) -> String {
    use similar::{ChangeTag, TextDiff};
    let (ta, tb) = (tokens(a), tokens(b));
    let d = TextDiff::from_slices(&ta, &tb);
    let mut o = String::new();
    let mut run: Option<(ChangeTag, String)> = None;
    let flush = |o: &mut String, run: &mut Option<(ChangeTag, String)>| {
        if let Some((tag, text)) = run.take() {
            let v = esc(&text);
            match tag {
                ChangeTag::Equal => o.push_str(&v),
                ChangeTag::Delete => {
                    let _ = write!(o, "<del>{v}</del>");
                }
                ChangeTag::Insert => {
                    let _ = write!(o, "<ins>{v}</ins>");
                }
            }
        }
    };
    for c in d.iter_all_changes() {
        match &mut run {
            Some((tag, text)) if *tag == c.tag() => text.push_str(c.value()),
            _ => {
                flush(&mut o, &mut run);
                run = Some((c.tag(), c.value().to_string()));
            }
        }
    }
    flush(&mut o, &mut run);
    format!("<code class=\"diff\">{o}</code>")
}

fn anchor(v: &VariantRow) -> String {
    let a = v.arch.map(|a| a.to_string()).unwrap_or_default();
    format!("v-{a}-{}", v.key).replace(|c: char| !c.is_ascii_alphanumeric() && c != '-', "_")
}

const STYLE: &str = r#"
:root{--c:#2f9e44;--x:#e03131;--u:#ced4da;--fg:#212529;--mut:#6c757d;--bd:#dee2e6}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);margin:0;background:#f8f9fa}
header,main{max-width:1180px;margin:0 auto;padding:0 20px}
header{padding-top:18px}
h1{font-size:24px;margin:0 0 4px}
h2{font-size:20px;margin:28px 0 10px;border-bottom:2px solid var(--bd);padding-bottom:4px}
h3{font-size:15px;margin:0 0 6px}
.meta{color:var(--mut);margin:0 0 12px}
code{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.status{padding:10px 14px;border-radius:6px;font-weight:600;margin:12px 0}
.status.ok{background:#d3f9d8;color:#2b8a3e}
.status.bad{background:#ffe3e3;color:#c92a2a}
.status.none{background:#e9ecef;color:var(--mut)}
.status ul{margin:6px 0 0;font-weight:400}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:10px}
.card{background:#fff;border:1px solid var(--bd);border-radius:6px;padding:10px 12px}
.card .num{display:block;font-size:22px;font-weight:700}
.card .lbl{color:var(--mut);font-size:12px}
.card .was{display:block;color:var(--mut);font-size:11px}
.card.c .num{color:var(--c)}.card.x .num{color:var(--x)}.card.u .num{color:#868e96}
.stack{display:flex;height:14px;border-radius:3px;overflow:hidden;margin:12px 0 4px;border:1px solid var(--bd)}
.stack span{display:block;height:100%}
.legend{font-size:12px;color:var(--mut);margin:6px 0}
.legend i{display:inline-block;width:11px;height:11px;border-radius:2px;vertical-align:-1px;margin:0 4px 0 12px}
table{border-collapse:collapse;background:#fff;width:100%;margin:6px 0 14px}
th,td{border:1px solid var(--bd);padding:4px 7px;text-align:left;vertical-align:top}
th{background:#f1f3f5;font-weight:600;font-size:12px}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.bar{display:inline-block;width:70px;height:8px;background:#e9ecef;border-radius:2px;margin-right:6px;vertical-align:1px}
.bar b{display:block;height:100%;background:var(--c);border-radius:2px}
.mini{display:inline-flex;width:90px;height:9px;border-radius:2px;overflow:hidden;vertical-align:0}
.mini span{display:block;height:100%}
.variant{background:#fff;border:1px solid var(--bd);border-radius:6px;padding:12px 14px;margin:12px 0}
.variant .sub{color:var(--mut);font-size:12px;font-weight:400}
.variant p{margin:4px 0}
svg.layout{display:block;margin:8px 0;max-width:100%;height:auto}
rect.bit{stroke:#fff;stroke-width:1}
rect.bit.c{fill:var(--c)}rect.bit.x{fill:var(--x)}rect.bit.u{fill:var(--u)}
text.fv{font:9px ui-monospace,monospace;fill:#fff;pointer-events:none}
rect.bit.u+text.fv{fill:#495057}
text.rl,text.tick{font:10px system-ui,sans-serif;fill:var(--mut)}
g.fld rect{fill:#e7f5ff;stroke:#74c0fc}
g.fld.k-modifier rect{fill:#fff4e6;stroke:#ffa94d}
g.fld.k-guard rect{fill:#f3f0ff;stroke:#9775fa}
g.fld.k-sched rect{fill:#f1f3f5;stroke:#adb5bd}
g.fld.k-flag rect,g.fld.k-operand-modifier rect{fill:#fff0f6;stroke:#f783ac}
g.fld text{font:9px system-ui,sans-serif;fill:#343a40}
code.diff{white-space:pre-wrap;overflow-wrap:anywhere}
td code{overflow-wrap:anywhere}
code.w{white-space:nowrap;overflow-wrap:normal}
del{background:#ffc9c9;text-decoration:line-through}
ins{background:#b2f2bb;text-decoration:none}
details{margin:6px 0}
summary{cursor:pointer;color:#1971c2}
.filter{margin:8px 0}
.filter input{font:inherit;padding:3px 6px;width:260px}
.hidden{display:none}
"#;

const SCRIPT: &str = r#"
(function(){
  // Count the layout cells by the colour the browser actually gives them.
  var want={c:'#2f9e44',x:'#e03131',u:'#ced4da'}, n={c:0,x:0,u:0,other:0};
  function rgb(h){return 'rgb('+parseInt(h.substr(1,2),16)+', '+parseInt(h.substr(3,2),16)+', '+parseInt(h.substr(5,2),16)+')';}
  var cells=document.querySelectorAll('rect.bit');
  for(var i=0;i<cells.length;i++){
    var f=getComputedStyle(cells[i]).fill, hit='other';
    for(var k in want){ if(f===rgb(want[k])) hit=k; }
    n[hit]++;
  }
  for(var k in n){ var e=document.getElementById('rendered-'+k); if(e) e.textContent=n[k]; }
  var all=document.getElementById('rendered-cells'); if(all) all.textContent=cells.length;
  // Filter variants by key.
  var box=document.getElementById('filter');
  if(box) box.addEventListener('input',function(){
    var q=box.value.toUpperCase();
    document.querySelectorAll('[data-key]').forEach(function(el){
      el.classList.toggle('hidden', q!=='' && el.getAttribute('data-key').toUpperCase().indexOf(q)<0);
    });
  });
})();
"#;

/// The whole page.
pub fn page(r: &Report) -> String {
    let mut o = String::with_capacity(4 << 20);
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <title>sass-conform report {}</title><style>{STYLE}</style></head><body>\n",
        esc(&r.generated)
    );
    let _ = writeln!(
        o,
        "<header><h1>sass-conform report</h1><p class=\"meta\">Generated {} by sass-conform {} \
         · tables <code>{}</code> ({} view) · oracle {} · nvdisasm {}</p></header><main>",
        esc(&r.generated),
        esc(&r.tool_version),
        esc(&r.inputs.specs),
        esc(&r.inputs.view),
        r.inputs
            .oracle
            .iter()
            .map(|x| format!("<code>{}</code> ({} entries)", esc(&x.dir), x.entries))
            .collect::<Vec<_>>()
            .join(", "),
        esc(&if r.inputs.nvdisasm_versions.is_empty() {
            "-".to_string()
        } else {
            r.inputs.nvdisasm_versions.join(", ")
        })
    );
    if !r.inputs.skipped_tables.is_empty() {
        let _ = write!(
            o,
            "<section id=\"skipped\"><h2>Tables skipped (not read; no figure below counts \
             them)</h2><ul>"
        );
        for why in &r.inputs.skipped_tables {
            let _ = write!(o, "<li><code>{}</code></li>", esc(why));
        }
        let _ = writeln!(o, "</ul></section>");
    }
    if let Some(text) = &r.campaign {
        let _ = write!(
            o,
            "<section id=\"campaign\"><h2>Campaign: fresh words against live nvdisasm</h2>\
             <pre>{}</pre></section>",
            esc(text.trim_end())
        );
    }
    super::rootcauses::html(&mut o, r);
    summary(&mut o, r);
    if let Some(c) = &r.comparison {
        changes(&mut o, c);
    }
    let _ = writeln!(
        o,
        "<div class=\"filter\"><label>Filter variants: <input id=\"filter\" \
         placeholder=\"key, e.g. TLD4_R_R\"></label></div>"
    );
    for (arch, rows) in super::text::by_arch(r) {
        arch_section(&mut o, r, &arch, &rows);
    }
    crashes(&mut o, &r.crashes);
    let _ = writeln!(o, "</main><script>{SCRIPT}</script></body></html>");
    o
}

fn card(o: &mut String, id: &str, class: &str, num: &str, label: &str, was: Option<String>) {
    let _ = write!(
        o,
        "<div class=\"card {class}\" id=\"{id}\"><span class=\"num\">{}</span>\
         <span class=\"lbl\">{}</span>{}</div>",
        esc(num),
        esc(label),
        was.map(|w| format!("<span class=\"was\">baseline {}</span>", esc(&w)))
            .unwrap_or_default()
    );
}

fn summary(o: &mut String, r: &Report) {
    let s = &r.summary;
    let b = r.comparison.as_ref().map(|c| &c.summary_before);
    o.push_str("<section id=\"summary\"><h2>Summary</h2>\n");
    match &r.comparison {
        Some(c) if c.regressions.is_empty() => {
            let _ = write!(
                o,
                "<div class=\"status ok\" id=\"status\">No regression against <code>{}</code> \
                 ({})</div>",
                esc(&c.baseline),
                esc(&c.baseline_generated)
            );
        }
        Some(c) => {
            let _ = write!(
                o,
                "<div class=\"status bad\" id=\"status\">REGRESSION against <code>{}</code> \
                 ({})<ul>{}</ul></div>",
                esc(&c.baseline),
                esc(&c.baseline_generated),
                c.regressions
                    .iter()
                    .map(|g| format!("<li>{}</li>", esc(g)))
                    .collect::<String>()
            );
        }
        None => {
            o.push_str("<div class=\"status none\" id=\"status\">No baseline given</div>");
        }
    }
    o.push_str("<div class=\"cards\">");
    card(
        o,
        "sum-variants",
        "",
        &s.variants.to_string(),
        &format!("variants in {} tables", s.tables),
        b.map(|b| b.variants.to_string()),
    );
    card(
        o,
        "sum-entries",
        "",
        &s.counts.total.to_string(),
        "oracle words compared",
        b.map(|b| b.counts.total.to_string()),
    );
    card(
        o,
        "sum-agreement",
        "c",
        &pct(s.legal_agreement),
        &format!("legal-text agreement ({})", r.inputs.view),
        b.map(|b| pct(b.legal_agreement)),
    );
    card(
        o,
        "sum-verdict",
        "",
        &pct(s.verdict_agreement),
        "legal/illegal verdict agreement",
        b.map(|b| pct(b.verdict_agreement)),
    );
    card(
        o,
        "sum-as-written",
        "",
        &pct(s.legal_agreement_as_written),
        "legal-text agreement, tables as written",
        b.map(|b| pct(b.legal_agreement_as_written)),
    );
    card(
        o,
        "sum-mismatches",
        "x",
        &s.mismatches.to_string(),
        "mismatching words",
        b.map(|b| b.mismatches.to_string()),
    );
    card(
        o,
        "sum-novariant",
        "u",
        &s.counts.no_variant.to_string(),
        "words no table knows",
        b.map(|b| b.counts.no_variant.to_string()),
    );
    card(
        o,
        "sum-findings",
        "",
        &s.findings.to_string(),
        "findings",
        b.map(|b| b.findings.to_string()),
    );
    card(
        o,
        "sum-bits-c",
        "c",
        &s.bits.confirmed.to_string(),
        "bits confirmed",
        b.map(|b| b.bits.confirmed.to_string()),
    );
    card(
        o,
        "sum-bits-x",
        "x",
        &s.bits.contradicted.to_string(),
        "bits contradicted",
        b.map(|b| b.bits.contradicted.to_string()),
    );
    card(
        o,
        "sum-bits-u",
        "u",
        &s.bits.unseen.to_string(),
        "bits never seen",
        b.map(|b| b.bits.unseen.to_string()),
    );
    card(
        o,
        "sum-crashes",
        if s.fuzz_crashes > 0 { "x" } else { "" },
        &s.fuzz_crashes.to_string(),
        "fuzz crashes",
        b.map(|b| b.fuzz_crashes.to_string()),
    );
    o.push_str("</div>");
    let total = (s.bits.confirmed + s.bits.contradicted + s.bits.unseen).max(1) as f64;
    o.push_str("<div class=\"stack\" title=\"bits of every variant\">");
    for (n, col) in [
        (s.bits.confirmed, "var(--c)"),
        (s.bits.contradicted, "var(--x)"),
        (s.bits.unseen, "var(--u)"),
    ] {
        let _ = write!(
            o,
            "<span style=\"width:{:.3}%;background:{col}\"></span>",
            100.0 * n as f64 / total
        );
    }
    o.push_str("</div><div class=\"legend\">Bit cells on this page:");
    for (c, col, label) in COLOURS {
        let _ = write!(
            o,
            "<i style=\"background:{col}\"></i>{label} <b id=\"rendered-{c}\">…</b>"
        );
    }
    o.push_str(
        " · other <b id=\"rendered-other\">…</b> · total <b id=\"rendered-cells\">…</b> \
         (counted by the browser from each cell's rendered colour)</div>",
    );
    o.push_str("</section>\n");
}

fn mismatch_list(o: &mut String, ms: &[MismatchRow], max: usize) {
    if ms.is_empty() {
        return;
    }
    o.push_str(
        "<table><tr><th>variant</th><th>word</th><th>cause</th><th>ours → nvdisasm</th></tr>",
    );
    for m in ms.iter().take(max) {
        // A word diff where both sides are instruction texts; else both sides as they are.
        let shown = match (&m.ours, m.cause.as_str()) {
            (Some(ours), "text") => diff_html(ours, &m.nvdisasm),
            (Some(ours), _) => format!(
                "<code class=\"diff\"><del>{}</del></code><br>nvdisasm rejects it: \
                 <code class=\"diff\">{}</code>",
                esc(ours),
                esc(&m.nvdisasm)
            ),
            (None, _) => format!(
                "we reject it; nvdisasm: <code class=\"diff\"><ins>{}</ins></code>",
                esc(&m.nvdisasm)
            ),
        };
        let _ = write!(
            o,
            "<tr><td>{}</td><td><code class=\"w\">{}</code></td><td>{} {}</td><td>{shown}</td>\
             </tr>",
            esc(&variant_name(m.arch, &m.key)),
            esc(&m.word),
            esc(&m.cause),
            esc(&m.field),
        );
    }
    o.push_str("</table>");
    if ms.len() > max {
        let _ = write!(o, "<p>… and {} more in report.json</p>", ms.len() - max);
    }
}

fn changes(o: &mut String, c: &super::Comparison) {
    o.push_str("<section id=\"changes\"><h2>Changes since the baseline</h2>\n");
    let head = |o: &mut String, id: &str, title: &str, n: usize| {
        let _ = write!(
            o,
            "<h3 id=\"{id}\">{} <span class=\"count\">({n})</span></h3>",
            esc(title)
        );
    };
    head(
        o,
        "new-mismatches",
        "New mismatches",
        c.new_mismatches.len(),
    );
    mismatch_list(o, &c.new_mismatches, 100);
    head(
        o,
        "fixed-mismatches",
        "Fixed mismatches",
        c.fixed_mismatches.len(),
    );
    mismatch_list(o, &c.fixed_mismatches, 50);
    head(o, "changed-texts", "Changed texts", c.changed_texts.len());
    if !c.changed_texts.is_empty() {
        o.push_str(
            "<table><tr><th>variant</th><th>word</th><th>side</th><th>baseline → now</th></tr>",
        );
        for t in c.changed_texts.iter().take(100) {
            let _ = write!(
                o,
                "<tr><td>{}</td><td><code class=\"w\">{}</code></td><td>{}</td><td>{}</td></tr>",
                esc(&variant_name(t.arch, &t.key)),
                esc(&t.word),
                esc(&t.side),
                diff_html(&t.before, &t.after)
            );
        }
        o.push_str("</table>");
    }
    for (id, title, list) in [
        ("agreement-down", "Agreement down", &c.agreement_down),
        ("agreement-up", "Agreement up", &c.agreement_up),
    ] {
        head(o, id, title, list.len());
        if !list.is_empty() {
            o.push_str(
                "<table><tr><th>variant</th><th>baseline</th><th>now</th><th>words</th></tr>",
            );
            for a in list {
                let _ = write!(
                    o,
                    "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
                     <td class=\"n\">{} → {}</td></tr>",
                    esc(&variant_name(a.arch, &a.key)),
                    pct(a.before),
                    pct(a.after),
                    a.words_before,
                    a.words_after
                );
            }
            o.push_str("</table>");
        }
    }
    head(
        o,
        "bits-changed",
        "Bits whose status changed",
        c.bits_changed.len(),
    );
    if !c.bits_changed.is_empty() {
        o.push_str("<ul>");
        for b in &c.bits_changed {
            let _ = write!(
                o,
                "<li>{}: bits {} <code>{}</code> → <code>{}</code></li>",
                esc(&variant_name(b.arch, &b.key)),
                compact_bits(&b.bits),
                esc(&b.before),
                esc(&b.after)
            );
        }
        o.push_str("</ul>");
    }
    for (id, title, list) in [
        ("new-findings", "New findings", &c.new_findings),
        ("gone-findings", "Gone findings", &c.gone_findings),
    ] {
        head(o, id, title, list.len());
        if !list.is_empty() {
            o.push_str("<ul>");
            for f in list.iter().take(100) {
                let _ = write!(o, "<li><code>{}</code></li>", esc(&f.line_text()));
            }
            o.push_str("</ul>");
        }
    }
    head(o, "new-crashes", "New fuzz crashes", c.new_crashes.len());
    crash_items(o, &c.new_crashes);
    if !c.variants_added.is_empty() || !c.variants_removed.is_empty() {
        let _ = write!(
            o,
            "<p>Variants added: {}. Removed: {}.</p>",
            esc(&c.variants_added.join(", ")),
            esc(&c.variants_removed.join(", "))
        );
    }
    o.push_str("</section>\n");
}

fn mini(v: &VariantRow) -> String {
    let b = &v.bit_counts;
    let t = (b.confirmed + b.contradicted + b.unseen).max(1) as f64;
    let mut s = format!(
        "<span class=\"mini\" title=\"{} confirmed, {} contradicted, {} unseen\">",
        b.confirmed, b.contradicted, b.unseen
    );
    for (n, col) in [
        (b.confirmed, "var(--c)"),
        (b.contradicted, "var(--x)"),
        (b.unseen, "var(--u)"),
    ] {
        let _ = write!(
            s,
            "<span style=\"width:{:.2}%;background:{col}\"></span>",
            100.0 * n as f64 / t
        );
    }
    s.push_str("</span>");
    s
}

fn agreement_cell(x: Option<f64>) -> String {
    match x {
        Some(v) => format!(
            "<span class=\"bar\"><b style=\"width:{:.1}%\"></b></span>{}",
            100.0 * v,
            pct(x)
        ),
        None => "-".into(),
    }
}

fn arch_section(o: &mut String, r: &Report, arch: &str, rows: &[&VariantRow]) {
    let id = format!("arch-{arch}").replace(' ', "_");
    let words: usize = rows.iter().map(|v| v.words_checked).sum();
    let _ = write!(
        o,
        "<section class=\"arch\" id=\"{}\"><h2>{} <span class=\"sub\">{} variants, {} words \
         checked</span></h2>\n<table class=\"variants\"><thead><tr><th>variant</th>\
         <th>mnemonic</th><th>words</th><th>agreement</th><th>as written</th>\
         <th>mismatches</th><th>findings</th><th>crashes</th><th>bits c/x/u</th></tr></thead>\
         <tbody>",
        esc(&id),
        esc(arch),
        rows.len(),
        words
    );
    for v in rows {
        let _ = write!(
            o,
            "<tr data-key=\"{}\"><td><a href=\"#{}\"><code>{}</code></a></td><td>{}</td>\
             <td class=\"n\">{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td><td>{} {}/{}/{}</td></tr>",
            esc(&v.key),
            anchor(v),
            esc(&v.key),
            esc(&v.mnemonic),
            v.words_checked,
            agreement_cell(v.agreement),
            pct(v.agreement_as_written),
            v.mismatches,
            v.findings,
            v.fuzz_crashes,
            mini(v),
            v.bit_counts.confirmed,
            v.bit_counts.contradicted,
            v.bit_counts.unseen
        );
    }
    o.push_str("</tbody></table>\n");
    for v in rows {
        variant_article(o, r, v);
    }
    o.push_str("</section>\n");
}

fn variant_article(o: &mut String, r: &Report, v: &VariantRow) {
    let _ = write!(
        o,
        "<article class=\"variant\" id=\"{}\" data-key=\"{}\"><h3><code>{}</code> \
         <span class=\"sub\">{} · {}:{} · {} words · agreement {} (as written {})</span></h3>",
        anchor(v),
        esc(&v.key),
        esc(&v.key),
        esc(&v.title),
        esc(&v.file),
        v.line,
        v.words_checked,
        pct(v.agreement),
        pct(v.agreement_as_written)
    );
    let answer = match &v.fixed_word_answer {
        Some(a) => format!("nvdisasm: <code>{}</code>", esc(a)),
        None => "never given to nvdisasm".into(),
    };
    let _ = write!(
        o,
        "<p>Fixed word <code>{}</code> — {answer}</p>",
        esc(&v.fixed_word)
    );
    layout_svg(o, v);
    let ms: Vec<MismatchRow> = v
        .mismatch_ix
        .iter()
        .filter_map(|&i| r.mismatches.get(i).cloned())
        .collect();
    if !ms.is_empty() {
        let _ = write!(
            o,
            "<details><summary>{} mismatching words</summary>",
            ms.len()
        );
        mismatch_list(o, &ms, 20);
        o.push_str("</details>");
    }
    let fs: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.file == v.file && f.key == v.key)
        .collect();
    if !fs.is_empty() {
        let _ = write!(o, "<details><summary>{} findings</summary><ul>", fs.len());
        for f in fs.iter().take(40) {
            let _ = write!(
                o,
                "<li><code>{}</code>{}</li>",
                esc(&f.line_text()),
                f.reading
                    .as_ref()
                    .map(|x| format!("<br><small>nvdisasm: {}</small>", esc(x)))
                    .unwrap_or_default()
            );
        }
        o.push_str("</ul></details>");
    }
    let name = v.name();
    let cs: Vec<Crash> = r
        .crashes
        .iter()
        .filter(|c| c.variants.contains(&name))
        .cloned()
        .collect();
    if !cs.is_empty() {
        o.push_str("<p>Fuzz crashes on this variant:</p>");
        crash_items(o, &cs);
    }
    o.push_str("</article>\n");
}

/// The 128-bit picture: per half a lane of field labels above 64 cells, byte ticks below.
fn layout_svg(o: &mut String, v: &VariantRow) {
    let w = LEFT + 64 * CELL + 6;
    let h = 2 * ROW_H + 4;
    let _ = write!(
        o,
        "<svg class=\"layout\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" \
         height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"bit layout of {}\">",
        esc(&v.key)
    );
    let bits: Vec<char> = v.bits.chars().collect();
    let fixed = u128::from_str_radix(&v.fixed_word, 16).unwrap_or(0);
    let ranges = |f: &super::FieldSpan| -> Vec<(usize, usize)> {
        f.bits
            .split(',')
            .filter_map(|r| {
                let (a, b) = r.split_once('-').unwrap_or((r, r));
                Some((a.parse().ok()?, b.parse().ok()?))
            })
            .filter(|&(a, b)| a <= b && b < 128)
            .collect()
    };
    let fixed_mask = u128::from_str_radix(&v.fixed_mask, 16).unwrap_or(0);
    for half in 0..2usize {
        let y0 = half * ROW_H;
        let _ = write!(
            o,
            "<text class=\"rl\" x=\"2\" y=\"{}\">{}–{}</text>",
            y0 + 33,
            64 * half,
            64 * half + 63
        );
        // Field lane.
        for f in &v.fields {
            for (lo, hi) in ranges(f) {
                let (a, b) = (lo.max(64 * half), hi.min(64 * half + 63));
                if a > b {
                    continue;
                }
                let x = LEFT + (a - 64 * half) * CELL;
                let width = (b - a + 1) * CELL - 1;
                let fit = (width.saturating_sub(3)) * 10 / 55;
                let label = if f.label.chars().count() <= fit {
                    f.label.clone()
                } else if fit >= 2 {
                    let t: String = f.label.chars().take(fit - 1).collect();
                    format!("{t}…")
                } else {
                    String::new()
                };
                let _ = write!(
                    o,
                    "<g class=\"fld k-{}\"><title>{}: bits {}</title><rect x=\"{x}\" y=\"{}\" \
                     width=\"{width}\" height=\"14\" rx=\"2\"/>",
                    esc(&f.kind),
                    esc(&f.label),
                    if lo == hi {
                        lo.to_string()
                    } else {
                        format!("{lo}-{hi}")
                    },
                    y0 + 2
                );
                if !label.is_empty() {
                    let _ = write!(
                        o,
                        "<text x=\"{}\" y=\"{}\">{}</text>",
                        x + 2,
                        y0 + 12,
                        esc(&label)
                    );
                }
                o.push_str("</g>");
            }
        }
        // Cells.
        for i in 0..64usize {
            let b = 64 * half + i;
            let s = bits.get(b).copied().unwrap_or(UNSEEN);
            let x = LEFT + i * CELL;
            let y = y0 + 18;
            let note = v.notes.get(b).map(String::as_str).unwrap_or("");
            let _ = write!(
                o,
                "<rect class=\"bit {s}\" data-bit=\"{b}\" x=\"{x}\" y=\"{y}\" width=\"{CELL}\" \
                 height=\"20\"><title>{}</title></rect>",
                esc(note)
            );
            if fixed_mask >> b & 1 == 1 {
                let _ = write!(
                    o,
                    "<text class=\"fv\" x=\"{}\" y=\"{}\">{}</text>",
                    x + 4,
                    y + 14,
                    fixed >> b & 1
                );
            }
        }
        for byte in 0..8usize {
            let _ = write!(
                o,
                "<text class=\"tick\" x=\"{}\" y=\"{}\">{}</text>",
                LEFT + byte * 8 * CELL + 1,
                y0 + 50,
                64 * half + 8 * byte
            );
        }
    }
    o.push_str("</svg>");
}

fn crash_items(o: &mut String, cs: &[Crash]) {
    if cs.is_empty() {
        return;
    }
    o.push_str("<ul>");
    for c in cs {
        let _ = write!(
            o,
            "<li><b>{}</b> <code>{}</code> ({}, {} bytes{}){}<br>reproduce: <code>{}</code>{}</li>",
            esc(&c.target),
            esc(&c.file),
            esc(&c.kind),
            c.size,
            if c.minimized { ", minimised" } else { "" },
            if c.variants.is_empty() {
                String::new()
            } else {
                format!(" on {}", esc(&c.variants.join(", ")))
            },
            esc(&c.reproduce),
            c.message
                .as_ref()
                .map(|m| format!("<br><small>{}</small>", esc(&cut(m, 300))))
                .unwrap_or_default()
        );
    }
    o.push_str("</ul>");
}

fn crashes(o: &mut String, cs: &[Crash]) {
    let _ = write!(
        o,
        "<section id=\"crashes\"><h2>Fuzz crashes <span class=\"sub\">({})</span></h2>",
        cs.len()
    );
    if cs.is_empty() {
        o.push_str("<p>None kept (corpus/regressions, fuzz/artifacts).</p>");
    }
    crash_items(o, cs);
    o.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_diffs() {
        assert_eq!(esc("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
        assert_eq!(
            diff_html("TLD R1 ;", "TLD R2 ;"),
            "<code class=\"diff\">TLD <del>R1</del><ins>R2</ins> ;</code>"
        );
        assert_eq!(
            diff_html("@P0 LD.EF.U8 R0 ;", "@P0 LD.E.EF.U8 R0 ;"),
            "<code class=\"diff\">@P0 LD.<ins>E.</ins>EF.U8 R0 ;</code>"
        );
    }
}
