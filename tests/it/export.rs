//! `export`: the conversation a person reads, in Markdown, HTML or JSON;
//! `--snapshot` is exactly what a mention injects; `--redact` is opt-in and
//! counted; `--output` is private. Stores are written in the native shape.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::support;

/// A native store with one session `id` titled `title` holding `turns`
/// (user, assistant) pairs.
fn store(dir: &Path, id: &str, title: &str, turns: &[(&str, &str)]) -> PathBuf {
    let store = dir.join("store");
    std::fs::create_dir_all(&store).unwrap();
    let mut lines = vec![json!({"type": "session", "version": 1, "id": id,
        "cwd": "/home/dev/app", "createdAt": "2026-11-30T10:00:00Z"})];
    let mut seq = 0;
    for (i, (user, assistant)) in turns.iter().enumerate() {
        seq += 1;
        lines.push(
            json!({"seq": seq, "type": "user/message", "data": {"id": format!("u{i}"),
            "source": {"kind": "user"}, "content": [{"type": "text", "text": user}]}}),
        );
        seq += 1;
        lines.push(
            json!({"seq": seq, "type": "assistant/message", "data": {"message": {
            "id": format!("a{i}"), "content": [{"type": "text", "text": assistant}]}}}),
        );
    }
    seq += 1;
    lines.push(json!({"seq": seq, "type": "session/title", "data": {"title": title}}));
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(store.join(format!("{id}.jsonl")), text).unwrap();
    store
}

fn run_ok(args: &[&str]) -> (String, String) {
    let out = support::run(args, "");
    assert!(out.status.success(), "{args:?}: {}", support::stderr(&out));
    (support::stdout(&out), support::stderr(&out))
}

