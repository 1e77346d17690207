//! `mcp install|uninstall AGENT [--project]`: register `session-ref mcp`
//! exactly where and as each agent's own `mcp add` writes it, checked by
//! running each `mcp add` into a scratch home and comparing. Where and how
//! is each agent's ([`crate::agents::Mcp`]); this module does the rest:
//!
//! | agent | file (user / `--project`) | entry |
//! |---|---|---|
//! | Claude Code 2.1.332 (`claude mcp add --scope user`) | `~/.claude.json` (`$CLAUDE_CONFIG_DIR/.claude.json`) / `./.mcp.json` | `mcpServers.session-ref {type:"stdio", command, args, env:{}}` |
//! | Codex CLI 0.171.0 | `$CODEX_HOME/config.toml` / `./.codex/config.toml` | `[mcp_servers.session-ref] command, args` |
//! | Gemini CLI 0.61.0 (`--trust`) | `~/.gemini/settings.json` / `./.gemini/settings.json` | `mcpServers.session-ref {command, args, trust:true}` |
//! | Qwen Code 0.24.4 (`--trust`) | `~/.qwen/settings.json` / `./.qwen/settings.json` | the same |
//! | Copilot CLI 1.0.102 | `~/.copilot/mcp-config.json` / `./.mcp.json` | `mcpServers.session-ref {tools:["*"], type:"local", command, args}` |
//! | opencode 1.18.33 | `~/.config/opencode/opencode.json` / `./opencode.json` | `mcp.session-ref {type:"local", command:[…]}` |
//! | Antigravity CLI 1.x (closed source: public configurers) | `~/.gemini/antigravity-cli/mcp_config.json` / — | `mcpServers.session-ref {command, args}` |
//! | Cursor CLI 2026.07 (its docs) | `~/.cursor/mcp.json` (`$CURSOR_CONFIG_DIR`) / `./.cursor/mcp.json` | `mcpServers.session-ref {command, args}` |
//! | Cline CLI 3.0.65 (`cline mcp add`) | `~/.cline/data/settings/cline_mcp_settings.json` / — | `mcpServers.session-ref {transport:{type:"stdio", command, args}}` |
//! | Mistral Vibe (its `config.py` models, 2.18.4; the 3.0.2 layout) | `$VIBE_HOME/config.toml` (`~/.vibe`) / `./.vibe/config.toml` | `[[mcp_servers]] name, transport:"stdio", command, args` |
//! | Continue CLI 1.5.47 (its config schema) | `$CONTINUE_GLOBAL_DIR/config.yaml` (`~/.continue`, which must exist) / — | `mcpServers: - {name, command, args}` (YAML) |
//! | Goose (its `ExtensionEntry`) | `$GOOSE_PATH_ROOT/config/config.yaml`, else `~/.config/goose/config.yaml` / — | `extensions: session-ref: {enabled, type:stdio, name, cmd, args, timeout}` (YAML) |
//!
//! The tools are read-only; where an agent would still ask before running
//! them, install pre-approves them: Claude Code's `permissions.allow` gets
//! `mcp__session-ref` (in `settings.json` of the same scope), Gemini CLI
//! and Qwen Code get `trust: true`. Codex runs tools annotated
//! `readOnlyHint` unasked; Copilot's `tools: ["*"]` enables them all.
//!
//! Files are locked, read and checked before any is written, backed up,
//! edited in place (every other byte, comments included, kept) and replaced
//! atomically (through [`crate::settings_file`]); an entry named
//! `session-ref` that runs another program is left alone with an error.
//! Uninstall removes our entry and our permission only.

mod entry;
pub mod lists;

use std::path::Path;

use serde_json::{json, Map, Value};

pub use crate::agents::McpPlace as Place;
use crate::agents::{Agent, InstallEnv, McpFormat, Scope};
pub use crate::config::McpRequest;
use crate::error::{Error, Result};
use crate::settings_file::yaml::Block;
use crate::settings_file::{
    self, apply, json_object, malformed, parse_toml, read, Installed, Step, Write,
};
pub use entry::{is_ours, Change, NAME};
use entry::{program_of, taken};
use lists::{add_toml_list, add_yaml, remove_toml_list, remove_yaml, toml_list_entry};

