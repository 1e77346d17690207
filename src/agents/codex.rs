//! Codex CLI (hooks measured with 0.169.0, MCP with 0.171.0): its
//! `UserPromptSubmit` hook in `hooks.json` (`$CODEX_HOME/`, or a project's
//! `.codex/`), run only once `config.toml` records its trust; its MCP
//! servers as `[mcp_servers.NAME]` tables of `config.toml`.
//!
//! The hook's input and answers are Claude Code's (Codex adds `turn_id`
//! and `model`, and sends `transcript_path` as `null` when a session has
//! none). Codex keeps 10,000 bytes of added context whole unless the
//! handler raises `additionalContextLimit` (tokens of 4 bytes). `codex
//! exec` does not show a blocked prompt's reason: a draft is kept.
//!
//! Trust: Codex runs a hook only when `config.toml` holds its hash under
//! `[hooks.state."<hooks.json>:user_prompt_submit:<group>:<handler>"]`.
//! The hash is SHA-256 over the handler in Codex's normalized form (sorted
//! keys, compact JSON), checked against what Codex 0.169.0's app-server
//! reports in `hooks/list`. The TOML edits keep every other byte.

use std::path::Path;

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use super::{
    command_handler, Hook, HookFiles, HookLayout, InstallEnv, Integration, Mcp, McpFormat,
    McpPlace, Scope,
};
use crate::agents::input::{HookInput, PROMPT_SUBMIT};
use crate::error::Result;
use crate::settings_file::{malformed, parse_toml};
use session_ref_engine::budget::Measure;

/// Codex CLI.
pub const INTEGRATION: Integration = Integration {
    name: "codex",
    product: "Codex CLI",
    hook: Some(Hook {
        about: "Answer Codex's UserPromptSubmit hook (its JSON on stdin)",
        event: PROMPT_SUBMIT,
        cap: crate::agents::DEFAULT_HOST_CAP,
        measure: Measure::Utf8Bytes,
        input: HookInput::parse,
        context: super::claude::prompt_submit_context,
        block: super::decision_block,
        keeps_draft: true,
        files: hook_files,
        handler,
        layout: HookLayout::Shared,
    }),
    mcp: Some(Mcp {
        place: mcp_place,
        format: McpFormat::Toml,
        notes: mcp_notes,
        user_only: None,
    }),
    detect: super::Detect {
        binary: "codex",
        dirs: detect_dirs,
    },
};

/// With a budget, the handler also raises Codex's cap,
/// `additionalContextLimit`, counted in tokens of 4 bytes.
fn handler(command: &str, budget: Option<usize>) -> Value {
    let mut handler = command_handler(command, budget);
    if let Some(budget) = budget {
        handler["additionalContextLimit"] = budget.div_ceil(4).into();
    }
    handler
}

fn hook_files(scope: Scope, env: &InstallEnv<'_>) -> Result<HookFiles> {
    let codex_home = env.dir_of("CODEX_HOME", ".codex")?;
    let hooks_dir = match scope {
        Scope::User => codex_home.clone(),
        Scope::Project => env.cwd.join(".codex"),
    };
    Ok(HookFiles {
        hooks_file: hooks_dir.join("hooks.json"),
        codex_config: Some(codex_home.join("config.toml")),
    })
}

fn mcp_place(scope: Scope, env: &InstallEnv<'_>) -> Result<McpPlace> {
    let file = match scope {
        Scope::Project => env.cwd.join(".codex").join("config.toml"),
        Scope::User => env.dir_of("CODEX_HOME", ".codex")?.join("config.toml"),
    };
    Ok(McpPlace {
        file,
        permissions: None,
    })
}

fn mcp_notes(scope: Scope) -> &'static str {
    const UNASKED: &str = "note: Codex runs its tools unasked: they are annotated read-only\n";
    match scope {
        Scope::User => UNASKED,
        Scope::Project => concat!(
            "note: Codex runs its tools unasked: they are annotated read-only\n",
            "note: Codex reads a project's .codex/config.toml only in a trusted project\n"
        ),
    }
}

/// The trust hash Codex computes for a `UserPromptSubmit` handler that runs
/// `command` with no other settings (timeout 600 s, not async).
pub fn trust_hash(command: &str) -> String {
    trust_hash_of(&command_handler(command, None))
}

