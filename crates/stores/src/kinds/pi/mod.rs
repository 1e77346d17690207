//! pi sessions (`@mariozechner/pi-coding-agent`), mapped onto the session
//! model. Follows pi 0.73.1 (session format version 3; versions 1 and 2,
//! which pi migrates on load, are read too), checked against what that
//! version writes offline (`tools/run-pi-qwen.sh`).
//!
//! # Layout
//!
//! `$PI_CODING_AGENT_DIR/sessions`, else `~/.pi/agent/sessions`; one folder
//! per working directory (`--<cwd, / \ : as ->--`: lossy, so the cwd is read
//! from the header; 0.73.1 keeps spaces and non-ASCII letters in the folder
//! name as they are), one `<ISO time>_<uuid>.jsonl` per session. A file
//! whose first line is not a `session` header is not a session (pi's own
//! list skips it too). pi writes a session file only once its first reply
//! exists.
//!
//! # Record
//!
//! Line 1 is the header `{"type":"session","version":3,"id","timestamp",
//! "cwd","parentSession"?}`: the id, creation time and cwd, read from that
//! line alone. A fork (`--fork`, `/fork`, `/clone`) is a new file with a
//! header of its own (`parentSession` names the file it came from) and the
//! copied entries, ids and timestamps unchanged: a session of its own, as
//! pi lists it. `--continue`, `--session` and `/resume` append to the file.
//!
//! # The conversation is a path in a tree
//!
//! Every other line is an entry `{type, id, parentId, timestamp, …}`.
//! After `/tree` (or an extension's `navigateTree`) picks an earlier entry,
//! the next entries hang below it: the file keeps every branch, and line
//! order is no longer conversation order. pi reopens a session at its last
//! entry, so the conversation is the path from the last entry back to the
//! root by `parentId` (a `resetLeaf` leaves a second root; the walk stops
//! at whichever root the leaf hangs from). Version 1 files have no ids:
//! their entries are one line-ordered path.
//!
//! On the path, as pi's `buildSessionContext` reads it:
//! - `message` `role: "user"`: what a person typed (text blocks). In print
//!   mode pi joins piped stdin, the contents of `@file` arguments
//!   (`<file name="ABS">\n…\n</file>\n` each) and the prompt into one text
//!   block, with no separator; the file contents are pi's injection, so
//!   each such block is kept only as `@ABS` (what the person named), the
//!   piped text and the prompt as they are. A prompt template
//!   (`/greet Carol`) is stored expanded, its name lost: the expansion is
//!   the only record of the request and is kept.
//! - `message` `role: "assistant"`: its `text` blocks (never `thinking` or
//!   `toolCall`; a reply holding only tool calls is no message).
//! - `toolResult`, `bashExecution` (a `!cmd`), `custom_message` (extension
//!   context), `branch_summary` (the summary of an abandoned branch that
//!   `/tree` writes), `model_change`, `thinking_level_change`, `label`,
//!   `custom`, `session_info`: never conversation.
//! - `compaction {summary, firstKeptEntryId}`: the last one on the path is
//!   the checkpoint. pi's context is its summary, then the path's entries
//!   from `firstKeptEntryId` up to the compaction (kept verbatim), then
//!   those after it; entries before `firstKeptEntryId` are shadowed (for
//!   search, they are the shadowed history). Since kept entries come after
//!   the checkpoint though written before it, the events' seqs are their
//!   positions in this order (1, 2, …), not line numbers.
//!
//! # Title and last activity
//!
//! As pi's `/resume` lists a session: the latest `session_info` `name`
//! (trimmed; an empty name clears it), else the first `user` message of
//! the file in line order (text blocks joined by a space; here with
//! `@file` contents cut as above). Titles are kept in the title index
//! while the file is unchanged. Last activity is the newest `timestamp`
//! (Unix ms) of a user or assistant message, as pi sorts `/resume`; else
//! the header's time, else the file's modification time.
//!
//! # Differences from `FORMATS.md`
//!
//! FORMATS.md says the folder name replaces `/ \ :` by `-`; 0.73.1 does
//! exactly that and nothing more (spaces and non-ASCII stay), which the
//! reader does not depend on. It calls the first user message the title:
//! pi takes it in line order, not along the current path (the two differ
//! only after a branch from before the first prompt).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod line;

