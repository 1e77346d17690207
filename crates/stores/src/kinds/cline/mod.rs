//! Cline CLI 3.x sessions (npm `cline`, the "Cline SDK" CLI), read from its
//! per-session folders. Follows Cline CLI 3.0.65 (`@cline/core` and
//! `@cline/shared` 0.0.86), as `../shared/spec/formats/cline.md` records it
//! from running it offline against the mock model: one-shots, tool calls,
//! a `spawn_agent` sub-agent, `-p` plan mode, a 20 kB prompt, a killed run
//! resumed in the TUI, `history update --title`, `/compact`, `/fork`, and
//! resumes from another directory. The 2.x/VS Code layout
//! (`tasks/<id>/api_conversation_history.json`) is not written by 3.x and
//! is not read.
//!
//! # Layout
//!
//! `$CLINE_SESSION_DATA_DIR`, else `$CLINE_DATA_DIR/sessions`, else
//! `$CLINE_DIR/data/sessions`, else `~/.cline/data/sessions` (as
//! `@cline/shared`'s storage module resolves them). One folder per session,
//! named by its id, holding `<id>.json` (the manifest: the `sessions.db`
//! row with `metadata` as an object), `<id>.messages.json` (the
//! conversation), `<id>.compaction.json` after a compaction, and
//! `agent_<agentId>.messages.json` per sub-agent it spawned. A root may
//! also be `$CLINE_DIR`, its `data` folder, one session folder, or one
//! session's manifest or messages file. The index `data/db/sessions.db`
//! (SQLite, WAL, rows mostly in its `-wal`) repeats the manifests and is
//! not read: the manifests say the same without opening a database a
//! running hub daemon writes.
//!
//! # Record
//!
//! - Listed: every session folder with a manifest, except sub-agents
//!   (`is_subagent`, a `parent_session_id`, or an id `<parent>__<agent>`):
//!   their transcripts sit in the parent's folder and are part of it, as
//!   `cline history` lists roots only. A fork (`/fork`: a new id, the
//!   messages copied, `metadata.fork`) is a session of its own.
//! - id: the folder's name (`<epoch ms>_<5 base36>`, what `cline --id`
//!   resumes); path: its `<id>.messages.json`.
//! - cwd: `cwd`, else `workspace_root`: the directory the session started
//!   in (a resume from elsewhere does not move it, as in Cline's records).
//! - created: `started_at`. Last activity: the messages file's own
//!   `updated_at` (rewritten with each turn), not the manifest's, which
//!   the hub daemon rewrites when it flips a status after the CLI exits.
//!
//! # Title
//!
//! `metadata.title`: by default the first prompt (unwrapped, cut at 120
//! characters), a fork's `<title> (fork)`, or what `history update --title`
//! set; shown cut as every title is. Without one, the first line of the
//! first typed prompt.
//!
//! # What the person typed
//!
//! Cline stores every genuine user message wrapped, `<user_input
//! mode="act|plan">TYPED</user_input>`: the unwrapped text is the prompt.
//! A `user` message's other blocks are not typed: `tool_result` blocks,
//! and text Cline did not wrap (the compaction summary, `"Context
//! summary:…"`). Assistant text is the `text` blocks (not `thinking`, not
//! `tool_use`). The manifest's `prompt` is not used: it is wrapped for
//! hub-run sessions, raw for local ones, and sometimes the latest prompt.
//!
//! # Compaction
//!
//! `/compact` leaves the messages file whole and writes
//! `<id>.compaction.json` (`source_message_count`, and the compacted
//! context whose first message is the summary, `metadata.kind:
//! "compaction_summary"`). The summary is the compact checkpoint, and the
//! messages it covers are shadowed ([`convo::fold`]).
//!
//! # A file being written
//!
//! The messages file is rewritten whole after each turn; one cut short
//! (read mid-write) gives the messages that were complete before the cut
//! ([`convo::parse`]).
//!
//! # Cost
//!
//! Listing reads each manifest once; the title index keeps what it gave
//! per manifest stamp, so a warm listing is a `stat` per session.

