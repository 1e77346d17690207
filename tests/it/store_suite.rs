//! One suite over every store kind: the same expectations, run against a
//! fixture of each kind written in the real shapes of its agent.
//!
//! Every kind in `session_ref_stores::REGISTRY` must have a row in
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

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;
use session_ref_stores::{kind_by_name, Catalog, StoreRoots, REGISTRY};

use crate::support;
use crate::support::opencode as opencode_fixture;

mod kilo_droid_crush;
mod newer;
use kilo_droid_crush::{crush, droid, kilo};

/// One store kind's row: its name, its flag, and its fixture.
pub(crate) struct Kind {
    /// The kind's name (`store` in `candidates --json`).
    pub(crate) name: &'static str,
    /// The flag naming a root of this kind.
    pub(crate) flag: &'static str,
    /// Write a store below the given directory.
    build: fn(&Path) -> Built,
    /// Tear the last line of a session file as a writer would leave it.
    tear: fn(&Path),
}

/// What a builder wrote.
pub(crate) struct Built {
    /// The directory to name with the kind's flag.
    pub(crate) root: PathBuf,
    /// The sessions, each with what is expected of it.
    pub(crate) sessions: Vec<Expect>,
}

/// What the suite expects of one session.
pub(crate) struct Expect {
    pub(crate) id: &'static str,
    cwd: &'static str,
    pub(crate) label: &'static str,
    /// The file holding the session (torn, removed).
    pub(crate) file: PathBuf,
    /// Texts the snapshot must hold (a request, a reply).
    said: &'static [&'static str],
    /// Texts that must reach neither the snapshot nor the label.
    hidden: &'static [&'static str],
}

pub(crate) const KINDS: &[Kind] = &[
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
        name: "pi",
        flag: "pi",
        build: pi,
        tear: append_half_line,
    },
    Kind {
        name: "qwen",
        flag: "qwen",
        build: qwen,
        tear: append_half_line,
    },
    Kind {
        name: "copilot",
        flag: "copilot",
        build: copilot,
        tear: append_half_line,
    },
    Kind {
        name: "opencode",
        flag: "opencode",
        build: opencode,
        tear: opencode_tear,
    },
    Kind {
        name: "antigravity",
        flag: "antigravity",
        build: antigravity,
        tear: append_half_line,
    },
    Kind {
        name: "cursor",
        flag: "cursor",
        build: cursor,
        tear: append_half_line,
    },
    Kind {
        name: "cline",
        flag: "cline",
        build: cline,
        tear: cline_tear,
    },
    Kind {
        name: "kilo",
        flag: "kilo",
        build: kilo,
        tear: opencode_tear,
    },
    Kind {
        name: "droid",
        flag: "droid",
        build: droid,
        tear: append_half_line,
    },
    Kind {
        name: "crush",
        flag: "crush",
        build: crush,
        tear: opencode_tear,
    },
    Kind {
        name: "goose",
        flag: "goose",
        build: newer::goose,
        tear: newer::goose_tear,
    },
    Kind {
        name: "continue",
        flag: "continue",
        build: newer::continue_cli,
        tear: newer::continue_tear,
    },
    Kind {
        name: "kimi",
        flag: "kimi",
        build: newer::kimi,
        tear: append_half_line,
    },
    Kind {
        name: "vibe",
        flag: "vibe",
        build: newer::vibe,
        tear: newer::vibe_tear,
    },
    Kind {
        name: "amp",
        flag: "amp",
        build: amp,
        tear: amp_tear,
    },
    Kind {
        name: "aider",
        flag: "aider",
        build: aider,
        tear: aider_tear,
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
        // A paginated fork is listed by its inherited history's first prompt.
        "Why is the login test flaky?",
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

/// Copy `tests/fixtures/<from>` below `root`.
fn copy_fixture(from: &str, root: &Path) {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(from);
    for entry in walk(&source) {
        let target = root.join(entry.strip_prefix(&source).unwrap());
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(&entry, target).unwrap();
    }
}

/// The files below `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files
}

/// A pi sessions directory as pi 0.73.1 wrote it (`tools/run-pi-qwen.sh`,
/// `tools/make-pi-qwen-fixtures.py`): print-mode runs (`--continue`,
/// piped stdin with `@file`, a prompt template, thinking and a tool call,
/// extension context), an RPC session renamed, compacted and branched in
/// place by `/tree` (its compaction and the turns after it are on the
/// abandoned branch), a branch without summary, and a `--fork`.
fn pi(dir: &Path) -> Built {
    let root = dir.join("sessions");
    copy_fixture("pi/sessions", &root);
    let folder = root.join("--w-projé ü--");
    let file = |stem: &str| folder.join(format!("{stem}.jsonl"));
    let session = |stem: &'static str, label, said, hidden| Expect {
        id: &stem[25..],
        cwd: "/w/projé ü",
        label,
        file: file(stem),
        said,
        hidden,
    };
    Built {
        root: root.clone(),
        sessions: vec![
            session(
                "2026-12-01T18-54-33-321Z_01a232f5-6769-7035-be86-09b8d56c6ab7",
                "hello world — café ☕ 日本語",
                &[
                    "hello world — café ☕ 日本語",
                    "ACK: second turn on the same session",
                ],
                &["question in the fork"],
            ),
            session(
                "2026-12-01T18-54-40-300Z_01a232f5-82ab-7747-9da3-3007f4d79005",
                "piped stdin data",
                &["piped stdin data\n@/w/projé ü/notes.md summarize this file"],
                &["line one of notes"],
            ),
            session(
                "2026-12-01T18-54-44-957Z_01a232f5-94dc-776c-bc21-01e6d00a4844",
                "Say hello to Carol warmly, in Spanish.",
                &["ACK: Say hello to Carol warmly, in Spanish."],
                &[],
            ),
            session(
                "2026-12-01T18-54-48-562Z_01a232f5-a2f1-729f-8e2d-a7d2fe55df3f",
                "[[think]] think first, then [[tool:read {\"path\":\"notes.md\"}]]",
                &["TOOL RESULT SEEN: line one of notes line two — ü "],
                &["MOCK REASONING", "call_mock"],
            ),
            session(
                "2026-12-01T18-54-51-975Z_01a232f5-b047-7443-b88a-c2a2212d589b",
                "CTX with extension context",
                &["CTX with extension context"],
                &["ctx-ext"],
            ),
            session(
                "2026-12-01T18-54-55-560Z_01a232f5-be47-72c8-a0f3-a2ece3ec2c64",
                "Named via RPC ✓",
                &["rpc first question", "ACK: on the new branch"],
                &[
                    "rpc second question",
                    "after the compaction",
                    "MOCK SUMMARY",
                ],
            ),
            session(
                "2026-12-01T18-55-20-412Z_01a232f6-1f5b-73be-8691-2194bd0854d4",
                "branch without summary base",
                &["branch without summary base", "replacement second"],
                &[],
            ),
            session(
                "2026-12-01T18-55-32-888Z_01a232f6-5018-7150-92ea-44a6cf14d897",
                "hello world — café ☕ 日本語",
                &["second turn on the same session", "question in the fork"],
                &[],
            ),
        ],
    }
}

