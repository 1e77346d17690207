//! Conversation search: find sessions by what was said in them.
//!
//! [`query`], [`hits`], [`scan`], [`pipeline`] and [`wire`] are the
//! engine's (`session_ref_engine::search`): [`query`] is the query language, [`hits`] the matching, snippets and
//! ranking; both are pure. The searchable text of a session and the index
//! that keeps it in the user's cache directory are the stores' own
//! (`session_ref_stores::search::{extract, index}`). [`scan`] streams
//! matching sessions, newest first, from the logs themselves; [`pipeline`]
//! is THE search every front-end runs (index or logs, remote matches
//! merged, typed results through a callback), and [`wire`] what a remote
//! sends of its matches. [`warm`] brings the index up to date in the
//! background once the picker has listed its sessions; [`command`] is the
//! `search` command's formatting of what the pipeline emits.
//!
//! Search goes beyond the reference (whose candidate filter leaves message
//! bodies out) without touching `candidates`: it is a command and a picker
//! mode of its own.

pub mod command;
pub mod warm;

// The pipeline and its parts are the engine's; their paths stay here for
// the program's front-ends.
pub use session_ref_engine::search::{hits, pipeline, query, scan, wire};

use serde::Serialize;

use hits::{Hit, SessionMatch};
use session_ref_core::mention;
use session_ref_stores::model::SessionRecord;

/// What a hit outside the snapshot is marked with.
pub const BEFORE_COMPACTION: &str = "before compaction: not in the snapshot";

/// The fields of `search --json` (one object per matching session).
pub const FOUND_FIELDS: &[crate::json_fields::Field] = {
    use crate::json_fields::Field;
    &[
        Field::new("sessionId", "the session's id"),
        Field::new("label", "its latest title, else the id"),
        Field::new("cwd", "its working directory; absent when unknown"),
        Field::new("createdAt", "its creation time, exactly as logged"),
        Field::new("agent", "the agent that wrote it"),
        Field::new(
            "store",
            "the same as `agent` (its old name, kept for one release)",
        ),
        Field::new("mention", "the canonical mention with this label"),
        Field::new("matchCount", "matches over the whole history"),
        Field::new("hits", "the matching messages, in history order"),
        Field::new(
            "hits[].message",
            "the matching message's index in the searchable history",
        ),
        Field::new("hits[].role", "`user` or `assistant`"),
        Field::new("hits[].checkpoint", "whether it is a compaction summary"),
        Field::new(
            "hits[].beforeCompaction",
            "replaced by a compaction, so not in the snapshot a mention injects",
        ),
        Field::new(
            "hits[].snippet",
            "the matching line, cut around the first match",
        ),
        Field::new(
            "hits[].highlights",
            "byte ranges `[start, end]` of the matches in `snippet`",
        ),
        Field::remote("host", "the machine holding it (`--remote`)"),
    ]
};

/// A matching session as `search --json` prints it (one object per line).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Found {
    /// Session id.
    pub session_id: String,
    /// Latest title, or the id.
    pub label: String,
    /// Working directory, absent when unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Creation time exactly as logged.
    pub created_at: String,
    /// The kind of session, written as `agent` and its old name `store`.
    #[serde(flatten)]
    pub agent: session_ref_engine::agent_key::AgentKey,
    /// The canonical mention with this label.
    pub mention: String,
    /// Matches over the whole history.
    pub match_count: usize,
    /// Matching messages in history order.
    pub hits: Vec<FoundHit>,
    /// The machine holding it, for a session of another machine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}

/// One matching message as printed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FoundHit {
    /// Index of the message in the searchable history.
    pub message: usize,
    /// `user` or `assistant`.
    pub role: &'static str,
    /// A compaction summary.
    pub checkpoint: bool,
    /// Replaced by a compaction, so not in the snapshot a mention injects.
    pub before_compaction: bool,
    /// The matching line, cut around the first match.
    pub snippet: String,
    /// Byte ranges of the matches in `snippet`, as `[start, end]`.
    pub highlights: Vec<[usize; 2]>,
}

impl FoundHit {
    /// The printed form of a hit.
    pub fn new(hit: &Hit) -> Self {
        FoundHit {
            message: hit.message,
            role: hit.role.as_str(),
            checkpoint: hit.checkpoint,
            before_compaction: hit.before_compaction,
            snippet: hit.snippet.clone(),
            highlights: hit.highlights.iter().map(|r| [r.start, r.end]).collect(),
        }
    }
}

impl Found {
    /// The printed form of a matching session labelled `label`.
    pub fn new(record: &SessionRecord, label: String, found: &SessionMatch) -> Self {
        Found {
            mention: mention::format_mention(&record.id, Some(&label)),
            session_id: record.id.clone(),
            label,
            cwd: record.cwd.clone(),
            created_at: record.created_at.clone(),
            agent: session_ref_engine::agent_key::AgentKey(record.kind.as_str()),
            match_count: found.matches,
            hits: found.hits.iter().map(FoundHit::new).collect(),
            host: record.host.as_deref().map(str::to_owned),
        }
    }
}
