//! Listing an opencode root: its databases' session rows and its legacy
//! session files (`storage/`), the latter through the title index's per-file
//! facts: a stat each when a file is unchanged.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use super::db::{self, SessionRow};
use super::{
    convo, fail, legacy, listed_row, read_session, Family, Layout, OpencodeCaches, LEGACY_COPY,
    TITLE_HEAD,
};
use crate::caches::{lock, Caches};
use crate::error::ReadError;
use crate::index::title::TitleIndex;
use crate::kinds::row_title::{self, RowVersion};
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

/// The record, or why not, of one session row of `db`.
fn db_event(family: &Family, root: &Arc<Path>, db: &Path, row: &SessionRow) -> ScanEvent {
    let path = db.join(&row.id);
    if row.parent_id.as_deref().is_some_and(|p| !p.is_empty()) {
        return ScanEvent::Skipped {
            path,
            reason: family.subagent.into(),
        };
    }
    if row.time_archived.is_some() {
        return ScanEvent::Skipped {
            path,
            reason: family.archived.into(),
        };
    }
    ScanEvent::Record(SessionRecord::new(
        (family.kind)(),
        Arc::clone(root),
        path,
        row.id.clone(),
        Some(row.directory.clone()).filter(|d| !d.is_empty()),
        convo::rfc3339_ms(row.time_created),
    ))
}

/// List every session under a root.
pub(super) fn scan_root(
    family: &Family,
    caches: &Caches,
    root: &Arc<Path>,
    sink: &(dyn Fn(ScanEvent) + Sync),
) {
    let layout = match Layout::of(family, root) {
        Ok(layout) => layout,
        Err(e) => {
            sink(ScanEvent::Unreadable {
                path: root.to_path_buf(),
                reason: e.to_string(),
            });
            return;
        }
    };
    let store = caches.get::<OpencodeCaches>();
    let mut in_db: HashSet<String> = HashSet::new();
    let mut listed = Vec::new();
    let mut every_db = true;
    for db_path in &layout.dbs {
        let rows = family.with_db(caches, db_path, db::sessions);
        match rows {
            Ok(rows) => {
                for row in &rows {
                    in_db.insert(row.id.clone());
                    listed.push(db_path.join(&row.id));
                    sink(db_event(family, root, db_path, row));
                }
                let by_id = rows.into_iter().map(|r| (r.id.clone(), r)).collect();
                lock(&store.rows).insert(db_path.clone(), Arc::new(by_id));
            }
            Err(reason) => {
                every_db = false;
                sink(ScanEvent::Unreadable {
                    path: db_path.clone(),
                    reason,
                })
            }
        }
    }
    if every_db && !layout.dbs.is_empty() {
        let kind = (family.kind)();
        row_title::listed_all(caches, kind, root, listed.iter().map(PathBuf::as_path));
    }
    let files = match (&layout.session_file, &layout.storage) {
        (Some(file), _) => vec![file.clone()],
        (None, Some(storage)) => legacy::session_files(storage, &mut |path, reason| {
            sink(ScanEvent::Unreadable { path, reason })
        }),
        (None, None) => return,
    };
    list_legacy(family, caches, root, &files, &in_db, sink);
}

/// The title of an untitled database session: its first prompt, from the
/// head of its messages (a long session is not read whole for it), kept
/// in the title index by the row's `time_updated`, which opencode moves
/// with every message and with a revert ([`row_title`]).
pub(super) fn untitled_title(
    family: &Family,
    caches: &Caches,
    db: &Path,
    record: &SessionRecord,
) -> Result<Option<String>, ReadError> {
    let read = || {
        let head = family
            .with_db(caches, db, |conn| {
                db::read_session_head(conn, &record.id, TITLE_HEAD)
            })
            .map_err(|e| fail(record, e))?
            .ok_or_else(|| fail(record, "the session is gone from the database".into()))?;
        let cut = head.messages.len() >= TITLE_HEAD;
        let revert = convo::Revert::parse(head.revert.as_deref());
        let reverted = revert
            .as_ref()
            .is_some_and(|r| head.messages.iter().any(|m| m.id == r.message_id));
        let title = convo::first_prompt_title(&convo::apply_revert(head.messages, revert.as_ref()));
        // The head decides unless it was cut before both a prompt and the
        // revert point (everything after that is hidden).
        if title.is_some() || !cut || reverted {
            return Ok(title);
        }
        Ok(convo::first_prompt_title(&read_session(
            family, caches, record,
        )?))
    };
    let version =
        listed_row(caches, db, &record.id).map(|row| RowVersion::from_ms(row.time_updated, 0));
    row_title::first_prompt_title(caches, (family.kind)(), record, version, read)
}
