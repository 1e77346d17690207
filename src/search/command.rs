//! `session-ref search`: stream matching sessions to stdout, newest first,
//! as they are found. Unlike the other commands, whose output is written
//! once at the end, results are printed one session at a time, so a search
//! over a large store shows its first answers at once and can be stopped.

use std::io::{self, Write};
use std::sync::atomic::AtomicBool;

use crate::config::Config;
use crate::display;
use crate::error::{Error, Result};
use crate::search::hits::SessionMatch;
use crate::search::pipeline::{self, Event, Search, Source};
use crate::search::query::{Query, Syntax};
use crate::search::{scan, Found, BEFORE_COMPACTION};
use session_ref_stores::model::SessionRecord;
use session_ref_stores::search::index::Index;
use session_ref_stores::{Catalog, RecordId};

/// Hits shown per session in the text output (JSON has them all).
const TEXT_HITS: usize = 3;

/// Widest label and snippet in the text output, in columns.
const TEXT_WIDTH: usize = 100;

/// What to search for and how to print it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The query text.
    pub query: String,
    /// Read it as one regular expression.
    pub regex: bool,
    /// Most matching sessions printed.
    pub limit: usize,
    /// JSON lines instead of text.
    pub json: bool,
    /// The index directory; `None` searches the logs only.
    pub index: Option<std::path::PathBuf>,
    /// Highlight the matches in the text output with terminal colours
    /// (stdout is a terminal and `NO_COLOR` is not set).
    pub color: bool,
}

/// Parse the query of a `search` (`regex`: one regular expression); a bad
/// query is the command line's error (exit 2).
pub fn parse_query(text: &str, regex: bool) -> Result<Query> {
    let syntax = if regex { Syntax::Regex } else { Syntax::Words };
    Query::parse(text, syntax).map_err(|e| Error::invalid_config(format!("search: {e}")).usage())
}

/// Run `search` over `catalog`, writing to `out`: what the search saw (how
/// many matched here and on the other machines, whether it stopped at the
/// limit). Stops early on `cancel` (then fails with
/// `SESSION_REFERENCE_CANCELLED`) or when `out` is closed.
pub fn run(
    config: &Config,
    catalog: &Catalog,
    request: &Request,
    index: Option<Index>,
    cancel: &AtomicBool,
    out: &mut dyn Write,
) -> Result<scan::Outcome> {
    let (limit, json) = (request.limit, request.json);
    let query = parse_query(&request.query, request.regex)?;
    let target = config.target.session_id.as_deref();
    let ids = pipeline::local_records(catalog, target);
    let records: Vec<&SessionRecord> = ids.iter().map(|&id| catalog.get(id)).collect();
    let search = Search {
        catalog,
        records: &records,
        query: &query,
        source: index.as_ref().map_or(Source::Logs, Source::Index),
        remotes: pipeline::remotes_of(catalog),
        except: target,
        limit,
        cancel,
    };
    let now = unix_now();
    let home = std::env::var("HOME").ok();
    let entry = |record: &SessionRecord, label: String, found: &SessionMatch| {
        if json {
            let mut line = serde_json::to_string(&Found::new(record, label, found))
                .expect("search results serialize");
            line.push('\n');
            line
        } else {
            text_entry(record, &label, found, now, home.as_deref(), request.color)
        }
    };
    let mut failed: Option<io::Error> = None;
    let mut write = |text: String| match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => true,
        Err(e) => {
            failed = Some(e);
            false
        }
    };
    let outcome = pipeline::run(&search, &mut |event| match event {
        Event::Local {
            position,
            record,
            found,
        } => write(entry(
            record,
            label(catalog, Some(ids[position]), record),
            &found,
        )),
        Event::Remote { record, found } => {
            write(entry(&record, label(catalog, None, &record), &found))
        }
        Event::RemoteFailed { host, why } => {
            warn_remote(&host, &why);
            true
        }
    });
    after_search(config, catalog, index, &outcome);
    match failed {
        Some(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            return Err(Error::read_failed(format!("cannot write to stdout: {e}")))
        }
        _ => {}
    }
    conclude(&outcome, limit)?;
    Ok(outcome)
}

/// Tell stderr that `host` could not search, and why.
pub fn warn_remote(host: &str, why: &str) {
    eprintln!(
        "session-ref: warning: cannot search {}: {}",
        display::escape_unsafe(host),
        display::escape_unsafe(why)
    );
}

/// After a search of `catalog`: write the index it used (what the run
/// listed), and, verbose, tell stderr what could not be searched.
pub fn after_search(
    config: &Config,
    catalog: &Catalog,
    index: Option<Index>,
    outcome: &scan::Outcome,
) {
    if let Some(index) = index {
        let listed: Vec<&std::path::Path> = catalog.ordered().map(|r| r.path.as_path()).collect();
        if let Err(e) = index.commit(Some(&listed)) {
            if config.verbose {
                eprintln!(
                    "session-ref: warning: search index not written: {}",
                    display::escape_unsafe(&e.to_string())
                );
            }
        }
    }
    if config.verbose {
        for (path, why) in &outcome.unreadable {
            eprintln!(
                "session-ref: warning: cannot search {}: {}",
                display::path_for_person(path),
                display::escape_unsafe(&why.to_string())
            );
        }
    }
}