pub use line::typed_text;
use line::{Entry, Message, Says};

use crate::caches::Caches;
use crate::error::ReadError;
use crate::index::stamp::TitleInputs;
use crate::kinds::foreign::{
    fold_all_lines, last_line_where, read_lines, title_from_text, FileCache, SurfaceBuilder, Visit,
};
use crate::model::{SessionRecord, StoreKind, Surface, SurfaceSink};
use crate::store::{env_or_home, Env, Store};
use crate::store::{has_suffix, ScanEvent};
use session_ref_core::time::Instant;
use session_ref_jsonl::lines;
use session_ref_jsonl::loose::{is_str, non_empty, string};

/// The pi store.
pub struct Pi;

/// The pi store's kind.
pub const KIND: StoreKind = StoreKind::new(&Pi);

/// One parsed line: its place in the tree and what it says.
#[derive(Debug, Clone)]
struct Node {
    header: bool,
    id: Option<String>,
    parent: Option<String>,
    says: Says,
}

fn parse_node(bytes: &[u8]) -> Option<Node> {
    let entry = Entry::parse(bytes)?;
    let says = if entry.is("message") {
        let message = Message::parse(entry.message);
        if is_str(message.role, "user") {
            let texts: Vec<String> = message
                .texts()
                .iter()
                .map(|t| typed_text(t))
                .filter(|t| !t.trim().is_empty())
                .collect();
            if texts.is_empty() {
                Says::Nothing
            } else {
                Says::User(texts)
            }
        } else if is_str(message.role, "assistant") {
            let texts: Vec<String> = message
                .texts()
                .into_iter()
                .filter(|t| !t.is_empty())
                .collect();
            if texts.is_empty() {
                Says::Nothing
            } else {
                Says::Assistant(texts)
            }
        } else {
            Says::Nothing
        }
    } else if entry.is("compaction") {
        Says::Compaction {
            summary: string(entry.summary).unwrap_or_default(),
            first_kept: string(entry.first_kept),
        }
    } else {
        Says::Nothing
    };
    Some(Node {
        header: entry.is("session"),
        id: string(entry.id),
        parent: string(entry.parent_id),
        says,
    })
}

/// The entries on the current path, root first: from the last entry back
/// by `parentId` (see the module docs). Files without ids (version 1)
/// are one path in line order.
fn current_path(nodes: &[Node]) -> Vec<usize> {
    let entries: Vec<usize> = (0..nodes.len()).filter(|&i| !nodes[i].header).collect();
    if entries.iter().all(|&i| nodes[i].id.is_none()) {
        return entries;
    }
    let mut by_id: HashMap<&str, usize> = HashMap::with_capacity(entries.len());
    for &i in &entries {
        if let Some(id) = &nodes[i].id {
            by_id.insert(id.as_str(), i);
        }
    }
    let Some(&leaf) = entries.iter().rev().find(|&&i| nodes[i].id.is_some()) else {
        return Vec::new();
    };
    let mut path = vec![leaf];
    let mut current = leaf;
    // A parent is always written before its child: a link that does not
    // point backward is damage, and ends the walk (no loop can form).
    while let Some(&parent) = nodes[current]
        .parent
        .as_deref()
        .and_then(|p| by_id.get(p))
        .filter(|&&p| p < current)
    {
        path.push(parent);
        current = parent;
    }
    path.reverse();
    path
}

