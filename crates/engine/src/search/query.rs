//! The search query language: plain words (every one must appear), smart
//! case, `"exact phrases"`, and regular expressions (`--regex`, or a `re:`
//! prefix in the picker).
//!
//! Every term compiles to a [`regex`] pattern, words and phrases as escaped
//! literals: one engine for all three forms, whose literal prefilters
//! (memchr, Teddy) make a word search as fast as a hand-written substring
//! scan, and which matches in time linear in the text whatever the pattern.
//! Compilation is the only cost a hostile pattern could inflate, so the
//! compiled program and the lazy DFA are capped ([`REGEX_SIZE_LIMIT`],
//! [`DFA_SIZE_LIMIT`]) and nesting and pattern length are bounded: such a
//! pattern is refused with a message, never run.

use std::ops::Range;

/// Largest compiled program a pattern may produce, in bytes.
pub const REGEX_SIZE_LIMIT: usize = 1 << 20;
/// Largest lazy-DFA cache one pattern may use, in bytes.
pub const DFA_SIZE_LIMIT: usize = 2 << 20;
/// Deepest nesting of groups and repetitions a pattern may have.
pub const NEST_LIMIT: u32 = 64;
/// Longest query accepted, in bytes.
pub const MAX_QUERY_BYTES: usize = 1024;

/// The prefix that makes a picker query a regular expression.
pub const REGEX_PREFIX: &str = "re:";

/// A picker query as `session-ref search` takes it (what a remote is
/// asked): the text after a `re:` prefix as a regular expression, else the
/// whole text as words and phrases.
pub fn picker_parts(text: &str) -> (&str, Syntax) {
    match text.strip_prefix(REGEX_PREFIX) {
        Some(pattern) => (pattern, Syntax::Regex),
        None => (text, Syntax::Words),
    }
}

/// Why a query cannot be run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// Nothing to search for.
    #[error("the search query is empty")]
    Empty,
    /// Longer than [`MAX_QUERY_BYTES`].
    #[error("the search query is longer than {MAX_QUERY_BYTES} bytes")]
    TooLong,
    /// Not a valid regular expression.
    #[error("invalid regular expression: {0}")]
    Invalid(String),
    /// A `"phrase` with no closing quote (it would otherwise be searched
    /// as though closed at the end, which the user may not have meant).
    #[error("a quoted phrase is not closed: add the closing \" (or search for the words without quotes)")]
    UnclosedQuote,
    /// A pattern whose compiled form exceeds the size limits.
    #[error("regular expression too large (compiled size limit {REGEX_SIZE_LIMIT} bytes)")]
    TooBig,
}

/// How the query text is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// Words and `"phrases"`, all of which must appear.
    Words,
    /// One regular expression.
    Regex,
}

/// One thing that must appear.
#[derive(Debug, Clone)]
struct Term {
    /// Over text.
    text: regex::Regex,
    /// The same pattern over bytes (index scans).
    bytes: regex::bytes::Regex,
}

/// A compiled query.
#[derive(Debug, Clone)]
pub struct Query {
    terms: Vec<Term>,
    /// All terms as one alternation, to find any of them in one pass.
    any: regex::bytes::Regex,
    case_sensitive: bool,
    /// The literal words and phrases (empty for a regex), for prefilters.
    literals: Vec<String>,
    /// The text parsed and how it was read: what another machine is asked.
    source: (String, Syntax),
}

/// One match in a text: which term, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    /// The term's index in the query.
    pub term: usize,
    /// Byte range in the text.
    pub range: Range<usize>,
}

impl Query {
    /// Parse `text` in `syntax`.
    pub fn parse(text: &str, syntax: Syntax) -> Result<Query, QueryError> {
        if text.len() > MAX_QUERY_BYTES {
            return Err(QueryError::TooLong);
        }
        let (patterns, literals, case_sensitive) = match syntax {
            Syntax::Words => {
                let literals = split_words(text)?;
                let sensitive = literals.iter().any(|w| has_upper(w));
                let patterns = literals.iter().map(|w| regex::escape(w)).collect();
                (patterns, literals, sensitive)
            }
            Syntax::Regex => {
                if text.is_empty() {
                    return Err(QueryError::Empty);
                }
                (vec![text.to_owned()], Vec::new(), pattern_has_upper(text))
            }
        };
        if patterns.is_empty() {
            return Err(QueryError::Empty);
        }
        let terms = patterns
            .iter()
            .map(|p| {
                Ok(Term {
                    text: build_text(p, case_sensitive)?,
                    bytes: build_bytes(p, case_sensitive)?,
                })
            })
            .collect::<Result<Vec<_>, QueryError>>()?;
        let alternation = patterns
            .iter()
            .map(|p| format!("(?:{p})"))
            .collect::<Vec<_>>()
            .join("|");
        Ok(Query {
            terms,
            any: build_bytes(&alternation, case_sensitive)?,
            case_sensitive,
            literals,
            source: (text.to_owned(), syntax),
        })
    }

