//! Every agent session-ref reaches inside — through its prompt-submit hook
//! and its MCP servers — described in one place: one file per agent and one
//! row per agent in [`TABLE`].
//!
//! Why: an agent's integration is a handful of facts measured against its
//! real CLI (see `../shared/spec/AGENTS.md`): the event its hook runs for
//! and what it keeps of the added context, where its hook and MCP settings
//! live and in what shape, what its hook reads on stdin and accepts back.
//! Kept beside each other, these facts are checked together; spread over
//! the hook, the MCP installer and the command line, a new agent had to be
//! taught to each of them. The code that acts on them is generic: the hook
//! ([`crate::hook`]), `hook install` ([`crate::hook::install`]) and `mcp
//! install` ([`crate::mcp::install`]) read an agent's [`Integration`] and
//! never name an agent; both installers edit files through
//! [`crate::settings_file`] (locked, parsed before anything is written,
//! backed up, edited in place, replaced atomically).
//!
//! | agent | hook event | cap (unit) | hook file | MCP entry (format) |
//! |---|---|---|---|---|
//! | [`claude`] | `UserPromptSubmit` | 10,000 (UTF-16 units) | `settings.json` | `mcpServers` of `.claude.json` / `.mcp.json` (JSON) |
//! | [`codex`] | `UserPromptSubmit` | 10,000 (bytes) | `hooks.json`, trust in `config.toml` | `[mcp_servers]` of `config.toml` (TOML) |
//! | [`gemini`] | `BeforeAgent` | 200,000 (bytes) | `settings.json` | `mcpServers` of `settings.json` (JSON) |
//! | [`copilot`] | `userPromptSubmitted` | 200,000 (bytes) | `hooks/session-ref.json` (our own) | `mcpServers` of `mcp-config.json` / `.mcp.json` (JSON) |
//! | [`qwen`] | `UserPromptSubmit` | 10,000 (UTF-16 units) | `settings.json` | `mcpServers` of `settings.json` (JSON) |
//! | [`opencode`] | — | — | — | `mcp` of `opencode.json(c)` (JSON) |
//! | [`kilo`] | — | — | — | `mcp` of `kilo.json(c)` (JSON) |
//! | [`droid`] | `UserPromptSubmit` | 200,000 (UTF-16 units; 185,000 seen whole) | `settings.json` | `mcpServers` of `mcp.json` (JSON) |
//! | [`crush`] | — | — | — | `mcp` of `crush.json` (JSON) |
//! | [`antigravity`] | — | — | — | `mcpServers` of `antigravity-cli/mcp_config.json` (JSON) |
//! | [`cursor`] | `beforeSubmitPrompt` (checks only) | — | `hooks.json` (flat) | `mcpServers` of `.cursor/mcp.json` (JSON) |
//! | [`cline`] | — | — | — | `mcpServers` of `cline_mcp_settings.json` (JSON, `transport`) |
//! | [`kimi`] | — | — | — | `mcpServers` of `$KIMI_SHARE_DIR/mcp.json` (JSON; user only) |
//! | [`vibe`] | — | — | — | `[[mcp_servers]]` of `$VIBE_HOME/config.toml` / `.vibe/config.toml` (TOML) |
//! | [`continue_cli`] | — | — | — | `mcpServers:` list of `~/.continue/config.yaml` (YAML; user only) |
//! | [`goose`] | — | — | — | `extensions:` map of `~/.config/goose/config.yaml` (YAML; user only) |
//!
//! **Adding an agent's integration** is one file and one table row: write
//! `src/agents/NAME.rs` with `pub const INTEGRATION: Integration = …` (its
//! hook and MCP facts, and the functions that locate its files), add `pub
//! mod NAME;` and `&NAME::INTEGRATION` to [`TABLE`] below. The command
//! line takes its word for `hook install|uninstall` and `mcp
//! install|uninstall` and its `session-ref hook NAME` subcommand (with its
//! [`Hook::about`] line of `--help`) from the table too.

