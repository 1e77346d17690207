//! Aider sessions (PyPI `aider-chat`), read from the chat history each
//! project keeps, `.aider.chat.history.md`. Follows aider 0.86.2 as
//! `../shared/spec/formats/aider.md` records it from running it offline
//! against the mock model (one-shots, `--restore-chat-history`, a run from
//! a subdirectory, `/run`, `/ask`, `/clear`, `--no-git`, a custom
//! `--chat-history-file`, `[[think]]`, an API error, killed runs).
//!
//! # Where the files are: no walk of the disk
//!
//! Aider writes the history into the project, never under the home
//! directory: `<root>/.aider.chat.history.md`, `<root>` being the git
//! working tree's root (even for a run in a subdirectory), or the current
//! directory with `--no-git`; `--chat-history-file` /
//! `$AIDER_CHAT_HISTORY_FILE` (or `chat-history-file:` in
//! `~/.aider.conf.yml`) moves it anywhere. So the files are looked for:
//!
//! - in the working directories the run already knows
//!   ([`crate::caches::KnownCwds`]): those of every session the other kinds
//!   listed, and the run's own (`--cwd`, else the current directory). For
//!   each, the directory and its parents up to the first one holding
//!   `.git` (the git root) are checked for the file, a `stat` each; no
//!   directory is listed. This kind's roots are scanned after every other
//!   kind's ([`Store::uses_known_cwds`]), so the other kinds' rows are out
//!   before the first Aider file is opened, and the directories are theirs;
//! - in its roots: the default `~/.aider` (Aider's own folder, which exists
//!   once aider ran: it holds no conversation, and stands for "the known
//!   directories", the home directory's own history (aider run there
//!   outside git) and `~/.aider.conf.yml`'s `chat-history-file`), an
//!   absolute `$AIDER_CHAT_HISTORY_FILE`, and what `--aider` names: a
//!   project directory (its `.aider.chat.history.md`) or a history file of
//!   any name. Only Aider's folder (a root named `.aider`) makes the known
//!   directories looked at, so `--aider P1 --aider P2` lists each once.
//!
//! A history file that is a symbolic link is not read (as in every store).
//!
//! # Record
//!
//! - A session is one `# aider chat started at …` section of the file
//!   (append-only: earlier sections never change). A file without one is
//!   skipped.
//! - id: Aider has none. `aider-<YYYYMMDD>T<HHMMSS>-<8 hex>`: the header's
//!   time and the first 8 hex digits of the SHA-256 of the file's
//!   canonical path, `-2`, `-3`… for further sections started in the same
//!   second; stable while the file grows. The record's path is the file's
//!   path joined with the id (no such file: the reader takes the file from
//!   its parent, as opencode's database sessions do).
//! - cwd: the head's `> Cur working dir:` (the directory aider ran in),
//!   else its `> Git working dir:`, else the file's folder.
//! - created: the header's local time (no zone in the file), converted
//!   with the machine's time zone (`TZ`). Last activity: the file's
//!   modification time for the last section, else the next section's start.
//!
//! # Title
//!
//! Aider has no title: the first prompt typed that is not a chat command
//! (`/add …`), else the first one.
//!
//! # What the person typed
//!
//! `#### ` lines only (a multi-line prompt joined back; `#### <blank>`, a
//! bare Enter, is none; `/ask X` logged again as `X` is one prompt). Aider's
//! `> ` lines (argv echo, banner, confirmations, token counts, command
//! output notes, errors) are never conversation, nor is anything before
//! the first prompt. Replies are the other lines, the
//! `<thinking-content-…>` reasoning taken out ([`chat`]). The system prompt,
//! repository map, file contents and the reminder aider glues onto each
//! prompt are sent to the model but never written to the file.
//!
//! # Compaction, resume, forks, sub-agents
//!
//! Aider's summaries of a long history are kept in memory only. `/clear`
//! (`> All chat history cleared.`) empties the model's context: what came
//! before is shadowed, kept for search. `--restore-chat-history` starts a
//! new section (listed as its own session) with the earlier ones put back
//! in the model's context. Aider has no forks, renames or sub-agents.
//!
//! # Cost
//!
//! Listing reads each history file once per version: its sessions, with
//! their titles found while the text is in memory, are kept in the title
//! index by the file's stamp, so a warm listing is a `stat` per file
//! (re-parsing every section each run cost 1.06 s CPU for 10,000
//! sessions). A session's surface reads its own section only (a file holds
//! every session of its project: reading it whole per title took 8.6 s for
//! 10,000 sessions, BENCHMARKS.md).

