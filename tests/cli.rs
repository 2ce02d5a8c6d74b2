//! The CLI as a user runs it: spec list, decode (text and JSON), encode, check, diff.

use std::process::Command;

fn run(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sass-conform"))
        .args(args)
        .output()
        .expect("binary runs");
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn spec_list_shows_143_variants() {
    let (ok, out, _) = run(&["spec", "list"]);
    assert!(ok);
    assert!(
        out.contains("specs/sm100/TLD.txt\tSM100\tTLD\t6 variants\n"),
        "{out}"
    );
    assert!(
        out.contains("specs/unknown-arch/TLD4.txt\tSM90\tTLD4\t111 variants\n"),
        "{out}"
    );
    assert!(out.ends_with("total\t5 tables\t143 variants\n"), "{out}");
}

#[test]
fn decode_prints_nvdisasm_text_for_the_tld_fixed_word() {
    let (ok, out, _) = run(&[
        "decode",
        "--arch",
        "SM100",
        "00000000080000000000000000000f66",
    ]);
    assert!(ok);
    assert_eq!(
        out,
        "00000000080000000000000000000f66\tTLD_P_R_R_R_R_UR_D_I\t@P0 TLD.LZ.EF P0, R0, R0, R0, R0, UR0, 1D, 0x0 ;\tvalid\n"
    );
}

/// A word nvdisasm refuses (oracle/sm100/TLD.tsv: the fixed word with bit 109 set, "undefined
/// value 0x10 for table 'TABLES_opex_0'") whose fields the table all allows: the text column
/// says both.
#[test]
fn decode_says_when_the_table_allows_a_word_nvdisasm_refuses() {
    let (ok, out, _) = run(&[
        "decode",
        "--arch",
        "SM100",
        "00002000080000000000000000000f66",
    ]);
    assert!(ok);
    assert_eq!(
        out,
        "00002000080000000000000000000f66\tTLD_P_R_R_R_R_UR_D_I\t(illegal: undefined value 0x10 in TABLES_opex_0; every field is valid by the table)\tvalid\n"
    );
}

#[test]
fn decode_json_has_the_documented_keys() {
    let (ok, out, _) = run(&[
        "decode",
        "--arch",
        "sm_100",
        "--json",
        "00000000080000000000000000000f66",
        "0000000000000000000000000000ffff",
    ]);
    assert!(ok);
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(
        lines[0]["text"],
        "@P0 TLD.LZ.EF P0, R0, R0, R0, R0, UR0, 1D, 0x0 ;"
    );
    assert_eq!(lines[0]["key"], "TLD_P_R_R_R_R_UR_D_I");
    assert_eq!(lines[0]["arch"], "SM100");
    assert_eq!(lines[0]["verdict"], "valid");
    assert_eq!(lines[0]["legality"], "legal");
    assert_eq!(lines[1]["text"], serde_json::Value::Null);
    assert_eq!(lines[1]["verdict"], "no-variant");
    assert_eq!(lines[1]["note"], "no SM100 table has this opcode");
}

/// The reserved-bit word of the README: the nearest LD variant fixes bit 91 to 0.
const RESERVED: &str = "00000000080010000000080000000980";

#[test]
fn decode_and_check_json_are_one_shape() {
    let words = [
        "00000000000000000000000000000980",
        "80000000000000000000000000000980",
        RESERVED,
        "0",
    ];
    let mut decode = vec!["decode", "--arch", "SM80", "--json"];
    decode.extend(words);
    let mut check = decode.clone();
    check[0] = "check";
    let (ok, d, err) = run(&decode);
    assert!(ok, "{err}");
    let (ok, c, err) = run(&check);
    assert!(ok, "{err}");
    assert_eq!(d, c);
    let lines: Vec<&str> = d.lines().collect();
    assert_eq!(
        lines[2],
        format!(
            r#"{{"word":"{RESERVED}","arch":"SM80","verdict":"undescribed-bits","key":"LD_R_R_UR_I_P","text":null,"legality":"unrecognized","nearest":null,"bits":[76],"modifier":null,"keys":[],"note":"LD_R_R_UR_I_P: bit 76 set, described by no field; nvdisasm refuses it (learned reading): Unrecognized operation for functional unit 'uC'"}}"#
        )
    );
    assert!(
        lines[1].starts_with(
            r#"{"word":"80000000000000000000000000000980","arch":"SM80","verdict":"undescribed-bits","key":"LD_R_R_I_P","text":"@P0 LD.EF.U8 R0, [R0] ;","legality":"legal","nearest":null,"bits":[127],"#
        ),
        "{}",
        lines[1]
    );
}

#[test]
fn check_explains_each_verdict_in_text_mode() {
    let (ok, out, err) = run(&[
        "check",
        "--arch",
        "SM80",
        "00000000000000000000000000000980",
        "80000000000000000000000000000980",
        RESERVED,
        "0",
    ]);
    assert!(ok, "{err}");
    assert_eq!(
        out,
        format!(
            "00000000000000000000000000000980\tvalid\tLD_R_R_I_P\n\
             80000000000000000000000000000980\tundescribed-bits\tLD_R_R_I_P: bit 127 set, described by no field\n\
             {RESERVED}\tundescribed-bits\tLD_R_R_UR_I_P: bit 76 set, described by no field; nvdisasm refuses it (learned reading): Unrecognized operation for functional unit 'uC'\n\
             00000000000000000000000000000000\tno-variant\tno SM80 table has this opcode\n"
        )
    );
    // A reserved-bit word: a TMML fixed word with bit 91 set (nvdisasm 13.5.37 refuses it:
    // "Unrecognized operation for functional unit 'uC'"); the reading view fixes it.
    let (ok, out, _) = run(&[
        "decode",
        "--arch",
        "SM90",
        "00000000080000000000000000000b69",
    ]);
    assert!(ok);
    assert_eq!(
        out,
        "00000000080000000000000000000b69\t-\t(no variant; nearest TMML_R_R_R_R_I_I_D_I, whose fixed bit 91 differs)\treserved-bit\n"
    );
    // The TMML opcode with bit 11 cleared is no variant's opcode (each variant's own bits
    // 0-11 count, not only those all TMML variants share): no variant.
    let (ok, out, _) = run(&[
        "decode",
        "--arch",
        "SM90",
        "00000000000000000000000000000369",
    ]);
    assert!(ok);
    assert_eq!(
        out,
        "00000000000000000000000000000369\t-\t(no SM90 table has this opcode)\tno-variant\n"
    );
    // The tables as written fix SM80 LD bit 76 (the reading view leaves it free, a form bit).
    let (ok, out, _) = run(&["check", "--as-written", "--arch", "SM80", RESERVED]);
    assert!(ok);
    assert_eq!(
        out,
        format!(
            "{RESERVED}\treserved-bit\tno variant; nearest LD_R_R_UR_I, whose fixed bit 76 differs\n"
        )
    );
}

#[test]
fn encode_refuses_invalid_modifiers_unless_allowed() {
    let (ok, _, err) = run(&["encode", "TLD_P_R_R_R_R_UR_D_I", "modi_1=INVALID2"]);
    assert!(!ok);
    assert!(err.contains("is INVALID2 in the table"), "{err}");
    let (ok, out, _) = run(&["encode", "TLD_P_R_R_R_R_UR_D_I", "operand1=255", "pred=7"]);
    assert!(ok);
    assert!(
        out.starts_with("00000000080000ff0000000000007f66\tTLD.LZ.EF P0, RZ, R0,"),
        "{out}"
    );
}

#[test]
fn bad_words_name_the_input() {
    let (ok, _, err) = run(&["decode", "--arch", "SM100", "xyz"]);
    assert!(!ok);
    assert_eq!(
        err,
        "sass-conform: error: `xyz` is not a hex word: `x` (column 1) is not a hex digit\n"
    );
    let (ok, _, err) = run(&["decode", "--arch", "SM75", "0"]);
    assert!(!ok);
    assert!(err.contains("no table is loaded for SM75"), "{err}");
}

#[test]
fn bench_words_are_tabled_words_of_the_arch() {
    let (ok, out, err) = run(&[
        "bench", "words", "--arch", "SM80", "--count", "40", "--seed", "3",
    ]);
    assert!(ok, "{err}");
    let words: Vec<&str> = out.lines().collect();
    assert_eq!(words.len(), 40);
    assert!(words.iter().all(|w| w.len() == 32));
    // Every generated word decodes as an LD variant (the only SM80 table).
    let mut args = vec!["decode", "--arch", "SM80"];
    args.extend(&words);
    let (ok, out, _) = run(&args);
    assert!(ok);
    assert_eq!(
        out.lines().filter(|l| l.contains("\tLD_")).count(),
        40,
        "{out}"
    );
    // Same seed, same words.
    let (_, again, _) = run(&[
        "bench", "words", "--arch", "SM80", "--count", "40", "--seed", "3",
    ]);
    assert_eq!(again, words.join("\n") + "\n");
    let (ok, _, err) = run(&["bench", "words", "--arch", "SM75", "--count", "1"]);
    assert!(!ok);
    assert!(err.contains("no table of SM75"), "{err}");
}

#[test]
fn diff_streams_a_recording_and_names_bad_rows() {
    let (dir, f) = recording(
        "00000000080000000000000000000f66\tSM100\tok\t@P0 TLD.LZ.EF P0, R0, R0, R0, R0, UR0, 1D, 0x0 ;\n",
    );
    let o = dir.path().to_str().unwrap();
    let (ok, _, err) = run(&["diff", "--oracle", o]);
    assert!(!ok);
    assert!(err.contains("MANIFEST.json:0: missing"), "{err}");
    let fs = f.to_str().unwrap();
    let (ok, _, err) = run(&register_args(o, fs));
    assert!(ok, "{err}");
    assert!(err.ends_with("MANIFEST.json: 1 records updated\n"), "{err}");
    let (ok, out, err) = run(&["diff", "--oracle", o]);
    assert!(ok, "{err}");
    assert!(out.contains("entries                      1\n"), "{out}");
    assert!(out.contains("match                        1\n"), "{out}");
    std::fs::write(&f, "word\tarch\tstatus\ttext\nxyz\tSM100\tok\tNOP ;\n").unwrap();
    let (ok, _, err) = run(&["diff", "--oracle", o]);
    assert!(!ok);
    assert!(
        err.contains("T.tsv:2") && err.contains("not 32 hex digits"),
        "{err}"
    );
    let empty = tempfile::tempdir().unwrap();
    let (ok, _, err) = run(&["diff", "--oracle", empty.path().to_str().unwrap()]);
    assert!(!ok);
    assert!(err.contains("no oracle entries"), "{err}");
}

/// `diff --words FILE` lists every disagreeing word, with the figure it counts in, as CSV;
/// agreeing words are not listed.
#[test]
fn diff_words_lists_each_disagreeing_word() {
    // The second answer is altered (`2D` for nvdisasm's `1D`): a text disagreement; the
    // third is a word whose fixed bit 91 is clear, which we refuse, said to be read.
    let (dir, f) = recording(
        "00000000080000000000000000000f66\tSM100\tok\t@P0 TLD.LZ.EF P0, R0, R0, R0, R0, UR0, 1D, 0x0 ;\n\
         00000000080000000000000000001f66\tSM100\tok\t@P1 TLD.LZ.EF P0, R0, R0, R0, R0, UR0, 2D, 0x0 ;\n\
         00000000000000000000000000000f66\tSM100\tok\t@P0 TLD.LZ P0, R0, R0, R0, R0, UR0, 1D, 0x0 ;\n",
    );
    let o = dir.path().to_str().unwrap();
    let fs = f.to_str().unwrap();
    let (ok, _, err) = run(&register_args(o, fs));
    assert!(ok, "{err}");
    let csv = dir.path().join("words.csv");
    let (ok, out, err) = run(&["diff", "--oracle", o, "--words", csv.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(out.contains("text mismatch                1\n"), "{out}");
    let written = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(
        written,
        "figure,arch,word,cause,key,field,nvdisasm,ours\n\
         other,SM100,00000000080000000000000000001f66,text,TLD_P_R_R_R_R_UR_D_I,operand 6,\
         \"@P1 TLD.LZ.EF P0, R0, R0, R0, R0, UR0, 2D, 0x0 ;\",\
         \"@P1 TLD.LZ.EF P0, R0, R0, R0, R0, UR0, 1D, 0x0 ;\"\n\
         other,SM100,00000000000000000000000000000f66,we-reject,TLD_P_R_R_R_R_UR_D_I,\
         fixed bits [91],\"@P0 TLD.LZ P0, R0, R0, R0, R0, UR0, 1D, 0x0 ;\",\
         (refused: fixed bits [91])\n"
    );
    let (ok, _, err) = run(&["diff", "--oracle", o, "--words", "/nonexistent/dir/w.csv"]);
    assert!(!ok);
    assert!(
        err.contains("/nonexistent/dir/w.csv: cannot create the words file"),
        "{err}"
    );
}

#[test]
fn bench_refuses_sizes_that_would_measure_nothing() {
    let (ok, _, err) = run(&["bench", "run", "--words", "5"]);
    assert!(!ok);
    assert!(err.contains("5 is not in 10000.."), "{err}");
    let (ok, _, err) = run(&["bench", "run", "--mix", "150"]);
    assert!(!ok);
    assert!(err.contains("150 is not in 1..=99"), "{err}");
}

/// An oracle folder holding one unlisted recording, `sm100/T.tsv`, of `rows` (after the
/// header): (the folder, the file).
fn recording(rows: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("sm100");
    std::fs::create_dir_all(&sub).unwrap();
    let f = sub.join("T.tsv");
    std::fs::write(&f, format!("word\tarch\tstatus\ttext\n{rows}")).unwrap();
    (dir, f)
}

/// `oracle manifest` arguments that list the recorded file `file` in the oracle folder
/// `oracle` as made by nvdisasm 13.5.37.
fn register_args<'a>(oracle: &'a str, file: &'a str) -> [&'a str; 9] {
    [
        "oracle",
        "manifest",
        "--oracle",
        oracle,
        "--update",
        "--add",
        file,
        "--nvdisasm-version",
        "13.5.37",
    ]
}

/// Runs the binary; returns (exit code, stdout, stderr).
fn run_code(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sass-conform"))
        .args(args)
        .output()
        .expect("binary runs");
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The command a message suggests (its last `...` quote), run as a user pasting it into a
/// shell would (with this build's binary for `sass-conform`).
fn paste(message: &str) -> std::process::Output {
    let end = message.rfind('`').expect("a quoted command");
    let start = message[..end].rfind('`').expect("a quoted command") + 1;
    let cmd = &message[start..end];
    let rest = cmd
        .strip_prefix("sass-conform ")
        .expect("a sass-conform command");
    Command::new("sh")
        .arg("-c")
        .arg(format!("'{}' {rest}", env!("CARGO_BIN_EXE_sass-conform")))
        .output()
        .expect("sh runs")
}

#[test]
fn manifest_errors_suggest_a_command_that_runs() {
    let dir = tempfile::tempdir().unwrap();
    // A space and a quote in the names: the suggestion must quote them.
    let o = dir.path().join("my oracle");
    std::fs::create_dir_all(o.join("sm100")).unwrap();
    let row = "word\tarch\tstatus\ttext\n\
               00000000080000000000000000000f66\tSM100\tok\t@P0 TLD.LZ.EF P0, R0, R0, R0, R0, UR0, 1D, 0x0 ;\n";
    let t = o.join("sm100/it's.tsv");
    std::fs::write(&t, row).unwrap();
    let (os, ts) = (o.to_str().unwrap(), t.to_str().unwrap());
    let (qo, qt) = (format!("'{os}'"), ts.replace('\'', r"'\''"));
    let qt = format!("'{qt}'");

    // No MANIFEST.json at all.
    let (code, out, err) = run_code(&["diff", "--oracle", os]);
    assert_eq!(code, Some(2), "{out}{err}");
    assert_eq!(
        err,
        format!(
            "sass-conform: error: {os}/MANIFEST.json:0: missing: every oracle file must be \
             listed in MANIFEST.json (with its row count and sha256); record with \
             `sass-conform oracle record`, or list the files here, if nvdisasm 13.5.37 made \
             them (else give its version), with `sass-conform oracle manifest --oracle {qo} \
             --update --add {qt} --nvdisasm-version 13.5.37`\n"
        )
    );
    let pasted = paste(&err);
    assert!(pasted.status.success(), "{pasted:?}");
    let (code, out, err) = run_code(&["diff", "--oracle", os]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("entries                      1\n"), "{out}");

    // A file the manifest does not list, read through a subfolder (manifest one up).
    let u = o.join("sm100/U.tsv");
    std::fs::write(&u, row).unwrap();
    let sub = o.join("sm100");
    let (us, subs) = (u.to_str().unwrap(), sub.to_str().unwrap());
    let (code, out, err) = run_code(&["diff", "--oracle", subs]);
    assert_eq!(code, Some(2), "{out}{err}");
    assert_eq!(
        err,
        format!(
            "sass-conform: error: {us}:0: not listed in {subs}/../MANIFEST.json (an oracle \
             file must be recorded with its row count and sha256; move it away, or list it, \
             if nvdisasm 13.5.37 made it (else give its version), with `sass-conform oracle \
             manifest --oracle {qo} --update --add '{us}' --nvdisasm-version 13.5.37`)\n"
        )
    );
    let pasted = paste(&err);
    assert!(pasted.status.success(), "{pasted:?}");
    let (code, out, err) = run_code(&["diff", "--oracle", os]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("entries                      2\n"), "{out}");
}

#[test]
fn synth_learn_fails_when_a_learn_cannot_read_its_answers() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    // BMOV's workspace holds a recorded file with no MANIFEST.json: its learn cannot read
    // its answers. NOP's learn finds no nvdisasm. Both get their MATRIX.tsv rows.
    let ws = out.join(".learn/BMOV/oracle/sm90");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("BMOV.tsv"), "word\tarch\tstatus\ttext\n").unwrap();
    for t in ["BMOV", "NOP"] {
        std::fs::copy(format!("synth/SM90/{t}.txt"), out.join(format!("{t}.txt"))).unwrap();
    }
    let o = out.to_str().unwrap();
    let nv = dir.path().join("no-nvdisasm");
    let (code, _, err) = run_code(&[
        "synth",
        "--arch",
        "SM90",
        "--learn-only",
        "--out",
        o,
        "--nvdisasm",
        nv.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(1), "{err}");
    let manifest = format!("{o}/.learn/BMOV/oracle/MANIFEST.json:0: missing: ");
    let line = err
        .lines()
        .find(|l| l.starts_with("synth: learn SM90 BMOV: "))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        line.starts_with("synth: learn SM90 BMOV: legal text -, verdict -, findings - (")
            && line.ends_with(" s, exit 2)"),
        "{line}"
    );
    assert!(
        err.contains(&format!(
            "synth: 2 of 2 learns failed (their rows in {o}/MATRIX.tsv have no figures):\n  \
             SM90 BMOV: learn exit 2: sass-conform: error: {manifest}"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "(all of it in {o}/.learn/BMOV/learn.log)\n  SM90 NOP: learn exit 2: "
        )),
        "{err}"
    );
    let log = std::fs::read_to_string(out.join(".learn/BMOV/learn.log")).unwrap();
    assert!(log.contains(&manifest), "{log}");
    // Every row but its last column (the seconds the learn took).
    let matrix = std::fs::read_to_string(out.join("MATRIX.tsv")).unwrap();
    let rows: Vec<&str> = matrix
        .lines()
        .map(|l| l.rsplit_once('\t').unwrap().0)
        .collect();
    assert_eq!(
        rows,
        [
            "arch\tmnemonic\tvariants\tcheck_legal_text\tcheck_verdict\tfindings\troot_causes",
            "SM90\tBMOV\t2\t-\t-\t-\t-",
            "SM90\tNOP\t1\t-\t-\t-\t-",
        ]
    );
}

/// `synth` on an arch the project compiles no cubins for says so and what to give instead,
/// not only that a folder is missing (a new user's SM103 run, 2026-12-03).
#[test]
fn synth_without_cubins_for_the_arch_says_what_to_give() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap();
    let (ok, _, err) = run(&["synth", "--arch", "SM103", "--out", dir, "--offline"]);
    assert!(!ok);
    assert_eq!(
        err.trim_end(),
        "sass-conform: error: corpus/synth/sm103: no cubins for SM103 (scripts/build-cubins \
         compiled the PTX corpus into corpus/synth/ for: sm100, sm120, sm80, sm90); compile \
         ptx/synth/*.ptx with ptxas --gpu-name for this arch and give the folder with --cubins \
         DIR, or give words with --words FILE"
    );
    // From another directory the project's corpus is found as every other input is (a new
    // user's SM86 run from /tmp, 2026-12-04, was told it holds cubins for no arch).
    let elsewhere = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_sass-conform"))
        .args(["synth", "--arch", "SM103", "--out", dir, "--offline"])
        .current_dir(elsewhere.path())
        .output()
        .expect("binary runs");
    assert!(!out.status.success());
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("compiled the PTX corpus into corpus/synth/ for: sm100, sm120, sm80, sm90);")
    );
}

