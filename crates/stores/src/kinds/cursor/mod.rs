//! Cursor CLI sessions (`cursor-agent`), mapped onto the session model.
//!
//! Cursor CLI is closed source and installs by downloading a binary, so
//! nothing below was observed by running it here. It follows what public
//! readers found on cursor-agent 2026.01–2026.07, cross-checked between
//! them: jolliai/jolliai `cli/src/testUtils/cursorCliFixture.ts` (a
//! `meta.json` and a transcript captured from a live 2026.07 install) and
//! its design note `docs/superpowers/specs/2026-07-21-cursor-cli-transcript-source-design.md`;
//! jhlee0409/claude-code-history-viewer `providers/cursor_agent.rs`;
//! nicosuave/memex `src/sources/cursor.rs` (sub-agent transcripts);
//! phnx-labs/agi-cli#1724 (a real 2026.07.23 session); a reader of the
//! CLI's chat stores that follows its `getConfigDir()` (2026.01 and
//! 2026.04 builds); and the CLI's own bundled chat list (`store.db`'s
//! `name`, "New Agent" until one is set).
//!
//! # Layout
//!
//! The root is the CLI's configuration directory: `$CURSOR_CONFIG_DIR`,
//! else `~/.cursor`. (`--cursor DIR` may also name its `projects` folder,
//! or one transcript.) Two places in it:
//!
//! - `projects/<project>/agent-transcripts/<id>/<id>.jsonl` (older builds:
//!   `agent-transcripts/<id>.jsonl`): the conversation, one session per
//!   file, its id the file's stem (what `cursor-agent --resume <id>`
//!   takes). `<project>` is the project path with `/` as `-`, lossy (and
//!   by git root, not the directory the CLI ran in): never decoded. A
//!   sub-agent's transcript (`agent-transcripts/<id>/subagents/*.jsonl`,
//!   one per `Task`) is part of its parent: a routine skip ([`SUBAGENT`]).
//!   Cursor's editor agent writes transcripts here too; they are listed
//!   the same way.
//! - `chats/<md5 of the directory>/<id>/`: `meta.json`
//!   (`{schemaVersion, createdAtMs, updatedAtMs, hasConversation,
//!   isSubagent?, title, cwd}`, written by recent builds) beside
//!   `store.db` (SQLite: a content-addressed `blobs` table of protobuf and
//!   JSON, and a `meta` table whose row `0` is hex-encoded JSON
//!   `{agentId, latestRootBlobId, name, mode, createdAt, lastUsedModel}`).
//!   The CLI prunes old chats here; the transcripts stay.
//!
//! # Record
//!
//! A transcript line is `{role: "user"|"assistant", message: {content:
//! [blocks]}}` with Anthropic-style blocks (`text`, `tool_use`, `thinking`,
//! `redacted`, a `tool_result` on the user side), or a control line
//! `{type: "turn_ended", status}`. No line carries an id, a time or a
//! directory.
//!
//! # What the person typed
//!
//! A `user` line's text wraps the prompt: `<timestamp>…</timestamp>` (the
//! local time), then `<user_query>…</user_query>` around what was typed,
//! sometimes followed by attached context. Only the text inside
//! `<user_query>` is the person's; without it, the blocks the text opens
//! or ends with are taken off ([`typed_inside`]). Tool results are not
//! conversation. Assistant messages are `assistant` lines' `text` blocks,
//! never `thinking`, `redacted` (or a `[REDACTED]` text) or `tool_use`.
//!
//! # Title, working directory, times
//!
//! The title is `meta.json`'s `title`, else `store.db`'s `name` unless it
//! is the CLI's placeholder (`New Agent`), else the first typed prompt
//! (first line, ≤ 80 characters). The working directory is `meta.json`'s
//! `cwd`; without one it is unknown (the project folder's name is not
//! decoded). The creation time is `meta.json`'s `createdAtMs`, else
//! `store.db`'s `createdAt`; last activity `meta.json`'s `updatedAtMs`,
//! else the transcript's modification time. `store.db` is opened
//! read-only and `immutable` (no `-wal`/`-shm` is ever created, no lock
//! taken): a name or time still only in its WAL is seen once the CLI
//! checkpoints it. Listings and titles are kept by the title index while
//! the transcript (titles: and the chat's files) are unchanged; the CLI
//! rewrites `meta.json` as the transcript grows.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use crate::caches::{lock, Caches};
use crate::error::ReadError;
use crate::index::stamp::TitleInputs;
use crate::index::title::TitleIndex;
use crate::kinds::foreign::{
    fold_said_lines_with_tools, read_lines, read_said_lines, title_from_text, typed_inside,
    FileCache, LineSays, Visit,
};
use crate::model::{SessionRecord, StoreKind, Surface, SurfaceSink};
use crate::store::{env_or_home, Env, Store};
use crate::store::{has_suffix, walk_files, ScanEvent};
use session_ref_core::time::format_rfc3339_utc;
use session_ref_jsonl::loose::{from_line, is_str, raw_elements, string, RawText};

