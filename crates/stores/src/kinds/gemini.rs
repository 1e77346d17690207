//! Gemini CLI chats (`~/.gemini/tmp/<project>/chats/session-*.json[l]`),
//! mapped onto the session model as `FORMATS.md` describes.
//!
//! # Layout
//!
//! The store root is a `.gemini` directory. Each project has a folder under
//! `tmp/`: named by a slug in current versions (0.61; the root is in
//! `tmp/<slug>/.project_root`, `history/<slug>/.project_root` and
//! `projects.json`), by the SHA-256 hex of the project root in older ones
//! (the root is recorded nowhere: such a folder is matched to a known root,
//! or to the run's working directory, by hashing it). Chats live in
//! `<folder>/chats/`; a
//! sub-agent's chat sits one level deeper, in `chats/<parentSessionId>/`,
//! and is part of its parent, not a session.
//!
//! One session may own several files: a legacy `.json` and the `.jsonl`
//! that resuming it wrote beside it, a resume stub (a fresh chat file under
//! the same id, started in another minute), and copies of all of these in
//! an old hash folder and in its slug folder (migration copies, it does not
//! move). A session is listed once, by `sessionId`. Its content is read from
//! the file Gemini CLI itself would resume: of the files with conversation,
//! the one updated last (`lastUpdated`), so stubs, stale copies and the
//! legacy original of a resumed chat never shadow the current conversation,
//! and a rewind recorded in the current file is never undone by an older
//! copy.
//!
//! # Replay
//!
//! A `.jsonl` chat is a log of records replayed in order: a message record
//! is an upsert by `id` (a message rewritten with its tool calls keeps its
//! place), `{"$set": {"messages": [...]}}` replaces the whole list,
//! `{"$rewindTo": id}` drops that message and everything after it (all of
//! them when the id is unknown, as Gemini CLI does), other `$set` keys and
//! metadata lines update the chat's metadata. A legacy `.json` is one object
//! holding the list. [`parse_jsonl`] and [`parse_legacy`] are pure (bytes in,
//! [`Chat`] out); the rest of the module only finds and reads files. Records
//! are read as borrowed `RawValue` fields with the helpers of
//! [`loose`](crate::jsonl::loose): only message texts are built, and tool
//! calls, tool output and thoughts, most of a chat's bytes, are skipped.
//!
//! # Mapping
//!
//! Direct user messages are `user` records with typed text, shown as their
//! `displayContent` when present (what was typed, before `@file` expansion
//! or a custom command's template). Not direct: `user` records holding only
//! `functionResponse` parts (tool results, kept as `tool/result`), the
//! injected `<session_context>` / `<hook_context>` messages, and the
//! "Please continue." turns Gemini CLI sends on its own. Assistant messages
//! are `gemini` records' text parts (never `thoughts`, thought parts or
//! `toolCalls`). `info`, `error` and `warning` records are not conversation.
//! The title is the latest `summary` when Gemini wrote one, else the first
//! genuine prompt's first line: a slash command without arguments
//! (`displayContent` `/init`, its expansion as `content`) titles a chat only
//! when no other prompt follows.
//!
//! Seq is the 1-based line of the record that last wrote a message (in a
//! legacy `.json`, the message's 1-based position in the list, the file
//! having no line structure); `capturedThroughSeq` the last complete line
//! (the number of messages for a legacy file).
//!
//! # Cost model
//!
//! Listing reads the first line of each `.jsonl` (the metadata line) and
//! parses each legacy `.json` once, then groups files by `sessionId`; only
//! a session with several files has them replayed to list the current one.
//! Titles replay a session's files whole (`$set` and `$rewindTo` rewrite
//! history, so no shorter read is exact) and keep small facts per file
//! version (id, last update, whether it holds conversation, title) in the
//! catalog's [`Caches`], so a file is replayed once per run while it is
//! unchanged. Across runs the title index keeps each title while the
//! session's files are unchanged ([`Store::title_inputs`]: the other files
//! of the session), so a warm listing replays nothing: on 10,000 chats
//! (1.3 GB) listing went from 22 s to a stat and a first line per file.
//! The other files of a session are found by id fragment in one look at
//! the root's folders per scan (`Freshness`). A surface replays the
//! current file again rather than keeping every conversation in memory.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;
use sha2::{Digest, Sha256};

use rayon::prelude::*;

use crate::index::title::{TitleIndex, TitleInputs};
use crate::jsonl::lines;
use crate::jsonl::loose::{elements, from_line, is_str, is_true, string};
use crate::kinds::foreign::{title_from_text, FileCache};
use crate::lock;
use crate::model::{
    Block, EventKind, MessageSource, SessionRecord, StoreKind, Surface, SurfaceEvent,
};
use crate::{env_or_home, normalize_dir, Caches, Env, ReadError, ScanEvent, Store, TargetCwd};
use session_ref_core::time::Instant;

/// Openings of user messages Gemini CLI injects, which no one typed.
const INJECTED: &[&str] = &["<session_context>", "<hook_context>"];

/// Whole user texts Gemini CLI sends by itself to let the model go on
/// (`System: Please continue.` in earlier versions).
const CONTINUATIONS: &[&str] = &["Please continue.", "System: Please continue."];

/// The part that starts the expansion of `@file` references in a prompt
/// recorded without `displayContent` (older versions): what follows it was
/// read from files, not typed.
const REFERENCED_FILES: &str = "--- Content from referenced files ---";

/// The file-name prefix of a session chat (sub-agent chats have none).
const SESSION_PREFIX: &str = "session-";

/// What one chat message is to the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Turn {
    /// A prompt the person typed: `displayContent` when present, else the
    /// text parts of `content`, joined as Gemini CLI joins them.
    Prompt(String),
    /// A `gemini` record's reply text (possibly empty: a reply made only of
    /// thoughts or tool calls).
    Reply(String),
    /// A `user` record holding only tool results (`functionResponse`).
    ToolResult,
    /// Not conversation: injected context, a continuation, an `info`,
    /// `error` or `warning` record, or a record with nothing to show.
    Hidden,
}

/// One message of a replayed chat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// The record's `id`.
    pub id: String,
    /// The line that last wrote it (its position in a legacy `.json`).
    pub seq: u64,
    /// What it is to the conversation.
    pub turn: Turn,
}

/// One chat file, replayed: its metadata and current messages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Chat {
    /// `sessionId` of the first metadata line.
    pub session_id: Option<String>,
    /// `projectHash`: the SHA-256 hex of the project root.
    pub project_hash: Option<String>,
    /// `startTime` of the first metadata line, exactly as written.
    pub start_time: Option<String>,
    /// The latest `lastUpdated`, exactly as written.
    pub last_updated: Option<String>,
    /// `kind`: `main` or `subagent` (absent in older versions).
    pub kind: Option<String>,
    /// The latest model-written `summary`.
    pub summary: Option<String>,
    /// The current conversation, in order.
    pub messages: Vec<Message>,
    /// The last complete line (the number of messages for a legacy file).
    pub captured_through_seq: u64,
}

impl Chat {
    /// Whether this is a sub-agent's chat (part of its parent session).
    pub fn is_subagent(&self) -> bool {
        self.kind.as_deref() == Some("subagent")
    }

    /// Whether the chat holds any conversation: a prompt, a reply or a tool
    /// result. A resume stub (metadata and the injected context only) does
    /// not.
    pub fn has_conversation(&self) -> bool {
        self.messages.iter().any(|m| m.turn != Turn::Hidden)
    }

