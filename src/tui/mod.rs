//! The interactive picker (SPEC §11): pick sessions in a fuzzy list, put
//! their mentions into a prompt, preview exactly what each injects, submit.
//!
//! Architecture: [`model`] is a pure state machine (`update(state, action)
//! -> effects`), [`keymap`] maps keys to actions through the one table of keys
//! ([`crate::keys`]), [`view`] draws one pane
//! per module from the state, [`driver`] is the thin event loop performing
//! effects, and [`terminal`] owns `/dev/tty` (raw mode, alternate screen,
//! restored on every exit path). stdout is never touched here: the result
//! is returned and written by the caller after the terminal is restored.

pub mod driver;
pub mod help;
pub mod keymap;
pub mod layout;
pub mod line;
pub mod model;
pub mod popup;
pub mod preview;
pub mod prompt;
pub mod remote_search;
/// The state machine under its earlier path (`tui::state::…`), for
/// callers written against it (`main`, branches merging): inside the
/// library every path names [`model`].
pub use model as state;
pub mod terminal;
pub mod text;
pub mod theme;
pub mod tty_backend;
pub mod view;

#[cfg(test)]
pub(crate) mod testkit;

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use crossbeam_channel::Sender;

use crate::commands;
use crate::config::{Config, PickOptions};
use crate::error::{Error, Result};
use crate::signals;
use driver::{Driver, Host, Msg, Report};
use model::{Exit, Setup, State};
use session_ref_engine::rank::EntryId;
use session_ref_stores::model::SessionRecord;
use session_ref_stores::Caches;
use terminal::{EditorIo, InputReader, TerminalGuard};

/// How a picker run ended.
#[derive(Debug)]
pub struct Picked {
    /// Submit (with the text to deliver) or abort; or why the picker
    /// failed once running.
    pub exit: Result<Exit>,
    /// What discovery could not list, for stderr.
    pub report: Report,
    /// The prompt as it stood at the end, to keep when it is not delivered.
    pub prompt: String,
    /// The saved draft restored into the prompt, to remove once the prompt
    /// is delivered or saved again.
    pub restored: Option<std::path::PathBuf>,
    /// What was typed before a restored draft replaced it (not the prompt
    /// at the end): saved as a draft however the run ends.
    pub set_aside: Option<String>,
}

/// The real host: `$EDITOR` on the terminal, titles read as jobs on
/// rayon's pool, the terminal's health.
struct TtyHost {
    reader: InputReader,
    guard: TerminalGuard,
    tx: Sender<Msg>,
    caches: Arc<Caches>,
}

impl Host for TtyHost {
    fn edit(&mut self, text: &str) -> std::result::Result<String, String> {
        self.reader.pause();
        self.guard.suspend();
        let editor = terminal::editor_command(|k| std::env::var(k).ok());
        let edited = terminal::run_editor(&editor, text, EditorIo::Tty);
        let resumed = self.guard.resume();
        self.reader.resume();
        resumed.map_err(|e| format!("cannot take the terminal back: {e}"))?;
        edited
    }

    fn read_titles(
        &mut self,
        batch: Vec<(EntryId, SessionRecord)>,
    ) -> Option<Vec<(EntryId, Option<String>)>> {
        let caches = Arc::clone(&self.caches);
        driver::spawn_job(self.tx.clone(), move |tx| {
            for chunk in batch.chunks(256) {
                if tx
                    .send(Msg::Activity(driver::read_activity(&caches, chunk)))
                    .is_err()
                    || tx
                        .send(Msg::Titles(driver::read_titles(&caches, chunk)))
                        .is_err()
                {
                    return;
                }
            }
        });
        None
    }

    /// A closed terminal (a killed tmux pane or popup, a dropped ssh
    /// session) cannot be opened any more, and a panic has already restored
    /// the terminal: either way the picker ends instead of waiting.
    fn health(&mut self) -> Option<Msg> {
        if terminal::panicked() {
            Some(Msg::Crashed)
        } else if terminal::open_tty().is_err() {
            Some(Msg::InputFailed("the terminal was closed".into()))
        } else {
            None
        }
    }
}

