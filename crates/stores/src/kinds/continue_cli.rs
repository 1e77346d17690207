//! Continue CLI sessions (npm `@continuedev/cli`, command `cn`), read from
//! its sessions folder. Follows Continue CLI 1.5.47, as
//! `../shared/spec/formats/continue.md` records it from running it offline
//! against the mock model (`-p` one-shots, `--resume` from another
//! directory, `--fork`, tool calls, `/rename`, `/compact`, a killed run).
//! The Continue IDE extensions share the folder and write the same shape.
//!
//! # Layout
//!
//! `$CONTINUE_GLOBAL_DIR/sessions` (a relative value against the current
//! directory, as `cn` resolves it), else `~/.continue/sessions`: one
//! `<uuid>.json` per session, rewritten whole after each turn, and the
//! index `sessions.json` (`[{sessionId, title, dateCreated, workspaceDirectory,
//! messageCount}]`). A root (`--continue DIR`) is that folder, the
//! `~/.continue` folder holding it, or one session file.
//!
//! # Record
//!
//! - Listed: every `<id>.json` but the index that holds a `history`. A
//!   fork (`--fork`: a new uuid, the history copied, no link to its
//!   origin) is a session of its own. A killed run writes no file.
//! - id: `sessionId` (the file's name without `.json` when it has none).
//! - cwd: `workspaceDirectory`, fixed when the session was created (a
//!   `--resume` from elsewhere, which takes the most recent session
//!   whatever the directory, does not move it).
//! - created: the index's `dateCreated` (epoch milliseconds, as a
//!   string): the session file holds no time. Last activity: the file's
//!   modification time.
//!
//! # Title
//!
//! `title`, unless it is still `Untitled Session` (every `-p` session:
//! headless runs never generate one; `/rename` sets it); then the first
//! line of the first typed prompt.
//!
//! # What the person typed
//!
//! `history[].message` with `role: "user"`: its `content`, a string or
//! `text` parts (attached context is in `contextItems`, apart, and not
//! read). A reply is an assistant message's content; its `toolCalls` and
//! `toolCallStates` (tool results live there, not as messages), `thinking`,
//! `system` and `tool` messages are not conversation.
//!
//! # Compaction
//!
//! `/compact` rewrites the file: the history then starts with an assistant
//! message carrying `conversationSummary`, the compact checkpoint; the
//! turns before it are gone from the file.
//!
//! # A file being written
//!
//! A file read while `cn` rewrites it gives the history entries complete
//! before the cut ([`torn::parse`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::caches::Caches;
use crate::error::ReadError;
use crate::index::stamp::TitleInputs;
use crate::index::title::TitleIndex;
use crate::kinds::foreign::{text_items, title_from_text, FileCache, SurfaceBuilder};
use crate::kinds::opencode::convo::rfc3339_ms;
use crate::kinds::torn::{self, TornObject};
use crate::model::{SessionRecord, StoreKind, Surface, SurfaceSink};
use crate::store::ScanEvent;
use crate::store::{Env, Store};

/// The Continue CLI store kind.
pub struct Continue;

/// The registry handle of [`Continue`].
pub const KIND: StoreKind = StoreKind::new(&Continue);

/// The index file beside the sessions.
const INDEX: &str = "sessions.json";

/// The title of a session not named yet.
const UNTITLED: &str = "Untitled Session";

/// What listing needs of a session file (kept by the title index per
/// file stamp).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Head {
    /// `sessionId`.
    pub id: Option<String>,
    /// `workspaceDirectory`.
    pub cwd: Option<String>,
    /// `title`.
    pub title: Option<String>,
}

/// A session file read as far as it is whole; `Err` when it is not a
/// session (no `history`, or not JSON).
fn read_file(bytes: &[u8]) -> Result<TornObject, String> {
    read_file_with(bytes)
}

/// [`read_file`], the history's entries read as `I`.
fn read_file_with<'de, I: Deserialize<'de>>(bytes: &'de [u8]) -> Result<TornObject<I>, String> {
    let object = torn::parse_with(bytes, "history")
        .map_err(|e| format!("not a Continue session file: {e}"))?;
    if !object.has_list && !object.torn {
        return Err("not a Continue session file (no history)".into());
    }
    Ok(object)
}

/// What a run reads of a session file once, for its record and its title.
#[derive(Debug)]
struct Parsed {
    /// Its head.
    head: Head,
    /// The first line of its first typed prompt.
    first_prompt: Option<String>,
}

