//! opencode sessions (`opencode-ai`), read from its SQLite database and from
//! the JSON files of the versions before it, as `FORMATS.md` describes.
//! Followed and checked: opencode 1.18.33, run offline against the mock
//! model (one-shot, `-c`, `-s … --fork`, `--title`, `-f`, `@file` in
//! text, `--command` with arguments, a `task` sub-agent, automatic
//! compaction, non-ASCII prompts), its database read with `sqlite3`.
//!
//! # Layout
//!
//! A root (`--opencode DIR`) is opencode's data directory
//! (`~/.local/share/opencode`), holding `opencode.db` (and the databases of
//! other release channels, `opencode-<channel>.db`) and the legacy
//! `storage/` folder; or one database file; or a `storage/` folder; or one
//! legacy session file. All projects share one database. A session's
//! record path is `<database>/<session id>` (the database is one file for
//! every session, and each session needs a path of its own: the search
//! index keys its entries by it); a legacy session's is its session file.
//! A session found in both (a legacy session opencode imported) is listed
//! once, from the database.
//!
//! # Mapping
//!
//! - Listed: root sessions that are not archived, one row each — what
//!   opencode's own session list shows (`session list`: roots only,
//!   `time_archived` unset). Sub-agent (`task`) sessions have a
//!   `parent_id` and are skipped, as are archived ones. A fork is a session
//!   of its own (a copy of the messages, `parent_id` empty, titled
//!   `<title> (fork #1)`).
//! - id: `session.id`; cwd: `directory`; created: `time_created`; last
//!   activity: `time_updated` (what opencode sorts its list by).
//! - Title: `session.title` — the generated title, `--title`, a rename —
//!   unless it is still the placeholder `New session - <ISO time>`; then the
//!   first line of the first prompt.
//! - Conversation: messages by `time_created` then id, parts by id
//!   ([`convo`]). A prompt is a user message's text parts without
//!   `synthetic` (added by opencode: `@file`/`-f` contents, plugin
//!   context, the "Continue if you have next steps…" after an automatic
//!   compaction); a reply is an assistant message's text parts (not
//!   `reasoning`, `tool`, `step-*`). A compaction (a user message holding a
//!   `compaction` part, then an assistant message with `summary: true`)
//!   shadows everything before it, and its summary is the compact
//!   checkpoint. An undo (`session.revert`) hides the messages it undid.
//!
//! # Checked against 1.18.33, where FORMATS.md says otherwise or less
//!
//! - `opencode run` wraps each argument that holds a space in double
//!   quotes (inner quotes escaped): `run "two words"` stores `"two words"`,
//!   `run hello` stores `hello`. No field tells `run` apart from the TUI,
//!   so the stored text is kept as it is: it is what opencode shows and
//!   sends. A `--command` is stored expanded, its `$ARGUMENTS` quoted the
//!   same way, the command name nowhere.
//! - With `run -f FILE`, the file's synthetic parts come before the typed
//!   text in id order (`Called the Read tool…`, the contents, a `file`
//!   part, then the prompt). `@file` inside `run`'s text is not expanded.
//! - A fork's copied messages keep their `time_created` but get new ids.
//! - `session.time_updated` is not touched while parts stream in: a part
//!   row's `time_updated` is newer until the turn ends (so the search
//!   index keys a session by its messages and part count too,
//!   [`db::versions`]).
//! - The database's name follows the release channel: `opencode.db` for
//!   `latest`/`beta`/`prod`, else `opencode-<channel>.db` (both read).
//!   `OPENCODE_DB` may be absolute or relative to the data directory.
//! - A database holds `session_message` (a newer message projection),
//!   empty in 1.18.33's default mode; read when it holds rows (below).
//!
//! # opencode 2.x (not run here: its npm package is not reachable)
//!
//! Read from opencode's own source, `anomalyco/opencode` (formerly
//! `sst/opencode`): the message shape of `packages/core/src/session-message.ts`
//! (commit `7d5e0bc00a0f5dbfb2caedb6d0704b351d4346c7`), the table of
//! `packages/opencode/src/session/session.sql.ts` (`063e8306d989…`: `session`
//! with `session_message(id, session_id, type, …, data)`, `data` the
//! message without its `type` and `id`), and how 2.x imports 1.x history,
//! `packages/core/src/session/message-backfill.ts` (`9a7198e6144d…`: each
//! 1.x message copied into `session_message` under the same session id,
//! a user message's non-synthetic text parts joined as its `text`). The
//! 2.0 table `session_v2` is not in the source stored here (it stops
//! before 2.0); its columns are those an upgraded 2.0.25 database's
//! `sqlite_master` holds, as another reader's tests record them
//! (`tests/support/opencode.rs`, `UPGRADE_2_0`), and a 0.0.0-beta-19381
//! capture agrees. What is read ([`db::Shape`]):
//!
//! - Sessions: `session_v2` (2.0.x) and `session` (1.x, and later 2.x),
//!   with the same rules as 1.x (roots only, not archived; a NULL or empty
//!   title gives way to the first prompt, as the placeholder does).
//! - A session in both `session_v2` and `session` (1.x history 2.0
//!   imported, same id) is listed once, from `session_v2`: that is the
//!   copy 2.x goes on writing, its title renamed and its turns appended
//!   there, while the 1.x row stays as it was at the upgrade.
//! - Messages: a session's `session_message` rows in `seq` order when
//!   they hold any of its conversation (`user`, `assistant`,
//!   `compaction`): they are what 2.x writes, and its copy of imported
//!   1.x history; else its `message`/`part` rows (1.x, or history not
//!   copied). A `user` row's `text` is what was typed (`run` still quotes
//!   it); an `assistant` row's `content` `text` items are the reply; a
//!   `compaction` row's `summary` is a compact checkpoint shadowing what
//!   came before; `synthetic`, `shell`, `system` and the switch rows are
//!   not conversation ([`convo`]).
//!
//! Assumed, not confirmed: that 2.x hides archived sessions as 1.x does
//! (another reader says 2.0.25's list ignores `time_archived`); that a
//! 2.0 fork (`fork_session_id`, `fork_boundary`) has its own messages
//! rows; that a compaction's kept-recent messages (`include`, 2.0's
//! `recent`) need no place of their own on the surface (everything before
//! the compaction row is shadowed, as in 1.x).
//!
//! # Cost
//!
//! Listing is one `SELECT` over each session table per database (no
//! message is read), kept for the run in [`Caches`]; titles come from it,
//! so a warm listing of 10,000 sessions costs what SQLite takes to read
//! that table (BENCHMARKS.md). It is not kept in the title index: whether
//! a database changed would be a stat of the database and its `-wal`, and
//! a WAL is rewritten in place at the same length after a checkpoint, so
//! an unchanged stamp would not prove unchanged rows; reading the table
//! is about as cheap as proving it. Legacy session files are listed
//! through the title index's per-file facts (a stat each when unchanged).

