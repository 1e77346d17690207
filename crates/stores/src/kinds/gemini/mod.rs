//! Gemini CLI chats (`~/.gemini/tmp/<project>/chats/session-*.json[l]`),
//! mapped onto the session model as `FORMATS.md` describes.
//!
//! # Layout
//!
//! The store root is a `.gemini` directory. Each project has a folder under
//! `tmp/`: named by a slug in current versions (0.61; the root is in
//! `tmp/<slug>/.project_root`, `history/<slug>/.project_root` and
//! `projects.json`), by the SHA-256 hex of the project root in older ones
//! (the root is recorded nowhere: such a folder is matched to a known root,
//! or to the run's working directory, by hashing it). Chats live in
//! `<folder>/chats/`; a
//! sub-agent's chat sits one level deeper, in `chats/<parentSessionId>/`,
//! and is part of its parent, not a session.
//!
//! One session may own several files: a legacy `.json` and the `.jsonl`
//! that resuming it wrote beside it, a resume stub (a fresh chat file under
//! the same id, started in another minute), and copies of all of these in
//! an old hash folder and in its slug folder (migration copies, it does not
//! move). A session is listed once, by `sessionId`. Its content is read from
//! the file Gemini CLI itself would resume: of the files with conversation,
//! the one updated last (`lastUpdated`), so stubs, stale copies and the
//! legacy original of a resumed chat never shadow the current conversation,
//! and a rewind recorded in the current file is never undone by an older
//! copy.
//!
//! # Cost model
//!
//! Listing reads the first line of each `.jsonl` (the metadata line) and
//! parses each legacy `.json` once, then groups files by `sessionId`; only
//! a session with several files has them replayed to list the current one.
//! Titles replay a session's files whole (`$set` and `$rewindTo` rewrite
//! history, so no shorter read is exact) and keep small facts per file
//! version (id, last update, whether it holds conversation, title) in the
//! catalog's [`Caches`], so a file is replayed once per run while it is
//! unchanged. Across runs the title index keeps each title while the
//! session's files are unchanged ([`Store::title_inputs`]: the other files
//! of the session), so a warm listing replays nothing: on 10,000 chats
//! (1.3 GB) listing went from 22 s to a stat and a first line per file.
//! The other files of a session are found by id fragment in one look at
//! the root's folders per scan (`Freshness`). A surface replays the
//! current file again rather than keeping every conversation in memory.
//!
//! # Modules
//!
//! - `chat`: a chat file replayed into its conversation (pure: bytes in,
//!   [`Chat`] out), and what each message is to it (see "Mapping" there).
//! - `record`: the fields of a chat record and of a part, read without
//!   building a JSON tree.
//! - `layout`: the store's layout: project folders, their roots, chat
//!   files, Gemini CLI's hashes and file-name fragments.
//! - `listing`: listing a root: each file's head, files grouped into
//!   sessions by `sessionId`.
//! - `session`: a listed session's files, the facts kept per file, and the
//!   one Gemini CLI would resume.
//!
//! This module owns the store itself, built from those.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::caches::Caches;
use crate::error::ReadError;
use crate::index::stamp::TitleInputs;
use crate::model::{SessionRecord, StoreKind, Surface};
use crate::store::ScanEvent;
use crate::store::{env_or_home, Env, Store};
use session_ref_core::time::Instant;

mod chat;
mod layout;
mod listing;
mod record;
mod session;
#[cfg(test)]
mod testing;

pub use chat::{parse_jsonl, parse_legacy, Chat, Message, Turn};
pub use layout::{file_id, project_hash};
pub use session::{current_file, Facts};

use layout::{is_session_file, read_project_root, Folder, Projects};
pub(crate) use listing::SUBAGENT;
use listing::{head_of, scan_root, NotListed};
use session::{current, read_chat, session_candidates, Freshness};

/// The Gemini CLI store kind.
pub struct Gemini;

/// The handle of the Gemini CLI store kind.
pub const KIND: StoreKind = StoreKind::new(&Gemini);

impl Store for Gemini {
    /// What says which project a chat belongs to (its cwd): the
    /// `.project_root` of each folder above it and the root's
    /// `projects.json` (see `layout`).
    fn side_files(&self, _caches: &Caches, record: &SessionRecord) -> Vec<std::path::PathBuf> {
        let mut files: Vec<_> = record
            .path
            .ancestors()
            .skip(1)
            .take_while(|dir| dir.starts_with(&*record.root) && *dir != &*record.root)
            .map(|dir| dir.join(".project_root"))
            .collect();
        files.push(record.root.join("projects.json"));
        files
    }

