//! The terminal device: the picker draws on `/dev/tty` (never stdout, which
//! carries the result), in raw mode on the alternate screen. The
//! [`TerminalGuard`] restores the terminal on drop, and a panic hook
//! restores it before the panic message is printed. [`InputReader`] reads
//! keys on a thread that can be paused while `$EDITOR` owns the terminal.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, Once};
use std::thread::JoinHandle;
use std::time::Duration;

use crossterm::event::{
    self, DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
    Event,
};
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use crossterm::{cursor, execute};
use ratatui::Terminal;

use crate::tui::tty_backend::TtyBackend;

/// The terminal device's path.
pub const TTY: &str = "/dev/tty";

/// Whether the terminal is currently in the picker's mode (raw, alternate screen).
static ACTIVE: AtomicBool = AtomicBool::new(false);
static PANIC_HOOK: Once = Once::new();
/// Whether the mouse is reported: read by [`restore`], which the panic hook
/// calls without a guard at hand, hence a static like [`ACTIVE`].
static MOUSE: AtomicBool = AtomicBool::new(false);
/// Whether any thread panicked while the picker ran.
static PANICKED: AtomicBool = AtomicBool::new(false);

/// Whether a thread or task has panicked since the picker started (the
/// terminal was restored by then, so the picker must end).
pub fn panicked() -> bool {
    PANICKED.load(Ordering::SeqCst)
}

/// The ratatui terminal the picker draws on.
pub type TtyTerminal = Terminal<TtyBackend>;

/// Open the terminal device for reading and writing.
pub fn open_tty() -> io::Result<File> {
    OpenOptions::new().read(true).write(true).open(TTY)
}

/// Owns the terminal's picker mode: entered by [`TerminalGuard::enter`],
/// left on drop (and by the panic hook), on every exit path.
#[derive(Debug)]
pub struct TerminalGuard {
    _private: (),
}

impl TerminalGuard {
    /// Put `/dev/tty` in raw mode on the alternate screen (reporting the
    /// mouse when `mouse`) and return a ratatui terminal drawing on it.
    /// Fails when there is no terminal.
    pub fn enter(mouse: bool) -> io::Result<(TerminalGuard, TtyTerminal)> {
        MOUSE.store(mouse, Ordering::SeqCst);
        let tty = open_tty()?;
        PANIC_HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                PANICKED.store(true, Ordering::SeqCst);
                restore();
                previous(info);
            }));
        });
        let guard = TerminalGuard { _private: () };
        activate()?;
        let terminal = Terminal::new(TtyBackend::new(tty))?;
        Ok((guard, terminal))
    }

    /// Give the terminal back (for `$EDITOR`) until [`TerminalGuard::resume`].
    pub fn suspend(&mut self) {
        restore();
    }

    /// Take the terminal again after [`TerminalGuard::suspend`].
    pub fn resume(&mut self) -> io::Result<()> {
        activate()
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

fn activate() -> io::Result<()> {
    let mut tty = open_tty()?;
    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    execute!(
        tty,
        EnterAlternateScreen,
        EnableBracketedPaste,
        cursor::Hide
    )?;
    if MOUSE.load(Ordering::SeqCst) {
        execute!(tty, EnableMouseCapture)?;
    }
    Ok(())
}

/// Leave raw mode and the alternate screen, show the cursor. Idempotent;
/// safe from a panic hook or a signal path.
pub fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    if let Ok(mut tty) = open_tty() {
        if MOUSE.load(Ordering::SeqCst) {
            let _ = execute!(tty, DisableMouseCapture);
        }
        let _ = execute!(
            tty,
            DisableBracketedPaste,
            LeaveAlternateScreen,
            cursor::Show
        );
        let _ = tty.flush();
    }
    let _ = disable_raw_mode();
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Run,
    PauseRequested,
    Paused,
    Stop,
}

/// Reads terminal events on a thread and hands them to a callback; pausable
/// so that a child process (the editor) gets the keys instead.
#[derive(Debug)]
pub struct InputReader {
    shared: Arc<(Mutex<Mode>, Condvar)>,
    handle: Option<JoinHandle<()>>,
}

impl InputReader {
    /// Start reading the terminal; `deliver` gets every event (or the read
    /// error that ends reading) and returns `false` to stop.
    pub fn spawn(deliver: impl FnMut(io::Result<Event>) -> bool + Send + 'static) -> Self {
        Self::spawn_with(
            |timeout| match event::poll(timeout)? {
                true => event::read().map(Some),
                false => Ok(None),
            },
            deliver,
        )
    }

