//! The footer: the current message (an error in its style), the submit in
//! progress, or the main keys for the focused input (from the key table's
//! hints, so a rebinding shows).

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
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
        Line::styled(
            display::truncate_width(&format!("{mark}{}", flash.text), width),
            style,
        )
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
