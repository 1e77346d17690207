//! The MCP tools: `list_sessions`, `search_sessions` and `read_session`,
//! on rmcp's typed tool router (`#[tool_router]`, each tool a `#[tool]`
//! method taking its [`Parameters`] as a type of [`super::args`]), each
//! one blocking function of the listing and a checked request, run as a
//! job on rayon's pool.
//!
//! Every tool is read-only (annotated `readOnlyHint: true`, which Codex
//! 0.171 takes as leave to run it without asking) and answers with JSON as
//! both a text block and `structuredContent`, except `read_session`, whose
//! text block is the snapshot itself, exactly as `preview --json` gives its
//! `context`, so the model reads it as the agent would have received it.
//! `read_session`'s structured content is its stats (`preview --json`'s
//! `reference`), and never the snapshot; Claude Code and Codex, which hand
//! the model the structured content alone when there is one, get none
//! (see [`STRUCTURED_ONLY`]).
//!
//! A failure the model can act on (an unknown session, a bad regex, a
//! budget too small, an argument of the wrong kind) is a tool result with
//! `isError: true` naming what was wrong, never a protocol error; a query
//! or directory too large to be worth running is refused JSON-RPC −32602
//! before it takes a job.
//!
//! What stays hand-written beside rmcp's router, and why:
//! - `tools/list` is [`definitions`], not the router's `list_all`: that
//!   sorts the tools by name, and clients have been shown them in the
//!   order list, search, read; and `read_session`'s `max_bytes` default,
//!   its description and `anthropic/maxResultSizeChars` name the server's
//!   budget and the calling client's largest snapshot ([`most_bytes`]),
//!   known only per request, so they are added to the router's
//!   definition there.
//! - An unknown tool is answered by the server before the router, which
//!   would say "tool not found" instead of the `session-ref: CODE:
//!   message` line every other error has.
//! - Schemas come from [`super::args::input_schema`] (see its module).

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, JsonObject, MetaObject, Tool};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, ErrorData as McpError, RoleServer};
use serde_json::{json, Map, Value};

use crate::config::{Config, Limits};
use crate::error::{Error, Result};
use crate::search::Found;
use session_ref_core::{json as js, mention};
use session_ref_engine::Engine;
use session_ref_stores::RecordId;

use super::args::{
    input_schema, ListArgs, ListRequest, ReadArgs, ReadRequest, SearchArgs, SearchRequest,
};
use super::rpc::{client_name, from_json, on_pool, protocol_error};
use super::sessions::{Listing, Sessions};

/// Clients that hand the model a tool's structured content instead of its
/// text when it has one (Claude Code 2.1.332 as `claude-code`, Codex
/// 0.171.0 as `codex-mcp-client`; AGENTS.md). Their `read_session` result
/// has no structured content, so the model reads the snapshot as the text
/// block, framed as `preview` frames it, not JSON-escaped inside JSON
/// (1,546 characters for a 1,227-character snapshot, quotes escaped
/// twice). The other clients (Gemini CLI, opencode, Copilot CLI 1.0.102,
/// Qwen Code 0.24.4) get the text block and the stats as structured
/// content, which never holds the snapshot: Copilot CLI and Qwen Code hand
/// the model both, and a second copy would count twice against their caps.
pub const STRUCTURED_ONLY: [&str; 2] = ["claude-code", "codex-mcp-client"];

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
/// bytes; a larger one is clamped to it, as `limit` is to [`super::args::MOST`]. Given
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

/// `read_session`'s default budget when `--max-reference-bytes` is not
/// given: one text block this large arrives whole in Claude Code (~50,000
/// characters), Codex (~47,900) and Gemini CLI (~39,950).
pub const DEFAULT_BUDGET: usize = 32_768;

/// The tools' service: the listing the answers come from, `read_session`'s
/// default budget, and the jobs the server lets run at once (shared with
/// resources and prompts).
#[derive(Debug, Clone)]
pub struct Tools {
    /// The listing, kept fresh.
    pub sessions: Arc<Sessions>,
    /// `read_session`'s default budget, and the budget of resources and
    /// `cite`.
    pub budget: usize,
    /// Jobs on rayon's pool at once, queued ones included: a client that
    /// sends faster than the pool answers waits here, not in rayon's
    /// unbounded queue.
    pub jobs: Arc<tokio::sync::Semaphore>,
}

/// Claude Code loads these tools at start rather than on demand.
fn always_load() -> MetaObject {
    let mut meta = JsonObject::new();
    meta.insert("anthropic/alwaysLoad".into(), true.into());
    MetaObject(meta)
}

