//! Goose sessions (block's `goose` CLI and desktop app), read from its
//! SQLite database `sessions.db` (Goose 1.10 and later; the formats page
//! says 1.20) and from the one-file-per-session `.jsonl` logs of the
//! versions before it.
//!
//! Goose could not be run here (its installer downloads a binary; see
//! `../shared/spec/formats/not-run-here.md`). Every rule below is read
//! from its source, `block/goose` on GitHub (through the `search` tool's
//! stored copies): `crates/goose/src/session/session_manager.rs` at
//! commit `dbec1655c177…` (schema version 9: the tables, how sessions
//! are created, listed and named, [`db`]), `crates/goose/src/config/paths.rs`
//! (where the data directory is), `crates/goose/src/conversation/message.rs`
//! (the message content) and `crates/goose/src/context_mgmt/mod.rs`
//! (compaction, [`convo::turn_of`]).
//!
//! # Layout
//!
//! Goose's data directory is `$GOOSE_PATH_ROOT/data` when that variable
//! is an absolute path, else `$XDG_DATA_HOME/goose`, else
//! `~/.local/share/goose` (etcetera's XDG strategy on Linux); its
//! sessions are in `sessions/`: `sessions.db` (WAL mode), and the legacy
//! `<name>.jsonl` files Goose imported into the database when it first
//! created it (kept on disk). A root (`--goose DIR`) is that data
//! directory, its `sessions/` folder, the database, or one legacy file. A
//! database session's record path is `<sessions.db>/<id>` (one file holds
//! every session; each record needs a path of its own).
//!
//! # Record
//!
//! - Listed: sessions with at least one message whose `session_type` is
//!   `user` or `scheduled`, as Goose's own `session list` does. A
//!   `specialist` session is a sub-agent's (skipped, counted under `-v`);
//!   `hidden` and `terminal` sessions are Goose's own (skipped the same way).
//!   A legacy file whose id the database also holds is the imported copy's
//!   original (skipped). A copied session (`copy_session`, the desktop's
//!   duplicate) is a session of its own, with a new id.
//! - id: `sessions.id`, `YYYYMMDD_N` (what `goose session --resume --id`
//!   takes); a legacy file's name without `.jsonl`.
//! - cwd: `working_dir` (the directory the session started in; a resume
//!   elsewhere does not move it).
//! - created: `created_at`; last activity: `updated_at` (set on every
//!   message), both UTC.
//!
//! # Title
//!
//! `name` (`description` before schema version 4, and in legacy files):
//! what the person set, or the name Goose generated from the first
//! messages; not the CLI's placeholder `CLI Session`. Without one, the
//! first line of the first typed prompt, kept in the title index by the
//! row's `updated_at` ([`untitled_title`]): reading the first messages is
//! what listing an untitled session costs, and a warm listing of 10,000
//! sessions then reads none (601 → 139 ms CPU in one paired run).
//!
//! # What the person typed
//!
//! A user message the person sees (`metadata.userVisible`, true when
//! absent) and its `text` items; tool responses (user messages of
//! `toolResponse` items) are not. A reply is an assistant message's
//! `text` items: not `thinking`, `redactedThinking`, `toolRequest`,
//! `systemNotification`. Compaction keeps the old messages for the person
//! (`agentVisible: false`) and adds a summary only the agent sees: that
//! summary is the compact checkpoint and shadows what came before it
//! ([`convo::turn_of`]).

pub mod convo;
pub mod db;

use std::collections::{HashMap, HashSet};
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use rayon::prelude::*;

use crate::caches::{lock, Caches};
use crate::error::ReadError;
use crate::index::stamp::Stamp;
use crate::kinds::foreign::title_from_text;
use crate::kinds::opencode::convo::rfc3339_ms;
use crate::kinds::row_title::{self, RowVersion};
use crate::kinds::sqlite::Pool;
use crate::model::{SessionRecord, StoreKind, Surface, SurfaceSink};
use crate::store::ScanEvent;
use crate::store::{list_alone, surface_of, Env, Store};
use session_ref_core::time::Instant;

use db::SessionRow;

/// The Goose store kind.
pub struct Goose;

/// The registry handle of [`Goose`].
pub const KIND: StoreKind = StoreKind::new(&Goose);

/// Why a sub-agent's (`specialist`) session is not listed.
pub const SUBAGENT: &str = "Goose sub-agent session (part of its parent session)";
/// Why a session Goose keeps for itself is not listed.
pub const INTERNAL: &str = "Goose internal session (hidden or terminal; its list hides it)";
/// Why a legacy file of a session also in the database is not listed.
pub const LEGACY_COPY: &str =
    "legacy copy of a session also in Goose's database (listed from there)";

/// The database's file name in the sessions folder.
const DB_NAME: &str = "sessions.db";

