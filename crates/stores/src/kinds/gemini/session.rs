//! A listed Gemini CLI session's files and the one Gemini CLI would resume:
//! the other files are found by id fragment ([`ChatListing`]), each file's
//! [`Facts`] are kept per file version, and the current file is the latest
//! updated one with conversation.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::chat::{parse_jsonl, parse_legacy, Chat};
use super::layout::{chat_files, file_id, in_hash_folder, is_legacy, project_folders};
use crate::caches::lock;
use crate::caches::Caches;
use crate::error::ReadError;
use crate::kinds::foreign::FileCache;
use crate::model::SessionRecord;
use session_ref_core::time::Instant;

/// What titling and choosing among a session's files need of one chat
/// file, cached per file version in the catalog's [`Caches`] (small: no
/// message text but the title).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facts {
    /// `sessionId`.
    pub session_id: Option<String>,
    /// A sub-agent's chat.
    pub subagent: bool,
    /// The latest `lastUpdated` (else `startTime`), as an instant.
    pub updated: Option<Instant>,
    /// Whether the chat holds any conversation (a resume stub does not).
    pub has_conversation: bool,
    /// The chat's title ([`Chat::title`]).
    pub title: Option<String>,
}

impl Facts {
    /// The facts of a replayed chat.
    pub fn of(chat: &Chat) -> Facts {
        Facts {
            session_id: chat.session_id.clone(),
            subagent: chat.is_subagent(),
            updated: chat
                .last_updated
                .as_deref()
                .or(chat.start_time.as_deref())
                .and_then(Instant::parse_rfc3339),
            has_conversation: chat.has_conversation(),
            title: chat.title(),
        }
    }
}

/// The Gemini CLI caches owned by the catalog's [`Caches`].
#[derive(Default)]
struct GeminiCaches {
    /// Facts of each chat file, by path and version.
    facts: FileCache<Facts>,
    /// The session chats of each `chats` directory, while the directory
    /// is unchanged (no file created, renamed or removed).
    listings: FileCache<ChatListing>,
    /// The project folders of each `tmp` directory, while it is unchanged.
    folders: FileCache<Vec<PathBuf>>,
    /// The session chats of every project folder of each root, as its
    /// last scan found them ([`Freshness::Scanned`]).
    scanned: Mutex<HashMap<PathBuf, Arc<ChatListing>>>,
}

/// The facts of one chat file, from the cache while the file is unchanged.
pub(super) fn facts_of(caches: &Caches, path: &Path) -> Result<Arc<Facts>, ReadError> {
    let caches = caches.get::<GeminiCaches>();
    caches
        .facts
        .get(path, 0, || read_chat(path).map(|chat| Facts::of(&chat)))
}

/// How current the list of a session's files must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Freshness {
    /// As the last scan of the root found the folders: listing reads every
    /// session's title right after scanning, and one look at the folders
    /// then serves them all (looking again per session stat-ed every
    /// folder once per session: 500,000 `stat` calls for 10,000 chats).
    Scanned,
    /// As the folders are now: what a preview reads is the chat Gemini CLI
    /// would resume now, even in a picker that listed long ago.
    Now,
}

/// The chat files of a listed session that may hold it: its own file and
/// the session chats of every project folder named with its id fragment
/// (`-<id8>.json` or `-<id8>.jsonl`), folders in path order.
pub(super) fn session_candidates(
    caches: &Caches,
    record: &SessionRecord,
    freshness: Freshness,
) -> Vec<PathBuf> {
    let fragment = file_id(&record.id);
    let gemini = caches.get::<GeminiCaches>();
    let mut paths = vec![record.path.clone()];
    let scanned = match freshness {
        Freshness::Scanned => lock(&gemini.scanned).get(&*record.root).cloned(),
        Freshness::Now => None,
    };
    if let Some(scanned) = scanned {
        let others = scanned.named_with(&fragment);
        paths.extend(others.filter(|p| **p != record.path).cloned());
        return paths;
    }
    let tmp = record.root.join("tmp");
    let folders = gemini
        .folders
        .get(&tmp, 0, || project_folders(&tmp))
        .unwrap_or_default();
    for folder in folders.iter() {
        let chats = folder.join("chats");
        if let Ok(listing) = gemini.listings.get(&chats, 0, || read_listing(folder)) {
            let others = listing.named_with(&fragment);
            paths.extend(others.filter(|p| **p != record.path).cloned());
        }
    }
    paths
}

/// The session chats of the project folder `folder`.
fn read_listing(folder: &Path) -> Result<ChatListing, ReadError> {
    chat_files(folder)
        .map(|(sessions, _)| ChatListing::of(sessions))
        .map_err(|e| ReadError::io(&folder.join("chats"), &e))
}

