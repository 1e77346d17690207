//! `session-ref hook claude|codex` on hook inputs recorded from the real
//! agents (tests/fixtures/hook), and `hook install|uninstall` on fixture
//! settings files.

use std::path::Path;

use serde_json::Value;

use crate::support;
use crate::support::{mention, run_env, stderr, stdout, Session};

const AGENTS: [&str; 2] = ["claude", "codex"];

/// A native store: three small sessions, one large one, and one with the
/// recorded input's own session id.
fn store(dir: &Path, own_id: &str) {
    Session::new("alpha", "2025-01-03T00:00:00Z", Some("/w/a"))
        .title("Alpha plan")
        .user("How do we ship alpha?")
        .assistant("Ship it on Friday.")
        .write(dir, "alpha.jsonl");
    Session::new("beta", "2025-01-02T00:00:00Z", None)
        .user("beta question")
        .assistant("beta answer <b>")
        .write(dir, "beta.jsonl");
    Session::new("gamma", "2025-01-01T00:00:00Z", Some("/w/g"))
        .user("gamma")
        .assistant("gamma done")
        .write(dir, "gamma.jsonl");
    Session::new("big", "2024-12-01T00:00:00Z", None)
        .user("write a long answer")
        .assistant(&"é and some text. ".repeat(3_000))
        .write(dir, "big.jsonl");
    Session::new(own_id, "2024-11-01T00:00:00Z", None)
        .user("this very session")
        .write(dir, "own.jsonl");
}