    /// The title: the latest non-blank `summary`, else the first line of
    /// the first genuine prompt, cut to 80 characters. A slash command
    /// without arguments (`/init`, recorded as its expansion with the
    /// command as `displayContent`) is no genuine prompt: it titles the
    /// chat only when no other prompt follows, as in Claude Code.
    pub fn title(&self) -> Option<String> {
        if let Some(summary) = self.summary.as_deref().and_then(title_from_text) {
            return Some(summary);
        }
        let mut prompts = self.messages.iter().filter_map(|m| match &m.turn {
            Turn::Prompt(text) => title_from_text(text),
            _ => None,
        });
        let first = prompts.next()?;
        if !is_bare_command(&first) {
            return Some(first);
        }
        Some(prompts.find(|p| !is_bare_command(p)).unwrap_or(first))
    }

    /// The folded surface (SPEC §2): prompts, reply texts and tool results
    /// in conversation order; replies without text are left out.
    pub fn surface(&self) -> Surface {
        let events = self
            .messages
            .iter()
            .filter_map(|m| {
                let kind = match &m.turn {
                    Turn::Prompt(text) => EventKind::UserMessage {
                        source: MessageSource::User,
                        content: vec![Block::Text(text.clone())],
                    },
                    Turn::Reply(text) if !text.is_empty() => EventKind::AssistantMessage {
                        content: vec![Block::Text(text.clone())],
                    },
                    Turn::ToolResult => EventKind::ToolResult,
                    Turn::Reply(_) | Turn::Hidden => return None,
                };
                Some(SurfaceEvent { seq: m.seq, kind })
            })
            .collect();
        Surface {
            events,
            captured_through_seq: self.captured_through_seq,
        }
    }

    /// Merge a metadata object (a metadata line, a `$set`, a legacy file):
    /// identity and start from the first that has them, the rest latest.
    fn merge_metadata(&mut self, fields: &Record<'_>) {
        fn first(slot: &mut Option<String>, raw: Option<&RawValue>) {
            if slot.is_none() {
                *slot = string(raw);
            }
        }
        fn latest(slot: &mut Option<String>, raw: Option<&RawValue>) {
            if let Some(value) = string(raw) {
                *slot = Some(value);
            }
        }
        first(&mut self.session_id, fields.session_id);
        first(&mut self.project_hash, fields.project_hash);
        first(&mut self.start_time, fields.start_time);
        first(&mut self.kind, fields.kind);
        latest(&mut self.last_updated, fields.last_updated);
        latest(&mut self.summary, fields.summary);
    }
}

/// The fields of a chat line, of a `$set` object or of a message inside a
/// list that the replay reads, borrowed from the line. Everything else
/// (tool calls, thoughts, tokens: most of a chat's bytes) is skipped
/// without being built.
#[derive(Deserialize, Default)]
struct Record<'a> {
    #[serde(rename = "$rewindTo", borrow)]
    rewind_to: Option<&'a RawValue>,
    #[serde(rename = "$set", borrow)]
    set: Option<&'a RawValue>,
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(rename = "type", borrow)]
    message_type: Option<&'a RawValue>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    #[serde(rename = "displayContent", borrow)]
    display_content: Option<&'a RawValue>,
    #[serde(rename = "sessionId", borrow)]
    session_id: Option<&'a RawValue>,
    #[serde(rename = "projectHash", borrow)]
    project_hash: Option<&'a RawValue>,
    #[serde(rename = "startTime", borrow)]
    start_time: Option<&'a RawValue>,
    #[serde(rename = "lastUpdated", borrow)]
    last_updated: Option<&'a RawValue>,
    #[serde(borrow)]
    kind: Option<&'a RawValue>,
    #[serde(borrow)]
    summary: Option<&'a RawValue>,
    #[serde(borrow)]
    messages: Option<&'a RawValue>,
}

impl<'a> Record<'a> {
    /// A JSON object's fields; `None` for anything that is not an object.
    fn parse(raw: &'a [u8]) -> Option<Record<'a>> {
        let start = raw.iter().position(|b| !b.is_ascii_whitespace())?;
        if raw[start] != b'{' {
            return None;
        }
        from_line(raw).ok()
    }

    /// [`Record::parse`] of a JSON value inside a line.
    fn of(raw: &'a RawValue) -> Option<Record<'a>> {
        Record::parse(raw.get().as_bytes())
    }
}

/// Whether a JSON value is a string.
fn is_string(raw: Option<&RawValue>) -> bool {
    raw.is_some_and(|r| r.get().starts_with('"'))
}

/// Whether a JSON value is an array.
fn is_array(raw: Option<&RawValue>) -> bool {
    raw.is_some_and(|r| r.get().starts_with('['))
}

/// One part of a part list: its text, whether it is a thought, whether it
/// is a tool result.
#[derive(Deserialize)]
struct Part<'a> {
    #[serde(borrow)]
    text: Option<&'a RawValue>,
    #[serde(borrow)]
    thought: Option<&'a RawValue>,
    #[serde(rename = "functionResponse", borrow)]
    function_response: Option<&'a RawValue>,
}

/// The messages of a chat being replayed: an insertion-ordered map by id.
#[derive(Default)]
struct Replay {
    messages: Vec<Message>,
    by_id: HashMap<String, usize>,
}

impl Replay {
    /// Insert or replace by id; a replaced message keeps its place.
    fn upsert(&mut self, message: Message) {
        match self.by_id.get(&message.id) {
            Some(&index) => self.messages[index] = message,
            None => {
                self.by_id.insert(message.id.clone(), self.messages.len());
                self.messages.push(message);
            }
        }
    }

    fn clear(&mut self) {
        self.messages.clear();
        self.by_id.clear();
    }

    /// Drop `id` and everything after it; everything when `id` is unknown.
    fn rewind_to(&mut self, id: &str) {
        let keep = self.by_id.get(id).copied().unwrap_or(0);
        for dropped in self.messages.drain(keep..) {
            self.by_id.remove(&dropped.id);
        }
    }
}

/// Classify one message record; `None` when it is not one (no string `id`).
fn message(record: &Record<'_>, seq: u64) -> Option<Message> {
    let id = string(record.id.filter(|id| is_string(Some(id))))?;
    Some(Message {
        id,
        seq,
        turn: turn(record),
    })
}

/// What a message record is to the conversation (see the module docs).
fn turn(record: &Record<'_>) -> Turn {
    let content = record.content;
    if is_str(record.message_type, "gemini") {
        Turn::Reply(part_texts(content, false).concat())
    } else if is_str(record.message_type, "user") {
        user_turn(content, record.display_content)
    } else {
        Turn::Hidden
    }
}

/// A `user` record: tool results, injected or generated text, or a prompt
/// (what was typed: `displayContent` when present).
fn user_turn(content: Option<&RawValue>, display: Option<&RawValue>) -> Turn {
    let sent = part_texts(content, false).concat();
    let sent = sent.trim();
    if sent.is_empty() {
        return if has_function_response(content) {
            Turn::ToolResult
        } else {
            Turn::Hidden
        };
    }
    if INJECTED.iter().any(|p| sent.starts_with(p)) || CONTINUATIONS.contains(&sent) {
        return Turn::Hidden;
    }
    let typed = match display.filter(|d| d.get() != "null") {
        Some(display) => part_texts(Some(display), false).concat(),
        None => part_texts(content, true).concat(),
    };
    if typed.trim().is_empty() {
        Turn::Hidden
    } else {
        Turn::Prompt(typed)
    }
}

/// Whether a prompt is a slash command without arguments (`/init`): one
/// word after the slash.
fn is_bare_command(text: &str) -> bool {
    let text = text.trim();
    text.len() > 1 && text.starts_with('/') && !text.contains(char::is_whitespace)
}

/// The parts of a part list: a string, a part, or an array of either.
fn parts(value: Option<&RawValue>) -> Vec<&RawValue> {
    if is_array(value) {
        elements(value)
    } else {
        value.into_iter().collect()
    }
}

/// The texts of a part list, thought parts left out. With `typed_only`,
/// stop at the expansion of `@file` references.
fn part_texts(value: Option<&RawValue>, typed_only: bool) -> Vec<String> {
    let mut texts = Vec::new();
    for part in parts(value) {
        let text = if is_string(Some(part)) {
            string(Some(part))
        } else {
            serde_json::from_str::<Part<'_>>(part.get())
                .ok()
                .filter(|p| !is_true(p.thought))
                .and_then(|p| string(p.text))
        };
        let Some(text) = text else { continue };
        if typed_only && text.trim_start().starts_with(REFERENCED_FILES) {
            break;
        }
        texts.push(text);
    }
    texts
}

/// Whether a part list holds a `functionResponse` part.
fn has_function_response(value: Option<&RawValue>) -> bool {
    parts(value).into_iter().any(|part| {
        serde_json::from_str::<Part<'_>>(part.get()).is_ok_and(|p| p.function_response.is_some())
    })
}

/// Replay a `.jsonl` chat. Lines that are not JSON objects are passed over
/// (Gemini CLI does the same); `capturedThroughSeq` is the last line that is
/// complete (ends in a newline) or parses, so a torn last line is ignored.
pub fn parse_jsonl(bytes: &[u8]) -> Chat {
    let mut chat = Chat::default();
    let mut replay = Replay::default();
    for (index, raw) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
        let number = index as u64 + 1;
        let terminated = raw.ends_with(b"\n");
        let text = raw.strip_suffix(b"\n").unwrap_or(raw);
        if text.iter().all(u8::is_ascii_whitespace) {
            if terminated {
                chat.captured_through_seq = number;
            }
            continue;
        }
        let Some(record) = Record::parse(text) else {
            if terminated {
                chat.captured_through_seq = number;
            }
            continue;
        };
        chat.captured_through_seq = number;
        apply(&mut chat, &mut replay, &record, number);
    }
    chat.messages = replay.messages;
    chat
}

