//! `resume` and `handoff`, from the command line and from the picker in
//! tmux: a fake agent on `PATH` records the argv it got (NUL-separated)
//! and the directory it started in, so each test proves the exact words
//! and cwd. The session's cwd holds spaces and quotes, its label a
//! `$(…)` that must never run.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::tmux::{self, quote, quote_path, wait_for_file, Tmux};
use crate::support::{assert_fails_with, command, feed, stderr, stdout};

const ID: &str = "c0ffee00-0000-4000-8000-00000000beef";
/// The first prompt, hence the label: it must never be run by a shell.
const PROMPT: &str = "$(touch PWNED) fix the parser";

/// A test's files: a Claude Code store, the session's cwd, the fake
/// agents' directory and where they record what they got.
struct World {
    dir: tempfile::TempDir,
}

impl World {
    fn new() -> World {
        let world = World {
            dir: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(world.cwd()).unwrap();
        std::fs::create_dir_all(world.bin()).unwrap();
        std::fs::create_dir_all(world.path().join("home")).unwrap();
        world.write_session();
        world
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The session's working directory: a space, both quotes, a `$`.
    fn cwd(&self) -> PathBuf {
        self.path().join("my proj 'q' \"dq\" $HOME")
    }

    fn bin(&self) -> PathBuf {
        self.path().join("bin")
    }

    fn store(&self) -> PathBuf {
        self.path().join("claude")
    }

    fn log(&self) -> PathBuf {
        self.store()
            .join("projects/-proj")
            .join(format!("{ID}.jsonl"))
    }

    fn write_session(&self) {
        let cwd = self.cwd();
        let cwd = cwd.to_str().unwrap();
        let user = serde_json::json!({
            "parentUuid": null, "isSidechain": false, "userType": "external", "cwd": cwd,
            "sessionId": ID, "type": "user", "uuid": "u1", "timestamp": "2026-11-01T10:00:00.000Z",
            "message": {"role": "user", "content": PROMPT},
        });
        let assistant = serde_json::json!({
            "parentUuid": "u1", "isSidechain": false, "userType": "external", "cwd": cwd,
            "sessionId": ID, "type": "assistant", "uuid": "a1", "timestamp": "2026-11-01T10:00:05.000Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "Parser fixed."}]},
        });
        std::fs::create_dir_all(self.log().parent().unwrap()).unwrap();
        std::fs::write(self.log(), format!("{user}\n{assistant}\n")).unwrap();
    }

    /// A fake `name` on `PATH` recording its argv, cwd, its terminal's
    /// modes and, inside tmux, its window's index and pane count under
    /// `name.*`.
    fn fake_agent(&self, name: &str) {
        let argv = quote_path(&self.path().join(format!("{name}.argv")));
        let cwd = quote_path(&self.path().join(format!("{name}.cwd")));
        let place = quote_path(&self.path().join(format!("{name}.place")));
        let stty = quote_path(&self.path().join(format!("{name}.stty")));
        let script = format!(
            "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > {argv}.tmp\n\
             stty -a < /dev/tty > {stty} 2> /dev/null\n\
             [ -z \"$TMUX\" ] || tmux display-message -p '#{{window_index}} #{{window_panes}}' > {place}\npwd > {cwd}.tmp\nmv {argv}.tmp {argv}\nmv {cwd}.tmp {cwd}\n"
        );
        let path = self.bin().join(name);
        std::fs::write(&path, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// What the fake `name` recorded: its arguments and its cwd.
    fn recorded(&self, name: &str) -> (Vec<String>, PathBuf) {
        let argv = std::fs::read(self.path().join(format!("{name}.argv"))).unwrap();
        let argv = String::from_utf8(argv).unwrap();
        let mut args: Vec<String> = argv.split('\0').map(str::to_owned).collect();
        assert_eq!(args.pop().as_deref(), Some(""), "argv ends with a NUL");
        let cwd = std::fs::read_to_string(self.path().join(format!("{name}.cwd"))).unwrap();
        (args, PathBuf::from(cwd.trim_end_matches('\n')))
    }

    /// [`World::recorded`], once the fake `name` ran (in a pane of `tmux`).
    fn wait_recorded(&self, name: &str, tmux: &Tmux) -> (Vec<String>, PathBuf) {
        wait_for_file(&self.path().join(format!("{name}.cwd")), tmux);
        self.recorded(name)
    }

    /// Where inside tmux the fake `name` ran: `WINDOW_INDEX PANES`.
    fn place(&self, name: &str) -> String {
        let place = std::fs::read_to_string(self.path().join(format!("{name}.place")));
        place.unwrap().trim().to_owned()
    }

    /// `PATH` with the fake agents first.
    fn path_var(&self) -> String {
        format!("{}:/usr/bin:/bin", self.bin().display())
    }

    /// Run session-ref on the store, outside tmux.
    fn run(&self, args: &[&str]) -> Output {
        let mut cmd = command(&self.path().join("home"));
        cmd.env("PATH", self.path_var())
            .arg("--claude")
            .arg(self.store())
            .args(args);
        feed(&mut cmd, "")
    }

    /// The hand-off's first prompt as `prepare` builds it (without the
    /// final newline): the request, then the session's mention.
    fn prepared(&self, request: &str) -> String {
        let label = PROMPT;
        let mention = session_ref_core::mention::format_mention(ID, Some(label));
        let out = self.run(&["prepare", &format!("{request}\n\n{mention}")]);
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out).strip_suffix('\n').unwrap().to_owned()
    }
}

#[test]
fn resume_prints_the_command_shell_quoted() {
    let world = World::new();
    world.fake_agent("claude");
    let out = world.run(&["resume", &ID[..8], "--print"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let cwd = world.cwd();
    assert_eq!(
        stdout(&out),
        format!(
            "cd {} && {} --resume={ID}\n",
            quote_path(&cwd),
            world.bin().join("claude").display()
        )
    );
    // The printed line runs the same command under a shell, and the
    // `$HOME` and quotes in the directory stay as they are.
    let ran = std::process::Command::new("sh")
        .arg("-c")
        .arg(stdout(&out))
        .env("HOME", "/nowhere")
        .status()
        .unwrap();
    assert!(ran.success());
    assert_eq!(
        world.recorded("claude"),
        (vec![format!("--resume={ID}")], cwd)
    );
}

#[test]
fn resume_outside_tmux_becomes_the_agent_in_the_session_cwd() {
    let world = World::new();
    world.fake_agent("claude");
    let out = world.run(&["resume", ID]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    assert_eq!(
        world.recorded("claude"),
        (vec![format!("--resume={ID}")], world.cwd())
    );
    assert!(!world.cwd().join("PWNED").exists());
}

#[test]
fn handoff_starts_the_other_agent_with_the_prepared_snapshot() {
    let world = World::new();
    world.fake_agent("codex");
    let request = "Review what was done; $(touch PWNED)";
    let out = world.run(&["handoff", ID, "--to", "codex", request]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (args, cwd) = world.recorded("codex");
    assert_eq!(cwd, world.cwd());
    assert_eq!(args, ["--".to_owned(), world.prepared(request)]);
    assert!(args[1].contains("Parser fixed."), "{}", args[1]);
    assert!(!world.cwd().join("PWNED").exists());

    // Without a prompt, the default request; --print quotes it whole.
    let out = world.run(&["handoff", ID, "--to", "gemini", "--print"]);
    world.fake_agent("gemini");
    let out_found = world.run(&["handoff", ID, "--to", "gemini", "--print"]);
    assert_fails_with(&out, "SESSION_REFERENCE_AGENT_MISSING");
    assert!(out_found.status.success(), "{}", stderr(&out_found));
    let want = world.prepared("Continue the work of the session cited below, in this directory.");
    assert!(
        stdout(&out_found).ends_with(&format!(
            " {}\n",
            quote(&format!("--prompt-interactive={want}"))
        )),
        "{}",
        stdout(&out_found)
    );
}

#[test]
fn nothing_starts_when_the_agent_the_cwd_or_a_resume_command_is_missing() {
    let world = World::new();
    assert_fails_with(
        &world.run(&["resume", ID]),
        "SESSION_REFERENCE_AGENT_MISSING",
    );
    world.fake_agent("claude");
    // A kind whose agent takes no first prompt is refused by --to itself.
    let out = world.run(&["handoff", ID, "--to", "cline"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));

    std::fs::remove_dir(world.cwd()).unwrap();
    let out = world.run(&["resume", ID]);
    assert_fails_with(&out, "SESSION_REFERENCE_CANNOT_LAUNCH");
    assert!(
        stderr(&out).contains("no longer exists"),
        "{}",
        stderr(&out)
    );
    assert!(!world.path().join("claude.argv").exists());
    assert_fails_with(
        &world.run(&["resume", "ffffffff-nope"]),
        "SESSION_REFERENCE_READ_FAILED",
    );
}

#[test]
fn hydra_sessions_say_they_cannot_be_resumed() {
    let world = World::new();
    let store = world.path().join("native");
    crate::support::Session::new("native-1", "2026-11-01T10:00:00.000Z", Some("/"))
        .user("hello")
        .write(&store, "native-1.jsonl");
    let mut cmd = command(&world.path().join("home"));
    cmd.env("PATH", world.path_var())
        .arg("--store")
        .arg(&store)
        .args(["resume", "native-1"]);
    let out = feed(&mut cmd, "");
    assert_fails_with(&out, "SESSION_REFERENCE_CANNOT_LAUNCH");
    assert!(
        stderr(&out).contains("cannot be resumed"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn tmux_split_opens_the_agent_beside_the_current_pane() {
    if !tmux::require("resume --tmux-split") {
        return;
    }
    let world = World::new();
    world.fake_agent("claude");
    let command = tmux::recorded(
        world.path(),
        &format!(
            "PATH={} HOME={} XDG_CACHE_HOME={} {} --claude {} resume {ID} --tmux-split; sleep 30",
            quote(&world.path_var()),
            quote_path(&world.path().join("home")),
            quote_path(&world.path().join("cache")),
            quote(env!("CARGO_BIN_EXE_session-ref")),
            quote_path(&world.store()),
        ),
    );
    let tmux = Tmux::start("split", 100, 30, &command);
    assert_eq!(
        world.wait_recorded("claude", &tmux),
        (vec![format!("--resume={ID}")], world.cwd())
    );
    assert_eq!(world.place("claude"), "0 2");
    // Outside tmux, --tmux-split is refused before anything starts.
    std::fs::remove_file(world.path().join("claude.argv")).unwrap();
    assert_fails_with(
        &world.run(&["resume", ID, "--tmux-split"]),
        "SESSION_REFERENCE_TMUX",
    );
    assert!(!world.path().join("claude.argv").exists());
    // Printed only, it needs no tmux.
    let printed = world.run(&["resume", ID, "--tmux-split", "--print"]);
    assert!(
        stdout(&printed).contains(&format!(" --resume={ID}\n")),
        "{}",
        stderr(&printed)
    );
}

/// The picker on the world's store in a tmux pane (so `TMUX` is set and
/// the agent opens in a window of its own), recorded in the world's dir.
fn picker(world: &World, name: &str, width: u16) -> Tmux {
    picker_env(world, name, width, "")
}

/// [`picker`] run under `env` (a prefix such as `env -u TMUX`).
fn picker_env(world: &World, name: &str, width: u16, env: &str) -> Tmux {
    let command = tmux::recorded(
        world.path(),
        &format!(
            "{env} PATH={} HOME={} XDG_STATE_HOME={} XDG_CACHE_HOME={} {} --claude {} --cwd /",
            quote(&world.path_var()),
            quote_path(&world.path().join("home")),
            quote_path(&world.path().join("state")),
            quote_path(&world.path().join("cache")),
            quote(env!("CARGO_BIN_EXE_session-ref")),
            quote_path(&world.store()),
        ),
    );
    let tmux = Tmux::start(name, width, 30, &command);
    tmux.wait_for("the session listed", |s| {
        s.contains("fix the parser") && s.contains("1/1")
    });
    tmux
}

#[test]
fn alt_o_in_the_picker_resumes_in_a_new_tmux_window() {
    if !tmux::require("resume from the picker") {
        return;
    }
    let world = World::new();
    world.fake_agent("claude");
    let tmux = picker(&world, "resume", 200);
    // A wide footer has room for the resume and hand-off hints.
    tmux.wait_for("the hints", |s| {
        s.contains("alt-o resume") && s.contains("alt-h handoff")
    });
    tmux.keys(&["M-o"]);
    assert_eq!(
        world.wait_recorded("claude", &tmux),
        (vec![format!("--resume={ID}")], world.cwd())
    );
    // In a window of its own (the second, alone in it).
    assert_eq!(world.place("claude"), "1 1");
    let exit = tmux.wait_for_exit(world.path());
    assert_eq!(exit.rc, "0", "{}", exit.err);
    assert!(exit.out.is_empty());
    assert!(!world.cwd().join("PWNED").exists());
}

#[test]
fn outside_tmux_the_picker_gives_the_terminal_back_before_the_agent_replaces_it() {
    if !tmux::require("resume from the picker outside tmux") {
        return;
    }
    let world = World::new();
    world.fake_agent("claude");
    // The picker's pane, but without $TMUX: it execs in place.
    let tmux = picker_env(&world, "exec", 100, "env -u TMUX");
    tmux.keys(&["M-o"]);
    assert_eq!(
        world.wait_recorded("claude", &tmux),
        (vec![format!("--resume={ID}")], world.cwd())
    );
    // The agent ran in the picker's own pane and process, on a terminal
    // back in its normal modes (line editing and echo, not raw).
    assert!(!world.path().join("claude.place").exists());
    let modes = std::fs::read_to_string(world.path().join("claude.stty")).unwrap();
    let words: Vec<&str> = modes.split_whitespace().collect();
    for mode in ["icanon", "echo", "isig"] {
        assert!(words.contains(&mode), "{mode} not restored: {modes}");
    }
    // exec: the agent's exit is the picker command's.
    assert_eq!(tmux.wait_for_exit(world.path()).rc, "0");
}

#[test]
fn alt_h_in_the_picker_chooses_the_agent_and_hands_off() {
    if !tmux::require("hand-off from the picker") {
        return;
    }
    let world = World::new();
    world.fake_agent("codex");
    let tmux = picker(&world, "handoff", 100);
    tmux.keys(&["M-h"]);
    tmux.wait_for("the chooser", |s| {
        s.contains("Hand off to") && s.contains("▶ Claude Code")
    });
    tmux.keys(&["Down"]);
    tmux.wait_for("codex highlighted", |s| s.contains("▶ Codex"));
    tmux.keys(&["Enter"]);
    let (args, cwd) = world.wait_recorded("codex", &tmux);
    assert_eq!(cwd, world.cwd());
    assert_eq!(
        args,
        [
            "--".to_owned(),
            world.prepared("Continue the work of the session cited below, in this directory.")
        ]
    );
    let exit = tmux.wait_for_exit(world.path());
    assert_eq!(exit.rc, "0", "{}", exit.err);
}

#[test]
fn a_session_whose_log_vanished_after_listing_is_refused_in_the_picker() {
    if !tmux::require("resume of a vanished session") {
        return;
    }
    let world = World::new();
    world.fake_agent("claude");
    let tmux = picker(&world, "vanished", 100);
    std::fs::remove_file(world.log()).unwrap();
    tmux.keys(&["M-o"]);
    tmux.wait_for("the refusal", |s| {
        s.contains("SESSION_REFERENCE_CANNOT_LAUNCH") && s.contains("gone:")
    });
    // A missing agent is said the same way, and the picker goes on.
    std::fs::remove_file(world.bin().join("claude")).unwrap();
    world.write_session();
    tmux.keys(&["M-o"]);
    tmux.wait_for("the agent missing", |s| {
        s.contains("SESSION_REFERENCE_AGENT_MISSING")
    });
    tmux.keys(&["Escape"]);
    let exit = tmux.wait_for_exit(world.path());
    assert_eq!(exit.rc, "130");
    assert!(!world.path().join("claude.argv").exists());
}
