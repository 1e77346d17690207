//! Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, or
//! `.jsonl.zst` when compressed), mapped onto the session model as
//! `FORMATS.md` describes.
//!
//! Each line is `{"timestamp","type","payload"}`. The first `session_meta`
//! identifies the file (a fork copies its parent's in after its own). The
//! conversation is recorded twice, as `response_item` messages and as
//! `event_msg` copies: the surface uses the response items, and the event
//! copies only in a rollout that has no response-item message at all, never
//! both. A `compacted` line shadows everything before it.
//!
//! # Cost model
//!
//! Listing reads the head of each rollout up to its first `session_meta`
//! (line 1 in practice); only a meta without `cwd` costs a backward scan for
//! the last `turn_context`. Titles come from the end of the rollout (the
//! latest `thread_name_updated`, found by a backward scan) and from
//! `$CODEX_HOME/session_index.jsonl` (parsed once per version of that file),
//! the later of the two winning; otherwise the first direct prompt, read
//! forward only as far as needed. Per-file results are cached by path,
//! length and modification time. A compressed rollout cannot be read
//! backward: it is decompressed forward, streaming.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::store::foreign::{
    is_zstd, last_line_where, read_lines, starts_with_any, title_from_text, trailing_uuid,
    FileCache, SurfaceBuilder, Visit,
};
use crate::store::loose::{elements, is_str, non_empty, string};
use crate::store::model::{SessionRecord, StoreKind, Surface};
use crate::store::time::Instant;
use crate::store::{env_or_home, has_suffix, Caches, Env, ReadError, ScanEvent, Store};

/// Openings of user-role messages Codex injects (instructions, environment,
/// aborted-turn notes, shell commands), which the person did not type.
const INJECTED: &[&str] = &[
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions for",
    "<turn_aborted>",
    "<user_shell_command>",
];

/// How many lines listing reads looking for the first `session_meta`.
const HEAD_LINES: u64 = 32;

/// The name of the thread index beside the `sessions` directory.
pub const SESSION_INDEX: &str = "session_index.jsonl";

/// The envelope of a rollout line. Early rollouts wrote response items bare
/// (`{"type":"message",…}`) after a bare `{"id","timestamp",…}` meta line;
/// `role` and `id` catch those shapes.
#[derive(Deserialize)]
struct Line<'a> {
    #[serde(borrow)]
    timestamp: Option<&'a RawValue>,
    #[serde(rename = "type", borrow)]
    kind: Option<&'a RawValue>,
    #[serde(borrow)]
    payload: Option<&'a RawValue>,
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    role: Option<&'a RawValue>,
}

/// The payload fields the mapping uses.
#[derive(Deserialize, Default)]
struct Payload<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<&'a RawValue>,
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    timestamp: Option<&'a RawValue>,
    #[serde(borrow)]
    cwd: Option<&'a RawValue>,
    #[serde(borrow)]
    role: Option<&'a RawValue>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    #[serde(borrow)]
    message: Option<&'a RawValue>,
    #[serde(borrow)]
    thread_name: Option<&'a RawValue>,
    #[serde(borrow)]
    replacement_history: Option<&'a RawValue>,
}