mod store_db;
#[cfg(test)]
mod tests;

/// The Cursor CLI store.
pub struct Cursor;

/// The Cursor CLI store's kind.
pub const KIND: StoreKind = StoreKind::new(&Cursor);

/// Skip reason of a sub-agent's transcript.
pub const SUBAGENT: &str = "Cursor CLI sub-agent transcript";

/// The name `store.db` holds until the session is named.
const PLACEHOLDER: &str = "New Agent";

/// The fields of a transcript line the mapping uses, as raw JSON text.
#[derive(Debug, Default, serde::Deserialize)]
struct Line<'a> {
    #[serde(borrow)]
    role: Option<RawText<'a>>,
    #[serde(rename = "type", borrow)]
    kind: Option<RawText<'a>>,
    #[serde(borrow)]
    message: Option<RawText<'a>>,
}

impl<'a> Line<'a> {
    fn parse(bytes: &'a [u8]) -> Option<Line<'a>> {
        from_line(bytes).ok()
    }

    /// The texts of the line's `text` blocks (or its string content),
    /// `[REDACTED]` placeholders left out.
    fn texts(&self) -> Vec<String> {
        #[derive(serde::Deserialize)]
        struct Message<'a> {
            #[serde(borrow)]
            content: Option<RawText<'a>>,
        }
        #[derive(serde::Deserialize)]
        struct Block<'a> {
            #[serde(rename = "type", borrow)]
            kind: Option<RawText<'a>>,
            #[serde(borrow)]
            text: Option<RawText<'a>>,
        }
        let Some(content) = self
            .message
            .and_then(|m| serde_json::from_str::<Message>(m.0).ok())
            .and_then(|m| m.content)
        else {
            return Vec::new();
        };
        let texts = match string(Some(content)) {
            Some(text) => vec![text],
            None => raw_elements(Some(content))
                .into_iter()
                .filter_map(|raw| serde_json::from_str::<Block>(raw.0).ok())
                .filter(|b| is_str(b.kind, "text"))
                .filter_map(|b| string(b.text))
                .collect(),
        };
        texts
            .into_iter()
            .filter(|t| !t.trim().is_empty() && t.trim() != "[REDACTED]")
            .collect()
    }

    /// What the person typed, for a `user` line.
    fn typed(&self) -> Vec<String> {
        if !is_str(self.role, "user") {
            return Vec::new();
        }
        self.texts()
            .iter()
            .filter_map(|t| typed_inside(t, "user_query"))
            .collect()
    }
}

/// What one line says to the surface.
fn says(bytes: &[u8]) -> Option<LineSays> {
    let line = Line::parse(bytes)?;
    Some(if is_str(line.role, "user") {
        let typed = line.typed();
        if typed.is_empty() {
            LineSays::Nothing
        } else {
            LineSays::User(typed)
        }
    } else if is_str(line.role, "assistant") {
        let texts = line.texts();
        if texts.is_empty() {
            LineSays::Nothing
        } else {
            LineSays::Assistant { key: None, texts }
        }
    } else {
        LineSays::Nothing
    })
}

/// Fold the surface of `record` into `sink`.
pub fn fold_surface<S: SurfaceSink>(
    record: &SessionRecord,
    sink: S,
) -> Result<(S, u64), ReadError> {
    fold_said_lines_with_tools(&record.path, says, line_tools, sink)
}