/// Apply one record, tested in the order Gemini CLI tests them.
fn apply(chat: &mut Chat, replay: &mut Replay, record: &Record<'_>, seq: u64) {
    if is_string(record.rewind_to) {
        if let Some(id) = string(record.rewind_to) {
            replay.rewind_to(&id);
        }
    } else if is_string(record.id) {
        if let Some(m) = message(record, seq) {
            replay.upsert(m);
        }
    } else if let Some(set) = record.set.and_then(Record::of) {
        if is_array(set.messages) {
            replay.clear();
            add_messages(replay, &set, seq);
        }
        chat.merge_metadata(&set);
    } else if is_string(record.session_id) && is_string(record.project_hash) {
        chat.merge_metadata(record);
        // A metadata line may carry messages (a resumed legacy chat's
        // first line in some versions): added, not replacing.
        add_messages(replay, record, seq);
    }
}

/// Upsert the messages of a record's `messages` list.
fn add_messages(replay: &mut Replay, record: &Record<'_>, seq: u64) {
    for m in elements(record.messages)
        .into_iter()
        .filter_map(Record::of)
        .filter_map(|r| message(&r, seq))
    {
        replay.upsert(m);
    }
}

/// Parse a legacy `.json` chat: one object with `sessionId`, `projectHash`,
/// `startTime`, `lastUpdated`, `summary?` and `messages`. Messages without
/// an `id` are kept (legacy files were written whole, never upserted).
pub fn parse_legacy(bytes: &[u8]) -> Result<Chat, String> {
    let fields: Record<'_> = match serde_json::from_slice::<&RawValue>(bytes) {
        Ok(raw) => Record::of(raw).ok_or("not a JSON object")?,
        Err(e) => return Err(format!("not JSON: {e}")),
    };
    if !is_string(fields.session_id) {
        return Err("no sessionId".into());
    }
    let mut chat = Chat::default();
    chat.merge_metadata(&fields);
    let mut replay = Replay::default();
    for (index, raw) in elements(fields.messages).into_iter().enumerate() {
        let seq = index as u64 + 1;
        let record = Record::of(raw).unwrap_or_default();
        let id = string(record.id).unwrap_or_else(|| format!("#{seq}"));
        replay.upsert(Message {
            id,
            seq,
            turn: turn(&record),
        });
        chat.captured_through_seq = seq;
    }
    chat.messages = replay.messages;
    Ok(chat)
}

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
fn is_session_file(name: &str) -> bool {
    name.starts_with(SESSION_PREFIX) && (name.ends_with(".json") || name.ends_with(".jsonl"))
}

// ---------------------------------------------------------------- files ---

/// A project folder under `tmp/`, with the root it belongs to when known.
#[derive(Debug, Clone)]
struct Folder {
    /// `tmp/<name>`.
    path: PathBuf,
    /// From its `.project_root` (slug folders).
    root: Option<String>,
}

/// What the store root says about projects: its folders and the project
/// roots it knows, by hash.
#[derive(Debug, Default)]
struct Projects {
    folders: Vec<Folder>,
    by_hash: HashMap<String, String>,
}

