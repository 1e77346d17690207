//! `session-ref hook claude|codex|gemini|copilot|qwen`: resolve mentions
//! typed into a running agent session, at the moment the prompt is
//! submitted (Claude Code, Codex and Qwen Code `UserPromptSubmit`, Gemini
//! CLI `BeforeAgent`, Copilot CLI `userPromptSubmitted`).
//!
//! The agent runs the hook with its `UserPromptSubmit` JSON on stdin. A
//! prompt without a mention is answered from its text alone, before any
//! store is looked at (this runs on every prompt). A prompt that cites
//! sessions gets exactly the context `prepare` builds, with the hook's
//! session as the target (so it cannot cite itself) and the snapshots sized
//! so the whole added text fits what the host keeps whole (see
//! [`budget`]). Any failure stops the prompt, so nothing is sent half
//! resolved, with a reason the user sees; for Codex the prompt is also kept
//! in a draft file (see [`draft`]).
//!
//! Synchronous on purpose: one short-lived process per prompt has no use
//! for an async runtime, and starting none keeps the common path fast.

pub mod draft;
pub mod install;
pub mod protocol;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::config::{Command, Config};
pub use crate::config::{InstallRequest, DEFAULT_HOST_CAP};

use crate::config::Limits;
use crate::error::{Error, Result};
use crate::settings_file;
use install::{Scope, Targets};
use protocol::{Agent, Answer, HookInput, PROMPT_SUBMIT};
use session_ref_core::mention;
use session_ref_core::prepare::normalize_references;
use session_ref_engine::budget::{self, Measure};
use session_ref_engine::Stores;
use session_ref_stores::StoreRoots;

/// `hook install` for Copilot CLI: its hooks file of our own, written whole.
fn install_copilot(targets: &Targets, desired: &serde_json::Value) -> Result<String> {
    let file = &targets.hooks_file;
    let _lock = settings_file::lock(&[file], true)?;
    let before = install::read(file)?;
    let after = install::copilot_hooks_file(desired);
    if before.as_deref() == Some(after.as_str()) {
        return Ok(format!(
            "{} already has the hook; left unchanged\n",
            file.display()
        ));
    }
    if let Some(text) = &before {
        let ours = settings_file::parse_json(file, text)
            .ok()
            .and_then(|v| v["hooks"][Agent::Copilot.event()].as_array().cloned())
            .is_some_and(|handlers| handlers.iter().all(|h| install::is_ours(h, Agent::Copilot)));
        if !ours {
            return Err(Error::invalid_config(format!(
                "{} holds hooks session-ref did not write; it was left untouched",
                file.display()
            )));
        }
    }
    let mut report = format!("set the hook in {}\n", file.display());
    for backup in install::apply(&[install::Write {
        path: file.clone(),
        before,
        after,
    }])? {
        report.push_str(&format!("backup: {}\n", backup.display()));
    }
    Ok(report)
}

