//! README.md's example commands run and exit 0, so README drift fails CI.
//!
//! The examples are the lines starting with `$ ` inside fenced ```` ```console ```` blocks
//! (other lines of those blocks are sample output, not checked). Each runs through `bash -c`
//! (pipes, `&&` and `# comments` as a user types them) from the repository root, with a
//! leading `sass-conform` replaced by the binary under test and its folder first on `PATH`
//! (for `sass-conform` after a pipe). Every `sass-conform` command, and any other command that
//! names no repository path, also runs from an empty directory, as after `cargo install
//! --path .`.

use std::path::Path;
use std::process::Command;

/// Examples not run here, each with why. Matched on the command as written (comment
/// included).
const SKIPPED: &[&str] = &[
    // The main job and the test suite: minutes long, and the test suite runs this test.
    "scripts/main",
    "SKIP_NVDISASM=1 scripts/setup && scripts/test",
    // Fuzzing: needs cargo-fuzz and an ASan build (tens of minutes on 2 cores); runs until
    // Ctrl-C or for 60 s.
    "cargo fuzz run roundtrip                        # until Ctrl-C or a crash",
    "cargo fuzz run roundtrip -- -max_total_time=60  # for 60 s",
    "scripts/corpus-promote roundtrip                # keep the new inputs that add coverage",
    // Need the network (pip) or nvdisasm, and rewrite committed files (corpus/cubins,
    // oracle/, resolved/tables.json).
    "scripts/build-cubins                                   # rebuild the cubins (needs pip)",
    "sass-conform scan --record oracle/cubins --seeds corpus/roundtrip   # needs nvdisasm",
    "sass-conform oracle combos --split learn --per-variant 2000",
    "sass-conform oracle combos --split check --per-variant 1000",
    "sass-conform resolve --write resolved/tables.json   # never reads the check split nor the ptxas words",
    // The nightly job: 3 to 14 minutes, and it needs cargo-fuzz.
    "scripts/nightly                          # the nightly job: 14 minutes on 2 cores, all included",
    "scripts/nightly --minutes 3              # shorter (or NIGHTLY_MINUTES=3); --help for the knobs",
];

/// Words that tie a command to the repository's files (then it runs from the root only).
const REPO_PATHS: &[&str] = &[
    "specs", "oracle", "corpus", "resolved", "reports", "scripts/", "target/", "cargo ",
];

/// The `$ ` lines of the ```` ```console ```` blocks of `text`, with their 1-based line.
fn console_commands(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut inside = false;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_end();
        if inside && t == "```" {
            inside = false;
        } else if !inside && t == "```console" {
            inside = true;
        } else if inside && let Some(cmd) = t.strip_prefix("$ ") {
            out.push((i + 1, cmd.to_string()));
        }
    }
    out
}

/// Runs `cmd` in `dir`; None when it exits 0, else what went wrong.
fn run(cmd: &str, dir: &Path) -> Option<String> {
    let bin = env!("CARGO_BIN_EXE_sass-conform");
    let line = match cmd.strip_prefix("sass-conform ") {
        Some(rest) => format!("{bin} {rest}"),
        None => cmd.to_string(),
    };
    let bin_dir = Path::new(bin).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .args(["-c", &format!("set -o pipefail; {line}")])
        .current_dir(dir)
        .env("PATH", path)
        .output()
        .expect("bash runs");
    (!out.status.success()).then(|| {
        format!(
            "exit {:?} in {}\n  stderr: {}",
            out.status.code(),
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .take(5)
                .collect::<Vec<_>>()
                .join("\n          ")
        )
    })
}

#[test]
fn every_readme_example_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let commands = console_commands(&readme);
    let elsewhere = tempfile::tempdir().unwrap();
    let mut failed = Vec::new();
    let (mut ran, mut away) = (0, 0);
    for (line, cmd) in &commands {
        if SKIPPED.contains(&cmd.as_str()) {
            continue;
        }
        ran += 1;
        if let Some(e) = run(cmd, root) {
            failed.push(format!("README.md:{line}: `{cmd}`: {e}"));
        }
        // The binary finds the repository's data from anywhere; other tools (`cp`, scripts)
        // only where no repository path is named.
        if cmd.starts_with("sass-conform ") || !REPO_PATHS.iter().any(|p| cmd.contains(p)) {
            away += 1;
            if let Some(e) = run(cmd, elsewhere.path()) {
                failed.push(format!("README.md:{line}: `{cmd}`: {e}"));
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    // Every skipped command is still in the README (the list does not rot).
    for s in SKIPPED {
        assert!(
            commands.iter().any(|(_, c)| c == s),
            "SKIPPED lists `{s}`, which README.md no longer has"
        );
    }
    assert!(ran >= 15, "only {ran} README commands ran");
    assert!(
        away >= 15,
        "only {away} README commands ran away from the repository"
    );
}

#[test]
fn console_blocks_are_read_and_other_blocks_are_not() {
    let text =
        "```sh\n$ not-this\n```\n```console\n$ echo a\noutput\n$ echo b  # c\n```\n$ nor-this\n";
    assert_eq!(
        console_commands(text),
        [(5, "echo a".to_string()), (7, "echo b  # c".to_string())]
    );
}