impl Projects {
    /// Read `tmp/*`, their `.project_root`, `history/*/.project_root` and
    /// `projects.json`, and take the run's working directory ([`TargetCwd`])
    /// as one more candidate root: a hash folder whose root is recorded
    /// nowhere is matched by hashing it. An unreadable `tmp` is reported;
    /// other missing or unreadable pieces only leave roots unknown.
    fn read(caches: &Caches, root: &Path, on_error: &mut dyn FnMut(PathBuf, String)) -> Projects {
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
    fn root_of(&self, folder: &Folder, hash: Option<&str>) -> Option<String> {
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
fn read_project_root(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(".project_root")).ok()?;
    let root = text.trim_end_matches(['\n', '\r']);
    (!root.is_empty()).then(|| root.to_owned())
}

/// The session chats directly in `<folder>/chats/`, in path order, and the
/// sub-agent chats one level below.
fn chat_files(folder: &Path) -> std::io::Result<(Vec<PathBuf>, Vec<PathBuf>)> {
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
fn in_hash_folder(path: &Path) -> bool {
    let folder = path
        .parent()
        .and_then(Path::parent)
        .and_then(Path::file_name);
    folder
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.len() == 64 && n.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn is_legacy(path: &Path) -> bool {
    path.extension().is_some_and(|x| x == "json")
}

/// What listing needs of one file: its metadata, read from the head.
#[derive(Debug, Clone)]
struct Head {
    session_id: String,
    project_hash: Option<String>,
    start_time: Option<String>,
    subagent: bool,
    modified: Option<SystemTime>,
}

/// What a file's bytes say of it for listing: its head's fields, or why it
/// is not a session chat. Kept in the title index per file version
/// ([`TitleIndex::file_fact`]): a legacy `.json` gives its head only when
/// parsed whole, and a warm listing must not parse every one again.
#[derive(Debug, Clone, Serialize, Deserialize)]
enum HeadFact {
    /// A chat's head.
    Chat {
        session_id: String,
        project_hash: Option<String>,
        start_time: Option<String>,
        subagent: bool,
    },
    /// Not a Gemini CLI session chat, and why.
    Skipped(String),
}

/// The head of `path` below `root`, through the title index when in use.
fn head_of(caches: &Caches, root: &Path, path: &Path) -> Result<Head, NotListed> {
    let mut unreadable = None;
    let index = caches.get::<TitleIndex>();
    let found = index.file_fact(KIND, root, path, || match read_head(path) {
        Ok(head) => Some(HeadFact::Chat {
            session_id: head.session_id,
            project_hash: head.project_hash,
            start_time: head.start_time,
            subagent: head.subagent,
        }),
        Err(NotListed::Skipped(reason)) => Some(HeadFact::Skipped(reason)),
        Err(e @ NotListed::Unreadable(_)) => {
            unreadable = Some(e);
            None
        }
    });
    match found {
        Some((
            stamp,
            Some(HeadFact::Chat {
                session_id,
                project_hash,
                start_time,
                subagent,
            }),
        )) => Ok(Head {
            session_id,
            project_hash,
            start_time,
            subagent,
            modified: stamp.modified(),
        }),
        Some((_, Some(HeadFact::Skipped(reason)))) => Err(NotListed::Skipped(reason)),
        Some((_, None)) => Err(unreadable
            .unwrap_or_else(|| NotListed::Unreadable("Gemini CLI chat could not be read".into()))),
        None => read_head(path),
    }
}

/// Why a file is not listed.
enum NotListed {
    /// Not a Gemini session chat (reason).
    Skipped(String),
    /// Could not be read (reason).
    Unreadable(String),
}

/// The metadata line of a `.jsonl` chat, or the top-level fields of a
/// legacy `.json` (its messages skipped over, not built).
fn read_head(path: &Path) -> Result<Head, NotListed> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Fields {
        session_id: Option<Value>,
        project_hash: Option<Value>,
        start_time: Option<Value>,
        kind: Option<Value>,
    }
    let io = |e: std::io::Error| NotListed::Unreadable(e.to_string());
    let modified = std::fs::metadata(path).map_err(io)?.modified().ok();
    let fields: Fields = if is_legacy(path) {
        let bytes = std::fs::read(path).map_err(io)?;
        serde_json::from_slice(&bytes)
            .map_err(|e| NotListed::Unreadable(format!("legacy Gemini chat is not JSON: {e}")))?
    } else {
        let line = lines::first_line(path).map_err(io)?.unwrap_or_default();
        serde_json::from_slice(&line).map_err(|_| {
            NotListed::Skipped("not a Gemini chat: line 1 is not a metadata object".into())
        })?
    };
    let text = |v: Option<Value>| match v {
        Some(Value::String(s)) => Some(s),
        _ => None,
    };
    let Some(session_id) = text(fields.session_id) else {
        return Err(NotListed::Skipped("not a Gemini chat: no sessionId".into()));
    };
    Ok(Head {
        session_id,
        project_hash: text(fields.project_hash),
        start_time: text(fields.start_time),
        subagent: text(fields.kind).as_deref() == Some("subagent"),
        modified,
    })
}

/// The Gemini CLI store kind.
pub struct Gemini;

/// The handle of the Gemini CLI store kind.
pub const KIND: StoreKind = StoreKind::new(&Gemini);

/// What titling and choosing among a session's files need of one chat
/// file, cached per file version in the catalog's [`Caches`] (small: no
/// message text but the title).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facts {
    /// `sessionId`.
    pub session_id: Option<String>,
    /// A sub-agent's chat.
    pub subagent: bool,
    /// The latest `lastUpdated` (else `startTime`), as an instant.
    pub updated: Option<Instant>,
    /// Whether the chat holds any conversation (a resume stub does not).
    pub has_conversation: bool,
    /// The chat's title ([`Chat::title`]).
    pub title: Option<String>,
}

impl Facts {
    /// The facts of a replayed chat.
    pub fn of(chat: &Chat) -> Facts {
        Facts {
            session_id: chat.session_id.clone(),
            subagent: chat.is_subagent(),
            updated: chat
                .last_updated
                .as_deref()
                .or(chat.start_time.as_deref())
                .and_then(Instant::parse_rfc3339),
            has_conversation: chat.has_conversation(),
            title: chat.title(),
        }
    }
}

/// The Gemini CLI caches owned by the catalog's [`Caches`].
#[derive(Default)]
struct GeminiCaches {
    /// Facts of each chat file, by path and version.
    facts: FileCache<Facts>,
    /// The session chats of each `chats` directory, while the directory
    /// is unchanged (no file created, renamed or removed).
    listings: FileCache<ChatListing>,
    /// The project folders of each `tmp` directory, while it is unchanged.
    folders: FileCache<Vec<PathBuf>>,
    /// The session chats of every project folder of each root, as its
    /// last scan found them ([`Freshness::Scanned`]).
    scanned: Mutex<HashMap<PathBuf, Arc<ChatListing>>>,
}

impl Store for Gemini {
    fn name(&self) -> &'static str {
        "gemini"
    }

    fn flag(&self) -> &'static str {
        "gemini"
    }

    fn origin(&self) -> &'static str {
        "Gemini CLI"
    }

    fn root_help(&self) -> &'static str {
        "Gemini CLI directory, the one holding tmp/<project>/chats"
    }

    fn default_roots(&self, env: Env<'_>, home: Option<&Path>) -> Vec<PathBuf> {
        env_or_home(env, home, "GEMINI_CLI_HOME", &[".gemini"], &[".gemini"])
    }

    fn wants(&self, path: &Path) -> bool {
        path.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(is_session_file)
    }

    /// One chat file on its own (the scan of a root groups them instead).
    /// Only a file directly in a `chats` folder is a session: sub-agent
    /// chats sit one level deeper, and `logs/session-*.jsonl` are not chats.
    fn list_file(&self, caches: &Caches, root: &Arc<Path>, path: &Path) -> ScanEvent {
        let in_chats = path
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|name| name == "chats");
        if !in_chats {
            return ScanEvent::Skipped {
                path: path.to_owned(),
                reason: "not a Gemini CLI chat: not directly in a chats folder".into(),
            };
        }
        let projects = Projects::read(caches, root, &mut |_, _| {});
        let folder_path = path.parent().and_then(Path::parent).unwrap_or(root);
        let folder = Folder {
            path: folder_path.to_owned(),
            root: read_project_root(folder_path),
        };
        match head_of(caches, root, path) {
            Ok(head) if head.subagent => ScanEvent::Skipped {
                path: path.to_owned(),
                reason: SUBAGENT.into(),
            },
            Ok(head) => {
                let cwd = projects.root_of(&folder, head.project_hash.as_deref());
                ScanEvent::Record(SessionRecord::new(
                    KIND,
                    root.clone(),
                    path.to_owned(),
                    head.session_id,
                    cwd,
                    head.start_time.unwrap_or_default(),
                ))
            }
            Err(NotListed::Skipped(reason)) => ScanEvent::Skipped {
                path: path.to_owned(),
                reason,
            },
            Err(NotListed::Unreadable(reason)) => ScanEvent::Unreadable {
                path: path.to_owned(),
                reason,
            },
        }
    }

    fn lists_each_file(&self) -> bool {
        false
    }

    /// Every session chat of every project folder, grouped by `sessionId`
    /// so that a session with several files (legacy original, resume stub,
    /// hash-folder copy) is listed once.
    fn scan(&self, caches: &Caches, root: &Arc<Path>, sink: &(dyn Fn(ScanEvent) + Sync)) {
        scan_root(caches, root, sink);
    }

    /// The title is the current chat's, and which chat is current depends
    /// on every file of the session: the title index keeps it while none
    /// of them changed and no file joined or left them.
    fn title_inputs(&self, caches: &Caches, record: &SessionRecord) -> Option<TitleInputs> {
        let mut others = session_candidates(caches, record, Freshness::Scanned);
        others.retain(|path| *path != record.path);
        Some(TitleInputs::Files(others))
    }

    fn read_title(
        &self,
        caches: &Caches,
        record: &SessionRecord,
    ) -> Result<Option<String>, ReadError> {
        let (_, facts) = current(caches, record, Freshness::Scanned)?;
        Ok(facts.title.clone())
    }

    /// The current chat's latest `lastUpdated` (else its `startTime`),
    /// else the file's modification time.
    fn last_activity(&self, caches: &Caches, record: &SessionRecord) -> Option<i64> {
        current(caches, record, Freshness::Scanned)
            .ok()
            .and_then(|(_, facts)| facts.updated)
            .map(Instant::unix_seconds)
            .or_else(|| crate::modified_secs(&record.path))
    }

    fn read_surface(&self, caches: &Caches, record: &SessionRecord) -> Result<Surface, ReadError> {
        let (path, _) = current(caches, record, Freshness::Now)?;
        Ok(read_chat(&path)?.surface())
    }
}

