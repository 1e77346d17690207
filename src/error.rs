//! The one error type of session-ref, with stable codes.
//!
//! Every failure a user can see carries a `SESSION_REFERENCE_*` code: one of
//! the seven of the contract (SPEC §9), or, for failures the contract does
//! not cover, one of our own ([`ErrorCode::BEYOND_SPEC`]: no terminal,
//! delivery, tmux, a refused paste, an agent to start missing or unable to
//! start there, internal, the archive), so that no failure is reported under a
//! code that means something else. The contract's codes are the core's
//! ([`ErrorCode::Contract`]): each code's string is written once.
//!
//! Every failure reaches a person one way: [`Error::report`] writes
//! [`Error::stderr_line`] (the message escaped as
//! `session_ref_core::escape` says) and gives the exit code; where the line
//! travels inside JSON first (a hook's block reason, an MCP error), the same
//! escaped line is what goes in, since the agent parses the JSON back into
//! raw characters before it shows them.
//!
//! Each lower layer's error becomes this one through one `From` below (the
//! core's keeps its code, a store's read error is `READ_FAILED`); a new
//! crate's error gets its own `From` and nothing else changes.

use std::fmt;

/// A stable, machine-readable failure code: one of the contract's seven,
/// which are the core's codes (the one place each of their strings is
/// written: [`session_ref_core::ErrorCode::as_str`]), or one of the
/// program's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// A failure the contract names (SPEC §9), as the core names it.
    Contract(session_ref_core::ErrorCode),
    /// The picker has no usable terminal (none to open, or it went away).
    Terminal,
    /// The result could not be delivered (stdout, file, `--exec`, tmux).
    DeliveryFailed,
    /// tmux cannot do what was asked: `--tmux` inside tmux with no server
    /// or no client to show the popup, `--tmux-paste` naming no pane.
    Tmux,
    /// `--tmux-paste` was refused: a shell would read the pasted text
    /// (session text is untrusted), unless `--tmux-paste-force`.
    PasteRefused,
    /// `resume` or `handoff`: the agent to start is not on `PATH`.
    AgentMissing,
    /// `resume` or `handoff` cannot start the agent there: the session's
    /// cwd is gone or unknown, its log vanished, it is another machine's,
    /// its agent has no resume command line, or the first prompt cannot
    /// be passed.
    CannotLaunch,
    /// session-ref itself failed (a panic in a worker, a signal handler
    /// that cannot be installed).
    Internal,
    /// The archive (`keep`) could not be written or read: a full disk, a
    /// damaged manifest, a folder that is not an archive.
    ArchiveFailed,
}

/// The contract's codes under their own names, so that `ErrorCode::TooMany`
/// reads (and matches) as the program's other codes do.
#[allow(non_upper_case_globals)]
impl ErrorCode {
    /// A configuration value or flag is out of range.
    pub const InvalidConfig: ErrorCode = ErrorCode::Contract(Core::InvalidConfig);
    /// A mention, URI, id or input message is malformed or unknown.
    pub const InvalidReference: ErrorCode = ErrorCode::Contract(Core::InvalidReference);
    /// A message cites the target session itself.
    pub const SelfReference: ErrorCode = ErrorCode::Contract(Core::SelfReference);
    /// A message cites more distinct sessions than `maxReferences`.
    pub const TooMany: ErrorCode = ErrorCode::Contract(Core::TooMany);
    /// A referenced session could not be read.
    pub const ReadFailed: ErrorCode = ErrorCode::Contract(Core::ReadFailed);
    /// A referenced session cannot fit `maxReferenceBytes`.
    pub const BudgetExceeded: ErrorCode = ErrorCode::Contract(Core::BudgetExceeded);
    /// The user cancelled the operation.
    pub const Cancelled: ErrorCode = ErrorCode::Contract(Core::Cancelled);
}

use session_ref_core::ErrorCode as Core;

