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
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{json, Value};

use crate::caches::{lock, Caches};
use crate::error::ReadError;
use crate::index::journal::{self, Op};
use crate::model::{SessionRecord, Surface, SurfaceSink};
use crate::registry::kind_by_name;
use crate::store::ScanEvent;
use crate::store::Store;

mod connection;
mod wire;

pub use connection::{end_all, shell_quote, RemoteHost};
pub use wire::{read_bounded_line, Hello, WireFold, WireListing, WireSession, MAX_LINE, PROTOCOL};

use connection::Connection;

/// How long one answer may take once connected (a fold of a large
/// session, a search), unless the run's deadline is nearer.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

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
    pub fn list(&self, host: &RemoteHost) -> Result<HostListing, String> {
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
        Ok(HostListing {
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

    /// The hello of `host` (its version and protocol), connecting within
    /// the connect timeout: what `doctor` asks, without a listing.
    pub fn hello(&self, host: &RemoteHost) -> Result<Hello, String> {
        Ok(self.connection(host)?.hello.clone())
    }

    /// What `remote check` reports of `host`: the hello and the listing.
    pub fn check(&self, host: &RemoteHost) -> Result<(Hello, HostListing), String> {
        let hello = self.hello(host)?;
        Ok((hello, self.list(host)?))
    }
}

/// The path of a remote file as shown here: `HOST:PATH`.
fn remote_path(host: &str, path: &str) -> PathBuf {
    PathBuf::from(format!("{host}:{path}"))
}

/// What a host listed.
#[derive(Debug, Default)]
pub struct HostListing {
    /// Records (named `ID@HOST`), files skipped and files unreadable there.
    pub events: Vec<ScanEvent>,
    /// `(kind, root, sessions)` of every store root the remote read.
    pub roots: Vec<(String, String, usize)>,
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

#[cfg(test)]
mod tests;
