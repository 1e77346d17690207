//! The interactive picker (SPEC §11): pick sessions in a fuzzy list, put
//! their mentions into a prompt, preview exactly what each injects, submit.
//!
//! Architecture: [`state`] is a pure state machine (`update(state, action)
//! -> effects`), [`keymap`] the one table of keys, [`view`] draws one pane
//! per module from the state, [`driver`] is the thin event loop performing
//! effects, and [`terminal`] owns `/dev/tty` (raw mode, alternate screen,
//! restored on every exit path). stdout is never touched here: the result
//! is returned and written by the caller after the terminal is restored.

pub mod driver;
pub mod keymap;
pub mod layout;
pub mod line;
pub mod preview;
pub mod prompt;
pub mod rank;
pub mod state;
pub mod terminal;
pub mod text;
pub mod theme;
pub mod view;

#[cfg(test)]
pub(crate) mod testkit;

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::mpsc;

use crate::cli::{Config, PickOptions};
use crate::commands;
use crate::error::{Error, Result};
use crate::store;
use crate::store::model::SessionRecord;
use crate::store::Caches;
use driver::{Driver, Host, Msg, Report};
use rank::EntryId;
use state::{Exit, Setup, State};
use terminal::{EditorIo, InputReader, TerminalGuard};

/// How a picker run ended.
#[derive(Debug)]
pub struct Picked {
    /// Submit (with the text to deliver) or abort.
    pub exit: Exit,
    /// What discovery could not list, for stderr.
    pub report: Report,
}

/// The real host: `$EDITOR` on the terminal, titles on a background thread.
struct TtyHost {
    reader: InputReader,
    guard: TerminalGuard,
    titles: std::sync::mpsc::Sender<Vec<(EntryId, SessionRecord)>>,
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
        let _ = self.titles.send(batch);
        None
    }
}

/// A thread reading titles in batches as they are asked for, answering on `tx`.
fn spawn_title_reader(
    tx: mpsc::UnboundedSender<Msg>,
    caches: Arc<Caches>,
) -> std::sync::mpsc::Sender<Vec<(EntryId, SessionRecord)>> {
    let (ask, asked) = std::sync::mpsc::channel::<Vec<(EntryId, SessionRecord)>>();
    std::thread::Builder::new()
        .name("session-ref-titles".into())
        .spawn(move || {
            while let Ok(mut batch) = asked.recv() {
                while let Ok(more) = asked.try_recv() {
                    batch.extend(more);
                }
                for chunk in batch.chunks(256) {
                    if tx
                        .send(Msg::Titles(driver::read_titles(&caches, chunk)))
                        .is_err()
                    {
                        return;
                    }
                }
            }
        })
        .expect("spawn the title reader");
    ask
}

/// Forward SIGTERM, SIGHUP and SIGINT to the loop, which then ends and
/// restores the terminal (Ctrl-C itself arrives as a key in raw mode).
fn forward_signals(tx: mpsc::UnboundedSender<Msg>) -> Result<()> {
    let mut streams = Vec::new();
    for (kind, name) in [
        (SignalKind::terminate(), "SIGTERM"),
        (SignalKind::hangup(), "SIGHUP"),
        (SignalKind::interrupt(), "SIGINT"),
    ] {
        let stream = signal(kind)
            .map_err(|e| Error::invalid_config(format!("cannot handle {name}: {e}")))?;
        streams.push((stream, name));
    }
    for (mut stream, name) in streams {
        let tx = tx.clone();
        tokio::spawn(async move {
            if stream.recv().await.is_some() {
                let _ = tx.send(Msg::Signal(name));
            }
        });
    }
    Ok(())
}

/// Twice a second, check that the terminal is still there and that no
/// thread or task panicked: a closed terminal (a killed tmux pane or popup,
/// a dropped ssh session) cannot be opened any more, and a panic has already
/// restored the terminal. Either way the picker ends instead of waiting.
fn watch_terminal(tx: mpsc::UnboundedSender<Msg>) {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(std::time::Duration::from_millis(500));
        loop {
            every.tick().await;
            let failure = if terminal::panicked() {
                Some(Msg::Crashed)
            } else if terminal::open_tty().is_err() {
                Some(Msg::InputFailed("the terminal was closed".into()))
            } else {
                None
            };
            if let Some(msg) = failure {
                let _ = tx.send(msg);
                return;
            }
            if tx.is_closed() {
                return;
            }
        }
    });
}

/// Run the picker on `/dev/tty`. Returns once the terminal is restored;
/// the caller delivers a submitted result.
pub async fn run(config: &Config, options: &PickOptions) -> Result<Picked> {
    let (guard, terminal) = TerminalGuard::enter().map_err(|e| {
        Error::invalid_config(format!(
            "the picker needs a terminal: cannot open {}: {e} (for scripts, use `session-ref candidates` and `session-ref prepare`)",
            terminal::TTY
        ))
    })?;
    let (tx, rx) = mpsc::unbounded_channel();
    forward_signals(tx.clone())?;

    let state = State::new(setup(config, options));
    let caches = Arc::clone(state.catalog().caches());
    let roots = config.roots.clone();
    let scan_tx = tx.clone();
    let scan_caches = Arc::clone(&caches);
    std::thread::Builder::new()
        .name("session-ref-scan".into())
        .spawn(move || {
            store::scan(&scan_caches, &roots, &|event| {
                let _ = scan_tx.send(Msg::Found(event));
            });
            let _ = scan_tx.send(Msg::ScanDone);
        })
        .map_err(|e| Error::invalid_config(format!("cannot start discovery: {e}")))?;

    watch_terminal(tx.clone());
    let key_tx = tx.clone();
    let reader = InputReader::spawn(move |event| {
        let msg = match event {
            Ok(event) => Msg::Input(event),
            Err(e) => Msg::InputFailed(e.to_string()),
        };
        key_tx.send(msg).is_ok()
    });
    let host = TtyHost {
        reader,
        guard,
        titles: spawn_title_reader(tx.clone(), caches),
    };
    let driver = Driver::new(
        terminal,
        host,
        state,
        (tx, rx),
        config.limits,
        config.target.clone(),
    );
    let (exit, report) = driver.run().await?;
    Ok(Picked { exit, report })
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
        theme: theme::Theme::from_no_color(no_color.as_deref()),
        empty_hint: if config.roots_explicit {
            "no sessions in the given stores".to_owned()
        } else {
            commands::nothing_found_hint(config)
        },
    }
}

/// Tell stderr what discovery could not list (and, verbose, what it skipped),
/// as the other commands do.
pub fn print_report(report: &Report, verbose: bool) {
    if verbose {
        for (path, why) in &report.skipped {
            eprintln!("session-ref: warning: {}: {why}", path.display());
        }
    }
    for (path, why) in &report.unreadable {
        eprintln!(
            "session-ref: warning: cannot list {}: {why}",
            path.display()
        );
    }
}
