//! The title index: a listing cache in the user's cache directory
//! (`$XDG_CACHE_HOME/session-ref`, else `~/.cache/session-ref`), so that
//! listing thousands of sessions stats their files instead of reading them.
//!
//! Per file, keyed by store kind and path and stamped with length,
//! modification time and inode, it keeps what listing needs: the record (or
//! why the file is not a session) and, for kinds whose title is the last
//! title line of the file itself ([`Store::title_after`]), the title and
//! where its line starts, and the session's last activity
//! ([`Store::last_activity`]). A file whose stamp is unchanged is not opened. A
//! file that only grew (same inode, longer, and the bytes just before the
//! end of the last scan unchanged) is searched for a newer title in the
//! appended bytes only; any other change re-reads it. Every kind goes
//! through the same [`Store`] calls, so listing is identical with and
//! without the index (tested in `tests/title_index.rs`). A kind with a
//! scan of its own (Gemini CLI groups a session's several files) keeps
//! what it reads of each file as a [`TitleIndex::file_fact`] instead; a
//! kind whose sessions are rows of one database keeps an untitled row's
//! first-prompt title as a [`TitleIndex::fact_at`] under a version of the
//! row (`crate::kinds::row_title`).
//!
//! The index is kept as one file per store root (named by kind and a hash
//! of the root's path), so a run loads only the entries of the roots it
//! reads: a `prepare` over one store does not parse the entries of others.
//!
//! Robustness: each file is replaced atomically (written beside it, then
//! renamed), so concurrent runs each leave a whole index; one that does not
//! parse or has another version is ignored and rebuilt, never an error;
//! when a run lists a root, entries of files it did not find there are
//! dropped, so the index holds only what exists; a root's shards of
//! earlier versions are removed when its current one is written, and a
//! run that writes the index removes the shards of roots that no longer
//! exist (`prune_gone_roots`).
//! `--no-cache` leaves it aside.
//!
//! Hook for other indexes (a body-search index): [`TitleIndex::changes`]
//! names every file this run found new, grown (with the offset its earlier
//! scan reached) or rewritten, and a [`SurfaceSink`](crate::model::SurfaceSink)
//! folded over just those files is the per-file visitor over their
//! conversation text.
//!
//! Format: a compact binary file, because the index is read whole on every
//! listing and JSON made that the largest cost of a warm listing (a
//! 10,000-entry shard was 5.6 MB of JSON to parse). It is an 8-byte header
//! (`SRTI` and the version, little-endian), the CRC-32 of the payload
//! (`crc32fast`), then the payload encoded by bitcode (serde mode; see
//! [`sealed`]) from the same serde types: a small head (the kind and path
//! of the first entry, for pruning) and the entries. A serde format
//! over a hand-rolled layout: the entries are nested optional structs
//! whose serde derive already exists, bitcode decodes them at memory
//! speed, and a hand-rolled reader
//! would need its own bounds checks for the same result. Damage is caught
//! three ways, each meaning "ignore and rebuild": the magic or version
//! differs, the checksum does not match (a torn or flipped byte), or the
//! payload does not decode within its own length (the decoder's limit is
//! the payload size, so a corrupt length never allocates beyond it).
//!
//! Parts: this module reads through the [`Store`] trait and answers
//! listing, titles and activity; `shard` is the files (entries, the
//! on-disk form, pruning, growth checks) and knows no store; the stamps
//! and title inputs are [`crate::index::stamp`], below the trait, which
//! names them. The trait's default scan lists through the index by the
//! [`ListFile`] this index is (put in a run's caches by
//! [`TitleIndex::into_caches`]), so the trait names nothing above it.

mod shard;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde::Serialize;

use crate::caches::{lock, Caches};
use crate::error::ReadError;
use crate::index::sealed;
use crate::index::stamp::fingerprint_of;
pub use crate::index::stamp::{Change, Stamp, TitleInputs};
use crate::model::{SessionRecord, StoreKind};
use crate::store::{ListFile, Lister, ScanEvent, Store};
use shard::{
    appended, change_of, key, prune_gone_roots, read_guard, scan_end, shard_name, Key, Listed,
    Shard, Title,
};

