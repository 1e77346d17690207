//! Scoring one entry for a query: the plain pass that defines a match
//! and the quick pass that skips work without changing the answer.

use nucleo_matcher::pattern::{Atom, AtomKind};
use nucleo_matcher::{Config, Matcher, Utf32Str};

use super::char_set::CharSet;
use super::entry::Entry;
use super::query::{Query, Term};

/// Matchers for titles and for paths (path separators score as word
/// boundaries), with scratch memory kept between calls.
pub struct Ranker {
    text: Matcher,
    path: Matcher,
    buf: Vec<char>,
    /// An ASCII field as chars ([`super::query::anchored_as_chars`]).
    chars: Vec<char>,
}

impl std::fmt::Debug for Ranker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Ranker")
    }
}

impl Default for Ranker {
    fn default() -> Self {
        Self::new()
    }
}

/// How one term (or group) matched an entry.
#[derive(Clone, Copy)]
struct Found {
    score: u32,
    in_label: bool,
    exact: bool,
    /// `score` is not the fuzzy score [`Pass::Plain`] gives: a term was
    /// found as typed and not scored, or an alternative was not tried.
    unscored: bool,
}

impl Found {
    fn new(score: u32, in_label: bool, exact: bool) -> Self {
        Found {
            score,
            in_label,
            exact,
            unscored: false,
        }
    }

    /// Whether `self` outranks `other` among a group's alternatives.
    fn beats(&self, other: &Found) -> bool {
        (self.exact, self.in_label, self.score) > (other.exact, other.in_label, other.score)
    }
}

/// How an entry is matched. Every pass gives the same hits, found as
/// typed or not, in the label or not, and (once [`Ranker::entry`] is done)
/// the same scores; they differ in the work skipped.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Pass {
    /// Every term against every field, scored: the definition.
    Plain,
    /// Fields whose characters cannot hold a term are not searched
    /// ([`CharSet`]); terms found as typed are not scored; an alternative
    /// found as typed in the label ends its group. What this leaves
    /// unscored is scored by a [`Pass::Rescore`] when the hit turns out
    /// fuzzy (an exact hit's score does not order it).
    Quick,
    /// Scored as [`Pass::Plain`], fields turned away by their characters.
    Rescore,
}

impl Pass {
    /// Whether the characters of a field are checked before it is searched.
    fn sifts(self) -> bool {
        self != Pass::Plain
    }
}

impl Ranker {
    /// Fresh matchers.
    pub fn new() -> Self {
        let mut path = Config::DEFAULT;
        path.set_match_paths();
        Ranker {
            text: Matcher::new(Config::DEFAULT),
            path: Matcher::new(path),
            buf: Vec::new(),
            chars: Vec::new(),
        }
    }

    /// `atom` of `term` (the term's own or its contiguous twin) against
    /// `haystack`: its score, if found.
    fn score(
        &mut self,
        term: &Term,
        atom: &Atom,
        haystack: Utf32Str<'_>,
        path: bool,
    ) -> Option<u32> {
        let matcher = if path { &mut self.path } else { &mut self.text };
        let haystack = as_chars(term, haystack, &mut self.chars);
        atom.score(haystack, matcher).map(u32::from)
    }

    /// How a positive `term` matches one field: its score and whether it
    /// is found as typed. In a [`Pass::Quick`], a fuzzy term found as typed
    /// is not scored: the contiguous search costs far less than the fuzzy
    /// one, and a needle found as typed is also found as a subsequence, so
    /// the outcome is the same.
    fn field(&mut self, term: &Term, hay: Utf32Str<'_>, path: bool, pass: Pass) -> Option<Found> {
        let fuzzy = term.atom.kind == AtomKind::Fuzzy;
        if fuzzy && pass == Pass::Quick {
            let typed = match (&term.typed, hay) {
                (Some(typed), Utf32Str::Ascii(field)) => typed.is_in(field),
                _ => self.score(term, &term.contiguous, hay, path).is_some(),
            };
            if typed {
                return Some(Found {
                    unscored: true,
                    ..Found::new(0, !path, true)
                });
            }
            let score = self.score(term, &term.atom, hay, path)?;
            return Some(Found::new(score, !path, false));
        }
        let score = self.score(term, &term.atom, hay, path)?;
        let exact = !fuzzy || self.score(term, &term.contiguous, hay, path).is_some();
        Some(Found::new(score, !path, exact))
    }

    /// How `term` matches `entry`: the first of label, cwd and id it is
    /// found in (the cwd's matcher scores paths).
    fn term(&mut self, term: &Term, entry: &Entry, full_cwd: bool, pass: Pass) -> Option<Found> {
        let atom = &term.atom;
        let label = entry.haystacks.label.slice(..);
        let id = entry.haystacks.id.slice(..);
        let (cwd, cwd_chars) = entry.cwd(full_cwd);
        let chars = &entry.haystacks.chars;
        // Whether each field may hold the needle (all may, in a plain pass).
        let may = |field: CharSet| !pass.sifts() || field.may_hold(term.chars);
        let (in_label, in_cwd, in_id) = (may(chars.label), may(cwd_chars), may(chars.id));
        if atom.negative {
            let hidden = (in_label && self.score(term, atom, label, false).is_none())
                || (in_cwd && self.score(term, atom, cwd, true).is_none())
                || (in_id && self.score(term, atom, id, false).is_none());
            return (!hidden).then_some(Found::new(0, true, true));
        }
        if in_label {
            if let Some(found) = self.field(term, label, false, pass) {
                return Some(found);
            }
        }
        if in_cwd {
            if let Some(found) = self.field(term, cwd, true, pass) {
                return Some(found);
            }
        }
        if !in_id {
            return None;
        }
        self.score(term, &term.contiguous, id, false)
            .map(|score| Found::new(score, false, true))
    }

