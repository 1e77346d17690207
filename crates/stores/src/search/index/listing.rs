//! Listing through the search index: the roots walked and stat-ed, and a
//! record taken from the manifest for every log whose version it holds.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use super::manifest::{path_order, Stamp};
use super::Index;
use crate::caches::Caches;
use crate::index::title::TitleIndex;
use crate::model::SessionRecord;
use crate::roots::StoreRoots;
use crate::store::{walk_files, ScanEvent};

impl Index {
    /// List the sessions under `roots` as [`crate::catalog::scan`] does, but
    /// taking the record of every log whose version the index holds from
    /// the index: only new and changed logs are opened. (Each root is
    /// walked with its kind's [`crate::Store::wants`] and files are
    /// classified with [`crate::Store::list_file`], the parts of the
    /// default [`crate::Store::scan`]; a kind whose sessions span
    /// several files is listed by its own scan, see
    /// [`crate::Store::lists_each_file`].) The stamps taken are kept
    /// for [`Index::lookup`].
    pub fn list(&mut self, caches: &Caches, roots: &StoreRoots) -> Vec<ScanEvent> {
        let walked = walk(roots);
        self.classify(caches, walked)
    }

    /// [`Index::open`] and [`Index::list`] at once: the manifest is
    /// decoded while the roots are walked.
    pub fn open_and_list(
        dir: &Path,
        caches: &Caches,
        roots: &StoreRoots,
    ) -> (Index, Vec<ScanEvent>) {
        let (mut index, walked) = rayon::join(|| Index::open(dir), || walk(roots));
        let events = index.classify(caches, walked);
        (index, events)
    }

    /// Stat the walked files and list each from its entry or its store.
    fn classify(&mut self, caches: &Caches, walked: Vec<Walked>) -> Vec<ScanEvent> {
        let mut events = Vec::new();
        let mut listed = Vec::new();
        let mut current = 0;
        for Walked {
            kind,
            root,
            files,
            unreadable,
        } in walked
        {
            events.extend(unreadable);
            let store = kind.store();
            if store.uses_known_cwds() {
                // Aider looks in the directories listed so far (the roots
                // come in registry order, where it is last).
                let known = caches.get::<crate::caches::KnownCwds>();
                for event in &events {
                    if let ScanEvent::Record(record) = event {
                        known.note(record.cwd.as_deref().unwrap_or_default());
                    }
                }
            }
            if !store.lists_each_file() {
                // A session of several files (Gemini CLI): only the
                // kind's own scan lists it, once, under its current file.
                let scanned = Mutex::new(Vec::new());
                store.scan(kind, caches, &root, &|event| {
                    scanned
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(event);
                });
                for event in scanned.into_inner().unwrap_or_else(|e| e.into_inner()) {
                    if let ScanEvent::Record(record) = &event {
                        // The kind's own stamp: its sessions may share a file.
                        if let Some(stamp) = store.stamp(caches, record).map(Stamp::from) {
                            let entry = self.manifest.entry(&record.path);
                            let known =
                                entry.is_some_and(|e| e.stamp == stamp && e.kind == kind.as_str());
                            current += usize::from(known);
                            listed.push((record.path.clone(), stamp));
                        }
                    }
                    events.push(event);
                }
                continue;
            }
            let entries = self.manifest.entries_for(&files);
            let found: Vec<(ScanEvent, Option<Stamp>, bool)> = files
                .par_iter()
                .zip(entries)
                .map(|(path, entry)| {
                    let stamp = Stamp::of(path).ok();
                    let known = entry
                        .filter(|entry| Some(entry.stamp) == stamp && entry.kind == kind.as_str());
                    let event = match known {
                        Some(entry) => ScanEvent::Record(SessionRecord::new(
                            kind,
                            Arc::clone(&root),
                            path.clone(),
                            entry.id.clone(),
                            entry.cwd.clone(),
                            entry.created_at.clone(),
                        )),
                        // New or changed: listed through the title index,
                        // which refreshes its entry in the same pass.
                        None => caches
                            .get::<TitleIndex>()
                            .refresh_file(store, kind, caches, &root, path),
                    };
                    (event, stamp, known.is_some())
                })
                .collect();
            for (event, stamp, known) in found {
                current += usize::from(known);
                if let (ScanEvent::Record(record), Some(stamp)) = (&event, stamp) {
                    listed.push((record.path.clone(), stamp));
                }
                events.push(event);
            }
        }
        listed.sort_by(|a, b| path_order(&a.0, &b.0));
        // Every entry found current, and nothing else listed: a commit
        // has nothing to forget (no need to compare the whole listing).
        self.all_current = current == self.manifest.entries.len() && current == listed.len();
        self.listed = listed;
        events
    }
}
/// The files of one root a kind wants, and the directories that could
/// not be read.
struct Walked {
    kind: crate::model::StoreKind,
    root: Arc<Path>,
    files: Vec<PathBuf>,
    /// What the walk reported: unreadable directories, skipped links.
    unreadable: Vec<ScanEvent>,
}

/// Walk every root of `roots` (in their order) with its kind's filter.
fn walk(roots: &StoreRoots) -> Vec<Walked> {
    roots
        .iter()
        .map(|(kind, root)| {
            let store = kind.store();
            let mut unreadable = Vec::new();
            let files = walk_files(root, &|p| store.wants(p), &mut |event| {
                unreadable.push(event)
            });
            Walked {
                kind,
                root: Arc::from(root.as_path()),
                files,
                unreadable,
            }
        })
        .collect()
}
