//! A Codex rollout line: its envelope (`{"timestamp","type","payload"}`,
//! or the bare shapes of early rollouts) and the payload fields the
//! mapping uses, read by the envelope scanner and by `serde_json` whenever
//! the scanner is unsure; and which of the line types the mapping reads a
//! line is.

use serde::Deserialize;

use session_ref_jsonl::loose::{
    is_str, scan_fields, scan_or_parse, scan_or_parse_line, string, RawText,
};

/// The envelope of a rollout line. Early rollouts wrote response items bare
/// (`{"type":"message",…}`) after a bare `{"id","timestamp",…}` meta line;
/// `role` and `id` catch those shapes.
#[derive(Deserialize, Debug, PartialEq)]
pub(super) struct Line<'a> {
    #[serde(borrow)]
    pub(super) timestamp: Option<RawText<'a>>,
    #[serde(rename = "type", borrow)]
    kind: Option<RawText<'a>>,
    #[serde(borrow)]
    payload: Option<RawText<'a>>,
    #[serde(borrow)]
    id: Option<RawText<'a>>,
    #[serde(borrow)]
    role: Option<RawText<'a>>,
}

/// The payload fields the mapping uses.
#[derive(Deserialize, Default, Debug, PartialEq)]
pub(super) struct Payload<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) kind: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) id: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) timestamp: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) cwd: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) role: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) content: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) message: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) thread_name: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) replacement_history: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) item: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) images: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) local_images: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) history_mode: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) history_base: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) source: Option<RawText<'a>>,
}

impl<'a> Payload<'a> {
    /// A payload's fields: by the envelope scanner, else by `serde_json`
    /// (see [`scan_or_parse`]).
    pub(super) fn parse(raw: &'a str) -> Option<Payload<'a>> {
        scan_or_parse(raw, |raw| {
            let [kind, id, timestamp, cwd, role, content, message, thread_name, replacement_history, item, images, local_images, history_mode, history_base, source] =
                scan_fields(raw, PAYLOAD_KEYS)?;
            Some(Payload {
                kind,
                id,
                timestamp,
                cwd,
                role,
                content,
                message,
                thread_name,
                replacement_history,
                item,
                images,
                local_images,
                history_mode,
                history_base,
                source,
            })
        })
    }
}

/// The keys of [`Payload`]'s fields, in their order.
const PAYLOAD_KEYS: [&str; 15] = [
    "type",
    "id",
    "timestamp",
    "cwd",
    "role",
    "content",
    "message",
    "thread_name",
    "replacement_history",
    "item",
    "images",
    "local_images",
    "history_mode",
    "history_base",
    "source",
];

impl<'a> Line<'a> {
    /// A rollout line's envelope: by the envelope scanner, else by
    /// `serde_json` (see [`scan_or_parse_line`]).
    pub(super) fn parse(bytes: &'a [u8]) -> Option<Line<'a>> {
        scan_or_parse_line(bytes, |text| {
            let [timestamp, kind, payload, id, role] =
                scan_fields(text, ["timestamp", "type", "payload", "id", "role"])?;
            Some(Line {
                timestamp,
                kind,
                payload,
                id,
                role,
            })
        })
    }
}

/// What one rollout line is.
pub(super) enum Item<'a> {
    Meta(Payload<'a>),
    TurnContext(Payload<'a>),
    Response(Payload<'a>),
    Event(Payload<'a>),
    Compacted(Payload<'a>),
    Other,
}

/// Parse a line into its timestamp and item; `None` when it is not a JSON
/// object.
pub(super) fn parse_line(bytes: &[u8]) -> Option<(Option<String>, Item<'_>)> {
    let line = Line::parse(bytes)?;
    let timestamp = string(line.timestamp);
    let Some(payload) = line.payload else {
        // Early, unwrapped shapes.
        let text = std::str::from_utf8(bytes).ok()?;
        let item = if line.kind.is_none() && line.id.is_some() {
            Item::Meta(Payload::parse(text)?)
        } else if is_str(line.kind, "message") && line.role.is_some() {
            Item::Response(Payload::parse(text)?)
        } else {
            Item::Other
        };
        return Some((timestamp, item));
    };
    let kind = line.kind;
    let known = [
        "session_meta",
        "turn_context",
        "response_item",
        "event_msg",
        "compacted",
    ];
    let Some(tag) = known.into_iter().find(|k| is_str(kind, k)) else {
        return Some((timestamp, Item::Other));
    };
    let payload = Payload::parse(payload.0).unwrap_or_default();
    let item = match tag {
        "session_meta" => Item::Meta(payload),
        "turn_context" => Item::TurnContext(payload),
        "response_item" => Item::Response(payload),
        "event_msg" => Item::Event(payload),
        _ => Item::Compacted(payload),
    };
    Some((timestamp, item))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use session_ref_jsonl::testing::arb_object;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn payloads_and_lines_read_as_serde_json_reads_them(
            payload in arb_object(&PAYLOAD_KEYS),
            line in arb_object(&["timestamp", "type", "payload", "id", "role"]),
        ) {
            prop_assert_eq!(Payload::parse(&payload), serde_json::from_str::<Payload<'_>>(&payload).ok(), "{}", payload);
            prop_assert_eq!(Line::parse(line.as_bytes()), serde_json::from_str::<Line<'_>>(&line).ok(), "{}", line);
        }
    }
}
