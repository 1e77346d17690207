//! `keep`: what the stores list copied into the archive, or the archive
//! purged, and the summary said for a person.

use super::{report_listing, stores};
use crate::config::Config;
use crate::error::{Error, Result};

/// `keep`: copy what the stores list into the archive (the archive's own
/// sessions are not listed for it), or `--purge` it; the summary.
pub(super) fn keep(config: &Config, purge: bool, max_bytes: Option<u64>) -> Result<String> {
    use crate::display::{escape_unsafe, path_for_person};
    let mut settings = config.keep.clone();
    if let Some(bytes) = max_bytes {
        settings.max_bytes = bytes;
    }
    let archive = settings.archive(false).ok_or_else(|| {
        Error::invalid_config("keep: no archive folder: set HOME or XDG_DATA_HOME")
    })?;
    let dir = path_for_person(archive.dir().unwrap_or(std::path::Path::new("")));
    if purge {
        return Ok(match archive.purge()? {
            true => format!("removed the archive {dir}\n"),
            false => format!("no archive at {dir}\n"),
        });
    }
    let catalog = stores(config, config.target.cwd.as_deref(), &config.remotes)
        .archive(None)
        .catalog();
    report_listing(&catalog, config);
    let listed: Vec<_> = catalog
        .ordered()
        .filter(|r| r.host.is_none())
        .cloned()
        .collect();
    let report = archive.keep(&listed)?;
    catalog.save_index();
    for problem in &report.problems {
        eprintln!("session-ref: warning: keep: {}", escape_unsafe(problem));
    }
    if report.not_kept > 0 {
        eprintln!(
            "session-ref: warning: keep: {} not kept: the archive is at its bound of {} \
             (keep --max-size SIZE, or max_size in [keep])",
            plural(report.not_kept, "session"),
            crate::display::human_bytes(report.max_bytes)
        );
    }
    let mut out = format!(
        "kept {} in {dir} ({} copied, {} unchanged)",
        plural(report.kept, "session"),
        report.copied,
        report.unchanged
    );
    if report.evicted > 0 {
        out.push_str(&format!(
            "; dropped {} of sessions still in their store to stay within the bound",
            plural(report.evicted, "copy")
        ));
    }
    out.push_str(&format!(
        "; {} only in the archive; {} of {}\n",
        plural(report.archived_only, "session"),
        crate::display::human_bytes(report.stored_bytes),
        crate::display::human_bytes(report.max_bytes)
    ));
    Ok(out)
}

/// `n` and `what`, plural when `n` is not 1 (`copy`: `copies`).
pub(super) fn plural(n: usize, what: &str) -> String {
    match (n, what.strip_suffix('y')) {
        (1, _) => format!("1 {what}"),
        (_, Some(stem)) => format!("{n} {stem}ies"),
        _ => format!("{n} {what}s"),
    }
}
