//! A fold recorded as the operations it applied to its sink, so that it
//! can be stored, continued when the log grows, and replayed into a
//! [`History`] later: what lets the search index read only the bytes
//! appended to a log ([`crate::search::index`]).
//!
//! # Why a journal, not the folded result
//!
//! What a log folds to depends on the whole log: a compaction shadows what
//! came before, an assistant reply written over several lines is merged
//! into the event where it started, a Codex rollout's conversation is its
//! response items or, when it has none, its event copies. A stored result
//! would have to be rewritten at each append. The operations themselves
//! ([`SurfaceSink::push`], [`SurfaceSink::extend`],
//! [`SurfaceSink::shadow_through`], [`SurfaceSink::adopt`]) never look at
//! the sink's state, so the operations of an appended part are simply
//! added after those of the log before it, and replaying them all through
//! the real [`History`] sink gives exactly the history a whole read gives:
//! the one implementation of those rules stays the only one.
//!
//! Only what a projection can see is kept: the text blocks of an event
//! (joined with `"\n"`, as projection joins them, so later blocks join the
//! same way) and whether it is a user message, a compaction summary, an
//! assistant message or anything else (kept as an inert event, so that
//! seqs and the targets of later merges stay where they were).
//!
//! # Resuming a fold
//!
//! A kind that can continue a fold implements [`Store::fold_resumable`]:
//! it returns, besides the operations, a [`ResumePoint`] (the byte offset
//! just after the last line read, how many lines that is, and its own fold
//! state there, e.g. the merge keys of open assistant messages), from which
//! a later call folds the appended lines only. A kind that cannot returns
//! no resume point (Gemini CLI: a session is one JSON document rewritten
//! whole), and is read whole each time.
//!
//! [`Store::fold_resumable`]: crate::Store::fold_resumable

use std::any::Any;

use serde::{Deserialize, Serialize};

use session_ref_core::model::{
    Block, EventKind, History, MessageSource, SurfaceEvent, SurfaceSink,
};

/// What a recorded event is, as far as a projection can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A direct user message.
    User,
    /// A compact checkpoint (compaction summary).
    Checkpoint,
    /// An assistant message.
    Assistant,
    /// Anything never projected (tool results, injected or generated user
    /// messages): kept for its seq only.
    Inert,
}

/// One operation a fold applied to its sink.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// [`SurfaceSink::push`]: `text` is the event's text blocks joined with
    /// `"\n"`, `None` when it has none.
    Push {
        /// The event's seq.
        seq: u64,
        /// What it is.
        kind: Kind,
        /// Its text, when it has text blocks.
        text: Option<String>,
    },
    /// [`SurfaceSink::extend`] with at least one text block (blocks without
    /// text change nothing a projection sees).
    Extend {
        /// The seq of the message extended.
        seq: u64,
        /// The added text blocks joined with `"\n"`.
        text: String,
    },
    /// [`SurfaceSink::shadow_through`].
    ShadowThrough(u64),
    /// [`SurfaceSink::adopt`] of a forked sink: everything so far is
    /// replaced by what follows.
    Reset,
}

/// A sink that records operations, tagged with a stream number (a kind
/// that folds two candidate conversations side by side records both and
/// says which one holds the conversation: [`Folded::chosen`]).
#[derive(Debug, Default)]
pub struct Journal {
    stream: u8,
    ops: Vec<Op>,
}

impl Journal {
    /// An empty journal of stream `stream`.
    pub fn new(stream: u8) -> Journal {
        Journal {
            stream,
            ops: Vec::new(),
        }
    }

    /// The operations recorded, with their stream.
    pub fn into_ops(self) -> Vec<(u8, Op)> {
        let stream = self.stream;
        self.ops.into_iter().map(|op| (stream, op)).collect()
    }
}