pub mod chat;
#[cfg(test)]
mod tests;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::caches::{Caches, KnownCwds, TargetCwd};
use crate::error::ReadError;
use crate::index::stamp::Stamp;
use crate::index::title::TitleIndex;
use crate::kinds::foreign::{folded_surface, read_bounded, FileCache, SurfaceBuilder};
use crate::model::{SessionRecord, StoreKind, Surface, SurfaceSink};
use crate::store::ScanEvent;
use crate::store::{Env, Store};
use chat::{Head, Said, Section};

/// The Aider store kind.
pub struct Aider;

/// The registry handle of [`Aider`].
pub const KIND: StoreKind = StoreKind::new(&Aider);

/// The chat history's name in a project.
pub const HISTORY: &str = ".aider.chat.history.md";

/// Aider's configuration file in the home directory.
const CONF: &str = ".aider.conf.yml";

/// The largest history file read (a chat history is text a person and a
/// model wrote; past this it is not a chat history).
const MAX_FILE: u64 = 256 << 20;

/// How many parents of a known directory are looked at, at most.
const MAX_UP: usize = 32;

/// Why a file is not listed: it has no session header.
pub const NOT_HISTORY: &str = "no \"# aider chat started at\" line: not an Aider chat history";

/// One session of a history file, as listing found it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Listed {
    /// Its id.
    pub id: String,
    /// Its bytes in the file.
    pub section: Section,
    /// What its head says.
    pub head: Head,
    /// Its title ([`chat::title`] of its section), found while the text
    /// is in memory: a warm listing then reads no history file.
    pub title: Option<String>,
}

/// Each history file's sessions, per file version.
#[derive(Default)]
struct AiderCaches {
    files: FileCache<Vec<Listed>>,
}

/// The text of a history file, refusing one too large to be one.
fn read_file(file: &Path) -> Result<Vec<u8>, ReadError> {
    read_bounded(file, MAX_FILE)
}

/// The sessions of `file` below `root`: kept in the title index per file
/// version (a warm listing is a `stat` per file), and per run.
fn listing(caches: &Caches, root: &Path, file: &Path) -> Result<Arc<Vec<Listed>>, ReadError> {
    caches.get::<AiderCaches>().files.get(file, 0, || {
        let read = || read_file(file).map(|text| list_text(&path_hash(file), &text));
        let index = caches.get::<TitleIndex>();
        match index.file_fact(KIND, root, file, || read().ok()) {
            Some((_, Some(listed))) => Ok(listed),
            _ => read(),
        }
    })
}

/// The sessions of a history file's text, their ids made with `hash`.
pub fn list_text(hash: &str, text: &[u8]) -> Vec<Listed> {
    let mut seen: std::collections::HashMap<String, usize> = Default::default();
    chat::sections(text)
        .into_iter()
        .map(|section| {
            let head = chat::head(&String::from_utf8_lossy(&text[section.start..section.end]));
            let stamp = id_stamp(&head.started).unwrap_or_else(|| format!("o{}", section.start));
            let count = seen.entry(stamp.clone()).or_default();
            *count += 1;
            let id = match *count {
                1 => format!("aider-{stamp}-{hash}"),
                n => format!("aider-{stamp}-{hash}-{n}"),
            };
            let own = String::from_utf8_lossy(&text[section.start..section.end]);
            let title = chat::title(&chat::said(&own));
            Listed {
                id,
                section,
                head,
                title,
            }
        })
        .collect()
}

