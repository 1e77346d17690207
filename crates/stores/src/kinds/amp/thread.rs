//! A thread file parsed whole into values: what the preview and
//! snapshots read, and the reference for [`super::summary`]'s pass.

use serde_json::Value;

use crate::kinds::foreign::title_from_text;

/// A thread file, as far as it could be read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Thread {
    /// `id`.
    pub id: Option<String>,
    /// `title`.
    pub title: Option<String>,
    /// `created` (epoch ms).
    pub created: Option<i64>,
    /// `env.initial.cwd`, else the first tree's path.
    pub cwd: Option<String>,
    /// `messages`.
    pub messages: Vec<Value>,
    /// Whether the file held a `messages` array.
    pub has_messages: bool,
}

/// The directory a tree's `file://` URI names (percent escapes decoded).
pub(crate) fn uri_path(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = || std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok();
        match (bytes[i], hex().and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok().filter(|p| p.starts_with('/'))
}

/// Parse a thread file's bytes. A file cut short keeps its complete
/// messages (and loses the fields after them).
pub fn parse(bytes: &[u8]) -> Result<Thread, String> {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(value) => thread_of(&value).ok_or_else(|| "not a JSON object".to_owned()),
        Err(e) if e.is_eof() => Ok(cut_short(bytes)),
        Err(e) => Err(e.to_string()),
    }
}

pub(crate) fn thread_of(value: &Value) -> Option<Thread> {
    let object = value.as_object()?;
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
    let initial = value.pointer("/env/initial");
    let cwd = text(initial.and_then(|i| i.get("cwd")))
        .filter(|c| !c.is_empty())
        .or_else(|| {
            let trees = initial?.get("trees")?.as_array()?;
            trees
                .iter()
                .find_map(|t| t.get("uri").and_then(Value::as_str).and_then(uri_path))
        });
    let messages = object.get("messages").and_then(Value::as_array);
    Some(Thread {
        id: text(object.get("id")),
        title: text(object.get("title")),
        created: object.get("created").and_then(Value::as_i64),
        cwd,
        has_messages: messages.is_some(),
        messages: messages.cloned().unwrap_or_default(),
    })
}

/// The complete messages of a file cut inside its `messages` array, with
/// the head fields written before it.
fn cut_short(bytes: &[u8]) -> Thread {
    let key = b"\"messages\"";
    let Some(at) = memchr::memmem::find(bytes, key) else {
        return Thread::default();
    };
    let mut rest = &bytes[at + key.len()..];
    let skip = |r: &mut &[u8], what: &[u8]| {
        while let [first, tail @ ..] = *r {
            if first.is_ascii_whitespace() || what.contains(first) {
                *r = tail;
            } else {
                break;
            }
        }
    };
    skip(&mut rest, b":");
    let mut thread = Thread {
        has_messages: rest.first() == Some(&b'['),
        ..Thread::default()
    };
    if !thread.has_messages {
        return thread;
    }
    rest = &rest[1..];
    loop {
        skip(&mut rest, b",");
        let mut values = serde_json::Deserializer::from_slice(rest).into_iter::<Value>();
        match values.next() {
            Some(Ok(message)) => {
                let used = values.byte_offset();
                thread.messages.push(message);
                rest = &rest[used..];
            }
            _ => break,
        }
    }
    // The head fields before `messages`, when the file put them first.
    let mut head = bytes[..at].to_vec();
    head.extend_from_slice(b"\"_\":0}");
    if let Some(before) = serde_json::from_slice::<Value>(&head)
        .ok()
        .as_ref()
        .and_then(thread_of)
    {
        thread = Thread {
            messages: thread.messages,
            has_messages: true,
            ..before
        };
    }
    thread
}

/// The texts of a message's blocks of `kind`.
pub(crate) fn texts(message: &Value, kind: &str) -> Vec<String> {
    let blocks = message.get("content").and_then(Value::as_array);
    blocks
        .into_iter()
        .flatten()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some(kind))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .filter(|t| !t.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

/// The first line of the first typed prompt.
pub(crate) fn first_prompt_title(messages: &[Value]) -> Option<String> {
    messages
        .iter()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        .flat_map(|m| texts(m, "text"))
        .find_map(|t| title_from_text(&t))
}

/// A message's `meta.sentAt` (epoch ms).
pub(crate) fn sent_at(message: &Value) -> Option<i64> {
    message.pointer("/meta/sentAt").and_then(Value::as_i64)
}