/// The `tool_use` and `tool_result` blocks of a line's message, for
/// `export --tools`.
fn line_tools(bytes: &[u8]) -> Vec<crate::model::ToolEvent> {
    let message = Line::parse(bytes)
        .and_then(|line| line.message)
        .and_then(|m| serde_json::from_str::<serde_json::Value>(m.0).ok());
    let content = message.as_ref().and_then(|m| m.get("content"));
    content.map_or_else(Vec::new, crate::kinds::tools::in_content)
}

/// The folded surface of a Cursor CLI session.
pub fn read_surface(record: &SessionRecord) -> Result<Surface, ReadError> {
    read_said_lines(&record.path, says)
}

/// Where a transcript sits.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Place<'a> {
    /// A session's transcript: its id, and the configuration directory
    /// (the folder holding `projects/`) when the path shows it.
    Session {
        id: String,
        config: Option<&'a Path>,
    },
    /// A sub-agent's transcript.
    Subagent,
    /// Not a transcript.
    Other,
}

/// `p` when its file name is `name`.
fn named<'a>(p: Option<&'a Path>, name: &str) -> Option<&'a Path> {
    p.filter(|p| p.file_name().is_some_and(|n| n == name))
}

/// Where `path` sits (see the module docs' layout).
fn place(path: &Path) -> Place<'_> {
    let Some(id) = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(".jsonl"))
        .filter(|id| !id.is_empty())
    else {
        return Place::Other;
    };
    let parent = path.parent();
    if named(parent, "subagents").is_some() {
        return Place::Subagent;
    }
    let transcripts = named(parent, "agent-transcripts").or_else(|| {
        named(parent, id).and_then(|folder| named(folder.parent(), "agent-transcripts"))
    });
    let Some(transcripts) = transcripts else {
        return Place::Other;
    };
    let config =
        named(transcripts.parent().and_then(Path::parent), "projects").and_then(Path::parent);
    Place::Session {
        id: id.to_owned(),
        config,
    }
}

/// `meta.json` of a chat.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
struct Meta {
    #[serde(rename = "createdAtMs")]
    created_ms: Option<f64>,
    #[serde(rename = "updatedAtMs")]
    updated_ms: Option<f64>,
    title: Option<String>,
    cwd: Option<String>,
    #[serde(rename = "isSubagent")]
    subagent: Option<bool>,
}

/// Unix milliseconds as seconds, when they are a time.
fn ms_to_secs(ms: Option<f64>) -> Option<i64> {
    let ms = ms.filter(|ms| ms.is_finite() && *ms > 0.0 && *ms < 8.64e15)?;
    // In range by the filter: at most 8.64e12 seconds.
    Some((ms / 1000.0).floor() as i64)
}

/// What listing and titling remember between calls, owned by the catalog's
/// [`Caches`].
#[derive(Default)]
struct CursorCaches {
    /// The chat folders below each configuration directory, by session id.
    chats: Mutex<HashMap<PathBuf, Arc<HashMap<String, PathBuf>>>>,
    /// `meta.json` files.
    metas: FileCache<Option<Meta>>,
    /// `store.db` metadata.
    stores: FileCache<Option<store_db::StoreMeta>>,
    /// First typed prompts, by transcript.
    prompts: FileCache<Option<String>>,
}

impl CursorCaches {
    /// The chat folder of session `id` below `config`, if it has one.
    /// The folders are read once per catalog (see "Locks" in the crate
    /// docs: the lock is held only for the map).
    fn chat_dir(&self, config: &Path, id: &str) -> Option<PathBuf> {
        let known = lock(&self.chats).get(config).cloned();
        let folders = match known {
            Some(folders) => folders,
            None => {
                let read = Arc::new(read_chat_dirs(&config.join("chats")));
                lock(&self.chats)
                    .entry(config.to_owned())
                    .or_insert(read)
                    .clone()
            }
        };
        folders.get(id).cloned()
    }

    /// The `meta.json` of a chat folder.
    fn meta(&self, chat: &Path) -> Option<Meta> {
        let path = chat.join("meta.json");
        self.metas
            .get(&path, 0, || {
                let bytes = std::fs::read(&path).map_err(|e| ReadError::io(&path, &e))?;
                Ok(serde_json::from_slice(&bytes).ok())
            })
            .ok()
            .and_then(|m| (*m).clone())
    }

