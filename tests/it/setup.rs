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

use crate::support::command;

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
    let empty = home.join("empty-path");
    std::fs::create_dir_all(&empty).unwrap();
    command(home)
        .env("PATH", &empty)
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
    let edited = std::fs::read_to_string(&settings)
        .unwrap()
        .replace("\"theme\": \"dark\"", "\"theme\": \"light\"");
    std::fs::write(&settings, &edited).unwrap();

    let undone = setup(h, &["--undo"]);
    assert!(undone.status.success(), "{}", text(&undone));
    assert!(
        text(&undone).contains("edited since setup"),
        "{}",
        text(&undone)
    );
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        CLAUDE_SETTINGS.replace("\"theme\": \"dark\"", "\"theme\": \"light\"")
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