    /// The text this query was parsed from (after a picker's `re:`), as
    /// `session-ref search` takes it: what a remote is asked to search for.
    pub fn text(&self) -> &str {
        &self.source.0
    }

    /// How the text was read.
    pub fn syntax(&self) -> Syntax {
        self.source.1
    }

    /// Parse a picker query: a regular expression after a `re:` prefix,
    /// words and phrases otherwise.
    pub fn parse_picker(text: &str) -> Result<Query, QueryError> {
        let (text, syntax) = picker_parts(text);
        Query::parse(text, syntax)
    }

    /// How many terms must all appear.
    pub fn term_count(&self) -> usize {
        self.terms.len()
    }

    /// Whether matching distinguishes case (the query has an upper-case letter).
    pub fn case_sensitive(&self) -> bool {
        self.case_sensitive
    }

    /// The words and phrases of a word query (empty for a regex).
    pub fn literals(&self) -> &[String] {
        &self.literals
    }

    /// Every match of every term in `text`, in order of position (ties by term).
    pub fn find_all(&self, text: &str) -> Vec<Match> {
        let mut found: Vec<Match> = self
            .terms
            .iter()
            .enumerate()
            .flat_map(|(term, t)| {
                t.text
                    .find_iter(text)
                    .filter(|m| !m.is_empty())
                    .map(move |m| Match {
                        term,
                        range: m.range(),
                    })
            })
            .collect();
        found.sort_by_key(|m| (m.range.start, m.term));
        found
    }

    /// Whether term `term` occurs anywhere in `bytes`.
    pub fn term_in(&self, term: usize, bytes: &[u8]) -> bool {
        self.terms[term]
            .bytes
            .find_iter(bytes)
            .any(|m| !m.is_empty())
    }

    /// Where any term first matches in `bytes` at or after `from` (non-empty matches only).
    pub fn find_any(&self, bytes: &[u8], from: usize) -> Option<Range<usize>> {
        let mut at = from;
        while at <= bytes.len() {
            let m = self.any.find_at(bytes, at)?;
            if !m.is_empty() {
                return Some(m.range());
            }
            at = m.end() + 1;
        }
        None
    }
}

fn build_text(pattern: &str, case_sensitive: bool) -> Result<regex::Regex, QueryError> {
    regex::RegexBuilder::new(pattern)
        .case_insensitive(!case_sensitive)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(DFA_SIZE_LIMIT)
        .nest_limit(NEST_LIMIT)
        .build()
        .map_err(compile_error)
}

fn build_bytes(pattern: &str, case_sensitive: bool) -> Result<regex::bytes::Regex, QueryError> {
    regex::bytes::RegexBuilder::new(pattern)
        .case_insensitive(!case_sensitive)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(DFA_SIZE_LIMIT)
        .nest_limit(NEST_LIMIT)
        .build()
        .map_err(compile_error)
}

fn compile_error(error: regex::Error) -> QueryError {
    match error {
        regex::Error::CompiledTooBig(_) => QueryError::TooBig,
        other => QueryError::Invalid(other.to_string().lines().last().unwrap_or("").to_owned()),
    }
}

/// Words separated by whitespace; a `"…"` run is one phrase, which must
/// be closed.
fn split_words(text: &str) -> Result<Vec<String>, QueryError> {
    let mut terms = Vec::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            break;
        }
        if let Some(inner) = rest.strip_prefix('"') {
            let end = inner.find('"').ok_or(QueryError::UnclosedQuote)?;
            let phrase = &inner[..end];
            if !phrase.trim().is_empty() {
                terms.push(phrase.to_owned());
            }
            rest = &inner[end + 1..];
        } else {
            let end = rest
                .find(|c: char| c.is_whitespace() || c == '"')
                .unwrap_or(rest.len());
            terms.push(rest[..end].to_owned());
            rest = &rest[end..];
        }
    }
    Ok(terms)
}

fn has_upper(text: &str) -> bool {
    text.chars().any(char::is_uppercase)
}