/// The cache directory from the environment: `$XDG_CACHE_HOME/session-ref`
/// when set to an absolute path, else `~/.cache/session-ref`.
pub fn cache_dir(env: impl Fn(&str) -> Option<String>, home: Option<&Path>) -> Option<PathBuf> {
    match env("XDG_CACHE_HOME").filter(|v| Path::new(v).is_absolute()) {
        Some(dir) => Some(Path::new(&dir).join("session-ref")),
        None => home.map(|h| h.join(".cache").join("session-ref")),
    }
}

/// The title index of one run (see the module docs). The default is
/// disabled: it keeps nothing and reads nothing.
#[derive(Debug, Default)]
pub struct TitleIndex {
    /// The cache directory; `None` when disabled.
    dir: Option<PathBuf>,
    /// The shards of the roots used so far, by kind and absolute root.
    shards: Mutex<Vec<(&'static str, PathBuf, Arc<Shard>)>>,
    /// Files found new, grown or rewritten this run.
    changes: Mutex<Vec<(StoreKind, PathBuf, Change)>>,
    /// Fingerprints of title inputs, computed once per run.
    inputs: Mutex<HashMap<TitleInputs, Arc<std::sync::OnceLock<Option<u64>>>>>,
    /// Whether this run pruned the shards of gone roots ([`prune_gone_roots`]).
    pruned: AtomicBool,
}

impl TitleIndex {
    /// The index kept in `dir` (each root's shard is loaded when first
    /// used). A run uses it through its caches: [`TitleIndex::into_caches`].
    pub fn open(dir: &Path) -> TitleIndex {
        TitleIndex {
            dir: Some(dir.to_owned()),
            ..TitleIndex::default()
        }
    }

    /// `caches` with this index: read by the title and activity reads,
    /// and the [`Lister`] the default `Store::scan` lists each file with.
    pub fn into_caches(self, caches: Caches) -> Caches {
        let index = Arc::new(self);
        let lister: Arc<dyn ListFile> = index.clone();
        caches.with_shared(index).with(Lister(Some(lister)))
    }

    /// Whether the index is in use.
    pub fn enabled(&self) -> bool {
        self.dir.is_some()
    }

    /// The shard of `root` of `kind`, loaded on first use; `None` when disabled.
    fn shard(&self, kind: StoreKind, root: &Path) -> Option<Arc<Shard>> {
        let dir = self.dir.as_ref()?;
        let kind = kind.as_str();
        let mut shards = lock(&self.shards);
        // Looked up per file: by the root as given, without allocating.
        if let Some((.., shard)) = shards.iter().find(|(k, r, _)| *k == kind && r == root) {
            return Some(Arc::clone(shard));
        }
        let file = dir.join(shard_name(kind, &key(root)));
        // Another spelling of a root already used shares its shard.
        let shard = match shards.iter().find(|(.., s)| s.file == file) {
            Some((.., shard)) => Arc::clone(shard),
            None => Arc::new(Shard::open(file, kind)),
        };
        shards.push((kind, root.to_owned(), Arc::clone(&shard)));
        Some(shard)
    }

    /// Note that this run lists every file below `root` through
    /// [`TitleIndex::file_fact`] (a kind with its own scan): entries of the
    /// files it does not look at are then known to be gone, and dropped.
    pub fn listing_root(&self, kind: StoreKind, root: &Path) {
        if let Some(shard) = self.shard(kind, root) {
            shard.listed.store(true, Ordering::Relaxed);
        }
    }

    /// A fact a store derives from the bytes of `path` alone (Gemini CLI:
    /// a chat's head, which a legacy chat gives only when parsed whole),
    /// with the file's stamp: kept from an earlier run while the file is
    /// unchanged, else computed by `compute` and kept when it is `Some`
    /// (an unreadable file is tried again next time). `None` when the file
    /// cannot be stat-ed or was modified too recently to be told apart
    /// from its next version; the caller then reads it itself.
    pub fn file_fact<T: Serialize + serde::de::DeserializeOwned>(
        &self,
        kind: StoreKind,
        root: &Path,
        path: &Path,
        compute: impl FnOnce() -> Option<T>,
    ) -> Option<(Stamp, Option<T>)> {
        if !self.enabled() {
            return None;
        }
        let stamp = Stamp::of(path)?;
        self.fact_at(kind, root, path, stamp, compute)
    }

