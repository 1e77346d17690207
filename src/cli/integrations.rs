//! The syntax of `hook …` and `mcp …`: one `hook NAME` per agent of
//! [`crate::agents::TABLE`] with a hook, and the install/uninstall arguments
//! both share; what they mean is [`super::conversion`]'s.

use clap::{ArgMatches, Args, FromArgMatches, Subcommand};

use crate::agents::{Agent, AgentWord};

/// `hook …`: one `hook NAME` per agent of [`crate::agents::TABLE`] with a
/// hook (in table order, each with its [`crate::agents::Hook::about`]),
/// then `install` and `uninstall`. Written out rather than derived so that
/// the agents' subcommands come from the table.
#[derive(Debug)]
pub(super) enum HookAction {
    /// Answer an agent's prompt-submit hook (its JSON on stdin).
    Run(Agent, HookRunArgs),
    /// Register the hook in the agent's settings (backed up first).
    Install(HookInstallArgs),
    /// Remove what `hook install` added.
    Uninstall(HookUninstallArgs),
}

/// `hook install`'s line of `--help`.
const HOOK_INSTALL_ABOUT: &str = "Register the hook in the agent's settings (backed up first)";
/// `hook uninstall`'s line of `--help`.
const HOOK_UNINSTALL_ABOUT: &str = "Remove what `hook install` added";

impl HookAction {
    fn augment(cmd: clap::Command, update: bool) -> clap::Command {
        let run_args = if update {
            HookRunArgs::augment_args_for_update
        } else {
            HookRunArgs::augment_args
        };
        let mut cmd = cmd;
        for agent in crate::agents::with_hook() {
            let sub = run_args(clap::Command::new(agent.as_str()));
            cmd = cmd.subcommand(sub.about(agent.hook().about).long_about(None));
        }
        let (install, uninstall) = if update {
            (
                HookInstallArgs::augment_args_for_update(clap::Command::new("install")),
                HookUninstallArgs::augment_args_for_update(clap::Command::new("uninstall")),
            )
        } else {
            (
                HookInstallArgs::augment_args(clap::Command::new("install")),
                HookUninstallArgs::augment_args(clap::Command::new("uninstall")),
            )
        };
        cmd.subcommand(install.about(HOOK_INSTALL_ABOUT).long_about(None))
            .subcommand(uninstall.about(HOOK_UNINSTALL_ABOUT).long_about(None))
    }
}

impl FromArgMatches for HookAction {
    fn from_arg_matches(matches: &ArgMatches) -> std::result::Result<Self, clap::Error> {
        Self::from_arg_matches_mut(&mut matches.clone())
    }

    fn from_arg_matches_mut(matches: &mut ArgMatches) -> std::result::Result<Self, clap::Error> {
        let Some((name, mut sub)) = matches.remove_subcommand() else {
            return Err(clap::Error::raw(
                clap::error::ErrorKind::MissingSubcommand,
                "a subcommand is required but one was not provided",
            ));
        };
        match name.as_str() {
            "install" => Ok(HookAction::Install(HookInstallArgs::from_arg_matches_mut(
                &mut sub,
            )?)),
            "uninstall" => Ok(HookAction::Uninstall(
                HookUninstallArgs::from_arg_matches_mut(&mut sub)?,
            )),
            word => match crate::agents::with_hook().find(|a| a.as_str() == word) {
                Some(agent) => Ok(HookAction::Run(
                    agent,
                    HookRunArgs::from_arg_matches_mut(&mut sub)?,
                )),
                None => Err(clap::Error::raw(
                    clap::error::ErrorKind::InvalidSubcommand,
                    format!("the subcommand '{word}' wasn't recognized"),
                )),
            },
        }
    }

    fn update_from_arg_matches(
        &mut self,
        matches: &ArgMatches,
    ) -> std::result::Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl Subcommand for HookAction {
    fn augment_subcommands(cmd: clap::Command) -> clap::Command {
        HookAction::augment(cmd, false)
    }

    fn augment_subcommands_for_update(cmd: clap::Command) -> clap::Command {
        HookAction::augment(cmd, true)
    }

    fn has_subcommand(name: &str) -> bool {
        matches!(name, "install" | "uninstall")
            || crate::agents::with_hook().any(|a| a.as_str() == name)
    }
}

#[derive(Debug, Args)]
pub(super) struct HookRunArgs {
    /// Most the whole added context may take, in the host's unit (Claude
    /// Code, Qwen Code: characters; Codex, Gemini CLI, Copilot CLI: bytes)
    /// [default: 10000; Gemini CLI and Copilot CLI: 200000].
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub(super) budget: Option<String>,
}

#[derive(Debug, Args)]
pub(super) struct HookInstallArgs {
    /// The agent.
    #[arg(value_parser = AgentWord { hook: true })]
    pub(super) agent: Agent,
    /// The current project's settings instead of the user's.
    #[arg(long)]
    pub(super) project: bool,
    /// Print the configuration instead of writing it.
    #[arg(long)]
    pub(super) print: bool,
    /// Install the hook with this `--budget`; for Codex, also raise the
    /// handler's `additionalContextLimit` to match.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub(super) budget: Option<String>,
}

#[derive(Debug, Args)]
pub(super) struct HookUninstallArgs {
    /// The agent.
    #[arg(value_parser = AgentWord { hook: true })]
    pub(super) agent: Agent,
    /// The current project's settings instead of the user's.
    #[arg(long)]
    pub(super) project: bool,
}

#[derive(Debug, Subcommand)]
pub(super) enum McpAction {
    /// Register `session-ref mcp` with an agent, as its own `mcp add` does
    /// (backed up first; read-only tools pre-approved where it asks).
    Install(McpInstallArgs),
    /// Remove what `mcp install` added.
    Uninstall(McpInstallArgs),
}

#[derive(Debug, Args)]
pub(super) struct McpInstallArgs {
    /// The agent.
    #[arg(value_parser = AgentWord { hook: false })]
    pub(super) agent: Agent,
    /// The current project's settings instead of the user's.
    #[arg(long)]
    pub(super) project: bool,
}
