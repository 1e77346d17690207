//! `session-ref remote check HOST`: what a person needs to know of a
//! remote (does ssh work, which version and protocol answer, what it
//! lists), or how to make it work.

use crate::config::remotes::RemoteSettings;
use crate::error::{Error, Result};
use session_ref_stores::remote::{shell_quote, RemoteHost, Remotes};
use session_ref_stores::ScanEvent;

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
