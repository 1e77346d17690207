//! The thin loop around the state machine: it merges terminal events,
//! discovery results, titles, previews and the prepared output into
//! [`Action`]s, applies them with [`update`], performs the [`Effect`]s, and
//! draws. Generic over ratatui's `Backend`, so tests run it on a
//! `TestBackend` with events they inject.
//!
//! Everything reaches the loop through one channel of [`Msg`]: the input
//! reader's thread posts keys, the signal watch posts signals, and the
//! background work (listing, titles, previews, preparing) runs as jobs on
//! rayon's global pool ([`spawn_job`]) that post their results. The loop
//! itself never blocks on anything but that channel.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use crossterm::event::Event;
use ratatui::backend::Backend;
use ratatui::Terminal;

use crate::config::Limits;
use crate::error::{Error, ErrorCode, Result};
use crate::search::hits::SessionMatch;
use crate::tui::keymap;
use crate::tui::model::{update, Action, Effect, Exit, ExportFailure, State};
use crate::tui::preview::{PreviewKey, Snapshot};
use crate::tui::remote_search::{RemoteAnswer, RemoteAsk};
use crate::tui::view;
use session_ref_core::candidates::Target;
use session_ref_engine::engine::Engine;
use session_ref_engine::rank::EntryId;
use session_ref_stores::model::SessionRecord;
use session_ref_stores::{Caches, Catalog, ScanEvent};
use std::sync::atomic::AtomicBool;

mod jobs;
mod listing;
mod search;

pub use listing::{read_activity, read_latest_prompts, read_titles, Listed};
pub use search::{search_records, search_remote, REMOTE_SEARCH_LIMIT};

/// Everything that reaches the loop.
#[derive(Debug)]
pub enum Msg {
    /// A terminal event.
    Input(Event),
    /// A mouse event and when the input thread read it (what tells a
    /// double click from two clicks).
    Mouse(crossterm::event::MouseEvent, Instant),
    /// Reading the terminal failed.
    InputFailed(String),
    /// Discovery classified a file; for a session, what listing read of
    /// it beside the record ([`discover`]).
    Found(ScanEvent, Option<Listed>),
    /// Discovery finished.
    ScanDone,
    /// Titles read in the background.
    Titles(Vec<(EntryId, Option<String>)>),
    /// Last activity read in the background.
    Activity(Vec<(EntryId, i64)>),
    /// Latest typed prompts read in the background.
    LatestPrompts(Vec<(EntryId, Option<String>)>),
    /// A preview computed.
    Preview(PreviewKey, Result<Snapshot>),
    /// A preview request dropped before it started (no longer highlighted).
    PreviewDropped(PreviewKey),
    /// Conversation search `generation` found a session.
    SearchFound(u64, EntryId, SessionMatch),
    /// Conversation search `generation` ended (or why it could not run).
    SearchDone(u64, std::result::Result<(), String>),
    /// A remote answered a conversation search.
    RemoteSearched(RemoteAsk, RemoteAnswer),
    /// The background warm-up of the search index ended.
    IndexWarmed(crate::search::warm::Warmed),
    /// The prepared output, or why preparing failed.
    Prepared(Result<String>),
    /// A resume's or hand-off's command, or why it cannot start.
    Planned(Result<crate::launch::Plan>),
    /// An export written, or why not.
    Exported(std::result::Result<PathBuf, ExportFailure>),
    /// A signal asked the picker to stop.
    Signal(&'static str),
    /// A thread or job panicked (the panic hook restored the terminal).
    Crashed,
}

/// Run `work` as a job on rayon's pool; it posts its results on `tx`. A
/// panic in it posts [`Msg::Crashed`] (rayon would abort the process).
pub fn spawn_job(tx: Sender<Msg>, work: impl FnOnce(&Sender<Msg>) + Send + 'static) {
    rayon::spawn(move || {
        let run = std::panic::AssertUnwindSafe(|| work(&tx));
        if std::panic::catch_unwind(run).is_err() {
            let _ = tx.send(Msg::Crashed);
        }
    });
}

/// The picker's listing: discover every session under `roots` with
/// `caches` and post each file as [`Msg::Found`], a session's title and
/// activity read on the same thread of rayon's pool that listed it (the
/// data-parallel pass `candidates` makes, not jobs queued behind the
/// scan), then [`Msg::ScanDone`]. Rows then arrive titled and in their
/// final order, and the picker lists as fast as `candidates` (#25 item
/// 11). Stops posting once the loop is gone.
pub fn discover(caches: &Caches, roots: &session_ref_stores::StoreRoots, tx: &Sender<Msg>) {
    session_ref_stores::scan(caches, roots, &|event| {
        let listed = match &event {
            ScanEvent::Record(record) => Some(Listed::read(caches, record)),
            _ => None,
        };
        let _ = tx.send(Msg::Found(event, listed));
    });
    let _ = tx.send(Msg::ScanDone);
}

/// What the driver needs from the world outside the terminal buffer.
pub trait Host {
    /// Run `$EDITOR` on `text` with the terminal released; the edited text.
    fn edit(&mut self, text: &str) -> std::result::Result<String, String>;

