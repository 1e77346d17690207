//! GitHub Copilot CLI sessions (`~/.copilot/session-state/<id>/events.jsonl`
//! beside `workspace.yaml`), mapped onto the session model. Follows
//! `@github/copilot` 1.0.102, as run offline against the project's mock model
//! (one-shot, `--continue`, `--resume`, `-n NAME`, `@file`, `/x args`,
//! non-ASCII, reasoning, a `task` sub-agent, `/compact`, and in the TUI
//! `/rename` and `/fork`, a run that failed before its first event); `FORMATS.md` states the format, and where it was found
//! wrong or silent this doc says so.
//!
//! # Layout
//!
//! `$COPILOT_HOME/session-state`, else `~/.copilot/session-state`: one
//! folder per session, named by its id, holding `events.jsonl` (the
//! transcript, one event per line) and `workspace.yaml` (`id`, `cwd`,
//! `name`, `user_named`, `created_at`, `updated_at`, …), plus `checkpoints/`,
//! `files/`, `research/` and lock files, which are not read. A folder without
//! `events.jsonl` (a run that failed before its first turn, seen with an
//! unsupported `--attachment`) is reported as skipped, not listed; an
//! `events.jsonl` whose first event is not `session.start` is a folder of
//! another shape, skipped too. A root may also be one session folder or its
//! `events.jsonl`. Listing reads the root's folders directly (one
//! `read_dir` and a `stat` per folder), never walking into a session's
//! subfolders.
//!
//! # Record
//!
//! - id: the folder's name, as `copilot --resume=<id>` takes it (a fork is
//!   a new folder); else, for a file outside that layout, the
//!   `session.start` `sessionId`.
//! - cwd: `workspace.yaml` `cwd`, which Copilot rewrites to the directory
//!   of the latest run (`--continue` from another directory moves it: the
//!   session then sits where Copilot's own list puts it); else the
//!   `session.start` `context.cwd`.
//! - created: `session.start` `data.startTime`, else the first event's
//!   `timestamp`.
//! - last activity ([`last_activity`]): the last event's `timestamp`, read
//!   from the end of the file. `workspace.yaml` `updated_at` is no help: a
//!   resumed turn in the same directory leaves it as it was.
//!
//! # What the person typed
//!
//! `user.message` `data.content` (what was typed: `@notes.txt` stays as
//! typed, `-p "/explain x"` is stored as typed; built-in slash commands such
//! as `/compact` leave no `user.message`). Not typed, and left out:
//! `transformedContent` (what the model got: a `<current_datetime>` prefix,
//! hook context), a message with a `data.source` (`agent-<id>`: a
//! sub-agent's prompt; `skill-…`: a skill's injection), one marked
//! `isAutopilotContinuation`, and every event carrying an envelope `agentId`
//! (a sub-agent's own turn). Assistant text is `assistant.message`
//! `data.content` of the main agent: not `reasoningText`, not
//! `toolRequests`, and not a sub-agent's reply (envelope `agentId`, or the
//! deprecated `data.parentToolCallId`). Not in `FORMATS.md`: a sub-agent's
//! events are written inline in the parent's `events.jsonl`, each with an
//! envelope `agentId`, and its reply is an `assistant.message` too. The
//! chunks of one model call (`chunkCount` set) share an `apiCallId` and are
//! one message. `system.message` (the whole system prompt, on every run),
//! `model.*` (among them `model.messages_snapshot`, a copy of the whole
//! context), `tool.*`, `hook.*`, `subagent.*` and `session.*` events other
//! than the compaction are never conversation.
//!
//! # Compaction
//!
//! `session.compaction_complete` that did not fail (`success` not `false`)
//! shadows every earlier event; its `summaryContent` is the compact
//! checkpoint. Copilot keeps the old events in the file (search still finds
//! them as shadowed history).
//!
//! # Title
//!
//! `workspace.yaml` `name`, which Copilot sets to the first prompt (the
//! whole prompt, several lines included) and replaces on `/rename` or
//! `-n NAME` (`user_named: true`); a rename writes no event. A name the user
//! gave is taken as written (trimmed); a name Copilot derived is cut as
//! every first-prompt title is (first line, 80 characters). Without a name
//! (the file is missing, unparsable or has none), the first prompt.
//! The title depends on `workspace.yaml` as well as `events.jsonl`: the
//! title index keeps it under both files' stamps ([`Store::title_inputs`]),
//! so a rename is seen and an unchanged session is not read again.
//!
//! # `workspace.yaml`
//!
//! Written by js-yaml: plain, single-quoted, double-quoted (escapes such as
//! `\x01`) and block (`|-`) scalars were all observed, and long strings may
//! be folded (`>-`). That is more of YAML than a small hand-written reader
//! should take on, so it is parsed by `serde_norway`, a maintained fork of
//! `serde_yaml` (which is archived and unmaintained; `serde_yml` has
//! RUSTSEC-2025-0068). Values are read leniently through
//! `serde_norway::Value`: a name that YAML would type as a number or a
//! boolean is still its text.
//!
//! # Continue, resume, fork, rename
//!
//! `--continue` and `--resume` append to the same `events.jsonl` (a
//! `session.resume` event, whose `context.cwd` is the new run's directory):
//! one session, one row. The TUI's `/fork` writes a new folder: the
//! parent's events copied with their ids and timestamps, except that the
//! first `session.start` carries the fork's id and start time, then a
//! `session.info` fork notice; named `<parent name> (fork)`. It is a session
//! of its own, under its folder's id, created and last active when forked.
//! The TUI's `/rename NAME` rewrites `workspace.yaml` (`name`,
//! `user_named: true`) and writes no event. In `-p` mode `/rename x` and
//! `/fork x` are not run: they reach the model as typed prompts, and are
//! kept as such; `/compact x` is run (no `user.message`).
//!
//! # Where `FORMATS.md` was found wrong or silent (1.0.102)
//!
//! - sub-agent turns are inline, marked by an envelope `agentId` (above);
//! - `workspace.yaml` `cwd` follows the latest run's directory;
//! - `updated_at` *is* refreshed when a resumed run changes the directory,
//!   though not by every resumed turn: still not a last-activity source;
//! - `workspace.yaml` of a failed first run has no `name` at all.
//!
//! # Cost model
//!
//! Listing reads the first line of `events.jsonl` (`session.start`, in
//! small reads) and `workspace.yaml` (a few hundred bytes); the title
//! index keeps both. Reading a surface skips most bytes unparsed: Copilot
//! writes `"type"` first, so a line of another type (the large
//! `system.message` and `model.*` events) is passed over after its first
//! few bytes.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::caches::Caches;
use crate::error::ReadError;
use crate::index::journal::{Folded, Journal, ResumePoint};
use crate::index::stamp::TitleInputs;
use crate::index::title::TitleIndex;
use crate::kinds::foreign::{
    self, read_lines, title_from_text, FileCache, LineSays, SurfaceBuilder, Visit,
};
use crate::model::{SessionRecord, StoreKind, Surface, SurfaceSink};
use crate::store::ScanEvent;
use crate::store::{env_or_home, Env, Store};
use session_ref_core::time::Instant;
use session_ref_jsonl::loose::{is_str, non_empty, string};

