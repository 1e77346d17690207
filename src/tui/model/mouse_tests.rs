//! The mouse, driven by actions alone: a double click inserts a row's
//! mention (two slow clicks do not), a click places the prompt's cursor,
//! the wheel scrolls what it is over.

use std::time::Duration;

use super::*;
use crate::tui::line::Edit;
use crate::tui::model::fixtures::*;
use crate::tui::model::*;
use crate::tui::testkit::{self, step};

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
