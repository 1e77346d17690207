//! `hook install` / `hook uninstall`: registering the hook in an agent's
//! settings without disturbing anything else there.
//!
//! Claude Code, Qwen Code (`UserPromptSubmit`) and Gemini CLI
//! (`BeforeAgent`) read hooks from `settings.json`; Copilot CLI from files
//! of its `hooks/` folder, where install writes one of its own; Codex from
//! `hooks.json` and
//! runs one only when `config.toml` records its trust hash under
//! `[hooks.state."<hooks.json>:user_prompt_submit:<group>:<handler>"]`.
//! The hash is SHA-256 over the handler in Codex's normalized form (sorted
//! keys, compact JSON), checked against what Codex 0.169.0's app-server
//! reports in `hooks/list`. The edits are pure functions of the files' text
//! (tested on fixtures), made in place so that every other byte (comments
//! too) is kept; [`crate::settings_file`] does the file work under a lock:
//! every file is parsed before any is written, a malformed one is refused
//! and left untouched, each changed file is first copied to a backup, then
//! replaced atomically.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

pub use crate::config::Scope;
use crate::error::{Error, Result};
use crate::hook::protocol::Agent;
pub use crate::settings_file::{apply, read, Write};
use crate::settings_file::{malformed, JsonDoc, Step};

/// The files one installation touches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Targets {
    /// Claude's `settings.json`, or Codex's `hooks.json`.
    pub hooks_file: PathBuf,
    /// Codex's user `config.toml` (trust); `None` for Claude.
    pub codex_config: Option<PathBuf>,
}

impl Targets {
    /// The files for `agent` and `scope`, from an environment lookup, the
    /// home directory and the current directory.
    pub fn locate(
        agent: Agent,
        scope: Scope,
        env: impl Fn(&str) -> Option<String>,
        home: Option<&Path>,
        cwd: &Path,
    ) -> Result<Targets> {
        let dir_of = |var: &str, fallback: &str| -> Result<PathBuf> {
            match env(var).filter(|v| !v.is_empty()) {
                Some(dir) => Ok(cwd.join(dir)),
                None => home.map(|h| h.join(fallback)).ok_or_else(|| {
                    Error::invalid_config(format!("neither ${var} nor $HOME is set"))
                }),
            }
        };
        Ok(match (agent, scope) {
            (Agent::Claude, Scope::User) => Targets {
                hooks_file: dir_of("CLAUDE_CONFIG_DIR", ".claude")?.join("settings.json"),
                codex_config: None,
            },
            (Agent::Claude, Scope::Project) => Targets {
                hooks_file: cwd.join(".claude").join("settings.json"),
                codex_config: None,
            },
            (Agent::Gemini, Scope::User) => Targets {
                hooks_file: match env("GEMINI_CLI_HOME").filter(|v| !v.is_empty()) {
                    Some(dir) => cwd.join(dir).join(".gemini"),
                    None => dir_of("GEMINI_CLI_HOME", ".gemini")?,
                }
                .join("settings.json"),
                codex_config: None,
            },
            (Agent::Gemini, Scope::Project) => Targets {
                hooks_file: cwd.join(".gemini").join("settings.json"),
                codex_config: None,
            },
            (Agent::Qwen, Scope::User) => Targets {
                hooks_file: dir_of("QWEN_HOME", ".qwen")?.join("settings.json"),
                codex_config: None,
            },
            (Agent::Qwen, Scope::Project) => Targets {
                hooks_file: cwd.join(".qwen").join("settings.json"),
                codex_config: None,
            },
            (Agent::Copilot, scope) => Targets {
                hooks_file: match scope {
                    Scope::User => dir_of("COPILOT_HOME", ".copilot")?.join("hooks"),
                    Scope::Project => cwd.join(".github").join("hooks"),
                }
                .join(COPILOT_HOOK_FILE),
                codex_config: None,
            },
            (Agent::Codex, scope) => {
                let codex_home = dir_of("CODEX_HOME", ".codex")?;
                let hooks_dir = match scope {
                    Scope::User => codex_home.clone(),
                    Scope::Project => cwd.join(".codex"),
                };
                Targets {
                    hooks_file: hooks_dir.join("hooks.json"),
                    codex_config: Some(codex_home.join("config.toml")),
                }
            }
        })
    }
}

/// The shell command an agent runs: `session-ref`'s own path (quoted for
/// `sh` when it needs to be), `hook AGENT`, `--budget N` when given, and
/// the store flags given to install (`store_args`, each word quoted).
pub fn hook_command(
    exe: &Path,
    agent: Agent,
    budget: Option<usize>,
    store_args: &[String],
) -> String {
    let mut command = format!(
        "{} hook {}",
        shell_quote(&exe.to_string_lossy()),
        agent.as_str()
    );
    if let Some(budget) = budget {
        command.push_str(&format!(" --budget {budget}"));
    }
    for word in store_args {
        command.push(' ');
        command.push_str(&shell_quote(word));
    }
    command
}

