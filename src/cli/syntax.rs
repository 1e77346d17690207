//! The command line's syntax, as clap parses it: the global options (the
//! store flags made from the registry), the picker's options and every
//! command with its own. Only definitions: what the values mean is
//! [`super::conversion`]'s, the texts around them [`super::docs`]'.

use std::path::PathBuf;

use clap::{Arg, ArgAction, ArgMatches, Args, FromArgMatches, Parser, Subcommand, ValueEnum};

use super::docs::{self, long_about, SUMMARY};
use super::integrations::{HookAction, McpAction};
use super::values::{limit_syntax, PreviewWindowSpec};
use crate::agents::{Agent, AgentWord};
use crate::config::PreviewWindow;
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
    pub(super) global: GlobalArgs,
    /// Picker options, for `session-ref` without a command.
    #[command(flatten)]
    pub(super) pick: PickArgs,
    #[command(subcommand)]
    pub(super) command: Option<CommandArgs>,
}

/// The store flags: one repeatable `--FLAG DIR` per registered store kind
/// (`--store`, `--claude`, `--codex`, …), made from the registry so that a
/// new kind brings its flag with it.
#[derive(Debug, Default)]
pub(super) struct StoreArgs {
    pub(super) roots: StoreRoots,
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
pub(super) struct GlobalArgs {
    #[command(flatten)]
    pub(super) stores: StoreArgs,
    /// The session being written to: excluded from candidates, rejected as a reference.
    #[arg(long, value_name = "ID", global = true)]
    pub(super) session: Option<String>,
    /// Working directory that ranks first [default: the current directory].
    #[arg(long, value_name = "DIR", global = true)]
    pub(super) cwd: Option<String>,
    /// Most distinct sessions one message may cite (1 to 3).
    #[arg(
        long,
        value_name = "N",
        global = true,
        default_value = "3",
        allow_hyphen_values = true
    )]
    pub(super) max_references: String,
    /// Default number of candidates listed.
    #[arg(
        long,
        value_name = "N",
        global = true,
        default_value = "50",
        allow_hyphen_values = true
    )]
    pub(super) candidate_limit: String,
    /// UTF-8 budget of one session's snapshot (serialized JSON bytes)
    /// [default: 65536; `mcp`: 32768, what every agent keeps whole].
    #[arg(long, value_name = "BYTES", global = true, allow_hyphen_values = true)]
    pub(super) max_reference_bytes: Option<String>,
    /// Report files that are not sessions, and other details, on stderr.
    #[arg(long, short, global = true)]
    pub(super) verbose: bool,
    /// Read every session file instead of the title index in
    /// $XDG_CACHE_HOME/session-ref (else ~/.cache/session-ref).
    #[arg(long, global = true)]
    pub(super) no_cache: bool,
    /// Also list the sessions another machine's session-ref sees, over ssh
    /// (repeatable; an ssh alias or user@host; `[[remote]]` entries of
    /// $XDG_CONFIG_HOME/session-ref/config.toml are added).
    #[arg(long, value_name = "HOST", global = true, action = ArgAction::Append)]
    pub(super) remote: Vec<String>,
}

