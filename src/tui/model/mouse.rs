//! The mouse: the wheel scrolls what it is over, a click highlights a row
//! or focuses an input (the prompt's at the cursor's place), and a double
//! click on a row inserts its mention, as fzf accepts on one.

use std::time::Instant;

use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};

use super::{step, Action, Effect, Focus, State, DOUBLE_CLICK};

impl State {
    /// The wheel scrolls what it is over (the list moves its highlight, as
    /// in fzf). A click on a row highlights it, and a second click on the
    /// same session within [`DOUBLE_CLICK`] of the first (`when` tells) inserts its
    /// mention, as fzf accepts on a double click; a click on the filter
    /// gives it the focus, a click on the prompt's text the focus and the
    /// cursor there.
    pub(super) fn mouse(&mut self, event: MouseEvent, when: Instant, fx: &mut Vec<Effect>) {
        const WHEEL: isize = 3;
        let at = Position::new(event.column, event.row);
        let areas = self.areas();
        let wheel = match event.kind {
            MouseEventKind::ScrollDown => Some(WHEEL),
            MouseEventKind::ScrollUp => Some(-WHEEL),
            _ => None,
        };
        if self.help {
            if let Some(lines) = wheel {
                self.apply(Action::HelpScroll(lines), fx);
            }
            return;
        }
        let over = |area: Rect| area.contains(at);
        let in_preview =
            over(areas.preview_body) || over(areas.preview_stats) || over(areas.preview_header);
        let body = areas.prompt_body;
        // The prompt's rows from edge to edge (its text is indented by one).
        let prompt_rows = Rect::new(0, body.y, self.size.0, body.height);
        match (wheel, event.kind) {
            (Some(lines), _) if over(areas.list) => self.apply(Action::Move(lines), fx),
            (Some(lines), _) if in_preview => self.apply(Action::PreviewScroll(lines), fx),
            (Some(lines), _) if over(areas.prompt_body) => {
                let rows = self.prompt.layout(body.width as usize).rows.len();
                let max = rows.saturating_sub(body.height as usize);
                self.prompt_scroll = step(self.prompt_scroll, lines.signum(), max);
            }
            (None, MouseEventKind::Down(MouseButton::Left)) => {
                let earlier = self.last_click.take();
                if over(areas.list) {
                    self.settle_into(fx);
                    let row = (at.y - areas.list.y) as usize + self.list_offset;
                    let Some(id) = self.hits.get(row).map(|h| h.id) else {
                        return;
                    };
                    self.select(row as isize, fx);
                    let double = earlier.is_some_and(|(then, on)| {
                        on == id && when.saturating_duration_since(then) <= DOUBLE_CLICK
                    });
                    if double {
                        self.insert_mention();
                    } else {
                        self.last_click = Some((when, id));
                    }
                } else if over(areas.filter) {
                    self.focus = Focus::Filter;
                } else if over(prompt_rows) && body.width > 0 {
                    self.focus = Focus::Prompt;
                    let row = (at.y - body.y) as usize + self.prompt_scroll;
                    let col = at.x.saturating_sub(body.x) as usize;
                    self.prompt.place_cursor(row, col, body.width as usize);
                    self.scroll_prompt();
                } else if over(areas.prompt_header) {
                    self.focus = Focus::Prompt;
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
#[path = "mouse_tests.rs"]
mod tests;
