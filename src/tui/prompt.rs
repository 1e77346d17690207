//! The prompt buffer: multi-line text in which mentions are edited as single
//! units and drawn as readable `@label` chips.
//!
//! The text, canonical mentions included, is the source of truth: chips are
//! found by scanning it with [`mention::scan`] after every change, so what is
//! submitted is exactly what the buffer holds. The cursor never rests inside
//! a mention. Pure.

use std::ops::Range;

use crate::display;
use crate::error::Result;
use crate::tui::line::Edit;
use crate::tui::text;
use session_ref_core::mention::{self, MentionSpan, ParsedText};
use session_ref_core::uri;

/// The multi-line prompt with its cursor (a byte offset).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prompt {
    text: String,
    cursor: usize,
    spans: Vec<MentionSpan>,
}

/// What one display unit of the prompt is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnitKind {
    /// One character of text.
    Char(char),
    /// A mention, drawn as `@label`.
    Chip {
        /// The readable text, `@` included.
        text: String,
        /// Whether its URI decodes (an invalid one fails the submit).
        valid: bool,
        /// The session id its URI decodes to.
        id: Option<String>,
    },
}

/// One display unit: a character or a whole mention.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// Byte range in the buffer.
    pub range: Range<usize>,
    /// What it is.
    pub kind: UnitKind,
    /// Terminal columns.
    pub width: usize,
}

/// One visual row of the wrapped prompt.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Row {
    /// Byte offset where the row starts.
    pub start: usize,
    /// Byte offset where the row ends (before a line break).
    pub end: usize,
    /// Its units, left to right.
    pub units: Vec<Unit>,
}

/// The prompt wrapped to a width, with the cursor's row and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Visual rows (at least one).
    pub rows: Vec<Row>,
    /// Cursor row (may be one past the last row when the last is full).
    pub cursor_row: usize,
    /// Cursor column.
    pub cursor_col: usize,
}

impl Prompt {
    /// A prompt holding `text`, cursor at the end.
    pub fn new(text: &str) -> Self {
        let mut prompt = Prompt::default();
        prompt.set_text(text);
        prompt
    }

    /// The buffer, canonical mentions included.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The cursor's byte offset.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Whether the buffer is empty.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// The mentions in the buffer, in order.
    pub fn mentions(&self) -> &[MentionSpan] {
        &self.spans
    }

    /// Replace the whole buffer (e.g. after `$EDITOR`); cursor at the end.
    pub fn set_text(&mut self, text: &str) {
        self.text = normalize_breaks(text);
        self.cursor = self.text.len();
        self.rescan();
    }

    /// Insert `text` at the cursor (a paste); `\r\n` and `\r` become `\n`.
    pub fn insert_str(&mut self, text: &str) {
        self.cursor = self.snap_end(self.cursor);
        let text = normalize_breaks(text);
        self.text.insert_str(self.cursor, &text);
        self.cursor += text.len();
        self.rescan();
    }

    /// Insert a canonical mention at the cursor, separated from the words
    /// around it by one space, and move the cursor past it.
    pub fn insert_mention(&mut self, mention: &str) {
        self.cursor = self.snap_end(self.cursor);
        let before = self.text[..self.cursor].chars().next_back();
        let after = self.text[self.cursor..].chars().next();
        let mut insert = String::with_capacity(mention.len() + 2);
        if before.is_some_and(|c| !c.is_whitespace()) {
            insert.push(' ');
        }
        insert.push_str(mention);
        if !after.is_some_and(char::is_whitespace) {
            insert.push(' ');
        }
        self.text.insert_str(self.cursor, &insert);
        self.cursor += insert.len();
        self.rescan();
    }

    /// The text to submit: the buffer without the space the picker put
    /// after a mention that ends it.
    pub fn submitted(&self) -> &str {
        match self.text.strip_suffix(' ') {
            Some(rest) if self.spans.last().is_some_and(|s| s.range.end == rest.len()) => rest,
            _ => &self.text,
        }
    }

    /// The buffer parsed as `prepare` parses it: readable text and references.
    pub fn parse(&self) -> Result<ParsedText> {
        Ok(mention::parse_text(&self.text)?)
    }

