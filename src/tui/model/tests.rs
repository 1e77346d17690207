//! The state machine as a whole, driven by actions alone: keys through the
//! one table, the help screen.

use super::*;
use crate::tui::model::fixtures::*;
use crate::tui::testkit::{self, step};

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
