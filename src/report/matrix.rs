//! The report for hundreds of tables (issue 22): an index page (arch x mnemonic: variants,
//! check split, verdict, findings, root causes) linking one small page per table, instead of
//! one report.html holding everything.
//!
//! Input: a synth folder as `sass-conform synth` (or `shards merge`) writes it:
//! `DIR/MATRIX.tsv` (one row per learned table), `DIR/<ARCH>/<MNEMONIC>.txt` (the tables),
//! `DIR/<ARCH>/VARIANTS.tsv` (evidence per variant) and, when kept,
//! `DIR/<ARCH>/.learn/<MNEMONIC>/learn.log`. Output: `index.html`, `index.md` and
//! `tables/<ARCH>-<MNEMONIC>.html`.

use super::ReportError;
use super::html::esc;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The figure at or above which a table is `ok` (legal text and verdict, in percent).
pub const GOAL_PERCENT: f64 = 99.9;

/// One row of MATRIX.tsv.
#[derive(Debug, Clone, PartialEq)]
pub struct MatrixRow {
    /// `SM90`.
    pub arch: String,
    /// `S2R`.
    pub mnemonic: String,
    /// Variants of the table.
    pub variants: String,
    /// Check-split legal text, as written (`100.000% (605/605)`), or `-`.
    pub legal_text: String,
    /// Check-split verdict (`100.000%`), or `-`.
    pub verdict: String,
    /// Findings nvdisasm proves.
    pub findings: String,
    /// Their root causes.
    pub root_causes: String,
    /// Seconds the learn took.
    pub learn_seconds: String,
}

impl MatrixRow {
    /// `ok` (both figures at or above [`GOAL_PERCENT`]), `below`, or `not learned` (no
    /// figure).
    pub fn class(&self) -> &'static str {
        match (percent(&self.legal_text), percent(&self.verdict)) {
            (Some(t), Some(v)) if t >= GOAL_PERCENT && v >= GOAL_PERCENT => "ok",
            (Some(_), Some(_)) => "below",
            _ => "not learned",
        }
    }
}

/// The number before the first `%` (`99.5% (3/4)` -> 99.5).
pub fn percent(s: &str) -> Option<f64> {
    s.split('%').next()?.trim().parse().ok()
}

/// Reads MATRIX.tsv. Errors: unreadable, a header that is not the matrix's, a row with
/// another number of columns (naming the file and line).
pub fn read_matrix(path: &Path) -> Result<Vec<MatrixRow>, ReportError> {
    let text = std::fs::read_to_string(path).map_err(|source| ReportError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_matrix(path, &text)
}

/// [`read_matrix`] on text already read (`path` names it in errors).
pub fn parse_matrix(path: &Path, text: &str) -> Result<Vec<MatrixRow>, ReportError> {
    let bad = |line: usize, message: String| ReportError::Json {
        path: path.to_path_buf(),
        line,
        message,
    };
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, h)) if h.starts_with("arch\tmnemonic\tvariants\tcheck_legal_text") => {}
        _ => {
            return Err(bad(
                1,
                "not a synth matrix: the header must start `arch\tmnemonic\tvariants\tcheck_legal_text`".into(),
            ));
        }
    }
    let mut out = Vec::new();
    for (i, l) in lines {
        if l.trim().is_empty() || l.starts_with('#') {
            continue;
        }
        let c: Vec<&str> = l.split('\t').collect();
        if c.len() != 8 {
            return Err(bad(i + 1, format!("{} columns, expected 8", c.len())));
        }
        out.push(MatrixRow {
            arch: c[0].into(),
            mnemonic: c[1].into(),
            variants: c[2].into(),
            legal_text: c[3].into(),
            verdict: c[4].into(),
            findings: c[5].into(),
            root_causes: c[6].into(),
            learn_seconds: c[7].into(),
        });
    }
    Ok(out)
}

/// One table: its row (when learned), its text, its VARIANTS.tsv rows, its learn log.
#[derive(Debug, Clone)]
pub struct TableEntry {
    /// `SM90`.
    pub arch: String,
    /// `S2R`.
    pub mnemonic: String,
    /// The MATRIX.tsv row, if the table was learned.
    pub row: Option<MatrixRow>,
    /// The table file's text (empty when only the matrix names it).
    pub text: String,
    /// Its VARIANTS.tsv rows, split into columns (header first when any).
    pub variants: Vec<Vec<String>>,
    /// The tail of its learn.log (the findings), when kept.
    pub log: Option<String>,
}

impl TableEntry {
    /// The page's file name: `SM90-S2R.html`.
    pub fn page(&self) -> String {
        format!("{}-{}.html", self.arch, self.mnemonic)
    }

