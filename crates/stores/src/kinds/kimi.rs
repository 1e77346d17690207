//! Kimi CLI sessions (PyPI `kimi-cli`), read from its share directory.
//! Follows kimi-cli 1.52.0 (the last release of the Python CLI, whose
//! format existing users have on disk), as `../shared/spec/formats/kimi.md`
//! records it from running it offline against the mock model (one-shots,
//! `-C`, `-r` also from another directory, tool calls, a killed run,
//! automatic and `/compact` compaction, a `UserPromptSubmit` hook).
//!
//! # Layout
//!
//! `$KIMI_SHARE_DIR`, else `~/.kimi`: `sessions/<md5 of the work
//! directory>/<session uuid>/`, each holding `context.jsonl` (the model
//! context), `context_1.jsonl`, `context_2.jsonl`, … (the context as it was
//! before each compaction), `wire.jsonl` (the UI's event log, with the
//! only timestamps) and `state.json` (title, archive flag). `kimi.json`
//! maps the work directories back (`work_dirs[].path`), so a folder's
//! hash is recomputed from each path (`md5(path.encode("utf-8"))`, and
//! `<kaos>_<md5>` for a work directory on another KAOS than `local`, as
//! `kimi_cli/metadata.py` `WorkDirMeta.sessions_dir` names it, read in
//! `MoonshotAI/kimi-cli` through the `search` tool; the formats page's
//! example hash is of the path before it was anonymised). A root (`--kimi DIR`) is the share
//! directory, its `sessions` folder, or one session folder.
//!
//! # Record
//!
//! - Listed: every session folder with a `context.jsonl`, once per id.
//!   `-r ID` from another directory writes a second folder of the same id
//!   under that directory's hash, holding only the new turns: the copies
//!   are one session, read in the order they began (the first wire
//!   timestamp), listed under the first one (its folder, its work
//!   directory). Archived sessions (`state.json` `archived`) are skipped,
//!   counted under `-v`; sub-agents live in a session's `subagents/`
//!   folder and are never listed.
//! - id: the folder's name (what `kimi -r` takes). cwd: the work
//!   directory whose MD5 is the parent folder's name, from `kimi.json`.
//! - created: the first `wire.jsonl` timestamp (epoch seconds).
//!
//! # Title
//!
//! `state.json` `custom_title` (the first prompt of the run that first
//! saved state, cut by Kimi at about 40 characters), else the first line
//! of the first typed prompt.
//!
//! # What the person typed
//!
//! `role: "user"` lines of the context files: `content`, a string or
//! `text` parts; parts that are whole `<system>…</system>` blocks are
//! Kimi's. A user message opening with `<system>Previous context has been
//! compacted…</system>` is a compaction's summary: the compact checkpoint,
//! shadowing what came before it. A reply is an assistant line's `text`
//! parts (not `think`, not `tool_calls`); `tool`, `_system_prompt`,
//! `_checkpoint` and `_usage` lines are not conversation. The rotated
//! context files are read first, so the turns a compaction replaced are
//! still searchable. Slash commands (`/compact`) appear only in
//! `wire.jsonl` and are not conversation.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use md5::{Digest, Md5};
use rayon::prelude::*;
use serde_json::Value;

use crate::caches::Caches;
use crate::error::ReadError;
use crate::index::stamp::{Stamp, TitleInputs};
use crate::kinds::foreign::{
    fold_all_lines, read_lines, text_items, title_from_text, LineSays, SurfaceBuilder, Visit,
};
use crate::model::{SessionRecord, StoreKind, Surface, SurfaceSink};
use crate::store::ScanEvent;
use crate::store::{env_or_home, Env, Store};
use session_ref_core::time::Instant;

/// The Kimi CLI store kind.
pub struct Kimi;

/// The registry handle of [`Kimi`].
pub const KIND: StoreKind = StoreKind::new(&Kimi);

/// Why an archived session is not listed.
pub const ARCHIVED: &str = "archived in Kimi CLI (its session list hides it)";

/// The context file every session folder has.
const CONTEXT: &str = "context.jsonl";

/// How a compaction's injected summary opens.
const COMPACTED: &str = "<system>Previous context has been compacted";

