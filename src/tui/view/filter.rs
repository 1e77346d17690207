//! The filter line: its prompt (which says the mode: titles or
//! conversation search), the query scrolled so the cursor shows, and the
//! counts on the right (how many sessions are listed, what is still being
//! read, what the remotes say, the scope and the order), the least
//! important giving way first on a narrow row.

use ratatui::layout::{Position, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use crate::display;
use crate::tui::model::{Focus, Scope, SortOrder, State};
use crate::tui::text;

/// The filter's prompt in title mode.
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

/// The parts of the counts right of the filter, most important first
/// (the last give way first on a narrow row).
fn counts(state: &State) -> Vec<String> {
    let mut out = vec![format!("{}/{}", state.hits.len(), state.total_in_scope())];
    if let Some(search) = &state.search {
        if search.error.is_some() {
            out.push("bad query".to_owned());
        } else if search.running {
            out.push("searching…".to_owned());
        }
        out.extend(remote_status(state));
    }
    if state.discovering {
        out.push("discovering…".to_owned());
    } else if state.titles_pending > 0 {
        out.push("reading titles…".to_owned());
    }
    if state.unreadable > 0 {
        out.push(format!("{} unreadable", state.unreadable));
    }
    out.push(
        match state.scope {
            Scope::All => "all dirs",
            Scope::Here => "this dir",
        }
        .to_owned(),
    );
    // Conversation search ranks its matches by the search's score (more
    // and denser matches, recent activity), whatever the sort.
    out.push(
        match (state.searching(), state.sort) {
            (true, _) => "by match score",
            (false, SortOrder::Activity) => "by activity",
            (false, SortOrder::Created) => "by created",
        }
        .to_owned(),
    );
    out
}

/// The filter line's share: the counts shown (as many of their parts as
/// fit, whole), the columns left for the query, and how many leading
/// characters of the query are scrolled away so the cursor stays visible.
/// The query comes first: the counts get what the query and the cursor
/// leave (at least half the row from 40 columns on), so what is typed
/// always shows, at any width.
fn filter_line(area: Rect, state: &State) -> (String, usize, usize) {
    let avail = (area.width as usize).saturating_sub(prompt(state).len());
    let wanted = display::width(state.query()) + 1;
    let room_for_counts =
        (avail.saturating_sub(wanted + 2)).max(if avail >= 40 { avail / 2 - 1 } else { 0 });
    let mut parts = counts(state);
    let counts = loop {
        let joined = parts.join(" · ");
        if display::width(&joined) <= room_for_counts {
            break joined;
        }
        parts.pop();
        if parts.is_empty() {
            break String::new();
        }
    };
    let gap = if counts.is_empty() { 0 } else { 2 };
    let room = avail.saturating_sub(display::width(&counts) + gap).max(1);
    (counts, room, query_skip(state, room))
}

/// Widest the remotes' part of the counts may be, in columns.
const REMOTE_STATUS_WIDTH: usize = 48;

/// In search mode, what the remotes have yet to say or could not (one
/// short part of the status line, never a wait): `asking devbox…`,
/// `devbox: unreachable after 3 s`. Host names and reasons come from the
/// network and are shown only as printable text.
fn remote_status(state: &State) -> Option<String> {
    let status = state.remote.status();
    let mut parts = Vec::new();
    match &status.asking[..] {
        [] => {}
        [host] => parts.push(format!("asking {host}…")),
        hosts => parts.push(format!("asking {} remotes…", hosts.len())),
    }
    match &status.failed[..] {
        [] => {}
        [(host, why)] => {
            let prefix = format!("{host}: ");
            let why = why.strip_prefix(prefix.as_str()).unwrap_or(why.as_str());
            parts.push(format!("{host}: {why}"));
        }
        failed => parts.push(format!("{} remotes failed", failed.len())),
    }
    (!parts.is_empty()).then(|| display::one_line(&parts.join(" · "), REMOTE_STATUS_WIDTH))
}

/// How many leading characters of the query are scrolled away so that the
/// cursor shows in `room` columns.
fn query_skip(state: &State, room: usize) -> usize {
    let before: Vec<char> = state.query()[..state.filter.cursor()].chars().collect();
    let mut skip = 0;
    let mut width: usize = before.iter().map(|&c| text::char_width(c)).sum();
    while width >= room && skip < before.len() {
        width -= text::char_width(before[skip]);
        skip += 1;
    }
    skip
}

/// Draw the filter line: prompt, query, and counts on the right.
pub fn draw(frame: &mut Frame<'_>, area: Rect, state: &State) {
    if area.height == 0 {
        return;
    }
    let theme = state.setup.theme;
    let focused = state.focus == Focus::Filter;
    let (counts, room, skip) = filter_line(area, state);
    let shown: String = state.query().chars().skip(skip).collect();
    let shown = display::truncate_width(&shown, room);
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
pub fn cursor(area: Rect, state: &State) -> Option<Position> {
    if area.height == 0 {
        return None;
    }
    let (_, _, skip) = filter_line(area, state);
    let before: usize = state.query()[..state.filter.cursor()]
        .chars()
        .skip(skip)
        .map(text::char_width)
        .sum();
    let x = area.x as usize + prompt(state).len() + before;
    (x < (area.x + area.width) as usize).then(|| Position::new(x as u16, area.y))
}