    /// Distinct ids of the decodable mentions, in first-mention order.
    pub fn referenced_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = Vec::new();
        for span in &self.spans {
            if let Ok(id) = uri::decode(&self.text[span.uri.clone()]) {
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
        }
        ids
    }

    /// Apply an edit; `width` is the wrap width (for up and down). Returns
    /// whether the text changed.
    pub fn apply(&mut self, edit: Edit, width: usize) -> bool {
        let at = self.cursor;
        match edit {
            Edit::Insert(c) => {
                let mut buf = [0; 4];
                self.insert_str(c.encode_utf8(&mut buf));
                return true;
            }
            Edit::Newline => {
                self.insert_str("\n");
                return true;
            }
            Edit::Backspace => {
                if let Some(span) = self.span_at_or_before(at) {
                    return self.delete(span);
                }
                return self.delete(text::prev_boundary(&self.text, at)..at);
            }
            Edit::Delete => {
                if let Some(span) = self.span_at_or_after(at) {
                    return self.delete(span);
                }
                return self.delete(at..text::next_boundary(&self.text, at));
            }
            Edit::DeleteWordBack => {
                let from = match self.span_at_or_before(at) {
                    Some(span) => span.start,
                    None => self.snap_start(text::rubout_start(&self.text, at)),
                };
                return self.delete(from..at);
            }
            Edit::DeleteToStart => {
                let from = self.snap_start(text::line_start(&self.text, at));
                return self.delete(from..at);
            }
            Edit::Left => {
                self.cursor = match self.span_at_or_before(at) {
                    Some(span) => span.start,
                    None => self.snap_start(text::prev_boundary(&self.text, at)),
                }
            }
            Edit::Right => {
                self.cursor = match self.span_at_or_after(at) {
                    Some(span) => span.end,
                    None => self.snap_end(text::next_boundary(&self.text, at)),
                }
            }
            Edit::WordLeft => {
                self.cursor = match self.span_at_or_before(at) {
                    Some(span) => span.start,
                    None => self.snap_start(text::word_left(&self.text, at)),
                }
            }
            Edit::WordRight => {
                self.cursor = match self.span_at_or_after(at) {
                    Some(span) => span.end,
                    None => self.snap_end(text::word_right(&self.text, at)),
                }
            }
            Edit::Home => self.cursor = self.snap_start(text::line_start(&self.text, at)),
            Edit::End => self.cursor = self.snap_end(text::line_end(&self.text, at)),
            Edit::Up => self.move_rows(-1, width),
            Edit::Down => self.move_rows(1, width),
        }
        false
    }

    /// Wrap to `width` columns (at least 1) at word boundaries, and place
    /// the cursor. A row breaks after its last space, so a continuation row
    /// starts with a word; a word wider than the row is cut. Hand-written
    /// rather than `textwrap`: a chip is one unbreakable unit and every row
    /// keeps the byte range it covers, which cursor movement needs.
    pub fn layout(&self, width: usize) -> Layout {
        let width = width.max(1);
        let mut rows = Vec::new();
        let mut row = Row::default();
        let mut used = 0;
        // Units in `row` up to and including its last space, and their width.
        let mut last_break: Option<(usize, usize)> = None;
        let mut pos = 0;
        let mut spans = self.spans.iter().peekable();
        while pos < self.text.len() {
            while spans.next_if(|s| s.range.end <= pos).is_some() {}
            let unit = match spans.peek() {
                Some(span) if span.range.start == pos => self.chip(span),
                _ => {
                    let c = self.text[pos..].chars().next().expect("char boundary");
                    if c == '\n' {
                        row.end = pos;
                        rows.push(std::mem::take(&mut row));
                        row.start = pos + 1;
                        used = 0;
                        last_break = None;
                        pos += 1;
                        continue;
                    }
                    Unit {
                        range: pos..pos + c.len_utf8(),
                        kind: UnitKind::Char(c),
                        width: text::char_width(c),
                    }
                }
            };
            let is_space = matches!(unit.kind, UnitKind::Char(' '));
            if used > 0 && used + unit.width > width && !is_space {
                match last_break.take() {
                    Some((count, cut_width)) if count < row.units.len() => {
                        let tail = row.units.split_off(count);
                        let start = tail[0].range.start;
                        row.end = start;
                        rows.push(std::mem::replace(
                            &mut row,
                            Row {
                                start,
                                units: tail,
                                ..Row::default()
                            },
                        ));
                        used -= cut_width;
                    }
                    _ => {
                        row.end = unit.range.start;
                        let start = row.end;
                        rows.push(std::mem::take(&mut row));
                        row.start = start;
                        used = 0;
                    }
                }
            }
            used += unit.width;
            pos = unit.range.end;
            row.units.push(unit);
            if is_space {
                last_break = Some((row.units.len(), used));
            }
        }
        row.end = self.text.len();
        rows.push(row);

        let cursor_row = rows
            .iter()
            .rposition(|r| r.start <= self.cursor)
            .unwrap_or(0);
        let mut cursor_col: usize = rows[cursor_row]
            .units
            .iter()
            .take_while(|u| u.range.end <= self.cursor)
            .map(|u| u.width)
            .sum();
        let mut cursor_row = cursor_row;
        if cursor_col >= width {
            cursor_row += 1;
            cursor_col = 0;
        }
        Layout {
            rows,
            cursor_row,
            cursor_col,
        }
    }

