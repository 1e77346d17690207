//! `session-ref search` over fixtures of every store kind, in the real
//! shapes of each agent: what a snapshot projects is found, over the whole
//! history; tool output, reasoning and injected context are not.

use serde_json::Value;

use crate::support;
use crate::support::{run, stderr, stdout};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/search");

fn search(args: &[&str]) -> std::process::Output {
    let hydra = format!("{FIXTURES}/hydra");
    let claude = format!("{FIXTURES}/claude");
    let codex = format!("{FIXTURES}/codex");
    let mut all = vec![
        "--store", &hydra, "--claude", &claude, "--codex", &codex, "search",
    ];
    all.extend_from_slice(args);
    run(&all, "")
}

/// stdout of a search that ran: exit 0 with results, or exit 1 with
/// nothing at all (no match, as grep says it).
fn ran(out: &std::process::Output) -> String {
    match out.status.code() {
        Some(0) => assert!(!stdout(out).is_empty(), "exit 0 without a result"),
        Some(1) => assert_eq!(
            (stdout(out), stderr(out)),
            (String::new(), String::new()),
            "exit 1 is no match, and says nothing"
        ),
        other => panic!("exit {other:?}: {}", stderr(out)),
    }
    stdout(out)
}

fn found(args: &[&str]) -> Vec<Value> {
    ran(&search(args))
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON object per line"))
        .collect()
}

fn stores(results: &[Value]) -> Vec<&str> {
    results
        .iter()
        .map(|r| r["store"].as_str().unwrap())
        .collect()
}

#[test]
fn words_only_in_tool_output_reasoning_or_injected_context_do_not_match() {
    for word in ["quokka", "narwhal", "ocelot"] {
        assert!(found(&[word, "--json"]).is_empty(), "{word} matched");
    }
    // A streaming chunk is not a message either.
    assert!(found(&["half-written", "--json"]).is_empty());
}

#[test]
fn current_text_matches_in_every_store_newest_first() {
    let results = found(&["pangolin", "--json"]);
    assert_eq!(stores(&results), ["codex", "claude", "hydra"]);
    for result in &results {
        let hits = result["hits"].as_array().unwrap();
        assert_eq!(hits.len(), 1, "{result}");
        assert_eq!(hits[0]["role"], "assistant");
        assert_eq!(hits[0]["beforeCompaction"], false);
        assert_eq!(hits[0]["snippet"], "Feed the pangolin at noon.");
        assert_eq!(hits[0]["highlights"], serde_json::json!([[9, 17]]));
        let mention = result["mention"].as_str().unwrap();
        assert!(mention.starts_with(&format!(
            "@[{}](hydra-session:",
            result["label"].as_str().unwrap()
        )));
    }
    assert_eq!(results[2]["sessionId"], "zoo-native");
    assert_eq!(results[2]["label"], "Native zoo session");
    assert_eq!(results[2]["cwd"], "/home/dev/zoo");
}

#[test]
fn a_compacted_away_turn_matches_and_is_marked() {
    let results = found(&["zephyr", "--json"]);
    assert_eq!(stores(&results), ["codex", "claude", "hydra"]);
    for result in &results {
        let hit = &result["hits"][0];
        assert_eq!(hit["role"], "user");
        assert_eq!(hit["beforeCompaction"], true, "{result}");
        assert_eq!(hit["message"], 0);
    }
    let text = stdout(&search(&["zephyr"]));
    assert!(
        text.contains("#0 user (before compaction: not in the snapshot): Which enclosure suits the zephyr finch?"),
        "{text}"
    );
}

#[test]
fn a_compaction_summary_matches() {
    let results = found(&["axolotl", "--json"]);
    assert_eq!(stores(&results), ["codex", "claude", "hydra"]);
    for result in &results {
        let hit = &result["hits"][0];
        assert_eq!(hit["checkpoint"], true, "{result}");
        assert_eq!(hit["beforeCompaction"], false);
    }
}