/// The trust hash Codex computes for a `UserPromptSubmit` handler object:
/// SHA-256 of its normalized form (defaults filled in, keys sorted, compact).
pub fn trust_hash_of(handler: &Value) -> String {
    let mut normalized = Map::new();
    normalized.insert("type".into(), "command".into());
    normalized.insert(
        "command".into(),
        handler.get("command").cloned().unwrap_or(Value::Null),
    );
    let timeout = handler
        .get("timeout")
        .and_then(Value::as_u64)
        .unwrap_or(600)
        .max(1);
    normalized.insert("timeout".into(), timeout.into());
    let is_async = handler
        .get("async")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    normalized.insert("async".into(), is_async.into());
    if let Some(message) = handler.get("statusMessage").filter(|m| !m.is_null()) {
        normalized.insert("statusMessage".into(), message.clone());
    }
    // 2,500 tokens is the default, which Codex leaves out of the hash.
    if let Some(limit) = handler
        .get("additionalContextLimit")
        .and_then(Value::as_u64)
        .filter(|&limit| limit != 2_500)
    {
        normalized.insert("additionalContextLimit".into(), limit.into());
    }
    let normalized = json!({"event_name": "user_prompt_submit", "hooks": [normalized]});
    let mut canonical = String::new();
    write_sorted(&mut canonical, &normalized);
    let digest = Sha256::digest(canonical.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// Compact JSON with object keys in byte order.
fn write_sorted(out: &mut String, value: &Value) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(key).expect("a string serializes"));
                out.push(':');
                write_sorted(out, &map[key]);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_sorted(out, item);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The key of a hook's entry in Codex's `[hooks.state]`, for the handler
/// at (group, handler) of `hooks_file`.
pub fn trust_key(hooks_file: &Path, (group, handler): (usize, usize)) -> String {
    format!(
        "{}:user_prompt_submit:{group}:{handler}",
        hooks_file.display()
    )
}

/// `[hooks.state]` of a config, refusing a `hooks` or `state` that is not a table.
fn trust_table<'d>(
    path: &Path,
    doc: &'d mut toml_edit::DocumentMut,
    create: bool,
) -> Result<Option<&'d mut dyn toml_edit::TableLike>> {
    let root = doc.as_table_mut();
    if !root.contains_key("hooks") {
        if !create {
            return Ok(None);
        }
        let mut hooks = toml_edit::Table::new();
        hooks.set_implicit(true);
        root.insert("hooks", toml_edit::Item::Table(hooks));
    }
    let hooks = root["hooks"]
        .as_table_like_mut()
        .ok_or_else(|| malformed(path, "\"hooks\" is not a table"))?;
    if !hooks.contains_key("state") {
        if !create {
            return Ok(None);
        }
        let mut state = toml_edit::Table::new();
        state.set_implicit(true);
        hooks.insert("state", toml_edit::Item::Table(state));
    }
    hooks
        .get_mut("state")
        .and_then(toml_edit::Item::as_table_like_mut)
        .map(Some)
        .ok_or_else(|| malformed(path, "\"hooks.state\" is not a table"))
}

/// Record `hash` as trusted for `key` in a `config.toml` text: the new
/// text, or `None` when it is there already.
pub fn trust(path: &Path, text: Option<&str>, key: &str, hash: &str) -> Result<Option<String>> {
    let mut doc = parse_toml(path, text)?;
    let state = trust_table(path, &mut doc, true)?.expect("created");
    let current = state
        .get(key)
        .and_then(|entry| entry.get("trusted_hash"))
        .and_then(toml_edit::Item::as_str);
    if current == Some(hash) {
        return Ok(None);
    }
    match state
        .get_mut(key)
        .and_then(toml_edit::Item::as_table_like_mut)
    {
        Some(entry) => {
            entry.insert("trusted_hash", toml_edit::value(hash));
        }
        None => {
            let mut entry = toml_edit::Table::new();
            entry.insert("trusted_hash", toml_edit::value(hash));
            state.insert(key, toml_edit::Item::Table(entry));
        }
    }
    Ok(Some(doc.to_string()))
}

