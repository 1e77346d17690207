//! Qwen Code chats (`@qwen-code/qwen-code`), mapped onto the session model.
//! Follows Qwen Code 0.24.4, checked against what that version writes
//! offline (`tools/run-pi-qwen.sh`) and against its session service (the
//! list behind `/resume` and `qwen sessions list`).
//!
//! # Layout
//!
//! `$QWEN_HOME/projects`, else `~/.qwen/projects`, and
//! `$QWEN_RUNTIME_DIR/projects` (Qwen's session data go there when it is
//! set; the `advanced.runtimeOutputDir` setting is not read: name such a
//! directory with `--qwen`); one folder per project
//! (its root with every non-alphanumeric character as `-`: lossy, so the
//! cwd is read from the records), chats in `chats/<uuid>.jsonl`. Qwen
//! lists only files named like a session id (`[0-9a-f-]{32,36}.jsonl`)
//! directly in `chats/`: archived chats (`chats/archive/`), sub-agent
//! transcripts (`subagents/<parent>/agent-*.jsonl`) and other JSONL files
//! are not sessions of their own.
//!
//! # Record
//!
//! Records are shaped like Claude Code's (`uuid`, `parentUuid`,
//! `sessionId`, `timestamp`, `type`, `provenance`, `cwd`, …) with
//! Gemini-style `message.parts`. As Qwen lists a chat: id, cwd and creation
//! time are the first record's `sessionId`, `cwd` and `timestamp` (the file
//! stem when the first record has no id). A fork (`--fork-session`) is a
//! new file whose copied records carry the new `sessionId` and a
//! `forkedFrom`: a session of its own. `--continue` and `--resume` append
//! to the same file.
//!
//! # What the person typed
//!
//! A `user` record with `provenance: "real_user"` (or none, in older
//! files) and no `subtype` (or `mid_turn_user_message`, typed while a
//! reply ran): its `systemPayload.displayText` when present, else its
//! first text part. Qwen puts the typed text (piped stdin prepended) in
//! the first part and appends `@file` contents (`--- Content from
//! referenced files ---` …) and hook context
//! (`<qwen:user-prompt-submit-context>`) as further parts: those are
//! injected, as are `user` records with a `subtype` (`notification`: a
//! background task's `<task-notification>` that nobody typed, `cron`, …).
//! A custom command (`/greet Carol`) is stored expanded; the expansion is
//! the only record of the request and is kept.
//!
//! Assistant messages: `assistant` records' text parts, never reasoning
//! (`thought: true`) or `functionCall`. `tool_result` and `system` records
//! are not conversation, except `system` `chat_compression`: it shadows
//! everything before it, and its `systemPayload.compressedHistory` (the
//! history Qwen goes on with) becomes the surface: its first user text
//! (the `<state_snapshot>` summary) as the compact checkpoint, the texts
//! it kept after that as they were said.
//!
//! # Title and last activity
//!
//! The title is the last `custom_title` record's `systemPayload.customTitle`
//! (`/rename`, or Qwen's generated title; Qwen re-appends the record near
//! the end of the file, so only the last one counts; an empty one names
//! nothing), else the first typed prompt (first line, ≤ 80 characters).
//! Titles are kept in the title index while the file is unchanged. Last
//! activity is the newest record `timestamp`, else the file's modification
//! time.
//!
//! # Differences from `FORMATS.md`
//!
//! Qwen's own list takes the first prompt from `user` records without a
//! `subtype` whatever their `provenance`, within the first 10 records;
//! this reader also requires a typed provenance and looks further, so a
//! chat that opens with injected records still gets a title. Records are
//! read in line order: a `rewind` (not reachable in print mode) is not
//! followed.
//!
//! What 0.24.4 did offline against the mock (`tools/run-pi-qwen.sh`):
//! `-p "/rename …"` wrote no `custom_title` (the record's shape is taken
//! from Qwen's session service, which re-appends it); `[[bigusage]]`
//! ended in an API error before any `chat_compression` record was written
//! (its shape, too, is the source's: `systemPayload.compressedHistory`
//! is a list of `{role, parts}`); `@file` put the typed text, piped stdin
//! first, in the first part and each file's contents in later parts, with
//! a `system` `at_command` record before it; a background sub-agent's
//! completions came back as `user` records with `provenance: "system"`
//! and `subtype: "notification"`, its transcript under
//! `subagents/<session id>/agent-*.jsonl` with the parent's `sessionId`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::caches::Caches;
use crate::error::ReadError;
use crate::index::stamp::TitleInputs;
use crate::kinds::foreign::{
    fold_all_lines, last_line_where, read_lines, title_from_text, FileCache, LineSays,
    SurfaceBuilder, Visit,
};
use crate::model::{SessionRecord, StoreKind, Surface, SurfaceSink};
use crate::store::{env_or_home, Env, Store};
use crate::store::{has_suffix, ScanEvent};
use session_ref_core::time::Instant;
use session_ref_jsonl::loose::{
    is_str, is_true, non_empty, raw_elements, scan_fields, scan_or_parse, scan_or_parse_line,
    string, RawText,
};

