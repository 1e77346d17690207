//! The one conversation-search pipeline: every front-end that searches
//! (the `search` command, the picker's search mode, MCP `search_sessions`,
//! `remote serve` answering another machine) runs [`run`], or for the
//! picker's one-host-at-a-time asks [`Remote::search`], and only formats
//! what it emits.
//!
//! Values in, typed values out: a [`Search`] names the catalog to read
//! with, the sessions to search in order, the parsed [`Query`], where each
//! session's text comes from ([`Source`]: the search index or the logs),
//! the other machines to ask, the most matches wanted and a cancel flag.
//! Each match goes to the caller's `emit` as an [`Event`] the moment it is
//! known, and [`run`] returns what the search saw ([`Outcome`]). Nothing
//! here prints, formats for a person, reads the environment or parses a
//! command line: of the program it imports only the search's own query,
//! hits, scan and wire modules (besides the core, the stores, std, and
//! rayon, crossbeam-channel and serde_json), so that it can move into an
//! engine crate below every front-end as it is.
//!
//! # Invariants
//!
//! - **Order.** This machine's matches come first, in the order of
//!   `records` (newest first, as the caller listed them), each emitted as
//!   soon as its batch is decided ([`scan::stream`]); then each remote's
//!   matches, host by host in the order the hosts answer, each host's in
//!   the order it sent them.
//! - **Limit.** At most `limit` matches are emitted in all, local and
//!   remote together. [`Outcome::matched`] counts every match emitted,
//!   wherever it came from: a search whose only matches are remote found
//!   something (the command exits 0 on it, as grep does).
//! - **Remotes search alongside.** Every host is asked before the local
//!   scan starts, each on a thread of its own (a slow host holds no
//!   thread of rayon's pool), with its own index; its sessions are never
//!   read here. A host that cannot answer is one [`Event::RemoteFailed`],
//!   never a failure of the search. Waiting for answers stops on the
//!   cancel flag, at the limit, or when `emit` says stop; answers still
//!   to come are dropped.
//! - **Stop.** `emit` returning `false` stops the search at once (its
//!   reader went away); the cancel flag stops it between sessions and
//!   sets [`Outcome::cancelled`].
//! - **The index is a cache.** With [`Source::Index`], a session whose
//!   log changed is read again (only its appended lines when it can) and
//!   what was read is remembered in the index in memory; writing it out
//!   ([`Index::commit`]) is the caller's, once it knows which sessions
//!   the run listed.
//! - **Untrusted remotes.** A remote's hits keep only highlights that are
//!   ranges of their snippet ([`crate::search::wire::WireMatch::into_parts`]);
//!   its text is escaped by whoever shows it, as every session text is.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::search::hits::{self, SessionMatch};
use crate::search::query::{Query, Syntax};
use crate::search::scan::{self, Outcome};
use crate::search::wire::WireMatch;
use session_ref_stores::model::SessionRecord;
use session_ref_stores::remote::{RemoteHost, Remotes};
use session_ref_stores::search::index::{self, Index, Lookup};
use session_ref_stores::{Catalog, ReadError, RecordId};

/// How often a wait for remote answers looks at the cancel flag.
const CANCEL_POLL: Duration = Duration::from_millis(50);

/// Where the text of each local session comes from.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// Read from its log.
    Logs,
    /// From the search index, when it holds the current version of the
    /// log; else read (and remembered in it).
    Index(&'a Index),
}

/// What one host answered a search: its matching sessions (records named
/// `ID@HOST`), or why it could not search (its host named first).
pub type RemoteAnswer = Result<Vec<(SessionRecord, SessionMatch)>, String>;

/// Other machines a search asks: the run's client ([`Remotes`]), or a
/// stand-in in tests.
pub trait Remote: Send + Sync {
    /// The hosts, as configured.
    fn host_names(&self) -> Vec<String>;

    /// Ask `host` to search its own sessions for `query` (its text and
    /// syntax, as `session-ref search` takes them), at most `limit`
    /// matching sessions. Blocks until it answers or the client's
    /// deadline passes.
    fn search(&self, host: &str, query: &Query, limit: usize) -> RemoteAnswer;
}

impl Remote for Remotes {
    fn host_names(&self) -> Vec<String> {
        self.hosts().iter().map(|h| h.host.clone()).collect()
    }

    fn search(&self, host: &str, query: &Query, limit: usize) -> RemoteAnswer {
        let host = self
            .hosts()
            .iter()
            .find(|h| h.host == host)
            .ok_or_else(|| format!("{host}: not a configured remote"))?;
        search_host(self, host, query, limit)
    }
}

