//! Signals, at the edge of the process only.
//!
//! `signal-hook` installs the handlers (async-signal-safe code is easy to
//! get wrong by hand); one thread, started once per process, turns each
//! delivered signal into a message on the caller's channel. The core never
//! sees a signal: the caller's loop decides what a signal ends.

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

use crate::error::{Error, Result};

/// What stops a one-shot command: Ctrl-C and `kill`.
pub const STOP_COMMAND: &[(i32, &str)] = &[(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")];

/// What stops the picker: a closed terminal too. (Ctrl-C itself arrives as
/// a key in raw mode; SIGINT comes from `kill -INT`.)
pub const STOP_PICKER: &[(i32, &str)] =
    &[(SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP"), (SIGINT, "SIGINT")];

/// Handle `which` from now on: each delivered signal is given, by name, to
/// `send`, which returns `false` once no one listens any more. The
/// handlers are installed before this returns, so no signal is lost.
pub fn forward(
    which: &'static [(i32, &'static str)],
    send: impl Fn(&'static str) -> bool + Send + 'static,
) -> Result<()> {
    let ids: Vec<i32> = which.iter().map(|&(id, _)| id).collect();
    let mut signals =
        Signals::new(&ids).map_err(|e| Error::internal(format!("cannot handle signals: {e}")))?;
    std::thread::Builder::new()
        .name("session-ref-signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                let name = which
                    .iter()
                    .find(|&&(id, _)| id == signal)
                    .map_or("a signal", |&(_, name)| name);
                if !send(name) {
                    break;
                }
            }
        })
        .map_err(|e| Error::internal(format!("cannot watch signals: {e}")))?;
    Ok(())
}
