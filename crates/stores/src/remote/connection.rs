//! One ssh connection to a remote's `session-ref remote serve`: the host
//! to ask ([`RemoteHost`], its command quoted for the remote shell), the
//! child ssh in a process group of its own (ended, with its group, on
//! drop and by [`end_all`]), its reader threads (answers matched to
//! requests by id, stderr kept bounded for the error message), and the
//! error text a failed connection explains itself with.

use std::collections::HashMap;
use std::io::{BufReader, Read, Write};
use std::os::unix::process::CommandExt as _;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use serde_json::{json, Value};

use crate::caches::lock;

use super::wire::{read_bounded_line, Hello, MAX_LINE, PROTOCOL};

/// One machine to ask, as `--remote` or a `[[remote]]` entry names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteHost {
    /// What `ssh` connects to: an alias of the user's ssh config, `host`
    /// or `user@host`.
    pub host: String,
    /// The remote's `session-ref`, as a shell command on the remote
    /// (default `session-ref`, found on the remote's `PATH`).
    pub command: String,
    /// Arguments given to the remote's `session-ref` before `remote serve`
    /// (store flags such as `--claude DIR`).
    pub args: Vec<String>,
}

impl RemoteHost {
    /// A host asked with the default command and no extra arguments.
    pub fn new(host: impl Into<String>) -> Self {
        RemoteHost {
            host: host.into(),
            command: "session-ref".to_owned(),
            args: Vec::new(),
        }
    }

    /// The command line the remote's shell runs: [`Self::command`] as
    /// written (it is a shell command there), then [`Self::args`] and
    /// `tail`, each quoted as one word.
    pub fn remote_command(&self, tail: &[&str]) -> String {
        let mut remote = self.command.clone();
        for arg in self
            .args
            .iter()
            .map(String::as_str)
            .chain(tail.iter().copied())
        {
            remote.push(' ');
            remote.push_str(&shell_quote(arg));
        }
        remote
    }
}

/// An answer's outcome, as the reader thread hands it to the request.
type Answer = Result<Value, String>;

/// One ssh connection to a remote `session-ref remote serve`.
pub(super) struct Connection {
    host: String,
    pub(super) hello: Hello,
    child: Mutex<Child>,
    stdin: Mutex<ChildStdin>,
    waiting: Arc<Mutex<HashMap<u64, Sender<Answer>>>>,
    next: AtomicU64,
    /// What ssh said on stderr (bounded), for the error message.
    stderr: Arc<Mutex<String>>,
}

impl Connection {
    /// Connect and read the hello within `timeout`.
    pub(super) fn open(
        ssh: &str,
        host: &RemoteHost,
        timeout: Duration,
    ) -> Result<Connection, String> {
        let name = &host.host;
        let remote = host.remote_command(&["remote", "serve"]);
        if let Some(set) = batch_mode_overridden(ssh) {
            return Err(format!(
                "{name}: the ssh command ({ssh}) sets {set}: ssh would take it over the \
                 BatchMode=yes session-ref passes (ssh keeps an option's first value) and \
                 could prompt for a password over the picker; remove it"
            ));
        }
        let seconds = timeout.as_secs().max(1).to_string();
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!("{ssh} \"$@\""))
            .arg("session-ref-ssh")
            .args(["-o", "BatchMode=yes", "-o"])
            .arg(format!("ConnectTimeout={seconds}"))
            .args(["--", name, &remote])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // A group of its own: ending it ends ssh and whatever the ssh
            // command started, not only the shell that runs it.
            .process_group(0)
            .spawn()
            .map_err(|e| format!("{name}: cannot run ssh ({ssh}): {e}"))?;
        lock(&RUNNING).push(child.id());
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            end(&mut child);
            return Err(format!("{name}: cannot talk to ssh"));
        };
        let said = Arc::new(Mutex::new(String::new()));
        spawn_stderr_reader(stderr, Arc::clone(&said));
        let waiting: Arc<Mutex<HashMap<u64, Sender<Answer>>>> = Arc::default();
        let (hello_tx, hello_rx) = crossbeam_channel::bounded(1);
        spawn_reader(name.clone(), stdout, hello_tx, Arc::clone(&waiting));
        let seconds_text = in_seconds(timeout);
        let hello = match hello_rx.recv_timeout(timeout + Duration::from_millis(500)) {
            Ok(Ok(hello)) => hello,
            Ok(Err(why)) => {
                end(&mut child);
                std::thread::sleep(Duration::from_millis(50));
                return Err(explain_failure(name, &why, &lock(&said), &host.command));
            }
            Err(_) => {
                end(&mut child);
                return Err(format!("{name}: unreachable after {seconds_text}"));
            }
        };
        Ok(Connection {
            host: name.clone(),
            hello,
            child: Mutex::new(child),
            stdin: Mutex::new(stdin),
            waiting,
            next: AtomicU64::new(1),
            stderr: said,
        })
    }

    /// Whether ssh still runs.
    pub(super) fn alive(&self) -> bool {
        matches!(lock(&self.child).try_wait(), Ok(None))
    }

    /// Send `op` with `args` and wait for its answer within `timeout`.
    pub(super) fn request(
        &self,
        op: &str,
        args: Value,
        timeout: Duration,
    ) -> Result<Value, String> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let mut request = json!({"id": id, "op": op});
        if let (Some(request), Value::Object(args)) = (request.as_object_mut(), args) {
            request.extend(args);
        }
        let (tx, rx): (Sender<Answer>, Receiver<Answer>) = crossbeam_channel::bounded(1);
        lock(&self.waiting).insert(id, tx);
        let sent = {
            let mut stdin = lock(&self.stdin);
            writeln!(stdin, "{request}").and_then(|()| stdin.flush())
        };
        if let Err(e) = sent {
            lock(&self.waiting).remove(&id);
            return Err(format!("{}: connection lost: {e}", self.host));
        }
        match rx.recv_timeout(timeout) {
            Ok(answer) => answer,
            Err(RecvTimeoutError::Timeout) => {
                lock(&self.waiting).remove(&id);
                // A host that stalled is ended: answers come in order, so
                // nothing later on this connection would come either, and
                // a stalled ssh left running is a process leaked.
                end(&mut lock(&self.child));
                Err(format!(
                    "{}: did not answer within {}",
                    self.host,
                    in_seconds(timeout)
                ))
            }
            Err(RecvTimeoutError::Disconnected) => {
                let said = lock(&self.stderr).clone();
                Err(format!(
                    "{}: connection lost{}",
                    self.host,
                    last_line(&said)
                        .map(|l| format!(": {l}"))
                        .unwrap_or_default()
                ))
            }
        }
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        end(&mut lock(&self.child));
    }
}