    /// Read the titles of `batch`: now (return them) or in the background
    /// (send [`Msg::Titles`] later and return `None`).
    fn read_titles(
        &mut self,
        batch: Vec<(EntryId, SessionRecord)>,
    ) -> Option<Vec<(EntryId, Option<String>)>>;

    /// Checked every [`HEALTH_EVERY`]: a message that ends the picker when
    /// the world around it is gone (the terminal closed, a thread panicked).
    fn health(&mut self) -> Option<Msg> {
        None
    }
}

/// How often the loop asks [`Host::health`].
pub const HEALTH_EVERY: Duration = Duration::from_millis(500);

/// What discovery found, for the report after the picker (files it could
/// not list or skipped).
#[derive(Debug, Default)]
pub struct Report {
    /// The catalog the picker ended with.
    pub listed: Arc<Catalog>,
}

/// The event loop.
pub struct Driver<B: Backend, H: Host> {
    terminal: Terminal<B>,
    host: H,
    state: State,
    tx: Sender<Msg>,
    rx: Receiver<Msg>,
    limits: Limits,
    target: Target,
    /// Discovery's events not yet given to the state, and what was read of
    /// each session with its record.
    pending: Vec<(ScanEvent, Option<Listed>)>,
    /// What was read with the records of the batch given to the state
    /// last, by entry id: the answer to its title requests.
    listed: HashMap<EntryId, Listed>,
    engine: Option<Engine>,
    /// The preview the highlighted candidate needs; queued requests for
    /// others are dropped when their turn comes.
    wanted: Arc<std::sync::Mutex<Option<PreviewKey>>>,
    /// Stops the running conversation search.
    search_cancel: Option<Arc<AtomicBool>>,
    /// Where the search index warm-up stands.
    warm: Warm,
    /// The generation of the latest conversation search started.
    search_generation: Option<u64>,
}

/// Where the search index warm-up stands ([`crate::search::warm`]).
#[derive(Debug, Default)]
enum Warm {
    /// Not started (listing not done, or no index).
    #[default]
    Idle,
    /// Running; the flag stops it.
    Running(Arc<AtomicBool>),
    /// Stopped by a conversation search before its end: started again
    /// when the latest search ends.
    Stopped,
    /// Done, or skipped because another run holds the index lock.
    Done,
}

/// How long one turn of the loop may spend on queued messages before drawing.
const TURN: Duration = Duration::from_millis(30);

impl<B: Backend, H: Host> Driver<B, H> {
    /// A driver for `state`, fed by `rx` (whose sender `tx` the background
    /// work uses to answer).
    pub fn new(
        terminal: Terminal<B>,
        host: H,
        state: State,
        (tx, rx): (Sender<Msg>, Receiver<Msg>),
        limits: Limits,
        target: Target,
    ) -> Self {
        Driver {
            terminal,
            host,
            state,
            tx,
            rx,
            limits,
            target,
            pending: Vec::new(),
            listed: HashMap::new(),
            engine: None,
            wanted: Arc::default(),
            search_cancel: None,
            warm: Warm::Idle,
            search_generation: None,
        }
    }

    /// Run until the picker ends; the exit and what discovery reported.
    pub fn run(mut self) -> Result<(Exit, Report)> {
        self.run_loop()
    }

    /// [`Driver::run`], also returning what must not be lost when the run
    /// fails or the result cannot be delivered ([`Kept`]).
    pub fn run_keeping_prompt(mut self) -> (Result<(Exit, Report)>, Kept) {
        let result = self.run_loop();
        let kept = Kept {
            prompt: self.state.prompt_text().to_owned(),
            restored: self.state.restored_draft().map(PathBuf::from),
            set_aside: self.state.set_aside().map(str::to_owned),
        };
        (result, kept)
    }

