//! Live ranking for the picker: fzf's extended search syntax over the
//! listed sessions, the label first.
//!
//! The query is parsed as fzf parses it: space-separated terms that must all
//! match, in any order; `'exact`, `^prefix`, `suffix$`, `!negation`, and a
//! lone `|` between terms for "either". Case is ignored unless a term holds
//! an upper-case letter (smart case). Each term is an `nucleo-matcher`
//! [`Atom`] (its parser implements that syntax); only the split into terms
//! and the `|` groups, which nucleo-matcher leaves to its caller, are here.
//!
//! What a term is matched against, and how much it counts:
//! - the label (the session's title), fully;
//! - the cwd's last component only (`payments-api`), unless the query holds
//!   a `/`: a short query is a subsequence of `/home/dev/…` in nearly every
//!   session, so the leading components would match everything;
//! - the id only as a substring (a fuzzy query is a subsequence of most
//!   UUIDs).
//!
//! Order: sessions where every term is found as typed (contiguously) come
//! first, in the list's order (this directory first, then by the sort);
//! among them, and then among fuzzy matches, those matched in the label come
//! before those matched only through cwd or id; fuzzy matches go best score
//! first. `candidates --fuzzy` keeps SPEC §6's rule; this is the picker's.
//! Pure.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use nucleo_matcher::pattern::{Atom, AtomKind, CaseMatching, Normalization};
use nucleo_matcher::{Config, Matcher, Utf32Str, Utf32String};
use rayon::prelude::*;

use super::char_set::CharSet;
use session_ref_core::candidates::{group_rank, Target};
use session_ref_core::escape::safe_label;
use session_ref_stores::model::SessionRecord;

/// Index of an [`Entry`] in the picker's arrival-ordered entry list.
pub type EntryId = u32;

/// A listed session with its label and what ranking and the list read.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The listed record.
    pub record: SessionRecord,
    /// The label: its session's latest title, or the id while the title is
    /// unknown, absent or unreadable, made safe (SPEC §6,
    /// [`session_ref_core::escape::safe_label`]): what the list shows and a
    /// mention cites. Set through [`Entry::set_title`] and
    /// [`Entry::relabel`], which keep its haystack in step; the haystack is
    /// the text as the log holds it, which the query matches.
    label: String,
    /// Whether `label` differs from the text its haystack was made from.
    label_altered: bool,
    /// This record's own title, once read.
    pub title: Option<String>,
    /// Whether the title has been read.
    pub title_known: bool,
    /// Group rank (0 same cwd as the target, 1 no cwd, 2 other cwd).
    pub group: u8,
    /// Whether the cwd is the target's or below it (what ctrl-o keeps).
    pub within: bool,
    /// Last activity ([`session_ref_stores::last_activity`], Unix seconds), once read.
    pub activity: Option<i64>,
    /// What the terms are matched against, converted once.
    haystacks: Haystacks,
}

/// An entry's label, cwd (whole and last component) and id as
/// nucleo-matcher reads them, converted when the entry is made or
/// relabelled rather than on every keystroke, with the characters each
/// holds. Laid out so that the characters and the label's handle share a
/// cache line: a full pass reads them for every entry (an entry is
/// hundreds of bytes, so each line read is a miss).
#[derive(Debug, Clone)]
#[repr(C, align(64))]
struct Haystacks {
    chars: FieldChars,
    label: Utf32String,
    cwd_tail: Utf32String,
    id: Utf32String,
    cwd: Utf32String,
}

// The claim above, checked when compiling.
const _: () =
    assert!(std::mem::offset_of!(Haystacks, label) + std::mem::size_of::<Utf32String>() <= 64);

/// The characters of each field of [`Haystacks`].
#[derive(Debug, Clone, Copy)]
#[repr(C)]
struct FieldChars {
    label: CharSet,
    cwd_tail: CharSet,
    id: CharSet,
    cwd: CharSet,
}

/// `text` exactly as `Utf32Str::new` presents it to the matcher (which
/// keeps the original bytes when every grapheme starts with an ASCII
/// character, where `Utf32String::from` would not).
fn haystack(text: &str) -> Utf32String {
    let mut buf = Vec::new();
    match Utf32Str::new(text, &mut buf) {
        Utf32Str::Ascii(_) => Utf32String::Ascii(text.into()),
        Utf32Str::Unicode(chars) => Utf32String::Unicode(chars.into()),
    }
}

impl Entry {
    /// An entry for `record`, labelled by its id until its title is known.
    pub fn new(record: SessionRecord, target: &Target) -> Self {
        let cwd = record.cwd.as_deref().unwrap_or("");
        let trimmed = cwd.trim_end_matches('/');
        let cwd_tail = trimmed.rfind('/').map_or(0, |slash| slash + 1);
        let mut group = group_rank(record.cwd.as_deref(), target.cwd.as_deref());
        // `/w/p/` is the directory `/w/p` (the picker's `--cwd` is
        // normalised; a session may have recorded a trailing slash).
        if group == 2 && within(record.cwd.as_deref(), target.cwd.as_deref()) {
            let trim = |p: &str| p.trim_end_matches('/').len();
            if trim(cwd) == target.cwd.as_deref().map_or(0, trim) {
                group = 0;
            }
        }
        let (id, cwd, cwd_tail) = (
            haystack(&record.id),
            haystack(cwd),
            haystack(&cwd[cwd_tail..]),
        );
        let shown = safe_label(&record.id);
        let label_altered = matches!(shown, std::borrow::Cow::Owned(_));
        let chars = |field: &Utf32String| CharSet::of_field(field.slice(..));
        let haystacks = Haystacks {
            chars: FieldChars {
                label: chars(&id),
                cwd: chars(&cwd),
                cwd_tail: chars(&cwd_tail),
                id: chars(&id),
            },
            label: id.clone(),
            cwd,
            cwd_tail,
            id,
        };
        Entry {
            group,
            within: within(record.cwd.as_deref(), target.cwd.as_deref()),
            label: shown.into_owned(),
            label_altered,
            title: None,
            title_known: false,
            activity: None,
            haystacks,
            record,
        }
    }

