//! The title index's files: one shard per store root ([`Shard`]), its
//! entries, its on-disk form (sealed bitcode, with a head read alone to
//! prune the shards of gone roots) and the checks that tell a file that
//! only grew from one rewritten. Knows no store: [`super`] reads through
//! the `Store` trait and keeps what it found here.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::caches::lock;
use crate::index::sealed;
use crate::index::stamp::{Change, Stamp};

/// Version of the index file; another version is ignored and rebuilt
/// (4: postcard replaced bincode, and entries keep the last activity;
/// 5: bitcode replaced postcard, with a head for pruning).
pub(super) const VERSION: u32 = 5;
/// First bytes of an index file.
pub(super) const MAGIC: &[u8; 4] = b"SRTI";
/// Bytes before the end of the last scan compared to tell growth by
/// appending from a rewrite.
pub(super) const GUARD: u64 = 64;

/// What listing found in a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) enum Listed {
    /// A session: the record's own fields.
    Record {
        id: String,
        cwd: Option<String>,
        created_at: String,
    },
    /// Not a session, and why.
    Skipped { reason: String },
}

/// A title found by scanning a file up to `scanned`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Title {
    /// The latest title, when any.
    pub(super) title: Option<String>,
    /// Where the title's line starts.
    pub(super) offset: Option<u64>,
    /// Fingerprint of the title's other inputs (0 when it has none).
    #[serde(default)]
    pub(super) inputs: u64,
    /// Bytes of the file the scan covered (a line boundary: the file's
    /// length when it ended with a newline, else 0, so a torn last line is
    /// read again).
    pub(super) scanned: u64,
    /// The `GUARD` bytes before `scanned`, in hex, to recognise appending.
    pub(super) guard: String,
}

/// One file's entry: what listing and the title search found, each with
/// the stamp of the file it was found in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Entry {
    pub(super) kind: String,
    pub(super) path: PathBuf,
    pub(super) listed: Option<(Stamp, Listed)>,
    pub(super) title: Option<(Stamp, Title)>,
    /// A store's own fact about the file ([`TitleIndex::file_fact`](super::TitleIndex::file_fact)),
    /// encoded by [`sealed::encode`].
    pub(super) fact: Option<(Stamp, Vec<u8>)>,
    /// The session's last activity ([`Store::last_activity`](crate::store::Store::last_activity), Unix
    /// seconds), with the fingerprint of the title's other inputs (0 when
    /// it has none) it was read with.
    pub(super) activity: Option<(Stamp, u64, Option<i64>)>,
}

#[derive(Serialize, Deserialize)]
pub(super) struct IndexFile {
    pub(super) version: u32,
    pub(super) entries: Vec<Entry>,
}

/// A file's key in its root's shard: its absolute path (a relative store
/// path names different files from different directories).
pub(super) type Key = PathBuf;

/// The index of the files below one store root: one file in the cache
/// directory, so that a run reads only the entries of the roots it lists.
#[derive(Debug, Default)]
pub(super) struct Shard {
    /// Where it is kept.
    pub(super) file: PathBuf,
    /// Entries as loaded.
    /// Entries as loaded, each with whether this run's listing found the
    /// file unchanged (such an entry is kept as it is, not copied).
    pub(super) old: HashMap<Key, (Entry, AtomicBool)>,
    /// The kind of the root, for new entries.
    pub(super) kind: String,
    /// Entries of this run (files seen by listing or title reads).
    pub(super) fresh: Mutex<HashMap<Key, Entry>>,
    /// Whether anything differs from what was loaded.
    pub(super) dirty: AtomicBool,
    /// Whether this run listed the root (only then are files it did not
    /// see known to be gone).
    pub(super) listed: AtomicBool,
}

impl Shard {
    /// The shard kept in `file`; a missing, damaged or other-version file
    /// gives an empty shard (rebuilt when saved).
    pub(super) fn open(file: PathBuf, kind: &str) -> Shard {
        let old = std::fs::read(&file)
            .ok()
            .and_then(|bytes| decode(&bytes))
            .map(|index| {
                index
                    .entries
                    .into_iter()
                    .map(|e| (e.path.clone(), (e, AtomicBool::new(false))))
                    .collect()
            })
            .unwrap_or_default();
        Shard {
            file,
            old,
            kind: kind.to_owned(),
            ..Shard::default()
        }
    }

