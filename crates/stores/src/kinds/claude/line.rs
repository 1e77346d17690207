//! The fields of a Claude Code transcript line, read without building a
//! JSON tree, and what a `user` line says of the person.
//!
//! # What the person typed
//!
//! Only `user` lines of the main conversation count, and of those only text
//! the person wrote: wrappers Claude Code generates (command output, caveats,
//! background-task notices, interruption notices) are left out; a slash
//! command with arguments is the request `/x args` (its expansion follows
//! as a meta line and stays out), one without arguments is not a message;
//! an image-only prompt has no text to keep and titles as `[Image]`. Every
//! other line type (`attachment`, `api-request*`, `cost-state`,
//! `last-prompt`, `queue-operation`, `mode`, …, and `system` lines other
//! than `compact_boundary`) is never conversation, even where it repeats
//! the request text.
//!

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::kinds::foreign;
use session_ref_jsonl::loose::{
    is_str, is_true, raw_elements, scan_fields, scan_or_parse, scan_or_parse_line, string, RawText,
};

/// Text-block openings that mark generated wrappers, not typed prompts:
/// those of `FORMATS.md` (`<task-notification>` is the notice of a finished
/// background task, written as a plain `user` line), and the notice Claude
/// Code writes as a user text when the person interrupts a reply
/// (`[Request interrupted by user]`, `… by user for tool use]`), which no
/// one typed, like Codex's `<turn_aborted>`; and the editor context the
/// VS Code extension puts before the typed text, each in its own text
/// block of the same line (`<ide_opened_file>`, `<ide_selection>`), which
/// Claude Code's own session list leaves out of the prompt too.
const WRAPPERS: &[&str] = &[
    "<command-name>",
    "<command-message>",
    "<local-command-stdout>",
    "<local-command-caveat>",
    "<bash-input>",
    "<bash-stdout>",
    "<task-notification>",
    "Caveat: The messages below",
    "[Request interrupted by user",
    "<ide_opened_file>",
    "<ide_selection>",
];

/// The `rowSource` of a `user` line written at the person's own terminal.
/// Claude Code 2.1.332 started stamping every `user` line with its author:
/// `local` (typed here, or the local command wrappers that the rules above
/// sort out), `harness` (notices and reminders Claude Code writes itself,
/// such as task notifications, not always marked `isMeta`), `hook` (a
/// hook's text or rewritten messages) and `recorded` (messages relayed
/// from elsewhere: teammates, another machine). Only `local` lines, and
/// lines of older versions without the field, can hold a typed prompt.
const LOCAL_ROW: &str = "local";

/// The `origin.kind` of a `user` line a person wrote. Claude Code stamps
/// messages that did not come from the prompt box with an `origin`
/// (`task-notification`, `coordinator`, `peer`, `channel`, `plugin`,
/// `auto-continuation`, `voice-call`, …), and its own rule for "the person
/// wrote this" (2.1.332) accepts a `user` line only when `origin` is absent
/// or of this kind. Lines of such origins often carry no `rowSource`, so
/// the rule above alone would take them for typed prompts.
const HUMAN_ORIGIN: &str = "human";

/// The prompt Claude Code sends to warm up a sub-agent.
const WARMUP: &str = "Warmup";

/// The keys of [`Line`]'s fields, in their order.
const LINE_KEYS: [&str; 16] = [
    "type",
    "subtype",
    "cwd",
    "timestamp",
    "isSidechain",
    "isMeta",
    "isCompactSummary",
    "rowSource",
    "origin",
    "message",
    "customTitle",
    "aiTitle",
    "summary",
    "leafUuid",
    "uuid",
    "compactMetadata",
];

/// The fields of a transcript line the mapping uses; all optional and
/// interpreted leniently, so a line of an unknown shape is simply inert.
#[derive(Deserialize, Default, Debug, PartialEq)]
pub(super) struct Line<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) kind: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) subtype: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) cwd: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) timestamp: Option<RawText<'a>>,
    #[serde(rename = "isSidechain", borrow)]
    pub(super) is_sidechain: Option<RawText<'a>>,
    #[serde(rename = "isMeta", borrow)]
    is_meta: Option<RawText<'a>>,
    #[serde(rename = "isCompactSummary", borrow)]
    pub(super) is_compact_summary: Option<RawText<'a>>,
    #[serde(rename = "rowSource", borrow)]
    row_source: Option<RawText<'a>>,
    #[serde(borrow)]
    origin: Option<RawText<'a>>,
    #[serde(borrow)]
    message: Option<RawText<'a>>,
    #[serde(rename = "customTitle", borrow)]
    pub(super) custom_title: Option<RawText<'a>>,
    #[serde(rename = "aiTitle", borrow)]
    pub(super) ai_title: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) summary: Option<RawText<'a>>,
    #[serde(rename = "leafUuid", borrow)]
    pub(super) leaf_uuid: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) uuid: Option<RawText<'a>>,
    #[serde(rename = "compactMetadata", borrow)]
    pub(super) compact_metadata: Option<RawText<'a>>,
}