/// Fold the conversation of `nodes` into `sink` (see the module docs): the
/// seq of the last event.
fn fold_nodes<S: SurfaceSink>(nodes: &[Node], builder: &mut SurfaceBuilder<S>) -> u64 {
    let path = current_path(nodes);
    let last_compaction = path
        .iter()
        .rposition(|&i| matches!(nodes[i].says, Says::Compaction { .. }));
    let mut seq = 0;
    fn emit<S: SurfaceSink>(builder: &mut SurfaceBuilder<S>, seq: &mut u64, says: &Says) {
        match says {
            Says::User(texts) => {
                *seq += 1;
                builder.user(*seq, texts.clone());
            }
            Says::Assistant(texts) => {
                *seq += 1;
                builder.assistant(*seq, None, texts.clone());
            }
            _ => {}
        }
    }
    let Some(at) = last_compaction else {
        for &i in &path {
            emit(builder, &mut seq, &nodes[i].says);
        }
        return seq;
    };
    let Says::Compaction {
        summary,
        first_kept,
    } = &nodes[path[at]].says
    else {
        unreachable!("found as a compaction")
    };
    let kept_from = first_kept
        .as_deref()
        .and_then(|id| {
            path[..at]
                .iter()
                .position(|&i| nodes[i].id.as_deref() == Some(id))
        })
        .unwrap_or(at);
    for &i in &path[..kept_from] {
        emit(builder, &mut seq, &nodes[i].says);
    }
    builder.shadow();
    if !summary.trim().is_empty() {
        seq += 1;
        builder.checkpoint(seq, vec![summary.clone()]);
    }
    for &i in path[kept_from..at].iter().chain(&path[at + 1..]) {
        emit(builder, &mut seq, &nodes[i].says);
    }
    seq
}

/// Read every line of a session file (both cores).
fn read_nodes(path: &Path) -> Result<Vec<Node>, ReadError> {
    let mut nodes = Vec::new();
    fold_all_lines(path, parse_node, |_, node| nodes.push(node))?;
    Ok(nodes)
}

/// Fold the surface of `record` into `sink`: the seq of the last event.
pub fn fold_surface<S: SurfaceSink>(
    record: &SessionRecord,
    sink: S,
) -> Result<(S, u64), ReadError> {
    let nodes = read_nodes(&record.path)?;
    let mut builder = SurfaceBuilder::new(sink);
    let last = fold_nodes(&nodes, &mut builder);
    Ok((builder.into_sink(), last))
}

/// The folded surface of a pi session.
pub fn read_surface(record: &SessionRecord) -> Result<Surface, ReadError> {
    let nodes = read_nodes(&record.path)?;
    let mut builder = SurfaceBuilder::default();
    let last = fold_nodes(&nodes, &mut builder);
    Ok(builder.finish(last))
}

/// The record of a session file from its header line; `None` when the
/// first line is not a pi `session` header with an id.
fn read_record(root: &Arc<Path>, path: &Path) -> Result<Option<SessionRecord>, ReadError> {
    let Some(line) = lines::first_line(path).map_err(|e| ReadError::io(path, &e))? else {
        return Ok(None);
    };
    let Some(header) = Entry::parse(&line).filter(|e| e.is("session")) else {
        return Ok(None);
    };
    let Some(id) = non_empty(header.id) else {
        return Ok(None);
    };
    Ok(Some(SessionRecord::new(
        KIND,
        root.clone(),
        path.to_owned(),
        id,
        non_empty(header.cwd),
        string(header.timestamp).unwrap_or_default(),
    )))
}

/// What titling remembers between calls, owned by the catalog's [`Caches`].
#[derive(Default)]
struct PiCaches {
    titles: FileCache<Option<String>>,
}

/// The title of a session as pi's `/resume` shows it (see the module docs).
pub fn read_title(caches: &Caches, record: &SessionRecord) -> Result<Option<String>, ReadError> {
    let caches = caches.get::<PiCaches>();
    let path = &record.path;
    let title = caches.titles.get(path, 0, || {
        let named = last_line_where(path, b"session_info", |bytes| {
            let entry = Entry::parse(bytes)?;
            entry
                .is("session_info")
                .then(|| string(entry.name).map(|n| n.trim().to_owned()))
        })?;
        if let Some(name) = named.flatten().filter(|n| !n.is_empty()) {
            return Ok(Some(name));
        }
        first_prompt(path)
    })?;
    Ok((*title).clone())
}

/// The first user message of the file in line order, as a title.
fn first_prompt(path: &Path) -> Result<Option<String>, ReadError> {
    let mut found = None;
    read_lines(path, true, |_, bytes| {
        let Some(node) = parse_node(bytes) else {
            return Visit::BAD;
        };
        if let Says::User(texts) = node.says {
            found = title_from_text(&texts.join(" "));
            if found.is_some() {
                return Visit::DONE;
            }
        }
        Visit::NEXT
    })?;
    Ok(found)
}