pub mod antigravity;
pub mod claude;
pub mod cline;
pub mod codex;
pub mod continue_cli;
pub mod copilot;
pub mod crush;
pub mod cursor;
pub mod droid;
pub mod gemini;
pub mod goose;
pub mod input;
pub mod kilo;
pub mod kimi;
pub mod opencode;
pub mod qwen;
pub mod vibe;

/// The name session-ref's MCP server is registered under, in every agent.
pub const MCP_SERVER: &str = "session-ref";

/// What the host keeps whole by default: 10,000 characters (Claude Code) or
/// 10,000 bytes (Codex, `additionalContextLimit` 2,500 tokens of 4 bytes).
pub const DEFAULT_HOST_CAP: usize = 10_000;

/// The cap for hosts that keep added context whole however long: Gemini
/// CLI 0.61 passed 200,000 characters whole, and Copilot CLI 1.0.102 has
/// no documented limit; three snapshots of the default 64 KiB fit.
pub const UNCAPPED_HOST_CAP: usize = 200_000;

/// Where the hook is registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scope {
    /// The user's settings (every project).
    #[default]
    User,
    /// The current project's settings.
    Project,
}

use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{Error, Result};
use input::HookInput;
use session_ref_engine::budget::Measure;

/// Every agent's integration, in the order the command line lists them.
pub const TABLE: &[&Integration] = &[
    &claude::INTEGRATION,
    &codex::INTEGRATION,
    &gemini::INTEGRATION,
    &opencode::INTEGRATION,
    &copilot::INTEGRATION,
    &qwen::INTEGRATION,
    &kilo::INTEGRATION,
    &droid::INTEGRATION,
    &crush::INTEGRATION,
    &antigravity::INTEGRATION,
    &cursor::INTEGRATION,
    &cline::INTEGRATION,
    &kimi::INTEGRATION,
    &vibe::INTEGRATION,
    &continue_cli::INTEGRATION,
    &goose::INTEGRATION,
];

/// What session-ref knows of one agent's hook and MCP settings.
#[derive(Debug)]
pub struct Integration {
    /// The agent's word on the command line (`hook install claude`).
    pub name: &'static str,
    /// The agent's name for a person (`Claude Code`).
    pub product: &'static str,
    /// Its prompt-submit hook, when it has one session-ref answers.
    pub hook: Option<Hook>,
    /// How its MCP servers are registered, when it has them.
    pub mcp: Option<Mcp>,
    /// How `setup` and `doctor` tell that it is on this machine.
    pub detect: Detect,
}

/// How to tell that an agent is on this machine: its program on `$PATH`,
/// or one of its user directories (settings or sessions) present. One
/// rule, read by `setup` (which never touches an agent that is not there)
/// and `doctor`.
#[derive(Debug)]
pub struct Detect {
    /// The program's name on `$PATH`.
    pub binary: &'static str,
    /// Its user directories (settings, sessions), as this environment
    /// places them.
    pub dirs: fn(&InstallEnv<'_>) -> Vec<PathBuf>,
}

/// Where an agent was found ([`Agent::presence`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Presence {
    /// Its program on `$PATH`.
    pub binary: Option<PathBuf>,
    /// Its user directories that exist.
    pub dirs: Vec<PathBuf>,
}

impl Presence {
    /// Whether anything of the agent is here.
    pub fn found(&self) -> bool {
        self.binary.is_some() || !self.dirs.is_empty()
    }
}

