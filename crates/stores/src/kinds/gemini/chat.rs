//! A Gemini CLI chat file replayed into its current conversation, and what
//! each message is to it. Pure: bytes in, [`Chat`] out.
//!
//! # Replay
//!
//! A `.jsonl` chat is a log of records replayed in order: a message record
//! is an upsert by `id` (a message rewritten with its tool calls keeps its
//! place), `{"$set": {"messages": [...]}}` replaces the whole list,
//! `{"$rewindTo": id}` drops that message and everything after it (all of
//! them when the id is unknown, as Gemini CLI does), other `$set` keys and
//! metadata lines update the chat's metadata. A legacy `.json` is one object
//! holding the list. [`parse_jsonl`] and [`parse_legacy`] are pure (bytes in,
//! [`Chat`] out); the rest of the store only finds and reads files. Records
//! are read as borrowed raw JSON text by the envelope scanner (`record`),
//! with the helpers of [`loose`](session_ref_jsonl::loose): only message texts
//! are built, and tool calls, tool output and thoughts, most of a chat's
//! bytes, are skipped.
//!
//! # Mapping
//!
//! Direct user messages are `user` records with typed text, shown as their
//! `displayContent` when present (what was typed, before `@file` expansion
//! or a custom command's template). Not direct: `user` records holding only
//! `functionResponse` parts (tool results, kept as `tool/result`), the
//! injected `<session_context>` / `<hook_context>` messages, and the
//! "Please continue." turns Gemini CLI sends on its own. Assistant messages
//! are `gemini` records' text parts (never `thoughts`, thought parts or
//! `toolCalls`). `info`, `error` and `warning` records are not conversation.
//! The title is the latest `summary` when Gemini wrote one, else the first
//! genuine prompt's first line: a slash command without arguments
//! (`displayContent` `/init`, its expansion as `content`) titles a chat only
//! when no other prompt follows.
//!
//! Seq is the 1-based line of the record that last wrote a message (in a
//! legacy `.json`, the message's 1-based position in the list, the file
//! having no line structure); `capturedThroughSeq` the last complete line
//! (the number of messages for a legacy file).

use std::collections::HashMap;

use serde_json::value::RawValue;

use super::record::{is_array, is_string, parts, Part, Record};
use crate::kinds::foreign::title_from_text;
use crate::model::{Block, EventKind, MessageSource, Surface, SurfaceEvent};
use session_ref_jsonl::loose::{is_str, is_true, raw_elements, string, RawText};

/// Openings of user messages Gemini CLI injects, which no one typed.
const INJECTED: &[&str] = &["<session_context>", "<hook_context>"];

/// Whole user texts Gemini CLI sends by itself to let the model go on
/// (`System: Please continue.` in earlier versions).
const CONTINUATIONS: &[&str] = &["Please continue.", "System: Please continue."];

/// The part that starts the expansion of `@file` references in a prompt
/// recorded without `displayContent` (older versions): what follows it was
/// read from files, not typed.
const REFERENCED_FILES: &str = "--- Content from referenced files ---";

/// What one chat message is to the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Turn {
    /// A prompt the person typed: `displayContent` when present, else the
    /// text parts of `content`, joined as Gemini CLI joins them.
    Prompt(String),
    /// A `gemini` record's reply text (possibly empty: a reply made only of
    /// thoughts or tool calls).
    Reply(String),
    /// A `user` record holding only tool results (`functionResponse`).
    ToolResult,
    /// Not conversation: injected context, a continuation, an `info`,
    /// `error` or `warning` record, or a record with nothing to show.
    Hidden,
}

/// One message of a replayed chat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// The record's `id`.
    pub id: String,
    /// The line that last wrote it (its position in a legacy `.json`).
    pub seq: u64,
    /// What it is to the conversation.
    pub turn: Turn,
}

