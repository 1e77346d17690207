//! Reading `opencode.db` without disturbing the opencode process writing it.
//!
//! # Opening
//!
//! The database is in WAL mode and opencode writes it while we read: the
//! newest rows are often only in `opencode.db-wal` (a fresh database's main
//! file is 4 KiB, everything else in the WAL). So it is opened as an
//! ordinary SQLite connection, which reads the WAL through the shared
//! `-shm` index, never with `immutable=1` (which skips the WAL and would
//! miss recent sessions). The connection:
//!
//! - is opened `SQLITE_OPEN_READ_ONLY` (SQLite never writes the database or
//!   the WAL through it), with `PRAGMA query_only` on top;
//! - never checkpoints: a read-only connection cannot, and
//!   `SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE` says so again for the close;
//! - waits at most [`BUSY`] for a lock: opencode holds the write lock only
//!   for the length of one write, and readers of a WAL database never block
//!   its writer (so a read cannot lock the agent out); a database that stays
//!   locked longer (a writer in `locking_mode=EXCLUSIVE`, or a rollback
//!   journal database in the middle of a write) is reported as locked,
//!   never waited for;
//! - reads each session inside one read transaction, so its session row,
//!   messages and parts are one snapshot even while opencode appends.
//!
//! A read-only open of a WAL database needs the `-shm` file: SQLite maps
//! it, creating it (and an empty `-wal`) when missing. So a WAL database
//! whose last connection closed cleanly (no `-wal`, or an empty one) is
//! opened with `immutable=1` first: there is no WAL to miss, and nothing
//! is created in the store. Only while a `-wal` holds frames (opencode
//! running, or crashed) is the plain read-only open used; with the `-wal`
//! and `-shm` present a read-only folder reads fine, WAL rows included
//! (`tools/opencode-readonly-check.sh`, a read-only bind mount; root
//! ignores permissions, so no `cargo test` can); a `-wal` without its
//! `-shm` is unreadable in a read-only folder, with that reason, never a
//! hang, and in a writable one SQLite still creates the `-shm` (left:
//! reading a private copy instead). The database and the WAL are never
//! written (`tests/opencode_store.rs`).
//!
//! # Schema
//!
//! Followed: opencode 1.18.33 (migrations up to [`NEWEST_KNOWN`]). Only
//! the columns listed in [`REQUIRED`] are read; a database missing one
//! (half-migrated, not opencode's, or a newer opencode that changed them)
//! is unreadable, and the reason names the newest migration it records
//! when it is newer than the ones this reader knows. Newer migrations that
//! keep those columns are read as they are.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension};

use super::convo::StoredMessage;

/// The longest wait for a lock opencode holds.
pub const BUSY: Duration = Duration::from_millis(200);

/// The newest migration of opencode 1.18.33's database.
pub const NEWEST_KNOWN: &str = "20260622202450_simplify_session_input";

/// The tables and columns this reader uses.
pub const REQUIRED: &[(&str, &[&str])] = &[
    (
        "session",
        &[
            "id",
            "parent_id",
            "directory",
            "title",
            "time_created",
            "time_updated",
            "time_archived",
            "revert",
        ],
    ),
    (
        "message",
        &["id", "session_id", "time_created", "time_updated", "data"],
    ),
    (
        "part",
        &["id", "message_id", "session_id", "time_updated", "data"],
    ),
];

/// One row of the `session` table, as listing needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    /// `ses_…`.
    pub id: String,
    /// The parent of a sub-agent (`task`) session.
    pub parent_id: Option<String>,
    /// The absolute working directory.
    pub directory: String,
    /// The session's title (possibly the `New session - …` placeholder).
    pub title: String,
    /// Milliseconds since the epoch.
    pub time_created: i64,
    /// Milliseconds since the epoch (what opencode's list sorts by).
    pub time_updated: i64,
    /// Set when the session was archived (opencode's list hides it).
    pub time_archived: Option<i64>,
}

/// A session read whole: its row's title and revert, its messages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionData {
    /// `session.title`.
    pub title: Option<String>,
    /// `session.revert` JSON.
    pub revert: Option<String>,
    /// Messages in conversation order (`time_created`, then id, as opencode
    /// orders them), each with its parts in id order.
    pub messages: Vec<StoredMessage>,
}

