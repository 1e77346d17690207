//! Validated resolver configuration (SPEC §9).

use crate::error::{Error, Result};

/// Hard maximum of distinct sessions one message may cite.
pub const MAX_REFERENCES: u64 = 3;
/// Default number of candidates listed.
pub const DEFAULT_CANDIDATE_LIMIT: u64 = 50;
/// Default UTF-8 budget of one serialized reference object.
pub const DEFAULT_MAX_REFERENCE_BYTES: u64 = 65_536;

/// The largest integer JavaScript represents exactly; the reference accepts
/// only "safe" integers.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Resolver limits, always valid once constructed.
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

impl Limits {
    /// Validate raw values given as text (flags), defaults for `None`.
    pub fn from_flags(
        max_references: Option<&str>,
        candidate_limit: Option<&str>,
        max_reference_bytes: Option<&str>,
    ) -> Result<Self> {
        let defaults = Limits::default();
        let max_references = match max_references {
            Some(raw) => parse_positive("--max-references", raw)?,
            None => defaults.max_references as u64,
        };
        if max_references > MAX_REFERENCES {
            return Err(Error::invalid_config(format!(
                "--max-references must be 1 to {MAX_REFERENCES} (got {max_references})"
            )));
        }
        let candidate_limit = match candidate_limit {
            Some(raw) => parse_positive("--candidate-limit", raw)?,
            None => defaults.candidate_limit as u64,
        };
        let max_reference_bytes = match max_reference_bytes {
            Some(raw) => parse_positive("--max-reference-bytes", raw)?,
            None => defaults.max_reference_bytes as u64,
        };
        Ok(Limits {
            max_references: max_references as usize,
            candidate_limit: to_usize(candidate_limit),
            max_reference_bytes: to_usize(max_reference_bytes),
        })
    }
}

fn to_usize(value: u64) -> usize {
    usize::try_from(value).unwrap_or(usize::MAX)
}

/// Parse a positive safe integer written in decimal, as a flag value.
pub fn parse_positive(name: &str, raw: &str) -> Result<u64> {
    let trimmed = raw.trim();
    let valid = !trimmed.is_empty() && trimmed.bytes().all(|b| b.is_ascii_digit());
    let value = if valid {
        trimmed.parse::<u64>().ok()
    } else {
        None
    };
    match value {
        Some(v) if (1..=MAX_SAFE_INTEGER).contains(&v) => Ok(v),
        _ => Err(Error::invalid_config(format!(
            "{name} must be a whole number from 1 to {MAX_SAFE_INTEGER} (got {raw:?})"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn defaults_match_the_contract() {
        let limits = Limits::from_flags(None, None, None).unwrap();
        assert_eq!(limits, Limits::default());
        assert_eq!(limits.max_references, 3);
        assert_eq!(limits.candidate_limit, 50);
        assert_eq!(limits.max_reference_bytes, 65_536);
    }

    #[test]
    fn rejects_out_of_range_values() {
        for bad in ["0", "-1", "4", "1.5", "", "x", "9007199254740992"] {
            let err = Limits::from_flags(Some(bad), None, None).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidConfig, "{bad}");
        }
        for bad in ["0", "-3", "abc", "1e3"] {
            assert_eq!(
                Limits::from_flags(None, Some(bad), None).unwrap_err().code,
                ErrorCode::InvalidConfig
            );
            assert_eq!(
                Limits::from_flags(None, None, Some(bad)).unwrap_err().code,
                ErrorCode::InvalidConfig
            );
        }
    }

    #[test]
    fn accepts_in_range_values() {
        let limits = Limits::from_flags(Some("1"), Some("7"), Some("100")).unwrap();
        assert_eq!(limits.max_references, 1);
        assert_eq!(limits.candidate_limit, 7);
        assert_eq!(limits.max_reference_bytes, 100);
    }
}
