//! The catalog ([`Catalog`]): every listed session, in record order, and
//! the one way to read any of them, whichever machine holds it. Here too
//! are discovery over roots and remote hosts ([`scan`]), the reader of a
//! record ([`reader_of`]), titles and last activity through the title
//! index ([`read_title`], [`last_activity`]) and the caches of one run
//! (`Caches::for_run`): the top of the crate, which alone reaches both the
//! local kinds and the remote reader.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::archive;
use crate::caches::{Caches, KnownCwds, TargetCwd};
use crate::error::ReadError;
use crate::index::{journal, title};
use crate::model::{self, History, SessionRecord, StoreKind, Surface, SurfaceSink};
use crate::remote;
use crate::roots::StoreRoots;
use crate::store::ScanEvent;
use crate::store::Store;

impl Caches {
    /// The caches of one run of a command or the picker: the title index
    /// kept in `cache_dir` (none: read every file) and the working
    /// directory the run ranks from ([`TargetCwd`]).
    pub fn for_run(cache_dir: Option<&Path>, cwd: Option<&str>) -> Caches {
        let caches = Caches::default().with(TargetCwd(cwd.map(str::to_owned)));
        match cache_dir {
            Some(dir) => title::TitleIndex::open(dir).into_caches(caches),
            None => caches,
        }
    }
}

/// The last activity of `record` ([`Store::last_activity`]), through the
/// title index of `caches` when it is in use: the one source of the
/// picker's and `candidates --sort updated`'s "last active".
pub fn last_activity(caches: &Caches, record: &SessionRecord) -> Option<i64> {
    if record.host.is_some() {
        // A session of another machine: as its host reported it.
        return remote::REMOTE.last_activity(caches, record);
    }
    caches
        .get::<title::TitleIndex>()
        .activity(record.kind.store(), caches, record)
}

/// The latest title of `record` ([`Store::read_title`]), through the title
/// index of `caches` when it is in use: the one way the engine,
/// `candidates` and the picker read a title (a warm listing then opens no
/// log).
pub fn read_title(caches: &Caches, record: &SessionRecord) -> Result<Option<String>, ReadError> {
    if record.host.is_some() {
        // A session of another machine: as its host reported it.
        return remote::REMOTE.read_title(caches, record);
    }
    caches
        .get::<title::TitleIndex>()
        .title(record.kind.store(), caches, record)
}

/// Discover every session under `roots`, reporting each file through `sink`
/// as soon as it is classified (from the threads of rayon's pool).
pub fn scan(caches: &Caches, roots: &StoreRoots, sink: &(dyn Fn(ScanEvent) + Sync)) {
    let remotes = caches.get::<remote::Remotes>();
    if remotes.hosts().is_empty() {
        return scan_local(caches, roots, sink);
    }
    // Remote hosts are asked on threads of their own while this one lists
    // the local stores: a slow host never delays the first local rows.
    std::thread::scope(|scope| {
        scope.spawn(|| remotes.scan(sink));
        scan_local(caches, roots, sink);
    });
}

/// [`scan`] of this machine's stores only, then of the archive
/// ([`archive`]): with a `[keep]` entry, what the stores listed is kept
/// first; then the sessions only the archive still has are added.
fn scan_local(caches: &Caches, roots: &StoreRoots, sink: &(dyn Fn(ScanEvent) + Sync)) {
    let archive = caches.get::<archive::Archive>();
    // No archive to list and none to keep: the stores alone, as fast.
    if !archive.auto() && !archive.exists() {
        return scan_stores(caches, roots, sink);
    }
    let listed = Mutex::new(Vec::new());
    scan_stores(caches, roots, &|event| {
        if let ScanEvent::Record(record) = &event {
            crate::caches::lock(&listed).push(record.clone());
        }
        sink(event);
    });
    let listed = listed.into_inner().unwrap_or_else(|e| e.into_inner());
    if archive.auto() {
        match archive.keep(&listed) {
            Ok(report) => report
                .problems
                .into_iter()
                .for_each(|p| archive.note_problem(format!("keep: {p}"))),
            Err(e) => archive.note_problem(format!("keep: {e}")),
        }
    }
    let live = listed.into_iter().map(|r| (r.kind, r.id)).collect();
    archive.list(caches, roots, &live, sink);
}