    /// Variants: the matrix's, else VARIANTS.tsv's row count.
    pub fn variant_count(&self) -> String {
        match &self.row {
            Some(r) => r.variants.clone(),
            None => self.variants.len().saturating_sub(1).to_string(),
        }
    }
}

/// Lines of a learn log kept on a table's page (its end: the figures and findings).
pub const LOG_LINES: usize = 120;

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ReportError + '_ {
    move |source| ReportError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Reads a synth folder (see the module doc): one entry per table file or matrix row,
/// sorted by (arch, mnemonic). Errors: unreadable files, a malformed matrix.
pub fn collect(dir: &Path) -> Result<Vec<TableEntry>, ReportError> {
    let mut rows: BTreeMap<(String, String), MatrixRow> = BTreeMap::new();
    let m = dir.join("MATRIX.tsv");
    if m.is_file() {
        for r in read_matrix(&m)? {
            rows.insert((r.arch.clone(), r.mnemonic.clone()), r);
        }
    }
    let mut out: BTreeMap<(String, String), TableEntry> = BTreeMap::new();
    let mut archs: Vec<PathBuf> = Vec::new();
    for e in std::fs::read_dir(dir).map_err(io(dir))? {
        let p = e.map_err(io(dir))?.path();
        if p.is_dir() && p.join("VARIANTS.tsv").is_file() {
            archs.push(p);
        }
    }
    archs.sort();
    for adir in archs {
        let arch = adir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let vpath = adir.join("VARIANTS.tsv");
        let vtext = std::fs::read_to_string(&vpath).map_err(io(&vpath))?;
        let mut vlines = vtext.lines();
        let header: Vec<String> = vlines
            .next()
            .unwrap_or("")
            .split('\t')
            .map(str::to_string)
            .collect();
        let mut by_mn: BTreeMap<String, Vec<Vec<String>>> = BTreeMap::new();
        for l in vlines {
            let c: Vec<String> = l.split('\t').map(str::to_string).collect();
            if c.len() >= 2 {
                by_mn.entry(c[1].clone()).or_default().push(c);
            }
        }
        let mut files: Vec<PathBuf> = std::fs::read_dir(&adir)
            .map_err(io(&adir))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "txt"))
            .collect();
        files.sort();
        for f in files {
            let mn = f
                .file_stem()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let text = std::fs::read_to_string(&f).map_err(io(&f))?;
            let mut variants = Vec::new();
            if let Some(v) = by_mn.remove(&mn) {
                variants.push(header.clone());
                variants.extend(v);
            }
            let logp = adir.join(".learn").join(&mn).join("learn.log");
            let log = std::fs::read_to_string(&logp).ok().map(|l| {
                let lines: Vec<&str> = l.lines().collect();
                lines[lines.len().saturating_sub(LOG_LINES)..].join("\n")
            });
            let key = (arch.clone(), mn.clone());
            out.insert(
                key.clone(),
                TableEntry {
                    arch: arch.clone(),
                    mnemonic: mn,
                    row: rows.remove(&key),
                    text,
                    variants,
                    log,
                },
            );
        }
    }
    for ((arch, mn), r) in rows {
        out.insert(
            (arch.clone(), mn.clone()),
            TableEntry {
                arch,
                mnemonic: mn,
                row: Some(r),
                text: String::new(),
                variants: Vec::new(),
                log: None,
            },
        );
    }
    Ok(out.into_values().collect())
}

/// Per arch: tables, learned, ok, the median and worst legal text of those learned.
#[derive(Debug, Clone, PartialEq)]
pub struct ArchSummary {
    /// `SM90`.
    pub arch: String,
    /// Tables (files or rows).
    pub tables: usize,
    /// With check-split figures.
    pub learned: usize,
    /// At or above [`GOAL_PERCENT`] on both.
    pub ok: usize,
    /// Median legal text of the learned tables, percent.
    pub median_legal_text: Option<f64>,
    /// Worst legal text, percent, and the table.
    pub worst_legal_text: Option<(f64, String)>,
}

