//! Claude Code transcripts (`~/.claude/projects/<dir>/<sessionId>.jsonl`),
//! mapped onto the session model as `FORMATS.md` describes.
//!
//! # Layout
//!
//! One folder per working directory (its name is a lossy encoding of the
//! path, so `cwd` is read from the lines), one `<sessionId>.jsonl` per
//! session. Sub-agent transcripts (`agent-*.jsonl`, and anything below a
//! `subagents` folder) are not sessions of their own and are skipped. The
//! root may also be a single project folder.
//!
//! # Cost model
//!
//! Listing reads only the head of each file: lines up to the first
//! conversation line (`user`/`assistant`) that gives the cwd and first
//! timestamp, in small reads, never the whole log. The id is the file stem:
//! Claude Code names the file after the session, while the first lines of
//! a resumed, continued or teleported session (older versions) or of a fork
//! are copies that may carry another session's `sessionId`.
//!
//! # What the person typed
//!
//! Only `user` lines of the main conversation count, and of those only text
//! the person wrote: wrappers Claude Code generates (command output, caveats,
//! background-task notices, interruption notices) are left out; a slash
//! command with arguments is the request `/x args` (its expansion follows
//! as a meta line and stays out), one without arguments is not a message;
//! an image-only prompt has no text to keep and titles as `[Image]`. Every
//! other line type (`attachment`, `api-request*`, `cost-state`,
//! `last-prompt`, `queue-operation`, `mode`, …, and `system` lines other
//! than `compact_boundary`) is never conversation, even where it repeats
//! the request text.
//!
//! # Compaction
//!
//! A `compact_boundary` shadows every earlier line and the
//! `isCompactSummary` line after it is the compact checkpoint. Since
//! 2.1.332 (checked with `/compact` run offline) a boundary may list
//! `compactMetadata.preservedMessages.uuids`: earlier lines the model
//! keeps verbatim after the summary (the summary's own text says so).
//! Their messages follow the checkpoint, in their order, at its seq
//! (`CompactionFold`); the reader keeps the user and assistant messages
//! since the last compaction to have them at hand.
//!
//! Titles follow the precedence of `FORMATS.md`: the latest `custom-title`,
//! the latest `ai-title`, a `summary` whose `leafUuid` is one of the
//! session's uuids (summaries collected across the project folder), the
//! first genuine prompt, the slash command name. They are found with:
//!
//! 1. one backward scan of the session file (`TailFacts`) that stops at
//!    the last `custom-title` (the top rule, so nothing older matters) and
//!    otherwise also collects the latest `ai-title` and the file's own
//!    summaries; cached per file version;
//! 2. the folder's summaries (`leafUuid` → summary), gathered from its
//!    files newest first (reusing step 1 per file) and only from files
//!    modified since the session began: a summary naming one of the
//!    session's uuids was written after the session started, so older
//!    files cannot hold one, and titling the newest sessions of a large
//!    folder reads only the newest files. The folder's file list is cached
//!    and revalidated by the folder's modification time (files created or
//!    removed); summary lines appended to an existing sibling while a
//!    long-lived picker runs are thus picked up at the next folder change,
//!    while a one-shot command always sees the current state;
//! 3. only when those summaries are not empty and step 1 gave no title:
//!    a backward scan of the session for the last line carrying a uuid
//!    they name (a byte search for `"uuid":"`, no JSON parse), cached per
//!    file version and folder listing. When several summaries name one
//!    leaf, the most recently modified file's last one wins;
//! 4. a forward head read for the first genuine prompt, or the first slash
//!    command name when there is none; cached per file version.
//!
//! Every file is thus read at most a bounded number of times per version,
//! whatever the number of sessions in its folder: listing a folder is
//! linear, not quadratic, and the first screen of a listing reads little
//! more than the sessions it shows.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use memchr::memmem;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::index::journal::{Folded, Journal, ResumePoint};
use crate::index::title::TitleInputs;
use crate::jsonl::lines;
use crate::jsonl::loose::{
    is_str, is_true, non_empty, raw_elements, scan_fields, scan_or_parse, scan_or_parse_line,
    string, RawText,
};
use crate::kinds::foreign::{
    self, read_lines, title_from_text, FileCache, LineSays, SurfaceBuilder, Visit,
};
use crate::lock;
use crate::model::{SessionRecord, StoreKind, Surface, SurfaceSink};
use crate::{env_or_home, has_suffix, Caches, Env, ReadError, ScanEvent, Store};
use session_ref_core::time::Instant;

/// Text-block openings that mark generated wrappers, not typed prompts:
/// those of `FORMATS.md` (`<task-notification>` is the notice of a finished
/// background task, written as a plain `user` line), and the notice Claude
/// Code writes as a user text when the person interrupts a reply
/// (`[Request interrupted by user]`, `… by user for tool use]`), which no
/// one typed, like Codex's `<turn_aborted>`; and the editor context the
/// VS Code extension puts before the typed text, each in its own text
/// block of the same line (`<ide_opened_file>`, `<ide_selection>`), which
/// Claude Code's own session list leaves out of the prompt too.
const WRAPPERS: &[&str] = &[
    "<command-name>",
    "<command-message>",
    "<local-command-stdout>",
    "<local-command-caveat>",
    "<bash-input>",
    "<bash-stdout>",
    "<task-notification>",
    "Caveat: The messages below",
    "[Request interrupted by user",
    "<ide_opened_file>",
    "<ide_selection>",
];

/// The `rowSource` of a `user` line written at the person's own terminal.
/// Claude Code 2.1.332 started stamping every `user` line with its author:
/// `local` (typed here, or the local command wrappers that the rules above
/// sort out), `harness` (notices and reminders Claude Code writes itself,
/// such as task notifications, not always marked `isMeta`), `hook` (a
/// hook's text or rewritten messages) and `recorded` (messages relayed
/// from elsewhere: teammates, another machine). Only `local` lines, and
/// lines of older versions without the field, can hold a typed prompt.
const LOCAL_ROW: &str = "local";

/// The `origin.kind` of a `user` line a person wrote. Claude Code stamps
/// messages that did not come from the prompt box with an `origin`
/// (`task-notification`, `coordinator`, `peer`, `channel`, `plugin`,
/// `auto-continuation`, `voice-call`, …), and its own rule for "the person
/// wrote this" (2.1.332) accepts a `user` line only when `origin` is absent
/// or of this kind. Lines of such origins often carry no `rowSource`, so
/// the rule above alone would take them for typed prompts.
const HUMAN_ORIGIN: &str = "human";

/// The prompt Claude Code sends to warm up a sub-agent.
const WARMUP: &str = "Warmup";

/// The title of a prompt made only of images (Claude Code's own list shows
/// the same).
const IMAGE_TITLE: &str = "[Image]";

/// After the first conversation line, how many more lines listing reads
/// looking for a missing cwd or timestamp before giving up on them.
const HEAD_EXTRA_LINES: u64 = 64;

/// The keys of [`Line`]'s fields, in their order.
const LINE_KEYS: [&str; 16] = [
    "type",
    "subtype",
    "cwd",
    "timestamp",
    "isSidechain",
    "isMeta",
    "isCompactSummary",
    "rowSource",
    "origin",
    "message",
    "customTitle",
    "aiTitle",
    "summary",
    "leafUuid",
    "uuid",
    "compactMetadata",
];

/// The fields of a transcript line the mapping uses; all optional and
/// interpreted leniently, so a line of an unknown shape is simply inert.
#[derive(Deserialize, Default, Debug, PartialEq)]
struct Line<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<RawText<'a>>,
    #[serde(borrow)]
    subtype: Option<RawText<'a>>,
    #[serde(borrow)]
    cwd: Option<RawText<'a>>,
    #[serde(borrow)]
    timestamp: Option<RawText<'a>>,
    #[serde(rename = "isSidechain", borrow)]
    is_sidechain: Option<RawText<'a>>,
    #[serde(rename = "isMeta", borrow)]
    is_meta: Option<RawText<'a>>,
    #[serde(rename = "isCompactSummary", borrow)]
    is_compact_summary: Option<RawText<'a>>,
    #[serde(rename = "rowSource", borrow)]
    row_source: Option<RawText<'a>>,
    #[serde(borrow)]
    origin: Option<RawText<'a>>,
    #[serde(borrow)]
    message: Option<RawText<'a>>,
    #[serde(rename = "customTitle", borrow)]
    custom_title: Option<RawText<'a>>,
    #[serde(rename = "aiTitle", borrow)]
    ai_title: Option<RawText<'a>>,
    #[serde(borrow)]
    summary: Option<RawText<'a>>,
    #[serde(rename = "leafUuid", borrow)]
    leaf_uuid: Option<RawText<'a>>,
    #[serde(borrow)]
    uuid: Option<RawText<'a>>,
    #[serde(rename = "compactMetadata", borrow)]
    compact_metadata: Option<RawText<'a>>,
}

