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

use std::fs::{self, File};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::catalog::Catalog;
use crate::error::ReadError;
use crate::index::journal::{self, Folded, ResumePoint};
use crate::model::SessionRecord;
use crate::search::extract::{self, Message};

mod listing;
mod lock;
mod manifest;
mod write;

pub use lock::held_elsewhere;
pub use manifest::Stamp;
use manifest::{
    data_name, decode_manifest, path_order, resume_crcs, Manifest, Resume, Segment, MANIFEST,
    MAX_SEGMENTS,
};

/// Where the index lives: `$SESSION_REF_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/session-ref`, else `~/.cache/session-ref`; then `search/`.
pub fn default_dir(env: impl Fn(&str) -> Option<String>, home: Option<&Path>) -> Option<PathBuf> {
    let set = |k: &str| env(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    let base = set("SESSION_REF_CACHE_DIR")
        .or_else(|| set("XDG_CACHE_HOME").map(|d| d.join("session-ref")))
        .or_else(|| home.map(|h| h.join(".cache").join("session-ref")))?;
    Some(base.join("search"))
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
    use super::lock::LOCK;
    use super::manifest::{encode_manifest, Entry};
    use super::*;
    use crate::caches::Caches;
    use crate::roots::StoreRoots;
    use crate::store::ScanEvent;
    use std::sync::Arc;

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
