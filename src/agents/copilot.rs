//! GitHub Copilot CLI 1.0.102: its `userPromptSubmitted` hook in a file of
//! session-ref's own in its `hooks/` folder (`$COPILOT_HOME/hooks/`, or a
//! project's `.github/hooks/`), and its MCP servers in `mcp-config.json`
//! (or a project's `.mcp.json`).
//!
//! The hook's input is camelCase without an event name (`{sessionId,
//! timestamp, cwd, prompt}`); added context is `{"additionalContext": T}`
//! at the top level, with no documented limit. The handler runs `bash`
//! with its own timeout field. MCP entries enable every tool (`tools:
//! ["*"]`).

use serde::Deserialize;
use serde_json::{json, Value};

use super::{
    Hook, HookFiles, HookLayout, InstallEnv, Integration, Mcp, McpFormat, McpPlace, Scope,
};
use crate::agents::input::HookInput;
use crate::error::Result;
use session_ref_engine::budget::Measure;

/// Copilot CLI's prompt-submit event.
pub const PROMPT_SUBMITTED: &str = "userPromptSubmitted";

/// The file of its own install writes into Copilot CLI's `hooks/` folder.
pub const HOOK_FILE: &str = "session-ref.json";

/// GitHub Copilot CLI.
pub const INTEGRATION: Integration = Integration {
    name: "copilot",
    product: "GitHub Copilot CLI",
    hook: Some(Hook {
        about: "Answer Copilot CLI's userPromptSubmitted hook (its JSON on stdin)",
        event: PROMPT_SUBMITTED,
        cap: crate::agents::UNCAPPED_HOST_CAP,
        measure: Measure::Utf8Bytes,
        input,
        context,
        block: super::decision_block,
        keeps_draft: true,
        files: hook_files,
        handler,
        layout: HookLayout::Own,
    }),
    mcp: Some(Mcp {
        place: mcp_place,
        format: McpFormat::Json {
            key: "mcpServers",
            entry: mcp_entry,
            schema: None,
        },
        notes: |_| "",
        user_only: None,
    }),
    detect: super::Detect {
        binary: "copilot",
        dirs: detect_dirs,
    },
};

/// Copilot CLI's hook input (camelCase, no event name).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CopilotInput {
    session_id: String,
    cwd: String,
    prompt: String,
}

/// The hook's input, given the event name it does not send.
fn input(raw: &str) -> Result<HookInput> {
    let input: CopilotInput = crate::agents::input::parse_json(raw)?;
    Ok(HookInput {
        session_id: input.session_id,
        cwd: input.cwd,
        prompt: input.prompt,
        hook_event_name: PROMPT_SUBMITTED.to_owned(),
        transcript_path: None,
    })
}

fn context(text: &str) -> Value {
    json!({"additionalContext": text})
}

fn handler(command: &str, _budget: Option<usize>) -> Value {
    json!({"type": "command", "bash": command, "timeoutSec": 30})
}

fn hook_files(scope: Scope, env: &InstallEnv<'_>) -> Result<HookFiles> {
    let dir = match scope {
        Scope::User => env.dir_of("COPILOT_HOME", ".copilot")?.join("hooks"),
        Scope::Project => env.cwd.join(".github").join("hooks"),
    };
    Ok(HookFiles {
        hooks_file: dir.join(HOOK_FILE),
        codex_config: None,
    })
}

fn mcp_place(scope: Scope, env: &InstallEnv<'_>) -> Result<McpPlace> {
    let file = match scope {
        Scope::Project => env.cwd.join(".mcp.json"),
        Scope::User => env
            .dir_of("COPILOT_HOME", ".copilot")?
            .join("mcp-config.json"),
    };
    Ok(McpPlace {
        file,
        permissions: None,
    })
}

fn mcp_entry(exe: &str, args: &[String]) -> Value {
    json!({"tools": ["*"], "type": "local", "command": exe, "args": args})
}

/// Its home (`$COPILOT_HOME`, else `~/.copilot`: settings and the
/// `session-state/` store).
fn detect_dirs(env: &InstallEnv<'_>) -> Vec<std::path::PathBuf> {
    env.dir_of("COPILOT_HOME", ".copilot").into_iter().collect()
}
