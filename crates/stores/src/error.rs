//! Why one session could not be read: the one error of every reader,
//! which the program turns into `SESSION_REFERENCE_READ_FAILED`. A module
//! of its own at the base of the crate, so that every kind, the indexes
//! and the catalog share it without importing one another.

use std::fmt;
use std::path::{Path, PathBuf};

/// Why one session could not be read; becomes `SESSION_REFERENCE_READ_FAILED`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    /// The log file.
    pub path: PathBuf,
    /// The 1-based line at fault, when one is.
    pub line: Option<u64>,
    /// What is wrong.
    pub message: String,
}

impl ReadError {
    /// A fault at one line of `path`.
    pub fn at(path: &Path, line: u64, message: &str) -> Self {
        ReadError {
            path: path.to_owned(),
            line: Some(line),
            message: message.to_owned(),
        }
    }

    /// An I/O failure on `path`.
    pub fn io(path: &Path, error: &std::io::Error) -> Self {
        ReadError {
            path: path.to_owned(),
            line: None,
            message: error.to_string(),
        }
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&session_ref_core::escape::path_for_person(&self.path))?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ReadError {}
