//! Inline mentions: `@[label](hydra-session:…)` and bare canonical URIs (SPEC §5).
//!
//! The scanner reproduces the reference's JavaScript regular expression
//! `@\[((?:\\.|[^\\\]])*)\]\((hydra-session:[^\s)]*)\)|(hydra-session:[A-Za-z0-9_-]+)`
//! (flags `gu`) by hand: JavaScript's `.` and `\s` differ from Rust's, and a
//! direct scan is linear and allocation-free until a match is found.

use std::ops::Range;

use crate::error::Result;
use crate::reference::uri::{self, SCHEME};

/// A session cited by a message: its id and the label the text showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// The referenced session id.
    pub session_id: String,
    /// The readable label (unescaped Markdown label, or the id for a bare URI).
    pub label: String,
}

/// The result of [`parse_text`]: readable text plus the references, in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ParsedText {
    /// The text with every mention replaced by `@label`.
    pub text: String,
    /// References in order of appearance (duplicates kept).
    pub references: Vec<Reference>,
}

/// One syntactic mention found by [`scan`], not yet decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MentionSpan {
    /// Byte range of the whole mention in the scanned text.
    pub range: Range<usize>,
    /// Byte range of the raw (escaped) label, for a Markdown mention.
    pub label: Option<Range<usize>>,
    /// Byte range of the URI, scheme included.
    pub uri: Range<usize>,
}

/// The canonical Markdown mention of a session.
pub fn format_mention(session_id: &str, label: Option<&str>) -> String {
    let label = label.unwrap_or(session_id);
    let uri = uri::encode(session_id);
    let mut out = String::with_capacity(label.len() + uri.len() + 5);
    out.push_str("@[");
    for c in label.chars() {
        if c == '\\' || c == ']' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push_str("](");
    out.push_str(&uri);
    out.push(')');
    out
}

/// Replace every mention in `text` by `@label` and collect the references.
///
/// Any mention whose URI is not canonical fails the whole parse with
/// `SESSION_REFERENCE_INVALID_REFERENCE`.
pub fn parse_text(text: &str) -> Result<ParsedText> {
    let mut parsed = ParsedText::default();
    let mut copied = 0;
    for span in scan(text) {
        let session_id = uri::decode(&text[span.uri.clone()])?;
        let label = match &span.label {
            Some(raw) => unescape_label(&text[raw.clone()]),
            None => session_id.clone(),
        };
        parsed.text.push_str(&text[copied..span.range.start]);
        parsed.text.push('@');
        parsed.text.push_str(&label);
        copied = span.range.end;
        parsed.references.push(Reference { session_id, label });
    }
    parsed.text.push_str(&text[copied..]);
    Ok(parsed)
}

/// Find every mention in `text`, left to right, without decoding URIs.
pub fn scan(text: &str) -> Vec<MentionSpan> {
    let mut spans = Vec::new();
    let mut pos = 0;
    while pos < text.len() {
        let rest = &text[pos..];
        let found = if rest.starts_with("@[") {
            match_markdown(text, pos)
        } else if rest.starts_with(SCHEME) {
            match_bare(text, pos)
        } else {
            None
        };
        match found {
            Some(span) => {
                pos = span.range.end;
                spans.push(span);
            }
            None => {
                // Jump to the next byte that can start a match.
                let skip = rest.chars().next().map_or(1, char::len_utf8);
                let next = memchr::memchr2(b'@', b'h', &rest.as_bytes()[skip..]);
                pos += skip + next.unwrap_or(rest.len() - skip);
            }
        }
    }
    spans
}

fn match_markdown(text: &str, start: usize) -> Option<MentionSpan> {
    let label_start = start + 2;
    let mut chars = text[label_start..].char_indices();
    let mut label_end = text.len();
    while let Some((offset, c)) = chars.next() {
        match c {
            ']' => {
                label_end = label_start + offset;
                break;
            }
            '\\' => match chars.next() {
                Some((_, next)) if !is_line_terminator(next) => {}
                _ => return None,
            },
            _ => {}
        }
    }
    let after_label = &text[label_end..];
    let uri_start = label_end + 2;
    if !after_label.starts_with("](") || !text[uri_start..].starts_with(SCHEME) {
        return None;
    }
    let tail = &text[uri_start + SCHEME.len()..];
    let stop = tail.find(|c: char| c == ')' || is_js_whitespace(c))?;
    if !tail[stop..].starts_with(')') {
        return None;
    }
    let uri_end = uri_start + SCHEME.len() + stop;
    Some(MentionSpan {
        range: start..uri_end + 1,
        label: Some(label_start..label_end),
        uri: uri_start..uri_end,
    })
}

fn match_bare(text: &str, start: usize) -> Option<MentionSpan> {
    let payload_start = start + SCHEME.len();
    let run = text.as_bytes()[payload_start..]
        .iter()
        .take_while(|&&b| uri::is_payload_byte(b))
        .count();
    (run > 0).then(|| MentionSpan {
        range: start..payload_start + run,
        label: None,
        uri: start..payload_start + run,
    })
}

/// Undo label escaping: `\x` becomes `x` for any `x` but a line terminator.
pub fn unescape_label(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(&next) = chars.peek() {
                if !is_line_terminator(next) {
                    out.push(next);
                    chars.next();
                    continue;
                }
            }
        }
        out.push(c);
    }
    out
}