/// Ask `host` through `remotes` to search with its own index for `query`,
/// at most `limit` matching sessions: its matches, each with a record
/// named `ID@HOST` (a session of a kind this version does not read is
/// left out), or why it could not.
pub fn search_host(
    remotes: &Remotes,
    host: &RemoteHost,
    query: &Query,
    limit: usize,
) -> RemoteAnswer {
    let regex = query.syntax() == Syntax::Regex;
    let args = serde_json::json!({"query": query.text(), "regex": regex, "limit": limit});
    let answer = remotes.ask(host, "search", args)?;
    let found = serde_json::from_value::<Vec<WireMatch>>(answer)
        .map_err(|e| format!("{}: an answer that does not parse: {e}", host.host))?;
    Ok(found
        .into_iter()
        .filter_map(|m| {
            let (session, matched) = m.into_parts();
            remotes.record_of(host, session).ok().map(|r| (r, matched))
        })
        .collect())
}

/// One search: what to search, how, and how much.
pub struct Search<'a> {
    /// What sessions are read with (its caches; the records need not be
    /// its own).
    pub catalog: &'a Catalog,
    /// This machine's sessions to search, in the order matches are wanted.
    pub records: &'a [&'a SessionRecord],
    /// The query.
    pub query: &'a Query,
    /// Where the sessions' text comes from.
    pub source: Source<'a>,
    /// Other machines to ask (`None`: none).
    pub remotes: Option<Arc<dyn Remote>>,
    /// A session left out of the remotes' matches (the one asking).
    pub except: Option<&'a str>,
    /// The most matches emitted, local and remote together.
    pub limit: usize,
    /// Stops the search.
    pub cancel: &'a AtomicBool,
}

/// A fact a search emits as it goes.
#[derive(Debug)]
pub enum Event<'a> {
    /// A session of this machine matches.
    Local {
        /// Its position in [`Search::records`].
        position: usize,
        /// The session.
        record: &'a SessionRecord,
        /// Its hits.
        found: SessionMatch,
    },
    /// A session of another machine matches.
    Remote {
        /// The session, named `ID@HOST`.
        record: SessionRecord,
        /// Its hits, as the remote sent them (checked).
        found: SessionMatch,
    },
    /// A host could not search.
    RemoteFailed {
        /// The host, as configured.
        host: String,
        /// Why (the host named first).
        why: String,
    },
}

/// The other machines `catalog`'s caches are configured with, when any.
pub fn remotes_of(catalog: &Catalog) -> Option<Arc<dyn Remote>> {
    let remotes = catalog.caches().get::<Remotes>();
    if remotes.hosts().is_empty() {
        return None;
    }
    Some(remotes)
}

/// This machine's sessions of `catalog` in its order, but `except` (the
/// session asking): what the search command and MCP search.
pub fn local_records(catalog: &Catalog, except: Option<&str>) -> Vec<RecordId> {
    catalog
        .order()
        .iter()
        .copied()
        .filter(|&id| {
            let record = catalog.get(id);
            Some(record.id.as_str()) != except && record.host.is_none()
        })
        .collect()
}

/// Run `search`, passing each fact to `emit` (which returns whether to go
/// on): what the search saw. See the module docs for the order, the limit
/// and when it stops.
pub fn run<'a>(search: &Search<'a>, emit: &mut dyn FnMut(Event<'a>) -> bool) -> Outcome {
    let limit = search.limit;
    // Other machines search with their own indexes, meanwhile.
    let answers = search
        .remotes
        .as_ref()
        .map(|remotes| ask_all(remotes, search.query, limit));
    let decide_one =
        |record: &SessionRecord| decide(search.catalog, search.source, search.query, record);
    let mut emitted = 0;
    let mut stopped = false;
    let records = search.records;
    let mut outcome = scan::stream(
        records,
        limit,
        search.cancel,
        &decide_one,
        &mut |i, found| {
            emitted += 1;
            let go_on = emit(Event::Local {
                position: i,
                record: records[i],
                found,
            });
            stopped = !go_on;
            go_on
        },
    );
    // Then each remote's matches, as its answer arrives, within the limit.
    if let Some(answers) = answers {
        loop {
            if emitted >= limit || outcome.cancelled || stopped {
                break;
            }
            let answer = match answers.recv_timeout(CANCEL_POLL) {
                Ok(answer) => answer,
                Err(crossbeam_channel::RecvTimeoutError::Timeout) => {
                    outcome.cancelled = search.cancel.load(Ordering::Relaxed);
                    continue;
                }
                Err(crossbeam_channel::RecvTimeoutError::Disconnected) => break,
            };
            match answer {
                (_, Ok(found)) => {
                    for (record, found) in found {
                        if emitted >= limit || Some(record.id.as_str()) == search.except {
                            continue;
                        }
                        emitted += 1;
                        if !emit(Event::Remote { record, found }) {
                            stopped = true;
                            break;
                        }
                    }
                }
                (host, Err(why)) => stopped = !emit(Event::RemoteFailed { host, why }),
            }
        }
    }
    // What matched here and on the other machines.
    outcome.matched = emitted;
    outcome
}

