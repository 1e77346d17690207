//! The live listing a long-running front-end (the MCP server) answers
//! from: one listing (catalog, labels, last activity), loaded once and then
//! kept fresh in the background.
//!
//! A call must answer in milliseconds while a listing of 10,000 sessions
//! through the title index takes a good part of a second, and an agent asks
//! again and again in one conversation. So calls answer from the listing in
//! hand; when it is older than [`FRESH_FOR`], a call starts one reload on
//! rayon's pool (never two at once) and the next calls see its result. A
//! session the listing does not know yet (one started a moment ago) is
//! looked for again in a fresh listing before it is called unknown.
//!
//! Plain data: records by [`RecordId`], labels as the log holds them, last
//! activity in Unix seconds. Formatting them (JSON, resources, prompts) is
//! the front-end's. Everything here blocks: a server runs it on rayon's
//! pool, never on an async runtime.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use crate::engine::Engine;
use crate::error::Result;
use crate::limits::Limits;
use crate::open::Stores;
use crate::order::{self, SortBy};
use crate::rank::{self, Entry, EntryId, Query, Ranker};
use crate::session_arg::SessionArg;
use session_ref_core::candidates::{self, Target};
use session_ref_stores::model::SessionRecord;
use session_ref_stores::{Catalog, RecordId};

/// How long a listing is answered from before a reload is started.
pub const FRESH_FOR: Duration = Duration::from_secs(15);

/// The ranker's entries of a listing for a target cwd.
type Entries = (Option<String>, Arc<Vec<Entry>>);

/// One listing: every session with its label and last activity.
#[derive(Debug)]
pub struct Listing {
    /// The engine over the listed catalog.
    pub engine: Engine,
    /// Labels as queries match them (the title as the log holds it, or
    /// the id), indexed by [`RecordId`]; [`Listing::label`] is what is shown.
    pub labels: Vec<String>,
    /// Last activity (log modification time, Unix seconds), by [`RecordId`].
    pub activity: Vec<Option<i64>>,
    /// When it was loaded.
    pub loaded: Instant,
    /// The ranker's entries for one target cwd, made on first use.
    entries: Mutex<Option<Entries>>,
}

impl Listing {
    /// List `stores` now (blocking), with every label and last activity
    /// read (a listing with remotes waits for a stalled host up to its
    /// connect and list timeouts). The title index is saved after they are
    /// read, so that the next listing finds them there.
    pub fn load(stores: Stores, limits: Limits, target: Target) -> Listing {
        let engine = stores.engine(limits, target);
        let labels = engine.all_labels();
        let activity = {
            use rayon::prelude::*;
            let catalog = &engine.catalog;
            (0..catalog.len())
                .into_par_iter()
                .map(|id| session_ref_stores::last_activity(catalog.caches(), catalog.get(id)))
                .collect()
        };
        // Saved after the labels and last activity are read: saved before,
        // every start re-read 10,000 logs (9.7 s instead of 0.27 s).
        engine.catalog.save_index();
        Listing {
            engine,
            labels,
            activity,
            loaded: Instant::now(),
            entries: Mutex::new(None),
        }
    }

