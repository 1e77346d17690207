//! Where each pane goes for a terminal size and the `--preview-window`
//! in force (as `ctrl-/` left it). Shared by the views (to draw) and the
//! state (to page, scroll and wrap), so both agree. Pure.

use ratatui::layout::Rect;

use crate::config::{PreviewPosition, PreviewSize, PreviewWindow};

/// Width from which the list and the preview sit side by side.
pub const SIDE_BY_SIDE_WIDTH: u16 = 110;

/// The panes of one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Areas {
    /// The filter line (top row).
    pub filter: Rect,
    /// The candidate rows.
    pub list: Rect,
    /// The preview's header rule.
    pub preview_header: Rect,
    /// The preview's line of stats.
    pub preview_stats: Rect,
    /// The preview's text.
    pub preview_body: Rect,
    /// A vertical separator left of the preview (side by side only).
    pub separator: Option<Rect>,
    /// The prompt's header rule.
    pub prompt_header: Rect,
    /// The prompt's text.
    pub prompt_body: Rect,
    /// The footer (keys or a message; bottom row).
    pub footer: Rect,
}

/// Split `area` into panes: filter, list and preview, prompt, footer. The
/// preview sits where `window` says (by default below the list under 110
/// columns, right of it from there), takes its size, and gives all its
/// room to the list when hidden.
pub fn areas(area: Rect, window: PreviewWindow) -> Areas {
    let Rect {
        x,
        y,
        width,
        height,
    } = area;
    let row = |top: u16, rows: u16| Rect::new(x, top, width, rows);
    let filter = row(y, height.min(1));
    let footer = row(
        y + height.saturating_sub(1),
        height.min(2).saturating_sub(1),
    );
    let prompt_rows: u16 = match height {
        30.. => 5,
        16.. => 3,
        _ => 1,
    };
    let middle_top = y + filter.height;
    let middle_bottom = footer.y.max(middle_top);
    let prompt_height = (prompt_rows + 1).min(middle_bottom - middle_top);
    let prompt_top = middle_bottom - prompt_height;
    let prompt_header = row(prompt_top, prompt_height.min(1));
    let prompt_body = Rect::new(
        x + 1,
        prompt_top + prompt_header.height,
        width.saturating_sub(2),
        prompt_height.saturating_sub(1),
    );
    let main_height = prompt_top - middle_top;
    // The preview: a header rule, a line of stats, the text (indented by one).
    let preview = |left: u16, top: u16, cols: u16, rows: u16| {
        let header = Rect::new(left, top, cols, rows.min(1));
        let stats = Rect::new(
            left + 1,
            top + header.height,
            cols.saturating_sub(2),
            rows.saturating_sub(1).min(1),
        );
        let body = Rect::new(
            left + 1,
            stats.y + stats.height,
            cols.saturating_sub(2),
            rows.saturating_sub(header.height + stats.height),
        );
        (header, stats, body)
    };
    if window.hidden {
        // The preview's panes are empty rectangles under the list.
        let list = Rect::new(x, middle_top, width, main_height);
        let (preview_header, preview_stats, preview_body) =
            preview(x, middle_top + main_height, width, 0);
        return Areas {
            filter,
            list,
            preview_header,
            preview_stats,
            preview_body,
            separator: None,
            prompt_header,
            prompt_body,
            footer,
        };
    }
    let side_by_side = match window.position {
        PreviewPosition::Auto => width >= SIDE_BY_SIDE_WIDTH,
        PreviewPosition::Right => true,
        PreviewPosition::Down => false,
    };
    if side_by_side {
        // The preview's columns include the separator.
        let preview_width = match window.size {
            None => width - width * 9 / 20,
            Some(size) => share(size, width),
        };
        let list_width = width - preview_width.min(width);
        let list = Rect::new(x, middle_top, list_width, main_height);
        let right = x + list_width;
        let (preview_header, preview_stats, preview_body) = preview(
            right + 1,
            middle_top,
            (width - list_width).saturating_sub(1),
            main_height,
        );
        Areas {
            filter,
            list,
            preview_header,
            preview_stats,
            preview_body,
            separator: Some(Rect::new(
                right,
                middle_top,
                (width - list_width).min(1),
                main_height,
            )),
            prompt_header,
            prompt_body,
            footer,
        }
    } else {
        let list_height = match window.size {
            None => (main_height * 2 / 5).max(main_height.min(3)),
            Some(size) => main_height - share(size, main_height).min(main_height),
        };
        let (preview_header, preview_stats, preview_body) = preview(
            x,
            middle_top + list_height,
            width,
            main_height - list_height,
        );
        Areas {
            filter,
            list: Rect::new(x, middle_top, width, list_height),
            preview_header,
            preview_stats,
            preview_body,
            separator: None,
            prompt_header,
            prompt_body,
            footer,
        }
    }
}

