//! The loop on a `TestBackend`: injected events in, the exit out, with the
//! real engine behind it (fixture store).

use crossbeam_channel as mpsc;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;

use super::*;
use crate::commands;
use crate::config::{Command, Config};
use crate::tui::testkit;
use session_ref_core::mention::format_mention;
use session_ref_engine::engine::render_text;
use session_ref_stores::search::index::Index;
use session_ref_stores::{Caches, StoreRoots};

/// Titles now, the editor as a function.
struct SyncHost {
    editor: fn(&str) -> std::result::Result<String, String>,
}

impl Host for SyncHost {
    fn edit(&mut self, text: &str) -> std::result::Result<String, String> {
        (self.editor)(text)
    }

    fn read_titles(
        &mut self,
        batch: Vec<(EntryId, SessionRecord)>,
    ) -> Option<Vec<(EntryId, Option<String>)>> {
        Some(read_titles(&Caches::default(), &batch))
    }
}

fn key(code: KeyCode, mods: KeyModifiers) -> Msg {
    Msg::Input(Event::Key(KeyEvent::new(code, mods)))
}

fn text(s: &str) -> Vec<Msg> {
    s.chars()
        .map(|c| key(KeyCode::Char(c), KeyModifiers::NONE))
        .collect()
}

/// A driver over the fixture store whose channel already holds discovery
/// and then `inputs`.
fn driver(
    inputs: Vec<Msg>,
    editor: fn(&str) -> std::result::Result<String, String>,
) -> Driver<TestBackend, SyncHost> {
    let (tx, rx) = mpsc::unbounded();
    for event in testkit::scan_fixtures() {
        tx.send(Msg::Found(event, None)).unwrap();
    }
    tx.send(Msg::ScanDone).unwrap();
    for msg in inputs {
        tx.send(msg).unwrap();
    }
    let setup = testkit::setup();
    let (limits, target) = (setup.limits, setup.target.clone());
    Driver::new(
        Terminal::new(TestBackend::new(80, 24)).unwrap(),
        SyncHost { editor },
        State::new(setup),
        (tx, rx),
        limits,
        target,
    )
}

#[test]
fn typed_mentions_are_submitted_as_prepare_writes_them() {
    let mut inputs = text("parser");
    inputs.push(key(KeyCode::Enter, KeyModifiers::NONE));
    inputs.push(key(KeyCode::Char('u'), KeyModifiers::CONTROL));
    inputs.extend(text("budget"));
    inputs.push(key(KeyCode::Enter, KeyModifiers::NONE));
    inputs.push(key(KeyCode::Char('e'), KeyModifiers::ALT));
    inputs.push(key(KeyCode::Enter, KeyModifiers::ALT));
    let (exit, report) = driver(inputs, |t| Ok(format!("{t}and say why")))
        .run()
        .unwrap();
    let buffer = format!(
        "{} {} and say why",
        format_mention("7f3a-parser", Some("Fix the mention parser")),
        format_mention("b2c9-budget", Some("Byte budget retention")),
    );
    let engine = testkit::engine(testkit::setup().limits);
    let expected = render_text(&engine.prepare_text(&buffer).unwrap());
    assert_eq!(exit, Exit::Submit(expected));
    assert!(report.listed.unreadable.is_empty());
    assert_eq!(report.listed.skipped.len(), 1);
}