#[test]
fn all_words_phrases_smart_case_regex_and_limit() {
    assert_eq!(found(&["finch seeds", "--json"]).len(), 3);
    assert!(found(&["finch giraffe", "--json"]).is_empty());
    assert_eq!(found(&["\"the finch eats\"", "--json"]).len(), 3);
    assert!(found(&["\"finch the\"", "--json"]).is_empty());
    assert_eq!(found(&["PANGOLIN", "--json"]).len(), 0);
    assert_eq!(found(&["Feed", "--json"]).len(), 3);
    assert_eq!(found(&["feed", "--json"]).len(), 3);
    assert_eq!(found(&["--regex", "pango(lin|rin)\\b", "--json"]).len(), 3);
    let limited = found(&["finch", "--limit", "1", "--json"]);
    assert_eq!(stores(&limited), ["codex"]);
}

#[test]
fn no_match_exits_1_and_says_nothing_as_grep_does() {
    let out = search(&["giraffe-never-said"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    assert_eq!(stderr(&out), "");
    let out = search(&["giraffe-never-said", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let out = search(&["pangolin"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn an_unclosed_phrase_is_an_error_and_a_limit_not_a_number_a_usage_error() {
    // A query that cannot run is the command line's error (#25 item 13).
    let out = search(&["\"the finch eats"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout(&out), "");
    assert!(
        stderr(&out).starts_with(
            "session-ref: SESSION_REFERENCE_INVALID_CONFIG: search: a quoted phrase is not closed"
        ),
        "{}",
        stderr(&out)
    );
    let out = search(&["finch", "--limit", "abc"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    assert!(stderr(&out).contains("--limit <N>"), "{}", stderr(&out));
}

#[test]
fn bad_queries_fail_with_a_stable_code() {
    let out = search(&["--regex", "(unclosed"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with(
            "session-ref: SESSION_REFERENCE_INVALID_CONFIG: search: invalid regular expression"
        ),
        "{}",
        stderr(&out)
    );
    let out = search(&["--regex", "(\\w{100}){100}"]);
    assert!(
        stderr(&out).contains("regular expression too large"),
        "{}",
        stderr(&out)
    );
    let out = search(&["  "]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("the search query is empty"));
}

#[test]
fn the_target_session_is_not_searched() {
    let results = found(&["--session", "zoo-native", "pangolin", "--json"]);
    assert_eq!(stores(&results), ["codex", "claude"]);
}

/// Copy the fixtures to a temporary directory (the test edits them).
fn copy_fixtures(to: &std::path::Path) {
    let out = std::process::Command::new("cp")
        .args(["-R", FIXTURES, to.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
}

#[test]
fn the_index_is_used_and_follows_append_truncate_and_delete() {
    let dir = tempfile::tempdir().unwrap();
    let stores = dir.path().join("stores");
    copy_fixtures(&stores);
    let cache = dir.path().join("cache");
    let (hydra, claude, codex) = (
        stores.join("hydra"),
        stores.join("claude"),
        stores.join("codex"),
    );
    let search_with = |args: &[&str]| -> String {
        let mut all = vec![
            "--store",
            hydra.to_str().unwrap(),
            "--claude",
            claude.to_str().unwrap(),
            "--codex",
            codex.to_str().unwrap(),
            "search",
        ];
        all.extend_from_slice(args);
        let out = support::run_env(
            &all,
            "",
            &[("SESSION_REF_CACHE_DIR", cache.to_str().unwrap())],
        );
        ran(&out)
    };
    // Every answer from the index, in JSON and as text, is the answer
    // read from the logs.
    let search = |word: &str| -> Vec<Value> {
        let indexed = search_with(&[word, "--json"]);
        assert_eq!(
            indexed,
            search_with(&[word, "--json", "--no-index"]),
            "{word}"
        );
        assert_eq!(
            search_with(&[word]),
            search_with(&[word, "--no-index"]),
            "{word}"
        );
        indexed
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let first = search("zephyr");
    assert_eq!(stores_of(&first), ["codex", "claude", "hydra"]);
    let manifest = cache.join("search/manifest.bin");
    assert!(manifest.is_file(), "the first search writes the index");
    // Answers from the index are the answers from the logs.
    assert_eq!(search("zephyr"), first);
    assert!(search("quokka").is_empty());
    // Append a turn to the native log: the new words are found.
    let native = hydra.join("zoo-native.jsonl");
    let mut log = std::fs::read_to_string(&native).unwrap();
    log.push_str(r#"{"seq":11,"type":"user/message","data":{"id":"u3","source":{"kind":"user"},"content":[{"type":"text","text":"What about the wombat?"}]}}"#);
    log.push('\n');
    std::fs::write(&native, &log).unwrap();
    assert_eq!(stores_of(&search("wombat")), ["hydra"]);
    // Truncate it back to its header and first turn: the old words go.
    let head: Vec<&str> = log.lines().take(3).collect();
    std::fs::write(&native, head.join("\n") + "\n").unwrap();
    assert!(search("wombat").is_empty());
    assert_eq!(stores_of(&search("zephyr")), ["codex", "claude", "hydra"]);
    assert!(search("pangolin").iter().all(|r| r["store"] != "hydra"));
    // A compaction arriving in appended lines: what was current is now
    // marked as before it, from the index as from the logs.
    let zoo = claude.join("-home-dev-zoo/c0ffee00-0000-4000-8000-00000000200a.jsonl");
    let claude_hit = |query: &str| {
        let results = search(query);
        let found = results.iter().find(|r| r["store"] == "claude").unwrap();
        found["hits"][0]["beforeCompaction"].as_bool().unwrap()
    };
    assert!(!claude_hit("feeding plan"));
    let mut log = std::fs::read_to_string(&zoo).unwrap();
    log.push_str(r#"{"parentUuid":null,"isSidechain":false,"type":"system","subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,"timestamp":"2026-02-01T12:00:00.000Z","uuid":"z-b2"}"#);
    log.push('\n');
    log.push_str(r#"{"parentUuid":"z-b2","isSidechain":false,"type":"user","message":{"role":"user","content":"Is the okapi shy?"},"uuid":"z-u9","timestamp":"2026-02-01T12:01:00.000Z"}"#);
    log.push('\n');
    std::fs::write(&zoo, &log).unwrap();
    assert!(claude_hit("feeding plan"));
    assert!(!claude_hit("okapi"));
    // Delete the Claude log: it is not found, and its entry goes.
    std::fs::remove_dir_all(claude.join("-home-dev-zoo")).unwrap();
    assert_eq!(stores_of(&search("zephyr")), ["codex", "hydra"]);
    let bytes = std::fs::read(&manifest).unwrap();
    assert!(
        !bytes.windows(8).any(|w| w == b"c0ffee00"),
        "deleted session still indexed"
    );
    // A corrupt index is rebuilt, never an error.
    std::fs::write(&manifest, "garbage").unwrap();
    assert_eq!(stores_of(&search("zephyr")), ["codex", "hydra"]);
    assert!(std::fs::read(&manifest).unwrap().starts_with(b"SRSX"));
    // So is a data file cut short, and a manifest of an earlier format
    // is removed when the index is written.
    std::fs::write(cache.join("search/data-0.bin"), "").unwrap();
    std::fs::write(cache.join("search/manifest.json"), "{}").unwrap();
    assert_eq!(stores_of(&search("zephyr")), ["codex", "hydra"]);
    assert!(!cache.join("search/manifest.json").exists());
}

fn stores_of(results: &[Value]) -> Vec<String> {
    results
        .iter()
        .map(|r| r["store"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_gemini_session_is_one_result_whatever_its_files() {
    // Gemini CLI chats in their 0.61 shape: the session's current chat in
    // its project folder, and the copy an earlier version left in the old
    // hash-named folder (one turn behind). One session, one result, read
    // from the current chat; thoughts, tool output and the injected
    // session context are never matched. The same from the index (built,
    // then reused) as from the logs.
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let gemini = format!("{FIXTURES}/gemini");
    let search = |args: &[&str]| -> String {
        let mut all = vec!["--gemini", gemini.as_str(), "search", "--json"];
        all.extend_from_slice(args);
        let out = support::run_env(
            &all,
            "",
            &[("SESSION_REF_CACHE_DIR", cache.to_str().unwrap())],
        );
        ran(&out)
    };
    let direct = search(&["tapir", "--no-index"]);
    let results: Vec<Value> = direct
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(results.len(), 1, "{direct}");
    let result = &results[0];
    assert_eq!(result["sessionId"], "c0ffee00-0000-4000-8000-00000000400d");
    assert_eq!(result["label"], "Tapir care");
    assert_eq!(result["cwd"], "/home/dev/zoo");
    assert_eq!(result["agent"], "gemini");
    assert_eq!(
        result["store"], "gemini",
        "the old name, kept for one release"
    );
    let hits: Vec<(&str, &str)> = result["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["role"].as_str().unwrap(), h["snippet"].as_str().unwrap()))
        .collect();
    assert_eq!(
        hits,
        [
            ("user", "Where does the tapir sleep?"),
            ("assistant", "The tapir sleeps in the shaded pen."),
            ("user", "And where does the tapir eat?"),
            ("assistant", "By the tapir pond."),
        ]
    );
    assert_eq!(search(&["tapir"]), direct, "building the index");
    assert_eq!(search(&["tapir"]), direct, "answered from the index");
    for word in ["quokka", "narwhal", "ocelot"] {
        assert_eq!(search(&[word]), "", "{word} matched");
        assert_eq!(search(&[word, "--no-index"]), "", "{word} matched");
    }
}

#[test]
fn pi_searches_the_current_branch_and_qwen_only_what_was_said() {
    // pi 0.73.1 and Qwen Code 0.24.4 stores as the agents wrote them. pi:
    // the turn left on a branch `/tree` abandoned is not the session's
    // conversation. Qwen: `@file` contents, telemetry and background-task
    // notices are never matched. The same from the index as from the logs.
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let pi = format!("{FIXTURES}/../pi/sessions");
    let qwen = format!("{FIXTURES}/../qwen/projects");
    let search = |args: &[&str]| -> Vec<(String, String)> {
        let mut all = vec![
            "--pi",
            pi.as_str(),
            "--qwen",
            qwen.as_str(),
            "search",
            "--json",
        ];
        all.extend_from_slice(args);
        let out = support::run_env(
            &all,
            "",
            &[("SESSION_REF_CACHE_DIR", cache.to_str().unwrap())],
        );
        // No match is exit 1 with nothing printed, as grep.
        assert!(
            out.status.success() || (out.status.code() == Some(1) && out.stdout.is_empty()),
            "{}",
            stderr(&out)
        );
        let mut found: Vec<(String, String)> = stdout(&out)
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .map(|r| {
                (
                    r["store"].as_str().unwrap().to_owned(),
                    r["sessionId"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        found.sort();
        found
    };
    let second = search(&["second", "--no-index"]);
    let ids: Vec<&str> = second.iter().map(|(_, id)| id.as_str()).collect();
    assert!(
        ids.contains(&"01a232f6-1f5b-73be-8691-2194bd0854d4"),
        "{second:?}"
    );
    assert!(
        !ids.contains(&"01a232f5-be47-72c8-a0f3-a2ece3ec2c64"),
        "{second:?}"
    );
    assert!(
        ids.contains(&"cdb0c8bb-094a-4a8f-8fd9-26c5c1a935fd"),
        "{second:?}"
    );
    assert_eq!(search(&["second"]), second, "building the index");
    assert_eq!(search(&["second"]), second, "answered from the index");
    assert_eq!(
        search(&["summarize", "--no-index"]),
        [
            (
                "pi".to_owned(),
                "01a232f5-82ab-7747-9da3-3007f4d79005".to_owned()
            ),
            (
                "qwen".to_owned(),
                "56b042d7-6cee-432e-8be4-d88cb324075a".to_owned()
            ),
        ]
    );
    for words in ["Managed memory", "task-notification", "MOCK REASONING"] {
        assert_eq!(search(&[words, "--no-index"]), [], "{words}");
        assert_eq!(search(&[words]), [], "{words}");
    }
}