    /// Start reading events from `source` (which waits at most the given
    /// time for one) on a thread, handing them to `deliver`.
    pub fn spawn_with(
        mut source: impl FnMut(Duration) -> io::Result<Option<Event>> + Send + 'static,
        mut deliver: impl FnMut(io::Result<Event>) -> bool + Send + 'static,
    ) -> Self {
        let shared = Arc::new((Mutex::new(Mode::Run), Condvar::new()));
        let theirs = Arc::clone(&shared);
        let handle = std::thread::Builder::new()
            .name("session-ref-keys".into())
            .spawn(move || {
                let (lock, wake) = &*theirs;
                loop {
                    {
                        let mut mode = lock.lock().expect("input reader lock");
                        loop {
                            match *mode {
                                Mode::Run => break,
                                Mode::Stop => return,
                                Mode::PauseRequested => {
                                    *mode = Mode::Paused;
                                    wake.notify_all();
                                }
                                Mode::Paused => {}
                            }
                            mode = wake.wait(mode).expect("input reader lock");
                        }
                    }
                    let event = match source(Duration::from_millis(40)) {
                        Ok(None) => continue,
                        Ok(Some(event)) => Ok(event),
                        Err(e) => Err(e),
                    };
                    let failed = event.is_err();
                    if !deliver(event) || failed {
                        return;
                    }
                }
            })
            .expect("spawn the key reader");
        InputReader {
            shared,
            handle: Some(handle),
        }
    }

    /// Stop reading until [`InputReader::resume`]; returns once the reader
    /// has stopped touching the terminal.
    pub fn pause(&self) {
        let (lock, wake) = &*self.shared;
        let mut mode = lock.lock().expect("input reader lock");
        if *mode != Mode::Run {
            return;
        }
        *mode = Mode::PauseRequested;
        wake.notify_all();
        while *mode == Mode::PauseRequested {
            let finished = self.handle.as_ref().is_none_or(JoinHandle::is_finished);
            if finished {
                break;
            }
            mode = wake
                .wait_timeout(mode, Duration::from_millis(100))
                .expect("input reader lock")
                .0;
        }
    }

    /// Read again after [`InputReader::pause`].
    pub fn resume(&self) {
        let (lock, wake) = &*self.shared;
        let mut mode = lock.lock().expect("input reader lock");
        if *mode != Mode::Stop {
            *mode = Mode::Run;
        }
        wake.notify_all();
    }
}

impl Drop for InputReader {
    /// Stop the reader and wait a moment for it. A reader stuck on a
    /// terminal that went away (crossterm spins on a hung-up tty) is left
    /// behind: the process is about to exit and must not hang on it.
    fn drop(&mut self) {
        let (lock, wake) = &*self.shared;
        if let Ok(mut mode) = lock.lock() {
            *mode = Mode::Stop;
        }
        wake.notify_all();
        let Some(handle) = self.handle.take() else {
            return;
        };
        let deadline = std::time::Instant::now() + Duration::from_millis(200);
        while !handle.is_finished() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        if handle.is_finished() {
            let _ = handle.join();
        }
    }
}

/// The editor to run: `$VISUAL`, else `$EDITOR`, else `vi`.
pub fn editor_command(env: impl Fn(&str) -> Option<String>) -> String {
    ["VISUAL", "EDITOR"]
        .into_iter()
        .filter_map(env)
        .find(|v| !v.trim().is_empty())
        .unwrap_or_else(|| "vi".to_owned())
}

/// Where the editor's standard streams go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditorIo {
    /// The terminal device (the picker's case: stdout may be a pipe).
    Tty,
    /// Inherited (for tests).
    Inherit,
}

