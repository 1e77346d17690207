//! The archive's copies: content-addressed blobs, `blobs/HASH.zst`, the
//! zstd-compressed bytes of a kept file named by the SHA-256 of those
//! bytes, so that a file kept twice (or shared by several sessions, as an
//! opencode database is) is stored once. A blob is written beside its
//! name and renamed into it, never changed once there, and checked
//! against its name whenever it is read back.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::private;

/// The folder of the blobs in the archive directory.
pub(super) const DIR: &str = "blobs";
/// zstd's level: the default's ratio, fast enough for a listing.
const LEVEL: i32 = 3;

/// The path of the blob of `hash` in the archive `dir`.
pub(super) fn path(dir: &Path, hash: &str) -> PathBuf {
    dir.join(DIR).join(format!("{hash}.zst"))
}

/// SHA-256 as lower-case hex.
fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// A copy compressed into a temporary file of the blob folder, not yet
/// in the archive ([`Compressed::store`]); dropped, it leaves nothing.
pub(super) struct Compressed {
    /// SHA-256 of the bytes (hex).
    pub hash: String,
    /// Their length, uncompressed.
    pub len: u64,
    /// The compressed length.
    pub stored: u64,
    temp: tempfile::NamedTempFile,
}

/// Why a copy could not be made.
#[derive(Debug)]
pub(super) enum CopyError {
    /// The session's file could not be read.
    Source(io::Error),
    /// The archive could not be written (a full disk).
    Archive(io::Error),
}

/// Compress everything `source` reads into a temporary blob of the
/// archive `dir`, hashing it on the way (one pass, memory bounded by the
/// buffers).
pub(super) fn compress(dir: &Path, source: &mut dyn Read) -> Result<Compressed, CopyError> {
    let folder = dir.join(DIR);
    let mut temp = private::dir(&folder)
        .and_then(|()| private::temp_in(&folder))
        .map_err(CopyError::Archive)?;
    let mut hasher = Sha256::new();
    let mut len = 0u64;
    {
        let mut encoder =
            zstd::Encoder::new(temp.as_file_mut(), LEVEL).map_err(CopyError::Archive)?;
        let mut buf = vec![0u8; 256 * 1024];
        loop {
            let n = match source.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(CopyError::Source(e)),
            };
            hasher.update(&buf[..n]);
            encoder.write_all(&buf[..n]).map_err(CopyError::Archive)?;
            len += n as u64;
        }
        encoder.finish().map_err(CopyError::Archive)?;
    }
    let stored = temp
        .as_file()
        .sync_data()
        .and_then(|()| temp.as_file().metadata())
        .map_err(CopyError::Archive)?
        .len();
    Ok(Compressed {
        hash: hex(&hasher.finalize()),
        len,
        stored,
        temp,
    })
}

/// Whether the archive `dir` holds the blob of `hash`.
pub(super) fn exists(dir: &Path, hash: &str) -> bool {
    path(dir, hash).is_file()
}

impl Compressed {
    /// Put the blob in place under its name (a blob already there is the
    /// same bytes and is kept).
    pub(super) fn store(self, dir: &Path) -> io::Result<()> {
        let target = path(dir, &self.hash);
        match self.temp.persist_noclobber(&target) {
            Ok(_) => Ok(()),
            Err(_) if target.is_file() => Ok(()),
            Err(e) => Err(e.error),
        }
    }
}

/// Write the bytes of the blob of `hash` to `out`, checking they are the
/// bytes it is named by. An error when the blob is missing, damaged or
/// holds other bytes.
pub(super) fn restore(dir: &Path, hash: &str, out: &mut dyn Write) -> io::Result<u64> {
    let file = std::fs::File::open(path(dir, hash))?;
    let mut decoder = zstd::Decoder::new(file)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 256 * 1024];
    let mut len = 0u64;
    loop {
        let n = match decoder.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buf[..n]);
        out.write_all(&buf[..n])?;
        len += n as u64;
    }
    if hex(&hasher.finalize()) != hash {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "the archived copy does not hold the bytes it was kept as",
        ));
    }
    Ok(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blob_is_named_by_its_bytes_stored_once_and_checked_when_read() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = b"{\"a\":1}\n".repeat(1000);
        let first = compress(dir.path(), &mut &bytes[..]).unwrap();
        let hash = first.hash.clone();
        assert_eq!(first.len, bytes.len() as u64);
        assert!(first.stored < first.len, "compressed");
        first.store(dir.path()).unwrap();
        let again = compress(dir.path(), &mut &bytes[..]).unwrap();
        assert_eq!(again.hash, hash);
        again.store(dir.path()).unwrap();
        let names = std::fs::read_dir(dir.path().join(DIR)).unwrap().count();
        assert_eq!(names, 1, "the same bytes are one blob, no temporary left");
        let mut out = Vec::new();
        restore(dir.path(), &hash, &mut out).unwrap();
        assert_eq!(out, bytes);
        // Another blob's bytes under this name are refused.
        let other = compress(dir.path(), &mut &b"other"[..]).unwrap();
        let other_hash = other.hash.clone();
        other.store(dir.path()).unwrap();
        std::fs::copy(path(dir.path(), &other_hash), path(dir.path(), &hash)).unwrap();
        let err = restore(dir.path(), &hash, &mut Vec::new()).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    }
}