/// The process groups of the ssh commands started and not ended yet.
static RUNNING: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// End ssh's process group (ssh and what the ssh command started) and
/// reap it. The group's leader is `child`, not reaped until here, so its
/// id names no other group.
fn end(child: &mut Child) {
    let id = child.id();
    // Even when the shell has exited, what it started may not have.
    kill_group(id);
    let _ = child.kill();
    let _ = child.wait();
    lock(&RUNNING).retain(|&running| running != id);
}

/// Send SIGKILL to the process group `id`.
fn kill_group(id: u32) {
    if let Ok(group) = i32::try_from(id) {
        if group > 1 {
            // SAFETY: kill(2) takes plain integers and touches no memory.
            unsafe {
                libc::kill(-group, libc::SIGKILL);
            }
        }
    }
}

/// End every ssh this process started that still runs: what the program
/// calls before it exits, since a connection still open then (a listing
/// still waited for, a cancelled command) is never dropped.
pub fn end_all() {
    for group in std::mem::take(&mut *lock(&RUNNING)) {
        kill_group(group);
    }
}

/// A wait in seconds as messages give it: `3 s`, `2.5 s`.
fn in_seconds(wait: Duration) -> String {
    let tenths = (wait.as_secs_f64() * 10.0).round().max(1.0) / 10.0;
    format!("{tenths} s")
}

/// Read ssh's stderr into `said`, keeping its last 4 KiB.
fn spawn_stderr_reader(mut stderr: impl Read + Send + 'static, said: Arc<Mutex<String>>) {
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = stderr.read(&mut buf) {
            if n == 0 {
                break;
            }
            let mut text = lock(&said);
            text.push_str(&String::from_utf8_lossy(&buf[..n]));
            if text.len() > 4096 {
                let cut = text.len() - 4096;
                let cut = (cut..text.len())
                    .find(|&i| text.is_char_boundary(i))
                    .unwrap_or(0);
                text.drain(..cut);
            }
        }
    });
}

