//! Amp (Sourcegraph's `amp` CLI and editor extension) threads, read from
//! the local copies the CLI keeps: `$XDG_DATA_HOME/amp/threads/`, else
//! `~/.local/share/amp/threads/`, one `T-<uuid>.json` per thread.
//!
//! Amp could not be run here (`../shared/spec/formats/amp.md`: its CLI
//! 0.0.1790142911 needs Amp's server for every model call, and lists
//! threads from the server, `POST /api/internal?listThreads`). **Threads
//! live server-side**: a thread another machine or the web made, or one
//! the CLI never saved here, cannot be listed; only the local files are
//! read, and the service is never called. The thread shape follows what
//! public readers of these files found (December 2026, through the
//! `search` tool: jonathan-kellerai/cross_agent_session_resumer
//! `src/providers/amp.rs`, noamsto/houston `docs/AMP_AGENT_SUPPORT.md`,
//! and the thread files of Amp's editor extension they also read):
//!
//! ```text
//! {"v": N, "id": "T-<uuid>", "created": <epoch ms>, "title": "…",
//!  "env": {"initial": {"cwd"?: "…", "trees": [{"uri": "file:///…", "displayName"}]}},
//!  "messages": [{"role": "user"|"assistant"|"info", "messageId": N,
//!                "content": [blocks], "state": {…}, "meta": {"sentAt": <ms>}}]}
//! ```
//!
//! - Listed: every `T-*.json` with a `messages` array; the id is the
//!   file's stem (what `amp threads continue` takes), the `id` field when
//!   it agrees. cwd: `env.initial.cwd`, else the first tree's `file://`
//!   URI. created: `created`.
//! - Title: `title` (Amp's, or `amp threads rename`), else the first line
//!   of the first typed prompt.
//! - Typed: a `user` message's `text` blocks; its `tool_result` blocks
//!   (`toolUseID`, `run`) are tool output, never conversation. Assistant:
//!   `text` blocks, never `thinking` or `tool_use`. An `info` message's
//!   `summary` block (`{type: "message", summary}`) is the summary a
//!   compaction left: a compact checkpoint, shadowing what came before.
//! - A handoff (`amp threads handoff`) is a thread of its own. Sub-agents
//!   run inside their thread's tool calls and have no file.
//! - A file cut short (read while being written) gives the messages that
//!   were complete before the cut.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use crate::caches::Caches;
use crate::error::ReadError;
use crate::index::stamp::TitleInputs;
use crate::kinds::foreign::{folded_surface, read_bounded, title_from_text, SurfaceBuilder};
use crate::model::{SessionRecord, StoreKind, Surface, SurfaceSink};
use crate::store::{env_or_home, Env, Store};
use crate::store::{has_suffix, ScanEvent};

/// The Amp store kind.
pub struct Amp;

/// The registry handle of [`Amp`].
pub const KIND: StoreKind = StoreKind::new(&Amp);

/// The largest thread file read.
const MAX_FILE: u64 = 256 << 20;

/// A thread file, as far as it could be read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Thread {
    /// `id`.
    pub id: Option<String>,
    /// `title`.
    pub title: Option<String>,
    /// `created` (epoch ms).
    pub created: Option<i64>,
    /// `env.initial.cwd`, else the first tree's path.
    pub cwd: Option<String>,
    /// `messages`.
    pub messages: Vec<Value>,
    /// Whether the file held a `messages` array.
    pub has_messages: bool,
}

/// The thread id of a file name (`T-<uuid>.json`).
fn thread_id(path: &Path) -> Option<&str> {
    let name = path.file_name()?.to_str()?;
    let stem = name.strip_suffix(".json")?;
    (stem.starts_with("T-") && stem.len() > 2).then_some(stem)
}

/// The directory a tree's `file://` URI names (percent escapes decoded).
fn uri_path(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = || std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok();
        match (bytes[i], hex().and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok().filter(|p| p.starts_with('/'))
}

/// Parse a thread file's bytes. A file cut short keeps its complete
/// messages (and loses the fields after them).
pub fn parse(bytes: &[u8]) -> Result<Thread, String> {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(value) => thread_of(&value).ok_or_else(|| "not a JSON object".to_owned()),
        Err(e) if e.is_eof() => Ok(cut_short(bytes)),
        Err(e) => Err(e.to_string()),
    }
}

