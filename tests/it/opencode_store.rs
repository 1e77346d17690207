//! The opencode store against databases in every state a reader meets:
//! rows only in the `-wal`, written while read, locked by another
//! connection, truncated, garbage, half-migrated, of a newer schema; and
//! the rules of opencode 1.18.33's sessions (titles, sub-agents, archived
//! and legacy sessions, forks, compaction, undo) through the binary.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use opencode_fixture::*;
use serde_json::Value;
use session_ref_stores::kinds::{native, opencode};
use session_ref_stores::{Catalog, StoreRoots};

use crate::support;
use crate::support::opencode as opencode_fixture;

const A: &str = "ses_1a2b3c4d5ffeAaaaaaaaaaaaaa";
const B: &str = "ses_1a2b3c4d4ffeBbbbbbbbbbbbbb";

/// A data directory with two sessions in its database.
fn data_dir() -> (tempfile::TempDir, PathBuf, Db) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("opencode");
    let db = Db::create(&data.join("opencode.db"));
    db.session(A, None, "/w/a", "First session", 1_767_600_000_000);
    db.user(A, "msg_a1", 1_767_600_001_000, &[&text_part("hello a")]);
    db.assistant(
        A,
        "msg_a2",
        "msg_a1",
        1_767_600_002_000,
        &[&text_part("reply a")],
    );
    db.session(B, None, "/w/b", "Second session", 1_767_500_000_000);
    db.user(B, "msg_b1", 1_767_500_001_000, &[&text_part("hello b")]);
    (dir, data, db)
}

fn load(root: &Path) -> Catalog {
    Catalog::load(&StoreRoots::new().with(opencode::KIND, root))
}

fn ids(catalog: &Catalog) -> Vec<String> {
    catalog.ordered().map(|r| r.id.clone()).collect()
}

/// `candidates --json` with `args`, by line.
fn candidates(args: &[&str]) -> Vec<Value> {
    let mut all = args.to_vec();
    all.extend(["candidates", "--json", "--limit", "100"]);
    let out = support::run(&all, "");
    assert!(out.status.success(), "{}", support::stderr(&out));
    support::stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn rows_still_in_the_wal_are_read() {
    let (_dir, data, db) = data_dir();
    let wal = std::fs::metadata(data.join("opencode.db-wal"))
        .unwrap()
        .len();
    assert!(wal > 0, "the fixture leaves its rows in the WAL");
    let catalog = load(&data);
    assert_eq!(ids(&catalog), [A, B]);
    // Written after listing, before reading: the read sees it.
    db.assistant(
        B,
        "msg_b2",
        "msg_b1",
        1_767_500_002_000,
        &[&text_part("late reply")],
    );
    let surface = catalog.read_surface(catalog.find(B).unwrap()).unwrap();
    assert_eq!(surface.events.len(), 2);
    assert_eq!(surface.captured_through_seq, 2);
}

#[test]
fn reading_never_writes_the_database_or_its_wal() {
    let (_dir, data, db) = data_dir();
    drop(db);
    let before: Vec<Vec<u8>> = ["opencode.db", "opencode.db-wal"]
        .iter()
        .map(|f| std::fs::read(data.join(f)).unwrap())
        .collect();
    let catalog = load(&data);
    for record in catalog.ordered() {
        catalog.read_surface(record).unwrap();
        catalog.read_title(record).unwrap();
    }
    let after: Vec<Vec<u8>> = ["opencode.db", "opencode.db-wal"]
        .iter()
        .map(|f| std::fs::read(data.join(f)).unwrap())
        .collect();
    assert!(before == after, "the database or its WAL changed");
}

/// Name, size and modification time of every file in `dir`.
fn files_of(dir: &Path) -> Vec<(std::ffi::OsString, u64, std::time::SystemTime)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let m = e.metadata().unwrap();
            (e.file_name(), m.len(), m.modified().unwrap())
        })
        .collect();
    files.sort();
    files
}

