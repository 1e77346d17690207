//! Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, or
//! `.jsonl.zst` when compressed), mapped onto the session model as
//! `FORMATS.md` describes.
//!
//! Each line is `{"timestamp","type","payload"}` (0.16x adds an `ordinal`
//! and line types such as `world_state` and `token_usage_record`, 0.171
//! the item type `id_allocation`: only the five types below are read, so
//! these are never conversation). The first `session_meta` identifies the file (an
//! older fork copies its parent's in after its own; a newer, "paginated"
//! fork points at its parent's rollout instead, see [`read_surface`]). The
//! conversation is recorded twice, as `response_item` messages and as
//! `event_msg` copies (`user_message`/`agent_message`, or in 0.16x
//! `item_completed` with a `UserMessage`/`AgentMessage` item): the surface
//! uses the response items, and the event copies only in a rollout that has
//! no response-item message at all, never both. A `compacted` line shadows
//! everything before it.
//!
//! # What the person typed
//!
//! A user-role message minus what Codex injects (instructions, environment,
//! notes) and minus the markers it writes around attached images
//! (`<image name=[Image #1] path="…">` … `</image>`, observed in 0.169 and
//! 0.171).
//! IDE clients wrap a prompt in their context (`# Context from my IDE
//! setup:` … `## My request for Codex:`): only the request after the marker
//! is the person's, as in Codex's own session list. Piped input (a
//! `<stdin>` block after the prompt) is the person's and is kept. The
//! `<user_action>` block `codex exec review` leaves in its parent rollout
//! is Codex's text.
//!
//! # Sub-agents and forks (checked on 0.171.0)
//!
//! `codex exec review` writes two rollouts: the parent (listed by Codex,
//! and here, by the reviewer's prompt it echoes as an event) and the
//! reviewer's, whose `session_meta.source` is `{"subagent": "review"}`:
//! a sub-agent, skipped by listing. An unnamed paginated fork, and a fork
//! of a fork, is titled as `thread/list` shows it: by the first prompt of
//! the history it inherits, the root's.
//!
//! # Cost model
//!
//! Listing reads the head of each rollout up to its first `session_meta`
//! (line 1 in practice); only a meta without `cwd` costs a backward scan for
//! the last `turn_context`. Titles come from the end of the rollout (the
//! latest `thread_name_updated`, found by a backward scan) and from
//! `$CODEX_HOME/session_index.jsonl` (parsed once per version of that file),
//! the later of the two winning; otherwise the first prompt as Codex lists
//! it, read forward only as far as needed. Per-file results are cached by path,
//! length and modification time. A compressed rollout cannot be read
//! backward: it is decompressed forward, streaming.

use std::collections::HashMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::index::journal::{Folded, Journal, ResumePoint};
use crate::index::title::TitleInputs;
use crate::jsonl::loose::{
    is_str, non_empty, raw_elements, scan_fields, scan_or_parse, scan_or_parse_line, string,
    RawText,
};
use crate::kinds::foreign::{
    self, is_zstd, last_line_where, read_lines, starts_with_any, title_from_text, trailing_uuid,
    FileCache, SurfaceBuilder, Visit,
};
use crate::model::{SessionRecord, StoreKind, Surface, SurfaceSink};
use crate::{env_or_home, has_suffix, Caches, Env, ReadError, ScanEvent, Store};
use session_ref_core::time::Instant;

/// Openings of user-role messages Codex injects (instructions, environment,
/// aborted-turn notes, shell commands), which the person did not type.
const INJECTED: &[&str] = &[
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions for",
    "<turn_aborted>",
    "<user_shell_command>",
    // `codex exec review` puts the review's outcome in the parent as a
    // user item of Codex's own writing.
    "<user_action>",
];

/// The line after which an IDE client (VS Code extension, desktop app)
/// puts the person's request, below its context (open tabs, active file).
const IDE_REQUEST: &str = "## My request for Codex:";

/// Content block types that carry an image.
const IMAGE_BLOCKS: &[&str] = &["input_image", "image", "local_image"];

/// The title of a prompt made only of images (Codex's own list shows the
/// same).
const IMAGE_TITLE: &str = "[Image]";

/// How many lines listing reads looking for the first `session_meta`.
const HEAD_LINES: u64 = 32;

/// The name of the thread index beside the `sessions` directory.
pub const SESSION_INDEX: &str = "session_index.jsonl";

/// The envelope of a rollout line. Early rollouts wrote response items bare
/// (`{"type":"message",…}`) after a bare `{"id","timestamp",…}` meta line;
/// `role` and `id` catch those shapes.
#[derive(Deserialize, Debug, PartialEq)]
struct Line<'a> {
    #[serde(borrow)]
    timestamp: Option<RawText<'a>>,
    #[serde(rename = "type", borrow)]
    kind: Option<RawText<'a>>,
    #[serde(borrow)]
    payload: Option<RawText<'a>>,
    #[serde(borrow)]
    id: Option<RawText<'a>>,
    #[serde(borrow)]
    role: Option<RawText<'a>>,
}

/// The payload fields the mapping uses.
#[derive(Deserialize, Default, Debug, PartialEq)]
struct Payload<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<RawText<'a>>,
    #[serde(borrow)]
    id: Option<RawText<'a>>,
    #[serde(borrow)]
    timestamp: Option<RawText<'a>>,
    #[serde(borrow)]
    cwd: Option<RawText<'a>>,
    #[serde(borrow)]
    role: Option<RawText<'a>>,
    #[serde(borrow)]
    content: Option<RawText<'a>>,
    #[serde(borrow)]
    message: Option<RawText<'a>>,
    #[serde(borrow)]
    thread_name: Option<RawText<'a>>,
    #[serde(borrow)]
    replacement_history: Option<RawText<'a>>,
    #[serde(borrow)]
    item: Option<RawText<'a>>,
    #[serde(borrow)]
    images: Option<RawText<'a>>,
    #[serde(borrow)]
    local_images: Option<RawText<'a>>,
    #[serde(borrow)]
    history_mode: Option<RawText<'a>>,
    #[serde(borrow)]
    history_base: Option<RawText<'a>>,
    #[serde(borrow)]
    source: Option<RawText<'a>>,
}

