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
//!
//! Listing, the title and the last activity read each file once a run, in
//! a pass that keeps only what they need ([`summary`]); the preview and
//! snapshots parse it whole ([`parse`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use crate::caches::Caches;
use crate::error::ReadError;
use crate::index::stamp::TitleInputs;
use crate::kinds::foreign::{
    folded_surface, read_bounded, title_from_text, FileCache, SurfaceBuilder,
};
use crate::model::{SessionRecord, StoreKind, Surface, SurfaceSink};
use crate::store::{env_or_home, Env, Store};
use crate::store::{has_suffix, ScanEvent};

pub mod summary;
pub mod thread;

use summary::Summary;
use thread::texts;
pub use thread::{parse, Thread};

/// The Amp store kind.
pub struct Amp;

/// Each thread file's [`Summary`], read once a run for its record, title
/// and last activity.
#[derive(Default)]
struct AmpCaches {
    summaries: FileCache<Summary>,
}

/// The summary of the thread file at `path`, read once this run.
fn summary_of(caches: &Caches, path: &Path) -> Result<Arc<Summary>, ReadError> {
    caches.get::<AmpCaches>().summaries.get(path, 0, || {
        let bytes = read_bounded(path, MAX_FILE)?;
        summary::summarize(&bytes).map_err(|message| ReadError {
            path: path.to_owned(),
            line: None,
            message,
        })
    })
}

/// The registry handle of [`Amp`].
pub const KIND: StoreKind = StoreKind::new(&Amp);

/// The largest thread file read.
const MAX_FILE: u64 = 256 << 20;

/// The thread id of a file name (`T-<uuid>.json`).
fn thread_id(path: &Path) -> Option<&str> {
    let name = path.file_name()?.to_str()?;
    let stem = name.strip_suffix(".json")?;
    (stem.starts_with("T-") && stem.len() > 2).then_some(stem)
}

/// The compaction summary an `info` message carries.
fn compaction_summary(message: &Value) -> Option<String> {
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
                if let Some(summary) = compaction_summary(message) {
                    builder.shadow();
                    builder.checkpoint(seq, vec![summary]);
                }
            }
            _ => {}
        }
        if builder.wants_tools() {
            for tool in crate::kinds::tools::amp_blocks(message.get("content")) {
                builder.tool(seq, tool);
            }
        }
    }
    messages.len() as u64
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

    fn list_file(&self, caches: &Caches, root: &Arc<Path>, path: &Path) -> ScanEvent {
        let Some(id) = thread_id(path) else {
            return ScanEvent::Skipped {
                path: path.to_owned(),
                reason: "not an Amp thread file (T-<id>.json)".into(),
            };
        };
        let thread = match summary_of(caches, path) {
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
            thread.cwd.clone(),
            created,
        ))
    }

    fn title_inputs(&self, _: &Caches, _: &SessionRecord) -> Option<TitleInputs> {
        Some(TitleInputs::Files(Vec::new()))
    }

    fn read_title(
        &self,
        caches: &Caches,
        record: &SessionRecord,
    ) -> Result<Option<String>, ReadError> {
        let thread = summary_of(caches, &record.path)?;
        Ok(thread
            .title
            .as_deref()
            .and_then(title_from_text)
            .or_else(|| thread.first_prompt.clone()))
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
    fn last_activity(&self, caches: &Caches, record: &SessionRecord) -> Option<i64> {
        let sent = summary_of(caches, &record.path)
            .ok()
            .and_then(|t| t.last_sent);
        sent.map(|ms| ms.div_euclid(1000))
            .or_else(|| crate::caches::modified_secs(&record.path))
    }
}

#[cfg(test)]
mod tests {
    use super::thread::uri_path;
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
