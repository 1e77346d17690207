//! The remotes a run asks, read from `--remote` flags, `SESSION_REF_SSH`
//! and the config file: data of the configuration, validated here once
//! (the client that asks them is [`session_ref_stores::remote::Remotes`];
//! the server they run is [`crate::remote::serve`]).
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

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::{Error, Result};
use session_ref_core::json as js;
use session_ref_stores::remote::{RemoteHost, Remotes};

/// The default time to connect (and greet) before a host counts as
/// unreachable.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// The default time a host's listing is waited for once connected: a
/// one-shot command (`candidates`, `prepare`, …) prints its local rows
/// after at most connecting plus this, whatever a stalled host does. A
/// remote's warm listing takes well under a second.
pub const DEFAULT_LIST_TIMEOUT: Duration = Duration::from_secs(5);

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

    /// The caches' remote client for a run with these settings, when any
    /// host is configured.
    pub fn client(&self) -> Option<Remotes> {
        (!self.hosts.is_empty()).then(|| self.remotes())
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
