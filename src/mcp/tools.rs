//! The MCP tools: `list_sessions`, `search_sessions` and `read_session`,
//! each one blocking function of the listing and the call's arguments.
//!
//! Every tool is read-only (annotated `readOnlyHint: true`, which Codex
//! 0.171 takes as leave to run it without asking) and answers with JSON as
//! both a text block and `structuredContent`, except `read_session`, whose
//! text block is the snapshot itself, exactly as `preview --json` gives its
//! `context`, so the model reads it as the agent would have received it.
//! `read_session`'s structured content is its stats (`preview --json`'s
//! `reference`), and never the snapshot; Claude Code and Codex, which hand
//! the model the structured content alone when there is one, get none
//! (see [`super::server::STRUCTURED_ONLY`]).
//!
//! A failure the model can act on (an unknown session, a bad regex, a
//! budget too small) is a tool result with `isError: true` naming what was
//! wrong, never a protocol error.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::config::{self, Config, Limits};
use crate::error::{Error, Result};
use crate::search::Found;
use session_ref_core::{json as js, mention};
use session_ref_engine::order::SortBy;
use session_ref_engine::rank::Query;
use session_ref_engine::Engine;
use session_ref_stores::RecordId;

use super::sessions::{Listing, Sessions};

/// `list_sessions`'s default `limit`.
pub const LIST_LIMIT: usize = 20;
/// `search_sessions`'s default `limit`.
pub const SEARCH_LIMIT: usize = 10;
/// The most sessions one call lists.
pub const MOST: usize = 500;
/// The longest `query` a tool or the `cite` prompt takes, in bytes: a
/// picker query is a few words, and ranking's cost grows with its terms
/// (a 100 KB query of 50,000 terms kept a core busy for two minutes).
pub const MAX_QUERY_BYTES: usize = 1024;
/// The most terms (alternatives included) of a `list_sessions` or `cite`
/// query.
pub const MAX_QUERY_TERMS: usize = 32;
/// The longest `cwd` taken, in bytes (Linux's `PATH_MAX`).
pub const MAX_CWD_BYTES: usize = 4096;

/// What a tool call answers: the text block, the structured content, and
/// whether it is an error result.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The one text block.
    pub text: String,
    /// `structuredContent`.
    pub structured: Value,
    /// `isError`.
    pub is_error: bool,
}

impl Answer {
    /// JSON as both the text block and the structured content.
    fn json(value: Value) -> Answer {
        Answer {
            text: js::stringify_value(&value),
            structured: value,
            is_error: false,
        }
    }

    /// An error result saying `session-ref: CODE: message`.
    pub fn error(error: &Error) -> Answer {
        Answer {
            text: error.stderr_line(),
            structured: json!({"error": {
                "code": error.code.as_str(),
                "message": error.message_for_person(),
            }}),
            is_error: true,
        }
    }
}

/// The largest snapshot, in bytes, a client takes whole as one text block
/// while its cap is not raised (AGENTS.md: Codex 0.171 ~47,900
/// characters, Gemini CLI 0.61 ~39,950 with its `<untrusted_context>`
/// wrapper; a snapshot's text runs a few hundred bytes over its budget, and
/// has no more characters than bytes). Claude Code's cap is lifted by
/// `read_session`'s `_meta` instead ([`definitions`]).
fn client_cap(client: &str) -> Option<usize> {
    match client {
        "codex-mcp-client" => Some(47_000),
        "gemini-cli-mcp-client" => Some(39_000),
        _ => None,
    }
}

/// The largest `max_bytes` a `read_session` call of `client` gets, in
/// bytes; a larger one is clamped to it, as `limit` is to [`MOST`]. Given
/// `--max-reference-bytes` (which also sets the default `budget`), that
/// value: the user raised the agent's cap with it. Otherwise 65,536, as
/// for `prepare`, but no more than the client takes whole
/// ([`client_cap`]), and never below the default `budget`.
pub fn most_bytes(config: &Config, budget: usize, client: &str) -> usize {
    let configured = config.limits.max_reference_bytes;
    if configured == budget {
        return budget;
    }
    let most = configured.max(budget);
    client_cap(client)
        .map_or(most, |cap| cap.min(most))
        .max(budget)
}

