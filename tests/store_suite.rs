//! One suite over every store kind: the same expectations, run against a
//! fixture of each kind written in the real shapes of its agent.
//!
//! Every kind in `session_ref::store::REGISTRY` must have a row in
//! [`KINDS`]: a fixture builder that writes a small store (two sessions at
//! least, with tool calls, tool output and reasoning that must never reach
//! a snapshot or a title) and says what is expected of each session. The
//! expectations are the same for all kinds:
//!
//! - listed: every session once, under its own id, with its cwd and kind;
//! - labelled: with its title, else the human's first real request;
//! - previewed: the snapshot holds what was said, and no tool, reasoning or
//!   injected text;
//! - a torn last line (a log being written) is tolerated;
//! - a file that vanished after listing makes only its session unreadable.
//!
//! Adding a store kind: write its builder and add one row.
//!
//! The Claude Code and Codex rows also carry the fidelity fixtures of
//! `tests/fixtures/fidelity` (resumed and forked sessions, slash commands
//! with arguments, task notices, IDE-wrapped prompts, paginated forks,
//! remote compaction; see `tests/fidelity.rs` for their own rules).

mod common;
#[path = "support/opencode.rs"]
mod opencode_fixture;

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;
use session_ref::store::{kind_by_name, Catalog, StoreRoots, REGISTRY};

/// One store kind's row: its name, its flag, and its fixture.
struct Kind {
    /// The kind's name (`store` in `candidates --json`).
    name: &'static str,
    /// The flag naming a root of this kind.
    flag: &'static str,
    /// Write a store below the given directory.
    build: fn(&Path) -> Built,
    /// Tear the last line of a session file as a writer would leave it.
    tear: fn(&Path),
}

/// What a builder wrote.
struct Built {
    /// The directory to name with the kind's flag.
    root: PathBuf,
    /// The sessions, each with what is expected of it.
    sessions: Vec<Expect>,
}

/// What the suite expects of one session.
struct Expect {
    id: &'static str,
    cwd: &'static str,
    label: &'static str,
    /// The file holding the session (torn, removed).
    file: PathBuf,
    /// Texts the snapshot must hold (a request, a reply).
    said: &'static [&'static str],
    /// Texts that must reach neither the snapshot nor the label.
    hidden: &'static [&'static str],
}

const KINDS: &[Kind] = &[
    Kind {
        name: "hydra",
        flag: "store",
        build: hydra,
        tear: append_half_line,
    },
    Kind {
        name: "claude",
        flag: "claude",
        build: claude,
        tear: append_half_line,
    },
    Kind {
        name: "codex",
        flag: "codex",
        build: codex,
        tear: append_half_line,
    },
    Kind {
        name: "gemini",
        flag: "gemini",
        build: gemini,
        tear: append_half_line,
    },
    Kind {
        name: "opencode",
        flag: "opencode",
        build: opencode,
        tear: opencode_tear,
    },
];

/// Texts planted in tool calls, tool output, reasoning and injected context.
const HIDDEN: &[&str] = &["TOOL-INPUT-XYZZY", "TOOL-OUTPUT-XYZZY", "REASONING-XYZZY"];

