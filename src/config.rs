//! The validated configuration: what the command line converts into, and
//! what commands, output, the hook, search and the picker take (SPEC §9
//! for the resolver's limits). No clap type appears here; the clap syntax
//! is `crate::cli`'s alone.

use std::path::PathBuf;

use crate::error::{Error, Result};

pub mod keep;
pub mod remotes;
use session_ref_core::candidates::Target;
use session_ref_stores::StoreRoots;

pub use session_ref_engine::limits::{
    Limits, DEFAULT_CANDIDATE_LIMIT, DEFAULT_MAX_REFERENCE_BYTES, MAX_REFERENCES,
};

/// The largest integer JavaScript represents exactly; the reference accepts
/// only "safe" integers.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// The engine's [`Limits`] from raw values given as text (flags), defaults
/// for `None`; an error names the flag.
pub fn limits_from_flags(
    max_references: Option<&str>,
    candidate_limit: Option<&str>,
    max_reference_bytes: Option<&str>,
) -> Result<Limits> {
    let defaults = Limits::default();
    let max_references = match max_references {
        Some(raw) => parse_positive("--max-references", raw)?,
        None => defaults.max_references as u64,
    };
    if max_references > MAX_REFERENCES {
        return Err(Error::invalid_config(format!(
            "--max-references must be 1 to {MAX_REFERENCES} (got {max_references})"
        )));
    }
    let candidate_limit = match candidate_limit {
        Some(raw) => parse_positive("--candidate-limit", raw)?,
        None => defaults.candidate_limit as u64,
    };
    let max_reference_bytes = match max_reference_bytes {
        Some(raw) => parse_positive("--max-reference-bytes", raw)?,
        None => defaults.max_reference_bytes as u64,
    };
    Ok(Limits {
        max_references: max_references as usize,
        candidate_limit: to_usize(candidate_limit),
        max_reference_bytes: to_usize(max_reference_bytes),
    })
}

fn to_usize(value: u64) -> usize {
    usize::try_from(value).unwrap_or(usize::MAX)
}

/// Parse a positive safe integer written in decimal, as a flag value.
pub fn parse_positive(name: &str, raw: &str) -> Result<u64> {
    let trimmed = raw.trim();
    let valid = !trimmed.is_empty() && trimmed.bytes().all(|b| b.is_ascii_digit());
    let value = if valid {
        trimmed.parse::<u64>().ok()
    } else {
        None
    };
    match value {
        Some(v) if (1..=MAX_SAFE_INTEGER).contains(&v) => Ok(v),
        _ => Err(Error::invalid_config(format!(
            "{name} must be a whole number from 1 to {MAX_SAFE_INTEGER} (got {raw:?})"
        ))),
    }
}

/// How `candidates` orders sessions within a directory group: the
/// engine's one list order.
pub use session_ref_engine::order::SortBy;

/// What `prepare` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InputFormat {
    /// The message text.
    #[default]
    Text,
    /// Message objects, one JSON object per line.
    Jsonl,
}

/// What `prepare` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputFormat {
    /// Readable text, a blank line, then the context.
    #[default]
    Text,
    /// One message object per line.
    Jsonl,
}

/// What the picker writes on submit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PickFormat {
    /// Prepared text, as `prepare --format text`.
    #[default]
    Text,
    /// Prepared messages, as `prepare --format jsonl`.
    Jsonl,
    /// The prompt with canonical mentions, unprepared.
    Mention,
}

/// Where the picker's result goes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Destination {
    /// Standard output, once, after the terminal is restored.
    #[default]
    Stdout,
    /// A file, written whole.
    File(PathBuf),
    /// A command's stdin.
    Exec(String),
    /// A tmux pane, pasted into as a bracketed paste.
    TmuxPaste {
        /// The target as given, or the pane id it was resolved to.
        pane: String,
        /// `--tmux-paste-force`: paste even into a shell.
        force: bool,
    },
}

/// Validated picker options.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PickOptions {
    /// Output format.
    pub format: PickFormat,
    /// Destination.
    pub destination: Destination,
    /// Initial filter.
    pub query: String,
    /// Initial prompt.
    pub prompt: String,
    /// Whether the picker reads the mouse.
    pub mouse: bool,
    /// `--preview-window`: where the preview sits, its size, whether it
    /// starts hidden.
    pub preview_window: PreviewWindow,
    /// `--tmux`: the popup, and the option's value as given.
    pub popup: Option<(PopupSpec, String)>,
    /// Set in the picker `--tmux` runs in its popup: the private directory
    /// the result goes back through (see [`crate::tui::popup`]).
    pub popup_channel: Option<PathBuf>,
}