/// The MD5 (hex) of a work directory's path: its sessions folder's name.
pub fn folder_hash(path: &str) -> String {
    Md5::digest(path.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The sessions folder a root names, and the share directory above it.
fn sessions_dir(root: &Path) -> (PathBuf, PathBuf) {
    if root.join("sessions").is_dir() {
        (root.join("sessions"), root.to_owned())
    } else {
        let share = root
            .parent()
            .map_or_else(|| root.to_owned(), Path::to_owned);
        (root.to_owned(), share)
    }
}

/// Each work directory of `kimi.json`, by its folder hash.
fn work_dirs(share: &Path) -> HashMap<String, String> {
    let Ok(bytes) = std::fs::read(share.join("kimi.json")) else {
        return HashMap::new();
    };
    let Ok(value) = serde_json::from_slice::<Value>(&bytes) else {
        return HashMap::new();
    };
    value
        .get("work_dirs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|w| {
            let path = w.get("path")?.as_str()?;
            let hash = folder_hash(path);
            // A work directory on another KAOS than `local` is `<kaos>_<md5>`.
            let folder = match w.get("kaos").and_then(Value::as_str) {
                Some(kaos) if kaos != "local" => format!("{kaos}_{hash}"),
                _ => hash,
            };
            Some((folder, path.to_owned()))
        })
        .collect()
}

/// One folder of a session.
#[derive(Debug, Clone, PartialEq)]
struct Copy {
    /// The session folder.
    folder: PathBuf,
    /// The first wire timestamp (Unix seconds).
    began: Option<f64>,
}

/// The first timestamp of a folder's `wire.jsonl`.
fn began(folder: &Path) -> Option<f64> {
    use std::io::BufRead;
    let file = std::fs::File::open(folder.join("wire.jsonl")).ok()?;
    std::io::BufReader::new(file)
        .split(b'\n')
        .take(8)
        .map_while(Result::ok)
        .find_map(|line| {
            serde_json::from_slice::<Value>(&line)
                .ok()?
                .get("timestamp")?
                .as_f64()
        })
}

/// Every session folder under `sessions`, by id, each id's copies in the
/// order they began.
fn session_folders(sessions: &Path) -> std::io::Result<Vec<(String, Vec<Copy>)>> {
    // One session folder named as the root.
    if sessions.join(CONTEXT).is_file() {
        let id = sessions
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_owned();
        let copy = Copy {
            folder: sessions.to_owned(),
            began: began(sessions),
        };
        return Ok(vec![(id, vec![copy])]);
    }
    let mut folders = Vec::new();
    for hash in std::fs::read_dir(sessions)?.flatten() {
        if !hash.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let Ok(inner) = std::fs::read_dir(hash.path()) else {
            continue;
        };
        for session in inner.flatten() {
            let folder = session.path();
            if session.file_type().is_ok_and(|t| t.is_dir()) && folder.join(CONTEXT).is_file() {
                if let Ok(id) = session.file_name().into_string() {
                    folders.push((id, folder));
                }
            }
        }
    }
    let began: Vec<(String, Copy)> = folders
        .into_par_iter()
        .map(|(id, folder)| {
            let began = began(&folder);
            (id, Copy { folder, began })
        })
        .collect();
    let mut by_id: HashMap<String, Vec<Copy>> = HashMap::new();
    for (id, copy) in began {
        by_id.entry(id).or_default().push(copy);
    }
    let mut sessions: Vec<(String, Vec<Copy>)> = by_id.into_iter().collect();
    for (_, copies) in &mut sessions {
        sort_copies(copies);
    }
    sessions.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(sessions)
}

/// Copies in the order they began (an unknown start last), then by folder.
fn sort_copies(copies: &mut [Copy]) {
    copies.sort_by(|a, b| {
        let key = |c: &Copy| c.began.unwrap_or(f64::INFINITY);
        key(a)
            .total_cmp(&key(b))
            .then_with(|| a.folder.cmp(&b.folder))
    });
}

/// A session folder's `state.json`.
fn state(folder: &Path) -> Option<Value> {
    serde_json::from_slice(&std::fs::read(folder.join("state.json")).ok()?).ok()
}

/// The context files of a folder in the order they were written: the
/// rotated `context_N.jsonl` by N, then `context.jsonl`.
fn context_files(folder: &Path) -> Vec<PathBuf> {
    let mut rotated: Vec<(u64, PathBuf)> = std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let n = name.strip_prefix("context_")?.strip_suffix(".jsonl")?;
            Some((n.parse().ok()?, e.path()))
        })
        .collect();
    rotated.sort();
    rotated
        .into_iter()
        .map(|(_, p)| p)
        .chain([folder.join(CONTEXT)])
        .collect()
}