/// Whether a query is short enough to rank or search: at most
/// [`MAX_QUERY_BYTES`] and, when `ranked` (the picker's syntax),
/// [`MAX_QUERY_TERMS`] terms. The refusal says which limit and by how much.
pub fn check_query(query: &str, ranked: bool) -> std::result::Result<(), String> {
    if query.len() > MAX_QUERY_BYTES {
        return Err(format!(
            "query is {} bytes long; at most {MAX_QUERY_BYTES} are taken",
            query.len()
        ));
    }
    let terms = if ranked {
        Query::parse(query).terms()
    } else {
        0
    };
    if terms > MAX_QUERY_TERMS {
        return Err(format!(
            "query has {terms} terms; at most {MAX_QUERY_TERMS} are taken"
        ));
    }
    Ok(())
}

/// Refuse, before any work, a call whose `query` or `cwd` is too large to
/// be worth running (see [`check_query`], [`MAX_CWD_BYTES`]); the server
/// answers it JSON-RPC −32602. Other argument errors are the tool's own
/// (`isError` results the model can act on).
pub fn check_arguments(tool: &str, args: &Map<String, Value>) -> std::result::Result<(), String> {
    let text = |key: &str| args.get(key).and_then(Value::as_str);
    match tool {
        "list_sessions" => {
            if let Some(query) = text("query") {
                check_query(query, true)?;
            }
            match text("cwd") {
                Some(cwd) if cwd.len() > MAX_CWD_BYTES => Err(format!(
                    "cwd is {} bytes long; at most {MAX_CWD_BYTES} are taken",
                    cwd.len()
                )),
                _ => Ok(()),
            }
        }
        "search_sessions" => text("query").map_or(Ok(()), |query| check_query(query, false)),
        _ => Ok(()),
    }
}

/// The three tools as `tools/list` lists them. `budget` is `read_session`'s
/// default `max_bytes` and `most` its largest ([`most_bytes`]): above
/// 32 KiB, Claude Code is told to keep results that large whole
/// (`anthropic/maxResultSizeChars`), else it would show its model a 2 KB
/// preview and a file above ~50,000 characters.
pub fn definitions(budget: usize, most: usize) -> Value {
    let read_only = json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false});
    let mut read_meta = json!({"anthropic/alwaysLoad": true});
    if most > DEFAULT_BUDGET {
        read_meta["anthropic/maxResultSizeChars"] = (most + 16_384).into();
    }
    json!([
        {
            "name": "list_sessions",
            "title": "List coding-agent sessions",
            "description": "List the user's past coding-agent sessions (Claude Code, Codex, Gemini CLI, …), \
                best first: sessions of the working directory first, then by last activity. `query` filters \
                as the session-ref picker does (fzf syntax: words in any order, 'exact, ^prefix, suffix$, \
                !not, a | b) over title, directory and id. Each result has a `mention` to cite it and a \
                `sessionId` for read_session.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "maxLength": MAX_QUERY_BYTES, "description": "Filter in the picker's syntax (at most 32 terms); empty lists everything."},
                    "cwd": {"type": "string", "maxLength": MAX_CWD_BYTES, "description": "Directory whose sessions rank first (default: the server's --cwd)."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": MOST, "default": LIST_LIMIT, "description": "Most sessions returned."},
                    "sort": {"type": "string", "enum": ["updated", "created"], "default": "updated", "description": "Within a directory group: last activity or creation, newest first."}
                },
                "additionalProperties": false
            },
            "annotations": read_only,
            "_meta": {"anthropic/alwaysLoad": true}
        },
        {
            "name": "search_sessions",
            "title": "Search what was said in sessions",
            "description": "Find the user's past coding-agent sessions by what was said in them (typed prompts, \
                assistant replies, compaction summaries, over the whole history), newest first. Every word \
                must appear; \"quoted phrases\" match exactly; an upper-case letter makes the search \
                case-sensitive. Each hit has a snippet; `beforeCompaction` marks text a snapshot no longer holds.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "maxLength": MAX_QUERY_BYTES, "description": "Words and \"phrases\", or a regular expression with regex."},
                    "regex": {"type": "boolean", "default": false, "description": "Read query as one regular expression (Rust syntax)."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": MOST, "default": SEARCH_LIMIT, "description": "Most sessions returned."}
                },
                "required": ["query"],
                "additionalProperties": false
            },
            "annotations": read_only,
            "_meta": {"anthropic/alwaysLoad": true}
        },
        {
            "name": "read_session",
            "title": "Read a session's snapshot",
            "description": "Read an exact, read-only snapshot of one past session: what the user typed and what \
                the agent answered (tool output left out), the oldest turns dropped first to fit the byte \
                budget. `session` is a session id, a mention @[label](hydra-session:…) or a hydra-session: URI.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "session": {"type": "string", "description": "Session id, canonical mention or hydra-session: URI."},
                    "max_bytes": {"type": "integer", "minimum": 1, "default": budget, "description": format!("Byte budget of the snapshot, at most {most} (a larger one is taken as {most}).")}
                },
                "required": ["session"],
                "additionalProperties": false
            },
            "annotations": read_only,
            "_meta": read_meta
        }
    ])
}

