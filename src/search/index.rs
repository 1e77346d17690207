//! The search index: a compact cache of every session's extracted text, in
//! the user's cache directory, scanned with the query's regex.
//!
//! # Why this engine
//!
//! Measured on a generated store of 10,000 Claude Code sessions (2 GB, see
//! BENCHMARKS.md): what a snapshot projects is a small part of a log (tool
//! output, reasoning and JSON framing are the bulk), so the extracted text
//! alone is about 6 % of the store, and `regex`'s literal prefilters
//! (memchr, Teddy) scan it at memory speed. A scan also answers every query
//! form the same way (words, phrases, arbitrary regexes, smart case) with
//! no second matcher to keep in step, where an n-gram or full-text index
//! (tantivy) answers regexes and substrings only through a verification
//! pass over the text anyway, and costs a tokenizer that must agree with
//! ours.
//!
//! # Answering without a full listing
//!
//! The manifest holds, per log, everything a result row needs besides its
//! title (kind, path, file stamp, id, cwd, creation time, where its text
//! is), sorted by path. A search walks the roots and stats each file (what
//! `find` does), and each log whose stamp matches its entry becomes a
//! record without being opened: the entries are looked up by binary search
//! over the sorted paths, the listing being in path order too, and the
//! manifest is decoded while the roots are walked. Only new or changed
//! logs are listed, through the title index (which refreshes its own
//! entry for them in the same pass), and read. Labels are not kept
//! here: a row's label comes from the one labelling rule,
//! [`crate::store::Catalog::label`], through the title index, and only for
//! the rows printed.
//!
//! # Layout and safety
//!
//! `DIR/data-N.bin` holds one blob per session version, appended; each
//! blob is its messages, `[flags u8][length u32 LE][UTF-8 text]` each.
//! `DIR/manifest.bin` names the data file (its generation `N`), how many
//! bytes of it are committed, and the entries. It is binary for the same
//! reason as the title index's shards (a 10,000-entry JSON manifest was
//! 2.9 MB to parse before every search): `SRSX`, the format version and the
//! CRC-32 of the payload, then the payload in `bincode` 1. Blobs are only
//! ever appended after the committed length, and the manifest is replaced
//! atomically (written beside, then renamed), so a reader always sees a
//! consistent pair; bytes a crashed writer left after the committed length
//! are cut off by the next writer. One writer at a time holds `DIR/lock`
//! (an advisory file lock); a run that cannot take it searches without
//! writing. Anything unreadable or inconsistent (another version, a
//! checksum that does not match, a blob past the end of the data) is
//! dropped and rebuilt, never an error. When more than half of the data is
//! dead (sessions that changed or went away), the live blobs are copied
//! into the next generation's file, the manifest switched to it, and the
//! old file removed.
//!
//! # Invalidation
//!
//! A session's entry is used only while its log keeps the length,
//! modification time and inode it was read at; an appended, truncated or
//! rewritten log is read again (whole: its fold depends on the whole file,
//! e.g. a compaction shadows what came before and assistant text merges
//! across lines) and its new blob appended. Entries of logs no longer found
//! are dropped at the next write.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::reference::projection::Role;
use crate::sealed;
use crate::search::extract::Message;
use crate::store::index::TitleIndex;
use crate::store::model::SessionRecord;
use crate::store::{walk_files, Caches, ScanEvent, StoreRoots};

/// The manifest format; another value is rebuilt.
const FORMAT: u32 = 2;
/// First bytes of a manifest.
const MAGIC: &[u8; 4] = b"SRSX";

const MANIFEST: &str = "manifest.bin";
/// Manifests of earlier formats, removed when the current one is written.
const OLD_MANIFESTS: &[&str] = &["manifest.json"];
/// The data file of generation `generation` (a rewrite starts a new one).
fn data_name(generation: u64) -> String {
    format!("data-{generation}.bin")
}
const LOCK: &str = "lock";