/// Each session file parsed once a run: listing and the title need the
/// same parse, which is all the cost of a cold listing (the history is
/// the whole file, checked entry by entry but built into values only as
/// far as the first prompt).
#[derive(Default)]
struct ContinueCaches {
    parsed: FileCache<Result<Parsed, String>>,
}

/// The session file at `path`, parsed once this run: `Err` of the read
/// (an I/O error) or `Ok` of what parsing found (an error when it is not
/// a session file).
fn parsed(caches: &Caches, path: &Path) -> Result<Arc<Result<Parsed, String>>, ReadError> {
    caches.get::<ContinueCaches>().parsed.get(path, 0, || {
        let bytes = std::fs::read(path).map_err(|e| ReadError::io(path, &e))?;
        // The entries as their bytes: only those up to the first prompt
        // are built into values.
        Ok(read_file_with::<&RawValue>(&bytes).map(|object| Parsed {
            head: head_of(&object),
            first_prompt: object.items.iter().find_map(|raw| {
                let item = serde_json::from_str::<Value>(raw.get()).ok()?;
                match turn_of(&item) {
                    Turn::Prompt(text) => title_from_text(&text),
                    _ => None,
                }
            }),
        }))
    })
}

/// The [`Head`] of a session file read.
fn head_of<I>(object: &TornObject<I>) -> Head {
    Head {
        id: object.text("sessionId").map(str::to_owned),
        cwd: object.text("workspaceDirectory").map(str::to_owned),
        title: object.text("title").map(str::to_owned),
    }
}

/// What one history entry is to the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Turn {
    /// What the person typed.
    Prompt(String),
    /// The assistant's text.
    Reply(String),
    /// A compaction's summary.
    Summary(String),
    /// Nothing the surface shows.
    Hidden,
}

/// What history entry `item` is.
pub fn turn_of(item: &Value) -> Turn {
    if let Some(summary) = item
        .get("conversationSummary")
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
    {
        return Turn::Summary(summary.to_owned());
    }
    let message = item.get("message");
    let role = message.and_then(|m| m.get("role")).and_then(Value::as_str);
    let text = text_items(message.and_then(|m| m.get("content"))).join("\n");
    if text.trim().is_empty() {
        return Turn::Hidden;
    }
    match role {
        Some("user") => Turn::Prompt(text),
        Some("assistant") => Turn::Reply(text),
        _ => Turn::Hidden,
    }
}

/// Fold a session's history into `sink`; the last seq read.
pub fn fold(history: &[Value], sink: &mut dyn SurfaceSink) -> u64 {
    let mut builder = SurfaceBuilder::new(sink);
    let mut seq = 0;
    for item in history {
        seq += 1;
        match turn_of(item) {
            Turn::Prompt(text) => builder.user(seq, vec![text]),
            Turn::Reply(text) => builder.assistant(seq, None, vec![text]),
            Turn::Summary(text) => {
                builder.shadow();
                builder.checkpoint(seq, vec![text]);
            }
            Turn::Hidden => {}
        }
        if builder.wants_tools() {
            for tool in crate::kinds::tools::continue_entry(item) {
                builder.tool(seq, tool);
            }
        }
    }
    seq
}

/// The index's creation time of each session, as RFC 3339.
fn created_times(sessions: &Path) -> HashMap<String, String> {
    let Ok(bytes) = std::fs::read(sessions.join(INDEX)) else {
        return HashMap::new();
    };
    let Ok(Value::Array(entries)) = serde_json::from_slice::<Value>(&bytes) else {
        return HashMap::new();
    };
    entries
        .iter()
        .filter_map(|e| {
            let id = e.get("sessionId")?.as_str()?;
            let ms = match e.get("dateCreated")? {
                Value::String(s) => s.trim().parse::<f64>().ok()?,
                Value::Number(n) => n.as_f64()?,
                _ => return None,
            };
            // Whole milliseconds of a finite time: the cast cannot wrap.
            #[allow(clippy::cast_possible_truncation)]
            let ms = ms.is_finite().then_some(ms as i64)?;
            Some((id.to_owned(), rfc3339_ms(ms)))
        })
        .collect()
}

/// The sessions folder a root names.
fn sessions_dir(root: &Path) -> PathBuf {
    if root.join("sessions").is_dir() {
        root.join("sessions")
    } else {
        root.to_owned()
    }
}

/// Whether `path` is named as a session file.
fn is_session_file(path: &Path) -> bool {
    path.extension().is_some_and(|x| x == "json") && path.file_name().is_some_and(|n| n != INDEX)
}

