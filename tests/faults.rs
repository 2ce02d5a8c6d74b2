//! Fault injection, offline: fake nvdisasm scripts that print nothing, half a listing,
//! garbage, megabytes of junk, hang, exit 1, or spawn a child and hang; SIGTERM, SIGINT and
//! SIGKILL in the middle of `oracle run` and `oracle record`; two records at once. For each:
//! the exit status and message, the previous oracle byte-identical afterwards, and no temp
//! file, scratch folder or process left behind.

use sass_conform::Arch;
use sass_conform::oracle::build_cubin;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_sass-conform");

/// Bytes of a one-kernel cubin beyond its 16-byte words (the fake's pass 1 counts words).
fn cubin_overhead() -> usize {
    let one = build_cubin(Arch(80), &[&[1u128][..]]).unwrap().len();
    let three = build_cubin(Arch(80), &[&[1u128; 3][..]]).unwrap().len();
    assert_eq!(three - one, 32, "cubin size grows by 16 bytes per word");
    one - 16
}

/// A sandbox: a temp folder with `tmp/` (TMPDIR of the commands run), `pids` (where fakes
/// log their process ids) and the fake nvdisasm.
struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("tmp")).unwrap();
        Sandbox { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Write the fake nvdisasm: `--version` works; the cubin pass (`-c`) reports every word
    /// legal (only the trailing marker illegal); the raw pass prints a listing of `NOP ;`
    /// lines for every word, piped through `raw_filter` (a shell pipeline stage); `before`
    /// runs first in both passes.
    fn fake(&self, before: &str, raw_filter: &str) -> PathBuf {
        let p = self.path("nvdisasm");
        let pids = self.path("pids");
        let script = format!(
            r#"#!/bin/bash
echo $$ >> {pids}
if [ "$1" = "--version" ]; then echo "Cuda compilation tools, release 13.5, V13.5.37"; exit 0; fi
f="${{@: -1}}"
size=$(stat -c%s "$f")
{before}
if [ "$1" = "-c" ]; then
  n=$(( (size - {overhead}) / 16 ))
  printf "nvdisasm error   : Unrecognized operation for functional unit 'uC' at address 0x%08x\n" $(( (n - 1) * 16 )) >&2
  echo "nvdisasm error   : Illegal instruction found" >&2
  exit 1
fi
base=$4
n=$(( size / 16 ))
listing() {{
  printf '\t.headerflags\t@"EF_CUDA_SM80"\n'
  for ((i = 0; i < n; i++)); do printf '        /*%x*/    NOP ;\n' $(( base + 16 * i )); done
}}
listing {raw_filter}
"#,
            pids = pids.display(),
            overhead = cubin_overhead(),
        );
        fs::write(&p, script).unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.args(args)
            .current_dir(self.dir.path())
            .env("TMPDIR", self.path("tmp"))
            .env_remove("NVDISASM")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// `oracle run` of `words.txt` (4 words) into `out.tsv`.
    fn oracle_run(&self, extra: &[&str]) -> Output {
        self.run(&oracle_run_args(extra))
    }

    /// Words and a previous `out.tsv` for `oracle run`.
    fn with_words(self) -> Sandbox {
        let words: String = (0..4u128)
            .map(|i| format!("{:032x}\n", 0x7918 + (i << 100)))
            .collect();
        fs::write(self.path("words.txt"), words).unwrap();
        fs::write(self.path("out.tsv"), "previous\n").unwrap();
        self
    }

    /// `specs/` with the SM80 LD table alone, and a first good recording in `oracle/`.
    fn with_oracle(self) -> Sandbox {
        let specs = self.path("specs/sm80");
        fs::create_dir_all(&specs).unwrap();
        for ent in fs::read_dir("specs/sm80").unwrap().flatten() {
            fs::copy(ent.path(), specs.join(ent.file_name())).unwrap();
        }
        self.fake("", "");
        let out = self.record(&[]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        self
    }

    fn record_args<'a>(&self, extra: &[&'a str]) -> Vec<&'a str> {
        let mut args = vec![
            "oracle",
            "record",
            "--specs",
            "specs",
            "--out",
            "oracle",
            "--per-variant",
            "2",
            "--nvdisasm",
            "./nvdisasm",
        ];
        args.extend_from_slice(extra);
        args
    }

    fn record(&self, extra: &[&str]) -> Output {
        self.run(&self.record_args(extra))
    }

    /// Every file under `rel` with its bytes, sorted (the lock file left out).
    fn snapshot(&self, rel: &str) -> Vec<(PathBuf, Vec<u8>)> {
        let mut out = Vec::new();
        walk(&self.path(rel), &mut out);
        out.retain(|(p, _)| p.file_name().is_none_or(|n| n != ".lock"));
        out.sort();
        out
    }

    /// Asserts that nothing is left: no temp file in the sandbox (but the lock), nothing
    /// in `tmp/`, no process a fake logged.
    fn assert_clean(&self) {
        let mut files = Vec::new();
        walk(self.dir.path(), &mut files);
        let stray: Vec<_> = files
            .iter()
            .map(|(p, _)| p.strip_prefix(self.dir.path()).unwrap().to_path_buf())
            .filter(|p| {
                let s = p.to_string_lossy();
                s.contains(".tmp.") || s.contains(".staging-") || s.contains(".journal")
            })
            .collect();
        assert!(stray.is_empty(), "temp files left: {stray:?}");
        let tmp: Vec<_> = fs::read_dir(self.path("tmp"))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        assert!(tmp.is_empty(), "scratch left: {tmp:?}");
        let deadline = Instant::now() + Duration::from_secs(10);
        for pid in fs::read_to_string(self.path("pids"))
            .unwrap_or_default()
            .lines()
        {
            while alive(pid) {
                assert!(Instant::now() < deadline, "process {pid} still running");
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }

    /// Wait until the fake has created `rel` (it reached the point of the test).
    fn wait_for(&self, rel: &str, child: &mut Child) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !self.path(rel).exists() {
            if let Ok(Some(st)) = child.try_wait() {
                panic!("ended before {rel}: {st}");
            }
            assert!(Instant::now() < deadline, "never reached {rel}");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

fn walk(dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
    let Ok(rd) = fs::read_dir(dir) else { return };
    for ent in rd.flatten() {
        let p = ent.path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            let bytes = fs::read(&p).unwrap_or_default();
            out.push((p, bytes));
        }
    }
}

/// Whether process `pid` runs (exists and is not a zombie).
fn alive(pid: &str) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat.contains(") Z "),
        Err(_) => false,
    }
}