mod line;
mod workspace;

use line::{line_says, line_tools, Data, Line, Says};
pub use workspace::{parse_workspace, Workspace, WORKSPACE};
use workspace::{read_workspace, workspace_of};

/// The transcript's file name in a session folder.
pub const EVENTS: &str = "events.jsonl";

/// How many lines listing reads looking for `session.start` (the first
/// line in every file Copilot wrote).
const HEAD_LINES: u64 = 8;

/// The GitHub Copilot CLI store.
pub struct Copilot;

/// The GitHub Copilot CLI store's kind.
pub const KIND: StoreKind = StoreKind::new(&Copilot);

impl Store for Copilot {
    /// `workspace.yaml` beside `events.jsonl`: the cwd and the name.
    fn side_files(&self, _caches: &Caches, record: &SessionRecord) -> Vec<std::path::PathBuf> {
        record
            .path
            .parent()
            .map(|dir| dir.join("workspace.yaml"))
            .into_iter()
            .collect()
    }

    fn name(&self) -> &'static str {
        "copilot"
    }

    fn flag(&self) -> &'static str {
        "copilot"
    }

    fn origin(&self) -> &'static str {
        "GitHub Copilot CLI"
    }

    fn root_help(&self) -> &'static str {
        "GitHub Copilot CLI session-state directory"
    }

    fn default_roots(&self, env: Env<'_>, home: Option<&Path>) -> Vec<PathBuf> {
        env_or_home(
            env,
            home,
            "COPILOT_HOME",
            &["session-state"],
            &[".copilot", "session-state"],
        )
    }

    fn wants(&self, path: &Path) -> bool {
        path.file_name().is_some_and(|n| n == EVENTS)
    }

    fn list_file(&self, _: &Caches, root: &Arc<Path>, path: &Path) -> ScanEvent {
        if !in_layout(root, path) {
            return ScanEvent::Skipped {
                path: path.to_owned(),
                reason: "not a Copilot session: below a session folder, not in it".into(),
            };
        }
        match read_record(root, path) {
            Ok(Some(record)) => ScanEvent::Record(record),
            Ok(None) => ScanEvent::Skipped {
                path: path.to_owned(),
                reason: "not a Copilot session: its first event is not session.start".into(),
            },
            Err(_) if !path.exists() && path.parent().is_some_and(Path::is_dir) => {
                ScanEvent::Skipped {
                    path: path.parent().unwrap_or(path).to_owned(),
                    reason: concat!(
                        "not a Copilot session: no events.jsonl ",
                        "(a run that ended before its first event)"
                    )
                    .into(),
                }
            }
            Err(e) => ScanEvent::Unreadable {
                path: path.to_owned(),
                reason: e.message,
            },
        }
    }

    /// The root's session folders, read directly (see "Layout").
    fn scan(
        &self,
        _: StoreKind,
        caches: &Caches,
        root: &Arc<Path>,
        sink: &(dyn Fn(ScanEvent) + Sync),
    ) {
        let files = session_files(root, sink);
        let index = caches.get::<TitleIndex>();
        files
            .par_iter()
            .for_each(|path| sink(index.list_file(self, KIND, caches, root, path)));
    }

    fn last_activity(&self, _: &Caches, record: &SessionRecord) -> Option<i64> {
        last_activity(&record.path)
            .map(Instant::unix_seconds)
            .or_else(|| crate::caches::modified_secs(&record.path))
    }

    fn title_inputs(&self, _: &Caches, record: &SessionRecord) -> Option<TitleInputs> {
        Some(TitleInputs::Files(vec![workspace_of(&record.path)?]))
    }

    fn read_title(
        &self,
        caches: &Caches,
        record: &SessionRecord,
    ) -> Result<Option<String>, ReadError> {
        read_title(caches, record)
    }

    fn read_surface(&self, _: &Caches, record: &SessionRecord) -> Result<Surface, ReadError> {
        let mut builder = SurfaceBuilder::default();
        let last = fold_all(&record.path, &mut builder)?;
        Ok(builder.finish(last))
    }

    fn fold_surface(
        &self,
        _: &Caches,
        record: &SessionRecord,
        sink: &mut dyn SurfaceSink,
    ) -> Result<u64, ReadError> {
        let mut builder = SurfaceBuilder::new(sink);
        fold_all(&record.path, &mut builder)
    }

    /// Events are only appended: a later fold reads the lines after the
    /// last complete one, with the open merge keys of chunked replies.
    fn fold_resumable(
        &self,
        _: &Caches,
        record: &SessionRecord,
        len: u64,
        from: Option<&ResumePoint>,
    ) -> Result<Folded, ReadError> {
        let start = from.and_then(|point| {
            let state: FoldState = crate::index::sealed::decode(&point.state)?;
            Some((point.offset, point.lines, state))
        });
        let continued = start.is_some();
        let (offset, lines, state) = start.unwrap_or_default();
        let mut builder = SurfaceBuilder::resuming(Journal::new(0), state.merge_keys);
        let span = foreign::fold_lines_span(
            &record.path,
            offset,
            lines,
            Some(len),
            line_says,
            |seq, says| {
                says.apply(&mut builder, seq);
                Ok(())
            },
        )?;
        let resume = span.clean.then(|| ResumePoint {
            offset: span.end,
            lines: span.lines,
            state: crate::index::sealed::encode(&FoldState {
                merge_keys: builder.merge_keys(),
            })
            .unwrap_or_default(),
        });
        Ok(Folded {
            ops: builder.into_sink().into_ops(),
            chosen: 0,
            continued,
            resume,
        })
    }
}

