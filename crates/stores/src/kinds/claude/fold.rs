//! A Claude Code transcript folded into the conversation a snapshot shows:
//! direct user messages, assistant text merged per message, compaction
//! checkpoints; whole, or resumed where an earlier fold stopped (the
//! journal's resume point).
//!
//! # Compaction
//!
//! A `compact_boundary` shadows every earlier line and the
//! `isCompactSummary` line after it is the compact checkpoint. Since
//! 2.1.332 (checked with `/compact` run offline) a boundary may list
//! `compactMetadata.preservedMessages.uuids`: earlier lines the model
//! keeps verbatim after the summary (the summary's own text says so).
//! Their messages follow the checkpoint, in their order, at its seq
//! (`CompactionFold`); the reader keeps the user and assistant messages
//! since the last compaction to have them at hand.
//!

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::line::{content_texts, Line, Prompt};
use crate::error::ReadError;
use crate::index::journal::{Folded, Journal, ResumePoint};
use crate::kinds::foreign::{self, LineSays, SurfaceBuilder};
use crate::kinds::tools;
use crate::model::{SessionRecord, Surface, SurfaceSink, ToolEvent};
use session_ref_jsonl::loose::{is_str, is_true, string, RawText};

/// Read and fold a whole transcript.
///
/// Direct user messages are `user` lines that are not side-chain, meta or
/// compaction summaries, keeping what the person typed (`Prompt`). Assistant text
/// is merged per `message.id`; `<synthetic>` replies are skipped. A
/// `compact_boundary` shadows everything before it; an `isCompactSummary`
/// line becomes the compact checkpoint. Other lines are inert.
pub fn read_surface(record: &SessionRecord) -> Result<Surface, ReadError> {
    let (builder, last) = fold(record, SurfaceBuilder::default())?;
    Ok(builder.finish(last))
}

/// [`read_surface`] into any sink: the sink and the seq of the last
/// complete line.
pub fn fold_surface<S: SurfaceSink>(
    record: &SessionRecord,
    sink: S,
) -> Result<(S, u64), ReadError> {
    let (builder, last) = fold(record, SurfaceBuilder::new(sink))?;
    Ok((builder.into_sink(), last))
}

fn fold<S: SurfaceSink>(
    record: &SessionRecord,
    builder: SurfaceBuilder<S>,
) -> Result<(SurfaceBuilder<S>, u64), ReadError> {
    let tools = builder.wants_tools();
    let mut fold = CompactionFold::new(builder);
    let last = foreign::fold_all_lines(
        &record.path,
        |bytes| line_says(bytes, tools),
        |seq, said| fold.apply(seq, said),
    )?;
    Ok((fold.finish(), last))
}

/// What a transcript line says to the surface, with what a later
/// compaction needs of it (and, when `tools`, the tool calls and results
/// it holds); `None` when it does not parse.
fn line_says(bytes: &[u8], tools: bool) -> Option<Said> {
    let line = Line::parse(bytes)?;
    let says = says(&line);
    let tools = if tools { line_tools(&line) } else { Vec::new() };
    Some(match says {
        LineSays::Shadow => Said {
            uuid: None,
            preserved: preserved_uuids(line.compact_metadata),
            says,
            tools,
        },
        LineSays::User(_) | LineSays::Assistant { .. } => Said {
            uuid: string(line.uuid),
            preserved: Vec::new(),
            says,
            tools,
        },
        _ => Said {
            uuid: None,
            preserved: Vec::new(),
            says,
            tools,
        },
    })
}

/// The tool calls (`assistant` lines' `tool_use` blocks) and results
/// (`user` lines' `tool_result` blocks) of a main-chain line.
fn line_tools(line: &Line<'_>) -> Vec<ToolEvent> {
    let main = !is_true(line.is_sidechain)
        && (is_str(line.kind, "user") || is_str(line.kind, "assistant"));
    match line.message().content {
        Some(content) if main => tools::in_blocks(content.0),
        _ => Vec::new(),
    }
}