/// Where the index lives: `$SESSION_REF_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/session-ref`, else `~/.cache/session-ref`; then `search/`.
pub fn default_dir(env: impl Fn(&str) -> Option<String>, home: Option<&Path>) -> Option<PathBuf> {
    let set = |k: &str| env(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    let base = set("SESSION_REF_CACHE_DIR")
        .or_else(|| set("XDG_CACHE_HOME").map(|d| d.join("session-ref")))
        .or_else(|| home.map(|h| h.join(".cache").join("session-ref")))?;
    Some(base.join("search"))
}

/// The version of a log an entry was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    /// Length in bytes.
    pub len: u64,
    /// Modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: u128,
    /// Inode number: a log replaced by another file of the same length
    /// and time is still told apart.
    pub inode: u64,
}

impl Stamp {
    /// The current version of `path`.
    pub fn of(path: &Path) -> io::Result<Stamp> {
        let meta = fs::metadata(path)?;
        let mtime_ns = meta
            .modified()?
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        Ok(Stamp {
            len: meta.len(),
            mtime_ns,
            inode: std::os::unix::fs::MetadataExt::ino(&meta),
        })
    }
}

/// One indexed session version: its log, where its blob is, and its
/// record, so that listing through the index opens no unchanged log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Entry {
    path: PathBuf,
    kind: String,
    stamp: Stamp,
    offset: u64,
    bytes: u64,
    id: String,
    cwd: Option<String>,
    created_at: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Manifest {
    /// Which data file the entries point into (`data-N.bin`).
    generation: u64,
    /// Committed length of the data file.
    data_len: u64,
    /// Blob bytes still referenced.
    live: u64,
    /// Sorted by path bytes, one per path.
    entries: Vec<Entry>,
}

impl Manifest {
    /// The entry of `path`, by binary search.
    fn entry(&self, path: &Path) -> Option<&Entry> {
        let key = path.as_os_str().as_encoded_bytes();
        self.entries
            .binary_search_by(|e| e.path.as_os_str().as_encoded_bytes().cmp(key))
            .ok()
            .map(|i| &self.entries[i])
    }

    /// The entry of each of `paths` (sorted as [`walk_files`] sorts), by
    /// one merge of the two sorted lists: paths below one root are
    /// contiguous in the manifest's order.
    fn entries_for(&self, paths: &[PathBuf]) -> Vec<Option<&Entry>> {
        let Some(first) = paths.first() else {
            return Vec::new();
        };
        let mut at = self
            .entries
            .partition_point(|e| path_order(&e.path, first).is_lt());
        paths
            .iter()
            .map(|path| {
                while self
                    .entries
                    .get(at)
                    .is_some_and(|e| path_order(&e.path, path).is_lt())
                {
                    at += 1;
                }
                self.entries.get(at).filter(|e| e.path == *path)
            })
            .collect()
    }

    fn sort(&mut self) {
        self.entries.sort_by(|a, b| {
            a.path
                .as_os_str()
                .as_encoded_bytes()
                .cmp(b.path.as_os_str().as_encoded_bytes())
        });
    }
}

/// The bytes of `manifest` in a file (see the module docs).
fn encode_manifest(manifest: &Manifest) -> io::Result<Vec<u8>> {
    sealed::seal(MAGIC, FORMAT, manifest).map_err(io::Error::other)
}

/// The manifest in `bytes`; `None` when it is another format, damaged or
/// truncated (then the index is rebuilt).
fn decode_manifest(bytes: &[u8]) -> Option<Manifest> {
    let mut manifest: Manifest = sealed::open(MAGIC, FORMAT, bytes)?;
    manifest.sort();
    manifest.entries.dedup_by(|a, b| a.path == b.path);
    Some(manifest)
}

/// An open index: the manifest read at open time, the data file, the
/// stamps this run's listing took, and the blobs extracted during this
/// run, written by [`Index::commit`].
#[derive(Debug)]
pub struct Index {
    dir: PathBuf,
    manifest: Manifest,
    data: Option<File>,
    /// Stamps taken by [`Index::list`], sorted by path, so that deciding a
    /// session does not stat its log a second time.
    listed: Vec<(PathBuf, Stamp)>,
    /// Whether [`Index::list`] found exactly the indexed logs, unchanged.
    all_current: bool,
    fresh: Mutex<Vec<Fresh>>,
}