/// A validated command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// The picker.
    Pick(PickOptions),
    /// `candidates`.
    Candidates {
        /// Filter text.
        query: String,
        /// Validated limit.
        limit: usize,
        /// Include fuzzy matches.
        fuzzy: bool,
        /// JSON lines output.
        json: bool,
        /// Order within a directory group.
        sort: SortBy,
    },
    /// `search`.
    Search {
        /// The query text.
        query: String,
        /// Read it as a regular expression.
        regex: bool,
        /// Most matching sessions printed.
        limit: usize,
        /// JSON lines output.
        json: bool,
        /// The search index directory; `None` reads the logs only.
        index: Option<PathBuf>,
    },
    /// `prepare`.
    Prepare {
        /// Text argument; stdin when `None`.
        text: Option<String>,
        /// Input format.
        input: InputFormat,
        /// Output format.
        format: OutputFormat,
        /// Redact likely secrets in what is written.
        redact: bool,
    },
    /// `preview`.
    Preview {
        /// Id or URI.
        id: String,
        /// Label override.
        label: Option<String>,
        /// JSON output.
        json: bool,
        /// Redact likely secrets in what is written.
        redact: bool,
    },
    /// `export`.
    Export {
        /// Id, URI or mention.
        id: String,
        /// Label override.
        label: Option<String>,
        /// What to write.
        format: session_ref_core::export::ExportFormat,
        /// The budgeted snapshot instead of the whole conversation.
        snapshot: bool,
        /// Redact likely secrets.
        redact: bool,
        /// Where to write; stdout when absent.
        output: Option<PathBuf>,
    },
    /// `resume` or `handoff`: start an agent on a session.
    Launch(LaunchRequest),
    /// `exec-plan FILE` (hidden): what a tmux window `resume` or
    /// `handoff` opened runs.
    ExecPlan(PathBuf),
    /// `keep`: copy the listed sessions into the archive, or remove it.
    Keep {
        /// Remove the archive instead.
        purge: bool,
        /// `--max-size`: the bound for this run, over the config file's.
        max_bytes: Option<u64>,
    },
    /// `mention`.
    Mention {
        /// Session id.
        id: String,
        /// Label override.
        label: Option<String>,
    },
    /// `uri encode`.
    UriEncode(String),
    /// `uri decode`.
    UriDecode(String),
    /// `hook claude|codex`: answer a prompt-submit hook.
    Hook {
        /// The host agent.
        agent: Agent,
        /// Cap of the whole added context, in the host's unit.
        budget: usize,
    },
    /// `mcp`: serve MCP on stdio.
    Mcp {
        /// `read_session`'s default budget: `--max-reference-bytes`, else 32768.
        budget: usize,
        /// The search index directory; `None` reads the logs only.
        search_index: Option<PathBuf>,
    },
    /// `mcp install`.
    McpInstall(McpRequest),
    /// `mcp uninstall`.
    McpUninstall(McpRequest),
    /// `hook install`.
    HookInstall(InstallRequest),
    /// `hook uninstall`.
    HookUninstall(InstallRequest),
    /// `setup` (or `setup --undo`).
    Setup(SetupRequest),
    /// `doctor`.
    Doctor {
        /// One JSON object instead of text.
        json: bool,
    },
    /// `remote check HOST`.
    RemoteCheck(String),
    /// `remote serve`.
    RemoteServe {
        /// The search index directory; `None` (`--no-cache`) reads the logs.
        search_index: Option<PathBuf>,
    },
    /// `completions SHELL`: the script.
    Completions(String),
    /// `man [COMMAND…]`: the page.
    Man(String),
    /// `man --dir DIR`: every page, to write into `dir`.
    ManPages {
        /// Where the pages go.
        dir: PathBuf,
        /// (file name, roff) of each page, session-ref's first.
        pages: Vec<(String, String)>,
    },
}