/// Why a sub-agent's chat is not listed.
const SUBAGENT: &str = "Gemini CLI sub-agent chat (part of its parent session)";

/// List the sessions under a Gemini CLI root (`.gemini`).
fn scan_root(caches: &Caches, root: &Arc<Path>, sink: &(dyn Fn(ScanEvent) + Sync)) {
    remember_folders(caches, root);
    caches.get::<TitleIndex>().listing_root(KIND, root);
    let projects = Projects::read(caches, root, &mut |path, reason| {
        sink(ScanEvent::Unreadable { path, reason })
    });
    let mut files: Vec<(usize, PathBuf)> = Vec::new();
    for (index, folder) in projects.folders.iter().enumerate() {
        match chat_files(&folder.path) {
            Ok((sessions, subagents)) => {
                files.extend(sessions.into_iter().map(|p| (index, p)));
                for path in subagents {
                    sink(ScanEvent::Skipped {
                        path,
                        reason: SUBAGENT.into(),
                    });
                }
            }
            Err(e) => sink(ScanEvent::Unreadable {
                path: folder.path.join("chats"),
                reason: e.to_string(),
            }),
        }
    }
    let heads: Vec<Result<Head, NotListed>> = files
        .par_iter()
        .map(|(_, path)| head_of(caches, root, path))
        .collect();
    let mut groups: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut order: Vec<&str> = Vec::new();
    for (i, head) in heads.iter().enumerate() {
        let path = &files[i].1;
        match head {
            Ok(head) if head.subagent => sink(ScanEvent::Skipped {
                path: path.clone(),
                reason: SUBAGENT.into(),
            }),
            Ok(head) => {
                let members = groups.entry(&head.session_id).or_default();
                if members.is_empty() {
                    order.push(&head.session_id);
                }
                members.push(i);
            }
            Err(NotListed::Skipped(reason)) => sink(ScanEvent::Skipped {
                path: path.clone(),
                reason: reason.clone(),
            }),
            Err(NotListed::Unreadable(reason)) => sink(ScanEvent::Unreadable {
                path: path.clone(),
                reason: reason.clone(),
            }),
        }
    }
    let head = |i: usize| heads[i].as_ref().ok().expect("grouped heads parsed");
    order.par_iter().for_each(|&id| {
        let members = &groups[id];
        let listed = listed_file(caches, members, &files, &|i| head(i).modified);
        for &other in members.iter().filter(|&&i| i != listed) {
            sink(ScanEvent::Skipped {
                path: files[other].1.clone(),
                reason: format!(
                    "another file of Gemini CLI session {id} (listed as {})",
                    files[listed].1.display()
                ),
            });
        }
        let created_at = members
            .iter()
            .filter_map(|&i| head(i).start_time.as_deref())
            .min_by_key(|t| Instant::parse_rfc3339(t).map_or((1, None), |at| (0, Some(at))))
            .unwrap_or_default()
            .to_owned();
        let cwd = members.iter().find_map(|&i| {
            let folder = &projects.folders[files[i].0];
            projects.root_of(folder, head(i).project_hash.as_deref())
        });
        sink(ScanEvent::Record(SessionRecord::new(
            KIND,
            root.clone(),
            files[listed].1.clone(),
            id.to_owned(),
            cwd,
            created_at,
        )));
    });
}

/// Which of a session's files is listed: the current chat (see
/// [`current_file`]) when the session has several files, so that listing
/// names the file a preview reads; by modification time when none of them
/// can be read whole any more.
fn listed_file(
    caches: &Caches,
    members: &[usize],
    files: &[(usize, PathBuf)],
    modified: &dyn Fn(usize) -> Option<SystemTime>,
) -> usize {
    if let [only] = members {
        return *only;
    }
    let facts: Vec<(PathBuf, Arc<Facts>)> = members
        .iter()
        .filter_map(|&i| {
            let path = &files[i].1;
            Some((path.clone(), facts_of(caches, path).ok()?))
        })
        .collect();
    if let Some(path) = current_file(&facts) {
        if let Some(&i) = members.iter().find(|&&i| files[i].1 == *path) {
            return i;
        }
    }
    *members
        .iter()
        .max_by_key(|&&i| (modified(i), files[i].1.clone()))
        .expect("a group has a member")
}

/// The facts of one chat file, from the cache while the file is unchanged.
fn facts_of(caches: &Caches, path: &Path) -> Result<Arc<Facts>, ReadError> {
    let caches = caches.get::<GeminiCaches>();
    caches
        .facts
        .get(path, 0, || read_chat(path).map(|chat| Facts::of(&chat)))
}

/// How current the list of a session's files must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Freshness {
    /// As the last scan of the root found the folders: listing reads every
    /// session's title right after scanning, and one look at the folders
    /// then serves them all (looking again per session stat-ed every
    /// folder once per session: 500,000 `stat` calls for 10,000 chats).
    Scanned,
    /// As the folders are now: what a preview reads is the chat Gemini CLI
    /// would resume now, even in a picker that listed long ago.
    Now,
}

/// The chat files of a listed session that may hold it: its own file and
/// the session chats of every project folder named with its id fragment
/// (`-<id8>.json` or `-<id8>.jsonl`), folders in path order.
fn session_candidates(
    caches: &Caches,
    record: &SessionRecord,
    freshness: Freshness,
) -> Vec<PathBuf> {
    let fragment = file_id(&record.id);
    let gemini = caches.get::<GeminiCaches>();
    let mut paths = vec![record.path.clone()];
    let scanned = match freshness {
        Freshness::Scanned => lock(&gemini.scanned).get(&*record.root).cloned(),
        Freshness::Now => None,
    };
    if let Some(scanned) = scanned {
        let others = scanned.named_with(&fragment);
        paths.extend(others.filter(|p| **p != record.path).cloned());
        return paths;
    }
    let tmp = record.root.join("tmp");
    let folders = gemini
        .folders
        .get(&tmp, 0, || project_folders(&tmp))
        .unwrap_or_default();
    for folder in folders.iter() {
        let chats = folder.join("chats");
        if let Ok(listing) = gemini.listings.get(&chats, 0, || read_listing(folder)) {
            let others = listing.named_with(&fragment);
            paths.extend(others.filter(|p| **p != record.path).cloned());
        }
    }
    paths
}

/// The session chats of the project folder `folder`.
fn read_listing(folder: &Path) -> Result<ChatListing, ReadError> {
    chat_files(folder)
        .map(|(sessions, _)| ChatListing::of(sessions))
        .map_err(|e| ReadError::io(&folder.join("chats"), &e))
}

/// Look at every project folder of `root` once, for the title reads that
/// follow a scan ([`Freshness::Scanned`]).
fn remember_folders(caches: &Caches, root: &Path) {
    let folders = project_folders(&root.join("tmp")).unwrap_or_default();
    let sessions = folders
        .iter()
        .filter_map(|folder| chat_files(folder).ok())
        .flat_map(|(sessions, _)| sessions)
        .collect();
    let listing = Arc::new(ChatListing::of(sessions));
    lock(&caches.get::<GeminiCaches>().scanned).insert(root.to_owned(), listing);
}

