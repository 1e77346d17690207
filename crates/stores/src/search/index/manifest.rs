//! The manifest of the search index: which version of each log was read,
//! where its journal is in the data file, and the record a listing takes
//! from it (see the parent module's docs for the layout).

use std::fs::{self, File};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::index::sealed;
use crate::private;

/// The manifest format; another value is rebuilt (4: postcard replaced
/// bincode, in the manifest and in the resume points it holds; 5: bitcode
/// replaced postcard).
pub(super) const FORMAT: u32 = 5;
/// First bytes of a manifest.
pub(super) const MAGIC: &[u8; 4] = b"SRSX";

pub(super) const MANIFEST: &str = "manifest.bin";
/// Manifests of earlier formats, removed when the current one is written.
pub(super) const OLD_MANIFESTS: &[&str] = &["manifest.json"];
/// The data file of generation `generation` (a rewrite starts a new one).
pub(super) fn data_name(generation: u64) -> String {
    format!("data-{generation}.bin")
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
pub(super) struct Segment {
    pub(super) offset: u64,
    pub(super) bytes: u64,
}

/// Where the fold of an indexed log can go on when the log grows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Resume {
    /// The line start the fold stopped at.
    pub(super) offset: u64,
    /// Lines before it.
    pub(super) lines: u64,
    /// The store's fold state there (in the data file: read only to resume).
    pub(super) state: Segment,
    /// CRC-32 of the log's first [`CHECKED_BYTES`] bytes (at most `offset`).
    pub(super) head_crc: u32,
    /// CRC-32 of the [`CHECKED_BYTES`] bytes before `offset`.
    pub(super) tail_crc: u32,
}

/// One indexed session version: its log, where its journal is, and its
/// record, so that listing through the index opens no unchanged log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Entry {
    pub(super) path: PathBuf,
    pub(super) kind: String,
    pub(super) stamp: Stamp,
    /// The journal ([`journal::encode`]) in pieces, in log order: the
    /// whole log's first, then one per append read since.
    pub(super) segments: Vec<Segment>,
    /// The journal stream that holds the conversation.
    pub(super) chosen: u8,
    pub(super) resume: Option<Resume>,
    pub(super) id: String,
    pub(super) cwd: Option<String>,
    pub(super) created_at: String,
}

impl Entry {
    /// Data bytes this entry keeps alive.
    pub(super) fn live_bytes(&self) -> u64 {
        self.segments.iter().map(|s| s.bytes).sum::<u64>()
            + self.resume.as_ref().map_or(0, |r| r.state.bytes)
    }
}

/// Bytes of a log checked on each side of a resume point's history (its
/// head and the bytes just before the point) before a fold goes on from it.
pub(super) const CHECKED_BYTES: u64 = 4096;

/// Journal pieces an entry may have; an append that would make more
/// copies them into one (from the index, not the log).
pub(super) const MAX_SEGMENTS: usize = 16;

/// CRC-32 of the bytes of `path` from `from` to `to`.
pub(super) fn crc_of(file: &File, from: u64, to: u64) -> io::Result<u32> {
    let mut bytes = vec![0; usize::try_from(to - from).unwrap_or(0)];
    file.read_exact_at(&mut bytes, from)?;
    Ok(crc32fast::hash(&bytes))
}

/// The checksums [`Resume`] keeps for a fold stopped at `offset` of `path`.
pub(super) fn resume_crcs(path: &Path, offset: u64) -> io::Result<(u32, u32)> {
    let file = File::open(path)?;
    Ok((
        crc_of(&file, 0, offset.min(CHECKED_BYTES))?,
        crc_of(&file, offset.saturating_sub(CHECKED_BYTES), offset)?,
    ))
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct Manifest {
    /// Which data file the entries point into (`data-N.bin`).
    pub(super) generation: u64,
    /// Committed length of the data file.
    pub(super) data_len: u64,
    /// Blob bytes still referenced.
    pub(super) live: u64,
    /// Sorted by path bytes, one per path.
    pub(super) entries: Vec<Entry>,
}

impl Manifest {
    /// The entry of `path`, by binary search.
    pub(super) fn entry(&self, path: &Path) -> Option<&Entry> {
        let key = path.as_os_str().as_encoded_bytes();
        self.entries
            .binary_search_by(|e| e.path.as_os_str().as_encoded_bytes().cmp(key))
            .ok()
            .map(|i| &self.entries[i])
    }

    /// The entry of each of `paths` (sorted as [`walk_files`] sorts), by
    /// one merge of the two sorted lists: paths below one root are
    /// contiguous in the manifest's order.
    pub(super) fn entries_for(&self, paths: &[PathBuf]) -> Vec<Option<&Entry>> {
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

    pub(super) fn sort(&mut self) {
        self.entries.sort_by(|a, b| {
            a.path
                .as_os_str()
                .as_encoded_bytes()
                .cmp(b.path.as_os_str().as_encoded_bytes())
        });
    }
}

/// The bytes of `manifest` in a file (see the module docs).
pub(super) fn encode_manifest(manifest: &Manifest) -> io::Result<Vec<u8>> {
    sealed::seal(MAGIC, FORMAT, manifest)
        .ok_or_else(|| io::Error::other("the search manifest cannot be encoded"))
}

/// The manifest in `bytes`; `None` when it is another format, damaged or
/// truncated (then the index is rebuilt).
pub(super) fn decode_manifest(bytes: &[u8]) -> Option<Manifest> {
    let mut manifest: Manifest = sealed::open(MAGIC, FORMAT, bytes)?;
    manifest.sort();
    manifest.entries.dedup_by(|a, b| a.path == b.path);
    Some(manifest)
}

/// Compare paths as [`walk_files`] orders them.
pub(super) fn path_order(a: &Path, b: &Path) -> std::cmp::Ordering {
    a.as_os_str()
        .as_encoded_bytes()
        .cmp(b.as_os_str().as_encoded_bytes())
}

pub(super) fn write_manifest(dir: &Path, manifest: &Manifest) -> io::Result<()> {
    let bytes = encode_manifest(manifest)?;
    private::write_atomic(&dir.join(MANIFEST), &bytes)
}
