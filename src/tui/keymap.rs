//! Every key binding of the picker, in one table: what a key does in which
//! context, and the words the help screen and the footer show for it. Keys
//! follow fzf where fzf has one.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::tui::line::Edit;
use crate::tui::state::{Action, Focus};

/// A key with its modifiers (shift is implied by the character for text keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    /// The key.
    pub code: KeyCode,
    /// Control, alt, shift.
    pub mods: KeyModifiers,
}

const fn key(code: KeyCode) -> Key {
    Key {
        code,
        mods: KeyModifiers::NONE,
    }
}

const fn ctrl(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        mods: KeyModifiers::CONTROL,
    }
}

const fn alt(code: KeyCode) -> Key {
    Key {
        code,
        mods: KeyModifiers::ALT,
    }
}

const fn shift(code: KeyCode) -> Key {
    Key {
        code,
        mods: KeyModifiers::SHIFT,
    }
}

/// When a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// While the help screen is open (and only then).
    Help,
    /// Whatever has the focus.
    Always,
    /// When the filter has the focus.
    Filter,
    /// When the prompt has the focus.
    Prompt,
}

/// One row of the table.
#[derive(Debug)]
pub struct Binding {
    /// Where it applies.
    pub when: When,
    /// The keys.
    pub keys: &'static [Key],
    /// What they do.
    pub action: Action,
    /// What the help screen says.
    pub help: &'static str,
    /// How the footer shows it, if it does.
    pub hint: Option<Hint>,
}

/// A binding's entry in the footer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hint {
    /// Footer order (lower first; the footer drops the last that do not fit).
    pub order: u8,
    /// The word shown after the keys.
    pub word: &'static str,
    /// How many of the binding's keys are shown (`alt-enter/ctrl-s`).
    pub keys: usize,
}

const fn bind(when: When, keys: &'static [Key], action: Action, help: &'static str) -> Binding {
    Binding {
        when,
        keys,
        action,
        help,
        hint: None,
    }
}

impl Binding {
    /// Show this binding in the footer.
    const fn hint(mut self, order: u8, word: &'static str, keys: usize) -> Binding {
        self.hint = Some(Hint { order, word, keys });
        self
    }
}

use KeyCode::{
    BackTab, Backspace, Delete, Down, End, Enter, Esc, Home, Left, PageDown, PageUp, Right, Tab,
    Up, F,
};

