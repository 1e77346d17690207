//! Crush sessions (charmbracelet/crush), read from each project's
//! `crush.db`, found through Crush's project registry.
//!
//! Not run here (`../shared/spec/formats/not-run-here.md`): everything
//! below was read from Crush's own source, `charmbracelet/crush` at commit
//! `37f36e93824e5c4f892e4a817f7f628e2682fe14` (2026-08-21, fetched with the
//! `fetch` tool): the goose migrations of `internal/db/migrations/` (up to
//! [`NEWEST_KNOWN`]) and the queries of `internal/db/sql/`, the parts' JSON
//! of `internal/message/message.go` and `content.go`,
//! `internal/projects/projects.go` (the registry), `internal/session/`
//! (child sessions) and `internal/agent/agent.go` (summaries, titles, the
//! prompt kept after a summary). The schema the fixtures use is those
//! migrations' ([`schema`]).
//!
//! # Where the sessions are
//!
//! Each project keeps its own database, `<project>/.crush/crush.db` (the
//! `data_directory` option moves it), in WAL mode. Crush records every
//! project it ran in, `{path, data_dir, last_accessed}`, in
//! `projects.json` beside its global data (`$CRUSH_GLOBAL_DATA`, else
//! `$XDG_DATA_HOME/crush`, else `~/.local/share/crush`), so the databases
//! are found without walking the disk. A root (`--crush DIR`) is that
//! directory; or a project's data directory (holding `crush.db`), or a
//! project holding `.crush/`, or one database file. A project whose
//! database is gone (a deleted folder) is passed over. A session's record
//! path is `<database>/<session id>`, as for opencode.
//!
//! # Mapping
//!
//! - Listed: sessions without `parent_session_id`, as Crush's own list
//!   (`ListSessions`). A sub-agent's session (its id the tool call's),
//!   an agentic fetch's and a title's (`title-<parent id>`) have one: a
//!   routine skip.
//! - id: `sessions.id` (a UUID); cwd: the project's `path` in the
//!   registry, else the folder holding `.crush/`; created: `created_at`;
//!   last activity: `updated_at`.
//! - Times: the schema's comments say milliseconds, but every insert and
//!   the update triggers write `strftime('%s', 'now')`, seconds; older
//!   databases hold milliseconds. A value of 10^11 or more (1973 in ms,
//!   year 5138 in seconds) is read as milliseconds, anything less as
//!   seconds ([`secs`]).
//! - Title: `sessions.title`, unless it is a placeholder Crush gives a
//!   session not titled yet (`Untitled Session`, `New Session`) or empty;
//!   then the first line of the first prompt, kept in the title index by
//!   `updated_at` ([`crate::kinds::row_title`]).
//! - Conversation: messages by creation time, then insertion order (Crush
//!   orders by `created_at`, whole seconds). `parts` is a JSON array of
//!   `{type, data}`: a `user` message's `text` parts are what was typed
//!   (attachments are `binary` parts); an `assistant` message's `text`
//!   parts are its reply (never `reasoning`, `tool_call`, `finish`);
//!   `tool` messages are tool results.
//! - Compaction (`/summarize`, or automatic near the context limit): an
//!   assistant message marked `is_summary_message`, whose id becomes the
//!   session's `summary_message_id`; Crush sends the model that summary
//!   and what follows. It shadows everything before it and is the compact
//!   checkpoint. When the summary cut a turn short, Crush queues the
//!   prompt again as `The previous session was interrupted because it got
//!   too long, the initial user request was: `…``: what the person typed
//!   is the text inside the backquotes.

pub mod convo;
pub mod schema;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use rusqlite::Connection;

use crate::caches::{lock, Caches};
use crate::error::ReadError;
use crate::index::stamp::Stamp;
use crate::kinds::foreign::title_from_text;
use crate::kinds::row_title::{self, RowVersion};
use crate::kinds::sqlite::{open_with, Pool};
use crate::model::{SessionRecord, StoreKind, Surface, SurfaceSink};
use crate::store::ScanEvent;
use crate::store::{env_or_home, list_alone, surface_of, Env, Store};
use session_ref_core::time::format_rfc3339_utc;

use schema::{SessionData, SessionRow, Shape, DIALECT};

pub use schema::{secs, NEWEST_KNOWN};

/// The Crush store.
pub struct Crush;

/// The Crush store's kind.
pub const KIND: StoreKind = StoreKind::new(&Crush);

/// Why a child session is not listed.
pub(crate) const CHILD: &str =
    "Crush child session (a sub-agent's, a fetch's or a title's; part of its parent)";

/// The titles Crush gives a session before one is generated.
const PLACEHOLDERS: &[&str] = &["Untitled Session", "New Session"];

/// The file naming every project Crush ran in.
const REGISTRY: &str = "projects.json";

