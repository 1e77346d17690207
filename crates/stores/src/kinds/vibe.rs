//! Mistral Vibe sessions (PyPI `mistral-vibe`), read from its unified
//! session store. Follows Mistral Vibe 3.0.2 (store format
//! `mistral.vibe.unified-session-store/v1`, minor 9), as
//! `../shared/spec/formats/vibe.md` records it from running it offline
//! against the mock model (headless `-p`, `-c`, `--resume` also from
//! another directory, tool calls, a killed run, the TUI's `/compact`,
//! `/rename` and `/branch`).
//!
//! # Layout
//!
//! `$VIBE_HOME/logs/session/unified`, else `~/.vibe/logs/session/unified`:
//! one folder per session, named by its id, holding `meta.json`,
//! `CURRENT` (`{generation, …}`), `generations/<g>/manifest.json` (each
//! part of the state a list of chunk digests) and the content-addressed
//! `chunks/<sha256>.json` (JSON arrays). The conversation is the public
//! history: the entries of the chunks the current generation's
//! `projection_state` lists, in order. Only the last two generations are
//! kept: a `CURRENT` naming one already gone falls back to the newest
//! generation there is. The `journal/` (a hash-chained recovery log of
//! whole model requests) is not a transcript and is not read. A root
//! (`--vibe DIR`) is that `unified` folder, `$VIBE_HOME`, or one session
//! folder.
//!
//! # Record
//!
//! - Listed: every session folder with a `meta.json` and a `CURRENT`. A
//!   branch (`/branch`: a new session, `parent_session_id` set, the history
//!   copied as `imported-*` entries) is a session of its own. `-c` and
//!   `--resume` append to the same folder.
//! - id: the folder's name (UUID-shaped, not a valid v4 UUID; `--resume`
//!   takes it or a prefix). Path: its `CURRENT`, rewritten with every
//!   snapshot.
//! - cwd: `meta.environment.working_directory`, else `origin_directory`
//!   (a resume from elsewhere changes neither). created: `start_time`;
//!   last activity: `end_time`, else `CURRENT`'s modification time.
//!
//! # Title
//!
//! `meta.title` (`/rename`, or an auto-title), null for every headless
//! session; then the first line of the first typed prompt (what Vibe's
//! `/continue` picker shows).
//!
//! # What the person typed
//!
//! History entries of `type: "message"`, `role: "user"` and `source:
//! "turn_start"`: their `text` content. A user entry of another source
//! (`harness`: a branch's `imported-*` entries, the compaction preamble
//! and repeated prompts) is Vibe's. A reply is an assistant message's
//! text; `effect` (tool calls and results), `reasoning` entries are not
//! conversation. A `checkpoint` entry of `kind: "compaction"` is the
//! compact checkpoint (its summary, else Vibe's message) and shadows what
//! came before it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use serde_json::Value;

use crate::caches::Caches;
use crate::error::ReadError;
use crate::index::stamp::TitleInputs;
use crate::kinds::foreign::{text_items, title_from_text, SurfaceBuilder};
use crate::model::{SessionRecord, StoreKind, Surface, SurfaceSink};
use crate::store::ScanEvent;
use crate::store::{env_or_home, Env, Store};
use session_ref_core::time::Instant;

/// The Mistral Vibe store kind.
pub struct Vibe;

/// The registry handle of [`Vibe`].
pub const KIND: StoreKind = StoreKind::new(&Vibe);

/// The pointer file a session folder's record path is.
const CURRENT: &str = "CURRENT";

/// A JSON file read, or why not.
fn read_json(path: &Path) -> Result<Value, ReadError> {
    let bytes = std::fs::read(path).map_err(|e| ReadError::io(path, &e))?;
    serde_json::from_slice(&bytes).map_err(|e| ReadError {
        path: path.to_owned(),
        line: None,
        message: format!("not a Vibe session store file: {e}"),
    })
}

/// The sessions folder a root names.
fn sessions_dir(root: &Path) -> PathBuf {
    let unified = root.join("logs").join("session").join("unified");
    if unified.is_dir() {
        unified
    } else {
        root.to_owned()
    }
}

/// Whether `folder` is a session folder.
fn is_session(folder: &Path) -> bool {
    folder.join("meta.json").is_file() && folder.join(CURRENT).is_file()
}

