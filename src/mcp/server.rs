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
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, GetPromptRequestParams, GetPromptResponse,
    GetPromptResult, ListPromptsResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{json, Map, Value};

use crate::error::Error;

use super::args::check_query;
use super::rpc::{client_name, from_json, on_pool, protocol_error};
use super::sessions::Sessions;
use super::tools::{self, Tools};
use super::{prompts, resources};

/// What the server tells clients about itself (Codex describes the tools'
/// namespace to the model with it).
pub const INSTRUCTIONS: &str = "session-ref reads the user's past coding-agent sessions \
(Claude Code, Codex, Gemini CLI and more) read-only. list_sessions finds sessions by title, \
directory or id; search_sessions by what was said in them; read_session returns an exact, \
byte-budgeted snapshot of one (what the user typed and the agent answered) to quote or \
continue from. Every session is also a resource under its hydra-session: URI.";

/// The server.
#[derive(Debug, Clone)]
pub struct Server {
    /// The tools' service (the listing, the budget, the jobs), which
    /// resources and prompts share.
    tools: Tools,
    /// rmcp's typed router of [`Tools`].
    router: ToolRouter<Tools>,
}

impl Server {
    /// A server over `sessions` whose snapshots default to `budget` bytes.
    pub fn new(sessions: Arc<Sessions>, budget: usize) -> Server {
        let jobs = (2 * rayon::current_num_threads()).max(4);
        Server {
            tools: Tools {
                sessions,
                budget,
                jobs: Arc::new(tokio::sync::Semaphore::new(jobs)),
            },
            router: Tools::router(),
        }
    }
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
            json!({"tools": tools::definitions(
                self.tools.budget,
                self.tools.most(&client_name(&context))
            )}),
            STATIC_FOR,
            &context,
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if !self.router.has_route(&request.name) {
            return Err(protocol_error(&Error::invalid_config(format!(
                "no such tool: {}",
                request.name
            ))));
        }
        self.router
            .call(ToolCallContext::new(&self.tools, request, context))
            .await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let cursor = request.and_then(|r| r.cursor);
        let sessions = self.tools.sessions.clone();
        let listed = on_pool(
            &self.tools.jobs,
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
        let (sessions, budget) = (self.tools.sessions.clone(), self.tools.budget);
        let uri = request.uri.clone();
        let read = on_pool(
            &self.tools.jobs,
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
        let (sessions, budget) = (self.tools.sessions.clone(), self.tools.budget);
        let name = request.name.clone();
        let args: Map<String, Value> = request
            .arguments
            .clone()
            .unwrap_or_default()
            .into_iter()
            .collect();
        if let Some(query) = args.get("query").and_then(Value::as_str) {
            check_query(query, true).map_err(|why| {
                protocol_error(&Error::invalid_config(format!("{}: {why}", request.name)))
            })?;
        }
        let got = on_pool(
            &self.tools.jobs,
            context.ct.cancelled_owned(),
            move |cancel| prompts::get(&sessions, &name, &args, budget, cancel),
        )
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
