//! The process runner: one nvdisasm process in a process group of its own, its output in
//! files, killed (the whole group: a wrapper script's children too) when it runs past its
//! time, prints more than its output allows, the stream is cancelled or SIGINT/SIGTERM
//! arrive ([`crate::oracle::interrupt`]). On Linux the process also gets SIGKILL when this
//! process dies (`PR_SET_PDEATHSIG`), so even a `kill -9` leaves no nvdisasm running.

use crate::oracle::interrupt;
use std::fs;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What one finished run printed.
#[derive(Debug)]
pub(crate) struct RunOutput {
    /// Exit status 0.
    pub ok: bool,
    /// Standard output (lossy UTF-8).
    pub stdout: String,
    /// Standard error (lossy UTF-8).
    pub stderr: String,
    /// When the time limit ends: reading the output must be done by then too.
    pub deadline: Instant,
}

/// Why a run gave no [`RunOutput`].
#[derive(Debug, PartialEq)]
pub(crate) enum RunError {
    /// The program could not be started or its output files not written or read.
    Io(String),
    /// It ran longer than the limit (seconds) and was killed.
    TimedOut(f64),
    /// Its stdout or stderr grew past the limit (bytes) and it was killed.
    TooMuchOutput(u64),
    /// The stream was cancelled (another chunk failed).
    Cancelled,
    /// SIGINT or SIGTERM arrived (the signal number).
    Interrupted(i32),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Io(m) => write!(f, "{m}"),
            RunError::TimedOut(s) => write!(f, "ran longer than {s:.0} s; killed"),
            RunError::TooMuchOutput(n) => write!(
                f,
                "printed more than {n} bytes (far more than a listing of its words); killed"
            ),
            RunError::Cancelled => write!(f, "cancelled"),
            RunError::Interrupted(s) => write!(f, "interrupted by signal {s}"),
        }
    }
}

/// Limits of one run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Wall-clock time, including reading the output back.
    pub time: Duration,
    /// Bytes of stdout, and of stderr, each.
    pub output: u64,
}

/// Run `program args...` with stdin closed and stdout/stderr going to `stdout.txt` and
/// `stderr.txt` in `scratch`, in a process group of its own; wait for it while checking the
/// limits, `cancel` and the signal flag every few milliseconds. Whatever the outcome, the
/// whole group is killed before returning (children a wrapper left behind too).
pub(crate) fn run(
    program: &Path,
    args: &[&std::ffi::OsStr],
    scratch: &Path,
    limits: Limits,
    cancel: &AtomicBool,
) -> Result<RunOutput, RunError> {
    let out_path = scratch.join("stdout.txt");
    let err_path = scratch.join("stderr.txt");
    let io = |what: &Path, e: std::io::Error| RunError::Io(format!("{}: {e}", what.display()));
    let out_f = fs::File::create(&out_path).map_err(|e| io(&out_path, e))?;
    let err_f = fs::File::create(&err_path).map_err(|e| io(&err_path, e))?;
    let mut cmd = Command::new(program);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(out_f)
        .stderr(err_f)
        .process_group(0);
    set_parent_death_signal(&mut cmd);
    let mut child = cmd
        .spawn()
        .map_err(|e| RunError::Io(format!("cannot run {}: {e}", program.display())))?;
    let start = Instant::now();
    let waited = wait(&mut child, start, limits, cancel, &[&out_path, &err_path]);
    kill_group(&mut child);
    let ok = waited?;
    let stdout = read_capped(&out_path, limits.output)?;
    let stderr = read_capped(&err_path, limits.output)?;
    if start.elapsed() > limits.time {
        return Err(RunError::TimedOut(limits.time.as_secs_f64()));
    }
    Ok(RunOutput {
        ok,
        stdout,
        stderr,
        deadline: start + limits.time,
    })
}

/// Wait until the child exits (`Ok(success)`) or a limit, `cancel` or a signal stops it.
/// The child is not reaped (`WNOWAIT`), so its process group id stays reserved for
/// [`kill_group`]. On Linux the wait blocks on the child's pidfd and wakes at its exit or
/// every [`CHECK_EVERY`] for the other checks; elsewhere it polls, at most 5 ms apart.
fn wait(
    child: &mut Child,
    start: Instant,
    limits: Limits,
    cancel: &AtomicBool,
    outputs: &[&Path],
) -> Result<bool, RunError> {
    let exit = ExitNotice::open(child);
    let mut nap = Duration::from_millis(1);
    loop {
        if let Some(status) = exited(child)? {
            return Ok(status);
        }
        if let Some(sig) = interrupt::received() {
            return Err(RunError::Interrupted(sig));
        }
        if cancel.load(Ordering::Relaxed) {
            return Err(RunError::Cancelled);
        }
        if start.elapsed() > limits.time {
            return Err(RunError::TimedOut(limits.time.as_secs_f64()));
        }
        if outputs
            .iter()
            .any(|p| fs::metadata(p).is_ok_and(|m| m.len() > limits.output))
        {
            return Err(RunError::TooMuchOutput(limits.output));
        }
        match &exit {
            Some(e) => e.wait(CHECK_EVERY),
            None => {
                std::thread::sleep(nap);
                // At most 5 ms late: a run takes 0.3 s or more (nvdisasm's start-up alone).
                nap = (nap * 2).min(Duration::from_millis(5));
            }
        }
    }
}

