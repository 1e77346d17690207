//! The suite's fixtures of Goose, Continue CLI, Kimi CLI and Mistral Vibe,
//! each written in the shapes its agent writes (the module docs of each
//! reader say which version and how it was checked).

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::{append_half_line, Built, Expect};
// Its own test checks the MD5 against Python's `hashlib`.
use crate::support::goose::{
    self as goose_db, text, thinking, tool_request, tool_response, visible,
};
use session_ref_stores::kinds::kimi::folder_hash;

/// Write `value` as JSON at `path`, its folder created.
fn put(path: PathBuf, value: &Value) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, serde_json::to_string_pretty(value).unwrap()).unwrap();
    path
}

/// A Goose data directory (`~/.local/share/goose`): `sessions/sessions.db`
/// holding a named session with a tool call, a compacted session still
/// under the CLI's placeholder name, a sub-agent's and a hidden session
/// (not listed), and the legacy `.jsonl` files of the versions before it:
/// one Goose imported into the database (not listed again), one it did not.
pub fn goose(dir: &Path) -> Built {
    let root = dir.join("goose");
    let sessions = root.join("sessions");
    let db_path = sessions.join("sessions.db");
    let db = goose_db::Db::create(&db_path);
    let a = "20261130_1";
    db.session(
        a,
        "Retry the fetch loop",
        "user",
        "/w/fetch",
        "2026-11-30 09:15:02",
    );
    let both = visible(true, true);
    db.message(
        a,
        "user",
        1_796_030_102,
        json!([text("Add a retry to the fetch loop")]),
        both.clone(),
    );
    db.message(
        a,
        "assistant",
        1_796_030_103,
        json!([
            thinking("REASONING-XYZZY"),
            tool_request("t1", "developer__shell", "TOOL-INPUT-XYZZY")
        ]),
        both.clone(),
    );
    db.message(
        a,
        "user",
        1_796_030_104,
        json!([tool_response("t1", "TOOL-OUTPUT-XYZZY")]),
        both.clone(),
    );
    db.message(
        a,
        "assistant",
        1_796_030_105,
        json!([text("fetch now retries three times")]),
        both.clone(),
    );
    let b = "20261130_2";
    db.session(b, "CLI Session", "user", "/w/docs", "2026-11-30 10:00:00");
    let agent_hidden = visible(true, false);
    db.message(
        b,
        "user",
        1_796_032_800,
        json!([text("Fix the typos in the guide ✓\nand the links")]),
        agent_hidden.clone(),
    );
    db.message(
        b,
        "assistant",
        1_796_032_801,
        json!([text("OLD-REPLY")]),
        agent_hidden,
    );
    db.message(
        b,
        "user",
        1_796_032_802,
        json!([text("The guide's typos are fixed")]),
        visible(false, true),
    );
    db.message(
        b,
        "assistant",
        1_796_032_803,
        json!([text(
            "Your context was compacted. The previous message contains a summary"
        )]),
        visible(false, true),
    );
    db.message(
        b,
        "user",
        1_796_032_804,
        json!([text("Now the index page")]),
        both.clone(),
    );
    db.message(
        b,
        "assistant",
        1_796_032_805,
        json!([text("The index page reads well now")]),
        both.clone(),
    );
    db.session(
        "20261130_3",
        "Sub task",
        "specialist",
        "/w/fetch",
        "2026-11-30 09:16:00",
    );
    db.message(
        "20261130_3",
        "user",
        1_796_030_200,
        json!([text("SUBAGENT-PROMPT-XYZZY")]),
        both.clone(),
    );
    db.session(
        "20261130_4",
        "CLI Session",
        "hidden",
        "/w/fetch",
        "2026-11-30 09:17:00",
    );
    db.message(
        "20261130_4",
        "user",
        1_796_030_300,
        json!([text("HIDDEN-SESSION-XYZZY")]),
        both,
    );
    drop(db);
    let line = |v: Value| v.to_string();
    let legacy = |name: &str, lines: &[String]| {
        let path = sessions.join(format!("{name}.jsonl"));
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        path
    };
    legacy(
        a,
        &[
            line(
                json!({"working_dir": "/w/fetch", "description": "IMPORTED-COPY-XYZZY", "message_count": 1}),
            ),
            line(
                json!({"role": "user", "created": 1_796_030_102, "content": [text("IMPORTED-COPY-XYZZY")]}),
            ),
        ],
    );
    let old = "refactor-session";
    let old_file = legacy(
        old,
        &[
            line(
                json!({"working_dir": "/w/old", "description": "Legacy chat about the cache",
                "schedule_id": null, "message_count": 2, "total_tokens": 120}),
            ),
            line(json!({"role": "user", "created": 1_735_000_000,
                "content": [text("Split the cache module")], "metadata": both_meta()})),
            line(json!({"role": "assistant", "created": 1_735_000_005,
                "content": [thinking("REASONING-XYZZY"), text("The cache is split in two")]})),
        ],
    );
    Built {
        sessions: vec![
            Expect {
                id: old,
                cwd: "/w/old",
                label: "Legacy chat about the cache",
                file: old_file,
                said: &["Split the cache module", "The cache is split in two"],
                hidden: &["REASONING-XYZZY"],
            },
            Expect {
                id: a,
                cwd: "/w/fetch",
                label: "Retry the fetch loop",
                file: db_path.join(a),
                said: &[
                    "Add a retry to the fetch loop",
                    "fetch now retries three times",
                ],
                hidden: &[
                    "TOOL-INPUT-XYZZY",
                    "TOOL-OUTPUT-XYZZY",
                    "REASONING-XYZZY",
                    "SUBAGENT-PROMPT-XYZZY",
                    "IMPORTED-COPY-XYZZY",
                ],
            },
            Expect {
                id: b,
                cwd: "/w/docs",
                label: "Fix the typos in the guide ✓",
                file: db_path.join(b),
                said: &[
                    "The guide's typos are fixed",
                    "Now the index page",
                    "The index page reads well now",
                ],
                hidden: &["OLD-REPLY", "Your context was compacted", "CLI Session"],
            },
        ],
        root,
    }
}

