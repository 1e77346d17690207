//! Kimi CLI (kimi-cli 1.52.0): MCP servers only. Its `UserPromptSubmit`
//! hook can only block a prompt (its `additionalContext` reached neither
//! the request nor the session when run against the mock model,
//! `../shared/spec/formats/kimi.md`), so session-ref installs no hook
//! there. The servers are under `mcpServers` of `$KIMI_SHARE_DIR/mcp.json`
//! (`~/.kimi/mcp.json`), as `kimi mcp add NAME -- COMMAND ARGS…` writes
//! them (`{command, args}`; `kimi_cli/cli/mcp.py`, read through the
//! `search` tool). Kimi has no project MCP file (a project's servers come
//! from `--mcp-config-file`), so only the user scope is offered.

use serde_json::{json, Value};

use super::{InstallEnv, Integration, Mcp, McpFormat, McpPlace, Scope};
use crate::error::{Error, Result};

/// Kimi CLI.
pub const INTEGRATION: Integration = Integration {
    name: "kimi",
    product: "Kimi CLI",
    hook: None,
    mcp: Some(Mcp {
        place: mcp_place,
        format: McpFormat::Json {
            key: "mcpServers",
            entry: mcp_entry,
            schema: None,
        },
        notes: |_| "",
        user_only: Some(
            "Kimi CLI has no project MCP file (the user's ~/.kimi/mcp.json, or --mcp-config-file)",
        ),
    }),
    detect: super::Detect {
        binary: "kimi",
        dirs: detect_dirs,
    },
};

/// Kimi's share directory (sessions, `mcp.json`, `config.toml`).
fn share_dir(env: &InstallEnv<'_>) -> Result<std::path::PathBuf> {
    env.dir_of("KIMI_SHARE_DIR", ".kimi")
}

fn detect_dirs(env: &InstallEnv<'_>) -> Vec<std::path::PathBuf> {
    share_dir(env).into_iter().collect()
}

fn mcp_place(scope: Scope, env: &InstallEnv<'_>) -> Result<McpPlace> {
    match scope {
        Scope::Project => Err(Error::invalid_config(
            "Kimi CLI has no project MCP file (pass one with its --mcp-config-file); \
             install for the user instead (without --project)",
        )),
        Scope::User => Ok(McpPlace {
            file: share_dir(env)?.join("mcp.json"),
            permissions: None,
        }),
    }
}

fn mcp_entry(exe: &str, args: &[String]) -> Value {
    json!({"command": exe, "args": args})
}
