//! The Goose store against databases in the states a reader meets: closed
//! cleanly (nothing may appear beside it), rows only in the `-wal`, locked
//! by an exclusive writer, garbage, of an older schema (before `name`) or
//! a newer one; and the sessions Goose hides, counted under `-v`.

use std::path::{Path, PathBuf};

use serde_json::json;
use session_ref_stores::kinds::goose;
use session_ref_stores::{Catalog, StoreRoots};

use crate::support;
use crate::support::goose::{text, visible, Db};

const A: &str = "20261201_1";
const B: &str = "20261201_2";

/// A data directory whose database holds two sessions.
fn data_dir() -> (tempfile::TempDir, PathBuf, Db) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("goose");
    let db = Db::create(&data.join("sessions/sessions.db"));
    for (id, dir, prompt) in [(A, "/w/a", "hello a"), (B, "/w/b", "hello b")] {
        db.session(id, "CLI Session", "user", dir, "2026-12-01 08:00:00");
        db.message(
            id,
            "user",
            1_796_112_000,
            json!([text(prompt)]),
            visible(true, true),
        );
    }
    (dir, data, db)
}

fn load(root: &Path) -> Catalog {
    Catalog::load(&StoreRoots::new().with(goose::KIND, root))
}

fn ids(catalog: &Catalog) -> Vec<String> {
    let mut ids: Vec<String> = catalog.ordered().map(|r| r.id.clone()).collect();
    ids.sort();
    ids
}

/// Every file of `dir` with its length and modification time.
fn files_of(dir: &Path) -> Vec<(std::ffi::OsString, u64, std::time::SystemTime)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            let meta = e.metadata().unwrap();
            (e.file_name(), meta.len(), meta.modified().unwrap())
        })
        .collect();
    files.sort();
    files
}

#[test]
fn reading_a_closed_database_creates_no_file_beside_it() {
    let (_dir, data, db) = data_dir();
    drop(db);
    let sessions = data.join("sessions");
    let before = files_of(&sessions);
    assert_eq!(before.len(), 1, "{before:?}");
    let catalog = load(&data);
    assert_eq!(ids(&catalog), [A, B]);
    for record in catalog.ordered() {
        catalog.read_surface(record).unwrap();
        assert!(catalog.read_title(record).unwrap().is_some());
    }
    assert_eq!(files_of(&sessions), before, "the store folder changed");
}

#[test]
fn rows_only_in_the_wal_are_read_and_the_database_is_not_written() {
    let (_dir, data, db) = data_dir();
    db.0.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    db.session("20261201_3", "Fresh", "user", "/w/c", "2026-12-01 09:00:00");
    db.message(
        "20261201_3",
        "user",
        1_796_115_600,
        json!([text("fresh")]),
        visible(true, true),
    );
    let main = data.join("sessions/sessions.db");
    let before = std::fs::read(&main).unwrap();
    let catalog = load(&data);
    assert_eq!(ids(&catalog), [A, B, "20261201_3"]);
    let record = catalog.find("20261201_3").unwrap();
    assert_eq!(
        catalog.read_title(record).unwrap().as_deref(),
        Some("Fresh")
    );
    assert_eq!(std::fs::read(&main).unwrap(), before);
    drop(db);
}

#[test]
fn a_locked_or_garbage_database_is_one_unreadable_root() {
    // A database in rollback-journal mode in the middle of a write: its
    // writer changes the main file in place, so it cannot be read now.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions.db");
    let db = Db::create(&path);
    db.0.pragma_update(None, "journal_mode", "delete").unwrap();
    db.session(A, "First", "user", "/w/a", "2026-12-01 08:00:00");
    db.message(A, "user", 1, json!([text("hello")]), visible(true, true));
    db.0.execute_batch("BEGIN EXCLUSIVE; UPDATE sessions SET name = 'x';")
        .unwrap();
    let catalog = load(&path);
    assert_eq!(catalog.unreadable.len(), 1, "{:?}", catalog.unreadable);
    assert_eq!(catalog.unreadable[0].0, path);
    assert!(
        catalog.unreadable[0].1.contains("Goose database is locked"),
        "{:?}",
        catalog.unreadable
    );
    db.0.execute_batch("ROLLBACK").unwrap();
    let other = tempfile::tempdir().unwrap();
    let garbage = other.path().join("sessions.db");
    std::fs::write(&garbage, b"not a database at all\n".repeat(300)).unwrap();
    let catalog = load(&garbage);
    assert_eq!(catalog.unreadable.len(), 1);
    assert!(catalog.unreadable[0].1.contains("not an SQLite database"));
    let out = support::run(&["--goose", garbage.to_str().unwrap(), "candidates"], "");
    let warnings: Vec<String> = support::stderr(&out)
        .lines()
        .filter(|l| l.contains("warning:"))
        .map(str::to_owned)
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
}

