//! Kilo Code CLI, Factory Droid and Crush through the binary, beyond the
//! store suite: the databases are never written and a locked or corrupt one
//! is one warning; sub-agent and title sessions are routine skips under
//! `-v`; each kind's default discovery; and `search` matching what the
//! person typed, never the context the agent injected.

use std::path::Path;

use serde_json::Value;
use session_ref_stores::kinds::{crush, kilo, native};
use session_ref_stores::{Catalog, StoreRoots};

use crate::support;
use crate::support::crush as crush_fixture;
use crate::support::opencode as opencode_fixture;

const K: &str = "ses_dcad61860ffe1YWEviGMEkVBE7";
const C: &str = "8d1c2b3a-4e5f-4a6b-9c7d-1e2f3a4b5c6d";

/// A Kilo data directory: one session and, when `children`, that many
/// sub-agent sessions and one archived session.
fn kilo_data(dir: &Path, children: usize) -> (std::path::PathBuf, opencode_fixture::Db) {
    use opencode_fixture::*;
    let data = dir.join("kilo");
    let db = Db::create_kilo(&data.join("kilo.db"));
    db.session(
        K,
        None,
        "/w/k",
        "New session - 2026-12-02T05:11:08.447Z",
        1_796_188_268_447,
    );
    db.user(
        K,
        "msg_k1",
        1_796_188_269_000,
        &[&text_part("zephyr cache plan")],
    );
    db.user(
        K,
        "msg_k2",
        1_796_188_269_500,
        &[
            &synthetic_part("<system-reminder>The active agent has changed from compaction to code</system-reminder>"),
            &synthetic_part("quokka replayed prompt"),
        ],
    );
    for n in 0..children {
        db.session(
            &format!("ses_sub{n:02}"),
            Some(K),
            "/w/k",
            "look (@general subagent)",
            1_796_188_268_500 + n as i64,
        );
    }
    if children > 0 {
        db.session("ses_old", None, "/w/k", "Archived", 1_796_188_268_000);
        db.set("ses_old", "time_archived", "1796188268999");
    }
    (data, db)
}

/// A Crush data directory with one project (`/w/c`), its session and,
/// when `children`, that many sub-agent sessions and its title session.
fn crush_data(dir: &Path, children: usize) -> (std::path::PathBuf, crush_fixture::Db) {
    use crush_fixture::*;
    let global = dir.join("crush");
    let data = dir.join("project/.crush");
    let db = Db::create(&data);
    register(&global, &[(Path::new("/w/c"), &data)]);
    db.session(C, None, "Untitled Session", 1_796_188_300);
    db.message(
        C,
        "m1",
        "user",
        &[
            text_part("zephyr cache plan"),
            attachment("a.txt", "quokka attached"),
        ],
        1_796_188_301,
    );
    db.message(
        C,
        "m2",
        "assistant",
        &[text_part("done"), finish("end_turn")],
        1_796_188_302,
    );
    for n in 0..children {
        db.session(
            &format!("call_{n:02}"),
            Some(C),
            "look around",
            1_796_188_301,
        );
    }
    if children > 0 {
        db.session(
            &format!("title-{C}"),
            Some(C),
            "Generate a title",
            1_796_188_301,
        );
    }
    (global, db)
}

fn run_ok(args: &[&str], env: &[(&str, &str)]) -> (String, String) {
    let out = support::run_env(args, "", env);
    assert!(out.status.success(), "{args:?}: {}", support::stderr(&out));
    (support::stdout(&out), support::stderr(&out))
}

