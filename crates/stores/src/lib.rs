//! session-ref-stores: read coding agents' session logs (native Hydra,
//! Claude Code, Codex, Gemini CLI) into one model, read-only.
//!
//! One interface ([`Store`]), one registry of store kinds ([`REGISTRY`]),
//! one shared scan, and the [`Catalog`] every reader of sessions goes
//! through: list the sessions under some roots, then read any one's title,
//! folded conversation ([`model::Surface`]) or whole history. The
//! conversation model and its semantics come from `session-ref-core`.
//!
//! ```no_run
//! use session_ref_stores::{Catalog, StoreRoots};
//!
//! // Every agent's default location (from HOME and each agent's variables).
//! let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
//! let roots = StoreRoots::default_locations(|name| std::env::var(name).ok(), home.as_deref());
//! let catalog = Catalog::load(&roots.existing());
//! for record in catalog.ordered().take(5) {
//!     let title = catalog.read_title(record).ok().flatten();
//!     println!("{} {} {}", record.kind, record.id, title.unwrap_or_default());
//! }
//! ```
//!
//! The crate is laid out as:
//!
//! - [`kinds`]: one module per agent, each a unit type implementing
//!   [`Store`];
//! - [`jsonl`]: the JSONL line reader and the SIMD scanner that reads
//!   log lines without building a JSON tree;
//! - [`index`]: the title index (listing without reading logs again) and the
//!   journals that let a fold resume where it stopped;
//! - [`search`]: the searchable text of a session and the search index kept
//!   in the user's cache directory.
//!
//! Stores are only ever opened for reading; the indexes are written to a
//! cache directory of their own, atomically.
//!
//! # The interface: a trait over unit types, and a registry
//!
//! Each kind of store (native `hydra`, `claude`, `codex`, …) is one file
//! holding a unit type that implements [`Store`]: its name and flag, its
//! default roots from the environment, how to list the files under a root,
//! how to read a title and how to fold a surface. All readers have the one
//! signature of the trait: `(&Caches, &SessionRecord) -> Result<_, ReadError>`.
//!
//! A trait object, rather than an enum with one `match` per operation, is
//! the choice because the set of kinds must be open at one point only:
//! [`REGISTRY`], the table of kinds. The registry drives discovery
//! ([`StoreRoots::default_locations`], [`scan`]), the command-line flags
//! (`--store`, `--claude`, `--codex`: each kind's [`Store::flag`]), the
//! `--verbose` report and the "no sessions found" hint. A [`StoreKind`] is a
//! copyable handle to a registered store, compared by name. Adding an agent
//! is one new file implementing [`Store`] plus one line in [`REGISTRY`];
//! its flag follows from the entry.
//!
//! # State
//!
//! Per-kind caches (file facts keyed by path, length and modification time)
//! live in a [`Caches`] owned by the catalog, not in statics: two catalogs
//! (two tests, two stores) never see each other's cached facts, and a
//! catalog's caches go away with it.
//!
//! # Locks
//!
//! Stores are read on rayon's pool, and a thread that waits in rayon's
//! `join` (under `par_iter`, `scope`, `install`) runs other queued tasks on
//! its own stack meanwhile. So the rules for every lock in the readers and
//! their caches, which this section is the one statement of:
//!
//! 1. No lock guard, and no `OnceLock` being initialised, is held across a
//!    call that may run rayon work. Such a task could take the same lock
//!    on the same thread (std's `Mutex` is not reentrant), or wait for it
//!    while its holder waits for the task buried beneath it: a deadlock.
//! 2. A lock is held only to look up, insert or merge values in a map
//!    ([`Caches`]' slots, `FileCache` entries, Claude Code's folder
//!    summaries, the title index's shards, changes and fingerprints,
//!    Gemini CLI's scanned roots); reading files happens outside it, or in
//!    a `OnceLock` initialiser that does no parallel work.
//! 3. Work that needs the result of a parallel read (Claude Code's
//!    folder summaries) reads without the lock, then re-takes it to merge,
//!    accepting that two threads may read the same files once each.
//!
//! Guards are taken with `lock`, which also recovers from poisoning.

#![warn(missing_docs)]

pub mod index;
pub mod jsonl;
pub mod kinds;
pub mod model;
pub mod private;
pub mod remote;
pub mod search;

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use index::{journal, title};
use kinds::{antigravity, claude, codex, copilot, cursor, gemini, native, opencode, pi, qwen};
pub use model::StoreKind;
use model::{History, SessionRecord, Surface, SurfaceSink};

/// Every store kind, in the order roots are read and flags are listed.
pub static REGISTRY: &[StoreKind] = &[
    native::KIND,
    claude::KIND,
    codex::KIND,
    gemini::KIND,
    pi::KIND,
    qwen::KIND,
    copilot::KIND,
    opencode::KIND,
    antigravity::KIND,
    cursor::KIND,
];