/// One chat file, replayed: its metadata and current messages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Chat {
    /// `sessionId` of the first metadata line.
    pub session_id: Option<String>,
    /// `projectHash`: the SHA-256 hex of the project root.
    pub project_hash: Option<String>,
    /// `startTime` of the first metadata line, exactly as written.
    pub start_time: Option<String>,
    /// The latest `lastUpdated`, exactly as written.
    pub last_updated: Option<String>,
    /// `kind`: `main` or `subagent` (absent in older versions).
    pub kind: Option<String>,
    /// The latest model-written `summary`.
    pub summary: Option<String>,
    /// The current conversation, in order.
    pub messages: Vec<Message>,
    /// The last complete line (the number of messages for a legacy file).
    pub captured_through_seq: u64,
}

impl Chat {
    /// Whether this is a sub-agent's chat (part of its parent session).
    pub fn is_subagent(&self) -> bool {
        self.kind.as_deref() == Some("subagent")
    }

    /// Whether the chat holds any conversation: a prompt, a reply or a tool
    /// result. A resume stub (metadata and the injected context only) does
    /// not.
    pub fn has_conversation(&self) -> bool {
        self.messages.iter().any(|m| m.turn != Turn::Hidden)
    }

    /// The title: the latest non-blank `summary`, else the first line of
    /// the first genuine prompt, cut to 80 characters. A slash command
    /// without arguments (`/init`, recorded as its expansion with the
    /// command as `displayContent`) is no genuine prompt: it titles the
    /// chat only when no other prompt follows, as in Claude Code.
    pub fn title(&self) -> Option<String> {
        if let Some(summary) = self.summary.as_deref().and_then(title_from_text) {
            return Some(summary);
        }
        let mut prompts = self.messages.iter().filter_map(|m| match &m.turn {
            Turn::Prompt(text) => title_from_text(text),
            _ => None,
        });
        let first = prompts.next()?;
        if !is_bare_command(&first) {
            return Some(first);
        }
        Some(prompts.find(|p| !is_bare_command(p)).unwrap_or(first))
    }

    /// The folded surface (SPEC §2): prompts, reply texts and tool results
    /// in conversation order; replies without text are left out.
    pub fn surface(&self) -> Surface {
        let events = self
            .messages
            .iter()
            .filter_map(|m| {
                let kind = match &m.turn {
                    Turn::Prompt(text) => EventKind::UserMessage {
                        source: MessageSource::User,
                        content: vec![Block::Text(text.clone())],
                    },
                    Turn::Reply(text) if !text.is_empty() => EventKind::AssistantMessage {
                        content: vec![Block::Text(text.clone())],
                    },
                    Turn::ToolResult => EventKind::ToolResult,
                    Turn::Reply(_) | Turn::Hidden => return None,
                };
                Some(SurfaceEvent { seq: m.seq, kind })
            })
            .collect();
        Surface {
            events,
            captured_through_seq: self.captured_through_seq,
        }
    }

    /// Merge a metadata object (a metadata line, a `$set`, a legacy file):
    /// identity and start from the first that has them, the rest latest.
    fn merge_metadata(&mut self, fields: &Record<'_>) {
        fn first(slot: &mut Option<String>, raw: Option<RawText<'_>>) {
            if slot.is_none() {
                *slot = string(raw);
            }
        }
        fn latest(slot: &mut Option<String>, raw: Option<RawText<'_>>) {
            if let Some(value) = string(raw) {
                *slot = Some(value);
            }
        }
        first(&mut self.session_id, fields.session_id);
        first(&mut self.project_hash, fields.project_hash);
        first(&mut self.start_time, fields.start_time);
        first(&mut self.kind, fields.kind);
        latest(&mut self.last_updated, fields.last_updated);
        latest(&mut self.summary, fields.summary);
    }
}

/// The messages of a chat being replayed: an insertion-ordered map by id.
#[derive(Default)]
struct Replay {
    messages: Vec<Message>,
    by_id: HashMap<String, usize>,
}

impl Replay {
    /// Insert or replace by id; a replaced message keeps its place.
    fn upsert(&mut self, message: Message) {
        match self.by_id.get(&message.id) {
            Some(&index) => self.messages[index] = message,
            None => {
                self.by_id.insert(message.id.clone(), self.messages.len());
                self.messages.push(message);
            }
        }
    }

    fn clear(&mut self) {
        self.messages.clear();
        self.by_id.clear();
    }