/// The folders directly under `tmp`, in path order.
fn project_folders(tmp: &Path) -> Result<Vec<PathBuf>, ReadError> {
    let mut folders: Vec<PathBuf> = std::fs::read_dir(tmp)
        .map_err(|e| ReadError::io(tmp, &e))?
        .flatten()
        .map(|entry| entry.path())
        .collect();
    folders.sort();
    Ok(folders)
}

/// Session chats (of one `chats` folder, or of every folder of a root in
/// folder order), looked up by id fragment: a
/// listed session finds its other files without comparing its fragment
/// with every file name of the store (that comparison, once per session,
/// made listing quadratic in the number of chats).
#[derive(Debug, Default)]
struct ChatListing {
    /// The chats, in folder then path order.
    sessions: Vec<PathBuf>,
    /// Every fragment a chat's name ends with (`-<fragment>.json` or
    /// `-<fragment>.jsonl`, the fragment at most [`FRAGMENT_CHARS`]
    /// characters) to the positions of those chats in `sessions`.
    by_fragment: HashMap<String, Vec<usize>>,
}

/// The longest id fragment a chat's file name holds ([`file_id`]).
const FRAGMENT_CHARS: usize = 8;

impl ChatListing {
    fn of(sessions: Vec<PathBuf>) -> ChatListing {
        let mut by_fragment: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, path) in sessions.iter().enumerate() {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default();
            for stem in [".json", ".jsonl"]
                .iter()
                .filter_map(|ext| name.strip_suffix(ext))
            {
                // Each suffix of the stem right after a `-`, up to the
                // longest fragment: exactly the fragments `f` for which
                // the name ends with `-f` and the extension.
                let mut starts: Vec<usize> = stem.char_indices().map(|(at, _)| at).collect();
                starts.reverse();
                for &at in starts.iter().take(FRAGMENT_CHARS) {
                    if at > 0 && stem.as_bytes()[at - 1] == b'-' {
                        let members = by_fragment.entry(stem[at..].to_owned()).or_default();
                        if members.last() != Some(&i) {
                            members.push(i);
                        }
                    }
                }
            }
        }
        ChatListing {
            sessions,
            by_fragment,
        }
    }

    /// The chats whose names end with `-<fragment>.json` or
    /// `-<fragment>.jsonl`, in the listing's order.
    fn named_with<'a>(&'a self, fragment: &str) -> impl Iterator<Item = &'a PathBuf> {
        self.by_fragment
            .get(fragment)
            .into_iter()
            .flatten()
            .map(|&i| &self.sessions[i])
    }
}

/// Every file of a listed session with its facts ([`session_candidates`]
/// holding its id). A sibling that vanished meanwhile (Gemini CLI deletes
/// expired chats at every start) is passed over; the session is unreadable
/// only when none of its files can be read.
fn session_files(
    caches: &Caches,
    record: &SessionRecord,
    freshness: Freshness,
) -> Result<Vec<(PathBuf, Arc<Facts>)>, ReadError> {
    let paths = session_candidates(caches, record, freshness);
    let mut found = Vec::new();
    let mut failure = None;
    for path in paths {
        match facts_of(caches, &path) {
            Ok(facts) if facts.session_id.as_deref() == Some(&record.id) && !facts.subagent => {
                found.push((path, facts));
            }
            Ok(_) => {}
            Err(e) if path == record.path => failure = Some(e),
            Err(_) => {}
        }
    }
    match failure {
        Some(e) if found.is_empty() => Err(e),
        _ if found.is_empty() => Err(ReadError {
            path: record.path.clone(),
            line: None,
            message: format!("no Gemini CLI chat of session {} remains", record.id),
        }),
        _ => Ok(found),
    }
}

/// Read and replay one chat file.
fn read_chat(path: &Path) -> Result<Chat, ReadError> {
    let bytes = std::fs::read(path).map_err(|e| ReadError::io(path, &e))?;
    if is_legacy(path) {
        parse_legacy(&bytes).map_err(|message| ReadError {
            path: path.to_owned(),
            line: None,
            message,
        })
    } else {
        Ok(parse_jsonl(&bytes))
    }
}

/// The file Gemini CLI would resume among a session's files: of those with
/// conversation (any, when none has), the latest `lastUpdated`; ties go to
/// a `.jsonl` (a resumed legacy chat's continuation), then to a slug
/// folder's copy over an old hash folder's, then to path order.
pub fn current_file(files: &[(PathBuf, Arc<Facts>)]) -> Option<&PathBuf> {
    let any_conversation = files.iter().any(|(_, f)| f.has_conversation);
    files
        .iter()
        .filter(|(_, f)| !any_conversation || f.has_conversation)
        .max_by_key(|(path, facts)| {
            (
                facts.updated,
                !is_legacy(path),
                !in_hash_folder(path),
                path.clone(),
            )
        })
        .map(|(path, _)| path)
}

