//! The one session model every store kind maps onto (SPEC §1, §2).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use session_ref_core::model::{
    Block, EventKind, History, MessageSource, Surface, SurfaceEvent, SurfaceSink, ToolEvent,
    ToolPart,
};
use session_ref_core::time::Instant;

use crate::store::Store;

/// Which kind of store a session came from: a handle to one registered
/// [`Store`], compared, hashed and shown by its name.
#[derive(Clone, Copy)]
pub struct StoreKind(&'static dyn Store);

impl StoreKind {
    /// The handle of a store (each kind's file defines its `KIND` with it).
    pub const fn new(store: &'static dyn Store) -> Self {
        StoreKind(store)
    }

    /// The store itself.
    pub fn store(self) -> &'static dyn Store {
        self.0
    }

    /// The kind's name as shown and serialized (`hydra`, `claude`, `codex`,
    /// `gemini`).
    pub fn as_str(self) -> &'static str {
        self.0.name()
    }
}

impl PartialEq for StoreKind {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for StoreKind {}

impl std::hash::Hash for StoreKind {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Debug for StoreKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StoreKind({})", self.as_str())
    }
}

impl fmt::Display for StoreKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// A listed session: what listing knows without reading the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRecord {
    /// The session id (any string).
    pub id: String,
    /// The session's working directory, when known.
    pub cwd: Option<String>,
    /// Creation time exactly as the log spells it.
    pub created_at: String,
    /// `created_at` parsed as an instant, `None` when it does not parse.
    pub created: Option<Instant>,
    /// The store kind that holds it.
    pub kind: StoreKind,
    /// The log file.
    pub path: PathBuf,
    /// The store root it was found under (adapters read side files from it).
    pub root: Arc<Path>,
    /// The machine holding it, for a session listed by a remote
    /// ([`crate::remote`]); `None` for a session of this machine.
    pub host: Option<Arc<str>>,
    /// Last activity (Unix seconds) as its remote reported it; `None` for
    /// a local session, whose activity is read from its log.
    pub updated: Option<i64>,
    /// Whether the session is listed from session-ref's archive only
    /// ([`crate::archive`]): its agent no longer has it, and it is read
    /// from the copy `keep` made, by its kind's own reader.
    pub archived: bool,
}

impl SessionRecord {
    /// Build a record, parsing `created_at` once.
    pub fn new(
        kind: StoreKind,
        root: Arc<Path>,
        path: PathBuf,
        id: String,
        cwd: Option<String>,
        created_at: String,
    ) -> Self {
        let created = Instant::parse_rfc3339(&created_at);
        SessionRecord {
            id,
            cwd,
            created_at,
            created,
            kind,
            path,
            root,
            host: None,
            updated: None,
            archived: false,
        }
    }
}

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