/// `read_session`'s default budget when `--max-reference-bytes` is not
/// given: one text block this large arrives whole in Claude Code (~50,000
/// characters), Codex (~47,900) and Gemini CLI (~39,950).
pub const DEFAULT_BUDGET: usize = 32_768;

/// Run the tool `name` with `args`; `read_session`'s default and largest
/// `max_bytes` are `budget` and `most`. `None`: no such tool.
pub fn call(
    sessions: &Arc<Sessions>,
    name: &str,
    args: &Map<String, Value>,
    (budget, most): (usize, usize),
    cancel: &AtomicBool,
) -> Option<Answer> {
    let result = match name {
        "list_sessions" => list_sessions(sessions, args, cancel),
        "search_sessions" => search_sessions(sessions, args, cancel),
        "read_session" => read_session(sessions, args, budget, most),
        _ => return None,
    };
    Some(result.unwrap_or_else(|e| Answer::error(&e)))
}

fn bad(message: String) -> Error {
    Error::invalid_config(message)
}

fn string_arg<'a>(args: &'a Map<String, Value>, key: &str) -> Result<Option<&'a str>> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(bad(format!("{key} must be a string (got {other})"))),
    }
}

fn count_arg(args: &Map<String, Value>, key: &str, default: usize, most: usize) -> Result<usize> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(value) => {
            let n = value
                .as_u64()
                .filter(|&n| (1..=config::MAX_SAFE_INTEGER).contains(&n))
                .ok_or_else(|| bad(format!("{key} must be a whole number from 1 (got {value})")))?;
            Ok(usize::try_from(n).unwrap_or(usize::MAX).min(most))
        }
    }
}

fn bool_arg(args: &Map<String, Value>, key: &str) -> Result<bool> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(bad(format!("{key} must be true or false (got {other})"))),
    }
}

/// The fields of `list_sessions`' result (structured content and text).
pub const LIST_FIELDS: &[crate::json_fields::Field] = {
    use crate::json_fields::Field;
    &[
        Field::new(
            "sessions",
            "the sessions: best first (`search_sessions`: newest first)",
        ),
        Field::new("sessions[].sessionId", "the session's id"),
        Field::new("sessions[].label", "its latest title, else the id"),
        Field::new(
            "sessions[].cwd",
            "its working directory; absent when unknown",
        ),
        Field::new("sessions[].agent", "the agent that wrote it"),
        Field::new(
            "sessions[].createdAt",
            "its creation time, exactly as logged",
        ),
        Field::new(
            "sessions[].updatedAt",
            "its last activity (RFC 3339, UTC); absent when unknown",
        ),
        Field::new("sessions[].mention", "the canonical mention, to cite it"),
    ]
};