impl ErrorCode {
    /// The code as written on stderr and in JSON, e.g. `SESSION_REFERENCE_TOO_MANY`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Contract(code) => code.as_str(),
            ErrorCode::Terminal => "SESSION_REFERENCE_TERMINAL",
            ErrorCode::DeliveryFailed => "SESSION_REFERENCE_DELIVERY_FAILED",
            ErrorCode::Tmux => "SESSION_REFERENCE_TMUX",
            ErrorCode::PasteRefused => "SESSION_REFERENCE_PASTE_REFUSED",
            ErrorCode::AgentMissing => "SESSION_REFERENCE_AGENT_MISSING",
            ErrorCode::CannotLaunch => "SESSION_REFERENCE_CANNOT_LAUNCH",
            ErrorCode::Internal => "SESSION_REFERENCE_INTERNAL",
            ErrorCode::ArchiveFailed => "SESSION_REFERENCE_ARCHIVE_FAILED",
        }
    }

    /// Every code of the contract, in its order (the core's).
    pub const ALL: [ErrorCode; 7] = {
        let core = Core::ALL;
        let mut all = [ErrorCode::Internal; 7];
        let mut i = 0;
        while i < core.len() {
            all[i] = ErrorCode::Contract(core[i]);
            i += 1;
        }
        all
    };

    /// The codes of failures outside the contract, in README order.
    pub const BEYOND_SPEC: [ErrorCode; 8] = [
        ErrorCode::Terminal,
        ErrorCode::DeliveryFailed,
        ErrorCode::Tmux,
        ErrorCode::PasteRefused,
        ErrorCode::AgentMissing,
        ErrorCode::CannotLaunch,
        ErrorCode::Internal,
        ErrorCode::ArchiveFailed,
    ];
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failure with its stable code and a human-readable diagnosis.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct Error {
    /// The stable code.
    pub code: ErrorCode,
    /// What went wrong, for a person.
    pub message: String,
    /// Whether the command line asked for something that cannot be done
    /// (a bad regex, a store flag naming no store): exit 2, as grep and rg
    /// say so, rather than 1 (see [`Error::exit_code`]).
    pub usage: bool,
}

/// Exit code of a failed run.
pub const EXIT_FAILED: u8 = 1;
/// Exit code of a search or listing that found nothing (as grep, rg and
/// `fzf --filter`): no error line, nothing on stdout.
pub const EXIT_NO_MATCH: u8 = 1;
/// Exit code of a usage error: a command line clap rejects, or an
/// [`Error::usage`] one.
pub const EXIT_USAGE: u8 = 2;
/// Exit code of a run the user cancelled or aborted.
pub const EXIT_CANCELLED: u8 = 130;

impl Error {
    /// An error with `code` and `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
            usage: false,
        }
    }

    /// This error, as a usage error (exit 2): what the command line asked
    /// for cannot be done as written, whatever the stores hold.
    pub fn usage(mut self) -> Self {
        self.usage = true;
        self
    }

    /// The one mapping from a failure to the process's exit code (SPEC
    /// §10): 130 cancelled, 2 a usage error, else 1.
    pub fn exit_code(&self) -> u8 {
        if self.code == ErrorCode::Cancelled {
            EXIT_CANCELLED
        } else if self.usage {
            EXIT_USAGE
        } else {
            EXIT_FAILED
        }
    }

    /// `SESSION_REFERENCE_INVALID_CONFIG`.
    pub fn invalid_config(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidConfig, message)
    }

    /// `SESSION_REFERENCE_INVALID_REFERENCE`.
    pub fn invalid_reference(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidReference, message)
    }

    /// `SESSION_REFERENCE_READ_FAILED`.
    pub fn read_failed(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::ReadFailed, message)
    }

    /// `SESSION_REFERENCE_TERMINAL`.
    pub fn terminal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Terminal, message)
    }

    /// `SESSION_REFERENCE_DELIVERY_FAILED`.
    pub fn delivery_failed(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::DeliveryFailed, message)
    }

    /// `SESSION_REFERENCE_TMUX`.
    pub fn tmux(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Tmux, message)
    }

    /// `SESSION_REFERENCE_PASTE_REFUSED`.
    pub fn paste_refused(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::PasteRefused, message)
    }

    /// `SESSION_REFERENCE_AGENT_MISSING`.
    pub fn agent_missing(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::AgentMissing, message)
    }

    /// `SESSION_REFERENCE_CANNOT_LAUNCH`.
    pub fn cannot_launch(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::CannotLaunch, message)
    }

    /// `SESSION_REFERENCE_INTERNAL`.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Internal, message)
    }

    /// An internal error for a panic's payload.
    pub fn from_panic(payload: &(dyn std::any::Any + Send)) -> Self {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_owned());
        Self::internal(format!("a worker failed: {what}"))
    }

    /// The line written on stderr: `session-ref: CODE: message`, the
    /// message escaped for a person's terminal (it may quote paths and
    /// session text: see [`crate::display::escape_unsafe_lines`]).
    pub fn stderr_line(&self) -> String {
        format!("session-ref: {}: {}", self.code, self.message_for_person())
    }

    /// The message as a person may see it: escaped as on stderr, also where
    /// it travels inside JSON first (a hook's block reason, an MCP error),
    /// since the agent parses that JSON back into the raw characters before
    /// it shows them.
    pub fn message_for_person(&self) -> std::borrow::Cow<'_, str> {
        crate::display::escape_unsafe_lines(&self.message)
    }

    /// The one path from a failure to the end of a run, for every front-end
    /// (`main`, the hooks and installers, the MCP server): its
    /// [`Error::stderr_line`] on stderr, escaped, and its
    /// [`Error::exit_code`] as the process's.
    pub fn report(&self) -> std::process::ExitCode {
        eprintln!("{}", self.stderr_line());
        std::process::ExitCode::from(self.exit_code())
    }

    /// `SESSION_REFERENCE_CANCELLED`.
    pub fn cancelled() -> Self {
        Self::new(
            ErrorCode::Cancelled,
            "session reference preparation was cancelled",
        )
    }
}

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A code of the contract is the core's.
impl From<session_ref_core::ErrorCode> for ErrorCode {
    fn from(code: session_ref_core::ErrorCode) -> Self {
        ErrorCode::Contract(code)
    }
}

