//! What identifies one version of a file ([`Stamp`]), how a file changed
//! since an index last saw it ([`Change`]) and the other files a title
//! depends on ([`TitleInputs`], fingerprinted by their stamps): the plain
//! data the [`Store`](crate::store::Store) trait names, below it and the
//! indexes that read through it ([`super::title`], [`super::journal`]).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// A file modified less than this long before it was looked at may still
/// change within the same timestamp tick: such a stamp is not trusted to
/// identify its contents, and the file is read again next time.
const RACY_NS: i128 = 2_000_000_000;

/// What identifies one version of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    /// Length in bytes.
    pub len: u64,
    /// Modification time, nanoseconds since the epoch (0 when unknown).
    pub mtime_ns: i128,
    /// Inode number (0 where there is none).
    pub inode: u64,
}

impl Stamp {
    /// The stamp of `path` now, `None` when it cannot be read or was
    /// modified too recently to be told apart from its next version.
    pub fn of(path: &Path) -> Option<Stamp> {
        Stamp::read(path).filter(|stamp| !stamp.racy())
    }

    /// The stamp of `path` now, however recently it was modified (`None`
    /// when it cannot be read).
    pub fn current(path: &Path) -> Option<Stamp> {
        Stamp::read(path)
    }

    /// The modification time, `None` when unknown.
    pub fn modified(&self) -> Option<std::time::SystemTime> {
        let ns = u64::try_from(self.mtime_ns).ok().filter(|&ns| ns > 0)?;
        Some(std::time::UNIX_EPOCH + std::time::Duration::from_nanos(ns))
    }

    /// Whether the file was modified too recently for this stamp to
    /// identify its contents.
    pub(crate) fn racy(&self) -> bool {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i128);
        now - self.mtime_ns < RACY_NS
    }

    /// The stamp of `path` now, racy or not (`None` when it cannot be read).
    pub(crate) fn read(path: &Path) -> Option<Stamp> {
        let meta = std::fs::metadata(path).ok()?;
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i128);
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(&meta);
        #[cfg(not(unix))]
        let inode = 0;
        Some(Stamp {
            len: meta.len(),
            mtime_ns,
            inode,
        })
    }
}

/// The other files a title depends on (see
/// [`Store::title_inputs`](crate::store::Store::title_inputs)).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TitleInputs {
    /// These files (absent ones count as absent).
    Files(Vec<PathBuf>),
    /// Every file directly in this folder.
    Folder(PathBuf),
}

/// How a file changed since the index last saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// Not in the index before.
    New,
    /// Only appended to: bytes before `from` are as they were.
    Grown {
        /// Offset up to which the earlier scan read.
        from: u64,
    },
    /// Changed otherwise: read again whole.
    Rewritten,
}

/// A fingerprint of the stamps of `inputs`; `None` when one of them is
/// too recent to trust.
pub(crate) fn fingerprint_of(inputs: &TitleInputs) -> Option<u64> {
    let files: Vec<PathBuf> = match inputs {
        TitleInputs::Files(files) => files.clone(),
        TitleInputs::Folder(dir) => {
            let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
                .ok()?
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .map(|e| e.path())
                .collect();
            files.sort();
            files
        }
    };
    let mut hasher = std::hash::DefaultHasher::new();
    for file in &files {
        std::hash::Hash::hash(file, &mut hasher);
        match Stamp::read(file) {
            Some(stamp) if !stamp.racy() => {
                std::hash::Hash::hash(&(stamp.len, stamp.mtime_ns, stamp.inode), &mut hasher);
            }
            Some(_) => return None,
            None => std::hash::Hash::hash(&0u8, &mut hasher),
        }
    }
    // 0 means "no inputs" in an entry.
    Some(std::hash::Hasher::finish(&hasher).max(1))
}
