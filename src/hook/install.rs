//! `hook install` / `hook uninstall`: registering the hook in an agent's
//! settings without disturbing anything else there.
//!
//! Where each agent keeps its hooks, the handler it takes and how the hook
//! sits in its file are the agent's ([`crate::agents`]); this module does
//! what is the same for all of them. A [`HookLayout::Shared`] file (Claude
//! Code, Codex, Gemini CLI and Qwen Code's settings) gets a group appended
//! to `hooks.EVENT`, edited in place so that every other byte (comments
//! too) is kept; a [`HookLayout::Flat`] file (Cursor's `hooks.json`) gets
//! the handler itself appended to `hooks.EVENT`, edited in place the same
//! way; a [`HookLayout::Own`] file (Copilot CLI's `hooks/`
//! folder) is written whole and removed whole. Codex also runs a hook only
//! once `config.toml` records its trust hash ([`crate::agents::codex`]).
//! The edits are pure functions of the files' text (tested on fixtures);
//! [`crate::settings_file`] does the file work under a lock: every file is
//! parsed before any is written, a malformed one is refused and left
//! untouched, each changed file is first copied to a backup, then replaced
//! atomically.

use std::path::Path;

use serde_json::{json, Map, Value};

pub use crate::agents::codex::{
    hooks_disabled as codex_hooks_disabled, project_trusted as codex_project_trusted,
    trust_hash as codex_trust_hash, trust_hash_of as codex_trust_hash_of,
    trust_key as codex_trust_key,
};
pub use crate::agents::copilot::HOOK_FILE as COPILOT_HOOK_FILE;
use crate::agents::{codex, Agent};
pub use crate::agents::{HookFiles as Targets, HookLayout, InstallEnv};
pub use crate::config::{InstallRequest, Scope};
use crate::error::{Error, Result};
use crate::settings_file::{self, json_object, malformed, Installed, JsonDoc, Step};
pub use crate::settings_file::{apply, read, Write};

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

/// The handler install writes for `agent` (its own shape: see
/// [`crate::agents::Hook::handler`]).
pub fn desired_handler(
    exe: &Path,
    agent: Agent,
    budget: Option<usize>,
    store_args: &[String],
) -> Value {
    let command = hook_command(exe, agent, budget, store_args);
    (agent.hook().handler)(&command, budget)
}

/// A hooks file of our own ([`HookLayout::Own`]) holding `handler` alone.
pub fn own_file(agent: Agent, handler: &Value) -> String {
    settings_file::render_new(&snippet(agent, handler))
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
    ours_program(handler, agent).is_some()
}

/// The program a handler of ours runs (unquoted as `sh` reads it); `None`
/// when the handler is not ours ([`is_ours`]).
pub fn ours_program(handler: &Value, agent: Agent) -> Option<String> {
    if handler.get("type").and_then(Value::as_str) != Some("command") {
        return None;
    }
    let command = handler.get("command").or_else(|| handler.get("bash"));
    let command = command.and_then(Value::as_str)?;
    // `PROGRAM hook AGENT`, then nothing or options (whose quoted values
    // may hold the same words: any place that fits will do).
    let needle = format!(" hook {}", agent.as_str());
    command.match_indices(needle.as_str()).find_map(|(at, _)| {
        let rest = &command[at + needle.len()..];
        let program = command[..at].trim().trim_matches('\'');
        let named = Path::new(program).file_name().and_then(|n| n.to_str()) == Some("session-ref");
        ((rest.trim().is_empty() || rest.starts_with(" -")) && named)
            .then(|| program.replace(r"'\''", "'"))
    })
}

/// Where `agent`'s hook lives in the settings of `scope`, and the program
/// of ours registered there (`None`: not installed). For `doctor`.
pub fn installed(
    agent: Agent,
    scope: Scope,
    env: &InstallEnv<'_>,
) -> Result<(std::path::PathBuf, Option<String>)> {
    let file = (agent.hook().files)(scope, env)?.hooks_file;
    let Some(text) = read(&file)? else {
        return Ok((file, None));
    };
    let value = settings_file::parse_json(&file, &text)?;
    let handlers: Vec<Value> = match agent.hook().layout {
        HookLayout::Own | HookLayout::Flat => value["hooks"][agent.event()]
            .as_array()
            .cloned()
            .unwrap_or_default(),
        HookLayout::Shared => handlers_of(&file, &text, agent),
    };
    let program = handlers.iter().find_map(|h| ours_program(h, agent));
    Ok((file, program))
}

/// The snippet `--print` shows and install merges (or writes whole).
pub fn snippet(agent: Agent, handler: &Value) -> Value {
    match agent.hook().layout {
        HookLayout::Own | HookLayout::Flat => {
            json!({"version": 1, "hooks": {agent.event(): [handler]}})
        }
        HookLayout::Shared => json!({"hooks": {agent.event(): [{"hooks": [handler]}]}}),
    }
}

