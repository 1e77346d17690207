//! A query in fzf's extended syntax: terms, their contiguous twins and
//! the characters they need, `|` groups, and when a longer query only
//! narrows a shorter one.

use nucleo_matcher::pattern::{Atom, AtomKind, CaseMatching, Normalization};
use nucleo_matcher::{Config, Matcher, Utf32Str};

use super::char_set::CharSet;

/// One term and its contiguous twin (the same needle as a substring), used
/// to tell an exact find from a fuzzy one and to search ids, and the
/// characters the needle requires.
#[derive(Debug, Clone)]
pub(super) struct Term {
    pub(super) atom: Atom,
    pub(super) contiguous: Atom,
    pub(super) chars: CharSet,
    /// The contiguous twin of a fuzzy ASCII needle, searched in ASCII
    /// fields without nucleo ([`Typed`]).
    pub(super) typed: Option<Typed>,
    /// ASCII fields are shown to this term as chars ([`anchored_as_chars`]).
    pub(super) as_chars: bool,
}

/// Whether an anchored atom must see ASCII fields as chars to match as
/// documented. nucleo-matcher 0.3.1 compares a case-sensitive ASCII
/// `^prefix`, `suffix$` or `^exact$` needle with the whole ASCII haystack
/// instead of the part the anchor selects (so `^Webhook` never matched
/// `Webhook retry schedule`); its path for a haystack of chars compares the
/// anchored part. The chars are the field's own, so scores and indices do
/// not change. Whether the atom ignores case is asked of nucleo itself: a
/// needle of letters in the other case, as long as the field, is found
/// only when case is ignored (and then the ASCII path is right).
pub(super) fn anchored_as_chars(atom: &Atom) -> bool {
    let anchored = matches!(
        atom.kind,
        AtomKind::Prefix | AtomKind::Postfix | AtomKind::Exact
    );
    let Utf32Str::Ascii(needle) = atom.needle_text() else {
        return false;
    };
    if !anchored || needle.is_empty() {
        return false;
    }
    let flipped: Vec<u8> = needle
        .iter()
        .map(|&b| {
            if b.is_ascii_lowercase() {
                b.to_ascii_uppercase()
            } else {
                b.to_ascii_lowercase()
            }
        })
        .collect();
    let mut positive = atom.clone();
    positive.negative = false;
    let has_letter = needle.iter().any(u8::is_ascii_alphabetic);
    !has_letter
        || positive
            .score(
                Utf32Str::Ascii(&flipped),
                &mut Matcher::new(Config::DEFAULT),
            )
            .is_none()
}

impl Term {
    pub(super) fn new(atom: Atom) -> Self {
        let mut contiguous = atom.clone();
        if contiguous.kind == AtomKind::Fuzzy {
            contiguous.kind = AtomKind::Substring;
        }
        let chars = CharSet::of_needle(atom.needle_text());
        let typed = match (atom.kind, contiguous.needle_text()) {
            (AtomKind::Fuzzy, Utf32Str::Ascii(needle)) if !needle.is_empty() => {
                Some(Typed::new(&contiguous, needle))
            }
            _ => None,
        };
        Term {
            as_chars: anchored_as_chars(&atom),
            atom,
            contiguous,
            chars,
            typed,
        }
    }
}

/// Whether an ASCII needle is found as typed in an ASCII field: the answer
/// nucleo-matcher's substring search gives (a term found as typed is not
/// scored), at the cost of one SIMD scan instead of a candidate per
/// occurrence of the needle's first letter (a common letter such as the `p`
/// of `parser` made that search a third of a full re-rank).
///
/// Exact by construction: it follows nucleo-matcher 0.3.1's substring
/// search, which takes three ways by length. A field as long as the needle
/// is compared whole; a one-character needle is looked for on its own; in
/// a longer field, a needle whose first lower-case letter is one of its
/// first two characters is looked for without regard to case, and any
/// other needle as typed, but, when the atom ignores case, only where it
/// ends at most that letter's position past the field's length minus the
/// needle's (a quirk of that version, kept so that both answers agree).
/// Whether the atom ignores ASCII case (smart case) is asked of nucleo
/// itself, once per needle, on the needle with every letter in the other
/// case. `typed_finds_what_nucleo_finds` holds the two to each other.
#[derive(Debug, Clone)]
pub(super) struct Typed {
    needle: Box<[u8]>,
    /// The atom compares letters without regard to ASCII case.
    ignore_case: bool,
    /// Where the needle's first lower-case letter is.
    first_letter: Option<usize>,
    /// The needle byte searched for first: its rarest, in English text.
    pivot: usize,
}

impl Typed {
    pub(super) fn new(contiguous: &Atom, needle: &[u8]) -> Self {
        // Every letter in the other case, as long as the needle: found
        // (compared whole) only when case is ignored.
        let flipped: Vec<u8> = needle
            .iter()
            .map(|&b| {
                if b.is_ascii_lowercase() {
                    b.to_ascii_uppercase()
                } else {
                    b.to_ascii_lowercase()
                }
            })
            .collect();
        let ignore_case = needle.iter().any(u8::is_ascii_alphabetic) && {
            let mut matcher = Matcher::new(Config::DEFAULT);
            contiguous
                .score(Utf32Str::Ascii(&flipped), &mut matcher)
                .is_some()
        };
        // Letters from the most to the least frequent in English text; any
        // other byte counts as rarer than all of them.
        const COMMON: &[u8] = b"etaoinsrhldcumfpgwybvkxjqz";
        let rarity = |b: u8| {
            COMMON
                .iter()
                .position(|&c| c == b.to_ascii_lowercase())
                .unwrap_or(COMMON.len())
        };
        let pivot = (0..needle.len())
            .max_by_key(|&i| (rarity(needle[i]), std::cmp::Reverse(i)))
            .unwrap_or(0);
        Typed {
            needle: needle.into(),
            ignore_case,
            first_letter: needle.iter().position(u8::is_ascii_lowercase),
            pivot,
        }
    }