/// Claude Code's permission rule for every tool of the server.
pub const CLAUDE_PERMISSION: &str = "mcp__session-ref";

/// The files of `agent` and `scope`.
pub fn locate(agent: Agent, scope: Scope, env: &InstallEnv<'_>) -> Result<Place> {
    if let (Scope::Project, Some(why)) = (scope, agent.mcp().user_only) {
        return Err(Error::invalid_config(format!("{why}: drop --project")));
    }
    (agent.mcp().place)(scope, env)
}

/// The server's arguments: `mcp`, the budget when one was given, and the
/// store flags given to install.
pub fn server_args(budget: Option<usize>, store_args: &[String]) -> Vec<String> {
    let mut args = vec!["mcp".to_owned()];
    if let Some(budget) = budget {
        args.push("--max-reference-bytes".to_owned());
        args.push(budget.to_string());
    }
    args.extend(store_args.iter().cloned());
    args
}

/// The JSON (or YAML) entry `agent`'s `mcp add` writes for `exe` with
/// `args` (`None` for an agent whose configuration is TOML).
pub fn entry(agent: Agent, exe: &str, args: &[String]) -> Option<Value> {
    match agent.mcp().format {
        McpFormat::Json { entry, .. } | McpFormat::Yaml { entry, .. } => Some(entry(exe, args)),
        McpFormat::Toml | McpFormat::TomlList { .. } => None,
    }
}

/// The YAML block of `agent`'s servers in `file` (`None`: not YAML).
fn yaml_block(agent: Agent, file: &Path) -> Option<Block<'_>> {
    match agent.mcp().format {
        McpFormat::Yaml { key, shape, .. } => Some(Block {
            path: file,
            key,
            shape,
            name: NAME,
        }),
        _ => None,
    }
}

/// The refusal to create `file` for an agent that must have it already
/// ([`McpFormat::Yaml`]'s `needs_file`).
fn needs_file(agent: Agent, file: &Path) -> Result<()> {
    match agent.mcp().format {
        McpFormat::Yaml {
            needs_file: Some(why),
            ..
        } => Err(Error::invalid_config(format!(
            "{} does not exist: {why}",
            file.display()
        ))),
        _ => Ok(()),
    }
}

/// Where `agent`'s MCP servers live in the settings of `scope`, and the
/// program of our entry there (`None`: not registered). For `doctor`.
pub fn installed(
    agent: Agent,
    scope: Scope,
    env: &InstallEnv<'_>,
) -> Result<(std::path::PathBuf, Option<String>)> {
    let file = locate(agent, scope, env)?.file;
    let Some(text) = read(&file)? else {
        return Ok((file, None));
    };
    let entry = match agent.mcp().format {
        McpFormat::Toml => {
            let doc = parse_toml(&file, Some(&text))?;
            let command = doc
                .get("mcp_servers")
                .and_then(|s| s.get(NAME))
                .and_then(|e| e.get("command"))
                .and_then(toml_edit::Item::as_str)
                .map(str::to_owned);
            command.map(|c| json!({ "command": c }))
        }
        McpFormat::Json { key, .. } => settings_file::parse_json(&file, &text)?[key]
            .get(NAME)
            .cloned(),
        McpFormat::TomlList { .. } => toml_list_entry(&file, &text)?,
        McpFormat::Yaml { .. } => yaml_block(agent, &file).expect("YAML").entry(&text)?,
    };
    let program = entry
        .filter(is_ours)
        .and_then(|e| program_of(&e).map(str::to_owned));
    Ok((file, program))
}

/// Put `desired` under `root[key][NAME]` of a JSON settings text; an
/// empty one starts with `schema` as its `$schema` when given.
pub fn add_json(
    path: &Path,
    text: Option<&str>,
    (key, schema): (&str, Option<&str>),
    desired: &Value,
) -> Result<Change> {
    let (mut doc, root) = json_object(path, text)?;
    if let Some(schema) = schema.filter(|_| root.is_empty()) {
        doc.set(&[], "$schema", &schema.into());
    }
    let empty = Map::new();
    let servers = match root.get(key) {
        None => &empty,
        Some(servers) => servers
            .as_object()
            .ok_or_else(|| malformed(path, format!("\"{key}\" is not an object")))?,
    };
    match servers.get(NAME) {
        Some(current) if current == desired => return Ok(Change::Unchanged),
        Some(current) if !is_ours(current) => {
            return Err(taken(path, current.get("command").unwrap_or(&Value::Null)))
        }
        _ => {}
    }
    doc.set(&[Step::Key(key)], NAME, desired);
    Ok(Change::Changed(doc.text().to_owned()))
}