/// What a resumed fold needs besides the lines before it.
#[derive(Debug, Default, Serialize, Deserialize)]
struct FoldState {
    merge_keys: Vec<(String, u64)>,
}

/// Fold every line of `path` into `builder`: the seq of the last
/// complete line (a torn last line, being written, is left for later).
fn fold_all<S: SurfaceSink>(
    path: &Path,
    builder: &mut SurfaceBuilder<S>,
) -> Result<u64, ReadError> {
    let tools = builder.wants_tools();
    let read = |bytes: &[u8]| {
        let says = line_says(bytes)?;
        Some((says, if tools { line_tools(bytes) } else { Vec::new() }))
    };
    foreign::fold_all_lines(path, read, |seq, (says, found)| {
        says.apply(builder, seq);
        for tool in found {
            builder.tool(seq, tool);
        }
    })
}

/// Whether `path` sits where a transcript does: `<root>/<id>/events.jsonl`,
/// `<root>/events.jsonl` (the root is one session folder), or the root
/// itself (one file named by the user).
fn in_layout(root: &Path, path: &Path) -> bool {
    let folder = path.parent();
    path == root || folder == Some(root) || folder.and_then(Path::parent) == Some(root)
}

/// The transcripts of a root, sorted by path bytes: the root itself when
/// it is a file, its `events.jsonl` when it is one session folder, else
/// the `events.jsonl` of each folder in it, whether or not it exists (a
/// folder without one is reported as skipped when listed); hidden entries
/// (Copilot's lock folder) and files are passed over.
fn session_files(root: &Path, sink: &(dyn Fn(ScanEvent) + Sync)) -> Vec<PathBuf> {
    match std::fs::symlink_metadata(root) {
        Ok(meta) if meta.is_file() => return vec![root.to_owned()],
        Ok(_) => {}
        Err(e) => {
            sink(ScanEvent::Unreadable {
                path: root.to_owned(),
                reason: e.to_string(),
            });
            return Vec::new();
        }
    }
    let own = root.join(EVENTS);
    if own.is_file() {
        return vec![own];
    }
    let entries = match std::fs::read_dir(root) {
        Ok(entries) => entries,
        Err(e) => {
            sink(ScanEvent::Unreadable {
                path: root.to_owned(),
                reason: e.to_string(),
            });
            return Vec::new();
        }
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                sink(ScanEvent::Unreadable {
                    path: root.to_owned(),
                    reason: e.to_string(),
                });
                continue;
            }
        };
        let hidden = entry.file_name().as_encoded_bytes().starts_with(b".");
        if hidden || !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        // Not stat-ed here: listing stats it once, and a folder without
        // one is told apart there ([`Copilot::list_file`]).
        files.push(entry.path().join(EVENTS));
    }
    files.sort_by(|a, b| {
        a.as_os_str()
            .as_encoded_bytes()
            .cmp(b.as_os_str().as_encoded_bytes())
    });
    files
}

