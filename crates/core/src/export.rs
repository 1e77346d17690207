//! Export of one session's conversation for a person to read or keep:
//! Markdown, one self-contained HTML file, or JSON (issue 28's `export`).
//!
//! The conversation is the one the preview shows — what the person typed,
//! the assistant's text and the compaction summaries that replaced earlier
//! turns, in order — taken from [`crate::projection`], so an export never
//! carries tool output or injected context the snapshot would not; unless
//! asked (`--tools`), when the tool calls and results a fold reported
//! ([`crate::tools::ToolSink`]) are put in their places among the messages
//! ([`conversation`]), each cut to [`crate::model::TOOL_TEXT_CAP`] bytes.
//!
//! Session text is untrusted. In Markdown every message sits in a code
//! fence longer than any run of backticks it holds (CommonMark's rule), so
//! no message can end its fence early or become markup; labels and other
//! one-line fields are made printable ([`crate::escape::safe_label`]) and
//! put in code spans the same way. In HTML every byte of session text is
//! escaped, the file holds no script and no external resource, and its
//! style sheet is meant for screens and print alike.

use serde::Serialize;

use crate::escape::safe_label;
use crate::model::{Surface, ToolEvent, ToolPart};
use crate::projection::{project_event, Role};

/// The formats `export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// CommonMark.
    Markdown,
    /// One HTML file, no script.
    Html,
    /// One JSON object.
    Json,
}

/// What is known of the exported session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportHeader {
    /// The session's id.
    pub session_id: String,
    /// Its label (title or id).
    pub label: String,
    /// The agent that wrote it (`claude`, `codex`, …).
    pub agent: String,
    /// Its working directory, when known.
    pub cwd: Option<String>,
    /// When it was created, as its log says.
    pub created_at: String,
    /// Its canonical mention.
    pub mention: String,
}

/// One message of the exported conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExportMessage {
    /// Who spoke.
    #[serde(serialize_with = "role_name")]
    pub role: Role,
    /// The message's text.
    pub text: String,
    /// Whether it is a compaction summary (the text that replaced earlier
    /// turns), not something the person typed.
    pub checkpoint: bool,
    /// For a tool call or result (`--tools`), which and of what tool;
    /// absent (and not serialized) for a message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<ExportTool>,
}

/// What a tool message of an export is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportTool {
    /// `call` or `result`.
    #[serde(serialize_with = "part_name")]
    pub part: ToolPart,
    /// The tool's name, when the log says it.
    pub name: Option<String>,
    /// How many bytes of its text were cut (0: none).
    pub cut_bytes: u64,
}

fn part_name<S: serde::Serializer>(part: &ToolPart, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(match part {
        ToolPart::Call => "call",
        ToolPart::Result => "result",
    })
}

/// The messages of `surface` as the preview projects them, with `tools`
/// (their seqs in log order) each put after the event read at its seq and
/// before the next: the conversation an export shows. Without tools, the
/// projected messages alone.
pub fn conversation(surface: &Surface, tools: &[(u64, ToolEvent)]) -> Vec<ExportMessage> {
    let mut out = Vec::new();
    let mut tools = tools.iter().peekable();
    for event in &surface.events {
        while let Some((_, tool)) = tools.next_if(|(seq, _)| *seq < event.seq) {
            out.push(tool_message(tool));
        }
        if let Some(item) = project_event(event) {
            out.push(ExportMessage {
                role: item.role,
                text: item.text.into_owned(),
                checkpoint: item.checkpoint,
                tool: None,
            });
        }
    }
    out.extend(tools.map(|(_, tool)| tool_message(tool)));
    out
}

/// A tool event as an export message: a call is the assistant's, a result
/// is given back on the user's side (as Claude's API has it).
fn tool_message(tool: &ToolEvent) -> ExportMessage {
    ExportMessage {
        role: match tool.part {
            ToolPart::Call => Role::Assistant,
            ToolPart::Result => Role::User,
        },
        text: tool.text.clone(),
        checkpoint: false,
        tool: Some(ExportTool {
            part: tool.part,
            name: tool.name.clone(),
            cut_bytes: tool.cut,
        }),
    }
}

fn role_name<S: serde::Serializer>(role: &Role, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(role.as_str())
}

/// The session as one document in `format`.
pub fn export(header: &ExportHeader, messages: &[ExportMessage], format: ExportFormat) -> String {
    match format {
        ExportFormat::Markdown => markdown(header, messages),
        ExportFormat::Html => html(header, messages),
        ExportFormat::Json => json(header, messages),
    }
}

