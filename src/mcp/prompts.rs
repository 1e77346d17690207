//! The MCP prompt `cite {query}`: one user message holding the best
//! matching session's mention and its snapshot, so a person can cite a
//! session by a few words of its title (Claude Code:
//! `/mcp__session-ref__cite idempotency keys`; Gemini CLI:
//! `/cite idempotency keys`).
//!
//! The best match is the picker's first (its query syntax and ranking over
//! titles, directories and ids); when nothing matches there, the newest
//! session whose conversation holds the words (`search_sessions`).

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::error::{Error, Result};

use super::args::SearchRequest;
use super::sessions::Sessions;
use super::tools;

/// The prompt's name.
pub const CITE: &str = "cite";

/// `prompts/list`.
pub fn definitions() -> Value {
    json!([{
        "name": CITE,
        "title": "Cite a past session",
        "description": "Put the best matching past session's mention and its snapshot into the conversation.",
        "arguments": [{
            "name": "query",
            "description": "Words of the session's title, directory or id (else of what was said in it).",
            "required": true
        }]
    }])
}

/// `prompts/get` of `cite` with `args`; `None`: no such prompt.
pub fn get(
    sessions: &Arc<Sessions>,
    name: &str,
    args: &Map<String, Value>,
    budget: usize,
    cancel: &AtomicBool,
) -> Option<Result<Value>> {
    (name == CITE).then(|| cite(sessions, args, budget, cancel))
}

/// Whether a title is a cite command (`/cite …`, `/mcp__session-ref__cite …`).
fn is_cite_command(title: &str) -> bool {
    title
        .strip_prefix('/')
        .and_then(|rest| rest.split_whitespace().next())
        .is_some_and(|command| command == CITE || command.ends_with("__cite"))
}

fn cite(
    sessions: &Arc<Sessions>,
    args: &Map<String, Value>,
    budget: usize,
    cancel: &AtomicBool,
) -> Result<Value> {
    let query = args
        .get("query")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|q| !q.is_empty())
        .ok_or_else(|| Error::invalid_config("cite needs a query"))?;
    let listing = sessions.listing();
    let cwd = sessions.source().config.target.cwd.clone();
    // A session titled by a cite command is the one it is being typed in
    // (an agent titles a session by its first prompt): never the answer.
    let best = listing
        .rank(
            query,
            cwd.as_deref(),
            session_ref_engine::order::SortBy::Updated,
            cancel,
        )
        .ok_or_else(Error::cancelled)?
        .into_iter()
        .find(|&id| !is_cite_command(&listing.labels[id]));
    let best = match best {
        Some(id) => Some(listing.record(id).id.clone()),
        None => {
            let search = SearchRequest {
                query: query.to_owned(),
                regex: false,
                limit: 1,
            };
            let found = tools::search_sessions(sessions, &search, cancel)?;
            found.structured["sessions"][0]["sessionId"]
                .as_str()
                .map(str::to_owned)
        }
    };
    let Some(id) = best else {
        return Err(Error::read_failed(format!(
            "no session matches {}",
            session_ref_core::json::quote(query, false)
        )));
    };
    let (text, value) = tools::snapshot(sessions, &id, budget)?;
    let label = value["reference"]["label"].as_str().unwrap_or(&id);
    let mention = session_ref_core::mention::format_mention(&id, Some(label));
    Ok(json!({
        "description": format!("The snapshot of {label}"),
        "messages": [{
            "role": "user",
            "content": {"type": "text", "text": format!("{mention}\n\n{text}")}
        }]
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_made_by_a_cite_command_are_recognized() {
        assert!(is_cite_command("/cite idempotency keys"));
        assert!(is_cite_command("/mcp__session-ref__cite E2E snapshot"));
        assert!(!is_cite_command("cite the paper"));
        assert!(!is_cite_command("/citeable"));
        assert!(!is_cite_command("/init"));
    }
}
