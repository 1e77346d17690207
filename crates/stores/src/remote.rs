//! Sessions on other machines, read live over SSH from the remote's own
//! `session-ref` (its readers and indexes): nothing is copied.
//!
//! # The exchange (protocol 1)
//!
//! The client runs `ssh -o BatchMode=yes -o ConnectTimeout=N HOST CMD
//! remote serve` once per host and run, and speaks JSON lines over the
//! connection's stdin and stdout:
//!
//! - the server opens with a hello: `{"sessionRef":"remote","protocol":1,
//!   "version":"0.1.0"}`; a client refuses a protocol other than its own
//!   with a message saying which end to upgrade;
//! - each request is `{"id":N,"op":…}` and is answered by one line with the
//!   same `id` and either `"ok"` or `"error": {"code","message"}`:
//!   - `list` → `{"sessions":[{"id","kind","cwd","createdAt","path",
//!     "root","title","updatedAt"}],"unreadable":[[path,reason]],
//!     "roots":[[kind,root,sessions]]}`;
//!   - `fold {"session": ID}` → `{"journal": BASE64, "capturedThroughSeq":
//!     N}`: the operations the remote's reader applied to its sink
//!     ([`journal::encode`]), which replayed here feed a local sink exactly
//!     as the remote's own fold fed its sink: a snapshot of a remote
//!     session is the one the remote itself would inject.
//!
//! # Names
//!
//! A mention names a remote session by the id `ID@HOST` (HOST as the user
//! wrote it in `--remote` or the config): still a canonical mention, and
//! the same id on two machines is two sessions.
//!
//! An id of the form `ID@HOST`, where HOST is a configured remote
//! ([`Remotes::split_id`]), always means that remote's session `ID`: a
//! session of this machine whose own id has that form is not listed (a
//! `--verbose` skip says why), so it can neither take the remote's mention
//! and label nor win its resolution. A local id with an `@` that names no
//! configured host is an ordinary local id. Without remotes, nothing is
//! left out.
//!
//! # Never stall, never trust
//!
//! Hosts are asked in parallel, each on its own thread, with a connect
//! timeout and a deadline for the hello and for each answer (a listing's
//! own, shorter: [`Remotes::with_list_timeout`]; and, for a run that must
//! end in time such as a hook, one deadline no wait goes past:
//! [`Remotes::with_deadline`]): an unreachable or slow host is one
//! unreadable "root" with the reason (`devbox: unreachable after 3 s`,
//! `devbox: did not answer within 5 s`), never a hang and never a failure
//! of local work. What times out is ended: ssh runs in a process group of
//! its own (with whatever `SESSION_REF_SSH` starts), killed whole and
//! reaped; [`end_all`] ends the groups still running when the program
//! exits. The connection's stdin is a pipe, so ssh never reads the
//! terminal, and `BatchMode=yes` keeps it from prompting; its stderr is
//! captured, never passed through. Lines from a remote are bounded
//! ([`MAX_LINE`]), and everything a remote says is treated as a log is:
//! shown only through the escaping every session text goes through.
//!
//! # Locks
//!
//! As the store module's "Locks" section says: a lock of a connection is
//! held only to send a request or to register its answer channel; waiting
//! for the answer happens without it.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::caches::{lock, Caches};
use crate::error::ReadError;
use crate::index::journal::{self, Op};
use crate::model::{SessionRecord, Surface, SurfaceSink};
use crate::registry::kind_by_name;
use crate::store::ScanEvent;
use crate::store::Store;

/// The version of the exchange this build speaks.
pub const PROTOCOL: u64 = 1;

/// How long one answer may take once connected (a fold of a large
/// session, a search), unless the run's deadline is nearer.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// The longest line either end accepts: a listing of tens of thousands of
/// sessions, or the journal of a large session, fits; a runaway remote
/// does not exhaust memory.
pub const MAX_LINE: usize = 256 << 20;

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