/// Smart case for a pattern: an upper-case letter that is not part of an
/// escape (`\W`, `\S`, `\D`, `\B`, `\P{…}`) asks for case-sensitive matching.
fn pattern_has_upper(pattern: &str) -> bool {
    let mut escaped = false;
    for c in pattern.chars() {
        if escaped {
            escaped = false;
            continue;
        }
        if c == '\\' {
            escaped = true;
        } else if c.is_uppercase() {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranges<'t>(query: &Query, text: &'t str) -> Vec<(usize, &'t str)> {
        query
            .find_all(text)
            .into_iter()
            .map(|m| (m.term, &text[m.range]))
            .collect()
    }

    #[test]
    fn words_and_phrases_split() {
        assert_eq!(
            split_words(r#" retry  "back off" policy "closed phrase""#).unwrap(),
            ["retry", "back off", "policy", "closed phrase"]
        );
        assert_eq!(split_words(r#"a"b c"d"#).unwrap(), ["a", "b c", "d"]);
        assert!(split_words(r#"  "" "  " "#).unwrap().is_empty());
    }

    #[test]
    fn an_unclosed_phrase_is_refused() {
        for text in [r#"retry "back off"#, r#"""#, r#"a"b"#, r#""x" "y"#] {
            assert_eq!(
                Query::parse(text, Syntax::Words).unwrap_err(),
                QueryError::UnclosedQuote,
                "{text}"
            );
        }
        // A regular expression's quotes are its own.
        assert!(Query::parse(r#"say "hi"#, Syntax::Regex).is_ok());
    }

    #[test]
    fn smart_case() {
        let lower = Query::parse("retry", Syntax::Words).unwrap();
        assert!(!lower.case_sensitive());
        assert_eq!(ranges(&lower, "Retry RETRY"), [(0, "Retry"), (0, "RETRY")]);
        let upper = Query::parse("Retry", Syntax::Words).unwrap();
        assert_eq!(ranges(&upper, "retry Retry"), [(0, "Retry")]);
        assert!(!Query::parse(r"\w+\S", Syntax::Regex)
            .unwrap()
            .case_sensitive());
        assert!(Query::parse(r"\wX", Syntax::Regex)
            .unwrap()
            .case_sensitive());
    }

    #[test]
    fn words_are_literal_and_phrases_exact() {
        let q = Query::parse(r#"a.b "x  y""#, Syntax::Words).unwrap();
        assert_eq!(q.term_count(), 2);
        assert_eq!(ranges(&q, "axb a.b x y x  y"), [(0, "a.b"), (1, "x  y")]);
        assert_eq!(q.literals(), ["a.b", "x  y"]);
    }

    #[test]
    fn picker_prefix_selects_regex() {
        let q = Query::parse_picker("re:ret(ry|ries)").unwrap();
        assert_eq!(ranges(&q, "retries retry"), [(0, "retries"), (0, "retry")]);
        let words = Query::parse_picker("ret(ry").unwrap();
        assert_eq!(ranges(&words, "ret(ry"), [(0, "ret(ry")]);
        assert_eq!(Query::parse_picker("re:").unwrap_err(), QueryError::Empty);
        assert_eq!(Query::parse_picker("   ").unwrap_err(), QueryError::Empty);
    }

    #[test]
    fn hostile_patterns_are_refused_not_run() {
        // Counted repetition compiles to a program far over the limit.
        assert_eq!(
            Query::parse(r"(\w{100}){100}", Syntax::Regex).unwrap_err(),
            QueryError::TooBig
        );
        assert_eq!(
            Query::parse("a{1000}{1000}", Syntax::Regex).unwrap_err(),
            QueryError::TooBig
        );
        let deep = format!("{}a{}", "(".repeat(200), ")".repeat(200));
        assert!(matches!(
            Query::parse(&deep, Syntax::Regex),
            Err(QueryError::Invalid(_))
        ));
        assert!(matches!(
            Query::parse("(unclosed", Syntax::Regex),
            Err(QueryError::Invalid(_))
        ));
        assert_eq!(
            Query::parse(&"a".repeat(MAX_QUERY_BYTES + 1), Syntax::Words).unwrap_err(),
            QueryError::TooLong
        );
        // A pattern that backtracks exponentially elsewhere runs in linear
        // time here.
        let q = Query::parse("(a+)+$", Syntax::Regex).unwrap();
        let text = format!("{}!", "a".repeat(100_000));
        assert!(q.find_all(&text).len() <= 1);
    }

    #[test]
    fn empty_matches_are_not_hits() {
        let q = Query::parse("x*", Syntax::Regex).unwrap();
        assert_eq!(ranges(&q, "abxxc"), [(0, "xx")]);
        assert_eq!(q.find_any(b"abxxc", 0), Some(2..4));
        assert_eq!(q.find_any(b"abc", 0), None);
        assert!(!q.term_in(0, b"abc"));
    }

    #[test]
    fn find_any_spans_all_terms() {
        let q = Query::parse("alpha beta", Syntax::Words).unwrap();
        assert_eq!(q.find_any(b"..BETA..alpha", 0), Some(2..6));
        assert_eq!(q.find_any(b"..BETA..alpha", 3), Some(8..13));
        assert!(q.term_in(1, b"Beta"));
    }
}