/// What one transcript line says ([`LineSays`]), with its `uuid` when it
/// is a message a later compaction may keep, and for a `compact_boundary`
/// the uuids it keeps.
#[derive(Debug)]
struct Said {
    uuid: Option<String>,
    preserved: Vec<String>,
    says: LineSays,
    /// Its tool calls and results, read only for a sink that wants them.
    tools: Vec<ToolEvent>,
}

/// `compactMetadata.preservedMessages.uuids` of a `compact_boundary`
/// (Claude Code 2.1.332): the earlier lines the model still sees verbatim
/// after the summary.
fn preserved_uuids(metadata: Option<RawText<'_>>) -> Vec<String> {
    #[derive(Deserialize)]
    struct Metadata<'a> {
        #[serde(rename = "preservedMessages", borrow)]
        preserved: Option<Preserved<'a>>,
    }
    #[derive(Deserialize)]
    struct Preserved<'a> {
        #[serde(borrow)]
        uuids: Option<Vec<&'a RawValue>>,
    }
    let Some(raw) = metadata.filter(|raw| raw.0.starts_with('{')) else {
        return Vec::new();
    };
    serde_json::from_str::<Metadata<'_>>(raw.0)
        .ok()
        .and_then(|m| m.preserved?.uuids)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|uuid| string(Some(uuid)))
        .collect()
}

/// A [`SurfaceBuilder`] that also carries messages a `compact_boundary`
/// preserves past its checkpoint: the user and assistant lines since the
/// last compaction are kept by uuid; a boundary naming some of them puts
/// them, in their order, right after the compact checkpoint that follows
/// it (at the checkpoint's seq, the lines of one assistant message merged),
/// and shadows the rest as any boundary does.
struct CompactionFold<S> {
    builder: SurfaceBuilder<S>,
    /// User and assistant lines since the last compaction, by uuid.
    since_compaction: HashMap<String, (u64, LineSays)>,
    /// Lines a boundary preserved, waiting for its checkpoint, with the
    /// boundary's seq.
    pending: Option<(u64, Vec<(String, LineSays)>)>,
    /// A boundary preserved a uuid this fold did not see (it lies before
    /// where a resumed fold started).
    missed: bool,
}

impl<S: SurfaceSink> CompactionFold<S> {
    fn new(builder: SurfaceBuilder<S>) -> Self {
        CompactionFold {
            builder,
            since_compaction: HashMap::new(),
            pending: None,
            missed: false,
        }
    }

    fn apply(&mut self, seq: u64, said: Said) {
        self.apply_says(seq, said.uuid, said.preserved, said.says);
        for tool in said.tools {
            self.builder.tool(seq, tool);
        }
    }

    fn apply_says(
        &mut self,
        seq: u64,
        uuid: Option<String>,
        preserved: Vec<String>,
        says: LineSays,
    ) {
        match says {
            LineSays::Shadow => {
                let mut kept: Vec<(u64, String, LineSays)> = Vec::new();
                for uuid in preserved {
                    match self.since_compaction.get(&uuid) {
                        Some((at, says)) if !kept.iter().any(|(_, u, _)| *u == uuid) => {
                            kept.push((*at, uuid, says.clone()));
                        }
                        Some(_) => {}
                        None => self.missed = true,
                    }
                }
                kept.sort_by_key(|(at, ..)| *at);
                self.since_compaction.clear();
                self.pending = None;
                self.builder.shadow();
                if !kept.is_empty() {
                    let kept = kept.into_iter().map(|(_, u, says)| (u, says)).collect();
                    self.pending = Some((seq, kept));
                }
            }
            LineSays::Checkpoint(texts) => {
                self.builder.checkpoint(seq, texts);
                self.flush(seq);
            }
            says => {
                if let Some((boundary, _)) = self.pending {
                    // No checkpoint followed the boundary: the kept lines
                    // start the surface after it.
                    self.flush(boundary);
                }
                if let Some(uuid) = uuid {
                    self.since_compaction.insert(uuid, (seq, says.clone()));
                }
                self.builder.apply(seq, says);
            }
        }
    }