pub mod convo;
pub mod db;
pub mod legacy;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use rayon::prelude::*;

use crate::caches::{lock, Caches};
use crate::error::ReadError;
use crate::index::title::{Stamp, TitleIndex};
use crate::model::{SessionRecord, StoreKind, Surface, SurfaceSink};
use crate::store::ScanEvent;
use crate::store::{env_or_home, Env, Store};

use convo::StoredMessage;
use db::SessionRow;

/// The opencode store kind.
pub struct Opencode;

/// The registry handle of [`Opencode`].
pub const KIND: StoreKind = StoreKind::new(&Opencode);

/// Why a sub-agent session is not listed.
pub(crate) const SUBAGENT: &str = "opencode sub-agent session (part of its parent session)";
/// Why a legacy file of a session also in the database is not listed
/// (opencode keeps them after migrating its storage to the database).
pub(crate) const LEGACY_COPY: &str =
    "legacy copy of a session also in opencode's database (listed from there)";
/// Why an archived session is not listed.
pub(crate) const ARCHIVED: &str = "archived in opencode (its session list hides it)";

/// What a run knows of each database and legacy session file it listed.
#[derive(Default)]
struct OpencodeCaches {
    /// Each database's session rows by id, as listing read them.
    rows: Mutex<HashMap<PathBuf, Arc<HashMap<String, SessionRow>>>>,
    /// Each legacy session file's head, as listing read it.
    heads: Mutex<HashMap<PathBuf, Arc<legacy::Head>>>,
    /// Each database's per-session versions ([`db::versions`]), read once
    /// per run when the search index first asks.
    versions: Mutex<HashMap<PathBuf, Versions>>,
    /// Open connections to each database, idle, for the next read: a
    /// connection is opened and its schema checked once, not per session
    /// (each read is its own transaction, so it sees the newest rows).
    idle: Mutex<HashMap<PathBuf, Vec<db::Db>>>,
}