/// A Qwen Code projects directory as Qwen Code 0.24.4 wrote it
/// (`tools/run-pi-qwen.sh`, `tools/make-pi-qwen-fixtures.py`): a chat
/// continued, resumed and renamed, its `--fork-session` fork, piped stdin
/// with `@file`, a custom command, thinking and a tool call, a large-usage
/// turn, and a sub-agent run whose background-task notices are `user`
/// records nobody typed (its sub-agent transcript is not a session).
fn qwen(dir: &Path) -> Built {
    let root = dir.join("projects");
    copy_fixture("qwen/projects", &root);
    let chats = root.join("-w-proj---/chats");
    let session = |id: &'static str, label, said, hidden| Expect {
        id,
        cwd: "/w/projé ü",
        label,
        file: chats.join(format!("{id}.jsonl")),
        said,
        hidden,
    };
    Built {
        root: root.clone(),
        sessions: vec![
            session(
                "cdb0c8bb-094a-4a8f-8fd9-26c5c1a935fd",
                "Renamed chat ✓",
                &["hello world — café ☕ 日本語", "second turn", "resumed by id"],
                &["in the fork", "ui_telemetry", "Managed memory"],
            ),
            session(
                "3ffaa820-9b5d-4da5-9f7f-1635a71275f1",
                "hello world — café ☕ 日本語",
                &["resumed by id", "in the fork"],
                &[],
            ),
            session(
                "56b042d7-6cee-432e-8be4-d88cb324075a",
                "piped stdin data",
                &["piped stdin data\n\n\nsummarize @notes.md please"],
                &["line one of notes", "Content from referenced files"],
            ),
            session(
                "b5ebe359-7f02-49c5-a42a-9f4d61f44cfd",
                "Say hello to Carol warmly.",
                &["Say hello to Carol warmly."],
                &[],
            ),
            session(
                "891001a8-d199-4f5a-8eeb-ddb8ee2f6bfc",
                "[[think]] think, then [[tool:read_file {\"file_path\":\"notes.md\"}]]",
                &["TOOL RESULT SEEN: File path must be absolute, but was relative: notes.md. You "],
                &["MOCK REASONING", "call_mock"],
            ),
            session(
                "730627c3-a963-4d63-8de2-4a17bd5fc792",
                "[[bigusage]] big usage turn",
                &["[[bigusage]] big usage turn", "after compression"],
                &[],
            ),
            session(
                "f87e8fe4-0a6a-450f-b50e-dfa22218ce37",
                "[[tool:agent {\"description\":\"sub\",\"prompt\":\"sub-agent task\",\"subagent_type\":\"gen",
                &["[[tool:agent {\"description\":\"sub\",\"prompt\":\"sub-agent task\",\"subagent_type\":\"general-purpose\"}]]"],
                &["task-notification"],
            ),
        ],
    }
}

/// A GitHub Copilot CLI session-state directory (1.0.102): one folder per
/// session, `events.jsonl` beside `workspace.yaml`; a sub-agent's turn
/// inline, marked by an envelope `agentId`.
fn copilot(dir: &Path) -> Built {
    let root = dir.join(".copilot/session-state");
    let a = "c0b1a000-0000-4000-8000-00000000000a";
    let b = "c0b1a000-0000-4000-8000-00000000000b";
    let ev = |kind: &str, data: &str, at: &str, extra: &str| {
        format!(
            r#"{{"type":"{kind}","data":{data},"id":"{kind}-{at}","timestamp":"2026-01-06T08:00:{at}.000Z","parentId":null{extra}}}"#
        )
    };
    let start = |id: &str, cwd: &str| {
        ev(
            "session.start",
            &format!(
                r#"{{"sessionId":"{id}","version":1,"producer":"copilot-agent","copilotVersion":"1.0.102","startTime":"2026-01-06T08:00:00.000Z","context":{{"cwd":"{cwd}"}}}}"#
            ),
            "00",
            "",
        )
    };
    let first = root.join(a).join("events.jsonl");
    write(
        &first,
        &[
            start(a, "/w/cli"),
            ev(
                "user.message",
                r#"{"content":"Add a --dry-run flag to deploy","transformedContent":"<current_datetime>2026-01-06T08:00:01</current_datetime>\n\nAdd a --dry-run flag to deploy","delivery":"idle"}"#,
                "01",
                "",
            ),
            ev(
                "system.message",
                r#"{"role":"system","content":"You are the GitHub Copilot CLI"}"#,
                "01",
                "",
            ),
            ev(
                "assistant.message",
                r#"{"content":"","toolRequests":[{"toolCallId":"t1","name":"bash","arguments":{"command":"TOOL-INPUT-XYZZY"}}],"reasoningText":"REASONING-XYZZY"}"#,
                "02",
                "",
            ),
            ev(
                "tool.execution_complete",
                r#"{"toolCallId":"t1","success":true,"result":{"content":"TOOL-OUTPUT-XYZZY"}}"#,
                "03",
                "",
            ),
            ev(
                "user.message",
                r#"{"content":"SUBAGENT-PROMPT-XYZZY","source":"agent-x"}"#,
                "04",
                r#","agentId":"ag1""#,
            ),
            ev(
                "assistant.message",
                r#"{"content":"SUBAGENT-REPLY-XYZZY"}"#,
                "05",
                r#","agentId":"ag1""#,
            ),
            ev(
                "assistant.message",
                r#"{"content":"deploy --dry-run now prints the plan","toolRequests":[]}"#,
                "06",
                "",
            ),
        ],
    );
    std::fs::write(
        root.join(a).join("workspace.yaml"),
        "id: c0b1a000-0000-4000-8000-00000000000a\ncwd: /w/cli\nname: Deploy dry run\nuser_named: true\n",
    )
    .unwrap();
    let second = root.join(b).join("events.jsonl");
    write(
        &second,
        &[
            start(b, "/w/docs"),
            ev(
                "user.message",
                r#"{"content":"Fix the typos in the guide ✓","transformedContent":"<current_datetime>x</current_datetime>\n\nFix the typos in the guide ✓"}"#,
                "01",
                "",
            ),
            ev(
                "assistant.message",
                r#"{"content":"Fixed 3 typos"}"#,
                "02",
                "",
            ),
        ],
    );
    Built {
        root,
        sessions: vec![
            Expect {
                id: a,
                cwd: "/w/cli",
                label: "Deploy dry run",
                file: first,
                said: &[
                    "Add a --dry-run flag to deploy",
                    "deploy --dry-run now prints the plan",
                ],
                hidden: &[
                    "TOOL-INPUT-XYZZY",
                    "TOOL-OUTPUT-XYZZY",
                    "REASONING-XYZZY",
                    "SUBAGENT-PROMPT-XYZZY",
                    "SUBAGENT-REPLY-XYZZY",
                    "current_datetime",
                ],
            },
            Expect {
                id: b,
                cwd: "/w/docs",
                label: "Fix the typos in the guide ✓",
                file: second,
                said: &["Fix the typos in the guide ✓", "Fixed 3 typos"],
                hidden: &["current_datetime"],
            },
        ],
    }
}

