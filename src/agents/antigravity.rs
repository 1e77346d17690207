//! Antigravity CLI (`agy`, 1.0.x–1.3): MCP servers only, in
//! `~/.gemini/antigravity-cli/mcp_config.json` as `{"mcpServers": {NAME:
//! {command, args}}}`.
//!
//! Antigravity is closed source and does not install here; the file and
//! its shape are the ones public tools that configure agy write and read
//! (found with the `search` tool in December 2026: installers of MCP
//! servers for agy, and harnesses that run `agy -p` with the user's
//! servers "inherited from that file", agy having no `--mcp-config` flag).
//! No project file is known.
//!
//! No hook: agy's hooks (`~/.gemini/config/hooks.json`, or a project's
//! `.agents/hooks.json`: named groups of `PreToolUse`, `PostToolUse`,
//! `PreInvocation`, `PostInvocation` and `Stop` handlers) have no
//! prompt-submit event. `PreInvocation` runs before every model call of
//! the agent loop, not once per prompt, and its documented input carries
//! no prompt text, so it can neither see a mention nor add a snapshot once.

use serde_json::{json, Value};

use super::{InstallEnv, Integration, Mcp, McpFormat, McpPlace, Scope};
use crate::error::Result;

/// Antigravity CLI.
pub const INTEGRATION: Integration = Integration {
    name: "antigravity",
    product: "Antigravity CLI",
    hook: None,
    mcp: Some(Mcp {
        place: mcp_place,
        format: McpFormat::Json {
            key: "mcpServers",
            entry: mcp_entry,
            schema: None,
        },
        notes: |_| "",
        user_only: Some("Antigravity CLI reads MCP servers from the user's mcp_config.json only"),
    }),
    detect: super::Detect {
        binary: "agy",
        dirs: detect_dirs,
    },
};

fn mcp_place(_scope: Scope, env: &InstallEnv<'_>) -> Result<McpPlace> {
    Ok(McpPlace {
        file: env
            .home()?
            .join(".gemini")
            .join("antigravity-cli")
            .join("mcp_config.json"),
        permissions: None,
    })
}

fn mcp_entry(exe: &str, args: &[String]) -> Value {
    json!({"command": exe, "args": args})
}

fn detect_dirs(env: &InstallEnv<'_>) -> Vec<std::path::PathBuf> {
    env.home()
        .map(|home| home.join(".gemini").join("antigravity-cli"))
        .into_iter()
        .collect()
}