#[test]
fn a_failed_prepare_keeps_the_picker_open_with_the_prompt() {
    // The broken session cannot be read, so preparing a message citing it fails.
    let mut inputs = text("half");
    inputs.push(key(KeyCode::Enter, KeyModifiers::NONE));
    inputs.push(key(KeyCode::Char('s'), KeyModifiers::CONTROL));
    let mut picker = driver(inputs, |t| Ok(t.to_owned()));
    while let Ok(msg) = picker.rx.try_recv() {
        assert_eq!(picker.handle(msg).unwrap(), None);
    }
    assert_eq!(picker.state.submit, crate::tui::model::Submit::Preparing);
    let prompt = picker.state.prompt().text().to_owned();
    loop {
        let msg = picker.rx.recv().unwrap();
        let done = matches!(msg, Msg::Prepared(_));
        assert_eq!(picker.handle(msg).unwrap(), None);
        if done {
            break;
        }
    }
    let flash = picker.state.flash.clone().unwrap();
    assert!(flash.error && flash.text.starts_with("SESSION_REFERENCE_READ_FAILED"));
    assert_eq!(picker.state.prompt().text(), prompt);
    assert!(prompt.contains(&format_mention("f7a4-broken", Some("Half-written session"))));
    let esc = key(KeyCode::Esc, KeyModifiers::NONE);
    assert_eq!(picker.handle(esc).unwrap(), Some(Exit::Abort));
}

#[test]
fn a_signal_ends_the_run_as_cancelled() {
    let err = driver(vec![Msg::Signal("SIGTERM")], |t| Ok(t.to_owned()))
        .run()
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Cancelled);
    assert!(err.message.contains("SIGTERM"));
}

#[test]
fn previews_are_what_the_preview_command_reports() {
    let mut picker = driver(Vec::new(), |t| Ok(t.to_owned()));
    // Discovery as the loop sees it, so previews use the full catalog.
    while let Ok(msg) = picker.rx.try_recv() {
        picker.handle(msg).unwrap();
    }
    let records: Vec<SessionRecord> = picker.state.catalog().ordered().cloned().collect();
    let config = Config {
        roots: StoreRoots::new().with(
            session_ref_stores::kinds::native::KIND,
            testkit::fixture_dir(),
        ),
        roots_explicit: true,
        looked_at: StoreRoots::default(),
        limits: testkit::setup().limits,
        target: testkit::setup().target,
        verbose: false,
        cache_dir: None,
        remotes: Default::default(),
        keep: Default::default(),
        command: Command::UriEncode(String::new()),
    };
    let (tx, answers) = mpsc::unbounded();
    picker.tx = tx;
    for record in &records {
        let label = format!("label of {}", record.id);
        let key = PreviewKey {
            session_id: record.id.clone(),
            label: label.clone(),
        };
        *picker.wanted.lock().unwrap() = Some(key.clone());
        picker.load_preview(key.clone(), record.clone());
        let Ok(Msg::Preview(got_key, got)) = answers.recv() else {
            panic!("no preview")
        };
        assert_eq!(got_key, key);
        let mut config = config.clone();
        config.command = Command::Preview {
            id: record.id.clone(),
            label: Some(label),
            json: true,
            redact: false,
        };
        let cli = commands::run(&config, None);
        match (got, cli) {
            (Ok(snapshot), Ok(json)) => {
                let value: serde_json::Value = serde_json::from_str(&json).unwrap();
                assert_eq!(value["context"], snapshot.context.text.as_str());
                assert_eq!(
                    value["reference"],
                    serde_json::to_value(snapshot.stats().unwrap()).unwrap()
                );
            }
            (Err(a), Err(b)) => assert_eq!(a, b),
            (a, b) => panic!("{}: picker {a:?}, cli {b:?}", record.id),
        }
    }
}

#[test]
fn a_preview_no_longer_highlighted_is_dropped_unread() {
    let mut picker = driver(Vec::new(), |t| Ok(t.to_owned()));
    let (tx, answers) = mpsc::unbounded();
    picker.tx = tx;
    let record = testkit::record("gone", None, "2025-01-01T00:00:00Z");
    let key = PreviewKey {
        session_id: "gone".into(),
        label: "gone".into(),
    };
    *picker.wanted.lock().unwrap() = None;
    picker.load_preview(key.clone(), record);
    match answers.recv() {
        Ok(Msg::PreviewDropped(dropped)) => assert_eq!(dropped, key),
        other => panic!("{other:?}"),
    }
}