/// A session read during this run, to be written at commit.
#[derive(Debug)]
struct Fresh {
    path: PathBuf,
    kind: &'static str,
    stamp: Stamp,
    blob: Vec<u8>,
    id: String,
    cwd: Option<String>,
    created_at: String,
}

/// What [`Index::lookup`] finds for a log.
#[derive(Debug)]
pub enum Lookup {
    /// The indexed blob of the log's current version.
    Current(Vec<u8>),
    /// Not indexed, or indexed at another version: read the log (and
    /// [`Index::remember`] it) at this version.
    Stale(Stamp),
}

/// Compare paths as [`walk_files`] orders them.
fn path_order(a: &Path, b: &Path) -> std::cmp::Ordering {
    a.as_os_str()
        .as_encoded_bytes()
        .cmp(b.as_os_str().as_encoded_bytes())
}

impl Index {
    /// Open the index in `dir`, creating it when absent; anything
    /// unreadable counts as empty (and is replaced at the next commit).
    pub fn open(dir: &Path) -> Index {
        let manifest = fs::read(dir.join(MANIFEST))
            .ok()
            .and_then(|bytes| decode_manifest(&bytes))
            .unwrap_or_default();
        // A reader holding an older manifest opens the data file that
        // manifest names: still there and consistent with it, or removed
        // by a rewrite (then nothing is indexed for this run).
        let data = File::open(dir.join(data_name(manifest.generation))).ok();
        let data_len = data
            .as_ref()
            .and_then(|f| f.metadata().ok())
            .map_or(0, |m| m.len());
        let manifest = if manifest.data_len > data_len {
            Manifest::default()
        } else {
            manifest
        };
        Index {
            dir: dir.to_owned(),
            manifest,
            data,
            listed: Vec::new(),
            all_current: false,
            fresh: Mutex::new(Vec::new()),
        }
    }

    /// How many sessions the manifest holds.
    pub fn len(&self) -> usize {
        self.manifest.entries.len()
    }

    /// Whether the manifest holds no session.
    pub fn is_empty(&self) -> bool {
        self.manifest.entries.is_empty()
    }

    /// The current stamp of `path`: the one listing took this run, else
    /// read now.
    fn stamp_of(&self, path: &Path) -> io::Result<Stamp> {
        match self.listed.binary_search_by(|(p, _)| path_order(p, path)) {
            Ok(i) => Ok(self.listed[i].1),
            Err(_) => Stamp::of(path),
        }
    }

    /// The blob of `path` when the index holds its current version.
    pub fn lookup(&self, path: &Path) -> io::Result<Lookup> {
        let stamp = self.stamp_of(path)?;
        let (Some(entry), Some(data)) = (self.manifest.entry(path), self.data.as_ref()) else {
            return Ok(Lookup::Stale(stamp));
        };
        if entry.stamp != stamp {
            return Ok(Lookup::Stale(stamp));
        }
        let mut blob = vec![0; usize::try_from(entry.bytes).unwrap_or(0)];
        match data.read_exact_at(&mut blob, entry.offset) {
            Ok(()) => Ok(Lookup::Current(blob)),
            // A data file cut short under us: read the log instead.
            Err(_) => Ok(Lookup::Stale(stamp)),
        }
    }

    /// Keep the messages of `record`'s log read at `stamp`, for [`Index::commit`].
    pub fn remember(&self, record: &SessionRecord, stamp: Stamp, messages: &[Message]) {
        let fresh = Fresh {
            path: record.path.clone(),
            kind: record.kind.as_str(),
            stamp,
            blob: encode(messages),
            id: record.id.clone(),
            cwd: record.cwd.clone(),
            created_at: record.created_at.clone(),
        };
        self.fresh
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(fresh);
    }

