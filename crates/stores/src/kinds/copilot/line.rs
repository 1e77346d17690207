//! What one Copilot CLI event line says: its envelope, the `data` fields
//! the mapping reads, and the rules of what the person typed and what the
//! main agent answered (see the parent module's "What the person typed").

use serde::Deserialize;

use crate::kinds::foreign::{LineSays, SurfaceBuilder};
use crate::model::SurfaceSink;
use session_ref_jsonl::loose::{is_str, non_empty, scan_fields, scan_or_parse, scan_or_parse_line};
use session_ref_jsonl::loose::{string, RawText};

/// Event types the surface reads; every other type is passed over.
pub(super) const READ_TYPES: &[&str] = &[
    "user.message",
    "assistant.message",
    "session.compaction_complete",
];

/// The envelope of an event line.
#[derive(Deserialize, Debug, Default, PartialEq)]
pub(super) struct Line<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) kind: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) data: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) timestamp: Option<RawText<'a>>,
    #[serde(rename = "agentId", borrow)]
    pub(super) agent_id: Option<RawText<'a>>,
}

impl<'a> Line<'a> {
    /// An event line's envelope: by the envelope scanner, else by
    /// `serde_json`; `None` when it is not a JSON object.
    pub(super) fn parse(bytes: &'a [u8]) -> Option<Line<'a>> {
        scan_or_parse_line(bytes, |text| {
            let [kind, data, timestamp, agent_id] =
                scan_fields(text, ["type", "data", "timestamp", "agentId"])?;
            Some(Line {
                kind,
                data,
                timestamp,
                agent_id,
            })
        })
    }
}

/// The `data` fields the mapping uses, of every event type read.
#[derive(Deserialize, Debug, Default, PartialEq)]
pub(super) struct Data<'a> {
    #[serde(borrow)]
    pub(super) content: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) source: Option<RawText<'a>>,
    #[serde(rename = "isAutopilotContinuation", borrow)]
    pub(super) autopilot: Option<RawText<'a>>,
    #[serde(rename = "parentToolCallId", borrow)]
    pub(super) parent_tool_call: Option<RawText<'a>>,
    #[serde(rename = "apiCallId", borrow)]
    pub(super) api_call: Option<RawText<'a>>,
    #[serde(rename = "chunkCount", borrow)]
    pub(super) chunk_count: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) success: Option<RawText<'a>>,
    #[serde(rename = "summaryContent", borrow)]
    pub(super) summary: Option<RawText<'a>>,
    #[serde(rename = "sessionId", borrow)]
    pub(super) session_id: Option<RawText<'a>>,
    #[serde(rename = "startTime", borrow)]
    pub(super) start_time: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) context: Option<RawText<'a>>,
}

/// The keys of [`Data`]'s fields, in their order.
pub(super) const DATA_KEYS: [&str; 11] = [
    "content",
    "source",
    "isAutopilotContinuation",
    "parentToolCallId",
    "apiCallId",
    "chunkCount",
    "success",
    "summaryContent",
    "sessionId",
    "startTime",
    "context",
];

impl<'a> Data<'a> {
    /// An event's `data`: by the envelope scanner, else by `serde_json`.
    pub(super) fn parse(raw: Option<RawText<'a>>) -> Data<'a> {
        let Some(raw) = raw else {
            return Data::default();
        };
        scan_or_parse(raw.0, |text| {
            let [content, source, autopilot, parent_tool_call, api_call, chunk_count, success, summary, session_id, start_time, context] =
                scan_fields(text, DATA_KEYS)?;
            Some(Data {
                content,
                source,
                autopilot,
                parent_tool_call,
                api_call,
                chunk_count,
                success,
                summary,
                session_id,
                start_time,
                context,
            })
        })
        .unwrap_or_default()
    }

    /// `context.cwd`, when not empty.
    pub(super) fn cwd(&self) -> Option<String> {
        let context = self.context?;
        let [cwd] = scan_or_parse(context.0, |text| scan_fields(text, ["cwd"])).or_else(|| {
            #[derive(Deserialize)]
            struct Context<'a> {
                #[serde(borrow)]
                cwd: Option<RawText<'a>>,
            }
            serde_json::from_str::<Context<'_>>(context.0)
                .ok()
                .map(|c| [c.cwd])
        })?;
        non_empty(cwd)
    }
}