/// The position of a handler: group index, handler index (a
/// [`HookLayout::Flat`] handler's index, and 0).
pub type Position = (usize, usize);

/// Whether `agent`'s handlers sit directly in `hooks.EVENT`.
fn flat(agent: Agent) -> bool {
    agent.hook().layout == HookLayout::Flat
}

/// The steps to the handler at `(g, h)`.
fn handler_steps(agent: Agent, (g, h): Position) -> Vec<Step<'static>> {
    let mut at = vec![Step::Key("hooks"), Step::Key(agent.event()), Step::Index(g)];
    if !flat(agent) {
        at.extend([Step::Key("hooks"), Step::Index(h)]);
    }
    at
}

/// The handler at `position` of parsed settings.
fn handler_at(root: &Value, agent: Agent, (g, h): Position) -> Option<&Value> {
    let group = root.get("hooks")?.get(agent.event())?.get(g)?;
    if flat(agent) {
        Some(group)
    } else {
        group.get("hooks")?.get(h)
    }
}

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
    let (doc, root) = json_object(path, text)?;
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
    if flat(agent) {
        return groups
            .iter()
            .position(|h| is_ours(h, agent))
            .map(|h| (h, 0));
    }
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
    // A hooks file Cursor reads starts with its version.
    let fresh = settings_file::render_new(&json!({"version": 1}));
    let text = match text {
        Some(text) if !text.trim().is_empty() => Some(text),
        _ if flat(agent) => Some(fresh.as_str()),
        _ => text,
    };
    let (mut doc, root) = parse_settings(path, text, agent.event())?;
    let event = agent.event();
    if let Some(position) = find_ours(&root, agent) {
        let root = Value::Object(root);
        if handler_at(&root, agent, position) == Some(desired) {
            return Ok(Edited {
                text: None,
                position: Some(position),
            });
        }
        doc.replace(&handler_steps(agent, position), desired);
        return Ok(Edited {
            text: Some(doc.text().to_owned()),
            position: Some(position),
        });
    }
    let groups = root
        .get("hooks")
        .and_then(|h| h.get(event))
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let added = if flat(agent) {
        desired.clone()
    } else {
        json!({"hooks": [desired]})
    };
    doc.push(&[Step::Key("hooks"), Step::Key(event)], &added);
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
        if flat(agent) {
            if is_ours(group, agent) {
                doc.delete(&handler_steps(agent, (g, 0)));
            }
            continue;
        }
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

/// Whether a file of our own holds only our handlers for `agent` (none
/// at all is `Some(false)`; `None` when it is not JSON).
fn only_ours(file: &Path, text: &str, agent: Agent) -> Option<bool> {
    let value = settings_file::parse_json(file, text).ok()?;
    let handlers = value["hooks"][agent.event()].as_array().cloned()?;
    Some(!handlers.is_empty() && handlers.iter().all(|h| is_ours(h, agent)))
}

/// `hook install` of a [`HookLayout::Own`] file: written whole.
fn install_own(
    agent: Agent,
    targets: &Targets,
    desired: &Value,
    commit: bool,
) -> Result<Installed> {
    let file = &targets.hooks_file;
    let _lock = settings_file::lock(&[file], commit)?;
    let before = read(file)?;
    let after = own_file(agent, desired);
    if before.as_deref() == Some(after.as_str()) {
        let report = format!("{} already has the hook; left unchanged\n", file.display());
        return Installed::finish(Vec::new(), report, commit);
    }
    if let Some(text) = &before {
        // An empty list of ours is ours too (as before: all of none).
        let ours = settings_file::parse_json(file, text)
            .ok()
            .and_then(|v| v["hooks"][agent.event()].as_array().cloned())
            .is_some_and(|handlers| handlers.iter().all(|h| is_ours(h, agent)));
        if !ours {
            return Err(Error::invalid_config(format!(
                "{} holds hooks session-ref did not write; it was left untouched",
                file.display()
            )));
        }
    }
    let report = format!("set the hook in {}\n", file.display());
    let writes = vec![Write {
        path: file.clone(),
        before,
        after,
    }];
    Installed::finish(writes, report, commit)
}

