//! `session-ref`: parse the command line, run, map errors to exit codes.

use std::process::ExitCode;

use clap::Parser;
use session_ref::cli::{Cli, Command, Config, PickOptions};
use session_ref::error::{Error, ErrorCode};
use session_ref::output::Delivered;
use session_ref::tui::state::Exit;
use session_ref::{commands, output, tui};

/// Exit code of a failed run.
const EXIT_FAILED: u8 = 1;
/// Exit code of a command line clap rejects.
const EXIT_USAGE: u8 = 2;
/// Exit code of a run the user cancelled or aborted.
const EXIT_CANCELLED: u8 = 130;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_USAGE } else { 0 });
        }
    };
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let cwd = std::env::current_dir()
        .ok()
        .map(|p| p.to_string_lossy().into_owned());
    let config = match cli.into_config(|k| std::env::var(k).ok(), home.as_deref(), cwd) {
        Ok(config) => config,
        Err(e) => return fail(&e),
    };
    // Hooks run synchronously: no async runtime on the per-prompt path.
    if let Some(code) = session_ref::hook::run_command(&config) {
        return code;
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("session-ref: cannot start: {e}");
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let code = runtime.block_on(run(config));
    // Do not wait for a blocking read that a Ctrl-C abandoned.
    runtime.shutdown_background();
    code
}

async fn run(config: Config) -> ExitCode {
    if let Command::Pick(options) = &config.command {
        return pick(&config, options).await;
    }
    let interrupted = interrupted();
    let work = async {
        let stdin = if commands::needs_stdin(&config.command) {
            Some(
                session_ref::engine::blocking(|| commands::read_stdin(std::io::stdin().lock()))
                    .await??,
            )
        } else {
            None
        };
        commands::run(&config, stdin).await
    };
    let result = tokio::select! {
        result = work => result,
        () = interrupted => Err(Error::cancelled()),
    };
    match result {
        Ok(text) => match output::write_stdout(&text) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("session-ref: {e}");
                ExitCode::from(EXIT_FAILED)
            }
        },
        Err(e) => fail(&e),
    }
}

/// The picker; its result is delivered once the terminal is restored.
async fn pick(config: &Config, options: &PickOptions) -> ExitCode {
    let picked = match tui::run(config, options).await {
        Ok(picked) => picked,
        Err(e) => return fail(&e),
    };
    tui::print_report(&picked.report, config.verbose);
    let Exit::Submit(text) = picked.exit else {
        return ExitCode::from(EXIT_CANCELLED);
    };
    match output::deliver(&text, &options.destination) {
        Ok(Delivered::Done) => ExitCode::SUCCESS,
        Ok(Delivered::Exited(code)) => ExitCode::from(u8::try_from(code).unwrap_or(EXIT_FAILED)),
        Err(e) => {
            eprintln!("session-ref: {e}");
            ExitCode::from(EXIT_FAILED)
        }
    }
}

/// Resolves on the first SIGINT (or SIGTERM). The handler is installed before
/// this returns, so no interrupt is lost between here and the first poll.
fn interrupted() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut int = signal(SignalKind::interrupt()).ok();
        let mut term = signal(SignalKind::terminate()).ok();
        async move {
            let int = async {
                match int.as_mut() {
                    Some(s) => drop(s.recv().await),
                    None => std::future::pending().await,
                }
            };
            let term = async {
                match term.as_mut() {
                    Some(s) => drop(s.recv().await),
                    None => std::future::pending().await,
                }
            };
            tokio::select! { () = int => {}, () = term => {} }
        }
    }
    #[cfg(not(unix))]
    async {
        let _ = tokio::signal::ctrl_c().await;
    }
}

fn fail(error: &Error) -> ExitCode {
    eprintln!("session-ref: {}: {}", error.code, error.message);
    ExitCode::from(if error.code == ErrorCode::Cancelled {
        EXIT_CANCELLED
    } else {
        EXIT_FAILED
    })
}
