//! The footer: the current message (an error in its style), the submit in
//! progress, or the main keys for the focused input (from the key table's
//! hints, so a rebinding shows). An error too long for the footer is shown
//! whole, wrapped over the rows above it until the next key.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;

use crate::display;
use crate::tui::keymap;
use crate::tui::state::{State, Submit};

/// Draw the footer.
pub fn draw(frame: &mut Frame<'_>, area: Rect, state: &State) {
    if area.height == 0 {
        return;
    }
    let theme = state.setup.theme;
    let width = area.width as usize;
    let line = if let Some(flash) = &state.flash {
        let (mark, style) = if flash.error {
            ("✗ ", theme.error())
        } else {
            ("", theme.accent())
        };
        let text = format!("{mark}{}", display::one_line(&flash.text, usize::MAX));
        if flash.error && display::width(&text) > width {
            // Wrapped upwards from the footer, over at most half the screen.
            let rows = crate::tui::text::wrap(&text, width);
            let room = usize::from(area.y / 2) + 1;
            let shown = rows.len().min(room);
            let top = area.y + 1 - shown as u16;
            let over = Rect::new(area.x, top, area.width, shown as u16);
            let mut lines: Vec<Line<'_>> = rows[..shown]
                .iter()
                .map(|row| Line::styled(row.clone(), style))
                .collect();
            if shown < rows.len() {
                if let Some(last) = lines.last_mut() {
                    *last = Line::styled(
                        display::truncate_width(&format!("{} …", rows[shown - 1]), width),
                        style,
                    );
                }
            }
            frame.render_widget(Clear, over);
            frame.render_widget(Paragraph::new(lines), over);
            return;
        }
        Line::styled(display::truncate_width(&text, width), style)
    } else if state.submit == Submit::Preparing {
        Line::styled("preparing the message…", theme.accent())
    } else {
        let mut spans = Vec::new();
        let mut used = 0;
        for (i, (keys, what)) in keymap::hints(state.focus).into_iter().enumerate() {
            let sep = if i == 0 { "" } else { "  " };
            let w = sep.len() + display::width(&keys) + 1 + display::width(what);
            if used + w > width {
                break;
            }
            used += w;
            spans.push(Span::raw(sep));
            spans.push(Span::styled(keys, theme.accent()));
            spans.push(Span::styled(format!(" {what}"), theme.dim()));
        }
        Line::from(spans)
    };
    frame.render_widget(Paragraph::new(line), area);
}
