//! The preview pane: a rule with the candidate's label and the mode, a line
//! of stats (kept/omitted messages, omitted bytes, budget used of budget,
//! compacted), then the snapshot by role or raw, scrolled; the rule says
//! which lines are shown of how many. Opened from a conversation search
//! match, the query's matches are highlighted.

use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use crate::tui::layout::Areas;
use crate::tui::model::State;
use crate::tui::preview::{self, PreviewMode, PreviewSlot};
use crate::tui::text;
use crate::tui::view::{mark_ranges, rule};

/// Draw the preview header, separator and body.
pub fn draw(frame: &mut Frame<'_>, areas: &Areas, state: &State) {
    let theme = state.setup.theme;
    if let Some(sep) = areas.separator {
        let lines: Vec<Line<'_>> = (0..sep.height)
            .map(|_| Line::styled("│", theme.dim()))
            .collect();
        frame.render_widget(Paragraph::new(lines), sep);
    }
    let slot = state.current_preview();
    let title = state.current().map_or_else(
        || "Preview".to_owned(),
        |entry| {
            format!(
                "Preview: {}",
                crate::display::one_line(
                    &crate::display::label_shown(entry.label(), entry.record.kind),
                    usize::MAX
                )
            )
        },
    );
    let mode = match state.preview_mode {
        PreviewMode::Readable => "by role",
        PreviewMode::Raw => "raw",
    };
    let body = areas.preview_body;
    let width = body.width as usize;
    let height = body.height as usize;
    let lines: Vec<Line<'_>> = match slot {
        None if state.entries.is_empty() => Vec::new(),
        None => vec![Line::styled("no candidate highlighted", theme.dim())],
        Some(PreviewSlot::Loading) => vec![Line::styled("loading…", theme.dim())],
        Some(PreviewSlot::Failed(e)) => {
            text::wrap(&format!("✗ {}: {}", e.code, e.message_for_person()), width)
                .into_iter()
                .map(|row| Line::styled(row, theme.error()))
                .collect()
        }
        Some(PreviewSlot::Ready(snapshot)) => {
            preview::lines(snapshot, state.preview_mode, width, theme, state.about())
        }
    };
    let header = areas.preview_header;
    if header.height > 0 {
        let mut right = vec![Span::styled(mode, theme.dim())];
        if let Some(at) = position(state.preview_scroll, height, lines.len()) {
            right.push(Span::styled(format!(" · {at}"), theme.dim()));
        }
        let line = rule(
            header.width,
            vec![Span::styled(title, theme.accent())],
            right,
            theme,
        );
        frame.render_widget(Paragraph::new(line), header);
    }
    let stats = areas.preview_stats;
    if stats.height > 0 {
        let line = match slot {
            Some(PreviewSlot::Ready(snapshot)) => {
                Line::styled(snapshot.summary_within(stats.width as usize), theme.dim())
            }
            _ => Line::raw(""),
        };
        frame.render_widget(Paragraph::new(line), stats);
    }
    if height == 0 || width == 0 {
        return;
    }
    let matches = state.preview_matches();
    let shown: Vec<Line<'_>> = lines
        .into_iter()
        .skip(state.preview_scroll)
        .take(height)
        .map(|line| match matches {
            // Opened from a conversation search match: its matches stand
            // out as in the list (per row: a phrase a wrap splits is not).
            Some(query) => {
                let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
                let ranges: Vec<_> = query.find_all(&text).into_iter().map(|m| m.range).collect();
                mark_ranges(line, &ranges, theme.matched())
            }
            None => line,
        })
        .collect();
    frame.render_widget(Paragraph::new(shown), body);
}

/// Where a scrolled view of `total` lines stands, `rows` at a time from
/// `top`: `12–20/40` with an arrow for each side that has more, or `None`
/// when everything fits.
pub(crate) fn position(top: usize, rows: usize, total: usize) -> Option<String> {
    if total <= rows || rows == 0 {
        return None;
    }
    let last = (top + rows).min(total);
    let up = if top > 0 { "↑" } else { "" };
    let down = if last < total { "↓" } else { "" };
    Some(format!("{up}{down} {}–{last}/{total}", top + 1))
}

#[cfg(test)]
mod tests {
    use super::position;

    #[test]
    fn position_says_what_is_above_and_below() {
        assert_eq!(position(0, 10, 10), None);
        assert_eq!(position(0, 10, 40).as_deref(), Some("↓ 1–10/40"));
        assert_eq!(position(5, 10, 40).as_deref(), Some("↑↓ 6–15/40"));
        assert_eq!(position(30, 10, 40).as_deref(), Some("↑ 31–40/40"));
    }
}
