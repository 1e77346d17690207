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
//! {call_id, output}`, `output` a string, a text item or a list of them),
//! opencode's and Kilo Code's `tool` parts (1.x `{callID, tool, state}`,
//! 2.x `{id, name, state}` in a message's `content`, both with `state
//! {status, input, output | content | error}`) and Amp's blocks
//! (`tool_use {id, name, input}`, `tool_result {toolUseID, run:{status,
//! result | error}}`), Goose's content items (`toolRequest {id,
//! toolCall:{status, value:{name, arguments} | error}}`, `toolResponse
//! {id, toolResult:{status, value | error}}`) and Crush's parts
//! (`tool_call {data:{id, name, input}}`, `tool_result {data:{tool_call_id,
//! content}}`), and the chat-completions shape Kimi CLI keeps (an
//! assistant message's `tool_calls [{id, function:{name, arguments}}]`, a
//! `tool` message's `{tool_call_id, content}`) and Continue CLI's history
//! entries (`message.toolCalls`, results in `toolCallStates[{toolCallId,
//! output:[{content}]}]`), and Mistral Vibe's `effect` entries
//! (`{id, detail:{kind:"tool", toolName, input}, state:{status, output |
//! error}}`), and GitHub Copilot CLI's events (`assistant.message`'s
//! `toolRequests [{toolCallId, name, arguments}]`, `tool.execution_complete
//! {toolCallId, result:{content} | error}`), and the Gemini API's parts
//! Qwen Code records (`functionCall {id, name, args}`, `functionResponse
//! {id, name, response:{output | error | …}}`).
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

/// An opencode 1.x (or Kilo Code) part, as its tool call and, once the
/// tool finished (`state.status` `completed` or `error`), its result:
/// `{type:"tool", callID, tool, state:{status, input, output | error}}`
/// (opencode 1.x `MessageV2.ToolPart`). Nothing for any other part.
pub fn opencode_part(part: &str) -> Vec<ToolEvent> {
    let Ok(part) = serde_json::from_str::<Value>(part) else {
        return Vec::new();
    };
    opencode_tool(&part, "callID", "tool")
}

/// The tool calls and results among an opencode 2.x message's `content`
/// (`{type:"tool", id, name, state:{status, input, content | error}}`).
pub fn opencode_v2_message(data: &str) -> Vec<ToolEvent> {
    let Ok(data) = serde_json::from_str::<Value>(data) else {
        return Vec::new();
    };
    let parts = data.get("content").and_then(Value::as_array);
    parts
        .into_iter()
        .flatten()
        .flat_map(|part| opencode_tool(part, "id", "name"))
        .collect()
}

/// An opencode tool part whose call id and tool name are under `id_key`
/// and `name_key`.
fn opencode_tool(part: &Value, id_key: &str, name_key: &str) -> Vec<ToolEvent> {
    if part.get("type").and_then(Value::as_str) != Some("tool") {
        return Vec::new();
    }
    let text = |key: &str| part.get(key).and_then(Value::as_str).map(str::to_owned);
    let state = part.get("state");
    let at = |key: &str| state.and_then(|s| s.get(key));
    let mut events = vec![ToolEvent::new(
        ToolPart::Call,
        text(name_key),
        text(id_key),
        &shown(at("input")),
    )];
    let output = match at("status").and_then(Value::as_str) {
        Some("completed") => at("output").or_else(|| at("content")),
        Some("error") => at("error"),
        _ => None,
    };
    if let Some(output) = output {
        events.push(ToolEvent::new(
            ToolPart::Result,
            None,
            text(id_key),
            &shown(Some(output)),
        ));
    }
    events
}

/// Amp's content blocks as tool events: `tool_use {id, name, input}` and
/// `tool_result {toolUseID, run:{status, result | error}}`.
pub fn amp_blocks(content: Option<&Value>) -> Vec<ToolEvent> {
    let blocks = content.and_then(Value::as_array);
    blocks
        .into_iter()
        .flatten()
        .filter_map(|block| {
            let text = |key: &str| block.get(key).and_then(Value::as_str).map(str::to_owned);
            match block.get("type")?.as_str()? {
                "tool_use" => Some(ToolEvent::new(
                    ToolPart::Call,
                    text("name"),
                    text("id"),
                    &shown(block.get("input")),
                )),
                "tool_result" => {
                    let run = block.get("run");
                    let at = |key: &str| run.and_then(|r| r.get(key));
                    Some(ToolEvent::new(
                        ToolPart::Result,
                        None,
                        text("toolUseID"),
                        &shown(at("result").or_else(|| at("error"))),
                    ))
                }
                _ => None,
            }
        })
        .collect()
}