/// Remove our `root[key][NAME]` (and `root[key]` when that empties it).
pub fn remove_json(path: &Path, text: &str, key: &str) -> Result<Change> {
    let (mut doc, root) = json_object(path, Some(text))?;
    let Some(servers) = root.get(key).and_then(Value::as_object) else {
        return Ok(Change::Unchanged);
    };
    if !servers.get(NAME).is_some_and(is_ours) {
        return Ok(Change::Unchanged);
    }
    if servers.len() == 1 {
        doc.delete(&[Step::Key(key)]);
    } else {
        doc.delete(&[Step::Key(key), Step::Key(NAME)]);
    }
    Ok(Change::Changed(doc.text().to_owned()))
}

/// Add `rule` to `permissions.allow` of a Claude Code settings text.
pub fn allow(path: &Path, text: Option<&str>, rule: &str) -> Result<Change> {
    let (mut doc, root) = json_object(path, text)?;
    if let Some(permissions) = root.get("permissions") {
        let permissions = permissions
            .as_object()
            .ok_or_else(|| malformed(path, "\"permissions\" is not an object"))?;
        if let Some(allowed) = permissions.get("allow") {
            let allowed = allowed
                .as_array()
                .ok_or_else(|| malformed(path, "\"permissions.allow\" is not an array"))?;
            if allowed.iter().any(|r| r.as_str() == Some(rule)) {
                return Ok(Change::Unchanged);
            }
        }
    }
    doc.push(
        &[Step::Key("permissions"), Step::Key("allow")],
        &rule.into(),
    );
    Ok(Change::Changed(doc.text().to_owned()))
}

/// Remove `rule` from `permissions.allow` (and what that leaves empty).
pub fn disallow(path: &Path, text: &str, rule: &str) -> Result<Change> {
    let (mut doc, root) = json_object(path, Some(text))?;
    let Some(permissions) = root.get("permissions").and_then(Value::as_object) else {
        return Ok(Change::Unchanged);
    };
    let Some(allowed) = permissions.get("allow").and_then(Value::as_array) else {
        return Ok(Change::Unchanged);
    };
    let ours: Vec<usize> = (0..allowed.len())
        .filter(|&i| allowed[i].as_str() == Some(rule))
        .collect();
    if ours.is_empty() {
        return Ok(Change::Unchanged);
    }
    if ours.len() == allowed.len() && permissions.len() == 1 {
        doc.delete(&[Step::Key("permissions")]);
    } else if ours.len() == allowed.len() {
        doc.delete(&[Step::Key("permissions"), Step::Key("allow")]);
    } else {
        for i in ours.into_iter().rev() {
            doc.delete(&[Step::Key("permissions"), Step::Key("allow"), Step::Index(i)]);
        }
    }
    Ok(Change::Changed(doc.text().to_owned()))
}