    /// Push the preserved lines at `seq`, one event per message (their
    /// merge keys are not reopened, so no later line extends them), and
    /// keep them for a later boundary that preserves them again.
    fn flush(&mut self, seq: u64) {
        let Some((_, kept)) = self.pending.take() else {
            return;
        };
        let mut merged: Vec<(Option<String>, LineSays)> = Vec::new();
        for (uuid, says) in kept {
            self.since_compaction.insert(uuid, (seq, says.clone()));
            if let LineSays::Assistant {
                key: Some(key),
                texts,
            } = &says
            {
                let same = merged.iter_mut().find_map(|(k, m)| match m {
                    LineSays::Assistant { texts: all, .. } if k.as_deref() == Some(key) => {
                        Some(all)
                    }
                    _ => None,
                });
                if let Some(all) = same {
                    all.extend(texts.iter().cloned());
                    continue;
                }
                merged.push((Some(key.clone()), says));
                continue;
            }
            merged.push((None, says));
        }
        for (_, says) in merged {
            match says {
                LineSays::Assistant { texts, .. } => self.builder.assistant(seq, None, texts),
                says => self.builder.apply(seq, says),
            }
        }
    }

    /// The builder, once the log is read (kept lines whose boundary had
    /// no checkpoint after it are pushed at the boundary).
    fn finish(mut self) -> SurfaceBuilder<S> {
        if let Some((boundary, _)) = self.pending {
            self.flush(boundary);
        }
        self.builder
    }
}

/// What a parsed transcript line says to the surface.
fn says(line: &Line<'_>) -> LineSays {
    if is_true(line.is_sidechain) {
        return LineSays::Nothing;
    }
    if is_str(line.kind, "user") {
        if is_true(line.is_compact_summary) {
            let texts = content_texts(line.message().content);
            if !texts.is_empty() {
                return LineSays::Checkpoint(texts);
            }
        } else if line.is_plain_user() {
            if let Prompt::Typed(typed) = Prompt::of(line.message().content) {
                return LineSays::User(typed);
            }
        }
    } else if is_str(line.kind, "assistant") {
        let message = line.message();
        if is_str(message.model, "<synthetic>") {
            return LineSays::Nothing;
        }
        return LineSays::Assistant {
            key: string(message.id),
            texts: content_texts(message.content),
        };
    } else if is_str(line.kind, "system") && is_str(line.subtype, "compact_boundary") {
        return LineSays::Shadow;
    }
    LineSays::Nothing
}

/// What a resumed fold of a transcript needs besides the lines before it:
/// the merge keys of the assistant messages since the last compaction.
#[derive(Debug, Default, Serialize, Deserialize)]
struct FoldState {
    merge_keys: Vec<(String, u64)>,
}

