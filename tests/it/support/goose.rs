//! Goose stores for tests, written in the shapes Goose writes them: a
//! `sessions.db` made from its own schema (`tests/fixtures/goose/schema-9.sql`,
//! `create_schema` of schema version 9), in WAL mode, rows inserted as
//! `SessionStorage::create_session` and `add_message` insert them, each
//! message's `content_json` a `MessageContent` array and its
//! `metadata_json` `{userVisible, agentVisible}`.
#![allow(dead_code)]

use std::path::Path;

use rusqlite::{params, Connection};
use serde_json::{json, Value};

/// The schema Goose's `create_schema` writes (version 9).
pub const SCHEMA: &str = include_str!("../../fixtures/goose/schema-9.sql");

/// A Goose database being written.
pub struct Db(pub Connection);

impl Db {
    /// A new `sessions.db` at `path` (its folder created), in WAL mode.
    pub fn create(path: &Path) -> Db {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let conn = Connection::open(path).unwrap();
        conn.pragma_update(None, "journal_mode", "WAL").unwrap();
        conn.execute_batch(SCHEMA).unwrap();
        Db(conn)
    }

    /// A session row, as `create_session` inserts it (then renamed by
    /// `apply_update` when `name` is not the CLI's placeholder).
    pub fn session(&self, id: &str, name: &str, kind: &str, dir: &str, created: &str) {
        self.0
            .execute(
                "INSERT INTO sessions (id, name, user_set_name, session_type, working_dir, \
                 extension_data, created_at, updated_at) VALUES (?1, ?2, FALSE, ?3, ?4, '{}', ?5, ?5)",
                params![id, name, kind, dir, created],
            )
            .unwrap();
    }

    /// A message, as `add_message` inserts it.
    pub fn message(&self, session: &str, role: &str, created: i64, content: Value, meta: Value) {
        self.0
            .execute(
                "INSERT INTO messages (message_id, session_id, role, content_json, \
                 created_timestamp, metadata_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    format!("msg_{session}_{created}"),
                    session,
                    role,
                    content.to_string(),
                    created,
                    meta.to_string()
                ],
            )
            .unwrap();
        self.0
            .execute(
                "UPDATE sessions SET updated_at = datetime('now') WHERE id = ?1",
                [session],
            )
            .unwrap();
    }
}

/// `{userVisible, agentVisible}`.
pub fn visible(user: bool, agent: bool) -> Value {
    json!({"userVisible": user, "agentVisible": agent})
}

/// A `text` content item.
pub fn text(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

/// A `toolRequest` content item calling `name` with `command`.
pub fn tool_request(id: &str, name: &str, command: &str) -> Value {
    json!({"type": "toolRequest", "id": id, "toolCall": {"status": "success",
        "value": {"name": name, "arguments": {"command": command}}}})
}

/// A `toolResponse` content item.
pub fn tool_response(id: &str, output: &str) -> Value {
    json!({"type": "toolResponse", "id": id, "toolResult": {"status": "success",
        "value": [{"type": "text", "text": output}]}})
}

/// A `thinking` content item.
pub fn thinking(thought: &str) -> Value {
    json!({"type": "thinking", "thinking": thought, "signature": "sig"})
}