/// The file of its own install writes into Copilot CLI's `hooks/` folder.
pub const COPILOT_HOOK_FILE: &str = "session-ref.json";

/// The handler install writes. With a budget, a Codex handler also raises
/// Codex's cap, `additionalContextLimit`, counted in tokens of 4 bytes.
/// Gemini CLI's is named (its `/hooks` list shows the name); Copilot CLI's
/// runs `bash` and has its own timeout field.
pub fn desired_handler(
    exe: &Path,
    agent: Agent,
    budget: Option<usize>,
    store_args: &[String],
) -> Value {
    let command = hook_command(exe, agent, budget, store_args);
    let mut handler = handler(&command);
    match (agent, budget) {
        (Agent::Codex, Some(budget)) => {
            handler["additionalContextLimit"] = budget.div_ceil(4).into();
        }
        (Agent::Gemini, _) => handler["name"] = "session-ref".into(),
        (Agent::Copilot, _) => {
            handler = json!({"type": "command", "bash": command, "timeoutSec": 30});
        }
        _ => {}
    }
    handler
}

/// Copilot CLI's hooks file holding `handler` alone.
pub fn copilot_hooks_file(handler: &Value) -> String {
    let value = json!({"version": 1, "hooks": {Agent::Copilot.event(): [handler]}});
    let mut text = serde_json::to_string_pretty(&value).expect("JSON serializes");
    text.push('\n');
    text
}

fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+,:@%=".contains(&b));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Whether a handler is one session-ref installed for `agent`: a command
/// hook running a program named `session-ref` with `hook AGENT`.
pub fn is_ours(handler: &Value, agent: Agent) -> bool {
    if handler.get("type").and_then(Value::as_str) != Some("command") {
        return false;
    }
    let command = handler.get("command").or_else(|| handler.get("bash"));
    let Some(command) = command.and_then(Value::as_str) else {
        return false;
    };
    // `PROGRAM hook AGENT`, then nothing or options (whose quoted values
    // may hold the same words: any place that fits will do).
    let needle = format!(" hook {}", agent.as_str());
    command.match_indices(needle.as_str()).any(|(at, _)| {
        let rest = &command[at + needle.len()..];
        let program = command[..at].trim().trim_matches('\'');
        (rest.trim().is_empty() || rest.starts_with(" -"))
            && Path::new(program).file_name().and_then(|n| n.to_str()) == Some("session-ref")
    })
}

/// The handler object install writes.
fn handler(command: &str) -> Value {
    json!({"type": "command", "command": command})
}

/// The snippet `--print` shows and install merges.
pub fn snippet(agent: Agent, handler: &Value) -> Value {
    if agent == Agent::Copilot {
        return json!({"version": 1, "hooks": {agent.event(): [handler]}});
    }
    json!({"hooks": {agent.event(): [{"hooks": [handler]}]}})
}

/// The position of a handler: group index, handler index.
pub type Position = (usize, usize);

/// A settings file after an edit: its new text (`None` when unchanged).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edited {
    /// The new text, or `None` when nothing changes.
    pub text: Option<String>,
    /// Where our handler is, after the edit (install only).
    pub position: Option<Position>,
}

/// Parse a JSON settings text (absent or blank = `{}`, comments allowed),
/// refusing anything but an object whose `hooks` and `hooks.EVENT` have the
/// expected shapes.
fn parse_settings(
    path: &Path,
    text: Option<&str>,
    event: &str,
) -> Result<(JsonDoc, Map<String, Value>)> {
    let doc = JsonDoc::new(path, text)?;
    let Value::Object(root) = doc.value() else {
        return Err(malformed(path, "the top level is not an object"));
    };
    if let Some(hooks) = root.get("hooks") {
        let Some(hooks) = hooks.as_object() else {
            return Err(malformed(path, "\"hooks\" is not an object"));
        };
        if let Some(groups) = hooks.get(event) {
            let Some(groups) = groups.as_array() else {
                return Err(malformed(
                    path,
                    format!("\"hooks.{event}\" is not an array"),
                ));
            };
            for group in groups {
                if !group.get("hooks").is_none_or(Value::is_array) {
                    return Err(malformed(
                        path,
                        format!("a \"hooks.{event}\" group's \"hooks\" is not an array"),
                    ));
                }
            }
        }
    }
    Ok((doc, root))
}

