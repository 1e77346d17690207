//! `session-ref`: parse the command line, run, map errors to exit codes.

use std::process::ExitCode;

use session_ref::cli::Cli;
use session_ref::config::{Command, Config, Destination, PickOptions};
use session_ref::draft::Drafts;
use session_ref::error::{
    Error, ErrorCode, EXIT_CANCELLED, EXIT_FAILED, EXIT_NO_MATCH, EXIT_USAGE,
};
use session_ref::output::Delivered;
use session_ref::tui::popup::Submitted;
use session_ref::tui::state::Exit;
use session_ref::{commands, display, output, signals, tui};

/// The process's allocator (why: see its entry in Cargo.toml).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let code = main_run();
    // A connection to another machine still open (a listing not waited
    // for, a cancelled command) is never dropped: end its ssh here.
    session_ref_stores::remote::end_all();
    code
}

/// Everything `main` does before the remotes' ssh are ended.
fn main_run() -> ExitCode {
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
    // Hooks run synchronously, before anything else starts (a prompt
    // without a mention is answered without looking at any store).
    if let Some(code) = session_ref::hook::run_command(&config) {
        return code;
    }
    // A store flag naming no store is a usage error, as grep and rg exit 2
    // for an operand they cannot search.
    if config.roots_explicit && config.command.reads_stores() {
        if let Some(problem) = session_ref_stores::unusable_root(&config.roots) {
            return fail(&Error::invalid_config(problem).usage());
        }
    }
    if let Some(code) = session_ref::mcp::run_command(&config) {
        return code;
    }
    if let Some(code) = session_ref::setup::run_command(&config) {
        return code;
    }
    if let Some(code) = session_ref::doctor::run_command(&config) {
        return code;
    }
    if let Command::Pick(options) = &config.command {
        return pick(&config, options);
    }
    if let Command::Search { .. } = &config.command {
        return search(config);
    }
    if let Command::Launch(request) = &config.command {
        return launch(&config, request);
    }
    if let Command::ExecPlan(file) = &config.command {
        return fail(&session_ref::launch::start::exec_plan_file(file));
    }
    if let Command::RemoteServe { .. } = &config.command {
        return match session_ref::remote::serve(&config, session_ref::commands::load_catalog) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(&e),
        };
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
                // A terminal on stdin would wait silently for the message.
                if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
                    eprintln!("{}", commands::STDIN_HINT);
                }
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

/// `resume`/`handoff`: every check made before anything starts; then the
/// command printed (`--print`), or the agent started (exec outside tmux,
/// a window or split inside). Returns only when the agent did not replace
/// this process.
fn launch(config: &Config, request: &session_ref::config::LaunchRequest) -> ExitCode {
    use session_ref::launch::start::{self, Place};
    // Where it would start is checked first (`--tmux-split` outside tmux),
    // unless it is only printed.
    let place = match Place::from_env(request.split) {
        Ok(place) => Some(place),
        Err(_) if request.print => None,
        Err(e) => return fail(&e),
    };
    let plan = match commands::launch_plan(config, request) {
        Ok(plan) => plan,
        Err(e) => return fail(&e),
    };
    let Some(place) = place.filter(|_| !request.print) else {
        return match output::write_stdout(&format!("{}\n", plan.shell_line())) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(&e.into()),
        };
    };
    match start::start(&plan, place) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

/// A resume or hand-off planned in the picker, started once the terminal
/// is restored: in a tmux window inside tmux, else in place of this
/// process.
fn start_picked(plan: &session_ref::launch::Plan) -> ExitCode {
    use session_ref::launch::start::{self, Place};
    match Place::from_env(false).and_then(|place| start::start(plan, place)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

/// `search`: results stream to stdout from a job on rayon's pool; a
/// stopping signal sets the cancel flag, which stops the scan between
/// sessions, and exits 130. No match exits 1.
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
        Ok(Some(Ok(outcome))) if outcome.matched == 0 => ExitCode::from(EXIT_NO_MATCH),
        Ok(Some(Ok(_))) => ExitCode::SUCCESS,
        Ok(Some(Err(e))) => fail(&e),
        Ok(None) | Err(_) => {
            cancel.store(true, Ordering::Relaxed);
            fail(&Error::cancelled())
        }
    }
}

