//! Crush stores for tests and benchmarks, written as Crush writes them: a
//! project's `.crush/crush.db` made by Crush's own migrations
//! (`tests/fixtures/crush/migrations-37f36e9.sql`, charmbracelet/crush at
//! 37f36e9), in WAL mode with the rows left in `-wal` as a running Crush
//! leaves them, its insert triggers firing as they do there, and the
//! `projects.json` registry beside Crush's global data.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use rusqlite::{params, Connection};
use serde_json::{json, Value};

/// Crush's migrations, their Up sections in order.
pub const MIGRATIONS: &str = include_str!("../../fixtures/crush/migrations-37f36e9.sql");

/// A project's database being written.
pub struct Db {
    /// The open writer.
    pub conn: Connection,
    /// The database file.
    pub path: PathBuf,
}

impl Db {
    /// A new `crush.db` in `data_dir`, migrated, in WAL mode, never
    /// checkpointed on close.
    pub fn create(data_dir: &Path) -> Db {
        let path = data_dir.join("crush.db");
        let conn = super::opencode::wal_writer(&path, MIGRATIONS);
        Db { conn, path }
    }

    /// A session as `CreateSession` inserts it, at `at` (Unix seconds, as
    /// Crush's `strftime('%s', 'now')` writes it), `parent` for a child.
    pub fn session(&self, id: &str, parent: Option<&str>, title: &str, at: i64) {
        self.conn
            .execute(
                "INSERT INTO sessions (id, parent_session_id, title, message_count, \
                 prompt_tokens, completion_tokens, cost, summary_message_id, updated_at, \
                 created_at) VALUES (?1, ?2, ?3, 0, 0, 0, 0, NULL, ?4, ?4)",
                params![id, parent, title, at],
            )
            .unwrap();
    }

    /// A message as `CreateMessage` inserts it, with its parts (each
    /// `{type, data}`), at `at`; `summary` marks a summary message.
    pub fn message(&self, session: &str, id: &str, role: &str, parts: &[Value], at: i64) {
        self.insert(session, id, role, parts, at, false);
    }

    /// The summary message `/summarize` writes, made the session's summary.
    pub fn summary(&self, session: &str, id: &str, text: &str, at: i64) {
        self.insert(
            session,
            id,
            "assistant",
            &[text_part(text), finish("end_turn")],
            at,
            true,
        );
        self.conn
            .execute(
                "UPDATE sessions SET summary_message_id = ?1 WHERE id = ?2",
                params![id, session],
            )
            .unwrap();
    }

    fn insert(&self, session: &str, id: &str, role: &str, parts: &[Value], at: i64, summary: bool) {
        self.conn
            .execute(
                "INSERT INTO messages (id, session_id, role, parts, model, provider, \
                 is_summary_message, created_at, updated_at) \
                 VALUES (?1, ?2, ?3, ?4, 'mock-model', 'mock', ?5, ?6, ?6)",
                params![
                    id,
                    session,
                    role,
                    Value::from(parts.to_vec()).to_string(),
                    i64::from(summary),
                    at
                ],
            )
            .unwrap();
    }

    /// Set a session's title, as a generated title or a rename does.
    pub fn rename(&self, session: &str, title: &str) {
        self.conn
            .execute(
                "UPDATE sessions SET title = ?1 WHERE id = ?2",
                params![title, session],
            )
            .unwrap();
    }
}

/// Crush's `projects.json` in `global` listing `(path, data_dir)` pairs,
/// most recent first, as `projects.Register` writes it.
pub fn register(global: &Path, projects: &[(&Path, &Path)]) -> PathBuf {
    std::fs::create_dir_all(global).unwrap();
    let list: Vec<Value> = projects
        .iter()
        .enumerate()
        .map(|(i, (path, data))| {
            json!({"path": path, "data_dir": data,
                "last_accessed": format!("2026-12-0{}T05:11:08.447Z", 3 - i.min(2))})
        })
        .collect();
    let file = global.join("projects.json");
    let text = serde_json::to_string_pretty(&json!({"projects": list})).unwrap();
    std::fs::write(&file, text).unwrap();
    file
}

/// A `text` part.
pub fn text_part(text: &str) -> Value {
    json!({"type": "text", "data": {"text": text}})
}

/// A `reasoning` part.
pub fn reasoning_part(text: &str) -> Value {
    json!({"type": "reasoning", "data": {"thinking": text, "signature": "", "started_at": 1, "finished_at": 2}})
}

/// A finished `tool_call` part.
pub fn tool_call(name: &str, input: &str) -> Value {
    json!({"type": "tool_call", "data": {"id": "call_1", "name": name,
        "input": json!({"command": input}).to_string(), "provider_executed": false, "finished": true}})
}

/// A `tool_result` part (in a `tool` message).
pub fn tool_result(output: &str) -> Value {
    json!({"type": "tool_result", "data": {"tool_call_id": "call_1", "name": "bash",
        "content": output, "data": "", "mime_type": "", "metadata": "", "is_error": false}})
}

/// A `binary` attachment part.
pub fn attachment(path: &str, contents: &str) -> Value {
    use base64::Engine;
    json!({"type": "binary", "data": {"path": path, "mime_type": "text/plain",
        "data": base64::engine::general_purpose::STANDARD.encode(contents)}})
}

/// A `finish` part.
pub fn finish(reason: &str) -> Value {
    json!({"type": "finish", "data": {"reason": reason, "time": 1}})
}