/// The Qwen Code store.
pub struct Qwen;

/// The Qwen Code store's kind.
pub const KIND: StoreKind = StoreKind::new(&Qwen);

/// The keys of [`Record`]'s fields, in their order.
const RECORD_KEYS: [&str; 8] = [
    "type",
    "subtype",
    "provenance",
    "sessionId",
    "timestamp",
    "cwd",
    "message",
    "systemPayload",
];

/// The fields of a record the mapping uses, as raw JSON text.
#[derive(Debug, Default, PartialEq, serde::Deserialize)]
struct Record<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<RawText<'a>>,
    #[serde(borrow)]
    subtype: Option<RawText<'a>>,
    #[serde(borrow)]
    provenance: Option<RawText<'a>>,
    #[serde(rename = "sessionId", borrow)]
    session_id: Option<RawText<'a>>,
    #[serde(borrow)]
    timestamp: Option<RawText<'a>>,
    #[serde(borrow)]
    cwd: Option<RawText<'a>>,
    #[serde(borrow)]
    message: Option<RawText<'a>>,
    #[serde(rename = "systemPayload", borrow)]
    payload: Option<RawText<'a>>,
}

impl<'a> Record<'a> {
    fn parse(bytes: &'a [u8]) -> Option<Record<'a>> {
        scan_or_parse_line(bytes, |text| {
            let [kind, subtype, provenance, session_id, timestamp, cwd, message, payload] =
                scan_fields(text, RECORD_KEYS)?;
            Some(Record {
                kind,
                subtype,
                provenance,
                session_id,
                timestamp,
                cwd,
                message,
                payload,
            })
        })
        .map(|r| Record {
            subtype: r.subtype.filter(|t| t.0 != "null"),
            provenance: r.provenance.filter(|t| t.0 != "null"),
            ..r
        })
    }

    /// A field of `systemPayload`.
    fn payload_field(&self, key: &str) -> Option<RawText<'a>> {
        let raw = self.payload?;
        scan_or_parse(raw.0, |text| scan_fields(text, [key]))
            .or_else(|| {
                let map: std::collections::HashMap<String, RawText<'a>> =
                    serde_json::from_str(raw.0).ok()?;
                Some([map.get(key).copied()])
            })
            .and_then(|[v]| v)
    }

    /// A `user` record a person wrote (see the module docs).
    fn is_typed(&self) -> bool {
        is_str(self.kind, "user")
            && self.provenance.is_none_or(|p| is_str(Some(p), "real_user"))
            && self
                .subtype
                .is_none_or(|s| is_str(Some(s), "mid_turn_user_message"))
    }
}