fn append_half_line(file: &Path) {
    let mut f = std::fs::OpenOptions::new().append(true).open(file).unwrap();
    f.write_all(br#"{"type":"user","message":{"role":"user","content":"half wri"#)
        .unwrap();
}

fn write(path: &Path, lines: &[String]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

/// A native store: header, then events (SPEC §3).
fn hydra(dir: &Path) -> Built {
    let root = dir.join("sessions");
    let session = |name: &str, id: &str, cwd: &str, created: &str, body: &[&str]| {
        let path = root.join(name);
        let mut lines = vec![format!(
            r#"{{"type":"session","version":1,"id":"{id}","createdAt":"{created}","cwd":"{cwd}"}}"#
        )];
        lines.extend(body.iter().map(|l| l.to_string()));
        write(&path, &lines);
        path
    };
    let first = session(
        "2026-01-05-h1.jsonl",
        "h1-cache",
        "/w/cache",
        "2026-01-05T10:00:00Z",
        &[
            r#"{"seq":1,"type":"user/message","data":{"id":"u1","source":{"kind":"user"},"content":[{"type":"text","text":"Make the cache evict by size"}]}}"#,
            r#"{"seq":2,"type":"assistant/chunk","data":{"messageId":"a1","delta":"Evic"}}"#,
            r#"{"seq":3,"type":"assistant/message","data":{"message":{"id":"a1","content":[{"type":"reasoning","text":"REASONING-XYZZY"},{"type":"tool-call","toolCallId":"t1","toolName":"shell","input":{"cmd":"TOOL-INPUT-XYZZY"}},{"type":"text","text":"Eviction now counts bytes"}]}}}"#,
            r#"{"seq":4,"type":"tool/result","data":{"toolCallId":"t1","content":[{"type":"text","text":"TOOL-OUTPUT-XYZZY"}]}}"#,
        ],
    );
    let second = session(
        "2026-01-04-h2.jsonl",
        "h2-docs",
        "/w/docs",
        "2026-01-04T10:00:00Z",
        &[
            r#"{"seq":1,"type":"user/message","data":{"id":"u1","source":{"kind":"user"},"content":[{"type":"text","text":"Rewrite the install guide"}]}}"#,
            r#"{"seq":2,"type":"assistant/message","data":{"message":{"id":"a1","content":[{"type":"text","text":"The guide now starts with cargo install"}]}}}"#,
            r#"{"seq":3,"type":"session/title","data":{"title":"Install guide"}}"#,
        ],
    );
    Built {
        root,
        sessions: vec![
            Expect {
                id: "h1-cache",
                cwd: "/w/cache",
                label: "h1-cache",
                file: first,
                said: &["Make the cache evict by size", "Eviction now counts bytes"],
                hidden: HIDDEN,
            },
            Expect {
                id: "h2-docs",
                cwd: "/w/docs",
                label: "Install guide",
                file: second,
                said: &[
                    "Rewrite the install guide",
                    "The guide now starts with cargo install",
                ],
                hidden: &[],
            },
        ],
    }
}

/// A Claude Code `projects` directory: one folder per cwd, one transcript
/// per session, a sub-agent transcript beside them.
fn claude(dir: &Path) -> Built {
    let root = dir.join("projects");
    let folder = root.join("-w-api");
    let line = |id: &str, kind: &str, uuid: &str, at: &str, message: &str| {
        format!(
            r#"{{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w/api","sessionId":"{id}","version":"2.1.80","gitBranch":"main","type":"{kind}","message":{message},"uuid":"{uuid}","timestamp":"{at}"}}"#
        )
    };
    let a = "c0ffee00-0000-4000-8000-00000000000a";
    let b = "c0ffee00-0000-4000-8000-00000000000b";
    let first = folder.join(format!("{a}.jsonl"));
    write(
        &first,
        &[
            format!(r#"{{"type":"permission-mode","permissionMode":"default","sessionId":"{a}"}}"#),
            line(
                a,
                "user",
                "u1",
                "2026-01-05T09:00:00.000Z",
                r#"{"role":"user","content":"Add pagination to the orders API"}"#,
            ),
            line(
                a,
                "assistant",
                "a1",
                "2026-01-05T09:00:02.000Z",
                r#"{"model":"claude-opus-4-5","id":"msg_1","type":"message","role":"assistant","content":[{"type":"thinking","thinking":"REASONING-XYZZY","signature":"sig"}]}"#,
            ),
            line(
                a,
                "assistant",
                "a2",
                "2026-01-05T09:00:03.000Z",
                r#"{"model":"claude-opus-4-5","id":"msg_1","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"TOOL-INPUT-XYZZY"}}]}"#,
            ),
            line(
                a,
                "user",
                "u2",
                "2026-01-05T09:00:04.000Z",
                r#"{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"TOOL-OUTPUT-XYZZY","is_error":false}]}"#,
            ),
            line(
                a,
                "assistant",
                "a3",
                "2026-01-05T09:00:05.000Z",
                r#"{"model":"claude-opus-4-5","id":"msg_2","type":"message","role":"assistant","content":[{"type":"text","text":"Orders are now paged by cursor"}]}"#,
            ),
        ],
    );
    let second = folder.join(format!("{b}.jsonl"));
    write(
        &second,
        &[
            line(
                b,
                "user",
                "v1",
                "2026-01-04T09:00:00.000Z",
                r#"{"role":"user","content":"Why is the refund test flaky?"}"#,
            ),
            line(
                b,
                "assistant",
                "w1",
                "2026-01-04T09:00:05.000Z",
                r#"{"model":"claude-opus-4-5","id":"msg_3","type":"message","role":"assistant","content":[{"type":"text","text":"The refund test shares a clock"}]}"#,
            ),
            format!(r#"{{"type":"ai-title","sessionId":"{b}","aiTitle":"Flaky refund test"}}"#),
        ],
    );
    write(
        &folder.join(a).join("subagents/agent-1234abcd.jsonl"),
        &[format!(
            r#"{{"parentUuid":null,"isSidechain":true,"userType":"external","cwd":"/w/api","sessionId":"{a}","version":"2.1.80","agentId":"1234abcd","type":"user","message":{{"role":"user","content":"Search the handlers"}},"uuid":"s1","timestamp":"2026-01-05T09:00:03.500Z"}}"#
        )],
    );
    Built {
        root: root.clone(),
        sessions: vec![
            Expect {
                id: a,
                cwd: "/w/api",
                label: "Add pagination to the orders API",
                file: first,
                said: &[
                    "Add pagination to the orders API",
                    "Orders are now paged by cursor",
                ],
                hidden: HIDDEN,
            },
            Expect {
                id: b,
                cwd: "/w/api",
                label: "Flaky refund test",
                file: second,
                said: &[
                    "Why is the refund test flaky?",
                    "The refund test shares a clock",
                ],
                hidden: &[],
            },
        ]
        .into_iter()
        .chain(fidelity(&root, "claude/projects", CLAUDE_FIDELITY, &[]))
        .collect(),
    }
}

/// A Codex `sessions` directory: `YYYY/MM/DD/rollout-…-<id>.jsonl`.
fn codex(dir: &Path) -> Built {
    let root = dir.join("sessions");
    let a = "019b9000-0000-7000-8000-00000000000a";
    let b = "019b9000-0000-7000-8000-00000000000b";
    let meta = |id: &str, at: &str, cwd: &str| {
        format!(
            r#"{{"timestamp":"{at}","type":"session_meta","payload":{{"id":"{id}","timestamp":"{at}","cwd":"{cwd}","originator":"codex_cli_rs","cli_version":"0.77.0","source":"cli","model_provider":"openai","base_instructions":{{"text":"You are Codex."}}}}}}"#
        )
    };
    let item = |at: &str, payload: &str| {
        format!(r#"{{"timestamp":"{at}","type":"response_item","payload":{payload}}}"#)
    };
    let event = |at: &str, payload: &str| {
        format!(r#"{{"timestamp":"{at}","type":"event_msg","payload":{payload}}}"#)
    };
    let first = root.join(format!("2026/01/05/rollout-2026-01-05T08-00-00-{a}.jsonl"));
    let at = "2026-01-05T08:00:00.000Z";
    write(
        &first,
        &[
            meta(a, at, "/w/cli"),
            item(
                at,
                r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/w/cli</cwd>\n</environment_context>"}]}"#,
            ),
            item(
                at,
                r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"Add a --quiet flag"}]}"#,
            ),
            event(
                at,
                r#"{"type":"user_message","message":"Add a --quiet flag","images":[]}"#,
            ),
            item(
                at,
                r#"{"type":"reasoning","summary":[{"type":"summary_text","text":"REASONING-XYZZY"}],"content":null,"encrypted_content":"gAAA"}"#,
            ),
            event(at, r#"{"type":"agent_reasoning","text":"REASONING-XYZZY"}"#),
            item(
                at,
                r#"{"type":"function_call","name":"shell","arguments":"{\"command\":[\"TOOL-INPUT-XYZZY\"]}","call_id":"call_1"}"#,
            ),
            item(
                at,
                r#"{"type":"function_call_output","call_id":"call_1","output":"TOOL-OUTPUT-XYZZY"}"#,
            ),
            item(
                at,
                r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"The flag silences progress output"}]}"#,
            ),
            event(
                at,
                r#"{"type":"agent_message","message":"The flag silences progress output"}"#,
            ),
        ],
    );
    let second = root.join(format!("2026/01/04/rollout-2026-01-04T08-00-00-{b}.jsonl"));
    let at = "2026-01-04T08:00:00.000Z";
    write(
        &second,
        &[
            meta(b, at, "/w/site"),
            item(
                at,
                r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"Shrink the hero image"}]}"#,
            ),
            item(
                at,
                r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"The hero image is now 80 KB"}]}"#,
            ),
            event(
                at,
                r#"{"type":"thread_name_updated","thread_id":"x","thread_name":"Hero image"}"#,
            ),
        ],
    );
    Built {
        root: root.clone(),
        sessions: vec![
            Expect {
                id: a,
                cwd: "/w/cli",
                label: "Add a --quiet flag",
                file: first,
                said: &["Add a --quiet flag", "The flag silences progress output"],
                hidden: &[
                    "TOOL-INPUT-XYZZY",
                    "TOOL-OUTPUT-XYZZY",
                    "REASONING-XYZZY",
                    "environment_context",
                ],
            },
            Expect {
                id: b,
                cwd: "/w/site",
                label: "Hero image",
                file: second,
                said: &["Shrink the hero image", "The hero image is now 80 KB"],
                hidden: &[],
            },
        ]
        .into_iter()
        .chain(fidelity(
            &root,
            "codex/sessions",
            CODEX_FIDELITY,
            // A fork whose parent is gone cannot be previewed (tests/fidelity.rs).
            &["019c0000-0000-7000-8000-000000000003"],
        ))
        .collect(),
    }
}

