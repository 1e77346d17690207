//! Command-line syntax (clap derive) and its conversion into a validated
//! [`Config`] (the types of [`crate::config`]). No clap type goes past
//! this module, and nothing but `main` imports it.

use std::path::PathBuf;

use clap::{Arg, ArgAction, ArgMatches, Args, FromArgMatches, Parser, Subcommand, ValueEnum};

use crate::config::{
    self, Agent, Command, Config, Destination, InputFormat, InstallRequest, McpAgent, McpRequest,
    OutputFormat, PickFormat, PickOptions, PopupSpec, PreviewWindow, Scope, SortBy,
};
use crate::error::{Error, ErrorCode, Result};
use session_ref_core::candidates::Target;
use session_ref_stores::{StoreRoots, REGISTRY};

/// The command line as clap parses it. Its help opens with `SUMMARY`
/// and `long_about`, which lists the store kinds from the registry.
#[derive(Debug, Parser)]
#[command(
    name = "session-ref",
    version,
    about = SUMMARY,
    long_about = long_about(),
    max_term_width = 100
)]
pub struct Cli {
    #[command(flatten)]
    global: GlobalArgs,
    /// Picker options, for `session-ref` without a command.
    #[command(flatten)]
    pick: PickArgs,
    #[command(subcommand)]
    command: Option<CommandArgs>,
}

/// The first line of `--help`.
const SUMMARY: &str =
    "Pick coding-agent sessions and put byte-budgeted, read-only snapshots of them into a prompt.";

/// The start of `session-ref --help`: what the tool does and where
/// sessions come from, the sources named by the registry's kinds (each
/// store flag's own help states its default location).
fn long_about() -> String {
    let origins: Vec<&str> = REGISTRY.iter().map(|k| k.store().origin()).collect();
    let sources = match origins.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    };
    format!(
        "{SUMMARY}\n\nWith no command, opens the interactive picker. Sessions come from \
         {sources}; with no store flag, the default location of each store flag that \
         exists is read."
    )
}

/// The store flags: one repeatable `--FLAG DIR` per registered store kind
/// (`--store`, `--claude`, `--codex`, …), made from the registry so that a
/// new kind brings its flag with it.
#[derive(Debug, Default)]
struct StoreArgs {
    roots: StoreRoots,
}

impl FromArgMatches for StoreArgs {
    fn from_arg_matches(matches: &ArgMatches) -> std::result::Result<Self, clap::Error> {
        let mut roots = StoreRoots::new();
        for kind in REGISTRY {
            let flag = kind.store().flag();
            for dir in matches.get_many::<PathBuf>(flag).into_iter().flatten() {
                roots.push(*kind, dir.clone());
            }
        }
        Ok(StoreArgs { roots })
    }

    fn update_from_arg_matches(
        &mut self,
        matches: &ArgMatches,
    ) -> std::result::Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl Args for StoreArgs {
    fn augment_args(command: clap::Command) -> clap::Command {
        REGISTRY.iter().fold(command, |command, kind| {
            let store = kind.store();
            command.arg(
                Arg::new(store.flag())
                    .long(store.flag())
                    .value_name("DIR")
                    .value_parser(clap::value_parser!(PathBuf))
                    .action(ArgAction::Append)
                    .global(true)
                    .help(format!(
                        "{} (repeatable) [default: {}, when it exists].",
                        store.root_help(),
                        session_ref_stores::default_roots_help(*kind)
                    )),
            )
        })
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        Self::augment_args(command)
    }
}

#[derive(Debug, Args)]
#[command(next_help_heading = "Global options (any command)")]
struct GlobalArgs {
    #[command(flatten)]
    stores: StoreArgs,
    /// The session being written to: excluded from candidates, rejected as a reference.
    #[arg(long, value_name = "ID", global = true)]
    session: Option<String>,
    /// Working directory that ranks first [default: the current directory].
    #[arg(long, value_name = "DIR", global = true)]
    cwd: Option<String>,
    /// Most distinct sessions one message may cite (1 to 3).
    #[arg(
        long,
        value_name = "N",
        global = true,
        default_value = "3",
        allow_hyphen_values = true
    )]
    max_references: String,
    /// Default number of candidates listed.
    #[arg(
        long,
        value_name = "N",
        global = true,
        default_value = "50",
        allow_hyphen_values = true
    )]
    candidate_limit: String,
    /// UTF-8 budget of one session's snapshot (serialized JSON bytes)
    /// [default: 65536; `mcp`: 32768, what every agent keeps whole].
    #[arg(long, value_name = "BYTES", global = true, allow_hyphen_values = true)]
    max_reference_bytes: Option<String>,
    /// Report files that are not sessions, and other details, on stderr.
    #[arg(long, short, global = true)]
    verbose: bool,
    /// Read every session file instead of the title index in
    /// $XDG_CACHE_HOME/session-ref (else ~/.cache/session-ref).
    #[arg(long, global = true)]
    no_cache: bool,
    /// Also list the sessions another machine's session-ref sees, over ssh
    /// (repeatable; an ssh alias or user@host; `[[remote]]` entries of
    /// $XDG_CONFIG_HOME/session-ref/config.toml are added).
    #[arg(long, value_name = "HOST", global = true, action = ArgAction::Append)]
    remote: Vec<String>,
}