/// A WAL-mode database its writer closed (no `-wal`, no `-shm`): listing
/// and reading it leaves the store folder exactly as it was.
#[test]
fn reading_a_closed_wal_database_creates_no_file_in_the_store() {
    let (_dir, data, db) = data_dir();
    let path = db.path.clone();
    drop(db);
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        let mode: String = conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .unwrap();
    }
    for side in ["opencode.db-wal", "opencode.db-shm"] {
        let side = data.join(side);
        if side.exists() {
            std::fs::remove_file(side).unwrap();
        }
    }
    let before = files_of(&data);
    assert_eq!(before.len(), 1, "{before:?}");
    std::thread::sleep(std::time::Duration::from_millis(20));
    let catalog = load(&data);
    assert_eq!(ids(&catalog), [A, B]);
    for record in catalog.ordered() {
        catalog.read_surface(record).unwrap();
        catalog.read_title(record).unwrap();
    }
    assert_eq!(files_of(&data), before, "the store folder changed");
}

/// A database whose newest rows are only in its `-wal` (copied with its
/// `-shm` while the writer held them, as a crashed opencode leaves them)
/// is read fully, and no file is added to the store.
#[test]
fn rows_only_in_the_wal_are_read_without_new_files() {
    let (_dir, data, db) = data_dir();
    let copy = tempfile::tempdir().unwrap();
    for name in ["opencode.db", "opencode.db-wal", "opencode.db-shm"] {
        std::fs::copy(data.join(name), copy.path().join(name)).unwrap();
    }
    drop(db);
    let names = |dir: &Path| -> Vec<std::ffi::OsString> {
        files_of(dir).into_iter().map(|(n, _, _)| n).collect()
    };
    let before = names(copy.path());
    let catalog = load(copy.path());
    assert_eq!(ids(&catalog), [A, B]);
    let surface = catalog.read_surface(catalog.find(A).unwrap()).unwrap();
    assert_eq!(surface.events.len(), 2);
    assert_eq!(names(copy.path()), before, "a file was added to the store");
}

#[test]
fn a_database_written_while_listed_lists_every_committed_session() {
    let (_dir, data, db) = data_dir();
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let stop = Arc::clone(&stop);
        let path = db.path.clone();
        drop(db);
        std::thread::spawn(move || {
            let conn = rusqlite::Connection::open(&path).unwrap();
            conn.busy_timeout(std::time::Duration::from_secs(5))
                .unwrap();
            let mut n: usize = 0;
            while !stop.load(Ordering::Relaxed) && n < 2000 {
                conn.execute(
                    "INSERT INTO session (id, project_id, slug, directory, title, version, \
                     time_created, time_updated) VALUES (?1, 'global', 's', '/w', 't', '1', ?2, ?2)",
                    rusqlite::params![format!("ses_w{n:05}"), 1_700_000_000_000i64 + n as i64],
                )
                .unwrap();
                n += 1;
            }
            n
        })
    };
    let mut seen = 0;
    for _ in 0..20 {
        let catalog = load(&data);
        assert!(catalog.unreadable.is_empty(), "{:?}", catalog.unreadable);
        assert!(catalog.len() >= seen, "a later listing lost sessions");
        seen = catalog.len();
    }
    stop.store(true, Ordering::Relaxed);
    let written = writer.join().unwrap();
    assert_eq!(load(&data).len(), 2 + written);
}

/// The listing of an opencode root and a native store side by side: the
/// opencode root's failure, and the native session still listed.
fn beside_native(root: &Path) -> (Catalog, tempfile::TempDir) {
    let native_dir = tempfile::tempdir().unwrap();
    std::fs::write(
        native_dir.path().join("n.jsonl"),
        concat!(
            r#"{"type":"session","version":1,"id":"native-1","createdAt":"2026-01-01T00:00:00Z","cwd":"/w"}"#,
            "\n"
        ),
    )
    .unwrap();
    let roots = StoreRoots::new()
        .with(opencode::KIND, root)
        .with(native::KIND, native_dir.path());
    (Catalog::load(&roots), native_dir)
}