/// The preview's part of `total` columns or rows for a `--preview-window`
/// size.
fn share(size: PreviewSize, total: u16) -> u16 {
    match size {
        PreviewSize::Percent(p) => (u32::from(total) * u32::from(p) / 100) as u16,
        PreviewSize::Cells(n) => n.min(total),
    }
}

/// The help popup for `rows` rows of help: centred, at most 76 columns
/// wide, inside a one-cell margin.
pub fn help_popup(area: Rect, rows: usize) -> Rect {
    let width = area.width.saturating_sub(2).min(76);
    let wanted = u16::try_from(rows + 2).unwrap_or(u16::MAX);
    let height = area.height.saturating_sub(2).min(wanted);
    Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inside(inner: Rect, outer: Rect) -> bool {
        inner.area() == 0 || outer.union(inner) == outer
    }

    #[test]
    fn panes_fit_and_do_not_overlap_at_any_size() {
        for (w, h) in [
            (80, 24),
            (120, 40),
            (100, 30),
            (20, 5),
            (1, 1),
            (0, 0),
            (200, 3),
        ] {
            let area = Rect::new(0, 0, w, h);
            let a = areas(area, PreviewWindow::default());
            let panes = [
                a.filter,
                a.list,
                a.preview_header,
                a.preview_stats,
                a.preview_body,
                a.prompt_header,
                a.prompt_body,
                a.footer,
            ];
            for (i, p) in panes.iter().enumerate() {
                assert!(inside(*p, area), "{w}x{h} pane {i} {p:?}");
                for q in &panes[i + 1..] {
                    assert!(p.intersection(*q).area() == 0, "{w}x{h} {p:?} {q:?}");
                }
            }
        }
    }

    #[test]
    fn stacked_at_80x24_side_by_side_at_120x40() {
        let a = areas(Rect::new(0, 0, 80, 24), PreviewWindow::default());
        assert_eq!(a.separator, None);
        assert_eq!((a.list.height, a.preview_body.height), (7, 9));
        assert_eq!((a.preview_stats.y, a.preview_body.y), (9, 10));
        assert_eq!((a.prompt_body.height, a.footer.y), (3, 23));
        let b = areas(Rect::new(0, 0, 120, 40), PreviewWindow::default());
        assert!(b.separator.is_some());
        assert_eq!((b.list.width, b.list.height), (54, 32));
        assert_eq!(b.preview_body.width, 63);
        assert_eq!(b.prompt_body.height, 5);
    }

    #[test]
    fn preview_window_places_sizes_and_hides_the_preview() {
        let window = |spec: &str| PreviewWindow::parse(spec).unwrap();
        let area = |w, h| Rect::new(0, 0, w, h);
        // Right at 80 columns, 60% of them (separator included).
        let a = areas(area(80, 24), window("right:60%"));
        assert_eq!(a.list.width, 32);
        assert_eq!(a.separator.map(|s| s.x), Some(32));
        assert_eq!(a.preview_body.x, 34);
        // Down at 140 columns, 10 rows of the 18 the list and preview share.
        let b = areas(area(140, 24), window("down:10"));
        assert_eq!(b.separator, None);
        assert_eq!((b.list.width, b.list.height), (140, 8));
        assert_eq!(b.preview_header.y, 9);
        assert_eq!(b.preview_body.height, 8);
        // Hidden: the list has the whole middle, the preview nothing.
        let c = areas(area(120, 40), window("hidden"));
        assert_eq!((c.list.width, c.list.height), (120, 32));
        assert_eq!(c.preview_body.area() + c.preview_header.area(), 0);
        assert_eq!(c.separator, None);
        // Every variant fits and nothing overlaps at any size.
        for spec in [
            "right:1",
            "right:99%",
            "down:1",
            "down:99%",
            "right:500",
            "down:500",
        ] {
            for (w, h) in [(80, 24), (200, 60), (3, 3), (0, 0)] {
                let all = area(w, h);
                let a = areas(all, window(spec));
                let panes = [
                    a.filter,
                    a.list,
                    a.preview_header,
                    a.preview_stats,
                    a.preview_body,
                    a.prompt_header,
                    a.prompt_body,
                    a.footer,
                ];
                for (i, p) in panes.iter().enumerate() {
                    assert!(inside(*p, all), "{spec} {w}x{h} pane {i} {p:?}");
                    for q in &panes[i + 1..] {
                        assert!(p.intersection(*q).area() == 0, "{spec} {w}x{h} {p:?} {q:?}");
                    }
                }
            }
        }
    }
}