    /// The label of record `id` as answers show and cite it: made safe
    /// (SPEC §6), since a title is session text.
    pub fn label(&self, id: RecordId) -> std::borrow::Cow<'_, str> {
        session_ref_core::escape::safe_label(&self.labels[id])
    }

    /// The catalog.
    pub fn catalog(&self) -> &Catalog {
        &self.engine.catalog
    }

    /// The records matching `query` in the picker's syntax and ranking, the
    /// list in the one list order ([`order::compare`]) for a target in
    /// `cwd`, sorted by `sort`. `None` when `cancel` was set before the
    /// ranking ended (a long query over many sessions takes a while, and
    /// its client may give up).
    pub fn rank(
        &self,
        query: &str,
        cwd: Option<&str>,
        sort: SortBy,
        cancel: &AtomicBool,
    ) -> Option<Vec<RecordId>> {
        let entries = self.entries_for(cwd);
        let target = Target {
            session_id: self.engine.target.session_id.clone(),
            cwd: cwd.map(str::to_owned),
        };
        let mut pool: Vec<EntryId> = candidates::eligible(self.catalog(), &target)
            .into_iter()
            .map(|(id, _)| EntryId::try_from(id).expect("fewer than 2^32 sessions"))
            .collect();
        pool.sort_by(|&a, &b| {
            let (ea, eb) = (&entries[a as usize], &entries[b as usize]);
            order::compare(sort, &ea.place(), &eb.place())
        });
        let query = Query::parse(query);
        let hits = rank::rank_until(&entries, &pool, &query, &mut Ranker::new(), cancel)?;
        Some(hits.into_iter().map(|hit| hit.id as RecordId).collect())
    }

    /// The ranker's entries for a target in `cwd`, labelled, with their
    /// last activity.
    fn entries_for(&self, cwd: Option<&str>) -> Arc<Vec<Entry>> {
        let mut cached = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((at, entries)) = cached.as_ref() {
            if at.as_deref() == cwd {
                return entries.clone();
            }
        }
        let target = Target {
            session_id: None,
            cwd: cwd.map(str::to_owned),
        };
        let catalog = self.catalog();
        let entries: Vec<Entry> = (0..catalog.len())
            .map(|id| {
                let mut entry = Entry::new(catalog.get(id).clone(), &target);
                entry.relabel(self.labels[id].clone());
                entry.activity = self.activity[id];
                entry
            })
            .collect();
        let entries = Arc::new(entries);
        *cached = Some((cwd.map(str::to_owned), entries.clone()));
        entries
    }

    /// The record a session id names (the one its mention reads), when
    /// listed.
    pub fn find(&self, session_id: &str) -> Option<RecordId> {
        self.catalog().find_id(session_id)
    }

    /// Whether `id` is the record its session id's mention reads.
    pub fn is_first_of_its_id(&self, id: RecordId) -> bool {
        let catalog = self.catalog();
        catalog.find_id(&catalog.get(id).id) == Some(id)
    }

    /// The records newest first by last activity (unknown last), then in
    /// record order: the order of the resource list.
    pub fn newest_first(&self) -> Vec<RecordId> {
        let mut ids: Vec<RecordId> = self.catalog().order().to_vec();
        ids.sort_by(|&a, &b| self.activity[b].cmp(&self.activity[a]));
        ids
    }

    /// A record's last activity, when known.
    pub fn updated_at(&self, id: RecordId) -> Option<i64> {
        self.activity[id]
    }

    /// A record.
    pub fn record(&self, id: RecordId) -> &SessionRecord {
        self.catalog().get(id)
    }
}

/// A listing of `load`'s kept fresh in the background. `load(true)` lists
/// with the sessions of other machines, `load(false)` this machine's alone.
pub struct Live {
    load: Box<dyn Fn(bool) -> Listing + Send + Sync>,
    /// Whether other machines are listed at all (then the first listing is
    /// this machine's alone, and theirs follows).
    remotes: bool,
    current: RwLock<Option<Arc<Listing>>>,
    reloading: AtomicBool,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Live")
            .field("remotes", &self.remotes)
            .field("reloading", &self.reloading)
            .finish()
    }
}

impl Live {
    /// A listing made by `load`, not listed yet: call [`Live::warm`].
    /// `remotes`: whether `load(true)` asks other machines.
    pub fn new(remotes: bool, load: impl Fn(bool) -> Listing + Send + Sync + 'static) -> Arc<Live> {
        Arc::new(Live {
            load: Box::new(load),
            remotes,
            current: RwLock::new(None),
            reloading: AtomicBool::new(false),
        })
    }

    /// Start the first listing on rayon's pool; `then` runs with it there
    /// (the server warms its search index from it).
    pub fn warm(self: &Arc<Self>, then: impl FnOnce(&Listing) + Send + 'static) {
        let live = self.clone();
        self.reloading.store(true, Ordering::SeqCst);
        rayon::spawn(move || {
            let listing = live.reload();
            then(&listing);
        });
    }

    /// List again now and make it current (blocking). The first listing
    /// is this machine's alone, so the first call never waits on another
    /// machine; the remotes' sessions follow in a listing started at once
    /// in the background, current when it is done.
    fn reload(self: &Arc<Self>) -> Arc<Listing> {
        let first = self
            .current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .is_none();
        let later = first && self.remotes;
        let listing = Arc::new((self.load)(!later));
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = Some(listing.clone());
        if later {
            let live = self.clone();
            rayon::spawn(move || {
                live.reload();
            });
        } else {
            self.reloading.store(false, Ordering::SeqCst);
        }
        listing
    }

