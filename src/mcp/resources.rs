//! Sessions as MCP resources: every session under its canonical
//! `hydra-session:` URI, listed newest first (by last activity) in pages,
//! and read as the same snapshot `read_session` gives at the default
//! budget. Gemini CLI 0.61 expands `@session-ref:hydra-session:…` typed in
//! a prompt through `resources/read`; Claude Code and Codex offer the model
//! tools to list and read resources.

use std::sync::Arc;

use serde_json::{json, Value};

use crate::error::{Error, Result};
use session_ref_core::uri;

use super::sessions::{Listing, Sessions};

/// Resources per `resources/list` page.
pub const PAGE: usize = 100;

/// The MIME type of a snapshot: the text a mention injects.
pub const MIME: &str = "text/plain";

/// One page of `resources/list` from `cursor` (an offset this server
/// handed out; `None` is the first page): the resources and the next
/// cursor.
pub fn list(sessions: &Arc<Sessions>, cursor: Option<&str>) -> Result<Value> {
    let start = match cursor {
        None => 0,
        Some(cursor) => cursor.parse::<usize>().map_err(|_| {
            Error::invalid_config(format!("not a cursor this server gave: {cursor:?}"))
        })?,
    };
    let listing = sessions.listing();
    let target = listing.engine.target.session_id.as_deref();
    // One resource per session id (the record its mention reads), never
    // the target session, which cannot be cited.
    let ids: Vec<_> = listing
        .newest_first()
        .into_iter()
        .filter(|&id| listing.is_first_of_its_id(id))
        .filter(|&id| Some(listing.record(id).id.as_str()) != target)
        .collect();
    let page: Vec<Value> = ids
        .iter()
        .skip(start)
        .take(PAGE)
        .map(|&id| resource(&listing, id))
        .collect();
    let mut result = json!({"resources": page});
    if start + PAGE < ids.len() {
        result["nextCursor"] = (start + PAGE).to_string().into();
    }
    Ok(result)
}

/// One session as a resource: name = label, description = agent · cwd ·
/// last activity.
fn resource(listing: &Listing, id: usize) -> Value {
    let record = listing.record(id);
    let mut description = vec![record.kind.as_str().to_owned()];
    if let Some(cwd) = &record.cwd {
        description.push(cwd.clone());
    }
    if let Some(updated) = listing
        .updated_at(id)
        .map(session_ref_core::time::format_rfc3339_utc)
    {
        description.push(format!("last active {updated}"));
    }
    json!({
        "uri": uri::encode(&record.id),
        "name": listing.label(id),
        "title": listing.label(id),
        "description": description.join(" · "),
        "mimeType": MIME,
    })
}

/// `resources/read`: the snapshot at `budget` bytes. A URI that is not a
/// canonical `hydra-session:` URI is an invalid-reference error; a session
/// that is not listed, a read-failed error.
pub fn read(sessions: &Arc<Sessions>, uri_text: &str, budget: usize) -> Result<Value> {
    if !uri_text.starts_with(uri::SCHEME) {
        return Err(Error::invalid_reference(format!(
            "not a hydra-session: URI: {uri_text:?}"
        )));
    }
    let (text, _) = super::tools::snapshot(sessions, uri_text, budget)?;
    Ok(json!({"contents": [{"uri": uri_text, "mimeType": MIME, "text": text}]}))
}