/// Goose's content items as tool events (`toolRequest`, `toolResponse`;
/// a failed call or result shows its `error`).
pub fn goose_items(content: Option<&Value>) -> Vec<ToolEvent> {
    let items = content.and_then(Value::as_array);
    items
        .into_iter()
        .flatten()
        .filter_map(|item| {
            let id = item.get("id").and_then(Value::as_str).map(str::to_owned);
            let (part, body) = match item.get("type")?.as_str()? {
                "toolRequest" => (ToolPart::Call, item.get("toolCall")),
                "toolResponse" => (ToolPart::Result, item.get("toolResult")),
                _ => return None,
            };
            let value = body.and_then(|b| b.get("value"));
            let name = match part {
                ToolPart::Call => value
                    .and_then(|v| v.get("name"))
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                ToolPart::Result => None,
            };
            let shown_part = match (part, value) {
                (ToolPart::Call, Some(v)) => v.get("arguments"),
                (ToolPart::Result, Some(v)) => Some(v),
                (_, None) => body.and_then(|b| b.get("error")),
            };
            Some(ToolEvent::new(part, name, id, &shown(shown_part)))
        })
        .collect()
}

/// Crush's `parts` JSON as tool events (`tool_call`, `tool_result`).
pub fn crush_parts(parts: &str) -> Vec<ToolEvent> {
    let Ok(Value::Array(parts)) = serde_json::from_str::<Value>(parts) else {
        return Vec::new();
    };
    parts
        .iter()
        .filter_map(|part| {
            let data = part.get("data");
            let text = |key: &str| {
                data.and_then(|d| d.get(key))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            };
            match part.get("type")?.as_str()? {
                "tool_call" => Some(ToolEvent::new(
                    ToolPart::Call,
                    text("name"),
                    text("id"),
                    &shown(data.and_then(|d| d.get("input"))),
                )),
                "tool_result" => Some(ToolEvent::new(
                    ToolPart::Result,
                    None,
                    text("tool_call_id"),
                    &shown(data.and_then(|d| d.get("content"))),
                )),
                _ => None,
            }
        })
        .collect()
}

/// A chat-completions message (`{role, content, tool_calls?,
/// tool_call_id?}`) as tool events: each of an assistant's `tool_calls`,
/// or a `tool` message's result.
pub fn chat_message(message: &Value) -> Vec<ToolEvent> {
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
    match message.get("role").and_then(Value::as_str) {
        Some("tool") => vec![ToolEvent::new(
            ToolPart::Result,
            None,
            text(message, "tool_call_id"),
            &shown(message.get("content")),
        )],
        Some("assistant") => chat_calls(message.get("tool_calls")).collect(),
        _ => Vec::new(),
    }
}

/// Chat-completions tool calls (`[{id, function:{name, arguments}}]`, as
/// Kimi CLI and Continue CLI keep them) as call events.
fn chat_calls(calls: Option<&Value>) -> impl Iterator<Item = ToolEvent> + '_ {
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
    calls
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(move |call| {
            let function = call.get("function");
            ToolEvent::new(
                ToolPart::Call,
                function.and_then(|f| text(f, "name")),
                text(call, "id"),
                &shown(function.and_then(|f| f.get("arguments"))),
            )
        })
}

/// A Continue CLI history entry as tool events: its message's
/// `toolCalls` (the chat-completions shape), then each `toolCallStates`
/// entry's `output` (its items' `content` joined by lines).
pub fn continue_entry(entry: &Value) -> Vec<ToolEvent> {
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
    let calls = chat_calls(entry.pointer("/message/toolCalls"));
    let states = entry.get("toolCallStates").and_then(Value::as_array);
    let results = states.into_iter().flatten().filter_map(|state| {
        let output = state.get("output")?.as_array()?;
        let texts: Vec<String> = output.iter().map(|o| shown(o.get("content"))).collect();
        Some(ToolEvent::new(
            ToolPart::Result,
            None,
            text(state, "toolCallId"),
            &texts.join("\n"),
        ))
    });
    calls.chain(results).collect()
}

