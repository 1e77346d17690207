//! The metadata row of a Cursor CLI chat's `store.db`.
//!
//! The database is the CLI's own (WAL mode, written while a session runs).
//! It is opened read-only with `immutable=1`: SQLite then takes no lock and
//! creates no `-wal` or `-shm` beside it, so the agent is never blocked and
//! nothing in the store changes. The price is that rows still only in the
//! WAL are not seen until the CLI checkpoints them; the one row read here
//! (`meta` key `0`) is written when a session starts and when it is named.
//! A database that cannot be read (locked, corrupt, not the CLI's) gives
//! nothing: the title and times then come from elsewhere.

use std::path::Path;

use rusqlite::{types::Value, Connection, OpenFlags};

use crate::kinds::sqlite::immutable_uri;

/// What the `meta` row says of a session.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
pub struct StoreMeta {
    /// The session's name (`New Agent` until one is set).
    pub name: Option<String>,
    /// When it was created (Unix milliseconds; a number, or a string in
    /// some versions).
    #[serde(rename = "createdAt", default, deserialize_with = "lenient_ms")]
    pub created_ms: Option<f64>,
}

/// A time in milliseconds given as a number or a numeric string.
fn lenient_ms<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let value: Option<serde_json::Value> = serde::Deserialize::deserialize(d)?;
    Ok(match value {
        Some(serde_json::Value::Number(n)) => n.as_f64(),
        Some(serde_json::Value::String(s)) => s.trim().parse().ok(),
        _ => None,
    })
}

/// The `meta` row of `path` (see the module docs); `None` when there is
/// none or the database cannot be read.
pub fn read_meta(path: &Path) -> Option<StoreMeta> {
    if !path.is_file() {
        return None;
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    let conn = Connection::open_with_flags(immutable_uri(path), flags).ok()?;
    let value: Value = conn
        .query_row("SELECT value FROM meta WHERE key = '0'", [], |row| {
            row.get(0)
        })
        .ok()?;
    let json = match value {
        Value::Text(text) => decode_hex(text.trim()).unwrap_or_else(|| text.into_bytes()),
        Value::Blob(bytes) => std::str::from_utf8(&bytes)
            .ok()
            .and_then(|t| decode_hex(t.trim()))
            .unwrap_or(bytes),
        _ => return None,
    };
    serde_json::from_slice(&json).ok()
}

/// The bytes a string of hex digits spells, when it is one.
fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || text.is_empty() {
        return None;
    }
    text.as_bytes()
        .chunks(2)
        .map(|pair| {
            let digit = |b: u8| char::from(b).to_digit(16);
            u8::try_from(digit(pair[0])? * 16 + digit(pair[1])?).ok()
        })
        .collect()
}