fn only_reason(catalog: &Catalog, path: &Path) -> String {
    assert_eq!(catalog.unreadable.len(), 1, "{:?}", catalog.unreadable);
    assert_eq!(catalog.unreadable[0].0, path);
    catalog.unreadable[0].1.clone()
}

#[test]
fn a_database_locked_by_an_exclusive_writer_is_one_unreadable_root() {
    let (_dir, data, db) = data_dir();
    drop(db);
    let path = data.join("opencode.db");
    // A writer that keeps the database to itself: exclusive locking mode
    // (no shared-memory index for others) in the middle of a write.
    let writer = rusqlite::Connection::open(&path).unwrap();
    writer
        .pragma_update(None, "locking_mode", "exclusive")
        .unwrap();
    writer
        .execute_batch("BEGIN EXCLUSIVE; UPDATE session SET title = 'x';")
        .unwrap();
    let (catalog, _native) = beside_native(&data);
    assert!(only_reason(&catalog, &path).contains("locked"));
    assert_eq!(ids(&catalog), ["native-1"]);
    writer.execute_batch("ROLLBACK").unwrap();
}

#[test]
fn a_rollback_journal_database_mid_write_is_one_unreadable_root() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("opencode.db");
    let db = Db::create(&path);
    db.conn
        .pragma_update(None, "journal_mode", "delete")
        .unwrap();
    db.session(A, None, "/w/a", "First", 1_767_600_000_000);
    db.conn
        .execute_batch("BEGIN EXCLUSIVE; UPDATE session SET title = 'x';")
        .unwrap();
    let (catalog, _native) = beside_native(&path);
    assert!(only_reason(&catalog, &path).contains("locked"));
    assert_eq!(ids(&catalog), ["native-1"]);
}

#[test]
fn a_truncated_or_garbage_file_is_one_unreadable_root() {
    let (_dir, data, db) = data_dir();
    db.conn
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
    drop(db);
    let whole = std::fs::read(data.join("opencode.db")).unwrap();
    let other = tempfile::tempdir().unwrap();
    let truncated = other.path().join("truncated.db");
    std::fs::write(&truncated, &whole[..whole.len() / 3]).unwrap();
    let garbage = other.path().join("garbage.db");
    std::fs::write(
        &garbage,
        b"this is not a database at all, just text\n".repeat(200),
    )
    .unwrap();
    for (path, expected) in [
        (&truncated, "database"),
        (&garbage, "not an SQLite database"),
    ] {
        let (catalog, _native) = beside_native(path);
        let reason = only_reason(&catalog, path);
        assert!(reason.contains(expected), "{}: {reason}", path.display());
        assert_eq!(ids(&catalog), ["native-1"]);
    }
}

#[test]
fn a_half_migrated_database_is_one_unreadable_root() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("opencode.db");
    let conn = rusqlite::Connection::open(&path).unwrap();
    // The first migrations only: a session table, no message or part yet.
    conn.execute_batch(
        "CREATE TABLE migration (id TEXT PRIMARY KEY, time_completed INTEGER NOT NULL);
         INSERT INTO migration VALUES ('20260127222353_familiar_lady_ursula', 1);
         CREATE TABLE session (id text PRIMARY KEY, parent_id text, directory text NOT NULL,
           title text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL,
           time_archived integer, revert text);",
    )
    .unwrap();
    drop(conn);
    let (catalog, _native) = beside_native(&path);
    let reason = only_reason(&catalog, &path);
    assert!(reason.contains("not fully migrated"), "{reason}");
    assert!(
        reason.contains("table message") && reason.contains("table part"),
        "{reason}"
    );
    assert_eq!(ids(&catalog), ["native-1"]);
}

