//! opencode stores for tests and benchmarks, written in the shapes opencode
//! 1.18.33 writes (checked offline against the real CLI): a database made
//! from its own schema (`tests/fixtures/opencode/schema-1.18.33.sql`), in
//! WAL mode with the rows left in the `-wal` file as a running opencode
//! leaves them, and legacy `storage/` JSON files.

use std::path::{Path, PathBuf};

use rusqlite::{params, Connection};

/// The schema opencode 1.18.33 creates, with its migrations.
pub const SCHEMA: &str = include_str!("../../fixtures/opencode/schema-1.18.33.sql");

/// A database being written, as opencode writes it.
pub struct Db {
    /// The open writer.
    pub conn: Connection,
    /// The database file.
    pub path: PathBuf,
}

impl Db {
    /// A new database at `path` with opencode's schema, in WAL mode, never
    /// checkpointed on close (so the rows stay in `-wal`, as they do while
    /// opencode runs).
    pub fn create(path: &Path) -> Db {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let conn = Connection::open(path).unwrap();
        conn.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
            true,
        )
        .unwrap();
        conn.pragma_update(None, "journal_mode", "wal").unwrap();
        conn.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
        conn.execute_batch(SCHEMA).unwrap();
        conn.execute(
            "INSERT INTO project (id, worktree, time_created, time_updated, sandboxes) \
             VALUES ('global', '/', 1, 1, '[]')",
            [],
        )
        .unwrap();
        Db {
            conn,
            path: path.to_owned(),
        }
    }

    /// A session row (`parent` for a sub-agent's).
    pub fn session(&self, id: &str, parent: Option<&str>, dir: &str, title: &str, created: i64) {
        self.conn
            .execute(
                "INSERT INTO session (id, project_id, parent_id, slug, directory, path, title, \
                 version, time_created, time_updated) \
                 VALUES (?1, 'global', ?2, 'calm-harbor', ?3, ?4, ?5, '1.18.33', ?6, ?6)",
                params![id, parent, dir, dir.trim_start_matches('/'), title, created],
            )
            .unwrap();
    }

    /// A user message with `parts` (each a part's JSON), at `at` ms.
    pub fn user(&self, session: &str, id: &str, at: i64, parts: &[&str]) {
        let data = format!(
            r#"{{"role":"user","time":{{"created":{at}}},"agent":"build","model":{{"providerID":"mock","modelID":"mock-model"}},"summary":{{"diffs":[]}}}}"#
        );
        self.message(session, id, at, &data, parts);
    }

    /// An assistant message answering `parent`, with `parts`.
    pub fn assistant(&self, session: &str, id: &str, parent: &str, at: i64, parts: &[&str]) {
        let data = format!(
            r#"{{"parentID":"{parent}","role":"assistant","mode":"build","agent":"build","path":{{"cwd":"/w","root":"/"}},"cost":0,"tokens":{{"total":10,"input":8,"output":2,"reasoning":0,"cache":{{"write":0,"read":0}}}},"modelID":"mock-model","providerID":"mock","time":{{"created":{at},"completed":{}}},"finish":"stop"}}"#,
            at + 500
        );
        self.message(session, id, at, &data, parts);
    }

    /// A message row with its parts (part ids `<message id>_NNN`, in order).
    pub fn message(&self, session: &str, id: &str, at: i64, data: &str, parts: &[&str]) {
        self.conn
            .execute(
                "INSERT INTO message (id, session_id, time_created, time_updated, data) \
                 VALUES (?1, ?2, ?3, ?3, ?4)",
                params![id, session, at, data],
            )
            .unwrap();
        for (i, part) in parts.iter().enumerate() {
            self.conn
                .execute(
                    "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) \
                     VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
                    params![format!("prt_{id}_{i:03}"), id, session, at + i as i64, part],
                )
                .unwrap();
        }
    }

    /// Set a column of a session row.
    pub fn set(&self, session: &str, column: &str, value: &str) {
        self.conn
            .execute(
                &format!("UPDATE session SET {column} = ?1 WHERE id = ?2"),
                params![value, session],
            )
            .unwrap();
    }
}

