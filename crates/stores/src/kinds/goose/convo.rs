//! One Goose conversation mapped onto the surface, without I/O, so the
//! rules can be tested on their own: the messages of a session (rows of
//! `sessions.db`, or lines of a legacy `.jsonl`), each `{role, content,
//! metadata}` with `content` Goose's `MessageContent` array (tagged by
//! `type`: `text`, `image`, `toolRequest`, `toolResponse`, `thinking`,
//! `redactedThinking`, `systemNotification`, `actionRequired`, …) and
//! `metadata` `{userVisible, agentVisible}` (both true when absent).

use serde::Deserialize;
use serde_json::Value;

use crate::kinds::foreign::{text_items, title_from_text, SurfaceBuilder};
use crate::model::SurfaceSink;

/// One stored message, leniently: every field may be missing.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Message {
    /// `user` or `assistant`.
    #[serde(default)]
    pub role: Option<String>,
    /// The `MessageContent` array.
    #[serde(default)]
    pub content: Option<Value>,
    /// `{userVisible, agentVisible}`.
    #[serde(default)]
    pub metadata: Option<Value>,
}

impl Message {
    /// A message from a database row's columns (`content_json` and
    /// `metadata_json` are JSON text); `None` when the content does not
    /// parse.
    pub fn from_row(role: String, content_json: &str, metadata_json: Option<&str>) -> Message {
        Message {
            role: Some(role),
            content: serde_json::from_str(content_json).ok(),
            metadata: metadata_json.and_then(|m| serde_json::from_str(m).ok()),
        }
    }

    /// A metadata flag (`userVisible`, `agentVisible`), true when absent,
    /// as Goose defaults it.
    fn flag(&self, name: &str) -> bool {
        self.metadata
            .as_ref()
            .and_then(|m| m.get(name))
            .and_then(Value::as_bool)
            .unwrap_or(true)
    }

    /// The texts of its `text` items (never `thinking`, tool requests or
    /// responses, notifications).
    fn texts(&self) -> Vec<String> {
        text_items(self.content.as_ref())
            .into_iter()
            .filter(|t| !t.trim().is_empty())
            .map(str::to_owned)
            .collect()
    }
}

/// What one message is to the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Turn {
    /// What the person typed (a visible user message's text items).
    Prompt(Vec<String>),
    /// The assistant's text items.
    Reply(Vec<String>),
    /// A compaction's summary: a user message only the agent sees.
    Summary(Vec<String>),
    /// Nothing the surface shows: tool responses, the continuation text
    /// Goose adds after a compaction, a message neither side sees.
    Hidden,
}

/// What `message` is to the conversation. Goose's compaction
/// (`context_mgmt::compact_messages`) keeps every earlier message for the
/// person (`agentVisible: false`), then adds the summary as a user
/// message the person does not see (`userVisible: false, agentVisible:
/// true`) and an assistant "Your context was compacted…" message just as
/// hidden; the latest prompt is copied after them, its original made
/// invisible to both.
pub fn turn_of(message: &Message) -> Turn {
    let user_visible = message.flag("userVisible");
    let texts = message.texts();
    if texts.is_empty() {
        return Turn::Hidden;
    }
    match message.role.as_deref() {
        Some("user") if !user_visible && message.flag("agentVisible") => Turn::Summary(texts),
        _ if !user_visible => Turn::Hidden,
        Some("user") => Turn::Prompt(texts),
        Some("assistant") => Turn::Reply(texts),
        _ => Turn::Hidden,
    }
}