/// The guard of `m`, also when a panicking holder poisoned it: the data
/// are caches, never left half-written in a way a reader could misuse. See
/// "Locks" in the module docs for when a guard may be held.
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// An environment lookup (`std::env::var`, or a test's table).
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// One kind of session store. Implemented by a unit type per kind and
/// registered in [`REGISTRY`].
pub trait Store: Send + Sync + 'static {
    /// The kind's name as shown and serialized (`hydra`, `claude`, …).
    fn name(&self) -> &'static str;

    /// The long flag naming a root of this kind (`store` for `--store DIR`).
    fn flag(&self) -> &'static str;

    /// What a root of this kind is, for `--help` (`Claude Code projects directory`).
    fn root_help(&self) -> &'static str;

    /// Who writes sessions of this kind, as `--help` lists the sources of
    /// sessions (`Claude Code`, `native Hydra stores`).
    fn origin(&self) -> &'static str;

    /// The default roots (SPEC §1) from the environment and the home
    /// directory, whether or not they exist.
    fn default_roots(&self, env: Env<'_>, home: Option<&Path>) -> Vec<PathBuf>;

    /// Whether a file found below a root may hold a session (by its name).
    fn wants(&self, path: &Path) -> bool;

    /// Classify one file found below `root`: a session, not a session, or
    /// unreadable.
    fn list_file(&self, caches: &Caches, root: &Arc<Path>, path: &Path) -> ScanEvent;

    /// Whether every file [`Store::wants`] is a session on its own, which
    /// [`Store::list_file`] lists alone (the default scan). A kind whose
    /// sessions can span several files (Gemini CLI keeps copies and resume
    /// stubs of one session) answers `false`: its files are listed only
    /// through its own [`Store::scan`], which lists each session once.
    fn lists_each_file(&self) -> bool {
        true
    }

    /// Report every file below `root` through `sink`, from several threads.
    /// The default walks the root ([`walk_files`]) and lists the files
    /// [`Store::wants`] in parallel with [`Store::list_file`]; a kind whose
    /// sessions span several files overrides it.
    fn scan(&self, caches: &Caches, root: &Arc<Path>, sink: &(dyn Fn(ScanEvent) + Sync)) {
        let files = walk_files(root, &|p| self.wants(p), &mut |event| sink(event));
        let index = caches.get::<title::TitleIndex>();
        let kind = kind_by_name(self.name());
        files.par_iter().for_each(|path| {
            sink(match kind {
                Some(kind) => index.list_file(kind.store(), kind, caches, root, path),
                None => self.list_file(caches, root, path),
            })
        });
    }

    /// The latest title of a listed session, read as cheaply as the format
    /// allows. `None` when it has none. Read through the title index with
    /// the free function [`read_title`], which calls this only for what
    /// the index does not know.
    fn read_title(
        &self,
        caches: &Caches,
        record: &SessionRecord,
    ) -> Result<Option<String>, ReadError>;

    /// The folded surface of a listed session.
    fn read_surface(&self, caches: &Caches, record: &SessionRecord) -> Result<Surface, ReadError>;

    /// The surface plus the events compactions removed from it: the whole
    /// conversation, for search. Folded through [`Store::fold_surface`], so
    /// a kind that streams keeps what its compactions shadow; one that does
    /// not (the default fold) reports no shadowed events.
    fn read_history(&self, caches: &Caches, record: &SessionRecord) -> Result<History, ReadError> {
        let mut history = History::default();
        let last = self.fold_surface(caches, record, &mut history)?;
        Ok(history.finish(last))
    }

    /// Fold the log of `record` for search, recorded as a
    /// [`journal::Journal`], reading no further than byte `len` (the
    /// length listing saw). From `from`, a point an earlier call returned
    /// for a shorter version of the same log, a kind that can resume reads
    /// only the lines after it ([`journal::Folded::continued`]); it may
    /// always read the whole log instead. The default reads the whole log
    /// through [`Store::fold_surface`] and gives no resume point.
    fn fold_resumable(
        &self,
        caches: &Caches,
        record: &SessionRecord,
        len: u64,
        from: Option<&journal::ResumePoint>,
    ) -> Result<journal::Folded, ReadError> {
        let _ = (len, from);
        let mut recorded = journal::Journal::new(0);
        self.fold_surface(caches, record, &mut recorded)?;
        Ok(journal::Folded {
            ops: recorded.into_ops(),
            ..journal::Folded::default()
        })
    }

    /// Whether the title index may keep this kind's titles by the stamps
    /// of their files (the default). A kind whose sessions share one file
    /// (opencode's database) answers `false`: its record paths are not
    /// files to stamp, and it reads titles as cheaply itself.
    fn titles_by_file(&self) -> bool {
        true
    }

    /// What the title of `record` depends on besides its own file, so
    /// that the title index can keep it: `None` (the default) when the
    /// title cannot be indexed; a kind whose title is the last title line
    /// of its file implements [`Store::title_after`] instead.
    fn title_inputs(&self, caches: &Caches, record: &SessionRecord) -> Option<title::TitleInputs> {
        let _ = (caches, record);
        None
    }

    /// For a kind whose title is the last title line of the session's own
    /// file: the latest title among the lines starting at or after byte
    /// `floor` (a line start), with the offset of its line. This lets the
    /// title index ([`index`]) search only the bytes appended since it last
    /// looked. `None` (the default): the kind's title depends on more than
    /// that, and is read with [`Store::read_title`].
    fn title_after(
        &self,
        caches: &Caches,
        record: &SessionRecord,
        floor: u64,
    ) -> Option<Result<Option<(String, u64)>, ReadError>> {
        let _ = (caches, record, floor);
        None
    }

    /// When the session was last active (Unix seconds): the newest time
    /// its log records, where the format keeps one cheaply (the last
    /// line's timestamp, read from the end). The default, and every
    /// kind's fallback, is the file's modification time, which says
    /// little after a copy or a `git clone`. `None` when neither can be
    /// read. Cached by the title index ([`title::TitleIndex::activity`]).
    fn last_activity(&self, caches: &Caches, record: &SessionRecord) -> Option<i64> {
        let _ = caches;
        modified_secs(&record.path)
    }

    /// The version of `record`'s log that the search index keys its entry
    /// by: by default the file's length, modification time and inode
    /// (`None` when it cannot be read). A kind whose sessions share one
    /// file gives a stamp of the session's own records instead.
    fn stamp(&self, caches: &Caches, record: &SessionRecord) -> Option<title::Stamp> {
        let _ = caches;
        title::Stamp::current(&record.path)
    }

    /// Fold the surface of a listed session into `sink` while its log is
    /// read, so that only what the sink keeps is held (prepare keeps what
    /// its byte budget can need). Returns the seq of the last complete
    /// event read. The default reads the whole surface first; a kind
    /// overrides it to stream.
    fn fold_surface(
        &self,
        caches: &Caches,
        record: &SessionRecord,
        sink: &mut dyn SurfaceSink,
    ) -> Result<u64, ReadError> {
        let surface = self.read_surface(caches, record)?;
        for event in surface.events {
            sink.push(event);
        }
        Ok(surface.captured_through_seq)
    }
}