/// The fields `search_sessions` adds to each session of [`LIST_FIELDS`]
/// (its result is a list of sessions as `list_sessions` gives them).
pub const SEARCH_HIT_FIELDS: &[crate::json_fields::Field] = {
    use crate::json_fields::Field;
    &[
        Field::new("sessions[].hits", "its matching messages"),
        Field::new("sessions[].hits[].role", "`user` or `assistant`"),
        Field::new(
            "sessions[].hits[].snippet",
            "the matching line, cut around the first match",
        ),
        Field::new(
            "sessions[].hits[].beforeCompaction",
            "replaced by a compaction, so not in the snapshot",
        ),
    ]
};

/// The fields of `read_session`'s structured content (its text block is
/// the snapshot): `preview --json`'s `reference`.
pub const READ_FIELDS: &[crate::json_fields::Field] = {
    use crate::json_fields::Field;
    &[
        Field::new(
            "reference",
            "the snapshot's statistics, as `preview --json` gives them",
        ),
        Field::new("reference.sessionId", "the session's id"),
        Field::new(
            "reference.label",
            "the label the snapshot is serialized with",
        ),
        Field::new(
            "reference.capturedThroughSeq",
            "the last event the snapshot covers",
        ),
        Field::new(
            "reference.compacted",
            "whether the conversation was compacted",
        ),
        Field::new("reference.originalMessages", "messages in the conversation"),
        Field::new("reference.retainedMessages", "messages the snapshot keeps"),
        Field::new(
            "reference.omittedMessages",
            "messages left out for the budget",
        ),
        Field::new("reference.omittedBytes", "bytes left out for the budget"),
        Field::new("reference.truncated", "whether a kept message was cut"),
        Field::new(
            "reference.inputIndex",
            "the reference's place in the message (0 here)",
        ),
    ]
};

/// One session as the tools list it.
pub fn session_json(listing: &Listing, id: RecordId) -> Map<String, Value> {
    let record = listing.record(id);
    let label = &*listing.label(id);
    let mut out = Map::new();
    out.insert("sessionId".into(), record.id.clone().into());
    out.insert("label".into(), label.into());
    if let Some(cwd) = &record.cwd {
        out.insert("cwd".into(), cwd.clone().into());
    }
    out.insert(
        session_ref_engine::agent_key::AGENT_KEY.into(),
        record.kind.as_str().into(),
    );
    out.insert("createdAt".into(), record.created_at.clone().into());
    if let Some(updated) = listing.updated_at(id) {
        let updated = session_ref_core::time::format_rfc3339_utc(updated);
        out.insert("updatedAt".into(), updated.into());
    }
    out.insert(
        "mention".into(),
        mention::format_mention(&record.id, Some(label)).into(),
    );
    out
}

/// `list_sessions {query?, cwd?, limit?, sort?}`; stops when `cancel` is
/// set.
pub fn list_sessions(
    sessions: &Arc<Sessions>,
    args: &Map<String, Value>,
    cancel: &AtomicBool,
) -> Result<Answer> {
    let query = string_arg(args, "query")?.unwrap_or("");
    let limit = count_arg(args, "limit", LIST_LIMIT, MOST)?;
    let sort = match string_arg(args, "sort")? {
        None | Some("updated") => SortBy::Updated,
        Some("created") => SortBy::Created,
        Some(other) => {
            return Err(bad(format!(
                "sort must be \"updated\" or \"created\" (got {})",
                js::quote(other, false)
            )))
        }
    };
    let listing = sessions.listing();
    let cwd = match string_arg(args, "cwd")? {
        Some(cwd) => Some(cwd.to_owned()),
        None => sessions.source().config.target.cwd.clone(),
    };
    let found: Vec<Value> = listing
        .rank(query, cwd.as_deref(), sort, cancel)
        .ok_or_else(Error::cancelled)?
        .into_iter()
        .take(limit)
        .map(|id| Value::Object(session_json(&listing, id)))
        .collect();
    Ok(Answer::json(json!({"sessions": found})))
}

