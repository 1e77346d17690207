//! The command line: its syntax (clap derive), its conversion into a
//! validated [`Config`](crate::config::Config) (the types of
//! [`crate::config`]), and the texts made from it (`--help`'s, the manual
//! pages, the completion scripts). No clap type goes past this module, and
//! nothing but `main` imports it.
//!
//! One file per part, imports running one way: `syntax` (the flags and
//! commands as clap parses them; `values`, what a flag's value must look
//! like) and `docs` (the help's texts, the manual, completions: given the
//! command, never importing its definition) below `conversion` (into the
//! config). This file is the entry: parse the process's arguments, with
//! clap's errors reshaped.

mod conversion;
mod docs;
mod integrations;
mod syntax;
mod values;

pub use syntax::Cli;
use syntax::PickArgs;

impl Cli {
    /// Parse the process's arguments: clap's errors (exit 2), and picker
    /// options given with another command, which is a usage error too.
    pub fn parse_args() -> std::result::Result<Cli, clap::Error> {
        Self::parse_from(std::env::args_os())
    }

    /// [`Cli::parse_args`] over `args` (the program's name first).
    pub fn parse_from<I, T>(args: I) -> std::result::Result<Cli, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        let matches = Cli::full_command()
            .try_get_matches_from(args)
            .map_err(|e| with_command_usage(e, &mut Cli::full_command()))?;
        Self::check(<Cli as clap::FromArgMatches>::from_arg_matches(&matches)?)
    }

    /// The command with its long help's end: the picker's keys (from the
    /// key table) and the exit codes.
    pub fn full_command() -> clap::Command {
        <Cli as clap::CommandFactory>::command().after_long_help(docs::long_help_end())
    }

    /// Picker options with another command are a usage error.
    pub(super) fn check(cli: Cli) -> std::result::Result<Cli, clap::Error> {
        if cli.command.is_some() && cli.pick != PickArgs::default() {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            return Err(cmd.error(
                clap::error::ErrorKind::ArgumentConflict,
                "picker options (--format, --output, --exec, --tmux, --tmux-paste, \
                 --tmux-paste-force, --query, --prompt, --prompt-file, --no-mouse, \
                 --preview-window) go with `session-ref` or `session-ref pick`, before \
                 no other command",
            ));
        }
        Ok(cli)
    }
}

/// The usage line of a rejected command line: clap's lists the arguments
/// already given rather than the command's usage, so `--store x --bogus`
/// was answered with `Usage: session-ref --store <DIR>`, which reads as
/// though `--store` were all there is (or were required). It is replaced by
/// the usage of the (sub)command the error is about, the words of clap's
/// line before its first argument.
fn with_command_usage(mut error: clap::Error, cmd: &mut clap::Command) -> clap::Error {
    use clap::error::{ContextKind, ContextValue};
    let Some(ContextValue::StyledStr(usage)) = error.get(ContextKind::Usage) else {
        return error;
    };
    let text = usage.to_string();
    let path: Vec<String> = text
        .trim_start()
        .trim_start_matches("Usage:")
        .split_whitespace()
        .skip(1)
        .take_while(|word| !word.starts_with(['-', '[', '<']))
        .map(str::to_owned)
        .collect();
    cmd.build();
    let mut command = cmd;
    for name in &path {
        match command.find_subcommand_mut(name) {
            Some(sub) => command = sub,
            None => return error,
        }
    }
    error.insert(
        ContextKind::Usage,
        ContextValue::StyledStr(command.render_usage()),
    );
    error
}

#[cfg(test)]
mod tests;