/// `hook uninstall` of a [`HookLayout::Own`] file: removed when it holds
/// only our hook (a backup is kept).
fn uninstall_own(agent: Agent, targets: &Targets) -> Result<String> {
    let file = &targets.hooks_file;
    let _lock = settings_file::lock(&[file], false)?;
    let Some(text) = read(file)? else {
        return Ok(format!("{} does not exist\n", file.display()));
    };
    if only_ours(file, &text, agent) != Some(true) {
        return Ok(format!(
            "{} has no session-ref hook of its own; left unchanged\n",
            file.display()
        ));
    }
    let backup = settings_file::remove(file, &text)?;
    Ok(format!(
        "removed {}\nbackup: {}\n",
        file.display(),
        backup.display()
    ))
}

/// `hook install`: returns the report for stdout.
pub fn install(request: InstallRequest, env: &InstallEnv<'_>) -> Result<String> {
    edit(request, env, true).map(|installed| installed.report)
}

/// `hook install`'s edit of the files, written when `commit` (else what
/// it would write, read under the same lock and checks; no directory is
/// made). `--print` is not an edit: see [`install`].
pub fn edit(request: InstallRequest, env: &InstallEnv<'_>, commit: bool) -> Result<Installed> {
    let agent = request.agent;
    let targets = (agent.hook().files)(request.scope, env)?;
    let desired = desired_handler(env.exe, agent, request.budget, &request.store_args);
    let hooks_file = &targets.hooks_file;
    if request.print {
        let report = print_snippet(agent, &targets, &desired);
        return Installed::finish(Vec::new(), report, false);
    }
    if agent.hook().layout == HookLayout::Own {
        return install_own(agent, &targets, &desired, commit);
    }
    let mut files = vec![hooks_file.as_path()];
    files.extend(targets.codex_config.as_deref());
    // Held until every file is written: a concurrent install reads ours.
    let _lock = settings_file::lock(&files, commit)?;
    let before = read(hooks_file)?;
    let edited = merge(hooks_file, before.as_deref(), agent, &desired)?;
    let mut writes = Vec::new();
    let mut report = String::new();
    match &edited.text {
        Some(after) => {
            report.push_str(&format!("set the hook in {}\n", hooks_file.display()));
            writes.push(Write {
                path: hooks_file.clone(),
                before: before.clone(),
                after: after.clone(),
            });
        }
        None => report.push_str(&format!(
            "{} already has the hook; left unchanged\n",
            hooks_file.display()
        )),
    }
    let mut steps = Vec::new();
    if let Some(config) = &targets.codex_config {
        let config_before = read(config)?;
        // The hash covers the handler as written in hooks.json (an earlier
        // install's, possibly edited by hand, when one is there).
        let position = edited.position.expect("merge places the handler");
        let installed = installed_handler(
            agent,
            hooks_file,
            edited.text.as_deref().or(before.as_deref()),
            position,
        )
        .unwrap_or_else(|| desired.clone());
        let key = codex_trust_key(hooks_file, position);
        let hash = codex_trust_hash_of(&installed);
        match codex::trust(config, config_before.as_deref(), &key, &hash)? {
            Some(after) => {
                report.push_str(&format!(
                    "recorded the hook's trust in {}\n",
                    config.display()
                ));
                writes.push(Write {
                    path: config.clone(),
                    before: config_before.clone(),
                    after,
                });
            }
            None => report.push_str(&format!(
                "{} already trusts the hook; left unchanged\n",
                config.display()
            )),
        }
        let config_text = config_before.unwrap_or_default();
        steps = codex::install_notes(config, &config_text, request.scope, env.cwd);
    }
    let mut installed = Installed::finish(writes, report, commit)?;
    for step in steps {
        installed.report.push_str(&format!("note: {step}\n"));
    }
    Ok(installed)
}

/// The handler at `position` in a settings text.
fn installed_handler(
    agent: Agent,
    path: &Path,
    text: Option<&str>,
    (g, h): Position,
) -> Option<serde_json::Value> {
    let value = settings_file::parse_json(path, text?).ok()?;
    handler_at(&value, agent, (g, h)).cloned()
}

fn print_snippet(agent: Agent, targets: &Targets, handler: &serde_json::Value) -> String {
    let shown = serde_json::to_string_pretty(&snippet(agent, handler)).expect("JSON serializes");
    let mut out = format!("# merge into {}\n{shown}\n", targets.hooks_file.display());
    if let Some(config) = &targets.codex_config {
        out.push_str(&format!(
            "# and into {} (when it is the first UserPromptSubmit hook there; Codex's /hooks can trust it instead)\n\
             [hooks.state.\"{}\"]\ntrusted_hash = \"{}\"\n",
            config.display(),
            codex_trust_key(&targets.hooks_file, (0, 0)),
            codex_trust_hash_of(handler)
        ));
    }
    out
}

