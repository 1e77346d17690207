//! The summaries of a Claude Code project folder (`leafUuid` → summary),
//! which title sessions across the folder: gathered from its files newest
//! first, only as far back as the sessions titled so far need, and cached
//! while the folder's listing is unchanged (steps 1 and 2 of the title
//! rules in `title`), from each file's backward scan (`tail`). The caches
//! of those scans and of the folders' summaries live here too
//! ([`FolderCaches`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use rayon::prelude::*;

use super::tail::{summaries_of, tail_facts, TailFacts};
use crate::caches::lock;
use crate::kinds::foreign::FileCache;
use crate::store::has_suffix;
use session_ref_core::time::Instant;

/// How long before a session's first timestamp a sibling may have been
/// last modified and still be read for summaries naming the session. A
/// summary of a session is written after the session began, so older files
/// cannot hold one; the margin absorbs clock differences.
const SUMMARY_MARGIN_NANOS: i128 = 24 * 3600 * 1_000_000_000;

/// The summaries of one project folder, loaded newest file first and only
/// as far back as the titles asked for so far need.
pub(super) struct Folder {
    /// Distinguishes successive listings of the folder, for the caches that
    /// depend on its summaries.
    generation: u64,
    /// The folder's transcripts with their modification times (Unix
    /// nanoseconds; unknown counts as newest), newest first.
    files: Vec<(PathBuf, Option<i128>)>,
    /// How many of `files` are merged into `by_leaf`.
    loaded: usize,
    /// `leafUuid` → summary: the most recently modified file wins, and
    /// within one file its last summary of the leaf.
    by_leaf: Arc<HashMap<String, String>>,
}

/// A folder's summaries with the modification time of the folder they
/// were listed at.
type FolderSlot = (Option<SystemTime>, Arc<Mutex<Folder>>);

/// What reading folders' summaries remembers between calls (part of the
/// title caches the catalog's [`Caches`](crate::caches::Caches) owns).
#[derive(Default)]
pub(super) struct FolderCaches {
    /// Backward scans of transcripts.
    pub(super) tails: FileCache<TailFacts>,
    /// Summary lines of transcripts whose backward scan stopped early.
    summaries: FileCache<Vec<(String, String)>>,
    /// Project folders' summaries, by folder.
    folders: Mutex<HashMap<PathBuf, FolderSlot>>,
    /// The next folder generation.
    generation: AtomicU64,
}

fn unix_nanos(time: SystemTime) -> i128 {
    match time.duration_since(SystemTime::UNIX_EPOCH) {
        Ok(after) => after.as_nanos() as i128,
        Err(before) => -(before.duration().as_nanos() as i128),
    }
}

/// The folder's summaries, complete for every file modified since `since`
/// (minus [`SUMMARY_MARGIN_NANOS`]; all files when `since` is unknown),
/// with the folder's generation. The listing of the folder is cached while
/// its modification time is unchanged (files created or removed). Files
/// that cannot be read contribute nothing: a vanished sibling must not fail
/// another session's title.
pub(super) fn folder_summaries(
    caches: &FolderCaches,
    folder: &Path,
    since: Option<Instant>,
) -> (u64, Arc<HashMap<String, String>>) {
    let modified = std::fs::metadata(folder).and_then(|m| m.modified()).ok();
    let slot = {
        let mut folders = lock(&caches.folders);
        match folders.get(folder) {
            Some((known, slot)) if *known == modified && modified.is_some() => slot.clone(),
            _ => {
                let slot = Arc::new(Mutex::new(Folder {
                    generation: caches.generation.fetch_add(1, Ordering::Relaxed) + 1,
                    files: list_folder(folder),
                    loaded: 0,
                    by_leaf: Arc::default(),
                }));
                folders.insert(folder.to_owned(), (modified, slot.clone()));
                slot
            }
        }
    };
    // The folder's lock is never held across the parallel read below (see
    // "Locks" in the store module): a thread waiting in rayon's join may run
    // another title of this folder, which takes this lock on that thread.
    let cutoff = since.map(|t| t.0 - SUMMARY_MARGIN_NANOS);
    let (start, needed, batch) = {
        let state = lock(&slot);
        let needed = match cutoff {
            Some(cutoff) => state
                .files
                .iter()
                .position(|(_, m)| m.is_some_and(|m| m < cutoff))
                .unwrap_or(state.files.len()),
            None => state.files.len(),
        };
        if needed <= state.loaded {
            return (state.generation, state.by_leaf.clone());
        }
        let batch: Vec<PathBuf> = state.files[state.loaded..needed]
            .iter()
            .map(|(path, _)| path.clone())
            .collect();
        (state.loaded, needed, batch)
    };
    let found = summaries_of_files(caches, &batch);
    let mut state = lock(&slot);
    // Another thread may have loaded part or all of the batch meanwhile;
    // files are merged once each, in order (newest first wins).
    if needed > state.loaded {
        let skip = state.loaded - start;
        let by_leaf = Arc::make_mut(&mut state.by_leaf);
        for summaries in found.into_iter().skip(skip) {
            for (leaf, summary) in summaries.into_iter().rev() {
                by_leaf.entry(leaf).or_insert(summary);
            }
        }
        state.loaded = needed;
    }
    (state.generation, state.by_leaf.clone())
}