/// The bindings, first match wins. Unbound printable characters are typed
/// into the focused input.
#[rustfmt::skip]
pub static BINDINGS: &[Binding] = &[
    bind(When::Help, &[key(Esc), key(Enter), key(F(1)), key(KeyCode::Char('?')), key(KeyCode::Char('q'))], Action::ToggleHelp, "close this help"),
    bind(When::Help, &[ctrl('c'), ctrl('g')], Action::Abort, "abort: exit 130, nothing written"),
    bind(When::Help, &[key(Up), key(KeyCode::Char('k')), ctrl('k'), ctrl('p')], Action::HelpScroll(-1), "scroll up"),
    bind(When::Help, &[key(Down), key(KeyCode::Char('j')), ctrl('j'), ctrl('n')], Action::HelpScroll(1), "scroll down"),
    bind(When::Help, &[key(PageUp)], Action::HelpScroll(-10), "page up"),
    bind(When::Help, &[key(PageDown), key(KeyCode::Char(' '))], Action::HelpScroll(10), "page down"),
    bind(When::Always, &[key(Esc), ctrl('c'), ctrl('g')], Action::Abort, "abort: exit 130, nothing written").hint(3, "quit", 1),
    bind(When::Always, &[alt(Enter), ctrl('s')], Action::Submit, "submit: prepare the prompt and send it").hint(1, "submit", 2),
    bind(When::Always, &[key(Tab), shift(BackTab), key(BackTab)], Action::ToggleFocus, "move focus between filter and prompt").hint(2, "focus", 1),
    bind(When::Filter, &[key(Enter)], Action::InsertMention, "insert the highlighted session's mention in the prompt").hint(0, "insert", 1),
    bind(When::Always, &[ctrl('j'), ctrl('n')], Action::Move(1), "next candidate").hint(9, "next", 1),
    bind(When::Always, &[ctrl('k'), ctrl('p')], Action::Move(-1), "previous candidate"),
    bind(When::Filter, &[key(Down)], Action::Move(1), "next candidate"),
    bind(When::Filter, &[key(Up)], Action::Move(-1), "previous candidate"),
    bind(When::Always, &[key(PageDown)], Action::Page(1), "candidates: page down"),
    bind(When::Always, &[key(PageUp)], Action::Page(-1), "candidates: page up"),
    bind(When::Always, &[shift(Down)], Action::PreviewScroll(1), "preview: scroll down"),
    bind(When::Always, &[shift(Up)], Action::PreviewScroll(-1), "preview: scroll up"),
    bind(When::Always, &[shift(PageDown), alt(KeyCode::Char('d'))], Action::PreviewPage(1), "preview: page down"),
    bind(When::Always, &[shift(PageUp), alt(KeyCode::Char('u'))], Action::PreviewPage(-1), "preview: page up"),
    bind(When::Always, &[shift(Home), alt(KeyCode::Char('<'))], Action::PreviewEdge(false), "preview: the oldest kept message"),
    bind(When::Always, &[shift(End), alt(KeyCode::Char('>'))], Action::PreviewEdge(true), "preview: the newest kept message"),
    bind(When::Always, &[ctrl('r')], Action::TogglePreviewMode, "preview: by role / the raw text that will be sent").hint(7, "raw", 1),
    // ctrl-/ arrives as 0x1f in most terminals, which crossterm reads as ctrl-7.
    bind(When::Always, &[ctrl('/'), ctrl('7')], Action::TogglePreview, "preview: hide / show (the list takes its room)"),
    bind(When::Always, &[ctrl('o')], Action::ToggleScope, "candidates: this directory (and below) / all").hint(5, "dir", 1),
    bind(When::Always, &[ctrl('t')], Action::ToggleSearch, "filter: titles / what was said (conversation search)"),
    bind(When::Always, &[alt(KeyCode::Char('s'))], Action::ToggleSort, "candidates: by last activity / by creation").hint(6, "sort", 1),
    bind(When::Always, &[alt(KeyCode::Char('e'))], Action::OpenEditor, "edit the prompt in $VISUAL / $EDITOR").hint(8, "editor", 1),
    bind(When::Always, &[alt(KeyCode::Char('r'))], Action::RestoreDraft, "restore the prompt an earlier run saved"),
    bind(When::Always, &[key(F(1))], Action::ToggleHelp, "show all keys").hint(4, "keys", 1),
    bind(When::Prompt, &[key(Enter)], Action::Edit(Edit::Newline), "new line"),
    bind(When::Prompt, &[key(Up)], Action::Edit(Edit::Up), "cursor up a row"),
    bind(When::Prompt, &[key(Down)], Action::Edit(Edit::Down), "cursor down a row"),
    bind(When::Always, &[key(Backspace), ctrl('h')], Action::Edit(Edit::Backspace), "delete back (a mention as a whole)"),
    bind(When::Always, &[key(Delete)], Action::Edit(Edit::Delete), "delete forward"),
    bind(When::Always, &[key(Left), ctrl('b')], Action::Edit(Edit::Left), "cursor left"),
    bind(When::Always, &[key(Right), ctrl('f')], Action::Edit(Edit::Right), "cursor right"),
    bind(When::Always, &[alt(KeyCode::Char('b')), Key { code: Left, mods: KeyModifiers::CONTROL }], Action::Edit(Edit::WordLeft), "word left"),
    bind(When::Always, &[alt(KeyCode::Char('f')), Key { code: Right, mods: KeyModifiers::CONTROL }], Action::Edit(Edit::WordRight), "word right"),
    bind(When::Always, &[key(Home), ctrl('a')], Action::Edit(Edit::Home), "start of line"),
    bind(When::Always, &[key(End), ctrl('e')], Action::Edit(Edit::End), "end of line"),
    bind(When::Always, &[ctrl('u')], Action::Edit(Edit::DeleteToStart), "delete to start of line"),
    bind(When::Always, &[ctrl('w'), alt(Backspace)], Action::Edit(Edit::DeleteWordBack), "delete word back"),
];

/// What the lookup needs to know about the picker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Context {
    /// Which input has the focus.
    pub focus: Focus,
    /// Whether the help screen is open.
    pub help: bool,
}