    fn chip(&self, span: &MentionSpan) -> Unit {
        let decoded = uri::decode(&self.text[span.uri.clone()]);
        let label = match (&span.label, &decoded) {
            (Some(raw), _) => mention::unescape_label(&self.text[raw.clone()]),
            (None, Ok(id)) => id.clone(),
            (None, Err(_)) => self.text[span.uri.clone()].to_owned(),
        };
        let text = format!("@{}", display::one_line(&label, usize::MAX));
        Unit {
            range: span.range.clone(),
            width: display::width(&text),
            kind: UnitKind::Chip {
                text,
                valid: decoded.is_ok(),
                id: decoded.ok(),
            },
        }
    }

    /// Put the cursor where a click on visual `row`, column `col` of the
    /// prompt wrapped to `width` falls: before the unit clicked, after it
    /// when the click is on its right half (a mention is one unit, so the
    /// cursor never lands inside one); past a row's end, at its end; below
    /// the last row, at the end of the text.
    pub fn place_cursor(&mut self, row: usize, col: usize, width: usize) {
        let layout = self.layout(width);
        let Some(row) = layout.rows.get(row) else {
            self.cursor = self.text.len();
            return;
        };
        let mut pos = row.start;
        let mut used = 0;
        for unit in &row.units {
            if col < used + unit.width.div_ceil(2) {
                break;
            }
            used += unit.width;
            pos = unit.range.end;
        }
        self.cursor = pos;
    }

    fn move_rows(&mut self, delta: isize, width: usize) {
        let layout = self.layout(width);
        let target = layout.cursor_row as isize + delta;
        if target < 0 {
            self.cursor = 0;
            return;
        }
        let Some(row) = layout.rows.get(target as usize) else {
            self.cursor = self.text.len();
            return;
        };
        let mut pos = row.start;
        let mut used = 0;
        for unit in &row.units {
            if used + unit.width > layout.cursor_col {
                break;
            }
            used += unit.width;
            pos = unit.range.end;
        }
        self.cursor = pos;
    }

    fn delete(&mut self, range: Range<usize>) -> bool {
        if range.is_empty() {
            return false;
        }
        self.cursor = range.start;
        self.text.replace_range(range, "");
        self.rescan();
        true
    }

    /// A mention ending at or containing `at`.
    fn span_at_or_before(&self, at: usize) -> Option<Range<usize>> {
        self.spans
            .iter()
            .find(|s| s.range.start < at && at <= s.range.end)
            .map(|s| s.range.clone())
    }

    /// A mention starting at or containing `at`.
    fn span_at_or_after(&self, at: usize) -> Option<Range<usize>> {
        self.spans
            .iter()
            .find(|s| s.range.start <= at && at < s.range.end)
            .map(|s| s.range.clone())
    }

