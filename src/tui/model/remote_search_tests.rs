//! Conversation search mode with a remote configured: remote matches are
//! listed after this machine's as they arrive, a query superseded while a
//! remote is busy never reaches it, and a remote that fails is one status,
//! never a wait. The remote's answers are fed in by hand, as the driver's
//! thread posts them.

use std::time::Duration;

use ratatui::backend::TestBackend;
use ratatui::Terminal;

use super::*;
use crate::search::wire::WireMatch;
use crate::tui::line::Edit;
use crate::tui::model::*;
use crate::tui::testkit::{self, step};
use session_ref_core::mention::format_mention;
use session_ref_stores::model::SessionRecord;
use session_ref_stores::remote::{RemoteHost, Remotes, WireSession};
use session_ref_stores::Caches;
use session_ref_stores::ScanEvent;

const HOST: &str = "devbox";

/// The fixture store and one remote, `devbox`, which listed two sessions;
/// discovery done, titles read.
fn loaded() -> State {
    let mut setup = testkit::setup();
    // `false` stands for an ssh never run here: every answer is fed in.
    setup.caches = Arc::new(Caches::default().with(Remotes::new(
        vec![RemoteHost::new(HOST)],
        "false",
        Duration::from_secs(3),
    )));
    let mut state = State::new(setup);
    step(&mut state, Action::Resize(100, 30));
    let mut events = testkit::scan_fixtures();
    events.extend(
        ["remote-a", "remote-b"]
            .map(|id| ScanEvent::Record(remote_record(&state, id, &format!("Remote {id}")))),
    );
    let effects = step(&mut state, Action::Discovered(events));
    testkit::answer_titles(&mut state, effects);
    step(&mut state, Action::DiscoveryDone);
    state
}

fn remotes(state: &State) -> Arc<Remotes> {
    state.catalog().caches().get::<Remotes>()
}

fn wire_session(id: &str, title: &str) -> WireSession {
    WireSession {
        id: id.to_owned(),
        kind: "hydra".to_owned(),
        cwd: Some("/srv/api".to_owned()),
        created_at: "2025-05-30T00:00:00Z".to_owned(),
        path: format!("/data/{id}.jsonl"),
        root: "/data".to_owned(),
        title: Some(title.to_owned()),
        updated_at: Some(testkit::NOW - 3600),
    }
}

/// A record of `devbox` as its listing gives it (`ID@devbox`).
fn remote_record(state: &State, id: &str, title: &str) -> SessionRecord {
    let remotes = remotes(state);
    remotes
        .record_of(&remotes.hosts()[0], wire_session(id, title))
        .unwrap()
}

/// What `devbox` answers for session `id`: a match with `hits` hits, many
/// matches in little text (a score no local match reaches).
fn remote_match(
    state: &State,
    id: &str,
    snippet: &str,
    hits: usize,
) -> (SessionRecord, SessionMatch) {
    let hit = serde_json::json!({
        "message": 1, "role": "assistant", "checkpoint": false,
        "beforeCompaction": false, "line": 0, "snippet": snippet,
        "highlights": [[0, 7]], "matches": 40, "terms": 1,
    });
    let wire: WireMatch = serde_json::from_value(serde_json::json!({
        "session": wire_session(id, &format!("Remote {id}")),
        "matches": 40,
        "textBytes": 50,
        "hits": vec![hit; hits],
    }))
    .unwrap();
    let (session, matched) = wire.into_parts();
    let remotes = remotes(state);
    let record = remotes.record_of(&remotes.hosts()[0], session).unwrap();
    (record, matched)
}

fn type_text(state: &mut State, text: &str) -> Vec<Effect> {
    let mut effects = Vec::new();
    for c in text.chars() {
        effects.extend(step(state, Action::Edit(Edit::Insert(c))));
    }
    effects
}

fn remote_asks(effects: &[Effect]) -> Vec<&str> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::SearchRemote(ask) => Some(ask.query.as_str()),
            _ => None,
        })
        .collect()
}

fn answered(state: &mut State, query: &str, answer: RemoteAnswer) -> Vec<Effect> {
    step(
        state,
        Action::RemoteSearched {
            host: HOST.to_owned(),
            query: query.to_owned(),
            answer,
        },
    )
}

/// The filter line and the first `rows` rows of the list, as drawn.
fn screen(state: &State, rows: u16) -> Vec<String> {
    let (w, h) = state.size;
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal
        .draw(|frame| crate::tui::view::draw(frame, state))
        .unwrap();
    let buffer = terminal.backend().buffer().clone();
    (0..=rows)
        .map(|y| (0..w).map(|x| buffer[(x, y)].symbol().to_owned()).collect())
        .collect()
}