/// Marker words planted in the fidelity fixtures' generated lines (hook
/// output, request copies, reasoning, tool output, injected context, IDE
/// context, notices, command expansions, synthetic replies).
const FIDELITY_HIDDEN: &[&str] = &[
    "HOOK CONTEXT",
    "SYSTEM PROMPT",
    "REASONING",
    "TOOL OUTPUT",
    "DEVELOPER TEXT",
    "AGENTS TEXT",
    "BASE INSTRUCTIONS",
    "environment_context",
    "Open tabs",
    "task-notification",
    "Say hello to",
    "API Error",
    "COMPACTED",
    "Ultraplan",
    "teammate",
    "The user opened",
];

/// One session of `tests/fixtures/fidelity`: its file (below the fixture
/// root), id, label and what its snapshot says.
type FidelitySession = (
    &'static str,
    &'static str,
    &'static str,
    &'static [&'static str],
);

/// Claude Code: a session resumed the old way (copied lines carry the older
/// id), a `--fork-session` fork, slash commands with and without arguments,
/// a background-task notice and new line types, an image-only prompt, and
/// 2.1.332 lines authored by the harness, a hook or a teammate beside a
/// prompt sent with the VS Code extension's editor context.
const CLAUDE_FIDELITY: &[FidelitySession] = &[
    (
        "-home-dev-app/c1a0de00-0000-4000-8000-000000000001.jsonl",
        "c1a0de00-0000-4000-8000-000000000001",
        "Add a dark mode toggle to the settings page",
        &["Add a dark mode toggle to the settings page"],
    ),
    (
        "-home-dev-app/c1a0de00-0000-4000-8000-000000000002.jsonl",
        "c1a0de00-0000-4000-8000-000000000002",
        "Add a dark mode toggle to the settings page",
        &[
            "Add a dark mode toggle to the settings page",
            "Now persist the choice in localStorage",
        ],
    ),
    (
        "-home-dev-app/c1a0de00-0000-4000-8000-000000000003.jsonl",
        "c1a0de00-0000-4000-8000-000000000003",
        "Add a dark mode toggle to the settings page",
        &[
            "Use the system preference as the default",
            "Try a high-contrast theme instead",
        ],
    ),
    (
        "-home-dev-app/c1a0de00-0000-4000-8000-000000000004.jsonl",
        "c1a0de00-0000-4000-8000-000000000004",
        "/greet Carol and Dave",
        &["/greet Carol and Dave", "The background tests passed."],
    ),
    (
        "-home-dev-app/c1a0de00-0000-4000-8000-000000000005.jsonl",
        "c1a0de00-0000-4000-8000-000000000005",
        "/greet",
        &["Hello!"],
    ),
    (
        "-home-dev-app/c1a0de00-0000-4000-8000-000000000006.jsonl",
        "c1a0de00-0000-4000-8000-000000000006",
        "[Image]",
        &["A red square.", "Make it blue"],
    ),
    (
        "-home-dev-app/c1a0de00-0000-4000-8000-000000000007.jsonl",
        "c1a0de00-0000-4000-8000-000000000007",
        "Profile the slow checkout page",
        &["Profile the slow checkout page", "Batch the cart query"],
    ),
];