/// What a run knows of each database it listed.
#[derive(Default)]
struct GooseCaches {
    /// Each database's session rows by id, as listing read them.
    rows: Mutex<HashMap<PathBuf, Arc<HashMap<String, SessionRow>>>>,
    /// Each database's per-session versions ([`db::versions`]).
    versions: Mutex<HashMap<PathBuf, Versions>>,
    /// Idle connections.
    idle: Pool<db::Db>,
}

type Versions = Arc<OnceLock<Result<HashMap<String, (u64, i64)>, String>>>;

/// `read` on a connection to `db` (opened once per run, [`Pool`]).
fn with_db<T>(
    caches: &Caches,
    db: &Path,
    read: impl FnOnce(&db::Db) -> Result<T, String>,
) -> Result<T, String> {
    caches
        .get::<GooseCaches>()
        .idle
        .with(db, || db::open(db), read)
}

/// Where a root keeps its sessions.
#[derive(Debug, Default, PartialEq, Eq)]
struct Layout {
    /// The database, when there is one.
    db: Option<PathBuf>,
    /// Legacy session files.
    legacy: Vec<PathBuf>,
}

impl Layout {
    fn of(root: &Path) -> std::io::Result<Layout> {
        let meta = std::fs::metadata(root)?;
        if meta.is_file() {
            return Ok(if is_legacy(root) {
                Layout {
                    db: Some(root.with_file_name(DB_NAME)).filter(|d| d.is_file()),
                    legacy: vec![root.to_owned()],
                }
            } else {
                Layout {
                    db: Some(root.to_owned()),
                    legacy: Vec::new(),
                }
            });
        }
        let sessions = if root.join("sessions").is_dir() {
            root.join("sessions")
        } else {
            root.to_owned()
        };
        let mut legacy: Vec<PathBuf> = std::fs::read_dir(&sessions)?
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| e.path())
            .filter(|p| is_legacy(p))
            .collect();
        legacy.sort();
        Ok(Layout {
            db: Some(sessions.join(DB_NAME)).filter(|d| d.is_file()),
            legacy,
        })
    }
}

/// Whether `path` is named as a legacy session file.
fn is_legacy(path: &Path) -> bool {
    path.extension().is_some_and(|x| x == "jsonl")
}

/// The database holding `record`, when it is a database session (its
/// path's parent is a file).
fn db_of<'a>(caches: &Caches, record: &'a SessionRecord) -> Option<&'a Path> {
    let parent = record.path.parent()?;
    let listed = lock(&caches.get::<GooseCaches>().rows).contains_key(parent);
    (listed || parent.is_file()).then_some(parent)
}

/// The row of `record` in `db`: as listing read it, else read now.
fn row_of(caches: &Caches, db: &Path, record: &SessionRecord) -> Result<SessionRow, ReadError> {
    let listed = lock(&caches.get::<GooseCaches>().rows)
        .get(db)
        .and_then(|rows| rows.get(&record.id).cloned());
    if let Some(row) = listed {
        return Ok(row);
    }
    with_db(caches, db, db::sessions)
        .map_err(|e| fail(record, e))?
        .into_iter()
        .find(|r| r.id == record.id)
        .ok_or_else(|| fail(record, "the session is gone from the database".into()))
}

/// A failure on one record, said for a person.
fn fail(record: &SessionRecord, message: String) -> ReadError {
    ReadError {
        path: record.path.clone(),
        line: None,
        message,
    }
}

/// The title a session's name gives: none for Goose's placeholders.
fn named(name: &str) -> Option<String> {
    Some(name)
        .filter(|n| !convo::is_placeholder_name(n))
        .and_then(title_from_text)
}

/// The title of an untitled database session, from its first prompt,
/// kept in the title index by the row's `updated_at` (Goose sets it with
/// every message it adds; [`row_title`]).
fn untitled_title(
    caches: &Caches,
    db: &Path,
    record: &SessionRecord,
    row: &SessionRow,
) -> Result<Option<String>, ReadError> {
    let version = convo::rfc3339(&row.updated_at)
        .and_then(|t| Instant::parse_rfc3339(&t))
        .map(|t| RowVersion::from_secs(t.unix_seconds(), 0));
    row_title::first_prompt_title(caches, KIND, record, version, || {
        first_prompt(caches, db, record)
    })
}

/// The first line of the first prompt of a database session: most
/// untitled sessions say it in the first few messages, so those are read
/// first, and the whole conversation only when they hold none (the same
/// title either way: the first prompt in order).
fn first_prompt(
    caches: &Caches,
    db: &Path,
    record: &SessionRecord,
) -> Result<Option<String>, ReadError> {
    let head = with_db(caches, db, |conn| {
        db::first_messages(conn, &record.id, TITLE_HEAD)
    })
    .map_err(|e| fail(record, e))?;
    if let Some(title) = convo::first_prompt_title(&head) {
        return Ok(Some(title));
    }
    if head.len() < TITLE_HEAD as usize {
        return Ok(None);
    }
    Ok(convo::first_prompt_title(&read_messages(caches, record)?))
}