    /// Drop `id` and everything after it; everything when `id` is unknown.
    fn rewind_to(&mut self, id: &str) {
        let keep = self.by_id.get(id).copied().unwrap_or(0);
        for dropped in self.messages.drain(keep..) {
            self.by_id.remove(&dropped.id);
        }
    }
}

/// Classify one message record; `None` when it is not one (no string `id`).
fn message(record: &Record<'_>, seq: u64) -> Option<Message> {
    let id = string(record.id.filter(|id| is_string(Some(*id))))?;
    Some(Message {
        id,
        seq,
        turn: turn(record),
    })
}

/// What a message record is to the conversation (see the module docs).
fn turn(record: &Record<'_>) -> Turn {
    let content = record.content;
    if is_str(record.message_type, "gemini") {
        Turn::Reply(part_texts(content, false).concat())
    } else if is_str(record.message_type, "user") {
        user_turn(content, record.display_content)
    } else {
        Turn::Hidden
    }
}

/// A `user` record: tool results, injected or generated text, or a prompt
/// (what was typed: `displayContent` when present).
fn user_turn(content: Option<RawText<'_>>, display: Option<RawText<'_>>) -> Turn {
    let sent = part_texts(content, false).concat();
    let sent = sent.trim();
    if sent.is_empty() {
        return if has_function_response(content) {
            Turn::ToolResult
        } else {
            Turn::Hidden
        };
    }
    if INJECTED.iter().any(|p| sent.starts_with(p)) || CONTINUATIONS.contains(&sent) {
        return Turn::Hidden;
    }
    let typed = match display.filter(|d| d.0 != "null") {
        Some(display) => part_texts(Some(display), false).concat(),
        None => part_texts(content, true).concat(),
    };
    if typed.trim().is_empty() {
        Turn::Hidden
    } else {
        Turn::Prompt(typed)
    }
}

/// Whether a prompt is a slash command without arguments (`/init`): one
/// word after the slash.
fn is_bare_command(text: &str) -> bool {
    let text = text.trim();
    text.len() > 1 && text.starts_with('/') && !text.contains(char::is_whitespace)
}

/// The texts of a part list, thought parts left out. With `typed_only`,
/// stop at the expansion of `@file` references.
fn part_texts(value: Option<RawText<'_>>, typed_only: bool) -> Vec<String> {
    let mut texts = Vec::new();
    for part in parts(value) {
        let text = if is_string(Some(part)) {
            string(Some(part))
        } else {
            Part::parse(part)
                .filter(|p| !is_true(p.thought))
                .and_then(|p| string(p.text))
        };
        let Some(text) = text else { continue };
        if typed_only && text.trim_start().starts_with(REFERENCED_FILES) {
            break;
        }
        texts.push(text);
    }
    texts
}

/// Whether a part list holds a `functionResponse` part.
fn has_function_response(value: Option<RawText<'_>>) -> bool {
    parts(value)
        .into_iter()
        .any(|part| Part::parse(part).is_some_and(|p| p.function_response.is_some()))
}

/// Replay a `.jsonl` chat. Lines that are not JSON objects are passed over
/// (Gemini CLI does the same); `capturedThroughSeq` is the last line that is
/// complete (ends in a newline) or parses, so a torn last line is ignored.
pub fn parse_jsonl(bytes: &[u8]) -> Chat {
    let mut chat = Chat::default();
    let mut replay = Replay::default();
    for (index, raw) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
        let number = index as u64 + 1;
        let terminated = raw.ends_with(b"\n");
        let text = raw.strip_suffix(b"\n").unwrap_or(raw);
        if text.iter().all(u8::is_ascii_whitespace) {
            if terminated {
                chat.captured_through_seq = number;
            }
            continue;
        }
        let Some(record) = Record::parse(text) else {
            if terminated {
                chat.captured_through_seq = number;
            }
            continue;
        };
        chat.captured_through_seq = number;
        apply(&mut chat, &mut replay, &record, number);
    }
    chat.messages = replay.messages;
    chat
}

