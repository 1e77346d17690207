//! The JSON a host agent hands a `UserPromptSubmit` hook on stdin, and the
//! JSON it accepts back on stdout.
//!
//! Measured with Claude Code 2.1.328 and Codex 0.169.0 against a local mock
//! model (see README, "Mentions inside Claude Code and Codex"). Both send
//! `session_id`, `transcript_path`, `cwd`, `hook_event_name` and `prompt`
//! (Claude adds `prompt_id` and `permission_mode`; Codex adds `turn_id`,
//! `model`, `permission_mode`, and sends `transcript_path` as `null` when a
//! session has none); both accept the same answers: added context under
//! `hookSpecificOutput.additionalContext`, and `{"decision":"block",
//! "reason":…}` to stop the prompt. Codex also shows a `systemMessage`.

use serde::Deserialize;
use serde_json::{json, Value};

pub use crate::config::Agent;
use crate::error::{Error, Result};
use session_ref_core::json as js;

/// The event a prompt-submit hook is registered for, in both agents.
pub const PROMPT_SUBMIT: &str = "UserPromptSubmit";

/// The fields of a hook's input that session-ref uses; others are ignored.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct HookInput {
    /// The session the prompt is typed into.
    pub session_id: String,
    /// The session's working directory.
    pub cwd: String,
    /// The prompt as typed.
    pub prompt: String,
    /// The event (`UserPromptSubmit`).
    pub hook_event_name: String,
    /// The session's transcript, when the host has one.
    #[serde(default)]
    pub transcript_path: Option<String>,
}

impl HookInput {
    /// Parse the hook's stdin.
    pub fn parse(raw: &str) -> Result<HookInput> {
        serde_json::from_str(raw).map_err(|e| {
            Error::invalid_reference(format!("the hook input is not the expected JSON: {e}"))
        })
    }
}

/// What the hook answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Nothing to add: print nothing.
    Pass,
    /// Add this text to the model's context.
    Context(String),
    /// Stop the prompt; `reason` says why. `notice` is an extra line a host
    /// that shows it (Codex) displays, e.g. where the prompt was kept.
    Block {
        /// The error line, `session-ref: CODE: message`.
        reason: String,
        /// A further line for the user, when there is one.
        notice: Option<String>,
    },
}

impl Answer {
    /// The hook's stdout: one JSON object and a newline, or nothing.
    pub fn to_stdout(&self) -> String {
        let value: Value = match self {
            Answer::Pass => return String::new(),
            Answer::Context(text) => json!({
                "hookSpecificOutput": {
                    "hookEventName": PROMPT_SUBMIT,
                    "additionalContext": text,
                }
            }),
            Answer::Block { reason, notice } => {
                let mut value = json!({"decision": "block", "reason": reason});
                if let Some(notice) = notice {
                    value["systemMessage"] = Value::String(notice.clone());
                }
                value
            }
        };
        format!("{}\n", js::stringify_value(&value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_input_shapes_parse_and_unknown_fields_are_ignored() {
        let claude = r#"{"session_id":"c1","transcript_path":"/t.jsonl","cwd":"/w","prompt_id":"p","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"hi"}"#;
        let codex = r#"{"session_id":"x1","turn_id":"t","transcript_path":null,"cwd":"/w","hook_event_name":"UserPromptSubmit","model":"gpt-5.5","permission_mode":"bypassPermissions","prompt":"hi"}"#;
        for raw in [claude, codex] {
            let input = HookInput::parse(raw).unwrap();
            assert_eq!((input.cwd.as_str(), input.prompt.as_str()), ("/w", "hi"));
        }
        assert_eq!(HookInput::parse(codex).unwrap().transcript_path, None);
        assert!(HookInput::parse(r#"{"prompt":"hi"}"#).is_err());
        assert!(HookInput::parse("not json").is_err());
    }

    #[test]
    fn answers_have_the_hosts_shapes() {
        assert_eq!(Answer::Pass.to_stdout(), "");
        assert_eq!(
            Answer::Context("a\"<b".into()).to_stdout(),
            "{\"hookSpecificOutput\":{\"hookEventName\":\"UserPromptSubmit\",\"additionalContext\":\"a\\\"<b\"}}\n"
        );
        let block = Answer::Block {
            reason: "r".into(),
            notice: Some("n".into()),
        };
        assert_eq!(
            block.to_stdout(),
            "{\"decision\":\"block\",\"reason\":\"r\",\"systemMessage\":\"n\"}\n"
        );
    }
}