impl<'a> Line<'a> {
    /// The fields of a line; `None` when it is not a JSON object of them.
    /// A line the envelope scanner vouches for is read by it (each value's
    /// text taken as it stands, as `serde_json` takes a `RawValue`), else
    /// by `serde_json`: the same fields either way (a property test below).
    fn parse(bytes: &'a [u8]) -> Option<Line<'a>> {
        scan_or_parse_line(bytes, Line::scan)
    }

    /// [`Line::parse`] by the envelope scanner ([`scan_fields`]); `None`
    /// when in doubt.
    fn scan(text: &'a str) -> Option<Line<'a>> {
        let [kind, subtype, cwd, timestamp, is_sidechain, is_meta, is_compact_summary, row_source, origin, message, custom_title, ai_title, summary, leaf_uuid, uuid, compact_metadata] =
            scan_fields(text, LINE_KEYS)?;
        Some(Line {
            kind,
            subtype,
            cwd,
            timestamp,
            is_sidechain,
            is_meta,
            is_compact_summary,
            row_source,
            origin,
            message,
            custom_title,
            ai_title,
            summary,
            leaf_uuid,
            uuid,
            compact_metadata,
        })
    }

    fn message(&self) -> Message<'a> {
        self.message
            .and_then(|m| Message::parse(m.0))
            .unwrap_or_default()
    }

    /// A `user` line of the main conversation that is neither meta nor a
    /// compaction summary, nor written by anyone but the person: a
    /// candidate direct message.
    fn is_plain_user(&self) -> bool {
        is_str(self.kind, "user")
            && !is_true(self.is_sidechain)
            && !is_true(self.is_meta)
            && !is_true(self.is_compact_summary)
            && self
                .row_source
                .is_none_or(|source| is_str(Some(source), LOCAL_ROW))
            && self.has_human_origin()
    }

    /// `origin` is absent (or `null`), or its `kind` is [`HUMAN_ORIGIN`].
    fn has_human_origin(&self) -> bool {
        #[derive(Deserialize)]
        struct Origin<'a> {
            #[serde(borrow)]
            kind: Option<&'a RawValue>,
        }
        match self.origin {
            None => true,
            Some(raw) if raw.0 == "null" => true,
            Some(raw) => serde_json::from_str::<Origin>(raw.0)
                .is_ok_and(|origin| is_str(origin.kind, HUMAN_ORIGIN)),
        }
    }
}

/// The fields of `message` the mapping uses.
#[derive(Deserialize, Default, Debug, PartialEq)]
struct Message<'a> {
    #[serde(borrow)]
    id: Option<RawText<'a>>,
    #[serde(borrow)]
    model: Option<RawText<'a>>,
    #[serde(borrow)]
    content: Option<RawText<'a>>,
}

impl<'a> Message<'a> {
    /// The fields of a `message` value: by the envelope scanner, else by
    /// `serde_json` (see [`Line::parse`]).
    fn parse(text: &'a str) -> Option<Message<'a>> {
        scan_or_parse(text, |text| {
            let [id, model, content] = scan_fields(text, ["id", "model", "content"])?;
            Some(Message { id, model, content })
        })
    }
}

/// One content block: only `type` and `text` matter.
#[derive(Deserialize, Debug, PartialEq)]
struct ContentBlock<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<RawText<'a>>,
    #[serde(borrow)]
    text: Option<RawText<'a>>,
}

impl<'a> ContentBlock<'a> {
    /// A block: by the envelope scanner, else by `serde_json`.
    fn parse(text: &'a str) -> Option<ContentBlock<'a>> {
        scan_or_parse(text, |text| {
            let [kind, text] = scan_fields(text, ["type", "text"])?;
            Some(ContentBlock { kind, text })
        })
    }
}

/// The texts of `message.content`: the string itself, or the `text` of each
/// `text` block (tool results, thinking, images and the rest are left out).
fn content_texts(content: Option<RawText<'_>>) -> Vec<String> {
    content_parts(content).texts
}

/// What `message.content` holds, as far as the mapping cares.
#[derive(Debug, Default)]
struct ContentParts {
    /// The string itself, or the `text` of each `text` block.
    texts: Vec<String>,
    /// Some block is an `image`.
    image: bool,
    /// Some block is a `tool_result`.
    tool_result: bool,
}

fn content_parts(content: Option<RawText<'_>>) -> ContentParts {
    let mut parts = ContentParts::default();
    let Some(raw) = content else {
        return parts;
    };
    if raw.0.starts_with('"') {
        parts.texts.extend(string(Some(raw)));
        return parts;
    }
    let blocks = raw_elements(Some(raw))
        .into_iter()
        .filter_map(|block| ContentBlock::parse(block.0));
    for block in blocks {
        if is_str(block.kind, "text") {
            parts.texts.extend(string(block.text));
        } else if is_str(block.kind, "image") {
            parts.image = true;
        } else if is_str(block.kind, "tool_result") {
            parts.tool_result = true;
        }
    }
    parts
}

/// Whether a user text block is something the person typed.
fn is_genuine(text: &str) -> bool {
    !foreign::starts_with_any(text, WRAPPERS) && text.trim() != WARMUP
}

/// The text between `<tag>` and `</tag>`, trimmed.
fn tag_text<'t>(text: &'t str, open: &str, close: &str) -> Option<&'t str> {
    let start = text.find(open)? + open.len();
    let len = text[start..].find(close)?;
    Some(text[start..start + len].trim())
}

/// The slash command a wrapper names (`<command-name>/init</command-name>`).
fn command_name(text: &str) -> Option<String> {
    let name = tag_text(text, "<command-name>", "</command-name>")?;
    (!name.is_empty()).then(|| name.to_owned())
}

/// A slash command typed with arguments, as the person typed it (`/x
/// args`); `None` for other texts and for commands without arguments. Only
/// a text that opens with the command wrapper counts, so a prompt quoting
/// the tags is not mistaken for one.
fn command_request(text: &str) -> Option<String> {
    if !foreign::starts_with_any(text, &["<command-name>", "<command-message>"]) {
        return None;
    }
    let name = command_name(text)?;
    let args = tag_text(text, "<command-args>", "</command-args>")?;
    (!args.is_empty()).then(|| format!("{name} {args}"))
}

/// What a `user` line of the main conversation (not meta, side-chain or
/// compaction summary) says of the person.
#[derive(Debug, PartialEq, Eq)]
enum Prompt {
    /// A direct user message: the typed texts (a slash command with
    /// arguments as `/x args`).
    Typed(Vec<String>),
    /// A prompt made only of images: no text to keep.
    ImagesOnly,
    /// A slash command without arguments: not a message, a title of last
    /// resort.
    Command(String),
    /// Nothing typed: tool results, generated wrappers and notices.
    Nothing,
}

impl Prompt {
    fn of(content: Option<RawText<'_>>) -> Prompt {
        let parts = content_parts(content);
        let mut typed = Vec::new();
        let mut command = None;
        for text in parts.texts {
            if let Some(request) = command_request(&text) {
                typed.push(request);
            } else if is_genuine(&text) {
                typed.push(text);
            } else if command.is_none() {
                command = command_name(&text);
            }
        }
        if !typed.is_empty() {
            Prompt::Typed(typed)
        } else if let Some(name) = command {
            Prompt::Command(name)
        } else if parts.image && !parts.tool_result {
            Prompt::ImagesOnly
        } else {
            Prompt::Nothing
        }
    }
}

/// Whether a file is a sub-agent transcript rather than a session.
fn is_subagent(root: &Path, path: &Path) -> bool {
    let named = path
        .file_name()
        .is_some_and(|n| n.as_encoded_bytes().starts_with(b"agent-"));
    let nested = path
        .strip_prefix(root)
        .ok()
        .and_then(Path::parent)
        .is_some_and(|dir| dir.components().any(|c| c.as_os_str() == "subagents"));
    named || nested
}

/// The Claude Code store.
pub struct Claude;

/// The Claude Code store's kind.
pub const KIND: StoreKind = StoreKind::new(&Claude);

