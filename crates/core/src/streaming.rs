//! Retention while a log is read: a [`SurfaceSink`] that keeps only what the
//! byte budget can still need, so that snapshotting a session takes memory
//! bounded by the budget, not by the log (SPEC §7).
//!
//! Retention keeps every checkpoint and the newest item, and drops the
//! oldest other items first. So once the items after (and including) an
//! item X weigh more than the budget on their own, X will be dropped
//! whatever comes later: items only grow (a reply written over several
//! lines) or are appended, and a compaction removes a prefix of the log,
//! which takes X with it or leaves everything after X in place. Such an item
//! is evicted at once and only its seq and size are kept, for exact
//! counts. [`RetainingSink::finish`] then runs the ordinary retention on
//! what is held, with the evicted counts added: the result is the one
//! retaining the whole projected surface gives (property-tested below
//! against [`project`](crate::projection::project) and
//! [`retain`](crate::retention::retain)).

use std::any::Any;
use std::borrow::Cow;
use std::collections::VecDeque;

use crate::error::Result;
use crate::json;
use crate::model::{Block, EventKind, MessageSource, Surface, SurfaceEvent, SurfaceSink};
use crate::projection::{ProjectedItem, Role};
use crate::render;
use crate::retention::{retain_after, Dropped, Retained, SourceFields};

/// A held event: a checkpoint, or one of the newest suffix.
#[derive(Debug, Clone)]
struct Held {
    seq: u64,
    role: Role,
    checkpoint: bool,
    /// Its text blocks (other blocks are never projected).
    texts: Vec<String>,
    /// Serialized size of its conversation item plus a separating comma,
    /// 0 when it projects to nothing.
    weight: usize,
}

/// An evicted event: what exact counts still need of it.
#[derive(Debug, Clone, Copy)]
struct Evicted {
    seq: u64,
    /// Whether it is an assistant message (the only kind extended).
    assistant: bool,
    /// Number of text blocks.
    blocks: usize,
    /// Bytes of its text blocks.
    bytes: usize,
}

impl Evicted {
    /// Whether it projects to an item, and the UTF-8 bytes of that item.
    fn item(self) -> Option<usize> {
        match self.blocks {
            0 => None,
            1 if self.bytes == 0 => None,
            n => Some(self.bytes + n - 1),
        }
    }
}

/// Serialized size of the item of `texts` (joined by `"\n"`) plus a comma;
/// 0 when the joined text is empty (not an item).
fn weight(role: Role, texts: &[String]) -> usize {
    match texts {
        [] => 0,
        [only] if only.is_empty() => 0,
        _ => {
            // The item's JSON string holds every block's escaped text and
            // an escaped "\n" (two bytes) between blocks.
            let content: usize = texts.iter().map(|t| json::str_len(t, true) - 2).sum();
            render::item_len(role, "") + content + 2 * (texts.len() - 1) + 1
        }
    }
}

fn text_blocks(content: Vec<Block>) -> Vec<String> {
    content
        .into_iter()
        .filter_map(|block| match block {
            Block::Text(text) => Some(text),
            Block::Other(_) => None,
        })
        .collect()
}

/// Folds a session's surface into what retention within `max_bytes` needs.
#[derive(Debug, Clone)]
pub struct RetainingSink {
    max_bytes: usize,
    /// Every checkpoint, in seq order (never dropped).
    checkpoints: Vec<Held>,
    /// The newest other events, in seq order.
    window: VecDeque<Held>,
    /// Sum of the window's weights.
    window_weight: usize,
    /// Evicted events, in seq order.
    evicted: VecDeque<Evicted>,
    /// Items among the evicted events.
    evicted_items: usize,
    /// UTF-8 bytes of those items.
    evicted_bytes: usize,
}

