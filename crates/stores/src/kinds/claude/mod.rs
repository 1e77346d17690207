//! Claude Code transcripts (`~/.claude/projects/<dir>/<sessionId>.jsonl`),
//! mapped onto the session model as `FORMATS.md` describes.
//!
//! # Layout
//!
//! One folder per working directory (its name is a lossy encoding of the
//! path, so `cwd` is read from the lines), one `<sessionId>.jsonl` per
//! session. Sub-agent transcripts (`agent-*.jsonl`, and anything below a
//! `subagents` folder) are not sessions of their own and are skipped. The
//! root may also be a single project folder.
//!
//! # Cost model
//!
//! Listing reads only the head of each file: lines up to the first
//! conversation line (`user`/`assistant`) that gives the cwd and first
//! timestamp, in small reads, never the whole log. The id is the file stem:
//! Claude Code names the file after the session, while the first lines of
//! a resumed, continued or teleported session (older versions) or of a fork
//! are copies that may carry another session's `sessionId`.
//!
//! # Modules
//!
//! - `line`: the fields of a transcript line, and what in a `user` line
//!   the person typed (see "What the person typed" there).
//! - `fold`: a transcript folded into a conversation, compaction included,
//!   whole or resumed from a journal.
//! - `title`: the title precedence and the per-file scans that find it.
//! - `folder`: the summaries of a project folder, loaded newest first.
//!
//! This module owns the store itself: where transcripts are, which files
//! are sessions, and a session's record from the head of its file.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::caches::Caches;
use crate::error::ReadError;
use crate::index::journal::{Folded, Journal, ResumePoint};
use crate::index::stamp::TitleInputs;
use crate::kinds::foreign::{self, read_lines, Visit};
use crate::model::{SessionRecord, StoreKind, Surface, SurfaceSink};
use crate::store::{env_or_home, Env, Store};
use crate::store::{has_suffix, ScanEvent};
use session_ref_core::time::Instant;
use session_ref_jsonl::loose::{is_str, non_empty, string};

mod fold;
mod folder;
mod line;
mod tail;
#[cfg(test)]
mod testing;
mod title;

pub use fold::{fold_surface, read_surface};
pub use title::read_title;

use fold::fold_resumable;
use line::Line;

/// After the first conversation line, how many more lines listing reads
/// looking for a missing cwd or timestamp before giving up on them.
const HEAD_EXTRA_LINES: u64 = 64;

/// Whether a file is a sub-agent transcript rather than a session.
fn is_subagent(root: &Path, path: &Path) -> bool {
    let named = path
        .file_name()
        .is_some_and(|n| n.as_encoded_bytes().starts_with(b"agent-"));
    let nested = path
        .strip_prefix(root)
        .ok()
        .and_then(Path::parent)
        .is_some_and(|dir| dir.components().any(|c| c.as_os_str() == "subagents"));
    named || nested
}

/// The Claude Code store.
pub struct Claude;

/// The Claude Code store's kind.
pub const KIND: StoreKind = StoreKind::new(&Claude);

