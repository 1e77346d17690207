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

use nucleo_matcher::pattern::{Atom, AtomKind, CaseMatching, Normalization};
use nucleo_matcher::{Config, Matcher, Utf32Str};

use crate::reference::candidates::{group_rank, Target};
use crate::store::model::SessionRecord;

/// Index of an [`Entry`] in the picker's arrival-ordered entry list.
pub type EntryId = u32;

/// A listed session with its label and what ranking and the list read.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The listed record.
    pub record: SessionRecord,
    /// The label: its session's latest title, or the id while the title is
    /// unknown, absent or unreadable.
    pub label: String,
    /// This record's own title, once read.
    pub title: Option<String>,
    /// Whether the title has been read.
    pub title_known: bool,
    /// Group rank (0 same cwd as the target, 1 no cwd, 2 other cwd).
    pub group: u8,
    /// Whether the cwd is the target's or below it (what ctrl-o keeps).
    pub within: bool,
    /// Last activity (the log's modification time, Unix seconds), once read.
    pub activity: Option<i64>,
    /// Where the cwd's last component starts (byte offset).
    cwd_tail: usize,
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
        Entry {
            group,
            within: within(record.cwd.as_deref(), target.cwd.as_deref()),
            label: record.id.clone(),
            title: None,
            title_known: false,
            activity: None,
            cwd_tail,
            record,
        }
    }

    /// Record the title read for this session (`None`: absent or
    /// unreadable); it becomes the label.
    pub fn set_title(&mut self, title: Option<String>) {
        self.label = title.clone().unwrap_or_else(|| self.record.id.clone());
        self.title = title;
        self.title_known = true;
    }

    /// Change the label (records sharing an id all carry the title of the
    /// first of them in record order, as the engine labels them).
    pub fn relabel(&mut self, label: String) {
        self.label = label;
    }

    /// The cwd as a term sees it: the last component, or all of it.
    fn cwd(&self, full: bool) -> &str {
        let cwd = self.record.cwd.as_deref().unwrap_or("");
        if full {
            cwd
        } else {
            &cwd[self.cwd_tail..]
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
    /// Fuzzy score (sum over the terms; 0 for the empty query).
    pub score: u32,
}

/// One term and its contiguous twin (the same needle as a substring), used
/// to tell an exact find from a fuzzy one and to search ids.
#[derive(Debug, Clone)]
struct Term {
    atom: Atom,
    contiguous: Atom,
}

impl Term {
    fn new(atom: Atom) -> Self {
        let mut contiguous = atom.clone();
        if contiguous.kind == AtomKind::Fuzzy {
            contiguous.kind = AtomKind::Substring;
        }
        Term { atom, contiguous }
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
}

/// Matchers for titles and for paths (path separators score as word
/// boundaries), with scratch memory kept between calls.
pub struct Ranker {
    text: Matcher,
    path: Matcher,
    buf: Vec<char>,
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

/// How one group matched an entry.
#[derive(Clone, Copy)]
struct Found {
    score: u32,
    in_label: bool,
    exact: bool,
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
        }
    }

    fn score(&mut self, atom: &Atom, haystack: &str, path: bool) -> Option<u32> {
        let matcher = if path { &mut self.path } else { &mut self.text };
        atom.score(Utf32Str::new(haystack, &mut self.buf), matcher)
            .map(u32::from)
    }

    /// How `term` matches `entry`: the best of label, cwd and id, the label
    /// preferred on equal scores.
    fn term(&mut self, term: &Term, entry: &Entry, full_cwd: bool) -> Option<Found> {
        let atom = &term.atom;
        if atom.negative {
            let cwd = entry.cwd(full_cwd);
            let hidden = self.score(atom, &entry.label, false).is_none()
                || self.score(atom, cwd, true).is_none()
                || self.score(atom, &entry.record.id, false).is_none();
            return (!hidden).then_some(Found {
                score: 0,
                in_label: true,
                exact: true,
            });
        }
        if let Some(score) = self.score(atom, &entry.label, false) {
            let exact = atom.kind != AtomKind::Fuzzy
                || self.score(&term.contiguous, &entry.label, false).is_some();
            return Some(Found {
                score,
                in_label: true,
                exact,
            });
        }
        let cwd = entry.cwd(full_cwd);
        if let Some(score) = self.score(atom, cwd, true) {
            let exact =
                atom.kind != AtomKind::Fuzzy || self.score(&term.contiguous, cwd, true).is_some();
            return Some(Found {
                score,
                in_label: false,
                exact,
            });
        }
        self.score(&term.contiguous, &entry.record.id, false)
            .map(|score| Found {
                score,
                in_label: false,
                exact: true,
            })
    }

    /// How `query` matches `entry`, `None` when it does not.
    fn entry(&mut self, query: &Query, entry: &Entry) -> Option<(bool, bool, u32)> {
        let (mut exact, mut in_label, mut score) = (true, true, 0);
        for group in &query.groups {
            let mut best: Option<Found> = None;
            for term in group {
                if let Some(found) = self.term(term, entry, query.full_cwd) {
                    let better = best.is_none_or(|b| {
                        (found.exact, found.in_label, found.score) > (b.exact, b.in_label, b.score)
                    });
                    if better {
                        best = Some(found);
                    }
                }
            }
            let found = best?;
            exact &= found.exact;
            in_label &= found.in_label;
            score += found.score;
        }
        Some((exact, in_label, score))
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
            let hay = Utf32Str::new(text, &mut self.buf);
            // Show where the term is found as typed when it is.
            let mut found = Vec::new();
            if term.contiguous.indices(hay, matcher, &mut found).is_none() {
                found.clear();
                let hay = Utf32Str::new(text, &mut self.buf);
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

/// Rank the entries of `pool` (given in list order) for `query`.
pub fn rank(entries: &[Entry], pool: &[EntryId], query: &Query, ranker: &mut Ranker) -> Vec<Hit> {
    if query.is_empty() {
        return pool
            .iter()
            .map(|&id| Hit {
                id,
                exact: true,
                score: 0,
            })
            .collect();
    }
    let mut scored: Vec<(Hit, bool)> = pool
        .iter()
        .filter_map(|&id| {
            let (exact, in_label, score) = ranker.entry(query, &entries[id as usize])?;
            Some((Hit { id, exact, score }, in_label))
        })
        .collect();
    // Stable: ties keep list order. Exact finds keep list order outright.
    scored.sort_by_key(|(hit, in_label)| {
        (
            !hit.exact,
            !in_label,
            std::cmp::Reverse(if hit.exact { 0 } else { hit.score }),
        )
    });
    scored.into_iter().map(|(hit, _)| hit).collect()
}

/// Whether every match of `next` is among the matches of `previous`, so a
/// re-rank may start from the previous hits: `next` only adds to
/// `previous`, and neither an either-or (`|`), a negation (`!`), an escape,
/// a first `/` (which widens the cwd searched) nor text glued after a
/// `suffix$` term (which makes it fuzzy again) is involved. A new
/// upper-case letter makes its term case-sensitive, which only narrows it.
pub fn narrows(previous: &str, next: &str) -> bool {
    let Some(added) = next.strip_prefix(previous) else {
        return false;
    };
    let widening = |c: char| matches!(c, '|' | '!' | '\\');
    let glued_after_suffix =
        previous.ends_with('$') && added.starts_with(|c: char| !c.is_whitespace());
    let first_slash = added.contains('/') && !previous.contains('/');
    let widens = previous.contains(widening) || added.contains(widening);
    !previous.trim().is_empty() && !widens && !first_slash && !glued_after_suffix
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::model::record_order;
    use crate::store::native;
    use proptest::prelude::*;
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
        assert!(!narrows("pa", "pa !x"));
        assert!(!narrows("pa", "pa/"));
        assert!(!narrows("pa$", "pa$x"));
        assert!(narrows("pa$", "pa$ x"));
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
            query in "[a-dA-D/ ^'$]{1,4}",
            extra in "[a-dA-D ^'$/]{1,3}",
        ) {
            let ids: Vec<String> = (0..labels.len()).map(|i| format!("s{i}")).collect();
            let cwds = [Some("/home/dev/here"), None, Some("/w/ab"), Some("/w/cd")];
            let specs: Vec<(&str, Option<&str>, &str)> = ids
                .iter()
                .zip(&labels)
                .enumerate()
                .map(|(i, (id, l))| (id.as_str(), cwds[i % 4], l.as_str()))
                .collect();
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