impl<'a> Payload<'a> {
    /// A payload's fields: by the envelope scanner, else by `serde_json`
    /// (see [`scan_or_parse`]).
    fn parse(raw: &'a str) -> Option<Payload<'a>> {
        scan_or_parse(raw, |raw| {
            let [kind, id, timestamp, cwd, role, content, message, thread_name, replacement_history, item, images, local_images, history_mode, history_base, source] =
                scan_fields(raw, PAYLOAD_KEYS)?;
            Some(Payload {
                kind,
                id,
                timestamp,
                cwd,
                role,
                content,
                message,
                thread_name,
                replacement_history,
                item,
                images,
                local_images,
                history_mode,
                history_base,
                source,
            })
        })
    }
}

/// The keys of [`Payload`]'s fields, in their order.
const PAYLOAD_KEYS: [&str; 15] = [
    "type",
    "id",
    "timestamp",
    "cwd",
    "role",
    "content",
    "message",
    "thread_name",
    "replacement_history",
    "item",
    "images",
    "local_images",
    "history_mode",
    "history_base",
    "source",
];

impl<'a> Line<'a> {
    /// A rollout line's envelope: by the envelope scanner, else by
    /// `serde_json` (see [`scan_or_parse_line`]).
    fn parse(bytes: &'a [u8]) -> Option<Line<'a>> {
        scan_or_parse_line(bytes, |text| {
            let [timestamp, kind, payload, id, role] =
                scan_fields(text, ["timestamp", "type", "payload", "id", "role"])?;
            Some(Line {
                timestamp,
                kind,
                payload,
                id,
                role,
            })
        })
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
    let line = Line::parse(bytes)?;
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
    let payload = Payload::parse(payload.0).unwrap_or_default();
    let item = match tag {
        "session_meta" => Item::Meta(payload),
        "turn_context" => Item::TurnContext(payload),
        "response_item" => Item::Response(payload),
        "event_msg" => Item::Event(payload),
        _ => Item::Compacted(payload),
    };
    Some((timestamp, item))
}

/// A message's content blocks: their texts (of the types in `text_kinds`)
/// and whether any block is an image.
fn blocks(content: Option<RawText<'_>>, text_kinds: &[&str]) -> (Vec<String>, bool) {
    #[derive(Deserialize)]
    struct Block<'a> {
        #[serde(rename = "type", borrow)]
        kind: Option<RawText<'a>>,
        #[serde(borrow)]
        text: Option<RawText<'a>>,
    }
    fn block(raw: RawText<'_>) -> Option<Block<'_>> {
        scan_or_parse(raw.0, |text| {
            let [kind, text] = scan_fields(text, ["type", "text"])?;
            Some(Block { kind, text })
        })
    }
    let mut texts = Vec::new();
    let mut image = false;
    for block in raw_elements(content).into_iter().filter_map(block) {
        if text_kinds.iter().any(|k| is_str(block.kind, k)) {
            texts.extend(string(block.text));
        } else if IMAGE_BLOCKS.iter().any(|k| is_str(block.kind, k)) {
            image = true;
        }
    }
    (texts, image)
}

/// The texts of a message's blocks of type `block` (`input_text` for the
/// user, `output_text` for the assistant).
fn block_texts(content: Option<RawText<'_>>, block: &str) -> Vec<String> {
    blocks(content, &[block]).0
}

/// Whether a text block only marks where an attached image sits
/// (`<image name=[Image #1] path="…">`, `</image>`): Codex writes these
/// around each `input_image`; they are not the person's words.
fn is_image_marker(text: &str) -> bool {
    let text = text.trim();
    text == "</image>"
        || (text.starts_with("<image") && text.ends_with('>') && !text.contains('\n'))
}

/// The request inside an IDE client's wrapper: the text after the
/// `## My request for Codex:` line when the text holds one (at a line
/// start), as Codex's own session list strips it; the text itself
/// otherwise.
fn request_of(text: String) -> String {
    let at = text
        .match_indices(IDE_REQUEST)
        .map(|(at, _)| at)
        .find(|&at| at == 0 || text.as_bytes()[at - 1] == b'\n');
    match at {
        Some(at) => text[at + IDE_REQUEST.len()..].trim().to_owned(),
        None => text,
    }
}

/// The texts a person typed: without injected context, image markers or
/// blank blocks, and without an IDE client's wrapper.
fn typed(texts: Vec<String>) -> Vec<String> {
    texts
        .into_iter()
        .filter(|t| !starts_with_any(t, INJECTED) && !is_image_marker(t))
        .map(request_of)
        .filter(|t| !t.trim().is_empty())
        .collect()
}

/// A message as a speaker and its texts, when it is a direct user message
/// or an assistant message. A user prompt made only of images is `User`
/// with no texts: not a message of the surface, `[Image]` as a title.
#[derive(Debug, Clone)]
enum Said {
    User(Vec<String>),
    Assistant(Vec<String>),
}

/// A user prompt's texts, or `None` when it holds neither typed text nor
/// an image (only injected context, say).
fn user_said(texts: Vec<String>, image: bool) -> Option<Said> {
    let texts = typed(texts);
    (!texts.is_empty() || image).then_some(Said::User(texts))
}

/// A response-item `message` (also the items of `replacement_history`).
fn said_in_item(payload: &Payload<'_>) -> Option<Said> {
    if !is_str(payload.kind, "message") {
        return None;
    }
    if is_str(payload.role, "user") {
        let (texts, image) = blocks(payload.content, &["input_text"]);
        user_said(texts, image)
    } else if is_str(payload.role, "assistant") {
        Some(Said::Assistant(block_texts(payload.content, "output_text")))
    } else {
        None
    }
}

/// An `event_msg` copy of a message: `user_message`/`agent_message`, or
/// (0.16x) `item_completed` with a `UserMessage`/`AgentMessage` item.
fn said_in_event(payload: &Payload<'_>) -> Option<Said> {
    if is_str(payload.kind, "item_completed") {
        let item = Payload::parse(payload.item?.0)?;
        return if is_str(item.kind, "UserMessage") {
            let (texts, image) = blocks(item.content, &["text", "input_text"]);
            user_said(texts, image)
        } else if is_str(item.kind, "AgentMessage") {
            let (texts, _) = blocks(item.content, &["Text", "text", "output_text"]);
            Some(Said::Assistant(texts))
        } else {
            None
        };
    }
    let message = string(payload.message)?;
    if is_str(payload.kind, "user_message") {
        let image = !raw_elements(payload.images).is_empty()
            || !raw_elements(payload.local_images).is_empty();
        user_said(vec![message], image)
    } else if is_str(payload.kind, "agent_message") {
        Some(Said::Assistant(vec![message]))
    } else {
        None
    }
}

/// A prompt's title: its first line (≤ 80 chars), or `[Image]` for a
/// prompt made only of images.
fn prompt_title(texts: &[String]) -> Option<String> {
    if texts.is_empty() {
        return Some(IMAGE_TITLE.to_owned());
    }
    title_from_text(&texts.join("\n"))
}

fn add<S: SurfaceSink>(builder: &mut SurfaceBuilder<S>, seq: u64, said: Said) {
    match said {
        Said::User(texts) if texts.is_empty() => {}
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

    fn origin(&self) -> &'static str {
        "Codex CLI"
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
            Ok(Some(Head::Session(record))) => ScanEvent::Record(record),
            Ok(Some(Head::Review)) => ScanEvent::Skipped {
                path: path.to_owned(),
                reason: "a Codex review sub-agent rollout (`codex exec review`), not a session of its own".into(),
            },
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

    fn title_inputs(&self, _: &Caches, record: &SessionRecord) -> Option<TitleInputs> {
        // Thread names also come from `session_index.jsonl` beside the root.
        let index = record.root.parent()?.join(SESSION_INDEX);
        Some(TitleInputs::Files(vec![index]))
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

    /// The `timestamp` of the last line that has one (every line of a
    /// rollout does; a backward scan), else the file's modification time.
    fn last_activity(&self, _: &Caches, record: &SessionRecord) -> Option<i64> {
        let last = last_line_where(&record.path, b"\"timestamp\"", |bytes| {
            let line = Line::parse(bytes)?;
            Instant::parse_rfc3339(&string(line.timestamp)?)
        });
        match last {
            Ok(Some(at)) => Some(at.unix_seconds()),
            _ => crate::modified_secs(&record.path),
        }
    }

    fn fold_surface(
        &self,
        _: &Caches,
        record: &SessionRecord,
        sink: &mut dyn SurfaceSink,
    ) -> Result<u64, ReadError> {
        let mut fold = Fold::new(
            SurfaceBuilder::new(sink.fork()),
            SurfaceBuilder::new(sink.fork()),
        );
        let last = fold_rollout(&record.root, &record.path, None, 0, &mut fold)?;
        sink.adopt(fold.chosen().into_sink());
        Ok(last)
    }

    /// The response items and the event copies are recorded as streams 0
    /// and 1, the conversation being stream 0 once the rollout has a
    /// message item (from then on stream 1 is never chosen again, so it is
    /// no longer kept). A compressed rollout, or a paginated fork (whose
    /// history sits in another file), is read whole each time.
    fn fold_resumable(
        &self,
        _: &Caches,
        record: &SessionRecord,
        len: u64,
        from: Option<&ResumePoint>,
    ) -> Result<Folded, ReadError> {
        let plain = !is_zstd(&record.path);
        let start = from.filter(|_| plain).and_then(|point| {
            let state: FoldState = crate::index::sealed::decode(&point.state)?;
            Some((point, state))
        });
        let continued = start.is_some();
        let (begin, state) = match start {
            Some((point, state)) => (
                RolloutStart {
                    byte: point.offset,
                    lines: point.lines,
                    meta_seen: state.meta_seen,
                },
                state,
            ),
            None => (RolloutStart::default(), FoldState::default()),
        };
        let mut fold = Fold {
            items: SurfaceBuilder::resuming(Journal::new(ITEMS), state.item_keys),
            events: SurfaceBuilder::resuming(Journal::new(EVENTS), state.event_keys),
            item_messages: state.item_messages,
        };
        let end = fold_rollout_from(
            &record.root,
            &record.path,
            begin,
            // A compressed rollout's length says nothing of its lines.
            if plain {
                Rollout::Listed(len)
            } else {
                Rollout::Whole
            },
            0,
            &mut fold,
        )?;
        let state = FoldState {
            meta_seen: end.meta_seen,
            item_messages: fold.item_messages,
            item_keys: fold.items.merge_keys(),
            event_keys: fold.events.merge_keys(),
        };
        let resume = (plain && end.clean && !end.parent).then(|| ResumePoint {
            offset: end.byte,
            lines: end.lines,
            state: crate::index::sealed::encode(&state).unwrap_or_default(),
        });
        let mut ops = fold.items.into_sink().into_ops();
        let chosen = if fold.item_messages {
            ITEMS
        } else {
            ops.extend(fold.events.into_sink().into_ops());
            EVENTS
        };
        Ok(Folded {
            ops,
            chosen,
            continued,
            resume,
        })
    }
}

/// The journal stream of the response items.
const ITEMS: u8 = 0;
/// The journal stream of the event copies.
const EVENTS: u8 = 1;

/// What a resumed fold of a rollout needs besides the lines before it.
#[derive(Debug, Default, Serialize, Deserialize)]
struct FoldState {
    meta_seen: bool,
    item_messages: bool,
    item_keys: Vec<(String, u64)>,
    event_keys: Vec<(String, u64)>,
}

/// What the head of a rollout says it is.
#[derive(Debug)]
enum Head {
    /// A session.
    Session(SessionRecord),
    /// The review sub-agent of `codex exec review` (`session_meta.source`
    /// `{"subagent": "review"}`): its parent is the session.
    Review,
}

/// Whether a `session_meta.source` names the review sub-agent.
fn is_review_subagent(source: Option<RawText<'_>>) -> bool {
    #[derive(Deserialize)]
    struct Source<'a> {
        #[serde(borrow)]
        subagent: Option<&'a RawValue>,
    }
    source
        .filter(|raw| raw.0.starts_with('{'))
        .and_then(|raw| serde_json::from_str::<Source<'_>>(raw.0).ok())
        .is_some_and(|s| string(s.subagent).as_deref() == Some("review"))
}

/// The record of a rollout: id, timestamp and cwd of its first
/// `session_meta`; the id falls back to the uuid in the file name, the
/// timestamp to the first line's, the cwd to the last `turn_context`'s.
/// `None` for a file with neither a meta line nor an id in its name, or
/// with no line at all.
fn read_record(root: &Arc<Path>, path: &Path) -> Result<Option<Head>, ReadError> {
    let mut meta: Option<(Option<String>, Option<String>, Option<String>)> = None;
    let mut review = false;
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
            review = is_review_subagent(p.source);
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
    if review {
        return Ok(Some(Head::Review));
    }
    let cwd = match cwd {
        Some(cwd) => Some(cwd),
        None => last_turn_context_cwd(path)?,
    };
    Ok(Some(Head::Session(SessionRecord::new(
        KIND,
        root.clone(),
        path.to_owned(),
        id,
        cwd,
        created.or(first_timestamp).unwrap_or_default(),
    ))))
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
///
/// A fork written by newer versions (`history_mode: "paginated"`) holds
/// only its own turns: its surface is its parent's history up to the fork
/// point (`history_base`), read from the parent's rollout, followed by its
/// own lines. The parent's lines keep their line numbers as seq; the fork's
/// own lines follow them (seq = lines of parent history + line number), so
/// seq still grows along the conversation. A parent that cannot be found
/// or read makes the fork unreadable rather than silently shorter.
pub fn read_surface(record: &SessionRecord) -> Result<Surface, ReadError> {
    let mut fold = Fold::new(SurfaceBuilder::default(), SurfaceBuilder::default());
    let last = fold_rollout(&record.root, &record.path, None, 0, &mut fold)?;
    Ok(fold.chosen().finish(last))
}

/// The most parents a chain of paginated forks may have before the chain
/// is taken for a loop.
const MAX_FORK_DEPTH: usize = 32;

/// A rollout being folded into a surface: the response items and the
/// event copies are folded apart, and one of them chosen at the end.
struct Fold<S> {
    items: SurfaceBuilder<S>,
    events: SurfaceBuilder<S>,
    item_messages: bool,
}

impl<S: SurfaceSink> Fold<S> {
    /// A fold feeding the response items to `items` and the event copies
    /// to `events`.
    fn new(items: SurfaceBuilder<S>, events: SurfaceBuilder<S>) -> Self {
        Fold {
            items,
            events,
            item_messages: false,
        }
    }

    fn apply(&mut self, seq: u64, says: RolloutSays) {
        match says {
            RolloutSays::Response { message, said } => {
                self.item_messages |= message;
                if let Some(said) = said {
                    add(&mut self.items, seq, said);
                }
            }
            RolloutSays::Event(said) => {
                if let Some(said) = said {
                    add(&mut self.events, seq, said);
                }
            }
            RolloutSays::Compacted(compaction) => {
                for builder in [&mut self.items, &mut self.events] {
                    compact(builder, seq, compaction.clone());
                }
            }
            RolloutSays::Meta(_) | RolloutSays::Other => {}
        }
    }

    /// The builder that holds the conversation: the response items when
    /// the rollout has any message item, else the event copies.
    fn chosen(self) -> SurfaceBuilder<S> {
        if self.item_messages {
            self.items
        } else {
            self.events
        }
    }
}

/// Where a paginated fork's history ends in its parent's rollout.
struct HistoryBase {
    thread_id: String,
    end_byte_offset: u64,
}

/// The `history_base` of a paginated fork's `session_meta`, `None` for any
/// other meta. A paginated meta whose base is unusable is an error: the
/// history cannot be found.
fn history_base(meta: &Payload<'_>, path: &Path) -> Result<Option<HistoryBase>, ReadError> {
    #[derive(Deserialize)]
    struct Base<'a> {
        #[serde(borrow)]
        thread_id: Option<&'a RawValue>,
        end_byte_offset: Option<u64>,
    }
    let Some(raw) = meta.history_base.filter(|r| r.0 != "null") else {
        return Ok(None);
    };
    if !is_str(meta.history_mode, "paginated") {
        return Ok(None);
    }
    let base = serde_json::from_str::<Base<'_>>(raw.0).ok();
    match base.and_then(|b| Some((non_empty(b.thread_id)?, b.end_byte_offset?))) {
        Some((thread_id, end_byte_offset)) => Ok(Some(HistoryBase {
            thread_id,
            end_byte_offset,
        })),
        None => Err(ReadError::at(
            path,
            1,
            "fork without a usable history_base (thread_id, end_byte_offset)",
        )),
    }
}

/// Fold the lines of `path` (the first `limit` bytes of it, when given)
/// into `fold`, numbering them from `offset + 1`; a paginated fork's
/// parent history is folded first. Returns the seq of the last complete
/// line.
fn fold_rollout<S: SurfaceSink>(
    root: &Path,
    path: &Path,
    limit: Option<u64>,
    depth: usize,
    fold: &mut Fold<S>,
) -> Result<u64, ReadError> {
    let extent = limit.map_or(Rollout::Whole, Rollout::ForkPoint);
    fold_rollout_from(root, path, RolloutStart::default(), extent, depth, fold).map(|end| end.last)
}

/// Where folding a rollout starts: a line start, the lines before it, and
/// whether its first `session_meta` was among them.
#[derive(Debug, Default, Clone, Copy)]
struct RolloutStart {
    byte: u64,
    lines: u64,
    meta_seen: bool,
}

/// How much of a rollout is folded.
#[derive(Debug, Clone, Copy)]
enum Rollout {
    /// All of it.
    Whole,
    /// Its first bytes, as many as listing saw.
    Listed(u64),
    /// Its first bytes up to where a fork was made from it, which must be
    /// there.
    ForkPoint(u64),
}

/// Where folding a rollout ended.
#[derive(Debug, Clone, Copy)]
struct RolloutEnd {
    /// The seq of the last complete line.
    last: u64,
    /// The byte offset after the last byte read.
    byte: u64,
    /// Lines read, complete or not.
    lines: u64,
    /// The last line read was complete.
    clean: bool,
    /// The first `session_meta` has been read.
    meta_seen: bool,
    /// A parent's history was folded (it lives in another file).
    parent: bool,
}

/// [`fold_rollout`] from `start` (a point a [`RolloutEnd`] gave) over
/// `extent`: a rollout folded in two spans folds as in one.
fn fold_rollout_from<S: SurfaceSink>(
    root: &Path,
    path: &Path,
    start: RolloutStart,
    extent: Rollout,
    depth: usize,
    fold: &mut Fold<S>,
) -> Result<RolloutEnd, ReadError> {
    let limit = match extent {
        Rollout::Whole => None,
        Rollout::Listed(limit) | Rollout::ForkPoint(limit) => Some(limit),
    };
    let parse = |bytes: &[u8]| parse_line(bytes).map(|(_, item)| RolloutSays::of(item, path));
    let mut offset = 0;
    let mut meta_seen = start.meta_seen;
    let mut parent = false;
    let mut on_line = |number: u64, says: RolloutSays| -> Result<(), ReadError> {
        match says {
            RolloutSays::Meta(base) if !meta_seen => {
                meta_seen = true;
                if let Some(base) = base? {
                    offset = fold_parent(root, path, &base, depth, fold)?;
                    parent = true;
                }
            }
            says => fold.apply(offset + number, says),
        }
        Ok(())
    };
    let span = if is_zstd(path) {
        // A compressed rollout can only be read in order.
        let mut reader = open_limited(path, start.byte, limit)?.numbered_after(start.lines);
        let mut span = foreign::Span {
            complete: start.lines,
            lines: start.lines,
            end: start.byte,
            clean: true,
        };
        while let Some(line) = reader.next_line().map_err(|e| ReadError::io(path, &e))? {
            span.end += line.bytes.len() as u64 + u64::from(line.terminated);
            span.lines = line.number;
            span.clean = line.terminated;
            let parsed = parse(line.bytes);
            if line.terminated || parsed.is_some() {
                span.complete = line.number;
            }
            if let Some(says) = parsed {
                on_line(line.number, says)?;
            }
        }
        span
    } else {
        foreign::fold_lines_span(path, start.byte, start.lines, limit, parse, on_line)?
    };
    let mut end = RolloutEnd {
        last: span.complete,
        byte: span.end,
        lines: span.lines,
        clean: span.clean,
        meta_seen,
        parent,
    };
    if let Rollout::ForkPoint(limit) = extent {
        if end.byte < limit {
            return Err(ReadError::at(
                path,
                end.last,
                "the rollout ends before the point a fork was made from",
            ));
        }
    }
    end.last += offset;
    Ok(end)
}

/// Fold the history a paginated fork starts from; returns how many lines
/// of seq it took.
fn fold_parent<S: SurfaceSink>(
    root: &Path,
    fork: &Path,
    base: &HistoryBase,
    depth: usize,
    fold: &mut Fold<S>,
) -> Result<u64, ReadError> {
    if depth >= MAX_FORK_DEPTH {
        return Err(ReadError::at(fork, 1, "fork chain too deep (a loop?)"));
    }
    let Some(parent) = find_rollout(root, fork, &base.thread_id) else {
        return Err(ReadError::at(
            fork,
            1,
            &format!(
                "the rollout of {} this fork was made from is not found",
                base.thread_id
            ),
        ));
    };
    fold_rollout(root, &parent, Some(base.end_byte_offset), depth + 1, fold)
}

/// Open a rollout (decompressing `.zst`) for reading from byte `from` (of
/// a plain file) to byte `limit`, or to its end.
fn open_limited(
    path: &Path,
    from: u64,
    limit: Option<u64>,
) -> Result<crate::jsonl::lines::LineReader<Box<dyn Read + Send>>, ReadError> {
    use std::io::{Seek, SeekFrom};
    let mut file = File::open(path).map_err(|e| ReadError::io(path, &e))?;
    let stream: Box<dyn Read + Send> = if is_zstd(path) {
        Box::new(zstd::stream::read::Decoder::new(file).map_err(|e| ReadError::io(path, &e))?)
    } else {
        if from > 0 {
            file.seek(SeekFrom::Start(from))
                .map_err(|e| ReadError::io(path, &e))?;
        }
        Box::new(file)
    };
    let stream: Box<dyn Read + Send> = match limit {
        Some(limit) => Box::new(stream.take(limit.saturating_sub(from))),
        None => stream,
    };
    Ok(crate::jsonl::lines::LineReader::new(stream))
}

/// The rollout of thread `id`: a `*<id>.jsonl` (or `.jsonl.zst`) file in the
/// fork's own folder (forks are usually made the same day), else anywhere
/// under the store root.
fn find_rollout(root: &Path, fork: &Path, id: &str) -> Option<PathBuf> {
    let plain = format!("{id}.jsonl");
    let packed = format!("{id}.jsonl.zst");
    let named = |path: &Path| {
        path.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with(&plain) || n.ends_with(&packed))
    };
    let in_folder = fork.parent().and_then(|folder| {
        std::fs::read_dir(folder)
            .ok()?
            .flatten()
            .map(|e| e.path())
            .find(|p| p != fork && named(p))
    });
    in_folder.or_else(|| {
        let mut pending = vec![root.to_owned()];
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                match entry.file_type() {
                    Ok(t) if t.is_dir() => pending.push(path),
                    Ok(t) if t.is_file() && path != fork && named(&path) => return Some(path),
                    _ => {}
                }
            }
        }
        None
    })
}

/// Apply a `compacted` line: the surface restarts with the summary as a
/// compact checkpoint, or, when the summary is empty, with the direct user
/// and assistant messages of `replacement_history`.
fn compact<S: SurfaceSink>(builder: &mut SurfaceBuilder<S>, seq: u64, compaction: Compaction) {
    builder.shadow();
    match compaction {
        Compaction::Summary(summary) => builder.checkpoint(seq, vec![summary]),
        Compaction::History(history) => {
            for said in history {
                add(builder, seq, said);
            }
        }
    }
}

/// What a `compacted` line puts in place of the conversation before it.
#[derive(Debug, Clone)]
enum Compaction {
    /// Its summary (`message`), when not blank.
    Summary(String),
    /// Else the messages of its `replacement_history`.
    History(Vec<Said>),
}

impl Compaction {
    fn of(payload: &Payload<'_>) -> Self {
        if let Some(summary) = string(payload.message).filter(|m| !m.trim().is_empty()) {
            return Compaction::Summary(summary);
        }
        Compaction::History(
            raw_elements(payload.replacement_history)
                .into_iter()
                .filter_map(|raw| Payload::parse(raw.0).as_ref().and_then(said_in_item))
                .collect(),
        )
    }
}

/// What one rollout line says, worked out without state, so that a
/// rollout's lines can be parsed on both cores and folded in order
/// ([`fold_rollout_from`]).
enum RolloutSays {
    /// A `session_meta`: the history base of a paginated fork, if it is
    /// one (an unusable one is an error, if this is the first meta).
    Meta(Result<Option<HistoryBase>, ReadError>),
    /// A response item: whether it is a message, and what it says.
    Response { message: bool, said: Option<Said> },
    /// An event, and the message it copies.
    Event(Option<Said>),
    /// A compaction.
    Compacted(Compaction),
    /// Nothing the surface keeps.
    Other,
}

impl RolloutSays {
    /// What `item`, a line of the rollout at `path`, says.
    fn of(item: Item<'_>, path: &Path) -> Self {
        match item {
            Item::Meta(p) => RolloutSays::Meta(history_base(&p, path)),
            Item::Response(p) => RolloutSays::Response {
                message: is_str(p.kind, "message"),
                said: said_in_item(&p),
            },
            Item::Event(p) => RolloutSays::Event(said_in_event(&p)),
            Item::Compacted(p) => RolloutSays::Compacted(Compaction::of(&p)),
            Item::TurnContext(_) | Item::Other => RolloutSays::Other,
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
/// means unnamed), else the first prompt (see `head_title`).
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
    let head = caches
        .head_titles
        .get(path, 0, || head_title(&record.root, path))?;
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

/// The title of an unnamed rollout, as Codex lists it: the first prompt of
/// an event copy (`user_message`, or `item_completed` `UserMessage`), else
/// the first direct user message of the response items; its first line (≤
/// 80 chars), IDE wrapper stripped, `[Image]` for a prompt made only of
/// images.
///
/// A paginated fork is listed by the first prompt of the history it
/// inherits (Codex 0.171's `thread/list` shows a fork, and a fork of a
/// fork, by the root's first prompt): its parent's title up to the fork
/// point comes first, its own turns only when that history has no prompt
/// or its parent cannot be found.
///
/// Reads forward only as far as needed: an event copy follows its response
/// item before the reply, so once a response-item prompt is found the read
/// stops at the first assistant message.
fn head_title(root: &Path, path: &Path) -> Result<Option<String>, ReadError> {
    head_title_within(root, path, None, 0)
}

/// [`head_title`] of the first `limit` bytes of `path` (all of it
/// without), `depth` forks below the rollout being titled.
fn head_title_within(
    root: &Path,
    path: &Path,
    limit: Option<u64>,
    depth: usize,
) -> Result<Option<String>, ReadError> {
    let mut from_event = None;
    let mut from_item = None;
    let mut inherited = None;
    let mut meta_seen = false;
    let mut read = 0u64;
    read_lines(path, true, |_, bytes| {
        if limit.is_some_and(|limit| read >= limit) {
            return Visit::DONE;
        }
        read += bytes.len() as u64 + 1;
        let Some((_, item)) = parse_line(bytes) else {
            return Visit::BAD;
        };
        match item {
            Item::Meta(p) if !meta_seen => {
                meta_seen = true;
                if let Ok(Some(base)) = history_base(&p, path) {
                    inherited = parent_title(root, path, &base, depth);
                    if inherited.is_some() {
                        return Visit::DONE;
                    }
                }
            }
            Item::Event(p) => match said_in_event(&p) {
                Some(Said::User(texts)) => {
                    from_event = prompt_title(&texts);
                    if from_event.is_some() {
                        return Visit::DONE;
                    }
                }
                Some(Said::Assistant(_)) if from_item.is_some() => return Visit::DONE,
                _ => {}
            },
            Item::Response(p) => match said_in_item(&p) {
                Some(Said::User(texts)) if from_item.is_none() => {
                    from_item = prompt_title(&texts);
                }
                Some(Said::Assistant(_)) if from_item.is_some() => return Visit::DONE,
                _ => {}
            },
            _ => {}
        }
        Visit::NEXT
    })?;
    Ok(inherited.or(from_event).or(from_item))
}

/// The title of the history a paginated fork inherits: its parent's,
/// read up to the fork point. `None` when the parent is missing or
/// unreadable (the fork's own turns then title it; reading its surface
/// reports the missing parent), or the chain is too deep.
fn parent_title(root: &Path, fork: &Path, base: &HistoryBase, depth: usize) -> Option<String> {
    if depth >= MAX_FORK_DEPTH {
        return None;
    }
    let parent = find_rollout(root, fork, &base.thread_id)?;
    head_title_within(root, &parent, Some(base.end_byte_offset), depth + 1)
        .ok()
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonl::loose::testing::arb_object;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn payloads_and_lines_read_as_serde_json_reads_them(
            payload in arb_object(&PAYLOAD_KEYS),
            line in arb_object(&["timestamp", "type", "payload", "id", "role"]),
        ) {
            prop_assert_eq!(Payload::parse(&payload), serde_json::from_str::<Payload<'_>>(&payload).ok(), "{}", payload);
            prop_assert_eq!(Line::parse(line.as_bytes()), serde_json::from_str::<Line<'_>>(&line).ok(), "{}", line);
        }
    }

    thread_local! {
        /// One test's caches, kept across its calls as a catalog keeps them.
        static CACHES: Caches = Caches::default();
    }

    fn read_title(record: &SessionRecord) -> Result<Option<String>, ReadError> {
        CACHES.with(|caches| super::read_title(caches, record))
    }
    use crate::kinds::foreign::testing::texts;

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
            match read_record(&self.root, path).unwrap().unwrap() {
                Head::Session(record) => record,
                Head::Review => panic!("a review sub-agent"),
            }
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
    fn ide_wrappers_and_image_markers_are_not_typed() {
        let wrapped = "# Context from my IDE setup:\n\n## Open tabs:\n- a.ts: a.ts\n\n## My request for Codex:\nfix the build\n";
        assert_eq!(request_of(wrapped.into()), "fix the build");
        let files = "# Files mentioned by the user:\n\n## shot.png: /t/shot.png\n## My request for Codex: look";
        assert_eq!(request_of(files.into()), "look");
        let quoted = "what does \"## My request for Codex:\" mean?";
        assert_eq!(request_of(quoted.into()), quoted);
        assert!(is_image_marker(r#"<image name=[Image #1] path="/a.png">"#));
        assert!(is_image_marker("</image>"));
        assert!(!is_image_marker("<image> tags\nin a question"));
        let texts = ["<image name=[Image #1]>", "</image>", "", "describe it"];
        assert_eq!(
            typed(texts.iter().map(|t| (*t).to_owned()).collect()),
            ["describe it"]
        );
    }

    #[test]
    fn titles_as_codex_lists_them() {
        let store = Store::new();
        let item_completed = |kind: &str, content: &str| {
            format!(
                r#"{{"timestamp":"t","type":"event_msg","ordinal":3,"payload":{{"type":"item_completed","item":{{"type":"{kind}","id":"i","content":{content}}}}}}}"#
            )
        };
        let image_only = store.write(
            &rollout(ID),
            &[
                meta(ID, Some("/w")),
                r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<image name=[Image #1]>"},{"type":"input_image","image_url":"data:"},{"type":"input_text","text":"</image>"}]}}"#.into(),
                item_completed("UserMessage", r#"[{"type":"local_image","path":"/a.png"},{"type":"text","text":""}]"#),
                item_completed("AgentMessage", r#"[{"type":"Text","text":"A cat."}]"#),
                item_assistant("A cat."),
            ],
        );
        let record = store.record(&image_only);
        assert_eq!(read_title(&record).unwrap().as_deref(), Some("[Image]"));
        assert_eq!(
            texts(&read_surface(&record).unwrap()),
            [(5, "assistant", "A cat.".to_owned())]
        );
        // The event copy is the title even when the response item differs.
        let b = "bbbbbbbb-2222-4333-8444-555555555555";
        let wrapped = store.write(
            &rollout(b),
            &[
                meta(b, Some("/w")),
                item_user("# Context from my IDE setup:\n## Open tabs:\n- x\n## My request for Codex:\nfrom the item"),
                event("user_message", "message", "# Context from my IDE setup:\n## My request for Codex:\nfrom the event", "t"),
                item_assistant("ok"),
            ],
        );
        assert_eq!(
            read_title(&store.record(&wrapped)).unwrap().as_deref(),
            Some("from the event")
        );
        // Events are used for the surface only without response items.
        let c = "cccccccc-2222-4333-8444-555555555555";
        let events_only = store.write(
            &rollout(c),
            &[
                meta(c, Some("/w")),
                item_completed("UserMessage", r#"[{"type":"text","text":"only events"}]"#),
                item_completed("AgentMessage", r#"[{"type":"Text","text":"seen"}]"#),
                r#"{"timestamp":"t","type":"token_usage_record","ordinal":5,"payload":{"usage":{}}}"#.into(),
            ],
        );
        assert_eq!(
            texts(&read_surface(&store.record(&events_only)).unwrap()),
            [
                (2, "user", "only events".to_owned()),
                (3, "assistant", "seen".to_owned()),
            ]
        );
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

    /// A 0.171 `session_meta` line: paginated, with `source`, and for a
    /// fork `forked_from_id` and `history_base`.
    fn meta_171(id: &str, source: &str, base: Option<(&str, u64)>) -> String {
        let fork = match base {
            Some((parent, end)) => format!(
                r#""forked_from_id":"{parent}","history_base":{{"thread_id":"{parent}","end_ordinal_exclusive":14,"end_byte_offset":{end}}},"#
            ),
            None => String::new(),
        };
        format!(
            r#"{{"timestamp":"2026-12-01T18:54:15.709Z","ordinal":0,"type":"session_meta","payload":{{"account_scoped":true,"session_id":"{id}","id":"{id}","timestamp":"2026-12-01T18:54:15.700Z","cwd":"/w","originator":"codex_exec","cli_version":"0.171.0","source":{source},"thread_source":"user","model_provider":"mock",{fork}"history_mode":"paginated"}}}}"#
        )
    }

    fn user_completed(thread: &str, text: &str) -> String {
        format!(
            r#"{{"timestamp":"2026-12-01T18:54:16.000Z","ordinal":4,"type":"event_msg","payload":{{"type":"item_completed","thread_id":"{thread}","turn_id":"t","item":{{"type":"UserMessage","id":"u","content":[{{"type":"text","text":{},"text_elements":[]}}]}}}}}}"#,
            serde_json::to_string(text).unwrap()
        )
    }

    #[test]
    fn forks_are_titled_by_the_first_prompt_of_their_inherited_history() {
        let store = Store::new();
        let root_id = "01a232f5-1ea6-7891-a820-e4a61d60910e";
        let fork_id = "01a232f5-2265-79f3-9fa4-9e7933329c85";
        let fork2_id = "01a232f5-2476-7331-852f-7810b76c6a9e";
        let root = store.write(
            &rollout(root_id),
            &[
                meta_171(root_id, r#""exec""#, None),
                item_user("<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"),
                item_user("root prompt of the chain"),
                user_completed(root_id, "root prompt of the chain"),
                item_assistant("ACK: root prompt of the chain"),
            ],
        );
        let root_len = std::fs::metadata(&root).unwrap().len();
        let fork = store.write(
            &rollout(fork_id),
            &[
                meta_171(fork_id, r#""exec""#, Some((root_id, root_len))),
                item_user("first fork own prompt"),
                user_completed(fork_id, "first fork own prompt"),
                item_assistant("ACK: first fork own prompt"),
            ],
        );
        let fork_len = std::fs::metadata(&fork).unwrap().len();
        let fork2 = store.write(
            &rollout(fork2_id),
            &[
                meta_171(fork2_id, r#""exec""#, Some((fork_id, fork_len))),
                item_user("fork of fork own prompt"),
                user_completed(fork2_id, "fork of fork own prompt"),
                item_assistant("ACK: fork of fork own prompt"),
            ],
        );
        for path in [&root, &fork, &fork2] {
            assert_eq!(
                read_title(&store.record(path)).unwrap().as_deref(),
                Some("root prompt of the chain"),
                "{}",
                path.display()
            );
        }
        // A named fork keeps its name.
        store.index(&[&format!(
            r#"{{"id":"{fork2_id}","thread_name":"Named fork","updated_at":"2026-12-01T19:00:00Z"}}"#
        )]);
        assert_eq!(
            super::read_title(&Caches::default(), &store.record(&fork2))
                .unwrap()
                .as_deref(),
            Some("Named fork")
        );
        // Without its parent, a fork is titled by its own first prompt.
        std::fs::remove_file(&root).unwrap();
        assert_eq!(
            super::read_title(&Caches::default(), &store.record(&fork))
                .unwrap()
                .as_deref(),
            Some("first fork own prompt")
        );
    }

    #[test]
    fn a_review_subagent_is_not_a_session_and_user_action_is_not_typed() {
        let store = Store::new();
        let parent_id = "01a232f5-2593-76a2-8c9b-ef039705b718";
        let review_id = "01a232f5-2607-77c0-a3cb-ef44c77b1d2f";
        let review_prompt = "Review the current code changes (staged, unstaged, and untracked files) and provide prioritized findings.";
        let parent = store.write(
            &rollout(parent_id),
            &[
                meta_171(parent_id, r#""exec""#, None),
                r#"{"timestamp":"2026-12-01T18:54:16.525Z","ordinal":1,"type":"event_msg","payload":{"type":"item_completed","thread_id":"01a232f5-2593-76a2-8c9b-ef039705b718","turn_id":"t","item":{"type":"EnteredReviewMode","id":"e","target":{"type":"uncommittedChanges"},"user_facing_hint":"current changes"}}}"#.into(),
                user_completed(review_id, review_prompt),
                item_user("<user_action>\n  <context>User initiated a review task. Here's the full review output from reviewer model. User may select one or more comments to resolve.</context>\n  <action>review</action>\n  <results>\n  ACK: Review\n  </results>\n</user_action>"),
                r#"{"timestamp":"2026-12-01T18:54:16.700Z","ordinal":7,"type":"event_msg","payload":{"type":"item_completed","thread_id":"01a232f5-2593-76a2-8c9b-ef039705b718","turn_id":"t","item":{"type":"ExitedReviewMode","id":"x","review_output":{"findings":[],"overall_correctness":"","overall_explanation":"ACK: Review","overall_confidence_score":0.0}}}}"#.into(),
                item_assistant("ACK: Review"),
            ],
        );
        let review = store.write(
            &rollout(review_id),
            &[
                meta_171(review_id, r#"{"subagent":"review"}"#, None),
                item_user(review_prompt),
                user_completed(review_id, review_prompt),
                item_assistant("ACK: Review"),
            ],
        );
        let listed =
            |path: &Path| crate::Store::list_file(&Codex, &Caches::default(), &store.root, path);
        assert!(
            matches!(listed(&review), ScanEvent::Skipped { reason, .. } if reason.contains("review sub-agent")),
            "{:?}",
            listed(&review)
        );
        let record = store.record(&parent);
        // Codex lists the parent by the review's prompt (its event copy).
        assert_eq!(
            read_title(&record).unwrap().as_deref(),
            Some(&review_prompt[..80])
        );
        assert_eq!(
            texts(&read_surface(&record).unwrap()),
            [(6, "assistant", "ACK: Review".to_owned())]
        );
        // Other sub-agent sources stay listed as before.
        let spawned = store.write(
            &rollout("dddddddd-2222-4333-8444-555555555555"),
            &[meta_171(
                "dddddddd-2222-4333-8444-555555555555",
                r#"{"subagent":{"thread_spawn":{"parent_thread_id":"p","depth":0}}}"#,
                None,
            )],
        );
        assert!(matches!(listed(&spawned), ScanEvent::Record(_)));
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
        let catalog = crate::Catalog::load(&crate::StoreRoots::new().with(KIND, &*store.root));
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
