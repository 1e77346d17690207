//! Drawing: one module per pane, each reading the [`State`] and never
//! changing it. [`draw`] lays a whole frame out with [`crate::tui::layout`].

pub mod chooser;
pub mod filter;
pub mod help;
pub mod list;
pub mod preview;
pub mod prompt;
pub mod status;

use ratatui::layout::Position;
use ratatui::text::{Line, Span};
use ratatui::Frame;

use crate::tui::model::{Focus, State};
use crate::tui::theme::Theme;

/// Draw the whole picker.
pub fn draw(frame: &mut Frame<'_>, state: &State) {
    let areas = crate::tui::layout::areas(frame.area(), state.preview_window);
    filter::draw(frame, areas.filter, state);
    list::draw(frame, areas.list, state);
    preview::draw(frame, &areas, state);
    prompt::draw(frame, &areas, state);
    status::draw(frame, areas.footer, state);
    if state.help {
        help::draw(frame, state);
        return;
    }
    if state.chooser.is_some() {
        chooser::draw(frame, state);
        return;
    }
    let cursor = match state.focus {
        Focus::Filter => filter::cursor(areas.filter, state),
        Focus::Prompt => prompt::cursor(&areas, state),
    };
    if let Some(Position { x, y }) = cursor {
        frame.set_cursor_position((x, y));
    }
}

/// A horizontal rule of `width` columns: `─ left ─…─ right ─`, parts in
/// their own styles, the rule dim. The left part is cut to make room.
pub(crate) fn rule<'a>(
    width: u16,
    left: Vec<Span<'a>>,
    right: Vec<Span<'a>>,
    theme: Theme,
) -> Line<'a> {
    let width = width as usize;
    let span_width = |spans: &[Span<'_>]| spans.iter().map(Span::width).sum::<usize>();
    let right_width = span_width(&right);
    let room = width.saturating_sub(right_width + 6);
    let mut left_fitted = Vec::new();
    let mut used = 0;
    for span in left {
        let w = span.width();
        if used + w <= room {
            used += w;
            left_fitted.push(span);
        } else {
            let cut = crate::display::truncate_width(&span.content, room - used);
            used += crate::display::width(&cut);
            left_fitted.push(Span::styled(cut, span.style));
            break;
        }
    }
    let mut spans = vec![Span::styled("─ ", theme.dim())];
    spans.extend(left_fitted);
    let fill = width.saturating_sub(2 + used + 2 + right_width + 2);
    spans.push(Span::styled(format!(" {} ", "─".repeat(fill)), theme.dim()));
    spans.extend(right);
    spans.push(Span::styled(" ─", theme.dim()));
    let mut line = Line::from(spans);
    if line.width() > width {
        // Too narrow for the decorations: plain dim rule.
        line = Line::styled("─".repeat(width), theme.dim());
    }
    line
}

/// Spans of `text` with the characters at `indices` (sorted char indices)
/// in `matched`, the rest in `base`.
pub(crate) fn highlighted<'a>(
    text: &str,
    indices: &[usize],
    base: ratatui::style::Style,
    matched: ratatui::style::Style,
) -> Vec<Span<'a>> {
    let mut spans = Vec::new();
    let mut run = String::new();
    let mut run_matched = false;
    let mut next = indices.iter().copied().peekable();
    for (i, c) in text.chars().enumerate() {
        while next.next_if(|&j| j < i).is_some() {}
        let is_match = next.peek() == Some(&i);
        if is_match != run_matched && !run.is_empty() {
            let style = if run_matched { matched } else { base };
            spans.push(Span::styled(std::mem::take(&mut run), style));
        }
        run_matched = is_match;
        run.push(c);
    }
    if !run.is_empty() {
        spans.push(Span::styled(run, if run_matched { matched } else { base }));
    }
    spans
}

/// `line` with the bytes in `ranges` (sorted byte ranges of the line's
/// text, its spans' contents joined) patched with `matched`.
pub(crate) fn mark_ranges<'a>(
    line: Line<'a>,
    ranges: &[std::ops::Range<usize>],
    matched: ratatui::style::Style,
) -> Line<'a> {
    if ranges.is_empty() {
        return line;
    }
    let mut spans = Vec::new();
    let mut at = 0;
    for span in line.spans {
        let content = span.content.as_ref();
        let end = at + content.len();
        // Cut points of this span: range edges inside it.
        let mut cuts: Vec<usize> = vec![at, end];
        for r in ranges {
            for edge in [r.start, r.end] {
                if edge > at && edge < end && content.is_char_boundary(edge - at) {
                    cuts.push(edge);
                }
            }
        }
        cuts.sort_unstable();
        cuts.dedup();
        for pair in cuts.windows(2) {
            let (from, to) = (pair[0], pair[1]);
            let piece = content[from - at..to - at].to_owned();
            let inside = ranges.iter().any(|r| r.start <= from && to <= r.end);
            let style = if inside {
                span.style.patch(matched)
            } else {
                span.style
            };
            spans.push(Span::styled(piece, style));
        }
        at = end;
    }
    Line {
        spans,
        style: line.style,
        alignment: line.alignment,
    }
}

/// Pad `text` with spaces to exactly `width` columns (cutting with `…`).
pub(crate) fn fit(text: &str, width: usize) -> String {
    let cut = crate::display::truncate_width(text, width);
    let pad = width.saturating_sub(crate::display::width(&cut));
    format!("{cut}{}", " ".repeat(pad))
}

#[cfg(test)]
mod tests;
