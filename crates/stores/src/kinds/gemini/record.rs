//! The fields of a Gemini CLI chat record (a line, a `$set` object, a
//! message inside a list) and of a part, borrowed from the line: only what
//! the replay reads is taken, and everything else (tool calls, thoughts,
//! tokens: most of a chat's bytes) is skipped without being built. Records
//! and parts are read by the envelope scanner ([`scan_fields`]), and by
//! `serde_json` whenever the scanner is unsure: the same fields either way
//! (a property test below).

use serde::Deserialize;

use session_ref_jsonl::loose::{
    raw_elements, scan_fields, scan_or_parse, scan_or_parse_line, RawText,
};

/// The fields of a chat line, of a `$set` object or of a message inside a
/// list that the replay reads, borrowed from the line. Everything else
/// (tool calls, thoughts, tokens: most of a chat's bytes) is skipped
/// without being built.
#[derive(Deserialize, Default, Debug, PartialEq)]
pub(super) struct Record<'a> {
    #[serde(rename = "$rewindTo", borrow)]
    pub(super) rewind_to: Option<RawText<'a>>,
    #[serde(rename = "$set", borrow)]
    pub(super) set: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) id: Option<RawText<'a>>,
    #[serde(rename = "type", borrow)]
    pub(super) message_type: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) content: Option<RawText<'a>>,
    #[serde(rename = "displayContent", borrow)]
    pub(super) display_content: Option<RawText<'a>>,
    #[serde(rename = "sessionId", borrow)]
    pub(super) session_id: Option<RawText<'a>>,
    #[serde(rename = "projectHash", borrow)]
    pub(super) project_hash: Option<RawText<'a>>,
    #[serde(rename = "startTime", borrow)]
    pub(super) start_time: Option<RawText<'a>>,
    #[serde(rename = "lastUpdated", borrow)]
    pub(super) last_updated: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) kind: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) summary: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) messages: Option<RawText<'a>>,
}

/// The keys of [`Record`]'s fields, in their order.
const RECORD_KEYS: [&str; 13] = [
    "$rewindTo",
    "$set",
    "id",
    "type",
    "content",
    "displayContent",
    "sessionId",
    "projectHash",
    "startTime",
    "lastUpdated",
    "kind",
    "summary",
    "messages",
];

impl<'a> Record<'a> {
    /// A JSON object's fields; `None` for anything that is not an object.
    pub(super) fn parse(raw: &'a [u8]) -> Option<Record<'a>> {
        let start = raw.iter().position(|b| !b.is_ascii_whitespace())?;
        if raw[start] != b'{' {
            return None;
        }
        scan_or_parse_line(raw, Record::scan)
    }

    /// [`Record::parse`] by the envelope scanner ([`scan_fields`]), which
    /// skips the bulk of a record (tool calls, thoughts, tokens) without
    /// checking it as `serde_json` does; `None` when in doubt (then
    /// `serde_json` reads it).
    fn scan(text: &'a str) -> Option<Record<'a>> {
        let [rewind_to, set, id, message_type, content, display_content, session_id, project_hash, start_time, last_updated, kind, summary, messages] =
            scan_fields(text, RECORD_KEYS)?;
        Some(Record {
            rewind_to,
            set,
            id,
            message_type,
            content,
            display_content,
            session_id,
            project_hash,
            start_time,
            last_updated,
            kind,
            summary,
            messages,
        })
    }

    /// [`Record::parse`] of a JSON value inside a line.
    pub(super) fn of(raw: RawText<'a>) -> Option<Record<'a>> {
        Record::parse(raw.0.as_bytes())
    }
}

/// Whether a JSON value is a string.
pub(super) fn is_string(raw: Option<RawText<'_>>) -> bool {
    raw.is_some_and(|r| r.0.starts_with('"'))
}

/// Whether a JSON value is an array.
pub(super) fn is_array(raw: Option<RawText<'_>>) -> bool {
    raw.is_some_and(|r| r.0.starts_with('['))
}

/// One part of a part list: its text, whether it is a thought, whether it
/// is a tool result.
#[derive(Deserialize, Debug, PartialEq)]
pub(super) struct Part<'a> {
    #[serde(borrow)]
    pub(super) text: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) thought: Option<RawText<'a>>,
    #[serde(rename = "functionResponse", borrow)]
    pub(super) function_response: Option<RawText<'a>>,
}

impl<'a> Part<'a> {
    /// A part's fields: by the envelope scanner, else by `serde_json`.
    pub(super) fn parse(raw: RawText<'a>) -> Option<Part<'a>> {
        scan_or_parse(raw.0, |text| {
            let [text, thought, function_response] =
                scan_fields(text, ["text", "thought", "functionResponse"])?;
            Some(Part {
                text,
                thought,
                function_response,
            })
        })
    }
}

/// The parts of a part list: a string, a part, or an array of either.
pub(super) fn parts(value: Option<RawText<'_>>) -> Vec<RawText<'_>> {
    if is_array(value) {
        raw_elements(value)
    } else {
        value.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use session_ref_jsonl::testing::arb_object;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn records_and_parts_read_as_serde_json_reads_them(
            record in arb_object(&RECORD_KEYS),
            part in arb_object(&["text", "thought", "functionResponse"]),
        ) {
            let general: Option<Record<'_>> = serde_json::from_str(&record).ok();
            prop_assert_eq!(Record::parse(record.as_bytes()), general, "{}", record);
            let general: Option<Part<'_>> = serde_json::from_str(&part).ok();
            prop_assert_eq!(Part::parse(RawText(&part)), general, "{}", part);
        }
    }

    #[test]
    fn an_ordinary_message_record_is_read_by_the_scanner() {
        let line = r#"{"id":"g1","timestamp":"2026-01-01T00:00:02Z","type":"gemini","content":[{"text":"a \"q\" é\n"}],"thoughts":[{"subject":"s","description":"d"}],"tokens":{"input":1},"model":"gemini-3.8-flash","toolCalls":[{"id":"t","args":{"x":[1,{"y":null}]}}]}"#;
        let scanned = Record::scan(line).expect("the scanner reads an ordinary record");
        assert_eq!(scanned, serde_json::from_str::<Record<'_>>(line).unwrap());
        assert_eq!(scanned.message_type, Some(RawText("\"gemini\"")));
        assert_eq!(scanned.messages, None);
    }
}