/// The digests a manifest part lists (`{chunks: [sha, …]}`; a chunk may
/// also be an object naming its digest).
fn chunk_digests(part: Option<&Value>) -> Vec<String> {
    part.and_then(|p| p.get("chunks"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| match c {
            Value::String(s) => Some(s.clone()),
            Value::Object(o) => ["sha256", "digest", "hash"]
                .iter()
                .find_map(|k| o.get(*k)?.as_str().map(str::to_owned)),
            _ => None,
        })
        .collect()
}

/// The manifest file of a session folder's current generation, or of the
/// newest one there is when `CURRENT` names one already collected.
fn manifest_file(folder: &Path) -> Result<PathBuf, ReadError> {
    let current = read_json(&folder.join(CURRENT))?;
    let generations = folder.join("generations");
    if let Some(g) = current.get("generation").and_then(Value::as_str) {
        let path = generations.join(g).join("manifest.json");
        if path.is_file() {
            return Ok(path);
        }
    }
    let newest = std::fs::read_dir(&generations)
        .map_err(|e| ReadError::io(&generations, &e))?
        .flatten()
        .map(|e| e.path().join("manifest.json"))
        .filter(|p| p.is_file())
        .max();
    newest.ok_or_else(|| ReadError {
        path: folder.join(CURRENT),
        line: None,
        message: "no generation of this Vibe session is left".into(),
    })
}

/// The manifest of a session folder's current generation.
fn manifest(folder: &Path) -> Result<Value, ReadError> {
    read_json(&manifest_file(folder)?)
}

/// The chunk file of `digest`, unless the digest would name a path
/// outside `chunks/`.
fn chunk_file(folder: &Path, digest: &str) -> Option<PathBuf> {
    if digest.contains(['/', '\\']) || digest.starts_with('.') {
        return None;
    }
    Some(folder.join("chunks").join(format!("{digest}.json")))
}

/// The entries of a manifest part, its chunks concatenated.
fn entries(folder: &Path, part: Option<&Value>) -> Result<Vec<Value>, ReadError> {
    let mut all = Vec::new();
    for chunk in chunk_digests(part)
        .iter()
        .filter_map(|d| chunk_file(folder, d))
    {
        match read_json(&chunk)? {
            Value::Array(items) => all.extend(items),
            Value::Object(o) => {
                let items = ["entries", "history", "items"]
                    .iter()
                    .find_map(|k| o.get(*k)?.as_array().cloned());
                all.extend(items.unwrap_or_default());
            }
            _ => {}
        }
    }
    Ok(all)
}

/// The non-blank texts of an entry's `content`.
fn texts_of(content: Option<&Value>) -> Vec<String> {
    text_items(content)
        .into_iter()
        .filter(|t| !t.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

/// What one history entry is to the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Turn {
    /// What the person typed.
    Prompt(Vec<String>),
    /// The assistant's text.
    Reply(Vec<String>),
    /// A compaction (its summary, when the entry holds one).
    Compaction(Option<String>),
    /// Nothing the surface shows.
    Hidden,
}

/// What history entry `entry` is.
pub fn turn_of(entry: &Value) -> Turn {
    let field = |k: &str| entry.get(k).and_then(Value::as_str);
    match field("type") {
        Some("message") => {
            let texts = texts_of(entry.get("content"));
            match (field("role"), field("source")) {
                _ if texts.is_empty() => Turn::Hidden,
                (Some("user"), Some("turn_start")) => Turn::Prompt(texts),
                (Some("assistant"), _) => Turn::Reply(texts),
                _ => Turn::Hidden,
            }
        }
        Some("checkpoint") if field("kind") == Some("compaction") => {
            let summary = entry
                .get("details")
                .and_then(|d| d.get("summary"))
                .and_then(Value::as_str)
                .or_else(|| field("message"))
                .filter(|s| !s.trim().is_empty())
                .map(str::to_owned);
            Turn::Compaction(summary)
        }
        _ => Turn::Hidden,
    }
}

/// The history entries of the session folder `folder`.
fn history(folder: &Path) -> Result<Vec<Value>, ReadError> {
    let manifest = manifest(folder)?;
    entries(folder, manifest.get("projection_state"))
}

/// Fold history entries into `sink`; the last seq read.
pub fn fold(history: &[Value], sink: &mut dyn SurfaceSink) -> u64 {
    let mut builder = SurfaceBuilder::new(sink);
    let mut seq = 0;
    for entry in history {
        seq += 1;
        match turn_of(entry) {
            Turn::Prompt(texts) => builder.user(seq, texts),
            Turn::Reply(texts) => builder.assistant(seq, None, texts),
            Turn::Compaction(summary) => {
                builder.shadow();
                builder.checkpoint(seq, summary.into_iter().collect());
            }
            Turn::Hidden => {}
        }
        if builder.wants_tools() {
            for tool in crate::kinds::tools::vibe_effect(entry) {
                builder.tool(seq, tool);
            }
        }
    }
    seq
}

/// The record, or why not, of the session folder `folder`.
fn list_session(root: &Arc<Path>, folder: &Path) -> ScanEvent {
    let meta = match read_json(&folder.join("meta.json")) {
        Ok(meta) => meta,
        Err(e) => {
            return ScanEvent::Unreadable {
                path: e.path,
                reason: e.message,
            }
        }
    };
    let text = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
            .map(str::to_owned)
    };
    let id = folder
        .file_name()
        .and_then(|n| n.to_str())
        .map(str::to_owned)
        .or_else(|| text(meta.get("session_id")))
        .unwrap_or_default();
    let cwd = text(
        meta.get("environment")
            .and_then(|e| e.get("working_directory")),
    )
    .or_else(|| text(meta.get("origin_directory")));
    let created = text(meta.get("start_time")).unwrap_or_default();
    ScanEvent::Record(SessionRecord::new(
        KIND,
        Arc::clone(root),
        folder.join(CURRENT),
        id,
        cwd,
        created,
    ))
}

/// The folder of a record (its `CURRENT`'s folder).
fn folder_of(record: &SessionRecord) -> &Path {
    record.path.parent().unwrap_or(&record.path)
}

impl Store for Vibe {
    fn name(&self) -> &'static str {
        "vibe"
    }

    fn flag(&self) -> &'static str {
        "vibe"
    }

    fn origin(&self) -> &'static str {
        "Mistral Vibe"
    }

    fn root_help(&self) -> &'static str {
        "Mistral Vibe session store ($VIBE_HOME/logs/session/unified) or $VIBE_HOME"
    }

    /// `$VIBE_HOME/logs/session/unified`, else `~/.vibe/logs/session/unified`.
    fn default_roots(&self, env: Env<'_>, home: Option<&Path>) -> Vec<PathBuf> {
        env_or_home(
            env,
            home,
            "VIBE_HOME",
            &["logs", "session", "unified"],
            &[".vibe", "logs", "session", "unified"],
        )
    }

    fn wants(&self, path: &Path) -> bool {
        path.file_name().is_some_and(|n| n == CURRENT)
    }

    fn list_file(&self, _: &Caches, root: &Arc<Path>, path: &Path) -> ScanEvent {
        match path.parent().filter(|f| is_session(f)) {
            Some(folder) => list_session(root, folder),
            None => ScanEvent::Skipped {
                path: path.to_owned(),
                reason: "not in a Vibe session folder (meta.json and CURRENT)".into(),
            },
        }
    }

    fn lists_each_file(&self) -> bool {
        false
    }

    fn scan(&self, _: StoreKind, _: &Caches, root: &Arc<Path>, sink: &(dyn Fn(ScanEvent) + Sync)) {
        if is_session(root) {
            return sink(list_session(root, root));
        }
        let dir = sessions_dir(root);
        let mut folders: Vec<PathBuf> = match std::fs::read_dir(&dir) {
            Ok(entries) => entries
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.path())
                .filter(|f| is_session(f))
                .collect(),
            Err(e) => {
                return sink(ScanEvent::Unreadable {
                    path: dir,
                    reason: e.to_string(),
                })
            }
        };
        folders.sort();
        folders
            .par_iter()
            .for_each(|folder| sink(list_session(root, folder)));
    }

    /// The title depends on `meta.json` too.
    /// `meta.json` (title, times, cwd), the current generation's manifest
    /// and the chunks its history lists: what the reader opens after
    /// `CURRENT`, so an archived session reads the same.
    fn side_files(&self, _: &Caches, record: &SessionRecord) -> Vec<PathBuf> {
        let folder = folder_of(record);
        let mut files = vec![folder.join("meta.json")];
        if let Ok(path) = manifest_file(folder) {
            if let Ok(manifest) = read_json(&path) {
                files.extend(
                    chunk_digests(manifest.get("projection_state"))
                        .iter()
                        .filter_map(|d| chunk_file(folder, d)),
                );
            }
            files.push(path);
        }
        files
    }

    fn title_inputs(&self, _: &Caches, record: &SessionRecord) -> Option<TitleInputs> {
        Some(TitleInputs::Files(
            vec![folder_of(record).join("meta.json")],
        ))
    }

    fn read_title(&self, _: &Caches, record: &SessionRecord) -> Result<Option<String>, ReadError> {
        let folder = folder_of(record);
        let meta = read_json(&folder.join("meta.json"))?;
        if let Some(title) = meta
            .get("title")
            .and_then(Value::as_str)
            .and_then(title_from_text)
        {
            return Ok(Some(title));
        }
        Ok(history(folder)?.iter().find_map(|e| match turn_of(e) {
            Turn::Prompt(texts) => texts.iter().find_map(|t| title_from_text(t)),
            _ => None,
        }))
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
        Ok(fold(&history(folder_of(record))?, sink))
    }

    /// `end_time`, else `CURRENT`'s modification time.
    fn last_activity(&self, _: &Caches, record: &SessionRecord) -> Option<i64> {
        read_json(&folder_of(record).join("meta.json"))
            .ok()
            .and_then(|m| m.get("end_time")?.as_str().and_then(Instant::parse_rfc3339))
            .map(Instant::unix_seconds)
            .or_else(|| crate::caches::modified_secs(&record.path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::foreign::testing::texts;
    use serde_json::json;

    #[test]
    fn default_roots_follow_vibe_home() {
        assert_eq!(
            crate::default_roots_help(KIND),
            "$VIBE_HOME/logs/session/unified, else ~/.vibe/logs/session/unified"
        );
    }

    #[test]
    fn typed_turns_replies_and_a_compaction() {
        let history = vec![
            json!({"id": "imported-1", "type": "message", "role": "user", "source": "harness",
                "content": [{"type": "text", "text": "You are continuing a trajectory after a context compaction"}]}),
            json!({"id": "user-turn-a-1", "type": "message", "role": "user", "source": "turn_start",
                "turnId": "turn-a", "content": [{"type": "text", "text": "Explain calc.py"}], "createdAt": 1}),
            json!({"type": "reasoning", "content": [{"type": "text", "text": "HMM"}]}),
            json!({"id": "effect-1", "type": "effect", "detail": {"kind": "tool",
                "toolName": "file_system.bash", "input": {"command": "ls"}}, "state": {"status": "done"}}),
            json!({"id": "assistant-1", "type": "message", "role": "assistant", "source": "harness",
                "content": [{"type": "text", "text": "calc.py adds"}]}),
            json!({"id": "checkpoint-compaction-1", "type": "checkpoint", "kind": "compaction",
                "message": "Context compacted", "details": {"trigger": "manual"}}),
            json!({"id": "user-turn-b-1", "type": "message", "role": "user", "source": "turn_start",
                "content": "And now?"}),
        ];
        let mut surface = Surface::default();
        assert_eq!(fold(&history, &mut surface), 7);
        assert_eq!(
            texts(&surface),
            [
                (6, "checkpoint", "Context compacted".to_owned()),
                (7, "user", "And now?".to_owned()),
            ]
        );
        let mut whole = Surface::default();
        fold(&history[..5], &mut whole);
        assert_eq!(
            texts(&whole),
            [
                (2, "user", "Explain calc.py".to_owned()),
                (5, "assistant", "calc.py adds".to_owned()),
            ]
        );
    }

    #[test]
    fn a_manifest_lists_digests() {
        let part = json!({"chunks": ["aa", {"sha256": "bb"}, 3]});
        assert_eq!(chunk_digests(Some(&part)), ["aa", "bb"]);
        assert!(chunk_digests(None).is_empty());
    }
}
