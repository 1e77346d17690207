//! Test fixtures for the picker: a fixed clock and home, the fixture store
//! in `tests/fixtures/picker`, and states loaded from it deterministically.

use std::path::PathBuf;
use std::sync::Arc;

use crate::config::Limits;
use crate::config::PickFormat;
use crate::tui::driver;
use crate::tui::model::{update, Action, Effect, Setup, State};
use crate::tui::preview::{PreviewSlot, Snapshot};
use crate::tui::theme::Theme;
use session_ref_core::candidates::Target;
use session_ref_core::uri;
use session_ref_engine::Engine;
use session_ref_stores::model::SessionRecord;
use session_ref_stores::{Caches, Catalog, ScanEvent, StoreRoots};

/// 2025-06-01T12:00:00Z.
pub const NOW: i64 = 1_748_779_200;
/// The fixtures' target directory.
pub const HERE: &str = "/home/dev/src/session-ref";

/// The fixture store, relative to the package root (cargo runs tests
/// there), so paths in messages and snapshots are the same on every machine.
pub fn fixture_dir() -> PathBuf {
    PathBuf::from("tests/fixtures/picker")
}

/// A setup with a fixed clock and home, colour on.
pub fn setup() -> Setup {
    Setup {
        caches: Default::default(),
        search_index: None,
        limits: Limits::default(),
        target: Target {
            session_id: None,
            cwd: Some(HERE.into()),
        },
        format: PickFormat::Text,
        query: String::new(),
        prompt: String::new(),
        now: NOW,
        home: Some("/home/dev".into()),
        theme: Theme { color: true },
        empty_hint: "no sessions found".into(),
        drafts: Vec::new(),
        preview_window: Default::default(),
    }
}

/// A record that exists only in memory.
pub fn record(id: &str, cwd: Option<&str>, created: &str) -> SessionRecord {
    SessionRecord::new(
        session_ref_stores::kinds::native::KIND,
        Arc::from(std::path::Path::new("/s")),
        format!("/s/{id}.jsonl").into(),
        id.into(),
        cwd.map(Into::into),
        created.into(),
    )
}

/// The fixture store's discovery events, in path order.
pub fn scan_fixtures() -> Vec<ScanEvent> {
    let roots = StoreRoots::new().with(session_ref_stores::kinds::native::KIND, fixture_dir());
    let found = std::sync::Mutex::new(Vec::new());
    session_ref_stores::scan(&Caches::default(), &roots, &|e| {
        found.lock().unwrap().push(e)
    });
    let mut events = found.into_inner().unwrap();
    let path = |e: &ScanEvent| match e {
        ScanEvent::Record(r) => r.path.clone(),
        ScanEvent::Skipped { path, .. } | ScanEvent::Unreadable { path, .. } => path.clone(),
    };
    events.sort_by_key(path);
    events
}

/// Apply an action and settle, as the driver does; the effects of both.
pub fn step(state: &mut State, action: Action) -> Vec<Effect> {
    let mut effects = update(state, action);
    effects.extend(state.settle());
    effects
}

/// A state that has discovered the fixture store and read every title,
/// answering the title effects synchronously; with the effects left to
/// perform (preview requests).
pub fn loaded(setup: Setup, width: u16, height: u16) -> (State, Vec<Effect>) {
    let mut state = State::new(setup);
    let mut pending = step(&mut state, Action::Resize(width, height));
    let effects = step(&mut state, Action::Discovered(scan_fixtures()));
    pending.extend(answer_titles(&mut state, effects));
    pending.extend(step(&mut state, Action::DiscoveryDone));
    (state, pending)
}

/// Perform `ReadTitles` effects synchronously; the other effects.
pub fn answer_titles(state: &mut State, effects: Vec<Effect>) -> Vec<Effect> {
    let mut rest = Vec::new();
    for effect in effects {
        match effect {
            Effect::ReadTitles(batch) => {
                let titles = driver::read_titles(state.catalog().caches(), &batch);
                rest.extend(step(state, Action::Titles(titles)));
            }
            other => rest.push(other),
        }
    }
    rest
}

/// An engine over the fixture store, as `session-ref --store FIXTURES` builds it.
pub fn engine(limits: Limits) -> Engine {
    Engine::new(
        Arc::new(Catalog::from_events(scan_fixtures())),
        limits,
        Target {
            session_id: None,
            cwd: Some(HERE.into()),
        },
    )
}

/// Compute every requested preview with the engine (as the driver does)
/// and feed the results back.
pub fn answer_previews(state: &mut State, effects: Vec<Effect>, limits: Limits) {
    let engine = engine(limits);
    for effect in effects {
        if let Effect::LoadPreview { key, .. } = effect {
            let result = engine
                .preview(&uri::encode(&key.session_id), Some(&key.label))
                .map(|c| Snapshot::new(c, limits.max_reference_bytes))
                .map_err(crate::error::Error::from);
            let more = step(state, Action::PreviewReady(key, result));
            answer_previews(state, more, limits);
        }
    }
}

/// Whether the highlighted candidate's preview is computed.
pub fn preview_ready(state: &State) -> bool {
    matches!(
        state.current_preview(),
        Some(PreviewSlot::Ready(_) | PreviewSlot::Failed(_))
    )
}

/// Perform `Search` effects synchronously over the fixture logs (as the
/// driver's job does) and feed the matches back; the other effects.
pub fn answer_searches(state: &mut State, effects: Vec<Effect>) -> Vec<Effect> {
    let mut rest = Vec::new();
    for effect in effects {
        match effect {
            Effect::Search {
                generation,
                query,
                records,
            } => {
                let caches = Arc::clone(state.catalog().caches());
                let cancel = std::sync::atomic::AtomicBool::new(false);
                let mut found = Vec::new();
                let result = driver::search_records(
                    &caches,
                    None,
                    &query,
                    &records,
                    &cancel,
                    &mut |id, m| {
                        found.push((id, m));
                        true
                    },
                );
                for (id, m) in found {
                    rest.extend(step(state, Action::SearchFound(generation, id, m)));
                }
                rest.extend(step(state, Action::SearchDone(generation, result)));
            }
            other => rest.push(other),
        }
    }
    rest
}