    /// List the sessions under `roots` as [`crate::store::scan`] does, but
    /// taking the record of every log whose version the index holds from
    /// the index: only new and changed logs are opened. (Each root is
    /// walked with its kind's [`crate::store::Store::wants`] and files are
    /// classified with [`crate::store::Store::list_file`], the parts of the
    /// default [`crate::store::Store::scan`].) The stamps taken are kept
    /// for [`Index::lookup`].
    pub fn list(&mut self, caches: &Caches, roots: &StoreRoots) -> Vec<ScanEvent> {
        let walked = walk(roots);
        self.classify(caches, walked)
    }

    /// [`Index::open`] and [`Index::list`] at once: the manifest is
    /// decoded while the roots are walked.
    pub fn open_and_list(
        dir: &Path,
        caches: &Caches,
        roots: &StoreRoots,
    ) -> (Index, Vec<ScanEvent>) {
        let (mut index, walked) = rayon::join(|| Index::open(dir), || walk(roots));
        let events = index.classify(caches, walked);
        (index, events)
    }

    /// Stat the walked files and list each from its entry or its store.
    fn classify(&mut self, caches: &Caches, walked: Vec<Walked>) -> Vec<ScanEvent> {
        let mut events = Vec::new();
        let mut listed = Vec::new();
        let mut current = 0;
        for Walked {
            kind,
            root,
            files,
            unreadable,
        } in walked
        {
            events.extend(unreadable);
            let store = kind.store();
            if !store.lists_each_file() {
                // A session of several files (Gemini CLI): only the
                // kind's own scan lists it, once, under its current file.
                let scanned = Mutex::new(Vec::new());
                store.scan(caches, &root, &|event| {
                    scanned
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(event);
                });
                for event in scanned.into_inner().unwrap_or_else(|e| e.into_inner()) {
                    if let ScanEvent::Record(record) = &event {
                        if let Ok(stamp) = Stamp::of(&record.path) {
                            let entry = self.manifest.entry(&record.path);
                            current += usize::from(entry.is_some_and(|e| e.stamp == stamp));
                            listed.push((record.path.clone(), stamp));
                        }
                    }
                    events.push(event);
                }
                continue;
            }
            let entries = self.manifest.entries_for(&files);
            let found: Vec<(ScanEvent, Option<Stamp>, bool)> = files
                .par_iter()
                .zip(entries)
                .map(|(path, entry)| {
                    let stamp = Stamp::of(path).ok();
                    let known = entry
                        .filter(|entry| Some(entry.stamp) == stamp && entry.kind == kind.as_str());
                    let event = match known {
                        Some(entry) => ScanEvent::Record(SessionRecord::new(
                            kind,
                            Arc::clone(&root),
                            path.clone(),
                            entry.id.clone(),
                            entry.cwd.clone(),
                            entry.created_at.clone(),
                        )),
                        // New or changed: listed through the title index,
                        // which refreshes its entry in the same pass.
                        None => caches
                            .get::<TitleIndex>()
                            .refresh_file(store, kind, caches, &root, path),
                    };
                    (event, stamp, known.is_some())
                })
                .collect();
            for (event, stamp, known) in found {
                current += usize::from(known);
                if let (ScanEvent::Record(record), Some(stamp)) = (&event, stamp) {
                    listed.push((record.path.clone(), stamp));
                }
                events.push(event);
            }
        }
        listed.sort_by(|a, b| path_order(&a.0, &b.0));
        // Every entry found current, and nothing else listed: a commit
        // has nothing to forget (no need to compare the whole listing).
        self.all_current = current == self.manifest.entries.len() && current == listed.len();
        self.listed = listed;
        events
    }