/// The picker; its result is delivered once the terminal is restored. A
/// prompt that is not delivered (abort, failure) is saved as a draft. The
/// destination is checked before the picker opens, so that nothing typed
/// goes to one that cannot take it.
fn pick(config: &Config, options: &PickOptions) -> ExitCode {
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let drafts = Drafts::locate(|k| std::env::var(k).ok(), home.as_deref());
    if let Some(channel) = &options.popup_channel {
        // In `--tmux`'s popup: the caller checked and delivers.
        return pick_in_popup(config, options, channel, drafts.as_ref());
    }
    let destination = match checked_destination(&options.destination) {
        Ok(destination) => destination,
        Err(e) => return fail(&e),
    };
    if let Some((spec, raw)) = &options.popup {
        if tui::popup::wanted() {
            return pick_through_popup(*spec, raw, &destination, drafts.as_ref());
        }
    }
    let offered = drafts.as_ref().map(Drafts::all).unwrap_or_default();
    let picked = match tui::run(config, options, offered) {
        Ok(picked) => picked,
        Err(e) => return fail(&e),
    };
    tui::print_report(&picked.report, config);
    // What a restored draft replaced is kept however the run ends.
    if let Some(text) = &picked.set_aside {
        keep_prompt(
            drafts.as_ref(),
            text,
            None,
            "the prompt a saved one replaced",
        );
    }
    match picked.exit {
        Err(e) => {
            let code = fail(&e);
            keep_prompt(
                drafts.as_ref(),
                &picked.prompt,
                picked.restored.as_deref(),
                "the prompt",
            );
            code
        }
        Ok(exit @ (Exit::Abort | Exit::Launch(_))) => {
            // Left as it was given (`--prompt`, `--prompt-file`), the
            // prompt is where it came from already: an abort (or a resume
            // or hand-off, which deliver no prompt) saves only what was
            // typed or restored (drafts piled up otherwise).
            if picked.prompt != options.prompt || picked.restored.is_some() {
                keep_prompt(
                    drafts.as_ref(),
                    &picked.prompt,
                    picked.restored.as_deref(),
                    "the prompt",
                );
            }
            match exit {
                Exit::Launch(plan) => start_picked(&plan),
                _ => ExitCode::from(EXIT_CANCELLED),
            }
        }
        Ok(Exit::Submit(text)) => deliver(
            Submitted {
                text,
                prompt: picked.prompt,
                restored: picked.restored,
            },
            &destination,
            drafts.as_ref(),
        ),
    }
}

/// `destination` as it will be written, checked now: a file must be
/// writable; a `--tmux-paste` pane must exist and be safe to paste into,
/// and is pinned to its pane id.
fn checked_destination(destination: &Destination) -> Result<Destination, Error> {
    match destination {
        Destination::File(path) => {
            output::check_writable(path)?;
        }
        Destination::TmuxPaste { pane, force } => {
            let id = output::check_paste_target(pane, *force)?;
            return Ok(Destination::TmuxPaste {
                pane: id,
                force: *force,
            });
        }
        Destination::Stdout | Destination::Exec(_) => {}
    }
    Ok(destination.clone())
}

/// `--tmux`: the picker draws in a popup and hands its result back through
/// a private channel; it is delivered here, as without `--tmux`.
fn pick_through_popup(
    spec: tui::popup::PopupSpec,
    raw: &str,
    destination: &Destination,
    drafts: Option<&Drafts>,
) -> ExitCode {
    let outcome = match tui::popup::run(spec, Some(raw)) {
        Ok(outcome) => outcome,
        Err(e) => return fail(&e),
    };
    // The popup's notes and errors, already escaped there.
    {
        use std::io::Write;
        let _ = std::io::stderr().write_all(&outcome.stderr);
    }
    match outcome.submitted {
        Some(submitted) => deliver(submitted, destination, drafts),
        None if outcome.launched => ExitCode::SUCCESS,
        None if outcome.code == 0 => fail(&Error::internal(
            "--tmux: the popup's picker ended without a result",
        )),
        None => ExitCode::from(u8::try_from(outcome.code).unwrap_or(EXIT_FAILED)),
    }
}