/// How a search ended: an error when cancelled; a note on stderr when it
/// stopped at `limit` with sessions left.
pub fn conclude(outcome: &scan::Outcome, limit: usize) -> Result<()> {
    if outcome.cancelled {
        return Err(Error::cancelled());
    }
    if outcome.stopped_at_limit {
        let sessions = if limit == 1 { "session" } else { "sessions" };
        eprintln!(
            "session-ref: note: stopped after {limit} matching {sessions}; more may match (--limit N searches on)"
        );
    }
    Ok(())
}

/// The label a match is shown with: the session's latest title (through
/// the catalog's label rule for a local one, `local`), else its id; made
/// safe, as a title is session text (SPEC §6).
pub fn label(catalog: &Catalog, local: Option<RecordId>, record: &SessionRecord) -> String {
    let label = match local {
        Some(id) => catalog.label(id, |source| {
            catalog.read_title(catalog.get(source)).ok().flatten()
        }),
        None => catalog
            .read_title(record)
            .ok()
            .flatten()
            .unwrap_or_else(|| record.id.clone()),
    };
    session_ref_core::escape::safe_label(&label).into_owned()
}

/// One session in the text output: a heading (label · store · cwd · age),
/// its mention, and its first hits (their matches highlighted when `color`).
fn text_entry(
    record: &SessionRecord,
    label: &str,
    found: &SessionMatch,
    now: i64,
    home: Option<&str>,
    color: bool,
) -> String {
    let mut heading = vec![
        display::one_line(&display::printable(label), TEXT_WIDTH),
        match &record.host {
            Some(host) => format!("{}@{}", record.kind.as_str(), display::printable(host)),
            None => record.kind.as_str().to_owned(),
        },
    ];
    if let Some(cwd) = &record.cwd {
        heading.push(display::printable(&display::short_path(cwd, home)));
    }
    heading.push(display::age(&record.created_at, now));
    let mut text = heading.join(" · ");
    text.push('\n');
    text.push_str("  ");
    text.push_str(&display::printable(
        &session_ref_core::mention::format_mention(&record.id, Some(label)),
    ));
    text.push('\n');
    for hit in found.hits.iter().take(TEXT_HITS) {
        let mut role = hit.role.as_str().to_owned();
        if hit.checkpoint {
            role.push_str(" (compaction summary)");
        }
        if hit.before_compaction {
            role.push_str(&format!(" ({BEFORE_COMPACTION})"));
        }
        text.push_str(&format!(
            "  #{} {role}: {}\n",
            hit.message,
            snippet_line(&hit.snippet, &hit.highlights, color)
        ));
    }
    if found.hits.len() > TEXT_HITS {
        text.push_str(&format!(
            "  … {} more matching messages\n",
            found.hits.len() - TEXT_HITS
        ));
    }
    text
}

/// Starts a highlighted match on a terminal (bold yellow, as the picker's).
const MATCH_ON: &str = "\u{1b}[1;33m";
/// Ends it.
const MATCH_OFF: &str = "\u{1b}[0m";

/// A hit's snippet as printed: cut to [`TEXT_WIDTH`] columns, every
/// character printable ([`display::safe_char`]: a remote's snippet is as
/// untrusted as a log), and with `color` its `highlights` (byte ranges of
/// `snippet`) wrapped in [`MATCH_ON`]/[`MATCH_OFF`], the only escape
/// sequences written.
fn snippet_line(snippet: &str, highlights: &[std::ops::Range<usize>], color: bool) -> String {
    let cut = display::truncate_width(snippet, TEXT_WIDTH);
    // `cut` is the snippet, or a prefix of it and `…`.
    let kept = if cut == snippet {
        snippet.len()
    } else {
        cut.len() - '…'.len_utf8()
    };
    let mut out = String::with_capacity(cut.len() + 16);
    let mut on = false;
    for (at, c) in cut.char_indices() {
        let inside = color && at < kept && highlights.iter().any(|r| r.contains(&at));
        if inside != on {
            out.push_str(if inside { MATCH_ON } else { MATCH_OFF });
            on = inside;
        }
        out.push(display::safe_char(c));
    }
    if on {
        out.push_str(MATCH_OFF);
    }
    out
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_are_highlighted_only_with_color_and_session_text_stays_escaped() {
        let snippet = "retry the \u{1b}[31mwebhook with backoff";
        let start = snippet.find("webhook").unwrap();
        let word = start..start + "webhook".len();
        let highlights = std::slice::from_ref(&word);
        let plain = snippet_line(snippet, highlights, false);
        assert!(!plain.contains('\u{1b}'), "{plain:?}");
        assert_eq!(plain, "retry the  [31mwebhook with backoff");
        let colored = snippet_line(snippet, highlights, true);
        assert_eq!(
            colored,
            format!("retry the  [31m{MATCH_ON}webhook{MATCH_OFF} with backoff")
        );
        // The only escapes are ours: the log's ESC became a space.
        assert_eq!(colored.matches('\u{1b}').count(), 2);
        // A match the width cuts ends before the `…`.
        let long = format!("{} needle", "x".repeat(TEXT_WIDTH));
        let at = long.find("needle").unwrap();
        let across = at - 3..at + 6;
        let cut = snippet_line(&long, std::slice::from_ref(&across), true);
        assert!(cut.ends_with(&format!("{MATCH_OFF}…")), "{cut:?}");
    }
}
