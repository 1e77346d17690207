//! The filter line and the candidate rows: label, shortened cwd, age and
//! store kind, matched characters highlighted, sessions of the target's
//! directory marked with a bar in the gutter and sessions the prompt cites
//! with `@`, a scrollbar on the right when not every row fits.

use ratatui::layout::{Position, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use crate::display;
use crate::tui::rank::{Query, Ranker};
use crate::tui::state::{Focus, Scope, SearchRow, SortOrder, State};
use crate::tui::text;
use crate::tui::view::{fit, highlighted};

const PROMPT: &str = "> ";
/// The filter's prompt in conversation search mode.
const SEARCH_PROMPT: &str = "search: ";

/// The filter's prompt: it says which mode the filter is in.
fn prompt(state: &State) -> &'static str {
    if state.searching() {
        SEARCH_PROMPT
    } else {
        PROMPT
    }
}

fn counts(state: &State) -> String {
    let mut out = format!("{}/{}", state.hits.len(), state.total_in_scope());
    if let Some(search) = &state.search {
        if search.error.is_some() {
            out.push_str(" · bad query");
        } else if search.running {
            out.push_str(" · searching…");
        }
    }
    if state.discovering {
        out.push_str(" · discovering…");
    } else if state.titles_pending > 0 {
        out.push_str(" · reading titles…");
    }
    if state.unreadable > 0 {
        out.push_str(&format!(" · {} unreadable", state.unreadable));
    }
    out.push_str(match state.scope {
        Scope::All => " · all dirs",
        Scope::Here => " · this dir",
    });
    // Conversation search ranks its matches by the search's score (more
    // and denser matches, recent activity), whatever the sort.
    out.push_str(match (state.searching(), state.sort) {
        (true, _) => " · by match score",
        (false, SortOrder::Activity) => " · by activity",
        (false, SortOrder::Created) => " · by created",
    });
    out
}

/// Columns left for the query text, and how many leading characters of the
/// query are scrolled away so the cursor stays visible.
fn query_window(area: Rect, state: &State) -> (usize, usize) {
    let room = (area.width as usize)
        .saturating_sub(prompt(state).len() + display::width(&counts(state)) + 2)
        .max(1);
    let before: Vec<char> = state.query()[..state.filter.cursor()].chars().collect();
    let mut skip = 0;
    let mut width: usize = before.iter().map(|&c| text::char_width(c)).sum();
    while width >= room && skip < before.len() {
        width -= text::char_width(before[skip]);
        skip += 1;
    }
    (room, skip)
}

/// Draw the filter line: prompt, query, and counts on the right.
pub fn draw_filter(frame: &mut Frame<'_>, area: Rect, state: &State) {
    if area.height == 0 {
        return;
    }
    let theme = state.setup.theme;
    let focused = state.focus == Focus::Filter;
    let (room, skip) = query_window(area, state);
    let shown: String = state.query().chars().skip(skip).collect();
    let shown = display::truncate_width(&shown, room);
    let counts = counts(state);
    let pad = (area.width as usize)
        .saturating_sub(prompt(state).len() + display::width(&shown) + display::width(&counts));
    let prompt_style = if focused { theme.accent() } else { theme.dim() };
    let query_style = if focused { Style::new() } else { theme.dim() };
    let line = Line::from(vec![
        Span::styled(prompt(state), prompt_style),
        Span::styled(shown, query_style),
        Span::raw(" ".repeat(pad)),
        Span::styled(counts, theme.dim()),
    ]);
    frame.render_widget(Paragraph::new(line), area);
}

/// Where the terminal cursor goes when the filter has the focus.
pub fn filter_cursor(area: Rect, state: &State) -> Option<Position> {
    if area.height == 0 {
        return None;
    }
    let (_, skip) = query_window(area, state);
    let before: usize = state.query()[..state.filter.cursor()]
        .chars()
        .skip(skip)
        .map(text::char_width)
        .sum();
    let x = area.x as usize + prompt(state).len() + before;
    (x < (area.x + area.width) as usize).then(|| Position::new(x as u16, area.y))
}

/// Columns of the gutter: highlight, this-directory bar, cited mark.
const GUTTER: usize = 3;
/// Columns after the cwd: `  AGE kind  ` and the scrollbar.
const TAIL: usize = 2 + 3 + 1 + 6 + 1;

/// Column widths of a row: (label, cwd); gutter, age, kind and scrollbar
/// are fixed.
fn widths(width: usize) -> (usize, usize) {
    let cwd = (width / 4).clamp(8, 30);
    let label = width.saturating_sub(GUTTER + 2 + cwd + TAIL);
    if label < 12 {
        (width.saturating_sub(GUTTER + TAIL), 0)
    } else {
        (label, cwd)
    }
}

