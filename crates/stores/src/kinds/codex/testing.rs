//! Helpers the Codex tests share: rollout lines, a temporary store,
//! records and titles read as a catalog reads them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{read_record, Head, SESSION_INDEX};
use crate::caches::Caches;
use crate::error::ReadError;
use crate::model::SessionRecord;

thread_local! {
    /// One test's caches, kept across its calls as a catalog keeps them.
    static CACHES: Caches = Caches::default();
}

/// The session's title, through this thread's caches.
pub(super) fn read_title(record: &SessionRecord) -> Result<Option<String>, ReadError> {
    CACHES.with(|caches| super::read_title(caches, record))
}

/// The id of the test rollouts.
pub(super) const ID: &str = "019b7f94-51b4-7593-922e-ba12b5b73b52";

/// A `session_meta` line of session `id`, with `cwd` when given.
pub(super) fn meta(id: &str, cwd: Option<&str>) -> String {
    let cwd = cwd.map_or(String::new(), |c| format!(r#","cwd":"{c}""#));
    format!(
        r#"{{"timestamp":"2026-01-02T16:39:45.349Z","type":"session_meta","payload":{{"id":"{id}","timestamp":"2026-01-02T16:39:45.332Z"{cwd},"originator":"codex_cli_rs","cli_version":"0.77.0","instructions":null}}}}"#
    )
}

/// A user `response_item` message typed as `text`.
pub(super) fn item_user(text: &str) -> String {
    format!(
        r#"{{"timestamp":"2026-01-02T16:39:46.000Z","type":"response_item","payload":{{"type":"message","role":"user","content":[{{"type":"input_text","text":{}}}]}}}}"#,
        serde_json::to_string(text).unwrap()
    )
}

/// An assistant `response_item` message saying `text`.
pub(super) fn item_assistant(text: &str) -> String {
    format!(
        r#"{{"timestamp":"2026-01-02T16:39:50.000Z","type":"response_item","payload":{{"type":"message","role":"assistant","content":[{{"type":"output_text","text":{}}}]}}}}"#,
        serde_json::to_string(text).unwrap()
    )
}

/// An `event_msg` of type `kind` whose `field` is `text`, at `at`.
pub(super) fn event(kind: &str, field: &str, text: &str, at: &str) -> String {
    format!(
        r#"{{"timestamp":"{at}","type":"event_msg","payload":{{"type":"{kind}","{field}":{}}}}}"#,
        serde_json::to_string(text).unwrap()
    )
}

/// A `turn_context` line in `cwd`.
pub(super) fn turn_context(cwd: &str) -> String {
    format!(
        r#"{{"timestamp":"2026-01-02T16:39:47.000Z","type":"turn_context","payload":{{"cwd":"{cwd}","approval_policy":"never","model":"gpt-5-codex"}}}}"#
    )
}

/// A temporary Codex store: `sessions` in a temporary directory.
pub(super) struct Store {
    _dir: tempfile::TempDir,
    /// The `sessions` directory.
    pub(super) root: Arc<Path>,
}

impl Store {
    /// An empty store.
    pub(super) fn new() -> Store {
        let dir = tempfile::tempdir().unwrap();
        let root: Arc<Path> = Arc::from(dir.path().join("sessions"));
        std::fs::create_dir_all(&root).unwrap();
        Store { _dir: dir, root }
    }

    /// Write `lines` as the rollout `name` of 2026-01-02.
    pub(super) fn write(&self, name: &str, lines: &[String]) -> PathBuf {
        let path = self.root.join("2026/01/02").join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        path
    }

    /// The record of the rollout at `path`, as listing reads it.
    pub(super) fn record(&self, path: &Path) -> SessionRecord {
        match read_record(&self.root, path).unwrap().unwrap() {
            Head::Session(record) => record,
            Head::Review => panic!("a review sub-agent"),
        }
    }

    /// Write `lines` as the store's `session_index.jsonl`.
    pub(super) fn index(&self, lines: &[&str]) {
        let path = self.root.parent().unwrap().join(SESSION_INDEX);
        std::fs::write(path, lines.join("\n") + "\n").unwrap();
    }
}

/// The file name of session `id`'s rollout.
pub(super) fn rollout(id: &str) -> String {
    format!("rollout-2026-01-02T18-39-45-{id}.jsonl")
}

/// A 0.171 `session_meta` line: paginated, with `source`, and for a
/// fork `forked_from_id` and `history_base`.
pub(super) fn meta_171(id: &str, source: &str, base: Option<(&str, u64)>) -> String {
    let fork = match base {
        Some((parent, end)) => format!(
            r#""forked_from_id":"{parent}","history_base":{{"thread_id":"{parent}","end_ordinal_exclusive":14,"end_byte_offset":{end}}},"#
        ),
        None => String::new(),
    };
    format!(
        r#"{{"timestamp":"2026-12-01T18:54:15.709Z","ordinal":0,"type":"session_meta","payload":{{"account_scoped":true,"session_id":"{id}","id":"{id}","timestamp":"2026-12-01T18:54:15.700Z","cwd":"/w","originator":"codex_exec","cli_version":"0.171.0","source":{source},"thread_source":"user","model_provider":"mock",{fork}"history_mode":"paginated"}}}}"#
    )
}

/// A 0.171 `item_completed` event of a `UserMessage` typed as `text`.
pub(super) fn user_completed(thread: &str, text: &str) -> String {
    format!(
        r#"{{"timestamp":"2026-12-01T18:54:16.000Z","ordinal":4,"type":"event_msg","payload":{{"type":"item_completed","thread_id":"{thread}","turn_id":"t","item":{{"type":"UserMessage","id":"u","content":[{{"type":"text","text":{},"text_elements":[]}}]}}}}}}"#,
        serde_json::to_string(text).unwrap()
    )
}