/// How often a blocking wait wakes to check the limits, `cancel` and the signal flag.
const CHECK_EVERY: Duration = Duration::from_millis(50);

/// A file descriptor that becomes readable when a child exits (Linux `pidfd_open(2)`), so
/// a wait neither spins nor sleeps past the exit.
struct ExitNotice(std::os::fd::OwnedFd);

impl ExitNotice {
    /// None where pidfds do not exist (not Linux, or a kernel before 5.3): then poll.
    fn open(child: &Child) -> Option<ExitNotice> {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::FromRawFd;
            // SAFETY: pidfd_open on our own child's pid; it returns a new fd or -1.
            let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, child.id() as libc::pid_t, 0) };
            // SAFETY: a non-negative return is a fresh fd that nothing else owns.
            (fd >= 0).then(|| ExitNotice(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd as i32) }))
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = child;
            None
        }
    }

    /// Blocks until the child exits or `timeout` passes (or a signal arrives).
    fn wait(&self, timeout: Duration) {
        use std::os::fd::AsRawFd;
        let mut p = libc::pollfd {
            fd: self.0.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: poll on one valid pollfd we own, for a bounded time.
        unsafe {
            libc::poll(&mut p, 1, timeout.as_millis() as libc::c_int);
        }
    }
}

/// `Some(success)` once the child has exited, without reaping it.
fn exited(child: &Child) -> Result<Option<bool>, RunError> {
    // SAFETY: `info` is a plain C struct written by the kernel; zeroed is a valid value.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
    // SAFETY: waitid on our own child's pid with a valid out-pointer.
    let r = unsafe { libc::waitid(libc::P_PID, child.id(), &mut info, flags) };
    if r != 0 {
        let e = std::io::Error::last_os_error();
        return Err(RunError::Io(format!("waiting for nvdisasm: {e}")));
    }
    // SAFETY: si_pid/si_status are valid to read after a successful waitid.
    let (pid, status, code) = unsafe { (info.si_pid(), info.si_status(), info.si_code) };
    if pid == 0 {
        return Ok(None);
    }
    Ok(Some(code == libc::CLD_EXITED && status == 0))
}

/// SIGKILL the child's whole process group, then reap the child.
fn kill_group(child: &mut Child) {
    let pgid = child.id() as libc::pid_t;
    // SAFETY: kill(2) with a negative pid signals that process group; no memory involved.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
    let _ = child.wait();
}