    /// [`TitleIndex::file_fact`] for a record that is not a file of its
    /// own (a row of an agent's database, its path `<db>/<id>`): kept
    /// while `version`, which the kind derives from what the fact depends
    /// on (the row's own update time), is unchanged. The kind passes no
    /// version it cannot tell apart from the next one (a time within the
    /// resolution of its clock). `None` when the index is disabled.
    pub fn fact_at<T: Serialize + serde::de::DeserializeOwned>(
        &self,
        kind: StoreKind,
        root: &Path,
        path: &Path,
        stamp: Stamp,
        compute: impl FnOnce() -> Option<T>,
    ) -> Option<(Stamp, Option<T>)> {
        let shard = self.shard(kind, root)?;
        let key = key(path);
        let old = shard.old.get(&*key);
        if let Some((entry, seen)) = old {
            let known = entry.fact.as_ref().filter(|(was, _)| *was == stamp);
            if let Some(fact) = known.and_then(|(_, bytes)| sealed::decode(bytes)) {
                seen.store(true, Ordering::Relaxed);
                return Some((stamp, Some(fact)));
            }
        }
        let fact = compute();
        if let Some(bytes) = fact.as_ref().and_then(sealed::encode) {
            shard.dirty.store(true, Ordering::Relaxed);
            let mut fresh = lock(&shard.fresh);
            shard.fresh_entry(&mut fresh, key.into_owned()).fact = Some((stamp, bytes));
        }
        Some((stamp, fact))
    }

    /// Note that this run listed every record of `root` and that
    /// `records` are all of them (a kind whose records are rows of a
    /// database keyed by [`TitleIndex::fact_at`]): on save, entries of
    /// the records not named are dropped, and those named are kept even
    /// where this run read nothing of them.
    pub fn listed_records<'a>(
        &self,
        kind: StoreKind,
        root: &Path,
        records: impl IntoIterator<Item = &'a Path>,
    ) {
        let Some(shard) = self.shard(kind, root) else {
            return;
        };
        for path in records {
            shard.keep(&key(path));
        }
        shard.listed.store(true, Ordering::Relaxed);
    }

    /// Files found new, grown or rewritten so far this run: where another
    /// index built in the same pass (body search) has work to do.
    pub fn changes(&self) -> Vec<(StoreKind, PathBuf, Change)> {
        lock(&self.changes).clone()
    }

    /// List `path` of `store` below `root`: from the index when its stamp
    /// is unchanged, else by [`Store::list_file`] (and remembered).
    pub fn list_file(
        &self,
        store: &dyn Store,
        kind: StoreKind,
        caches: &Caches,
        root: &Arc<Path>,
        path: &Path,
    ) -> ScanEvent {
        if let Some(shard) = self.shard(kind, root) {
            shard.listed.store(true, Ordering::Relaxed);
        }
        self.refresh_file(store, kind, caches, root, path)
    }

    /// [`TitleIndex::list_file`] for one file of a root this run does not
    /// list whole (the search index re-lists only the logs it found
    /// changed): the other entries of the root are kept as they are.
    pub fn refresh_file(
        &self,
        store: &dyn Store,
        kind: StoreKind,
        caches: &Caches,
        root: &Arc<Path>,
        path: &Path,
    ) -> ScanEvent {
        let Some(shard) = self.shard(kind, root) else {
            return store.list_file(caches, root, path);
        };
        let Some(stamp) = Stamp::of(path) else {
            return store.list_file(caches, root, path);
        };
        let key = key(path);
        let old = shard.old.get(&*key);
        let hit = old.filter(|(e, _)| e.listed.as_ref().is_some_and(|(was, _)| *was == stamp));
        if let Some((entry, seen)) = hit {
            // Unchanged: answered from the loaded entry, which stays as it is.
            seen.store(true, Ordering::Relaxed);
            return match &entry.listed {
                Some((
                    _,
                    Listed::Record {
                        id,
                        cwd,
                        created_at,
                    },
                )) => ScanEvent::Record(SessionRecord::new(
                    kind,
                    Arc::clone(root),
                    path.to_owned(),
                    id.clone(),
                    cwd.clone(),
                    created_at.clone(),
                )),
                Some((_, Listed::Skipped { reason })) => ScanEvent::Skipped {
                    path: path.to_owned(),
                    reason: reason.clone(),
                },
                None => unreachable!("a hit has a listing"),
            };
        }
        let event = store.list_file(caches, root, path);
        let listed = match &event {
            ScanEvent::Record(r) => Listed::Record {
                id: r.id.clone(),
                cwd: r.cwd.clone(),
                created_at: r.created_at.clone(),
            },
            ScanEvent::Skipped { reason, .. } => Listed::Skipped {
                reason: reason.clone(),
            },
            // An unreadable file is tried again next time.
            ScanEvent::Unreadable { .. } => return event,
        };
        shard.dirty.store(true, Ordering::Relaxed);
        let change = change_of(old.map(|(e, _)| e), stamp, path);
        lock(&self.changes).push((kind, path.to_owned(), change));
        let mut fresh = lock(&shard.fresh);
        shard.fresh_entry(&mut fresh, key.into_owned()).listed = Some((stamp, listed));
        event
    }

