//! The binary away from the repository (as after `cargo install --path .`): the bundled
//! tables and resolved view are found without flags, the recorded oracle through the
//! repository the binary was built from, and `--version` names the oracle's nvdisasm.

use std::process::Command;

/// Runs the built binary in `dir` (a directory holding no specs/, resolved/ or oracle/).
fn run_in(dir: &std::path::Path, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sass-conform"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("binary runs");
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn decode_works_from_another_directory_with_the_bundled_tables() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, out, err) = run_in(
        dir.path(),
        &[
            "decode",
            "--arch",
            "SM80",
            "00000000080000000008000000000980",
        ],
    );
    assert!(ok, "{err}");
    // nvdisasm 13.5.37's text for this word (oracle/sm80/LD.tsv).
    assert_eq!(
        out,
        "00000000080000000008000000000980\tLD_R_R_UR_I_P\t@P0 LD.EF.U8 R0, [R0.U32+UR0+0x800] ;\tvalid\n"
    );
}

#[test]
fn the_resolved_view_is_bundled_and_flags_still_override() {
    let dir = tempfile::tempdir().unwrap();
    let word = "2f5fda00085148300000000608ee1980";
    // The resolved view (bundled resolved/tables.json): nvdisasm's modifier order.
    let (ok, out, err) = run_in(dir.path(), &["decode", "--arch", "SM80", word]);
    assert!(ok, "{err}");
    assert_eq!(
        out,
        format!(
            "{word}\tLD_R_R_UR_I_P\t@P1 LD.NA.LTC256B.STRONG.SYS R238, [R8.U32+UR6] ;\tvalid\n"
        )
    );
    // --as-written: the tables' own order, and the ambiguity they leave.
    let (ok, out, err) = run_in(
        dir.path(),
        &["decode", "--as-written", "--arch", "SM80", word],
    );
    assert!(ok, "{err}");
    assert_eq!(
        out,
        format!(
            "{word}\tLD_R_R_UR\t@P1 LD.LTC256B.NA.STRONG.SYS R238, [R8.U32+UR6] ;\tambiguous\n"
        )
    );
    // spec list reads the bundled tables: 5 tables, 143 variants.
    let (ok, out, err) = run_in(dir.path(), &["spec", "list"]);
    assert!(ok, "{err}");
    assert!(out.ends_with("total\t5 tables\t143 variants\n"), "{out}");
    // A --specs given is used as given: an empty folder has no tables.
    let (ok, _, err) = run_in(
        dir.path(),
        &["decode", "--specs", ".", "--arch", "SM80", "0"],
    );
    assert!(!ok);
    assert!(err.contains("no table files (*.txt) under ."), "{err}");
}

#[test]
fn diff_finds_the_oracle_of_the_repository_it_was_built_from() {
    let dir = tempfile::tempdir().unwrap();
    let here = run_in(env!("CARGO_MANIFEST_DIR").as_ref(), &["diff", "--top", "0"]);
    let away = run_in(dir.path(), &["diff", "--top", "0"]);
    assert!(here.0 && away.0, "{}", away.2);
    assert_eq!(here.1, away.1);
    assert!(away.1.contains("check split"), "{}", away.1);
}

#[test]
fn version_names_the_nvdisasm_that_recorded_the_oracle() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, out, _) = run_in(dir.path(), &["--version"]);
    assert!(ok);
    assert_eq!(
        out,
        format!(
            "sass-conform {} (oracle recorded with nvdisasm 13.5.37)\n",
            env!("CARGO_PKG_VERSION")
        )
    );
}

#[test]
fn resolve_patch_works_from_another_directory_on_the_bundled_tables() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, out, err) = run_in(dir.path(), &["resolve", "--patch"]);
    assert!(ok, "{err}");
    // The same patch as in the repository: the bundled texts stand in for specs/.
    assert!(
        out.starts_with("--- a/specs/sm100/TEX.txt\n+++ b/specs/sm100/TEX.txt\n"),
        "{out:.200}"
    );
    assert!(err.contains("hunks over 5 tables"), "{err}");
}

#[test]
fn a_table_file_named_under_specs_is_the_bundled_one_away_from_the_repository() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let (ok, away, err) = run_in(dir.path(), &["resolve", "specs/sm100/TLD.txt"]);
    assert!(ok, "{err}");
    let (ok, here, err) = run_in(root, &["resolve", "specs/sm100/TLD.txt"]);
    assert!(ok, "{err}");
    assert_eq!(away, here);
    let (ok, out, err) = run_in(dir.path(), &["spec", "list", "specs/sm80"]);
    assert!(ok, "{err}");
    assert_eq!(
        out,
        "specs/sm80/LD.txt\tSM80\tLD\t8 variants\ntotal\t1 table\t8 variants\n"
    );
}

#[test]
fn report_works_from_another_directory_and_writes_there() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, out, err) = run_in(
        dir.path(),
        &[
            "report",
            "--baseline",
            "reports/baseline.json",
            "--out",
            "r",
        ],
    );
    assert!(ok, "{err}\n{out}");
    // The repository's tables under their own names: nothing new against its baseline.
    assert!(
        out.contains("0 new / 0 fixed mismatches, 0 changed texts, 0 new / 0 gone findings"),
        "{out}"
    );
    assert!(
        out.ends_with("no regression against reports/baseline.json\n"),
        "{out}"
    );
    for f in ["report.json", "report.md", "report.html", "report.csv"] {
        assert!(dir.path().join("r").join(f).is_file(), "{f}");
    }
}
