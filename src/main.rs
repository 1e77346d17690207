//! `session-ref`: parse the command line, run, map errors to exit codes.

use std::process::ExitCode;

use session_ref::cli::{Cli, Command, Config, PickOptions};
use session_ref::error::{Error, ErrorCode};
use session_ref::output::Delivered;
use session_ref::tui::state::Exit;
use session_ref::{commands, output, signals, tui};

/// Exit code of a failed run.
const EXIT_FAILED: u8 = 1;
/// Exit code of a command line clap rejects.
const EXIT_USAGE: u8 = 2;
/// Exit code of a run the user cancelled or aborted.
const EXIT_CANCELLED: u8 = 130;

fn main() -> ExitCode {
    let cli = match Cli::parse_args() {
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
    if let Command::Pick(options) = &config.command {
        return pick(&config, options);
    }
    run(config)
}

/// What ends a one-shot command: its result, or a signal.
enum Outcome {
    Done(Result<String, Error>),
    Signal,
}

/// Run a one-shot command as a job on rayon's pool while this thread waits
/// for the first of its result and a stopping signal: Ctrl-C cancels at
/// once, even in the middle of listing or of reading stdin.
fn run(config: Config) -> ExitCode {
    let (tx, rx) = crossbeam_channel::unbounded();
    let on_signal = tx.clone();
    let watched = signals::forward(signals::STOP_COMMAND, move |_| {
        on_signal.send(Outcome::Signal).is_ok()
    });
    if let Err(e) = watched {
        return fail(&e);
    }
    rayon::spawn(move || {
        let work = || {
            let stdin = if commands::needs_stdin(&config.command) {
                Some(commands::read_stdin(std::io::stdin().lock())?)
            } else {
                None
            };
            commands::run(&config, stdin)
        };
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
            .unwrap_or_else(|panic| Err(Error::from_panic(&*panic)));
        let _ = tx.send(Outcome::Done(result));
    });
    match rx.recv() {
        Ok(Outcome::Done(Ok(text))) => match output::write_stdout(&text) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(&e.into()),
        },
        Ok(Outcome::Done(Err(e))) => fail(&e),
        Ok(Outcome::Signal) | Err(_) => fail(&Error::cancelled()),
    }
}

/// The picker; its result is delivered once the terminal is restored.
fn pick(config: &Config, options: &PickOptions) -> ExitCode {
    if let Some((spec, raw)) = &options.popup {
        if tui::popup::wanted() {
            // In the popup the result goes where the options say, else
            // into the pane the picker was started from.
            let paste = options.destination == session_ref::cli::Destination::Stdout;
            return match tui::popup::run(*spec, Some(raw), paste) {
                Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(EXIT_FAILED)),
                Err(e) => fail(&e),
            };
        }
    }
    let picked = match tui::run(config, options) {
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
        Err(e) => fail(&e.into()),
    }
}

fn fail(error: &Error) -> ExitCode {
    eprintln!("{}", error.stderr_line());
    ExitCode::from(if error.code == ErrorCode::Cancelled {
        EXIT_CANCELLED
    } else {
        EXIT_FAILED
    })
}
