//! The first-prompt title of an untitled session that is a row of an
//! agent's database (Goose, opencode and Kilo Code, Crush), kept in the
//! title index between runs.
//!
//! Such a session's title is its first prompt, and finding that means
//! reading its first messages: SQLite sorts them by their time, reading
//! each one whole, and for the third of the sessions a generated store
//! leaves untitled that was most of a listing's cost (10,000 Goose
//! sessions: 0.55 s CPU warm or cold). The record is not a file of its
//! own, so the index cannot stamp it; the kind gives a [`RowVersion`]
//! instead: the row's own update time, which the agent moves with every
//! message it adds, and a salt for anything else in the row the title
//! depends on (opencode's revert point).
//!
//! Only a title found is kept: a session without a prompt yet is read
//! again each time (it has no messages to speak of), so a first prompt
//! written without moving the update time is still found. A version
//! within two seconds of now is not told apart from the next one (the
//! agents write whole seconds or milliseconds) and not kept.

use std::path::Path;

use crate::caches::Caches;
use crate::error::ReadError;
use crate::index::stamp::Stamp;
use crate::index::title::TitleIndex;
use crate::model::{SessionRecord, StoreKind};

/// What identifies a database session's messages between runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowVersion {
    /// The row's update time, nanoseconds since the epoch.
    pub updated_ns: i128,
    /// A hash of the row's other inputs of the title (0 when none).
    pub salt: u64,
}

impl RowVersion {
    /// The version of a row updated at `unix_ms` (milliseconds).
    pub fn from_ms(unix_ms: i64, salt: u64) -> RowVersion {
        RowVersion {
            updated_ns: i128::from(unix_ms) * 1_000_000,
            salt,
        }
    }

    /// The version of a row updated at `unix_seconds`.
    pub fn from_secs(unix_seconds: i64, salt: u64) -> RowVersion {
        RowVersion::from_ms(unix_seconds.saturating_mul(1000), salt)
    }

    /// The stamp the title index keys the title by.
    fn stamp(self) -> Stamp {
        Stamp {
            len: 0,
            mtime_ns: self.updated_ns,
            inode: self.salt,
        }
    }
}

/// The first-prompt title of `record` (a row of `kind`'s database),
/// untitled in its row: from the title index while `version` is
/// unchanged, else `read` (and kept when it finds one). `version` is
/// `None` when the row's time could not be read: then always `read`.
pub fn first_prompt_title(
    caches: &Caches,
    kind: StoreKind,
    record: &SessionRecord,
    version: Option<RowVersion>,
    read: impl Fn() -> Result<Option<String>, ReadError>,
) -> Result<Option<String>, ReadError> {
    let Some(stamp) = version.map(RowVersion::stamp).filter(|s| !s.racy()) else {
        return read();
    };
    let mut failed = None;
    let kept = caches
        .get::<TitleIndex>()
        .fact_at(kind, &record.root, &record.path, stamp, || match read() {
            Ok(title) => title,
            Err(e) => {
                failed = Some(e);
                None
            }
        });
    match (kept, failed) {
        (_, Some(e)) => Err(e),
        (Some((_, Some(title))), None) => Ok(Some(title)),
        // No title found (not kept), or the index is off.
        (Some((_, None)), None) => Ok(None),
        (None, None) => read(),
    }
}

/// Note that a listing of `root` read every row of its databases and
/// that `records` are all the sessions it found: the index then drops
/// the titles it kept for sessions since deleted. Call it only when every
/// database of the root was read.
pub fn listed_all<'a>(
    caches: &Caches,
    kind: StoreKind,
    root: &Path,
    records: impl IntoIterator<Item = &'a Path>,
) {
    caches
        .get::<TitleIndex>()
        .listed_records(kind, root, records);
}
