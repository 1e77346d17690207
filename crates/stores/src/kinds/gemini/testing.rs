//! Helpers the Gemini CLI tests share: chat lines as JSON values and a
//! `.jsonl` chat made of them.

use serde_json::Value;

/// A `.jsonl` chat from JSON values, one per line.
pub(super) fn jsonl(lines: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for line in lines {
        out.extend_from_slice(line.to_string().as_bytes());
        out.push(b'\n');
    }
    out
}

/// A metadata line of session `s-1` started (and updated) at `start`.
pub(super) fn meta(start: &str) -> Value {
    serde_json::json!({"sessionId": "s-1", "projectHash": "ab", "startTime": start,
        "lastUpdated": start, "kind": "main"})
}

/// A `user` message record typed as `text`.
pub(super) fn user(id: &str, text: &str) -> Value {
    serde_json::json!({"id": id, "timestamp": "2026-01-01T00:00:01Z", "type": "user",
        "content": [{"text": text}]})
}

/// A `gemini` reply record saying `text`.
pub(super) fn reply(id: &str, text: &str) -> Value {
    serde_json::json!({"id": id, "timestamp": "2026-01-01T00:00:02Z", "type": "gemini",
        "content": text, "thoughts": [], "model": "gemini-3.8-flash"})
}

/// The injected `<session_context>` message.
pub(super) fn context() -> Value {
    user(
        "ctx",
        "<session_context>\nThis is the Gemini CLI.\n</session_context>",
    )
}