#[derive(Debug, Subcommand)]
pub(super) enum CommandArgs {
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
        /// Replace likely secrets (API keys and tokens of the common
        /// providers, private keys, `password=` forms) with a marker, and
        /// say on stderr how many. Never the default: without it every
        /// byte is the reference's.
        #[arg(long)]
        redact: bool,
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
        /// Replace likely secrets (API keys and tokens of the common
        /// providers, private keys, `password=` forms) with a marker, and
        /// say on stderr how many. Never the default: without it every
        /// byte is the reference's.
        #[arg(long)]
        redact: bool,
    },
    /// Export one session's conversation for a person to read or keep:
    /// Markdown, one self-contained HTML file (no script), or JSON.
    Export {
        /// Session id, the start of exactly one id (4+ characters), a
        /// hydra-session: URI, or a mention as `candidates --json` prints it.
        id: String,
        /// What to write.
        #[arg(long, value_enum, default_value_t = ExportFormatArg::Md)]
        format: ExportFormatArg,
        /// Exactly the budgeted snapshot a mention of the session injects
        /// (the context text `preview` and `prepare` build), instead of
        /// the whole conversation.
        #[arg(long, conflicts_with = "format")]
        snapshot: bool,
        /// Include the tool calls and their results (each cut to 8 KiB,
        /// the cut said), in their places among the messages. Read from
        /// the logs of every agent but Gemini CLI, pi, Antigravity CLI
        /// and Aider, whose exports have none.
        #[arg(long, conflicts_with = "snapshot")]
        tools: bool,
        /// Replace likely secrets (API keys and tokens of the common
        /// providers, private keys, `password=` forms) with a marker, and
        /// say on stderr how many. Never the default.
        #[arg(long)]
        redact: bool,
        /// Label [default: the latest title, else the id].
        #[arg(long, value_name = "L")]
        label: Option<String>,
        /// Write to FILE (created 0600; a symbolic link is written
        /// through) instead of stdout.
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Resume a session with its own agent, in the session's working
    /// directory: inside tmux in a new window (or --tmux-split), outside
    /// it in place of this process.
    Resume {
        /// Session id, the start of exactly one id (4+ characters), a
        /// hydra-session: URI, or a mention.
        id: String,
        #[command(flatten)]
        start: StartArgs,
    },
    /// Start another agent in a session's working directory with a first
    /// prompt citing the session (its snapshot, framed as `prepare`
    /// frames it): the work moves on without rewriting anyone's files.
    Handoff {
        /// Session id, the start of exactly one id (4+ characters), a
        /// hydra-session: URI, or a mention.
        id: String,
        /// The agent to start.
        #[arg(long, value_name = "AGENT", value_parser = handoff_targets())]
        to: String,
        /// What to ask, before the citation [default: "Continue the work
        /// of the session cited below, in this directory."].
        prompt: Option<String>,
        #[command(flatten)]
        start: StartArgs,
    },
    /// Run a plan `resume`/`handoff` wrote for a tmux window (internal).
    #[command(hide = true)]
    ExecPlan {
        /// The plan file.
        file: PathBuf,
    },
    /// Copy every listed session into session-ref's archive, so that a
    /// session its agent later deletes stays listed (marked archived) and
    /// its mentions keep resolving to the same snapshot.
    ///
    /// The archive is $XDG_DATA_HOME/session-ref/archive (else
    /// ~/.local/share/session-ref/archive): compressed, each distinct copy
    /// stored once, only what changed since the last copy copied again,
    /// within a size bound. A `[keep]` table in
    /// $XDG_CONFIG_HOME/session-ref/config.toml keeps with every listing
    /// of `candidates` and the picker (`max_size = "2G"`, `dir = "/path"`).
    Keep {
        /// Remove the archive whole (every copy); the agents' stores are
        /// never touched.
        #[arg(long, conflicts_with = "max_size")]
        purge: bool,
        /// The bound of the archive's copies (compressed): bytes, or a
        /// number followed by K, M, G or T [default: the config's
        /// max_size, else 1G]. Copies of sessions still in their store are
        /// dropped first to stay within it.
        #[arg(long, value_name = "SIZE")]
        max_size: Option<String>,
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
    /// Set session-ref up in every supported agent found on this machine:
    /// its prompt hook and its MCP server, in the user's settings (or, with
    /// `--project`, the current project's).
    ///
    /// Shows what it would add to which file, asks once (on a terminal),
    /// writes (each file backed up, edited in place), and prints a receipt.
    /// `--undo` puts each file back exactly as it was, or, edited since,
    /// removes session-ref's entries only. A malformed, read-only or
    /// symlinked settings file is reported and left untouched.
    Setup {
        /// Write without asking.
        #[arg(long, short = 'y', conflicts_with = "dry_run")]
        yes: bool,
        /// Show what would be written; write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Only these agents (comma-separated), when they are here.
        #[arg(long, value_name = "A,B", value_delimiter = ',', value_parser = AgentWord { hook: false })]
        agent: Vec<Agent>,
        /// Put back what setup changed (recorded in its receipt), user and
        /// project settings alike.
        #[arg(long, conflicts_with_all = ["dry_run", "agent", "project"])]
        undo: bool,
        /// The current project's settings (`.claude/settings.json`,
        /// `.mcp.json`, `.gemini/settings.json`, `opencode.json`, …)
        /// instead of the user's; an agent without project settings is left
        /// alone.
        #[arg(long)]
        project: bool,
    },
    /// Check the installation: the stores read and their sessions, the
    /// caches, each agent's hook and MCP server, the remotes; one line per
    /// problem with the command that fixes it. Exits 1 when something is
    /// wrong.
    Doctor {
        /// One JSON object (its fields: docs/reference.md).
        #[arg(long)]
        json: bool,
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
pub(super) enum RemoteAction {
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
pub(super) enum UriAction {
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
pub(super) struct PickArgs {
    /// What to write on submit.
    #[arg(long, value_enum, default_value_t = PickFormatArg::Text)]
    pub(super) format: PickFormatArg,
    /// Write the result to FILE instead of stdout.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["exec", "tmux_paste"])]
    pub(super) output: Option<PathBuf>,
    /// Run CMD (through sh -c) with the result on its stdin; its exit code is returned.
    #[arg(long, value_name = "CMD", conflicts_with = "tmux_paste")]
    pub(super) exec: Option<String>,
    /// Paste the result into tmux pane PANE (`%3`, `{last}`, `work:1.0`) as
    /// a bracketed paste without a trailing newline. Refused when a shell
    /// runs in the pane (it would run the text); checked before the picker
    /// opens.
    #[arg(long, value_name = "PANE")]
    pub(super) tmux_paste: Option<String>,
    /// Paste with --tmux-paste even when the pane runs a shell or is the
    /// terminal session-ref runs in.
    #[arg(long, requires = "tmux_paste")]
    pub(super) tmux_paste_force: bool,
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
    pub(super) tmux: Option<String>,
    /// Initial filter text.
    #[arg(long, value_name = "TEXT", default_value = "")]
    pub(super) query: String,
    /// Initial prompt text.
    #[arg(
        long,
        value_name = "TEXT",
        default_value = "",
        conflicts_with = "prompt_file"
    )]
    pub(super) prompt: String,
    /// Start with the prompt in FILE (a saved draft, say).
    #[arg(long, value_name = "FILE")]
    pub(super) prompt_file: Option<PathBuf>,
    /// Do not use the mouse (clicks and the wheel then go to the terminal).
    #[arg(long)]
    pub(super) no_mouse: bool,
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
    pub(super) preview_window: Option<PreviewWindow>,
    /// Set by `--tmux` for the picker it runs in the popup: hand the result
    /// back through files in this private directory instead of delivering.
    #[arg(long, value_name = "DIR", hide = true)]
    pub(super) popup_channel: Option<PathBuf>,
}

/// `candidates --sort` (validated as [`SortBy`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum SortArg {
    /// Newest created first (the reference's record order).
    Created,
    /// Most recently active first.
    Updated,
}

/// `prepare --input` (validated as [`InputFormat`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum InputArg {
    /// The message text.
    Text,
    /// Message objects, one JSON object per line.
    Jsonl,
}

/// `prepare --format` (validated as [`OutputFormat`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum OutputArg {
    /// Readable text, a blank line, then the context.
    Text,
    /// One message object per line.
    Jsonl,
}

