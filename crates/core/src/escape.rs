//! The one rule for characters that must not reach a terminal as they are
//! ([`is_unsafe`]), and the escaping that applies it to text meant for a
//! person's stderr (messages, paths). Pure.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` would act on a terminal rather than show: a control
/// character (C0, DEL, C1: escape sequences, bells, line moves) or a
/// bidirectional formatting control (U+061C, U+200E/U+200F,
/// U+202A–U+202E, U+2066–U+2069: they reorder the text around them, so
/// "invoice \u{202e}gnp.exe" shows as "invoice exe.png").
/// The one rule for every output meant for a person.
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        )
}

/// `text` for a person reading stderr: every [`is_unsafe`] character but a
/// line break written as a JSON-style escape (`\u001b`), as ids and log text
/// are quoted. Borrowed when nothing needed escaping.
pub fn escape_unsafe(text: &str) -> Cow<'_, str> {
    escape_unsafe_keeping(text, &[])
}

/// [`escape_unsafe`] for a message of several lines: line breaks stay.
pub fn escape_unsafe_lines(text: &str) -> Cow<'_, str> {
    escape_unsafe_keeping(text, &['\n'])
}

fn escape_unsafe_keeping<'a>(text: &'a str, keep: &[char]) -> Cow<'a, str> {
    let needs = |c: char| is_unsafe(c) && !keep.contains(&c);
    if !text.chars().any(needs) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if needs(c) {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A path for stderr: lossily decoded (a name that is not UTF-8 shows
/// U+FFFD) and [`escape_unsafe`]d.
pub fn path_for_person(path: &std::path::Path) -> String {
    escape_unsafe(&path.to_string_lossy()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped() {
        assert_eq!(
            escape_unsafe("/tmp/\u{1b}]0;pwned\u{7}\u{202e}x\ny"),
            "/tmp/\\u001b]0;pwned\\u0007\\u202ex\\u000ay"
        );
        assert_eq!(escape_unsafe_lines("a\u{9b}\nb"), "a\\u009b\nb");
        assert!(matches!(escape_unsafe("plain é 日本"), Cow::Borrowed(_)));
        assert_eq!(
            path_for_person(std::path::Path::new("/a\u{7}b")),
            "/a\\u0007b"
        );
    }
}
