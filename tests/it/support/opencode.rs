//! opencode stores for tests and benchmarks, written in the shapes opencode
//! 1.18.33 writes (checked offline against the real CLI): a database made
//! from its own schema (`tests/fixtures/opencode/schema-1.18.33.sql`), in
//! WAL mode with the rows left in the `-wal` file as a running opencode
//! leaves them, and legacy `storage/` JSON files; and the tables opencode
//! 2.0 adds to the same database ([`UPGRADE_2_0`]: `session_v2` and
//! `session_message`, as an upgraded 2.0.25 database's `sqlite_master`
//! holds them), with messages in the JSON shape of opencode's
//! `packages/core/src/session-message.ts`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use rusqlite::{params, Connection};

/// The schema opencode 1.18.33 creates, with its migrations.
pub const SCHEMA: &str = include_str!("../../fixtures/opencode/schema-1.18.33.sql");

/// The tables Kilo Code CLI 7.7.7 keeps in `kilo.db` (opencode's lineage,
/// Kilo's columns; the file's header says where they come from).
pub const KILO_SCHEMA: &str = include_str!("../../fixtures/kilo/schema-7.7.7.sql");

/// What opencode 2.0 adds to a 1.18.33 database when it upgrades it: its
/// own session table `session_v2`, and `session_message` rebuilt to refer
/// to it (1.18.33's empty projection of the same name referred to
/// `session`). The 1.x tables stay, with the history they hold.
pub const UPGRADE_2_0: &str = "
DROP TABLE `session_message`;
CREATE TABLE `session_v2` (
          `id` text PRIMARY KEY,
          `project_id` text NOT NULL,
          `workspace_id` text,
          `parent_id` text,
          `fork_session_id` text,
          `fork_boundary` text,
          `slug` text NOT NULL,
          `directory` text NOT NULL,
          `path` text,
          `title` text,
          `version` text NOT NULL,
          `share_url` text,
          `summary_additions` integer,
          `summary_deletions` integer,
          `summary_files` integer,
          `summary_diffs` text,
          `metadata` text,
          `cost` real DEFAULT 0 NOT NULL,
          `tokens_input` integer DEFAULT 0 NOT NULL,
          `tokens_output` integer DEFAULT 0 NOT NULL,
          `tokens_reasoning` integer DEFAULT 0 NOT NULL,
          `tokens_cache_read` integer DEFAULT 0 NOT NULL,
          `tokens_cache_write` integer DEFAULT 0 NOT NULL,
          `revert` text,
          `permission` text,
          `agent` text,
          `model` text,
          `time_created` integer NOT NULL,
          `time_updated` integer NOT NULL,
          `time_idle` integer,
          `time_viewed` integer,
          `idle_outcome` text,
          `time_compacting` integer,
          `time_archived` integer,
          `time_suspended` integer,
          `resume_attempts` integer DEFAULT 0 NOT NULL,
          CONSTRAINT `fk_session_v2_project_id_project_id_fk` FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE
        );
CREATE INDEX `session_v2_project_idx` ON `session_v2` (`project_id`);
CREATE INDEX `session_v2_workspace_idx` ON `session_v2` (`workspace_id`);
CREATE INDEX `session_v2_parent_idx` ON `session_v2` (`parent_id`);
CREATE INDEX `session_v2_time_suspended_idx` ON `session_v2` (`time_suspended`) WHERE \"session_v2\".\"time_suspended\" is not null;
CREATE TABLE `session_message` (
          `id` text PRIMARY KEY,
          `session_id` text NOT NULL,
          `type` text NOT NULL,
          `seq` integer NOT NULL,
          `time_created` integer NOT NULL,
          `time_updated` integer NOT NULL,
          `data` text NOT NULL,
          CONSTRAINT `fk_session_message_session_id_session_v2_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session_v2`(`id`) ON DELETE CASCADE
        );
CREATE UNIQUE INDEX `session_message_session_seq_idx` ON `session_message` (`session_id`,`seq`);
CREATE INDEX `session_message_session_type_seq_idx` ON `session_message` (`session_id`,`type`,`seq`);
CREATE INDEX `session_message_session_time_created_id_idx` ON `session_message` (`session_id`,`time_created`,`id`);
CREATE INDEX `session_message_time_created_idx` ON `session_message` (`time_created`);
";

/// A database being written, as opencode writes it.
pub struct Db {
    /// The open writer.
    pub conn: Connection,
    /// The database file.
    pub path: PathBuf,
    /// The version the writer records in `session.version`.
    pub version: &'static str,
}

impl Db {
    /// A new database at `path` with opencode's schema, in WAL mode, never
    /// checkpointed on close (so the rows stay in `-wal`, as they do while
    /// opencode runs).
    pub fn create(path: &Path) -> Db {
        Db::create_with(path, SCHEMA, "1.18.33")
    }