/// `[mcp_servers.session-ref]` of a Codex `config.toml`, edited in place
/// (comments and layout kept).
pub fn add_toml(path: &Path, text: Option<&str>, exe: &str, args: &[String]) -> Result<Change> {
    let mut doc = parse_toml(path, text)?;
    let root = doc.as_table_mut();
    if !root.contains_key("mcp_servers") {
        let mut servers = toml_edit::Table::new();
        servers.set_implicit(true);
        root.insert("mcp_servers", toml_edit::Item::Table(servers));
    }
    let servers = root["mcp_servers"]
        .as_table_like_mut()
        .ok_or_else(|| malformed(path, "\"mcp_servers\" is not a table"))?;
    let wanted_args: toml_edit::Array = args.iter().map(String::as_str).collect();
    if let Some(current) = servers.get(NAME) {
        let command = current.get("command").and_then(toml_edit::Item::as_str);
        let current_args: Option<Vec<&str>> = current
            .get("args")
            .and_then(toml_edit::Item::as_array)
            .map(|a| a.iter().filter_map(toml_edit::Value::as_str).collect());
        if command == Some(exe)
            && current_args.as_deref()
                == Some(&args.iter().map(String::as_str).collect::<Vec<_>>()[..])
        {
            return Ok(Change::Unchanged);
        }
        if !command.is_some_and(|c| is_ours(&json!({"command": c}))) {
            return Err(taken(path, command.unwrap_or("no command")));
        }
        let entry = servers
            .get_mut(NAME)
            .and_then(toml_edit::Item::as_table_like_mut)
            .ok_or_else(|| malformed(path, "\"mcp_servers.session-ref\" is not a table"))?;
        entry.insert("command", toml_edit::value(exe));
        entry.insert("args", toml_edit::value(wanted_args));
    } else {
        let mut entry = toml_edit::Table::new();
        entry.insert("command", toml_edit::value(exe));
        entry.insert("args", toml_edit::value(wanted_args));
        servers.insert(NAME, toml_edit::Item::Table(entry));
    }
    Ok(Change::Changed(doc.to_string()))
}

/// Remove our `[mcp_servers.session-ref]` (and an emptied `mcp_servers`).
pub fn remove_toml(path: &Path, text: &str) -> Result<Change> {
    let mut doc = parse_toml(path, Some(text))?;
    let Some(servers) = doc
        .get_mut("mcp_servers")
        .and_then(toml_edit::Item::as_table_like_mut)
    else {
        return Ok(Change::Unchanged);
    };
    let ours = servers
        .get(NAME)
        .and_then(|e| e.get("command"))
        .and_then(toml_edit::Item::as_str)
        .is_some_and(|c| is_ours(&json!({"command": c})));
    if !ours {
        return Ok(Change::Unchanged);
    }
    servers.remove(NAME);
    if servers.is_empty() {
        doc.as_table_mut().remove("mcp_servers");
    }
    Ok(Change::Changed(doc.to_string()))
}

/// `mcp install`: the report for stdout.
pub fn install(request: McpRequest, env: &InstallEnv<'_>) -> Result<String> {
    edit(request, env, true).map(|installed| installed.report)
}

/// `mcp install`'s edit of the files, written when `commit` (else what it
/// would write, read under the same lock and checks; no directory made).
pub fn edit(request: McpRequest, env: &InstallEnv<'_>, commit: bool) -> Result<Installed> {
    let agent = request.agent;
    let place = locate(agent, request.scope, env)?;
    let exe = env.exe.to_string_lossy().into_owned();
    let args = server_args(request.budget, &request.store_args);
    if std::fs::symlink_metadata(&place.file).is_err() {
        // Before the lock, which would make the file's directory.
        needs_file(agent, &place.file)?;
    }
    let mut files = vec![place.file.as_path()];
    files.extend(place.permissions.as_deref());
    // Held until every file is written: a concurrent install reads ours.
    let _lock = settings_file::lock(&files, commit)?;
    let before = read(&place.file)?;
    let change = match agent.mcp().format {
        McpFormat::Toml => add_toml(&place.file, before.as_deref(), &exe, &args)?,
        McpFormat::Json { key, entry, schema } => add_json(
            &place.file,
            before.as_deref(),
            (key, schema),
            &entry(&exe, &args),
        )?,
        McpFormat::TomlList { entry } => {
            add_toml_list(&place.file, before.as_deref(), entry(&exe, &args))?
        }
        McpFormat::Yaml { entry, .. } => {
            if before.is_none() {
                needs_file(agent, &place.file)?;
            }
            let block = yaml_block(agent, &place.file).expect("YAML");
            add_yaml(&block, before.as_deref(), &entry(&exe, &args))?
        }
    };
    let mut writes = Vec::new();
    let mut report = String::new();
    match change {
        Change::Changed(after) => {
            report.push_str(&format!(
                "registered the MCP server {NAME} ({exe} {}) in {}\n",
                args.join(" "),
                place.file.display()
            ));
            writes.push(Write {
                path: place.file.clone(),
                before,
                after,
            });
        }
        Change::Unchanged => report.push_str(&format!(
            "{} already registers the MCP server {NAME}; left unchanged\n",
            place.file.display()
        )),
    }
    if let Some(settings) = &place.permissions {
        let before = read(settings)?;
        match allow(settings, before.as_deref(), CLAUDE_PERMISSION)? {
            Change::Changed(after) => {
                report.push_str(&format!(
                    "allowed its read-only tools ({CLAUDE_PERMISSION}) in {}\n",
                    settings.display()
                ));
                writes.push(Write {
                    path: settings.clone(),
                    before,
                    after,
                });
            }
            Change::Unchanged => report.push_str(&format!(
                "{} already allows {CLAUDE_PERMISSION}; left unchanged\n",
                settings.display()
            )),
        }
    }
    let mut installed = Installed::finish(writes, report, commit)?;
    installed
        .report
        .push_str((agent.mcp().notes)(request.scope));
    Ok(installed)
}