/// Ask every host of `remotes` to search, each on a thread of its own:
/// each host's answer as it comes; the receiver ends when all answered.
fn ask_all(
    remotes: &Arc<dyn Remote>,
    query: &Query,
    limit: usize,
) -> crossbeam_channel::Receiver<(String, RemoteAnswer)> {
    let (tx, rx) = crossbeam_channel::unbounded();
    let query = Arc::new(query.clone());
    for host in remotes.host_names() {
        let (sender, remotes, query) = (tx.clone(), Arc::clone(remotes), Arc::clone(&query));
        let asked = host.clone();
        let spawned = std::thread::Builder::new()
            .name("remote-search".to_owned())
            .spawn(move || {
                let answer = remotes.search(&asked, &query, limit);
                let _ = sender.send((asked, answer));
            });
        if let Err(e) = spawned {
            let why = format!("{host}: cannot start a search: {e}");
            let _ = tx.send((host, Err(why)));
        }
    }
    rx
}

/// Decide `record` from `source`: its match, `None` when it does not match.
pub fn decide(
    catalog: &Catalog,
    source: Source<'_>,
    query: &Query,
    record: &SessionRecord,
) -> Result<Option<SessionMatch>, ReadError> {
    match source {
        Source::Index(index) => decide_indexed(index, catalog, query, record),
        Source::Logs => {
            scan::read_messages(catalog, record).map(|m| hits::match_session(query, &m))
        }
    }
}