/// A Mistral Vibe history entry, when it is a tool `effect`: its call,
/// and its result once it has an `output` (its `content` when it has one)
/// or an `error`.
pub fn vibe_effect(entry: &Value) -> Vec<ToolEvent> {
    let is_tool = entry.get("type").and_then(Value::as_str) == Some("effect")
        && entry.pointer("/detail/kind").and_then(Value::as_str) == Some("tool");
    if !is_tool {
        return Vec::new();
    }
    let id = entry.get("id").and_then(Value::as_str).map(str::to_owned);
    let name = entry.pointer("/detail/toolName").and_then(Value::as_str);
    let mut events = vec![ToolEvent::new(
        ToolPart::Call,
        name.map(str::to_owned),
        id.clone(),
        &shown(entry.pointer("/detail/input")),
    )];
    let output = entry.pointer("/state/output");
    let output = output
        .map(|o| o.get("content").unwrap_or(o))
        .or_else(|| entry.pointer("/state/error"));
    if let Some(output) = output {
        events.push(ToolEvent::new(
            ToolPart::Result,
            None,
            id,
            &shown(Some(output)),
        ));
    }
    events
}

/// A GitHub Copilot CLI event of type `kind` with `data`, as tool events:
/// the `toolRequests` of an `assistant.message`, the result of a
/// `tool.execution_complete` (its `result.content`, else its `error`).
pub fn copilot_event(kind: &str, data: &Value) -> Vec<ToolEvent> {
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
    match kind {
        "assistant.message" => {
            let requests = data.get("toolRequests").and_then(Value::as_array);
            requests
                .into_iter()
                .flatten()
                .map(|r| {
                    ToolEvent::new(
                        ToolPart::Call,
                        text(r, "name"),
                        text(r, "toolCallId"),
                        &shown(r.get("arguments")),
                    )
                })
                .collect()
        }
        "tool.execution_complete" => {
            let output = data
                .pointer("/result/content")
                .or_else(|| data.get("error"));
            vec![ToolEvent::new(
                ToolPart::Result,
                None,
                text(data, "toolCallId"),
                &shown(output),
            )]
        }
        _ => Vec::new(),
    }
}

