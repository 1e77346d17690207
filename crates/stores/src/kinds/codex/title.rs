//! The title of a Codex session: the later of the rollout's latest
//! `thread_name_updated` and its `session_index.jsonl` entry, else the
//! first prompt as Codex lists it (a paginated fork's inherited one
//! first), each cached per file version.

use std::collections::HashMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::fold::{find_rollout, history_base, HistoryBase, MAX_FORK_DEPTH};
use super::line::{parse_line, Item};
use super::said::{prompt_title, said_in_event, said_in_item, Said};
use crate::caches::Caches;
use crate::error::ReadError;
use crate::kinds::foreign::{last_line_where, read_lines, FileCache, Visit};
use crate::model::SessionRecord;
use session_ref_core::time::Instant;
use session_ref_jsonl::loose::{is_str, string};

/// The name of the thread index beside the `sessions` directory.
pub const SESSION_INDEX: &str = "session_index.jsonl";

/// A thread name and when it was set.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ThreadName {
    name: String,
    at: Option<String>,
}

/// What titling remembers between calls, owned by the catalog's [`Caches`].
#[derive(Default)]
struct CodexCaches {
    /// The latest `thread_name_updated` of each rollout.
    rollout_names: FileCache<Option<ThreadName>>,
    /// Parsed `session_index.jsonl` files.
    indexes: FileCache<HashMap<String, ThreadName>>,
    /// Titles from the first prompt.
    head_titles: FileCache<Option<String>>,
}

/// The session's title: the later of the rollout's latest
/// `thread_name_updated` and its `session_index.jsonl` entry (a blank name
/// means unnamed), else the first prompt (see `head_title`).
pub fn read_title(caches: &Caches, record: &SessionRecord) -> Result<Option<String>, ReadError> {
    let caches = caches.get::<CodexCaches>();
    let path = &record.path;
    let in_rollout = caches
        .rollout_names
        .get(path, 0, || rollout_thread_name(path))?;
    let in_index = index_entry(&caches, record);
    let named = match (in_rollout.as_ref(), in_index.as_ref()) {
        (Some(rollout), Some(index)) if later(index.at.as_deref(), rollout.at.as_deref()) => {
            Some(index)
        }
        (Some(rollout), _) => Some(rollout),
        (None, index) => index,
    };
    if let Some(named) = named.filter(|n| !n.name.trim().is_empty()) {
        return Ok(Some(named.name.clone()));
    }
    let head = caches
        .head_titles
        .get(path, 0, || head_title(&record.root, path))?;
    Ok((*head).clone())
}

/// Whether instant `a` is strictly after `b` (both must parse).
fn later(a: Option<&str>, b: Option<&str>) -> bool {
    let parse = |t: Option<&str>| t.and_then(Instant::parse_rfc3339);
    matches!((parse(a), parse(b)), (Some(a), Some(b)) if a > b)
}

fn thread_name_of(bytes: &[u8]) -> Option<ThreadName> {
    match parse_line(bytes)? {
        (at, Item::Event(p)) if is_str(p.kind, "thread_name_updated") => Some(ThreadName {
            name: string(p.thread_name)?,
            at,
        }),
        _ => None,
    }
}

/// The rollout's latest `thread_name_updated`, from the end of the file.
fn rollout_thread_name(path: &Path) -> Result<Option<ThreadName>, ReadError> {
    last_line_where(path, b"thread_name_updated", thread_name_of)
}

/// The session's entry in `session_index.jsonl` beside the sessions root.
/// An absent or unreadable index names nothing.
fn index_entry(caches: &CodexCaches, record: &SessionRecord) -> Option<ThreadName> {
    let index = record.root.parent()?.join(SESSION_INDEX);
    if !index.is_file() {
        return None;
    }
    let names = caches.indexes.get(&index, 0, || parse_index(&index)).ok()?;
    names.get(&record.id).cloned()
}

