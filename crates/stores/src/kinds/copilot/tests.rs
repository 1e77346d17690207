//! The rules of the GitHub Copilot CLI reader, on the fixture written by
//! Copilot CLI 1.0.102 (`tests/fixtures/copilot`, see its README) and on
//! events in the same shapes.

use super::line::says;
use super::*;
use crate::catalog::Catalog;
use crate::kinds::foreign::testing::texts;
use crate::roots::StoreRoots;
use std::io::Write;

/// The fixture's session-state directory.
fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/copilot/session-state")
}

fn catalog(root: &Path) -> Catalog {
    Catalog::load(&StoreRoots::new().with(KIND, root))
}

fn record<'a>(catalog: &'a Catalog, id: &str) -> &'a SessionRecord {
    catalog.find(id).unwrap_or_else(|| panic!("{id} listed"))
}

/// An event line as Copilot writes it (`type` first).
fn event(kind: &str, data: &str, extra: &str) -> String {
    format!(
        r#"{{"type":"{kind}","data":{data},"id":"e","timestamp":"2026-12-01T10:00:00.000Z","parentId":null{extra}}}"#
    )
}

fn start(id: &str, cwd: &str) -> String {
    format!(
        r#"{{"type":"session.start","data":{{"sessionId":"{id}","version":1,"producer":"copilot-agent","copilotVersion":"1.0.102","startTime":"2026-12-01T09:59:59.000Z","context":{{"cwd":"{cwd}"}}}},"id":"s","timestamp":"2026-12-01T10:00:00.000Z","parentId":null}}"#
    )
}

fn user(text: &str) -> String {
    event(
        "user.message",
        &format!(
            r#"{{"content":{},"transformedContent":{},"delivery":"idle"}}"#,
            serde_json::to_string(text).unwrap(),
            serde_json::to_string(&format!("<current_datetime>x</current_datetime>\n\n{text}"))
                .unwrap()
        ),
        "",
    )
}

fn assistant(text: &str) -> String {
    event(
        "assistant.message",
        &format!(
            r#"{{"content":{},"toolRequests":[],"reasoningText":"REASONING","apiCallId":"c1"}}"#,
            serde_json::to_string(text).unwrap()
        ),
        "",
    )
}

const ID: &str = "0b5e8a8e-1111-4222-8333-944445555666";

/// A session folder `ID` under a fresh root with these lines and, when
/// given, this `workspace.yaml`.
fn session(lines: &[String], workspace: Option<&str>) -> (tempfile::TempDir, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let folder = root.path().join(ID);
    std::fs::create_dir(&folder).unwrap();
    let events = folder.join(EVENTS);
    std::fs::write(&events, lines.join("\n") + "\n").unwrap();
    if let Some(yaml) = workspace {
        std::fs::write(folder.join(WORKSPACE), yaml).unwrap();
    }
    (root, events)
}

fn surface_of(catalog: &Catalog, id: &str) -> Vec<(u64, &'static str, String)> {
    texts(&catalog.read_surface(record(catalog, id)).unwrap())
}

#[test]
fn a_session_is_a_folder_with_events_starting_with_session_start() {
    let listed = catalog(&fixture());
    let ids: Vec<&str> = listed.ordered().map(|r| r.id.as_str()).collect();
    assert_eq!(ids.len(), 9, "{ids:?}");
    // A run that failed before its first event left a folder without
    // events.jsonl: reported, not listed.
    assert_eq!(listed.skipped.len(), 1);
    assert!(listed.skipped[0]
        .0
        .ends_with("db399d61-cbee-4a3b-84ac-86490e03307a"));
    assert!(listed.unreadable.is_empty());

    // A folder of another shape, a nested events.jsonl and hidden folders.
    let root = tempfile::tempdir().unwrap();
    let other = root.path().join("notes");
    std::fs::create_dir_all(other.join("files")).unwrap();
    std::fs::write(other.join(EVENTS), event("user.message", "{}", "") + "\n").unwrap();
    std::fs::write(other.join("files").join(EVENTS), start(ID, "/x") + "\n").unwrap();
    std::fs::create_dir(root.path().join(".session-operation-locks")).unwrap();
    std::fs::write(root.path().join("stray.txt"), "x").unwrap();
    let listed = catalog(root.path());
    assert!(listed.is_empty());
    assert_eq!(listed.skipped.len(), 1, "{:?}", listed.skipped);
    assert!(listed.skipped[0].1.contains("session.start"));
    // The nested file, if a walk finds it (the search index walks), is
    // not a session either.
    let nested = other.join("files").join(EVENTS);
    let root_arc: Arc<Path> = Arc::from(root.path());
    assert!(matches!(
        Copilot.list_file(&Caches::default(), &root_arc, &nested),
        ScanEvent::Skipped { .. }
    ));
    // An empty events.jsonl (Copilot about to write its first line).
    std::fs::write(other.join(EVENTS), "").unwrap();
    assert!(catalog(root.path()).is_empty());
}

