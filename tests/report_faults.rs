//! Issue 12, items 6, 7 and 10: the report refuses baselines of another schema, writes its four
//! files as a set, reads a repeated oracle folder once, and escapes untrusted names in
//! report.md. Runs on a small oracle folder (40 recorded TLD rows) so each report is quick.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh folder `target/tmp/report-faults-<name>-<pid>`.
fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("report-faults-{name}-{}", std::process::id()));
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

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `d/oracle`: the header and first 40 rows of oracle/sm100/TLD.tsv, registered in its
/// MANIFEST.json.
fn small_oracle(d: &Path) -> PathBuf {
    let oracle = d.join("oracle");
    std::fs::create_dir_all(oracle.join("sm100")).unwrap();
    let all = std::fs::read_to_string("oracle/sm100/TLD.tsv").unwrap();
    let rows: String = all.lines().take(41).map(|l| format!("{l}\n")).collect();
    let tsv = oracle.join("sm100/TLD.tsv");
    std::fs::write(&tsv, rows).unwrap();
    let o = sass_conform(&[
        "oracle",
        "manifest",
        "--update",
        "--add",
        tsv.to_str().unwrap(),
        "--nvdisasm-version",
        "13.5.37",
        "--oracle",
        oracle.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    oracle
}

/// `report --out out --crashes <none>` plus `extra`.
fn report(d: &Path, out: &Path, extra: &[&str]) -> Output {
    let none = d.join("no-crashes");
    let mut args = vec![
        "report",
        "--out",
        out.to_str().unwrap(),
        "--crashes",
        none.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    sass_conform(&args)
}

fn json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn a_baseline_of_another_schema_or_none_is_refused() {
    let d = scratch("schema");
    let oracle = small_oracle(&d);
    let out = d.join("out");
    let o = report(&d, &out, &["--oracle", oracle.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let good: Value = json(&out.join("report.json"));
    assert_eq!(good["schema"], "sass-conform-report/1");

    let cases: [(&str, Option<Value>, &str); 4] = [
        (
            "v0",
            Some("sass-conform-report/0".into()),
            "`sass-conform-report/0`",
        ),
        (
            "v2",
            Some("sass-conform-report/2".into()),
            "`sass-conform-report/2`",
        ),
        ("number", Some(1.into()), "`1`"),
        ("none", None, "missing"),
    ];
    for (name, schema, found) in cases {
        let mut base = good.clone();
        match schema {
            Some(s) => base["schema"] = s,
            None => {
                base.as_object_mut().unwrap().remove("schema");
            }
        }
        let path = d.join(format!("baseline-{name}.json"));
        std::fs::write(&path, serde_json::to_vec(&base).unwrap()).unwrap();
        let again = d.join(format!("out-{name}"));
        let o = report(
            &d,
            &again,
            &[
                "--oracle",
                oracle.to_str().unwrap(),
                "--baseline",
                path.to_str().unwrap(),
            ],
        );
        assert_eq!(o.status.code(), Some(2), "{name}: {}", text(&o));
        assert_eq!(
            stderr(&o),
            format!(
                "sass-conform: error: {}: schema is {found}, expected \
                 `sass-conform-report/1`; refusing it as a baseline\n",
                path.display()
            ),
            "{name}"
        );
        assert!(!again.exists(), "{name}: nothing written");
    }
    // The same report as a baseline is accepted.
    let o = report(
        &d,
        &d.join("out-same"),
        &[
            "--oracle",
            oracle.to_str().unwrap(),
            "--baseline",
            out.join("report.json").to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_report_file_that_cannot_be_written_leaves_the_previous_set() {
    let d = scratch("atomic");
    let oracle = small_oracle(&d);
    let out = d.join("out");
    let old: Vec<(&str, &str)> = vec![
        ("report.json", "{\"old\": 1}\n"),
        ("report.csv", "old csv\n"),
        ("report.md", "# old\n"),
    ];
    std::fs::create_dir_all(&out).unwrap();
    for (n, t) in &old {
        std::fs::write(out.join(n), t).unwrap();
    }
    // report.html cannot be replaced: a folder (not empty) stands in its place.
    std::fs::create_dir_all(out.join("report.html")).unwrap();
    std::fs::write(out.join("report.html/keep"), "x").unwrap();
    let o = report(&d, &out, &["--oracle", oracle.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert_eq!(
        stderr(&o),
        format!(
            "sass-conform: error: {}: is a folder, not a report file\n",
            out.join("report.html").display()
        )
    );
    for (n, t) in &old {
        assert_eq!(std::fs::read_to_string(out.join(n)).unwrap(), *t, "{n}");
    }
    // Nothing else is left behind: no staging folder, no temp file.
    assert_eq!(
        names(&out),
        ["report.csv", "report.html", "report.json", "report.md"]
    );
    assert_eq!(names(&out.join("report.html")), ["keep"]);

    // Once the way is clear the whole new set is written, and only it.
    std::fs::remove_dir_all(out.join("report.html")).unwrap();
    let o = report(&d, &out, &["--oracle", oracle.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(
        names(&out),
        ["report.csv", "report.html", "report.json", "report.md"]
    );
    assert_eq!(
        json(&out.join("report.json"))["schema"],
        "sass-conform-report/1"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn an_oracle_folder_named_twice_is_read_once() {
    let d = scratch("dedup");
    let oracle = small_oracle(&d);
    let x = oracle.to_str().unwrap().to_string();
    let link = d.join("link");
    std::os::unix::fs::symlink(&oracle, &link).unwrap();
    let dotted = format!("{}/./", x);
    let sub = format!("{x}/sm100");
    let cases: [(&str, Vec<&str>); 5] = [
        ("once", vec![&x]),
        ("twice", vec![&x, &x]),
        ("dotted", vec![&x, &dotted]),
        ("symlink", vec![&x, link.to_str().unwrap()]),
        ("nested", vec![&x, &sub]),
    ];
    for (name, dirs) in cases {
        let out = d.join(format!("out-{name}"));
        let mut args = Vec::new();
        for dir in &dirs {
            args.extend(["--oracle", dir]);
        }
        let o = report(&d, &out, &args);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", text(&o));
        let r = json(&out.join("report.json"));
        assert_eq!(r["summary"]["counts"]["total"], 40, "{name}");
        let entries: Vec<u64> = r["inputs"]["oracle"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["entries"].as_u64().unwrap())
            .collect();
        let expected: &[u64] = if name == "nested" { &[40, 0] } else { &[40] };
        assert_eq!(entries, expected, "{name}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn report_md_escapes_fuzz_target_names_and_baseline_keys() {
    let d = scratch("md");
    let oracle = small_oracle(&d);
    let out = d.join("out");
    let o = report(&d, &out, &["--oracle", oracle.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    // A baseline whose variant key is HTML, and a crash folder whose target name is HTML.
    let mut base = json(&out.join("report.json"));
    base["variants"][0]["key"] = "<script>alert(1)</script>".into();
    let baseline = d.join("baseline.json");
    std::fs::write(&baseline, serde_json::to_vec(&base).unwrap()).unwrap();
    let crashes = d.join("crashes");
    let target = crashes.join("<img src=x onerror=alert(2)>");
    std::fs::create_dir_all(&target).unwrap();
    std::fs::write(target.join("crash-`x`<b>"), [0u8; 16]).unwrap();

    let out2 = d.join("out2");
    let o = sass_conform(&[
        "report",
        "--out",
        out2.to_str().unwrap(),
        "--oracle",
        oracle.to_str().unwrap(),
        "--baseline",
        baseline.to_str().unwrap(),
        "--crashes",
        crashes.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let md = std::fs::read_to_string(out2.join("report.md")).unwrap();
    // Outside code spans (which Markdown shows literally) there is no `<` at all.
    let outside: String = md.split('`').step_by(2).collect();
    assert!(!outside.contains('<'), "raw HTML in report.md:\n{md}");
    assert!(
        md.contains("&lt;script&gt;alert\\(1\\)&lt;/script&gt;"),
        "baseline key escaped:\n{md}"
    );
    let file = format!("{}/crash-'x'<b>", target.display());
    assert!(
        md.contains(&format!(
            "- &lt;img src=x onerror=alert\\(2\\)&gt; `{file}` (crash, 16 bytes): reproduce \
             with `cargo fuzz run <img src=x onerror=alert(2)> {file}`\n"
        )),
        "crash line:\n{md}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// A table that does not load is named in report.md and report.html (the figures are without
/// it), and the command exits 1.
#[test]
fn a_skipped_table_is_named_in_the_report() {
    let d = scratch("skipped");
    let oracle = small_oracle(&d);
    let specs = d.join("specs");
    std::fs::create_dir_all(specs.join("sm100")).unwrap();
    std::fs::copy("specs/sm100/TLD.txt", specs.join("sm100/TLD.txt")).unwrap();
    std::fs::write(specs.join("sm100/BAD.txt"), "two words\n").unwrap();
    let out = d.join("out");
    let o = report(
        &d,
        &out,
        &[
            "--oracle",
            oracle.to_str().unwrap(),
            "--specs",
            specs.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("**1 table skipped** (not read; every figure below is without it):\n\n- "),
        "{md}"
    );
    assert!(
        md.contains("BAD.txt:1: expected a mnemonic \\(letters")
            && md.contains("found \\`two words\\`"),
        "{md}"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<section id=\"skipped\">"), "{html}");
    assert!(html.contains(
        "BAD.txt:1: expected a mnemonic (letters, digits, `_`, at most 64 bytes), found `two words`"
    ));
}