impl When {
    fn applies(self, cx: Context) -> bool {
        match self {
            When::Help => cx.help,
            _ if cx.help => false,
            When::Always => true,
            When::Filter => cx.focus == Focus::Filter,
            When::Prompt => cx.focus == Focus::Prompt,
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
        .filter(|b| b.when.applies(cx))
        .find(|b| b.keys.contains(&pressed));
    if let Some(binding) = bound {
        return Some(binding.action.clone());
    }
    match pressed {
        Key {
            code: KeyCode::Char(c),
            mods: KeyModifiers::NONE,
        } if !cx.help => Some(Action::Edit(Edit::Insert(c))),
        _ => None,
    }
}

/// How a key is written in the help and the footer: `ctrl-j`, `alt-enter`.
pub fn key_name(key: Key) -> String {
    let mut out = String::new();
    for (flag, name) in [
        (KeyModifiers::CONTROL, "ctrl-"),
        (KeyModifiers::ALT, "alt-"),
        (KeyModifiers::SHIFT, "shift-"),
    ] {
        if key.mods.contains(flag) && !(flag == KeyModifiers::SHIFT && key.code == BackTab) {
            out.push_str(name);
        }
    }
    let name = match key.code {
        KeyCode::Char(' ') => "space".to_owned(),
        // What a terminal sends for ctrl-/ (0x1f) reads as ctrl-7.
        KeyCode::Char('7') if key.mods.contains(KeyModifiers::CONTROL) => "/".to_owned(),
        KeyCode::Char(c) => c.to_string(),
        Enter => "enter".to_owned(),
        Esc => "esc".to_owned(),
        Tab => "tab".to_owned(),
        BackTab => "shift-tab".to_owned(),
        Backspace => "bspace".to_owned(),
        Delete => "del".to_owned(),
        Up => "up".to_owned(),
        Down => "down".to_owned(),
        Left => "left".to_owned(),
        Right => "right".to_owned(),
        Home => "home".to_owned(),
        End => "end".to_owned(),
        PageUp => "pgup".to_owned(),
        PageDown => "pgdn".to_owned(),
        F(n) => format!("f{n}"),
        other => format!("{other:?}").to_lowercase(),
    };
    out.push_str(&name);
    out
}

/// The name of the first key bound to `action` outside the help screen
/// (for messages that name a key), `None` when nothing is.
pub fn key_for(action: &Action) -> Option<String> {
    BINDINGS
        .iter()
        .find(|b| b.when != When::Help && b.action == *action)
        .and_then(|b| b.keys.first())
        .map(|k| key_name(*k))
}

/// The footer's hints for a focus, in order: (keys, word).
pub fn hints(focus: Focus) -> Vec<(String, &'static str)> {
    let cx = Context { focus, help: false };
    let mut shown: Vec<(u8, String, &'static str)> = BINDINGS
        .iter()
        .filter(|b| b.when.applies(cx))
        .filter_map(|b| {
            let hint = b.hint?;
            let keys: Vec<String> = b
                .keys
                .iter()
                .take(hint.keys)
                .map(|k| key_name(*k))
                .collect();
            Some((hint.order, keys.join("/"), hint.word))
        })
        .collect();
    shown.sort_by_key(|(order, ..)| *order);
    shown
        .into_iter()
        .map(|(_, keys, word)| (keys, word))
        .collect()
}

/// The help screen's rows: section titles (`None` keys) and `(keys, what)`.
pub fn help_rows() -> Vec<(Option<String>, &'static str)> {
    let sections = [
        (When::Always, "Anywhere"),
        (When::Filter, "Filter (the query line)"),
        (When::Prompt, "Prompt (the message)"),
    ];
    let mut rows = Vec::new();
    for (when, title) in sections {
        rows.push((None, title));
        let mut seen: Vec<String> = Vec::new();
        for binding in BINDINGS.iter().filter(|b| b.when == when) {
            let mut names: Vec<String> = Vec::new();
            for k in binding.keys {
                let name = key_name(*k);
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            let keys = names.join(" ");
            if !seen.contains(&keys) {
                seen.push(keys.clone());
                rows.push((Some(keys), binding.help));
            }
        }
    }
    rows.push((
        None,
        "Typing goes to the focused input; mentions are edited as one @chip.",
    ));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    fn cx(focus: Focus) -> Context {
        Context { focus, help: false }
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
    fn help_swallows_other_keys() {
        let help = Context {
            focus: Focus::Filter,
            help: true,
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
            assert_eq!(key_name(ctrl(c)), "ctrl-/");
        }
        assert!(help_rows()
            .iter()
            .any(|(k, _)| k.as_deref() == Some("ctrl-/")));
    }

    #[test]
    fn every_binding_is_reachable() {
        // A key listed twice for the same context would shadow a later row.
        for (i, binding) in BINDINGS.iter().enumerate() {
            for k in binding.keys {
                let earlier = BINDINGS[..i].iter().any(|b| {
                    let overlaps = b.when == binding.when
                        || (b.when == When::Always && binding.when != When::Help);
                    overlaps && b.keys.contains(k)
                });
                assert!(
                    !earlier,
                    "{} is shadowed in {:?}",
                    key_name(*k),
                    binding.when
                );
            }
        }
        let rows = help_rows();
        assert!(rows
            .iter()
            .any(|(k, _)| k.as_deref() == Some("alt-enter ctrl-s")));
        assert!(rows
            .iter()
            .any(|(k, _)| k.as_deref() == Some("ctrl-j ctrl-n")));
    }
}
