//! Driving the real picker in a private tmux server, for test files other
//! than `picker_e2e.rs` (which keeps its own richer driver): start a
//! command in a detached pane, send keys, poll the screen until a deadline
//! (never a fixed sleep). Whether tmux is there is the caller's question
//! ([`available`]), answered with `prerequisite::missing` when it is not.
#![allow(dead_code)]

use std::process::Command;
use std::time::{Duration, Instant};

/// How long a wait polls before failing with the screen it saw.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// Whether `tmux` can be run.
pub fn available() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A private tmux server running one command in a detached session; the
/// server is killed when dropped.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// Start `command` (a shell command line) in a `width`x`height` pane.
    pub fn start(name: &str, width: u16, height: u16, command: &str) -> Tmux {
        let tmux = Tmux {
            socket: format!("session-ref-test-{}-{name}", std::process::id()),
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

    fn command(&self) -> Command {
        let mut command = Command::new("tmux");
        command.args(["-L", &self.socket]);
        command
    }

    /// The pane's screen, as text.
    pub fn screen(&self) -> String {
        let out = self
            .command()
            .args(["capture-pane", "-p"])
            .output()
            .expect("capture-pane");
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

    /// Poll the screen until `ready` holds; the screen it held on.
    pub fn wait_for(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if ready(&screen) {
                return screen;
            }
            assert!(
                start.elapsed() < DEADLINE,
                "timed out waiting for {what}; the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.command().arg("kill-server").output();
    }
}

/// `text` quoted for a POSIX shell.
pub fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}