fn ids(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["sessionId"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// Every file below `dir` with its bytes, but a database's `-shm` (its
/// WAL index in shared memory, where every reader of a WAL database marks
/// what it reads: not the store's data).
fn snapshot(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut all = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if !p.to_string_lossy().ends_with("-shm") {
                all.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    all.sort();
    all
}

#[test]
fn listing_reading_and_searching_never_write_a_kilo_or_crush_store() {
    let dir = tempfile::tempdir().unwrap();
    let (kilo_root, kdb) = kilo_data(dir.path(), 0);
    let (crush_root, cdb) = crush_data(dir.path(), 0);
    let project = dir.path().join("project");
    drop((kdb, cdb));
    let cache = tempfile::tempdir().unwrap();
    let env = [("SESSION_REF_CACHE_DIR", cache.path().to_str().unwrap())];
    for (flag, root, store, id) in [
        ("--kilo", &kilo_root, &kilo_root, K),
        ("--crush", &crush_root, &project, C),
    ] {
        let before = snapshot(store);
        let root = root.to_str().unwrap();
        run_ok(&[flag, root, "candidates", "--json"], &env);
        run_ok(&[flag, root, "preview", id], &env);
        run_ok(&[flag, root, "search", "zephyr", "--json"], &env);
        assert!(before == snapshot(store), "{flag}: the store changed");
    }
    // Closed cleanly (no -wal frames): nothing is created beside them.
    for db in [kilo_root.join("kilo.db"), project.join(".crush/crush.db")] {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .unwrap();
        drop(conn);
        for side in ["-wal", "-shm"] {
            let mut name = db.as_os_str().to_owned();
            name.push(side);
            let _ = std::fs::remove_file(std::path::PathBuf::from(name));
        }
    }
    for (flag, root, store) in [
        ("--kilo", &kilo_root, &kilo_root),
        ("--crush", &crush_root, &project),
    ] {
        let before = snapshot(store);
        let (out, _) = run_ok(
            &[flag, root.to_str().unwrap(), "candidates", "--json"],
            &env,
        );
        assert_eq!(ids(&out).len(), 1, "{flag}");
        assert!(
            before == snapshot(store),
            "{flag}: a file appeared in the store"
        );
    }
}

/// The listing of `kind`'s root beside a native store.
fn beside_native(kind: session_ref_stores::StoreKind, root: &Path) -> (Catalog, tempfile::TempDir) {
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
        .with(kind, root)
        .with(native::KIND, native_dir.path());
    (Catalog::load(&roots), native_dir)
}

#[test]
fn a_locked_or_corrupt_database_is_one_warning() {
    let dir = tempfile::tempdir().unwrap();
    let (kilo_root, kdb) = kilo_data(dir.path(), 0);
    let (crush_root, cdb) = crush_data(dir.path(), 0);
    let crush_db = cdb.path.clone();
    let kilo_db = kdb.path.clone();
    drop((kdb, cdb));
    for (kind, root, db, table) in [
        (kilo::KIND, &kilo_root, &kilo_db, "session"),
        (crush::KIND, &crush_root, &crush_db, "sessions"),
    ] {
        let writer = rusqlite::Connection::open(db).unwrap();
        writer
            .pragma_update(None, "locking_mode", "exclusive")
            .unwrap();
        writer
            .execute_batch(&format!("BEGIN EXCLUSIVE; UPDATE {table} SET title = 'x';"))
            .unwrap();
        let (catalog, _native) = beside_native(kind, root);
        assert_eq!(catalog.unreadable.len(), 1, "{:?}", catalog.unreadable);
        assert_eq!(&catalog.unreadable[0].0, db);
        assert!(
            catalog.unreadable[0].1.contains("locked"),
            "{:?}",
            catalog.unreadable
        );
        assert_eq!(catalog.len(), 1, "the native session is still listed");
        writer.execute_batch("ROLLBACK").unwrap();
    }
    let garbage = dir.path().join("garbage.db");
    std::fs::write(&garbage, b"not a database, just text\n".repeat(200)).unwrap();
    let foreign = dir.path().join("foreign.db");
    rusqlite::Connection::open(&foreign)
        .unwrap()
        .execute_batch("CREATE TABLE sessions (id TEXT PRIMARY KEY);")
        .unwrap();
    for (kind, path, expected) in [
        (kilo::KIND, &garbage, "not an SQLite database"),
        (crush::KIND, &garbage, "not an SQLite database"),
        (crush::KIND, &foreign, "not a Crush database"),
        (kilo::KIND, &foreign, "not a database Kilo Code wrote"),
    ] {
        let (catalog, _native) = beside_native(kind, path);
        assert_eq!(catalog.unreadable.len(), 1, "{:?}", catalog.unreadable);
        let reason = &catalog.unreadable[0].1;
        assert!(reason.contains(expected), "{}: {reason}", kind.as_str());
        assert_eq!(catalog.len(), 1);
    }
}

#[test]
fn verbose_counts_sub_agent_title_and_archived_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let (kilo_root, _kdb) = kilo_data(dir.path(), 12);
    let (crush_root, _cdb) = crush_data(dir.path(), 5);
    let (_, stderr) = run_ok(
        &[
            "-v",
            "--kilo",
            kilo_root.to_str().unwrap(),
            "--crush",
            crush_root.to_str().unwrap(),
            "candidates",
        ],
        &[],
    );
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(!stderr.contains("warning:"), "{stderr}");
    for expected in [
        "session-ref: skipped 12 Kilo Code sub-agent sessions",
        "session-ref: skipped 1 archived Kilo Code session",
        "session-ref: skipped 6 Crush child sessions (sub-agents' and titles')",
    ] {
        assert!(lines.contains(&expected), "{expected}\n{stderr}");
    }
    let (quiet_out, quiet) = run_ok(
        &[
            "--kilo",
            kilo_root.to_str().unwrap(),
            "--crush",
            crush_root.to_str().unwrap(),
            "candidates",
            "--json",
        ],
        &[],
    );
    assert_eq!(quiet, "");
    assert_eq!(ids(&quiet_out).len(), 2);
}

#[test]
fn each_kind_is_found_where_its_agent_keeps_it() {
    let home = tempfile::tempdir().unwrap();
    let share = home.path().join(".local/share");
    let (kilo_root, _kdb) = kilo_data(&share, 0);
    let (crush_root, _cdb) = crush_data(&share, 0);
    assert_eq!(kilo_root, share.join("kilo"));
    assert_eq!(crush_root, share.join("crush"));
    let sessions = home.path().join(".factory/sessions/-w-d");
    std::fs::create_dir_all(&sessions).unwrap();
    std::fs::write(
        sessions.join("d0000000-0000-4000-8000-000000000001.jsonl"),
        concat!(
            r#"{"type":"session_start","id":"d0000000-0000-4000-8000-000000000001","title":"Droid one","cwd":"/w/d"}"#,
            "\n",
            r#"{"type":"message","id":"t1","timestamp":"2026-12-02T05:27:12.381Z","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}"#,
            "\n"
        ),
    )
    .unwrap();
    let home_str = home.path().to_str().unwrap();
    let (out, _) = run_ok(&["candidates", "--json"], &[("HOME", home_str)]);
    let mut found: Vec<(String, String)> = out
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (
                v["store"].as_str().unwrap().to_owned(),
                v["sessionId"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            ("crush".to_owned(), C.to_owned()),
            (
                "droid".to_owned(),
                "d0000000-0000-4000-8000-000000000001".to_owned()
            ),
            ("kilo".to_owned(), K.to_owned()),
        ]
    );
    // Moved by their variables.
    let moved = tempfile::tempdir().unwrap();
    let db = share.join("kilo/kilo.db");
    let (out, _) = run_ok(
        &["candidates", "--json"],
        &[
            ("HOME", moved.path().to_str().unwrap()),
            ("KILO_DB", db.to_str().unwrap()),
            ("CRUSH_GLOBAL_DATA", share.join("crush").to_str().unwrap()),
            ("FACTORY_HOME_OVERRIDE", home_str),
        ],
    );
    assert_eq!(ids(&out).len(), 3, "{out}");
}

#[test]
fn search_and_labels_use_what_the_person_typed() {
    let dir = tempfile::tempdir().unwrap();
    let (kilo_root, _kdb) = kilo_data(dir.path(), 0);
    let (crush_root, _cdb) = crush_data(dir.path(), 0);
    let droid_root = dir.path().join("sessions");
    let droid_file = droid_root.join("-w-d/d0000000-0000-4000-8000-000000000002.jsonl");
    std::fs::create_dir_all(droid_file.parent().unwrap()).unwrap();
    let lines = [
        serde_json::json!({"type": "session_start", "id": "d0000000-0000-4000-8000-000000000002",
            "title": "", "cwd": "/w/d"}),
        serde_json::json!({"type": "message", "id": "context-t1", "timestamp": "2026-12-02T05:27:12.300Z",
            "message": {"role": "user", "content": [{"type": "text",
                "text": "<system-reminder>quokka skills % pwd /w/d</system-reminder>"}]}}),
        serde_json::json!({"type": "message", "id": "t1", "parentId": "context-t1",
            "timestamp": "2026-12-02T05:27:12.381Z",
            "message": {"role": "user", "content": [{"type": "text", "text": "zephyr cache plan"}]}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&droid_file, text).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let env = [("SESSION_REF_CACHE_DIR", cache.path().to_str().unwrap())];
    for (flag, root) in [
        ("--kilo", &kilo_root),
        ("--crush", &crush_root),
        ("--droid", &droid_root),
    ] {
        let root = root.to_str().unwrap();
        let (listed, _) = run_ok(&[flag, root, "candidates", "--json"], &env);
        let label =
            serde_json::from_str::<Value>(listed.lines().next().unwrap()).unwrap()["label"].clone();
        assert_eq!(label, "zephyr cache plan", "{flag}");
        for index in [true, false] {
            let mut args = vec![flag, root, "search"];
            if !index {
                args.push("--no-index");
            }
            let (hits, _) = run_ok(&[&args[..], &["zephyr", "--json"]].concat(), &env);
            assert_eq!(ids(&hits).len(), 1, "{flag}: {hits}");
            // No match: nothing printed, exit 1 (as grep).
            let none = support::run_env(&[&args[..], &["quokka", "--json"]].concat(), "", &env);
            assert_eq!(
                none.status.code(),
                Some(1),
                "{flag}: {}",
                support::stderr(&none)
            );
            assert_eq!(
                support::stdout(&none),
                "",
                "{flag}: injected text was searched"
            );
        }
    }
}

#[test]
fn crush_times_in_seconds_and_in_milliseconds_are_both_read() {
    let dir = tempfile::tempdir().unwrap();
    let (root, db) = crush_data(dir.path(), 0);
    // An older Crush wrote milliseconds; set its rows as it left them
    // (without the trigger that stamps every update with seconds).
    let old = "0d0e0f10-1112-4314-8516-171819202122";
    db.conn
        .execute_batch("DROP TRIGGER update_sessions_updated_at;")
        .unwrap();
    db.session(old, None, "Older session", 0);
    db.conn
        .execute(
            "UPDATE sessions SET created_at = 1767225600123, updated_at = 1767225660456 WHERE id = ?1",
            [old],
        )
        .unwrap();
    db.conn
        .execute(
            "UPDATE sessions SET created_at = 1796188300, updated_at = 1796188400 WHERE id = ?1",
            [C],
        )
        .unwrap();
    let (out, _) = run_ok(
        &[
            "--crush",
            root.to_str().unwrap(),
            "candidates",
            "--json",
            "--sort",
            "updated",
        ],
        &[],
    );
    let rows: Vec<(String, String, String)> = out
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            let s = |k: &str| v[k].as_str().unwrap().to_owned();
            (s("sessionId"), s("createdAt"), s("lastActivity"))
        })
        .collect();
    assert_eq!(
        rows,
        [
            (
                C.to_owned(),
                "2026-12-02T05:11:40Z".to_owned(),
                "2026-12-02T05:13:20Z".to_owned()
            ),
            (
                old.to_owned(),
                "2026-01-01T00:00:00Z".to_owned(),
                "2026-01-01T00:01:00Z".to_owned()
            ),
        ]
    );
}

#[test]
fn an_untitled_row_s_title_is_kept_while_its_update_time_holds() {
    // The first-prompt title of an untitled Kilo or Crush session is read
    // from its messages once, then answered from the title index while the
    // session row's update time (moved by the agent with every message)
    // holds; a new update time reads the messages again.
    let dir = tempfile::tempdir().unwrap();
    let (kilo_root, kilo_db) = kilo_data(&dir.path().join("k"), 0);
    let (crush_root, crush_db) = crush_data(&dir.path().join("c"), 0);
    // Crush's trigger set `updated_at` to now with each message; the
    // session here was last active an hour ago (a time this close to now
    // is not kept), so the trigger goes before the clock is set back.
    let aged = "DROP TRIGGER update_sessions_updated_at; \
                UPDATE sessions SET updated_at = 1796188400";
    crush_db.conn.execute_batch(aged).unwrap();
    let edit_kilo = |text: &str| {
        let part = opencode_fixture::text_part(text);
        let sql = "UPDATE part SET data = ?1 WHERE id = 'prt_msg_k1_000'";
        kilo_db.conn.execute(sql, [part]).unwrap();
    };
    let edit_crush = |text: &str| {
        let parts = Value::from(vec![crush_fixture::text_part(text)]).to_string();
        let sql = "UPDATE messages SET parts = ?1 WHERE id = 'm1'";
        crush_db.conn.execute(sql, [parts]).unwrap();
    };
    type Edit<'a> = &'a dyn Fn(&str);
    let touch_kilo = || {
        let sql = "UPDATE session SET time_updated = time_updated + 60000";
        kilo_db.conn.execute(sql, []).unwrap();
    };
    let touch_crush = || {
        let sql = "UPDATE sessions SET updated_at = updated_at + 60";
        crush_db.conn.execute(sql, []).unwrap();
    };
    let kinds: [(&str, &Path, Edit, &dyn Fn()); 2] = [
        ("--kilo", &kilo_root, &edit_kilo, &touch_kilo),
        ("--crush", &crush_root, &edit_crush, &touch_crush),
    ];
    for (flag, root, edit, touch) in kinds {
        let home = tempfile::tempdir().unwrap();
        let label = |extra: &[&str]| {
            let mut command = support::command(home.path());
            command.args([flag, root.to_str().unwrap(), "candidates", "--json"]);
            command.args(extra);
            let out = support::feed(&mut command, "");
            assert!(out.status.success(), "{flag}: {}", support::stderr(&out));
            let row: Value = serde_json::from_str(support::stdout(&out).trim()).unwrap();
            row["label"].as_str().unwrap().to_owned()
        };
        assert_eq!(label(&[]), "zephyr cache plan", "{flag}");
        edit("edited cache plan");
        assert_eq!(label(&[]), "zephyr cache plan", "{flag}: read again");
        assert_eq!(label(&["--no-cache"]), "edited cache plan", "{flag}");
        touch();
        assert_eq!(
            label(&[]),
            "edited cache plan",
            "{flag}: kept past a change"
        );
    }
}
