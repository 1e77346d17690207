//! The pure core: the reference resolver's semantics with no I/O.
//!
//! URIs and mentions, projection, retention, rendering, preparation and
//! candidate ranking take values and return values; reading sessions is the
//! job of [`crate::store`] and orchestration that of [`crate::engine`].

pub mod candidates;
pub mod json;
pub mod mention;
pub mod prepare;
pub mod projection;
pub mod render;
pub mod retention;
pub mod streaming;
pub mod uri;
