//! The help screen: every binding of the key table, by context, over the
//! picker, with a scroll hint and position when it is taller than the
//! popup.

use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};
use ratatui::Frame;

use crate::tui::keymap;
use crate::tui::layout;
use crate::tui::state::State;
use crate::tui::view::fit;
use crate::tui::view::preview::position;

/// Draw the help popup.
pub fn draw(frame: &mut Frame<'_>, state: &State) {
    let theme = state.setup.theme;
    let rows = keymap::help_rows();
    let area = layout::help_popup(frame.area(), rows.len());
    if area.width < 4 || area.height < 3 {
        return;
    }
    let inner_width = area.width.saturating_sub(2) as usize;
    let longest = rows
        .iter()
        .filter_map(|(keys, _)| keys.as_deref().map(crate::display::width))
        .max()
        .unwrap_or(0);
    let key_width = longest.min(inner_width / 2);
    let total = rows.len();
    let visible = area.height.saturating_sub(2) as usize;
    let lines: Vec<Line<'_>> = rows
        .into_iter()
        .skip(state.help_scroll)
        .map(|(keys, what)| match keys {
            None => Line::styled(what, theme.accent()),
            Some(keys) => Line::from(vec![
                Span::raw(" "),
                Span::styled(fit(&keys, key_width), theme.accent()),
                Span::raw(" "),
                Span::raw(what),
            ]),
        })
        .collect();
    let mut block = Block::bordered()
        .border_style(theme.dim())
        .title(Span::styled(" Keys (esc closes) ", theme.accent()));
    if let Some(at) = position(state.help_scroll, visible, total) {
        // The help is taller than the popup: say so, and how to scroll.
        block = block.title_bottom(
            Line::styled(format!(" {at} · j/k pgdn/pgup scroll "), theme.accent()).right_aligned(),
        );
    }
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
