//! Warming the search index in the background once the picker has listed
//! its sessions, so that its first conversation search answers from the
//! index instead of reading every log.
//!
//! # Lowest priority
//!
//! The warm-up reads logs for seconds to minutes (a first run over 2 GB),
//! while previews, titles and the next listing must stay prompt. So it runs
//! on a one-thread rayon pool of its own whose thread has the lowest
//! scheduling priority (`nice` 19; on Linux a thread's priority is its
//! own): the global pool keeps its threads for the picker's jobs, the
//! scheduler serves the warm-up only with the CPU they leave, and the
//! parallel parts of a fold (native logs parse batches with `par_iter`)
//! stay on that one thread. It reads one session at a time, newest first,
//! checks its cancel flag between sessions (a conversation search started
//! in the picker stops it: the search reads the logs it needs itself, and
//! the picker starts the warm-up again when the search ends), and
//! commits what it read every [`COMMIT_EVERY`] so a picker closed early
//! keeps what was done.
//!
//! # Why not in the listing's own pass
//!
//! The issue asks for an index "built from the same pass that builds the
//! title index". Measured on 10,000 generated Claude Code sessions (2.1 GB,
//! BENCHMARKS.md): where the title index reads a whole log (a title line
//! near the start of a Claude Code transcript is found by a backward byte
//! scan of the file; likewise a Codex thread name), that read is a `memmem`
//! search with no JSON parse, 1.6–1.7 s of CPU for the whole store (cold
//! `candidates`). Extracting the conversation parses every conversation
//! line forward: 8.8–11.0 s of CPU over the same logs. One pass doing both
//! would save at most the reading (0.8 s of system time) and make a cold
//! listing cost about six times the CPU (5.7–7.4×), where the picker must
//! draw before its listing completes and `candidates` is held to the
//! reference byte for byte. So the text is extracted in this separate pass, after the
//! listing, at the lowest priority: 9–20 s of one nice-19 thread for the
//! whole store under a load of 4–7, during which keys were drawn within
//! 7–23 ms.
//!
//! # One writer
//!
//! A warm-up does nothing when another run holds the index lock (that run
//! is writing the index already), and each of its commits takes the lock
//! or is skipped, as every writer's does ([`Index::commit`]).

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use session_ref_stores::search::index::{self, Index, Lookup};
use session_ref_stores::Catalog;

/// How often the warm-up commits what it read.
pub const COMMIT_EVERY: Duration = Duration::from_secs(2);

/// The lowest scheduling priority (`nice` value).
const LOWEST: libc::c_int = 19;

/// What a warm-up did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Warmed {
    /// Logs read (new or changed since they were indexed).
    pub read: usize,
    /// Another run held the index lock: nothing was done.
    pub skipped: bool,
    /// Stopped by the cancel flag before the end.
    pub cancelled: bool,
}

/// Bring the index in `dir` up to date with every session of `catalog`,
/// newest first, on the calling thread. Failing logs are left out (a
/// search reports them); a commit that cannot be written is skipped.
pub fn warm(catalog: &Catalog, dir: &Path, cancel: &AtomicBool) -> Warmed {
    let mut warmed = Warmed::default();
    if index::held_elsewhere(dir) {
        warmed.skipped = true;
        return warmed;
    }
    let mut index = Index::open(dir);
    let mut pending = 0;
    let mut since = Instant::now();
    for record in catalog.ordered() {
        if cancel.load(Ordering::Relaxed) {
            warmed.cancelled = true;
            break;
        }
        let Ok(Lookup::Stale(stale)) = index.lookup(record) else {
            continue;
        };
        if index.read_stale(catalog, record, stale).is_ok() {
            warmed.read += 1;
            pending += 1;
        }
        if pending > 0 && since.elapsed() >= COMMIT_EVERY {
            let _ = index.commit(None);
            index = Index::open(dir);
            pending = 0;
            since = Instant::now();
        }
    }
    // The whole listing was seen: entries of logs gone can be forgotten.
    let listed: Vec<&Path> = catalog.ordered().map(|r| r.path.as_path()).collect();
    let complete = (!warmed.cancelled).then_some(listed.as_slice());
    let _ = index.commit(complete);
    warmed
}

/// [`warm`] on a one-thread pool of the lowest priority (see the module
/// docs), then `done` with what it did. A warm-up that cannot start (no
/// thread) or fails is simply not done: searches read the logs then.
pub fn spawn(
    catalog: Arc<Catalog>,
    dir: std::path::PathBuf,
    cancel: Arc<AtomicBool>,
    done: impl FnOnce(Warmed) + Send + 'static,
) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .thread_name(|_| "session-ref-index-warm".into())
        .start_handler(|_| lower_priority())
        .build();
    let Ok(pool) = pool else {
        return;
    };
    pool.spawn(move || {
        let run = std::panic::AssertUnwindSafe(|| warm(&catalog, &dir, &cancel));
        if let Ok(warmed) = std::panic::catch_unwind(run) {
            done(warmed);
        }
    });
    // Dropping the handle lets the pool's thread end once the job is done.
}

/// Give the calling thread the lowest scheduling priority.
fn lower_priority() {
    // SAFETY: setpriority only reads its arguments; `who` 0 is the calling
    // thread on Linux (each thread has its own nice value).
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, LOWEST);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use session_ref_stores::{Catalog, StoreRoots};

    fn fixture_catalog() -> Catalog {
        let roots = StoreRoots::new()
            .with(
                session_ref_stores::kinds::native::KIND,
                "tests/fixtures/search/hydra",
            )
            .with(
                session_ref_stores::kinds::claude::KIND,
                "tests/fixtures/search/claude",
            )
            .with(
                session_ref_stores::kinds::codex::KIND,
                "tests/fixtures/search/codex",
            );
        Catalog::load(&roots)
    }

    #[test]
    fn a_warmed_index_holds_every_session_current() {
        let cache = tempfile::tempdir().unwrap();
        let catalog = fixture_catalog();
        assert!(catalog.len() >= 3);
        let warmed = warm(&catalog, cache.path(), &AtomicBool::new(false));
        assert_eq!(warmed.read, catalog.len());
        let index = Index::open(cache.path());
        for record in catalog.ordered() {
            assert!(
                matches!(index.lookup(record).unwrap(), Lookup::Current(_)),
                "{}",
                record.path.display()
            );
        }
        // Warm again: nothing to read.
        let again = warm(&catalog, cache.path(), &AtomicBool::new(false));
        assert_eq!(again.read, 0);
    }

    #[test]
    fn a_cancelled_warm_up_stops_and_a_held_lock_skips_it() {
        let cache = tempfile::tempdir().unwrap();
        let catalog = fixture_catalog();
        let warmed = warm(&catalog, cache.path(), &AtomicBool::new(true));
        assert!(warmed.cancelled);
        assert_eq!(warmed.read, 0);
        let held = std::fs::File::create(cache.path().join("lock")).unwrap();
        held.lock().unwrap();
        let warmed = warm(&catalog, cache.path(), &AtomicBool::new(false));
        assert!(warmed.skipped);
        held.unlock().unwrap();
        assert!(Index::open(cache.path()).is_empty());
    }
}
