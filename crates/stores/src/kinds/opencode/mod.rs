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
//!   first line of the first prompt, looked for in the session's first
//!   messages before the whole session is read ([`TITLE_HEAD`]), and kept
//!   in the title index by `time_updated` ([`crate::kinds::row_title`]).
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
//! # One reader for opencode's forks
//!
//! Forks that keep opencode's database (Kilo Code CLI, `super::kilo`) are
//! members of one [`Family`]: what differs — the kind's name, the data
//! directory's and database's names, the variable naming the database,
//! whether legacy `storage/` sessions exist, the reasons given — is data
//! in the member's `Family` value, and every rule below is the same code.
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
mod listing;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::caches::{lock, Caches};
use crate::error::ReadError;
use crate::index::stamp::Stamp;
use crate::model::{SessionRecord, StoreKind, Surface, SurfaceSink};
use crate::store::ScanEvent;
use crate::store::{env_or_home, list_alone, surface_of, Env, Store};

use convo::StoredMessage;
use db::SessionRow;

/// One member of the opencode family of stores: opencode itself, and the
/// forks that keep its database (Kilo Code CLI). What differs between them
/// is data — names, paths, environment variables, the schema's newest
/// migration — and the reader below is one for all of them.
pub struct Family {
    /// The kind's name, also its flag (`opencode`, `kilo`).
    pub name: &'static str,
    /// Who writes its sessions, for `--help`.
    pub origin: &'static str,
    /// What a root is, for `--help`.
    pub root_help: &'static str,
    /// The application's folder name under `$XDG_DATA_HOME` and the stem
    /// of its main database (`opencode` → `opencode/opencode.db`).
    pub app: &'static str,
    /// The variable naming the database (`OPENCODE_DB`).
    pub db_var: &'static str,
    /// The prefixes of other release channels' databases in the data
    /// directory (`opencode-` for `opencode-<channel>.db`).
    pub channels: &'static [&'static str],
    /// Whether a data directory may hold the legacy `storage/` sessions.
    pub legacy: bool,
    /// The database's schema facts, for its reasons.
    pub dialect: &'static db::Dialect,
    /// Why a sub-agent session is not listed.
    pub subagent: &'static str,
    /// Why an archived session is not listed.
    pub archived: &'static str,
    /// The registry handle of this member (a function: the handle refers
    /// to the member).
    pub kind: fn() -> StoreKind,
}

/// opencode itself.
pub const OPENCODE: Family = Family {
    name: "opencode",
    origin: "opencode",
    root_help: "opencode data directory (holding opencode.db and storage/; \
                $XDG_DATA_HOME/opencode when set) or database file",
    app: "opencode",
    db_var: "OPENCODE_DB",
    channels: &["opencode-"],
    legacy: true,
    dialect: &db::OPENCODE,
    subagent: SUBAGENT,
    archived: ARCHIVED,
    kind: || KIND,
};

/// The registry handle of [`OPENCODE`].
pub const KIND: StoreKind = StoreKind::new(&OPENCODE);

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
    /// Open connections to each database, idle, for the next read.
    idle: crate::kinds::sqlite::Pool<db::Db>,
}

/// `read` on a connection to `db` (in `dialect`): an idle one of this run,
/// else a new one; kept for the next read unless the read failed.
fn with_db<T>(
    caches: &Caches,
    dialect: &'static db::Dialect,
    db: &Path,
    read: impl FnOnce(&db::Db) -> Result<T, String>,
) -> Result<T, String> {
    let store = caches.get::<OpencodeCaches>();
    store.idle.with(db, || db::open(db, dialect), read)
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
    fn of(family: &Family, root: &Path) -> std::io::Result<Layout> {
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
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| family.is_database(n))
            })
            .collect();
        dbs.sort();
        let is_dir = |p: &Path| family.legacy && p.is_dir();
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

impl Family {
    /// Whether a file of a data directory named `name` is one of this
    /// member's databases: `<app>.db`, or a release channel's.
    fn is_database(&self, name: &str) -> bool {
        name.strip_suffix(".db").is_some_and(|stem| {
            stem == self.app || self.channels.iter().any(|p| stem.starts_with(p))
        })
    }

    /// `read` on a connection to `db` ([`with_db`]) in this member's dialect.
    fn with_db<T>(
        &self,
        caches: &Caches,
        db: &Path,
        read: impl FnOnce(&db::Db) -> Result<T, String>,
    ) -> Result<T, String> {
        with_db(caches, self.dialect, db, read)
    }
}

impl Store for Family {
    /// A legacy session's message and part files (a database session is
    /// all in its database).
    fn side_files(&self, _caches: &Caches, record: &SessionRecord) -> Vec<PathBuf> {
        match crate::store::has_suffix(&record.path, ".json") && record.path.is_file() {
            true => legacy::message_files(&record.path, &record.id),
            false => Vec::new(),
        }
    }