/// When `path` was last modified (Unix seconds), `None` when unknown.
pub fn modified_secs(path: &Path) -> Option<i64> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    let secs = modified
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs();
    i64::try_from(secs).ok()
}

/// The last activity of `record` ([`Store::last_activity`]), through the
/// title index of `caches` when it is in use: the one source of the
/// picker's and `candidates --sort updated`'s "last active".
pub fn last_activity(caches: &Caches, record: &SessionRecord) -> Option<i64> {
    if record.host.is_some() {
        // A session of another machine: as its host reported it.
        return remote::REMOTE.last_activity(caches, record);
    }
    caches
        .get::<title::TitleIndex>()
        .activity(record.kind.store(), caches, record)
}

/// The latest title of `record` ([`Store::read_title`]), through the title
/// index of `caches` when it is in use: the one way the engine,
/// `candidates` and the picker read a title (a warm listing then opens no
/// log).
pub fn read_title(caches: &Caches, record: &SessionRecord) -> Result<Option<String>, ReadError> {
    if record.host.is_some() {
        // A session of another machine: as its host reported it.
        return remote::REMOTE.read_title(caches, record);
    }
    caches
        .get::<title::TitleIndex>()
        .title(record.kind.store(), caches, record)
}

/// The registered kind whose flag is `flag`.
pub fn kind_by_flag(flag: &str) -> Option<StoreKind> {
    REGISTRY.iter().copied().find(|k| k.store().flag() == flag)
}

/// The registered kind named `name`.
pub fn kind_by_name(name: &str) -> Option<StoreKind> {
    REGISTRY.iter().copied().find(|k| k.as_str() == name)
}

/// Caches of per-kind facts, one value per type, created on first use.
///
/// Each store kind keeps its caches in a type of its own (e.g. a struct of
/// [`kinds::foreign::FileCache`]s) and asks for it with [`Caches::get`]; the
/// catalog owns one `Caches` and shares it with its readers.
#[derive(Default)]
pub struct Caches {
    slots: Mutex<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>,
}

impl fmt::Debug for Caches {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.slots.lock().map_or(0, |s| s.len());
        f.debug_struct("Caches").field("kinds", &count).finish()
    }
}

impl Caches {
    /// Caches holding `value` as the cache value of its type (e.g. a
    /// [`title::TitleIndex`] opened on the user's cache directory).
    pub fn with<T: Send + Sync + 'static>(self, value: T) -> Caches {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        slots.insert(TypeId::of::<T>(), Arc::new(value));
        drop(slots);
        self
    }

    /// The caches of one run of a command or the picker: the title index
    /// kept in `cache_dir` (none: read every file) and the working
    /// directory the run ranks from ([`TargetCwd`]).
    pub fn for_run(cache_dir: Option<&Path>, cwd: Option<&str>) -> Caches {
        let caches = Caches::default().with(TargetCwd(cwd.map(str::to_owned)));
        match cache_dir {
            Some(dir) => caches.with(title::TitleIndex::open(dir)),
            None => caches,
        }
    }

    /// The cache value of type `T`, created with `T::default()` the first time.
    pub fn get<T: Default + Send + Sync + 'static>(&self) -> Arc<T> {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        let slot = slots
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Arc::new(T::default()));
        Arc::clone(slot)
            .downcast::<T>()
            .expect("a cache slot holds the type it is keyed by")
    }
}

/// The working directory a run ranks from (`--cwd`, else the current
/// directory), kept in the run's [`Caches`] for a kind that recognises a
/// session's project only by comparing it with a candidate: Gemini CLI's
/// older project folders are named by a hash of the project root, which
/// they record nowhere else.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TargetCwd(pub Option<String>);

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
        f.write_str(&session_ref_core::escape::path_for_person(&self.path))?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ReadError {}

/// The store directories to read, each with its kind, in registry order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoreRoots {
    roots: Vec<(StoreKind, PathBuf)>,
}

impl StoreRoots {
    /// No roots.
    pub fn new() -> Self {
        StoreRoots::default()
    }

    /// These roots and `path` of `kind` (kept in registry order, then in
    /// the order given).
    pub fn with(mut self, kind: StoreKind, path: impl Into<PathBuf>) -> Self {
        self.push(kind, path);
        self
    }

