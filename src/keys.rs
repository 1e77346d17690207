//! Every key binding of the picker, in one table, and the filter's query
//! syntax: what a key does in which context, and the words the help
//! screen, the footer and `--help` show for it. Keys follow fzf where fzf
//! has one.
//!
//! Why a module of its own, outside `tui`: the table is read by the picker
//! (`tui::keymap` turns a key press into the state machine's action) and by
//! the command line's long help, and the command line must not depend on
//! the picker. So this holds data and names only: a binding's [`Command`]
//! is a plain value that `tui::keymap` maps onto the picker's `Action`.

use crossterm::event::{KeyCode, KeyModifiers};

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
    /// While the hand-off chooser is open (and only then).
    Chooser,
}

/// One row of the table.
#[derive(Debug)]
pub struct Binding {
    /// Where it applies.
    pub when: When,
    /// The keys.
    pub keys: &'static [Key],
    /// What they do.
    pub command: Command,
    /// What the help screen says.
    pub help: &'static str,
    /// How the footer shows it, if it does.
    pub hint: Option<Hint>,
}

/// A binding's entry in the footer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hint {
    /// Priority and footer order (lower first; when the footer is too
    /// narrow, the hints of the highest numbers give way first).
    pub order: u8,
    /// The word shown after the keys.
    pub word: &'static str,
    /// How many of the binding's keys are shown when there is room
    /// (`alt-enter/ctrl-s`); a narrow footer shows the first only.
    pub keys: usize,
    /// Shown only when saved drafts exist (what `alt-r` restores).
    pub needs_drafts: bool,
}

/// What a binding does: a plain value, mapped onto the picker's action by
/// `tui::keymap`. The names are the action's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// Open or close the help screen.
    ToggleHelp,
    /// Scroll the help screen by lines.
    HelpScroll(isize),
    /// Leave without output (exit 130).
    Abort,
    /// Prepare the prompt and finish.
    Submit,
    /// Switch focus between filter and prompt.
    ToggleFocus,
    /// Insert the highlighted candidate's mention.
    InsertMention,
    /// Move the highlight by candidates.
    Move(isize),
    /// Move the highlight by pages.
    Page(isize),
    /// Scroll the preview by lines.
    PreviewScroll(isize),
    /// Scroll the preview by pages.
    PreviewPage(isize),
    /// Scroll the preview to its end (`true`) or start.
    PreviewEdge(bool),
    /// Switch the preview between by role and raw.
    TogglePreviewMode,
    /// Hide or show the preview (the list takes its room).
    TogglePreview,
    /// Switch between all sessions and this directory's.
    ToggleScope,
    /// Switch the filter between titles and conversation search.
    ToggleSearch,
    /// Switch the order between last activity and creation.
    ToggleSort,
    /// Edit the prompt in `$EDITOR`.
    OpenEditor,
    /// Restore a draft an earlier run saved.
    RestoreDraft,
    /// Resume the highlighted session with its own agent.
    Resume,
    /// Open the chooser of the agent to hand the highlighted session to.
    Handoff,
    /// Move the chooser's highlight.
    ChooserMove(isize),
    /// Hand off to the chooser's highlighted agent.
    Choose,
    /// Close the chooser.
    CloseChooser,
    /// Edit the focused input.
    Edit(Edit),
}

/// An editing operation on the focused input (what keys map to).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edit {
    /// Insert a character at the cursor.
    Insert(char),
    /// Insert a line break (the prompt only).
    Newline,
    /// Delete the character (or mention) before the cursor.
    Backspace,
    /// Delete the character (or mention) under the cursor.
    Delete,
    /// Move one character (or mention) left.
    Left,
    /// Move one character (or mention) right.
    Right,
    /// Move to the start of the previous word.
    WordLeft,
    /// Move to the end of the next word.
    WordRight,
    /// Move to the start of the line.
    Home,
    /// Move to the end of the line.
    End,
    /// Move one row up (the prompt only).
    Up,
    /// Move one row down (the prompt only).
    Down,
    /// Delete back to the start of the previous word (ctrl-w).
    DeleteWordBack,
    /// Delete back to the start of the line (ctrl-u).
    DeleteToStart,
}

const fn bind(when: When, keys: &'static [Key], command: Command, help: &'static str) -> Binding {
    Binding {
        when,
        keys,
        command,
        help,
        hint: None,
    }
}

impl Binding {
    /// Show this binding in the footer.
    const fn hint(mut self, order: u8, word: &'static str, keys: usize) -> Binding {
        self.hint = Some(Hint {
            order,
            word,
            keys,
            needs_drafts: false,
        });
        self
    }

