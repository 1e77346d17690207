//! Small text helpers shared by the table output, the picker and stderr:
//! one-line labels, `~` paths, ages, aligned columns, and the one rule for
//! characters that must not reach a terminal as they are ([`is_unsafe`]).
//! Pure.

use unicode_width::UnicodeWidthChar;

use session_ref_core::time::Instant;

/// A label as the picker shows it: with a trailing `…` when it is a first
/// prompt that the 80-character rule of SPEC §4 cut, that is the label of
/// a session of another agent (not a native one, whose titles are its
/// own) that is exactly [`TITLE_CHARS`] characters long. Only shown so:
/// mentions, `candidates` and snapshots keep the contract's label. An
/// agent's own title of exactly that length is taken for a cut one too (a
/// trailing `…` too many); a cut landing on a blank is trimmed shorter and
/// not marked.
///
/// [`TITLE_CHARS`]: session_ref_stores::kinds::foreign::TITLE_CHARS
pub fn label_shown(
    label: &str,
    kind: session_ref_stores::model::StoreKind,
) -> std::borrow::Cow<'_, str> {
    use session_ref_stores::kinds::{foreign::TITLE_CHARS, native};
    if kind != native::KIND && label.chars().count() == TITLE_CHARS {
        std::borrow::Cow::Owned(format!("{label}…"))
    } else {
        std::borrow::Cow::Borrowed(label)
    }
}

pub use session_ref_core::escape::{
    escape_unsafe, escape_unsafe_lines, is_unsafe, path_for_person,
};

/// `c` as tables and the picker draw it: a space when [`is_unsafe`].
pub fn safe_char(c: char) -> char {
    if is_unsafe(c) {
        ' '
    } else {
        c
    }
}

/// `text` on one line (runs of whitespace become one space, [`is_unsafe`]
/// characters are spaces), cut to at most `max_width` terminal columns with
/// a trailing `…`.
pub fn one_line(text: &str, max_width: usize) -> String {
    let safe: String = text.chars().map(safe_char).collect();
    let collapsed = safe.split_whitespace().collect::<Vec<_>>().join(" ");
    truncate_width(&collapsed, max_width)
}

/// Cut to at most `max_width` columns, ending in `…` when cut.
pub fn truncate_width(text: &str, max_width: usize) -> String {
    if width(text) <= max_width {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > max_width {
            break;
        }
        out.push(c);
        used += w;
    }
    if max_width > 0 {
        out.push('…');
    }
    out
}

/// Terminal columns of `text`.
pub fn width(text: &str) -> usize {
    text.chars().map(|c| c.width().unwrap_or(0)).sum()
}

/// `path` with the home directory shown as `~`.
pub fn short_path(path: &str, home: Option<&str>) -> String {
    match home.filter(|h| !h.is_empty() && *h != "/") {
        Some(home) if path == home => "~".to_owned(),
        Some(home) => match path.strip_prefix(home) {
            Some(rest) if rest.starts_with('/') => format!("~{rest}"),
            _ => path.to_owned(),
        },
        None => path.to_owned(),
    }
}

/// Age of an RFC 3339 time relative to `now` (Unix seconds): `42s`, `5m`,
/// `3h`, `2d`, `7w`, `1y`; `?` when it does not parse.
pub fn age(created_at: &str, now: i64) -> String {
    match Instant::parse_rfc3339(created_at) {
        Some(instant) => age_since(instant.unix_seconds(), now),
        None => "?".to_owned(),
    }
}

/// Age of a time in Unix seconds relative to `now`, as [`age`] writes it.
pub fn age_since(unix: i64, now: i64) -> String {
    match (now - unix).max(0) {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 86_400 => format!("{}h", s / 3600),
        s if s < 86_400 * 14 => format!("{}d", s / 86_400),
        s if s < 86_400 * 365 => format!("{}w", s / (86_400 * 7)),
        s => format!("{}y", s / (86_400 * 365)),
    }
}

/// A byte count for people: `917 B`, `12.3 KiB`, `44.9 MiB`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// `text` with every [`is_unsafe`] character shown as a space, so that a
/// title or path cannot move the cursor, recolour or reorder a terminal (as
/// the picker draws them).
pub fn printable(text: &str) -> String {
    text.chars().map(safe_char).collect()
}

/// Left-aligned columns separated by two spaces; the last column is not
/// padded. Cells are [`printable`].
pub fn table<const N: usize>(header: &[&str; N], rows: &[[String; N]]) -> String {
    let rows: Vec<[String; N]> = rows
        .iter()
        .map(|row| row.each_ref().map(|cell| printable(cell)))
        .collect();
    let mut widths = header.map(width);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(width(cell));
        }
    }
    let mut out = String::new();
    let mut line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut text = String::new();
        for (i, cell) in cells.enumerate() {
            if i > 0 {
                text.push_str("  ");
            }
            text.push_str(cell);
            if i + 1 < N {
                text.extend(std::iter::repeat_n(' ', widths[i] - width(cell)));
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(&mut header.iter().copied());
    for row in &rows {
        line(&mut row.iter().map(String::as_str));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_paths() {
        assert_eq!(one_line("fix\n  the   bug", 80), "fix the bug");
        assert_eq!(one_line("abcdefgh", 5), "abcd…");
        assert_eq!(truncate_width("日本語テキスト", 7), "日本語…");
        assert_eq!(short_path("/home/u/src", Some("/home/u")), "~/src");
        assert_eq!(short_path("/home/user2", Some("/home/u")), "/home/user2");
        assert_eq!(short_path("/home/u", Some("/home/u")), "~");
    }

    #[test]
    fn bidi_controls_and_escapes_are_neutralised() {
        assert_eq!(one_line("invoice \u{202e}gnp.exe", 80), "invoice gnp.exe");
        assert_eq!(printable("a\u{2066}b\u{200f}c\u{1b}d"), "a b c d");
        let rows = [["\u{202e}x".to_owned(), "/w\u{2069}".to_owned()]];
        assert_eq!(table(&["A", "B"], &rows), "A   B\n x  /w\n");
    }

    #[test]
    fn ages() {
        let t = Instant::parse_rfc3339("2025-01-01T00:00:00Z")
            .unwrap()
            .unix_seconds();
        assert_eq!(age("2025-01-01T00:00:00Z", t + 30), "30s");
        assert_eq!(age("2025-01-01T00:00:00Z", t + 3 * 3600), "3h");
        assert_eq!(age("2025-01-01T00:00:00Z", t + 2 * 86_400), "2d");
        assert_eq!(age("nope", t), "?");
        assert_eq!(age_since(t, t + 8 * 86_400), "8d");
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human_bytes(917), "917 B");
        assert_eq!(human_bytes(1024), "1.0 KiB");
        assert_eq!(human_bytes(65_536), "64.0 KiB");
        assert_eq!(human_bytes(47_114_563), "44.9 MiB");
    }

    #[test]
    fn aligned_table() {
        let rows = [
            ["a".to_owned(), "x".to_owned()],
            ["long".to_owned(), "y".to_owned()],
        ];
        assert_eq!(table(&["H1", "H2"], &rows), "H1    H2\na     x\nlong  y\n");
    }

    #[test]
    fn table_cells_cannot_drive_the_terminal() {
        let rows = [[
            "\u{1b}]0;title\u{7}red\u{1b}[31m".to_owned(),
            "/w\u{9b}2J".to_owned(),
        ]];
        assert_eq!(
            table(&["LABEL", "CWD"], &rows),
            "LABEL               CWD\n ]0;title red [31m  /w 2J\n"
        );
    }
}