/// In `--tmux`'s popup: run the picker and hand a submitted result back
/// through `channel` for the caller to deliver. An abort or a failure is
/// handled here, as without `--tmux` (the caller relays stderr).
fn pick_in_popup(
    config: &Config,
    options: &PickOptions,
    channel: &std::path::Path,
    drafts: Option<&Drafts>,
) -> ExitCode {
    let offered = drafts.map(Drafts::all).unwrap_or_default();
    let picked = match tui::run(config, options, offered) {
        Ok(picked) => picked,
        Err(e) => return fail(&e),
    };
    tui::print_report(&picked.report, config);
    if let Some(text) = &picked.set_aside {
        keep_prompt(drafts, text, None, "the prompt a saved one replaced");
    }
    let code = match &picked.exit {
        Err(e) => fail(e),
        Ok(Exit::Abort) if picked.prompt == options.prompt && picked.restored.is_none() => {
            return ExitCode::from(EXIT_CANCELLED)
        }
        Ok(Exit::Abort) => ExitCode::from(EXIT_CANCELLED),
        // In tmux's popup, the agent opens in a window of its own; the
        // caller is told it was started.
        Ok(Exit::Launch(plan)) => {
            let code = start_picked(plan);
            if code == ExitCode::SUCCESS {
                if let Err(e) = tui::popup::launched(channel) {
                    return fail(&Error::internal(format!(
                        "--tmux: cannot tell the caller the agent started: {e}"
                    )));
                }
                return code;
            }
            code
        }
        Ok(Exit::Submit(text)) => {
            let submitted = Submitted {
                text: text.clone(),
                prompt: picked.prompt.clone(),
                restored: picked.restored.clone(),
            };
            match tui::popup::send(channel, &submitted) {
                Ok(()) => return ExitCode::SUCCESS,
                Err(e) => fail(&Error::internal(format!(
                    "--tmux: cannot hand the result to the caller: {e}"
                ))),
            }
        }
    };
    keep_prompt(
        drafts,
        &picked.prompt,
        picked.restored.as_deref(),
        "the prompt",
    );
    code
}

/// Deliver a submitted result; when it is not delivered, or the command
/// that got it failed, keep the prompt as a draft. Once delivered, the
/// draft it was restored from is removed.
fn deliver(submitted: Submitted, destination: &Destination, drafts: Option<&Drafts>) -> ExitCode {
    let keep = || {
        keep_prompt(
            drafts,
            &submitted.prompt,
            submitted.restored.as_deref(),
            "the prompt",
        )
    };
    let code = match output::deliver(&submitted.text, destination) {
        Ok(Delivered::Done) => 0,
        Ok(Delivered::Exited(code)) => code,
        Err(e) => {
            let code = fail(&e.into());
            keep();
            return code;
        }
    };
    if code == 0 {
        if let Some(restored) = &submitted.restored {
            let _ = std::fs::remove_file(restored);
        }
    } else {
        // The command that got the result failed: keep the prompt too.
        keep();
    }
    ExitCode::from(u8::try_from(code).unwrap_or(EXIT_FAILED))
}

/// Save a prompt that was not delivered (when it holds anything) and say
/// where on stderr (`what` names it); the draft it was restored from is
/// then superseded.
fn keep_prompt(
    drafts: Option<&Drafts>,
    prompt: &str,
    restored: Option<&std::path::Path>,
    what: &str,
) {
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
                "session-ref: note: {what} was saved to {} (alt-r in the picker restores it; or --prompt-file)",
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

/// Report `error` on stderr; its exit code (the one path: [`Error::report`]).
fn fail(error: &Error) -> ExitCode {
    error.report()
}