    /// Show its footer hint only when saved drafts exist.
    const fn with_drafts(mut self) -> Binding {
        if let Some(hint) = self.hint.as_mut() {
            hint.needs_drafts = true;
        }
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
    bind(When::Chooser, &[key(Esc), ctrl('c'), ctrl('g')], Command::CloseChooser, "close the chooser"),
    bind(When::Chooser, &[key(Enter)], Command::Choose, "hand the session off to the highlighted agent"),
    bind(When::Chooser, &[key(Up), ctrl('k'), ctrl('p')], Command::ChooserMove(-1), "previous agent"),
    bind(When::Chooser, &[key(Down), ctrl('j'), ctrl('n')], Command::ChooserMove(1), "next agent"),
    bind(When::Help, &[key(Esc), key(Enter), key(F(1)), key(KeyCode::Char('?')), key(KeyCode::Char('q'))], Command::ToggleHelp, "close this help"),
    bind(When::Help, &[ctrl('c'), ctrl('g')], Command::Abort, "abort: exit 130, nothing written"),
    bind(When::Help, &[key(Up), key(KeyCode::Char('k')), ctrl('k'), ctrl('p')], Command::HelpScroll(-1), "scroll up"),
    bind(When::Help, &[key(Down), key(KeyCode::Char('j')), ctrl('j'), ctrl('n')], Command::HelpScroll(1), "scroll down"),
    bind(When::Help, &[key(PageUp)], Command::HelpScroll(-10), "page up"),
    bind(When::Help, &[key(PageDown), key(KeyCode::Char(' '))], Command::HelpScroll(10), "page down"),
    bind(When::Always, &[key(Esc), ctrl('c'), ctrl('g')], Command::Abort, "abort: exit 130, nothing written").hint(3, "quit", 1),
    bind(When::Always, &[alt(Enter), ctrl('s')], Command::Submit, "submit: prepare the prompt and send it").hint(1, "submit", 2),
    bind(When::Always, &[key(Tab), shift(BackTab), key(BackTab)], Command::ToggleFocus, "move focus between filter and prompt").hint(2, "focus", 1),
    bind(When::Filter, &[key(Enter)], Command::InsertMention, "insert the highlighted session's mention in the prompt").hint(0, "insert", 1),
    bind(When::Always, &[ctrl('j'), ctrl('n')], Command::Move(1), "next candidate").hint(11, "next", 1),
    bind(When::Always, &[ctrl('k'), ctrl('p')], Command::Move(-1), "previous candidate"),
    bind(When::Filter, &[key(Down)], Command::Move(1), "next candidate"),
    bind(When::Filter, &[key(Up)], Command::Move(-1), "previous candidate"),
    bind(When::Always, &[key(PageDown)], Command::Page(1), "candidates: page down"),
    bind(When::Always, &[key(PageUp)], Command::Page(-1), "candidates: page up"),
    bind(When::Always, &[shift(Down)], Command::PreviewScroll(1), "preview: scroll down"),
    bind(When::Always, &[shift(Up)], Command::PreviewScroll(-1), "preview: scroll up"),
    bind(When::Always, &[shift(PageDown), alt(KeyCode::Char('d'))], Command::PreviewPage(1), "preview: page down"),
    bind(When::Always, &[shift(PageUp), alt(KeyCode::Char('u'))], Command::PreviewPage(-1), "preview: page up"),
    bind(When::Always, &[shift(Home), alt(KeyCode::Char('<'))], Command::PreviewEdge(false), "preview: the oldest kept message"),
    bind(When::Always, &[shift(End), alt(KeyCode::Char('>'))], Command::PreviewEdge(true), "preview: the newest kept message"),
    bind(When::Always, &[ctrl('r')], Command::TogglePreviewMode, "preview: by role / the raw text that will be sent").hint(9, "raw", 1),
    // ctrl-/ arrives as 0x1f in most terminals, which crossterm reads as ctrl-7.
    bind(When::Always, &[ctrl('/'), ctrl('7')], Command::TogglePreview, "preview: hide / show (the list takes its room)"),
    bind(When::Always, &[ctrl('o')], Command::ToggleScope, "candidates: this directory (and below) / all").hint(7, "dir", 1),
    bind(When::Always, &[ctrl('t')], Command::ToggleSearch, "filter: titles / what was said (conversation search)").hint(5, "search", 1),
    bind(When::Always, &[alt(KeyCode::Char('s'))], Command::ToggleSort, "candidates: by last activity / by creation").hint(8, "sort", 1),
    bind(When::Always, &[alt(KeyCode::Char('e'))], Command::OpenEditor, "edit the prompt in $VISUAL / $EDITOR").hint(10, "editor", 1),
    bind(When::Always, &[alt(KeyCode::Char('r'))], Command::RestoreDraft, "restore the prompt an earlier run saved (again: an older one)").hint(6, "drafts", 1).with_drafts(),
    bind(When::Always, &[key(F(1))], Command::ToggleHelp, "show all keys").hint(4, "keys", 1),
    bind(When::Always, &[alt(KeyCode::Char('o'))], Command::Resume, "resume the highlighted session with its own agent, in its directory").hint(12, "resume", 1),
    bind(When::Always, &[alt(KeyCode::Char('h'))], Command::Handoff, "hand the highlighted session off to another agent (asks which)").hint(13, "handoff", 1),
    bind(When::Prompt, &[key(Enter)], Command::Edit(Edit::Newline), "new line"),
    bind(When::Prompt, &[key(Up)], Command::Edit(Edit::Up), "cursor up a row"),
    bind(When::Prompt, &[key(Down)], Command::Edit(Edit::Down), "cursor down a row"),
    bind(When::Always, &[key(Backspace), ctrl('h')], Command::Edit(Edit::Backspace), "delete back (a mention as a whole)"),
    bind(When::Always, &[key(Delete)], Command::Edit(Edit::Delete), "delete forward"),
    bind(When::Always, &[key(Left), ctrl('b')], Command::Edit(Edit::Left), "cursor left"),
    bind(When::Always, &[key(Right), ctrl('f')], Command::Edit(Edit::Right), "cursor right"),
    bind(When::Always, &[alt(KeyCode::Char('b')), Key { code: Left, mods: KeyModifiers::CONTROL }], Command::Edit(Edit::WordLeft), "word left"),
    bind(When::Always, &[alt(KeyCode::Char('f')), Key { code: Right, mods: KeyModifiers::CONTROL }], Command::Edit(Edit::WordRight), "word right"),
    bind(When::Always, &[key(Home), ctrl('a')], Command::Edit(Edit::Home), "start of line"),
    bind(When::Always, &[key(End), ctrl('e')], Command::Edit(Edit::End), "end of line"),
    bind(When::Always, &[ctrl('u')], Command::Edit(Edit::DeleteToStart), "delete to start of line"),
    bind(When::Always, &[ctrl('w'), alt(Backspace)], Command::Edit(Edit::DeleteWordBack), "delete word back"),
];

impl When {
    /// Whether a binding for `self` applies while the hand-off chooser
    /// (`chooser`) or the help screen is open (`help`) or neither, with
    /// the prompt focused (`prompt`) or the filter.
    pub fn applies(self, chooser: bool, help: bool, prompt: bool) -> bool {
        match self {
            When::Chooser => chooser,
            _ if chooser => false,
            When::Help => help,
            _ if help => false,
            When::Always => true,
            When::Filter => !prompt,
            When::Prompt => prompt,
        }
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

/// The name of the first key bound to `command` outside the help screen
/// (for messages that name a key), `None` when nothing is.
pub fn key_for(command: Command) -> Option<String> {
    BINDINGS
        .iter()
        .find(|b| !matches!(b.when, When::Help | When::Chooser) && b.command == command)
        .and_then(|b| b.keys.first())
        .map(|k| key_name(*k))
}

/// A footer hint as it can be shown: with every key it names, or with its
/// first key only when the footer is short of room.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FooterHint {
    /// The keys, `/`-separated (`alt-enter/ctrl-s`).
    pub keys: String,
    /// The first key alone (`alt-enter`).
    pub first_key: String,
    /// The word after the keys.
    pub word: &'static str,
}

/// The footer's hints with the prompt focused (`prompt`) or the filter,
/// highest priority first; `drafts`: whether saved drafts exist.
pub fn hints(prompt: bool, drafts: bool) -> Vec<FooterHint> {
    let mut shown: Vec<(u8, FooterHint)> = BINDINGS
        .iter()
        .filter(|b| b.when.applies(false, false, prompt))
        .filter_map(|b| {
            let hint = b.hint.filter(|h| drafts || !h.needs_drafts)?;
            let names: Vec<String> = b
                .keys
                .iter()
                .take(hint.keys)
                .map(|k| key_name(*k))
                .collect();
            Some((
                hint.order,
                FooterHint {
                    keys: names.join("/"),
                    first_key: names.first().cloned().unwrap_or_default(),
                    word: hint.word,
                },
            ))
        })
        .collect();
    shown.sort_by_key(|(order, _)| *order);
    shown.into_iter().map(|(_, hint)| hint).collect()
}

/// One element of a query syntax: what is typed, and what it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Syntax {
    /// As typed (`'exact`).
    pub example: &'static str,
    /// What it matches.
    pub means: &'static str,
}

const fn syntax(example: &'static str, means: &'static str) -> Syntax {
    Syntax { example, means }
}

/// The title filter's query syntax (fzf's extended search), as
/// `session_ref_engine::rank` implements it: the help screen, `--help` and the README
/// say this and nothing else.
pub static FILTER_SYNTAX: &[Syntax] = &[
    syntax(
        "word",
        "fuzzy: its characters in this order (prsr finds parser)",
    ),
    syntax("a b", "both terms, in any order"),
    syntax("'word", "exact: found as typed"),
    syntax("^word", "starts with it"),
    syntax("word$", "ends with it (^word$: is exactly it)"),
    syntax("!word", "sessions without it (!^word and !word$ too)"),
    syntax("a | b", "either term"),
    syntax("Word", "an upper-case letter makes the term case-sensitive"),
    syntax(
        "dir/",
        "a / matches the whole cwd, not only its last directory",
    ),
    syntax("a\\ b", "a space inside a term"),
];

/// The conversation search's query syntax (`ctrl-t`, and `search`
/// without `re:`), as `search::query` implements it.
pub static SEARCH_SYNTAX: &[Syntax] = &[
    syntax(
        "words",
        "every word appears somewhere in the session (smart case)",
    ),
    syntax("\"a phrase\"", "appears exactly so"),
    syntax("re:REGEX", "a regular expression (Rust regex syntax)"),
];

/// One row of the help: a heading, a binding or syntax entry, or a note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HelpRow {
    /// A section's title.
    Heading(String),
    /// Keys (or what is typed) and what they do.
    Entry {
        /// The keys, space-separated, or the syntax as typed.
        keys: String,
        /// What they do.
        what: &'static str,
    },
    /// A closing remark.
    Note(&'static str),
}

/// The help's rows: the bindings by context, then the query syntax of
/// the filter and of conversation search.
pub fn help_rows() -> Vec<HelpRow> {
    let handoff_key = key_for(Command::Handoff).unwrap_or_else(|| "unbound".to_owned());
    let sections = [
        (When::Always, "Anywhere".to_owned()),
        (When::Filter, "Filter (the query line)".to_owned()),
        (When::Prompt, "Prompt (the message)".to_owned()),
        (When::Chooser, format!("Hand-off chooser ({handoff_key})")),
    ];
    let mut rows = Vec::new();
    for (when, title) in sections {
        rows.push(HelpRow::Heading(title));
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
                rows.push(HelpRow::Entry {
                    keys,
                    what: binding.help,
                });
            }
        }
    }
    let search_key = key_for(Command::ToggleSearch).unwrap_or_else(|| "unbound".to_owned());
    for (title, table) in [
        (
            "Filter syntax (titles count most, then cwd and id)".to_owned(),
            FILTER_SYNTAX,
        ),
        (
            format!("Conversation search syntax ({search_key})"),
            SEARCH_SYNTAX,
        ),
    ] {
        rows.push(HelpRow::Heading(title));
        rows.extend(table.iter().map(|s| HelpRow::Entry {
            keys: s.example.to_owned(),
            what: s.means,
        }));
    }
    rows.push(HelpRow::Note(
        "Typing goes to the focused input; mentions are edited as one @chip.",
    ));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_binding_is_reachable() {
        // A key listed twice for the same context would shadow a later row.
        for (i, binding) in BINDINGS.iter().enumerate() {
            for k in binding.keys {
                let earlier = BINDINGS[..i].iter().any(|b| {
                    let modal = matches!(binding.when, When::Help | When::Chooser);
                    let overlaps = b.when == binding.when || (b.when == When::Always && !modal);
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
        let entry = |keys: &str| {
            rows.iter()
                .any(|r| matches!(r, HelpRow::Entry { keys: k, .. } if k == keys))
        };
        assert!(entry("alt-enter ctrl-s"));
        assert!(entry("ctrl-j ctrl-n"));
    }

    #[test]
    fn search_and_drafts_have_footer_hints() {
        let words = |prompt, drafts| -> Vec<&'static str> {
            hints(prompt, drafts).into_iter().map(|h| h.word).collect()
        };
        for prompt in [false, true] {
            assert!(words(prompt, false).contains(&"search"));
            assert!(!words(prompt, false).contains(&"drafts"));
            assert!(words(prompt, true).contains(&"drafts"));
        }
        let submit = hints(false, false)
            .into_iter()
            .find(|h| h.word == "submit")
            .unwrap();
        assert_eq!(
            (submit.keys.as_str(), submit.first_key.as_str()),
            ("alt-enter/ctrl-s", "alt-enter")
        );
    }

    #[test]
    fn the_help_documents_both_query_syntaxes() {
        let rows = help_rows();
        let heading = |text: &str| {
            rows.iter()
                .any(|r| matches!(r, HelpRow::Heading(h) if h.starts_with(text)))
        };
        assert!(heading("Filter syntax"));
        assert!(heading("Conversation search syntax (ctrl-t)"));
        for s in FILTER_SYNTAX.iter().chain(SEARCH_SYNTAX) {
            assert!(rows.contains(&HelpRow::Entry {
                keys: s.example.to_owned(),
                what: s.means,
            }));
        }
    }
}