/// Ends the processes the fakes logged and forgets them: after a SIGKILL (which cannot be
/// caught) a wrapper's own children may outlive sass-conform; nvdisasm itself does not.
fn end_leftovers(s: &Sandbox) {
    for pid in fs::read_to_string(s.path("pids"))
        .unwrap_or_default()
        .lines()
    {
        if let Ok(p) = pid.trim().parse::<i32>() {
            // SAFETY: kill(2) on a pid the fake logged.
            unsafe { libc::kill(p, libc::SIGKILL) };
        }
    }
    let _ = fs::remove_file(s.path("pids"));
}

/// `oracle run` of `words.txt` into `out.tsv` with the fake, plus `extra`.
fn oracle_run_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "oracle",
        "run",
        "--arch",
        "SM80",
        "--words",
        "words.txt",
        "--out",
        "out.tsv",
        "--nvdisasm",
        "./nvdisasm",
    ];
    args.extend_from_slice(extra);
    args
}

/// Pseudo-random numbers (xorshift) from a seed taken from the clock and printed, so a failing
/// run can be replayed by fixing the seed.
fn moments() -> impl FnMut() -> u64 {
    // `FAULTS_SEED` repeats a run's moments (the timing around them still varies).
    let seed = std::env::var("FAULTS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1)
        });
    eprintln!("seed {seed}");
    let mut x = seed | 1;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn signal(child: &Child, sig: i32) {
    // SAFETY: kill(2) on our own child's pid.
    unsafe {
        libc::kill(child.id() as i32, sig);
    }
}

/// `oracle run` with a fake that fails: exit 2, the message, `out.tsv` as before, clean.
fn run_fails(before: &str, raw_filter: &str, extra: &[&str], message: &str) {
    let s = Sandbox::new().with_words();
    s.fake(before, raw_filter);
    let out = s.oracle_run(extra);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(message), "{message:?} not in {err}");
    assert_eq!(fs::read_to_string(s.path("out.tsv")).unwrap(), "previous\n");
    s.assert_clean();
}