/// The text blocks of `blocks` joined as projection joins them.
fn texts(blocks: &[Block]) -> Option<String> {
    blocks
        .iter()
        .any(|b| matches!(b, Block::Text(_)))
        .then(|| session_ref_core::projection::join_text(blocks))
}

impl SurfaceSink for Journal {
    fn push(&mut self, event: SurfaceEvent) {
        let (kind, text) = match &event.kind {
            EventKind::UserMessage { source, content } => match source {
                MessageSource::User => (Kind::User, texts(content)),
                MessageSource::Checkpoint => (Kind::Checkpoint, texts(content)),
                MessageSource::SessionReference | MessageSource::Other(_) => (Kind::Inert, None),
            },
            EventKind::AssistantMessage { content } => (Kind::Assistant, texts(content)),
            EventKind::ToolResult => (Kind::Inert, None),
        };
        self.ops.push(Op::Push {
            seq: event.seq,
            kind,
            text,
        });
    }

    fn extend(&mut self, seq: u64, blocks: Vec<Block>) {
        if let Some(text) = texts(&blocks) {
            self.ops.push(Op::Extend { seq, text });
        }
    }

    fn shadow_through(&mut self, through: u64) {
        self.ops.push(Op::ShadowThrough(through));
    }

    fn fork(&self) -> Box<dyn SurfaceSink + Send> {
        Box::new(Journal::new(self.stream))
    }