    fn run_loop(&mut self) -> Result<(Exit, Report)> {
        let size = self.terminal.size().map_err(terminal_failed)?;
        if let Some(exit) = self.dispatch(Action::Resize(size.width, size.height))? {
            return Ok((exit, self.report()));
        }
        let mut checked = Instant::now();
        loop {
            let effects = self.state.settle();
            if let Some(exit) = self.perform(effects)? {
                return Ok((exit, self.report()));
            }
            let state = &self.state;
            self.terminal
                .draw(|frame| view::draw(frame, state))
                .map_err(terminal_failed)?;
            let wait = HEALTH_EVERY.saturating_sub(checked.elapsed());
            let received = match self.rx.recv_timeout(wait) {
                Ok(msg) => Some(msg),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(Error::internal("the picker lost its input"))
                }
            };
            let health = if checked.elapsed() >= HEALTH_EVERY {
                checked = Instant::now();
                self.host.health()
            } else {
                None
            };
            let Some(first) = health.or(received) else {
                continue;
            };
            let turn = Instant::now();
            let mut next = Some(first);
            while let Some(msg) = next {
                if let Some(exit) = self.handle(msg)? {
                    return Ok((exit, self.report()));
                }
                next = if turn.elapsed() < TURN {
                    self.rx.try_recv().ok()
                } else {
                    None
                };
            }
            if let Some(exit) = self.flush_found()? {
                return Ok((exit, self.report()));
            }
        }
    }

    fn report(&self) -> Report {
        Report {
            listed: Arc::clone(self.state.catalog()),
        }
    }

    fn handle(&mut self, msg: Msg) -> Result<Option<Exit>> {
        if let Msg::Found(event, listed) = msg {
            self.pending.push((event, listed));
            return Ok(None);
        }
        if let Some(exit) = self.flush_found()? {
            return Ok(Some(exit));
        }
        let action = match msg {
            Msg::Input(Event::Key(key)) => match keymap::lookup(&key, self.state.key_context()) {
                Some(action) => action,
                None => return Ok(None),
            },
            Msg::Input(Event::Paste(text)) => Action::Paste(text),
            Msg::Mouse(event, at) => Action::Mouse(event, at),
            Msg::Input(Event::Mouse(event)) => Action::Mouse(event, Instant::now()),
            Msg::Input(Event::Resize(width, height)) => Action::Resize(width, height),
            Msg::Input(_) => return Ok(None),
            Msg::InputFailed(why) => {
                return Err(Error::terminal(format!(
                    "the picker needs a terminal: cannot read {}: {why}",
                    crate::tui::terminal::TTY
                )))
            }
            Msg::Found(..) => unreachable!("handled above"),
            Msg::ScanDone => {
                self.engine = Some(Engine::new(
                    Arc::clone(self.state.catalog()),
                    self.limits,
                    self.target.clone(),
                ));
                self.warm_search_index();
                Action::DiscoveryDone
            }
            Msg::Titles(titles) => Action::Titles(titles),
            Msg::Activity(times) => Action::Activity(times),
            Msg::LatestPrompts(found) => Action::LatestPrompts(found),
            Msg::Preview(key, result) => Action::PreviewReady(key, result),
            Msg::PreviewDropped(key) => Action::PreviewDropped(key),
            Msg::Prepared(result) => Action::Prepared(result),
            Msg::Planned(result) => Action::Planned(result),
            Msg::Exported(result) => Action::Exported(result),
            Msg::SearchFound(generation, id, found) => Action::SearchFound(generation, id, found),
            Msg::RemoteSearched(ask, answer) => Action::RemoteSearched {
                host: ask.host,
                query: ask.query,
                answer,
            },
            Msg::SearchDone(generation, result) => {
                if self.search_generation == Some(generation) {
                    self.search_generation = None;
                    if matches!(self.warm, Warm::Stopped) {
                        self.warm_search_index();
                    }
                }
                Action::SearchDone(generation, result)
            }
            // Nothing to show: later searches simply find the index warm.
            Msg::IndexWarmed(warmed) => {
                if !warmed.cancelled && matches!(self.warm, Warm::Running(_)) {
                    self.warm = Warm::Done;
                }
                return Ok(None);
            }
            Msg::Crashed => {
                return Err(Error::internal(
                    "the picker stopped after an internal error (see the panic message above)",
                ))
            }
            Msg::Signal(name) => {
                return Err(Error::new(
                    ErrorCode::Cancelled,
                    format!("the picker was stopped by {name}"),
                ))
            }
        };
        self.dispatch(action)
    }

