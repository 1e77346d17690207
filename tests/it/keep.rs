//! `keep`: the archive. Every kind's sessions kept, then deleted from
//! their store, stay listed (marked archived), read by their kind's own
//! reader to the same snapshot, and a mention of them still resolves; a
//! `[keep]` table keeps with every listing; `--purge` removes the archive
//! and nothing else; a full disk loses nothing already archived.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::store_suite::{store, Built, Kind, KINDS};
use crate::support;

/// Run the binary in `home` (kept across runs, so is its archive).
fn run_in(home: &Path, args: &[&str]) -> Output {
    let mut cmd = support::command(home);
    cmd.args(args);
    support::feed(&mut cmd, "")
}

fn ok_in(home: &Path, args: &[&str]) -> String {
    let out = run_in(home, args);
    assert!(out.status.success(), "{args:?}: {}", support::stderr(&out));
    support::stdout(&out)
}

/// `candidates --json` of `kind`'s store, by session id.
fn listed(home: &Path, kind: &Kind, built: &Built) -> Vec<Value> {
    let flag = format!("--{}", kind.flag);
    let root = built.root.to_str().unwrap();
    ok_in(
        home,
        &[&flag, root, "candidates", "--json", "--limit", "1000"],
    )
    .lines()
    .map(|l| serde_json::from_str(l).unwrap())
    .collect()
}

/// `preview ID --json` of `kind`'s store: the whole answer.
fn preview(home: &Path, kind: &Kind, built: &Built, id: &str) -> String {
    let flag = format!("--{}", kind.flag);
    let root = built.root.to_str().unwrap();
    ok_in(home, &[&flag, root, "preview", id, "--json"])
}

/// The archive directory of a test's home.
fn archive(home: &Path) -> std::path::PathBuf {
    home.join(".local/share/session-ref/archive")
}

/// Kinds whose sessions live in project folders outside their store's
/// root (Crush's `.crush/crush.db`, Aider's histories): keep names each
/// as not kept instead of copying it.
const OUTSIDE_ROOT: &[&str] = &["crush", "aider"];

#[test]
fn sessions_outside_their_stores_folder_are_named_as_not_kept() {
    for kind in KINDS.iter().filter(|k| OUTSIDE_ROOT.contains(&k.name)) {
        let (_dir, built) = store(kind);
        let home = tempfile::tempdir().unwrap();
        let flag = format!("--{}", kind.flag);
        let root = built.root.to_str().unwrap();
        let out = run_in(home.path(), &[&flag, root, "keep"]);
        assert!(
            out.status.success(),
            "{}: {}",
            kind.name,
            support::stderr(&out)
        );
        let stderr = support::stderr(&out);
        for session in &built.sessions {
            assert!(
                stderr.contains(&format!(
                    "{} {}: not kept: its file is outside",
                    kind.name, session.id
                )),
                "{}: {stderr}",
                kind.name
            );
        }
    }
}

#[test]
fn every_kinds_sessions_deleted_after_keep_stay_listed_archived_and_read_the_same() {
    for kind in KINDS.iter().filter(|k| !OUTSIDE_ROOT.contains(&k.name)) {
        let (_dir, built) = store(kind);
        let home = tempfile::tempdir().unwrap();
        let flag = format!("--{}", kind.flag);
        let root = built.root.to_str().unwrap();
        let before: Vec<(String, String)> = built
            .sessions
            .iter()
            .map(|s| (s.id.to_owned(), preview(home.path(), kind, &built, s.id)))
            .collect();
        let summary = ok_in(home.path(), &[&flag, root, "keep"]);
        let n = built.sessions.len();
        assert!(
            summary.starts_with(&format!("kept {n} sessions in ")),
            "{}: {summary}",
            kind.name
        );
        // Still in the store: listed once each, not archived.
        let live = listed(home.path(), kind, &built);
        assert_eq!(live.len(), n, "{}", kind.name);
        assert!(live.iter().all(|c| c.get("archived").is_none()));
        // Gone from the store: listed from the archive, read the same.
        std::fs::remove_dir_all(&built.root).unwrap();
        std::fs::create_dir(&built.root).unwrap();
        let gone = listed(home.path(), kind, &built);
        assert_eq!(gone.len(), n, "{}: {gone:?}", kind.name);
        for (expect, (id, snapshot)) in built.sessions.iter().zip(&before) {
            let who = format!("{} {id}", kind.name);
            let candidate = gone.iter().find(|c| c["sessionId"] == *id).unwrap();
            assert_eq!(candidate["archived"], true, "{who}");
            assert_eq!(candidate["label"], expect.label, "{who}");
            // Every other field as it was listed live: the side files
            // (titles, times, working directories) were kept too.
            let mut same = candidate.clone();
            let mut was = live.iter().find(|c| c["sessionId"] == *id).unwrap().clone();
            for field in ["archived", "path"] {
                same.as_object_mut().unwrap().remove(field);
                was.as_object_mut().unwrap().remove(field);
            }
            assert_eq!(same, was, "{who}");
            assert_eq!(&preview(home.path(), kind, &built, id), snapshot, "{who}");
        }
        // A mention of an archived session resolves to that snapshot.
        let mention = gone[0]["mention"].as_str().unwrap();
        let prepared = ok_in(home.path(), &[&flag, root, "prepare", mention]);
        assert!(
            prepared.contains("## Referenced sessions"),
            "{}: {prepared}",
            kind.name
        );
        // Private, every folder and file.
        for item in walkdir::WalkDir::new(archive(home.path())) {
            let item = item.unwrap();
            let mode = item.metadata().unwrap().permissions().mode() & 0o777;
            let want = if item.file_type().is_dir() {
                0o700
            } else {
                0o600
            };
            assert_eq!(mode, want, "{}: {}", kind.name, item.path().display());
        }
    }
}