/// An opencode data directory: a database upgraded by opencode 2.0 (rows
/// still in its `-wal`, as while opencode runs) holding a 1.x session with
/// a sub-agent and a 2.x session, and a legacy `storage/` session from
/// before the database, plus a legacy copy of the database's session
/// (listed once).
fn opencode(dir: &Path) -> Built {
    use opencode_fixture::*;
    let root = dir.join("opencode");
    let db = Db::create_2_0(&root.join("opencode.db"));
    let c = "ses_0c1d2e3f6ffeTwoZeroShape1";
    db.session_v2(c, None, "/w/cli", None, 1_788_972_143_734);
    db.v2_message(
        c,
        4,
        "msg_c1",
        "user",
        1_788_972_143_788,
        v2_user(1_788_972_143_788, "Make the CLI print its version"),
    );
    db.v2_message(
        c,
        5,
        "msg_c2",
        "assistant",
        1_788_972_144_865,
        v2_assistant(
            1_788_972_144_865,
            &[
                v2_reasoning("REASONING-XYZZY"),
                v2_tool("bash", "TOOL-INPUT-XYZZY", "TOOL-OUTPUT-XYZZY"),
                v2_text("The CLI now prints 2.0.25 for --version"),
            ],
        ),
    );
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
            Expect {
                id: c,
                cwd: "/w/cli",
                label: "Make the CLI print its version",
                file: db.path.join(c),
                said: &[
                    "Make the CLI print its version",
                    "The CLI now prints 2.0.25 for --version",
                ],
                hidden: HIDDEN,
            },
        ],
        root,
    }
}

/// A Cline CLI 3.0.65 home (`$CLINE_DIR`, named as the root): session
/// folders under `data/sessions`, each a manifest and a messages file as
/// Cline writes them; one session spawned a sub-agent (its transcript in
/// the parent's folder, its own folder `<parent>__<agent>`), the other was
/// compacted.
fn cline(dir: &Path) -> Built {
    let root = dir.join(".cline");
    let sessions = root.join("data/sessions");
    let a = "1796187340952_vz5li";
    let b = "1796187433537_wnwix";
    let manifest = |id: &str, cwd: &str, title: Option<&str>, sub: Option<&str>| {
        let mut metadata = serde_json::json!({"checkpoint": {"history": []},
            "systemPrompt": "Working Directory: /elsewhere"});
        if let Some(title) = title {
            metadata["title"] = title.into();
        }
        serde_json::json!({"session_id": id, "source": "cli", "pid": 4242,
            "started_at": format!("2026-12-02T04:4{}:06.101Z", if id == a { 3 } else { 5 }),
            "ended_at": null, "exit_code": null, "status": "idle", "interactive": 0,
            "provider": "openai-compatible", "model": "mock-model", "cwd": cwd,
            "workspace_root": cwd, "team_name": null, "parent_session_id": sub,
            "parent_agent_id": null, "agent_id": null, "is_subagent": sub.is_some(),
            "prompt": "<user_input mode=\"act\">ignored column</user_input>",
            "metadata": metadata, "transcript_path": "", "hook_path": "",
            "messages_path": format!("/home/me/.cline/data/sessions/{id}/{id}.messages.json"),
            "updated_at": "2026-12-02T05:00:00.000Z"})
    };
    let messages = |id: &str, messages: serde_json::Value| {
        serde_json::json!({"version": 1, "updated_at": "2026-12-02T04:50:06.507Z",
            "agent": "lead", "sessionId": id,
            "origin": {"source": "cli", "mode": "user", "sessionId": id, "version": "3.0.65"},
            "messages": messages, "system_prompt": "You are Cline, a highly skilled engineer"})
    };
    let put = |path: PathBuf, value: serde_json::Value| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, serde_json::to_string_pretty(&value).unwrap()).unwrap();
        path
    };
    let typed = |text: &str| {
        serde_json::json!({"id": "u1", "role": "user", "ts": 1796187340990_i64,
            "content": [{"type": "text", "text": format!("<user_input mode=\"act\">{text}</user_input>")}]})
    };
    put(
        sessions.join(a).join(format!("{a}.json")),
        manifest(a, "/w/fetch", Some("Retry the fetch loop"), None),
    );
    let first = put(
        sessions.join(a).join(format!("{a}.messages.json")),
        messages(
            a,
            serde_json::json!([
                typed("Add a retry to the fetch loop"),
                {"id": "msg_1", "role": "assistant", "ts": 1796187341000_i64,
                 "modelInfo": {"id": "mock-model", "provider": "openai-compatible"},
                 "content": [{"type": "thinking", "thinking": "REASONING-XYZZY"},
                             {"type": "tool_use", "id": "call_mock_0003", "name": "run_commands",
                              "input": {"commands": ["TOOL-INPUT-XYZZY"]}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_mock_0003",
                    "name": "run_commands",
                    "content": [{"query": "q", "result": "TOOL-OUTPUT-XYZZY", "success": true}]}]},
                {"id": "msg_2", "role": "assistant", "ts": 1796187342000_i64,
                 "content": [{"type": "tool_use", "id": "call_mock_0004", "name": "spawn_agent",
                              "input": {"task": "TOOL-INPUT-XYZZY"}}]},
                {"id": "msg_3", "role": "assistant", "ts": 1796187343000_i64,
                 "content": [{"type": "text", "text": "fetch now retries three times"}]}
            ]),
        ),
    );
    // The sub-agent: its transcript in the parent's folder, and a folder
    // of its own that is not a session to list.
    let agent = "agent_1796187433537_5oq5lv";
    put(
        sessions.join(a).join(format!("{agent}.messages.json")),
        serde_json::json!({"version": 1, "agent": "subagent", "sessionId": format!("{a}__{agent}"),
            "origin": {"source": "cli", "mode": "subagent", "parentThreadId": a},
            "messages": [typed("SUBAGENT-PROMPT-XYZZY")]}),
    );
    let sub = format!("{a}__{agent}");
    put(
        sessions.join(&sub).join(format!("{sub}.json")),
        manifest(&sub, "/w/fetch", None, Some(a)),
    );
    put(
        sessions.join(b).join(format!("{b}.json")),
        manifest(b, "/w/docs", None, None),
    );
    let second = put(
        sessions.join(b).join(format!("{b}.messages.json")),
        messages(
            b,
            serde_json::json!([
                {"role": "user", "content": [{"type": "text",
                    "text": "<user_input mode=\"plan\">Fix the typos in the guide ✓\nand the links</user_input>"}]},
                {"role": "assistant", "content": [{"type": "text", "text": "OLD-REPLY"}]},
                typed("Now the index page"),
                {"role": "assistant", "content": [{"type": "text", "text": "The index page reads well now"}]}
            ]),
        ),
    );
    put(
        sessions.join(b).join(format!("{b}.compaction.json")),
        serde_json::json!({"conversation_id": b, "source_message_count": 2,
            "source_prefix_hash": "abc", "source_last_message_key": "k",
            "messages": [{"role": "user", "content": [{"type": "text",
                "text": "Context summary:\n\nThe guide's typos are fixed"}],
                "metadata": {"kind": "compaction_summary", "displayRole": "system",
                             "summary": "The guide's typos are fixed", "tokensBefore": 5661}}]}),
    );
    Built {
        sessions: vec![
            Expect {
                id: a,
                cwd: "/w/fetch",
                label: "Retry the fetch loop",
                file: first,
                said: &[
                    "Add a retry to the fetch loop",
                    "fetch now retries three times",
                ],
                hidden: &[
                    "TOOL-INPUT-XYZZY",
                    "TOOL-OUTPUT-XYZZY",
                    "REASONING-XYZZY",
                    "SUBAGENT-PROMPT-XYZZY",
                    "ignored column",
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
                hidden: &["OLD-REPLY", "Context summary", "user_input"],
            },
        ],
        root,
    }
}

