//! opencode 1.18.33: MCP servers only (it has no prompt-submit hook), under
//! `mcp` of `opencode.json` (`$XDG_CONFIG_HOME/opencode/`, or the
//! project's directory), as `opencode mcp add` writes them: `{type:
//! "local", command: [program, args…]}`. opencode reads `opencode.jsonc`
//! too; `opencode mcp add` creates that one when there is neither, we the
//! plain one.

use serde_json::{json, Value};

use super::{InstallEnv, Integration, Mcp, McpFormat, McpPlace, Scope};
use crate::error::Result;

/// opencode.
pub const INTEGRATION: Integration = Integration {
    name: "opencode",
    product: "opencode",
    hook: None,
    mcp: Some(Mcp {
        place: mcp_place,
        format: McpFormat::Json {
            key: "mcp",
            entry: mcp_entry,
            schema: Some("https://opencode.ai/config.json"),
        },
        notes: |_| "",
        user_only: None,
    }),
    detect: super::Detect {
        binary: "opencode",
        dirs: detect_dirs,
    },
};

fn mcp_place(scope: Scope, env: &InstallEnv<'_>) -> Result<McpPlace> {
    let dir = match scope {
        Scope::Project => env.cwd.to_path_buf(),
        Scope::User => env.dir_of("XDG_CONFIG_HOME", ".config")?.join("opencode"),
    };
    Ok(McpPlace {
        file: config_file(&dir, "opencode"),
        permissions: None,
    })
}

/// `<stem>.json` in `dir`, or `<stem>.jsonc` when only that one exists
/// (opencode and its forks read both).
pub fn config_file(dir: &std::path::Path, stem: &str) -> std::path::PathBuf {
    let plain = dir.join(format!("{stem}.json"));
    let commented = dir.join(format!("{stem}.jsonc"));
    if !plain.exists() && commented.exists() {
        commented
    } else {
        plain
    }
}

/// The entry `opencode mcp add` writes: a local server run as
/// `[program, args…]`.
pub fn mcp_entry(exe: &str, args: &[String]) -> Value {
    let mut command = vec![exe.to_owned()];
    command.extend(args.iter().cloned());
    json!({"type": "local", "command": command})
}

/// Its configuration (`$XDG_CONFIG_HOME/opencode`) and data
/// (`$XDG_DATA_HOME/opencode`, the store) directories.
fn detect_dirs(env: &InstallEnv<'_>) -> Vec<std::path::PathBuf> {
    xdg_dirs(env, "opencode")
}

/// `$XDG_CONFIG_HOME/APP` and `$XDG_DATA_HOME/APP`: where an agent of the
/// opencode family keeps its settings and its database.
pub fn xdg_dirs(env: &InstallEnv<'_>, app: &str) -> Vec<std::path::PathBuf> {
    let config = env.dir_of("XDG_CONFIG_HOME", ".config");
    let data = env.dir_of("XDG_DATA_HOME", ".local/share");
    [config, data]
        .into_iter()
        .flatten()
        .map(|dir| dir.join(app))
        .collect()
}