/// A native store of sessions `ids`.
fn native(dir: &Path, ids: &[&str]) -> std::path::PathBuf {
    let store = dir.join("store");
    std::fs::create_dir_all(&store).unwrap();
    for id in ids {
        support::Session::new(id, "2026-11-30T10:00:00Z", Some("/w"))
            .user(&format!("about {id}"))
            .title(&format!("Title {id}"))
            .write(&store, &format!("{id}.jsonl"));
    }
    store
}

#[test]
fn a_keep_table_keeps_with_every_listing_and_purge_removes_only_the_archive() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let store = native(dir.path(), &["k-one", "k-two"]);
    let root = store.to_str().unwrap();
    let config = home.join(".config/session-ref");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), "[keep]\nmax_size = \"10M\"\n").unwrap();
    // A listing keeps what it lists.
    assert_eq!(
        ok_in(&home, &["--store", root, "candidates"])
            .lines()
            .count(),
        3
    );
    std::fs::remove_file(store.join("k-one.jsonl")).unwrap();
    let table = ok_in(&home, &["--store", root, "candidates"]);
    let row = table.lines().find(|l| l.contains("k-one")).unwrap();
    assert!(row.contains("hydra (archived)"), "{table}");
    let summary = ok_in(&home, &["--store", root, "keep"]);
    assert!(
        summary.contains("1 session only in the archive") && summary.contains("of 10.0 MiB"),
        "{summary}"
    );
    // Without the table, listing keeps nothing new, but reads the archive.
    std::fs::remove_file(config.join("config.toml")).unwrap();
    native(dir.path(), &["k-three"]);
    ok_in(&home, &["--store", root, "candidates"]);
    std::fs::remove_file(store.join("k-three.jsonl")).unwrap();
    let listed = ok_in(&home, &["--store", root, "candidates"]);
    assert!(
        listed.contains("k-one") && !listed.contains("k-three"),
        "{listed}"
    );
    // --purge: the archive goes, the store stays.
    let purged = ok_in(&home, &["keep", "--purge"]);
    assert!(purged.starts_with("removed the archive "), "{purged}");
    assert!(!archive(&home).exists());
    assert!(store.join("k-two.jsonl").is_file());
    let listed = ok_in(&home, &["--store", root, "candidates"]);
    assert!(!listed.contains("k-one"), "{listed}");
}

#[test]
fn a_damaged_manifest_fails_keep_with_its_code_and_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let store = native(dir.path(), &["d-one"]);
    let root = store.to_str().unwrap();
    ok_in(&home, &["--store", root, "keep"]);
    let manifest = archive(&home).join("manifest");
    std::fs::write(&manifest, "not a manifest").unwrap();
    let out = run_in(&home, &["--store", root, "keep"]);
    support::assert_fails_with(&out, "SESSION_REFERENCE_ARCHIVE_FAILED");
    assert!(support::stderr(&out).contains("damaged"));
    assert_eq!(std::fs::read(&manifest).unwrap(), b"not a manifest");
    // A listing says so once and lists the store.
    let out = run_in(&home, &["--store", root, "candidates"]);
    assert!(out.status.success());
    assert!(
        support::stderr(&out).contains("damaged"),
        "{}",
        support::stderr(&out)
    );
}

/// Whether this process may mount (root, and a kernel that lets it).
fn mount_tmpfs(at: &Path, size: &str) -> bool {
    std::fs::create_dir_all(at).unwrap();
    std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
        .arg(at)
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn a_full_disk_loses_nothing_already_archived_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let data = home.join(".local/share");
    if !mount_tmpfs(&data, "256k") {
        support::prerequisite::missing(
            "keep::a_full_disk_loses_nothing_already_archived_and_says_so",
            "cannot mount a small tmpfs (needs root)",
        );
        return;
    }
    struct Unmount<'a>(&'a Path);
    impl Drop for Unmount<'_> {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount").arg(self.0).status();
        }
    }
    let _unmount = Unmount(&data);
    let store = native(dir.path(), &["f-small"]);
    let root = store.to_str().unwrap();
    ok_in(&home, &["--store", root, "keep"]);
    let manifest = std::fs::read(archive(&home).join("manifest")).unwrap();
    // A session whose copy cannot fit the disk: random bytes do not
    // compress.
    let mut noise = Vec::new();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    while noise.len() < 1 << 20 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        noise.extend_from_slice(format!("{x:016x}").as_bytes());
    }
    support::Session::new("f-big", "2026-11-30T11:00:00Z", Some("/w"))
        .user(&String::from_utf8(noise).unwrap())
        .write(&store, "f-big.jsonl");
    let out = run_in(&home, &["--store", root, "keep"]);
    support::assert_fails_with(&out, "SESSION_REFERENCE_ARCHIVE_FAILED");
    let err = support::stderr(&out);
    assert!(err.contains("the disk is full"), "{err}");
    assert!(err.contains("nothing archived before was lost"), "{err}");
    assert_eq!(
        std::fs::read(archive(&home).join("manifest")).unwrap(),
        manifest
    );
    // What was archived before still reads.
    std::fs::remove_file(store.join("f-small.jsonl")).unwrap();
    let listed = ok_in(&home, &["--store", root, "candidates", "--json"]);
    let small = listed.lines().find(|l| l.contains("f-small")).unwrap();
    assert!(small.contains("\"archived\":true"), "{listed}");
    ok_in(&home, &["--store", root, "preview", "f-small"]);
}
