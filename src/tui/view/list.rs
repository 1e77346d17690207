//! The candidate rows: label, shortened cwd, age and store kind, matched
//! characters highlighted, sessions of the target's directory marked with
//! a bar in the gutter and sessions the prompt cites with `@`, a scrollbar
//! on the right when not every row fits. The filter line above them is
//! [`super::filter`].

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use crate::display;
use crate::tui::model::{Scope, SearchRow, SortOrder, State};
use crate::tui::text;
use crate::tui::view::{fit, highlighted};
use session_ref_engine::rank::{EntryId, Query, Ranker, Scored};

/// The mark before the label of a session read from session-ref's
/// archive (its agent's store no longer has it).
pub const ARCHIVED_TAG: &str = "archived · ";

/// Columns of the gutter: highlight, this-directory bar, cited mark.
const GUTTER: usize = 3;
/// The scrollbar's column.
const BAR: usize = 1;
/// The age column, `  AGE `.
const AGE: usize = 2 + 3 + 1;
/// The store kind column (`claude`, `hydra`, …).
const KIND: usize = 6;
/// The cwd's separator from the label.
const CWD_GAP: usize = 2;
/// The narrowest cwd worth showing (its last component, mostly).
const CWD_MIN: usize = 10;

/// Up to this many columns (after the gutter) the label has the row to
/// itself.
const LABEL_ALONE: usize = 24;

/// The columns of a title row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Columns {
    /// The label's (and a shared label's suffix's) columns.
    label: usize,
    /// The cwd's columns, 0 when it is dropped.
    cwd: usize,
    /// Blank columns after the label (the room no column wants).
    pad: usize,
    /// Whether the age shows.
    age: bool,
    /// Whether the store kind shows.
    kind: bool,
}

/// How a row of `width` columns is shared when the widest label shown
/// takes `label` columns and the widest cwd `cwd`. The label comes first:
/// it gets all it needs but for the age's few columns (held back from
/// [`LABEL_ALONE`] columns on), so that it never gets shorter on a wider row; then, from
/// what is left, the age, the cwd at [`CWD_MIN`], the kind, and the cwd
/// grows to its whole width; the rest is padding. Each column shows from
/// some width on and stays shown on wider rows.
fn columns(width: usize, label: usize, cwd: usize) -> Columns {
    let avail = width.saturating_sub(GUTTER + BAR);
    // Held back from the label from LABEL_ALONE columns on, one more per
    // column (so the label's room never shrinks) up to the age's.
    let reserve = avail.saturating_sub(LABEL_ALONE).min(AGE);
    let label = label.min(avail - reserve);
    let mut left = avail - label;
    let mut take = |cols: usize| {
        let fits = left >= cols;
        if fits {
            left -= cols;
        }
        fits
    };
    let age = take(AGE);
    let cwd_min = CWD_MIN.min(cwd.max(1));
    let with_cwd = age && take(CWD_GAP + cwd_min);
    let kind = with_cwd && take(KIND);
    let cwd = if with_cwd {
        let more = cwd.saturating_sub(cwd_min).min(if kind { left } else { 0 });
        left -= more;
        cwd_min + more
    } else {
        0
    };
    Columns {
        label,
        cwd,
        pad: left,
        age,
        kind,
    }
}