impl Store for Claude {
    fn name(&self) -> &'static str {
        "claude"
    }

    fn flag(&self) -> &'static str {
        "claude"
    }

    fn origin(&self) -> &'static str {
        "Claude Code"
    }

    fn root_help(&self) -> &'static str {
        "Claude Code projects directory"
    }

    fn default_roots(&self, env: Env<'_>, home: Option<&Path>) -> Vec<PathBuf> {
        env_or_home(
            env,
            home,
            "CLAUDE_CONFIG_DIR",
            &["projects"],
            &[".claude", "projects"],
        )
    }

    fn wants(&self, path: &Path) -> bool {
        has_suffix(path, ".jsonl")
    }

    /// A session from the head of its transcript, reading only the first
    /// lines; sub-agent transcripts are skipped.
    fn list_file(&self, _: &Caches, root: &Arc<Path>, path: &Path) -> ScanEvent {
        if is_subagent(root, path) {
            return ScanEvent::Skipped {
                path: path.to_owned(),
                reason: "Claude Code sub-agent transcript".into(),
            };
        }
        match read_record(root, path) {
            Ok(Some(record)) => ScanEvent::Record(record),
            Ok(None) => ScanEvent::Skipped {
                path: path.to_owned(),
                reason: "no Claude Code conversation line".into(),
            },
            Err(e) => ScanEvent::Unreadable {
                path: path.to_owned(),
                reason: e.message,
            },
        }
    }

    fn title_inputs(&self, _: &Caches, record: &SessionRecord) -> Option<TitleInputs> {
        // Summaries naming this session can sit in any file of its folder.
        Some(TitleInputs::Folder(record.path.parent()?.to_owned()))
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

    /// The `timestamp` of the last line that has one (a backward scan),
    /// else the file's modification time.
    fn last_activity(&self, _: &Caches, record: &SessionRecord) -> Option<i64> {
        let last = foreign::last_line_where(&record.path, b"\"timestamp\"", |bytes| {
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
        fold_surface(record, sink).map(|(_, last)| last)
    }

    fn fold_resumable(
        &self,
        caches: &Caches,
        record: &SessionRecord,
        len: u64,
        from: Option<&ResumePoint>,
    ) -> Result<Folded, ReadError> {
        if foreign::is_zstd(&record.path) {
            let mut recorded = Journal::new(0);
            self.fold_surface(caches, record, &mut recorded)?;
            return Ok(Folded {
                ops: recorded.into_ops(),
                ..Folded::default()
            });
        }
        fold_resumable(record, len, from)
    }
}

/// What a resumed fold of a transcript needs besides the lines before it:
/// the merge keys of the assistant messages since the last compaction.
#[derive(Debug, Default, Serialize, Deserialize)]
struct FoldState {
    merge_keys: Vec<(String, u64)>,
}

/// [`Store::fold_resumable`] for a plain transcript: the lines after
/// `from` (all of them without it) folded as [`read_surface`] folds them;
/// a resume point whenever the last line read was complete.
fn fold_resumable(
    record: &SessionRecord,
    len: u64,
    from: Option<&ResumePoint>,
) -> Result<Folded, ReadError> {
    let start = from.and_then(|point| {
        let state: FoldState = crate::index::sealed::decode(&point.state)?;
        Some((point.offset, point.lines, state))
    });
    let continued = start.is_some();
    let (offset, lines, state) = start.unwrap_or_default();
    let mut fold = CompactionFold::new(SurfaceBuilder::resuming(Journal::new(0), state.merge_keys));
    let span = foreign::fold_lines_span(
        &record.path,
        offset,
        lines,
        Some(len),
        line_says,
        |seq, said| {
            fold.apply(seq, said);
            Ok(())
        },
    )?;
    if continued && fold.missed {
        // A compaction preserved lines read before `from`, whose text this
        // fold does not have: read the whole log instead.
        return fold_resumable(record, len, None);
    }
    // Lines a boundary preserved wait for its checkpoint, which a resumed
    // fold would not know of: the next fold reads the whole log.
    let waiting = fold.pending.is_some();
    let builder = fold.finish();
    let resume = (span.clean && !waiting).then(|| {
        let state = FoldState {
            merge_keys: builder.merge_keys(),
        };
        ResumePoint {
            offset: span.end,
            lines: span.lines,
            state: crate::index::sealed::encode(&state).unwrap_or_default(),
        }
    });
    Ok(Folded {
        ops: builder.into_sink().into_ops(),
        chosen: 0,
        continued,
        resume,
    })
}

/// The record of one transcript from its head: id = the file stem (Claude
/// Code names the file after the session; see the module docs), cwd =
/// first non-empty `cwd`, createdAt = first `timestamp` (lines are appended
/// in time order, so it is the earliest). `None` when the file has no
/// `user` or `assistant` line (e.g. a file of summaries only).
fn read_record(root: &Arc<Path>, path: &Path) -> Result<Option<SessionRecord>, ReadError> {
    let mut cwd = None;
    let mut timestamp = None;
    let mut conversation_at = None;
    read_lines(path, true, |number, bytes| {
        let Some(line) = Line::parse(bytes) else {
            return Visit::BAD;
        };
        if cwd.is_none() {
            cwd = non_empty(line.cwd);
        }
        if timestamp.is_none() {
            timestamp = string(line.timestamp);
        }
        if conversation_at.is_none()
            && (is_str(line.kind, "user") || is_str(line.kind, "assistant"))
        {
            conversation_at = Some(number);
        }
        let done = conversation_at.is_some_and(|at| {
            (cwd.is_some() && timestamp.is_some()) || number - at >= HEAD_EXTRA_LINES
        });
        Visit {
            parsed: true,
            stop: done,
        }
    })?;
    if conversation_at.is_none() {
        return Ok(None);
    }
    let id = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(Some(SessionRecord::new(
        KIND,
        root.clone(),
        path.to_owned(),
        id,
        cwd,
        timestamp.unwrap_or_default(),
    )))
}

/// Read and fold a whole transcript.
///
/// Direct user messages are `user` lines that are not side-chain, meta or
/// compaction summaries, keeping what the person typed (`Prompt`). Assistant text
/// is merged per `message.id`; `<synthetic>` replies are skipped. A
/// `compact_boundary` shadows everything before it; an `isCompactSummary`
/// line becomes the compact checkpoint. Other lines are inert.
pub fn read_surface(record: &SessionRecord) -> Result<Surface, ReadError> {
    let (builder, last) = fold(record, SurfaceBuilder::default())?;
    Ok(builder.finish(last))
}

/// [`read_surface`] into any sink: the sink and the seq of the last
/// complete line.
pub fn fold_surface<S: SurfaceSink>(
    record: &SessionRecord,
    sink: S,
) -> Result<(S, u64), ReadError> {
    let (builder, last) = fold(record, SurfaceBuilder::new(sink))?;
    Ok((builder.into_sink(), last))
}

fn fold<S: SurfaceSink>(
    record: &SessionRecord,
    builder: SurfaceBuilder<S>,
) -> Result<(SurfaceBuilder<S>, u64), ReadError> {
    let mut fold = CompactionFold::new(builder);
    let last = foreign::fold_all_lines(&record.path, line_says, |seq, said| fold.apply(seq, said))?;
    Ok((fold.finish(), last))
}

/// What a transcript line says to the surface, with what a later
/// compaction needs of it; `None` when it does not parse.
fn line_says(bytes: &[u8]) -> Option<Said> {
    let line = Line::parse(bytes)?;
    let says = says(&line);
    Some(match says {
        LineSays::Shadow => Said {
            uuid: None,
            preserved: preserved_uuids(line.compact_metadata),
            says,
        },
        LineSays::User(_) | LineSays::Assistant { .. } => Said {
            uuid: string(line.uuid),
            preserved: Vec::new(),
            says,
        },
        _ => Said {
            uuid: None,
            preserved: Vec::new(),
            says,
        },
    })
}

/// What one transcript line says ([`LineSays`]), with its `uuid` when it
/// is a message a later compaction may keep, and for a `compact_boundary`
/// the uuids it keeps.
#[derive(Debug)]
struct Said {
    uuid: Option<String>,
    preserved: Vec<String>,
    says: LineSays,
}

/// `compactMetadata.preservedMessages.uuids` of a `compact_boundary`
/// (Claude Code 2.1.332): the earlier lines the model still sees verbatim
/// after the summary.
fn preserved_uuids(metadata: Option<RawText<'_>>) -> Vec<String> {
    #[derive(Deserialize)]
    struct Metadata<'a> {
        #[serde(rename = "preservedMessages", borrow)]
        preserved: Option<Preserved<'a>>,
    }
    #[derive(Deserialize)]
    struct Preserved<'a> {
        #[serde(borrow)]
        uuids: Option<Vec<&'a RawValue>>,
    }
    let Some(raw) = metadata.filter(|raw| raw.0.starts_with('{')) else {
        return Vec::new();
    };
    serde_json::from_str::<Metadata<'_>>(raw.0)
        .ok()
        .and_then(|m| m.preserved?.uuids)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|uuid| string(Some(uuid)))
        .collect()
}

/// A [`SurfaceBuilder`] that also carries messages a `compact_boundary`
/// preserves past its checkpoint: the user and assistant lines since the
/// last compaction are kept by uuid; a boundary naming some of them puts
/// them, in their order, right after the compact checkpoint that follows
/// it (at the checkpoint's seq, the lines of one assistant message merged),
/// and shadows the rest as any boundary does.
struct CompactionFold<S> {
    builder: SurfaceBuilder<S>,
    /// User and assistant lines since the last compaction, by uuid.
    since_compaction: HashMap<String, (u64, LineSays)>,
    /// Lines a boundary preserved, waiting for its checkpoint, with the
    /// boundary's seq.
    pending: Option<(u64, Vec<(String, LineSays)>)>,
    /// A boundary preserved a uuid this fold did not see (it lies before
    /// where a resumed fold started).
    missed: bool,
}

impl<S: SurfaceSink> CompactionFold<S> {
    fn new(builder: SurfaceBuilder<S>) -> Self {
        CompactionFold {
            builder,
            since_compaction: HashMap::new(),
            pending: None,
            missed: false,
        }
    }

    fn apply(&mut self, seq: u64, said: Said) {
        match said.says {
            LineSays::Shadow => {
                let mut kept: Vec<(u64, String, LineSays)> = Vec::new();
                for uuid in said.preserved {
                    match self.since_compaction.get(&uuid) {
                        Some((at, says)) if !kept.iter().any(|(_, u, _)| *u == uuid) => {
                            kept.push((*at, uuid, says.clone()));
                        }
                        Some(_) => {}
                        None => self.missed = true,
                    }
                }
                kept.sort_by_key(|(at, ..)| *at);
                self.since_compaction.clear();
                self.pending = None;
                self.builder.shadow();
                if !kept.is_empty() {
                    let kept = kept.into_iter().map(|(_, u, says)| (u, says)).collect();
                    self.pending = Some((seq, kept));
                }
            }
            LineSays::Checkpoint(texts) => {
                self.builder.checkpoint(seq, texts);
                self.flush(seq);
            }
            says => {
                if let Some((boundary, _)) = self.pending {
                    // No checkpoint followed the boundary: the kept lines
                    // start the surface after it.
                    self.flush(boundary);
                }
                if let Some(uuid) = said.uuid {
                    self.since_compaction.insert(uuid, (seq, says.clone()));
                }
                self.builder.apply(seq, says);
            }
        }
    }

