//! The ranking itself: which entries match a query and in which order
//! ([`rank`], the definition [`super::Reranker`]'s fast path must equal).

use std::sync::atomic::{AtomicBool, Ordering};

use super::entry::{Entry, EntryId};
use super::query::Query;
use super::score::{Pass, Ranker};

/// One candidate the ranking kept, with its score (not a search hit:
/// that is `search::hits::Hit`, a matching message).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scored {
    /// The entry.
    pub id: EntryId,
    /// Whether every term was found as typed (contiguously).
    pub exact: bool,
    /// Fuzzy score (sum over the terms); 0 for an exact hit (exact hits
    /// keep list order) and for the empty query.
    pub score: u32,
}

/// Where a scored entry goes: exact finds first, in list order; then,
/// among the rest, those matched in the label; then best score first. The
/// one statement of the list's order: with a stable sort, equal keys keep
/// list order.
pub(super) fn order_key(hit: &Scored, in_label: bool) -> (bool, bool, std::cmp::Reverse<u32>) {
    (
        !hit.exact,
        !in_label,
        std::cmp::Reverse(if hit.exact { 0 } else { hit.score }),
    )
}

/// Score the entries of `ids` (in list order) into `out`, in that order.
/// `pass`: [`Pass::Plain`] or [`Pass::Quick`] (the same hits).
pub(super) fn score_into(
    ranker: &mut Ranker,
    entries: &[Entry],
    ids: &[EntryId],
    query: &Query,
    pass: Pass,
    out: &mut Vec<(Scored, bool)>,
) {
    out.extend(ids.iter().filter_map(|&id| {
        let (exact, in_label, score) = ranker.entry(query, &entries[id as usize], pass)?;
        Some((Scored { id, exact, score }, in_label))
    }));
}

/// Every entry of `pool`, in list order (what the empty query lists).
pub(super) fn everything(pool: &[EntryId]) -> Vec<Scored> {
    pool.iter()
        .map(|&id| Scored {
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
pub(super) fn ordered(parts: &[Vec<(Scored, bool)>]) -> Vec<Scored> {
    let part = |hit: &Scored, in_label: bool| {
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
    let blank = Scored {
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
pub fn rank(
    entries: &[Entry],
    pool: &[EntryId],
    query: &Query,
    ranker: &mut Ranker,
) -> Vec<Scored> {
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
) -> Option<Vec<Scored>> {
    rank_while(entries, pool, query, ranker, || {
        !cancel.load(Ordering::Relaxed)
    })
}

/// [`rank_until`], asking `go_on` before each chunk.
pub(super) fn rank_while(
    entries: &[Entry],
    pool: &[EntryId],
    query: &Query,
    ranker: &mut Ranker,
    mut go_on: impl FnMut() -> bool,
) -> Option<Vec<Scored>> {
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
