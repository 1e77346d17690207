//! The hand-off chooser (`alt-h`): a small popup over the picker listing
//! the agents a session can be handed to (name and program), the
//! highlighted one marked.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};
use ratatui::Frame;

use crate::tui::model::{Chooser, State};

/// Draw the chooser when it is open.
pub fn draw(frame: &mut Frame<'_>, state: &State) {
    let Some(chooser) = &state.chooser else {
        return;
    };
    let theme = state.setup.theme;
    let agents = Chooser::agents();
    let lines: Vec<Line<'_>> = agents
        .iter()
        .enumerate()
        .map(|(i, launcher)| {
            let text = format!(" {:<16} {} ", launcher.agent, launcher.program);
            if i == chooser.selected {
                Line::styled(format!("▶{text}"), theme.selected())
            } else {
                Line::raw(format!(" {text}"))
            }
        })
        .collect();
    let area = frame.area();
    let width = area.width.saturating_sub(2).min(44);
    let height = area
        .height
        .saturating_sub(2)
        .min(u16::try_from(lines.len() + 2).unwrap_or(u16::MAX));
    if width < 8 || height < 3 {
        return;
    }
    let popup = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    );
    let block = Block::bordered()
        .border_style(theme.dim())
        .title(Span::styled(" Hand off to (enter, esc) ", theme.accent()));
    frame.render_widget(Clear, popup);
    frame.render_widget(Paragraph::new(lines).block(block), popup);
}
