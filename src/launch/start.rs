//! Starting a [`Plan`]: the thin front-end over the pure plan. Outside
//! tmux the agent replaces this process (exec, after the picker restored
//! the terminal); inside tmux it opens in a new window (or a split of the
//! current pane) and this process ends.
//!
//! Why tmux runs `session-ref exec-plan FILE` rather than the agent: tmux
//! hands a command given as one word to `sh -c` (given as several, it
//! runs them directly), and a client's command must fit one tmux message
//! (16 KiB in tmux 3.x), which a hand-off's first prompt does not. So the
//! plan goes into a private file (0600 in a fresh 0700 directory), tmux
//! gets three argv words, and `exec-plan` reads the plan, removes it and
//! execs the agent: no shell ever reads a byte of it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::plan::Plan;
use crate::error::{Error, Result};

/// The plan file's name in its directory.
const PLAN_FILE: &str = "plan.json";

/// Where the agent starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// In this terminal: the agent replaces this process.
    Here,
    /// A new tmux window.
    TmuxWindow,
    /// A split of the current tmux pane.
    TmuxSplit,
}

impl Place {
    /// Where to start, given whether this runs inside tmux (`$TMUX`) and
    /// whether `--tmux-split` was given (which needs tmux).
    pub fn choose(in_tmux: bool, split: bool) -> Result<Place> {
        match (in_tmux, split) {
            (true, true) => Ok(Place::TmuxSplit),
            (true, false) => Ok(Place::TmuxWindow),
            (false, true) => Err(Error::tmux("--tmux-split: not running inside tmux")),
            (false, false) => Ok(Place::Here),
        }
    }

    /// [`Place::choose`] for this process's environment.
    pub fn from_env(split: bool) -> Result<Place> {
        Place::choose(
            std::env::var_os("TMUX").is_some_and(|v| !v.is_empty()),
            split,
        )
    }
}

/// The tmux command line that runs `exe exec-plan FILE` in `cwd` at
/// `place`: the command as three words, so tmux runs it without a shell.
pub fn tmux_args(place: Place, cwd: &Path, exe: &Path, file: &Path) -> Vec<OsString> {
    let verb = if place == Place::TmuxSplit {
        "split-window"
    } else {
        "new-window"
    };
    vec![
        verb.into(),
        "-c".into(),
        cwd.into(),
        "--".into(),
        exe.into(),
        "exec-plan".into(),
        file.into(),
    ]
}

/// Start `plan` at `place`. [`Place::Here`] returns only on failure.
pub fn start(plan: &Plan, place: Place) -> Result<()> {
    match place {
        Place::Here => Err(exec(plan)),
        Place::TmuxWindow | Place::TmuxSplit => in_tmux(plan, place),
    }
}

/// Replace this process with the plan's program in its directory; the
/// error when that fails.
fn exec(plan: &Plan) -> Error {
    let mut command = Command::new(&plan.program);
    command.args(&plan.args).current_dir(&plan.cwd);
    let failed = |e: std::io::Error| {
        Error::cannot_launch(format!(
            "cannot start {}: {e}",
            crate::display::path_for_person(&plan.program)
        ))
    };
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        failed(command.exec())
    }
    #[cfg(not(unix))]
    match command.status() {
        Ok(_) => Error::cannot_launch("the agent ended"),
        Err(e) => failed(e),
    }
}

fn in_tmux(plan: &Plan, place: Place) -> Result<()> {
    let exe =
        std::env::current_exe().map_err(|e| Error::internal(format!("cannot find myself: {e}")))?;
    let file = write_plan(plan)
        .map_err(|e| Error::delivery_failed(format!("cannot write the plan for tmux: {e}")))?;
    let ran = Command::new("tmux")
        .args(tmux_args(place, &plan.cwd, &exe, &file))
        .stdin(std::process::Stdio::null())
        .output();
    let failure = match ran {
        Ok(out) if out.status.success() => return Ok(()),
        Ok(out) => format!(
            "tmux refused to open the agent: {}",
            crate::display::escape_unsafe(String::from_utf8_lossy(&out.stderr).trim())
        ),
        Err(e) => format!("cannot run tmux: {e}"),
    };
    remove_plan(&file);
    Err(Error::tmux(failure))
}