fn both_meta() -> Value {
    visible(true, true)
}

/// A Goose session being written: a database's `-wal` ends in half a
/// frame (a writer stopped mid-write); a legacy file, in half a line.
pub fn goose_tear(file: &Path) {
    match file.parent().filter(|p| p.is_file()) {
        Some(db) => super::half_wal_frame(db),
        None => append_half_line(file),
    }
}

/// A Continue CLI folder (`~/.continue`, cn 1.5.47): `sessions/<uuid>.json`
/// per session and the `sessions.json` index; one headless session still
/// `Untitled Session` with a tool call, one renamed and compacted.
pub fn continue_cli(dir: &Path) -> Built {
    let root = dir.join(".continue");
    let sessions = root.join("sessions");
    let a = "1b95b650-3f7e-4f0a-9c55-7c1e3d8e2a01";
    let b = "5d2c8e4a-9b1f-4c3d-8e7a-2f6b9d0c1e02";
    put(
        sessions.join("sessions.json"),
        &json!([
            {"sessionId": a, "title": "Untitled Session", "dateCreated": "1796187340952",
             "workspaceDirectory": "/w/fetch", "messageCount": 4},
            {"sessionId": b, "title": "STALE-INDEX-TITLE", "dateCreated": "1796187433537",
             "workspaceDirectory": "/w/docs", "messageCount": 3}
        ]),
    );
    let first = put(
        sessions.join(format!("{a}.json")),
        &json!({"sessionId": a, "title": "Untitled Session", "workspaceDirectory": "/w/fetch",
            "history": [
                {"message": {"role": "user", "content": "Add a retry to the fetch loop"},
                 "contextItems": [{"name": "fetch.rs", "content": "ATTACHED-CONTEXT-XYZZY"}],
                 "editorState": "Add a retry to the fetch loop"},
                {"message": {"role": "assistant", "content": "", "toolCalls": [{"id": "call_1",
                    "type": "function", "function": {"name": "Bash",
                    "arguments": "{\"command\":\"TOOL-INPUT-XYZZY\"}"}}]},
                 "contextItems": [],
                 "toolCallStates": [{"toolCallId": "call_1", "status": "done",
                    "toolCall": {"id": "call_1", "type": "function", "function": {"name": "Bash",
                        "arguments": "{\"command\":\"TOOL-INPUT-XYZZY\"}"}},
                    "parsedArgs": {"command": "TOOL-INPUT-XYZZY"},
                    "output": [{"name": "Bash", "content": "TOOL-OUTPUT-XYZZY"}]}]},
                {"message": {"role": "thinking", "content": "REASONING-XYZZY"}, "contextItems": []},
                {"message": {"role": "assistant", "content": "fetch now retries three times",
                    "usage": {"promptTokens": 10, "completionTokens": 5}}, "contextItems": []}
            ],
            "usage": {"totalCost": 0, "promptTokens": 10, "completionTokens": 5}}),
    );
    let second = put(
        sessions.join(format!("{b}.json")),
        &json!({"sessionId": b, "title": "Fix the typos in the guide ✓", "workspaceDirectory": "/w/docs",
            "history": [
                {"message": {"role": "assistant", "content": "<summary>The guide's typos are fixed</summary>"},
                 "contextItems": [], "conversationSummary": "The guide's typos are fixed"},
                {"message": {"role": "user", "content": [{"type": "text", "text": "Now the index page"}]},
                 "contextItems": [], "editorState": "Now the index page"},
                {"message": {"role": "assistant", "content": "The index page reads well now"}, "contextItems": []}
            ],
            "usage": {"totalCost": 0, "promptTokens": 7, "completionTokens": 3}}),
    );
    Built {
        sessions: vec![
            Expect {
                id: a,
                cwd: "/w/fetch",
                label: "Add a retry to the fetch loop",
                file: first,
                said: &[
                    "Add a retry to the fetch loop",
                    "fetch now retries three times",
                ],
                hidden: &[
                    "TOOL-INPUT-XYZZY",
                    "TOOL-OUTPUT-XYZZY",
                    "REASONING-XYZZY",
                    "ATTACHED-CONTEXT-XYZZY",
                    "Untitled Session",
                ],
            },
            Expect {
                id: b,
                cwd: "/w/docs",
                label: "Fix the typos in the guide ✓",
                file: second,
                said: &[
                    "The guide's typos are fixed",
                    "Now the index page",
                    "The index page reads well now",
                ],
                hidden: &["<summary>", "STALE-INDEX-TITLE"],
            },
        ],
        root,
    }
}

