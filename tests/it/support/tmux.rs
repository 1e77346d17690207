//! The one tmux driver of the suite: the real binary in a detached pane of
//! a private tmux server, driven with `send-keys` and read with
//! `capture-pane`.
//!
//! Every wait polls until a deadline, never a fixed sleep, and a wait is
//! the condition the test then relies on: a capture can land between two
//! frames (a new header over the rows of the frame before, a row half
//! redrawn), so a test that asserts on a screen asserts inside the wait
//! ([`Tmux::wait_for`] returns the screen that held) and a screen that
//! never gets there times out showing itself. Whether tmux is there is
//! [`require`]'s question.

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::prerequisite;

/// How long a wait polls before failing with the screen it saw.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// How long a wait sleeps between two polls.
const POLL: Duration = Duration::from_millis(50);

/// Whether `tmux` can be run.
pub fn available() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Whether `test` can run: tmux is there. Without it the test is skipped
/// with a note, and fails under CI (where tmux must be installed).
pub fn require(test: &str) -> bool {
    if available() {
        return true;
    }
    prerequisite::missing(test, "tmux is not installed");
    false
}

/// `text` quoted for a POSIX shell.
pub fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// [`quote`] of a path.
pub fn quote_path(path: &Path) -> String {
    quote(path.to_str().expect("a UTF-8 path"))
}

/// `command` (a shell command line) with its stdout and stderr to `out`
/// and `err` in `dir`, and its exit code written last to `rc` there
/// (atomically: a reader never sees it half written). [`Tmux::wait_for_exit`]
/// reads them back.
pub fn recorded(dir: &Path, command: &str) -> String {
    let rc = quote_path(&dir.join("rc"));
    format!(
        "{command} > {} 2> {}; echo $? > {rc}.tmp && mv {rc}.tmp {rc}",
        quote_path(&dir.join("out")),
        quote_path(&dir.join("err")),
    )
}

/// What a [`recorded`] command left: its exit code, stdout and stderr.
pub struct Exit {
    /// The exit code, as the shell printed it.
    pub rc: String,
    /// stdout, as text.
    pub out: String,
    /// stderr, as text.
    pub err: String,
}

/// Poll until `path` exists, or fail with `tmux`'s screen.
pub fn wait_for_file(path: &Path, tmux: &Tmux) -> String {
    let start = Instant::now();
    while !path.exists() {
        assert!(
            start.elapsed() < DEADLINE,
            "timed out waiting for {}; the screen:\n{}",
            path.display(),
            tmux.screen()
        );
        std::thread::sleep(POLL);
    }
    std::fs::read_to_string(path).unwrap()
}

/// Poll until `path` holds `want`, or fail with what it held and `tmux`'s
/// screen.
pub fn wait_for_content(path: &Path, want: &str, tmux: &Tmux) {
    let start = Instant::now();
    loop {
        let got = std::fs::read_to_string(path).unwrap_or_default();
        if got == want {
            return;
        }
        assert!(
            start.elapsed() < DEADLINE,
            "{} holds {got:?}, not {want:?}; the screen:\n{}",
            path.display(),
            tmux.screen()
        );
        std::thread::sleep(POLL);
    }
}

/// `screen` without its SGR sequences (what `capture-pane -e` adds to the
/// plain capture).
pub fn strip_sgr(screen: &str) -> String {
    let mut plain = String::with_capacity(screen.len());
    let mut chars = screen.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // CSI: parameters up to the final byte (`m` for SGR).
            if chars.next() == Some('[') {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            continue;
        }
        plain.push(c);
    }
    plain
}