/// A session that could not be read is `SESSION_REFERENCE_READ_FAILED`.
impl From<session_ref_stores::archive::ArchiveError> for Error {
    fn from(e: session_ref_stores::archive::ArchiveError) -> Self {
        Error::new(ErrorCode::ArchiveFailed, format!("keep: {}", e.message))
    }
}

impl From<session_ref_stores::ReadError> for Error {
    fn from(e: session_ref_stores::ReadError) -> Self {
        Error::read_failed(format!("failed to read referenced session: {e}"))
    }
}

/// A failure of the engine keeps its code and message.
impl From<session_ref_engine::Error> for Error {
    fn from(e: session_ref_engine::Error) -> Self {
        Error::new(e.code().into(), e.to_string())
    }
}

/// A failure of the core keeps its code and message.
impl From<session_ref_core::Error> for Error {
    fn from(e: session_ref_core::Error) -> Self {
        Error::new(e.code.into(), e.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_the_contracts_and_distinct() {
        let names: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(
            names,
            [
                "SESSION_REFERENCE_INVALID_CONFIG",
                "SESSION_REFERENCE_INVALID_REFERENCE",
                "SESSION_REFERENCE_SELF_REFERENCE",
                "SESSION_REFERENCE_TOO_MANY",
                "SESSION_REFERENCE_READ_FAILED",
                "SESSION_REFERENCE_BUDGET_EXCEEDED",
                "SESSION_REFERENCE_CANCELLED",
            ]
        );
        let error = Error::read_failed("gone");
        assert_eq!(error.to_string(), "SESSION_REFERENCE_READ_FAILED: gone");
        assert_eq!(
            error.stderr_line(),
            "session-ref: SESSION_REFERENCE_READ_FAILED: gone"
        );
        assert_eq!(Error::cancelled().code, ErrorCode::Cancelled);
        let ours: Vec<&str> = ErrorCode::BEYOND_SPEC.iter().map(|c| c.as_str()).collect();
        assert_eq!(
            ours,
            [
                "SESSION_REFERENCE_TERMINAL",
                "SESSION_REFERENCE_DELIVERY_FAILED",
                "SESSION_REFERENCE_TMUX",
                "SESSION_REFERENCE_PASTE_REFUSED",
                "SESSION_REFERENCE_AGENT_MISSING",
                "SESSION_REFERENCE_CANNOT_LAUNCH",
                "SESSION_REFERENCE_INTERNAL",
                "SESSION_REFERENCE_ARCHIVE_FAILED",
            ]
        );
        assert!(ours.iter().all(|c| !names.contains(c)));
        let core: Vec<&str> = session_ref_core::ErrorCode::ALL
            .iter()
            .map(|&c| ErrorCode::from(c).as_str())
            .collect();
        assert_eq!(core, names);
        let panic = std::panic::catch_unwind(|| panic!("boom")).unwrap_err();
        assert_eq!(Error::from_panic(&*panic).code, ErrorCode::Internal);
    }

    #[test]
    fn a_control_sequence_in_a_message_never_reaches_a_person_raw() {
        let raw = "from host\u{1b}]0;pwned\u{7} \u{1b}[2J\u{202e}gnp.exe\u{9b}31m\nsecond line";
        let error = Error::read_failed(raw);
        let line = error.stderr_line();
        assert!(
            !line
                .chars()
                .any(|c| session_ref_core::escape::is_unsafe(c) && c != '\n'),
            "{line:?}"
        );
        assert_eq!(
            line,
            "session-ref: SESSION_REFERENCE_READ_FAILED: from host\\u001b]0;pwned\\u0007 \\u001b[2J\\u202egnp.exe\\u009b31m\nsecond line"
        );
        assert_eq!(
            error.message_for_person(),
            line.split_once("READ_FAILED: ").unwrap().1
        );
        // Through JSON and back, as an agent reads a hook's reason or an MCP error.
        let sent = serde_json::to_string(&line).unwrap();
        let read: String = serde_json::from_str(&sent).unwrap();
        assert!(
            !read.contains(['\u{1b}', '\u{7}', '\u{202e}', '\u{9b}']),
            "{read:?}"
        );
        let core = Error::from(session_ref_core::Error::invalid_reference("id \u{1b}[31m"));
        assert_eq!(core.code, ErrorCode::InvalidReference);
        assert!(!core.stderr_line().contains('\u{1b}'));
        let panic = std::panic::catch_unwind(|| panic!("boom")).unwrap_err();
        assert_eq!(Error::from_panic(&*panic).code, ErrorCode::Internal);
    }
}
