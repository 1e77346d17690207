//! `session-ref setup`: the one command a new user runs. It finds which of
//! the agents of [`crate::agents::TABLE`] are on this machine (their
//! [`crate::agents::Detect`]: the program on `$PATH`, or a user directory
//! of theirs), shows for each what it would add (the prompt hook and the
//! MCP server, the exact file and entry), asks once on a terminal (or
//! `--yes`, `--dry-run`), writes, and prints a receipt; `setup --undo`
//! ([`receipt`]) puts the files back.
//!
//! The user's settings by default; `--project`, the current project's
//! (the files `hook install --project` and `mcp install --project` write),
//! the receipt naming the project so that undo finds it from anywhere. An
//! agent that reads MCP servers from the user's settings only
//! ([`crate::agents::Mcp::user_only`]) gets no MCP server in a project.
//!
//! Why a front-end and not an installer of its own: the edits are exactly
//! `hook install AGENT` and `mcp install AGENT` ([`crate::hook::install`],
//! [`crate::mcp::install`]), computed first without writing (their `edit`
//! with `commit` false, under the same lock and checks) to be shown, then
//! made. What setup adds is the choice of agents, the refusal of
//! symlinked files (a dotfile manager's link is edited by `hook install`
//! on purpose, never by a command that edits every agent at once), and
//! the receipt that makes the whole of it undoable.

pub mod receipt;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::agents::{Agent, InstallEnv, Presence, Scope};
use crate::config::{Command, Config, InstallRequest, McpRequest, SetupRequest};
use crate::display::escape_unsafe;
use crate::error::{Error, Result};
use crate::settings_file::{self, Installed};

/// The two things setup adds to an agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Part {
    /// Its prompt-submit hook (`hook install AGENT`).
    Hook,
    /// Its MCP server (`mcp install AGENT`).
    Mcp,
}

impl Part {
    /// The word in reports and in the receipt.
    pub fn as_str(self) -> &'static str {
        match self {
            Part::Hook => "hook",
            Part::Mcp => "MCP server",
        }
    }

    /// The parts `agent` has, hook first.
    pub fn of(agent: Agent) -> Vec<Part> {
        let i = agent.integration();
        let mut parts = Vec::new();
        if i.hook.is_some() {
            parts.push(Part::Hook);
        }
        if i.mcp.is_some() {
            parts.push(Part::Mcp);
        }
        parts
    }

    /// Why `agent` has no settings of this part in `scope` (`None`: it
    /// has): an agent that reads MCP servers from the user's settings only
    /// ([`crate::agents::Mcp::user_only`]) has none in a project.
    pub fn not_in(self, agent: Agent, scope: Scope) -> Option<&'static str> {
        match (self, scope) {
            (Part::Mcp, Scope::Project) => agent.mcp().user_only,
            _ => None,
        }
    }

    /// The installer's edit of this part for `agent` in the settings of
    /// `scope`, made when `commit`.
    pub fn edit(
        self,
        agent: Agent,
        scope: Scope,
        env: &InstallEnv<'_>,
        commit: bool,
    ) -> Result<Installed> {
        match self {
            Part::Hook => crate::hook::install::edit(install_request(agent, scope), env, commit),
            Part::Mcp => crate::mcp::install::edit(mcp_request(agent, scope), env, commit),
        }
    }

    /// The installer's removal of this part (what `--undo` does to a file
    /// edited since setup): session-ref's entries only.
    pub fn remove(self, agent: Agent, scope: Scope, env: &InstallEnv<'_>) -> Result<String> {
        match self {
            Part::Hook => crate::hook::install::uninstall(install_request(agent, scope), env),
            Part::Mcp => crate::mcp::install::uninstall(mcp_request(agent, scope), env),
        }
    }
}

