//! How much of one line the readers keep: the bounds every reader of the
//! crate (forward, in pieces, backward) shares.

/// The most of one line that listing (titles, heads, cwds) buffers: 4 MiB.
/// Longer lines are skipped by listing; the facts it looks for (ids, cwds,
/// titles, first prompts) are short, and a line this long is a pasted blob.
pub const MAX_LISTING_LINE: usize = 4 << 20;

/// The longest line reading a whole session keeps: 32 MiB (far above a
/// pasted screenshot; assembling a line costs about three times its size). A longer line
/// is read past, never assembled, and reads as a line that does not parse
/// (see the module doc for why).
pub const MAX_SESSION_LINE: usize = 32 << 20;
