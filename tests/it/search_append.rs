//! The search index reads only what was appended to a log, and is exact:
//! for every store kind, a log written in that store's shape and cut at
//! random line boundaries into successive appends is indexed after each
//! append, and the indexed conversation (what search matches) must equal
//! the one a whole read of the log gives (`search --no-index`). Appends
//! bring compactions, titles, replies continued across the cut, repeated
//! prompts; for the kinds that resume (native, Claude Code, Codex), every
//! append must be read from where the previous read stopped.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::Path;

use proptest::prelude::*;
use serde_json::json;

use session_ref::search::hits;
use session_ref::search::query::{Query, Syntax};
use session_ref_stores::search::extract;
use session_ref_stores::search::index::{self, Index, Lookup};
use session_ref_stores::{
    kinds::claude, kinds::codex, kinds::gemini, kinds::native, Catalog, StoreKind, StoreRoots,
};

/// Texts from a small pool, so that prompts repeat (before and after a
/// compaction) and some are empty or span lines.
fn text() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "retry policy",
        "alpha beta",
        "alpha beta",
        "multi\nline answer",
        "naïve ✓ unicode",
        "",
        "xylophone",
    ])
    .prop_map(str::to_owned)
}

/// Append `lines` to `path`, one `\n`-ended line each.
fn append(path: &Path, lines: &[String]) {
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    for line in lines {
        writeln!(file, "{line}").unwrap();
    }
}

/// Index `log` after each append of `lines` cut at `cuts`, and compare.
fn appends_read_as_whole_logs(
    kind: StoreKind,
    root: &Path,
    log: &Path,
    lines: &[String],
    cuts: &[usize],
    resumes: bool,
) -> Result<(), TestCaseError> {
    let cache = tempfile::tempdir().unwrap();
    let roots = StoreRoots::new().with(kind, root);
    let query = Query::parse("alpha", Syntax::Words).unwrap();
    let mut bounds: Vec<usize> = cuts.iter().map(|c| c % lines.len()).collect();
    bounds.push(lines.len());
    bounds.retain(|&b| b > 0);
    bounds.sort_unstable();
    bounds.dedup();
    let mut written = 0;
    for (step, &bound) in bounds.iter().enumerate() {
        append(log, &lines[written..bound]);
        written = bound;
        let catalog = Catalog::load(&roots);
        let record = catalog
            .ordered()
            .find(|r| r.path == log)
            .expect("the log is listed")
            .clone();
        let whole = extract::conversation(&catalog.read_history(&record).unwrap());
        let index = Index::open(cache.path());
        let Lookup::Stale(stale) = index.lookup(&record).unwrap() else {
            return Err(TestCaseError::fail("an appended log is indexed as current"));
        };
        if resumes && step > 0 {
            prop_assert!(
                stale.continuation.is_some(),
                "append {step} is not read from where the last read stopped"
            );
        }
        let read = index.read_stale(&catalog, &record, stale).unwrap();
        let read = index::messages(&read.journal, read.chosen).unwrap();
        prop_assert_eq!(&read, &whole, "read at append {}", step);
        prop_assert!(index.commit(None).unwrap());
        let index = Index::open(cache.path());
        let Lookup::Current(indexed) = index.lookup(&record).unwrap() else {
            return Err(TestCaseError::fail("a committed log is not current"));
        };
        let stored = index::messages(&indexed.journal, indexed.chosen).unwrap();
        prop_assert_eq!(&stored, &whole, "indexed at append {}", step);
        prop_assert_eq!(
            hits::match_session(&query, &stored),
            hits::match_session(&query, &whole)
        );
    }
    Ok(())
}

// --- native ---------------------------------------------------------------

#[derive(Debug, Clone)]
enum NativeLine {
    User(String),
    Assistant(String),
    Chunk,
    Tool(String),
    Title(String),
    /// A compaction through `back` seqs before the last one, and its summary.
    Compact(u64, String),
}

fn native_line() -> impl Strategy<Value = NativeLine> {
    prop_oneof![
        3 => text().prop_map(NativeLine::User),
        3 => text().prop_map(NativeLine::Assistant),
        1 => Just(NativeLine::Chunk),
        1 => text().prop_map(NativeLine::Tool),
        1 => text().prop_map(NativeLine::Title),
        1 => (0..6u64, text()).prop_map(|(back, t)| NativeLine::Compact(back, t)),
    ]
}

