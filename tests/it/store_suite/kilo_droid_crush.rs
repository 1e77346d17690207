//! The suite's fixtures of Kilo Code CLI, Factory Droid and Crush, each in
//! the shapes its agent writes (see each builder).

use std::path::Path;

use super::{write, Built, Expect, HIDDEN};
use crate::support::crush as crush_fixture;
use crate::support::opencode as opencode_fixture;

/// A Kilo Code CLI 7.7.7 data directory: `kilo.db` (rows in its `-wal`, as
/// while Kilo runs) with a `kilo run` session still titled with the
/// placeholder, its prompt quoted as `run` stores it and `-f` file parts
/// before it, and a sub-agent session; and a beta channel's `kilo-beta.db`
/// with a titled TUI session.
pub fn kilo(dir: &Path) -> Built {
    use opencode_fixture::*;
    let root = dir.join("kilo");
    let beta = Db::create_kilo(&root.join("kilo-beta.db"));
    let b = "ses_dcad61860ffe1YWEviGMEkVBE7";
    beta.session(
        b,
        None,
        "/w/docs",
        "Install guide rewrite",
        1_796_188_268_447,
    );
    beta.user(
        b,
        "msg_b1",
        1_796_188_269_000,
        &[&text_part("Rewrite the install guide")],
    );
    beta.assistant(
        b,
        "msg_b2",
        "msg_b1",
        1_796_188_270_000,
        &[
            &reasoning_part("REASONING-XYZZY"),
            &text_part("The guide now starts with npm install"),
        ],
    );
    let db = Db::create_kilo(&root.join("kilo.db"));
    let a = "ses_dcad61870ffeKiloRunQuoted1";
    db.session(
        a,
        None,
        "/w/api",
        "New session - 2026-12-02T05:11:08.447Z",
        1_796_188_300_000,
    );
    let [read, contents, file] = attached_file("/w/api/TOOL-OUTPUT-XYZZY.txt", "TOOL-OUTPUT-XYZZY");
    db.user(
        a,
        "msg_a1",
        1_796_188_301_000,
        &[
            &read,
            &contents,
            &file,
            &text_part("\"Add pagination to the orders API\""),
        ],
    );
    db.assistant(
        a,
        "msg_a2",
        "msg_a1",
        1_796_188_302_000,
        &[
            &step_start(),
            &tool_part("bash", "TOOL-INPUT-XYZZY", "TOOL-OUTPUT-XYZZY"),
            &text_part("Orders now come in pages of 50"),
        ],
    );
    let sub = "ses_dcad61880ffeKiloSubAgent01";
    db.session(
        sub,
        Some(a),
        "/w/api",
        "look around (@general subagent)",
        1_796_188_301_500,
    );
    db.user(
        sub,
        "msg_s1",
        1_796_188_301_600,
        &[&text_part("SUBAGENT-PROMPT-XYZZY")],
    );
    Built {
        sessions: vec![
            Expect {
                id: b,
                cwd: "/w/docs",
                label: "Install guide rewrite",
                file: beta.path.join(b),
                said: &[
                    "Rewrite the install guide",
                    "The guide now starts with npm install",
                ],
                hidden: HIDDEN,
            },
            Expect {
                id: a,
                cwd: "/w/api",
                label: "\"Add pagination to the orders API\"",
                file: db.path.join(a),
                said: &[
                    "\"Add pagination to the orders API\"",
                    "Orders now come in pages of 50",
                ],
                hidden: &[
                    "TOOL-INPUT-XYZZY",
                    "TOOL-OUTPUT-XYZZY",
                    "REASONING-XYZZY",
                    "SUBAGENT-PROMPT-XYZZY",
                    "Called the Read tool",
                ],
            },
        ],
        root,
    }
}