/// Open `path` read-only (see the module docs), with the schema checked.
pub fn open(path: &Path) -> Result<Connection, String> {
    // No WAL to miss: `immutable=1` reads the main file alone and, unlike
    // a read-only open of a WAL database, creates no `-wal`/`-shm` in the
    // store (nothing in a store is ever created or modified).
    if wal_mode(path) && quiescent(path) {
        return open_immutable(path);
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = match Connection::open_with_flags(path, flags) {
        Ok(conn) => conn,
        Err(e) => return Err(reason(&e)),
    };
    let conn = match configure(&conn).and_then(|()| check_schema(&conn)) {
        Err(Why::CannotOpen) if quiescent(path) => open_immutable(path)?,
        Err(why) => return Err(why.to_string()),
        Ok(()) => conn,
    };
    Ok(conn)
}

/// Why a database cannot be read.
enum Why {
    /// SQLite could not open the WAL index (`-shm`): a read-only folder.
    CannotOpen,
    /// Anything else, said for a person.
    Other(String),
}

impl std::fmt::Display for Why {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Why::CannotOpen => f.write_str(
                "cannot open the database's WAL index read-only: the folder is not \
                 writable and its -shm file is missing (opencode creates it when it runs)",
            ),
            Why::Other(text) => f.write_str(text),
        }
    }
}

impl From<rusqlite::Error> for Why {
    fn from(e: rusqlite::Error) -> Self {
        match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::CannotOpen) => Why::CannotOpen,
            _ => Why::Other(reason(&e)),
        }
    }
}

/// Whether the database at `path` has no WAL being written: no `-wal`
/// file, or an empty one (its last connection checkpointed and closed).
fn quiescent(path: &Path) -> bool {
    let wal = side_file(path, "-wal");
    std::fs::metadata(wal).map_or(true, |m| m.len() == 0)
}

/// Whether the database file's header says WAL mode (its read and write
/// versions, bytes 18 and 19, are 2). A rollback-journal database is not:
/// its writer changes the main file in place, so only a locking open may
/// read it (and that open creates no side file).
fn wal_mode(path: &Path) -> bool {
    use std::io::Read;
    let mut header = [0u8; 20];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut header))
        .is_ok_and(|()| header[18] == 2 && header[19] == 2)
}

/// `path` with `suffix` appended to its file name (`opencode.db-wal`).
pub fn side_file(path: &Path, suffix: &str) -> std::path::PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    name.into()
}

/// A quiescent database ([`quiescent`]), opened `immutable`.
fn open_immutable(path: &Path) -> Result<Connection, String> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    let uri = immutable_uri(path);
    let conn = Connection::open_with_flags(uri, flags).map_err(|e| reason(&e))?;
    configure(&conn)
        .and_then(|()| check_schema(&conn))
        .map_err(|why| why.to_string())?;
    Ok(conn)
}

/// `file:PATH?immutable=1`, the path percent-encoded where a URI needs it
/// (also how Cursor CLI's `store.db` is opened).
pub(crate) fn immutable_uri(path: &Path) -> String {
    let mut uri = String::from("file:");
    for &b in path.as_os_str().as_encoded_bytes() {
        match b {
            b'?' | b'#' | b'%' => uri.push_str(&format!("%{b:02X}")),
            _ if b.is_ascii() && !b.is_ascii_control() => uri.push(char::from(b)),
            _ => uri.push_str(&format!("%{b:02X}")),
        }
    }
    uri.push_str("?immutable=1");
    uri
}

fn configure(conn: &Connection) -> Result<(), Why> {
    conn.busy_timeout(BUSY)?;
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
        true,
    )?;
    conn.pragma_update(None, "query_only", true)?;
    Ok(())
}

