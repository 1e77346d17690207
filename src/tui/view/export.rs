//! The export's question (`alt-x`): a one-line popup over the picker
//! holding the path being typed, with the cursor in it.

use ratatui::layout::{Position, Rect};
use ratatui::text::Span;
use ratatui::widgets::{Block, Clear, Paragraph};
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use crate::tui::model::State;

/// Draw the question when it is asked; where the cursor goes.
pub fn draw(frame: &mut Frame<'_>, state: &State) -> Option<Position> {
    let ask = state.export.as_ref()?;
    let theme = state.setup.theme;
    let area = frame.area();
    let width = area.width.saturating_sub(2).min(72);
    if width < 12 || area.height < 3 {
        return None;
    }
    let popup = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - 3) / 2,
        width,
        3,
    );
    let title = if ask.overwrite {
        " Export: the file exists (enter replaces it, esc) "
    } else {
        " Export to (.md .html .json; enter, esc) "
    };
    let inner = usize::from(width.saturating_sub(2));
    // The end of a path longer than the popup is what stays in view.
    let text = ask.path.text();
    let before = &text[..ask.path.cursor()];
    let mut start = 0;
    while before[start..].width() + 1 > inner && start < before.len() {
        start += before[start..].chars().next().map_or(1, char::len_utf8);
    }
    let shown = &text[start..];
    let block = Block::bordered()
        .border_style(theme.dim())
        .title(Span::styled(title, theme.accent()));
    frame.render_widget(Clear, popup);
    frame.render_widget(Paragraph::new(shown.to_owned()).block(block), popup);
    let column = u16::try_from(before[start..].width()).unwrap_or(u16::MAX);
    Some(Position::new(
        popup.x + 1 + column.min(width.saturating_sub(3)),
        popup.y + 1,
    ))
}