/// `{id, thread_name, updated_at}` lines; the newest (last) line per id wins.
fn parse_index(path: &Path) -> Result<HashMap<String, ThreadName>, ReadError> {
    #[derive(Deserialize)]
    struct Entry<'a> {
        #[serde(borrow)]
        id: Option<&'a RawValue>,
        #[serde(borrow)]
        thread_name: Option<&'a RawValue>,
        #[serde(borrow)]
        updated_at: Option<&'a RawValue>,
    }
    let mut names = HashMap::new();
    read_lines(path, false, |_, bytes| {
        let Ok(entry) = serde_json::from_slice::<Entry<'_>>(bytes) else {
            return Visit::BAD;
        };
        if let (Some(id), Some(name)) = (string(entry.id), string(entry.thread_name)) {
            names.insert(
                id,
                ThreadName {
                    name,
                    at: string(entry.updated_at),
                },
            );
        }
        Visit::NEXT
    })?;
    Ok(names)
}

/// The title of an unnamed rollout, as Codex lists it: the first prompt of
/// an event copy (`user_message`, or `item_completed` `UserMessage`), else
/// the first direct user message of the response items; its first line (≤
/// 80 chars), IDE wrapper stripped, `[Image]` for a prompt made only of
/// images.
///
/// A paginated fork is listed by the first prompt of the history it
/// inherits (Codex 0.171's `thread/list` shows a fork, and a fork of a
/// fork, by the root's first prompt): its parent's title up to the fork
/// point comes first, its own turns only when that history has no prompt
/// or its parent cannot be found.
///
/// Reads forward only as far as needed: an event copy follows its response
/// item before the reply, so once a response-item prompt is found the read
/// stops at the first assistant message.
fn head_title(root: &Path, path: &Path) -> Result<Option<String>, ReadError> {
    head_title_within(root, path, None, 0)
}

/// [`head_title`] of the first `limit` bytes of `path` (all of it
/// without), `depth` forks below the rollout being titled.
fn head_title_within(
    root: &Path,
    path: &Path,
    limit: Option<u64>,
    depth: usize,
) -> Result<Option<String>, ReadError> {
    let mut from_event = None;
    let mut from_item = None;
    let mut inherited = None;
    let mut meta_seen = false;
    let mut read = 0u64;
    read_lines(path, true, |_, bytes| {
        if limit.is_some_and(|limit| read >= limit) {
            return Visit::DONE;
        }
        read += bytes.len() as u64 + 1;
        let Some((_, item)) = parse_line(bytes) else {
            return Visit::BAD;
        };
        match item {
            Item::Meta(p) if !meta_seen => {
                meta_seen = true;
                if let Ok(Some(base)) = history_base(&p, path) {
                    inherited = parent_title(root, path, &base, depth);
                    if inherited.is_some() {
                        return Visit::DONE;
                    }
                }
            }
            Item::Event(p) => match said_in_event(&p) {
                Some(Said::User(texts)) => {
                    from_event = prompt_title(&texts);
                    if from_event.is_some() {
                        return Visit::DONE;
                    }
                }
                Some(Said::Assistant(_)) if from_item.is_some() => return Visit::DONE,
                _ => {}
            },
            Item::Response(p) => match said_in_item(&p) {
                Some(Said::User(texts)) if from_item.is_none() => {
                    from_item = prompt_title(&texts);
                }
                Some(Said::Assistant(_)) if from_item.is_some() => return Visit::DONE,
                _ => {}
            },
            _ => {}
        }
        Visit::NEXT
    })?;
    Ok(inherited.or(from_event).or(from_item))
}

