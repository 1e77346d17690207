//! The searchable text of a session: the messages a snapshot projects (what
//! people typed, compaction summaries, assistant text), over the whole
//! history, including turns a compaction has since replaced.
//!
//! The selection is the snapshot's own rule: the shadowed events are run
//! through the same [`projection::project`] as the surface, so tool output,
//! reasoning, tool calls and injected context can never be searched while
//! a snapshot leaves them out. Pure: takes a [`History`], returns values.

use crate::model::{History, Surface};
use session_ref_core::projection::{self, Role};

/// The most text one message contributes to search (and so to the search
/// index in the cache): its first 4 MiB. A single log line can hold a
/// message of gigabytes; searching it whole would copy all of it into the
/// cache for text nobody types a query to find.
pub const MAX_MESSAGE_TEXT: usize = 4 << 20;

/// The most text one session contributes to search in all: 16 MiB, its
/// messages in history order until then (a message that would pass the
/// cap is cut, the later ones left out).
pub const MAX_SESSION_TEXT: usize = 16 << 20;

/// One searchable message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// Who spoke.
    pub role: Role,
    /// Its text (text blocks joined by `"\n"`, never empty).
    pub text: String,
    /// A compaction summary (compact checkpoint).
    pub checkpoint: bool,
    /// Replaced by a compaction: in the history, not in the snapshot.
    pub before_compaction: bool,
}

/// The searchable messages of a session in history order: those
/// compactions replaced first (log order), then the snapshot's. A replaced
/// message the surface carries again verbatim (Codex's replacement history
/// keeps the user's prompts) is listed once, as part of the snapshot.
pub fn conversation(history: &History) -> Vec<Message> {
    let current = projection::project(&history.surface);
    let shadowed_surface = Surface {
        events: history.shadowed.clone(),
        captured_through_seq: 0,
    };
    let earlier = projection::project(&shadowed_surface);
    let mut messages: Vec<Message> = earlier
        .into_iter()
        .filter(|old| {
            !current
                .iter()
                .any(|now| now.role == old.role && now.text == old.text)
        })
        .map(|item| Message {
            role: item.role,
            text: item.text.into_owned(),
            checkpoint: item.checkpoint,
            before_compaction: true,
        })
        .collect();
    messages.extend(current.into_iter().map(|item| Message {
        role: item.role,
        text: item.text.into_owned(),
        checkpoint: item.checkpoint,
        before_compaction: false,
    }));
    bounded(messages)
}

/// `messages` within [`MAX_MESSAGE_TEXT`] each and [`MAX_SESSION_TEXT`] in
/// all, each cut at a character boundary.
fn bounded(messages: Vec<Message>) -> Vec<Message> {
    let mut left = MAX_SESSION_TEXT;
    let mut kept = Vec::with_capacity(messages.len());
    for mut message in messages {
        let cap = MAX_MESSAGE_TEXT.min(left);
        if message.text.len() > cap {
            let mut at = cap;
            while !message.text.is_char_boundary(at) {
                at -= 1;
            }
            message.text.truncate(at);
            message.text.shrink_to_fit();
        }
        if message.text.is_empty() {
            break;
        }
        left -= message.text.len();
        kept.push(message);
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_session_contributes_bounded_text() {
        let said = |text: String| Message {
            role: Role::User,
            text,
            checkpoint: false,
            before_compaction: false,
        };
        // A huge message is cut at a character boundary (é is two bytes).
        let huge = "é".repeat(MAX_MESSAGE_TEXT);
        let kept = bounded(vec![said(huge), said("short".to_owned())]);
        assert_eq!(kept[0].text.len(), MAX_MESSAGE_TEXT);
        assert_eq!(kept[1].text, "short");
        // Many large messages stop at the session's cap.
        let many = (0..10).map(|_| said("x".repeat(3 << 20))).collect();
        let kept = bounded(many);
        let total: usize = kept.iter().map(|m| m.text.len()).sum();
        assert_eq!(total, MAX_SESSION_TEXT);
        assert_eq!(kept.len(), 6);
        // Normal sessions are untouched.
        let small = vec![said("a".to_owned()), said("b".to_owned())];
        assert_eq!(bounded(small.clone()), small);
    }
    use crate::model::{Block, EventKind, MessageSource, SurfaceEvent};

    fn user(seq: u64, source: MessageSource, text: &str) -> SurfaceEvent {
        SurfaceEvent {
            seq,
            kind: EventKind::UserMessage {
                source,
                content: vec![Block::Text(text.into())],
            },
        }
    }

    fn assistant(seq: u64, blocks: Vec<Block>) -> SurfaceEvent {
        SurfaceEvent {
            seq,
            kind: EventKind::AssistantMessage { content: blocks },
        }
    }

    #[test]
    fn shadowed_turns_come_first_and_are_marked() {
        let history = History {
            shadowed: vec![
                user(1, MessageSource::User, "old question"),
                assistant(
                    2,
                    vec![
                        Block::Other("reasoning".into()),
                        Block::Text("old answer".into()),
                    ],
                ),
                SurfaceEvent {
                    seq: 3,
                    kind: EventKind::ToolResult,
                },
                user(4, MessageSource::SessionReference, "injected"),
                user(5, MessageSource::User, "kept prompt"),
            ],
            surface: Surface {
                events: vec![
                    user(6, MessageSource::Checkpoint, "summary"),
                    user(6, MessageSource::User, "kept prompt"),
                    assistant(7, vec![Block::Text("new answer".into())]),
                ],
                captured_through_seq: 7,
            },
        };
        let got: Vec<_> = conversation(&history)
            .into_iter()
            .map(|m| (m.role, m.text, m.checkpoint, m.before_compaction))
            .collect();
        assert_eq!(
            got,
            [
                (Role::User, "old question".into(), false, true),
                (Role::Assistant, "old answer".into(), false, true),
                (Role::User, "summary".into(), true, false),
                (Role::User, "kept prompt".into(), false, false),
                (Role::Assistant, "new answer".into(), false, false),
            ]
        );
    }
}
