//! The list, driven by actions alone: the order sessions arrive in and are
//! listed in, ranking as the filter is typed, the scope, the highlight
//! tracking a session, labels shared by forks.

use super::*;
use crate::error::Error;
use crate::tui::line::Edit;
use crate::tui::model::fixtures::*;
use crate::tui::model::*;
use crate::tui::testkit::{self, record, step};
use session_ref_core::mention::format_mention;
use session_ref_stores::model::SessionRecord;

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

#[test]
fn a_session_only_the_archive_has_starts_its_row_with_the_archived_tag() {
    let mut state = State::new(testkit::setup());
    step(&mut state, Action::Resize(100, 10));
    let mut archived = testkit::record("kept-1", Some("/w"), "2026-01-01T00:00:00Z");
    archived.archived = true;
    let live = testkit::record("live-1", Some("/w"), "2026-01-02T00:00:00Z");
    let effects = step(
        &mut state,
        Action::Discovered(vec![ScanEvent::Record(archived), ScanEvent::Record(live)]),
    );
    testkit::answer_titles(&mut state, effects);
    step(&mut state, Action::DiscoveryDone);
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(100, 10)).unwrap();
    terminal
        .draw(|frame| crate::tui::view::draw(frame, &state))
        .unwrap();
    let buffer = terminal.backend().buffer().clone();
    let rows: Vec<String> = (0..10)
        .map(|y| {
            (0..100)
                .map(|x| buffer[(x, y)].symbol().to_owned())
                .collect()
        })
        .collect();
    let row = |id: &str| {
        rows.iter()
            .find(|r| r.contains(id))
            .cloned()
            .unwrap_or_default()
    };
    let tag = crate::tui::view::list::ARCHIVED_TAG;
    assert!(row("kept-1").contains(&format!("{tag}kept-1")), "{rows:#?}");
    assert!(!row("live-1").contains(tag.trim()), "{rows:#?}");
    // The row keeps its columns: the tag takes the padding, not the kind.
    assert!(row("kept-1").trim_end().ends_with("hydra"), "{rows:#?}");
}