/// [`Store::fold_resumable`] for a plain transcript: the lines after
/// `from` (all of them without it) folded as [`read_surface`] folds them;
/// a resume point whenever the last line read was complete.
pub(super) fn fold_resumable(
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
    let mut fold = CompactionFold::new(SurfaceBuilder::resuming(Journal::new(0), state.merge_keys));
    let span = foreign::fold_lines_span(
        &record.path,
        offset,
        lines,
        Some(len),
        |bytes| line_says(bytes, false),
        |seq, said| {
            fold.apply(seq, said);
            Ok(())
        },
    )?;
    if continued && fold.missed {
        // A compaction preserved lines read before `from`, whose text this
        // fold does not have: read the whole log instead.
        return fold_resumable(record, len, None);
    }
    // Lines a boundary preserved wait for its checkpoint, which a resumed
    // fold would not know of: the next fold reads the whole log.
    let waiting = fold.pending.is_some();
    let builder = fold.finish();
    let resume = (span.clean && !waiting).then(|| {
        let state = FoldState {
            merge_keys: builder.merge_keys(),
        };
        ResumePoint {
            offset: span.end,
            lines: span.lines,
            state: crate::index::sealed::encode(&state).unwrap_or_default(),
        }
    });
    Ok(Folded {
        ops: builder.into_sink().into_ops(),
        chosen: 0,
        continued,
        resume,
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::{assistant, record_of, user, user_with, write, CWD};
    use super::super::title::head_title;
    use super::*;
    use crate::kinds::foreign::testing::texts;

    #[test]
    fn surface_keeps_direct_messages_and_merged_assistant_text() {
        let dir = tempfile::tempdir().unwrap();
        let lines = [
            user("u0", r#""<command-message>init is analyzing…</command-message>\n<command-name>/init</command-name>""#),
            r#"{"type":"user","isMeta":true,"message":{"content":[{"type":"text","text":"expanded command"}]},"uuid":"m1"}"#.into(),
            user("u1", r#"[{"type":"text","text":"fix the build"},{"type":"image","source":{}}]"#),
            assistant("a1", "msg_1", r#"[{"type":"thinking","thinking":"hm"},{"type":"text","text":"Looking."}]"#),
            assistant("a2", "msg_1", r#"[{"type":"tool_use","id":"t","name":"Bash","input":{}}]"#),
            user("u2", r#"[{"type":"tool_result","tool_use_id":"t","content":"ok"}]"#),
            assistant("a3", "msg_1", r#"[{"type":"text","text":"Fixed."}]"#),
            r#"{"type":"user","isSidechain":true,"message":{"content":"Warmup"},"uuid":"w"}"#.into(),
            r#"{"type":"assistant","isSidechain":true,"message":{"id":"msg_s","content":[{"type":"text","text":"side"}]}}"#.into(),
            user("u3", r#""<local-command-stdout>done</local-command-stdout>""#),
            user("u4", r#""Caveat: The messages below were generated""#),
            user("u5", r#"[{"type":"text","text":"<bash-input>ls</bash-input>"}]"#),
            user("u7", r#"[{"type":"text","text":"[Request interrupted by user for tool use]"}]"#),
            r#"{"type":"assistant","message":{"id":"msg_e","model":"<synthetic>","content":[{"type":"text","text":"API Error"}]}}"#.into(),
            r#"{"type":"progress","data":{"type":"hook_progress"}}"#.into(),
            r#"{"type":"a-future-type","sessionId":"s1"}"#.into(),
            "[1,2,3]".into(),
            "not json".into(),
            user("u6", r#""thanks""#),
        ];
        let path = write(dir.path(), "p/s1.jsonl", &lines);
        let surface = read_surface(&record_of(dir.path(), &path)).unwrap();
        assert_eq!(
            texts(&surface),
            [
                (3, "user", "fix the build".to_owned()),
                (4, "assistant", "Looking.\nFixed.".to_owned()),
                (19, "user", "thanks".to_owned()),
            ]
        );
        assert_eq!(surface.captured_through_seq, 19);
    }

    #[test]
    fn only_lines_the_person_authored_are_prompts() {
        // `rowSource` (2.1.332+): `local` and an absent field (older
        // versions) can be typed; every other author, known or not, cannot.
        let authored = |source: &str, text: &str| user_with("rowSource", source, text);
        let dir = tempfile::tempdir().unwrap();
        let lines = [
            authored(r#""harness""#, "Task finished in the background"),
            authored(r#""hook""#, "hook text"),
            authored(r#""recorded""#, "relayed from a teammate"),
            authored(r#""a-future-author""#, "unknown author"),
            authored(r#""local""#, "typed here"),
            authored("null", "no author"),
            user("u", r#""older version""#),
        ];
        let path = write(dir.path(), "p/s1.jsonl", &lines);
        let record = record_of(dir.path(), &path);
        assert_eq!(
            texts(&read_surface(&record).unwrap()),
            [
                (5, "user", "typed here".to_owned()),
                (6, "user", "no author".to_owned()),
                (7, "user", "older version".to_owned()),
            ]
        );
        assert_eq!(head_title(&path).unwrap().as_deref(), Some("typed here"));
    }

    #[test]
    fn only_human_origins_are_prompts() {
        // `origin` (2.1.332): Claude Code's own "the person wrote this" rule
        // takes a line with no origin or a `human` one; task notifications,
        // coordinator and peer messages, plugins and so on carry another
        // kind, often with no `rowSource` beside it.
        let from = |origin: &str, text: &str| user_with("origin", origin, text);
        let dir = tempfile::tempdir().unwrap();
        let lines = [
            from(
                r#"{"kind":"task-notification","source":"goal-checkin"}"#,
                "Goal check-in",
            ),
            from(r#"{"kind":"coordinator"}"#, "coordinator says"),
            from(r#"{"kind":"peer","senderTaskId":"t1"}"#, "peer says"),
            from(r#"{"kind":"a-future-kind"}"#, "unknown origin"),
            from(r#"{"source":"no kind"}"#, "origin without a kind"),
            from(r#""human""#, "origin not an object"),
            from(r#"{"kind":"human"}"#, "typed by a person"),
            from("null", "null origin"),
        ];
        let path = write(dir.path(), "p/s1.jsonl", &lines);
        let record = record_of(dir.path(), &path);
        assert_eq!(
            texts(&read_surface(&record).unwrap()),
            [
                (7, "user", "typed by a person".to_owned()),
                (8, "user", "null origin".to_owned()),
            ]
        );
        assert_eq!(
            head_title(&path).unwrap().as_deref(),
            Some("typed by a person")
        );
    }

    #[test]
    fn compaction_shadows_and_checkpoints() {
        let dir = tempfile::tempdir().unwrap();
        let lines = [
            user("u1", r#""first question""#),
            assistant("a1", "msg_1", r#"[{"type":"text","text":"old answer"}]"#),
            r#"{"type":"system","subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{"trigger":"auto"},"uuid":"b"}"#.into(),
            r#"{"type":"user","isCompactSummary":true,"isVisibleInTranscriptOnly":true,"message":{"role":"user","content":"This session is being continued. Summary: fixed the build."},"uuid":"c"}"#.into(),
            assistant("a2", "msg_1", r#"[{"type":"text","text":"after"}]"#),
            user("u2", r#""next""#),
        ];
        let path = write(dir.path(), "p/s1.jsonl", &lines);
        let mut content = std::fs::read_to_string(&path).unwrap();
        content.push_str(r#"{"type":"user","message":{"content":"tor"#);
        std::fs::write(&path, content).unwrap();
        let surface = read_surface(&record_of(dir.path(), &path)).unwrap();
        assert_eq!(
            texts(&surface),
            [
                (
                    4,
                    "checkpoint",
                    "This session is being continued. Summary: fixed the build.".to_owned()
                ),
                (5, "assistant", "after".to_owned()),
                (6, "user", "next".to_owned()),
            ]
        );
        assert_eq!(surface.captured_through_seq, 6);
    }

    /// A `compact_boundary` as Claude Code 2.1.332 writes it, preserving
    /// `uuids`.
    fn boundary(uuid: &str, anchor: &str, uuids: &[&str]) -> String {
        let uuids = serde_json::to_string(uuids).unwrap();
        format!(
            r#"{{"parentUuid":null,"logicalParentUuid":"p","isSidechain":false,"type":"system","subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,"level":"info","compactMetadata":{{"trigger":"manual","preTokens":12608,"preCompactOrganizationsCoverStart":false,"durationMs":80,"preservedSegment":{{"headUuid":"h","anchorUuid":"{anchor}","tailUuid":"t"}},"preservedMessages":{{"anchorUuid":"{anchor}","uuids":{uuids},"allUuids":{uuids}}},"postTokens":2614,"cumulativeDroppedTokens":9994}},"cwd":"{CWD}","sessionId":"s1","version":"2.1.332","uuid":"{uuid}","timestamp":"2026-01-11T09:54:00.000Z"}}"#
        )
    }

    fn compact_summary(uuid: &str, text: &str) -> String {
        format!(
            r#"{{"parentUuid":"b","isSidechain":false,"type":"user","message":{{"role":"user","content":"{text}"}},"isVisibleInTranscriptOnly":true,"isCompactSummary":true,"uuid":"{uuid}","timestamp":"2026-01-11T09:54:00.100Z","cwd":"{CWD}","sessionId":"s1"}}"#
        )
    }

    /// Lines of a transcript compacted twice, each boundary preserving
    /// some earlier lines (one of them a tool result, which the surface
    /// has no message for).
    fn preserving_transcript() -> Vec<String> {
        vec![
            user("u1", r#""first question""#),
            assistant("a1", "msg_1", r#"[{"type":"text","text":"answer one"}]"#),
            user("u2", r#""second question""#),
            assistant(
                "a2a",
                "msg_2",
                r#"[{"type":"thinking","thinking":"REASONING","signature":"s"}]"#,
            ),
            assistant("a2b", "msg_2", r#"[{"type":"text","text":"answer two"}]"#),
            user(
                "r1",
                r#"[{"type":"tool_result","tool_use_id":"t","content":"TOOL OUTPUT"}]"#,
            ),
            boundary("b1", "c1", &["u2", "a2a", "a2b", "r1"]),
            compact_summary("c1", "Summary one."),
            user(
                "u3",
                r#""<local-command-caveat>Caveat: The messages below were generated by the user while running local commands.</local-command-caveat>""#,
            ),
            user("u4", r#""after compaction prompt""#),
            assistant("a3", "msg_3", r#"[{"type":"text","text":"answer three"}]"#),
            boundary("b2", "c2", &["a2b", "u4"]),
            compact_summary("c2", "Summary two."),
            user("u5", r#""last prompt""#),
        ]
    }

    #[test]
    fn a_boundary_keeps_its_preserved_messages_after_the_checkpoint() {
        let dir = tempfile::tempdir().unwrap();
        let lines = preserving_transcript();
        let first = write(dir.path(), "p/s1.jsonl", &lines[..11]);
        let surface = read_surface(&record_of(dir.path(), &first)).unwrap();
        assert_eq!(
            texts(&surface),
            [
                (8, "checkpoint", "Summary one.".to_owned()),
                (8, "user", "second question".to_owned()),
                (8, "assistant", "answer two".to_owned()),
                (10, "user", "after compaction prompt".to_owned()),
                (11, "assistant", "answer three".to_owned()),
            ]
        );
        let path = write(dir.path(), "p/s2.jsonl", &lines);
        let surface = read_surface(&record_of(dir.path(), &path)).unwrap();
        let whole = [
            (13, "checkpoint", "Summary two.".to_owned()),
            (13, "assistant", "answer two".to_owned()),
            (13, "user", "after compaction prompt".to_owned()),
            (14, "user", "last prompt".to_owned()),
        ];
        assert_eq!(texts(&surface), whole);
        // A boundary without its checkpoint yet: the kept lines follow it.
        let cut = write(dir.path(), "p/s3.jsonl", &lines[..7]);
        assert_eq!(
            texts(&read_surface(&record_of(dir.path(), &cut)).unwrap()),
            [
                (7, "user", "second question".to_owned()),
                (7, "assistant", "answer two".to_owned()),
            ]
        );
        // Search's resumed fold reads what a whole read does, also when the
        // appended boundary preserves lines read before.
        let record = record_of(dir.path(), &path);
        let head_len = lines[..11].iter().map(|l| l.len() as u64 + 1).sum::<u64>();
        let head = fold_resumable(&record, head_len, None).unwrap();
        let rest = fold_resumable(
            &record,
            std::fs::metadata(&path).unwrap().len(),
            head.resume.as_ref(),
        )
        .unwrap();
        assert!(!rest.continued, "the whole log is read again");
        let replayed = crate::index::journal::replay(rest.ops, 0);
        assert_eq!(texts(&replayed.surface), whole);
    }
}
