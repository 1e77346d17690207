//! `session-ref hook gemini|copilot|qwen|droid`: each agent's stdin shape in,
//! its stdout shape out (added context, or a block on a bad mention), and
//! `hook install|uninstall` for them in a scratch home.

use std::path::Path;

use serde_json::{json, Value};

use crate::support;
use crate::support::{command, hook_context, hook_input, mention, stdout, Session};

fn store(dir: &Path) {
    Session::new("alpha", "2025-01-03T00:00:00Z", Some("/w/a"))
        .title("Alpha plan")
        .user("How do we ship alpha?")
        .assistant("Ship it on Friday <b>.")
        .write(dir, "alpha.jsonl");
}

/// Run `hook AGENT` with `stdin` over `dir`'s store: (stdout, stderr).
fn hook(dir: &Path, agent: &str, stdin: &Value) -> (String, String) {
    let store = dir.to_str().unwrap();
    let out = support::run(&["--store", store, "hook", agent], &stdin.to_string());
    assert!(out.status.success());
    (stdout(&out), support::stderr(&out))
}

#[test]
fn a_cited_session_is_added_in_each_agents_shape() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path());
    for agent in ["gemini", "copilot", "qwen", "droid"] {
        let prompt = format!("Follow {} please", mention("alpha", "the plan"));
        let (out, _) = hook(dir.path(), agent, &hook_input(agent, &prompt));
        let answer: Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{agent}: {e}: {out}"));
        let context = hook_context(agent, &answer).unwrap_or_else(|| panic!("{agent}: {out}"));
        assert!(context.starts_with("## Referenced sessions"), "{agent}");
        assert!(
            context.contains("Ship it on Friday \\u003cb>."),
            "{agent}: {context}"
        );
        assert!(context.ends_with("</referenced-sessions-stats>"), "{agent}");
        match agent {
            "gemini" => assert_eq!(answer["hookSpecificOutput"].as_object().unwrap().len(), 1),
            "copilot" => assert_eq!(answer.as_object().unwrap().len(), 1),
            _ => assert_eq!(
                answer["hookSpecificOutput"]["hookEventName"],
                "UserPromptSubmit"
            ),
        }
        // Without a mention: nothing at all.
        let (quiet, _) = hook(dir.path(), agent, &hook_input(agent, "no mention here"));
        assert_eq!(quiet, "", "{agent}");
    }
}

#[test]
fn a_bad_mention_blocks_the_prompt_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path());
    for agent in ["gemini", "copilot", "qwen", "droid"] {
        let prompt = format!("see {}", mention("no-such-session", "the plan"));
        let (out, err) = hook(dir.path(), agent, &hook_input(agent, &prompt));
        let answer: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(answer["decision"], "block", "{agent}");
        if agent == "droid" {
            // What stops a prompt in Droid (its UserPromptSubmit check).
            assert_eq!(answer["continue"], false, "{out}");
            assert_eq!(answer["stopReason"], answer["reason"]);
        }
        let reason = answer["reason"].as_str().unwrap();
        assert!(
            reason.contains("SESSION_REFERENCE_READ_FAILED") && reason.contains("no-such-session")
        );
        assert!(err.contains("no-such-session"));
        // The prompt is kept: the notice names the draft.
        assert!(
            answer["systemMessage"]
                .as_str()
                .unwrap()
                .contains("kept the prompt"),
            "{agent}: {out}"
        );
    }
    // Another agent's input shape is refused, not misread.
    let (out, _) = hook(dir.path(), "copilot", &hook_input("gemini", "hi"));
    assert_eq!(
        serde_json::from_str::<Value>(&out).unwrap()["decision"],
        "block"
    );
}