    /// Add `path` of `kind`.
    pub fn push(&mut self, kind: StoreKind, path: impl Into<PathBuf>) {
        let rank = |k: StoreKind| REGISTRY.iter().position(|r| *r == k);
        let at = self
            .roots
            .iter()
            .position(|(k, _)| rank(*k) > rank(kind))
            .unwrap_or(self.roots.len());
        self.roots.insert(at, (kind, path.into()));
    }

    /// Whether no directory is named.
    pub fn is_empty(&self) -> bool {
        self.roots.is_empty()
    }

    /// Every root with its kind.
    pub fn iter(&self) -> impl Iterator<Item = (StoreKind, &PathBuf)> {
        self.roots.iter().map(|(kind, path)| (*kind, path))
    }

    /// The roots of one kind.
    pub fn of(&self, kind: StoreKind) -> impl Iterator<Item = &PathBuf> {
        self.iter().filter(move |(k, _)| *k == kind).map(|(_, p)| p)
    }

    /// The default locations (SPEC §1) of every registered kind, from an
    /// environment lookup and a home directory, whether or not they exist.
    pub fn default_locations(
        env: impl Fn(&str) -> Option<String>,
        home: Option<&Path>,
    ) -> StoreRoots {
        let mut roots = StoreRoots::new();
        for kind in REGISTRY {
            for path in kind.store().default_roots(&env, home) {
                roots.push(*kind, path);
            }
        }
        roots
    }

    /// Keep only directories that exist, and files (a default root may
    /// name a database: `OPENCODE_DB`).
    pub fn existing(self) -> StoreRoots {
        StoreRoots {
            roots: self
                .roots
                .into_iter()
                .filter(|(_, p)| p.is_dir() || p.is_file())
                .collect(),
        }
    }
}

/// The default roots of `kind` as `--help` states them
/// (`$CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects`): its
/// [`Store::default_roots`] evaluated with every variable standing for
/// itself, then with none set and `~` as the home directory, so the help
/// cannot drift from what discovery does.
pub fn default_roots_help(kind: StoreKind) -> String {
    let spell = |roots: Vec<PathBuf>| -> Vec<String> {
        roots.iter().map(|p| p.display().to_string()).collect()
    };
    let store = kind.store();
    let from_env = spell(store.default_roots(&|var| Some(format!("${var}")), None));
    let from_home = spell(store.default_roots(&|_| None, Some(Path::new("~"))));
    let mut all = from_env;
    for path in from_home {
        if !all.contains(&path) {
            all.push(path);
        }
    }
    all.join(", else ")
}

/// `$VAR/sub` when `VAR` is set and not empty, else `$HOME/fallback…`: the
/// shape of every default root in SPEC §1.
pub fn env_or_home(
    env: Env<'_>,
    home: Option<&Path>,
    var: &str,
    sub: &[&str],
    fallback: &[&str],
) -> Vec<PathBuf> {
    let join = |base: PathBuf, parts: &[&str]| parts.iter().fold(base, |p, part| p.join(part));
    match env(var).filter(|v| !v.is_empty()) {
        Some(dir) => vec![join(PathBuf::from(dir), sub)],
        None => home
            .map(|h| join(h.to_path_buf(), fallback))
            .into_iter()
            .collect(),
    }
}

