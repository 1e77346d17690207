//! What the state machine's tests share: a small store in memory (five
//! sessions in and out of the target directory, four titled) and helpers
//! to drive and read the state.

use super::{Action, Effect, Setup, State};
use crate::tui::line::Edit;
use crate::tui::testkit::{self, record, step};
use session_ref_stores::model::SessionRecord;
use session_ref_stores::ScanEvent;

pub(super) fn events(records: &[SessionRecord]) -> Vec<ScanEvent> {
    records.iter().cloned().map(ScanEvent::Record).collect()
}

/// Answer title requests from a fixed table (sessions not in it have none).
pub(super) fn titled(
    state: &mut State,
    effects: Vec<Effect>,
    titles: &[(&str, &str)],
) -> Vec<Effect> {
    let mut rest = Vec::new();
    for effect in effects {
        if let Effect::ReadTitles(batch) = effect {
            let answer = batch
                .iter()
                .map(|(id, r)| {
                    let title = titles
                        .iter()
                        .find(|(i, _)| *i == r.id)
                        .map(|(_, t)| (*t).to_owned());
                    (*id, title)
                })
                .collect();
            rest.extend(step(state, Action::Titles(answer)));
        } else {
            rest.push(effect);
        }
    }
    rest
}

pub(super) fn sample() -> Vec<SessionRecord> {
    vec![
        record("old-here", Some(testkit::HERE), "2025-05-01T00:00:00Z"),
        record("new-other", Some("/elsewhere"), "2025-05-31T00:00:00Z"),
        record("no-cwd", None, "2025-05-30T00:00:00Z"),
        record("new-here", Some(testkit::HERE), "2025-05-29T00:00:00Z"),
        record("mid-other", Some("/elsewhere"), "2025-05-10T00:00:00Z"),
    ]
}

pub(super) const TITLES: &[(&str, &str)] = &[
    ("old-here", "Refactor the parser"),
    ("new-other", "Deploy notes"),
    ("no-cwd", "Repair plan"),
    ("new-here", "Fix lexer bug"),
];

pub(super) fn ready(setup: Setup) -> State {
    let mut state = State::new(setup);
    let effects = step(&mut state, Action::Discovered(events(&sample())));
    titled(&mut state, effects, TITLES);
    step(&mut state, Action::DiscoveryDone);
    state
}

pub(super) fn ids(state: &State) -> Vec<&str> {
    state
        .hits
        .iter()
        .map(|h| state.entries[h.id as usize].record.id.as_str())
        .collect()
}

pub(super) fn type_text(state: &mut State, text: &str) -> Vec<Effect> {
    text.chars()
        .flat_map(|c| step(state, Action::Edit(Edit::Insert(c))))
        .collect()
}

pub(super) fn flash_text(state: &State) -> Option<(bool, &str)> {
    state.flash.as_ref().map(|f| (f.error, f.text.as_str()))
}