impl Store for Claude {
    fn name(&self) -> &'static str {
        "claude"
    }

    fn flag(&self) -> &'static str {
        "claude"
    }

    fn origin(&self) -> &'static str {
        "Claude Code"
    }

    fn root_help(&self) -> &'static str {
        "Claude Code projects directory"
    }

    fn default_roots(&self, env: Env<'_>, home: Option<&Path>) -> Vec<PathBuf> {
        env_or_home(
            env,
            home,
            "CLAUDE_CONFIG_DIR",
            &["projects"],
            &[".claude", "projects"],
        )
    }

    fn wants(&self, path: &Path) -> bool {
        has_suffix(path, ".jsonl")
    }

    /// A session from the head of its transcript, reading only the first
    /// lines; sub-agent transcripts are skipped.
    fn list_file(&self, _: &Caches, root: &Arc<Path>, path: &Path) -> ScanEvent {
        if is_subagent(root, path) {
            return ScanEvent::Skipped {
                path: path.to_owned(),
                reason: "Claude Code sub-agent transcript".into(),
            };
        }
        match read_record(root, path) {
            Ok(Some(record)) => ScanEvent::Record(record),
            Ok(None) => ScanEvent::Skipped {
                path: path.to_owned(),
                reason: "no Claude Code conversation line".into(),
            },
            Err(e) => ScanEvent::Unreadable {
                path: path.to_owned(),
                reason: e.message,
            },
        }
    }

    fn title_inputs(&self, _: &Caches, record: &SessionRecord) -> Option<TitleInputs> {
        // Summaries naming this session can sit in any file of its folder.
        Some(TitleInputs::Folder(record.path.parent()?.to_owned()))
    }

    fn read_title(
        &self,
        caches: &Caches,
        record: &SessionRecord,
    ) -> Result<Option<String>, ReadError> {
        read_title(caches, record)
    }

    fn read_surface(&self, _: &Caches, record: &SessionRecord) -> Result<Surface, ReadError> {
        read_surface(record)
    }

    /// The `timestamp` of the last line that has one (a backward scan),
    /// else the file's modification time.
    fn last_activity(&self, _: &Caches, record: &SessionRecord) -> Option<i64> {
        let last = foreign::last_line_where(&record.path, b"\"timestamp\"", |bytes| {
            let line = Line::parse(bytes)?;
            Instant::parse_rfc3339(&string(line.timestamp)?)
        });
        match last {
            Ok(Some(at)) => Some(at.unix_seconds()),
            _ => crate::caches::modified_secs(&record.path),
        }
    }

    fn fold_surface(
        &self,
        _: &Caches,
        record: &SessionRecord,
        sink: &mut dyn SurfaceSink,
    ) -> Result<u64, ReadError> {
        fold_surface(record, sink).map(|(_, last)| last)
    }

    fn fold_resumable(
        &self,
        caches: &Caches,
        record: &SessionRecord,
        len: u64,
        from: Option<&ResumePoint>,
    ) -> Result<Folded, ReadError> {
        if foreign::is_zstd(&record.path) {
            let mut recorded = Journal::new(0);
            self.fold_surface(caches, record, &mut recorded)?;
            return Ok(Folded {
                ops: recorded.into_ops(),
                ..Folded::default()
            });
        }
        fold_resumable(record, len, from)
    }
}

/// The record of one transcript from its head: id = the file stem (Claude
/// Code names the file after the session; see the module docs), cwd =
/// first non-empty `cwd`, createdAt = first `timestamp` (lines are appended
/// in time order, so it is the earliest). `None` when the file has no
/// `user` or `assistant` line (e.g. a file of summaries only).
fn read_record(root: &Arc<Path>, path: &Path) -> Result<Option<SessionRecord>, ReadError> {
    let mut cwd = None;
    let mut timestamp = None;
    let mut conversation_at = None;
    read_lines(path, true, |number, bytes| {
        let Some(line) = Line::parse(bytes) else {
            return Visit::BAD;
        };
        if cwd.is_none() {
            cwd = non_empty(line.cwd);
        }
        if timestamp.is_none() {
            timestamp = string(line.timestamp);
        }
        if conversation_at.is_none()
            && (is_str(line.kind, "user") || is_str(line.kind, "assistant"))
        {
            conversation_at = Some(number);
        }
        let done = conversation_at.is_some_and(|at| {
            (cwd.is_some() && timestamp.is_some()) || number - at >= HEAD_EXTRA_LINES
        });
        Visit {
            parsed: true,
            stop: done,
        }
    })?;
    if conversation_at.is_none() {
        return Ok(None);
    }
    let id = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(Some(SessionRecord::new(
        KIND,
        root.clone(),
        path.to_owned(),
        id,
        cwd,
        timestamp.unwrap_or_default(),
    )))
}

