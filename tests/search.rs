//! `session-ref search` over fixtures of every store kind, in the real
//! shapes of each agent: what a snapshot projects is found, over the whole
//! history; tool output, reasoning and injected context are not.

mod common;

use common::{run, stderr, stdout};
use serde_json::Value;

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

fn found(args: &[&str]) -> Vec<Value> {
    let out = search(args);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    stdout(&out)
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
fn bad_queries_fail_with_a_stable_code() {
    let out = search(&["--regex", "(unclosed"]);
    assert_eq!(out.status.code(), Some(1));
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
    assert!(stderr(&out).contains("the search query is empty"));
}

#[test]
fn the_target_session_is_not_searched() {
    let results = found(&["--session", "zoo-native", "pangolin", "--json"]);
    assert_eq!(stores(&results), ["codex", "claude"]);
}