#[test]
fn a_database_of_an_unknown_schema_is_one_unreadable_root() {
    let dir = tempfile::tempdir().unwrap();
    // A newer opencode that renamed a column this reader needs.
    let newer = dir.path().join("newer.db");
    let db = Db::create(&newer);
    db.conn
        .execute_batch(
            "ALTER TABLE session RENAME COLUMN title TO name;
             INSERT INTO migration VALUES ('20270101000000_rename_title', 2);",
        )
        .unwrap();
    drop(db);
    let (catalog, _native) = beside_native(&newer);
    let reason = only_reason(&catalog, &newer);
    assert!(reason.contains("newer opencode"), "{reason}");
    assert!(reason.contains("20270101000000_rename_title"), "{reason}");
    assert!(reason.contains("column session.title"), "{reason}");
    // Some other program's SQLite database.
    let foreign = dir.path().join("foreign.db");
    rusqlite::Connection::open(&foreign)
        .unwrap()
        .execute_batch("CREATE TABLE t (x);")
        .unwrap();
    let (catalog, _native) = beside_native(&foreign);
    assert!(only_reason(&catalog, &foreign).contains("not a database opencode wrote"));
    // Newer migrations that keep every column read are read.
    let (_dir, data, db) = data_dir();
    db.conn
        .execute_batch(
            "INSERT INTO migration VALUES ('20270101000000_add_a_table', 3);
             CREATE TABLE future (x);",
        )
        .unwrap();
    assert_eq!(ids(&load(&data)), [A, B]);
}

#[test]
fn the_command_line_says_why_a_database_is_unreadable() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("opencode.db");
    std::fs::write(&garbage, b"not a database\n".repeat(300)).unwrap();
    let out = support::run(
        &["--opencode", dir.path().to_str().unwrap(), "candidates"],
        "",
    );
    assert!(out.status.success());
    let stderr = support::stderr(&out);
    assert!(stderr.contains("not an SQLite database"), "{stderr}");
}

#[test]
fn sessions_are_listed_as_opencode_lists_them() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("opencode");
    let db = Db::create(&data.join("opencode.db"));
    let t = 1_767_600_000_000;
    // A generated title; a `run "two words"` prompt keeps its quotes.
    db.session(A, None, "/w/a", "Mock Title \"two words\"", t);
    db.user(A, "msg_a1", t + 1, &[&text_part("\"two words\"")]);
    // Still the placeholder: the first prompt titles it (not the synthetic
    // parts of an attached file, which come first).
    db.session(
        B,
        None,
        "/w/b",
        "New session - 2026-01-05T08:00:00.000Z",
        t - 10,
    );
    let [read, contents, file] = attached_file("/w/b/notes.txt", "FILE-CONTENTS-XYZZY");
    db.user(
        B,
        "msg_b1",
        t - 9,
        &[
            &read,
            &contents,
            &file,
            &text_part("summarise the attached file"),
        ],
    );
    // A fork: a session of its own, its messages copied under new ids.
    let fork = "ses_1a2b3c4d6ffeForkForkFork01";
    db.session(
        fork,
        None,
        "/w/a",
        "Mock Title \"two words\" (fork #1)",
        t + 100,
    );
    db.user(fork, "msg_f1", t + 1, &[&text_part("\"two words\"")]);
    // A sub-agent and an archived session are not listed.
    db.session(
        "ses_sub",
        Some(A),
        "/w/a",
        "look (@general subagent)",
        t + 5,
    );
    db.session("ses_old", None, "/w/a", "Archived", t - 100);
    db.set("ses_old", "time_archived", "1767600000999");
    // A legacy session, and a legacy copy of a database session.
    let storage = Storage::new(&data);
    storage.session("ses_legacy", None, "/w/l", "Legacy title", t - 1000);
    storage.message(
        "ses_legacy",
        "msg_l1",
        t - 999,
        "user",
        &[&text_part("legacy prompt")],
    );
    storage.session(A, None, "/w/a", "Old copy", t);
    storage.session("ses_legacysub", Some("ses_legacy"), "/w/l", "sub", t - 998);
    let root = data.to_str().unwrap();
    let rows = candidates(&["--opencode", root]);
    let got: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["sessionId"].as_str().unwrap(),
                r["label"].as_str().unwrap(),
                r["cwd"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (fork, "Mock Title \"two words\" (fork #1)", "/w/a"),
            (A, "Mock Title \"two words\"", "/w/a"),
            (B, "summarise the attached file", "/w/b"),
            ("ses_legacy", "Legacy title", "/w/l"),
        ]
    );
    assert_eq!(rows[1]["createdAt"], "2026-01-05T08:00:00.000Z");
    assert_eq!(
        rows[1]["path"],
        data.join("opencode.db").join(A).to_str().unwrap()
    );
    // The same through a database file and a storage folder named alone.
    let db_only = candidates(&["--opencode", data.join("opencode.db").to_str().unwrap()]);
    assert_eq!(db_only.len(), 3);
    let storage_only = candidates(&["--opencode", data.join("storage").to_str().unwrap()]);
    assert_eq!(storage_only.len(), 2, "{storage_only:?}");
    // The attached file's contents never reach a snapshot.
    let out = support::run(&["--opencode", root, "preview", B, "--json"], "");
    let context = support::stdout(&out);
    assert!(context.contains("summarise the attached file"), "{context}");
    assert!(!context.contains("FILE-CONTENTS-XYZZY"), "{context}");
}