/// The per-arch summaries of `entries`, archs in the order of the number in their name.
pub fn summaries(entries: &[TableEntry]) -> Vec<ArchSummary> {
    let mut archs: Vec<&str> = entries
        .iter()
        .map(|e| e.arch.as_str())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    archs.sort_by_key(|a| (arch_number(a), a.to_string()));
    archs
        .into_iter()
        .map(|a| {
            let mine: Vec<&TableEntry> = entries.iter().filter(|e| e.arch == a).collect();
            let mut figures: Vec<(f64, &str)> = mine
                .iter()
                .filter_map(|e| {
                    let r = e.row.as_ref()?;
                    percent(&r.verdict)?;
                    Some((percent(&r.legal_text)?, e.mnemonic.as_str()))
                })
                .collect();
            figures.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(y.1)));
            let median = (!figures.is_empty()).then(|| {
                let n = figures.len();
                if n % 2 == 1 {
                    figures[n / 2].0
                } else {
                    (figures[n / 2 - 1].0 + figures[n / 2].0) / 2.0
                }
            });
            ArchSummary {
                arch: a.to_string(),
                tables: mine.len(),
                learned: figures.len(),
                ok: mine
                    .iter()
                    .filter(|e| e.row.as_ref().is_some_and(|r| r.class() == "ok"))
                    .count(),
                median_legal_text: median,
                worst_legal_text: figures.first().map(|(p, m)| (*p, m.to_string())),
            }
        })
        .collect()
}

fn arch_number(a: &str) -> u32 {
    a.trim_start_matches(|c: char| !c.is_ascii_digit())
        .trim_end_matches(|c: char| !c.is_ascii_digit())
        .parse()
        .unwrap_or(u32::MAX)
}

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse}\
td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}th{background:#eee;position:sticky;top:0}\
.ok{background:#d9f2d9}.below{background:#f9d6d0}.not{background:#f2f2f2;color:#777}\
td.n{text-align:right}pre{background:#f7f7f7;padding:.5em;overflow-x:auto;font-size:12px}";

fn class_css(c: &str) -> &'static str {
    match c {
        "ok" => "ok",
        "below" => "below",
        _ => "not",
    }
}

/// The index page: the per-arch summary, the arch x mnemonic grid (legal text, coloured by
/// verdict class, each cell linking to the table's page), then every table's row.
pub fn index_html(entries: &[TableEntry], title: &str) -> String {
    let sums = summaries(entries);
    let archs: Vec<String> = sums.iter().map(|s| s.arch.clone()).collect();
    let mut o = String::new();
    let _ = write!(
        o,
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{t}</title><style>{STYLE}</style></head><body><h1>{t}</h1>",
        t = esc(title)
    );
    let _ = write!(
        o,
        "<p>{} tables. A table is <span class=\"ok\">ok</span> when its check-split legal text and verdict are both &ge; {GOAL_PERCENT}%, <span class=\"below\">below</span> otherwise; <span class=\"not\">not learned</span> tables have no figure.</p>",
        entries.len()
    );
    o.push_str("<h2>Per arch</h2><table><tr><th>arch</th><th>tables</th><th>learned</th><th>ok</th><th>legal text median</th><th>worst</th></tr>");
    for s in &sums {
        let _ = write!(
            o,
            "<tr><td>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td><td>{}</td></tr>",
            esc(&s.arch),
            s.tables,
            s.learned,
            s.ok,
            s.median_legal_text
                .map_or("-".into(), |p| format!("{p:.3}%")),
            s.worst_legal_text
                .as_ref()
                .map_or("-".into(), |(p, m)| format!("{p:.3}% ({})", esc(m)))
        );
    }
    o.push_str(
        "</table><h2>Arch x mnemonic (check-split legal text)</h2><table><tr><th>mnemonic</th>",
    );
    for a in &archs {
        let _ = write!(o, "<th>{}</th>", esc(a));
    }
    o.push_str("</tr>");
    let by_key: BTreeMap<(&str, &str), &TableEntry> = entries
        .iter()
        .map(|e| ((e.arch.as_str(), e.mnemonic.as_str()), e))
        .collect();
    let mnemonics: BTreeSet<&str> = entries.iter().map(|e| e.mnemonic.as_str()).collect();
    for m in mnemonics {
        let _ = write!(o, "<tr><td>{}</td>", esc(m));
        for a in &archs {
            match by_key.get(&(a.as_str(), m)) {
                None => o.push_str("<td></td>"),
                Some(e) => {
                    let (cls, fig) = match &e.row {
                        Some(r) => (
                            r.class(),
                            percent(&r.legal_text).map_or("-".into(), |p| format!("{p:.1}%")),
                        ),
                        None => ("not learned", "table".to_string()),
                    };
                    let _ = write!(
                        o,
                        "<td class=\"{}\"><a href=\"tables/{}\">{}</a></td>",
                        class_css(cls),
                        esc(&e.page()),
                        fig
                    );
                }
            }
        }
        o.push_str("</tr>");
    }
    o.push_str("</table><h2>Every table</h2><table><tr><th>arch</th><th>mnemonic</th><th>variants</th><th>check-split legal text</th><th>verdict</th><th>findings</th><th>root causes</th><th>learn s</th><th>class</th></tr>");
    for e in entries {
        let r = e.row.as_ref();
        let cell = |f: fn(&MatrixRow) -> &String| r.map_or("-".to_string(), |r| esc(f(r)));
        let cls = r.map_or("not learned", MatrixRow::class);
        let _ = write!(
            o,
            "<tr class=\"{}\"><td>{}</td><td><a href=\"tables/{}\">{}</a></td><td class=n>{}</td><td>{}</td><td>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td><td>{}</td></tr>",
            class_css(cls),
            esc(&e.arch),
            esc(&e.page()),
            esc(&e.mnemonic),
            esc(&e.variant_count()),
            cell(|r| &r.legal_text),
            cell(|r| &r.verdict),
            cell(|r| &r.findings),
            cell(|r| &r.root_causes),
            cell(|r| &r.learn_seconds),
            cls
        );
    }
    o.push_str("</table></body></html>\n");
    o
}

/// The index in Markdown (for a CI run's summary): the per-arch summary and the learned
/// tables below the goal.
pub fn index_md(entries: &[TableEntry], title: &str) -> String {
    let mut o = format!(
        "# {title}\n\n| arch | tables | learned | ok (>= {GOAL_PERCENT}% both) | legal text median | worst |\n|---|---:|---:|---:|---:|---|\n"
    );
    for s in summaries(entries) {
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} | {} |",
            s.arch,
            s.tables,
            s.learned,
            s.ok,
            s.median_legal_text
                .map_or("-".into(), |p| format!("{p:.3}%")),
            s.worst_legal_text
                .map_or("-".into(), |(p, m)| format!("{p:.3}% ({m})"))
        );
    }
    let below: Vec<&TableEntry> = entries
        .iter()
        .filter(|e| e.row.as_ref().is_some_and(|r| r.class() == "below"))
        .collect();
    let _ = write!(
        o,
        "\n{} learned tables below {GOAL_PERCENT}%:\n\n| table | variants | legal text | verdict | findings (root causes) |\n|---|---:|---|---|---|\n",
        below.len()
    );
    for e in below {
        let r = e.row.as_ref().expect("filtered on a row");
        let _ = writeln!(
            o,
            "| {} {} | {} | {} | {} | {} ({}) |",
            e.arch, e.mnemonic, r.variants, r.legal_text, r.verdict, r.findings, r.root_causes
        );
    }
    o
}

