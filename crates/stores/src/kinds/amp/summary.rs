//! What listing, a title and the last activity need of a thread file,
//! read in one pass over its bytes that keeps nothing else.
//!
//! A thread file holds the whole conversation (120 KB on average in the
//! generated stores, often megabytes in real ones). Parsing it into a
//! `serde_json::Value` builds every message and every tool result, and
//! listing did that three times a file (its record, its title, its last
//! activity): 8 s of CPU for 10,000 threads without the title index.
//! [`summarize`] instead deserializes the head fields and streams the
//! `messages` array one message at a time, keeping of each only its role,
//! the raw bytes of its blocks' `type` and `text` and its `meta`, and
//! decoding a text only for the first prompt.
//!
//! Exactness: the typed pass is strict (a field of another type than
//! expected, a duplicate key, a file cut short, anything but an object at
//! the top) and on any error the file is parsed whole by [`super::thread::parse`],
//! whose rules are the reference: both give the same [`Summary`] for
//! every file, which the tests check on the shapes that take each path.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::thread::{first_prompt_title, parse, sent_at, thread_of, Thread};
use crate::kinds::foreign::title_from_text;

/// What a thread file says of itself, without its conversation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// `id`.
    pub id: Option<String>,
    /// `title`.
    pub title: Option<String>,
    /// `created` (epoch ms).
    pub created: Option<i64>,
    /// `env.initial.cwd`, else the first tree's path.
    pub cwd: Option<String>,
    /// Whether the file held a `messages` array.
    pub has_messages: bool,
    /// The first line of the first typed prompt.
    pub first_prompt: Option<String>,
    /// The newest `meta.sentAt` of its messages (epoch ms).
    pub last_sent: Option<i64>,
}

impl Summary {
    /// The summary of a thread parsed whole.
    pub fn of_thread(thread: &Thread) -> Summary {
        Summary {
            id: thread.id.clone(),
            title: thread.title.clone(),
            created: thread.created,
            cwd: thread.cwd.clone(),
            has_messages: thread.has_messages,
            first_prompt: first_prompt_title(&thread.messages),
            last_sent: thread.messages.iter().filter_map(sent_at).max(),
        }
    }
}

/// The summary of a thread file's bytes (see the module docs); the error
/// is [`super::thread::parse`]'s.
pub fn summarize(bytes: &[u8]) -> Result<Summary, String> {
    let object = bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'{');
    if object {
        if let Ok(head) = serde_json::from_slice::<Head>(bytes) {
            return Ok(head.into_summary());
        }
    }
    parse(bytes).map(|thread| Summary::of_thread(&thread))
}

/// The top-level object, its small fields as values (read by the same
/// code as a whole parse) and its messages streamed.
#[derive(Deserialize)]
struct Head {
    id: Option<Value>,
    title: Option<Value>,
    created: Option<Value>,
    env: Option<Value>,
    messages: Option<Messages>,
}

impl Head {
    fn into_summary(self) -> Summary {
        // The head through the whole parse's own reading of it.
        let mut object = serde_json::Map::new();
        for (key, value) in [
            ("id", self.id),
            ("title", self.title),
            ("created", self.created),
            ("env", self.env),
        ] {
            if let Some(value) = value {
                object.insert(key.to_owned(), value);
            }
        }
        let thread = thread_of(&Value::Object(object)).unwrap_or_default();
        let messages = self.messages.unwrap_or_default();
        Summary {
            id: thread.id,
            title: thread.title,
            created: thread.created,
            cwd: thread.cwd,
            has_messages: messages.present,
            first_prompt: messages.first_prompt,
            last_sent: messages.last_sent,
        }
    }
}

/// What the `messages` array gives, folded while it is read.
#[derive(Default)]
struct Messages {
    present: bool,
    first_prompt: Option<String>,
    last_sent: Option<i64>,
}

impl<'de> Deserialize<'de> for Messages {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_seq(MessagesVisitor)
    }
}

struct MessagesVisitor;

impl<'de> Visitor<'de> for MessagesVisitor {
    type Value = Messages;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of messages")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Messages, A::Error> {
        let mut out = Messages {
            present: true,
            ..Messages::default()
        };
        while let Some(message) = seq.next_element::<Message<'de>>()? {
            let sent = message.meta.as_ref().and_then(|m| m.get("sentAt"));
            if let Some(ms) = sent.and_then(Value::as_i64) {
                out.last_sent = Some(out.last_sent.map_or(ms, |was| was.max(ms)));
            }
            let user = message.role.and_then(text_of).is_some_and(|r| r == "user");
            if out.first_prompt.is_none() && user {
                out.first_prompt = message
                    .content
                    .unwrap_or_default()
                    .iter()
                    .filter(|b| b.kind.and_then(text_of).is_some_and(|k| k == "text"))
                    .filter_map(|b| b.text.and_then(text_of))
                    .filter(|t| !t.trim().is_empty())
                    .find_map(|t| title_from_text(&t));
            }
        }
        Ok(out)
    }
}