fn native_log(steps: &[NativeLine]) -> Vec<String> {
    let mut lines = vec![json!({"type": "session", "version": 1, "id": "grow",
        "createdAt": "2026-01-01T00:00:00Z", "cwd": "/w"})
    .to_string()];
    let mut seq = 0u64;
    let mut line = |kind: &str, data: serde_json::Value| {
        seq += 1;
        lines.push(json!({"seq": seq, "type": kind, "data": data}).to_string());
        seq
    };
    for step in steps {
        match step {
            NativeLine::User(t) => line(
                "user/message",
                json!({"id": "u", "source": {"kind": "user"},
                "content": [{"type": "text", "text": t}]}),
            ),
            NativeLine::Assistant(t) => line(
                "assistant/message",
                json!({"message": {"id": "a",
                "content": [{"type": "reasoning", "text": "hidden alpha"}, {"type": "text", "text": t}]}}),
            ),
            NativeLine::Chunk => line(
                "assistant/chunk",
                json!({"messageId": "a", "delta": "alpha"}),
            ),
            NativeLine::Tool(t) => line(
                "tool/result",
                json!({"toolCallId": "c",
                "content": [{"type": "text", "text": t}]}),
            ),
            NativeLine::Title(t) => line("session/title", json!({"title": t})),
            NativeLine::Compact(back, t) => {
                let last = line("tool/result", json!({"toolCallId": "c", "content": []}));
                line(
                    "session/compact",
                    json!({"throughSeq": last.saturating_sub(*back).max(1)}),
                );
                line(
                    "user/message",
                    json!({"id": "k", "source": {"kind": "compaction",
                    "marker": "@hydraharness/harness-compaction"},
                    "content": [{"type": "text", "text": format!("Summary: {t}")}]}),
                )
            }
        };
    }
    lines
}

// --- Claude Code ----------------------------------------------------------

#[derive(Debug, Clone)]
enum ClaudeLine {
    User(String),
    /// One line of assistant message `msg_N` (replies span several lines,
    /// merged by id): a text block, or a thinking block when `None`.
    Assistant(u8, Option<String>),
    ToolResult(String),
    Sidechain(String),
    Title(String),
    Compact(String),
}

fn claude_line() -> impl Strategy<Value = ClaudeLine> {
    prop_oneof![
        3 => text().prop_map(ClaudeLine::User),
        4 => (0..4u8, prop::option::weighted(0.8, text())).prop_map(|(m, t)| ClaudeLine::Assistant(m, t)),
        1 => text().prop_map(ClaudeLine::ToolResult),
        1 => text().prop_map(ClaudeLine::Sidechain),
        1 => text().prop_map(ClaudeLine::Title),
        1 => text().prop_map(ClaudeLine::Compact),
    ]
}

fn claude_log(steps: &[ClaudeLine]) -> Vec<String> {
    let common = |kind: &str, n: usize| {
        json!({"parentUuid": null, "isSidechain": false, "userType": "external", "cwd": "/w",
            "sessionId": "grow", "version": "2.1.328", "type": kind, "uuid": format!("u{n}"),
            "timestamp": "2026-01-01T00:00:00Z"})
    };
    let with = |mut base: serde_json::Value, extra: serde_json::Value| {
        for (k, v) in extra.as_object().unwrap() {
            base[k] = v.clone();
        }
        base.to_string()
    };
    let mut lines = vec![with(
        common("user", 0),
        json!({"message": {"role": "user", "content": "alpha first"}}),
    )];
    for (n, step) in steps.iter().enumerate() {
        let line = match step {
            ClaudeLine::User(t) => with(
                common("user", n),
                json!({"message": {"role": "user", "content": t}}),
            ),
            ClaudeLine::Assistant(m, t) => {
                let block = match t {
                    Some(t) => json!({"type": "text", "text": t}),
                    None => {
                        json!({"type": "thinking", "thinking": "alpha hidden", "signature": "s"})
                    }
                };
                with(
                    common("assistant", n),
                    json!({"message": {"model": "claude-sonnet-4-5",
                    "id": format!("msg_{m}"), "type": "message", "role": "assistant", "content": [block]}}),
                )
            }
            ClaudeLine::ToolResult(t) => with(
                common("user", n),
                json!({"message": {"role": "user",
                "content": [{"tool_use_id": "t", "type": "tool_result", "content": t}]}}),
            ),
            ClaudeLine::Sidechain(t) => with(
                common("user", n),
                json!({"isSidechain": true,
                "message": {"role": "user", "content": t}}),
            ),
            ClaudeLine::Title(t) => {
                json!({"type": "custom-title", "customTitle": t, "sessionId": "grow"}).to_string()
            }
            ClaudeLine::Compact(t) => {
                lines.push(with(
                    common("system", n),
                    json!({"subtype": "compact_boundary",
                    "content": "Conversation compacted"}),
                ));
                with(
                    common("user", n),
                    json!({"isCompactSummary": true,
                    "message": {"role": "user", "content": format!("Summary: {t}")}}),
                )
            }
        };
        lines.push(line);
    }
    lines
}

// --- Codex ----------------------------------------------------------------

