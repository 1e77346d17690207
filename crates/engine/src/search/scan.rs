//! Streaming search over the logs: sessions are read in batches on
//! rayon's pool, newest first, and each batch's matches are reported in
//! record order as soon as the batch is decided, so the first results
//! appear while older logs are still being read. A cancel flag (Ctrl-C, a
//! new query in the picker) stops the scan between sessions.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::search::hits::{self, SessionMatch};
use crate::search::query::Query;
use session_ref_stores::model::SessionRecord;
use session_ref_stores::search::extract::{self, Message};
use session_ref_stores::{Catalog, ReadError};

/// How one session is decided: its match, or `None` when it does not match.
pub type Decide<'a> = dyn Fn(&SessionRecord) -> Result<Option<SessionMatch>, ReadError> + Sync + 'a;

/// The searchable messages of a session of `catalog`, read from its log.
pub fn read_messages(catalog: &Catalog, record: &SessionRecord) -> Result<Vec<Message>, ReadError> {
    catalog
        .read_history(record)
        .map(|history| extract::conversation(&history))
}

/// What a finished (or stopped) scan saw.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Sessions decided (read and matched, or unreadable).
    pub searched: usize,
    /// Matches passed to `emit`; after [`crate::search::pipeline::run`],
    /// every match it emitted, this machine's and the remotes' together.
    pub matched: usize,
    /// Stopped at the limit with sessions left undecided (more may match).
    pub stopped_at_limit: bool,
    /// Sessions that could not be read, with why.
    pub unreadable: Vec<(PathBuf, String)>,
    /// Stopped by the cancel flag before the end.
    pub cancelled: bool,
}

/// `decide` for a query over messages read by `read`.
pub fn by_reading<'a>(
    query: &'a Query,
    read: impl Fn(&SessionRecord) -> Result<Vec<Message>, ReadError> + Sync + 'a,
) -> impl Fn(&SessionRecord) -> Result<Option<SessionMatch>, ReadError> + Sync + 'a {
    move |record| read(record).map(|messages| hits::match_session(query, &messages))
}

/// Decide `records` (in the order given) with `decide`. Each match is
/// passed to `emit` in that order with the record's position; `emit`
/// returns whether to go on. Stops after `limit` matches, on `cancel`, or
/// at the end.
///
/// Records are decided in batches on rayon's pool (the one pool of the
/// concurrency model: no thread is spawned here); a batch's matches are
/// emitted in record order as soon as the batch is done. The first batch
/// is small, so the first results come quickly, and later ones grow.
pub fn stream(
    records: &[&SessionRecord],
    limit: usize,
    cancel: &AtomicBool,
    decide: &Decide<'_>,
    emit: &mut dyn FnMut(usize, SessionMatch) -> bool,
) -> Outcome {
    const FIRST_BATCH: usize = 8;
    const LARGEST_BATCH: usize = 256;
    let mut outcome = Outcome::default();
    let mut emitted = 0;
    let mut start = 0;
    let mut batch = FIRST_BATCH;
    'batches: while start < records.len() && !cancel.load(Ordering::Relaxed) {
        let end = (start + batch).min(records.len());
        let decided: Vec<Option<Result<Option<SessionMatch>, ReadError>>> = records[start..end]
            .par_iter()
            .map(|record| (!cancel.load(Ordering::Relaxed)).then(|| decide(record)))
            .collect();
        for (offset, decided) in decided.into_iter().enumerate() {
            // A record skipped after a cancel ends the scan here.
            let Some(decided) = decided else {
                break 'batches;
            };
            outcome.searched += 1;
            match decided {
                Ok(Some(found)) => {
                    emitted += 1;
                    outcome.matched = emitted;
                    if !emit(start + offset, found) {
                        break 'batches;
                    }
                    if emitted >= limit {
                        outcome.stopped_at_limit = start + offset + 1 < records.len();
                        break 'batches;
                    }
                }
                Ok(None) => {}
                Err(e) => outcome.unreadable.push((e.path.clone(), e.to_string())),
            }
        }
        start = end;
        batch = (batch * 2).min(LARGEST_BATCH);
    }
    outcome.cancelled = cancel.load(Ordering::Relaxed);
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::query::Syntax;
    use session_ref_core::projection::Role;
    use std::path::Path;
    use std::sync::Arc;

    fn record(id: &str) -> SessionRecord {
        SessionRecord::new(
            session_ref_stores::kinds::native::KIND,
            Arc::from(Path::new("/s")),
            format!("/s/{id}.jsonl").into(),
            id.into(),
            None,
            String::new(),
        )
    }

    fn said(record: &SessionRecord) -> Result<Vec<Message>, ReadError> {
        if record.id == "bad" {
            return Err(ReadError::at(&record.path, 2, "broken"));
        }
        // Make later records slower so results arrive out of order.
        std::thread::sleep(std::time::Duration::from_millis(
            (10 - record.id.len() as u64).min(10),
        ));
        Ok(vec![Message {
            role: Role::User,
            text: format!("session {} mentions needle", record.id),
            checkpoint: false,
            before_compaction: false,
        }])
    }

    #[test]
    fn matches_come_in_record_order_up_to_the_limit() {
        let owned: Vec<SessionRecord> = ["a", "bb", "bad", "cccc", "d", "ee", "f"]
            .iter()
            .map(|id| record(id))
            .collect();
        let records: Vec<&SessionRecord> = owned.iter().collect();
        let query = Query::parse("needle", Syntax::Words).unwrap();
        let cancel = AtomicBool::new(false);
        let mut seen = Vec::new();
        let decide = by_reading(&query, said);
        let outcome = stream(&records, 4, &cancel, &decide, &mut |i, found| {
            seen.push((i, found.hits.len()));
            true
        });
        assert_eq!(seen, [(0, 1), (1, 1), (3, 1), (4, 1)]);
        assert_eq!(outcome.unreadable.len(), 1);
        assert!(!outcome.cancelled);
        let mut all = 0;
        stream(&records, usize::MAX, &cancel, &decide, &mut |_, _| {
            all += 1;
            true
        });
        assert_eq!(all, 6);
    }

    #[test]
    fn a_cancelled_scan_stops() {
        let owned: Vec<SessionRecord> = (0..50).map(|i| record(&i.to_string())).collect();
        let records: Vec<&SessionRecord> = owned.iter().collect();
        let query = Query::parse("needle", Syntax::Words).unwrap();
        let cancel = AtomicBool::new(false);
        let mut seen = 0;
        let decide = by_reading(&query, said);
        let outcome = stream(&records, usize::MAX, &cancel, &decide, &mut |_, _| {
            seen += 1;
            if seen == 3 {
                cancel.store(true, Ordering::Relaxed);
            }
            true
        });
        assert!(outcome.cancelled);
        assert!(outcome.searched < 50);
    }
}