/// The record, or why not, of the session file `path`.
fn list_session(
    caches: &Caches,
    root: &Arc<Path>,
    path: &Path,
    created: &HashMap<String, String>,
) -> ScanEvent {
    let index = caches.get::<TitleIndex>();
    let read = || match parsed(caches, path) {
        Ok(read) => match &*read {
            Ok(parsed) => Ok(parsed.head.clone()),
            Err(reason) => Err((false, reason.clone())),
        },
        Err(e) => Err((true, e.message)),
    };
    let head = match index.file_fact(KIND, root, path, || read().ok()) {
        Some((_, Some(head))) => Ok(head),
        _ => read(),
    };
    let head = match head {
        Ok(head) => head,
        Err((io, reason)) => {
            let path = path.to_owned();
            return if io {
                ScanEvent::Unreadable { path, reason }
            } else {
                ScanEvent::Skipped { path, reason }
            };
        }
    };
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    let id = head.id.unwrap_or_else(|| stem.to_owned());
    let created = created.get(&id).cloned().unwrap_or_default();
    ScanEvent::Record(SessionRecord::new(
        KIND,
        Arc::clone(root),
        path.to_owned(),
        id,
        head.cwd,
        created,
    ))
}

/// The session's history, read now.
fn read_history_items(record: &SessionRecord) -> Result<Vec<Value>, ReadError> {
    let bytes = std::fs::read(&record.path).map_err(|e| ReadError::io(&record.path, &e))?;
    let object = read_file(&bytes).map_err(|message| ReadError {
        path: record.path.clone(),
        line: None,
        message,
    })?;
    Ok(object.items)
}