/// A `learn` whose every table is skipped (an HTML page without `--arch`) fails and leaves no
/// workspace behind (it once left `PAGE.html.learn/specs/ARCH_MANIFEST.tsv`).
#[test]
fn a_learn_with_every_table_skipped_leaves_no_workspace() {
    let tmp = std::env::temp_dir().join(format!("sass-conform-noarch-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let page = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/html/LDS.html");
    std::fs::copy(&page, tmp.join("LDS.html")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_sass-conform"))
        .args(["learn", "LDS.html"])
        .env("NVDISASM", tmp.join("no-nvdisasm"))
        .current_dir(&tmp)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("no arch: give --arch"), "{err}");
    assert!(!tmp.join("LDS.html.learn").exists(), "{err}");
    std::fs::remove_dir_all(&tmp).ok();
}

/// A closed stderr (`learn ... 2>&1 | head`) ends the command with 141 (128 + SIGPIPE), not a
/// panic's 101: `learn` without `--arch` writes its skip and error lines to stderr.
#[test]
fn a_closed_stderr_ends_with_the_closed_pipe_status() {
    let tmp = std::env::temp_dir().join(format!("sass-conform-stderr-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let page = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/html/LDS.html");
    std::fs::copy(&page, tmp.join("LDS.html")).unwrap();
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_sass-conform"))
        .args(["learn", "LDS.html"])
        .env("NVDISASM", tmp.join("no-nvdisasm"))
        .current_dir(&tmp)
        .stderr(writer)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(141));
    std::fs::remove_dir_all(&tmp).ok();
}

/// A specs folder holding the five bundled tables and one that does not parse (`BAD.txt`,
/// its line 1 a 2,600-byte line of no table format).
fn specs_with_a_bad_table() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let specs = d.path().join("specs");
    for (path, text) in [
        ("sm100/TEX.txt", "specs/sm100/TEX.txt"),
        ("sm100/TLD.txt", "specs/sm100/TLD.txt"),
        ("sm80/LD.txt", "specs/sm80/LD.txt"),
        ("sm90/TMML.txt", "specs/sm90/TMML.txt"),
        ("unknown-arch/TLD4.txt", "specs/unknown-arch/TLD4.txt"),
        ("ARCH_MANIFEST.tsv", "specs/ARCH_MANIFEST.tsv"),
    ] {
        let to = specs.join(path);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(text, &to).unwrap();
    }
    std::fs::write(
        specs.join("sm80/BAD.txt"),
        "garbage line ".repeat(200) + "\n",
    )
    .unwrap();
    d
}