/// A directory as sessions record their working directory (and as
/// Node's `path.resolve` spells it): absolute (a relative path is taken
/// from `current_dir`), without a trailing slash, `.` or `..`. The picker
/// normalises `--cwd` with it (the reference compares directories as
/// strings, so the input is normalised, not the rule); symbolic links are
/// left as given.
pub fn normalize_dir(cwd: &str, current_dir: Option<&str>) -> String {
    use std::path::Component;
    let given = Path::new(cwd);
    let joined = match current_dir {
        Some(base) if given.is_relative() => Path::new(base).join(given),
        _ => given.to_path_buf(),
    };
    let mut parts: Vec<String> = Vec::new();
    let mut root = String::new();
    for component in joined.components() {
        match component {
            Component::Prefix(p) => root.push_str(&p.as_os_str().to_string_lossy()),
            Component::RootDir => root.push('/'),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop();
            }
            Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
        }
    }
    let normal = format!("{root}{}", parts.join("/"));
    if normal.is_empty() {
        cwd.to_owned()
    } else {
        normal
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

/// Why a symbolic link with a session's name inside a store is not listed.
pub const SYMLINK: &str = "a symbolic link: a store's sessions are read in the store, \
     never through a link (which may point anywhere)";

/// Files below `root` (recursively, symbolic links not followed) whose name
/// satisfies `keep`, in byte order of their paths; `root` itself when it is
/// a file (named by the user, so kept whatever its name). Unreadable
/// directories are reported through `on_error`, and so are symbolic links
/// that `keep` would take, as skipped ([`SYMLINK`]).
///
/// `walkdir` does the walk (it handles deep trees and reports each failing
/// directory with its path); the files are then sorted by path bytes, the
/// order ties are broken in (SPEC §3).
pub fn walk_files(
    root: &Path,
    keep: &dyn Fn(&Path) -> bool,
    on_error: &mut dyn FnMut(ScanEvent),
) -> Vec<PathBuf> {
    // A root may name one session file (`--claude FILE.jsonl`).
    if std::fs::symlink_metadata(root).is_ok_and(|m| m.is_file()) {
        return vec![root.to_path_buf()];
    }
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(root).follow_links(false) {
        match entry {
            Ok(entry) => {
                if entry.file_type().is_file() && keep(entry.path()) {
                    files.push(entry.into_path());
                } else if entry.file_type().is_symlink() && keep(entry.path()) {
                    // Said, not dropped silently: `--verbose` names it.
                    on_error(ScanEvent::Skipped {
                        path: entry.into_path(),
                        reason: SYMLINK.to_owned(),
                    });
                }
            }
            Err(e) => {
                let path = e.path().unwrap_or(root).to_path_buf();
                let reason = match e.io_error() {
                    Some(io) => io.to_string(),
                    None => e.to_string(),
                };
                on_error(ScanEvent::Unreadable { path, reason });
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

/// Whether a path's file name ends in `suffix`. Compared as bytes: a file
/// name need not be UTF-8 (paths are bytes on Unix), and such a session is
/// listed like any other.
pub fn has_suffix(path: &Path, suffix: &str) -> bool {
    path.file_name()
        .is_some_and(|n| n.as_encoded_bytes().ends_with(suffix.as_bytes()))
}

/// The first root of `roots` (as named on the command line) that cannot
/// be a store, with what is wrong, as the message of a usage error:
/// nothing at that path; a symbolic link to nothing, or to anything but a
/// directory (a store's own files are never read through a link, so the
/// link would list nothing); a FIFO, device or socket; a regular file that
/// is not a session of its kind (`--claude notes.txt`). A root named on the
/// command line is the user's choice: skipping it silently, as listing
/// skips a stray file in a store directory, would list nothing and say
/// nothing. A directory is a store, even an empty one; a file that cannot
/// be read, or a kind without a single-file form (Gemini CLI's root is a
/// directory), is left to listing, which reports it.
pub fn unusable_root(roots: &StoreRoots) -> Option<String> {
    roots.iter().find_map(|(kind, root)| {
        let store = kind.store();
        let named = || {
            format!(
                "--{} {}",
                store.flag(),
                session_ref_core::escape::path_for_person(root)
            )
        };
        let meta = match std::fs::symlink_metadata(root) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Some(format!("{}: no such file or directory", named()))
            }
            Err(_) => return None,
        };
        let kind_of = |t: std::fs::FileType| {
            use std::os::unix::fs::FileTypeExt;
            if t.is_fifo() {
                "a FIFO"
            } else if t.is_char_device() || t.is_block_device() {
                "a device"
            } else if t.is_socket() {
                "a socket"
            } else if t.is_dir() {
                "a directory"
            } else {
                "a regular file"
            }
        };
        if meta.file_type().is_symlink() {
            return match std::fs::metadata(root) {
                Ok(target) if target.is_dir() => None,
                Ok(target) => Some(format!(
                    "{}: a symbolic link to {}: name the session file itself{}",
                    named(),
                    kind_of(target.file_type()),
                    std::fs::canonicalize(root)
                        .map(|t| format!(" ({})", session_ref_core::escape::path_for_person(&t)))
                        .unwrap_or_default()
                )),
                Err(_) => Some(format!(
                    "{}: a symbolic link to nothing (its target does not exist)",
                    named()
                )),
            };
        }
        if meta.is_dir() {
            return None;
        }
        if !meta.is_file() {
            return Some(format!(
                "{}: {}, not a store directory or a session file",
                named(),
                kind_of(meta.file_type())
            ));
        }
        if !store.lists_each_file() {
            return None;
        }
        let at: Arc<Path> = Arc::from(root.as_path());
        match store.list_file(&Caches::default(), &at, root) {
            ScanEvent::Skipped { reason, .. } => Some(format!(
                "{}: not a {} session: {reason}",
                named(),
                kind.as_str()
            )),
            _ => None,
        }
    })
}

/// Discover every session under `roots`, reporting each file through `sink`
/// as soon as it is classified (from the threads of rayon's pool).
pub fn scan(caches: &Caches, roots: &StoreRoots, sink: &(dyn Fn(ScanEvent) + Sync)) {
    let remotes = caches.get::<remote::Remotes>();
    if remotes.hosts().is_empty() {
        return scan_local(caches, roots, sink);
    }
    // Remote hosts are asked on threads of their own while this one lists
    // the local stores: a slow host never delays the first local rows.
    std::thread::scope(|scope| {
        scope.spawn(|| remotes.scan(sink));
        scan_local(caches, roots, sink);
    });
}

/// [`scan`] of this machine's stores only.
fn scan_local(caches: &Caches, roots: &StoreRoots, sink: &(dyn Fn(ScanEvent) + Sync)) {
    for (kind, root) in roots.iter() {
        let root: Arc<Path> = Arc::from(root.as_path());
        kind.store().scan(caches, &root, sink);
    }
}

/// The reader of `record`: its kind's store, or the remote reader for a
/// session another machine listed.
pub fn reader_of(record: &SessionRecord) -> &'static dyn Store {
    match record.host {
        Some(_) => &remote::REMOTE,
        None => record.kind.store(),
    }
}

/// What listing found under one store root ([`Catalog::found_under`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RootTally {
    /// Sessions listed from it.
    pub sessions: usize,
    /// Files below it that are not sessions.
    pub skipped: usize,
    /// Files below it that could not be listed.
    pub unreadable: usize,
}

impl fmt::Display for RootTally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural = |n: usize, what: &str| match n {
            1 => format!("1 {what}"),
            n => format!("{n} {what}s"),
        };
        write!(
            f,
            "{}, {} skipped, {} unreadable",
            plural(self.sessions, "session"),
            self.skipped,
            self.unreadable
        )
    }
}