    /// The current listing, waiting for the first one; a reload is started
    /// in the background when it is older than [`FRESH_FOR`].
    pub fn listing(self: &Arc<Self>) -> Arc<Listing> {
        let current = self
            .current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let listing = match current {
            Some(listing) => listing,
            // Before the first listing is in, a request lists by itself
            // rather than wait for the warm-up: it runs on rayon's pool, and
            // a worker blocked there could be the one the warm-up's own
            // parallel listing is waiting on (the stores' "Locks" rule: no
            // blocking wait on work that may itself need the pool).
            None => {
                self.reloading.store(true, Ordering::SeqCst);
                return self.reload();
            }
        };
        if listing.loaded.elapsed() >= FRESH_FOR && !self.reloading.swap(true, Ordering::SeqCst) {
            let live = self.clone();
            rayon::spawn(move || {
                live.reload();
            });
        }
        listing
    }

    /// What the session argument `arg` names ([`SessionArg::resolve`])
    /// and a listing that knows it when any does: the current one, else a
    /// fresh one listed now (a session started a moment ago).
    pub fn resolve(self: &Arc<Self>, arg: &str) -> Result<(Arc<Listing>, SessionArg)> {
        let listing = self.listing();
        let named = SessionArg::resolve(listing.catalog(), arg)?;
        if listing.catalog().find(&named.id).is_some() {
            return Ok((listing, named));
        }
        self.reloading.store(true, Ordering::SeqCst);
        let listing = self.reload();
        let named = SessionArg::resolve(listing.catalog(), arg)?;
        Ok((listing, named))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use session_ref_stores::kinds::native;
    use session_ref_stores::StoreRoots;

    fn session(dir: &std::path::Path, id: &str, created: &str, cwd: &str) {
        std::fs::write(
            dir.join(format!("{id}.jsonl")),
            format!("{{\"type\":\"session\",\"version\":1,\"id\":\"{id}\",\"createdAt\":\"{created}\",\"cwd\":\"{cwd}\"}}\n"),
        )
        .unwrap();
    }

    fn live(dir: &std::path::Path) -> Arc<Live> {
        let roots = StoreRoots::new().with(native::KIND, dir);
        Live::new(false, move |_| {
            Listing::load(
                Stores::new(roots.clone()),
                Limits::default(),
                Target::default(),
            )
        })
    }

    #[test]
    fn a_session_started_after_the_listing_is_found_in_a_fresh_one() {
        let dir = tempfile::tempdir().unwrap();
        session(dir.path(), "first-session", "2025-01-01T00:00:00Z", "/w");
        let live = live(dir.path());
        assert_eq!(live.listing().catalog().len(), 1);
        session(dir.path(), "second-session", "2025-01-02T00:00:00Z", "/w");
        // By the start of its id, as every front-end names it.
        let (listing, named) = live.resolve("second").unwrap();
        assert_eq!(named.id, "second-session");
        assert_eq!(listing.catalog().len(), 2);
        // Known already: answered from the listing in hand.
        let (again, _) = live.resolve("first-session").unwrap();
        assert!(Arc::ptr_eq(&listing, &again));
    }

    #[test]
    fn ranked_in_the_one_list_order() {
        let dir = tempfile::tempdir().unwrap();
        session(dir.path(), "old-here", "2025-01-01T00:00:00Z", "/here");
        session(dir.path(), "new-there", "2025-03-01T00:00:00Z", "/there");
        session(dir.path(), "mid-here", "2025-02-01T00:00:00Z", "/here");
        let listing = live(dir.path()).listing();
        let cancel = AtomicBool::new(false);
        let ids = |sort| -> Vec<String> {
            listing
                .rank("", Some("/here"), sort, &cancel)
                .unwrap()
                .into_iter()
                .map(|id| listing.record(id).id.clone())
                .collect()
        };
        assert_eq!(ids(SortBy::Created), ["mid-here", "old-here", "new-there"]);
        // The engine's candidates list the same order.
        let engine = Engine::new(
            listing.engine.catalog.clone(),
            Limits::default(),
            Target {
                session_id: None,
                cwd: Some("/here".into()),
            },
        );
        let candidates: Vec<String> = engine
            .candidates("", 10, false)
            .into_iter()
            .map(|c| c.session_id)
            .collect();
        assert_eq!(candidates, ids(SortBy::Created));
        cancel.store(true, Ordering::SeqCst);
        assert!(listing
            .rank("here", None, SortBy::Updated, &cancel)
            .is_none());
    }
}
