//! One native log line read as an event: the envelope by the fast scanner
//! when it vouches for the line, else the general `serde_json` parse; the
//! two give the same event for every line (the parent module's property
//! tests hold them to it), and a piece of a log read on one core.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::kinds::tools;
use crate::model::{EventKind, MessageSource, ToolEvent};
use session_ref_jsonl::envelope;
use session_ref_jsonl::loose::{self, Loose, LooseBlock};
use session_ref_jsonl::string_blocks::Classifier;

/// The `source.marker` that identifies a compact checkpoint.
pub const COMPACTION_MARKER: &str = "@hydraharness/harness-compaction";

/// A line's envelope as the general parse reads it.
#[derive(Deserialize)]
pub(super) struct RawEvent<'a> {
    #[serde(borrow)]
    pub(super) seq: Option<Loose<'a>>,
    #[serde(rename = "type", borrow)]
    pub(super) kind: Option<Loose<'a>>,
    #[serde(borrow)]
    data: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct UserData<'a> {
    #[serde(borrow)]
    source: Option<SourceData<'a>>,
    content: Option<Vec<LooseBlock>>,
}

#[derive(Deserialize)]
struct SourceData<'a> {
    #[serde(borrow)]
    kind: Option<Loose<'a>>,
    #[serde(borrow)]
    marker: Option<Loose<'a>>,
}

#[derive(Deserialize)]
struct AssistantData {
    message: Option<MessageData>,
}

#[derive(Deserialize)]
struct MessageData {
    content: Option<Vec<LooseBlock>>,
}

#[derive(Deserialize)]
struct TitleData<'a> {
    #[serde(borrow)]
    title: Option<Loose<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CompactData<'a> {
    #[serde(borrow)]
    through_seq: Option<Loose<'a>>,
}

/// Any JSON object.
#[derive(Deserialize)]
struct AnyObject {}

/// A parsed event line.
#[derive(Debug, PartialEq)]
pub(super) enum Event {
    Surface(EventKind),
    /// A surface event with the tool calls or result it holds (read only
    /// for a sink that wants tools, [`read_piece_with_tools`]).
    SurfaceWithTools(EventKind, Vec<ToolEvent>),
    Chunk,
    Title(String),
    Compact(u64),
    Unknown,
}

/// Why an event line is not acceptable.
#[derive(Debug, PartialEq)]
pub(super) enum LineFault {
    /// Not JSON at all (may be a torn tail).
    NotJson,
    /// JSON, but not an event of the documented shape.
    Shape(String),
}

/// Parse an event line. The derived structs below reject a repeated key,
/// which `JSON.parse` accepts (the last one wins); a line that fails for its
/// shape is therefore spelled again without repeats (through
/// [`serde_json::Value`], whose objects keep the last value) and read once
/// more. Only lines that fail pay for this.
pub(super) fn parse_event(bytes: &[u8]) -> Result<(u64, Event), LineFault> {
    match parse_event_once(bytes) {
        Err(LineFault::Shape(why)) => {
            let respelled = serde_json::from_slice::<Value>(bytes)
                .ok()
                .and_then(|value| serde_json::to_vec(&value).ok());
            match respelled {
                Some(line) if line != bytes => parse_event_once(&line),
                _ => Err(LineFault::Shape(why)),
            }
        }
        parsed => parsed,
    }
}

fn parse_event_once(bytes: &[u8]) -> Result<(u64, Event), LineFault> {
    let raw: RawEvent<'_> = match serde_json::from_slice(bytes) {
        Ok(raw) => raw,
        Err(_) => {
            return Err(if loose::is_json(bytes) {
                LineFault::Shape("not an event object".into())
            } else {
                LineFault::NotJson
            })
        }
    };
    let shape = |why: &str| LineFault::Shape(why.to_owned());
    let seq = raw
        .seq
        .and_then(|s| s.whole_number())
        .filter(|&s| s > 0)
        .ok_or_else(|| shape("seq is not a positive integer"))?;
    let kind = raw.kind.ok_or_else(|| shape("type is not a string"))?;
    let kind = kind.as_str().ok_or_else(|| shape("type is not a string"))?;
    event_of(seq, kind, raw.data.map(RawValue::get))
}

/// Parse an event line: the envelope by the fast scanner of
/// [`envelope`] when it vouches for the line and the event then reads
/// without fault, else by [`parse_event`]. The same result as
/// [`parse_event`] for every line: when the scanner answers, the envelope
/// `parse_event` reads is the same (see [`envelope`]), so its first reading
/// is the same [`event_of`], and a reading without fault is final there.
pub(super) fn read_event(bytes: &[u8]) -> Result<(u64, Event), LineFault> {
    if let Some(env) = envelope::scan(bytes) {
        if let Ok(parsed) = event_of(env.seq, env.kind, env.data) {
            return Ok(parsed);
        }
    }
    parse_event(bytes)
}

