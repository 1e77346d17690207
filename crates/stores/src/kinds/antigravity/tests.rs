//! The Antigravity CLI reader's rules, on transcripts written in the shapes
//! agy 1.x writes (see the module docs for where they were found).

use super::*;
use crate::kinds::foreign::testing::texts;
use serde_json::json;

const ID: &str = "3b4a1d20-3968-4ed2-90b3-00eea3060b02";
const PARENT: &str = "11111111-2222-3333-4444-555555555555";
const CWD: &str = "/home/dev/projé ü";

/// A step as agy writes it, at second `at` of a fixed minute.
fn step(index: u64, source: &str, kind: &str, at: u32, extra: serde_json::Value) -> String {
    let mut value = json!({
        "step_index": index,
        "source": source,
        "type": kind,
        "status": "DONE",
        "created_at": format!("2026-07-19T09:46:{at:02}Z"),
    });
    if let (Some(obj), Some(extra)) = (value.as_object_mut(), extra.as_object()) {
        obj.extend(extra.clone());
    }
    value.to_string()
}

/// A prompt as the model saw it: what was typed, wrapped, and the blocks
/// the agent adds.
fn prompt(index: u64, typed: &str, at: u32) -> String {
    let content = format!(
        "<USER_REQUEST>\n{typed}\n</USER_REQUEST>\n<ADDITIONAL_METADATA>\nThe current local time is: 2026-07-19T17:46:50+08:00.\n</ADDITIONAL_METADATA>"
    );
    step(
        index,
        "USER_EXPLICIT",
        "USER_INPUT",
        at,
        json!({ "content": content }),
    )
}

/// A planner response with reasoning and a tool call beside its text.
fn reply(index: u64, text: &str, at: u32) -> String {
    step(
        index,
        "MODEL",
        "PLANNER_RESPONSE",
        at,
        json!({
            "content": text,
            "thinking": "SECRET THINKING",
            "tool_calls": [{"name": "run_command", "args": {"CommandLine": "git status", "Cwd": "/elsewhere", "toolSummary": "Git status"}}],
        }),
    )
}

/// Write `lines` as conversation `id`'s transcript `name` below `home`.
fn write(home: &Path, id: &str, name: &str, lines: &[String]) -> PathBuf {
    let logs = home.join("brain").join(id).join(".system_generated/logs");
    std::fs::create_dir_all(&logs).unwrap();
    let path = logs.join(name);
    let mut text = lines.join("\n");
    if !lines.is_empty() {
        text.push('\n');
    }
    std::fs::write(&path, text).unwrap();
    path
}

fn list(home: &Path, path: &Path) -> ScanEvent {
    Antigravity.list_file(&Caches::default(), &Arc::from(home), path)
}

fn record(home: &Path, path: &Path) -> SessionRecord {
    match list(home, path) {
        ScanEvent::Record(r) => r,
        other => panic!("not listed: {other:?}"),
    }
}

fn title(record: &SessionRecord) -> Option<String> {
    read_title(&Caches::default(), record).unwrap()
}

