//! Orchestration: the pure core applied to real stores. Lists candidates,
//! reads sessions and prepares messages. Used alike by the command line,
//! the picker, the hooks and the MCP server.
//!
//! Synchronous: every method returns when its work is done. Work over many
//! sessions (titles, the sources of one message) runs data-parallel on
//! rayon's global pool; callers that must stay responsive (the picker's
//! loop, the signal watch of `main`) run engine calls as jobs on that pool
//! and receive the result on a channel.

use std::sync::Arc;

use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::order::{self, Place, SortBy};
use crate::session_arg::SessionArg;
use session_ref_core::candidates::{self, Ranked, Target};
use session_ref_core::escape::{escape_unsafe, safe_label};
use session_ref_core::export::{ExportHeader, ExportMessage};
use session_ref_core::json;
use session_ref_core::matching::FuzzyMatcher;
use session_ref_core::mention::{self, Reference};
use session_ref_core::prepare::{self, Context, ReadSource, SourceRef};
use session_ref_core::projection;
use session_ref_core::streaming::RetainingSink;
use session_ref_stores::model::SessionRecord;
use session_ref_stores::{Catalog, RecordId};

/// Everything needed to list and prepare: the catalog, limits and target.
#[derive(Debug, Clone)]
pub struct Engine {
    /// Listed sessions.
    pub catalog: Arc<Catalog>,
    /// Validated limits.
    pub limits: Limits,
    /// The session being written to.
    pub target: Target,
}

/// A listed candidate as printed by `candidates --json` (SPEC §6 keys first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    /// Session id.
    pub session_id: String,
    /// Latest title, or the id.
    pub label: String,
    /// Working directory, absent when unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Creation time exactly as logged.
    pub created_at: String,
    /// The canonical mention with this label.
    pub mention: String,
    /// The kind of session (`hydra`, `claude`, `codex`, …), written as
    /// `agent` and its old name `store`.
    #[serde(flatten)]
    pub agent: crate::agent_key::AgentKey,
    /// The log file (`HOST:PATH` for a session of another machine).
    pub path: String,
    /// Last activity: when the log was last written (UTC, whole seconds),
    /// what the picker sorts by; absent when the file cannot be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_activity: Option<String>,
    /// The same instant in Unix seconds (to sort and to show an age).
    #[serde(skip)]
    pub activity: Option<i64>,
    /// The machine holding it, for a session of another machine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Whether it is read from session-ref's archive, its agent's store
    /// no longer holding it (`true` only; absent otherwise).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub archived: bool,
}

impl Candidate {
    /// The candidate for a ranked record last active at `activity` (Unix
    /// seconds, as its reader tells it).
    pub fn new(record: &SessionRecord, label: String, activity: Option<i64>) -> Self {
        Candidate {
            mention: mention::format_mention(&record.id, Some(&label)),
            session_id: record.id.clone(),
            label,
            cwd: record.cwd.clone(),
            created_at: record.created_at.clone(),
            agent: crate::agent_key::AgentKey(record.kind.as_str()),
            path: record.path.display().to_string(),
            last_activity: activity.map(session_ref_core::time::format_rfc3339_utc),
            activity,
            host: record.host.as_deref().map(str::to_owned),
            archived: record.archived,
        }
    }
}

/// When the log at `path` was last written (Unix seconds): the session's
/// last activity, as the picker and the agents' own resume pickers have it.
pub fn modified(path: &std::path::Path) -> Option<i64> {
    let time = std::fs::metadata(path).and_then(|m| m.modified()).ok()?;
    let seconds = match time.duration_since(std::time::UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_secs()).ok()?,
        // Before the epoch: rounded down too.
        Err(before) => {
            let before = before.duration();
            -i64::try_from(before.as_secs()).ok()? - i64::from(before.subsec_nanos() > 0)
        }
    };
    Some(seconds)
}

/// A message after preparation, ready to write.
#[derive(Debug, Clone, PartialEq)]
pub enum PreparedMessage {
    /// An input message, rewritten (readable mentions) or passed through.
    Message(Value),
    /// The context message that follows the message citing it.
    Context(Context),
}

impl PreparedMessage {
    /// One JSON line (no newline).
    pub fn to_json_line(&self) -> String {
        match self {
            PreparedMessage::Message(value) => json::stringify_value(value),
            PreparedMessage::Context(context) => prepare::context_message_json(context),
        }
    }