/// A call refused before it runs: JSON-RPC −32602 naming the tool.
fn refused(tool: &str, why: &str) -> McpError {
    protocol_error(&Error::invalid_config(format!("{tool}: {why}")))
}

#[tool_router(router = router, vis = "pub(crate)")]
impl Tools {
    #[tool(
        name = "list_sessions",
        title = "List coding-agent sessions",
        description = "List the user's past coding-agent sessions (Claude Code, Codex, Gemini CLI, …), \
            best first: sessions of the working directory first, then by last activity. `query` filters \
            as the session-ref picker does (fzf syntax: words in any order, 'exact, ^prefix, suffix$, \
            !not, a | b) over title, directory and id. Each result has a `mention` to cite it and a \
            `sessionId` for read_session.",
        input_schema = input_schema::<ListArgs>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false),
        meta = always_load()
    )]
    async fn list_sessions(
        &self,
        Parameters(args): Parameters<ListArgs>,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResult, McpError> {
        args.check_size()
            .map_err(|why| refused("list_sessions", &why))?;
        let sessions = self.sessions.clone();
        self.answer(&context, false, move |cancel| {
            list_sessions(&sessions, &args.check()?, cancel)
        })
        .await
    }

    #[tool(
        name = "search_sessions",
        title = "Search what was said in sessions",
        description = "Find the user's past coding-agent sessions by what was said in them (typed prompts, \
            assistant replies, compaction summaries, over the whole history), newest first. Every word \
            must appear; \"quoted phrases\" match exactly; an upper-case letter makes the search \
            case-sensitive. Each hit has a snippet; `beforeCompaction` marks text a snapshot no longer holds.",
        input_schema = input_schema::<SearchArgs>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false),
        meta = always_load()
    )]
    async fn search_sessions(
        &self,
        Parameters(args): Parameters<SearchArgs>,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResult, McpError> {
        args.check_size()
            .map_err(|why| refused("search_sessions", &why))?;
        let sessions = self.sessions.clone();
        self.answer(&context, false, move |cancel| {
            search_sessions(&sessions, &args.check()?, cancel)
        })
        .await
    }

    #[tool(
        name = "read_session",
        title = "Read a session's snapshot",
        description = "Read an exact, read-only snapshot of one past session: what the user typed and what \
            the agent answered (tool output left out), the oldest turns dropped first to fit the byte \
            budget. `session` is a session id, a mention @[label](hydra-session:…) or a hydra-session: URI.",
        input_schema = input_schema::<ReadArgs>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false),
        meta = always_load()
    )]
    async fn read_session(
        &self,
        Parameters(args): Parameters<ReadArgs>,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResult, McpError> {
        let sessions = self.sessions.clone();
        let budget = self.budget;
        let most = self.most(&client_name(&context));
        self.answer(&context, true, move |_| {
            read_session(&sessions, &args.check()?, budget, most)
        })
        .await
    }
}

impl Tools {
    /// `read_session`'s largest `max_bytes` for `client`.
    pub fn most(&self, client: &str) -> usize {
        most_bytes(&self.sessions.source().config, self.budget, client)
    }

    /// Run a tool's `work` as a job and make its result: the answer as
    /// the text block, its structured content unless it is a `snapshot`
    /// for a client of [`STRUCTURED_ONLY`] (the tools declare no output
    /// schema, so structured content is optional: left out where it would
    /// hide the text from the model).
    async fn answer(
        &self,
        context: &RequestContext<RoleServer>,
        snapshot: bool,
        work: impl FnOnce(&AtomicBool) -> Result<Answer> + Send + 'static,
    ) -> std::result::Result<CallToolResult, McpError> {
        let answer = on_pool(
            &self.jobs,
            context.ct.clone().cancelled_owned(),
            move |cancel| work(cancel).unwrap_or_else(|e| Answer::error(&e)),
        )
        .await?;
        let mut result = json!({
            "content": [{"type": "text", "text": answer.text}],
            "isError": answer.is_error,
        });
        if !(snapshot && STRUCTURED_ONLY.contains(&client_name(context).as_str())) {
            result["structuredContent"] = answer.structured;
        }
        from_json(result)
    }
}