    fn inside(&self, at: usize) -> Option<Range<usize>> {
        self.spans
            .iter()
            .find(|s| s.range.start < at && at < s.range.end)
            .map(|s| s.range.clone())
    }

    fn snap_start(&self, at: usize) -> usize {
        self.inside(at).map_or(at, |s| s.start)
    }

    fn snap_end(&self, at: usize) -> usize {
        self.inside(at).map_or(at, |s| s.end)
    }

    fn rescan(&mut self) {
        self.spans = mention::scan(&self.text);
    }
}

fn normalize_breaks(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use session_ref_core::mention::format_mention;

    fn chips(layout: &Layout) -> Vec<String> {
        layout
            .rows
            .iter()
            .flat_map(|r| &r.units)
            .filter_map(|u| match &u.kind {
                UnitKind::Chip { text, .. } => Some(text.clone()),
                UnitKind::Char(_) => None,
            })
            .collect()
    }

    fn rendered(layout: &Layout) -> Vec<String> {
        layout
            .rows
            .iter()
            .map(|r| {
                r.units
                    .iter()
                    .map(|u| match &u.kind {
                        UnitKind::Char(c) => c.to_string(),
                        UnitKind::Chip { text, .. } => format!("[{text}]"),
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn mention_is_inserted_at_the_cursor_with_spacing() {
        let mut p = Prompt::new("compare and");
        p.apply(Edit::WordLeft, 80);
        p.apply(Edit::Left, 80);
        let m = format_mention("s1", Some("Fix parser"));
        p.insert_mention(&m);
        assert_eq!(p.text(), format!("compare {m} and"));
        assert_eq!(p.cursor(), "compare ".len() + m.len());
        p.apply(Edit::End, 80);
        p.insert_mention(&format_mention("s2", None));
        assert_eq!(
            p.text(),
            format!("compare {m} and {} ", format_mention("s2", None))
        );
        assert_eq!(p.referenced_ids(), ["s1", "s2"]);
        assert_eq!(chips(&p.layout(80)), ["@Fix parser", "@s2"]);
    }

    #[test]
    fn a_mention_is_one_unit_for_motion_and_deletion() {
        let m = format_mention("id", Some("A b]c"));
        let mut p = Prompt::new(&format!("x{m}y"));
        p.apply(Edit::Left, 80);
        assert_eq!(p.cursor(), 1 + m.len());
        p.apply(Edit::Left, 80);
        assert_eq!(p.cursor(), 1);
        p.apply(Edit::Right, 80);
        assert_eq!(p.cursor(), 1 + m.len());
        assert!(p.apply(Edit::Backspace, 80));
        assert_eq!((p.text(), p.cursor()), ("xy", 1));
        let mut p = Prompt::new(&format!("x{m}y"));
        p.apply(Edit::Home, 80);
        p.apply(Edit::Right, 80);
        assert!(p.apply(Edit::Delete, 80));
        assert_eq!(p.text(), "xy");
        let mut p = Prompt::new(&format!("see {m}"));
        assert!(p.apply(Edit::DeleteWordBack, 80));
        assert_eq!(p.text(), "see ");
        assert_eq!(chips(&Prompt::new(&m).layout(80)), ["@A b]c"]);
    }

    #[test]
    fn typing_next_to_a_chip_keeps_it() {
        let m = format_mention("id", Some("L"));
        let mut p = Prompt::new(&m);
        p.apply(Edit::Insert('!'), 80);
        p.apply(Edit::Home, 80);
        p.apply(Edit::Insert('>'), 80);
        assert_eq!(p.text(), format!(">{m}!"));
        assert_eq!(rendered(&p.layout(80)), [">[@L]!"]);
    }

    #[test]
    fn invalid_mentions_are_chips_marked_invalid() {
        let p = Prompt::new("see @[x](hydra-session:ImFiYyI=)");
        let units: Vec<_> = p.layout(80).rows[0].units.clone();
        assert!(matches!(
            &units.last().unwrap().kind,
            UnitKind::Chip { text, valid: false, .. } if text == "@x"
        ));
        assert!(p.parse().is_err());
        assert!(p.referenced_ids().is_empty());
    }

    #[test]
    fn layout_wraps_and_places_the_cursor() {
        let m = format_mention("id", Some("chip"));
        let mut p = Prompt::new(&format!("abcd {m}\nxy"));
        let layout = p.layout(6);
        assert_eq!(rendered(&layout), ["abcd ", "[@chip]", "xy"]);
        assert_eq!((layout.cursor_row, layout.cursor_col), (2, 2));
        p.apply(Edit::Up, 6);
        assert_eq!(p.cursor(), 5);
        p.apply(Edit::Down, 6);
        assert_eq!(p.cursor(), 5 + m.len() + 1);
        p.apply(Edit::Home, 6);
        p.apply(Edit::Up, 6);
        let l = p.layout(6);
        assert_eq!((l.cursor_row, l.cursor_col), (1, 0));
        p.apply(Edit::Up, 6);
        p.apply(Edit::Up, 6);
        assert_eq!(p.cursor(), 0);
        let full = Prompt::new("abcdef").layout(6);
        assert_eq!((full.cursor_row, full.cursor_col), (1, 0));
    }

    #[test]
    fn the_space_after_a_final_mention_is_not_submitted() {
        let m = format_mention("id", Some("chip"));
        let mut p = Prompt::new("see");
        p.insert_mention(&m);
        assert_eq!(p.text(), format!("see {m} "));
        assert_eq!(p.submitted(), format!("see {m}"));
        p.insert_str("now ");
        assert_eq!(p.submitted(), format!("see {m} now "));
    }

    #[test]
    fn layout_wraps_at_word_boundaries() {
        let p = Prompt::new("alpha beta gamma");
        assert_eq!(rendered(&p.layout(12)), ["alpha beta ", "gamma"]);
        // Continuation rows do not start with the space.
        assert_eq!(rendered(&p.layout(8)), ["alpha ", "beta ", "gamma"]);
        // A word wider than the row is cut.
        assert_eq!(
            rendered(&Prompt::new("abcdefgh ij").layout(4)),
            ["abcd", "efgh ", "ij"]
        );
        let m = format_mention("id", Some("chip"));
        let with_chip = Prompt::new(&format!("see {m} now"));
        assert_eq!(rendered(&with_chip.layout(9)), ["see [@chip] ", "now"]);
        assert_eq!(rendered(&with_chip.layout(8)), ["see ", "[@chip] ", "now"]);
    }

    #[test]
    fn line_keys_and_breaks() {
        let mut p = Prompt::new("one\r\ntwo three");
        assert_eq!(p.text(), "one\ntwo three");
        assert!(p.apply(Edit::DeleteToStart, 80));
        assert_eq!(p.text(), "one\n");
        p.apply(Edit::Backspace, 80);
        p.apply(Edit::Newline, 80);
        assert_eq!(p.text(), "one\n");
        p.insert_str("a\rb");
        assert_eq!(p.text(), "one\na\nb");
    }

    #[test]
    fn a_click_places_the_cursor_at_the_nearest_unit_boundary() {
        let m = format_mention("id", Some("chip"));
        let text = format!("see {m} now\nsecond line");
        let mut p = Prompt::new(&text);
        let chip_start = text.find("@[").unwrap();
        let chip_end = chip_start + m.len();
        // "see @chip now" then "second line": row 0, column 1 is before "e".
        p.place_cursor(0, 1, 80);
        assert_eq!(p.cursor(), 1);
        // The chip `@chip` spans columns 4..9: its left half puts the
        // cursor before it, its right half after it, never inside.
        p.place_cursor(0, 5, 80);
        assert_eq!(p.cursor(), chip_start);
        p.place_cursor(0, 7, 80);
        assert_eq!(p.cursor(), chip_end);
        // Past a row's end: its end; on the second row; below: the end.
        p.place_cursor(0, 70, 80);
        assert_eq!(p.cursor(), text.find('\n').unwrap());
        p.place_cursor(1, 3, 80);
        assert_eq!(&text[p.cursor()..], "ond line");
        p.place_cursor(5, 0, 80);
        assert_eq!(p.cursor(), text.len());
    }
}
