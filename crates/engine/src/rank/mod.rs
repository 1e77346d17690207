//! Live ranking for the picker: fzf's extended search syntax over the
//! listed sessions, the label first.
//!
//! The query is parsed as fzf parses it: space-separated terms that must all
//! match, in any order; `'exact`, `^prefix`, `suffix$`, `!negation`, and a
//! lone `|` between terms for "either". Case is ignored unless a term holds
//! an upper-case letter (smart case). Each term is an `nucleo-matcher`
//! [`Atom`](nucleo_matcher::pattern::Atom) (its parser implements that syntax); only the split into terms
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
mod char_set;
mod entry;
mod query;
mod ranking;
mod rerank;
mod score;
#[cfg(test)]
mod tests;

pub use entry::{within, Entry, EntryId};
pub use query::{narrows, Query};
pub use ranking::{rank, rank_until, Scored, CANCEL_EVERY};
pub use rerank::Reranker;
pub use score::Ranker;