    /// Write what this run read, and forget logs not in `listed` (when
    /// given: the complete listing). Skipped, without error, when another
    /// run holds the lock or the directory cannot be written.
    pub fn commit(self, listed: Option<&[&Path]>) -> io::Result<bool> {
        let fresh = self.fresh.into_inner().unwrap_or_else(|e| e.into_inner());
        if fresh.is_empty() && self.all_current {
            return Ok(false);
        }
        let kept = listed.map(|listed| {
            let mut keep: Vec<&Path> = listed.to_vec();
            keep.sort_by(|a, b| path_order(a, b));
            keep
        });
        let is_kept =
            |kept: &[&Path], path: &Path| kept.binary_search_by(|p| path_order(p, path)).is_ok();
        let forget = kept.as_ref().is_some_and(|kept| {
            self.manifest
                .entries
                .iter()
                .any(|e| !is_kept(kept, &e.path))
        });
        if fresh.is_empty() && !forget {
            return Ok(false);
        }
        fs::create_dir_all(&self.dir)?;
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.dir.join(LOCK))?;
        if lock.try_lock().is_err() {
            return Ok(false);
        }
        // Re-read under the lock: another run may have committed since.
        let mut current = Index::open(&self.dir).manifest;
        if let Some(kept) = &kept {
            current.entries.retain(|e| is_kept(kept, &e.path));
        }
        let mut data = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(self.dir.join(data_name(current.generation)))?;
        data.set_len(current.data_len)?;
        let mut at = current.data_len;
        let mut writer = io::BufWriter::new(&mut data);
        use std::io::Seek;
        writer.seek(io::SeekFrom::Start(at))?;
        let mut added = Vec::with_capacity(fresh.len());
        for fresh in fresh {
            writer.write_all(&fresh.blob)?;
            let bytes = fresh.blob.len() as u64;
            added.push(Entry {
                path: fresh.path,
                kind: fresh.kind.to_owned(),
                stamp: fresh.stamp,
                offset: at,
                bytes,
                id: fresh.id,
                cwd: fresh.cwd,
                created_at: fresh.created_at,
            });
            at += bytes;
        }
        writer.flush()?;
        drop(writer);
        data.sync_data()?;
        // A fresh entry replaces the one of the same path: it sorts first,
        // and `dedup_by` keeps the first of equal paths.
        added.sort_by(|a, b| path_order(&a.path, &b.path));
        added.dedup_by(|later, earlier| later.path == earlier.path);
        let mut merged = added;
        merged.append(&mut current.entries);
        merged.sort_by(|a, b| path_order(&a.path, &b.path));
        merged.dedup_by(|later, earlier| later.path == earlier.path);
        current.entries = merged;
        current.data_len = at;
        current.live = current.entries.iter().map(|e| e.bytes).sum();
        if current.live * 2 < current.data_len && current.data_len > (1 << 20) {
            current = rewrite(&self.dir, &data, current)?;
        }
        write_manifest(&self.dir, &current)?;
        for old in OLD_MANIFESTS {
            let _ = fs::remove_file(self.dir.join(old));
        }
        drop(lock);
        Ok(true)
    }
}

/// The files of one root a kind wants, and the directories that could
/// not be read.
struct Walked {
    kind: crate::store::StoreKind,
    root: Arc<Path>,
    files: Vec<PathBuf>,
    unreadable: Vec<ScanEvent>,
}

/// Walk every root of `roots` (in their order) with its kind's filter.
fn walk(roots: &StoreRoots) -> Vec<Walked> {
    roots
        .iter()
        .map(|(kind, root)| {
            let store = kind.store();
            let mut unreadable = Vec::new();
            let files = walk_files(root, &|p| store.wants(p), &mut |path, reason| {
                unreadable.push(ScanEvent::Unreadable { path, reason })
            });
            Walked {
                kind,
                root: Arc::from(root.as_path()),
                files,
                unreadable,
            }
        })
        .collect()
}

/// Copy the live blobs into a new data file, replace the old one, and
/// return the manifest that points into it (written by the caller).
fn rewrite(dir: &Path, old: &File, mut manifest: Manifest) -> io::Result<Manifest> {
    let old_name = data_name(manifest.generation);
    manifest.generation += 1;
    let temp = dir.join(format!(
        "{}.{}",
        data_name(manifest.generation),
        std::process::id()
    ));
    let mut out = io::BufWriter::new(File::create(&temp)?);
    let mut at = 0;
    let mut order: Vec<usize> = (0..manifest.entries.len()).collect();
    order.sort_by_key(|&i| manifest.entries[i].offset);
    for i in order {
        let entry = &mut manifest.entries[i];
        let mut blob = vec![0; usize::try_from(entry.bytes).unwrap_or(0)];
        old.read_exact_at(&mut blob, entry.offset)?;
        out.write_all(&blob)?;
        entry.offset = at;
        at += entry.bytes;
    }
    out.into_inner()?.sync_data()?;
    fs::rename(&temp, dir.join(data_name(manifest.generation)))?;
    manifest.data_len = at;
    manifest.live = at;
    // The new manifest goes first, then the old data file: a reader sees
    // the old pair, the new pair, or an old manifest without its data.
    write_manifest(dir, &manifest)?;
    let _ = fs::remove_file(dir.join(old_name));
    Ok(manifest)
}