/// A Continue session file read while `cn` rewrites it: cut short inside
/// the `usage` that follows the history.
pub fn continue_tear(file: &Path) {
    let bytes = std::fs::read(file).unwrap();
    std::fs::write(file, &bytes[..bytes.len() - 12]).unwrap();
}

/// A Kimi CLI share directory (`~/.kimi`, kimi-cli 1.52.0):
/// `sessions/<md5(work dir)>/<uuid>/` folders with their context, wire and
/// state files, `kimi.json` mapping the hashes back; one session compacted
/// (its old context rotated to `context_1.jsonl`) and resumed from another
/// directory (a second folder of the same id holding only the new turn),
/// one archived.
pub fn kimi(dir: &Path) -> Built {
    let root = dir.join(".kimi");
    let hash = folder_hash;
    let (alpha, beta) = ("/w/alpha", "/w/beta");
    put(
        root.join("kimi.json"),
        &json!({"work_dirs": [
            {"path": alpha, "kaos": "local", "last_session_id": null},
            {"path": beta, "kaos": "local", "last_session_id": null}]}),
    );
    let lines = |path: PathBuf, lines: &[Value]| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&path, text).unwrap();
        path
    };
    let wire = |folder: &Path, at: f64, input: &str| {
        lines(
            folder.join("wire.jsonl"),
            &[
                json!({"type": "metadata", "protocol_version": "1.10"}),
                json!({"timestamp": at, "message": {"type": "TurnBegin", "payload": {"user_input": input}}}),
            ],
        );
    };
    let system =
        json!({"role": "_system_prompt", "content": "You are Kimi Code CLI, SYSTEM-PROMPT-XYZZY"});
    let a = "0b1c7f3e-6a2d-4e8f-9c10-3d5e7f9a1b01";
    let a_alpha = root.join("sessions").join(hash(alpha)).join(a);
    wire(&a_alpha, 1_796_187_340.5, "Add a retry to the fetch loop");
    put(
        a_alpha.join("state.json"),
        &json!({"version": 1, "custom_title": "Add a retry to the fetch…",
        "title_generated": false, "archived": false, "todos": []}),
    );
    let a_file = lines(
        a_alpha.join("context.jsonl"),
        &[
            system.clone(),
            json!({"role": "_checkpoint", "id": 0}),
            json!({"role": "user", "content": "Add a retry to the fetch loop"}),
            json!({"role": "_usage", "token_count": 12522}),
            json!({"role": "assistant", "content": [{"type": "think", "think": "REASONING-XYZZY"}],
                "tool_calls": [{"type": "function", "id": "Shell:0", "function": {"name": "Shell",
                    "arguments": "{\"command\": \"TOOL-INPUT-XYZZY\"}"}}]}),
            json!({"role": "tool", "content": [{"type": "text", "text": "<system>Command executed successfully.</system>"},
                {"type": "text", "text": "TOOL-OUTPUT-XYZZY"}], "tool_call_id": "Shell:0"}),
            json!({"role": "assistant", "content": [{"type": "text", "text": "fetch now retries three times"}]}),
        ],
    );
    // The same session resumed from beta: a folder of its own, the new turn only.
    let a_beta = root.join("sessions").join(hash(beta)).join(a);
    wire(&a_beta, 1_796_187_900.0, "And log each retry");
    put(
        a_beta.join("state.json"),
        &json!({"version": 1, "custom_title": "BETA-COPY-TITLE-XYZZY"}),
    );
    lines(
        a_beta.join("context.jsonl"),
        &[
            system.clone(),
            json!({"role": "user", "content": [{"type": "text", "text": "And log each retry"}]}),
            json!({"role": "assistant", "content": "Each retry is logged"}),
        ],
    );
    let b = "7e9d2c4b-1f3a-4b5c-8d6e-9f0a1b2c3d02";
    let b_dir = root.join("sessions").join(hash(beta)).join(b);
    wire(&b_dir, 1_796_187_433.0, "Fix the typos in the guide");
    put(
        b_dir.join("state.json"),
        &json!({"version": 1, "custom_title": null}),
    );
    lines(
        b_dir.join("context_1.jsonl"),
        &[
            system.clone(),
            json!({"role": "user", "content": "Fix the typos in the guide ✓\nand the links"}),
            json!({"role": "assistant", "content": "OLD-REPLY"}),
        ],
    );
    let b_file = lines(
        b_dir.join("context.jsonl"),
        &[
            system.clone(),
            json!({"role": "user", "content": [{"type": "text",
                "text": "<system>Previous context has been compacted. Here is the compaction output:</system>"},
                {"type": "text", "text": "The guide's typos are fixed"}]}),
            json!({"role": "user", "content": "Now the index page"}),
            json!({"role": "assistant", "content": "The index page reads well now"}),
        ],
    );
    let c_dir = root
        .join("sessions")
        .join(hash(alpha))
        .join("3c4d5e6f-7a8b-4c9d-0e1f-2a3b4c5d6e03");
    wire(&c_dir, 1_796_187_000.0, "ARCHIVED-XYZZY");
    put(
        c_dir.join("state.json"),
        &json!({"version": 1, "archived": true}),
    );
    lines(
        c_dir.join("context.jsonl"),
        &[json!({"role": "user", "content": "ARCHIVED-XYZZY"})],
    );
    Built {
        sessions: vec![
            Expect {
                id: a,
                cwd: alpha,
                label: "Add a retry to the fetch…",
                file: a_file,
                said: &[
                    "Add a retry to the fetch loop",
                    "fetch now retries three times",
                    "And log each retry",
                    "Each retry is logged",
                ],
                hidden: &[
                    "TOOL-INPUT-XYZZY",
                    "TOOL-OUTPUT-XYZZY",
                    "REASONING-XYZZY",
                    "SYSTEM-PROMPT-XYZZY",
                    "BETA-COPY-TITLE-XYZZY",
                    "<system>",
                ],
            },
            Expect {
                id: b,
                cwd: beta,
                label: "Fix the typos in the guide ✓",
                file: b_file,
                said: &[
                    "The guide's typos are fixed",
                    "Now the index page",
                    "The index page reads well now",
                ],
                hidden: &[
                    "OLD-REPLY",
                    "Previous context has been compacted",
                    "ARCHIVED-XYZZY",
                ],
            },
        ],
        root,
    }
}

