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
//! [`crate::Catalog::label`], through the title index, and only for
//! the rows printed.
//!
//! # Layout and safety
//!
//! `DIR/data-N.bin` holds, appended, the journals of the sessions' folds
//! ([`crate::index::journal`]: the operations the fold applied to its
//! sink, with the text a projection can see) and the stores' fold states
//! at their resume points. `DIR/manifest.bin` names the data file (its
//! generation `N`), how many bytes of it are committed, and the entries.
//! It is binary for the same reason as the title index's shards (a
//! 10,000-entry JSON manifest was 2.9 MB to parse before every search):
//! `SRSX`, the format version and the CRC-32 of the payload, then the
//! payload in bitcode ([`sealed`]). Data is only ever appended after the committed
//! length, and the manifest is replaced atomically (written beside, then
//! renamed), so a reader always sees a consistent pair; bytes a crashed
//! writer left after the committed length are cut off by the next writer.
//! One writer at a time holds `DIR/lock` (an advisory file lock); a run
//! that cannot take it searches without writing. Anything unreadable or
//! inconsistent (another version, a checksum that does not match, data
//! past the end of the file, a journal that does not decode) is dropped
//! and rebuilt, never an error. When more than half of the data is dead
//! (sessions that changed or went away, states passed), the live data is
//! copied into the next generation's file (each journal's pieces into
//! one), the manifest switched to it, and the old file removed.
//!
//! # Invalidation and appended logs
//!
//! A session's entry is used as it is only while its log keeps the length,
//! modification time and inode it was read at. A log that only grew is
//! read from where the last read stopped: what it folds to depends on the
//! whole log (a compaction shadows what came before, assistant text merges
//! across lines, a Codex rollout's conversation is its response items or
//! its event copies), so the entry keeps no folded result but the journal,
//! to which the appended lines' operations are added as one more piece,
//! and the store's fold state at the last line end it read
//! ([`crate::Store::fold_resumable`]). A query replays the pieces
//! through the one [`crate::model::History`] sink and projects them
//! ([`messages`]), so which messages are "before compaction" is decided at
//! query time, exactly as a whole read decides it (`tests/search_append.rs`
//! holds every store kind to that, append after append).
//!
//! The fold goes on only when everything says the log was appended to: the
//! same inode, a longer file, a resume point (the last line read was
//! complete), and the same CRC-32 over the log's first 4 KiB and over the
//! 4 KiB before the resume point. Anything else (truncated, rewritten,
//! replaced, a torn last line, a compressed log, a Codex fork whose history
//! is in another file, a Gemini CLI chat, whose records rewrite earlier
//! messages by id) is read whole again. An entry holds at most 16 journal
//! pieces: the next append copies them into one, from the index. Entries
//! of logs no longer found are dropped at the next write.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::caches::Caches;
use crate::catalog::Catalog;
use crate::error::ReadError;
use crate::index::journal::{self, Folded, ResumePoint};
use crate::index::sealed;
use crate::index::title::TitleIndex;
use crate::model::SessionRecord;
use crate::private;
use crate::roots::StoreRoots;
use crate::search::extract::{self, Message};
use crate::store::{walk_files, ScanEvent};

/// The manifest format; another value is rebuilt (4: postcard replaced
/// bincode, in the manifest and in the resume points it holds; 5: bitcode
/// replaced postcard).
const FORMAT: u32 = 5;
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

/// Whether another run holds the lock of the index in `dir` (is writing
/// it now). A directory without a lock file is not locked.
pub fn held_elsewhere(dir: &Path) -> bool {
    let Ok(lock) = OpenOptions::new().write(true).open(dir.join(LOCK)) else {
        return false;
    };
    match lock.try_lock() {
        Ok(()) => {
            let _ = lock.unlock();
            false
        }
        Err(_) => true,
    }
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

impl From<crate::index::stamp::Stamp> for Stamp {
    fn from(s: crate::index::stamp::Stamp) -> Self {
        Stamp {
            len: s.len,
            mtime_ns: u128::try_from(s.mtime_ns).unwrap_or(0),
            inode: s.inode,
        }
    }
}

/// Bytes of a data file: where a journal piece or a fold state is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Segment {
    offset: u64,
    bytes: u64,
}

