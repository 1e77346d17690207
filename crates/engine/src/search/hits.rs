//! Matching one session's messages against a query: which messages hit,
//! a one-line snippet of each with the matches marked, and a ranking score
//! (number and density of matches, recency). Pure.
//!
//! A [`Hit`]'s serde form is also what `remote serve` sends of it
//! ([`crate::search::wire`]): one type for the hit on both ends.

use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::search::query::{Match, Query};
use session_ref_core::projection::Role;
use session_ref_stores::search::extract::Message;

/// Bytes of context kept before the first match of a snippet.
const SNIPPET_LEAD: usize = 60;
/// Longest snippet, in bytes of the message text (before the `…` marks).
const SNIPPET_BYTES: usize = 200;

/// One message that matches. Its serde form is the wire's: camelCase
/// fields in this order, the role as `user`/`assistant`, highlights as
/// `[start, end]` pairs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hit {
    /// Index of the message in the session's searchable history
    /// ([`session_ref_stores::search::extract::conversation`] order).
    pub message: usize,
    /// Who spoke.
    #[serde(with = "wire_role")]
    pub role: Role,
    /// A compaction summary.
    pub checkpoint: bool,
    /// Replaced by a compaction: not in the snapshot a mention injects.
    pub before_compaction: bool,
    /// 0-based line of the message holding the first match.
    pub line: usize,
    /// That line (cut around the first match), on one line, with control
    /// characters shown as spaces; `…` marks a cut.
    pub snippet: String,
    /// Byte ranges of matches in `snippet`.
    #[serde(with = "wire_ranges")]
    pub highlights: Vec<Range<usize>>,
    /// How many matches the message holds.
    pub matches: usize,
    /// How many distinct terms of the query the message holds.
    pub terms: usize,
}

/// A session that matches: every term appears somewhere in its history.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionMatch {
    /// Matching messages in history order.
    pub hits: Vec<Hit>,
    /// Matches over all messages.
    pub matches: usize,
    /// Bytes of searchable text in the session.
    pub text_bytes: usize,
}

/// The session's hits, or `None` unless every term of `query` appears in
/// its messages.
pub fn match_session(query: &Query, messages: &[Message]) -> Option<SessionMatch> {
    let mut seen = vec![false; query.term_count()];
    let mut hits = Vec::new();
    let mut total = 0;
    let mut text_bytes = 0;
    for (index, message) in messages.iter().enumerate() {
        text_bytes += message.text.len();
        let found = query.find_all(&message.text);
        if found.is_empty() {
            continue;
        }
        let mut terms = vec![false; query.term_count()];
        for m in &found {
            seen[m.term] = true;
            terms[m.term] = true;
        }
        total += found.len();
        hits.push(hit(
            index,
            message,
            &found,
            terms.iter().filter(|&&t| t).count(),
        ));
    }
    seen.iter().all(|&s| s).then_some(SessionMatch {
        hits,
        matches: total,
        text_bytes,
    })
}

impl SessionMatch {
    /// The hit to show first: most distinct terms, then most matches, then
    /// the latest message in the snapshot (earliest on ties).
    pub fn best(&self) -> &Hit {
        self.hits
            .iter()
            .enumerate()
            .max_by_key(|(i, hit)| {
                (
                    hit.terms,
                    hit.matches,
                    !hit.before_compaction,
                    std::cmp::Reverse(*i),
                )
            })
            .map(|(_, hit)| hit)
            .expect("a session match has at least one hit")
    }

    /// Ranking score, higher first: more matches, denser matches (per KiB
    /// of searchable text) and newer sessions (`age_days` since creation;
    /// `None` when unknown) score higher, each with diminishing returns.
    pub fn score(&self, age_days: Option<f64>) -> f64 {
        let count = (1.0 + self.matches as f64).ln();
        let density = self.matches as f64 * 1024.0 / self.text_bytes.max(1) as f64;
        let recency = age_days.map_or(0.0, |days| 1.0 / (1.0 + days.max(0.0) / 7.0));
        count + (1.0 + density).ln() + recency
    }
}

impl Hit {
    /// The hit with only the highlights that are ranges of its snippet
    /// (ordered, within it, on character boundaries): what a hit from
    /// another machine keeps, its ranges never trusted.
    pub fn checked(mut self) -> Hit {
        let snippet = &self.snippet;
        self.highlights.retain(|r| {
            r.start <= r.end
                && r.end <= snippet.len()
                && snippet.is_char_boundary(r.start)
                && snippet.is_char_boundary(r.end)
        });
        self
    }
}

/// A role as the wire spells it: `user` or `assistant`; anything else
/// reads as `user`.
mod wire_role {
    use serde::{Deserialize, Deserializer, Serializer};
    use session_ref_core::projection::Role;

