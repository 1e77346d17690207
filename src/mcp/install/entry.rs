//! What every format's installer shares: the server's name, whether an
//! entry is ours, what an edit did, and the refusal of someone else's
//! server of our name.

use std::path::Path;

use serde_json::Value;

use crate::error::Error;

/// The name the server is registered under.
pub use crate::agents::MCP_SERVER as NAME;

/// Whether an entry runs a program named `session-ref` (its `command`,
/// Goose's `cmd`, or its `transport`'s: Cline).
pub fn is_ours(entry: &Value) -> bool {
    program_of(entry)
        .is_some_and(|p| Path::new(p).file_name().and_then(|n| n.to_str()) == Some(NAME))
}

/// The program an entry runs (`command`, or its first word; Goose calls
/// it `cmd`; Cline keeps it in `transport`).
pub(super) fn program_of(entry: &Value) -> Option<&str> {
    let command = entry
        .get("command")
        .or_else(|| entry.get("cmd"))
        .or_else(|| entry.get("transport")?.get("command"));
    match command {
        Some(Value::String(command)) => Some(command.as_str()),
        Some(Value::Array(command)) => command.first().and_then(Value::as_str),
        _ => None,
    }
}

/// What one edit did to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The new text.
    Changed(String),
    /// Already as wanted.
    Unchanged,
}

/// The refusal of a server named ours that runs `program`, another one.
pub(super) fn taken(path: &Path, program: impl std::fmt::Display) -> Error {
    Error::invalid_config(format!(
        "{} already has an MCP server named {NAME} that runs something else ({program}); \
         remove or rename it first",
        path.display()
    ))
}
