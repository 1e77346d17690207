//! The ranking's tests: examples of the syntax and the order, and the
//! properties holding the fast passes to the plain definition.

use super::entry::haystack;
use super::query::Term;
use super::ranking::*;
use super::score::Pass;
use super::*;
use nucleo_matcher::pattern::{Atom, AtomKind, CaseMatching, Normalization};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use proptest::prelude::*;
use session_ref_core::candidates::Target;
use session_ref_stores::kinds::native;
use session_ref_stores::model::record_order;
use session_ref_stores::model::SessionRecord;
use std::path::Path;
use std::sync::atomic::AtomicBool;
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
        let scored: Vec<(Scored, bool)> = scored
            .into_iter()
            .enumerate()
            .map(|(i, (exact, in_label, score))| (Scored { id: i as EntryId, exact, score }, in_label))
            .collect();
        let mut sorted = scored.clone();
        sorted.sort_by_key(|(hit, in_label)| order_key(hit, *in_label));
        let sorted: Vec<Scored> = sorted.into_iter().map(|(hit, _)| hit).collect();
        let parts: Vec<Vec<(Scored, bool)>> = scored.chunks(split).map(<[_]>::to_vec).collect();
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