impl Store for Continue {
    fn name(&self) -> &'static str {
        "continue"
    }

    fn flag(&self) -> &'static str {
        "continue"
    }

    fn origin(&self) -> &'static str {
        "Continue CLI"
    }

    fn root_help(&self) -> &'static str {
        "Continue sessions directory ($CONTINUE_GLOBAL_DIR/sessions) or $CONTINUE_GLOBAL_DIR"
    }

    /// `$CONTINUE_GLOBAL_DIR/sessions`, else `~/.continue/sessions`.
    fn default_roots(&self, env: Env<'_>, home: Option<&Path>) -> Vec<PathBuf> {
        match env("CONTINUE_GLOBAL_DIR").filter(|v| !v.is_empty()) {
            Some(var) => {
                let dir = PathBuf::from(&var);
                // `--help` spells the variable itself (`$CONTINUE_GLOBAL_DIR`).
                let dir = if dir.is_relative() && !var.starts_with('$') {
                    std::env::current_dir().map_or(dir.clone(), |cwd| cwd.join(&dir))
                } else {
                    dir
                };
                vec![dir.join("sessions")]
            }
            None => home
                .map(|h| h.join(".continue").join("sessions"))
                .into_iter()
                .collect(),
        }
    }

    fn wants(&self, path: &Path) -> bool {
        is_session_file(path)
    }

    fn list_file(&self, caches: &Caches, root: &Arc<Path>, path: &Path) -> ScanEvent {
        let created = path.parent().map(created_times).unwrap_or_default();
        list_session(caches, root, path, &created)
    }

    fn lists_each_file(&self) -> bool {
        false
    }

    /// The sessions folder's files, read directly (no deeper walk).
    fn scan(
        &self,
        kind: StoreKind,
        caches: &Caches,
        root: &Arc<Path>,
        sink: &(dyn Fn(ScanEvent) + Sync),
    ) {
        if root.is_file() {
            return sink(self.list_file(caches, root, root));
        }
        let dir = sessions_dir(root);
        let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
            Ok(entries) => entries
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .map(|e| e.path())
                .filter(|p| is_session_file(p))
                .collect(),
            Err(e) => {
                return sink(ScanEvent::Unreadable {
                    path: dir,
                    reason: e.to_string(),
                })
            }
        };
        files.sort();
        let created = created_times(&dir);
        caches.get::<TitleIndex>().listing_root(kind, root);
        files
            .par_iter()
            .for_each(|path| sink(list_session(caches, root, path, &created)));
    }

    /// The index `sessions.json`, which holds the session's creation time.
    fn side_files(&self, _: &Caches, record: &SessionRecord) -> Vec<PathBuf> {
        record
            .path
            .parent()
            .map(|dir| dir.join(INDEX))
            .into_iter()
            .collect()
    }

    /// The title is the session file's own `title`, else its first prompt.
    fn title_inputs(&self, _: &Caches, record: &SessionRecord) -> Option<TitleInputs> {
        Some(TitleInputs::Files(vec![record.path.clone()]))
    }

    fn read_title(
        &self,
        caches: &Caches,
        record: &SessionRecord,
    ) -> Result<Option<String>, ReadError> {
        let read = parsed(caches, &record.path)?;
        let parsed = (*read).as_ref().map_err(|message| ReadError {
            path: record.path.clone(),
            line: None,
            message: message.clone(),
        })?;
        if let Some(title) = parsed
            .head
            .title
            .as_deref()
            .filter(|t| t.trim() != UNTITLED)
            .and_then(title_from_text)
        {
            return Ok(Some(title));
        }
        Ok(parsed.first_prompt.clone())
    }

    fn read_surface(&self, caches: &Caches, record: &SessionRecord) -> Result<Surface, ReadError> {
        crate::store::surface_of(|surface| self.fold_surface(caches, record, surface))
    }

    fn fold_surface(
        &self,
        _: &Caches,
        record: &SessionRecord,
        sink: &mut dyn SurfaceSink,
    ) -> Result<u64, ReadError> {
        Ok(fold(&read_history_items(record)?, sink))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::foreign::testing::texts;
    use serde_json::json;

    #[test]
    fn default_roots_follow_continue_global_dir() {
        let home = Some(Path::new("/home/u"));
        assert_eq!(
            Continue.default_roots(&|_| None, home),
            [PathBuf::from("/home/u/.continue/sessions")]
        );
        let set = |k: &str| (k == "CONTINUE_GLOBAL_DIR").then(|| "/c".to_owned());
        assert_eq!(
            Continue.default_roots(&set, home),
            [PathBuf::from("/c/sessions")]
        );
        let relative = |k: &str| (k == "CONTINUE_GLOBAL_DIR").then(|| "rel".to_owned());
        assert_eq!(
            Continue.default_roots(&relative, home),
            [std::env::current_dir().unwrap().join("rel/sessions")]
        );
        assert_eq!(
            crate::default_roots_help(KIND),
            "$CONTINUE_GLOBAL_DIR/sessions, else ~/.continue/sessions"
        );
    }

    #[test]
    fn typed_text_replies_and_a_compaction_summary() {
        let history = vec![
            json!({"message": {"role": "assistant", "content": "<summary>old</summary>"},
                "conversationSummary": "SUMMARY so far", "contextItems": []}),
            json!({"message": {"role": "user", "content": "fix the parser"}, "contextItems": [
                {"name": "file.rs", "content": "ATTACHED"}], "editorState": "fix the parser"}),
            json!({"message": {"role": "assistant", "content": "", "toolCalls": [{"id": "c1",
                "function": {"name": "Read", "arguments": "{}"}}]}, "toolCallStates": [
                {"toolCallId": "c1", "status": "done", "output": [{"content": "TOOL OUTPUT"}]}]}),
            json!({"message": {"role": "tool", "content": "TOOL OUTPUT", "toolCallId": "c1"}}),
            json!({"message": {"role": "thinking", "content": "HMM"}}),
            json!({"message": {"role": "assistant", "content": [{"type": "text", "text": "Fixed."},
                {"type": "imageUrl", "imageUrl": {"url": "x"}}]}}),
        ];
        let mut surface = Surface::default();
        assert_eq!(fold(&history, &mut surface), 6);
        assert_eq!(
            texts(&surface),
            [
                (1, "checkpoint", "SUMMARY so far".to_owned()),
                (2, "user", "fix the parser".to_owned()),
                (6, "assistant", "Fixed.".to_owned()),
            ]
        );
    }

    #[test]
    fn a_session_file_needs_a_history() {
        assert!(read_file(br#"{"sessionId":"a","history":[]}"#).is_ok());
        assert!(read_file(br#"[{"sessionId":"a"}]"#).is_err());
        assert!(read_file(br#"{"sessionId":"a"}"#).is_err());
        let head = head_of(
            &read_file(br#"{"sessionId":"a","title":"T","workspaceDirectory":"/w","history":[]}"#)
                .unwrap(),
        );
        assert_eq!(
            head,
            Head {
                id: Some("a".into()),
                cwd: Some("/w".into()),
                title: Some("T".into())
            }
        );
        assert!(!is_session_file(Path::new("/s/sessions.json")));
        assert!(is_session_file(Path::new("/s/1b95b650.json")));
    }
}
