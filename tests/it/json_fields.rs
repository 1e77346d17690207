//! The JSON outputs' field tables (`session_ref::json_fields`) against
//! what the binary prints: each output is produced for real on a fixture
//! store and the keys of every object it prints must be the table's (but
//! the fields written only for another machine's sessions). The tables
//! generate the "JSON outputs" part of docs/reference.md
//! (tests/it/readme_keys.rs), so the doc cannot drift from the output.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::support::{command, mcp::Client};
use session_ref::json_fields::{key_paths, Field};

fn store() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/search/hydra")
}

/// The keys of every value (the union: optional members appear in some).
fn union(values: &[Value]) -> BTreeSet<String> {
    values.iter().flat_map(key_paths).collect()
}

fn local(fields: &[Field]) -> BTreeSet<String> {
    fields
        .iter()
        .filter(|f| !f.remote_only)
        .map(|f| f.path.to_owned())
        .collect()
}

fn lines(home: &Path, args: &[&str]) -> Vec<Value> {
    let out = command(home)
        .arg("--store")
        .arg(store())
        .args(args)
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn candidates_and_search_print_the_fields_of_their_tables() {
    let home = tempfile::tempdir().unwrap();
    let candidates = lines(home.path(), &["candidates", "--json"]);
    assert!(!candidates.is_empty());
    assert_eq!(
        union(&candidates),
        local(session_ref::commands::CANDIDATE_FIELDS)
    );
    let found = lines(home.path(), &["search", "--json", "zephyr"]);
    assert!(!found.is_empty());
    assert_eq!(union(&found), local(session_ref::search::FOUND_FIELDS));
}

#[test]
fn doctor_json_prints_the_fields_of_its_table() {
    let home = tempfile::tempdir().unwrap();
    // An agent with both parts installed, one with no hook, and a remote
    // (unreachable): every field but an unreadable file's, which a unit
    // test beside the table covers (root reads any file).
    let setup = command(home.path())
        .env("PATH", "/usr/bin:/bin")
        .args(["setup", "--yes", "--agent", "claude"])
        .output()
        .unwrap();
    assert!(setup.status.success(), "{setup:?}");
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    // Registered in a project too, where doctor then runs.
    let project = home.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let setup = command(home.path())
        .env("PATH", "/usr/bin:/bin")
        .current_dir(&project)
        .args(["setup", "--project", "--yes", "--agent", "claude"])
        .output()
        .unwrap();
    assert!(setup.status.success(), "{setup:?}");
    let out = command(home.path())
        .current_dir(&project)
        .env("SESSION_REF_SSH", "false")
        .args(["--remote", "nowhere.invalid", "--store"])
        .arg(store())
        .args(["doctor", "--json"])
        .output()
        .unwrap();
    let value: Value = serde_json::from_slice(&out.stdout).unwrap();
    let table: BTreeSet<String> = session_ref::doctor::report::FIELDS
        .iter()
        .map(|f| f.path.to_owned())
        .collect();
    let printed = key_paths(&value);
    let unreadable: BTreeSet<String> = table
        .iter()
        .filter(|p| p.starts_with("stores[].unreadable[]"))
        .cloned()
        .collect();
    assert!(printed.is_subset(&table), "{printed:?}");
    assert_eq!(
        table.difference(&printed).cloned().collect::<BTreeSet<_>>(),
        unreadable,
        "{value}"
    );
}

#[test]
fn the_mcp_tools_answer_the_fields_of_their_tables() {
    let mut client = Client::start(&store(), &[]);
    let structured = |result: Value| result["structuredContent"].clone();
    let listed = structured(client.call("list_sessions", json!({})));
    assert_eq!(
        key_paths(&listed),
        local(session_ref::mcp::tools::LIST_FIELDS)
    );
    let searched = structured(client.call("search_sessions", json!({"query": "zephyr"})));
    let search_fields = [
        session_ref::mcp::tools::LIST_FIELDS,
        session_ref::mcp::tools::SEARCH_HIT_FIELDS,
    ]
    .concat();
    assert_eq!(key_paths(&searched), local(&search_fields));
    let read = structured(client.call("read_session", json!({"session": "zoo-native"})));
    assert_eq!(
        key_paths(&read),
        local(session_ref::mcp::tools::READ_FIELDS)
    );
}
