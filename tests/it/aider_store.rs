//! Aider's chat histories found where the other stores' sessions ran (and
//! the run's own directory), never by walking the disk; their search text
//! is what the person typed and the model answered.

use std::path::Path;

use serde_json::Value;

use crate::support::{self, Session};

/// A git project with an Aider history of one session at its root.
fn project(dir: &Path) -> std::path::PathBuf {
    let project = dir.join("alpha");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    std::fs::create_dir_all(project.join("sub")).unwrap();
    std::fs::write(
        project.join(".aider.chat.history.md"),
        "\n# aider chat started at 2026-12-02 05:22:07\n\n\
         > /v/bin/aider --model openai/mock-model  \n> Aider v0.86.2  \n\
         > Git repo: .git with 2 files  \n\n\
         #### Add pagination to the orders API  \n\n\
         Orders now come in pages of 50\n\n> Tokens: 798 sent, 11 received.  \n",
    )
    .unwrap();
    project
}

fn aider_rows(args: &[&str]) -> Vec<Value> {
    let out = support::run(args, "");
    assert!(out.status.success(), "{}", support::stderr(&out));
    support::stdout(&out)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|c| c["store"] == "aider")
        .collect()
}

#[test]
fn a_history_is_found_in_the_project_another_store_s_session_ran_in() {
    let dir = tempfile::tempdir().unwrap();
    let project = project(dir.path());
    let home_aider = dir.path().join("home/.aider");
    std::fs::create_dir_all(&home_aider).unwrap();
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let (aider, cwd) = (home_aider.to_str().unwrap(), elsewhere.to_str().unwrap());
    let hydra = dir.path().join("hydra");
    std::fs::create_dir_all(&hydra).unwrap();
    let store = hydra.to_str().unwrap();
    // Nothing knows the project yet: nothing is listed.
    let none = [
        "--store",
        store,
        "--aider",
        aider,
        "--cwd",
        cwd,
        "candidates",
        "--json",
    ];
    assert!(aider_rows(&none).is_empty());
    // A session of another agent ran in its subdirectory.
    let sub = project.join("sub");
    Session::new(
        "native-1",
        "2026-12-01T00:00:00Z",
        Some(sub.to_str().unwrap()),
    )
    .user("hello")
    .write(&hydra, "native-1.jsonl");
    let rows = aider_rows(&none);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["cwd"], project.to_str().unwrap());
    assert_eq!(rows[0]["label"], "Add pagination to the orders API");
    let id = rows[0]["sessionId"].as_str().unwrap().to_owned();
    assert!(id.starts_with("aider-20261202T052207-"), "{id}");
    // The run's own directory is known too.
    let own = [
        "--aider",
        aider,
        "--cwd",
        sub.to_str().unwrap(),
        "candidates",
        "--json",
    ];
    assert_eq!(aider_rows(&own).len(), 1);
    // Search finds what was typed and answered, not aider's own lines.
    let search = |query: &str| {
        let out = support::run(
            &[
                "--store", store, "--aider", aider, "--cwd", cwd, "search", "--json", query,
            ],
            "",
        );
        support::stdout(&out)
    };
    assert!(search("pagination").contains(&id));
    assert!(search("pages of 50").contains(&id));
    assert!(!search("mock-model").contains(&id));
    assert!(!search("798 sent").contains(&id));
}
