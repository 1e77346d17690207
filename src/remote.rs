//! Sessions on other machines, the program's side: which remotes a run
//! asks (`--remote`, the config file, `SESSION_REF_SSH`), the server a
//! remote runs (`session-ref remote serve`, protocol in
//! [`session_ref_stores::remote`]) and `session-ref remote check HOST`.
//!
//! The config file is `$XDG_CONFIG_HOME/session-ref/config.toml` (else
//! `~/.config/session-ref/config.toml`):
//!
//! ```toml
//! ssh_command = "ssh -p 2222"   # as GIT_SSH_COMMAND; SESSION_REF_SSH wins
//! connect_timeout = 3           # seconds
//! list_timeout = 5              # seconds a host's listing is waited for
//!
//! [[remote]]
//! host = "devbox"               # anything ssh accepts: an alias, user@host
//! command = "~/.cargo/bin/session-ref"   # default: session-ref
//! args = ["--claude", "/data/claude"]     # store flags for the remote
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use base64::Engine as _;
use rayon::prelude::*;
use serde_json::{json, Value};

use crate::config::{Command, Config};
use crate::error::{Error, Result};
use crate::search::pipeline::{self, Event, Search, Source};
use crate::search::query::{Query, Syntax};
use crate::search::wire::WireMatch;
use session_ref_core::json as js;
use session_ref_stores::index::journal::{self, Journal};
use session_ref_stores::model::SessionRecord;
use session_ref_stores::remote::{
    read_bounded_line, shell_quote, Hello, RemoteHost, Remotes, WireFold, WireListing, WireSession,
};
use session_ref_stores::search::index::Index;
use session_ref_stores::{Catalog, ScanEvent};

/// The default time to connect (and greet) before a host counts as
/// unreachable.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// The default time a host's listing is waited for once connected: a
/// one-shot command (`candidates`, `prepare`, …) prints its local rows
/// after at most connecting plus this, whatever a stalled host does. A
/// remote's warm listing takes well under a second.
pub const DEFAULT_LIST_TIMEOUT: Duration = Duration::from_secs(5);

/// The longest request a server accepts: requests are small.
const MAX_REQUEST: usize = 1 << 20;

/// The remotes of a run, validated.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RemoteSettings {
    /// The hosts asked: `--remote` flags, then the config file's entries.
    pub hosts: Vec<RemoteHost>,
    /// The ssh command line.
    pub ssh: String,
    /// Connect (and greet) timeout.
    pub connect_timeout: Duration,
    /// How long a host's listing is waited for once connected.
    pub list_timeout: Duration,
}

impl RemoteSettings {
    /// The settings from `--remote` flags, the environment and the config
    /// file (when it exists).
    pub fn load(
        flags: &[String],
        env: &impl Fn(&str) -> Option<String>,
        home: Option<&Path>,
    ) -> Result<RemoteSettings> {
        let mut settings = match config_file(env, home) {
            Some(path) if path.is_file() => parse_config(&path)?,
            _ => RemoteSettings::default(),
        };
        if settings.connect_timeout.is_zero() {
            settings.connect_timeout = DEFAULT_CONNECT_TIMEOUT;
        }
        if settings.list_timeout.is_zero() {
            settings.list_timeout = DEFAULT_LIST_TIMEOUT;
        }
        let mut hosts: Vec<RemoteHost> = Vec::new();
        for flag in flags {
            if flag.trim().is_empty() || flag.starts_with('-') {
                return Err(Error::invalid_config(format!(
                    "--remote: {} is not a host",
                    js::quote(flag, false)
                )));
            }
            // A host named on the command line and in the config file
            // keeps the file's command and arguments.
            match settings.hosts.iter().find(|h| &h.host == flag) {
                Some(known) => hosts.push(known.clone()),
                None => hosts.push(RemoteHost::new(flag.clone())),
            }
        }
        for host in std::mem::take(&mut settings.hosts) {
            if !hosts.iter().any(|h| h.host == host.host) {
                hosts.push(host);
            }
        }
        settings.hosts = hosts;
        if let Some(ssh) = env("SESSION_REF_SSH").filter(|s| !s.trim().is_empty()) {
            settings.ssh = ssh;
        }
        if settings.ssh.trim().is_empty() {
            settings.ssh = "ssh".to_owned();
        }
        Ok(settings)
    }