impl RetainingSink {
    /// A sink for a budget of `max_bytes` per source.
    pub fn new(max_bytes: usize) -> Self {
        RetainingSink {
            max_bytes,
            checkpoints: Vec::new(),
            window: VecDeque::new(),
            window_weight: 0,
            evicted: VecDeque::new(),
            evicted_items: 0,
            evicted_bytes: 0,
        }
    }

    /// A sink fed with a whole surface.
    pub fn of_surface(surface: &Surface, max_bytes: usize) -> Self {
        let mut sink = RetainingSink::new(max_bytes);
        for event in &surface.events {
            sink.push(event.clone());
        }
        sink
    }

    /// Bytes of text held (a measure of the memory in use).
    pub fn held_bytes(&self) -> usize {
        let held = self.checkpoints.iter().chain(&self.window);
        held.flat_map(|h| &h.texts).map(String::len).sum()
    }

    fn count_evicted(&mut self, evicted: Evicted, sign: isize) {
        if let Some(bytes) = evicted.item() {
            self.evicted_items = self.evicted_items.wrapping_add_signed(sign);
            self.evicted_bytes = self
                .evicted_bytes
                .wrapping_add_signed(sign * bytes as isize);
        }
    }

    /// Evict the oldest window events that retention is sure to drop.
    fn evict(&mut self) {
        while let Some(front) = self.window.front() {
            let after = self.window_weight - front.weight;
            // Something newer is an item (so the front is not the newest),
            // and the front and everything after it exceed the budget.
            if after == 0 || self.window_weight <= self.max_bytes + 1 {
                break;
            }
            let front = self.window.pop_front().expect("front exists");
            self.window_weight = after;
            let evicted = Evicted {
                seq: front.seq,
                assistant: front.role == Role::Assistant,
                blocks: front.texts.len(),
                bytes: front.texts.iter().map(String::len).sum(),
            };
            self.count_evicted(evicted, 1);
            self.evicted.push_back(evicted);
        }
    }

    /// Retain what is held within the budget, with the evicted items
    /// counted as dropped.
    pub fn finish(self, fields: SourceFields<'_>) -> Result<Retained> {
        let max_bytes = self.max_bytes;
        self.retain_within(fields, max_bytes)
    }

    /// The projection of what is held, in order, and the items evicted
    /// before it: what retention under any budget up to the sink's needs.
    /// An item evicted under the sink's budget is dropped under a smaller
    /// one too (the items after it weigh more than either), so a hook can
    /// search budgets below it without the whole surface.
    pub fn held_items(&self) -> (Vec<ProjectedItem<'_>>, Dropped) {
        let mut held: Vec<&Held> = self.checkpoints.iter().chain(&self.window).collect();
        held.sort_by_key(|h| h.seq);
        let items = held
            .into_iter()
            .filter(|h| h.weight > 0)
            .map(|h| ProjectedItem {
                role: h.role,
                text: match h.texts.as_slice() {
                    [only] => Cow::Borrowed(only.as_str()),
                    texts => Cow::Owned(texts.join("\n")),
                },
                checkpoint: h.checkpoint,
            })
            .collect();
        let dropped = Dropped {
            messages: self.evicted_items,
            bytes: self.evicted_bytes,
        };
        (items, dropped)
    }

    /// Retain what is held within `max_bytes` (at most the sink's budget),
    /// with the evicted items counted as dropped: the retention of the
    /// whole projected surface under `max_bytes`.
    pub fn retain_within(&self, fields: SourceFields<'_>, max_bytes: usize) -> Result<Retained> {
        debug_assert!(max_bytes <= self.max_bytes);
        let (items, dropped) = self.held_items();
        retain_after(fields, &items, max_bytes, dropped)
    }
}

