//! The sessions the MCP server answers from: one listing (catalog, labels,
//! last activity), loaded once and then kept fresh in the background.
//!
//! A tool call must answer in milliseconds while a listing of 10,000
//! sessions through the title index takes a good part of a second, and an
//! agent asks again and again in one conversation. So calls answer from the
//! listing in hand; when it is older than [`FRESH_FOR`], a call starts one
//! reload on rayon's pool (never two at once) and the next calls see its
//! result. A session the listing does not know yet (one started a moment
//! ago) is looked for again in a fresh listing before it is called unknown.
//!
//! Everything here blocks: the server runs it on rayon's pool, never on the
//! async runtime.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use crate::config::Config;
use session_ref_core::candidates::{self, Target};
use session_ref_engine::rank::{self, Entry, EntryId, Query, Ranker};
use session_ref_engine::Engine;
use session_ref_stores::model::SessionRecord;
use session_ref_stores::{Catalog, RecordId};

/// How long a listing is answered from before a reload is started.
pub const FRESH_FOR: Duration = Duration::from_secs(15);

/// Where the server's sessions come from (the validated global flags).
#[derive(Debug, Clone)]
pub struct Source {
    /// The validated global flags: stores, `--cwd`, `--session`, limits
    /// (the byte budget is per call), the title index's directory.
    pub config: Config,
    /// The search index's directory (`None`: searches read the logs).
    pub search_index: Option<std::path::PathBuf>,
}

/// The picker's entries of a listing for a target cwd.
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
    /// The picker's entries for one target cwd, made on first use.
    entries: Mutex<Option<Entries>>,
}

impl Listing {
    /// List `source` now (blocking), with the sessions of its remotes
    /// when `remotes` (a listing waits for a stalled host up to its
    /// connect and list timeouts).
    pub fn load(source: &Source, remotes: bool) -> Listing {
        let config = &source.config;
        let none = crate::remote::RemoteSettings::default();
        let hosts = if remotes { &config.remotes } else { &none };
        let caches = crate::commands::run_caches(config, config.target.cwd.as_deref(), hosts);
        let catalog = Catalog::load_with(Arc::new(caches), &config.roots);
        let engine = Engine::new(Arc::new(catalog), config.limits, config.target.clone());
        let labels = engine.all_labels();
        let activity = {
            use rayon::prelude::*;
            let catalog = &engine.catalog;
            (0..catalog.len())
                .into_par_iter()
                .map(|id| session_ref_stores::last_activity(catalog.caches(), catalog.get(id)))
                .collect()
        };
        // Saved after the labels and last activity are read, so that the
        // next server (or command) finds them in the index: saved before,
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
    /// list ordered as the picker orders it for a target in `cwd`: this
    /// directory first, then by `sort` (last activity, or creation).
    /// `None` when `cancel` was set before the ranking ended (a long query
    /// over many sessions takes a while, and its client may give up).
    pub fn rank(
        &self,
        query: &str,
        cwd: Option<&str>,
        by_activity: bool,
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
        // The picker's order: group, then the sort, then record order (the
        // pool's own order, kept by the stable sort).
        pool.sort_by(|&a, &b| {
            let (ea, eb) = (&entries[a as usize], &entries[b as usize]);
            let activity = if by_activity {
                self.activity[b as usize].cmp(&self.activity[a as usize])
            } else {
                std::cmp::Ordering::Equal
            };
            ea.group.cmp(&eb.group).then(activity)
        });
        let query = Query::parse(query);
        let hits = rank::rank_until(&entries, &pool, &query, &mut Ranker::new(), cancel)?;
        Some(hits.into_iter().map(|hit| hit.id as RecordId).collect())
    }

    /// The picker's entries for a target in `cwd`, labelled.
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

    /// A record's last activity as an RFC 3339 UTC time, when known.
    pub fn updated_at(&self, id: RecordId) -> Option<String> {
        self.activity[id].map(session_ref_core::time::format_rfc3339_utc)
    }

    /// A record.
    pub fn record(&self, id: RecordId) -> &SessionRecord {
        self.catalog().get(id)
    }
}

/// The server's listing, refreshed in the background.
#[derive(Debug)]
pub struct Sessions {
    source: Source,
    current: RwLock<Option<Arc<Listing>>>,
    reloading: AtomicBool,
}

impl Sessions {
    /// Sessions of `source`, not listed yet: call [`Sessions::warm`].
    pub fn new(source: Source) -> Arc<Sessions> {
        Arc::new(Sessions {
            source,
            current: RwLock::new(None),
            reloading: AtomicBool::new(false),
        })
    }

    /// Where the sessions come from.
    pub fn source(&self) -> &Source {
        &self.source
    }

    /// Start the first listing on rayon's pool, then warm the search index
    /// from it at the lowest priority.
    pub fn warm(self: &Arc<Self>) {
        let sessions = self.clone();
        self.reloading.store(true, Ordering::SeqCst);
        rayon::spawn(move || {
            let listing = sessions.reload();
            if let Some(dir) = sessions.source.search_index.clone() {
                let cancel = Arc::new(AtomicBool::new(false));
                crate::search::warm::spawn(listing.engine.catalog.clone(), dir, cancel, |_| {});
            }
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
        let later = first && !self.source.config.remotes.hosts.is_empty();
        let listing = Arc::new(Listing::load(&self.source, !later));
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = Some(listing.clone());
        if later {
            let sessions = self.clone();
            rayon::spawn(move || {
                sessions.reload();
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
            let sessions = self.clone();
            rayon::spawn(move || {
                sessions.reload();
            });
        }
        listing
    }

    /// A listing that knows `session_id` when any does: the current one,
    /// else a fresh one listed now.
    pub fn listing_knowing(self: &Arc<Self>, session_id: &str) -> Arc<Listing> {
        let listing = self.listing();
        if listing.catalog().find(session_id).is_some() {
            return listing;
        }
        self.reloading.store(true, Ordering::SeqCst);
        self.reload()
    }
}