/// `YYYYMMDDTHHMMSS` of a header's `YYYY-MM-DD HH:MM:SS`.
fn id_stamp(started: &str) -> Option<String> {
    let digits: String = started.chars().filter(char::is_ascii_digit).collect();
    (digits.len() == 14).then(|| format!("{}T{}", &digits[..8], &digits[8..]))
}

/// The first 8 hex digits of the SHA-256 of `file`'s canonical path.
fn path_hash(file: &Path) -> String {
    use sha2::{Digest, Sha256};
    let canonical = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_owned());
    let digest = Sha256::digest(canonical.as_os_str().as_encoded_bytes());
    digest[..4].iter().map(|b| format!("{b:02x}")).collect()
}

/// A header's local time as RFC 3339 (UTC), through the machine's time
/// zone; `None` when it is not `YYYY-MM-DD HH:MM:SS`.
pub fn local_to_rfc3339(started: &str) -> Option<String> {
    let (date, time) = started.trim().split_once(' ')?;
    let mut date = date.split('-').map(str::parse::<i32>);
    let mut time = time.split(':').map(str::parse::<i32>);
    let (year, month, day) = (date.next()?.ok()?, date.next()?.ok()?, date.next()?.ok()?);
    let (hour, min, sec) = (time.next()?.ok()?, time.next()?.ok()?, time.next()?.ok()?);
    let valid = (1..=12).contains(&month)
        && (1..=31).contains(&day)
        && (0..24).contains(&hour)
        && (0..60).contains(&min)
        && (0..=60).contains(&sec);
    if !valid || date.next().is_some() || time.next().is_some() {
        return None;
    }
    // SAFETY: `tm` is a plain C struct, zeroed then filled; `mktime` reads
    // and normalises only it (and the time zone, from `TZ`).
    let secs = unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        tm.tm_year = year - 1900;
        tm.tm_mon = month - 1;
        tm.tm_mday = day;
        tm.tm_hour = hour;
        tm.tm_min = min;
        tm.tm_sec = sec;
        tm.tm_isdst = -1;
        libc::mktime(&mut tm)
    };
    (secs != -1).then(|| session_ref_core::time::format_rfc3339_utc(secs))
}

/// Whether `path` is a regular file (not a link).
fn plain_file(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
}

/// The history files a root stands for (see "Where the files are").
fn history_files(caches: &Caches, root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    if root.is_file() {
        files.push(root.to_owned());
    } else if root.is_dir() {
        files.push(root.join(HISTORY));
        if let Some(home) = root
            .parent()
            .filter(|_| root.file_name().is_some_and(|n| n == ".aider"))
        {
            // Aider's own folder: a `--no-git` run in the home directory,
            // the history `~/.aider.conf.yml` moves, and the known
            // directories (looked at from this root only, so that a
            // project named on its own is not listed twice).
            files.push(home.join(HISTORY));
            files.extend(configured_history(home));
            let mut cwds = caches.get::<KnownCwds>().all();
            cwds.extend(caches.get::<TargetCwd>().0.clone());
            files.extend(known_histories(&cwds));
        }
    }
    let mut seen = HashSet::new();
    files.retain(|f| plain_file(f) || f == root);
    files.retain(|f| seen.insert(std::fs::canonicalize(f).unwrap_or_else(|_| f.clone())));
    files
}

/// The history files of known working directories: each directory and its
/// parents up to its git root.
pub fn known_histories(cwds: &[String]) -> Vec<PathBuf> {
    let mut looked = HashSet::new();
    let mut found = Vec::new();
    for cwd in cwds {
        let mut dir = Path::new(cwd);
        if !dir.is_absolute() {
            continue;
        }
        for _ in 0..MAX_UP {
            if !looked.insert(dir.to_owned()) {
                break;
            }
            let file = dir.join(HISTORY);
            if plain_file(&file) {
                found.push(file);
            }
            if dir.join(".git").exists() {
                break;
            }
            match dir.parent() {
                Some(parent) => dir = parent,
                None => break,
            }
        }
    }
    found
}

/// `chat-history-file:` of `~/.aider.conf.yml`, when absolute (or `~/…`).
fn configured_history(home: &Path) -> Option<PathBuf> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(home.join(CONF))
        .ok()?
        .take(64 * 1024)
        .read_to_string(&mut text)
        .ok()?;
    conf_history(&text, home)
}