#[derive(Debug, Clone)]
enum CodexLine {
    ItemUser(String),
    EventUser(String),
    ItemAssistant(String),
    EventAssistant(String),
    Reasoning,
    ToolOutput(String),
    Title(String),
    /// A compaction with a summary, or with an empty one and a
    /// replacement history of (prompt, reply).
    Compacted(Option<String>, String, String),
}

fn codex_line() -> impl Strategy<Value = CodexLine> {
    prop_oneof![
        2 => text().prop_map(CodexLine::ItemUser),
        3 => text().prop_map(CodexLine::EventUser),
        2 => text().prop_map(CodexLine::ItemAssistant),
        3 => text().prop_map(CodexLine::EventAssistant),
        1 => Just(CodexLine::Reasoning),
        1 => text().prop_map(CodexLine::ToolOutput),
        1 => text().prop_map(CodexLine::Title),
        1 => (prop::option::of(text()), text(), text()).prop_map(|(s, u, a)| CodexLine::Compacted(s, u, a)),
    ]
}

const CODEX_ID: &str = "019c0000-0000-7000-8000-0000000000aa";

fn codex_log(steps: &[CodexLine]) -> Vec<String> {
    let line = |kind: &str, payload: serde_json::Value| {
        json!({"timestamp": "2026-01-01T00:00:00.000Z", "type": kind, "payload": payload})
            .to_string()
    };
    let message = |role: &str, block: &str, t: &str| json!({"type": "message", "role": role, "content": [{"type": block, "text": t}]});
    let mut lines = vec![line(
        "session_meta",
        json!({"id": CODEX_ID,
        "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w", "originator": "codex_cli_rs"}),
    )];
    for step in steps {
        lines.push(match step {
            CodexLine::ItemUser(t) => line("response_item", message("user", "input_text", t)),
            CodexLine::EventUser(t) => line("event_msg", json!({"type": "user_message", "message": t, "images": []})),
            CodexLine::ItemAssistant(t) => line("response_item", message("assistant", "output_text", t)),
            CodexLine::EventAssistant(t) => line("event_msg", json!({"type": "agent_message", "message": t})),
            CodexLine::Reasoning => line("response_item", json!({"type": "reasoning",
                "summary": [{"type": "summary_text", "text": "alpha hidden"}]})),
            CodexLine::ToolOutput(t) => line("response_item", json!({"type": "function_call_output",
                "call_id": "c", "output": t})),
            CodexLine::Title(t) => line("event_msg", json!({"type": "thread_name_updated",
                "thread_id": CODEX_ID, "thread_name": t})),
            CodexLine::Compacted(summary, u, a) => line("compacted", json!({
                "message": summary.clone().unwrap_or_default(),
                "replacement_history": [message("user", "input_text", u), message("assistant", "output_text", a)]})),
        });
    }
    lines
}

// --- Gemini CLI -----------------------------------------------------------

#[derive(Debug, Clone)]
enum GeminiLine {
    User(String),
    Gemini(String),
    /// A message rewritten in place (an upsert of an earlier id).
    Rewrite(u8, String),
}

fn gemini_line() -> impl Strategy<Value = GeminiLine> {
    prop_oneof![
        3 => text().prop_map(GeminiLine::User),
        3 => text().prop_map(GeminiLine::Gemini),
        1 => (0..4u8, text()).prop_map(|(i, t)| GeminiLine::Rewrite(i, t)),
    ]
}

fn gemini_log(steps: &[GeminiLine]) -> Vec<String> {
    let mut lines = vec![json!({"sessionId": "c0ffee09-0000-4000-8000-000000000009",
        "projectHash": "p", "startTime": "2026-01-01T00:00:00.000Z",
        "lastUpdated": "2026-01-01T00:00:00.000Z"})
    .to_string()];
    for (n, step) in steps.iter().enumerate() {
        let (id, kind, t) = match step {
            GeminiLine::User(t) => (format!("m{n}"), "user", t),
            GeminiLine::Gemini(t) => (format!("m{n}"), "gemini", t),
            GeminiLine::Rewrite(i, t) => (format!("m{i}"), "gemini", t),
        };
        lines.push(
            json!({"id": id, "timestamp": "2026-01-01T00:00:01.000Z", "type": kind,
            "content": [{"text": t}]})
            .to_string(),
        );
    }
    lines
}

fn cuts() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0..200usize, 1..8)
}