/// Whether `path` is a file this user may run.
pub fn runs(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The first `name` on `path` (a `$PATH` value) that runs.
pub fn on_path(path: &str, name: &str) -> Option<PathBuf> {
    std::env::split_paths(path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(name))
        .find(|candidate| runs(candidate))
}

/// One agent's prompt-submit hook.
#[derive(Debug)]
pub struct Hook {
    /// The line `--help` shows for `session-ref hook NAME`.
    pub about: &'static str,
    /// The event the hook is registered for, as the agent names it in its
    /// settings and in the hook's input.
    pub event: &'static str,
    /// The default `--budget`: what the host keeps whole of added context.
    pub cap: usize,
    /// How the host counts added context.
    pub measure: Measure,
    /// Parse the hook's stdin.
    pub input: fn(&str) -> Result<HookInput>,
    /// The answer that adds a text to the model's context.
    pub context: fn(&str) -> Value,
    /// The answer that stops the prompt: the reason, and a further line
    /// for the user when there is one ([`decision_block`] for every host
    /// but Cursor).
    pub block: fn(&str, Option<&str>) -> Value,
    /// Whether a blocked prompt is kept in a draft file (every host but
    /// one that gives the prompt back with the reason).
    pub keeps_draft: bool,
    /// Where install writes the hook, for a scope.
    pub files: fn(Scope, &InstallEnv<'_>) -> Result<HookFiles>,
    /// The handler object install writes for the hook command, from the
    /// command and the installed `--budget`.
    pub handler: fn(&str, Option<usize>) -> Value,
    /// How the hook sits in its file.
    pub layout: HookLayout,
}

/// How a hook sits in its settings file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookLayout {
    /// A group `{"hooks": [handler]}` appended to `hooks.EVENT` of a
    /// settings file shared with the user's other settings, edited in place.
    Shared,
    /// A file of session-ref's own, `{"version": 1, "hooks": {EVENT:
    /// [handler]}}`, written whole and removed whole.
    Own,
    /// The handler itself appended to `hooks.EVENT` of a settings file
    /// shared with the user's other hooks, edited in place; a file install
    /// creates starts `{"version": 1, …}` (Cursor's `hooks.json`).
    Flat,
}

/// The files one hook installation touches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookFiles {
    /// The settings file holding the hook.
    pub hooks_file: PathBuf,
    /// Codex's user `config.toml`, where its trust of the hook is recorded;
    /// `None` for the agents that run hooks untrusted.
    pub codex_config: Option<PathBuf>,
}

/// One agent's MCP server registration.
#[derive(Debug)]
pub struct Mcp {
    /// Where the servers are kept, for a scope.
    pub place: fn(Scope, &InstallEnv<'_>) -> Result<McpPlace>,
    /// The entry's format.
    pub format: McpFormat,
    /// What install adds to its report for this agent and scope.
    pub notes: fn(Scope) -> &'static str,
    /// Why the agent has no project-level MCP settings (`None`: it reads
    /// them from the project too); `mcp install --project` and `setup
    /// --project` say it, and leave the agent's user settings alone.
    pub user_only: Option<&'static str>,
}

/// How an agent's configuration holds its MCP servers.
#[derive(Debug, Clone, Copy)]
pub enum McpFormat {
    /// A JSON (with comments) object of servers under `key`, each entry
    /// `entry(program, args)`.
    Json {
        /// The servers' object (`mcpServers`, `mcp`).
        key: &'static str,
        /// The entry the agent's own `mcp add` writes.
        entry: fn(&str, &[String]) -> Value,
        /// The `$schema` a file that install creates starts with.
        schema: Option<&'static str>,
    },
    /// A TOML table `[mcp_servers.NAME]` with `command` and `args` (Codex).
    Toml,
    /// A TOML array of tables `[[mcp_servers]]`, ours the one whose `name`
    /// is ours, each `entry(program, args)` (Mistral Vibe).
    TomlList {
        /// The entry the agent's schema takes.
        entry: fn(&str, &[String]) -> toml_edit::Table,
    },
    /// A top-level YAML block under `key`, edited as text
    /// ([`crate::settings_file::yaml`]), each entry `entry(program, args)`.
    Yaml {
        /// The block (`mcpServers`, `extensions`).
        key: &'static str,
        /// A list of named entries or a map of them.
        shape: crate::settings_file::yaml::Shape,
        /// The entry the agent's own configurator writes.
        entry: fn(&str, &[String]) -> Value,
        /// Why install does not create the file when it is missing
        /// (`None`: it does).
        needs_file: Option<&'static str>,
    },
}

/// Where an agent keeps its MCP servers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpPlace {
    /// The settings file.
    pub file: PathBuf,
    /// A settings file of the same scope whose `permissions.allow` gets
    /// the server's tools (Claude Code), when the agent asks otherwise.
    pub permissions: Option<PathBuf>,
}

