//! The one session model every store kind maps onto (SPEC §1, §2).

use std::any::Any;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::store::time::Instant;
use crate::store::Store;

/// Which kind of store a session came from: a handle to one registered
/// [`Store`], compared, hashed and shown by its name.
#[derive(Clone, Copy)]
pub struct StoreKind(&'static dyn Store);

impl StoreKind {
    /// The handle of a store (each kind's file defines its `KIND` with it).
    pub const fn new(store: &'static dyn Store) -> Self {
        StoreKind(store)
    }

    /// The store itself.
    pub fn store(self) -> &'static dyn Store {
        self.0
    }

    /// The kind's name as shown and serialized (`hydra`, `claude`, `codex`,
    /// `gemini`).
    pub fn as_str(self) -> &'static str {
        self.0.name()
    }
}

impl PartialEq for StoreKind {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for StoreKind {}

impl std::hash::Hash for StoreKind {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Debug for StoreKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StoreKind({})", self.as_str())
    }
}

impl fmt::Display for StoreKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// A listed session: what listing knows without reading the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRecord {
    /// The session id (any string).
    pub id: String,
    /// The session's working directory, when known.
    pub cwd: Option<String>,
    /// Creation time exactly as the log spells it.
    pub created_at: String,
    /// `created_at` parsed as an instant, `None` when it does not parse.
    pub created: Option<Instant>,
    /// The store kind that holds it.
    pub kind: StoreKind,
    /// The log file.
    pub path: PathBuf,
    /// The store root it was found under (adapters read side files from it).
    pub root: Arc<Path>,
}

impl SessionRecord {
    /// Build a record, parsing `created_at` once.
    pub fn new(
        kind: StoreKind,
        root: Arc<Path>,
        path: PathBuf,
        id: String,
        cwd: Option<String>,
        created_at: String,
    ) -> Self {
        let created = Instant::parse_rfc3339(&created_at);
        SessionRecord {
            id,
            cwd,
            created_at,
            created,
            kind,
            path,
            root,
        }
    }
}

/// Total record order of `listSessions`: newest instant first, unparseable
/// instants last, ties by path bytes ascending.
pub fn record_order(a: &SessionRecord, b: &SessionRecord) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let by_time = match (&a.created, &b.created) {
        (Some(x), Some(y)) => y.cmp(x),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    };
    by_time.then_with(|| {
        a.path
            .as_os_str()
            .as_encoded_bytes()
            .cmp(b.path.as_os_str().as_encoded_bytes())
    })
}

/// Who produced a user message (SPEC §2 `source.kind`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessageSource {
    /// Typed by a person (`{"kind":"user"}`).
    User,
    /// A compact checkpoint carrying the summary that replaced earlier conversation.
    Checkpoint,
    /// Context injected by session-ref itself; never copied forward.
    SessionReference,
    /// Any other generated message, by its kind.
    Other(String),
}

/// One content block; only text is ever projected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// `{"type":"text","text":S}`.
    Text(String),
    /// Any other block (reasoning, tool call, image, unknown), by its type.
    Other(String),
}

/// What one surface event is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventKind {
    /// `user/message`.
    UserMessage {
        /// Who produced it.
        source: MessageSource,
        /// Its blocks.
        content: Vec<Block>,
    },
    /// A complete `assistant/message`.
    AssistantMessage {
        /// Its blocks.
        content: Vec<Block>,
    },
    /// `tool/result`: kept on the surface, never projected.
    ToolResult,
}

/// One event of the folded surface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SurfaceEvent {
    /// The event's sequence number (the line number for foreign stores).
    pub seq: u64,
    /// What it is.
    pub kind: EventKind,
}

/// The folded current conversation of one session.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Surface {
    /// Events in log order, compaction already applied.
    pub events: Vec<SurfaceEvent>,
    /// The seq of the last complete event read (0 when none).
    pub captured_through_seq: u64,
}

/// A session's whole conversation: the folded surface, plus the events that
/// compactions removed from it (what a search covers, a snapshot does not).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct History {
    /// The folded surface, exactly as [`Surface`] reads return it.
    pub surface: Surface,
    /// Events a compaction shadowed, in log order (assistant messages that
    /// never received text left out, as on the surface).
    pub shadowed: Vec<SurfaceEvent>,
}

impl History {
    /// The history as read through `captured_through_seq`, without
    /// assistant messages that never received text (as on the surface).
    pub fn finish(mut self, captured_through_seq: u64) -> History {
        self.surface.drop_empty_assistant_messages();
        self.surface.captured_through_seq = captured_through_seq;
        self.shadowed.retain(
            |e| !matches!(&e.kind, EventKind::AssistantMessage { content } if content.is_empty()),
        );
        self
    }
}

/// A history is the sink that keeps everything, shadowed events included.
impl SurfaceSink for History {
    fn push(&mut self, event: SurfaceEvent) {
        self.surface.push(event);
    }

    fn extend(&mut self, seq: u64, blocks: Vec<Block>) {
        self.surface.extend(seq, blocks);
    }

    fn shadow_through(&mut self, through: u64) {
        // Seqs increase, so the shadowed events are a prefix.
        let shadowed = self.surface.events.partition_point(|e| e.seq <= through);
        self.shadowed.extend(self.surface.events.drain(..shadowed));
    }

    fn fork(&self) -> Box<dyn SurfaceSink + Send> {
        Box::new(History::default())
    }

