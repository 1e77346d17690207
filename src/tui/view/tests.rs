//! Whole frames drawn from states on a `TestBackend`, snapshot-tested at
//! 80x24 and 120x40. The clock and home are fixed by the test setup (ages
//! and `~` paths are stable) and the fixture store is read through a
//! relative path (error messages are stable).

use ratatui::backend::TestBackend;
use ratatui::style::Color;
use ratatui::Terminal;

use super::draw;
use crate::config::Limits;
use crate::error::Error;
use crate::tui::line::Edit;
use crate::tui::model::{Action, Setup, State};
use crate::tui::preview::PreviewKey;
use crate::tui::testkit::{self, step};
use session_ref_core::mention::format_mention;

fn render(state: &State) -> Terminal<TestBackend> {
    let (w, h) = state.size;
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|frame| draw(frame, state)).unwrap();
    terminal
}

fn type_text(state: &mut State, text: &str, limits: Limits) {
    for c in text.chars() {
        let effects = step(state, Action::Edit(Edit::Insert(c)));
        testkit::answer_previews(state, effects, limits);
    }
}

/// The fixture store with "Compare with" and one mention in the prompt, the
/// filter at "re", previews computed.
fn working(setup: Setup, width: u16, height: u16) -> State {
    let limits = setup.limits;
    let (mut state, pending) = testkit::loaded(setup, width, height);
    testkit::answer_previews(&mut state, pending, limits);
    step(&mut state, Action::ToggleFocus);
    type_text(&mut state, "Compare with", limits);
    step(&mut state, Action::ToggleFocus);
    step(&mut state, Action::InsertMention);
    type_text(&mut state, "re", limits);
    state
}

#[test]
fn picker_at_80x24() {
    let state = working(testkit::setup(), 80, 24);
    assert!(testkit::preview_ready(&state));
    let terminal = render(&state);
    insta::assert_snapshot!(terminal.backend());
    // The cursor is in the filter, after "re".
    let mut backend = terminal.backend().clone();
    use ratatui::backend::Backend;
    assert_eq!(backend.get_cursor_position().unwrap(), (4, 0).into());
}

#[test]
fn picker_at_120x40_with_a_tight_budget() {
    let mut setup = testkit::setup();
    setup.limits.max_reference_bytes = 1200;
    let limits = setup.limits;
    let mut state = working(setup, 120, 40);
    step(&mut state, Action::Edit(Edit::DeleteToStart));
    type_text(&mut state, "long", limits);
    step(&mut state, Action::ToggleFocus);
    assert!(testkit::preview_ready(&state));
    insta::assert_snapshot!(render(&state).backend());
}

#[test]
fn raw_preview_at_120x40() {
    let mut state = working(testkit::setup(), 120, 40);
    step(&mut state, Action::TogglePreviewMode);
    insta::assert_snapshot!(render(&state).backend());
}

#[test]
fn failures_are_shown_in_place_at_80x24() {
    let limits = Limits::default();
    let (mut state, pending) = testkit::loaded(testkit::setup(), 80, 24);
    testkit::answer_previews(&mut state, pending, limits);
    type_text(&mut state, "half", limits);
    step(&mut state, Action::InsertMention);
    step(&mut state, Action::ToggleFocus);
    type_text(&mut state, " and hydra-session:ImFiYyJ", limits);
    step(&mut state, Action::Submit);
    insta::assert_snapshot!(render(&state).backend());
}

#[test]
fn a_submit_error_longer_than_the_footer_is_shown_whole() {
    let (mut state, _) = testkit::loaded(testkit::setup(), 80, 24);
    let why = "cannot read /home/dev/.hydra/sessions/payments-api/pay-7f3a-idempotency.jsonl \
               line 17: unexpected end of input while reading the message body (the file may \
               still be being written) [tail-marker]";
    step(&mut state, Action::Prepared(Err(Error::read_failed(why))));
    let terminal = render(&state);
    let buffer = terminal.backend().buffer();
    let screen: String = (0..24)
        .map(|y| (0..80).map(|x| buffer[(x, y)].symbol()).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n");
    let flat: String = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("[tail-marker]"), "{screen}");
    assert!(flat.contains("SESSION_REFERENCE_READ_FAILED"), "{screen}");
    // In the error style, over the rows above the footer.
    let last = (0..24u16)
        .rev()
        .find(|&y| (0..80).any(|x| buffer[(x, y)].symbol() == "]"))
        .unwrap();
    assert_eq!(last, 23, "{screen}");
    // The next key puts the prompt back.
    step(&mut state, Action::ToggleFocus);
    let again = render(&state);
    let bottom: String = (0..80)
        .map(|x| again.backend().buffer()[(x, 23)].symbol())
        .collect();
    assert!(!bottom.contains("tail-marker"), "{bottom}");
}

