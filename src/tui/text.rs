//! Text primitives shared by the picker's inputs and panes: character
//! boundaries, word motions and width-aware wrapping (with `textwrap`).
//! Pure.

use unicode_width::UnicodeWidthChar;

/// Terminal columns of one character as the picker draws it (control
/// characters, tabs and bidi controls take one column: they are drawn as a
/// space, by [`crate::display::safe_char`]).
pub fn char_width(c: char) -> usize {
    if crate::display::is_unsafe(c) {
        1
    } else {
        c.width().unwrap_or(0)
    }
}

/// The byte offset of the character boundary before `at` (0 at the start).
pub fn prev_boundary(text: &str, at: usize) -> usize {
    text[..at].char_indices().next_back().map_or(0, |(i, _)| i)
}

/// The byte offset of the character boundary after `at` (the length at the end).
pub fn next_boundary(text: &str, at: usize) -> usize {
    text[at..]
        .chars()
        .next()
        .map_or(text.len(), |c| at + c.len_utf8())
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Start of the word before `at` (readline's `backward-word`, fzf's alt-b).
pub fn word_left(text: &str, at: usize) -> usize {
    let mut pos = at;
    let mut seen_word = false;
    for (i, c) in text[..at].char_indices().rev() {
        if is_word(c) {
            seen_word = true;
        } else if seen_word {
            break;
        }
        pos = i;
    }
    pos
}

/// End of the word after `at` (readline's `forward-word`, fzf's alt-f).
pub fn word_right(text: &str, at: usize) -> usize {
    let mut seen_word = false;
    for (i, c) in text[at..].char_indices() {
        if is_word(c) {
            seen_word = true;
        } else if seen_word {
            return at + i;
        }
    }
    text.len()
}

/// Where `unix-word-rubout` (ctrl-w) deletes back to from `at`: past any
/// whitespace, then past the run of non-whitespace before it.
pub fn rubout_start(text: &str, at: usize) -> usize {
    let mut pos = at;
    let mut seen_word = false;
    for (i, c) in text[..at].char_indices().rev() {
        if !c.is_whitespace() {
            seen_word = true;
        } else if seen_word {
            break;
        }
        pos = i;
    }
    pos
}

/// Start of the line holding `at`.
pub fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// End of the line holding `at` (before its newline).
pub fn line_end(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |i| at + i)
}

/// Wrap `text` to rows of at most `width` columns. Newlines start new
/// rows; a row breaks at a space when a word does not fit, else inside the
/// word. Control characters are drawn as spaces; the spaces a break lands
/// on are dropped. A zero width yields no rows.
///
/// `textwrap` does the wrapping (first fit, no hyphenation), measuring
/// columns with `unicode-width` as the rest of the picker does.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    if width == 0 {
        return Vec::new();
    }
    let drawn: String = text
        .chars()
        .map(|c| {
            if c == '\n' {
                c
            } else {
                crate::display::safe_char(c)
            }
        })
        .collect();
    let options = textwrap::Options::new(width)
        .break_words(true)
        .word_separator(textwrap::WordSeparator::AsciiSpace)
        .word_splitter(textwrap::WordSplitter::NoHyphenation)
        .wrap_algorithm(textwrap::WrapAlgorithm::FirstFit);
    textwrap::wrap(&drawn, options)
        .into_iter()
        .map(|row| row.into_owned())
        .collect()
}

/// Cut `text` to at most `max_width` columns keeping its end, starting with
/// `…` when cut (for paths, whose tail says most).
pub fn truncate_left(text: &str, max_width: usize) -> String {
    let total: usize = text.chars().map(char_width).sum();
    if total <= max_width {
        return text.to_owned();
    }
    if max_width == 0 {
        return String::new();
    }
    let mut kept = Vec::new();
    let mut used = 1;
    for c in text.chars().rev() {
        let w = char_width(c);
        if used + w > max_width {
            break;
        }
        kept.push(c);
        used += w;
    }
    std::iter::once('…').chain(kept.into_iter().rev()).collect()
}