/// The recorded input of `agent` with `prompt` in place of the recorded one.
fn input(agent: &str, prompt: &str) -> (String, String) {
    let path = format!(
        "{}/tests/fixtures/hook/{agent}-input.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut value: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    value["prompt"] = prompt.into();
    let session = value["session_id"].as_str().unwrap().to_owned();
    (value.to_string(), session)
}

struct Case {
    dir: tempfile::TempDir,
    state: tempfile::TempDir,
}

impl Case {
    fn new(agent: &str) -> Case {
        let dir = tempfile::tempdir().unwrap();
        let (_, own) = input(agent, "");
        store(dir.path(), &own);
        Case {
            dir,
            state: tempfile::tempdir().unwrap(),
        }
    }

    fn hook(&self, agent: &str, prompt: &str, extra: &[&str]) -> std::process::Output {
        let (stdin, _) = input(agent, prompt);
        let store = self.dir.path().to_str().unwrap();
        let mut args = vec!["--store", store, "hook", agent];
        args.extend_from_slice(extra);
        run_env(
            &args,
            &stdin,
            &[("XDG_STATE_HOME", self.state.path().to_str().unwrap())],
        )
    }

    /// The added context `prepare --format jsonl` implies: its context
    /// message's text, then its source's stats.
    fn expected_context(&self, agent: &str, prompt: &str) -> String {
        let (_, own) = input(agent, "");
        let store = self.dir.path().to_str().unwrap();
        let out = run_env(
            &[
                "--store",
                store,
                "--session",
                &own,
                "prepare",
                "--format",
                "jsonl",
                prompt,
            ],
            "",
            &[],
        );
        assert!(out.status.success(), "{}", stderr(&out));
        let text = stdout(&out);
        let context: Value = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
        let stats = session_ref_core::json::stringify_value(&context["source"]);
        format!(
            "{}\n\n<referenced-sessions-stats>\n{}\n</referenced-sessions-stats>",
            context["content"][0]["text"].as_str().unwrap(),
            stats.replace('<', "\\u003c")
        )
    }
}

fn additional_context(out: &std::process::Output) -> String {
    assert!(out.status.success(), "{}", stderr(out));
    let text = stdout(out);
    assert!(text.ends_with('\n') && text.lines().count() == 1, "{text}");
    let value: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        value["hookSpecificOutput"]["hookEventName"],
        "UserPromptSubmit"
    );
    assert_eq!(value.as_object().unwrap().len(), 1);
    value["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn no_mention_prints_nothing() {
    for agent in AGENTS {
        let case = Case::new(agent);
        for prompt in [
            "hello there",
            "an @ sign, a [link](x) and hydra-session: alone",
            "",
        ] {
            let out = case.hook(agent, prompt, &[]);
            assert!(out.status.success());
            assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{prompt:?}");
        }
    }
}

#[test]
fn no_mention_reads_no_store() {
    // The store is not even a directory that can be listed: a prompt without
    // a mention is answered without looking.
    let (stdin, _) = input("claude", "plain words");
    let out = run_env(
        &["--store", "/nonexistent/store", "hook", "claude"],
        &stdin,
        &[],
    );
    assert!(out.status.success() && out.stdout.is_empty() && out.stderr.is_empty());
}

#[test]
fn one_mention_gets_exactly_the_prepared_context() {
    for agent in AGENTS {
        let case = Case::new(agent);
        let prompt = format!("what did we decide in {}?", mention("alpha", "Alpha plan"));
        let got = additional_context(&case.hook(agent, &prompt, &[]));
        assert_eq!(got, case.expected_context(agent, &prompt), "{agent}");
        assert!(got.contains("Ship it on Friday."));
    }
}

#[test]
fn three_mentions_share_one_context() {
    for agent in AGENTS {
        let case = Case::new(agent);
        let prompt = format!(
            "compare {} with {} and hydra-session:{}",
            mention("alpha", "A"),
            mention("beta", "B"),
            session_ref_core::uri::encode("gamma").trim_start_matches("hydra-session:"),
        );
        let got = additional_context(&case.hook(agent, &prompt, &[]));
        assert_eq!(got, case.expected_context(agent, &prompt), "{agent}");
        for word in ["\"inputIndex\":2", "beta answer \\u003cb>", "gamma done"] {
            assert!(got.contains(word), "{word}");
        }
    }
}

fn block(out: &std::process::Output) -> Value {
    assert!(out.status.success(), "{}", stderr(out));
    serde_json::from_str(&stdout(out)).unwrap()
}

#[test]
fn a_self_reference_blocks_with_the_reason() {
    for agent in AGENTS {
        let case = Case::new(agent);
        let (_, own) = input(agent, "");
        let prompt = format!("look at {}", mention(&own, "me"));
        let out = case.hook(agent, &prompt, &[]);
        let reason = format!(
            "session-ref: SESSION_REFERENCE_SELF_REFERENCE: session \"{own}\" cannot reference itself"
        );
        let answer = block(&out);
        assert_eq!(answer["decision"], "block");
        assert_eq!(answer["reason"], reason.as_str());
        assert_eq!(stderr(&out), format!("{reason}\n"));
        if agent == "claude" {
            // Claude Code prints the reason with the prompt itself.
            assert_eq!(
                stdout(&out),
                format!(
                    "{{\"decision\":\"block\",\"reason\":{}}}\n",
                    serde_json::to_string(&reason).unwrap()
                )
            );
        }
    }
}

#[test]
fn an_unknown_session_blocks_and_codex_keeps_the_prompt() {
    for agent in AGENTS {
        let case = Case::new(agent);
        let prompt = format!("see {} now", mention("nobody", "Nobody"));
        let answer = block(&case.hook(agent, &prompt, &[]));
        assert_eq!(
            answer["reason"],
            "session-ref: SESSION_REFERENCE_READ_FAILED: failed to read referenced session: unknown session \"nobody\""
        );
        let drafts = case.state.path().join("session-ref/drafts");
        if agent == "codex" {
            let notice = answer["systemMessage"].as_str().unwrap();
            let path = notice
                .strip_prefix("session-ref kept the prompt in ")
                .unwrap();
            assert!(Path::new(path).starts_with(&drafts));
            let kept = std::fs::read_to_string(path).unwrap();
            assert!(kept.starts_with(answer["reason"].as_str().unwrap()));
            assert!(kept.ends_with(&format!(
                "{}{prompt}",
                session_ref::hook::draft::PROMPT_MARKER
            )));
        } else {
            assert!(answer.get("systemMessage").is_none());
            assert!(!drafts.exists(), "Claude shows the prompt itself");
        }
    }
}

#[test]
fn malformed_mentions_and_too_many_sessions_block() {
    let case = Case::new("codex");
    let bad = case.hook("codex", "see @[x](hydra-session:not canonical)", &[]);
    assert!(block(&bad)["reason"]
        .as_str()
        .unwrap()
        .starts_with("session-ref: SESSION_REFERENCE_INVALID_REFERENCE: "));
    let four = ["alpha", "beta", "gamma", "big"]
        .map(|id| mention(id, id))
        .concat();
    let many = case.hook("codex", &four, &[]);
    assert!(block(&many)["reason"]
        .as_str()
        .unwrap()
        .starts_with("session-ref: SESSION_REFERENCE_TOO_MANY: "));
}

#[test]
fn a_large_session_is_cut_to_the_hosts_cap_by_retention() {
    let utf16 = |s: &str| s.encode_utf16().count();
    for (agent, extra, cap) in [
        ("claude", &[][..], 10_000),
        ("codex", &[][..], 10_000),
        ("claude", &["--budget", "4000"][..], 4_000),
    ] {
        let case = Case::new(agent);
        let prompt = format!(
            "summarize {} and {}",
            mention("big", "Big"),
            mention("alpha", "A")
        );
        let got = additional_context(&case.hook(agent, &prompt, extra));
        let size = if agent == "claude" {
            utf16(&got)
        } else {
            got.len()
        };
        assert!(size <= cap && size > cap - 200, "{agent}: {size} of {cap}");
        // Cut by session-ref's own retention: its notice and stats are there,
        // and the small source stays whole.
        assert!(got.contains("UTF-8 bytes …]"));
        assert!(got.contains("\"sessionId\":\"big\",\"label\":\"Big\",\"capturedThroughSeq\":2,\"compacted\":false,\"originalMessages\":2,\"retainedMessages\":1,\"omittedMessages\":1"));
        assert!(got.contains("Ship it on Friday."));
        assert!(got.ends_with("</referenced-sessions-stats>"));
    }
    // Characters, not bytes, for Claude: the same text takes more of Codex's cap.
    let case = Case::new("claude");
    let prompt = mention("big", "Big");
    let claude = additional_context(&case.hook("claude", &prompt, &[]));
    let codex = additional_context(&case.hook("codex", &prompt, &[]));
    assert!(claude.len() > 10_000 && codex.len() <= 10_000);
}

#[test]
fn a_bad_budget_is_a_config_error() {
    // Rejected before stdin is read (so none is given: it could not be written).
    let out = run_env(&["hook", "claude", "--budget", "0"], "", &[]);
    support::assert_fails_with(&out, "SESSION_REFERENCE_INVALID_CONFIG");
}

// ---- install / uninstall -------------------------------------------------

fn as_user(home: &Path, args: &[&str]) -> std::process::Output {
    run_env(
        args,
        "",
        &[
            ("HOME", home.to_str().unwrap()),
            ("CODEX_HOME", home.join(".codex").to_str().unwrap()),
        ],
    )
}

const CLAUDE_SETTINGS: &str = r#"{
  "model": "opus",
  "hooks": {
    "UserPromptSubmit": [
      {"hooks": [{"type": "command", "command": "/usr/bin/logger prompt"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "echo done"}]}]
  },
  "permissions": {"allow": ["Bash(ls:*)"]}
}
"#;

