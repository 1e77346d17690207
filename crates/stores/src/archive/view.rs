//! Reading an archived session: its copy decompressed into the archive's
//! private `view/KIND/KEY/…` folder, at the path it had below its store
//! root, so that the kind's own reader lists and folds it as it would the
//! original (a Claude Code transcript keeps its project folder, a Codex
//! rollout its dated folders, an opencode database its file name). `KEY`
//! names the session and the content of its copy, so a view is written
//! once per copy and a stale one is never read.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::blobs;
use super::manifest::{Entry, Manifest, Stamp};
use crate::private;

/// The folder of the views in the archive directory.
pub(super) const DIR: &str = "view";

/// The folder of `entry`'s view below `view/KIND/`.
fn key(entry: &Entry) -> String {
    let mut hasher = Sha256::new();
    for part in [entry.kind.as_bytes(), &entry.root, entry.id.as_bytes()] {
        hasher.update(part);
        hasher.update([0]);
    }
    let digest: String = hasher
        .finalize()
        .iter()
        .take(12)
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{digest}-{}", entry.hash.get(..16).unwrap_or(&entry.hash))
}

/// The root the kind's reader lists `entry`'s view from, and the file
/// in it that holds the copy. `None` when the manifest's path is not a
/// plain relative one.
fn paths(dir: &Path, entry: &Entry) -> Option<(PathBuf, PathBuf)> {
    let rel = entry.rel()?;
    let base = dir.join(DIR).join(&entry.kind).join(key(entry));
    if rel.as_os_str().is_empty() {
        // The root was the file itself (an opencode database named alone).
        let file = base.join(entry.root().file_name()?);
        return Some((file.clone(), file));
    }
    let file = base.join(rel);
    Some((base, file))
}

/// The root to list `entry` from, its copy decompressed there first when
/// it is not yet (written beside and renamed, 0600 in 0700 folders).
pub(super) fn materialize(dir: &Path, entry: &Entry) -> Result<PathBuf, String> {
    let (root, file) = paths(dir, entry)
        .ok_or_else(|| "the archive's manifest names a path outside its store".to_owned())?;
    if Stamp::of(&file).is_some_and(|s| s.len == entry.len) {
        return Ok(root);
    }
    let parent = file.parent().unwrap_or(dir);
    let restore = || -> std::io::Result<()> {
        private::dir(parent)?;
        let mut temp = private::temp_in(parent)?;
        blobs::restore(dir, &entry.hash, temp.as_file_mut())?;
        temp.persist(&file).map_err(|e| e.error)?;
        Ok(())
    };
    restore().map_err(|e| format!("cannot read its archived copy: {e}"))?;
    Ok(root)
}

/// Remove the views of copies `manifest` no longer names.
pub(super) fn collect_garbage(dir: &Path, manifest: &Manifest) {
    let wanted: std::collections::HashSet<(String, String)> = manifest
        .entries
        .iter()
        .map(|e| (e.kind.clone(), key(e)))
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
