//! Conversation search as one pipeline: find sessions by what was said in
//! them, for every front-end alike.
//!
//! [`query`] is the query language, [`hits`] the matching, snippets and
//! ranking; both are pure. The searchable text of a session and the index
//! that keeps it are the stores' own (`session_ref_stores::search`).
//! [`scan`] streams matching sessions, newest first, from the logs
//! themselves; [`pipeline`] is THE search the `search` command, the picker,
//! MCP `search_sessions` and `remote serve` run (index or logs, remote
//! matches merged, typed results through a callback, nothing printed), and
//! [`wire`] what a remote sends of its matches.

pub mod hits;
pub mod pipeline;
pub mod query;
pub mod scan;
pub mod wire;