/// How a message is headed for a person (a tool's name follows a tool
/// message's heading, see [`tool_name`]).
fn speaker(message: &ExportMessage) -> &'static str {
    match (&message.tool, message.role, message.checkpoint) {
        (Some(tool), ..) if tool.part == ToolPart::Call => "Tool call",
        (Some(_), ..) => "Tool result",
        (None, _, true) => "Compaction summary",
        (None, Role::User, false) => "User",
        (None, Role::Assistant, false) => "Assistant",
    }
}

/// The printable name of a tool message's tool, when it has one.
fn tool_name(message: &ExportMessage) -> Option<String> {
    let name = message.tool.as_ref()?.name.as_deref()?;
    Some(safe_label(name).into_owned())
}

/// The longest run of `c` in `text`.
fn longest_run(text: &str, c: char) -> usize {
    let mut longest = 0;
    let mut run = 0;
    for ch in text.chars() {
        if ch == c {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    longest
}

/// `text` as a Markdown code span that it cannot end early.
fn code_span(text: &str) -> String {
    let ticks = "`".repeat(longest_run(text, '`') + 1);
    // A span starting or ending with a backtick needs a space inside.
    if text.starts_with('`') || text.ends_with('`') {
        format!("{ticks} {text} {ticks}")
    } else {
        format!("{ticks}{text}{ticks}")
    }
}

fn markdown(header: &ExportHeader, messages: &[ExportMessage]) -> String {
    let label = safe_label(&header.label);
    let mut out = format!("# {}\n\n", code_span(&label));
    out.push_str(&format!(
        "- agent: {}\n- session: {}\n",
        code_span(&safe_label(&header.agent)),
        code_span(&safe_label(&header.session_id))
    ));
    if let Some(cwd) = &header.cwd {
        out.push_str(&format!("- cwd: {}\n", code_span(&safe_label(cwd))));
    }
    out.push_str(&format!(
        "- created: {}\n- mention: {}\n",
        code_span(&safe_label(&header.created_at)),
        code_span(&header.mention)
    ));
    for message in messages {
        let fence = "`".repeat(longest_run(&message.text, '`').max(2) + 1);
        let name = tool_name(message)
            .map(|name| format!(" {}", code_span(&name)))
            .unwrap_or_default();
        out.push_str(&format!(
            "\n## {}{name}\n\n{fence}text\n{}\n{fence}\n",
            speaker(message),
            message.text.trim_end_matches('\n')
        ));
    }
    out
}

/// `text` with the five characters HTML gives meaning escaped.
fn html_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Controls other than line breaks and tabs are shown as
            // their Unicode control pictures (ESC as ␛), not handed to
            // the browser.
            c if c.is_control() && c != '\n' && c != '\t' => out.push(control_picture(c)),
            c => out.push(c),
        }
    }
    out
}

/// The visible stand-in of a control character: U+2400 + its code for
/// C0, ␡ for DEL, the replacement character for C1.
fn control_picture(c: char) -> char {
    match c as u32 {
        code @ 0..=0x1f => char::from_u32(0x2400 + code).unwrap_or('\u{fffd}'),
        0x7f => '\u{2421}',
        _ => '\u{fffd}',
    }
}

const STYLE: &str = "body{font:15px/1.5 system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b;background:#fff}\
h1{font-size:1.4rem;overflow-wrap:anywhere}dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;color:#444}\
dd{margin:0;overflow-wrap:anywhere;font-family:ui-monospace,monospace}section{border-top:1px solid #ddd;padding:.6rem 0}\
section h2{font-size:.85rem;text-transform:uppercase;letter-spacing:.05em;color:#555;margin:.2rem 0}\
section.assistant h2{color:#2a5d9f}section.checkpoint{background:#f6f6f0}\
section.tool{color:#333}section.tool pre{font-size:12.5px;background:#f4f4f4;padding:.3rem}\
pre{white-space:pre-wrap;overflow-wrap:anywhere;font:14px/1.45 ui-monospace,monospace;margin:0}\
@media print{body{margin:0;max-width:none}section{break-inside:avoid-page}}";

