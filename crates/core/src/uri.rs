//! Canonical `hydra-session:` URIs (SPEC §5).
//!
//! `encode(id)` is the scheme followed by unpadded base64url of the UTF-8 bytes
//! of `JSON.stringify(id)`; `decode` accepts only what `encode` produces.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

use crate::error::{Error, Result};
use crate::json;

/// The URI scheme, colon included.
pub const SCHEME: &str = "hydra-session:";

/// The canonical URI of a session id.
pub fn encode(session_id: &str) -> String {
    let payload = URL_SAFE_NO_PAD.encode(json::quote(session_id, false));
    let mut uri = String::with_capacity(SCHEME.len() + payload.len());
    uri.push_str(SCHEME);
    uri.push_str(&payload);
    uri
}

/// Decode a canonical URI back to its session id.
///
/// Fails with `SESSION_REFERENCE_INVALID_REFERENCE` unless `uri` is exactly
/// what [`encode`] gives for the id it carries.
pub fn decode(uri: &str) -> Result<String> {
    let invalid = || {
        Error::invalid_reference(format!(
            "invalid session reference URI {}",
            json::quote(uri, false)
        ))
    };
    let payload = uri.strip_prefix(SCHEME).ok_or_else(invalid)?;
    if payload.is_empty() || !payload.bytes().all(is_payload_byte) {
        return Err(invalid());
    }
    // A strict decoder suffices: any payload a lenient decoder would also
    // accept re-encodes differently and fails the canonical check below.
    let bytes = URL_SAFE_NO_PAD.decode(payload).map_err(|_| invalid())?;
    let text = std::str::from_utf8(&bytes).map_err(|_| invalid())?;
    let id: String = serde_json::from_str(text).map_err(|_| invalid())?;
    if encode(&id) != uri {
        return Err(invalid());
    }
    Ok(id)
}

/// Whether `b` may appear in a URI payload (`[A-Za-z0-9_-]`).
pub fn is_payload_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use proptest::prelude::*;

    #[test]
    fn known_encodings() {
        assert_eq!(encode("abc"), "hydra-session:ImFiYyI");
        assert_eq!(encode(""), "hydra-session:IiI");
        assert_eq!(decode("hydra-session:ImFiYyI").unwrap(), "abc");
    }

    #[test]
    fn rejects_non_canonical_and_malformed() {
        let cases = [
            "hydra-session:",
            "hydra-session:ImFiYyI=",
            "hydra-session:ImFiYyJ",     // non-zero trailing bits
            "hydra-session:IiAiYWJjIiI", // not a plain string
            "hydra-session:MTI",         // the number 12
            "hydra-session:Ilx1MDA0MSI", // "\u0041": escapes A needlessly
            "hydra-session:Ilx1ZDgwMCI", // a lone surrogate
            "other:ImFiYyI",
            "HYDRA-SESSION:ImFiYyI",
            "hydra-session:Im Fi",
            "hydra-session:/w",
        ];
        for uri in cases {
            let err = decode(uri).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidReference, "{uri}");
        }
    }

    proptest! {
        #[test]
        fn any_id_round_trips(id in any::<String>()) {
            let uri = encode(&id);
            prop_assert!(uri[SCHEME.len()..].bytes().all(is_payload_byte));
            prop_assert_eq!(decode(&uri).unwrap(), id);
        }

        #[test]
        fn decode_accepts_only_canonical(payload in "[A-Za-z0-9_-]{1,24}") {
            let uri = format!("{SCHEME}{payload}");
            if let Ok(id) = decode(&uri) {
                prop_assert_eq!(encode(&id), uri);
            }
        }
    }
}