/// The title of the history a paginated fork inherits: its parent's,
/// read up to the fork point. `None` when the parent is missing or
/// unreadable (the fork's own turns then title it; reading its surface
/// reports the missing parent), or the chain is too deep.
fn parent_title(root: &Path, fork: &Path, base: &HistoryBase, depth: usize) -> Option<String> {
    if depth >= MAX_FORK_DEPTH {
        return None;
    }
    let parent = find_rollout(root, fork, &base.thread_id)?;
    head_title_within(root, &parent, Some(base.end_byte_offset), depth + 1)
        .ok()
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::super::read_surface;
    use super::super::testing::{
        event, item_assistant, item_user, meta, meta_171, read_title, rollout, user_completed,
        Store, ID,
    };
    use super::*;
    use crate::kinds::foreign::testing::texts;

    #[test]
    fn titles_as_codex_lists_them() {
        let store = Store::new();
        let item_completed = |kind: &str, content: &str| {
            format!(
                r#"{{"timestamp":"t","type":"event_msg","ordinal":3,"payload":{{"type":"item_completed","item":{{"type":"{kind}","id":"i","content":{content}}}}}}}"#
            )
        };
        let image_only = store.write(
            &rollout(ID),
            &[
                meta(ID, Some("/w")),
                r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<image name=[Image #1]>"},{"type":"input_image","image_url":"data:"},{"type":"input_text","text":"</image>"}]}}"#.into(),
                item_completed("UserMessage", r#"[{"type":"local_image","path":"/a.png"},{"type":"text","text":""}]"#),
                item_completed("AgentMessage", r#"[{"type":"Text","text":"A cat."}]"#),
                item_assistant("A cat."),
            ],
        );
        let record = store.record(&image_only);
        assert_eq!(read_title(&record).unwrap().as_deref(), Some("[Image]"));
        assert_eq!(
            texts(&read_surface(&record).unwrap()),
            [(5, "assistant", "A cat.".to_owned())]
        );
        // The event copy is the title even when the response item differs.
        let b = "bbbbbbbb-2222-4333-8444-555555555555";
        let wrapped = store.write(
            &rollout(b),
            &[
                meta(b, Some("/w")),
                item_user("# Context from my IDE setup:\n## Open tabs:\n- x\n## My request for Codex:\nfrom the item"),
                event("user_message", "message", "# Context from my IDE setup:\n## My request for Codex:\nfrom the event", "t"),
                item_assistant("ok"),
            ],
        );
        assert_eq!(
            read_title(&store.record(&wrapped)).unwrap().as_deref(),
            Some("from the event")
        );
        // Events are used for the surface only without response items.
        let c = "cccccccc-2222-4333-8444-555555555555";
        let events_only = store.write(
            &rollout(c),
            &[
                meta(c, Some("/w")),
                item_completed("UserMessage", r#"[{"type":"text","text":"only events"}]"#),
                item_completed("AgentMessage", r#"[{"type":"Text","text":"seen"}]"#),
                r#"{"timestamp":"t","type":"token_usage_record","ordinal":5,"payload":{"usage":{}}}"#.into(),
            ],
        );
        assert_eq!(
            texts(&read_surface(&store.record(&events_only)).unwrap()),
            [
                (2, "user", "only events".to_owned()),
                (3, "assistant", "seen".to_owned()),
            ]
        );
    }

    #[test]
    fn forks_are_titled_by_the_first_prompt_of_their_inherited_history() {
        let store = Store::new();
        let root_id = "01a232f5-1ea6-7891-a820-e4a61d60910e";
        let fork_id = "01a232f5-2265-79f3-9fa4-9e7933329c85";
        let fork2_id = "01a232f5-2476-7331-852f-7810b76c6a9e";
        let root = store.write(
            &rollout(root_id),
            &[
                meta_171(root_id, r#""exec""#, None),
                item_user("<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"),
                item_user("root prompt of the chain"),
                user_completed(root_id, "root prompt of the chain"),
                item_assistant("ACK: root prompt of the chain"),
            ],
        );
        let root_len = std::fs::metadata(&root).unwrap().len();
        let fork = store.write(
            &rollout(fork_id),
            &[
                meta_171(fork_id, r#""exec""#, Some((root_id, root_len))),
                item_user("first fork own prompt"),
                user_completed(fork_id, "first fork own prompt"),
                item_assistant("ACK: first fork own prompt"),
            ],
        );
        let fork_len = std::fs::metadata(&fork).unwrap().len();
        let fork2 = store.write(
            &rollout(fork2_id),
            &[
                meta_171(fork2_id, r#""exec""#, Some((fork_id, fork_len))),
                item_user("fork of fork own prompt"),
                user_completed(fork2_id, "fork of fork own prompt"),
                item_assistant("ACK: fork of fork own prompt"),
            ],
        );
        for path in [&root, &fork, &fork2] {
            assert_eq!(
                read_title(&store.record(path)).unwrap().as_deref(),
                Some("root prompt of the chain"),
                "{}",
                path.display()
            );
        }
        // A named fork keeps its name.
        store.index(&[&format!(
            r#"{{"id":"{fork2_id}","thread_name":"Named fork","updated_at":"2026-12-01T19:00:00Z"}}"#
        )]);
        assert_eq!(
            super::read_title(&Caches::default(), &store.record(&fork2))
                .unwrap()
                .as_deref(),
            Some("Named fork")
        );
        // Without its parent, a fork is titled by its own first prompt.
        std::fs::remove_file(&root).unwrap();
        assert_eq!(
            super::read_title(&Caches::default(), &store.record(&fork))
                .unwrap()
                .as_deref(),
            Some("first fork own prompt")
        );
    }

    #[test]
    fn titles_from_thread_names_index_and_first_prompt() {
        let store = Store::new();
        let named = |name: &str, at: &str| {
            format!(
                r#"{{"timestamp":"{at}","type":"event_msg","payload":{{"type":"thread_name_updated","thread_id":"x","thread_name":"{name}"}}}}"#
            )
        };
        let a = "aaaaaaaa-2222-4333-8444-555555555555";
        let b = "bbbbbbbb-2222-4333-8444-555555555555";
        let c = "cccccccc-2222-4333-8444-555555555555";
        let d = "dddddddd-2222-4333-8444-555555555555";
        let pa = store.write(
            &rollout(a),
            &[
                meta(a, Some("/w")),
                item_user("prompt a"),
                named("First name", "2026-01-02T17:00:00Z"),
                named("Renamed", "2026-01-02T18:00:00Z"),
                item_assistant("ok"),
            ],
        );
        let pb = store.write(
            &rollout(b),
            &[
                meta(b, Some("/w")),
                item_user("prompt b"),
                named("In rollout", "2026-01-02T18:00:00Z"),
            ],
        );
        let pc = store.write(
            &rollout(c),
            &[
                meta(c, Some("/w")),
                item_user("<environment_context>\n</environment_context>"),
                item_user(&"long ".repeat(30)),
            ],
        );
        let pd = store.write(
            &rollout(d),
            &[
                meta(d, Some("/w")),
                item_user("prompt d"),
                named("", "2026-01-02T18:00:00Z"),
            ],
        );
        store.index(&[
            &format!(
                r#"{{"id":"{b}","thread_name":"Old index","updated_at":"2026-01-02T17:00:00Z"}}"#
            ),
            &format!(
                r#"{{"id":"{a}","thread_name":"Stale index","updated_at":"2026-01-02T17:30:00Z"}}"#
            ),
            &format!(
                r#"{{"id":"{b}","thread_name":"Index wins","updated_at":"2026-01-02T19:00:00Z"}}"#
            ),
            &format!(
                r#"{{"id":"{c}","thread_name":"Only index","updated_at":"2026-01-02T19:00:00Z"}}"#
            ),
            "not json",
        ]);
        let title = |p: &Path| read_title(&store.record(p)).unwrap();
        assert_eq!(title(&pa).as_deref(), Some("Renamed"));
        assert_eq!(title(&pb).as_deref(), Some("Index wins"));
        assert_eq!(title(&pc).as_deref(), Some("Only index"));
        assert_eq!(title(&pd).as_deref(), Some("prompt d"));
        store.index(&[]);
        let cut = title(&pc).unwrap();
        assert_eq!(cut, "long ".repeat(16).trim_end());
    }
}
