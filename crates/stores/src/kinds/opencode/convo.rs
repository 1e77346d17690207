//! One opencode session's messages and parts, mapped onto the surface: the
//! part of the reader that the database and the legacy JSON files share.
//!
//! Both keep the same two JSON shapes (the database strips the ids out of
//! `data` and keeps them in columns; the files keep them inline): a message
//! `{role, summary?, …}` and its parts `{type, text?, synthetic?, ignored?,
//! …}`, the parts in id order. What each message is to the conversation is
//! worked out here, without I/O, so both sources fold identically.
//!
//! opencode 2.x writes one row per message instead (`session_message`,
//! [`StoredMessage::kind`]), its content inline in `data`
//! ([`turn_of`] maps both onto the same [`Turn`]s).

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::kinds::foreign::{title_from_text, SurfaceBuilder};
use crate::model::SurfaceSink;

/// One message with its parts, as stored (JSON text of each).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredMessage {
    /// The message id (`msg_…`).
    pub id: String,
    /// The `session_message.type` of a 2.x message (`user`, `assistant`,
    /// `compaction`, `synthetic`, …): its `data` is then 2.x's JSON and it
    /// has no parts. `None` for a 1.x message.
    pub kind: Option<String>,
    /// The message's `data` JSON.
    pub data: String,
    /// Each part's id and `data` JSON, in id order.
    pub parts: Vec<(String, String)>,
}

/// Where opencode's undo stands (`session.revert`): the messages from
/// `message_id` on (from part `part_id` on, inside that message, when
/// given) are hidden, and removed at the next prompt.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Revert {
    /// The first hidden message.
    #[serde(rename = "messageID")]
    pub message_id: String,
    /// The first hidden part of that message, when only some are.
    #[serde(rename = "partID", default)]
    pub part_id: Option<String>,
}

impl Revert {
    /// The revert of a session's `revert` JSON, `None` when there is none
    /// or it does not parse.
    pub fn parse(json: Option<&str>) -> Option<Revert> {
        serde_json::from_str(json?).ok()
    }
}

/// What one message is to the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Turn {
    /// What a person typed: the user message's text parts that opencode did
    /// not add (`synthetic`: `@file`/`-f` contents, plugin context, the
    /// "Continue…" after an automatic compaction; `ignored`).
    Prompt(Vec<String>),
    /// An assistant message's text parts (never reasoning or tool parts).
    Reply(Vec<String>),
    /// A user message holding a `compaction` part (1.x), or a 2.x
    /// `compaction` without its summary yet: a compaction was asked for.
    Compaction,
    /// The assistant message (`summary: true`) holding a compaction's
    /// summary (1.x), or a finished 2.x `compaction`.
    Summary(Vec<String>),
    /// Nothing the surface shows (only synthetic text, files, tool output).
    Hidden,
}

#[derive(Deserialize)]
struct MessageData<'a> {
    #[serde(borrow, default)]
    role: Option<&'a str>,
    #[serde(borrow, default)]
    summary: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct PartData<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(default)]
    synthetic: Option<bool>,
    #[serde(default)]
    ignored: Option<bool>,
}

/// A 2.x `session_message` row's `data`: a `user` message's `text`, an
/// `assistant` message's `content`, a `compaction`'s `summary` (and, in
/// 2.0, its `status`).
#[derive(Deserialize)]
struct V2Data<'a> {
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<Vec<PartData<'a>>>,
    #[serde(borrow, default)]
    summary: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
}