#[cfg(test)]
mod tests {
    use super::testing::{read_title, record_of, user, write, CWD};
    use super::*;

    #[test]
    fn record_comes_from_the_head() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "p/s1.jsonl",
            &[
                r#"{"type":"file-history-snapshot","messageId":"m","snapshot":{"timestamp":"2026-01-01T00:00:00Z"}}"#.into(),
                r#"{"type":"summary","summary":"Other","leafUuid":"x"}"#.into(),
                user("u1", r#""hello""#),
            ],
        );
        let record = record_of(dir.path(), &path);
        assert_eq!(record.id, "s1");
        assert_eq!(record.cwd.as_deref(), Some(CWD));
        assert_eq!(record.created_at, "2026-01-11T09:53:23.575Z");
        assert_eq!(record.kind, KIND);
        let only_summaries = write(
            dir.path(),
            "p/s2.jsonl",
            &[r#"{"type":"summary","summary":"S","leafUuid":"u1"}"#.into()],
        );
        assert!(read_record(&Arc::from(dir.path()), &only_summaries)
            .unwrap()
            .is_none());
        let no_id = write(
            dir.path(),
            "p/stem-id.jsonl",
            &[r#"{"type":"user","message":{"content":"hi"}}"#.into()],
        );
        let record = record_of(dir.path(), &no_id);
        assert_eq!((record.id.as_str(), record.cwd), ("stem-id", None));
        assert_eq!(record.created_at, "");
    }

    #[test]
    fn scan_skips_sub_agents_and_non_sessions() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "p/s1.jsonl", &[user("u", r#""hi""#)]);
        write(root, "p/agent-1a2b.jsonl", &[user("u", r#""Warmup""#)]);
        write(
            root,
            "p/s1/subagents/agent-x.jsonl",
            &[user("u", r#""task""#)],
        );
        write(
            root,
            "p/s1/subagents/other.jsonl",
            &[user("u", r#""task""#)],
        );
        write(
            root,
            "p/sums.jsonl",
            &[r#"{"type":"summary","summary":"S","leafUuid":"u"}"#.into()],
        );
        std::fs::write(root.join("p/notes.txt"), "x").unwrap();
        let catalog =
            crate::catalog::Catalog::load(&crate::roots::StoreRoots::new().with(KIND, root));
        let ids: Vec<&str> = catalog.ordered().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["s1"]);
        let skipped: Vec<String> = catalog
            .skipped
            .iter()
            .map(|(p, why)| format!("{} {why}", p.strip_prefix(root).unwrap().display()))
            .collect();
        assert_eq!(
            skipped,
            [
                "p/agent-1a2b.jsonl Claude Code sub-agent transcript",
                "p/s1/subagents/agent-x.jsonl Claude Code sub-agent transcript",
                "p/s1/subagents/other.jsonl Claude Code sub-agent transcript",
                "p/sums.jsonl no Claude Code conversation line",
            ]
        );
        assert!(catalog.unreadable.is_empty());
    }

    #[test]
    fn the_file_stem_names_a_resumed_session() {
        let dir = tempfile::tempdir().unwrap();
        let copied = user("u1", r#""first question""#);
        assert!(copied.contains(r#""sessionId":"s1""#));
        let path = write(
            dir.path(),
            "p/resumed-2.jsonl",
            &[
                copied,
                r#"{"type":"user","sessionId":"resumed-2","message":{"content":"next"},"uuid":"u2"}"#.into(),
            ],
        );
        assert_eq!(record_of(dir.path(), &path).id, "resumed-2");
    }

    #[test]
    fn a_vanished_file_fails_only_its_own_reads() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "p/s1.jsonl", &[user("u", r#""hi""#)]);
        let record = record_of(dir.path(), &path);
        std::fs::remove_file(&path).unwrap();
        let err = read_surface(&record).unwrap_err();
        assert_eq!(err.path, path);
        assert!(read_title(&record).is_err());
    }
}