    /// Keep the loaded entry of `key`: it answered a read of this run (a
    /// title or last activity of a file unchanged since), so the file is
    /// there even where listing looked at another one (Cline lists by its
    /// manifest, titles by its messages file). Without this a listed root
    /// dropped such entries on save, and every other warm run read each
    /// session again.
    pub(super) fn keep(&self, key: &Path) {
        if let Some((_, seen)) = self.old.get(key) {
            seen.store(true, Ordering::Relaxed);
        }
    }

    /// This run's entry of `key`, created from the loaded one.
    pub(super) fn fresh_entry<'a>(
        &self,
        fresh: &'a mut HashMap<Key, Entry>,
        key: Key,
    ) -> &'a mut Entry {
        fresh.entry(key).or_insert_with_key(|key| {
            self.old
                .get(key)
                .map(|(e, _)| e.clone())
                .unwrap_or_else(|| Entry {
                    kind: self.kind.clone(),
                    path: key.clone(),
                    listed: None,
                    title: None,
                    fact: None,
                    activity: None,
                })
        })
    }

    /// Write this run's entries, replacing the file atomically, when
    /// something changed; a failure is not an error (it is only a cache).
    /// Whether the file was written.
    pub(super) fn save(&self) -> bool {
        let fresh = lock(&self.fresh);
        let listed = self.listed.load(Ordering::Relaxed);
        let kept = |(k, (_, seen)): (&Key, &(Entry, AtomicBool))| {
            !fresh.contains_key(k) && (!listed || seen.load(Ordering::Relaxed))
        };
        let vanished = listed
            && self
                .old
                .iter()
                .any(|(k, (_, seen))| !fresh.contains_key(k) && !seen.load(Ordering::Relaxed));
        if !self.dirty.load(Ordering::Relaxed) && !vanished {
            return false;
        }
        // Without a listing, entries not seen this run are kept.
        let unchanged = self.old.iter().filter(|&kv| kept(kv)).map(|(_, (e, _))| e);
        let mut entries: Vec<Entry> = fresh.values().chain(unchanged).cloned().collect();
        entries.sort_by(|a, b| (&a.kind, &a.path).cmp(&(&b.kind, &b.path)));
        let index = IndexFile {
            version: VERSION,
            entries,
        };
        let Some(dir) = self.file.parent() else {
            return false;
        };
        // Private: titles are session text.
        if crate::private::dir(dir).is_err() {
            return false;
        }
        let Ok(mut temp) = crate::private::temp_in(dir) else {
            return false;
        };
        let Some(bytes) = encode(&index) else {
            return false;
        };
        let written =
            temp.as_file_mut().write_all(&bytes).is_ok() && temp.persist(&self.file).is_ok();
        if written {
            self.remove_older_versions();
        }
        written
    }

    /// Remove this root's shards of earlier index versions (`.json` up to
    /// version 1), which no run reads again: the cache stays bounded
    /// across upgrades.
    pub(super) fn remove_older_versions(&self) {
        let Some(name) = self.file.file_name().and_then(|n| n.to_str()) else {
            return;
        };
        let current = format!("titles-v{VERSION}-");
        let Some(stem) = name
            .strip_prefix(&current)
            .and_then(|rest| rest.strip_suffix(".bin"))
        else {
            return;
        };
        for version in 1..VERSION {
            for ext in ["json", "bin"] {
                let old = self
                    .file
                    .with_file_name(format!("titles-v{version}-{stem}.{ext}"));
                let _ = std::fs::remove_file(old);
            }
        }
    }
}

/// The key of a file: its kind and absolute path (a relative store path
/// names different files from different directories).
pub(super) fn key(path: &Path) -> Cow<'_, Path> {
    if path.is_absolute() {
        return Cow::Borrowed(path);
    }
    Cow::Owned(std::path::absolute(path).unwrap_or_else(|_| path.to_owned()))
}

/// The file name of the shard of `root` (absolute) of `kind`: the root is
/// recorded in it as a hash of its path.
pub(super) fn shard_name(kind: &str, root: &Path) -> String {
    let mut hasher = std::hash::DefaultHasher::new();
    std::hash::Hash::hash(root, &mut hasher);
    let hash = std::hash::Hasher::finish(&hasher);
    format!("titles-v{VERSION}-{kind}-{hash:016x}.bin")
}

/// Bytes of a shard read to learn its root: the header and the start of
/// the payload, which holds the first entry's kind and path.
pub(super) const HEAD_BYTES: u64 = 12 + 16 * 1024;