    /// The title of `record`: from the index when its file is unchanged;
    /// searched in the appended bytes only when it just grew; else read by
    /// the store. Kinds without [`Store::title_after`] are read directly.
    pub fn title(
        &self,
        store: &dyn Store,
        caches: &Caches,
        record: &SessionRecord,
    ) -> Result<Option<String>, ReadError> {
        let shard = Some(()).filter(|()| store.titles_by_file());
        let Some(shard) = shard.and_then(|()| self.shard(record.kind, &record.root)) else {
            return store.read_title(caches, record);
        };
        let path = &record.path;
        let key = key(path);
        let (listed_now, known) = {
            let fresh = lock(&shard.fresh);
            let old = shard.old.get(&*key);
            // The entry of this run: changed ones are in `fresh`; a file
            // listing found unchanged keeps its loaded entry.
            let (entry, listed) = match fresh.get(&*key) {
                Some(e) => (Some(e), true),
                None => (
                    old.map(|(e, _)| e),
                    old.is_some_and(|(_, seen)| seen.load(Ordering::Relaxed)),
                ),
            };
            (
                entry
                    .filter(|_| listed)
                    .and_then(|e| e.listed.as_ref())
                    .map(|(stamp, _)| *stamp),
                entry.and_then(|e| e.title.clone()),
            )
        };
        let key = key.into_owned();
        // The stamp listing took this run, else the file's now.
        let Some(stamp) = listed_now.or_else(|| Stamp::of(path)) else {
            return store.read_title(caches, record);
        };
        if let Some(inputs) = store.title_inputs(caches, record) {
            let found = (key, stamp, known);
            return self.title_with_inputs(&shard, store, caches, record, found, &inputs);
        }
        let from = match &known {
            Some((was, title)) if *was == stamp => {
                shard.keep(&key);
                return Ok(title.title.clone());
            }
            Some((was, title)) if appended(was, &stamp, title, path) => title.scanned,
            _ => 0,
        };
        let Some(found) = store.title_after(caches, record, from) else {
            return store.read_title(caches, record);
        };
        let (title, offset) = match (found?, &known) {
            (Some((title, at)), _) => (Some(title), Some(at)),
            // Nothing newer in the appended bytes: the earlier title stands.
            (None, Some((_, earlier))) if from > 0 => (earlier.title.clone(), earlier.offset),
            (None, _) => (None, None),
        };
        let scanned = scan_end(path, stamp.len);
        let found = Title {
            title: title.clone(),
            offset,
            inputs: 0,
            scanned,
            guard: read_guard(path, scanned),
        };
        shard.dirty.store(true, Ordering::Relaxed);
        let mut fresh = lock(&shard.fresh);
        shard.fresh_entry(&mut fresh, key).title = Some((stamp, found));
        Ok(title)
    }

    /// The last activity of `record` ([`Store::last_activity`]): from
    /// the index while its file (and the title's other inputs, which
    /// decide which file of a session is current) are unchanged, else
    /// read by the store and kept.
    pub fn activity(
        &self,
        store: &dyn Store,
        caches: &Caches,
        record: &SessionRecord,
    ) -> Option<i64> {
        let read = || store.last_activity(caches, record);
        let Some(shard) = self.shard(record.kind, &record.root) else {
            return read();
        };
        let path = &record.path;
        let key = key(path);
        let (listed_now, known) = {
            let fresh = lock(&shard.fresh);
            let old = shard.old.get(&*key);
            let (entry, listed) = match fresh.get(&*key) {
                Some(e) => (Some(e), true),
                None => (
                    old.map(|(e, _)| e),
                    old.is_some_and(|(_, seen)| seen.load(Ordering::Relaxed)),
                ),
            };
            (
                entry
                    .filter(|_| listed)
                    .and_then(|e| e.listed.as_ref())
                    .map(|(stamp, _)| *stamp),
                entry.and_then(|e| e.activity),
            )
        };
        let Some(stamp) = listed_now.or_else(|| Stamp::of(path)) else {
            return read();
        };
        let inputs = match store.title_inputs(caches, record) {
            Some(inputs) => match self.fingerprint(&inputs) {
                Some(fingerprint) => fingerprint,
                None => return read(),
            },
            None => 0,
        };
        if let Some((was, with, activity)) = known {
            if was == stamp && with == inputs {
                shard.keep(&key);
                return activity;
            }
        }
        let activity = read();
        shard.dirty.store(true, Ordering::Relaxed);
        let mut fresh = lock(&shard.fresh);
        shard.fresh_entry(&mut fresh, key.into_owned()).activity = Some((stamp, inputs, activity));
        activity
    }