impl<'a> Payload<'a> {
    fn parse(raw: &'a str) -> Option<Payload<'a>> {
        serde_json::from_str(raw).ok()
    }
}

/// What one rollout line is.
enum Item<'a> {
    Meta(Payload<'a>),
    TurnContext(Payload<'a>),
    Response(Payload<'a>),
    Event(Payload<'a>),
    Compacted(Payload<'a>),
    Other,
}

/// Parse a line into its timestamp and item; `None` when it is not a JSON
/// object.
fn parse_line(bytes: &[u8]) -> Option<(Option<String>, Item<'_>)> {
    let line: Line<'_> = serde_json::from_slice(bytes).ok()?;
    let timestamp = string(line.timestamp);
    let Some(payload) = line.payload else {
        // Early, unwrapped shapes.
        let text = std::str::from_utf8(bytes).ok()?;
        let item = if line.kind.is_none() && line.id.is_some() {
            Item::Meta(Payload::parse(text)?)
        } else if is_str(line.kind, "message") && line.role.is_some() {
            Item::Response(Payload::parse(text)?)
        } else {
            Item::Other
        };
        return Some((timestamp, item));
    };
    let kind = line.kind;
    let known = [
        "session_meta",
        "turn_context",
        "response_item",
        "event_msg",
        "compacted",
    ];
    let Some(tag) = known.into_iter().find(|k| is_str(kind, k)) else {
        return Some((timestamp, Item::Other));
    };
    let payload = Payload::parse(payload.get()).unwrap_or_default();
    let item = match tag {
        "session_meta" => Item::Meta(payload),
        "turn_context" => Item::TurnContext(payload),
        "response_item" => Item::Response(payload),
        "event_msg" => Item::Event(payload),
        _ => Item::Compacted(payload),
    };
    Some((timestamp, item))
}

/// The texts of a message's blocks of type `block` (`input_text` for the
/// user, `output_text` for the assistant).
fn block_texts(content: Option<&RawValue>, block: &str) -> Vec<String> {
    #[derive(Deserialize)]
    struct Block<'a> {
        #[serde(rename = "type", borrow)]
        kind: Option<&'a RawValue>,
        #[serde(borrow)]
        text: Option<&'a RawValue>,
    }
    elements(content)
        .into_iter()
        .filter_map(|raw| serde_json::from_str::<Block<'_>>(raw.get()).ok())
        .filter(|b| is_str(b.kind, block))
        .filter_map(|b| string(b.text))
        .collect()
}

/// The texts a person typed, without injected context.
fn typed(texts: Vec<String>) -> Vec<String> {
    texts
        .into_iter()
        .filter(|t| !starts_with_any(t, INJECTED))
        .collect()
}

/// A message as a speaker and its texts, when it is a direct user message
/// or an assistant message.
enum Said {
    User(Vec<String>),
    Assistant(Vec<String>),
}

/// A response-item `message` (also the items of `replacement_history`).
fn said_in_item(payload: &Payload<'_>) -> Option<Said> {
    if !is_str(payload.kind, "message") {
        return None;
    }
    if is_str(payload.role, "user") {
        let texts = typed(block_texts(payload.content, "input_text"));
        (!texts.is_empty()).then_some(Said::User(texts))
    } else if is_str(payload.role, "assistant") {
        Some(Said::Assistant(block_texts(payload.content, "output_text")))
    } else {
        None
    }
}

/// An `event_msg` copy of a message.
fn said_in_event(payload: &Payload<'_>) -> Option<Said> {
    let message = string(payload.message)?;
    if is_str(payload.kind, "user_message") {
        let texts = typed(vec![message]);
        (!texts.is_empty()).then_some(Said::User(texts))
    } else if is_str(payload.kind, "agent_message") {
        Some(Said::Assistant(vec![message]))
    } else {
        None
    }
}

fn add(builder: &mut SurfaceBuilder, seq: u64, said: Said) {
    match said {
        Said::User(texts) => builder.user(seq, texts),
        Said::Assistant(texts) => builder.assistant(seq, None, texts),
    }
}

/// The Codex CLI store.
pub struct Codex;

/// The Codex CLI store's kind.
pub const KIND: StoreKind = StoreKind::new(&Codex);

impl Store for Codex {
    fn name(&self) -> &'static str {
        "codex"
    }

    fn flag(&self) -> &'static str {
        "codex"
    }

    fn root_help(&self) -> &'static str {
        "Codex CLI sessions directory"
    }

    fn default_roots(&self, env: Env<'_>, home: Option<&Path>) -> Vec<PathBuf> {
        env_or_home(
            env,
            home,
            "CODEX_HOME",
            &["sessions"],
            &[".codex", "sessions"],
        )
    }

    fn wants(&self, path: &Path) -> bool {
        has_suffix(path, ".jsonl") || has_suffix(path, ".jsonl.zst")
    }

    /// A rollout from its head. A compressed rollout that cannot be
    /// decoded is reported as unreadable.
    fn list_file(&self, _: &Caches, root: &Arc<Path>, path: &Path) -> ScanEvent {
        match read_record(root, path) {
            Ok(Some(record)) => ScanEvent::Record(record),
            Ok(None) => ScanEvent::Skipped {
                path: path.to_owned(),
                reason: concat!(
                    "not a Codex rollout: no JSON line, ",
                    "or no session_meta and no id in the file name"
                )
                .into(),
            },
            Err(e) => ScanEvent::Unreadable {
                path: path.to_owned(),
                reason: if is_zstd(path) {
                    format!("cannot decompress zstd rollout: {}", e.message)
                } else {
                    e.message
                },
            },
        }
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
}

/// The record of a rollout: id, timestamp and cwd of its first
/// `session_meta`; the id falls back to the uuid in the file name, the
/// timestamp to the first line's, the cwd to the last `turn_context`'s.
/// `None` for a file with neither a meta line nor an id in its name, or
/// with no line at all.
fn read_record(root: &Arc<Path>, path: &Path) -> Result<Option<SessionRecord>, ReadError> {
    let mut meta: Option<(Option<String>, Option<String>, Option<String>)> = None;
    let mut first_timestamp = None;
    let mut any_line = false;
    read_lines(path, true, |number, bytes| {
        let Some((timestamp, item)) = parse_line(bytes) else {
            return Visit::BAD;
        };
        any_line = true;
        if first_timestamp.is_none() {
            first_timestamp = timestamp.clone();
        }
        if let Item::Meta(p) = item {
            let created = string(p.timestamp).or(timestamp);
            meta = Some((non_empty(p.id), created, non_empty(p.cwd)));
            return Visit::DONE;
        }
        Visit {
            parsed: true,
            stop: number >= HEAD_LINES,
        }
    })?;
    let (meta_id, created, cwd) = meta.unwrap_or_default();
    let Some(id) = meta_id.or_else(|| trailing_uuid(path)) else {
        return Ok(None);
    };
    if !any_line {
        return Ok(None);
    }
    let cwd = match cwd {
        Some(cwd) => Some(cwd),
        None => last_turn_context_cwd(path)?,
    };
    Ok(Some(SessionRecord::new(
        KIND,
        root.clone(),
        path.to_owned(),
        id,
        cwd,
        created.or(first_timestamp).unwrap_or_default(),
    )))
}

/// The `cwd` of the last `turn_context` that has one.
fn last_turn_context_cwd(path: &Path) -> Result<Option<String>, ReadError> {
    last_line_where(path, b"turn_context", |bytes| match parse_line(bytes) {
        Some((_, Item::TurnContext(p))) => non_empty(p.cwd),
        _ => None,
    })
}

/// Read and fold a whole rollout (see the module docs). A rollout that
/// stops mid-turn is simply a surface without the reply.
pub fn read_surface(record: &SessionRecord) -> Result<Surface, ReadError> {
    let mut items = SurfaceBuilder::default();
    let mut events = SurfaceBuilder::default();
    let mut item_messages = false;
    let last = crate::store::foreign::read_all_lines(&record.path, |seq, bytes| {
        let Some((_, item)) = parse_line(bytes) else {
            return Visit::BAD;
        };
        match item {
            Item::Response(p) => {
                item_messages |= is_str(p.kind, "message");
                if let Some(said) = said_in_item(&p) {
                    add(&mut items, seq, said);
                }
            }
            Item::Event(p) => {
                if let Some(said) = said_in_event(&p) {
                    add(&mut events, seq, said);
                }
            }
            Item::Compacted(p) => {
                for builder in [&mut items, &mut events] {
                    compact(builder, seq, &p);
                }
            }
            Item::Meta(_) | Item::TurnContext(_) | Item::Other => {}
        }
        Visit::NEXT
    })?;
    Ok(if item_messages { items } else { events }.finish(last))
}

/// Apply a `compacted` line: the surface restarts with the summary as a
/// compact checkpoint, or, when the summary is empty, with the direct user
/// and assistant messages of `replacement_history`.
fn compact(builder: &mut SurfaceBuilder, seq: u64, payload: &Payload<'_>) {
    builder.shadow();
    if let Some(summary) = string(payload.message).filter(|m| !m.trim().is_empty()) {
        builder.checkpoint(seq, vec![summary]);
        return;
    }
    for raw in elements(payload.replacement_history) {
        if let Some(said) = Payload::parse(raw.get()).as_ref().and_then(said_in_item) {
            add(builder, seq, said);
        }
    }
}

/// A thread name and when it was set.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ThreadName {
    name: String,
    at: Option<String>,
}

/// What titling remembers between calls, owned by the catalog's [`Caches`].
#[derive(Default)]
struct CodexCaches {
    /// The latest `thread_name_updated` of each rollout.
    rollout_names: FileCache<Option<ThreadName>>,
    /// Parsed `session_index.jsonl` files.
    indexes: FileCache<HashMap<String, ThreadName>>,
    /// Titles from the first prompt.
    head_titles: FileCache<Option<String>>,
}

/// The session's title: the later of the rollout's latest
/// `thread_name_updated` and its `session_index.jsonl` entry (a blank name
/// means unnamed), else the first direct prompt's first line (≤ 80 chars).
pub fn read_title(caches: &Caches, record: &SessionRecord) -> Result<Option<String>, ReadError> {
    let caches = caches.get::<CodexCaches>();
    let path = &record.path;
    let in_rollout = caches
        .rollout_names
        .get(path, 0, || rollout_thread_name(path))?;
    let in_index = index_entry(&caches, record);
    let named = match (in_rollout.as_ref(), in_index.as_ref()) {
        (Some(rollout), Some(index)) if later(index.at.as_deref(), rollout.at.as_deref()) => {
            Some(index)
        }
        (Some(rollout), _) => Some(rollout),
        (None, index) => index,
    };
    if let Some(named) = named.filter(|n| !n.name.trim().is_empty()) {
        return Ok(Some(named.name.clone()));
    }
    let head = caches.head_titles.get(path, 0, || head_title(path))?;
    Ok((*head).clone())
}

/// Whether instant `a` is strictly after `b` (both must parse).
fn later(a: Option<&str>, b: Option<&str>) -> bool {
    let parse = |t: Option<&str>| t.and_then(Instant::parse_rfc3339);
    matches!((parse(a), parse(b)), (Some(a), Some(b)) if a > b)
}

fn thread_name_of(bytes: &[u8]) -> Option<ThreadName> {
    match parse_line(bytes)? {
        (at, Item::Event(p)) if is_str(p.kind, "thread_name_updated") => Some(ThreadName {
            name: string(p.thread_name)?,
            at,
        }),
        _ => None,
    }
}

/// The rollout's latest `thread_name_updated`, from the end of the file.
fn rollout_thread_name(path: &Path) -> Result<Option<ThreadName>, ReadError> {
    last_line_where(path, b"thread_name_updated", thread_name_of)
}

/// The session's entry in `session_index.jsonl` beside the sessions root.
/// An absent or unreadable index names nothing.
fn index_entry(caches: &CodexCaches, record: &SessionRecord) -> Option<ThreadName> {
    let index = record.root.parent()?.join(SESSION_INDEX);
    if !index.is_file() {
        return None;
    }
    let names = caches.indexes.get(&index, 0, || parse_index(&index)).ok()?;
    names.get(&record.id).cloned()
}

/// `{id, thread_name, updated_at}` lines; the newest (last) line per id wins.
fn parse_index(path: &Path) -> Result<HashMap<String, ThreadName>, ReadError> {
    #[derive(Deserialize)]
    struct Entry<'a> {
        #[serde(borrow)]
        id: Option<&'a RawValue>,
        #[serde(borrow)]
        thread_name: Option<&'a RawValue>,
        #[serde(borrow)]
        updated_at: Option<&'a RawValue>,
    }
    let mut names = HashMap::new();
    read_lines(path, false, |_, bytes| {
        let Ok(entry) = serde_json::from_slice::<Entry<'_>>(bytes) else {
            return Visit::BAD;
        };
        if let (Some(id), Some(name)) = (string(entry.id), string(entry.thread_name)) {
            names.insert(
                id,
                ThreadName {
                    name,
                    at: string(entry.updated_at),
                },
            );
        }
        Visit::NEXT
    })?;
    Ok(names)
}

