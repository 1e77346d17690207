//! Reading Goose's `sessions.db` without disturbing the Goose process
//! writing it: opened as every agent's database is
//! ([`crate::kinds::sqlite`]), each session's messages read in one
//! statement (one snapshot).
//!
//! # Schema
//!
//! Followed: `block/goose` `crates/goose/src/session/session_manager.rs`
//! (the copy at commit `dbec1655c177…`, `CURRENT_SCHEMA_VERSION` 9): its
//! `create_schema` writes
//!
//! - `sessions(id TEXT PRIMARY KEY, name, description, user_set_name,
//!   session_type, working_dir, created_at, updated_at, extension_data,
//!   …tokens…, schedule_id, recipe_json, user_recipe_values_json,
//!   provider_name, model_config_json, tenant_id, user_id)`;
//! - `messages(id INTEGER PRIMARY KEY AUTOINCREMENT, message_id,
//!   session_id, role, content_json, created_timestamp, timestamp,
//!   tokens, metadata_json)`;
//!
//! and its migrations 1–9 add `user_recipe_values_json` (2),
//! `metadata_json` (3), `name` and `user_set_name` (4), `session_type`
//! (5), `provider_name` and `model_config_json` (6), `message_id` (7),
//! the eval tables (8), `tenant_id` and `user_id` (9). Only the columns of
//! [`REQUIRED`] are needed (a database from before migration 4 names its
//! sessions by `description`); the later ones are read when present. A
//! database without them (not Goose's, or a newer Goose that changed
//! them) is unreadable, and the reason says the newest `schema_version`
//! it records when it is newer than 9.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension};

use super::convo::Message;
use crate::kinds::sqlite::{columns_of, missing_of, open_with, reason, tally, Dialect, Why};

/// The newest `schema_version` this reader knows.
pub const NEWEST_KNOWN: i64 = 9;

/// Goose's database, for the reasons a reader gives.
pub const DIALECT: Dialect = Dialect {
    product: "Goose",
    newest_known: "9",
    follows: "Goose schema version 9 (block/goose dbec1655c177)",
};

/// The tables and columns read in every version.
pub const REQUIRED: &[(&str, &[&str])] = &[
    (
        "sessions",
        &["id", "working_dir", "created_at", "updated_at"],
    ),
    (
        "messages",
        &["id", "session_id", "role", "content_json", "timestamp"],
    ),
];

/// Which of the later columns the database has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Shape {
    /// `sessions.name` and `user_set_name` (migration 4).
    pub name: bool,
    /// `sessions.description` (the name before migration 4).
    pub description: bool,
    /// `sessions.session_type` (migration 5).
    pub session_type: bool,
    /// `messages.metadata_json` (migration 3).
    pub metadata: bool,
}

/// An open database and its [`Shape`].
pub struct Db {
    /// The read-only connection.
    pub conn: Connection,
    /// Its columns.
    pub shape: Shape,
}

/// One session row, as listing needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    /// `YYYYMMDD_N`.
    pub id: String,
    /// `name`, else `description`.
    pub name: String,
    /// Whether the person named it (`/rename`-like, `user_set_name`).
    pub user_set_name: bool,
    /// `user`, `scheduled`, `specialist` (a sub-agent), `hidden`,
    /// `terminal`; `user` before migration 5.
    pub session_type: String,
    /// The working directory.
    pub working_dir: String,
    /// `created_at`, as stored.
    pub created_at: String,
    /// `updated_at`, as stored (set on every message).
    pub updated_at: String,
}

/// Open `path` read-only, with the schema checked.
pub fn open(path: &Path) -> Result<Db, String> {
    let (conn, shape) = open_with(path, &DIALECT, check_schema)?;
    Ok(Db { conn, shape })
}

fn check_schema(conn: &Connection) -> Result<Shape, Why> {
    let sessions = columns_of(conn, "sessions")?;
    let messages = columns_of(conn, "messages")?;
    let missing: Vec<String> = REQUIRED
        .iter()
        .flat_map(|(table, columns)| {
            let have = if *table == "sessions" {
                &sessions
            } else {
                &messages
            };
            missing_of(have, table, columns)
        })
        .collect();
    let has = |have: &[String], c: &str| have.iter().any(|h| h == c);
    if missing.is_empty() && (has(&sessions, "name") || has(&sessions, "description")) {
        return Ok(Shape {
            name: has(&sessions, "name") && has(&sessions, "user_set_name"),
            description: has(&sessions, "description"),
            session_type: has(&sessions, "session_type"),
            metadata: has(&messages, "metadata_json"),
        });
    }
    let version: Option<i64> = conn
        .query_row("SELECT max(version) FROM schema_version", [], |row| {
            row.get(0)
        })
        .optional()
        .ok()
        .flatten()
        .flatten();
    let what = match version {
        Some(v) if v > NEWEST_KNOWN => format!(
            "written by a newer Goose (schema version {v}; this reader follows {NEWEST_KNOWN})"
        ),
        Some(v) => format!("at schema version {v}"),
        None => "not a Goose sessions database".to_owned(),
    };
    let missing = if missing.is_empty() {
        "column sessions.name".to_owned()
    } else {
        missing.join(", ")
    };
    Err(Why::Other(format!("Goose database {what}: no {missing}")))
}