#[test]
fn an_older_schema_names_sessions_by_description_and_a_newer_one_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions.db");
    // Schema version 3: no `name`, `user_set_name` or `session_type` yet.
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
         INSERT INTO schema_version (version) VALUES (3);
         CREATE TABLE sessions (id TEXT PRIMARY KEY, description TEXT NOT NULL DEFAULT '',
           working_dir TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
           updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, extension_data TEXT DEFAULT '{}');
         CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL,
           role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
           timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER, metadata_json TEXT);
         INSERT INTO sessions (id, description, working_dir) VALUES ('old_1', 'Old description', '/w/o');
         INSERT INTO messages (session_id, role, content_json, created_timestamp)
           VALUES ('old_1', 'user', '[{\"type\":\"text\",\"text\":\"hi\"}]', 1);",
    )
    .unwrap();
    drop(conn);
    let catalog = load(&path);
    let record = catalog.find("old_1").unwrap();
    assert_eq!(record.cwd.as_deref(), Some("/w/o"));
    assert_eq!(
        catalog.read_title(record).unwrap().as_deref(),
        Some("Old description")
    );
    let newer = dir.path().join("newer.db");
    let conn = rusqlite::Connection::open(&newer).unwrap();
    conn.execute_batch(
        "CREATE TABLE schema_version (version INTEGER PRIMARY KEY);
         INSERT INTO schema_version VALUES (12);
         CREATE TABLE sessions (id TEXT PRIMARY KEY, title TEXT);",
    )
    .unwrap();
    drop(conn);
    let catalog = load(&newer);
    assert_eq!(catalog.unreadable.len(), 1);
    assert!(
        catalog.unreadable[0]
            .1
            .contains("newer Goose (schema version 12"),
        "{:?}",
        catalog.unreadable
    );
}

#[test]
fn verbose_counts_the_sessions_goose_hides() {
    let (_dir, data, db) = data_dir();
    for n in 0..3 {
        let id = format!("20261201_{}", 10 + n);
        db.session(&id, "sub", "specialist", "/w/a", "2026-12-01 08:01:00");
        db.message(
            &id,
            "user",
            1,
            json!([text("SUBAGENT")]),
            visible(true, true),
        );
    }
    db.session("20261201_20", "", "hidden", "/w/a", "2026-12-01 08:02:00");
    db.message(
        "20261201_20",
        "user",
        1,
        json!([text("x")]),
        visible(true, true),
    );
    // A session without messages is not one Goose lists either.
    db.session(
        "20261201_30",
        "Empty",
        "user",
        "/w/a",
        "2026-12-01 08:03:00",
    );
    std::fs::write(
        data.join("sessions").join(format!("{A}.jsonl")),
        json!({"working_dir": "/w/a", "description": "copy"}).to_string() + "\n",
    )
    .unwrap();
    let root = data.to_str().unwrap();
    let out = support::run(&["-v", "--goose", root, "candidates"], "");
    assert!(out.status.success(), "{}", support::stderr(&out));
    let stderr = support::stderr(&out);
    assert!(!stderr.contains("warning:"), "{stderr}");
    for line in [
        "session-ref: skipped 3 Goose sub-agent sessions",
        "session-ref: skipped 1 Goose internal session",
        "session-ref: skipped 1 legacy Goose file of a session in its database",
    ] {
        assert!(stderr.lines().any(|l| l == line), "{line}: {stderr}");
    }
    // A header and the two sessions.
    assert_eq!(
        support::stdout(&out).lines().count(),
        3,
        "{}",
        support::stdout(&out)
    );
    drop(db);
}

#[test]
fn an_untitled_session_is_titled_by_its_first_prompt_however_late_it_comes() {
    let (_dir, data, db) = data_dir();
    // Twelve messages Goose shows nobody before the first typed prompt:
    // past the head read first, so the whole conversation is read.
    const LATE: &str = "20261201_3";
    db.session(LATE, "CLI Session", "user", "/w/c", "2026-12-01 09:00:00");
    for n in 0..12 {
        db.message(
            LATE,
            "user",
            1_796_112_100 + n,
            json!([text("hidden preamble")]),
            visible(false, true),
        );
    }
    db.message(
        LATE,
        "user",
        1_796_112_200,
        json!([text("the late prompt")]),
        visible(true, true),
    );
    let catalog = load(&data);
    let title = |id: &str| catalog.read_title(catalog.find(id).unwrap()).unwrap();
    assert_eq!(title(A).as_deref(), Some("hello a"));
    assert_eq!(title(LATE).as_deref(), Some("the late prompt"));
}

#[test]
fn an_untitled_session_s_title_is_kept_by_its_update_time() {
    // A warm listing answers an untitled session's first-prompt title from
    // the title index while the row's `updated_at` is unchanged (Goose sets
    // it with every message): the messages, the costly part of listing it,
    // are not read again. A new `updated_at` reads them again.
    let (dir, data, db) = data_dir();
    let old = "UPDATE sessions SET updated_at = '2026-12-01 08:05:00'";
    db.0.execute(old, []).unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let list = |extra: &[&str]| {
        let mut command = support::command(&home);
        command.args(["--goose", data.to_str().unwrap(), "candidates", "--json"]);
        command.args(extra);
        let out = support::feed(&mut command, "");
        assert!(out.status.success(), "{}", support::stderr(&out));
        let stdout = support::stdout(&out);
        let rows: Vec<serde_json::Value> = stdout
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        let title_of = |id: &str| {
            let row = rows.iter().find(|r| r["sessionId"] == id).unwrap();
            row["label"].as_str().unwrap().to_owned()
        };
        (title_of(A), title_of(B))
    };
    let first = ("hello a".to_owned(), "hello b".to_owned());
    assert_eq!(list(&[]), first);
    let edit = "UPDATE messages SET content_json = ?1 WHERE session_id = ?2";
    let edited = json!([text("edited a")]).to_string();
    db.0.execute(edit, rusqlite::params![edited, A]).unwrap();
    assert_eq!(list(&[]), first, "the unchanged row was read again");
    assert_eq!(list(&["--no-cache"]).0, "edited a");
    let touched = "UPDATE sessions SET updated_at = '2026-12-01 09:00:00' WHERE id = ?1";
    db.0.execute(touched, [A]).unwrap();
    assert_eq!(list(&[]), ("edited a".to_owned(), "hello b".to_owned()));
}