/// `read` on a connection to `db`: an idle one of this run, else a new
/// one; kept for the next read unless the read failed.
fn with_db<T>(
    caches: &Caches,
    db: &Path,
    read: impl FnOnce(&db::Db) -> Result<T, String>,
) -> Result<T, String> {
    let store = caches.get::<OpencodeCaches>();
    let idle = lock(&store.idle).get_mut(db).and_then(Vec::pop);
    let conn = match idle {
        Some(conn) => conn,
        None => db::open(db)?,
    };
    let out = read(&conn);
    if out.is_ok() {
        lock(&store.idle)
            .entry(db.to_owned())
            .or_default()
            .push(conn);
    }
    out
}

type Versions = Arc<OnceLock<Result<HashMap<String, (u64, i64)>, String>>>;

/// Where a root keeps its sessions.
#[derive(Debug, Default, PartialEq, Eq)]
struct Layout {
    /// Databases.
    dbs: Vec<PathBuf>,
    /// The legacy `storage/` folder.
    storage: Option<PathBuf>,
    /// One legacy session file named as the root.
    session_file: Option<PathBuf>,
}

impl Layout {
    fn of(root: &Path) -> std::io::Result<Layout> {
        let meta = std::fs::metadata(root)?;
        if meta.is_file() {
            if root.extension().is_some_and(|x| x == "json") {
                return Ok(Layout {
                    session_file: Some(root.to_owned()),
                    storage: legacy::storage_of(root).map(Path::to_owned),
                    ..Layout::default()
                });
            }
            return Ok(Layout {
                dbs: vec![root.to_owned()],
                ..Layout::default()
            });
        }
        let mut dbs: Vec<PathBuf> = std::fs::read_dir(root)?
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file() || t.is_symlink()))
            .map(|e| e.path())
            .filter(|p| {
                p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                    n == "opencode.db" || (n.starts_with("opencode-") && n.ends_with(".db"))
                })
            })
            .collect();
        dbs.sort();
        let is_dir = |p: &Path| p.is_dir();
        let storage = if is_dir(&root.join("storage")) {
            Some(root.join("storage"))
        } else if is_dir(&root.join("session")) && is_dir(&root.join("message")) {
            Some(root.to_owned())
        } else {
            None
        };
        Ok(Layout {
            dbs,
            storage,
            session_file: None,
        })
    }
}

/// Where a record's session is kept.
enum Source<'a> {
    /// In a database, under this id.
    Db(&'a Path),
    /// In a legacy session file (the record's path).
    Legacy,
}

/// Where `record` is kept: in a database when its path's parent is one
/// (a database listed this run is known without a `stat`).
fn source<'a>(caches: &Caches, record: &'a SessionRecord) -> Source<'a> {
    let Some(parent) = record.path.parent() else {
        return Source::Legacy;
    };
    let listed = lock(&caches.get::<OpencodeCaches>().rows).contains_key(parent);
    if listed || parent.is_file() {
        Source::Db(parent)
    } else {
        Source::Legacy
    }
}