#[test]
fn conversation_search_runs_as_a_job_and_enter_inserts_the_hit() {
    let mut inputs = vec![key(KeyCode::Char('t'), KeyModifiers::CONTROL)];
    inputs.extend(text("non-checkpoint"));
    let mut picker = driver(inputs, |t| Ok(t.to_owned()));
    while let Ok(msg) = picker.rx.try_recv() {
        assert_eq!(picker.handle(msg).unwrap(), None);
    }
    assert!(picker.state.searching());
    // Settling asks for the search; the driver runs it on the pool.
    let effects = picker.state.settle();
    assert!(effects.iter().any(|e| matches!(e, Effect::Search { .. })));
    assert_eq!(picker.perform(effects).unwrap(), None);
    assert!(picker.search_cancel.is_some());
    loop {
        let msg = picker.rx.recv().unwrap();
        let done = matches!(msg, Msg::SearchDone(..));
        assert_eq!(picker.handle(msg).unwrap(), None);
        if done {
            break;
        }
    }
    let effects = picker.state.settle();
    assert_eq!(picker.perform(effects).unwrap(), None);
    assert_eq!(picker.state.ranked_labels(), ["Byte budget retention"]);
    let enter = key(KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(picker.handle(enter).unwrap(), None);
    let mention = format_mention("b2c9-budget", Some("Byte budget retention"));
    assert!(picker.state.prompt().text().contains(&mention));
    // Leaving search mode stops the search.
    let toggle = key(KeyCode::Char('t'), KeyModifiers::CONTROL);
    assert_eq!(picker.handle(toggle).unwrap(), None);
    assert!(picker.search_cancel.is_none());
}

#[test]
fn the_latest_prompt_is_the_last_typed_one() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("fork.jsonl");
    let user = |seq: u64, text: &str| {
        serde_json::json!({"seq": seq, "type": "user/message", "data": {"id": format!("u{seq}"),
            "source": {"kind": "user"}, "content": [{"type": "text", "text": text}]}})
        .to_string()
    };
    let lines = [
        r#"{"type":"session","version":1,"id":"fork","createdAt":"2025-05-01T00:00:00Z"}"#
            .to_owned(),
        user(1, "Add a dark mode toggle"),
        user(2, "\n  make it the default\nand more"),
        serde_json::json!({"seq": 3, "type": "assistant/message",
            "data": {"message": {"id": "a3", "content": [{"type": "text", "text": "done"}]}}})
        .to_string(),
    ];
    std::fs::write(&log, lines.join("\n") + "\n").unwrap();
    let roots = session_ref_stores::StoreRoots::new()
        .with(session_ref_stores::kinds::native::KIND, dir.path());
    let catalog = Catalog::load(&roots);
    let record = catalog.find("fork").unwrap().clone();
    let mut missing = record.clone();
    missing.path = dir.path().join("gone.jsonl");
    assert_eq!(
        read_latest_prompts(catalog.caches(), &[(0, record), (1, missing)]),
        [(0, Some("make it the default".to_owned())), (1, None)]
    );
}

/// A driver over the fixture store whose search index is in `cache`, with
/// discovery queued.
fn warming_driver(cache: &std::path::Path) -> Driver<TestBackend, SyncHost> {
    let (tx, rx) = mpsc::unbounded();
    for event in testkit::scan_fixtures() {
        tx.send(Msg::Found(event, None)).unwrap();
    }
    tx.send(Msg::ScanDone).unwrap();
    let mut setup = testkit::setup();
    setup.search_index = Some(cache.to_owned());
    let (limits, target) = (setup.limits, setup.target.clone());
    Driver::new(
        Terminal::new(TestBackend::new(80, 24)).unwrap(),
        SyncHost {
            editor: |t| Ok(t.to_owned()),
        },
        State::new(setup),
        (tx, rx),
        limits,
        target,
    )
}