/// Codex: a 0.169 rollout (piped stdin) and its paginated fork, an old-style
/// fork and its parent, an IDE-wrapped prompt, a remote compaction, an
/// image-only prompt.
const CODEX_FIDELITY: &[FidelitySession] = &[
    (
        "2026/02/10/rollout-2026-02-10T09-00-00-019c0000-0000-7000-8000-000000000001.jsonl",
        "019c0000-0000-7000-8000-000000000001",
        "Why is the login test flaky?",
        &[
            "Why is the login test flaky?",
            "The log shows the same race.",
        ],
    ),
    (
        "2026/02/10/rollout-2026-02-10T09-30-00-019c0000-0000-7000-8000-000000000002.jsonl",
        "019c0000-0000-7000-8000-000000000002",
        "Fix it with a retry instead",
        &[
            "Why is the login test flaky?",
            "Fix it with a retry instead",
        ],
    ),
    (
        "2026/02/08/rollout-2026-02-08T16-00-00-019c0000-0000-7000-8000-000000000004.jsonl",
        "019c0000-0000-7000-8000-000000000004",
        "Rename the User model to Account",
        &["Renamed in 14 files.", "Also rename the table"],
    ),
    (
        "2026/02/08/rollout-2026-02-08T15-00-00-019c0000-0000-7000-8000-000000000005.jsonl",
        "019c0000-0000-7000-8000-000000000005",
        "Rename the User model to Account",
        &["Rename the User model to Account"],
    ),
    (
        "2026/02/11/rollout-2026-02-11T08-00-00-019c0000-0000-7000-8000-000000000006.jsonl",
        "019c0000-0000-7000-8000-000000000006",
        "Why does the build fail on CI?",
        &["Why does the build fail on CI?"],
    ),
    (
        "2026/02/12/rollout-2026-02-12T08-00-00-019c0000-0000-7000-8000-000000000007.jsonl",
        "019c0000-0000-7000-8000-000000000007",
        "Migrate the API to v2",
        &[
            "Started: routes and handlers moved.",
            "Now update the client",
        ],
    ),
    (
        "2026/02/13/rollout-2026-02-13T08-00-00-019c0000-0000-7000-8000-000000000008.jsonl",
        "019c0000-0000-7000-8000-000000000008",
        "[Image]",
        &["A screenshot of the login form."],
    ),
];

