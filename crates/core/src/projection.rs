//! Projection of a folded surface onto the conversation a snapshot carries (SPEC §7).

use std::borrow::Cow;

use crate::model::{Block, EventKind, MessageSource, Surface, SurfaceEvent};

/// Who spoke a projected item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The person, or a compact checkpoint.
    User,
    /// The assistant.
    Assistant,
}

impl Role {
    /// `"user"` or `"assistant"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One projected conversation item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectedItem<'a> {
    /// Who spoke.
    pub role: Role,
    /// Text blocks joined by `"\n"`; never empty. Borrowed from the surface
    /// when the message has one text block (the common case), so a large
    /// session is not held in memory twice.
    pub text: Cow<'a, str>,
    /// Whether this is a compact checkpoint (never dropped by retention).
    pub checkpoint: bool,
}

/// Project the surface: direct user messages, compact checkpoints and
/// assistant messages with non-empty text, in order. Tool results, injected
/// session-reference context and other generated messages are left out.
pub fn project(surface: &Surface) -> Vec<ProjectedItem<'_>> {
    surface.events.iter().filter_map(project_event).collect()
}

/// What one surface event projects to ([`project`]), `None` when it is
/// left out.
pub fn project_event(event: &SurfaceEvent) -> Option<ProjectedItem<'_>> {
    let (role, checkpoint, content) = match &event.kind {
        EventKind::UserMessage { source, content } => match source {
            MessageSource::User => (Role::User, false, content),
            MessageSource::Checkpoint => (Role::User, true, content),
            MessageSource::SessionReference | MessageSource::Other(_) => return None,
        },
        EventKind::AssistantMessage { content } => (Role::Assistant, false, content),
        EventKind::ToolResult => return None,
    };
    let text = text_of(content);
    (!text.is_empty()).then_some(ProjectedItem {
        role,
        text,
        checkpoint,
    })
}

/// [`join_text`], borrowed when there is at most one text block.
fn text_of(content: &[Block]) -> Cow<'_, str> {
    let mut texts = content.iter().filter_map(|block| match block {
        Block::Text(text) => Some(text.as_str()),
        Block::Other(_) => None,
    });
    match (texts.next(), texts.next()) {
        (None, _) => Cow::Borrowed(""),
        (Some(only), None) => Cow::Borrowed(only),
        (Some(_), Some(_)) => Cow::Owned(join_text(content)),
    }
}

/// Text blocks joined with `"\n"`; other blocks are ignored.
pub fn join_text(content: &[Block]) -> String {
    let mut text = String::new();
    let mut first = true;
    for block in content {
        if let Block::Text(part) = block {
            if !first {
                text.push('\n');
            }
            text.push_str(part);
            first = false;
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(seq: u64, source: MessageSource, texts: &[&str]) -> SurfaceEvent {
        SurfaceEvent {
            seq,
            kind: EventKind::UserMessage {
                source,
                content: texts.iter().map(|t| Block::Text((*t).into())).collect(),
            },
        }
    }

    #[test]
    fn keeps_only_direct_checkpoint_and_assistant_text() {
        let surface = Surface {
            events: vec![
                user(1, MessageSource::Checkpoint, &["summary"]),
                user(2, MessageSource::User, &["a", "b"]),
                user(3, MessageSource::SessionReference, &["injected"]),
                user(4, MessageSource::Other("plugin".into()), &["generated"]),
                SurfaceEvent {
                    seq: 5,
                    kind: EventKind::ToolResult,
                },
                SurfaceEvent {
                    seq: 6,
                    kind: EventKind::AssistantMessage {
                        content: vec![
                            Block::Other("reasoning".into()),
                            Block::Text("answer".into()),
                        ],
                    },
                },
                user(7, MessageSource::User, &[]),
                SurfaceEvent {
                    seq: 8,
                    kind: EventKind::AssistantMessage {
                        content: vec![Block::Text(String::new())],
                    },
                },
            ],
            captured_through_seq: 8,
        };
        let items = project(&surface);
        let got: Vec<_> = items
            .iter()
            .map(|i| (i.role, &*i.text, i.checkpoint))
            .collect();
        assert_eq!(
            got,
            [
                (Role::User, "summary", true),
                (Role::User, "a\nb", false),
                (Role::Assistant, "answer", false)
            ]
        );
        // One text block is borrowed from the surface, several are joined.
        assert!(matches!(items[0].text, Cow::Borrowed(_)));
        assert!(matches!(items[1].text, Cow::Owned(_)));
        assert!(matches!(items[2].text, Cow::Borrowed(_)));
    }

    #[test]
    fn empty_text_blocks_still_join() {
        let content = vec![Block::Text(String::new()), Block::Text(String::new())];
        assert_eq!(join_text(&content), "\n");
    }
}
