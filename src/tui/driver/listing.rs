//! What discovery reads beside each record, on the pool's threads: the
//! titles, last activity and latest typed prompts the list shows.

use rayon::prelude::*;

use session_ref_engine::rank::EntryId;
use session_ref_stores::model::SessionRecord;
use session_ref_stores::Caches;

/// Read the titles of `batch` with `caches` on rayon's pool, through the
/// title index as `candidates` reads them ([`session_ref_stores::read_title`]),
/// `None` for an absent or unreadable title.
pub fn read_titles(
    caches: &Caches,
    batch: &[(EntryId, SessionRecord)],
) -> Vec<(EntryId, Option<String>)> {
    batch
        .par_iter()
        .map(|(id, record)| {
            let title = session_ref_stores::read_title(caches, record);
            (*id, title.ok().flatten())
        })
        .collect()
}

/// What the list shows of a session besides its record, read by
/// [`discover`] on the thread that listed it.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    /// Its latest title (`None`: absent or unreadable).
    pub title: Option<String>,
    /// Its last activity (Unix seconds), when it can be read.
    pub activity: Option<i64>,
}

impl Listed {
    /// Read what the list shows of `record` with `caches`: its title and
    /// last activity through the title index, as `candidates` reads them
    /// (a warm listing opens no log).
    pub fn read(caches: &Caches, record: &SessionRecord) -> Listed {
        Listed {
            title: session_ref_stores::read_title(caches, record)
                .ok()
                .flatten(),
            activity: session_ref_stores::last_activity(caches, record),
        }
    }
}

/// The latest prompt typed in each session of `batch` (its first line),
/// `None` when it has none or cannot be read: what tells a fork from its
/// parent, which start alike, in the list.
/// Read with `caches` alone: a job holding the catalog would make the
/// next discovery batch copy it (the state appends to it in place).
pub fn read_latest_prompts(
    caches: &Caches,
    batch: &[(EntryId, SessionRecord)],
) -> Vec<(EntryId, Option<String>)> {
    use session_ref_stores::model::{Block, EventKind, MessageSource};
    let latest = |record: &SessionRecord| -> Option<String> {
        let surface = session_ref_stores::reader_of(record)
            .read_surface(caches, record)
            .ok()?;
        surface
            .events
            .iter()
            .rev()
            .find_map(|event| match &event.kind {
                EventKind::UserMessage {
                    source: MessageSource::User,
                    content,
                } => content.iter().find_map(|block| match block {
                    Block::Text(text) => text
                        .lines()
                        .map(str::trim)
                        .find(|line| !line.is_empty())
                        .map(str::to_owned),
                    _ => None,
                }),
                _ => None,
            })
    };
    batch
        .par_iter()
        .map(|(id, record)| (*id, latest(record)))
        .collect()
}

/// Last activity of each session ([`session_ref_stores::last_activity`]: the
/// newest time its log records, through the title index of `caches`),
/// read on rayon's pool. Sessions whose time cannot be read are left out.
pub fn read_activity(caches: &Caches, batch: &[(EntryId, SessionRecord)]) -> Vec<(EntryId, i64)> {
    batch
        .par_iter()
        .filter_map(|(id, record)| Some((*id, session_ref_stores::last_activity(caches, record)?)))
        .collect()
}