/// `mcp uninstall`: the report for stdout.
pub fn uninstall(request: McpRequest, env: &InstallEnv<'_>) -> Result<String> {
    let agent = request.agent;
    let place = locate(agent, request.scope, env)?;
    let mut files = vec![place.file.as_path()];
    files.extend(place.permissions.as_deref());
    let _lock = settings_file::lock(&files, false)?;
    let mut writes = Vec::new();
    let mut report = String::new();
    match read(&place.file)? {
        None => report.push_str(&format!("{} does not exist\n", place.file.display())),
        Some(text) => {
            let change = match agent.mcp().format {
                McpFormat::Toml => remove_toml(&place.file, &text)?,
                McpFormat::Json { key, .. } => remove_json(&place.file, &text, key)?,
                McpFormat::TomlList { .. } => remove_toml_list(&place.file, &text)?,
                McpFormat::Yaml { .. } => {
                    remove_yaml(&yaml_block(agent, &place.file).expect("YAML"), &text)?
                }
            };
            match change {
                Change::Changed(after) => {
                    report.push_str(&format!(
                        "removed the MCP server {NAME} from {}\n",
                        place.file.display()
                    ));
                    writes.push(Write {
                        path: place.file.clone(),
                        before: Some(text),
                        after,
                    });
                }
                Change::Unchanged => report.push_str(&format!(
                    "{} has no session-ref MCP server\n",
                    place.file.display()
                )),
            }
        }
    }
    if let Some(settings) = &place.permissions {
        if let Some(text) = read(settings)? {
            if let Change::Changed(after) = disallow(settings, &text, CLAUDE_PERMISSION)? {
                report.push_str(&format!(
                    "removed {CLAUDE_PERMISSION} from permissions.allow in {}\n",
                    settings.display()
                ));
                writes.push(Write {
                    path: settings.clone(),
                    before: Some(text),
                    after,
                });
            }
        }
    }
    for backup in apply(&writes)? {
        report.push_str(&format!("backup: {}\n", backup.display()));
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXE: &str = "/opt/bin/session-ref";

    fn args() -> Vec<String> {
        server_args(None, &[])
    }

    #[test]
    fn entries_are_what_each_agents_mcp_add_writes() {
        // The files each `mcp add` wrote into a scratch home (see the module docs).
        let claude = "{\n  \"mcpServers\": {\n    \"session-ref\": {\n      \"type\": \"stdio\",\n      \"command\": \"/opt/bin/session-ref\",\n      \"args\": [\n        \"mcp\"\n      ],\n      \"env\": {}\n    }\n  }\n}\n";
        let gemini = "{\n  \"mcpServers\": {\n    \"session-ref\": {\n      \"command\": \"/opt/bin/session-ref\",\n      \"args\": [\n        \"mcp\"\n      ],\n      \"trust\": true\n    }\n  }\n}\n";
        let copilot = "{\n  \"mcpServers\": {\n    \"session-ref\": {\n      \"tools\": [\n        \"*\"\n      ],\n      \"type\": \"local\",\n      \"command\": \"/opt/bin/session-ref\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}\n";
        let opencode = "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"mcp\": {\n    \"session-ref\": {\n      \"type\": \"local\",\n      \"command\": [\n        \"/opt/bin/session-ref\",\n        \"mcp\"\n      ]\n    }\n  }\n}\n";
        for (name, expected) in [
            ("claude", claude),
            ("gemini", gemini),
            ("qwen", gemini),
            ("copilot", copilot),
            ("opencode", opencode),
        ] {
            let agent = Agent::named(name).unwrap();
            let McpFormat::Json { key, schema, .. } = agent.mcp().format else {
                panic!("{name} is not JSON")
            };
            let desired = entry(agent, EXE, &args()).unwrap();
            assert_eq!(
                add_json(Path::new("/x/settings.json"), None, (key, schema), &desired).unwrap(),
                Change::Changed(expected.to_owned()),
                "{agent:?}"
            );
        }
        assert!(entry(Agent::named("codex").unwrap(), EXE, &args()).is_none());
        assert_eq!(
            add_toml(Path::new("/c.toml"), None, EXE, &args()).unwrap(),
            Change::Changed(
                "[mcp_servers.session-ref]\ncommand = \"/opt/bin/session-ref\"\nargs = [\"mcp\"]\n"
                    .to_owned()
            )
        );
    }

    #[test]
    fn install_is_idempotent_keeps_the_rest_and_uninstall_undoes_it() {
        let p = Path::new("/x/settings.json");
        let before = "{\"theme\":\"dark\",\"mcpServers\":{\"other\":{\"command\":\"x\"}}}";
        let desired = entry(Agent::named("gemini").unwrap(), EXE, &args()).unwrap();
        let Change::Changed(after) =
            add_json(p, Some(before), ("mcpServers", None), &desired).unwrap()
        else {
            panic!("unchanged")
        };
        assert_eq!(
            add_json(p, Some(&after), ("mcpServers", None), &desired).unwrap(),
            Change::Unchanged
        );
        let Change::Changed(removed) = remove_json(p, &after, "mcpServers").unwrap() else {
            panic!("not removed")
        };
        let value: Value = serde_json::from_str(&removed).unwrap();
        assert_eq!(value, serde_json::from_str::<Value>(before).unwrap());
        // Someone else's server of that name is refused, and never removed.
        let theirs = "{\"mcpServers\":{\"session-ref\":{\"command\":\"/bin/other\"}}}";
        assert!(add_json(p, Some(theirs), ("mcpServers", None), &desired).is_err());
        assert_eq!(
            remove_json(p, theirs, "mcpServers").unwrap(),
            Change::Unchanged
        );
        // A broken file is refused.
        assert!(add_json(p, Some("{"), ("mcpServers", None), &desired).is_err());
    }

    #[test]
    fn codex_config_is_edited_in_place() {
        let path = Path::new("/c/config.toml");
        let before = "# my settings\nmodel = \"gpt-5.5\" # keep\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n";
        let Change::Changed(after) = add_toml(path, Some(before), EXE, &args()).unwrap() else {
            panic!("unchanged")
        };
        assert!(after.starts_with(before), "{after}");
        assert!(after.contains(
            "[mcp_servers.session-ref]\ncommand = \"/opt/bin/session-ref\"\nargs = [\"mcp\"]\n"
        ));
        assert_eq!(
            add_toml(path, Some(&after), EXE, &args()).unwrap(),
            Change::Unchanged
        );
        assert_eq!(
            remove_toml(path, &after).unwrap(),
            Change::Changed(before.to_owned())
        );
    }

    #[test]
    fn claude_permission_is_added_once_and_removed_alone() {
        let p = Path::new("/s.json");
        let before = "{\"permissions\":{\"allow\":[\"Bash(ls)\"]}}";
        let Change::Changed(after) = allow(p, Some(before), CLAUDE_PERMISSION).unwrap() else {
            panic!("unchanged")
        };
        assert_eq!(
            allow(p, Some(&after), CLAUDE_PERMISSION).unwrap(),
            Change::Unchanged
        );
        let Change::Changed(removed) = disallow(p, &after, CLAUDE_PERMISSION).unwrap() else {
            panic!("not removed")
        };
        assert_eq!(
            serde_json::from_str::<Value>(&removed).unwrap(),
            serde_json::from_str::<Value>(before).unwrap()
        );
        let Change::Changed(only) = allow(p, None, CLAUDE_PERMISSION).unwrap() else {
            panic!("unchanged")
        };
        assert_eq!(
            disallow(p, &only, CLAUDE_PERMISSION).unwrap(),
            Change::Changed("{}\n".into())
        );
    }
}
