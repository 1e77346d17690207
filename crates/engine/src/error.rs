//! The engine's failures, each kind with its stable code (SPEC §9).
//!
//! The engine fails only in the contract's terms: a rule of the core
//! (kept with its own code and message), a malformed request, a session argument or message
//! that names no one session, a session that cannot be read, snapshots
//! that cannot fit. The message is for a person but not escaped: the
//! front-end that shows it escapes it as `core::escape` says. The program's
//! error wraps this one (`From`), keeping code and message byte for byte.

use session_ref_core::ErrorCode;

/// A failure of the engine.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A rule of the core refused (a malformed mention or URI, a
    /// self-reference, too many sessions, a budget too small): its code
    /// and message are kept.
    #[error("{}", .0.message)]
    Core(#[from] session_ref_core::Error),
    /// A request is malformed (a `remote serve` request that is not JSON
    /// or of no known kind, a search query that does not parse):
    /// `SESSION_REFERENCE_INVALID_CONFIG`.
    #[error("{0}")]
    InvalidConfig(String),
    /// A session argument or an input message is malformed, or names
    /// more than one session: `SESSION_REFERENCE_INVALID_REFERENCE`.
    #[error("{0}")]
    InvalidReference(String),
    /// A cited session could not be read: not listed, its host not
    /// answering, its log unreadable: `SESSION_REFERENCE_READ_FAILED`.
    #[error("{0}")]
    ReadFailed(String),
    /// The cited sessions cannot fit what the host keeps:
    /// `SESSION_REFERENCE_BUDGET_EXCEEDED`.
    #[error("{0}")]
    BudgetExceeded(String),
}

impl Error {
    /// The stable code of this failure.
    pub fn code(&self) -> ErrorCode {
        match self {
            Error::Core(e) => e.code,
            Error::InvalidConfig(_) => ErrorCode::InvalidConfig,
            Error::InvalidReference(_) => ErrorCode::InvalidReference,
            Error::ReadFailed(_) => ErrorCode::ReadFailed,
            Error::BudgetExceeded(_) => ErrorCode::BudgetExceeded,
        }
    }
}

/// A session that could not be read is `SESSION_REFERENCE_READ_FAILED`.
impl From<session_ref_stores::ReadError> for Error {
    fn from(e: session_ref_stores::ReadError) -> Self {
        Error::ReadFailed(format!("failed to read referenced session: {e}"))
    }
}

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_carries_its_code_and_shows_its_message_alone() {
        let core = session_ref_core::Error::new(ErrorCode::TooMany, "three at most");
        let cases = [
            (Error::from(core), ErrorCode::TooMany, "three at most"),
            (
                Error::InvalidConfig("odd".into()),
                ErrorCode::InvalidConfig,
                "odd",
            ),
            (
                Error::InvalidReference("bad".into()),
                ErrorCode::InvalidReference,
                "bad",
            ),
            (
                Error::ReadFailed("gone".into()),
                ErrorCode::ReadFailed,
                "gone",
            ),
            (
                Error::BudgetExceeded("too long".into()),
                ErrorCode::BudgetExceeded,
                "too long",
            ),
        ];
        for (error, code, message) in cases {
            assert_eq!(error.code(), code);
            assert_eq!(error.to_string(), message);
        }
    }
}
