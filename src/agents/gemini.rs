//! Gemini CLI 0.61.0: its `BeforeAgent` hook and its MCP servers, both in
//! `settings.json` (`$GEMINI_CLI_HOME/.gemini/`, `~/.gemini/` or a
//! project's `.gemini/`).
//!
//! The hook's input has Claude Code's snake_case fields (with
//! `hook_event_name` `"BeforeAgent"` and a `timestamp`); added context goes
//! under `hookSpecificOutput.additionalContext` without an event name, and
//! 200,000 characters passed whole. The handler is named (`/hooks` lists
//! it by name). MCP entries are trusted (`gemini mcp add --trust`): an
//! untrusted server's tools are not offered at all non-interactively.

use serde_json::{json, Value};

use super::command_handler;
use super::{
    Hook, HookFiles, HookLayout, InstallEnv, Integration, Mcp, McpFormat, McpPlace, Scope,
};
use crate::agents::input::HookInput;
use crate::error::Result;
use session_ref_engine::budget::Measure;

/// Gemini CLI's event before the model is asked about a prompt.
pub const BEFORE_AGENT: &str = "BeforeAgent";

/// Gemini CLI.
pub const INTEGRATION: Integration = Integration {
    name: "gemini",
    product: "Gemini CLI",
    hook: Some(Hook {
        about: "Answer Gemini CLI's BeforeAgent hook (its JSON on stdin)",
        event: BEFORE_AGENT,
        cap: crate::agents::UNCAPPED_HOST_CAP,
        measure: Measure::Utf8Bytes,
        input: HookInput::parse,
        context,
        block: super::decision_block,
        keeps_draft: true,
        files: hook_files,
        handler,
        layout: HookLayout::Shared,
    }),
    mcp: Some(Mcp {
        place: mcp_place,
        format: McpFormat::Json {
            key: "mcpServers",
            entry: trusted_entry,
            schema: None,
        },
        notes: trusted_notes,
        user_only: None,
    }),
    detect: super::Detect {
        binary: "gemini",
        dirs: detect_dirs,
    },
};

fn context(text: &str) -> Value {
    json!({"hookSpecificOutput": {"additionalContext": text}})
}

fn handler(command: &str, budget: Option<usize>) -> Value {
    let mut handler = command_handler(command, budget);
    handler["name"] = "session-ref".into();
    handler
}

fn hook_files(scope: Scope, env: &InstallEnv<'_>) -> Result<HookFiles> {
    let dir = match scope {
        Scope::User => match env.var_dir("GEMINI_CLI_HOME") {
            Some(dir) => dir.join(".gemini"),
            None => env.dir_of("GEMINI_CLI_HOME", ".gemini")?,
        },
        Scope::Project => env.cwd.join(".gemini"),
    };
    Ok(HookFiles {
        hooks_file: dir.join("settings.json"),
        codex_config: None,
    })
}

fn mcp_place(scope: Scope, env: &InstallEnv<'_>) -> Result<McpPlace> {
    let dir = match scope {
        Scope::Project => env.cwd.join(".gemini"),
        Scope::User => match env.var_dir("GEMINI_CLI_HOME") {
            Some(dir) => dir.join(".gemini"),
            None => env.home()?.join(".gemini"),
        },
    };
    Ok(McpPlace {
        file: dir.join("settings.json"),
        permissions: None,
    })
}

/// The entry `mcp add --trust` writes (Gemini CLI, Qwen Code).
pub fn trusted_entry(exe: &str, args: &[String]) -> Value {
    json!({"command": exe, "args": args, "trust": true})
}

/// The note after a trusted entry is written (Gemini CLI, Qwen Code).
pub fn trusted_notes(_scope: Scope) -> &'static str {
    "note: trusted (\"trust\": true): its read-only tools run without asking\n"
}

/// Its user directory (`~/.gemini`, under `$GEMINI_CLI_HOME` when set:
/// settings and the `tmp/` store).
fn detect_dirs(env: &InstallEnv<'_>) -> Vec<std::path::PathBuf> {
    hook_files(Scope::User, env)
        .ok()
        .and_then(|files| files.hooks_file.parent().map(std::path::Path::to_path_buf))
        .into_iter()
        .collect()
}