#[derive(Debug, Subcommand)]
enum CommandArgs {
    /// Open the interactive picker (the default).
    Pick(PickArgs),
    /// List sessions that can be referenced, best first.
    Candidates {
        /// Keep sessions whose id, cwd or title contains this (case-insensitive).
        query: Option<String>,
        /// How many to list [default: --candidate-limit].
        #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = limit_syntax)]
        limit: Option<String>,
        /// Also list fuzzy (subsequence) matches after the exact ones.
        #[arg(long)]
        fuzzy: bool,
        /// One JSON object per line.
        #[arg(long)]
        json: bool,
        /// Order within each directory group: `created` (newest first, the
        /// reference's order) or `updated` (last activity: the newest time
        /// the session records, else the log's modification time).
        #[arg(long, value_enum, default_value_t = SortArg::Created)]
        sort: SortArg,
    },
    /// Find sessions by what was said in them (typed prompts, assistant
    /// text and compaction summaries, over the whole history), newest first.
    ///
    /// Every word must appear (smart case: an upper-case letter makes the
    /// search case-sensitive); "quoted phrases" match exactly.
    Search {
        /// Words and "phrases", or a regular expression with --regex.
        query: String,
        /// Read QUERY as a regular expression (Rust regex syntax).
        #[arg(long)]
        regex: bool,
        /// Stop after N matching sessions [default: --candidate-limit].
        #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = limit_syntax)]
        limit: Option<String>,
        /// One JSON object per line.
        #[arg(long)]
        json: bool,
        /// Read the logs only: neither use nor update the search index
        /// (kept in $SESSION_REF_CACHE_DIR, $XDG_CACHE_HOME/session-ref or
        /// ~/.cache/session-ref).
        #[arg(long)]
        no_index: bool,
    },
    /// Replace mentions by readable text and append the sessions' snapshot.
    Prepare {
        /// The message; read from stdin when absent.
        text: Option<String>,
        /// What stdin holds.
        #[arg(long, value_enum, default_value_t = InputArg::Text)]
        input: InputArg,
        /// What to write.
        #[arg(long, value_enum, default_value_t = OutputArg::Text)]
        format: OutputArg,
    },
    /// Show the snapshot a mention of one session injects, and its stats.
    Preview {
        /// Session id, the start of exactly one id (4+ characters), a
        /// hydra-session: URI, or a mention as `candidates --json` prints it.
        id: String,
        /// Label to serialize [default: the latest title, else the id].
        #[arg(long, value_name = "L")]
        label: Option<String>,
        /// `{"reference": stats, "context": text}` as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print the canonical mention of a session.
    Mention {
        /// Session id, the start of exactly one id (4+ characters), a
        /// hydra-session: URI, or a mention (its label kept).
        id: String,
        /// Label [default: the mention's, else the latest title, else the
        /// id]; with it no store is read and the id is taken as given.
        #[arg(long, value_name = "L")]
        label: Option<String>,
    },
    /// Encode or decode hydra-session: URIs.
    Uri {
        #[command(subcommand)]
        action: UriAction,
    },
    /// Resolve mentions typed into an agent, as its prompt-submit hook
    /// (Claude Code, Codex, Gemini CLI, Copilot CLI, Qwen Code).
    Hook {
        #[command(subcommand)]
        action: HookAction,
    },
    /// Sessions on other machines: check a host, or serve this machine's
    /// sessions to another one (what `--remote` runs over ssh).
    Remote {
        #[command(subcommand)]
        action: RemoteAction,
    },
    /// Serve MCP on stdin/stdout (tools list_sessions, search_sessions,
    /// read_session; every session as a resource; the prompt `cite`), or
    /// register that server with an agent.
    Mcp {
        #[command(subcommand)]
        action: Option<McpAction>,
        /// Search the logs only: neither use nor update the search index.
        #[arg(long)]
        no_index: bool,
    },
    /// Print a shell completion script (e.g. `session-ref completions bash
    /// > ~/.local/share/bash-completion/completions/session-ref`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print a manual page (roff): session-ref's, or a command's with its
    /// options (`session-ref man search | man -l -`); or write every page
    /// into a directory with --dir.
    Man {
        /// The command whose page to print (`search`, `hook install`)
        /// [default: session-ref's own].
        #[arg(value_parser = CommandWord, hide_possible_values = true)]
        command: Vec<String>,
        /// Write every page (session-ref.1, session-ref-search.1, …) into
        /// DIR, e.g. ~/.local/share/man/man1, so that `man
        /// session-ref-search` finds them; prints the files written.
        #[arg(long, value_name = "DIR", conflicts_with = "command")]
        dir: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
enum HookAction {
    /// Answer Claude Code's UserPromptSubmit hook (its JSON on stdin).
    Claude(HookRunArgs),
    /// Answer Codex's UserPromptSubmit hook (its JSON on stdin).
    Codex(HookRunArgs),
    /// Answer Gemini CLI's BeforeAgent hook (its JSON on stdin).
    Gemini(HookRunArgs),
    /// Answer Copilot CLI's userPromptSubmitted hook (its JSON on stdin).
    Copilot(HookRunArgs),
    /// Answer Qwen Code's UserPromptSubmit hook (its JSON on stdin).
    Qwen(HookRunArgs),
    /// Register the hook in the agent's settings (backed up first).
    Install(HookInstallArgs),
    /// Remove what `hook install` added.
    Uninstall(HookUninstallArgs),
}

#[derive(Debug, Args)]
struct HookRunArgs {
    /// Most the whole added context may take, in the host's unit (Claude
    /// Code, Qwen Code: characters; Codex, Gemini CLI, Copilot CLI: bytes)
    /// [default: 10000; Gemini CLI and Copilot CLI: 65536].
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    budget: Option<String>,
}

#[derive(Debug, Args)]
struct HookInstallArgs {
    /// The agent.
    #[arg(value_enum)]
    agent: AgentArg,
    /// The current project's settings instead of the user's.
    #[arg(long)]
    project: bool,
    /// Print the configuration instead of writing it.
    #[arg(long)]
    print: bool,
    /// Install the hook with this `--budget`; for Codex, also raise the
    /// handler's `additionalContextLimit` to match.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    budget: Option<String>,
}

#[derive(Debug, Args)]
struct HookUninstallArgs {
    /// The agent.
    #[arg(value_enum)]
    agent: AgentArg,
    /// The current project's settings instead of the user's.
    #[arg(long)]
    project: bool,
}

/// An agent whose prompt-submit hook session-ref answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum AgentArg {
    /// Claude Code.
    Claude,
    /// Codex CLI.
    Codex,
    /// Gemini CLI.
    Gemini,
    /// GitHub Copilot CLI.
    Copilot,
    /// Qwen Code.
    Qwen,
}

impl From<AgentArg> for Agent {
    fn from(agent: AgentArg) -> Agent {
        match agent {
            AgentArg::Claude => Agent::Claude,
            AgentArg::Codex => Agent::Codex,
            AgentArg::Gemini => Agent::Gemini,
            AgentArg::Copilot => Agent::Copilot,
            AgentArg::Qwen => Agent::Qwen,
        }
    }
}

#[derive(Debug, Subcommand)]
enum McpAction {
    /// Register `session-ref mcp` with an agent, as its own `mcp add` does
    /// (backed up first; read-only tools pre-approved where it asks).
    Install(McpInstallArgs),
    /// Remove what `mcp install` added.
    Uninstall(McpInstallArgs),
}

#[derive(Debug, Args)]
struct McpInstallArgs {
    /// The agent.
    #[arg(value_enum)]
    agent: McpAgentArg,
    /// The current project's settings instead of the user's.
    #[arg(long)]
    project: bool,
}

/// An agent `mcp install` registers the server with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum McpAgentArg {
    /// Claude Code.
    Claude,
    /// Codex CLI.
    Codex,
    /// Gemini CLI.
    Gemini,
    /// opencode.
    Opencode,
    /// GitHub Copilot CLI.
    Copilot,
    /// Qwen Code.
    Qwen,
}

impl From<McpAgentArg> for McpAgent {
    fn from(agent: McpAgentArg) -> McpAgent {
        match agent {
            McpAgentArg::Claude => McpAgent::Claude,
            McpAgentArg::Codex => McpAgent::Codex,
            McpAgentArg::Gemini => McpAgent::Gemini,
            McpAgentArg::Opencode => McpAgent::Opencode,
            McpAgentArg::Copilot => McpAgent::Copilot,
            McpAgentArg::Qwen => McpAgent::Qwen,
        }
    }
}

fn scope(project: bool) -> Scope {
    if project {
        Scope::Project
    } else {
        Scope::User
    }
}

#[derive(Debug, Subcommand)]
enum RemoteAction {
    /// Say whether ssh reaches HOST, which session-ref runs there and what
    /// it sees.
    Check {
        /// An ssh alias or user@host.
        host: String,
    },
    /// Answer a remote client on stdin/stdout (JSON lines, remote
    /// protocol 1): what `--remote` runs on the other machine.
    Serve,
}

#[derive(Debug, Subcommand)]
enum UriAction {
    /// Print the canonical URI of a session id.
    Encode {
        /// Session id.
        id: String,
    },
    /// Print the id of a canonical URI as a JSON string.
    Decode {
        /// A hydra-session: URI.
        uri: String,
    },
}

#[derive(Debug, Args, Default, PartialEq, Eq)]
#[command(next_help_heading = "Picker options")]
struct PickArgs {
    /// What to write on submit.
    #[arg(long, value_enum, default_value_t = PickFormatArg::Text)]
    format: PickFormatArg,
    /// Write the result to FILE instead of stdout.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["exec", "tmux_paste"])]
    output: Option<PathBuf>,
    /// Run CMD (through sh -c) with the result on its stdin; its exit code is returned.
    #[arg(long, value_name = "CMD", conflicts_with = "tmux_paste")]
    exec: Option<String>,
    /// Paste the result into tmux pane PANE (`%3`, `{last}`, `work:1.0`) as
    /// a bracketed paste without a trailing newline. Refused when a shell
    /// runs in the pane (it would run the text); checked before the picker
    /// opens.
    #[arg(long, value_name = "PANE")]
    tmux_paste: Option<String>,
    /// Paste with --tmux-paste even when the pane runs a shell or is the
    /// terminal session-ref runs in.
    #[arg(long, requires = "tmux_paste")]
    tmux_paste_force: bool,
    /// Draw the picker in a tmux popup over this pane, as fzf's --tmux:
    /// [center|top|bottom|left|right][,W%][,H%] [default: center,90%,85%].
    /// The result still goes to stdout (or --output, --exec, --tmux-paste).
    /// Ignored outside tmux.
    #[arg(
        long,
        value_name = "SPEC",
        num_args = 0..=1,
        default_missing_value = "center"
    )]
    tmux: Option<String>,
    /// Initial filter text.
    #[arg(long, value_name = "TEXT", default_value = "")]
    query: String,
    /// Initial prompt text.
    #[arg(
        long,
        value_name = "TEXT",
        default_value = "",
        conflicts_with = "prompt_file"
    )]
    prompt: String,
    /// Start with the prompt in FILE (a saved draft, say).
    #[arg(long, value_name = "FILE")]
    prompt_file: Option<PathBuf>,
    /// Do not use the mouse (clicks and the wheel then go to the terminal).
    #[arg(long)]
    no_mouse: bool,
    /// Where the preview sits and its size, as fzf's --preview-window:
    /// [right|down][:SIZE[%]][:hidden] (`:` or `,` between words, any
    /// order). right/down: beside or below the list at any width
    /// [default: right from 110 columns, else down]; SIZE: the preview's
    /// share (1%-99%) or columns (right) / rows (down); hidden: start with
    /// the preview hidden (ctrl-/ shows it). E.g. right:60%, down:40%,
    /// hidden.
    #[arg(
        long,
        value_name = "SPEC",
        value_parser = PreviewWindowSpec,
        hide_possible_values = true
    )]
    preview_window: Option<PreviewWindow>,
    /// Set by `--tmux` for the picker it runs in the popup: hand the result
    /// back through files in this private directory instead of delivering.
    #[arg(long, value_name = "DIR", hide = true)]
    popup_channel: Option<PathBuf>,
}

