//! The fields of a Gemini CLI chat record (a line, a `$set` object, a
//! message inside a list) and of a part, borrowed from the line: only what
//! the replay reads is taken, and everything else (tool calls, thoughts,
//! tokens: most of a chat's bytes) is skipped without being built.

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::jsonl::loose::{elements, from_line};

/// The fields of a chat line, of a `$set` object or of a message inside a
/// list that the replay reads, borrowed from the line. Everything else
/// (tool calls, thoughts, tokens: most of a chat's bytes) is skipped
/// without being built.
#[derive(Deserialize, Default)]
pub(super) struct Record<'a> {
    #[serde(rename = "$rewindTo", borrow)]
    pub(super) rewind_to: Option<&'a RawValue>,
    #[serde(rename = "$set", borrow)]
    pub(super) set: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) id: Option<&'a RawValue>,
    #[serde(rename = "type", borrow)]
    pub(super) message_type: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) content: Option<&'a RawValue>,
    #[serde(rename = "displayContent", borrow)]
    pub(super) display_content: Option<&'a RawValue>,
    #[serde(rename = "sessionId", borrow)]
    pub(super) session_id: Option<&'a RawValue>,
    #[serde(rename = "projectHash", borrow)]
    pub(super) project_hash: Option<&'a RawValue>,
    #[serde(rename = "startTime", borrow)]
    pub(super) start_time: Option<&'a RawValue>,
    #[serde(rename = "lastUpdated", borrow)]
    pub(super) last_updated: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) kind: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) summary: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) messages: Option<&'a RawValue>,
}

impl<'a> Record<'a> {
    /// A JSON object's fields; `None` for anything that is not an object.
    pub(super) fn parse(raw: &'a [u8]) -> Option<Record<'a>> {
        let start = raw.iter().position(|b| !b.is_ascii_whitespace())?;
        if raw[start] != b'{' {
            return None;
        }
        from_line(raw).ok()
    }

    /// [`Record::parse`] of a JSON value inside a line.
    pub(super) fn of(raw: &'a RawValue) -> Option<Record<'a>> {
        Record::parse(raw.get().as_bytes())
    }
}

/// Whether a JSON value is a string.
pub(super) fn is_string(raw: Option<&RawValue>) -> bool {
    raw.is_some_and(|r| r.get().starts_with('"'))
}

/// Whether a JSON value is an array.
pub(super) fn is_array(raw: Option<&RawValue>) -> bool {
    raw.is_some_and(|r| r.get().starts_with('['))
}

/// One part of a part list: its text, whether it is a thought, whether it
/// is a tool result.
#[derive(Deserialize)]
pub(super) struct Part<'a> {
    #[serde(borrow)]
    pub(super) text: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) thought: Option<&'a RawValue>,
    #[serde(rename = "functionResponse", borrow)]
    pub(super) function_response: Option<&'a RawValue>,
}

/// The parts of a part list: a string, a part, or an array of either.
pub(super) fn parts(value: Option<&RawValue>) -> Vec<&RawValue> {
    if is_array(value) {
        elements(value)
    } else {
        value.into_iter().collect()
    }
}
