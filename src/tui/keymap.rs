//! Key presses to the picker's actions, through the one table in
//! [`crate::keys`]: the table says which [`Command`] a key means where;
//! this maps a command onto the state machine's [`Action`] and types
//! unbound printable characters into the focused input.
//!
//! It sits above the state machine ([`crate::tui::model`]): it reads the
//! model's [`Context`] and makes its actions, and the model imports nothing
//! from here, so the edge runs one way.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::keys::{Command, Edit, Key, When, BINDINGS};
use crate::tui::model::{Action, Context, Focus};

/// Whether a binding that holds `when` applies in `cx`.
fn applies(cx: Context, when: When) -> bool {
    when.applies(cx.chooser, cx.help, cx.focus == Focus::Prompt)
}

impl From<Command> for Action {
    fn from(command: Command) -> Action {
        match command {
            Command::ToggleHelp => Action::ToggleHelp,
            Command::HelpScroll(lines) => Action::HelpScroll(lines),
            Command::Abort => Action::Abort,
            Command::Submit => Action::Submit,
            Command::ToggleFocus => Action::ToggleFocus,
            Command::InsertMention => Action::InsertMention,
            Command::Move(by) => Action::Move(by),
            Command::Page(by) => Action::Page(by),
            Command::PreviewScroll(by) => Action::PreviewScroll(by),
            Command::PreviewPage(by) => Action::PreviewPage(by),
            Command::PreviewEdge(end) => Action::PreviewEdge(end),
            Command::TogglePreviewMode => Action::TogglePreviewMode,
            Command::TogglePreview => Action::TogglePreview,
            Command::ToggleScope => Action::ToggleScope,
            Command::ToggleSearch => Action::ToggleSearch,
            Command::ToggleSort => Action::ToggleSort,
            Command::OpenEditor => Action::OpenEditor,
            Command::RestoreDraft => Action::RestoreDraft,
            Command::Resume => Action::Resume,
            Command::Handoff => Action::Handoff,
            Command::ChooserMove(by) => Action::ChooserMove(by),
            Command::Choose => Action::Choose,
            Command::CloseChooser => Action::CloseChooser,
            Command::Edit(edit) => Action::Edit(edit),
        }
    }
}

fn normalize(event: &KeyEvent) -> Key {
    let mut mods =
        event.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
    if matches!(event.code, KeyCode::Char(_)) {
        mods.remove(KeyModifiers::SHIFT);
    }
    Key {
        code: event.code,
        mods,
    }
}