/// `candidates --sort` (validated as [`SortBy`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum SortArg {
    /// Newest created first (the reference's record order).
    Created,
    /// Most recently active first.
    Updated,
}

impl From<SortArg> for SortBy {
    fn from(arg: SortArg) -> SortBy {
        match arg {
            SortArg::Created => SortBy::Created,
            SortArg::Updated => SortBy::Updated,
        }
    }
}

/// `prepare --input` (validated as [`InputFormat`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum InputArg {
    /// The message text.
    Text,
    /// Message objects, one JSON object per line.
    Jsonl,
}

impl From<InputArg> for InputFormat {
    fn from(arg: InputArg) -> InputFormat {
        match arg {
            InputArg::Text => InputFormat::Text,
            InputArg::Jsonl => InputFormat::Jsonl,
        }
    }
}

/// `prepare --format` (validated as [`OutputFormat`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OutputArg {
    /// Readable text, a blank line, then the context.
    Text,
    /// One message object per line.
    Jsonl,
}

impl From<OutputArg> for OutputFormat {
    fn from(arg: OutputArg) -> OutputFormat {
        match arg {
            OutputArg::Text => OutputFormat::Text,
            OutputArg::Jsonl => OutputFormat::Jsonl,
        }
    }
}

/// The picker's `--format` (validated as [`PickFormat`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
enum PickFormatArg {
    /// Prepared text, as `prepare --format text`.
    #[default]
    Text,
    /// Prepared messages, as `prepare --format jsonl`.
    Jsonl,
    /// The prompt with canonical mentions, unprepared.
    Mention,
}

