//! `session-ref setup` and `setup --undo` on a scratch home, as a new user
//! meets them: settings files holding comments, other hooks and other MCP
//! servers are edited in place and put back byte for byte; a file edited
//! since keeps the edit and loses our entries only; malformed, read-only
//! and symlinked files are reported and left untouched; an agent that is
//! not there is never touched.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::tmux::{self, quote_path, Tmux};
use crate::support::{bin, command};

const CLAUDE_SETTINGS: &str = "{\n  // my Claude settings\n  \"theme\": \"dark\",\n  \"hooks\": {\n    \"UserPromptSubmit\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"echo other-hook\"}]}\n    ]\n  }\n}\n";
const CLAUDE_JSON: &str =
    "{\"numStartups\": 3, \"mcpServers\": {\"docs\": {\"type\": \"stdio\", \"command\": \"docs-mcp\"}}}\n";
const GEMINI_SETTINGS: &str = "{\n  /* Gemini, by hand */\n  \"mcpServers\": {\n    \"docs\": {\"command\": \"docs-mcp\"}, // another server\n  },\n}\n";
const CODEX_CONFIG: &str =
    "# my Codex config\nmodel = \"gpt-5.5\" # keep\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n";

/// A home with Claude Code, Gemini CLI and Codex set up by hand.
fn home_with_three_agents() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    std::fs::create_dir_all(h.join(".claude")).unwrap();
    std::fs::write(h.join(".claude/settings.json"), CLAUDE_SETTINGS).unwrap();
    std::fs::write(h.join(".claude.json"), CLAUDE_JSON).unwrap();
    std::fs::create_dir_all(h.join(".gemini")).unwrap();
    std::fs::write(h.join(".gemini/settings.json"), GEMINI_SETTINGS).unwrap();
    std::fs::create_dir_all(h.join(".codex")).unwrap();
    std::fs::write(h.join(".codex/config.toml"), CODEX_CONFIG).unwrap();
    home
}

/// Run `session-ref setup ARGS` in `home`, with no agent program on `$PATH`
/// (found by their directories alone, whatever this machine has).
fn setup(home: &Path, args: &[&str]) -> Output {
    setup_in(home, home, args)
}

/// [`setup`] run from the directory `cwd`.
fn setup_in(home: &Path, cwd: &Path, args: &[&str]) -> Output {
    let empty = home.join("empty-path");
    std::fs::create_dir_all(&empty).unwrap();
    command(home)
        .env("PATH", &empty)
        .current_dir(cwd)
        .arg("setup")
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

/// Every file below `dir` with its bytes (the receipt's state directory
/// and the empty `$PATH` apart).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                walk(&path, out);
            } else if meta.is_file() {
                out.insert(path.clone(), std::fs::read(&path).unwrap());
            } else {
                out.insert(path.clone(), b"<link>".to_vec());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, &mut out);
    out.retain(|p, _| !p.starts_with(dir.join(".local")) && !p.starts_with(dir.join(".cache")));
    out
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn setup_then_undo_leaves_every_file_as_it_was() {
    let home = home_with_three_agents();
    let h = home.path();
    let before = snapshot(h);

    // A dry run shows each file and entry, and writes nothing.
    let dry = setup(h, &["--dry-run"]);
    assert!(dry.status.success(), "{}", text(&dry));
    let shown = String::from_utf8_lossy(&dry.stdout);
    for file in [
        ".claude/settings.json",
        ".claude.json",
        ".gemini/settings.json",
        ".codex/config.toml",
        ".codex/hooks.json",
    ] {
        assert!(
            shown.contains(&h.join(file).display().to_string()),
            "{file}: {shown}"
        );
    }
    assert!(shown.contains("+ [mcp_servers.session-ref]"), "{shown}");
    assert!(
        shown.contains("opencode: not found on this machine"),
        "{shown}"
    );
    assert_eq!(snapshot(h), before);

    // Without a terminal, setup asks for --yes and writes nothing.
    let refused = setup(h, &[]);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    assert!(text(&refused).contains("--yes"));
    assert_eq!(snapshot(h), before);

    let done = setup(h, &["--yes"]);
    assert!(done.status.success(), "{}", text(&done));
    let claude = std::fs::read_to_string(h.join(".claude/settings.json")).unwrap();
    assert!(
        claude.starts_with("{\n  // my Claude settings\n"),
        "{claude}"
    );
    assert!(claude.contains("echo other-hook") && claude.contains(" hook claude"));
    assert!(claude.contains("mcp__session-ref"));
    let gemini = std::fs::read_to_string(h.join(".gemini/settings.json")).unwrap();
    assert!(gemini.contains("// another server") && gemini.contains("\"session-ref\""));
    let codex = std::fs::read_to_string(h.join(".codex/config.toml")).unwrap();
    assert!(codex.starts_with(CODEX_CONFIG) && codex.contains("[mcp_servers.session-ref]"));
    assert!(h.join(".codex/hooks.json").is_file());
    // Agents that are not here are not touched.
    for absent in [".copilot", ".qwen", ".config/opencode"] {
        assert!(!h.join(absent).exists(), "{absent}");
    }
    // The receipt is private.
    let receipt = h.join(".local/state/session-ref/setup-receipt.json");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&receipt), 0o600);
    assert_eq!(mode(receipt.parent().unwrap()), 0o700);

    // Idempotent: a second run changes nothing.
    let after = snapshot(h);
    let again = setup(h, &["--yes"]);
    assert!(again.status.success(), "{}", text(&again));
    assert!(String::from_utf8_lossy(&again.stdout).contains("nothing to change"));
    assert_eq!(snapshot(h), after);

    let undone = setup(h, &["--undo"]);
    assert!(undone.status.success(), "{}", text(&undone));
    // Byte for byte, no backup or lock left beside, no file or folder of ours.
    assert_eq!(snapshot(h), before, "{}", text(&undone));
    assert!(!receipt.exists());
    let nothing = setup(h, &["--undo"]);
    assert!(String::from_utf8_lossy(&nothing.stdout).contains("nothing to undo"));
}