pub mod convo;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::caches::Caches;
use crate::error::ReadError;
use crate::index::stamp::TitleInputs;
use crate::index::title::TitleIndex;
use crate::kinds::foreign::title_from_text;
use crate::model::{SessionRecord, StoreKind, Surface, SurfaceSink};
use crate::store::ScanEvent;
use crate::store::{Env, Store};
use session_ref_core::time::Instant;

/// The Cline CLI store kind.
pub struct Cline;

/// The registry handle of [`Cline`].
pub const KIND: StoreKind = StoreKind::new(&Cline);

/// Why a sub-agent's session folder is not listed.
pub const SUBAGENT: &str = "Cline sub-agent session (part of its parent session)";

/// The messages file of session `id`.
fn messages_name(id: &str) -> String {
    format!("{id}.messages.json")
}

/// What listing needs of a session, from its manifest (kept by the title
/// index per manifest stamp).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Head {
    /// `session_id`.
    pub id: Option<String>,
    /// `cwd`, else `workspace_root`.
    pub cwd: Option<String>,
    /// `started_at`.
    pub started: Option<String>,
    /// A sub-agent's session.
    pub subagent: bool,
    /// `metadata.title`.
    pub title: Option<String>,
}

/// The fields of a manifest read, leniently.
#[derive(Deserialize)]
struct Manifest {
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    workspace_root: Option<String>,
    #[serde(default)]
    started_at: Option<String>,
    #[serde(default)]
    is_subagent: Option<Value>,
    #[serde(default)]
    parent_session_id: Option<String>,
    #[serde(default)]
    metadata: Option<Value>,
}

/// A manifest's [`Head`], or why it is not one.
pub fn parse_head(bytes: &[u8]) -> Result<Head, String> {
    let m: Manifest =
        serde_json::from_slice(bytes).map_err(|e| format!("not a Cline session manifest: {e}"))?;
    let non_empty = |s: Option<String>| s.filter(|s| !s.trim().is_empty());
    let subagent = match &m.is_subagent {
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_i64() != Some(0),
        _ => false,
    } || non_empty(m.parent_session_id.clone()).is_some();
    let title = m
        .metadata
        .as_ref()
        .and_then(|md| md.get("title"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    Ok(Head {
        id: non_empty(m.session_id),
        cwd: non_empty(m.cwd).or_else(|| non_empty(m.workspace_root)),
        started: non_empty(m.started_at),
        subagent,
        title,
    })
}

/// The manifest beside a messages file: `<folder>/<id>.json`.
fn manifest_of(messages: &Path) -> Option<PathBuf> {
    let name = messages.file_name()?.to_str()?;
    let id = name.strip_suffix(".messages.json")?;
    Some(messages.with_file_name(format!("{id}.json")))
}

/// The compaction file beside a messages file.
fn compaction_of(messages: &Path) -> Option<PathBuf> {
    let name = messages.file_name()?.to_str()?;
    let id = name.strip_suffix(".messages.json")?;
    Some(messages.with_file_name(format!("{id}.compaction.json")))
}

/// Whether `name` is a session's own manifest or messages file (not a
/// sub-agent's `agent_…` transcript, not a compaction).
fn session_file_id(name: &str) -> Option<&str> {
    if name.starts_with("agent_") || name.ends_with(".compaction.json") {
        return None;
    }
    name.strip_suffix(".messages.json")
        .or_else(|| name.strip_suffix(".json"))
        .filter(|id| !id.is_empty())
}

/// The sessions folder a root names (see "Layout"), or the one session
/// folder it is.
fn sessions_dir(root: &Path) -> PathBuf {
    for sub in [&["data", "sessions"][..], &["sessions"][..]] {
        let dir = sub.iter().fold(root.to_owned(), |p, s| p.join(s));
        if dir.is_dir() {
            return dir;
        }
    }
    root.to_owned()
}

/// The messages file of every session folder under `root`.
fn session_files(root: &Path, sink: &(dyn Fn(ScanEvent) + Sync)) -> Vec<PathBuf> {
    match std::fs::metadata(root) {
        Ok(meta) if meta.is_file() => return vec![root.to_owned()],
        Ok(_) => {}
        Err(e) => {
            sink(ScanEvent::Unreadable {
                path: root.to_owned(),
                reason: e.to_string(),
            });
            return Vec::new();
        }
    }
    // One session folder named as the root.
    if let Some(name) = root.file_name().and_then(|n| n.to_str()) {
        if root.join(format!("{name}.json")).is_file() {
            return vec![root.join(messages_name(name))];
        }
    }
    let dir = sessions_dir(root);
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) => {
            sink(ScanEvent::Unreadable {
                path: dir,
                reason: e.to_string(),
            });
            return Vec::new();
        }
    };
    let mut files = Vec::new();
    for entry in entries.flatten() {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if name.starts_with('.') || !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let folder = entry.path();
        if !folder.join(format!("{name}.json")).is_file() {
            continue;
        }
        files.push(folder.join(messages_name(&name)));
    }
    files.sort();
    files
}