/// What a 2.x message (`session_message` of `kind`) is to the conversation.
///
/// - `user`: its `text` is what the person typed (attached files are in
///   `files`, sub-agent mentions in `agents`, never in `text`);
/// - `assistant`: its `content`'s `text` items, without `synthetic` or
///   `ignored` ones (never `reasoning` or `tool`);
/// - `compaction`: its `summary`, once written (2.0 marks a finished one
///   `status: "completed"`; the source followed has no `status`);
/// - `synthetic` (text opencode injects, such as a background job's
///   notice), `shell` (a `!` command and its output), `system`, and the
///   switches of agent, model or place: nothing the surface shows.
fn turn_of_v2(kind: &str, data: &str) -> Turn {
    let wanted = matches!(kind, "user" | "assistant" | "compaction");
    let Some(data) = wanted
        .then(|| serde_json::from_str::<V2Data<'_>>(data).ok())
        .flatten()
    else {
        return Turn::Hidden;
    };
    let nonblank = |t: &Cow<'_, str>| !t.trim().is_empty();
    match kind {
        "user" => match data.text.filter(nonblank) {
            Some(text) => Turn::Prompt(vec![text.into_owned()]),
            None => Turn::Hidden,
        },
        "assistant" => Turn::Reply(
            data.content
                .unwrap_or_default()
                .into_iter()
                .filter(|p| p.kind.as_deref() == Some("text"))
                .filter(|p| p.synthetic != Some(true) && p.ignored != Some(true))
                .filter_map(|p| p.text.filter(nonblank))
                .map(Cow::into_owned)
                .collect(),
        ),
        _ => match (data.summary.filter(nonblank), data.status.as_deref()) {
            (Some(summary), None | Some("completed")) => Turn::Summary(vec![summary.into_owned()]),
            _ => Turn::Compaction,
        },
    }
}

/// What `message` is to the conversation. A message or part that does not
/// parse is passed over (opencode's own writes are the only source, but a
/// reader of another program's store stays lenient).
pub fn turn_of(message: &StoredMessage) -> Turn {
    if let Some(kind) = &message.kind {
        return turn_of_v2(kind, &message.data);
    }
    let Ok(data) = serde_json::from_str::<MessageData<'_>>(&message.data) else {
        return Turn::Hidden;
    };
    // Only text and compaction parts matter: the others (tool calls with
    // their output, the bulk of a session) are not parsed at all unless
    // they hold one of those words as a JSON string.
    let parts: Vec<PartData<'_>> = message
        .parts
        .iter()
        .filter(|(_, json)| {
            let json = json.as_bytes();
            memchr::memmem::find(json, b"\"text\"").is_some()
                || memchr::memmem::find(json, b"\"compaction\"").is_some()
        })
        .filter_map(|(_, json)| serde_json::from_str(json).ok())
        .collect();
    let texts = || -> Vec<String> {
        parts
            .iter()
            .filter(|p| p.kind.as_deref() == Some("text"))
            .filter(|p| p.synthetic != Some(true) && p.ignored != Some(true))
            .filter_map(|p| p.text.as_deref())
            .filter(|t| !t.trim().is_empty())
            .map(str::to_owned)
            .collect()
    };
    match data.role {
        Some("user")
            if parts
                .iter()
                .any(|p| p.kind.as_deref() == Some("compaction")) =>
        {
            Turn::Compaction
        }
        Some("user") => match texts() {
            t if t.is_empty() => Turn::Hidden,
            t => Turn::Prompt(t),
        },
        // `summary` is `true` on a compaction's summary; user messages
        // carry an object there (their diff summary).
        Some("assistant") if data.summary.is_some_and(|s| s.get() == "true") => {
            Turn::Summary(texts())
        }
        Some("assistant") => Turn::Reply(texts()),
        _ => Turn::Hidden,
    }
}

/// The messages still shown under `revert` (all of them without one).
pub fn apply_revert(
    mut messages: Vec<StoredMessage>,
    revert: Option<&Revert>,
) -> Vec<StoredMessage> {
    let Some(revert) = revert else {
        return messages;
    };
    let Some(at) = messages.iter().position(|m| m.id == revert.message_id) else {
        return messages;
    };
    match &revert.part_id {
        Some(part) => {
            messages.truncate(at + 1);
            let kept = &mut messages[at].parts;
            if let Some(from) = kept.iter().position(|(id, _)| id == part) {
                kept.truncate(from);
            }
        }
        None => messages.truncate(at),
    }
    messages
}

/// Fold `messages` (in conversation order) into `sink`. Each message's seq
/// is its 1-based position; the result is the last seq read.
///
/// A completed compaction (a `compaction` request followed by a summary
/// with text) shadows everything before it and becomes the compact
/// checkpoint; opencode keeps the older messages but sends the model only
/// the summary and what follows.
pub fn fold(messages: &[StoredMessage], sink: &mut dyn SurfaceSink) -> u64 {
    let mut builder = SurfaceBuilder::new(sink);
    for (index, message) in messages.iter().enumerate() {
        let seq = index as u64 + 1;
        match turn_of(message) {
            Turn::Prompt(texts) => builder.user(seq, texts),
            Turn::Reply(texts) => builder.assistant(seq, None, texts),
            Turn::Summary(texts) if !texts.is_empty() => {
                builder.shadow();
                builder.checkpoint(seq, texts);
            }
            Turn::Summary(_) | Turn::Compaction | Turn::Hidden => {}
        }
        if builder.wants_tools() {
            let tools = match &message.kind {
                Some(_) => crate::kinds::tools::opencode_v2_message(&message.data),
                None => message
                    .parts
                    .iter()
                    .flat_map(|(_, part)| crate::kinds::tools::opencode_part(part))
                    .collect(),
            };
            tools.into_iter().for_each(|tool| builder.tool(seq, tool));
        }
    }
    messages.len() as u64
}