fn write_manifest(dir: &Path, manifest: &Manifest) -> io::Result<()> {
    let bytes = encode_manifest(manifest)?;
    let mut temp = tempfile::NamedTempFile::new_in(dir)?;
    temp.as_file_mut().write_all(&bytes)?;
    temp.as_file().sync_data()?;
    temp.persist(dir.join(MANIFEST)).map_err(|e| e.error)?;
    Ok(())
}

const USER: u8 = 0;
const ASSISTANT: u8 = 1;
const CHECKPOINT: u8 = 2;
const BEFORE_COMPACTION: u8 = 4;

/// The blob of a session's messages.
pub fn encode(messages: &[Message]) -> Vec<u8> {
    let mut blob = Vec::with_capacity(messages.iter().map(|m| m.text.len() + 5).sum());
    for m in messages {
        let mut flags = match m.role {
            Role::User => USER,
            Role::Assistant => ASSISTANT,
        };
        if m.checkpoint {
            flags |= CHECKPOINT;
        }
        if m.before_compaction {
            flags |= BEFORE_COMPACTION;
        }
        blob.push(flags);
        let len = u32::try_from(m.text.len()).unwrap_or(u32::MAX);
        blob.extend_from_slice(&len.to_le_bytes());
        blob.extend_from_slice(&m.text.as_bytes()[..len as usize]);
    }
    blob
}