impl Store for Opencode {
    fn name(&self) -> &'static str {
        "opencode"
    }

    fn flag(&self) -> &'static str {
        "opencode"
    }

    fn origin(&self) -> &'static str {
        "opencode"
    }

    fn root_help(&self) -> &'static str {
        "opencode data directory (holding opencode.db and storage/; \
         $XDG_DATA_HOME/opencode when set) or database file"
    }

    /// `$OPENCODE_DB` when set (absolute, or relative to the data
    /// directory), else the data directory: `$XDG_DATA_HOME/opencode`, else
    /// `~/.local/share/opencode`.
    fn default_roots(&self, env: Env<'_>, home: Option<&Path>) -> Vec<PathBuf> {
        let data = env_or_home(
            env,
            home,
            "XDG_DATA_HOME",
            &["opencode"],
            &[".local", "share", "opencode"],
        );
        match env("OPENCODE_DB").filter(|v| !v.is_empty() && v != ":memory:") {
            // `$OPENCODE_DB` itself when `--help` spells the rule.
            Some(db) if Path::new(&db).is_absolute() || db.starts_with('$') => {
                vec![PathBuf::from(db)]
            }
            Some(db) => data.into_iter().map(|d| d.join(&db)).collect(),
            None => data,
        }
    }

    fn wants(&self, path: &Path) -> bool {
        path.extension().is_some_and(|x| x == "db")
    }

    /// One database or legacy session file on its own (the scan of a root
    /// lists its sessions instead: a database holds many).
    fn list_file(&self, caches: &Caches, root: &Arc<Path>, path: &Path) -> ScanEvent {
        let found = Mutex::new(Vec::new());
        let root_of_file: Arc<Path> = Arc::from(path);
        self.scan(KIND, caches, &root_of_file, &|e| lock(&found).push(e));
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
                reason: format!("an opencode store of {n} sessions, not one session"),
            },
        }
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
        let stored = match source(caches, record) {
            Source::Db(db) => match listed_row(caches, db, &record.id) {
                Some(row) => Some(row.title.clone()),
                None => {
                    let row = with_db(caches, db, |conn| db::session(conn, &record.id))
                        .map_err(|e| fail(record, e))?;
                    row.ok_or_else(|| fail(record, "the session is gone".into()))?
                        .title
                        .into()
                }
            },
            Source::Legacy => head_of(caches, &record.path)
                .map_err(|e| fail(record, e))?
                .title
                .clone(),
        };
        if let Some(title) = stored.as_deref().filter(|t| !convo::is_default_title(t)) {
            if let Some(title) = crate::kinds::foreign::title_from_text(title) {
                return Ok(Some(title));
            }
        }
        Ok(convo::first_prompt_title(&read_session(caches, record)?))
    }

    fn read_surface(&self, caches: &Caches, record: &SessionRecord) -> Result<Surface, ReadError> {
        let mut surface = Surface::default();
        let last = self.fold_surface(caches, record, &mut surface)?;
        surface.drop_empty_assistant_messages();
        surface.captured_through_seq = last;
        Ok(surface)
    }

    fn fold_surface(
        &self,
        caches: &Caches,
        record: &SessionRecord,
        sink: &mut dyn SurfaceSink,
    ) -> Result<u64, ReadError> {
        Ok(convo::fold(&read_session(caches, record)?, sink))
    }

    /// `time_updated` of the session, as opencode sorts its list.
    fn last_activity(&self, caches: &Caches, record: &SessionRecord) -> Option<i64> {
        let ms = match source(caches, record) {
            Source::Db(db) => match listed_row(caches, db, &record.id) {
                Some(row) => row.time_updated,
                None => {
                    with_db(caches, db, |conn| db::session(conn, &record.id))
                        .ok()??
                        .time_updated
                }
            },
            Source::Legacy => head_of(caches, &record.path).ok()?.updated?,
        };
        Some(ms.div_euclid(1000))
    }

    /// A database session's version is its message and part count and the
    /// newest `time_updated` of its row and messages ([`db::versions`]; the
    /// database changes for every session at once, so its file stamp would
    /// not do);
    /// a legacy session's, its session file's stamp combined with its
    /// message folder's.
    fn stamp(&self, caches: &Caches, record: &SessionRecord) -> Option<Stamp> {
        match source(caches, record) {
            Source::Db(db) => {
                let cell = Arc::clone(
                    lock(&caches.get::<OpencodeCaches>().versions)
                        .entry(db.to_owned())
                        .or_default(),
                );
                let versions = cell.get_or_init(|| with_db(caches, db, db::versions));
                let &(count, newest) = versions.as_ref().ok()?.get(&record.id)?;
                let inode = Stamp::current(db)?.inode;
                Some(Stamp {
                    len: count,
                    mtime_ns: i128::from(newest) * 1_000_000,
                    inode,
                })
            }
            Source::Legacy => {
                let file = Stamp::current(&record.path)?;
                let storage = legacy::storage_of(&record.path)?;
                let messages = Stamp::current(&storage.join("message").join(&record.id));
                Some(match messages {
                    Some(m) => Stamp {
                        len: file.len.wrapping_add(m.len),
                        mtime_ns: file.mtime_ns.max(m.mtime_ns),
                        inode: file.inode,
                    },
                    None => file,
                })
            }
        }
    }
}