/// `hook uninstall` for Copilot CLI: its hooks file of our own, removed
/// when it holds only our hook (a backup is kept).
fn uninstall_copilot(targets: &Targets) -> Result<String> {
    let file = &targets.hooks_file;
    let _lock = settings_file::lock(&[file], false)?;
    let Some(text) = install::read(file)? else {
        return Ok(format!("{} does not exist\n", file.display()));
    };
    let handlers = settings_file::parse_json(file, &text)
        .ok()
        .and_then(|v| v["hooks"][Agent::Copilot.event()].as_array().cloned())
        .unwrap_or_default();
    if handlers.is_empty() || !handlers.iter().all(|h| install::is_ours(h, Agent::Copilot)) {
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

/// The cap for hosts that keep added context whole however long: Gemini
/// CLI 0.61 passed 200,000 characters whole, and Copilot CLI 1.0.102 has
/// no documented limit; three snapshots of the default 64 KiB fit.
pub const UNCAPPED_HOST_CAP: usize = 200_000;

/// The default `--budget` of a hook for `agent`.
pub fn default_cap(agent: Agent) -> usize {
    match agent {
        Agent::Claude | Agent::Codex | Agent::Qwen => DEFAULT_HOST_CAP,
        Agent::Gemini | Agent::Copilot => UNCAPPED_HOST_CAP,
    }
}

/// How each host measures added context.
pub fn measure(agent: Agent) -> Measure {
    match agent {
        Agent::Claude | Agent::Qwen => Measure::Utf16Units,
        Agent::Codex | Agent::Gemini | Agent::Copilot => Measure::Utf8Bytes,
    }
}

/// Everything one hook run needs besides its stdin.
#[derive(Debug, Clone)]
pub struct HookContext {
    /// The agent being answered.
    pub agent: Agent,
    /// The cap of the whole added context, in the host's unit.
    pub cap: usize,
    /// Stores to resolve mentions in.
    pub roots: StoreRoots,
    /// Limits (`max_references`, `max_reference_bytes` per source).
    pub limits: Limits,
    /// Where a blocked prompt is kept (Codex); `None` when unknown.
    pub drafts: Option<PathBuf>,
    /// The title index's directory (`None`: `--no-cache`, or no cache
    /// directory), so that resolving ids opens only new and changed logs.
    pub cache_dir: Option<PathBuf>,
    /// Other machines; only those a mention names are asked.
    pub remotes: crate::config::remotes::RemoteSettings,
}

/// The hook's answer to its stdin: what to print, and a diagnostic line for
/// stderr when the prompt was stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookRun {
    /// The answer.
    pub answer: Answer,
    /// `session-ref: CODE: message`, when the prompt was stopped.
    pub error: Option<String>,
}

/// The longest a hook waits on other machines in all (connecting, listing,
/// folding the cited sessions), well under the shortest time an agent
/// gives a hook before killing it (GitHub Copilot CLI's 30 s; Claude Code,
/// Gemini CLI and Qwen Code give 60 s): a stalled host blocks the prompt
/// with its name and why, never the agent.
pub const REMOTE_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Answer one hook invocation.
pub fn answer(context: &HookContext, stdin: &str) -> HookRun {
    let input = match HookInput::parse_for(context.agent, stdin) {
        Ok(input) => input,
        Err(e) => return blocked(context, None, &e),
    };
    match resolve(context, &input) {
        Ok(answer) => HookRun {
            answer,
            error: None,
        },
        Err(e) => blocked(context, Some(&input), &e),
    }
}

/// The context for a prompt, or `Pass` when it cites nothing.
fn resolve(context: &HookContext, input: &HookInput) -> Result<Answer> {
    // The fast path: decided from the prompt's text alone.
    if input.hook_event_name != context.agent.event() || mention::scan(&input.prompt).is_empty() {
        return Ok(Answer::Pass);
    }
    let parsed = mention::parse_text(&input.prompt)?;
    let sources = normalize_references(
        Some(&input.session_id),
        &parsed.references,
        context.limits.max_references,
    )?;
    // Listing goes through the title index, as `prepare` does: only new and
    // changed logs are opened; only the cited sessions are read whole.
    let remotes = context
        .remotes
        .only_named_by(sources.iter().map(|s| s.session_id.as_str()));
    let client = remotes
        .client()
        .map(|client| client.with_deadline(std::time::Instant::now() + REMOTE_WAIT));
    let catalog = Stores::new(context.roots.clone())
        .cache_dir(context.cache_dir.clone())
        .cwd(Some(input.cwd.clone()))
        .remotes(client)
        .catalog();
    catalog.save_index();
    // Read as `prepare` reads: each source folded into what the largest
    // budget can need, so memory follows the budget, not the logs.
    let read = session_ref_engine::engine::read_sources(
        &catalog,
        &sources,
        context.limits.max_reference_bytes,
    )?;
    let fitted = budget::fit(
        &sources,
        &read,
        context.limits.max_reference_bytes,
        context.cap,
        measure(context.agent),
    )?;
    Ok(Answer::Context(budget::added_context(&fitted)))
}

/// Stop the prompt. Claude Code shows the reason with the prompt; Codex's
/// terminal view shows the reason and a `systemMessage`, `codex exec` shows
/// neither, and the other agents do not give the prompt back either, so for
/// every agent but Claude Code the prompt is kept in a draft file named
/// there.
fn blocked(context: &HookContext, input: Option<&HookInput>, error: &Error) -> HookRun {
    // Escaped before it goes into the answer's JSON: the agent parses it
    // back, so an escape sequence JSON-escaped there would reach its
    // terminal whole (a remote's error text, an id).
    let reason = error.stderr_line();
    let notice = match (context.agent, input) {
        (Agent::Claude, _) | (_, None) => None,
        (_, Some(input)) => Some(keep_draft(context, input, &reason)),
    };
    HookRun {
        answer: Answer::Block {
            reason: reason.clone(),
            notice,
        },
        error: Some(reason),
    }
}

fn keep_draft(context: &HookContext, input: &HookInput, reason: &str) -> String {
    let Some(dir) = &context.drafts else {
        return "session-ref did not keep the prompt: no $HOME or $XDG_STATE_HOME".to_owned();
    };
    let draft = draft::Draft {
        agent: context.agent.as_str(),
        session_id: &input.session_id,
        cwd: &input.cwd,
        reason,
        prompt: &input.prompt,
    };
    match draft::save(dir, &draft) {
        Ok(path) => format!("session-ref kept the prompt in {}", path.display()),
        Err(e) => format!(
            "session-ref could not keep the prompt in {}: {e}",
            dir.display()
        ),
    }
}

/// The surroundings install needs: the environment, home, current
/// directory and the path of this program.
pub struct InstallEnv<'a> {
    /// Environment lookup.
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// Home directory.
    pub home: Option<&'a Path>,
    /// Current directory.
    pub cwd: &'a Path,
    /// This program's path, for the hook command.
    pub exe: &'a Path,
}