pub use session_ref_core::candidates::RecordId;

/// Every listed session, plus what could not be listed: the one list of
/// sessions that discovery appends to and that the engine, the commands
/// and the picker read.
///
/// Records keep their arrival order (a [`RecordId`] never changes); the
/// catalog also keeps them in record order (`listSessions`, SPEC §3) and
/// knows, for each session id, its first record in that order: the one a
/// mention of the id reads, and whose title labels every record of the id.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    records: Vec<SessionRecord>,
    order: Vec<RecordId>,
    first: HashMap<String, RecordId>,
    /// Files that are not sessions, with the reason, sorted.
    pub skipped: Vec<(PathBuf, String)>,
    /// Files that look like sessions but could not be listed, sorted.
    pub unreadable: Vec<(PathBuf, String)>,
    caches: Arc<Caches>,
}

/// Candidates are ranked over the catalog's listing order.
impl session_ref_core::candidates::Listing for Catalog {
    fn order(&self) -> &[RecordId] {
        Catalog::order(self)
    }

    fn session_id(&self, record: RecordId) -> &str {
        &self.get(record).id
    }

    fn cwd(&self, record: RecordId) -> Option<&str> {
        self.get(record).cwd.as_deref()
    }
}

impl Catalog {
    /// An empty catalog reading with `caches`.
    pub fn with_caches(caches: Arc<Caches>) -> Catalog {
        Catalog {
            caches,
            ..Catalog::default()
        }
    }

    /// Scan `roots` completely.
    pub fn load(roots: &StoreRoots) -> Catalog {
        Catalog::load_with(Arc::default(), roots)
    }

    /// Scan `roots` completely, reading with `caches` (which may hold a
    /// title index).
    pub fn load_with(caches: Arc<Caches>, roots: &StoreRoots) -> Catalog {
        let mut catalog = Catalog::with_caches(caches);
        let found = Mutex::new(Vec::new());
        scan(&catalog.caches, roots, &|event| {
            found.lock().unwrap_or_else(|e| e.into_inner()).push(event)
        });
        catalog.append(found.into_inner().unwrap_or_else(|e| e.into_inner()));
        catalog
    }

    /// Build from discovery events (any order).
    pub fn from_events(events: impl IntoIterator<Item = ScanEvent>) -> Catalog {
        let mut catalog = Catalog::default();
        catalog.append(events);
        catalog
    }

    /// Add discovery events (any order). Returns the ids of the records
    /// added, in arrival order.
    pub fn append(&mut self, events: impl IntoIterator<Item = ScanEvent>) -> Vec<RecordId> {
        let mut fresh = Vec::new();
        let (mut skipped, mut unreadable) = (false, false);
        let remotes = self.caches.get::<remote::Remotes>();
        for event in events {
            match event {
                ScanEvent::Record(record) => {
                    // The rule of `remote`'s "Names": a local id of the
                    // form `ID@HOST`, HOST a configured remote, is not listed.
                    let remote = record
                        .host
                        .is_none()
                        .then(|| remotes.split_id(&record.id))
                        .flatten();
                    if let Some((host, _)) = remote {
                        self.skipped.push((
                            record.path.clone(),
                            format!(
                                "its id names a session of the remote {}: a local session cannot stand for it",
                                host.host
                            ),
                        ));
                        skipped = true;
                        continue;
                    }
                    fresh.push(self.records.len());
                    self.records.push(record);
                }
                ScanEvent::Skipped { path, reason } => {
                    self.skipped.push((path, reason));
                    skipped = true;
                }
                ScanEvent::Unreadable { path, reason } => {
                    self.unreadable.push((path, reason));
                    unreadable = true;
                }
            }
        }
        if skipped {
            self.skipped.sort();
        }
        if unreadable {
            self.unreadable.sort();
        }
        if fresh.is_empty() {
            return fresh;
        }
        let mut sorted = fresh.clone();
        sorted.sort_by(|&a, &b| model::record_order(&self.records[a], &self.records[b]));
        let old = std::mem::take(&mut self.order);
        let mut merged = Vec::with_capacity(old.len() + sorted.len());
        let (mut i, mut j) = (0, 0);
        while i < old.len() && j < sorted.len() {
            let later = model::record_order(&self.records[old[i]], &self.records[sorted[j]]);
            if later == std::cmp::Ordering::Greater {
                merged.push(sorted[j]);
                j += 1;
            } else {
                merged.push(old[i]);
                i += 1;
            }
        }
        merged.extend_from_slice(&old[i..]);
        merged.extend_from_slice(&sorted[j..]);
        self.order = merged;
        for &id in &fresh {
            let record = &self.records[id];
            match self.first.get(&record.id) {
                Some(&known)
                    if model::record_order(&self.records[known], record)
                        != std::cmp::Ordering::Greater => {}
                _ => {
                    self.first.insert(record.id.clone(), id);
                }
            }
        }
        fresh
    }

    /// A catalog of the given records only, sharing this one's caches
    /// (the picker reads a preview before discovery has ended with it).
    pub fn subset(&self, records: impl IntoIterator<Item = SessionRecord>) -> Catalog {
        let mut subset = Catalog::with_caches(Arc::clone(&self.caches));
        subset.append(records.into_iter().map(ScanEvent::Record));
        subset
    }

    /// How many records are listed.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether no record is listed.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The record with this [`RecordId`].
    pub fn get(&self, id: RecordId) -> &SessionRecord {
        &self.records[id]
    }