impl<'a> Line<'a> {
    /// The fields of a line; `None` when it is not a JSON object of them.
    /// A line the envelope scanner vouches for is read by it (each value's
    /// text taken as it stands, as `serde_json` takes a `RawValue`), else
    /// by `serde_json`: the same fields either way (a property test below).
    pub(super) fn parse(bytes: &'a [u8]) -> Option<Line<'a>> {
        scan_or_parse_line(bytes, Line::scan)
    }

    /// [`Line::parse`] by the envelope scanner ([`scan_fields`]); `None`
    /// when in doubt.
    fn scan(text: &'a str) -> Option<Line<'a>> {
        let [kind, subtype, cwd, timestamp, is_sidechain, is_meta, is_compact_summary, row_source, origin, message, custom_title, ai_title, summary, leaf_uuid, uuid, compact_metadata] =
            scan_fields(text, LINE_KEYS)?;
        Some(Line {
            kind,
            subtype,
            cwd,
            timestamp,
            is_sidechain,
            is_meta,
            is_compact_summary,
            row_source,
            origin,
            message,
            custom_title,
            ai_title,
            summary,
            leaf_uuid,
            uuid,
            compact_metadata,
        })
    }

    pub(super) fn message(&self) -> Message<'a> {
        self.message
            .and_then(|m| Message::parse(m.0))
            .unwrap_or_default()
    }

    /// A `user` line of the main conversation that is neither meta nor a
    /// compaction summary, nor written by anyone but the person: a
    /// candidate direct message.
    pub(super) fn is_plain_user(&self) -> bool {
        is_str(self.kind, "user")
            && !is_true(self.is_sidechain)
            && !is_true(self.is_meta)
            && !is_true(self.is_compact_summary)
            && self
                .row_source
                .is_none_or(|source| is_str(Some(source), LOCAL_ROW))
            && self.has_human_origin()
    }

    /// `origin` is absent (or `null`), or its `kind` is [`HUMAN_ORIGIN`].
    fn has_human_origin(&self) -> bool {
        #[derive(Deserialize)]
        struct Origin<'a> {
            #[serde(borrow)]
            kind: Option<&'a RawValue>,
        }
        match self.origin {
            None => true,
            Some(raw) if raw.0 == "null" => true,
            Some(raw) => serde_json::from_str::<Origin>(raw.0)
                .is_ok_and(|origin| is_str(origin.kind, HUMAN_ORIGIN)),
        }
    }
}

/// The fields of `message` the mapping uses.
#[derive(Deserialize, Default, Debug, PartialEq)]
pub(super) struct Message<'a> {
    #[serde(borrow)]
    pub(super) id: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) model: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) content: Option<RawText<'a>>,
}

impl<'a> Message<'a> {
    /// The fields of a `message` value: by the envelope scanner, else by
    /// `serde_json` (see [`Line::parse`]).
    pub(super) fn parse(text: &'a str) -> Option<Message<'a>> {
        scan_or_parse(text, |text| {
            let [id, model, content] = scan_fields(text, ["id", "model", "content"])?;
            Some(Message { id, model, content })
        })
    }
}

/// One content block: only `type` and `text` matter.
#[derive(Deserialize, Debug, PartialEq)]
struct ContentBlock<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<RawText<'a>>,
    #[serde(borrow)]
    text: Option<RawText<'a>>,
}

