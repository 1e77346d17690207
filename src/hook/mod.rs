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

use std::path::PathBuf;
use std::process::ExitCode;

pub use crate::agents::InstallEnv;
use crate::config::{Command, Config};
pub use crate::config::{InstallRequest, DEFAULT_HOST_CAP};

use crate::config::Limits;
use crate::error::{Error, Result};
use protocol::{Agent, Answer, HookInput};
use session_ref_core::mention;
use session_ref_core::prepare::normalize_references;
use session_ref_engine::budget::{self, Measure};
use session_ref_engine::Stores;
use session_ref_stores::StoreRoots;

pub use crate::agents::UNCAPPED_HOST_CAP;

/// The default `--budget` of a hook for `agent` (its [`crate::agents::Hook::cap`]).
pub fn default_cap(agent: Agent) -> usize {
    agent.hook().cap
}

/// How `agent`'s host measures added context.
pub fn measure(agent: Agent) -> Measure {
    agent.hook().measure
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
    /// The archive, read so that a mention of an archived session
    /// resolves; a hook never keeps (it answers within its agent's wait).
    pub keep: crate::config::keep::KeepSettings,
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
    let input = match context.agent.parse_hook_input(stdin) {
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
        .archive(context.keep.archive(false))
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
    let notice = match input {
        Some(input) if context.agent.hook().keeps_draft => {
            Some(keep_draft(context, input, &reason))
        }
        _ => None,
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
    // Escaped as the reason is: the host parses the JSON back.
    let shown = crate::display::path_for_person;
    match draft::save(dir, &draft) {
        Ok(path) => format!("session-ref kept the prompt in {}", shown(&path)),
        Err(e) => format!(
            "session-ref could not keep the prompt in {}: {}",
            shown(dir),
            crate::display::escape_unsafe(&e.to_string())
        ),
    }
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
                keep: config.keep.clone(),
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
            crate::agents::with_process_env(|install_env| {
                if matches!(config.command, Command::HookInstall(_)) {
                    install::install(request.clone(), install_env)
                } else {
                    install::uninstall(request.clone(), install_env)
                }
            })
        }
        _ => return None,
    };
    Some(
        match result.and_then(|text| Ok(crate::output::write_stdout(&text)?)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => e.report(),
        },
    )
}