#[test]
fn id_cwd_and_created_time() {
    let listed = catalog(&fixture());
    let one = record(&listed, "a77c0862-e142-49da-9cec-f4e56da9aff7");
    assert_eq!(one.cwd.as_deref(), Some("/home/dev/proj"));
    assert_eq!(one.created_at, "2026-12-01T18:54:12.530Z");
    // Continued from another directory: workspace.yaml follows the latest
    // run, as Copilot's own list does.
    let moved = record(&listed, "296c80ec-78c0-4e18-91fa-d2d417b45d82");
    assert_eq!(moved.cwd.as_deref(), Some("/home/dev/other dir ü"));

    // Without workspace.yaml: session.start's context.cwd.
    let (root, _) = session(&[start(ID, "/w/ü"), user("hi")], None);
    let listed = catalog(root.path());
    assert_eq!(record(&listed, ID).cwd.as_deref(), Some("/w/ü"));
    assert_eq!(record(&listed, ID).created_at, "2026-12-01T09:59:59.000Z");

    // A transcript outside the layout (a copied file): the sessionId.
    let loose = tempfile::tempdir().unwrap();
    let file = loose.path().join("copy").join(EVENTS);
    std::fs::create_dir(file.parent().unwrap()).unwrap();
    std::fs::write(&file, start(ID, "/w") + "\n" + &user("hi") + "\n").unwrap();
    let listed = catalog(&file);
    assert_eq!(listed.ordered().next().unwrap().id, ID);
    // The root may be one session folder too.
    let listed = catalog(file.parent().unwrap());
    assert_eq!(listed.len(), 1);
}

#[test]
fn titles_come_from_workspace_yaml_then_the_first_prompt() {
    let listed = catalog(&fixture());
    let title = |id: &str| listed.read_title(record(&listed, id)).unwrap();
    assert_eq!(
        title("0c684258-6d5b-48b3-bbf2-50e3e96192e3").as_deref(),
        Some("Renamed in the TUI")
    );
    // A fork is named after its parent by Copilot.
    assert_eq!(
        title("9acbf3aa-c0f1-4383-8f8f-3f8b2b8de29a").as_deref(),
        Some("My named session (fork)")
    );
    // A derived name holding the whole multi-line prompt (a `|-` block):
    // cut as a first-prompt title.
    assert_eq!(
        title("7cc72e90-3f38-4967-9070-b1514fd37edb").as_deref(),
        Some("first line: it's a \"quoted\" #hash")
    );
    // A double-quoted name with escapes.
    assert_eq!(
        title("bf94320b-2a71-4afd-b5ef-d1d6a4866895").as_deref(),
        Some("back\\\\slash \u{1} ctrl and emoji 🎉")
    );

    let lines = [
        start(ID, "/w"),
        user("  \n first typed\nmore"),
        assistant("a"),
    ];
    for (yaml, expected) in [
        (None, "first typed"),
        (Some("id: x\nname: yes\n"), "yes"),
        (Some("name: 123\n"), "123"),
        (Some("name: ''\n"), "first typed"),
        (Some("name: [not, a, scalar]\n"), "first typed"),
        (Some(": not yaml : ["), "first typed"),
        (Some("name: '  Renamed  '\nuser_named: true\n"), "Renamed"),
        (
            Some("name: >-\n  a folded name that js-yaml\n  wrote over two lines\n"),
            "a folded name that js-yaml wrote over two lines",
        ),
    ] {
        let (root, _) = session(&lines, yaml);
        let listed = catalog(root.path());
        let got = listed.read_title(record(&listed, ID)).unwrap();
        assert_eq!(got.as_deref(), Some(expected), "{yaml:?}");
    }

    // No name and no typed prompt (only a sub-agent's): no title.
    let lines = [
        start(ID, "/w"),
        event(
            "user.message",
            r#"{"content":"inner","source":"agent-x"}"#,
            "",
        ),
    ];
    let (root, _) = session(&lines, Some("id: x\n"));
    let listed = catalog(root.path());
    assert_eq!(listed.read_title(record(&listed, ID)).unwrap(), None);
}

