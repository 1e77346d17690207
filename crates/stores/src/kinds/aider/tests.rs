//! The Aider store on chat histories written as aider 0.86.2 writes them
//! (`../shared/spec/formats/aider.md`): where they are found, what a
//! session is, its id, title, directory and surface.

use super::*;
use crate::model::{Block, EventKind, MessageSource};
use std::sync::Mutex;

/// A session as aider appends it: the header, its banner, then turns of
/// (typed lines, reply).
fn session(started: &str, cwd: Option<&str>, turns: &[(&[&str], &str)]) -> String {
    let mut text = format!("\n# aider chat started at {started}\n\n");
    text.push_str("> /v/bin/aider --model openai/mock-model --yes-always  \n");
    text.push_str("> Aider v0.86.2  \n> Model: openai/mock-model with whole edit format  \n");
    if let Some(cwd) = cwd {
        text.push_str(&format!(
            "> Note: in-chat filenames are always relative to the git working dir, not the current working dir.  \n\
             > Cur working dir: {cwd}  \n> Git working dir: /ignored  \n"
        ));
    }
    for (typed, reply) in turns {
        let lines: Vec<String> = typed.iter().map(|l| format!("#### {l}")).collect();
        text.push_str(&format!("\n{}  \n", lines.join("  \n")));
        if !reply.is_empty() {
            text.push_str(&format!(
                "\n{reply}\n\n> Tokens: 798 sent, 11 received.  \n"
            ));
        }
    }
    text
}

fn scan_root(caches: &Caches, root: &Path) -> Vec<ScanEvent> {
    let found = Mutex::new(Vec::new());
    let root: Arc<Path> = Arc::from(root);
    Aider.scan(KIND, caches, &root, &|e| found.lock().unwrap().push(e));
    let mut found = found.into_inner().unwrap();
    found.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    found
}

fn records(events: &[ScanEvent]) -> Vec<&SessionRecord> {
    let mut records: Vec<&SessionRecord> = events
        .iter()
        .filter_map(|e| match e {
            ScanEvent::Record(r) => Some(r),
            _ => None,
        })
        .collect();
    records.sort_by(|a, b| a.id.cmp(&b.id));
    records
}

fn texts(surface: &Surface) -> Vec<(&'static str, String)> {
    let joined = |content: &[Block]| {
        content
            .iter()
            .filter_map(|b| match b {
                Block::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("")
    };
    surface
        .events
        .iter()
        .map(|e| match &e.kind {
            EventKind::UserMessage { source, content } if *source == MessageSource::User => {
                ("user", joined(content))
            }
            EventKind::AssistantMessage { content } => ("assistant", joined(content)),
            _ => ("other", String::new()),
        })
        .collect()
}

#[test]
fn a_project_s_history_is_found_from_a_known_directory_below_its_git_root() {
    let dir = tempfile::tempdir().unwrap();
    let alpha = dir.path().join("alpha");
    std::fs::create_dir_all(alpha.join(".git")).unwrap();
    std::fs::create_dir_all(alpha.join("sub")).unwrap();
    let history = alpha.join(HISTORY);
    std::fs::write(
        &history,
        session("2026-12-02 05:22:07", None, &[(&["fix calc.py"], "ACK")])
            + &session(
                "2026-12-02 05:30:00",
                Some(&alpha.join("sub").to_string_lossy()),
                &[(&["started from a subdirectory"], "ACK: sub")],
            ),
    )
    .unwrap();
    // A directory outside any known one is never looked at.
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(
        elsewhere.join(HISTORY),
        session("2026-12-02 06:00:00", None, &[]),
    )
    .unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".aider")).unwrap();

    let caches = Caches::default();
    assert!(records(&scan_root(&caches, &home.join(".aider"))).is_empty());
    // Another kind listed a session in alpha/sub: its git root's file is read.
    caches
        .get::<KnownCwds>()
        .note(&alpha.join("sub").to_string_lossy());
    let found = scan_root(&caches, &home.join(".aider"));
    let listed = records(&found);
    assert_eq!(listed.len(), 2, "{found:?}");
    assert!(listed
        .iter()
        .all(|r| r.path.parent() == Some(history.as_path())));
    assert_eq!(listed[0].cwd.as_deref(), Some(alpha.to_str().unwrap()));
    assert_eq!(
        listed[1].cwd.as_deref(),
        Some(alpha.join("sub").to_str().unwrap())
    );
    assert!(
        listed[0].id.starts_with("aider-20261202T052207-"),
        "{}",
        listed[0].id
    );
    assert!(listed[1].id.starts_with("aider-20261202T053000-"));
    assert!(listed[0].created.is_some());
    // The same, named as the project or as the file.
    for root in [alpha.clone(), history.clone()] {
        let again = scan_root(&Caches::default(), &root);
        let ids: Vec<&str> = records(&again).iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, [listed[0].id.as_str(), listed[1].id.as_str()]);
    }
}