/// Every session with at least one message (Goose's own list joins the
/// messages the same way), every type: the caller says which are listed.
pub fn sessions(db: &Db) -> Result<Vec<SessionRow>, String> {
    let name = match (db.shape.name, db.shape.description) {
        (true, true) => "coalesce(nullif(s.name, ''), s.description, '')",
        (true, false) => "coalesce(s.name, '')",
        _ => "coalesce(s.description, '')",
    };
    let user_set = if db.shape.name {
        "coalesce(s.user_set_name, 0)"
    } else {
        "0"
    };
    let kind = if db.shape.session_type {
        "coalesce(s.session_type, 'user')"
    } else {
        "'user'"
    };
    let sql = format!(
        "SELECT s.id, {name}, {user_set}, {kind}, coalesce(s.working_dir, ''), \
         coalesce(s.created_at, ''), coalesce(s.updated_at, '') FROM sessions s \
         WHERE EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id) ORDER BY s.id"
    );
    let read = || -> rusqlite::Result<Vec<SessionRow>> {
        let mut stmt = db.conn.prepare(&sql)?;
        let rows = stmt.query_map([], |row| {
            Ok(SessionRow {
                id: row.get(0)?,
                name: row.get(1)?,
                user_set_name: row.get::<_, Option<bool>>(2)?.unwrap_or(false),
                session_type: row.get(3)?,
                working_dir: row.get(4)?,
                created_at: text_of(row.get_ref(5)?),
                updated_at: text_of(row.get_ref(6)?),
            })
        })?;
        rows.collect()
    };
    read().map_err(|e| reason(&DIALECT, &e))
}

/// A stored time as text (Goose writes text; an integer is kept as its
/// digits).
fn text_of(value: rusqlite::types::ValueRef<'_>) -> String {
    use rusqlite::types::ValueRef;
    match value {
        ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
        ValueRef::Integer(i) => i.to_string(),
        _ => String::new(),
    }
}

/// The messages of session `id`, in the order Goose reads them back
/// (`timestamp`, then insertion).
pub fn messages(db: &Db, id: &str) -> Result<Vec<Message>, String> {
    messages_up_to(db, id, None)
}

/// The first `limit` messages of session `id`, in [`messages`]' order:
/// what a title from the first prompt needs, without reading a long
/// conversation whole.
pub fn first_messages(db: &Db, id: &str, limit: u32) -> Result<Vec<Message>, String> {
    messages_up_to(db, id, Some(limit))
}

fn messages_up_to(db: &Db, id: &str, limit: Option<u32>) -> Result<Vec<Message>, String> {
    let metadata = if db.shape.metadata {
        "metadata_json"
    } else {
        "NULL"
    };
    let limit = limit.map_or_else(String::new, |n| format!(" LIMIT {n}"));
    let sql = format!(
        "SELECT role, content_json, {metadata} FROM messages WHERE session_id = ?1 \
         ORDER BY timestamp, id{limit}"
    );
    let read = || -> rusqlite::Result<Vec<Message>> {
        let mut stmt = db.conn.prepare(&sql)?;
        let rows = stmt.query_map([id], |row| {
            let role: String = row.get(0)?;
            let content: String = row.get(1)?;
            let metadata: Option<String> = row.get(2)?;
            Ok(Message::from_row(role, &content, metadata.as_deref()))
        })?;
        rows.collect()
    };
    read().map_err(|e| reason(&DIALECT, &e))
}

/// Each session's version: its message count and newest message rowid
/// (a compaction rewrites the conversation, so new rowids; an appended
/// message adds one).
pub fn versions(db: &Db) -> Result<std::collections::HashMap<String, (u64, i64)>, String> {
    let sql = "SELECT session_id, count(*), max(id) FROM messages GROUP BY session_id";
    tally(&db.conn, &[sql], |rowid| rowid).map_err(|e| reason(&DIALECT, &e))
}