/// Look at every project folder of `root` once, for the title reads that
/// follow a scan ([`Freshness::Scanned`]).
pub(super) fn remember_folders(caches: &Caches, root: &Path) {
    let folders = project_folders(&root.join("tmp")).unwrap_or_default();
    let sessions = folders
        .iter()
        .filter_map(|folder| chat_files(folder).ok())
        .flat_map(|(sessions, _)| sessions)
        .collect();
    let listing = Arc::new(ChatListing::of(sessions));
    lock(&caches.get::<GeminiCaches>().scanned).insert(root.to_owned(), listing);
}

/// Session chats (of one `chats` folder, or of every folder of a root in
/// folder order), looked up by id fragment: a
/// listed session finds its other files without comparing its fragment
/// with every file name of the store (that comparison, once per session,
/// made listing quadratic in the number of chats).
#[derive(Debug, Default)]
struct ChatListing {
    /// The chats, in folder then path order.
    sessions: Vec<PathBuf>,
    /// Every fragment a chat's name ends with (`-<fragment>.json` or
    /// `-<fragment>.jsonl`, the fragment at most [`FRAGMENT_CHARS`]
    /// characters) to the positions of those chats in `sessions`.
    by_fragment: HashMap<String, Vec<usize>>,
}

/// The longest id fragment a chat's file name holds ([`file_id`]).
const FRAGMENT_CHARS: usize = 8;

impl ChatListing {
    pub(super) fn of(sessions: Vec<PathBuf>) -> ChatListing {
        let mut by_fragment: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, path) in sessions.iter().enumerate() {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default();
            for stem in [".json", ".jsonl"]
                .iter()
                .filter_map(|ext| name.strip_suffix(ext))
            {
                // Each suffix of the stem right after a `-`, up to the
                // longest fragment: exactly the fragments `f` for which
                // the name ends with `-f` and the extension.
                let mut starts: Vec<usize> = stem.char_indices().map(|(at, _)| at).collect();
                starts.reverse();
                for &at in starts.iter().take(FRAGMENT_CHARS) {
                    if at > 0 && stem.as_bytes()[at - 1] == b'-' {
                        let members = by_fragment.entry(stem[at..].to_owned()).or_default();
                        if members.last() != Some(&i) {
                            members.push(i);
                        }
                    }
                }
            }
        }
        ChatListing {
            sessions,
            by_fragment,
        }
    }

    /// The chats whose names end with `-<fragment>.json` or
    /// `-<fragment>.jsonl`, in the listing's order.
    fn named_with<'a>(&'a self, fragment: &str) -> impl Iterator<Item = &'a PathBuf> {
        self.by_fragment
            .get(fragment)
            .into_iter()
            .flatten()
            .map(|&i| &self.sessions[i])
    }
}

/// Every file of a listed session with its facts ([`session_candidates`]
/// holding its id). A sibling that vanished meanwhile (Gemini CLI deletes
/// expired chats at every start) is passed over; the session is unreadable
/// only when none of its files can be read.
fn session_files(
    caches: &Caches,
    record: &SessionRecord,
    freshness: Freshness,
) -> Result<Vec<(PathBuf, Arc<Facts>)>, ReadError> {
    let paths = session_candidates(caches, record, freshness);
    let mut found = Vec::new();
    let mut failure = None;
    for path in paths {
        match facts_of(caches, &path) {
            Ok(facts) if facts.session_id.as_deref() == Some(&record.id) && !facts.subagent => {
                found.push((path, facts));
            }
            Ok(_) => {}
            Err(e) if path == record.path => failure = Some(e),
            Err(_) => {}
        }
    }
    match failure {
        Some(e) if found.is_empty() => Err(e),
        _ if found.is_empty() => Err(ReadError {
            path: record.path.clone(),
            line: None,
            message: format!("no Gemini CLI chat of session {} remains", record.id),
        }),
        _ => Ok(found),
    }
}

/// Read and replay one chat file.
pub(super) fn read_chat(path: &Path) -> Result<Chat, ReadError> {
    let bytes = std::fs::read(path).map_err(|e| ReadError::io(path, &e))?;
    if is_legacy(path) {
        parse_legacy(&bytes).map_err(|message| ReadError {
            path: path.to_owned(),
            line: None,
            message,
        })
    } else {
        Ok(parse_jsonl(&bytes))
    }
}

/// The file Gemini CLI would resume among a session's files: of those with
/// conversation (any, when none has), the latest `lastUpdated`; ties go to
/// a `.jsonl` (a resumed legacy chat's continuation), then to a slug
/// folder's copy over an old hash folder's, then to path order.
pub fn current_file(files: &[(PathBuf, Arc<Facts>)]) -> Option<&PathBuf> {
    let any_conversation = files.iter().any(|(_, f)| f.has_conversation);
    files
        .iter()
        .filter(|(_, f)| !any_conversation || f.has_conversation)
        .max_by_key(|(path, facts)| {
            (
                facts.updated,
                !is_legacy(path),
                !in_hash_folder(path),
                path.clone(),
            )
        })
        .map(|(path, _)| path)
}

