//! The built binary over a Gemini CLI store: listing once per session
//! across its files, labels, cwd, previews without tool, thought or
//! injected text, default discovery, and a file vanishing after listing.
//!
//! The fixture `tests/fixtures/gemini` is the project's own `.gemini`
//! directory, written in the shapes Gemini CLI 0.61.0 was seen writing
//! (`tmp/<slug>/chats/session-*.jsonl` with `$set`, upserts and
//! `$rewindTo`, legacy `session-*.json`, resume stubs, an old SHA-256
//! project folder, a sub-agent chat). Every text that must never reach a
//! snapshot or a label carries the word `SECRET` or `BODY`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use hermetic::{copy_tree, ok, session_ref};

use crate::support::hermetic;

const GEMINI: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/gemini");

const CHECKOUT: &str = "c0ffee01-1111-4111-8111-000000000001";
const REVIEW: &str = "c0ffee02-2222-4222-8222-000000000002";
const FLAKY: &str = "c0ffee03-3333-4333-8333-000000000003";
const ORDERS: &str = "c0ffee04-4444-4444-8444-000000000004";
const BUILD: &str = "c0ffee05-5555-4555-8555-000000000005";
const LIMITER: &str = "c0ffee06-6666-4666-8666-000000000006";
const CRON: &str = "c0ffee07-7777-4777-8777-000000000007";
const SUBAGENT: &str = "c0ffee08-8888-4888-8888-000000000008";
/// A session made by a test, in the hash folder of `/home/dev/infra`.
const INFRA: &str = "c0ffee09-9999-4999-8999-000000000009";

/// `candidates --json` over the fixture, ranked from `/home/dev/shop`.
fn listed(extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["--gemini", GEMINI, "--cwd", "/home/dev/shop"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["candidates", "--json"]);
    ok(session_ref(&args, &[]))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The conversation `preview --json` shows for `id`, as (role, text).
fn conversation(id: &str) -> (Value, Vec<(String, String)>) {
    let run = session_ref(&["--gemini", GEMINI, "preview", id, "--json"], &[]);
    let preview: Value = serde_json::from_str(&ok(run)).unwrap();
    let context = preview["context"].as_str().unwrap();
    let json = &context[context.find("\n[").unwrap() + 1..context.rfind("\n</").unwrap()];
    let sources: Value = serde_json::from_str(json).unwrap();
    let turns = sources[0]["conversation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let text = |k: &str| t[k].as_str().unwrap().to_owned();
            (text("role"), text("text"))
        })
        .collect();
    (sources[0].clone(), turns)
}

fn turns(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(r, t)| ((*r).to_owned(), (*t).to_owned()))
        .collect()
}

#[test]
fn each_session_is_listed_once_with_its_label_and_project_root() {
    let rows = listed(&[]);
    let got: Vec<(&str, &str, Option<&str>, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["sessionId"].as_str().unwrap(),
                r["label"].as_str().unwrap(),
                r["cwd"].as_str(),
                r["createdAt"].as_str().unwrap(),
            )
        })
        .collect();
    let shop = Some("/home/dev/shop");
    assert_eq!(
        got,
        [
            (FLAKY, "list flaky tests", shop, "2026-01-12T08:00:10.000Z"),
            (REVIEW, "/review payments", shop, "2026-01-11T10:00:00.000Z"),
            (
                CHECKOUT,
                "Fix checkout total rounding drift",
                shop,
                "2026-01-10T09:00:01.000Z"
            ),
            (
                ORDERS,
                "migrate the orders table",
                shop,
                "2025-12-20T14:00:00.000Z"
            ),
            (
                BUILD,
                "why is the shop build slow?",
                shop,
                "2025-11-02T16:00:00.000Z"
            ),
            // No cwd ranks before other directories (SPEC §6).
            (
                CRON,
                "where are the cron jobs defined?",
                None,
                "2025-09-01T08:00:00.000Z"
            ),
            (
                LIMITER,
                "Document the rate limiter",
                Some("/home/dev/api"),
                "2025-10-05T12:00:00.000Z"
            ),
        ]
    );
    for row in &rows {
        assert_eq!(row["store"], "gemini");
        let path = row["path"].as_str().unwrap();
        assert!(!path.contains("/logs/"), "{path}");
    }
    // The listed file is the one a preview reads: the resumed chat, not
    // its stub nor the legacy original.
    let path = |id: &str| {
        let row = rows.iter().find(|r| r["sessionId"] == id).unwrap();
        row["path"].as_str().unwrap().to_owned()
    };
    assert!(path(FLAKY).ends_with("/tmp/shop/chats/session-2026-01-12T08-00-c0ffee03.jsonl"));
    assert!(path(ORDERS).ends_with("/tmp/shop/chats/session-2025-12-20T14-00-c0ffee04.jsonl"));
    assert!(path(BUILD).ends_with("/tmp/shop/chats/session-2025-11-02T16-00-c0ffee05.json"));
}

