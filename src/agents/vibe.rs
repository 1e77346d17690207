//! Mistral Vibe: MCP servers only, as the `[[mcp_servers]]` array of
//! tables of its `config.toml` — `$VIBE_HOME/config.toml` (`~/.vibe`), or a
//! project's `.vibe/config.toml`, which Vibe reads only once the folder is
//! trusted (`trusted_folders.toml`; Vibe walks up from the working
//! directory to the first trusted one).
//!
//! The entry follows Vibe's own models (`vibe/core/config/models.py`,
//! `MCPStdio` over `_MCPBase`, read in mistralai/mistral-vibe v2.18.4,
//! commit ac8f1a0, the newest source the `fetch` tool holds; the 3.0.2
//! that `../shared/spec/formats/vibe.md` ran keeps `[[mcp_servers]]` in
//! `config.toml`): `name` (the prefix of the tool names; Vibe turns any
//! character but letters, digits, `_` and `-` into `_`), `transport =
//! "stdio"` (the discriminator), `command` and `args`. Names are unique
//! (`_unique_by("name")`), so ours is the entry named `session-ref`.
//!
//! Vibe has no prompt-submit hook: its `hooks.toml` runs only
//! `post_agent`, `pre_tool` and `post_tool` (`vibe/core/hooks/config.py`).

use std::path::PathBuf;

use super::{InstallEnv, Integration, Mcp, McpFormat, McpPlace, Scope};
use crate::error::Result;

/// Mistral Vibe.
pub const INTEGRATION: Integration = Integration {
    name: "vibe",
    product: "Mistral Vibe",
    hook: None,
    mcp: Some(Mcp {
        place: mcp_place,
        format: McpFormat::TomlList { entry: mcp_entry },
        notes: mcp_notes,
        user_only: None,
    }),
    detect: super::Detect {
        binary: "vibe",
        dirs: detect_dirs,
    },
};

/// Vibe's home: `$VIBE_HOME`, else `~/.vibe` (config, sessions, logs).
fn vibe_home(env: &InstallEnv<'_>) -> Result<PathBuf> {
    env.dir_of("VIBE_HOME", ".vibe")
}

fn detect_dirs(env: &InstallEnv<'_>) -> Vec<PathBuf> {
    vibe_home(env).into_iter().collect()
}

fn mcp_place(scope: Scope, env: &InstallEnv<'_>) -> Result<McpPlace> {
    let dir = match scope {
        Scope::User => vibe_home(env)?,
        Scope::Project => env.cwd.join(".vibe"),
    };
    Ok(McpPlace {
        file: dir.join("config.toml"),
        permissions: None,
    })
}

fn mcp_notes(scope: Scope) -> &'static str {
    match scope {
        Scope::User => "",
        Scope::Project => {
            "note: Vibe reads a project's .vibe/config.toml only in a folder you trusted\n"
        }
    }
}

/// The `[[mcp_servers]]` table Vibe's `MCPStdio` model takes.
pub fn mcp_entry(exe: &str, args: &[String]) -> toml_edit::Table {
    let mut entry = toml_edit::Table::new();
    entry.insert("name", toml_edit::value(super::MCP_SERVER));
    entry.insert("transport", toml_edit::value("stdio"));
    entry.insert("command", toml_edit::value(exe));
    let args: toml_edit::Array = args.iter().map(String::as_str).collect();
    entry.insert("args", toml_edit::value(args));
    entry
}
