//! Factory Droid sessions (npm `@factory/cli`, the `droid` command),
//! mapped onto the session model.
//!
//! Followed: droid 0.225.2, run offline against the mock model
//! (`../shared/spec/formats/droid.md`: `exec`, `exec --fork`, the TUI with
//! its `UserPromptSubmit` hook, `/compress`, `/rename`, `/fork`, resumes
//! from another directory, an interrupted tool). Droid is closed source (a
//! Bun-compiled binary), so nothing here was read from its source.
//!
//! # Where the sessions are
//!
//! A root (`--droid DIR`) is Droid's sessions folder: `~/.factory/sessions`,
//! the home being `$FACTORY_HOME_OVERRIDE` when set. Below it,
//! `<cwd slug>/<uuid>.jsonl`, one session per file; the slug (the cwd with
//! `/` as `-`) is lossy and never decoded. Beside each transcript Droid
//! keeps `<uuid>.settings.json` (model, autonomy, token use) and its
//! `.bak`: not read. The two index files (`sessions-index.json`,
//! `cache/session-discovery-index.json`) disagree with the transcripts
//! (the first held one session of 17), so they are not read either.
//!
//! # A transcript
//!
//! Line 1 is `{type: "session_start", id, title, cwd, parent?,
//! isSessionTitleManuallySet, …}`, rewritten in place when the session is
//! renamed or titled. Then `message` lines (`{id, parentId, timestamp,
//! message: {role, content: [blocks]}}`), `agent_turn_outcome` lines and,
//! at the head of a session `/compress` made, `compaction_state`
//! (`summaryText`).
//!
//! - A session is a file with its `session_start` line and at least one
//!   `message`: a run that failed before its first message (no login)
//!   leaves a header alone, and is not a session to cite.
//! - id: the file's stem (a UUID, also `session_start.id`, what `droid
//!   --resume` takes); cwd: `session_start.cwd` (a resume from another
//!   directory leaves no trace); created: the first line's `timestamp`
//!   (`session_start` has none); last activity: the last line's.
//! - Title: `session_start.title` — the first prompt cut with `...`, an
//!   LLM title, or a rename — else the first typed prompt.
//! - Typed: a `user` message's `text` blocks, unless its id is
//!   `context-<turn>` (the `<system-reminder>` blocks Droid adds before
//!   each turn: skills, tools, `% pwd`, a hook's added context), its
//!   `visibility` is `user_only` (a hook's run, with empty content), or it
//!   carries only `tool_result` blocks. Replies: `assistant` `text` blocks,
//!   never `thinking` or `tool_use`.
//! - A fork (`exec --fork`, `/fork`) is a file of its own with the
//!   messages copied under the same ids and `parent` set: a session of its
//!   own, as `/compress`'s new session is, whose `compaction_state`
//!   summary is its compact checkpoint (everything before it shadowed).
//! - Sub-agents (`Task` workers) were not collected (the mock recursed);
//!   how their transcripts are marked is not known, so none is skipped.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::caches::Caches;
use crate::error::ReadError;
use crate::index::stamp::TitleInputs;
use crate::kinds::foreign::{
    fold_all_lines, last_line_where, read_lines, title_from_text, LineSays, SurfaceBuilder, Visit,
};
use crate::model::{SessionRecord, StoreKind, Surface, SurfaceSink};
use crate::store::{env_or_home, Env, Store};
use crate::store::{has_suffix, ScanEvent};
use session_ref_core::time::Instant;
use session_ref_jsonl::loose::{from_line, is_str, raw_elements, string, RawText};

/// The Factory Droid store.
pub struct Droid;

/// The Factory Droid store's kind.
pub const KIND: StoreKind = StoreKind::new(&Droid);

/// The id prefix of the context message Droid adds before each turn.
const CONTEXT_ID: &str = "context-";

/// The fields of a transcript line the mapping uses, as raw JSON text.
#[derive(Debug, Default, serde::Deserialize)]
struct Line<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<RawText<'a>>,
    #[serde(borrow)]
    id: Option<RawText<'a>>,
    #[serde(borrow)]
    title: Option<RawText<'a>>,
    #[serde(borrow)]
    cwd: Option<RawText<'a>>,
    #[serde(borrow)]
    timestamp: Option<RawText<'a>>,
    #[serde(borrow)]
    message: Option<RawText<'a>>,
    #[serde(rename = "summaryText", borrow)]
    summary: Option<RawText<'a>>,
}

/// A `message` line's message.
#[derive(serde::Deserialize)]
struct Message<'a> {
    #[serde(borrow)]
    role: Option<RawText<'a>>,
    #[serde(borrow)]
    content: Option<RawText<'a>>,
    #[serde(borrow)]
    visibility: Option<RawText<'a>>,
}