    /// Record ids in record order.
    pub fn order(&self) -> &[RecordId] {
        &self.order
    }

    /// Records in record order.
    pub fn ordered(&self) -> impl Iterator<Item = &SessionRecord> {
        self.order.iter().map(|&id| &self.records[id])
    }

    /// The first record (in record order) with this session id.
    pub fn find(&self, session_id: &str) -> Option<&SessionRecord> {
        self.first.get(session_id).map(|&i| &self.records[i])
    }

    /// The id of [`Catalog::find`]'s record.
    pub fn find_id(&self, session_id: &str) -> Option<RecordId> {
        self.first.get(session_id).copied()
    }

    /// The record whose title labels record `id`: the first record in
    /// record order sharing its session id (itself, unless ids repeat).
    pub fn label_source(&self, id: RecordId) -> RecordId {
        self.first.get(&self.records[id].id).copied().unwrap_or(id)
    }

    /// The label of record `id` (SPEC §6): the title of its label source
    /// as `title_of` gives it, else the session id. The one labelling rule
    /// of the engine and the picker. This is the text queries match (the
    /// title as the log holds it); what is shown and cited is it made safe
    /// by `session_ref_core::escape::safe_label`.
    pub fn label(&self, id: RecordId, title_of: impl FnOnce(RecordId) -> Option<String>) -> String {
        title_of(self.label_source(id)).unwrap_or_else(|| self.records[id].id.clone())
    }

    /// What listing found under one root of `kind` (`--verbose` reports it
    /// for every root, whatever its kind): its sessions, and the files
    /// below it skipped or not listable.
    pub fn found_under(&self, kind: StoreKind, root: &Path) -> RootTally {
        let below = |path: &PathBuf| path.starts_with(root);
        RootTally {
            sessions: self
                .records
                .iter()
                .filter(|r| r.kind == kind && &*r.root == root)
                .count(),
            skipped: self.skipped.iter().filter(|(p, _)| below(p)).count(),
            unreadable: self.unreadable.iter().filter(|(p, _)| below(p)).count(),
        }
    }

    /// The caches readers of this catalog share.
    pub fn caches(&self) -> &Arc<Caches> {
        &self.caches
    }

    /// The latest title of a session of this catalog (through the title
    /// index when it is in use).
    pub fn read_title(&self, record: &SessionRecord) -> Result<Option<String>, ReadError> {
        read_title(&self.caches, record)
    }

    /// The last activity of a session of this catalog (Unix seconds; see
    /// [`last_activity`]).
    pub fn last_activity(&self, record: &SessionRecord) -> Option<i64> {
        last_activity(&self.caches, record)
    }

    /// Save the title index, when in use and changed (never an error).
    pub fn save_index(&self) {
        self.caches.get::<title::TitleIndex>().save();
    }

    /// The folded surface of a session of this catalog.
    pub fn read_surface(&self, record: &SessionRecord) -> Result<Surface, ReadError> {
        reader_of(record).read_surface(&self.caches, record)
    }

    /// The whole conversation of a session of this catalog (surface and
    /// shadowed events), for search.
    pub fn read_history(&self, record: &SessionRecord) -> Result<History, ReadError> {
        reader_of(record).read_history(&self.caches, record)
    }

    /// [`Store::fold_resumable`] for a session of this catalog.
    pub fn fold_resumable(
        &self,
        record: &SessionRecord,
        len: u64,
        from: Option<&journal::ResumePoint>,
    ) -> Result<journal::Folded, ReadError> {
        reader_of(record).fold_resumable(&self.caches, record, len, from)
    }