impl From<PickFormatArg> for PickFormat {
    fn from(arg: PickFormatArg) -> PickFormat {
        match arg {
            PickFormatArg::Text => PickFormat::Text,
            PickFormatArg::Jsonl => PickFormat::Jsonl,
            PickFormatArg::Mention => PickFormat::Mention,
        }
    }
}

/// The prompt in `file`, without the final line break editors add.
fn read_prompt_file(file: &std::path::Path) -> Result<String> {
    let bytes = std::fs::read(file).map_err(|e| {
        Error::invalid_config(format!(
            "--prompt-file: cannot read {}: {e}",
            crate::display::path_for_person(file)
        ))
    })?;
    let text = String::from_utf8(bytes).map_err(|_| {
        Error::invalid_config(format!(
            "--prompt-file: {} is not UTF-8",
            crate::display::path_for_person(file)
        ))
    })?;
    let text = text.strip_suffix('\n').unwrap_or(&text);
    Ok(text.strip_suffix('\r').unwrap_or(text).to_owned())
}

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
        <Cli as clap::CommandFactory>::command().after_long_help(long_help_end())
    }

    fn check(cli: Cli) -> std::result::Result<Cli, clap::Error> {
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

    /// Validate into a [`Config`]; `env` and `home` feed default discovery.
    pub fn into_config(
        self,
        env: impl Fn(&str) -> Option<String>,
        home: Option<&std::path::Path>,
        current_dir: Option<String>,
    ) -> Result<Config> {
        let g = self.global;
        let limits = config::limits_from_flags(
            Some(&g.max_references),
            Some(&g.candidate_limit),
            g.max_reference_bytes.as_deref(),
        )?;
        let explicit = g.stores.roots;
        let roots_explicit = !explicit.is_empty();
        let store_args = store_args(&explicit, current_dir.as_deref());
        let looked_at = if roots_explicit {
            explicit.clone()
        } else {
            StoreRoots::default_locations(&env, home)
        };
        let roots = if roots_explicit {
            explicit
        } else {
            looked_at.clone().existing()
        };
        let command = match self.command.unwrap_or(CommandArgs::Pick(self.pick)) {
            CommandArgs::Pick(p) => Command::Pick(PickOptions {
                format: p.format.into(),
                destination: match (p.output, p.exec, p.tmux_paste) {
                    (Some(file), _, _) => Destination::File(file),
                    (_, Some(cmd), _) => Destination::Exec(cmd),
                    (_, _, Some(pane)) => Destination::TmuxPaste {
                        pane,
                        force: p.tmux_paste_force,
                    },
                    _ => Destination::Stdout,
                },
                query: p.query,
                prompt: match &p.prompt_file {
                    Some(file) => read_prompt_file(file)?,
                    None => p.prompt,
                },
                mouse: !p.no_mouse,
                preview_window: p.preview_window.unwrap_or_default(),
                popup: match p.tmux {
                    Some(raw) => {
                        // A bad value is a usage error, as `--preview-window`'s.
                        let spec = PopupSpec::parse(&raw)
                            .map_err(|why| Error::invalid_config(why).usage())?;
                        Some((spec, raw))
                    }
                    None => None,
                },
                popup_channel: p.popup_channel,
            }),
            CommandArgs::Candidates {
                query,
                limit,
                fuzzy,
                json,
                sort,
            } => Command::Candidates {
                sort: sort.into(),
                query: query.unwrap_or_default(),
                limit: match limit {
                    Some(raw) => parse_limit(&raw)?,
                    None => limits.candidate_limit,
                },
                fuzzy,
                json,
            },
            CommandArgs::Search {
                query,
                regex,
                limit,
                json,
                no_index,
            } => Command::Search {
                query,
                regex,
                limit: match limit {
                    Some(raw) => parse_limit(&raw)?,
                    None => limits.candidate_limit,
                },
                json,
                index: if no_index {
                    None
                } else {
                    session_ref_stores::search::index::default_dir(&env, home)
                },
            },
            CommandArgs::Prepare {
                text,
                input,
                format,
            } => Command::Prepare {
                text,
                input: input.into(),
                format: format.into(),
            },
            CommandArgs::Preview { id, label, json } => Command::Preview { id, label, json },
            CommandArgs::Mention { id, label } => Command::Mention { id, label },
            CommandArgs::Uri {
                action: UriAction::Encode { id },
            } => Command::UriEncode(id),
            CommandArgs::Uri {
                action: UriAction::Decode { uri },
            } => Command::UriDecode(uri),
            CommandArgs::Hook { action } => hook_command(action, &store_args)?,
            CommandArgs::Remote {
                action: RemoteAction::Check { host },
            } => Command::RemoteCheck(host),
            CommandArgs::Remote {
                action: RemoteAction::Serve,
            } => Command::RemoteServe {
                search_index: if g.no_cache {
                    None
                } else {
                    session_ref_stores::search::index::default_dir(&env, home)
                },
            },
            CommandArgs::Mcp { action, no_index } => {
                let explicit = g
                    .max_reference_bytes
                    .as_deref()
                    .map(|_| limits.max_reference_bytes);
                match action {
                    None => Command::Mcp {
                        budget: explicit.unwrap_or(crate::mcp::tools::DEFAULT_BUDGET),
                        search_index: if no_index {
                            None
                        } else {
                            session_ref_stores::search::index::default_dir(&env, home)
                        },
                    },
                    Some(McpAction::Install(args)) => Command::McpInstall(McpRequest {
                        agent: args.agent.into(),
                        scope: scope(args.project),
                        budget: explicit,
                        store_args,
                    }),
                    Some(McpAction::Uninstall(args)) => Command::McpUninstall(McpRequest {
                        agent: args.agent.into(),
                        scope: scope(args.project),
                        budget: None,
                        store_args: Vec::new(),
                    }),
                }
            }
            CommandArgs::Completions { shell } => {
                let mut script = Vec::new();
                clap_complete::generate(
                    shell,
                    &mut Cli::full_command(),
                    "session-ref",
                    &mut script,
                );
                let script = String::from_utf8_lossy(&script).into_owned();
                Command::Completions(match shell {
                    clap_complete::Shell::Bash => bash_states_agree(script, "session-ref"),
                    _ => script,
                })
            }
            CommandArgs::Man { command, dir } => man_command(&command, dir)?,
        };
        // A server answers for its own machine only: remotes of remotes
        // are never asked (no loops, one hop).
        let remotes = if matches!(command, Command::RemoteServe { .. }) {
            crate::remote::RemoteSettings::default()
        } else {
            crate::remote::RemoteSettings::load(&g.remote, &env, home)?
        };
        Ok(Config {
            remotes,
            roots,
            roots_explicit,
            looked_at,
            limits,
            target: Target {
                session_id: g.session,
                cwd: match g.cwd {
                    // The commands compare `--cwd` exactly as the reference
                    // does (byte-identical output); the picker, typed at by
                    // people and shell completion, normalises it.
                    Some(cwd) if matches!(command, Command::Pick(_)) => Some(
                        session_ref_stores::normalize_dir(&cwd, current_dir.as_deref()),
                    ),
                    Some(cwd) => Some(cwd),
                    None => current_dir,
                },
            },
            verbose: g.verbose,
            cache_dir: if g.no_cache {
                None
            } else {
                session_ref_stores::index::title::cache_dir(&env, home)
            },
            command,
        })
    }
}