    /// Push the preserved lines at `seq`, one event per message (their
    /// merge keys are not reopened, so no later line extends them), and
    /// keep them for a later boundary that preserves them again.
    fn flush(&mut self, seq: u64) {
        let Some((_, kept)) = self.pending.take() else {
            return;
        };
        let mut merged: Vec<(Option<String>, LineSays)> = Vec::new();
        for (uuid, says) in kept {
            self.since_compaction.insert(uuid, (seq, says.clone()));
            if let LineSays::Assistant {
                key: Some(key),
                texts,
            } = &says
            {
                let same = merged.iter_mut().find_map(|(k, m)| match m {
                    LineSays::Assistant { texts: all, .. } if k.as_deref() == Some(key) => {
                        Some(all)
                    }
                    _ => None,
                });
                if let Some(all) = same {
                    all.extend(texts.iter().cloned());
                    continue;
                }
                merged.push((Some(key.clone()), says));
                continue;
            }
            merged.push((None, says));
        }
        for (_, says) in merged {
            match says {
                LineSays::Assistant { texts, .. } => self.builder.assistant(seq, None, texts),
                says => self.builder.apply(seq, says),
            }
        }
    }

    /// The builder, once the log is read (kept lines whose boundary had
    /// no checkpoint after it are pushed at the boundary).
    fn finish(mut self) -> SurfaceBuilder<S> {
        if let Some((boundary, _)) = self.pending {
            self.flush(boundary);
        }
        self.builder
    }
}

/// What a parsed transcript line says to the surface.
fn says(line: &Line<'_>) -> LineSays {
    if is_true(line.is_sidechain) {
        return LineSays::Nothing;
    }
    if is_str(line.kind, "user") {
        if is_true(line.is_compact_summary) {
            let texts = content_texts(line.message().content);
            if !texts.is_empty() {
                return LineSays::Checkpoint(texts);
            }
        } else if line.is_plain_user() {
            if let Prompt::Typed(typed) = Prompt::of(line.message().content) {
                return LineSays::User(typed);
            }
        }
    } else if is_str(line.kind, "assistant") {
        let message = line.message();
        if is_str(message.model, "<synthetic>") {
            return LineSays::Nothing;
        }
        return LineSays::Assistant {
            key: string(message.id),
            texts: content_texts(message.content),
        };
    } else if is_str(line.kind, "system") && is_str(line.subtype, "compact_boundary") {
        return LineSays::Shadow;
    }
    LineSays::Nothing
}

/// The session's title, by the precedence of the module docs.
pub fn read_title(caches: &Caches, record: &SessionRecord) -> Result<Option<String>, ReadError> {
    let caches = caches.get::<ClaudeCaches>();
    let path = &record.path;
    let tail = caches.tails.get(path, 0, || tail_facts(path))?;
    if let Some(title) = tail.custom_title.as_ref().or(tail.ai_title.as_ref()) {
        return Ok(Some(title.clone()));
    }
    if let Some(folder) = path.parent() {
        let (generation, by_leaf) = folder_summaries(&caches, folder, record.created);
        if !by_leaf.is_empty() {
            let found = caches
                .summary_titles
                .get(path, generation, || summary_title(path, &by_leaf))?;
            if let Some(title) = found.as_ref() {
                return Ok(Some(title.clone()));
            }
        }
    }
    let head = caches.head_titles.get(path, 0, || head_title(path))?;
    Ok((*head).clone())
}

/// What one backward scan of a transcript finds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct TailFacts {
    /// The latest non-blank `custom-title`.
    custom_title: Option<String>,
    /// The latest non-blank `ai-title` after the latest custom title (all
    /// of the file when there is none).
    ai_title: Option<String>,
    /// `(leafUuid, summary)` of the file's summary lines in file order;
    /// `None` when the scan stopped early at a custom title.
    summaries: Option<Vec<(String, String)>>,
}

/// What titling remembers between calls, owned by the catalog's [`Caches`].
#[derive(Default)]
struct ClaudeCaches {
    /// Backward scans of transcripts.
    tails: FileCache<TailFacts>,
    /// Summary lines of transcripts whose backward scan stopped early.
    summaries: FileCache<Vec<(String, String)>>,
    /// Titles from the folder's summaries, per folder generation.
    summary_titles: FileCache<Option<String>>,
    /// Titles from the first prompt.
    head_titles: FileCache<Option<String>>,
    /// Project folders' summaries, by folder.
    folders: Mutex<HashMap<PathBuf, FolderSlot>>,
    /// The next folder generation.
    generation: AtomicU64,
}

/// A summary line's `(leafUuid, summary)`, when it has both and the summary
/// is not blank.
fn summary_entry(line: &Line<'_>) -> Option<(String, String)> {
    if !is_str(line.kind, "summary") {
        return None;
    }
    let text = string(line.summary).filter(|s| !s.trim().is_empty())?;
    Some((string(line.leaf_uuid)?, text))
}

/// Scan a transcript from its end for titles and summaries. Claude Code
/// writes these line types with literal keys, so lines without the words
/// are passed over without parsing.
fn tail_facts(path: &Path) -> Result<TailFacts, ReadError> {
    let title_word = memmem::Finder::new(b"-title");
    let summary_word = memmem::Finder::new(b"summary");
    let mut facts = TailFacts::default();
    let mut summaries = Vec::new();
    let custom = lines::scan_backward(path, |bytes| {
        let maybe_title = title_word.find(bytes).is_some();
        if !maybe_title && summary_word.find(bytes).is_none() {
            return None;
        }
        let line = Line::parse(bytes)?;
        if is_str(line.kind, "custom-title") {
            return string(line.custom_title).filter(|t| !t.trim().is_empty());
        }
        if facts.ai_title.is_none() && is_str(line.kind, "ai-title") {
            facts.ai_title = string(line.ai_title).filter(|t| !t.trim().is_empty());
        }
        summaries.extend(summary_entry(&line));
        None
    })
    .map_err(|e| ReadError::io(path, &e))?;
    if custom.is_some() {
        facts.custom_title = custom;
    } else {
        summaries.reverse();
        facts.summaries = Some(summaries);
    }
    Ok(facts)
}

/// Every summary line of a file, in order.
fn summaries_of(path: &Path) -> Result<Vec<(String, String)>, ReadError> {
    let word = memmem::Finder::new(b"summary");
    let mut found = Vec::new();
    read_lines(path, false, |_, bytes| {
        if word.find(bytes).is_some() {
            if let Some(entry) = Line::parse(bytes).as_ref().and_then(summary_entry) {
                found.push(entry);
            }
        }
        Visit::NEXT
    })?;
    Ok(found)
}

/// How long before a session's first timestamp a sibling may have been
/// last modified and still be read for summaries naming the session. A
/// summary of a session is written after the session began, so older files
/// cannot hold one; the margin absorbs clock differences.
const SUMMARY_MARGIN_NANOS: i128 = 24 * 3600 * 1_000_000_000;

/// The summaries of one project folder, loaded newest file first and only
/// as far back as the titles asked for so far need.
struct Folder {
    /// Distinguishes successive listings of the folder, for the caches that
    /// depend on its summaries.
    generation: u64,
    /// The folder's transcripts with their modification times (Unix
    /// nanoseconds; unknown counts as newest), newest first.
    files: Vec<(PathBuf, Option<i128>)>,
    /// How many of `files` are merged into `by_leaf`.
    loaded: usize,
    /// `leafUuid` → summary: the most recently modified file wins, and
    /// within one file its last summary of the leaf.
    by_leaf: Arc<HashMap<String, String>>,
}

type FolderSlot = (Option<SystemTime>, Arc<Mutex<Folder>>);

fn unix_nanos(time: SystemTime) -> i128 {
    match time.duration_since(SystemTime::UNIX_EPOCH) {
        Ok(after) => after.as_nanos() as i128,
        Err(before) => -(before.duration().as_nanos() as i128),
    }
}