/// Where the fold of an indexed log can go on when the log grows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Resume {
    /// The line start the fold stopped at.
    offset: u64,
    /// Lines before it.
    lines: u64,
    /// The store's fold state there (in the data file: read only to resume).
    state: Segment,
    /// CRC-32 of the log's first [`CHECKED_BYTES`] bytes (at most `offset`).
    head_crc: u32,
    /// CRC-32 of the [`CHECKED_BYTES`] bytes before `offset`.
    tail_crc: u32,
}

/// One indexed session version: its log, where its journal is, and its
/// record, so that listing through the index opens no unchanged log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Entry {
    path: PathBuf,
    kind: String,
    stamp: Stamp,
    /// The journal ([`journal::encode`]) in pieces, in log order: the
    /// whole log's first, then one per append read since.
    segments: Vec<Segment>,
    /// The journal stream that holds the conversation.
    chosen: u8,
    resume: Option<Resume>,
    id: String,
    cwd: Option<String>,
    created_at: String,
}

impl Entry {
    /// Data bytes this entry keeps alive.
    fn live_bytes(&self) -> u64 {
        self.segments.iter().map(|s| s.bytes).sum::<u64>()
            + self.resume.as_ref().map_or(0, |r| r.state.bytes)
    }
}

/// Bytes of a log checked on each side of a resume point's history (its
/// head and the bytes just before the point) before a fold goes on from it.
const CHECKED_BYTES: u64 = 4096;

/// Journal pieces an entry may have; an append that would make more
/// copies them into one (from the index, not the log).
const MAX_SEGMENTS: usize = 16;

/// CRC-32 of the bytes of `path` from `from` to `to`.
fn crc_of(file: &File, from: u64, to: u64) -> io::Result<u32> {
    let mut bytes = vec![0; usize::try_from(to - from).unwrap_or(0)];
    file.read_exact_at(&mut bytes, from)?;
    Ok(crc32fast::hash(&bytes))
}

/// The checksums [`Resume`] keeps for a fold stopped at `offset` of `path`.
fn resume_crcs(path: &Path, offset: u64) -> io::Result<(u32, u32)> {
    let file = File::open(path)?;
    Ok((
        crc_of(&file, 0, offset.min(CHECKED_BYTES))?,
        crc_of(&file, offset.saturating_sub(CHECKED_BYTES), offset)?,
    ))
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
    sealed::seal(MAGIC, FORMAT, manifest)
        .ok_or_else(|| io::Error::other("the search manifest cannot be encoded"))
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
    /// For a continued fold: the data generation and the pieces the new
    /// one continues, which must still be the entry's at commit.
    base: Option<(u64, Vec<Segment>)>,
    /// The journal of what was read.
    journal: Vec<u8>,
    chosen: u8,
    /// The resume point with its checksums, and its state.
    resume: Option<(Resume, Vec<u8>)>,
    id: String,
    cwd: Option<String>,
    created_at: String,
}

/// What [`Index::lookup`] finds for a log.
#[derive(Debug)]
pub enum Lookup {
    /// The indexed journal of the log's current version.
    Current(Indexed),
    /// Not indexed, or indexed at another version: read the log (and
    /// [`Index::remember`] it).
    Stale(Stale),
}

/// An indexed journal.
#[derive(Debug)]
pub struct Indexed {
    /// The journal's bytes ([`journal::encode`]).
    pub journal: Vec<u8>,
    /// The stream that holds the conversation.
    pub chosen: u8,
}

/// A log to read: its current version, and where its fold can go on from
/// when it grew since it was indexed.
#[derive(Debug)]
pub struct Stale {
    /// The log's version now.
    pub stamp: Stamp,
    /// The indexed fold of the log's earlier part, when the log only grew.
    pub continuation: Option<Continuation>,
}

/// The indexed fold of the first part of a grown log.
#[derive(Debug)]
pub struct Continuation {
    /// Where the fold stopped, with the store's state there.
    pub point: ResumePoint,
    /// The stream that held the conversation there.
    pub chosen: u8,
    generation: u64,
    base: Vec<Segment>,
}

/// Compare paths as [`walk_files`] orders them.
fn path_order(a: &Path, b: &Path) -> std::cmp::Ordering {
    a.as_os_str()
        .as_encoded_bytes()
        .cmp(b.as_os_str().as_encoded_bytes())
}