/// The `chat-history-file` a `.aider.conf.yml` text sets (a top-level
/// `key: value` line, quotes taken off), absolute or under `home`.
pub fn conf_history(text: &str, home: &Path) -> Option<PathBuf> {
    let value = text.lines().find_map(|line| {
        let value = line.strip_prefix("chat-history-file:")?;
        let value = value.split(" #").next().unwrap_or(value).trim();
        Some(value.trim_matches(|c| c == '"' || c == '\'').to_owned())
    })?;
    match value.strip_prefix("~/") {
        Some(rest) => Some(home.join(rest)),
        None => Some(PathBuf::from(value)).filter(|p| p.is_absolute()),
    }
}

/// Report the sessions of one history file.
fn list_history(caches: &Caches, root: &Arc<Path>, file: &Path, sink: &(dyn Fn(ScanEvent) + Sync)) {
    let listed = match listing(caches, root, file) {
        Ok(listed) => listed,
        Err(e) => {
            return sink(ScanEvent::Unreadable {
                path: file.to_owned(),
                reason: e.message,
            })
        }
    };
    if listed.is_empty() {
        return sink(ScanEvent::Skipped {
            path: file.to_owned(),
            reason: NOT_HISTORY.into(),
        });
    }
    let folder = file
        .parent()
        .map(|d| d.to_string_lossy().into_owned())
        .filter(|d| !d.is_empty());
    for session in listed.iter() {
        sink(ScanEvent::Record(SessionRecord::new(
            KIND,
            Arc::clone(root),
            file.join(&session.id),
            session.id.clone(),
            session.head.cwd.clone().or_else(|| folder.clone()),
            local_to_rfc3339(&session.head.started).unwrap_or_default(),
        )));
    }
}

/// The file and section of a listed session.
fn section_of(caches: &Caches, record: &SessionRecord) -> Result<(PathBuf, Listed), ReadError> {
    let file = record.path.parent().unwrap_or(&record.path).to_owned();
    let listed = listing(caches, &record.root, &file)?;
    let found = listed.iter().find(|l| l.id == record.id).cloned();
    let found = found.ok_or_else(|| ReadError {
        path: file.clone(),
        line: None,
        message: format!("no session {} in the chat history", record.id),
    })?;
    Ok((file, found))
}

/// What the session's own section says.
fn read_said(caches: &Caches, record: &SessionRecord) -> Result<Vec<(u64, Said)>, ReadError> {
    let (file, listed) = section_of(caches, record)?;
    let text = read_section(&file, listed.section.start, listed.section.end)?;
    Ok(chat::said(&String::from_utf8_lossy(&text)))
}

/// The bytes `start..end` of `file` (fewer, or none, when it is shorter
/// now): one session's section, without reading the sessions around it
/// (a history file holds every session of its project, so reading it
/// whole for each title made listing quadratic in its sessions).
fn read_section(file: &Path, start: usize, end: usize) -> Result<Vec<u8>, ReadError> {
    use std::io::{Read, Seek, SeekFrom};
    let io = |e: std::io::Error| ReadError::io(file, &e);
    let mut f = std::fs::File::open(file).map_err(io)?;
    f.seek(SeekFrom::Start(start as u64)).map_err(io)?;
    let len = end.saturating_sub(start);
    let mut bytes = Vec::with_capacity(len);
    f.take(len as u64).read_to_end(&mut bytes).map_err(io)?;
    Ok(bytes)
}

/// Fold what a session says into `sink`; the seq of its last event.
pub fn fold(said: &[(u64, Said)], sink: &mut dyn SurfaceSink) -> u64 {
    let mut builder = SurfaceBuilder::new(sink);
    let mut last = 0;
    for (seq, said) in said {
        last = *seq;
        match said {
            Said::User(text) => builder.user(*seq, vec![text.clone()]),
            Said::Assistant(text) => builder.assistant(*seq, None, vec![text.clone()]),
            Said::Clear => builder.shadow(),
        }
    }
    last
}

