//! One Crush session's messages mapped onto the surface, without I/O.
//!
//! A message's `parts` column is a JSON array of `{type, data}` (Crush's
//! `internal/message/message.go`): `text` (`{text}`), `reasoning`
//! (`{thinking, …}`), `image_url`, `binary` (an attachment: `{path,
//! mime_type, data}`), `tool_call`, `tool_result`, `finish`,
//! `shell_command`. Only `text` parts are conversation.

use std::borrow::Cow;

use crate::kinds::foreign::SurfaceBuilder;
use crate::model::SurfaceSink;

/// One message as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// `messages.id`.
    pub id: String,
    /// `user`, `assistant`, `system` or `tool`.
    pub role: String,
    /// The `parts` JSON.
    pub parts: String,
    /// `is_summary_message`: the assistant message holding a summary.
    pub summary: bool,
}

/// The start of the prompt Crush queues again after a summary cut a turn
/// short; the typed prompt follows in backquotes.
const REQUEUED: &str =
    "The previous session was interrupted because it got too long, the initial user request was: `";

#[derive(serde::Deserialize)]
struct Part<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    data: Option<Data<'a>>,
}

#[derive(serde::Deserialize)]
struct Data<'a> {
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
}

/// The `text` parts of a message, blank ones left out. Parts that do not
/// parse are passed over.
fn texts(message: &Stored) -> Vec<String> {
    let Ok(parts) = serde_json::from_str::<Vec<Part<'_>>>(&message.parts) else {
        return Vec::new();
    };
    parts
        .into_iter()
        .filter(|p| p.kind.as_deref() == Some("text"))
        .filter_map(|p| p.data?.text)
        .filter(|t| !t.trim().is_empty())
        .map(Cow::into_owned)
        .collect()
}

/// What the person typed in `text`: the text itself, or the request inside
/// Crush's re-queued prompt.
fn typed(text: String) -> String {
    match text
        .strip_prefix(REQUEUED)
        .and_then(|t| t.strip_suffix('`'))
    {
        Some(request) => request.to_owned(),
        None => text,
    }
}

/// What one message is to the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Turn {
    /// What a person typed.
    Prompt(Vec<String>),
    /// An assistant's reply.
    Reply(Vec<String>),
    /// A summary: it shadows what came before it.
    Summary(Vec<String>),
    /// Nothing shown (tool results, system messages).
    Hidden,
}

/// What `message` is, `summary` being the session's `summary_message_id`.
pub fn turn_of(message: &Stored, summary: Option<&str>) -> Turn {
    let is_summary = message.summary || summary == Some(message.id.as_str());
    match message.role.as_str() {
        _ if is_summary => Turn::Summary(texts(message)),
        "user" => match texts(message) {
            t if t.is_empty() => Turn::Hidden,
            t => Turn::Prompt(t.into_iter().map(typed).collect()),
        },
        "assistant" => Turn::Reply(texts(message)),
        _ => Turn::Hidden,
    }
}

/// Fold `messages` (in conversation order) into `sink`; each message's seq
/// is its 1-based position, the result the last seq read.
pub fn fold(messages: &[Stored], summary: Option<&str>, sink: &mut dyn SurfaceSink) -> u64 {
    let mut builder = SurfaceBuilder::new(sink);
    for (index, message) in messages.iter().enumerate() {
        let seq = index as u64 + 1;
        match turn_of(message, summary) {
            Turn::Prompt(texts) => builder.user(seq, texts),
            Turn::Reply(texts) => builder.assistant(seq, None, texts),
            Turn::Summary(texts) if !texts.is_empty() => {
                builder.shadow();
                builder.checkpoint(seq, texts);
            }
            Turn::Summary(_) | Turn::Hidden => {}
        }
        if builder.wants_tools() {
            for tool in crate::kinds::tools::crush_parts(&message.parts) {
                builder.tool(seq, tool);
            }
        }
    }
    messages.len() as u64
}

/// The first prompt of the session.
pub fn first_prompt(messages: &[Stored], summary: Option<&str>) -> Option<String> {
    messages.iter().find_map(|m| match turn_of(m, summary) {
        Turn::Prompt(texts) => texts.into_iter().next(),
        _ => None,
    })
}