    /// The client of these settings (for a run's caches).
    pub fn remotes(&self) -> Remotes {
        Remotes::new(self.hosts.clone(), &self.ssh, self.connect_timeout)
            .with_list_timeout(self.list_timeout)
    }

    /// The settings limited to the hosts that `ids` name (`ID@HOST`): what
    /// a hook resolving those ids needs, so that a prompt citing only
    /// local sessions never waits for the network.
    pub fn only_named_by<'a>(&self, ids: impl IntoIterator<Item = &'a str>) -> RemoteSettings {
        let all = self.remotes();
        let mut hosts: Vec<RemoteHost> = Vec::new();
        for id in ids {
            if let Some((host, _)) = all.split_id(id) {
                if !hosts.contains(host) {
                    hosts.push(host.clone());
                }
            }
        }
        RemoteSettings {
            hosts,
            ..self.clone()
        }
    }
}

/// Where the config file is.
pub fn config_file(env: &impl Fn(&str) -> Option<String>, home: Option<&Path>) -> Option<PathBuf> {
    let base = match env("XDG_CONFIG_HOME").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => home?.join(".config"),
    };
    Some(base.join("session-ref").join("config.toml"))
}

/// Parse the config file's remote settings.
fn parse_config(path: &Path) -> Result<RemoteSettings> {
    let shown = crate::display::path_for_person(path);
    let bad = |why: String| Error::invalid_config(format!("{shown}: {why}"));
    let text = std::fs::read_to_string(path).map_err(|e| bad(format!("cannot read it: {e}")))?;
    let doc: toml_edit::DocumentMut = text.parse().map_err(|e| bad(format!("{e}")))?;
    let mut settings = RemoteSettings::default();
    if let Some(item) = doc.get("ssh_command") {
        settings.ssh = item
            .as_str()
            .ok_or_else(|| bad("ssh_command must be a string".to_owned()))?
            .to_owned();
    }
    for (key, slot) in [
        ("connect_timeout", &mut settings.connect_timeout),
        ("list_timeout", &mut settings.list_timeout),
    ] {
        if let Some(item) = doc.get(key) {
            let seconds = item
                .as_integer()
                .filter(|s| (1..=600).contains(s))
                .ok_or_else(|| bad(format!("{key} must be a number of seconds, 1 to 600")))?;
            *slot = Duration::from_secs(seconds.unsigned_abs());
        }
    }
    if let Some(item) = doc.get("remote") {
        let tables = item
            .as_array_of_tables()
            .ok_or_else(|| bad("remote must be [[remote]] tables".to_owned()))?;
        for (i, table) in tables.iter().enumerate() {
            let n = i + 1;
            let host = table
                .get("host")
                .and_then(|h| h.as_str())
                .filter(|h| !h.trim().is_empty() && !h.starts_with('-'))
                .ok_or_else(|| bad(format!("[[remote]] {n}: host must be a host name")))?;
            let mut remote = RemoteHost::new(host);
            if let Some(command) = table.get("command") {
                remote.command = command
                    .as_str()
                    .filter(|c| !c.trim().is_empty())
                    .ok_or_else(|| bad(format!("[[remote]] {n}: command must be a string")))?
                    .to_owned();
            }
            if let Some(args) = table.get("args") {
                let array = args.as_array().ok_or_else(|| {
                    bad(format!("[[remote]] {n}: args must be a list of strings"))
                })?;
                for arg in array {
                    remote.args.push(
                        arg.as_str()
                            .ok_or_else(|| {
                                bad(format!("[[remote]] {n}: args must be a list of strings"))
                            })?
                            .to_owned(),
                    );
                }
            }
            settings.hosts.push(remote);
        }
    }
    Ok(settings)
}