/// The stores of `roots`, each by its kind's scan: every kind's roots in
/// registry order, except that the kinds that look in the listed sessions'
/// directories ([`Store::uses_known_cwds`]) come last, once every other
/// kind's records (and their directories) have been reported.
fn scan_stores(caches: &Caches, roots: &StoreRoots, sink: &(dyn Fn(ScanEvent) + Sync)) {
    let known = caches.get::<KnownCwds>();
    let noting = |event: ScanEvent| {
        if let ScanEvent::Record(record) = &event {
            if let (None, Some(cwd)) = (&record.host, &record.cwd) {
                known.note(cwd);
            }
        }
        sink(event)
    };
    for last in [false, true] {
        for (kind, root) in roots.iter() {
            if kind.store().uses_known_cwds() == last {
                let root: Arc<Path> = Arc::from(root.as_path());
                kind.store().scan(kind, caches, &root, &noting);
            }
        }
    }
}

/// The reader of `record`: its kind's store, or the remote reader for a
/// session another machine listed.
pub fn reader_of(record: &SessionRecord) -> &'static dyn Store {
    match record.host {
        Some(_) => &remote::REMOTE,
        None => record.kind.store(),
    }
}

/// What listing found under one store root ([`Catalog::found_under`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RootTally {
    /// Sessions listed from it.
    pub sessions: usize,
    /// Files below it that are not sessions.
    pub skipped: usize,
    /// Files below it that could not be listed.
    pub unreadable: usize,
}

impl fmt::Display for RootTally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural = |n: usize, what: &str| match n {
            1 => format!("1 {what}"),
            n => format!("{n} {what}s"),
        };
        write!(
            f,
            "{}, {} skipped, {} unreadable",
            plural(self.sessions, "session"),
            self.skipped,
            self.unreadable
        )
    }
}

pub use session_ref_core::candidates::RecordId;

/// Every listed session, plus what could not be listed: the one list of
/// sessions that discovery appends to and that the engine, the commands
/// and the picker read.
///
/// Records keep their arrival order (a [`RecordId`] never changes); the
/// catalog also keeps them in record order (`listSessions`, SPEC §3) and
/// knows, for each session id, its first record in that order: the one a
/// mention of the id reads, and whose title labels every record of the id.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    records: Vec<SessionRecord>,
    order: Vec<RecordId>,
    first: HashMap<String, RecordId>,
    /// Files that are not sessions, with the reason, sorted.
    pub skipped: Vec<(PathBuf, String)>,
    /// Files that look like sessions but could not be listed, sorted.
    pub unreadable: Vec<(PathBuf, String)>,
    caches: Arc<Caches>,
}

/// Candidates are ranked over the catalog's listing order.
impl session_ref_core::candidates::Pool for Catalog {
    fn order(&self) -> &[RecordId] {
        Catalog::order(self)
    }

    fn session_id(&self, record: RecordId) -> &str {
        &self.get(record).id
    }

    fn cwd(&self, record: RecordId) -> Option<&str> {
        self.get(record).cwd.as_deref()
    }
}

impl Catalog {
    /// An empty catalog reading with `caches`.
    pub fn with_caches(caches: Arc<Caches>) -> Catalog {
        Catalog {
            caches,
            ..Catalog::default()
        }
    }

    /// Scan `roots` completely.
    pub fn load(roots: &StoreRoots) -> Catalog {
        Catalog::load_with(Arc::default(), roots)
    }

    /// Scan `roots` completely, reading with `caches` (which may hold a
    /// title index).
    pub fn load_with(caches: Arc<Caches>, roots: &StoreRoots) -> Catalog {
        let mut catalog = Catalog::with_caches(caches);
        let found = Mutex::new(Vec::new());
        scan(&catalog.caches, roots, &|event| {
            found.lock().unwrap_or_else(|e| e.into_inner()).push(event)
        });
        catalog.append(found.into_inner().unwrap_or_else(|e| e.into_inner()));
        catalog
    }

    /// Build from discovery events (any order).
    pub fn from_events(events: impl IntoIterator<Item = ScanEvent>) -> Catalog {
        let mut catalog = Catalog::default();
        catalog.append(events);
        catalog
    }