    /// The title of a kind whose title also depends on other files: kept
    /// while the file and the fingerprint of those files are unchanged,
    /// else read whole by the store.
    fn title_with_inputs(
        &self,
        shard: &Shard,
        store: &dyn Store,
        caches: &Caches,
        record: &SessionRecord,
        (key, stamp, known): (Key, Stamp, Option<(Stamp, Title)>),
        inputs: &TitleInputs,
    ) -> Result<Option<String>, ReadError> {
        let Some(fingerprint) = self.fingerprint(inputs) else {
            return store.read_title(caches, record);
        };
        if let Some((was, title)) = &known {
            if *was == stamp && title.inputs == fingerprint {
                shard.keep(&key);
                return Ok(title.title.clone());
            }
        }
        let title = store.read_title(caches, record)?;
        let found = Title {
            title: title.clone(),
            offset: None,
            inputs: fingerprint,
            scanned: 0,
            guard: String::new(),
        };
        shard.dirty.store(true, Ordering::Relaxed);
        let mut fresh = lock(&shard.fresh);
        shard.fresh_entry(&mut fresh, key).title = Some((stamp, found));
        Ok(title)
    }

    /// A fingerprint of the stamps of `inputs` (computed once per run);
    /// `None` when one of them is too recent to trust.
    fn fingerprint(&self, inputs: &TitleInputs) -> Option<u64> {
        // One computation per run, even when many threads ask at once:
        // a folder of thousands of sessions is stat-ed once, not per title.
        let cell = Arc::clone(lock(&self.inputs).entry(inputs.clone()).or_default());
        *cell.get_or_init(|| fingerprint_of(inputs))
    }

    /// Save the shard of every root used this run that changed (see
    /// the module docs), and when one was written, prune the shards of
    /// roots that are gone (once per run). Never an error: the index is
    /// only a cache.
    pub fn save(&self) {
        let shards: Vec<Arc<Shard>> = lock(&self.shards)
            .iter()
            .map(|(.., s)| Arc::clone(s))
            .collect();
        let mut saved: Vec<*const Shard> = Vec::new();
        let mut wrote = false;
        for shard in shards {
            // A shard shared by two spellings of its root is saved once.
            if !saved.contains(&Arc::as_ptr(&shard)) {
                saved.push(Arc::as_ptr(&shard));
                wrote |= shard.save();
            }
        }
        if let Some(dir) = self.dir.as_deref().filter(|_| wrote) {
            if !self.pruned.swap(true, Ordering::Relaxed) {
                prune_gone_roots(dir);
            }
        }
    }
}

impl ListFile for TitleIndex {
    fn list_file(
        &self,
        store: &dyn Store,
        kind: StoreKind,
        caches: &Caches,
        root: &Arc<Path>,
        path: &Path,
    ) -> ScanEvent {
        TitleIndex::list_file(self, store, kind, caches, root, path)
    }
}

#[cfg(test)]
mod tests {
    use super::shard::*;
    use super::*;