/// Respell the states of clap_complete's bash script the one way. Its
/// loop over the typed words names the state of a subcommand after the
/// binary with each hyphen as `__` (`session__ref__subcmd__candidates`),
/// but its arms that complete each state escape the hyphen as a
/// subcommand separator (`session__subcmd__ref__subcmd__candidates`), so
/// below the top level no arm matched and bash fell back to file names
/// (clap-rs/clap#6421, open in clap_complete 4.6). The arms are renamed as
/// the loop names them; once clap_complete agrees with itself this
/// changes nothing. `tests/completions.rs` runs the script.
fn bash_states_agree(script: String, bin: &str) -> String {
    let escaped_as_separator = format!("{}__subcmd__", bin.replace('-', "__subcmd__"));
    let as_the_loop_names_it = format!("{}__subcmd__", bin.replace('-', "__"));
    script.replace(&escaped_as_separator, &as_the_loop_names_it)
}

/// The command as its manual pages show it: built, so that each
/// subcommand knows its full name (`session-ref-search`) and has the
/// global options, and without clap's `help` subcommand, which has no page.
fn man_root() -> clap::Command {
    let mut cmd = Cli::full_command().disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// The roff page of `cmd`.
fn man_page(cmd: &clap::Command) -> Result<String> {
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd.clone())
        .render(&mut page)
        .map_err(|e| Error::invalid_config(format!("cannot render the manual: {e}")))?;
    Ok(String::from_utf8_lossy(&page).into_owned())
}

/// Every page: `cmd`'s and, depth first, each visible subcommand's, as
/// (file name, roff). The main page lists these and no other.
fn man_pages(cmd: &clap::Command, out: &mut Vec<(String, String)>) -> Result<()> {
    let name = cmd.get_display_name().unwrap_or_else(|| cmd.get_name());
    out.push((format!("{name}.1"), man_page(cmd)?));
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        man_pages(sub, out)?;
    }
    Ok(())
}

/// `man [COMMAND…] [--dir DIR]`: one page, or every page for a directory.
fn man_command(path: &[String], dir: Option<PathBuf>) -> Result<Command> {
    let root = man_root();
    if let Some(dir) = dir {
        let mut pages = Vec::new();
        man_pages(&root, &mut pages)?;
        return Ok(Command::ManPages { dir, pages });
    }
    let mut cmd = &root;
    for name in path {
        cmd = cmd
            .get_subcommands()
            .filter(|s| !s.is_hide_set())
            .find(|s| s.get_name() == name)
            .ok_or_else(|| {
                let known: Vec<&str> = cmd
                    .get_subcommands()
                    .filter(|s| !s.is_hide_set())
                    .map(clap::Command::get_name)
                    .collect();
                Error::invalid_config(format!(
                    "man: no command {:?} under `{}` (its commands: {})",
                    name,
                    cmd.get_bin_name().unwrap_or("session-ref"),
                    known.join(", ")
                ))
            })?;
    }
    Ok(Command::Man(man_page(cmd)?))
}

/// The store flags as given (`--store DIR`, …), each directory made
/// absolute against `cwd`: what install keeps in the command it registers,
/// which the agent runs from anywhere.
fn store_args(roots: &StoreRoots, cwd: Option<&str>) -> Vec<String> {
    roots
        .iter()
        .flat_map(|(kind, dir)| {
            let dir = match cwd {
                Some(cwd) if dir.is_relative() => std::path::Path::new(cwd).join(dir),
                _ => std::path::absolute(dir).unwrap_or_else(|_| dir.clone()),
            };
            [
                format!("--{}", kind.store().flag()),
                dir.to_string_lossy().into_owned(),
            ]
        })
        .collect()
}