/// How to reach the remotes of a run, kept in its [`Caches`] (none by
/// default): the hosts, the ssh command and the open connections.
#[derive(Default)]
pub struct Remotes {
    hosts: Vec<RemoteHost>,
    /// The ssh command line (`ssh`, or `SESSION_REF_SSH`), run by `sh -c`
    /// with the arguments appended, as git runs `GIT_SSH_COMMAND`.
    ssh: String,
    /// How long connecting, and the hello after it, may take.
    connect_timeout: Duration,
    /// How long one answer may take once connected.
    answer_timeout: Duration,
    /// How long a listing may take once connected.
    list_timeout: Duration,
    /// The instant no wait on a host goes past, when the run has one.
    deadline: Option<Instant>,
    connections: Mutex<HashMap<String, Arc<Connection>>>,
    /// Titles the listings gave, by the id of the remote record.
    titles: Mutex<HashMap<String, Option<String>>>,
    /// Why a host could not be listed, by host.
    failures: Mutex<HashMap<String, String>>,
}

impl std::fmt::Debug for Remotes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remotes")
            .field("hosts", &self.hosts)
            .field("ssh", &self.ssh)
            .finish()
    }
}

impl Remotes {
    /// Remotes reached with `ssh` (a shell command line; empty means
    /// `ssh`), connecting within `connect_timeout`.
    pub fn new(hosts: Vec<RemoteHost>, ssh: &str, connect_timeout: Duration) -> Self {
        Remotes {
            hosts,
            ssh: if ssh.trim().is_empty() {
                "ssh".to_owned()
            } else {
                ssh.to_owned()
            },
            connect_timeout,
            answer_timeout: ANSWER_TIMEOUT,
            list_timeout: ANSWER_TIMEOUT,
            deadline: None,
            connections: Mutex::default(),
            titles: Mutex::default(),
            failures: Mutex::default(),
        }
    }

    /// Wait at most `timeout` for a host's listing once connected (less
    /// than an answer's [`ANSWER_TIMEOUT`]: a listing is what one-shot
    /// commands wait for before printing local rows).
    pub fn with_list_timeout(mut self, timeout: Duration) -> Self {
        self.list_timeout = timeout;
        self
    }

    /// Let no wait on a host (connecting, the hello, any answer) go past
    /// `deadline`: what a hook, which its agent kills after a while, sets.
    pub fn with_deadline(mut self, deadline: Instant) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// `wait`, cut to what is left before the run's deadline.
    fn bounded(&self, wait: Duration) -> Duration {
        match self.deadline {
            Some(at) => wait.min(at.saturating_duration_since(Instant::now())),
            None => wait,
        }
    }

    /// The hosts asked.
    pub fn hosts(&self) -> &[RemoteHost] {
        &self.hosts
    }

