//! The state machine, driven by actions alone: no terminal, no async.

use super::*;
use crate::error::ErrorCode;
use crate::tui::testkit::{self, record, step};
use session_ref_core::mention::format_mention;

fn events(records: &[SessionRecord]) -> Vec<ScanEvent> {
    records.iter().cloned().map(ScanEvent::Record).collect()
}

/// Answer title requests from a fixed table (sessions not in it have none).
fn titled(state: &mut State, effects: Vec<Effect>, titles: &[(&str, &str)]) -> Vec<Effect> {
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

fn sample() -> Vec<SessionRecord> {
    vec![
        record("old-here", Some(testkit::HERE), "2025-05-01T00:00:00Z"),
        record("new-other", Some("/elsewhere"), "2025-05-31T00:00:00Z"),
        record("no-cwd", None, "2025-05-30T00:00:00Z"),
        record("new-here", Some(testkit::HERE), "2025-05-29T00:00:00Z"),
        record("mid-other", Some("/elsewhere"), "2025-05-10T00:00:00Z"),
    ]
}

const TITLES: &[(&str, &str)] = &[
    ("old-here", "Refactor the parser"),
    ("new-other", "Deploy notes"),
    ("no-cwd", "Repair plan"),
    ("new-here", "Fix lexer bug"),
];

fn ready(setup: Setup) -> State {
    let mut state = State::new(setup);
    let effects = step(&mut state, Action::Discovered(events(&sample())));
    titled(&mut state, effects, TITLES);
    step(&mut state, Action::DiscoveryDone);
    state
}

fn ids(state: &State) -> Vec<&str> {
    state
        .hits
        .iter()
        .map(|h| state.entries[h.id as usize].record.id.as_str())
        .collect()
}

fn type_text(state: &mut State, text: &str) -> Vec<Effect> {
    text.chars()
        .flat_map(|c| step(state, Action::Edit(Edit::Insert(c))))
        .collect()
}

fn flash_text(state: &State) -> Option<(bool, &str)> {
    state.flash.as_ref().map(|f| (f.error, f.text.as_str()))
}

#[test]
fn discovery_orders_by_group_then_recency_and_counts_what_it_cannot_list() {
    let mut setup = testkit::setup();
    setup.target.session_id = Some("mid-other".into());
    let mut state = State::new(setup);
    let records = sample();
    let first = step(&mut state, Action::Discovered(events(&records[..2])));
    assert!(matches!(&first[0], Effect::ReadTitles(batch) if batch.len() == 2));
    assert!(state.discovering);
    let mut batch = events(&records[2..]);
    batch.push(ScanEvent::Unreadable {
        path: "/s/x.jsonl".into(),
        reason: "permission denied".into(),
    });
    batch.push(ScanEvent::Skipped {
        path: "/s/y.jsonl".into(),
        reason: "not a session".into(),
    });
    let second = step(&mut state, Action::Discovered(batch));
    let Effect::ReadTitles(asked) = &second[0] else {
        panic!("titles first: {second:?}")
    };
    // The target session is neither listed nor read.
    let asked: Vec<&str> = asked.iter().map(|(_, r)| r.id.as_str()).collect();
    assert_eq!(asked, ["no-cwd", "new-here"]);
    assert_eq!(ids(&state), ["new-here", "old-here", "no-cwd", "new-other"]);
    assert_eq!((state.unreadable, state.skipped), (1, 1));
    assert_eq!(state.titles_pending, 4);
    titled(&mut state, first, TITLES);
    titled(&mut state, second, TITLES);
    assert_eq!(state.titles_pending, 0);
    assert_eq!(
        state.ranked_labels(),
        [
            "Fix lexer bug",
            "Refactor the parser",
            "Repair plan",
            "Deploy notes"
        ]
    );
}

#[test]
fn the_highlight_tracks_its_session_while_loading_once_the_user_moved() {
    // As fzf --track: once the user moved the highlight, sessions arriving
    // above it do not move it to another session (Enter inserts what is
    // shown). Until then it is on the top row.
    let mut state = State::new(testkit::setup());
    let records = sample();
    step(&mut state, Action::Discovered(events(&records[..1])));
    assert_eq!(state.current().unwrap().record.id, "old-here");
    step(&mut state, Action::Discovered(events(&records[3..4])));
    assert_eq!(ids(&state)[..2], ["new-here", "old-here"]);
    assert_eq!(state.current().unwrap().record.id, "new-here");
    step(&mut state, Action::Move(1));
    assert_eq!(state.current().unwrap().record.id, "old-here");
    step(&mut state, Action::Discovered(events(&records[1..3])));
    assert_eq!(state.current().unwrap().record.id, "old-here");
    assert_eq!(state.selected, 1);
    // A new query forgets the move: its best hit is highlighted, and
    // stays so as more sessions arrive above it.
    type_text(&mut state, "e");
    assert_eq!(state.selected, 0);
    let top = state.current().unwrap().record.id.clone();
    let newer = record("newest-here", Some(testkit::HERE), "2025-05-31T12:00:00Z");
    step(&mut state, Action::Discovered(events(&[newer])));
    assert_eq!(ids(&state)[0], "newest-here");
    assert_ne!(top, "newest-here");
    assert_eq!(state.current().unwrap().record.id, "newest-here");
}

/// Sessions of other directories first, in batches as discovery posts
/// them, then the target directory's: the order that made the picker open
/// on an unrelated session (#25 item 10).
fn adversarial_stream() -> Vec<Vec<SessionRecord>> {
    let others: Vec<SessionRecord> = (0..60)
        .map(|i| {
            let created = format!("2025-05-{:02}T{:02}:00:00Z", 1 + i % 28, i % 24);
            record(&format!("other-{i:02}"), Some("/elsewhere"), &created)
        })
        .collect();
    let mut batches: Vec<Vec<SessionRecord>> = others.chunks(7).map(<[_]>::to_vec).collect();
    batches.push(vec![
        record("here-old", Some(testkit::HERE), "2025-04-01T00:00:00Z"),
        record("here-new", Some(testkit::HERE), "2025-04-02T00:00:00Z"),
    ]);
    batches
}

#[test]
fn until_the_user_moves_the_highlight_is_on_the_top_row_whatever_arrives_first() {
    let mut state = State::new(testkit::setup());
    step(&mut state, Action::Resize(100, 20));
    for batch in adversarial_stream() {
        let effects = step(&mut state, Action::Discovered(events(&batch)));
        titled(&mut state, effects, &[]);
        // Each batch, as it is listed: the top row, the view at the top.
        assert_eq!(state.selected, 0, "after {:?}", batch[0].id);
        assert_eq!(state.list_offset, 0);
        assert_eq!(state.current().unwrap().record.id, ids(&state)[0]);
    }
    // Activity read late reorders the list: still the top row.
    let here_old = state
        .entries
        .iter()
        .position(|e| e.record.id == "here-old")
        .unwrap() as EntryId;
    step(
        &mut state,
        Action::Activity(vec![(here_old, 1_900_000_000)]),
    );
    step(&mut state, Action::DiscoveryDone);
    assert_eq!(ids(&state)[..2], ["here-old", "here-new"]);
    assert_eq!((state.selected, state.list_offset), (0, 0));
    // Enter inserts the top row: this directory's most recent session.
    step(&mut state, Action::InsertMention);
    assert_eq!(
        state.prompt_text(),
        format!("{} ", format_mention("here-old", Some("here-old")))
    );
}

#[test]
fn once_the_user_moved_the_highlight_follows_that_session_as_rows_stream_in() {
    let mut state = State::new(testkit::setup());
    step(&mut state, Action::Resize(100, 20));
    let mut batches = adversarial_stream().into_iter();
    for batch in batches.by_ref().take(3) {
        step(&mut state, Action::Discovered(events(&batch)));
    }
    step(&mut state, Action::Move(2));
    let chosen = state.current().unwrap().record.id.clone();
    for batch in batches {
        step(&mut state, Action::Discovered(events(&batch)));
        assert_eq!(state.current().unwrap().record.id, chosen);
    }
    // Two of this directory's sessions arrived above it.
    assert!(state.selected >= 4, "{}", state.selected);
    let list = state.areas().list.height as usize;
    assert!(state.selected >= state.list_offset && state.selected < state.list_offset + list);
}

#[test]
fn typing_reranks_live_exact_matches_first() {
    let mut state = ready(testkit::setup());
    step(&mut state, Action::Move(2));
    type_text(&mut state, "rpa");
    // "Repair plan" contains no "rpa"; the ids and cwds neither: all fuzzy.
    assert_eq!(state.selected, 0);
    assert!(ids(&state).contains(&"no-cwd") && ids(&state).contains(&"old-here"));
    assert!(state.hits.iter().all(|h| !h.exact));
    type_text(&mut state, "ir");
    assert_eq!(ids(&state), ["no-cwd"]);
    step(&mut state, Action::Edit(Edit::DeleteToStart));
    type_text(&mut state, "-here");
    assert!(state.hits.iter().all(|h| h.exact));
    assert_eq!(ids(&state), ["new-here", "old-here"]);
    // Smart case: an upper-case letter makes the term case-sensitive.
    step(&mut state, Action::Edit(Edit::DeleteToStart));
    type_text(&mut state, "-HERE");
    assert!(state.hits.is_empty());
    step(&mut state, Action::Edit(Edit::DeleteToStart));
    type_text(&mut state, "-here");
    type_text(&mut state, "zzz");
    assert!(state.hits.is_empty() && state.current().is_none());
}

#[test]
fn previews_are_requested_once_per_session_and_label() {
    let mut state = ready(testkit::setup());
    let down = step(&mut state, Action::Move(1));
    let [Effect::LoadPreview { key, record }] = down.as_slice() else {
        panic!("{down:?}")
    };
    assert_eq!(
        (key.session_id.as_str(), key.label.as_str()),
        ("old-here", "Refactor the parser")
    );
    assert_eq!(record.id, "old-here");
    assert_eq!(state.current_preview(), Some(&PreviewSlot::Loading));
    assert!(step(&mut state, Action::Move(-1)).is_empty());
    assert!(step(&mut state, Action::Move(1)).is_empty());
    let failed = Error::read_failed("nope");
    step(
        &mut state,
        Action::PreviewReady(key.clone(), Err(failed.clone())),
    );
    assert_eq!(state.current_preview(), Some(&PreviewSlot::Failed(failed)));
}

#[test]
fn enter_inserts_the_canonical_mention_and_the_limit_is_enforced() {
    let mut setup = testkit::setup();
    setup.limits.max_references = 2;
    setup.prompt = "compare".into();
    let mut state = ready(setup);
    step(&mut state, Action::InsertMention);
    let first = format_mention("new-here", Some("Fix lexer bug"));
    assert_eq!(state.prompt().text(), format!("compare {first} "));
    // The same session again does not count twice.
    step(&mut state, Action::InsertMention);
    step(&mut state, Action::Move(1));
    step(&mut state, Action::InsertMention);
    assert_eq!(state.prompt().referenced_ids(), ["new-here", "old-here"]);
    let before = state.prompt().text().to_owned();
    step(&mut state, Action::Move(1));
    step(&mut state, Action::InsertMention);
    assert_eq!(state.prompt().text(), before);
    let (error, text) = flash_text(&state).unwrap();
    assert!(error && text.contains("at most 2 sessions"), "{text}");
    // The message goes with the next key.
    step(&mut state, Action::Move(-1));
    assert_eq!(state.flash, None);
}

#[test]
fn submit_waits_for_discovery_and_a_failure_keeps_the_prompt() {
    let mut state = State::new(testkit::setup());
    let effects = step(&mut state, Action::Discovered(events(&sample())));
    titled(&mut state, effects, TITLES);
    step(&mut state, Action::InsertMention);
    let text = state.prompt().text().to_owned();
    // The space inserted after the final mention is not submitted.
    let submitted = text.strip_suffix(' ').unwrap().to_owned();
    assert!(step(&mut state, Action::Submit).is_empty());
    assert_eq!(state.submit, Submit::Waiting);
    // Keys are ignored while waiting, except abort.
    assert!(type_text(&mut state, "x").is_empty());
    assert_eq!(state.prompt().text(), text);
    let done = step(&mut state, Action::DiscoveryDone);
    assert_eq!(
        done,
        [Effect::Prepare {
            text: submitted,
            format: PickFormat::Text
        }]
    );
    assert_eq!(state.submit, Submit::Preparing);
    let failure = Error::new(ErrorCode::BudgetExceeded, "too big");
    assert!(step(&mut state, Action::Prepared(Err(failure))).is_empty());
    assert_eq!(state.submit, Submit::Idle);
    assert_eq!(state.prompt().text(), text);
    assert_eq!(
        flash_text(&state),
        Some((true, "SESSION_REFERENCE_BUDGET_EXCEEDED: too big"))
    );
    assert_eq!(step(&mut state, Action::Submit).len(), 1);
    let out = step(&mut state, Action::Prepared(Ok("prepared\n".into())));
    assert_eq!(out, [Effect::Exit(Exit::Submit("prepared\n".into()))]);
}

#[test]
fn submit_refuses_what_prepare_would_reject() {
    let mut setup = testkit::setup();
    setup.target.session_id = Some("self".into());
    let mut state = ready(setup);
    let four = ["a", "b", "c", "d"]
        .map(|id| format_mention(id, None))
        .join(" ");
    let own = format_mention("self", None);
    let cases = [
        ("", None),
        ("  \n ", None),
        (
            "see hydra-session:ImFiYyJ",
            Some(ErrorCode::InvalidReference),
        ),
        (four.as_str(), Some(ErrorCode::TooMany)),
        (own.as_str(), Some(ErrorCode::SelfReference)),
    ];
    for (text, code) in cases {
        step(&mut state, Action::EditorDone(Ok(text.to_owned())));
        assert!(step(&mut state, Action::Submit).is_empty(), "{text}");
        let (error, message) = flash_text(&state).unwrap();
        assert!(error, "{text}");
        match code {
            Some(code) => assert!(message.starts_with(code.as_str()), "{message}"),
            None => assert!(message.starts_with("nothing to submit"), "{message}"),
        }
        assert_eq!(state.prompt().text(), text);
        assert_eq!(state.submit, Submit::Idle);
    }
}

#[test]
fn mention_format_submits_the_buffer_at_once() {
    let mut setup = testkit::setup();
    setup.format = PickFormat::Mention;
    let mut state = State::new(setup);
    step(&mut state, Action::Discovered(events(&sample())));
    step(&mut state, Action::InsertMention);
    let text = state.prompt().submitted().to_owned();
    assert!(!text.ends_with(' '));
    let out = step(&mut state, Action::Submit);
    assert_eq!(out, [Effect::Exit(Exit::Submit(format!("{text}\n")))]);
}

#[test]
fn abort_works_even_while_preparing() {
    let mut state = ready(testkit::setup());
    assert_eq!(step(&mut state, Action::Abort), [Effect::Exit(Exit::Abort)]);
    state.prompt = crate::tui::prompt::Prompt::new("hello");
    step(&mut state, Action::Submit);
    assert_eq!(state.submit, Submit::Preparing);
    assert!(step(&mut state, Action::Move(1)).is_empty());
    assert_eq!(step(&mut state, Action::Abort), [Effect::Exit(Exit::Abort)]);
}

#[test]
fn scope_toggles_between_this_directory_and_all() {
    let mut state = ready(testkit::setup());
    step(&mut state, Action::ToggleScope);
    assert_eq!(ids(&state), ["new-here", "old-here"]);
    assert_eq!(state.total_in_scope(), 2);
    step(&mut state, Action::ToggleScope);
    assert_eq!(state.total_in_scope(), 5);
    let mut nowhere = testkit::setup();
    nowhere.target.cwd = None;
    let mut state = ready(nowhere);
    step(&mut state, Action::ToggleScope);
    assert_eq!(state.scope, Scope::All);
    assert!(matches!(flash_text(&state), Some((false, _))));
}

#[test]
fn the_editor_is_an_effect_and_its_text_replaces_the_prompt() {
    let mut setup = testkit::setup();
    setup.prompt = "draft".into();
    let mut state = ready(setup);
    assert_eq!(
        step(&mut state, Action::OpenEditor),
        [Effect::OpenEditor("draft".into())]
    );
    step(&mut state, Action::EditorDone(Ok("final\ntext".into())));
    assert_eq!(state.prompt().text(), "final\ntext");
    assert_eq!(state.focus, Focus::Prompt);
    step(
        &mut state,
        Action::EditorDone(Err("vi exited with 1".into())),
    );
    assert_eq!(state.prompt().text(), "final\ntext");
    assert_eq!(
        flash_text(&state),
        Some((true, "$EDITOR: vi exited with 1"))
    );
}

#[test]
fn focus_decides_where_typing_and_pastes_go() {
    let mut state = ready(testkit::setup());
    type_text(&mut state, "fix");
    step(&mut state, Action::ToggleFocus);
    type_text(&mut state, "hi");
    step(&mut state, Action::Edit(Edit::Newline));
    step(&mut state, Action::Paste("a\r\nb".into()));
    assert_eq!(state.query(), "fix");
    assert_eq!(state.prompt().text(), "hi\na\nb");
    step(&mut state, Action::ToggleFocus);
    step(&mut state, Action::Paste(" x\ny".into()));
    assert_eq!(state.query(), "fix x y");
}

#[test]
fn moving_and_paging_stay_in_bounds_and_visible() {
    let mut state = State::new(testkit::setup());
    let many: Vec<SessionRecord> = (0..40)
        .map(|i| {
            record(
                &format!("s{i:02}"),
                None,
                &format!("2025-05-{:02}T00:00:00Z", 1 + i % 28),
            )
        })
        .collect();
    step(&mut state, Action::Resize(80, 24));
    step(&mut state, Action::Discovered(events(&many)));
    let height = state.areas().list.height as usize;
    step(&mut state, Action::Move(-1));
    assert_eq!(state.selected, 0);
    step(&mut state, Action::Page(1));
    assert_eq!(state.selected, height);
    assert!(state.list_offset <= state.selected && state.selected < state.list_offset + height);
    step(&mut state, Action::Move(1000));
    assert_eq!(state.selected, 39);
    assert_eq!(state.list_offset, 40 - height);
    step(&mut state, Action::Page(-1));
    assert_eq!(state.selected, 39 - height);
    assert_eq!(state.list_offset, 39 - height);
    // A smaller terminal keeps the highlight visible.
    step(&mut state, Action::Resize(80, 12));
    let small = state.areas().list.height as usize;
    assert!(state.selected < state.list_offset + small);
}

#[test]
fn preview_scrolling_is_clamped_to_the_snapshot() {
    let (mut state, pending) = testkit::loaded(testkit::setup(), 80, 24);
    testkit::answer_previews(&mut state, pending, Limits::default());
    let effects = type_text(&mut state, "long design");
    testkit::answer_previews(&mut state, effects, Limits::default());
    assert!(testkit::preview_ready(&state));
    let Some(PreviewSlot::Ready(snapshot)) = state.current_preview().cloned() else {
        panic!("no snapshot")
    };
    let body = state.areas().preview_body;
    let total = preview::lines(
        &snapshot,
        PreviewMode::Readable,
        body.width as usize,
        state.setup.theme,
        state.about(),
    )
    .len();
    // A preview opens at its newest lines; the top is a key away.
    assert_eq!(state.preview_scroll, total - body.height as usize);
    step(&mut state, Action::PreviewEdge(false));
    assert_eq!(state.preview_scroll, 0);
    // Coming back to a cached preview opens it at its newest lines again.
    let cleared = step(&mut state, Action::Edit(Edit::DeleteToStart));
    testkit::answer_previews(&mut state, cleared, Limits::default());
    let first = (state.selected, state.preview_scroll);
    assert!(
        first.1 > 0,
        "the top session's preview is taller than the pane"
    );
    step(&mut state, Action::PreviewEdge(false));
    let away = step(&mut state, Action::Move(1));
    testkit::answer_previews(&mut state, away, Limits::default());
    assert_ne!(state.selected, first.0);
    step(&mut state, Action::Move(-1));
    assert_eq!((state.selected, state.preview_scroll), first);
    let effects = type_text(&mut state, "long design");
    testkit::answer_previews(&mut state, effects, Limits::default());
    assert_eq!(state.preview_scroll, total - body.height as usize);
    step(&mut state, Action::PreviewEdge(false));
    step(&mut state, Action::PreviewPage(1000));
    assert_eq!(state.preview_scroll, total - body.height as usize);
    step(&mut state, Action::PreviewScroll(-1));
    assert_eq!(state.preview_scroll, total - body.height as usize - 1);
    step(&mut state, Action::TogglePreviewMode);
    assert_eq!(
        (state.preview_mode, state.preview_scroll),
        (PreviewMode::Raw, 0)
    );
    step(&mut state, Action::PreviewScroll(-5));
    assert_eq!(state.preview_scroll, 0);
}

#[test]
fn keys_drive_the_state_through_the_table() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    fn press(state: &mut State, code: KeyCode, mods: KeyModifiers) -> Vec<Effect> {
        let action = crate::tui::keymap::lookup(&KeyEvent::new(code, mods), state.key_context());
        action.map(|a| step(state, a)).unwrap_or_default()
    }
    let mut state = ready(testkit::setup());
    // `?` first in the filter is typed, as in fzf; F1 opens the help.
    press(&mut state, KeyCode::Char('?'), KeyModifiers::NONE);
    assert!(!state.help);
    assert_eq!(state.query(), "?");
    press(&mut state, KeyCode::Backspace, KeyModifiers::NONE);
    press(&mut state, KeyCode::F(1), KeyModifiers::NONE);
    assert!(state.help);
    press(&mut state, KeyCode::Char('x'), KeyModifiers::NONE);
    assert!(state.help && state.query().is_empty());
    press(&mut state, KeyCode::Esc, KeyModifiers::NONE);
    assert!(!state.help);
    press(&mut state, KeyCode::Char('j'), KeyModifiers::CONTROL);
    assert_eq!(state.selected, 1);
    press(&mut state, KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(state.prompt().referenced_ids(), ["old-here"]);
    press(&mut state, KeyCode::Tab, KeyModifiers::NONE);
    press(&mut state, KeyCode::Char('?'), KeyModifiers::NONE);
    assert!(!state.help && state.prompt().text().ends_with('?'));
    // A prompt may start with `?` too.
    press(&mut state, KeyCode::Char('u'), KeyModifiers::CONTROL);
    press(&mut state, KeyCode::Char('?'), KeyModifiers::NONE);
    assert!(!state.help, "{:?}", state.prompt().text());
    let out = press(&mut state, KeyCode::Char('s'), KeyModifiers::CONTROL);
    assert!(matches!(out.as_slice(), [Effect::Prepare { .. }]));
}

#[test]
fn help_scrolls_within_its_rows() {
    let mut state = ready(testkit::setup());
    step(&mut state, Action::Resize(80, 12));
    step(&mut state, Action::ToggleHelp);
    step(&mut state, Action::HelpScroll(1000));
    let area = Rect::new(0, 0, 80, 12);
    let rows = crate::tui::help::line_count(area);
    let visible = layout::help_popup(area, rows).height as usize - 2;
    assert_eq!(state.help_scroll, rows - visible);
    step(&mut state, Action::ToggleHelp);
    assert_eq!((state.help, state.help_scroll), (false, 0));
}

#[test]
fn a_dropped_preview_is_asked_for_again_when_highlighted() {
    let mut state = ready(testkit::setup());
    let key = state.preview_key().cloned().unwrap();
    assert_eq!(state.current_preview(), Some(&PreviewSlot::Loading));
    let again = step(&mut state, Action::PreviewDropped(key.clone()));
    assert!(matches!(again.as_slice(), [Effect::LoadPreview { key: k, .. }] if *k == key));
    // A computed preview is never dropped.
    step(
        &mut state,
        Action::PreviewReady(key.clone(), Err(Error::read_failed("x"))),
    );
    assert!(step(&mut state, Action::PreviewDropped(key)).is_empty());
    assert!(matches!(
        state.current_preview(),
        Some(PreviewSlot::Failed(_))
    ));
}

#[test]
fn records_sharing_an_id_carry_the_title_of_the_first() {
    let mut older = record("dup", Some("/a"), "2025-01-01T00:00:00Z");
    older.path = "/s/old.jsonl".into();
    let mut newer = record("dup", Some("/b"), "2025-02-01T00:00:00Z");
    newer.path = "/s/new.jsonl".into();
    let mut state = State::new(testkit::setup());
    let effects = step(&mut state, Action::Discovered(events(&[older, newer])));
    let Some(Effect::ReadTitles(batch)) = effects.first() else {
        panic!("{effects:?}")
    };
    // The newer record (first in record order) has no title: both show the id.
    let titles = batch
        .iter()
        .map(|(id, r)| {
            (
                *id,
                (r.path.ends_with("old.jsonl")).then(|| "Old".to_owned()),
            )
        })
        .collect();
    step(&mut state, Action::Titles(titles));
    assert_eq!(state.ranked_labels(), ["dup", "dup"]);
    // Previews of a shared id computed while discovering are recomputed after.
    let key = state.preview_key().cloned().unwrap();
    step(
        &mut state,
        Action::PreviewReady(key.clone(), Err(Error::read_failed("x"))),
    );
    let after = step(&mut state, Action::DiscoveryDone);
    assert!(matches!(after.as_slice(), [Effect::LoadPreview { key: k, .. }] if *k == key));
}

#[test]
fn a_saved_draft_is_offered_and_restored_on_request() {
    let mut setup = testkit::setup();
    setup.drafts = vec![crate::draft::Draft {
        path: "/state/session-ref/draft-1-2.md".into(),
        text: "the lost words".into(),
    }];
    let mut state = State::new(setup);
    assert_eq!(
        flash_text(&state),
        Some((
            false,
            "a prompt you did not send was saved: alt-r restores it"
        ))
    );
    assert_eq!(state.prompt_text(), "");
    step(&mut state, Action::RestoreDraft);
    assert_eq!(state.prompt_text(), "the lost words");
    assert_eq!(state.focus, Focus::Prompt);
    assert_eq!(
        state.restored_draft(),
        Some(std::path::Path::new("/state/session-ref/draft-1-2.md"))
    );
    // Nothing was typed: nothing to set aside, and the one draft stays.
    assert_eq!(state.set_aside(), None);
    step(&mut state, Action::RestoreDraft);
    assert_eq!(state.prompt_text(), "the lost words");
    let mut empty = State::new(testkit::setup());
    step(&mut empty, Action::RestoreDraft);
    assert_eq!(
        flash_text(&empty),
        Some((false, "no saved prompt to restore"))
    );
}

#[test]
fn restoring_steps_through_older_drafts_and_keeps_what_it_replaces() {
    let mut setup = testkit::setup();
    let draft = |n: u32, text: &str| crate::draft::Draft {
        path: format!("/state/session-ref/draft-{n}.md").into(),
        text: text.into(),
    };
    setup.drafts = vec![draft(3, "newest"), draft(2, "middle"), draft(1, "oldest")];
    let mut state = State::new(setup);
    assert_eq!(
        flash_text(&state),
        Some((
            false,
            "3 prompts you did not send were saved: alt-r restores them, newest first"
        ))
    );
    step(&mut state, Action::ToggleFocus);
    for c in "typed now".chars() {
        step(&mut state, Action::Edit(Edit::Insert(c)));
    }
    let shown: Vec<(String, Option<String>)> = (0..5)
        .map(|_| {
            step(&mut state, Action::RestoreDraft);
            (
                state.prompt_text().to_owned(),
                state.set_aside().map(str::to_owned),
            )
        })
        .collect();
    let aside = Some("typed now".to_owned());
    assert_eq!(
        shown,
        [
            ("newest".into(), aside.clone()),
            ("middle".into(), aside.clone()),
            ("oldest".into(), aside.clone()),
            ("typed now".into(), None),
            ("newest".into(), aside.clone()),
        ]
    );
    assert_eq!(
        state.restored_draft(),
        Some(std::path::Path::new("/state/session-ref/draft-3.md"))
    );
    // Edited after restoring: the edit is what was typed from then on.
    step(&mut state, Action::Edit(Edit::Insert('!')));
    step(&mut state, Action::RestoreDraft);
    assert_eq!(state.prompt_text(), "newest");
    assert_eq!(state.set_aside(), Some("newest!"));
    for _ in 0..3 {
        step(&mut state, Action::RestoreDraft);
    }
    assert_eq!(state.prompt_text(), "newest!");
    assert_eq!(state.restored_draft(), None);
}

fn mouse(kind: crossterm::event::MouseEventKind, column: u16, row: u16) -> Action {
    mouse_at(kind, column, row, Instant::now())
}

fn mouse_at(kind: crossterm::event::MouseEventKind, column: u16, row: u16, at: Instant) -> Action {
    Action::Mouse(
        crossterm::event::MouseEvent {
            kind,
            column,
            row,
            modifiers: crossterm::event::KeyModifiers::NONE,
        },
        at,
    )
}

fn left_click(column: u16, row: u16, at: Instant) -> Action {
    use crossterm::event::{MouseButton, MouseEventKind};
    mouse_at(MouseEventKind::Down(MouseButton::Left), column, row, at)
}

#[test]
fn a_double_click_on_a_row_inserts_it_and_two_slow_clicks_do_not() {
    let mut state = ready(testkit::setup());
    let list = state.areas().list;
    let t0 = Instant::now();
    let ms = Duration::from_millis;
    // Two clicks on the second row, further apart than a double click:
    // each highlights it, nothing is inserted.
    step(&mut state, left_click(5, list.y + 1, t0));
    step(
        &mut state,
        left_click(5, list.y + 1, t0 + DOUBLE_CLICK + ms(1)),
    );
    assert_eq!(state.selected, 1);
    assert_eq!(state.prompt().referenced_ids(), Vec::<String>::new());
    // Clicks on two rows in quick succession are two clicks.
    step(&mut state, left_click(5, list.y, t0 + ms(2000)));
    step(&mut state, left_click(5, list.y + 1, t0 + ms(2100)));
    assert_eq!(state.prompt().referenced_ids(), Vec::<String>::new());
    // A second click on the same row within the interval inserts it, once.
    let second = state.current().unwrap().record.id.clone();
    step(
        &mut state,
        left_click(5, list.y + 1, t0 + ms(2100) + DOUBLE_CLICK),
    );
    assert_eq!(
        state.prompt().referenced_ids(),
        std::slice::from_ref(&second)
    );
    // A third click starts over: it is not another double click.
    step(&mut state, left_click(5, list.y + 1, t0 + ms(2700)));
    assert_eq!(state.prompt().referenced_ids(), [second]);
    assert!(state.prompt_text().ends_with(' '));
    assert_eq!(state.focus, Focus::Filter);
}

#[test]
fn a_click_in_the_prompt_puts_the_cursor_there() {
    let mut setup = testkit::setup();
    setup.prompt = "compare the parser\nwith the lexer".into();
    let mut state = ready(setup);
    let body = state.areas().prompt_body;
    let t0 = Instant::now();
    // Column 8 of the first row: before "the".
    step(&mut state, left_click(body.x + 8, body.y, t0));
    assert_eq!(state.focus, Focus::Prompt);
    assert_eq!(
        &state.prompt_text()[state.prompt().cursor()..],
        "the parser\nwith the lexer"
    );
    // Typing goes there.
    step(&mut state, Action::Edit(Edit::Insert('X')));
    assert_eq!(state.prompt_text(), "compare Xthe parser\nwith the lexer");
    // Past the end of the second row: the end; on the margin: the start.
    step(&mut state, left_click(body.x + 60, body.y + 1, t0));
    assert_eq!(state.prompt().cursor(), state.prompt_text().len());
    step(&mut state, left_click(0, body.y + 1, t0));
    assert_eq!(
        &state.prompt_text()[state.prompt().cursor()..],
        "with the lexer"
    );
}

#[test]
fn ctrl_slash_hides_the_preview_and_the_list_takes_its_room() {
    let mut state = ready(testkit::setup());
    step(&mut state, Action::Resize(120, 40));
    let shown = state.areas();
    assert!(shown.preview_body.height > 0);
    step(&mut state, Action::TogglePreview);
    let hidden = state.areas();
    assert_eq!(hidden.preview_body.area(), 0);
    assert_eq!(hidden.list.width, 120);
    assert!(hidden.list.height >= shown.list.height);
    step(&mut state, Action::TogglePreview);
    assert_eq!(state.areas(), shown);
    // `--preview-window hidden` starts hidden; the key shows it.
    let mut setup = testkit::setup();
    setup.preview_window = crate::config::PreviewWindow::parse("right:30%:hidden").unwrap();
    let mut state = ready(setup);
    assert_eq!(state.areas().preview_body.area(), 0);
    step(&mut state, Action::TogglePreview);
    let right = state.areas();
    assert_eq!(right.list.width, 80 - 80 * 30 / 100);
    assert!(right.separator.is_some());
}

/// A snapshot of one session with these messages (user when `true`).
fn snapshot_of(messages: &[(&str, bool)], budget: usize) -> preview::Snapshot {
    use session_ref_core::prepare::{build_context, ReadSource, SourceRef};
    use session_ref_stores::model::{Block, EventKind, MessageSource, Surface, SurfaceEvent};
    let events = messages
        .iter()
        .enumerate()
        .map(|(i, (text, user))| SurfaceEvent {
            seq: i as u64 + 1,
            kind: if *user {
                EventKind::UserMessage {
                    source: MessageSource::User,
                    content: vec![Block::Text((*text).into())],
                }
            } else {
                EventKind::AssistantMessage {
                    content: vec![Block::Text((*text).into())],
                }
            },
        })
        .collect();
    let surface = Surface {
        events,
        captured_through_seq: messages.len() as u64,
    };
    let sources = [SourceRef {
        session_id: "s".into(),
        label: "s".into(),
    }];
    let read = vec![ReadSource::of_surface(Some("/w"), &surface, budget)];
    preview::Snapshot::new(build_context(&sources, read).unwrap(), budget)
}

#[test]
fn the_preview_opens_at_the_role_line_of_the_newest_message() {
    let mut state = ready(testkit::setup());
    let key = state.preview_key().cloned().unwrap();
    let long = "a long answer that wraps over many rows of the pane ".repeat(30);
    let snapshot = snapshot_of(
        &[("question", true), ("answer", false), (&long, false)],
        65_536,
    );
    step(
        &mut state,
        Action::PreviewReady(key.clone(), Ok(snapshot.clone())),
    );
    let body = state.areas().preview_body;
    let lay = |state: &State| {
        preview::lay_out(
            &snapshot,
            PreviewMode::Readable,
            body.width as usize,
            state.setup.theme,
            state.about(),
        )
    };
    let laid = lay(&state);
    let start = laid.newest.unwrap();
    let end = laid.lines.len() - body.height as usize;
    // The newest message is longer than the pane: the end of the
    // snapshot would open mid-paragraph; the preview opens at its role.
    assert!(start < end, "{start} {end}");
    assert_eq!(state.preview_scroll, start);
    assert_eq!(laid.lines[start].to_string(), "assistant");
    // shift-end goes back there; a resize keeps it there.
    step(&mut state, Action::PreviewEdge(false));
    assert_eq!(state.preview_scroll, 0);
    step(&mut state, Action::PreviewEdge(true));
    assert_eq!(state.preview_scroll, start);
    // A newest message that fits: the snapshot's end at the bottom, the
    // message whole, its role line in view.
    let short = snapshot_of(&[(&long, true), ("ok", false)], 65_536);
    step(&mut state, Action::PreviewReady(key, Ok(short.clone())));
    let laid = preview::lay_out(
        &short,
        PreviewMode::Readable,
        body.width as usize,
        state.setup.theme,
        state.about(),
    );
    let end = laid.lines.len() - body.height as usize;
    assert_eq!(state.preview_scroll, end);
    assert!(laid.newest.unwrap() >= end);
}

#[test]
fn the_mouse_selects_scrolls_and_focuses() {
    use crossterm::event::{MouseButton, MouseEventKind};
    let mut state = ready(testkit::setup());
    let areas = state.areas();
    // A click on the third row highlights it.
    step(
        &mut state,
        mouse(MouseEventKind::Down(MouseButton::Left), 5, areas.list.y + 2),
    );
    assert_eq!(state.selected, 2);
    // The wheel over the list moves the highlight.
    step(&mut state, mouse(MouseEventKind::ScrollUp, 5, areas.list.y));
    assert_eq!(state.selected, 0);
    // A click in the prompt gives it the focus, on the filter takes it back.
    step(
        &mut state,
        mouse(
            MouseEventKind::Down(MouseButton::Left),
            3,
            areas.prompt_body.y,
        ),
    );
    assert_eq!(state.focus, Focus::Prompt);
    step(
        &mut state,
        mouse(MouseEventKind::Down(MouseButton::Left), 3, areas.filter.y),
    );
    assert_eq!(state.focus, Focus::Filter);
    // Moving the pointer keeps a message on screen.
    step(&mut state, Action::ToggleScope);
    step(&mut state, Action::Submit);
    assert!(state.flash.is_some());
    step(&mut state, mouse(MouseEventKind::Moved, 1, 1));
    assert!(state.flash.is_some());
}

#[test]
fn activity_orders_the_list_and_a_key_switches_to_creation() {
    let mut state = ready(testkit::setup());
    let created: Vec<String> = ids(&state).into_iter().map(String::from).collect();
    assert_eq!(
        created,
        ["new-here", "old-here", "no-cwd", "new-other", "mid-other"]
    );
    // old-here was active last: it comes first in its group.
    let old_here = state
        .entries
        .iter()
        .position(|e| e.record.id == "old-here")
        .unwrap() as EntryId;
    step(
        &mut state,
        Action::Activity(vec![(old_here, 1_900_000_000)]),
    );
    assert_eq!(ids(&state)[..2], ["old-here", "new-here"]);
    step(&mut state, Action::ToggleSort);
    assert_eq!(state.sort, SortOrder::Created);
    assert_eq!(ids(&state), created);
}

#[test]
fn while_activity_is_read_rows_are_in_their_final_order_and_the_highlight_tracks_a_chosen_session()
{
    let mut state = ready(testkit::setup());
    let entry = |state: &State, id: &str| {
        state
            .entries
            .iter()
            .position(|e| e.record.id == id)
            .unwrap() as EntryId
    };
    let (new_here, old_here) = (entry(&state, "new-here"), entry(&state, "old-here"));
    let created = |state: &State, id: EntryId| {
        state.entries[id as usize]
            .record
            .created
            .unwrap()
            .unix_seconds()
    };
    assert_eq!(ids(&state)[..2], ["new-here", "old-here"]);
    assert_eq!(state.selected, 0);
    // old-here's activity is read first, and it was last active before
    // new-here was even created: new-here (whose activity is at least its
    // creation) stays first, as it will be once everything is read.
    let before = created(&state, new_here) - 10;
    step(&mut state, Action::Activity(vec![(old_here, before)]));
    assert_eq!(ids(&state)[..2], ["new-here", "old-here"]);
    // Now old-here turns out the most recently active: it moves up, and
    // the highlight, which the user has not moved, is on the top row.
    step(
        &mut state,
        Action::Activity(vec![(old_here, 1_900_000_000)]),
    );
    assert_eq!(ids(&state)[..2], ["old-here", "new-here"]);
    assert_eq!(state.hits[state.selected].id, old_here);
    // Once the user moved to new-here, it stays highlighted when the
    // order changes again.
    step(&mut state, Action::Move(1));
    step(
        &mut state,
        Action::Activity(vec![(new_here, 1_900_000_100)]),
    );
    assert_eq!(ids(&state)[..2], ["new-here", "old-here"]);
    assert_eq!(state.hits[state.selected].id, new_here);
    // A new query starts from its best hit again.
    type_text(&mut state, "o");
    assert_eq!(state.selected, 0);
}

#[test]
fn this_directory_includes_its_subdirectories() {
    let mut state = State::new(testkit::setup());
    let below = format!("{}/crates/core", testkit::HERE);
    let records = vec![
        record("here", Some(testkit::HERE), "2025-05-01T00:00:00Z"),
        record("below", Some(&below), "2025-05-02T00:00:00Z"),
        record(
            "beside",
            Some(&format!("{}-old", testkit::HERE)),
            "2025-05-03T00:00:00Z",
        ),
    ];
    step(&mut state, Action::Discovered(events(&records)));
    step(&mut state, Action::ToggleScope);
    let mut listed = ids(&state);
    listed.sort_unstable();
    assert_eq!(listed, ["below", "here"]);
}

#[test]
fn sessions_sharing_a_label_are_told_apart_by_their_latest_prompt() {
    let mut state = State::new(testkit::setup());
    step(&mut state, Action::Resize(100, 20));
    let parent = record("parent-1", Some(testkit::HERE), "2025-05-01T00:00:00Z");
    let fork = record("parent-2", Some(testkit::HERE), "2025-05-02T00:00:00Z");
    let other = record("other", Some(testkit::HERE), "2025-05-03T00:00:00Z");
    let found = step(
        &mut state,
        Action::Discovered(events(&[parent, fork, other])),
    );
    let shared = "Add a dark mode toggle";
    let effects = titled(
        &mut state,
        found,
        &[
            ("parent-1", shared),
            ("parent-2", shared),
            ("other", "Other"),
        ],
    );
    // Only the two sessions sharing a label are read (those in view), once.
    let asked: Vec<Vec<String>> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::ReadLatestPrompts(batch) => {
                let mut ids: Vec<String> = batch.iter().map(|(_, r)| r.id.clone()).collect();
                ids.sort();
                Some(ids)
            }
            _ => None,
        })
        .collect();
    assert_eq!(asked, [vec!["parent-1".to_owned(), "parent-2".to_owned()]]);
    let ids: Vec<EntryId> = match effects.iter().find_map(|e| match e {
        Effect::ReadLatestPrompts(batch) => Some(batch),
        _ => None,
    }) {
        Some(batch) => batch.iter().map(|(id, _)| *id).collect(),
        None => unreachable!("asked above"),
    };
    let again = step(&mut state, Action::Edit(Edit::Insert('d')));
    assert!(!again
        .iter()
        .any(|e| matches!(e, Effect::ReadLatestPrompts(_))));
    step(
        &mut state,
        Action::LatestPrompts(vec![
            (ids[0], Some("make it the default".to_owned())),
            (ids[1], Some("use the system setting instead".to_owned())),
        ]),
    );
    step(&mut state, Action::Edit(crate::tui::line::Edit::Backspace));
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(100, 20)).unwrap();
    terminal
        .draw(|frame| crate::tui::view::draw(frame, &state))
        .unwrap();
    let screen: String = terminal
        .backend()
        .buffer()
        .content()
        .iter()
        .map(|cell| cell.symbol())
        .collect();
    assert!(
        screen.contains(&format!("{shared} · make it the default")),
        "{screen}"
    );
    assert!(
        screen.contains(&format!("{shared} · use the system setting")),
        "{screen}"
    );
    assert!(!screen.contains("Other ·"), "{screen}");
}

#[test]
fn rows_merged_into_place_batch_by_batch_are_in_the_order_a_full_sort_gives() {
    // Sessions and their activity arrive in batches; each batch is merged
    // into the sorted list rather than the list sorted again (#25 item 11):
    // the order must be the one sorting everything at once gives.
    let mut state = State::new(testkit::setup());
    let mut next = 0;
    for (n, batch) in adversarial_stream().into_iter().enumerate() {
        step(&mut state, Action::Discovered(events(&batch)));
        let times = (next..next + batch.len())
            .filter(|i| i % 3 != 0)
            .map(|i| {
                (
                    i as EntryId,
                    1_800_000_000 + ((i * 7919 + n) % 97) as i64 * 3600,
                )
            })
            .collect();
        next += batch.len();
        step(&mut state, Action::Activity(times));
    }
    let merged: Vec<String> = ids(&state).into_iter().map(String::from).collect();
    step(&mut state, Action::ToggleSort);
    step(&mut state, Action::ToggleSort);
    assert_eq!(state.sort, SortOrder::Activity);
    assert_eq!(ids(&state), merged);
}