/// The session's current file and its facts.
pub(super) fn current(
    caches: &Caches,
    record: &SessionRecord,
    freshness: Freshness,
) -> Result<(PathBuf, Arc<Facts>), ReadError> {
    let files = session_files(caches, record, freshness)?;
    let path = current_file(&files).expect("session_files returns at least one file");
    let facts = files
        .iter()
        .find(|(p, _)| p == path)
        .map(|(_, f)| Arc::clone(f))
        .expect("the current file is one of the files");
    Ok((path.clone(), facts))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{context, jsonl, meta, user};
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Looking a fragment up finds exactly the chats whose names end
        /// with `-<fragment>.json` or `-<fragment>.jsonl`, in order.
        #[test]
        fn fragment_lookup_is_the_suffix_rule(
            // A small alphabet, so that names ending in the fragment are
            // common; `é` in an id becomes `_` in its fragment.
            stems in proptest::collection::vec("session-[ab_é-]{0,10}", 0..12),
            exts in proptest::collection::vec(prop_oneof![Just(".json"), Just(".jsonl"), Just(".json.jsonl"), Just(".txt")], 12),
            session_id in "[ab_é-]{1,10}",
        ) {
            let sessions: Vec<PathBuf> = stems
                .iter()
                .zip(&exts)
                .map(|(stem, ext)| PathBuf::from(format!("/g/tmp/p/chats/{stem}{ext}")))
                .collect();
            let fragment = file_id(&session_id);
            let suffixes = [format!("-{fragment}.json"), format!("-{fragment}.jsonl")];
            let expected: Vec<&PathBuf> = sessions
                .iter()
                .filter(|p| {
                    let name = p.file_name().unwrap().to_string_lossy();
                    suffixes.iter().any(|s| name.ends_with(s.as_str()))
                })
                .collect();
            let listing = ChatListing::of(sessions.clone());
            let found: Vec<&PathBuf> = listing.named_with(&fragment).collect();
            prop_assert_eq!(found, expected);
        }
    }

    #[test]
    fn the_current_file_is_the_latest_updated_with_conversation() {
        let facts = |updated: &str, has_conversation: bool| {
            Arc::new(Facts {
                session_id: Some("s".into()),
                subagent: false,
                updated: Instant::parse_rfc3339(updated),
                has_conversation,
                title: None,
            })
        };
        let pick = |files: Vec<(&str, Arc<Facts>)>| {
            let files: Vec<_> = files
                .into_iter()
                .map(|(p, f)| (PathBuf::from(p), f))
                .collect();
            current_file(&files).map(|p| p.to_string_lossy().into_owned())
        };
        // A stub started after the resumed file's last write still loses.
        assert_eq!(
            pick(vec![
                (
                    "/t/s/chats/session-a-x.jsonl",
                    facts("2026-01-01T10:00:00Z", true)
                ),
                (
                    "/t/s/chats/session-b-x.jsonl",
                    facts("2026-01-01T11:00:00Z", false)
                ),
            ])
            .as_deref(),
            Some("/t/s/chats/session-a-x.jsonl")
        );
        // A legacy chat and its continuation: the continuation.
        assert_eq!(
            pick(vec![
                (
                    "/t/s/chats/session-a-x.json",
                    facts("2026-01-01T10:00:00Z", true)
                ),
                (
                    "/t/s/chats/session-a-x.jsonl",
                    facts("2026-01-01T10:00:00Z", true)
                ),
            ])
            .as_deref(),
            Some("/t/s/chats/session-a-x.jsonl")
        );
        // Identical copies: the slug folder's.
        let hash = format!("/t/{}/chats/session-a-x.json", "a".repeat(64));
        assert_eq!(
            pick(vec![
                (
                    "/t/0slug/chats/session-a-x.json",
                    facts("2026-01-01T10:00:00Z", true)
                ),
                (&hash, facts("2026-01-01T10:00:00Z", true)),
            ])
            .as_deref(),
            Some("/t/0slug/chats/session-a-x.json")
        );
        // Only stubs: still a file.
        assert!(pick(vec![("/t/s/chats/x.jsonl", facts("2026", false))]).is_some());
        assert!(pick(Vec::new()).is_none());
    }

    #[test]
    fn facts_keep_what_choosing_and_titling_need() {
        let chat = parse_jsonl(&jsonl(&[
            meta("2026-01-01T00:00:00Z"),
            serde_json::json!({"$set": {"messages": [context()]}}),
        ]));
        let stub = Facts::of(&chat);
        assert_eq!(stub.session_id.as_deref(), Some("s-1"));
        assert!(!stub.has_conversation && !stub.subagent);
        assert_eq!(stub.updated, Instant::parse_rfc3339("2026-01-01T00:00:00Z"));
        let mut sub = meta("2026-01-01T00:00:00Z");
        sub["kind"] = "subagent".into();
        let chat = parse_jsonl(&jsonl(&[sub, user("u", "task")]));
        let facts = Facts::of(&chat);
        assert!(facts.subagent && facts.has_conversation);
        assert_eq!(facts.title.as_deref(), Some("task"));
    }
}