/// The action for a key press, `None` for keys that do nothing here.
pub fn lookup(event: &KeyEvent, cx: Context) -> Option<Action> {
    if event.kind == KeyEventKind::Release {
        return None;
    }
    let pressed = normalize(event);
    let bound = BINDINGS
        .iter()
        .filter(|b| applies(cx, b.when))
        .find(|b| b.keys.contains(&pressed));
    if let Some(binding) = bound {
        return Some(binding.command.into());
    }
    match pressed {
        Key {
            code: KeyCode::Char(c),
            mods: KeyModifiers::NONE,
        } if !cx.help && !cx.chooser => Some(Action::Edit(Edit::Insert(c))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::Edit;
    use KeyCode::{BackTab, Down, Enter, Esc, F};

    fn press(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    fn cx(focus: Focus) -> Context {
        Context {
            focus,
            help: false,
            chooser: false,
        }
    }

    #[test]
    fn ctrl_slash_toggles_the_preview_as_terminals_send_it() {
        // 0x1f (ctrl-/ in most terminals) is read as ctrl-7; the kitty
        // keyboard protocol reports ctrl-/ itself. Both are named ctrl-/.
        for c in ['/', '7'] {
            let got = lookup(
                &press(KeyCode::Char(c), KeyModifiers::CONTROL),
                cx(Focus::Prompt),
            );
            assert_eq!(got, Some(Action::TogglePreview), "ctrl-{c}");
            let key = crate::keys::Key {
                code: KeyCode::Char(c),
                mods: KeyModifiers::CONTROL,
            };
            assert_eq!(crate::keys::key_name(key), "ctrl-/");
        }
        assert!(crate::keys::help_rows().iter().any(
            |row| matches!(row, crate::keys::HelpRow::Entry { keys, .. } if keys == "ctrl-/")
        ));
    }

    #[test]
    fn fzf_keys_move_the_list_in_both_inputs() {
        for focus in [Focus::Filter, Focus::Prompt] {
            for (c, step) in [('j', 1), ('n', 1), ('k', -1), ('p', -1)] {
                let got = lookup(&press(KeyCode::Char(c), KeyModifiers::CONTROL), cx(focus));
                assert_eq!(got, Some(Action::Move(step)), "ctrl-{c}");
            }
        }
        assert_eq!(
            lookup(&press(Down, KeyModifiers::NONE), cx(Focus::Filter)),
            Some(Action::Move(1))
        );
        assert_eq!(
            lookup(&press(Down, KeyModifiers::NONE), cx(Focus::Prompt)),
            Some(Action::Edit(Edit::Down))
        );
    }

    #[test]
    fn enter_depends_on_the_focus_and_submit_does_not() {
        assert_eq!(
            lookup(&press(Enter, KeyModifiers::NONE), cx(Focus::Filter)),
            Some(Action::InsertMention)
        );
        assert_eq!(
            lookup(&press(Enter, KeyModifiers::NONE), cx(Focus::Prompt)),
            Some(Action::Edit(Edit::Newline))
        );
        for focus in [Focus::Filter, Focus::Prompt] {
            assert_eq!(
                lookup(&press(Enter, KeyModifiers::ALT), cx(focus)),
                Some(Action::Submit)
            );
            assert_eq!(
                lookup(&press(KeyCode::Char('s'), KeyModifiers::CONTROL), cx(focus)),
                Some(Action::Submit)
            );
        }
    }

    #[test]
    fn question_mark_is_typed_even_first_and_f1_is_help() {
        // As in fzf, `?` is a character: a query or a prompt may start with it.
        let q = press(KeyCode::Char('?'), KeyModifiers::SHIFT);
        for focus in [Focus::Filter, Focus::Prompt] {
            assert_eq!(lookup(&q, cx(focus)), Some(Action::Edit(Edit::Insert('?'))));
        }
        assert_eq!(
            lookup(&press(F(1), KeyModifiers::NONE), cx(Focus::Filter)),
            Some(Action::ToggleHelp)
        );
    }

    #[test]
    fn the_chooser_takes_its_keys_and_swallows_typing() {
        let chooser = Context {
            focus: Focus::Prompt,
            help: false,
            chooser: true,
        };
        let got = |code, mods| lookup(&press(code, mods), chooser);
        assert_eq!(got(Enter, KeyModifiers::NONE), Some(Action::Choose));
        assert_eq!(got(Esc, KeyModifiers::NONE), Some(Action::CloseChooser));
        assert_eq!(got(Down, KeyModifiers::NONE), Some(Action::ChooserMove(1)));
        assert_eq!(
            got(KeyCode::Char('p'), KeyModifiers::CONTROL),
            Some(Action::ChooserMove(-1))
        );
        assert_eq!(got(KeyCode::Char('x'), KeyModifiers::NONE), None);
        assert_eq!(got(KeyCode::Char('s'), KeyModifiers::CONTROL), None);
        // Outside it, alt-o resumes and alt-h opens it, in both inputs.
        for focus in [Focus::Filter, Focus::Prompt] {
            let alt = |c| lookup(&press(KeyCode::Char(c), KeyModifiers::ALT), cx(focus));
            assert_eq!(alt('o'), Some(Action::Resume));
            assert_eq!(alt('h'), Some(Action::Handoff));
        }
    }

    #[test]
    fn help_swallows_other_keys() {
        let help = Context {
            focus: Focus::Filter,
            help: true,
            chooser: false,
        };
        assert_eq!(
            lookup(&press(KeyCode::Char('x'), KeyModifiers::NONE), help),
            None
        );
        assert_eq!(
            lookup(&press(Esc, KeyModifiers::NONE), help),
            Some(Action::ToggleHelp)
        );
        assert_eq!(
            lookup(&press(KeyCode::Char('j'), KeyModifiers::NONE), help),
            Some(Action::HelpScroll(1))
        );
    }

    #[test]
    fn typing_and_unbound_keys() {
        let c = cx(Focus::Filter);
        assert_eq!(
            lookup(&press(KeyCode::Char('A'), KeyModifiers::SHIFT), c),
            Some(Action::Edit(Edit::Insert('A')))
        );
        assert_eq!(
            lookup(&press(KeyCode::Char('z'), KeyModifiers::CONTROL), c),
            None
        );
        let mut release = press(KeyCode::Char('a'), KeyModifiers::NONE);
        release.kind = KeyEventKind::Release;
        assert_eq!(lookup(&release, c), None);
        assert_eq!(
            lookup(&press(BackTab, KeyModifiers::SHIFT), c),
            Some(Action::ToggleFocus)
        );
    }
}