/// The three tools as `tools/list` lists them, in the order clients have
/// seen (the router's `list_all` sorts them by name). `budget` is
/// `read_session`'s default `max_bytes` and `most` its largest
/// ([`most_bytes`]), added to the router's definition here: above 32 KiB,
/// Claude Code is told to keep results that large whole
/// (`anthropic/maxResultSizeChars`), else it would show its model a 2 KB
/// preview and a file above ~50,000 characters. No schema `maximum`:
/// Gemini CLI would refuse a larger value rather than let it be clamped.
pub fn definitions(budget: usize, most: usize) -> Vec<Tool> {
    let mut read = Tools::read_session_tool_attr();
    let schema = Arc::make_mut(&mut read.input_schema);
    if let Some(Value::Object(max_bytes)) = schema
        .get_mut("properties")
        .and_then(|properties| properties.get_mut("max_bytes"))
    {
        max_bytes.insert("default".into(), budget.into());
        max_bytes.insert(
            "description".into(),
            format!(
                "Byte budget of the snapshot, at most {most} (a larger one is taken as {most})."
            )
            .into(),
        );
    }
    if most > DEFAULT_BUDGET {
        if let Some(meta) = read.meta.as_mut() {
            meta.0.insert(
                "anthropic/maxResultSizeChars".into(),
                (most + 16_384).into(),
            );
        }
    }
    vec![
        Tools::list_sessions_tool_attr(),
        Tools::search_sessions_tool_attr(),
        read,
    ]
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

/// `list_sessions`: the listing ranked as the picker ranks it; stops when
/// `cancel` is set.
pub fn list_sessions(
    sessions: &Arc<Sessions>,
    request: &ListRequest,
    cancel: &AtomicBool,
) -> Result<Answer> {
    let listing = sessions.listing();
    let cwd = match &request.cwd {
        Some(cwd) => Some(cwd.clone()),
        None => sessions.source().config.target.cwd.clone(),
    };
    let found: Vec<Value> = listing
        .rank(&request.query, cwd.as_deref(), request.sort, cancel)
        .ok_or_else(Error::cancelled)?
        .into_iter()
        .take(request.limit)
        .map(|id| Value::Object(session_json(&listing, id)))
        .collect();
    Ok(Answer::json(json!({"sessions": found})))
}

/// `search_sessions`: the search pipeline as `session-ref search --json`
/// runs it, its sessions in the tools' shape with their hits.
pub fn search_sessions(
    sessions: &Arc<Sessions>,
    request: &SearchRequest,
    cancel: &AtomicBool,
) -> Result<Answer> {
    use crate::search::command::{after_search, conclude, label, parse_query, warn_remote};
    use crate::search::pipeline::{self, Event, Search, Source};
    let limit = request.limit;
    let listing = sessions.listing();
    let index = sessions
        .source()
        .search_index
        .as_deref()
        .map(session_ref_stores::search::index::Index::open);
    let config = &sessions.source().config;
    let query = parse_query(&request.query, request.regex)?;
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

/// `read_session`: the snapshot at `max_bytes` (default `budget`, at
/// most `most`).
pub fn read_session(
    sessions: &Arc<Sessions>,
    request: &ReadRequest,
    budget: usize,
    most: usize,
) -> Result<Answer> {
    let max_bytes = request.max_bytes.map_or(budget, |n| n.at_most(most));
    let (text, structured) = snapshot(sessions, &request.session, max_bytes)?;
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

    fn listed(budget: usize, most: usize) -> Value {
        serde_json::to_value(definitions(budget, most)).unwrap()
    }

    #[test]
    fn read_only_tools_are_annotated_and_budget_raises_claudes_cap() {
        let tools = listed(DEFAULT_BUDGET, 65_536);
        let names: Vec<&str> = tools
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["list_sessions", "search_sessions", "read_session"]);
        for tool in tools.as_array().unwrap() {
            assert!(Tools::router().has_route(tool["name"].as_str().unwrap()));
            assert_eq!(
                tool["annotations"],
                json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false})
            );
            assert_eq!(tool["inputSchema"]["type"], "object");
            assert_eq!(tool["_meta"]["anthropic/alwaysLoad"], true);
        }
        assert!(!Tools::router().has_route("no_such"));
        assert_eq!(tools[2]["_meta"]["anthropic/maxResultSizeChars"], 81_920);
        assert!(listed(DEFAULT_BUDGET, DEFAULT_BUDGET)[2]["_meta"]
            .get("anthropic/maxResultSizeChars")
            .is_none());
        let raised = listed(200_000, 200_000);
        assert_eq!(raised[2]["_meta"]["anthropic/maxResultSizeChars"], 216_384);
        assert_eq!(
            raised[2]["inputSchema"]["properties"]["max_bytes"]["default"],
            200_000
        );
        // Not a schema `maximum`: Gemini CLI would refuse a larger value
        // rather than let it be clamped.
        let max_bytes = &tools[2]["inputSchema"]["properties"]["max_bytes"];
        assert!(max_bytes.get("maximum").is_none());
        assert_eq!(
            js::stringify_value(max_bytes),
            r#"{"type":"integer","minimum":1,"default":32768,"description":"Byte budget of the snapshot, at most 65536 (a larger one is taken as 65536)."}"#
        );
    }
}
