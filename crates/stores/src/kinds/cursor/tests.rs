//! The Cursor CLI reader's rules, on transcripts and chat folders written in
//! the shapes cursor-agent writes (see the module docs for where they were
//! found).

use super::*;
use crate::kinds::foreign::testing::texts;
use serde_json::json;

const ID: &str = "aaaec9b1-e3ee-4163-9f93-a424e5ef0404";
const CWD: &str = "/home/dev/projé ü";

/// A prompt line as cursor-agent writes it: the local time, then what was
/// typed.
fn prompt(typed: &str) -> String {
    let text = format!(
        "<timestamp>Tuesday, Jul 21, 2026, 6:57 PM (UTC+8)</timestamp>\n<user_query>\n{typed}\n</user_query>"
    );
    json!({"role": "user", "message": {"content": [{"type": "text", "text": text}]}}).to_string()
}

/// An assistant line with reasoning, a redaction and a tool call beside its text.
fn reply(text: &str) -> String {
    json!({"role": "assistant", "message": {"content": [
        {"type": "thinking", "thinking": "SECRET THINKING"},
        {"type": "redacted", "data": "[REDACTED]"},
        {"type": "text", "text": "[REDACTED]"},
        {"type": "text", "text": text},
        {"type": "tool_use", "id": "t1", "name": "Shell", "input": {"command": "TOOL INPUT"}},
    ]}})
    .to_string()
}

const TURN_ENDED: &str = r#"{"type":"turn_ended","status":"success"}"#;

/// Write session `id`'s transcript below `config` (nested layout).
fn transcript(config: &Path, id: &str, lines: &[String]) -> PathBuf {
    let path = config
        .join("projects/home-dev-proj")
        .join("agent-transcripts")
        .join(id)
        .join(format!("{id}.jsonl"));
    write(&path, lines);
    path
}

fn write(path: &Path, lines: &[String]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut text = lines.join("\n");
    if !lines.is_empty() {
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}

/// Session `id`'s chat folder below `config`, as `chats/<md5>/<id>/`.
fn chat(config: &Path, id: &str) -> PathBuf {
    let dir = config
        .join("chats/0f8f7cbd8c2b0a1bb1a1f6e0f6c7b7d2")
        .join(id);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A `store.db` as cursor-agent creates it: WAL mode, a `blobs` table and
/// a `meta` table whose row `0` is hex-encoded JSON.
fn store_db(dir: &Path, meta: serde_json::Value) {
    let conn = rusqlite::Connection::open(dir.join("store.db")).unwrap();
    conn.execute_batch(
        "PRAGMA journal_mode=wal;
         CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB);
         CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);",
    )
    .unwrap();
    conn.execute(
        "INSERT INTO blobs (id, data) VALUES (?1, ?2)",
        rusqlite::params!["5f1d", b"\n \x01\x02".to_vec()],
    )
    .unwrap();
    let hex: String = meta
        .to_string()
        .bytes()
        .map(|b| format!("{b:02x}"))
        .collect();
    conn.execute("INSERT INTO meta (key, value) VALUES ('0', ?1)", [hex])
        .unwrap();
}

fn list(config: &Path, path: &Path) -> ScanEvent {
    Cursor.list_file(&Caches::default(), &Arc::from(config), path)
}

fn record(config: &Path, path: &Path) -> SessionRecord {
    match list(config, path) {
        ScanEvent::Record(r) => r,
        other => panic!("not listed: {other:?}"),
    }
}

fn title(record: &SessionRecord) -> Option<String> {
    read_title(&Caches::default(), record).unwrap()
}

#[test]
fn typed_text_is_inside_user_query_and_tools_and_reasoning_are_not_said() {
    let dir = tempfile::tempdir().unwrap();
    let path = transcript(
        dir.path(),
        ID,
        &[
            prompt("hello — café ☕"),
            reply("Hello! How can I help?"),
            TURN_ENDED.to_owned(),
            json!({"role": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "TOOL OUTPUT"}]}]}}).to_string(),
            json!({"role": "user", "message": {"content": "<user_query>as a string</user_query>\n<attached_files>FILE TEXT</attached_files>"}}).to_string(),
            json!({"role": "user", "message": {"content": [{"type": "text", "text": "<system_reminder>INJECTED</system_reminder>"}]}}).to_string(),
            json!({"role": "assistant", "message": {"content": [{"type": "tool_use", "name": "Read", "input": {}}]}}).to_string(),
        ],
    );
    let r = record(dir.path(), &path);
    assert_eq!(r.id, ID);
    assert_eq!((r.cwd.as_deref(), r.created_at.as_str()), (None, ""));
    assert_eq!(
        texts(&read_surface(&r).unwrap()),
        [
            (1, "user", "hello — café ☕".into()),
            (2, "assistant", "Hello! How can I help?".into()),
            (5, "user", "as a string".into()),
        ]
    );
    assert_eq!(title(&r).as_deref(), Some("hello — café ☕"));
}

