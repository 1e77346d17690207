//! Reading archived sessions: their copies decompressed into the
//! archive's private `view/KIND/ROOT-N/` folders, each file at the path it
//! had below its store root, so that the kind's own reader lists and
//! folds them as it would the originals (a Claude Code transcript keeps
//! its project folder, a Codex rollout its dated folders and the rollout
//! it was forked from, an opencode database its file name).
//!
//! The archived sessions of one root share a view (`N` = 0), so that what
//! a reader finds beside a session (a fork's parent) is there too; copies
//! of one file at different times (an opencode database that lost one
//! session, then another) go to views of their own (`N` = 1, 2, …). A
//! view file carries its original's modification time, and is written
//! again whenever its length or time is not its copy's.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::blobs;
use super::manifest::{Entry, Manifest, Stamp};
use crate::private;

/// The folder of the views in the archive directory.
pub(super) const DIR: &str = "view";

/// Archived sessions of one root that one view holds.
pub(super) struct Group<'a> {
    /// The view's folder below `view/KIND/`.
    name: String,
    /// Their kind's name.
    pub kind: &'a str,
    /// Their sessions.
    pub entries: Vec<&'a Entry>,
}

/// `entries` (of any roots) in views: per kind and root, in the order
/// given, each in the first view where no other copy holds its path.
pub(super) fn groups<'a>(entries: impl IntoIterator<Item = &'a Entry>) -> Vec<Group<'a>> {
    let mut groups: Vec<(Vec<u8>, usize, Group<'a>)> = Vec::new();
    for entry in entries {
        let root_key = root_key(entry);
        let clash = |group: &Group<'_>| {
            group
                .entries
                .iter()
                .any(|e| e.rel == entry.rel && e.hash != entry.hash)
        };
        let fits = groups
            .iter()
            .position(|(key, _, g)| *key == root_key && !clash(g));
        match fits {
            Some(i) => groups[i].2.entries.push(entry),
            None => {
                let n = groups.iter().filter(|(key, _, _)| *key == root_key).count();
                let name = format!("{}-{n}", hex(&root_key));
                let group = Group {
                    name,
                    kind: &entry.kind,
                    entries: vec![entry],
                };
                groups.push((root_key, n, group));
            }
        }
    }
    groups.into_iter().map(|(_, _, g)| g).collect()
}

/// What names a kind and root: SHA-256 of both, its first 12 bytes.
fn root_key(entry: &Entry) -> Vec<u8> {
    let mut hasher = Sha256::new();
    for part in [entry.kind.as_bytes(), &entry.root] {
        hasher.update(part);
        hasher.update([0]);
    }
    hasher.finalize()[..12].to_vec()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Group<'_> {
    /// The view's folder.
    fn base(&self, dir: &Path) -> PathBuf {
        dir.join(DIR).join(self.kind).join(&self.name)
    }

    /// The root the kind's reader lists this view from: its folder, or
    /// the one file in it when the store root was a file (an opencode
    /// database named alone).
    pub(super) fn root(&self, dir: &Path) -> PathBuf {
        let base = self.base(dir);
        match self.entries.first() {
            Some(e) if e.rel.is_empty() => match e.root().file_name() {
                Some(name) => base.join(name),
                None => base,
            },
            _ => base,
        }
    }

    /// Write the copy of `entry` (one of the group's) into the view unless
    /// it is there already; why not, said for a person.
    pub(super) fn materialize(&self, dir: &Path, entry: &Entry) -> Result<(), String> {
        let rel = entry
            .rel()
            .ok_or_else(|| "the archive's manifest names a path outside its store".to_owned())?;
        let file = match rel.as_os_str().is_empty() {
            true => self.root(dir),
            false => self.base(dir).join(rel),
        };
        let current = Stamp::of(&file);
        if current.is_some_and(|s| {
            (s.len, s.secs, s.nanos) == (entry.len, entry.stamp.secs, entry.stamp.nanos)
        }) {
            return Ok(());
        }
        let parent = file.parent().unwrap_or(dir);
        let restore = || -> std::io::Result<()> {
            private::dir(parent)?;
            let mut temp = private::temp_in(parent)?;
            blobs::restore(dir, &entry.hash, temp.as_file_mut())?;
            // The original's time: what its reader falls back to for the
            // last activity, and what says the view is this copy.
            let time = u64::try_from(entry.stamp.secs).ok().map(|secs| {
                let nanos = u32::try_from(entry.stamp.nanos).unwrap_or(0);
                std::time::UNIX_EPOCH + std::time::Duration::new(secs, nanos)
            });
            if let Some(time) = time {
                temp.as_file().set_modified(time)?;
            }
            temp.persist(&file).map_err(|e| e.error)?;
            Ok(())
        };
        restore().map_err(|e| format!("cannot read its archived copy: {e}"))
    }
}

/// Remove the views of `manifest`'s sessions in `live` (their store has
/// them again) and of copies it no longer names: every view not among
/// the groups of the archived-only sessions.
pub(super) fn collect_garbage(dir: &Path, manifest: &Manifest, live: &dyn Fn(&Entry) -> bool) {
    let wanted: std::collections::HashSet<(String, String)> =
        groups(manifest.entries.iter().filter(|e| !live(e)))
            .into_iter()
            .map(|g| (g.kind.to_owned(), g.name))
            .collect();
    let Ok(kinds) = std::fs::read_dir(dir.join(DIR)) else {
        return;
    };
    for kind in kinds.flatten() {
        let kind_name = kind.file_name().to_string_lossy().into_owned();
        let Ok(views) = std::fs::read_dir(kind.path()) else {
            continue;
        };
        for view in views.flatten() {
            let name = view.file_name().to_string_lossy().into_owned();
            if !wanted.contains(&(kind_name.clone(), name)) {
                let _ = std::fs::remove_dir_all(view.path());
            }
        }
    }
}
