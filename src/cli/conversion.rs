//! The parsed command line into a validated [`Config`]: limits checked,
//! store roots found, each command's values turned into the config's
//! types, remotes loaded. A bad value is the contract's error (exit 1, or 2
//! where the usage is wrong), never a panic.

use super::docs;
use super::integrations::{HookAction, McpAction};
use super::syntax::{
    Cli, CommandArgs, ExportFormatArg, InputArg, OutputArg, PickFormatArg, RemoteAction, SortArg,
    UriAction,
};
use crate::config::{
    self, Command, Config, Destination, InputFormat, InstallRequest, LaunchRequest, McpRequest,
    OutputFormat, PickFormat, PickOptions, PopupSpec, Scope, SortBy,
};
use crate::error::{Error, Result};
use crate::launch::Launch;
use session_ref_core::candidates::Target;
use session_ref_core::export::ExportFormat;
use session_ref_stores::StoreRoots;

impl Cli {
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
                redact,
            } => Command::Prepare {
                text,
                input: input.into(),
                format: format.into(),
                redact,
            },
            CommandArgs::Preview {
                id,
                label,
                json,
                redact,
            } => Command::Preview {
                id,
                label,
                json,
                redact,
            },
            CommandArgs::Export {
                id,
                format,
                snapshot,
                tools,
                redact,
                label,
                output,
            } => Command::Export {
                id,
                label,
                format: match format {
                    ExportFormatArg::Md => ExportFormat::Markdown,
                    ExportFormatArg::Html => ExportFormat::Html,
                    ExportFormatArg::Json => ExportFormat::Json,
                },
                snapshot,
                tools,
                redact,
                output,
            },
            CommandArgs::Resume { id, start } => Command::Launch(LaunchRequest {
                id,
                launch: Launch::Resume,
                print: start.print,
                split: start.tmux_split,
            }),
            CommandArgs::Handoff {
                id,
                to,
                prompt,
                start,
            } => Command::Launch(LaunchRequest {
                id,
                launch: Launch::Handoff {
                    to: crate::launch::launcher(&to)
                        .map(|l| l.kind)
                        .ok_or_else(|| {
                            Error::invalid_config(format!("handoff --to: no agent {to:?}"))
                        })?,
                    prompt,
                },
                print: start.print,
                split: start.tmux_split,
            }),
            CommandArgs::ExecPlan { file } => Command::ExecPlan(file),
            CommandArgs::Keep { purge, max_size } => Command::Keep {
                purge,
                max_bytes: max_size
                    .map(|size| {
                        crate::config::keep::parse_size(&size).ok_or_else(|| {
                            Error::invalid_config(format!(
                                "--max-size: {}",
                                crate::config::keep::SIZE_SYNTAX
                            ))
                            .usage()
                        })
                    })
                    .transpose()?,
            },
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
                        agent: args.agent,
                        scope: scope(args.project),
                        budget: explicit,
                        store_args,
                    }),
                    Some(McpAction::Uninstall(args)) => Command::McpUninstall(McpRequest {
                        agent: args.agent,
                        scope: scope(args.project),
                        budget: None,
                        store_args: Vec::new(),
                    }),
                }
            }
            CommandArgs::Setup {
                yes,
                dry_run,
                agent,
                undo,
                project,
            } => Command::Setup(config::SetupRequest {
                agents: (!agent.is_empty()).then_some(agent),
                yes,
                dry_run,
                undo,
                scope: scope(project),
            }),
            CommandArgs::Doctor { json } => Command::Doctor { json },
            CommandArgs::Completions { shell } => {
                Command::Completions(docs::completions(shell, Cli::full_command()))
            }
            CommandArgs::Man { command, dir } => {
                docs::man_command(Cli::full_command(), &command, dir)?
            }
        };
        // A server answers for its own machine only: remotes of remotes
        // are never asked (no loops, one hop).
        let remotes = if matches!(command, Command::RemoteServe { .. }) {
            crate::config::remotes::RemoteSettings::default()
        } else {
            crate::config::remotes::RemoteSettings::load(&g.remote, &env, home)?
        };
        let keep = crate::config::keep::KeepSettings::load(&env, home)?;
        Ok(Config {
            remotes,
            keep,
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

impl From<SortArg> for SortBy {
    fn from(arg: SortArg) -> SortBy {
        match arg {
            SortArg::Created => SortBy::Created,
            SortArg::Updated => SortBy::Updated,
        }
    }
}

impl From<InputArg> for InputFormat {
    fn from(arg: InputArg) -> InputFormat {
        match arg {
            InputArg::Text => InputFormat::Text,
            InputArg::Jsonl => InputFormat::Jsonl,
        }
    }
}

impl From<OutputArg> for OutputFormat {
    fn from(arg: OutputArg) -> OutputFormat {
        match arg {
            OutputArg::Text => OutputFormat::Text,
            OutputArg::Jsonl => OutputFormat::Jsonl,
        }
    }
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

fn scope(project: bool) -> Scope {
    if project {
        Scope::Project
    } else {
        Scope::User
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
    Ok(match action {
        HookAction::Run(agent, args) => {
            let budget = parse_budget(args.budget)?.unwrap_or(crate::hook::default_cap(agent));
            Command::Hook { agent, budget }
        }
        HookAction::Install(args) => Command::HookInstall(InstallRequest {
            agent: args.agent,
            scope: scope(args.project),
            print: args.print,
            budget: parse_budget(args.budget)?,
            store_args: store_args.to_vec(),
        }),
        HookAction::Uninstall(args) => Command::HookUninstall(InstallRequest {
            agent: args.agent,
            scope: scope(args.project),
            print: false,
            budget: None,
            store_args: Vec::new(),
        }),
    })
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
