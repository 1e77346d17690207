//! Sessions on other machines, the program's side. The pieces live where
//! their data does:
//!
//! - which remotes a run asks (`--remote`, the config file,
//!   `SESSION_REF_SSH`): configuration, [`crate::config::remotes`];
//! - the protocol, one set of types both ends use: the hello, `list` and
//!   `fold` in [`session_ref_stores::remote`] (whose client, `Remotes`,
//!   lists and folds remote sessions for every reader), the `search`
//!   answer in [`crate::search::wire`];
//! - the client's search: the search pipeline asks each host
//!   ([`crate::search::pipeline::search_host`]);
//! - the server a remote runs, `session-ref remote serve`: [`serve`]
//!   moves lines, the engine answers them ([`session_ref_engine::serve`]);
//! - `session-ref remote check HOST`: [`check`].
//!
//! Nothing here reads the configuration's files or lists stores by
//! itself: the server is handed its config and the way to list its
//! catalog, so no import runs back to the commands.

pub mod check;
pub mod serve;

pub use check::check;
pub use serve::serve;
