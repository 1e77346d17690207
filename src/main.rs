//! `session-ref`: parse the command line, run, map errors to exit codes.

use std::process::ExitCode;

use session_ref::cli::{Cli, Command, Config, Destination, PickOptions};
use session_ref::draft::Drafts;
use session_ref::error::{Error, ErrorCode};
use session_ref::output::Delivered;
use session_ref::tui::state::Exit;
use session_ref::{commands, display, output, signals, tui};

/// The process's allocator (why: see its entry in Cargo.toml).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    // Hooks run synchronously, before anything else starts.
    if let Some(code) = session_ref::hook::run_command(&config) {
        return code;
    }
    if let Some(code) = session_ref::mcp::run_command(&config) {
        return code;
    }
    if let Command::Pick(options) = &config.command {
        return pick(&config, options);
    }
    if let Command::Search { .. } = &config.command {
        return search(config);
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

/// `search`: results stream to stdout from a job on rayon's pool; a
/// stopping signal sets the cancel flag, which stops the scan between
/// sessions, and exits 130.
fn search(config: Config) -> ExitCode {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let cancel = Arc::new(AtomicBool::new(false));
    let (tx, rx) = crossbeam_channel::unbounded();
    let on_signal = tx.clone();
    let watched = signals::forward(signals::STOP_COMMAND, move |_| on_signal.send(None).is_ok());
    if let Err(e) = watched {
        return fail(&e);
    }
    rayon::spawn({
        let cancel = cancel.clone();
        move || {
            let work = || commands::search_streaming(&config, &cancel);
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
                .unwrap_or_else(|panic| Err(Error::from_panic(&*panic)));
            let _ = tx.send(Some(result));
        }
    });
    match rx.recv() {
        Ok(Some(Ok(()))) => ExitCode::SUCCESS,
        Ok(Some(Err(e))) => fail(&e),
        Ok(None) | Err(_) => {
            cancel.store(true, Ordering::Relaxed);
            fail(&Error::cancelled())
        }
    }
}

/// The picker; its result is delivered once the terminal is restored. A
/// prompt that is not delivered (abort, failure) is saved as a draft.
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
    if let Destination::File(path) = &options.destination {
        if let Err(e) = output::check_writable(path) {
            return fail(&e.into());
        }
    }
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let drafts = Drafts::locate(|k| std::env::var(k).ok(), home.as_deref());
    let offered = drafts.as_ref().and_then(Drafts::latest);
    let picked = match tui::run(config, options, offered) {
        Ok(picked) => picked,
        Err(e) => return fail(&e),
    };
    tui::print_report(&picked.report, config);
    let keep = || keep_prompt(drafts.as_ref(), &picked.prompt, picked.restored.as_deref());
    let code = match &picked.exit {
        Err(e) => {
            let code = fail(e);
            keep();
            return code;
        }
        Ok(Exit::Abort) => {
            keep();
            return ExitCode::from(EXIT_CANCELLED);
        }
        Ok(Exit::Submit(text)) => match output::deliver(text, &options.destination) {
            Ok(Delivered::Done) => 0,
            Ok(Delivered::Exited(code)) => code,
            Err(e) => {
                let code = fail(&e.into());
                keep();
                return code;
            }
        },
    };
    if code == 0 {
        if let Some(restored) = &picked.restored {
            let _ = std::fs::remove_file(restored);
        }
    } else {
        // The command that got the result failed: keep the prompt too.
        keep();
    }
    ExitCode::from(u8::try_from(code).unwrap_or(EXIT_FAILED))
}

/// Save a prompt that was not delivered (when it holds anything) and say
/// where on stderr; the draft it was restored from is then superseded.
fn keep_prompt(drafts: Option<&Drafts>, prompt: &str, restored: Option<&std::path::Path>) {
    if prompt.trim().is_empty() {
        return;
    }
    let saved = match drafts {
        Some(drafts) => drafts.save(prompt),
        None => Err(std::io::Error::other(
            "neither XDG_STATE_HOME nor HOME is set",
        )),
    };
    match saved {
        Ok(path) => {
            eprintln!(
                "session-ref: note: the prompt was saved to {} (alt-r in the picker restores it; or --prompt-file)",
                display::path_for_person(&path)
            );
            if let Some(restored) = restored.filter(|r| *r != path) {
                let _ = std::fs::remove_file(restored);
            }
        }
        // The last place left to keep it: stderr.
        Err(e) => eprintln!(
            "session-ref: {}: cannot save the prompt ({}); it was:\n{}",
            ErrorCode::DeliveryFailed,
            display::escape_unsafe(&e.to_string()),
            display::escape_unsafe_lines(prompt)
        ),
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
