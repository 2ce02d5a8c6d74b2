//! SIGINT and SIGTERM for the commands that write the oracle (`oracle run`, `oracle record`):
//! a signal sets a flag instead of ending the process, so that the nvdisasm process groups
//! are killed, scratch folders and temp files removed and the previous oracle left as it was;
//! the command then fails with [`super::OracleError::Interrupted`] and exits 128 + signal
//! (130 for SIGINT, 143 for SIGTERM).
//!
//! Inside an [`AtOnce`] (work that writes nothing before its end) a signal ends the process
//! at once instead.
//!
//! Until [`install`] is called, the signals keep their default action (other commands die at
//! once, which is fine: they write nothing that matters before their final rename).

use std::sync::Once;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The signal received (0: none).
static RECEIVED: AtomicUsize = AtomicUsize::new(0);
static INSTALL: Once = Once::new();
/// Set while an [`AtOnce`] lives: a signal ends the process in the handler.
static AT_ONCE: AtomicBool = AtomicBool::new(false);

/// What the handler writes to stderr before it ends the process inside an [`AtOnce`].
const AT_ONCE_MESSAGE: &[u8] = b"\nsass-conform: interrupted during a learning step, which writes \
nothing before its end; every answer recorded so far is kept (run the same command again to \
go on)\n";

/// While one lives, SIGINT and SIGTERM end the process at once (exit status 128 + signal,
/// after a line on stderr) instead of setting the flag the command reads between its steps:
/// for work that writes nothing until its last rename and can run for many minutes without
/// looking at the flag (`learn`'s learning steps, `resolve --write` in process; a Ctrl-C there
/// waited for the step to end, over half an hour on SM100 F2FP). Dropped: back to the flag.
#[must_use = "signals end the process only while the guard lives"]
pub struct AtOnce(());

impl AtOnce {
    /// Enters the at-once state; a signal already received ends the process here.
    pub fn enter() -> AtOnce {
        AT_ONCE.store(true, Ordering::SeqCst);
        if let Some(sig) = received() {
            end_now(sig);
        }
        AtOnce(())
    }
}

impl Drop for AtOnce {
    fn drop(&mut self) {
        AT_ONCE.store(false, Ordering::SeqCst);
    }
}

/// Writes [`AT_ONCE_MESSAGE`] and ends the process with 128 + `sig`; only async-signal-safe
/// calls (`write(2)`, `_exit(2)`).
fn end_now(sig: i32) -> ! {
    // SAFETY: write(2) on stderr with a valid static buffer; async-signal-safe.
    unsafe {
        libc::write(2, AT_ONCE_MESSAGE.as_ptr().cast(), AT_ONCE_MESSAGE.len());
    }
    signal_hook::low_level::exit(128 + sig)
}

/// Catch SIGINT and SIGTERM from now on: they set the flag [`received`] reads. Errors: the
/// handler could not be registered.
pub fn install() -> std::io::Result<()> {
    let mut result = Ok(());
    INSTALL.call_once(|| {
        for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            // SAFETY of the handler: it only stores into an atomic (async-signal-safe).
            let r = unsafe {
                signal_hook::low_level::register(sig, move || {
                    RECEIVED.store(sig as usize, Ordering::SeqCst);
                    if AT_ONCE.load(Ordering::SeqCst) {
                        end_now(sig);
                    }
                })
            };
            if let Err(e) = r {
                result = Err(e);
                return;
            }
        }
    });
    result
}

/// The signal received since [`install`], if any (`libc::SIGINT` or `libc::SIGTERM`).
pub fn received() -> Option<i32> {
    match RECEIVED.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s as i32),
    }
}

/// A [`super::OracleError::Interrupted`] when a signal was received.
pub fn check() -> Result<(), super::OracleError> {
    match received() {
        Some(signal) => Err(super::OracleError::Interrupted { signal }),
        None => Ok(()),
    }
}