/// When the session was last active (Unix seconds), as pi's `/resume`
/// sorts: the newest `message.timestamp` (Unix ms) of a user or assistant
/// message, else that entry's own `timestamp`; else the header's time.
/// `None` when the file records neither (the caller falls back to its
/// modification time). pi appends entries as they happen, branches
/// included, so the newest message is the last one in the file: found by
/// a backward scan of the tail, not a read of the whole log.
pub fn last_activity(path: &Path) -> Result<Option<i64>, ReadError> {
    let newest = last_line_where(path, b"\"message\"", |bytes| {
        let entry = Entry::parse(bytes)?;
        if !entry.is("message") {
            return None;
        }
        let message = Message::parse(entry.message);
        if !(is_str(message.role, "user") || is_str(message.role, "assistant")) {
            return None;
        }
        message
            .timestamp
            .and_then(|t| t.0.parse::<f64>().ok())
            .filter(|ms| ms.is_finite() && *ms > 0.0)
            .map(|ms| (ms / 1000.0).floor() as i64)
            .or_else(|| entry_time(&entry))
    })?;
    if newest.is_some() {
        return Ok(newest);
    }
    let header = lines::first_line(path).map_err(|e| ReadError::io(path, &e))?;
    Ok(header
        .as_deref()
        .and_then(Entry::parse)
        .filter(|e| e.is("session"))
        .and_then(|e| entry_time(&e)))
}

/// An entry's own `timestamp`, in Unix seconds.
fn entry_time(entry: &Entry<'_>) -> Option<i64> {
    string(entry.timestamp)
        .and_then(|t| Instant::parse_rfc3339(&t))
        .map(|t| t.unix_seconds())
}

