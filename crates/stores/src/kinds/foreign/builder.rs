//! Building a surface from an agent's transcript: what one line says
//! ([`LineSays`], worked out without state so lines parse on every core)
//! applied in line order ([`SurfaceBuilder`]). The folds of a whole log
//! of such lines are [`super`]'s (`fold_said_lines`, `read_said_lines`).

use crate::model::{
    Block, EventKind, MessageSource, Surface, SurfaceEvent, SurfaceSink, ToolEvent,
};
use std::collections::HashMap;

/// What one line of an agent's transcript says to the surface, worked out
/// without state (so lines can be parsed on both cores) and applied in line
/// order by [`SurfaceBuilder::apply`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineSays {
    /// Nothing the surface keeps.
    Nothing,
    /// A direct user message ([`SurfaceBuilder::user`]).
    User(Vec<String>),
    /// A compact checkpoint ([`SurfaceBuilder::checkpoint`]).
    Checkpoint(Vec<String>),
    /// Assistant text ([`SurfaceBuilder::assistant`]).
    Assistant {
        /// The merge key: lines sharing it form one message.
        key: Option<String>,
        /// The texts.
        texts: Vec<String>,
    },
    /// A compaction ([`SurfaceBuilder::shadow`]).
    Shadow,
}

/// Builds a surface while a log is read forward, into any [`SurfaceSink`].
///
/// Assistant messages written over several lines (one `message.id`) are
/// merged into the first line's event; a compaction clears everything
/// before it, merge keys included, since the conversation restarts there.
#[derive(Debug, Default)]
pub struct SurfaceBuilder<S = Surface> {
    sink: S,
    /// The seq of the event each merge key first appeared in.
    by_message: HashMap<String, u64>,
}

impl<S: SurfaceSink> SurfaceBuilder<S> {
    /// A builder feeding `sink`.
    pub fn new(sink: S) -> Self {
        SurfaceBuilder {
            sink,
            by_message: HashMap::new(),
        }
    }

    /// A builder feeding `sink` that goes on from a fold whose open merge
    /// keys were `keys` ([`SurfaceBuilder::merge_keys`]).
    pub fn resuming(sink: S, keys: Vec<(String, u64)>) -> Self {
        SurfaceBuilder {
            sink,
            by_message: keys.into_iter().collect(),
        }
    }

    /// The merge keys seen since the last compaction, with the seq of the
    /// event each belongs to, sorted: the state a resumed fold needs.
    pub fn merge_keys(&self) -> Vec<(String, u64)> {
        let mut keys: Vec<(String, u64)> = self
            .by_message
            .iter()
            .map(|(k, &v)| (k.clone(), v))
            .collect();
        keys.sort();
        keys
    }

    /// A direct user message.
    pub fn user(&mut self, seq: u64, texts: Vec<String>) {
        self.push(seq, MessageSource::User, texts);
    }

    /// A compact checkpoint carrying a compaction summary.
    pub fn checkpoint(&mut self, seq: u64, texts: Vec<String>) {
        self.push(seq, MessageSource::Checkpoint, texts);
    }

    fn push(&mut self, seq: u64, source: MessageSource, texts: Vec<String>) {
        let content = texts.into_iter().map(Block::Text).collect();
        self.sink.push(SurfaceEvent {
            seq,
            kind: EventKind::UserMessage { source, content },
        });
    }

    /// Assistant text. With a `key`, lines sharing it form one message,
    /// placed where the key first appeared; without one, each call is its
    /// own message. A key first seen with no text still holds its place.
    pub fn assistant(&mut self, seq: u64, key: Option<&str>, texts: Vec<String>) {
        let blocks = texts.into_iter().map(Block::Text).collect();
        if let Some(key) = key {
            if let Some(&first) = self.by_message.get(key) {
                self.sink.extend(first, blocks);
                return;
            }
            self.by_message.insert(key.to_owned(), seq);
        }
        self.sink.push(SurfaceEvent {
            seq,
            kind: EventKind::AssistantMessage { content: blocks },
        });
    }

    /// A compaction: everything so far is shadowed.
    pub fn shadow(&mut self) {
        self.sink.clear();
        self.by_message.clear();
    }

    /// Apply what line `seq` says.
    pub fn apply(&mut self, seq: u64, says: LineSays) {
        match says {
            LineSays::Nothing => {}
            LineSays::User(texts) => self.user(seq, texts),
            LineSays::Checkpoint(texts) => self.checkpoint(seq, texts),
            LineSays::Assistant { key, texts } => self.assistant(seq, key.as_deref(), texts),
            LineSays::Shadow => self.shadow(),
        }
    }

    /// Whether the sink keeps tool calls and results
    /// ([`SurfaceSink::wants_tools`]): a fold reads them only then.
    pub fn wants_tools(&self) -> bool {
        self.sink.wants_tools()
    }

    /// A tool call or result read at `seq` ([`SurfaceSink::tool`]).
    pub fn tool(&mut self, seq: u64, tool: ToolEvent) {
        self.sink.tool(seq, tool);
    }

    /// The sink, fed with everything built.
    pub fn into_sink(self) -> S {
        self.sink
    }
}

impl SurfaceBuilder<Surface> {
    /// The surface, without assistant messages that never received text.
    pub fn finish(self, captured_through_seq: u64) -> Surface {
        let mut surface = self.sink;
        surface.drop_empty_assistant_messages();
        surface.captured_through_seq = captured_through_seq;
        surface
    }
}
