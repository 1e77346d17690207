//! The key naming the kind of a session in every JSON output, and its old
//! name kept for one release (CHANGELOG): one source for the field name the
//! engine's candidates, the search results and the MCP answers carry.

/// The key naming the kind of a session (`claude`, `codex`, `hydra`, …) in
/// every JSON output: what users call the agent that wrote it.
pub const AGENT_KEY: &str = "agent";

/// The old name of [`AGENT_KEY`] in `candidates --json` and `search
/// --json`, still written after it for one release (CHANGELOG, 0.x).
pub const OLD_AGENT_KEY: &str = "store";

/// The kind of a session as JSON outputs write it: `"agent": KIND`, then
/// the alias `"store": KIND` (flattened into the object holding it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentKey(pub &'static str);

impl AgentKey {
    /// Both keys, in the order they are written.
    pub const KEYS: [&'static str; 2] = [AGENT_KEY, OLD_AGENT_KEY];
}

impl serde::Serialize for AgentKey {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(Self::KEYS.len()))?;
        for key in Self::KEYS {
            map.serialize_entry(key, self.0)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kind_of_a_session_is_written_as_agent_then_its_old_name() {
        #[derive(serde::Serialize)]
        struct Row {
            id: u8,
            #[serde(flatten)]
            agent: AgentKey,
            path: u8,
        }
        let row = Row {
            id: 1,
            agent: AgentKey("codex"),
            path: 2,
        };
        assert_eq!(
            serde_json::to_string(&row).unwrap(),
            r#"{"id":1,"agent":"codex","store":"codex","path":2}"#
        );
    }
}