#[test]
fn verbose_names_the_files_not_listed() {
    let run = session_ref(
        &["--gemini", GEMINI, "--verbose", "candidates", "--json"],
        &[],
    );
    assert_eq!(run.code, 0);
    let mut lines = run.stderr.lines();
    assert_eq!(
        lines.next(),
        Some(format!("session-ref: gemini {GEMINI}: 7 sessions, 6 skipped, 0 unreadable").as_str())
    );
    let warnings: Vec<&str> = lines.collect();
    let about = |needle: &str| warnings.iter().filter(|w| w.contains(needle)).count();
    // A sub-agent chat is part of its parent: counted, not warned about.
    assert_eq!(about(SUBAGENT), 0, "{}", run.stderr);
    assert_eq!(
        about("session-ref: skipped 1 Gemini CLI sub-agent chat"),
        1,
        "{}",
        run.stderr
    );
    assert_eq!(about("another file of Gemini CLI session"), 4);
    assert_eq!(about("notachat"), 1);
    assert_eq!(warnings.len(), 6, "{}", run.stderr);
    assert!(!run.stdout.contains(SUBAGENT));
}

#[test]
fn previews_hold_typed_prompts_and_replies_only() {
    let (source, said) = conversation(CHECKOUT);
    assert_eq!(
        said,
        turns(&[
            ("user", "Why does checkout total drift? see @src/cart.ts"),
            (
                "assistant",
                "Rounding happens per line item; round the sum instead."
            ),
        ])
    );
    assert_eq!(source["capturedThroughSeq"], 13);
    assert_eq!(source["cwd"], "/home/dev/shop");

    // A custom command as typed, the rewound turn gone, the continuation
    // Gemini sent by itself left out, the torn last line ignored.
    let (source, said) = conversation(REVIEW);
    assert_eq!(
        said,
        turns(&[
            ("user", "/review payments"),
            ("assistant", "Retries are not idempotent."),
            ("user", "add an idempotency key"),
            ("assistant", "Added the key to the charge request"),
            ("assistant", "and to refunds."),
        ])
    );
    assert_eq!(source["capturedThroughSeq"], 18);

    // Resumed in the same minute and in a later one: one conversation.
    let (_, said) = conversation(FLAKY);
    assert_eq!(
        said,
        turns(&[
            ("user", "list flaky tests"),
            ("assistant", "test_cart_sync is flaky"),
            ("user", "quarantine it"),
            ("assistant", "Quarantined"),
            ("user", "open a ticket for it"),
            ("assistant", "Ticket opened"),
        ])
    );

    // A legacy chat resumed: its continuation, history included.
    let (_, said) = conversation(ORDERS);
    assert_eq!(
        said,
        turns(&[
            ("user", "migrate the orders table"),
            ("assistant", "Migration written."),
            ("user", "now add the rollback"),
            ("assistant", "Rollback added."),
        ])
    );

    // Legacy chats: string contents, an error record left out.
    let (source, said) = conversation(BUILD);
    assert_eq!(
        said,
        turns(&[
            ("user", "why is the shop build slow?"),
            ("assistant", "Source maps in production."),
        ])
    );
    assert_eq!(source["capturedThroughSeq"], 3);
    let (source, _) = conversation(CRON);
    assert_eq!(source["cwd"], Value::Null);
}