/// One message: its role, its blocks' raw `type` and `text`, its `meta`.
#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow)]
    role: Option<&'a RawValue>,
    #[serde(borrow)]
    content: Option<Vec<Block<'a>>>,
    meta: Option<Value>,
}

/// One content block, undecoded.
#[derive(Deserialize)]
struct Block<'a> {
    #[serde(borrow, rename = "type")]
    kind: Option<&'a RawValue>,
    #[serde(borrow)]
    text: Option<&'a RawValue>,
}

/// A raw JSON value as text when it is a string (`as_str`'s rule),
/// decoded only when it holds an escape.
fn text_of(raw: &RawValue) -> Option<Cow<'_, str>> {
    let json = raw.get();
    let inner = json.strip_prefix('"')?.strip_suffix('"')?;
    if inner.contains('\\') {
        serde_json::from_str::<String>(json).ok().map(Cow::Owned)
    } else {
        Some(Cow::Borrowed(inner))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Both paths give the same summary (or error) of `bytes`.
    fn same(bytes: &[u8]) -> Summary {
        let whole = parse(bytes).map(|t| Summary::of_thread(&t));
        assert_eq!(
            summarize(bytes),
            whole,
            "{}",
            String::from_utf8_lossy(bytes)
        );
        whole.unwrap_or_default()
    }

    fn thread(messages: Value) -> Value {
        json!({"v": 3, "id": "T-1", "created": 1767865803494_i64, "title": "",
            "env": {"initial": {"trees": [{"uri": "file:///home/me/a%20b"}]}},
            "messages": messages})
    }

    #[test]
    fn the_streamed_summary_is_the_whole_parse_s() {
        let user =
            |text: Value| json!({"role": "user", "content": [{"type": "text", "text": text}]});
        let cases = [
            thread(json!([
                {"role": "user", "content": [{"type": "tool_result", "text": "TOOL"}]},
                {"role": "assistant", "content": [{"type": "text", "text": "reply"}],
                 "meta": {"sentAt": 9}},
                user(json!("  ")),
                user(json!("line \"one\"\nline two")),
                {"role": "user", "content": [{"type": "text", "text": "later"}], "meta": {"sentAt": 7}},
            ])),
            thread(json!([user(json!(5)), user(json!("\u{1b}[31mred\u{7}"))])),
            thread(json!({"not": "an array"})),
            thread(json!(null)),
            thread(json!([{"role": "user", "content": "a string"}])),
            thread(json!([{"role": 1, "content": [{"type": "text", "text": "x"}]}])),
            thread(
                json!([{"role": "user", "content": [{"type": "te\u{78}t", "text": "esc"}],
                "meta": {"sentAt": 1.5}}]),
            ),
            json!({"id": 3, "created": "soon", "env": {"initial": {"cwd": "/w"}}}),
            json!([1, 2]),
        ];
        for case in cases {
            same(case.to_string().as_bytes());
        }
        let first = same(cases_first().as_bytes());
        assert_eq!(first.first_prompt.as_deref(), Some("line \"one\""));
        assert_eq!(first.last_sent, Some(9));
        assert_eq!(first.cwd.as_deref(), Some("/home/me/a b"));
        // Escaped spellings of `user` and `text`, a duplicate key, a cut.
        let escaped =
            r#"{"messages":[{"role":"us\u0065r","content":[{"type":"t\u0065xt","text":"hi"}]}]}"#;
        assert_eq!(same(escaped.as_bytes()).first_prompt.as_deref(), Some("hi"));
        same(br#"{"title":"a","title":"b","messages":[]}"#);
        let cut = &cases_first().into_bytes()[..300];
        same(cut);
        // The common shapes take the streamed pass; the odd ones the whole.
        let streamed = |b: &[u8]| serde_json::from_slice::<Head>(b).is_ok();
        assert!(streamed(cases_first().as_bytes()) && streamed(escaped.as_bytes()));
        assert!(!streamed(cut) && !streamed(br#"{"title":"a","title":"b"}"#));
        assert!(summarize(b"not json").is_err());
    }

    fn cases_first() -> String {
        let user =
            |text: &str| json!({"role": "user", "content": [{"type": "text", "text": text}]});
        thread(json!([
            {"role": "assistant", "content": [], "meta": {"sentAt": 9}},
            user("line \"one\"\nline two"),
            user("later"),
        ]))
        .to_string()
    }
}
