//! The resolver's limits as plain data (SPEC §9). Reading them from flags,
//! with the flags' names in its messages, is the program's.

/// Hard maximum of distinct sessions one message may cite.
pub const MAX_REFERENCES: u64 = 3;
/// Default number of candidates listed.
pub const DEFAULT_CANDIDATE_LIMIT: u64 = 50;
/// Default UTF-8 budget of one serialized reference object.
pub const DEFAULT_MAX_REFERENCE_BYTES: u64 = 65_536;

/// Resolver limits, valid when made by the program's validation or
/// [`Limits::default`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Maximum distinct sessions in one prepared message (1..=3).
    pub max_references: usize,
    /// Default candidate count.
    pub candidate_limit: usize,
    /// Maximum tag-safe JSON bytes of one reference object.
    pub max_reference_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_references: MAX_REFERENCES as usize,
            candidate_limit: DEFAULT_CANDIDATE_LIMIT as usize,
            max_reference_bytes: DEFAULT_MAX_REFERENCE_BYTES as usize,
        }
    }
}