/// The record of one transcript (see "Record"); `None` when its first
/// event is not `session.start` (or it has no complete line yet).
fn read_record(root: &Arc<Path>, path: &Path) -> Result<Option<SessionRecord>, ReadError> {
    let mut start: Option<(Option<String>, Option<String>, Option<String>)> = None;
    read_lines(path, true, |number, bytes| {
        let Some(line) = Line::parse(bytes) else {
            return Visit::BAD;
        };
        if is_str(line.kind, "session.start") {
            let data = Data::parse(line.data);
            let created = string(data.start_time).or_else(|| string(line.timestamp));
            start = Some((non_empty(data.session_id), created, data.cwd()));
            return Visit::DONE;
        }
        // The first event is `session.start`; anything else first is
        // another shape of file.
        Visit {
            parsed: true,
            stop: number >= HEAD_LINES || line.kind.is_some(),
        }
    })?;
    let Some((session_id, created, start_cwd)) = start else {
        return Ok(None);
    };
    let folder_id = path
        .parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| is_uuid(n));
    let Some(id) = folder_id.or(session_id) else {
        return Ok(None);
    };
    let cwd = read_workspace(path).and_then(|w| w.cwd).or(start_cwd);
    Ok(Some(SessionRecord::new(
        KIND,
        root.clone(),
        path.to_owned(),
        id,
        cwd,
        created.unwrap_or_default(),
    )))
}