/// One content block.
#[derive(serde::Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<RawText<'a>>,
    #[serde(borrow)]
    text: Option<RawText<'a>>,
}

impl<'a> Line<'a> {
    fn parse(bytes: &'a [u8]) -> Option<Line<'a>> {
        from_line(bytes).ok()
    }

    fn is(&self, kind: &str) -> bool {
        is_str(self.kind, kind)
    }

    /// The message of a `message` line.
    fn message(&self) -> Option<Message<'a>> {
        if !self.is("message") {
            return None;
        }
        serde_json::from_str(self.message?.0).ok()
    }

    /// The time the line records, in Unix seconds.
    fn time(&self) -> Option<i64> {
        let text = string(self.timestamp)?;
        Some(Instant::parse_rfc3339(&text)?.unix_seconds())
    }

    /// What the person typed, for a `user` message that is theirs.
    fn typed(&self) -> Vec<String> {
        let Some(message) = self.message() else {
            return Vec::new();
        };
        let injected = string(self.id).is_some_and(|id| id.starts_with(CONTEXT_ID))
            || is_str(message.visibility, "user_only");
        if !is_str(message.role, "user") || injected {
            return Vec::new();
        }
        texts(&message)
    }
}

/// The `text` blocks of a message (or its string content), blank ones left
/// out.
fn texts(message: &Message<'_>) -> Vec<String> {
    let texts = match string(message.content) {
        Some(text) => vec![text],
        None => raw_elements(message.content)
            .into_iter()
            .filter_map(|raw| serde_json::from_str::<Block>(raw.0).ok())
            .filter(|b| is_str(b.kind, "text"))
            .filter_map(|b| string(b.text))
            .collect(),
    };
    texts.into_iter().filter(|t| !t.trim().is_empty()).collect()
}

/// What one line says to the surface.
fn says(bytes: &[u8]) -> Option<LineSays> {
    let line = Line::parse(bytes)?;
    if line.is("compaction_state") {
        return Some(
            match string(line.summary).filter(|s| !s.trim().is_empty()) {
                Some(summary) => LineSays::Checkpoint(vec![summary]),
                None => LineSays::Nothing,
            },
        );
    }
    let Some(message) = line.message() else {
        return Some(LineSays::Nothing);
    };
    Some(if is_str(message.role, "user") {
        match line.typed() {
            typed if typed.is_empty() => LineSays::Nothing,
            typed => LineSays::User(typed),
        }
    } else if is_str(message.role, "assistant") {
        match texts(&message) {
            texts if texts.is_empty() => LineSays::Nothing,
            texts => LineSays::Assistant { key: None, texts },
        }
    } else {
        LineSays::Nothing
    })
}

/// What one line says, a compaction summary shadowing what came before it
/// (the builder clears first, then keeps the summary as the checkpoint).
fn says_with_shadow(bytes: &[u8]) -> Option<Vec<LineSays>> {
    Some(match says(bytes)? {
        LineSays::Checkpoint(texts) => vec![LineSays::Shadow, LineSays::Checkpoint(texts)],
        other => vec![other],
    })
}

/// What listing reads of a transcript's head.
#[derive(Debug, Default, PartialEq, Eq)]
struct Head {
    /// `session_start` was seen.
    started: bool,
    /// `session_start.cwd`.
    cwd: Option<String>,
    /// `session_start.title`.
    title: Option<String>,
    /// The first line's time, RFC 3339.
    created: Option<String>,
    /// A `message` line was seen.
    messages: bool,
}

/// Read a transcript's head: its `session_start`, and lines up to its
/// first message.
fn read_head(path: &Path) -> Result<Head, ReadError> {
    let mut head = Head::default();
    read_lines(path, true, |_, bytes| {
        let Some(line) = Line::parse(bytes) else {
            return Visit::BAD;
        };
        if line.is("session_start") && !head.started {
            head.started = true;
            head.cwd = string(line.cwd).filter(|c| c.starts_with('/'));
            head.title = string(line.title);
        }
        if head.created.is_none() {
            head.created = string(line.timestamp).filter(|t| Instant::parse_rfc3339(t).is_some());
        }
        head.messages |= line.is("message");
        if head.messages && head.started {
            Visit::DONE
        } else {
            Visit::NEXT
        }
    })?;
    Ok(head)
}

/// The session id of a transcript: its file stem, when it has one.
fn id_of(path: &Path) -> Option<String> {
    path.file_name()?
        .to_str()?
        .strip_suffix(".jsonl")
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
}

