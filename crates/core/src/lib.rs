//! session-ref-core: the reference semantics of session-ref, with no I/O.
//!
//! URIs and mentions ([`uri`], [`mention`]), projection, retention and
//! rendering of a session's conversation ([`projection`], [`retention`],
//! [`streaming`], [`render`], [`json`]), preparing a message's references
//! ([`prepare`]) and ranking candidates ([`candidates`], [`matching`]) take
//! values and return values. The data they take is [`model`] (the folded
//! conversation a store reads) and [`time`] (the timestamps listing orders
//! by). Nothing here opens a file, touches a terminal, starts a thread or
//! reads a clock: reading sessions is the job of the `session-ref-stores`
//! crate, and orchestration that of the program.
//!
//! Failures are the contract's own ([`Error`], SPEC §9).

#![warn(missing_docs)]

pub mod candidates;
pub mod error;
pub mod escape;
pub mod export;
pub mod json;
pub mod matching;
pub mod mention;
pub mod model;
pub mod prepare;
pub mod projection;
pub mod redact;
pub mod render;
pub mod retention;
pub mod streaming;
pub mod time;
pub mod tools;
pub mod uri;

pub use error::{Error, ErrorCode, Result};
