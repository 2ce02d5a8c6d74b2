//! `scan` on the committed ptxas cubins (corpus/cubins), offline against the recorded nvdisasm
//! answers (oracle/cubins): exact counts per arch, the coverage gaps, the seeds; and a clean
//! error for a file that is not a cubin. Needs neither ptxas nor nvdisasm.

use sass_conform::Arch;
use sass_conform::codec::Codec;
use sass_conform::conform::scan::{
    ArchSummary, Live, ScanError, ScanOptions, ScanReport, read_cubin, scan_paths,
};
use sass_conform::render::Renderer;
use sass_conform::spec::load_tables;
use std::path::PathBuf;
use std::process::Command;

fn codec() -> Codec {
    Codec::new(load_tables(&[PathBuf::from("specs")], None).unwrap()).unwrap()
}

fn offline(paths: &[&str]) -> Result<ScanReport, ScanError> {
    let codec = codec();
    let r = Renderer::new(&codec);
    let opts = ScanOptions {
        paths: paths.iter().map(PathBuf::from).collect(),
        oracle: Some(PathBuf::from("oracle/cubins")),
        live: Live::Never,
        ..ScanOptions::default()
    };
    scan_paths(&codec, &r, None, &opts)
}

fn arch(report: &ScanReport, a: u16) -> &ArchSummary {
    report.archs.iter().find(|s| s.arch == Arch(a)).unwrap()
}

/// (instructions, tabled, matched, unmatched, compared, agree) of an arch.
fn counts(s: &ArchSummary) -> [usize; 6] {
    [
        s.instructions,
        s.tabled,
        s.matched,
        s.unmatched,
        s.compared,
        s.agree,
    ]
}

#[test]
fn committed_cubins_scan_offline() {
    let rep = offline(&["corpus/cubins"]).unwrap();
    assert_eq!(rep.files.len(), 35);
    // Every word has a recorded answer: the recordings match the committed cubins.
    assert_eq!(rep.answers.words, 13337);
    assert_eq!(rep.answers.recorded, 13337);
    assert_eq!(rep.answers.missing, 0);
    assert_eq!(rep.answers.live, 0);
    assert_eq!(rep.archs.len(), 3);

    // Pinned figures of the tables as written, against nvdisasm 13.5.37's recorded answers.
    let sm80 = arch(&rep, 80);
    assert_eq!(counts(sm80), [6184, 497, 1, 496, 497, 0]);
    assert_eq!(sm80.tables, ["LD"]);
    assert_eq!(sm80.claimed_elsewhere, 10); // LDG words the LD table's opcode bits claim
    assert_eq!(sm80.no_table_here.get("TEX"), Some(&235));
    assert_eq!(sm80.no_table_here.get("TLD"), Some(&71));
    assert_eq!(sm80.no_table_here.get("TLD4"), Some(&256));

    let sm90 = arch(&rep, 90);
    assert_eq!(counts(sm90), [5976, 256, 256, 0, 256, 41]);
    assert_eq!(sm90.tables, ["TLD4", "TMML"]);
    // TEX and TLD words: before each variant's own opcode bits counted, the 281 of them were
    // claimed by the bits 0-11 all TLD4 variants share.
    assert_eq!(sm90.claimed_elsewhere, 0);
    assert_eq!(sm90.no_table_here.get("LD"), Some(&525));
    assert!(!sm90.variants.keys().any(|k| k.starts_with("TMML")));

    let sm100 = arch(&rep, 100);
    assert_eq!(counts(sm100), [5976, 281, 0, 281, 281, 0]);
    assert_eq!(sm100.tables, ["TEX", "TLD"]);
    assert_eq!(sm100.no_table_here.get("LD"), Some(&525));
    assert_eq!(sm100.no_table_here.get("TLD4"), Some(&256));

    // The coverage gaps: SM80 LD words set bit 76 (no UR operand), which every LD variant
    // fixes to 0; SM100 TEX/TLD words hold 0xff in bits 48..=55, which the tables fix to 0.
    let ld = rep
        .gaps
        .iter()
        .find(|g| g.arch == Arch(80) && g.key == "LD_R_R_UR_I" && g.bits == [76])
        .unwrap();
    assert_eq!(ld.count, 432);
    assert!(!ld.opcode_differs);
    assert_eq!(
        ld.nvdisasm.as_deref(),
        Some("LD.E.NA.128 R12, [R26.64+0x370] ;")
    );
    let tex = rep
        .gaps
        .iter()
        .find(|g| g.arch == Arch(100) && g.key == "TEX_P_R_R_R_R_UR_D_I")
        .unwrap();
    assert_eq!(tex.bits, (48..=55).collect::<Vec<u8>>());
    let unmatched: usize = rep.gaps.iter().map(|g| g.count).sum();
    assert_eq!(unmatched, 496 + 281);

    // Every tabled word is listed, with nvdisasm's text; agreement is exact text equality.
    assert_eq!(rep.words.len(), 497 + 256 + 281);
    for w in &rep.words {
        assert!(w.nvdisasm.is_some(), "{}", w.word);
        assert_eq!(
            w.agree,
            Some(w.ours.is_some() && w.ours == w.nvdisasm),
            "{}",
            w.word
        );
    }
    let mismatched: usize = rep.mismatches.iter().map(|m| m.count).sum();
    assert_eq!(mismatched, (497 + 256 + 281) - 41);

    // Step 4: every matched word is a committed roundtrip seed.
    for w in rep.words.iter().filter(|w| w.matched) {
        let seed = PathBuf::from(format!("corpus/roundtrip/cubin-{}-{}", w.key, w.word));
        assert!(seed.is_file(), "missing seed {}", seed.display());
    }
}