/// The block most hosts take: `{"decision": "block", "reason": …}`, with
/// the further line as a `systemMessage` (Codex shows it).
pub fn decision_block(reason: &str, notice: Option<&str>) -> Value {
    let mut value = serde_json::json!({"decision": "block", "reason": reason});
    if let Some(notice) = notice {
        value["systemMessage"] = Value::String(notice.to_owned());
    }
    value
}

/// The handler most agents take: a command hook running `command`.
pub fn command_handler(command: &str, _budget: Option<usize>) -> Value {
    serde_json::json!({"type": "command", "command": command})
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

/// Run `f` with this process's surroundings: its environment, `$HOME`,
/// current directory and own path (`session-ref` when unknown). The one
/// place the installers, `setup` and `doctor` read them.
pub fn with_process_env<T>(f: impl FnOnce(&InstallEnv<'_>) -> T) -> T {
    let env = |key: &str| std::env::var(key).ok();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let cwd = std::env::current_dir().unwrap_or_default();
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("session-ref"));
    f(&InstallEnv {
        env: &env,
        home: home.as_deref(),
        cwd: &cwd,
        exe: &exe,
    })
}

impl InstallEnv<'_> {
    /// `$var` when set and not empty (relative to the current directory).
    pub fn var_dir(&self, var: &str) -> Option<PathBuf> {
        (self.env)(var)
            .filter(|v| !v.is_empty())
            .map(|dir| self.cwd.join(dir))
    }

    /// `$var`, else `fallback` under the home directory.
    pub fn dir_of(&self, var: &str, fallback: &str) -> Result<PathBuf> {
        match self.var_dir(var) {
            Some(dir) => Ok(dir),
            None => self
                .home
                .map(|h| h.join(fallback))
                .ok_or_else(|| Error::invalid_config(format!("neither ${var} nor $HOME is set"))),
        }
    }

    /// The home directory.
    pub fn home(&self) -> Result<PathBuf> {
        self.home
            .map(Path::to_path_buf)
            .ok_or_else(|| Error::invalid_config("$HOME is not set"))
    }
}

/// An agent of [`TABLE`]: a name for its [`Integration`].
#[derive(Clone, Copy)]
pub struct Agent(&'static Integration);

impl Agent {
    /// Parse this agent's hook stdin, in the shape its host sends
    /// ([`Hook::input`]).
    pub fn parse_hook_input(self, raw: &str) -> Result<HookInput> {
        (self.hook().input)(raw)
    }

    /// The agent whose command-line word is `name`.
    pub fn named(name: &str) -> Option<Agent> {
        TABLE.iter().find(|i| i.name == name).map(|&i| Agent(i))
    }

    /// Every agent, in table order.
    pub fn all() -> impl Iterator<Item = Agent> {
        TABLE.iter().map(|&i| Agent(i))
    }

    /// The agent's word on the command line.
    pub fn as_str(self) -> &'static str {
        self.0.name
    }

    /// Everything known of its integration.
    pub fn integration(self) -> &'static Integration {
        self.0
    }

    /// Its hook. Only an agent with one is ever asked (the command line
    /// offers `hook` for those alone).
    pub fn hook(self) -> &'static Hook {
        self.0
            .hook
            .as_ref()
            .unwrap_or_else(|| panic!("{} has no hook", self.0.name))
    }

    /// Its MCP registration (see [`Agent::hook`]).
    pub fn mcp(self) -> &'static Mcp {
        self.0
            .mcp
            .as_ref()
            .unwrap_or_else(|| panic!("{} has no MCP servers", self.0.name))
    }

    /// The event its hook runs for.
    pub fn event(self) -> &'static str {
        self.hook().event
    }

    /// Whether, and where, the agent is on this machine ([`Detect`]).
    pub fn presence(self, env: &InstallEnv<'_>) -> Presence {
        let detect = &self.0.detect;
        Presence {
            binary: (env.env)("PATH").and_then(|path| on_path(&path, detect.binary)),
            dirs: (detect.dirs)(env)
                .into_iter()
                .filter(|dir| dir.is_dir())
                .collect(),
        }
    }
}