/// A Factory Droid 0.225.2 sessions folder: an `exec` session (the
/// context message before each turn, a tool call and its result, thinking)
/// and a TUI session renamed in place, with its hook's run recorded.
pub fn droid(dir: &Path) -> Built {
    let root = dir.join(".factory/sessions");
    let a = "007f9cdf-1f2e-4b7a-9c1d-0a1b2c3d4e5f";
    let b = "b1e2c3d4-5f60-4a7b-8c9d-0e1f2a3b4c5d";
    let start = |id: &str, title: &str, cwd: &str, manual: bool| {
        serde_json::json!({"type": "session_start", "id": id, "title": title, "owner": "unknown",
            "version": 2, "cwd": cwd, "hostId": "h-1", "isSessionTitleManuallySet": manual})
        .to_string()
    };
    let context = |turn: &str, at: &str, cwd: &str| {
        serde_json::json!({"type": "message", "id": format!("context-{turn}"), "timestamp": at,
            "message": {"role": "user", "content": [{"type": "text", "text":
                format!("<system-reminder>INJECTED-CONTEXT-XYZZY % pwd {cwd}</system-reminder>")}]}})
        .to_string()
    };
    let typed = |turn: &str, at: &str, text: &str| {
        serde_json::json!({"type": "message", "id": turn, "parentId": format!("context-{turn}"),
            "timestamp": at, "message": {"role": "user",
                "content": [{"type": "text", "text": text}], "interactionMode": "auto"}})
        .to_string()
    };
    let reply = |id: &str, parent: &str, at: &str, blocks: serde_json::Value| {
        serde_json::json!({"type": "message", "id": id, "parentId": parent, "timestamp": at,
            "message": {"role": "assistant", "content": blocks,
                "openaiMessageId": "chatcmpl-mock-0092", "modelId": "custom:Mock-Model-0"}})
        .to_string()
    };
    let first = root.join("-w-api").join(format!("{a}.jsonl"));
    write(
        &first,
        &[
            start(a, "Add pagination to the orders API", "/w/api", false),
            context("t1", "2026-12-02T05:27:12.300Z", "/w/api"),
            typed("t1", "2026-12-02T05:27:12.381Z", "Add pagination to the orders API"),
            reply(
                "m1",
                "t1",
                "2026-12-02T05:27:13.000Z",
                serde_json::json!([{"type": "thinking", "thinking": "REASONING-XYZZY"},
                    {"type": "tool_use", "id": "call_1", "name": "Execute",
                     "input": {"command": "TOOL-INPUT-XYZZY"}}]),
            ),
            serde_json::json!({"type": "message", "id": "r1", "timestamp": "2026-12-02T05:27:13.400Z",
                "message": {"role": "user", "content": [{"type": "tool_result",
                    "tool_use_id": "call_1", "content": "TOOL-OUTPUT-XYZZY"}]}})
            .to_string(),
            reply(
                "m2",
                "r1",
                "2026-12-02T05:27:14.000Z",
                serde_json::json!([{"type": "text", "text": "Orders now come in pages of 50"}]),
            ),
            r#"{"type":"agent_turn_outcome","turnId":"t1","reason":"completed","resultKind":"text"}"#
                .to_owned(),
        ],
    );
    let second = root.join("-w-docs").join(format!("{b}.jsonl"));
    write(
        &second,
        &[
            start(b, "Install guide", "/w/docs", true),
            context("t1", "2026-12-01T09:00:00.000Z", "/w/docs"),
            typed("t1", "2026-12-01T09:00:00.100Z", "Rewrite the install guide ✓"),
            serde_json::json!({"type": "message", "id": "h1", "timestamp": "2026-12-01T09:00:00.200Z",
                "message": {"role": "user", "content": [], "visibility": "user_only",
                    "hookEventName": "UserPromptSubmit", "hookCommands": ["session-ref hook droid"],
                    "hookStatus": "completed", "hookResults": [{"exitCode": 0,
                        "stdout": "{\"hookSpecificOutput\":{\"additionalContext\":\"HOOK-XYZZY\"}}",
                        "stderr": ""}], "hookParentId": "t1"}})
            .to_string(),
            reply(
                "m1",
                "t1",
                "2026-12-01T09:00:01.000Z",
                serde_json::json!([{"type": "text", "text": "The guide now starts with cargo install"}]),
            ),
        ],
    );
    Built {
        root,
        sessions: vec![
            Expect {
                id: a,
                cwd: "/w/api",
                label: "Add pagination to the orders API",
                file: first,
                said: &[
                    "Add pagination to the orders API",
                    "Orders now come in pages of 50",
                ],
                hidden: &[
                    "TOOL-INPUT-XYZZY",
                    "TOOL-OUTPUT-XYZZY",
                    "REASONING-XYZZY",
                    "INJECTED-CONTEXT-XYZZY",
                ],
            },
            Expect {
                id: b,
                cwd: "/w/docs",
                label: "Install guide",
                file: second,
                said: &[
                    "Rewrite the install guide ✓",
                    "The guide now starts with cargo install",
                ],
                hidden: &["INJECTED-CONTEXT-XYZZY", "HOOK-XYZZY"],
            },
        ],
    }
}