/// `{"type":"text","text":…}`.
pub fn text_part(text: &str) -> String {
    serde_json::json!({"type": "text", "text": text}).to_string()
}

/// A text part opencode added itself (`synthetic`).
pub fn synthetic_part(text: &str) -> String {
    serde_json::json!({"type": "text", "synthetic": true, "text": text}).to_string()
}

/// A reasoning part.
pub fn reasoning_part(text: &str) -> String {
    serde_json::json!({"type": "reasoning", "text": text, "time": {"start": 1, "end": 2}})
        .to_string()
}

/// A completed tool call with its input and output.
pub fn tool_part(tool: &str, input: &str, output: &str) -> String {
    serde_json::json!({"type": "tool", "tool": tool, "callID": "call_1",
        "state": {"status": "completed", "input": {"command": input}, "output": output,
                  "title": tool, "metadata": {}, "time": {"start": 1, "end": 2}}})
    .to_string()
}

/// `{"type":"step-start"}`.
pub fn step_start() -> String {
    r#"{"type":"step-start"}"#.to_owned()
}

/// A file attached with `-f` or `@file`: opencode's synthetic read of it,
/// then the `file` part.
pub fn attached_file(path: &str, contents: &str) -> [String; 3] {
    [
        synthetic_part(&format!(
            "Called the Read tool with the following input: {{\"filePath\":\"{path}\"}}"
        )),
        synthetic_part(&format!(
            "<path>{path}</path>\n<type>file</type>\n<content>\n1: {contents}\n</content>"
        )),
        serde_json::json!({"type": "file", "mime": "text/plain", "filename": "notes.txt",
            "url": format!("file://{path}")})
        .to_string(),
    ]
}

/// A legacy `storage/` folder being written (opencode before its database).
pub struct Storage {
    /// The `storage` folder.
    pub root: PathBuf,
}

impl Storage {
    /// `storage` below `data`.
    pub fn new(data: &Path) -> Storage {
        Storage {
            root: data.join("storage"),
        }
    }

    fn write(&self, path: PathBuf, value: serde_json::Value) -> PathBuf {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, serde_json::to_string_pretty(&value).unwrap()).unwrap();
        path
    }

    /// A session file; its path.
    pub fn session(
        &self,
        id: &str,
        parent: Option<&str>,
        dir: &str,
        title: &str,
        created: i64,
    ) -> PathBuf {
        let mut value = serde_json::json!({"id": id, "version": "0.15.8", "projectID": "global",
            "directory": dir, "title": title, "time": {"created": created, "updated": created + 1000}});
        if let Some(parent) = parent {
            value["parentID"] = parent.into();
        }
        self.write(
            self.root.join("session/global").join(format!("{id}.json")),
            value,
        )
    }

    /// A message file with its parts (`data` holding `role` and more; the
    /// ids are added inline as opencode wrote them).
    pub fn message(&self, session: &str, id: &str, at: i64, role: &str, parts: &[&str]) {
        let mut data = serde_json::json!({"id": id, "sessionID": session, "role": role,
            "time": {"created": at}});
        if role == "assistant" {
            data["time"]["completed"] = (at + 500).into();
            data["modelID"] = "mock-model".into();
        }
        self.write(
            self.root
                .join("message")
                .join(session)
                .join(format!("{id}.json")),
            data,
        );
        for (i, part) in parts.iter().enumerate() {
            let mut value: serde_json::Value = serde_json::from_str(part).unwrap();
            let part_id = format!("prt_{id}_{i:03}");
            value["id"] = part_id.clone().into();
            value["messageID"] = id.into();
            value["sessionID"] = session.into();
            self.write(
                self.root
                    .join("part")
                    .join(id)
                    .join(format!("{part_id}.json")),
                value,
            );
        }
    }
}