    /// The label: its session's latest title, or the id while the title is
    /// unknown, absent or unreadable, made safe.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Record the title read for this session (`None`: absent or
    /// unreadable); it becomes the label.
    pub fn set_title(&mut self, title: Option<String>) {
        self.relabel(title.clone().unwrap_or_else(|| self.record.id.clone()));
        self.title = title;
        self.title_known = true;
    }

    /// Change the label to `label` as the log holds it, which the query
    /// matches; it is shown made safe (records sharing an id all carry the
    /// title of the first of them in record order, as the engine labels
    /// them).
    pub fn relabel(&mut self, label: String) {
        let safe = safe_label(&label);
        let altered = matches!(safe, std::borrow::Cow::Owned(_));
        if !altered && !self.label_altered && safe == self.label {
            // The same text, shown as it is matched: nothing to redo.
            return;
        }
        self.haystacks.label = haystack(&label);
        self.haystacks.chars.label = CharSet::of_field(self.haystacks.label.slice(..));
        self.label = safe.into_owned();
        self.label_altered = altered;
    }

    /// The cwd as a term sees it: the last component, or all of it, and
    /// its characters.
    fn cwd(&self, full: bool) -> (Utf32Str<'_>, CharSet) {
        let hay = &self.haystacks;
        if full {
            (hay.cwd.slice(..), hay.chars.cwd)
        } else {
            (hay.cwd_tail.slice(..), hay.chars.cwd_tail)
        }
    }
}

/// Whether `cwd` is `target` or a directory below it.
pub fn within(cwd: Option<&str>, target: Option<&str>) -> bool {
    let (Some(cwd), Some(target)) = (cwd, target) else {
        return false;
    };
    let target = target.trim_end_matches('/');
    match cwd.strip_prefix(target) {
        Some(rest) => rest.is_empty() || rest.starts_with('/') || target.is_empty(),
        None => false,
    }
}

/// One matching candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    /// The entry.
    pub id: EntryId,
    /// Whether every term was found as typed (contiguously).
    pub exact: bool,
    /// Fuzzy score (sum over the terms); 0 for an exact hit (exact hits
    /// keep list order) and for the empty query.
    pub score: u32,
}

