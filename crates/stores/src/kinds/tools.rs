//! Tool calls and results read out of a log line's JSON, for the folds
//! that report them to a sink asking for them (`export --tools`,
//! [`crate::model::SurfaceSink::wants_tools`]): the one reading of the
//! block shapes the agents share. Content blocks `tool_use` (Claude Code
//! 2.1.332: `{id, name, input}`) and `tool_result` (`{tool_use_id,
//! content}`, `content` a string or text blocks), Hydra's `tool-call`
//! (SPEC §2: `{id, name, input}`) and `tool/result` (`{toolCallId,
//! content}`), and Codex's response items (0.171.0: `function_call
//! {call_id, name, arguments}`, `custom_tool_call {call_id, name,
//! input}`, `local_shell_call {call_id, action}`, and their `…_output
//! {call_id, output}`, `output` a string, a text item or a list of them).
//!
//! Only called for such a sink, so no other read parses tool content.
//! Each text is cut to [`crate::model::TOOL_TEXT_CAP`] bytes by
//! [`ToolEvent::new`].

use serde_json::Value;

use crate::model::{ToolEvent, ToolPart};

/// The tool calls and results among the content blocks `content` (a JSON
/// array; anything else holds none).
pub fn in_blocks(content: &str) -> Vec<ToolEvent> {
    serde_json::from_str::<Value>(content)
        .map(|content| in_content(&content))
        .unwrap_or_default()
}

/// [`in_blocks`] of content already parsed.
pub fn in_content(content: &Value) -> Vec<ToolEvent> {
    match content {
        Value::Array(blocks) => blocks.iter().filter_map(of_block).collect(),
        _ => Vec::new(),
    }
}

/// One content block as a tool event, if it is one.
fn of_block(block: &Value) -> Option<ToolEvent> {
    let text = |key: &str| block.get(key).and_then(Value::as_str).map(str::to_owned);
    match block.get("type")?.as_str()? {
        "tool_use" | "tool-call" => Some(ToolEvent::new(
            ToolPart::Call,
            text("name"),
            text("id"),
            &shown(block.get("input")),
        )),
        "tool_result" => Some(ToolEvent::new(
            ToolPart::Result,
            None,
            text("tool_use_id"),
            &shown(block.get("content")),
        )),
        _ => None,
    }
}

/// A Hydra `tool/result`'s data (`{toolCallId, content}`).
pub fn native_result(data: &Value) -> ToolEvent {
    ToolEvent::new(
        ToolPart::Result,
        None,
        data.get("toolCallId")
            .and_then(Value::as_str)
            .map(str::to_owned),
        &shown(data.get("content")),
    )
}

/// A Codex rollout line (`{"type":"response_item","payload":…}`) as a
/// tool event, if its item is a tool call or its output.
pub fn codex_line(line: &[u8]) -> Option<ToolEvent> {
    let line: Value = serde_json::from_slice(line).ok()?;
    if line.get("type")?.as_str()? != "response_item" {
        return None;
    }
    codex_item(line.get("payload")?)
}

/// A Codex response item as a tool event, if it is a tool call or its
/// output.
fn codex_item(item: &Value) -> Option<ToolEvent> {
    let text = |key: &str| item.get(key).and_then(Value::as_str).map(str::to_owned);
    let (part, body) = match item.get("type")?.as_str()? {
        "function_call" => (ToolPart::Call, item.get("arguments")),
        "custom_tool_call" => (ToolPart::Call, item.get("input")),
        "local_shell_call" => (ToolPart::Call, item.get("action")),
        "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" => {
            (ToolPart::Result, item.get("output"))
        }
        _ => return None,
    };
    let name = match part {
        ToolPart::Call => text("name").or_else(|| Some("local_shell".to_owned())),
        ToolPart::Result => None,
    };
    Some(ToolEvent::new(part, name, text("call_id"), &shown(body)))
}

/// A tool's input or output for a person: a string as it is, text blocks
/// (`text`, `input_text`, `output_text`) their texts joined by lines, a
/// text item its text, anything else its compact JSON; nothing for none.
fn shown(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(items)) => {
            let texts: Option<Vec<&str>> = items.iter().map(block_text).collect();
            match texts {
                Some(texts) => texts.join("\n"),
                None => compact(value),
            }
        }
        Some(item) => block_text(item)
            .map(str::to_owned)
            .unwrap_or_else(|| compact(value)),
    }
}

/// The text of a text block (`{"type":"text"|"input_text"|"output_text",
/// "text":S}`).
fn block_text(block: &Value) -> Option<&str> {
    let kind = block.get("type")?.as_str()?;
    matches!(kind, "text" | "input_text" | "output_text")
        .then(|| block.get("text")?.as_str())
        .flatten()
}

fn compact(value: Option<&Value>) -> String {
    value.map(Value::to_string).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_blocks_give_calls_and_results() {
        let tools = in_blocks(
            r#"[{"type":"text","text":"x"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}},
               {"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]"#,
        );
        assert_eq!(tools.len(), 2);
        assert_eq!(tools[0].part, ToolPart::Call);
        assert_eq!(tools[0].name.as_deref(), Some("Bash"));
        assert_eq!(tools[0].text, r#"{"command":"ls"}"#);
        assert_eq!(tools[1].id.as_deref(), Some("t1"));
        assert_eq!(tools[1].text, "a\nb");
        assert!(in_blocks("\"just text\"").is_empty());
    }

    #[test]
    fn codex_items_in_their_shapes() {
        let item = |payload: &str| {
            codex_line(
                format!(r#"{{"timestamp":"t","type":"response_item","payload":{payload}}}"#)
                    .as_bytes(),
            )
        };
        let call = item(
            r#"{"type":"function_call","id":"fn-1","call_id":"call-2","name":"shell","arguments":"{\"command\":[\"ls\"]}"}"#,
        )
        .unwrap();
        assert_eq!(call.name.as_deref(), Some("shell"));
        assert_eq!(call.text, r#"{"command":["ls"]}"#);
        let out = item(
            r#"{"type":"function_call_output","call_id":"call-2","output":{"type":"input_text","text":"a.txt\n","detail":null}}"#,
        )
        .unwrap();
        assert_eq!((out.part, out.text.as_str()), (ToolPart::Result, "a.txt\n"));
        let out = item(
            r#"{"type":"custom_tool_call_output","call_id":"c","output":[{"type":"input_text","text":"b.txt"}]}"#,
        )
        .unwrap();
        assert_eq!(out.text, "b.txt");
        assert!(item(r#"{"type":"message","role":"user"}"#).is_none());
        assert!(
            codex_line(br#"{"type":"event_msg","payload":{"type":"function_call"}}"#).is_none()
        );
        let odd = item(r#"{"type":"function_call_output","output":{"exit":1}}"#).unwrap();
        assert_eq!(odd.text, r#"{"exit":1}"#);
    }
}
