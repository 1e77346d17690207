//! Qwen Code 0.24.4: Claude Code's hook shapes (`UserPromptSubmit`, the
//! same input and answers, 10,000 characters kept whole) in
//! `$QWEN_HOME/settings.json` (or a project's `.qwen/settings.json`), which
//! also holds its MCP servers (`mcpServers`, trusted as `qwen mcp add
//! --trust` writes them). It does not give a blocked prompt back: a draft
//! is kept.

use super::command_handler;
use super::{
    Hook, HookFiles, HookLayout, InstallEnv, Integration, Mcp, McpFormat, McpPlace, Scope,
};
use crate::agents::input::{HookInput, PROMPT_SUBMIT};
use crate::error::Result;
use session_ref_engine::budget::Measure;

/// Qwen Code.
pub const INTEGRATION: Integration = Integration {
    name: "qwen",
    product: "Qwen Code",
    hook: Some(Hook {
        about: "Answer Qwen Code's UserPromptSubmit hook (its JSON on stdin)",
        event: PROMPT_SUBMIT,
        cap: crate::agents::DEFAULT_HOST_CAP,
        measure: Measure::Utf16Units,
        input: HookInput::parse,
        context: super::claude::prompt_submit_context,
        block: super::decision_block,
        keeps_draft: true,
        files: hook_files,
        handler: command_handler,
        layout: HookLayout::Shared,
    }),
    mcp: Some(Mcp {
        place: mcp_place,
        format: McpFormat::Json {
            key: "mcpServers",
            entry: super::gemini::trusted_entry,
            schema: None,
        },
        notes: super::gemini::trusted_notes,
        user_only: None,
    }),
    detect: super::Detect {
        binary: "qwen",
        dirs: detect_dirs,
    },
};

fn settings_dir(scope: Scope, env: &InstallEnv<'_>) -> Result<std::path::PathBuf> {
    match scope {
        Scope::User => env.dir_of("QWEN_HOME", ".qwen"),
        Scope::Project => Ok(env.cwd.join(".qwen")),
    }
}

fn hook_files(scope: Scope, env: &InstallEnv<'_>) -> Result<HookFiles> {
    Ok(HookFiles {
        hooks_file: settings_dir(scope, env)?.join("settings.json"),
        codex_config: None,
    })
}

fn mcp_place(scope: Scope, env: &InstallEnv<'_>) -> Result<McpPlace> {
    Ok(McpPlace {
        file: settings_dir(scope, env)?.join("settings.json"),
        permissions: None,
    })
}

/// Its user directory (`$QWEN_HOME`, else `~/.qwen`: settings and the
/// `projects/` store).
fn detect_dirs(env: &InstallEnv<'_>) -> Vec<std::path::PathBuf> {
    settings_dir(Scope::User, env).into_iter().collect()
}