/// How `resume` and `handoff` start the agent.
#[derive(Debug, Args)]
pub(super) struct StartArgs {
    /// Print the command (one shell-quoted line, `cd DIR && AGENT ARGS`)
    /// instead of starting it.
    #[arg(long)]
    pub(super) print: bool,
    /// Inside tmux, split the current pane instead of opening a window.
    #[arg(long)]
    pub(super) tmux_split: bool,
}

/// `handoff --to`: the kinds whose agent starts with a first prompt.
fn handoff_targets() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(
        crate::launch::handoff_targets()
            .map(|l| clap::builder::PossibleValue::new(l.kind).help(l.agent)),
    )
}

/// `export --format` (validated as [`ExportFormat`](session_ref_core::export::ExportFormat)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum ExportFormatArg {
    /// Markdown (CommonMark): each message in a fence it cannot close.
    Md,
    /// One HTML file: every byte of session text escaped, no script.
    Html,
    /// One JSON object: the session's fields and its conversation.
    Json,
}

/// The picker's `--format` (validated as [`PickFormat`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub(super) enum PickFormatArg {
    /// Prepared text, as `prepare --format text`.
    #[default]
    Text,
    /// Prepared messages, as `prepare --format jsonl`.
    Jsonl,
    /// The prompt with canonical mentions, unprepared.
    Mention,
}

/// The value parser of `man`'s COMMAND words: any word (an unknown one is
/// refused by [`docs::man_command`], naming the commands there are), completed
/// as the names of the visible commands at every depth.
#[derive(Debug, Clone, Copy)]
pub(super) struct CommandWord;

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
        walk(&docs::man_root(Cli::full_command()), &mut names);
        Some(Box::new(
            names.into_iter().map(clap::builder::PossibleValue::new),
        ))
    }
}
