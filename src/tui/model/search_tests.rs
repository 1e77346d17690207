//! Conversation search mode of the picker, over the fixture store: the
//! mode toggle, results arriving from the (synchronously answered) search,
//! stale answers ignored, and enter inserting the found session's mention.

use crate::tui::line::Edit;
use crate::tui::model::*;
use crate::tui::preview;
use crate::tui::testkit::{self, step};
use session_ref_core::mention::format_mention;

fn loaded() -> State {
    let (state, _) = testkit::loaded(testkit::setup(), 100, 30);
    state
}

/// Type `text` into the filter; the effects, searches left unanswered.
fn type_text(state: &mut State, text: &str) -> Vec<Effect> {
    let mut effects = Vec::new();
    for c in text.chars() {
        effects.extend(step(state, Action::Edit(Edit::Insert(c))));
    }
    effects
}

fn searches(effects: &[Effect]) -> Vec<(u64, &str, usize)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Search {
                generation,
                query,
                records,
            } => Some((*generation, query.as_str(), records.len())),
            _ => None,
        })
        .collect()
}

#[test]
fn the_toggle_switches_the_filter_between_titles_and_conversations() {
    let mut state = loaded();
    let titles = state.ranked_labels().len();
    assert!(titles > 1);
    assert!(!state.searching());
    let effects = step(&mut state, Action::ToggleSearch);
    assert!(state.searching());
    assert!(searches(&effects).is_empty(), "nothing to search for yet");
    // An empty query searches nothing and lists nothing.
    assert!(state.ranked_labels().is_empty());
    let effects = type_text(&mut state, "snapshot");
    let asked = searches(&effects);
    // One search per edit; each supersedes the one before.
    assert_eq!(asked.len(), "snapshot".len());
    assert!(asked.windows(2).all(|w| w[0].0 < w[1].0));
    let (_, query, records) = *asked.last().unwrap();
    assert_eq!(query, "snapshot");
    assert_eq!(records, titles);
    // Back to titles: the search stops and the title filter applies.
    let effects = step(&mut state, Action::ToggleSearch);
    assert!(effects.contains(&Effect::CancelSearch));
    assert!(!state.searching());
    assert!(
        state.ranked_labels().is_empty(),
        "no title holds 'snapshot'"
    );
}

#[test]
fn results_arrive_ranked_and_stale_answers_are_ignored() {
    let mut state = loaded();
    step(&mut state, Action::ToggleSearch);
    let effects = type_text(&mut state, "preview");
    let (generation, _, _) = *searches(&effects).last().unwrap();
    // Not answered yet: the list waits, the search is running.
    assert!(state.ranked_labels().is_empty());
    assert!(state.search.as_ref().unwrap().running);
    let rest = testkit::answer_searches(&mut state, effects);
    let labels = state.ranked_labels();
    assert_eq!(labels.len(), 3, "{labels:?}");
    // Ranked by the core's score, best first.
    let scores: Vec<f64> = state
        .hits
        .iter()
        .map(|h| state.search_row(h.id).unwrap().score)
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    assert!(!state.search.as_ref().unwrap().running);
    assert!(rest.iter().all(|e| !matches!(e, Effect::Search { .. })));
    // An answer of a superseded search changes nothing.
    let other = state.hits[0].id;
    let found = crate::search::hits::SessionMatch {
        hits: vec![state.search_row(other).unwrap().best.clone()],
        matches: 1,
        text_bytes: 10,
    };
    let edited = type_text(&mut state, "x");
    assert_ne!(searches(&edited)[0].0, generation);
    step(&mut state, Action::SearchFound(generation, other, found));
    assert!(state.ranked_labels().is_empty());
}

#[test]
fn enter_inserts_the_found_sessions_mention() {
    let mut state = loaded();
    step(&mut state, Action::ToggleSearch);
    let effects = type_text(&mut state, "non-checkpoint");
    testkit::answer_searches(&mut state, effects);
    assert_eq!(state.ranked_labels(), ["Byte budget retention"]);
    // The only hit is in a message a compaction replaced.
    let row = state.search_row(state.hits[0].id).unwrap();
    assert!(row.best.before_compaction);
    assert_eq!(
        &row.best.snippet[row.best.highlights[0].clone()],
        "non-checkpoint"
    );
    step(&mut state, Action::InsertMention);
    let mention = format_mention("b2c9-budget", Some("Byte budget retention"));
    assert!(
        state.prompt_text().contains(&mention),
        "{}",
        state.prompt_text()
    );
}

#[test]
fn a_bad_regex_is_reported_not_run() {
    let mut state = loaded();
    step(&mut state, Action::ToggleSearch);
    let effects = type_text(&mut state, "re:(");
    testkit::answer_searches(&mut state, effects);
    let search = state.search.as_ref().unwrap();
    assert!(search.error.is_some());
    assert!(!search.running);
    assert!(state.ranked_labels().is_empty());
}

#[test]
fn the_preview_opens_at_the_first_hit() {
    let mut state = loaded();
    step(&mut state, Action::ToggleSearch);
    let effects = type_text(&mut state, "\"Answer 2 on\"");
    let rest = testkit::answer_searches(&mut state, effects);
    let limits = state.setup.limits;
    testkit::answer_previews(&mut state, rest, limits);
    assert!(testkit::preview_ready(&state));
    let Some(PreviewSlot::Ready(snapshot)) = state.current_preview() else {
        panic!("preview not ready");
    };
    let body = state.areas().preview_body;
    let lines = preview::lines(
        snapshot,
        state.preview_mode,
        body.width as usize,
        state.setup.theme,
        state.about(),
    );
    let text = |i: usize| -> String { lines[i].spans.iter().map(|s| s.content.as_ref()).collect() };
    let hit = (0..lines.len())
        .find(|&i| text(i).contains("Answer 2 on"))
        .expect("the hit is in the snapshot");
    assert!(
        hit > body.height as usize,
        "the hit starts below the first page"
    );
    assert_eq!(state.preview_scroll, hit - 1);
    // Scrolling by hand is not undone by the next settle.
    step(&mut state, Action::PreviewScroll(3));
    assert_eq!(state.preview_scroll, hit + 2);
}