/// The list's scrollbar: a thumb over the track when not every row fits.
fn scrollbar(area: Rect, state: &State) -> Vec<&'static str> {
    let height = area.height as usize;
    let total = state.hits.len();
    if total <= height || height == 0 {
        return vec![" "; height];
    }
    let thumb = (height * height).div_ceil(total).clamp(1, height);
    let room = height - thumb;
    let scrollable = total - height;
    let top = (state.list_offset * room + scrollable / 2) / scrollable;
    (0..height)
        .map(|row| {
            if (top..top + thumb).contains(&row) {
                "┃"
            } else {
                "│"
            }
        })
        .collect()
}

/// Draw the candidate rows (or why there are none).
pub fn draw(frame: &mut Frame<'_>, area: Rect, state: &State) {
    if area.height == 0 {
        return;
    }
    let theme = state.setup.theme;
    if state.hits.is_empty() {
        let message = if state.entries.is_empty() && state.discovering {
            "discovering sessions…".to_owned()
        } else if state.entries.is_empty() {
            state.setup.empty_hint.clone()
        } else if let Some(search) = &state.search {
            match (&search.error, search.running) {
                (Some(why), _) => format!("cannot search: {why}"),
                _ if state.query().trim().is_empty() => {
                    "type words, \"a phrase\" or re:regex to search what was said (ctrl-t: titles)"
                        .to_owned()
                }
                (None, true) => "searching conversations…".to_owned(),
                (None, false) => format!("no conversation matches {:?}", state.query()),
            }
        } else if state.scope == Scope::Here && state.here_count == 0 {
            "no session in this directory (ctrl-o lists all)".to_owned()
        } else {
            format!("no session matches {:?}", state.query())
        };
        let lines: Vec<Line<'_>> = message
            .lines()
            .map(|l| Line::styled(format!("  {l}"), theme.dim()))
            .collect();
        frame.render_widget(Paragraph::new(lines), area);
        return;
    }
    let (label_width, cwd_width) = widths(area.width as usize);
    let query = Query::parse(state.query());
    let mut ranker = Ranker::new();
    let cited = state.prompt().referenced_ids();
    let bar = scrollbar(area, state);
    let mut lines = Vec::with_capacity(area.height as usize);
    let visible = state
        .hits
        .iter()
        .enumerate()
        .skip(state.list_offset)
        .take(area.height as usize);
    for (row, (index, hit)) in visible.enumerate() {
        let entry = &state.entries[hit.id as usize];
        let selected = index == state.selected;
        let base = if selected {
            theme.selected()
        } else {
            Style::new()
        };
        let dim = if selected {
            theme.selected()
        } else {
            theme.dim()
        };
        let matched = base.patch(theme.matched());
        let is_cited = cited.contains(&entry.record.id);
        let mut spans = vec![
            Span::styled(if selected { "›" } else { " " }, base.patch(theme.accent())),
            Span::styled(
                if entry.group == 0 { "▌" } else { " " },
                base.patch(theme.here()),
            ),
            // Only a cited row's mark takes the chip style (a blank cell
            // in it on every row drew a stripe down the list).
            if is_cited {
                Span::styled("@", base.patch(theme.chip()))
            } else {
                Span::styled(" ", base)
            },
        ];
        if let Some(found) = state.search_row(hit.id) {
            let room = (area.width as usize).saturating_sub(GUTTER + 1);
            let label = display::label_shown(entry.label(), entry.record.kind);
            spans.extend(search_spans(found, &label, room, base, dim, matched));
            spans.push(Span::styled(bar[row], theme.dim()));
            lines.push(Line::from(spans));
            continue;
        }
        let label = display::one_line(
            &display::label_shown(entry.label(), entry.record.kind),
            usize::MAX,
        );
        // Sessions sharing a label (a fork and its parent start with the
        // same prompt) are told apart by their latest prompt once it is
        // read (at most half the column), else by their ids.
        let suffix = if state.shared_label(entry.label()) {
            match state.latest_prompt(hit.id) {
                Some(prompt) if prompt != entry.label() => format!(
                    " · {}",
                    display::one_line(prompt, (label_width / 2).saturating_sub(3))
                ),
                _ => format!(" · {}", short_id(&entry.record.id)),
            }
        } else {
            String::new()
        };
        let room = label_width.saturating_sub(display::width(&suffix));
        // The suffix follows the label, the pair padded to the column.
        let label = if suffix.is_empty() {
            fit(&label, room)
        } else {
            display::truncate_width(&label, room)
        };
        let marks = ranker.highlight(&query, &label, false);
        spans.extend(highlighted(&label, &marks, base, matched));
        if !suffix.is_empty() {
            let rest = label_width.saturating_sub(display::width(&label));
            spans.push(Span::styled(fit(&suffix, rest), dim));
        }
        if cwd_width > 0 {
            let cwd = entry.record.cwd.as_deref().map_or_else(
                || "-".to_owned(),
                |c| display::short_path(c, state.setup.home.as_deref()),
            );
            // A session of another machine names it before its cwd, and
            // the path gives way before the host does (the local home is
            // not its home: the path is shown whole).
            let cwd = match &entry.record.host {
                Some(host) => {
                    let host = display::truncate_width(
                        &display::escape_unsafe(host),
                        cwd_width.saturating_sub(2).max(1),
                    );
                    let room = cwd_width.saturating_sub(display::width(&host) + 1);
                    let path = entry.record.cwd.as_deref().unwrap_or("-");
                    format!("{host}:{}", text::truncate_left(path, room))
                }
                None => text::truncate_left(&cwd, cwd_width),
            };
            let marks = if marks.is_empty() {
                ranker.highlight(&query, &cwd, true)
            } else {
                Vec::new()
            };
            spans.push(Span::styled("  ", base));
            spans.extend(highlighted(&fit(&cwd, cwd_width), &marks, dim, matched));
        }
        let age = match (state.sort, entry.activity) {
            (SortOrder::Activity, Some(time)) => display::age_since(time, state.setup.now),
            _ => display::age(&entry.record.created_at, state.setup.now),
        };
        spans.push(Span::styled(format!("  {age:>3} "), dim));
        spans.push(Span::styled(
            format!("{:<6}", entry.record.kind.as_str()),
            dim,
        ));
        spans.push(Span::styled(bar[row], theme.dim()));
        lines.push(Line::from(spans));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// A search row after the gutter, `width` columns: the label, then the
/// best matching line with its matches highlighted (scrolled so the first
/// shows), marked when that message is no longer in the snapshot.
fn search_spans<'a>(
    found: &SearchRow,
    label: &str,
    width: usize,
    base: Style,
    dim: Style,
    matched: Style,
) -> Vec<Span<'a>> {
    let label_width = (width / 3).clamp(8, 28).min(width);
    let mut spans = vec![Span::styled(
        fit(&display::one_line(label, usize::MAX), label_width),
        base,
    )];
    let mut room = width.saturating_sub(label_width + 2);
    if room == 0 {
        return spans;
    }
    spans.push(Span::styled("  ", base));
    let hit = &found.best;
    if hit.before_compaction && room > NOT_IN_SNAPSHOT.len() + 8 {
        spans.push(Span::styled(NOT_IN_SNAPSHOT, dim));
        room -= NOT_IN_SNAPSHOT.chars().count();
    }
    // Byte ranges of the snippet as character indices, for `highlighted`.
    let snippet = display::printable(&hit.snippet);
    let mut marks: Vec<usize> = Vec::new();
    if snippet == hit.snippet {
        for range in &hit.highlights {
            let start = snippet[..range.start].chars().count();
            let len = snippet[range.clone()].chars().count();
            marks.extend(start..start + len);
        }
    }
    let first = marks.first().copied().unwrap_or(0);
    let (text, marks) = if first + 4 > room && first > room / 3 {
        let skip = first - room / 3;
        let text: String = std::iter::once('…')
            .chain(snippet.chars().skip(skip + 1))
            .collect();
        (
            text,
            marks
                .into_iter()
                .filter(|&m| m > skip)
                .map(|m| m - skip)
                .collect(),
        )
    } else {
        (snippet, marks)
    };
    spans.extend(highlighted(&fit(&text, room), &marks, base, matched));
    spans
}

/// Marks a hit in a message a compaction replaced.
const NOT_IN_SNAPSHOT: &str = "[not in snapshot] ";

/// The first 8 characters of an id (a UUID's first group), enough to tell
/// sessions apart at a glance.
fn short_id(id: &str) -> String {
    display::one_line(&id.chars().take(8).collect::<String>(), 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_fill_the_row() {
        for width in [40, 60, 80, 120, 200] {
            let (label, cwd) = widths(width);
            let sep = if cwd > 0 { 2 } else { 0 };
            assert_eq!(GUTTER + label + sep + cwd + TAIL, width, "{width}");
        }
        assert_eq!(widths(80), (42, 20));
        assert_eq!(widths(30).1, 0);
    }
}
