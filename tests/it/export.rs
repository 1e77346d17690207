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