    /// The message's text blocks joined with `"\n"`.
    pub fn text(&self) -> String {
        match self {
            PreparedMessage::Message(value) => message_text(value),
            PreparedMessage::Context(context) => context.text.clone(),
        }
    }
}

/// Text blocks of a message object joined with `"\n"`.
pub fn message_text(message: &Value) -> String {
    let blocks = message.get("content").and_then(Value::as_array);
    let texts: Vec<&str> = blocks
        .into_iter()
        .flatten()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    texts.join("\n")
}

/// A direct user message carrying `text`, as `prepare TEXT` builds it.
pub fn direct_message(text: &str) -> Value {
    serde_json::json!({"role": "user", "source": {"kind": "user"}, "content": [{"type": "text", "text": text}]})
}

/// Render prepared messages as `--format text`: each message's text and a
/// newline; a context follows the message citing it after a blank line.
pub fn render_text(messages: &[PreparedMessage]) -> String {
    let mut out = String::new();
    for message in messages {
        if matches!(message, PreparedMessage::Context(_)) {
            out.push('\n');
        }
        out.push_str(&message.text());
        out.push('\n');
    }
    out
}

/// Render prepared messages as `--format jsonl`.
pub fn render_jsonl(messages: &[PreparedMessage]) -> String {
    let mut out = String::new();
    for message in messages {
        out.push_str(&message.to_json_line());
        out.push('\n');
    }
    out
}

/// A message parsed for preparation: its rewritten content and references.
struct Parsed {
    message: Value,
    references: Vec<Reference>,
}

/// Why the session `id` cited cannot be read when `catalog` does not list
/// it: the host it names and why that host could not be listed (`host lo:
/// did not answer within 5 s`), else an unknown session. The one message
/// of `prepare`, the MCP server and the hooks; a host's words escaped.
pub fn not_listed(catalog: &Catalog, id: &str) -> Error {
    let remotes = catalog
        .caches()
        .get::<session_ref_stores::remote::Remotes>();
    let quoted = json::quote(id, false);
    match remotes.failure_for(id) {
        Some((host, why)) => Error::ReadFailed(format!(
            "failed to read referenced session {quoted}: host {}: {}",
            escape_unsafe(&host),
            escape_unsafe(&why)
        )),
        None => Error::ReadFailed(format!(
            "failed to read referenced session: unknown session {quoted}"
        )),
    }
}

impl Engine {
    /// An engine over `catalog`.
    pub fn new(catalog: Arc<Catalog>, limits: Limits, target: Target) -> Self {
        Engine {
            catalog,
            limits,
            target,
        }
    }

    /// Labels of the records `ids` as queries match them (SPEC §6,
    /// [`Catalog::label`]: the title as the log holds it, or the id; what
    /// is shown and cited is that through [`safe_label`]), their
    /// titles read on rayon's pool. Titles are read by session id, as the
    /// reference's `readTitleSnapshots(ids)` reads them: records sharing an
    /// id all get the title of the first of them in record order, the
    /// session a mention of that id reads. An absent or unreadable title
    /// labels with the id.
    pub fn labels(&self, ids: &[RecordId]) -> Vec<String> {
        let catalog = &*self.catalog;
        ids.par_iter()
            .map(|&id| {
                catalog.label(id, |source| {
                    catalog.read_title(catalog.get(source)).ok().flatten()
                })
            })
            .collect()
    }

    /// Labels of every record, indexed by [`RecordId`].
    pub fn all_labels(&self) -> Vec<String> {
        let ids: Vec<RecordId> = (0..self.catalog.len()).collect();
        self.labels(&ids)
    }

    /// `candidates(query, limit)`: the reference's exact rule, or with `fuzzy`
    /// the exact matches followed by fuzzy-only ones.
    pub fn candidates(&self, query: &str, limit: usize, fuzzy: bool) -> Vec<Candidate> {
        let catalog = &*self.catalog;
        self.ranked(query, limit, fuzzy)
            .into_iter()
            .map(|r| {
                let record = catalog.get(r.index);
                let activity = session_ref_stores::last_activity(catalog.caches(), record);
                Candidate::new(record, r.label, activity)
            })
            .collect()
    }

