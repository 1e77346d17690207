//! Antigravity CLI conversations (`agy`, Google's successor to Gemini CLI
//! for personal accounts), mapped onto the session model.
//!
//! Antigravity CLI is closed source and does not install here, so nothing
//! below was observed by running it. It follows what public readers of its
//! files found on agy 1.0.x–1.3 (June–September 2026), cross-checked
//! between them: agentgrep's backend page (agentgrep.org, "observed agy
//! v1.0.10"); jolliai/jolliai `cli/src/testUtils/antigravityFixture.ts`
//! (a transcript captured verbatim from a live conversation) and its
//! design note `docs/superpowers/specs/2026-07-19-antigravity-support-design.md`;
//! jhlee0409/claude-code-history-viewer `providers/antigravity_cli.rs`;
//! orca's Antigravity adapter (stablyai/orca#8971, on a real 1.1.2
//! conversation); the agentsight and memex pull requests that read it
//! (eunomia-bpf/agentsight#153, nicosuave/memex#191); and a web viewer's
//! reader of `brain/`, `annotations/` and `cache/` that handles agy 1.3's
//! tool calls. Where they disagree or are silent, the choice made is said.
//!
//! # Layout
//!
//! The root is `~/.gemini/antigravity-cli`. agentgrep observed no
//! environment variable that moves it; one viewer reads an
//! `ANTIGRAVITY_CLI_HOME` of its own, which nothing shows the agent
//! honours, so none is read (name another root with `--antigravity DIR`). One conversation is one folder
//! `brain/<conversation id>/`; its transcript is
//! `.system_generated/logs/transcript_full.jsonl` (every step) beside
//! `transcript.jsonl` (the same steps, cut where the agent truncated its
//! context). The full one is read; the cut one only when it is alone, and
//! is otherwise a routine skip ([`TRUNCATED_COPY`]). The session id is the
//! folder's name, which `agy --conversation <id>` resumes. A resumed
//! conversation appends to the same transcript. The other files are not
//! read: `conversations/<id>.db` (SQLite whose steps are protobuf blobs
//! without a published schema, partly encrypted on some machines: the
//! transcript holds the same steps as text), `implicit/*.pb`,
//! `conversation_summaries.db`, the plan Markdown in `brain/<id>/`.
//!
//! # Record
//!
//! One JSON object per line, a step of the conversation:
//! `{step_index, source, type, status, created_at, content?, thinking?,
//! tool_calls?}`. `source` is `USER_EXPLICIT`, `MODEL` or `SYSTEM`;
//! `type` names the step (`USER_INPUT`, `PLANNER_RESPONSE`,
//! `CONVERSATION_HISTORY`, `CHECKPOINT`, `SYSTEM_MESSAGE`, `RUN_COMMAND`,
//! `GENERIC`, `VIEW_FILE`, `SEARCH_WEB`, `ERROR_MESSAGE`, …); `created_at`
//! is RFC 3339 UTC; `tool_calls` is `[{name, args}]`.
//!
//! # What the person typed
//!
//! A `USER_INPUT` step (source `USER_EXPLICIT`, or none) carries the
//! prompt as the model saw it: `<USER_REQUEST>` around what was typed,
//! then blocks the agent adds (`<ADDITIONAL_METADATA>` with the local time,
//! `<USER_SETTINGS_CHANGE>` after a model switch). Only the text inside
//! `<USER_REQUEST>` is the person's; without that wrapper, the blocks the
//! text opens or ends with are taken off ([`typed_inside`]).
//! `SYSTEM_MESSAGE` steps ("not actually sent by the user": background
//! task wake-ups), `CONVERSATION_HISTORY` and `CHECKPOINT` are the agent's.
//!
//! Assistant messages are `PLANNER_RESPONSE` steps' `content`, never their
//! `thinking` or `tool_calls`; the steps a tool call produces (command
//! output, file views, searches) are not conversation. A `CHECKPOINT`
//! (`{{ CHECKPOINT n }}` "the earlier parts of this conversation have been
//! truncated") marks where the agent cut its own context: the full
//! transcript keeps every step, so it shadows nothing here.
//!
//! # Sub-agents
//!
//! A sub-agent (`invoke_subagent`) is a conversation of its own folder; it
//! reports to its parent with a `send_message` tool call whose
//! `args.Recipient` is the parent's id. A transcript with such a call and
//! no prompt the person typed is a sub-agent's, part of its parent: a
//! routine skip ([`SUBAGENT`]). (A parent always holds typed prompts, so
//! one that messages its children is still listed.)
//!
//! # Title, working directory, times
//!
//! The title is the one the agent gave the conversation in
//! `annotations/<id>.pbtxt` (a text protobuf `title: "…"`), else the first
//! typed prompt (first line, ≤ 80 characters). `cache/last_conversations.json`
//! holds no titles, whatever its name suggests: it maps each working
//! directory to the last conversation started there. The working directory
//! is the `workspace` of the first `history.jsonl` line (the prompt
//! history: `{display, timestamp, workspace, type?, conversationId?}`)
//! naming the conversation, else the directory `last_conversations.json`
//! maps to it, else unknown (never guessed from tool arguments). The
//! creation time is the first step's `created_at`; last activity the last
//! step's, else the file's modification time. The title index keeps a
//! title while the transcript and its annotation are unchanged; listings
//! are kept while the transcript is (`history.jsonl` gains its line when
//! the prompt is sent, before the transcript stops growing).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::caches::Caches;
use crate::error::ReadError;
use crate::index::stamp::TitleInputs;
use crate::kinds::foreign::{
    fold_said_lines, last_line_where, read_lines, read_said_lines, title_from_text, typed_inside,
    FileCache, LineSays, Visit,
};
use crate::model::{SessionRecord, StoreKind, Surface, SurfaceSink};
use crate::store::ScanEvent;
use crate::store::{Env, Store};
use session_ref_core::time::{format_rfc3339_utc, Instant};
use session_ref_jsonl::loose::{from_line, is_str, raw_elements, string, RawText};