/// Remove the trust entries of `hooks_file`'s prompt-submit hooks whose
/// hash is `hash` (the ones install recorded), and the tables left empty:
/// the new text, or `None` when there was none.
pub fn untrust(path: &Path, text: &str, hooks_file: &Path, hash: &str) -> Result<Option<String>> {
    let mut doc = parse_toml(path, Some(text))?;
    let prefix = format!("{}:user_prompt_submit:", hooks_file.display());
    let Some(state) = trust_table(path, &mut doc, false)? else {
        return Ok(None);
    };
    let ours: Vec<String> = state
        .iter()
        .filter(|(key, entry)| {
            key.starts_with(&prefix)
                && entry.get("trusted_hash").and_then(toml_edit::Item::as_str) == Some(hash)
        })
        .map(|(key, _)| key.to_owned())
        .collect();
    if ours.is_empty() {
        return Ok(None);
    }
    for key in &ours {
        state.remove(key);
    }
    if state.is_empty() {
        let hooks = doc["hooks"].as_table_like_mut().expect("checked");
        hooks.remove("state");
        if hooks.is_empty() {
            doc.as_table_mut().remove("hooks");
        }
    }
    Ok(Some(doc.to_string()))
}

/// What `hook install` adds to its report once it recorded the trust in
/// `config` (whose text before was `config_text`): what else keeps Codex
/// from running the hook, and where to trust it by hand.
pub fn install_notes(config: &Path, config_text: &str, scope: Scope, cwd: &Path) -> Vec<String> {
    let mut steps = Vec::new();
    if hooks_disabled(config_text) {
        steps.push(format!(
            "hooks are turned off in {}: remove `codex_hooks = false` (or `hooks = false`) under [features]",
            config.display()
        ));
    }
    if scope == Scope::Project && !project_trusted(config_text, cwd) {
        steps.push(format!(
            "Codex reads a project's .codex/ only in a trusted project: trust {} when Codex asks, \
             or add [projects.\"{}\"] trust_level = \"trusted\" to {}",
            cwd.display(),
            cwd.display(),
            config.display()
        ));
    }
    steps.push(
        "if Codex still lists the hook as untrusted (`/hooks` in Codex), trust it there once"
            .to_owned(),
    );
    steps
}

/// Whether Codex's config turns hooks off (`[features] codex_hooks = false`
/// or `hooks = false`).
pub fn hooks_disabled(text: &str) -> bool {
    let Ok(doc) = text.parse::<toml_edit::DocumentMut>() else {
        return false;
    };
    ["codex_hooks", "hooks"].iter().any(|name| {
        doc.get("features")
            .and_then(|f| f.get(name))
            .and_then(toml_edit::Item::as_bool)
            == Some(false)
    })
}

/// Whether Codex's config trusts the project at `dir`.
pub fn project_trusted(text: &str, dir: &Path) -> bool {
    let Ok(doc) = text.parse::<toml_edit::DocumentMut>() else {
        return false;
    };
    doc.get("projects")
        .and_then(|p| p.get(dir.to_string_lossy().as_ref()))
        .and_then(|p| p.get("trust_level"))
        .and_then(toml_edit::Item::as_str)
        == Some("trusted")
}

/// Its home (`$CODEX_HOME`, else `~/.codex`: `config.toml` and the
/// `sessions/` store).
fn detect_dirs(env: &InstallEnv<'_>) -> Vec<std::path::PathBuf> {
    env.dir_of("CODEX_HOME", ".codex").into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trust_hash_is_the_one_codex_reports() {
        // Key and hash as `codex app-server` (0.169.0) listed them in
        // `hooks/list` for a user hooks.json holding this one command.
        assert_eq!(
            trust_hash("/tmp/hx/blk.sh"),
            "sha256:84c721844180b3666a6401f8b940d751ed2fee26d0713d71a4fe73742402c08f"
        );
        // A handler with a raised context limit and its own timeout.
        let raised = json!({
            "type": "command",
            "command": "/x/session-ref hook codex --budget 40000",
            "additionalContextLimit": 10000,
            "timeout": 30,
        });
        assert_eq!(
            trust_hash_of(&raised),
            "sha256:9aab0df09f90888bd4e9104aba3acd2d63c08f8587a1965246473431514eb5a0"
        );
        assert_eq!(
            trust_key(Path::new("/h/.codex/hooks.json"), (0, 0)),
            "/h/.codex/hooks.json:user_prompt_submit:0:0"
        );
    }

    #[test]
    fn a_budget_raises_the_context_limit() {
        assert_eq!(
            handler("/b/session-ref hook codex --budget 40001", Some(40_001)),
            json!({"type": "command", "command": "/b/session-ref hook codex --budget 40001", "additionalContextLimit": 10_001})
        );
        assert_eq!(
            handler("x", None),
            json!({"type": "command", "command": "x"})
        );
    }
}
