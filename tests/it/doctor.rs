//! `session-ref doctor` on a scratch home: what it reports of the stores,
//! the caches, the agents' hooks and MCP servers and the remotes, one line
//! per problem with its fix, exit 0 only when nothing is wrong.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::command;

fn store() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/search/hydra")
}

fn run(home: &Path, args: &[&str]) -> Output {
    run_in(home, home, args)
}

/// `session-ref ARGS` run in the directory `cwd`.
fn run_in(home: &Path, cwd: &Path, args: &[&str]) -> Output {
    let empty = home.join("empty-path");
    std::fs::create_dir_all(&empty).unwrap();
    command(home)
        .env("PATH", &empty)
        .current_dir(cwd)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

fn doctor(home: &Path, extra: &[&str]) -> (Option<i32>, Value, String) {
    doctor_in(home, home, extra)
}

/// `doctor` and `doctor --json` run in `cwd`.
fn doctor_in(home: &Path, cwd: &Path, extra: &[&str]) -> (Option<i32>, Value, String) {
    let store = store();
    let mut args = vec!["--store", store.to_str().unwrap()];
    args.extend_from_slice(extra);
    let text = run_in(home, cwd, &[&args[..], &["doctor"]].concat());
    let json = run_in(home, cwd, &[&args[..], &["doctor", "--json"]].concat());
    assert_eq!(json.status.code(), text.status.code());
    (
        json.status.code(),
        serde_json::from_slice(&json.stdout).unwrap(),
        String::from_utf8(text.stdout).unwrap(),
    )
}

fn agent<'v>(report: &'v Value, name: &str) -> &'v Value {
    report["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["agent"] == name)
        .unwrap()
}

#[test]
fn a_set_up_home_is_healthy_and_says_where_everything_is() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    std::fs::create_dir_all(h.join(".claude")).unwrap();
    assert!(run(h, &["setup", "--yes"]).status.success());
    let (code, report, text) = doctor(h, &[]);
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(report["ok"], true);
    assert_eq!(report["stores"][0]["kind"], "hydra");
    assert_eq!(report["stores"][0]["sessions"], 1);
    let claude = agent(&report, "claude");
    assert_eq!(claude["found"], true);
    assert_eq!(claude["hook"]["installed"], true);
    assert_eq!(claude["hook"]["runs"], true);
    assert_eq!(claude["mcp"]["installed"], true);
    assert_eq!(
        claude["mcp"]["program"],
        crate::support::bin().display().to_string()
    );
    assert_eq!(agent(&report, "codex")["hook"]["installed"], false);
    assert_eq!(report["caches"][0]["name"], "titles");
    // Listed once already (the text run): the title index is fresh now.
    assert_eq!(report["caches"][0]["state"], "fresh");
    assert!(text.contains("no problems found"), "{text}");
}

#[test]
fn a_hook_whose_program_is_gone_is_a_problem_with_its_fix() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    std::fs::create_dir_all(h.join(".claude")).unwrap();
    std::fs::write(
        h.join(".claude/settings.json"),
        "{\"hooks\": {\"UserPromptSubmit\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"'/gone/bin/session-ref' hook claude\"}]}]}}\n",
    )
    .unwrap();
    std::fs::create_dir_all(h.join(".gemini")).unwrap();
    std::fs::write(h.join(".gemini/settings.json"), "{ not json").unwrap();
    let (code, report, text) = doctor(h, &[]);
    assert_eq!(code, Some(1), "{text}");
    assert_eq!(report["ok"], false);
    let hook = &agent(&report, "claude")["hook"];
    assert_eq!(hook["program"], "/gone/bin/session-ref");
    assert_eq!(hook["runs"], false);
    assert!(
        text.contains("problem: Claude Code's hook runs /gone/bin/session-ref, which no longer runs (fix: session-ref setup --yes --agent claude)"),
        "{text}"
    );
    assert!(agent(&report, "gemini")["hook"]["error"].is_string());
    assert!(
        text.contains("Gemini CLI's settings cannot be read"),
        "{text}"
    );

    // The fix it names fixes it (Gemini CLI's file aside, left to the user).
    std::fs::remove_file(h.join(".gemini/settings.json")).unwrap();
    assert!(run(h, &["setup", "--yes", "--agent", "claude"])
        .status
        .success());
    let (code, _, text) = doctor(h, &[]);
    assert_eq!(code, Some(0), "{text}");
}

#[test]
fn a_project_s_registrations_are_checked_from_inside_it() {
    // `setup --project` writes the project's settings; doctor run inside
    // the project reports them, and a program gone from them is a problem
    // whose fix names the project scope. Elsewhere they are not looked at.
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let project = h.join("work/my app");
    std::fs::create_dir_all(&project).unwrap();
    // Claude Code is on this machine (its user directory).
    std::fs::create_dir_all(h.join(".claude")).unwrap();
    let setup = ["setup", "--project", "--yes", "--agent", "claude"];
    let out = run_in(h, &project, &setup);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (code, report, text) = doctor_in(h, &project, &[]);
    assert_eq!(code, Some(0), "{text}");
    let claude = agent(&report, "claude");
    assert_eq!(claude["projectHook"]["installed"], true, "{claude}");
    assert_eq!(claude["projectHook"]["runs"], true);
    assert_eq!(claude["projectMcp"]["installed"], true, "{claude}");
    assert!(text.contains("hook (this project) installed:"), "{text}");
    assert_eq!(agent(&report, "codex")["projectHook"], Value::Null);

    let settings = project.join(".claude/settings.json");
    let text = std::fs::read_to_string(&settings).unwrap();
    let ours = std::env::var("CARGO_BIN_EXE_session-ref").unwrap();
    assert!(text.contains(&ours), "{text}");
    std::fs::write(&settings, text.replace(&ours, "/gone/bin/session-ref")).unwrap();
    let (code, report, text) = doctor_in(h, &project, &[]);
    assert_eq!(code, Some(1), "{text}");
    assert_eq!(agent(&report, "claude")["projectHook"]["runs"], false);
    assert!(
        text.contains("problem: Claude Code's project hook runs /gone/bin/session-ref, which no longer runs (fix: session-ref setup --project --yes --agent claude)"),
        "{text}"
    );
    let (code, report, _) = doctor_in(h, h, &[]);
    assert_eq!(code, Some(0));
    assert_eq!(agent(&report, "claude")["projectHook"], Value::Null);
    // In the home directory, the user's settings are not reported twice.
    assert!(run(h, &["setup", "--yes", "--agent", "claude"])
        .status
        .success());
    let (_, report, _) = doctor_in(h, h, &[]);
    let claude = agent(&report, "claude");
    assert_eq!(claude["hook"]["installed"], true, "{claude}");
    assert_eq!(claude["projectHook"], Value::Null, "{claude}");
}

#[test]
fn no_sessions_and_an_unreachable_remote_are_problems_and_doctor_stays_quick() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let started = Instant::now();
    let out = command(h)
        .env("SESSION_REF_SSH", "false")
        .args(["--remote", "nowhere.invalid", "doctor"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("problem: no session was found in any store"),
        "{text}"
    );
    assert!(
        text.contains("(fix: session-ref remote check nowhere.invalid)"),
        "{text}"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
}