#[cfg(test)]
mod tests;

/// The Antigravity CLI store.
pub struct Antigravity;

/// The Antigravity CLI store's kind.
pub const KIND: StoreKind = StoreKind::new(&Antigravity);

/// Skip reason of a `transcript.jsonl` beside its `transcript_full.jsonl`.
pub const TRUNCATED_COPY: &str =
    "Antigravity CLI truncated transcript (its transcript_full.jsonl is listed)";

/// Skip reason of a sub-agent's conversation.
pub const SUBAGENT: &str = "Antigravity CLI sub-agent conversation";

/// The full transcript's file name.
const FULL: &str = "transcript_full.jsonl";
/// The truncated transcript's file name.
const CUT: &str = "transcript.jsonl";

/// The fields of a step the mapping uses, as raw JSON text.
#[derive(Debug, Default, serde::Deserialize)]
struct Step<'a> {
    #[serde(borrow)]
    source: Option<RawText<'a>>,
    #[serde(rename = "type", borrow)]
    kind: Option<RawText<'a>>,
    #[serde(borrow)]
    created_at: Option<RawText<'a>>,
    #[serde(borrow)]
    content: Option<RawText<'a>>,
    #[serde(borrow)]
    tool_calls: Option<RawText<'a>>,
}

impl<'a> Step<'a> {
    /// A line as a step; `None` when it is not a JSON object.
    fn parse(bytes: &'a [u8]) -> Option<Step<'a>> {
        from_line(bytes).ok()
    }

    /// A step holding a prompt the person sent (see the module docs).
    fn is_input(&self) -> bool {
        is_str(self.kind, "USER_INPUT")
            && self
                .source
                .is_none_or(|s| string(Some(s)).is_some_and(|s| s.starts_with("USER")))
    }

    /// What the person typed in an input step.
    fn typed(&self) -> Option<String> {
        if !self.is_input() {
            return None;
        }
        typed_inside(&string(self.content)?, "USER_REQUEST")
    }

    /// Whether the step reports to a parent conversation (`send_message`
    /// to a conversation id).
    fn messages_a_conversation(&self) -> bool {
        #[derive(serde::Deserialize)]
        struct Call<'a> {
            #[serde(borrow)]
            name: Option<RawText<'a>>,
            #[serde(borrow)]
            args: Option<RawText<'a>>,
        }
        #[derive(serde::Deserialize)]
        struct Args {
            #[serde(rename = "Recipient")]
            recipient: Option<serde_json::Value>,
        }
        raw_elements(self.tool_calls).into_iter().any(|raw| {
            let Ok(call) = serde_json::from_str::<Call>(raw.0) else {
                return false;
            };
            is_str(call.name, "send_message")
                && call
                    .args
                    .and_then(|a| serde_json::from_str::<Args>(a.0).ok())
                    .and_then(|a| a.recipient)
                    .is_some_and(|r| r.as_str().is_some_and(is_uuid))
        })
    }
}

