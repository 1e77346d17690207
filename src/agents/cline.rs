//! Cline CLI 3.0.65 (npm `cline`, `@cline/core` 0.0.86): MCP servers only,
//! in `cline_mcp_settings.json` (`$CLINE_MCP_SETTINGS_PATH`, else
//! `$CLINE_DATA_DIR/settings/`, else `$CLINE_DIR/data/settings/`, else
//! `~/.cline/data/settings/`), as `cline mcp add NAME -- CMD ARGS` writes
//! them: `{"mcpServers": {NAME: {"transport": {"type": "stdio", command,
//! args}}}}` (observed by running it offline: `../shared/spec/formats/cline.md`).
//! Cline has no project file of MCP servers.
//!
//! No hook: Cline runs hook files named after the event
//! (`~/.cline/hooks/UserPromptSubmit.sh`, …), but in 3.0.65 the prompt
//! hook is fire-and-forget (started detached, its stdout unused) and was
//! never seen to run for a one-shot or a TUI prompt, so it cannot add the
//! snapshot or stop a bad mention. The model reads cited sessions through
//! the MCP server's tools instead.

use serde_json::{json, Value};

use super::{InstallEnv, Integration, Mcp, McpFormat, McpPlace, Scope};
use crate::error::Result;

/// Cline CLI.
pub const INTEGRATION: Integration = Integration {
    name: "cline",
    product: "Cline CLI",
    hook: None,
    mcp: Some(Mcp {
        place: mcp_place,
        format: McpFormat::Json {
            key: "mcpServers",
            entry: mcp_entry,
            schema: None,
        },
        notes: |_| "",
        user_only: Some("Cline CLI keeps MCP servers for the user only (cline_mcp_settings.json)"),
    }),
    detect: super::Detect {
        binary: "cline",
        dirs: detect_dirs,
    },
};

fn mcp_place(_scope: Scope, env: &InstallEnv<'_>) -> Result<McpPlace> {
    let file = match env.var_dir("CLINE_MCP_SETTINGS_PATH") {
        Some(file) => file,
        None => {
            let data = match env.var_dir("CLINE_DATA_DIR") {
                Some(data) => data,
                None => env.dir_of("CLINE_DIR", ".cline")?.join("data"),
            };
            data.join("settings").join("cline_mcp_settings.json")
        }
    };
    Ok(McpPlace {
        file,
        permissions: None,
    })
}

fn mcp_entry(exe: &str, args: &[String]) -> Value {
    json!({"transport": {"type": "stdio", "command": exe, "args": args}})
}

fn detect_dirs(env: &InstallEnv<'_>) -> Vec<std::path::PathBuf> {
    match env.var_dir("CLINE_DATA_DIR") {
        Some(dir) => vec![dir],
        None => env.dir_of("CLINE_DIR", ".cline").into_iter().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    fn place(vars: &[(&str, &str)]) -> Result<McpPlace> {
        let lookup = |k: &str| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        };
        let env = InstallEnv {
            env: &lookup,
            home: Some(Path::new("/h")),
            cwd: Path::new("/p"),
            exe: Path::new("/b/session-ref"),
        };
        mcp_place(Scope::User, &env)
    }

    #[test]
    fn the_settings_file_follows_cline_s_variables() {
        let file = |vars: &[(&str, &str)]| place(vars).unwrap().file;
        assert_eq!(
            file(&[]),
            PathBuf::from("/h/.cline/data/settings/cline_mcp_settings.json")
        );
        assert_eq!(
            file(&[("CLINE_DIR", "/c")]),
            PathBuf::from("/c/data/settings/cline_mcp_settings.json")
        );
        assert_eq!(
            file(&[("CLINE_DIR", "/c"), ("CLINE_DATA_DIR", "/d")]),
            PathBuf::from("/d/settings/cline_mcp_settings.json")
        );
        assert_eq!(
            file(&[("CLINE_MCP_SETTINGS_PATH", "/m.json"), ("CLINE_DIR", "/c")]),
            PathBuf::from("/m.json")
        );
    }
}