    /// [`Engine::candidates`] in the list order `sort`
    /// ([`crate::order`]): by creation, SPEC §6's order itself; by
    /// activity, the exact-rule matches in the list order, then the
    /// fuzzy-only ones in their score order.
    pub fn candidates_sorted(
        &self,
        query: &str,
        limit: usize,
        fuzzy: bool,
        sort: SortBy,
    ) -> Vec<Candidate> {
        if sort == SortBy::Created {
            return self.candidates(query, limit, fuzzy);
        }
        let catalog = &*self.catalog;
        let ranked = self.ranked(query, usize::MAX, fuzzy);
        let activity: Vec<Option<i64>> = ranked
            .iter()
            .map(|r| session_ref_stores::last_activity(catalog.caches(), catalog.get(r.index)))
            .collect();
        let place = |at: usize| Place {
            group: ranked[at].rank,
            activity: activity[at],
            record: catalog.get(ranked[at].index),
        };
        let mut order: Vec<usize> = (0..ranked.len()).collect();
        order.sort_by(|&a, &b| {
            let (exact_a, exact_b) = (ranked[a].exact, ranked[b].exact);
            exact_b.cmp(&exact_a).then_with(|| {
                if exact_a && exact_b {
                    order::compare(sort, &place(a), &place(b))
                } else {
                    std::cmp::Ordering::Equal
                }
            })
        });
        order.truncate(limit);
        let mut ranked: Vec<Option<Ranked>> = ranked.into_iter().map(Some).collect();
        order
            .into_iter()
            .filter_map(|at| {
                let r = ranked[at].take()?;
                Some(Candidate::new(catalog.get(r.index), r.label, activity[at]))
            })
            .collect()
    }

    /// The records `candidates` lists, ranked, with their labels.
    fn ranked(&self, query: &str, limit: usize, fuzzy: bool) -> Vec<Ranked> {
        let catalog = &*self.catalog;
        if fuzzy && !query.is_empty() {
            let labels = self.all_labels();
            candidates::fuzzy(
                catalog,
                &labels,
                &self.target,
                query,
                limit,
                &mut FuzzyMatcher::new(),
            )
        } else {
            candidates::exact(catalog, &self.target, query, limit, &mut |wanted| {
                self.labels(wanted)
            })
        }
    }

    /// The label a mention of `id` gets by default: the latest title of
    /// its session, else the id, made safe (SPEC §6: it is session text).
    pub fn default_label(&self, id: &str) -> String {
        let title = self
            .catalog
            .find(id)
            .and_then(|record| self.catalog.read_title(record).ok().flatten());
        safe_label(title.as_deref().unwrap_or(id)).into_owned()
    }

    /// `label` (the user's, kept as written), or the default label of `id`
    /// when there is none.
    pub fn label_or_default(&self, id: &str, label: Option<&str>) -> String {
        match label {
            Some(label) => label.to_owned(),
            None => self.default_label(id),
        }
    }

    /// Read sources in parallel, each folded into what a budget of
    /// `max_bytes` can still need while it is read (so memory follows the
    /// budget, not the logs); the first failure in source order wins.
    pub fn read_sources(&self, sources: &[SourceRef], max_bytes: usize) -> Result<Vec<ReadSource>> {
        read_sources(&self.catalog, sources, max_bytes)
    }

    /// Snapshot `sources` and render their context.
    pub fn context_for(&self, sources: &[SourceRef]) -> Result<Context> {
        let read = self.read_sources(sources, self.limits.max_reference_bytes)?;
        Ok(prepare::build_context(sources, read)?)
    }

    /// Prepare one typed text (`prepare TEXT`).
    pub fn prepare_text(&self, text: &str) -> Result<Vec<PreparedMessage>> {
        self.prepare_messages(vec![direct_message(text)])
    }

    /// Prepare message objects (`prepare --input jsonl`): every direct user
    /// message citing sessions is rewritten and followed by its context;
    /// everything else passes through untouched. All or nothing.
    pub fn prepare_messages(&self, messages: Vec<Value>) -> Result<Vec<PreparedMessage>> {
        // Parse every message, then normalize every message's references,
        // so errors come in the reference's order: a malformed mention
        // anywhere, then a reference error anywhere, both before any session
        // is read.
        let parsed = messages
            .into_iter()
            .enumerate()
            .map(|(index, message)| parse_message(index, message))
            .collect::<Result<Vec<_>>>()?;
        let planned = parsed
            .into_iter()
            .map(|parsed| Ok((parsed.message, normalize(self, &parsed.references)?)))
            .collect::<Result<Vec<_>>>()?;
        let mut out = Vec::with_capacity(planned.len() * 2);
        for (message, sources) in planned {
            let context = if sources.is_empty() {
                None
            } else {
                Some(self.context_for(&sources)?)
            };
            out.push(PreparedMessage::Message(message));
            out.extend(context.map(PreparedMessage::Context));
        }
        Ok(out)
    }