/// A database's failure on one record, said for a person.
fn fail(record: &SessionRecord, message: String) -> ReadError {
    ReadError {
        path: record.path.clone(),
        line: None,
        message,
    }
}

/// The row listing read for session `id` of `db` this run.
fn listed_row(caches: &Caches, db: &Path, id: &str) -> Option<SessionRow> {
    let rows = lock(&caches.get::<OpencodeCaches>().rows)
        .get(db)
        .cloned()?;
    rows.get(id).cloned()
}

/// The head of a legacy session file: as listing read it this run, else
/// read now.
fn head_of(caches: &Caches, path: &Path) -> Result<Arc<legacy::Head>, String> {
    let store = caches.get::<OpencodeCaches>();
    if let Some(head) = lock(&store.heads).get(path) {
        return Ok(Arc::clone(head));
    }
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let head = Arc::new(legacy::parse_head(&bytes)?);
    lock(&store.heads).insert(path.to_owned(), Arc::clone(&head));
    Ok(head)
}

/// A session's messages still shown (revert applied).
fn read_session(caches: &Caches, record: &SessionRecord) -> Result<Vec<StoredMessage>, ReadError> {
    match source(caches, record) {
        Source::Db(db) => {
            let data = with_db(caches, db, |conn| db::read_session(conn, &record.id))
                .map_err(|e| fail(record, e))?
                .ok_or_else(|| fail(record, "the session is gone from the database".into()))?;
            let revert = convo::Revert::parse(data.revert.as_deref());
            Ok(convo::apply_revert(data.messages, revert.as_ref()))
        }
        Source::Legacy => {
            // Read afresh: the file may have changed since listing.
            let bytes = std::fs::read(&record.path).map_err(|e| ReadError::io(&record.path, &e))?;
            let head = legacy::parse_head(&bytes).map_err(|e| fail(record, e))?;
            let storage = legacy::storage_of(&record.path)
                .ok_or_else(|| fail(record, "not inside an opencode storage folder".into()))?;
            let messages = legacy::read_messages(storage, &head.id)
                .map_err(|e| ReadError::io(&storage.join("message").join(&head.id), &e))?;
            let revert = convo::Revert::parse(head.revert.as_deref());
            Ok(convo::apply_revert(messages, revert.as_ref()))
        }
    }
}