impl<'a> ContentBlock<'a> {
    /// A block: by the envelope scanner, else by `serde_json`.
    pub(super) fn parse(text: &'a str) -> Option<ContentBlock<'a>> {
        scan_or_parse(text, |text| {
            let [kind, text] = scan_fields(text, ["type", "text"])?;
            Some(ContentBlock { kind, text })
        })
    }
}

/// The texts of `message.content`: the string itself, or the `text` of each
/// `text` block (tool results, thinking, images and the rest are left out).
pub(super) fn content_texts(content: Option<RawText<'_>>) -> Vec<String> {
    content_parts(content).texts
}

/// What `message.content` holds, as far as the mapping cares.
#[derive(Debug, Default)]
struct ContentParts {
    /// The string itself, or the `text` of each `text` block.
    texts: Vec<String>,
    /// Some block is an `image`.
    image: bool,
    /// Some block is a `tool_result`.
    tool_result: bool,
}

fn content_parts(content: Option<RawText<'_>>) -> ContentParts {
    let mut parts = ContentParts::default();
    let Some(raw) = content else {
        return parts;
    };
    if raw.0.starts_with('"') {
        parts.texts.extend(string(Some(raw)));
        return parts;
    }
    let blocks = raw_elements(Some(raw))
        .into_iter()
        .filter_map(|block| ContentBlock::parse(block.0));
    for block in blocks {
        if is_str(block.kind, "text") {
            parts.texts.extend(string(block.text));
        } else if is_str(block.kind, "image") {
            parts.image = true;
        } else if is_str(block.kind, "tool_result") {
            parts.tool_result = true;
        }
    }
    parts
}

/// Whether a user text block is something the person typed.
fn is_genuine(text: &str) -> bool {
    !foreign::starts_with_any(text, WRAPPERS) && text.trim() != WARMUP
}

/// The text between `<tag>` and `</tag>`, trimmed.
fn tag_text<'t>(text: &'t str, open: &str, close: &str) -> Option<&'t str> {
    let start = text.find(open)? + open.len();
    let len = text[start..].find(close)?;
    Some(text[start..start + len].trim())
}

/// The slash command a wrapper names (`<command-name>/init</command-name>`).
pub(super) fn command_name(text: &str) -> Option<String> {
    let name = tag_text(text, "<command-name>", "</command-name>")?;
    (!name.is_empty()).then(|| name.to_owned())
}

/// A slash command typed with arguments, as the person typed it (`/x
/// args`); `None` for other texts and for commands without arguments. Only
/// a text that opens with the command wrapper counts, so a prompt quoting
/// the tags is not mistaken for one.
fn command_request(text: &str) -> Option<String> {
    if !foreign::starts_with_any(text, &["<command-name>", "<command-message>"]) {
        return None;
    }
    let name = command_name(text)?;
    let args = tag_text(text, "<command-args>", "</command-args>")?;
    (!args.is_empty()).then(|| format!("{name} {args}"))
}

/// What a `user` line of the main conversation (not meta, side-chain or
/// compaction summary) says of the person.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Prompt {
    /// A direct user message: the typed texts (a slash command with
    /// arguments as `/x args`).
    Typed(Vec<String>),
    /// A prompt made only of images: no text to keep.
    ImagesOnly,
    /// A slash command without arguments: not a message, a title of last
    /// resort.
    Command(String),
    /// Nothing typed: tool results, generated wrappers and notices.
    Nothing,
}