/// Sub-agent and archived sessions are how opencode keeps sessions, not
/// problems: `-v` counts them in one line each, no `warning:` per row,
/// while a file that really is not a session still gets its warning.
#[test]
fn verbose_counts_sub_agent_sessions_instead_of_warning_for_each() {
    let (_dir, data, db) = data_dir();
    for n in 0..30 {
        db.session(
            &format!("ses_sub{n:02}"),
            Some(A),
            "/w/a",
            "look (@general subagent)",
            1_767_600_000_100 + n,
        );
    }
    db.session("ses_old", None, "/w/a", "Archived", 1_767_600_000_000);
    db.set("ses_old", "time_archived", "1767600000999");
    let native = tempfile::tempdir().unwrap();
    std::fs::write(
        native.path().join("junk.jsonl"),
        "{\"not\": \"a session\"}\n",
    )
    .unwrap();
    let out = support::run(
        &[
            "-v",
            "--opencode",
            data.to_str().unwrap(),
            "--store",
            native.path().to_str().unwrap(),
            "candidates",
        ],
        "",
    );
    assert!(out.status.success(), "{}", support::stderr(&out));
    let stderr = support::stderr(&out);
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("warning:")).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(warnings[0].contains("junk.jsonl"), "{stderr}");
    assert!(
        stderr
            .lines()
            .any(|l| l == "session-ref: skipped 30 opencode sub-agent sessions"),
        "{stderr}"
    );
    assert!(
        stderr
            .lines()
            .any(|l| l == "session-ref: skipped 1 archived opencode session"),
        "{stderr}"
    );
    // Without -v, nothing about them.
    let quiet = support::run(&["--opencode", data.to_str().unwrap(), "candidates"], "");
    assert_eq!(support::stderr(&quiet), "");
}

#[test]
fn last_activity_is_the_sessions_own_update_time() {
    let (_dir, data, db) = data_dir();
    // B was created first but updated last.
    db.set(B, "time_updated", "1767700000000");
    let rows = candidates(&["--opencode", data.to_str().unwrap(), "--no-cache"]);
    assert_eq!(rows[0]["sessionId"], A, "by creation");
    let out = support::run(
        &[
            "--opencode",
            data.to_str().unwrap(),
            "candidates",
            "--sort",
            "updated",
            "--json",
        ],
        "",
    );
    let first: Value = serde_json::from_str(support::stdout(&out).lines().next().unwrap()).unwrap();
    assert_eq!(first["sessionId"], B, "by last activity");
    let catalog = load(&data);
    let record = catalog.find(B).unwrap();
    let store = record.kind.store();
    assert_eq!(
        store.last_activity(catalog.caches(), record),
        Some(1_767_700_000)
    );
}