#[test]
fn sessions_of_one_second_get_distinct_ids_that_stay_as_the_file_grows() {
    let one = session("2026-12-02 05:22:07", None, &[(&["first"], "A")]);
    let two = session("2026-12-02 05:22:07", None, &[(&["second"], "B")]);
    let before = list_text("abcd1234", one.as_bytes());
    let after = list_text("abcd1234", format!("{one}{two}").as_bytes());
    assert_eq!(before[0].id, "aider-20261202T052207-abcd1234");
    assert_eq!(
        (&after[0].id, after[0].section.start, &after[0].head),
        (&before[0].id, before[0].section.start, &before[0].head)
    );
    assert_eq!(after[1].id, "aider-20261202T052207-abcd1234-2");
    let odd = list_text("h", b"# aider chat started at sometime\n");
    assert_eq!(odd[0].id, "aider-o0-h");
}

#[test]
fn title_and_surface_are_what_the_person_typed_and_the_model_answered() {
    let dir = tempfile::tempdir().unwrap();
    let history = dir.path().join(HISTORY);
    let text = session(
        "2026-12-02 05:22:07",
        None,
        &[
            (&["/add calc.py"], ""),
            (&["<blank>"], ""),
            (
                &["explain the bug", "", "in calc.py"],
                "<thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>\n\nhidden\n\n</thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>\n\nACK: it adds",
            ),
            (&["/clear"], "> All chat history cleared."),
            (&["and now?"], "ACK: now"),
        ],
    );
    std::fs::write(&history, &text).unwrap();
    let caches = Caches::default();
    let found = scan_root(&caches, &history);
    let record = records(&found)[0].clone();
    assert_eq!(
        Aider.read_title(&caches, &record).unwrap().as_deref(),
        Some("explain the bug")
    );
    let surface = Aider.read_surface(&caches, &record).unwrap();
    // `/clear` shadows what came before it.
    assert_eq!(
        texts(&surface),
        [
            ("user", "and now?".to_owned()),
            ("assistant", "ACK: now".to_owned())
        ]
    );
    let history_of = Aider.read_history(&caches, &record).unwrap();
    let all = format!("{history_of:?}");
    assert!(all.contains("explain the bug\\n\\nin calc.py"), "{all}");
    assert!(all.contains("ACK: it adds"));
    assert!(!all.contains("hidden"), "{all}");
    assert!(!all.contains("Tokens:"), "{all}");
    assert!(!all.contains("mock-model"), "{all}");
    assert!(!all.contains("<blank>"), "{all}");
    assert!(Aider.last_activity(&caches, &record).is_some());
    let stamp = Aider.stamp(&caches, &record).unwrap();
    assert_eq!(stamp.len as usize, text.len() - 1);
}

