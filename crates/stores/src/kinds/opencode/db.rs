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
//! Followed: opencode 1.18.33 (migrations up to [`NEWEST_KNOWN`]), and the
//! 2.x tables beside them ([`Shape`]; the module docs of
//! [`super`] say which sources). Only the columns listed in [`REQUIRED`],
//! [`SESSION_REQUIRED`] and [`SESSION_MESSAGE_REQUIRED`] are read; a
//! database with neither a complete 1.x shape nor a complete 2.x one
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

/// The tables and columns of opencode 1.x's shape (`session`, `message`,
/// `part`).
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

/// The columns read of a session table: 1.x's `session`, early 2.x's
/// `session_v2` and later 2.x's `session` all have them.
pub const SESSION_REQUIRED: &[&str] = &[
    "id",
    "parent_id",
    "directory",
    "title",
    "time_created",
    "time_updated",
    "time_archived",
    "revert",
];

/// The columns read of 2.x's `session_message` (its `seq` too, when it
/// has one: the order opencode writes; without it, `time_created`).
pub const SESSION_MESSAGE_REQUIRED: &[&str] = &[
    "id",
    "session_id",
    "type",
    "time_created",
    "time_updated",
    "data",
];

/// Which of opencode's tables a database has, complete with the columns
/// read.
///
/// - 1.x: `session` with `message` and `part`;
/// - early 2.x (2.0.x): `session_v2` with `session_message`, the 1.x
///   tables kept beside them with the history 2.x imported;
/// - later 2.x: `session` with `session_message` (and `message`/`part`
///   for 1.x history not carried over).
///
/// A session's head is read from `session_v2` when it has the id, else from
/// `session`; its messages from `session_message` when that holds any of
/// its conversation, else from `message`/`part` ([`read_session`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Shape {
    /// `session` has [`SESSION_REQUIRED`].
    pub session: bool,
    /// `session_v2` has [`SESSION_REQUIRED`].
    pub session_v2: bool,
    /// `message` and `part` have their columns of [`REQUIRED`].
    pub parts: bool,
    /// `session_message` has [`SESSION_MESSAGE_REQUIRED`].
    pub session_message: bool,
    /// `session_message` has `seq`.
    pub seq: bool,
}

impl Shape {
    /// Whether a session can be listed and read: a session table, and a
    /// message table to read its conversation from.
    pub fn readable(&self) -> bool {
        (self.session || self.session_v2) && (self.parts || self.session_message)
    }

    /// The session tables to list, the one whose copy wins first.
    fn session_tables(&self) -> impl Iterator<Item = &'static str> {
        [
            self.session_v2.then_some("session_v2"),
            self.session.then_some("session"),
        ]
        .into_iter()
        .flatten()
    }
}

/// An open database and the [`Shape`] its schema has.
pub struct Db {
    /// The read-only connection.
    pub conn: Connection,
    /// Which tables it has.
    pub shape: Shape,
}

/// One row of a session table, as listing needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    /// `ses_…`.
    pub id: String,
    /// The parent of a sub-agent (`task`) session.
    pub parent_id: Option<String>,
    /// The absolute working directory.
    pub directory: String,
    /// The session's title (possibly the `New session - …` placeholder;
    /// empty when 2.x has not titled it yet).
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
pub fn open(path: &Path) -> Result<Db, String> {
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
    match configure(&conn).and_then(|()| check_schema(&conn)) {
        Err(Why::CannotOpen) if quiescent(path) => open_immutable(path),
        Err(why) => Err(why.to_string()),
        Ok(shape) => Ok(Db { conn, shape }),
    }
}