impl Prompt {
    pub(super) fn of(content: Option<RawText<'_>>) -> Prompt {
        let parts = content_parts(content);
        let mut typed = Vec::new();
        let mut command = None;
        for text in parts.texts {
            if let Some(request) = command_request(&text) {
                typed.push(request);
            } else if is_genuine(&text) {
                typed.push(text);
            } else if command.is_none() {
                command = command_name(&text);
            }
        }
        if !typed.is_empty() {
            Prompt::Typed(typed)
        } else if let Some(name) = command {
            Prompt::Command(name)
        } else if parts.image && !parts.tool_result {
            Prompt::ImagesOnly
        } else {
            Prompt::Nothing
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Transcript lines of every shape the fields take, and hostile ones:
    /// repeated fields, escaped keys, `null`s, nesting, other spacing.
    fn arb_line() -> impl Strategy<Value = String> {
        let others = ["parentUuid", "toolUseResult", "t\\u0079pe"];
        let key =
            prop::sample::select(LINE_KEYS.iter().chain(&others).copied().collect::<Vec<_>>());
        let value = prop::sample::select(vec![
            "\"user\"",
            "\"assistant\"",
            "null",
            "true",
            "false",
            "12",
            "-1.5e3",
            "\"a \\\"q\\\" \\n \\u00e9 é 😀\"",
            r#"{"role":"user","content":[{"type":"text","text":"hi"},{"type":"tool_result","content":"x\ny"}]}"#,
            r#"{"id":"m1","model":"<synthetic>","content":"plain"}"#,
            r#"{"kind":"human"}"#,
            "[1,[2,{}],\"x\"]",
            "{}",
            "[]",
        ]);
        let member = (key, value).prop_map(|(k, v)| format!("\"{k}\":{v}"));
        let spacing = prop::sample::select(vec!["", " ", "\t"]);
        (prop::collection::vec(member, 0..8), spacing).prop_map(|(members, space)| {
            format!("{space}{{{}}}{space}", members.join(&format!(",{space}")))
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn the_scanner_reads_a_line_as_serde_json_does(text in arb_line()) {
            let general: Option<Line<'_>> = serde_json::from_str(&text).ok();
            if let Some(scanned) = Line::scan(&text) {
                prop_assert_eq!(Some(scanned), general, "{}", text);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn messages_and_blocks_read_as_serde_json_reads_them(
            message in session_ref_jsonl::testing::arb_object(&["id", "model", "content"]),
            block in session_ref_jsonl::testing::arb_object(&["type", "text"]),
        ) {
            prop_assert_eq!(Message::parse(&message), serde_json::from_str::<Message<'_>>(&message).ok(), "{}", message);
            prop_assert_eq!(ContentBlock::parse(&block), serde_json::from_str::<ContentBlock<'_>>(&block).ok(), "{}", block);
        }
    }

    #[test]
    fn ordinary_lines_are_read_by_the_scanner() {
        let line = r#"{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s","version":"2.1.332","type":"user","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result","content":"a\nb \"q\" é"}]},"uuid":"u","timestamp":"2026-01-01T00:00:00.000Z","toolUseResult":{"stdout":"x"}}"#;
        let scanned = Line::scan(line).unwrap();
        assert_eq!(scanned, serde_json::from_str::<Line<'_>>(line).unwrap());
        assert!(scanned.message.is_some() && scanned.is_sidechain.is_some());
        assert_eq!(scanned.row_source, None);
    }

    #[test]
    fn what_the_person_typed() {
        let of = |json: &str| Prompt::of(Some(RawText(json)));
        let typed = |t: &str| Prompt::Typed(vec![t.to_owned()]);
        assert_eq!(
            of(
                r#""<command-message>greet</command-message>\n<command-name>/greet</command-name>\n<command-args>Carol </command-args>""#
            ),
            typed("/greet Carol")
        );
        assert_eq!(
            of(
                r#""<command-name>/compact</command-name>\n  <command-message>compact</command-message>\n  <command-args></command-args>""#
            ),
            Prompt::Command("/compact".into())
        );
        assert_eq!(
            of(
                r#""<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n</task-notification>""#
            ),
            Prompt::Nothing
        );
        // Editor context from the VS Code extension: a block of its own,
        // before the typed text; alone it is not a prompt.
        assert_eq!(
            of(
                r#"[{"type":"text","text":"<ide_opened_file>The user opened the file /a/b.ts in the IDE. This may or may not be related to the current task.</ide_opened_file>"},{"type":"text","text":"<ide_selection>The user selected the lines 1 to 2 from /a/b.ts:\nx\n</ide_selection>"},{"type":"text","text":"fix this file"}]"#
            ),
            typed("fix this file")
        );
        assert_eq!(
            of(
                r#"[{"type":"text","text":"<ide_opened_file>The user opened /a/b.ts</ide_opened_file>"}]"#
            ),
            Prompt::Nothing
        );
        assert_eq!(of(r#"[{"type":"image","source":{}}]"#), Prompt::ImagesOnly);
        assert_eq!(
            of(r#"[{"type":"image","source":{}},{"type":"text","text":"what is this?"}]"#),
            typed("what is this?")
        );
        assert_eq!(
            of(
                r#"[{"type":"tool_result","tool_use_id":"t","content":[{"type":"image"}]},{"type":"image"}]"#
            ),
            Prompt::Nothing
        );
        // Tags quoted inside a prompt do not make it a command.
        let quoted = "why is <command-name>/x</command-name><command-args>y</command-args> shown?";
        assert_eq!(of(&serde_json::to_string(quoted).unwrap()), typed(quoted));
        assert_eq!(of(r#""Warmup""#), Prompt::Nothing);
    }
}