/// A Crush data directory: `projects.json` naming two projects (`/w/api`,
/// `/w/docs`, their data directories moved into the test's folder with
/// Crush's `data_directory` option), each with its `crush.db` made by
/// Crush's migrations. One holds an
/// untitled session with an attachment, a tool call and its title
/// session; the other a titled session summarised mid-way.
pub fn crush(dir: &Path) -> Built {
    use crush_fixture::*;
    let global = dir.join("share/crush");
    let api_data = dir.join("data/api");
    let docs_data = dir.join("data/docs");
    let api_db = Db::create(&api_data);
    let docs_db = Db::create(&docs_data);
    register(
        &global,
        &[
            (Path::new("/w/api"), &api_data),
            (Path::new("/w/docs"), &docs_data),
        ],
    );
    let a = "8d1c2b3a-4e5f-4a6b-9c7d-1e2f3a4b5c6d";
    api_db.session(a, None, "Untitled Session", 1_796_188_300);
    api_db.session(
        &format!("title-{a}"),
        Some(a),
        "Generate a title",
        1_796_188_301,
    );
    api_db.message(
        &format!("title-{a}"),
        "t1",
        "user",
        &[text_part("SUBAGENT-PROMPT-XYZZY")],
        1_796_188_301,
    );
    api_db.message(
        a,
        "m1",
        "user",
        &[
            text_part("Add pagination to the orders API"),
            attachment("notes.txt", "TOOL-OUTPUT-XYZZY"),
            finish("stop"),
        ],
        1_796_188_301,
    );
    api_db.message(
        a,
        "m2",
        "assistant",
        &[
            reasoning_part("REASONING-XYZZY"),
            tool_call("bash", "TOOL-INPUT-XYZZY"),
            finish("tool_use"),
        ],
        1_796_188_302,
    );
    api_db.message(
        a,
        "m3",
        "tool",
        &[tool_result("TOOL-OUTPUT-XYZZY")],
        1_796_188_303,
    );
    api_db.message(
        a,
        "m4",
        "assistant",
        &[
            text_part("Orders now come in pages of 50"),
            finish("end_turn"),
        ],
        1_796_188_304,
    );
    let b = "2f3e4d5c-6b7a-4891-8a2b-3c4d5e6f7a8b";
    docs_db.session(b, None, "New Session", 1_796_100_000);
    docs_db.message(
        b,
        "m1",
        "user",
        &[text_part("EARLIER-PROMPT-XYZZY")],
        1_796_100_001,
    );
    docs_db.message(
        b,
        "m2",
        "assistant",
        &[text_part("EARLIER-REPLY-XYZZY")],
        1_796_100_002,
    );
    docs_db.summary(
        b,
        "m3",
        "Summary: the guide is half rewritten",
        1_796_100_003,
    );
    docs_db.message(
        b,
        "m4",
        "user",
        &[text_part(
            "The previous session was interrupted because it got too long, the initial user request was: `Rewrite the install guide`",
        )],
        1_796_100_003,
    );
    docs_db.message(
        b,
        "m5",
        "assistant",
        &[text_part("The guide now starts with cargo install")],
        1_796_100_004,
    );
    docs_db.rename(b, "Install guide rewrite");
    Built {
        sessions: vec![
            Expect {
                id: b,
                cwd: "/w/docs",
                label: "Install guide rewrite",
                file: docs_db.path.join(b),
                said: &[
                    "Summary: the guide is half rewritten",
                    "Rewrite the install guide",
                    "The guide now starts with cargo install",
                ],
                hidden: &["EARLIER-PROMPT-XYZZY", "EARLIER-REPLY-XYZZY", "interrupted"],
            },
            Expect {
                id: a,
                cwd: "/w/api",
                label: "Add pagination to the orders API",
                file: api_db.path.join(a),
                said: &[
                    "Add pagination to the orders API",
                    "Orders now come in pages of 50",
                ],
                hidden: &[
                    "TOOL-INPUT-XYZZY",
                    "TOOL-OUTPUT-XYZZY",
                    "REASONING-XYZZY",
                    "SUBAGENT-PROMPT-XYZZY",
                ],
            },
        ],
        root: global,
    }
}
