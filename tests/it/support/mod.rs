//! Shared helpers of the integration tests, in one place so no area keeps
//! its own copy: a native store written event by event, and runners for
//! the built binary (here); running it hermetically ([`hermetic`]), a
//! missing prerequisite ([`prerequisite`]), the tmux driver ([`tmux`]), the
//! MCP client ([`mcp`]) and opencode databases ([`opencode`]).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

pub mod crush;
pub mod goose;
pub mod hermetic;
pub mod mcp;
pub mod opencode;
pub mod prerequisite;
pub mod tmux;

/// The `session-ref` binary under test.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_session-ref"))
}

/// Run the binary with `args` and `stdin`, in a clean environment and a
/// fresh home (no default stores are found unless a test sets them, and
/// nothing is written outside that home).
pub fn run(args: &[&str], stdin: &str) -> Output {
    run_env(args, stdin, &[])
}

/// Like [`run`], with extra environment variables.
pub fn run_env(args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Output {
    let home = tempfile::tempdir().expect("a temporary home");
    let mut cmd = command(home.path());
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    feed(&mut cmd, stdin)
}

/// Run `command` with `stdin` written to it and its stdout and stderr
/// captured; its output.
pub fn feed(command: &mut Command, stdin: &str) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn session-ref");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().expect("wait session-ref")
}

/// The binary as a command in a clean environment (only `PATH`) whose
/// home, cache and state directories are under `home` (a test's
/// temporary directory).
pub fn command(home: &Path) -> Command {
    let mut cmd = Command::new(bin());
    cmd.env_clear();
    hermetic::isolate(&mut cmd, home).env("PATH", std::env::var("PATH").unwrap_or_default());
    cmd
}

/// The canonical mention of `id` labelled `label`, as `session-ref mention
/// ID --label LABEL` prints it (no store is read).
pub fn mention(id: &str, label: &str) -> String {
    stdout(&run(&["mention", id, "--label", label], ""))
        .trim_end()
        .to_owned()
}

/// stdout as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8")
}

/// stderr as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Assert a failure with `code`, exit status 1 and nothing on stdout.
pub fn assert_fails_with(out: &Output, code: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(1), "stderr: {err}");
    assert!(out.stdout.is_empty(), "stdout must stay empty on failure");
    assert!(
        err.starts_with(&format!("session-ref: {code}: ")),
        "stderr: {err}"
    );
}

/// A native session log being written.
pub struct Session {
    lines: Vec<String>,
    seq: u64,
}

impl Session {
    /// A session with a header.
    pub fn new(id: &str, created_at: &str, cwd: Option<&str>) -> Self {
        let mut header =
            serde_json::json!({"type": "session", "version": 1, "id": id, "createdAt": created_at});
        if let Some(cwd) = cwd {
            header["cwd"] = cwd.into();
        }
        Session {
            lines: vec![header.to_string()],
            seq: 0,
        }
    }

    /// Append an event with the next seq.
    pub fn event(mut self, kind: &str, data: serde_json::Value) -> Self {
        self.seq += 1;
        self.lines
            .push(serde_json::json!({"seq": self.seq, "type": kind, "data": data}).to_string());
        self
    }

    /// A direct user message.
    pub fn user(self, text: &str) -> Self {
        let id = format!("u{}", self.seq + 1);
        self.event(
            "user/message",
            serde_json::json!({"id": id, "source": {"kind": "user"}, "content": [{"type": "text", "text": text}]}),
        )
    }

    /// A complete assistant message.
    pub fn assistant(self, text: &str) -> Self {
        let id = format!("a{}", self.seq + 1);
        self.event(
            "assistant/message",
            serde_json::json!({"message": {"id": id, "content": [{"type": "text", "text": text}]}}),
        )
    }

    /// A title event.
    pub fn title(self, title: &str) -> Self {
        self.event("session/title", serde_json::json!({"title": title}))
    }

    /// A raw line, as is.
    pub fn raw(mut self, line: &str) -> Self {
        self.lines.push(line.to_owned());
        self
    }

    /// Write to `dir/name` with a final newline (or without, `torn`).
    pub fn write(&self, dir: &Path, name: &str) -> PathBuf {
        self.write_with(dir, name, true)
    }

    /// Write, choosing whether the last line ends with a newline.
    pub fn write_with(&self, dir: &Path, name: &str, final_newline: bool) -> PathBuf {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut text = self.lines.join("\n");
        if final_newline {
            text.push('\n');
        }
        std::fs::write(&path, text).unwrap();
        path
    }
}

/// proptest's configuration for `cases` cases, with failures kept beside
/// the test's source (`tests/it/NAME.proptest-regressions`, checked in).
/// proptest's default walks up to the nearest `main.rs` and would keep
/// them in `tests/proptest-regressions/NAME.txt` instead.
pub fn proptest_config(cases: u32) -> proptest::test_runner::Config {
    proptest::test_runner::Config {
        cases,
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("proptest-regressions"),
        )),
        ..proptest::test_runner::Config::default()
    }
}

/// The input `hook AGENT` gets from `agent` for `prompt`, in the shape
/// that agent sends it (Claude Code, Codex and Qwen Code share one).
pub fn hook_input(agent: &str, prompt: &str) -> Value {
    match agent {
        "gemini" => {
            json!({"session_id": "g-1", "transcript_path": "/t/g.json", "cwd": "/w", "hook_event_name": "BeforeAgent", "timestamp": "2026-12-01T00:00:00.000Z", "prompt": prompt})
        }
        "copilot" => {
            json!({"sessionId": "c-1", "timestamp": 1_764_547_200_000_u64, "cwd": "/w", "prompt": prompt})
        }
        // What droid 0.225.2 sends (../shared/spec/formats/droid.md).
        "droid" => {
            json!({"session_id": "d-1", "transcript_path": "/h/.factory/sessions/-w/d-1.jsonl", "cwd": "/w", "permission_mode": "auto", "hook_event_name": "UserPromptSubmit", "message_id": "m-1", "prompt": prompt, "has_images": false})
        }
        "cursor" => {
            json!({"conversation_id": "cu-1", "generation_id": "gen-1", "hook_event_name": "beforeSubmitPrompt", "workspace_roots": ["/w"], "prompt": prompt, "attachments": []})
        }
        _ => {
            json!({"session_id": "q-1", "transcript_path": "/t/q.jsonl", "cwd": "/w", "hook_event_name": "UserPromptSubmit", "prompt": prompt})
        }
    }
}

/// The context the hook's answer adds, where `agent` reads it.
pub fn hook_context(agent: &str, answer: &Value) -> Option<String> {
    let found = match agent {
        "copilot" => &answer["additionalContext"],
        _ => &answer["hookSpecificOutput"]["additionalContext"],
    };
    found.as_str().map(str::to_owned)
}