#[test]
fn remote_matches_stream_in_after_local_ones_and_typing_never_queues_requests() {
    let mut state = loaded();
    step(&mut state, Action::ToggleSearch);
    let effects = type_text(&mut state, "preview");
    // Seven local searches (each superseding the one before), and one
    // request to the remote: the one sent before it was busy.
    assert_eq!(remote_asks(&effects), ["p"]);
    // The local search reads this machine's logs only.
    for effect in &effects {
        if let Effect::Search { records, .. } = effect {
            assert!(records.iter().all(|(_, r)| r.host.is_none()));
        }
    }
    testkit::answer_searches(&mut state, effects);
    let local = state.ranked_labels().len();
    assert_eq!(local, 3, "{:?}", state.ranked_labels());
    assert_eq!(state.remote.status().asking, [HOST]);
    assert!(screen(&state, 0)[0].contains("asking devbox…"));

    // The answer to "p" comes: superseded, it lists nothing, and the remote
    // is asked the latest query (not "pr", "pre", …).
    let stale = remote_match(&state, "remote-b", "pxxxxxx stale", 1);
    let effects = answered(&mut state, "p", Ok(vec![stale]));
    assert_eq!(remote_asks(&effects), ["preview"]);
    assert_eq!(state.ranked_labels().len(), local);
    assert_eq!(state.remote.in_flight(), 1);

    // Its answer to "preview": the remote's row follows the local ones,
    // though it scores higher, tagged with its host.
    let found = remote_match(&state, "remote-a", "preview on the devbox", 1);
    let effects = answered(&mut state, "preview", Ok(vec![found]));
    assert!(remote_asks(&effects).is_empty());
    let labels = state.ranked_labels();
    assert_eq!(labels.len(), local + 1, "{labels:?}");
    assert_eq!(labels[local], "Remote remote-a");
    let remote_id = state.hits[local].id;
    let local_best = state.search_row(state.hits[0].id).unwrap().score;
    assert!(state.search_row(remote_id).unwrap().score > local_best);
    assert!(state.remote.status().is_empty());
    let rows = screen(&state, local as u16 + 1);
    assert!(!rows[0].contains("asking"), "{rows:?}");
    assert!(
        rows[local + 1].contains("Remote remote-a")
            && rows[local + 1].contains("devbox: preview on the devbox"),
        "{rows:?}"
    );
    // Enter cites the remote session by its `ID@HOST`.
    step(&mut state, Action::Move(local as isize));
    step(&mut state, Action::InsertMention);
    let mention = format_mention("remote-a@devbox", Some("Remote remote-a"));
    assert!(
        state.prompt_text().contains(&mention),
        "{}",
        state.prompt_text()
    );
}

#[test]
fn a_failing_remote_is_one_status_and_leaves_local_rows_alone() {
    let mut state = loaded();
    step(&mut state, Action::ToggleSearch);
    let effects = type_text(&mut state, "preview");
    testkit::answer_searches(&mut state, effects);
    let before = state.ranked_labels().len();
    let effects = answered(
        &mut state,
        "p",
        Err("devbox: unreachable after 3 s".to_owned()),
    );
    // The failure of a superseded query is not the status: the latest is
    // asked.
    assert_eq!(remote_asks(&effects), ["preview"]);
    assert!(state.remote.status().failed.is_empty());
    answered(
        &mut state,
        "preview",
        Err("devbox: unreachable after 3 s\u{1b}]0;owned\u{7}".to_owned()),
    );
    assert_eq!(state.ranked_labels().len(), before);
    let status = screen(&state, 0).remove(0);
    assert!(status.contains("devbox: unreachable after 3 s"), "{status}");
    assert!(
        !status.contains('\u{1b}') && !status.contains('\u{7}'),
        "{status:?}"
    );
    assert!(!state.search.as_ref().unwrap().running);
}

#[test]
fn a_known_answer_is_reused_and_a_broken_one_shows_nothing() {
    let mut state = loaded();
    step(&mut state, Action::ToggleSearch);
    let effects = type_text(&mut state, "z");
    assert_eq!(remote_asks(&effects), ["z"]);
    // A match without a hit, and one of a session the listing lacks: no
    // row, no panic.
    let empty = remote_match(&state, "remote-a", "zzzzzzz", 0);
    let unknown = remote_match(&state, "remote-new", "zzzzzzz", 1);
    let good = remote_match(&state, "remote-b", "zzzzzzz on devbox", 1);
    answered(&mut state, "z", Ok(vec![empty, unknown, good]));
    assert_eq!(state.ranked_labels(), ["Remote remote-b"]);
    // Leaving the mode and coming back to the same query asks nothing: the
    // answer is kept and listed at once.
    step(&mut state, Action::ToggleSearch);
    let effects = step(&mut state, Action::ToggleSearch);
    assert!(remote_asks(&effects).is_empty(), "{effects:?}");
    assert_eq!(state.ranked_labels(), ["Remote remote-b"]);
    // A query that does not parse is reported here and sent nowhere.
    let mut state = loaded();
    step(&mut state, Action::ToggleSearch);
    let effects = step(&mut state, Action::Paste("re:(".to_owned()));
    assert!(remote_asks(&effects).is_empty(), "{effects:?}");
    assert!(state.remote.status().is_empty());
}
