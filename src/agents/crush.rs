//! Crush (charmbracelet/crush at `37f36e9`, 2026-08-21): MCP servers only.
//! Its hooks run on tool use (`PreToolUse`), not on a prompt, so there is
//! no prompt hook to answer. Servers are kept under `mcp` of `crush.json`,
//! each `{type: "stdio", command, args}` (`internal/config/config.go`'s
//! `MCPConfig`): the user's in `$CRUSH_GLOBAL_CONFIG/crush.json`, else
//! `$XDG_CONFIG_HOME/crush/crush.json` (`~/.config/crush/`); a project's
//! `crush.json`, or `.crush.json` when only that one exists (Crush reads
//! both, `internal/config/load.go`).

use serde_json::{json, Value};

use super::{InstallEnv, Integration, Mcp, McpFormat, McpPlace, Scope};
use crate::error::Result;

/// Crush.
pub const INTEGRATION: Integration = Integration {
    name: "crush",
    product: "Crush",
    hook: None,
    mcp: Some(Mcp {
        place: mcp_place,
        format: McpFormat::Json {
            key: "mcp",
            entry: mcp_entry,
            schema: Some("https://charm.land/crush.json"),
        },
        notes: |_| "",
        user_only: None,
    }),
    detect: super::Detect {
        binary: "crush",
        dirs: detect_dirs,
    },
};

fn mcp_place(scope: Scope, env: &InstallEnv<'_>) -> Result<McpPlace> {
    let file = match scope {
        Scope::User => match env.var_dir("CRUSH_GLOBAL_CONFIG") {
            Some(dir) => dir.join("crush.json"),
            None => env
                .dir_of("XDG_CONFIG_HOME", ".config")?
                .join("crush")
                .join("crush.json"),
        },
        Scope::Project => {
            let plain = env.cwd.join("crush.json");
            let hidden = env.cwd.join(".crush.json");
            if !plain.exists() && hidden.exists() {
                hidden
            } else {
                plain
            }
        }
    };
    Ok(McpPlace {
        file,
        permissions: None,
    })
}

fn mcp_entry(exe: &str, args: &[String]) -> Value {
    json!({"type": "stdio", "command": exe, "args": args})
}

fn detect_dirs(env: &InstallEnv<'_>) -> Vec<std::path::PathBuf> {
    let config = match env.var_dir("CRUSH_GLOBAL_CONFIG") {
        Some(dir) => Some(dir),
        None => env
            .dir_of("XDG_CONFIG_HOME", ".config")
            .ok()
            .map(|dir| dir.join("crush")),
    };
    let data = env
        .dir_of("XDG_DATA_HOME", ".local/share")
        .ok()
        .map(|dir| dir.join("crush"));
    [config, data].into_iter().flatten().collect()
}