/// `text` cut to `room` columns, scrolled so that the matched characters
/// (`marks`, sorted char indices) show, as fzf scrolls an item to its
/// match: when the last match falls past the cut, the text starts with `…`
/// and as late as it must (never past the first match); what is cut at
/// the end is marked `…` too. The marks returned index the text returned.
fn scroll_to_match(text: &str, marks: &[usize], room: usize) -> (String, Vec<usize>) {
    let chars: Vec<char> = text.chars().collect();
    let widths: Vec<usize> = chars.iter().map(|&c| text::char_width(c)).collect();
    let span = |from: usize, to: usize| widths[from..to].iter().sum::<usize>();
    if span(0, chars.len()) <= room {
        return (text.to_owned(), marks.to_vec());
    }
    // Without scrolling: as many characters as fit before a final `…`.
    let mut end = 0;
    while end < chars.len() && span(0, end + 1) < room {
        end += 1;
    }
    let (first, last) = match (marks.first(), marks.last()) {
        (Some(&first), Some(&last)) if last >= end && room >= 3 => {
            (first, last.min(chars.len() - 1))
        }
        _ => {
            let shown: String =
                chars[..end].iter().collect::<String>() + if room > 0 { "…" } else { "" };
            return (shown, marks.iter().copied().filter(|&m| m < end).collect());
        }
    };
    // `…` then chars[start..stop], then `…` unless stop is the end.
    let fits =
        |start: usize, stop: usize| 1 + span(start, stop) + usize::from(stop < chars.len()) <= room;
    let mut start = (1..=first.max(1))
        .find(|&start| fits(start, last + 1))
        .unwrap_or(first.max(1));
    if !fits(start, start + 1) {
        start = last.max(1);
    }
    let mut stop = start;
    while stop < chars.len() && fits(start, stop + 1) {
        stop += 1;
    }
    let mut shown = String::from("…");
    shown.extend(&chars[start..stop]);
    if stop < chars.len() {
        shown.push('…');
    }
    let marks = marks
        .iter()
        .filter(|&&m| (start..stop).contains(&m))
        .map(|&m| m - start + 1)
        .collect();
    (shown, marks)
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
                (None, false) if !state.remote.status().asking.is_empty() => {
                    "searching other machines…".to_owned()
                }
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
    let query = Query::parse(state.query());
    let mut ranker = Ranker::new();
    let cited = state.prompt().referenced_ids();
    let bar = scrollbar(area, state);
    let mut lines = Vec::with_capacity(area.height as usize);
    let visible: Vec<(usize, &Scored)> = state
        .hits
        .iter()
        .enumerate()
        .skip(state.list_offset)
        .take(area.height as usize)
        .collect();
    // What the rows shown hold decides how the columns share the width.
    let rows: Vec<RowText> = visible
        .iter()
        .map(|(_, hit)| RowText::of(state, hit.id))
        .collect();
    let natural = |f: fn(&RowText) -> usize| rows.iter().map(f).max().unwrap_or(0);
    let cols = columns(
        area.width as usize,
        natural(RowText::label_width),
        natural(|r| display::width(&r.cwd)),
    );
    let search_label = {
        let room = (area.width as usize).saturating_sub(GUTTER + BAR);
        natural(|r| display::width(&r.label))
            .min(room * 3 / 5)
            .max(room.min(8))
    };
    for (row, ((index, hit), shown)) in visible.into_iter().zip(&rows).enumerate() {
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
            let room = (area.width as usize).saturating_sub(GUTTER + BAR);
            let host = entry.record.host.as_deref();
            spans.extend(search_spans(
                found,
                &shown.label,
                search_label,
                host,
                room,
                (base, dim, matched),
            ));
            spans.push(Span::styled(bar[row], theme.dim()));
            lines.push(Line::from(spans));
            continue;
        }
        // A session only session-ref's archive still has says so first.
        let tag = if entry.record.archived {
            ARCHIVED_TAG
        } else {
            ""
        };
        // It takes the padding first, then the label's room.
        let from_pad = display::width(tag).min(cols.pad);
        let pad = cols.pad - from_pad;
        let label_width = cols.label.saturating_sub(display::width(tag) - from_pad);
        if !tag.is_empty() {
            spans.push(Span::styled(tag, dim));
        }
        // Sessions sharing a label (a fork and its parent start with the
        // same prompt) are told apart by their latest prompt once it is
        // read (what the column leaves after the label, at least half of
        // it), else by their ids.
        let suffix = match &shown.suffix {
            Some(tail) => {
                let after_label = label_width.saturating_sub(display::width(&shown.label) + 3);
                let room = after_label.max((label_width / 2).saturating_sub(3));
                format!(" · {}", display::truncate_width(tail, room))
            }
            None => String::new(),
        };
        let room = label_width.saturating_sub(display::width(&suffix));
        // Matched characters past the cut scroll the label to them.
        let marks = ranker.highlight(&query, &shown.label, false);
        let (label, shown_marks) = scroll_to_match(&shown.label, &marks, room);
        // The suffix follows the label, the pair padded to the column.
        let label = if suffix.is_empty() {
            fit(&label, room)
        } else {
            label
        };
        spans.extend(highlighted(&label, &shown_marks, base, matched));
        if !suffix.is_empty() {
            let rest = label_width.saturating_sub(display::width(&label));
            spans.push(Span::styled(fit(&suffix, rest), dim));
        }
        // What no column wants: the cwd, age and kind stay right-aligned.
        if pad > 0 {
            spans.push(Span::styled(" ".repeat(pad), base));
        }
        if cols.cwd > 0 {
            let cwd_width = cols.cwd;
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
                    format!("{host}:{}", text::truncate_path(path, room))
                }
                None => text::truncate_path(&shown.cwd, cwd_width),
            };
            let marks = if marks.is_empty() {
                ranker.highlight(&query, &cwd, true)
            } else {
                Vec::new()
            };
            spans.push(Span::styled("  ", base));
            spans.extend(highlighted(&fit(&cwd, cwd_width), &marks, dim, matched));
        }
        if cols.age {
            let age = match (state.sort, entry.activity) {
                (SortOrder::Activity, Some(time)) => display::age_since(time, state.setup.now),
                _ => display::age(&entry.record.created_at, state.setup.now),
            };
            spans.push(Span::styled(format!("  {age:>3} "), dim));
        }
        if cols.kind {
            spans.push(Span::styled(
                format!("{:<6}", entry.record.kind.as_str()),
                dim,
            ));
        }
        spans.push(Span::styled(bar[row], theme.dim()));
        lines.push(Line::from(spans));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// The most columns a shared label's suffix asks for.