/// The type of an event line that starts `{"type":"…"` (as Copilot writes
/// every line) and ends with `}` (so it is not a torn tail), read without
/// parsing the rest; `None` for any other spelling, which is then parsed.
pub(super) fn leading_type(bytes: &[u8]) -> Option<&[u8]> {
    let rest = bytes.strip_prefix(b"{\"type\":\"")?;
    let end = memchr::memchr2(b'"', b'\\', rest)?;
    if rest[end] != b'"' || !bytes.trim_ascii_end().ends_with(b"}") {
        return None;
    }
    Some(&rest[..end])
}

/// What one event line says to the surface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Says {
    /// What any transcript line may say.
    Line(LineSays),
    /// A compaction: everything before is shadowed, and its summary, when
    /// there is one, is the compact checkpoint.
    Compacted(Option<String>),
}

impl Says {
    pub(super) const NOTHING: Says = Says::Line(LineSays::Nothing);

    /// Apply to `builder` as line `seq`.
    pub(super) fn apply<S: SurfaceSink>(self, builder: &mut SurfaceBuilder<S>, seq: u64) {
        match self {
            Says::Line(says) => builder.apply(seq, says),
            Says::Compacted(summary) => {
                builder.shadow();
                if let Some(summary) = summary {
                    builder.checkpoint(seq, vec![summary]);
                }
            }
        }
    }
}

/// What an event line says to the surface; `None` when it does not parse.
pub(super) fn line_says(bytes: &[u8]) -> Option<Says> {
    if let Some(kind) = leading_type(bytes) {
        if !READ_TYPES.iter().any(|t| t.as_bytes() == kind) {
            return Some(Says::NOTHING);
        }
    }
    let line = Line::parse(bytes)?;
    Some(says(&line))
}

/// The tool calls and results an event line holds, for `export --tools`
/// (a sub-agent's events, inline in the parent's log, are not the
/// parent's).
pub(super) fn line_tools(bytes: &[u8]) -> Vec<crate::model::ToolEvent> {
    let Some(line) = Line::parse(bytes).filter(|l| l.agent_id.is_none()) else {
        return Vec::new();
    };
    let kind = string(line.kind).unwrap_or_default();
    let data = line
        .data
        .and_then(|d| serde_json::from_str::<serde_json::Value>(d.0).ok());
    match data {
        Some(data) if data.get("parentToolCallId").is_none() => {
            crate::kinds::tools::copilot_event(&kind, &data)
        }
        _ => Vec::new(),
    }
}

/// What a parsed event says to the surface (see the module docs).
pub(super) fn says(line: &Line<'_>) -> Says {
    if line.agent_id.is_some() {
        // A sub-agent's event, inline in the parent's log.
        return Says::NOTHING;
    }
    if is_str(line.kind, "user.message") {
        return match typed(&Data::parse(line.data)) {
            Some(text) => Says::Line(LineSays::User(vec![text])),
            None => Says::NOTHING,
        };
    }
    if is_str(line.kind, "assistant.message") {
        let data = Data::parse(line.data);
        if data.parent_tool_call.is_some() {
            return Says::NOTHING;
        }
        let texts: Vec<String> = string(data.content)
            .filter(|t| !t.trim().is_empty())
            .into_iter()
            .collect();
        // The chunks of one model call are one message.
        let key = data.chunk_count.and(string(data.api_call));
        return Says::Line(LineSays::Assistant { key, texts });
    }
    if is_str(line.kind, "session.compaction_complete") {
        let data = Data::parse(line.data);
        if data.success.is_some_and(|s| s.0 == "false") {
            return Says::NOTHING;
        }
        return Says::Compacted(string(data.summary).filter(|s| !s.trim().is_empty()));
    }
    Says::NOTHING
}

/// The text a person typed in a `user.message`, `None` when Copilot or an
/// agent wrote it (a `source`, an autopilot continuation) or it is blank.
pub(super) fn typed(data: &Data<'_>) -> Option<String> {
    if data.source.is_some() || data.autopilot.is_some_and(|a| a.0 == "true") {
        return None;
    }
    string(data.content).filter(|t| !t.trim().is_empty())
}