/// `search_sessions {query, regex?, limit?}`: the search pipeline as
/// `session-ref search --json` runs it, its sessions in the tools' shape
/// with their hits.
pub fn search_sessions(
    sessions: &Arc<Sessions>,
    args: &Map<String, Value>,
    cancel: &AtomicBool,
) -> Result<Answer> {
    use crate::search::command::{after_search, conclude, label, parse_query, warn_remote};
    use crate::search::pipeline::{self, Event, Search, Source};
    let Some(query) = string_arg(args, "query")? else {
        return Err(bad("query is required".to_owned()));
    };
    let regex = bool_arg(args, "regex")?;
    let limit = count_arg(args, "limit", SEARCH_LIMIT, MOST)?;
    let listing = sessions.listing();
    let index = sessions
        .source()
        .search_index
        .as_deref()
        .map(session_ref_stores::search::index::Index::open);
    let config = &sessions.source().config;
    let query = parse_query(query, regex)?;
    let catalog = listing.catalog();
    let target = config.target.session_id.as_deref();
    let ids = pipeline::local_records(catalog, target);
    let records: Vec<_> = ids.iter().map(|&id| catalog.get(id)).collect();
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
    let mut found = Vec::new();
    let outcome = pipeline::run(&search, &mut |event| {
        let row = match event {
            Event::Local {
                position,
                record,
                found,
            } => Found::new(record, label(catalog, Some(ids[position]), record), &found),
            Event::Remote { record, found } => {
                Found::new(&record, label(catalog, None, &record), &found)
            }
            Event::RemoteFailed { host, why } => {
                warn_remote(&host, &why);
                return true;
            }
        };
        found.push(Value::Object(search_row(&listing, &row)));
        true
    });
    after_search(config, catalog, index, &outcome);
    conclude(&outcome, limit)?;
    Ok(Answer::json(json!({"sessions": found})))
}

/// A match of `search_sessions`: the session as the tools give it, with
/// what search read of it (its fields win) and its hits.
fn search_row(listing: &Listing, found: &Found) -> Map<String, Value> {
    let row = serde_json::to_value(found).expect("search results serialize");
    let mut session = match listing.find(&found.session_id) {
        Some(record) => session_json(listing, record),
        None => Map::new(),
    };
    // The row's own fields win: they are what search read.
    for key in ["sessionId", "label", "cwd", "createdAt", "mention"] {
        if let Some(value) = row.get(key) {
            session.insert(key.into(), value.clone());
        }
    }
    if let Some(agent) = row.get(session_ref_engine::agent_key::AGENT_KEY) {
        session.insert(
            session_ref_engine::agent_key::AGENT_KEY.into(),
            agent.clone(),
        );
    }
    let hits: Vec<Value> = row["hits"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|hit| {
            json!({
                "role": hit["role"],
                "snippet": hit["snippet"],
                "beforeCompaction": hit["beforeCompaction"],
            })
        })
        .collect();
    session.insert("hits".into(), hits.into());
    session
}

/// A `session` argument as the engine's session-argument rule reads it
/// ([`session_ref_engine::SessionArg::resolve`]): without the blanks
/// around it (a JSON string's, not part of the id), and not empty.
pub fn session_text(raw: &str) -> Result<&str> {
    let text = raw.trim();
    if text.is_empty() {
        return Err(Error::invalid_reference("session is empty"));
    }
    Ok(text)
}

/// The snapshot of one session at `max_bytes`: its text and
/// `{"reference": stats}` (`preview --json` without its `context`).
pub fn snapshot(
    sessions: &Arc<Sessions>,
    session: &str,
    max_bytes: usize,
) -> Result<(String, Value)> {
    let (listing, named) = sessions.resolve(session_text(session)?)?;
    let limits = Limits {
        max_reference_bytes: max_bytes,
        ..sessions.source().config.limits
    };
    let engine = Engine::new(
        listing.engine.catalog.clone(),
        limits,
        listing.engine.target.clone(),
    );
    let context = engine.preview_named(named, None)?;
    let value = json!({"reference": context.references[0]});
    Ok((context.text, value))
}