#[test]
fn nothing_generated_reaches_a_snapshot_or_a_label() {
    let ids = [CHECKOUT, REVIEW, FLAKY, ORDERS, BUILD, LIMITER, CRON];
    let listing = serde_json::to_string(&listed(&[])).unwrap();
    for id in ids {
        let run = session_ref(&["--gemini", GEMINI, "preview", id], &[]);
        let text = ok(run) + &listing;
        for leak in [
            "SECRET",
            "BODY",
            "session_context",
            "Please continue",
            "Please greet",
        ] {
            assert!(!text.contains(leak), "{id}: {leak} in {text}");
        }
    }
    let run = session_ref(&["--gemini", GEMINI, "preview", SUBAGENT], &[]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.starts_with("session-ref: SESSION_REFERENCE_"));
}

#[test]
fn default_discovery_reads_gemini_cli_home_or_the_home_directory() {
    let home = tempfile::tempdir().unwrap();
    copy_tree(Path::new(GEMINI), &home.path().join(".gemini"));
    let run = session_ref(&["candidates", "--json"], &[("HOME", home.path())]);
    assert_eq!(ok(run).lines().count(), 7);
    let elsewhere = tempfile::tempdir().unwrap();
    copy_tree(Path::new(GEMINI), &elsewhere.path().join(".gemini"));
    let run = session_ref(
        &["candidates", "--json"],
        &[("GEMINI_CLI_HOME", elsewhere.path())],
    );
    assert_eq!(ok(run).lines().count(), 7);
}

#[test]
fn the_flag_repeats_and_an_unknown_hash_folder_has_no_cwd() {
    // A second root holding only the old hash folder of an unknown project.
    let other = tempfile::tempdir().unwrap();
    let hash = "57ed34d59dc34b85c1e01d372e2c71c9875333edd94661a04f320b679e63e14b";
    copy_tree(
        &Path::new(GEMINI).join("tmp").join(hash),
        &other.path().join("tmp").join(hash),
    );
    let other_root = other.path().to_str().unwrap();
    let run = session_ref(&["--gemini", other_root, "candidates", "--json"], &[]);
    let rows: Vec<Value> = ok(run)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["sessionId"], CRON);
    assert!(rows[0].get("cwd").is_none());
    let both = listed(&["--gemini", other_root]);
    assert!(both.iter().any(|r| r["sessionId"] == CHECKOUT));
}

#[test]
fn a_hash_folder_whose_root_is_recorded_nowhere_matches_the_cwd_hashing_to_it() {
    // SHA-256 of "/home/dev/infra", as Gemini CLI names the project's
    // folder (and fills `projectHash`) in older versions.
    let infra = "4aeaa48bb7f10331bd25588aa9a56c1a6474946b5d16e2722f00ac273a3b15ac";
    let unknown = "57ed34d59dc34b85c1e01d372e2c71c9875333edd94661a04f320b679e63e14b";
    let other = tempfile::tempdir().unwrap();
    let chats = other.path().join("tmp").join(infra).join("chats");
    std::fs::create_dir_all(&chats).unwrap();
    let name = "session-2025-09-01T08-00-c0ffee09.jsonl";
    let chat = std::fs::read_to_string(
        Path::new(GEMINI)
            .join("tmp")
            .join(unknown)
            .join("chats/session-2025-09-01T08-00-c0ffee07.jsonl"),
    )
    .unwrap()
    .replace(unknown, infra)
    .replace(CRON, INFRA);
    std::fs::write(chats.join(name), chat).unwrap();
    let rows = |cwd: &str| -> Vec<Value> {
        let args = [
            "--gemini",
            GEMINI,
            "--gemini",
            other.path().to_str().unwrap(),
            "--cwd",
            cwd,
            "candidates",
            "--json",
        ];
        ok(session_ref(&args, &[]))
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    // From the project, its session is its own and ranks first.
    let here = rows("/home/dev/infra");
    assert_eq!(here[0]["sessionId"], INFRA);
    assert_eq!(here[0]["cwd"], "/home/dev/infra");
    // The cwd is hashed as Gemini CLI spells the root (`path.resolve`).
    let spelled = rows("/home/dev/./infra/");
    let row = spelled.iter().find(|r| r["sessionId"] == INFRA).unwrap();
    assert_eq!(row["cwd"], "/home/dev/infra");
    // From elsewhere, the root stays unknown.
    let elsewhere = rows("/home/dev/shop");
    let row = elsewhere.iter().find(|r| r["sessionId"] == INFRA).unwrap();
    assert!(row.get("cwd").is_none(), "{row}");
    assert_ne!(elsewhere[0]["sessionId"], INFRA);
}

#[test]
fn a_file_that_vanished_after_listing_fails_that_session_alone() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join(".gemini");
    copy_tree(Path::new(GEMINI), &root);
    let catalog = session_ref_stores::Catalog::load(
        &session_ref_stores::StoreRoots::new().with(session_ref_stores::kinds::gemini::KIND, &root),
    );
    let review = catalog.find(REVIEW).unwrap().clone();
    let flaky = catalog.find(FLAKY).unwrap().clone();
    std::fs::remove_file(&review.path).unwrap();
    let err = catalog.read_surface(&review).unwrap_err();
    assert_eq!(err.path, review.path);
    let err: session_ref::Error = err.into();
    assert_eq!(err.code, session_ref::ErrorCode::ReadFailed);
    // A resume stub vanishing (Gemini CLI deletes such files) changes nothing.
    let stub: PathBuf = root.join("tmp/shop/chats/session-2026-01-12T08-03-c0ffee03.jsonl");
    std::fs::remove_file(stub).unwrap();
    let surface = catalog.read_surface(&flaky).unwrap();
    assert_eq!(surface.events.len(), 6);
    let checkout = catalog.find(CHECKOUT).unwrap();
    assert_eq!(
        catalog.read_title(checkout).unwrap().as_deref(),
        Some("Fix checkout total rounding drift")
    );
}