/// One bad table never stops the others: each command names it (file and line, the quoted
/// line cut), reads the five others and exits 1; the bundled resolved file, written for the
/// five, reads them.
#[test]
fn a_bad_table_is_named_and_the_others_are_read() {
    let d = specs_with_a_bad_table();
    let specs = d.path().join("specs");
    let specs = specs.to_str().unwrap();
    let (code, out, err) = run_code(&["spec", "list", specs]);
    assert_eq!(code, Some(1), "{err}");
    assert!(out.ends_with("total\t5 tables\t143 variants\n"), "{out}");
    assert!(
        err.contains("warning: table skipped (the others are read): ")
            && err.contains("BAD.txt:1: expected a mnemonic (letters, digits, `_`, at most 64 bytes), found `garbage line garbage"),
        "{err}"
    );
    assert!(err.contains(" more bytes not shown)\n"), "{err}");
    assert!(err.len() < 1000, "{}", err.len());
    assert!(err.ends_with("sass-conform: 1 table skipped (named above): exit status 1\n"));
    let (code, out, err) = run_code(&[
        "decode",
        "--arch",
        "SM100",
        "--specs",
        specs,
        "--resolved",
        "resolved/tables.json",
        "00000000080000000000000000000f66",
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(
        out,
        "00000000080000000000000000000f66\tTLD_P_R_R_R_R_UR_D_I\t@P0 TLD.LZ.EF P0, R0, R0, R0, R0, UR0, 1D, 0x0 ;\tvalid\n"
    );
    // Only a table given alone, and bad, is the command's error.
    let bad = d.path().join("specs/sm80/BAD.txt");
    let (code, out, err) = run_code(&["spec", "list", bad.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(out, "");
    assert!(err.starts_with("sass-conform: error: "), "{err}");
}

/// A resolved file written for more tables than are loaded reads the ones loaded: the
/// bundled one with only the SM80 folder.
#[test]
fn a_resolved_file_for_more_tables_reads_those_loaded() {
    let (code, out, err) = run_code(&[
        "decode",
        "--arch",
        "SM80",
        "--specs",
        "specs/sm80",
        "--resolved",
        "resolved/tables.json",
        "00000000080010000000080000000980",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.starts_with("00000000080010000000080000000980\tLD_R_R_UR_I_P\t"),
        "{out}"
    );
}

/// A table name that is a link to nothing, a link in a loop or a FIFO is named and passed
/// over (a FIFO was read forever; a link to nothing stopped every command); a `report` whose
/// `--oracle` folder does not exist is an error, not an empty report over the last one.
#[test]
fn links_fifos_and_a_missing_oracle_are_named() {
    let d = specs_with_a_bad_table();
    let specs = d.path().join("specs");
    std::fs::remove_file(specs.join("sm80/BAD.txt")).unwrap();
    std::os::unix::fs::symlink("NOWHERE.txt", specs.join("sm80/DANGLING.txt")).unwrap();
    std::os::unix::fs::symlink("LOOP.txt", specs.join("sm80/LOOP.txt")).unwrap();
    let fifo = specs.join("sm80/F.txt");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let (code, out, err) = run_code(&["spec", "list", specs.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{err}");
    assert!(out.ends_with("total\t5 tables\t143 variants\n"), "{out}");
    assert!(
        err.contains("DANGLING.txt: symbolic link to nothing, or in a loop"),
        "{err}"
    );
    assert!(
        err.contains("LOOP.txt: symbolic link to nothing, or in a loop"),
        "{err}"
    );
    assert!(err.contains("F.txt: not a regular file"), "{err}");
    assert!(err.ends_with("sass-conform: 3 tables skipped (named above): exit status 1\n"));
    let out_dir = d.path().join("report");
    let (code, _, err) = run_code(&[
        "report",
        "--oracle",
        d.path().join("typo").to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("typo:0: no such oracle folder"), "{err}");
    assert!(!out_dir.exists());
    // An empty oracle folder is an error too, as in `diff` (it wrote a report of no words).
    let empty = d.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let (code, _, err) = run_code(&[
        "report",
        "--oracle",
        empty.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("empty:0: no oracle entries (*.tsv) in this folder"),
        "{err}"
    );
    assert!(!out_dir.exists());
}

/// A table that does not load leaves its recorded words to no table: `diff` says so on its
/// check-split line instead of `100.000% (0/0)`.
#[test]
fn diff_names_check_words_no_table_reads() {
    let d = specs_with_a_bad_table();
    let specs = d.path().join("specs");
    std::fs::remove_file(specs.join("sm80/BAD.txt")).unwrap();
    let tmml = std::fs::read_to_string("specs/sm90/TMML.txt").unwrap();
    std::fs::write(specs.join("sm90/TMML.txt"), &tmml[..1200]).unwrap();
    let (code, out, err) = run_code(&[
        "diff",
        "--specs",
        specs.to_str().unwrap(),
        "--resolved",
        "resolved/tables.json",
        "--top",
        "0",
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        out.contains("  SM90 TMML                12000 words  no table loaded reads them"),
        "{out}"
    );
    assert!(
        out.contains("  SM80 LD                   8000 words  legal text 100.000% (3238/3238)"),
        "{out}"
    );
}

/// `resolve --resolved` naming a file that is not a resolved file is an error, as in `decode`
/// (it was left out silently).
#[test]
fn resolve_refuses_a_resolved_file_that_is_garbage() {
    let d = tempfile::tempdir().unwrap();
    let bad = d.path().join("bad.json");
    std::fs::write(&bad, "garbage\n").unwrap();
    let (code, out, err) =
        run_code(&["resolve", "specs/sm90", "--resolved", bad.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(out, "");
    assert!(
        err.contains("bad.json:1: expected value at line 1 column 1"),
        "{err}"
    );
}