/// Edit `settings` (set up from `seed`) by hand, replacing `from` with
/// `to`, then `setup --undo` (from `home`): undo says the file was edited
/// and leaves the seed with the edit, without our entries.
fn edit_then_undo(home: &Path, settings: &Path, seed: &str, (from, to): (&str, &str)) {
    let edited = std::fs::read_to_string(settings).unwrap().replace(from, to);
    std::fs::write(settings, &edited).unwrap();
    let undone = setup(home, &["--undo"]);
    assert!(undone.status.success(), "{}", text(&undone));
    assert!(
        text(&undone).contains("edited since setup"),
        "{}",
        text(&undone)
    );
    assert_eq!(
        std::fs::read_to_string(settings).unwrap(),
        seed.replace(from, to)
    );
}

#[test]
fn undo_after_an_edit_keeps_the_edit_and_removes_our_entries_only() {
    let home = home_with_three_agents();
    let h = home.path();
    assert!(setup(h, &["--yes", "--agent", "claude,gemini"])
        .status
        .success());
    assert!(
        !h.join(".codex/hooks.json").exists(),
        "--agent limits setup"
    );
    let settings = h.join(".claude/settings.json");
    edit_then_undo(
        h,
        &settings,
        CLAUDE_SETTINGS,
        ("\"theme\": \"dark\"", "\"theme\": \"light\""),
    );
    // The files not edited are back byte for byte.
    assert_eq!(
        std::fs::read_to_string(h.join(".claude.json")).unwrap(),
        CLAUDE_JSON
    );
    assert_eq!(
        std::fs::read_to_string(h.join(".gemini/settings.json")).unwrap(),
        GEMINI_SETTINGS
    );
}