/// The real Gemini CLI sample in `../shared/corpus/gemini` beside the
/// clone. Missing: a failure under `CI`, a visible skip elsewhere.
fn corpus_sample() -> Option<PathBuf> {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/gemini/codemie_session-2025-12-01T21-45-5b959dae.json");
    if file.is_file() {
        return Some(file);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "the Gemini CLI corpus sample is missing: {}",
        file.display()
    );
    eprintln!("SKIPPED: no Gemini CLI corpus sample at {}", file.display());
    None
}

#[test]
fn the_real_legacy_sample_lists_and_previews_its_prompts() {
    let Some(sample) = corpus_sample() else {
        return;
    };
    let bytes = std::fs::read(&sample).unwrap();
    let chat: Value = serde_json::from_slice(&bytes).unwrap();
    let hash = chat["projectHash"].as_str().unwrap();
    let home = tempfile::tempdir().unwrap();
    let chats = home.path().join("tmp").join(hash).join("chats");
    std::fs::create_dir_all(&chats).unwrap();
    std::fs::write(chats.join("session-2025-12-01T21-45-5b959dae.json"), &bytes).unwrap();
    let root = home.path().to_str().unwrap();
    let run = session_ref(&["--gemini", root, "candidates", "--json"], &[]);
    let row: Value = serde_json::from_str(ok(run).trim()).unwrap();
    let id = "5b959dae-8655-4cd1-b10f-720b8c336ea2";
    assert_eq!(row["sessionId"], id);
    assert_eq!(row["label"], "hi");
    assert_eq!(row["createdAt"], "2025-12-01T21:45:34.362Z");
    assert!(row.get("cwd").is_none());
    let run = session_ref(&["--gemini", root, "preview", id, "--json"], &[]);
    let preview: Value = serde_json::from_str(&ok(run)).unwrap();
    let context = preview["context"].as_str().unwrap();
    let users = context.matches(r#"{"role":"user","text":"#).count();
    let replies = context.matches(r#"{"role":"assistant","text":"#).count();
    assert_eq!((users, replies), (3, 3), "{context}");
    assert!(context.contains(r#"{"role":"user","text":"Explain what this is"}"#));
    for leak in [
        "Directory listing for",
        "Assessing the Prompt",
        "functionResponse",
    ] {
        assert!(!context.contains(leak), "{leak}");
    }
    assert_eq!(preview["reference"]["originalMessages"], 6);
}
