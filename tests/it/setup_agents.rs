//! `tools/setup-e2e.sh` from the test suite: `session-ref setup` on a
//! fresh home with the real Claude Code, Gemini CLI and Codex CLI from npm,
//! offline against the mock model; a mention resolves through each
//! agent's hook, each lists sessions through the MCP server, and `setup
//! --undo` leaves each settings file as seeded (the script's header says
//! exactly what it checks).
//!
//! The agents are the `npm install --prefix` at `$SESSION_REF_AGENTS`
//! (default `../agents` beside the repository), the mock
//! `$MOCKLLM_PY` (default `../shared/tools/mockllm/mockllm.py`). Without
//! them, or without `node`, `python3` and `unshare`, the test fails under
//! CI and prints `SKIPPED:` otherwise.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::support::{bin, prerequisite};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `var`, else `fallback` under the repository's parent.
fn place(var: &str, fallback: &str) -> PathBuf {
    std::env::var_os(var)
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("..").join(fallback))
}

fn runs(program: &str, arg: &str) -> bool {
    Command::new(program)
        .arg(arg)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn setup_in_three_real_agents_resolves_mentions_lists_sessions_and_undoes() {
    let agents = place("SESSION_REF_AGENTS", "agents");
    let mock = place("MOCKLLM_PY", "shared/tools/mockllm/mockllm.py");
    let bin_dir = agents.join("node_modules/.bin");
    let missing: Vec<String> = ["claude", "gemini", "codex"]
        .iter()
        .map(|agent| bin_dir.join(agent))
        .chain([mock.clone()])
        .filter(|path| !path.exists())
        .map(|path| path.display().to_string())
        .chain(
            [
                ("node", "--version"),
                ("python3", "--version"),
                ("unshare", "--version"),
            ]
            .iter()
            .filter(|(program, arg)| !runs(program, arg))
            .map(|(program, _)| program.to_string()),
        )
        .collect();
    if !missing.is_empty() {
        prerequisite::missing(
            "setup with the real agents",
            &format!(
                "missing {} (SESSION_REF_AGENTS: an npm prefix with Claude Code, Gemini CLI and Codex; MOCKLLM_PY)",
                missing.join(", ")
            ),
        );
        return;
    }
    let out = Command::new("bash")
        .arg(repo().join("tools/setup-e2e.sh"))
        .arg(&agents)
        .arg(&mock)
        .env("SESSION_REF_BIN", bin())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("all setup end-to-end checks passed"),
        "{said}"
    );
}
