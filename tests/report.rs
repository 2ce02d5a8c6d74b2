//! `sass-conform report` on the committed data: the four files with real values, a changed
//! oracle answer reported as a regression naming its variant (exit 1), and the HTML page as
//! headless Chromium renders it.

use sass_conform::Arch;
use sass_conform::codec::{Codec, Verdict, Word};
use sass_conform::conform::lint;
use sass_conform::conform::resolve::bit_findings;
use sass_conform::oracle::{
    Answer, is_evidence_file, load_entries_where, read_entries, write_entries,
};
use sass_conform::reading::flips::{Answers, read_bits};
use sass_conform::reading::resolved::ResolvedSet;
use sass_conform::spec::load_tables;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const TLD: &str = "TLD_P_R_R_R_R_UR_D_I";
const TLD_FIXED: u128 = 0x00000000080000000000000000000f66;

/// A fresh folder `target/tmp/report-<name>-<pid>` (test runs of this checkout may overlap);
/// folders of test processes that are gone are removed first.
fn scratch(name: &str) -> PathBuf {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    if let Ok(rd) = std::fs::read_dir(tmp) {
        for e in rd.flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            let pid = n.rsplit('-').next().and_then(|p| p.parse::<u32>().ok());
            if let Some(pid) = pid.filter(|_| n.starts_with("report-"))
                && pid != std::process::id()
                && !Path::new(&format!("/proc/{pid}")).exists()
            {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    let d = tmp.join(format!("report-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn sass_conform(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sass-conform"))
        .args(args)
        .output()
        .expect("running sass-conform")
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The report of the committed data (tables, oracle/, resolved/; no crash folder), made once.
fn base() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = scratch("base");
        let no_crashes = d.join("no-crashes");
        let out = d.join("out");
        let o = sass_conform(&[
            "report",
            "--out",
            out.to_str().unwrap(),
            "--crashes",
            no_crashes.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", text(&o));
        out
    })
}

fn json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn written_codec() -> Codec {
    Codec::new(load_tables(&[PathBuf::from("specs")], None).unwrap()).unwrap()
}

#[test]
fn report_of_the_committed_data() {
    let out = base();
    for f in ["report.json", "report.csv", "report.md", "report.html"] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let r = json(&out.join("report.json"));
    assert_eq!(r["schema"], "sass-conform-report/1");
    assert_eq!(r["inputs"]["view"], "resolved");
    let s = &r["summary"];
    assert_eq!(s["tables"], 5);
    assert_eq!(s["variants"], 143);
    assert_eq!(r["variants"].as_array().unwrap().len(), 143);
    assert_eq!(s["archs"], serde_json::json!(["SM80", "SM90", "SM100"]));

    // Every recorded entry of the evidence files (not oracle/arch-infer/, answers for other
    // archs) is compared, once, in one of the six outcomes; the same counts as `diff`.
    let entries = load_entries_where("oracle", is_evidence_file).unwrap();
    let c = &s["counts"];
    assert_eq!(c["total"], entries.len());
    assert_eq!(c["total"], 626_971);
    assert_eq!(c["matched"], 435_264);
    assert_eq!(c["agree_illegal"], 177_969);
    assert_eq!(c["text_mismatch"], 0);
    // The headline: the check split per table (never learned from).
    let f = &s["figures"];
    assert_eq!(f["check SM80 LD"]["matched"], 3238);
    assert_eq!(f["ptxas SM80"]["matched"], 495);
    assert_eq!(f["check SM90 TLD4"]["matched"], 68060);
    assert_eq!(f["ptxas SM100"]["matched"], 253);
    let outcomes = [
        "matched",
        "agree_illegal",
        "text_mismatch",
        "oracle_illegal_we_decode",
        "we_reject_oracle_decodes",
        "no_variant",
    ];
    let sum: u64 = outcomes.iter().map(|k| c[k].as_u64().unwrap()).sum();
    assert_eq!(sum, entries.len() as u64);
    // Listed: every mismatching entry attributed to a variant; that includes every entry a
    // variant decodes that disagrees, and never more than all disagreements.
    let mismatches = r["mismatches"].as_array().unwrap();
    assert_eq!(s["mismatches"], mismatches.len());
    let n = |k: &str| c[k].as_u64().unwrap();
    let listed = mismatches.len() as u64;
    assert!(listed >= n("text_mismatch") + n("oracle_illegal_we_decode"));
    assert!(listed <= n("total") - n("matched") - n("agree_illegal"));
    for m in mismatches {
        let cause = m["cause"].as_str().unwrap();
        assert!(
            ["text", "oracle-illegal", "we-reject", "no-variant"].contains(&cause),
            "{m}"
        );
    }
    // The resolved view agrees far better than the tables as written.
    let agreement = s["legal_agreement"].as_f64().unwrap();
    let as_written = s["legal_agreement_as_written"].as_f64().unwrap();
    assert!(agreement > 0.9, "{agreement}");
    assert!(as_written < 0.5, "{as_written}");
    // Every variant's fixed word was recorded and nvdisasm accepts it.
    assert_eq!(s["fixed_words_legal"], 143);
    // 128 bits per variant, each confirmed, contradicted or unseen.
    let b = &s["bits"];
    let bits = b["confirmed"].as_u64().unwrap()
        + b["contradicted"].as_u64().unwrap()
        + b["unseen"].as_u64().unwrap();
    assert_eq!(bits, 143 * 128);
    assert!(b["contradicted"].as_u64().unwrap() > 1000, "{b}");
    assert_eq!(s["fuzz_crashes"], 0);

    // The findings are lint's plus resolve's.
    let codec = written_codec();
    let answers = Answers::new(&entries);
    let readings = read_bits(&codec, &answers);
    let lint_f = lint(&codec);
    let bit_f = bit_findings(&codec, &readings);
    let form_f = sass_conform::conform::forms::form_findings(&codec, &answers);
    assert_eq!(form_f.len(), 4);
    assert_eq!(s["findings"], lint_f.len() + bit_f.len() + form_f.len());
    let tld_findings = lint_f
        .iter()
        .chain(&bit_f)
        .filter(|f| f.key == TLD && f.file.ends_with("sm100/TLD.txt"))
        .count();
    assert!(tld_findings > 0);

    // The TLD variant: nvdisasm's recorded text for its fixed word, its opcode bits confirmed,
    // its words those whose fixed bits match it (or nearest to it).
    let row = r["variants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["key"] == TLD)
        .unwrap();
    assert_eq!(row["arch"], "SM100");
    assert_eq!(row["fixed_word"], "00000000080000000000000000000f66");
    assert_eq!(
        row["fixed_word_answer"],
        "@P0 TLD.LZ.EF P0, R0, R0, R0, R0, UR0, 1D, 0x0 ;"
    );
    let row_bits = row["bits"].as_str().unwrap();
    assert_eq!(row_bits.len(), 128);
    assert_eq!(&row_bits[..12], "cccccccccccc");
    let words = expected_words(&codec, &entries, TLD, Arch(100));
    assert!(words >= 200, "{words}");
    assert_eq!(row["words_checked"], words);
    assert_eq!(row["findings"], tld_findings);
    let rc = &row["counts"];
    let legal = rc["matched"].as_u64().unwrap()
        + rc["text_mismatch"].as_u64().unwrap()
        + rc["we_reject_oracle_decodes"].as_u64().unwrap()
        + rc["no_variant"].as_u64().unwrap();
    let agreement = rc["matched"].as_u64().unwrap() as f64 / legal as f64;
    assert!((row["agreement"].as_f64().unwrap() - agreement).abs() < 1e-12);

    // The CSV: a header and one row per variant; TLD's row carries the same values.
    let csv = std::fs::read_to_string(out.join("report.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 144);
    assert_eq!(
        lines[0],
        "arch,key,mnemonic,words_checked,agreement_pct,agreement_as_written_pct,mismatches,\
         findings,fuzz_crashes,bits_confirmed,bits_contradicted,bits_unseen,file,line"
    );
    let tld_row = lines
        .iter()
        .find(|l| l.starts_with(&format!("SM100,{TLD},")))
        .unwrap();
    let cols: Vec<&str> = tld_row.split(',').collect();
    assert_eq!(cols[2], "TLD");
    assert_eq!(cols[3], words.to_string());
    assert_eq!(cols[4], format!("{:.2}", 100.0 * agreement));
    assert_eq!(cols[6], row["mismatches"].to_string());
    assert_eq!(cols[7], tld_findings.to_string());
    assert_eq!(cols[8], "0");
    let (c, x, u): (usize, usize, usize) = (
        cols[9].parse().unwrap(),
        cols[10].parse().unwrap(),
        cols[11].parse().unwrap(),
    );
    assert_eq!(c + x + u, 128);
    assert_eq!(c, row_bits.matches('c').count());
    assert_eq!(cols[12], "specs/sm100/TLD.txt");

    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("## Summary"));
    assert!(
        md.contains(&format!("| `{TLD}` | {words} |")),
        "TLD row missing in md"
    );

    // Compared with itself: no regression, exit 0, said on the last line.
    let again = scratch("self");
    let baseline = out.join("report.json");
    let o = sass_conform(&[
        "report",
        "--out",
        again.to_str().unwrap(),
        "--baseline",
        baseline.to_str().unwrap(),
        "--crashes",
        again.join("none").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        stdout.lines().last().unwrap(),
        format!("no regression against {}", baseline.display())
    );
    let _ = std::fs::remove_dir_all(&again);
}

/// Entries attributed to `key`: its fixed bits as written match (alone or with others), or,
/// matching no variant as written, the resolved view decodes it as `key` or names `key` the
/// nearest variant.
fn expected_words(
    codec: &Codec,
    entries: &[sass_conform::oracle::Entry],
    key: &str,
    arch: Arch,
) -> usize {
    let tables = load_tables(&[PathBuf::from("specs")], None).unwrap();
    let view = Codec::new(
        ResolvedSet::read(Path::new("resolved/tables.json"), &tables)
            .unwrap()
            .tables,
    )
    .unwrap();
    let id = codec.find_key(key, Some(arch)).unwrap();
    entries
        .iter()
        .filter(|e| e.arch == arch)
        .filter(|e| {
            let w = Word(e.word);
            if let Some(d) = codec.decode(arch, w) {
                return d.id == id || d.others().contains(&id);
            }
            if let Some(d) = view.decode(arch, w) {
                return d.id == id;
            }
            for c in [&view, codec] {
                if let Verdict::ReservedBit { key: k, .. } = c.check(arch, w) {
                    return k == key;
                }
            }
            false
        })
        .count()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn a_changed_oracle_answer_is_a_regression_naming_its_variant() {
    let base_json = base().join("report.json");
    let base = json(&base_json);
    let d = scratch("changed");
    let oracle = d.join("oracle");
    copy_dir(Path::new("oracle"), &oracle);

    // A TLD word nvdisasm accepts and we reproduce, away from the fixed word (so the bit
    // readings stay as they are): nvdisasm "now" prints another register.
    let codec = written_codec();
    let id = codec.find_key(TLD, Some(Arch(100))).unwrap();
    let path = oracle.join("sm100/TLD.tsv");
    let mut entries = read_entries(&path).unwrap();
    let listed: Vec<&str> = base["mismatches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["word"].as_str().unwrap())
        .collect();
    let i = entries
        .iter()
        .position(|e| {
            let hex = Word(e.word).to_string();
            matches!(&e.answer, Answer::Text(t) if t.contains(", R0,"))
                && (e.word ^ TLD_FIXED).count_ones() > 1
                && codec
                    .decode(Arch(100), Word(e.word))
                    .is_some_and(|d| d.id == id && d.others().is_empty())
                && !listed.contains(&hex.as_str())
        })
        .expect("a matched TLD word");
    let word = Word(entries[i].word).to_string();
    let Answer::Text(t) = &entries[i].answer else {
        unreachable!()
    };
    let changed = t.replacen(", R0,", ", R42,", 1);
    entries[i].answer = Answer::Text(changed.clone());
    write_entries(&path, &mut entries).unwrap();
    // An intended edit of a recording is registered in MANIFEST.json (else it is refused).
    let upd = sass_conform(&[
        "oracle",
        "manifest",
        "--update",
        "--oracle",
        oracle.to_str().unwrap(),
    ]);
    assert_eq!(upd.status.code(), Some(0), "{}", text(&upd));

    let out = d.join("out");
    let o = sass_conform(&[
        "report",
        "--oracle",
        oracle.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--baseline",
        base_json.to_str().unwrap(),
        "--crashes",
        d.join("none").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let last = stdout.lines().last().unwrap();
    assert!(last.starts_with("regression: "), "{last}");
    assert!(
        last.contains(&format!("1 new mismatch in SM100 {TLD}")),
        "{last}"
    );
    assert!(
        last.contains(&format!("agreement down in SM100 {TLD}")),
        "{last}"
    );
    assert!(last.contains(&word), "{last}");

    let r = json(&out.join("report.json"));
    let c = &r["comparison"];
    assert_eq!(c["new_mismatches"].as_array().unwrap().len(), 1);
    let m = &c["new_mismatches"][0];
    assert_eq!(m["word"], word.as_str());
    assert_eq!(m["key"], TLD);
    assert_eq!(m["nvdisasm"], changed.as_str());
    assert!(
        m["diff"].as_str().unwrap().contains("[-R0,-]{+R42,+}"),
        "{m}"
    );
    assert_eq!(c["agreement_down"].as_array().unwrap().len(), 1);
    assert_eq!(c["agreement_down"][0]["key"], TLD);
    assert!(c["fixed_mismatches"].as_array().unwrap().is_empty());
    assert!(c["new_findings"].as_array().unwrap().is_empty());
    assert!(c["bits_changed"].as_array().unwrap().is_empty());

    // The page and the Markdown say so too, with the word diff.
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("class=\"status bad\" id=\"status\">REGRESSION"));
    assert!(
        html.contains("<del>R0</del><ins>R42</ins>"),
        "diff missing in html"
    );
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("**REGRESSION**"));
    assert!(md.contains(&format!("- SM100 {TLD} word `{word}`")));
    let _ = std::fs::remove_dir_all(&d);
}

/// A Chromium binary: $CHROMIUM, else `chromium`, `chromium-browser`, `google-chrome` on PATH.
fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// Runs headless Chromium on `page` with `extra` arguments; kills it after 120 s.
fn run_chromium(bin: &Path, page: &Path, extra: &[String]) -> Output {
    let profile = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(bin);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
    ])
    .arg(format!("--user-data-dir={}", profile.path().display()))
    .args(extra)
    .arg(format!("file://{}", page.canonicalize().unwrap().display()))
    // Files, not pipes: a dump larger than a pipe buffer would block Chromium.
    .stdout(std::fs::File::create(profile.path().join("stdout")).unwrap())
    .stderr(std::fs::File::create(profile.path().join("stderr")).unwrap());
    let mut child = cmd.spawn().expect("starting chromium");
    let start = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish in 120 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    Output {
        status,
        stdout: std::fs::read(profile.path().join("stdout")).unwrap(),
        stderr: std::fs::read(profile.path().join("stderr")).unwrap(),
    }
}

/// The text of the element with `id` in serialised HTML (first text run after its tag).
fn text_of(dom: &str, id: &str) -> String {
    let i = dom
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id}"));
    let start = i + dom[i..].find('>').unwrap() + 1;
    let end = start + dom[start..].find('<').unwrap();
    dom[start..end].to_string()
}

#[test]
fn html_renders_in_headless_chromium() {
    let Some(bin) = chromium() else {
        if std::env::var_os("CI").is_some() {
            panic!("CI must run the Chromium test: install `chromium` (scripts/setup does)");
        }
        eprintln!(
            "SKIPPED html_renders_in_headless_chromium: no chromium on PATH (apt-get install \
             chromium, or set CHROMIUM=/path/to/chrome)"
        );
        return;
    };
    let out = base();
    let r = json(&out.join("report.json"));
    let page = out.join("report.html");
    let o = run_chromium(&bin, &page, &["--dump-dom".to_string()]);
    assert!(o.status.success(), "{}", text(&o));
    let dom = String::from_utf8_lossy(&o.stdout);
    assert!(dom.len() > 100_000, "dump too short: {}", dom.len());

    // The summary at the top, as rendered.
    let s = &r["summary"];
    let num = |id: &str| {
        let i = dom.find(&format!("id=\"{id}\"")).unwrap();
        let j = i + dom[i..].find("class=\"num\"").unwrap();
        let a = j + dom[j..].find('>').unwrap() + 1;
        dom[a..a + dom[a..].find('<').unwrap()].to_string()
    };
    assert_eq!(num("sum-variants"), "143");
    assert_eq!(num("sum-entries"), s["counts"]["total"].to_string());
    assert_eq!(num("sum-findings"), s["findings"].to_string());
    assert_eq!(
        num("sum-agreement"),
        format!("{:.2}%", 100.0 * s["legal_agreement"].as_f64().unwrap())
    );
    assert_eq!(num("sum-bits-x"), s["bits"]["contradicted"].to_string());
    assert!(text_of(&dom, "status").contains("No baseline"));

    // A table per arch, a 128-cell picture per variant.
    assert_eq!(dom.matches("<section class=\"arch\"").count(), 3);
    assert_eq!(dom.matches("<table class=\"variants\">").count(), 3);
    assert_eq!(dom.matches("<svg class=\"layout\"").count(), 143);
    let cells = dom.matches("<rect class=\"bit ").count();
    assert_eq!(cells, 143 * 128);
    let b = &s["bits"];
    for (class, key) in [("c", "confirmed"), ("x", "contradicted"), ("u", "unseen")] {
        assert_eq!(
            dom.matches(&format!("<rect class=\"bit {class}\"")).count() as u64,
            b[key].as_u64().unwrap(),
            "{key} cells"
        );
        // The page's script counted the cells by the colour the browser gave them.
        assert_eq!(
            text_of(&dom, &format!("rendered-{class}")),
            b[key].to_string(),
            "{key} cells by rendered colour"
        );
    }
    assert_eq!(text_of(&dom, "rendered-other"), "0");
    assert_eq!(text_of(&dom, "rendered-cells"), cells.to_string());
    // The TLD picture: labelled fields, its opcode bits confirmed.
    let i = dom
        .find(&format!("aria-label=\"bit layout of {TLD}\""))
        .unwrap();
    let svg = &dom[i..i + dom[i..].find("</svg>").unwrap()];
    assert!(
        svg.contains(">operand 1<") || svg.contains(">operand 1"),
        "labels"
    );
    assert!(svg.contains("<rect class=\"bit c\" data-bit=\"0\""));

    // A screenshot, kept for people to look at.
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-screenshot.png");
    let _ = std::fs::remove_file(&shot);
    let o = run_chromium(
        &bin,
        &page,
        &[
            format!("--screenshot={}", shot.display()),
            "--window-size=1280,2400".to_string(),
            "--hide-scrollbars".to_string(),
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let png = std::fs::read(&shot).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert!(png.len() > 50_000, "screenshot of {} bytes", png.len());
    eprintln!("screenshot: {}", shot.display());
}