    /// The host a session id names, when it ends in `@HOST` of a
    /// configured host, with the remote's own id.
    pub fn split_id<'a>(&self, id: &'a str) -> Option<(&RemoteHost, &'a str)> {
        self.hosts.iter().find_map(|host| {
            let local = id.strip_suffix(host.host.as_str())?.strip_suffix('@')?;
            (!local.is_empty()).then_some((host, local))
        })
    }

    /// The open connection to `host`, opened on first use (one per host
    /// and run).
    fn connection(&self, host: &RemoteHost) -> Result<Arc<Connection>, String> {
        if let Some(open) = lock(&self.connections).get(&host.host) {
            if open.alive() {
                return Ok(Arc::clone(open));
            }
        }
        // Connecting happens without the lock: another host's requests
        // must not wait for this one's handshake.
        let opened = Arc::new(Connection::open(
            &self.ssh,
            host,
            self.bounded(self.connect_timeout),
        )?);
        lock(&self.connections).insert(host.host.clone(), Arc::clone(&opened));
        Ok(opened)
    }

    /// Send `op` with the members of `args` to `host` and wait for the
    /// answer's `ok` value (an op of the program's own, such as `search`).
    pub fn ask(&self, host: &RemoteHost, op: &str, args: Value) -> Result<Value, String> {
        self.ask_within(host, op, args, self.answer_timeout)
    }

    /// [`Remotes::ask`], waiting at most `timeout` (and never past the
    /// run's deadline) for the answer.
    fn ask_within(
        &self,
        host: &RemoteHost,
        op: &str,
        args: Value,
        timeout: Duration,
    ) -> Result<Value, String> {
        let connection = self.connection(host)?;
        connection.request(op, args, self.bounded(timeout))
    }

    /// The record of a session `host` listed: named `ID@HOST`, of its
    /// kind here (else the skip that says this version does not read that
    /// kind), its title remembered for [`Remotes::title`].
    pub fn record_of(
        &self,
        host: &RemoteHost,
        session: WireSession,
    ) -> Result<SessionRecord, Box<ScanEvent>> {
        let Some(kind) = kind_by_name(&session.kind) else {
            return Err(Box::new(ScanEvent::Skipped {
                path: remote_path(&host.host, &session.path),
                reason: format!(
                    "a kind of session this version does not read ({})",
                    session.kind
                ),
            }));
        };
        let id = format!("{}@{}", session.id, host.host);
        let mut record = SessionRecord::new(
            kind,
            Arc::from(Path::new(&session.root)),
            remote_path(&host.host, &session.path),
            id.clone(),
            session.cwd,
            session.created_at,
        );
        record.host = Some(Arc::from(host.host.as_str()));
        record.updated = session.updated_at;
        lock(&self.titles).insert(id, session.title);
        Ok(record)
    }

    /// Ask `host` to list its sessions: the listing as discovery events
    /// (records named `ID@HOST`), or why the host could not be listed.
    pub fn list(&self, host: &RemoteHost) -> Result<Listing, String> {
        let answer = self.ask_within(host, "list", json!({}), self.list_timeout)?;
        let listing: WireListing = serde_json::from_value(answer)
            .map_err(|e| format!("{}: a listing that does not parse: {e}", host.host))?;
        let mut events = Vec::with_capacity(listing.sessions.len());
        for session in listing.sessions {
            events.push(match self.record_of(host, session) {
                Ok(record) => ScanEvent::Record(record),
                Err(skipped) => *skipped,
            });
        }
        for (path, reason) in listing.unreadable {
            events.push(ScanEvent::Unreadable {
                path: remote_path(&host.host, &path),
                reason,
            });
        }
        Ok(Listing {
            events,
            roots: listing.roots,
        })
    }

    /// The host that `id` names and why it could not be listed (`did not
    /// answer within 5 s`), when it names a configured host that failed:
    /// what an unknown remote id is blamed on.
    pub fn failure_for(&self, id: &str) -> Option<(String, String)> {
        let (host, _) = self.split_id(id)?;
        let why = lock(&self.failures).get(&host.host).cloned()?;
        Some((host.host.clone(), why))
    }

    /// The title the listing gave for a remote record.
    pub fn title(&self, record: &SessionRecord) -> Option<String> {
        lock(&self.titles).get(&record.id).cloned().flatten()
    }

    /// Fold the remote session `record` into `sink`, replaying what the
    /// remote's reader fed its own: the seq of the last complete event.
    pub fn fold(
        &self,
        record: &SessionRecord,
        sink: &mut dyn SurfaceSink,
    ) -> Result<u64, ReadError> {
        let failed = |message: String| ReadError {
            path: record.path.clone(),
            line: None,
            message,
        };
        let (host, id) = self
            .split_id(&record.id)
            .ok_or_else(|| failed("not a session of a configured remote".to_owned()))?;
        let connection = self.connection(host).map_err(failed)?;
        let answer = connection
            .request(
                "fold",
                json!({"session": id}),
                self.bounded(self.answer_timeout),
            )
            .map_err(failed)?;
        let folded: WireFold = serde_json::from_value(answer)
            .map_err(|e| failed(format!("{}: an answer that does not parse: {e}", host.host)))?;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(folded.journal.as_bytes())
            .map_err(|e| {
                failed(format!(
                    "{}: a journal that does not decode: {e}",
                    host.host
                ))
            })?;
        let mut ops: Vec<(u8, Op)> = Vec::new();
        journal::decode_into(&bytes, &mut ops)
            .ok_or_else(|| failed(format!("{}: a journal that does not decode", host.host)))?;
        journal::replay_into(ops, 0, sink);
        Ok(folded.captured_through_seq)
    }

    /// List every host in parallel, each on its own thread, sending what
    /// each gives to `sink` as it arrives; a host that fails is one
    /// unreadable entry named by the host.
    pub fn scan(&self, sink: &(dyn Fn(ScanEvent) + Sync)) {
        std::thread::scope(|scope| {
            for host in &self.hosts {
                scope.spawn(move || match self.list(host) {
                    Ok(listing) => listing.events.into_iter().for_each(sink),
                    Err(reason) => {
                        let prefix = format!("{}: ", host.host);
                        let reason = reason.strip_prefix(&prefix).unwrap_or(&reason).to_owned();
                        lock(&self.failures).insert(host.host.clone(), reason.clone());
                        sink(ScanEvent::Unreadable {
                            path: PathBuf::from(&host.host),
                            reason,
                        })
                    }
                });
            }
        });
    }

    /// What `remote check` reports of `host`: the hello and the listing.
    pub fn check(&self, host: &RemoteHost) -> Result<(Hello, Listing), String> {
        let connection = self.connection(host)?;
        let hello = connection.hello.clone();
        Ok((hello, self.list(host)?))
    }
}