/// Whether `text` is a UUID in its usual spelling (8-4-4-4-12 hex digits).
fn is_uuid(text: &str) -> bool {
    text.len() == 36
        && text.bytes().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

/// What titling remembers between calls, owned by the catalog's [`Caches`].
#[derive(Default)]
struct CopilotCaches {
    /// The first prompt's title of each transcript.
    head_titles: FileCache<Option<String>>,
}

/// The session's title (see "Title"): `workspace.yaml`'s name, else the
/// first prompt.
pub fn read_title(caches: &Caches, record: &SessionRecord) -> Result<Option<String>, ReadError> {
    if let Some(workspace) = read_workspace(&record.path) {
        if let Some(title) = name_title(&workspace) {
            return Ok(Some(title));
        }
    }
    let caches = caches.get::<CopilotCaches>();
    let head = caches
        .head_titles
        .get(&record.path, 0, || head_title(&record.path))?;
    Ok((*head).clone())
}

/// The title a workspace's name gives: as the user wrote it, or cut as a
/// first prompt when Copilot derived it; `None` when blank.
fn name_title(workspace: &Workspace) -> Option<String> {
    let name = workspace.name.as_deref()?;
    if workspace.user_named {
        Some(name.trim())
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
    } else {
        title_from_text(name)
    }
}

/// The first prompt's title, read forward only as far as it.
fn head_title(path: &Path) -> Result<Option<String>, ReadError> {
    let mut title = None;
    foreign::read_all_lines(path, |_, bytes| match line_says(bytes) {
        Some(Says::Line(LineSays::User(texts))) => {
            title = texts.first().and_then(|t| title_from_text(t));
            if title.is_some() {
                Visit::DONE
            } else {
                Visit::NEXT
            }
        }
        Some(_) => Visit::NEXT,
        None => Visit::BAD,
    })?;
    Ok(title)
}

/// The session's last activity: the `timestamp` of the last event that
/// has one, read from the end of the transcript; `None` when there is
/// none (the caller falls back on the file's modification time).
pub fn last_activity(path: &Path) -> Option<Instant> {
    foreign::last_line_where(path, b"\"timestamp\"", |bytes| {
        let line = Line::parse(bytes)?;
        Instant::parse_rfc3339(&string(line.timestamp)?)
    })
    .ok()
    .flatten()
}

#[cfg(test)]
mod tests;
