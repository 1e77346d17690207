//! session-ref's engine: the service written once, below every front-end.
//!
//! **Every front-end reaches the stores through the engine; the engine
//! never formats for a person, never reads the environment, never prints.**
//! The command line, the picker, the hooks and the MCP server each take
//! their input, call the engine with plain values (roots, flags, the
//! environment values they read themselves), and format what it returns.
//! So a rule lives here once: how the stores of a run are opened
//! ([`open`]), the list order ([`order`]), what a session argument names
//! ([`session_arg`]), candidates, previews and prepared messages
//! ([`engine`]), the picker's ranking ([`rank`]), fitting snapshots under a
//! host's cap ([`budget`]) and the live listing a long-running server
//! keeps fresh ([`listing`]), conversation search as one pipeline
//! ([`search`]) and the answering side of the remote protocol
//! ([`serve`]).
//!
//! No terminal, no command-line parser, no async runtime, no standard
//! output: failures are typed ([`Error`], each kind with its stable code)
//! and messages are escaped by whoever shows them.

#![warn(missing_docs)]

pub mod agent_key;
pub mod budget;
pub mod engine;
pub mod error;
pub mod limits;
pub mod listing;
pub mod open;
pub mod order;
pub mod rank;
pub mod search;
pub mod serve;
pub mod session_arg;

pub use engine::{Candidate, Engine, PreparedMessage};
pub use error::{Error, Result};
pub use limits::Limits;
pub use open::Stores;
pub use order::SortBy;
pub use session_arg::SessionArg;