/// The title opencode lists: the session's own title, unless it is still
/// the placeholder opencode gives a new session (`New session - <ISO
/// time>`, `Child session - …`), which a generated title, `--title` or a
/// rename replaces; then the first line of the first prompt.
pub fn title(stored: Option<&str>, messages: &[StoredMessage]) -> Option<String> {
    if let Some(title) = stored.filter(|t| !is_default_title(t)) {
        if let Some(title) = title_from_text(title) {
            return Some(title);
        }
    }
    first_prompt_title(messages)
}

/// The first line of the first prompt, cut as every kind cuts it.
pub fn first_prompt_title(messages: &[StoredMessage]) -> Option<String> {
    messages.iter().find_map(|m| match turn_of(m) {
        Turn::Prompt(texts) => texts.iter().find_map(|t| title_from_text(t)),
        _ => None,
    })
}

/// Whether `title` is opencode's placeholder for a session not titled yet:
/// `New session - ` or `Child session - ` then an ISO time to the
/// millisecond (`2026-12-01T18:54:15.204Z`), as opencode 1.18.33 tests it.
pub fn is_default_title(title: &str) -> bool {
    let Some(time) = title
        .strip_prefix("New session - ")
        .or_else(|| title.strip_prefix("Child session - "))
    else {
        return false;
    };
    let b = time.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    b.len() == 24
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19)
        && b[19] == b'.'
        && digits(20..23)
        && b[23] == b'Z'
}