/// `hook uninstall`: returns the report for stdout.
pub fn uninstall(request: InstallRequest, env: &InstallEnv<'_>) -> Result<String> {
    let agent = request.agent;
    let targets = (agent.hook().files)(request.scope, env)?;
    if agent.hook().layout == HookLayout::Own {
        return uninstall_own(agent, &targets);
    }
    let hooks_file = &targets.hooks_file;
    let mut files = vec![hooks_file.as_path()];
    files.extend(targets.codex_config.as_deref());
    let _lock = settings_file::lock(&files, false)?;
    let mut writes = Vec::new();
    let mut report = String::new();
    let before = read(hooks_file)?;
    let mut our_handlers = Vec::new();
    match &before {
        Some(text) => {
            our_handlers = handlers_of(hooks_file, text, agent);
            let edited = remove(hooks_file, text, agent)?;
            match edited.text {
                Some(after) => {
                    report.push_str(&format!("removed the hook from {}\n", hooks_file.display()));
                    writes.push(Write {
                        path: hooks_file.clone(),
                        before: before.clone(),
                        after,
                    });
                }
                None => report.push_str(&format!(
                    "{} has no session-ref hook\n",
                    hooks_file.display()
                )),
            }
        }
        None => report.push_str(&format!("{} does not exist\n", hooks_file.display())),
    }
    if let Some(config) = &targets.codex_config {
        if let Some(mut text) = read(config)? {
            let original = text.clone();
            let mut changed = false;
            for handler in &our_handlers {
                let hash = codex_trust_hash_of(handler);
                if let Some(after) = codex::untrust(config, &text, hooks_file, &hash)? {
                    text = after;
                    changed = true;
                }
            }
            if changed {
                report.push_str(&format!(
                    "removed the hook's trust from {}\n",
                    config.display()
                ));
                writes.push(Write {
                    path: config.clone(),
                    before: Some(original),
                    after: text,
                });
            }
        }
    }
    for backup in apply(&writes)? {
        report.push_str(&format!("backup: {}\n", backup.display()));
    }
    Ok(report)
}

/// Our handlers in a settings text (for their trust hashes).
fn handlers_of(path: &Path, text: &str, agent: Agent) -> Vec<serde_json::Value> {
    let Ok(value) = settings_file::parse_json(path, text) else {
        return Vec::new();
    };
    let groups = value
        .get("hooks")
        .and_then(|h| h.get(agent.event()))
        .and_then(serde_json::Value::as_array);
    let handlers: Vec<&Value> = if flat(agent) {
        groups.into_iter().flatten().collect()
    } else {
        groups
            .into_iter()
            .flatten()
            .filter_map(|g| g.get("hooks").and_then(serde_json::Value::as_array))
            .flatten()
            .collect()
    };
    handlers
        .into_iter()
        .filter(|h| is_ours(h, agent))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const CMD: &str = "/opt/bin/session-ref hook claude";

    fn handler(command: &str) -> Value {
        crate::agents::command_handler(command, None)
    }

    fn agent(name: &str) -> Agent {
        Agent::named(name).unwrap()
    }

    #[test]
    fn commands_are_quoted_for_sh_when_needed() {
        assert_eq!(
            hook_command(Path::new("/usr/bin/session-ref"), agent("codex"), None, &[]),
            "/usr/bin/session-ref hook codex"
        );
        assert_eq!(
            desired_handler(
                Path::new("/b/session-ref"),
                agent("codex"),
                Some(40_001),
                &[]
            ),
            json!({"type": "command", "command": "/b/session-ref hook codex --budget 40001", "additionalContextLimit": 10_001})
        );
        assert_eq!(
            desired_handler(
                Path::new("/b/session-ref"),
                agent("claude"),
                Some(5_000),
                &[]
            ),
            json!({"type": "command", "command": "/b/session-ref hook claude --budget 5000"})
        );
        assert_eq!(
            hook_command(
                Path::new("/My Apps/it's/session-ref"),
                agent("claude"),
                None,
                &[]
            ),
            r"'/My Apps/it'\''s/session-ref' hook claude"
        );
    }

    #[test]
    fn ours_is_recognized_by_program_and_agent() {
        let h = |c: &str| handler(c);
        assert!(is_ours(&h(CMD), agent("claude")));
        assert!(is_ours(&h("session-ref hook claude"), agent("claude")));
        assert!(is_ours(
            &h("'/a b/session-ref' hook claude"),
            agent("claude")
        ));
        assert!(is_ours(
            &h("session-ref hook claude --budget 900"),
            agent("claude")
        ));
        assert!(!is_ours(&h("session-ref hook claudette"), agent("claude")));
        assert!(!is_ours(&h(CMD), agent("codex")));
        assert!(!is_ours(&h("/bin/other hook claude"), agent("claude")));
        assert!(!is_ours(
            &json!({"type": "prompt", "command": CMD}),
            agent("claude")
        ));
    }
}
