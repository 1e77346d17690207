//! Helpers the Claude Code tests share: transcript lines, files in a
//! temporary store, records and titles read as a catalog reads them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::caches::Caches;
use crate::error::ReadError;
use crate::model::SessionRecord;

thread_local! {
    /// One test's caches, kept across its calls as a catalog keeps them.
    pub(super) static CACHES: Caches = Caches::default();
}

/// The session's title, through this thread's caches.
pub(super) fn read_title(record: &SessionRecord) -> Result<Option<String>, ReadError> {
    CACHES.with(|caches| super::read_title(caches, record))
}

/// The working directory of the test transcripts.
pub(super) const CWD: &str = "/home/dev/shop";

/// A `user` line of the main conversation.
pub(super) fn user(uuid: &str, content: &str) -> String {
    format!(
        r#"{{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"{CWD}","sessionId":"s1","version":"2.1.4","type":"user","message":{{"role":"user","content":{content}}},"uuid":"{uuid}","timestamp":"2026-01-11T09:53:23.575Z"}}"#
    )
}

/// An `assistant` line of the main conversation.
pub(super) fn assistant(uuid: &str, id: &str, blocks: &str) -> String {
    format!(
        r#"{{"parentUuid":"p","isSidechain":false,"cwd":"{CWD}","sessionId":"s1","type":"assistant","message":{{"id":"{id}","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":{blocks}}},"uuid":"{uuid}","timestamp":"2026-01-11T09:53:28.293Z"}}"#
    )
}

/// Write `lines` as the file `name` under `dir`.
pub(super) fn write(dir: &Path, name: &str, lines: &[String]) -> PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// The record of the transcript at `path`, as listing reads it.
pub(super) fn record_of(root: &Path, path: &Path) -> SessionRecord {
    super::read_record(&Arc::from(root), path).unwrap().unwrap()
}

/// A `user` line typed as `text` with one more field, `key`, whose
/// value is the JSON `value`.
pub(super) fn user_with(key: &str, value: &str, text: &str) -> String {
    user("x", &format!("{text:?}")).replacen(
        r#""type":"user""#,
        &format!(r#""type":"user","{key}":{value}"#),
        1,
    )
}

/// `2026-01-01` plus `days`, as an RFC 3339 timestamp (midnight UTC).
pub(super) fn format_day(days: u64) -> String {
    // Days since 1970-01-01 to a civil date (Hinnant's algorithm).
    let z = 20_454 + days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T00:00:00.000Z")
}
