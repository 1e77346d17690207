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
//!
//! Qwen Code 0.24.4 has Claude Code's shapes. Gemini CLI 0.61.0 runs the
//! hook for `BeforeAgent` (same snake_case input, `hook_event_name`
//! `"BeforeAgent"`) and takes `hookSpecificOutput.additionalContext`
//! without an event name. GitHub Copilot CLI 1.0.102's
//! `userPromptSubmitted` sends `{sessionId, timestamp, cwd, prompt}` and
//! takes `{"additionalContext": …}`. All of them stop the prompt on
//! `{"decision":"block","reason":…}` (see `../shared/spec/AGENTS.md` and
//! FORMATS.md for how each was measured). Cursor's `beforeSubmitPrompt`
//! sends `{conversation_id, workspace_roots, prompt, …}` and takes only
//! `{"continue": true|false, "user_message": …}`: it can stop a prompt but
//! not add to it (`crate::agents::cursor`).

use serde_json::Value;

pub use crate::agents::copilot::PROMPT_SUBMITTED as COPILOT_PROMPT_SUBMITTED;
pub use crate::agents::gemini::BEFORE_AGENT;
pub use crate::agents::Agent;

use session_ref_core::json as js;

pub use crate::agents::input::{HookInput, PROMPT_SUBMIT};

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
    /// The hook's stdout for Claude Code, Codex and Qwen Code.
    pub fn to_stdout(&self) -> String {
        self.to_stdout_for(claude())
    }

    /// The hook's stdout for `agent`: one JSON object and a newline, or
    /// nothing.
    pub fn to_stdout_for(&self, agent: Agent) -> String {
        let value: Value = match self {
            Answer::Pass => return String::new(),
            Answer::Context(text) => (agent.hook().context)(text),
            Answer::Block { reason, notice } => (agent.hook().block)(reason, notice.as_deref()),
        };
        format!("{}\n", js::stringify_value(&value))
    }
}

fn claude() -> Agent {
    Agent::named("claude").expect("claude is in the table")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(name: &str) -> Agent {
        Agent::named(name).unwrap()
    }

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
        let context = Answer::Context("t".into());
        assert_eq!(
            context.to_stdout_for(agent("gemini")),
            "{\"hookSpecificOutput\":{\"additionalContext\":\"t\"}}\n"
        );
        assert_eq!(
            context.to_stdout_for(agent("copilot")),
            "{\"additionalContext\":\"t\"}\n"
        );
        assert_eq!(context.to_stdout_for(agent("qwen")), context.to_stdout());
    }

    #[test]
    fn gemini_and_copilot_inputs_parse() {
        let gemini = r#"{"session_id":"g1","transcript_path":"/t.json","cwd":"/w","hook_event_name":"BeforeAgent","timestamp":"2026-12-01T00:00:00Z","prompt":"hi"}"#;
        let input = agent("gemini").parse_hook_input(gemini).unwrap();
        assert_eq!(
            (input.hook_event_name.as_str(), input.prompt.as_str()),
            (BEFORE_AGENT, "hi")
        );
        let copilot = r#"{"sessionId":"c1","timestamp":1764547200000,"cwd":"/w","prompt":"hi"}"#;
        let input = agent("copilot").parse_hook_input(copilot).unwrap();
        assert_eq!(
            (input.session_id.as_str(), input.hook_event_name.as_str()),
            ("c1", COPILOT_PROMPT_SUBMITTED)
        );
        assert!(agent("copilot").parse_hook_input(gemini).is_err());
    }
}