impl SurfaceSink for RetainingSink {
    fn push(&mut self, event: SurfaceEvent) {
        let (role, checkpoint, content, extendable) = match event.kind {
            EventKind::UserMessage { source, content } => match source {
                MessageSource::User => (Role::User, false, content, false),
                MessageSource::Checkpoint => (Role::User, true, content, false),
                MessageSource::SessionReference | MessageSource::Other(_) => return,
            },
            EventKind::AssistantMessage { content } => (Role::Assistant, false, content, true),
            EventKind::ToolResult => return,
        };
        let texts = text_blocks(content);
        let weight = weight(role, &texts);
        // An event without text is never an item unless more text can
        // still be added to it.
        if weight == 0 && !extendable {
            return;
        }
        let held = Held {
            seq: event.seq,
            role,
            checkpoint,
            texts,
            weight,
        };
        if checkpoint {
            self.checkpoints.push(held);
        } else {
            self.window_weight += weight;
            self.window.push_back(held);
            self.evict();
        }
    }

    fn extend(&mut self, seq: u64, blocks: Vec<Block>) {
        let texts = text_blocks(blocks);
        if let Ok(at) = self.window.binary_search_by_key(&seq, |h| h.seq) {
            let held = &mut self.window[at];
            if held.role != Role::Assistant {
                return;
            }
            held.texts.extend(texts);
            let before = held.weight;
            held.weight = weight(held.role, &held.texts);
            self.window_weight = self.window_weight - before + held.weight;
            self.evict();
        } else if let Ok(at) = self.evicted.binary_search_by_key(&seq, |e| e.seq) {
            let old = self.evicted[at];
            if !old.assistant {
                return;
            }
            let new = Evicted {
                seq,
                assistant: true,
                blocks: old.blocks + texts.len(),
                bytes: old.bytes + texts.iter().map(String::len).sum::<usize>(),
            };
            self.count_evicted(old, -1);
            self.count_evicted(new, 1);
            self.evicted[at] = new;
        }
    }

    fn fork(&self) -> Box<dyn SurfaceSink + Send> {
        Box::new(RetainingSink::new(self.max_bytes))
    }

    fn adopt(&mut self, other: Box<dyn SurfaceSink + Send>) {
        if let Ok(other) = other.into_any().downcast::<RetainingSink>() {
            *self = *other;
        }
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }

