//! The MCP server: rmcp's [`ServerHandler`] over [`Sessions`], each request
//! run as a job on rayon's pool (the program's one concurrency model) while
//! the async runtime only waits for it or for its cancellation.
//!
//! Both eras of MCP are served on the one stdio server: `initialize` with
//! 2024-11-05 to 2025-11-25 (Codex 0.171 and Gemini CLI 0.61 ask for
//! 2025-06-18), and the stateless 2026-07-28 revision (`server/discover`,
//! the protocol version and client capabilities in each request's `_meta`,
//! `resultType` and cache hints on results), which Claude Code 2.1.332
//! probes first. rmcp 3.11 implements the revision's lifecycle; the
//! transport hands it such requests ([`super::transport::is_stateless`]).
//! Results are built with `resultType: "complete"`, which rmcp strips for
//! peers of the older revisions.

use std::borrow::Cow;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, ListPromptsResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{json, Map, Value};

use crate::error::{Error, ErrorCode};

use super::sessions::Sessions;
use super::{prompts, resources, tools};

/// What the server tells clients about itself (Codex describes the tools'
/// namespace to the model with it).
pub const INSTRUCTIONS: &str = "session-ref reads the user's past coding-agent sessions \
(Claude Code, Codex, Gemini CLI and more) read-only. list_sessions finds sessions by title, \
directory or id; search_sessions by what was said in them; read_session returns an exact, \
byte-budgeted snapshot of one (what the user typed and the agent answered) to quote or \
continue from. Every session is also a resource under its hydra-session: URI.";

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

/// The server.
#[derive(Debug, Clone)]
pub struct Server {
    sessions: Arc<Sessions>,
    /// `read_session`'s default budget, and the budget of resources and
    /// `cite`.
    budget: usize,
    /// Jobs on rayon's pool at once, queued ones included: a client that
    /// sends faster than the pool answers waits here, not in rayon's
    /// unbounded queue.
    jobs: Arc<tokio::sync::Semaphore>,
}

impl Server {
    /// A server over `sessions` whose snapshots default to `budget` bytes.
    pub fn new(sessions: Arc<Sessions>, budget: usize) -> Server {
        let jobs = (2 * rayon::current_num_threads()).max(4);
        Server {
            sessions,
            budget,
            jobs: Arc::new(tokio::sync::Semaphore::new(jobs)),
        }
    }
}

/// The client's name: from `initialize`, or from the request's `_meta`
/// (2026-07-28).
fn client_name(context: &RequestContext<RoleServer>) -> String {
    context
        .client_info()
        .map(|info| info.name)
        .unwrap_or_default()
}

impl Server {
    /// `read_session`'s largest `max_bytes` for `client`.
    fn most(&self, client: &str) -> usize {
        tools::most_bytes(&self.sessions.source().config, self.budget, client)
    }
}

/// The JSON-RPC error of a cancelled request (rmcp drops it unsent).
fn cancelled_error() -> McpError {
    McpError::new(rmcp::model::ErrorCode(-32800), "request cancelled", None)
}

/// Run `work` on rayon's pool once one of `jobs` is free; its result, or
/// an error when `cancelled` resolves first (then `work`'s cancel flag is
/// set, so a search or a ranking stops, and a job not started yet does
/// nothing). The job holds its permit until it ends, even when its
/// request was cancelled.
async fn on_pool<T: Send + 'static>(
    jobs: &Arc<tokio::sync::Semaphore>,
    cancelled: impl Future<Output = ()>,
    work: impl FnOnce(&AtomicBool) -> T + Send + 'static,
) -> Result<T, McpError> {
    tokio::pin!(cancelled);
    let permit = tokio::select! {
        permit = jobs.clone().acquire_owned() => permit
            .map_err(|_| protocol_error(&Error::internal("the server is shutting down")))?,
        () = &mut cancelled => return Err(cancelled_error()),
    };
    let cancel = Arc::new(AtomicBool::new(false));
    let (tx, rx) = tokio::sync::oneshot::channel();
    let flag = cancel.clone();
    rayon::spawn(move || {
        let _permit = permit;
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&flag)));
        let _ = tx.send(result.map_err(|panic| Error::from_panic(&*panic)));
    });
    tokio::select! {
        result = rx => match result {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(e)) => Err(protocol_error(&e)),
            Err(_) => Err(protocol_error(&Error::internal("the request's job ended without an answer"))),
        },
        () = cancelled => {
            cancel.store(true, Ordering::Relaxed);
            Err(cancelled_error())
        }
    }
}

/// Deserialize a result built as JSON, marked complete (the 2026-07-28
/// revision's `resultType`; rmcp drops it for older peers).
fn from_json<T: serde::de::DeserializeOwned>(mut value: Value) -> Result<T, McpError> {
    if let Some(object) = value.as_object_mut() {
        object.insert("resultType".into(), "complete".into());
    }
    serde_json::from_value(value).map_err(|e| protocol_error(&Error::internal(e.to_string())))
}

