//! One line of a pi session: the entry's fields ([`Entry`], scanned or
//! parsed), a message's parts ([`Message`]), what the person typed
//! ([`typed_text`]) and what the line says ([`Says`]), worked out without
//! state so lines parse on every core. The tree they are linked into and
//! the fold are [`super`].

use session_ref_jsonl::loose::{
    is_str, raw_elements, scan_fields, scan_or_parse, scan_or_parse_line, string, RawText,
};

/// The keys of [`Entry`]'s fields, in their order.
pub(super) const ENTRY_KEYS: [&str; 9] = [
    "type",
    "id",
    "parentId",
    "timestamp",
    "cwd",
    "message",
    "summary",
    "firstKeptEntryId",
    "name",
];

/// The fields of a line the mapping uses, each as raw JSON text.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Entry<'a> {
    pub(super) kind: Option<RawText<'a>>,
    pub(super) id: Option<RawText<'a>>,
    pub(super) parent_id: Option<RawText<'a>>,
    pub(super) timestamp: Option<RawText<'a>>,
    pub(super) cwd: Option<RawText<'a>>,
    pub(super) message: Option<RawText<'a>>,
    pub(super) summary: Option<RawText<'a>>,
    pub(super) first_kept: Option<RawText<'a>>,
    pub(super) name: Option<RawText<'a>>,
}

impl<'a> serde::Deserialize<'a> for Entry<'a> {
    fn deserialize<D: serde::Deserializer<'a>>(d: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        struct Raw<'a> {
            #[serde(rename = "type", borrow)]
            kind: Option<RawText<'a>>,
            #[serde(borrow)]
            id: Option<RawText<'a>>,
            #[serde(rename = "parentId", borrow)]
            parent_id: Option<RawText<'a>>,
            #[serde(borrow)]
            timestamp: Option<RawText<'a>>,
            #[serde(borrow)]
            cwd: Option<RawText<'a>>,
            #[serde(borrow)]
            message: Option<RawText<'a>>,
            #[serde(borrow)]
            summary: Option<RawText<'a>>,
            #[serde(rename = "firstKeptEntryId", borrow)]
            first_kept: Option<RawText<'a>>,
            #[serde(borrow)]
            name: Option<RawText<'a>>,
        }
        let r = Raw::deserialize(d)?;
        let null = |v: Option<RawText<'a>>| v.filter(|t| t.0 != "null");
        Ok(Entry {
            kind: null(r.kind),
            id: null(r.id),
            parent_id: null(r.parent_id),
            timestamp: null(r.timestamp),
            cwd: null(r.cwd),
            message: null(r.message),
            summary: null(r.summary),
            first_kept: null(r.first_kept),
            name: null(r.name),
        })
    }
}

impl<'a> Entry<'a> {
    /// The fields of a line; `None` when it is not a JSON object.
    pub(super) fn parse(bytes: &'a [u8]) -> Option<Entry<'a>> {
        scan_or_parse_line(bytes, |text| {
            let [kind, id, parent_id, timestamp, cwd, message, summary, first_kept, name] =
                scan_fields(text, ENTRY_KEYS)?;
            Some(Entry {
                kind,
                id,
                parent_id,
                timestamp,
                cwd,
                message,
                summary,
                first_kept,
                name,
            })
        })
    }

    pub(super) fn is(&self, kind: &str) -> bool {
        is_str(self.kind, kind)
    }
}

/// The fields of `message` the mapping uses.
#[derive(Debug, Default, serde::Deserialize)]
pub(super) struct Message<'a> {
    #[serde(borrow)]
    pub(super) role: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) content: Option<RawText<'a>>,
    #[serde(borrow)]
    pub(super) timestamp: Option<RawText<'a>>,
}

impl<'a> Message<'a> {
    pub(super) fn parse(raw: Option<RawText<'a>>) -> Message<'a> {
        raw.and_then(|raw| {
            scan_or_parse(raw.0, |text| {
                let [role, content, timestamp] =
                    scan_fields(text, ["role", "content", "timestamp"])?;
                Some(Message {
                    role,
                    content,
                    timestamp,
                })
            })
        })
        .unwrap_or_default()
    }

    /// The text of `content`: the string itself, or each `text` block's.
    pub(super) fn texts(&self) -> Vec<String> {
        let Some(raw) = self.content else {
            return Vec::new();
        };
        if raw.0.starts_with('"') {
            return string(Some(raw)).into_iter().collect();
        }
        raw_elements(Some(raw))
            .into_iter()
            .filter_map(|block| {
                let [kind, text] = scan_or_parse(block.0, |t| scan_fields(t, ["type", "text"]))
                    .or_else(|| {
                        #[derive(serde::Deserialize)]
                        struct Block<'a> {
                            #[serde(rename = "type", borrow)]
                            kind: Option<RawText<'a>>,
                            #[serde(borrow)]
                            text: Option<RawText<'a>>,
                        }
                        let b: Block = serde_json::from_str(block.0).ok()?;
                        Some([b.kind, b.text])
                    })?;
                if is_str(kind, "text") {
                    string(text)
                } else {
                    None
                }
            })
            .collect()
    }
}

/// What the person typed in a `user` text: the text with each `@file`
/// block pi inserted (`<file name="ABS">…</file>\n`) replaced by `@ABS`.
/// pi writes such blocks between the piped stdin and the prompt; text
/// that holds no well-formed block is returned as it is.
pub fn typed_text(text: &str) -> String {
    pub(super) const OPEN: &str = "<file name=\"";
    let Some(start) = text.find(OPEN) else {
        return text.to_owned();
    };
    let mut paths = Vec::new();
    let mut at = start;
    while let Some(rest) = text[at..].strip_prefix(OPEN) {
        let Some(name_end) = rest.find("\">") else {
            break;
        };
        let name = &rest[..name_end];
        let body = &rest[name_end + 2..];
        // An empty or image block closes at once; a text block is
        // `\n<content>\n</file>\n`.
        let len = if let Some(after) = body.strip_prefix("</file>\n") {
            body.len() - after.len()
        } else if body.starts_with('\n') {
            match body.find("\n</file>\n") {
                Some(end) => end + "\n</file>\n".len(),
                None => break,
            }
        } else {
            match body.find("</file>\n") {
                Some(end) => end + "</file>\n".len(),
                None => break,
            }
        };
        paths.push(name);
        at += OPEN.len() + name_end + 2 + len;
    }
    if paths.is_empty() {
        return text.to_owned();
    }
    let before = &text[..start];
    let after = &text[at..];
    let mut typed = String::with_capacity(before.len() + after.len() + 64);
    typed.push_str(before);
    if !before.is_empty() && !before.ends_with(char::is_whitespace) {
        typed.push('\n');
    }
    for (i, path) in paths.iter().enumerate() {
        if i > 0 {
            typed.push(' ');
        }
        typed.push('@');
        typed.push_str(path);
    }
    if !after.is_empty() {
        typed.push(' ');
        typed.push_str(after);
    }
    typed
}

/// What one line says, worked out without state (lines are parsed on both
/// cores) and linked into the tree afterwards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Says {
    /// A direct user message.
    User(Vec<String>),
    /// Assistant text.
    Assistant(Vec<String>),
    /// A compaction: its summary and the first entry it keeps.
    Compaction {
        summary: String,
        first_kept: Option<String>,
    },
    /// An entry that is not conversation.
    Nothing,
}