/// [`read_event`] of every line of `piece` (lines ended by `\n`, the last
/// one possibly not), in order. Each line is scanned where it starts and
/// the scanner finds its end ([`envelope::scan_first_line`]), so a line the
/// fast path takes is passed over once. Its UTF-8 is checked by the
/// scanner's block classification when that does it
/// ([`Classifier::checks_utf8`]), else once for the whole piece first. A
/// line the scanner leaves, or a piece that is not UTF-8, is cut at its
/// `\n` and read by [`read_event`].
pub(super) fn read_piece(piece: &[u8]) -> Vec<Result<(u64, Event), LineFault>> {
    let mut events = Vec::with_capacity(piece.len() / 512 + 1);
    let classifier = Classifier::detect();
    let checks_utf8 = classifier.checks_utf8();
    let text = if checks_utf8 {
        None
    } else {
        simdutf8::basic::from_utf8(piece).ok()
    };
    let mut at = 0;
    while at < piece.len() {
        let scanned = if checks_utf8 {
            envelope::scan_first_line_of_bytes(classifier, &piece[at..])
        } else {
            text.and_then(|text| text.get(at..))
                .and_then(|rest| envelope::scan_first_line(classifier, rest))
        };
        let fast = scanned
            .and_then(|(env, length)| Some((event_of(env.seq, env.kind, env.data).ok()?, length)));
        let length = match fast {
            Some((parsed, length)) => {
                events.push(Ok(parsed));
                length
            }
            None => {
                let rest = &piece[at..];
                let length = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
                events.push(read_event(&rest[..length]));
                length
            }
        };
        at += length + 1;
    }
    events
}

/// [`read_piece`], with the tool calls (an assistant message's
/// `tool-call` blocks) and results (`tool/result`) of each line read too
/// (`export --tools`).
pub(super) fn read_piece_with_tools(piece: &[u8]) -> Vec<Result<(u64, Event), LineFault>> {
    let mut events = read_piece(piece);
    // `read_piece` gives one outcome per line, a line ending at its `\n`.
    for (outcome, line) in events.iter_mut().zip(piece.split(|&b| b == b'\n')) {
        let Ok((_, event)) = outcome else { continue };
        let tools = match event {
            Event::Surface(EventKind::AssistantMessage { .. } | EventKind::ToolResult) => {
                tools_of_line(line)
            }
            _ => continue,
        };
        if tools.is_empty() {
            continue;
        }
        let Event::Surface(kind) = std::mem::replace(event, Event::Unknown) else {
            continue;
        };
        *event = Event::SurfaceWithTools(kind, tools);
    }
    events
}

/// The tool calls or result of an `assistant/message` or `tool/result`
/// line.
fn tools_of_line(line: &[u8]) -> Vec<ToolEvent> {
    let Ok(value) = serde_json::from_slice::<Value>(line) else {
        return Vec::new();
    };
    let Some(data) = value.get("data") else {
        return Vec::new();
    };
    match value.get("type").and_then(Value::as_str) {
        Some("tool/result") => vec![tools::native_result(data)],
        Some("assistant/message") => data
            .pointer("/message/content")
            .map(tools::in_content)
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// The event of a line whose envelope reads as a positive `seq`, a string
/// `type` and the raw text of `data` (`None` when absent or `null`).
pub(super) fn event_of(
    seq: u64,
    kind: &str,
    raw_data: Option<&str>,
) -> Result<(u64, Event), LineFault> {
    let shape = |why: &str| LineFault::Shape(why.to_owned());
    // Known types need an object `data` of their shape.
    fn data<'a, T: Deserialize<'a>>(raw: Option<&'a str>, kind: &str) -> Result<T, LineFault> {
        let raw = raw.ok_or_else(|| LineFault::Shape(format!("{kind} has no data")))?;
        serde_json::from_str(raw).map_err(|e| LineFault::Shape(format!("{kind} data: {e}")))
    }
    let event = match kind {
        "user/message" => {
            let d: UserData<'_> = data(raw_data, kind)?;
            let source = d
                .source
                .and_then(parse_source)
                .ok_or_else(|| shape("user/message source has no string kind"))?;
            let content = d
                .content
                .ok_or_else(|| shape("user/message content is not an array"))?;
            Event::Surface(EventKind::UserMessage {
                source,
                content: loose::blocks(content),
            })
        }
        "assistant/message" => {
            let d: AssistantData = data(raw_data, kind)?;
            let content = d
                .message
                .and_then(|m| m.content)
                .ok_or_else(|| shape("assistant/message message.content is not an array"))?;
            Event::Surface(EventKind::AssistantMessage {
                content: loose::blocks(content),
            })
        }
        "tool/result" => {
            // The envelope parse validated `data` already; an object needs
            // no second pass (the bulk of a log's bytes are tool results).
            let object = raw_data.is_some_and(|d| d.starts_with('{'));
            if !object {
                let _: AnyObject = data(raw_data, kind)?;
            }
            Event::Surface(EventKind::ToolResult)
        }
        "assistant/chunk" => Event::Chunk,
        "session/title" => {
            let d: TitleData<'_> = data(raw_data, kind)?;
            match d.title.and_then(Loose::into_string) {
                Some(title) => Event::Title(title),
                None => return Err(shape("session/title title is not a string")),
            }
        }
        "session/compact" => {
            let d: CompactData<'_> = data(raw_data, kind)?;
            let through = d
                .through_seq
                .and_then(|t| t.whole_number())
                .ok_or_else(|| shape("session/compact throughSeq is not an integer"))?;
            Event::Compact(through)
        }
        _ => Event::Unknown,
    };
    Ok((seq, event))
}

fn parse_source(source: SourceData<'_>) -> Option<MessageSource> {
    let kind = source.kind?.into_string()?;
    Some(match kind.as_str() {
        "user" => MessageSource::User,
        "compaction"
            if source.marker.as_ref().and_then(Loose::as_str) == Some(COMPACTION_MARKER) =>
        {
            MessageSource::Checkpoint
        }
        "session-reference" => MessageSource::SessionReference,
        _ => MessageSource::Other(kind),
    })
}
