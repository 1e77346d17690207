//! Cursor CLI (`cursor-agent`, 2026.07) and Cursor's editor agent: the
//! `beforeSubmitPrompt` hook in `hooks.json` (`$CURSOR_CONFIG_DIR/`, else
//! `~/.cursor/`, or a project's `.cursor/`) and the MCP servers of
//! `mcp.json` beside it.
//!
//! Cursor is closed source; the shapes follow Cursor's hooks documentation
//! (cursor.com/docs/agent/hooks, read through the `search` tool in
//! December 2026) and the public installers that write them (the
//! `cursor-hooks` 1.1.6 type definitions, and hook installers verified on
//! Cursor 3.12): `hooks.json` is `{"version": 1, "hooks": {EVENT:
//! [{"command": …}]}}`, the handlers directly in the event's list, no
//! group around them. `beforeSubmitPrompt` runs after the person sends a
//! prompt and before anything reaches the model; its stdin is `{
//! conversation_id, generation_id, hook_event_name, workspace_roots,
//! prompt, attachments, … }` and its answer is `{"continue": true|false,
//! "user_message": …}`. **It cannot add context**: so the hook checks that
//! every cited session resolves and reads (a bad mention stops the prompt
//! with the reason shown to the person, and the prompt is kept in a
//! draft), and lets a good one through; the snapshot itself reaches the
//! model through the MCP server (`read_session`), which install registers
//! beside it. `mcp.json` holds `{"mcpServers": {NAME: {command, args}}}`.

use serde::Deserialize;
use serde_json::{json, Value};

use super::{
    command_handler, Hook, HookFiles, HookLayout, InstallEnv, Integration, Mcp, McpFormat,
    McpPlace, Scope,
};
use crate::agents::input::HookInput;
use crate::error::Result;
use session_ref_engine::budget::Measure;

/// Cursor's event between sending a prompt and asking the model.
pub const BEFORE_SUBMIT_PROMPT: &str = "beforeSubmitPrompt";

/// Cursor CLI.
pub const INTEGRATION: Integration = Integration {
    name: "cursor",
    product: "Cursor CLI",
    hook: Some(Hook {
        about: "Check the mentions of Cursor's beforeSubmitPrompt hook (its JSON on stdin); the snapshots come through MCP",
        event: BEFORE_SUBMIT_PROMPT,
        cap: crate::agents::UNCAPPED_HOST_CAP,
        measure: Measure::Utf8Bytes,
        input,
        context,
        block,
        keeps_draft: true,
        files: hook_files,
        handler: command_handler,
        layout: HookLayout::Flat,
    }),
    mcp: Some(Mcp {
        place: mcp_place,
        format: McpFormat::Json {
            key: "mcpServers",
            entry: mcp_entry,
            schema: None,
        },
        notes: |_| {
            "note: Cursor's beforeSubmitPrompt hook cannot add context: with `hook install cursor` \
             a bad mention stops the prompt, and the snapshot comes through this server\n"
        },
        user_only: None,
    }),
    detect: super::Detect {
        binary: "cursor-agent",
        dirs: detect_dirs,
    },
};

/// Cursor's hook input (snake_case, the session as `conversation_id`).
#[derive(Debug, Deserialize)]
struct CursorInput {
    conversation_id: String,
    #[serde(default)]
    workspace_roots: Vec<String>,
    prompt: String,
    hook_event_name: String,
}

fn input(raw: &str) -> Result<HookInput> {
    let input: CursorInput = crate::agents::input::parse_json(raw)?;
    Ok(HookInput {
        session_id: input.conversation_id,
        cwd: input.workspace_roots.into_iter().next().unwrap_or_default(),
        prompt: input.prompt,
        hook_event_name: input.hook_event_name,
        transcript_path: None,
    })
}

/// The cited sessions resolved and read: the prompt goes on as typed
/// (Cursor takes nothing more from this hook).
fn context(_text: &str) -> Value {
    json!({"continue": true})
}

/// The prompt stopped, the reason (and where the prompt was kept) shown to
/// the person.
fn block(reason: &str, notice: Option<&str>) -> Value {
    let message = match notice {
        Some(notice) => format!("{reason}\n{notice}"),
        None => reason.to_owned(),
    };
    json!({"continue": false, "user_message": message})
}

/// `$CURSOR_CONFIG_DIR`, else `~/.cursor`; a project's `.cursor`.
fn config_dir(scope: Scope, env: &InstallEnv<'_>) -> Result<std::path::PathBuf> {
    match scope {
        Scope::User => env.dir_of("CURSOR_CONFIG_DIR", ".cursor"),
        Scope::Project => Ok(env.cwd.join(".cursor")),
    }
}

fn hook_files(scope: Scope, env: &InstallEnv<'_>) -> Result<HookFiles> {
    Ok(HookFiles {
        hooks_file: config_dir(scope, env)?.join("hooks.json"),
        codex_config: None,
    })
}

fn mcp_place(scope: Scope, env: &InstallEnv<'_>) -> Result<McpPlace> {
    Ok(McpPlace {
        file: config_dir(scope, env)?.join("mcp.json"),
        permissions: None,
    })
}

fn mcp_entry(exe: &str, args: &[String]) -> Value {
    json!({"command": exe, "args": args})
}

fn detect_dirs(env: &InstallEnv<'_>) -> Vec<std::path::PathBuf> {
    config_dir(Scope::User, env).into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_input_names_the_conversation_and_its_first_workspace() {
        let raw = r#"{"conversation_id":"c-1","generation_id":"g","hook_event_name":"beforeSubmitPrompt","workspace_roots":["/w","/x"],"prompt":"hi","attachments":[]}"#;
        let input = input(raw).unwrap();
        assert_eq!(
            (input.session_id.as_str(), input.cwd.as_str()),
            ("c-1", "/w")
        );
        assert_eq!(input.hook_event_name, BEFORE_SUBMIT_PROMPT);
        assert!(super::input(r#"{"session_id":"c","prompt":"hi"}"#).is_err());
    }

    #[test]
    fn answers_only_allow_or_stop() {
        assert_eq!(context("anything"), json!({"continue": true}));
        assert_eq!(
            block("r", Some("n")),
            json!({"continue": false, "user_message": "r\nn"})
        );
        assert_eq!(
            block("r", None),
            json!({"continue": false, "user_message": "r"})
        );
    }
}
