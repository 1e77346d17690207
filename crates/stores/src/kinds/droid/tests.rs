use super::*;
use crate::kinds::foreign::testing::texts;

/// A transcript in the shapes droid 0.225.2 writes.
fn write(dir: &Path, name: &str, lines: &[serde_json::Value]) -> PathBuf {
    let path = dir.join("-home-me-alpha").join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

fn start(id: &str, title: &str) -> serde_json::Value {
    serde_json::json!({"type": "session_start", "id": id, "title": title, "owner": "unknown",
        "version": 2, "cwd": "/home/me/alpha", "hostId": "h", "isSessionTitleManuallySet": false})
}

fn context(turn: &str, at: &str) -> serde_json::Value {
    serde_json::json!({"type": "message", "id": format!("context-{turn}"), "timestamp": at,
        "message": {"role": "user", "content": [{"type": "text",
            "text": "<system-reminder>skills… % pwd /home/me/alpha</system-reminder>"}]}})
}

fn typed(turn: &str, at: &str, text: &str) -> serde_json::Value {
    serde_json::json!({"type": "message", "id": turn, "parentId": format!("context-{turn}"),
        "timestamp": at, "message": {"role": "user",
            "content": [{"type": "text", "text": text}], "interactionMode": "auto"}})
}

fn reply(id: &str, parent: &str, at: &str, text: &str) -> serde_json::Value {
    serde_json::json!({"type": "message", "id": id, "parentId": parent, "timestamp": at,
        "message": {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "THINKING"},
            {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "TOOL-IN"}},
            {"type": "text", "text": text}],
        "openaiMessageId": "chatcmpl-mock-0092", "modelId": "custom:Mock-Model-0"}})
}

