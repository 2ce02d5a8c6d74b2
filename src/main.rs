//! `sass-conform` command line: spec, decode, encode, check, oracle record, diff.

mod cli;

use clap::{CommandFactory, FromArgMatches};

/// The process's allocator: mimalloc instead of the system's (glibc). A `decode` run's start-up
/// builds its tables in many small allocations on up to three threads, where glibc grew each
/// thread's arena a page range at a time (`mprotect`, ~1,450 page faults a run, against ~300);
/// whole `decode` runs ~4% less wall time on SM90 TLD4 (docs/PERFORMANCE.md, thirty-sixth
/// session). Nothing printed depends on it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Exit status when stderr (or stdout, outside the paths that end quietly) is a closed pipe:
/// 128 + SIGPIPE, as a shell reports a command a closed pipe stopped.
const CLOSED_PIPE_EXIT: i32 = 141;

fn main() -> std::process::ExitCode {
    quiet_on_closed_pipe();
    // `--version` names the nvdisasm that recorded the oracle (read at run time).
    let version: &'static str = Box::leak(sass_conform::locate::version_text().into_boxed_str());
    let matches = cli::Cli::command().version(version).get_matches();
    let args = cli::Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    match cli::run(args) {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => std::process::ExitCode::SUCCESS,
        Err(e) if interrupted(&e).is_some() => {
            eprintln!("sass-conform: {}", one_line(&e));
            std::process::ExitCode::from(128 + interrupted(&e).unwrap_or(0) as u8)
        }
        Err(e) => {
            eprintln!("sass-conform: error: {}", one_line(&e));
            std::process::ExitCode::from(2)
        }
    }
}

/// `learn ... 2>&1 | head`: the progress lines go to stderr with `eprintln!`, which panics
/// when stderr is a closed pipe (exit 101 and a backtrace nobody reads). A panic whose message
/// is a failed print to a closed pipe ends the process with [`CLOSED_PIPE_EXIT`] instead; every
/// other panic goes to the default hook. What is recorded stays recorded (answers are
/// committed per step), and a second run resumes.
fn quiet_on_closed_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let p = info.payload();
        let msg = p
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| p.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.starts_with("failed printing to std") && msg.contains("Broken pipe") {
            std::process::exit(CLOSED_PIPE_EXIT);
        }
        default(info);
    }));
}

/// The signal that stopped an `oracle run` or `oracle record` (SIGINT 2, SIGTERM 15).
fn interrupted(e: &anyhow::Error) -> Option<i32> {
    e.chain().find_map(
        |c| match c.downcast_ref::<sass_conform::oracle::OracleError>() {
            Some(sass_conform::oracle::OracleError::Interrupted { signal }) => Some(*signal),
            _ => None,
        },
    )
}

/// A closed stdout (`sass-conform lint | head`) is not an error.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    // serde_json's error does not list its io::Error among the causes: asked directly.
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || c.downcast_ref::<serde_json::Error>()
                .is_some_and(|j| j.io_error_kind() == Some(std::io::ErrorKind::BrokenPipe))
    })
}

/// The error and its causes on one line, leaving out a cause its parent already quotes
/// (`file: No such file` is not followed by `: No such file` again).
fn one_line(e: &anyhow::Error) -> String {
    let mut msg = String::new();
    for c in e.chain() {
        let s = c.to_string();
        if msg.ends_with(&s) {
            continue;
        }
        if !msg.is_empty() {
            msg.push_str(": ");
        }
        msg.push_str(&s);
    }
    msg
}