/// The first direct prompt's first line (≤ 80 chars), by the same choice
/// of response items or event copies as the surface.
fn head_title(path: &Path) -> Result<Option<String>, ReadError> {
    let mut title = None;
    let mut from_event = None;
    let mut item_messages = false;
    read_lines(path, true, |_, bytes| {
        let Some((_, item)) = parse_line(bytes) else {
            return Visit::BAD;
        };
        match item {
            Item::Response(p) => {
                item_messages |= is_str(p.kind, "message");
                if let Some(Said::User(texts)) = said_in_item(&p) {
                    title = title_from_text(&texts.join("\n"));
                    if title.is_some() {
                        return Visit::DONE;
                    }
                }
            }
            Item::Event(p) if from_event.is_none() => {
                if let Some(Said::User(texts)) = said_in_event(&p) {
                    from_event = title_from_text(&texts.join("\n"));
                }
            }
            _ => {}
        }
        Visit::NEXT
    })?;
    Ok(title.or(if item_messages { None } else { from_event }))
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// One test's caches, kept across its calls as a catalog keeps them.
        static CACHES: Caches = Caches::default();
    }

    fn read_title(record: &SessionRecord) -> Result<Option<String>, ReadError> {
        CACHES.with(|caches| super::read_title(caches, record))
    }
    use crate::store::foreign::testing::texts;
    use std::path::PathBuf;

    const ID: &str = "019b7f94-51b4-7593-922e-ba12b5b73b52";

    fn meta(id: &str, cwd: Option<&str>) -> String {
        let cwd = cwd.map_or(String::new(), |c| format!(r#","cwd":"{c}""#));
        format!(
            r#"{{"timestamp":"2026-01-02T16:39:45.349Z","type":"session_meta","payload":{{"id":"{id}","timestamp":"2026-01-02T16:39:45.332Z"{cwd},"originator":"codex_cli_rs","cli_version":"0.77.0","instructions":null}}}}"#
        )
    }

    fn item_user(text: &str) -> String {
        format!(
            r#"{{"timestamp":"2026-01-02T16:39:46.000Z","type":"response_item","payload":{{"type":"message","role":"user","content":[{{"type":"input_text","text":{}}}]}}}}"#,
            serde_json::to_string(text).unwrap()
        )
    }

    fn item_assistant(text: &str) -> String {
        format!(
            r#"{{"timestamp":"2026-01-02T16:39:50.000Z","type":"response_item","payload":{{"type":"message","role":"assistant","content":[{{"type":"output_text","text":{}}}]}}}}"#,
            serde_json::to_string(text).unwrap()
        )
    }

    fn event(kind: &str, field: &str, text: &str, at: &str) -> String {
        format!(
            r#"{{"timestamp":"{at}","type":"event_msg","payload":{{"type":"{kind}","{field}":{}}}}}"#,
            serde_json::to_string(text).unwrap()
        )
    }

    fn turn_context(cwd: &str) -> String {
        format!(
            r#"{{"timestamp":"2026-01-02T16:39:47.000Z","type":"turn_context","payload":{{"cwd":"{cwd}","approval_policy":"never","model":"gpt-5-codex"}}}}"#
        )
    }

    struct Store {
        _dir: tempfile::TempDir,
        root: Arc<Path>,
    }

    impl Store {
        fn new() -> Store {
            let dir = tempfile::tempdir().unwrap();
            let root: Arc<Path> = Arc::from(dir.path().join("sessions"));
            std::fs::create_dir_all(&root).unwrap();
            Store { _dir: dir, root }
        }

        fn write(&self, name: &str, lines: &[String]) -> PathBuf {
            let path = self.root.join("2026/01/02").join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, lines.join("\n") + "\n").unwrap();
            path
        }

        fn record(&self, path: &Path) -> SessionRecord {
            read_record(&self.root, path).unwrap().unwrap()
        }

        fn index(&self, lines: &[&str]) {
            let path = self.root.parent().unwrap().join(SESSION_INDEX);
            std::fs::write(path, lines.join("\n") + "\n").unwrap();
        }
    }

    fn rollout(id: &str) -> String {
        format!("rollout-2026-01-02T18-39-45-{id}.jsonl")
    }

    #[test]
    fn first_meta_identifies_a_fork() {
        let store = Store::new();
        let parent = "11111111-2222-4333-8444-555555555555";
        let path = store.write(
            &rollout(ID),
            &[
                meta(ID, Some("/work/fork")),
                meta(parent, Some("/work/parent")),
                item_user("parent prompt"),
            ],
        );
        let record = store.record(&path);
        assert_eq!(record.id, ID);
        assert_eq!(record.cwd.as_deref(), Some("/work/fork"));
        assert_eq!(record.created_at, "2026-01-02T16:39:45.332Z");
        assert_eq!(record.kind, KIND);
    }

    #[test]
    fn cwd_falls_back_to_the_last_turn_context_and_id_to_the_name() {
        let store = Store::new();
        let path = store.write(
            &rollout(ID),
            &[
                meta(ID, None),
                turn_context("/first"),
                item_user("q"),
                turn_context("/last"),
            ],
        );
        assert_eq!(store.record(&path).cwd.as_deref(), Some("/last"));
        let nameless = store.write(
            &rollout(ID).replace(".jsonl", "-copy.jsonl"),
            &[item_user("q")],
        );
        assert!(read_record(&store.root, &nameless).unwrap().is_none());
        let no_meta = store.write(
            &format!("x-{ID}.jsonl"),
            &[turn_context("/t"), item_user("q")],
        );
        let record = store.record(&no_meta);
        assert_eq!(
            (
                record.id.as_str(),
                record.cwd.as_deref(),
                record.created_at.as_str()
            ),
            (ID, Some("/t"), "2026-01-02T16:39:47.000Z")
        );
        let empty = store.write(&format!("y-{ID}.jsonl"), &[]);
        assert!(read_record(&store.root, &empty).unwrap().is_none());
    }

    #[test]
    fn surface_uses_response_items_and_excludes_injected_context() {
        let store = Store::new();
        let path = store.write(
            &rollout(ID),
            &[
                meta(ID, Some("/w")),
                item_user("# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>be nice</INSTRUCTIONS>"),
                item_user("<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"),
                r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions instructions>"}]}}"#.into(),
                item_user("what is this repo about?"),
                event("user_message", "message", "what is this repo about?", "t"),
                r#"{"timestamp":"t","type":"response_item","payload":{"type":"reasoning","summary":[],"encrypted_content":"gAAA"}}"#.into(),
                r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c1"}}"#.into(),
                r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"ok"}}"#.into(),
                item_assistant("A shop."),
                event("agent_message", "message", "A shop.", "t"),
                item_user("<turn_aborted>\nThe user interrupted.\n</turn_aborted>"),
                item_user("<user_shell_command>ls</user_shell_command>"),
                r#"{"timestamp":"t","type":"world_state","payload":{}}"#.into(),
                "garbage".into(),
                item_user("and then?"),
            ],
        );
        let surface = read_surface(&store.record(&path)).unwrap();
        assert_eq!(
            texts(&surface),
            [
                (5, "user", "what is this repo about?".to_owned()),
                (10, "assistant", "A shop.".to_owned()),
                (16, "user", "and then?".to_owned()),
            ]
        );
        assert_eq!(surface.captured_through_seq, 16);
    }

    #[test]
    fn event_copies_are_used_only_without_response_items() {
        let store = Store::new();
        let path = store.write(
            &rollout(ID),
            &[
                meta(ID, Some("/w")),
                event(
                    "user_message",
                    "message",
                    "<environment_context>x</environment_context>",
                    "t",
                ),
                event("user_message", "message", "list files", "t"),
                event("agent_message", "message", "Two files.", "t"),
                event("token_count", "info", "", "t"),
            ],
        );
        let record = store.record(&path);
        assert_eq!(
            texts(&read_surface(&record).unwrap()),
            [
                (3, "user", "list files".to_owned()),
                (4, "assistant", "Two files.".to_owned()),
            ]
        );
        assert_eq!(read_title(&record).unwrap().as_deref(), Some("list files"));
    }

    #[test]
    fn compacted_shadows_with_a_checkpoint_or_replacement_history() {
        let store = Store::new();
        let summary = r#"{"timestamp":"t","type":"compacted","payload":{"message":"Summary: built the shop."}}"#;
        let path = store.write(
            &rollout(ID),
            &[
                meta(ID, Some("/w")),
                item_user("old"),
                item_assistant("old answer"),
                summary.into(),
                r#"{"timestamp":"t","type":"event_msg","payload":{"type":"context_compacted"}}"#
                    .into(),
                item_user("new"),
            ],
        );
        assert_eq!(
            texts(&read_surface(&store.record(&path)).unwrap()),
            [
                (4, "checkpoint", "Summary: built the shop.".to_owned()),
                (6, "user", "new".to_owned()),
            ]
        );
        let replaced = r#"{"timestamp":"t","type":"compacted","payload":{"message":"","replacement_history":[{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>e</environment_context>"}]},{"type":"message","role":"user","content":[{"type":"input_text","text":"kept prompt"},{"type":"input_image","image_url":null}]},{"type":"message","role":"developer","content":[{"type":"input_text","text":"dev"}]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"kept answer"}]},{"type":"compaction","encrypted_content":"x"}]}}"#;
        let path = store.write(
            &rollout("22222222-2222-4333-8444-555555555555"),
            &[meta("r", Some("/w")), item_user("old"), replaced.into()],
        );
        assert_eq!(
            texts(&read_surface(&store.record(&path)).unwrap()),
            [
                (3, "user", "kept prompt".to_owned()),
                (3, "assistant", "kept answer".to_owned()),
            ]
        );
        let emptied = r#"{"timestamp":"t","type":"compacted","payload":{"message":""}}"#;
        let path = store.write(
            &rollout("33333333-2222-4333-8444-555555555555"),
            &[meta("e", Some("/w")), item_user("old"), emptied.into()],
        );
        let surface = read_surface(&store.record(&path)).unwrap();
        assert!(surface.events.is_empty());
        assert_eq!(surface.captured_through_seq, 3);
    }

    #[test]
    fn mid_turn_end_and_torn_tail() {
        let store = Store::new();
        let path = store.write(
            &rollout(ID),
            &[
                meta(ID, Some("/w")),
                item_user("summarize the repo"),
                r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c"}}"#.into(),
            ],
        );
        let mut content = std::fs::read_to_string(&path).unwrap();
        content.push_str(r#"{"timestamp":"t","type":"response_item","payload":{"type":"mess"#);
        std::fs::write(&path, content).unwrap();
        let surface = read_surface(&store.record(&path)).unwrap();
        assert_eq!(
            texts(&surface),
            [(2, "user", "summarize the repo".to_owned())]
        );
        assert_eq!(surface.captured_through_seq, 3);
    }

    #[test]
    fn titles_from_thread_names_index_and_first_prompt() {
        let store = Store::new();
        let named = |name: &str, at: &str| {
            format!(
                r#"{{"timestamp":"{at}","type":"event_msg","payload":{{"type":"thread_name_updated","thread_id":"x","thread_name":"{name}"}}}}"#
            )
        };
        let a = "aaaaaaaa-2222-4333-8444-555555555555";
        let b = "bbbbbbbb-2222-4333-8444-555555555555";
        let c = "cccccccc-2222-4333-8444-555555555555";
        let d = "dddddddd-2222-4333-8444-555555555555";
        let pa = store.write(
            &rollout(a),
            &[
                meta(a, Some("/w")),
                item_user("prompt a"),
                named("First name", "2026-01-02T17:00:00Z"),
                named("Renamed", "2026-01-02T18:00:00Z"),
                item_assistant("ok"),
            ],
        );
        let pb = store.write(
            &rollout(b),
            &[
                meta(b, Some("/w")),
                item_user("prompt b"),
                named("In rollout", "2026-01-02T18:00:00Z"),
            ],
        );
        let pc = store.write(
            &rollout(c),
            &[
                meta(c, Some("/w")),
                item_user("<environment_context>\n</environment_context>"),
                item_user(&"long ".repeat(30)),
            ],
        );
        let pd = store.write(
            &rollout(d),
            &[
                meta(d, Some("/w")),
                item_user("prompt d"),
                named("", "2026-01-02T18:00:00Z"),
            ],
        );
        store.index(&[
            &format!(
                r#"{{"id":"{b}","thread_name":"Old index","updated_at":"2026-01-02T17:00:00Z"}}"#
            ),
            &format!(
                r#"{{"id":"{a}","thread_name":"Stale index","updated_at":"2026-01-02T17:30:00Z"}}"#
            ),
            &format!(
                r#"{{"id":"{b}","thread_name":"Index wins","updated_at":"2026-01-02T19:00:00Z"}}"#
            ),
            &format!(
                r#"{{"id":"{c}","thread_name":"Only index","updated_at":"2026-01-02T19:00:00Z"}}"#
            ),
            "not json",
        ]);
        let title = |p: &Path| read_title(&store.record(p)).unwrap();
        assert_eq!(title(&pa).as_deref(), Some("Renamed"));
        assert_eq!(title(&pb).as_deref(), Some("Index wins"));
        assert_eq!(title(&pc).as_deref(), Some("Only index"));
        assert_eq!(title(&pd).as_deref(), Some("prompt d"));
        store.index(&[]);
        let cut = title(&pc).unwrap();
        assert_eq!(cut, "long ".repeat(16).trim_end());
    }

    #[test]
    fn zstd_rollouts_are_read_and_bad_ones_reported() {
        let store = Store::new();
        let plain = [
            meta(ID, None),
            item_user("compressed prompt"),
            turn_context("/zipped"),
            item_assistant("compressed answer"),
        ]
        .join("\n")
            + "\n";
        let dir = store.root.join("2026/01/03");
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join(format!("rollout-2026-01-03T00-00-00-{ID}.jsonl.zst"));
        std::fs::write(&good, zstd::encode_all(plain.as_bytes(), 3).unwrap()).unwrap();
        let bad =
            dir.join("rollout-2026-01-03T00-00-01-44444444-2222-4333-8444-555555555555.jsonl.zst");
        std::fs::write(&bad, b"\x28\xb5\x2f\xfd garbage that is not a frame").unwrap();
        let catalog =
            crate::store::Catalog::load(&crate::store::StoreRoots::new().with(KIND, &*store.root));
        assert_eq!(catalog.len(), 1);
        let record = catalog.get(0);
        assert_eq!(record.cwd.as_deref(), Some("/zipped"));
        assert_eq!(
            read_title(record).unwrap().as_deref(),
            Some("compressed prompt")
        );
        assert_eq!(
            texts(&read_surface(record).unwrap()),
            [
                (2, "user", "compressed prompt".to_owned()),
                (4, "assistant", "compressed answer".to_owned()),
            ]
        );
        assert_eq!(catalog.unreadable.len(), 1);
        assert_eq!(catalog.unreadable[0].0, bad);
        assert!(catalog.unreadable[0]
            .1
            .starts_with("cannot decompress zstd rollout"));
    }

    #[test]
    fn legacy_unwrapped_rollouts_are_read() {
        let store = Store::new();
        let path = store.write(
            &rollout(ID),
            &[
                format!(r#"{{"id":"{ID}","timestamp":"2025-04-20T10:00:00.000Z","instructions":null,"git":null}}"#),
                r#"{"record_type":"state"}"#.into(),
                r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"old style"}]}"#.into(),
                r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"still read"}]}"#.into(),
            ],
        );
        let record = store.record(&path);
        assert_eq!(
            (
                record.id.as_str(),
                record.created_at.as_str(),
                record.cwd.as_deref()
            ),
            (ID, "2025-04-20T10:00:00.000Z", None)
        );
        assert_eq!(
            texts(&read_surface(&record).unwrap()),
            [
                (3, "user", "old style".to_owned()),
                (4, "assistant", "still read".to_owned()),
            ]
        );
    }
}