fn json_file(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn claude_install_merges_idempotently_and_uninstall_restores() {
    let home = tempfile::tempdir().unwrap();
    let settings = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, CLAUDE_SETTINGS).unwrap();

    let out = as_user(home.path(), &["hook", "install", "claude"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let installed = json_file(&settings);
    let groups = installed["hooks"]["UserPromptSubmit"].as_array().unwrap();
    assert_eq!(groups.len(), 2);
    assert_eq!(
        groups[1]["hooks"][0]["command"],
        format!("{} hook claude", support::bin().display()).as_str()
    );
    for key in ["model", "permissions"] {
        assert_eq!(installed[key], json_file_str(CLAUDE_SETTINGS)[key]);
    }
    assert_eq!(
        installed["hooks"]["Stop"],
        json_file_str(CLAUDE_SETTINGS)["hooks"]["Stop"]
    );
    // A backup of the original, byte for byte.
    let backups: Vec<_> = std::fs::read_dir(settings.parent().unwrap())
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .contains("session-ref-backup")
        })
        .collect();
    assert_eq!(backups.len(), 1);
    assert_eq!(
        std::fs::read_to_string(backups[0].path()).unwrap(),
        CLAUDE_SETTINGS
    );

    // Idempotent: nothing written the second time.
    let again = as_user(home.path(), &["hook", "install", "claude"]);
    assert!(stdout(&again).contains("left unchanged"));
    assert_eq!(json_file(&settings), installed);

    let out = as_user(home.path(), &["hook", "uninstall", "claude"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(json_file(&settings), json_file_str(CLAUDE_SETTINGS));
}

fn json_file_str(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

#[test]
fn malformed_settings_are_refused_and_untouched() {
    for (agent, file, text) in [
        ("claude", ".claude/settings.json", "{\"hooks\": [1,"),
        (
            "claude",
            ".claude/settings.json",
            "{\"hooks\": {\"UserPromptSubmit\": {}}}",
        ),
        ("codex", ".codex/hooks.json", "[]"),
        ("codex", ".codex/config.toml", "model = "),
    ] {
        let home = tempfile::tempdir().unwrap();
        let path = home.path().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        for command in ["install", "uninstall"] {
            let out = as_user(home.path(), &["hook", command, agent]);
            if command == "uninstall" && file.ends_with("config.toml") {
                // Nothing of ours to remove: the config is not even read.
                continue;
            }
            support::assert_fails_with(&out, "SESSION_REFERENCE_INVALID_CONFIG");
            assert!(stderr(&out).contains("left untouched"), "{}", stderr(&out));
            assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        }
        // Nothing else was written either.
        let count = walk(home.path());
        assert_eq!(count, 1, "{agent} {file}");
    }
}

fn walk(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            if e.path().is_dir() {
                walk(&e.path())
            } else {
                1
            }
        })
        .sum()
}

const CODEX_CONFIG: &str = "# mine\nmodel = \"gpt-5.5\"\n\n[features]\napps = false\n";

#[test]
fn codex_install_records_trust_and_uninstall_restores() {
    let home = tempfile::tempdir().unwrap();
    let codex = home.path().join(".codex");
    std::fs::create_dir_all(&codex).unwrap();
    std::fs::write(codex.join("config.toml"), CODEX_CONFIG).unwrap();

    let out = as_user(home.path(), &["hook", "install", "codex"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let hooks_file = codex.join("hooks.json");
    let command = format!("{} hook codex", support::bin().display());
    assert_eq!(
        json_file(&hooks_file),
        serde_json::json!({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": command}]}]}})
    );
    let config = std::fs::read_to_string(codex.join("config.toml")).unwrap();
    let hash = session_ref::hook::install::codex_trust_hash(&command);
    assert_eq!(
        config,
        format!(
            "{CODEX_CONFIG}\n[hooks.state.\"{}:user_prompt_submit:0:0\"]\ntrusted_hash = \"{hash}\"\n",
            hooks_file.display()
        )
    );
    let again = as_user(home.path(), &["hook", "install", "codex"]);
    assert_eq!(stdout(&again).matches("left unchanged").count(), 2);

    let printed = as_user(home.path(), &["hook", "install", "codex", "--print"]);
    assert!(stdout(&printed).contains(&hash));

    // A budget replaces our handler in place and re-records its trust.
    let raised = as_user(
        home.path(),
        &["hook", "install", "codex", "--budget", "40000"],
    );
    assert!(raised.status.success(), "{}", stderr(&raised));
    let handler = serde_json::json!({"type": "command", "command": format!("{command} --budget 40000"), "additionalContextLimit": 10000});
    assert_eq!(
        json_file(&hooks_file)["hooks"]["UserPromptSubmit"],
        serde_json::json!([{"hooks": [handler.clone()]}])
    );
    let raised_hash = session_ref::hook::install::codex_trust_hash_of(&handler);
    let config = std::fs::read_to_string(codex.join("config.toml")).unwrap();
    assert!(config.contains(&raised_hash) && !config.contains(&hash));

    let out = as_user(home.path(), &["hook", "uninstall", "codex"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(codex.join("config.toml")).unwrap(),
        CODEX_CONFIG
    );
    assert_eq!(json_file(&hooks_file), serde_json::json!({}));
}

#[test]
fn print_writes_nothing() {
    let home = tempfile::tempdir().unwrap();
    for agent in AGENTS {
        let out = as_user(home.path(), &["hook", "install", agent, "--print"]);
        assert!(out.status.success());
        assert!(stdout(&out).contains(&format!("hook {agent}\"")));
    }
    assert_eq!(std::fs::read_dir(home.path()).unwrap().count(), 0);
}

// ---- settings files as dotfiles look (#25 items 2 and 5) ------------------

fn spawn_as_user(home: &Path, args: &[&str]) -> std::process::Child {
    support::command(home)
        .env("HOME", home)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Wait at most 10 s for `child`: a hang is a failure, not a stuck test.
fn wait_bounded(mut child: std::process::Child) -> std::process::Output {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("session-ref hung");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn concurrent_hook_and_mcp_installs_both_land() {
    for run in 0..20 {
        let home = tempfile::tempdir().unwrap();
        let settings = home.path().join(".claude/settings.json");
        std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
        std::fs::write(&settings, "{\n  \"model\": \"opus\"\n}\n").unwrap();
        let hook = spawn_as_user(home.path(), &["hook", "install", "claude"]);
        let mcp = spawn_as_user(home.path(), &["mcp", "install", "claude"]);
        for out in [wait_bounded(hook), wait_bounded(mcp)] {
            assert!(out.status.success(), "{}", stderr(&out));
        }
        let value = json_file(&settings);
        assert!(
            value["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
                .as_str()
                .is_some_and(|c| c.ends_with("hook claude")),
            "run {run}: {value}"
        );
        assert_eq!(
            value["permissions"]["allow"],
            serde_json::json!(["mcp__session-ref"]),
            "run {run}"
        );
        assert_eq!(value["model"], "opus");
    }
}

#[test]
fn a_symlinked_settings_file_is_edited_through_the_link() {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().unwrap();
    let dots = home.path().join("dotfiles");
    std::fs::create_dir_all(&dots).unwrap();
    let target = dots.join("claude-settings.json");
    std::fs::write(&target, CLAUDE_SETTINGS).unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
    let link = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink("../dotfiles/claude-settings.json", &link).unwrap();
    let out = as_user(home.path(), &["hook", "install", "claude"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let installed = std::fs::read_to_string(&target).unwrap();
    assert!(installed.contains("hook claude"), "{installed}");
    let mode = std::fs::metadata(&target).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let out = as_user(home.path(), &["hook", "uninstall", "claude"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), CLAUDE_SETTINGS);
}

#[test]
fn a_read_only_settings_file_is_refused_and_unchanged() {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().unwrap();
    let settings = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, CLAUDE_SETTINGS).unwrap();
    std::fs::set_permissions(&settings, std::fs::Permissions::from_mode(0o444)).unwrap();
    let out = as_user(home.path(), &["hook", "install", "claude"]);
    support::assert_fails_with(&out, "SESSION_REFERENCE_INVALID_CONFIG");
    assert!(stderr(&out).contains("read-only"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), CLAUDE_SETTINGS);
    assert_eq!(
        walk(home.path()),
        1,
        "no backup, lock or temporary file left"
    );
}

#[test]
fn fifos_and_device_links_are_refused_without_hanging() {
    let home = tempfile::tempdir().unwrap();
    let settings = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let fifo = std::ffi::CString::new(settings.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    for args in [
        &["hook", "install", "claude"][..],
        &["mcp", "install", "claude"][..],
    ] {
        let out = wait_bounded(spawn_as_user(home.path(), args));
        support::assert_fails_with(&out, "SESSION_REFERENCE_INVALID_CONFIG");
        assert!(stderr(&out).contains("FIFO"), "{}", stderr(&out));
    }
    std::fs::remove_file(&settings).unwrap();
    for device in ["/dev/null", "/dev/zero"] {
        let _ = std::fs::remove_file(&settings);
        std::os::unix::fs::symlink(device, &settings).unwrap();
        let out = wait_bounded(spawn_as_user(home.path(), &["hook", "install", "claude"]));
        support::assert_fails_with(&out, "SESSION_REFERENCE_INVALID_CONFIG");
        assert!(
            stderr(&out).contains("character device"),
            "{}",
            stderr(&out)
        );
        assert!(std::fs::symlink_metadata(&settings)
            .unwrap()
            .file_type()
            .is_symlink());
    }
    assert!(std::fs::read_dir("/dev")
        .unwrap()
        .flatten()
        .all(|e| !e.file_name().to_string_lossy().contains("session-ref")));
}

/// Gemini CLI settings with comments and a layout of their own.
const COMMENTED: &str = "// my gemini settings\n{\n    \"theme\": \"Dracula\", // dark\n    /* tools */\n    \"tools\": {\"sandbox\":   false},\n\n    \"hooks\": {\n        \"AfterAgent\": []\n    },\n}\n";

#[test]
fn comments_and_layout_are_kept_and_uninstall_restores_the_bytes() {
    let home = tempfile::tempdir().unwrap();
    let settings = home.path().join(".gemini/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, COMMENTED).unwrap();
    for (install, uninstall) in [
        (
            ["hook", "install", "gemini"],
            ["hook", "uninstall", "gemini"],
        ),
        (["mcp", "install", "gemini"], ["mcp", "uninstall", "gemini"]),
    ] {
        let out = as_user(home.path(), &install);
        assert!(out.status.success(), "{}", stderr(&out));
        let installed = std::fs::read_to_string(&settings).unwrap();
        assert!(installed.contains("session-ref"), "{installed}");
        // Every line of the original is still there, in order.
        let mut lines = installed.lines();
        for line in COMMENTED.lines() {
            let line = line.trim_end_matches(',');
            assert!(
                lines.any(|l| l.starts_with(line)),
                "{line:?} in\n{installed}"
            );
        }
        let out = as_user(home.path(), &uninstall);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(std::fs::read_to_string(&settings).unwrap(), COMMENTED);
    }
}

#[test]
fn backups_keep_the_mode_and_never_overwrite_each_other() {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().unwrap();
    let settings = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, CLAUDE_SETTINGS).unwrap();
    std::fs::set_permissions(&settings, std::fs::Permissions::from_mode(0o600)).unwrap();
    // Install, uninstall, install: three backups, well within one second.
    for command in ["install", "uninstall", "install"] {
        let out = as_user(home.path(), &["hook", command, "claude"]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let backups: Vec<_> = std::fs::read_dir(settings.parent().unwrap())
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .contains("session-ref-backup")
        })
        .collect();
    assert_eq!(backups.len(), 3);
    for backup in &backups {
        let mode = backup.metadata().unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{:?}", backup.path());
    }
    let mode = std::fs::metadata(&settings).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

#[test]
fn store_flags_given_to_install_are_kept() {
    let home = tempfile::tempdir().unwrap();
    let store = home.path().join("my store");
    std::fs::create_dir_all(&store).unwrap();
    let store = store.to_str().unwrap();
    let out = as_user(
        home.path(),
        &["--store", store, "hook", "install", "claude"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let value = json_file(&home.path().join(".claude/settings.json"));
    let command = value["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        command.ends_with(&format!(" hook claude --store '{store}'")),
        "{command}"
    );
    let out = as_user(home.path(), &["--store", store, "mcp", "install", "gemini"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let value = json_file(&home.path().join(".gemini/settings.json"));
    assert_eq!(
        value["mcpServers"]["session-ref"]["args"],
        serde_json::json!(["mcp", "--store", store])
    );
    // Uninstall still recognises it.
    let out = as_user(home.path(), &["hook", "uninstall", "claude"]);
    assert!(
        stdout(&out).contains("removed the hook"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_control_sequence_in_an_error_never_reaches_the_hook_json_or_stderr_raw() {
    let unsafe_char = |c: char| session_ref::display::is_unsafe(c) && c != '\n';
    for agent in AGENTS {
        let case = Case::new(agent);
        let evil = "no\u{1b}]0;pwned\u{7}\u{1b}[2J\u{202e}";
        let prompt = format!("see {} now", mention(evil, "x"));
        let (stdin, _) = input(agent, &prompt);
        // The draft folder's name holds one too (Codex's notice names it),
        // and cannot be made: the notice says why, escaped as well.
        let blocker = case.state.path().join("file");
        std::fs::write(&blocker, "").unwrap();
        let state = blocker.join("st\u{1b}[31m\u{7}");
        let store = case.dir.path().to_str().unwrap();
        let out = run_env(
            &["--store", store, "hook", agent],
            &stdin,
            &[("XDG_STATE_HOME", state.to_str().unwrap())],
        );
        let answer = block(&out);
        let reason = answer["reason"].as_str().unwrap();
        assert!(reason.starts_with("session-ref: SESSION_REFERENCE_READ_FAILED: "));
        assert!(!reason.chars().any(unsafe_char), "{reason:?}");
        if agent == "codex" {
            let notice = answer["systemMessage"].as_str().unwrap();
            assert!(notice.starts_with("session-ref could not keep the prompt in "));
            assert!(!notice.chars().any(unsafe_char), "{notice:?}");
        }
        let err = stderr(&out);
        assert!(!err.chars().any(unsafe_char), "{err:?}");
    }
}