/// The path of a remote file as shown here: `HOST:PATH`.
fn remote_path(host: &str, path: &str) -> PathBuf {
    PathBuf::from(format!("{host}:{path}"))
}

/// What a host listed.
#[derive(Debug, Default)]
pub struct Listing {
    /// Records (named `ID@HOST`), files skipped and files unreadable there.
    pub events: Vec<ScanEvent>,
    /// `(kind, root, sessions)` of every store root the remote read.
    pub roots: Vec<(String, String, usize)>,
}

/// The server's first line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hello {
    /// Always `remote`: what tells a `session-ref` from any other output
    /// (a login banner, a shell's message).
    pub session_ref: String,
    /// The exchange's version ([`PROTOCOL`]).
    pub protocol: u64,
    /// The server's `session-ref` version.
    pub version: String,
}

impl Hello {
    /// This build's hello.
    pub fn ours() -> Self {
        Hello {
            session_ref: "remote".to_owned(),
            protocol: PROTOCOL,
            version: env!("CARGO_PKG_VERSION").to_owned(),
        }
    }
}

/// One session of a listing, as sent.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WireSession {
    /// The session id on the remote.
    pub id: String,
    /// The store kind (`claude`, …).
    pub kind: String,
    /// Working directory, when known.
    pub cwd: Option<String>,
    /// Creation time as logged.
    pub created_at: String,
    /// The log's path on the remote.
    pub path: String,
    /// The store root it was found under.
    pub root: String,
    /// Latest title, when it has one.
    pub title: Option<String>,
    /// Last activity (Unix seconds), when known.
    pub updated_at: Option<i64>,
}

/// A listing, as sent.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct WireListing {
    /// The sessions.
    pub sessions: Vec<WireSession>,
    /// `(path, reason)` of files that could not be listed.
    #[serde(default)]
    pub unreadable: Vec<(String, String)>,
    /// `(kind, root, sessions)` of every store root read.
    #[serde(default)]
    pub roots: Vec<(String, String, usize)>,
}

/// A fold, as sent.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WireFold {
    /// [`journal::encode`] of stream 0, base64.
    pub journal: String,
    /// The seq of the last complete event read.
    pub captured_through_seq: u64,
}

/// An answer's outcome, as the reader thread hands it to the request.
type Answer = Result<Value, String>;

/// One ssh connection to a remote `session-ref remote serve`.
struct Connection {
    host: String,
    hello: Hello,
    child: Mutex<Child>,
    stdin: Mutex<ChildStdin>,
    waiting: Arc<Mutex<HashMap<u64, Sender<Answer>>>>,
    next: AtomicU64,
    /// What ssh said on stderr (bounded), for the error message.
    stderr: Arc<Mutex<String>>,
}