/// Find our handler in parsed settings.
fn find_ours(root: &Map<String, Value>, agent: Agent) -> Option<Position> {
    let groups = root.get("hooks")?.get(agent.event())?.as_array()?;
    groups.iter().enumerate().find_map(|(g, group)| {
        let handlers = group.get("hooks")?.as_array()?;
        handlers
            .iter()
            .position(|h| is_ours(h, agent))
            .map(|h| (g, h))
    })
}

/// Add `desired` to a settings text. One of ours already there is kept when
/// it is the same, else replaced in place; the rest of the text is kept.
pub fn merge(path: &Path, text: Option<&str>, agent: Agent, desired: &Value) -> Result<Edited> {
    let (mut doc, root) = parse_settings(path, text, agent.event())?;
    let event = agent.event();
    if let Some((g, h)) = find_ours(&root, agent) {
        if root["hooks"][event][g]["hooks"][h] == *desired {
            return Ok(Edited {
                text: None,
                position: Some((g, h)),
            });
        }
        let at = [
            Step::Key("hooks"),
            Step::Key(event),
            Step::Index(g),
            Step::Key("hooks"),
            Step::Index(h),
        ];
        doc.replace(&at, desired);
        return Ok(Edited {
            text: Some(doc.text().to_owned()),
            position: Some((g, h)),
        });
    }
    let groups = root
        .get("hooks")
        .and_then(|h| h.get(event))
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    doc.push(
        &[Step::Key("hooks"), Step::Key(event)],
        &json!({"hooks": [desired]}),
    );
    Ok(Edited {
        text: Some(doc.text().to_owned()),
        position: Some((groups, 0)),
    })
}

/// Remove our handlers from a settings text, and the groups, event list and
/// `hooks` object that this leaves empty; the rest of the text is kept.
pub fn remove(path: &Path, text: &str, agent: Agent) -> Result<Edited> {
    let (mut doc, root) = parse_settings(path, Some(text), agent.event())?;
    if find_ours(&root, agent).is_none() {
        return Ok(Edited {
            text: None,
            position: None,
        });
    }
    let event = agent.event();
    let groups = root["hooks"][event].as_array().cloned().unwrap_or_default();
    for (g, group) in groups.iter().enumerate().rev() {
        let Some(handlers) = group.get("hooks").and_then(Value::as_array) else {
            continue;
        };
        let ours: Vec<usize> = (0..handlers.len())
            .filter(|&h| is_ours(&handlers[h], agent))
            .collect();
        if ours.is_empty() {
            continue;
        }
        let only_hooks = group
            .as_object()
            .is_some_and(|g| g.keys().all(|k| k == "hooks" || k == "matcher"));
        let group_at = [Step::Key("hooks"), Step::Key(event), Step::Index(g)];
        if ours.len() == handlers.len() && only_hooks {
            doc.delete(&group_at);
            continue;
        }
        for h in ours.into_iter().rev() {
            doc.delete(&[&group_at[..], &[Step::Key("hooks"), Step::Index(h)]].concat());
        }
    }
    let now = doc.value();
    if now["hooks"][event].as_array().is_some_and(Vec::is_empty) {
        doc.delete(&[Step::Key("hooks"), Step::Key(event)]);
    }
    if doc.value()["hooks"].as_object().is_some_and(Map::is_empty) {
        doc.delete(&[Step::Key("hooks")]);
    }
    Ok(Edited {
        text: Some(doc.text().to_owned()),
        position: None,
    })
}

/// The trust hash Codex computes for a `UserPromptSubmit` handler that runs
/// `command` with no other settings (timeout 600 s, not async).
pub fn codex_trust_hash(command: &str) -> String {
    codex_trust_hash_of(&handler(command))
}