/// JavaScript's line terminators, which `.` does not match.
fn is_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// JavaScript's `\s`: WhiteSpace plus LineTerminator (includes U+FEFF, not U+0085).
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use proptest::prelude::*;

    fn refs(parsed: &ParsedText) -> Vec<(&str, &str)> {
        parsed
            .references
            .iter()
            .map(|r| (r.session_id.as_str(), r.label.as_str()))
            .collect()
    }

    #[test]
    fn formats_with_escaped_label() {
        assert_eq!(
            format_mention("abc", Some(r"a]b\c")),
            r"@[a\]b\\c](hydra-session:ImFiYyI)"
        );
        assert_eq!(format_mention("abc", None), "@[abc](hydra-session:ImFiYyI)");
    }

    #[test]
    fn parses_markdown_and_bare_mentions() {
        let text = "see @[Plan \\] v2](hydra-session:ImFiYyI) and hydra-session:ImFiYyI.";
        let parsed = parse_text(text).unwrap();
        assert_eq!(parsed.text, "see @Plan ] v2 and @abc.");
        assert_eq!(refs(&parsed), [("abc", "Plan ] v2"), ("abc", "abc")]);
    }

    #[test]
    fn scheme_without_payload_is_plain_text() {
        for text in [
            "hydra-session:",
            "hydra-session: x",
            "(hydra-session:)",
            "hydra-session:.",
        ] {
            let parsed = parse_text(text).unwrap();
            assert_eq!(parsed.text, text);
            assert!(parsed.references.is_empty());
        }
    }

    #[test]
    fn malformed_markdown_uri_fails() {
        for text in [
            "@[x](hydra-session:)",
            "@[x](hydra-session:ImFiYyI=)",
            "hydra-session:ImFiYyJ",
        ] {
            assert_eq!(
                parse_text(text).unwrap_err().code,
                ErrorCode::InvalidReference,
                "{text}"
            );
        }
    }

    #[test]
    fn whitespace_is_javascripts() {
        // U+FEFF ends the Markdown URI, so the mention falls back to the bare form inside it.
        let text = "@[x](hydra-session:ImFiYyI\u{FEFF})";
        let parsed = parse_text(text).unwrap();
        assert_eq!(parsed.text, "@[x](@abc\u{FEFF})");
        // U+0085 is not whitespace in JavaScript: the URI runs through it and fails.
        let text = "@[x](hydra-session:ImFiYyI\u{85})";
        assert!(parse_text(text).is_err());
    }

    #[test]
    fn escaped_line_terminator_ends_the_label() {
        let text = "@[a\\\nb](hydra-session:ImFiYyI)";
        let parsed = parse_text(text).unwrap();
        assert_eq!(parsed.text, "@[a\\\nb](@abc)");
        // A raw newline is fine inside a label.
        let parsed = parse_text("@[a\nb](hydra-session:ImFiYyI)").unwrap();
        assert_eq!(refs(&parsed), [("abc", "a\nb")]);
    }

    #[test]
    fn empty_label_and_nested_brackets() {
        let parsed = parse_text("@[](hydra-session:ImFiYyI)").unwrap();
        assert_eq!(parsed.text, "@");
        assert_eq!(refs(&parsed), [("abc", "")]);
        let parsed = parse_text("@[@[x](hydra-session:ImFiYyI)").unwrap();
        assert_eq!(parsed.text, "@@[x");
        assert_eq!(refs(&parsed), [("abc", "@[x")]);
    }

    proptest! {
        #[test]
        fn formatted_mentions_parse_back(id in any::<String>(), label in any::<String>(),
                                         before in "[^@h]{0,8}", after in "[^A-Za-z0-9_-].{0,8}|") {
            let mention = format_mention(&id, Some(&label));
            let text = format!("{before}{mention}{after}");
            let parsed = parse_text(&text).unwrap();
            prop_assert_eq!(parsed.references.len(), 1);
            prop_assert_eq!(&parsed.references[0].session_id, &id);
            prop_assert_eq!(&parsed.references[0].label, &label);
            prop_assert_eq!(parsed.text, format!("{before}@{label}{after}"));
        }

        #[test]
        fn parse_never_panics(text in any::<String>()) {
            let _ = parse_text(&text);
        }
    }
}