/// Copy the fidelity fixtures below `tests/fixtures/fidelity/<from>` into
/// `root` (except the files of the `skipped` sessions) and say what is
/// expected of each of `sessions`.
fn fidelity(
    root: &Path,
    from: &str,
    sessions: &[FidelitySession],
    skipped: &[&str],
) -> Vec<Expect> {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fidelity")
        .join(from);
    let mut pending = vec![source.clone()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap();
            if path.is_dir() {
                pending.push(path);
            } else if !skipped.iter().any(|id| name.contains(id)) {
                let target = root.join(path.strip_prefix(&source).unwrap());
                std::fs::create_dir_all(target.parent().unwrap()).unwrap();
                std::fs::copy(&path, target).unwrap();
            }
        }
    }
    sessions
        .iter()
        .map(|&(file, id, label, said)| Expect {
            id,
            cwd: "/home/dev/app",
            label,
            file: root.join(file),
            said,
            hidden: FIDELITY_HIDDEN,
        })
        .collect()
}

/// A Gemini CLI directory (`.gemini`): a chat in a project folder named by
/// its slug (the root in `.project_root`), and a chat in an old folder named
/// by the SHA-256 of its root (the root known from `projects.json`), with a
/// `$set` summary. Both `.jsonl`, as Gemini CLI 0.61 writes them.
fn gemini(dir: &Path) -> Built {
    let root = dir.join(".gemini");
    let a = "9e300000-0000-4000-8000-00000000000a";
    let b = "9e300000-0000-4000-8000-00000000000b";
    // SHA-256 of "/w/site", the name Gemini CLI gave its project folder.
    let site = "9249cb6c7841f50c3a18f0a64b5294feeaeeffb6720ec9770e9c590c8c4a300e";
    std::fs::create_dir_all(root.join("tmp/api")).unwrap();
    std::fs::write(root.join("tmp/api/.project_root"), "/w/api").unwrap();
    std::fs::write(
        root.join("projects.json"),
        r#"{"projects": {"/w/api": "api", "/w/site": "site"}}"#,
    )
    .unwrap();
    let meta = |id: &str, hash: &str, at: &str| {
        format!(
            r#"{{"sessionId":"{id}","projectHash":"{hash}","startTime":"{at}","lastUpdated":"{at}","kind":"main"}}"#
        )
    };
    let context = r#"{"$set":{"messages":[{"id":"d04923d38bb0f6017037e74183378ef4","timestamp":"2026-01-05T07:00:00.001Z","type":"user","content":[{"text":"<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n</session_context>"}]}],"lastUpdated":"2026-01-05T07:00:00.001Z"}}"#;
    let call = r#"{"id":"run_shell_command_1","name":"run_shell_command","args":{"command":"TOOL-INPUT-XYZZY"},"result":[{"functionResponse":{"id":"run_shell_command_1","name":"run_shell_command","response":{"output":"TOOL-OUTPUT-XYZZY"}}}],"status":"success","timestamp":"2026-01-05T07:00:03.000Z","displayName":"Shell"}"#;
    let first = root.join(format!(
        "tmp/api/chats/session-2026-01-05T07-00-{}.jsonl",
        &a[..8]
    ));
    write(
        &first,
        &[
            meta(a, &"0".repeat(64), "2026-01-05T07:00:00.000Z"),
            context.to_owned(),
            r#"{"id":"u1","timestamp":"2026-01-05T07:00:01.000Z","type":"user","content":[{"text":"Rate-limit the login endpoint"}]}"#.to_owned(),
            r#"{"$set":{"lastUpdated":"2026-01-05T07:00:01.000Z"}}"#.to_owned(),
            r#"{"id":"g1","timestamp":"2026-01-05T07:00:02.000Z","type":"gemini","content":"","thoughts":[{"subject":"Plan","description":"REASONING-XYZZY","timestamp":"2026-01-05T07:00:01.500Z"}],"model":"gemini-3.8-flash"}"#.to_owned(),
            format!(r#"{{"id":"g1","timestamp":"2026-01-05T07:00:02.000Z","type":"gemini","content":"","thoughts":[{{"subject":"Plan","description":"REASONING-XYZZY","timestamp":"2026-01-05T07:00:01.500Z"}}],"model":"gemini-3.8-flash","toolCalls":[{call}]}}"#),
            r#"{"id":"u2","timestamp":"2026-01-05T07:00:03.100Z","type":"user","content":[{"functionResponse":{"id":"run_shell_command_1","name":"run_shell_command","response":{"output":"TOOL-OUTPUT-XYZZY"}}}]}"#.to_owned(),
            r#"{"id":"g2","timestamp":"2026-01-05T07:00:04.000Z","type":"gemini","content":"Login now allows 5 attempts a minute","thoughts":[],"model":"gemini-3.8-flash"}"#.to_owned(),
            r#"{"$set":{"lastUpdated":"2026-01-05T07:00:04.000Z"}}"#.to_owned(),
        ],
    );
    let second = root.join(format!(
        "tmp/{site}/chats/session-2026-01-04T07-00-{}.jsonl",
        &b[..8]
    ));
    write(
        &second,
        &[
            meta(b, site, "2026-01-04T07:00:00.000Z"),
            r#"{"id":"v1","timestamp":"2026-01-04T07:00:01.000Z","type":"user","content":[{"text":"Compress the landing page images"}]}"#.to_owned(),
            r#"{"id":"w1","timestamp":"2026-01-04T07:00:02.000Z","type":"gemini","content":"The images are now WebP","thoughts":[],"model":"gemini-3.8-flash"}"#.to_owned(),
            r#"{"$set":{"summary":"Landing page images","memoryScratchpad":{"version":1}}}"#.to_owned(),
        ],
    );
    write(
        &root.join(format!("tmp/api/chats/{a}/9e300000-0000-4000-8000-0000000000cc.jsonl")),
        &[
            format!(r#"{{"sessionId":"9e300000-0000-4000-8000-0000000000cc","projectHash":"{}","startTime":"2026-01-05T07:00:02.500Z","lastUpdated":"2026-01-05T07:00:02.500Z","kind":"subagent","directories":["/w/api"]}}"#, "0".repeat(64)),
            r#"{"id":"s1","timestamp":"2026-01-05T07:00:02.600Z","type":"user","content":[{"text":"Investigate the login handler"}]}"#.to_owned(),
        ],
    );
    Built {
        root,
        sessions: vec![
            Expect {
                id: a,
                cwd: "/w/api",
                label: "Rate-limit the login endpoint",
                file: first,
                said: &[
                    "Rate-limit the login endpoint",
                    "Login now allows 5 attempts a minute",
                ],
                hidden: &[
                    "TOOL-INPUT-XYZZY",
                    "TOOL-OUTPUT-XYZZY",
                    "REASONING-XYZZY",
                    "session_context",
                ],
            },
            Expect {
                id: b,
                cwd: "/w/site",
                label: "Landing page images",
                file: second,
                said: &[
                    "Compress the landing page images",
                    "The images are now WebP",
                ],
                hidden: &[],
            },
        ],
    }
}

/// An opencode data directory: a database (rows still in its `-wal`, as
/// while opencode runs) holding a session with a sub-agent, and a legacy
/// `storage/` session from before the database, plus a legacy copy of the
/// database's session (listed once).
fn opencode(dir: &Path) -> Built {
    use opencode_fixture::*;
    let root = dir.join("opencode");
    let db = Db::create(&root.join("opencode.db"));
    let a = "ses_0c1d2e3f4ffeApiPaginate01";
    db.session(
        a,
        None,
        "/w/api",
        "Orders API pagination",
        1_767_600_000_000,
    );
    db.user(
        a,
        "msg_a1",
        1_767_600_001_000,
        &[&text_part("Add pagination to the orders API")],
    );
    db.assistant(
        a,
        "msg_a2",
        "msg_a1",
        1_767_600_002_000,
        &[
            &step_start(),
            &reasoning_part("REASONING-XYZZY"),
            &tool_part("bash", "TOOL-INPUT-XYZZY", "TOOL-OUTPUT-XYZZY"),
            &text_part("Orders now come in pages of 50"),
        ],
    );
    let sub = "ses_0c1d2e3f5ffeSubAgent0001";
    db.session(
        sub,
        Some(a),
        "/w/api",
        "look around (@general subagent)",
        1_767_600_001_500,
    );
    db.user(
        sub,
        "msg_s1",
        1_767_600_001_600,
        &[&text_part("Investigate the orders handler")],
    );
    let storage = Storage::new(&root);
    let b = "ses_0c1d2e3f3ffeLegacyDocs01";
    let legacy = storage.session(
        b,
        None,
        "/w/docs",
        "New session - 2025-09-01T10:00:00.000Z",
        1_756_720_800_000,
    );
    storage.message(
        b,
        "msg_b1",
        1_756_720_801_000,
        "user",
        &[
            &synthetic_part("TOOL-OUTPUT-XYZZY"),
            &text_part("Rewrite the install guide"),
        ],
    );
    storage.message(
        b,
        "msg_b2",
        1_756_720_802_000,
        "assistant",
        &[&text_part("The guide now starts with cargo install")],
    );
    storage.session(
        a,
        None,
        "/w/api",
        "Orders API pagination (legacy copy)",
        1_767_600_000_000,
    );
    Built {
        sessions: vec![
            Expect {
                id: b,
                cwd: "/w/docs",
                label: "Rewrite the install guide",
                file: legacy,
                said: &[
                    "Rewrite the install guide",
                    "The guide now starts with cargo install",
                ],
                hidden: HIDDEN,
            },
            Expect {
                id: a,
                cwd: "/w/api",
                label: "Orders API pagination",
                file: db.path.join(a),
                said: &[
                    "Add pagination to the orders API",
                    "Orders now come in pages of 50",
                ],
                hidden: HIDDEN,
            },
        ],
        root,
    }
}

/// An opencode session being written: a database session's `-wal` ends in
/// half a frame (a writer stopped mid-write), a legacy session's folder
/// holds half a message file.
fn opencode_tear(file: &Path) {
    let in_db = file.parent().is_some_and(Path::is_file);
    let (path, bytes): (PathBuf, Vec<u8>) = if in_db {
        let mut wal = file.parent().unwrap().as_os_str().to_owned();
        wal.push("-wal");
        (wal.into(), vec![0x5a; 1500])
    } else {
        let id = file.file_stem().unwrap();
        let storage = file.parent().unwrap().parent().unwrap().parent().unwrap();
        let folder = storage.join("message").join(id);
        std::fs::create_dir_all(&folder).unwrap();
        (
            folder.join("msg_zz.json"),
            br#"{"id":"msg_zz","role":"user","time":{"crea"#.to_vec(),
        )
    };
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    f.write_all(&bytes).unwrap();
}

/// The built store of one kind, in a fresh directory.
fn store(kind: &Kind) -> (tempfile::TempDir, Built) {
    let dir = tempfile::tempdir().unwrap();
    let built = (kind.build)(dir.path());
    (dir, built)
}

/// `candidates --json` over one kind's store, by session id.
fn listed(kind: &Kind, built: &Built) -> Vec<Value> {
    let root = built.root.to_str().unwrap();
    let flag = format!("--{}", kind.flag);
    let out = common::run(
        &[&flag, root, "candidates", "--json", "--limit", "1000"],
        "",
    );
    assert!(
        out.status.success(),
        "{}: {}",
        kind.name,
        common::stderr(&out)
    );
    assert_eq!(common::stderr(&out), "", "{}: listing warns", kind.name);
    common::stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `preview ID --json` over one kind's store: the context text.
fn preview(kind: &Kind, built: &Built, id: &str) -> String {
    let root = built.root.to_str().unwrap();
    let flag = format!("--{}", kind.flag);
    let out = common::run(&[&flag, root, "preview", id, "--json"], "");
    assert!(
        out.status.success(),
        "{} {id}: {}",
        kind.name,
        common::stderr(&out)
    );
    let value: Value = serde_json::from_str(&common::stdout(&out)).unwrap();
    value["context"].as_str().unwrap().to_owned()
}

/// Check listing, labels and previews of every session of `built`.
fn check_sessions(kind: &Kind, built: &Built) {
    let listed = listed(kind, built);
    assert_eq!(
        listed.len(),
        built.sessions.len(),
        "{}: {listed:?}",
        kind.name
    );
    for expect in &built.sessions {
        let who = format!("{} {}", kind.name, expect.id);
        let found: Vec<&Value> = listed
            .iter()
            .filter(|c| c["sessionId"] == expect.id)
            .collect();
        assert_eq!(found.len(), 1, "{who}: listed once");
        let candidate = found[0];
        assert_eq!(candidate["store"], kind.name, "{who}");
        assert_eq!(candidate["cwd"], expect.cwd, "{who}");
        assert_eq!(candidate["label"], expect.label, "{who}");
        assert_eq!(
            candidate["path"],
            expect.file.to_str().unwrap(),
            "{who}: listed from its own file"
        );
        let context = preview(kind, built, expect.id);
        for said in expect.said {
            let quoted = serde_json::to_string(said).unwrap();
            assert!(
                context.contains(&quoted),
                "{who}: {said:?} missing from\n{context}"
            );
        }
        for hidden in expect.hidden {
            assert!(
                !context.contains(hidden),
                "{who}: {hidden:?} leaked into\n{context}"
            );
            assert!(
                !expect.label.contains(hidden),
                "{who}: {hidden:?} in the label"
            );
        }
    }
}

#[test]
fn every_registered_kind_has_a_row() {
    let registered: Vec<(&str, &str)> = REGISTRY
        .iter()
        .map(|k| (k.as_str(), k.store().flag()))
        .collect();
    let rows: Vec<(&str, &str)> = KINDS.iter().map(|k| (k.name, k.flag)).collect();
    assert_eq!(rows, registered);
}

#[test]
fn sessions_are_listed_labelled_and_previewed() {
    for kind in KINDS {
        let (_dir, built) = store(kind);
        check_sessions(kind, &built);
    }
}

#[test]
fn a_torn_last_line_is_tolerated() {
    for kind in KINDS {
        let (_dir, built) = store(kind);
        for expect in &built.sessions {
            (kind.tear)(&expect.file);
        }
        check_sessions(kind, &built);
    }
}

#[test]
fn a_vanished_file_makes_only_its_session_unreadable() {
    for kind in KINDS {
        let (_dir, built) = store(kind);
        let store_kind = kind_by_name(kind.name).unwrap();
        let catalog = Catalog::load(&StoreRoots::new().with(store_kind, &built.root));
        let (gone, kept) = built.sessions.split_first().unwrap();
        let record = catalog.find(gone.id).unwrap().clone();
        std::fs::remove_file(&gone.file).unwrap();
        let err = catalog.read_surface(&record).unwrap_err();
        let err: session_ref::Error = err.into();
        assert_eq!(
            err.code,
            session_ref::ErrorCode::ReadFailed,
            "{}",
            kind.name
        );
        assert!(
            err.message.contains(gone.file.to_str().unwrap()),
            "{}: {}",
            kind.name,
            err.message
        );
        for expect in kept {
            let record = catalog.find(expect.id).unwrap();
            let surface = catalog.read_surface(record);
            assert!(surface.is_ok(), "{} {}: {surface:?}", kind.name, expect.id);
            let title = catalog.read_title(record).unwrap();
            let label = title.unwrap_or_else(|| expect.id.to_owned());
            assert_eq!(label, expect.label, "{} {}", kind.name, expect.id);
        }
    }
}
