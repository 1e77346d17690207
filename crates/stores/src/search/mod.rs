//! Conversation search's data: [`extract`] is the searchable text of a
//! session (the snapshot's projection over the whole history, compacted
//! turns included), and [`index`] keeps it in the user's cache directory,
//! brought up to date by appending what logs gained. The query language,
//! the matching and the command live in the program.

pub mod extract;
pub mod index;