#[test]
fn loading_at_80x24() {
    let mut state = State::new(testkit::setup());
    step(&mut state, Action::Resize(80, 24));
    let mut events = testkit::scan_fixtures();
    events.truncate(3);
    events.push(session_ref_stores::ScanEvent::Unreadable {
        path: "locked.jsonl".into(),
        reason: "permission denied".into(),
    });
    step(&mut state, Action::Discovered(events));
    insta::assert_snapshot!(render(&state).backend());
}

#[test]
fn nothing_found_at_80x24() {
    let mut setup = testkit::setup();
    setup.empty_hint = "no sessions found. Looked in:\n  hydra  ~/.hydra/sessions\nPoint at a store with --store DIR".into();
    let mut state = State::new(setup);
    step(&mut state, Action::Resize(80, 24));
    step(&mut state, Action::DiscoveryDone);
    insta::assert_snapshot!(render(&state).backend());
}

#[test]
fn help_at_80x24() {
    let (mut state, _) = testkit::loaded(testkit::setup(), 80, 24);
    step(&mut state, Action::ToggleHelp);
    insta::assert_snapshot!(render(&state).backend());
}

#[test]
fn a_refused_fourth_session_is_shown() {
    let (mut state, _) = testkit::loaded(testkit::setup(), 80, 24);
    for _ in 0..3 {
        step(&mut state, Action::InsertMention);
        step(&mut state, Action::Move(1));
    }
    step(&mut state, Action::InsertMention);
    let terminal = render(&state);
    let screen = terminal.backend().to_string();
    assert!(screen.contains("sessions 3/3"), "{screen}");
    assert!(
        screen.contains("✗ a message may cite at most 3 sessions"),
        "{screen}"
    );
}

#[test]
fn only_a_cited_row_has_the_cited_mark_in_the_chip_style() {
    let state = working(testkit::setup(), 80, 24);
    let terminal = render(&state);
    let buffer = terminal.backend().buffer();
    let area = state.areas();
    let cited = state.prompt().referenced_ids();
    // The third cell of each row: the chip style behind an `@` on the
    // cited session's row, and on no other (no stripe down the list).
    let mut marks = 0;
    for (row, hit) in state.hits.iter().enumerate().skip(state.list_offset) {
        let y = area.list.y + (row - state.list_offset) as u16;
        if y >= area.list.bottom() {
            break;
        }
        let cell = &buffer[(area.list.x + 2, y)];
        let is_cited = cited.contains(&state.entries[hit.id as usize].record.id);
        assert_eq!(cell.symbol() == "@", is_cited, "row {row}");
        assert_eq!(cell.bg == Color::Cyan, is_cited, "row {row}: {cell:?}");
        marks += usize::from(is_cited);
    }
    assert_eq!(marks, 1, "the fixture's prompt cites one listed session");
}

#[test]
fn matched_characters_and_chips_are_styled() {
    let state = working(testkit::setup(), 80, 24);
    let terminal = render(&state);
    let buffer = terminal.backend().buffer();
    let area = state.areas();
    // Some character of the candidate rows is in the match style.
    let matched = (area.list.top()..area.list.bottom())
        .flat_map(|y| (0..area.list.width).map(move |x| (x, y)))
        .any(|(x, y)| buffer[(x, y)].fg == Color::Yellow);
    assert!(matched);
    // The chip is drawn as "@label" in the chip style.
    let y = area.prompt_body.y;
    let row: String = (0..80)
        .map(|x| buffer[(x, y)].symbol().to_owned())
        .collect();
    let at = row.find("@Fix the mention parser").expect("chip text");
    assert_eq!(buffer[(at as u16, y)].bg, Color::Cyan);
    assert!(state.prompt().text().contains(&format_mention(
        "7f3a-parser",
        Some("Fix the mention parser")
    )));
}