#[test]
fn hook_install_writes_each_agents_settings_and_uninstall_undoes_it() {
    let exe = support::bin().to_string_lossy().into_owned();
    for (agent, file, event) in [
        ("gemini", ".gemini/settings.json", "BeforeAgent"),
        ("qwen", ".qwen/settings.json", "UserPromptSubmit"),
        ("droid", ".factory/settings.json", "UserPromptSubmit"),
        (
            "copilot",
            ".copilot/hooks/session-ref.json",
            "userPromptSubmitted",
        ),
    ] {
        let home = tempfile::tempdir().unwrap();
        let path = home.path().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let keep = agent != "copilot";
        if keep {
            std::fs::write(&path, "{\"ui\": {\"theme\": \"dark\"}}\n").unwrap();
        }
        let run = |args: &[&str]| {
            let out = command(home.path()).args(args).output().unwrap();
            assert!(out.status.success(), "{agent}: {}", support::stderr(&out));
            stdout(&out)
        };
        run(&["hook", "install", agent]);
        let value: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let command_key = if agent == "copilot" {
            "bash"
        } else {
            "command"
        };
        let handler = if agent == "copilot" {
            assert_eq!(value["version"], 1);
            value["hooks"][event][0].clone()
        } else {
            assert_eq!(value["ui"]["theme"], "dark");
            value["hooks"][event][0]["hooks"][0].clone()
        };
        assert_eq!(handler["type"], "command", "{agent}: {value}");
        assert_eq!(handler[command_key], format!("{exe} hook {agent}"));
        assert!(
            run(&["hook", "install", agent]).contains("left unchanged"),
            "{agent}"
        );
        run(&["hook", "uninstall", agent]);
        if keep {
            let after: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            assert_eq!(after, json!({"ui": {"theme": "dark"}}), "{agent}");
        } else {
            assert!(!path.exists());
        }
    }
}

/// Cursor's `beforeSubmitPrompt` can only let a prompt go on or stop it:
/// a good mention goes on (the snapshot comes through MCP), a bad one
/// stops with the reason for the person and the prompt kept.
#[test]
fn cursor_lets_a_good_mention_through_and_stops_a_bad_one() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path());
    let good = format!("Follow {} please", mention("alpha", "the plan"));
    let (out, _) = hook(dir.path(), "cursor", &hook_input("cursor", &good));
    assert_eq!(
        serde_json::from_str::<Value>(&out).unwrap(),
        json!({"continue": true})
    );
    let (quiet, _) = hook(dir.path(), "cursor", &hook_input("cursor", "no mention"));
    assert_eq!(quiet, "");
    let bad = format!("see {}", mention("no-such-session", "the plan"));
    let (out, err) = hook(dir.path(), "cursor", &hook_input("cursor", &bad));
    let answer: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(answer["continue"], false, "{out}");
    let message = answer["user_message"].as_str().unwrap();
    assert!(
        message.contains("SESSION_REFERENCE_READ_FAILED") && message.contains("no-such-session")
    );
    assert!(message.contains("kept the prompt"), "{message}");
    assert!(err.contains("no-such-session"));
    // Another agent's input shape is refused, not misread.
    let (out, _) = hook(dir.path(), "cursor", &hook_input("gemini", "hi"));
    assert_eq!(
        serde_json::from_str::<Value>(&out).unwrap()["continue"],
        false
    );
}

/// `hook install cursor` appends the handler itself to `hooks.json`'s
/// `beforeSubmitPrompt`, keeping the user's other hooks and comments byte
/// for byte; uninstall gives the file back as it was.
#[test]
fn cursor_hook_install_keeps_other_hooks_and_uninstall_restores_the_file() {
    let exe = support::bin().to_string_lossy().into_owned();
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join(".cursor/hooks.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let original = "{\n  // mine\n  \"version\": 1,\n  \"hooks\": {\n    \"beforeSubmitPrompt\": [\n      { \"command\": \"./audit.sh\" }\n    ],\n    \"stop\": [{ \"command\": \"./done.sh\" }]\n  }\n}\n";
    std::fs::write(&path, original).unwrap();
    let run = |args: &[&str]| {
        let out = command(home.path()).args(args).output().unwrap();
        assert!(out.status.success(), "{}", support::stderr(&out));
        stdout(&out)
    };
    run(&["hook", "install", "cursor"]);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.starts_with("{\n  // mine\n  \"version\": 1,"),
        "{text}"
    );
    let value: Value = serde_json::from_str(&strip_comment(&text)).unwrap();
    let handlers = value["hooks"]["beforeSubmitPrompt"].as_array().unwrap();
    assert_eq!(handlers.len(), 2, "{text}");
    assert_eq!(handlers[0], json!({"command": "./audit.sh"}));
    assert_eq!(
        handlers[1],
        json!({"type": "command", "command": format!("{exe} hook cursor")})
    );
    assert!(run(&["hook", "install", "cursor"]).contains("left unchanged"));
    run(&["hook", "uninstall", "cursor"]);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), original);
    // A file install creates starts with Cursor's version.
    let fresh = tempfile::tempdir().unwrap();
    let out = command(fresh.path())
        .args(["hook", "install", "cursor"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", support::stderr(&out));
    let value: Value = serde_json::from_str(
        &std::fs::read_to_string(fresh.path().join(".cursor/hooks.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(value["version"], 1);
    assert_eq!(value["hooks"]["beforeSubmitPrompt"][0]["type"], "command");
}

fn strip_comment(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}
