//! The title index (`$XDG_CACHE_HOME/session-ref`): listing is the same with
//! and without it, for every store kind, through growth by appending, a
//! rewrite, a vanished file and a damaged or foreign index file.
//!
//! Files are given modification times in the past: the index does not
//! trust a stamp younger than two seconds (it could still change within
//! its timestamp tick).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, SystemTime};

use crate::support::hermetic;

const CLAUDE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/claude/projects"
);
const CODEX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/codex/sessions");

/// stdout and stderr of `session-ref ARGS candidates --json` over the
/// stores (the fixture Claude Code and Codex stores unless given).
fn list(store: &Path, cache: &Path, extra: &[&str]) -> (String, String) {
    let home = tempfile::tempdir().unwrap();
    let foreign = if extra.contains(&"--claude") {
        vec![]
    } else {
        vec!["--claude", CLAUDE, "--codex", CODEX]
    };
    let mut command = Command::new(env!("CARGO_BIN_EXE_session-ref"));
    let output = hermetic::isolate(&mut command, home.path())
        .args(["--store", store.to_str().unwrap()])
        .args(foreign)
        .args(extra)
        .args(["candidates", "--json", "--limit", "1000"])
        .env("XDG_CACHE_HOME", cache)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    (
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// Listing with the index equals listing without it; returns the listing.
fn same_with_and_without(store: &Path, cache: &Path) -> String {
    same_with_and_without_args(store, cache, &[])
}

fn same_with_and_without_args(store: &Path, cache: &Path, args: &[&str]) -> String {
    let (cached, cached_err) = list(store, cache, args);
    let no_cache = [args, &["--no-cache"]].concat();
    let (direct, direct_err) = list(store, cache, &no_cache);
    assert_eq!(cached, direct);
    assert_eq!(cached_err, direct_err);
    cached
}

/// A listing without its `lastActivity` fields (which follow each write).
fn without_activity(listing: &str) -> String {
    listing
        .lines()
        .map(|line| match line.rsplit_once(",\"lastActivity\":") {
            Some((rest, _)) => format!("{rest}}}\n"),
            None => format!("{line}\n"),
        })
        .collect()
}

fn age(path: &Path, seconds_ago: u64) {
    let when = SystemTime::now() - Duration::from_secs(seconds_ago);
    File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(when)
        .unwrap();
}

fn header(id: &str, created: &str) -> String {
    format!("{{\"type\":\"session\",\"version\":1,\"id\":\"{id}\",\"createdAt\":\"{created}\",\"cwd\":\"/w\"}}\n")
}

fn user(seq: u64, text: &str) -> String {
    format!("{{\"seq\":{seq},\"type\":\"user/message\",\"data\":{{\"id\":\"m{seq}\",\"source\":{{\"kind\":\"user\"}},\"content\":[{{\"type\":\"text\",\"text\":\"{text}\"}}]}}}}\n")
}

fn title(seq: u64, text: &str) -> String {
    format!("{{\"seq\":{seq},\"type\":\"session/title\",\"data\":{{\"title\":\"{text}\"}}}}\n")
}

fn append(path: &Path, text: &str, seconds_ago: u64) {
    OpenOptions::new()
        .append(true)
        .open(path)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    age(path, seconds_ago);
}

/// The index shard (one file per store root) that mentions `name`.
fn shard_of(cache: &Path, name: &str) -> std::path::PathBuf {
    std::fs::read_dir(cache.join("session-ref"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| read_lossy(p).contains(name))
        .unwrap_or_else(|| panic!("no shard mentions {name}"))
}

/// Every shard of the index, concatenated.
fn index_file(cache: &Path) -> String {
    let mut shards: Vec<_> = std::fs::read_dir(cache.join("session-ref"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    shards.sort();
    shards.iter().map(|p| read_lossy(p)).collect()
}

/// A shard's bytes as text (the index is binary; paths and titles in it
/// are UTF-8 runs that can be searched for).
fn read_lossy(path: &Path) -> String {
    String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned()
}

#[test]
fn listing_is_identical_with_and_without_the_index() {
    let store = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let a = store.path().join("a.jsonl");
    let b = store.path().join("b.jsonl");
    let c = store.path().join("c.jsonl");
    std::fs::write(
        &a,
        header("a", "2026-01-01T00:00:00Z") + &title(1, "Early title") + &user(2, "hello"),
    )
    .unwrap();
    std::fs::write(
        &b,
        header("b", "2026-01-02T00:00:00Z") + &user(1, "untitled"),
    )
    .unwrap();
    std::fs::write(&c, "not a session\n").unwrap();
    for path in [&a, &b, &c] {
        age(path, 100);
    }

    // Built on the first run, used on the second.
    let first = same_with_and_without(store.path(), cache.path());
    assert!(first.contains("Early title"), "{first}");
    let index = index_file(cache.path());
    assert!(index.contains("Early title") && index.contains("c.jsonl"));
    assert_eq!(same_with_and_without(store.path(), cache.path()), first);

    // Appended: a newer title in the appended bytes wins; a line without
    // one leaves the earlier title standing.
    append(&a, &title(3, "Renamed"), 90);
    append(&b, &user(2, "more"), 90);
    let grown = same_with_and_without(store.path(), cache.path());
    assert!(
        grown.contains("Renamed") && !grown.contains("Early title"),
        "{grown}"
    );
    append(&a, &user(4, "after the rename"), 80);
    // (Only the last activity moved.)
    assert_eq!(
        without_activity(&same_with_and_without(store.path(), cache.path())),
        without_activity(&grown)
    );

    // Rewritten shorter, and rewritten at the same length (a new inode).
    std::fs::write(&a, header("a", "2026-01-01T00:00:00Z") + &title(1, "Other")).unwrap();
    age(&a, 70);
    let rewritten = same_with_and_without(store.path(), cache.path());
    assert!(rewritten.contains("Other") && !rewritten.contains("Renamed"));
    let same_length = header("a", "2026-01-01T00:00:00Z") + &title(1, "Otter");
    let replacement = store.path().join("a.tmp");
    std::fs::write(&replacement, same_length).unwrap();
    std::fs::rename(&replacement, &a).unwrap();
    age(&a, 70);
    assert!(same_with_and_without(store.path(), cache.path()).contains("Otter"));

    // A vanished file leaves the index.
    std::fs::remove_file(&b).unwrap();
    same_with_and_without(store.path(), cache.path());
    let index = index_file(cache.path());
    assert!(!index.contains("/b.jsonl"), "{index}");

    // A damaged index, or one of another version, is ignored and rebuilt.
    let file = shard_of(cache.path(), "a.jsonl");
    let expected = same_with_and_without(store.path(), cache.path());
    let good = std::fs::read(&file).unwrap();
    // A shard of the earlier (JSON) version of this root is removed when
    // the current one is written.
    let name = file.file_name().unwrap().to_str().unwrap();
    let earlier = file.with_file_name(
        name.replace("titles-v5-", "titles-v1-")
            .replace(".bin", ".json"),
    );
    std::fs::write(&earlier, "{\"version\":1,\"entries\":[]}").unwrap();
    assert!(good.starts_with(b"SRTI\x05\0\0\0"), "{good:?}");
    let mut flipped = good.clone();
    *flipped.last_mut().unwrap() ^= 0x20;
    let mut other_version = good.clone();
    other_version[4] = 99;
    // Checksum right, but the payload claims a length far beyond itself:
    // rejected by the decoder's limit, without allocating that length.
    let huge = [0xffu8; 16];
    let mut huge_length = b"SRTI\x05\0\0\0".to_vec();
    huge_length.extend_from_slice(&crc32(&huge).to_le_bytes());
    huge_length.extend_from_slice(&huge);
    for damaged in [
        good[..good.len() / 2].to_vec(),
        good[..6].to_vec(),
        b"\0\x01garbage".to_vec(),
        b"{\"version\":1,\"entries\":[]}".to_vec(),
        flipped,
        other_version,
        huge_length,
    ] {
        std::fs::write(&file, &damaged).unwrap();
        let (out, err) = list(store.path(), cache.path(), &[]);
        assert_eq!((out.as_str(), err.as_str()), (expected.as_str(), ""));
        let rebuilt = std::fs::read(&file).unwrap();
        assert!(rebuilt.starts_with(b"SRTI\x05\0\0\0"));
        assert!(read_lossy(&file).contains("a.jsonl"));
        assert!(!earlier.exists());
    }
}

/// CRC-32 (IEEE), bit by bit: the checksum the index header carries,
/// computed independently of the crate the binary uses.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn no_cache_writes_no_index() {
    let store = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let a = store.path().join("a.jsonl");
    std::fs::write(&a, header("a", "2026-01-01T00:00:00Z") + &title(1, "T")).unwrap();
    age(&a, 100);
    list(store.path(), cache.path(), &["--no-cache"]);
    assert!(!cache.path().join("session-ref").exists());
}

/// The shards (one file per store root) in the index.
fn shards(cache: &Path) -> Vec<std::path::PathBuf> {
    let mut found: Vec<_> = std::fs::read_dir(cache.join("session-ref"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    found
}

#[test]
fn shards_of_roots_that_are_gone_are_pruned_when_the_index_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let store = |name: &str| {
        let root = dir.path().join(name);
        std::fs::create_dir_all(&root).unwrap();
        let log = root.join(format!("{name}.jsonl"));
        std::fs::write(&log, header(&format!("id-{name}"), "2026-01-01T00:00:00Z")).unwrap();
        append(&log, &user(1, &format!("prompt of {name}")), 100);
        root
    };
    let (kept, gone, unused) = (store("kept"), store("gone"), store("unused"));
    let all = [
        "--store",
        gone.to_str().unwrap(),
        "--store",
        unused.to_str().unwrap(),
    ];
    list(&kept, &cache, &all);
    // kept, gone, unused, and the fixture Claude Code and Codex roots.
    assert_eq!(shards(&cache).len(), 5);
    let gone_shard = shard_of(&cache, "id-gone");
    std::fs::remove_dir_all(&gone).unwrap();
    // Nothing changed, nothing written: nothing is pruned either.
    list(&kept, &cache, &[]);
    assert!(gone_shard.exists());
    // A run that writes prunes the shard of the root that is gone, and
    // only it: `unused` exists, though this run did not read it.
    let log = kept.join("new.jsonl");
    std::fs::write(&log, header("id-new", "2026-01-02T00:00:00Z")).unwrap();
    append(&log, &user(1, "a new prompt"), 100);
    list(&kept, &cache, &[]);
    let left = shards(&cache);
    assert_eq!(left.len(), 4, "{left:?}");
    assert!(!gone_shard.exists());
    assert!(index_file(&cache).contains("id-unused"));
    assert!(index_file(&cache).contains("id-new"));
}

/// A copy of a fixture tree, every file aged.
fn copy_tree(from: &Path, to: &Path) {
    hermetic::copy_tree_then(from, to, &|file| age(file, 100));
}

#[test]
fn foreign_titles_follow_their_files_and_side_files() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let native = root.path().join("native");
    std::fs::create_dir(&native).unwrap();
    let claude = root.path().join("claude/projects");
    let codex_home = root.path().join("codex");
    copy_tree(Path::new(CLAUDE), &claude);
    copy_tree(Path::new(CODEX).parent().unwrap(), &codex_home);
    let args = [
        "--claude",
        claude.to_str().unwrap(),
        "--codex",
        codex_home.join("sessions").to_str().unwrap(),
    ]
    .map(str::to_owned);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let first = same_with_and_without_args(&native, cache.path(), &args);
    assert_eq!(
        same_with_and_without_args(&native, cache.path(), &args),
        first
    );

    // A thread renamed in Codex's session_index.jsonl (a side file).
    let index = codex_home.join("session_index.jsonl");
    append(
        &index,
        "{\"id\":\"019b8000-0000-7000-8000-000000000002\",\"thread_name\":\"Renamed in the index\",\"updated_at\":\"2026-02-01T00:00:00Z\"}\n",
        50,
    );
    let renamed = same_with_and_without_args(&native, cache.path(), &args);
    assert!(renamed.contains("Renamed in the index"), "{renamed}");

    // A Claude Code session renamed with /rename (appended custom-title).
    let transcript = claude.join("-home-dev-shop/a1b2c3d4-0000-4000-8000-000000000002.jsonl");
    append(
        &transcript,
        "\n{\"type\":\"custom-title\",\"customTitle\":\"Custom name\",\"sessionId\":\"a1b2c3d4-0000-4000-8000-000000000002\"}\n",
        40,
    );
    let custom = same_with_and_without_args(&native, cache.path(), &args);
    assert!(custom.contains("Custom name"), "{custom}");
}

#[test]
fn gemini_titles_follow_every_file_of_their_session() {
    // A Gemini CLI title is the current chat's (the one Gemini CLI would
    // resume): the index must notice a chat that changed, a copy of the
    // session that appeared in another project folder, and one that left.
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let native = root.path().join("native");
    std::fs::create_dir(&native).unwrap();
    let gemini = root.path().join("gemini");
    copy_tree(
        Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/gemini"
        )),
        &gemini,
    );
    let args = ["--gemini", gemini.to_str().unwrap()];
    let first = same_with_and_without_args(&native, cache.path(), &args);
    assert!(
        first.contains("Fix checkout total rounding drift"),
        "{first}"
    );
    assert!(
        index_file(cache.path()).contains("session-2026-01-10T09-00-c0ffee01.jsonl"),
        "the Gemini CLI titles are indexed"
    );
    assert_eq!(
        same_with_and_without_args(&native, cache.path(), &args),
        first
    );

    // Renamed: Gemini CLI writes a newer summary into the chat.
    let chat = gemini.join("tmp/shop/chats/session-2026-01-10T09-00-c0ffee01.jsonl");
    append(
        &chat,
        "{\"$set\":{\"summary\":\"Renamed in the chat\"}}\n",
        50,
    );
    let renamed = same_with_and_without_args(&native, cache.path(), &args);
    assert!(renamed.contains("Renamed in the chat"), "{renamed}");

    // A later copy of the same session in another project folder (a
    // migration copy that went on): it is now the current chat.
    let other = gemini.join("tmp/elsewhere/chats");
    std::fs::create_dir_all(&other).unwrap();
    let copy = other.join("session-2026-01-20T09-00-c0ffee01.jsonl");
    let mut text = std::fs::read_to_string(&chat).unwrap();
    text.push_str(
        "{\"$set\":{\"lastUpdated\":\"2026-01-20T09:00:00.000Z\",\"summary\":\"Title of the copy\"}}\n",
    );
    std::fs::write(&copy, text).unwrap();
    age(&copy, 40);
    let copied = same_with_and_without_args(&native, cache.path(), &args);
    assert!(copied.contains("Title of the copy"), "{copied}");

    // The copy is gone again: the title is the chat's own once more.
    std::fs::remove_file(&copy).unwrap();
    let back = same_with_and_without_args(&native, cache.path(), &args);
    assert!(back.contains("Renamed in the chat"), "{back}");
    assert!(!back.contains("Title of the copy"), "{back}");

    // An unchanged legacy chat is not parsed again: its bytes replaced in
    // place (same inode, length and modification time), the index still
    // answers with what it read, where a listing without it cannot read
    // the chat at all.
    let legacy = gemini.join(
        "tmp/cc2b75052e4faa5654d762961bf89567edf5657f98c533e6fb34528f450b2602/chats/session-2025-10-05T12-00-c0ffee06.json",
    );
    let stamp = std::fs::metadata(&legacy).unwrap();
    let garbage = vec![b'x'; stamp.len() as usize];
    OpenOptions::new()
        .write(true)
        .open(&legacy)
        .unwrap()
        .write_all(&garbage)
        .unwrap();
    File::options()
        .write(true)
        .open(&legacy)
        .unwrap()
        .set_modified(stamp.modified().unwrap())
        .unwrap();
    let (cached, _) = list(&native, cache.path(), &args);
    assert_eq!(cached, back);
    let no_cache = [&args[..], &["--no-cache"]].concat();
    let (_, direct_err) = list(&native, cache.path(), &no_cache);
    assert!(direct_err.contains("c0ffee06.json"), "{direct_err}");
}

#[test]
fn pi_and_qwen_titles_follow_their_files() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let native = root.path().join("native");
    std::fs::create_dir(&native).unwrap();
    let (pi, qwen) = (root.path().join("pi"), root.path().join("qwen"));
    let fixtures = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures"));
    copy_tree(&fixtures.join("pi/sessions"), &pi);
    copy_tree(&fixtures.join("qwen/projects"), &qwen);
    let args = [
        "--pi",
        pi.to_str().unwrap(),
        "--qwen",
        qwen.to_str().unwrap(),
    ];
    let first = same_with_and_without_args(&native, cache.path(), &args);
    assert!(first.contains("Named via RPC ✓"), "{first}");
    assert!(first.contains("Renamed chat ✓"), "{first}");
    let index = index_file(cache.path());
    assert!(
        index.contains("01a232f5-be47-72c8-a0f3-a2ece3ec2c64.jsonl"),
        "pi titles are indexed"
    );
    assert!(
        index.contains("cdb0c8bb-094a-4a8f-8fd9-26c5c1a935fd.jsonl"),
        "Qwen titles are indexed"
    );
    assert_eq!(
        same_with_and_without_args(&native, cache.path(), &args),
        first
    );

    // Renamed by appending: pi's `/name`, Qwen's re-appended title record.
    let session = pi
        .join("--w-projé ü--/2026-12-01T18-54-40-300Z_01a232f5-82ab-7747-9da3-3007f4d79005.jsonl");
    append(
        &session,
        "{\"type\":\"session_info\",\"id\":\"beefbeef\",\"parentId\":\"70b281f0\",\"timestamp\":\"2026-12-01T19:00:00.000Z\",\"name\":\"Piped notes\"}\n",
        50,
    );
    let chat = qwen.join("-w-proj---/chats/b5ebe359-7f02-49c5-a42a-9f4d61f44cfd.jsonl");
    append(
        &chat,
        "{\"uuid\":\"t1\",\"parentUuid\":null,\"sessionId\":\"b5ebe359-7f02-49c5-a42a-9f4d61f44cfd\",\"timestamp\":\"2026-12-01T19:00:00.000Z\",\"type\":\"system\",\"provenance\":\"system\",\"cwd\":\"/w/projé ü\",\"subtype\":\"custom_title\",\"systemPayload\":{\"customTitle\":\"Greeting Carol\",\"titleSource\":\"auto\"}}\n",
        50,
    );
    let renamed = same_with_and_without_args(&native, cache.path(), &args);
    assert!(renamed.contains("Piped notes"), "{renamed}");
    assert!(renamed.contains("Greeting Carol"), "{renamed}");
    // An empty name clears pi's name: the first prompt again.
    append(
        &session,
        "{\"type\":\"session_info\",\"id\":\"beefbeee\",\"parentId\":\"beefbeef\",\"timestamp\":\"2026-12-01T19:01:00.000Z\",\"name\":\"\"}\n",
        40,
    );
    let cleared = same_with_and_without_args(&native, cache.path(), &args);
    assert!(!cleared.contains("Piped notes"), "{cleared}");
}

/// The session ids of `candidates --sort updated --json` over the native
/// store `store` and `args`: the same with and without the index.
fn by_activity(store: &Path, cache: &Path, args: &[&str]) -> Vec<String> {
    let run = |extra: &[&str]| {
        let home = tempfile::tempdir().unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_session-ref"));
        let output = hermetic::isolate(&mut command, home.path())
            .args(["--store", store.to_str().unwrap()])
            .args(args)
            .args(extra)
            .args([
                "candidates",
                "--json",
                "--limit",
                "1000",
                "--sort",
                "updated",
            ])
            .env("XDG_CACHE_HOME", cache)
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    let listing = run(&[]);
    assert_eq!(run(&["--no-cache"]), listing);
    listing
        .lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            value["sessionId"].as_str().unwrap().to_owned()
        })
        .collect()
}