    /// A new Kilo Code CLI 7.7.7 database ([`KILO_SCHEMA`]), written as
    /// [`Db::create`] writes opencode's.
    pub fn create_kilo(path: &Path) -> Db {
        Db::create_with(path, KILO_SCHEMA, "7.7.7")
    }

    /// A new database of `schema` whose sessions record `version`.
    pub fn create_with(path: &Path, schema: &str, version: &'static str) -> Db {
        let conn = wal_writer(path, schema);
        conn.execute(
            "INSERT INTO project (id, worktree, time_created, time_updated, sandboxes) \
             VALUES ('global', '/', 1, 1, '[]')",
            [],
        )
        .unwrap();
        Db {
            conn,
            path: path.to_owned(),
            version,
        }
    }

    /// A 1.18.33 database upgraded by opencode 2.0 ([`UPGRADE_2_0`]).
    pub fn create_2_0(path: &Path) -> Db {
        let db = Db::create(path);
        db.conn.execute_batch(UPGRADE_2_0).unwrap();
        db
    }

    /// A 2.0 `session_v2` row (`title` `None` until 2.x generates one).
    pub fn session_v2(
        &self,
        id: &str,
        parent: Option<&str>,
        dir: &str,
        title: Option<&str>,
        created: i64,
    ) {
        self.conn
            .execute(
                "INSERT INTO session_v2 (id, project_id, parent_id, slug, directory, path, title, \
                 version, model, time_created, time_updated) \
                 VALUES (?1, 'global', ?2, 'hidden-panda', ?3, '', ?4, '2.0.25', \
                 '{\"id\":\"mock-model\",\"providerID\":\"mock\"}', ?5, ?5)",
                params![id, parent, dir, title, created],
            )
            .unwrap();
    }

    /// A 2.x `session_message` row: its `type` column and `data` (the
    /// message without its `type` and `id`, which are columns).
    pub fn v2_message(
        &self,
        session: &str,
        seq: i64,
        id: &str,
        kind: &str,
        at: i64,
        data: serde_json::Value,
    ) {
        self.conn
            .execute(
                "INSERT INTO session_message (id, session_id, type, seq, time_created, \
                 time_updated, data) VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6)",
                params![id, session, kind, seq, at, data.to_string()],
            )
            .unwrap();
    }

    /// A session row (`parent` for a sub-agent's).
    pub fn session(&self, id: &str, parent: Option<&str>, dir: &str, title: &str, created: i64) {
        self.conn
            .execute(
                "INSERT INTO session (id, project_id, parent_id, slug, directory, path, title, \
                 version, time_created, time_updated) \
                 VALUES (?1, 'global', ?2, 'calm-harbor', ?3, ?4, ?5, ?7, ?6, ?6)",
                params![
                    id,
                    parent,
                    dir,
                    dir.trim_start_matches('/'),
                    title,
                    created,
                    self.version
                ],
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

/// A new database at `path` made by `schema`, in WAL mode and never
/// checkpointed (its rows stay in `-wal`, as while the agent runs): how a
/// running opencode, Kilo or Crush leaves its database.
pub fn wal_writer(path: &Path, schema: &str) -> Connection {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let conn = Connection::open(path).unwrap();
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
        true,
    )
    .unwrap();
    conn.pragma_update(None, "journal_mode", "wal").unwrap();
    conn.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    conn.execute_batch(schema).unwrap();
    conn
}

/// A 2.x `user` message's `data`: what was typed, attached files apart.
pub fn v2_user(at: i64, text: &str) -> serde_json::Value {
    serde_json::json!({"time": {"created": at}, "text": text, "files": [], "agents": [],
        "references": []})
}

/// A 2.x `assistant` message's `data` with `content` items (`text`,
/// `reasoning`, `tool`).
pub fn v2_assistant(at: i64, content: &[serde_json::Value]) -> serde_json::Value {
    serde_json::json!({"time": {"created": at, "completed": at + 500}, "agent": "build",
        "model": {"id": "mock-model", "providerID": "mock"}, "content": content,
        "finish": "stop", "cost": 0,
        "tokens": {"input": 8, "output": 2, "reasoning": 0, "cache": {"read": 0, "write": 0}}})
}

/// A 2.x assistant `text` item.
pub fn v2_text(text: &str) -> serde_json::Value {
    serde_json::json!({"type": "text", "text": text})
}

/// A 2.x assistant `reasoning` item.
pub fn v2_reasoning(text: &str) -> serde_json::Value {
    serde_json::json!({"type": "reasoning", "id": "rsn_1", "text": text})
}

/// A 2.x assistant `tool` item, completed, with its input and output.
pub fn v2_tool(name: &str, input: &str, output: &str) -> serde_json::Value {
    serde_json::json!({"type": "tool", "id": "call_1", "name": name,
        "state": {"status": "completed", "input": {"command": input},
                  "content": [{"type": "text", "text": output}], "structured": {}},
        "time": {"created": 1, "ran": 1, "completed": 2}})
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