impl Store for Pi {
    fn name(&self) -> &'static str {
        "pi"
    }

    fn flag(&self) -> &'static str {
        "pi"
    }

    fn origin(&self) -> &'static str {
        "pi"
    }

    fn root_help(&self) -> &'static str {
        "pi sessions directory"
    }

    fn default_roots(&self, env: Env<'_>, home: Option<&Path>) -> Vec<PathBuf> {
        env_or_home(
            env,
            home,
            "PI_CODING_AGENT_DIR",
            &["sessions"],
            &[".pi", "agent", "sessions"],
        )
    }

    fn wants(&self, path: &Path) -> bool {
        has_suffix(path, ".jsonl")
    }

    fn list_file(&self, _: &Caches, root: &Arc<Path>, path: &Path) -> ScanEvent {
        match read_record(root, path) {
            Ok(Some(record)) => ScanEvent::Record(record),
            Ok(None) => ScanEvent::Skipped {
                path: path.to_owned(),
                reason: "not a pi session: no session header line".into(),
            },
            Err(e) => ScanEvent::Unreadable {
                path: path.to_owned(),
                reason: e.message,
            },
        }
    }

    /// The title depends on the session file alone: the index keeps it
    /// while the file is unchanged.
    fn title_inputs(&self, _: &Caches, _: &SessionRecord) -> Option<TitleInputs> {
        Some(TitleInputs::Files(Vec::new()))
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

    fn last_activity(&self, _: &Caches, record: &SessionRecord) -> Option<i64> {
        last_activity(&record.path)
            .ok()
            .flatten()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::foreign::testing::texts;
    use crate::model::History;

    const CWD: &str = "/home/dev/projé";

    fn header(id: &str) -> String {
        format!(
            r#"{{"type":"session","version":3,"id":"{id}","timestamp":"2026-03-01T10:00:00.000Z","cwd":"{CWD}"}}"#
        )
    }

    fn user(id: &str, parent: Option<&str>, text: &str, ms: u64) -> String {
        let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
        let text = serde_json::to_string(text).unwrap();
        format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-03-01T10:00:01.000Z","message":{{"role":"user","content":[{{"type":"text","text":{text}}}],"timestamp":{ms}}}}}"#
        )
    }

    fn assistant(id: &str, parent: &str, text: &str, ms: u64) -> String {
        let text = serde_json::to_string(text).unwrap();
        format!(
            r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-03-01T10:00:02.000Z","message":{{"role":"assistant","content":[{{"type":"thinking","thinking":"SECRET THOUGHT"}},{{"type":"text","text":{text}}},{{"type":"toolCall","id":"c","name":"read","arguments":{{"path":"TOOLARG"}}}}],"api":"openai-completions","stopReason":"stop","timestamp":{ms}}}}}"#
        )
    }

    fn write(dir: &Path, lines: &[String]) -> PathBuf {
        let folder = dir.join("--home-dev-projé--");
        std::fs::create_dir_all(&folder).unwrap();
        let path =
            folder.join("2026-03-01T10-00-00-000Z_0190aaaa-0000-7000-8000-000000000001.jsonl");
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        path
    }

    fn record(dir: &Path, path: &Path) -> SessionRecord {
        let root: Arc<Path> = Arc::from(dir);
        read_record(&root, path).unwrap().unwrap()
    }

    fn title(record: &SessionRecord) -> Option<String> {
        read_title(&Caches::default(), record).unwrap()
    }

    #[test]
    fn header_gives_id_cwd_and_creation_and_others_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), &[header("s-1"), user("a1", None, "hi", 1)]);
        let r = record(dir.path(), &path);
        assert_eq!(r.id, "s-1");
        assert_eq!(r.cwd.as_deref(), Some(CWD));
        assert_eq!(r.created_at, "2026-03-01T10:00:00.000Z");
        let other = dir.path().join("x.jsonl");
        std::fs::write(&other, user("a1", None, "hi", 1) + "\n").unwrap();
        let root: Arc<Path> = Arc::from(dir.path());
        assert!(matches!(
            Pi.list_file(&Caches::default(), &root, &other),
            ScanEvent::Skipped { .. }
        ));
    }

    #[test]
    fn the_conversation_is_the_path_from_the_last_entry_not_line_order() {
        let dir = tempfile::tempdir().unwrap();
        // u1 → a1 → u2 → a2, then /tree back to a1: u3 → a3 hang below a1.
        let path = write(
            dir.path(),
            &[
                header("s"),
                r#"{"type":"model_change","id":"m0","parentId":null,"timestamp":"2026-03-01T10:00:00.500Z","provider":"p","modelId":"m"}"#.into(),
                user("u1", Some("m0"), "first question", 1_000),
                assistant("a1", "u1", "first answer", 2_000),
                user("u2", Some("a1"), "abandoned question", 3_000),
                assistant("a2", "u2", "abandoned answer", 4_000),
                r#"{"type":"branch_summary","id":"b1","parentId":"a1","timestamp":"2026-03-01T10:01:00.000Z","fromId":"a1","summary":"BRANCH SUMMARY"}"#.into(),
                user("u3", Some("b1"), "branched question", 5_000),
                assistant("a3", "u3", "branched answer", 6_000),
                r#"{"type":"label","id":"l1","parentId":"a3","timestamp":"2026-03-01T10:02:00.000Z","targetId":"u1","label":"x"}"#.into(),
            ],
        );
        let surface = read_surface(&record(dir.path(), &path)).unwrap();
        let said: Vec<(u64, &str, String)> = texts(&surface);
        assert_eq!(
            said,
            [
                (1, "user", "first question".into()),
                (2, "assistant", "first answer".into()),
                (3, "user", "branched question".into()),
                (4, "assistant", "branched answer".into()),
            ]
        );
        assert_eq!(surface.captured_through_seq, 4);
    }

    #[test]
    fn compaction_keeps_the_entries_from_first_kept_after_its_summary() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            &[
                header("s"),
                user("u1", None, "old question", 1_000),
                assistant("a1", "u1", "old answer", 2_000),
                user("u2", Some("a1"), "kept question", 3_000),
                assistant("a2", "u2", "kept answer", 4_000),
                r#"{"type":"compaction","id":"c1","parentId":"a2","timestamp":"2026-03-01T10:05:00.000Z","summary":"THE SUMMARY","firstKeptEntryId":"u2","tokensBefore":9}"#.into(),
                user("u3", Some("c1"), "after compaction", 5_000),
            ],
        );
        let r = record(dir.path(), &path);
        assert_eq!(
            texts(&read_surface(&r).unwrap()),
            [
                (3, "checkpoint", "THE SUMMARY".into()),
                (4, "user", "kept question".into()),
                (5, "assistant", "kept answer".into()),
                (6, "user", "after compaction".into()),
            ]
        );
        let mut history = History::default();
        let last = Pi
            .fold_surface(&Caches::default(), &r, &mut history)
            .unwrap();
        let history = history.finish(last);
        let shadowed: Vec<u64> = history.shadowed.iter().map(|e| e.seq).collect();
        assert_eq!(shadowed, [1, 2]);
    }

    #[test]
    fn version_1_files_without_ids_are_read_in_line_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            &[
                r#"{"type":"session","id":"old","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}"#.into(),
                r#"{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"plain string prompt","timestamp":1}}"#.into(),
                r#"{"type":"message","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"reply"}],"timestamp":2}}"#.into(),
            ],
        );
        assert_eq!(
            texts(&read_surface(&record(dir.path(), &path)).unwrap()),
            [
                (1, "user", "plain string prompt".into()),
                (2, "assistant", "reply".into())
            ]
        );
    }

    #[test]
    fn file_blocks_become_mentions_and_stdin_and_prompt_stay() {
        let joined = "piped stdin data<file name=\"/w/notes.md\">\nline one\n</file>\n<file name=\"/w/img.png\"></file>\nsummarize this file";
        assert_eq!(
            typed_text(joined),
            "piped stdin data\n@/w/notes.md @/w/img.png summarize this file"
        );
        assert_eq!(
            typed_text("<file name=\"/w/a b.md\">\nx\n</file>\n"),
            "@/w/a b.md"
        );
        assert_eq!(typed_text("no files here"), "no files here");
        // A quoted, unterminated tag is the person's own text.
        assert_eq!(
            typed_text("why is <file name=\"x\"> shown"),
            "why is <file name=\"x\"> shown"
        );
    }

    #[test]
    fn title_is_the_latest_name_else_the_first_prompt() {
        let dir = tempfile::tempdir().unwrap();
        let base = vec![
            header("s"),
            user("u1", None, "  first prompt ☕ line\nsecond line", 1_000),
            assistant("a1", "u1", "answer", 2_000),
        ];
        let path = write(dir.path(), &base);
        let r = record(dir.path(), &path);
        assert_eq!(title(&r).as_deref(), Some("first prompt ☕ line"));
        let mut named = base.clone();
        named.push(r#"{"type":"session_info","id":"i1","parentId":"a1","timestamp":"2026-03-01T10:03:00.000Z","name":"  Named ✓ "}"#.into());
        let path = write(dir.path(), &named);
        assert_eq!(
            title(&record(dir.path(), &path)).as_deref(),
            Some("Named ✓")
        );
        named.push(r#"{"type":"session_info","id":"i2","parentId":"i1","timestamp":"2026-03-01T10:04:00.000Z","name":""}"#.into());
        let path = write(dir.path(), &named);
        assert_eq!(
            title(&record(dir.path(), &path)).as_deref(),
            Some("first prompt ☕ line")
        );
    }

    #[test]
    fn last_activity_is_the_newest_message_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            &[
                header("s"),
                user("u1", None, "q", 1_780_000_000_000),
                assistant("a1", "u1", "a", 1_780_000_005_999),
                r#"{"type":"session_info","id":"i1","parentId":"a1","timestamp":"2027-01-01T00:00:00.000Z","name":"n"}"#.into(),
            ],
        );
        assert_eq!(last_activity(&path).unwrap(), Some(1_780_000_005));
        let bare = write(dir.path(), &[header("s")]);
        let header_time = Instant::parse_rfc3339("2026-03-01T10:00:00.000Z").unwrap();
        assert_eq!(
            last_activity(&bare).unwrap(),
            Some(header_time.unix_seconds())
        );
    }

    #[test]
    fn a_torn_last_line_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            &[
                header("s"),
                user("u1", None, "q", 1),
                assistant("a1", "u1", "a", 2),
            ],
        );
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.extend_from_slice(
            br#"{"type":"message","id":"u2","parentId":"a1","message":{"role":"us"#,
        );
        std::fs::write(&path, bytes).unwrap();
        let surface = read_surface(&record(dir.path(), &path)).unwrap();
        assert_eq!(texts(&surface).len(), 2);
    }
}
