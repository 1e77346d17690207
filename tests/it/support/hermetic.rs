//! Running the built binary hermetically: no default store of the machine
//! leaks in, and nothing it writes (title index, search index, drafts)
//! reaches the real `~/.cache` or `~/.local/state`. Every test file that
//! runs `session-ref` goes through [`isolate`] (directly, through
//! [`session_ref`], or through [`super::command`]).

use std::path::Path;
use std::process::Command;

/// The variables naming default stores or where the binary writes.
const ISOLATED: &[&str] = &[
    "HYDRA_SESSIONS",
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "GEMINI_CLI_HOME",
    "PI_CODING_AGENT_DIR",
    "QWEN_HOME",
    "QWEN_RUNTIME_DIR",
    "KILO_DB",
    "FACTORY_HOME_OVERRIDE",
    "CRUSH_GLOBAL_DATA",
    "SESSION_REF_CACHE_DIR",
    // The archive and the config file default to the test's home.
    "XDG_DATA_HOME",
    "XDG_CONFIG_HOME",
];

/// Point `command` at `home` (a test's temporary directory): `HOME`, and
/// `XDG_CACHE_HOME` / `XDG_STATE_HOME` inside it (the archive and the
/// config file follow `HOME`), with no store variable
/// set. A test overrides any of them after this call.
pub fn isolate<'c>(command: &'c mut Command, home: &Path) -> &'c mut Command {
    for var in ISOLATED {
        command.env_remove(var);
    }
    command
        .env("HOME", home)
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
}

/// What one run of the binary produced.
pub struct Run {
    /// Exit code (-1 when killed by a signal).
    pub code: i32,
    /// stdout, UTF-8.
    pub stdout: String,
    /// stderr, UTF-8.
    pub stderr: String,
}

/// Run `session-ref` with `args` and the extra `env`, in a fresh home
/// ([`isolate`]).
pub fn session_ref(args: &[&str], env: &[(&str, &Path)]) -> Run {
    let home = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_session-ref"));
    isolate(&mut command, home.path()).args(args);
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().unwrap();
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

/// stdout of a successful run (else fail with its stderr).
pub fn ok(run: Run) -> String {
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    run.stdout
}

/// Copy the tree `from` (a fixture) to `to`, creating `to`.
pub fn copy_tree(from: &Path, to: &Path) {
    copy_tree_then(from, to, &|_| {});
}

/// [`copy_tree`], calling `each` on every file copied (to age it, say).
pub fn copy_tree_then(from: &Path, to: &Path, each: &dyn Fn(&Path)) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree_then(&entry.path(), &target, each);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
            each(&target);
        }
    }
}