/// Write `plan` into a new private directory; the file's path.
fn write_plan(plan: &Plan) -> std::io::Result<PathBuf> {
    use std::io::Write;
    let mut builder = tempfile::Builder::new();
    builder.prefix("session-ref-launch-");
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(
        session_ref_stores::private::DIR_MODE,
    ));
    let dir = builder.tempdir()?.keep();
    let file = dir.join(PLAN_FILE);
    let bytes = serde_json::to_vec(plan).map_err(std::io::Error::other)?;
    let mut out = session_ref_stores::private::create_new(&file)?;
    out.write_all(&bytes)?;
    out.sync_data()?;
    Ok(file)
}

/// Remove a plan file and its directory.
fn remove_plan(file: &Path) {
    let _ = std::fs::remove_file(file);
    if let Some(dir) = file.parent() {
        let _ = std::fs::remove_dir(dir);
    }
}

/// `exec-plan FILE`, what a tmux window runs: read the plan [`start`]
/// wrote, remove it, and become the agent. Returns only on failure.
pub fn exec_plan_file(file: &Path) -> Error {
    match read_plan(file) {
        Ok(plan) => exec(&plan),
        Err(e) => e,
    }
}

/// The plan in `file`, which is removed (with its directory) once read.
fn read_plan(file: &Path) -> Result<Plan> {
    let read = std::fs::read(file);
    remove_plan(file);
    read.map_err(|e| e.to_string())
        .and_then(|bytes| serde_json::from_slice(&bytes).map_err(|e| e.to_string()))
        .map_err(|e| {
            Error::cannot_launch(format!(
                "exec-plan: cannot read {}: {e}",
                crate::display::path_for_person(file)
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tmux_gets_the_command_as_several_words_so_no_shell_reads_it() {
        let args = tmux_args(
            Place::TmuxWindow,
            Path::new("/w/a b'$(x)"),
            Path::new("/bin/session-ref"),
            Path::new("/tmp/p/plan.json"),
        );
        let words: Vec<String> = args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            words,
            [
                "new-window",
                "-c",
                "/w/a b'$(x)",
                "--",
                "/bin/session-ref",
                "exec-plan",
                "/tmp/p/plan.json"
            ]
        );
        let split = tmux_args(
            Place::TmuxSplit,
            Path::new("/"),
            Path::new("/x"),
            Path::new("/f"),
        );
        assert_eq!(split[0], "split-window");
    }

    #[test]
    fn the_place_follows_tmux_and_the_split_flag() {
        assert_eq!(Place::choose(false, false), Ok(Place::Here));
        assert_eq!(Place::choose(true, false), Ok(Place::TmuxWindow));
        assert_eq!(Place::choose(true, true), Ok(Place::TmuxSplit));
        let err = Place::choose(false, true).unwrap_err();
        assert_eq!(err.code, crate::error::ErrorCode::Tmux);
    }

    #[cfg(unix)]
    #[test]
    fn the_plan_file_is_private_and_read_once() {
        use std::os::unix::fs::PermissionsExt;
        let plan = Plan {
            program: "/nonexistent/agent".into(),
            args: vec!["$(touch /tmp/pwned)".into()],
            cwd: "/".into(),
        };
        let file = write_plan(&plan).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&file), 0o600);
        assert_eq!(mode(file.parent().unwrap()), 0o700);
        // Read once (exec is not tried here: it would change this test
        // process's directory before failing).
        assert_eq!(read_plan(&file), Ok(plan));
        assert!(!file.exists() && !file.parent().unwrap().exists());
        let err = read_plan(&file).unwrap_err();
        assert_eq!(err.code, crate::error::ErrorCode::CannotLaunch);
    }
}