/// A Mistral Vibe home (`~/.vibe`, 3.0.2): `logs/session/unified/<id>/`
/// folders, each `meta.json`, `CURRENT`, two generations' manifests (the
/// older one's chunks collected), content-addressed chunks and a journal;
/// one headless session with a tool call, one branch made after
/// `/compact` (its history opening with the `imported-*` entries) and
/// renamed.
pub fn vibe(dir: &Path) -> Built {
    let root = dir.join(".vibe");
    let unified = root.join("logs/session/unified");
    let session = |id: &str, meta: Value, history: &[Value]| -> PathBuf {
        let folder = unified.join(id);
        put(folder.join("meta.json"), &meta);
        let mut digests = Vec::new();
        for (n, chunk) in history.chunks(2).enumerate() {
            let digest = format!("{:064x}", n + 1 + id.len() * 7);
            put(
                folder.join("chunks").join(format!("{digest}.json")),
                &Value::Array(chunk.to_vec()),
            );
            digests.push(Value::String(digest));
        }
        let generation = "0000000000000032";
        put(
            folder
                .join("generations")
                .join("0000000000000031")
                .join("manifest.json"),
            &json!({"projection_state": {"chunks": ["0".repeat(64)]}}),
        );
        put(
            folder
                .join("generations")
                .join(generation)
                .join("manifest.json"),
            &json!({"checkpoint": {"chunks": []}, "projection_state": {"chunks": digests},
                "runtime_state": {"chunks": []},
                "recovery_journal_segment": {"path": "journal/0000000000000032.jsonl"}}),
        );
        std::fs::create_dir_all(folder.join("journal")).unwrap();
        std::fs::write(
            folder.join("journal/0000000000000032.jsonl"),
            json!({"kind": "command_reserved", "request": "JOURNAL-REQUEST-XYZZY"}).to_string()
                + "\n",
        )
        .unwrap();
        put(
            folder.join("CURRENT"),
            &json!({"generation": generation, "manifest_sha256": "ab", "snapshot_sequence": 32,
                "store_format": "mistral.vibe.unified-session-store/v1", "store_format_minor": 9}),
        )
    };
    let meta = |id: &str, parent: Option<&str>, cwd: &str, title: Option<&str>| {
        json!({"session_id": id, "parent_session_id": parent, "start_time": "2026-12-02T04:43:06+00:00",
            "end_time": "2026-12-02T04:50:06+00:00", "git_commit": null, "git_branch": null,
            "environment": {"working_directory": cwd}, "origin_directory": cwd, "username": "me",
            "child_sessions": [], "title": title, "title_source": if title.is_some() { "manual" } else { "auto" },
            "config": {"active_model": "mock", "model_name": "mock-model"}})
    };
    let typed = |turn: &str, text: &str| {
        json!({"id": format!("user-turn-{turn}-1"), "type": "message", "role": "user",
            "source": "turn_start", "turnId": format!("turn-{turn}"),
            "content": [{"type": "text", "text": text}], "createdAt": 1_796_190_064_835_i64})
    };
    let reply = |text: &str| {
        json!({"id": "assistant-1", "type": "message", "role": "assistant", "source": "harness",
            "inputEntryId": "user-turn-a-1", "content": [{"type": "text", "text": text}]})
    };
    let a = "2fbee388-ee3d-2481-9c1a-6b7d8e9f0a01";
    let first = session(
        a,
        meta(a, None, "/w/fetch", None),
        &[
            typed("a", "Add a retry to the fetch loop"),
            json!({"id": "reasoning-1", "type": "reasoning", "content": [{"type": "text", "text": "REASONING-XYZZY"}]}),
            json!({"id": "effect-1", "type": "effect", "detail": {"kind": "tool", "toolName": "file_system.bash",
                "input": {"command": "TOOL-INPUT-XYZZY"}},
                "state": {"status": "done", "output": {"content": "TOOL-OUTPUT-XYZZY"}}}),
            reply("fetch now retries three times"),
        ],
    );
    let b = "6a7b8c9d-0e1f-3a2b-8c4d-5e6f7a8b9c02";
    let second = session(
        b,
        meta(b, Some(a), "/w/docs", Some("Fix the typos in the guide ✓")),
        &[
            json!({"id": "imported-1", "type": "message", "role": "user", "source": "harness",
                "content": [{"type": "text", "text": "You are continuing a trajectory after a context compaction"}]}),
            json!({"id": "imported-2", "type": "message", "role": "user", "source": "harness",
                "content": [{"type": "text", "text": "IMPORTED-PROMPT-XYZZY</previous_user_messages>"}]}),
            typed("b", "Tidy the guide"),
            reply("OLD-REPLY"),
            json!({"id": "checkpoint-compaction-1", "type": "checkpoint", "kind": "compaction",
                "message": "Context compacted", "details": {"trigger": "manual",
                "summary": "The guide's typos are fixed"}}),
            typed("c", "Now the index page"),
            reply("The index page reads well now"),
        ],
    );
    Built {
        sessions: vec![
            Expect {
                id: a,
                cwd: "/w/fetch",
                label: "Add a retry to the fetch loop",
                file: first,
                said: &[
                    "Add a retry to the fetch loop",
                    "fetch now retries three times",
                ],
                hidden: &[
                    "TOOL-INPUT-XYZZY",
                    "TOOL-OUTPUT-XYZZY",
                    "REASONING-XYZZY",
                    "JOURNAL-REQUEST-XYZZY",
                ],
            },
            Expect {
                id: b,
                cwd: "/w/docs",
                label: "Fix the typos in the guide ✓",
                file: second,
                said: &[
                    "The guide's typos are fixed",
                    "Now the index page",
                    "The index page reads well now",
                ],
                hidden: &[
                    "OLD-REPLY",
                    "IMPORTED-PROMPT-XYZZY",
                    "continuing a trajectory",
                ],
            },
        ],
        root,
    }
}

/// A Vibe session being written: its journal segment ends in half a line
/// (the store's other files are replaced whole, never torn).
pub fn vibe_tear(file: &Path) {
    let journal = file
        .parent()
        .unwrap()
        .join("journal/0000000000000032.jsonl");
    append_half_line(&journal);
}
