//! Goose (block/goose): MCP servers only, as "extensions" in `extensions:`
//! of its `config.yaml`, a map from each extension's key to its entry.
//! Read in Goose's source through the `search` tool
//! (`crates/goose/src/config/extensions.rs`, `agents/extension.rs`,
//! `config/paths.rs`; the main branch of late 2026, commits 0beee6a,
//! 01cad15 and 0780e22 of those files, the layout of the 1.x releases): an `ExtensionEntry` is `enabled` beside the flattened
//! `ExtensionConfig`, whose stdio variant is `{type: stdio, name,
//! description, cmd, args, envs, env_keys, timeout, bundled,
//! available_tools}`, all but `name`, `cmd` and `args` optional; the key is
//! the name without blanks, lower-cased (`session-ref`); the default
//! timeout is 300 seconds.
//!
//! The file is `$GOOSE_PATH_ROOT/config/config.yaml` when that variable is
//! an absolute path, else `$XDG_CONFIG_HOME/goose/config.yaml`
//! (`~/.config/goose`: etcetera's XDG strategy), edited as text
//! ([`crate::settings_file::yaml`]): comments and the rest are kept until
//! Goose itself rewrites the file. Goose has no project configuration
//! file, so only the user scope is offered. It has no prompt-submit hook.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::{InstallEnv, Integration, Mcp, McpFormat, McpPlace, Scope};
use crate::error::{Error, Result};
use crate::settings_file::yaml::Shape;

/// Goose.
pub const INTEGRATION: Integration = Integration {
    name: "goose",
    product: "Goose",
    hook: None,
    mcp: Some(Mcp {
        place: mcp_place,
        format: McpFormat::Yaml {
            key: "extensions",
            shape: Shape::Map,
            entry: mcp_entry,
            needs_file: None,
        },
        notes: |_| "",
        user_only: Some("Goose has no project configuration file (its MCP servers are extensions in the user's config.yaml)"),
    }),
    detect: super::Detect {
        binary: "goose",
        dirs: detect_dirs,
    },
};

/// `$var` when it is an absolute path (as Goose and etcetera take them).
fn absolute(env: &InstallEnv<'_>, var: &str) -> Option<PathBuf> {
    (env.env)(var)
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
}

/// Goose's directory of `kind` (`config`, `data`) under `$GOOSE_PATH_ROOT`,
/// else its XDG one (`$xdg_var/goose`, else `~/fallback/goose`).
fn goose_dir(env: &InstallEnv<'_>, kind: &str, xdg_var: &str, fallback: &str) -> Result<PathBuf> {
    if let Some(root) = absolute(env, "GOOSE_PATH_ROOT") {
        return Ok(root.join(kind));
    }
    let base = match absolute(env, xdg_var) {
        Some(dir) => dir,
        None => env.home()?.join(fallback),
    };
    Ok(base.join("goose"))
}

fn detect_dirs(env: &InstallEnv<'_>) -> Vec<PathBuf> {
    [
        goose_dir(env, "config", "XDG_CONFIG_HOME", ".config"),
        goose_dir(env, "data", "XDG_DATA_HOME", ".local/share"),
    ]
    .into_iter()
    .flatten()
    .collect()
}

fn mcp_place(scope: Scope, env: &InstallEnv<'_>) -> Result<McpPlace> {
    match scope {
        Scope::Project => Err(Error::invalid_config(
            "Goose has no project configuration file; \
             install for the user instead (without --project)",
        )),
        Scope::User => Ok(McpPlace {
            file: goose_dir(env, "config", "XDG_CONFIG_HOME", ".config")?
                .join(Path::new("config.yaml")),
            permissions: None,
        }),
    }
}

/// The `extensions:` entry of a stdio extension, as Goose saves one.
fn mcp_entry(exe: &str, args: &[String]) -> Value {
    json!({
        "enabled": true,
        "type": "stdio",
        "name": super::MCP_SERVER,
        "cmd": exe,
        "args": args,
        "timeout": 300,
    })
}