/// Milliseconds since the epoch as RFC 3339 in UTC, to the millisecond
/// (`2026-12-01T18:54:15.204Z`, as opencode's own ISO times read).
pub fn rfc3339_ms(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let in_day = ms.rem_euclid(86_400_000);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard
/// Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Block, EventKind, MessageSource, Surface};

    fn message(id: &str, data: &str, parts: &[&str]) -> StoredMessage {
        StoredMessage {
            id: id.into(),
            kind: None,
            data: data.into(),
            parts: parts
                .iter()
                .enumerate()
                .map(|(i, p)| (format!("prt_{id}_{i:03}"), (*p).to_owned()))
                .collect(),
        }
    }

    const USER: &str = r#"{"role":"user","time":{"created":1},"summary":{"diffs":[]}}"#;
    const ASSISTANT: &str = r#"{"role":"assistant","mode":"build","parentID":"m1"}"#;
    const SUMMARY: &str = r#"{"role":"assistant","mode":"compaction","summary":true}"#;

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

    fn surface_of(messages: &[StoredMessage]) -> Surface {
        let mut surface = Surface::default();
        let last = fold(messages, &mut surface);
        surface.captured_through_seq = last;
        surface.drop_empty_assistant_messages();
        surface
    }

    #[test]
    fn typed_text_is_the_prompt_and_synthetic_parts_are_not() {
        let attached = message(
            "m1",
            USER,
            &[
                r#"{"type":"text","synthetic":true,"text":"Called the Read tool with the following input: {}"}"#,
                r#"{"type":"text","synthetic":true,"text":"<path>/p/notes.txt</path>"}"#,
                r#"{"type":"file","mime":"text/plain","filename":"notes.txt","url":"file:///p/notes.txt"}"#,
                r#"{"type":"text","text":"\"summarise the attached file\""}"#,
            ],
        );
        assert_eq!(
            turn_of(&attached),
            Turn::Prompt(vec!["\"summarise the attached file\"".into()])
        );
        let continued = message(
            "m2",
            USER,
            &[
                r#"{"type":"text","metadata":{"compaction_continue":true},"synthetic":true,"text":"Continue if you have next steps"}"#,
            ],
        );
        assert_eq!(turn_of(&continued), Turn::Hidden);
        let ignored = message(
            "m3",
            USER,
            &[r#"{"type":"text","ignored":true,"text":"x"}"#],
        );
        assert_eq!(turn_of(&ignored), Turn::Hidden);
    }

    #[test]
    fn replies_keep_text_parts_only() {
        let reply = message(
            "m2",
            ASSISTANT,
            &[
                r#"{"type":"step-start"}"#,
                r#"{"type":"reasoning","text":"MOCK REASONING"}"#,
                r#"{"type":"tool","tool":"read","state":{"status":"completed","output":"secret"}}"#,
                r#"{"type":"text","text":"ACK"}"#,
                r#"{"type":"step-finish","reason":"stop"}"#,
            ],
        );
        assert_eq!(turn_of(&reply), Turn::Reply(vec!["ACK".into()]));
    }

    #[test]
    fn a_completed_compaction_shadows_what_came_before() {
        let messages = [
            message("m1", USER, &[r#"{"type":"text","text":"big one"}"#]),
            message("m2", ASSISTANT, &[r#"{"type":"text","text":"ACK big"}"#]),
            message(
                "m3",
                USER,
                &[r#"{"type":"compaction","auto":true,"overflow":false}"#],
            ),
            message(
                "m4",
                SUMMARY,
                &[r#"{"type":"text","text":"<summary>S</summary>"}"#],
            ),
            message(
                "m5",
                USER,
                &[r#"{"type":"text","synthetic":true,"text":"Continue if you have next steps"}"#],
            ),
            message(
                "m6",
                ASSISTANT,
                &[r#"{"type":"text","text":"ACK continue"}"#],
            ),
            message("m7", USER, &[r#"{"type":"text","text":"after"}"#]),
        ];
        let surface = surface_of(&messages);
        assert_eq!(
            texts(&surface),
            [
                ("checkpoint".into(), "<summary>S</summary>".into()),
                ("assistant".into(), "ACK continue".into()),
                ("user".into(), "after".into()),
            ]
        );
        assert_eq!(surface.events[0].seq, 4);
        assert_eq!(surface.captured_through_seq, 7);
        // A compaction whose summary never came shadows nothing.
        let unfinished = surface_of(&messages[..4].iter().take(3).cloned().collect::<Vec<_>>());
        assert_eq!(unfinished.events.len(), 2);
    }

    #[test]
    fn revert_hides_the_undone_messages_and_parts() {
        let messages = vec![
            message("m1", USER, &[r#"{"type":"text","text":"one"}"#]),
            message(
                "m2",
                ASSISTANT,
                &[
                    r#"{"type":"text","text":"a"}"#,
                    r#"{"type":"text","text":"b"}"#,
                ],
            ),
            message("m3", USER, &[r#"{"type":"text","text":"two"}"#]),
        ];
        let whole = apply_revert(
            messages.clone(),
            Revert::parse(Some(r#"{"messageID":"m3","snapshot":"x"}"#)).as_ref(),
        );
        assert_eq!(whole.len(), 2);
        let parted = apply_revert(
            messages.clone(),
            Some(&Revert {
                message_id: "m2".into(),
                part_id: Some("prt_m2_001".into()),
            }),
        );
        assert_eq!(texts(&surface_of(&parted))[1].1, "a");
        assert_eq!(apply_revert(messages.clone(), None).len(), 3);
        assert_eq!(Revert::parse(Some("null")), None);
    }

    #[test]
    fn the_placeholder_title_gives_way_to_the_first_prompt() {
        assert!(is_default_title("New session - 2026-12-01T18:54:15.204Z"));
        assert!(is_default_title("Child session - 2026-12-01T18:54:15.204Z"));
        assert!(!is_default_title("New session - today"));
        assert!(!is_default_title("New session - 2026-12-01T18:54:15Z"));
        let messages = [
            message(
                "m1",
                USER,
                &[r#"{"type":"text","synthetic":true,"text":"ctx"}"#],
            ),
            message(
                "m2",
                USER,
                &[r#"{"type":"text","text":"\n  héllo wörld ✓\nsecond line"}"#],
            ),
        ];
        assert_eq!(
            title(Some("New session - 2026-12-01T18:54:15.204Z"), &messages).as_deref(),
            Some("héllo wörld ✓")
        );
        assert_eq!(
            title(Some("Mock Title \"two words\""), &messages).as_deref(),
            Some("Mock Title \"two words\"")
        );
        assert_eq!(
            title(Some("  "), &messages).as_deref(),
            Some("héllo wörld ✓")
        );
        assert_eq!(title(None, &[]), None);
    }

    fn v2(id: &str, kind: &str, data: &str) -> StoredMessage {
        StoredMessage {
            id: id.into(),
            kind: Some(kind.into()),
            data: data.into(),
            parts: Vec::new(),
        }
    }

    #[test]
    fn a_v2_session_message_maps_like_a_v1_message() {
        let user = v2(
            "m1",
            "user",
            r#"{"time":{"created":1},"text":"\"fix the build\"","files":[{"uri":"file:///w/a.txt","mime":"text/plain"}],"agents":[]}"#,
        );
        assert_eq!(
            turn_of(&user),
            Turn::Prompt(vec!["\"fix the build\"".into()])
        );
        let reply = v2(
            "m2",
            "assistant",
            r#"{"time":{"created":2},"agent":"build","model":{"id":"m","providerID":"p"},"content":[
                {"type":"reasoning","id":"r1","text":"REASONING"},
                {"type":"tool","id":"call_1","name":"bash","state":{"status":"completed","input":{"command":"ls"},"content":[{"type":"text","text":"OUTPUT"}],"structured":{}},"time":{"created":2}},
                {"type":"text","text":"synthetic note","synthetic":true},
                {"type":"text","text":"Fixed."}]}"#,
        );
        assert_eq!(turn_of(&reply), Turn::Reply(vec!["Fixed.".into()]));
        for (kind, data) in [
            (
                "synthetic",
                r#"{"sessionID":"s","text":"background job done","time":{"created":3}}"#,
            ),
            (
                "shell",
                r#"{"callID":"c","command":"ls","output":"x","time":{"created":3}}"#,
            ),
            ("agent-switched", r#"{"agent":"plan","time":{"created":3}}"#),
            (
                "system",
                r#"{"text":"You are in plan mode","time":{"created":3}}"#,
            ),
            ("user", r#"{"text":"  ","time":{"created":3}}"#),
            ("user", "not json"),
        ] {
            assert_eq!(turn_of(&v2("m", kind, data)), Turn::Hidden, "{kind} {data}");
        }
        let done = v2(
            "m3",
            "compaction",
            r#"{"reason":"auto","summary":"S","time":{"created":4}}"#,
        );
        assert_eq!(turn_of(&done), Turn::Summary(vec!["S".into()]));
        let completed = v2(
            "m3",
            "compaction",
            r#"{"status":"completed","reason":"auto","summary":"S"}"#,
        );
        assert_eq!(turn_of(&completed), Turn::Summary(vec!["S".into()]));
        let running = v2(
            "m3",
            "compaction",
            r#"{"status":"running","reason":"auto","summary":""}"#,
        );
        assert_eq!(turn_of(&running), Turn::Compaction);
        // Folded as v1 is: the summary shadows what came before it.
        let messages = [
            v2("m1", "user", r#"{"text":"before"}"#),
            v2("m2", "compaction", r#"{"reason":"auto","summary":"S"}"#),
            v2("m3", "user", r#"{"text":"after"}"#),
            v2(
                "m4",
                "assistant",
                r#"{"content":[{"type":"text","text":"ACK"}]}"#,
            ),
        ];
        assert_eq!(
            texts(&surface_of(&messages)),
            [
                ("checkpoint".into(), "S".into()),
                ("user".into(), "after".into()),
                ("assistant".into(), "ACK".into()),
            ]
        );
        assert_eq!(title(Some(""), &messages).as_deref(), Some("before"));
    }

    #[test]
    fn milliseconds_print_as_rfc3339() {
        assert_eq!(rfc3339_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_ms(1_796_151_255_204), "2026-12-01T18:54:15.204Z");
        assert_eq!(rfc3339_ms(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(rfc3339_ms(-1), "1969-12-31T23:59:59.999Z");
        for ms in [0, 1_796_151_255_204, 4_102_444_800_123, -86_400_001] {
            let back = session_ref_core::time::Instant::parse_rfc3339(&rfc3339_ms(ms)).unwrap();
            assert_eq!(back.0, i128::from(ms) * 1_000_000);
        }
    }
}