fn thread_of(value: &Value) -> Option<Thread> {
    let object = value.as_object()?;
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
    let initial = value.pointer("/env/initial");
    let cwd = text(initial.and_then(|i| i.get("cwd")))
        .filter(|c| !c.is_empty())
        .or_else(|| {
            let trees = initial?.get("trees")?.as_array()?;
            trees
                .iter()
                .find_map(|t| t.get("uri").and_then(Value::as_str).and_then(uri_path))
        });
    let messages = object.get("messages").and_then(Value::as_array);
    Some(Thread {
        id: text(object.get("id")),
        title: text(object.get("title")),
        created: object.get("created").and_then(Value::as_i64),
        cwd,
        has_messages: messages.is_some(),
        messages: messages.cloned().unwrap_or_default(),
    })
}

/// The complete messages of a file cut inside its `messages` array, with
/// the head fields written before it.
fn cut_short(bytes: &[u8]) -> Thread {
    let key = b"\"messages\"";
    let Some(at) = memchr::memmem::find(bytes, key) else {
        return Thread::default();
    };
    let mut rest = &bytes[at + key.len()..];
    let skip = |r: &mut &[u8], what: &[u8]| {
        while let [first, tail @ ..] = *r {
            if first.is_ascii_whitespace() || what.contains(first) {
                *r = tail;
            } else {
                break;
            }
        }
    };
    skip(&mut rest, b":");
    let mut thread = Thread {
        has_messages: rest.first() == Some(&b'['),
        ..Thread::default()
    };
    if !thread.has_messages {
        return thread;
    }
    rest = &rest[1..];
    loop {
        skip(&mut rest, b",");
        let mut values = serde_json::Deserializer::from_slice(rest).into_iter::<Value>();
        match values.next() {
            Some(Ok(message)) => {
                let used = values.byte_offset();
                thread.messages.push(message);
                rest = &rest[used..];
            }
            _ => break,
        }
    }
    // The head fields before `messages`, when the file put them first.
    let mut head = bytes[..at].to_vec();
    head.extend_from_slice(b"\"_\":0}");
    if let Some(before) = serde_json::from_slice::<Value>(&head)
        .ok()
        .as_ref()
        .and_then(thread_of)
    {
        thread = Thread {
            messages: thread.messages,
            has_messages: true,
            ..before
        };
    }
    thread
}

