//! `session-ref doctor`: is everything in place, and if not, what fixes it.
//!
//! It reads what the other commands read and changes nothing but the
//! title index (brought up to date as any listing does): the stores
//! through the engine's [`session_ref_engine::open::Stores`] (kinds,
//! roots, sessions, the files it could not read and why), the caches
//! (where, how big, whether this run found the title index fresh or read
//! logs again), each agent's hook and MCP registration in the user's
//! settings, and in the current project's where `setup --project` put one,
//! through the integration table (which program they run, and whether it
//! still runs), and each configured remote's hello within its
//! connect timeout (all at once, on threads of their own). Each problem is
//! one line with the command that fixes it; the exit code is 0 when there
//! is none, else 1.

pub mod report;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::agents::{self, Agent, InstallEnv, Scope};
use crate::config::{Command, Config};
use crate::error::Result;
use report::{
    shown, AgentStatus, CacheStatus, Integration, Problem, RemoteStatus, Report, StoreStatus,
    Unreadable,
};
use session_ref_stores::index::title::TitleIndex;
use session_ref_stores::Catalog;

/// Bytes taken by the files in `dir` and, `deep`, below it (links not
/// followed; a cache is a few levels deep at most).
fn dir_bytes(dir: &Path, deep: bool) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(|e| e.ok())
        .filter_map(|e| Some((e.path(), e.file_type().ok()?)))
        .map(|(path, kind)| {
            if kind.is_file() {
                std::fs::symlink_metadata(&path).map_or(0, |m| m.len())
            } else if kind.is_dir() && deep {
                dir_bytes(&path, true)
            } else {
                0
            }
        })
        .sum()
}

fn stores(config: &Config, catalog: &Catalog, problems: &mut Vec<Problem>) -> Vec<StoreStatus> {
    let statuses: Vec<StoreStatus> = config
        .roots
        .iter()
        .map(|(kind, root)| {
            let tally = catalog.found_under(kind, root);
            let unreadable: Vec<Unreadable> = catalog
                .unreadable
                .iter()
                .filter(|(path, _)| path.starts_with(root))
                .map(|(path, why)| Unreadable {
                    path: shown(path),
                    why: why.clone(),
                })
                .collect();
            if !unreadable.is_empty() {
                problems.push(Problem {
                    problem: format!(
                        "{} files under {} could not be read",
                        unreadable.len(),
                        shown(root)
                    ),
                    fix: "see why above (`session-ref doctor --json` lists them all); \
                          make them readable or move them out of the store"
                        .to_owned(),
                });
            }
            StoreStatus {
                kind: kind.as_str().to_owned(),
                path: shown(root),
                sessions: tally.sessions,
                skipped: tally.skipped,
                unreadable,
            }
        })
        .collect();
    if catalog.is_empty() {
        problems.push(Problem {
            problem: "no session was found in any store".to_owned(),
            fix: "use an agent once, or name a store: session-ref --store DIR doctor".to_owned(),
        });
    }
    statuses
}

fn caches(config: &Config, catalog: &Catalog, search_dir: Option<&Path>) -> Vec<CacheStatus> {
    let titles = match &config.cache_dir {
        None => CacheStatus {
            name: "titles",
            path: None,
            bytes: 0,
            state: "disabled",
            reread: 0,
        },
        Some(dir) => {
            let reread = catalog.caches().get::<TitleIndex>().changes().len();
            CacheStatus {
                name: "titles",
                path: Some(shown(dir)),
                bytes: dir_bytes(dir, false),
                state: if reread == 0 { "fresh" } else { "updated" },
                reread,
            }
        }
    };
    let search = match search_dir {
        None => CacheStatus {
            name: "search",
            path: None,
            bytes: 0,
            state: "disabled",
            reread: 0,
        },
        Some(dir) => CacheStatus {
            name: "search",
            path: Some(shown(dir)),
            bytes: dir_bytes(dir, true),
            state: if dir.is_dir() { "fresh" } else { "absent" },
            reread: 0,
        },
    };
    vec![titles, search]
}

/// Whether a registered program runs: a path that is an executable file,
/// or a bare name found on `$PATH`.
fn program_runs(program: &str, env: &InstallEnv<'_>) -> bool {
    if program.contains('/') {
        return agents::runs(Path::new(program));
    }
    (env.env)("PATH").is_some_and(|path| agents::on_path(&path, program).is_some())
}

fn integration(
    found: Result<(PathBuf, Option<String>)>,
    env: &InstallEnv<'_>,
    located: Option<PathBuf>,
) -> Integration {
    match found {
        Ok((file, program)) => Integration {
            file: shown(&file),
            installed: program.is_some(),
            runs: program.as_deref().is_some_and(|p| program_runs(p, env)),
            program,
            error: None,
        },
        Err(e) => Integration {
            file: located.as_deref().map(shown).unwrap_or_default(),
            installed: false,
            program: None,
            runs: false,
            error: Some(e.message),
        },
    }
}

/// The hook and MCP registration of `agent` in the settings of `scope`.
fn registrations(
    agent: Agent,
    scope: Scope,
    env: &InstallEnv<'_>,
) -> (Option<Integration>, Option<Integration>) {
    let i = agent.integration();
    let hook = i.hook.as_ref().map(|h| {
        let located = (h.files)(scope, env).ok().map(|f| f.hooks_file);
        integration(
            crate::hook::install::installed(agent, scope, env),
            env,
            located,
        )
    });
    let mcp = i.mcp.as_ref().map(|m| {
        let located = (m.place)(scope, env).ok().map(|p| p.file);
        integration(
            crate::mcp::install::installed(agent, scope, env),
            env,
            located,
        )
    });
    (hook, mcp)
}

