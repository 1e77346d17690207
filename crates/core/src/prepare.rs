//! Preparing a message: reference normalization, per-source retention, the
//! context message and its source (SPEC §8). Pure: the sessions are read by
//! the caller and handed in.

use serde::Serialize;

use crate::error::{Error, ErrorCode, Result};
use crate::json;
use crate::mention::Reference;
use crate::model::Surface;
use crate::render::{self, ReferenceData};
use crate::retention::{RetentionStats, SourceFields};
use crate::streaming::RetainingSink;

/// One distinct source to snapshot, in first-mention order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceRef {
    /// Session id.
    pub session_id: String,
    /// Label of its first mention.
    pub label: String,
}

/// Keep first-mention order, drop repeated ids, reject a reference to the
/// target and more than `max_references` distinct sources.
pub fn normalize_references(
    target_id: Option<&str>,
    references: &[Reference],
    max_references: usize,
) -> Result<Vec<SourceRef>> {
    let mut sources: Vec<SourceRef> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for reference in references {
        if target_id == Some(reference.session_id.as_str()) {
            return Err(Error::new(
                ErrorCode::SelfReference,
                format!(
                    "session {} cannot reference itself",
                    json::quote(&reference.session_id, false)
                ),
            ));
        }
        if seen.insert(reference.session_id.as_str()) {
            sources.push(SourceRef {
                session_id: reference.session_id.clone(),
                label: reference.label.clone(),
            });
        }
    }
    if sources.len() > max_references {
        return Err(Error::new(
            ErrorCode::TooMany,
            format!("a message may reference at most {max_references} sessions"),
        ));
    }
    Ok(sources)
}

/// A source as read: its cwd, what retention needs of its surface, and the
/// seq of the last complete event read.
#[derive(Debug, Clone)]
pub struct ReadSource {
    /// The source's cwd.
    pub cwd: Option<String>,
    /// The surface, folded into what the budget can still need.
    pub retained: RetainingSink,
    /// Seq of the last complete event read.
    pub captured_through_seq: u64,
}

impl ReadSource {
    /// A source read whole, retained within `max_bytes`.
    pub fn of_surface(cwd: Option<&str>, surface: &Surface, max_bytes: usize) -> Self {
        ReadSource {
            cwd: cwd.map(str::to_owned),
            retained: RetainingSink::of_surface(surface, max_bytes),
            captured_through_seq: surface.captured_through_seq,
        }
    }
}

/// Per-source entry of the context message's source, in the reference's key order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReferenceStats {
    /// Source session id.
    pub session_id: String,
    /// Label of its first mention.
    pub label: String,
    /// Seq of the last complete event read.
    pub captured_through_seq: u64,
    /// Any checkpoint in the projection.
    pub compacted: bool,
    /// Projected items before retention.
    pub original_messages: usize,
    /// Items kept.
    pub retained_messages: usize,
    /// Items dropped whole.
    pub omitted_messages: usize,
    /// UTF-8 bytes omitted.
    pub omitted_bytes: usize,
    /// Whether anything was omitted.
    pub truncated: bool,
    /// Position among the sources.
    pub input_index: usize,
}

impl ReferenceStats {
    fn new(data: &ReferenceData, stats: RetentionStats, input_index: usize) -> Self {
        ReferenceStats {
            session_id: data.session_id.clone(),
            label: data.label.clone(),
            captured_through_seq: data.captured_through_seq,
            compacted: stats.compacted,
            original_messages: stats.original_messages,
            retained_messages: stats.retained_messages,
            omitted_messages: stats.omitted_messages,
            omitted_bytes: stats.omitted_bytes,
            truncated: stats.truncated,
            input_index,
        }
    }
}

/// The prepared context: its text, the retained objects and their stats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Context {
    /// Prefix, tag-safe JSON array, suffix.
    pub text: String,
    /// The reference objects, in source order.
    pub data: Vec<ReferenceData>,
    /// Stats per source, in source order.
    pub references: Vec<ReferenceStats>,
}