/// The texts of a message's blocks of `kind`.
fn texts(message: &Value, kind: &str) -> Vec<String> {
    let blocks = message.get("content").and_then(Value::as_array);
    blocks
        .into_iter()
        .flatten()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some(kind))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .filter(|t| !t.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

/// The compaction summary an `info` message carries.
fn summary(message: &Value) -> Option<String> {
    let blocks = message.get("content")?.as_array()?;
    blocks.iter().find_map(|b| {
        let s = b.get("summary")?;
        (b.get("type")?.as_str()? == "summary" && s.get("type")?.as_str()? == "message")
            .then(|| s.get("summary")?.as_str().map(str::to_owned))?
    })
}

/// Fold a thread's messages into `sink`; the seq of the last one.
pub fn fold(messages: &[Value], sink: &mut dyn SurfaceSink) -> u64 {
    let mut builder = SurfaceBuilder::new(sink);
    for (n, message) in messages.iter().enumerate() {
        let seq = n as u64 + 1;
        match message.get("role").and_then(Value::as_str) {
            Some("user") => {
                let typed = texts(message, "text");
                if !typed.is_empty() {
                    builder.user(seq, typed);
                }
            }
            Some("assistant") => builder.assistant(seq, None, texts(message, "text")),
            Some("info") => {
                if let Some(summary) = summary(message) {
                    builder.shadow();
                    builder.checkpoint(seq, vec![summary]);
                }
            }
            _ => {}
        }
    }
    messages.len() as u64
}

/// The first line of the first typed prompt.
fn first_prompt_title(messages: &[Value]) -> Option<String> {
    messages
        .iter()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        .flat_map(|m| texts(m, "text"))
        .find_map(|t| title_from_text(&t))
}

fn read_thread(path: &Path) -> Result<Thread, ReadError> {
    let bytes = read_bounded(path, MAX_FILE)?;
    parse(&bytes).map_err(|message| ReadError {
        path: path.to_owned(),
        line: None,
        message,
    })
}

impl Store for Amp {
    fn name(&self) -> &'static str {
        "amp"
    }

    fn flag(&self) -> &'static str {
        "amp"
    }

    fn origin(&self) -> &'static str {
        "Amp (local thread copies)"
    }

    fn root_help(&self) -> &'static str {
        "Amp threads directory (~/.local/share/amp/threads) or thread file"
    }

    /// `$XDG_DATA_HOME/amp/threads`, else `~/.local/share/amp/threads`.
    fn default_roots(&self, env: Env<'_>, home: Option<&Path>) -> Vec<PathBuf> {
        env_or_home(
            env,
            home,
            "XDG_DATA_HOME",
            &["amp", "threads"],
            &[".local", "share", "amp", "threads"],
        )
    }

    fn wants(&self, path: &Path) -> bool {
        has_suffix(path, ".json") && thread_id(path).is_some()
    }

    fn list_file(&self, _: &Caches, root: &Arc<Path>, path: &Path) -> ScanEvent {
        let Some(id) = thread_id(path) else {
            return ScanEvent::Skipped {
                path: path.to_owned(),
                reason: "not an Amp thread file (T-<id>.json)".into(),
            };
        };
        let thread = match read_thread(path) {
            Ok(thread) => thread,
            Err(e) => {
                return ScanEvent::Unreadable {
                    path: path.to_owned(),
                    reason: e.message,
                }
            }
        };
        if !thread.has_messages {
            return ScanEvent::Skipped {
                path: path.to_owned(),
                reason: "an Amp file without messages: not a thread".into(),
            };
        }
        let created = thread
            .created
            .map(|ms| {
                let secs = ms.div_euclid(1000);
                let at = session_ref_core::time::format_rfc3339_utc(secs);
                format!("{}.{:03}Z", at.trim_end_matches('Z'), ms.rem_euclid(1000))
            })
            .unwrap_or_default();
        ScanEvent::Record(SessionRecord::new(
            KIND,
            Arc::clone(root),
            path.to_owned(),
            id.to_owned(),
            thread.cwd,
            created,
        ))
    }

    fn title_inputs(&self, _: &Caches, _: &SessionRecord) -> Option<TitleInputs> {
        Some(TitleInputs::Files(Vec::new()))
    }

    fn read_title(&self, _: &Caches, record: &SessionRecord) -> Result<Option<String>, ReadError> {
        let thread = read_thread(&record.path)?;
        Ok(thread
            .title
            .as_deref()
            .and_then(title_from_text)
            .or_else(|| first_prompt_title(&thread.messages)))
    }

    fn read_surface(&self, caches: &Caches, record: &SessionRecord) -> Result<Surface, ReadError> {
        folded_surface(|surface| self.fold_surface(caches, record, surface))
    }

    fn fold_surface(
        &self,
        _: &Caches,
        record: &SessionRecord,
        sink: &mut dyn SurfaceSink,
    ) -> Result<u64, ReadError> {
        Ok(fold(&read_thread(&record.path)?.messages, sink))
    }

    /// The newest `meta.sentAt` of its messages, else the file's time.
    fn last_activity(&self, _: &Caches, record: &SessionRecord) -> Option<i64> {
        let thread = read_thread(&record.path).ok();
        let sent = thread.and_then(|t| {
            t.messages
                .iter()
                .filter_map(|m| m.pointer("/meta/sentAt").and_then(Value::as_i64))
                .max()
        });
        sent.map(|ms| ms.div_euclid(1000))
            .or_else(|| crate::caches::modified_secs(&record.path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn thread() -> Value {
        json!({"v": 12, "id": "T-019b9d03-62e3-772f-9780-3e637f90eaec", "created": 1767865803494_i64,
        "title": "Fix the login redirect", "agentMode": "smart",
        "env": {"initial": {"trees": [{"displayName": "my app", "uri": "file:///home/me/my%20app",
            "repository": {"type": "git"}}], "platform": {"os": "linux", "client": "CLI"}}},
        "messages": [
            {"role": "user", "messageId": 0, "content": [{"type": "text", "text": "Why does login loop?"}],
             "meta": {"sentAt": 1767865803600_i64}},
            {"role": "assistant", "messageId": 1, "content": [
                {"type": "thinking", "thinking": "REASONING"},
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"path": "TOOL-INPUT"}}],
             "state": {"type": "complete", "stopReason": "tool_use"}},
            {"role": "user", "messageId": 2, "content": [{"type": "tool_result", "toolUseID": "toolu_1",
                "run": {"status": "done", "result": "TOOL-OUTPUT"}}]},
            {"role": "assistant", "messageId": 3, "content": [{"type": "text", "text": "The cookie is never set."}],
             "state": {"type": "complete", "stopReason": "end_turn"}, "meta": {"sentAt": 1767865809000_i64}}
        ]})
    }

    fn said(messages: &[Value]) -> Vec<String> {
        let mut surface = Surface::default();
        fold(messages, &mut surface);
        format!("{:?}", surface.events)
            .split("Text(")
            .skip(1)
            .map(|s| s.split('"').nth(1).unwrap_or_default().to_owned())
            .collect()
    }

    #[test]
    fn a_thread_gives_its_head_and_what_was_said() {
        let parsed = parse(thread().to_string().as_bytes()).unwrap();
        assert_eq!(parsed.cwd.as_deref(), Some("/home/me/my app"));
        assert_eq!(parsed.title.as_deref(), Some("Fix the login redirect"));
        assert_eq!(parsed.created, Some(1767865803494));
        assert_eq!(
            said(&parsed.messages),
            [
                "Why does login loop?",
                "Let me look.",
                "The cookie is never set."
            ]
        );
        let all = format!("{:?}", {
            let mut s = Surface::default();
            fold(&parsed.messages, &mut s);
            s
        });
        for hidden in ["REASONING", "TOOL-INPUT", "TOOL-OUTPUT"] {
            assert!(!all.contains(hidden), "{hidden}");
        }
        let with_cwd = json!({"env": {"initial": {"cwd": "/w", "trees": [{"uri": "file:///x"}]}}, "messages": []});
        assert_eq!(
            parse(with_cwd.to_string().as_bytes())
                .unwrap()
                .cwd
                .as_deref(),
            Some("/w")
        );
        assert!(parse(b"[1]").is_err());
        assert!(!parse(b"{\"id\": \"T-1\"}").unwrap().has_messages);
    }

    #[test]
    fn a_compaction_summary_is_the_checkpoint() {
        let mut messages = thread()["messages"].as_array().unwrap().clone();
        messages.push(json!({"role": "info", "content": [{"type": "summary",
            "summary": {"type": "message", "summary": "Login loops: cookie unset"}}]}));
        messages.push(json!({"role": "user", "content": [{"type": "text", "text": "Now fix it"}]}));
        assert_eq!(said(&messages), ["Login loops: cookie unset", "Now fix it"]);
    }

    #[test]
    fn a_file_cut_short_keeps_its_complete_messages() {
        let text = serde_json::to_string_pretty(&thread()).unwrap();
        let cut = &text[..text.find("The cookie").unwrap()];
        let parsed = parse(cut.as_bytes()).unwrap();
        assert_eq!(parsed.messages.len(), 3);
        assert!(parsed.has_messages);
        assert_eq!(
            said(&parsed.messages),
            ["Why does login loop?", "Let me look."]
        );
    }

    #[test]
    fn only_thread_files_are_wanted_and_the_default_root_follows_xdg() {
        assert!(Amp.wants(Path::new("/t/T-019b9d03-62e3.json")));
        assert!(!Amp.wants(Path::new("/t/device-id.json")));
        assert!(!Amp.wants(Path::new("/t/T-.json")));
        assert_eq!(
            crate::default_roots_help(KIND),
            "$XDG_DATA_HOME/amp/threads, else ~/.local/share/amp/threads"
        );
        assert_eq!(uri_path("file://localhost/a%2Fb").as_deref(), Some("/a/b"));
        assert_eq!(uri_path("https://x"), None);
    }
}