    fn name(&self) -> &'static str {
        "gemini"
    }

    fn flag(&self) -> &'static str {
        "gemini"
    }

    fn origin(&self) -> &'static str {
        "Gemini CLI"
    }

    fn root_help(&self) -> &'static str {
        "Gemini CLI directory, the one holding tmp/<project>/chats"
    }

    fn default_roots(&self, env: Env<'_>, home: Option<&Path>) -> Vec<PathBuf> {
        env_or_home(env, home, "GEMINI_CLI_HOME", &[".gemini"], &[".gemini"])
    }

    fn wants(&self, path: &Path) -> bool {
        path.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(is_session_file)
    }

    /// One chat file on its own (the scan of a root groups them instead).
    /// Only a file directly in a `chats` folder is a session: sub-agent
    /// chats sit one level deeper, and `logs/session-*.jsonl` are not chats.
    fn list_file(&self, caches: &Caches, root: &Arc<Path>, path: &Path) -> ScanEvent {
        let in_chats = path
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|name| name == "chats");
        if !in_chats {
            return ScanEvent::Skipped {
                path: path.to_owned(),
                reason: "not a Gemini CLI chat: not directly in a chats folder".into(),
            };
        }
        let projects = Projects::read(caches, root, &mut |_, _| {});
        let folder_path = path.parent().and_then(Path::parent).unwrap_or(root);
        let folder = Folder {
            path: folder_path.to_owned(),
            root: read_project_root(folder_path),
        };
        match head_of(KIND, caches, root, path) {
            Ok(head) if head.subagent => ScanEvent::Skipped {
                path: path.to_owned(),
                reason: SUBAGENT.into(),
            },
            Ok(head) => {
                let cwd = projects.root_of(&folder, head.project_hash.as_deref());
                ScanEvent::Record(SessionRecord::new(
                    KIND,
                    root.clone(),
                    path.to_owned(),
                    head.session_id,
                    cwd,
                    head.start_time.unwrap_or_default(),
                ))
            }
            Err(NotListed::Skipped(reason)) => ScanEvent::Skipped {
                path: path.to_owned(),
                reason,
            },
            Err(NotListed::Unreadable(reason)) => ScanEvent::Unreadable {
                path: path.to_owned(),
                reason,
            },
        }
    }

    fn lists_each_file(&self) -> bool {
        false
    }

    /// Every session chat of every project folder, grouped by `sessionId`
    /// so that a session with several files (legacy original, resume stub,
    /// hash-folder copy) is listed once.
    fn scan(
        &self,
        _: StoreKind,
        caches: &Caches,
        root: &Arc<Path>,
        sink: &(dyn Fn(ScanEvent) + Sync),
    ) {
        scan_root(KIND, caches, root, sink);
    }

    /// The title is the current chat's, and which chat is current depends
    /// on every file of the session: the title index keeps it while none
    /// of them changed and no file joined or left them.
    fn title_inputs(&self, caches: &Caches, record: &SessionRecord) -> Option<TitleInputs> {
        let mut others = session_candidates(caches, record, Freshness::Scanned);
        others.retain(|path| *path != record.path);
        Some(TitleInputs::Files(others))
    }

    fn read_title(
        &self,
        caches: &Caches,
        record: &SessionRecord,
    ) -> Result<Option<String>, ReadError> {
        let (_, facts) = current(caches, record, Freshness::Scanned)?;
        Ok(facts.title.clone())
    }

    /// The current chat's latest `lastUpdated` (else its `startTime`),
    /// else the file's modification time.
    fn last_activity(&self, caches: &Caches, record: &SessionRecord) -> Option<i64> {
        current(caches, record, Freshness::Scanned)
            .ok()
            .and_then(|(_, facts)| facts.updated)
            .map(Instant::unix_seconds)
            .or_else(|| crate::caches::modified_secs(&record.path))
    }

    fn read_surface(&self, caches: &Caches, record: &SessionRecord) -> Result<Surface, ReadError> {
        let (path, _) = current(caches, record, Freshness::Now)?;
        Ok(read_chat(&path)?.surface())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_file_listed_alone_has_its_project_root() {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/gemini");
        let root: Arc<Path> = Arc::from(fixture.as_path());
        let caches = Caches::default();
        let chat = fixture.join("tmp/shop/chats/session-2026-01-11T10-00-c0ffee02.jsonl");
        assert!(Gemini.wants(&chat));
        let ScanEvent::Record(record) = Gemini.list_file(&caches, &root, &chat) else {
            panic!("not listed");
        };
        assert_eq!(record.id, "c0ffee02-2222-4222-8222-000000000002");
        assert_eq!(record.cwd.as_deref(), Some("/home/dev/shop"));
        assert_eq!(record.created_at, "2026-01-11T10:00:00.000Z");
        assert_eq!(record.kind, KIND);
        let hashed = fixture.join(concat!(
            "tmp/cc2b75052e4faa5654d762961bf89567edf5657f98c533e6fb34528f450b2602",
            "/chats/session-2025-10-05T12-00-c0ffee06.json"
        ));
        let ScanEvent::Record(record) = Gemini.list_file(&caches, &root, &hashed) else {
            panic!("not listed");
        };
        assert_eq!(record.cwd.as_deref(), Some("/home/dev/api"));
        let sub = fixture.join(
            "tmp/shop/chats/c0ffee01-1111-4111-8111-000000000001/c0ffee08-8888-4888-8888-000000000008.jsonl",
        );
        assert!(!Gemini.wants(&sub));
        assert!(matches!(
            Gemini.list_file(&caches, &root, &sub),
            ScanEvent::Skipped { .. }
        ));
        let log = fixture.join("tmp/shop/logs/session-c0ffee01-1111-4111-8111-000000000001.jsonl");
        assert!(matches!(
            Gemini.list_file(&caches, &root, &log),
            ScanEvent::Skipped { .. }
        ));
    }
}