    /// Fold the surface of a session of this catalog into `sink` as its log
    /// is read: the seq of the last complete event read.
    pub fn fold_surface(
        &self,
        record: &SessionRecord,
        sink: &mut dyn SurfaceSink,
    ) -> Result<u64, ReadError> {
        reader_of(record).fold_surface(&self.caches, record, sink)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_locations_follow_the_environment() {
        let home = Path::new("/home/u");
        let none = StoreRoots::default_locations(|_| None, Some(home));
        assert_eq!(
            none.of(native::KIND).collect::<Vec<_>>(),
            [Path::new("/home/u/.hydra/sessions")]
        );
        assert_eq!(
            none.of(claude::KIND).collect::<Vec<_>>(),
            [Path::new("/home/u/.claude/projects")]
        );
        assert_eq!(
            none.of(codex::KIND).collect::<Vec<_>>(),
            [Path::new("/home/u/.codex/sessions")]
        );
        assert_eq!(
            none.of(gemini::KIND).collect::<Vec<_>>(),
            [Path::new("/home/u/.gemini")]
        );
        let env = |k: &str| match k {
            "HYDRA_SESSIONS" => Some("/h".to_owned()),
            "CLAUDE_CONFIG_DIR" => Some("/c".to_owned()),
            "CODEX_HOME" => Some("/x".to_owned()),
            "GEMINI_CLI_HOME" => Some("/g".to_owned()),
            "PI_CODING_AGENT_DIR" => Some("/p".to_owned()),
            "COPILOT_HOME" => Some("/c".to_owned()),
            "QWEN_HOME" => Some("/q".to_owned()),
            "XDG_DATA_HOME" => Some("/d".to_owned()),
            _ => None,
        };
        let set = StoreRoots::default_locations(env, Some(home));
        let all: Vec<(&str, &Path)> = set.iter().map(|(k, p)| (k.as_str(), p.as_path())).collect();
        assert_eq!(
            all,
            [
                ("hydra", Path::new("/h")),
                ("claude", Path::new("/c/projects")),
                ("codex", Path::new("/x/sessions")),
                ("gemini", Path::new("/g/.gemini")),
                ("pi", Path::new("/p/sessions")),
                ("qwen", Path::new("/q/projects")),
                ("copilot", Path::new("/c/session-state")),
                ("opencode", Path::new("/d/opencode")),
            ]
        );
    }

    #[test]
    fn default_roots_help_spells_each_kinds_discovery() {
        assert_eq!(
            default_roots_help(claude::KIND),
            "$CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects"
        );
        assert_eq!(
            default_roots_help(native::KIND),
            "$HYDRA_SESSIONS, else ~/.hydra/sessions"
        );
        assert_eq!(
            default_roots_help(gemini::KIND),
            "$GEMINI_CLI_HOME/.gemini, else ~/.gemini"
        );
        assert_eq!(
            default_roots_help(pi::KIND),
            "$PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions"
        );
        assert_eq!(
            default_roots_help(qwen::KIND),
            "$QWEN_RUNTIME_DIR/projects, else $QWEN_HOME/projects, else ~/.qwen/projects"
        );
        let runtime = |k: &str| (k == "QWEN_RUNTIME_DIR").then(|| "/r".to_owned());
        assert_eq!(
            qwen::KIND
                .store()
                .default_roots(&runtime, Some(Path::new("/home/u"))),
            [
                PathBuf::from("/r/projects"),
                PathBuf::from("/home/u/.qwen/projects")
            ]
        );
        assert_eq!(
            default_roots_help(opencode::KIND),
            "$OPENCODE_DB, else ~/.local/share/opencode"
        );
    }

    #[test]
    fn roots_keep_registry_order_then_the_order_given() {
        let roots = StoreRoots::new()
            .with(codex::KIND, "/x1")
            .with(native::KIND, "/h")
            .with(codex::KIND, "/x2")
            .with(claude::KIND, "/c");
        let all: Vec<&str> = roots.iter().map(|(_, p)| p.to_str().unwrap()).collect();
        assert_eq!(all, ["/h", "/c", "/x1", "/x2"]);
    }

    #[test]
    fn the_registry_names_each_kind_and_flag_once() {
        let names: Vec<&str> = REGISTRY.iter().map(|k| k.as_str()).collect();
        let flags: Vec<&str> = REGISTRY.iter().map(|k| k.store().flag()).collect();
        assert_eq!(
            names,
            ["hydra", "claude", "codex", "gemini", "pi", "qwen", "copilot", "opencode"]
        );
        assert_eq!(
            flags,
            ["store", "claude", "codex", "gemini", "pi", "qwen", "copilot", "opencode"]
        );
        assert_eq!(kind_by_flag("store"), Some(native::KIND));
        assert_eq!(kind_by_name("codex"), Some(codex::KIND));
    }

    #[test]
    fn caches_are_per_type_and_per_owner() {
        #[derive(Default)]
        struct Counter(std::sync::atomic::AtomicU32);
        let a = Caches::default();
        a.get::<Counter>()
            .0
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        assert_eq!(
            a.get::<Counter>()
                .0
                .load(std::sync::atomic::Ordering::Relaxed),
            1
        );
        let b = Caches::default();
        assert_eq!(
            b.get::<Counter>()
                .0
                .load(std::sync::atomic::Ordering::Relaxed),
            0
        );
    }

    fn record(path: &str, id: &str, created_at: &str) -> SessionRecord {
        SessionRecord::new(
            native::KIND,
            Arc::from(Path::new("/s")),
            path.into(),
            id.into(),
            None,
            created_at.into(),
        )
    }

    #[test]
    fn appending_keeps_record_order_and_the_first_record_of_each_id() {
        let mut catalog = Catalog::default();
        let first = catalog.append([
            ScanEvent::Record(record("/s/b.jsonl", "dup", "2025-01-01T00:00:00Z")),
            ScanEvent::Record(record("/s/c.jsonl", "x", "2025-03-01T00:00:00Z")),
        ]);
        assert_eq!(first, [0, 1]);
        let second = catalog.append([
            ScanEvent::Skipped {
                path: "/s/z".into(),
                reason: "no".into(),
            },
            ScanEvent::Record(record("/s/a.jsonl", "dup", "2025-02-01T00:00:00Z")),
        ]);
        assert_eq!(second, [2]);
        let paths: Vec<&str> = catalog
            .ordered()
            .map(|r| r.path.to_str().unwrap())
            .collect();
        assert_eq!(paths, ["/s/c.jsonl", "/s/a.jsonl", "/s/b.jsonl"]);
        assert_eq!(catalog.find("dup").unwrap().path, Path::new("/s/a.jsonl"));
        assert_eq!(catalog.label_source(0), 2);
        assert_eq!(catalog.label(0, |_| None), "dup");
        assert_eq!(catalog.label(0, |s| (s == 2).then(|| "T".into())), "T");
        assert_eq!(catalog.skipped.len(), 1);
        let tally = catalog.found_under(native::KIND, Path::new("/s"));
        assert_eq!((tally.sessions, tally.skipped, tally.unreadable), (3, 1, 0));
        assert_eq!(tally.to_string(), "3 sessions, 1 skipped, 0 unreadable");
        assert_eq!(
            catalog.found_under(codex::KIND, Path::new("/s")).sessions,
            0
        );
    }
}