/// `read_session {session, max_bytes?}`, `max_bytes` at most `most`.
pub fn read_session(
    sessions: &Arc<Sessions>,
    args: &Map<String, Value>,
    budget: usize,
    most: usize,
) -> Result<Answer> {
    let Some(session) = string_arg(args, "session")? else {
        return Err(bad("session is required".to_owned()));
    };
    let max_bytes = count_arg(args, "max_bytes", budget, most)?;
    let (text, structured) = snapshot(sessions, session, max_bytes)?;
    Ok(Answer {
        text,
        structured,
        is_error: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use session_ref_core::uri;

    #[test]
    fn a_session_argument_loses_its_blanks_and_is_not_empty() {
        // What it names is the engine's rule (session_arg.rs tests it).
        assert_eq!(session_text(" abc ").unwrap(), "abc");
        let uri = uri::encode("a b");
        assert_eq!(session_text(&format!("\t{uri}\n")).unwrap(), uri);
        for blank in ["", " ", "\n"] {
            let err = session_text(blank).unwrap_err();
            assert_eq!(err.code, crate::error::ErrorCode::InvalidReference);
        }
    }

    #[test]
    fn read_only_tools_are_annotated_and_budget_raises_claudes_cap() {
        let tools = definitions(DEFAULT_BUDGET, 65_536);
        for tool in tools.as_array().unwrap() {
            assert_eq!(tool["annotations"]["readOnlyHint"], true);
            assert_eq!(tool["inputSchema"]["type"], "object");
        }
        assert_eq!(tools[2]["_meta"]["anthropic/maxResultSizeChars"], 81_920);
        assert!(definitions(DEFAULT_BUDGET, DEFAULT_BUDGET)[2]["_meta"]
            .get("anthropic/maxResultSizeChars")
            .is_none());
        let raised = definitions(200_000, 200_000);
        assert_eq!(raised[2]["_meta"]["anthropic/maxResultSizeChars"], 216_384);
        assert_eq!(
            raised[2]["inputSchema"]["properties"]["max_bytes"]["default"],
            200_000
        );
        // Not a schema `maximum`: Gemini CLI would refuse a larger value
        // rather than let it be clamped.
        let max_bytes = &tools[2]["inputSchema"]["properties"]["max_bytes"];
        assert!(max_bytes.get("maximum").is_none());
        assert!(max_bytes["description"]
            .as_str()
            .unwrap()
            .contains("at most 65536"));
    }

    #[test]
    fn queries_and_directories_too_large_to_rank_are_refused_first() {
        let args = |pairs: Value| pairs.as_object().unwrap().clone();
        let words = vec!["w"; MAX_QUERY_TERMS].join(" ");
        assert!(check_arguments("list_sessions", &args(json!({"query": words}))).is_ok());
        let more = format!("{words} | x");
        let refused = check_arguments("list_sessions", &args(json!({"query": more}))).unwrap_err();
        assert!(refused.contains("33 terms"), "{refused}");
        // Searching takes as many words as fit, ranking does not.
        assert!(check_arguments("search_sessions", &args(json!({"query": more}))).is_ok());
        let long = "a".repeat(MAX_QUERY_BYTES + 1);
        for tool in ["list_sessions", "search_sessions"] {
            let refused = check_arguments(tool, &args(json!({"query": long}))).unwrap_err();
            assert!(refused.contains("1025 bytes"), "{refused}");
        }
        assert!(check_arguments(
            "list_sessions",
            &args(json!({"query": "a".repeat(MAX_QUERY_BYTES)}))
        )
        .is_ok());
        let cwd = "/".repeat(MAX_CWD_BYTES + 1);
        assert!(check_arguments("list_sessions", &args(json!({"cwd": cwd}))).is_err());
        // Wrong types are the tool's to report.
        assert!(check_arguments("list_sessions", &args(json!({"query": 7}))).is_ok());
        assert!(check_arguments("read_session", &args(json!({"session": long}))).is_ok());
    }
}
