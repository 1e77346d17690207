//! The archive: session-ref's own copy of the sessions it lists
//! (`session-ref keep`, or every listing with a `[keep]` entry in the
//! config file), so that a session its agent later deletes stays listed,
//! marked archived, and a mention of it keeps resolving to the same
//! snapshot.
//!
//! The archive is a store like the others: an archived session is read
//! by its kind's own reader, from its copy decompressed at the path it
//! had below its root ([`view`]); nothing of the agent's store is ever
//! written. A listing ([`crate::catalog::scan`]) adds, after the stores, every
//! archived session whose root the run reads and whose kind and id the
//! stores no longer list (a session in both is listed once, the live one).
//!
//! In the archive directory (`$XDG_DATA_HOME/session-ref/archive`, else
//! `~/.local/share/session-ref/archive`; [`default_dir`]), all 0700
//! folders and 0600 files ([`crate::private`]):
//!
//! | path | holds |
//! |---|---|
//! | `manifest` | the kept sessions: kind, id, root, file, the stamp it had when copied, the hash of the copy ([`manifest`]) |
//! | `blobs/HASH.zst` | each distinct copy once, zstd-compressed, named by the SHA-256 of its bytes ([`blobs`]) |
//! | `view/KIND/KEY/…` | archived sessions decompressed for their readers, written when first read ([`view`]) |
//! | `lock` | the lock one `keep` at a time holds |
//!
//! What is copied and when: [`keep`]. The size bound counts the blobs
//! (compressed bytes); the views are rewritten from them at will.

mod blobs;
mod keep;
mod manifest;
mod view;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::caches::{lock, Caches};
use crate::model::StoreKind;
use crate::registry::kind_by_name;
use crate::roots::StoreRoots;
use crate::store::ScanEvent;
use crate::store::{env_or_home, Env};
use manifest::Manifest;

/// The size bound when none is set: 1 GiB of compressed copies.
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;

/// The archive directory of the environment: `$XDG_DATA_HOME/session-ref/archive`,
/// else `~/.local/share/session-ref/archive`. `None` without a home.
pub fn default_dir(env: Env<'_>, home: Option<&Path>) -> Option<PathBuf> {
    env_or_home(
        env,
        home,
        "XDG_DATA_HOME",
        &["session-ref", "archive"],
        &[".local", "share", "session-ref", "archive"],
    )
    .into_iter()
    .next()
}

/// The archive of one run (kept in its [`Caches`]); the default has no
/// directory: nothing is archived or listed from an archive.
#[derive(Debug)]
pub struct Archive {
    dir: Option<PathBuf>,
    auto: bool,
    max_bytes: u64,
    problems: Mutex<Vec<String>>,
}

impl Default for Archive {
    fn default() -> Self {
        Archive {
            dir: None,
            auto: false,
            max_bytes: DEFAULT_MAX_BYTES,
            problems: Mutex::default(),
        }
    }
}

/// Why the archive could not be written or read, said for a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchiveError {
    /// What went wrong.
    pub message: String,
}

impl std::fmt::Display for ArchiveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ArchiveError {}

impl ArchiveError {
    fn new(message: impl Into<String>) -> Self {
        ArchiveError {
            message: message.into(),
        }
    }

    /// `what` failed with `error`; a full disk said as such.
    fn io(what: &str, error: &std::io::Error) -> Self {
        let why = match error.raw_os_error() {
            Some(libc::ENOSPC) | Some(libc::EDQUOT) => "the disk is full".to_owned(),
            _ => error.to_string(),
        };
        ArchiveError::new(format!("{what}: {why}"))
    }

    /// This error, stopping a run that had copied `copied` sessions.
    fn kept_before(self, copied: usize) -> Self {
        let sessions = if copied == 1 { "session" } else { "sessions" };
        ArchiveError::new(format!(
            "{}; nothing archived before was lost ({copied} {sessions} copied in this run before it)",
            self.message
        ))
    }
}

/// What one [`Archive::keep`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeepReport {
    /// Listed sessions the archive holds a copy of now.
    pub kept: usize,
    /// Of those, copied in this run (new, or changed since their last copy).
    pub copied: usize,
    /// Of those, unchanged since their last copy (not copied again).
    pub unchanged: usize,
    /// Listed sessions not kept: their copy would pass the size bound.
    pub not_kept: usize,
    /// Listed sessions that could not be copied (no file of their own, a
    /// database that cannot be read); the reasons are in `problems`.
    pub uncopyable: usize,
    /// Copies of sessions still in their store dropped to make room.
    pub evicted: usize,
    /// Sessions the archive alone holds (their store no longer lists them).
    pub archived_only: usize,
    /// Bytes the archive's copies take (compressed).
    pub stored_bytes: u64,
    /// The size bound.
    pub max_bytes: u64,
    /// Why sessions could not be copied, one line each.
    pub problems: Vec<String>,
}

impl Archive {
    /// The archive in `dir`, read when listing; kept only by
    /// [`Archive::keep`] (see [`Archive::with_auto`]).
    pub fn new(dir: PathBuf) -> Self {
        Archive {
            dir: Some(dir),
            ..Archive::default()
        }
    }