/// One part of `parts`: only `text` and `thought` matter.
fn part_texts(parts: Option<RawText<'_>>, first_only: bool) -> Vec<String> {
    let mut texts = Vec::new();
    for part in raw_elements(parts) {
        let Some([text, thought]) = scan_or_parse(part.0, |t| scan_fields(t, ["text", "thought"]))
            .or_else(|| {
                #[derive(serde::Deserialize)]
                struct Part<'a> {
                    #[serde(borrow)]
                    text: Option<RawText<'a>>,
                    #[serde(borrow)]
                    thought: Option<RawText<'a>>,
                }
                let p: Part = serde_json::from_str(part.0).ok()?;
                Some([p.text, p.thought])
            })
        else {
            continue;
        };
        if is_true(thought) {
            continue;
        }
        if let Some(text) = string(text) {
            texts.push(text);
            if first_only {
                break;
            }
        }
    }
    texts
}

/// `message.parts` of a message value.
fn parts_of(message: Option<RawText<'_>>) -> Option<RawText<'_>> {
    let raw = message?;
    scan_or_parse(raw.0, |t| scan_fields(t, ["parts"]))
        .or_else(|| {
            #[derive(serde::Deserialize)]
            struct M<'a> {
                #[serde(borrow)]
                parts: Option<RawText<'a>>,
            }
            let m: M = serde_json::from_str(raw.0).ok()?;
            Some([m.parts])
        })
        .and_then(|[p]| p)
}

/// What the person typed in a typed `user` record.
fn typed_texts(record: &Record<'_>) -> Vec<String> {
    if let Some(display) = string(record.payload_field("displayText")) {
        return if display.trim().is_empty() {
            Vec::new()
        } else {
            vec![display]
        };
    }
    part_texts(parts_of(record.message), true)
        .into_iter()
        .filter(|t| !t.trim().is_empty())
        .collect()
}

/// What one record says to the surface.
fn says(bytes: &[u8]) -> Option<Says> {
    let record = Record::parse(bytes)?;
    let timestamp = string(record.timestamp);
    let said = if record.is_typed() {
        let texts = typed_texts(&record);
        if texts.is_empty() {
            Vec::new()
        } else {
            vec![LineSays::User(texts)]
        }
    } else if is_str(record.kind, "assistant") && record.subtype.is_none() {
        let texts: Vec<String> = part_texts(parts_of(record.message), false)
            .into_iter()
            .filter(|t| !t.is_empty())
            .collect();
        if texts.is_empty() {
            Vec::new()
        } else {
            vec![LineSays::Assistant { key: None, texts }]
        }
    } else if is_str(record.kind, "system") && is_str(record.subtype, "chat_compression") {
        compression(&record)
    } else {
        Vec::new()
    };
    Some(Says { said, timestamp })
}

/// A `chat_compression` record: a shadow, then the compressed history.
fn compression(record: &Record<'_>) -> Vec<LineSays> {
    let mut said = vec![LineSays::Shadow];
    let mut checkpoint = false;
    for content in raw_elements(record.payload_field("compressedHistory")) {
        let [role, parts] =
            scan_or_parse(content.0, |t| scan_fields(t, ["role", "parts"])).unwrap_or([None, None]);
        let texts: Vec<String> = part_texts(parts, false)
            .into_iter()
            .filter(|t| !t.trim().is_empty())
            .collect();
        if texts.is_empty() {
            continue;
        }
        if is_str(role, "user") {
            if checkpoint {
                said.push(LineSays::User(texts));
            } else {
                checkpoint = true;
                said.push(LineSays::Checkpoint(texts));
            }
        } else if is_str(role, "model") {
            said.push(LineSays::Assistant { key: None, texts });
        }
    }
    said
}

/// What a record says, and its time.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Says {
    said: Vec<LineSays>,
    timestamp: Option<String>,
}