impl Store for Aider {
    fn name(&self) -> &'static str {
        "aider"
    }

    fn flag(&self) -> &'static str {
        "aider"
    }

    fn origin(&self) -> &'static str {
        "Aider"
    }

    fn root_help(&self) -> &'static str {
        "Aider project directory (holding .aider.chat.history.md) or chat history file"
    }

    /// `$AIDER_CHAT_HISTORY_FILE` when absolute, and `~/.aider` (the
    /// projects of the known directories and `~/.aider.conf.yml`).
    fn default_roots(&self, env: Env<'_>, home: Option<&Path>) -> Vec<PathBuf> {
        let file = env("AIDER_CHAT_HISTORY_FILE")
            .filter(|v| v.starts_with('/') || v.starts_with('$'))
            .map(PathBuf::from);
        file.into_iter()
            .chain(home.map(|h| h.join(".aider")))
            .collect()
    }

    fn wants(&self, path: &Path) -> bool {
        path.file_name().is_some_and(|n| n == HISTORY)
    }

    /// A history file named on its own: its sessions (one record when it
    /// holds one).
    fn list_file(&self, caches: &Caches, root: &Arc<Path>, path: &Path) -> ScanEvent {
        let found = std::sync::Mutex::new(Vec::new());
        list_history(caches, root, path, &|e| {
            found.lock().unwrap_or_else(|e| e.into_inner()).push(e)
        });
        let mut found = found.into_inner().unwrap_or_else(|e| e.into_inner());
        match found.len() {
            1 => found.remove(0),
            n => ScanEvent::Skipped {
                path: path.to_owned(),
                reason: format!("an Aider chat history of {n} sessions, not one session"),
            },
        }
    }

    fn lists_each_file(&self) -> bool {
        false
    }

    fn uses_known_cwds(&self) -> bool {
        true
    }

    fn scan(
        &self,
        _: StoreKind,
        caches: &Caches,
        root: &Arc<Path>,
        sink: &(dyn Fn(ScanEvent) + Sync),
    ) {
        let files = history_files(caches, root);
        files
            .par_iter()
            .for_each(|file| list_history(caches, root, file, sink));
    }

    /// Sessions share their file: titles are read from the section.
    fn titles_by_file(&self) -> bool {
        false
    }

    fn read_title(
        &self,
        caches: &Caches,
        record: &SessionRecord,
    ) -> Result<Option<String>, ReadError> {
        Ok(section_of(caches, record)?.1.title)
    }

    fn read_surface(&self, caches: &Caches, record: &SessionRecord) -> Result<Surface, ReadError> {
        folded_surface(|surface| self.fold_surface(caches, record, surface))
    }

    fn fold_surface(
        &self,
        caches: &Caches,
        record: &SessionRecord,
        sink: &mut dyn SurfaceSink,
    ) -> Result<u64, ReadError> {
        Ok(fold(&read_said(caches, record)?, sink))
    }

    /// The file's modification time for its last session; an earlier
    /// session ended when the next one started.
    fn last_activity(&self, caches: &Caches, record: &SessionRecord) -> Option<i64> {
        let file = record.path.parent()?;
        let listed = listing(caches, &record.root, file).ok()?;
        let at = listed.iter().position(|l| l.id == record.id)?;
        match listed.get(at + 1) {
            Some(next) => local_to_rfc3339(&next.head.started)
                .and_then(|t| session_ref_core::time::Instant::parse_rfc3339(&t))
                .map(session_ref_core::time::Instant::unix_seconds),
            None => crate::caches::modified_secs(file),
        }
    }

    /// A session's version is its section: its length and start in the
    /// file (the file's inode beside), so appending a session leaves the
    /// earlier ones current.
    fn stamp(&self, caches: &Caches, record: &SessionRecord) -> Option<Stamp> {
        let (file, listed) = section_of(caches, record).ok()?;
        let inode = Stamp::current(&file)?.inode;
        Some(Stamp {
            len: (listed.section.end - listed.section.start) as u64,
            mtime_ns: listed.section.start as i128,
            inode,
        })
    }
}