    /// Keeping with every listing ([`crate::catalog::scan`]) when `auto`.
    pub fn with_auto(mut self, auto: bool) -> Self {
        self.auto = auto;
        self
    }

    /// Bounding the copies to `max_bytes` (compressed).
    pub fn with_max_bytes(mut self, max_bytes: u64) -> Self {
        self.max_bytes = max_bytes;
        self
    }

    /// The archive directory, `None` when there is no archive.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Whether every listing keeps what it lists (never without a
    /// directory).
    pub fn auto(&self) -> bool {
        self.auto && self.dir.is_some()
    }

    /// Whether there is an archive to list (its manifest is there).
    pub fn exists(&self) -> bool {
        self.dir()
            .is_some_and(|dir| dir.join(manifest::FILE).is_file())
    }

    /// What went wrong in this run's automatic keeps and archive listings
    /// (nothing there stops a listing), taken: the front-end tells the
    /// person.
    pub fn take_problems(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.problems))
    }

    /// Record a problem for [`Archive::take_problems`].
    pub(crate) fn note_problem(&self, problem: String) {
        lock(&self.problems).push(problem);
    }

    /// The lock one keep (or purge) at a time holds, across processes.
    fn lock(&self, dir: &Path) -> Result<std::fs::File, ArchiveError> {
        let path = dir.join("lock");
        let file = crate::private::open(
            std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true),
            &path,
        )
        .map_err(|e| ArchiveError::io("cannot lock the archive", &e))?;
        file.lock()
            .map_err(|e| ArchiveError::io("cannot lock the archive", &e))?;
        Ok(file)
    }

    /// Remove the archive whole (its copies, views and manifest). Whether
    /// there was one. A directory holding anything the archive does not
    /// write is refused, never emptied.
    pub fn purge(&self) -> Result<bool, ArchiveError> {
        let dir = self
            .dir()
            .ok_or_else(|| ArchiveError::new("no archive directory"))?;
        let list = match std::fs::read_dir(dir) {
            Ok(list) => list,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(ArchiveError::io("cannot read the archive", &e)),
        };
        let ours = [manifest::FILE, blobs::DIR, view::DIR, "lock"];
        for item in list.flatten() {
            let name = item.file_name();
            if !ours.iter().any(|o| name == *o) {
                return Err(ArchiveError::new(format!(
                    "{} holds {}, which the archive never writes: not removed",
                    session_ref_core::escape::path_for_person(dir),
                    session_ref_core::escape::path_for_person(Path::new(&name)),
                )));
            }
        }
        let _lock = self.lock(dir)?;
        std::fs::remove_dir_all(dir)
            .map_err(|e| ArchiveError::io("cannot remove the archive", &e))?;
        Ok(true)
    }

    /// Report through `sink` every archived session whose root `roots`
    /// holds and whose kind and id `live` (what the stores listed) does
    /// not, read by its kind's reader from its view, marked
    /// [`crate::model::SessionRecord::archived`]. A copy that cannot be
    /// read is one unreadable file, at the session's original path.
    pub fn list(
        &self,
        caches: &Caches,
        roots: &StoreRoots,
        live: &HashSet<(StoreKind, String)>,
        sink: &(dyn Fn(ScanEvent) + Sync),
    ) {
        let Some(dir) = self.dir().filter(|_| self.exists()) else {
            return;
        };
        let manifest = match Manifest::load(dir) {
            Ok(manifest) => manifest,
            Err(why) => {
                return sink(ScanEvent::Unreadable {
                    path: dir.join(manifest::FILE),
                    reason: why,
                });
            }
        };
        let archived_only = manifest.entries.iter().filter(|entry| {
            kind_by_name(&entry.kind).is_some_and(|kind| {
                roots.of(kind).any(|r| r.as_path() == entry.root())
                    && !live.contains(&(kind, entry.id.clone()))
            })
        });
        for group in view::groups(archived_only) {
            let Some(kind) = kind_by_name(group.kind) else {
                continue;
            };
            let mut wanted = Vec::new();
            for entry in &group.entries {
                match group.materialize(dir, entry) {
                    Ok(()) => wanted.push(*entry),
                    Err(reason) => sink(ScanEvent::Unreadable {
                        path: original(entry),
                        reason,
                    }),
                }
            }
            let found = Mutex::new(HashSet::new());
            let root: Arc<Path> = Arc::from(group.root(dir));
            kind.store().scan(kind, caches, &root, &|event| {
                if let ScanEvent::Record(mut record) = event {
                    if wanted.iter().any(|e| e.id == record.id) {
                        record.archived = true;
                        lock(&found).insert(record.id.clone());
                        sink(ScanEvent::Record(record));
                    }
                }
            });
            let found = found.into_inner().unwrap_or_else(|e| e.into_inner());
            for entry in wanted.iter().filter(|e| !e.side && !found.contains(&e.id)) {
                sink(ScanEvent::Unreadable {
                    path: original(entry),
                    reason: "its archived copy does not list it".to_owned(),
                });
            }
        }
    }
}

/// Where an archived session's file was in its store.
fn original(entry: &manifest::Entry) -> PathBuf {
    entry
        .rel()
        .map_or_else(|| entry.root().to_owned(), |rel| entry.root().join(rel))
}

#[cfg(test)]
mod tests;