    /// The metadata row of a chat folder's `store.db`.
    fn store(&self, chat: &Path) -> Option<store_db::StoreMeta> {
        let path = chat.join("store.db");
        self.stores
            .get(&path, 0, || Ok(store_db::read_meta(&path)))
            .ok()
            .and_then(|m| (*m).clone())
    }
}

/// `chats/<hash>/<id>/` folders, by id.
fn read_chat_dirs(chats: &Path) -> HashMap<String, PathBuf> {
    let mut found = HashMap::new();
    let Ok(buckets) = std::fs::read_dir(chats) else {
        return found;
    };
    for bucket in buckets.flatten() {
        let Ok(entries) = std::fs::read_dir(bucket.path()) else {
            continue;
        };
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                if let Some(id) = entry.file_name().to_str() {
                    found.entry(id.to_owned()).or_insert(entry.path());
                }
            }
        }
    }
    found
}

/// The chat folder of the session whose transcript is `path`.
fn chat_of(caches: &Caches, path: &Path) -> Option<PathBuf> {
    let Place::Session { id, config } = place(path) else {
        return None;
    };
    caches.get::<CursorCaches>().chat_dir(config?, &id)
}

/// What listing reads of a transcript.
// The record is what almost every file lists: boxing it would allocate
// once per session for the rare other variants' sake.
#[allow(clippy::large_enum_variant)]
enum Listing {
    /// A session.
    Record(SessionRecord),
    /// A sub-agent's (its chat says so).
    Subagent,
    /// No transcript line (an empty file, or not Cursor's).
    Empty,
}

/// List one transcript (see the module docs).
fn read_listing(caches: &Caches, root: &Arc<Path>, path: &Path) -> Result<Listing, ReadError> {
    let Place::Session { id, .. } = place(path) else {
        return Ok(Listing::Empty);
    };
    let mut lines = false;
    read_lines(path, true, |_, bytes| match Line::parse(bytes) {
        Some(line) if line.role.is_some() || line.kind.is_some() => {
            lines = true;
            Visit::DONE
        }
        Some(_) => Visit::NEXT,
        None => Visit::BAD,
    })?;
    if !lines {
        return Ok(Listing::Empty);
    }
    let chat = chat_of(caches, path);
    let cursor = caches.get::<CursorCaches>();
    let meta = chat
        .as_deref()
        .and_then(|c| cursor.meta(c))
        .unwrap_or_default();
    if meta.subagent == Some(true) {
        return Ok(Listing::Subagent);
    }
    let created = ms_to_secs(meta.created_ms)
        .or_else(|| {
            let store = cursor.store(chat.as_deref()?)?;
            ms_to_secs(store.created_ms)
        })
        .map(format_rfc3339_utc)
        .unwrap_or_default();
    let cwd = meta.cwd.filter(|c| c.starts_with('/'));
    Ok(Listing::Record(SessionRecord::new(
        KIND,
        root.clone(),
        path.to_owned(),
        id,
        cwd,
        created,
    )))
}

/// The title of a session (see the module docs).
pub fn read_title(caches: &Caches, record: &SessionRecord) -> Result<Option<String>, ReadError> {
    let cursor = caches.get::<CursorCaches>();
    if let Some(chat) = chat_of(caches, &record.path) {
        let tidy = |t: String| {
            Some(t.split_whitespace().collect::<Vec<_>>().join(" "))
                .filter(|t| !t.is_empty() && t != PLACEHOLDER)
        };
        let named = cursor
            .meta(&chat)
            .and_then(|m| m.title)
            .and_then(tidy)
            .or_else(|| cursor.store(&chat).and_then(|s| s.name).and_then(tidy));
        if named.is_some() {
            return Ok(named);
        }
    }
    let path = &record.path;
    let prompt = cursor.prompts.get(path, 0, || {
        let mut found = None;
        read_lines(path, true, |_, bytes| {
            let Some(line) = Line::parse(bytes) else {
                return Visit::BAD;
            };
            found = line.typed().first().and_then(|t| title_from_text(t));
            if found.is_some() {
                Visit::DONE
            } else {
                Visit::NEXT
            }
        })?;
        Ok(found)
    })?;
    Ok((*prompt).clone())
}

