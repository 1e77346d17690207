//! Delivering a result: stdout (once, whole), a file, a command's stdin, or a
//! tmux pane. A closed stdout pipe is not an error. Session text is
//! untrusted: a pane gets it only as a bracketed paste with no trailing
//! newline and no control character, and never a pane where a shell (which
//! would run it) reads its input, unless forced.

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
    /// tmux knows no pane by that name.
    #[error("--tmux-paste: tmux has no pane {target:?}")]
    NoPane {
        /// The target as given.
        target: String,
    },
    /// tmux could not be asked (not installed, no server).
    #[error("--tmux-paste: cannot ask tmux about pane {target:?}: {reason}")]
    TmuxUnavailable {
        /// The target as given.
        target: String,
        /// What went wrong.
        reason: String,
    },
    /// Pasting there would hand the text to a shell.
    #[error(
        "--tmux-paste: refused to paste into tmux pane {pane}: {why}; \
         --tmux-paste-force pastes anyway"
    )]
    Refused {
        /// The pane's id.
        pane: String,
        /// Why, for a person.
        why: String,
    },
}

impl From<DeliveryError> for crate::error::Error {
    fn from(e: DeliveryError) -> Self {
        use crate::error::Error;
        match e {
            DeliveryError::NoPane { .. } | DeliveryError::TmuxUnavailable { .. } => {
                Error::tmux(e.to_string())
            }
            DeliveryError::Refused { .. } => Error::paste_refused(e.to_string()),
            _ => Error::delivery_failed(e.to_string()),
        }
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
        Destination::TmuxPaste { pane, force } => {
            tmux_paste(pane, text, *force).map(|()| Delivered::Done)
        }
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

/// Programs that run what they read as commands: a pane whose foreground
/// process is one of these gets no paste unless forced. Login shells show
/// as `-bash`; see [`is_shell`].
const SHELLS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "fish",
    "dash",
    "ash",
    "ksh",
    "ksh93",
    "mksh",
    "oksh",
    "pdksh",
    "loksh",
    "yash",
    "posh",
    "tcsh",
    "csh",
    "nu",
    "elvish",
    "xonsh",
    "pwsh",
    "powershell",
    "rc",
    "es",
    "ion",
    "osh",
    "ysh",
    "oil",
    "murex",
    "busybox",
    "toybox",
];

/// Whether `command` (tmux's `#{pane_current_command}`) names a shell:
/// compared by base name, without a login shell's leading `-` or `.exe`.
pub fn is_shell(command: &str) -> bool {
    let name = command.trim();
    let name = name.strip_prefix('-').unwrap_or(name);
    let name = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
    let name = name.strip_suffix(".exe").unwrap_or(&name);
    SHELLS.contains(&name)
}

/// Check that `target` names a pane tmux knows and that pasting into it
/// is safe: its foreground process is not a shell, and it is not the
/// terminal this process runs on (whatever started session-ref, a shell
/// most likely, reads the paste once it exits), unless `force`. Its pane
/// id, which later steps use, so that `{last}` keeps meaning the pane it
/// meant when the picker opened. Run before the picker opens and again
/// right before pasting (what runs in a pane changes).
pub fn check_paste_target(target: &str, force: bool) -> Result<String, DeliveryError> {
    let out = Command::new("tmux")
        .args(["display-message", "-p", "-t", target])
        .arg("#{pane_id}\t#{pane_current_command}\t#{pane_tty}")
        .output()
        .map_err(|e| DeliveryError::TmuxUnavailable {
            target: target.to_owned(),
            reason: e.to_string(),
        })?;
    if !out.status.success() {
        return Err(DeliveryError::TmuxUnavailable {
            target: target.to_owned(),
            reason: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        });
    }
    let answer = String::from_utf8_lossy(&out.stdout);
    let mut fields = answer.trim_end_matches('\n').split('\t');
    let (id, command, tty) = (
        fields.next().unwrap_or_default(),
        fields.next().unwrap_or_default(),
        fields.next().unwrap_or_default(),
    );
    // tmux 3.3 answers an unknown target with an empty line and success.
    if !id.starts_with('%') {
        return Err(DeliveryError::NoPane {
            target: target.to_owned(),
        });
    }
    if force {
        return Ok(id.to_owned());
    }
    let refuse = |why: String| DeliveryError::Refused {
        pane: id.to_owned(),
        why,
    };
    if command.trim().is_empty() {
        return Err(refuse("tmux cannot tell what runs in it".to_owned()));
    }
    if is_shell(command) {
        return Err(refuse(format!(
            "a shell ({command}) reads its input and would run the pasted text"
        )));
    }
    if !tty.is_empty() && is_own_terminal(Path::new(tty)) {
        return Err(refuse(
            "it is the terminal session-ref runs on: the program that started it (a shell, \
             most likely) would read the pasted text"
                .to_owned(),
        ));
    }
    Ok(id.to_owned())
}

/// Whether `tty` is this process's controlling terminal or the terminal of
/// its stdin, stdout or stderr.
#[cfg(unix)]
fn is_own_terminal(tty: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(pane) = std::fs::metadata(tty) else {
        return false;
    };
    let same = |path: &Path| std::fs::metadata(path).is_ok_and(|m| m.rdev() == pane.rdev());
    let std_fds = (0..=2).any(|fd| same(Path::new(&format!("/dev/fd/{fd}"))));
    std_fds || controlling_terminal().is_some_and(|dev| dev == device_numbers(pane.rdev()))
}

#[cfg(not(unix))]
fn is_own_terminal(_: &Path) -> bool {
    false
}

/// The (major, minor) of a device number as `stat` gives it.
#[cfg(target_os = "linux")]
fn device_numbers(rdev: u64) -> (u32, u32) {
    (libc::major(rdev), libc::minor(rdev))
}

#[cfg(all(unix, not(target_os = "linux")))]
fn device_numbers(rdev: u64) -> (u32, u32) {
    ((rdev >> 24) as u32, (rdev & 0xff_ffff) as u32)
}

/// The controlling terminal's (major, minor), from `/proc/self/stat`
/// (where `/dev/tty` itself would only name the indirection device).
#[cfg(target_os = "linux")]
fn controlling_terminal() -> Option<(u32, u32)> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name, in parentheses, may hold spaces: count after it.
    let after_name = &stat[stat.rfind(')')? + 1..];
    let tty_nr: u32 = after_name.split_whitespace().nth(4)?.parse().ok()?;
    (tty_nr != 0).then(|| {
        let major = (tty_nr >> 8) & 0xfff;
        let minor = (tty_nr & 0xff) | ((tty_nr >> 12) & 0xf_ff00);
        (major, minor)
    })
}

