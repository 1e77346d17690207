//! `keep`: copying the sessions a listing found into the archive, only
//! what changed since the last copy, within the archive's size bound.
//!
//! A session's copy is the file its kind reads it from: the record's log
//! (a transcript, a rollout, a chat file), or for a session kept in a SQLite database (opencode, Kilo, Crush) the
//! database that holds it, copied consistently with SQLite's `VACUUM INTO`
//! through a read-only connection ([`crate::kinds::sqlite::copy_into`]),
//! so what its WAL holds is in the copy and nothing in the store is
//! written. Side files some readers also consult (Claude Code's
//! `sessions-index.json` titles, Codex's `session_index.jsonl` names, an
//! opencode legacy session's message folders) are not kept: an archived
//! session is read from its own file alone, as its reader reads a session
//! whose side files are gone.
//!
//! Nothing already archived is ever lost by a failed keep: blobs are new
//! files renamed into place and never changed, the manifest is replaced
//! atomically, and blobs are deleted only once a manifest that no longer
//! names them is on disk. A write that fails (a full disk) stops the run
//! with an error naming what was kept before it.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::blobs::{self, Compressed, CopyError};
use super::manifest::{Entry, Manifest, Stamp};
use super::{view, Archive, ArchiveError, KeepReport};
use crate::kinds::sqlite;
use crate::model::SessionRecord;
use crate::private;

/// The file holding `record` and its path below the record's root: the
/// record's path when it is a file, else the nearest folder above it
/// that is a file (an opencode record's path is its database's path and
/// the session id). `None` when there is none below the root.
fn source_of(record: &SessionRecord) -> Option<(PathBuf, PathBuf)> {
    let mut path = record.path.as_path();
    while !path.is_file() {
        path = path.parent()?;
        if !path.starts_with(&*record.root) {
            return None;
        }
    }
    let rel = path.strip_prefix(&*record.root).ok()?.to_path_buf();
    Some((path.to_path_buf(), rel))
}

/// Copy `source` into a compressed blob of the archive in `dir`.
fn compress(dir: &Path, source: &Path) -> Result<Compressed, Failure> {
    let archive = |e: std::io::Error| Failure::Archive(ArchiveError::io("cannot write a copy", &e));
    let session = |e: std::io::Error| Failure::Session(e.to_string());
    let compressed = if sqlite::is_database(source) {
        let folder = dir.join(blobs::DIR);
        let copy = private::dir(&folder)
            .and_then(|()| private::temp_in(&folder))
            .map_err(archive)?;
        if let Err(why) = sqlite::copy_into(source, copy.path()) {
            // SQLite says SQLITE_FULL as "database or disk is full".
            return Err(match why.contains("disk is full") {
                true => archive(std::io::Error::from_raw_os_error(libc::ENOSPC)),
                false => Failure::Session(why),
            });
        }
        let mut file = std::fs::File::open(copy.path()).map_err(archive)?;
        blobs::compress(dir, &mut file)
    } else {
        let mut file = std::fs::File::open(source).map_err(session)?;
        blobs::compress(dir, &mut file)
    };
    compressed.map_err(|e| match e {
        CopyError::Source(e) => session(e),
        CopyError::Archive(e) => archive(e),
    })
}

/// What one copy of a file made: its blob (already in the archive when
/// `pending` is `None`), shared by every session read from that file.
struct Copied {
    hash: String,
    len: u64,
    stored: u64,
    pending: Option<Compressed>,
}

/// Now, in Unix seconds.
fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