#[test]
fn no_color_draws_without_colors() {
    let mut setup = testkit::setup();
    setup.theme.color = false;
    let mut state = working(setup, 80, 24);
    let key = PreviewKey {
        session_id: "x".into(),
        label: "x".into(),
    };
    step(
        &mut state,
        Action::PreviewReady(key, Err(Error::read_failed("x"))),
    );
    step(&mut state, Action::Submit);
    for help in [false, true] {
        if help {
            step(&mut state, Action::ToggleHelp);
        }
        let terminal = render(&state);
        for cell in terminal.backend().buffer().content() {
            assert_eq!((cell.fg, cell.bg), (Color::Reset, Color::Reset), "{cell:?}");
        }
    }
    // Distinctions remain: the highlighted row is reversed.
    let terminal = render(&state);
    let list = state.areas().list;
    let cell = &terminal.backend().buffer()[(2, list.y)];
    assert!(cell.modifier.contains(ratatui::style::Modifier::REVERSED));
}

#[test]
fn tiny_terminals_do_not_panic() {
    let (mut state, _) = testkit::loaded(testkit::setup(), 80, 24);
    step(&mut state, Action::ToggleHelp);
    for (w, h) in [(1, 1), (10, 3), (30, 8), (0, 0), (200, 4)] {
        step(&mut state, Action::Resize(w, h));
        render(&state);
    }
}

#[test]
fn conversation_search_at_100x30() {
    // "preview" is said in three sessions, listed by the core's score
    // (denser matches first), each with its best line highlighted.
    let setup = testkit::setup();
    let limits = setup.limits;
    let (mut state, _) = testkit::loaded(setup, 100, 30);
    step(&mut state, Action::ToggleSearch);
    let mut effects = Vec::new();
    for c in "preview".chars() {
        effects.extend(step(&mut state, Action::Edit(Edit::Insert(c))));
    }
    let rest = testkit::answer_searches(&mut state, effects);
    testkit::answer_previews(&mut state, rest, limits);
    assert!(testkit::preview_ready(&state));
    insta::assert_snapshot!(render(&state).backend());
}

#[test]
fn a_hit_before_compaction_is_marked() {
    let setup = testkit::setup();
    let (mut state, _) = testkit::loaded(setup, 100, 30);
    step(&mut state, Action::ToggleSearch);
    let mut effects = Vec::new();
    for c in "non-checkpoint".chars() {
        effects.extend(step(&mut state, Action::Edit(Edit::Insert(c))));
    }
    testkit::answer_searches(&mut state, effects);
    let terminal = render(&state);
    let rows: Vec<String> = (0..4)
        .map(|y| {
            (0..100)
                .map(|x| terminal.backend().buffer()[(x, y)].symbol().to_owned())
                .collect()
        })
        .collect();
    assert!(rows[0].starts_with("search: non-checkpoint"), "{rows:?}");
    assert!(
        rows[1].contains("[not in snapshot] Drop the oldest non-checkpoint item"),
        "{rows:?}"
    );
    // The match is highlighted, the rest of the line is not.
    let column = |word: &str| rows[1][..rows[1].find(word).unwrap()].chars().count() as u16;
    let (at, plain) = (column("non-checkpoint"), column("Drop"));
    let buffer = terminal.backend().buffer();
    assert_ne!(buffer[(at, 1)].style(), buffer[(plain, 1)].style());
    assert_eq!(buffer[(at, 1)].style(), buffer[(at + 13, 1)].style());
}

/// Sessions whose labels are longer than a list pane side by side.
const LONG_TITLES: &[(&str, &str)] = &[
    (
        "ts-sdk",
        "TypeScript SDK: typed client for the sessions endpoint and its pagination",
    ),
    (
        "py-sdk",
        "Python SDK: async client with retries for the sessions endpoint",
    ),
    ("cli", "Release the CLI"),
];

/// A picker of `width` x 30 over [`LONG_TITLES`] (in memory: their
/// previews stay loading), filtered by `query`.
fn long_labels(width: u16, query: &str) -> State {
    long_labels_in(
        testkit::setup(),
        width,
        query,
        "/home/dev/projects/sdk-workspace",
    )
}