#[test]
fn typed_text_is_inside_user_request_and_tool_steps_are_not_conversation() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        ID,
        FULL,
        &[
            prompt(0, "查看当前分支 — café ☕", 50),
            step(1, "SYSTEM", "CONVERSATION_HISTORY", 50, json!({})),
            reply(2, "", 50),
            step(
                3,
                "MODEL",
                "RUN_COMMAND",
                52,
                json!({"content": "Created At: x\nOutput:\nTOOL OUTPUT\n"}),
            ),
            step(
                4,
                "SYSTEM",
                "CHECKPOINT",
                52,
                json!({"content": "{{ CHECKPOINT 0 }}\n **The earlier parts of this conversation have been truncated.**"}),
            ),
            reply(5, "当前分支是 `main`。", 53),
            step(
                6,
                "SYSTEM",
                "SYSTEM_MESSAGE",
                54,
                json!({"content": "The following is a <SYSTEM_MESSAGE> not actually sent by the user. TASK DONE"}),
            ),
            step(
                7,
                "USER_EXPLICIT",
                "USER_INPUT",
                55,
                json!({"content": "<USER_SETTINGS_CHANGE>\nThe user changed setting `Model Selection`.\n</USER_SETTINGS_CHANGE>\nno wrapper here"}),
            ),
            step(
                8,
                "MODEL",
                "GENERIC",
                56,
                json!({"content": "File Path: /repo/README.md\n1: FILE TEXT"}),
            ),
        ],
    );
    let r = record(dir.path(), &path);
    assert_eq!(r.id, ID);
    assert_eq!(r.created_at, "2026-07-19T09:46:50Z");
    assert_eq!(
        texts(&read_surface(&r).unwrap()),
        [
            (1, "user", "查看当前分支 — café ☕".into()),
            (6, "assistant", "当前分支是 `main`。".into()),
            (8, "user", "no wrapper here".into()),
        ]
    );
    assert_eq!(title(&r).as_deref(), Some("查看当前分支 — café ☕"));
    assert_eq!(
        last_activity(&path).unwrap(),
        Instant::parse_rfc3339("2026-07-19T09:46:56Z").map(|t| t.unix_seconds())
    );
}

#[test]
fn the_working_directory_comes_from_the_prompt_history_else_the_last_conversations() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let other = "9c2d5f4e-8a71-4b3e-a0c6-1f2e3d4c5b6a";
    let a = write(home, ID, FULL, &[prompt(0, "one", 1)]);
    let b = write(home, other, FULL, &[prompt(0, "two", 2)]);
    let history = [
        json!({"display": "one", "timestamp": 1784454410000_i64, "workspace": CWD, "conversationId": ID}),
        json!({"display": "later, elsewhere", "timestamp": 1784454420000_i64, "workspace": "/tmp", "conversationId": ID}),
        json!({"display": "no conversation", "timestamp": 1784454430000_i64, "workspace": "/x"}),
    ];
    let lines: Vec<String> = history.iter().map(|v| v.to_string()).collect();
    std::fs::write(home.join("history.jsonl"), lines.join("\n") + "\n").unwrap();
    std::fs::create_dir_all(home.join("cache")).unwrap();
    std::fs::write(
        home.join("cache/last_conversations.json"),
        json!({ "/w/two": other, "/w/one-again": ID }).to_string(),
    )
    .unwrap();
    assert_eq!(record(home, &a).cwd.as_deref(), Some(CWD));
    assert_eq!(record(home, &b).cwd.as_deref(), Some("/w/two"));
    // Nothing names it: unknown, never guessed (the tool call's `Cwd`).
    let c = write(
        home,
        PARENT,
        FULL,
        &[prompt(0, "three", 3), reply(1, "ok", 4)],
    );
    assert_eq!(record(home, &c).cwd, None);
}

#[test]
fn the_annotation_title_wins_else_the_first_typed_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let path = write(
        home,
        ID,
        FULL,
        &[
            step(
                0,
                "SYSTEM",
                "SYSTEM_MESSAGE",
                0,
                json!({"content": "injected first"}),
            ),
            prompt(1, "\n\nfirst line\nsecond line", 1),
            prompt(2, "later prompt", 2),
        ],
    );
    let r = record(home, &path);
    assert_eq!(title(&r).as_deref(), Some("first line"));
    let annotations = home.join("annotations");
    std::fs::create_dir_all(&annotations).unwrap();
    let pbtxt = annotations.join(format!("{ID}.pbtxt"));
    std::fs::write(&pbtxt, "title: \"\"\n").unwrap();
    assert_eq!(title(&r).as_deref(), Some("first line"));
    std::fs::write(
        &pbtxt,
        "last_user_view_time: {\n  seconds: 1784454410\n}\ntitle: \"Caf\\303\\251 \\\"menu\\\" fix\"\n",
    )
    .unwrap();
    assert_eq!(title(&r).as_deref(), Some("Café \"menu\" fix"));
    assert_eq!(
        Antigravity.title_inputs(&Caches::default(), &r),
        Some(TitleInputs::Files(vec![pbtxt]))
    );
}