/// Fold `messages` into `sink`; the result is the last seq read (the
/// message count). A compaction's summary shadows what came before it and
/// is the compact checkpoint.
pub fn fold(messages: &[Message], sink: &mut dyn SurfaceSink) -> u64 {
    let mut builder = SurfaceBuilder::new(sink);
    let mut seq = 0;
    for message in messages {
        seq += 1;
        match turn_of(message) {
            Turn::Prompt(texts) => builder.user(seq, texts),
            Turn::Reply(texts) => builder.assistant(seq, None, texts),
            Turn::Summary(texts) => {
                builder.shadow();
                builder.checkpoint(seq, texts);
            }
            Turn::Hidden => {}
        }
        // Tools of the messages the person sees (not of what compaction
        // rewrote for the agent alone).
        if builder.wants_tools() && message.flag("userVisible") {
            for tool in crate::kinds::tools::goose_items(message.content.as_ref()) {
                builder.tool(seq, tool);
            }
        }
    }
    seq
}

/// The first line of the first prompt, cut as every kind cuts it.
pub fn first_prompt_title(messages: &[Message]) -> Option<String> {
    messages.iter().find_map(|m| match turn_of(m) {
        Turn::Prompt(texts) => texts.iter().find_map(|t| title_from_text(t)),
        _ => None,
    })
}

/// The names Goose gives a session before it has one of its own: the
/// CLI's `CLI Session` (`goose session`, `goose run`), and nothing.
pub fn is_placeholder_name(name: &str) -> bool {
    let name = name.trim();
    name.is_empty() || name == "CLI Session"
}

/// A time as Goose's database stores it (`CURRENT_TIMESTAMP`'s
/// `YYYY-MM-DD HH:MM:SS` in UTC, or sqlx's RFC 3339 of a `DateTime<Utc>`)
/// as RFC 3339; `None` when it is neither.
pub fn rfc3339(stored: &str) -> Option<String> {
    let stored = stored.trim();
    let mut text = stored.replacen(' ', "T", 1);
    let has_zone = text.ends_with('Z') || {
        let time = text.split_once('T').map_or("", |(_, t)| t);
        time.contains('+') || time.contains('-')
    };
    if !has_zone {
        text.push('Z');
    }
    session_ref_core::time::Instant::parse_rfc3339(&text).map(|_| text)
}

/// A legacy session file (`sessions/<id>.jsonl`, Goose before its
/// database): a metadata line (`{working_dir, description, …}`), then
/// one message per line. A line that does not parse is passed over.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Legacy {
    /// `working_dir` of the metadata line.
    pub working_dir: Option<String>,
    /// `description` of the metadata line (the session's name).
    pub description: Option<String>,
    /// `created` (Unix seconds) of the first message.
    pub created: Option<i64>,
    /// The messages.
    pub messages: Vec<Message>,
}