    #[test]
    fn index_file_round_trips_and_rejects_damage() {
        let stamp = Stamp {
            len: 10,
            mtime_ns: 1_700_000_000_000_000_000,
            inode: 7,
        };
        let index = IndexFile {
            version: VERSION,
            entries: vec![Entry {
                kind: "hydra".to_owned(),
                path: PathBuf::from("/s/a.jsonl"),
                listed: Some((
                    stamp,
                    Listed::Record {
                        id: "a".to_owned(),
                        cwd: None,
                        created_at: "2026".to_owned(),
                    },
                )),
                title: Some((
                    stamp,
                    Title {
                        title: Some("T".to_owned()),
                        offset: Some(3),
                        inputs: 0,
                        scanned: 10,
                        guard: "0a".to_owned(),
                    },
                )),
                fact: Some((stamp, vec![1, 2, 3])),
                activity: Some((stamp, 9, Some(1_700_000_000))),
            }],
        };
        let bytes = encode(&index).unwrap();
        let back = decode(&bytes).unwrap();
        assert_eq!(back.entries, index.entries);
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut]).is_none(), "truncated at {cut}");
        }
        for at in 0..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x01;
            assert!(decode(&flipped).is_none(), "flipped byte {at}");
        }
    }

    #[test]
    fn pruning_keeps_shards_whose_root_exists_or_is_unknown() {
        let cache = tempfile::tempdir().unwrap();
        let stores = tempfile::tempdir().unwrap();
        let shard = |root: &Path| {
            let index = IndexFile {
                version: VERSION,
                entries: vec![Entry {
                    kind: "hydra".to_owned(),
                    path: root.join("deep/a.jsonl"),
                    listed: None,
                    title: None,
                    fact: None,
                    activity: None,
                }],
            };
            let file = cache.path().join(shard_name("hydra", root));
            std::fs::write(&file, encode(&index).unwrap()).unwrap();
            file
        };
        let here = shard(stores.path());
        let gone = shard(&stores.path().join("gone"));
        let damaged = cache.path().join(format!("titles-v{VERSION}-hydra-0.bin"));
        std::fs::write(&damaged, b"SRTI not an index").unwrap();
        prune_gone_roots(cache.path());
        assert!(here.exists() && damaged.exists());
        assert!(!gone.exists());
    }

    #[test]
    fn last_activity_is_kept_while_the_file_is_unchanged() {
        use crate::catalog::Catalog;
        use crate::kinds::claude;
        use crate::roots::StoreRoots;
        let store = tempfile::tempdir().unwrap();
        let cache = tempfile::tempdir().unwrap();
        let path = store.path().join("p/a.jsonl");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let write = |last: &str| {
            let user = r#"{"type":"user","cwd":"/w","sessionId":"a","message":{"role":"user","content":"hi"},"uuid":"u","timestamp":"2025-01-01T00:00:00.000Z"}"#;
            let reply = format!(
                r#"{{"type":"assistant","cwd":"/w","sessionId":"a","message":{{"id":"m","role":"assistant","content":[{{"type":"text","text":"yo"}}]}},"uuid":"v","timestamp":"{last}"}}"#
            );
            std::fs::write(
                &path,
                format!("{user}\n{reply}\n{{\"type\":\"last-prompt\"}}\n"),
            )
            .unwrap();
            let old = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_750_000_000);
            let file = std::fs::File::options().write(true).open(&path).unwrap();
            file.set_modified(old).unwrap();
        };
        write("2025-01-02T00:00:00.000Z");
        let roots = StoreRoots::new().with(claude::KIND, store.path());
        let activity = |caches: Caches| {
            let catalog = Catalog::load_with(Arc::new(caches), &roots);
            let record = catalog.ordered().next().unwrap().clone();
            let at = catalog.last_activity(&record);
            catalog.save_index();
            at
        };
        let indexed = || TitleIndex::open(cache.path()).into_caches(Caches::default());
        // The last line with a timestamp, not the file's time.
        assert_eq!(activity(indexed()), Some(1_735_776_000));
        // The same length, inode and time: the index answers without
        // reading the file (which now says otherwise).
        write("2025-01-03T00:00:00.000Z");
        assert_eq!(activity(indexed()), Some(1_735_776_000));
        assert_eq!(activity(Caches::default()), Some(1_735_862_400));
    }

    #[test]
    fn cache_dir_follows_xdg_then_home() {
        let home = Path::new("/home/u");
        let xdg = |k: &str| (k == "XDG_CACHE_HOME").then(|| "/x".to_owned());
        assert_eq!(
            cache_dir(xdg, Some(home)),
            Some(PathBuf::from("/x/session-ref"))
        );
        let relative = |k: &str| (k == "XDG_CACHE_HOME").then(|| "rel".to_owned());
        assert_eq!(
            cache_dir(relative, Some(home)),
            Some(PathBuf::from("/home/u/.cache/session-ref"))
        );
        assert_eq!(cache_dir(|_| None, None), None);
    }
}
