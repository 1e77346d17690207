//! One Cline session's messages file (`<id>.messages.json`) mapped onto
//! the surface, without I/O beyond the bytes given, so the rules can be
//! tested on their own.
//!
//! The file is one JSON object rewritten whole after every turn,
//! `{version, updated_at, agent, sessionId, origin, messages: […],
//! system_prompt}`; each message is `{id, role, ts, content, metadata?}`
//! with Anthropic-style content blocks (`text`, `thinking`, `tool_use`,
//! `tool_result`), or a plain string.

use serde::Deserialize;
use serde_json::Value;

use crate::kinds::foreign::{text_items as texts_of, title_from_text, SurfaceBuilder};
use crate::kinds::torn;
use crate::model::SurfaceSink;

/// One stored message, leniently: every field may be missing.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Message {
    /// `user` or `assistant`.
    #[serde(default)]
    pub role: Option<String>,
    /// A string, or an array of content blocks.
    #[serde(default)]
    pub content: Option<Value>,
    /// `{kind: "compaction_summary", summary, …}` on a compaction's summary.
    #[serde(default)]
    pub metadata: Option<Value>,
}

/// A messages file read as far as it is whole.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Messages {
    /// Every message that parsed, in order.
    pub messages: Vec<Message>,
    /// Whether the file ended before its JSON did (read while Cline
    /// rewrote it): the messages before the cut are kept.
    pub torn: bool,
}

/// The messages of a messages file. A file cut short (Cline rewrites it
/// whole after each turn, so a reader can meet a prefix) gives the
/// messages that were complete; any other malformed JSON is an error.
pub fn parse(bytes: &[u8]) -> Result<Messages, serde_json::Error> {
    let read = torn::parse(bytes, "messages")?;
    let messages = read
        .items
        .into_iter()
        .map(serde_json::from_value)
        .collect::<Result<_, _>>()?;
    Ok(Messages {
        messages,
        torn: read.torn,
    })
}

/// What one message is to the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Turn {
    /// What the person typed (each wrapped text block, unwrapped).
    Prompt(Vec<String>),
    /// The assistant's text blocks (never `thinking` or `tool_use`).
    Reply(Vec<String>),
    /// A compaction's summary (`metadata.kind: "compaction_summary"`).
    Summary(String),
    /// Nothing the surface shows: tool results, injected text.
    Hidden,
}

/// The text Cline wrapped a typed prompt in, `<user_input mode="act">` …
/// `</user_input>`, taken off; `None` for text not so wrapped (Cline
/// 3.0.65 wraps every genuine user message, so unwrapped user text is
/// something it added).
pub fn unwrap_typed(text: &str) -> Option<&str> {
    let rest = text.trim_start().strip_prefix("<user_input")?;
    // The opening tag ends at its first `>` (`mode="act"` holds none).
    let open_end = rest.find('>')?;
    let head = &rest[..open_end];
    if !(head.is_empty() || head.starts_with(char::is_whitespace)) {
        return None;
    }
    let body = &rest[open_end + 1..];
    let close = body.rfind("</user_input>")?;
    Some(&body[..close])
}

/// What `message` is to the conversation.
pub fn turn_of(message: &Message) -> Turn {
    let kind = message
        .metadata
        .as_ref()
        .and_then(|m| m.get("kind"))
        .and_then(Value::as_str);
    let nonblank = |t: &&str| !t.trim().is_empty();
    match message.role.as_deref() {
        Some("user") if kind == Some("compaction_summary") => {
            let summary = message
                .metadata
                .as_ref()
                .and_then(|m| m.get("summary"))
                .and_then(Value::as_str)
                .map(str::to_owned)
                .unwrap_or_else(|| {
                    let text = texts_of(message.content.as_ref()).join("\n");
                    text.strip_prefix("Context summary:")
                        .map_or(text.as_str(), str::trim_start)
                        .to_owned()
                });
            if summary.trim().is_empty() {
                Turn::Hidden
            } else {
                Turn::Summary(summary)
            }
        }
        Some("user") => {
            let typed: Vec<String> = texts_of(message.content.as_ref())
                .into_iter()
                .filter_map(unwrap_typed)
                .filter(nonblank)
                .map(str::to_owned)
                .collect();
            if typed.is_empty() {
                Turn::Hidden
            } else {
                Turn::Prompt(typed)
            }
        }
        Some("assistant") => Turn::Reply(
            texts_of(message.content.as_ref())
                .into_iter()
                .filter(nonblank)
                .map(str::to_owned)
                .collect(),
        ),
        _ => Turn::Hidden,
    }
}

/// A compaction Cline recorded beside the messages file
/// (`<id>.compaction.json`): the first `kept_from` messages of the file
/// are what it summarised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compaction {
    /// `source_message_count`: how many of the file's messages it covers.
    pub kept_from: usize,
    /// The summary (its first message, `compaction_summary`).
    pub summary: String,
}

#[derive(Deserialize)]
struct CompactionFile {
    #[serde(default)]
    source_message_count: Option<u64>,
    #[serde(default)]
    messages: Vec<Message>,
}