/// The record, or why not, of the session whose messages file is `path`.
fn list_session(caches: &Caches, root: &Arc<Path>, path: &Path) -> ScanEvent {
    let Some(manifest) = manifest_of(path) else {
        return ScanEvent::Skipped {
            path: path.to_owned(),
            reason: "not a Cline session file (<id>.messages.json or <id>.json)".into(),
        };
    };
    let folder_id = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(".messages.json"))
        .unwrap_or_default()
        .to_owned();
    let index = caches.get::<TitleIndex>();
    let computed = || {
        std::fs::read(&manifest)
            .ok()
            .and_then(|b| parse_head(&b).ok())
    };
    let head = match index.file_fact(KIND, root, &manifest, computed) {
        Some((_, Some(head))) => Ok(head),
        _ => std::fs::read(&manifest)
            .map_err(|e| (true, e.to_string()))
            .and_then(|b| parse_head(&b).map_err(|e| (false, e))),
    };
    let head = match head {
        Ok(head) => head,
        Err((io, reason)) => {
            return if io {
                ScanEvent::Unreadable {
                    path: manifest,
                    reason,
                }
            } else {
                ScanEvent::Skipped {
                    path: manifest,
                    reason,
                }
            };
        }
    };
    if head.subagent || folder_id.contains("__") {
        return ScanEvent::Skipped {
            path: path.to_owned(),
            reason: SUBAGENT.into(),
        };
    }
    let id = if folder_id.is_empty() {
        head.id.clone().unwrap_or_default()
    } else {
        folder_id
    };
    ScanEvent::Record(SessionRecord::new(
        KIND,
        Arc::clone(root),
        path.to_owned(),
        id,
        head.cwd.clone(),
        head.started.clone().unwrap_or_default(),
    ))
}

/// The session's messages and its compaction, read now.
fn read_messages(
    record: &SessionRecord,
) -> Result<(Vec<convo::Message>, Option<convo::Compaction>), ReadError> {
    let bytes = std::fs::read(&record.path).map_err(|e| ReadError::io(&record.path, &e))?;
    let parsed = convo::parse(&bytes).map_err(|e| ReadError {
        path: record.path.clone(),
        line: Some(e.line() as u64),
        message: format!("not a Cline messages file: {e}"),
    })?;
    let compaction = compaction_of(&record.path)
        .and_then(|p| std::fs::read(p).ok())
        .and_then(|b| convo::Compaction::parse(&b));
    Ok((parsed.messages, compaction))
}

impl Store for Cline {
    /// The session's manifest `<id>.json` (what lists it: title, cwd,
    /// times) and its `<id>.compaction.json`, beside its messages.
    fn side_files(&self, _caches: &Caches, record: &SessionRecord) -> Vec<PathBuf> {
        let Some(dir) = record.path.parent() else {
            return Vec::new();
        };
        ["json", "compaction.json"]
            .iter()
            .map(|ext| dir.join(format!("{}.{ext}", record.id)))
            .collect()
    }