fn agent_status(agent: Agent, env: &InstallEnv<'_>, problems: &mut Vec<Problem>) -> AgentStatus {
    let i = agent.integration();
    let presence = agent.presence(env);
    let (hook, mcp) = registrations(agent, Scope::User, env);
    // The current project's settings count only where we are registered
    // in them (`setup --project`): a project of no one's is not a problem.
    let (project_hook, project_mcp) = registrations(agent, Scope::Project, env);
    // In the home directory a project's file can be the user's own.
    let registered = |i: Option<Integration>, user: &Option<Integration>| {
        let user_file = user.as_ref().map(|u| u.file.as_str());
        i.filter(|i| i.installed && Some(i.file.as_str()) != user_file)
    };
    let project_hook = registered(project_hook, &hook);
    let project_mcp = registered(project_mcp, &mcp);
    let checked = [
        ("hook", &hook, ""),
        ("MCP server", &mcp, ""),
        ("project hook", &project_hook, " --project"),
        ("project MCP server", &project_mcp, " --project"),
    ];
    for (what, status, scope) in checked {
        let Some(status) = status else { continue };
        if let Some(error) = &status.error {
            problems.push(Problem {
                problem: format!("{}'s settings cannot be read: {error}", i.product),
                fix: format!("repair {} by hand", status.file),
            });
        } else if status.installed && !status.runs {
            problems.push(Problem {
                problem: format!(
                    "{}'s {what} runs {}, which no longer runs",
                    i.product,
                    status.program.as_deref().unwrap_or_default()
                ),
                fix: format!("session-ref setup{scope} --yes --agent {}", agent.as_str()),
            });
        }
    }
    AgentStatus {
        agent: i.name,
        product: i.product,
        found: presence.found(),
        binary: presence.binary.as_deref().map(shown),
        hook,
        mcp,
        project_hook,
        project_mcp,
    }
}

fn remotes(config: &Config, problems: &mut Vec<Problem>) -> Vec<RemoteStatus> {
    let settings = &config.remotes;
    let Some(client) = settings.client() else {
        return Vec::new();
    };
    // Every host at once, each bounded by the connect timeout.
    let statuses: Vec<RemoteStatus> = std::thread::scope(|scope| {
        let asked: Vec<_> = settings
            .hosts
            .iter()
            .map(|host| (host, scope.spawn(|| client.hello(host))))
            .collect();
        asked
            .into_iter()
            .map(|(host, answer)| {
                let answer = answer
                    .join()
                    .unwrap_or_else(|_| Err("the check failed".to_owned()));
                match answer {
                    Ok(hello) => RemoteStatus {
                        host: host.host.clone(),
                        reachable: true,
                        version: Some(hello.version),
                        protocol: Some(hello.protocol),
                        error: None,
                    },
                    Err(why) => RemoteStatus {
                        host: host.host.clone(),
                        reachable: false,
                        version: None,
                        protocol: None,
                        error: Some(why),
                    },
                }
            })
            .collect()
    });
    for r in statuses.iter().filter(|r| !r.reachable) {
        problems.push(Problem {
            problem: format!("the remote {} does not answer", r.host),
            fix: format!("session-ref remote check {}", r.host),
        });
    }
    statuses
}

/// Look at everything (see the module docs).
pub fn examine(config: &Config, env: &InstallEnv<'_>, search_dir: Option<&Path>) -> Report {
    let mut problems = Vec::new();
    // Listing only this machine's stores: the remotes are asked for their
    // hello alone, below.
    let catalog =
        crate::commands::stores(config, config.target.cwd.as_deref(), &Default::default())
            .catalog();
    let stores = stores(config, &catalog, &mut problems);
    catalog.save_index();
    let caches = caches(config, &catalog, search_dir);
    let agents = Agent::all()
        .map(|agent| agent_status(agent, env, &mut problems))
        .collect();
    let remotes = remotes(config, &mut problems);
    Report {
        ok: problems.is_empty(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        stores,
        caches,
        agents,
        remotes,
        problems,
    }
}

/// Run `doctor`; `None` for any other command. Exit 0 when nothing is
/// wrong, else 1.
pub fn run_command(config: &Config) -> Option<ExitCode> {
    let Command::Doctor { json } = &config.command else {
        return None;
    };
    let report = crate::agents::with_process_env(|install_env| {
        let search_dir = config.cache_dir.as_ref().and_then(|_| {
            session_ref_stores::search::index::default_dir(install_env.env, install_env.home)
        });
        examine(config, install_env, search_dir.as_deref())
    });
    let text = if *json {
        let mut line = serde_json::to_string(&report).unwrap_or_default();
        line.push('\n');
        line
    } else {
        report.text()
    };
    Some(match crate::output::write_stdout(&text) {
        Ok(()) if report.ok => ExitCode::SUCCESS,
        Ok(()) => ExitCode::from(crate::error::EXIT_FAILED),
        Err(e) => crate::error::Error::from(e).report(),
    })
}