    /// The context `prepare` would inject for a message citing only this
    /// session (by id or canonical URI), under `label` (default: title or id).
    pub fn preview(&self, arg: &str, label: Option<&str>) -> Result<Context> {
        let named = self.resolve_session_arg(arg)?;
        self.preview_named(named, label)
    }

    /// [`Engine::preview`] of a session argument already resolved
    /// ([`SessionArg::resolve`]), `label` before the argument's own.
    pub fn preview_named(&self, named: SessionArg, label: Option<&str>) -> Result<Context> {
        let label = self.label_or_default(&named.id, label.or(named.label.as_deref()));
        let id = named.id;
        let sources = normalize(
            self,
            &[Reference {
                session_id: id,
                label,
            }],
        )?;
        self.context_for(&sources)
    }
}

/// Read `sources` of `catalog` in parallel, each folded into what a budget
/// of `max_bytes` can still need while it is read (so memory follows the
/// budget, not the logs: `prepare`, `preview` and the hooks all read this
/// way); the first failure in source order wins.
pub fn read_sources(
    catalog: &Catalog,
    sources: &[SourceRef],
    max_bytes: usize,
) -> Result<Vec<ReadSource>> {
    sources
        .par_iter()
        .map(|source| match catalog.find(&source.session_id) {
            Some(record) => {
                let mut retained = RetainingSink::new(max_bytes);
                catalog
                    .fold_surface(record, &mut retained)
                    .map(|captured_through_seq| ReadSource {
                        cwd: record.cwd.clone(),
                        retained,
                        captured_through_seq,
                    })
                    .map_err(Error::from)
            }
            None => Err(not_listed(catalog, &source.session_id)),
        })
        .collect::<Vec<_>>()
        .into_iter()
        .collect()
}

impl Engine {
    /// The session `arg` names as an export reads it: who wrote it and
    /// where, and its conversation as the preview shows it (what the person
    /// typed, the assistant's text, compaction summaries; never tool output
    /// or injected context), whole, in order. `label` before the
    /// argument's own, as for [`Engine::preview`].
    pub fn export(
        &self,
        arg: &str,
        label: Option<&str>,
    ) -> Result<(ExportHeader, Vec<ExportMessage>)> {
        let named = self.resolve_session_arg(arg)?;
        let label = self.label_or_default(&named.id, label.or(named.label.as_deref()));
        let record = self
            .catalog
            .find(&named.id)
            .ok_or_else(|| not_listed(&self.catalog, &named.id))?;
        let surface = self.catalog.read_surface(record)?;
        let messages = projection::project(&surface)
            .into_iter()
            .map(|item| ExportMessage {
                role: item.role,
                text: item.text.into_owned(),
                checkpoint: item.checkpoint,
            })
            .collect();
        let header = ExportHeader {
            mention: mention::format_mention(&record.id, Some(&label)),
            session_id: record.id.clone(),
            label,
            agent: record.kind.as_str().to_owned(),
            cwd: record.cwd.clone(),
            created_at: record.created_at.clone(),
        };
        Ok((header, messages))
    }
}

impl Engine {
    /// What the session argument `arg` names in this engine's catalog:
    /// [`SessionArg::resolve`], the one rule of every front-end.
    pub fn resolve_session_arg(&self, arg: &str) -> Result<SessionArg> {
        SessionArg::resolve(&self.catalog, arg)
    }
}

fn normalize(engine: &Engine, references: &[Reference]) -> Result<Vec<SourceRef>> {
    Ok(prepare::normalize_references(
        engine.target.session_id.as_deref(),
        references,
        engine.limits.max_references,
    )?)
}

