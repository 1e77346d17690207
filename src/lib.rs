//! session-ref: pick coding-agent sessions, mention them in a prompt and
//! inject exact, byte-budgeted, read-only snapshots of them.
//!
//! Layout: the pure core (the Hydra resolver's semantics) is the
//! `session_ref_core` crate; `session_ref_stores` reads native, Claude
//! Code, Codex and Gemini CLI sessions into one model; `session_ref_engine`
//! applies the core to the stores, the one service every front-end here
//! goes through; [`cli`], [`commands`] and [`output`] make the command line; `tui` is the interactive picker;
//! [`hook`] answers the agents' prompt-submit hooks; [`mcp`] is the MCP
//! server and its registration with the agents.

#![warn(missing_docs)]

pub mod agents;
pub mod cli;
pub mod commands;
pub mod config;
pub mod display;
pub mod doctor;
pub mod draft;
pub mod error;
pub mod hook;
pub mod json_fields;
pub mod keys;
pub mod launch;
pub mod mcp;
pub mod output;
pub mod remote;
pub mod search;
pub mod settings_file;
pub mod setup;
pub mod signals;
pub mod tui;

pub use error::{Error, ErrorCode, Result};