/// Fold the surface of `record` into `sink`.
pub fn fold_surface<S: SurfaceSink>(
    record: &SessionRecord,
    sink: S,
) -> Result<(S, u64), ReadError> {
    let mut builder = SurfaceBuilder::new(sink);
    let tools = builder.wants_tools();
    let read = |bytes: &[u8]| {
        let said = says(bytes)?;
        Some((said, if tools { line_tools(bytes) } else { Vec::new() }))
    };
    let last = fold_all_lines(&record.path, read, |seq, (says, found)| {
        for said in says.said {
            builder.apply(seq, said);
        }
        for tool in found {
            builder.tool(seq, tool);
        }
    })?;
    Ok((builder.into_sink(), last))
}

/// The `functionCall` and `functionResponse` parts of a record's message,
/// for `export --tools`.
fn line_tools(bytes: &[u8]) -> Vec<crate::model::ToolEvent> {
    let record = serde_json::from_slice::<serde_json::Value>(bytes).ok();
    let parts = record.as_ref().and_then(|r| r.pointer("/message/parts"));
    crate::kinds::tools::gemini_parts(parts)
}

/// The folded surface of a Qwen Code chat.
pub fn read_surface(record: &SessionRecord) -> Result<Surface, ReadError> {
    let mut builder = SurfaceBuilder::default();
    let last = fold_all_lines(&record.path, says, |seq, says| {
        for said in says.said {
            builder.apply(seq, said);
        }
    })?;
    Ok(builder.finish(last))
}

/// Whether a file name is one Qwen lists as a chat (`<session id>.jsonl`).
fn is_chat_name(path: &Path) -> bool {
    let Some(stem) = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(".jsonl"))
    else {
        return false;
    };
    (32..=36).contains(&stem.len()) && stem.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
}

/// Why a JSONL file below `root` is not a chat, if it is not one.
fn not_a_chat(root: &Path, path: &Path) -> Option<&'static str> {
    if path == root {
        return None;
    }
    let below = path.strip_prefix(root).unwrap_or(path);
    if below.components().any(|c| c.as_os_str() == "subagents") {
        return Some("Qwen Code sub-agent transcript");
    }
    let parent = path.parent().and_then(|p| p.file_name());
    if parent.is_some_and(|p| p == "archive") {
        return Some("archived Qwen Code chat (not in Qwen's session list)");
    }
    if !is_chat_name(path) {
        return Some("not a Qwen Code chat file name");
    }
    None
}

/// The record of a chat from its first record.
fn read_record(root: &Arc<Path>, path: &Path) -> Result<Option<SessionRecord>, ReadError> {
    let mut first = None;
    read_lines(path, true, |_, bytes| match Record::parse(bytes) {
        Some(record) if record.kind.is_some() => {
            first = Some((
                non_empty(record.session_id),
                non_empty(record.cwd),
                string(record.timestamp),
            ));
            Visit::DONE
        }
        Some(_) => Visit::NEXT,
        None => Visit::BAD,
    })?;
    let Some((id, cwd, created)) = first else {
        return Ok(None);
    };
    let stem = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .and_then(|n| n.strip_suffix(".jsonl").map(str::to_owned));
    let Some(id) = id.or(stem) else {
        return Ok(None);
    };
    Ok(Some(SessionRecord::new(
        KIND,
        root.clone(),
        path.to_owned(),
        id,
        cwd,
        created.unwrap_or_default(),
    )))
}

/// What titling remembers between calls, owned by the catalog's [`Caches`].
#[derive(Default)]
struct QwenCaches {
    titles: FileCache<Option<String>>,
}