/// An open database and its [`Shape`].
pub struct Db {
    conn: Connection,
    shape: Shape,
}

/// What a run knows of each database it listed.
#[derive(Default)]
struct CrushCaches {
    /// Each database's session rows by id, as listing read them.
    rows: Mutex<HashMap<PathBuf, Arc<HashMap<String, SessionRow>>>>,
    /// Each database's per-session versions, read once per run.
    versions: Mutex<HashMap<PathBuf, Versions>>,
    /// Idle connections.
    idle: Pool<Db>,
}

type Versions = Arc<OnceLock<Result<HashMap<String, (u64, i64)>, String>>>;

/// `read` on a connection to `db`.
fn with_db<T>(
    caches: &Caches,
    db: &Path,
    read: impl FnOnce(&Db) -> Result<T, String>,
) -> Result<T, String> {
    let open = || open_with(db, &DIALECT, schema::check).map(|(conn, shape)| Db { conn, shape });
    caches.get::<CrushCaches>().idle.with(db, open, read)
}

/// A project Crush registered (`projects.json`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
struct Project {
    path: String,
    data_dir: String,
}

#[derive(serde::Deserialize)]
struct ProjectList {
    #[serde(default)]
    projects: Vec<Project>,
}

/// The databases of a root, each with the working directory of its
/// project when known.
fn databases(root: &Path) -> Result<Vec<(PathBuf, Option<String>)>, String> {
    let meta = std::fs::metadata(root).map_err(|e| e.to_string())?;
    if meta.is_file() {
        return Ok(vec![(root.to_owned(), project_of(root))]);
    }
    let registry = root.join(REGISTRY);
    if registry.is_file() {
        let bytes = std::fs::read(&registry).map_err(|e| format!("{}: {e}", registry.display()))?;
        let list: ProjectList = serde_json::from_slice(&bytes)
            .map_err(|e| format!("{}: not Crush's project list: {e}", registry.display()))?;
        let mut found: Vec<(PathBuf, Option<String>)> = Vec::new();
        for project in list.projects {
            let dir = Path::new(&project.path).join(&project.data_dir);
            let db = dir.join("crush.db");
            if db.is_file() && !found.iter().any(|(known, _)| *known == db) {
                found.push((db, Some(project.path)));
            }
        }
        return Ok(found);
    }
    let db = [root.join("crush.db"), root.join(".crush").join("crush.db")]
        .into_iter()
        .find(|db| db.is_file());
    Ok(db
        .map(|db| {
            let cwd = project_of(&db);
            (db, cwd)
        })
        .into_iter()
        .collect())
}

/// The project of a database in the default place (`<project>/.crush/crush.db`).
fn project_of(db: &Path) -> Option<String> {
    let data = db
        .parent()
        .filter(|d| d.file_name().is_some_and(|n| n == ".crush"))?;
    Some(data.parent()?.to_str()?.to_owned()).filter(|p| p.starts_with('/'))
}

/// The record, or why not, of one session row of `db`.
fn event(root: &Arc<Path>, db: &Path, cwd: Option<&str>, row: &SessionRow) -> ScanEvent {
    let path = db.join(&row.id);
    if row.parent.as_deref().is_some_and(|p| !p.is_empty()) {
        return ScanEvent::Skipped {
            path,
            reason: CHILD.into(),
        };
    }
    ScanEvent::Record(SessionRecord::new(
        KIND,
        Arc::clone(root),
        path,
        row.id.clone(),
        cwd.map(str::to_owned),
        format_rfc3339_utc(secs(row.created)),
    ))
}

/// The row listing read for session `id` of `db` this run, else read now.
fn row_of(caches: &Caches, db: &Path, id: &str) -> Result<Option<SessionRow>, String> {
    let listed = lock(&caches.get::<CrushCaches>().rows).get(db).cloned();
    match listed {
        Some(rows) => Ok(rows.get(id).cloned()),
        None => with_db(caches, db, |db| schema::session(&db.conn, db.shape, id)),
    }
}

/// The database and id of a record (its path is `<database>/<id>`).
fn db_of(record: &SessionRecord) -> Result<&Path, ReadError> {
    record.path.parent().ok_or_else(|| ReadError {
        path: record.path.clone(),
        line: None,
        message: "not a session of a Crush database".into(),
    })
}

/// A database's failure on one record.
fn fail(record: &SessionRecord, message: String) -> ReadError {
    ReadError {
        path: record.path.clone(),
        line: None,
        message,
    }
}

/// A session's messages, with the id of its summary.
fn read_session(caches: &Caches, record: &SessionRecord) -> Result<SessionData, ReadError> {
    let db = db_of(record)?;
    with_db(caches, db, |db| {
        schema::read_session(&db.conn, db.shape, &record.id)
    })
    .map_err(|e| fail(record, e))?
    .ok_or_else(|| fail(record, "the session is gone from the database".into()))
}

