//! opencode's sessions from before its database: JSON files under the data
//! directory's `storage/` (opencode 0.x to 1.1), one file per record:
//!
//! - `storage/session/<projectID>/<sessionID>.json`: the session
//!   (`{id, projectID, directory, parentID?, title, version, time:
//!   {created, updated, archived?}, revert?}`);
//! - `storage/message/<sessionID>/<messageID>.json`: a message (the
//!   database's `message.data` with `id` and `sessionID` inline);
//! - `storage/part/<messageID>/<partID>.json`: a part (`part.data` with
//!   `id`, `messageID`, `sessionID` inline).
//!
//! The record of a legacy session is its session file. Messages are put in
//! the order opencode reads them (`time.created`, then id), parts in id
//! order (their file names).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::convo::StoredMessage;

/// What listing keeps of a session file (also kept in the title index as
/// the file's fact, so an unchanged file is not parsed again).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Head {
    /// `id`.
    pub id: String,
    /// `parentID` of a sub-agent session.
    pub parent_id: Option<String>,
    /// `directory`.
    pub directory: Option<String>,
    /// `title`.
    pub title: Option<String>,
    /// `time.created` (ms).
    pub created: Option<i64>,
    /// `time.updated` (ms).
    pub updated: Option<i64>,
    /// `time.archived` (ms).
    pub archived: Option<i64>,
    /// `revert` as JSON.
    pub revert: Option<String>,
}

#[derive(Deserialize)]
struct SessionFile {
    id: Option<String>,
    #[serde(rename = "parentID", default)]
    parent_id: Option<String>,
    #[serde(default)]
    directory: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    time: Times,
    #[serde(default)]
    revert: Option<Box<serde_json::value::RawValue>>,
}

#[derive(Deserialize, Default)]
struct Times {
    #[serde(default)]
    created: Option<f64>,
    #[serde(default)]
    updated: Option<f64>,
    #[serde(default)]
    archived: Option<f64>,
}

/// The head of a session file's bytes; `Err` says why it is not one.
pub fn parse_head(bytes: &[u8]) -> Result<Head, String> {
    let file: SessionFile =
        serde_json::from_slice(bytes).map_err(|e| format!("not an opencode session file: {e}"))?;
    let id = file
        .id
        .filter(|id| !id.is_empty())
        .ok_or("not an opencode session file: no id")?;
    let ms = |t: Option<f64>| t.filter(|t| t.is_finite()).map(|t| t as i64);
    Ok(Head {
        id,
        parent_id: file.parent_id.filter(|p| !p.is_empty()),
        directory: file.directory.filter(|d| !d.is_empty()),
        title: file.title,
        created: ms(file.time.created),
        updated: ms(file.time.updated),
        archived: ms(file.time.archived),
        revert: file
            .revert
            .map(|r| r.get().to_owned())
            .filter(|r| r != "null"),
    })
}

/// The storage folder a session file lies in (`storage/session/<p>/<id>.json`).
pub fn storage_of(session_file: &Path) -> Option<&Path> {
    session_file.parent()?.parent()?.parent()
}

/// Every session file below `storage` (`session/*/*.json`), sorted; folders
/// that cannot be read are reported through `on_error`.
pub fn session_files(storage: &Path, on_error: &mut dyn FnMut(PathBuf, String)) -> Vec<PathBuf> {
    let sessions = storage.join("session");
    let mut files = Vec::new();
    let projects = match std::fs::read_dir(&sessions) {
        Ok(dir) => dir,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return files,
        Err(e) => {
            on_error(sessions, e.to_string());
            return files;
        }
    };
    for project in projects.flatten() {
        if !project.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        match std::fs::read_dir(project.path()) {
            Ok(dir) => files.extend(
                dir.flatten()
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "json")),
            ),
            Err(e) => on_error(project.path(), e.to_string()),
        }
    }
    files.sort();
    files
}

/// The JSON files directly in `dir`, sorted by name (ids sort in creation
/// order); none when it does not exist.
fn json_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    files.sort();
    Ok(files)
}

#[derive(Deserialize)]
struct MessageHead {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    time: Times,
}

/// The messages of session `id` in `storage`, with their parts, in
/// conversation order. A file that vanished or does not parse is passed
/// over (opencode rewrites them in place); a folder that cannot be read is
/// an error.
pub fn read_messages(storage: &Path, id: &str) -> std::io::Result<Vec<StoredMessage>> {
    let mut messages: Vec<(i64, StoredMessage)> = Vec::new();
    for path in json_files(&storage.join("message").join(id))? {
        let Ok(data) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(head) = serde_json::from_str::<MessageHead>(&data) else {
            continue;
        };
        let id = head.id.unwrap_or_else(|| stem(&path));
        let created = head.time.created.map_or(i64::MAX, |t| t as i64);
        let mut parts = Vec::new();
        for part in json_files(&storage.join("part").join(&id))? {
            if let Ok(json) = std::fs::read_to_string(&part) {
                parts.push((stem(&part), json));
            }
        }
        messages.push((
            created,
            StoredMessage {
                id,
                kind: None,
                data,
                parts,
            },
        ));
    }
    messages.sort_by(|a, b| (a.0, &a.1.id).cmp(&(b.0, &b.1.id)));
    Ok(messages.into_iter().map(|(_, m)| m).collect())
}

/// The files [`read_messages`] reads for the session `id` of the legacy
/// session file `session_file`: its message files and their parts' files
/// (what session-ref's archive keeps beside the session file).
pub fn message_files(session_file: &Path, id: &str) -> Vec<PathBuf> {
    let Some(storage) = storage_of(session_file) else {
        return Vec::new();
    };
    let messages = json_files(&storage.join("message").join(id)).unwrap_or_default();
    let mut files = Vec::new();
    for path in messages {
        let head = std::fs::read_to_string(&path)
            .ok()
            .and_then(|data| serde_json::from_str::<MessageHead>(&data).ok());
        let message = head.and_then(|h| h.id).unwrap_or_else(|| stem(&path));
        files.extend(json_files(&storage.join("part").join(&message)).unwrap_or_default());
        files.push(path);
    }
    files
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_file_gives_its_head() {
        let head = parse_head(
            br#"{"id":"ses_1","version":"0.15.0","projectID":"global","directory":"/p",
                "parentID":"ses_0","title":"T","time":{"created":1700000000000,"updated":1700000001000},
                "revert":{"messageID":"msg_2"}}"#,
        )
        .unwrap();
        assert_eq!(head.id, "ses_1");
        assert_eq!(head.parent_id.as_deref(), Some("ses_0"));
        assert_eq!(head.created, Some(1_700_000_000_000));
        assert_eq!(head.updated, Some(1_700_000_001_000));
        assert_eq!(head.revert.as_deref(), Some(r#"{"messageID":"msg_2"}"#));
        assert!(parse_head(b"{}").unwrap_err().contains("no id"));
        assert!(parse_head(b"[1]").is_err());
        assert!(parse_head(br#"{"id":"ses_2","revert":null}"#)
            .unwrap()
            .revert
            .is_none());
    }
}
