//! The help screen's text laid out for the popup's width: the rows of
//! [`crate::keys::help_rows`] with descriptions wrapped under themselves
//! (never cut), keys in a column of their own. Shared by the view, which
//! draws these lines, and the state, which needs their count to bound the
//! scroll, so both agree. Pure.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::display;
use crate::keys::{self, HelpRow};
use crate::tui::layout;
use crate::tui::text;
use crate::tui::theme::Theme;

/// Columns between the popup's border and the text, on the left.
const INDENT: usize = 1;

/// The inner width of the help popup on a terminal of `area`.
pub fn inner_width(area: Rect) -> usize {
    layout::help_popup(area, 0).width.saturating_sub(2) as usize
}

/// The help's lines at `width` columns: headings, then for each entry its
/// keys in the left column and what they do, wrapped, in the right one.
pub fn lines(width: usize, theme: Theme) -> Vec<Line<'static>> {
    let rows = keys::help_rows();
    let longest = rows
        .iter()
        .filter_map(|row| match row {
            HelpRow::Entry { keys, .. } => Some(display::width(keys)),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let key_width = longest.min(width.saturating_sub(INDENT + 1) / 2).max(1);
    let what_width = width.saturating_sub(INDENT + key_width + 1).max(1);
    let mut out = Vec::new();
    for row in rows {
        match row {
            HelpRow::Heading(title) => out.extend(
                text::wrap(&title, width.max(1))
                    .into_iter()
                    .map(|l| Line::styled(l, theme.accent())),
            ),
            HelpRow::Note(note) => out.extend(
                text::wrap(note, width.max(1))
                    .into_iter()
                    .map(|l| Line::styled(l, theme.dim())),
            ),
            HelpRow::Entry { keys, what } => {
                let keys = text::wrap(&keys, key_width);
                let what = text::wrap(what, what_width);
                for i in 0..keys.len().max(what.len()) {
                    let key = keys.get(i).map_or("", String::as_str);
                    let pad = key_width.saturating_sub(display::width(key));
                    out.push(Line::from(vec![
                        Span::raw(" ".repeat(INDENT)),
                        Span::styled(format!("{key}{}", " ".repeat(pad)), theme.accent()),
                        Span::raw(" "),
                        Span::raw(what.get(i).cloned().unwrap_or_default()),
                    ]));
                }
            }
        }
    }
    out
}

/// How many lines the help has on a terminal of `area`.
pub fn line_count(area: Rect) -> usize {
    lines(inner_width(area), Theme { color: false }).len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(width: usize) -> Vec<String> {
        lines(width, Theme { color: false })
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn every_description_is_shown_whole_at_any_width() {
        for width in [74, 50, 30] {
            let shown = plain(width);
            let flat: String = shown.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
            let flat: String = flat.split_whitespace().collect::<Vec<_>>().join(" ");
            for row in keys::help_rows() {
                if let HelpRow::Entry { what, .. } = row {
                    // Wrapped, a description reads whole once its rows are
                    // joined; nothing is cut with an ellipsis.
                    let words: Vec<&str> = what.split_whitespace().collect();
                    for word in words {
                        assert!(flat.contains(word), "{width}: {word:?} of {what:?}");
                    }
                }
            }
            assert!(shown.iter().all(|l| display::width(l) <= width), "{width}");
            assert!(!shown.iter().any(|l| l.contains('…')), "{width}: {shown:?}");
        }
    }
}
