//! Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).

use std::path::Path;
use std::sync::Arc;

use crate::store::model::{SessionRecord, Surface};
use crate::store::{ReadError, ScanEvent};

/// List the sessions under a Codex `sessions` directory.
pub fn scan(_root: &Arc<Path>, _sink: &(dyn Fn(ScanEvent) + Sync)) {}

/// The session's title.
pub fn read_title(record: &SessionRecord) -> Result<Option<String>, ReadError> {
    Err(ReadError {
        path: record.path.clone(),
        line: None,
        message: "codex store not yet readable".into(),
    })
}

/// The session's folded surface.
pub fn read_surface(record: &SessionRecord) -> Result<Surface, ReadError> {
    Err(ReadError {
        path: record.path.clone(),
        line: None,
        message: "codex store not yet readable".into(),
    })
}