impl PartialEq for Agent {
    fn eq(&self, other: &Agent) -> bool {
        self.0.name == other.0.name
    }
}

impl Eq for Agent {}

impl fmt::Debug for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.name)
    }
}

/// The agents with a hook, for the command line.
pub fn with_hook() -> impl Iterator<Item = Agent> {
    Agent::all().filter(|a| a.0.hook.is_some())
}

/// The agents with MCP servers, for the command line.
pub fn with_mcp() -> impl Iterator<Item = Agent> {
    Agent::all().filter(|a| a.0.mcp.is_some())
}

/// The value parser of an agent word: the table's agents that have a hook
/// (`hook`) or MCP servers, with their products as the values' help.
#[derive(Debug, Clone, Copy)]
pub struct AgentWord {
    /// Hook agents (else MCP ones).
    pub hook: bool,
}

impl AgentWord {
    fn agents(self) -> Vec<Agent> {
        if self.hook {
            with_hook().collect()
        } else {
            with_mcp().collect()
        }
    }
}

impl clap::builder::TypedValueParser for AgentWord {
    type Value = Agent;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> std::result::Result<Agent, clap::Error> {
        let names: Vec<&str> = self.agents().iter().map(|a| a.as_str()).collect();
        let word = clap::builder::PossibleValuesParser::new(names).parse_ref(cmd, arg, value)?;
        Ok(Agent::named(&word).expect("a word of the table"))
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(self.agents().into_iter().map(|a| {
            clap::builder::PossibleValue::new(a.as_str()).help(a.0.product)
        })))
    }
}

pub use session_ref_engine::agent_key::{AgentKey, AGENT_KEY, OLD_AGENT_KEY};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_names_each_agent_once_and_every_agent_has_something() {
        let names: Vec<&str> = Agent::all().map(Agent::as_str).collect();
        assert_eq!(
            names,
            [
                "claude",
                "codex",
                "gemini",
                "opencode",
                "copilot",
                "qwen",
                "kilo",
                "droid",
                "crush",
                "antigravity",
                "cursor",
                "cline",
                "kimi",
                "vibe",
                "continue",
                "goose"
            ]
        );
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len());
        for agent in Agent::all() {
            let i = agent.integration();
            assert!(i.hook.is_some() || i.mcp.is_some(), "{agent:?}");
            assert_eq!(Agent::named(i.name), Some(agent));
        }
        let hooks: Vec<&str> = with_hook().map(Agent::as_str).collect();
        assert_eq!(
            hooks,
            ["claude", "codex", "gemini", "copilot", "qwen", "droid", "cursor"]
        );
        assert_eq!(with_mcp().count(), 16);
        assert_eq!(Agent::named("claudette"), None);
    }

    #[test]
    fn the_hook_facts_are_the_measured_ones() {
        let facts: Vec<(&str, &str, usize, Measure)> = with_hook()
            .map(|a| (a.as_str(), a.event(), a.hook().cap, a.hook().measure))
            .collect();
        assert_eq!(
            facts,
            [
                ("claude", "UserPromptSubmit", 10_000, Measure::Utf16Units),
                ("codex", "UserPromptSubmit", 10_000, Measure::Utf8Bytes),
                ("gemini", "BeforeAgent", 200_000, Measure::Utf8Bytes),
                (
                    "copilot",
                    "userPromptSubmitted",
                    200_000,
                    Measure::Utf8Bytes
                ),
                ("qwen", "UserPromptSubmit", 10_000, Measure::Utf16Units),
                ("droid", "UserPromptSubmit", 200_000, Measure::Utf16Units),
                ("cursor", "beforeSubmitPrompt", 200_000, Measure::Utf8Bytes),
            ]
        );
    }
}