/// Whether `text` is one whole `<system>…</system>` block (Kimi's).
fn is_system_block(text: &str) -> bool {
    let text = text.trim();
    text.starts_with("<system>") && text.ends_with("</system>")
}

/// What one context line says.
pub fn line_says(bytes: &[u8]) -> Option<LineSays> {
    let line: Value = serde_json::from_slice(bytes).ok()?;
    let texts = text_items(line.get("content"));
    let kept = |texts: Vec<&str>| -> Vec<String> {
        texts
            .into_iter()
            .filter(|t| !t.trim().is_empty() && !is_system_block(t))
            .map(str::to_owned)
            .collect()
    };
    Some(match line.get("role").and_then(Value::as_str) {
        Some("user")
            if texts
                .first()
                .is_some_and(|t| t.trim_start().starts_with(COMPACTED)) =>
        {
            let summary: Vec<String> = texts
                .iter()
                .map(|t| match t.find("</system>") {
                    Some(end) if t.trim_start().starts_with(COMPACTED) => &t[end + 9..],
                    _ => t,
                })
                .filter(|t| !t.trim().is_empty())
                .map(|t| t.trim().to_owned())
                .collect();
            LineSays::Checkpoint(summary)
        }
        Some("user") => match kept(texts) {
            typed if typed.is_empty() => LineSays::Nothing,
            typed => LineSays::User(typed),
        },
        Some("assistant") => match kept(texts) {
            reply if reply.is_empty() => LineSays::Nothing,
            reply => LineSays::Assistant {
                key: None,
                texts: reply,
            },
        },
        _ => LineSays::Nothing,
    })
}

/// The folders of `record`'s session, in the order they began: its own,
/// and the copies of the same id under other work directories' hashes.
fn copies_of(record: &SessionRecord) -> Vec<PathBuf> {
    let Some(folder) = record.path.parent() else {
        return Vec::new();
    };
    let sessions = folder
        .parent()
        .and_then(Path::parent)
        .filter(|_| record.root.as_ref() != folder);
    // Only this id's folder under each work directory's hash is looked at:
    // the stamp, title and side files ask this of every listed session, so
    // a walk of every session folder here made listing quadratic.
    let Some(Ok(hashes)) = sessions.map(std::fs::read_dir) else {
        return vec![folder.to_owned()];
    };
    let mut copies: Vec<Copy> = hashes
        .flatten()
        .map(|hash| hash.path().join(&record.id))
        .filter(|copy| copy.join(CONTEXT).is_file())
        .map(|folder| Copy {
            began: began(&folder),
            folder,
        })
        .collect();
    if copies.is_empty() {
        return vec![folder.to_owned()];
    }
    sort_copies(&mut copies);
    copies.into_iter().map(|c| c.folder).collect()
}

/// The first line of the first typed prompt of `record`, compacted
/// turns included (the rotated context files are read first).
fn first_prompt_title(record: &SessionRecord) -> Result<Option<String>, ReadError> {
    let mut title = None;
    for folder in copies_of(record) {
        for file in context_files(&folder).into_iter().filter(|f| f.is_file()) {
            read_lines(&file, false, |_, bytes| match line_says(bytes) {
                Some(LineSays::User(texts)) => {
                    title = texts.iter().find_map(|t| title_from_text(t));
                    if title.is_some() {
                        Visit::DONE
                    } else {
                        Visit::NEXT
                    }
                }
                Some(_) => Visit::NEXT,
                None => Visit::BAD,
            })?;
            if title.is_some() {
                return Ok(title);
            }
        }
    }
    Ok(None)
}

