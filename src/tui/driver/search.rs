//! Conversation search for the picker, as `session-ref search` runs it:
//! the local pipeline over the listed records, and one remote's answer.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crate::search::hits::SessionMatch;
use crate::search::pipeline::{self, Remote, Search, Source};
use crate::search::query::Query;
use crate::tui::remote_search::{RemoteAnswer, RemoteAsk};
use session_ref_engine::rank::EntryId;
use session_ref_stores::model::SessionRecord;
use session_ref_stores::search::index::Index;
use session_ref_stores::{Caches, Catalog};

/// Search the conversations of `records` (newest first) for a picker
/// query (words, "phrases", or `re:` and a regex), as `session-ref search`
/// does: the search pipeline over these records, no remote asked (the
/// state asks each remote itself, [`search_remote`]); each match goes to
/// `emit` in record order (`emit` returns whether to go on). Stops on
/// `cancel`. Fails only on a bad query. With `index_dir`, the search index
/// there is used and updated, as `session-ref search` does.
pub fn search_records(
    caches: &Arc<Caches>,
    index_dir: Option<&Path>,
    query: &str,
    records: &[(EntryId, SessionRecord)],
    cancel: &AtomicBool,
    emit: &mut dyn FnMut(EntryId, SessionMatch) -> bool,
) -> std::result::Result<(), String> {
    let query = Query::parse_picker(query).map_err(|e| e.to_string())?;
    let refs: Vec<&SessionRecord> = records.iter().map(|(_, r)| r).collect();
    let index = index_dir.map(Index::open);
    // An empty catalog sharing the caches: readers need only those.
    let catalog = Catalog::with_caches(Arc::clone(caches));
    let search = Search {
        catalog: &catalog,
        records: &refs,
        query: &query,
        source: index.as_ref().map_or(Source::Logs, Source::Index),
        remotes: None,
        except: None,
        limit: usize::MAX,
        cancel,
    };
    pipeline::run(&search, &mut |event| match event {
        pipeline::Event::Local {
            position, found, ..
        } => emit(records[position].0, found),
        // No remote is asked here.
        pipeline::Event::Remote { .. } | pipeline::Event::RemoteFailed { .. } => true,
    });
    if let Some(index) = index {
        // Never an error: a search that cannot write its index still searched.
        let _ = index.commit(None);
    }
    Ok(())
}

/// The most matching sessions one remote sends for a picker query.
pub const REMOTE_SEARCH_LIMIT: usize = 1000;

/// Ask the configured remote `ask.host` to search for the picker query
/// `ask.query` with its own index, as `session-ref search` asks it
/// ([`Remote::search`]). Blocks until it answers or the client's deadline
/// passes.
pub fn search_remote(
    remotes: &session_ref_stores::remote::Remotes,
    ask: &RemoteAsk,
) -> RemoteAnswer {
    let query = Query::parse_picker(&ask.query).map_err(|e| format!("{}: {e}", ask.host))?;
    Remote::search(remotes, &ask.host, &query, REMOTE_SEARCH_LIMIT)
}
