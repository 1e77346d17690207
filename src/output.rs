//! Delivering a result: stdout (once, whole), a file, a command's stdin, or a
//! tmux pane. A closed stdout pipe is not an error.

use std::io::{self, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::config::Destination;

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

/// Write `text` to `path` as a shell's `>` does: through a symlink to its
/// target, into a device or FIFO as it is, creating a missing file. Only a
/// regular file with a single link is replaced atomically (a temporary
/// sibling of the *target*, renamed over it, with the old permissions), so a
/// failure leaves the old content whole; not one named through `/dev` or
/// `/proc` (`/dev/stdout` redirected to a file is that open file).
fn write_file(path: &Path, text: &str) -> Result<(), DeliveryError> {
    let fail = |source| DeliveryError::File {
        path: path.display().to_string(),
        source,
    };
    let special = path.starts_with("/dev") || path.starts_with("/proc");
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() && single_link(&meta) && !special => {
            let target = std::fs::canonicalize(path).map_err(fail)?;
            replace_regular_file(&target, &meta, text).map_err(fail)
        }
        _ => std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .and_then(|mut file| file.write_all(text.as_bytes()).and_then(|()| file.flush()))
            .map_err(fail),
    }
}

#[cfg(unix)]
fn single_link(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    meta.nlink() == 1
}

#[cfg(not(unix))]
fn single_link(_: &std::fs::Metadata) -> bool {
    true
}

fn replace_regular_file(target: &Path, old: &std::fs::Metadata, text: &str) -> io::Result<()> {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = target.with_file_name(format!(".{name}.session-ref.{}", std::process::id()));
    let result = std::fs::write(&tmp, text)
        .and_then(|()| std::fs::set_permissions(&tmp, old.permissions()))
        .and_then(|()| std::fs::rename(&tmp, target));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Check, before the picker opens, that `path` can be written as
/// [`deliver`] will write it, so that a composed prompt is not lost to an
/// unwritable destination. Opens nothing (a FIFO would block): asks the
/// system whether the path, or the directory it would be created in, is
/// writable.
pub fn check_writable(path: &Path) -> Result<(), DeliveryError> {
    let fail = |source| DeliveryError::File {
        path: path.display().to_string(),
        source,
    };
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Err(fail(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory",
        ))),
        Ok(_) => access_writable(path).map_err(fail),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // A dangling symlink is created at its target, as `>` does.
            let created = match std::fs::read_link(path) {
                Ok(target) if target.is_absolute() => target,
                Ok(target) => path.parent().unwrap_or(Path::new(".")).join(target),
                Err(_) => path.to_owned(),
            };
            let dir = match created.parent() {
                Some(dir) if !dir.as_os_str().is_empty() => dir,
                _ => Path::new("."),
            };
            access_writable(dir).map_err(fail)
        }
        Err(e) => Err(fail(e)),
    }
}

#[cfg(unix)]
fn access_writable(path: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "the path holds a NUL byte"))?;
    // SAFETY: `c_path` is a valid NUL-terminated string that outlives the call.
    let status = unsafe { libc::access(c_path.as_ptr(), libc::W_OK) };
    if status == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(not(unix))]
fn access_writable(path: &Path) -> io::Result<()> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.permissions().readonly() => {
            Err(io::Error::new(io::ErrorKind::PermissionDenied, "read-only"))
        }
        Ok(_) => Ok(()),
        Err(e) => Err(e),
    }
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
    use std::path::PathBuf;

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

    #[cfg(unix)]
    #[test]
    fn file_is_written_through_a_symlink_and_a_device() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target.txt");
        std::fs::write(&target, "old").unwrap();
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        check_writable(&link).unwrap();
        deliver("new\n", &Destination::File(link.clone())).unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);

        // A dangling symlink: the target is created, the link stays.
        let later = dir.path().join("later.txt");
        let dangling = dir.path().join("dangling.txt");
        std::os::unix::fs::symlink("later.txt", &dangling).unwrap();
        check_writable(&dangling).unwrap();
        deliver("made", &Destination::File(dangling.clone())).unwrap();
        assert_eq!(std::fs::read_to_string(&later).unwrap(), "made");
        assert!(std::fs::symlink_metadata(&dangling)
            .unwrap()
            .file_type()
            .is_symlink());

        // A device is written in place, never replaced.
        use std::os::unix::fs::FileTypeExt;
        check_writable(Path::new("/dev/null")).unwrap();
        deliver("gone", &Destination::File("/dev/null".into())).unwrap();
        assert!(std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_file_named_through_proc_is_written_in_place() {
        use std::os::unix::fs::MetadataExt;
        use std::os::unix::io::AsRawFd;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("redirected.txt");
        let file = std::fs::File::create(&path).unwrap();
        let inode = file.metadata().unwrap().ino();
        let through = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
        check_writable(&through).unwrap();
        deliver("in place", &Destination::File(through)).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "in place");
        assert_eq!(std::fs::metadata(&path).unwrap().ino(), inode);
    }

    #[cfg(unix)]
    #[test]
    fn permissions_survive_the_atomic_replace() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        std::fs::write(&path, "old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        deliver("new", &Destination::File(path.clone())).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
    }

    #[test]
    fn unwritable_destinations_are_found_before_the_picker() {
        let dir = tempfile::tempdir().unwrap();
        assert!(check_writable(dir.path()).is_err());
        assert!(check_writable(&dir.path().join("no/such/dir/out.txt")).is_err());
        check_writable(&dir.path().join("new.txt")).unwrap();
        assert!(
            !dir.path().join("new.txt").exists(),
            "checking creates nothing"
        );
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
