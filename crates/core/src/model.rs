//! The conversation model every store kind folds its log into (SPEC §2):
//! surface events, their blocks, and the [`SurfaceSink`] a fold feeds.
//!
//! Pure data: a store reads a file into these types; projection,
//! retention and rendering read them back.

use std::any::Any;

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

/// Which side of a tool's use a [`ToolEvent`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolPart {
    /// The model asked for the tool to run (its name and input).
    Call,
    /// What the tool gave back.
    Result,
}

/// The most bytes of one tool call's input or one result's output an
/// export keeps ([`ToolEvent::new`]); the rest is cut, and said so.
pub const TOOL_TEXT_CAP: usize = 8 * 1024;

/// A tool call or a tool's result, for `export --tools` only: a fold
/// reports them ([`SurfaceSink::tool`]) to a sink that asks
/// ([`SurfaceSink::wants_tools`]); they never reach a surface, so
/// snapshots, previews and search never see them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolEvent {
    /// A call or a result.
    pub part: ToolPart,
    /// The tool's name, when the line says it (a call's; a result's is
    /// found through its call's id).
    pub name: Option<String>,
    /// The call's id (for a result: the id of the call it answers).
    pub id: Option<String>,
    /// The input or output, at most [`TOOL_TEXT_CAP`] bytes, followed by a
    /// line `… N bytes cut` when longer.
    pub text: String,
    /// How many bytes were cut.
    pub cut: u64,
}

impl ToolEvent {
    /// A tool event with `text` cut to [`TOOL_TEXT_CAP`] bytes (at a
    /// character boundary), the cut said on a last line.
    pub fn new(part: ToolPart, name: Option<String>, id: Option<String>, text: &str) -> Self {
        let mut end = text.len().min(TOOL_TEXT_CAP);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let cut = (text.len() - end) as u64;
        let mut kept = text[..end].to_owned();
        if cut > 0 {
            kept.push_str(&format!("\n\u{2026} {cut} bytes cut"));
        }
        ToolEvent {
            part,
            name,
            id,
            text: kept,
            cut,
        }
    }
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
    /// Whether this sink keeps tool calls and results
    /// ([`SurfaceSink::tool`]). `false` by default: a fold reads tool
    /// content only for a sink that answers `true` (`export --tools`), so
    /// every other read costs what it did.
    fn wants_tools(&self) -> bool {
        false
    }
    /// A tool call or result read at `seq` (after the event pushed at
    /// `seq`, if any). Ignored by default.
    fn tool(&mut self, seq: u64, tool: ToolEvent) {
        let _ = (seq, tool);
    }
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
    fn wants_tools(&self) -> bool {
        (**self).wants_tools()
    }
    fn tool(&mut self, seq: u64, tool: ToolEvent) {
        (**self).tool(seq, tool);
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
    fn wants_tools(&self) -> bool {
        (**self).wants_tools()
    }
    fn tool(&mut self, seq: u64, tool: ToolEvent) {
        (**self).tool(seq, tool);
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