/// Whether `text` is shaped like a conversation id (a UUID).
fn is_uuid(text: &str) -> bool {
    text.len() == 36
        && text.bytes().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

/// What one step says to the surface.
fn says(bytes: &[u8]) -> Option<LineSays> {
    let step = Step::parse(bytes)?;
    Some(if let Some(typed) = step.typed() {
        LineSays::User(vec![typed])
    } else if is_str(step.kind, "PLANNER_RESPONSE") {
        match string(step.content).filter(|t| !t.trim().is_empty()) {
            Some(text) => LineSays::Assistant {
                key: None,
                texts: vec![text],
            },
            None => LineSays::Nothing,
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
    fold_said_lines(&record.path, says, sink)
}

/// The folded surface of an Antigravity CLI conversation.
pub fn read_surface(record: &SessionRecord) -> Result<Surface, ReadError> {
    read_said_lines(&record.path, says)
}

/// Where a transcript sits: the store's home (the folder holding `brain/`)
/// and the conversation id, when `path` is
/// `<home>/brain/<id>/.system_generated/logs/transcript[_full].jsonl`.
fn layout(path: &Path) -> Option<(&Path, String)> {
    let name = path.file_name()?;
    if name != FULL && name != CUT {
        return None;
    }
    let logs = path
        .parent()
        .filter(|p| p.file_name().is_some_and(|n| n == "logs"))?;
    let generated = logs
        .parent()
        .filter(|p| p.file_name().is_some_and(|n| n == ".system_generated"))?;
    let folder = generated.parent()?;
    let id = folder.file_name()?.to_str()?.to_owned();
    let brain = folder
        .parent()
        .filter(|p| p.file_name().is_some_and(|n| n == "brain"))?;
    Some((brain.parent()?, id))
}

/// Why a file below a root is not a conversation's transcript, if it is not.
fn not_a_transcript(path: &Path) -> Option<&'static str> {
    if layout(path).is_none() {
        return Some("not an Antigravity CLI transcript (brain/<id>/.system_generated/logs/)");
    }
    if path.file_name().is_some_and(|n| n == CUT) && path.with_file_name(FULL).is_file() {
        return Some(TRUNCATED_COPY);
    }
    None
}

/// What the store's home says of each conversation: where it ran, and when
/// its first prompt was sent (Unix milliseconds), by id.
type Workspaces = HashMap<String, (Option<String>, Option<i64>)>;

/// What listing and titling remember between calls, owned by the catalog's
/// [`Caches`].
#[derive(Default)]
struct AntigravityCaches {
    /// `history.jsonl`, by conversation id.
    history: FileCache<Workspaces>,
    /// `cache/last_conversations.json`, inverted: the directory of each id.
    last: FileCache<HashMap<String, String>>,
    /// Titles, by transcript.
    titles: FileCache<Option<String>>,
}

/// A workspace as the agent records it: a path, or a `file://` URI of one.
fn workspace_dir(text: &str) -> Option<String> {
    let dir = text.strip_prefix("file://").unwrap_or(text).trim();
    (!dir.is_empty()).then(|| dir.to_owned())
}

/// The prompt history's first workspace and time of each conversation.
fn read_history(path: &Path) -> Result<Workspaces, ReadError> {
    #[derive(serde::Deserialize)]
    struct Entry {
        #[serde(rename = "conversationId")]
        conversation: Option<String>,
        workspace: Option<String>,
        timestamp: Option<serde_json::Value>,
    }
    let mut found = Workspaces::new();
    read_lines(path, false, |_, bytes| {
        let Ok(entry) = from_line::<Entry>(bytes) else {
            return Visit::BAD;
        };
        if let Some(id) = entry.conversation {
            found.entry(id).or_insert_with(|| {
                (
                    entry.workspace.as_deref().and_then(workspace_dir),
                    entry.timestamp.and_then(|t| t.as_i64()),
                )
            });
        }
        Visit::NEXT
    })?;
    Ok(found)
}

/// `cache/last_conversations.json` (`{"<directory>": "<id>"}`), inverted.
fn read_last_conversations(path: &Path) -> Result<HashMap<String, String>, ReadError> {
    let bytes = std::fs::read(path).map_err(|e| ReadError::io(path, &e))?;
    let map: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(&bytes).unwrap_or_default();
    let mut by_id = HashMap::new();
    for (dir, id) in map {
        if let (Some(id), Some(dir)) = (id.as_str(), workspace_dir(&dir)) {
            by_id.entry(id.to_owned()).or_insert(dir);
        }
    }
    Ok(by_id)
}

/// The working directory of conversation `id` and its first prompt's time,
/// from the files of the store's `home` (see the module docs).
fn workspace_of(caches: &Caches, home: &Path, id: &str) -> (Option<String>, Option<i64>) {
    let caches = caches.get::<AntigravityCaches>();
    let history = home.join("history.jsonl");
    let (dir, at) = caches
        .history
        .get(&history, 0, || read_history(&history))
        .ok()
        .and_then(|h| h.get(id).cloned())
        .unwrap_or_default();
    if dir.is_some() {
        return (dir, at);
    }
    let last = home.join("cache").join("last_conversations.json");
    let dir = caches
        .last
        .get(&last, 0, || read_last_conversations(&last))
        .ok()
        .and_then(|m| m.get(id).cloned());
    (dir, at)
}

/// What listing reads of a transcript.
// The record is what almost every file lists: boxing it would allocate
// once per session for the rare other variants' sake.
#[allow(clippy::large_enum_variant)]
enum Listing {
    /// A conversation.
    Record(SessionRecord),
    /// A sub-agent's conversation.
    Subagent,
    /// No step at all (an empty file).
    Empty,
}

/// List one transcript: its id and home from its path, its first time, and
/// whether it is a sub-agent's (read to the first typed prompt, or whole
/// when it has none).
fn read_listing(caches: &Caches, root: &Arc<Path>, path: &Path) -> Result<Listing, ReadError> {
    let Some((home, id)) = layout(path) else {
        return Ok(Listing::Empty);
    };
    let mut created = None;
    let mut steps = false;
    let mut typed = false;
    let mut reports = false;
    read_lines(path, true, |_, bytes| {
        let Some(step) = Step::parse(bytes) else {
            return Visit::BAD;
        };
        steps = true;
        if created.is_none() {
            created = string(step.created_at);
        }
        reports = reports || step.messages_a_conversation();
        if step.typed().is_some() {
            typed = true;
            return Visit::DONE;
        }
        Visit::NEXT
    })?;
    if !steps {
        return Ok(Listing::Empty);
    }
    if reports && !typed {
        return Ok(Listing::Subagent);
    }
    let (cwd, sent) = workspace_of(caches, home, &id);
    let created = created
        .or_else(|| sent.map(|ms| format_rfc3339_utc(ms.div_euclid(1000))))
        .unwrap_or_default();
    Ok(Listing::Record(SessionRecord::new(
        KIND,
        root.clone(),
        path.to_owned(),
        id,
        cwd,
        created,
    )))
}

/// The annotation file of the conversation a transcript belongs to.
fn annotation_path(path: &Path) -> Option<PathBuf> {
    let (home, id) = layout(path)?;
    Some(home.join("annotations").join(format!("{id}.pbtxt")))
}

/// The first string field `field` of a text protobuf (`title: "…"`), with
/// its escapes read (`\n`, `\"`, octal and hex bytes as UTF-8).
fn pbtxt_string(text: &str, field: &str) -> Option<String> {
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix(field) else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix(':') else {
            continue;
        };
        let rest = rest.trim_start();
        let Some(quote) = rest.chars().next().filter(|&c| c == '"' || c == '\'') else {
            continue;
        };
        return unescape(&rest[1..], quote);
    }
    None
}

/// A text-protobuf string body up to its closing `quote`, unescaped.
fn unescape(body: &str, quote: char) -> Option<String> {
    let mut out = Vec::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c == quote {
            return Some(String::from_utf8_lossy(&out).into_owned());
        }
        if c != '\\' {
            let mut buf = [0; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        match chars.next()? {
            'n' => out.push(b'\n'),
            't' => out.push(b'\t'),
            'r' => out.push(b'\r'),
            'x' => {
                let mut value = 0u32;
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(16)) {
                        Some(d) => {
                            value = value * 16 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(u8::try_from(value).ok()?);
            }
            d @ '0'..='7' => {
                let mut value = d.to_digit(8)?;
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(u8::try_from(value).ok()?);
            }
            other => {
                let mut buf = [0; 4];
                out.extend_from_slice(other.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    None
}

/// The title of a conversation (see the module docs).
pub fn read_title(caches: &Caches, record: &SessionRecord) -> Result<Option<String>, ReadError> {
    let path = &record.path;
    if let Some(named) = annotation_path(path)
        .and_then(|p| std::fs::read_to_string(p).ok())
        .and_then(|text| pbtxt_string(&text, "title"))
        .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|t| !t.is_empty())
    {
        return Ok(Some(named));
    }
    let caches = caches.get::<AntigravityCaches>();
    let title = caches.titles.get(path, 0, || {
        let mut found = None;
        read_lines(path, true, |_, bytes| {
            let Some(step) = Step::parse(bytes) else {
                return Visit::BAD;
            };
            found = step.typed().and_then(|t| title_from_text(&t));
            if found.is_some() {
                Visit::DONE
            } else {
                Visit::NEXT
            }
        })?;
        Ok(found)
    })?;
    Ok((*title).clone())
}

/// When the conversation was last active (Unix seconds): the `created_at`
/// of its last step that has one, found from the end.
pub fn last_activity(path: &Path) -> Result<Option<i64>, ReadError> {
    last_line_where(path, b"\"created_at\"", |bytes| {
        string(Step::parse(bytes)?.created_at)
            .and_then(|t| Instant::parse_rfc3339(&t))
            .map(|t| t.unix_seconds())
    })
}

impl Store for Antigravity {
    /// The annotation (the title), the prompt history and the last
    /// conversations' map (the working directory).
    fn side_files(&self, _caches: &Caches, record: &SessionRecord) -> Vec<PathBuf> {
        let Some((home, _)) = layout(&record.path) else {
            return Vec::new();
        };
        let mut files: Vec<PathBuf> = annotation_path(&record.path).into_iter().collect();
        files.push(home.join("history.jsonl"));
        files.push(home.join("cache").join("last_conversations.json"));
        files
    }

    fn name(&self) -> &'static str {
        "antigravity"
    }

    fn flag(&self) -> &'static str {
        "antigravity"
    }

    fn origin(&self) -> &'static str {
        "Antigravity CLI"
    }

    fn root_help(&self) -> &'static str {
        "Antigravity CLI directory"
    }

    /// `~/.gemini/antigravity-cli`: the agent reads no variable that moves it.
    fn default_roots(&self, _: Env<'_>, home: Option<&Path>) -> Vec<PathBuf> {
        home.map(|h| h.join(".gemini").join("antigravity-cli"))
            .into_iter()
            .collect()
    }

    fn wants(&self, path: &Path) -> bool {
        path.file_name().is_some_and(|n| n == FULL || n == CUT)
    }

    fn list_file(&self, caches: &Caches, root: &Arc<Path>, path: &Path) -> ScanEvent {
        if let Some(reason) = not_a_transcript(path) {
            return ScanEvent::Skipped {
                path: path.to_owned(),
                reason: reason.into(),
            };
        }
        let skipped = |reason: &str| ScanEvent::Skipped {
            path: path.to_owned(),
            reason: reason.into(),
        };
        match read_listing(caches, root, path) {
            Ok(Listing::Record(record)) => ScanEvent::Record(record),
            Ok(Listing::Subagent) => skipped(SUBAGENT),
            Ok(Listing::Empty) => skipped("no Antigravity CLI step"),
            Err(e) => ScanEvent::Unreadable {
                path: path.to_owned(),
                reason: e.message,
            },
        }
    }

    /// The title depends on the transcript and the conversation's
    /// annotation: the index keeps it while both are unchanged.
    fn title_inputs(&self, _: &Caches, record: &SessionRecord) -> Option<TitleInputs> {
        Some(TitleInputs::Files(
            annotation_path(&record.path).into_iter().collect(),
        ))
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