/// Amp's local thread copies (`~/.local/share/amp/threads`): two threads as
/// public readers of these files found them, Anthropic-style blocks with
/// reasoning, a tool call and its result, a compaction summary in an
/// `info` message, and a last message still being written.
fn amp(dir: &Path) -> Built {
    use serde_json::json;
    let root = dir.join("amp").join("threads");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(dir.join("amp").join("device-id.json"), "{\"id\": \"d\"}\n").unwrap();
    let user = |text: &str| json!({"role": "user", "content": [{"type": "text", "text": text}], "meta": {"sentAt": 1767865803600_i64}});
    let reply = |text: &str| json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "REASONING-XYZZY"}, {"type": "text", "text": text}], "state": {"type": "complete", "stopReason": "end_turn"}});
    let tool = [
        json!({"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"path": "TOOL-INPUT-XYZZY"}}]}),
        json!({"role": "user", "content": [{"type": "tool_result", "toolUseID": "toolu_1", "run": {"status": "done", "result": "TOOL-OUTPUT-XYZZY"}}]}),
    ];
    let a = "T-019b9d03-62e3-772f-9780-3e637f90eaec";
    let b = "T-019c0000-1111-7222-8333-444455556666";
    let first = json!({"v": 7, "id": a, "created": 1767865803494_i64, "title": "Orders API pagination",
        "env": {"initial": {"trees": [{"displayName": "api", "uri": "file:///w/api"}]}},
        "messages": [user("Add pagination to the orders API"), tool[0], tool[1],
            reply("Orders now come in pages of 50"), user("and the totals?"), reply("Totals are still being writ")]});
    let second = json!({"v": 3, "id": b, "created": 1767900000000_i64,
        "env": {"initial": {"cwd": "/w/cli", "trees": [{"uri": "file:///w/cli"}]}},
        "messages": [user("Old question"), reply("OLD-REPLY"),
            json!({"role": "info", "content": [{"type": "summary", "summary": {"type": "message", "summary": "The CLI needs a version flag"}}]}),
            user("Make the CLI print its version"), reply("The CLI now prints 2.0.25 for --version"),
            user("thanks"), reply("You are welcome, more to co")]});
    let (fa, fb) = (
        root.join(format!("{a}.json")),
        root.join(format!("{b}.json")),
    );
    std::fs::write(&fa, serde_json::to_string_pretty(&first).unwrap()).unwrap();
    std::fs::write(&fb, serde_json::to_string(&second).unwrap()).unwrap();
    Built {
        sessions: vec![
            Expect {
                id: a,
                cwd: "/w/api",
                label: "Orders API pagination",
                file: fa,
                said: &[
                    "Add pagination to the orders API",
                    "Orders now come in pages of 50",
                ],
                hidden: HIDDEN,
            },
            Expect {
                id: b,
                cwd: "/w/cli",
                label: "Old question",
                file: fb,
                said: &[
                    "The CLI needs a version flag",
                    "Make the CLI print its version",
                    "The CLI now prints 2.0.25 for --version",
                ],
                hidden: &["OLD-REPLY", "REASONING-XYZZY"],
            },
        ],
        root,
    }
}

/// An Amp thread file read while it is written: cut inside its last
/// message.
fn amp_tear(file: &Path) {
    let bytes = std::fs::read(file).unwrap();
    let text = String::from_utf8(bytes).unwrap();
    let cut = text
        .rfind("more to co")
        .or_else(|| text.rfind("still being"))
        .unwrap();
    std::fs::write(file, &text[..cut]).unwrap();
}

/// An Aider (0.86.2) user's home, `~/.aider` named as the root: a
/// `--no-git` run in the home directory wrote `~/.aider.chat.history.md`,
/// and `~/.aider.conf.yml`'s `chat-history-file` sends a project's runs to
/// a file of its own (two sessions, one from the project's subdirectory).
/// The files are as aider appends them: `> ` lines of its own (argv echo,
/// banner, token counts), `#### ` typed lines, replies with inline
/// reasoning, a bare Enter.
fn aider(dir: &Path) -> Built {
    let home = dir.join("home");
    let root = home.join(".aider");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("analytics.json"), "{\"uuid\": \"u\"}\n").unwrap();
    let custom = home.join("logs").join("api.history.md");
    std::fs::create_dir_all(custom.parent().unwrap()).unwrap();
    std::fs::write(
        home.join(".aider.conf.yml"),
        format!(
            "model: openai/mock-model\nchat-history-file: {}\n",
            custom.display()
        ),
    )
    .unwrap();
    let banner = "> /v/bin/aider --model openai/mock-model --message TOOL-INPUT-XYZZY  \n\
                  > Aider v0.86.2  \n> Model: openai/mock-model with whole edit format  \n";
    let in_home = home.join(".aider.chat.history.md");
    std::fs::write(
        &in_home,
        format!(
            "\n# aider chat started at 2026-12-02 05:22:07\n\n{banner}> Git repo: none  \n\n\
             #### <blank>  \n\n#### Rewrite the install guide  \n#### for cargo install  \n\n\
             <thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>\n\nREASONING-XYZZY\n\n\
             </thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>\n\n\
             The guide now starts with cargo install\n\n> Tokens: 798 sent, 11 received.  \n"
        ),
    )
    .unwrap();
    std::fs::write(
        &custom,
        format!(
            "\n# aider chat started at 2026-12-02 06:00:00\n\n{banner}> Git repo: .git with 2 files  \n\n\
             #### /run ls  \n\n> Added 12 lines of output to the chat.  \n\n\
             #### Add pagination to the orders API  \n\nOrders now come in pages of 50\n\n\
             > Tokens: 1 sent, 1 received.  \n\
             \n# aider chat started at 2026-12-02 06:10:00\n\n{banner}\
             > Note: in-chat filenames are always relative to the git working dir, not the current working dir.  \n\
             > Cur working dir: /w/api/src  \n> Git working dir: /w/api  \n\n\
             #### Make the CLI print its version  \n\nThe CLI now prints 2.0.25 for --version\n"
        ),
    )
    .unwrap();
    let id = |file: &Path, stamp: &str| -> &'static str {
        use sha2::{Digest, Sha256};
        let canonical = std::fs::canonicalize(file).unwrap();
        let digest = Sha256::digest(canonical.as_os_str().as_encoded_bytes());
        let hash: String = digest[..4].iter().map(|b| format!("{b:02x}")).collect();
        Box::leak(format!("aider-{stamp}-{hash}").into_boxed_str())
    };
    let (a, b, c) = (
        id(&in_home, "20261202T052207"),
        id(&custom, "20261202T060000"),
        id(&custom, "20261202T061000"),
    );
    let home_dir: &'static str = Box::leak(home.to_string_lossy().into_owned().into_boxed_str());
    let logs_dir: &'static str = Box::leak(
        custom
            .parent()
            .unwrap()
            .to_string_lossy()
            .into_owned()
            .into_boxed_str(),
    );
    Built {
        sessions: vec![
            Expect {
                id: a,
                cwd: home_dir,
                label: "Rewrite the install guide",
                file: in_home.join(a),
                said: &[
                    "Rewrite the install guide\nfor cargo install",
                    "The guide now starts with cargo install",
                ],
                hidden: &["TOOL-INPUT-XYZZY", "REASONING-XYZZY", "<blank>", "Tokens:"],
            },
            Expect {
                id: b,
                cwd: logs_dir,
                label: "Add pagination to the orders API",
                file: custom.join(b),
                said: &[
                    "/run ls",
                    "Add pagination to the orders API",
                    "Orders now come in pages of 50",
                ],
                hidden: &["TOOL-INPUT-XYZZY", "Added 12 lines", "Aider v0.86.2"],
            },
            Expect {
                id: c,
                cwd: "/w/api/src",
                label: "Make the CLI print its version",
                file: custom.join(c),
                said: &[
                    "Make the CLI print its version",
                    "The CLI now prints 2.0.25 for --version",
                ],
                hidden: &["TOOL-INPUT-XYZZY", "Cur working dir"],
            },
        ],
        root,
    }
}

