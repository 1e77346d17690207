//! Committing a run's reads to the search index: one writer at a time
//! under the directory's lock, data appended after the committed length,
//! the manifest replaced atomically, and the data file rewritten when
//! most of it is dead.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

use super::lock::{lock_briefly, LOCK};
use super::manifest::{
    data_name, path_order, write_manifest, Entry, Manifest, Segment, OLD_MANIFESTS,
};
use super::Index;
use crate::private;

impl Index {
    /// Write what this run read, and forget logs not in `listed` (when
    /// given: the complete listing). Skipped, without error, when another
    /// run holds the lock or the directory cannot be written.
    pub fn commit(self, listed: Option<&[&Path]>) -> io::Result<bool> {
        let fresh = self.fresh.into_inner().unwrap_or_else(|e| e.into_inner());
        if fresh.is_empty() && self.all_current {
            return Ok(false);
        }
        let kept = listed.map(|listed| {
            let mut keep: Vec<&Path> = listed.to_vec();
            keep.sort_by(|a, b| path_order(a, b));
            keep
        });
        let is_kept =
            |kept: &[&Path], path: &Path| kept.binary_search_by(|p| path_order(p, path)).is_ok();
        let forget = kept.as_ref().is_some_and(|kept| {
            self.manifest
                .entries
                .iter()
                .any(|e| !is_kept(kept, &e.path))
        });
        if fresh.is_empty() && !forget {
            return Ok(false);
        }
        // Private: the data files hold transcript text.
        private::dir(&self.dir)?;
        let lock = private::open(
            OpenOptions::new().create(true).truncate(false).write(true),
            &self.dir.join(LOCK),
        )?;
        if !lock_briefly(&lock) {
            return Ok(false);
        }
        // Re-read under the lock: another run may have committed since.
        let mut current = Index::open(&self.dir).manifest;
        if let Some(kept) = &kept {
            current.entries.retain(|e| is_kept(kept, &e.path));
        }
        let mut data = private::open(
            OpenOptions::new()
                .create(true)
                .truncate(false)
                .read(true)
                .write(true),
            &self.dir.join(data_name(current.generation)),
        )?;
        data.set_len(current.data_len)?;
        let mut at = current.data_len;
        let mut writer = io::BufWriter::new(&mut data);
        use std::io::Seek;
        writer.seek(io::SeekFrom::Start(at))?;
        let mut added = Vec::with_capacity(fresh.len());
        for fresh in fresh {
            // A continued fold is kept only while the entry it continues
            // is still the one it read (another run may have changed it).
            let segments = match fresh.base {
                None => Vec::new(),
                Some((generation, base)) => {
                    let still = current.generation == generation
                        && current
                            .entry(&fresh.path)
                            .is_some_and(|e| e.segments == base);
                    if !still {
                        continue;
                    }
                    base
                }
            };
            let mut segments = segments;
            let mut put = |bytes: &[u8]| -> io::Result<Segment> {
                writer.write_all(bytes)?;
                let segment = Segment {
                    offset: at,
                    bytes: bytes.len() as u64,
                };
                at += segment.bytes;
                Ok(segment)
            };
            if !fresh.journal.is_empty() || segments.is_empty() {
                segments.push(put(&fresh.journal)?);
            }
            let resume = match fresh.resume {
                Some((mut resume, state)) => {
                    resume.state = put(&state)?;
                    Some(resume)
                }
                None => None,
            };
            added.push(Entry {
                path: fresh.path,
                kind: fresh.kind.to_owned(),
                stamp: fresh.stamp,
                segments,
                chosen: fresh.chosen,
                resume,
                id: fresh.id,
                cwd: fresh.cwd,
                created_at: fresh.created_at,
            });
        }
        writer.flush()?;
        drop(writer);
        data.sync_data()?;
        // A fresh entry replaces the one of the same path: it sorts first,
        // and `dedup_by` keeps the first of equal paths.
        added.sort_by(|a, b| path_order(&a.path, &b.path));
        added.dedup_by(|later, earlier| later.path == earlier.path);
        let mut merged = added;
        merged.append(&mut current.entries);
        merged.sort_by(|a, b| path_order(&a.path, &b.path));
        merged.dedup_by(|later, earlier| later.path == earlier.path);
        current.entries = merged;
        current.data_len = at;
        current.live = current.entries.iter().map(Entry::live_bytes).sum();
        if current.live * 2 < current.data_len && current.data_len > (1 << 20) {
            current = rewrite(&self.dir, &data, current)?;
        }
        write_manifest(&self.dir, &current)?;
        for old in OLD_MANIFESTS {
            let _ = fs::remove_file(self.dir.join(old));
        }
        drop(lock);
        Ok(true)
    }
}
/// Copy the live blobs into a new data file, replace the old one, and
/// return the manifest that points into it (written by the caller).
fn rewrite(dir: &Path, old: &File, mut manifest: Manifest) -> io::Result<Manifest> {
    let old_name = data_name(manifest.generation);
    manifest.generation += 1;
    let temp = dir.join(format!(
        "{}.{}",
        data_name(manifest.generation),
        std::process::id()
    ));
    let mut out = io::BufWriter::new(private::open(
        OpenOptions::new().write(true).create(true).truncate(true),
        &temp,
    )?);
    let mut at = 0;
    let mut copy = |from: &[Segment]| -> io::Result<Segment> {
        let total: u64 = from.iter().map(|s| s.bytes).sum();
        for segment in from {
            let mut bytes = vec![0; usize::try_from(segment.bytes).unwrap_or(0)];
            old.read_exact_at(&mut bytes, segment.offset)?;
            out.write_all(&bytes)?;
        }
        let segment = Segment {
            offset: at,
            bytes: total,
        };
        at += total;
        Ok(segment)
    };
    for entry in &mut manifest.entries {
        // The pieces of a journal become one.
        entry.segments = vec![copy(&entry.segments)?];
        if let Some(resume) = &mut entry.resume {
            resume.state = copy(&[resume.state])?;
        }
    }
    out.into_inner()?.sync_data()?;
    fs::rename(&temp, dir.join(data_name(manifest.generation)))?;
    manifest.data_len = at;
    manifest.live = at;
    // The new manifest goes first, then the old data file: a reader sees
    // the old pair, the new pair, or an old manifest without its data.
    write_manifest(dir, &manifest)?;
    let _ = fs::remove_file(dir.join(old_name));
    Ok(manifest)
}