#[test]
fn a_session_changes_its_stamp_when_a_turn_streams_in() {
    let (_dir, data, db) = data_dir();
    let stamp = |catalog: &Catalog| {
        let record = catalog.find(A).unwrap();
        record.kind.store().stamp(catalog.caches(), record).unwrap()
    };
    let first = stamp(&load(&data));
    assert_eq!(stamp(&load(&data)), first, "unchanged: the same stamp");
    // A new part, the session row untouched (as opencode streams).
    db.conn
        .execute(
            "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) \
             VALUES ('prt_new', 'msg_a2', ?1, 1, 1, ?2)",
            rusqlite::params![A, text_part("more")],
        )
        .unwrap();
    let second = stamp(&load(&data));
    assert_ne!(first, second);
    // The step ends: the assistant message is rewritten.
    db.conn
        .execute(
            "UPDATE message SET time_updated = time_updated + 60000 WHERE id = 'msg_a2'",
            [],
        )
        .unwrap();
    assert_ne!(stamp(&load(&data)), second);
    // Another session's change leaves this one's stamp alone.
    let third = stamp(&load(&data));
    db.user(B, "msg_b9", 1_767_500_009_000, &[&text_part("more b")]);
    assert_eq!(stamp(&load(&data)), third);
}

#[test]
fn opencode_db_names_the_default_database() {
    let (_dir, data, _db) = data_dir();
    let home = tempfile::tempdir().unwrap();
    let db = data.join("opencode.db");
    let out = support::run_env(
        &["candidates", "--json"],
        "",
        &[
            ("HOME", home.path().to_str().unwrap()),
            ("OPENCODE_DB", db.to_str().unwrap()),
        ],
    );
    assert!(out.status.success(), "{}", support::stderr(&out));
    assert_eq!(support::stdout(&out).lines().count(), 2);
    let out = support::run_env(
        &["candidates", "--json"],
        "",
        &[("XDG_DATA_HOME", data.parent().unwrap().to_str().unwrap())],
    );
    assert_eq!(
        support::stdout(&out).lines().count(),
        2,
        "{}",
        support::stderr(&out)
    );
}

#[test]
fn search_finds_opencode_sessions_through_its_index_and_sees_new_parts() {
    let (dir, data, db) = data_dir();
    let cache = dir.path().join("cache");
    let root = data.to_str().unwrap();
    let search = |word: &str, index: bool| -> Vec<String> {
        let mut args = vec!["--opencode", root, "search", word, "--json"];
        if !index {
            args.push("--no-index");
        }
        let out = support::run_env(
            &args,
            "",
            &[("SESSION_REF_CACHE_DIR", cache.to_str().unwrap())],
        );
        assert!(out.status.success(), "{}", support::stderr(&out));
        support::stdout(&out)
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                v["sessionId"].as_str().unwrap().to_owned()
            })
            .collect()
    };
    assert_eq!(search("reply", true), [A]);
    assert!(cache.join("search/manifest.bin").is_file());
    assert_eq!(search("reply", true), [A], "answered from the index");
    // opencode streams a reply into B: its parts change, its row does not.
    db.assistant(
        B,
        "msg_b2",
        "msg_b1",
        1_767_500_002_000,
        &[&text_part("a zephyr reply")],
    );
    assert_eq!(search("zephyr", true), [B]);
    assert_eq!(search("zephyr", false), [B]);
    assert_eq!(search("reply", true), search("reply", false));
}

