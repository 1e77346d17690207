//! Opening an agent's SQLite database without disturbing the agent that
//! writes it: the one rule every database-backed kind follows (opencode's
//! `opencode.db`, Goose's `sessions.db`).
//!
//! # Opening
//!
//! Agents keep these databases in WAL mode and write them while we read:
//! the newest rows are often only in the `-wal`. So a database whose WAL
//! holds frames is opened as an ordinary SQLite connection, which reads the
//! WAL through the shared `-shm` index, never with `immutable=1` (which
//! skips the WAL and would miss recent sessions). The connection:
//!
//! - is opened `SQLITE_OPEN_READ_ONLY` (SQLite never writes the database or
//!   the WAL through it), with `PRAGMA query_only` on top;
//! - never checkpoints: a read-only connection cannot, and
//!   `SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE` says so again for the close;
//! - waits at most [`BUSY`] for a lock: the agent holds the write lock only
//!   for the length of one write, and readers of a WAL database never block
//!   its writer (so a read cannot lock the agent out); a database that stays
//!   locked longer (a writer in `locking_mode=EXCLUSIVE`, or a rollback
//!   journal database in the middle of a write) is reported as locked,
//!   never waited for.
//!
//! A read-only open of a WAL database needs the `-shm` file: SQLite maps
//! it, creating it (and an empty `-wal`) when missing. So a WAL database
//! whose last connection closed cleanly (no `-wal`, or an empty one) is
//! opened with `immutable=1` first: there is no WAL to miss, and nothing
//! is created in the store. Only while a `-wal` holds frames (the agent
//! running, or crashed) is the plain read-only open used; with the `-wal`
//! and `-shm` present a read-only folder reads fine, WAL rows included
//! (`tools/opencode-readonly-check.sh`, a read-only bind mount); a `-wal`
//! without its `-shm` is unreadable in a read-only folder, with that
//! reason, never a hang.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

/// The longest wait for a lock the agent holds.
pub const BUSY: Duration = Duration::from_millis(200);

/// Why a database cannot be read.
pub enum Why {
    /// SQLite could not open the WAL index (`-shm`): a read-only folder.
    CannotOpen,
    /// An SQLite error ([`reason`] says it).
    Sqlite(rusqlite::Error),
    /// Anything else, said for a person.
    Other(String),
}

impl Why {
    /// Said for a person, naming the `product` whose database it is.
    pub fn said(&self, product: &str) -> String {
        match self {
            Why::CannotOpen => "cannot open the database's WAL index read-only: the folder is \
                 not writable and its -shm file is missing (the agent creates it when it runs)"
                .to_owned(),
            Why::Sqlite(e) => reason(e, product),
            Why::Other(text) => text.clone(),
        }
    }
}

impl From<rusqlite::Error> for Why {
    fn from(e: rusqlite::Error) -> Self {
        match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::CannotOpen) => Why::CannotOpen,
            _ => Why::Sqlite(e),
        }
    }
}

/// Open `path` read-only (see the module docs) and run `check` on the
/// connection (the schema check: the first read, so a locked, corrupt or
/// non-database file fails there). `product` names the agent in reasons.
pub fn open<T>(
    path: &Path,
    product: &str,
    check: impl Fn(&Connection) -> Result<T, Why>,
) -> Result<(Connection, T), String> {
    // No WAL to miss: `immutable=1` reads the main file alone and, unlike
    // a read-only open of a WAL database, creates no `-wal`/`-shm` in the
    // store (nothing in a store is ever created or modified).
    if wal_mode(path) && quiescent(path) {
        return open_immutable(path, product, &check);
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = match Connection::open_with_flags(path, flags) {
        Ok(conn) => conn,
        Err(e) => return Err(reason(&e, product)),
    };
    match configure(&conn).and_then(|()| check(&conn)) {
        Err(Why::CannotOpen) if quiescent(path) => open_immutable(path, product, &check),
        Err(why) => Err(why.said(product)),
        Ok(checked) => Ok((conn, checked)),
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
pub fn side_file(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    name.into()
}

/// A quiescent database ([`quiescent`]), opened `immutable`.
fn open_immutable<T>(
    path: &Path,
    product: &str,
    check: &impl Fn(&Connection) -> Result<T, Why>,
) -> Result<(Connection, T), String> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    let conn =
        Connection::open_with_flags(immutable_uri(path), flags).map_err(|e| reason(&e, product))?;
    let checked = configure(&conn)
        .and_then(|()| check(&conn))
        .map_err(|why| why.said(product))?;
    Ok((conn, checked))
}

/// `file:PATH?immutable=1`, the path percent-encoded where a URI needs it
/// (also how Cursor CLI's `store.db` is opened).
pub fn immutable_uri(path: &Path) -> String {
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
pub fn columns_of(conn: &Connection, table: &str) -> Result<Vec<String>, Why> {
    let mut stmt = conn.prepare("SELECT name FROM pragma_table_info(?1)")?;
    let have = stmt
        .query_map([table], |row| row.get(0))?
        .collect::<Result<_, _>>()?;
    Ok(have)
}

/// What of `columns` table `table` lacks, said as `table t` or `column
/// t.c` (empty when it has them all).
pub fn missing_of(have: &[String], table: &str, columns: &[&str]) -> Vec<String> {
    if have.is_empty() {
        return vec![format!("table {table}")];
    }
    columns
        .iter()
        .filter(|c| !have.iter().any(|h| h == *c))
        .map(|c| format!("column {table}.{c}"))
        .collect()
}

/// A SQLite error said for a person, naming the `product` whose database
/// it is.
pub fn reason(e: &rusqlite::Error, product: &str) -> String {
    use rusqlite::ErrorCode as Code;
    match e.sqlite_error_code() {
        Some(Code::DatabaseBusy | Code::DatabaseLocked) => format!(
            "{product} database is locked by another connection (waited {} ms): {e}",
            BUSY.as_millis()
        ),
        Some(Code::NotADatabase) => format!("not an SQLite database: {e}"),
        Some(Code::DatabaseCorrupt) => format!("corrupt SQLite database: {e}"),
        _ => format!("cannot read the {product} database: {e}"),
    }
}