    fn adopt(&mut self, other: Box<dyn SurfaceSink + Send>) {
        if let Ok(other) = other.into_any().downcast::<History>() {
            *self = *other;
        }
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

/// Receives the surface of a session while its log is folded, event by
/// event, so that a consumer can keep only what it needs (a byte-budgeted
/// snapshot keeps checkpoints and a newest suffix) instead of the whole log.
/// [`Surface`] is the sink that keeps everything.
pub trait SurfaceSink {
    /// A new event; its seq is greater than every seq pushed before.
    fn push(&mut self, event: SurfaceEvent);
    /// More blocks for the assistant message pushed at `seq` (a reply
    /// written over several lines). Ignored when that event is gone.
    fn extend(&mut self, seq: u64, blocks: Vec<Block>);
    /// A compaction: every event whose seq is at most `through` is shadowed.
    fn shadow_through(&mut self, through: u64);
    /// A compaction that shadows everything pushed so far.
    fn clear(&mut self) {
        self.shadow_through(u64::MAX);
    }
    /// An empty sink configured as this one: a format that folds two
    /// candidate surfaces side by side (Codex: response items and their
    /// event copies) feeds the second one into it.
    fn fork(&self) -> Box<dyn SurfaceSink + Send>;
    /// Take the state of `other`, a sink made by [`SurfaceSink::fork`]
    /// and fed since.
    fn adopt(&mut self, other: Box<dyn SurfaceSink + Send>);
    /// The sink as [`Any`], for [`SurfaceSink::adopt`].
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
}

impl<T: SurfaceSink + ?Sized> SurfaceSink for &mut T {
    fn push(&mut self, event: SurfaceEvent) {
        (**self).push(event);
    }
    fn extend(&mut self, seq: u64, blocks: Vec<Block>) {
        (**self).extend(seq, blocks);
    }
    fn shadow_through(&mut self, through: u64) {
        (**self).shadow_through(through);
    }
    fn fork(&self) -> Box<dyn SurfaceSink + Send> {
        (**self).fork()
    }
    fn adopt(&mut self, other: Box<dyn SurfaceSink + Send>) {
        (**self).adopt(other);
    }
    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        // A borrowed sink has no state of its own to hand over.
        Box::new(())
    }
}

impl SurfaceSink for Box<dyn SurfaceSink + Send> {
    fn push(&mut self, event: SurfaceEvent) {
        (**self).push(event);
    }
    fn extend(&mut self, seq: u64, blocks: Vec<Block>) {
        (**self).extend(seq, blocks);
    }
    fn shadow_through(&mut self, through: u64) {
        (**self).shadow_through(through);
    }
    fn fork(&self) -> Box<dyn SurfaceSink + Send> {
        (**self).fork()
    }
    fn adopt(&mut self, other: Box<dyn SurfaceSink + Send>) {
        (**self).adopt(other);
    }
    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        (*self).into_any()
    }
}

impl SurfaceSink for Surface {
    fn push(&mut self, event: SurfaceEvent) {
        self.events.push(event);
    }

    fn extend(&mut self, seq: u64, blocks: Vec<Block>) {
        if let Ok(at) = self.events.binary_search_by_key(&seq, |e| e.seq) {
            if let EventKind::AssistantMessage { content } = &mut self.events[at].kind {
                content.extend(blocks);
            }
        }
    }

    fn shadow_through(&mut self, through: u64) {
        // Seqs increase, so the shadowed events are a prefix.
        let shadowed = self.events.partition_point(|e| e.seq <= through);
        self.events.drain(..shadowed);
    }

    fn fork(&self) -> Box<dyn SurfaceSink + Send> {
        Box::new(Surface::default())
    }

    fn adopt(&mut self, other: Box<dyn SurfaceSink + Send>) {
        if let Ok(other) = other.into_any().downcast::<Surface>() {
            *self = *other;
        }
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

impl Surface {
    /// Drop assistant messages that never received a block.
    pub fn drop_empty_assistant_messages(&mut self) {
        self.events.retain(
            |e| !matches!(&e.kind, EventKind::AssistantMessage { content } if content.is_empty()),
        );
    }
}

/// A session read whole: its record, latest title and folded surface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSnapshot {
    /// The listed record.
    pub record: SessionRecord,
    /// The latest title, when any.
    pub title: Option<String>,
    /// The folded surface.
    pub surface: Surface,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(path: &str, created_at: &str) -> SessionRecord {
        SessionRecord::new(
            crate::store::native::KIND,
            Arc::from(Path::new("/s")),
            path.into(),
            path.into(),
            None,
            created_at.into(),
        )
    }

    #[test]
    fn record_order_is_newest_instant_first_then_path_bytes() {
        let mut records = [
            record("/s/unparsed-b.jsonl", "yesterday"),
            record("/s/old.jsonl", "2025-01-01T00:00:00Z"),
            record("/s/unparsed-a.jsonl", ""),
            // The same instant as /s/same-b, spelled in another offset.
            record("/s/same-c.jsonl", "2025-03-01T12:00:00+02:00"),
            record("/s/same-b.jsonl", "2025-03-01T10:00:00.000Z"),
            record("/s/new.jsonl", "2025-03-01T10:00:00.5Z"),
            record("/s/Z.jsonl", "2025-01-01T00:00:00Z"),
        ];
        records.sort_by(record_order);
        let paths: Vec<_> = records.iter().map(|r| r.path.to_str().unwrap()).collect();
        assert_eq!(
            paths,
            [
                "/s/new.jsonl",
                "/s/same-b.jsonl",
                "/s/same-c.jsonl",
                "/s/Z.jsonl",
                "/s/old.jsonl",
                "/s/unparsed-a.jsonl",
                "/s/unparsed-b.jsonl",
            ]
        );
    }

    #[test]
    fn store_kinds_are_named_and_padded() {
        let names: Vec<_> = crate::store::REGISTRY
            .iter()
            .map(|k| format!("[{k:<6}]"))
            .collect();
        assert_eq!(
            names,
            ["[hydra ]", "[claude]", "[codex ]", "[gemini]", "[opencode]"]
        );
    }
}