/// A database opencode 2.0 upgraded: 2.x sessions in `session_v2` with
/// their `session_message` rows, 1.x sessions left in `session` with
/// `message`/`part`, and a 1.x session 2.0 imported (in both, under the
/// same id, its 1.x messages copied into `session_message` and then
/// continued in 2.x): listed once, from its 2.x copy.
#[test]
fn opencode_2_sessions_are_listed_once_beside_the_1x_history() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("opencode");
    let db = Db::create_2_0(&data.join("opencode.db"));
    let t = 1_788_972_143_734;
    let titled = "ses_f78f36bd6ffeTXo4UWv9dIETyI";
    db.session_v2(titled, None, "/w/a", Some("Beta parser check"), t);
    db.v2_message(
        titled,
        4,
        "msg_t1",
        "user",
        t + 1,
        v2_user(t + 1, "\"reply exactly\""),
    );
    db.v2_message(
        titled,
        5,
        "msg_t2",
        "agent-switched",
        t + 2,
        serde_json::json!({"agent": "plan", "time": {"created": t + 2}}),
    );
    db.v2_message(
        titled,
        6,
        "msg_t3",
        "assistant",
        t + 3,
        v2_assistant(
            t + 3,
            &[
                v2_reasoning("REASONING-XYZZY"),
                v2_tool("bash", "TOOL-INPUT-XYZZY", "TOOL-OUTPUT-XYZZY"),
                v2_text("beta parser check"),
            ],
        ),
    );
    db.v2_message(titled, 7, "msg_t4", "synthetic", t + 4, serde_json::json!({"sessionID": titled, "text": "INJECTED-XYZZY", "time": {"created": t + 4}}));
    // Untitled yet (NULL, or empty as some 2.0 betas leave it): the first prompt.
    let untitled = "ses_f78f34fafffeIugr4PB2oXkVD0";
    db.session_v2(untitled, None, "/w/b", None, t + 10);
    db.v2_message(
        untitled,
        4,
        "msg_u1",
        "user",
        t + 11,
        v2_user(t + 11, "Read input.txt\nthen answer"),
    );
    let empty = "ses_f78f34fafffeEmptyTitle0001";
    db.session_v2(empty, None, "/w/b", Some(""), t + 12);
    db.v2_message(
        empty,
        1,
        "msg_e1",
        "user",
        t + 13,
        v2_user(t + 13, "an empty title"),
    );
    // A sub-agent and an archived session are not listed.
    db.session_v2(
        "ses_v2sub",
        Some(titled),
        "/w/a",
        Some("look (@general subagent)"),
        t + 20,
    );
    db.session_v2("ses_v2old", None, "/w/a", Some("Archived"), t - 5);
    db.conn
        .execute(
            "UPDATE session_v2 SET time_archived = ?1 WHERE id = 'ses_v2old'",
            [t],
        )
        .unwrap();
    // 1.x history 2.0 left where it was.
    let old = "ses_1a2b3c4d5ffeOnlyInOneX01";
    db.session(old, None, "/w/old", "Left in 1.x", 1_767_600_000_000);
    db.user(
        old,
        "msg_o1",
        1_767_600_001_000,
        &[&text_part("an old prompt")],
    );
    // Imported: the 1.x row and messages, the 2.x row and its copy of them
    // (ids `evt_legacy_backfill_m_…`), then a turn in 2.x.
    let both = "ses_1a2b3c4d6ffeImportedBoth1";
    db.session(both, None, "/w/both", "1.x title", 1_767_700_000_000);
    db.user(
        both,
        "msg_i1",
        1_767_700_001_000,
        &[&text_part("imported prompt")],
    );
    db.session_v2(both, None, "/w/both", Some("2.x title"), 1_767_700_000_000);
    db.v2_message(
        both,
        1,
        "evt_legacy_backfill_m_0",
        "user",
        1_767_700_001_000,
        v2_user(1_767_700_001_000, "imported prompt"),
    );
    db.v2_message(
        both,
        2,
        "msg_i2",
        "user",
        t + 30,
        v2_user(t + 30, "continued in two"),
    );
    db.v2_message(
        both,
        3,
        "msg_i3",
        "assistant",
        t + 31,
        v2_assistant(t + 31, &[v2_text("continued reply")]),
    );

    let root = data.to_str().unwrap();
    let rows = candidates(&["--opencode", root]);
    let got: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["sessionId"].as_str().unwrap(),
                r["label"].as_str().unwrap(),
                r["cwd"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (empty, "an empty title", "/w/b"),
            (untitled, "Read input.txt", "/w/b"),
            (titled, "Beta parser check", "/w/a"),
            (both, "2.x title", "/w/both"),
            (old, "Left in 1.x", "/w/old"),
        ]
    );
    let preview = |id: &str| {
        let out = support::run(&["--opencode", root, "preview", id, "--json"], "");
        assert!(out.status.success(), "{}", support::stderr(&out));
        support::stdout(&out)
    };
    let context = preview(titled);
    assert!(
        context.contains("reply exactly") && context.contains("beta parser check"),
        "{context}"
    );
    for hidden in [
        "REASONING-XYZZY",
        "TOOL-INPUT-XYZZY",
        "TOOL-OUTPUT-XYZZY",
        "INJECTED-XYZZY",
    ] {
        assert!(!context.contains(hidden), "{hidden} in {context}");
    }
    let context = preview(both);
    assert!(
        context.contains("continued in two") && context.contains("continued reply"),
        "{context}"
    );
    assert!(preview(old).contains("an old prompt"));
    // Search sees 2.x messages, and a new row changes the session's stamp.
    let catalog = load(&data);
    let stamp = |catalog: &Catalog| {
        let record = catalog.find(titled).unwrap();
        record.kind.store().stamp(catalog.caches(), record).unwrap()
    };
    let first = stamp(&catalog);
    db.v2_message(
        titled,
        8,
        "msg_t5",
        "user",
        t + 40,
        v2_user(t + 40, "a zephyr question"),
    );
    assert_ne!(stamp(&load(&data)), first);
    let out = support::run(
        &[
            "--opencode",
            root,
            "search",
            "zephyr",
            "--json",
            "--no-index",
        ],
        "",
    );
    assert!(
        support::stdout(&out).contains(titled),
        "{}",
        support::stderr(&out)
    );
}