proptest! {
    #![proptest_config(crate::support::proptest_config(48))]

    #[test]
    fn native_appends_index_as_whole_reads(
        steps in prop::collection::vec(native_line(), 1..40),
        cuts in cuts(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("grow.jsonl");
        appends_read_as_whole_logs(native::KIND, dir.path(), &log, &native_log(&steps), &cuts, true)?;
    }

    #[test]
    fn claude_appends_index_as_whole_reads(
        steps in prop::collection::vec(claude_line(), 1..40),
        cuts in cuts(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("-w");
        fs::create_dir(&folder).unwrap();
        let log = folder.join("grow.jsonl");
        appends_read_as_whole_logs(claude::KIND, dir.path(), &log, &claude_log(&steps), &cuts, true)?;
    }

    #[test]
    fn codex_appends_index_as_whole_reads(
        steps in prop::collection::vec(codex_line(), 1..40),
        cuts in cuts(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("2026/01/01");
        fs::create_dir_all(&folder).unwrap();
        let log = folder.join(format!("rollout-2026-01-01T00-00-00-{CODEX_ID}.jsonl"));
        appends_read_as_whole_logs(codex::KIND, dir.path(), &log, &codex_log(&steps), &cuts, true)?;
    }

    /// Gemini CLI chats are replayed with upserts and rewinds that change
    /// earlier messages: read whole at each change, and still exact.
    #[test]
    fn gemini_appends_index_as_whole_reads(
        steps in prop::collection::vec(gemini_line(), 1..24),
        cuts in cuts(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("tmp/p/chats");
        fs::create_dir_all(&folder).unwrap();
        let log = folder.join("session-2026-01-01T00-00-c0ffee09.jsonl");
        appends_read_as_whole_logs(gemini::KIND, dir.path(), &log, &gemini_log(&steps), &cuts, false)?;
    }
}

/// A log rewritten in place and made longer (same inode) is not taken for
/// an append: the bytes before the resume point changed, so it is read
/// whole, and still indexed exactly.
#[test]
fn a_rewritten_log_that_grew_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let folder = dir.path().join("-w");
    fs::create_dir(&folder).unwrap();
    let log = folder.join("grow.jsonl");
    let steps = [
        ClaudeLine::User("alpha beta".into()),
        ClaudeLine::Assistant(1, Some("retry policy".into())),
    ];
    let lines = claude_log(&steps);
    append(&log, &lines);
    let roots = StoreRoots::new().with(claude::KIND, dir.path());
    let read = |expect_continuation: bool| {
        let catalog = Catalog::load(&roots);
        let record = catalog.ordered().next().unwrap().clone();
        let index = Index::open(cache.path());
        let Lookup::Stale(stale) = index.lookup(&record).unwrap() else {
            panic!("current")
        };
        assert_eq!(stale.continuation.is_some(), expect_continuation);
        let indexed = index.read_stale(&catalog, &record, stale).unwrap();
        let whole = extract::conversation(&catalog.read_history(&record).unwrap());
        assert_eq!(
            index::messages(&indexed.journal, indexed.chosen).unwrap(),
            whole
        );
        index.commit(None).unwrap();
    };
    read(false);
    append(&log, &claude_log(&[ClaudeLine::User("more".into())])[1..]);
    read(true);
    // Same inode, same length first, then longer: "alpha" becomes "omega".
    let mut bytes = fs::read(&log).unwrap();
    let at = bytes.windows(5).position(|w| w == b"alpha").unwrap();
    bytes[at..at + 5].copy_from_slice(b"omega");
    let mut file = OpenOptions::new().write(true).open(&log).unwrap();
    file.write_all(&bytes).unwrap();
    drop(file);
    append(&log, &claude_log(&[ClaudeLine::User("again".into())])[1..]);
    read(false);
}

/// A compressed Codex rollout is read whole (its file length says nothing
/// of its lines), and indexed exactly.
#[test]
fn a_compressed_rollout_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let folder = dir.path().join("2026/01/01");
    fs::create_dir_all(&folder).unwrap();
    let log = folder.join(format!("rollout-2026-01-01T00-00-00-{CODEX_ID}.jsonl.zst"));
    let steps: Vec<CodexLine> = (0..200)
        .map(|i| CodexLine::ItemAssistant(format!("reply {i} alpha")))
        .collect();
    let text = codex_log(&steps).join("\n") + "\n";
    fs::write(&log, zstd::encode_all(text.as_bytes(), 3).unwrap()).unwrap();
    let catalog = Catalog::load(&StoreRoots::new().with(codex::KIND, dir.path()));
    let record = catalog.ordered().next().unwrap().clone();
    let index = Index::open(cache.path());
    let Lookup::Stale(stale) = index.lookup(&record).unwrap() else {
        panic!("current")
    };
    let indexed = index.read_stale(&catalog, &record, stale).unwrap();
    let whole = extract::conversation(&catalog.read_history(&record).unwrap());
    assert_eq!(whole.len(), 200);
    assert_eq!(
        index::messages(&indexed.journal, indexed.chosen).unwrap(),
        whole
    );
}