/// Fold every context file of every copy of `record` into `sink`.
fn fold_record(record: &SessionRecord, sink: &mut dyn SurfaceSink) -> Result<u64, ReadError> {
    // The record's own context file first: gone, the session is unreadable.
    std::fs::metadata(&record.path).map_err(|e| ReadError::io(&record.path, &e))?;
    let mut builder = SurfaceBuilder::new(sink);
    let tools = builder.wants_tools();
    let read = |bytes: &[u8]| {
        let said = line_says(bytes)?;
        let calls = if tools {
            serde_json::from_slice::<Value>(bytes)
                .map(|line| crate::kinds::tools::chat_message(&line))
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        Some((said, calls))
    };
    let mut base = 0;
    for folder in copies_of(record) {
        for file in context_files(&folder) {
            if !file.is_file() {
                continue;
            }
            let last = fold_all_lines(&file, read, |seq, (said, calls)| {
                // A compaction's summary replaces the context before it.
                if matches!(said, LineSays::Checkpoint(_)) {
                    builder.shadow();
                }
                builder.apply(base + seq, said);
                for call in calls {
                    builder.tool(base + seq, call);
                }
            })?;
            base += last;
        }
    }
    Ok(base)
}

impl Store for Kimi {
    fn name(&self) -> &'static str {
        "kimi"
    }

    fn flag(&self) -> &'static str {
        "kimi"
    }

    fn origin(&self) -> &'static str {
        "Kimi CLI"
    }

    fn root_help(&self) -> &'static str {
        "Kimi CLI share directory (holding sessions/ and kimi.json) or its sessions folder"
    }

    /// `$KIMI_SHARE_DIR`, else `~/.kimi`.
    fn default_roots(&self, env: Env<'_>, home: Option<&Path>) -> Vec<PathBuf> {
        env_or_home(env, home, "KIMI_SHARE_DIR", &[], &[".kimi"])
    }

    fn wants(&self, path: &Path) -> bool {
        path.file_name().is_some_and(|n| n == CONTEXT)
    }

    fn list_file(&self, _: &Caches, root: &Arc<Path>, path: &Path) -> ScanEvent {
        let Some(folder) = path.parent() else {
            return ScanEvent::Skipped {
                path: path.to_owned(),
                reason: "not a Kimi CLI session folder".into(),
            };
        };
        let id = folder
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let share = folder
            .parent()
            .and_then(Path::parent)
            .and_then(Path::parent);
        let dirs = share.map(work_dirs).unwrap_or_default();
        let copy = Copy {
            folder: folder.to_owned(),
            began: began(folder),
        };
        event(root, id, &copy, &dirs)
    }

    fn lists_each_file(&self) -> bool {
        false
    }

    fn scan(&self, _: StoreKind, _: &Caches, root: &Arc<Path>, sink: &(dyn Fn(ScanEvent) + Sync)) {
        let (sessions, share) = sessions_dir(root);
        let folders = match session_folders(&sessions) {
            Ok(folders) => folders,
            Err(e) => {
                return sink(ScanEvent::Unreadable {
                    path: sessions,
                    reason: e.to_string(),
                })
            }
        };
        let dirs = work_dirs(&share);
        folders
            .par_iter()
            .for_each(|(id, copies)| sink(event(root, id, &copies[0], &dirs)));
    }

    /// Everything beside `context.jsonl` the reader uses: each copy's
    /// rotated contexts, `wire.jsonl` (the times) and `state.json` (the
    /// title), the other copies' `context.jsonl`, and `kimi.json` (the
    /// work directories), so an archived session reads the same.
    fn side_files(&self, _: &Caches, record: &SessionRecord) -> Vec<PathBuf> {
        let mut files = Vec::new();
        for folder in copies_of(record) {
            files.extend(context_files(&folder));
            files.push(folder.join("wire.jsonl"));
            files.push(folder.join("state.json"));
        }
        files.retain(|file| *file != record.path);
        let share = record
            .path
            .parent()
            .and_then(Path::parent)
            .and_then(Path::parent)
            .and_then(Path::parent);
        files.extend(share.map(|share| share.join("kimi.json")));
        files
    }

    /// The title depends on `state.json` too.
    fn title_inputs(&self, _: &Caches, record: &SessionRecord) -> Option<TitleInputs> {
        Some(TitleInputs::Files(vec![record
            .path
            .with_file_name("state.json")]))
    }

    fn read_title(&self, _: &Caches, record: &SessionRecord) -> Result<Option<String>, ReadError> {
        let custom = record
            .path
            .parent()
            .and_then(state)
            .and_then(|s| s.get("custom_title")?.as_str().and_then(title_from_text));
        if custom.is_some() {
            return Ok(custom);
        }
        first_prompt_title(record)
    }

    fn read_surface(&self, caches: &Caches, record: &SessionRecord) -> Result<Surface, ReadError> {
        crate::store::surface_of(|surface| self.fold_surface(caches, record, surface))
    }

    fn fold_surface(
        &self,
        _: &Caches,
        record: &SessionRecord,
        sink: &mut dyn SurfaceSink,
    ) -> Result<u64, ReadError> {
        fold_record(record, sink)
    }

    /// Every context file of every copy makes the version the search
    /// index keys the session by (a resume from another directory grows
    /// the other copy; a compaction adds a rotated file).
    fn stamp(&self, _: &Caches, record: &SessionRecord) -> Option<Stamp> {
        let own = Stamp::current(&record.path)?;
        let mut all = Stamp {
            len: 0,
            mtime_ns: 0,
            inode: own.inode,
        };
        for folder in copies_of(record) {
            for file in context_files(&folder) {
                if let Some(s) = Stamp::current(&file) {
                    all.len = all.len.wrapping_add(s.len);
                    all.mtime_ns = all.mtime_ns.max(s.mtime_ns);
                }
            }
        }
        Some(all)
    }
}