fn html(header: &ExportHeader, messages: &[ExportMessage]) -> String {
    let label = html_escape(&safe_label(&header.label));
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{label}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{label}</h1>\n<dl>\n"
    );
    let mut field = |name: &str, value: &str| {
        out.push_str(&format!("<dt>{name}</dt><dd>{}</dd>\n", html_escape(value)));
    };
    field("agent", &safe_label(&header.agent));
    field("session", &safe_label(&header.session_id));
    if let Some(cwd) = &header.cwd {
        field("cwd", &safe_label(cwd));
    }
    field("created", &safe_label(&header.created_at));
    field("mention", &header.mention);
    out.push_str("</dl>\n");
    for message in messages {
        let class = if message.tool.is_some() {
            "tool"
        } else if message.checkpoint {
            "checkpoint"
        } else {
            message.role.as_str()
        };
        let name = tool_name(message)
            .map(|name| format!(" <code>{}</code>", html_escape(&name)))
            .unwrap_or_default();
        out.push_str(&format!(
            "<section class=\"{class}\">\n<h2>{}{name}</h2>\n<pre>{}</pre>\n</section>\n",
            speaker(message),
            html_escape(&message.text)
        ));
    }
    out.push_str("</body>\n</html>\n");
    out
}

fn json(header: &ExportHeader, messages: &[ExportMessage]) -> String {
    #[derive(Serialize)]
    struct Document<'a> {
        #[serde(flatten)]
        header: &'a ExportHeader,
        conversation: &'a [ExportMessage],
    }
    let mut out = serde_json::to_string(&Document {
        header,
        conversation: messages,
    })
    // Strings and plain structs only: serializing cannot fail.
    .expect("an export serializes");
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(label: &str) -> ExportHeader {
        ExportHeader {
            session_id: "s-1".into(),
            label: label.into(),
            agent: "claude".into(),
            cwd: Some("/home/dev/app".into()),
            created_at: "2026-12-01T10:00:00Z".into(),
            mention: "@[x](hydra-session:InMtMSI)".into(),
        }
    }

    fn message(role: Role, text: &str, checkpoint: bool) -> ExportMessage {
        ExportMessage {
            role,
            text: text.into(),
            checkpoint,
            tool: None,
        }
    }

    #[test]
    fn markdown_fences_outlast_the_backticks_a_message_holds() {
        let text = "see:\n```sh\nrm -rf /\n```\nand ````four````";
        let out = export(
            &header("t"),
            &[message(Role::User, text, false)],
            ExportFormat::Markdown,
        );
        assert!(out.contains("\n`````text\nsee:\n```sh\nrm -rf /\n```\nand ````four````\n`````\n"));
        assert!(out.contains("## User\n"));
    }

    #[test]
    fn markdown_labels_are_one_printable_line_in_a_span() {
        let out = export(
            &header("evil\n# heading \u{1b}]0;x\u{7} `tick`"),
            &[],
            ExportFormat::Markdown,
        );
        let first = out.lines().next().unwrap();
        assert!(
            !first.contains('\u{1b}') && !first.contains('\u{7}'),
            "{first}"
        );
        assert!(first.starts_with("# ``"), "{first}");
        assert_eq!(out.lines().filter(|l| l.starts_with("# ")).count(), 1);
    }

    #[test]
    fn html_escapes_every_byte_of_session_text_and_has_no_script() {
        let out = export(
            &header("<script>alert(1)</script>"),
            &[
                message(
                    Role::User,
                    "<img src=x onerror=alert(1)> & \"q\" 'a'",
                    false,
                ),
                message(Role::Assistant, "fine\u{1b}[2J", false),
                message(Role::User, "summary", true),
            ],
            ExportFormat::Html,
        );
        assert!(!out.to_lowercase().contains("<script"), "{out}");
        assert!(!out.contains("<img"), "{out}");
        assert!(out.contains("&lt;img src=x onerror=alert(1)&gt; &amp; &quot;q&quot; &#39;a&#39;"));
        assert!(!out.contains('\u{1b}') && out.contains("fine\u{241b}[2J"));
        assert!(out.contains("<section class=\"checkpoint\">\n<h2>Compaction summary</h2>"));
        assert!(out.contains("default-src 'none'"));
    }

    #[test]
    fn json_holds_the_header_and_the_conversation() {
        let out = export(
            &header("t"),
            &[message(Role::Assistant, "a\nb", false)],
            ExportFormat::Json,
        );
        let value: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(value["sessionId"], "s-1");
        assert_eq!(value["agent"], "claude");
        assert_eq!(value["conversation"][0]["role"], "assistant");
        assert_eq!(value["conversation"][0]["text"], "a\nb");
        assert_eq!(value["conversation"][0]["checkpoint"], false);
    }
}