/// Later 2.x keeps its sessions in `session` and their messages in
/// `session_message` (1.18.33 already has both tables, the second empty):
/// a session with `session_message` rows is read from them, one without
/// from `message`/`part`.
#[test]
fn a_later_2x_database_reads_session_message_and_falls_back_to_parts() {
    let (_dir, data, db) = data_dir();
    let two = "ses_1a2b3c4d7ffeLaterTwoShape1";
    db.session(
        two,
        None,
        "/w/two",
        "New session - 2026-12-01T18:54:15.204Z",
        1_767_800_000_000,
    );
    db.v2_message(
        two,
        1,
        "msg_2a",
        "user",
        1_767_800_001_000,
        v2_user(1_767_800_001_000, "typed in two"),
    );
    db.v2_message(
        two,
        2,
        "msg_2b",
        "compaction",
        1_767_800_002_000,
        serde_json::json!({"reason": "auto", "summary": "the summary", "time": {"created": 1_767_800_002_000_i64}}),
    );
    db.v2_message(
        two,
        3,
        "msg_2c",
        "assistant",
        1_767_800_003_000,
        v2_assistant(1_767_800_003_000, &[v2_text("after the summary")]),
    );
    let root = data.to_str().unwrap();
    let rows = candidates(&["--opencode", root]);
    let labels: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["sessionId"].as_str().unwrap(),
                r["label"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        labels,
        [
            (two, "typed in two"),
            (A, "First session"),
            (B, "Second session")
        ]
    );
    let out = support::run(&["--opencode", root, "preview", two, "--json"], "");
    let context = support::stdout(&out);
    assert!(
        context.contains("the summary") && context.contains("after the summary"),
        "{context}"
    );
    let out = support::run(&["--opencode", root, "preview", A, "--json"], "");
    assert!(support::stdout(&out).contains("reply a"));
}

/// A 2.0 database missing what this reader needs says so against 2.0's
/// tables.
#[test]
fn a_2_0_database_without_session_message_is_one_unreadable_root() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("opencode.db");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE session_v2 (id text PRIMARY KEY, parent_id text, directory text NOT NULL,
           title text, time_created integer NOT NULL, time_updated integer NOT NULL,
           time_archived integer, revert text);",
    )
    .unwrap();
    drop(conn);
    let (catalog, _native) = beside_native(&path);
    let reason = only_reason(&catalog, &path);
    assert!(reason.contains("table session_message"), "{reason}");
    assert_eq!(ids(&catalog), ["native-1"]);
}