fn tool_result(at: &str) -> serde_json::Value {
    serde_json::json!({"type": "message", "id": "r1", "timestamp": at, "message": {"role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "TOOL-OUT"}]}})
}

fn hook_run(turn: &str, at: &str) -> serde_json::Value {
    serde_json::json!({"type": "message", "id": "h1", "timestamp": at, "message": {"role": "user",
        "content": [], "visibility": "user_only", "hookEventName": "UserPromptSubmit",
        "hookCommands": ["session-ref hook droid"], "hookStatus": "completed",
        "hookResults": [{"exitCode": 0, "stdout": "{\"additionalContext\":\"HOOK\"}", "stderr": ""}],
        "hookParentId": turn}})
}

fn record(root: &Path, path: &Path) -> SessionRecord {
    match Droid.list_file(&Caches::default(), &Arc::from(root), path) {
        ScanEvent::Record(r) => r,
        other => panic!("{other:?}"),
    }
}

fn said(record: &SessionRecord) -> Vec<(String, String)> {
    let surface = Droid.read_surface(&Caches::default(), record).unwrap();
    texts(&surface)
        .into_iter()
        .map(|(_, who, text)| (who.to_owned(), text))
        .collect()
}

#[test]
fn a_session_is_listed_with_its_id_cwd_and_first_time_and_injected_text_is_hidden() {
    let dir = tempfile::tempdir().unwrap();
    let id = "007f9cdf-1f2e-4b7a-9c1d-0a1b2c3d4e5f";
    let path = write(
        dir.path(),
        &format!("{id}.jsonl"),
        &[
            start(id, "Explain what calc.py does..."),
            context("u1", "2026-12-02T05:27:12.300Z"),
            typed(
                "u1",
                "2026-12-02T05:27:12.381Z",
                "Explain what calc.py does",
            ),
            hook_run("u1", "2026-12-02T05:27:12.390Z"),
            reply(
                "a1",
                "u1",
                "2026-12-02T05:27:13.000Z",
                "It adds two numbers",
            ),
            tool_result("2026-12-02T05:27:13.500Z"),
            serde_json::json!({"type": "agent_turn_outcome", "turnId": "u1",
                "reason": "completed", "resultKind": "text"}),
        ],
    );
    let record = record(dir.path(), &path);
    assert_eq!(record.id, id);
    assert_eq!(record.cwd.as_deref(), Some("/home/me/alpha"));
    assert_eq!(
        record.created,
        Instant::parse_rfc3339("2026-12-02T05:27:12.300Z")
    );
    assert_eq!(
        said(&record),
        [
            ("user".to_owned(), "Explain what calc.py does".to_owned()),
            ("assistant".to_owned(), "It adds two numbers".to_owned())
        ]
    );
    assert_eq!(
        Droid
            .read_title(&Caches::default(), &record)
            .unwrap()
            .as_deref(),
        Some("Explain what calc.py does...")
    );
    let last = Instant::parse_rfc3339("2026-12-02T05:27:13.500Z")
        .unwrap()
        .unix_seconds();
    assert_eq!(Droid.last_activity(&Caches::default(), &record), Some(last));
}

#[test]
fn without_a_title_the_first_typed_prompt_is_one_and_a_header_alone_is_no_session() {
    let dir = tempfile::tempdir().unwrap();
    let untitled = write(
        dir.path(),
        "11111111-1111-4111-8111-111111111111.jsonl",
        &[
            start("11111111-1111-4111-8111-111111111111", " "),
            context("u1", "2026-12-02T05:27:12.300Z"),
            typed(
                "u1",
                "2026-12-02T05:27:12.381Z",
                "Fix the flaky test\nin ci",
            ),
        ],
    );
    let record = record(dir.path(), &untitled);
    assert_eq!(
        Droid
            .read_title(&Caches::default(), &record)
            .unwrap()
            .as_deref(),
        Some("Fix the flaky test")
    );
    let header = write(
        dir.path(),
        "22222222-2222-4222-8222-222222222222.jsonl",
        &[start("22222222-2222-4222-8222-222222222222", "Explain")],
    );
    let event = Droid.list_file(&Caches::default(), &Arc::from(dir.path()), &header);
    assert!(
        matches!(&event, ScanEvent::Skipped { reason, .. } if reason.contains("without a message")),
        "{event:?}"
    );
    let settings = dir.path().join("x.settings.json");
    assert!(!Droid.wants(&settings));
}

#[test]
fn a_compress_session_starts_from_its_summary() {
    let dir = tempfile::tempdir().unwrap();
    let id = "33333333-3333-4333-8333-333333333333";
    let mut head = start(id, "Renamed In TUI");
    head["parent"] = "007f9cdf-1f2e-4b7a-9c1d-0a1b2c3d4e5f".into();
    let path = write(
        dir.path(),
        &format!("{id}.jsonl"),
        &[
            head,
            typed("u0", "2026-12-02T05:30:00.000Z", "EARLIER-PROMPT"),
            serde_json::json!({"type": "compaction_state", "id": "c1",
                "timestamp": "2026-12-02T05:31:00.000Z",
                "summaryText": "MOCK SUMMARY: calc work", "summaryTokens": 18}),
            context("u1", "2026-12-02T05:32:00.000Z"),
            typed("u1", "2026-12-02T05:32:00.100Z", "Carry on"),
            reply("a1", "u1", "2026-12-02T05:32:01.000Z", "Carried on"),
        ],
    );
    let record = record(dir.path(), &path);
    assert_eq!(
        said(&record),
        [
            (
                "checkpoint".to_owned(),
                "MOCK SUMMARY: calc work".to_owned()
            ),
            ("user".to_owned(), "Carry on".to_owned()),
            ("assistant".to_owned(), "Carried on".to_owned())
        ]
    );
}

#[test]
fn default_roots_follow_factory_home_override() {
    let home = Some(Path::new("/home/u"));
    let none = |_: &str| None;
    assert_eq!(
        Droid.default_roots(&none, home),
        [PathBuf::from("/home/u/.factory/sessions")]
    );
    let moved = |k: &str| (k == "FACTORY_HOME_OVERRIDE").then(|| "/h".to_owned());
    assert_eq!(
        Droid.default_roots(&moved, home),
        [PathBuf::from("/h/.factory/sessions")]
    );
}