    /// Whether the needle is found as typed in `field`.
    pub(super) fn is_in(&self, field: &[u8]) -> bool {
        let needle = &*self.needle;
        let n = needle.len();
        if n > field.len() {
            return false;
        }
        if n == field.len() {
            return if self.ignore_case {
                field.eq_ignore_ascii_case(needle)
            } else {
                field == needle
            };
        }
        if n == 1 {
            let c = needle[0];
            return if self.ignore_case && c.is_ascii_lowercase() {
                memchr::memchr2(c, c.to_ascii_uppercase(), field).is_some()
            } else {
                memchr::memchr(c, field).is_some()
            };
        }
        match self.first_letter.filter(|_| self.ignore_case) {
            Some(0 | 1) => {}
            Some(at) => {
                return memchr::memmem::find(&field[..field.len() - n + at], needle).is_some()
            }
            None => return memchr::memmem::find(field, needle).is_some(),
        }
        // Occurrences of the pivot, where a whole window fits.
        let pivot = needle[self.pivot];
        let last_start = field.len() - needle.len();
        let span = &field[self.pivot..=last_start + self.pivot];
        let fits = |at: usize| field[at..at + needle.len()].eq_ignore_ascii_case(needle);
        if pivot.is_ascii_alphabetic() {
            let (lower, upper) = (pivot.to_ascii_lowercase(), pivot.to_ascii_uppercase());
            memchr::memchr2_iter(lower, upper, span).any(fits)
        } else {
            memchr::memchr_iter(pivot, span).any(fits)
        }
    }
}

/// A parsed picker query: every group must match; a group matches when any
/// of its terms does (`a | b`).
#[derive(Debug, Clone, Default)]
pub struct Query {
    pub(super) groups: Vec<Vec<Term>>,
    /// Whether terms see the whole cwd (the query holds a `/`).
    pub(super) full_cwd: bool,
}

/// Split on unescaped whitespace (`\ ` is a space inside a term).
pub(super) fn words(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() && !escaped {
            if let Some(s) = start.take() {
                out.push(&text[s..i]);
            }
        } else if start.is_none() {
            start = Some(i);
        }
        escaped = c == '\\' && !escaped;
    }
    if let Some(s) = start {
        out.push(&text[s..]);
    }
    out
}

impl Query {
    /// Parse `text` (fzf's extended syntax, smart case).
    pub fn parse(text: &str) -> Self {
        let mut groups: Vec<Vec<Term>> = Vec::new();
        let mut join = false;
        for word in words(text) {
            if word == "|" {
                join = !groups.is_empty();
                continue;
            }
            let atom = Atom::parse(word, CaseMatching::Smart, Normalization::Smart);
            if atom.needle_text().is_empty() {
                continue;
            }
            let term = Term::new(atom);
            match groups.last_mut() {
                Some(group) if join => group.push(term),
                _ => groups.push(vec![term]),
            }
            join = false;
        }
        Query {
            groups,
            full_cwd: text.contains('/'),
        }
    }

    /// Whether the query has no term (every session matches, in list order).
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// How many terms the query has, alternatives included: what one
    /// entry's scoring costs grows with it.
    pub fn terms(&self) -> usize {
        self.groups.iter().map(Vec::len).sum()
    }
}

/// Whether every match of `next` is among the matches of `previous`, so a
/// re-rank may start from the previous hits: `next` only adds to
/// `previous`, and neither an either-or (`|`), a negation (`!`), an escape,
/// a first `/` (which widens the cwd searched) nor text glued after a
/// `suffix$` term (which makes it fuzzy again) is involved. A new
/// upper-case letter makes its term case-sensitive, which only narrows it
/// (anchored terms included: see [`anchored_as_chars`]). Inside a query
/// with an either-or, only text glued to its last term narrows (`a | le` →
/// `a | lex` narrows that alternative, hence the group); a new word could
/// join a group still open (`a | ^` parses as `a` waiting for an
/// alternative), which widens it.
pub fn narrows(previous: &str, next: &str) -> bool {
    let Some(added) = next.strip_prefix(previous) else {
        return false;
    };
    let widening = |c: char| matches!(c, '|' | '!' | '\\');
    let glued_after_suffix =
        previous.ends_with('$') && added.starts_with(|c: char| !c.is_whitespace());
    let first_slash = added.contains('/') && !previous.contains('/');
    let extends_last_term = !added.contains(char::is_whitespace)
        && !previous.ends_with(char::is_whitespace)
        && words(previous).last().is_some_and(|word| {
            *word != "|"
                && !Atom::parse(word, CaseMatching::Smart, Normalization::Smart)
                    .needle_text()
                    .is_empty()
        });
    let widens = previous.contains(['!', '\\'])
        || added.contains(widening)
        || (previous.contains('|') && !extends_last_term);
    !previous.trim().is_empty() && !widens && !first_slash && !glued_after_suffix
}