/// What a write changes, as a person reads it: the lines between the
/// first and the last that differ, `-` before and `+` after (every edit is
/// in place, so this is the entry added and the lines it joined).
pub fn change_lines(before: Option<&str>, after: &str) -> String {
    let old: Vec<&str> = before.map_or_else(Vec::new, |b| b.lines().collect());
    let new: Vec<&str> = after.lines().collect();
    let head = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let tail = old[head..]
        .iter()
        .rev()
        .zip(new[head..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let mut out = String::new();
    for line in &old[head..old.len() - tail] {
        let _ = writeln!(out, "- {line}");
    }
    for line in &new[head..new.len() - tail] {
        let _ = writeln!(out, "+ {line}");
    }
    out
}

fn install_request(agent: Agent, scope: Scope) -> InstallRequest {
    InstallRequest {
        agent,
        scope,
        print: false,
        budget: None,
        store_args: Vec::new(),
    }
}

fn mcp_request(agent: Agent, scope: Scope) -> McpRequest {
    McpRequest {
        agent,
        scope,
        budget: None,
        store_args: Vec::new(),
    }
}

/// Why a settings file is left to the user: a symbolic link (setup edits
/// no file through a link), else what [`settings_file::writable`] refuses.
pub fn refused(path: &Path) -> Option<String> {
    let link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if link {
        return Some(format!(
            "{} is a symbolic link; setup leaves it untouched",
            path.display()
        ));
    }
    settings_file::writable(path).err().map(|e| e.message)
}

/// What setup would do for one part of one agent.
#[derive(Debug)]
pub struct Proposal {
    /// The agent.
    pub agent: Agent,
    /// Hook or MCP server.
    pub part: Part,
    /// The files it would write (empty: already set up) and the entry it
    /// adds to them, or why it cannot.
    pub outcome: std::result::Result<Vec<(PathBuf, String)>, String>,
}

/// One agent as setup sees it.
#[derive(Debug)]
pub struct Found {
    /// The agent.
    pub agent: Agent,
    /// Where it is (nothing found: setup leaves it alone).
    pub presence: Presence,
    /// What would be done for it.
    pub proposals: Vec<Proposal>,
    /// Its parts that have no settings in the request's scope, and why.
    pub left: Vec<(Part, &'static str)>,
}

/// Look at every agent of the request: its presence and, for those here,
/// what each part would write (nothing is written).
pub fn survey(request: &SetupRequest, env: &InstallEnv<'_>) -> Vec<Found> {
    let wanted = |agent: &Agent| request.agents.as_ref().is_none_or(|a| a.contains(agent));
    Agent::all()
        .filter(wanted)
        .map(|agent| {
            let presence = agent.presence(env);
            let mut proposals = Vec::new();
            let mut left = Vec::new();
            for part in Part::of(agent).into_iter().filter(|_| presence.found()) {
                match part.not_in(agent, request.scope) {
                    Some(why) => left.push((part, why)),
                    None => proposals.push(propose(agent, part, request.scope, env)),
                }
            }
            Found {
                agent,
                presence,
                proposals,
                left,
            }
        })
        .collect()
}

fn propose(agent: Agent, part: Part, scope: Scope, env: &InstallEnv<'_>) -> Proposal {
    let outcome = part
        .edit(agent, scope, env, false)
        .map_err(|e| e.message)
        .and_then(|planned| {
            let mut files = Vec::new();
            for write in &planned.writes {
                if let Some(why) = refused(&write.path) {
                    return Err(why);
                }
                let change = change_lines(write.before.as_deref(), &write.after);
                files.push((write.path.clone(), change));
            }
            Ok(files)
        });
    Proposal {
        agent,
        part,
        outcome,
    }
}

/// The survey for a person: per agent, where it was found and what would
/// be added where (or why not).
pub fn describe(found: &[Found]) -> String {
    let mut out = String::new();
    for f in found {
        let name = f.agent.integration().product;
        if !f.presence.found() {
            let _ = writeln!(out, "{name}: not found on this machine; left alone");
            continue;
        }
        let at = f
            .presence
            .binary
            .iter()
            .chain(&f.presence.dirs)
            .map(|p| crate::display::path_for_person(p))
            .collect::<Vec<_>>()
            .join(", ");
        let _ = writeln!(out, "{name}: found ({at})");
        for p in &f.proposals {
            match &p.outcome {
                Ok(files) if files.is_empty() => {
                    let _ = writeln!(out, "  {}: already set up", p.part.as_str());
                }
                Ok(files) => {
                    for (file, entry) in files {
                        let _ = writeln!(
                            out,
                            "  {}: add to {}:",
                            p.part.as_str(),
                            crate::display::path_for_person(file)
                        );
                        for line in entry.lines() {
                            let _ = writeln!(out, "    {}", escape_unsafe(line));
                        }
                    }
                }
                Err(why) => {
                    let _ = writeln!(out, "  {}: cannot: {}", p.part.as_str(), escape_unsafe(why));
                }
            }
        }
        for (part, why) in &f.left {
            let _ = writeln!(
                out,
                "  {}: no project settings: {why}; left alone",
                part.as_str()
            );
        }
    }
    if found.iter().all(|f| !f.presence.found()) {
        out.push_str("no supported agent was found; nothing to set up\n");
    }
    out
}

/// What setup says when every agent found has both parts already.
const NOTHING_TO_CHANGE: &str = "nothing to change: every agent found is set up already\n";

/// Whether anything would be written.
fn has_work(found: &[Found]) -> bool {
    found.iter().flat_map(|f| &f.proposals).any(|p| {
        p.outcome
            .as_ref()
            .is_ok_and(|files: &Vec<(PathBuf, String)>| !files.is_empty())
    })
}

/// Whether some part cannot be set up.
fn has_problem(found: &[Found]) -> bool {
    found
        .iter()
        .flat_map(|f| &f.proposals)
        .any(|p| p.outcome.is_err())
}

/// Make the proposed edits in the settings of `scope` (each part under
/// its installer's lock, read again there), record them in the receipt at
/// `receipt_path`, and return the report and whether every part went well.
pub fn apply(
    found: &[Found],
    scope: Scope,
    env: &InstallEnv<'_>,
    receipt_path: &Path,
) -> Result<(String, bool)> {
    let mut receipt = receipt::Receipt::load(receipt_path)?;
    let mut out = String::new();
    let mut ok = !has_problem(found);
    let mut changed = false;
    for p in found.iter().flat_map(|f| &f.proposals) {
        let product = p.agent.integration().product;
        let Ok(files) = &p.outcome else { continue };
        if files.is_empty() {
            continue;
        }
        // Looked at again: a link made since the survey is still refused.
        if let Some(why) = files.iter().find_map(|(file, _)| refused(file)) {
            let _ = writeln!(
                out,
                "{product}: {}: {}",
                p.part.as_str(),
                escape_unsafe(&why)
            );
            ok = false;
            continue;
        }
        let missing: Vec<PathBuf> = files
            .iter()
            .flat_map(|(file, _)| receipt::missing_dirs(file))
            .collect();
        match p.part.edit(p.agent, scope, env, true) {
            Ok(done) => {
                let project = (scope == Scope::Project).then_some(env.cwd);
                receipt.record(p.agent, p.part, project, &done, &missing);
                changed = true;
                for line in done.report.lines() {
                    let _ = writeln!(out, "{product}: {}", escape_unsafe(line));
                }
            }
            Err(e) => {
                let _ = writeln!(
                    out,
                    "{product}: {}: {}",
                    p.part.as_str(),
                    escape_unsafe(&e.message)
                );
                ok = false;
            }
        }
        // Saved after each part: a failure later keeps what was done undoable.
        if changed {
            receipt.save(receipt_path)?;
        }
    }
    if changed {
        let _ = writeln!(
            out,
            "receipt: {} (session-ref setup --undo puts every file back)",
            crate::display::path_for_person(receipt_path)
        );
    } else {
        out.push_str(NOTHING_TO_CHANGE);
    }
    Ok((out, ok))
}

/// Where the receipt is kept: `setup-receipt.json` in the state directory
/// ([`crate::draft::state_dir`]).
pub fn receipt_path(env: &dyn Fn(&str) -> Option<String>, home: Option<&Path>) -> Result<PathBuf> {
    crate::draft::state_dir(env, home)
        .map(|dir| dir.join(receipt::FILE))
        .ok_or_else(|| Error::invalid_config("neither $XDG_STATE_HOME nor $HOME is set"))
}

/// Ask once on the terminal whether to write; `Ok(false)` is a no.
fn confirm(plan: &str) -> Result<bool> {
    use std::io::{BufRead, IsTerminal, Write};
    if !std::io::stdin().is_terminal() {
        return Err(Error::invalid_config(
            "setup asks before writing, and stdin is not a terminal: pass --yes to write, or --dry-run to look",
        )
        .usage());
    }
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "{plan}Write these changes? [y/N] ");
    let _ = err.flush();
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|e| Error::invalid_config(format!("cannot read the answer: {e}")))?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes" | "Yes"))
}

/// `setup` with its request: the text for stdout and whether all went well.
pub fn run(
    request: &SetupRequest,
    env: &InstallEnv<'_>,
    receipt_path: &Path,
) -> Result<(String, bool)> {
    if request.undo {
        return receipt::undo(env, receipt_path);
    }
    let found = survey(request, env);
    let mut plan = describe(&found);
    if request.scope == Scope::Project {
        plan.insert_str(
            0,
            &format!(
                "project settings of {}\n",
                crate::display::path_for_person(env.cwd)
            ),
        );
    }
    if request.dry_run || !has_work(&found) {
        let mut out = plan;
        if has_work(&found) {
            out.push_str("dry run: nothing was written (run without --dry-run to write)\n");
        } else if found.iter().any(|f| f.presence.found()) {
            out.push_str(NOTHING_TO_CHANGE);
        }
        return Ok((out, !has_problem(&found)));
    }
    if !request.yes && !confirm(&plan)? {
        return Ok(("nothing was written\n".to_owned(), true));
    }
    let (done, ok) = apply(&found, request.scope, env, receipt_path)?;
    Ok((format!("{plan}{done}"), ok))
}

/// Run `setup`; `None` for any other command. Exits 1 when some agent or
/// file could not be set up (the rest is done).
pub fn run_command(config: &Config) -> Option<ExitCode> {
    let Command::Setup(request) = &config.command else {
        return None;
    };
    let result = crate::agents::with_process_env(|install_env| {
        receipt_path(install_env.env, install_env.home)
            .and_then(|path| run(request, install_env, &path))
            .and_then(|(text, ok)| Ok((crate::output::write_stdout(&text)?, ok)))
    });
    Some(match result {
        Ok(((), true)) => ExitCode::SUCCESS,
        Ok(((), false)) => ExitCode::from(crate::error::EXIT_FAILED),
        Err(e) => e.report(),
    })
}