/// The file holding a session: the session's own, or (a session of a
/// file shared by several: Aider's history, opencode's database) the file
/// its path is below.
fn file_on_disk(file: &Path) -> PathBuf {
    match file.parent() {
        Some(parent) if !file.exists() && parent.is_file() => parent.to_owned(),
        _ => file.to_owned(),
    }
}

/// An Aider history being appended to: a prompt line cut short.
fn aider_tear(file: &Path) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(file_on_disk(file))
        .unwrap();
    f.write_all(b"\n#### and the rest of the prom").unwrap();
}

/// A Cline messages file read while Cline rewrites it: cut short, inside
/// the system prompt that follows the messages.
fn cline_tear(file: &Path) {
    let bytes = std::fs::read(file).unwrap();
    std::fs::write(file, &bytes[..bytes.len() - 12]).unwrap();
}

/// An opencode session being written: a database session's `-wal` ends in
/// half a frame (a writer stopped mid-write), a legacy session's folder
/// holds half a message file.
fn opencode_tear(file: &Path) {
    let in_db = file.parent().is_some_and(Path::is_file);
    if in_db {
        return half_wal_frame(file.parent().unwrap());
    }
    let id = file.file_stem().unwrap();
    let storage = file.parent().unwrap().parent().unwrap().parent().unwrap();
    let folder = storage.join("message").join(id);
    std::fs::create_dir_all(&folder).unwrap();
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(folder.join("msg_zz.json"))
        .unwrap();
    f.write_all(br#"{"id":"msg_zz","role":"user","time":{"crea"#)
        .unwrap();
}

/// A database's `-wal` ending in half a frame: a writer stopped mid-write.
fn half_wal_frame(db: &Path) {
    let mut wal = db.as_os_str().to_owned();
    wal.push("-wal");
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(PathBuf::from(wal))
        .unwrap();
    f.write_all(&[0x5a; 1500]).unwrap();
}

/// An Antigravity CLI directory (`~/.gemini/antigravity-cli`, agy 1.x):
/// one `brain/<id>/` folder per conversation with its full transcript
/// (and the truncated copy beside it), the prompt history naming one
/// conversation's workspace, `cache/last_conversations.json` the other's,
/// an annotation titling one, and a sub-agent's conversation reporting to
/// its parent (not a session of its own).
fn antigravity(dir: &Path) -> Built {
    let root = dir.join(".gemini/antigravity-cli");
    let a = "a9000000-0000-4000-8000-00000000000a";
    let b = "a9000000-0000-4000-8000-00000000000b";
    let child = "a9000000-0000-4000-8000-0000000000cc";
    let step = |index: u32, source: &str, kind: &str, body: serde_json::Value| {
        let mut value = serde_json::json!({
            "step_index": index,
            "source": source,
            "type": kind,
            "status": "DONE",
            "created_at": format!("2026-01-07T09:00:{index:02}Z"),
        });
        value
            .as_object_mut()
            .unwrap()
            .extend(body.as_object().unwrap().clone());
        value.to_string()
    };
    let prompt = |index: u32, typed: &str| {
        step(
            index,
            "USER_EXPLICIT",
            "USER_INPUT",
            serde_json::json!({"content": format!("<USER_REQUEST>\n{typed}\n</USER_REQUEST>\n<ADDITIONAL_METADATA>\nINJECTED-METADATA-XYZZY\n</ADDITIONAL_METADATA>")}),
        )
    };
    let logs = |id: &str| root.join("brain").join(id).join(".system_generated/logs");
    let first = logs(a).join("transcript_full.jsonl");
    let lines = vec![
        prompt(0, "Give uploads a retry budget"),
        step(1, "SYSTEM", "CONVERSATION_HISTORY", serde_json::json!({})),
        step(
            2,
            "MODEL",
            "PLANNER_RESPONSE",
            serde_json::json!({"content": "", "thinking": "REASONING-XYZZY", "tool_calls": [{"name": "run_command", "args": {"CommandLine": "TOOL-INPUT-XYZZY", "Cwd": "/w/app"}}]}),
        ),
        step(
            3,
            "MODEL",
            "RUN_COMMAND",
            serde_json::json!({"content": "Output:\nTOOL-OUTPUT-XYZZY\n"}),
        ),
        step(
            4,
            "MODEL",
            "PLANNER_RESPONSE",
            serde_json::json!({"content": "Uploads now retry three times"}),
        ),
    ];
    write(&first, &lines);
    write(&logs(a).join("transcript.jsonl"), &lines[3..]);
    write(
        &root.join("history.jsonl"),
        &[serde_json::json!({"display": "Give uploads a retry budget", "timestamp": 1767776400000_i64, "workspace": "/w/app", "conversationId": a}).to_string()],
    );
    std::fs::create_dir_all(root.join("annotations")).unwrap();
    std::fs::write(
        root.join(format!("annotations/{a}.pbtxt")),
        "title: \"Upload retry budget\"\n",
    )
    .unwrap();
    let second = logs(b).join("transcript_full.jsonl");
    write(
        &second,
        &[
            prompt(0, "Document the export flags ✓"),
            step(
                1,
                "MODEL",
                "PLANNER_RESPONSE",
                serde_json::json!({"content": "The flags are documented in EXPORT.md"}),
            ),
            step(
                2,
                "SYSTEM",
                "SYSTEM_MESSAGE",
                serde_json::json!({"content": "The following is a <SYSTEM_MESSAGE> not actually sent by the user. WAKEUP-XYZZY"}),
            ),
        ],
    );
    std::fs::create_dir_all(root.join("cache")).unwrap();
    std::fs::write(
        root.join("cache/last_conversations.json"),
        serde_json::json!({ "/w/docs": b }).to_string(),
    )
    .unwrap();
    write(
        &logs(child).join("transcript_full.jsonl"),
        &[
            step(
                0,
                "SYSTEM",
                "USER_INPUT",
                serde_json::json!({"content": "<USER_REQUEST>SUBAGENT-PROMPT-XYZZY</USER_REQUEST>"}),
            ),
            step(
                1,
                "MODEL",
                "PLANNER_RESPONSE",
                serde_json::json!({"content": "SUBAGENT-REPLY-XYZZY", "tool_calls": [{"name": "send_message", "args": {"Recipient": a, "Message": "done"}}]}),
            ),
        ],
    );
    Built {
        root,
        sessions: vec![
            Expect {
                id: a,
                cwd: "/w/app",
                label: "Upload retry budget",
                file: first,
                said: &[
                    "Give uploads a retry budget",
                    "Uploads now retry three times",
                ],
                hidden: &[
                    "TOOL-INPUT-XYZZY",
                    "TOOL-OUTPUT-XYZZY",
                    "REASONING-XYZZY",
                    "INJECTED-METADATA-XYZZY",
                    "SUBAGENT-REPLY-XYZZY",
                ],
            },
            Expect {
                id: b,
                cwd: "/w/docs",
                label: "Document the export flags ✓",
                file: second,
                said: &[
                    "Document the export flags ✓",
                    "The flags are documented in EXPORT.md",
                ],
                hidden: &["WAKEUP-XYZZY", "INJECTED-METADATA-XYZZY"],
            },
        ],
    }
}

/// A Cursor CLI configuration directory (`~/.cursor`, cursor-agent
/// 2026.07): per-project agent transcripts (one with a sub-agent's
/// transcript beside it), a chat folder whose `meta.json` gives one
/// session's title and directory, and another whose `meta.json` has no
/// title and whose `store.db` (the CLI's schema, WAL mode) still holds the
/// placeholder name: its first prompt labels it.
fn cursor(dir: &Path) -> Built {
    let root = dir.join(".cursor");
    let a = "c5000000-0000-4000-8000-00000000000a";
    let b = "c5000000-0000-4000-8000-00000000000b";
    let transcript = |project: &str, id: &str| {
        root.join("projects")
            .join(project)
            .join("agent-transcripts")
            .join(id)
            .join(format!("{id}.jsonl"))
    };
    let user = |typed: &str| {
        let text = format!("<timestamp>Wednesday, Jan 7, 2026, 9:00 AM (UTC+1)</timestamp>\n<user_query>\n{typed}\n</user_query>\n<attached_files>INJECTED-FILE-XYZZY</attached_files>");
        serde_json::json!({"role": "user", "message": {"content": [{"type": "text", "text": text}]}}).to_string()
    };
    let assistant = |blocks: serde_json::Value| {
        serde_json::json!({"role": "assistant", "message": {"content": blocks}}).to_string()
    };
    let ended = r#"{"type":"turn_ended","status":"success"}"#.to_owned();
    let first = transcript("w-app", a);
    write(
        &first,
        &[
            user("Cache the avatar thumbnails"),
            assistant(serde_json::json!([
                {"type": "thinking", "thinking": "REASONING-XYZZY"},
                {"type": "tool_use", "id": "t1", "name": "Shell", "input": {"command": "TOOL-INPUT-XYZZY"}},
            ])),
            serde_json::json!({"role": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "TOOL-OUTPUT-XYZZY"}]}]}}).to_string(),
            assistant(serde_json::json!([{"type": "text", "text": "Thumbnails are cached for a day"}])),
            ended.clone(),
        ],
    );
    write(
        &first.with_file_name("subagents").join("task-1.jsonl"),
        &[
            user("SUBAGENT-PROMPT-XYZZY"),
            assistant(serde_json::json!([{"type": "text", "text": "SUBAGENT-REPLY-XYZZY"}])),
        ],
    );
    let chat = |id: &str| {
        let folder = root.join("chats/4b3e9c7a1d2f4e5a6b7c8d9e0f1a2b3c").join(id);
        std::fs::create_dir_all(&folder).unwrap();
        folder
    };
    std::fs::write(
        chat(a).join("meta.json"),
        serde_json::json!({"schemaVersion": 1, "createdAtMs": 1767772800000_i64, "hasConversation": true, "title": "Avatar thumbnail cache", "updatedAtMs": 1767772860000_i64, "cwd": "/w/app"}).to_string(),
    )
    .unwrap();
    let second = transcript("w-docs", b);
    write(
        &second,
        &[
            user("Explain the release checklist ✓"),
            assistant(
                serde_json::json!([{"type": "text", "text": "The checklist has five steps"}]),
            ),
            ended,
        ],
    );
    std::fs::write(
        chat(b).join("meta.json"),
        serde_json::json!({"schemaVersion": 1, "createdAtMs": 1767686400000_i64, "hasConversation": true, "title": "", "updatedAtMs": 1767686460000_i64, "cwd": "/w/docs"}).to_string(),
    )
    .unwrap();
    let conn = rusqlite::Connection::open(chat(b).join("store.db")).unwrap();
    conn.execute_batch(
        "PRAGMA journal_mode=wal;
         CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB);
         CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);",
    )
    .unwrap();
    let meta = serde_json::json!({"agentId": b, "latestRootBlobId": "00", "name": "New Agent", "mode": "default", "createdAt": 1767686400000_i64});
    let hex: String = meta
        .to_string()
        .bytes()
        .map(|x| format!("{x:02x}"))
        .collect();
    conn.execute("INSERT INTO meta (key, value) VALUES ('0', ?1)", [hex])
        .unwrap();
    drop(conn);
    Built {
        root,
        sessions: vec![
            Expect {
                id: a,
                cwd: "/w/app",
                label: "Avatar thumbnail cache",
                file: first,
                said: &[
                    "Cache the avatar thumbnails",
                    "Thumbnails are cached for a day",
                ],
                hidden: &[
                    "TOOL-INPUT-XYZZY",
                    "TOOL-OUTPUT-XYZZY",
                    "REASONING-XYZZY",
                    "INJECTED-FILE-XYZZY",
                    "SUBAGENT-PROMPT-XYZZY",
                    "SUBAGENT-REPLY-XYZZY",
                ],
            },
            Expect {
                id: b,
                cwd: "/w/docs",
                label: "Explain the release checklist ✓",
                file: second,
                said: &[
                    "Explain the release checklist ✓",
                    "The checklist has five steps",
                ],
                hidden: &["INJECTED-FILE-XYZZY", "timestamp"],
            },
        ],
    }
}