    fn flush_found(&mut self) -> Result<Option<Exit>> {
        if self.pending.is_empty() {
            return Ok(None);
        }
        let batch = std::mem::take(&mut self.pending);
        // Records become entries in arrival order, numbered after those
        // listed so far (an entry id is the catalog's record id).
        let mut next = self.state.catalog().len();
        let mut events = Vec::with_capacity(batch.len());
        for (event, listed) in batch {
            if let ScanEvent::Record(_) = &event {
                let id = EntryId::try_from(next).expect("fewer than 2^32 sessions");
                if let Some(listed) = listed {
                    self.listed.insert(id, listed);
                }
                next += 1;
            }
            events.push(event);
        }
        let exit = self.dispatch(Action::Discovered(events));
        self.listed.clear();
        exit
    }

    fn dispatch(&mut self, action: Action) -> Result<Option<Exit>> {
        let effects = update(&mut self.state, action);
        self.perform(effects)
    }

    fn perform(&mut self, effects: Vec<Effect>) -> Result<Option<Exit>> {
        self.sync_wanted();
        let mut queue = std::collections::VecDeque::from(effects);
        while let Some(effect) = queue.pop_front() {
            match effect {
                Effect::Exit(exit) => return Ok(Some(exit)),
                Effect::ReadTitles(batch) => {
                    // What discovery read with the records answers at once,
                    // activity first so the rows take their final order.
                    let (known, unknown): (Vec<_>, Vec<_>) = batch
                        .into_iter()
                        .partition(|(id, _)| self.listed.contains_key(id));
                    if !known.is_empty() {
                        let (mut times, mut titles) = (Vec::new(), Vec::new());
                        for (id, _) in known {
                            let listed = self.listed.remove(&id).expect("partitioned");
                            times.extend(listed.activity.map(|t| (id, t)));
                            titles.push((id, listed.title));
                        }
                        queue.extend(update(&mut self.state, Action::Activity(times)));
                        queue.extend(update(&mut self.state, Action::Titles(titles)));
                    }
                    if unknown.is_empty() {
                        continue;
                    }
                    if let Some(titles) = self.host.read_titles(unknown) {
                        queue.extend(update(&mut self.state, Action::Titles(titles)));
                    }
                }
                Effect::ReadLatestPrompts(batch) => {
                    let caches = Arc::clone(self.state.catalog().caches());
                    spawn_job(self.tx.clone(), move |tx| {
                        let _ = tx.send(Msg::LatestPrompts(read_latest_prompts(&caches, &batch)));
                    });
                }
                Effect::LoadPreview { key, record } => {
                    self.sync_wanted();
                    self.load_preview(key, record);
                }
                Effect::OpenEditor(text) => {
                    let edited = self.host.edit(&text);
                    self.redraw_all()?;
                    queue.extend(update(&mut self.state, Action::EditorDone(edited)));
                }
                Effect::Prepare { text, format } => self.prepare(text, format),
                Effect::PlanLaunch { record, launch } => self.plan_launch(record, launch),
                Effect::Export {
                    record,
                    path,
                    format,
                    overwrite,
                } => self.export(record, path, format, overwrite),
                Effect::Search {
                    generation,
                    query,
                    records,
                } => self.search(generation, query, records),
                Effect::CancelSearch => self.cancel_search(),
                Effect::SearchRemote(ask) => self.search_remote(ask),
            }
        }
        Ok(None)
    }

    /// Clear the screen and forget what was drawn, so the next draw paints
    /// everything (after the editor used the terminal). Through `resize`,
    /// not `Terminal::clear`, which asks the terminal for the cursor
    /// position: a query that may reach stdout (see `tty_backend`).
    fn redraw_all(&mut self) -> Result<()> {
        let size = self.terminal.size().map_err(terminal_failed)?;
        self.terminal
            .resize(ratatui::layout::Rect::new(0, 0, size.width, size.height))
            .map_err(terminal_failed)
    }

    fn sync_wanted(&self) {
        *self.wanted.lock().unwrap_or_else(|e| e.into_inner()) = self.state.preview_key().cloned();
    }
}

impl<B: Backend, H: Host> Drop for Driver<B, H> {
    /// A search or index warm-up still running when the picker ends stops
    /// reading logs.
    fn drop(&mut self) {
        self.cancel_search();
        self.stop_warming();
    }
}

/// What a run leaves to keep: the prompt as it stood at the end, the
/// restored draft's file, and what was typed before a draft replaced it.
#[derive(Debug, Default)]
pub struct Kept {
    /// The prompt at the end.
    pub prompt: String,
    /// The saved draft restored into the prompt.
    pub restored: Option<PathBuf>,
    /// Text a restored draft replaced, when it is not the prompt now.
    pub set_aside: Option<String>,
}

/// A failure of the terminal itself ends the run (exit 1).
fn terminal_failed(e: impl std::fmt::Display) -> Error {
    Error::terminal(format!("the picker needs a working terminal: {e}"))
}

#[cfg(test)]
mod tests;
