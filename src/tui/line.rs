//! The one-line filter input and the editing operations shared with the
//! prompt buffer. Pure.

use crate::tui::text;

pub use crate::keys::Edit;

/// A single-line text input with a cursor (a byte offset on a character
/// boundary).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineInput {
    text: String,
    cursor: usize,
}

impl LineInput {
    /// An input holding `text` (line breaks become spaces), cursor at the end.
    pub fn new(text: &str) -> Self {
        let mut input = LineInput::default();
        input.insert_str(text);
        input
    }

    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The cursor's byte offset.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Whether the input is empty.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Insert `text` at the cursor; line breaks and tabs become spaces.
    pub fn insert_str(&mut self, text: &str) {
        // A line break is one space, whether `\r\n`, `\n` or a lone `\r`
        // (which terminals send for a pasted newline): pasted lines do not
        // run together.
        let clean: String = text
            .replace("\r\n", "\n")
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        self.text.insert_str(self.cursor, &clean);
        self.cursor += clean.len();
    }

    /// Apply an edit; returns whether the text changed.
    pub fn apply(&mut self, edit: Edit) -> bool {
        let before = self.text.len();
        let at = self.cursor;
        match edit {
            Edit::Insert(c) => {
                let c = if c.is_control() { ' ' } else { c };
                self.text.insert(at, c);
                self.cursor += c.len_utf8();
                return true;
            }
            Edit::Backspace => self.delete(text::prev_boundary(&self.text, at), at),
            Edit::Delete => self.delete(at, text::next_boundary(&self.text, at)),
            Edit::Left => self.cursor = text::prev_boundary(&self.text, at),
            Edit::Right => self.cursor = text::next_boundary(&self.text, at),
            Edit::WordLeft => self.cursor = text::word_left(&self.text, at),
            Edit::WordRight => self.cursor = text::word_right(&self.text, at),
            Edit::Home => self.cursor = 0,
            Edit::End => self.cursor = self.text.len(),
            Edit::DeleteWordBack => self.delete(text::rubout_start(&self.text, at), at),
            Edit::DeleteToStart => self.delete(0, at),
            Edit::Newline | Edit::Up | Edit::Down => {}
        }
        self.text.len() != before
    }

    fn delete(&mut self, from: usize, to: usize) {
        self.text.replace_range(from..to, "");
        self.cursor = from;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(text: &str) -> LineInput {
        let mut input = LineInput::default();
        for c in text.chars() {
            assert!(input.apply(Edit::Insert(c)));
        }
        input
    }

    #[test]
    fn typing_and_deleting() {
        let mut input = typed("parsé");
        assert_eq!(input.text(), "parsé");
        assert!(input.apply(Edit::Backspace));
        assert_eq!(input.text(), "pars");
        assert!(!input.apply(Edit::Left) && input.cursor() == 3);
        assert!(input.apply(Edit::Delete));
        assert_eq!(input.text(), "par");
        input.apply(Edit::Home);
        assert!(!input.apply(Edit::Backspace));
        input.apply(Edit::Insert('x'));
        assert_eq!((input.text(), input.cursor()), ("xpar", 1));
    }

    #[test]
    fn fzf_line_keys() {
        let mut input = typed("fix the parser");
        assert!(input.apply(Edit::DeleteWordBack));
        assert_eq!(input.text(), "fix the ");
        input.apply(Edit::WordLeft);
        assert_eq!(input.cursor(), 4);
        assert!(input.apply(Edit::DeleteToStart));
        assert_eq!((input.text(), input.cursor()), ("the ", 0));
        input.apply(Edit::End);
        assert_eq!(input.cursor(), 4);
        assert!(!input.apply(Edit::Newline));
    }

    #[test]
    fn pasted_line_breaks_become_spaces() {
        let mut input = LineInput::new("a\r\nb\tc");
        assert_eq!(input.text(), "a b c");
        let mut pasted = LineInput::new("");
        pasted.insert_str("retry\rwebhook\nledger\r\nkeys");
        assert_eq!(pasted.text(), "retry webhook ledger keys");
        input.apply(Edit::Insert('\n'));
        assert_eq!(input.text(), "a b c ");
    }
}
