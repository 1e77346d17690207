//! What a Codex message says: a direct user message or an assistant
//! message, from a response item or from its event copy.
//!
//! # What the person typed
//!
//! A user-role message minus what Codex injects (instructions, environment,
//! notes) and minus the markers it writes around attached images
//! (`<image name=[Image #1] path="…">` … `</image>`, observed in 0.169 and
//! 0.171).
//! IDE clients wrap a prompt in their context (`# Context from my IDE
//! setup:` … `## My request for Codex:`): only the request after the marker
//! is the person's, as in Codex's own session list. Piped input (a
//! `<stdin>` block after the prompt) is the person's and is kept. The
//! `<user_action>` block `codex exec review` leaves in its parent rollout
//! is Codex's text.

use serde::Deserialize;

use super::line::Payload;
use crate::kinds::foreign::{starts_with_any, title_from_text, SurfaceBuilder};
use crate::model::SurfaceSink;
use session_ref_jsonl::loose::{is_str, raw_elements, scan_fields, scan_or_parse, string, RawText};

/// Openings of user-role messages Codex injects (instructions, environment,
/// aborted-turn notes, shell commands), which the person did not type.
const INJECTED: &[&str] = &[
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions for",
    "<turn_aborted>",
    "<user_shell_command>",
    // `codex exec review` puts the review's outcome in the parent as a
    // user item of Codex's own writing.
    "<user_action>",
];

/// The line after which an IDE client (VS Code extension, desktop app)
/// puts the person's request, below its context (open tabs, active file).
const IDE_REQUEST: &str = "## My request for Codex:";

/// Content block types that carry an image.
const IMAGE_BLOCKS: &[&str] = &["input_image", "image", "local_image"];

/// The title of a prompt made only of images (Codex's own list shows the
/// same).
const IMAGE_TITLE: &str = "[Image]";

/// A message's content blocks: their texts (of the types in `text_kinds`)
/// and whether any block is an image.
fn blocks(content: Option<RawText<'_>>, text_kinds: &[&str]) -> (Vec<String>, bool) {
    #[derive(Deserialize)]
    struct Block<'a> {
        #[serde(rename = "type", borrow)]
        kind: Option<RawText<'a>>,
        #[serde(borrow)]
        text: Option<RawText<'a>>,
    }
    fn block(raw: RawText<'_>) -> Option<Block<'_>> {
        scan_or_parse(raw.0, |text| {
            let [kind, text] = scan_fields(text, ["type", "text"])?;
            Some(Block { kind, text })
        })
    }
    let mut texts = Vec::new();
    let mut image = false;
    for block in raw_elements(content).into_iter().filter_map(block) {
        if text_kinds.iter().any(|k| is_str(block.kind, k)) {
            texts.extend(string(block.text));
        } else if IMAGE_BLOCKS.iter().any(|k| is_str(block.kind, k)) {
            image = true;
        }
    }
    (texts, image)
}

/// The texts of a message's blocks of type `block` (`input_text` for the
/// user, `output_text` for the assistant).
fn block_texts(content: Option<RawText<'_>>, block: &str) -> Vec<String> {
    blocks(content, &[block]).0
}

/// Whether a text block only marks where an attached image sits
/// (`<image name=[Image #1] path="…">`, `</image>`): Codex writes these
/// around each `input_image`; they are not the person's words.
fn is_image_marker(text: &str) -> bool {
    let text = text.trim();
    text == "</image>"
        || (text.starts_with("<image") && text.ends_with('>') && !text.contains('\n'))
}

/// The request inside an IDE client's wrapper: the text after the
/// `## My request for Codex:` line when the text holds one (at a line
/// start), as Codex's own session list strips it; the text itself
/// otherwise.
fn request_of(text: String) -> String {
    let at = text
        .match_indices(IDE_REQUEST)
        .map(|(at, _)| at)
        .find(|&at| at == 0 || text.as_bytes()[at - 1] == b'\n');
    match at {
        Some(at) => text[at + IDE_REQUEST.len()..].trim().to_owned(),
        None => text,
    }
}