#[test]
fn malformed_read_only_and_symlinked_files_are_reported_and_left_untouched() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    // Gemini CLI: malformed. Qwen Code: read-only. Copilot CLI: its MCP
    // file a link (a dotfile manager's). Claude Code: fine.
    std::fs::create_dir_all(h.join(".gemini")).unwrap();
    std::fs::write(h.join(".gemini/settings.json"), "{ \"mcpServers\": ").unwrap();
    std::fs::create_dir_all(h.join(".qwen")).unwrap();
    let qwen = h.join(".qwen/settings.json");
    std::fs::write(&qwen, "{}\n").unwrap();
    std::fs::set_permissions(&qwen, std::fs::Permissions::from_mode(0o444)).unwrap();
    std::fs::create_dir_all(h.join(".copilot")).unwrap();
    std::fs::create_dir_all(h.join("dotfiles")).unwrap();
    std::fs::write(h.join("dotfiles/mcp-config.json"), "{}\n").unwrap();
    std::os::unix::fs::symlink(
        h.join("dotfiles/mcp-config.json"),
        h.join(".copilot/mcp-config.json"),
    )
    .unwrap();
    std::fs::create_dir_all(h.join(".claude")).unwrap();
    let before = snapshot(h);

    let done = setup(h, &["--yes"]);
    let said = text(&done);
    assert_eq!(done.status.code(), Some(1), "{said}");
    assert!(said.contains("is not a valid settings file"), "{said}");
    assert!(said.contains("is read-only"), "{said}");
    assert!(said.contains("is a symbolic link"), "{said}");
    for file in [
        ".gemini/settings.json",
        ".qwen/settings.json",
        "dotfiles/mcp-config.json",
    ] {
        assert_eq!(
            std::fs::read(h.join(file)).unwrap(),
            before[&h.join(file)],
            "{file}"
        );
    }
    assert!(
        std::fs::symlink_metadata(h.join(".copilot/mcp-config.json"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    // What could be done was: Claude Code, and Copilot CLI's hook file.
    assert!(h.join(".claude/settings.json").is_file());
    assert!(h.join(".copilot/hooks/session-ref.json").is_file());

    let undone = setup(h, &["--undo"]);
    assert!(undone.status.success(), "{}", text(&undone));
    assert_eq!(snapshot(h), before, "{}", text(&undone));
    assert!(
        !h.join(".copilot/hooks").exists(),
        "the folder setup made is gone"
    );
}

#[test]
fn nothing_is_touched_on_a_machine_without_agents() {
    let home = tempfile::tempdir().unwrap();
    let done = setup(home.path(), &["--yes"]);
    assert!(done.status.success(), "{}", text(&done));
    assert!(String::from_utf8_lossy(&done.stdout).contains("no supported agent was found"));
    assert!(snapshot(home.path()).is_empty());
}

const PROJECT_CLAUDE: &str = "{\n  // the team's Claude settings\n  \"hooks\": {\n    \"UserPromptSubmit\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"echo team-hook\"}]}\n    ]\n  }\n}\n";
const PROJECT_GEMINI: &str =
    "{\n  // the team's servers\n  \"mcpServers\": {\"lint\": {\"command\": \"lint-mcp\"}},\n}\n";
const PROJECT_OPENCODE: &str =
    "{\n  /* team */ \"mcp\": {\"lint\": {\"type\": \"local\", \"command\": [\"lint-mcp\"]}}\n}\n";

/// The three agents' home plus opencode and Cline, and a project `proj`
/// whose Claude Code, Gemini CLI and opencode settings are the team's.
fn home_with_a_project() -> (tempfile::TempDir, PathBuf) {
    let home = home_with_three_agents();
    let h = home.path();
    std::fs::create_dir_all(h.join(".config/opencode")).unwrap();
    std::fs::create_dir_all(h.join(".cline")).unwrap();
    let proj = h.join("proj");
    std::fs::create_dir_all(proj.join(".claude")).unwrap();
    std::fs::write(proj.join(".claude/settings.json"), PROJECT_CLAUDE).unwrap();
    std::fs::create_dir_all(proj.join(".gemini")).unwrap();
    std::fs::write(proj.join(".gemini/settings.json"), PROJECT_GEMINI).unwrap();
    std::fs::write(proj.join("opencode.json"), PROJECT_OPENCODE).unwrap();
    (home, proj)
}

#[test]
fn project_setup_writes_the_projects_files_and_undo_from_anywhere_restores_them() {
    let (home, proj) = home_with_a_project();
    let h = home.path();
    let before = snapshot(h);

    let dry = setup_in(h, &proj, &["--project", "--dry-run"]);
    assert!(dry.status.success(), "{}", text(&dry));
    let shown = String::from_utf8_lossy(&dry.stdout);
    assert!(
        shown.starts_with(&format!("project settings of {}", proj.display())),
        "{shown}"
    );
    for file in [
        ".claude/settings.json",
        ".mcp.json",
        ".gemini/settings.json",
        ".codex/hooks.json",
        ".codex/config.toml",
        "opencode.json",
    ] {
        assert!(
            shown.contains(&proj.join(file).display().to_string()),
            "{file}: {shown}"
        );
    }
    assert!(
        shown.contains("MCP server: no project settings: Cline CLI"),
        "{shown}"
    );
    assert_eq!(snapshot(h), before);

    let done = setup_in(h, &proj, &["--project", "--yes"]);
    assert!(done.status.success(), "{}", text(&done));
    let claude = std::fs::read_to_string(proj.join(".claude/settings.json")).unwrap();
    assert!(
        claude.starts_with("{\n  // the team's Claude settings\n"),
        "{claude}"
    );
    assert!(
        claude.contains("echo team-hook") && claude.contains(" hook claude"),
        "{claude}"
    );
    assert!(claude.contains("mcp__session-ref"), "{claude}");
    assert!(std::fs::read_to_string(proj.join(".mcp.json"))
        .unwrap()
        .contains("session-ref"));
    let gemini = std::fs::read_to_string(proj.join(".gemini/settings.json")).unwrap();
    assert!(
        gemini.contains("lint-mcp") && gemini.contains("\"session-ref\""),
        "{gemini}"
    );
    let opencode = std::fs::read_to_string(proj.join("opencode.json")).unwrap();
    assert!(
        opencode.contains("/* team */") && opencode.contains("\"session-ref\""),
        "{opencode}"
    );
    // The user's settings are not the project's: untouched, but for
    // Codex's trust of the project's hook, which it keeps in the user's
    // config.toml.
    for file in [
        ".claude/settings.json",
        ".claude.json",
        ".gemini/settings.json",
    ] {
        assert_eq!(
            std::fs::read(h.join(file)).unwrap(),
            before[&h.join(file)],
            "{file}"
        );
    }
    assert!(!h.join(".config/opencode/opencode.json").exists());
    assert!(!h.join(".cline/data").exists(), "Cline is left alone");
    let receipt =
        std::fs::read_to_string(h.join(".local/state/session-ref/setup-receipt.json")).unwrap();
    assert!(
        receipt.contains(&format!("\"project\": \"{}\"", proj.display())),
        "{receipt}"
    );

    // Undone from another directory: the receipt knows the project.
    let undone = setup_in(h, h, &["--undo"]);
    assert!(undone.status.success(), "{}", text(&undone));
    assert_eq!(snapshot(h), before, "{}", text(&undone));
}

#[test]
fn undo_of_an_edited_project_file_cleans_the_project_not_the_user() {
    let (home, proj) = home_with_a_project();
    let h = home.path();
    // The user's own Claude Code settings hold session-ref too (by hand).
    assert!(setup(h, &["--yes", "--agent", "claude"]).status.success());
    let user_claude = std::fs::read(h.join(".claude/settings.json")).unwrap();
    assert!(
        setup_in(h, &proj, &["--yes", "--project", "--agent", "claude"])
            .status
            .success()
    );
    let settings = proj.join(".claude/settings.json");
    edit_then_undo(h, &settings, PROJECT_CLAUDE, ("the team's", "our team's"));
    // The user's file was restored whole (not edited since), ours gone.
    assert_ne!(
        std::fs::read(h.join(".claude/settings.json")).unwrap(),
        user_claude
    );
    assert_eq!(
        std::fs::read_to_string(h.join(".claude/settings.json")).unwrap(),
        CLAUDE_SETTINGS
    );
    assert!(!proj.join(".mcp.json").exists());
}

/// Run `setup ARGS` in a tmux pane (a terminal on stdin and stderr, where
/// the plan and the question go; stdout and the exit code to files in
/// `home`), answer `answer` once the question is asked, and return the
/// screen that held the question, the exit code and stdout.
fn setup_on_a_terminal(home: &Path, args: &str, answer: &str) -> (String, String, String) {
    let run = home.join("run");
    let _ = std::fs::remove_dir_all(&run);
    std::fs::create_dir_all(&run).unwrap();
    let empty = home.join("empty-path");
    std::fs::create_dir_all(&empty).unwrap();
    let rc = quote_path(&run.join("rc"));
    let command = format!(
        "cd {h} && env -i HOME={h} XDG_STATE_HOME={h}/.local/state XDG_CACHE_HOME={h}/.cache \
         PATH={path} TERM=xterm {bin} setup {args} > {out}; echo $? > {rc}.tmp && mv {rc}.tmp {rc}; sleep 5",
        h = quote_path(home),
        path = quote_path(&empty),
        bin = quote_path(&bin()),
        out = quote_path(&run.join("out")),
    );
    let tmux = Tmux::start("setup", 120, 60, &command);
    let screen = tmux.wait_for("the question", |s| s.contains("Write these changes? [y/N]"));
    tmux.type_text(answer);
    tmux.keys(&["Enter"]);
    let rc = tmux::wait_for_file(&run.join("rc"), &tmux);
    let out = std::fs::read_to_string(run.join("out")).unwrap();
    std::fs::remove_dir_all(&run).unwrap();
    (screen, rc.trim().to_owned(), out)
}

#[test]
fn setup_asks_once_on_a_terminal_and_writes_only_on_yes() {
    if !tmux::require("setup on a terminal") {
        return;
    }
    let home = home_with_three_agents();
    let h = home.path();
    let before = snapshot(h);

    let (screen, rc, out) = setup_on_a_terminal(h, "--agent claude,codex", "n");
    // The plan comes before the question: each file and entry.
    for shown in [
        "Claude Code: found",
        "hook: add to",
        "MCP server: add to",
        "+ [mcp_servers.session-ref]",
        ".codex/config.toml",
    ] {
        assert!(screen.contains(shown), "{shown}: {screen}");
    }
    assert_eq!(rc, "0", "{out}");
    assert_eq!(out, "nothing was written\n");
    assert_eq!(snapshot(h), before);
    assert!(!h
        .join(".local/state/session-ref/setup-receipt.json")
        .exists());

    let (_, rc, out) = setup_on_a_terminal(h, "--agent claude,codex", "y");
    assert_eq!(rc, "0", "{out}");
    assert!(out.contains("receipt: "), "{out}");
    assert!(h
        .join(".local/state/session-ref/setup-receipt.json")
        .is_file());
    assert!(std::fs::read_to_string(h.join(".codex/config.toml"))
        .unwrap()
        .contains("[mcp_servers.session-ref]"));
    assert!(std::fs::read_to_string(h.join(".claude/settings.json"))
        .unwrap()
        .contains(" hook claude"));
    assert!(
        !std::fs::read_to_string(h.join(".gemini/settings.json"))
            .unwrap()
            .contains("session-ref"),
        "--agent is kept on a terminal"
    );
}

#[test]
fn vibe_continue_and_goose_are_found_by_their_homes_and_set_up_then_undone() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    std::fs::create_dir_all(h.join(".vibe")).unwrap();
    std::fs::write(
        h.join(".vibe/config.toml"),
        "active_model = \"mock\" # mine\n",
    )
    .unwrap();
    std::fs::create_dir_all(h.join(".config/goose")).unwrap();
    std::fs::write(
        h.join(".config/goose/config.yaml"),
        "# mine\nGOOSE_MODEL: x\n",
    )
    .unwrap();
    // Continue's home without a config.yaml: cn is on its hub configuration.
    std::fs::create_dir_all(h.join(".continue/sessions")).unwrap();
    let before = snapshot(h);

    let dry = setup(h, &["--dry-run"]);
    let shown = text(&dry);
    assert!(shown.contains("Mistral Vibe: found"), "{shown}");
    assert!(shown.contains("+ [[mcp_servers]]"), "{shown}");
    assert!(shown.contains("Goose: found"), "{shown}");
    assert!(shown.contains("+ extensions:"), "{shown}");
    assert!(shown.contains("Continue CLI: found"), "{shown}");
    assert!(shown.contains("hub configuration"), "{shown}");
    assert_eq!(snapshot(h), before);

    let done = setup(h, &["--yes", "--agent", "vibe,goose"]);
    assert!(done.status.success(), "{}", text(&done));
    let vibe = std::fs::read_to_string(h.join(".vibe/config.toml")).unwrap();
    assert!(vibe.contains("name = \"session-ref\""), "{vibe}");
    let goose = std::fs::read_to_string(h.join(".config/goose/config.yaml")).unwrap();
    assert!(goose.contains("  session-ref:\n"), "{goose}");
    let undone = setup(h, &["--undo"]);
    assert!(undone.status.success(), "{}", text(&undone));
    let mut after = snapshot(h);
    after.retain(|path, _| !path.to_string_lossy().contains("session-ref-backup"));
    assert_eq!(after, before);
}