#[test]
fn a_good_fake_records_every_word() {
    let s = Sandbox::new().with_words();
    s.fake("", "");
    let out = s.oracle_run(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let tsv = fs::read_to_string(s.path("out.tsv")).unwrap();
    assert_eq!(tsv.lines().count(), 5, "{tsv}");
    assert!(
        tsv.lines()
            .skip(1)
            .all(|l| l.ends_with("\tSM80\tok\tNOP ;")),
        "{tsv}"
    );
    s.assert_clean();
}

#[test]
fn nvdisasm_missing() {
    let s = Sandbox::new().with_words();
    let out = s.oracle_run(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("nvdisasm: not a runnable nvdisasm"),
        "{}",
        stderr(&out)
    );
    assert_eq!(fs::read_to_string(s.path("out.tsv")).unwrap(), "previous\n");
}

#[test]
fn nvdisasm_prints_nothing() {
    run_fails(
        r#"[ "$1" != --version ] && exit 0"#,
        "",
        &[],
        "marker word 00000000000000000000000000000001 after the 2 words was not reported illegal",
    );
}

#[test]
fn nvdisasm_prints_half_the_listing() {
    run_fails(
        "",
        "| head -n 3",
        &[],
        "the listing is cut short (no line for the end word",
    );
}

#[test]
fn nvdisasm_prints_garbage() {
    run_fails(
        r#"[ "$1" != --version ] && { echo 'Segmentation fault?'; head -c 300 /dev/urandom | base64; exit 0; }"#,
        "",
        &[],
        "cubin pass: unexpected output on stdout `Segmentation fault?`",
    );
}

#[test]
fn nvdisasm_prints_junk_after_the_listing() {
    run_fails(
        "",
        "; echo '  and then some'",
        &[],
        "raw batch of 2 words: listing line 5: unexpected output `and then some`",
    );
}

#[test]
fn nvdisasm_prints_megabytes_of_junk() {
    run_fails(
        "",
        "; head -c 4000000 /dev/zero | tr '\\0' x",
        &[],
        "printed more than 68608 bytes (far more than a listing of its words); killed",
    );
}

#[test]
fn nvdisasm_exits_1() {
    run_fails(
        r#"[ "$1" != --version ] && { echo "nvdisasm fatal   : out of memory" >&2; exit 1; }"#,
        "",
        &[],
        "cubin pass: unexpected stderr line `nvdisasm fatal   : out of memory`",
    );
}

#[test]
fn nvdisasm_hangs() {
    run_fails(
        r#"[ "$1" = "-c" ] && exec sleep 1000"#,
        "",
        &["--timeout", "1"],
        "ran longer than 1 s; killed",
    );
}

#[test]
fn nvdisasm_spawns_a_child_and_hangs() {
    let pids = "\"$(dirname \"$0\")/pids\"";
    run_fails(
        &format!(r#"[ "$1" = "-c" ] && {{ sleep 1000 & echo $! >> {pids}; wait; }}"#),
        "",
        &["--timeout", "1"],
        "ran longer than 1 s; killed",
    );
}

/// A fake that reaches the raw pass, says so with the file `reached`, and hangs.
const HANG_IN_RAW_PASS: &str = r#"[ "$1" = "-b" ] && { touch "$(dirname "$0")/reached"; sleep 1000 & echo $! >> "$(dirname "$0")/pids"; wait; }"#;

#[test]
fn sigterm_and_sigint_stop_oracle_run_cleanly() {
    for (sig, code, name) in [
        (libc::SIGTERM, 143, "SIGTERM"),
        (libc::SIGINT, 130, "SIGINT"),
    ] {
        let s = Sandbox::new().with_words();
        s.fake(HANG_IN_RAW_PASS, "");
        let mut child = s.command(&oracle_run_args(&[])).spawn().unwrap();
        s.wait_for("reached", &mut child);
        signal(&child, sig);
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(code), "{}", stderr(&out));
        assert_eq!(
            stderr(&out).trim_end(),
            format!(
                "sass-conform: interrupted by {name}: stopped; the step under way wrote nothing \
                 (what earlier steps recorded stays recorded: run again to resume)"
            )
        );
        assert_eq!(fs::read_to_string(s.path("out.tsv")).unwrap(), "previous\n");
        s.assert_clean();
    }
}

#[test]
fn sigkill_of_oracle_run_leaves_the_old_file_and_the_next_run_cleans_up() {
    let s = Sandbox::new().with_words();
    s.fake(
        r#"[ "$1" = "-b" ] && { touch "$(dirname "$0")/reached"; exec sleep 1000; }"#,
        "",
    );
    let mut child = s.command(&oracle_run_args(&[])).spawn().unwrap();
    s.wait_for("reached", &mut child);
    signal(&child, libc::SIGKILL);
    let st = child.wait().unwrap();
    assert_eq!(st.code(), None);
    assert_eq!(fs::read_to_string(s.path("out.tsv")).unwrap(), "previous\n");
    // The nvdisasm child died with its parent (PR_SET_PDEATHSIG); the next run removes the
    // temp file and scratch folder of the dead one.
    fs::remove_file(s.path("reached")).unwrap();
    s.fake("", "");
    let out = s.oracle_run(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
    s.assert_clean();
}

#[test]
fn a_failed_record_leaves_the_previous_oracle_byte_identical() {
    let s = Sandbox::new().with_oracle();
    let before = s.snapshot("oracle");
    assert_eq!(before.len(), 2, "MANIFEST.json and sm80/LD.tsv");
    s.fake("", "| head -n 3");
    let out = s.record(&["--seed", "2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("the listing is cut short"),
        "{}",
        stderr(&out)
    );
    assert_eq!(s.snapshot("oracle"), before);
    s.assert_clean();
    // And the oracle still loads, checked against its MANIFEST.json.
    let out = s.run(&["oracle", "manifest", "--oracle", "oracle"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn sigterm_and_sigkill_during_record_leave_the_previous_oracle() {
    let s = Sandbox::new().with_oracle();
    let before = s.snapshot("oracle");
    for sig in [libc::SIGTERM, libc::SIGKILL] {
        s.fake(HANG_IN_RAW_PASS, "");
        let _ = fs::remove_file(s.path("reached"));
        let mut child = s.command(&s.record_args(&["--seed", "3"])).spawn().unwrap();
        s.wait_for("reached", &mut child);
        signal(&child, sig);
        let out = child.wait_with_output().unwrap();
        if sig == libc::SIGTERM {
            assert_eq!(out.status.code(), Some(143), "{}", stderr(&out));
            s.assert_clean();
        } else {
            assert_eq!(out.status.code(), None);
            // SIGKILL cannot be caught: nvdisasm itself dies with its parent (parent-death
            // signal), but a wrapper's own children (this fake's `sleep`) may outlive it.
            // Documented in README ("kill -9"); end them here so the run stays clean.
            end_leftovers(&s);
        }
        assert_eq!(s.snapshot("oracle"), before);
    }
    // After the SIGKILL, the next record cleans up and records.
    s.fake("", "");
    let _ = fs::remove_file(s.path("reached"));
    let out = s.record(&["--seed", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Same seed, same rows (MANIFEST.json differs in its command line only).
    assert_eq!(s.snapshot("oracle")[1], before[1], "same seed, same bytes");
    s.assert_clean();
}

#[test]
fn a_second_record_into_the_same_folder_is_refused() {
    let s = Sandbox::new().with_oracle();
    let before = s.snapshot("oracle");
    s.fake(HANG_IN_RAW_PASS, "");
    let mut first = s.command(&s.record_args(&["--seed", "4"])).spawn().unwrap();
    s.wait_for("reached", &mut first);
    let second = s.record(&["--seed", "5"]);
    assert_eq!(second.status.code(), Some(2));
    assert!(
        stderr(&second).contains("oracle: another `sass-conform` is writing to this oracle folder (lock oracle/.lock held)"),
        "{}",
        stderr(&second)
    );
    signal(&first, libc::SIGTERM);
    assert_eq!(first.wait().unwrap().code(), Some(143));
    assert_eq!(s.snapshot("oracle"), before);
    s.assert_clean();
}

#[test]
fn a_damaged_oracle_is_refused_by_diff() {
    let s = Sandbox::new().with_oracle();
    let tsv = s.path("oracle/sm80/LD.tsv");
    let text = fs::read_to_string(&tsv).unwrap();
    fs::write(&tsv, &text[..text.len() - 1]).unwrap();
    let out = s.run(&["diff", "--oracle", "oracle", "--specs", "specs"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("the file was cut short (mid-row)"),
        "{}",
        stderr(&out)
    );
    fs::write(&tsv, &text).unwrap();
    fs::write(
        s.path("oracle/sm80/extra.tsv"),
        "word\tarch\tstatus\ttext\n",
    )
    .unwrap();
    let out = s.run(&["diff", "--oracle", "oracle", "--specs", "specs"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("extra.tsv:0: not listed in oracle/MANIFEST.json"),
        "{}",
        stderr(&out)
    );
}

/// SIGTERM or SIGKILL at pseudo-random moments of `oracle record` (a fake slowed by a short
/// sleep per call, so the moment falls anywhere from start-up to the commit): whatever the
/// moment, the previous oracle is byte-identical or (when the run finished first) the new
/// one is complete and listed; a SIGTERM leaves no temp file. The seed is printed so a
/// failure can be replayed.
#[test]
fn signals_at_random_moments_of_record_never_leave_a_mixed_oracle() {
    let mut next = moments();
    let s = Sandbox::new().with_oracle();
    let before = s.snapshot("oracle");
    for round in 0..6 {
        s.fake("sleep 0.05", "");
        let sig = if round % 2 == 0 {
            libc::SIGTERM
        } else {
            libc::SIGKILL
        };
        let delay = Duration::from_millis(next() % 600);
        let mut child = s.command(&s.record_args(&["--seed", "9"])).spawn().unwrap();
        std::thread::sleep(delay);
        signal(&child, sig);
        let status = child.wait().unwrap();
        end_leftovers(&s);
        // Whatever the moment: a reader either sees a consistent oracle (every file matches
        // MANIFEST.json: the old set, or the new one when the commit got through), or is
        // refused while a killed commit's journal waits for the next writer, which repairs it.
        let check = s
            .command(&["oracle", "manifest", "--oracle", "oracle"])
            .output()
            .unwrap();
        let journal = s.path("oracle/.journal").exists();
        assert!(
            check.status.success() || journal,
            "round {round} (delay {delay:?}, signal {sig}): inconsistent oracle and no journal: {}",
            stderr(&check)
        );
        if check.status.success() && !status.success() && !journal {
            let committed = |v: &Vec<(PathBuf, Vec<u8>)>| -> Vec<(PathBuf, Vec<u8>)> {
                v.iter()
                    .filter(|(p, _)| {
                        let t = p.to_string_lossy();
                        !t.contains(".staging-") && !t.contains(".journal") && !t.contains(".tmp")
                    })
                    .cloned()
                    .collect()
            };
            let now = committed(&s.snapshot("oracle"));
            let tsvs = |v: &Vec<(PathBuf, Vec<u8>)>| -> Vec<(PathBuf, Vec<u8>)> {
                v.iter()
                    .filter(|(p, _)| p.extension().is_some_and(|e| e == "tsv"))
                    .cloned()
                    .collect()
            };
            // Killed before the commit: the old files, byte for byte.
            if tsvs(&now) != tsvs(&committed(&before)) {
                // Or the commit got through before the signal landed: then MANIFEST.json was
                // written last and lists the new files (checked by the reader above).
                assert!(check.status.success(), "round {round}");
            }
        }
        let fresh = s.record(&["--seed", "1"]);
        assert!(fresh.status.success(), "round {round}: {}", stderr(&fresh));
        assert_eq!(
            s.snapshot("oracle")[1],
            before[1],
            "round {round}: seed 1 again"
        );
        if sig == libc::SIGTERM {
            s.assert_clean();
        }
    }
}

/// SIGTERM or SIGKILL at pseudo-random moments of `oracle run` (seed printed): `out.tsv` is
/// the previous file or the complete new one (4 rows and the header), never a part; a
/// SIGTERM leaves nothing behind.
#[test]
fn signals_at_random_moments_of_oracle_run_keep_out_tsv_whole() {
    let mut next = moments();
    for round in 0..6 {
        let s = Sandbox::new().with_words();
        s.fake("sleep 0.05", "");
        let sig = if round % 2 == 0 {
            libc::SIGTERM
        } else {
            libc::SIGKILL
        };
        let delay = Duration::from_millis(next() % 400);
        let mut child = s.command(&oracle_run_args(&[])).spawn().unwrap();
        std::thread::sleep(delay);
        signal(&child, sig);
        let status = child.wait().unwrap();
        end_leftovers(&s);
        let out = fs::read_to_string(s.path("out.tsv")).unwrap();
        let whole_new =
            out.lines().count() == 5 && out.lines().skip(1).all(|l| l.contains("\tok\t"));
        assert!(
            out == "previous\n" || whole_new,
            "round {round} (delay {delay:?}, signal {sig}, {status}): out.tsv is {out:?}"
        );
        if sig == libc::SIGTERM {
            s.assert_clean();
        }
    }
}
