//! The tables of `crush.db` this reader needs, and its queries.
//!
//! Crush's goose migrations (`internal/db/migrations/`, up to
//! [`NEWEST_KNOWN`]) make `sessions` and `messages` in the first one and
//! add `sessions.summary_message_id` (2025-05-15) and
//! `messages.is_summary_message` (2025-08-10) later: those two are read
//! when present, so a database of an older Crush still reads. The columns
//! of [`SESSIONS`] and [`MESSAGES`] are required; a database without them
//! is unreadable, with what is missing named.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension};

use super::convo::Stored;
use crate::kinds::sqlite::{columns_of, missing_of, tally, Dialect, Why};

/// The newest migration of the Crush source followed.
pub const NEWEST_KNOWN: &str = "20260127000000";

/// Crush's database, for the reasons a reader gives.
pub(crate) const DIALECT: Dialect = Dialect {
    product: "Crush",
    newest_known: NEWEST_KNOWN,
    follows: "Crush at 37f36e9 (2026-08-21)",
};

/// Unix seconds from a Crush time, seconds or milliseconds (see the
/// [module docs](super)).
pub fn secs(time: i64) -> i64 {
    if time.unsigned_abs() >= 100_000_000_000 {
        time.div_euclid(1000)
    } else {
        time
    }
}

/// The columns read of `sessions`.
pub const SESSIONS: &[&str] = &[
    "id",
    "parent_session_id",
    "title",
    "created_at",
    "updated_at",
];

/// The columns read of `messages`.
pub const MESSAGES: &[&str] = &[
    "id",
    "session_id",
    "role",
    "parts",
    "created_at",
    "updated_at",
];

/// Which optional columns a database has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Shape {
    /// `sessions.summary_message_id`.
    pub summary_id: bool,
    /// `messages.is_summary_message`.
    pub summary_flag: bool,
}

/// One `sessions` row, as listing needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    /// The session id (a UUID; a child's may be a tool call's id).
    pub id: String,
    /// The parent of a child session.
    pub parent: Option<String>,
    /// The title.
    pub title: String,
    /// Seconds or milliseconds ([`secs`]).
    pub created: i64,
    /// Seconds or milliseconds.
    pub updated: i64,
}

/// The [`Shape`] of a database with the required columns (reading the
/// schema is the first read, so a locked, corrupt or foreign file fails
/// here).
pub fn check(conn: &Connection) -> Result<Shape, Why> {
    let sessions = columns_of(conn, "sessions")?;
    let messages = columns_of(conn, "messages")?;
    let missing = [
        missing_of(&sessions, "sessions", SESSIONS),
        missing_of(&messages, "messages", MESSAGES),
    ]
    .concat();
    if !missing.is_empty() {
        return Err(Why::Other(format!(
            "not a Crush database (or a newer Crush's; this reader follows {}): no {}",
            DIALECT.follows,
            missing.join(", ")
        )));
    }
    Ok(Shape {
        summary_id: sessions.iter().any(|c| c == "summary_message_id"),
        summary_flag: messages.iter().any(|c| c == "is_summary_message"),
    })
}

const SESSION_COLUMNS: &str = "id, parent_session_id, title, created_at, updated_at";

fn session_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<SessionRow> {
    Ok(SessionRow {
        id: row.get(0)?,
        parent: row.get(1)?,
        title: row.get::<_, Option<String>>(2)?.unwrap_or_default(),
        created: row.get::<_, Option<i64>>(3)?.unwrap_or(0),
        updated: row.get::<_, Option<i64>>(4)?.unwrap_or(0),
    })
}

/// A SQLite error said for a person.
fn say(e: &rusqlite::Error) -> String {
    crate::kinds::sqlite::reason(&DIALECT, e)
}

/// Every session row.
pub fn sessions(conn: &Connection, _: Shape) -> Result<Vec<SessionRow>, String> {
    let read = || -> rusqlite::Result<Vec<SessionRow>> {
        let mut stmt = conn.prepare(&format!("SELECT {SESSION_COLUMNS} FROM sessions"))?;
        let rows = stmt.query_map([], session_row)?;
        rows.collect()
    };
    read().map_err(|e| say(&e))
}