/// Read the server's lines: the hello to `hello`, then each answer to the
/// request waiting for its id. When the connection ends, every waiting
/// request learns it (its sender is dropped).
fn spawn_reader(
    host: String,
    stdout: impl Read + Send + 'static,
    hello: Sender<Result<Hello, String>>,
    waiting: Arc<Mutex<HashMap<u64, Sender<Answer>>>>,
) {
    std::thread::spawn(move || {
        let mut reader = BufReader::with_capacity(1 << 16, stdout);
        let mut line = Vec::new();
        let mut greeted = false;
        loop {
            line.clear();
            match read_bounded_line(&mut reader, &mut line, MAX_LINE) {
                Ok(false) => break,
                Ok(true) => {}
                Err(e) => {
                    if !greeted {
                        let _ = hello.send(Err(e));
                    }
                    break;
                }
            }
            if !greeted {
                greeted = true;
                let parsed: Result<Hello, String> = serde_json::from_slice::<Hello>(&line)
                    .ok()
                    .filter(|h| h.session_ref == "remote")
                    .ok_or_else(|| "no hello".to_owned())
                    .and_then(|h| check_protocol(&host, h));
                let ok = parsed.is_ok();
                let _ = hello.send(parsed);
                if !ok {
                    break;
                }
                continue;
            }
            let Ok(value) = serde_json::from_slice::<Value>(&line) else {
                continue;
            };
            let Some(id) = value.get("id").and_then(Value::as_u64) else {
                continue;
            };
            let answer = match (value.get("ok"), value.get("error")) {
                (Some(ok), _) => Ok(ok.clone()),
                (None, Some(error)) => Err(format!(
                    "{host}: {}",
                    error
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("the remote failed")
                )),
                (None, None) => Err(format!("{host}: an answer with neither ok nor error")),
            };
            if let Some(tx) = lock(&waiting).remove(&id) {
                let _ = tx.send(answer);
            }
        }
        if !greeted {
            let _ = hello.send(Err("no hello".to_owned()));
        }
        lock(&waiting).clear();
    });
}

/// Accept the hello of a server speaking our protocol; otherwise say which
/// end is older.
pub(super) fn check_protocol(host: &str, hello: Hello) -> Result<Hello, String> {
    use std::cmp::Ordering::*;
    match hello.protocol.cmp(&PROTOCOL) {
        Equal => Ok(hello),
        Less => Err(format!(
            "{host}: session-ref {} there speaks remote protocol {}, this one {PROTOCOL}: upgrade session-ref on {host}",
            hello.version, hello.protocol
        )),
        Greater => Err(format!(
            "{host}: session-ref {} there speaks remote protocol {}, this one {PROTOCOL}: upgrade session-ref here",
            hello.version, hello.protocol
        )),
    }
}

/// Why a connection gave no hello, in words a person can act on.
fn explain_failure(host: &str, why: &str, stderr: &str, command: &str) -> String {
    if why != "no hello" {
        return why.to_owned();
    }
    let said = last_line(stderr);
    let lowered = stderr.to_lowercase();
    if lowered.contains("not found") || lowered.contains("no such file") {
        return format!(
            "{host}: `{command}` is not installed there (install it on {host} with `cargo install --git <this repository>` or set `command` in its [[remote]] entry)"
        );
    }
    if lowered.contains("unrecognized subcommand") || lowered.contains("unexpected argument") {
        return format!(
            "{host}: session-ref there is too old to speak the remote protocol: upgrade it on {host}"
        );
    }
    match said {
        Some(line) => format!("{host}: {line}"),
        None => format!("{host}: the remote did not answer as session-ref does"),
    }
}

/// The last non-blank line of `text`, escaped for a terminal.
fn last_line(text: &str) -> Option<String> {
    text.lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(|l| session_ref_core::escape::escape_unsafe(l).into_owned())
}

/// `text` quoted for a POSIX shell: the remote command line ssh runs.
pub fn shell_quote(text: &str) -> String {
    if !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:@%+,".contains(&b))
    {
        return text.to_owned();
    }
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The `-o BatchMode=…` other than `yes` that the ssh command line `ssh`
/// gives, as written. ssh keeps the first value of an option (`ssh -G -o
/// BatchMode=no -o BatchMode=yes` says `batchmode no`), and the user's
/// words come before ours, so such an option would let ssh prompt on the
/// terminal: the connection is refused instead.
pub(super) fn batch_mode_overridden(ssh: &str) -> Option<String> {
    let words = shlex::split(ssh).unwrap_or_default();
    let mut words = words.iter();
    while let Some(word) = words.next() {
        let option = match word.strip_prefix("-o") {
            Some("") => words.next().map(String::as_str),
            Some(rest) => Some(rest),
            None => None,
        };
        let Some(option) = option else { continue };
        let (key, value) = option
            .split_once(['=', ' ', '\t'])
            .map(|(k, v)| (k.trim(), v.trim().trim_start_matches('=').trim()))
            .unwrap_or((option, ""));
        if key.eq_ignore_ascii_case("batchmode") && !value.eq_ignore_ascii_case("yes") {
            return Some(format!("-o {option}"));
        }
    }
    None
}