/// The trust hash Codex computes for a `UserPromptSubmit` handler object:
/// SHA-256 of its normalized form (defaults filled in, keys sorted, compact).
pub fn codex_trust_hash_of(handler: &Value) -> String {
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

/// The key of a hook's entry in Codex's `[hooks.state]`.
pub fn codex_trust_key(hooks_file: &Path, (group, handler): Position) -> String {
    format!(
        "{}:user_prompt_submit:{group}:{handler}",
        hooks_file.display()
    )
}

fn parse_toml(path: &Path, text: Option<&str>) -> Result<toml_edit::DocumentMut> {
    text.unwrap_or("")
        .parse::<toml_edit::DocumentMut>()
        .map_err(|e| malformed(path, e.to_string().trim_end()))
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

/// Record `hash` as trusted for `key` in a `config.toml` text.
pub fn trust(path: &Path, text: Option<&str>, key: &str, hash: &str) -> Result<Edited> {
    let mut doc = parse_toml(path, text)?;
    let state = trust_table(path, &mut doc, true)?.expect("created");
    let current = state
        .get(key)
        .and_then(|entry| entry.get("trusted_hash"))
        .and_then(toml_edit::Item::as_str);
    if current == Some(hash) {
        return Ok(Edited {
            text: None,
            position: None,
        });
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
    Ok(Edited {
        text: Some(doc.to_string()),
        position: None,
    })
}

/// Remove the trust entries of `hooks_file`'s prompt-submit hooks whose
/// hash is `hash` (the ones install recorded), and the tables left empty.
pub fn untrust(path: &Path, text: &str, hooks_file: &Path, hash: &str) -> Result<Edited> {
    let mut doc = parse_toml(path, Some(text))?;
    let prefix = format!("{}:user_prompt_submit:", hooks_file.display());
    let Some(state) = trust_table(path, &mut doc, false)? else {
        return Ok(Edited {
            text: None,
            position: None,
        });
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
        return Ok(Edited {
            text: None,
            position: None,
        });
    }
    for key in &ours {
        state.remove(key);
    }
    let state_empty = state.is_empty();
    if state_empty {
        let hooks = doc["hooks"].as_table_like_mut().expect("checked");
        hooks.remove("state");
        if hooks.is_empty() {
            doc.as_table_mut().remove("hooks");
        }
    }
    Ok(Edited {
        text: Some(doc.to_string()),
        position: None,
    })
}

/// Whether Codex's config turns hooks off (`[features] codex_hooks = false`
/// or `hooks = false`).
pub fn codex_hooks_disabled(text: &str) -> bool {
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
pub fn codex_project_trusted(text: &str, dir: &Path) -> bool {
    let Ok(doc) = text.parse::<toml_edit::DocumentMut>() else {
        return false;
    };
    doc.get("projects")
        .and_then(|p| p.get(dir.to_string_lossy().as_ref()))
        .and_then(|p| p.get("trust_level"))
        .and_then(toml_edit::Item::as_str)
        == Some("trusted")
}

#[cfg(test)]
mod tests {
    use super::*;

    const CMD: &str = "/opt/bin/session-ref hook claude";

    #[test]
    fn the_trust_hash_is_the_one_codex_reports() {
        // Key and hash as `codex app-server` (0.169.0) listed them in
        // `hooks/list` for a user hooks.json holding this one command.
        assert_eq!(
            codex_trust_hash("/tmp/hx/blk.sh"),
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
            codex_trust_hash_of(&raised),
            "sha256:9aab0df09f90888bd4e9104aba3acd2d63c08f8587a1965246473431514eb5a0"
        );
        assert_eq!(
            codex_trust_key(Path::new("/h/.codex/hooks.json"), (0, 0)),
            "/h/.codex/hooks.json:user_prompt_submit:0:0"
        );
    }

    #[test]
    fn commands_are_quoted_for_sh_when_needed() {
        assert_eq!(
            hook_command(Path::new("/usr/bin/session-ref"), Agent::Codex, None, &[]),
            "/usr/bin/session-ref hook codex"
        );
        assert_eq!(
            desired_handler(Path::new("/b/session-ref"), Agent::Codex, Some(40_001), &[]),
            json!({"type": "command", "command": "/b/session-ref hook codex --budget 40001", "additionalContextLimit": 10_001})
        );
        assert_eq!(
            desired_handler(Path::new("/b/session-ref"), Agent::Claude, Some(5_000), &[]),
            json!({"type": "command", "command": "/b/session-ref hook claude --budget 5000"})
        );
        assert_eq!(
            hook_command(
                Path::new("/My Apps/it's/session-ref"),
                Agent::Claude,
                None,
                &[]
            ),
            r"'/My Apps/it'\''s/session-ref' hook claude"
        );
    }

    #[test]
    fn ours_is_recognized_by_program_and_agent() {
        let h = |c: &str| handler(c);
        assert!(is_ours(&h(CMD), Agent::Claude));
        assert!(is_ours(&h("session-ref hook claude"), Agent::Claude));
        assert!(is_ours(&h("'/a b/session-ref' hook claude"), Agent::Claude));
        assert!(is_ours(
            &h("session-ref hook claude --budget 900"),
            Agent::Claude
        ));
        assert!(!is_ours(&h("session-ref hook claudette"), Agent::Claude));
        assert!(!is_ours(&h(CMD), Agent::Codex));
        assert!(!is_ours(&h("/bin/other hook claude"), Agent::Claude));
        assert!(!is_ours(
            &json!({"type": "prompt", "command": CMD}),
            Agent::Claude
        ));
    }
}