/// `session-ref remote serve`: answer one client's requests on stdin with
/// lines on stdout until stdin ends. The catalog is listed on the first
/// request that needs it (the hello goes out at once, so the client's
/// connect timeout measures ssh, not listing).
pub fn serve(config: &Config) -> Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let hello =
        serde_json::to_string(&Hello::ours()).map_err(|e| Error::internal(e.to_string()))?;
    let write = |out: &mut std::io::StdoutLock<'_>, line: &str| -> Result<()> {
        writeln!(out, "{line}")
            .and_then(|()| out.flush())
            .map_err(|e| Error::internal(format!("cannot answer: {e}")))
    };
    write(&mut out, &hello)?;
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut catalog: Option<Catalog> = None;
    let mut index: Option<Option<Index>> = None;
    let mut line = Vec::new();
    loop {
        line.clear();
        let request = match read_bounded_line(&mut input, &mut line, MAX_REQUEST) {
            Ok(false) => break,
            Ok(true) => serde_json::from_slice::<Value>(&line).ok(),
            // An over-long request: answered, then the connection ends (the
            // rest of that line cannot be told from the next request).
            Err(why) => {
                write(
                    &mut out,
                    &error_line(None, "SESSION_REFERENCE_INVALID_CONFIG", &why),
                )?;
                break;
            }
        };
        let Some(request) = request else {
            write(
                &mut out,
                &error_line(
                    None,
                    "SESSION_REFERENCE_INVALID_CONFIG",
                    "a request that is not JSON",
                ),
            )?;
            continue;
        };
        let id = request.get("id").and_then(Value::as_u64);
        let catalog = match &catalog {
            Some(catalog) => catalog,
            None => catalog.insert(crate::commands::load_catalog(config)),
        };
        let answer = match request.get("op").and_then(Value::as_str) {
            Some("list") => list(catalog).map(|listing| json!(listing)),
            Some("fold") => match request.get("session").and_then(Value::as_str) {
                Some(session) => fold(catalog, session).map(|folded| json!(folded)),
                None => Err(Error::invalid_reference("fold needs a session")),
            },
            Some("search") => {
                let index = index.get_or_insert_with(|| {
                    let dir = match &config.command {
                        Command::RemoteServe { search_index } => search_index.as_deref(),
                        _ => None,
                    };
                    dir.map(|dir| Index::open_and_list(dir, catalog.caches(), &config.roots).0)
                });
                search(catalog, index.as_ref(), &request).map(|found| json!(found))
            }
            other => Err(Error::invalid_config(format!(
                "unknown request {}",
                js::quote(other.unwrap_or(""), false)
            ))),
        };
        let line = match answer {
            Ok(ok) => json!({"id": id, "ok": ok}).to_string(),
            Err(e) => error_line(id, e.code.as_str(), &e.message),
        };
        write(&mut out, &line)?;
    }
    if let Some(catalog) = &catalog {
        catalog.save_index();
        if let Some(Some(index)) = index {
            let listed: Vec<&Path> = catalog.ordered().map(|r| r.path.as_path()).collect();
            // The index is a cache: a failure to write it loses nothing.
            let _ = index.commit(Some(&listed));
        }
    }
    Ok(())
}

/// The sessions matching a `search` request, newest first, each with its
/// listing entry and its hits: the search pipeline over every local
/// session, no remote asked (one hop).
fn search(catalog: &Catalog, index: Option<&Index>, request: &Value) -> Result<Vec<WireMatch>> {
    let text = request.get("query").and_then(Value::as_str).unwrap_or("");
    let syntax = if request.get("regex").and_then(Value::as_bool) == Some(true) {
        Syntax::Regex
    } else {
        Syntax::Words
    };
    let limit = request
        .get("limit")
        .and_then(Value::as_u64)
        .map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX));
    let query =
        Query::parse(text, syntax).map_err(|e| Error::invalid_config(format!("search: {e}")))?;
    let records: Vec<&SessionRecord> = catalog.ordered().collect();
    let never = AtomicBool::new(false);
    let search = Search {
        catalog,
        records: &records,
        query: &query,
        source: index.map_or(Source::Logs, Source::Index),
        remotes: None,
        except: None,
        limit,
        cancel: &never,
    };
    let mut found = Vec::new();
    pipeline::run(&search, &mut |event| {
        if let Event::Local {
            record,
            found: matched,
            ..
        } = event
        {
            found.push(WireMatch::new(wire_session(catalog, record), &matched));
        }
        true
    });
    Ok(found)
}

