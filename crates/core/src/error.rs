//! The core's error: a failure of the reference semantics, with the
//! contract's code (SPEC §9).
//!
//! The core fails only in the ways the contract names (a malformed
//! reference, a self-reference, too many references, a budget that cannot
//! be met, a read that failed); the program maps these codes onto its own
//! error, which adds the failures that only a terminal, a pipe or a file
//! can cause.

use std::fmt;

/// A stable, machine-readable failure code of the contract (SPEC §9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// A configuration value is out of range.
    InvalidConfig,
    /// A mention, URI, id or input message is malformed or unknown.
    InvalidReference,
    /// A message cites the target session itself.
    SelfReference,
    /// A message cites more distinct sessions than `maxReferences`.
    TooMany,
    /// A referenced session could not be read.
    ReadFailed,
    /// A referenced session cannot fit `maxReferenceBytes`.
    BudgetExceeded,
    /// The operation was cancelled.
    Cancelled,
}

impl ErrorCode {
    /// The code as written on stderr and in JSON, e.g. `SESSION_REFERENCE_TOO_MANY`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidConfig => "SESSION_REFERENCE_INVALID_CONFIG",
            ErrorCode::InvalidReference => "SESSION_REFERENCE_INVALID_REFERENCE",
            ErrorCode::SelfReference => "SESSION_REFERENCE_SELF_REFERENCE",
            ErrorCode::TooMany => "SESSION_REFERENCE_TOO_MANY",
            ErrorCode::ReadFailed => "SESSION_REFERENCE_READ_FAILED",
            ErrorCode::BudgetExceeded => "SESSION_REFERENCE_BUDGET_EXCEEDED",
            ErrorCode::Cancelled => "SESSION_REFERENCE_CANCELLED",
        }
    }

    /// Every code, in the order of the contract.
    pub const ALL: [ErrorCode; 7] = [
        ErrorCode::InvalidConfig,
        ErrorCode::InvalidReference,
        ErrorCode::SelfReference,
        ErrorCode::TooMany,
        ErrorCode::ReadFailed,
        ErrorCode::BudgetExceeded,
        ErrorCode::Cancelled,
    ];
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failure with its contract code and a human-readable diagnosis.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct Error {
    /// The stable code.
    pub code: ErrorCode,
    /// What went wrong, for a person.
    pub message: String,
}

impl Error {
    /// An error with `code` and `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
        }
    }

    /// `SESSION_REFERENCE_INVALID_REFERENCE`.
    pub fn invalid_reference(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidReference, message)
    }

    /// `SESSION_REFERENCE_READ_FAILED`.
    pub fn read_failed(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::ReadFailed, message)
    }
}

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_the_contracts_and_distinct() {
        let names: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len());
        assert_eq!(
            Error::read_failed("gone").to_string(),
            "SESSION_REFERENCE_READ_FAILED: gone"
        );
    }
}