/// One table's page: its figures, its variants' evidence, its learn log's end, its text.
pub fn table_html(e: &TableEntry) -> String {
    let mut o = String::new();
    let t = format!("{} {}", e.arch, e.mnemonic);
    let _ = write!(
        o,
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{t}</title><style>{STYLE}</style></head><body><p><a href=\"../index.html\">index</a></p><h1>{t}</h1>",
        t = esc(&t)
    );
    match &e.row {
        Some(r) => {
            let _ = write!(
                o,
                "<table><tr><th>variants</th><th>check-split legal text</th><th>verdict</th><th>findings</th><th>root causes</th><th>learn s</th><th>class</th></tr><tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr></table>",
                class_css(r.class()),
                esc(&r.variants),
                esc(&r.legal_text),
                esc(&r.verdict),
                esc(&r.findings),
                esc(&r.root_causes),
                esc(&r.learn_seconds),
                r.class()
            );
        }
        None => o.push_str("<p>Not learned: no row in MATRIX.tsv.</p>"),
    }
    if !e.variants.is_empty() {
        o.push_str("<h2>Variants (VARIANTS.tsv)</h2><table>");
        for (i, row) in e.variants.iter().enumerate() {
            o.push_str("<tr>");
            for c in row {
                if i == 0 {
                    let _ = write!(o, "<th>{}</th>", esc(c));
                } else {
                    let _ = write!(o, "<td>{}</td>", esc(c));
                }
            }
            o.push_str("</tr>");
        }
        o.push_str("</table>");
    }
    if let Some(l) = &e.log {
        let _ = write!(
            o,
            "<h2>learn.log (last {LOG_LINES} lines: figures and findings)</h2><pre>{}</pre>",
            esc(l)
        );
    }
    if !e.text.is_empty() {
        let _ = write!(o, "<h2>The table</h2><pre>{}</pre>", esc(&e.text));
    }
    o.push_str("</body></html>\n");
    o
}