/// Decide `record` from `index` when it holds the current version of the
/// log, else from the log (only its appended lines when the index holds
/// an earlier version it can go on from), remembering what was read for
/// the index. A word query is first looked for in the raw journal, so
/// sessions without every word are passed over without decoding (unless a
/// word holds a line break, which may join two pieces of one message); a
/// regex is matched per message only (its anchors mean message
/// boundaries).
fn decide_indexed(
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

#[cfg(test)]
mod tests {
    use super::*;
    use session_ref_stores::StoreRoots;
    use std::sync::Mutex;

    /// A stand-in for other machines: each host answers from a table, or
    /// fails.
    struct Hosts {
        answers: Vec<(String, std::result::Result<Vec<&'static str>, String>)>,
        asked: Mutex<Vec<(String, String, usize)>>,
    }

    impl Remote for Hosts {
        fn host_names(&self) -> Vec<String> {
            self.answers.iter().map(|(h, _)| h.clone()).collect()
        }

        fn search(&self, host: &str, query: &Query, limit: usize) -> RemoteAnswer {
            self.asked
                .lock()
                .unwrap()
                .push((host.to_owned(), query.text().to_owned(), limit));
            let (_, answer) = self.answers.iter().find(|(h, _)| h == host).unwrap();
            let ids = answer.clone()?;
            Ok(ids
                .into_iter()
                .map(|id| {
                    let mut record = SessionRecord::new(
                        session_ref_stores::kinds::native::KIND,
                        Arc::from(std::path::Path::new("/r")),
                        format!("{host}:/r/{id}.jsonl").into(),
                        format!("{id}@{host}"),
                        None,
                        String::new(),
                    );
                    record.host = Some(Arc::from(host));
                    let found = SessionMatch {
                        hits: Vec::new(),
                        matches: 1,
                        text_bytes: 10,
                    };
                    (record, found)
                })
                .collect())
        }
    }

    fn fixture_catalog() -> Catalog {
        let roots = StoreRoots::new().with(
            session_ref_stores::kinds::native::KIND,
            // The workspace's fixtures: this crate lives two folders down.
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../tests/fixtures/search/hydra"
            ),
        );
        Catalog::load(&roots)
    }

    fn hosts(answers: Vec<(&str, std::result::Result<Vec<&'static str>, String>)>) -> Arc<Hosts> {
        Arc::new(Hosts {
            answers: answers
                .into_iter()
                .map(|(h, a)| (h.to_owned(), a))
                .collect(),
            asked: Mutex::default(),
        })
    }

    /// What a search emits, as `L:ID`, `R:ID` and `F:HOST`, and its outcome.
    fn emitted(search: &Search<'_>) -> (Vec<String>, Outcome) {
        let mut seen = Vec::new();
        let outcome = run(search, &mut |event| {
            seen.push(match event {
                Event::Local { record, .. } => format!("L:{}", record.id),
                Event::Remote { record, .. } => format!("R:{}", record.id),
                Event::RemoteFailed { host, .. } => format!("F:{host}"),
            });
            true
        });
        (seen, outcome)
    }

    #[test]
    fn matches_found_only_on_a_remote_are_matches() {
        let catalog = fixture_catalog();
        let ids = local_records(&catalog, None);
        let records: Vec<&SessionRecord> = ids.iter().map(|&id| catalog.get(id)).collect();
        let nowhere_here = Query::parse("zqxj-nowhere-in-the-fixtures", Syntax::Words).unwrap();
        let remotes = hosts(vec![("devbox", Ok(vec!["a", "b"]))]);
        let cancel = AtomicBool::new(false);
        let search = Search {
            catalog: &catalog,
            records: &records,
            query: &nowhere_here,
            source: Source::Logs,
            remotes: Some(remotes.clone()),
            except: Some("b@devbox"),
            limit: 10,
            cancel: &cancel,
        };
        let (seen, outcome) = emitted(&search);
        assert_eq!(seen, ["R:a@devbox"], "the asking session is left out");
        assert_eq!(outcome.matched, 1, "a remote match is a match");
        assert_eq!(
            *remotes.asked.lock().unwrap(),
            [(
                "devbox".to_owned(),
                "zqxj-nowhere-in-the-fixtures".to_owned(),
                10
            )]
        );
    }

    #[test]
    fn local_matches_come_first_and_the_limit_counts_both() {
        let catalog = fixture_catalog();
        let ids = local_records(&catalog, None);
        let records: Vec<&SessionRecord> = ids.iter().map(|&id| catalog.get(id)).collect();
        let query = Query::parse("the", Syntax::Words).unwrap();
        let cancel = AtomicBool::new(false);
        let mut search = Search {
            catalog: &catalog,
            records: &records,
            query: &query,
            source: Source::Logs,
            remotes: None,
            except: None,
            limit: usize::MAX,
            cancel: &cancel,
        };
        let (local, _) = emitted(&search);
        assert!(!local.is_empty(), "the fixtures say `the`");
        search.remotes = Some(hosts(vec![("devbox", Ok(vec!["a", "b", "c"]))]));
        search.limit = local.len() + 2;
        let (seen, outcome) = emitted(&search);
        let mut expected = local.clone();
        expected.extend(["R:a@devbox".to_owned(), "R:b@devbox".to_owned()]);
        assert_eq!(seen, expected);
        assert_eq!(outcome.matched, local.len() + 2);
    }

    #[test]
    fn a_host_that_cannot_search_is_one_event() {
        let catalog = fixture_catalog();
        let query = Query::parse("anything", Syntax::Words).unwrap();
        let cancel = AtomicBool::new(false);
        let search = Search {
            catalog: &catalog,
            records: &[],
            query: &query,
            source: Source::Logs,
            remotes: Some(hosts(vec![(
                "ci",
                Err("ci: unreachable after 3 s".to_owned()),
            )])),
            except: None,
            limit: 10,
            cancel: &cancel,
        };
        let (seen, outcome) = emitted(&search);
        assert_eq!(seen, ["F:ci"]);
        assert_eq!(outcome.matched, 0);
    }

    #[test]
    fn the_index_and_the_logs_give_the_same_matches() {
        let catalog = fixture_catalog();
        let ids = local_records(&catalog, None);
        let records: Vec<&SessionRecord> = ids.iter().map(|&id| catalog.get(id)).collect();
        let query = Query::parse("the", Syntax::Words).unwrap();
        let cancel = AtomicBool::new(false);
        let cache = tempfile::tempdir().unwrap();
        let index = Index::open(cache.path());
        let mut search = Search {
            catalog: &catalog,
            records: &records,
            query: &query,
            source: Source::Logs,
            remotes: None,
            except: None,
            limit: usize::MAX,
            cancel: &cancel,
        };
        let (from_logs, _) = emitted(&search);
        search.source = Source::Index(&index);
        let (from_index, _) = emitted(&search);
        assert_eq!(from_logs, from_index);
    }
}