/// Remove the shards in `dir` whose store root no longer exists, so that
/// roots that went away (a deleted project, a temporary store) do not
/// keep their index forever.
///
/// A shard does not store its root, but its name holds the hash of it
/// ([`shard_name`]) and every entry lies below it: the root is the
/// ancestor of the first entry's path whose hash is in the name. Only
/// that start of the file is read, so a run costs one directory read and
/// a small read per shard. A shard is removed only when its root is
/// certainly gone (`NotFound`); one whose root cannot be recovered (no
/// entries, damage, another version's name) or cannot be checked is kept.
/// Safe beside another run writing: shards are replaced by rename, so
/// this reads whole versions, and a root that exists keeps its shard.
pub(super) fn prune_gone_roots(dir: &Path) {
    let Ok(listing) = std::fs::read_dir(dir) else {
        return;
    };
    let current = format!("titles-v{VERSION}-");
    for item in listing.flatten() {
        let name = item.file_name();
        let Some(name) = name.to_str().filter(|n| n.starts_with(&current)) else {
            continue;
        };
        let mut bytes = Vec::new();
        let read = std::fs::File::open(item.path())
            .and_then(|file| file.take(HEAD_BYTES).read_to_end(&mut bytes));
        let head: Option<ShardHead> = read
            .ok()
            .and_then(|_| sealed::peek_head(MAGIC, VERSION, &bytes));
        let Some(head) = head.filter(|h| !h.kind.is_empty()) else {
            continue;
        };
        let root = head
            .path
            .ancestors()
            .find(|root| shard_name(&head.kind, root) == name);
        let gone = root.is_some_and(|root| {
            std::fs::symlink_metadata(root).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
        });
        if gone {
            let _ = std::fs::remove_file(item.path());
        }
    }
}

/// The bytes of an index file holding `index` (see the module docs);
/// `None` when it cannot be encoded (a path that is not UTF-8).
pub(super) fn encode(index: &IndexFile) -> Option<Vec<u8>> {
    let head = index
        .entries
        .first()
        .map(|first| ShardHead {
            kind: first.kind.clone(),
            path: first.path.clone(),
        })
        .unwrap_or_default();
    sealed::seal_with_head(MAGIC, VERSION, &head, index)
}

/// What a shard says of itself before its entries: the kind and path of
/// its first entry (none when it has no entries), from which pruning
/// recovers the store root.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct ShardHead {
    pub(super) kind: String,
    pub(super) path: PathBuf,
}

/// The index held in `bytes`; `None` when it is another version, damaged
/// or truncated (then it is rebuilt).
pub(super) fn decode(bytes: &[u8]) -> Option<IndexFile> {
    let index: IndexFile = sealed::open(MAGIC, VERSION, bytes)?;
    (index.version == VERSION).then_some(index)
}

pub(super) fn change_of(old: Option<&Entry>, stamp: Stamp, path: &Path) -> Change {
    match old {
        None => Change::New,
        Some(o) => match &o.title {
            Some((was, t)) if appended(was, &stamp, t, path) => Change::Grown { from: t.scanned },
            _ => Change::Rewritten,
        },
    }
}

/// Whether the file went from `was` to `now` by appending only: same inode,
/// not shorter than the earlier scan, and the bytes before the end of that
/// scan as they were.
pub(super) fn appended(was: &Stamp, now: &Stamp, title: &Title, path: &Path) -> bool {
    was.inode == now.inode
        && title.scanned > 0
        && now.len >= was.len
        && now.len >= title.scanned
        && read_guard(path, title.scanned) == title.guard
}

/// Where a scan of a file of `len` bytes can resume: `len` when the file
/// ends with a newline, else 0 (a torn last line is read again whole).
pub(super) fn scan_end(path: &Path, len: u64) -> u64 {
    if len == 0 {
        return 0;
    }
    let mut last = [0u8];
    let ends_with_newline = std::fs::File::open(path)
        .and_then(|mut f| {
            f.seek(SeekFrom::Start(len - 1))?;
            f.read_exact(&mut last)
        })
        .is_ok()
        && last[0] == b'\n';
    if ends_with_newline {
        len
    } else {
        0
    }
}

/// The up to [`GUARD`] bytes before `end`, in hex (empty when unreadable).
pub(super) fn read_guard(path: &Path, end: u64) -> String {
    let start = end.saturating_sub(GUARD);
    let mut buf = vec![0u8; (end - start) as usize];
    let read = std::fs::File::open(path).and_then(|mut f| {
        f.seek(SeekFrom::Start(start))?;
        f.read_exact(&mut buf)
    });
    if read.is_err() {
        return String::new();
    }
    buf.iter().map(|b| format!("{b:02x}")).collect()
}