/// The messages of a blob; `None` when it is not one [`encode`] wrote.
pub fn decode(blob: &[u8]) -> Option<Vec<Message>> {
    let mut messages = Vec::new();
    let mut rest = blob;
    while let Some((&flags, tail)) = rest.split_first() {
        let len = u32::from_le_bytes(tail.get(..4)?.try_into().ok()?) as usize;
        let text = std::str::from_utf8(tail.get(4..4 + len)?).ok()?;
        messages.push(Message {
            role: if flags & ASSISTANT != 0 {
                Role::Assistant
            } else {
                Role::User
            },
            text: text.to_owned(),
            checkpoint: flags & CHECKPOINT != 0,
            before_compaction: flags & BEFORE_COMPACTION != 0,
        });
        rest = &tail[4 + len..];
    }
    Some(messages)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(path: &Path) -> SessionRecord {
        SessionRecord::new(
            crate::store::native::KIND,
            Arc::from(path.parent().unwrap()),
            path.to_owned(),
            "id".into(),
            None,
            "2026-01-01T00:00:00Z".into(),
        )
    }

    fn message(text: &str, before_compaction: bool) -> Message {
        Message {
            role: Role::Assistant,
            text: text.into(),
            checkpoint: !before_compaction,
            before_compaction,
        }
    }

    #[test]
    fn blobs_round_trip_and_garbage_is_refused() {
        let messages = vec![message("héllo\nworld", true), message("", false)];
        let blob = encode(&messages);
        assert_eq!(decode(&blob).unwrap(), messages);
        assert!(decode(&blob[..blob.len() - 1]).is_none());
        assert!(decode(&[0, 9, 0, 0, 0, b'a']).is_none());
        assert!(decode(&[0, 2, 0, 0, 0, 0xff, 0xfe]).is_none());
        assert_eq!(decode(&[]).unwrap(), []);
    }

    #[test]
    fn manifests_round_trip_and_damage_is_refused() {
        let mut manifest = Manifest {
            generation: 3,
            data_len: 40,
            live: 30,
            entries: ["/s/b.jsonl", "/s/a.jsonl"]
                .iter()
                .map(|p| Entry {
                    path: PathBuf::from(p),
                    kind: "claude".into(),
                    stamp: Stamp {
                        len: 9,
                        mtime_ns: 1_700_000_000_000_000_000,
                        inode: 5,
                    },
                    offset: 10,
                    bytes: 20,
                    id: "id".into(),
                    cwd: Some("/w".into()),
                    created_at: "2026-01-01T00:00:00Z".into(),
                })
                .collect(),
        };
        let bytes = encode_manifest(&manifest).unwrap();
        let back = decode_manifest(&bytes).unwrap();
        manifest.sort();
        assert_eq!(back.entries, manifest.entries);
        assert_eq!((back.generation, back.data_len), (3, 40));
        assert!(back.entry(Path::new("/s/a.jsonl")).is_some());
        assert!(back.entry(Path::new("/s/c.jsonl")).is_none());
        for cut in 0..bytes.len() {
            assert!(decode_manifest(&bytes[..cut]).is_none(), "cut at {cut}");
        }
        for at in 0..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x10;
            assert!(decode_manifest(&flipped).is_none(), "flipped {at}");
        }
    }

    #[test]
    fn listing_takes_unchanged_records_from_the_index() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("store");
        fs::create_dir(&root).unwrap();
        let header = |id: &str| {
            format!(
                r#"{{"type":"session","version":1,"id":"{id}","createdAt":"2026-01-01T00:00:00Z","cwd":"/w"}}"#
            ) + "\n"
        };
        let log = root.join("a.jsonl");
        fs::write(&log, header("a")).unwrap();
        let roots = StoreRoots::new().with(crate::store::native::KIND, &root);
        let cache = dir.path().join("cache");
        let caches = Caches::default();
        let mut index = Index::open(&cache);
        let events = index.list(&caches, &roots);
        let [ScanEvent::Record(listed)] = &events[..] else {
            panic!("{events:?}")
        };
        let Lookup::Stale(stamp) = index.lookup(&log).unwrap() else {
            panic!("empty index")
        };
        index.remember(listed, stamp, &[message("m", false)]);
        index.commit(Some(&[log.as_path()])).unwrap();
        // The log now says otherwise, but its stamp is unchanged: the
        // record is the indexed one (the log is not opened).
        let mut index = Index::open(&cache);
        let times = fs::metadata(&log).unwrap().modified().unwrap();
        fs::write(&log, header("b")).unwrap();
        File::options()
            .write(true)
            .open(&log)
            .unwrap()
            .set_modified(times)
            .unwrap();
        let events = index.list(&caches, &roots);
        assert!(matches!(&events[..], [ScanEvent::Record(r)] if r.id == "a"));
        assert!(matches!(index.lookup(&log).unwrap(), Lookup::Current(_)));
        // Grown: listed by the store.
        fs::write(&log, header("b") + "\n").unwrap();
        let mut index = Index::open(&cache);
        let events = index.list(&caches, &roots);
        assert!(matches!(&events[..], [ScanEvent::Record(r)] if r.id == "b"));
        assert!(matches!(index.lookup(&log).unwrap(), Lookup::Stale(_)));
    }

    #[test]
    fn cache_dir_follows_the_environment() {
        let home = Path::new("/home/u");
        let none = |_: &str| None;
        assert_eq!(
            default_dir(none, Some(home)).unwrap(),
            Path::new("/home/u/.cache/session-ref/search")
        );
        let xdg = |k: &str| (k == "XDG_CACHE_HOME").then(|| "/x".to_owned());
        assert_eq!(
            default_dir(xdg, Some(home)).unwrap(),
            Path::new("/x/session-ref/search")
        );
        let own = |k: &str| (k == "SESSION_REF_CACHE_DIR").then(|| "/c".to_owned());
        assert_eq!(default_dir(own, None).unwrap(), Path::new("/c/search"));
        assert!(default_dir(none, None).is_none());
    }

    #[test]
    fn entries_follow_the_file_version_and_survive_corruption() {
        let dir = tempfile::tempdir().unwrap();
        let logs = dir.path().join("logs");
        fs::create_dir(&logs).unwrap();
        let cache = dir.path().join("cache");
        let log = logs.join("a.jsonl");
        fs::write(&log, "one\n").unwrap();
        let index = Index::open(&cache);
        let Lookup::Stale(stamp) = index.lookup(&log).unwrap() else {
            panic!("empty index")
        };
        index.remember(&record(&log), stamp, &[message("first", false)]);
        assert!(index.commit(Some(&[log.as_path()])).unwrap());
        let index = Index::open(&cache);
        let Lookup::Current(blob) = index.lookup(&log).unwrap() else {
            panic!("indexed")
        };
        assert_eq!(decode(&blob).unwrap()[0].text, "first");
        // Appended: stale.
        fs::write(&log, "one\ntwo\n").unwrap();
        assert!(matches!(index.lookup(&log).unwrap(), Lookup::Stale(_)));
        // Truncated: stale.
        fs::write(&log, "o\n").unwrap();
        let Lookup::Stale(stamp) = index.lookup(&log).unwrap() else {
            panic!("truncated")
        };
        index.remember(&record(&log), stamp, &[message("second", false)]);
        index.commit(Some(&[log.as_path()])).unwrap();
        let index = Index::open(&cache);
        let Lookup::Current(blob) = index.lookup(&log).unwrap() else {
            panic!("re-indexed")
        };
        assert_eq!(decode(&blob).unwrap()[0].text, "second");
        // Deleted: forgotten at the next commit.
        fs::remove_file(&log).unwrap();
        assert!(index.lookup(&log).is_err());
        assert!(index.commit(Some(&[])).unwrap());
        assert!(Index::open(&cache).is_empty());
        // A corrupt manifest is an empty index, rebuilt on commit.
        fs::write(cache.join(MANIFEST), "{not json").unwrap();
        let index = Index::open(&cache);
        assert!(index.is_empty());
        fs::write(&log, "again\n").unwrap();
        let Lookup::Stale(stamp) = index.lookup(&log).unwrap() else {
            panic!("empty")
        };
        index.remember(&record(&log), stamp, &[message("third", false)]);
        index.commit(None).unwrap();
        assert_eq!(Index::open(&cache).len(), 1);
        // A data file shorter than the manifest says: empty, not an error.
        fs::write(cache.join(data_name(0)), "").unwrap();
        assert!(Index::open(&cache).is_empty());
    }

    #[test]
    fn a_held_lock_skips_the_write() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("a.jsonl");
        fs::write(&log, "x\n").unwrap();
        let cache = dir.path().join("cache");
        fs::create_dir_all(&cache).unwrap();
        let held = File::create(cache.join(LOCK)).unwrap();
        held.lock().unwrap();
        let index = Index::open(&cache);
        let Lookup::Stale(stamp) = index.lookup(&log).unwrap() else {
            panic!("empty")
        };
        index.remember(&record(&log), stamp, &[message("x", false)]);
        assert!(!index.commit(None).unwrap());
        held.unlock().unwrap();
        assert!(Index::open(&cache).is_empty());
    }

    #[test]
    fn dead_data_is_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("a.jsonl");
        let cache = dir.path().join("cache");
        let big = "z".repeat(700_000);
        for round in 0..4 {
            fs::write(&log, format!("{round}\n")).unwrap();
            let index = Index::open(&cache);
            let Lookup::Stale(stamp) = index.lookup(&log).unwrap() else {
                panic!("changed")
            };
            index.remember(
                &record(&log),
                stamp,
                &[message(&format!("{round}{big}"), false)],
            );
            index.commit(None).unwrap();
        }
        let files: Vec<String> = fs::read_dir(&cache)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("data-"))
            .collect();
        assert_eq!(files.len(), 1, "{files:?}");
        let len = fs::metadata(cache.join(&files[0])).unwrap().len();
        assert!(len < 2 * 700_010, "data not rewritten: {len}");
        assert_ne!(files[0], data_name(0));
        let index = Index::open(&cache);
        let Lookup::Current(blob) = index.lookup(&log).unwrap() else {
            panic!("current")
        };
        assert!(decode(&blob).unwrap()[0].text.starts_with('3'));
    }
}
