//! What `remote serve` answers a `search` request with, the one type both
//! ends use: the server builds a [`WireMatch`] of each local match, the
//! client ([`crate::search::pipeline`]) reads it back. The rest of the
//! exchange (hello, `list`, `fold`) is the stores' own
//! ([`session_ref_stores::remote`]), as its client speaks it.
//!
//! The request is `{"id":N,"op":"search","query":TEXT,"regex":BOOL,
//! "limit":N}`; the answer's `ok` is a list of matches, newest first:
//! `[{"session":{…as list sends it…},"matches":N,"textBytes":N,
//! "hits":[{"message","role","checkpoint","beforeCompaction","line",
//! "snippet","highlights":[[start,end]],"matches","terms"}]}]`.

use serde::{Deserialize, Serialize};

use crate::search::hits::{Hit, SessionMatch};
use session_ref_stores::remote::WireSession;

/// A matching session, as `search` sends it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WireMatch {
    /// The session, as `list` sends it.
    pub session: WireSession,
    /// Matches over all its messages.
    pub matches: usize,
    /// Bytes of searchable text.
    pub text_bytes: usize,
    /// Matching messages in history order.
    pub hits: Vec<Hit>,
}

impl WireMatch {
    /// The match of `session` as sent.
    pub fn new(session: WireSession, found: &SessionMatch) -> Self {
        WireMatch {
            session,
            matches: found.matches,
            text_bytes: found.text_bytes,
            hits: found.hits.clone(),
        }
    }

    /// The session sent and its match as received. Highlights outside
    /// their snippet (a broken remote) are dropped, never trusted
    /// ([`Hit::checked`]).
    pub fn into_parts(self) -> (WireSession, SessionMatch) {
        let found = SessionMatch {
            hits: self.hits.into_iter().map(Hit::checked).collect(),
            matches: self.matches,
            text_bytes: self.text_bytes,
        };
        (self.session, found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn session() -> WireSession {
        WireSession {
            id: "s".to_owned(),
            kind: "hydra".to_owned(),
            cwd: None,
            created_at: "2025-01-01T00:00:00Z".to_owned(),
            path: "/d/s.jsonl".to_owned(),
            root: "/d".to_owned(),
            title: None,
            updated_at: Some(7),
        }
    }

    #[test]
    fn a_match_goes_on_the_wire_as_protocol_1_spells_it() {
        let hit = Hit {
            message: 2,
            role: session_ref_core::projection::Role::Assistant,
            checkpoint: false,
            before_compaction: true,
            line: 1,
            snippet: "a needle".to_owned(),
            highlights: std::iter::once(2..8).collect(),
            matches: 1,
            terms: 1,
        };
        let found = SessionMatch {
            hits: vec![hit],
            matches: 1,
            text_bytes: 40,
        };
        let sent = serde_json::to_string(&WireMatch::new(session(), &found)).unwrap();
        assert_eq!(
            sent,
            concat!(
                r#"{"session":{"id":"s","kind":"hydra","cwd":null,"createdAt":"2025-01-01T00:00:00Z","#,
                r#""path":"/d/s.jsonl","root":"/d","title":null,"updatedAt":7},"matches":1,"textBytes":40,"#,
                r#""hits":[{"message":2,"role":"assistant","checkpoint":false,"beforeCompaction":true,"#,
                r#""line":1,"snippet":"a needle","highlights":[[2,8]],"matches":1,"terms":1}]}"#
            )
        );
        let back: WireMatch = serde_json::from_str(&sent).unwrap();
        assert_eq!(back.into_parts().1, found);
    }

    #[test]
    fn a_remotes_bad_ranges_and_unknown_role_are_not_trusted() {
        let sent = json!({
            "session": session(), "matches": 3, "textBytes": 9,
            "hits": [{
                "message": 0, "role": "system", "checkpoint": false,
                "beforeCompaction": false, "line": 0, "snippet": "héllo",
                "highlights": [[0, 1], [1, 2], [3, 1], [0, 99]],
                "matches": 3, "terms": 1,
            }],
        });
        let (_, found) = serde_json::from_value::<WireMatch>(sent)
            .unwrap()
            .into_parts();
        let hit = &found.hits[0];
        assert_eq!(hit.role, session_ref_core::projection::Role::User);
        assert_eq!(hit.highlights, std::iter::once(0..1).collect::<Vec<_>>());
    }
}