/// Retain every source (folded within the budget already) and render the
/// context. `read[i]` is the read of `sources[i]`.
pub fn build_context(sources: &[SourceRef], read: Vec<ReadSource>) -> Result<Context> {
    let mut data = Vec::with_capacity(sources.len());
    let mut references = Vec::with_capacity(sources.len());
    for (index, (source, read)) in sources.iter().zip(read).enumerate() {
        let fields = SourceFields {
            session_id: &source.session_id,
            label: &source.label,
            cwd: read.cwd.as_deref(),
            captured_through_seq: read.captured_through_seq,
        };
        let retained = read.retained.finish(fields)?;
        references.push(ReferenceStats::new(&retained.data, retained.stats, index));
        data.push(retained.data);
    }
    Ok(Context {
        text: render::render_context(&data),
        data,
        references,
    })
}

#[derive(Serialize)]
struct ContextSource<'a> {
    kind: &'static str,
    form: &'static str,
    version: u32,
    references: &'a [ReferenceStats],
}

/// The source object of the context message.
pub fn context_source_json(references: &[ReferenceStats]) -> serde_json::Value {
    serde_json::to_value(ContextSource {
        kind: "session-reference",
        form: "recall",
        version: 1,
        references,
    })
    .expect("context source serializes")
}

/// A user message with one text block, as one JSON line (no newline).
pub fn user_message_json(source: &serde_json::Value, text: &str) -> String {
    let mut out = String::from("{\"role\":\"user\",\"source\":");
    json::write_value(&mut out, source);
    out.push_str(",\"content\":[{\"type\":\"text\",\"text\":");
    json::write_str(&mut out, text, false);
    out.push_str("}]}");
    out
}

/// The context message as one JSON line.
pub fn context_message_json(context: &Context) -> String {
    user_message_json(&context_source_json(&context.references), &context.text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(id: &str, label: &str) -> Reference {
        Reference {
            session_id: id.into(),
            label: label.into(),
        }
    }

    #[test]
    fn normalization_orders_dedupes_and_limits() {
        let refs = [r("a", "A"), r("b", "B"), r("a", "again"), r("c", "C")];
        let sources = normalize_references(Some("t"), &refs, 3).unwrap();
        let got: Vec<_> = sources
            .iter()
            .map(|s| (s.session_id.as_str(), s.label.as_str()))
            .collect();
        assert_eq!(got, [("a", "A"), ("b", "B"), ("c", "C")]);
        assert_eq!(
            normalize_references(None, &refs, 2).unwrap_err().code,
            ErrorCode::TooMany
        );
        // Self-reference is found before the count is checked.
        let with_self = [r("a", ""), r("b", ""), r("c", ""), r("d", ""), r("t", "")];
        assert_eq!(
            normalize_references(Some("t"), &with_self, 3)
                .unwrap_err()
                .code,
            ErrorCode::SelfReference
        );
    }

    #[test]
    fn context_message_has_the_documented_shape() {
        let surface = Surface::default();
        let sources = [SourceRef {
            session_id: "s".into(),
            label: "L".into(),
        }];
        let context =
            build_context(&sources, vec![ReadSource::of_surface(None, &surface, 1000)]).unwrap();
        assert_eq!(
            context_message_json(&context),
            format!(
                "{{\"role\":\"user\",\"source\":{{\"kind\":\"session-reference\",\"form\":\"recall\",\"version\":1,\
                 \"references\":[{{\"sessionId\":\"s\",\"label\":\"L\",\"capturedThroughSeq\":0,\"compacted\":false,\
                 \"originalMessages\":0,\"retainedMessages\":0,\"omittedMessages\":0,\"omittedBytes\":0,\
                 \"truncated\":false,\"inputIndex\":0}}]}},\"content\":[{{\"type\":\"text\",\"text\":{}}}]}}",
                json::quote(&context.text, false)
            )
        );
        assert!(context.text.ends_with("[{\"sessionId\":\"s\",\"label\":\"L\",\"cwd\":null,\"capturedThroughSeq\":0,\"conversation\":[]}]\n</referenced-sessions>"));
    }
}