/// The folder's summaries, complete for every file modified since `since`
/// (minus [`SUMMARY_MARGIN_NANOS`]; all files when `since` is unknown),
/// with the folder's generation. The listing of the folder is cached while
/// its modification time is unchanged (files created or removed). Files
/// that cannot be read contribute nothing: a vanished sibling must not fail
/// another session's title.
fn folder_summaries(
    caches: &ClaudeCaches,
    folder: &Path,
    since: Option<Instant>,
) -> (u64, Arc<HashMap<String, String>>) {
    let modified = std::fs::metadata(folder).and_then(|m| m.modified()).ok();
    let slot = {
        let mut folders = lock(&caches.folders);
        match folders.get(folder) {
            Some((known, slot)) if *known == modified && modified.is_some() => slot.clone(),
            _ => {
                let slot = Arc::new(Mutex::new(Folder {
                    generation: caches.generation.fetch_add(1, Ordering::Relaxed) + 1,
                    files: list_folder(folder),
                    loaded: 0,
                    by_leaf: Arc::default(),
                }));
                folders.insert(folder.to_owned(), (modified, slot.clone()));
                slot
            }
        }
    };
    // The folder's lock is never held across the parallel read below (see
    // "Locks" in the store module): a thread waiting in rayon's join may run
    // another title of this folder, which takes this lock on that thread.
    let cutoff = since.map(|t| t.0 - SUMMARY_MARGIN_NANOS);
    let (start, needed, batch) = {
        let state = lock(&slot);
        let needed = match cutoff {
            Some(cutoff) => state
                .files
                .iter()
                .position(|(_, m)| m.is_some_and(|m| m < cutoff))
                .unwrap_or(state.files.len()),
            None => state.files.len(),
        };
        if needed <= state.loaded {
            return (state.generation, state.by_leaf.clone());
        }
        let batch: Vec<PathBuf> = state.files[state.loaded..needed]
            .iter()
            .map(|(path, _)| path.clone())
            .collect();
        (state.loaded, needed, batch)
    };
    let found = summaries_of_files(caches, &batch);
    let mut state = lock(&slot);
    // Another thread may have loaded part or all of the batch meanwhile;
    // files are merged once each, in order (newest first wins).
    if needed > state.loaded {
        let skip = state.loaded - start;
        let by_leaf = Arc::make_mut(&mut state.by_leaf);
        for summaries in found.into_iter().skip(skip) {
            for (leaf, summary) in summaries.into_iter().rev() {
                by_leaf.entry(leaf).or_insert(summary);
            }
        }
        state.loaded = needed;
    }
    (state.generation, state.by_leaf.clone())
}

/// The folder's `*.jsonl` files, newest first (ties by path).
fn list_folder(folder: &Path) -> Vec<(PathBuf, Option<i128>)> {
    let mut files: Vec<(PathBuf, Option<i128>)> = std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|t| t.is_file()))
        .filter(|entry| has_suffix(&entry.path(), ".jsonl"))
        .map(|entry| {
            let modified = entry.metadata().and_then(|m| m.modified()).ok();
            (entry.path(), modified.map(unix_nanos))
        })
        .collect();
    files.sort_by(|(a, x), (b, y)| {
        let newest = |m: &Option<i128>| std::cmp::Reverse(m.unwrap_or(i128::MAX));
        newest(x).cmp(&newest(y)).then_with(|| {
            a.as_os_str()
                .as_encoded_bytes()
                .cmp(b.as_os_str().as_encoded_bytes())
        })
    });
    files
}

/// The summary lines of each file, in file order, read on a few threads
/// (reusing each file's cached backward scan when it went to the start).
fn summaries_of_files(caches: &ClaudeCaches, files: &[PathBuf]) -> Vec<Vec<(String, String)>> {
    files
        .par_iter()
        .map(|path| {
            caches
                .tails
                .get(path, 0, || tail_facts(path))
                .and_then(|tail| match &tail.summaries {
                    Some(summaries) => Ok(summaries.clone()),
                    None => caches
                        .summaries
                        .get(path, 0, || summaries_of(path))
                        .map(|s| (*s).clone()),
                })
                .unwrap_or_default()
        })
        .collect()
}

/// The summary of the last line of the session whose `uuid` is a summary's
/// `leafUuid`. Uuids are found by bytes: `"uuid":"` can only be a key
/// (inside a JSON string its quotes would be escaped), and uuid values need
/// no escapes.
fn summary_title(
    path: &Path,
    by_leaf: &HashMap<String, String>,
) -> Result<Option<String>, ReadError> {
    const KEY: &[u8] = b"\"uuid\":\"";
    let finder = memmem::Finder::new(KEY);
    lines::scan_backward(path, |bytes| {
        finder.find_iter(bytes).find_map(|at| {
            let value = &bytes[at + KEY.len()..];
            let end = memchr::memchr(b'"', value)?;
            let uuid = std::str::from_utf8(&value[..end]).ok()?;
            by_leaf.get(uuid).cloned()
        })
    })
    .map_err(|e| ReadError::io(path, &e))
}