impl Connection {
    /// Connect and read the hello within `timeout`.
    fn open(ssh: &str, host: &RemoteHost, timeout: Duration) -> Result<Connection, String> {
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
    fn alive(&self) -> bool {
        matches!(lock(&self.child).try_wait(), Ok(None))
    }

    /// Send `op` with `args` and wait for its answer within `timeout`.
    fn request(&self, op: &str, args: Value, timeout: Duration) -> Result<Value, String> {
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
fn check_protocol(host: &str, hello: Hello) -> Result<Hello, String> {
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

/// Read one line (without its `\n`) into `line`: `false` at the end of
/// the data, an error for a line over `max` bytes (read no further).
pub fn read_bounded_line(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    max: usize,
) -> Result<bool, String> {
    loop {
        let available = reader.fill_buf().map_err(|e| e.to_string())?;
        if available.is_empty() {
            return Ok(!line.is_empty());
        }
        match memchr::memchr(b'\n', available) {
            Some(at) => {
                if line.len() + at > max {
                    return Err(format!("a line over {max} bytes"));
                }
                line.extend_from_slice(&available[..at]);
                reader.consume(at + 1);
                return Ok(true);
            }
            None => {
                let n = available.len();
                if line.len() + n > max {
                    return Err(format!("a line over {max} bytes"));
                }
                line.extend_from_slice(available);
                reader.consume(n);
            }
        }
    }
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

/// The reader of remote sessions: what the catalog reads a record with
/// when the record names a host (it is not in the registry: remote
/// records keep their agent's kind, and only their reads come here).
pub struct RemoteStore;

/// The one remote reader.
pub static REMOTE: RemoteStore = RemoteStore;

impl Store for RemoteStore {
    fn name(&self) -> &'static str {
        "remote"
    }
    fn flag(&self) -> &'static str {
        "remote"
    }
    fn root_help(&self) -> &'static str {
        "A machine whose sessions to read over ssh"
    }
    fn origin(&self) -> &'static str {
        "other machines (over ssh)"
    }
    fn default_roots(&self, _: crate::store::Env<'_>, _: Option<&Path>) -> Vec<PathBuf> {
        Vec::new()
    }
    fn wants(&self, _: &Path) -> bool {
        false
    }
    fn list_file(&self, _: &Caches, _: &Arc<Path>, path: &Path) -> ScanEvent {
        ScanEvent::Skipped {
            path: path.to_owned(),
            reason: "remote sessions are listed by their host".to_owned(),
        }
    }
    fn read_title(
        &self,
        caches: &Caches,
        record: &SessionRecord,
    ) -> Result<Option<String>, ReadError> {
        Ok(caches.get::<Remotes>().title(record))
    }
    fn last_activity(&self, _: &Caches, record: &SessionRecord) -> Option<i64> {
        record.updated
    }
    fn read_surface(&self, caches: &Caches, record: &SessionRecord) -> Result<Surface, ReadError> {
        let mut history = session_ref_core::model::History::default();
        let last = self.fold_surface(caches, record, &mut history)?;
        Ok(history.finish(last).surface)
    }
    fn fold_surface(
        &self,
        caches: &Caches,
        record: &SessionRecord,
        sink: &mut dyn SurfaceSink,
    ) -> Result<u64, ReadError> {
        caches.get::<Remotes>().fold(record, sink)
    }
}

/// The `-o BatchMode=…` other than `yes` that the ssh command line `ssh`
/// gives, as written. ssh keeps the first value of an option (`ssh -G -o
/// BatchMode=no -o BatchMode=yes` says `batchmode no`), and the user's
/// words come before ours, so such an option would let ssh prompt on the
/// terminal: the connection is refused instead.
fn batch_mode_overridden(ssh: &str) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ssh_command_that_turns_batch_mode_off_is_refused() {
        for ssh in [
            "ssh -o BatchMode=no",
            "ssh -oBatchMode=no -p 22",
            "ssh -o 'batchmode no'",
            "env X=1 ssh -o BATCHMODE=No",
        ] {
            assert!(batch_mode_overridden(ssh).is_some(), "{ssh}");
        }
        for ssh in [
            "ssh",
            "ssh -o BatchMode=yes -p 2222",
            "ssh -o ConnectTimeout=3",
            "",
        ] {
            assert_eq!(batch_mode_overridden(ssh), None, "{ssh}");
        }
        let host = RemoteHost::new("devbox");
        let refused = Connection::open("ssh -o BatchMode=no", &host, Duration::from_secs(1))
            .err()
            .expect("refused");
        assert!(refused.contains("sets -o BatchMode=no"), "{refused}");
    }