/// Writes `index.html`, `index.md` and `tables/<ARCH>-<MNEMONIC>.html` into `out`; returns
/// the files written. Errors: I/O.
pub fn write(entries: &[TableEntry], out: &Path, title: &str) -> Result<Vec<PathBuf>, ReportError> {
    let tables = out.join("tables");
    std::fs::create_dir_all(&tables).map_err(io(&tables))?;
    let mut written = Vec::new();
    let mut put = |p: PathBuf, s: String| -> Result<(), ReportError> {
        std::fs::write(&p, s).map_err(io(&p))?;
        written.push(p);
        Ok(())
    };
    put(out.join("index.html"), index_html(entries, title))?;
    put(out.join("index.md"), index_md(entries, title))?;
    for e in entries {
        put(tables.join(e.page()), table_html(e))?;
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(arch: &str, mn: &str, text: &str, verdict: &str) -> MatrixRow {
        MatrixRow {
            arch: arch.into(),
            mnemonic: mn.into(),
            variants: "2".into(),
            legal_text: text.into(),
            verdict: verdict.into(),
            findings: "7".into(),
            root_causes: "3".into(),
            learn_seconds: "12".into(),
        }
    }

    #[test]
    fn matrix_rows_classes_and_errors() {
        let p = Path::new("m.tsv");
        let t = "arch\tmnemonic\tvariants\tcheck_legal_text\tcheck_verdict\tfindings\troot_causes\tlearn_seconds\nSM80\tS2R\t1\t100.000% (605/605)\t100.000%\t4\t4\t9\n";
        let rows = parse_matrix(p, t).unwrap();
        assert_eq!(
            rows,
            [{
                let mut r = row("SM80", "S2R", "100.000% (605/605)", "100.000%");
                r.variants = "1".into();
                r.findings = "4".into();
                r.root_causes = "4".into();
                r.learn_seconds = "9".into();
                r
            }]
        );
        assert_eq!(rows[0].class(), "ok");
        assert_eq!(row("a", "b", "99.8% (1/2)", "100%").class(), "below");
        assert_eq!(row("a", "b", "-", "-").class(), "not learned");
        let e = parse_matrix(p, &format!("{t}SM80\tMOV\t1\n")).unwrap_err();
        assert_eq!(e.to_string(), "m.tsv:3: 3 columns, expected 8");
        let e = parse_matrix(p, "word\tarch\n").unwrap_err();
        assert!(
            e.to_string().starts_with("m.tsv:1: not a synth matrix"),
            "{e}"
        );
    }

    #[test]
    fn summaries_and_pages() {
        let entry = |arch: &str, mn: &str, r: Option<MatrixRow>| TableEntry {
            arch: arch.into(),
            mnemonic: mn.into(),
            row: r,
            text: format!("{mn}\n"),
            variants: Vec::new(),
            log: None,
        };
        let es = vec![
            entry(
                "SM100",
                "BRA",
                Some(row("SM100", "BRA", "0.000% (0/35)", "100%")),
            ),
            entry("SM80", "BRA", None),
            entry(
                "SM80",
                "LD",
                Some(row("SM80", "LD", "20.7% (1/5)", "89.2%")),
            ),
            entry(
                "SM80",
                "S2R",
                Some(row("SM80", "S2R", "100.000% (5/5)", "100%")),
            ),
            entry(
                "SM80",
                "MOV",
                Some(row("SM80", "MOV", "99.000% (99/100)", "100%")),
            ),
        ];
        let s = summaries(&es);
        assert_eq!(s[0].arch, "SM80");
        assert_eq!(
            (s[0].tables, s[0].learned, s[0].ok, s[0].median_legal_text),
            (4, 3, 1, Some(99.0))
        );
        assert_eq!(s[0].worst_legal_text, Some((20.7, "LD".to_string())));
        assert_eq!((s[1].arch.as_str(), s[1].ok), ("SM100", 0));
        let html = index_html(&es, "synth matrix");
        assert!(
            html.contains("<td class=\"below\"><a href=\"tables/SM80-LD.html\">20.7%</a></td>")
        );
        assert!(html.contains("<td class=\"not\"><a href=\"tables/SM80-BRA.html\">table</a></td>"));
        let md = index_md(&es, "synth matrix");
        assert!(
            md.contains("| SM80 | 4 | 3 | 1 | 99.000% | 20.700% (LD) |"),
            "{md}"
        );
        assert!(md.contains("3 learned tables below 99.9%"), "{md}");
        let page = table_html(&es[2]);
        assert!(
            page.contains("<td>20.7% (1/5)</td><td>89.2%</td>"),
            "{page}"
        );
        assert!(page.contains("<a href=\"../index.html\">index</a>"));
    }
}
