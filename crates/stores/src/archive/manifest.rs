//! The archive's manifest: which sessions are kept, from which file of
//! which store root, as which copy (the hash of its bytes), and the stamp
//! the file had when it was copied, so that the next `keep` copies only
//! what changed. One sealed file (`crate::index::sealed`: kind, format
//! version, CRC-32), replaced atomically; unlike a cache it is never
//! rebuilt from scratch when it cannot be read — the archive refuses to
//! write over it, so a damaged manifest loses nothing more.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::index::sealed;
use crate::private;

/// The sealed file's kind tag.
const SEAL: &[u8; 4] = b"SRAR";
/// The manifest's format version.
const FORMAT: u32 = 1;
/// The manifest's file name in the archive directory.
pub(super) const FILE: &str = "manifest";

/// The version of a file a copy was made from: its length and
/// modification time (seconds, nanoseconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Stamp {
    /// The file's length.
    pub len: u64,
    /// Its modification time, seconds.
    pub secs: i64,
    /// Its modification time, nanoseconds within the second.
    pub nanos: i64,
}

impl Stamp {
    /// The stamp of the file at `path`, `None` when it cannot be read.
    pub(super) fn of(path: &Path) -> Option<Stamp> {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(path).ok()?;
        Some(Stamp {
            len: meta.len(),
            secs: meta.mtime(),
            nanos: meta.mtime_nsec(),
        })
    }
}

/// One kept session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Entry {
    /// Its kind's name (`claude`, `codex`, …).
    pub kind: String,
    /// Its session id.
    pub id: String,
    /// The store root it was listed under (the path's bytes).
    pub root: Vec<u8>,
    /// The kept file below that root (the path's bytes, relative; empty
    /// when the root is the file itself, as an opencode database can be).
    pub rel: Vec<u8>,
    /// The file's stamp when it was copied.
    pub stamp: Stamp,
    /// The stamp of its SQLite `-wal` when it was copied (a database
    /// changes through its WAL before its main file does).
    pub wal: Option<Stamp>,
    /// SHA-256 of the copy's bytes (hex): the name of its blob.
    pub hash: String,
    /// The copy's length, uncompressed.
    pub len: u64,
    /// The blob's length (compressed).
    pub stored: u64,
    /// When a listing last saw the session in its store (Unix seconds).
    pub seen: i64,
    /// Whether the file is one its reader reads beside the session's log
    /// (a Copilot `workspace.yaml`), not the log.
    pub side: bool,
}

impl Entry {
    /// The store root it came from.
    pub(super) fn root(&self) -> &Path {
        Path::new(OsStr::from_bytes(&self.root))
    }

    /// The kept file below the root, `None` when the manifest's path
    /// leaves it (`..`, an absolute path): never followed.
    pub(super) fn rel(&self) -> Option<PathBuf> {
        let rel = Path::new(OsStr::from_bytes(&self.rel));
        rel.components()
            .all(|c| matches!(c, Component::Normal(_)))
            .then(|| rel.to_path_buf())
    }

    /// Whether it is the copy of session `id` of `kind` kept from file
    /// `rel` under `root` (two files may hold sessions of one id).
    pub(super) fn is(&self, kind: &str, root: &Path, rel: &Path, id: &str) -> bool {
        self.kind == kind
            && self.id == id
            && self.root() == root
            && self.rel.as_slice() == rel.as_os_str().as_encoded_bytes()
    }
}

/// Every kept session.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Manifest {
    /// The kept sessions, in the order they were first kept.
    pub entries: Vec<Entry>,
}

impl Manifest {
    /// The manifest of the archive in `dir`: empty when there is none yet,
    /// an error (said for a person) when one is there but cannot be read.
    pub(super) fn load(dir: &Path) -> Result<Manifest, String> {
        let path = dir.join(FILE);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Manifest::default()),
            Err(e) => return Err(format!("cannot read the archive's manifest: {e}")),
        };
        sealed::open(SEAL, FORMAT, &bytes).ok_or_else(|| {
            "the archive's manifest is damaged or of another version; it was left as it is \
             (`session-ref keep --purge` removes the archive)"
                .to_owned()
        })
    }

    /// Write the manifest into `dir`, atomically.
    pub(super) fn save(&self, dir: &Path) -> std::io::Result<()> {
        let bytes = sealed::seal(SEAL, FORMAT, self)
            .ok_or_else(|| std::io::Error::other("the manifest cannot be encoded"))?;
        private::write_atomic(&dir.join(FILE), &bytes)
    }

    /// The bytes the blobs take (each blob counted once).
    pub(super) fn stored(&self) -> u64 {
        let mut seen = std::collections::HashSet::new();
        self.entries
            .iter()
            .filter(|e| seen.insert(e.hash.as_str()))
            .map(|e| e.stored)
            .sum()
    }
}