#[test]
fn listing_done_warms_the_search_index_in_the_background() {
    let cache = tempfile::tempdir().unwrap();
    let mut picker = warming_driver(cache.path());
    let warmed = loop {
        match picker.rx.recv().unwrap() {
            Msg::IndexWarmed(warmed) => break warmed,
            msg => assert_eq!(picker.handle(msg).unwrap(), None),
        }
    };
    assert!(!warmed.skipped && !warmed.cancelled);
    // Every readable session is indexed at its current version: a
    // conversation search reads no log.
    let catalog = Arc::clone(picker.state.catalog());
    let readable: Vec<&SessionRecord> = catalog
        .ordered()
        .filter(|r| catalog.read_history(r).is_ok())
        .collect();
    assert_eq!(warmed.read, readable.len());
    let index = Index::open(cache.path());
    for record in readable {
        assert!(matches!(
            index.lookup(record).unwrap(),
            session_ref_stores::search::index::Lookup::Current(_)
        ));
    }
}

#[test]
fn a_conversation_search_stops_the_warm_up_and_its_end_restarts_it() {
    let cache = tempfile::tempdir().unwrap();
    let mut picker = warming_driver(cache.path());
    while !matches!(picker.warm, Warm::Running(_)) {
        let msg = picker.rx.recv().unwrap();
        assert_eq!(picker.handle(msg).unwrap(), None);
    }
    let search = Effect::Search {
        generation: 7,
        query: "snapshot".into(),
        records: Vec::new(),
    };
    assert_eq!(picker.perform(vec![search]).unwrap(), None);
    assert!(matches!(picker.warm, Warm::Stopped));
    loop {
        let msg = picker.rx.recv().unwrap();
        let ended = matches!(msg, Msg::SearchDone(7, _));
        assert_eq!(picker.handle(msg).unwrap(), None);
        if ended {
            break;
        }
    }
    assert!(matches!(picker.warm, Warm::Running(_) | Warm::Done));
    while !matches!(picker.warm, Warm::Done) {
        let msg = picker.rx.recv().unwrap();
        assert_eq!(picker.handle(msg).unwrap(), None);
    }
}

/// A host asked for no title: discovery read them all.
struct NoTitlesHost;

impl Host for NoTitlesHost {
    fn edit(&mut self, text: &str) -> std::result::Result<String, String> {
        Ok(text.to_owned())
    }

    fn read_titles(
        &mut self,
        batch: Vec<(EntryId, SessionRecord)>,
    ) -> Option<Vec<(EntryId, Option<String>)>> {
        panic!("{} titles asked for after discovery read them", batch.len())
    }
}

#[test]
fn what_discovery_read_with_the_records_labels_them_in_the_same_batch() {
    // #25 item 11: the picker listed records, then read titles in jobs
    // queued behind the scan (ids shown meanwhile). What `discover` reads
    // with each record now labels it when the batch is listed.
    let (tx, rx) = mpsc::unbounded();
    let caches = Caches::default();
    for event in testkit::scan_fixtures() {
        let listed = match &event {
            ScanEvent::Record(record) => Some(Listed::read(&caches, record)),
            _ => None,
        };
        tx.send(Msg::Found(event, listed)).unwrap();
    }
    let setup = testkit::setup();
    let (limits, target) = (setup.limits, setup.target.clone());
    let mut picker = Driver::new(
        Terminal::new(TestBackend::new(80, 24)).unwrap(),
        NoTitlesHost,
        State::new(setup),
        (tx, rx),
        limits,
        target,
    );
    while let Ok(msg) = picker.rx.try_recv() {
        assert_eq!(picker.handle(msg).unwrap(), None);
    }
    assert_eq!(picker.flush_found().unwrap(), None);
    assert_eq!(picker.state.titles_pending, 0);
    assert!(picker.state.entries.iter().all(|e| e.title_known));
    let labels = picker.state.entries.iter().map(|e| e.label());
    assert!(labels.clone().any(|l| l == "Fix the mention parser"));
    // Activity came with them: the entries the list sorts by it have it.
    assert!(picker.state.entries.iter().any(|e| e.activity.is_some()));
}