/// The title of a session (see the module docs).
pub fn read_title(record: &SessionRecord) -> Result<Option<String>, ReadError> {
    let head = read_head(&record.path)?;
    if let Some(title) = head.title.as_deref().and_then(title_from_text) {
        return Ok(Some(title));
    }
    let mut found = None;
    read_lines(&record.path, true, |_, bytes| {
        let Some(line) = Line::parse(bytes) else {
            return Visit::BAD;
        };
        found = line.typed().first().and_then(|t| title_from_text(t));
        if found.is_some() {
            Visit::DONE
        } else {
            Visit::NEXT
        }
    })?;
    Ok(found)
}

/// Fold the surface of a transcript into `sink`, with the last complete
/// line.
fn fold<S: SurfaceSink>(path: &Path, sink: S) -> Result<(S, u64), ReadError> {
    let mut builder = SurfaceBuilder::new(sink);
    let tools = builder.wants_tools();
    let read = |bytes: &[u8]| {
        let said = says_with_shadow(bytes)?;
        Some((said, if tools { line_tools(bytes) } else { Vec::new() }))
    };
    let last = fold_all_lines(path, read, |seq, (said, tools)| {
        for says in said {
            builder.apply(seq, says);
        }
        for tool in tools {
            builder.tool(seq, tool);
        }
    })?;
    Ok((builder.into_sink(), last))
}

/// The tool calls (`tool_use`) and results (`tool_result`) among a
/// `message` line's content blocks, for `export --tools`.
fn line_tools(bytes: &[u8]) -> Vec<crate::model::ToolEvent> {
    let content = Line::parse(bytes)
        .and_then(|line| line.message())
        .and_then(|message| message.content);
    content.map_or_else(Vec::new, |c| crate::kinds::tools::in_blocks(c.0))
}

impl Store for Droid {
    fn name(&self) -> &'static str {
        "droid"
    }

    fn flag(&self) -> &'static str {
        "droid"
    }

    fn origin(&self) -> &'static str {
        "Factory Droid"
    }

    fn root_help(&self) -> &'static str {
        "Factory Droid sessions directory"
    }

    /// `$FACTORY_HOME_OVERRIDE/.factory/sessions`, else
    /// `~/.factory/sessions`.
    fn default_roots(&self, env: Env<'_>, home: Option<&Path>) -> Vec<PathBuf> {
        let sessions = [".factory", "sessions"];
        env_or_home(env, home, "FACTORY_HOME_OVERRIDE", &sessions, &sessions)
    }

    fn wants(&self, path: &Path) -> bool {
        has_suffix(path, ".jsonl")
    }

    fn list_file(&self, _: &Caches, root: &Arc<Path>, path: &Path) -> ScanEvent {
        let skipped = |reason: &str| ScanEvent::Skipped {
            path: path.to_owned(),
            reason: reason.into(),
        };
        let Some(id) = id_of(path) else {
            return skipped("not a Droid transcript (<uuid>.jsonl)");
        };
        match read_head(path) {
            Ok(head) if !head.started => skipped("not a Droid transcript: no session_start line"),
            Ok(head) if !head.messages => {
                skipped("a Droid session without a message (a run that failed before it)")
            }
            Ok(head) => ScanEvent::Record(SessionRecord::new(
                KIND,
                Arc::clone(root),
                path.to_owned(),
                id,
                head.cwd,
                head.created.unwrap_or_default(),
            )),
            Err(e) => ScanEvent::Unreadable {
                path: path.to_owned(),
                reason: e.message,
            },
        }
    }

    /// The title depends on the transcript alone (its first line, rewritten
    /// in place on a rename, changes the file).
    fn title_inputs(&self, _: &Caches, _: &SessionRecord) -> Option<TitleInputs> {
        Some(TitleInputs::Files(Vec::new()))
    }

    fn read_title(&self, _: &Caches, record: &SessionRecord) -> Result<Option<String>, ReadError> {
        read_title(record)
    }

    fn read_surface(&self, _: &Caches, record: &SessionRecord) -> Result<Surface, ReadError> {
        let (builder, last) = fold(&record.path, Surface::default())?;
        Ok(SurfaceBuilder::new(builder).finish(last))
    }

    fn fold_surface(
        &self,
        _: &Caches,
        record: &SessionRecord,
        sink: &mut dyn SurfaceSink,
    ) -> Result<u64, ReadError> {
        fold(&record.path, sink).map(|(_, last)| last)
    }

    /// The last line's `timestamp`, else the file's modification time.
    fn last_activity(&self, _: &Caches, record: &SessionRecord) -> Option<i64> {
        last_line_where(&record.path, b"\"timestamp\"", |bytes| {
            Line::parse(bytes)?.time()
        })
        .ok()
        .flatten()
        .or_else(|| crate::caches::modified_secs(&record.path))
    }
}

#[cfg(test)]
mod tests;
