//! Where a Gemini CLI store keeps its chats: project folders under `tmp/`
//! and the project roots they belong to (`.project_root`, `history/`,
//! `projects.json`, or a hash of a known root), the chat files of a folder,
//! and the names Gemini CLI derives (the project hash, a session's file-name
//! fragment). See "Layout" in the store's docs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::caches::{normalize_dir, Caches, TargetCwd};
use crate::error::ReadError;

/// The file-name prefix of a session chat (sub-agent chats have none).
const SESSION_PREFIX: &str = "session-";

/// The SHA-256 hex of a project root, as Gemini CLI names hash folders and
/// fills `projectHash`.
pub fn project_hash(root: &str) -> String {
    let digest = Sha256::digest(root.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The 8-character id fragment of a session's file names: the id with
/// every character outside `[A-Za-z0-9_-]` replaced by `_` per UTF-16 unit
/// (as JavaScript's replace sees it), cut to 8.
pub fn file_id(session_id: &str) -> String {
    session_id
        .chars()
        .flat_map(|c| {
            let safe = c.is_ascii_alphanumeric() || c == '_' || c == '-';
            let units = if safe { 1 } else { c.len_utf16() };
            std::iter::repeat_n(if safe { c } else { '_' }, units)
        })
        .take(8)
        .collect()
}

/// Whether a file name is a session chat (`session-….json` or `.jsonl`).
pub(super) fn is_session_file(name: &str) -> bool {
    name.starts_with(SESSION_PREFIX) && (name.ends_with(".json") || name.ends_with(".jsonl"))
}

/// A project folder under `tmp/`, with the root it belongs to when known.
#[derive(Debug, Clone)]
pub(super) struct Folder {
    /// `tmp/<name>`.
    pub(super) path: PathBuf,
    /// From its `.project_root` (slug folders).
    pub(super) root: Option<String>,
}

/// What the store root says about projects: its folders and the project
/// roots it knows, by hash.
#[derive(Debug, Default)]
pub(super) struct Projects {
    pub(super) folders: Vec<Folder>,
    by_hash: HashMap<String, String>,
}

impl Projects {
    /// Read `tmp/*`, their `.project_root`, `history/*/.project_root` and
    /// `projects.json`, and take the run's working directory ([`TargetCwd`])
    /// as one more candidate root: a hash folder whose root is recorded
    /// nowhere is matched by hashing it. An unreadable `tmp` is reported;
    /// other missing or unreadable pieces only leave roots unknown.
    pub(super) fn read(
        caches: &Caches,
        root: &Path,
        on_error: &mut dyn FnMut(PathBuf, String),
    ) -> Projects {
        let mut projects = Projects::default();
        let mut known: Vec<String> = Vec::new();
        if let Ok(text) = std::fs::read(root.join("projects.json")) {
            if let Ok(Value::Object(top)) = serde_json::from_slice::<Value>(&text) {
                if let Some(Value::Object(map)) = top.get("projects") {
                    known.extend(map.keys().cloned());
                }
            }
        }
        if let Ok(entries) = std::fs::read_dir(root.join("history")) {
            for entry in entries.flatten() {
                if let Some(project_root) = read_project_root(&entry.path()) {
                    known.push(project_root);
                }
            }
        }
        let tmp = root.join("tmp");
        match std::fs::read_dir(&tmp) {
            Ok(entries) => {
                let mut folders: Vec<Folder> = entries
                    .flatten()
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                    .map(|e| {
                        let path = e.path();
                        let root = read_project_root(&path);
                        Folder { path, root }
                    })
                    .collect();
                folders.sort_by(|a, b| a.path.cmp(&b.path));
                known.extend(folders.iter().filter_map(|f| f.root.clone()));
                projects.folders = folders;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => on_error(tmp, e.to_string()),
        }
        // Gemini CLI hashes its project root as Node's `path.resolve`
        // spells it (0.61.0: `getProjectHash` in
        // packages/core/src/utils/paths.ts over `Config.targetDir`, which is
        // `path.resolve(targetDir)`): the candidate is normalised alike.
        // Recorded roots come first, so a candidate never renames one.
        if let Some(cwd) = &caches.get::<TargetCwd>().0 {
            known.push(normalize_dir(cwd, None));
        }
        for project_root in known {
            projects
                .by_hash
                .entry(project_hash(&project_root))
                .or_insert(project_root);
        }
        projects
    }

    /// The project root of a chat in `folder` with this `projectHash`: the
    /// folder's `.project_root`, else a known root with that hash (the
    /// file's, or the folder's name for a hash folder), else unknown.
    pub(super) fn root_of(&self, folder: &Folder, hash: Option<&str>) -> Option<String> {
        if let Some(root) = &folder.root {
            return Some(root.clone());
        }
        let name = folder.path.file_name().and_then(|n| n.to_str());
        [hash, name]
            .into_iter()
            .flatten()
            .find_map(|h| self.by_hash.get(h).cloned())
    }
}

/// The project root recorded in `<dir>/.project_root`.
pub(super) fn read_project_root(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(".project_root")).ok()?;
    let root = text.trim_end_matches(['\n', '\r']);
    (!root.is_empty()).then(|| root.to_owned())
}

/// The session chats directly in `<folder>/chats/`, in path order, and the
/// sub-agent chats one level below.
pub(super) fn chat_files(folder: &Path) -> std::io::Result<(Vec<PathBuf>, Vec<PathBuf>)> {
    let chats = folder.join("chats");
    let mut sessions = Vec::new();
    let mut subagents = Vec::new();
    let entries = match std::fs::read_dir(&chats) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((sessions, subagents)),
        Err(e) => return Err(e),
    };
    for entry in entries.flatten() {
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if file_type.is_file() && is_session_file(&name) {
            sessions.push(path);
        } else if file_type.is_dir() {
            if let Ok(inner) = std::fs::read_dir(&path) {
                subagents.extend(
                    inner
                        .flatten()
                        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                        .map(|e| e.path())
                        .filter(|p| p.extension().is_some_and(|x| x == "jsonl")),
                );
            }
        }
    }
    sessions.sort();
    subagents.sort();
    Ok((sessions, subagents))
}

/// Whether a chat lies in an old hash-named project folder
/// (`tmp/<64 hex>/chats/`), which migration copied to a slug folder.
pub(super) fn in_hash_folder(path: &Path) -> bool {
    let folder = path
        .parent()
        .and_then(Path::parent)
        .and_then(Path::file_name);
    folder
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.len() == 64 && n.bytes().all(|b| b.is_ascii_hexdigit()))
}

pub(super) fn is_legacy(path: &Path) -> bool {
    path.extension().is_some_and(|x| x == "json")
}

/// The folders directly under `tmp`, in path order.
pub(super) fn project_folders(tmp: &Path) -> Result<Vec<PathBuf>, ReadError> {
    let mut folders: Vec<PathBuf> = std::fs::read_dir(tmp)
        .map_err(|e| ReadError::io(tmp, &e))?
        .flatten()
        .map(|entry| entry.path())
        .collect();
    folders.sort();
    Ok(folders)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_and_file_ids_match_gemini_cli() {
        // Observed: Gemini CLI 0.61.0 started in /tmp/gem/proj/My_App.
        assert_eq!(
            project_hash("/tmp/gem/proj/My_App"),
            "fe13a6283fa89c13f4ed1d3f99877c64ecb6e5e7b8604ff2a9447b399ee96cfc"
        );
        assert_eq!(file_id("4d4422a2-5827-4e1f-aaa5-95af1d1619ac"), "4d4422a2");
        assert_eq!(file_id("my.id"), "my_id");
        assert_eq!(file_id("a😀bcdefg"), "a__bcdef");
    }
}
