//! Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, or
//! `.jsonl.zst` when compressed), mapped onto the session model as
//! `FORMATS.md` describes.
//!
//! Each line is `{"timestamp","type","payload"}` (0.16x adds an `ordinal`
//! and line types such as `world_state` and `token_usage_record`, 0.171
//! the item type `id_allocation`: only the five types below are read, so
//! these are never conversation). The first `session_meta` identifies the file (an
//! older fork copies its parent's in after its own; a newer, "paginated"
//! fork points at its parent's rollout instead, see [`read_surface`]). The
//! conversation is recorded twice, as `response_item` messages and as
//! `event_msg` copies (`user_message`/`agent_message`, or in 0.16x
//! `item_completed` with a `UserMessage`/`AgentMessage` item): the surface
//! uses the response items, and the event copies only in a rollout that has
//! no response-item message at all, never both. A `compacted` line shadows
//! everything before it.
//!
//! # Sub-agents and forks (checked on 0.171.0)
//!
//! `codex exec review` writes two rollouts: the parent (listed by Codex,
//! and here, by the reviewer's prompt it echoes as an event) and the
//! reviewer's, whose `session_meta.source` is `{"subagent": "review"}`:
//! a sub-agent, skipped by listing. An unnamed paginated fork, and a fork
//! of a fork, is titled as `thread/list` shows it: by the first prompt of
//! the history it inherits, the root's.
//!
//! # Cost model
//!
//! Listing reads the head of each rollout up to its first `session_meta`
//! (line 1 in practice); only a meta without `cwd` costs a backward scan for
//! the last `turn_context`. Titles come from the end of the rollout (the
//! latest `thread_name_updated`, found by a backward scan) and from
//! `$CODEX_HOME/session_index.jsonl` (parsed once per version of that file),
//! the later of the two winning; otherwise the first prompt as Codex lists
//! it, read forward only as far as needed. Per-file results are cached by path,
//! length and modification time. A compressed rollout cannot be read
//! backward: it is decompressed forward, streaming.
//!
//! # Modules
//!
//! - `line`: a rollout line's envelope and payload, read without building
//!   a JSON tree, and which of the five read line types it is.
//! - `said`: what a message says, and what of a user message the person
//!   typed (see "What the person typed" there).
//! - `fold`: a rollout folded into a conversation: the two records of it,
//!   compaction, a paginated fork's inherited history, resumable folds.
//! - `title`: thread names, `session_index.jsonl` and the first prompt.
//!
//! This module owns the store itself: where rollouts are, and a session's
//! record from the head of its rollout.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::caches::Caches;
use crate::error::ReadError;
use crate::index::journal::{Folded, ResumePoint};
use crate::index::stamp::TitleInputs;
use crate::kinds::foreign::{is_zstd, last_line_where, read_lines, trailing_uuid, Visit};
use crate::model::{SessionRecord, StoreKind, Surface, SurfaceSink};
use crate::store::{env_or_home, Env, Store};
use crate::store::{has_suffix, ScanEvent};
use session_ref_core::time::Instant;
use session_ref_jsonl::loose::{non_empty, string, RawText};

mod fold;
mod line;
mod said;
#[cfg(test)]
mod testing;
mod title;

pub use fold::read_surface;
pub use title::{read_title, SESSION_INDEX};

use fold::{fold_resumable, fold_surface};
use line::{parse_line, Item, Line};

/// How many lines listing reads looking for the first `session_meta`.
const HEAD_LINES: u64 = 32;

/// The Codex CLI store.
pub struct Codex;

/// Why a review sub-agent rollout is not listed.
pub(crate) const REVIEW: &str =
    "a Codex review sub-agent rollout (`codex exec review`), not a session of its own";

/// The Codex CLI store's kind.
pub const KIND: StoreKind = StoreKind::new(&Codex);

