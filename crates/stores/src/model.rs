//! The one session model every store kind maps onto (SPEC §1, §2): the
//! core's conversation model, the listed record ([`SessionRecord`], with
//! its [`StoreKind`]; defined beside the `Store` trait they and it name,
//! re-exported here), the record order and a session read whole.

pub use session_ref_core::model::{
    Block, EventKind, History, MessageSource, Surface, SurfaceEvent, SurfaceSink, ToolEvent,
    ToolPart,
};

pub use crate::store::{SessionRecord, StoreKind};

/// Total record order of `listSessions`: newest instant first, unparseable
/// instants last, ties by path bytes ascending.
pub fn record_order(a: &SessionRecord, b: &SessionRecord) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let by_time = match (&a.created, &b.created) {
        (Some(x), Some(y)) => y.cmp(x),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    };
    by_time.then_with(|| {
        a.path
            .as_os_str()
            .as_encoded_bytes()
            .cmp(b.path.as_os_str().as_encoded_bytes())
    })
}

/// A session read whole: its record, latest title and folded surface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSnapshot {
    /// The listed record.
    pub record: SessionRecord,
    /// The latest title, when any.
    pub title: Option<String>,
    /// The folded surface.
    pub surface: Surface,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use std::sync::Arc;

    fn record(path: &str, created_at: &str) -> SessionRecord {
        SessionRecord::new(
            crate::kinds::native::KIND,
            Arc::from(Path::new("/s")),
            path.into(),
            path.into(),
            None,
            created_at.into(),
        )
    }

    #[test]
    fn record_order_is_newest_instant_first_then_path_bytes() {
        let mut records = [
            record("/s/unparsed-b.jsonl", "yesterday"),
            record("/s/old.jsonl", "2025-01-01T00:00:00Z"),
            record("/s/unparsed-a.jsonl", ""),
            // The same instant as /s/same-b, spelled in another offset.
            record("/s/same-c.jsonl", "2025-03-01T12:00:00+02:00"),
            record("/s/same-b.jsonl", "2025-03-01T10:00:00.000Z"),
            record("/s/new.jsonl", "2025-03-01T10:00:00.5Z"),
            record("/s/Z.jsonl", "2025-01-01T00:00:00Z"),
        ];
        records.sort_by(record_order);
        let paths: Vec<_> = records.iter().map(|r| r.path.to_str().unwrap()).collect();
        assert_eq!(
            paths,
            [
                "/s/new.jsonl",
                "/s/same-b.jsonl",
                "/s/same-c.jsonl",
                "/s/Z.jsonl",
                "/s/old.jsonl",
                "/s/unparsed-a.jsonl",
                "/s/unparsed-b.jsonl",
            ]
        );
    }

    #[test]
    fn store_kinds_are_named_and_padded() {
        let names: Vec<_> = crate::registry::REGISTRY
            .iter()
            .map(|k| format!("[{k:<6}]"))
            .collect();
        assert_eq!(
            names,
            [
                "[hydra ]",
                "[claude]",
                "[codex ]",
                "[gemini]",
                "[pi    ]",
                "[qwen  ]",
                "[copilot]",
                "[opencode]",
                "[antigravity]",
                "[cursor]",
                "[cline ]",
                "[kilo  ]",
                "[droid ]",
                "[crush ]",
                "[goose ]",
                "[continue]",
                "[kimi  ]",
                "[vibe  ]",
                "[amp   ]",
                "[aider ]"
            ]
        );
    }
}