    /// Add discovery events (any order). Returns the ids of the records
    /// added, in arrival order.
    pub fn append(&mut self, events: impl IntoIterator<Item = ScanEvent>) -> Vec<RecordId> {
        let mut fresh = Vec::new();
        let (mut skipped, mut unreadable) = (false, false);
        let remotes = self.caches.get::<remote::Remotes>();
        for event in events {
            match event {
                ScanEvent::Record(record) => {
                    // The rule of `remote`'s "Names": a local id of the
                    // form `ID@HOST`, HOST a configured remote, is not listed.
                    let remote = record
                        .host
                        .is_none()
                        .then(|| remotes.split_id(&record.id))
                        .flatten();
                    if let Some((host, _)) = remote {
                        self.skipped.push((
                            record.path.clone(),
                            format!(
                                "its id names a session of the remote {}: a local session cannot stand for it",
                                host.host
                            ),
                        ));
                        skipped = true;
                        continue;
                    }
                    fresh.push(self.records.len());
                    self.records.push(record);
                }
                ScanEvent::Skipped { path, reason } => {
                    self.skipped.push((path, reason));
                    skipped = true;
                }
                ScanEvent::Unreadable { path, reason } => {
                    self.unreadable.push((path, reason));
                    unreadable = true;
                }
            }
        }
        if skipped {
            self.skipped.sort();
        }
        if unreadable {
            self.unreadable.sort();
        }
        if fresh.is_empty() {
            return fresh;
        }
        let mut sorted = fresh.clone();
        sorted.sort_by(|&a, &b| model::record_order(&self.records[a], &self.records[b]));
        let old = std::mem::take(&mut self.order);
        let mut merged = Vec::with_capacity(old.len() + sorted.len());
        let (mut i, mut j) = (0, 0);
        while i < old.len() && j < sorted.len() {
            let later = model::record_order(&self.records[old[i]], &self.records[sorted[j]]);
            if later == std::cmp::Ordering::Greater {
                merged.push(sorted[j]);
                j += 1;
            } else {
                merged.push(old[i]);
                i += 1;
            }
        }
        merged.extend_from_slice(&old[i..]);
        merged.extend_from_slice(&sorted[j..]);
        self.order = merged;
        for &id in &fresh {
            let record = &self.records[id];
            match self.first.get(&record.id) {
                Some(&known)
                    if model::record_order(&self.records[known], record)
                        != std::cmp::Ordering::Greater => {}
                _ => {
                    self.first.insert(record.id.clone(), id);
                }
            }
        }
        fresh
    }

    /// A catalog of the given records only, sharing this one's caches
    /// (the picker reads a preview before discovery has ended with it).
    pub fn subset(&self, records: impl IntoIterator<Item = SessionRecord>) -> Catalog {
        let mut subset = Catalog::with_caches(Arc::clone(&self.caches));
        subset.append(records.into_iter().map(ScanEvent::Record));
        subset
    }

    /// How many records are listed.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether no record is listed.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The record with this [`RecordId`].
    pub fn get(&self, id: RecordId) -> &SessionRecord {
        &self.records[id]
    }

    /// Record ids in record order.
    pub fn order(&self) -> &[RecordId] {
        &self.order
    }

    /// Records in record order.
    pub fn ordered(&self) -> impl Iterator<Item = &SessionRecord> {
        self.order.iter().map(|&id| &self.records[id])
    }

    /// The first record (in record order) with this session id.
    pub fn find(&self, session_id: &str) -> Option<&SessionRecord> {
        self.first.get(session_id).map(|&i| &self.records[i])
    }

    /// The id of [`Catalog::find`]'s record.
    pub fn find_id(&self, session_id: &str) -> Option<RecordId> {
        self.first.get(session_id).copied()
    }

    /// The record whose title labels record `id`: the first record in
    /// record order sharing its session id (itself, unless ids repeat).
    pub fn label_source(&self, id: RecordId) -> RecordId {
        self.first.get(&self.records[id].id).copied().unwrap_or(id)
    }

    /// The label of record `id` (SPEC §6): the title of its label source
    /// as `title_of` gives it, else the session id. The one labelling rule
    /// of the engine and the picker. This is the text queries match (the
    /// title as the log holds it); what is shown and cited is it made safe
    /// by `session_ref_core::escape::safe_label`.
    pub fn label(&self, id: RecordId, title_of: impl FnOnce(RecordId) -> Option<String>) -> String {
        title_of(self.label_source(id)).unwrap_or_else(|| self.records[id].id.clone())
    }

