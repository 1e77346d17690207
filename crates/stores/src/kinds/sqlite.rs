//! Reading another program's SQLite database while it writes it, without
//! disturbing it and without changing a byte of the store: how opencode's
//! and Kilo Code's `*.db`, Crush's `crush.db`, Goose's `sessions.db` and
//! Cursor CLI's `store.db` are opened. Each reader says whose database it is ([`Dialect`], for the
//! reasons it gives) and checks the schema it needs ([`open_with`]).
//!
//! # Opening
//!
//! The database is in WAL mode and the agent (opencode, here) writes it while we read: the
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

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use crate::caches::lock;
use crate::index::stamp::Stamp;

/// The longest wait for a lock opencode holds.
pub const BUSY: Duration = Duration::from_millis(200);

/// What the reasons given for a database of one member of the opencode
/// family say: whose database it is and which versions this reader follows.
#[derive(Debug)]
pub struct Dialect {
    /// The program writing it, as reasons name it (`opencode`).
    pub product: &'static str,
    /// Its newest migration this reader knows (a later one, with a column
    /// missing, is "written by a newer" version).
    pub newest_known: &'static str,
    /// The versions followed, as the reason for a newer database says them.
    pub follows: &'static str,
}

/// Open the SQLite database at `path` read-only as the module docs say
/// (`immutable=1` when no WAL holds frames, else a read-only connection
/// that never checkpoints), then read its schema with `check`: also how
/// Crush's `crush.db` and Goose's `sessions.db` are opened.
pub fn open_with<S>(
    path: &Path,
    dialect: &Dialect,
    check: impl Fn(&Connection) -> Result<S, Why>,
) -> Result<(Connection, S), String> {
    // No WAL to miss: `immutable=1` reads the main file alone and, unlike
    // a read-only open of a WAL database, creates no `-wal`/`-shm` in the
    // store (nothing in a store is ever created or modified).
    if wal_mode(path) && quiescent(path) {
        return open_immutable(path, dialect, &check);
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = match Connection::open_with_flags(path, flags) {
        Ok(conn) => conn,
        Err(e) => return Err(reason(dialect, &e)),
    };
    match configure(&conn).and_then(|()| check(&conn)) {
        Err(Why::CannotOpen) if quiescent(path) => open_immutable(path, dialect, &check),
        Err(why) => Err(why.say(dialect)),
        Ok(shape) => Ok((conn, shape)),
    }
}

/// The [`Dialect`] of a database copied whole, whoever wrote it (the
/// archive's copies): its reasons name no program.
pub const ANY_DIALECT: Dialect = Dialect {
    product: "the agent",
    newest_known: "",
    follows: "",
};

/// Whether the file at `path` starts as every SQLite database does
/// (`SQLite format 3\0`).
pub fn is_database(path: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok_and(|()| &magic == b"SQLite format 3\0")
}

/// Write a consistent copy of the database at `path` to `dest` (a path
/// that must not exist yet): SQLite's `VACUUM INTO` on the read-only
/// connection [`open_with`] makes, so the copy holds what the WAL holds
/// too and nothing in the store is written. How the archive keeps any
/// agent's database (`crate::archive`).
pub fn copy_into(path: &Path, dest: &Path) -> Result<(), String> {
    let (conn, ()) = open_with(path, &ANY_DIALECT, |_| Ok(()))?;
    let dest = dest
        .to_str()
        .ok_or_else(|| "the archive's path is not UTF-8".to_owned())?;
    // `query_only` refuses VACUUM INTO even though it writes only `dest`;
    // the connection itself stays read-only (SQLITE_OPEN_READ_ONLY).
    conn.pragma_update(None, "query_only", false)
        .and_then(|()| conn.execute("VACUUM INTO ?1", [dest]))
        .map(|_| ())
        .map_err(|e| reason(&ANY_DIALECT, &e))
}

/// Why a database cannot be read.
#[derive(Debug)]
pub enum Why {
    /// SQLite could not open the WAL index (`-shm`): a read-only folder.
    CannotOpen,
    /// Anything else, said for a person.
    Other(String),
    /// A SQLite error.
    Sqlite(rusqlite::Error),
}

impl Why {
    /// The reason, said for a person.
    fn say(self, dialect: &Dialect) -> String {
        match self {
            Why::CannotOpen => format!(
                "cannot open the database's WAL index read-only: the folder is not \
                 writable and its -shm file is missing ({} creates it when it runs)",
                dialect.product
            ),
            Why::Other(text) => text,
            Why::Sqlite(e) => reason(dialect, &e),
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

/// Idle connections to each database, for the next read: a connection is
/// opened and its schema checked once per run, not per session (each read
/// is its own transaction, so it sees the newest rows). An idle connection
/// is used again only while the database is the file it was opened on (the
/// same inode): one deleted or replaced since is opened afresh, so a
/// vanished database fails its reads as a vanished log does.
pub struct Pool<C> {
    idle: Mutex<HashMap<PathBuf, Vec<(u64, C)>>>,
}

impl<C> Default for Pool<C> {
    fn default() -> Self {
        Pool {
            idle: Mutex::new(HashMap::new()),
        }
    }
}

impl<C> Pool<C> {
    /// `read` on a connection to `db`: an idle one, else one `open` makes;
    /// kept for the next read unless the read failed.
    pub fn with<T>(
        &self,
        db: &Path,
        open: impl FnOnce() -> Result<C, String>,
        read: impl FnOnce(&C) -> Result<T, String>,
    ) -> Result<T, String> {
        let inode = Stamp::current(db).map(|s| s.inode);
        let idle = {
            let mut idle = lock(&self.idle);
            let conns = idle.entry(db.to_owned()).or_default();
            conns.retain(|(of, _)| Some(*of) == inode);
            conns.pop()
        };
        let (inode, conn) = match (idle, inode) {
            (Some(idle), _) => idle,
            (None, inode) => (inode.unwrap_or(0), open()?),
        };
        let out = read(&conn);
        if out.is_ok() {
            lock(&self.idle)
                .entry(db.to_owned())
                .or_default()
                .push((inode, conn));
        }
        out
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
fn open_immutable<S>(
    path: &Path,
    dialect: &Dialect,
    check: &impl Fn(&Connection) -> Result<S, Why>,
) -> Result<(Connection, S), String> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    let uri = immutable_uri(path);
    let conn = Connection::open_with_flags(uri, flags).map_err(|e| reason(dialect, &e))?;
    let shape = configure(&conn)
        .and_then(|()| check(&conn))
        .map_err(|why| why.say(dialect))?;
    Ok((conn, shape))
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

/// A SQLite error on a database of `dialect`, said for a person.
pub fn reason(dialect: &Dialect, e: &rusqlite::Error) -> String {
    let product = dialect.product;
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

/// Per session id, the sum of the counts and the newest time (read through
/// `time`) the rows of `queries` give, each row `(id, count, time?)`, read
/// in one transaction: a database's per-session versions.
pub fn tally(
    conn: &Connection,
    queries: &[&str],
    time: fn(i64) -> i64,
) -> rusqlite::Result<HashMap<String, (u64, i64)>> {
    let txn = conn.unchecked_transaction()?;
    let mut found: HashMap<String, (u64, i64)> = HashMap::new();
    for sql in queries {
        let mut stmt = txn.prepare(sql)?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let id: String = row.get(0)?;
            let count: i64 = row.get(1)?;
            let at: Option<i64> = row.get(2)?;
            let entry = found.entry(id).or_insert((0, i64::MIN));
            entry.0 += u64::try_from(count).unwrap_or(0);
            entry.1 = entry.1.max(at.map_or(i64::MIN, time));
        }
    }
    txn.finish()?;
    Ok(found)
}