const SUFFIX_WANT: usize = 24;

/// The text of a row before it is fitted to columns.
struct RowText {
    /// The label on one line.
    label: String,
    /// What tells a shared label's sessions apart: the latest prompt, or
    /// the start of the id.
    suffix: Option<String>,
    /// The cwd as shown whole (`~` for home; `host:path` for a remote).
    cwd: String,
}

impl RowText {
    fn of(state: &State, id: EntryId) -> RowText {
        let entry = &state.entries[id as usize];
        let suffix = state
            .shared_label(entry.label())
            .then(|| match state.latest_prompt(id) {
                Some(prompt) if prompt != entry.label() => display::one_line(prompt, usize::MAX),
                _ => short_id(&entry.record.id),
            });
        let path = entry.record.cwd.as_deref();
        let cwd = match &entry.record.host {
            Some(host) => format!("{}:{}", display::escape_unsafe(host), path.unwrap_or("-")),
            None => path.map_or_else(
                || "-".to_owned(),
                |c| display::short_path(c, state.setup.home.as_deref()),
            ),
        };
        RowText {
            // A label the 80-character rule cut is marked (the mention keeps it).
            label: display::one_line(
                &display::label_shown(entry.label(), entry.record.kind),
                usize::MAX,
            ),
            suffix,
            cwd,
        }
    }

    /// Columns the label wants: itself, and a suffix at most
    /// [`SUFFIX_WANT`].
    fn label_width(&self) -> usize {
        display::width(&self.label)
            + self
                .suffix
                .as_ref()
                .map_or(0, |s| 3 + display::width(s).min(SUFFIX_WANT))
    }
}

