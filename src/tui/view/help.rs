//! The help screen: every binding of the key table by context, and the
//! filter's and conversation search's query syntax, over the picker, with
//! descriptions wrapped rather than cut (laid out by [`crate::tui::help`])
//! and a scroll hint and position when it is taller than the popup.

use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};
use ratatui::Frame;

use crate::tui::help;
use crate::tui::layout;
use crate::tui::model::State;
use crate::tui::view::preview::position;

/// Draw the help popup.
pub fn draw(frame: &mut Frame<'_>, state: &State) {
    let theme = state.setup.theme;
    let lines = help::lines(help::inner_width(frame.area()), theme);
    let area = layout::help_popup(frame.area(), lines.len());
    if area.width < 4 || area.height < 3 {
        return;
    }
    let total = lines.len();
    let visible = area.height.saturating_sub(2) as usize;
    let lines: Vec<Line<'_>> = lines.into_iter().skip(state.help_scroll).collect();
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
