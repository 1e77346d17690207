//! `session-ref search`: stream matching sessions to stdout, newest first,
//! as they are found. Unlike the other commands, whose output is written
//! once at the end, results are printed one session at a time, so a search
//! over a large store shows its first answers at once and can be stopped.

use std::io::{self, Write};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crate::config::Config;
use crate::display;
use crate::error::{Error, Result};
use crate::search::hits::{self, SessionMatch};
use crate::search::query::{Query, Syntax};
use crate::search::{scan, Found, BEFORE_COMPACTION};
use session_ref_stores::model::SessionRecord;
use session_ref_stores::search::index::{self, Index, Lookup};
use session_ref_stores::{Catalog, ReadError, RecordId};

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

/// Run `search` over `catalog`, writing to `out`: what the scan saw (how
/// many matched, whether it stopped at the limit). Stops early on `cancel`
/// (then fails with `SESSION_REFERENCE_CANCELLED`) or when `out` is closed.
pub fn run(
    config: &Config,
    catalog: &Catalog,
    request: &Request,
    index: Option<Index>,
    cancel: &AtomicBool,
    out: &mut dyn Write,
) -> Result<scan::Outcome> {
    let syntax = if request.regex {
        Syntax::Regex
    } else {
        Syntax::Words
    };
    let (limit, json) = (request.limit, request.json);
    let query = Query::parse(&request.query, syntax)
        .map_err(|e| Error::invalid_config(format!("search: {e}")).usage())?;
    let target = config.target.session_id.as_deref();
    // Other machines search with their own indexes, meanwhile; their
    // sessions are left out of this machine's scan.
    let remotes = catalog
        .caches()
        .get::<session_ref_stores::remote::Remotes>();
    let remote_results = (!remotes.hosts().is_empty()).then(|| {
        crate::remote::search_remotes(Arc::clone(&remotes), &request.query, request.regex, limit)
    });
    let ids: Vec<RecordId> = catalog
        .order()
        .iter()
        .copied()
        .filter(|&id| Some(catalog.get(id).id.as_str()) != target && catalog.get(id).host.is_none())
        .collect();
    let records: Vec<&SessionRecord> = ids.iter().map(|&id| catalog.get(id)).collect();
    let now = unix_now();
    let home = std::env::var("HOME").ok();
    let mut failed: Option<io::Error> = None;
    let decide = |record: &SessionRecord| match &index {
        Some(index) => decide_indexed(index, catalog, &query, record),
        None => scan::read_messages(catalog, record).map(|m| hits::match_session(&query, &m)),
    };
    let entry = |record: &SessionRecord, label: String, found: &SessionMatch| {
        // A title is session text: shown and cited made safe (SPEC §6).
        let label = session_ref_core::escape::safe_label(&label).into_owned();
        if json {
            let mut line = serde_json::to_string(&Found::new(record, label, found))
                .expect("search results serialize");
            line.push('\n');
            line
        } else {
            text_entry(record, &label, found, now, home.as_deref(), request.color)
        }
    };
    let mut emitted = 0;
    let mut stopped = false;
    let mut write = |text: String| match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => true,
        Err(e) => {
            failed = Some(e);
            false
        }
    };
    let mut outcome = scan::stream(&records, limit, cancel, &decide, &mut |i, found| {
        let record = records[i];
        let label = catalog.label(ids[i], |source| {
            catalog.read_title(catalog.get(source)).ok().flatten()
        });
        emitted += 1;
        let written = write(entry(record, label, &found));
        stopped = !written;
        written
    });
    // Then each remote's matches, as its answer arrives, within the limit.
    if let Some(results) = remote_results {
        for answer in results.iter() {
            if emitted >= limit || outcome.cancelled || stopped {
                break;
            }
            match answer {
                Ok(found) => {
                    for (record, matched) in found {
                        if emitted >= limit || Some(record.id.as_str()) == target {
                            continue;
                        }
                        let label = catalog
                            .read_title(&record)
                            .ok()
                            .flatten()
                            .unwrap_or_else(|| record.id.clone());
                        emitted += 1;
                        if !write(entry(&record, label, &matched)) {
                            stopped = true;
                            break;
                        }
                    }
                }
                Err((host, why)) => eprintln!(
                    "session-ref: warning: cannot search {}: {}",
                    display::escape_unsafe(&host),
                    display::escape_unsafe(&why)
                ),
            }
        }
    }
    // What matched here and on the other machines: a search whose only
    // hits are remote found something.
    outcome.matched = emitted;
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
    match failed {
        Some(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            return Err(Error::read_failed(format!("cannot write to stdout: {e}")))
        }
        _ => {}
    }
    if outcome.cancelled {
        return Err(Error::cancelled());
    }
    if outcome.stopped_at_limit {
        let sessions = if limit == 1 { "session" } else { "sessions" };
        eprintln!(
            "session-ref: note: stopped after {limit} matching {sessions}; more may match (--limit N searches on)"
        );
    }
    Ok(outcome)
}

/// Decide `record` from `index` when it holds the current version of the
/// log, else from the log (only its appended lines when the index holds
/// an earlier version it can go on from), remembering what was read for
/// the index. A word query is first looked for in the raw journal, so
/// sessions without every word are passed over without decoding (unless a
/// word holds a line break, which may join two pieces of one message); a
/// regex is matched per message only (its anchors mean message
/// boundaries).
pub fn decide_indexed(
    index: &Index,
    catalog: &Catalog,
    query: &Query,
    record: &SessionRecord,
) -> Result<Option<SessionMatch>, ReadError> {
    let indexed = match index.lookup(record) {
        Ok(Lookup::Current(indexed)) => indexed,
        Ok(Lookup::Stale(stale)) => index.read_stale(catalog, record, stale)?,
        Err(e) => return Err(ReadError::io(&record.path, &e)),
    };
    let literals = query.literals();
    let literal = !literals.is_empty() && !literals.iter().any(|l| l.contains('\n'));
    if literal && !(0..query.term_count()).all(|t| query.term_in(t, &indexed.journal)) {
        return Ok(None);
    }
    match index::messages(&indexed.journal, indexed.chosen) {
        Some(messages) => Ok(hits::match_session(query, &messages)),
        None => scan::read_messages(catalog, record).map(|m| hits::match_session(query, &m)),
    }
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