#[test]
fn json_export_is_the_conversation_a_snapshot_carries() {
    let dir = tempfile::tempdir().unwrap();
    let store = store(
        dir.path(),
        "s-export-1",
        "Retry budget",
        &[
            ("How many retries?", "Three, with jitter."),
            ("And backoff?", "Exponential, capped at 30 s."),
        ],
    );
    let root = store.to_str().unwrap();
    let (exported, _) = run_ok(&["--store", root, "export", "s-export-1", "--format", "json"]);
    let exported: Value = serde_json::from_str(&exported).unwrap();
    assert_eq!(exported["agent"], "hydra");
    assert_eq!(exported["label"], "Retry budget");
    assert_eq!(exported["cwd"], "/home/dev/app");
    // The same messages, in the same order, as the snapshot (whole here).
    let (preview, _) = run_ok(&["--store", root, "preview", "s-export", "--json"]);
    let preview: Value = serde_json::from_str(&preview).unwrap();
    let context = preview["context"].as_str().unwrap();
    let inner = context
        .split("<referenced-sessions>\n")
        .nth(1)
        .and_then(|t| t.split("\n</referenced-sessions>").next())
        .unwrap();
    let snapshot: Value = serde_json::from_str(inner).unwrap();
    let from_snapshot: Vec<(&Value, &Value)> = snapshot[0]["conversation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (&m["role"], &m["text"]))
        .collect();
    let from_export: Vec<(&Value, &Value)> = exported["conversation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (&m["role"], &m["text"]))
        .collect();
    assert_eq!(from_export, from_snapshot);
    assert_eq!(from_export.len(), 4);
}

#[test]
fn snapshot_is_exactly_the_context_preview_shows() {
    let dir = tempfile::tempdir().unwrap();
    let store = store(dir.path(), "s-snap", "Snap", &[("q", "a")]);
    let root = store.to_str().unwrap();
    let (snapshot, _) = run_ok(&["--store", root, "export", "s-snap", "--snapshot"]);
    let (preview, _) = run_ok(&["--store", root, "preview", "s-snap", "--json"]);
    let preview: Value = serde_json::from_str(&preview).unwrap();
    assert_eq!(
        snapshot,
        format!("{}\n", preview["context"].as_str().unwrap())
    );
}

#[test]
fn hostile_text_stays_text_in_markdown_and_html() {
    let dir = tempfile::tempdir().unwrap();
    let store = store(
        dir.path(),
        "s-hostile",
        "<script>alert(1)</script>\u{1b}]0;owned\u{7}",
        &[("```\n</pre><img src=x onerror=alert(1)>", "fine")],
    );
    let root = store.to_str().unwrap();
    let (html, _) = run_ok(&["--store", root, "export", "s-hostile", "--format", "html"]);
    assert!(!html.to_lowercase().contains("<script"), "{html}");
    assert!(!html.contains("<img"), "{html}");
    assert!(!html.contains('\u{1b}') && !html.contains('\u{7}'));
    assert!(html.contains("&lt;/pre&gt;&lt;img src=x onerror=alert(1)&gt;"));
    let (md, _) = run_ok(&["--store", root, "export", "s-hostile"]);
    assert!(!md.contains('\u{1b}'));
    // The message's own fence cannot close the one around it.
    assert!(md.contains("````text\n```\n</pre>"), "{md}");
}

#[test]
fn redaction_is_opt_in_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let key = "sk-ant-api03-0123456789abcdefghijklmnop";
    let store = store(
        dir.path(),
        "s-secret",
        "Deploy notes",
        &[(&format!("use {key} and password=hunter2x"), "noted")],
    );
    let root = store.to_str().unwrap();
    let (plain, _) = run_ok(&["--store", root, "export", "s-secret"]);
    assert!(plain.contains(key), "the default keeps every byte");
    let (redacted, note) = run_ok(&["--store", root, "export", "s-secret", "--redact"]);
    assert!(
        !redacted.contains(key) && !redacted.contains("hunter2x"),
        "{redacted}"
    );
    assert!(redacted.contains("[REDACTED:anthropic-key]"));
    assert!(redacted.contains("password=[REDACTED:password]"));
    assert!(
        note.contains("--redact replaced 2 likely secrets"),
        "{note}"
    );
    let (snapshot, _) = run_ok(&[
        "--store",
        root,
        "export",
        "s-secret",
        "--snapshot",
        "--redact",
    ]);
    assert!(!snapshot.contains(key));
}

#[test]
fn output_is_private_and_written_through_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let store = store(dir.path(), "s-out", "Out", &[("q", "a")]);
    let root = store.to_str().unwrap();
    let target = dir.path().join("kept.md");
    std::fs::write(&target, "old").unwrap();
    let link = dir.path().join("link.md");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let (stdout, _) = run_ok(&[
        "--store",
        root,
        "export",
        "s-out",
        "--output",
        link.to_str().unwrap(),
    ]);
    assert_eq!(stdout, "");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let written = std::fs::read_to_string(&target).unwrap();
    assert!(written.starts_with("# `Out`"), "{written}");
    let mode = std::fs::metadata(&target).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

#[test]
fn an_unknown_session_is_an_error_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = store(dir.path(), "s-known", "Known", &[("q", "a")]);
    let file = dir.path().join("never.md");
    let out = support::run(
        &[
            "--store",
            store.to_str().unwrap(),
            "export",
            "nope-nope",
            "--output",
            file.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(support::stdout(&out), "");
    // The same error, by the same session-argument rule, as `preview`.
    let preview = support::run(
        &["--store", store.to_str().unwrap(), "preview", "nope-nope"],
        "",
    );
    assert!(support::stderr(&out).contains("SESSION_REFERENCE_"));
    assert_eq!(support::stderr(&out), support::stderr(&preview));
    assert!(!file.exists());
}

#[test]
fn prepare_and_preview_redact_only_when_asked_and_stay_json() {
    let dir = tempfile::tempdir().unwrap();
    let key = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
    let store = store(
        dir.path(),
        "s-leak",
        "Leak",
        &[(&format!("token {key}"), "stored")],
    );
    let root = store.to_str().unwrap();
    let mention = support::mention("s-leak", "Leak");
    let text = format!("see {mention}");
    let (plain, _) = run_ok(&["--store", root, "prepare", &text]);
    assert!(plain.contains(key), "the default is byte-exact");
    let (jsonl, note) = run_ok(&[
        "--store", root, "prepare", "--format", "jsonl", "--redact", &text,
    ]);
    assert!(!jsonl.contains(key) && jsonl.contains("[REDACTED:github-token]"));
    assert!(note.contains("--redact replaced 1 likely secret"), "{note}");
    for line in jsonl.lines() {
        serde_json::from_str::<Value>(line).expect("each line is still JSON");
    }
    let (preview, _) = run_ok(&["--store", root, "preview", "s-leak", "--json", "--redact"]);
    let preview: Value = serde_json::from_str(&preview).expect("still JSON");
    assert!(!preview["context"].as_str().unwrap().contains(key));
}

/// A fixture folder of the repository.
fn fixture(path: &str) -> String {
    format!("{}/tests/fixtures/{path}", env!("CARGO_MANIFEST_DIR"))
}

/// The `(part, name, text)` of each tool message of a JSON export, and
/// the texts of its other messages.
fn tools_and_texts(exported: &str) -> (Vec<(String, String, String)>, Vec<String>) {
    let value: Value = serde_json::from_str(exported).unwrap();
    let mut tools = Vec::new();
    let mut texts = Vec::new();
    for message in value["conversation"].as_array().unwrap() {
        let text = message["text"].as_str().unwrap().to_owned();
        match message.get("tool") {
            Some(tool) => tools.push((
                tool["part"].as_str().unwrap().to_owned(),
                tool["name"].as_str().unwrap_or("").to_owned(),
                text,
            )),
            None => texts.push(text),
        }
    }
    (tools, texts)
}

#[test]
fn tools_are_left_out_unless_asked_and_then_sit_among_the_messages() {
    let claude = fixture("claude/projects");
    let id = "a1b2c3d4-0000-4000-8000-000000000001";
    let base = ["--claude", &claude, "export", id, "--format", "json"];
    let (plain, _) = run_ok(&base);
    assert!(!plain.contains("\"tool\""), "{plain}");
    let (with_tools, _) = run_ok(&[&base[..], &["--tools"]].concat());
    let (tools, texts) = tools_and_texts(&with_tools);
    let (_, plain_texts) = tools_and_texts(&plain);
    assert_eq!(texts, plain_texts, "the messages are the same, in order");
    assert_eq!(tools[0].0, "call");
    assert_eq!(tools[0].1, "Task");
    assert!(tools[0].2.contains("Find every caller"), "{tools:?}");
    // The result is named after the call it answers (by tool_use_id).
    assert_eq!(
        tools[1],
        (
            "result".to_owned(),
            "Task".to_owned(),
            "Two callers: CheckoutController and InvoiceJob.".to_owned()
        )
    );
    // In place: after the assistant's first words, before its answer.
    let value: Value = serde_json::from_str(&with_tools).unwrap();
    let order: Vec<&str> = value["conversation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            m["tool"]["part"]
                .as_str()
                .unwrap_or(m["role"].as_str().unwrap())
        })
        .collect();
    assert_eq!(
        &order[..5],
        ["user", "assistant", "call", "result", "assistant"]
    );
    let (md, _) = run_ok(&["--claude", &claude, "export", id, "--tools"]);
    assert!(md.contains("\n## Tool call `Task`\n"), "{md}");
    assert!(md.contains("\n## Tool result `Task`\n"), "{md}");

    let codex = fixture("codex/sessions");
    let id = "019b8000-0000-7000-8000-000000000001";
    let (exported, _) = run_ok(&[
        "--codex", &codex, "export", id, "--format", "json", "--tools",
    ]);
    let (tools, _) = tools_and_texts(&exported);
    assert_eq!(tools.len(), 2, "{tools:?}");
    assert_eq!(
        (tools[0].0.as_str(), tools[0].1.as_str()),
        ("call", "shell")
    );
    assert!(tools[0].2.contains(r#""rg","fn login""#), "{tools:?}");
    assert_eq!(
        (tools[1].0.as_str(), tools[1].1.as_str()),
        ("result", "shell")
    );
    assert!(tools[1].2.contains("src/auth.rs:12"), "{tools:?}");
}

/// A native session whose tool output is long and hostile, with a secret
/// in it, and whose first tool use a compaction shadowed.
fn native_tools_store(dir: &Path, output: &str) -> PathBuf {
    let store = dir.join("tools-store");
    std::fs::create_dir_all(&store).unwrap();
    let lines = [
        json!({"type": "session", "version": 1, "id": "s-tools", "cwd": "/w",
            "createdAt": "2026-11-30T10:00:00Z"}),
        json!({"seq": 1, "type": "assistant/message", "data": {"message": {"id": "a0",
            "content": [{"type": "tool-call", "id": "t0", "name": "old", "input": {}}]}}}),
        json!({"seq": 2, "type": "tool/result", "data": {"toolCallId": "t0",
            "content": [{"type": "text", "text": "shadowed output"}]}}),
        json!({"seq": 3, "type": "session/compact", "data": {"throughSeq": 2}}),
        json!({"seq": 4, "type": "user/message", "data": {"id": "u1",
            "source": {"kind": "user"}, "content": [{"type": "text", "text": "read it"}]}}),
        json!({"seq": 5, "type": "assistant/message", "data": {"message": {"id": "a1",
            "content": [{"type": "text", "text": "Reading."},
                {"type": "tool-call", "id": "t1", "name": "read</h2><script>", "input": {"path": "notes.txt"}}]}}}),
        json!({"seq": 6, "type": "tool/result", "data": {"toolCallId": "t1",
            "content": [{"type": "text", "text": output}]}}),
        json!({"seq": 7, "type": "assistant/message", "data": {"message": {"id": "a2",
            "content": [{"type": "text", "text": "Done."}]}}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(store.join("s-tools.jsonl"), text).unwrap();
    store
}

#[test]
fn tool_output_is_cut_escaped_and_redacted() {
    let dir = tempfile::tempdir().unwrap();
    let key = "sk-ant-api03-0123456789abcdefghijklmnop";
    let output = format!(
        "<img src=x onerror=alert(1)> {key}\n\u{1b}]0;title\u{7}{}",
        "x".repeat(20_000)
    );
    let store = native_tools_store(dir.path(), &output);
    let root = store.to_str().unwrap();
    let (exported, _) = run_ok(&[
        "--store", root, "export", "s-tools", "--format", "json", "--tools",
    ]);
    let (tools, texts) = tools_and_texts(&exported);
    assert_eq!(texts, ["read it", "Reading.", "Done."]);
    assert_eq!(tools.len(), 2, "the compacted tool use is gone: {tools:?}");
    assert_eq!(tools[1].1, "read</h2><script>", "named after its call");
    let cut = output.len() - 8 * 1024;
    assert!(
        tools[1].2.ends_with(&format!("\n\u{2026} {cut} bytes cut")),
        "{}",
        &tools[1].2[tools[1].2.len() - 40..]
    );
    assert!(tools[1].2.len() < 8 * 1024 + 40);
    let value: Value = serde_json::from_str(&exported).unwrap();
    assert_eq!(value["conversation"][3]["tool"]["cutBytes"], cut);

    let (html, _) = run_ok(&[
        "--store", root, "export", "s-tools", "--format", "html", "--tools",
    ]);
    assert!(
        !html.contains("<img") && !html.contains("<script"),
        "{html}"
    );
    assert!(!html.contains('\u{1b}') && !html.contains('\u{7}'));
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"));
    assert!(html.contains("<h2>Tool result <code>read&lt;/h2&gt;&lt;script&gt;</code></h2>"));

    let (redacted, note) = run_ok(&["--store", root, "export", "s-tools", "--tools", "--redact"]);
    assert!(!redacted.contains(key) && redacted.contains("[REDACTED:anthropic-key]"));
    assert!(note.contains("replaced 1 likely secret"), "{note}");
    // Without --tools the tool output is not read at all.
    let (plain, _) = run_ok(&["--store", root, "export", "s-tools"]);
    assert!(
        !plain.contains("onerror") && !plain.contains("Tool"),
        "{plain}"
    );
}

#[test]
fn kilo_amp_goose_and_crush_tool_records_export_with_tools() {
    // Kilo Code's (opencode's) `tool` parts, Amp's `tool_use` /
    // `tool_result` blocks, Goose's `toolRequest` / `toolResponse` items
    // and Crush's `tool_call` / `tool_result` parts, in their agents'
    // shapes, are tool messages of `export --tools`, each result named
    // after its call.
    use crate::support::opencode::{text_part, tool_part, Db};
    let dir = tempfile::tempdir().unwrap();
    let kilo = dir.path().join("kilo");
    let db = Db::create_kilo(&kilo.join("kilo.db"));
    let k = "ses_dcad61860ffe1YWEviGMEkVBE7";
    db.session(k, None, "/w/k", "Fix the build", 1_796_188_268_447);
    db.user(k, "msg_k1", 1_796_188_269_000, &[&text_part("why red?")]);
    let ran = tool_part("bash", "cargo build", "error[E0425]: x");
    db.assistant(
        k,
        "msg_k2",
        "msg_k1",
        1_796_188_269_500,
        &[&text_part("Looking."), &ran],
    );
    drop(db);

    let threads = dir.path().join("amp/threads");
    std::fs::create_dir_all(&threads).unwrap();
    let a = "T-019b9d03-62e3-772f-9780-3e637f90eaec";
    let thread = json!({"v": 3, "id": a, "created": 1_767_865_803_494_i64, "title": "Login loop",
        "messages": [
            {"role": "user", "messageId": 0, "content": [{"type": "text", "text": "Why does login loop?"}]},
            {"role": "assistant", "messageId": 1, "content": [{"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"path": "auth.rs"}}]},
            {"role": "user", "messageId": 2, "content": [{"type": "tool_result", "toolUseID": "toolu_1",
                "run": {"status": "done", "result": "fn login() {}"}}]},
            {"role": "assistant", "messageId": 3, "content": [{"type": "text", "text": "The cookie."}]}]});
    std::fs::write(threads.join(format!("{a}.json")), thread.to_string()).unwrap();

    let goose = dir.path().join("goose");
    let db = crate::support::goose::Db::create(&goose.join("sessions/sessions.db"));
    let g = "20261201_1";
    {
        use crate::support::goose::{text, tool_request, tool_response, visible};
        db.session(g, "Disk check", "user", "/w/g", "2026-12-01 08:00:00");
        let seen = || visible(true, true);
        db.message(g, "user", 1_796_112_000, json!([text("how full?")]), seen());
        let call = json!([
            text("Checking."),
            tool_request("t1", "developer__shell", "df -h")
        ]);
        db.message(g, "assistant", 1_796_112_001, call, seen());
        let out = json!([tool_response("t1", "/dev/sda1 91%")]);
        db.message(g, "user", 1_796_112_002, out, seen());
    }
    drop(db);

    let crush = dir.path().join("crush");
    let project = dir.path().join("project/.crush");
    let db = crate::support::crush::Db::create(&project);
    crate::support::crush::register(&crush, &[(Path::new("/w/c"), &project)]);
    let c = "8d1c2b3a-4e5f-4a6b-9c7d-1e2f3a4b5c6d";
    {
        use crate::support::crush::{finish, text_part, tool_call, tool_result};
        db.session(c, None, "Tests", 1_796_188_300);
        db.message(
            c,
            "m1",
            "user",
            &[text_part("run the tests")],
            1_796_188_301,
        );
        let call = [
            text_part("Running."),
            tool_call("bash", "cargo test"),
            finish("tool_use"),
        ];
        db.message(c, "m2", "assistant", &call, 1_796_188_302);
        db.message(
            c,
            "m3",
            "tool",
            &[tool_result("ok. 3 passed")],
            1_796_188_303,
        );
    }
    drop(db);

    let cases = [
        (
            ["--kilo", kilo.to_str().unwrap()],
            k,
            "bash",
            "cargo build",
            "error[E0425]: x",
        ),
        (
            ["--amp", threads.to_str().unwrap()],
            a,
            "Read",
            "auth.rs",
            "fn login() {}",
        ),
        (
            ["--goose", goose.to_str().unwrap()],
            g,
            "developer__shell",
            "df -h",
            "/dev/sda1 91%",
        ),
        (
            ["--crush", crush.to_str().unwrap()],
            c,
            "bash",
            "cargo test",
            "ok. 3 passed",
        ),
    ];
    for (store, id, name, input, output) in cases {
        let export = [&store[..], &["export", id, "--format", "json"]].concat();
        let (plain, _) = run_ok(&export);
        assert!(!plain.contains("\"tool\""), "{plain}");
        let (with_tools, _) = run_ok(&[&export[..], &["--tools"]].concat());
        let (tools, texts) = tools_and_texts(&with_tools);
        assert_eq!(
            texts,
            tools_and_texts(&plain).1,
            "{id}: the messages are the same"
        );
        assert_eq!(tools.len(), 2, "{id}: {tools:?}");
        assert_eq!((tools[0].0.as_str(), tools[0].1.as_str()), ("call", name));
        assert!(tools[0].2.contains(input), "{tools:?}");
        assert_eq!(
            tools[1],
            ("result".to_owned(), name.to_owned(), output.to_owned())
        );
    }
}

#[test]
fn qwen_function_calls_and_responses_export_with_tools() {
    // A chat Qwen Code wrote (run offline against the mock model): its
    // `functionCall` part and the `functionResponse` that answers it.
    let qwen = fixture("qwen/projects");
    let id = "891001a8-d199-4f5a-8eeb-ddb8ee2f6bfc";
    let export = ["--qwen", &qwen, "export", id, "--format", "json"];
    let (plain, _) = run_ok(&export);
    let (with_tools, _) = run_ok(&[&export[..], &["--tools"]].concat());
    let (tools, texts) = tools_and_texts(&with_tools);
    assert_eq!(texts, tools_and_texts(&plain).1);
    assert_eq!(tools.len(), 2, "{tools:?}");
    assert_eq!(
        (tools[0].0.as_str(), tools[0].1.as_str()),
        ("call", "read_file")
    );
    assert!(tools[0].2.contains("notes.md"), "{tools:?}");
    assert_eq!(
        (tools[1].0.as_str(), tools[1].1.as_str()),
        ("result", "read_file")
    );
    assert!(tools[1].2.contains("must be absolute"), "{tools:?}");
}
