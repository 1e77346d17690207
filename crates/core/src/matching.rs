//! Fuzzy subsequence matching for the picker and `candidates --fuzzy`.
//!
//! Backed by `nucleo-matcher` (see the README for the measurement against
//! `fuzzy-matcher`). Pure: no I/O, no global state.

use nucleo_matcher::pattern::{Atom, AtomKind, CaseMatching, Normalization};
use nucleo_matcher::{Config, Matcher, Utf32Str};

/// A reusable fuzzy matcher (holds scratch memory between calls).
pub struct FuzzyMatcher {
    matcher: Matcher,
    buf: Vec<char>,
}

impl Default for FuzzyMatcher {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for FuzzyMatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FuzzyMatcher")
    }
}

impl FuzzyMatcher {
    /// A matcher tuned for paths and titles.
    pub fn new() -> Self {
        let mut config = Config::DEFAULT;
        config.set_match_paths();
        FuzzyMatcher {
            matcher: Matcher::new(config),
            buf: Vec::new(),
        }
    }

    fn atom(query: &str) -> Atom {
        Atom::new(
            query,
            CaseMatching::Ignore,
            Normalization::Smart,
            AtomKind::Fuzzy,
            false,
        )
    }

    /// Score of `query` as a case-insensitive subsequence of `haystack`.
    pub fn score(&mut self, query: &str, haystack: &str) -> Option<u32> {
        self.score_pattern(&Pattern::new(query), haystack)
    }

    /// The best score over several fields, `None` when none matches.
    pub fn best_score<'a>(
        &mut self,
        query: &str,
        fields: impl IntoIterator<Item = &'a str>,
    ) -> Option<u32> {
        self.best_score_pattern(&Pattern::new(query), fields)
    }

    /// Score of a prepared query against `haystack` (see [`Pattern`]).
    pub fn score_pattern(&mut self, pattern: &Pattern, haystack: &str) -> Option<u32> {
        let Some(atom) = &pattern.atom else {
            return Some(0);
        };
        let hay = Utf32Str::new(haystack, &mut self.buf);
        atom.score(hay, &mut self.matcher).map(u32::from)
    }

    /// The best score of a prepared query over several fields, `None` when
    /// none matches.
    pub fn best_score_pattern<'a>(
        &mut self,
        pattern: &Pattern,
        fields: impl IntoIterator<Item = &'a str>,
    ) -> Option<u32> {
        fields
            .into_iter()
            .filter_map(|f| self.score_pattern(pattern, f))
            .max()
    }

    /// Char indices of `haystack` matched by `query` (for highlighting).
    pub fn indices(&mut self, query: &str, haystack: &str) -> Option<Vec<u32>> {
        if query.is_empty() {
            return Some(Vec::new());
        }
        let atom = Self::atom(query);
        let mut indices = Vec::new();
        let hay = Utf32Str::new(haystack, &mut self.buf);
        atom.indices(hay, &mut self.matcher, &mut indices)?;
        indices.sort_unstable();
        indices.dedup();
        Some(indices)
    }
}

/// A query prepared once (case folded, normalized) and scored against many
/// haystacks: what a re-rank over thousands of candidates uses.
#[derive(Debug, Clone)]
pub struct Pattern {
    atom: Option<Atom>,
}

impl Pattern {
    /// Prepare `query`; the empty query matches everything with score 0.
    pub fn new(query: &str) -> Self {
        Pattern {
            atom: (!query.is_empty()).then(|| FuzzyMatcher::atom(query)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subsequence_matches_case_insensitively() {
        let mut m = FuzzyMatcher::new();
        assert!(m.score("rfp", "Refactor Parser").is_some());
        assert!(m.score("xyz", "Refactor Parser").is_none());
        assert_eq!(m.indices("rp", "refactor parser").unwrap(), vec![0, 9]);
        assert!(m.score("abc", "abc").unwrap() > m.score("abc", "a_b_c").unwrap());
    }

    #[test]
    fn prepared_pattern_scores_like_the_query() {
        let mut m = FuzzyMatcher::new();
        let pattern = Pattern::new("rfp");
        for hay in ["Refactor Parser", "rfp", "nothing", "r/f/p"] {
            assert_eq!(m.score_pattern(&pattern, hay), m.score("rfp", hay), "{hay}");
        }
        assert_eq!(m.score_pattern(&Pattern::new(""), "x"), Some(0));
        assert_eq!(
            m.best_score_pattern(&pattern, ["zzz", "Refactor Parser"]),
            m.score("rfp", "Refactor Parser")
        );
    }
}
