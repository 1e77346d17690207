//! `session-ref remote serve`: the server end of the exchange (protocol
//! in [`session_ref_stores::remote`], the search answer
//! [`crate::search::wire`]). It answers one client's requests on stdin
//! with lines on stdout, for this machine's sessions only: a server never
//! asks remotes of its own (one hop). Search answers come from the one
//! search pipeline ([`crate::search::pipeline`]).

use std::io::Write;
use std::path::Path;
use std::sync::atomic::AtomicBool;

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
use session_ref_stores::remote::{read_bounded_line, Hello, WireFold, WireListing, WireSession};
use session_ref_stores::search::index::Index;
use session_ref_stores::Catalog;

/// The longest request a server accepts: requests are small.
const MAX_REQUEST: usize = 1 << 20;

/// `session-ref remote serve`: answer one client's requests on stdin with
/// lines on stdout until stdin ends. The catalog is listed on the first
/// request that needs it (the hello goes out at once, so the client's
/// connect timeout measures ssh, not listing), with `load_catalog` (the
/// program's one way of listing a run's stores, given by the caller).
pub fn serve(config: &Config, load_catalog: impl FnOnce(&Config) -> Catalog) -> Result<()> {
    let mut load_catalog = Some(load_catalog);
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
            None => {
                let load = load_catalog.take().expect("the catalog is loaded once");
                catalog.insert(load(config))
            }
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