    fn name(&self) -> &'static str {
        "cline"
    }

    fn flag(&self) -> &'static str {
        "cline"
    }

    fn origin(&self) -> &'static str {
        "Cline CLI"
    }

    fn root_help(&self) -> &'static str {
        "Cline CLI sessions directory ($CLINE_DIR/data/sessions) or $CLINE_DIR"
    }

    /// `$CLINE_SESSION_DATA_DIR`, else `$CLINE_DATA_DIR/sessions`, else
    /// `$CLINE_DIR/data/sessions`, else `~/.cline/data/sessions`.
    fn default_roots(&self, env: Env<'_>, home: Option<&Path>) -> Vec<PathBuf> {
        let set = |var: &str| env(var).filter(|v| !v.is_empty()).map(PathBuf::from);
        // `--help` spells each variable as `$VAR`: the whole rule then.
        if env("CLINE_SESSION_DATA_DIR").is_some_and(|v| v.starts_with('$')) {
            return [
                set("CLINE_SESSION_DATA_DIR"),
                set("CLINE_DATA_DIR").map(|d| d.join("sessions")),
                set("CLINE_DIR").map(|d| d.join("data").join("sessions")),
            ]
            .into_iter()
            .flatten()
            .collect();
        }
        if let Some(dir) = set("CLINE_SESSION_DATA_DIR") {
            return vec![dir];
        }
        if let Some(dir) = set("CLINE_DATA_DIR") {
            return vec![dir.join("sessions")];
        }
        if let Some(dir) = set("CLINE_DIR") {
            return vec![dir.join("data").join("sessions")];
        }
        home.map(|h| h.join(".cline").join("data").join("sessions"))
            .into_iter()
            .collect()
    }

    fn wants(&self, path: &Path) -> bool {
        path.file_name()
            .and_then(|n| n.to_str())
            .and_then(session_file_id)
            .is_some()
    }

    /// One session's manifest or messages file.
    fn list_file(&self, caches: &Caches, root: &Arc<Path>, path: &Path) -> ScanEvent {
        let Some(id) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(session_file_id)
        else {
            return ScanEvent::Skipped {
                path: path.to_owned(),
                reason: "not a Cline session file (<id>.messages.json or <id>.json)".into(),
            };
        };
        let messages = path.with_file_name(messages_name(id));
        list_session(caches, root, &messages)
    }

    fn lists_each_file(&self) -> bool {
        false
    }

    /// The root's session folders, read directly (see "Layout").
    fn scan(
        &self,
        kind: StoreKind,
        caches: &Caches,
        root: &Arc<Path>,
        sink: &(dyn Fn(ScanEvent) + Sync),
    ) {
        let files = session_files(root, sink);
        caches.get::<TitleIndex>().listing_root(kind, root);
        files.par_iter().for_each(|path| {
            sink(if root.is_file() {
                self.list_file(caches, root, path)
            } else {
                list_session(caches, root, path)
            })
        });
    }

    /// The title depends on the manifest too (`metadata.title`).
    fn title_inputs(&self, _: &Caches, record: &SessionRecord) -> Option<TitleInputs> {
        Some(TitleInputs::Files(vec![manifest_of(&record.path)?]))
    }

    fn read_title(&self, _: &Caches, record: &SessionRecord) -> Result<Option<String>, ReadError> {
        let head = manifest_of(&record.path)
            .and_then(|m| std::fs::read(m).ok())
            .and_then(|b| parse_head(&b).ok());
        if let Some(title) = head.and_then(|h| h.title).and_then(|t| title_from_text(&t)) {
            return Ok(Some(title));
        }
        let (messages, _) = read_messages(record)?;
        Ok(convo::first_prompt_title(&messages))
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
        let (messages, compaction) = read_messages(record)?;
        Ok(convo::fold(&messages, compaction.as_ref(), sink))
    }

    /// The messages file's own `updated_at`, else its modification time.
    fn last_activity(&self, _: &Caches, record: &SessionRecord) -> Option<i64> {
        use std::io::Read;
        let mut head = [0u8; 1024];
        let read = std::fs::File::open(&record.path)
            .and_then(|f| f.take(head.len() as u64).read(&mut head))
            .unwrap_or(0);
        convo::updated_at(&head[..read])
            .and_then(|at| Instant::parse_rfc3339(&at))
            .map(Instant::unix_seconds)
            .or_else(|| crate::caches::modified_secs(&record.path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_roots_follow_cline_s_variables() {
        let home = Some(Path::new("/home/u"));
        let none = |_: &str| None;
        assert_eq!(
            Cline.default_roots(&none, home),
            [PathBuf::from("/home/u/.cline/data/sessions")]
        );
        let dir = |k: &str| (k == "CLINE_DIR").then(|| "/c".to_owned());
        assert_eq!(
            Cline.default_roots(&dir, home),
            [PathBuf::from("/c/data/sessions")]
        );
        let data = |k: &str| match k {
            "CLINE_DIR" => Some("/c".to_owned()),
            "CLINE_DATA_DIR" => Some("/d".to_owned()),
            _ => None,
        };
        assert_eq!(
            Cline.default_roots(&data, home),
            [PathBuf::from("/d/sessions")]
        );
        let sessions = |k: &str| match k {
            "CLINE_DATA_DIR" => Some("/d".to_owned()),
            "CLINE_SESSION_DATA_DIR" => Some("/s".to_owned()),
            _ => None,
        };
        assert_eq!(Cline.default_roots(&sessions, home), [PathBuf::from("/s")]);
        let empty = |k: &str| (k == "CLINE_DIR").then(String::new);
        assert_eq!(
            Cline.default_roots(&empty, home),
            [PathBuf::from("/home/u/.cline/data/sessions")]
        );
        assert_eq!(
            crate::roots::default_roots_help(KIND),
            "$CLINE_SESSION_DATA_DIR, else $CLINE_DATA_DIR/sessions, \
             else $CLINE_DIR/data/sessions, else ~/.cline/data/sessions"
        );
    }

    #[test]
    fn a_manifest_gives_the_head_and_says_a_sub_agent() {
        let root = serde_json::json!({"session_id": "1796187340952_vz5li", "source": "cli",
            "started_at": "2026-12-02T04:43:06.101Z", "status": "idle", "cwd": "/home/me/alpha",
            "workspace_root": "/home/me/alpha", "parent_session_id": null, "is_subagent": false,
            "prompt": "<user_input mode=\"act\">hi</user_input>",
            "metadata": {"title": "hi", "systemPrompt": "Working Directory: /home/me/beta"},
            "messages_path": "/x/1796187340952_vz5li.messages.json"});
        let head = parse_head(root.to_string().as_bytes()).unwrap();
        assert_eq!(head.id.as_deref(), Some("1796187340952_vz5li"));
        assert_eq!(head.cwd.as_deref(), Some("/home/me/alpha"));
        assert_eq!(head.started.as_deref(), Some("2026-12-02T04:43:06.101Z"));
        assert_eq!(head.title.as_deref(), Some("hi"));
        assert!(!head.subagent);
        for sub in [
            serde_json::json!({"session_id": "a__agent_1", "is_subagent": 1}),
            serde_json::json!({"session_id": "a__agent_1", "parent_session_id": "a"}),
        ] {
            assert!(parse_head(sub.to_string().as_bytes()).unwrap().subagent);
        }
        let no_cwd = serde_json::json!({"workspace_root": "/w", "cwd": ""});
        assert_eq!(
            parse_head(no_cwd.to_string().as_bytes())
                .unwrap()
                .cwd
                .as_deref(),
            Some("/w")
        );
        assert!(parse_head(b"[1]").is_err());
    }

    #[test]
    fn only_a_session_s_own_files_are_session_files() {
        assert_eq!(session_file_id("1_a.messages.json"), Some("1_a"));
        assert_eq!(session_file_id("1_a.json"), Some("1_a"));
        assert_eq!(session_file_id("1_a.compaction.json"), None);
        assert_eq!(session_file_id("agent_1_x.messages.json"), None);
        assert_eq!(session_file_id(".json"), None);
        assert_eq!(
            manifest_of(Path::new("/s/1_a/1_a.messages.json")),
            Some(PathBuf::from("/s/1_a/1_a.json"))
        );
    }
}
