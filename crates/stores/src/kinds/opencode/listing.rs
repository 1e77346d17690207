//! Listing opencode's legacy session files (`storage/`), through the title
//! index's per-file facts: a stat each when a file is unchanged.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use super::{convo, legacy, Family, OpencodeCaches, LEGACY_COPY};
use crate::caches::{lock, Caches};
use crate::index::title::TitleIndex;
use crate::model::SessionRecord;
use crate::store::ScanEvent;

/// List the legacy session `files` of `root` through `sink`; a session
/// also in a database (`in_db`) is a legacy copy, not listed.
pub(super) fn list_legacy(
    family: &Family,
    caches: &Caches,
    root: &Arc<Path>,
    files: &[PathBuf],
    in_db: &HashSet<String>,
    sink: &(dyn Fn(ScanEvent) + Sync),
) {
    let store = caches.get::<OpencodeCaches>();
    let index = caches.get::<TitleIndex>();
    let kind = (family.kind)();
    index.listing_root(kind, root);
    files.par_iter().for_each(|path| {
        let computed = || {
            std::fs::read(path)
                .ok()
                .and_then(|b| legacy::parse_head(&b).ok())
        };
        let head = match index.file_fact(kind, root, path, computed) {
            Some((_, Some(head))) => Ok(head),
            // Unreadable, not a session file, or too recent to index: read now.
            _ => std::fs::read(path)
                .map_err(|e| (true, e.to_string()))
                .and_then(|b| legacy::parse_head(&b).map_err(|e| (false, e))),
        };
        let head = match head {
            Ok(head) => head,
            Err((io, reason)) => {
                let path = path.clone();
                return sink(if io {
                    ScanEvent::Unreadable { path, reason }
                } else {
                    ScanEvent::Skipped { path, reason }
                });
            }
        };
        let event = legacy_event(family, root, path, &head, in_db);
        lock(&store.heads).insert(path.clone(), Arc::new(head));
        sink(event);
    });
}

/// The record, or why not, of one legacy session file.
fn legacy_event(
    family: &Family,
    root: &Arc<Path>,
    path: &Path,
    head: &legacy::Head,
    in_db: &HashSet<String>,
) -> ScanEvent {
    let skipped = |reason: &str| ScanEvent::Skipped {
        path: path.to_owned(),
        reason: reason.to_owned(),
    };
    if in_db.contains(&head.id) {
        return skipped(LEGACY_COPY);
    }
    if head.parent_id.is_some() {
        return skipped(family.subagent);
    }
    if head.archived.is_some() {
        return skipped(family.archived);
    }
    ScanEvent::Record(SessionRecord::new(
        (family.kind)(),
        Arc::clone(root),
        path.to_owned(),
        head.id.clone(),
        head.directory.clone(),
        head.created.map(convo::rfc3339_ms).unwrap_or_default(),
    ))
}