/// The session's current file and its facts.
fn current(
    caches: &Caches,
    record: &SessionRecord,
    freshness: Freshness,
) -> Result<(PathBuf, Arc<Facts>), ReadError> {
    let files = session_files(caches, record, freshness)?;
    let path = current_file(&files).expect("session_files returns at least one file");
    let facts = files
        .iter()
        .find(|(p, _)| p == path)
        .map(|(_, f)| Arc::clone(f))
        .expect("the current file is one of the files");
    Ok((path.clone(), facts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::foreign::testing::texts;
    use proptest::prelude::*;

    proptest! {
        /// Looking a fragment up finds exactly the chats whose names end
        /// with `-<fragment>.json` or `-<fragment>.jsonl`, in order.
        #[test]
        fn fragment_lookup_is_the_suffix_rule(
            // A small alphabet, so that names ending in the fragment are
            // common; `é` in an id becomes `_` in its fragment.
            stems in proptest::collection::vec("session-[ab_é-]{0,10}", 0..12),
            exts in proptest::collection::vec(prop_oneof![Just(".json"), Just(".jsonl"), Just(".json.jsonl"), Just(".txt")], 12),
            session_id in "[ab_é-]{1,10}",
        ) {
            let sessions: Vec<PathBuf> = stems
                .iter()
                .zip(&exts)
                .map(|(stem, ext)| PathBuf::from(format!("/g/tmp/p/chats/{stem}{ext}")))
                .collect();
            let fragment = file_id(&session_id);
            let suffixes = [format!("-{fragment}.json"), format!("-{fragment}.jsonl")];
            let expected: Vec<&PathBuf> = sessions
                .iter()
                .filter(|p| {
                    let name = p.file_name().unwrap().to_string_lossy();
                    suffixes.iter().any(|s| name.ends_with(s.as_str()))
                })
                .collect();
            let listing = ChatListing::of(sessions.clone());
            let found: Vec<&PathBuf> = listing.named_with(&fragment).collect();
            prop_assert_eq!(found, expected);
        }
    }

    /// A `.jsonl` chat from JSON values, one per line.
    fn jsonl(lines: &[Value]) -> Vec<u8> {
        let mut out = Vec::new();
        for line in lines {
            out.extend_from_slice(line.to_string().as_bytes());
            out.push(b'\n');
        }
        out
    }

    fn meta(start: &str) -> Value {
        serde_json::json!({"sessionId": "s-1", "projectHash": "ab", "startTime": start,
            "lastUpdated": start, "kind": "main"})
    }

    fn user(id: &str, text: &str) -> Value {
        serde_json::json!({"id": id, "timestamp": "2026-01-01T00:00:01Z", "type": "user",
            "content": [{"text": text}]})
    }

    fn reply(id: &str, text: &str) -> Value {
        serde_json::json!({"id": id, "timestamp": "2026-01-01T00:00:02Z", "type": "gemini",
            "content": text, "thoughts": [], "model": "gemini-3.8-flash"})
    }

    fn context() -> Value {
        user(
            "ctx",
            "<session_context>\nThis is the Gemini CLI.\n</session_context>",
        )
    }

    /// What a message object is, parsed as a chat line is.
    fn turn_of(value: &Value) -> Turn {
        let text = value.to_string();
        turn(&Record::parse(text.as_bytes()).unwrap())
    }

    fn said(chat: &Chat) -> Vec<(u64, &'static str, String)> {
        texts(&chat.surface())
    }

    #[test]
    fn a_message_written_again_keeps_its_place_and_takes_the_new_content() {
        let mut with_tools = reply("g1", "");
        with_tools["toolCalls"] = serde_json::json!([{"id": "t1", "name": "read_file",
            "args": {}, "result": [{"functionResponse": {"id": "t1", "name": "read_file",
            "response": {"output": "TOOL OUTPUT"}}}], "status": "success"}]);
        let tool_result = serde_json::json!({"id": "u2", "type": "user", "content": [
            {"functionResponse": {"id": "t1", "name": "read_file", "response": {"output": "TOOL OUTPUT"}}}]});
        let chat = parse_jsonl(&jsonl(&[
            meta("2026-01-01T00:00:00Z"),
            serde_json::json!({"$set": {"messages": [context()]}}),
            user("u1", "read it"),
            reply("g1", ""),
            with_tools,
            tool_result,
            reply("g2", "done"),
            reply("g1", "now with text"),
        ]));
        assert_eq!(
            said(&chat),
            [
                (3, "user", "read it".into()),
                (8, "assistant", "now with text".into()),
                (6, "tool", String::new()),
                (7, "assistant", "done".into()),
            ]
        );
        assert_eq!(chat.captured_through_seq, 8);
        assert_eq!(chat.title().as_deref(), Some("read it"));
    }

    #[test]
    fn a_bare_slash_command_titles_only_when_no_prompt_follows() {
        // `/init` is recorded as its expansion, with the command as
        // displayContent (Gemini CLI 0.61).
        let mut init = user(
            "u1",
            "You are an AI agent that brings the power of Gemini directly into the terminal. Your task is to analyze the current directory and generate a comprehensive GEMINI.md file",
        );
        init["displayContent"] = serde_json::json!([{"text": "/init"}]);
        let chat = |rest: &[Value]| {
            let mut lines = vec![
                meta("2026-01-01T00:00:00Z"),
                serde_json::json!({"$set": {"messages": [context()]}}),
                init.clone(),
                reply("g1", "Wrote GEMINI.md."),
            ];
            lines.extend_from_slice(rest);
            parse_jsonl(&jsonl(&lines))
        };
        let followed = chat(&[user("u2", "now add a testing section"), reply("g2", "done")]);
        assert_eq!(
            followed.title().as_deref(),
            Some("now add a testing section")
        );
        // It stays on the surface as what was typed.
        assert_eq!(said(&followed)[0], (3, "user", "/init".into()));
        assert_eq!(chat(&[]).title().as_deref(), Some("/init"));
        // A command with arguments is the person's request, and the title.
        let mut review = user("u1", "Review the payments module carefully.");
        review["displayContent"] = serde_json::json!([{"text": "/review payments"}]);
        let with_args = parse_jsonl(&jsonl(&[
            meta("2026-01-01T00:00:00Z"),
            review,
            user("u2", "and the cart"),
        ]));
        assert_eq!(with_args.title().as_deref(), Some("/review payments"));
    }

    #[test]
    fn set_messages_replaces_the_list_and_rewind_drops_a_suffix() {
        let chat = parse_jsonl(&jsonl(&[
            meta("2026-01-01T00:00:00Z"),
            user("u1", "old"),
            serde_json::json!({"$set": {"messages": [user("u2", "first"), reply("g2", "a")]}}),
            user("u3", "rewound"),
            reply("g3", "rewound reply"),
            serde_json::json!({"$rewindTo": "u3"}),
            user("u4", "second"),
        ]));
        assert_eq!(
            said(&chat),
            [
                (3, "user", "first".into()),
                (3, "assistant", "a".into()),
                (7, "user", "second".into()),
            ]
        );
        let cleared = parse_jsonl(&jsonl(&[
            meta("2026-01-01T00:00:00Z"),
            user("u1", "gone"),
            serde_json::json!({"$rewindTo": "unknown"}),
            user("u2", "kept"),
        ]));
        assert_eq!(said(&cleared), [(4, "user", "kept".into())]);
    }

    #[test]
    fn metadata_keeps_the_first_start_and_the_latest_summary_and_update() {
        let chat = parse_jsonl(&jsonl(&[
            meta("2026-01-01T00:00:00Z"),
            user("u1", "hello\nsecond line"),
            serde_json::json!({"$set": {"lastUpdated": "2026-01-01T00:00:05Z"}}),
            meta("2026-01-01T00:00:40Z"),
            serde_json::json!({"$set": {"summary": "First summary"}}),
            serde_json::json!({"$set": {"summary": "Latest summary", "memoryScratchpad": {}}}),
        ]));
        assert_eq!(chat.session_id.as_deref(), Some("s-1"));
        assert_eq!(chat.start_time.as_deref(), Some("2026-01-01T00:00:00Z"));
        assert_eq!(chat.last_updated.as_deref(), Some("2026-01-01T00:00:40Z"));
        assert_eq!(chat.title().as_deref(), Some("Latest summary"));
        let untitled = Chat {
            summary: Some("  ".into()),
            ..chat.clone()
        };
        assert_eq!(untitled.title().as_deref(), Some("hello"));
    }

    #[test]
    fn a_torn_last_line_is_ignored_and_a_bad_line_passed_over() {
        let mut bytes = jsonl(&[meta("2026-01-01T00:00:00Z"), user("u1", "one")]);
        bytes.extend_from_slice(b"not json\n\n");
        bytes.extend_from_slice(&jsonl(&[reply("g1", "two")]));
        bytes.extend_from_slice(br#"{"id":"u2","type":"user","content":"TORN"#);
        let chat = parse_jsonl(&bytes);
        assert_eq!(
            said(&chat),
            [(2, "user", "one".into()), (5, "assistant", "two".into())]
        );
        assert_eq!(chat.captured_through_seq, 5);
    }

    #[test]
    fn only_typed_prompts_are_direct_user_messages() {
        let turn_of = |value: Value| turn_of(&value);
        let prompt = |t: &str| Turn::Prompt(t.into());
        assert_eq!(turn_of(context()), Turn::Hidden);
        assert_eq!(
            turn_of(user("h", "<hook_context>x</hook_context>")),
            Turn::Hidden
        );
        assert_eq!(turn_of(user("c", "Please continue.")), Turn::Hidden);
        assert_eq!(turn_of(user("c", "System: Please continue.")), Turn::Hidden);
        let mut continued = user("c", "Please continue.");
        continued["displayContent"] = serde_json::json!([{"text": "the first prompt"}]);
        assert_eq!(turn_of(continued), Turn::Hidden);
        let mut command = user("s", "Please greet Carol warmly.");
        command["displayContent"] = serde_json::json!([{"text": "/greet Carol"}]);
        assert_eq!(turn_of(command), prompt("/greet Carol"));
        let expanded = serde_json::json!({"id": "f", "type": "user", "content": [
            {"text": "look at @a.txt"}, {"text": "\n--- Content from referenced files ---"},
            {"text": "FILE BODY"}, {"text": "\n--- End of content ---"}]});
        assert_eq!(turn_of(expanded), prompt("look at @a.txt"));
        let parts = serde_json::json!({"id": "p", "type": "user",
            "content": ["plain ", {"text": "parts"}, {"inlineData": {}}]});
        assert_eq!(turn_of(parts), prompt("plain parts"));
        let tool = serde_json::json!({"id": "t", "type": "user",
            "content": [{"functionResponse": {"name": "x", "response": {}}}]});
        assert_eq!(turn_of(tool), Turn::ToolResult);
        let legacy = serde_json::json!({"id": "l", "type": "user", "content": "legacy string"});
        assert_eq!(turn_of(legacy), prompt("legacy string"));
        for kind in ["info", "error", "warning"] {
            let note = serde_json::json!({"id": "i", "type": kind, "content": "NOTE"});
            assert_eq!(turn_of(note), Turn::Hidden);
        }
        assert_eq!(turn_of(user("e", "  \n")), Turn::Hidden);
    }

    #[test]
    fn replies_keep_text_without_thoughts_or_tool_calls() {
        let value = serde_json::json!({"id": "g", "type": "gemini",
            "content": [{"text": "THOUGHT", "thought": true}, {"text": "answer"},
                        {"functionCall": {"name": "x", "args": {}}}],
            "thoughts": [{"subject": "S", "description": "THOUGHT"}]});
        assert_eq!(turn_of(&value), Turn::Reply("answer".into()));
        let chat = parse_jsonl(&jsonl(&[meta("2026-01-01T00:00:00Z"), reply("g", "")]));
        assert!(chat.surface().events.is_empty());
        assert!(chat.has_conversation());
    }

    #[test]
    fn legacy_chats_are_one_object() {
        let bytes = serde_json::json!({"sessionId": "s-2", "projectHash": "ab",
            "startTime": "2025-01-01T00:00:00Z", "lastUpdated": "2025-01-01T00:01:00Z",
            "summary": "Legacy summary",
            "messages": [
                {"id": "m1", "type": "user", "content": "question"},
                {"type": "gemini", "content": "answer without id"},
                {"id": "m3", "type": "info", "content": "INFO"}]})
        .to_string();
        let chat = parse_legacy(bytes.as_bytes()).unwrap();
        assert_eq!(
            said(&chat),
            [
                (1, "user", "question".into()),
                (2, "assistant", "answer without id".into())
            ]
        );
        assert_eq!(chat.captured_through_seq, 3);
        assert_eq!(chat.title().as_deref(), Some("Legacy summary"));
        assert!(parse_legacy(b"{\"sessionId\": \"s\", \"messages\": [").is_err());
        assert!(parse_legacy(b"{\"messages\": []}").is_err());
        assert!(parse_legacy(b"[]").is_err());
    }

    #[test]
    fn the_current_file_is_the_latest_updated_with_conversation() {
        let facts = |updated: &str, has_conversation: bool| {
            Arc::new(Facts {
                session_id: Some("s".into()),
                subagent: false,
                updated: Instant::parse_rfc3339(updated),
                has_conversation,
                title: None,
            })
        };
        let pick = |files: Vec<(&str, Arc<Facts>)>| {
            let files: Vec<_> = files
                .into_iter()
                .map(|(p, f)| (PathBuf::from(p), f))
                .collect();
            current_file(&files).map(|p| p.to_string_lossy().into_owned())
        };
        // A stub started after the resumed file's last write still loses.
        assert_eq!(
            pick(vec![
                (
                    "/t/s/chats/session-a-x.jsonl",
                    facts("2026-01-01T10:00:00Z", true)
                ),
                (
                    "/t/s/chats/session-b-x.jsonl",
                    facts("2026-01-01T11:00:00Z", false)
                ),
            ])
            .as_deref(),
            Some("/t/s/chats/session-a-x.jsonl")
        );
        // A legacy chat and its continuation: the continuation.
        assert_eq!(
            pick(vec![
                (
                    "/t/s/chats/session-a-x.json",
                    facts("2026-01-01T10:00:00Z", true)
                ),
                (
                    "/t/s/chats/session-a-x.jsonl",
                    facts("2026-01-01T10:00:00Z", true)
                ),
            ])
            .as_deref(),
            Some("/t/s/chats/session-a-x.jsonl")
        );
        // Identical copies: the slug folder's.
        let hash = format!("/t/{}/chats/session-a-x.json", "a".repeat(64));
        assert_eq!(
            pick(vec![
                (
                    "/t/0slug/chats/session-a-x.json",
                    facts("2026-01-01T10:00:00Z", true)
                ),
                (&hash, facts("2026-01-01T10:00:00Z", true)),
            ])
            .as_deref(),
            Some("/t/0slug/chats/session-a-x.json")
        );
        // Only stubs: still a file.
        assert!(pick(vec![("/t/s/chats/x.jsonl", facts("2026", false))]).is_some());
        assert!(pick(Vec::new()).is_none());
    }

    #[test]
    fn facts_keep_what_choosing_and_titling_need() {
        let chat = parse_jsonl(&jsonl(&[
            meta("2026-01-01T00:00:00Z"),
            serde_json::json!({"$set": {"messages": [context()]}}),
        ]));
        let stub = Facts::of(&chat);
        assert_eq!(stub.session_id.as_deref(), Some("s-1"));
        assert!(!stub.has_conversation && !stub.subagent);
        assert_eq!(stub.updated, Instant::parse_rfc3339("2026-01-01T00:00:00Z"));
        let mut sub = meta("2026-01-01T00:00:00Z");
        sub["kind"] = "subagent".into();
        let chat = parse_jsonl(&jsonl(&[sub, user("u", "task")]));
        let facts = Facts::of(&chat);
        assert!(facts.subagent && facts.has_conversation);
        assert_eq!(facts.title.as_deref(), Some("task"));
    }

    #[test]
    fn one_file_listed_alone_has_its_project_root() {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/gemini");
        let root: Arc<Path> = Arc::from(fixture.as_path());
        let caches = Caches::default();
        let chat = fixture.join("tmp/shop/chats/session-2026-01-11T10-00-c0ffee02.jsonl");
        assert!(Gemini.wants(&chat));
        let ScanEvent::Record(record) = Gemini.list_file(&caches, &root, &chat) else {
            panic!("not listed");
        };
        assert_eq!(record.id, "c0ffee02-2222-4222-8222-000000000002");
        assert_eq!(record.cwd.as_deref(), Some("/home/dev/shop"));
        assert_eq!(record.created_at, "2026-01-11T10:00:00.000Z");
        assert_eq!(record.kind, KIND);
        let hashed = fixture.join(concat!(
            "tmp/cc2b75052e4faa5654d762961bf89567edf5657f98c533e6fb34528f450b2602",
            "/chats/session-2025-10-05T12-00-c0ffee06.json"
        ));
        let ScanEvent::Record(record) = Gemini.list_file(&caches, &root, &hashed) else {
            panic!("not listed");
        };
        assert_eq!(record.cwd.as_deref(), Some("/home/dev/api"));
        let sub = fixture.join(
            "tmp/shop/chats/c0ffee01-1111-4111-8111-000000000001/c0ffee08-8888-4888-8888-000000000008.jsonl",
        );
        assert!(!Gemini.wants(&sub));
        assert!(matches!(
            Gemini.list_file(&caches, &root, &sub),
            ScanEvent::Skipped { .. }
        ));
        let log = fixture.join("tmp/shop/logs/session-c0ffee01-1111-4111-8111-000000000001.jsonl");
        assert!(matches!(
            Gemini.list_file(&caches, &root, &log),
            ScanEvent::Skipped { .. }
        ));
    }

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