fn hook_command(action: HookAction, store_args: &[String]) -> Result<Command> {
    let parse_budget = |raw: Option<String>| -> Result<Option<usize>> {
        raw.map(|raw| {
            config::parse_positive("budget", &raw)?
                .try_into()
                .map_err(|_| Error::invalid_config("budget is too large"))
        })
        .transpose()
    };
    let run = |agent: Agent, args: HookRunArgs| -> Result<Command> {
        let budget = parse_budget(args.budget)?.unwrap_or(crate::hook::default_cap(agent));
        Ok(Command::Hook { agent, budget })
    };
    Ok(match action {
        HookAction::Claude(args) => run(Agent::Claude, args)?,
        HookAction::Codex(args) => run(Agent::Codex, args)?,
        HookAction::Gemini(args) => run(Agent::Gemini, args)?,
        HookAction::Copilot(args) => run(Agent::Copilot, args)?,
        HookAction::Qwen(args) => run(Agent::Qwen, args)?,
        HookAction::Install(args) => Command::HookInstall(InstallRequest {
            agent: args.agent.into(),
            scope: scope(args.project),
            print: args.print,
            budget: parse_budget(args.budget)?,
            store_args: store_args.to_vec(),
        }),
        HookAction::Uninstall(args) => Command::HookUninstall(InstallRequest {
            agent: args.agent.into(),
            scope: scope(args.project),
            print: false,
            budget: None,
            store_args: Vec::new(),
        }),
    })
}

/// `--preview-window`, validated by [`PreviewWindow::parse`]: a bad value
/// is a usage error (exit 2) that names the contract's code.
fn parse_preview_window(text: &str) -> std::result::Result<PreviewWindow, String> {
    PreviewWindow::parse(text).map_err(|why| format!("{}: {why}", ErrorCode::InvalidConfig))
}

/// The value parser of `--preview-window`: [`parse_preview_window`], with
/// its words as the values shell completion offers (else a completion
/// script falls back to file names, which the option never takes).
#[derive(Debug, Clone, Copy)]
struct PreviewWindowSpec;

impl clap::builder::TypedValueParser for PreviewWindowSpec {
    type Value = PreviewWindow;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&Arg>,
        value: &std::ffi::OsStr,
    ) -> std::result::Result<PreviewWindow, clap::Error> {
        parse_preview_window.parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            PreviewWindow::WORDS
                .iter()
                .map(|word| clap::builder::PossibleValue::new(*word)),
        ))
    }
}

/// The value parser of `man`'s COMMAND words: any word (an unknown one is
/// refused by [`man_command`], naming the commands there are), completed
/// as the names of the visible commands at every depth.
#[derive(Debug, Clone, Copy)]
struct CommandWord;

impl clap::builder::TypedValueParser for CommandWord {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&Arg>,
        value: &std::ffi::OsStr,
    ) -> std::result::Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        fn walk(cmd: &clap::Command, out: &mut Vec<String>) {
            for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
                let name = sub.get_name().to_owned();
                if !out.contains(&name) {
                    out.push(name);
                }
                walk(sub, out);
            }
        }
        let mut names = Vec::new();
        walk(&man_root(), &mut names);
        Some(Box::new(
            names.into_iter().map(clap::builder::PossibleValue::new),
        ))
    }
}

/// The end of `session-ref --help`: the picker's query syntax and keys,
/// from the one table of [`crate::keys`] (as the picker's help shows
/// them), and the exit codes.
fn long_help_end() -> String {
    use crate::keys::HelpRow;
    let mut out = String::from(
        "Mouse (unless --no-mouse): a click highlights a session, a double click inserts\n  \
         it; a click focuses the filter, or the prompt with the cursor where it lands;\n  \
         the wheel scrolls what it is over.\n\n\
         Picker keys and query syntax (f1 in the picker shows them too):\n",
    );
    for row in crate::keys::help_rows() {
        match row {
            HelpRow::Heading(title) => out.push_str(&format!("  {title}\n")),
            HelpRow::Note(note) => out.push_str(&format!("  {note}\n")),
            HelpRow::Entry { keys, what } => {
                // Descriptions wrap under themselves past 100 columns.
                let rows = textwrap::wrap(what, 100 - 29);
                for (i, part) in rows.iter().enumerate() {
                    let keys = if i == 0 { keys.as_str() } else { "" };
                    out.push_str(&format!("    {keys:<24} {part}\n"));
                }
            }
        }
    }
    out.push_str(
        "\nExit codes:\n  \
         0    done; `search` found something (here or on a remote)\n  \
         1    failed: stderr says `session-ref: CODE: message`; or `search` found nothing\n       (no error line, as grep)\n  \
         2    usage error: an unknown flag, a flag value of the wrong type or form\n       (`--preview-window up`, `--tmux up`), a store flag naming no store (missing,\n       a FIFO, a device, a link to a file, a file that is not a session), `search`\n       with a bad `--regex`, an open \"phrase\" or no store to search\n  \
         130  cancelled (Ctrl-C, SIGTERM) or aborted in the picker\n\n\
         `candidates` with nothing matching exits 0, as the reference (SPEC §6).\n\n\
         Manual pages: `session-ref man COMMAND` prints a command's (`man search`, `man hook\n  \
         install`); `session-ref man --dir DIR` writes every page into DIR.\n",
    );
    out
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

/// `--limit` as written: decimal digits (surrounding blanks allowed), else
/// a usage error (exit 2), as for any flag value of the wrong type. Its
/// range is checked by [`parse_limit`], as the reference checks it.
fn limit_syntax(raw: &str) -> std::result::Result<String, String> {
    let digits = raw.trim();
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        Ok(raw.to_owned())
    } else {
        Err("expected a whole number (1, 2, …)".to_owned())
    }
}

