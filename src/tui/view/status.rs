//! The footer: the current message (an error in its style), the submit in
//! progress, or the main keys for the focused input (from the key table's
//! hints, so a rebinding shows), as many as fit by priority. An error too long for the footer is shown
//! whole, wrapped over the rows above it until the next key.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;

use crate::display;
use crate::keys::{self, FooterHint};
use crate::tui::model::{Focus, State, Submit};

/// Between two hints.
const SEPARATOR: &str = "  ";

/// The hints shown in `width` columns, by priority: as many of the first
/// hints as fit with one key each, then each of those, in priority order,
/// given all its keys while that still fits. So a narrow footer keeps
/// `ctrl-t search` rather than a second key for submit. Returns (keys, word).
fn fit_hints(hints: &[FooterHint], width: usize) -> Vec<(String, &'static str)> {
    let cost = |keys: &str, word: &str, first: bool| {
        let sep = if first { 0 } else { SEPARATOR.len() };
        sep + display::width(keys) + 1 + display::width(word)
    };
    let mut used = 0;
    let mut shown: Vec<(String, &'static str)> = Vec::new();
    for hint in hints {
        let w = cost(&hint.first_key, hint.word, shown.is_empty());
        if used + w > width {
            break;
        }
        used += w;
        shown.push((hint.first_key.clone(), hint.word));
    }
    for (i, hint) in hints.iter().take(shown.len()).enumerate() {
        let more = display::width(&hint.keys) - display::width(&hint.first_key);
        if more > 0 && used + more <= width {
            used += more;
            shown[i].0.clone_from(&hint.keys);
        }
    }
    shown
}

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
        let hints = keys::hints(state.focus == Focus::Prompt, !state.setup.drafts.is_empty());
        let mut spans = Vec::new();
        for (i, (keys, what)) in fit_hints(&hints, width).into_iter().enumerate() {
            if i > 0 {
                spans.push(Span::raw(SEPARATOR));
            }
            spans.push(Span::styled(keys, theme.accent()));
            spans.push(Span::styled(format!(" {what}"), theme.dim()));
        }
        Line::from(spans)
    };
    frame.render_widget(Paragraph::new(line), area);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(prompt: bool, drafts: bool, width: usize) -> String {
        fit_hints(&keys::hints(prompt, drafts), width)
            .into_iter()
            .map(|(k, w)| format!("{k} {w}"))
            .collect::<Vec<_>>()
            .join(SEPARATOR)
    }

    #[test]
    fn search_fits_at_80_columns_and_submit_shows_both_keys_when_there_is_room() {
        let at80 = words(false, false, 80);
        assert!(at80.contains("ctrl-t search"), "{at80}");
        assert!(
            at80.contains("esc quit") && at80.contains("f1 keys"),
            "{at80}"
        );
        assert!(display::width(&at80) <= 80);
        let wide = words(false, false, 160);
        assert!(wide.contains("alt-enter/ctrl-s submit"), "{wide}");
        assert!(!wide.contains("drafts"), "{wide}");
        assert!(words(true, true, 160).contains("alt-r drafts"));
        // Narrow: the first hints only, never a cut one.
        assert_eq!(words(false, false, 30), "enter insert  alt-enter submit");
        assert_eq!(words(false, false, 5), "");
    }
}