/// How many messages an untitled session's title is first looked for in.
const TITLE_HEAD: u32 = 8;

/// The messages of `record`, read now.
fn read_messages(
    caches: &Caches,
    record: &SessionRecord,
) -> Result<Vec<convo::Message>, ReadError> {
    match db_of(caches, record) {
        Some(db) => {
            with_db(caches, db, |conn| db::messages(conn, &record.id)).map_err(|e| fail(record, e))
        }
        None => {
            let bytes = std::fs::read(&record.path).map_err(|e| ReadError::io(&record.path, &e))?;
            Ok(convo::Legacy::parse(&bytes).messages)
        }
    }
}

/// What listing needs of a legacy file: its metadata line and the first
/// message's `created`, read from its head.
fn legacy_head(path: &Path) -> std::io::Result<convo::Legacy> {
    let file = std::fs::File::open(path)?;
    let mut head = Vec::new();
    for line in std::io::BufReader::new(file).split(b'\n').take(2) {
        head.extend_from_slice(&line?);
        head.push(b'\n');
    }
    Ok(convo::Legacy::parse(&head))
}

/// The record, or why not, of one session row of `db`.
fn db_event(root: &Arc<Path>, db: &Path, row: &SessionRow) -> ScanEvent {
    let path = db.join(&row.id);
    let skipped = |reason: &str| ScanEvent::Skipped {
        path: path.clone(),
        reason: reason.to_owned(),
    };
    match row.session_type.as_str() {
        "user" | "scheduled" => {}
        "specialist" => return skipped(SUBAGENT),
        _ => return skipped(INTERNAL),
    }
    ScanEvent::Record(SessionRecord::new(
        KIND,
        Arc::clone(root),
        path,
        row.id.clone(),
        Some(row.working_dir.clone()).filter(|d| !d.is_empty()),
        convo::rfc3339(&row.created_at).unwrap_or_default(),
    ))
}

/// The record, or why not, of one legacy file.
fn legacy_event(root: &Arc<Path>, path: &Path, in_db: &HashSet<String>) -> ScanEvent {
    let id = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_owned();
    if in_db.contains(&id) {
        return ScanEvent::Skipped {
            path: path.to_owned(),
            reason: LEGACY_COPY.into(),
        };
    }
    let head = match legacy_head(path) {
        Ok(head) => head,
        Err(e) => {
            return ScanEvent::Unreadable {
                path: path.to_owned(),
                reason: e.to_string(),
            }
        }
    };
    ScanEvent::Record(SessionRecord::new(
        KIND,
        Arc::clone(root),
        path.to_owned(),
        id,
        head.working_dir,
        head.created
            .map(|s| rfc3339_ms(s.saturating_mul(1000)))
            .unwrap_or_default(),
    ))
}

/// List every session under a root.
fn scan_root(caches: &Caches, root: &Arc<Path>, sink: &(dyn Fn(ScanEvent) + Sync)) {
    let layout = match Layout::of(root) {
        Ok(layout) => layout,
        Err(e) => {
            sink(ScanEvent::Unreadable {
                path: root.to_path_buf(),
                reason: e.to_string(),
            });
            return;
        }
    };
    let mut in_db = HashSet::new();
    let mut db_read = layout.db.is_none();
    if let Some(db_path) = &layout.db {
        match with_db(caches, db_path, db::sessions) {
            Ok(rows) => {
                db_read = true;
                for row in &rows {
                    in_db.insert(row.id.clone());
                    sink(db_event(root, db_path, row));
                }
                let by_id = rows.into_iter().map(|r| (r.id.clone(), r)).collect();
                lock(&caches.get::<GooseCaches>().rows).insert(db_path.clone(), Arc::new(by_id));
            }
            Err(reason) => sink(ScanEvent::Unreadable {
                path: db_path.clone(),
                reason,
            }),
        }
    }
    let legacy: Vec<ScanEvent> = layout
        .legacy
        .par_iter()
        .map(|path| legacy_event(root, path, &in_db))
        .collect();
    if db_read {
        // Every session of the root was seen: the index keeps theirs only.
        let db_records = layout
            .db
            .iter()
            .flat_map(|db| in_db.iter().map(|id| db.join(id)));
        let files = legacy.iter().filter_map(|e| match e {
            ScanEvent::Record(r) => Some(r.path.clone()),
            _ => None,
        });
        let paths: Vec<PathBuf> = db_records.chain(files).collect();
        row_title::listed_all(caches, KIND, root, paths.iter().map(PathBuf::as_path));
    }
    legacy.into_iter().for_each(sink);
}