/// A search row after the gutter, `width` columns: the label in its
/// `label_width` columns (the widest label shown, up to three fifths of the
/// row: the label counts most), then (for a session of another machine)
/// its host, then the best matching line with its matches highlighted
/// (scrolled so the first shows), marked when that message is no longer in
/// the snapshot. Styles: (row, dim, matched).
fn search_spans<'a>(
    found: &SearchRow,
    label: &str,
    label_width: usize,
    host: Option<&str>,
    width: usize,
    (base, dim, matched): (Style, Style, Style),
) -> Vec<Span<'a>> {
    let label_width = label_width.min(width);
    let mut spans = vec![Span::styled(fit(label, label_width), base)];
    let mut room = width.saturating_sub(label_width + 2);
    if room == 0 {
        return spans;
    }
    spans.push(Span::styled("  ", base));
    if let Some(host) = host {
        // The machine, as the listing names it before the cwd, at most a
        // third of what is left.
        let host = display::one_line(host, (room / 3).max(1));
        let tag = format!("{host}: ");
        room = room.saturating_sub(display::width(&tag));
        spans.push(Span::styled(tag, dim));
        if room == 0 {
            return spans;
        }
    }
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

    fn row_width(c: Columns) -> usize {
        GUTTER
            + c.label
            + if c.cwd > 0 { CWD_GAP + c.cwd } else { 0 }
            + c.pad
            + if c.age { AGE } else { 0 }
            + if c.kind { KIND } else { 0 }
            + BAR
    }

    #[test]
    fn columns_fill_the_row_and_the_label_gets_its_room_first() {
        for width in [0, 10, 20, 30, 40, 49, 60, 63, 80, 100, 120, 200] {
            for (label, cwd) in [(0, 0), (20, 12), (60, 25), (200, 80)] {
                let c = columns(width, label, cwd);
                assert_eq!(
                    row_width(c),
                    width.max(GUTTER + BAR),
                    "{width} {label} {cwd}"
                );
                // The label gets what it asks for but the age's room.
                let avail = width.saturating_sub(GUTTER + BAR);
                let reserve = avail.saturating_sub(LABEL_ALONE).min(AGE);
                assert_eq!(c.label, label.min(avail - reserve), "{width}");
                // The cwd never gets more than it needs.
                assert!(c.cwd <= cwd.max(1), "{width} {label} {cwd}: {c:?}");
            }
        }
        // The list pane side by side at 140 columns (63) and 200 (90), long
        // labels: the label takes the row but the age.
        assert_eq!(
            columns(63, 80, 23),
            Columns {
                label: 53,
                cwd: 0,
                pad: 0,
                age: true,
                kind: false
            }
        );
        assert_eq!(
            columns(90, 74, 23),
            Columns {
                label: 74,
                cwd: 0,
                pad: 6,
                age: true,
                kind: false
            }
        );
        // Wide: everything shows, the cwd whole.
        assert_eq!(
            columns(200, 80, 60),
            Columns {
                label: 80,
                cwd: 60,
                pad: 42,
                age: true,
                kind: true
            }
        );
        // Short labels leave the other columns their room.
        assert_eq!(
            columns(49, 20, 23),
            Columns {
                label: 20,
                cwd: 11,
                pad: 0,
                age: true,
                kind: true
            }
        );
    }

    proptest::proptest! {
        /// A wider row never shortens the label, and never hides a column
        /// a narrower one showed.
        #[test]
        fn the_label_never_gets_shorter_on_a_wider_row(
            width in 0usize..400,
            more in 1usize..200,
            label in 0usize..300,
            cwd in 0usize..120,
        ) {
            let (narrow, wide) = (columns(width, label, cwd), columns(width + more, label, cwd));
            proptest::prop_assert!(narrow.label <= wide.label, "{narrow:?} {wide:?}");
            proptest::prop_assert!(narrow.cwd <= wide.cwd, "{narrow:?} {wide:?}");
            proptest::prop_assert!(!narrow.age || wide.age);
            proptest::prop_assert!(!narrow.kind || wide.kind);
            proptest::prop_assert_eq!(row_width(wide), (width + more).max(GUTTER + BAR));
        }
    }

    #[test]
    fn a_match_past_the_cut_scrolls_the_label_to_it() {
        let label = "TypeScript SDK: typed client for the sessions endpoint";
        let at = |needle: &str| label.find(needle).unwrap();
        // Fits: unchanged.
        assert_eq!(
            scroll_to_match("short", &[1], 10),
            ("short".to_owned(), vec![1])
        );
        // A match within the cut: cut at the end, marks kept.
        assert_eq!(
            scroll_to_match(label, &[0, 1], 12),
            ("TypeScript …".to_owned(), vec![0, 1])
        );
        // A match past the cut: `…`, the text up to the match, `…`.
        let marks: Vec<usize> = (at("sessions")..at("sessions") + 8).collect();
        let (shown, moved) = scroll_to_match(label, &marks, 20);
        assert_eq!(shown, "…t for the sessions…");
        assert!(display::width(&shown) <= 20, "{shown}");
        let chars: Vec<char> = shown.chars().collect();
        let highlighted: String = moved.iter().map(|&m| chars[m]).collect();
        assert_eq!(highlighted, "sessions");
        assert!(shown.starts_with('…') && shown.ends_with('…'), "{shown}");
        // The match at the very end: no trailing `…`.
        let marks: Vec<usize> = (at("endpoint")..label.len()).collect();
        let (shown, moved) = scroll_to_match(label, &marks, 20);
        assert!(
            shown.starts_with('…') && shown.ends_with("endpoint"),
            "{shown}"
        );
        assert_eq!(display::width(&shown), 20);
        let chars: Vec<char> = shown.chars().collect();
        assert_eq!(
            moved.iter().map(|&m| chars[m]).collect::<String>(),
            "endpoint"
        );
        // Matches too far apart for the room: the first one shows.
        let (shown, moved) = scroll_to_match(label, &[at("SDK"), at("endpoint")], 12);
        assert!(shown.starts_with("…SDK"), "{shown}");
        assert_eq!(moved, vec![1]);
    }
}