#[test]
fn a_rename_is_seen_through_the_title_index_and_unchanged_sessions_are_kept() {
    let cache = tempfile::tempdir().unwrap();
    let lines = [start(ID, "/w"), user("first prompt")];
    let (root, events) = session(&lines, Some("name: first prompt\nuser_named: false\n"));
    let workspace = events.parent().unwrap().join(WORKSPACE);
    let age = |path: &Path| {
        let past = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        std::fs::File::options()
            .append(true)
            .open(path)
            .unwrap()
            .set_modified(past)
            .unwrap();
    };
    age(&events);
    age(&workspace);
    let title = || {
        let caches = Arc::new(Caches::default().with(TitleIndex::open(cache.path())));
        let listed = Catalog::load_with(caches, &StoreRoots::new().with(KIND, root.path()));
        let title = listed.read_title(record(&listed, ID)).unwrap();
        listed.save_index();
        title
    };
    assert_eq!(title().as_deref(), Some("first prompt"));
    // Unchanged stamps (length, time, inode): served from the index, the
    // files not read. Shown by changing a byte in place and restoring the
    // modification time, which no writer does.
    let same_stamp = |path: &Path, from: &str, to: &str| {
        let time = std::fs::metadata(path).unwrap().modified().unwrap();
        let text = std::fs::read_to_string(path).unwrap().replace(from, to);
        let mut file = std::fs::File::options().write(true).open(path).unwrap();
        file.write_all(text.as_bytes()).unwrap();
        file.set_modified(time).unwrap();
    };
    same_stamp(&workspace, "name: first", "name: FIRST");
    same_stamp(&events, "first prompt", "FIRST PROMPT");
    assert_eq!(title().as_deref(), Some("first prompt"));
    // A rename writes only workspace.yaml: seen.
    std::fs::write(&workspace, "name: Renamed\nuser_named: true\n").unwrap();
    age(&workspace);
    assert_eq!(title().as_deref(), Some("Renamed"));
}