    /// What listing found under one root of `kind` (`--verbose` reports it
    /// for every root, whatever its kind): its sessions, and the files
    /// below it skipped or not listable.
    pub fn found_under(&self, kind: StoreKind, root: &Path) -> RootTally {
        let below = |path: &PathBuf| path.starts_with(root);
        RootTally {
            sessions: self
                .records
                .iter()
                .filter(|r| r.kind == kind && &*r.root == root)
                .count(),
            skipped: self.skipped.iter().filter(|(p, _)| below(p)).count(),
            unreadable: self.unreadable.iter().filter(|(p, _)| below(p)).count(),
        }
    }

    /// The caches readers of this catalog share.
    pub fn caches(&self) -> &Arc<Caches> {
        &self.caches
    }

    /// The latest title of a session of this catalog (through the title
    /// index when it is in use).
    pub fn read_title(&self, record: &SessionRecord) -> Result<Option<String>, ReadError> {
        read_title(&self.caches, record)
    }

    /// The last activity of a session of this catalog (Unix seconds; see
    /// [`last_activity`]).
    pub fn last_activity(&self, record: &SessionRecord) -> Option<i64> {
        last_activity(&self.caches, record)
    }

    /// Save the title index, when in use and changed (never an error).
    pub fn save_index(&self) {
        self.caches.get::<title::TitleIndex>().save();
    }

    /// The folded surface of a session of this catalog.
    pub fn read_surface(&self, record: &SessionRecord) -> Result<Surface, ReadError> {
        reader_of(record).read_surface(&self.caches, record)
    }

    /// The whole conversation of a session of this catalog (surface and
    /// shadowed events), for search.
    pub fn read_history(&self, record: &SessionRecord) -> Result<History, ReadError> {
        reader_of(record).read_history(&self.caches, record)
    }

    /// [`Store::fold_resumable`] for a session of this catalog.
    pub fn fold_resumable(
        &self,
        record: &SessionRecord,
        len: u64,
        from: Option<&journal::ResumePoint>,
    ) -> Result<journal::Folded, ReadError> {
        reader_of(record).fold_resumable(&self.caches, record, len, from)
    }

    /// Fold the surface of a session of this catalog into `sink` as its log
    /// is read: the seq of the last complete event read.
    pub fn fold_surface(
        &self,
        record: &SessionRecord,
        sink: &mut dyn SurfaceSink,
    ) -> Result<u64, ReadError> {
        reader_of(record).fold_surface(&self.caches, record, sink)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::{codex, native};

    fn record(path: &str, id: &str, created_at: &str) -> SessionRecord {
        SessionRecord::new(
            native::KIND,
            Arc::from(Path::new("/s")),
            path.into(),
            id.into(),
            None,
            created_at.into(),
        )
    }

    #[test]
    fn appending_keeps_record_order_and_the_first_record_of_each_id() {
        let mut catalog = Catalog::default();
        let first = catalog.append([
            ScanEvent::Record(record("/s/b.jsonl", "dup", "2025-01-01T00:00:00Z")),
            ScanEvent::Record(record("/s/c.jsonl", "x", "2025-03-01T00:00:00Z")),
        ]);
        assert_eq!(first, [0, 1]);
        let second = catalog.append([
            ScanEvent::Skipped {
                path: "/s/z".into(),
                reason: "no".into(),
            },
            ScanEvent::Record(record("/s/a.jsonl", "dup", "2025-02-01T00:00:00Z")),
        ]);
        assert_eq!(second, [2]);
        let paths: Vec<&str> = catalog
            .ordered()
            .map(|r| r.path.to_str().unwrap())
            .collect();
        assert_eq!(paths, ["/s/c.jsonl", "/s/a.jsonl", "/s/b.jsonl"]);
        assert_eq!(catalog.find("dup").unwrap().path, Path::new("/s/a.jsonl"));
        assert_eq!(catalog.label_source(0), 2);
        assert_eq!(catalog.label(0, |_| None), "dup");
        assert_eq!(catalog.label(0, |s| (s == 2).then(|| "T".into())), "T");
        assert_eq!(catalog.skipped.len(), 1);
        let tally = catalog.found_under(native::KIND, Path::new("/s"));
        assert_eq!((tally.sessions, tally.skipped, tally.unreadable), (3, 1, 0));
        assert_eq!(tally.to_string(), "3 sessions, 1 skipped, 0 unreadable");
        assert_eq!(
            catalog.found_under(codex::KIND, Path::new("/s")).sessions,
            0
        );
    }
}
