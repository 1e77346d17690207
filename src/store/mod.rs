//! Session stores: discovery, listing and reading, for every store kind.
//!
//! Each kind (native `hydra`, `claude`, `codex`) maps its files onto the one
//! model of [`model`]; everything above this module is kind-agnostic.

pub mod claude;
pub mod codex;
pub mod foreign;
pub mod lines;
pub mod loose;
pub mod model;
pub mod native;
pub mod time;

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::error::Error;
use model::{SessionRecord, StoreKind, Surface};

/// Why one session could not be read; becomes `SESSION_REFERENCE_READ_FAILED`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    /// The log file.
    pub path: PathBuf,
    /// The 1-based line at fault, when one is.
    pub line: Option<u64>,
    /// What is wrong.
    pub message: String,
}

impl ReadError {
    /// A fault at one line of `path`.
    pub fn at(path: &Path, line: u64, message: &str) -> Self {
        ReadError {
            path: path.to_owned(),
            line: Some(line),
            message: message.to_owned(),
        }
    }

    /// An I/O failure on `path`.
    pub fn io(path: &Path, error: &std::io::Error) -> Self {
        ReadError {
            path: path.to_owned(),
            line: None,
            message: error.to_string(),
        }
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl From<ReadError> for Error {
    fn from(e: ReadError) -> Self {
        Error::read_failed(format!("failed to read referenced session: {e}"))
    }
}

/// The store directories to read, by kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoreRoots {
    /// Native stores.
    pub hydra: Vec<PathBuf>,
    /// Claude Code `projects` directories.
    pub claude: Vec<PathBuf>,
    /// Codex `sessions` directories.
    pub codex: Vec<PathBuf>,
}

impl StoreRoots {
    /// Whether no directory is named.
    pub fn is_empty(&self) -> bool {
        self.hydra.is_empty() && self.claude.is_empty() && self.codex.is_empty()
    }

    /// Every root with its kind.
    pub fn iter(&self) -> impl Iterator<Item = (StoreKind, &PathBuf)> {
        let hydra = self.hydra.iter().map(|p| (StoreKind::Hydra, p));
        let claude = self.claude.iter().map(|p| (StoreKind::Claude, p));
        let codex = self.codex.iter().map(|p| (StoreKind::Codex, p));
        hydra.chain(claude).chain(codex)
    }

    /// The default locations (SPEC §1) from an environment lookup and a home
    /// directory, whether or not they exist.
    pub fn default_locations(
        env: impl Fn(&str) -> Option<String>,
        home: Option<&Path>,
    ) -> StoreRoots {
        let from = |var: &str, sub: &str, fallback: &[&str]| -> Vec<PathBuf> {
            match env(var).filter(|v| !v.is_empty()) {
                Some(dir) => vec![Path::new(&dir).join(sub)],
                None => home
                    .map(|h| {
                        fallback
                            .iter()
                            .fold(h.to_path_buf(), |p, part| p.join(part))
                    })
                    .into_iter()
                    .collect(),
            }
        };
        StoreRoots {
            hydra: match env("HYDRA_SESSIONS").filter(|v| !v.is_empty()) {
                Some(dir) => vec![PathBuf::from(dir)],
                None => home
                    .map(|h| h.join(".hydra").join("sessions"))
                    .into_iter()
                    .collect(),
            },
            claude: from("CLAUDE_CONFIG_DIR", "projects", &[".claude", "projects"]),
            codex: from("CODEX_HOME", "sessions", &[".codex", "sessions"]),
        }
    }

    /// Keep only directories that exist.
    pub fn existing(self) -> StoreRoots {
        let keep = |v: Vec<PathBuf>| v.into_iter().filter(|p| p.is_dir()).collect();
        StoreRoots {
            hydra: keep(self.hydra),
            claude: keep(self.claude),
            codex: keep(self.codex),
        }
    }
}

/// What discovery reports, one file at a time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScanEvent {
    /// A listed session.
    Record(SessionRecord),
    /// A file that is not a session (wrong header, sub-agent log, …).
    Skipped {
        /// The file.
        path: PathBuf,
        /// Why it is not listed.
        reason: String,
    },
    /// A file that looks like a session but cannot be listed (I/O error,
    /// unsupported compression). Counted and shown, never silently dropped.
    Unreadable {
        /// The file.
        path: PathBuf,
        /// What failed.
        reason: String,
    },
}

/// Files below `root` (recursively, symbolic links not followed) whose name
/// satisfies `keep`, in byte order of their paths. Unreadable directories are
/// reported through `on_error`.
pub fn walk_files(
    root: &Path,
    keep: &dyn Fn(&Path) -> bool,
    on_error: &mut dyn FnMut(PathBuf, String),
) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) => {
                on_error(dir, e.to_string());
                continue;
            }
        };
        for entry in entries.flatten() {
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if file_type.is_dir() {
                pending.push(path);
            } else if file_type.is_file() && keep(&path) {
                files.push(path);
            }
        }
    }
    files.sort_by(|a, b| {
        a.as_os_str()
            .as_encoded_bytes()
            .cmp(b.as_os_str().as_encoded_bytes())
    });
    files
}

/// Whether a path's file name ends in `suffix`.
pub fn has_suffix(path: &Path, suffix: &str) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with(suffix))
}

/// Run `work` over `items` on a few threads, in no particular order.
pub fn parallel_each<T: Sync>(items: &[T], work: impl Fn(&T) + Sync) {
    parallel_map(items, work);
}