/// Rewrite the text blocks of a direct user message. Returns the message with
/// its references (empty when it passes through untouched).
fn parse_message(index: usize, message: Value) -> Result<Parsed> {
    let line = index + 1;
    let bad = |why: &str| Error::InvalidReference(format!("input message {line}: {why}"));
    let Some(object) = message.as_object() else {
        return Err(bad("not a JSON object"));
    };
    let Some(source) = object.get("source").and_then(Value::as_object) else {
        return Err(bad("source is not an object"));
    };
    if source.get("kind").and_then(Value::as_str) != Some("user") {
        return Ok(Parsed {
            message,
            references: Vec::new(),
        });
    }
    let Some(blocks) = object.get("content").and_then(Value::as_array) else {
        return Err(bad("content is not an array"));
    };
    let mut references = Vec::new();
    let mut content = Vec::with_capacity(blocks.len());
    for block in blocks {
        if block.get("type").and_then(Value::as_str) != Some("text") {
            content.push(block.clone());
            continue;
        }
        let Some(text) = block.get("text").and_then(Value::as_str) else {
            return Err(bad("a text block has no string text"));
        };
        let parsed = mention::parse_text(text)?;
        references.extend(parsed.references);
        content.push(serde_json::json!({"type": "text", "text": parsed.text}));
    }
    if references.is_empty() {
        return Ok(Parsed {
            message,
            references,
        });
    }
    let mut message = message;
    message["content"] = Value::Array(content);
    Ok(Parsed {
        message,
        references,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A native session file with `id`, `createdAt` and an optional title.
    fn session(dir: &std::path::Path, name: &str, id: &str, created: &str, title: Option<&str>) {
        let mut log = format!(
            "{{\"type\":\"session\",\"version\":1,\"id\":{},\"createdAt\":\"{created}\"}}\n",
            json::quote(id, false)
        );
        if let Some(title) = title {
            log.push_str(&format!(
                "{{\"seq\":1,\"type\":\"session/title\",\"data\":{{\"title\":{}}}}}\n",
                json::quote(title, false)
            ));
        }
        std::fs::write(dir.join(name), log).unwrap();
    }

    fn engine(dir: &std::path::Path) -> Engine {
        let roots = session_ref_stores::StoreRoots::new()
            .with(session_ref_stores::kinds::native::KIND, dir);
        Engine::new(
            Arc::new(Catalog::load(&roots)),
            Limits::default(),
            Target::default(),
        )
    }

    #[test]
    fn records_sharing_an_id_are_labelled_by_that_ids_title() {
        // The reference reads titles by id (`readTitleSnapshots(ids)`): every
        // record with an id gets the title of the id's session, the first in
        // record order, which is also the one a mention of the id reads.
        let dir = tempfile::tempdir().unwrap();
        session(dir.path(), "new.jsonl", "dup", "2025-02-01T00:00:00Z", None);
        session(
            dir.path(),
            "old.jsonl",
            "dup",
            "2025-01-01T00:00:00Z",
            Some("Old"),
        );
        session(
            dir.path(),
            "other.jsonl",
            "x",
            "2024-01-01T00:00:00Z",
            Some("X"),
        );
        let engine = engine(dir.path());
        let labels: Vec<(String, String)> = engine
            .candidates("", 10, false)
            .into_iter()
            .map(|c| (c.session_id, c.label))
            .collect();
        let expected = [("dup", "dup"), ("dup", "dup"), ("x", "X")];
        assert_eq!(
            labels,
            expected.map(|(id, label)| (id.to_owned(), label.to_owned()))
        );
        // A query matches the shared label, not the shadowed title.
        assert!(engine.candidates("old", 10, false).is_empty());
    }

    #[test]
    fn a_malformed_mention_anywhere_wins_over_reference_errors() {
        // The reference parses every message's mentions before it checks any
        // message's references (a parse error rejects at once, a reference
        // error one step later), so in a list of messages an invalid mention
        // in a later message is reported before a self-reference or too many
        // sessions in an earlier one.
        let dir = tempfile::tempdir().unwrap();
        let mut engine = engine(dir.path());
        engine.target.session_id = Some("t".into());
        let message = |text: String| direct_message(&text);
        let cite = |id: &str| mention::format_mention(id, None);
        let malformed = message("@[x](hydra-session:)".into());
        for first in [
            message(cite("t")),
            message(["a", "b", "c", "d"].map(cite).concat()),
        ] {
            let err = engine
                .prepare_messages(vec![first, malformed.clone()])
                .unwrap_err();
            assert_eq!(err.code(), session_ref_core::ErrorCode::InvalidReference);
        }
    }
}