impl Archive {
    /// Copy every session of `records` (local ones; archived and remote
    /// records are passed over) into the archive: a session whose file has
    /// the stamp it had at its last copy is confirmed, not copied again;
    /// any other is copied, compressed, and stored once per distinct
    /// content. When a new copy would pass the size bound, copies of
    /// sessions still in their store are dropped first, the least recently
    /// kept first (they are in their store: nothing is lost); sessions the
    /// archive alone holds are never dropped, and what still does not fit
    /// is not kept (counted in [`KeepReport::not_kept`]).
    pub fn keep(&self, records: &[SessionRecord]) -> Result<KeepReport, ArchiveError> {
        let dir = self
            .dir()
            .ok_or_else(|| ArchiveError::new("no archive directory"))?;
        private::dir(dir).map_err(|e| ArchiveError::io("cannot create the archive", &e))?;
        let _lock = self.lock(dir)?;
        let mut run = Run {
            manifest: Manifest::load(dir).map_err(ArchiveError::new)?,
            copies: HashMap::new(),
            evicted: 0,
        };
        let now = now();
        let mut report = KeepReport {
            max_bytes: self.max_bytes,
            ..KeepReport::default()
        };
        let live: HashSet<(&str, &Path, &str)> = records
            .iter()
            .map(|r| (r.kind.as_str(), &*r.root, r.id.as_str()))
            .collect();
        let caches = crate::caches::Caches::default();
        let step = Step {
            dir,
            live: &live,
            now,
            caches: &caches,
        };
        let mut failure = None;
        for record in records.iter().filter(|r| r.host.is_none() && !r.archived) {
            match self.keep_one(&step, &mut run, record) {
                Ok(Outcome::Unchanged) => report.unchanged += 1,
                Ok(Outcome::Copied) => report.copied += 1,
                Ok(Outcome::Full) => report.not_kept += 1,
                Ok(Outcome::NoFile) => {
                    // Crush's project databases and Aider's histories
                    // live in project folders, outside the store's root:
                    // the archive's view, laid out below each root, has
                    // no place for them.
                    report.uncopyable += 1;
                    report.problems.push(format!(
                        "{} {}: not kept: its file is outside the store's folder {}",
                        record.kind,
                        record.id,
                        record.root.display()
                    ));
                }
                Err(Failure::Session(why)) => {
                    report.uncopyable += 1;
                    report
                        .problems
                        .push(format!("{} {}: {why}", record.kind, record.id));
                }
                Err(Failure::Archive(error)) => {
                    failure = Some(error);
                    break;
                }
            }
        }
        // What was kept before a failure is saved when it can be; when even
        // the manifest cannot be written, the one on disk still names only
        // blobs that are there.
        report.evicted = run.evicted;
        let manifest = run.manifest;
        let saved = manifest.save(dir);
        if let Some(error) = failure {
            return Err(error.kept_before(report.copied));
        }
        saved.map_err(|e| ArchiveError::io("cannot write the archive's manifest", &e))?;
        collect_garbage(dir, &manifest, &|e| {
            live.contains(&(e.kind.as_str(), e.root(), e.id.as_str()))
        });
        let (mut kept, mut archived_only) = (0, 0);
        for entry in manifest.entries.iter().filter(|e| !e.side) {
            match live.contains(&(entry.kind.as_str(), entry.root(), entry.id.as_str())) {
                true => kept += 1,
                false => archived_only += 1,
            }
        }
        (report.kept, report.archived_only) = (kept, archived_only);
        report.stored_bytes = manifest.stored();
        Ok(report)
    }

    /// Keep one session: its file, then the side files its reader reads
    /// for it ([`crate::Store::side_files`]).
    fn keep_one(
        &self,
        step: &Step<'_>,
        run: &mut Run,
        record: &SessionRecord,
    ) -> Result<Outcome, Failure> {
        let Some(main) = source_of(record) else {
            return Ok(Outcome::NoFile);
        };
        let outcome = self.keep_file(step, run, record, main, false)?;
        if matches!(outcome, Outcome::Full) {
            return Ok(outcome);
        }
        for side in record.kind.store().side_files(step.caches, record) {
            let Ok(rel) = side.strip_prefix(&*record.root) else {
                continue;
            };
            if side.is_file() {
                let file = (side.clone(), rel.to_path_buf());
                self.keep_file(step, run, record, file, true)?;
            }
        }
        Ok(outcome)
    }

    /// Keep one file of a session (`side`: one beside its log).
    fn keep_file(
        &self,
        step: &Step<'_>,
        run: &mut Run,
        record: &SessionRecord,
        (source, rel): (PathBuf, PathBuf),
        side: bool,
    ) -> Result<Outcome, Failure> {
        let (dir, now) = (step.dir, step.now);
        let Run {
            manifest,
            copies,
            evicted,
        } = run;
        let kind = record.kind.as_str();
        let stamp = Stamp::of(&source).ok_or(Failure::Session("cannot read its file".into()))?;
        let wal = sqlite::is_database(&source)
            .then(|| Stamp::of(&sqlite::side_file(&source, "-wal")))
            .flatten();
        let at = manifest
            .entries
            .iter()
            .position(|e| e.is(kind, &record.root, &rel, &record.id));
        if let Some(at) = at {
            let entry = &mut manifest.entries[at];
            if entry.stamp == stamp && entry.wal == wal && blobs::exists(dir, &entry.hash) {
                entry.seen = now;
                return Ok(Outcome::Unchanged);
            }
        }
        if !copies.contains_key(&source) {
            let compressed = compress(dir, &source)?;
            let copied = Copied {
                hash: compressed.hash.clone(),
                len: compressed.len,
                stored: compressed.stored,
                pending: (!blobs::exists(dir, &compressed.hash)).then_some(compressed),
            };
            copies.insert(source.clone(), copied);
        }
        let copied = copies.get_mut(&source).expect("inserted above");
        let known = manifest.entries.iter().any(|e| e.hash == copied.hash);
        if !known && copied.pending.is_none() && !blobs::exists(dir, &copied.hash) {
            return Err(Failure::Archive(ArchiveError::new(
                "a copy vanished from the archive while it was written",
            )));
        }
        if !known {
            // A new blob: make room within the bound first.
            let mine = at.map(|i| manifest.entries[i].hash.clone());
            if !self.make_room(manifest, step.live, copied.stored, mine.as_deref(), evicted) {
                return Ok(Outcome::Full);
            }
        }
        if let Some(pending) = copied.pending.take() {
            pending
                .store(dir)
                .map_err(|e| Failure::Archive(ArchiveError::io("cannot write a copy", &e)))?;
        }
        let entry = Entry {
            kind: kind.to_owned(),
            id: record.id.clone(),
            root: record.root.as_os_str().as_encoded_bytes().to_vec(),
            rel: rel.as_os_str().as_encoded_bytes().to_vec(),
            stamp,
            wal,
            hash: copied.hash.clone(),
            len: copied.len,
            stored: copied.stored,
            seen: now,
            side,
        };
        // The entry may have moved while room was made.
        match manifest
            .entries
            .iter()
            .position(|e| e.is(kind, &record.root, &rel, &record.id))
        {
            Some(i) => manifest.entries[i] = entry,
            None => manifest.entries.push(entry),
        }
        Ok(Outcome::Copied)
    }

