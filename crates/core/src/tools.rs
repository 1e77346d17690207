//! The sink `export --tools` folds a session into: the surface as every
//! other read folds it, plus the tool calls and results the fold reports
//! beside it ([`crate::model::SurfaceSink::tool`]), shadowed by the same
//! compactions. Kept apart from the surface so that snapshots, previews
//! and search, whose sinks ask for no tools, read and hold what they did.

use std::any::Any;
use std::collections::HashMap;

use crate::model::{Block, Surface, SurfaceEvent, SurfaceSink, ToolEvent, ToolPart};

/// A surface with the tool events read beside it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolSink {
    /// The folded surface, as [`Surface`]'s own sink folds it.
    pub surface: Surface,
    /// Tool events with the seq each was read at, in log order.
    pub tools: Vec<(u64, ToolEvent)>,
}

impl ToolSink {
    /// The sink once the log is read: assistant messages that never
    /// received a block dropped (as every surface read does), and each
    /// result without a name named after the call it answers.
    pub fn finish(mut self, captured_through_seq: u64) -> ToolSink {
        self.surface.drop_empty_assistant_messages();
        self.surface.captured_through_seq = captured_through_seq;
        let names: HashMap<String, String> = self
            .tools
            .iter()
            .filter(|(_, t)| t.part == ToolPart::Call)
            .filter_map(|(_, t)| Some((t.id.clone()?, t.name.clone()?)))
            .collect();
        for (_, tool) in &mut self.tools {
            if tool.name.is_none() {
                tool.name = tool.id.as_ref().and_then(|id| names.get(id)).cloned();
            }
        }
        self
    }
}

impl SurfaceSink for ToolSink {
    fn push(&mut self, event: SurfaceEvent) {
        self.surface.push(event);
    }

    fn extend(&mut self, seq: u64, blocks: Vec<Block>) {
        self.surface.extend(seq, blocks);
    }

    fn shadow_through(&mut self, through: u64) {
        self.surface.shadow_through(through);
        // Seqs increase, so the shadowed tools are a prefix.
        let shadowed = self.tools.partition_point(|(seq, _)| *seq <= through);
        self.tools.drain(..shadowed);
    }

    fn fork(&self) -> Box<dyn SurfaceSink + Send> {
        Box::new(ToolSink::default())
    }

    fn adopt(&mut self, other: Box<dyn SurfaceSink + Send>) {
        if let Ok(other) = other.into_any().downcast::<ToolSink>() {
            *self = *other;
        }
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }

    fn wants_tools(&self) -> bool {
        true
    }

    fn tool(&mut self, seq: u64, tool: ToolEvent) {
        self.tools.push((seq, tool));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{EventKind, MessageSource, TOOL_TEXT_CAP};

    fn call(id: &str, name: &str) -> ToolEvent {
        ToolEvent::new(ToolPart::Call, Some(name.into()), Some(id.into()), "{}")
    }

    fn result(id: &str, text: &str) -> ToolEvent {
        ToolEvent::new(ToolPart::Result, None, Some(id.into()), text)
    }

    #[test]
    fn compaction_shadows_tools_and_results_take_their_calls_name() {
        let mut sink = ToolSink::default();
        sink.push(SurfaceEvent {
            seq: 1,
            kind: EventKind::UserMessage {
                source: MessageSource::User,
                content: vec![Block::Text("hi".into())],
            },
        });
        sink.tool(1, call("a", "old"));
        sink.tool(2, result("a", "gone"));
        sink.shadow_through(2);
        sink.tool(3, call("b", "Bash"));
        sink.tool(4, result("b", "ok"));
        sink.tool(5, result("unknown", "?"));
        let done = sink.finish(5);
        assert!(done.surface.events.is_empty());
        let got: Vec<_> = done
            .tools
            .iter()
            .map(|(seq, t)| (*seq, t.name.as_deref(), t.text.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (3, Some("Bash"), "{}"),
                (4, Some("Bash"), "ok"),
                (5, None, "?")
            ]
        );
    }

    #[test]
    fn long_text_is_cut_at_a_character_and_says_how_much() {
        let text = format!("{}é{}", "a".repeat(TOOL_TEXT_CAP - 1), "b".repeat(100));
        let tool = result("x", &text);
        assert_eq!(tool.cut, (text.len() - (TOOL_TEXT_CAP - 1)) as u64);
        assert_eq!(
            tool.text,
            format!("{}\n\u{2026} 102 bytes cut", "a".repeat(TOOL_TEXT_CAP - 1))
        );
        assert_eq!(result("x", "short").cut, 0);
    }

    #[test]
    fn other_sinks_want_no_tools() {
        let mut surface = Surface::default();
        assert!(!surface.wants_tools());
        surface.tool(1, call("a", "b"));
        assert_eq!(surface, Surface::default());
        let forked = ToolSink::default().fork();
        assert!(forked.wants_tools());
    }
}
