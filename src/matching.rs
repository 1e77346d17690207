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
        if query.is_empty() {
            return Some(0);
        }
        let atom = Self::atom(query);
        let hay = Utf32Str::new(haystack, &mut self.buf);
        atom.score(hay, &mut self.matcher).map(u32::from)
    }

    /// The best score over several fields, `None` when none matches.
    pub fn best_score<'a>(
        &mut self,
        query: &str,
        fields: impl IntoIterator<Item = &'a str>,
    ) -> Option<u32> {
        fields
            .into_iter()
            .filter_map(|f| self.score(query, f))
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
}
