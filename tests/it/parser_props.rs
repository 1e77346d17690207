//! Property tests of every log format's line parsers over arbitrary bytes,
//! through the readers that use them (listing a file, its title, its
//! surface): none panics, each gives the same answer twice, and a valid
//! session keeps its identity whatever lines follow its head.

use std::path::Path;

use proptest::prelude::*;
use session_ref_stores::{kind_by_name, Catalog, StoreRoots};

const ID: &str = "0c0ffee0-0000-4000-8000-000000000001";

/// A line: arbitrary bytes, or JSON-looking text that reaches deeper into
/// the parsers (known keys and types with arbitrary values).
fn line() -> impl Strategy<Value = Vec<u8>> {
    let key = prop::sample::select(vec![
        "type",
        "seq",
        "data",
        "title",
        "payload",
        "message",
        "content",
        "role",
        "cwd",
        "sessionId",
        "timestamp",
        "text",
        "isCompactSummary",
        "subtype",
        "id",
        "source",
        "kind",
        "marker",
        "throughSeq",
        "thread_name",
    ]);
    let kind = prop::sample::select(vec![
        "user",
        "assistant",
        "summary",
        "system",
        "session/title",
        "user/message",
        "assistant/message",
        "session/compact",
        "session_meta",
        "response_item",
        "event_msg",
        "compacted",
        "turn_context",
        "message",
        "text",
        "input_text",
        "output_text",
        "user_message",
        "agent_message",
        "thread_name_updated",
    ]);
    let scalar = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        any::<i64>().prop_map(|n| n.to_string()),
        kind.clone().prop_map(|k| format!("\"{k}\"")),
        ".*".prop_map(|s| serde_json::Value::String(s).to_string()),
    ];
    let value = scalar.prop_recursive(3, 24, 4, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(","))),
            prop::collection::vec((key.clone(), inner), 0..5).prop_map(|fields| {
                let body: Vec<String> = fields
                    .into_iter()
                    .map(|(k, v)| format!("\"{k}\":{v}"))
                    .collect();
                format!("{{{}}}", body.join(","))
            }),
        ]
    });
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..200),
        value.prop_map(String::into_bytes),
    ]
}

fn head(kind: &str) -> String {
    match kind {
        "hydra" => format!(
            r#"{{"type":"session","version":1,"id":"{ID}","createdAt":"2026-01-05T07:00:00Z","cwd":"/w"}}"#
        ),
        "claude" => format!(
            r#"{{"parentUuid":null,"isSidechain":false,"cwd":"/w","sessionId":"{ID}","type":"user","message":{{"role":"user","content":"hi"}},"uuid":"u1","timestamp":"2026-01-05T07:00:00.000Z"}}"#
        ),
        _ => format!(
            r#"{{"timestamp":"2026-01-05T07:00:00.000Z","type":"session_meta","payload":{{"id":"{ID}","timestamp":"2026-01-05T07:00:00.000Z","cwd":"/w"}}}}"#
        ),
    }
}

/// List `content` as a one-file store of `kind`; for each record its id,
/// cwd, title and whether its surface reads; and what could not be listed.
fn list(kind: &str, dir: &Path, content: &[u8]) -> Vec<String> {
    let file = match kind {
        "hydra" => dir.join("s.jsonl"),
        "claude" => dir.join("p").join(format!("{ID}.jsonl")),
        _ => dir
            .join("2026")
            .join(format!("rollout-2026-01-05T07-00-00-{ID}.jsonl")),
    };
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, content).unwrap();
    let store = kind_by_name(kind).expect("a registered kind");
    let catalog = Catalog::load(&StoreRoots::new().with(store, dir));
    let mut seen: Vec<String> = catalog
        .ordered()
        .map(|record| {
            let title = catalog.read_title(record).map_err(|e| e.message);
            let surface = catalog
                .read_surface(record)
                .map(|s| s.events.len())
                .map_err(|e| e.message);
            format!(
                "record {} {:?} {title:?} {surface:?}",
                record.id, record.cwd
            )
        })
        .collect();
    seen.extend(
        catalog
            .skipped
            .iter()
            .map(|(_, why)| format!("skipped {why}")),
    );
    seen.extend(
        catalog
            .unreadable
            .iter()
            .map(|(_, why)| format!("unreadable {why}")),
    );
    seen
}

fn content(head: Option<String>, lines: &[Vec<u8>], final_newline: bool) -> Vec<u8> {
    let mut bytes = Vec::new();
    if let Some(head) = head {
        bytes.extend_from_slice(head.as_bytes());
        bytes.push(b'\n');
    }
    for (i, line) in lines.iter().enumerate() {
        bytes.extend_from_slice(line);
        if final_newline || i + 1 < lines.len() {
            bytes.push(b'\n');
        }
    }
    bytes
}

proptest! {
    #![proptest_config(crate::support::proptest_config(96))]

    #[test]
    fn arbitrary_lines_never_panic_and_read_the_same_twice(
        kind in prop::sample::select(vec!["hydra", "claude", "codex"]),
        with_head in any::<bool>(),
        lines in prop::collection::vec(line(), 0..8),
        final_newline in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let bytes = content(with_head.then(|| head(kind)), &lines, final_newline);
        let first = list(kind, dir.path(), &bytes);
        let second = list(kind, dir.path(), &bytes);
        prop_assert_eq!(&first, &second);
        prop_assert!(first.len() <= 1);
        if with_head {
            // The head alone identifies the session, whatever follows it.
            prop_assert!(
                first.iter().any(|e| e.starts_with(&format!("record {ID} Some(\"/w\")"))),
                "{:?}", first
            );
        }
    }
}