/// The first prompt's first line (≤ 80 chars; `[Image]` for a prompt made
/// only of images), else the first slash command name, reading forward only
/// as far as needed.
fn head_title(path: &Path) -> Result<Option<String>, ReadError> {
    let mut title = None;
    let mut command = None;
    read_lines(path, true, |_, bytes| {
        let Some(line) = Line::parse(bytes) else {
            return Visit::BAD;
        };
        if !line.is_plain_user() {
            return Visit::NEXT;
        }
        match Prompt::of(line.message().content) {
            Prompt::Typed(texts) => title = title_from_text(&texts.join("\n")),
            Prompt::ImagesOnly => title = Some(IMAGE_TITLE.to_owned()),
            Prompt::Command(name) => {
                command.get_or_insert(name);
            }
            Prompt::Nothing => {}
        }
        if title.is_some() {
            Visit::DONE
        } else {
            Visit::NEXT
        }
    })?;
    Ok(title.or(command))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::foreign::testing::texts;
    use proptest::prelude::*;

    /// Transcript lines of every shape the fields take, and hostile ones:
    /// repeated fields, escaped keys, `null`s, nesting, other spacing.
    fn arb_line() -> impl Strategy<Value = String> {
        let others = ["parentUuid", "toolUseResult", "t\\u0079pe"];
        let key =
            prop::sample::select(LINE_KEYS.iter().chain(&others).copied().collect::<Vec<_>>());
        let value = prop::sample::select(vec![
            "\"user\"",
            "\"assistant\"",
            "null",
            "true",
            "false",
            "12",
            "-1.5e3",
            "\"a \\\"q\\\" \\n \\u00e9 é 😀\"",
            r#"{"role":"user","content":[{"type":"text","text":"hi"},{"type":"tool_result","content":"x\ny"}]}"#,
            r#"{"id":"m1","model":"<synthetic>","content":"plain"}"#,
            r#"{"kind":"human"}"#,
            "[1,[2,{}],\"x\"]",
            "{}",
            "[]",
        ]);
        let member = (key, value).prop_map(|(k, v)| format!("\"{k}\":{v}"));
        let spacing = prop::sample::select(vec!["", " ", "\t"]);
        (prop::collection::vec(member, 0..8), spacing).prop_map(|(members, space)| {
            format!("{space}{{{}}}{space}", members.join(&format!(",{space}")))
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn the_scanner_reads_a_line_as_serde_json_does(text in arb_line()) {
            let general: Option<Line<'_>> = serde_json::from_str(&text).ok();
            if let Some(scanned) = Line::scan(&text) {
                prop_assert_eq!(Some(scanned), general, "{}", text);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn messages_and_blocks_read_as_serde_json_reads_them(
            message in crate::jsonl::loose::testing::arb_object(&["id", "model", "content"]),
            block in crate::jsonl::loose::testing::arb_object(&["type", "text"]),
        ) {
            prop_assert_eq!(Message::parse(&message), serde_json::from_str::<Message<'_>>(&message).ok(), "{}", message);
            prop_assert_eq!(ContentBlock::parse(&block), serde_json::from_str::<ContentBlock<'_>>(&block).ok(), "{}", block);
        }
    }

    #[test]
    fn ordinary_lines_are_read_by_the_scanner() {
        let line = r#"{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s","version":"2.1.332","type":"user","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result","content":"a\nb \"q\" é"}]},"uuid":"u","timestamp":"2026-01-01T00:00:00.000Z","toolUseResult":{"stdout":"x"}}"#;
        let scanned = Line::scan(line).unwrap();
        assert_eq!(scanned, serde_json::from_str::<Line<'_>>(line).unwrap());
        assert!(scanned.message.is_some() && scanned.is_sidechain.is_some());
        assert_eq!(scanned.row_source, None);
    }

    thread_local! {
        /// One test's caches, kept across its calls as a catalog keeps them.
        static CACHES: Caches = Caches::default();
    }

    fn read_title(record: &SessionRecord) -> Result<Option<String>, ReadError> {
        CACHES.with(|caches| super::read_title(caches, record))
    }

    const CWD: &str = "/home/dev/shop";

    /// A `user` line of the main conversation.
    fn user(uuid: &str, content: &str) -> String {
        format!(
            r#"{{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"{CWD}","sessionId":"s1","version":"2.1.4","type":"user","message":{{"role":"user","content":{content}}},"uuid":"{uuid}","timestamp":"2026-01-11T09:53:23.575Z"}}"#
        )
    }

    fn assistant(uuid: &str, id: &str, blocks: &str) -> String {
        format!(
            r#"{{"parentUuid":"p","isSidechain":false,"cwd":"{CWD}","sessionId":"s1","type":"assistant","message":{{"id":"{id}","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":{blocks}}},"uuid":"{uuid}","timestamp":"2026-01-11T09:53:28.293Z"}}"#
        )
    }

    fn write(dir: &Path, name: &str, lines: &[String]) -> PathBuf {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        path
    }

    fn record_of(root: &Path, path: &Path) -> SessionRecord {
        read_record(&Arc::from(root), path).unwrap().unwrap()
    }

    #[test]
    fn record_comes_from_the_head() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "p/s1.jsonl",
            &[
                r#"{"type":"file-history-snapshot","messageId":"m","snapshot":{"timestamp":"2026-01-01T00:00:00Z"}}"#.into(),
                r#"{"type":"summary","summary":"Other","leafUuid":"x"}"#.into(),
                user("u1", r#""hello""#),
            ],
        );
        let record = record_of(dir.path(), &path);
        assert_eq!(record.id, "s1");
        assert_eq!(record.cwd.as_deref(), Some(CWD));
        assert_eq!(record.created_at, "2026-01-11T09:53:23.575Z");
        assert_eq!(record.kind, KIND);
        let only_summaries = write(
            dir.path(),
            "p/s2.jsonl",
            &[r#"{"type":"summary","summary":"S","leafUuid":"u1"}"#.into()],
        );
        assert!(read_record(&Arc::from(dir.path()), &only_summaries)
            .unwrap()
            .is_none());
        let no_id = write(
            dir.path(),
            "p/stem-id.jsonl",
            &[r#"{"type":"user","message":{"content":"hi"}}"#.into()],
        );
        let record = record_of(dir.path(), &no_id);
        assert_eq!((record.id.as_str(), record.cwd), ("stem-id", None));
        assert_eq!(record.created_at, "");
    }

    #[test]
    fn surface_keeps_direct_messages_and_merged_assistant_text() {
        let dir = tempfile::tempdir().unwrap();
        let lines = [
            user("u0", r#""<command-message>init is analyzing…</command-message>\n<command-name>/init</command-name>""#),
            r#"{"type":"user","isMeta":true,"message":{"content":[{"type":"text","text":"expanded command"}]},"uuid":"m1"}"#.into(),
            user("u1", r#"[{"type":"text","text":"fix the build"},{"type":"image","source":{}}]"#),
            assistant("a1", "msg_1", r#"[{"type":"thinking","thinking":"hm"},{"type":"text","text":"Looking."}]"#),
            assistant("a2", "msg_1", r#"[{"type":"tool_use","id":"t","name":"Bash","input":{}}]"#),
            user("u2", r#"[{"type":"tool_result","tool_use_id":"t","content":"ok"}]"#),
            assistant("a3", "msg_1", r#"[{"type":"text","text":"Fixed."}]"#),
            r#"{"type":"user","isSidechain":true,"message":{"content":"Warmup"},"uuid":"w"}"#.into(),
            r#"{"type":"assistant","isSidechain":true,"message":{"id":"msg_s","content":[{"type":"text","text":"side"}]}}"#.into(),
            user("u3", r#""<local-command-stdout>done</local-command-stdout>""#),
            user("u4", r#""Caveat: The messages below were generated""#),
            user("u5", r#"[{"type":"text","text":"<bash-input>ls</bash-input>"}]"#),
            user("u7", r#"[{"type":"text","text":"[Request interrupted by user for tool use]"}]"#),
            r#"{"type":"assistant","message":{"id":"msg_e","model":"<synthetic>","content":[{"type":"text","text":"API Error"}]}}"#.into(),
            r#"{"type":"progress","data":{"type":"hook_progress"}}"#.into(),
            r#"{"type":"a-future-type","sessionId":"s1"}"#.into(),
            "[1,2,3]".into(),
            "not json".into(),
            user("u6", r#""thanks""#),
        ];
        let path = write(dir.path(), "p/s1.jsonl", &lines);
        let surface = read_surface(&record_of(dir.path(), &path)).unwrap();
        assert_eq!(
            texts(&surface),
            [
                (3, "user", "fix the build".to_owned()),
                (4, "assistant", "Looking.\nFixed.".to_owned()),
                (19, "user", "thanks".to_owned()),
            ]
        );
        assert_eq!(surface.captured_through_seq, 19);
    }

    /// A `user` line typed as `text` with one more field, `key`, whose
    /// value is the JSON `value`.
    fn user_with(key: &str, value: &str, text: &str) -> String {
        user("x", &format!("{text:?}")).replacen(
            r#""type":"user""#,
            &format!(r#""type":"user","{key}":{value}"#),
            1,
        )
    }

    #[test]
    fn only_lines_the_person_authored_are_prompts() {
        // `rowSource` (2.1.332+): `local` and an absent field (older
        // versions) can be typed; every other author, known or not, cannot.
        let authored = |source: &str, text: &str| user_with("rowSource", source, text);
        let dir = tempfile::tempdir().unwrap();
        let lines = [
            authored(r#""harness""#, "Task finished in the background"),
            authored(r#""hook""#, "hook text"),
            authored(r#""recorded""#, "relayed from a teammate"),
            authored(r#""a-future-author""#, "unknown author"),
            authored(r#""local""#, "typed here"),
            authored("null", "no author"),
            user("u", r#""older version""#),
        ];
        let path = write(dir.path(), "p/s1.jsonl", &lines);
        let record = record_of(dir.path(), &path);
        assert_eq!(
            texts(&read_surface(&record).unwrap()),
            [
                (5, "user", "typed here".to_owned()),
                (6, "user", "no author".to_owned()),
                (7, "user", "older version".to_owned()),
            ]
        );
        assert_eq!(head_title(&path).unwrap().as_deref(), Some("typed here"));
    }

    #[test]
    fn only_human_origins_are_prompts() {
        // `origin` (2.1.332): Claude Code's own "the person wrote this" rule
        // takes a line with no origin or a `human` one; task notifications,
        // coordinator and peer messages, plugins and so on carry another
        // kind, often with no `rowSource` beside it.
        let from = |origin: &str, text: &str| user_with("origin", origin, text);
        let dir = tempfile::tempdir().unwrap();
        let lines = [
            from(
                r#"{"kind":"task-notification","source":"goal-checkin"}"#,
                "Goal check-in",
            ),
            from(r#"{"kind":"coordinator"}"#, "coordinator says"),
            from(r#"{"kind":"peer","senderTaskId":"t1"}"#, "peer says"),
            from(r#"{"kind":"a-future-kind"}"#, "unknown origin"),
            from(r#"{"source":"no kind"}"#, "origin without a kind"),
            from(r#""human""#, "origin not an object"),
            from(r#"{"kind":"human"}"#, "typed by a person"),
            from("null", "null origin"),
        ];
        let path = write(dir.path(), "p/s1.jsonl", &lines);
        let record = record_of(dir.path(), &path);
        assert_eq!(
            texts(&read_surface(&record).unwrap()),
            [
                (7, "user", "typed by a person".to_owned()),
                (8, "user", "null origin".to_owned()),
            ]
        );
        assert_eq!(
            head_title(&path).unwrap().as_deref(),
            Some("typed by a person")
        );
    }

    #[test]
    fn compaction_shadows_and_checkpoints() {
        let dir = tempfile::tempdir().unwrap();
        let lines = [
            user("u1", r#""first question""#),
            assistant("a1", "msg_1", r#"[{"type":"text","text":"old answer"}]"#),
            r#"{"type":"system","subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{"trigger":"auto"},"uuid":"b"}"#.into(),
            r#"{"type":"user","isCompactSummary":true,"isVisibleInTranscriptOnly":true,"message":{"role":"user","content":"This session is being continued. Summary: fixed the build."},"uuid":"c"}"#.into(),
            assistant("a2", "msg_1", r#"[{"type":"text","text":"after"}]"#),
            user("u2", r#""next""#),
        ];
        let path = write(dir.path(), "p/s1.jsonl", &lines);
        let mut content = std::fs::read_to_string(&path).unwrap();
        content.push_str(r#"{"type":"user","message":{"content":"tor"#);
        std::fs::write(&path, content).unwrap();
        let surface = read_surface(&record_of(dir.path(), &path)).unwrap();
        assert_eq!(
            texts(&surface),
            [
                (
                    4,
                    "checkpoint",
                    "This session is being continued. Summary: fixed the build.".to_owned()
                ),
                (5, "assistant", "after".to_owned()),
                (6, "user", "next".to_owned()),
            ]
        );
        assert_eq!(surface.captured_through_seq, 6);
    }

    /// A `compact_boundary` as Claude Code 2.1.332 writes it, preserving
    /// `uuids`.
    fn boundary(uuid: &str, anchor: &str, uuids: &[&str]) -> String {
        let uuids = serde_json::to_string(uuids).unwrap();
        format!(
            r#"{{"parentUuid":null,"logicalParentUuid":"p","isSidechain":false,"type":"system","subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,"level":"info","compactMetadata":{{"trigger":"manual","preTokens":12608,"preCompactOrganizationsCoverStart":false,"durationMs":80,"preservedSegment":{{"headUuid":"h","anchorUuid":"{anchor}","tailUuid":"t"}},"preservedMessages":{{"anchorUuid":"{anchor}","uuids":{uuids},"allUuids":{uuids}}},"postTokens":2614,"cumulativeDroppedTokens":9994}},"cwd":"{CWD}","sessionId":"s1","version":"2.1.332","uuid":"{uuid}","timestamp":"2026-01-11T09:54:00.000Z"}}"#
        )
    }

    fn compact_summary(uuid: &str, text: &str) -> String {
        format!(
            r#"{{"parentUuid":"b","isSidechain":false,"type":"user","message":{{"role":"user","content":"{text}"}},"isVisibleInTranscriptOnly":true,"isCompactSummary":true,"uuid":"{uuid}","timestamp":"2026-01-11T09:54:00.100Z","cwd":"{CWD}","sessionId":"s1"}}"#
        )
    }

    /// Lines of a transcript compacted twice, each boundary preserving
    /// some earlier lines (one of them a tool result, which the surface
    /// has no message for).
    fn preserving_transcript() -> Vec<String> {
        vec![
            user("u1", r#""first question""#),
            assistant("a1", "msg_1", r#"[{"type":"text","text":"answer one"}]"#),
            user("u2", r#""second question""#),
            assistant(
                "a2a",
                "msg_2",
                r#"[{"type":"thinking","thinking":"REASONING","signature":"s"}]"#,
            ),
            assistant("a2b", "msg_2", r#"[{"type":"text","text":"answer two"}]"#),
            user(
                "r1",
                r#"[{"type":"tool_result","tool_use_id":"t","content":"TOOL OUTPUT"}]"#,
            ),
            boundary("b1", "c1", &["u2", "a2a", "a2b", "r1"]),
            compact_summary("c1", "Summary one."),
            user(
                "u3",
                r#""<local-command-caveat>Caveat: The messages below were generated by the user while running local commands.</local-command-caveat>""#,
            ),
            user("u4", r#""after compaction prompt""#),
            assistant("a3", "msg_3", r#"[{"type":"text","text":"answer three"}]"#),
            boundary("b2", "c2", &["a2b", "u4"]),
            compact_summary("c2", "Summary two."),
            user("u5", r#""last prompt""#),
        ]
    }

    #[test]
    fn a_boundary_keeps_its_preserved_messages_after_the_checkpoint() {
        let dir = tempfile::tempdir().unwrap();
        let lines = preserving_transcript();
        let first = write(dir.path(), "p/s1.jsonl", &lines[..11]);
        let surface = read_surface(&record_of(dir.path(), &first)).unwrap();
        assert_eq!(
            texts(&surface),
            [
                (8, "checkpoint", "Summary one.".to_owned()),
                (8, "user", "second question".to_owned()),
                (8, "assistant", "answer two".to_owned()),
                (10, "user", "after compaction prompt".to_owned()),
                (11, "assistant", "answer three".to_owned()),
            ]
        );
        let path = write(dir.path(), "p/s2.jsonl", &lines);
        let surface = read_surface(&record_of(dir.path(), &path)).unwrap();
        let whole = [
            (13, "checkpoint", "Summary two.".to_owned()),
            (13, "assistant", "answer two".to_owned()),
            (13, "user", "after compaction prompt".to_owned()),
            (14, "user", "last prompt".to_owned()),
        ];
        assert_eq!(texts(&surface), whole);
        // A boundary without its checkpoint yet: the kept lines follow it.
        let cut = write(dir.path(), "p/s3.jsonl", &lines[..7]);
        assert_eq!(
            texts(&read_surface(&record_of(dir.path(), &cut)).unwrap()),
            [
                (7, "user", "second question".to_owned()),
                (7, "assistant", "answer two".to_owned()),
            ]
        );
        // Search's resumed fold reads what a whole read does, also when the
        // appended boundary preserves lines read before.
        let record = record_of(dir.path(), &path);
        let head_len = lines[..11].iter().map(|l| l.len() as u64 + 1).sum::<u64>();
        let head = fold_resumable(&record, head_len, None).unwrap();
        let rest = fold_resumable(
            &record,
            std::fs::metadata(&path).unwrap().len(),
            head.resume.as_ref(),
        )
        .unwrap();
        assert!(!rest.continued, "the whole log is read again");
        let replayed = crate::index::journal::replay(rest.ops, 0);
        assert_eq!(texts(&replayed.surface), whole);
    }

    #[test]
    fn title_precedence() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("-home-dev-shop");
        let base = [
            user("u1", r#""  \nfirst prompt line\nsecond""#),
            assistant("a1", "m", r#"[{"type":"text","text":"ok"}]"#),
        ];
        let title = |name: &str, extra: &[String]| {
            let mut lines = base.to_vec();
            lines.extend_from_slice(extra);
            let path = write(&folder, name, &lines);
            read_title(&record_of(dir.path(), &path)).unwrap()
        };
        let custom =
            |t: &str| format!(r#"{{"type":"custom-title","customTitle":"{t}","sessionId":"s1"}}"#);
        let ai = |t: &str| format!(r#"{{"type":"ai-title","aiTitle":"{t}","sessionId":"s1"}}"#);
        assert_eq!(
            title("plain.jsonl", &[]).as_deref(),
            Some("first prompt line")
        );
        assert_eq!(
            title("ai.jsonl", &[ai("AI one"), ai("AI two")]).as_deref(),
            Some("AI two")
        );
        assert_eq!(
            title(
                "custom.jsonl",
                &[
                    custom("Mine"),
                    ai("AI later"),
                    custom("Renamed"),
                    ai("AI last")
                ]
            )
            .as_deref(),
            Some("Renamed")
        );
        assert_eq!(
            title("blank.jsonl", &[custom("Kept"), custom("  ")]).as_deref(),
            Some("Kept")
        );
    }

    #[test]
    fn summaries_title_sessions_across_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("-home-dev-shop");
        let a = write(
            &folder,
            "a.jsonl",
            &[
                user("ua1", r#""question a""#),
                assistant("aa1", "m1", r#"[{"type":"text","text":"answer a"}]"#),
                user("ua2", r#""more a""#),
            ],
        );
        let b = write(
            &folder,
            "b.jsonl",
            &[
                r#"{"type":"summary","summary":"Old summary of A","leafUuid":"aa1"}"#.into(),
                r#"{"type":"summary","summary":"Summary of A","leafUuid":"ua2"}"#.into(),
                r#"{"type":"summary","summary":"Nobody's","leafUuid":"zz"}"#.into(),
                user("ub1", r#""question b""#),
            ],
        );
        let c = write(
            &folder,
            "c.jsonl",
            &[
                user("uc1", r#""question c""#),
                r#"{"type":"ai-title","aiTitle":"AI C"}"#.into(),
            ],
        );
        let root = dir.path();
        assert_eq!(
            read_title(&record_of(root, &a)).unwrap().as_deref(),
            Some("Summary of A")
        );
        assert_eq!(
            read_title(&record_of(root, &b)).unwrap().as_deref(),
            Some("question b")
        );
        assert_eq!(
            read_title(&record_of(root, &c)).unwrap().as_deref(),
            Some("AI C")
        );
        // A new file in the folder is seen (the folder changed).
        write(
            &folder,
            "d.jsonl",
            &[r#"{"type":"summary","summary":"Newest","leafUuid":"ua1"}"#.into()],
        );
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
        std::fs::File::open(&folder)
            .unwrap()
            .set_modified(later)
            .unwrap();
        // The last line with a known uuid wins: ua2 is after ua1.
        assert_eq!(
            read_title(&record_of(root, &a)).unwrap().as_deref(),
            Some("Summary of A")
        );
        let e = write(
            &folder,
            "e.jsonl",
            &[
                r#"{"type":"summary","summary":"For E","leafUuid":"ue1"}"#.into(),
                user("ue1", r#""question e""#),
            ],
        );
        std::fs::File::open(&folder)
            .unwrap()
            .set_modified(later + std::time::Duration::from_secs(5))
            .unwrap();
        assert_eq!(
            read_title(&record_of(root, &e)).unwrap().as_deref(),
            Some("For E")
        );
    }

    #[test]
    fn files_older_than_the_session_are_not_read_for_its_summaries() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("-home-dev-shop");
        let session = write(&folder, "s.jsonl", &[user("us1", r#""the prompt""#)]);
        let summary =
            |text: &str| format!(r#"{{"type":"summary","summary":"{text}","leafUuid":"us1"}}"#);
        let old = write(
            &folder,
            "old.jsonl",
            &[summary("Impossible: older than the session")],
        );
        let year_2020 = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_577_836_800);
        std::fs::File::options()
            .append(true)
            .open(&old)
            .unwrap()
            .set_modified(year_2020)
            .unwrap();
        let root = dir.path();
        assert_eq!(
            read_title(&record_of(root, &session)).unwrap().as_deref(),
            Some("the prompt")
        );
        // Without a parseable start, every file counts.
        let mut undated = record_of(root, &session);
        undated.created = None;
        let newer = write(&folder, "newer.jsonl", &[summary("Newer summary")]);
        let newest = write(&folder, "newest.jsonl", &[summary("Newest summary")]);
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(60);
        for (path, at) in [
            (&newer, later),
            (&newest, later + std::time::Duration::from_secs(1)),
        ] {
            std::fs::File::options()
                .append(true)
                .open(path)
                .unwrap()
                .set_modified(at)
                .unwrap();
        }
        std::fs::File::open(&folder)
            .unwrap()
            .set_modified(later + std::time::Duration::from_secs(2))
            .unwrap();
        assert_eq!(
            read_title(&undated).unwrap().as_deref(),
            Some("Newest summary")
        );
        let (_, by_leaf) =
            CACHES.with(|c| folder_summaries(&c.get::<ClaudeCaches>(), &folder, None));
        assert_eq!(
            by_leaf.get("us1").map(String::as_str),
            Some("Newest summary")
        );
    }

    #[test]
    fn slash_command_is_the_last_resort() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "p/s.jsonl",
            &[
                user("u0", r#""<command-message>init is analyzing your codebase…</command-message>\n<command-name>/init</command-name>""#),
                r#"{"type":"user","isMeta":true,"message":{"content":[{"type":"text","text":"Please analyze this codebase"}]},"uuid":"m"}"#.into(),
                user("u1", r#"[{"type":"tool_result","tool_use_id":"t","content":"x"}]"#),
            ],
        );
        assert_eq!(
            read_title(&record_of(dir.path(), &path))
                .unwrap()
                .as_deref(),
            Some("/init")
        );
        assert_eq!(
            command_name("<command-name> /x </command-name>").as_deref(),
            Some("/x")
        );
        assert_eq!(command_name("<command-name></command-name>"), None);
    }

    #[test]
    fn scan_skips_sub_agents_and_non_sessions() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "p/s1.jsonl", &[user("u", r#""hi""#)]);
        write(root, "p/agent-1a2b.jsonl", &[user("u", r#""Warmup""#)]);
        write(
            root,
            "p/s1/subagents/agent-x.jsonl",
            &[user("u", r#""task""#)],
        );
        write(
            root,
            "p/s1/subagents/other.jsonl",
            &[user("u", r#""task""#)],
        );
        write(
            root,
            "p/sums.jsonl",
            &[r#"{"type":"summary","summary":"S","leafUuid":"u"}"#.into()],
        );
        std::fs::write(root.join("p/notes.txt"), "x").unwrap();
        let catalog = crate::Catalog::load(&crate::StoreRoots::new().with(KIND, root));
        let ids: Vec<&str> = catalog.ordered().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["s1"]);
        let skipped: Vec<String> = catalog
            .skipped
            .iter()
            .map(|(p, why)| format!("{} {why}", p.strip_prefix(root).unwrap().display()))
            .collect();
        assert_eq!(
            skipped,
            [
                "p/agent-1a2b.jsonl Claude Code sub-agent transcript",
                "p/s1/subagents/agent-x.jsonl Claude Code sub-agent transcript",
                "p/s1/subagents/other.jsonl Claude Code sub-agent transcript",
                "p/sums.jsonl no Claude Code conversation line",
            ]
        );
        assert!(catalog.unreadable.is_empty());
    }

    #[test]
    fn what_the_person_typed() {
        let of = |json: &str| Prompt::of(Some(RawText(json)));
        let typed = |t: &str| Prompt::Typed(vec![t.to_owned()]);
        assert_eq!(
            of(
                r#""<command-message>greet</command-message>\n<command-name>/greet</command-name>\n<command-args>Carol </command-args>""#
            ),
            typed("/greet Carol")
        );
        assert_eq!(
            of(
                r#""<command-name>/compact</command-name>\n  <command-message>compact</command-message>\n  <command-args></command-args>""#
            ),
            Prompt::Command("/compact".into())
        );
        assert_eq!(
            of(
                r#""<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n</task-notification>""#
            ),
            Prompt::Nothing
        );
        // Editor context from the VS Code extension: a block of its own,
        // before the typed text; alone it is not a prompt.
        assert_eq!(
            of(
                r#"[{"type":"text","text":"<ide_opened_file>The user opened the file /a/b.ts in the IDE. This may or may not be related to the current task.</ide_opened_file>"},{"type":"text","text":"<ide_selection>The user selected the lines 1 to 2 from /a/b.ts:\nx\n</ide_selection>"},{"type":"text","text":"fix this file"}]"#
            ),
            typed("fix this file")
        );
        assert_eq!(
            of(
                r#"[{"type":"text","text":"<ide_opened_file>The user opened /a/b.ts</ide_opened_file>"}]"#
            ),
            Prompt::Nothing
        );
        assert_eq!(of(r#"[{"type":"image","source":{}}]"#), Prompt::ImagesOnly);
        assert_eq!(
            of(r#"[{"type":"image","source":{}},{"type":"text","text":"what is this?"}]"#),
            typed("what is this?")
        );
        assert_eq!(
            of(
                r#"[{"type":"tool_result","tool_use_id":"t","content":[{"type":"image"}]},{"type":"image"}]"#
            ),
            Prompt::Nothing
        );
        // Tags quoted inside a prompt do not make it a command.
        let quoted = "why is <command-name>/x</command-name><command-args>y</command-args> shown?";
        assert_eq!(of(&serde_json::to_string(quoted).unwrap()), typed(quoted));
        assert_eq!(of(r#""Warmup""#), Prompt::Nothing);
    }

    #[test]
    fn the_file_stem_names_a_resumed_session() {
        let dir = tempfile::tempdir().unwrap();
        let copied = user("u1", r#""first question""#);
        assert!(copied.contains(r#""sessionId":"s1""#));
        let path = write(
            dir.path(),
            "p/resumed-2.jsonl",
            &[
                copied,
                r#"{"type":"user","sessionId":"resumed-2","message":{"content":"next"},"uuid":"u2"}"#.into(),
            ],
        );
        assert_eq!(record_of(dir.path(), &path).id, "resumed-2");
    }

    #[test]
    fn a_vanished_file_fails_only_its_own_reads() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "p/s1.jsonl", &[user("u", r#""hi""#)]);
        let record = record_of(dir.path(), &path);
        std::fs::remove_file(&path).unwrap();
        let err = read_surface(&record).unwrap_err();
        assert_eq!(err.path, path);
        assert!(read_title(&record).is_err());
    }

    /// Regression: titles of many sessions of one folder, read on a pool
    /// while the folder's summaries load in steps (each session needs the
    /// files since its own start), once deadlocked: a thread holding the
    /// folder's lock waited in rayon's join and ran another title of the
    /// same folder (a batch queued on the pool). Cold caches each round,
    /// one- and two-thread pools.
    #[test]
    fn titles_of_one_folder_read_in_parallel_never_deadlock() {
        const SESSIONS: usize = 240;
        const BATCH: usize = 6;
        const DAY: u64 = 24 * 3600;
        let dir = tempfile::tempdir().unwrap();
        let epoch = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_767_225_600);
        let mut records = Vec::new();
        for i in 0..SESSIONS {
            // Sessions start in groups of eight, two days apart: read
            // newest first, each group's titles need the folder's
            // summaries loaded eight files further.
            let day = (SESSIONS - i) as u64 / 8 * 2;
            let created = format_day(day);
            let mut lines = vec![format!(
                r#"{{"type":"user","message":{{"role":"user","content":"prompt {i}"}},"uuid":"u{i}","sessionId":"s{i}","cwd":"{CWD}","timestamp":"{created}"}}"#
            )];
            // Every third session holds a summary of the next older one
            // (written later, as Claude Code writes them); every fifth has
            // a custom title (no folder read).
            if i % 3 == 0 {
                lines.push(format!(
                    r#"{{"type":"summary","summary":"Summary of {}","leafUuid":"u{}"}}"#,
                    i + 1,
                    i + 1
                ));
            }
            if i % 5 == 0 {
                lines.push(format!(
                    r#"{{"type":"custom-title","customTitle":"Custom {i}","sessionId":"s{i}"}}"#
                ));
            }
            let path = write(dir.path(), &format!("p/s{i}.jsonl"), &lines);
            let file = std::fs::File::options().write(true).open(&path).unwrap();
            file.set_modified(epoch + std::time::Duration::from_secs(day * DAY))
                .unwrap();
            records.push(record_of(dir.path(), &path));
        }
        let records = Arc::new(records);
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            for round in 0..25 {
                // Titles are asked for as the picker asks: batches queued on
                // the pool, each read in parallel, on cold caches.
                let caches = Arc::new(Caches::default());
                let (done, finished) = std::sync::mpsc::channel();
                for start in (0..SESSIONS).step_by(BATCH) {
                    let (records, caches, done) = (records.clone(), caches.clone(), done.clone());
                    pool.spawn(move || {
                        let batch = &records[start..(start + BATCH).min(SESSIONS)];
                        let titles: Vec<Option<String>> = batch
                            .par_iter()
                            .map(|r| super::read_title(&caches, r).unwrap())
                            .collect();
                        let _ = done.send((start, titles));
                    });
                }
                let mut titles = vec![None; SESSIONS];
                for _ in (0..SESSIONS).step_by(BATCH) {
                    let (start, found) = finished
                        .recv_timeout(std::time::Duration::from_secs(60))
                        .unwrap_or_else(|_| {
                            // The pool's threads are stuck for good: only
                            // ending the process ends the test.
                            eprintln!("deadlock: {threads} threads, round {round}");
                            std::process::abort()
                        });
                    titles[start..][..found.len()].clone_from_slice(&found);
                }
                assert_eq!(titles[0].as_deref(), Some("Custom 0"));
                assert_eq!(titles[1].as_deref(), Some("Summary of 1"));
                assert_eq!(titles[2].as_deref(), Some("prompt 2"));
            }
        }
    }

    /// `2026-01-01` plus `days`, as an RFC 3339 timestamp (midnight UTC).
    fn format_day(days: u64) -> String {
        // Days since 1970-01-01 to a civil date (Hinnant's algorithm).
        let z = 20_454 + days as i64 + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = yoe + era * 400 + i64::from(month <= 2);
        format!("{year:04}-{month:02}-{day:02}T00:00:00.000Z")
    }
}