/// Take `lock` if it is free now or within a few milliseconds. A lock is
/// held by an open file description, and a child process forked elsewhere
/// in this process (a picker's `--exec`, a test binary's helpers) keeps a
/// copy of a description until it execs: a commit right after the last
/// one could otherwise find its own just-released lock still taken. A run
/// that really holds the lock keeps it longer than this, and the commit is
/// then skipped as before.
fn lock_briefly(lock: &File) -> bool {
    for _ in 0..20 {
        if lock.try_lock().is_ok() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    false
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

    /// The journal of `record`'s log when the index holds its current
    /// version; else its version now, with the fold to continue when the
    /// log only grew since it was indexed (same inode, longer, a resume
    /// point, and the same bytes at its head and just before the point).
    pub fn lookup(&self, record: &SessionRecord) -> io::Result<Lookup> {
        let path = record.path.as_path();
        let stamp = self.stamp_of(path)?;
        let stale = |continuation| {
            Ok(Lookup::Stale(Stale {
                stamp,
                continuation,
            }))
        };
        let (Some(entry), Some(data)) = (self.manifest.entry(path), self.data.as_ref()) else {
            return stale(None);
        };
        if entry.stamp == stamp {
            return match self.read_segments(&entry.segments) {
                Some(journal) => Ok(Lookup::Current(Indexed {
                    journal,
                    chosen: entry.chosen,
                })),
                // A data file cut short under us: read the log instead.
                None => stale(None),
            };
        }
        let continuation = entry
            .resume
            .as_ref()
            .filter(|resume| {
                entry.kind == record.kind.as_str()
                    && stamp.inode == entry.stamp.inode
                    && stamp.len > entry.stamp.len
                    && stamp.len > resume.offset
                    && resume_crcs(path, resume.offset).ok()
                        == Some((resume.head_crc, resume.tail_crc))
            })
            .and_then(|resume| {
                let mut state = vec![0; usize::try_from(resume.state.bytes).ok()?];
                data.read_exact_at(&mut state, resume.state.offset).ok()?;
                Some(Continuation {
                    point: ResumePoint {
                        offset: resume.offset,
                        lines: resume.lines,
                        state,
                    },
                    chosen: entry.chosen,
                    generation: self.manifest.generation,
                    base: entry.segments.clone(),
                })
            });
        stale(continuation)
    }

    /// The bytes of `segments`, one after the other; `None` when the data
    /// file does not hold them.
    fn read_segments(&self, segments: &[Segment]) -> Option<Vec<u8>> {
        let data = self.data.as_ref()?;
        let total = segments.iter().map(|s| s.bytes).sum::<u64>();
        let mut bytes = vec![0; usize::try_from(total).ok()?];
        let mut at = 0;
        for segment in segments {
            let len = usize::try_from(segment.bytes).ok()?;
            data.read_exact_at(&mut bytes[at..at + len], segment.offset)
                .ok()?;
            at += len;
        }
        Some(bytes)
    }

    /// The indexed journal a continuation goes on from.
    pub fn journal_before(&self, continuation: &Continuation) -> Option<Vec<u8>> {
        (continuation.generation == self.manifest.generation)
            .then(|| self.read_segments(&continuation.base))
            .flatten()
    }

    /// Keep the fold of `record`'s log read at `stamp` (continuing
    /// `continuation` when [`Folded::continued`]), for [`Index::commit`].
    /// `before`: the journal of the continuation, when the caller has read
    /// it already.
    pub fn remember(
        &self,
        record: &SessionRecord,
        stamp: Stamp,
        folded: Folded,
        continuation: Option<&Continuation>,
        before: Option<&[u8]>,
    ) {
        let journal = journal::encode(&folded.ops);
        self.remember_encoded(record, stamp, journal, folded, continuation, before);
    }

    /// [`Index::remember`] with the fold's operations encoded already
    /// (`journal`; `folded.ops` is not used).
    fn remember_encoded(
        &self,
        record: &SessionRecord,
        stamp: Stamp,
        mut journal: Vec<u8>,
        folded: Folded,
        continuation: Option<&Continuation>,
        before: Option<&[u8]>,
    ) {
        let base = match (folded.continued, continuation) {
            (false, _) => None,
            (true, None) => return,
            (true, Some(from)) if from.base.len() + 1 >= MAX_SEGMENTS => {
                // A long chain: one self-contained journal instead.
                let Some(before) = before
                    .map(<[u8]>::to_vec)
                    .or_else(|| self.journal_before(from))
                else {
                    return;
                };
                let mut whole = before;
                whole.append(&mut journal);
                journal = whole;
                None
            }
            (true, Some(from)) => Some((from.generation, from.base.clone())),
        };
        let resume = folded.resume.and_then(|point| {
            let (head_crc, tail_crc) = resume_crcs(&record.path, point.offset).ok()?;
            let resume = Resume {
                offset: point.offset,
                lines: point.lines,
                state: Segment {
                    offset: 0,
                    bytes: point.state.len() as u64,
                },
                head_crc,
                tail_crc,
            };
            Some((resume, point.state))
        });
        let fresh = Fresh {
            path: record.path.clone(),
            kind: record.kind.as_str(),
            stamp,
            base,
            journal,
            chosen: folded.chosen,
            resume,
            id: record.id.clone(),
            cwd: record.cwd.clone(),
            created_at: record.created_at.clone(),
        };
        self.fresh
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(fresh);
    }

    /// Read the log of a [`Lookup::Stale`] `record` (only its appended
    /// lines when it has a usable continuation), keep the fold for
    /// [`Index::commit`], and return the journal of the whole log, as
    /// [`Lookup::Current`] would give it.
    pub fn read_stale(
        &self,
        catalog: &Catalog,
        record: &SessionRecord,
        stale: Stale,
    ) -> Result<Indexed, ReadError> {
        let Stale {
            stamp,
            continuation,
        } = stale;
        // A continuation whose earlier journal cannot be read is not
        // used: the log is read whole.
        let before = continuation.and_then(|from| {
            let bytes = self.journal_before(&from)?;
            Some((from, bytes))
        });
        let point = before.as_ref().map(|(from, _)| &from.point);
        let folded = catalog.fold_resumable(record, stamp.len, point)?;
        let added = journal::encode(&folded.ops);
        // The whole log's journal: the earlier one (its bytes reused), then
        // what was just read.
        let (from, mut whole) = match before {
            Some((from, bytes)) if folded.continued => (Some(from), bytes),
            _ => (None, Vec::new()),
        };
        let earlier = whole.len();
        whole.extend_from_slice(&added);
        let chosen = folded.chosen;
        let before = from.as_ref().map(|_| &whole[..earlier]);
        self.remember_encoded(record, stamp, added, folded, from.as_ref(), before);
        Ok(Indexed {
            journal: whole,
            chosen,
        })
    }

    /// List the sessions under `roots` as [`crate::catalog::scan`] does, but
    /// taking the record of every log whose version the index holds from
    /// the index: only new and changed logs are opened. (Each root is
    /// walked with its kind's [`crate::Store::wants`] and files are
    /// classified with [`crate::Store::list_file`], the parts of the
    /// default [`crate::Store::scan`]; a kind whose sessions span
    /// several files is listed by its own scan, see
    /// [`crate::Store::lists_each_file`].) The stamps taken are kept
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
            if store.uses_known_cwds() {
                // Aider looks in the directories listed so far (the roots
                // come in registry order, where it is last).
                let known = caches.get::<crate::caches::KnownCwds>();
                for event in &events {
                    if let ScanEvent::Record(record) = event {
                        known.note(record.cwd.as_deref().unwrap_or_default());
                    }
                }
            }
            if !store.lists_each_file() {
                // A session of several files (Gemini CLI): only the
                // kind's own scan lists it, once, under its current file.
                let scanned = Mutex::new(Vec::new());
                store.scan(kind, caches, &root, &|event| {
                    scanned
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(event);
                });
                for event in scanned.into_inner().unwrap_or_else(|e| e.into_inner()) {
                    if let ScanEvent::Record(record) = &event {
                        // The kind's own stamp: its sessions may share a file.
                        if let Some(stamp) = store.stamp(caches, record).map(Stamp::from) {
                            let entry = self.manifest.entry(&record.path);
                            let known =
                                entry.is_some_and(|e| e.stamp == stamp && e.kind == kind.as_str());
                            current += usize::from(known);
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
        // Private: the data files hold transcript text.
        private::dir(&self.dir)?;
        let lock = private::open(
            OpenOptions::new().create(true).truncate(false).write(true),
            &self.dir.join(LOCK),
        )?;
        if !lock_briefly(&lock) {
            return Ok(false);
        }
        // Re-read under the lock: another run may have committed since.
        let mut current = Index::open(&self.dir).manifest;
        if let Some(kept) = &kept {
            current.entries.retain(|e| is_kept(kept, &e.path));
        }
        let mut data = private::open(
            OpenOptions::new()
                .create(true)
                .truncate(false)
                .read(true)
                .write(true),
            &self.dir.join(data_name(current.generation)),
        )?;
        data.set_len(current.data_len)?;
        let mut at = current.data_len;
        let mut writer = io::BufWriter::new(&mut data);
        use std::io::Seek;
        writer.seek(io::SeekFrom::Start(at))?;
        let mut added = Vec::with_capacity(fresh.len());
        for fresh in fresh {
            // A continued fold is kept only while the entry it continues
            // is still the one it read (another run may have changed it).
            let segments = match fresh.base {
                None => Vec::new(),
                Some((generation, base)) => {
                    let still = current.generation == generation
                        && current
                            .entry(&fresh.path)
                            .is_some_and(|e| e.segments == base);
                    if !still {
                        continue;
                    }
                    base
                }
            };
            let mut segments = segments;
            let mut put = |bytes: &[u8]| -> io::Result<Segment> {
                writer.write_all(bytes)?;
                let segment = Segment {
                    offset: at,
                    bytes: bytes.len() as u64,
                };
                at += segment.bytes;
                Ok(segment)
            };
            if !fresh.journal.is_empty() || segments.is_empty() {
                segments.push(put(&fresh.journal)?);
            }
            let resume = match fresh.resume {
                Some((mut resume, state)) => {
                    resume.state = put(&state)?;
                    Some(resume)
                }
                None => None,
            };
            added.push(Entry {
                path: fresh.path,
                kind: fresh.kind.to_owned(),
                stamp: fresh.stamp,
                segments,
                chosen: fresh.chosen,
                resume,
                id: fresh.id,
                cwd: fresh.cwd,
                created_at: fresh.created_at,
            });
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
        current.live = current.entries.iter().map(Entry::live_bytes).sum();
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
    kind: crate::model::StoreKind,
    root: Arc<Path>,
    files: Vec<PathBuf>,
    /// What the walk reported: unreadable directories, skipped links.
    unreadable: Vec<ScanEvent>,
}

/// Walk every root of `roots` (in their order) with its kind's filter.
fn walk(roots: &StoreRoots) -> Vec<Walked> {
    roots
        .iter()
        .map(|(kind, root)| {
            let store = kind.store();
            let mut unreadable = Vec::new();
            let files = walk_files(root, &|p| store.wants(p), &mut |event| {
                unreadable.push(event)
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
    let mut out = io::BufWriter::new(private::open(
        OpenOptions::new().write(true).create(true).truncate(true),
        &temp,
    )?);
    let mut at = 0;
    let mut copy = |from: &[Segment]| -> io::Result<Segment> {
        let total: u64 = from.iter().map(|s| s.bytes).sum();
        for segment in from {
            let mut bytes = vec![0; usize::try_from(segment.bytes).unwrap_or(0)];
            old.read_exact_at(&mut bytes, segment.offset)?;
            out.write_all(&bytes)?;
        }
        let segment = Segment {
            offset: at,
            bytes: total,
        };
        at += total;
        Ok(segment)
    };
    for entry in &mut manifest.entries {
        // The pieces of a journal become one.
        entry.segments = vec![copy(&entry.segments)?];
        if let Some(resume) = &mut entry.resume {
            resume.state = copy(&[resume.state])?;
        }
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
    private::write_atomic(&dir.join(MANIFEST), &bytes)
}

/// The searchable messages of an indexed journal: its stream `chosen`
/// replayed and projected as a read of the log projects it; `None` when
/// the bytes are not a journal.
pub fn messages(journal: &[u8], chosen: u8) -> Option<Vec<Message>> {
    let mut ops = Vec::new();
    journal::decode_into(journal, &mut ops)?;
    Some(extract::conversation(&journal::replay(ops, chosen)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(path: &Path) -> SessionRecord {
        SessionRecord::new(
            crate::kinds::native::KIND,
            Arc::from(path.parent().unwrap()),
            path.to_owned(),
            "id".into(),
            None,
            "2026-01-01T00:00:00Z".into(),
        )
    }

    /// A fold of one assistant message `text`.
    fn folded(text: &str) -> Folded {
        Folded {
            ops: vec![(
                0,
                journal::Op::Push {
                    seq: 1,
                    kind: journal::Kind::Assistant,
                    text: Some(text.into()),
                },
            )],
            ..Folded::default()
        }
    }

    /// The text of the one message of an indexed journal.
    fn text_of(indexed: &Indexed) -> String {
        messages(&indexed.journal, indexed.chosen).unwrap()[0]
            .text
            .clone()
    }

    fn stamp_of(lookup: Lookup) -> Stale {
        match lookup {
            Lookup::Stale(stale) => stale,
            Lookup::Current(_) => panic!("current"),
        }
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
                    segments: vec![Segment {
                        offset: 10,
                        bytes: 20,
                    }],
                    chosen: 0,
                    resume: Some(Resume {
                        offset: 9,
                        lines: 1,
                        state: Segment {
                            offset: 30,
                            bytes: 8,
                        },
                        head_crc: 1,
                        tail_crc: 2,
                    }),
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
        let roots = StoreRoots::new().with(crate::kinds::native::KIND, &root);
        let cache = dir.path().join("cache");
        let caches = Caches::default();
        let mut index = Index::open(&cache);
        let events = index.list(&caches, &roots);
        let [ScanEvent::Record(listed)] = &events[..] else {
            panic!("{events:?}")
        };
        let stamp = stamp_of(index.lookup(&record(&log)).unwrap()).stamp;
        index.remember(listed, stamp, folded("m"), None, None);
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
        assert!(matches!(
            index.lookup(&record(&log)).unwrap(),
            Lookup::Current(_)
        ));
        // Grown: listed by the store.
        fs::write(&log, header("b") + "\n").unwrap();
        let mut index = Index::open(&cache);
        let events = index.list(&caches, &roots);
        assert!(matches!(&events[..], [ScanEvent::Record(r)] if r.id == "b"));
        assert!(matches!(
            index.lookup(&record(&log)).unwrap(),
            Lookup::Stale(_)
        ));
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
        let stamp = stamp_of(index.lookup(&record(&log)).unwrap()).stamp;
        index.remember(&record(&log), stamp, folded("first"), None, None);
        assert!(index.commit(Some(&[log.as_path()])).unwrap());
        let index = Index::open(&cache);
        let Lookup::Current(indexed) = index.lookup(&record(&log)).unwrap() else {
            panic!("indexed")
        };
        assert_eq!(text_of(&indexed), "first");
        // Appended: stale.
        fs::write(&log, "one\ntwo\n").unwrap();
        assert!(matches!(
            index.lookup(&record(&log)).unwrap(),
            Lookup::Stale(_)
        ));
        // Truncated: stale.
        fs::write(&log, "o\n").unwrap();
        let stamp = stamp_of(index.lookup(&record(&log)).unwrap()).stamp;
        index.remember(&record(&log), stamp, folded("second"), None, None);
        index.commit(Some(&[log.as_path()])).unwrap();
        let index = Index::open(&cache);
        let Lookup::Current(indexed) = index.lookup(&record(&log)).unwrap() else {
            panic!("re-indexed")
        };
        assert_eq!(text_of(&indexed), "second");
        // Deleted: forgotten at the next commit.
        fs::remove_file(&log).unwrap();
        assert!(index.lookup(&record(&log)).is_err());
        assert!(index.commit(Some(&[])).unwrap());
        assert!(Index::open(&cache).is_empty());
        // A corrupt manifest is an empty index, rebuilt on commit.
        fs::write(cache.join(MANIFEST), "{not json").unwrap();
        let index = Index::open(&cache);
        assert!(index.is_empty());
        fs::write(&log, "again\n").unwrap();
        let stamp = stamp_of(index.lookup(&record(&log)).unwrap()).stamp;
        index.remember(&record(&log), stamp, folded("third"), None, None);
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
        let stamp = stamp_of(index.lookup(&record(&log)).unwrap()).stamp;
        index.remember(&record(&log), stamp, folded("x"), None, None);
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
            let stamp = stamp_of(index.lookup(&record(&log)).unwrap()).stamp;
            index.remember(
                &record(&log),
                stamp,
                folded(&format!("{round}{big}")),
                None,
                None,
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
        assert!(len < 2 * 700_100, "data not rewritten: {len}");
        assert_ne!(files[0], data_name(0));
        let index = Index::open(&cache);
        let Lookup::Current(indexed) = index.lookup(&record(&log)).unwrap() else {
            panic!("current")
        };
        assert!(text_of(&indexed).starts_with('3'));
    }
}