/// How long a client of the 2026-07-28 revision may keep a list: the tools
/// and the prompt do not change while the server runs (an hour); the
/// sessions as long as the server answers from one listing.
/// Given only to clients of that revision (`context`'s version).
fn cache_hints(
    mut value: Value,
    ttl: std::time::Duration,
    context: &RequestContext<RoleServer>,
) -> Value {
    let stateless = context
        .protocol_version()
        .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
    if stateless {
        value["ttlMs"] = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).into();
        value["cacheScope"] = "private".into();
    }
    value
}

/// The lists that do not change while the server runs.
const STATIC_FOR: std::time::Duration = std::time::Duration::from_secs(3600);

/// A session-ref error as a JSON-RPC error: unknown or unreadable sessions
/// are "resource not found", bad arguments "invalid params". Every error
/// the server answers (but a cancellation's fixed text) is made here, so
/// its text is the escaped `session-ref: CODE: message` line
/// ([`Error::stderr_line`]): the client parses the JSON back into raw
/// characters before it shows them.
fn protocol_error(error: &Error) -> McpError {
    let message = error.stderr_line();
    match error.code {
        ErrorCode::ReadFailed => McpError::resource_not_found(message, None),
        ErrorCode::Internal => McpError::internal_error(message, None),
        _ => McpError::invalid_params(message, None),
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let mut info: ServerConfig = serde_json::from_value(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}, "resources": {}, "prompts": {}},
            "serverInfo": {"name": "session-ref", "title": "session-ref", "version": env!("CARGO_PKG_VERSION")},
            "instructions": INSTRUCTIONS,
        }))
        .expect("a valid server configuration");
        info.protocol_version = ProtocolVersion::V_2025_11_25;
        info
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2026_07_28))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        from_json(cache_hints(
            json!({"tools": tools::definitions(self.budget, self.most(&client_name(&context)))}),
            STATIC_FOR,
            &context,
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        let args: Map<String, Value> = request.arguments.unwrap_or_default();
        // Refused before it takes a job: arguments too large to be worth
        // running.
        tools::check_arguments(&name, &args)
            .map_err(|why| protocol_error(&Error::invalid_config(format!("{name}: {why}"))))?;
        let client = client_name(&context);
        let (sessions, budget, most) = (self.sessions.clone(), self.budget, self.most(&client));
        let ct = context.ct.clone();
        let snapshot = name == "read_session";
        let work =
            move |cancel: &AtomicBool| tools::call(&sessions, &name, &args, (budget, most), cancel);
        let Some(answer) = on_pool(&self.jobs, ct.cancelled_owned(), work).await? else {
            return Err(protocol_error(&Error::invalid_config(format!(
                "no such tool: {}",
                request.name
            ))));
        };
        let mut result = json!({
            "content": [{"type": "text", "text": answer.text}],
            "isError": answer.is_error,
        });
        // The tools declare no output schema, so structured content is
        // optional: left out where it would hide the text from the model.
        if !(snapshot && STRUCTURED_ONLY.contains(&client.as_str())) {
            result["structuredContent"] = answer.structured;
        }
        let result: CallToolResult = from_json(result)?;
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let cursor = request.and_then(|r| r.cursor);
        let sessions = self.sessions.clone();
        let listed = on_pool(
            &self.jobs,
            context.ct.clone().cancelled_owned(),
            move |_| resources::list(&sessions, cursor.as_deref()),
        )
        .await?;
        from_json(cache_hints(
            listed.map_err(|e| protocol_error(&e))?,
            super::sessions::FRESH_FOR,
            &context,
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let (sessions, budget) = (self.sessions.clone(), self.budget);
        let uri = request.uri.clone();
        let read = on_pool(
            &self.jobs,
            context.ct.clone().cancelled_owned(),
            move |_| resources::read(&sessions, &uri, budget),
        )
        .await?;
        let result: ReadResourceResult = from_json(cache_hints(
            read.map_err(|e| protocol_error(&e))?,
            super::sessions::FRESH_FOR,
            &context,
        ))?;
        Ok(result.into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        from_json(cache_hints(
            json!({"prompts": prompts::definitions()}),
            STATIC_FOR,
            &context,
        ))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let (sessions, budget) = (self.sessions.clone(), self.budget);
        let name = request.name.clone();
        let args: Map<String, Value> = request
            .arguments
            .clone()
            .unwrap_or_default()
            .into_iter()
            .collect();
        if let Some(query) = args.get("query").and_then(Value::as_str) {
            tools::check_query(query, true).map_err(|why| {
                protocol_error(&Error::invalid_config(format!("{}: {why}", request.name)))
            })?;
        }
        let got = on_pool(&self.jobs, context.ct.cancelled_owned(), move |cancel| {
            prompts::get(&sessions, &name, &args, budget, cancel)
        })
        .await?;
        let Some(got) = got else {
            return Err(protocol_error(&Error::invalid_config(format!(
                "no such prompt: {}",
                request.name
            ))));
        };
        let result: GetPromptResult = from_json(got.map_err(|e| protocol_error(&e))?)?;
        Ok(result.into())
    }
}