#[test]
fn arch_comes_from_e_flags() {
    for (dir, a, flags) in [
        ("sm80", 80, 0x6005004),
        ("sm90", 90, 0x6005a04),
        ("sm100", 100, 0x6006402),
    ] {
        let c = read_cubin(&PathBuf::from(format!("corpus/cubins/{dir}/tld4.cubin"))).unwrap();
        assert_eq!(c.arch, Arch(a));
        assert_eq!(c.e_flags, flags);
        let names: Vec<&str> = c.kernels.iter().map(|k| k.name.as_str()).collect();
        assert!(names.contains(&"tld4_components"), "{names:?}");
    }
}

#[test]
fn garbage_is_a_clean_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.cubin");
    std::fs::write(&junk, b"\x7fELF but not really a cubin, just bytes").unwrap();
    let e = offline(&[junk.to_str().unwrap()]).unwrap_err();
    assert!(matches!(e, ScanError::NotCubin { .. }), "{e:?}");
    assert!(e.to_string().contains("junk.cubin"), "{e}");

    let empty = tempfile::tempdir().unwrap();
    let e = offline(&[empty.path().to_str().unwrap()]).unwrap_err();
    assert!(e.to_string().starts_with("no .cubin file in"), "{e}");

    let out = Command::new(env!("CARGO_BIN_EXE_sass-conform"))
        .args(["scan", "--offline"])
        .arg(&junk)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("junk.cubin: not a readable cubin"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn cli_prints_the_counts() {
    let out = Command::new(env!("CARGO_BIN_EXE_sass-conform"))
        .args(["scan", "--offline", "corpus/cubins"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    // The CLI reads with the resolved tables and the learned reading (never learned from
    // these words) agree on every tabled word, SM80 LD words with bit 76 set (ptxas's "no
    // uniform register", a form bit of the reading) included.
    for row in [
        [
            "SM80", "11", "38", "6184", "497", "497", "0", "497/497", "(100.0%)",
        ],
        [
            "SM90", "12", "39", "5976", "256", "256", "0", "256/256", "(100.0%)",
        ],
        [
            "SM100", "12", "39", "5976", "281", "281", "0", "281/281", "(100.0%)",
        ],
    ] {
        assert!(
            text.lines()
                .any(|l| l.split_whitespace().collect::<Vec<_>>() == row),
            "{row:?} not in {text}"
        );
    }
    assert!(text.contains("no table on SM80 for: TEX 235, TLD 71, TLD4 256"));
}

/// Bytes of a one-kernel cubin beyond its 16-byte words (the fake's cubin pass counts words).
fn cubin_overhead() -> usize {
    use sass_conform::oracle::build_cubin;
    let one = build_cubin(Arch(80), &[&[1u128][..]]).unwrap().len();
    one - 16
}

/// A fake nvdisasm in `dir` that appends each invocation's arguments to `dir/calls`: its
/// version is 13.5.37, the cubin pass calls every word legal (the trailing marker illegal),
/// the raw pass answers `NOP ;` for every word.
fn logging_nvdisasm(dir: &std::path::Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join("nvdisasm");
    let script = format!(
        r#"#!/bin/bash
echo "$*" >> {calls}
if [ "$1" = "--version" ]; then echo "Cuda compilation tools, release 13.5, V13.5.37"; exit 0; fi
f="${{@: -1}}"
size=$(stat -c%s "$f")
if [ "$1" = "-c" ]; then
  n=$(( (size - {overhead}) / 16 ))
  printf "nvdisasm error   : Unrecognized operation for functional unit 'uC' at address 0x%08x\n" $(( (n - 1) * 16 )) >&2
  echo "nvdisasm error   : Illegal instruction found" >&2
  exit 1
fi
base=$4
n=$(( size / 16 ))
printf '\t.headerflags\t@"EF_CUDA_SM80"\n'
for ((i = 0; i < n; i++)); do printf '        /*%x*/    NOP ;\n' $(( base + 16 * i )); done
"#,
        calls = dir.join("calls").display(),
        overhead = cubin_overhead(),
    );
    std::fs::write(&p, script).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

#[test]
fn record_asks_only_for_words_not_recorded() {
    use sass_conform::oracle::build_cubin;
    let d = tempfile::tempdir().unwrap();
    let nv = logging_nvdisasm(d.path());
    let calls = d.path().join("calls");
    let words = [0x7918u128, 0x7918 | 1 << 100, 0x7918 | 2 << 100];
    let a = d.path().join("a.cubin");
    std::fs::write(&a, build_cubin(Arch(80), &[&words[..]]).unwrap()).unwrap();
    let rec = d.path().join("oracle/cubins");
    let (rs, nvs) = (rec.to_str().unwrap(), nv.to_str().unwrap());
    let scan = |cubins: &[&std::path::Path]| {
        let mut args = vec!["scan".to_string()];
        args.extend(cubins.iter().map(|c| c.to_str().unwrap().to_string()));
        args.extend(["--record", rs, "--nvdisasm", nvs].map(String::from));
        let out = Command::new(env!("CARGO_BIN_EXE_sass-conform"))
            .args(&args)
            .output()
            .unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
        let asked = std::fs::read_to_string(&calls).unwrap_or_default();
        let _ = std::fs::remove_file(&calls);
        (stdout.lines().next().unwrap_or("").to_string(), asked)
    };
    let read = |rel: &str| std::fs::read(d.path().join(rel)).unwrap();

    // First run: every word is asked and recorded.
    let (head, asked) = scan(&[&a]);
    assert_eq!(
        head,
        format!(
            "1 cubins; nvdisasm answers for 3 distinct words: 0 recorded ({rs}), 3 live \
             (nvdisasm 13.5.37), 0 none"
        )
    );
    assert!(asked.lines().any(|l| l.starts_with("-c ")), "{asked}");
    let tsv = read("oracle/cubins/sm80.tsv");
    let manifest = read("oracle/MANIFEST.json");
    assert_eq!(String::from_utf8_lossy(&tsv).lines().count(), 4);

    // Second run: every word is recorded; nvdisasm is never run, nothing is rewritten.
    let (head, asked) = scan(&[&a]);
    assert_eq!(
        head,
        format!(
            "1 cubins; nvdisasm answers for 3 distinct words: 3 recorded ({rs}), 0 live, 0 none"
        )
    );
    assert_eq!(asked, "");
    assert_eq!(read("oracle/cubins/sm80.tsv"), tsv);
    assert_eq!(read("oracle/MANIFEST.json"), manifest);

    // A cubin with one more word: only that word is asked; the recorded rows stay.
    let b = d.path().join("b.cubin");
    let more = [words[0], 0x7918 | 3 << 100];
    std::fs::write(&b, build_cubin(Arch(80), &[&more[..]]).unwrap()).unwrap();
    let (head, asked) = scan(&[&b]);
    assert_eq!(
        head,
        format!(
            "1 cubins; nvdisasm answers for 2 distinct words: 1 recorded ({rs}), 1 live \
             (nvdisasm 13.5.37), 0 none"
        )
    );
    assert!(!asked.is_empty());
    let rows = String::from_utf8(read("oracle/cubins/sm80.tsv")).unwrap();
    assert_eq!(rows.lines().count(), 5, "{rows}");
    let (code, out, err) = {
        let o = Command::new(env!("CARGO_BIN_EXE_sass-conform"))
            .args(["oracle", "manifest", "--oracle"])
            .arg(d.path().join("oracle"))
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8(o.stdout).unwrap(),
            String::from_utf8(o.stderr).unwrap(),
        )
    };
    assert_eq!(code, Some(0), "{err}");
    let o = d.path().join("oracle");
    assert_eq!(
        out,
        format!(
            "{}: 1 files, 4 entries: all match {}\n",
            o.display(),
            o.join("MANIFEST.json").display()
        )
    );
}