/// The record, or why not, of one session row of `db`.
fn db_event(root: &Arc<Path>, db: &Path, row: &SessionRow) -> ScanEvent {
    let path = db.join(&row.id);
    if row.parent_id.as_deref().is_some_and(|p| !p.is_empty()) {
        return ScanEvent::Skipped {
            path,
            reason: SUBAGENT.into(),
        };
    }
    if row.time_archived.is_some() {
        return ScanEvent::Skipped {
            path,
            reason: ARCHIVED.into(),
        };
    }
    ScanEvent::Record(SessionRecord::new(
        KIND,
        Arc::clone(root),
        path,
        row.id.clone(),
        Some(row.directory.clone()).filter(|d| !d.is_empty()),
        convo::rfc3339_ms(row.time_created),
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
    let store = caches.get::<OpencodeCaches>();
    let mut in_db: HashSet<String> = HashSet::new();
    for db_path in &layout.dbs {
        let rows = with_db(caches, db_path, db::sessions);
        match rows {
            Ok(rows) => {
                for row in &rows {
                    in_db.insert(row.id.clone());
                    sink(db_event(root, db_path, row));
                }
                let by_id = rows.into_iter().map(|r| (r.id.clone(), r)).collect();
                lock(&store.rows).insert(db_path.clone(), Arc::new(by_id));
            }
            Err(reason) => sink(ScanEvent::Unreadable {
                path: db_path.clone(),
                reason,
            }),
        }
    }
    let files = match (&layout.session_file, &layout.storage) {
        (Some(file), _) => vec![file.clone()],
        (None, Some(storage)) => legacy::session_files(storage, &mut |path, reason| {
            sink(ScanEvent::Unreadable { path, reason })
        }),
        (None, None) => return,
    };
    let index = caches.get::<TitleIndex>();
    index.listing_root(KIND, root);
    files.par_iter().for_each(|path| {
        let computed = || {
            std::fs::read(path)
                .ok()
                .and_then(|b| legacy::parse_head(&b).ok())
        };
        let head = match index.file_fact(KIND, root, path, computed) {
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
        let event = legacy_event(root, path, &head, &in_db);
        lock(&store.heads).insert(path.clone(), Arc::new(head));
        sink(event);
    });
}

/// The record, or why not, of one legacy session file.
fn legacy_event(
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
        return skipped(SUBAGENT);
    }
    if head.archived.is_some() {
        return skipped(ARCHIVED);
    }
    ScanEvent::Record(SessionRecord::new(
        KIND,
        Arc::clone(root),
        path.to_owned(),
        head.id.clone(),
        head.directory.clone(),
        head.created.map(convo::rfc3339_ms).unwrap_or_default(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_roots_follow_opencode_db_and_xdg() {
        let home = Some(Path::new("/home/u"));
        let none = |_: &str| None;
        assert_eq!(
            Opencode.default_roots(&none, home),
            [PathBuf::from("/home/u/.local/share/opencode")]
        );
        let xdg = |k: &str| (k == "XDG_DATA_HOME").then(|| "/x".to_owned());
        assert_eq!(
            Opencode.default_roots(&xdg, home),
            [PathBuf::from("/x/opencode")]
        );
        let absolute = |k: &str| (k == "OPENCODE_DB").then(|| "/db/o.db".to_owned());
        assert_eq!(
            Opencode.default_roots(&absolute, home),
            [PathBuf::from("/db/o.db")]
        );
        let relative = |k: &str| (k == "OPENCODE_DB").then(|| "dev.db".to_owned());
        assert_eq!(
            Opencode.default_roots(&relative, home),
            [PathBuf::from("/home/u/.local/share/opencode/dev.db")]
        );
        let memory = |k: &str| (k == "OPENCODE_DB").then(|| ":memory:".to_owned());
        assert_eq!(
            Opencode.default_roots(&memory, home),
            [PathBuf::from("/home/u/.local/share/opencode")]
        );
    }

    #[test]
    fn a_root_is_a_data_directory_a_database_or_a_storage_folder() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path();
        std::fs::write(data.join("opencode.db"), b"").unwrap();
        std::fs::write(data.join("opencode-dev.db"), b"").unwrap();
        std::fs::write(data.join("opencode.db-wal"), b"").unwrap();
        std::fs::write(data.join("other.db"), b"").unwrap();
        std::fs::create_dir_all(data.join("storage/session")).unwrap();
        std::fs::create_dir_all(data.join("storage/message")).unwrap();
        let layout = Layout::of(data).unwrap();
        assert_eq!(
            layout.dbs,
            [data.join("opencode-dev.db"), data.join("opencode.db")]
        );
        assert_eq!(layout.storage, Some(data.join("storage")));
        let storage = Layout::of(&data.join("storage")).unwrap();
        assert_eq!(storage.storage, Some(data.join("storage")));
        assert!(storage.dbs.is_empty());
        let file = Layout::of(&data.join("other.db")).unwrap();
        assert_eq!(file.dbs, [data.join("other.db")]);
        assert!(Layout::of(&data.join("missing")).is_err());
    }
}