#[cfg(all(unix, not(target_os = "linux")))]
fn controlling_terminal() -> Option<(u32, u32)> {
    None
}

/// What `--tmux-paste` sends of `text`: without its trailing line breaks
/// (an application would take the last as Enter) and with every character
/// that could act as a key rather than text — ESC, which could also end the
/// bracketed paste early, other controls, DEL, C1, bidirectional controls
/// ([`crate::display::is_unsafe`]) — written as a `\u001b`-style escape.
/// Line breaks and tabs stay.
pub fn paste_text(text: &str) -> String {
    let text = text.trim_end_matches(['\n', '\r']);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if crate::display::is_unsafe(c) && c != '\n' && c != '\t' {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// Paste `text` ([`paste_text`]) into `pane` once [`check_paste_target`]
/// (again) allows it: loaded into a tmux buffer of its own and pasted with
/// `paste-buffer -p` (bracketed, when the application asked for bracketed
/// paste), the buffer deleted afterwards.
pub fn tmux_paste(pane: &str, text: &str, force: bool) -> Result<(), DeliveryError> {
    let pane = check_paste_target(pane, force)?;
    let text = paste_text(text);
    if text.is_empty() {
        return Ok(());
    }
    let buffer = format!("session-ref-{}", std::process::id());
    let spawn_err = |source| DeliveryError::Spawn {
        what: "tmux".to_owned(),
        source,
    };
    let mut load = Command::new("tmux")
        .args(["load-buffer", "-b", &buffer, "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
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
        .args(["paste-buffer", "-p", "-d", "-b", &buffer, "-t", &pane])
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
    fn shells_are_known_by_any_of_their_names() {
        for shell in [
            "bash", "-bash", "/bin/zsh", "fish", "dash", "sh", "nu", "pwsh.exe",
        ] {
            assert!(is_shell(shell), "{shell}");
        }
        for other in [
            "cat",
            "vim",
            "claude",
            "node",
            "codex",
            "bashful",
            "session-ref",
            "",
        ] {
            assert!(!is_shell(other), "{other}");
        }
    }

    #[test]
    fn pasted_text_has_no_trailing_newline_and_no_keys() {
        assert_eq!(paste_text("a\nb\n\n"), "a\nb");
        assert_eq!(paste_text("tab\there"), "tab\there");
        // ESC[201~ would end the bracketed paste and the rest be typed.
        assert_eq!(
            paste_text("x\u{1b}[201~rm -rf ~\r\u{3}"),
            "x\\u001b[201~rm -rf ~\\u000d\\u0003"
        );
        assert_eq!(paste_text("\n"), "");
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
