//! Listing a Gemini CLI root: the head of each chat file (its metadata
//! line, or a legacy file's top-level fields), kept in the title index per
//! file version, and the files grouped by `sessionId` so that a session
//! with several files is listed once, by its current file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::layout::{chat_files, is_legacy, Projects};
use super::session::{current_file, facts_of, remember_folders, Facts};
use crate::caches::Caches;
use crate::index::title::TitleIndex;
use crate::model::{SessionRecord, StoreKind};
use crate::store::ScanEvent;
use session_ref_core::time::Instant;
use session_ref_jsonl::lines;

/// What listing needs of one file: its metadata, read from the head.
#[derive(Debug, Clone)]
pub(super) struct Head {
    pub(super) session_id: String,
    pub(super) project_hash: Option<String>,
    pub(super) start_time: Option<String>,
    pub(super) subagent: bool,
    modified: Option<SystemTime>,
}

/// What a file's bytes say of it for listing: its head's fields, or why it
/// is not a session chat. Kept in the title index per file version
/// ([`TitleIndex::file_fact`]): a legacy `.json` gives its head only when
/// parsed whole, and a warm listing must not parse every one again.
#[derive(Debug, Clone, Serialize, Deserialize)]
enum HeadFact {
    /// A chat's head.
    Chat {
        session_id: String,
        project_hash: Option<String>,
        start_time: Option<String>,
        subagent: bool,
    },
    /// Not a Gemini CLI session chat, and why.
    Skipped(String),
}

/// The head of `path` below `root`, through the title index when in use
/// (`kind` is Gemini CLI's handle, the index's key).
pub(super) fn head_of(
    kind: StoreKind,
    caches: &Caches,
    root: &Path,
    path: &Path,
) -> Result<Head, NotListed> {
    let mut unreadable = None;
    let index = caches.get::<TitleIndex>();
    let found = index.file_fact(kind, root, path, || match read_head(path) {
        Ok(head) => Some(HeadFact::Chat {
            session_id: head.session_id,
            project_hash: head.project_hash,
            start_time: head.start_time,
            subagent: head.subagent,
        }),
        Err(NotListed::Skipped(reason)) => Some(HeadFact::Skipped(reason)),
        Err(e @ NotListed::Unreadable(_)) => {
            unreadable = Some(e);
            None
        }
    });
    match found {
        Some((
            stamp,
            Some(HeadFact::Chat {
                session_id,
                project_hash,
                start_time,
                subagent,
            }),
        )) => Ok(Head {
            session_id,
            project_hash,
            start_time,
            subagent,
            modified: stamp.modified(),
        }),
        Some((_, Some(HeadFact::Skipped(reason)))) => Err(NotListed::Skipped(reason)),
        Some((_, None)) => Err(unreadable
            .unwrap_or_else(|| NotListed::Unreadable("Gemini CLI chat could not be read".into()))),
        None => read_head(path),
    }
}

/// Why a file is not listed.
pub(super) enum NotListed {
    /// Not a Gemini session chat (reason).
    Skipped(String),
    /// Could not be read (reason).
    Unreadable(String),
}

/// The metadata line of a `.jsonl` chat, or the top-level fields of a
/// legacy `.json` (its messages skipped over, not built).
fn read_head(path: &Path) -> Result<Head, NotListed> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Fields {
        session_id: Option<Value>,
        project_hash: Option<Value>,
        start_time: Option<Value>,
        kind: Option<Value>,
    }
    let io = |e: std::io::Error| NotListed::Unreadable(e.to_string());
    let modified = std::fs::metadata(path).map_err(io)?.modified().ok();
    let fields: Fields = if is_legacy(path) {
        let bytes = std::fs::read(path).map_err(io)?;
        serde_json::from_slice(&bytes)
            .map_err(|e| NotListed::Unreadable(format!("legacy Gemini chat is not JSON: {e}")))?
    } else {
        let line = lines::first_line(path).map_err(io)?.unwrap_or_default();
        serde_json::from_slice(&line).map_err(|_| {
            NotListed::Skipped("not a Gemini chat: line 1 is not a metadata object".into())
        })?
    };
    let text = |v: Option<Value>| match v {
        Some(Value::String(s)) => Some(s),
        _ => None,
    };
    let Some(session_id) = text(fields.session_id) else {
        return Err(NotListed::Skipped("not a Gemini chat: no sessionId".into()));
    };
    Ok(Head {
        session_id,
        project_hash: text(fields.project_hash),
        start_time: text(fields.start_time),
        subagent: text(fields.kind).as_deref() == Some("subagent"),
        modified,
    })
}

