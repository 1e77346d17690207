//! `candidates`' two outputs: one JSON object per session (its fields
//! documented in [`CANDIDATE_FIELDS`]) and the table.

use crate::config::SortBy;
use session_ref_core::json;
use session_ref_engine::engine::Candidate;

/// The fields of `candidates --json` (one object per line), in order.
pub const CANDIDATE_FIELDS: &[crate::json_fields::Field] = {
    use crate::json_fields::Field;
    &[
        Field::new("sessionId", "the session's id"),
        Field::new("label", "its latest title, else the id (one printable line)"),
        Field::new("cwd", "its working directory; absent when unknown"),
        Field::new("createdAt", "its creation time, exactly as logged"),
        Field::new("mention", "the canonical mention with this label"),
        Field::new("agent", "the agent that wrote it (`claude`, `codex`, `hydra`, …)"),
        Field::new("store", "the same as `agent` (its old name, kept for one release)"),
        Field::new("path", "the log file (or database) it is read from"),
        Field::new("lastActivity", "the newest time the session records, else its log's modification time; absent when unknown"),
        Field::remote("host", "the machine holding it (`--remote`)"),
    ]
};

/// One JSON object per candidate, keys in [`Candidate`]'s serde order, as
/// `JSON.stringify` writes them. Written field by field into one buffer:
/// going through `serde_json::Value` per candidate was a fifth of a warm
/// 10,000-session listing (tested equal below).
pub(super) fn candidates_json(found: &[Candidate]) -> String {
    let mut out = String::with_capacity(found.len() * 320);
    for c in found {
        let fields = [
            ("sessionId", Some(c.session_id.as_str())),
            ("label", Some(c.label.as_str())),
            ("cwd", c.cwd.as_deref()),
            ("createdAt", Some(c.created_at.as_str())),
            ("mention", Some(c.mention.as_str())),
            (session_ref_engine::agent_key::AGENT_KEY, Some(c.agent.0)),
            (
                session_ref_engine::agent_key::OLD_AGENT_KEY,
                Some(c.agent.0),
            ),
            ("path", Some(c.path.as_str())),
            ("lastActivity", c.last_activity.as_deref()),
            ("host", c.host.as_deref()),
        ];
        let mut first = true;
        for (key, value) in fields {
            let Some(value) = value else { continue };
            out.push(if first { '{' } else { ',' });
            first = false;
            out.push('"');
            out.push_str(key);
            out.push_str("\":");
            json::write_str(&mut out, value, false);
        }
        if c.archived {
            out.push_str(",\"archived\":true");
        }
        out.push_str("}\n");
    }
    out
}

/// The table; its time column says what it counts: CREATED (the age since
/// creation, the order SPEC §6 fixes) or, sorted by activity, ACTIVE (since
/// the last activity, as the picker shows it).
pub(super) fn candidates_table(found: &[Candidate], sort: SortBy) -> String {
    if found.is_empty() {
        return String::new();
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let home = std::env::var("HOME").ok();
    let rows: Vec<[String; 5]> = found
        .iter()
        .map(|c| {
            [
                crate::display::one_line(&c.label, 60),
                c.cwd.as_deref().map_or_else(
                    || "-".to_owned(),
                    |cwd| crate::display::short_path(cwd, home.as_deref()),
                ),
                match (sort, c.activity) {
                    (SortBy::Updated, Some(time)) => crate::display::age_since(time, now),
                    _ => crate::display::age(&c.created_at, now),
                },
                match (&c.host, c.archived) {
                    (Some(host), _) => {
                        format!("{}@{}", c.agent.0, crate::display::escape_unsafe(host))
                    }
                    (None, true) => format!("{} (archived)", c.agent.0),
                    (None, false) => c.agent.0.to_owned(),
                },
                c.session_id.clone(),
            ]
        })
        .collect();
    let time = match sort {
        SortBy::Created => "CREATED",
        SortBy::Updated => "ACTIVE",
    };
    crate::display::table(&["LABEL", "CWD", time, "STORE", "ID"], &rows)
}
