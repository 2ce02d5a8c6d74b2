//! SIGINT and SIGTERM for the commands that write the oracle (`oracle run`, `oracle record`):
//! a signal sets a flag instead of ending the process, so that the nvdisasm process groups
//! are killed, scratch folders and temp files removed and the previous oracle left as it was;
//! the command then fails with [`super::OracleError::Interrupted`] and exits 128 + signal
//! (130 for SIGINT, 143 for SIGTERM).
//!
//! Until [`install`] is called, the signals keep their default action (other commands die at
//! once, which is fine: they write nothing that matters before their final rename).

use std::sync::Once;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The signal received (0: none).
static RECEIVED: AtomicUsize = AtomicUsize::new(0);
static INSTALL: Once = Once::new();

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
