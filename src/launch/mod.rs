//! Resume and hand-off: start a session's own agent on it (`resume`), or
//! another agent in its working directory with the session cited as its
//! first prompt (`handoff`), from the command line and from the picker.
//!
//! Why the facts live here, in one table of their own ([`table`]): they
//! are about starting programs, and the stores crate (reading logs, usable
//! by other tools) must not know how to run an agent; `crate::agents`
//! holds the hook and MCP integrations of six agents, while every one of
//! the eleven store kinds needs a row here (the table is keyed by the
//! kind's name, and a test keeps it equal to the registry).
//!
//! The parts: [`table`] (the facts, one row per kind, with the version
//! each follows), [`plan`] (pure argv building and the checks made before
//! anything starts), [`start`] (the thin front-end: exec, a tmux window,
//! the hidden `exec-plan` a tmux window runs). This module joins them to
//! the engine: a session argument resolved, the hand-off's prompt prepared
//! exactly as `prepare` prepares it.

pub mod plan;
pub mod start;
pub mod table;

use std::ffi::OsStr;

use crate::error::{Error, Result};
use session_ref_core::candidates::Target;
use session_ref_core::mention;
use session_ref_engine::engine::{render_text, Engine};
use session_ref_stores::model::SessionRecord;

pub use plan::Plan;
pub use table::{handoff_targets, launcher, Launcher, LAUNCHERS};

/// The first prompt's request when the person gives none.
pub const DEFAULT_HANDOFF_PROMPT: &str =
    "Continue the work of the session cited below, in this directory.";

/// What to start for a session: its own agent, or another one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launch {
    /// Resume the session with its own agent.
    Resume,
    /// Start the agent of this kind with the session cited.
    Handoff {
        /// The target's store kind name (a [`handoff_targets`] row).
        to: &'static str,
        /// The person's words before the citation (`None`: the default).
        prompt: Option<String>,
    },
}

/// The first prompt of a hand-off of `record` with `prompt`: the message
/// `PROMPT` and the session's mention, prepared as `session-ref prepare`
/// does (the framed snapshot after it), as text without the final newline.
/// The target of `engine` is left out of the self-reference rule: the
/// agent started is a new session.
pub fn handoff_prompt(engine: &Engine, record: &SessionRecord, prompt: &str) -> Result<String> {
    let label = engine.default_label(&record.id);
    let message = format!(
        "{prompt}\n\n{}",
        mention::format_mention(&record.id, Some(&label))
    );
    let fresh = Engine::new(
        std::sync::Arc::clone(&engine.catalog),
        engine.limits,
        Target {
            session_id: None,
            cwd: engine.target.cwd.clone(),
        },
    );
    let prepared = fresh.prepare_text(&message).map_err(Error::from)?;
    let mut text = render_text(&prepared);
    if text.ends_with('\n') {
        text.pop();
    }
    Ok(text)
}

/// The command that does `launch` for `record`, every check made, with
/// the agents looked up on `path` (a `PATH` value).
pub fn plan_for(
    engine: &Engine,
    record: &SessionRecord,
    launch: &Launch,
    path: Option<&OsStr>,
) -> Result<Plan> {
    match launch {
        Launch::Resume => plan::resume(record, path),
        Launch::Handoff { to, prompt } => {
            let target = launcher(to)
                .ok_or_else(|| Error::cannot_launch(format!("no agent is known as {to:?}")))?;
            // The cheap checks first: nothing is read for a hand-off that
            // cannot start.
            plan::handoff(record, target, "", path)?;
            let text = handoff_prompt(
                engine,
                record,
                prompt.as_deref().unwrap_or(DEFAULT_HANDOFF_PROMPT),
            )?;
            plan::handoff(record, target, &text, path)
        }
    }
}

/// `resume`/`handoff` from the command line: the session argument `arg`
/// resolved in `engine`'s catalog (an id, a unique prefix, a URI or a
/// mention), then [`plan_for`].
pub fn plan_arg(engine: &Engine, arg: &str, launch: &Launch, path: Option<&OsStr>) -> Result<Plan> {
    let named = engine.resolve_session_arg(arg).map_err(Error::from)?;
    let record = engine.catalog.find(&named.id).ok_or_else(|| {
        Error::from(session_ref_engine::engine::not_listed(
            &engine.catalog,
            &named.id,
        ))
    })?;
    plan_for(engine, record, launch, path)
}
