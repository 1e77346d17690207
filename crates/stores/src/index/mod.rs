//! The indexes kept in the user's cache directory, so that a second run
//! lists and searches without reading every log again: [`title`] (the
//! title index: each session's record and latest title, by file stamp),
//! [`journal`] (resume points, so a fold continues where the previous one
//! stopped when a log only grew), [`stamp`] (what identifies a file's
//! version, the data the `Store` trait names), and [`sealed`] (the checked
//! container every cache file is written in).
//!
//! A cache file is never trusted: one of another format, damaged or cut
//! short is rebuilt, never misread.

pub mod journal;
pub mod sealed;
pub mod stamp;
pub mod title;