fn error_line(id: Option<u64>, code: &str, message: &str) -> String {
    json!({"id": id, "error": {"code": code, "message": message}}).to_string()
}

/// A local session as `list` and `search` send it.
fn wire_session(catalog: &Catalog, record: &SessionRecord) -> WireSession {
    WireSession {
        id: record.id.clone(),
        kind: record.kind.as_str().to_owned(),
        cwd: record.cwd.clone(),
        created_at: record.created_at.clone(),
        path: record.path.to_string_lossy().into_owned(),
        root: record.root.to_string_lossy().into_owned(),
        title: catalog.read_title(record).ok().flatten(),
        updated_at: std::fs::metadata(&record.path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .and_then(|d| i64::try_from(d.as_secs()).ok()),
    }
}

/// Every local session with its title and last activity.
fn list(catalog: &Catalog) -> Result<WireListing> {
    let records: Vec<_> = catalog.ordered().collect();
    let sessions = records
        .par_iter()
        .map(|record| wire_session(catalog, record))
        .collect();
    let mut roots: Vec<(String, String, usize)> = Vec::new();
    for record in &records {
        let root = record.root.to_string_lossy().into_owned();
        match roots
            .iter_mut()
            .find(|(k, r, _)| k == record.kind.as_str() && *r == root)
        {
            Some(entry) => entry.2 += 1,
            None => roots.push((record.kind.as_str().to_owned(), root, 1)),
        }
    }
    Ok(WireListing {
        sessions,
        unreadable: catalog
            .unreadable
            .iter()
            .map(|(path, why)| (path.to_string_lossy().into_owned(), why.clone()))
            .collect(),
        roots,
    })
}

/// The fold of one local session, recorded.
fn fold(catalog: &Catalog, session: &str) -> Result<WireFold> {
    let record = catalog.find(session).ok_or_else(|| {
        Error::read_failed(format!("unknown session {}", js::quote(session, false)))
    })?;
    let mut recorded = Journal::new(0);
    let captured_through_seq = catalog.fold_surface(record, &mut recorded)?;
    let bytes = journal::encode(&recorded.into_ops());
    Ok(WireFold {
        journal: base64::engine::general_purpose::STANDARD.encode(bytes),
        captured_through_seq,
    })
}

/// `session-ref remote check HOST`: what a person needs to know of a
/// remote, as text for stdout; an error when it cannot be used.
pub fn check(settings: &RemoteSettings, host: &str) -> Result<String> {
    let remote = settings
        .hosts
        .iter()
        .find(|h| h.host == host)
        .cloned()
        .unwrap_or_else(|| RemoteHost::new(host));
    let remotes = Remotes::new(
        vec![remote.clone()],
        &settings.ssh,
        settings.connect_timeout,
    );
    let shown = crate::display::escape_unsafe(host);
    let (hello, listing) = remotes.check(&remote).map_err(|why| {
        // What a person may paste into a shell: the ssh command line as
        // configured (shell syntax already), each other word quoted; the
        // remote command is one word, which ssh hands to the remote shell.
        let host_word = shell_quote(host);
        Error::read_failed(format!(
            "{}\n  ssh command: {} {host_word}\n  remote command: {}\n  install session-ref there, then try `{} {host_word} {}`",
            crate::display::escape_unsafe(&why),
            settings.ssh,
            remote.remote_command(&["remote", "serve"]),
            settings.ssh,
            shell_quote(&remote.remote_command(&["--version"])),
        ))
    })?;
    let safe = |s: &str| crate::display::escape_unsafe(s).into_owned();
    let mut out = format!(
        "{shown}: ssh works; session-ref {} (remote protocol {})\n",
        safe(&hello.version),
        hello.protocol
    );
    let sessions = listing
        .events
        .iter()
        .filter(|e| matches!(e, ScanEvent::Record(_)))
        .count();
    out.push_str(&format!("{shown}: {sessions} sessions\n"));
    for (kind, root, count) in &listing.roots {
        out.push_str(&format!("  {:<8} {}  {count}\n", safe(kind), safe(root)));
    }
    let unreadable = listing
        .events
        .iter()
        .filter(|e| matches!(e, ScanEvent::Unreadable { .. }))
        .count();
    if unreadable > 0 {
        out.push_str(&format!("  {unreadable} files could not be listed there\n"));
    }
    Ok(out)
}

/// The caches' remote client for a run with these settings, when any host
/// is configured.
pub fn client(settings: &RemoteSettings) -> Option<Remotes> {
    (!settings.hosts.is_empty()).then(|| settings.remotes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of<'a>(pairs: &'a [(&'a str, String)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone())
    }

    #[test]
    fn the_config_file_names_remotes_and_flags_come_first() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("session-ref/config.toml");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(
            &file,
            "ssh_command = \"ssh -p 2222\"\nconnect_timeout = 5\n\n[[remote]]\nhost = \"devbox\"\ncommand = \"/opt/bin/session-ref\"\nargs = [\"--claude\", \"/data/c\"]\n\n[[remote]]\nhost = \"ci\"\n",
        )
        .unwrap();
        let pairs = [("XDG_CONFIG_HOME", dir.path().display().to_string())];
        let settings = RemoteSettings::load(
            &["ci".to_owned(), "laptop".to_owned()],
            &env_of(&pairs),
            None,
        )
        .unwrap();
        let hosts: Vec<&str> = settings.hosts.iter().map(|h| h.host.as_str()).collect();
        assert_eq!(hosts, ["ci", "laptop", "devbox"]);
        assert_eq!(settings.ssh, "ssh -p 2222");
        assert_eq!(settings.connect_timeout, Duration::from_secs(5));
        assert_eq!(settings.list_timeout, DEFAULT_LIST_TIMEOUT);
        assert_eq!(settings.hosts[2].command, "/opt/bin/session-ref");
        assert_eq!(settings.hosts[2].args, ["--claude", "/data/c"]);
        let pairs = [
            ("XDG_CONFIG_HOME", dir.path().display().to_string()),
            ("SESSION_REF_SSH", "myssh".to_owned()),
        ];
        assert_eq!(
            RemoteSettings::load(&[], &env_of(&pairs), None)
                .unwrap()
                .ssh,
            "myssh"
        );
    }

    #[test]
    fn a_bad_config_file_is_a_config_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("session-ref/config.toml");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        for bad in [
            "[[remote]]\nport = 1\n",
            "remote = 3\n",
            "connect_timeout = 0\n",
            "list_timeout = \"5\"\n",
            "x = [\n",
        ] {
            std::fs::write(&file, bad).unwrap();
            let pairs = [("XDG_CONFIG_HOME", dir.path().display().to_string())];
            let e = RemoteSettings::load(&[], &env_of(&pairs), None).unwrap_err();
            assert_eq!(e.code.as_str(), "SESSION_REFERENCE_INVALID_CONFIG", "{bad}");
            assert!(e.message.contains("config.toml"), "{}", e.message);
        }
    }

    #[test]
    fn a_hook_asks_only_the_hosts_its_mentions_name() {
        let settings = RemoteSettings {
            hosts: vec![RemoteHost::new("devbox"), RemoteHost::new("ci")],
            ssh: "ssh".to_owned(),
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            list_timeout: DEFAULT_LIST_TIMEOUT,
        };
        let only = settings.only_named_by(["a@ci", "local-id", "b@ci"]);
        assert_eq!(only.hosts, [RemoteHost::new("ci")]);
        assert!(settings.only_named_by(["x"]).hosts.is_empty());
    }
}