impl Command {
    /// Whether the command lists or reads the stores (so a store flag
    /// naming no store is an error for it): not `uri`, `mention --label`,
    /// the installers, `remote check`, `completions` or `man`, and not the
    /// hooks, which answer a prompt without a mention without looking.
    pub fn reads_stores(&self) -> bool {
        match self {
            Command::Pick(_)
            | Command::Candidates { .. }
            | Command::Search { .. }
            | Command::Prepare { .. }
            | Command::Preview { .. }
            | Command::Export { .. }
            | Command::Launch(_)
            | Command::Keep { .. }
            | Command::Mcp { .. }
            | Command::RemoteServe { .. } => true,
            Command::Mention { label, .. } => label.is_none(),
            Command::UriEncode(_)
            | Command::UriDecode(_)
            | Command::Hook { .. }
            | Command::McpInstall(_)
            | Command::McpUninstall(_)
            | Command::HookInstall(_)
            | Command::HookUninstall(_)
            | Command::RemoteCheck(_)
            | Command::ExecPlan(_)
            | Command::Setup(_)
            | Command::Doctor { .. }
            | Command::Completions(_)
            | Command::Man(_)
            | Command::ManPages { .. } => false,
        }
    }
}

/// `resume ID` or `handoff ID --to AGENT [PROMPT]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchRequest {
    /// Id, unique prefix, URI or mention.
    pub id: String,
    /// Resume, or hand off to which agent with what.
    pub launch: crate::launch::Launch,
    /// `--print`: print the command instead of starting it.
    pub print: bool,
    /// `--tmux-split`: split the current pane instead of a new window.
    pub split: bool,
}

/// Everything a run needs, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Stores to read.
    pub roots: StoreRoots,
    /// Whether stores were named on the command line (else defaults were used).
    pub roots_explicit: bool,
    /// Default locations that were looked at, for the "nothing found" hint.
    pub looked_at: StoreRoots,
    /// Limits.
    pub limits: Limits,
    /// The target session.
    pub target: Target,
    /// Verbose diagnostics.
    pub verbose: bool,
    /// Where the title index lives; `None` with `--no-cache` (or without
    /// a cache directory).
    pub cache_dir: Option<std::path::PathBuf>,
    /// Other machines whose sessions are listed too.
    pub remotes: remotes::RemoteSettings,
    /// session-ref's archive (`keep`, the `[keep]` table).
    pub keep: keep::KeepSettings,
    /// What to do.
    pub command: Command,
}

pub use crate::agents::Agent;

/// What `mcp install` or `mcp uninstall` should do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpRequest {
    /// For which agent (one with MCP servers).
    pub agent: Agent,
    /// User or project settings.
    pub scope: Scope,
    /// `--max-reference-bytes` to register with the server, when given.
    pub budget: Option<usize>,
    /// The store flags given to install (`--store DIR`, … with absolute
    /// directories), kept in the registered command.
    pub store_args: Vec<String>,
}

pub use crate::agents::Scope;

/// What `hook install` or `hook uninstall` should do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallRequest {
    /// For which agent.
    pub agent: Agent,
    /// User or project settings.
    pub scope: Scope,
    /// Print the configuration instead of writing it (install only).
    pub print: bool,
    /// The installed hook's `--budget` (install only).
    pub budget: Option<usize>,
    /// The store flags given to install (`--store DIR`, … with absolute
    /// directories), kept in the installed command.
    pub store_args: Vec<String>,
}

/// What `setup` should do.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SetupRequest {
    /// `--agent A,B`: only these (each still only when it is here); all
    /// that are here when `None`.
    pub agents: Option<Vec<Agent>>,
    /// `--yes`: write without asking.
    pub yes: bool,
    /// `--dry-run`: show what would be written, write nothing.
    pub dry_run: bool,
    /// `--undo`: put back what earlier runs of setup changed.
    pub undo: bool,
    /// `--project`: the current project's settings instead of the user's.
    pub scope: crate::agents::Scope,
}

pub use crate::agents::DEFAULT_HOST_CAP;

/// Where the popup goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// Centred in the window.
    Center,
    /// Along the top edge.
    Top,
    /// Along the bottom edge.
    Bottom,
    /// Along the left edge.
    Left,
    /// Along the right edge.
    Right,
}

/// A parsed `--tmux` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PopupSpec {
    /// Where.
    pub position: Position,
    /// Width, percent of the window.
    pub width: u8,
    /// Height, percent of the window.
    pub height: u8,
}