/// Ask the kernel to SIGKILL the child when this process dies (Linux only).
fn set_parent_death_signal(cmd: &mut Command) {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl is async-signal-safe, as pre_exec requires.
    unsafe {
        cmd.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cmd;
}

/// A file's bytes as text (lossy UTF-8), refusing one longer than `cap` bytes.
fn read_capped(path: &Path, cap: u64) -> Result<String, RunError> {
    let len = fs::metadata(path)
        .map_err(|e| RunError::Io(format!("{}: {e}", path.display())))?
        .len();
    if len > cap {
        return Err(RunError::TooMuchOutput(cap));
    }
    let bytes = fs::read(path).map_err(|e| RunError::Io(format!("{}: {e}", path.display())))?;
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// The name every scratch folder starts with, followed by the owning process id and `-`.
const SCRATCH_PREFIX: &str = "sass-conform-nvdisasm-";

/// A new scratch folder for one chunk's files, in the system temp folder, removed when
/// dropped (on errors and on SIGINT/SIGTERM too). The first call also removes the scratch
/// folders of processes that no longer exist (left by a `kill -9`).
pub(crate) fn scratch_dir() -> std::io::Result<tempfile::TempDir> {
    static SWEEP: std::sync::Once = std::sync::Once::new();
    SWEEP.call_once(|| sweep_stale_scratch(&std::env::temp_dir()));
    tempfile::Builder::new()
        .prefix(&format!("{SCRATCH_PREFIX}{}-", std::process::id()))
        .tempdir()
}

/// Remove the scratch folders in `dir` whose owning process is gone.
pub(crate) fn sweep_stale_scratch(dir: &Path) {
    let Ok(rd) = fs::read_dir(dir) else { return };
    for ent in rd.flatten() {
        let name = ent.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(SCRATCH_PREFIX))
            .and_then(|rest| rest.split('-').next())
            .and_then(|p| p.parse::<i32>().ok())
        else {
            continue;
        };
        if !process_exists(pid) {
            let _ = fs::remove_dir_all(ent.path());
        }
    }
}

/// Whether process `pid` exists (kill with signal 0; EPERM means it exists).
pub(crate) fn process_exists(pid: i32) -> bool {
    // SAFETY: kill(2) with signal 0 only checks; no memory involved.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// How long `nvdisasm --version` may take before the binary counts as broken (it answers in
/// ~0.1 s; a hung one would otherwise freeze every command that locates nvdisasm).
pub(crate) const VERSION_TIMEOUT: Duration = Duration::from_secs(30);

/// `path --version`'s output (stdout then stderr), through [`run`] with
/// [`VERSION_TIMEOUT`] and 1 MB of output at most.
pub(crate) fn version_output(path: &Path) -> Result<RunOutput, RunError> {
    // A scratch folder named with this process id like every other: one left by a SIGKILL
    // during the probe is swept by the next run (tests/faults.rs found such a folder, named
    // without the pid, after SIGKILL; FAULTS_SEED=1796154057606141284).
    let scratch = scratch_dir().map_err(|e| RunError::Io(format!("scratch folder: {e}")))?;
    let limits = Limits {
        time: VERSION_TIMEOUT,
        output: 1 << 20,
    };
    let never = AtomicBool::new(false);
    run(
        path,
        &["--version".as_ref()],
        scratch.path(),
        limits,
        &never,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn script(dir: &Path, body: &str) -> std::path::PathBuf {
        let p = dir.join("fake.sh");
        fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    fn limits(output: u64) -> Limits {
        Limits {
            time: Duration::from_secs(60),
            output,
        }
    }

    #[test]
    fn output_and_status_are_returned() {
        let d = tempfile::tempdir().unwrap();
        let p = script(d.path(), "echo out \"$1\"; echo err >&2; exit 3");
        let never = AtomicBool::new(false);
        let r = run(&p, &["x".as_ref()], d.path(), limits(1000), &never).unwrap();
        assert_eq!(
            (r.ok, r.stdout.as_str(), r.stderr.as_str()),
            (false, "out x\n", "err\n")
        );
        let p = script(d.path(), "printf 'ok'");
        let r = run(&p, &[], d.path(), limits(1000), &never).unwrap();
        assert!(r.ok);
        assert_eq!(r.stdout, "ok");
    }

    #[test]
    fn too_much_output_is_an_error() {
        let d = tempfile::tempdir().unwrap();
        let p = script(d.path(), "head -c 5000 /dev/zero");
        let never = AtomicBool::new(false);
        let r = run(&p, &[], d.path(), limits(4096), &never).unwrap_err();
        assert_eq!(r, RunError::TooMuchOutput(4096));
    }

    #[test]
    fn a_cancelled_run_is_killed_with_its_children() {
        let d = tempfile::tempdir().unwrap();
        let pidfile = d.path().join("child.pid");
        let p = script(
            d.path(),
            &format!("sleep 1000 & echo $! > {}; wait", pidfile.display()),
        );
        let cancel = AtomicBool::new(false);
        std::thread::scope(|s| {
            let h = s.spawn(|| run(&p, &[], d.path(), limits(1000), &cancel));
            while !pidfile.is_file() || fs::read_to_string(&pidfile).unwrap().trim().is_empty() {
                std::thread::yield_now();
            }
            cancel.store(true, Ordering::Relaxed);
            assert_eq!(h.join().unwrap().unwrap_err(), RunError::Cancelled);
        });
        let pid: i32 = fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // The grandchild goes (SIGKILLed with the group, then reaped by init); a SIGKILLed
        // process may take a moment to die, so wait for it, with a generous bound.
        let gone = || {
            let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            stat.is_empty() || stat.contains(") Z ")
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while !gone() {
            assert!(Instant::now() < deadline, "process {pid} still running");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    #[test]
    fn stale_scratch_folders_are_swept() {
        let d = tempfile::tempdir().unwrap();
        // No process has pid 2^22 + 1 (above Linux's pid_max limit).
        let stale = d.path().join(format!("{SCRATCH_PREFIX}4194305-abc"));
        let live = d
            .path()
            .join(format!("{SCRATCH_PREFIX}{}-abc", std::process::id()));
        let other = d.path().join("someone-else-4194305");
        for p in [&stale, &live, &other] {
            fs::create_dir(p).unwrap();
        }
        sweep_stale_scratch(d.path());
        assert!(!stale.exists());
        assert!(live.exists() && other.exists());
    }

    #[test]
    fn a_missing_program_is_an_io_error() {
        let d = tempfile::tempdir().unwrap();
        let never = AtomicBool::new(false);
        let r = run(
            Path::new("/nonexistent/nvdisasm"),
            &[],
            d.path(),
            limits(10),
            &never,
        );
        match r {
            Err(RunError::Io(m)) => {
                assert!(m.starts_with("cannot run /nonexistent/nvdisasm"), "{m}")
            }
            other => panic!("{other:?}"),
        }
    }
}