/// `candidates --limit`: a positive safe integer. It is not a configuration
/// key but the `limit` argument of the reference's `listCandidates`, which
/// rejects a bad one with `SESSION_REFERENCE_INVALID_REFERENCE`.
fn parse_limit(raw: &str) -> Result<usize> {
    config::parse_positive("limit", raw)
        .ok()
        .and_then(|limit| usize::try_from(limit).ok())
        .ok_or_else(|| {
            Error::invalid_reference(format!(
                "--limit must be a whole number from 1 to {} (got {raw:?})",
                config::MAX_SAFE_INTEGER
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn config(args: &[&str]) -> Result<Config> {
        let cli = Cli::try_parse_from(std::iter::once("session-ref").chain(args.iter().copied()))
            .unwrap();
        cli.into_config(
            |_| None,
            Some(std::path::Path::new("/nonexistent-home")),
            Some("/here".into()),
        )
    }

    #[test]
    fn bare_invocation_is_the_picker() {
        let c = config(&[]).unwrap();
        assert!(matches!(c.command, Command::Pick(_)));
        assert_eq!(c.target.cwd.as_deref(), Some("/here"));
        assert!(c.roots.is_empty() && !c.roots_explicit);
    }

    #[test]
    fn global_flags_anywhere() {
        let c = config(&[
            "candidates",
            "q",
            "--store",
            "/s",
            "--cwd",
            "/w",
            "--max-references",
            "2",
        ])
        .unwrap();
        assert_eq!(
            c.roots
                .iter()
                .map(|(k, p)| (k.as_str(), p.as_path()))
                .collect::<Vec<_>>(),
            [("hydra", std::path::Path::new("/s"))]
        );
        assert_eq!(c.target.cwd.as_deref(), Some("/w"));
        assert_eq!(c.limits.max_references, 2);
        assert_eq!(
            c.command,
            Command::Candidates {
                query: "q".into(),
                limit: 50,
                fuzzy: false,
                json: false,
                sort: SortBy::Created,
            }
        );
    }

    #[test]
    fn cwd_is_normalised_as_sessions_record_it() {
        let cwd = |arg: &str| config(&["pick", "--cwd", arg]).unwrap().target.cwd;
        assert_eq!(cwd("/w/p/").as_deref(), Some("/w/p"));
        assert_eq!(cwd("/w/./q/../p//").as_deref(), Some("/w/p"));
        assert_eq!(cwd("sub/dir/").as_deref(), Some("/here/sub/dir"));
        assert_eq!(cwd(".").as_deref(), Some("/here"));
        assert_eq!(cwd("/").as_deref(), Some("/"));
        // The commands keep it as given: the reference compares it exactly.
        let exact = config(&["candidates", "--cwd", "/w/p/"]).unwrap();
        assert_eq!(exact.target.cwd.as_deref(), Some("/w/p/"));
    }

    #[test]
    fn long_help_lists_keys_and_exit_codes_and_short_help_does_not() {
        let mut cmd = Cli::full_command();
        let long = cmd.render_long_help().to_string();
        assert!(long.contains("alt-s") && long.contains("130  cancelled"));
        assert!(long.contains("Global options (any command):"));
        let short = Cli::full_command().render_help().to_string();
        assert!(!short.contains("Exit codes"));
    }

    #[test]
    fn completions_and_man() {
        let Command::Completions(bash) = config(&["completions", "bash"]).unwrap().command else {
            panic!("not completions")
        };
        assert!(bash.contains("session-ref") && bash.contains("--max-references"));
        let Command::Man(page) = config(&["man"]).unwrap().command else {
            panic!("not man")
        };
        assert!(page.starts_with(".ie") && page.contains("Exit codes"));
    }

    #[test]
    fn man_produces_every_page_it_lists_with_the_command_options() {
        let Command::Man(main) = config(&["man"]).unwrap().command else {
            panic!("not man")
        };
        let Command::ManPages { pages, .. } = config(&["man", "--dir", "/m"]).unwrap().command
        else {
            panic!("not man --dir")
        };
        let names: Vec<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names[0], "session-ref.1");
        // Every page the main page names (`session-ref-search(1)`) is
        // written, and no `help` page is named that would not be.
        let listed: Vec<String> = main
            .replace("\\-", "-")
            .split_whitespace()
            .filter_map(|w| w.strip_suffix("(1)"))
            .map(|w| {
                format!(
                    "{}.1",
                    w.trim_start_matches("\\fB").trim_start_matches("\\fR")
                )
            })
            .collect();
        assert!(!listed.is_empty(), "{main}");
        for page in &listed {
            assert!(
                names.contains(&page.as_str()),
                "{page} listed, not written: {names:?}"
            );
        }
        assert!(!names.contains(&"session-ref-help.1"));
        for name in [
            "session-ref-search.1",
            "session-ref-hook-install.1",
            "session-ref-uri-decode.1",
        ] {
            assert!(names.contains(&name), "{name}: {names:?}");
        }
        // A command's page has its own options and the global ones.
        let Command::Man(search) = config(&["man", "search"]).unwrap().command else {
            panic!("not man search")
        };
        assert!(search.contains("session\\-ref\\-search"), "{search}");
        assert!(search.contains("\\-\\-regex") && search.contains("\\-\\-no\\-index"));
        assert!(search.contains("\\-\\-max\\-references"));
        let Command::Man(install) = config(&["man", "hook", "install"]).unwrap().command else {
            panic!("not man hook install")
        };
        assert!(install.contains("\\-\\-print"));
        assert_eq!(
            config(&["man", "nosuch"]).unwrap_err().code,
            ErrorCode::InvalidConfig
        );
    }

    #[test]
    fn invalid_values_are_config_errors() {
        for args in [
            &["--max-references", "4", "candidates"][..],
            &["--candidate-limit", "0", "candidates"],
            &["--max-reference-bytes", "-5", "candidates"],
        ] {
            assert_eq!(
                config(args).unwrap_err().code,
                ErrorCode::InvalidConfig,
                "{args:?}"
            );
        }
    }

    #[test]
    fn bare_invocation_takes_the_picker_flags() {
        let c = config(&["--tmux-paste", "%3", "--query", "fix", "--store", "/s"]).unwrap();
        let Command::Pick(p) = c.command else {
            panic!("not pick")
        };
        assert_eq!(
            p.destination,
            Destination::TmuxPaste {
                pane: "%3".into(),
                force: false
            }
        );

        assert_eq!(p.query, "fix");
        assert_eq!(
            c.roots
                .iter()
                .map(|(k, p)| (k.as_str(), p.as_path()))
                .collect::<Vec<_>>(),
            [("hydra", std::path::Path::new("/s"))]
        );
        let forced = config(&["--tmux-paste", "{last}", "--tmux-paste-force"]).unwrap();
        let Command::Pick(forced) = forced.command else {
            panic!("not pick")
        };
        assert_eq!(
            forced.destination,
            Destination::TmuxPaste {
                pane: "{last}".into(),
                force: true
            }
        );
        let alone = Cli::try_parse_from(["session-ref", "--tmux-paste-force"]);
        assert!(alone.is_err(), "--tmux-paste-force needs --tmux-paste");
        let misplaced = Cli::try_parse_from(["session-ref", "--query", "x", "candidates"]);
        let usage = Cli::check(misplaced.unwrap()).unwrap_err();
        assert_eq!(usage.exit_code(), 2);
    }

    #[test]
    fn a_limit_out_of_range_is_an_invalid_reference_as_in_the_reference() {
        for limit in ["0", "9007199254740992"] {
            assert_eq!(
                config(&["candidates", "--limit", limit]).unwrap_err().code,
                ErrorCode::InvalidReference,
                "{limit}"
            );
        }
        let c = config(&["candidates", "--limit", "7"]).unwrap();
        assert!(matches!(c.command, Command::Candidates { limit: 7, .. }));
    }

    #[test]
    fn a_limit_that_is_not_a_number_is_a_usage_error() {
        for command in ["candidates", "search"] {
            for limit in ["x", "-1", "1.5", ""] {
                let args = ["session-ref", command, "q", "--limit", limit];
                let error = Cli::parse_from(args).unwrap_err();
                assert_eq!(error.exit_code(), 2, "{command} --limit {limit:?}");
                assert!(error.to_string().contains("--limit <N>"), "{error}");
            }
        }
    }

    #[test]
    fn the_usage_line_after_a_bad_flag_is_the_commands() {
        let usage = |args: &[&str]| {
            let error = Cli::parse_from(std::iter::once("session-ref").chain(args.iter().copied()))
                .unwrap_err();
            assert_eq!(error.exit_code(), 2);
            let text = error.to_string();
            text.lines()
                .find(|l| l.starts_with("Usage:"))
                .unwrap_or_else(|| panic!("no usage line in {text}"))
                .to_owned()
        };
        assert_eq!(
            usage(&["--store", "x", "--bogus"]),
            "Usage: session-ref [OPTIONS] [COMMAND]"
        );
        assert_eq!(
            usage(&[
                "--store",
                "x",
                "--store",
                "y",
                "--max-references",
                "2",
                "--nope"
            ]),
            "Usage: session-ref [OPTIONS] [COMMAND]"
        );
        assert_eq!(
            usage(&["candidates", "--store", "x", "--bogus"]),
            "Usage: session-ref candidates [OPTIONS] [QUERY]"
        );
        assert_eq!(
            usage(&["hook", "install", "--store", "x", "--bogus"]),
            "Usage: session-ref hook install [OPTIONS] <AGENT>"
        );
        assert_eq!(
            usage(&["search", "--limit", "3", "--bogus", "q"]),
            "Usage: session-ref search [OPTIONS] <QUERY>"
        );
    }

    #[test]
    fn tmux_takes_an_optional_spec() {
        let popup = |args: &[&str]| match config(args).unwrap().command {
            Command::Pick(p) => p.popup.map(|(spec, _)| (spec.width, spec.height)),
            _ => panic!("not pick"),
        };
        assert_eq!(popup(&["--tmux"]), Some((90, 85)));
        assert_eq!(popup(&["--tmux", "center,50%"]), Some((50, 50)));
        assert_eq!(
            popup(&["--tmux=bottom,30%", "--query", "x"]),
            Some((100, 30))
        );
        assert_eq!(popup(&[]), None);
        assert_eq!(
            config(&["--tmux", "sideways"]).unwrap_err().code,
            ErrorCode::InvalidConfig
        );
    }

    #[test]
    fn preview_window_is_validated_and_a_bad_one_is_a_usage_error() {
        let window = |args: &[&str]| match config(args).unwrap().command {
            Command::Pick(p) => p.preview_window,
            _ => panic!("not pick"),
        };
        assert_eq!(window(&[]), PreviewWindow::default());
        let right = window(&["--preview-window", "right:60%"]);
        assert_eq!(right, PreviewWindow::parse("right,60%").unwrap());
        assert!(window(&["--preview-window=hidden"]).hidden);
        // The words completion offers are each a valid value.
        for word in PreviewWindow::WORDS {
            window(&["--preview-window", word]);
        }
        for bad in ["up", "right:0%", "sideways"] {
            let error = Cli::try_parse_from(["session-ref", "--preview-window", bad]).unwrap_err();
            assert_eq!(error.exit_code(), 2, "{bad}");
            let said = error.to_string();
            assert!(
                said.contains("SESSION_REFERENCE_INVALID_CONFIG: --preview-window: "),
                "{said}"
            );
        }
        // A picker option: not with another command.
        let other = Cli::parse_from(["session-ref", "--preview-window", "down", "candidates"]);
        assert_eq!(other.unwrap_err().exit_code(), 2);
    }

    #[test]
    fn pick_destinations() {
        let c = config(&["pick", "--exec", "cat", "--format", "mention"]).unwrap();
        let Command::Pick(p) = c.command else {
            panic!("not pick")
        };
        assert_eq!(p.destination, Destination::Exec("cat".into()));
        assert_eq!(p.format, PickFormat::Mention);
    }
}