/// [`long_labels`] with the sessions in `cwd`, from `setup`.
fn long_labels_in(mut setup: Setup, width: u16, query: &str, cwd: &str) -> State {
    setup.query = query.into();
    let mut state = State::new(setup);
    step(&mut state, Action::Resize(width, 30));
    let records: Vec<_> = LONG_TITLES
        .iter()
        .enumerate()
        .map(|(i, (id, _))| {
            let created = format!("2025-05-{:02}T00:00:00Z", 20 + i);
            testkit::record(id, Some(cwd), &created)
        })
        .collect();
    let events = records
        .into_iter()
        .map(session_ref_stores::ScanEvent::Record)
        .collect();
    for effect in step(&mut state, Action::Discovered(events)) {
        if let crate::tui::model::Effect::ReadTitles(batch) = effect {
            let titles = batch
                .iter()
                .map(|(id, record)| {
                    let title = LONG_TITLES.iter().find(|(i, _)| *i == record.id);
                    (*id, title.map(|(_, t)| (*t).to_owned()))
                })
                .collect();
            step(&mut state, Action::Titles(titles));
        }
    }
    step(&mut state, Action::DiscoveryDone);
    state
}

/// Row `y` of the screen, and the characters in the match style on it.
fn row_and_matched(terminal: &Terminal<TestBackend>, y: u16, width: u16) -> (String, String) {
    let buffer = terminal.backend().buffer();
    let row = (0..width).map(|x| buffer[(x, y)].symbol()).collect();
    let matched = (0..width)
        .filter(|&x| buffer[(x, y)].fg == Color::Yellow)
        .map(|x| buffer[(x, y)].symbol())
        .collect();
    (row, matched)
}

#[test]
fn long_labels_side_by_side_at_110_and_140_columns() {
    for width in [110, 140] {
        let state = long_labels(width, "");
        let list = state.areas().list;
        let terminal = render(&state);
        // Each label gets most of its pane: more than 3/4 of its columns
        // show label text (cwd and kind gave way first).
        let (row, _) = row_and_matched(&terminal, list.y + 1, width);
        let pane: String = row.chars().take(list.width as usize).collect();
        let shown = pane.find("…").map(|at| pane[..at].chars().count()).unwrap();
        assert!(
            shown >= list.width as usize * 3 / 4 - 3,
            "{width}: {shown} of {}: {pane:?}",
            list.width
        );
        match width {
            110 => insta::assert_snapshot!("long_labels_at_110x30", terminal.backend()),
            _ => insta::assert_snapshot!("long_labels_at_140x30", terminal.backend()),
        }
    }
}

#[test]
fn a_match_past_the_cut_scrolls_the_label_to_it() {
    // "pagination" ends the TypeScript label, far past a 110-column
    // list pane's cut: the row shows it, highlighted, after a `…`.
    let state = long_labels(110, "pagination");
    assert_eq!(state.hits.len(), 1);
    let list = state.areas().list;
    let terminal = render(&state);
    let (row, matched) = row_and_matched(&terminal, list.y, 110);
    let pane: String = row.chars().take(list.width as usize).collect();
    assert!(pane.starts_with("›  …"), "{pane:?}");
    assert!(pane.contains("its pagination"), "{pane:?}");
    assert_eq!(matched, "pagination", "{pane:?}");
}