/// One term and its contiguous twin (the same needle as a substring), used
/// to tell an exact find from a fuzzy one and to search ids, and the
/// characters the needle requires.
#[derive(Debug, Clone)]
struct Term {
    atom: Atom,
    contiguous: Atom,
    chars: CharSet,
    /// The contiguous twin of a fuzzy ASCII needle, searched in ASCII
    /// fields without nucleo ([`Typed`]).
    typed: Option<Typed>,
    /// ASCII fields are shown to this term as chars ([`anchored_as_chars`]).
    as_chars: bool,
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
fn anchored_as_chars(atom: &Atom) -> bool {
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
    fn new(atom: Atom) -> Self {
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
struct Typed {
    needle: Box<[u8]>,
    /// The atom compares letters without regard to ASCII case.
    ignore_case: bool,
    /// Where the needle's first lower-case letter is.
    first_letter: Option<usize>,
    /// The needle byte searched for first: its rarest, in English text.
    pivot: usize,
}

impl Typed {
    fn new(contiguous: &Atom, needle: &[u8]) -> Self {
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
    fn is_in(&self, field: &[u8]) -> bool {
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
    groups: Vec<Vec<Term>>,
    /// Whether terms see the whole cwd (the query holds a `/`).
    full_cwd: bool,
}

/// Split on unescaped whitespace (`\ ` is a space inside a term).
fn words(text: &str) -> Vec<&str> {
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

/// Matchers for titles and for paths (path separators score as word
/// boundaries), with scratch memory kept between calls.
pub struct Ranker {
    text: Matcher,
    path: Matcher,
    buf: Vec<char>,
    /// An ASCII field as chars ([`anchored_as_chars`]).
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
enum Pass {
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
    fn entry(&mut self, query: &Query, entry: &Entry, pass: Pass) -> Option<(bool, bool, u32)> {
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
/// for an anchored term that needs it ([`anchored_as_chars`]).
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

/// Where a scored entry goes: exact finds first, in list order; then,
/// among the rest, those matched in the label; then best score first. The
/// one statement of the list's order: with a stable sort, equal keys keep
/// list order.
fn order_key(hit: &Hit, in_label: bool) -> (bool, bool, std::cmp::Reverse<u32>) {
    (
        !hit.exact,
        !in_label,
        std::cmp::Reverse(if hit.exact { 0 } else { hit.score }),
    )
}

/// Score the entries of `ids` (in list order) into `out`, in that order.
/// `pass`: [`Pass::Plain`] or [`Pass::Quick`] (the same hits).
fn score_into(
    ranker: &mut Ranker,
    entries: &[Entry],
    ids: &[EntryId],
    query: &Query,
    pass: Pass,
    out: &mut Vec<(Hit, bool)>,
) {
    out.extend(ids.iter().filter_map(|&id| {
        let (exact, in_label, score) = ranker.entry(query, &entries[id as usize], pass)?;
        Some((Hit { id, exact, score }, in_label))
    }));
}

/// Every entry of `pool`, in list order (what the empty query lists).
fn everything(pool: &[EntryId]) -> Vec<Hit> {
    pool.iter()
        .map(|&id| Hit {
            id,
            exact: true,
            score: 0,
        })
        .collect()
}

/// Put scored entries (`parts` joined, in list order) in the list's order:
/// a stable sort by [`order_key`], done as a stable partition by the key's
/// first two parts (found as typed, in the label) and a stable sort of
/// each part. The same order; but the exact finds, most of the hits of a
/// short query, are only moved (a sort of equal keys is one pass), and
/// the parts are not joined first.
fn ordered(parts: &[Vec<(Hit, bool)>]) -> Vec<Hit> {
    let part = |hit: &Hit, in_label: bool| {
        let (fuzzy, elsewhere, _) = order_key(hit, in_label);
        2 * usize::from(fuzzy) + usize::from(elsewhere)
    };
    // Where each part starts in the list, then where its next hit goes.
    let mut starts = [0; 5];
    for (hit, in_label) in parts.iter().flatten() {
        starts[part(hit, *in_label) + 1] += 1;
    }
    for at in 1..starts.len() {
        starts[at] += starts[at - 1];
    }
    let blank = Hit {
        id: 0,
        exact: false,
        score: 0,
    };
    let mut list = vec![blank; starts[4]];
    let mut next = starts;
    for (hit, in_label) in parts.iter().flatten() {
        let at = &mut next[part(hit, *in_label)];
        list[*at] = *hit;
        *at += 1;
    }
    for at in 0..4 {
        // The parts with an even index hold the finds in the label.
        let in_label = at % 2 == 0;
        list[starts[at]..starts[at + 1]].sort_by_key(|hit| order_key(hit, in_label));
    }
    list
}

/// Rank the entries of `pool` (given in list order) for `query`: every
/// entry, every term scored in turn on this thread, then ordered. The plain statement
/// of the ranking; the picker uses [`Reranker`], which gives the same list
/// faster.
pub fn rank(entries: &[Entry], pool: &[EntryId], query: &Query, ranker: &mut Ranker) -> Vec<Hit> {
    if query.is_empty() {
        return everything(pool);
    }
    let mut scored = Vec::new();
    score_into(ranker, entries, pool, query, Pass::Plain, &mut scored);
    ordered(&[scored])
}

/// Entries scored between two looks at [`rank_until`]'s cancel flag: a
/// look costs nothing beside scoring, and one entry with a path of
/// thousands of characters takes milliseconds at the longest query the MCP
/// server takes.
pub const CANCEL_EVERY: usize = 16;

/// [`rank`]'s list, scored [`CANCEL_EVERY`] entries at a time on this
/// thread with `cancel` checked in between; `None` once it is set. For
/// callers (the MCP server) whose caller may give up on a long ranking.
pub fn rank_until(
    entries: &[Entry],
    pool: &[EntryId],
    query: &Query,
    ranker: &mut Ranker,
    cancel: &AtomicBool,
) -> Option<Vec<Hit>> {
    rank_while(entries, pool, query, ranker, || {
        !cancel.load(Ordering::Relaxed)
    })
}

/// [`rank_until`], asking `go_on` before each chunk.
fn rank_while(
    entries: &[Entry],
    pool: &[EntryId],
    query: &Query,
    ranker: &mut Ranker,
    mut go_on: impl FnMut() -> bool,
) -> Option<Vec<Hit>> {
    if query.is_empty() {
        return Some(everything(pool));
    }
    let mut scored = Vec::new();
    for chunk in pool.chunks(CANCEL_EVERY) {
        if !go_on() {
            return None;
        }
        score_into(ranker, entries, chunk, query, Pass::Quick, &mut scored);
    }
    Some(ordered(&[scored]))
}

/// Results kept for earlier queries, at most this many hits in all (about
/// 12 bytes each): enough for every prefix of a query typed over 100k
/// sessions, so backspace answers at once.
const KEPT_HITS: usize = 1 << 20;

/// Entries scored per parallel task: large enough that a task's overhead
/// (a queue push, a lock, a vector) is noise, small enough that a worker
/// slowed by other work leaves the rest to the others.
const TASK: usize = 2048;

/// A query's hits, kept for the next keystrokes.
#[derive(Debug)]
struct Ranked {
    text: String,
    hits: Vec<Hit>,
}

/// The picker's ranking, as [`rank`] defines it, made fast enough to run
/// on every keystroke over 100k sessions:
///
/// - **Kept results.** The hits of recent queries are kept: a query seen
///   again (backspace) is answered from them, and a query that can only
///   match fewer sessions than a kept one ([`narrows`]) scores only that
///   one's hits, as fzf does. The caller says when the entries, labels or
///   pool change ([`Reranker::forget`]).
/// - **Less work per entry** ([`Pass::Quick`]): a field whose characters
///   cannot hold a term is not searched, nor an entry where some group
///   cannot match ([`CharSet`]: one AND per field; with a letter few
///   labels hold, most entries end there); a term found as typed is not scored, nor the
///   alternatives after one found as typed in the label, unless the hit
///   turns out fuzzy. [`rank`] does all the work, the definition the
///   property tests compare this with.
/// - **Ordering without sorting most hits**: see [`ordered`].
/// - **Parallel scoring.** Large pools are scored in tasks of [`TASK`]
///   entries on a pool of its own (one thread per core, each with its own
///   matchers, since a `Matcher` keeps scratch memory); the tasks' results
///   are joined in list order and ordered by one stable sort, so the list
///   is [`rank`]'s exactly. Not rayon's global pool: previews and listing
///   run long jobs there, and ranking must not wait behind them.
pub struct Reranker {
    /// One ranker per worker thread (by its index in `workers`).
    rankers: Vec<Mutex<Ranker>>,
    /// The ranking threads, started on the first pool large enough.
    workers: Option<rayon::ThreadPool>,
    /// Pools up to this size are scored on the calling thread.
    serial_up_to: usize,
    /// Entries per parallel task.
    task: usize,
    /// Results of recent queries, the newest last.
    kept: VecDeque<Ranked>,
}

impl std::fmt::Debug for Reranker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reranker")
            .field("threads", &self.rankers.len())
            .field("kept", &self.kept.len())
            .finish()
    }
}

impl Default for Reranker {
    fn default() -> Self {
        Self::new()
    }
}

impl Reranker {
    /// A reranker using every core for pools of more than two tasks.
    pub fn new() -> Self {
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        Self::with_split(threads, 2 * TASK, TASK)
    }

    /// A reranker with `threads` workers that scores pools larger than
    /// `serial_up_to` in parallel, `task` entries per task.
    pub fn with_split(threads: usize, serial_up_to: usize, task: usize) -> Self {
        Reranker {
            rankers: (0..threads.max(1))
                .map(|_| Mutex::new(Ranker::new()))
                .collect(),
            workers: None,
            serial_up_to,
            task: task.max(1),
            kept: VecDeque::new(),
        }
    }

    /// Forget the kept results: the entries, their labels or the pool
    /// changed.
    pub fn forget(&mut self) {
        self.kept.clear();
    }

    /// Rank `pool` (in list order) for the query `text`: the list [`rank`]
    /// gives. `pool` and the entries must be those of the previous calls
    /// unless [`Reranker::forget`] was called since.
    pub fn rank(&mut self, entries: &[Entry], pool: &[EntryId], text: &str) -> Vec<Hit> {
        if let Some(at) = self.kept.iter().position(|k| k.text == text) {
            let kept = self.kept.remove(at).expect("position is in range");
            let hits = kept.hits.clone();
            self.kept.push_back(kept);
            return hits;
        }
        let query = Query::parse(text);
        let hits = if query.is_empty() {
            everything(pool)
        } else {
            // The fewest hits of a kept query this one can only narrow.
            let from = self
                .kept
                .iter()
                .filter(|k| narrows(&k.text, text))
                .min_by_key(|k| k.hits.len());
            match from {
                Some(from) => {
                    let mut keep = vec![false; entries.len()];
                    for hit in &from.hits {
                        if let Some(kept) = keep.get_mut(hit.id as usize) {
                            *kept = true;
                        }
                    }
                    let narrowed: Vec<EntryId> = pool
                        .iter()
                        .copied()
                        .filter(|&id| keep.get(id as usize) == Some(&true))
                        .collect();
                    self.score_and_order(entries, &narrowed, &query)
                }
                None => self.score_and_order(entries, pool, &query),
            }
        };
        self.keep(text, &hits);
        hits
    }

    fn keep(&mut self, text: &str, hits: &[Hit]) {
        let mut total: usize = self.kept.iter().map(|k| k.hits.len()).sum::<usize>() + hits.len();
        while total > KEPT_HITS {
            match self.kept.pop_front() {
                Some(old) => total -= old.hits.len(),
                None => return,
            }
        }
        self.kept.push_back(Ranked {
            text: text.to_owned(),
            hits: hits.to_vec(),
        });
    }

    /// Score `ids` (in list order), in parallel when there are many, and
    /// order them.
    fn score_and_order(&mut self, entries: &[Entry], ids: &[EntryId], query: &Query) -> Vec<Hit> {
        if ids.len() > self.serial_up_to && self.rankers.len() > 1 {
            if let Some(parts) = self.score_parallel(entries, ids, query) {
                return ordered(&parts);
            }
        }
        let ranker = self.rankers[0].get_mut().unwrap_or_else(|e| e.into_inner());
        let mut scored = Vec::new();
        score_into(ranker, entries, ids, query, Pass::Quick, &mut scored);
        ordered(&[scored])
    }

    /// Score `ids` in tasks on the workers: their results, in list order;
    /// `None` when the workers cannot be started (the caller scores
    /// serially).
    fn score_parallel(
        &mut self,
        entries: &[Entry],
        ids: &[EntryId],
        query: &Query,
    ) -> Option<Vec<Vec<(Hit, bool)>>> {
        if self.workers.is_none() {
            self.workers = rayon::ThreadPoolBuilder::new()
                .num_threads(self.rankers.len())
                .thread_name(|i| format!("rank-{i}"))
                .build()
                .ok();
        }
        let workers = self.workers.as_ref()?;
        let rankers = &self.rankers;
        let parts: Vec<Vec<(Hit, bool)>> = workers.install(|| {
            ids.par_chunks(self.task)
                .map(|task| {
                    let worker = rayon::current_thread_index().unwrap_or(0) % rankers.len();
                    let mut ranker = rankers[worker].lock().unwrap_or_else(|e| e.into_inner());
                    let mut scored = Vec::with_capacity(task.len());
                    score_into(&mut ranker, entries, task, query, Pass::Quick, &mut scored);
                    scored
                })
                .collect()
        });
        Some(parts)
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use session_ref_stores::kinds::native;
    use session_ref_stores::model::record_order;
    use std::path::Path;
    use std::sync::Arc;

    fn record(id: &str, cwd: Option<&str>, day: u32) -> SessionRecord {
        SessionRecord::new(
            native::KIND,
            Arc::from(Path::new("/s")),
            format!("/s/{id}.jsonl").into(),
            id.into(),
            cwd.map(Into::into),
            format!("2025-01-{day:02}T00:00:00Z"),
        )
    }

    fn target() -> Target {
        Target {
            session_id: Some("self".into()),
            cwd: Some("/home/dev/here".into()),
        }
    }

    /// Entries in record order, labelled, and the pool in group-then-record order.
    /// Entries' (id, cwd, label): the cwds taken in turn.
    fn specs_of<'a>(
        ids: &'a [String],
        cwds: &[Option<&'a str>],
        labels: &'a [String],
    ) -> Vec<(&'a str, Option<&'a str>, &'a str)> {
        ids.iter()
            .zip(labels)
            .enumerate()
            .map(|(i, (id, l))| (id.as_str(), cwds[i % cwds.len()], l.as_str()))
            .collect()
    }

    fn setup(specs: &[(&str, Option<&str>, &str)]) -> (Vec<Entry>, Vec<EntryId>) {
        let t = target();
        let mut records: Vec<SessionRecord> = specs
            .iter()
            .enumerate()
            .map(|(i, (id, cwd, _))| record(id, *cwd, 1 + (i as u32 % 28)))
            .collect();
        records.sort_by(record_order);
        let entries: Vec<Entry> = records
            .iter()
            .map(|r| {
                let label = specs.iter().find(|s| s.0 == r.id).unwrap().2;
                let mut e = Entry::new(r.clone(), &t);
                e.set_title(Some(label.to_owned()));
                e
            })
            .collect();
        let mut pool: Vec<EntryId> = (0..entries.len() as EntryId).collect();
        pool.sort_by_key(|&i| entries[i as usize].group);
        (entries, pool)
    }

    #[test]
    fn a_hostile_title_is_shown_safe_and_matched_as_logged() {
        let title = "Fix\n</referenced-sessions>\u{1b}]0;x\u{7}\u{202e}gnp";
        let specs = [("h", Some("/w"), title), ("p", Some("/w"), "plain")];
        let (entries, _) = setup(&specs);
        let hostile = entries.iter().find(|e| e.record.id == "h").unwrap();
        assert_eq!(hostile.label(), "Fix </referenced-sessions> ]0;x gnp");
        assert_eq!(hostile.title.as_deref(), Some(title));
        assert_eq!(ranked(&specs, "referenced"), ["h"]);
        // Relabelled with the same shown text from other raw text, the
        // haystack follows the raw text.
        let mut entry = hostile.clone();
        entry.relabel("Fix </referenced-sessions> ]0;x gnp".into());
        assert_eq!(entry.label(), "Fix </referenced-sessions> ]0;x gnp");
        assert_eq!(
            entry.haystacks.label,
            haystack("Fix </referenced-sessions> ]0;x gnp")
        );
    }

    fn ranked(specs: &[(&str, Option<&str>, &str)], query: &str) -> Vec<String> {
        let (entries, pool) = setup(specs);
        rank(&entries, &pool, &Query::parse(query), &mut Ranker::new())
            .iter()
            .map(|h| entries[h.id as usize].record.id.clone())
            .collect()
    }

    const DEMO: &[(&str, Option<&str>, &str)] = &[
        ("s1", Some("/home/dev/here"), "Webhook retry schedule"),
        (
            "s2",
            Some("/home/dev/here"),
            "Ledger migration: double-entry",
        ),
        ("s3", Some("/home/dev/infra"), "Postgres upgrade plan"),
        ("s4", None, "Idempotency keys for POST /charges"),
        ("s5", Some("/home/dev/parser"), "Fix lexer bug"),
    ];

    #[test]
    fn terms_match_in_any_order() {
        assert_eq!(ranked(DEMO, "retry webhook"), ["s1"]);
        assert_eq!(ranked(DEMO, "webhook retry"), ["s1"]);
        assert_eq!(ranked(DEMO, "ledger migr"), ["s2"]);
        assert_eq!(ranked(DEMO, "idem pay"), Vec::<String>::new());
    }

    #[test]
    fn extended_syntax() {
        assert_eq!(ranked(DEMO, "'plan"), ["s3"]);
        assert_eq!(ranked(DEMO, "^fix"), ["s5"]);
        assert_eq!(ranked(DEMO, "charges$"), ["s4"]);
        assert_eq!(ranked(DEMO, "'e !ledger !webhook"), ["s4", "s5", "s3"]);
        assert_eq!(ranked(DEMO, "^ledger | ^fix"), ["s2", "s5"]);
        // Smart case: lower case ignores case, an upper-case letter does not.
        assert_eq!(ranked(DEMO, "'post"), ["s4", "s3"]);
        assert_eq!(ranked(DEMO, "'POST"), ["s4"]);
    }

    #[test]
    fn anchored_terms_with_an_upper_case_letter_match_the_part_they_anchor() {
        let specs = [
            ("s1", None, "Webhook retry schedule"),
            ("s2", None, "HPA tuning for the API"),
            ("s3", None, "Fix flaky CI"),
            ("s4", None, "webhook notes in ci"),
            ("s5", None, "  Webhook with leading space  "),
        ];
        // (List order: newest first.)
        assert_eq!(ranked(&specs, "^Webhook"), ["s5", "s1"]);
        assert_eq!(ranked(&specs, "^HPA"), ["s2"]);
        assert_eq!(ranked(&specs, "CI$"), ["s3"]);
        assert_eq!(ranked(&specs, "API$"), ["s2"]);
        assert_eq!(ranked(&specs, "^Web CI$"), Vec::<String>::new());
        assert_eq!(ranked(&specs, "!^Webhook"), ["s4", "s3", "s2"]);
        assert_eq!(ranked(&specs, "^Fix\\ flaky\\ CI$"), ["s3"]);
        // Smart case still holds: an upper-case letter is case-sensitive.
        assert_eq!(ranked(&specs, "^webhook"), ["s5", "s4", "s1"]);
        assert_eq!(ranked(&specs, "ci$"), ["s4", "s3"]);
        let mut r = Ranker::new();
        assert_eq!(
            r.highlight(&Query::parse("^Web"), "Webhook retry", false),
            [0, 1, 2]
        );
        assert_eq!(r.highlight(&Query::parse("CI$"), "Fix CI", false), [4, 5]);
    }

    #[test]
    fn the_cwd_counts_by_its_last_component_unless_the_query_has_a_slash() {
        // `dev` is in every cwd's leading components, but in no label.
        assert_eq!(ranked(DEMO, "'dev"), Vec::<String>::new());
        assert_eq!(ranked(DEMO, "'infra"), ["s3"]);
        // (List order: this directory, then no cwd, then others; newest first.)
        assert_eq!(ranked(DEMO, "dev/"), ["s2", "s1", "s5", "s3"]);
        // Ids are searched as substrings only.
        assert_eq!(ranked(DEMO, "s4"), ["s4"]);
    }

    #[test]
    fn exact_finds_first_in_list_order_then_the_label_then_fuzzy_by_score() {
        let specs = [
            ("a", Some("/w/parser"), "Unrelated"),
            ("b", Some("/home/dev/here"), "Refactor the parser"),
            ("c", Some("/w/x"), "parse error report"),
            ("d", None, "Parser notes"),
        ];
        // b (here) and d (no cwd) contain "parser" in the label, a in its cwd;
        // c matches only as a subsequence.
        assert_eq!(ranked(&specs, "parser"), ["b", "d", "a", "c"]);
    }

    #[test]
    fn a_group_cut_short_is_scored_again_when_the_hit_is_fuzzy() {
        // `'b` is found first, as typed in the label; `abc` scores higher;
        // `xz` makes the hit fuzzy, so the group's best score counts.
        let (entries, _) = setup(&[("s1", None, "cab abc xqz")]);
        let query = Query::parse("'b | abc xz");
        let mut ranker = Ranker::new();
        let plain = ranker.entry(&query, &entries[0], Pass::Plain);
        let cut = Query::parse("'b xz");
        assert!(plain.unwrap().2 > ranker.entry(&cut, &entries[0], Pass::Plain).unwrap().2);
        assert_eq!(ranker.entry(&query, &entries[0], Pass::Quick), plain);
    }

    #[test]
    fn highlights_the_terms() {
        let mut r = Ranker::new();
        let q = Query::parse("pars fix");
        assert_eq!(
            r.highlight(&q, "Fix Parser bug", false),
            [0, 1, 2, 4, 5, 6, 7]
        );
        assert_eq!(
            r.highlight(&Query::parse("rp"), "refactor parser", false),
            [0, 9]
        );
        assert!(r.highlight(&Query::parse("xyz"), "abc", false).is_empty());
        assert!(r.highlight(&Query::parse(""), "abc", false).is_empty());
        assert!(r.highlight(&Query::parse("!abc"), "abc", false).is_empty());
        assert_eq!(r.highlight(&Query::parse("nï"), "Ünïcode", false), [1, 2]);
    }

    #[test]
    fn within_a_directory_and_below() {
        assert!(within(Some("/a/b"), Some("/a/b")));
        assert!(within(Some("/a/b/c"), Some("/a/b")));
        assert!(within(Some("/a/b/c"), Some("/a/b/")));
        assert!(!within(Some("/a/bc"), Some("/a/b")));
        assert!(!within(None, Some("/a")));
        assert!(!within(Some("/a"), None));
        assert!(within(Some("/a"), Some("/")));
    }

    #[test]
    fn narrowing_is_only_for_additions() {
        assert!(narrows("pa", "par"));
        assert!(narrows("pa", "pa rs"));
        assert!(narrows("pa/", "pa/x"));
        assert!(!narrows("", "p"));
        assert!(!narrows("par", "pa"));
        assert!(!narrows("pa", "xpa"));
        assert!(!narrows("pa", "pa |"));
        assert!(narrows("pa | le", "pa | lex"));
        assert!(narrows("pa | le", "pa | leX"));
        assert!(!narrows("pa | le", "pa | le x"));
        assert!(!narrows("pa |", "pa |x"));
        assert!(!narrows("pa | ", "pa | x"));
        assert!(!narrows("pa | ^", "pa | ^x"));
        assert!(!narrows("pa | le", "pa | le|"));
        assert!(!narrows("pa", "pa !x"));
        assert!(!narrows("pa", "pa/"));
        assert!(!narrows("pa$", "pa$x"));
        assert!(narrows("pa$", "pa$ x"));
        assert!(narrows("^b", "^b^"));
        assert!(narrows("^B", "^B^"));
        assert!(narrows("x$", "x$ B"));
    }

    /// One step of typing into the filter.
    #[derive(Debug, Clone)]
    enum Edit {
        Type(char),
        Backspace,
        Clear,
        /// Entries, labels or the pool changed (the reranker is told).
        Forget,
    }

    fn edit_strategy() -> impl Strategy<Value = Edit> {
        prop_oneof![
            6 => proptest::sample::select(vec![
                'a', 'b', 'c', 'd', 'A', 'B', 'é', ' ', ' ', '/', '^', '\'', '$', '!', '|', '\\',
            ])
            .prop_map(Edit::Type),
            2 => Just(Edit::Backspace),
            1 => Just(Edit::Clear),
            1 => Just(Edit::Forget),
        ]
    }

    #[test]
    fn a_cancelled_ranking_stops_between_chunks() {
        let labels: Vec<String> = (0..3 * CANCEL_EVERY)
            .map(|i| format!("fix bug {i}"))
            .collect();
        let ids: Vec<String> = (0..labels.len()).map(|i| format!("s{i}")).collect();
        let specs = specs_of(&ids, &[Some("/w/a")], &labels);
        let (entries, pool) = setup(&specs);
        let query = Query::parse("fix bug");
        assert_eq!(query.terms(), 2);
        let cancelled = AtomicBool::new(true);
        assert_eq!(
            rank_until(&entries, &pool, &query, &mut Ranker::new(), &cancelled),
            None
        );
        // The empty query does no scoring: answered whatever the flag.
        assert_eq!(
            rank_until(
                &entries,
                &pool,
                &Query::parse(""),
                &mut Ranker::new(),
                &cancelled
            )
            .map(|h| h.len()),
            Some(pool.len())
        );
        let go_on = AtomicBool::new(false);
        let hits = rank_until(&entries, &pool, &query, &mut Ranker::new(), &go_on).unwrap();
        assert_eq!(hits, rank(&entries, &pool, &query, &mut Ranker::new()));
        assert_eq!(hits.len(), pool.len());
        // Asked before every chunk: once per chunk when it goes on, and
        // no chunk is scored after the answer turns to stop.
        let mut asked = 0;
        let whole = rank_while(&entries, &pool, &query, &mut Ranker::new(), || {
            asked += 1;
            true
        });
        assert_eq!((whole.map(|h| h.len()), asked), (Some(pool.len()), 3));
        let mut asked = 0;
        let stopped = rank_while(&entries, &pool, &query, &mut Ranker::new(), || {
            asked += 1;
            asked < 2
        });
        assert_eq!((stopped, asked), (None, 2));
    }

    proptest! {
        /// The reranker (kept results, narrowing, parallel tasks joined in
        /// list order) lists exactly what a plain full re-rank lists, for
        /// every query of a random sequence of edits.
        #[test]
        fn the_reranker_lists_what_a_full_rank_lists(
            labels in proptest::collection::vec("[a-dA-Bé /|!^$'-]{0,10}", 1..40),
            subset in proptest::collection::vec(any::<bool>(), 40),
            edits in proptest::collection::vec(edit_strategy(), 1..25),
            task in 1usize..5,
        ) {
            let ids: Vec<String> = (0..labels.len()).map(|i| format!("s{i}ab")).collect();
            let cwds = [Some("/home/dev/here"), None, Some("/w/ab"), Some("/w/cd/Bé"), Some("/home/dev/here/x")];
            let specs = specs_of(&ids, &cwds, &labels);
            let (entries, all) = setup(&specs);
            // Sometimes a scope: a subset of the list, in list order.
            let mut pool = all.clone();
            let mut reranker = Reranker::with_split(2, 0, task);
            let mut text = String::new();
            for (step, edit) in edits.into_iter().enumerate() {
                match edit {
                    Edit::Type(c) => text.push(c),
                    Edit::Backspace => {
                        text.pop();
                    }
                    Edit::Clear => text.clear(),
                    Edit::Forget => {
                        pool = if step % 2 == 0 {
                            all.iter().copied().filter(|&id| subset[id as usize]).collect()
                        } else {
                            all.clone()
                        };
                        reranker.forget();
                    }
                }
                let full = rank(&entries, &pool, &Query::parse(&text), &mut Ranker::new());
                prop_assert_eq!(reranker.rank(&entries, &pool, &text), full.clone(), "query {:?}", text);
                let go_on = AtomicBool::new(false);
                let until = rank_until(&entries, &pool, &Query::parse(&text), &mut Ranker::new(), &go_on);
                prop_assert_eq!(until, Some(full), "query {:?}", text);
            }
        }
    }

    proptest! {
        /// An anchored term (`^prefix`, `suffix$`) matches a label exactly
        /// when the label, less the white space at that end, starts or ends
        /// with the needle: as typed when the needle holds an upper-case
        /// letter, regardless of case otherwise.
        #[test]
        fn anchored_terms_match_by_their_definition(
            needle in "[aAbB]{1,3}",
            suffix in any::<bool>(),
            labels in proptest::collection::vec("[aAbB ]{0,8}", 1..12),
        ) {
            let query = if suffix { format!("{needle}$") } else { format!("^{needle}") };
            let query = Query::parse(&query);
            let sensitive = needle.bytes().any(|b| b.is_ascii_uppercase());
            let mut ranker = Ranker::new();
            for label in &labels {
                let (entries, _) = setup(&[("0", None, label.as_str())]);
                let hay = if suffix { label.trim_end() } else { label.trim_start() };
                let part = if suffix {
                    hay.len().checked_sub(needle.len()).map(|at| &hay[at..])
                } else {
                    hay.get(..needle.len())
                };
                let expected = part.is_some_and(|part| {
                    if sensitive { part == needle } else { part.eq_ignore_ascii_case(&needle) }
                });
                let found = ranker.entry(&query, &entries[0], Pass::Plain).is_some();
                prop_assert_eq!(found, expected, "{:?} in {:?}", needle, label);
                prop_assert_eq!(ranker.entry(&query, &entries[0], Pass::Quick).is_some(), expected);
            }
        }
    }

    proptest! {
        /// A needle found as typed without nucleo is found exactly where
        /// nucleo's substring search finds it, whatever the lengths, the
        /// case of either side and where the needle's first letter is.
        #[test]
        fn typed_finds_what_nucleo_finds(
            needle in "[aAbBxX0/$_ -]{1,5}",
            fields in proptest::collection::vec("[aAbBxX0/$_ -]{0,9}", 1..12),
        ) {
            let atom = Atom::new(&needle, CaseMatching::Smart, Normalization::Smart, AtomKind::Fuzzy, false);
            let term = Term::new(atom);
            let Some(typed) = &term.typed else {
                return Ok(());
            };
            let mut matcher = Matcher::new(Config::DEFAULT);
            for field in &fields {
                let nucleo = term.contiguous.score(Utf32Str::Ascii(field.as_bytes()), &mut matcher).is_some();
                prop_assert_eq!(typed.is_in(field.as_bytes()), nucleo, "{:?} in {:?}", needle, field);
            }
        }
    }

    proptest! {
        /// A quick pass (characters checked first, finds as typed not
        /// scored, alternatives cut short, groups scored again) answers
        /// exactly as the plain one, for every entry: the prefilter never
        /// turns away an entry the plain pass matches, and scores agree.
        #[test]
        fn a_quick_pass_matches_and_scores_as_the_plain_one(
            labels in proptest::collection::vec("[a-dA-Dxé\u{212A}ß0-9 /._-]{0,12}", 1..20),
            query in "([!^'\\\\]?[a-dA-Déx\u{212A}k0-9/._-]{1,4}[$]?( \\| )?){1,3} ?",
        ) {
            let ids: Vec<String> = (0..labels.len()).map(|i| format!("{i}e-Ab")).collect();
            let cwds = [Some("/home/dev/here"), None, Some("/w/Ab"), Some("/w/cd/Bé"), Some("/x/ké/")];
            let specs = specs_of(&ids, &cwds, &labels);
            let (entries, _) = setup(&specs);
            let query = Query::parse(&query);
            let mut ranker = Ranker::new();
            for entry in &entries {
                let plain = ranker.entry(&query, entry, Pass::Plain);
                prop_assert_eq!(ranker.entry(&query, entry, Pass::Quick), plain, "{:?}", entry.label());
            }
        }

        /// The list's order is a stable sort by [`order_key`], however the
        /// scored entries are split into parts.
        #[test]
        fn ordering_is_a_stable_sort_by_the_order_key(
            scored in proptest::collection::vec((any::<bool>(), any::<bool>(), 0u32..4), 0..60),
            split in 1usize..8,
        ) {
            let scored: Vec<(Hit, bool)> = scored
                .into_iter()
                .enumerate()
                .map(|(i, (exact, in_label, score))| (Hit { id: i as EntryId, exact, score }, in_label))
                .collect();
            let mut sorted = scored.clone();
            sorted.sort_by_key(|(hit, in_label)| order_key(hit, *in_label));
            let sorted: Vec<Hit> = sorted.into_iter().map(|(hit, _)| hit).collect();
            let parts: Vec<Vec<(Hit, bool)>> = scored.chunks(split).map(<[_]>::to_vec).collect();
            prop_assert_eq!(ordered(&parts), sorted);
        }
    }

    fn label_strategy() -> impl Strategy<Value = String> {
        proptest::string::string_regex("[a-dA-D /-]{0,12}").unwrap()
    }

    proptest! {
        /// Starting from the previous hits when the query grows gives the
        /// same list as ranking everything.
        #[test]
        fn narrowing_gives_the_same_list(
            labels in proptest::collection::vec(label_strategy(), 1..30),
            query in "[a-dA-D/ ^'$]{1,4}|[a-dA-D^']{1,3} \\| [a-dA-D/^'$]{1,3}",
            extra in "[a-dA-D ^'$/]{1,3}|[a-dA-D'$]{1,2}",
        ) {
            let ids: Vec<String> = (0..labels.len()).map(|i| format!("s{i}")).collect();
            let cwds = [Some("/home/dev/here"), None, Some("/w/ab"), Some("/w/cd")];
            let specs = specs_of(&ids, &cwds, &labels);
            let (entries, pool) = setup(&specs);
            let mut r = Ranker::new();
            let longer = format!("{query}{extra}");
            prop_assume!(narrows(&query, &longer));
            let first = rank(&entries, &pool, &Query::parse(&query), &mut r);
            let full = rank(&entries, &pool, &Query::parse(&longer), &mut r);
            let mut narrowed: Vec<EntryId> = first.iter().map(|h| h.id).collect();
            let position = |id: &EntryId| pool.iter().position(|p| p == id).unwrap();
            narrowed.sort_by_key(position);
            prop_assert_eq!(full, rank(&entries, &narrowed, &Query::parse(&longer), &mut r));
        }
    }
}