/// The title of a chat (see the module docs).
pub fn read_title(caches: &Caches, record: &SessionRecord) -> Result<Option<String>, ReadError> {
    let caches = caches.get::<QwenCaches>();
    let path = &record.path;
    let title = caches.titles.get(path, 0, || {
        let named = last_line_where(path, b"custom_title", |bytes| {
            let record = Record::parse(bytes)?;
            (is_str(record.kind, "system") && is_str(record.subtype, "custom_title"))
                .then(|| string(record.payload_field("customTitle")))
        })?;
        if let Some(name) = named.flatten().filter(|n| !n.trim().is_empty()) {
            return Ok(Some(name.trim().to_owned()));
        }
        let mut found = None;
        read_lines(path, true, |_, bytes| {
            let Some(record) = Record::parse(bytes) else {
                return Visit::BAD;
            };
            if record.is_typed() {
                found = typed_texts(&record)
                    .first()
                    .and_then(|t| title_from_text(t));
                if found.is_some() {
                    return Visit::DONE;
                }
            }
            Visit::NEXT
        })?;
        Ok(found)
    })?;
    Ok((*title).clone())
}

/// When the chat was last active (Unix seconds): the `timestamp` of its
/// last record that has one (Qwen appends records as they happen; found by
/// a backward scan of the tail). `None` when no record has one (the caller
/// falls back to the file's modification time).
pub fn last_activity(path: &Path) -> Result<Option<i64>, ReadError> {
    last_line_where(path, b"\"timestamp\"", |bytes| {
        let record = Record::parse(bytes)?;
        string(record.timestamp)
            .and_then(|t| Instant::parse_rfc3339(&t))
            .map(|t| t.unix_seconds())
    })
}