    /// How a group matches `entry`: its best alternative. Marked unscored
    /// when a term was left unscored or an alternative untried, so that a
    /// fuzzy hit scores the group again.
    fn group(
        &mut self,
        group: &[Term],
        entry: &Entry,
        full_cwd: bool,
        pass: Pass,
    ) -> Option<Found> {
        let mut best: Option<Found> = None;
        let mut unscored = false;
        for (at, term) in group.iter().enumerate() {
            let Some(found) = self.term(term, entry, full_cwd, pass) else {
                continue;
            };
            unscored |= found.unscored;
            if best.is_none_or(|b| found.beats(&b)) {
                best = Some(found);
            }
            // Nothing beats a find as typed in the label but a better
            // score, which only a fuzzy hit reads: that one scores again.
            if pass == Pass::Quick && found.exact && found.in_label && at + 1 < group.len() {
                unscored = true;
                break;
            }
        }
        best.map(|found| Found { unscored, ..found })
    }

    /// Whether every group of `query` may match `entry` by the characters
    /// of its fields (a negated term always may).
    fn may_match(query: &Query, entry: &Entry) -> bool {
        let chars = &entry.haystacks.chars;
        let cwd = entry.cwd(query.full_cwd).1;
        query.groups.iter().all(|group| {
            group.iter().any(|term| {
                term.atom.negative
                    || chars.label.may_hold(term.chars)
                    || cwd.may_hold(term.chars)
                    || chars.id.may_hold(term.chars)
            })
        })
    }

    /// How `query` matches `entry` (found as typed, in the label, fuzzy
    /// score), `None` when it does not. An exact hit's score is 0: exact
    /// hits keep list order. `pass` is [`Pass::Plain`] or [`Pass::Quick`],
    /// which scores again the groups it left unscored when the hit turns
    /// out fuzzy; both give the same answer.
    pub(super) fn entry(
        &mut self,
        query: &Query,
        entry: &Entry,
        pass: Pass,
    ) -> Option<(bool, bool, u32)> {
        if pass.sifts() && !Self::may_match(query, entry) {
            return None;
        }
        let (mut exact, mut in_label, mut score) = (true, true, 0);
        // The groups a quick pass left unscored, by index (beyond the 64th,
        // every group is scored again).
        let mut unscored: u64 = 0;
        let again = |at: usize, unscored: bool| pass == Pass::Quick && (unscored || at >= 64);
        for (at, group) in query.groups.iter().enumerate() {
            let found = self.group(group, entry, query.full_cwd, pass)?;
            exact &= found.exact;
            in_label &= found.in_label;
            if again(at, found.unscored) {
                unscored |= 1u64.checked_shl(at as u32).unwrap_or(0);
            } else {
                score += found.score;
            }
        }
        if exact {
            return Some((true, in_label, 0));
        }
        for (at, group) in query.groups.iter().enumerate() {
            let marked = 1u64
                .checked_shl(at as u32)
                .is_none_or(|bit| unscored & bit != 0);
            if again(at, marked) {
                score += self
                    .group(group, entry, query.full_cwd, Pass::Rescore)?
                    .score;
            }
        }
        Some((false, in_label, score))
    }

    /// Char indices of `text` matched by the query's terms (for
    /// highlighting); `path` for a cwd.
    pub fn highlight(&mut self, query: &Query, text: &str, path: bool) -> Vec<usize> {
        let mut out: Vec<u32> = Vec::new();
        for term in query.groups.iter().flatten() {
            if term.atom.negative {
                continue;
            }
            let matcher = if path { &mut self.path } else { &mut self.text };
            let hay = as_chars(term, Utf32Str::new(text, &mut self.buf), &mut self.chars);
            // Show where the term is found as typed when it is.
            let mut found = Vec::new();
            if term.contiguous.indices(hay, matcher, &mut found).is_none() {
                found.clear();
                if term.atom.indices(hay, matcher, &mut found).is_none() {
                    found.clear();
                }
            }
            out.extend(found);
        }
        out.sort_unstable();
        out.dedup();
        out.into_iter().map(|i| i as usize).collect()
    }
}

/// `haystack` as `term` must see it: an ASCII field as chars (in `buf`)
/// for an anchored term that needs it ([`super::query::anchored_as_chars`]).
fn as_chars<'a>(term: &Term, haystack: Utf32Str<'a>, buf: &'a mut Vec<char>) -> Utf32Str<'a> {
    match haystack {
        Utf32Str::Ascii(bytes) if term.as_chars => {
            buf.clear();
            buf.extend(bytes.iter().map(|&b| char::from(b)));
            Utf32Str::Unicode(buf)
        }
        other => other,
    }
}