    fn shadow_through(&mut self, through: u64) {
        while self.window.front().is_some_and(|h| h.seq <= through) {
            let gone = self.window.pop_front().expect("front exists");
            self.window_weight -= gone.weight;
        }
        let shadowed = self.checkpoints.partition_point(|h| h.seq <= through);
        self.checkpoints.drain(..shadowed);
        while self.evicted.front().is_some_and(|e| e.seq <= through) {
            let gone = self.evicted.pop_front().expect("front exists");
            self.count_evicted(gone, -1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::projection::project;
    use crate::retention::retain;
    use proptest::prelude::*;

    /// One call into a sink.
    #[derive(Debug, Clone)]
    enum Op {
        User(MessageSource, Vec<String>),
        Assistant(Vec<Block>),
        ToolResult,
        /// Extend the n-th (mod count) event pushed so far.
        Extend(usize, Vec<String>),
        /// Shadow through the seq of the n-th (mod count) event pushed so far.
        ShadowThrough(usize),
        Clear,
    }

    fn apply(ops: &[Op], sink: &mut dyn SurfaceSink) {
        let mut seqs = Vec::new();
        let mut seq = 0;
        for op in ops {
            seq += 1;
            let kind = match op.clone() {
                Op::User(source, texts) => EventKind::UserMessage {
                    source,
                    content: texts.into_iter().map(Block::Text).collect(),
                },
                Op::Assistant(content) => EventKind::AssistantMessage { content },
                Op::ToolResult => EventKind::ToolResult,
                Op::Extend(n, texts) => {
                    if !seqs.is_empty() {
                        let target = seqs[n % seqs.len()];
                        sink.extend(target, texts.into_iter().map(Block::Text).collect());
                    }
                    continue;
                }
                Op::ShadowThrough(n) => {
                    if !seqs.is_empty() {
                        sink.shadow_through(seqs[n % seqs.len()]);
                    }
                    continue;
                }
                Op::Clear => {
                    sink.clear();
                    continue;
                }
            };
            seqs.push(seq);
            sink.push(SurfaceEvent { seq, kind });
        }
    }

    fn fields() -> SourceFields<'static> {
        SourceFields {
            session_id: "s",
            label: "L",
            cwd: Some("/w"),
            captured_through_seq: 99,
        }
    }

    fn arb_text() -> impl Strategy<Value = String> {
        prop_oneof![
            Just(String::new()),
            "[a-z <\"\\\\\n]{1,40}",
            "[é😀<\u{1}a]{1,120}",
            "[a-z]{100,2000}",
        ]
    }

    fn arb_op() -> impl Strategy<Value = Op> {
        let texts = || prop::collection::vec(arb_text(), 0..3);
        let source = prop_oneof![
            4 => Just(MessageSource::User),
            2 => Just(MessageSource::Checkpoint),
            1 => Just(MessageSource::SessionReference),
            1 => Just(MessageSource::Other("plugin".into())),
        ];
        let block = prop_oneof![
            4 => arb_text().prop_map(Block::Text),
            1 => Just(Block::Other("reasoning".into())),
        ];
        prop_oneof![
            6 => (source, texts()).prop_map(|(s, t)| Op::User(s, t)),
            6 => prop::collection::vec(block, 0..3).prop_map(Op::Assistant),
            1 => Just(Op::ToolResult),
            3 => (any::<usize>(), texts()).prop_map(|(n, t)| Op::Extend(n, t)),
            1 => any::<usize>().prop_map(Op::ShadowThrough),
            1 => Just(Op::Clear),
        ]
    }

    fn whole(ops: &[Op], max: usize) -> Option<Retained> {
        let mut surface = Surface::default();
        apply(ops, &mut surface);
        retain(fields(), &project(&surface), max).ok()
    }

    fn streamed(ops: &[Op], max: usize) -> Option<Retained> {
        let mut sink = RetainingSink::new(max);
        apply(ops, &mut sink);
        sink.finish(fields()).ok()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]
        #[test]
        fn a_sink_retains_under_any_smaller_budget_as_the_whole_surface(
            ops in prop::collection::vec(arb_op(), 0..40),
            max in 60usize..3000,
            smaller in 0usize..3000,
        ) {
            let budget = smaller.min(max);
            let mut sink = RetainingSink::new(max);
            apply(&ops, &mut sink);
            prop_assert_eq!(sink.retain_within(fields(), budget).ok(), whole(&ops, budget));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]
        #[test]
        fn streaming_retention_equals_retention_of_the_whole_surface(
            ops in prop::collection::vec(arb_op(), 0..40),
            max in 60usize..3000,
        ) {
            prop_assert_eq!(streamed(&ops, max), whole(&ops, max));
        }
    }

    #[test]
    fn memory_is_bounded_by_the_budget_not_the_log() {
        let mut sink = RetainingSink::new(1000);
        for seq in 1..=10_000u64 {
            let i = seq - 1;
            let kind = if i % 500 == 0 {
                EventKind::UserMessage {
                    source: MessageSource::Checkpoint,
                    content: vec![Block::Text(format!("summary {i}"))],
                }
            } else {
                EventKind::AssistantMessage {
                    content: vec![Block::Text("x".repeat(300))],
                }
            };
            sink.push(SurfaceEvent { seq, kind });
        }
        // 20 checkpoints of about 12 bytes, and a window of a few replies.
        assert!(
            sink.held_bytes() < 1000 + 20 * 12 + 300,
            "{}",
            sink.held_bytes()
        );
        let retained = sink.finish(fields()).unwrap();
        assert_eq!(retained.stats.original_messages, 10_000);
        assert_eq!(
            retained.stats.omitted_messages + retained.stats.retained_messages,
            10_000
        );
    }
}
