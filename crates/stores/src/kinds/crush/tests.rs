use super::convo::{first_prompt, fold, turn_of, Stored, Turn};
use super::*;
use crate::kinds::foreign::testing::texts;

fn message(id: &str, role: &str, parts: serde_json::Value) -> Stored {
    Stored {
        id: id.into(),
        role: role.into(),
        parts: parts.to_string(),
        summary: false,
    }
}

fn text(t: &str) -> serde_json::Value {
    serde_json::json!({"type": "text", "data": {"text": t}})
}

fn said(messages: &[Stored], summary: Option<&str>) -> Vec<(String, String)> {
    let mut surface = Surface::default();
    fold(messages, summary, &mut surface);
    texts(&surface)
        .into_iter()
        .map(|(_, who, text)| (who.to_owned(), text))
        .collect()
}

#[test]
fn seconds_and_milliseconds_are_told_apart() {
    assert_eq!(secs(1_796_188_268), 1_796_188_268);
    assert_eq!(secs(1_796_188_268_447), 1_796_188_268);
    assert_eq!(secs(0), 0);
    assert_eq!(secs(i64::MIN), i64::MIN.div_euclid(1000));
}

#[test]
fn prompts_are_text_parts_and_replies_leave_tools_and_reasoning_out() {
    let user = message(
        "m1",
        "user",
        serde_json::json!([text("Explain calc.py"),
            {"type": "binary", "data": {"path": "notes.txt", "mime_type": "text/plain", "data": "QVRUQUNI"}},
            {"type": "finish", "data": {"reason": "stop", "time": 0}}]),
    );
    let reply = message(
        "m2",
        "assistant",
        serde_json::json!([{"type": "reasoning", "data": {"thinking": "THINKING"}},
            {"type": "tool_call", "data": {"id": "c1", "name": "view", "input": "{}", "finished": true}},
            text("It adds numbers"),
            {"type": "finish", "data": {"reason": "end_turn", "time": 1}}]),
    );
    let tool = message(
        "m3",
        "tool",
        serde_json::json!([{"type": "tool_result", "data": {"tool_call_id": "c1", "content": "OUT"}}]),
    );
    assert_eq!(
        said(&[user, reply, tool], None),
        [
            ("user".to_owned(), "Explain calc.py".to_owned()),
            ("assistant".to_owned(), "It adds numbers".to_owned())
        ]
    );
}

#[test]
fn a_summary_shadows_what_came_before_and_the_requeued_prompt_is_unwrapped() {
    let messages = [
        message("m1", "user", serde_json::json!([text("Refactor the parser")])),
        message("m2", "assistant", serde_json::json!([text("Working on it")])),
        message("m3", "assistant", serde_json::json!([text("SUMMARY: parser half done")])),
        message(
            "m4",
            "user",
            serde_json::json!([text(
                "The previous session was interrupted because it got too long, the initial user request was: `Refactor the parser`"
            )]),
        ),
        message("m5", "assistant", serde_json::json!([text("Done")])),
    ];
    let expected = [
        (
            "checkpoint".to_owned(),
            "SUMMARY: parser half done".to_owned(),
        ),
        ("user".to_owned(), "Refactor the parser".to_owned()),
        ("assistant".to_owned(), "Done".to_owned()),
    ];
    // By the session's summary_message_id, or by the message's own flag.
    assert_eq!(said(&messages, Some("m3")), expected);
    let mut flagged = messages.clone();
    flagged[2].summary = true;
    assert_eq!(said(&flagged, None), expected);
    assert_eq!(
        first_prompt(&messages, Some("m3")).as_deref(),
        Some("Refactor the parser")
    );
}

#[test]
fn parts_that_do_not_parse_are_passed_over() {
    let broken = Stored {
        id: "m".into(),
        role: "user".into(),
        parts: "[{\"type\":".into(),
        summary: false,
    };
    assert_eq!(turn_of(&broken, None), Turn::Hidden);
    let system = message("s", "system", serde_json::json!([text("SYSTEM")]));
    assert_eq!(turn_of(&system, None), Turn::Hidden);
}

#[test]
fn a_root_names_a_registry_a_data_directory_a_project_or_a_database() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let alpha = home.join("alpha");
    let beta = home.join("beta");
    let gone = home.join("gone");
    std::fs::create_dir_all(alpha.join(".crush")).unwrap();
    std::fs::create_dir_all(beta.join("data")).unwrap();
    std::fs::write(alpha.join(".crush/crush.db"), b"").unwrap();
    std::fs::write(beta.join("data/crush.db"), b"").unwrap();
    let global = home.join("share/crush");
    std::fs::create_dir_all(&global).unwrap();
    let projects = serde_json::json!({"projects": [
        {"path": alpha, "data_dir": alpha.join(".crush"), "last_accessed": "2026-12-02T05:11:08Z"},
        {"path": beta, "data_dir": "data", "last_accessed": "2026-12-01T05:11:08Z"},
        {"path": gone, "data_dir": gone.join(".crush"), "last_accessed": "2026-11-01T05:11:08Z"},
        {"path": alpha, "data_dir": ".crush", "last_accessed": "2026-10-01T05:11:08Z"}
    ]});
    std::fs::write(global.join("projects.json"), projects.to_string()).unwrap();
    let name = |p: &Path| Some(p.to_str().unwrap().to_owned());
    assert_eq!(
        databases(&global).unwrap(),
        [
            (alpha.join(".crush/crush.db"), name(&alpha)),
            (beta.join("data/crush.db"), name(&beta)),
        ]
    );
    assert_eq!(
        databases(&alpha).unwrap(),
        [(alpha.join(".crush/crush.db"), name(&alpha))]
    );
    assert_eq!(
        databases(&alpha.join(".crush")).unwrap(),
        [(alpha.join(".crush/crush.db"), name(&alpha))]
    );
    assert_eq!(
        databases(&beta.join("data/crush.db")).unwrap(),
        [(beta.join("data/crush.db"), None)]
    );
    assert!(databases(&home.join("missing")).is_err());
    std::fs::write(global.join("projects.json"), b"{not json").unwrap();
    assert!(databases(&global)
        .unwrap_err()
        .contains("not Crush's project list"));
}

#[test]
fn default_roots_follow_crush_global_data_and_xdg() {
    let home = Some(Path::new("/home/u"));
    let none = |_: &str| None;
    assert_eq!(
        Crush.default_roots(&none, home),
        [PathBuf::from("/home/u/.local/share/crush")]
    );
    let xdg = |k: &str| (k == "XDG_DATA_HOME").then(|| "/x".to_owned());
    assert_eq!(Crush.default_roots(&xdg, home), [PathBuf::from("/x/crush")]);
    let global = |k: &str| (k == "CRUSH_GLOBAL_DATA").then(|| "/g".to_owned());
    assert_eq!(Crush.default_roots(&global, home), [PathBuf::from("/g")]);
}