impl Store for Crush {
    fn name(&self) -> &'static str {
        "crush"
    }

    fn flag(&self) -> &'static str {
        "crush"
    }

    fn origin(&self) -> &'static str {
        "Crush"
    }

    fn root_help(&self) -> &'static str {
        "Crush data directory (holding projects.json, the list of projects and their \
         .crush/crush.db), a project's data directory, or a database file"
    }

    /// `$CRUSH_GLOBAL_DATA`, else `$XDG_DATA_HOME/crush`, else
    /// `~/.local/share/crush`.
    fn default_roots(&self, env: Env<'_>, home: Option<&Path>) -> Vec<PathBuf> {
        match env("CRUSH_GLOBAL_DATA").filter(|v| !v.is_empty()) {
            Some(dir) => vec![PathBuf::from(dir)],
            None => env_or_home(
                env,
                home,
                "XDG_DATA_HOME",
                &["crush"],
                &[".local", "share", "crush"],
            ),
        }
    }

    fn wants(&self, path: &Path) -> bool {
        path.extension().is_some_and(|x| x == "db")
    }

    /// One database on its own: one session when it holds one.
    fn list_file(&self, caches: &Caches, root: &Arc<Path>, path: &Path) -> ScanEvent {
        list_alone(self, KIND, caches, root, path, "a Crush database")
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
        let dbs = match databases(root) {
            Ok(dbs) => dbs,
            Err(reason) => {
                return sink(ScanEvent::Unreadable {
                    path: root.to_path_buf(),
                    reason,
                })
            }
        };
        let store = caches.get::<CrushCaches>();
        let mut listed = Vec::new();
        let mut every_db = true;
        for (db, cwd) in dbs {
            match with_db(caches, &db, |db| schema::sessions(&db.conn, db.shape)) {
                Ok(rows) => {
                    for row in &rows {
                        listed.push(db.join(&row.id));
                        sink(event(root, &db, cwd.as_deref(), row));
                    }
                    let by_id = rows.into_iter().map(|r| (r.id.clone(), r)).collect();
                    lock(&store.rows).insert(db, Arc::new(by_id));
                }
                Err(reason) => {
                    every_db = false;
                    sink(ScanEvent::Unreadable { path: db, reason })
                }
            }
        }
        if every_db {
            row_title::listed_all(caches, KIND, root, listed.iter().map(PathBuf::as_path));
        }
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
        let db = db_of(record)?;
        let row = row_of(caches, db, &record.id).map_err(|e| fail(record, e))?;
        let stored = row.as_ref().map(|r| r.title.clone()).unwrap_or_default();
        if !PLACEHOLDERS.contains(&stored.trim()) {
            if let Some(title) = title_from_text(&stored) {
                return Ok(Some(title));
            }
        }
        // Kept in the title index by the row's `updated_at`, which Crush
        // moves with every message ([`row_title`]).
        let version = row.map(|r| RowVersion::from_secs(schema::secs(r.updated), 0));
        row_title::first_prompt_title(caches, KIND, record, version, || {
            let prompt = with_db(caches, db, |db| schema::first_prompt(&db.conn, &record.id))
                .map_err(|e| fail(record, e))?;
            Ok(prompt.and_then(|t| title_from_text(&t)))
        })
    }

    fn read_surface(&self, caches: &Caches, record: &SessionRecord) -> Result<Surface, ReadError> {
        surface_of(|sink| self.fold_surface(caches, record, sink))
    }

    fn fold_surface(
        &self,
        caches: &Caches,
        record: &SessionRecord,
        sink: &mut dyn SurfaceSink,
    ) -> Result<u64, ReadError> {
        let data = read_session(caches, record)?;
        Ok(convo::fold(&data.messages, data.summary.as_deref(), sink))
    }

    /// `updated_at` of the session.
    fn last_activity(&self, caches: &Caches, record: &SessionRecord) -> Option<i64> {
        let db = record.path.parent()?;
        Some(secs(row_of(caches, db, &record.id).ok()??.updated))
    }

    /// A session's version: its message count and the newest
    /// `updated_at` of its row and messages (the database changes for
    /// every session at once, so its file stamp would not do).
    fn stamp(&self, caches: &Caches, record: &SessionRecord) -> Option<Stamp> {
        let db = record.path.parent()?;
        let cell = Arc::clone(
            lock(&caches.get::<CrushCaches>().versions)
                .entry(db.to_owned())
                .or_default(),
        );
        let versions = cell.get_or_init(|| with_db(caches, db, |db| schema::versions(&db.conn)));
        let &(count, newest) = versions.as_ref().ok()?.get(&record.id)?;
        let inode = Stamp::current(db)?.inode;
        Some(Stamp {
            len: count,
            mtime_ns: i128::from(newest) * 1_000_000_000,
            inode,
        })
    }
}

#[cfg(test)]
mod tests;