#[test]
fn one_session_per_transcript_and_sub_agents_are_part_of_their_parent() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path();
    let nested = transcript(config, ID, &[prompt("nested")]);
    assert_eq!(record(config, &nested).id, ID);
    // Older builds wrote the transcript flat in agent-transcripts/.
    let flat_id = "0f5e2c1a-1111-4222-8333-944455556666";
    let flat = config.join(format!(
        "projects/home-dev-proj/agent-transcripts/{flat_id}.jsonl"
    ));
    write(&flat, &[prompt("flat")]);
    assert_eq!(record(config, &flat).id, flat_id);
    let sub = nested.with_file_name("subagents").join("task-1.jsonl");
    write(&sub, &[prompt("SUBAGENT TASK")]);
    match list(config, &sub) {
        ScanEvent::Skipped { reason, .. } => assert_eq!(reason, SUBAGENT),
        other => panic!("{other:?}"),
    }
    assert!(crate::kinds::routine_skip(SUBAGENT).is_some());
    // A sub-agent's chat says so in its meta.json.
    let child = "c0c0c0c0-1111-4222-8333-944455556666";
    let child_path = transcript(config, child, &[prompt("child")]);
    std::fs::write(
        chat(config, child).join("meta.json"),
        json!({"schemaVersion": 1, "createdAtMs": 1, "hasConversation": true, "isSubagent": true})
            .to_string(),
    )
    .unwrap();
    assert!(
        matches!(list(config, &child_path), ScanEvent::Skipped { reason, .. } if reason == SUBAGENT)
    );
    // Other JSONL files are not transcripts.
    let stray = config.join("projects/home-dev-proj/notes.jsonl");
    write(&stray, &[prompt("x")]);
    assert!(matches!(list(config, &stray), ScanEvent::Skipped { .. }));
}

#[test]
fn meta_json_gives_the_directory_the_times_and_the_title() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path();
    let path = transcript(config, ID, &[prompt("hello"), reply("Hi")]);
    std::fs::write(
        chat(config, ID).join("meta.json"),
        json!({"schemaVersion": 1, "createdAtMs": 1784631439335_i64, "hasConversation": true, "title": "  Hello  There ", "updatedAtMs": 1784631456880_i64, "cwd": CWD}).to_string(),
    )
    .unwrap();
    let r = record(config, &path);
    assert_eq!(r.cwd.as_deref(), Some(CWD));
    assert_eq!(r.created_at, format_rfc3339_utc(1784631439));
    assert_eq!(title(&r).as_deref(), Some("Hello There"));
    assert_eq!(
        Cursor.last_activity(&Caches::default(), &r),
        Some(1784631456)
    );
    let chat_dir = chat(config, ID);
    assert_eq!(
        Cursor.title_inputs(&Caches::default(), &r),
        Some(TitleInputs::Files(vec![
            chat_dir.join("meta.json"),
            chat_dir.join("store.db")
        ]))
    );
}

#[test]
fn the_store_db_name_titles_a_session_unless_it_is_the_placeholder() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path();
    let path = transcript(config, ID, &[prompt("first prompt\nmore"), reply("ok")]);
    let folder = chat(config, ID);
    store_db(
        &folder,
        json!({"agentId": ID, "latestRootBlobId": "5f1d", "name": "New Agent", "mode": "default", "createdAt": 1781256145540_i64, "lastUsedModel": "claude-fable-5"}),
    );
    let before: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    let r = record(config, &path);
    assert_eq!(title(&r).as_deref(), Some("first prompt"));
    assert_eq!(r.created_at, format_rfc3339_utc(1781256145));
    // Read without creating anything beside the database.
    let after: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(before, after);
    std::fs::remove_file(folder.join("store.db")).unwrap();
    store_db(
        &folder,
        json!({"agentId": ID, "latestRootBlobId": "5f1d", "name": "Backup chat ✓", "mode": "default", "createdAt": "1781256145540"}),
    );
    assert_eq!(title(&r).as_deref(), Some("Backup chat ✓"));
    // A meta.json without a title leaves the name to store.db.
    std::fs::write(
        folder.join("meta.json"),
        json!({"schemaVersion": 1, "createdAtMs": 1781256145540_i64, "hasConversation": true, "title": " ", "cwd": CWD}).to_string(),
    )
    .unwrap();
    assert_eq!(title(&r).as_deref(), Some("Backup chat ✓"));
    std::fs::remove_file(folder.join("meta.json")).unwrap();
    // A database that is not the CLI's gives nothing.
    std::fs::write(folder.join("store.db"), b"not sqlite").unwrap();
    assert_eq!(title(&r).as_deref(), Some("first prompt"));
}

#[test]
fn a_torn_last_line_is_ignored_and_an_empty_transcript_is_no_session() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path();
    let path = transcript(config, ID, &[prompt("hello"), reply("hi")]);
    let mut torn = std::fs::read_to_string(&path).unwrap();
    torn.push_str(r#"{"role":"assistant","message":{"content":[{"type":"text","text":"half wri"#);
    std::fs::write(&path, torn).unwrap();
    let surface = read_surface(&record(config, &path)).unwrap();
    assert_eq!(
        texts(&surface),
        [(1, "user", "hello".into()), (2, "assistant", "hi".into())]
    );
    assert_eq!(surface.captured_through_seq, 2);
    let empty = transcript(config, "e0e0e0e0-1111-4222-8333-944455556666", &[]);
    assert!(
        matches!(list(config, &empty), ScanEvent::Skipped { reason, .. } if reason == "no Cursor transcript line")
    );
}

#[test]
fn the_root_is_the_configuration_directory() {
    let env = |name: &str| (name == "CURSOR_CONFIG_DIR").then(|| "/cfg".to_owned());
    assert_eq!(
        Cursor.default_roots(&env, Some(Path::new("/h"))),
        [PathBuf::from("/cfg")]
    );
    assert_eq!(
        Cursor.default_roots(&|_| None, Some(Path::new("/h"))),
        [PathBuf::from("/h/.cursor")]
    );
    // Naming the projects folder finds the chats beside it.
    let path = Path::new("/c/projects/p/agent-transcripts/x/x.jsonl");
    assert_eq!(
        place(path),
        Place::Session {
            id: "x".into(),
            config: Some(Path::new("/c"))
        }
    );
}