#[test]
fn conversation_search_rows_give_the_label_most_of_the_pane() {
    use crate::search::hits::{Hit, SessionMatch};
    let mut state = long_labels(110, "");
    let mut effects = step(&mut state, Action::ToggleSearch);
    for c in "retries".chars() {
        effects.extend(step(&mut state, Action::Edit(Edit::Insert(c))));
    }
    let generation = effects
        .iter()
        .filter_map(|e| match e {
            crate::tui::model::Effect::Search { generation, .. } => Some(*generation),
            _ => None,
        })
        .next_back()
        .expect("a search");
    let id = state
        .entries
        .iter()
        .position(|e| e.record.id == "py-sdk")
        .unwrap() as session_ref_engine::rank::EntryId;
    let snippet = "Add retries with backoff to every request".to_owned();
    let found = SessionMatch {
        hits: vec![Hit {
            message: 0,
            role: session_ref_core::projection::Role::User,
            checkpoint: false,
            before_compaction: false,
            line: 0,
            highlights: std::iter::once(4..11).collect(),
            snippet,
            matches: 1,
            terms: 1,
        }],
        matches: 1,
        text_bytes: 100,
    };
    step(&mut state, Action::SearchFound(generation, id, found));
    step(&mut state, Action::SearchDone(generation, Ok(())));
    let list = state.areas().list;
    let terminal = render(&state);
    let (row, matched) = row_and_matched(&terminal, list.y, 110);
    let pane: String = row.chars().take(list.width as usize).collect();
    // The label takes three fifths of the row, the line the rest.
    let room = list.width as usize - 4;
    assert!(
        pane.contains(
            &"Python SDK: async client with retries for the sessions endpoint"
                .chars()
                .take(room * 3 / 5 - 1)
                .collect::<String>()
        ),
        "{pane:?}"
    );
    assert!(pane.contains("Add retries"), "{pane:?}");
    assert_eq!(matched, "retries", "{pane:?}");
}

/// The screen's rows as text.
fn rows(terminal: &Terminal<TestBackend>) -> Vec<String> {
    let buffer = terminal.backend().buffer();
    let area = buffer.area;
    (0..area.height)
        .map(|y| (0..area.width).map(|x| buffer[(x, y)].symbol()).collect())
        .collect()
}

#[test]
fn the_help_shows_every_description_whole_and_the_query_syntax() {
    // Tall enough for the whole help: no row scrolled away.
    let (mut state, _) = testkit::loaded(testkit::setup(), 80, 90);
    step(&mut state, Action::ToggleHelp);
    let screen = rows(&render(&state));
    // Inside the popup's border, joined: a description wrapped over rows
    // reads whole (its continuation rows leave the key column blank).
    let popup = crate::tui::layout::help_popup(ratatui::layout::Rect::new(0, 0, 80, 90), 0);
    let inner: Vec<String> = screen
        .iter()
        .map(|row| {
            row.chars()
                .skip(popup.x as usize + 1)
                .take(popup.width as usize - 2)
                .collect()
        })
        .collect();
    let flat = inner
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for row in crate::keys::help_rows() {
        if let crate::keys::HelpRow::Entry { keys, what } = row {
            let what = what.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                flat.contains(&what),
                "{keys}: {what:?} not whole in\n{}",
                inner.join("\n")
            );
        }
    }
    assert!(flat.contains("Filter syntax"), "{flat}");
    assert!(flat.contains("'word exact: found as typed"), "{flat}");
    assert!(
        flat.contains("Conversation search syntax (ctrl-t)"),
        "{flat}"
    );
    assert!(flat.contains("re:REGEX a regular expression"), "{flat}");
}

#[test]
fn the_footer_names_search_and_drafts() {
    let (state, _) = testkit::loaded(testkit::setup(), 80, 24);
    let screen = rows(&render(&state));
    assert!(screen[23].contains("ctrl-t search"), "{}", screen[23]);
    assert!(!screen[23].contains("drafts"), "{}", screen[23]);
    let mut setup = testkit::setup();
    setup.drafts = vec![crate::draft::Draft {
        path: "/nonexistent/draft.md".into(),
        text: "saved words".into(),
    }];
    let (mut state, _) = testkit::loaded(setup, 120, 24);
    // The offer of the drafts is a message until the first key.
    step(&mut state, Action::ToggleFocus);
    let screen = rows(&render(&state));
    assert!(screen[23].contains("alt-r drafts"), "{}", screen[23]);
    assert!(screen[23].contains("ctrl-t search"), "{}", screen[23]);
}