/// Apply one record, tested in the order Gemini CLI tests them.
fn apply(chat: &mut Chat, replay: &mut Replay, record: &Record<'_>, seq: u64) {
    if is_string(record.rewind_to) {
        if let Some(id) = string(record.rewind_to) {
            replay.rewind_to(&id);
        }
    } else if is_string(record.id) {
        if let Some(m) = message(record, seq) {
            replay.upsert(m);
        }
    } else if let Some(set) = record.set.and_then(Record::of) {
        if is_array(set.messages) {
            replay.clear();
            add_messages(replay, &set, seq);
        }
        chat.merge_metadata(&set);
    } else if is_string(record.session_id) && is_string(record.project_hash) {
        chat.merge_metadata(record);
        // A metadata line may carry messages (a resumed legacy chat's
        // first line in some versions): added, not replacing.
        add_messages(replay, record, seq);
    }
}

/// Upsert the messages of a record's `messages` list.
fn add_messages(replay: &mut Replay, record: &Record<'_>, seq: u64) {
    for m in raw_elements(record.messages)
        .into_iter()
        .filter_map(Record::of)
        .filter_map(|r| message(&r, seq))
    {
        replay.upsert(m);
    }
}

/// Parse a legacy `.json` chat: one object with `sessionId`, `projectHash`,
/// `startTime`, `lastUpdated`, `summary?` and `messages`. Messages without
/// an `id` are kept (legacy files were written whole, never upserted).
pub fn parse_legacy(bytes: &[u8]) -> Result<Chat, String> {
    let fields: Record<'_> = match serde_json::from_slice::<&RawValue>(bytes) {
        Ok(raw) => Record::of(RawText(raw.get())).ok_or("not a JSON object")?,
        Err(e) => return Err(format!("not JSON: {e}")),
    };
    if !is_string(fields.session_id) {
        return Err("no sessionId".into());
    }
    let mut chat = Chat::default();
    chat.merge_metadata(&fields);
    let mut replay = Replay::default();
    for (index, raw) in raw_elements(fields.messages).into_iter().enumerate() {
        let seq = index as u64 + 1;
        let record = Record::of(raw).unwrap_or_default();
        let id = string(record.id).unwrap_or_else(|| format!("#{seq}"));
        replay.upsert(Message {
            id,
            seq,
            turn: turn(&record),
        });
        chat.captured_through_seq = seq;
    }
    chat.messages = replay.messages;
    Ok(chat)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{context, jsonl, meta, reply, user};
    use super::*;
    use crate::kinds::foreign::testing::texts;
    use serde_json::Value;

    /// What a message object is, parsed as a chat line is.
    fn turn_of(value: &Value) -> Turn {
        let text = value.to_string();
        turn(&Record::parse(text.as_bytes()).unwrap())
    }

    fn said(chat: &Chat) -> Vec<(u64, &'static str, String)> {
        texts(&chat.surface())
    }

    #[test]
    fn a_message_written_again_keeps_its_place_and_takes_the_new_content() {
        let mut with_tools = reply("g1", "");
        with_tools["toolCalls"] = serde_json::json!([{"id": "t1", "name": "read_file",
            "args": {}, "result": [{"functionResponse": {"id": "t1", "name": "read_file",
            "response": {"output": "TOOL OUTPUT"}}}], "status": "success"}]);
        let tool_result = serde_json::json!({"id": "u2", "type": "user", "content": [
            {"functionResponse": {"id": "t1", "name": "read_file", "response": {"output": "TOOL OUTPUT"}}}]});
        let chat = parse_jsonl(&jsonl(&[
            meta("2026-01-01T00:00:00Z"),
            serde_json::json!({"$set": {"messages": [context()]}}),
            user("u1", "read it"),
            reply("g1", ""),
            with_tools,
            tool_result,
            reply("g2", "done"),
            reply("g1", "now with text"),
        ]));
        assert_eq!(
            said(&chat),
            [
                (3, "user", "read it".into()),
                (8, "assistant", "now with text".into()),
                (6, "tool", String::new()),
                (7, "assistant", "done".into()),
            ]
        );
        assert_eq!(chat.captured_through_seq, 8);
        assert_eq!(chat.title().as_deref(), Some("read it"));
    }

    #[test]
    fn a_bare_slash_command_titles_only_when_no_prompt_follows() {
        // `/init` is recorded as its expansion, with the command as
        // displayContent (Gemini CLI 0.61).
        let mut init = user(
            "u1",
            "You are an AI agent that brings the power of Gemini directly into the terminal. Your task is to analyze the current directory and generate a comprehensive GEMINI.md file",
        );
        init["displayContent"] = serde_json::json!([{"text": "/init"}]);
        let chat = |rest: &[Value]| {
            let mut lines = vec![
                meta("2026-01-01T00:00:00Z"),
                serde_json::json!({"$set": {"messages": [context()]}}),
                init.clone(),
                reply("g1", "Wrote GEMINI.md."),
            ];
            lines.extend_from_slice(rest);
            parse_jsonl(&jsonl(&lines))
        };
        let followed = chat(&[user("u2", "now add a testing section"), reply("g2", "done")]);
        assert_eq!(
            followed.title().as_deref(),
            Some("now add a testing section")
        );
        // It stays on the surface as what was typed.
        assert_eq!(said(&followed)[0], (3, "user", "/init".into()));
        assert_eq!(chat(&[]).title().as_deref(), Some("/init"));
        // A command with arguments is the person's request, and the title.
        let mut review = user("u1", "Review the payments module carefully.");
        review["displayContent"] = serde_json::json!([{"text": "/review payments"}]);
        let with_args = parse_jsonl(&jsonl(&[
            meta("2026-01-01T00:00:00Z"),
            review,
            user("u2", "and the cart"),
        ]));
        assert_eq!(with_args.title().as_deref(), Some("/review payments"));
    }

    #[test]
    fn set_messages_replaces_the_list_and_rewind_drops_a_suffix() {
        let chat = parse_jsonl(&jsonl(&[
            meta("2026-01-01T00:00:00Z"),
            user("u1", "old"),
            serde_json::json!({"$set": {"messages": [user("u2", "first"), reply("g2", "a")]}}),
            user("u3", "rewound"),
            reply("g3", "rewound reply"),
            serde_json::json!({"$rewindTo": "u3"}),
            user("u4", "second"),
        ]));
        assert_eq!(
            said(&chat),
            [
                (3, "user", "first".into()),
                (3, "assistant", "a".into()),
                (7, "user", "second".into()),
            ]
        );
        let cleared = parse_jsonl(&jsonl(&[
            meta("2026-01-01T00:00:00Z"),
            user("u1", "gone"),
            serde_json::json!({"$rewindTo": "unknown"}),
            user("u2", "kept"),
        ]));
        assert_eq!(said(&cleared), [(4, "user", "kept".into())]);
    }

    #[test]
    fn metadata_keeps_the_first_start_and_the_latest_summary_and_update() {
        let chat = parse_jsonl(&jsonl(&[
            meta("2026-01-01T00:00:00Z"),
            user("u1", "hello\nsecond line"),
            serde_json::json!({"$set": {"lastUpdated": "2026-01-01T00:00:05Z"}}),
            meta("2026-01-01T00:00:40Z"),
            serde_json::json!({"$set": {"summary": "First summary"}}),
            serde_json::json!({"$set": {"summary": "Latest summary", "memoryScratchpad": {}}}),
        ]));
        assert_eq!(chat.session_id.as_deref(), Some("s-1"));
        assert_eq!(chat.start_time.as_deref(), Some("2026-01-01T00:00:00Z"));
        assert_eq!(chat.last_updated.as_deref(), Some("2026-01-01T00:00:40Z"));
        assert_eq!(chat.title().as_deref(), Some("Latest summary"));
        let untitled = Chat {
            summary: Some("  ".into()),
            ..chat.clone()
        };
        assert_eq!(untitled.title().as_deref(), Some("hello"));
    }

    #[test]
    fn a_torn_last_line_is_ignored_and_a_bad_line_passed_over() {
        let mut bytes = jsonl(&[meta("2026-01-01T00:00:00Z"), user("u1", "one")]);
        bytes.extend_from_slice(b"not json\n\n");
        bytes.extend_from_slice(&jsonl(&[reply("g1", "two")]));
        bytes.extend_from_slice(br#"{"id":"u2","type":"user","content":"TORN"#);
        let chat = parse_jsonl(&bytes);
        assert_eq!(
            said(&chat),
            [(2, "user", "one".into()), (5, "assistant", "two".into())]
        );
        assert_eq!(chat.captured_through_seq, 5);
    }

    #[test]
    fn only_typed_prompts_are_direct_user_messages() {
        let turn_of = |value: Value| turn_of(&value);
        let prompt = |t: &str| Turn::Prompt(t.into());
        assert_eq!(turn_of(context()), Turn::Hidden);
        assert_eq!(
            turn_of(user("h", "<hook_context>x</hook_context>")),
            Turn::Hidden
        );
        assert_eq!(turn_of(user("c", "Please continue.")), Turn::Hidden);
        assert_eq!(turn_of(user("c", "System: Please continue.")), Turn::Hidden);
        let mut continued = user("c", "Please continue.");
        continued["displayContent"] = serde_json::json!([{"text": "the first prompt"}]);
        assert_eq!(turn_of(continued), Turn::Hidden);
        let mut command = user("s", "Please greet Carol warmly.");
        command["displayContent"] = serde_json::json!([{"text": "/greet Carol"}]);
        assert_eq!(turn_of(command), prompt("/greet Carol"));
        let expanded = serde_json::json!({"id": "f", "type": "user", "content": [
            {"text": "look at @a.txt"}, {"text": "\n--- Content from referenced files ---"},
            {"text": "FILE BODY"}, {"text": "\n--- End of content ---"}]});
        assert_eq!(turn_of(expanded), prompt("look at @a.txt"));
        let parts = serde_json::json!({"id": "p", "type": "user",
            "content": ["plain ", {"text": "parts"}, {"inlineData": {}}]});
        assert_eq!(turn_of(parts), prompt("plain parts"));
        let tool = serde_json::json!({"id": "t", "type": "user",
            "content": [{"functionResponse": {"name": "x", "response": {}}}]});
        assert_eq!(turn_of(tool), Turn::ToolResult);
        let legacy = serde_json::json!({"id": "l", "type": "user", "content": "legacy string"});
        assert_eq!(turn_of(legacy), prompt("legacy string"));
        for kind in ["info", "error", "warning"] {
            let note = serde_json::json!({"id": "i", "type": kind, "content": "NOTE"});
            assert_eq!(turn_of(note), Turn::Hidden);
        }
        assert_eq!(turn_of(user("e", "  \n")), Turn::Hidden);
    }

    #[test]
    fn replies_keep_text_without_thoughts_or_tool_calls() {
        let value = serde_json::json!({"id": "g", "type": "gemini",
            "content": [{"text": "THOUGHT", "thought": true}, {"text": "answer"},
                        {"functionCall": {"name": "x", "args": {}}}],
            "thoughts": [{"subject": "S", "description": "THOUGHT"}]});
        assert_eq!(turn_of(&value), Turn::Reply("answer".into()));
        let chat = parse_jsonl(&jsonl(&[meta("2026-01-01T00:00:00Z"), reply("g", "")]));
        assert!(chat.surface().events.is_empty());
        assert!(chat.has_conversation());
    }

    #[test]
    fn legacy_chats_are_one_object() {
        let bytes = serde_json::json!({"sessionId": "s-2", "projectHash": "ab",
            "startTime": "2025-01-01T00:00:00Z", "lastUpdated": "2025-01-01T00:01:00Z",
            "summary": "Legacy summary",
            "messages": [
                {"id": "m1", "type": "user", "content": "question"},
                {"type": "gemini", "content": "answer without id"},
                {"id": "m3", "type": "info", "content": "INFO"}]})
        .to_string();
        let chat = parse_legacy(bytes.as_bytes()).unwrap();
        assert_eq!(
            said(&chat),
            [
                (1, "user", "question".into()),
                (2, "assistant", "answer without id".into())
            ]
        );
        assert_eq!(chat.captured_through_seq, 3);
        assert_eq!(chat.title().as_deref(), Some("Legacy summary"));
        assert!(parse_legacy(b"{\"sessionId\": \"s\", \"messages\": [").is_err());
        assert!(parse_legacy(b"{\"messages\": []}").is_err());
        assert!(parse_legacy(b"[]").is_err());
    }
}
