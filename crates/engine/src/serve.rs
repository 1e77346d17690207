//! The answering side of the remote protocol (`session-ref remote serve`):
//! a request line in, its answer line out, for this machine's sessions
//! only (a server never asks remotes of its own: one hop). The program
//! reads stdin and writes stdout; everything between is here.
//!
//! The protocol's types are the stores' ([`session_ref_stores::remote`]:
//! the hello, `list`, `fold`, the line bound) and the search answer's
//! [`crate::search::wire`]. Requests are `{"id":N,"op":"list"}`,
//! `{"id":N,"op":"fold","session":ID}` and `{"id":N,"op":"search",
//! "query":TEXT,"regex":BOOL,"limit":N}`; an answer is `{"id":N,"ok":…}`
//! or `{"id":N,"error":{"code":CODE,"message":TEXT}}`. Search answers come
//! from the one search pipeline ([`crate::search::pipeline`]).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use base64::Engine as _;
use rayon::prelude::*;
use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::search::pipeline::{self, Event, Search, Source};
use crate::search::query::{Query, Syntax};
use crate::search::wire::WireMatch;
use session_ref_core::json as js;
use session_ref_stores::index::journal::{self, Journal};
use session_ref_stores::model::SessionRecord;
use session_ref_stores::remote::{Hello, WireFold, WireListing, WireSession};
use session_ref_stores::search::index::Index;
use session_ref_stores::Catalog;
use session_ref_stores::StoreRoots;

/// The longest request a server accepts: requests are small.
pub const MAX_REQUEST: usize = 1 << 20;

/// What a request asks.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// Every local session with its title and last activity.
    List,
    /// The fold of one session (`None`: the request named none).
    Fold(Option<String>),
    /// The sessions matching a query, newest first.
    Search {
        /// The query's text.
        query: String,
        /// Whether it is one regular expression.
        regex: bool,
        /// The most sessions answered.
        limit: usize,
    },
    /// An operation this server does not know (empty: none given).
    Unknown(String),
}

/// One request: its id (echoed in the answer) and what it asks.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The client's id of the request.
    pub id: Option<u64>,
    /// What it asks.
    pub op: Op,
}

impl Request {
    /// The request of one line, `None` when the line is not JSON.
    pub fn parse(line: &[u8]) -> Option<Request> {
        let request: Value = serde_json::from_slice(line).ok()?;
        let text = |key: &str| request.get(key).and_then(Value::as_str);
        let op = match text("op") {
            Some("list") => Op::List,
            Some("fold") => Op::Fold(text("session").map(str::to_owned)),
            Some("search") => Op::Search {
                query: text("query").unwrap_or("").to_owned(),
                regex: request.get("regex").and_then(Value::as_bool) == Some(true),
                limit: request
                    .get("limit")
                    .and_then(Value::as_u64)
                    .map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX)),
            },
            other => Op::Unknown(other.unwrap_or("").to_owned()),
        };
        Some(Request {
            id: request.get("id").and_then(Value::as_u64),
            op,
        })
    }
}

/// The answer to one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The request's id.
    pub id: Option<u64>,
    /// What it answers, or why it could not.
    pub result: Result<Value>,
}

impl Response {
    /// The answer as its line (without the newline).
    pub fn to_line(&self) -> String {
        match &self.result {
            Ok(ok) => json!({"id": self.id, "ok": ok}).to_string(),
            Err(e) => error_line(self.id, e),
        }
    }
}

fn error_line(id: Option<u64>, error: &Error) -> String {
    json!({"id": id, "error": {"code": error.code().as_str(), "message": error.to_string()}})
        .to_string()
}

/// The first line a server sends: its hello.
pub fn hello_line() -> String {
    serde_json::to_string(&Hello::ours()).unwrap_or_default()
}

/// The line answering a request longer than [`MAX_REQUEST`] (`why`); the
/// connection then ends (the rest of that line cannot be told from the
/// next request).
pub fn refusal_line(why: &str) -> String {
    error_line(None, &Error::InvalidConfig(why.to_owned()))
}

/// Answer `request` from `catalog` and, for search, `index` (the search
/// index of this machine, if it has one).
pub fn answer(catalog: &Catalog, index: Option<&Index>, request: &Request) -> Response {
    let result = match &request.op {
        Op::List => list(catalog).map(|listing| json!(listing)),
        Op::Fold(Some(session)) => fold(catalog, session).map(|folded| json!(folded)),
        Op::Fold(None) => Err(Error::InvalidReference("fold needs a session".into())),
        Op::Search {
            query,
            regex,
            limit,
        } => search(catalog, index, query, *regex, *limit).map(|found| json!(found)),
        Op::Unknown(op) => Err(Error::InvalidConfig(format!(
            "unknown request {}",
            js::quote(op, false)
        ))),
    };
    Response {
        id: request.id,
        result,
    }
}

