//! Kilo Code CLI 7.7.7 (`kilo`, an opencode fork): MCP servers only. Kilo
//! has no command hook on prompts (its opencode-style plugins' hook
//! `chat.message` is JavaScript, not a program session-ref can be), and
//! keeps its servers as opencode does, under `mcp` of `kilo.json`
//! (`$XDG_CONFIG_HOME/kilo/`, else `~/.config/kilo/`; a project's in its
//! directory), each `{type: "local", command: [program, args…]}`
//! (`../shared/spec/formats/kilo.md`). `kilo.jsonc` is read too, and
//! edited when it is the only one.

use super::{InstallEnv, Integration, Mcp, McpFormat, McpPlace, Scope};
use crate::agents::opencode::{config_file, mcp_entry, xdg_dirs};
use crate::error::Result;

/// Kilo Code CLI.
pub const INTEGRATION: Integration = Integration {
    name: "kilo",
    product: "Kilo Code CLI",
    hook: None,
    mcp: Some(Mcp {
        place: mcp_place,
        format: McpFormat::Json {
            key: "mcp",
            entry: mcp_entry,
            schema: None,
        },
        notes: |_| "",
        user_only: None,
    }),
    detect: super::Detect {
        binary: "kilo",
        dirs: detect_dirs,
    },
};

fn mcp_place(scope: Scope, env: &InstallEnv<'_>) -> Result<McpPlace> {
    let dir = match scope {
        Scope::Project => env.cwd.to_path_buf(),
        Scope::User => env.dir_of("XDG_CONFIG_HOME", ".config")?.join("kilo"),
    };
    Ok(McpPlace {
        file: config_file(&dir, "kilo"),
        permissions: None,
    })
}

/// Its configuration and data directories, as opencode's.
fn detect_dirs(env: &InstallEnv<'_>) -> Vec<std::path::PathBuf> {
    xdg_dirs(env, "kilo")
}