/// One session row by id (`None` when gone).
pub fn session(conn: &Connection, _: Shape, id: &str) -> Result<Option<SessionRow>, String> {
    conn.query_row(
        &format!("SELECT {SESSION_COLUMNS} FROM sessions WHERE id = ?1"),
        [id],
        session_row,
    )
    .optional()
    .map_err(|e| say(&e))
}

/// A session read whole.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionData {
    /// Its messages in conversation order.
    pub messages: Vec<Stored>,
    /// `sessions.summary_message_id`, when set.
    pub summary: Option<String>,
}

/// A Crush time in seconds, in SQL (see [`secs`]).
const CREATED_SECS: &str =
    "CASE WHEN abs(created_at) >= 100000000000 THEN created_at / 1000 ELSE created_at END";

/// A session's messages in conversation order (creation time in seconds,
/// then insertion order), with the id of its summary; `None` when the
/// session is gone. One read transaction: the session row and its messages
/// are one snapshot while Crush writes.
pub fn read_session(
    conn: &Connection,
    shape: Shape,
    id: &str,
) -> Result<Option<SessionData>, String> {
    let read = || -> rusqlite::Result<Option<SessionData>> {
        let txn = conn.unchecked_transaction()?;
        let summary_column = if shape.summary_id {
            "summary_message_id"
        } else {
            "NULL"
        };
        let head: Option<Option<String>> = txn
            .query_row(
                &format!("SELECT {summary_column} FROM sessions WHERE id = ?1"),
                [id],
                |row| row.get(0),
            )
            .optional()?;
        let Some(summary) = head else {
            return Ok(None);
        };
        let flag = if shape.summary_flag {
            "is_summary_message"
        } else {
            "0"
        };
        let mut stmt = txn.prepare(&format!(
            "SELECT id, role, parts, {flag} FROM messages WHERE session_id = ?1 \
             ORDER BY {CREATED_SECS}, rowid"
        ))?;
        let messages = stmt
            .query_map([id], |row| {
                Ok(Stored {
                    id: row.get(0)?,
                    role: row.get(1)?,
                    parts: row.get::<_, Option<String>>(2)?.unwrap_or_default(),
                    summary: row.get::<_, Option<i64>>(3)?.unwrap_or(0) != 0,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        drop(stmt);
        txn.finish()?;
        Ok(Some(SessionData {
            messages,
            summary: summary.filter(|s| !s.is_empty()),
        }))
    };
    read().map_err(|e| say(&e))
}

/// The first prompt of a session: the text of its first `user` message
/// that has some (the typed request inside a re-queued prompt), reading
/// user messages in conversation order only as far as that one.
pub fn first_prompt(conn: &Connection, id: &str) -> Result<Option<String>, String> {
    let read = || -> rusqlite::Result<Option<String>> {
        let mut stmt = conn.prepare(&format!(
            "SELECT id, parts FROM messages WHERE session_id = ?1 AND role = 'user' \
             ORDER BY {CREATED_SECS}, rowid"
        ))?;
        let mut rows = stmt.query([id])?;
        while let Some(row) = rows.next()? {
            let message = Stored {
                id: row.get(0)?,
                role: "user".to_owned(),
                parts: row.get::<_, Option<String>>(1)?.unwrap_or_default(),
                summary: false,
            };
            if let Some(prompt) = super::convo::first_prompt(std::slice::from_ref(&message), None) {
                return Ok(Some(prompt));
            }
        }
        Ok(None)
    };
    read().map_err(|e| say(&e))
}

/// Per session id: its message count, and the newest `updated_at` of its
/// row and its messages, in seconds. What tells the search index a session
/// changed: a new message changes the count,
/// and Crush rewrites a message's `parts` and `updated_at` as it streams
/// (within one second, a change goes unseen until the next).
pub fn versions(conn: &Connection) -> Result<HashMap<String, (u64, i64)>, String> {
    let queries = [
        "SELECT id, 0, updated_at FROM sessions",
        "SELECT session_id, count(*), max(updated_at) FROM messages GROUP BY session_id",
    ];
    tally(conn, &queries, secs).map_err(|e| say(&e))
}