/// `hook install`: returns the report for stdout.
pub fn install(request: InstallRequest, env: &InstallEnv<'_>) -> Result<String> {
    let agent = request.agent;
    let targets = Targets::locate(agent, request.scope, env.env, env.home, env.cwd)?;
    let desired = install::desired_handler(env.exe, agent, request.budget, &request.store_args);
    let hooks_file = &targets.hooks_file;
    if request.print {
        return Ok(print_snippet(agent, &targets, &desired));
    }
    if agent == Agent::Copilot {
        return install_copilot(&targets, &desired);
    }
    let mut files = vec![hooks_file.as_path()];
    files.extend(targets.codex_config.as_deref());
    // Held until every file is written: a concurrent install reads ours.
    let _lock = settings_file::lock(&files, true)?;
    let before = install::read(hooks_file)?;
    let edited = install::merge(hooks_file, before.as_deref(), agent, &desired)?;
    let mut writes = Vec::new();
    let mut report = String::new();
    match &edited.text {
        Some(after) => {
            report.push_str(&format!("set the hook in {}\n", hooks_file.display()));
            writes.push(install::Write {
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
        let config_before = install::read(config)?;
        // The hash covers the handler as written in hooks.json (an earlier
        // install's, possibly edited by hand, when one is there).
        let position = edited.position.expect("merge places the handler");
        let installed = installed_handler(
            hooks_file,
            edited.text.as_deref().or(before.as_deref()),
            position,
        )
        .unwrap_or_else(|| desired.clone());
        let key = install::codex_trust_key(hooks_file, position);
        let hash = install::codex_trust_hash_of(&installed);
        let trusted = install::trust(config, config_before.as_deref(), &key, &hash)?;
        match trusted.text {
            Some(after) => {
                report.push_str(&format!(
                    "recorded the hook's trust in {}\n",
                    config.display()
                ));
                writes.push(install::Write {
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
        if install::codex_hooks_disabled(&config_text) {
            steps.push(format!(
                "hooks are turned off in {}: remove `codex_hooks = false` (or `hooks = false`) under [features]",
                config.display()
            ));
        }
        if request.scope == Scope::Project && !install::codex_project_trusted(&config_text, env.cwd)
        {
            steps.push(format!(
                "Codex reads a project's .codex/ only in a trusted project: trust {} when Codex asks, \
                 or add [projects.\"{}\"] trust_level = \"trusted\" to {}",
                env.cwd.display(),
                env.cwd.display(),
                config.display()
            ));
        }
        steps.push(
            "if Codex still lists the hook as untrusted (`/hooks` in Codex), trust it there once"
                .to_owned(),
        );
    }
    for backup in install::apply(&writes)? {
        report.push_str(&format!("backup: {}\n", backup.display()));
    }
    for step in steps {
        report.push_str(&format!("note: {step}\n"));
    }
    Ok(report)
}

/// The handler at `position` in a settings text.
fn installed_handler(
    path: &Path,
    text: Option<&str>,
    (g, h): install::Position,
) -> Option<serde_json::Value> {
    let value = settings_file::parse_json(path, text?).ok()?;
    value
        .get("hooks")?
        .get(PROMPT_SUBMIT)?
        .get(g)?
        .get("hooks")?
        .get(h)
        .cloned()
}

fn print_snippet(agent: Agent, targets: &Targets, handler: &serde_json::Value) -> String {
    let snippet =
        serde_json::to_string_pretty(&install::snippet(agent, handler)).expect("JSON serializes");
    let mut out = format!("# merge into {}\n{snippet}\n", targets.hooks_file.display());
    if let (Agent::Codex, Some(config)) = (agent, &targets.codex_config) {
        out.push_str(&format!(
            "# and into {} (when it is the first UserPromptSubmit hook there; Codex's /hooks can trust it instead)\n\
             [hooks.state.\"{}\"]\ntrusted_hash = \"{}\"\n",
            config.display(),
            install::codex_trust_key(&targets.hooks_file, (0, 0)),
            install::codex_trust_hash_of(handler)
        ));
    }
    out
}

/// `hook uninstall`: returns the report for stdout.
pub fn uninstall(request: InstallRequest, env: &InstallEnv<'_>) -> Result<String> {
    let agent = request.agent;
    let targets = Targets::locate(agent, request.scope, env.env, env.home, env.cwd)?;
    if agent == Agent::Copilot {
        return uninstall_copilot(&targets);
    }
    let hooks_file = &targets.hooks_file;
    let mut files = vec![hooks_file.as_path()];
    files.extend(targets.codex_config.as_deref());
    let _lock = settings_file::lock(&files, false)?;
    let mut writes = Vec::new();
    let mut report = String::new();
    let before = install::read(hooks_file)?;
    let mut our_handlers = Vec::new();
    match &before {
        Some(text) => {
            our_handlers = handlers_of(hooks_file, text, agent);
            let edited = install::remove(hooks_file, text, agent)?;
            match edited.text {
                Some(after) => {
                    report.push_str(&format!("removed the hook from {}\n", hooks_file.display()));
                    writes.push(install::Write {
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
        if let Some(mut text) = install::read(config)? {
            let original = text.clone();
            let mut changed = false;
            for handler in &our_handlers {
                let hash = install::codex_trust_hash_of(handler);
                if let Some(after) = install::untrust(config, &text, hooks_file, &hash)?.text {
                    text = after;
                    changed = true;
                }
            }
            if changed {
                report.push_str(&format!(
                    "removed the hook's trust from {}\n",
                    config.display()
                ));
                writes.push(install::Write {
                    path: config.clone(),
                    before: Some(original),
                    after: text,
                });
            }
        }
    }
    for backup in install::apply(&writes)? {
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
    groups
        .into_iter()
        .flatten()
        .filter_map(|g| g.get("hooks").and_then(serde_json::Value::as_array))
        .flatten()
        .filter(|h| install::is_ours(h, agent))
        .cloned()
        .collect()
}

/// Run a `hook …` command with the process's stdin, stdout and environment;
/// `None` for any other command.
pub fn run_command(config: &Config) -> Option<ExitCode> {
    let env = |key: &str| std::env::var(key).ok();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let result = match &config.command {
        Command::Hook { agent, budget } => {
            let context = HookContext {
                agent: *agent,
                cap: *budget,
                roots: config.roots.clone(),
                limits: config.limits,
                drafts: draft::drafts_dir(env, home.as_deref()),
                cache_dir: config.cache_dir.clone(),
                remotes: config.remotes.clone(),
            };
            let stdin = crate::commands::read_stdin(std::io::stdin().lock());
            let run = match stdin {
                Ok(stdin) => answer(&context, &stdin),
                Err(e) => blocked(&context, None, &e),
            };
            if let Some(error) = &run.error {
                eprintln!("{error}");
            }
            Ok(run.answer.to_stdout_for(*agent))
        }
        Command::HookInstall(request) | Command::HookUninstall(request) => {
            let cwd = std::env::current_dir().unwrap_or_default();
            let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("session-ref"));
            let install_env = InstallEnv {
                env: &env,
                home: home.as_deref(),
                cwd: &cwd,
                exe: &exe,
            };
            if matches!(config.command, Command::HookInstall(_)) {
                install(request.clone(), &install_env)
            } else {
                uninstall(request.clone(), &install_env)
            }
        }
        _ => return None,
    };
    Some(
        match result.map(|text| crate::output::write_stdout(&text)) {
            Ok(Ok(())) => ExitCode::SUCCESS,
            Ok(Err(e)) => {
                eprintln!("session-ref: {e}");
                ExitCode::FAILURE
            }
            Err(e) => {
                eprintln!("{}", e.stderr_line());
                ExitCode::FAILURE
            }
        },
    )
}