/// `candidates --sort updated` as a table over the native store `store`.
fn hermetic_table(store: &Path, cache: &Path) -> String {
    let home = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_session-ref"));
    let output = hermetic::isolate(&mut command, home.path())
        .args(["--store", store.to_str().unwrap()])
        .args(["candidates", "--sort", "updated"])
        .env("XDG_CACHE_HOME", cache)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn last_activity_is_the_newest_recorded_time_not_the_file_time() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let native = root.path().join("native");
    let claude = root.path().join("claude/projects");
    let codex = root.path().join("codex");
    let gemini = root.path().join("gemini/.gemini");
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo");
    copy_tree(&demo, &native);
    copy_tree(Path::new(CLAUDE), &claude);
    copy_tree(Path::new(CODEX).parent().unwrap(), &codex);
    let gemini_fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gemini");
    copy_tree(&gemini_fixture, &gemini);
    let args = [
        "--claude",
        claude.to_str().unwrap(),
        "--codex",
        codex.join("sessions").to_str().unwrap(),
        "--gemini",
        gemini.to_str().unwrap(),
    ]
    .map(str::to_owned);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    // Every file as fresh as after `git clone` (aged past the index's
    // two-second window), then in an order of their own: the sessions'
    // order by last activity does not move, with the index cold or warm.
    let files: Vec<std::path::PathBuf> = walkdir::WalkDir::new(root.path())
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect();
    for file in &files {
        age(file, 5);
    }
    let cloned = by_activity(&native, cache.path(), &args);
    assert!(cloned.len() > 20, "{cloned:?}");
    for (i, file) in files.iter().enumerate() {
        age(file, 10 + (i as u64 * 7919) % 100_000);
    }
    assert_eq!(by_activity(&native, cache.path(), &args), cloned);
    assert_eq!(by_activity(&native, cache.path(), &args), cloned);

    // The demo's ages come from its sessions, not from the clone.
    let table = hermetic_table(&native, cache.path());
    assert!(
        !table.contains(" 2m ") && !table.contains(" now "),
        "{table}"
    );
}