impl Store for Goose {
    fn name(&self) -> &'static str {
        "goose"
    }

    fn flag(&self) -> &'static str {
        "goose"
    }

    fn origin(&self) -> &'static str {
        "Goose"
    }

    fn root_help(&self) -> &'static str {
        "Goose data directory (holding sessions/sessions.db), its sessions folder, or the database"
    }

    /// `$GOOSE_PATH_ROOT/data` (when absolute), else
    /// `$XDG_DATA_HOME/goose`, else `~/.local/share/goose`.
    fn default_roots(&self, env: Env<'_>, home: Option<&Path>) -> Vec<PathBuf> {
        let set = |var: &str| env(var).filter(|v| !v.is_empty());
        let root = set("GOOSE_PATH_ROOT")
            .filter(|v| Path::new(v).is_absolute() || v.starts_with('$'))
            .map(|r| PathBuf::from(r).join("data"));
        let xdg = set("XDG_DATA_HOME")
            .filter(|v| Path::new(v).is_absolute() || v.starts_with('$'))
            .map(|d| PathBuf::from(d).join("goose"));
        // `--help` spells each variable as `$VAR`: the whole rule then.
        if env("GOOSE_PATH_ROOT").is_some_and(|v| v.starts_with('$')) {
            return root.into_iter().chain(xdg).collect();
        }
        root.or(xdg)
            .or_else(|| home.map(|h| h.join(".local").join("share").join("goose")))
            .into_iter()
            .collect()
    }

    fn wants(&self, path: &Path) -> bool {
        path.file_name().is_some_and(|n| n == DB_NAME) || is_legacy(path)
    }

    /// One database (of one session) or one legacy file.
    fn list_file(&self, caches: &Caches, root: &Arc<Path>, path: &Path) -> ScanEvent {
        list_alone(self, KIND, caches, root, path, "a Goose store")
    }

    fn lists_each_file(&self) -> bool {
        false
    }

    fn scan(
        &self,
        _: StoreKind,
        caches: &Caches,
        root: &Arc<Path>,
        sink: &(dyn Fn(ScanEvent) + Sync),
    ) {
        scan_root(caches, root, sink);
    }

    /// Titles come from the listing's rows, not from files to stamp.
    fn titles_by_file(&self) -> bool {
        false
    }

    fn read_title(
        &self,
        caches: &Caches,
        record: &SessionRecord,
    ) -> Result<Option<String>, ReadError> {
        let Some(db) = db_of(caches, record) else {
            let head = legacy_head(&record.path).map_err(|e| ReadError::io(&record.path, &e))?;
            if let Some(title) = head.description.as_deref().and_then(named) {
                return Ok(Some(title));
            }
            return Ok(convo::first_prompt_title(&read_messages(caches, record)?));
        };
        let row = row_of(caches, db, record)?;
        if let Some(title) = named(&row.name) {
            return Ok(Some(title));
        }
        untitled_title(caches, db, record, &row)
    }

    fn read_surface(&self, caches: &Caches, record: &SessionRecord) -> Result<Surface, ReadError> {
        surface_of(|surface| self.fold_surface(caches, record, surface))
    }

    fn fold_surface(
        &self,
        caches: &Caches,
        record: &SessionRecord,
        sink: &mut dyn SurfaceSink,
    ) -> Result<u64, ReadError> {
        Ok(convo::fold(&read_messages(caches, record)?, sink))
    }

    /// `updated_at` of the session, else the file's modification time.
    fn last_activity(&self, caches: &Caches, record: &SessionRecord) -> Option<i64> {
        match db_of(caches, record) {
            Some(db) => {
                let row = row_of(caches, db, record).ok()?;
                Instant::parse_rfc3339(&convo::rfc3339(&row.updated_at)?).map(Instant::unix_seconds)
            }
            None => crate::caches::modified_secs(&record.path),
        }
    }

    /// A database session's version is its message count and newest
    /// message rowid ([`db::versions`]: the database changes for every
    /// session at once); a legacy file's, the file's stamp.
    fn stamp(&self, caches: &Caches, record: &SessionRecord) -> Option<Stamp> {
        let Some(db) = db_of(caches, record) else {
            return Stamp::current(&record.path);
        };
        let cell = Arc::clone(
            lock(&caches.get::<GooseCaches>().versions)
                .entry(db.to_owned())
                .or_default(),
        );
        let versions = cell.get_or_init(|| with_db(caches, db, db::versions));
        let &(count, newest) = versions.as_ref().ok()?.get(&record.id)?;
        Some(Stamp {
            len: count,
            mtime_ns: i128::from(newest),
            inode: Stamp::current(db)?.inode,
        })
    }
}

#[cfg(test)]
mod tests;