/// Why a sub-agent's chat is not listed.
pub(crate) const SUBAGENT: &str = "Gemini CLI sub-agent chat (part of its parent session)";

/// List the sessions under a Gemini CLI root (`.gemini`) as `kind`.
pub(super) fn scan_root(
    kind: StoreKind,
    caches: &Caches,
    root: &Arc<Path>,
    sink: &(dyn Fn(ScanEvent) + Sync),
) {
    remember_folders(caches, root);
    caches.get::<TitleIndex>().listing_root(kind, root);
    let projects = Projects::read(caches, root, &mut |path, reason| {
        sink(ScanEvent::Unreadable { path, reason })
    });
    let mut files: Vec<(usize, PathBuf)> = Vec::new();
    for (index, folder) in projects.folders.iter().enumerate() {
        match chat_files(&folder.path) {
            Ok((sessions, subagents)) => {
                files.extend(sessions.into_iter().map(|p| (index, p)));
                for path in subagents {
                    sink(ScanEvent::Skipped {
                        path,
                        reason: SUBAGENT.into(),
                    });
                }
            }
            Err(e) => sink(ScanEvent::Unreadable {
                path: folder.path.join("chats"),
                reason: e.to_string(),
            }),
        }
    }
    let heads: Vec<Result<Head, NotListed>> = files
        .par_iter()
        .map(|(_, path)| head_of(kind, caches, root, path))
        .collect();
    let mut groups: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut order: Vec<&str> = Vec::new();
    for (i, head) in heads.iter().enumerate() {
        let path = &files[i].1;
        match head {
            Ok(head) if head.subagent => sink(ScanEvent::Skipped {
                path: path.clone(),
                reason: SUBAGENT.into(),
            }),
            Ok(head) => {
                let members = groups.entry(&head.session_id).or_default();
                if members.is_empty() {
                    order.push(&head.session_id);
                }
                members.push(i);
            }
            Err(NotListed::Skipped(reason)) => sink(ScanEvent::Skipped {
                path: path.clone(),
                reason: reason.clone(),
            }),
            Err(NotListed::Unreadable(reason)) => sink(ScanEvent::Unreadable {
                path: path.clone(),
                reason: reason.clone(),
            }),
        }
    }
    let head = |i: usize| heads[i].as_ref().ok().expect("grouped heads parsed");
    order.par_iter().for_each(|&id| {
        let members = &groups[id];
        let listed = listed_file(caches, members, &files, &|i| head(i).modified);
        for &other in members.iter().filter(|&&i| i != listed) {
            sink(ScanEvent::Skipped {
                path: files[other].1.clone(),
                reason: format!(
                    "another file of Gemini CLI session {id} (listed as {})",
                    files[listed].1.display()
                ),
            });
        }
        let created_at = members
            .iter()
            .filter_map(|&i| head(i).start_time.as_deref())
            .min_by_key(|t| Instant::parse_rfc3339(t).map_or((1, None), |at| (0, Some(at))))
            .unwrap_or_default()
            .to_owned();
        let cwd = members.iter().find_map(|&i| {
            let folder = &projects.folders[files[i].0];
            projects.root_of(folder, head(i).project_hash.as_deref())
        });
        sink(ScanEvent::Record(SessionRecord::new(
            kind,
            root.clone(),
            files[listed].1.clone(),
            id.to_owned(),
            cwd,
            created_at,
        )));
    });
}

/// Which of a session's files is listed: the current chat (see
/// [`current_file`]) when the session has several files, so that listing
/// names the file a preview reads; by modification time when none of them
/// can be read whole any more.
fn listed_file(
    caches: &Caches,
    members: &[usize],
    files: &[(usize, PathBuf)],
    modified: &dyn Fn(usize) -> Option<SystemTime>,
) -> usize {
    if let [only] = members {
        return *only;
    }
    let facts: Vec<(PathBuf, Arc<Facts>)> = members
        .iter()
        .filter_map(|&i| {
            let path = &files[i].1;
            Some((path.clone(), facts_of(caches, path).ok()?))
        })
        .collect();
    if let Some(path) = current_file(&facts) {
        if let Some(&i) = members.iter().find(|&&i| files[i].1 == *path) {
            return i;
        }
    }
    *members
        .iter()
        .max_by_key(|&&i| (modified(i), files[i].1.clone()))
        .expect("a group has a member")
}