    fn adopt(&mut self, other: Box<dyn SurfaceSink + Send>) {
        if let Ok(other) = other.into_any().downcast::<Journal>() {
            self.ops.push(Op::Reset);
            self.ops.extend(other.ops);
        }
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

/// Replay the operations of stream `stream` into a history, as the fold
/// that recorded them fed its sink (finished as a read finishes it).
pub fn replay(ops: impl IntoIterator<Item = (u8, Op)>, stream: u8) -> History {
    let mut history = History::default();
    replay_into(ops, stream, &mut history);
    history.finish(0)
}

/// Feed the operations of stream `stream` to `sink`, as the fold that
/// recorded them fed its own (a remote session is read this way: its
/// host's fold, replayed here).
pub fn replay_into(
    ops: impl IntoIterator<Item = (u8, Op)>,
    stream: u8,
    sink: &mut dyn SurfaceSink,
) {
    for (_, op) in ops.into_iter().filter(|(s, _)| *s == stream) {
        match op {
            Op::Push { seq, kind, text } => {
                let content: Vec<Block> = text.into_iter().map(Block::Text).collect();
                let kind = match kind {
                    Kind::User => EventKind::UserMessage {
                        source: MessageSource::User,
                        content,
                    },
                    Kind::Checkpoint => EventKind::UserMessage {
                        source: MessageSource::Checkpoint,
                        content,
                    },
                    Kind::Assistant => EventKind::AssistantMessage { content },
                    Kind::Inert => EventKind::ToolResult,
                };
                sink.push(SurfaceEvent { seq, kind });
            }
            Op::Extend { seq, text } => sink.extend(seq, vec![Block::Text(text)]),
            Op::ShadowThrough(through) => sink.shadow_through(through),
            Op::Reset => {
                let fresh = sink.fork();
                sink.adopt(fresh);
            }
        }
    }
}

/// Where a resumable fold stopped: just after a line end, with the kind's
/// own fold state there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResumePoint {
    /// Byte offset of the first line not read (just after a `\n`).
    pub offset: u64,
    /// Lines read before it (the next line's number is one more).
    pub lines: u64,
    /// The kind's fold state, encoded by
    /// [`sealed::encode`](crate::index::sealed::encode).
    pub state: Vec<u8>,
}

/// A fold recorded for search.
#[derive(Debug, Default)]
pub struct Folded {
    /// The operations, with their stream.
    pub ops: Vec<(u8, Op)>,
    /// Which stream holds the conversation.
    pub chosen: u8,
    /// Whether `ops` continue the fold the given resume point ended
    /// (`false`: they are the whole log's, from its start).
    pub continued: bool,
    /// Where to continue when the log grows; `None` when it cannot be
    /// continued (a torn last line, a compressed log, a kind that does not
    /// resume, a log that depends on another file).
    pub resume: Option<ResumePoint>,
}

const PUSH: u8 = 0;
const EXTEND: u8 = 1;
const SHADOW: u8 = 2;
const RESET: u8 = 3;

fn kind_code(kind: Kind) -> u8 {
    match kind {
        Kind::User => 0,
        Kind::Checkpoint => 1,
        Kind::Assistant => 2,
        Kind::Inert => 3,
    }
}

fn put_text(out: &mut Vec<u8>, text: &str) {
    // Texts over 4 GiB do not occur in a log; one would be cut at a char.
    let mut len = text.len().min(u32::MAX as usize);
    while !text.is_char_boundary(len) {
        len -= 1;
    }
    out.extend_from_slice(&(len as u32).to_le_bytes());
    out.extend_from_slice(&text.as_bytes()[..len]);
}

/// The bytes of `ops`: per operation `[op u8][stream u8][seq u64 LE]`,
/// then for a push `[kind u8][has text u8]` and the text, for an extend
/// the text; a text is `[length u32 LE][UTF-8]`. Texts are stored whole,
/// so a literal word is found in these bytes wherever it is in a message
/// (the index's prefilter).
pub fn encode(ops: &[(u8, Op)]) -> Vec<u8> {
    // Sized exactly: the index keeps these bytes in memory until it commits.
    let size = ops
        .iter()
        .map(|(_, op)| match op {
            Op::Push { text, .. } => 12 + text.as_ref().map_or(0, |t| 4 + t.len()),
            Op::Extend { text, .. } => 14 + text.len(),
            Op::ShadowThrough(_) | Op::Reset => 10,
        })
        .sum();
    let mut out = Vec::with_capacity(size);
    for (stream, op) in ops {
        let (code, seq) = match op {
            Op::Push { seq, .. } => (PUSH, *seq),
            Op::Extend { seq, .. } => (EXTEND, *seq),
            Op::ShadowThrough(through) => (SHADOW, *through),
            Op::Reset => (RESET, 0),
        };
        out.push(code);
        out.push(*stream);
        out.extend_from_slice(&seq.to_le_bytes());
        match op {
            Op::Push { kind, text, .. } => {
                out.push(kind_code(*kind));
                out.push(u8::from(text.is_some()));
                if let Some(text) = text {
                    put_text(&mut out, text);
                }
            }
            Op::Extend { text, .. } => put_text(&mut out, text),
            Op::ShadowThrough(_) | Op::Reset => {}
        }
    }
    out
}

/// Reads an encoded journal front to back.
struct Cursor<'a> {
    rest: &'a [u8],
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, tail) = self.rest.split_at_checked(n)?;
        self.rest = tail;
        Some(head)
    }

    fn byte(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }

    fn text(&mut self) -> Option<String> {
        let len = u32::from_le_bytes(self.take(4)?.try_into().ok()?) as usize;
        std::str::from_utf8(self.take(len)?).ok().map(str::to_owned)
    }
}