    fn name(&self) -> &'static str {
        self.name
    }

    fn flag(&self) -> &'static str {
        self.name
    }

    fn origin(&self) -> &'static str {
        self.origin
    }

    fn root_help(&self) -> &'static str {
        self.root_help
    }

    /// `$<DB_VAR>` when set (absolute, or relative to the data directory),
    /// else the data directory: `$XDG_DATA_HOME/<app>`, else
    /// `~/.local/share/<app>` (`OPENCODE_DB`, `opencode` for opencode).
    fn default_roots(&self, env: Env<'_>, home: Option<&Path>) -> Vec<PathBuf> {
        let data = env_or_home(
            env,
            home,
            "XDG_DATA_HOME",
            &[self.app],
            &[".local", "share", self.app],
        );
        match env(self.db_var).filter(|v| !v.is_empty() && v != ":memory:") {
            // `$<DB_VAR>` itself when `--help` spells the rule.
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
        let what = format!("a {} store", self.origin);
        list_alone(self, (self.kind)(), caches, root, path, &what)
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
        listing::scan_root(self, caches, root, sink);
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
                    let row = self
                        .with_db(caches, db, |conn| db::session(conn, &record.id))
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
        // Untitled: its first prompt, from the head of a database session
        // (a long session is not read whole for its title).
        match source(caches, record) {
            Source::Db(db) => listing::untitled_title(self, caches, db, record),
            Source::Legacy => Ok(convo::first_prompt_title(&read_session(
                self, caches, record,
            )?)),
        }
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
        Ok(convo::fold(&read_session(self, caches, record)?, sink))
    }

    /// `time_updated` of the session, as opencode sorts its list.
    fn last_activity(&self, caches: &Caches, record: &SessionRecord) -> Option<i64> {
        let ms = match source(caches, record) {
            Source::Db(db) => match listed_row(caches, db, &record.id) {
                Some(row) => row.time_updated,
                None => {
                    self.with_db(caches, db, |conn| db::session(conn, &record.id))
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
                let versions = cell.get_or_init(|| self.with_db(caches, db, db::versions));
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

/// How many messages of an untitled database session [`Family::read_title`]
/// reads first, looking for its first prompt (the whole session only when
/// these hold none).
const TITLE_HEAD: usize = 8;

/// A database's failure on one record, said for a person.
fn fail(record: &SessionRecord, message: String) -> ReadError {
    ReadError {
        path: record.path.clone(),
        line: None,
        message,
    }
}

/// The row listing read for session `id` of `db` this run.
pub(super) fn listed_row(caches: &Caches, db: &Path, id: &str) -> Option<SessionRow> {
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
pub(super) fn read_session(
    family: &Family,
    caches: &Caches,
    record: &SessionRecord,
) -> Result<Vec<StoredMessage>, ReadError> {
    match source(caches, record) {
        Source::Db(db) => {
            let data = family
                .with_db(caches, db, |conn| db::read_session(conn, &record.id))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_roots_follow_opencode_db_and_xdg() {
        let home = Some(Path::new("/home/u"));
        let none = |_: &str| None;
        assert_eq!(
            OPENCODE.default_roots(&none, home),
            [PathBuf::from("/home/u/.local/share/opencode")]
        );
        let xdg = |k: &str| (k == "XDG_DATA_HOME").then(|| "/x".to_owned());
        assert_eq!(
            OPENCODE.default_roots(&xdg, home),
            [PathBuf::from("/x/opencode")]
        );
        let absolute = |k: &str| (k == "OPENCODE_DB").then(|| "/db/o.db".to_owned());
        assert_eq!(
            OPENCODE.default_roots(&absolute, home),
            [PathBuf::from("/db/o.db")]
        );
        let relative = |k: &str| (k == "OPENCODE_DB").then(|| "dev.db".to_owned());
        assert_eq!(
            OPENCODE.default_roots(&relative, home),
            [PathBuf::from("/home/u/.local/share/opencode/dev.db")]
        );
        let memory = |k: &str| (k == "OPENCODE_DB").then(|| ":memory:".to_owned());
        assert_eq!(
            OPENCODE.default_roots(&memory, home),
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
        let layout = Layout::of(&OPENCODE, data).unwrap();
        assert_eq!(
            layout.dbs,
            [data.join("opencode-dev.db"), data.join("opencode.db")]
        );
        assert_eq!(layout.storage, Some(data.join("storage")));
        let storage = Layout::of(&OPENCODE, &data.join("storage")).unwrap();
        assert_eq!(storage.storage, Some(data.join("storage")));
        assert!(storage.dbs.is_empty());
        let file = Layout::of(&OPENCODE, &data.join("other.db")).unwrap();
        assert_eq!(file.dbs, [data.join("other.db")]);
        assert!(Layout::of(&OPENCODE, &data.join("missing")).is_err());
    }
}