impl Store for Codex {
    fn name(&self) -> &'static str {
        "codex"
    }

    fn flag(&self) -> &'static str {
        "codex"
    }

    fn origin(&self) -> &'static str {
        "Codex CLI"
    }

    fn root_help(&self) -> &'static str {
        "Codex CLI sessions directory"
    }

    fn default_roots(&self, env: Env<'_>, home: Option<&Path>) -> Vec<PathBuf> {
        env_or_home(
            env,
            home,
            "CODEX_HOME",
            &["sessions"],
            &[".codex", "sessions"],
        )
    }

    fn wants(&self, path: &Path) -> bool {
        has_suffix(path, ".jsonl") || has_suffix(path, ".jsonl.zst")
    }

    /// A rollout from its head. A compressed rollout that cannot be
    /// decoded is reported as unreadable.
    fn list_file(&self, _: &Caches, root: &Arc<Path>, path: &Path) -> ScanEvent {
        match read_record(root, path) {
            Ok(Some(Head::Session(record))) => ScanEvent::Record(record),
            Ok(Some(Head::Review)) => ScanEvent::Skipped {
                path: path.to_owned(),
                reason: REVIEW.into(),
            },
            Ok(None) => ScanEvent::Skipped {
                path: path.to_owned(),
                reason: concat!(
                    "not a Codex rollout: no JSON line, ",
                    "or no session_meta and no id in the file name"
                )
                .into(),
            },
            Err(e) => ScanEvent::Unreadable {
                path: path.to_owned(),
                reason: if is_zstd(path) {
                    format!("cannot decompress zstd rollout: {}", e.message)
                } else {
                    e.message
                },
            },
        }
    }

    /// A paginated fork's parent rollouts (its surface starts with their
    /// history), so that an archived fork has them beside it.
    fn side_files(&self, _: &Caches, record: &SessionRecord) -> Vec<PathBuf> {
        fold::parent_rollouts(&record.root, &record.path)
    }

    fn title_inputs(&self, _: &Caches, record: &SessionRecord) -> Option<TitleInputs> {
        // Thread names also come from `session_index.jsonl` beside the root.
        let index = record.root.parent()?.join(SESSION_INDEX);
        Some(TitleInputs::Files(vec![index]))
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

    /// The `timestamp` of the last line that has one (every line of a
    /// rollout does; a backward scan), else the file's modification time.
    fn last_activity(&self, _: &Caches, record: &SessionRecord) -> Option<i64> {
        let last = last_line_where(&record.path, b"\"timestamp\"", |bytes| {
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
        fold_surface(record, sink)
    }

    /// The response items and the event copies are recorded as streams 0
    /// and 1, the conversation being stream 0 once the rollout has a
    /// message item (from then on stream 1 is never chosen again, so it is
    /// no longer kept). A compressed rollout, or a paginated fork (whose
    /// history sits in another file), is read whole each time.
    fn fold_resumable(
        &self,
        _: &Caches,
        record: &SessionRecord,
        len: u64,
        from: Option<&ResumePoint>,
    ) -> Result<Folded, ReadError> {
        fold_resumable(record, len, from)
    }
}

/// What the head of a rollout says it is.
#[derive(Debug)]
// The record is what almost every file lists: boxing it would allocate
// once per session for the rare other variants' sake.
#[allow(clippy::large_enum_variant)]
enum Head {
    /// A session.
    Session(SessionRecord),
    /// The review sub-agent of `codex exec review` (`session_meta.source`
    /// `{"subagent": "review"}`): its parent is the session.
    Review,
}

/// Whether a `session_meta.source` names the review sub-agent.
fn is_review_subagent(source: Option<RawText<'_>>) -> bool {
    #[derive(Deserialize)]
    struct Source<'a> {
        #[serde(borrow)]
        subagent: Option<&'a RawValue>,
    }
    source
        .filter(|raw| raw.0.starts_with('{'))
        .and_then(|raw| serde_json::from_str::<Source<'_>>(raw.0).ok())
        .is_some_and(|s| string(s.subagent).as_deref() == Some("review"))
}

/// The record of a rollout: id, timestamp and cwd of its first
/// `session_meta`; the id falls back to the uuid in the file name, the
/// timestamp to the first line's, the cwd to the last `turn_context`'s.
/// `None` for a file with neither a meta line nor an id in its name, or
/// with no line at all.
fn read_record(root: &Arc<Path>, path: &Path) -> Result<Option<Head>, ReadError> {
    let mut meta: Option<(Option<String>, Option<String>, Option<String>)> = None;
    let mut review = false;
    let mut first_timestamp = None;
    let mut any_line = false;
    read_lines(path, true, |number, bytes| {
        let Some((timestamp, item)) = parse_line(bytes) else {
            return Visit::BAD;
        };
        any_line = true;
        if first_timestamp.is_none() {
            first_timestamp = timestamp.clone();
        }
        if let Item::Meta(p) = item {
            review = is_review_subagent(p.source);
            let created = string(p.timestamp).or(timestamp);
            meta = Some((non_empty(p.id), created, non_empty(p.cwd)));
            return Visit::DONE;
        }
        Visit {
            parsed: true,
            stop: number >= HEAD_LINES,
        }
    })?;
    let (meta_id, created, cwd) = meta.unwrap_or_default();
    let Some(id) = meta_id.or_else(|| trailing_uuid(path)) else {
        return Ok(None);
    };
    if !any_line {
        return Ok(None);
    }
    if review {
        return Ok(Some(Head::Review));
    }
    let cwd = match cwd {
        Some(cwd) => Some(cwd),
        None => last_turn_context_cwd(path)?,
    };
    Ok(Some(Head::Session(SessionRecord::new(
        KIND,
        root.clone(),
        path.to_owned(),
        id,
        cwd,
        created.or(first_timestamp).unwrap_or_default(),
    ))))
}

/// The `cwd` of the last `turn_context` that has one.
fn last_turn_context_cwd(path: &Path) -> Result<Option<String>, ReadError> {
    last_line_where(path, b"turn_context", |bytes| match parse_line(bytes) {
        Some((_, Item::TurnContext(p))) => non_empty(p.cwd),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::testing::{
        item_assistant, item_user, meta, meta_171, read_title, rollout, turn_context,
        user_completed, Store, ID,
    };
    use super::*;
    use crate::kinds::foreign::testing::texts;

    #[test]
    fn first_meta_identifies_a_fork() {
        let store = Store::new();
        let parent = "11111111-2222-4333-8444-555555555555";
        let path = store.write(
            &rollout(ID),
            &[
                meta(ID, Some("/work/fork")),
                meta(parent, Some("/work/parent")),
                item_user("parent prompt"),
            ],
        );
        let record = store.record(&path);
        assert_eq!(record.id, ID);
        assert_eq!(record.cwd.as_deref(), Some("/work/fork"));
        assert_eq!(record.created_at, "2026-01-02T16:39:45.332Z");
        assert_eq!(record.kind, KIND);
    }

    #[test]
    fn cwd_falls_back_to_the_last_turn_context_and_id_to_the_name() {
        let store = Store::new();
        let path = store.write(
            &rollout(ID),
            &[
                meta(ID, None),
                turn_context("/first"),
                item_user("q"),
                turn_context("/last"),
            ],
        );
        assert_eq!(store.record(&path).cwd.as_deref(), Some("/last"));
        let nameless = store.write(
            &rollout(ID).replace(".jsonl", "-copy.jsonl"),
            &[item_user("q")],
        );
        assert!(read_record(&store.root, &nameless).unwrap().is_none());
        let no_meta = store.write(
            &format!("x-{ID}.jsonl"),
            &[turn_context("/t"), item_user("q")],
        );
        let record = store.record(&no_meta);
        assert_eq!(
            (
                record.id.as_str(),
                record.cwd.as_deref(),
                record.created_at.as_str()
            ),
            (ID, Some("/t"), "2026-01-02T16:39:47.000Z")
        );
        let empty = store.write(&format!("y-{ID}.jsonl"), &[]);
        assert!(read_record(&store.root, &empty).unwrap().is_none());
    }

    #[test]
    fn a_review_subagent_is_not_a_session_and_user_action_is_not_typed() {
        let store = Store::new();
        let parent_id = "01a232f5-2593-76a2-8c9b-ef039705b718";
        let review_id = "01a232f5-2607-77c0-a3cb-ef44c77b1d2f";
        let review_prompt = "Review the current code changes (staged, unstaged, and untracked files) and provide prioritized findings.";
        let parent = store.write(
            &rollout(parent_id),
            &[
                meta_171(parent_id, r#""exec""#, None),
                r#"{"timestamp":"2026-12-01T18:54:16.525Z","ordinal":1,"type":"event_msg","payload":{"type":"item_completed","thread_id":"01a232f5-2593-76a2-8c9b-ef039705b718","turn_id":"t","item":{"type":"EnteredReviewMode","id":"e","target":{"type":"uncommittedChanges"},"user_facing_hint":"current changes"}}}"#.into(),
                user_completed(review_id, review_prompt),
                item_user("<user_action>\n  <context>User initiated a review task. Here's the full review output from reviewer model. User may select one or more comments to resolve.</context>\n  <action>review</action>\n  <results>\n  ACK: Review\n  </results>\n</user_action>"),
                r#"{"timestamp":"2026-12-01T18:54:16.700Z","ordinal":7,"type":"event_msg","payload":{"type":"item_completed","thread_id":"01a232f5-2593-76a2-8c9b-ef039705b718","turn_id":"t","item":{"type":"ExitedReviewMode","id":"x","review_output":{"findings":[],"overall_correctness":"","overall_explanation":"ACK: Review","overall_confidence_score":0.0}}}}"#.into(),
                item_assistant("ACK: Review"),
            ],
        );
        let review = store.write(
            &rollout(review_id),
            &[
                meta_171(review_id, r#"{"subagent":"review"}"#, None),
                item_user(review_prompt),
                user_completed(review_id, review_prompt),
                item_assistant("ACK: Review"),
            ],
        );
        let listed = |path: &Path| {
            crate::store::Store::list_file(&Codex, &Caches::default(), &store.root, path)
        };
        assert!(
            matches!(listed(&review), ScanEvent::Skipped { reason, .. } if reason.contains("review sub-agent")),
            "{:?}",
            listed(&review)
        );
        let record = store.record(&parent);
        // Codex lists the parent by the review's prompt (its event copy).
        assert_eq!(
            read_title(&record).unwrap().as_deref(),
            Some(&review_prompt[..80])
        );
        assert_eq!(
            texts(&read_surface(&record).unwrap()),
            [(6, "assistant", "ACK: Review".to_owned())]
        );
        // Other sub-agent sources stay listed as before.
        let spawned = store.write(
            &rollout("dddddddd-2222-4333-8444-555555555555"),
            &[meta_171(
                "dddddddd-2222-4333-8444-555555555555",
                r#"{"subagent":{"thread_spawn":{"parent_thread_id":"p","depth":0}}}"#,
                None,
            )],
        );
        assert!(matches!(listed(&spawned), ScanEvent::Record(_)));
    }

    #[test]
    fn zstd_rollouts_are_read_and_bad_ones_reported() {
        let store = Store::new();
        let plain = [
            meta(ID, None),
            item_user("compressed prompt"),
            turn_context("/zipped"),
            item_assistant("compressed answer"),
        ]
        .join("\n")
            + "\n";
        let dir = store.root.join("2026/01/03");
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join(format!("rollout-2026-01-03T00-00-00-{ID}.jsonl.zst"));
        std::fs::write(&good, zstd::encode_all(plain.as_bytes(), 3).unwrap()).unwrap();
        let bad =
            dir.join("rollout-2026-01-03T00-00-01-44444444-2222-4333-8444-555555555555.jsonl.zst");
        std::fs::write(&bad, b"\x28\xb5\x2f\xfd garbage that is not a frame").unwrap();
        let catalog = crate::catalog::Catalog::load(
            &crate::roots::StoreRoots::new().with(KIND, &*store.root),
        );
        assert_eq!(catalog.len(), 1);
        let record = catalog.get(0);
        assert_eq!(record.cwd.as_deref(), Some("/zipped"));
        assert_eq!(
            read_title(record).unwrap().as_deref(),
            Some("compressed prompt")
        );
        assert_eq!(
            texts(&read_surface(record).unwrap()),
            [
                (2, "user", "compressed prompt".to_owned()),
                (4, "assistant", "compressed answer".to_owned()),
            ]
        );
        assert_eq!(catalog.unreadable.len(), 1);
        assert_eq!(catalog.unreadable[0].0, bad);
        assert!(catalog.unreadable[0]
            .1
            .starts_with("cannot decompress zstd rollout"));
    }

    #[test]
    fn legacy_unwrapped_rollouts_are_read() {
        let store = Store::new();
        let path = store.write(
            &rollout(ID),
            &[
                format!(r#"{{"id":"{ID}","timestamp":"2025-04-20T10:00:00.000Z","instructions":null,"git":null}}"#),
                r#"{"record_type":"state"}"#.into(),
                r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"old style"}]}"#.into(),
                r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"still read"}]}"#.into(),
            ],
        );
        let record = store.record(&path);
        assert_eq!(
            (
                record.id.as_str(),
                record.created_at.as_str(),
                record.cwd.as_deref()
            ),
            (ID, "2025-04-20T10:00:00.000Z", None)
        );
        assert_eq!(
            texts(&read_surface(&record).unwrap()),
            [
                (3, "user", "old style".to_owned()),
                (4, "assistant", "still read".to_owned()),
            ]
        );
    }
}