/// Run the picker on `/dev/tty`, offering `drafts` (newest first) for restoring. Returns
/// once the terminal is restored; the caller delivers a submitted result.
/// An error here means the picker never started (nothing was typed).
///
/// One channel feeds the loop: the input reader's thread, the signal watch
/// and the jobs on rayon's pool (listing now, titles and previews as they
/// are asked for) all post to it.
pub fn run(
    config: &Config,
    options: &PickOptions,
    drafts: Vec<crate::draft::Draft>,
) -> Result<Picked> {
    let (guard, terminal) = TerminalGuard::enter(options.mouse).map_err(|e| {
        Error::terminal(format!(
            "the picker needs a terminal: cannot open {}: {e} (for scripts, use `session-ref candidates` and `session-ref prepare`)",
            terminal::TTY
        ))
    })?;
    let (tx, rx) = crossbeam_channel::unbounded();
    let on_signal = tx.clone();
    signals::forward(signals::STOP_PICKER, move |name| {
        on_signal.send(Msg::Signal(name)).is_ok()
    })?;

    let state = State::new(Setup {
        drafts,
        ..setup(config, options)
    });
    let caches = Arc::clone(state.catalog().caches());
    let roots = config.roots.clone();
    let scan_caches = Arc::clone(&caches);
    driver::spawn_job(tx.clone(), move |tx| {
        driver::discover(&scan_caches, &roots, tx)
    });

    let key_tx = tx.clone();
    let reader = InputReader::spawn(move |event| {
        let msg = match event {
            // Stamped when read, not when the loop gets to it.
            Ok(crossterm::event::Event::Mouse(mouse)) => {
                Msg::Mouse(mouse, std::time::Instant::now())
            }
            Ok(event) => Msg::Input(event),
            Err(e) => Msg::InputFailed(e.to_string()),
        };
        key_tx.send(msg).is_ok()
    });
    let host = TtyHost {
        reader,
        guard,
        tx: tx.clone(),
        caches,
    };
    let driver = Driver::new(
        terminal,
        host,
        state,
        (tx, rx),
        config.limits,
        config.target.clone(),
    );
    let (result, kept) = driver.run_keeping_prompt();
    let (exit, report) = match result {
        Ok((exit, report)) => (Ok(exit), report),
        Err(e) => (Err(e), Report::default()),
    };
    // What listing learnt is kept for the next run (never an error).
    report.listed.save_index();
    Ok(Picked {
        exit,
        report,
        prompt: kept.prompt,
        restored: kept.restored,
        set_aside: kept.set_aside,
    })
}

/// The picker's starting point for a config.
pub fn setup(config: &Config, options: &PickOptions) -> Setup {
    let no_color = std::env::var("NO_COLOR").ok();
    Setup {
        limits: config.limits,
        target: config.target.clone(),
        format: options.format,
        query: options.query.clone(),
        prompt: options.prompt.clone(),
        now: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX)),
        home: std::env::var("HOME").ok(),
        preview_window: options.preview_window,
        theme: theme::Theme::from_no_color(no_color.as_deref()),
        drafts: Vec::new(),
        // The picker lists through the title index as `candidates` does.
        caches: Arc::new(crate::commands::run_caches(
            config,
            config.target.cwd.as_deref(),
            &config.remotes,
        )),
        // The index `session-ref search` keeps, unless `--no-cache`.
        search_index: config.cache_dir.as_ref().and_then(|_| {
            let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
            session_ref_stores::search::index::default_dir(
                |k| std::env::var(k).ok(),
                home.as_deref(),
            )
        }),
        empty_hint: if config.roots_explicit {
            "no sessions in the given stores".to_owned()
        } else {
            commands::nothing_found_hint(config)
        },
    }
}

/// Tell stderr what discovery could not list (and, verbose, what each
/// root gave and what it skipped), as the other commands do.
pub fn print_report(report: &Report, config: &Config) {
    commands::report_listing(&report.listed, config);
}
