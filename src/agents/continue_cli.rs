//! Continue CLI (`cn`, npm `@continuedev/cli` 1.5.47): MCP servers only,
//! as items of the `mcpServers:` list of `$CONTINUE_GLOBAL_DIR/config.yaml`
//! (`~/.continue/config.yaml`). Read in its TypeScript source and bundle:
//! `env.ts` places the directory, `configLoader.ts` reads that
//! `config.yaml` when it exists and otherwise the hub's default
//! configuration, and the config schema takes a stdio server as `{name,
//! command, type?: "stdio", args?, env?, cwd?, connectionTimeout?}`.
//! Checked end to end: with the entry `mcp install continue` wrote, `cn
//! -p` against `../shared/tools/mockllm` started `session-ref mcp` and the
//! model's `list_sessions` call got its answer (the tools are offered
//! under their own names, unprefixed).
//!
//! So install never creates the file: a `config.yaml` holding only our
//! server would replace the person's hub configuration (their models)
//! with one that has none. The file is YAML edited as text
//! ([`crate::settings_file::yaml`]): comments and the rest are kept. `cn`
//! reads no project MCP file (only `--config FILE`), so only the user scope
//! is offered.
//!
//! No hook is installed: 1.5.47 never runs a `UserPromptSubmit` hook.
//! Continue reads Claude Code-compatible hooks from
//! `~/.continue/settings.json` (`../shared/spec/formats/continue.md`), but
//! run against `../shared/tools/mockllm` with one there (a script that
//! records its call and answers `additionalContext`), neither `cn -p` nor
//! the TUI (in tmux; the model answered the prompt) called it, and no
//! request held its context. The source says why: `fireUserPromptSubmit`
//! (`src/hooks/fireHook.ts`) is called nowhere, and the bundle
//! (`dist/index.js`) no longer holds it.

use std::path::PathBuf;

use serde_json::{json, Value};

use super::{InstallEnv, Integration, Mcp, McpFormat, McpPlace, Scope};
use crate::error::{Error, Result};
use crate::settings_file::yaml::Shape;

/// Continue CLI.
pub const INTEGRATION: Integration = Integration {
    name: "continue",
    product: "Continue CLI",
    hook: None,
    mcp: Some(Mcp {
        place: mcp_place,
        format: McpFormat::Yaml {
            key: "mcpServers",
            shape: Shape::List,
            entry: mcp_entry,
            needs_file: Some(
                "Continue CLI uses its hub configuration until this file exists; \
                 write it first (its name, version and models), then install again",
            ),
        },
        notes: |_| "",
        user_only: Some(
            "Continue CLI has no project MCP file (it reads ~/.continue/config.yaml or --config)",
        ),
    }),
    detect: super::Detect {
        binary: "cn",
        dirs: detect_dirs,
    },
};

/// Continue's home: `$CONTINUE_GLOBAL_DIR`, else `~/.continue`.
fn continue_home(env: &InstallEnv<'_>) -> Result<PathBuf> {
    env.dir_of("CONTINUE_GLOBAL_DIR", ".continue")
}

fn detect_dirs(env: &InstallEnv<'_>) -> Vec<PathBuf> {
    continue_home(env).into_iter().collect()
}

fn mcp_place(scope: Scope, env: &InstallEnv<'_>) -> Result<McpPlace> {
    match scope {
        Scope::Project => Err(Error::invalid_config(
            "Continue CLI has no project MCP file (it reads ~/.continue/config.yaml or --config); \
             install for the user instead (without --project)",
        )),
        Scope::User => Ok(McpPlace {
            file: continue_home(env)?.join("config.yaml"),
            permissions: None,
        }),
    }
}

/// An item of `mcpServers:` as the config schema takes a stdio server.
fn mcp_entry(exe: &str, args: &[String]) -> Value {
    json!({"name": super::MCP_SERVER, "command": exe, "args": args})
}