/// `work` of every item, computed on a few threads, in the order of `items`.
/// A panic in `work` is raised again here.
pub fn parallel_map<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(1, 8)
        .min(items.len());
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break mine };
                        mine.push((i, work(item)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    done.sort_unstable_by_key(|&(i, _)| i);
    done.into_iter().map(|(_, result)| result).collect()
}

/// Discover every session under `roots`, reporting each file through `sink`
/// as soon as it is classified (from several threads).
pub fn scan(roots: &StoreRoots, sink: &(dyn Fn(ScanEvent) + Sync)) {
    for (kind, root) in roots.iter() {
        let root: Arc<Path> = Arc::from(root.as_path());
        match kind {
            StoreKind::Hydra => scan_native(&root, sink),
            StoreKind::Claude => claude::scan(&root, sink),
            StoreKind::Codex => codex::scan(&root, sink),
        }
    }
}

fn scan_native(root: &Arc<Path>, sink: &(dyn Fn(ScanEvent) + Sync)) {
    let files = walk_files(root, &|p| has_suffix(p, ".jsonl"), &mut |path, reason| {
        sink(ScanEvent::Unreadable { path, reason })
    });
    parallel_each(&files, |path| {
        sink(match native::read_record(root, path.clone()) {
            Ok(Ok(record)) => ScanEvent::Record(record),
            Ok(Err(why)) => ScanEvent::Skipped {
                path: path.clone(),
                reason: why.to_string(),
            },
            Err(e) => ScanEvent::Unreadable {
                path: path.clone(),
                reason: e.to_string(),
            },
        })
    });
}

/// The latest title of a session, read as cheaply as its format allows.
pub fn read_title(record: &SessionRecord) -> Result<Option<String>, ReadError> {
    match record.kind {
        StoreKind::Hydra => {
            native::read_title(&record.path).map_err(|e| ReadError::io(&record.path, &e))
        }
        StoreKind::Claude => claude::read_title(record),
        StoreKind::Codex => codex::read_title(record),
    }
}

/// The folded surface of a session.
pub fn read_surface(record: &SessionRecord) -> Result<Surface, ReadError> {
    match record.kind {
        StoreKind::Hydra => native::read_surface(record),
        StoreKind::Claude => claude::read_surface(record),
        StoreKind::Codex => codex::read_surface(record),
    }
}

/// Every listed session in record order, plus what could not be listed.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    /// Sessions in `listSessions` order (SPEC §3).
    pub records: Vec<SessionRecord>,
    /// Files that are not sessions, with the reason.
    pub skipped: Vec<(PathBuf, String)>,
    /// Files that look like sessions but could not be listed.
    pub unreadable: Vec<(PathBuf, String)>,
    by_id: HashMap<String, usize>,
}

impl Catalog {
    /// Scan `roots` completely.
    pub fn load(roots: &StoreRoots) -> Catalog {
        let found = Mutex::new(Vec::new());
        scan(roots, &|event| {
            found.lock().expect("scan sink poisoned").push(event)
        });
        Catalog::from_events(found.into_inner().expect("scan sink poisoned"))
    }

    /// Build from discovery events (any order).
    pub fn from_events(events: impl IntoIterator<Item = ScanEvent>) -> Catalog {
        let mut catalog = Catalog::default();
        for event in events {
            match event {
                ScanEvent::Record(record) => catalog.records.push(record),
                ScanEvent::Skipped { path, reason } => catalog.skipped.push((path, reason)),
                ScanEvent::Unreadable { path, reason } => catalog.unreadable.push((path, reason)),
            }
        }
        catalog.records.sort_by(model::record_order);
        catalog.skipped.sort();
        catalog.unreadable.sort();
        for (i, record) in catalog.records.iter().enumerate().rev() {
            catalog.by_id.insert(record.id.clone(), i);
        }
        catalog
    }

    /// The first record (in record order) with this id.
    pub fn find(&self, id: &str) -> Option<&SessionRecord> {
        self.by_id.get(id).map(|&i| &self.records[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_map_keeps_the_order_of_the_items() {
        let items: Vec<u64> = (0..1000).collect();
        let squares = parallel_map(&items, |&i| i * i);
        assert_eq!(squares, items.iter().map(|i| i * i).collect::<Vec<_>>());
        assert!(parallel_map(&[] as &[u8], |_| 1).is_empty());
    }

    #[test]
    fn default_locations_follow_the_environment() {
        let home = Path::new("/home/u");
        let none = StoreRoots::default_locations(|_| None, Some(home));
        assert_eq!(none.hydra, [PathBuf::from("/home/u/.hydra/sessions")]);
        assert_eq!(none.claude, [PathBuf::from("/home/u/.claude/projects")]);
        assert_eq!(none.codex, [PathBuf::from("/home/u/.codex/sessions")]);
        let env = |k: &str| match k {
            "HYDRA_SESSIONS" => Some("/h".to_owned()),
            "CLAUDE_CONFIG_DIR" => Some("/c".to_owned()),
            "CODEX_HOME" => Some("/x".to_owned()),
            _ => None,
        };
        let set = StoreRoots::default_locations(env, Some(home));
        assert_eq!(set.hydra, [PathBuf::from("/h")]);
        assert_eq!(set.claude, [PathBuf::from("/c/projects")]);
        assert_eq!(set.codex, [PathBuf::from("/x/sessions")]);
    }
}