#[test]
fn one_session_per_conversation_folder_preferring_the_full_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let lines = [prompt(0, "hello", 1), reply(1, "hi", 2)];
    let cut = write(home, ID, CUT, &lines);
    // Alone, the truncated transcript is the conversation.
    assert_eq!(record(home, &cut).path, cut);
    let full = write(home, ID, FULL, &lines);
    assert_eq!(record(home, &full).id, ID);
    match list(home, &cut) {
        ScanEvent::Skipped { reason, .. } => assert_eq!(reason, TRUNCATED_COPY),
        other => panic!("{other:?}"),
    }
    assert!(crate::kinds::routine_skip(TRUNCATED_COPY).is_some());
    // A file of that name elsewhere is not a transcript.
    let stray = home.join("scratch/transcript.jsonl");
    std::fs::create_dir_all(stray.parent().unwrap()).unwrap();
    std::fs::write(&stray, prompt(0, "x", 0) + "\n").unwrap();
    assert!(matches!(list(home, &stray), ScanEvent::Skipped { .. }));
    assert!(Antigravity.wants(&full) && !Antigravity.wants(&home.join("conversations/x.db")));
}

#[test]
fn a_sub_agent_reporting_to_its_parent_is_part_of_the_parent() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let report = |index| {
        step(
            index,
            "MODEL",
            "PLANNER_RESPONSE",
            3,
            json!({"content": "", "tool_calls": [{"name": "send_message", "args": {"Recipient": PARENT, "Message": "done"}}]}),
        )
    };
    let child = write(
        home,
        ID,
        FULL,
        &[
            step(
                0,
                "SYSTEM",
                "USER_INPUT",
                1,
                json!({"content": "<USER_REQUEST>task from the parent</USER_REQUEST>"}),
            ),
            reply(1, "working", 2),
            report(2),
        ],
    );
    match list(home, &child) {
        ScanEvent::Skipped { reason, .. } => assert_eq!(reason, SUBAGENT),
        other => panic!("{other:?}"),
    }
    assert!(crate::kinds::routine_skip(SUBAGENT).is_some());
    // A conversation the person typed in stays listed, messages or not.
    let parent = write(
        home,
        PARENT,
        FULL,
        &[prompt(0, "split the work", 1), report(1)],
    );
    assert_eq!(record(home, &parent).id, PARENT);
}

#[test]
fn a_torn_last_line_is_ignored_and_an_empty_transcript_is_no_session() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let path = write(home, ID, FULL, &[prompt(0, "hello", 1), reply(1, "hi", 2)]);
    let mut torn = std::fs::read_to_string(&path).unwrap();
    torn.push_str(
        r#"{"step_index":2,"source":"MODEL","type":"PLANNER_RESPONSE","content":"half wri"#,
    );
    std::fs::write(&path, torn).unwrap();
    let r = record(home, &path);
    let surface = read_surface(&r).unwrap();
    assert_eq!(
        texts(&surface),
        [(1, "user", "hello".into()), (2, "assistant", "hi".into())]
    );
    assert_eq!(surface.captured_through_seq, 2);
    let empty = write(home, PARENT, FULL, &[]);
    match list(home, &empty) {
        ScanEvent::Skipped { reason, .. } => assert_eq!(reason, "no Antigravity CLI step"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_default_root_is_under_the_gemini_folder() {
    assert_eq!(
        Antigravity.default_roots(&|_| Some("/ignored".into()), Some(Path::new("/h"))),
        [PathBuf::from("/h/.gemini/antigravity-cli")]
    );
    assert_eq!(
        pbtxt_string("title: 'a\\x41\\n'", "title").as_deref(),
        Some("aA\n")
    );
    assert_eq!(pbtxt_string("subtitle: \"x\"", "title"), None);
}