impl Store for Cursor {
    /// The chat's `meta.json` and `store.db` (the title, cwd and times).
    fn side_files(&self, caches: &Caches, record: &SessionRecord) -> Vec<PathBuf> {
        chat_of(caches, &record.path)
            .map(|chat| vec![chat.join("meta.json"), chat.join("store.db")])
            .unwrap_or_default()
    }

    fn name(&self) -> &'static str {
        "cursor"
    }

    fn flag(&self) -> &'static str {
        "cursor"
    }

    fn origin(&self) -> &'static str {
        "Cursor CLI"
    }

    fn root_help(&self) -> &'static str {
        "Cursor CLI configuration directory"
    }

    /// `$CURSOR_CONFIG_DIR` (where cursor-agent then keeps everything),
    /// else `~/.cursor`.
    fn default_roots(&self, env: Env<'_>, home: Option<&Path>) -> Vec<PathBuf> {
        env_or_home(env, home, "CURSOR_CONFIG_DIR", &[], &[".cursor"])
    }

    fn wants(&self, path: &Path) -> bool {
        has_suffix(path, ".jsonl")
    }

    fn list_file(&self, caches: &Caches, root: &Arc<Path>, path: &Path) -> ScanEvent {
        let skipped = |reason: &str| ScanEvent::Skipped {
            path: path.to_owned(),
            reason: reason.into(),
        };
        match place(path) {
            Place::Subagent => return skipped(SUBAGENT),
            Place::Other => {
                return skipped("not a Cursor agent transcript (agent-transcripts/<id>/<id>.jsonl)")
            }
            Place::Session { .. } => {}
        }
        match read_listing(caches, root, path) {
            Ok(Listing::Record(record)) => ScanEvent::Record(record),
            Ok(Listing::Subagent) => skipped(SUBAGENT),
            Ok(Listing::Empty) => skipped("no Cursor transcript line"),
            Err(e) => ScanEvent::Unreadable {
                path: path.to_owned(),
                reason: e.message,
            },
        }
    }

    /// The default scan, of `projects/` only when the root is the
    /// configuration directory: the rest of it (the editor's extensions,
    /// caches) holds no transcript and can be large.
    fn scan(
        &self,
        _: StoreKind,
        caches: &Caches,
        root: &Arc<Path>,
        sink: &(dyn Fn(ScanEvent) + Sync),
    ) {
        let projects = root.join("projects");
        let walked: &Path = if projects.is_dir() { &projects } else { root };
        let files = walk_files(walked, &|p| self.wants(p), &mut |event| sink(event));
        let index = caches.get::<TitleIndex>();
        files
            .par_iter()
            .for_each(|path| sink(index.list_file(self, KIND, caches, root, path)));
    }

    /// The title depends on the transcript and the chat's `meta.json` and
    /// `store.db`: the index keeps it while they are unchanged.
    fn title_inputs(&self, caches: &Caches, record: &SessionRecord) -> Option<TitleInputs> {
        let files = chat_of(caches, &record.path)
            .map(|chat| vec![chat.join("meta.json"), chat.join("store.db")])
            .unwrap_or_default();
        Some(TitleInputs::Files(files))
    }

    fn read_title(
        &self,
        caches: &Caches,
        record: &SessionRecord,
    ) -> Result<Option<String>, ReadError> {
        read_title(caches, record)
    }

    fn read_surface(&self, _: &Caches, record: &SessionRecord) -> Result<Surface, ReadError> {
        read_surface(record)
    }

    fn last_activity(&self, caches: &Caches, record: &SessionRecord) -> Option<i64> {
        chat_of(caches, &record.path)
            .and_then(|chat| caches.get::<CursorCaches>().meta(&chat))
            .and_then(|m| ms_to_secs(m.updated_ms))
            .or_else(|| crate::caches::modified_secs(&record.path))
    }

    fn fold_surface(
        &self,
        _: &Caches,
        record: &SessionRecord,
        sink: &mut dyn SurfaceSink,
    ) -> Result<u64, ReadError> {
        fold_surface(record, sink).map(|(_, last)| last)
    }
}
