//! The interface every kind of store implements ([`Store`]; see "The
//! interface" in the crate docs), the environment lookup its default roots
//! read ([`Env`]) and the shape of every default root ([`env_or_home`]);
//! with it, the types its methods name and that name it back: a kind's
//! handle ([`StoreKind`], holding its `Store`), a listed session
//! ([`SessionRecord`], naming its kind), what discovery reports of each
//! file ([`ScanEvent`]) and the walk every kind's listing shares
//! ([`walk_files`], [`has_suffix`]), which the trait's default `scan`
//! runs. They refer to each other, so they are one module: kept apart,
//! their modules would import each other. Discovering the sessions of
//! whole roots and remote hosts (`catalog::scan`) sits above.
//!
//! A kind imports this and the other base modules (`error`, `caches`,
//! `model`), never the registry or the catalog above them, and never
//! through the crate root's re-exports.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use session_ref_core::model::{History, Surface, SurfaceSink};
use session_ref_core::time::Instant;

use crate::caches::{modified_secs, Caches};
use crate::error::ReadError;
use crate::index::journal;
use crate::index::stamp::{Stamp, TitleInputs};

/// An environment lookup (`std::env::var`, or a test's table).
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// One kind of session store. Implemented by a unit type per kind and
/// registered in [`crate::REGISTRY`].
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

    /// Whether this kind finds its logs through the working directories
    /// of the sessions the other kinds listed ([`crate::caches::KnownCwds`]):
    /// such a kind's roots are scanned after every other kind's, so its
    /// scan sees them all, and never delays their first rows.
    fn uses_known_cwds(&self) -> bool {
        false
    }

    /// Report every file below `root` through `sink`, from several threads.
    /// `kind` is this store's own handle (the one [`crate::REGISTRY`]
    /// holds, given by the caller so that a store never looks itself up
    /// in the registry above it), the kind of the records listed. The
    /// default walks the root ([`walk_files`]) and lists the files
    /// [`Store::wants`] in parallel with [`Store::list_file`], through the
    /// title index of `caches`; a kind whose sessions span several files
    /// overrides it.
    fn scan(
        &self,
        kind: StoreKind,
        caches: &Caches,
        root: &Arc<Path>,
        sink: &(dyn Fn(ScanEvent) + Sync),
    ) {
        let files = walk_files(root, &|p| self.wants(p), &mut |event| sink(event));
        let lister = caches.get::<Lister>();
        files.par_iter().for_each(|path| {
            sink(match &lister.0 {
                Some(lister) => lister.list_file(kind.store(), kind, caches, root, path),
                None => kind.store().list_file(caches, root, path),
            })
        });
    }

    /// The latest title of a listed session, read as cheaply as the format
    /// allows. `None` when it has none. Read through the title index with
    /// the free function [`crate::read_title`], which calls this only for what
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
    fn title_inputs(&self, caches: &Caches, record: &SessionRecord) -> Option<TitleInputs> {
        let _ = (caches, record);
        None
    }

    /// For a kind whose title is the last title line of the session's own
    /// file: the latest title among the lines starting at or after byte
    /// `floor` (a line start), with the offset of its line. This lets the
    /// title index ([`crate::index`]) search only the bytes appended since it last
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

    /// The files below the record's root, besides its log, that its reader
    /// reads for it (where a title or working directory is kept beside the
    /// log), so that session-ref's archive keeps them with the log
    /// (`crate::archive`). None by default; a path that is not a file is
    /// passed over.
    fn side_files(&self, caches: &Caches, record: &SessionRecord) -> Vec<PathBuf> {
        let _ = (caches, record);
        Vec::new()
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
    fn stamp(&self, caches: &Caches, record: &SessionRecord) -> Option<Stamp> {
        let _ = caches;
        Stamp::current(&record.path)
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

/// How the default [`Store::scan`] lists each file it walked: the run's
/// listing cache, the title index ([`crate::index::title`], which puts
/// itself in the run's caches with `TitleIndex::into_caches`). A trait
/// object, so that this trait names nothing above it: the index reads
/// through the trait.
pub trait ListFile: Send + Sync {
    /// List `path` of `store` (whose handle is `kind`) below `root`.
    fn list_file(
        &self,
        store: &dyn Store,
        kind: StoreKind,
        caches: &Caches,
        root: &Arc<Path>,
        path: &Path,
    ) -> ScanEvent;
}

/// The run's [`ListFile`], kept in its [`Caches`]; none (the default)
/// lists each file by [`Store::list_file`] alone.
#[derive(Clone, Default)]
pub struct Lister(pub Option<Arc<dyn ListFile>>);

/// The surface `fold` feeds, without assistant messages that never
/// received text: [`Store::read_surface`] of a kind that folds into any
/// sink ([`Store::fold_surface`]).
pub fn surface_of(
    fold: impl FnOnce(&mut Surface) -> Result<u64, ReadError>,
) -> Result<Surface, ReadError> {
    let mut surface = Surface::default();
    let last = fold(&mut surface)?;
    surface.drop_empty_assistant_messages();
    surface.captured_through_seq = last;
    Ok(surface)
}

/// [`Store::list_file`] of a kind whose one file holds many sessions (a
/// database): the file is listed as a root of its own through `store`'s
/// scan, and is one session when it holds exactly one (`what` names such a
/// file for the reason it is not: `an opencode store`).
pub fn list_alone(
    store: &dyn Store,
    kind: StoreKind,
    caches: &Caches,
    root: &Arc<Path>,
    path: &Path,
    what: &str,
) -> ScanEvent {
    let found = std::sync::Mutex::new(Vec::new());
    let root_of_file: Arc<Path> = Arc::from(path);
    store.scan(kind, caches, &root_of_file, &|e| {
        crate::caches::lock(&found).push(e)
    });
    let mut found = found.into_inner().unwrap_or_else(|e| e.into_inner());
    match found.len() {
        1 => match found.remove(0) {
            ScanEvent::Record(mut r) => {
                r.root = Arc::clone(root);
                ScanEvent::Record(r)
            }
            other => other,
        },
        n => ScanEvent::Skipped {
            path: path.to_owned(),
            reason: format!("{what} of {n} sessions, not one session"),
        },
    }
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

/// Which kind of store a session came from: a handle to one registered
/// [`Store`], compared, hashed and shown by its name.
#[derive(Clone, Copy)]
pub struct StoreKind(&'static dyn Store);

impl StoreKind {
    /// The handle of a store (each kind's file defines its `KIND` with it).
    pub const fn new(store: &'static dyn Store) -> Self {
        StoreKind(store)
    }

    /// The store itself.
    pub fn store(self) -> &'static dyn Store {
        self.0
    }

    /// The kind's name as shown and serialized (`hydra`, `claude`, `codex`,
    /// `gemini`).
    pub fn as_str(self) -> &'static str {
        self.0.name()
    }
}

impl PartialEq for StoreKind {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for StoreKind {}

impl std::hash::Hash for StoreKind {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Debug for StoreKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StoreKind({})", self.as_str())
    }
}

impl fmt::Display for StoreKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// A listed session: what listing knows without reading the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRecord {
    /// The session id (any string).
    pub id: String,
    /// The session's working directory, when known.
    pub cwd: Option<String>,
    /// Creation time exactly as the log spells it.
    pub created_at: String,
    /// `created_at` parsed as an instant, `None` when it does not parse.
    pub created: Option<Instant>,
    /// The store kind that holds it.
    pub kind: StoreKind,
    /// The log file.
    pub path: PathBuf,
    /// The store root it was found under (adapters read side files from it).
    pub root: Arc<Path>,
    /// The machine holding it, for a session listed by a remote
    /// ([`crate::remote`]); `None` for a session of this machine.
    pub host: Option<Arc<str>>,
    /// Last activity (Unix seconds) as its remote reported it; `None` for
    /// a local session, whose activity is read from its log.
    pub updated: Option<i64>,
    /// Whether the session is listed from session-ref's archive only
    /// ([`crate::archive`]): its agent no longer has it, and it is read
    /// from the copy `keep` made, by its kind's own reader.
    pub archived: bool,
}

impl SessionRecord {
    /// Build a record, parsing `created_at` once.
    pub fn new(
        kind: StoreKind,
        root: Arc<Path>,
        path: PathBuf,
        id: String,
        cwd: Option<String>,
        created_at: String,
    ) -> Self {
        let created = Instant::parse_rfc3339(&created_at);
        SessionRecord {
            id,
            cwd,
            created_at,
            created,
            kind,
            path,
            root,
            host: None,
            updated: None,
            archived: false,
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