/// Cut a path to at most `max_width` columns keeping its last components
/// whole, as fzf and television do: `…/proj/sub` (the `…` stands for the
/// components cut). When even the last component does not fit, its tail
/// is kept, as [`truncate_left`] does.
pub fn truncate_path(path: &str, max_width: usize) -> String {
    let width = |s: &str| s.chars().map(char_width).sum::<usize>();
    if width(path) <= max_width {
        return path.to_owned();
    }
    // The longest tail starting at a `/` that fits after the `…`.
    let best = path
        .match_indices('/')
        .map(|(at, _)| at)
        .find(|&at| at > 0 && width(&path[at..]) < max_width);
    match best {
        Some(at) => format!("…{}", &path[at..]),
        None => {
            let last = path
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or(path);
            truncate_left(last, max_width)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundaries_respect_multibyte_characters() {
        let s = "aé😀b";
        assert_eq!(next_boundary(s, 0), 1);
        assert_eq!(next_boundary(s, 1), 3);
        assert_eq!(next_boundary(s, 3), 7);
        assert_eq!(prev_boundary(s, 7), 3);
        assert_eq!(prev_boundary(s, 0), 0);
        assert_eq!(next_boundary(s, s.len()), s.len());
    }

    #[test]
    fn word_motions() {
        let s = "fix the  parser-bug now";
        assert_eq!(word_left(s, s.len()), 20);
        assert_eq!(word_left(s, 20), 16);
        assert_eq!(word_left(s, 16), 9);
        assert_eq!(word_right(s, 0), 3);
        assert_eq!(word_right(s, 3), 7);
        assert_eq!(rubout_start(s, 20), 9);
        assert_eq!(rubout_start(s, 9), 4);
        assert_eq!(rubout_start("  ", 2), 0);
    }

    #[test]
    fn lines() {
        let s = "ab\ncd\n";
        assert_eq!(line_start(s, 4), 3);
        assert_eq!(line_end(s, 4), 5);
        assert_eq!(line_start(s, 2), 0);
        assert_eq!(line_end(s, 6), 6);
    }

    #[test]
    fn wrapping_prefers_spaces_and_keeps_the_words() {
        assert_eq!(wrap("the quick brown fox", 10), ["the quick", "brown fox"]);
        assert_eq!(wrap("tab\there\r", 20), ["tab here"]);
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("a\n\nb", 5), ["a", "", "b"]);
        assert_eq!(wrap("日本語テキスト", 5), ["日本", "語テ", "キス", "ト"]);
        assert_eq!(wrap("ab  cd", 2), ["ab", "cd"]);
        assert!(wrap("x", 0).is_empty());
        for row in wrap("lorem ipsum dolor sit amet, consectetur adipiscing", 7) {
            assert!(row.chars().map(char_width).sum::<usize>() <= 7, "{row}");
        }
    }

    #[test]
    fn left_truncation_keeps_the_tail() {
        assert_eq!(truncate_left("~/src/session-ref", 10), "…ssion-ref");
        assert_eq!(truncate_left("~/src", 10), "~/src");
        assert_eq!(truncate_left("abc", 0), "");
    }

    #[test]
    fn path_truncation_cuts_at_a_component() {
        let path = "~/work/clients/acme/proj/sub";
        assert_eq!(truncate_path(path, 40), path);
        assert_eq!(truncate_path(path, path.len()), path);
        assert_eq!(truncate_path(path, 15), "…/acme/proj/sub");
        assert_eq!(truncate_path(path, 14), "…/proj/sub");
        assert_eq!(truncate_path(path, 10), "…/proj/sub");
        assert_eq!(truncate_path(path, 9), "…/sub");
        // The last component alone too long: its tail.
        assert_eq!(truncate_path("/srv/session-reference", 8), "…ference");
        assert_eq!(truncate_path("/srv/a", 0), "");
        for max in 0..35 {
            let cut = truncate_path(path, max);
            assert!(
                cut.chars().map(char_width).sum::<usize>() <= max,
                "{max}: {cut}"
            );
            assert!(path.ends_with(cut.trim_start_matches('…')), "{max}: {cut}");
        }
    }
}