    pub fn serialize<S: Serializer>(role: &Role, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(role.as_str())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Role, D::Error> {
        let text = String::deserialize(d)?;
        Ok(if text == "assistant" {
            Role::Assistant
        } else {
            Role::User
        })
    }
}

/// Byte ranges as the wire spells them: `[start, end]` pairs.
mod wire_ranges {
    use std::ops::Range;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(ranges: &[Range<usize>], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(ranges.iter().map(|r| [r.start, r.end]))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Range<usize>>, D::Error> {
        let pairs = Vec::<[usize; 2]>::deserialize(d)?;
        Ok(pairs.into_iter().map(|[a, b]| a..b).collect())
    }
}

fn hit(index: usize, message: &Message, found: &[Match], terms: usize) -> Hit {
    let text = message.text.as_str();
    let first = &found[0].range;
    let line_start = text[..first.start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[first.start..]
        .find('\n')
        .map_or(text.len(), |i| first.start + i);
    let line = text[..line_start].matches('\n').count();
    let mut start = first.start.saturating_sub(SNIPPET_LEAD).max(line_start);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let mut end = (start + SNIPPET_BYTES).min(line_end);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let (snippet, highlights) = snippet(text, start..end, line_start, line_end, found);
    Hit {
        message: index,
        role: message.role,
        checkpoint: message.checkpoint,
        before_compaction: message.before_compaction,
        line,
        snippet,
        highlights,
        matches: found.len(),
        terms,
    }
}

/// `text[window]` made safe for one terminal line, with the matches that
/// fall in it mapped to byte ranges of the result.
fn snippet(
    text: &str,
    window: Range<usize>,
    line_start: usize,
    line_end: usize,
    found: &[Match],
) -> (String, Vec<Range<usize>>) {
    let mut out = String::new();
    if window.start > line_start {
        out.push('…');
    }
    // Original byte offset → offset in `out`, for the window's char starts.
    let mut map = Vec::new();
    for (offset, c) in text[window.clone()].char_indices() {
        map.push((window.start + offset, out.len()));
        out.push(if c.is_control() { ' ' } else { c });
    }
    map.push((window.end, out.len()));
    let at = |offset: usize| -> usize {
        let i = map.partition_point(|&(o, _)| o < offset);
        map.get(i).map_or(out.len(), |&(_, n)| n)
    };
    let mut highlights: Vec<Range<usize>> = found
        .iter()
        .filter(|m| m.range.start < window.end && m.range.end > window.start)
        .map(|m| at(m.range.start.max(window.start))..at(m.range.end.min(window.end)))
        .filter(|r| !r.is_empty())
        .collect();
    highlights.sort_by_key(|r| r.start);
    highlights.dedup();
    if window.end < line_end {
        out.push('…');
    }
    (out, highlights)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::query::Syntax;

    fn message(role: Role, text: &str, before_compaction: bool) -> Message {
        Message {
            role,
            text: text.into(),
            checkpoint: false,
            before_compaction,
        }
    }

    fn marked(hit: &Hit) -> String {
        let mut out = String::new();
        let mut at = 0;
        for r in &hit.highlights {
            out.push_str(&hit.snippet[at..r.start]);
            out.push('[');
            out.push_str(&hit.snippet[r.clone()]);
            out.push(']');
            at = r.end;
        }
        out.push_str(&hit.snippet[at..]);
        out
    }

    #[test]
    fn every_term_must_appear_somewhere() {
        let messages = [
            message(Role::User, "what retry policy?", true),
            message(
                Role::Assistant,
                "intro\nuse exponential backoff\nend",
                false,
            ),
        ];
        let q = Query::parse("retry backoff", Syntax::Words).unwrap();
        let found = match_session(&q, &messages).unwrap();
        assert_eq!(found.hits.len(), 2);
        assert_eq!(found.matches, 2);
        assert_eq!(found.hits[0].message, 0);
        assert!(found.hits[0].before_compaction);
        assert_eq!(marked(&found.hits[0]), "what [retry] policy?");
        assert_eq!(found.hits[1].line, 1);
        assert_eq!(marked(&found.hits[1]), "use exponential [backoff]");
        let missing = Query::parse("retry jitter", Syntax::Words).unwrap();
        assert!(match_session(&missing, &messages).is_none());
    }

    #[test]
    fn snippets_are_cut_around_the_match_and_made_safe() {
        let long = format!(
            "{}\u{1b}[31mneedle\u{85}x{}",
            "a".repeat(300),
            "b".repeat(300)
        );
        let q = Query::parse("needle", Syntax::Words).unwrap();
        let found = match_session(&q, &[message(Role::User, &long, false)]).unwrap();
        let hit = &found.hits[0];
        assert!(hit.snippet.starts_with('…') && hit.snippet.ends_with('…'));
        assert!(!hit.snippet.chars().any(char::is_control));
        assert_eq!(&hit.snippet[hit.highlights[0].clone()], "needle");
        assert!(hit.snippet.len() <= SNIPPET_BYTES + 2 * '…'.len_utf8());
    }

    #[test]
    fn best_hit_and_score() {
        let messages = [
            message(Role::User, "alpha", false),
            message(Role::Assistant, "alpha beta alpha", false),
            message(Role::User, "beta", false),
        ];
        let q = Query::parse("alpha beta", Syntax::Words).unwrap();
        let found = match_session(&q, &messages).unwrap();
        assert_eq!(found.best().message, 1);
        assert_eq!(marked(found.best()), "[alpha] [beta] [alpha]");
        let sparse = SessionMatch {
            text_bytes: 100_000,
            ..found.clone()
        };
        assert!(found.score(Some(1.0)) > sparse.score(Some(1.0)));
        assert!(found.score(Some(1.0)) > found.score(Some(100.0)));
        assert!(found.score(Some(100.0)) > found.score(None));
    }
}