/// Write `text` to a temporary file, run `editor` on it through `sh` (so
/// `code --wait` works), and read it back without the final newline editors
/// add. The file is removed afterwards.
pub fn run_editor(editor: &str, text: &str, io: EditorIo) -> Result<String, String> {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let path: PathBuf = std::env::temp_dir().join(format!(
        "session-ref-prompt-{}-{}.md",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = edit_file(editor, &path, text, io);
    let _ = std::fs::remove_file(&path);
    result
}

fn edit_file(editor: &str, path: &PathBuf, text: &str, io: EditorIo) -> Result<String, String> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    // A text file ends with a newline (editors add one, or warn without
    // it); the one final newline is dropped again when it is read back.
    file.write_all(format!("{text}\n").as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    drop(file);
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(format!("{editor} \"$@\""))
        .arg(editor)
        .arg(path);
    if io == EditorIo::Tty {
        let tty = |_| open_tty().map(Stdio::from);
        let stdio = (tty(0), tty(1), tty(2));
        if let (Ok(i), Ok(o), Ok(e)) = stdio {
            command.stdin(i).stdout(o).stderr(e);
        }
    }
    let status = command
        .status()
        .map_err(|e| format!("cannot run {editor}: {e}"))?;
    if !status.success() {
        return Err(format!(
            "{editor} exited with {status}; the prompt is unchanged"
        ));
    }
    let edited = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let edited =
        String::from_utf8(edited).map_err(|_| "the edited text is not UTF-8".to_owned())?;
    let edited = edited.strip_suffix('\n').unwrap_or(&edited);
    Ok(edited.strip_suffix('\r').unwrap_or(edited).to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editor_choice() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                vars.iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| (*v).to_owned())
            }
        };
        assert_eq!(editor_command(env(&[])), "vi");
        assert_eq!(editor_command(env(&[("EDITOR", "nano")])), "nano");
        assert_eq!(
            editor_command(env(&[("EDITOR", "nano"), ("VISUAL", "code --wait")])),
            "code --wait"
        );
        assert_eq!(
            editor_command(env(&[("VISUAL", " "), ("EDITOR", "ed")])),
            "ed"
        );
    }

    #[test]
    fn editor_round_trip() {
        let got = run_editor("sed -i -e s/old/new/", "the old text", EditorIo::Inherit);
        assert_eq!(got.unwrap(), "the new text");
        // The editor sees a file that ends with a newline; a text with its
        // own final newline keeps it.
        let seen = run_editor(
            "sh -c 'test \"$(tail -c1 \"$0\" | od -An -c)\" = \"  \\\\n\"'",
            "x",
            EditorIo::Inherit,
        );
        assert_eq!(seen.unwrap(), "x");
        let kept = run_editor("true", "two\n", EditorIo::Inherit);
        assert_eq!(kept.unwrap(), "two\n");
        let failed = run_editor("false", "kept", EditorIo::Inherit);
        assert!(failed.unwrap_err().contains("unchanged"));
        let leftovers = std::fs::read_dir(std::env::temp_dir())
            .unwrap()
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with(&format!("session-ref-prompt-{}-", std::process::id()))
            })
            .count();
        assert_eq!(leftovers, 0);
    }

    #[test]
    fn the_reader_delivers_pauses_and_never_hangs_the_exit() {
        use crossterm::event::{KeyCode, KeyEvent};
        let (tx, rx) = std::sync::mpsc::channel();
        let reader = InputReader::spawn_with(
            |_| {
                std::thread::sleep(Duration::from_millis(2));
                Ok(Some(Event::Key(KeyEvent::from(KeyCode::Char('k')))))
            },
            move |event| tx.send(event.is_ok()).is_ok(),
        );
        assert_eq!(rx.recv_timeout(Duration::from_secs(5)), Ok(true));
        reader.pause();
        while rx.try_recv().is_ok() {}
        std::thread::sleep(Duration::from_millis(30));
        assert!(rx.try_recv().is_err(), "paused, yet reading");
        reader.resume();
        assert_eq!(rx.recv_timeout(Duration::from_secs(5)), Ok(true));
        drop(reader);

        // A source stuck forever (a hung-up terminal) does not block the drop.
        let stuck = InputReader::spawn_with(
            |_| loop {
                std::thread::sleep(Duration::from_secs(3600));
            },
            |_| true,
        );
        let start = std::time::Instant::now();
        drop(stuck);
        assert!(start.elapsed() < Duration::from_secs(2));
    }

    #[test]
    fn a_read_error_ends_reading_after_reporting_it() {
        let (tx, rx) = std::sync::mpsc::channel();
        let _reader = InputReader::spawn_with(
            |_| Err(io::Error::other("gone")),
            move |event| tx.send(event.map_err(|e| e.to_string())).is_ok(),
        );
        let got = rx.recv_timeout(Duration::from_secs(5)).unwrap();
        assert_eq!(got.unwrap_err(), "gone");
        assert!(rx.recv_timeout(Duration::from_millis(100)).is_err());
    }

    #[test]
    fn restore_without_activation_is_a_no_op() {
        restore();
        restore();
        assert!(!ACTIVE.load(Ordering::SeqCst));
    }
}
