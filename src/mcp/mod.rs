//! `session-ref mcp`: a stdio MCP server (on rmcp, the official Rust SDK)
//! through which an agent lists, searches and reads the user's sessions;
//! `session-ref mcp install|uninstall AGENT`: registering it the way each
//! agent's own `mcp add` does.
//!
//! - [`transport`]: lines on stdin to rmcp, answers on stdout; refuses what
//!   is not JSON-RPC, too long, or unknown before `initialize`.
//! - [`server`]: rmcp's handler; every request is a job on rayon's pool.
//! - [`sessions`]: the listing the answers come from, kept fresh.
//! - [`rpc`]: what every handler shares (jobs on the pool, JSON-RPC errors).
//! - [`tools`] (on rmcp's typed tool router, their arguments as the types
//!   of [`args`]), [`resources`], [`prompts`]: what the server offers.
//! - [`install`]: the agents' settings files.
//!
//! tokio runs only here, on one thread, for rmcp; the rest of the program
//! keeps its own concurrency (rayon's pool, plain threads).

pub mod args;
pub mod install;
pub mod prompts;
pub mod resources;
pub mod rpc;
pub mod server;
pub mod sessions;
pub mod tools;
pub mod transport;

use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use rmcp::ServiceExt;

use crate::config::{Command, Config};

/// Serve MCP on stdin/stdout until stdin ends. `budget` is `read_session`'s
/// default; `search_index` the search index's directory.
pub fn serve(config: &Config, budget: usize, search_index: Option<std::path::PathBuf>) -> ExitCode {
    let sessions = sessions::Sessions::new(sessions::Source {
        config: config.clone(),
        search_index,
    });
    // Listing starts at once: the client's handshake and its first
    // questions overlap with it.
    sessions.warm();
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            return crate::error::Error::internal(format!("cannot start the MCP runtime: {e}"))
                .report()
        }
    };
    let out: transport::Out = Arc::new(Mutex::new(Box::new(std::io::stdout())));
    let stdin = std::io::BufReader::with_capacity(64 * 1024, std::io::stdin());
    let server = server::Server::new(sessions, budget);
    let (transport, written) = transport::StdioTransport::start(stdin, out);
    let failed = runtime.block_on(async move {
        match server.serve(transport).await {
            Ok(running) => {
                let _ = running.waiting().await;
                None
            }
            // Stdin ended before `initialize`: nothing was asked.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => None,
            Err(e) => Some(crate::error::Error::internal(format!("mcp: {e}"))),
        }
    });
    // Jobs still running (a warm-up, an abandoned search) are not waited for.
    runtime.shutdown_background();
    // Answers already handed to the writer are: as long as rmcp waits for
    // its last answers after end of input (5 s).
    written.wait(std::time::Duration::from_secs(5));
    failed.map_or(ExitCode::SUCCESS, |e| e.report())
}

/// Run an `mcp …` command; `None` for any other command.
pub fn run_command(config: &Config) -> Option<ExitCode> {
    match &config.command {
        Command::Mcp {
            budget,
            search_index,
        } => Some(serve(config, *budget, search_index.clone())),
        Command::McpInstall(request) | Command::McpUninstall(request) => {
            let result = crate::agents::with_process_env(|surroundings| {
                if matches!(config.command, Command::McpInstall(_)) {
                    install::install(request.clone(), surroundings)
                } else {
                    install::uninstall(request.clone(), surroundings)
                }
            });
            Some(
                match result.and_then(|text| Ok(crate::output::write_stdout(&text)?)) {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(e) => e.report(),
                },
            )
        }
        _ => None,
    }
}