#[test]
fn a_file_without_a_session_is_skipped_and_a_link_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes.md");
    std::fs::write(&notes, "# notes\n").unwrap();
    let found = scan_root(&Caches::default(), &notes);
    assert!(
        matches!(&found[..], [ScanEvent::Skipped { reason, .. }] if reason == NOT_HISTORY),
        "{found:?}"
    );
    let real = dir.path().join("real.md");
    std::fs::write(
        &real,
        session("2026-12-02 05:22:07", None, &[(&["hi"], "A")]),
    )
    .unwrap();
    let project = dir.path().join("p");
    std::fs::create_dir_all(&project).unwrap();
    std::os::unix::fs::symlink(&real, project.join(HISTORY)).unwrap();
    assert!(scan_root(&Caches::default(), &project).is_empty());
}

#[test]
fn the_configured_history_and_the_default_roots() {
    let home = Path::new("/h");
    assert_eq!(
        conf_history(
            "model: x\nchat-history-file: ~/logs/aider.md # mine\n",
            home
        ),
        Some(PathBuf::from("/h/logs/aider.md"))
    );
    assert_eq!(
        conf_history("chat-history-file: \"/abs/h.md\"\n", home),
        Some(PathBuf::from("/abs/h.md"))
    );
    assert_eq!(conf_history("chat-history-file: rel.md\n", home), None);
    assert_eq!(conf_history("model: x\n", home), None);
    let none = |_: &str| None;
    assert_eq!(
        Aider.default_roots(&none, Some(home)),
        [PathBuf::from("/h/.aider")]
    );
    let file = |k: &str| (k == "AIDER_CHAT_HISTORY_FILE").then(|| "/x/h.md".to_owned());
    assert_eq!(
        Aider.default_roots(&file, Some(home)),
        [PathBuf::from("/x/h.md"), PathBuf::from("/h/.aider")]
    );
    let relative = |k: &str| (k == "AIDER_CHAT_HISTORY_FILE").then(|| "h.md".to_owned());
    assert_eq!(Aider.default_roots(&relative, Some(home)).len(), 1);
    assert_eq!(
        crate::default_roots_help(KIND),
        "$AIDER_CHAT_HISTORY_FILE, else ~/.aider"
    );
}

#[test]
fn local_header_times_follow_the_time_zone() {
    // Without a TZ variable set by the test, only the shape is checked.
    let at = local_to_rfc3339("2026-12-02 05:22:07").unwrap();
    assert!(at.starts_with("2026-12-0") && at.ends_with('Z'), "{at}");
    assert_eq!(local_to_rfc3339("2026-13-02 05:22:07"), None);
    assert_eq!(local_to_rfc3339("yesterday"), None);
}

#[test]
fn a_warm_listing_answers_from_the_index_without_reading_the_file() {
    let store = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let history = store.path().join(HISTORY);
    let old = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_750_000_000);
    let write = |prompt: &str| {
        let text = session("2026-12-02 05:22:07", Some("/w"), &[(&[prompt], "ACK")]);
        std::fs::write(&history, text).unwrap();
        let file = std::fs::File::options().write(true).open(&history).unwrap();
        file.set_modified(old).unwrap();
    };
    let titles = || {
        let caches = TitleIndex::open(cache.path()).into_caches(Caches::default());
        let found = scan_root(&caches, store.path());
        let titles: Vec<Option<String>> = records(&found)
            .iter()
            .map(|r| Aider.read_title(&caches, r).unwrap())
            .collect();
        caches.get::<TitleIndex>().save();
        titles
    };
    write("explain the cache");
    assert_eq!(titles(), [Some("explain the cache".to_owned())]);
    // The same length, inode and time: the index answers, so the file
    // (which now says otherwise) is not read.
    write("explain the index");
    assert_eq!(titles(), [Some("explain the cache".to_owned())]);
    assert_eq!(
        records(&scan_root(&Caches::default(), store.path()))
            .iter()
            .map(|r| Aider.read_title(&Caches::default(), r).unwrap())
            .collect::<Vec<_>>(),
        [Some("explain the index".to_owned())]
    );
}
