//! What every agent's prompt-submit hook is handed, once its own shape is
//! read (`Agent::parse_hook_input`): the fields session-ref uses. The
//! hook's answers are `hook::protocol`'s; the input lives here, beside the
//! agents whose shapes parse into it, so that no agent file imports the
//! hook.

use serde::Deserialize;

use crate::error::{Error, Result};

/// The prompt-submit event of Claude Code, Codex and Qwen Code.
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
        parse_json(raw)
    }
}

/// A hook's stdin read into an agent's own input shape; anything else is
/// refused as not the expected JSON.
pub fn parse_json<T: serde::de::DeserializeOwned>(raw: &str) -> Result<T> {
    serde_json::from_str(raw).map_err(|e| {
        Error::invalid_reference(format!("the hook input is not the expected JSON: {e}"))
    })
}