/// The record, or why not, of a session's first copy.
fn event(root: &Arc<Path>, id: &str, first: &Copy, dirs: &HashMap<String, String>) -> ScanEvent {
    let path = first.folder.join(CONTEXT);
    if state(&first.folder)
        .and_then(|s| s.get("archived")?.as_bool())
        .unwrap_or(false)
    {
        return ScanEvent::Skipped {
            path,
            reason: ARCHIVED.into(),
        };
    }
    let hash = first
        .folder
        .parent()
        .and_then(Path::file_name)
        .and_then(|n| n.to_str());
    let cwd = hash.and_then(|h| dirs.get(h)).cloned();
    let created = first
        .began
        .filter(|s| s.is_finite())
        .map(|s| {
            // Whole milliseconds of a finite time: the cast cannot wrap.
            #[allow(clippy::cast_possible_truncation)]
            let ms = (s * 1000.0) as i64;
            crate::kinds::opencode::convo::rfc3339_ms(ms)
        })
        .filter(|t| Instant::parse_rfc3339(t).is_some())
        .unwrap_or_default();
    ScanEvent::Record(SessionRecord::new(
        KIND,
        Arc::clone(root),
        path,
        id.to_owned(),
        cwd,
        created,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn says(value: Value) -> LineSays {
        line_says(value.to_string().as_bytes()).unwrap()
    }

    #[test]
    fn the_folder_hash_is_the_md5_of_the_path() {
        assert_eq!(
            folder_hash("/home/me/alpha"),
            "dd3464ad15e3938bd1128bd2347c29d6"
        );
        assert_eq!(
            Kimi.default_roots(&|_| None, Some(Path::new("/h"))),
            [PathBuf::from("/h/.kimi")]
        );
        assert_eq!(
            crate::default_roots_help(KIND),
            "$KIMI_SHARE_DIR, else ~/.kimi"
        );
    }

    #[test]
    fn what_each_context_line_says() {
        assert_eq!(
            says(json!({"role": "user", "content": "Explain calc.py"})),
            LineSays::User(vec!["Explain calc.py".into()])
        );
        assert_eq!(
            says(
                json!({"role": "user", "content": [{"type": "text", "text": "<system>plan mode</system>"},
                {"type": "text", "text": "typed"}]})
            ),
            LineSays::User(vec!["typed".into()])
        );
        assert_eq!(
            says(
                json!({"role": "assistant", "content": [{"type": "think", "think": "HMM"},
                {"type": "text", "text": "ACK"}], "tool_calls": [{"type": "function", "id": "c",
                "function": {"name": "Shell", "arguments": "{}"}}]})
            ),
            LineSays::Assistant {
                key: None,
                texts: vec!["ACK".into()]
            }
        );
        for hidden in [
            json!({"role": "tool", "content": [{"type": "text", "text": "<system>Command executed successfully.</system>"}], "tool_call_id": "c"}),
            json!({"role": "_system_prompt", "content": "You are Kimi"}),
            json!({"role": "_checkpoint", "id": 0}),
            json!({"role": "_usage", "token_count": 12}),
        ] {
            assert_eq!(says(hidden), LineSays::Nothing);
        }
        assert_eq!(
            says(json!({"role": "user", "content": [{"type": "text",
                "text": "<system>Previous context has been compacted. Here is the compaction output:</system>"},
                {"type": "text", "text": "SUMMARY"}]})),
            LineSays::Checkpoint(vec!["SUMMARY".into()])
        );
        assert_eq!(
            says(json!({"role": "user", "content":
                "<system>Previous context has been compacted. Here is the compaction output:</system>\nSUMMARY"})),
            LineSays::Checkpoint(vec!["SUMMARY".into()])
        );
    }
}