impl Legacy {
    /// A legacy file's lines read.
    pub fn parse(bytes: &[u8]) -> Legacy {
        let mut legacy = Legacy::default();
        for line in bytes.split(|&b| b == b'\n') {
            let Ok(value) = serde_json::from_slice::<Value>(line) else {
                continue;
            };
            if value.get("role").is_some() {
                if legacy.created.is_none() {
                    legacy.created = value.get("created").and_then(Value::as_i64);
                }
                if let Ok(message) = serde_json::from_value(value) {
                    legacy.messages.push(message);
                }
            } else if legacy.messages.is_empty() {
                let field = |k: &str| value.get(k).and_then(Value::as_str).map(str::to_owned);
                legacy.working_dir = field("working_dir").filter(|d| !d.is_empty());
                legacy.description = field("description");
            }
        }
        legacy
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::foreign::testing::texts;
    use crate::model::Surface;
    use serde_json::json;

    fn message(value: Value) -> Message {
        serde_json::from_value(value).unwrap()
    }

    fn user(text: &str) -> Message {
        message(
            json!({"role": "user", "created": 1, "content": [{"type": "text", "text": text}],
            "metadata": {"userVisible": true, "agentVisible": true}}),
        )
    }

    fn assistant(content: Value, metadata: Value) -> Message {
        message(
            json!({"role": "assistant", "created": 2, "content": content, "metadata": metadata}),
        )
    }

    #[test]
    fn typed_text_is_a_visible_user_message_s_text_items() {
        let tool = message(
            json!({"role": "user", "content": [{"type": "toolResponse", "id": "t1",
            "toolResult": {"status": "success", "value": [{"type": "text", "text": "SECRET OUTPUT"}]}}]}),
        );
        let reply = assistant(
            json!([{"type": "thinking", "thinking": "HIDDEN THOUGHT", "signature": "s"},
                {"type": "text", "text": "Done."},
                {"type": "toolRequest", "id": "t1", "toolCall": {"status": "success",
                    "value": {"name": "developer__shell", "arguments": {"command": "ls"}}}}]),
            json!({}),
        );
        assert_eq!(
            turn_of(&user("fix it")),
            Turn::Prompt(vec!["fix it".into()])
        );
        assert_eq!(turn_of(&tool), Turn::Hidden);
        assert_eq!(turn_of(&reply), Turn::Reply(vec!["Done.".into()]));
        let note = message(
            json!({"role": "assistant", "content": [{"type": "systemNotification",
            "notificationType": "inlineMessage", "msg": "NOTICE"}]}),
        );
        assert_eq!(turn_of(&note), Turn::Hidden);
    }

    #[test]
    fn a_compaction_shadows_what_came_before_and_hides_its_continuation() {
        let hidden_to_agent = json!({"userVisible": true, "agentVisible": false});
        let agent_only = json!({"userVisible": false, "agentVisible": true});
        let mut old = user("first request");
        old.metadata = Some(hidden_to_agent.clone());
        let mut invisible = user("latest request");
        invisible.metadata = Some(json!({"userVisible": false, "agentVisible": false}));
        let mut summary = user("SUMMARY of the work");
        summary.metadata = Some(agent_only.clone());
        let messages = vec![
            old,
            assistant(
                json!([{"type": "text", "text": "old reply"}]),
                hidden_to_agent,
            ),
            invisible,
            summary,
            assistant(
                json!([{"type": "text", "text": "Your context was compacted."}]),
                agent_only,
            ),
            user("latest request"),
            assistant(json!([{"type": "text", "text": "new reply"}]), json!({})),
        ];
        let mut surface = Surface::default();
        assert_eq!(fold(&messages, &mut surface), 7);
        assert_eq!(
            texts(&surface),
            [
                (4, "checkpoint", "SUMMARY of the work".to_owned()),
                (6, "user", "latest request".to_owned()),
                (7, "assistant", "new reply".to_owned()),
            ]
        );
        assert_eq!(
            first_prompt_title(&messages).as_deref(),
            Some("first request")
        );
    }

    #[test]
    fn stored_times_become_rfc3339() {
        assert_eq!(
            rfc3339("2026-11-30 09:15:02").as_deref(),
            Some("2026-11-30T09:15:02Z")
        );
        assert_eq!(
            rfc3339("2026-11-30T09:15:02.5+00:00").as_deref(),
            Some("2026-11-30T09:15:02.5+00:00")
        );
        assert_eq!(rfc3339("yesterday"), None);
        assert!(is_placeholder_name("CLI Session"));
        assert!(is_placeholder_name(" "));
        assert!(!is_placeholder_name("Fix the parser"));
    }

    #[test]
    fn a_legacy_file_is_a_metadata_line_then_messages() {
        let file = [
            json!({"working_dir": "/w", "description": "Old name", "message_count": 2}).to_string(),
            json!({"role": "user", "created": 1_700_000_000, "content": [{"type": "text", "text": "hello"}]}).to_string(),
            "{torn".to_owned(),
            json!({"role": "assistant", "created": 1_700_000_001, "content": [{"type": "text", "text": "hi"}]}).to_string(),
        ]
        .join("\n");
        let legacy = Legacy::parse(file.as_bytes());
        assert_eq!(legacy.working_dir.as_deref(), Some("/w"));
        assert_eq!(legacy.description.as_deref(), Some("Old name"));
        assert_eq!(legacy.created, Some(1_700_000_000));
        assert_eq!(legacy.messages.len(), 2);
    }
}