/// Every column of [`REQUIRED`] exists (reading the schema is the first
/// read, so a locked, corrupt or non-database file fails here).
fn check_schema(conn: &Connection) -> Result<(), Why> {
    let mut missing = Vec::new();
    for (table, columns) in REQUIRED {
        let mut stmt = conn.prepare("SELECT name FROM pragma_table_info(?1)")?;
        let have: Vec<String> = stmt
            .query_map([table], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        if have.is_empty() {
            missing.push(format!("table {table}"));
            continue;
        }
        for column in *columns {
            if !have.iter().any(|c| c == column) {
                missing.push(format!("column {table}.{column}"));
            }
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    let newest: Option<String> = conn
        .query_row("SELECT max(id) FROM migration", [], |row| row.get(0))
        .optional()
        .ok()
        .flatten()
        .flatten();
    let what = match newest {
        Some(newest) if newest.as_str() > NEWEST_KNOWN => {
            format!("written by a newer opencode (migration {newest}; this reader follows 1.18.33)")
        }
        Some(newest) => format!("not fully migrated (last migration {newest})"),
        None => "not an opencode database, or not migrated".to_owned(),
    };
    Err(Why::Other(format!(
        "opencode database {what}: no {}",
        missing.join(", ")
    )))
}

/// A SQLite error said for a person.
fn reason(e: &rusqlite::Error) -> String {
    use rusqlite::ErrorCode as Code;
    match e.sqlite_error_code() {
        Some(Code::DatabaseBusy | Code::DatabaseLocked) => format!(
            "opencode database is locked by another connection (waited {} ms): {e}",
            BUSY.as_millis()
        ),
        Some(Code::NotADatabase) => format!("not an SQLite database: {e}"),
        Some(Code::DatabaseCorrupt) => format!("corrupt SQLite database: {e}"),
        _ => format!("cannot read the opencode database: {e}"),
    }
}

/// The columns of a [`SessionRow`], in [`session_row`]'s order.
const SESSION_COLUMNS: &str =
    "id, parent_id, directory, title, time_created, time_updated, time_archived";

/// A [`SessionRow`] from a row selecting [`SESSION_COLUMNS`].
fn session_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<SessionRow> {
    Ok(SessionRow {
        id: row.get(0)?,
        parent_id: row.get(1)?,
        directory: row.get(2)?,
        title: row.get(3)?,
        time_created: row.get(4)?,
        time_updated: row.get(5)?,
        time_archived: row.get(6)?,
    })
}

/// Every session row.
pub fn sessions(conn: &Connection) -> Result<Vec<SessionRow>, String> {
    let rows = (|| {
        let mut stmt = conn.prepare(&format!("SELECT {SESSION_COLUMNS} FROM session"))?;
        let rows = stmt.query_map([], session_row)?;
        rows.collect::<Result<Vec<_>, _>>()
    })();
    rows.map_err(|e| reason(&e))
}

/// One session row by id (`None` when gone).
pub fn session(conn: &Connection, id: &str) -> Result<Option<SessionRow>, String> {
    conn.query_row(
        &format!("SELECT {SESSION_COLUMNS} FROM session WHERE id = ?1"),
        [id],
        session_row,
    )
    .optional()
    .map_err(|e| reason(&e))
}

/// A session's title, revert, messages and parts, in one snapshot;
/// `None` when the session is gone.
pub fn read_session(conn: &Connection, id: &str) -> Result<Option<SessionData>, String> {
    let read = || -> rusqlite::Result<Option<SessionData>> {
        let txn = conn.unchecked_transaction()?;
        let head: Option<(String, Option<String>)> = txn
            .query_row(
                "SELECT title, revert FROM session WHERE id = ?1",
                [id],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?;
        let Some((title, revert)) = head else {
            return Ok(None);
        };
        let mut parts: HashMap<String, Vec<(String, String)>> = HashMap::new();
        {
            let mut stmt = txn.prepare(
                "SELECT message_id, id, data FROM part WHERE session_id = ?1 \
                 ORDER BY message_id, id",
            )?;
            let mut rows = stmt.query([id])?;
            while let Some(row) = rows.next()? {
                let message: String = row.get(0)?;
                parts
                    .entry(message)
                    .or_default()
                    .push((row.get(1)?, row.get(2)?));
            }
        }
        let mut stmt = txn.prepare(
            "SELECT id, data FROM message WHERE session_id = ?1 ORDER BY time_created, id",
        )?;
        let messages = stmt
            .query_map([id], |row| {
                let id: String = row.get(0)?;
                Ok(StoredMessage {
                    parts: parts.remove(&id).unwrap_or_default(),
                    data: row.get(1)?,
                    id,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        drop(stmt);
        txn.finish()?;
        Ok(Some(SessionData {
            title: Some(title),
            revert,
            messages,
        }))
    };
    read().map_err(|e| reason(&e))
}

/// Per session id: how many messages and parts it has, and the newest
/// `time_updated` of its row and its messages (ms). What tells the search
/// index that a session changed: opencode does not touch
/// `session.time_updated` while a turn streams, but every new part
/// changes the count, and the assistant message is rewritten when each
/// step ends. Only a text part growing in place within a step goes
/// unseen until that step ends. Parts are counted from their
/// `session_id` index alone: reading their `time_updated` would read
/// the whole part table, most of the database (BENCHMARKS.md).
pub fn versions(conn: &Connection) -> Result<HashMap<String, (u64, i64)>, String> {
    let read = || -> rusqlite::Result<HashMap<String, (u64, i64)>> {
        let txn = conn.unchecked_transaction()?;
        let mut found: HashMap<String, (u64, i64)> = HashMap::new();
        for sql in [
            "SELECT id, 0, time_updated FROM session",
            "SELECT session_id, count(*), max(time_updated) FROM message GROUP BY session_id",
            "SELECT session_id, count(*), NULL FROM part GROUP BY session_id",
        ] {
            let mut stmt = txn.prepare(sql)?;
            let mut rows = stmt.query([])?;
            while let Some(row) = rows.next()? {
                let id: String = row.get(0)?;
                let count: i64 = row.get(1)?;
                let time: Option<i64> = row.get(2)?;
                let entry = found.entry(id).or_insert((0, i64::MIN));
                entry.0 += u64::try_from(count).unwrap_or(0);
                entry.1 = entry.1.max(time.unwrap_or(i64::MIN));
            }
        }
        txn.finish()?;
        Ok(found)
    };
    read().map_err(|e| reason(&e))
}