/// The folder's `*.jsonl` files, newest first (ties by path).
fn list_folder(folder: &Path) -> Vec<(PathBuf, Option<i128>)> {
    let mut files: Vec<(PathBuf, Option<i128>)> = std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|t| t.is_file()))
        .filter(|entry| has_suffix(&entry.path(), ".jsonl"))
        .map(|entry| {
            let modified = entry.metadata().and_then(|m| m.modified()).ok();
            (entry.path(), modified.map(unix_nanos))
        })
        .collect();
    files.sort_by(|(a, x), (b, y)| {
        let newest = |m: &Option<i128>| std::cmp::Reverse(m.unwrap_or(i128::MAX));
        newest(x).cmp(&newest(y)).then_with(|| {
            a.as_os_str()
                .as_encoded_bytes()
                .cmp(b.as_os_str().as_encoded_bytes())
        })
    });
    files
}

/// The summary lines of each file, in file order, read on a few threads
/// (reusing each file's cached backward scan when it went to the start).
fn summaries_of_files(caches: &FolderCaches, files: &[PathBuf]) -> Vec<Vec<(String, String)>> {
    files
        .par_iter()
        .map(|path| {
            caches
                .tails
                .get(path, 0, || tail_facts(path))
                .and_then(|tail| match &tail.summaries {
                    Some(summaries) => Ok(summaries.clone()),
                    None => caches
                        .summaries
                        .get(path, 0, || summaries_of(path))
                        .map(|s| (*s).clone()),
                })
                .unwrap_or_default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testing::{format_day, read_title, record_of, user, write, CACHES, CWD};
    use super::super::title;
    use super::*;
    use crate::caches::Caches;

    #[test]
    fn files_older_than_the_session_are_not_read_for_its_summaries() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("-home-dev-shop");
        let session = write(&folder, "s.jsonl", &[user("us1", r#""the prompt""#)]);
        let summary =
            |text: &str| format!(r#"{{"type":"summary","summary":"{text}","leafUuid":"us1"}}"#);
        let old = write(
            &folder,
            "old.jsonl",
            &[summary("Impossible: older than the session")],
        );
        let year_2020 = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_577_836_800);
        std::fs::File::options()
            .append(true)
            .open(&old)
            .unwrap()
            .set_modified(year_2020)
            .unwrap();
        let root = dir.path();
        assert_eq!(
            read_title(&record_of(root, &session)).unwrap().as_deref(),
            Some("the prompt")
        );
        // Without a parseable start, every file counts.
        let mut undated = record_of(root, &session);
        undated.created = None;
        let newer = write(&folder, "newer.jsonl", &[summary("Newer summary")]);
        let newest = write(&folder, "newest.jsonl", &[summary("Newest summary")]);
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(60);
        for (path, at) in [
            (&newer, later),
            (&newest, later + std::time::Duration::from_secs(1)),
        ] {
            std::fs::File::options()
                .append(true)
                .open(path)
                .unwrap()
                .set_modified(at)
                .unwrap();
        }
        std::fs::File::open(&folder)
            .unwrap()
            .set_modified(later + std::time::Duration::from_secs(2))
            .unwrap();
        assert_eq!(
            read_title(&undated).unwrap().as_deref(),
            Some("Newest summary")
        );
        let (_, by_leaf) = CACHES
            .with(|c| folder_summaries(&c.get::<title::ClaudeCaches>().folder, &folder, None));
        assert_eq!(
            by_leaf.get("us1").map(String::as_str),
            Some("Newest summary")
        );
    }

    /// Regression: titles of many sessions of one folder, read on a pool
    /// while the folder's summaries load in steps (each session needs the
    /// files since its own start), once deadlocked: a thread holding the
    /// folder's lock waited in rayon's join and ran another title of the
    /// same folder (a batch queued on the pool). Cold caches each round,
    /// one- and two-thread pools.
    #[test]
    fn titles_of_one_folder_read_in_parallel_never_deadlock() {
        const SESSIONS: usize = 240;
        const BATCH: usize = 6;
        const DAY: u64 = 24 * 3600;
        let dir = tempfile::tempdir().unwrap();
        let epoch = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_767_225_600);
        let mut records = Vec::new();
        for i in 0..SESSIONS {
            // Sessions start in groups of eight, two days apart: read
            // newest first, each group's titles need the folder's
            // summaries loaded eight files further.
            let day = (SESSIONS - i) as u64 / 8 * 2;
            let created = format_day(day);
            let mut lines = vec![format!(
                r#"{{"type":"user","message":{{"role":"user","content":"prompt {i}"}},"uuid":"u{i}","sessionId":"s{i}","cwd":"{CWD}","timestamp":"{created}"}}"#
            )];
            // Every third session holds a summary of the next older one
            // (written later, as Claude Code writes them); every fifth has
            // a custom title (no folder read).
            if i % 3 == 0 {
                lines.push(format!(
                    r#"{{"type":"summary","summary":"Summary of {}","leafUuid":"u{}"}}"#,
                    i + 1,
                    i + 1
                ));
            }
            if i % 5 == 0 {
                lines.push(format!(
                    r#"{{"type":"custom-title","customTitle":"Custom {i}","sessionId":"s{i}"}}"#
                ));
            }
            let path = write(dir.path(), &format!("p/s{i}.jsonl"), &lines);
            let file = std::fs::File::options().write(true).open(&path).unwrap();
            file.set_modified(epoch + std::time::Duration::from_secs(day * DAY))
                .unwrap();
            records.push(record_of(dir.path(), &path));
        }
        let records = Arc::new(records);
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            for round in 0..25 {
                // Titles are asked for as the picker asks: batches queued on
                // the pool, each read in parallel, on cold caches.
                let caches = Arc::new(Caches::default());
                let (done, finished) = std::sync::mpsc::channel();
                for start in (0..SESSIONS).step_by(BATCH) {
                    let (records, caches, done) = (records.clone(), caches.clone(), done.clone());
                    pool.spawn(move || {
                        let batch = &records[start..(start + BATCH).min(SESSIONS)];
                        let titles: Vec<Option<String>> = batch
                            .par_iter()
                            .map(|r| title::read_title(&caches, r).unwrap())
                            .collect();
                        let _ = done.send((start, titles));
                    });
                }
                let mut titles = vec![None; SESSIONS];
                for _ in (0..SESSIONS).step_by(BATCH) {
                    let (start, found) = finished
                        .recv_timeout(std::time::Duration::from_secs(60))
                        .unwrap_or_else(|_| {
                            // The pool's threads are stuck for good: only
                            // ending the process ends the test.
                            eprintln!("deadlock: {threads} threads, round {round}");
                            std::process::abort()
                        });
                    titles[start..][..found.len()].clone_from_slice(&found);
                }
                assert_eq!(titles[0].as_deref(), Some("Custom 0"));
                assert_eq!(titles[1].as_deref(), Some("Summary of 1"));
                assert_eq!(titles[2].as_deref(), Some("prompt 2"));
            }
        }
    }
}
