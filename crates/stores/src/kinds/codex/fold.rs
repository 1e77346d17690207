//! A Codex rollout folded into the conversation a snapshot shows. The
//! response items and the event copies are folded apart and one of them
//! chosen at the end; a `compacted` line restarts both; a paginated fork
//! folds its parent's history up to the fork point first. A fold can be
//! resumed where an earlier one stopped (the journal's resume point), the
//! two records kept as two journal streams.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::line::{parse_line, Item, Payload};
use super::said::{add, said_in_event, said_in_item, Said};
use crate::error::ReadError;
use crate::index::journal::{Folded, Journal, ResumePoint};
use crate::kinds::foreign::{self, is_zstd, SurfaceBuilder};
use crate::kinds::tools;
use crate::model::{SessionRecord, Surface, SurfaceSink, ToolEvent};
use session_ref_jsonl::loose::{is_str, non_empty, raw_elements, string};

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
pub(super) const MAX_FORK_DEPTH: usize = 32;

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
            RolloutSays::Tool(tool) => self.items.tool(seq, tool),
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
pub(super) struct HistoryBase {
    pub(super) thread_id: String,
    pub(super) end_byte_offset: u64,
}

/// The `history_base` of a paginated fork's `session_meta`, `None` for any
/// other meta. A paginated meta whose base is unusable is an error: the
/// history cannot be found.
pub(super) fn history_base(
    meta: &Payload<'_>,
    path: &Path,
) -> Result<Option<HistoryBase>, ReadError> {
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

/// The rollouts a paginated fork's surface is read from besides its own:
/// its parent's, that parent's parent's when it is a fork too, and so on
/// (at most [`MAX_FORK_DEPTH`]), each found as [`fold_parent`] finds it.
/// Empty for a rollout that is not a paginated fork, or whose parent is
/// not found. What `keep` archives with a fork, so that the archived fork
/// reads the same once its own file is gone, whether or not its parent is
/// still live.
pub(super) fn parent_rollouts(root: &Path, path: &Path) -> Vec<PathBuf> {
    let mut parents: Vec<PathBuf> = Vec::new();
    let mut at = path.to_path_buf();
    while parents.len() < MAX_FORK_DEPTH {
        let Some(base) = first_history_base(&at) else {
            break;
        };
        match find_rollout(root, &at, &base.thread_id) {
            Some(parent) if parent != path && !parents.contains(&parent) => {
                parents.push(parent.clone());
                at = parent;
            }
            _ => break,
        }
    }
    parents
}

/// The history base of the first `session_meta` of the rollout at `path`
/// (read from its head), `None` when it has none or is no paginated fork.
fn first_history_base(path: &Path) -> Option<HistoryBase> {
    let mut base = None;
    let _ = foreign::read_lines(path, true, |_, bytes| match parse_line(bytes) {
        Some((_, Item::Meta(meta))) => {
            base = history_base(&meta, path).ok().flatten();
            foreign::Visit::DONE
        }
        Some(_) => foreign::Visit::NEXT,
        None => foreign::Visit::BAD,
    });
    base
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
    let tools = fold.items.wants_tools();
    let parse = |bytes: &[u8]| {
        parse_line(bytes).map(|(_, item)| match RolloutSays::of(item, path) {
            // A tool call or output, read only for a sink that keeps them.
            RolloutSays::Response {
                message: false,
                said: None,
            } if tools => tools::codex_line(bytes).map_or(RolloutSays::Other, RolloutSays::Tool),
            says => says,
        })
    };
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
            span.end += line.len as u64 + u64::from(line.terminated);
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
) -> Result<session_ref_jsonl::lines::LineReader<Box<dyn Read + Send>>, ReadError> {
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
    // A line longer than any snapshot keeps is read past (see `session_ref_jsonl::lines`).
    Ok(session_ref_jsonl::lines::LineReader::new(stream)
        .with_limit(session_ref_jsonl::lines::MAX_SESSION_LINE))
}

/// The rollout of thread `id`: a `*<id>.jsonl` (or `.jsonl.zst`) file in the
/// fork's own folder (forks are usually made the same day), else anywhere
/// under the store root.
pub(super) fn find_rollout(root: &Path, fork: &Path, id: &str) -> Option<PathBuf> {
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
    /// A tool call or its output (only for a sink that wants tools).
    Tool(ToolEvent),
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

/// [`Store::fold_surface`](crate::Store::fold_surface) of a rollout: the
/// response items and the event copies folded apart on forks of `sink`,
/// the chosen one adopted.
pub(super) fn fold_surface(
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

/// [`Store::fold_resumable`](crate::Store::fold_resumable) of a rollout.
///
/// The response items and the event copies are recorded as streams 0
/// and 1, the conversation being stream 0 once the rollout has a
/// message item (from then on stream 1 is never chosen again, so it is
/// no longer kept). A compressed rollout, or a paginated fork (whose
/// history sits in another file), is read whole each time.
pub(super) fn fold_resumable(
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

#[cfg(test)]
mod tests {
    use super::super::testing::{
        event, item_assistant, item_user, meta, read_title, rollout, Store, ID,
    };
    use super::*;
    use crate::kinds::foreign::testing::texts;

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
}