/// The operations of `bytes`, appended to `ops`; `None` when the bytes are
/// not what [`encode`] writes.
pub fn decode_into(bytes: &[u8], ops: &mut Vec<(u8, Op)>) -> Option<()> {
    let mut cursor = Cursor { rest: bytes };
    while !cursor.rest.is_empty() {
        let code = cursor.byte()?;
        let stream = cursor.byte()?;
        let seq = u64::from_le_bytes(cursor.take(8)?.try_into().ok()?);
        let op = match code {
            PUSH => {
                let kind = match cursor.byte()? {
                    0 => Kind::User,
                    1 => Kind::Checkpoint,
                    2 => Kind::Assistant,
                    3 => Kind::Inert,
                    _ => return None,
                };
                let text = match cursor.byte()? {
                    0 => None,
                    1 => Some(cursor.text()?),
                    _ => return None,
                };
                Op::Push { seq, kind, text }
            }
            EXTEND => Op::Extend {
                seq,
                text: cursor.text()?,
            },
            SHADOW => Op::ShadowThrough(seq),
            RESET => Op::Reset,
            _ => return None,
        };
        ops.push((stream, op));
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(seq: u64, kind: EventKind) -> SurfaceEvent {
        SurfaceEvent { seq, kind }
    }

    fn text(t: &str) -> Block {
        Block::Text(t.into())
    }

    /// Feed the same operations to a history and to a journal.
    fn both(feed: impl Fn(&mut dyn SurfaceSink)) -> (History, History) {
        let mut direct = History::default();
        feed(&mut direct);
        let mut journal = Journal::new(0);
        feed(&mut journal);
        let ops = journal.into_ops();
        let mut back = Vec::new();
        decode_into(&encode(&ops), &mut back).unwrap();
        assert_eq!(back, ops);
        (direct.finish(0), replay(back, 0))
    }

    fn projected(history: &History) -> Vec<crate::search::extract::Message> {
        crate::search::extract::conversation(history)
    }

    #[test]
    fn a_replayed_journal_projects_as_the_fold_it_recorded() {
        let (direct, replayed) = both(|sink| {
            sink.push(event(
                1,
                EventKind::UserMessage {
                    source: MessageSource::User,
                    content: vec![text("a"), text("b")],
                },
            ));
            sink.push(event(
                2,
                EventKind::AssistantMessage {
                    content: vec![Block::Other("thinking".into())],
                },
            ));
            sink.extend(2, vec![text("")]);
            sink.extend(2, vec![Block::Other("tool".into()), text("c")]);
            sink.push(event(3, EventKind::ToolResult));
            sink.push(event(
                4,
                EventKind::UserMessage {
                    source: MessageSource::SessionReference,
                    content: vec![text("injected")],
                },
            ));
            sink.shadow_through(3);
            sink.extend(2, vec![text("lost")]);
            sink.push(event(
                5,
                EventKind::UserMessage {
                    source: MessageSource::Checkpoint,
                    content: vec![text("summary")],
                },
            ));
            sink.push(event(6, EventKind::AssistantMessage { content: vec![] }));
            sink.extend(6, vec![text("late")]);
        });
        assert_eq!(projected(&direct), projected(&replayed));
        assert_eq!(projected(&direct).len(), 4);
    }

    #[test]
    fn an_adopted_fork_replaces_what_came_before() {
        let (direct, replayed) = both(|sink| {
            sink.push(event(
                1,
                EventKind::AssistantMessage {
                    content: vec![text("gone")],
                },
            ));
            let mut fork = sink.fork();
            fork.push(event(
                2,
                EventKind::AssistantMessage {
                    content: vec![text("kept")],
                },
            ));
            sink.adopt(fork);
        });
        assert_eq!(projected(&direct), projected(&replayed));
        assert_eq!(projected(&replayed)[0].text, "kept");
    }

    #[test]
    fn damaged_bytes_are_refused() {
        let ops = vec![
            (
                0,
                Op::Push {
                    seq: 1,
                    kind: Kind::User,
                    text: Some("héllo".into()),
                },
            ),
            (1, Op::ShadowThrough(1)),
        ];
        let bytes = encode(&ops);
        for cut in 1..bytes.len() {
            let mut out = Vec::new();
            if decode_into(&bytes[..cut], &mut out).is_some() {
                // Only a cut between operations decodes, to a prefix.
                assert!(ops.starts_with(&out), "cut {cut}");
            }
        }
        let mut bad = bytes.clone();
        bad[0] = 9;
        assert!(decode_into(&bad, &mut Vec::new()).is_none());
    }
}