#[test]
fn conversation_search_says_it_ranks_by_score_and_highlights_the_preview() {
    let setup = testkit::setup();
    let limits = setup.limits;
    let (mut state, _) = testkit::loaded(setup, 100, 30);
    let titles = rows(&render(&state));
    assert!(titles[0].contains("by activity"), "{}", titles[0]);
    step(&mut state, Action::ToggleSearch);
    let mut effects = Vec::new();
    for c in "preview".chars() {
        effects.extend(step(&mut state, Action::Edit(Edit::Insert(c))));
    }
    let rest = testkit::answer_searches(&mut state, effects);
    testkit::answer_previews(&mut state, rest, limits);
    assert!(testkit::preview_ready(&state));
    let terminal = render(&state);
    let screen = rows(&terminal);
    assert!(screen[0].contains("by match score"), "{}", screen[0]);
    assert!(!screen[0].contains("by activity"), "{}", screen[0]);
    // In the preview's text, "preview" (any case) is in the match style,
    // and only there.
    let body = state.areas().preview_body;
    let buffer = terminal.backend().buffer();
    let mut marked = 0;
    for y in body.top()..body.bottom() {
        let row: Vec<&str> = (body.left()..body.right())
            .map(|x| buffer[(x, y)].symbol())
            .collect();
        let text: String = row.concat().to_lowercase();
        for (at, _) in text.match_indices("preview") {
            let x = body.left() + text[..at].chars().count() as u16;
            for dx in 0..7 {
                assert_eq!(buffer[(x + dx, y)].fg, Color::Yellow, "row {y}: {text}");
            }
            marked += 1;
        }
        for x in body.left()..body.right() {
            if buffer[(x, y)].fg == Color::Yellow {
                let column = (x - body.left()) as usize;
                let hit = text.match_indices("preview").any(|(at, _)| {
                    let start = text[..at].chars().count();
                    (start..start + 7).contains(&column)
                });
                assert!(hit, "row {y} column {column} marked: {text}");
            }
        }
    }
    assert!(marked > 0, "no match in view:\n{}", screen.join("\n"));
    // Back to titles: nothing is marked in the preview.
    step(&mut state, Action::ToggleSearch);
    let terminal = render(&state);
    let buffer = terminal.backend().buffer();
    let body = state.areas().preview_body;
    assert!((body.top()..body.bottom())
        .flat_map(|y| (body.left()..body.right()).map(move |x| (x, y)))
        .all(|(x, y)| buffer[(x, y)].fg != Color::Yellow));
}

/// A mention of a session no store has.
fn unknown_mention() -> String {
    format_mention("gone-0000-session", Some("Deleted long ago"))
}

#[test]
fn a_mention_of_a_session_no_store_has_looks_invalid_once_the_listing_is_complete() {
    let mut setup = testkit::setup();
    setup.prompt = format!("compare {} and ", unknown_mention());
    let mut state = State::new(setup);
    step(&mut state, Action::Resize(80, 24));
    step(&mut state, Action::Discovered(testkit::scan_fixtures()));
    let chip_bg = |state: &State| {
        let terminal = render(state);
        let y = state.areas().prompt_body.y;
        let row: String = rows(&terminal)[y as usize].clone();
        let at = row.find("@Deleted long ago").expect("the chip") as u16;
        (terminal.backend().buffer()[(at, y)].bg, rows(&terminal))
    };
    // While the listing runs, nothing is decided.
    let (bg, _) = chip_bg(&state);
    assert_eq!(bg, Color::Cyan);
    step(&mut state, Action::DiscoveryDone);
    let (bg, screen) = chip_bg(&state);
    assert_eq!(bg, Color::Red, "{}", screen.join("\n"));
    // The message may wrap over the rows above the footer.
    let all = screen
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(all.contains("1 not found"), "{all}");
    assert!(
        all.contains("@Deleted long ago (gone-0000-session) cites a session no store lists"),
        "{all}"
    );
    // A known session's chip keeps the chip style.
    step(&mut state, Action::InsertMention);
    let terminal = render(&state);
    let y = state.areas().prompt_body.y;
    let row = rows(&terminal)[y as usize].clone();
    let known = row.rfind(" @").expect("a second chip") + 1;
    let x = row[..known].chars().count() as u16;
    assert_eq!(terminal.backend().buffer()[(x, y)].bg, Color::Cyan, "{row}");
}

#[test]
fn a_restored_draft_with_an_unknown_mention_says_so() {
    let mut setup = testkit::setup();
    setup.drafts = vec![crate::draft::Draft {
        path: "/nonexistent/draft.md".into(),
        text: format!("see {}", unknown_mention()),
    }];
    let (mut state, _) = testkit::loaded(setup, 100, 24);
    step(&mut state, Action::RestoreDraft);
    let flash = state.flash.clone().expect("a message");
    assert!(flash.error, "{flash:?}");
    assert!(
        flash.text.starts_with("saved prompt 1 of 1"),
        "{}",
        flash.text
    );
    assert!(flash
        .text
        .contains("(gone-0000-session) cites a session no store lists"));
}

