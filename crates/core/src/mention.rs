//! Inline mentions: `@[label](hydra-session:…)` and bare canonical URIs (SPEC §5).
//!
//! The scanner reproduces the reference's JavaScript regular expression
//! `@\[((?:\\.|[^\\\]])*)\]\((hydra-session:[^\s)]*)\)|(hydra-session:[A-Za-z0-9_-]+)`
//! (flags `gu`) by hand: JavaScript's `.` and `\s` differ from Rust's, so
//! neither the `regex` crate nor a parser-combinator crate would give the
//! reference's matches byte for byte; a scanner written for this one
//! grammar does, in linear time.
//!
//! The regular expression, run from every `@[`, rescans the rest of the text
//! each time a label never closes, which is quadratic (a prompt of many
//! `@[` and no `]` takes seconds per 100 KB). The scanner gives the same
//! matches in linear time: where a label ends depends only on the position
//! the label scan has reached, and a scan passes through every later label
//! start before the point where it stops; so a label that starts inside the
//! previous scan ends as that scan did (see `Scanner`).

use std::ops::Range;

use crate::error::Result;
use crate::uri::{self, SCHEME};

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
    let mut scanner = Scanner::new(text);
    scan_with(text, |start| scanner.markdown(start))
}

/// The scan of `text`, with `markdown(start)` the Markdown mention whose
/// `@[` is at `start`, if any.
fn scan_with(
    text: &str,
    mut markdown: impl FnMut(usize) -> Option<MentionSpan>,
) -> Vec<MentionSpan> {
    let mut spans = Vec::new();
    let mut pos = 0;
    while pos < text.len() {
        let rest = &text[pos..];
        let found = if rest.starts_with("@[") {
            markdown(pos)
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

/// How a label scan ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LabelEnd {
    /// At the `]` at this byte offset.
    Close(usize),
    /// Without a closing `]`: the text ended, or a `\` came before a line
    /// terminator or the end.
    Open,
}

/// Markdown mention matching with memory of the last label scan and the
/// last URI, which makes [`scan`] linear.
///
/// A label scan from position `i` steps over one character, or over two
/// when the first is a `\`, until a `]` (or a dead end). Its outcome depends
/// only on `i`. A scan that started at `from` and stopped at `to` reached
/// every position `p` in `from + 1 ..= to` whose preceding byte is not a
/// `\` (it could only have stepped over `p` from `p - 1` as the start of an
/// escape), and so every later label start up to `to`, which follows a `[`:
/// a scan from there would retrace the rest of the earlier one.
struct Scanner<'t> {
    text: &'t str,
    /// The last label scan: its start, where it stopped, and its outcome.
    label: Option<(usize, usize, LabelEnd)>,
    /// The last URI looked for: the label's `]` and the mention's end.
    uri: Option<(usize, Option<usize>)>,
}

impl<'t> Scanner<'t> {
    fn new(text: &'t str) -> Self {
        Scanner {
            text,
            label: None,
            uri: None,
        }
    }

    /// The Markdown mention starting with the `@[` at `start`, if any.
    fn markdown(&mut self, start: usize) -> Option<MentionSpan> {
        let label_start = start + 2;
        let LabelEnd::Close(label_end) = self.label_end(label_start) else {
            return None;
        };
        let end = match self.uri {
            Some((known, end)) if known == label_end => end,
            _ => {
                let end = self.uri_end(label_end);
                self.uri = Some((label_end, end));
                end
            }
        }?;
        Some(MentionSpan {
            range: start..end,
            label: Some(label_start..label_end),
            uri: label_end + 2..end - 1,
        })
    }

    /// Where the label starting at `from` (just after a `@[`) ends: the
    /// first `]` not escaped by a `\`; a `\` escapes any character but a
    /// line terminator.
    fn label_end(&mut self, from: usize) -> LabelEnd {
        // `from` follows a `[`, so the last scan reached it if it started
        // before it and stopped at or after it: the outcome is the same.
        if let Some((start, stop, outcome)) = self.label {
            if start < from && from <= stop {
                return outcome;
            }
        }
        let mut pos = from;
        let outcome = loop {
            let mut chars = self.text[pos..].chars();
            match chars.next() {
                None => break LabelEnd::Open,
                Some(']') => break LabelEnd::Close(pos),
                Some('\\') => match chars.next() {
                    Some(next) if !is_line_terminator(next) => pos += 1 + next.len_utf8(),
                    _ => break LabelEnd::Open,
                },
                Some(c) => pos += c.len_utf8(),
            }
        };
        self.label = Some((from, pos, outcome));
        outcome
    }

    /// After the `]` at `label_end`: `(hydra-session:`, a URI of characters
    /// other than whitespace and `)`, then `)`. The end of the mention.
    fn uri_end(&self, label_end: usize) -> Option<usize> {
        let after_label = &self.text[label_end..];
        let uri_start = label_end + 2;
        if !after_label.starts_with("](") || !self.text[uri_start..].starts_with(SCHEME) {
            return None;
        }
        let tail = &self.text[uri_start + SCHEME.len()..];
        let stop = tail.find(|c: char| c == ')' || is_js_whitespace(c))?;
        tail[stop..]
            .starts_with(')')
            .then_some(uri_start + SCHEME.len() + stop + 1)
    }
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

    /// The regular expression's matches, found the direct (quadratic) way:
    /// from each `@[`, scan the label to its end, then the URI.
    fn scan_directly(text: &str) -> Vec<MentionSpan> {
        let markdown = |start: usize| -> Option<MentionSpan> {
            let label_start = start + 2;
            let mut chars = text[label_start..].char_indices();
            let label_end = loop {
                match chars.next()? {
                    (offset, ']') => break label_start + offset,
                    (_, '\\') => match chars.next() {
                        Some((_, next)) if !is_line_terminator(next) => {}
                        _ => return None,
                    },
                    _ => {}
                }
            };
            let uri_start = label_end + 2;
            let rest = text[label_end..].strip_prefix("](")?.strip_prefix(SCHEME)?;
            let stop = rest.find(|c: char| c == ')' || is_js_whitespace(c))?;
            rest[stop..].starts_with(')').then(|| MentionSpan {
                range: start..uri_start + SCHEME.len() + stop + 1,
                label: Some(label_start..label_end),
                uri: uri_start..uri_start + SCHEME.len() + stop,
            })
        };
        scan_with(text, markdown)
    }

    #[test]
    fn many_unclosed_labels_scan_in_linear_time() {
        // Rescanning from every `@[` would take hours on these.
        let started = std::time::Instant::now();
        assert_eq!(scan(&"@[".repeat(500_000)), []);
        assert_eq!(scan(&"@[\\".repeat(300_000)), []);
        let opens = "@[".repeat(300_000);
        let text = format!("{opens}](hydra-session:{}", "A".repeat(300_000));
        let bare = opens.len() + 2..text.len();
        assert_eq!(
            scan(&text),
            [MentionSpan {
                range: bare.clone(),
                label: None,
                uri: bare
            }]
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(30));
    }

    fn mention_soup() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("@["),
            Just("@"),
            Just("["),
            Just("]"),
            Just("]("),
            Just("("),
            Just(")"),
            Just("\\"),
            Just("\n"),
            Just("\u{2028}"),
            Just("\u{FEFF}"),
            Just(" "),
            Just("a"),
            Just("é"),
            Just("hydra-session:"),
            Just("ImFiYyI"),
        ];
        prop::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn scan_finds_what_the_direct_scan_finds(text in mention_soup()) {
            prop_assert_eq!(scan(&text), scan_directly(&text));
        }
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
