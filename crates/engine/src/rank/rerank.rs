//! The picker's ranking made fast: kept results, narrowing, parallel
//! scoring, all giving [`super::rank()`]'s list exactly.

use std::collections::VecDeque;
use std::sync::Mutex;

use rayon::prelude::*;

use super::entry::{Entry, EntryId};
use super::query::{narrows, Query};
use super::ranking::{everything, ordered, score_into, Scored};
use super::score::{Pass, Ranker};

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
    hits: Vec<Scored>,
}

/// The picker's ranking, as [`rank`](super::rank) defines it, made fast enough to run
/// on every keystroke over 100k sessions:
///
/// - **Kept results.** The hits of recent queries are kept: a query seen
///   again (backspace) is answered from them, and a query that can only
///   match fewer sessions than a kept one ([`narrows`]) scores only that
///   one's hits, as fzf does. The caller says when the entries, labels or
///   pool change ([`Reranker::forget`]).
/// - **Less work per entry** ([`Pass::Quick`]): a field whose characters
///   cannot hold a term is not searched, nor an entry where some group
///   cannot match ([`CharSet`](super::char_set::CharSet): one AND per field; with a letter few
///   labels hold, most entries end there); a term found as typed is not scored, nor the
///   alternatives after one found as typed in the label, unless the hit
///   turns out fuzzy. [`rank`](super::rank) does all the work, the definition the
///   property tests compare this with.
/// - **Ordering without sorting most hits**: see [`ordered`](super::ordered).
/// - **Parallel scoring.** Large pools are scored in tasks of [`TASK`]
///   entries on a pool of its own (one thread per core, each with its own
///   matchers, since a `Matcher` keeps scratch memory); the tasks' results
///   are joined in list order and ordered by one stable sort, so the list
///   is [`rank`](super::rank)'s exactly. Not rayon's global pool: previews and listing
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

    /// Rank `pool` (in list order) for the query `text`: the list [`rank`](super::rank)
    /// gives. `pool` and the entries must be those of the previous calls
    /// unless [`Reranker::forget`] was called since.
    pub fn rank(&mut self, entries: &[Entry], pool: &[EntryId], text: &str) -> Vec<Scored> {
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

    fn keep(&mut self, text: &str, hits: &[Scored]) {
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
    fn score_and_order(
        &mut self,
        entries: &[Entry],
        ids: &[EntryId],
        query: &Query,
    ) -> Vec<Scored> {
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
    ) -> Option<Vec<Vec<(Scored, bool)>>> {
        if self.workers.is_none() {
            self.workers = rayon::ThreadPoolBuilder::new()
                .num_threads(self.rankers.len())
                .thread_name(|i| format!("rank-{i}"))
                .build()
                .ok();
        }
        let workers = self.workers.as_ref()?;
        let rankers = &self.rankers;
        let parts: Vec<Vec<(Scored, bool)>> = workers.install(|| {
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