#[test]
fn a_chip_wider_than_the_prompt_ends_with_an_ellipsis() {
    let label = format!("A very long label {}", "that goes on ".repeat(10));
    let mut setup = testkit::setup();
    setup.prompt = format_mention("7f3a-parser", Some(&label));
    let (state, _) = testkit::loaded(setup, 60, 24);
    let terminal = render(&state);
    let body = state.areas().prompt_body;
    let row = &rows(&terminal)[body.y as usize];
    let inside: String = row
        .chars()
        .skip(body.x as usize)
        .take(body.width as usize)
        .collect();
    assert!(inside.starts_with("@A very long label"), "{row:?}");
    assert!(inside.trim_end().ends_with('…'), "{row:?}");
    let last = body.x + body.width - 1;
    assert_eq!(terminal.backend().buffer()[(last, body.y)].symbol(), "…");
}

#[test]
fn a_title_the_80_character_rule_cut_is_shown_with_an_ellipsis_and_mentioned_as_is() {
    let title = "x".repeat(70) + " abcdefghi"; // 80 characters
    assert_eq!(title.chars().count(), 80);
    // Wide enough for the whole label in the list's column.
    let mut state = State::new(testkit::setup());
    step(&mut state, Action::Resize(400, 30));
    let record = |id: &str, kind| {
        let mut r = testkit::record(id, Some(testkit::HERE), "2025-05-30T10:00:00Z");
        r.kind = kind;
        r
    };
    let claude = session_ref_stores::kinds::claude::KIND;
    let native = session_ref_stores::kinds::native::KIND;
    step(
        &mut state,
        Action::Discovered(vec![
            session_ref_stores::ScanEvent::Record(record("cut-claude", claude)),
            session_ref_stores::ScanEvent::Record(record("own-native", native)),
        ]),
    );
    step(
        &mut state,
        Action::Titles(vec![
            (0, Some(title.clone())),
            (1, Some(title.replace('x', "y"))),
        ]),
    );
    step(&mut state, Action::DiscoveryDone);
    let screen = rows(&render(&state));
    let row = screen
        .iter()
        .find(|r| r.contains(&title))
        .expect("the cut session's row");
    assert!(row.contains(&format!("{title}… ")), "{row}");
    let highlighted = state.current().unwrap().label().to_owned();
    let header = &screen[state.areas().preview_header.y as usize];
    assert!(
        header.contains(&format!("Preview: {highlighted}")),
        "{header}"
    );
    assert_eq!(
        header.contains(&format!("Preview: {highlighted}…")),
        highlighted == title,
        "{header}"
    );
    let screen = screen.join("\n");
    // A native session's title is its own: never marked.
    assert!(
        !screen.contains(&format!("{}…", title.replace('x', "y"))),
        "{screen}"
    );
    // The mention carries the contract's label, without the mark.
    let top = state.current().unwrap().record.id.clone();
    step(&mut state, Action::InsertMention);
    let label = if top == "cut-claude" {
        title.clone()
    } else {
        title.replace('x', "y")
    };
    assert!(state
        .prompt()
        .text()
        .contains(&format_mention(&top, Some(&label))));
    assert!(!state.prompt().text().contains('…'));
}

/// A cwd deeper than any cwd column of a side-by-side list.
const DEEP_CWD: &str = "/home/dev/work/clients/acme/sdk-workspace/packages/typescript";

/// Columns of the row's first cell run that shows the TypeScript label
/// (after the gutter), `…` included.
fn label_shown(row: &str) -> usize {
    let title = LONG_TITLES[0].1;
    let text: String = row.chars().skip(3).collect();
    let common = text
        .chars()
        .zip(title.chars())
        .take_while(|(a, b)| a == b)
        .count();
    common + usize::from(text.chars().nth(common) == Some('…'))
}

