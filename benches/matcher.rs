//! Fuzzy matching on 100k candidates: `nucleo-matcher` (what
//! `session_ref::matching` uses) against `fuzzy-matcher`'s skim algorithm,
//! each scoring one query against every candidate's label, cwd and id; and
//! the picker's whole re-rank (exact rule, fuzzy scores, ordering) for 10k
//! and 100k sessions.

use std::cell::RefCell;
use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use fuzzy_matcher::skim::SkimMatcherV2;
use fuzzy_matcher::FuzzyMatcher as _;
use session_ref_core::candidates::Target;
use session_ref_core::matching::{FuzzyMatcher, Pattern};
use session_ref_engine::rank::{self, Entry, EntryId};
use session_ref_stores::model::{record_order, SessionRecord};

const QUERIES: [&str; 4] = ["parser", "fxprsbg", "session ref", "zqxjv"];

/// One query of each kind the picker's filter takes: fuzzy (one letter, a
/// word many labels contain, a scattered subsequence, no match), several
/// terms, and fzf's extended syntax (exact, prefix, suffix, negation, `|`).
const RERANK_QUERIES: [&str; 12] = [
    "p",
    "parser",
    "fxprsbg",
    "zqxjv",
    "parser fix",
    "'pars",
    "^fix",
    "tests$",
    "!cache",
    "^fix !lexer",
    "parser | lexer",
    "^fix tests$ | docs !auth",
];

/// A deterministic pseudo-random sequence (64-bit LCG).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as usize
    }

    fn pick<'a>(&mut self, words: &[&'a str]) -> &'a str {
        words[self.next() % words.len()]
    }
}

const WORDS: &[&str] = &[
    "fix",
    "parser",
    "bug",
    "refactor",
    "session",
    "picker",
    "preview",
    "budget",
    "retention",
    "tmux",
    "paste",
    "render",
    "cache",
    "lexer",
    "deploy",
    "notes",
    "release",
    "tests",
    "flaky",
    "migrate",
    "schema",
    "auth",
    "token",
    "login",
    "docs",
    "readme",
    "benchmark",
    "matcher",
    "terminal",
    "keys",
    "layout",
    "snapshot",
    "discovery",
    "claude",
    "codex",
    "hydra",
    "store",
];
const PROJECTS: &[&str] = &[
    "session-ref",
    "hydra",
    "api",
    "web",
    "infra",
    "dotfiles",
    "notes",
];

/// `n` sessions: (id, cwd, label).
fn candidates(n: usize) -> Vec<(String, String, String)> {
    let mut rng = Lcg(42);
    (0..n)
        .map(|i| {
            let id = format!(
                "{:08x}-{:04x}-4{:03x}-{:04x}",
                rng.next(),
                i % 65_536,
                rng.next() % 4096,
                rng.next() % 65_536
            );
            let cwd = format!("/home/dev/src/{}/{}", rng.pick(PROJECTS), rng.pick(WORDS));
            let words = 3 + rng.next() % 5;
            let label: Vec<&str> = (0..words).map(|_| rng.pick(WORDS)).collect();
            (id, cwd, label.join(" "))
        })
        .collect()
}

fn entries(n: usize) -> (Vec<Entry>, Vec<EntryId>) {
    let target = Target {
        session_id: None,
        cwd: Some("/home/dev/src/session-ref/picker".into()),
    };
    let root: Arc<Path> = Arc::from(Path::new("/s"));
    let mut records: Vec<(SessionRecord, String)> = candidates(n)
        .into_iter()
        .enumerate()
        .map(|(i, (id, cwd, label))| {
            let created = format!("2025-{:02}-{:02}T00:00:00Z", 1 + i % 12, 1 + i % 28);
            let path = format!("/s/{id}.jsonl").into();
            (
                SessionRecord::new(
                    session_ref_stores::kinds::native::KIND,
                    Arc::clone(&root),
                    path,
                    id,
                    Some(cwd),
                    created,
                ),
                label,
            )
        })
        .collect();
    records.sort_by(|a, b| record_order(&a.0, &b.0));
    let entries: Vec<Entry> = records
        .into_iter()
        .map(|(record, label)| {
            let mut entry = Entry::new(record, &target);
            entry.set_title(Some(label));
            entry
        })
        .collect();
    let mut pool: Vec<EntryId> = (0..entries.len() as EntryId).collect();
    pool.sort_by_key(|&i| entries[i as usize].group);
    (entries, pool)
}

fn matchers(c: &mut Criterion) {
    let data = candidates(100_000);
    let mut group = c.benchmark_group("match_100k");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(3));
    for query in QUERIES {
        group.bench_with_input(BenchmarkId::new("nucleo-matcher", query), &query, |b, q| {
            let mut matcher = FuzzyMatcher::new();
            b.iter(|| {
                let pattern = Pattern::new(q);
                data.iter()
                    .filter(|(id, cwd, label)| {
                        matcher
                            .best_score_pattern(
                                &pattern,
                                [label.as_str(), cwd.as_str(), id.as_str()],
                            )
                            .is_some()
                    })
                    .count()
            });
        });
        group.bench_with_input(BenchmarkId::new("fuzzy-matcher", query), &query, |b, q| {
            let matcher = SkimMatcherV2::default().ignore_case();
            b.iter(|| {
                data.iter()
                    .filter(|(id, cwd, label)| {
                        [label, cwd, id]
                            .iter()
                            .filter_map(|field| matcher.fuzzy_match(field, q))
                            .max()
                            .is_some()
                    })
                    .count()
            });
        });
    }
    group.finish();
}

/// The picker's re-rank of 10k and 100k sessions: `full` is [`rank::rank`]
/// (every entry scored on one thread, the definition of the order), `fast`
/// the [`rank::Reranker`] the picker uses with nothing kept (a pasted
/// query, or one that cannot narrow the last), and `keystroke` the
/// reranker after the query's last character was typed (the query without
/// it ranked just before, as when typing).
fn rerank(c: &mut Criterion) {
    let mut group = c.benchmark_group("rerank");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(3));
    for n in [10_000, 100_000] {
        let (entries, pool) = entries(n);
        for query in RERANK_QUERIES {
            let id = |path: &str| BenchmarkId::new(format!("{n}/{path}"), query);
            group.bench_with_input(id("full"), &query, |b, q| {
                let mut ranker = rank::Ranker::new();
                let query = rank::Query::parse(q);
                b.iter(|| black_box(rank::rank(&entries, &pool, &query, &mut ranker)).len());
            });
            group.bench_with_input(id("fast"), &query, |b, q| {
                let mut reranker = rank::Reranker::new();
                b.iter(|| {
                    reranker.forget();
                    black_box(reranker.rank(&entries, &pool, q)).len()
                });
            });
            let typed = &query[..query.len() - 1];
            group.bench_with_input(id("keystroke"), &query, |b, q| {
                // Both closures need it, one after the other.
                let reranker = RefCell::new(rank::Reranker::new());
                b.iter_batched_ref(
                    || {
                        let mut reranker = reranker.borrow_mut();
                        reranker.forget();
                        reranker.rank(&entries, &pool, typed);
                    },
                    |()| black_box(reranker.borrow_mut().rank(&entries, &pool, q)).len(),
                    BatchSize::PerIteration,
                );
            });
        }
    }
    group.finish();
}

criterion_group!(benches, matchers, rerank);
criterion_main!(benches);