impl Compaction {
    /// The compaction a `<id>.compaction.json` holds; `None` when it does
    /// not parse or has no summary.
    pub fn parse(bytes: &[u8]) -> Option<Compaction> {
        let file: CompactionFile = serde_json::from_slice(bytes).ok()?;
        let summary = file.messages.iter().find_map(|m| match turn_of(m) {
            Turn::Summary(summary) => Some(summary),
            _ => None,
        })?;
        Some(Compaction {
            kept_from: usize::try_from(file.source_message_count?).ok()?,
            summary,
        })
    }
}

/// Fold `messages` into `sink`; the result is the last seq read. A
/// compaction (recorded beside the file, or a summary message in it)
/// shadows what it summarised and is the compact checkpoint: Cline keeps
/// the whole conversation in the file but works from the summary and what
/// came after it.
pub fn fold(
    messages: &[Message],
    compaction: Option<&Compaction>,
    sink: &mut dyn SurfaceSink,
) -> u64 {
    let mut builder = SurfaceBuilder::new(sink);
    let mut seq = 0;
    for (index, message) in messages.iter().enumerate() {
        if let Some(c) = compaction.filter(|c| c.kept_from == index) {
            seq += 1;
            builder.shadow();
            builder.checkpoint(seq, vec![c.summary.clone()]);
        }
        seq += 1;
        match turn_of(message) {
            Turn::Prompt(texts) => builder.user(seq, texts),
            Turn::Reply(texts) => builder.assistant(seq, None, texts),
            Turn::Summary(summary) => {
                builder.shadow();
                builder.checkpoint(seq, vec![summary]);
            }
            Turn::Hidden => {}
        }
        if builder.wants_tools() {
            let tools = message
                .content
                .as_ref()
                .map(crate::kinds::tools::in_content);
            for tool in tools.unwrap_or_default() {
                builder.tool(seq, tool);
            }
        }
    }
    if let Some(c) = compaction.filter(|c| c.kept_from >= messages.len()) {
        seq += 1;
        builder.shadow();
        builder.checkpoint(seq, vec![c.summary.clone()]);
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

/// The messages file's own `updated_at` (ISO time), read from its head:
/// Cline writes `{"version":1,"updated_at":"…",…}`, so it is within the
/// first bytes, and the file need not be parsed for it.
pub fn updated_at(head: &[u8]) -> Option<String> {
    let key = br#""updated_at""#;
    let at = memchr::memmem::find(head, key)? + key.len();
    let rest = &head[at..];
    let colon = rest.iter().position(|&b| b == b':')?;
    if !rest[..colon].iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let rest = &rest[colon + 1..];
    let open = rest.iter().position(|&b| b == b'"')?;
    if !rest[..open].iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let rest = &rest[open + 1..];
    let close = rest.iter().position(|&b| b == b'"')?;
    std::str::from_utf8(&rest[..close]).ok().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Block, EventKind, MessageSource, Surface};

    fn user(text: &str) -> Value {
        serde_json::json!({"id": "u", "role": "user", "ts": 1,
            "content": [{"type": "text", "text": text}]})
    }

    fn file(messages: &[Value]) -> Vec<u8> {
        serde_json::to_vec(&serde_json::json!({"version": 1,
            "updated_at": "2026-12-02T04:43:06.507Z", "agent": "lead",
            "sessionId": "1796186585694_m50dd",
            "origin": {"source": "cli", "mode": "user", "version": "3.0.65"},
            "messages": messages, "system_prompt": "You are Cline, SYSTEM-XYZZY"}))
        .unwrap()
    }

    fn texts(surface: &Surface) -> Vec<(String, String)> {
        surface
            .events
            .iter()
            .map(|e| match &e.kind {
                EventKind::UserMessage { source, content } => (
                    match source {
                        MessageSource::Checkpoint => "checkpoint".to_owned(),
                        _ => "user".to_owned(),
                    },
                    joined(content),
                ),
                EventKind::AssistantMessage { content } => ("assistant".into(), joined(content)),
                EventKind::ToolResult => ("tool".into(), String::new()),
            })
            .collect()
    }

    fn joined(content: &[Block]) -> String {
        content
            .iter()
            .map(|b| match b {
                Block::Text(t) => t.as_str(),
                Block::Other(_) => "?",
            })
            .collect::<Vec<_>>()
            .join("|")
    }

    fn surface_of(messages: &[Message], compaction: Option<&Compaction>) -> Surface {
        let mut surface = Surface::default();
        let last = fold(messages, compaction, &mut surface);
        surface.captured_through_seq = last;
        surface.drop_empty_assistant_messages();
        surface
    }

    #[test]
    fn typed_text_is_unwrapped_and_the_rest_of_a_user_turn_is_not_typed() {
        assert_eq!(
            unwrap_typed("<user_input mode=\"act\">fix calc.py</user_input>"),
            Some("fix calc.py")
        );
        assert_eq!(
            unwrap_typed("<user_input mode=\"plan\">a\n</user_input> in it</user_input>"),
            Some("a\n</user_input> in it")
        );
        assert_eq!(unwrap_typed("<user_input>x</user_input>"), Some("x"));
        assert_eq!(unwrap_typed("<user_inputs>x</user_inputs>"), None);
        assert_eq!(unwrap_typed("Context summary:\n\nS"), None);
        assert_eq!(unwrap_typed("<user_input mode=\"act\">never closed"), None);
        let result = serde_json::json!({"role": "user", "content": [{"type": "tool_result",
            "tool_use_id": "call_1", "name": "read_files",
            "content": [{"query": "q", "result": "TOOL-OUTPUT", "success": true}]}]});
        let parsed = parse(&file(&[
            user("<user_input mode=\"act\">héllo ✓</user_input>"),
            result,
            user("injected, not wrapped"),
            serde_json::json!({"role": "user", "content": "<user_input mode=\"act\">a string</user_input>"}),
        ]))
        .unwrap();
        assert!(!parsed.torn);
        let turns: Vec<Turn> = parsed.messages.iter().map(turn_of).collect();
        assert_eq!(
            turns,
            [
                Turn::Prompt(vec!["héllo ✓".into()]),
                Turn::Hidden,
                Turn::Hidden,
                Turn::Prompt(vec!["a string".into()]),
            ]
        );
    }

    #[test]
    fn replies_keep_text_blocks_only() {
        let reply = serde_json::json!({"id": "msg_1", "role": "assistant", "ts": 2,
            "modelInfo": {"id": "mock-model", "provider": "openai-compatible"},
            "content": [{"type": "thinking", "thinking": "REASONING"},
                        {"type": "tool_use", "id": "call_1", "name": "run_commands",
                         "input": {"commands": ["ls"]}},
                        {"type": "text", "text": "ACK: done"}]});
        let parsed = parse(&file(&[reply])).unwrap();
        assert_eq!(
            turn_of(&parsed.messages[0]),
            Turn::Reply(vec!["ACK: done".into()])
        );
    }

    #[test]
    fn a_file_cut_short_keeps_its_complete_messages() {
        let whole = file(&[
            user("<user_input mode=\"act\">one</user_input>"),
            user("<user_input mode=\"act\">two</user_input>"),
        ]);
        // Cut inside the system prompt, after the messages.
        let cut = &whole[..whole.len() - 8];
        let parsed = parse(cut).unwrap();
        assert!(parsed.torn);
        assert_eq!(parsed.messages.len(), 2);
        // Cut inside the second message: the first is kept.
        let at = memchr::memmem::find(&whole, b"two").unwrap();
        let parsed = parse(&whole[..at]).unwrap();
        assert_eq!(parsed.messages.len(), 1);
        assert!(parse(b"{\"messages\": [}").is_err());
        assert!(parse(b"").unwrap().messages.is_empty());
    }

    #[test]
    fn a_compaction_shadows_what_it_summarised() {
        let reply =
            serde_json::json!({"role": "assistant", "content": [{"type": "text", "text": "ACK"}]});
        let parsed = parse(&file(&[
            user("<user_input mode=\"act\">before</user_input>"),
            reply.clone(),
            user("<user_input mode=\"act\">after</user_input>"),
            reply,
        ]))
        .unwrap();
        let compaction = Compaction::parse(
            serde_json::json!({"conversation_id": "c", "source_message_count": 2,
                "source_prefix_hash": "h", "source_last_message_key": "k",
                "messages": [{"role": "user", "content": [{"type": "text",
                    "text": "Context summary:\n\nthe summary"}],
                    "metadata": {"kind": "compaction_summary", "displayRole": "system",
                                 "summary": "the summary", "tokensBefore": 10}}]})
            .to_string()
            .as_bytes(),
        )
        .unwrap();
        assert_eq!(compaction.kept_from, 2);
        assert_eq!(
            texts(&surface_of(&parsed.messages, Some(&compaction))),
            [
                ("checkpoint".into(), "the summary".into()),
                ("user".into(), "after".into()),
                ("assistant".into(), "ACK".into()),
            ]
        );
        assert_eq!(texts(&surface_of(&parsed.messages, None)).len(), 4);
        assert_eq!(Compaction::parse(b"{\"messages\":[]}"), None);
    }

    #[test]
    fn the_title_is_the_first_typed_line_and_updated_at_comes_from_the_head() {
        let parsed = parse(&file(&[
            user("no wrapper"),
            user("<user_input mode=\"act\">\n  first line\nsecond</user_input>"),
        ]))
        .unwrap();
        assert_eq!(
            first_prompt_title(&parsed.messages).as_deref(),
            Some("first line")
        );
        assert_eq!(
            updated_at(&file(&[])).as_deref(),
            Some("2026-12-02T04:43:06.507Z")
        );
        assert_eq!(updated_at(br#"{"updated_at" : "x"}"#).as_deref(), Some("x"));
        assert_eq!(updated_at(br#"{"updated_at": 5}"#), None);
    }
}
