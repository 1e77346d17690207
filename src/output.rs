//! Delivering a result: stdout (once, whole), a file, a command's stdin, or a
//! tmux pane. A closed stdout pipe is not an error.

use std::io::{self, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::cli::Destination;

/// How delivery went.
#[derive(Debug, PartialEq, Eq)]
pub enum Delivered {
    /// Written; exit 0.
    Done,
    /// `--exec` ran; its exit code is ours.
    Exited(i32),
}

/// Why delivery failed (the result was not delivered).
#[derive(Debug, thiserror::Error)]
pub enum DeliveryError {
    /// Writing the file failed.
    #[error("cannot write {path}: {source}")]
    File {
        /// The file.
        path: String,
        /// The I/O error.
        source: io::Error,
    },
    /// The command or tmux could not be run.
    #[error("cannot run {what}: {source}")]
    Spawn {
        /// What was run.
        what: String,
        /// The I/O error.
        source: io::Error,
    },
    /// tmux refused.
    #[error("tmux {step} failed: {stderr}")]
    Tmux {
        /// Which step.
        step: &'static str,
        /// What tmux said.
        stderr: String,
    },
    /// stdout failed for a reason other than a closed pipe.
    #[error("cannot write to stdout: {0}")]
    Stdout(io::Error),
}

impl From<DeliveryError> for crate::error::Error {
    fn from(e: DeliveryError) -> Self {
        crate::error::Error::delivery_failed(e.to_string())
    }
}

/// Write `text` to stdout in one go. A closed pipe (the reader went away) is
/// success: there is no one left to tell.
pub fn write_stdout(text: &str) -> Result<(), DeliveryError> {
    let stdout = io::stdout();
    let mut lock = stdout.lock();
    match lock.write_all(text.as_bytes()).and_then(|()| lock.flush()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(DeliveryError::Stdout(e)),
        _ => Ok(()),
    }
}

/// Deliver `text` to `destination`.
pub fn deliver(text: &str, destination: &Destination) -> Result<Delivered, DeliveryError> {
    match destination {
        Destination::Stdout => write_stdout(text).map(|()| Delivered::Done),
        Destination::File(path) => write_file(path, text).map(|()| Delivered::Done),
        Destination::Exec(command) => run_with_stdin(command, text).map(Delivered::Exited),
        Destination::TmuxPaste(pane) => tmux_paste(pane, text).map(|()| Delivered::Done),
    }
}

/// Write the whole file through a temporary sibling and a rename, so a
/// failure never leaves half a result behind.
fn write_file(path: &Path, text: &str) -> Result<(), DeliveryError> {
    let fail = |source| DeliveryError::File {
        path: path.display().to_string(),
        source,
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.session-ref.{}", std::process::id()));
    let result = std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(fail)
}

/// Run `command` through `sh -c` with `text` on its stdin; its exit code
/// (128 + signal when killed).
pub fn run_with_stdin(command: &str, text: &str) -> Result<i32, DeliveryError> {
    let spawn_err = |source| DeliveryError::Spawn {
        what: command.to_owned(),
        source,
    };
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::piped())
        .spawn()
        .map_err(spawn_err)?;
    if let Some(mut stdin) = child.stdin.take() {
        // The command may exit without reading everything; that is its choice.
        let _ = stdin.write_all(text.as_bytes());
    }
    let status = child.wait().map_err(spawn_err)?;
    Ok(exit_code(status))
}

#[cfg(unix)]
fn exit_code(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0))
}

#[cfg(not(unix))]
fn exit_code(status: std::process::ExitStatus) -> i32 {
    status.code().unwrap_or(1)
}

/// Load `text` into a tmux buffer and paste it into `pane` with bracketed
/// paste, deleting the buffer afterwards.
pub fn tmux_paste(pane: &str, text: &str) -> Result<(), DeliveryError> {
    let buffer = format!("session-ref-{}", std::process::id());
    let spawn_err = |source| DeliveryError::Spawn {
        what: "tmux".to_owned(),
        source,
    };
    let mut load = Command::new("tmux")
        .args(["load-buffer", "-b", &buffer, "-"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(spawn_err)?;
    if let Some(mut stdin) = load.stdin.take() {
        stdin.write_all(text.as_bytes()).map_err(spawn_err)?;
    }
    let out = load.wait_with_output().map_err(spawn_err)?;
    if !out.status.success() {
        return Err(DeliveryError::Tmux {
            step: "load-buffer",
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        });
    }
    let out = Command::new("tmux")
        .args(["paste-buffer", "-p", "-d", "-b", &buffer, "-t", pane])
        .output()
        .map_err(spawn_err)?;
    if !out.status.success() {
        let _ = Command::new("tmux")
            .args(["delete-buffer", "-b", &buffer])
            .output();
        return Err(DeliveryError::Tmux {
            step: "paste-buffer",
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_is_written_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        deliver("hello\n", &Destination::File(path.clone())).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "hello\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let missing = dir.path().join("no/such/dir/out.txt");
        assert!(deliver("x", &Destination::File(missing)).is_err());
    }

    #[test]
    fn exec_returns_the_commands_exit_code() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("got");
        let cmd = format!("cat > '{}'; exit 7", path.display());
        assert_eq!(
            deliver("payload", &Destination::Exec(cmd)).unwrap(),
            Delivered::Exited(7)
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "payload");
    }
}