/// Modes under `dir`, each path relative to it, with the directory itself.
#[cfg(unix)]
fn modes(dir: &Path) -> Vec<(String, u32)> {
    use std::os::unix::fs::PermissionsExt;
    let mut all: Vec<_> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| {
            let e = e.unwrap();
            let rel = e.path().strip_prefix(dir).unwrap().display().to_string();
            (rel, e.metadata().unwrap().permissions().mode() & 0o777)
        })
        .collect();
    all.sort();
    all
}

/// The caches hold session text: whatever the umask, a listing and a
/// search leave their directories 0700 and their files 0600, and tighten
/// a cache an older version left 0755/0644 (#25 item 1).
#[cfg(unix)]
#[test]
fn caches_are_private_whatever_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/search");
    let home = tempfile::tempdir().unwrap();
    let cache = home.path().join("cache");
    let root = cache.join("session-ref");
    // As an older version left it: a wide root and search folder, a wide
    // data file of the search index.
    std::fs::create_dir_all(root.join("search")).unwrap();
    std::fs::write(root.join("search/data-0.bin"), "").unwrap();
    for (path, mode) in [
        (root.clone(), 0o755),
        (root.join("search"), 0o755),
        (root.join("search/data-0.bin"), 0o644),
    ] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    let run = |args: &[&str]| {
        let mut command = Command::new("/bin/sh");
        hermetic::isolate(&mut command, home.path())
            .args(["-c", "umask 000; exec \"$0\" \"$@\""])
            .arg(env!("CARGO_BIN_EXE_session-ref"))
            .args(["--store", &format!("{fixtures}/hydra")])
            .args(["--claude", &format!("{fixtures}/claude")])
            .args(["--codex", &format!("{fixtures}/codex")])
            .args(args)
            .env("XDG_CACHE_HOME", &cache);
        let output = command.output().unwrap();
        assert!(output.status.success(), "{output:?}");
    };
    run(&["candidates", "--json"]);
    run(&["search", "zephyr"]);
    let found = modes(&root);
    let names: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
    assert!(names.iter().any(|p| p.starts_with("titles-")), "{names:?}");
    assert!(names.contains(&"search/manifest.bin"), "{names:?}");
    for (path, mode) in &found {
        let dir = root.join(path).is_dir();
        assert_eq!(*mode, if dir { 0o700 } else { 0o600 }, "{path:?}");
    }
}
