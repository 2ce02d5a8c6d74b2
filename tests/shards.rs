//! Shards, offline: `synth --shard 1/2` and `--shard 2/2` on recorded nvdisasm answers
//! (tests/data/synth/SM90-S2R-ISETP.tsv and SM90-RET-EXIT.tsv, the real words of four
//! mnemonics given with `--words`), joined by `shards merge`, equal the unsharded run file
//! for file; and the merge's refusals.

use sass_conform::Arch;
use sass_conform::oracle::{read_entries, write_entries};
use sass_conform::synth;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::recorded_cubins;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sass-conform"))
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{cmd:?} failed: {err}");
    String::from_utf8_lossy(&out.stdout).into_owned() + &err
}

/// Every file under `dir`, relative path -> bytes.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(
                    p.strip_prefix(dir).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                );
            }
        }
    }
    out
}

/// An oracle folder with both recordings, and a word list of the four mnemonics' real words.
fn prepare(tmp: &Path) -> (PathBuf, PathBuf) {
    let arch: Arch = "SM90".parse().unwrap();
    let mut rec = read_entries("tests/data/synth/SM90-S2R-ISETP.tsv").unwrap();
    rec.extend(read_entries("tests/data/synth/SM90-RET-EXIT.tsv").unwrap());
    let recorded: HashSet<u128> = rec.iter().map(|e| e.word).collect();
    let words: Vec<u128> = synth::corpus_words(&recorded_cubins(), arch)
        .unwrap()
        .into_iter()
        .filter(|w| recorded.contains(w))
        .collect();
    let oracle = tmp.join("oracle");
    write_entries(oracle.join("synth/SM90.tsv"), &mut rec).unwrap();
    let list = tmp.join("words.txt");
    let text: String = words.iter().map(|w| format!("{w:032x}\n")).collect();
    std::fs::write(&list, format!("# real words of S2R ISETP RET EXIT\n{text}")).unwrap();
    (oracle, list)
}

fn synth(oracle: &Path, list: &Path, out: &Path, shard: Option<&str>) -> String {
    let mut c = bin();
    c.args(["synth", "--arch", "SM90", "--offline", "--oracle"])
        .arg(oracle)
        .arg("--words")
        .arg(list)
        .arg("--out")
        .arg(out);
    if let Some(s) = shard {
        c.args(["--shard", s]);
    }
    run(&mut c)
}

#[test]
fn two_shards_merge_into_the_unsharded_run() {
    let tmp = tempfile::tempdir().unwrap();
    let (oracle, list) = prepare(tmp.path());
    let all = tmp.path().join("all");
    let s1 = tmp.path().join("s1");
    let s2 = tmp.path().join("s2");
    // The merge goes where a synth folder keeps an arch's tables, for matrix-report below.
    let merged = tmp.path().join("synth").join("SM90");
    synth(&oracle, &list, &all, None);
    let log1 = synth(&oracle, &list, &s1, Some("1/2"));
    let log2 = synth(&oracle, &list, &s2, Some("2/2"));
    assert!(log1.contains("; shard 1/2"), "{log1}");
    // The four mnemonics sorted (EXIT ISETP RET S2R): EXIT and RET to shard 1.
    let names = |d: &Path| -> Vec<String> {
        tree(d)
            .keys()
            .filter_map(|p| p.to_str()?.strip_suffix(".txt").map(str::to_string))
            .collect()
    };
    assert_eq!(names(&all), ["EXIT", "ISETP", "RET", "S2R"]);
    assert_eq!(names(&s1), ["EXIT", "RET"]);
    assert_eq!(names(&s2), ["ISETP", "S2R"]);
    assert!(log2.contains("SM90\tISETP\t6 variants"), "{log2}");

    let said = run(bin()
        .args(["shards", "merge", "--out"])
        .arg(&merged)
        .arg(&s1)
        .arg(&s2));
    assert!(
        said.contains("2 shards -> ") && said.contains("5 files copied, 1 merged"),
        "{said}"
    );
    let (want, got) = (tree(&all), tree(&merged));
    assert_eq!(
        want.keys().collect::<Vec<_>>(),
        got.keys().collect::<Vec<_>>()
    );
    for (p, w) in &want {
        assert!(
            got[p] == *w,
            "{} differs:\n--- unsharded\n{}\n--- merged\n{}",
            p.display(),
            String::from_utf8_lossy(w),
            String::from_utf8_lossy(&got[p])
        );
    }
    // VARIANTS.tsv: the header and one row per variant of the four tables.
    let v = String::from_utf8_lossy(&got[Path::new("VARIANTS.tsv")]).into_owned();
    assert_eq!(v.lines().count(), 1 + 1 + 6 + 1 + 1, "{v}");

    // The matrix report of the merged folder, with one learned row: an index and 4 pages.
    std::fs::write(
        tmp.path().join("synth/MATRIX.tsv"),
        "arch\tmnemonic\tvariants\tcheck_legal_text\tcheck_verdict\tfindings\troot_causes\tlearn_seconds\n\
         SM90\tS2R\t1\t100.000% (605/605)\t100.000%\t4\t4\t9\n",
    )
    .unwrap();
    let report = tmp.path().join("report");
    let said = run(bin()
        .args(["matrix-report", "--synth"])
        .arg(tmp.path().join("synth"))
        .arg("--out")
        .arg(&report));
    assert!(
        said.contains("SM90: 4 tables, 1 learned, 1 >= 99.9% on both")
            && said.contains("matrix-report: 6 files"),
        "{said}"
    );
    let index = std::fs::read_to_string(report.join("index.html")).unwrap();
    assert!(
        index.contains("<td class=\"ok\"><a href=\"tables/SM90-S2R.html\">100.0%</a></td>")
            && index
                .contains("<td class=\"not\"><a href=\"tables/SM90-ISETP.html\">table</a></td>"),
        "{index}"
    );
    let page = std::fs::read_to_string(report.join("tables/SM90-ISETP.html")).unwrap();
    assert!(page.contains("<h2>Variants (VARIANTS.tsv)</h2>") && page.contains("ISETP_P_P_R_R_P"));

    // A table two shards hold with different bytes is refused, naming both.
    std::fs::write(s2.join("EXIT.txt"), "EXIT\n").unwrap();
    let out = bin()
        .args(["shards", "merge", "--out"])
        .arg(tmp.path().join("bad"))
        .arg(&s1)
        .arg(&s2)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("EXIT.txt: the shards hold different files")
            && err.contains(&s1.join("EXIT.txt").display().to_string())
            && err.contains(&s2.join("EXIT.txt").display().to_string()),
        "{err}"
    );
}

#[test]
fn a_bad_shard_is_a_clear_error() {
    let out = bin()
        .args([
            "synth",
            "--arch",
            "SM90",
            "--offline",
            "--shard",
            "3/2",
            "--out",
            "/tmp/x",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("bad shard `3/2`: I is out of 1..=N (expected I/N with 1 <= I <= N"),
        "{err}"
    );
    // The bundled tables share oracle/ and resolved/: a shard of them needs a workspace.
    let out = bin().args(["learn", "--shard", "1/2"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("--shard needs a workspace of its own per shard (--workspace DIR)"),
        "{err}"
    );
    let out = bin()
        .args(["campaign", "--words", "10", "--shard", "1/0"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad shard `1/0`: N is 0"), "{err}");
}