/// The built store of one kind, in a fresh directory.
pub(crate) fn store(kind: &Kind) -> (tempfile::TempDir, Built) {
    let dir = tempfile::tempdir().unwrap();
    let built = (kind.build)(dir.path());
    (dir, built)
}

/// `candidates --json` over one kind's store, by session id.
fn listed(kind: &Kind, built: &Built) -> Vec<Value> {
    let root = built.root.to_str().unwrap();
    let flag = format!("--{}", kind.flag);
    let out = support::run(
        &[&flag, root, "candidates", "--json", "--limit", "1000"],
        "",
    );
    assert!(
        out.status.success(),
        "{}: {}",
        kind.name,
        support::stderr(&out)
    );
    assert_eq!(support::stderr(&out), "", "{}: listing warns", kind.name);
    support::stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `preview ID --json` over one kind's store: the context text.
fn preview(kind: &Kind, built: &Built, id: &str) -> String {
    let root = built.root.to_str().unwrap();
    let flag = format!("--{}", kind.flag);
    let out = support::run(&[&flag, root, "preview", id, "--json"], "");
    assert!(
        out.status.success(),
        "{} {id}: {}",
        kind.name,
        support::stderr(&out)
    );
    let value: Value = serde_json::from_str(&support::stdout(&out)).unwrap();
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
        let gone_file = file_on_disk(&gone.file);
        match gone.file.parent().filter(|db| db.is_file()) {
            // A session of a database (`<database>/<id>`): the database
            // goes, with its WAL.
            Some(db) => {
                for suffix in ["", "-wal", "-shm"] {
                    let mut side = db.as_os_str().to_owned();
                    side.push(suffix);
                    let _ = std::fs::remove_file(PathBuf::from(side));
                }
            }
            None => std::fs::remove_file(&gone.file).unwrap(),
        }
        let err = catalog.read_surface(&record).unwrap_err();
        let err: session_ref::Error = err.into();
        assert_eq!(
            err.code,
            session_ref::ErrorCode::ReadFailed,
            "{}",
            kind.name
        );
        assert!(
            err.message.contains(gone_file.to_str().unwrap()),
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

#[test]
fn pi_and_qwen_last_activity_is_the_newest_time_the_log_records() {
    // After `git clone` every file is new: the order must come from the
    // logs (pi: the newest user or assistant message; Qwen: the last
    // record), not from the files' modification times.
    for (kind, newest_file_first) in [
        (
            &KINDS[4],
            "2026-12-01T18-54-40-300Z_01a232f5-82ab-7747-9da3-3007f4d79005.jsonl",
        ),
        (row("qwen"), "56b042d7-6cee-432e-8be4-d88cb324075a.jsonl"),
    ] {
        let (_dir, built) = store(kind);
        let now = std::time::SystemTime::now();
        for expect in &built.sessions {
            let file = std::fs::File::options()
                .append(true)
                .open(&expect.file)
                .unwrap();
            let newest = expect.file.ends_with(newest_file_first);
            let at = if newest {
                now
            } else {
                now - std::time::Duration::from_secs(3600)
            };
            file.set_modified(at).unwrap();
        }
        let root = built.root.to_str().unwrap();
        let flag = format!("--{}", kind.flag);
        let out = support::run(
            &[&flag, root, "candidates", "--json", "--sort", "updated"],
            "",
        );
        assert!(out.status.success(), "{}", support::stderr(&out));
        let ids: Vec<String> = support::stdout(&out)
            .lines()
            .map(|l| {
                serde_json::from_str::<Value>(l).unwrap()["sessionId"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        let expected: &[&str] = if kind.name == "pi" {
            &[
                "01a232f5-6769-7035-be86-09b8d56c6ab7",
                "01a232f6-5018-7150-92ea-44a6cf14d897",
                "01a232f6-1f5b-73be-8691-2194bd0854d4",
                "01a232f5-be47-72c8-a0f3-a2ece3ec2c64",
                "01a232f5-b047-7443-b88a-c2a2212d589b",
                "01a232f5-a2f1-729f-8e2d-a7d2fe55df3f",
                "01a232f5-94dc-776c-bc21-01e6d00a4844",
                "01a232f5-82ab-7747-9da3-3007f4d79005",
            ]
        } else {
            &[
                "f87e8fe4-0a6a-450f-b50e-dfa22218ce37",
                "730627c3-a963-4d63-8de2-4a17bd5fc792",
                "3ffaa820-9b5d-4da5-9f7f-1635a71275f1",
                "cdb0c8bb-094a-4a8f-8fd9-26c5c1a935fd",
                "891001a8-d199-4f5a-8eeb-ddb8ee2f6bfc",
                "b5ebe359-7f02-49c5-a42a-9f4d61f44cfd",
                "56b042d7-6cee-432e-8be4-d88cb324075a",
            ]
        };
        assert_eq!(ids, expected, "{}", kind.name);
    }
}

/// The row of the kind named `name`.
fn row(name: &str) -> &'static Kind {
    KINDS.iter().find(|k| k.name == name).unwrap()
}

/// Every file below `root` (a file root: itself) dated an hour ago, so the
/// title index trusts their stamps (a file modified in the last moments
/// could still change within the same clock tick, and is read again).
fn age(root: &Path) {
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for entry in walkdir::WalkDir::new(root).into_iter().flatten() {
        if entry.file_type().is_file() {
            let file = std::fs::File::options().write(true).open(entry.path());
            file.and_then(|f| f.set_modified(old)).unwrap();
        }
    }
}

/// Each file of the cache directory under `home`, with its bytes.
fn cache_files(home: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<(PathBuf, Vec<u8>)> = walkdir::WalkDir::new(home.join(".cache"))
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| (e.path().to_owned(), std::fs::read(e.path()).unwrap()))
        .collect();
    files.sort();
    files
}

#[test]
fn a_warm_listing_reads_nothing_again_and_rewrites_no_cache() {
    // Once a listing has filled the title index, listing an unchanged store
    // again answers from it and writes nothing: a run that dropped some
    // entries on save (a kind listing by one file and titling by another)
    // made every other warm run read each session again.
    let mut rewritten = Vec::new();
    for kind in KINDS {
        let (_dir, built) = store(kind);
        age(&built.root);
        let home = tempfile::tempdir().unwrap();
        let root = built.root.to_str().unwrap();
        let flag = format!("--{}", kind.flag);
        let list = || {
            let mut command = support::command(home.path());
            command.args([&flag, root, "candidates", "--json", "--limit", "1000"]);
            let out = support::feed(&mut command, "");
            assert!(
                out.status.success(),
                "{}: {}",
                kind.name,
                support::stderr(&out)
            );
            support::stdout(&out)
        };
        let first = list();
        let filled = cache_files(home.path());
        for run in 2..=3 {
            assert_eq!(list(), first, "{}: run {run} lists otherwise", kind.name);
            let now = cache_files(home.path());
            if now != filled {
                let names: Vec<_> = now.iter().map(|(p, _)| p.display().to_string()).collect();
                rewritten.push(format!("{} (run {run}: {names:?})", kind.name));
                break;
            }
        }
    }
    assert!(
        rewritten.is_empty(),
        "warm runs rewrote the cache: {rewritten:#?}"
    );
}

/// The kinds whose readers give `export --tools` their agents' tool calls
/// and results (docs/agents/README.md, "Tool calls in exports").
const TOOL_KINDS: &[&str] = &[
    "hydra", "claude", "codex", "opencode", "kilo", "amp", "goose", "crush", "droid", "cline",
    "kimi", "continue", "vibe", "cursor", "copilot",
];

/// Tool kinds whose suite store is a copy of a chat the agent wrote, with
/// tool calls of its own rather than the markers: their calls and results
/// are checked against that chat in `export.rs`.
const TOOL_KINDS_OF_REAL_CHATS: &[&str] = &["qwen"];

/// `export ID --format json` over one kind's store, `--tools` when asked:
/// the `(tool part, text)` of its tool messages and the texts of the others.
fn exported(
    kind: &Kind,
    built: &Built,
    id: &str,
    tools: bool,
) -> (Vec<(String, String)>, Vec<String>) {
    let root = built.root.to_str().unwrap();
    let flag = format!("--{}", kind.flag);
    let mut args = vec![flag.as_str(), root, "export", id, "--format", "json"];
    if tools {
        args.push("--tools");
    }
    let out = support::run(&args, "");
    assert!(
        out.status.success(),
        "{} {id}: {}",
        kind.name,
        support::stderr(&out)
    );
    let value: Value = serde_json::from_str(&support::stdout(&out)).unwrap();
    let (mut calls, mut texts) = (Vec::new(), Vec::new());
    for message in value["conversation"].as_array().unwrap() {
        let text = message["text"].as_str().unwrap().to_owned();
        match message["tool"]["part"].as_str() {
            Some(part) => calls.push((part.to_owned(), text)),
            None => texts.push(text),
        }
    }
    (calls, texts)
}

#[test]
fn export_tools_gives_each_tool_kind_s_calls_and_results_and_changes_no_message() {
    // Every kind's store holds a tool call and its result (TOOL-INPUT /
    // TOOL-OUTPUT markers, never in a preview). With `--tools` the kinds
    // that read tool records put both among the messages; the others add
    // nothing; and the conversation's own messages are the same with and
    // without `--tools`, which never shows a marker.
    let mut wrong = Vec::new();
    for kind in KINDS {
        let (_dir, built) = store(kind);
        let mut seen = (false, false);
        for session in &built.sessions {
            let (none, plain) = exported(kind, &built, session.id, false);
            assert!(none.is_empty(), "{}: tools without --tools", kind.name);
            assert!(
                plain.iter().all(|t| HIDDEN.iter().all(|h| !t.contains(h))),
                "{} {}: {plain:?}",
                kind.name,
                session.id
            );
            let (tools, texts) = exported(kind, &built, session.id, true);
            assert_eq!(
                texts, plain,
                "{} {}: --tools moved a message",
                kind.name, session.id
            );
            for (part, text) in &tools {
                seen.0 |= part == "call" && text.contains("TOOL-INPUT-XYZZY");
                seen.1 |= part == "result" && text.contains("TOOL-OUTPUT-XYZZY");
            }
            let tool_kind =
                TOOL_KINDS.contains(&kind.name) || TOOL_KINDS_OF_REAL_CHATS.contains(&kind.name);
            if !tool_kind && !tools.is_empty() {
                wrong.push(format!("{}: tools though not a tool kind", kind.name));
            }
        }
        if TOOL_KINDS.contains(&kind.name) && seen != (true, true) {
            wrong.push(format!("{}: call and result seen: {seen:?}", kind.name));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}
