//! GitHub Copilot CLI sessions through the command line: default discovery
//! from `$COPILOT_HOME`, what `--verbose` says of folders that are not
//! sessions, and last activity from the events' own times rather than the
//! files' modification times (which a copy or a `git clone` resets).

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::support;

/// A copy of the fixture written by Copilot CLI 1.0.102, in a fresh
/// `COPILOT_HOME`.
fn copilot_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/copilot/session-state");
    copy_dir(&from, &home.path().join("session-state"));
    home
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn events(home: &Path, id: &str) -> PathBuf {
    home.join("session-state").join(id).join("events.jsonl")
}

fn set_mtime(path: &Path, time: SystemTime) {
    std::fs::File::options()
        .append(true)
        .open(path)
        .unwrap()
        .set_modified(time)
        .unwrap();
}

fn ids(out: &std::process::Output) -> Vec<String> {
    assert!(out.status.success(), "{}", support::stderr(out));
    support::stdout(out)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["sessionId"].as_str().unwrap().to_owned()
        })
        .collect()
}

const HELLO: &str = "a77c0862-e142-49da-9cec-f4e56da9aff7";
const NAMED: &str = "0c684258-6d5b-48b3-bbf2-50e3e96192e3";

#[test]
fn copilot_home_is_found_by_default_and_non_sessions_are_reported() {
    let home = copilot_home();
    let env = [("COPILOT_HOME", home.path().to_str().unwrap())];
    let out = support::run_env(&["candidates", "--json", "--limit", "100"], "", &env);
    let listed = ids(&out);
    assert_eq!(listed.len(), 9, "{listed:?}");
    assert!(listed.iter().any(|id| id == NAMED));
    let out = support::run_env(&["-v", "candidates", "--limit", "1"], "", &env);
    let err = support::stderr(&out);
    assert!(
        err.contains("copilot") && err.contains("9 sessions, 1 skipped, 0 unreadable"),
        "{err}"
    );
    assert!(
        err.contains(
            "db399d61-cbee-4a3b-84ac-86490e03307a: not a Copilot session: no events.jsonl"
        ),
        "{err}"
    );
}

#[test]
fn last_activity_is_the_newest_event_time_not_the_file_time() {
    let home = copilot_home();
    let root = home.path().join("session-state");
    let root = root.to_str().unwrap();
    // The fixture's sessions by their last event, newest first: a77c0862
    // (created first) and 0c684258 were resumed last, 296c80ec was
    // continued after 7cc72e90 and bf94320b had been created.
    let by_events = [
        NAMED,
        "9acbf3aa-c0f1-4383-8f8f-3f8b2b8de29a",
        HELLO,
        "bf94320b-2a71-4afd-b5ef-d1d6a4866895",
        "7cc72e90-3f38-4967-9070-b1514fd37edb",
        "296c80ec-78c0-4e18-91fa-d2d417b45d82",
        "c93df2b5-0196-45f4-8b34-a3806ad6d446",
        "74865c20-f05a-4750-8ef3-37eee8f2a519",
        "557cedec-ec6f-4ca7-b9cf-98408a1fad39",
    ];
    // File times in the opposite order, as a copy or a clone may leave.
    let now = SystemTime::now();
    for (n, id) in by_events.iter().enumerate() {
        set_mtime(
            &events(home.path(), id),
            now - Duration::from_secs(600 - 10 * n as u64),
        );
    }
    let updated = [
        "--copilot",
        root,
        "candidates",
        "--json",
        "--sort",
        "updated",
    ];
    assert_eq!(ids(&support::run(&updated, "")), by_events);
}

#[test]
fn a_mention_of_a_copilot_session_is_resolved_by_the_hook_and_found_by_search() {
    let home = copilot_home();
    let env = [("COPILOT_HOME", home.path().to_str().unwrap())];
    let uri = support::stdout(&support::run(&["uri", "encode", HELLO], ""));
    let input = serde_json::json!({
        "session_id": "s",
        "cwd": "/tmp",
        "prompt": format!("see @[hello]({})", uri.trim()),
        "hook_event_name": "UserPromptSubmit",
        "transcript_path": null,
    });
    let out = support::run_env(&["hook", "claude"], &input.to_string(), &env);
    assert!(out.status.success(), "{}", support::stderr(&out));
    let answer: Value = serde_json::from_str(&support::stdout(&out)).unwrap();
    let context = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        context.contains("second turn: ünïcödé 日本語 ✓"),
        "{context}"
    );
    assert!(!context.contains("current_datetime"), "{context}");

    // Search covers typed prompts and replies, not reasoning.
    let out = support::run_env(&["search", "ünïcödé"], "", &env);
    assert!(
        support::stdout(&out).contains("second turn"),
        "{}",
        support::stderr(&out)
    );
    let out = support::run_env(&["search", "MOCK REASONING"], "", &env);
    assert!(
        !support::stdout(&out).contains("copilot"),
        "reasoning was found"
    );
}