impl PopupSpec {
    /// Parse `[center|top|bottom|left|right][,SIZE%][,SIZE%]` as fzf does:
    /// for `center` the sizes are width then height (one size is both);
    /// for `top`/`bottom` the first is the height (full width unless a
    /// second is given), for `left`/`right` the first is the width.
    pub fn parse(text: &str) -> std::result::Result<PopupSpec, String> {
        let mut parts = text.split(',').map(str::trim).peekable();
        let position = match parts.peek().copied() {
            Some("center") | Some("") => Some(Position::Center),
            Some("top") => Some(Position::Top),
            Some("bottom") => Some(Position::Bottom),
            Some("left") => Some(Position::Left),
            Some("right") => Some(Position::Right),
            _ => None,
        };
        if position.is_some() {
            parts.next();
        }
        let position = position.unwrap_or(Position::Center);
        let sizes: Vec<u8> = parts
            .map(|p| {
                let digits = p.strip_suffix('%').unwrap_or(p);
                digits
                    .parse::<u8>()
                    .ok()
                    .filter(|n| (1..=100).contains(n))
                    .ok_or_else(|| {
                        format!("--tmux: {p:?} is not a size from 1% to 100% (in {text:?})")
                    })
            })
            .collect::<std::result::Result<_, _>>()?;
        if sizes.len() > 2 {
            return Err(format!("--tmux: at most two sizes (in {text:?})"));
        }
        let (first, second) = (sizes.first().copied(), sizes.get(1).copied());
        let (width, height) = match position {
            Position::Center => {
                let w = first.unwrap_or(90);
                (w, second.or(first).unwrap_or(85))
            }
            Position::Top | Position::Bottom => (second.unwrap_or(100), first.unwrap_or(50)),
            Position::Left | Position::Right => (first.unwrap_or(50), second.unwrap_or(100)),
        };
        Ok(PopupSpec {
            position,
            width,
            height,
        })
    }
}

/// Where the picker's preview sits (`--preview-window`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PreviewPosition {
    /// Right of the list from 110 columns on, below it on a narrower
    /// terminal.
    #[default]
    Auto,
    /// Right of the list, whatever the width.
    Right,
    /// Below the list, whatever the width.
    Down,
}

/// How much of the picker the preview takes (`--preview-window`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreviewSize {
    /// This percentage of the columns (right) or rows (down) the list and
    /// the preview share, 1 to 99.
    Percent(u8),
    /// This many columns (right) or rows (down), at least 1.
    Cells(u16),
}

/// A parsed `--preview-window`: where the preview sits, its size, and
/// whether it starts hidden (`ctrl-/` shows it). The default is what the
/// picker does without the option.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PreviewWindow {
    /// Where.
    pub position: PreviewPosition,
    /// How large (`None`: the picker's own split).
    pub size: Option<PreviewSize>,
    /// Whether the preview starts hidden.
    pub hidden: bool,
}

impl PreviewWindow {
    /// The grammar `--help` and the README document.
    pub const GRAMMAR: &'static str = "[right|down][:SIZE[%]][:hidden]";

