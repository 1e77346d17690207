//! The preview, driven by actions alone: asked for once per session and
//! label, asked again once dropped, scrolled within its lines, opened at
//! the newest message, hidden by ctrl-/.

use super::*;
use crate::tui::line::Edit;
use crate::tui::model::fixtures::*;
use crate::tui::model::*;
use crate::tui::preview;
use crate::tui::testkit::{self, step};

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