#[test]
fn the_picker_at_20_80_120_140_and_200_columns() {
    for width in [20u16, 80, 120, 140, 200] {
        let state = long_labels_in(testkit::setup(), width, "sdk", DEEP_CWD);
        let terminal = render(&state);
        let screen = rows(&terminal);
        // The typed filter shows at every width.
        assert!(screen[0].starts_with("> sdk"), "{width}: {:?}", screen[0]);
        insta::assert_snapshot!(format!("picker_at_{width}x30"), terminal.backend());
    }
    // 200 columns, the preview hidden: the cwd shows whole.
    let mut setup = testkit::setup();
    setup.preview_window = crate::config::PreviewWindow::parse("hidden").unwrap();
    let state = long_labels_in(setup, 200, "", DEEP_CWD);
    let terminal = render(&state);
    let screen = rows(&terminal);
    let deep = DEEP_CWD.replace("/home/dev", "~");
    assert!(
        screen[1].contains(&format!("  {deep}  ")),
        "{:?}",
        screen[1]
    );
    insta::assert_snapshot!("picker_at_200x30_preview_hidden", terminal.backend());
}

#[test]
fn a_cut_cwd_keeps_its_last_components_whole() {
    // 140 columns side by side, short labels: the cwd column is narrower
    // than the path, which is cut where a component starts.
    let mut state = State::new(testkit::setup());
    step(&mut state, Action::Resize(140, 30));
    let record = testkit::record("short", Some(DEEP_CWD), "2025-05-20T00:00:00Z");
    step(
        &mut state,
        Action::Discovered(vec![session_ref_stores::ScanEvent::Record(record)]),
    );
    step(&mut state, Action::Titles(vec![(0, Some("Short".into()))]));
    step(&mut state, Action::DiscoveryDone);
    let list = state.areas().list;
    let row: String = rows(&render(&state))[list.y as usize]
        .chars()
        .take(list.width as usize)
        .collect();
    let at = row.find('…').expect("a cut cwd");
    let cwd: String = row[at..].split("  ").next().unwrap().to_owned();
    assert!(cwd.starts_with("…/"), "{row:?}");
    assert!(
        DEEP_CWD.ends_with(&cwd[cwd.find('/').unwrap()..]),
        "{row:?}"
    );
    assert!(cwd.ends_with("/packages/typescript"), "{row:?}");
}

#[test]
fn labels_never_get_shorter_on_a_wider_terminal() {
    // Within each arrangement (stacked under 110 columns, side by side
    // from there: the list's pane is then narrower by design), a wider
    // terminal shows at least as much of each label.
    let mut last: Option<(bool, usize)> = None;
    for width in 20u16..=260 {
        let state = long_labels_in(testkit::setup(), width, "", DEEP_CWD);
        let side = state.areas().separator.is_some();
        let screen = rows(&render(&state));
        let y = (1..screen.len())
            .find(|&y| {
                screen[y]
                    .chars()
                    .skip(3)
                    .collect::<String>()
                    .starts_with("Type")
            })
            .expect("the TypeScript row");
        let shown = label_shown(&screen[y]);
        if let Some((was_side, before)) = last {
            if was_side == side {
                assert!(
                    shown >= before,
                    "{width}: {shown} < {before}: {:?}",
                    screen[y]
                );
            }
        }
        last = Some((side, shown));
    }
}

#[test]
fn the_typed_filter_shows_at_20_columns() {
    let mut setup = testkit::setup();
    let limits = setup.limits;
    setup.query = String::new();
    let (mut state, _) = testkit::loaded(setup, 20, 24);
    type_text(&mut state, "typescript client sdk", limits);
    let terminal = render(&state);
    let screen = rows(&terminal);
    // The end of the query, where the cursor is.
    assert!(screen[0].contains("client sdk"), "{:?}", screen[0]);
    let mut backend = terminal.backend().clone();
    use ratatui::backend::Backend;
    let cursor = backend.get_cursor_position().unwrap();
    assert_eq!(cursor.y, 0);
    assert!(cursor.x < 20, "{cursor:?}");
    let before: String = screen[0].chars().take(cursor.x as usize).collect();
    assert!(before.ends_with("client sdk"), "{before:?}");
    // Moving to the start scrolls the start back into view.
    step(&mut state, Action::Edit(Edit::Home));
    let screen = rows(&render(&state));
    assert!(screen[0].starts_with("> typescript"), "{:?}", screen[0]);
}
