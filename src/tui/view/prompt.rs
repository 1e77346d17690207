//! The prompt pane: a rule with the reference counter (distinct sessions
//! cited of `maxReferences`, or why the mentions do not parse), then the
//! buffer with mentions drawn as `@label` chips (in the invalid style when
//! the mention does not decode or no store has its session; cut with `…`
//! when wider than the pane); the rule says which rows are shown when the
//! buffer is taller than the pane.

use ratatui::layout::Position;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use crate::keys::{self, Command};
use crate::tui::layout::Areas;
use crate::tui::model::{Focus, State};
use crate::tui::prompt::UnitKind;
use crate::tui::view::preview::position;
use crate::tui::view::rule;

/// The counter shown in the prompt's rule and whether it is an error.
pub fn counter(state: &State) -> (String, bool) {
    let max = state.setup.limits.max_references;
    match state.prompt().parse() {
        Ok(_) => {
            let ids = state.prompt().referenced_ids();
            let cited = ids.len();
            let unknown = ids.iter().filter(|id| state.unknown_session(id)).count();
            if unknown > 0 {
                (
                    format!("sessions {cited}/{max} · ✗ {unknown} not found"),
                    true,
                )
            } else {
                (format!("sessions {cited}/{max}"), cited > max)
            }
        }
        Err(e) => (format!("✗ {}", e.message_for_person()), true),
    }
}

/// Draw the prompt header and body.
pub fn draw(frame: &mut Frame<'_>, areas: &Areas, state: &State) {
    let theme = state.setup.theme;
    let focused = state.focus == Focus::Prompt;
    let header = areas.prompt_header;
    let body = areas.prompt_body;
    let layout = state.prompt().layout(body.width.max(1) as usize);
    if header.height > 0 {
        let (count, bad) = counter(state);
        let title_style = if focused {
            theme.accent()
        } else {
            Style::new()
        };
        let mut right = Vec::new();
        let rows = layout.rows.len();
        if let Some(at) = position(state.prompt_scroll, body.height as usize, rows) {
            right.push(Span::styled(format!("{at} · "), theme.accent()));
        }
        if let Some(key) = keys::key_for(Command::OpenEditor) {
            right.push(Span::styled(format!("{key} $EDITOR"), theme.dim()));
        }
        let line = rule(
            header.width,
            vec![
                Span::styled("Prompt · ", title_style),
                Span::styled(count, if bad { theme.error() } else { theme.dim() }),
            ],
            right,
            theme,
        );
        frame.render_widget(Paragraph::new(line), header);
    }
    if body.height == 0 || body.width == 0 {
        return;
    }
    if state.prompt().is_empty() {
        let hint = "Your message. Enter on a session inserts its mention; tab switches here.";
        let line = Line::styled(
            crate::display::truncate_width(hint, body.width as usize),
            theme.dim(),
        );
        frame.render_widget(Paragraph::new(line), body);
        return;
    }
    let lines: Vec<Line<'_>> = layout
        .rows
        .iter()
        .skip(state.prompt_scroll)
        .take(body.height as usize)
        .map(|row| {
            let mut spans = Vec::new();
            let mut run = String::new();
            let mut column = 0;
            for unit in &row.units {
                match &unit.kind {
                    UnitKind::Char(c) => run.push(crate::display::safe_char(*c)),
                    UnitKind::Chip { text, valid, id } => {
                        if !run.is_empty() {
                            spans.push(Span::raw(std::mem::take(&mut run)));
                        }
                        // Invalid: its URI does not decode, or (once the
                        // listing is complete) no store has its session.
                        let known = id.as_deref().is_none_or(|id| !state.unknown_session(id));
                        let style = if *valid && known {
                            theme.chip()
                        } else {
                            theme.chip_invalid()
                        };
                        // A chip wider than the row left says it is cut.
                        let room = (body.width as usize).saturating_sub(column);
                        spans.push(Span::styled(
                            crate::display::truncate_width(text, room),
                            style,
                        ));
                    }
                }
                column += unit.width;
            }
            if !run.is_empty() {
                spans.push(Span::raw(run));
            }
            Line::from(spans)
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), body);
}

/// Where the terminal cursor goes when the prompt has the focus.
pub fn cursor(areas: &Areas, state: &State) -> Option<Position> {
    let body = areas.prompt_body;
    if body.height == 0 || body.width == 0 {
        return None;
    }
    let layout = state.prompt().layout(body.width as usize);
    let row = layout.cursor_row.checked_sub(state.prompt_scroll)?;
    (row < body.height as usize && layout.cursor_col < body.width as usize)
        .then(|| Position::new(body.x + layout.cursor_col as u16, body.y + row as u16))
}