    /// The words of [`Self::GRAMMAR`] shell completion offers (each a
    /// whole value; a size is the user's own).
    pub const WORDS: &'static [&'static str] = &["right", "down", "hidden"];

    /// Parse fzf's `--preview-window` subset: words separated by `:` or
    /// `,`, in any order, a later one winning: `right`, `down` (or
    /// `bottom`), a size (`60%`: a share from 1% to 99%; `40`: columns
    /// when right, rows when down), `hidden` (and `nohidden`). An empty
    /// value is the default. fzf's other positions (`up`, `left`) and
    /// options (borders, wrap, follow) are refused by name, not ignored.
    pub fn parse(text: &str) -> std::result::Result<PreviewWindow, String> {
        let mut window = PreviewWindow::default();
        for word in text.split([':', ',']).map(str::trim) {
            match word {
                "" => {}
                "right" => window.position = PreviewPosition::Right,
                "down" | "bottom" => window.position = PreviewPosition::Down,
                "hidden" => window.hidden = true,
                "nohidden" => window.hidden = false,
                "up" | "top" | "left" => {
                    return Err(format!(
                    "--preview-window: {word:?}: the preview sits right of the list or below it \
                         (right, down) (in {text:?}; accepted: {})",
                    Self::GRAMMAR
                ))
                }
                _ => window.size = Some(Self::size(word, text)?),
            }
        }
        Ok(window)
    }

    fn size(word: &str, text: &str) -> std::result::Result<PreviewSize, String> {
        let bad = || {
            format!(
                "--preview-window: {word:?} is not a position, a size (1% to 99%, or columns/rows) \
                 or hidden (in {text:?}; accepted: {})",
                Self::GRAMMAR
            )
        };
        match word.strip_suffix('%') {
            Some(digits) => digits
                .parse::<u8>()
                .ok()
                .filter(|n| (1..=99).contains(n))
                .map(PreviewSize::Percent)
                .ok_or_else(bad),
            None => word
                .parse::<u16>()
                .ok()
                .filter(|&n| n >= 1)
                .map(PreviewSize::Cells)
                .ok_or_else(bad),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn defaults_match_the_contract() {
        let limits = limits_from_flags(None, None, None).unwrap();
        assert_eq!(limits, Limits::default());
        assert_eq!(limits.max_references, 3);
        assert_eq!(limits.candidate_limit, 50);
        assert_eq!(limits.max_reference_bytes, 65_536);
    }

    #[test]
    fn rejects_out_of_range_values() {
        for bad in ["0", "-1", "4", "1.5", "", "x", "9007199254740992"] {
            let err = limits_from_flags(Some(bad), None, None).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidConfig, "{bad}");
        }
        for bad in ["0", "-3", "abc", "1e3"] {
            assert_eq!(
                limits_from_flags(None, Some(bad), None).unwrap_err().code,
                ErrorCode::InvalidConfig
            );
            assert_eq!(
                limits_from_flags(None, None, Some(bad)).unwrap_err().code,
                ErrorCode::InvalidConfig
            );
        }
    }

    #[test]
    fn accepts_in_range_values() {
        let limits = limits_from_flags(Some("1"), Some("7"), Some("100")).unwrap();
        assert_eq!(limits.max_references, 1);
        assert_eq!(limits.candidate_limit, 7);
        assert_eq!(limits.max_reference_bytes, 100);
    }

    #[test]
    fn specs_as_fzf_reads_them() {
        let p = |t| PopupSpec::parse(t).unwrap();
        assert_eq!(
            p("center"),
            PopupSpec {
                position: Position::Center,
                width: 90,
                height: 85
            }
        );
        assert_eq!((p("center,70%").width, p("center,70%").height), (70, 70));
        assert_eq!((p("80%,60%").width, p("80%,60%").height), (80, 60));
        let bottom = p("bottom,40%");
        assert_eq!(
            (bottom.position, bottom.width, bottom.height),
            (Position::Bottom, 100, 40)
        );
        let right = p("right,30%");
        assert_eq!((right.width, right.height), (30, 100));
        assert!(PopupSpec::parse("middle").is_err());
        assert!(PopupSpec::parse("center,0%").is_err());
        assert!(PopupSpec::parse("center,1,2,3").is_err());
    }

    #[test]
    fn preview_windows_as_fzf_reads_them() {
        let p = |t| PreviewWindow::parse(t).unwrap();
        assert_eq!(p(""), PreviewWindow::default());
        assert_eq!(
            p("right:60%"),
            PreviewWindow {
                position: PreviewPosition::Right,
                size: Some(PreviewSize::Percent(60)),
                hidden: false,
            }
        );
        assert_eq!(p("down,12"), p("bottom:12"));
        assert_eq!(p("down,12").size, Some(PreviewSize::Cells(12)));
        assert_eq!(p("down,12").position, PreviewPosition::Down);
        let hidden = p("hidden");
        assert!(hidden.hidden);
        assert_eq!(hidden.position, PreviewPosition::Auto);
        assert!(!p("hidden:nohidden").hidden);
        assert_eq!(p("40%").position, PreviewPosition::Auto);
        for bad in [
            "up",
            "left:50%",
            "right:0%",
            "right:100%",
            "sideways",
            "0",
            "-3",
            "50%%",
            "wrap",
        ] {
            let err = PreviewWindow::parse(bad).unwrap_err();
            assert!(err.starts_with("--preview-window: "), "{bad}: {err}");
            assert!(err.contains(PreviewWindow::GRAMMAR), "{bad}: {err}");
        }
    }
}
