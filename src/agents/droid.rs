//! Factory Droid 0.225.2 (`droid`): Claude Code's hook shapes — a
//! `UserPromptSubmit` group of command handlers under `hooks` of
//! `~/.factory/settings.json` (a project's `.factory/settings.json`), its
//! stdin `{session_id, transcript_path, cwd, permission_mode,
//! hook_event_name, message_id, prompt, has_images}`, and
//! `hookSpecificOutput.additionalContext` accepted back — and MCP servers
//! in `~/.factory/mcp.json` (`mcpServers`, each `{type: "stdio", command,
//! args, env, disabled}` as `droid mcp add` writes them). The home is
//! `$FACTORY_HOME_OVERRIDE` when set (`../shared/spec/formats/droid.md`).
//!
//! Droid runs hooks only in the TUI of a folder the person trusted, never
//! in `droid exec`. It keeps added context whole far past Claude Code's
//! 10,000 characters: 184,997 characters of context reached the mock
//! model's request whole (its TUI driven in tmux, 2026-12-03), so the cap
//! is the one of the hosts where no cap was seen. Droid stops a
//! prompt only for a hook that exits 2 or 3 or answers `continue: false`
//! (its `UserPromptSubmit` check, read in the 0.225.2 binary; Claude
//! Code's `decision: "block"` alone let the prompt through when run in
//! its TUI against the mock, `tools/mcp-e2e.sh`), so the answer carries
//! both. Whether it gives a blocked prompt back was not seen: a draft is
//! kept. A project's
//! `.factory/mcp.json` is assumed beside its `settings.json`.

use serde_json::{json, Value};

use super::command_handler;
use super::{
    Hook, HookFiles, HookLayout, InstallEnv, Integration, Mcp, McpFormat, McpPlace, Scope,
};
use crate::agents::input::{HookInput, PROMPT_SUBMIT};
use crate::error::Result;
use session_ref_engine::budget::Measure;

/// Factory Droid.
pub const INTEGRATION: Integration = Integration {
    name: "droid",
    product: "Factory Droid",
    hook: Some(Hook {
        about: "Answer Factory Droid's UserPromptSubmit hook (its JSON on stdin)",
        event: PROMPT_SUBMIT,
        cap: crate::agents::UNCAPPED_HOST_CAP,
        measure: Measure::Utf16Units,
        input: HookInput::parse,
        context: super::claude::prompt_submit_context,
        block,
        keeps_draft: true,
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
        notes: |_| "",
        user_only: None,
    }),
    detect: super::Detect {
        binary: "droid",
        dirs: detect_dirs,
    },
};

/// Claude Code's block answer, with the `continue: false` that is what
/// stops the prompt in Droid.
fn block(reason: &str, notice: Option<&str>) -> Value {
    let mut answer = super::decision_block(reason, notice);
    answer["continue"] = Value::Bool(false);
    answer["stopReason"] = Value::String(reason.to_owned());
    answer
}

fn factory_dir(scope: Scope, env: &InstallEnv<'_>) -> Result<std::path::PathBuf> {
    match scope {
        Scope::User => {
            let home = match env.var_dir("FACTORY_HOME_OVERRIDE") {
                Some(home) => home,
                None => env.home()?,
            };
            Ok(home.join(".factory"))
        }
        Scope::Project => Ok(env.cwd.join(".factory")),
    }
}

fn hook_files(scope: Scope, env: &InstallEnv<'_>) -> Result<HookFiles> {
    Ok(HookFiles {
        hooks_file: factory_dir(scope, env)?.join("settings.json"),
        codex_config: None,
    })
}

fn mcp_place(scope: Scope, env: &InstallEnv<'_>) -> Result<McpPlace> {
    Ok(McpPlace {
        file: factory_dir(scope, env)?.join("mcp.json"),
        permissions: None,
    })
}

fn mcp_entry(exe: &str, args: &[String]) -> Value {
    json!({"type": "stdio", "command": exe, "args": args, "env": {}, "disabled": false})
}

fn detect_dirs(env: &InstallEnv<'_>) -> Vec<std::path::PathBuf> {
    factory_dir(Scope::User, env).into_iter().collect()
}