/// One connection's service: the catalog, listed on the first request
/// that needs it (the hello goes out at once, so the client's connect
/// timeout measures ssh, not listing), and the search index, opened on
/// the first search.
pub struct Service<L: FnOnce() -> Catalog> {
    load: Option<L>,
    catalog: Option<Catalog>,
    index_dir: Option<PathBuf>,
    roots: StoreRoots,
    index: Option<Option<Index>>,
}

impl<L: FnOnce() -> Catalog> Service<L> {
    /// A service that lists its catalog with `load` (the program's one way
    /// of listing a run's stores) and searches through the index in
    /// `index_dir` over `roots`, if given.
    pub fn new(load: L, index_dir: Option<PathBuf>, roots: StoreRoots) -> Self {
        Service {
            load: Some(load),
            catalog: None,
            index_dir,
            roots,
            index: None,
        }
    }

    /// The line answering a request line.
    pub fn answer_line(&mut self, line: &[u8]) -> String {
        let Some(request) = Request::parse(line) else {
            return error_line(
                None,
                &Error::InvalidConfig("a request that is not JSON".into()),
            );
        };
        let catalog: &Catalog = match (&mut self.catalog, &mut self.load) {
            (Some(catalog), _) => catalog,
            (slot, load) => {
                let load = load.take().expect("the catalog is loaded once");
                slot.insert(load())
            }
        };
        let index = match &request.op {
            Op::Search { .. } => {
                let (dir, roots) = (&self.index_dir, &self.roots);
                self.index
                    .get_or_insert_with(|| {
                        dir.as_deref()
                            .map(|dir| Index::open_and_list(dir, catalog.caches(), roots).0)
                    })
                    .as_ref()
            }
            _ => None,
        };
        answer(catalog, index, &request).to_line()
    }

    /// At the end of input: the caches this connection filled are saved
    /// (the title index, the search index; a failure to write them loses
    /// nothing).
    pub fn finish(self) {
        let Some(catalog) = &self.catalog else {
            return;
        };
        catalog.save_index();
        if let Some(Some(index)) = self.index {
            let listed: Vec<&Path> = catalog.ordered().map(|r| r.path.as_path()).collect();
            let _ = index.commit(Some(&listed));
        }
    }
}

/// The sessions matching a search, newest first, each with its listing
/// entry and its hits: the search pipeline over every local session, no
/// remote asked (one hop).
fn search(
    catalog: &Catalog,
    index: Option<&Index>,
    text: &str,
    regex: bool,
    limit: usize,
) -> Result<Vec<WireMatch>> {
    let syntax = if regex { Syntax::Regex } else { Syntax::Words };
    let query =
        Query::parse(text, syntax).map_err(|e| Error::InvalidConfig(format!("search: {e}")))?;
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
        Error::ReadFailed(format!("unknown session {}", js::quote(session, false)))
    })?;
    let mut recorded = Journal::new(0);
    let captured_through_seq = catalog.fold_surface(record, &mut recorded)?;
    let bytes = journal::encode(&recorded.into_ops());
    Ok(WireFold {
        journal: base64::engine::general_purpose::STANDARD.encode(bytes),
        captured_through_seq,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_read_from_their_lines() {
        assert_eq!(Request::parse(b"{nope"), None);
        assert_eq!(
            Request::parse(br#"{"id":3,"op":"list"}"#),
            Some(Request {
                id: Some(3),
                op: Op::List
            })
        );
        assert_eq!(
            Request::parse(br#"{"id":4,"op":"fold"}"#).unwrap().op,
            Op::Fold(None)
        );
        assert_eq!(
            Request::parse(br#"{"op":"search","query":"a b","regex":true,"limit":2}"#),
            Some(Request {
                id: None,
                op: Op::Search {
                    query: "a b".into(),
                    regex: true,
                    limit: 2
                }
            })
        );
        assert_eq!(
            Request::parse(br#"{"id":1,"op":7}"#).unwrap().op,
            Op::Unknown(String::new())
        );
    }

    #[test]
    fn answers_carry_the_id_and_the_errors_code() {
        let catalog = Catalog::default();
        let unknown = Request::parse(br#"{"id":9,"op":"x\u0007"}"#).unwrap();
        assert_eq!(
            answer(&catalog, None, &unknown).to_line(),
            r#"{"id":9,"error":{"code":"SESSION_REFERENCE_INVALID_CONFIG","message":"unknown request \"x\\u0007\""}}"#
        );
        let fold = Request::parse(br#"{"id":1,"op":"fold","session":"gone"}"#).unwrap();
        let line = answer(&catalog, None, &fold).to_line();
        assert!(line.contains("SESSION_REFERENCE_READ_FAILED"), "{line}");
        let list = Request::parse(br#"{"id":2,"op":"list"}"#).unwrap();
        assert_eq!(
            answer(&catalog, None, &list).to_line(),
            r#"{"id":2,"ok":{"sessions":[],"unreadable":[],"roots":[]}}"#
        );
        let bad = Request::parse(br#"{"id":5,"op":"search","query":""}"#).unwrap();
        let line = answer(&catalog, None, &bad).to_line();
        assert!(line.contains("search: "), "{line}");
    }
}