#[test]
fn what_the_person_typed_and_what_was_injected() {
    let listed = catalog(&fixture());
    // A `task` sub-agent: its prompt (a `source`) and its reply (an
    // envelope `agentId`) are inline in the parent's log, and stay out.
    assert_eq!(
        surface_of(&listed, "c93df2b5-0196-45f4-8b34-a3806ad6d446")
            .iter()
            .map(|(_, who, text)| format!("{who}: {text}"))
            .collect::<Vec<_>>(),
        [
            r#"user: [[tool:task {"description":"sub job","prompt":"inner sub-agent prompt","agent_type":"general-purpose","name":"helper"}]]"#,
            "assistant: TOOL RESULT SEEN: ACK: inner sub-agent prompt",
        ]
    );
    // `@file` is kept as typed; the model's transformed text is not used.
    let file = surface_of(&listed, "557cedec-ec6f-4ca7-b9cf-98408a1fad39");
    assert_eq!(file[0].2, "look at @notes.txt please");
    // Reasoning stays out.
    let think = surface_of(&listed, "74865c20-f05a-4750-8ef3-37eee8f2a519");
    assert_eq!(think.len(), 2);
    assert!(think.iter().all(|(_, _, t)| !t.contains("MOCK REASONING")));
    // Non-ASCII, over a --continue (one session, one row).
    let continued = surface_of(&listed, "a77c0862-e142-49da-9cec-f4e56da9aff7");
    assert_eq!(continued.len(), 6);
    assert_eq!(continued[2].2, "second turn: ünïcödé 日本語 ✓");
    // `-p "/fork my fork"` is not run as a command: a prompt, as typed.
    assert_eq!(continued[4].2, "/fork my fork");

    let lines = [
        start(ID, "/w"),
        user("typed"),
        event(
            "user.message",
            r#"{"content":"skill text","source":"skill-pdf"}"#,
            "",
        ),
        event(
            "user.message",
            r#"{"content":"keep going","isAutopilotContinuation":true}"#,
            "",
        ),
        event(
            "user.message",
            r#"{"content":"not autopilot","isAutopilotContinuation":false}"#,
            "",
        ),
        event("user.message", r#"{"content":"   "}"#, ""),
        event(
            "user.message",
            r#"{"content":"sub","transformedContent":"sub"}"#,
            r#","agentId":"a1""#,
        ),
        event(
            "assistant.message",
            r#"{"content":"sub reply","parentToolCallId":"call_1"}"#,
            "",
        ),
        event(
            "assistant.message",
            r#"{"content":"","toolRequests":[{"name":"view"}]}"#,
            "",
        ),
        event(
            "tool.execution_complete",
            r#"{"toolCallId":"call_1","result":{"content":"TOOL OUTPUT"}}"#,
            "",
        ),
        event(
            "system.message",
            r#"{"role":"system","content":"SYSTEM"}"#,
            "",
        ),
        // Chunks of one model call are one message.
        event(
            "assistant.message",
            r#"{"content":"part one","apiCallId":"k","chunkIndex":0,"chunkCount":2}"#,
            "",
        ),
        event(
            "assistant.message",
            r#"{"content":"part two","apiCallId":"k","chunkIndex":1,"chunkCount":2}"#,
            "",
        ),
        // `type` not first: read by the parser all the same.
        r#"{"data":{"content":"spelled otherwise"},"type":"user.message"}"#.to_owned(),
    ];
    let (root, _) = session(&lines, None);
    let listed = catalog(root.path());
    let got: Vec<String> = surface_of(&listed, ID)
        .into_iter()
        .map(|(_, who, text)| format!("{who}: {text}"))
        .collect();
    assert_eq!(
        got,
        [
            "user: typed",
            "user: not autopilot",
            "assistant: part one\npart two",
            "user: spelled otherwise",
        ]
    );
}

#[test]
fn a_fork_is_a_session_of_its_own_holding_its_parents_turns() {
    let listed = catalog(&fixture());
    let fork = record(&listed, "9acbf3aa-c0f1-4383-8f8f-3f8b2b8de29a");
    assert_eq!(fork.created_at, "2026-12-01T19:44:50.507Z");
    let parent = surface_of(&listed, "0c684258-6d5b-48b3-bbf2-50e3e96192e3");
    let copied = surface_of(&listed, "9acbf3aa-c0f1-4383-8f8f-3f8b2b8de29a");
    let text = |s: &[(u64, &str, String)]| s.iter().map(|e| e.2.clone()).collect::<Vec<_>>();
    assert_eq!(text(&copied), text(&parent));
    assert_eq!(copied[0].2, "named one prompt");
    // The fork notice (`session.info`) is not conversation; it is the
    // fork's last activity.
    assert_eq!(
        last_activity(&fork.path),
        Instant::parse_rfc3339("2026-12-01T19:44:50.527Z")
    );
}

#[test]
fn compaction_shadows_earlier_events_and_checkpoints_its_summary() {
    let listed = catalog(&fixture());
    let compacted = surface_of(&listed, "296c80ec-78c0-4e18-91fa-d2d417b45d82");
    assert_eq!(compacted[0].1, "checkpoint");
    assert!(compacted[0].2.contains("MOCK SUMMARY"));
    assert_eq!(compacted[1].2, "continued from another dir");
    // Search keeps what it shadowed.
    let history = listed
        .read_history(record(&listed, "296c80ec-78c0-4e18-91fa-d2d417b45d82"))
        .unwrap();
    assert_eq!(history.shadowed.len(), 2);

    let lines = [
        start(ID, "/w"),
        user("before"),
        event(
            "session.compaction_complete",
            r#"{"success":false,"error":"boom"}"#,
            "",
        ),
        user("still here"),
        event("session.compaction_complete", r#"{"success":true}"#, ""),
        user("after"),
    ];
    let (root, _) = session(&lines, None);
    let listed = catalog(root.path());
    let got: Vec<String> = surface_of(&listed, ID).into_iter().map(|e| e.2).collect();
    assert_eq!(got, ["after"]);
}

#[test]
fn a_torn_last_line_is_left_for_later() {
    let lines = [start(ID, "/w"), user("one"), assistant("two")];
    let (root, events) = session(&lines, None);
    let before = catalog(root.path());
    let whole = before.read_surface(record(&before, ID)).unwrap();
    let mut file = std::fs::File::options().append(true).open(&events).unwrap();
    file.write_all(br#"{"type":"user.message","data":{"content":"half"#)
        .unwrap();
    let after = catalog(root.path());
    assert_eq!(after.read_surface(record(&after, ID)).unwrap(), whole);
    assert_eq!(whole.captured_through_seq, 3);
    // A torn skipped event (a large system.message being written) too.
    let (root, events) = session(&lines, None);
    let mut file = std::fs::File::options().append(true).open(&events).unwrap();
    file.write_all(br#"{"type":"system.message","data":{"content":"You are"#)
        .unwrap();
    let after = catalog(root.path());
    let surface = after.read_surface(record(&after, ID)).unwrap();
    assert_eq!(surface.captured_through_seq, 3);
}

#[test]
fn last_activity_is_the_newest_event_time() {
    let listed = catalog(&fixture());
    let path = &record(&listed, "a77c0862-e142-49da-9cec-f4e56da9aff7").path;
    assert_eq!(
        last_activity(path),
        Instant::parse_rfc3339("2026-12-01T19:44:31.365Z")
    );
    let (_root, events) = session(&[r#"{"type":"x"}"#.to_owned()], None);
    assert_eq!(last_activity(&events), None);
}

#[test]
fn default_roots_follow_copilot_home() {
    let home = Path::new("/home/u");
    assert_eq!(
        Copilot.default_roots(&|_| None, Some(home)),
        [PathBuf::from("/home/u/.copilot/session-state")]
    );
    let env = |k: &str| (k == "COPILOT_HOME").then(|| "/c".to_owned());
    assert_eq!(
        Copilot.default_roots(&env, Some(home)),
        [PathBuf::from("/c/session-state")]
    );
}

#[test]
fn the_fast_type_check_agrees_with_the_parser() {
    for line in [
        event("system.message", r#"{"content":"x"}"#, ""),
        event("user.message", r#"{"content":"x"}"#, ""),
        event(
            "assistant.message",
            r#"{"content":"x"}"#,
            r#","agentId":"a""#,
        ),
        r#"{"type":"a\"b","data":{}}"#.to_owned(),
        r#"{"type":"model.x","data":{"#.to_owned(),
    ] {
        let fast = line_says(line.as_bytes());
        let slow = Line::parse(line.as_bytes()).map(|l| says(&l));
        assert_eq!(fast, slow, "{line}");
    }
}

#[test]
fn search_folds_resume_where_the_log_grew() {
    use crate::index::journal::replay;
    let chunk = |n: u32, of: u32, text: &str| {
        event(
            "assistant.message",
            &format!(
                r#"{{"content":"{text}","apiCallId":"k","chunkIndex":{n},"chunkCount":{of}}}"#
            ),
            "",
        )
    };
    let first = [start(ID, "/w"), user("one"), chunk(0, 2, "part one")];
    let more = [
        chunk(1, 2, "part two"),
        event(
            "session.compaction_complete",
            r#"{"summaryContent":"S"}"#,
            "",
        ),
        user("two"),
    ];
    let (root, events) = session(&first, None);
    let listed = catalog(root.path());
    let record = record(&listed, ID).clone();
    let len = std::fs::metadata(&events).unwrap().len();
    let head = Copilot
        .fold_resumable(&Caches::default(), &record, len, None)
        .unwrap();
    let point = head.resume.clone().expect("a clean end resumes");
    let mut file = std::fs::File::options().append(true).open(&events).unwrap();
    file.write_all((more.join("\n") + "\n").as_bytes()).unwrap();
    let len = std::fs::metadata(&events).unwrap().len();
    let tail = Copilot
        .fold_resumable(&Caches::default(), &record, len, Some(&point))
        .unwrap();
    assert!(tail.continued);
    let mut ops = head.ops;
    ops.extend(tail.ops);
    let resumed = replay(ops, 0);
    let whole = replay(
        Copilot
            .fold_resumable(&Caches::default(), &record, len, None)
            .unwrap()
            .ops,
        0,
    );
    assert_eq!(resumed.surface.events, whole.surface.events);
    assert_eq!(resumed.shadowed, whole.shadowed);
    let kept: Vec<String> = texts(&resumed.surface).into_iter().map(|e| e.2).collect();
    assert_eq!(kept, ["S", "two"]);
    let shadowed = Surface {
        events: resumed.shadowed,
        captured_through_seq: 0,
    };
    let gone: Vec<String> = texts(&shadowed).into_iter().map(|e| e.2).collect();
    assert_eq!(gone, ["one", "part one\npart two"]);
}
