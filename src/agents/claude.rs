//! Claude Code 2.1.332: its `UserPromptSubmit` hook in `settings.json` and
//! its MCP servers in `.claude.json` (`claude mcp add --scope user`) or a
//! project's `.mcp.json`, pre-approved in `permissions.allow`.
//!
//! The hook's input is snake_case (`session_id`, `transcript_path`, `cwd`,
//! `hook_event_name`, `prompt`, plus `prompt_id` and `permission_mode`);
//! added context goes under `hookSpecificOutput.additionalContext` with the
//! event's name, and is kept whole up to 10,000 characters (counted as
//! JavaScript counts them, in UTF-16 units). A blocked prompt is given back
//! to the user with the reason, so no draft is kept.

use serde_json::{json, Value};

use super::command_handler;
use super::{
    Hook, HookFiles, HookLayout, InstallEnv, Integration, Mcp, McpFormat, McpPlace, Scope,
};
use crate::agents::input::{HookInput, PROMPT_SUBMIT};
use crate::error::Result;
use session_ref_engine::budget::Measure;

/// Claude Code.
pub const INTEGRATION: Integration = Integration {
    name: "claude",
    product: "Claude Code",
    hook: Some(Hook {
        about: "Answer Claude Code's UserPromptSubmit hook (its JSON on stdin)",
        event: PROMPT_SUBMIT,
        cap: crate::agents::DEFAULT_HOST_CAP,
        measure: Measure::Utf16Units,
        input: HookInput::parse,
        context: prompt_submit_context,
        block: super::decision_block,
        keeps_draft: false,
        files: hook_files,
        handler: command_handler,
        layout: HookLayout::Shared,
    }),
    mcp: Some(Mcp {
        place: mcp_place,
        format: McpFormat::Json {
            key: "mcpServers",
            entry: mcp_entry,
            schema: None,
        },
        notes: mcp_notes,
        user_only: None,
    }),
    detect: super::Detect {
        binary: "claude",
        dirs: detect_dirs,
    },
};

/// The context answer of a `UserPromptSubmit` hook (Claude Code, Codex and
/// Qwen Code take the same).
pub fn prompt_submit_context(text: &str) -> Value {
    json!({
        "hookSpecificOutput": {
            "hookEventName": PROMPT_SUBMIT,
            "additionalContext": text,
        }
    })
}

fn hook_files(scope: Scope, env: &InstallEnv<'_>) -> Result<HookFiles> {
    let dir = match scope {
        Scope::User => env.dir_of("CLAUDE_CONFIG_DIR", ".claude")?,
        Scope::Project => env.cwd.join(".claude"),
    };
    Ok(HookFiles {
        hooks_file: dir.join("settings.json"),
        codex_config: None,
    })
}

fn mcp_place(scope: Scope, env: &InstallEnv<'_>) -> Result<McpPlace> {
    if scope == Scope::Project {
        return Ok(McpPlace {
            file: env.cwd.join(".mcp.json"),
            permissions: Some(env.cwd.join(".claude").join("settings.json")),
        });
    }
    let (file, settings) = match env.var_dir("CLAUDE_CONFIG_DIR") {
        Some(dir) => (dir.join(".claude.json"), dir.join("settings.json")),
        None => {
            let home = env.home()?;
            (
                home.join(".claude.json"),
                home.join(".claude").join("settings.json"),
            )
        }
    };
    Ok(McpPlace {
        file,
        permissions: Some(settings),
    })
}

fn mcp_entry(exe: &str, args: &[String]) -> Value {
    json!({"type": "stdio", "command": exe, "args": args, "env": {}})
}

fn mcp_notes(scope: Scope) -> &'static str {
    match scope {
        Scope::Project => "note: Claude Code asks once to approve a project's .mcp.json servers\n",
        Scope::User => "",
    }
}

/// Its user directory (`$CLAUDE_CONFIG_DIR`, else `~/.claude`: settings
/// and the `projects/` store).
fn detect_dirs(env: &InstallEnv<'_>) -> Vec<std::path::PathBuf> {
    env.dir_of("CLAUDE_CONFIG_DIR", ".claude")
        .into_iter()
        .collect()
}