    #[test]
    fn shell_quoting_keeps_every_argument_one_word() {
        assert_eq!(shell_quote("--claude"), "--claude");
        assert_eq!(shell_quote("/home/a b"), "'/home/a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote("$(touch x)"), "'$(touch x)'");
        assert_eq!(shell_quote(""), "''");
    }

    #[test]
    fn an_id_names_a_remote_by_its_configured_host() {
        let remotes = Remotes::new(
            vec![RemoteHost::new("devbox"), RemoteHost::new("me@ci")],
            "",
            Duration::from_secs(3),
        );
        assert_eq!(
            remotes
                .split_id("abc@devbox")
                .map(|(h, id)| (h.host.as_str(), id)),
            Some(("devbox", "abc"))
        );
        assert_eq!(
            remotes
                .split_id("a@b@me@ci")
                .map(|(h, id)| (h.host.as_str(), id)),
            Some(("me@ci", "a@b"))
        );
        assert!(remotes.split_id("abc@laptop").is_none());
        assert!(remotes.split_id("@devbox").is_none());
        assert!(remotes.split_id("abcdevbox").is_none());
    }

    #[test]
    fn lines_are_bounded() {
        let mut reader = BufReader::with_capacity(4, &b"abc\ndefghij\nxy"[..]);
        let mut line = Vec::new();
        assert_eq!(read_bounded_line(&mut reader, &mut line, 5), Ok(true));
        assert_eq!(line, b"abc");
        line.clear();
        assert!(read_bounded_line(&mut reader, &mut line, 5).is_err());
        let mut reader = BufReader::new(&b"xy"[..]);
        line.clear();
        assert_eq!(read_bounded_line(&mut reader, &mut line, 5), Ok(true));
        assert_eq!(line, b"xy");
        line.clear();
        assert_eq!(read_bounded_line(&mut reader, &mut line, 5), Ok(false));
    }

    #[test]
    fn protocols_must_agree_and_the_older_end_is_named() {
        let hello = |protocol| Hello {
            protocol,
            ..Hello::ours()
        };
        assert!(check_protocol("h", hello(PROTOCOL)).is_ok());
        assert!(check_protocol("h", hello(PROTOCOL + 1))
            .unwrap_err()
            .contains("upgrade session-ref here"));
        assert!(check_protocol("h", hello(0))
            .unwrap_err()
            .contains("upgrade session-ref on h"));
    }

    #[test]
    fn a_slow_remote_never_delays_local_rows() {
        // A remote that takes a second to fail, beside the demo store: every
        // local session is found before the remote's verdict arrives.
        let caches = Caches::default().with(Remotes::new(
            vec![RemoteHost::new("slowbox")],
            "sleep 1; false",
            Duration::from_secs(5),
        ));
        let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/demo");
        let roots = crate::roots::StoreRoots::new().with(crate::kinds::native::KIND, demo);
        let found = Mutex::new(Vec::new());
        crate::catalog::scan(&caches, &roots, &|e| lock(&found).push(e));
        let found = found.into_inner().unwrap();
        let remote_at = found
            .iter()
            .position(
                |e| matches!(e, ScanEvent::Unreadable { path, .. } if path == Path::new("slowbox")),
            )
            .expect("the remote's failure is reported");
        let records = found
            .iter()
            .filter(|e| matches!(e, ScanEvent::Record(_)))
            .count();
        assert!(records >= 12, "{records}");
        assert_eq!(
            remote_at,
            found.len() - 1,
            "local rows came first: {found:?}"
        );
    }

    #[test]
    fn an_unreachable_host_is_one_reason_not_a_hang() {
        // `false` stands for an ssh that fails at once.
        let remotes = Remotes::new(
            vec![RemoteHost::new("nowhere")],
            "false",
            Duration::from_secs(2),
        );
        let found = Mutex::new(Vec::new());
        remotes.scan(&|e| lock(&found).push(e));
        let found = found.into_inner().unwrap();
        assert!(
            matches!(
                &found[..],
                [ScanEvent::Unreadable { path, reason }] if path == Path::new("nowhere") && !reason.is_empty()
            ),
            "{found:?}"
        );
    }
}