/// A private tmux server running one command in a detached session; the
/// server is killed when dropped.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// Start `command` (a shell command line) in a `width`x`height` pane of
    /// a new server. `name` only helps a person reading `tmux ls`: every
    /// server of the run has a socket of its own.
    pub fn start(name: &str, width: u16, height: u16, command: &str) -> Tmux {
        static SERVERS: AtomicUsize = AtomicUsize::new(0);
        let n = SERVERS.fetch_add(1, Ordering::Relaxed);
        let tmux = Tmux {
            socket: format!("session-ref-test-{}-{n}-{name}", std::process::id()),
        };
        let status = tmux
            .command()
            .args(["-f", "/dev/null", "new-session", "-d", "-x"])
            .arg(width.to_string())
            .arg("-y")
            .arg(height.to_string())
            .arg(command)
            .status()
            .expect("run tmux");
        assert!(status.success(), "tmux new-session failed");
        tmux
    }

    /// The server's socket name (for a `tmux -L NAME attach` of its own).
    pub fn socket(&self) -> &str {
        &self.socket
    }

    /// A tmux command addressed to this server.
    pub fn command(&self) -> Command {
        let mut command = Command::new("tmux");
        command.args(["-L", &self.socket]);
        command
    }

    /// Run `tmux ARGS` on this server; it must succeed.
    pub fn run(&self, args: &[&str]) {
        let status = self.command().args(args).status().unwrap();
        assert!(status.success(), "tmux {args:?} failed");
    }

    /// Run `tmux ARGS` on this server; its stdout, trimmed.
    pub fn ask(&self, args: &[&str]) -> String {
        let out = self.command().args(args).output().unwrap();
        assert!(out.status.success(), "tmux {args:?} failed");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// The active pane's screen, as text.
    pub fn screen(&self) -> String {
        let out = self
            .command()
            .args(["capture-pane", "-p"])
            .output()
            .expect("capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The active pane's screen with its colours and attributes (SGR).
    pub fn styled_screen(&self) -> String {
        let out = self
            .command()
            .args(["capture-pane", "-p", "-e"])
            .output()
            .expect("capture-pane -e");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// A pane's screen and its scrollback.
    pub fn pane_text(&self, pane: &str) -> String {
        let out = self
            .command()
            .args(["capture-pane", "-p", "-S", "-", "-t", pane])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Send keys by tmux name (`Enter`, `C-t`, `Down`).
    pub fn keys(&self, keys: &[&str]) {
        let status = self.command().arg("send-keys").args(keys).status().unwrap();
        assert!(status.success());
    }

    /// Type `text` literally.
    pub fn type_text(&self, text: &str) {
        let status = self
            .command()
            .args(["send-keys", "-l", text])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Run `command` in a new window of this server, which becomes the
    /// active one (its tmux commands reach this server: `TMUX` is set).
    pub fn new_window(&self, command: &str) {
        self.run(&["new-window", command]);
    }

    /// The id of the first pane (the one `start` ran its command in).
    pub fn first_pane(&self) -> String {
        let panes = self.ask(&["list-panes", "-a", "-F", "#{pane_id}"]);
        panes.lines().next().expect("a pane").to_owned()
    }

    /// Poll until `pane`'s foreground process is `name`.
    pub fn wait_for_command(&self, pane: &str, name: &str) {
        let start = Instant::now();
        loop {
            let now = self.ask(&[
                "display-message",
                "-p",
                "-t",
                pane,
                "#{pane_current_command}",
            ]);
            if now == name {
                return;
            }
            assert!(
                start.elapsed() < DEADLINE,
                "timed out waiting for {name} in {pane}: {now:?}"
            );
            std::thread::sleep(POLL);
        }
    }

    /// Poll the screen until `ready` holds; the screen it held on. What a
    /// test asserts of a screen belongs in `ready`.
    pub fn wait_for(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        self.poll(what, Tmux::screen, ready)
    }

    /// [`Tmux::wait_for`] on the screen with its SGR sequences
    /// ([`Tmux::styled_screen`]; [`strip_sgr`] gives its text).
    pub fn wait_for_styled(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        self.poll(what, Tmux::styled_screen, ready)
    }

    fn poll(
        &self,
        what: &str,
        capture: fn(&Tmux) -> String,
        ready: impl Fn(&str) -> bool,
    ) -> String {
        let start = Instant::now();
        loop {
            let screen = capture(self);
            if ready(&screen) {
                return screen;
            }
            assert!(
                start.elapsed() < DEADLINE,
                "timed out waiting for {what}; the screen:\n{screen}"
            );
            std::thread::sleep(POLL);
        }
    }

    /// Wait for the [`recorded`] command run in `dir` to end; what it left.
    pub fn wait_for_exit(&self, dir: &Path) -> Exit {
        let rc = wait_for_file(&dir.join("rc"), self);
        Exit {
            rc: rc.trim().to_owned(),
            out: std::fs::read_to_string(dir.join("out")).unwrap(),
            err: std::fs::read_to_string(dir.join("err")).unwrap(),
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.command().arg("kill-server").output();
    }
}