impl Store for Qwen {
    fn name(&self) -> &'static str {
        "qwen"
    }

    fn flag(&self) -> &'static str {
        "qwen"
    }

    fn origin(&self) -> &'static str {
        "Qwen Code"
    }

    fn root_help(&self) -> &'static str {
        "Qwen Code projects directory"
    }

    /// `$QWEN_RUNTIME_DIR/projects` when set (Qwen keeps session data
    /// there, before `QWEN_HOME`), and `$QWEN_HOME/projects`, else
    /// `~/.qwen/projects` (where chats written without it stay).
    fn default_roots(&self, env: Env<'_>, home: Option<&Path>) -> Vec<PathBuf> {
        let mut roots: Vec<PathBuf> = env("QWEN_RUNTIME_DIR")
            .filter(|dir| !dir.is_empty())
            .map(|dir| PathBuf::from(dir).join("projects"))
            .into_iter()
            .collect();
        for root in env_or_home(
            env,
            home,
            "QWEN_HOME",
            &["projects"],
            &[".qwen", "projects"],
        ) {
            if !roots.contains(&root) {
                roots.push(root);
            }
        }
        roots
    }

    fn wants(&self, path: &Path) -> bool {
        has_suffix(path, ".jsonl")
    }

    fn list_file(&self, _: &Caches, root: &Arc<Path>, path: &Path) -> ScanEvent {
        if let Some(reason) = not_a_chat(root, path) {
            return ScanEvent::Skipped {
                path: path.to_owned(),
                reason: reason.into(),
            };
        }
        match read_record(root, path) {
            Ok(Some(record)) => ScanEvent::Record(record),
            Ok(None) => ScanEvent::Skipped {
                path: path.to_owned(),
                reason: "no Qwen Code record".into(),
            },
            Err(e) => ScanEvent::Unreadable {
                path: path.to_owned(),
                reason: e.message,
            },
        }
    }

    /// The title depends on the chat file alone: the index keeps it while
    /// the file is unchanged.
    fn title_inputs(&self, _: &Caches, _: &SessionRecord) -> Option<TitleInputs> {
        Some(TitleInputs::Files(Vec::new()))
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

    fn last_activity(&self, _: &Caches, record: &SessionRecord) -> Option<i64> {
        last_activity(&record.path)
            .ok()
            .flatten()
            .or_else(|| crate::caches::modified_secs(&record.path))
    }

    fn fold_surface(
        &self,
        _: &Caches,
        record: &SessionRecord,
        sink: &mut dyn SurfaceSink,
    ) -> Result<u64, ReadError> {
        fold_surface(record, sink).map(|(_, last)| last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::foreign::testing::texts;

    const CWD: &str = "/home/dev/projé ü";
    const ID: &str = "cdb0c8bb-094a-4a8f-8fd9-26c5c1a935fd";

    fn rec(kind: &str, extra: &str, at: &str) -> String {
        format!(
            r#"{{"uuid":"u-{at}","parentUuid":null,"sessionId":"{ID}","timestamp":"2026-12-01T18:55:{at}.000Z","type":"{kind}","cwd":"{CWD}","version":"0.24.4"{extra}}}"#
        )
    }

    fn user(text: &str, at: &str) -> String {
        let text = serde_json::to_string(text).unwrap();
        rec(
            "user",
            &format!(
                r#","provenance":"real_user","message":{{"role":"user","parts":[{{"text":{text}}}]}}"#
            ),
            at,
        )
    }

    fn model(text: &str, at: &str) -> String {
        let text = serde_json::to_string(text).unwrap();
        rec(
            "assistant",
            &format!(
                r#","provenance":"assistant_output","message":{{"role":"model","parts":[{{"text":"SECRET THOUGHT","thought":true}},{{"text":{text}}},{{"functionCall":{{"name":"read_file","args":{{}}}}}}]}}"#
            ),
            at,
        )
    }

    fn write(dir: &Path, lines: &[String]) -> PathBuf {
        let chats = dir.join("-home-dev-proj---/chats");
        std::fs::create_dir_all(&chats).unwrap();
        let path = chats.join(format!("{ID}.jsonl"));
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        path
    }

    fn record(dir: &Path, path: &Path) -> SessionRecord {
        read_record(&Arc::from(dir), path).unwrap().unwrap()
    }

    #[test]
    fn typed_text_excludes_file_contents_hook_context_and_notices() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            &[
                user("hello — café ☕", "01"),
                model("ACK hello", "02"),
                rec(
                    "user",
                    r#","provenance":"real_user","message":{"role":"user","parts":[{"text":"piped\n\n\nsummarize @notes.md"},{"text":"\n--- Content from referenced files ---"},{"text":"FILE CONTENT"},{"text":"\n--- End of content ---"}]}"#,
                    "03",
                ),
                rec(
                    "user",
                    r#","subtype":"notification","provenance":"system","message":{"role":"user","parts":[{"text":"<task-notification>TASK DONE</task-notification>"}]}"#,
                    "04",
                ),
                rec(
                    "user",
                    r#","provenance":"real_user","message":{"role":"user","parts":[{"text":"raw with hook"},{"text":"<qwen:user-prompt-submit-context>\nHOOK CONTEXT\n</qwen:user-prompt-submit-context>"}]},"systemPayload":{"displayText":"as typed","hookContext":"HOOK CONTEXT"}"#,
                    "05",
                ),
                rec(
                    "tool_result",
                    r#","provenance":"tool_result","message":{"role":"user","parts":[{"functionResponse":{"name":"read_file","response":{"output":"TOOL OUTPUT"}}}]}"#,
                    "06",
                ),
                rec(
                    "system",
                    r#","subtype":"ui_telemetry","provenance":"system","systemPayload":{"uiEvent":{"response_text":"TELEMETRY"}}"#,
                    "07",
                ),
            ],
        );
        let r = record(dir.path(), &path);
        assert_eq!((r.id.as_str(), r.cwd.as_deref()), (ID, Some(CWD)));
        assert_eq!(r.created_at, "2026-12-01T18:55:01.000Z");
        assert_eq!(
            texts(&read_surface(&r).unwrap()),
            [
                (1, "user", "hello — café ☕".into()),
                (2, "assistant", "ACK hello".into()),
                (3, "user", "piped\n\n\nsummarize @notes.md".into()),
                (5, "user", "as typed".into()),
            ]
        );
    }

    #[test]
    fn compression_shadows_and_its_history_is_the_new_surface() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            &[
                user("old question", "01"),
                model("old answer", "02"),
                rec(
                    "system",
                    r#","subtype":"chat_compression","provenance":"system","systemPayload":{"info":{"originalTokenCount":9},"compressedHistory":[{"role":"user","parts":[{"text":"<state_snapshot>SUMMARY</state_snapshot>"}]},{"role":"model","parts":[{"text":"Got it."}]},{"role":"user","parts":[{"text":"kept question"}]}]}"#,
                    "03",
                ),
                user("after", "04"),
            ],
        );
        assert_eq!(
            texts(&read_surface(&record(dir.path(), &path)).unwrap()),
            [
                (
                    3,
                    "checkpoint",
                    "<state_snapshot>SUMMARY</state_snapshot>".into()
                ),
                (3, "assistant", "Got it.".into()),
                (3, "user", "kept question".into()),
                (4, "user", "after".into()),
            ]
        );
    }

    #[test]
    fn the_last_custom_title_wins_else_the_first_prompt() {
        let dir = tempfile::tempdir().unwrap();
        let title = |t: &str, at: &str| {
            rec(
                "system",
                &format!(
                    r#","subtype":"custom_title","provenance":"system","systemPayload":{{"customTitle":"{t}","titleSource":"manual"}}"#
                ),
                at,
            )
        };
        let lines = vec![
            rec(
                "user",
                r#","subtype":"notification","message":{"role":"user","parts":[{"text":"<task-notification>x</task-notification>"}]}"#,
                "00",
            ),
            user("first prompt\nmore", "01"),
            model("a", "02"),
        ];
        let path = write(dir.path(), &lines);
        let r = record(dir.path(), &path);
        assert_eq!(
            read_title(&Caches::default(), &r).unwrap().as_deref(),
            Some("first prompt")
        );
        let mut named = lines.clone();
        named.extend([
            title("Old name", "03"),
            user("more", "04"),
            title("Renamed ✓", "05"),
        ]);
        let path = write(dir.path(), &named);
        assert_eq!(
            read_title(&Caches::default(), &record(dir.path(), &path))
                .unwrap()
                .as_deref(),
            Some("Renamed ✓")
        );
        assert_eq!(
            last_activity(&path).unwrap(),
            Instant::parse_rfc3339("2026-12-01T18:55:05.000Z").map(|t| t.unix_seconds())
        );
    }

    #[test]
    fn only_chats_named_by_id_are_sessions() {
        let root = Path::new("/q/projects");
        assert_eq!(
            not_a_chat(root, Path::new(&format!("/q/projects/p/chats/{ID}.jsonl"))),
            None
        );
        assert!(not_a_chat(
            root,
            Path::new(&format!("/q/projects/p/chats/archive/{ID}.jsonl"))
        )
        .is_some());
        assert!(not_a_chat(root, Path::new("/q/projects/p/subagents/x/agent-1.jsonl")).is_some());
        assert!(not_a_chat(root, Path::new("/q/projects/p/chats/notes.jsonl")).is_some());
        // A root naming one file is that file.
        let file = Path::new("/q/any.jsonl");
        assert_eq!(not_a_chat(file, file), None);
    }

    #[test]
    fn a_fork_is_its_own_session_by_its_first_record() {
        let dir = tempfile::tempdir().unwrap();
        let forked = r#"{"uuid":"d8","parentUuid":null,"sessionId":"3ffaa820-9b5d-4da5-9f7f-1635a71275f1","timestamp":"2026-12-01T18:55:47.595Z","type":"user","provenance":"real_user","cwd":"/w","message":{"role":"user","parts":[{"text":"hello"}]},"forkedFrom":{"sessionId":"cdb0c8bb-094a-4a8f-8fd9-26c5c1a935fd","messageUuid":"d8"}}"#;
        let path = write(dir.path(), &[forked.into()]);
        assert_eq!(
            record(dir.path(), &path).id,
            "3ffaa820-9b5d-4da5-9f7f-1635a71275f1"
        );
    }
}