/// Gemini API parts (a record's `message.parts`) as tool events:
/// `functionCall` and `functionResponse` (its `response.output`, else
/// `response.error`, else the whole response).
pub fn gemini_parts(parts: Option<&Value>) -> Vec<ToolEvent> {
    let parts = parts.and_then(Value::as_array);
    parts
        .into_iter()
        .flatten()
        .filter_map(|part| {
            let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
            if let Some(call) = part.get("functionCall") {
                return Some(ToolEvent::new(
                    ToolPart::Call,
                    text(call, "name"),
                    text(call, "id"),
                    &shown(call.get("args")),
                ));
            }
            let response = part.get("functionResponse")?;
            let body = response.get("response");
            let output = body
                .and_then(|b| b.get("output").or_else(|| b.get("error")))
                .or(body);
            Some(ToolEvent::new(
                ToolPart::Result,
                text(response, "name"),
                text(response, "id"),
                &shown(output),
            ))
        })
        .collect()
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
    fn opencode_parts_and_v2_content_give_calls_and_finished_results() {
        let done = opencode_part(
            r#"{"type":"tool","callID":"call_1","tool":"bash","state":{"status":"completed","input":{"command":"ls"},"output":"a.txt\n","title":"ls"}}"#,
        );
        assert_eq!(done.len(), 2);
        assert_eq!(
            (done[0].name.as_deref(), done[0].id.as_deref()),
            (Some("bash"), Some("call_1"))
        );
        assert_eq!(done[0].text, r#"{"command":"ls"}"#);
        assert_eq!(
            (done[1].part, done[1].text.as_str()),
            (ToolPart::Result, "a.txt\n")
        );
        // A run killed mid-tool leaves it running: a call, no result.
        let running = opencode_part(
            r#"{"type":"tool","callID":"c","tool":"read","state":{"status":"running","input":{}}}"#,
        );
        assert_eq!(running.len(), 1);
        let failed = opencode_part(
            r#"{"type":"tool","callID":"c","tool":"edit","state":{"status":"error","input":{},"error":"no such file"}}"#,
        );
        assert_eq!(failed[1].text, "no such file");
        assert!(opencode_part(r#"{"type":"text","text":"hi"}"#).is_empty());
        let v2 = opencode_v2_message(
            r#"{"content":[{"type":"text","text":"x"},{"type":"tool","id":"call_1","name":"bash","state":{"status":"completed","input":{"command":"ls"},"content":[{"type":"text","text":"OUTPUT"}],"structured":{}}}]}"#,
        );
        assert_eq!(v2.len(), 2);
        assert_eq!(
            (v2[0].name.as_deref(), v2[1].text.as_str()),
            (Some("bash"), "OUTPUT")
        );
    }

    #[test]
    fn amp_blocks_give_calls_and_results() {
        let content: Value = serde_json::from_str(
            r#"[{"type":"thinking","thinking":"t"},{"type":"tool_use","id":"toolu_1","name":"Read","input":{"path":"a"}},
               {"type":"tool_result","toolUseID":"toolu_1","run":{"status":"done","result":"TOOL-OUTPUT"}}]"#,
        )
        .unwrap();
        let tools = amp_blocks(Some(&content));
        assert_eq!(tools.len(), 2);
        assert_eq!(tools[0].name.as_deref(), Some("Read"));
        assert_eq!(tools[1].id.as_deref(), Some("toolu_1"));
        assert_eq!(tools[1].text, "TOOL-OUTPUT");
        assert!(amp_blocks(None).is_empty());
    }

    #[test]
    fn goose_items_and_crush_parts_give_calls_and_results() {
        let content: Value = serde_json::from_str(
            r#"[{"type":"text","text":"Looking."},
               {"type":"toolRequest","id":"t1","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"ls"}}}},
               {"type":"toolResponse","id":"t1","toolResult":{"status":"success","value":[{"type":"text","text":"a.txt"}]}},
               {"type":"toolResponse","id":"t2","toolResult":{"status":"error","error":"denied"}}]"#,
        )
        .unwrap();
        let tools = goose_items(Some(&content));
        assert_eq!(tools.len(), 3);
        assert_eq!(tools[0].name.as_deref(), Some("developer__shell"));
        assert_eq!(tools[0].text, r#"{"command":"ls"}"#);
        assert_eq!(
            (tools[1].part, tools[1].text.as_str()),
            (ToolPart::Result, "a.txt")
        );
        assert_eq!(tools[2].text, "denied");
        let crush = crush_parts(
            r#"[{"type":"tool_call","data":{"id":"call_1","name":"bash","input":"{\"command\":\"ls\"}","finished":true}},
               {"type":"tool_result","data":{"tool_call_id":"call_1","name":"bash","content":"a.txt","is_error":false}}]"#,
        );
        assert_eq!(crush.len(), 2);
        assert_eq!(
            (crush[0].name.as_deref(), crush[0].text.as_str()),
            (Some("bash"), r#"{"command":"ls"}"#)
        );
        assert_eq!(
            (crush[1].id.as_deref(), crush[1].text.as_str()),
            (Some("call_1"), "a.txt")
        );
        assert!(crush_parts("not json").is_empty());
    }

    #[test]
    fn chat_messages_give_calls_and_results() {
        let call: Value = serde_json::from_str(
            r#"{"role":"assistant","content":[],"tool_calls":[{"type":"function","id":"Shell:0","function":{"name":"Shell","arguments":"{\"command\": \"ls\"}"}}]}"#,
        )
        .unwrap();
        let tools = chat_message(&call);
        assert_eq!(tools.len(), 1);
        assert_eq!(
            (tools[0].name.as_deref(), tools[0].id.as_deref()),
            (Some("Shell"), Some("Shell:0"))
        );
        assert_eq!(tools[0].text, r#"{"command": "ls"}"#);
        let result: Value = serde_json::from_str(
            r#"{"role":"tool","content":[{"type":"text","text":"a.txt"}],"tool_call_id":"Shell:0"}"#,
        )
        .unwrap();
        let tools = chat_message(&result);
        assert_eq!(
            (tools[0].part, tools[0].text.as_str()),
            (ToolPart::Result, "a.txt")
        );
        assert!(chat_message(&serde_json::json!({"role": "user", "content": "hi"})).is_empty());
    }

    #[test]
    fn gemini_parts_give_calls_and_results() {
        let parts: Value = serde_json::from_str(
            r#"[{"text":"x"},{"functionCall":{"id":"call_1","name":"read_file","args":{"file_path":"notes.md"}}},
               {"functionResponse":{"id":"call_1","name":"read_file","response":{"output":"TEXT"}}},
               {"functionResponse":{"id":"call_2","name":"read_file","response":{"error":"not absolute"}}}]"#,
        )
        .unwrap();
        let tools = gemini_parts(Some(&parts));
        assert_eq!(tools.len(), 3);
        assert_eq!(tools[0].text, r#"{"file_path":"notes.md"}"#);
        assert_eq!(
            (tools[1].part, tools[1].text.as_str()),
            (ToolPart::Result, "TEXT")
        );
        assert_eq!(tools[2].text, "not absolute");
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
