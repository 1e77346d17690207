//! Copilot CLI's `workspace.yaml` beside a transcript: the session's latest
//! cwd and its name (see the parent module's "`workspace.yaml`").

use std::path::{Path, PathBuf};

/// The session's metadata file beside the transcript.
pub const WORKSPACE: &str = "workspace.yaml";

/// The most of `workspace.yaml` read: Copilot writes a few hundred bytes;
/// anything far larger is not its file.
const MAX_WORKSPACE: u64 = 1 << 20;

/// The `workspace.yaml` beside a transcript.
pub(super) fn workspace_of(events: &Path) -> Option<PathBuf> {
    Some(events.parent()?.join(WORKSPACE))
}

/// What `workspace.yaml` says that the mapping uses.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Workspace {
    /// `cwd`: the directory of the session's latest run.
    pub cwd: Option<String>,
    /// `name`: the title Copilot shows.
    pub name: Option<String>,
    /// `user_named`: the name was given by the user (`/rename`, `-n`).
    pub user_named: bool,
}

/// Parse the text of a `workspace.yaml`; `None` when it is not a YAML
/// mapping. A scalar of another YAML type (a name `yes` or `123`) is read
/// as its text; a non-scalar value as absent.
pub fn parse_workspace(text: &str) -> Option<Workspace> {
    use serde_norway::Value;
    let value: Value = serde_norway::from_str(text).ok()?;
    let map = value.as_mapping()?;
    let text_of = |key: &str| -> Option<String> {
        match map.get(key)? {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    };
    Some(Workspace {
        cwd: text_of("cwd").filter(|c| !c.is_empty()),
        name: text_of("name"),
        user_named: matches!(map.get("user_named"), Some(Value::Bool(true))),
    })
}

/// The `workspace.yaml` beside `events`: `None` when it is missing,
/// unreadable, too large or not a mapping (the reader then falls back on
/// the transcript).
pub(super) fn read_workspace(events: &Path) -> Option<Workspace> {
    use std::io::Read;
    let path = workspace_of(events)?;
    let file = std::fs::File::open(path).ok()?;
    let mut text = String::new();
    file.take(MAX_WORKSPACE).read_to_string(&mut text).ok()?;
    parse_workspace(&text)
}