    /// Drop copies of sessions still in their store, least recently seen
    /// first, until `extra` more bytes fit the bound (the copy `replacing`
    /// names is about to be replaced, so it counts as gone). Whether they
    /// fit.
    fn make_room(
        &self,
        manifest: &mut Manifest,
        live: &HashSet<(&str, &Path, &str)>,
        extra: u64,
        replacing: Option<&str>,
        evicted: &mut usize,
    ) -> bool {
        let fits = |m: &Manifest| {
            let shared =
                replacing.filter(|h| m.entries.iter().filter(|e| e.hash == *h).count() == 1);
            let freed = shared.map_or(0, |h| {
                m.entries
                    .iter()
                    .find(|e| e.hash == h)
                    .map_or(0, |e| e.stored)
            });
            m.stored() - freed + extra <= self.max_bytes
        };
        while !fits(manifest) {
            let droppable = manifest
                .entries
                .iter()
                .enumerate()
                .filter(|(_, e)| live.contains(&(e.kind.as_str(), e.root(), e.id.as_str())))
                .filter(|(_, e)| Some(e.hash.as_str()) != replacing)
                .min_by_key(|(_, e)| e.seen)
                .map(|(i, _)| i);
            match droppable {
                Some(i) => {
                    manifest.entries.remove(i);
                    *evicted += 1;
                }
                None => return false,
            }
        }
        true
    }
}

/// What every session of one run is kept with.
struct Step<'a> {
    /// The archive directory.
    dir: &'a Path,
    /// The sessions the listing found in their stores.
    live: &'a HashSet<(&'a str, &'a Path, &'a str)>,
    /// When the run started.
    now: i64,
    /// What kinds read side files through.
    caches: &'a crate::caches::Caches,
}

/// What a run has done so far.
struct Run {
    /// The manifest as it will be saved.
    manifest: Manifest,
    /// The copies made, by source file (a file shared by several sessions
    /// is copied once).
    copies: HashMap<PathBuf, Copied>,
    /// Copies dropped to stay within the bound.
    evicted: usize,
}

/// What keeping one session did.
enum Outcome {
    /// Its file had not changed since its last copy.
    Unchanged,
    /// It was copied.
    Copied,
    /// Its copy does not fit the size bound.
    Full,
    /// No file of its own to copy.
    NoFile,
}

/// Why keeping one session failed.
enum Failure {
    /// This session cannot be copied (its file went away, a database that
    /// cannot be read): said, and the run goes on.
    Session(String),
    /// The archive cannot be written: the run stops.
    Archive(ArchiveError),
}

/// Delete the blobs and the views `manifest` (saved) no longer names.
/// Never an error: what is left is taken next time.
fn collect_garbage(dir: &Path, manifest: &Manifest, live: &dyn Fn(&Entry) -> bool) {
    let named: HashSet<String> = manifest
        .entries
        .iter()
        .map(|e| format!("{}.zst", e.hash))
        .collect();
    if let Ok(list) = std::fs::read_dir(dir.join(blobs::DIR)) {
        for item in list.flatten() {
            let name = item.file_name();
            let name = name.to_string_lossy();
            // Temporaries of a run in progress start with a dot.
            if name.ends_with(".zst") && !named.contains(name.as_ref()) {
                let _ = std::fs::remove_file(item.path());
            }
        }
    }
    view::collect_garbage(dir, manifest, live);
}