/// The texts a person typed: without injected context, image markers or
/// blank blocks, and without an IDE client's wrapper.
fn typed(texts: Vec<String>) -> Vec<String> {
    texts
        .into_iter()
        .filter(|t| !starts_with_any(t, INJECTED) && !is_image_marker(t))
        .map(request_of)
        .filter(|t| !t.trim().is_empty())
        .collect()
}

/// A message as a speaker and its texts, when it is a direct user message
/// or an assistant message. A user prompt made only of images is `User`
/// with no texts: not a message of the surface, `[Image]` as a title.
#[derive(Debug, Clone)]
pub(super) enum Said {
    User(Vec<String>),
    Assistant(Vec<String>),
}

/// A user prompt's texts, or `None` when it holds neither typed text nor
/// an image (only injected context, say).
fn user_said(texts: Vec<String>, image: bool) -> Option<Said> {
    let texts = typed(texts);
    (!texts.is_empty() || image).then_some(Said::User(texts))
}

/// A response-item `message` (also the items of `replacement_history`).
pub(super) fn said_in_item(payload: &Payload<'_>) -> Option<Said> {
    if !is_str(payload.kind, "message") {
        return None;
    }
    if is_str(payload.role, "user") {
        let (texts, image) = blocks(payload.content, &["input_text"]);
        user_said(texts, image)
    } else if is_str(payload.role, "assistant") {
        Some(Said::Assistant(block_texts(payload.content, "output_text")))
    } else {
        None
    }
}

/// An `event_msg` copy of a message: `user_message`/`agent_message`, or
/// (0.16x) `item_completed` with a `UserMessage`/`AgentMessage` item.
pub(super) fn said_in_event(payload: &Payload<'_>) -> Option<Said> {
    if is_str(payload.kind, "item_completed") {
        let item = Payload::parse(payload.item?.0)?;
        return if is_str(item.kind, "UserMessage") {
            let (texts, image) = blocks(item.content, &["text", "input_text"]);
            user_said(texts, image)
        } else if is_str(item.kind, "AgentMessage") {
            let (texts, _) = blocks(item.content, &["Text", "text", "output_text"]);
            Some(Said::Assistant(texts))
        } else {
            None
        };
    }
    let message = string(payload.message)?;
    if is_str(payload.kind, "user_message") {
        let image = !raw_elements(payload.images).is_empty()
            || !raw_elements(payload.local_images).is_empty();
        user_said(vec![message], image)
    } else if is_str(payload.kind, "agent_message") {
        Some(Said::Assistant(vec![message]))
    } else {
        None
    }
}

/// A prompt's title: its first line (≤ 80 chars), or `[Image]` for a
/// prompt made only of images.
pub(super) fn prompt_title(texts: &[String]) -> Option<String> {
    if texts.is_empty() {
        return Some(IMAGE_TITLE.to_owned());
    }
    title_from_text(&texts.join("\n"))
}

pub(super) fn add<S: SurfaceSink>(builder: &mut SurfaceBuilder<S>, seq: u64, said: Said) {
    match said {
        Said::User(texts) if texts.is_empty() => {}
        Said::User(texts) => builder.user(seq, texts),
        Said::Assistant(texts) => builder.assistant(seq, None, texts),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ide_wrappers_and_image_markers_are_not_typed() {
        let wrapped = "# Context from my IDE setup:\n\n## Open tabs:\n- a.ts: a.ts\n\n## My request for Codex:\nfix the build\n";
        assert_eq!(request_of(wrapped.into()), "fix the build");
        let files = "# Files mentioned by the user:\n\n## shot.png: /t/shot.png\n## My request for Codex: look";
        assert_eq!(request_of(files.into()), "look");
        let quoted = "what does \"## My request for Codex:\" mean?";
        assert_eq!(request_of(quoted.into()), quoted);
        assert!(is_image_marker(r#"<image name=[Image #1] path="/a.png">"#));
        assert!(is_image_marker("</image>"));
        assert!(!is_image_marker("<image> tags\nin a question"));
        let texts = ["<image name=[Image #1]>", "</image>", "", "describe it"];
        assert_eq!(
            typed(texts.iter().map(|t| (*t).to_owned()).collect()),
            ["describe it"]
        );
    }
}