/// Write a consistent copy of the database at `path` to `dest` (a path
/// that must not exist yet): SQLite's `VACUUM INTO` on the read-only
/// connection [`open`] makes, so the copy holds what the WAL holds too and
/// nothing in the store is written. What the archive keeps of an opencode
/// database (`crate::archive`).
pub fn copy_into(path: &Path, dest: &Path) -> Result<(), String> {
    let db = open(path)?;
    let dest = dest
        .to_str()
        .ok_or_else(|| "the archive's path is not UTF-8".to_owned())?;
    // `query_only` refuses VACUUM INTO even though it writes only `dest`;
    // the connection itself stays read-only (SQLITE_OPEN_READ_ONLY).
    db.conn
        .pragma_update(None, "query_only", false)
        .and_then(|()| db.conn.execute("VACUUM INTO ?1", [dest]))
        .map(|_| ())
        .map_err(|e| reason(&e))
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
fn open_immutable(path: &Path) -> Result<Db, String> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    let uri = immutable_uri(path);
    let conn = Connection::open_with_flags(uri, flags).map_err(|e| reason(&e))?;
    let shape = configure(&conn)
        .and_then(|()| check_schema(&conn))
        .map_err(|why| why.to_string())?;
    Ok(Db { conn, shape })
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

/// The columns of `table` (none when there is no such table).
fn columns_of(conn: &Connection, table: &str) -> Result<Vec<String>, Why> {
    let mut stmt = conn.prepare("SELECT name FROM pragma_table_info(?1)")?;
    let have = stmt
        .query_map([table], |row| row.get(0))?
        .collect::<Result<_, _>>()?;
    Ok(have)
}

/// What of `columns` table `table` lacks, said as `table t` or `column
/// t.c` (empty when it has them all).
fn missing_of(have: &[String], table: &str, columns: &[&str]) -> Vec<String> {
    if have.is_empty() {
        return vec![format!("table {table}")];
    }
    columns
        .iter()
        .filter(|c| !have.iter().any(|h| h == *c))
        .map(|c| format!("column {table}.{c}"))
        .collect()
}

/// The database's [`Shape`], when it is [`Shape::readable`] (reading the
/// schema is the first read, so a locked, corrupt or non-database file
/// fails here).
fn check_schema(conn: &Connection) -> Result<Shape, Why> {
    let session = columns_of(conn, "session")?;
    let session_v2 = columns_of(conn, "session_v2")?;
    let message = columns_of(conn, "message")?;
    let part = columns_of(conn, "part")?;
    let session_message = columns_of(conn, "session_message")?;
    let of = |table: &str| {
        REQUIRED
            .iter()
            .find(|(t, _)| *t == table)
            .map_or(&[][..], |t| t.1)
    };
    let shape = Shape {
        session: missing_of(&session, "session", SESSION_REQUIRED).is_empty(),
        session_v2: missing_of(&session_v2, "session_v2", SESSION_REQUIRED).is_empty(),
        parts: missing_of(&message, "message", of("message")).is_empty()
            && missing_of(&part, "part", of("part")).is_empty(),
        session_message: missing_of(
            &session_message,
            "session_message",
            SESSION_MESSAGE_REQUIRED,
        )
        .is_empty(),
        seq: session_message.iter().any(|c| c == "seq"),
    };
    if shape.readable() {
        return Ok(shape);
    }
    // Said against the shape the database started: 2.0's when it has a
    // `session_v2` table, else 1.x's.
    let missing: Vec<String> = if session_v2.is_empty() {
        [
            missing_of(&session, "session", of("session")),
            missing_of(&message, "message", of("message")),
            missing_of(&part, "part", of("part")),
        ]
        .concat()
    } else {
        [
            missing_of(&session_v2, "session_v2", SESSION_REQUIRED),
            missing_of(
                &session_message,
                "session_message",
                SESSION_MESSAGE_REQUIRED,
            ),
        ]
        .concat()
    };
    let newest: Option<String> = conn
        .query_row("SELECT max(id) FROM migration", [], |row| row.get(0))
        .optional()
        .ok()
        .flatten()
        .flatten();
    let what = match newest {
        Some(newest) if newest.as_str() > NEWEST_KNOWN => format!(
            "written by a newer opencode (migration {newest}; this reader follows 1.18.33 and 2.0)"
        ),
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

/// The columns of a [`SessionRow`], in [`session_row`]'s order (2.x's
/// title may be NULL until it is generated).
const SESSION_COLUMNS: &str =
    "id, parent_id, directory, coalesce(title, ''), time_created, time_updated, time_archived";

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

/// Every session, once: a session in both `session_v2` and `session` (1.x
/// history that 2.0 imported under the same id) is `session_v2`'s row,
/// the copy 2.x keeps writing (the 1.x row stopped at the upgrade).
pub fn sessions(db: &Db) -> Result<Vec<SessionRow>, String> {
    let rows = (|| {
        let mut seen = std::collections::HashSet::new();
        let mut all = Vec::new();
        for table in db.shape.session_tables() {
            let mut stmt = db
                .conn
                .prepare(&format!("SELECT {SESSION_COLUMNS} FROM {table}"))?;
            for row in stmt.query_map([], session_row)? {
                let row = row?;
                if seen.insert(row.id.clone()) {
                    all.push(row);
                }
            }
        }
        Ok(all)
    })();
    rows.map_err(|e: rusqlite::Error| reason(&e))
}

/// One session row by id (`None` when gone), from the table whose copy
/// wins ([`sessions`]).
pub fn session(db: &Db, id: &str) -> Result<Option<SessionRow>, String> {
    for table in db.shape.session_tables() {
        let row = db
            .conn
            .query_row(
                &format!("SELECT {SESSION_COLUMNS} FROM {table} WHERE id = ?1"),
                [id],
                session_row,
            )
            .optional()
            .map_err(|e| reason(&e))?;
        if row.is_some() {
            return Ok(row);
        }
    }
    Ok(None)
}

/// The `session_message` types that are conversation (the others record
/// switches of agent or model, idle marks and the like).
const CONVERSATION_TYPES: &[&str] = &["user", "assistant", "compaction"];

/// A session's title, revert, messages and parts, in one snapshot;
/// `None` when the session is gone. The head comes from the table whose
/// copy wins ([`sessions`]); the messages from `session_message` when it
/// holds any of the session's conversation (what 2.x writes, and where it
/// copies 1.x history it imports, under the same session id), else from
/// `message`/`part` (1.x, or 1.x history 2.x has not copied).
pub fn read_session(db: &Db, id: &str) -> Result<Option<SessionData>, String> {
    let conn = &db.conn;
    let read = || -> rusqlite::Result<Option<SessionData>> {
        let txn = conn.unchecked_transaction()?;
        let mut head: Option<(String, Option<String>)> = None;
        for table in db.shape.session_tables() {
            head = txn
                .query_row(
                    &format!("SELECT coalesce(title, ''), revert FROM {table} WHERE id = ?1"),
                    [id],
                    |row| Ok((row.get(0)?, row.get(1)?)),
                )
                .optional()?;
            if head.is_some() {
                break;
            }
        }
        let Some((title, revert)) = head else {
            return Ok(None);
        };
        let mut messages = if db.shape.session_message {
            v2_messages(&txn, db.shape.seq, id)?
        } else {
            Vec::new()
        };
        let v2 = messages.iter().any(|m| {
            m.kind
                .as_deref()
                .is_some_and(|k| CONVERSATION_TYPES.contains(&k))
        });
        if !v2 {
            messages = if db.shape.parts {
                v1_messages(&txn, id)?
            } else {
                Vec::new()
            };
        }
        txn.finish()?;
        Ok(Some(SessionData {
            title: Some(title),
            revert,
            messages,
        }))
    };
    read().map_err(|e| reason(&e))
}

/// A session's `session_message` rows in the order opencode writes them
/// (`seq`; `time_created` then id in a table without it).
fn v2_messages(
    txn: &rusqlite::Transaction<'_>,
    seq: bool,
    id: &str,
) -> rusqlite::Result<Vec<StoredMessage>> {
    let order = if seq { "seq" } else { "time_created, id" };
    let mut stmt = txn.prepare(&format!(
        "SELECT id, type, data FROM session_message WHERE session_id = ?1 ORDER BY {order}"
    ))?;
    let rows = stmt.query_map([id], |row| {
        Ok(StoredMessage {
            id: row.get(0)?,
            kind: Some(row.get(1)?),
            data: row.get(2)?,
            parts: Vec::new(),
        })
    })?;
    rows.collect()
}

/// A session's 1.x messages (`time_created`, then id, as opencode orders
/// them), each with its parts in id order.
fn v1_messages(txn: &rusqlite::Transaction<'_>, id: &str) -> rusqlite::Result<Vec<StoredMessage>> {
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
    let mut stmt = txn
        .prepare("SELECT id, data FROM message WHERE session_id = ?1 ORDER BY time_created, id")?;
    let messages = stmt
        .query_map([id], |row| {
            let id: String = row.get(0)?;
            Ok(StoredMessage {
                parts: parts.remove(&id).unwrap_or_default(),
                data: row.get(1)?,
                kind: None,
                id,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(messages)
}

/// Per session id: how many messages and parts it has, and the newest
/// `time_updated` of its rows and its messages (ms). What tells the search
/// index that a session changed: opencode does not touch
/// `session.time_updated` while a turn streams, but every new part or
/// `session_message` row changes the count, and the assistant message is
/// rewritten when each step ends. Only a text part growing in place within
/// a step goes unseen until that step ends. Parts are counted from their
/// `session_id` index alone: reading their `time_updated` would read
/// the whole part table, most of the database (BENCHMARKS.md).
pub fn versions(db: &Db) -> Result<HashMap<String, (u64, i64)>, String> {
    let shape = db.shape;
    let read =
        || -> rusqlite::Result<HashMap<String, (u64, i64)>> {
            let txn = db.conn.unchecked_transaction()?;
            let mut found: HashMap<String, (u64, i64)> = HashMap::new();
            let queries = [
            (shape.session, "SELECT id, 0, time_updated FROM session"),
            (shape.session_v2, "SELECT id, 0, time_updated FROM session_v2"),
            (
                shape.parts,
                "SELECT session_id, count(*), max(time_updated) FROM message GROUP BY session_id",
            ),
            (
                shape.parts,
                "SELECT session_id, count(*), NULL FROM part GROUP BY session_id",
            ),
            (
                shape.session_message,
                "SELECT session_id, count(*), max(time_updated) FROM session_message \
                 GROUP BY session_id",
            ),
        ];
            for (_, sql) in queries.iter().filter(|(has, _)| *has) {
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
