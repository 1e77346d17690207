//! The preview pane: a rule with the candidate's label and the mode, a line
//! of stats (kept/omitted messages, omitted bytes, budget used of budget,
//! compacted), then the snapshot by role or raw, scrolled.

use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use crate::tui::layout::Areas;
use crate::tui::preview::{self, PreviewMode, PreviewSlot};
use crate::tui::state::State;
use crate::tui::text;
use crate::tui::view::rule;

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
                crate::display::one_line(&entry.label, usize::MAX)
            )
        },
    );
    let mode = match state.preview_mode {
        PreviewMode::Readable => "by role",
        PreviewMode::Raw => "raw",
    };
    let header = areas.preview_header;
    if header.height > 0 {
        let line = rule(
            header.width,
            vec![Span::styled(title, theme.accent())],
            vec![Span::styled(mode, theme.dim())],
            theme,
        );
        frame.render_widget(Paragraph::new(line), header);
    }
    let stats = areas.preview_stats;
    if stats.height > 0 {
        let line = match slot {
            Some(PreviewSlot::Ready(snapshot)) => Line::styled(
                crate::display::truncate_width(&snapshot.summary(), stats.width as usize),
                theme.dim(),
            ),
            _ => Line::raw(""),
        };
        frame.render_widget(Paragraph::new(line), stats);
    }
    let body = areas.preview_body;
    if body.height == 0 || body.width == 0 {
        return;
    }
    let width = body.width as usize;
    let lines: Vec<Line<'_>> = match slot {
        None if state.entries.is_empty() => Vec::new(),
        None => vec![Line::styled("no candidate highlighted", theme.dim())],
        Some(PreviewSlot::Loading) => vec![Line::styled("loading…", theme.dim())],
        Some(PreviewSlot::Failed(e)) => text::wrap(&format!("✗ {}: {}", e.code, e.message), width)
            .into_iter()
            .map(|row| Line::styled(row, theme.error()))
            .collect(),
        Some(PreviewSlot::Ready(snapshot)) => {
            preview::lines(snapshot, state.preview_mode, width, theme)
                .into_iter()
                .skip(state.preview_scroll)
                .take(body.height as usize)
                .collect()
        }
    };
    frame.render_widget(Paragraph::new(lines), body);
}
