//! Byte-budgeted retention of one projected session (SPEC §7).
//!
//! The reference re-serializes the whole object after every step. Here the
//! serialized size is kept as a running total: each drop or truncation adjusts
//! it by the difference of one item, the oldest droppable item is found by a
//! cursor and the longest item by a heap. Retention is O(n log n) in the items
//! plus O(log b) size checks per truncation of a b-byte text, with results
//! identical to the reference (checked against a direct transcription in the
//! tests below).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::error::{Error, ErrorCode, Result};
use crate::json;
use crate::projection::{ProjectedItem, Role};
use crate::render::{self, ConversationItem, Cut, ReferenceData};

/// Omission statistics of one retained source (SPEC §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RetentionStats {
    /// Any checkpoint in the projection.
    pub compacted: bool,
    /// Projected items before retention.
    pub original_messages: usize,
    /// Items kept (whole or truncated).
    pub retained_messages: usize,
    /// Items dropped whole.
    pub omitted_messages: usize,
    /// UTF-8 bytes omitted by dropping and truncating.
    pub omitted_bytes: usize,
    /// Whether anything was omitted.
    pub truncated: bool,
}

/// A source fitted to its budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retained {
    /// The reference object to serialize.
    pub data: ReferenceData,
    /// What was left out.
    pub stats: RetentionStats,
}

/// Identity of the source being retained (the fixed fields of its object).
#[derive(Debug, Clone, Copy)]
pub struct SourceFields<'a> {
    /// Source session id.
    pub session_id: &'a str,
    /// Label from the mention.
    pub label: &'a str,
    /// Source cwd.
    pub cwd: Option<&'a str>,
    /// Seq of the last complete event read.
    pub captured_through_seq: u64,
}

struct Slot<'a> {
    role: Role,
    checkpoint: bool,
    original: &'a str,
    /// Current text; `None` while it is still the original.
    truncated: Option<String>,
    omitted_bytes: usize,
    /// Bytes of the head kept before the omitted part (when truncated).
    head: usize,
    alive: bool,
}

impl Slot<'_> {
    fn text(&self) -> &str {
        self.truncated.as_deref().unwrap_or(self.original)
    }
}

/// Fit the projected `items` of a source into `max_bytes` of tag-safe JSON.
///
/// Fails with `SESSION_REFERENCE_BUDGET_EXCEEDED` when even the fixed fields
/// and the undroppable items cut to nothing cannot fit.
pub fn retain(
    fields: SourceFields<'_>,
    items: &[ProjectedItem<'_>],
    max_bytes: usize,
) -> Result<Retained> {
    retain_after(fields, items, max_bytes, Dropped::default())
}

/// Items already dropped before retention saw them: the oldest items of the
/// projection, which retention was certain to drop (see
/// [`streaming`](crate::streaming)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Dropped {
    /// How many.
    pub messages: usize,
    /// Their UTF-8 bytes.
    pub bytes: usize,
}

/// [`retain`] of a projection whose oldest items were already `dropped`:
/// `items` are the rest, and the result counts the dropped ones as omitted.
pub fn retain_after(
    fields: SourceFields<'_>,
    items: &[ProjectedItem<'_>],
    max_bytes: usize,
    dropped: Dropped,
) -> Result<Retained> {
    let mut slots: Vec<Slot<'_>> = items
        .iter()
        .map(|item| Slot {
            role: item.role,
            checkpoint: item.checkpoint,
            original: &item.text,
            truncated: None,
            omitted_bytes: 0,
            head: 0,
            alive: true,
        })
        .collect();
    let mut head = String::new();
    render::write_head(
        &mut head,
        fields.session_id,
        fields.label,
        fields.cwd,
        fields.captured_through_seq,
    );
    let mut size = head.len() + "]}".len();
    for slot in &slots {
        size += render::item_len(slot.role, slot.original);
    }
    size += slots.len().saturating_sub(1);

    // 1. Drop the oldest items that are neither checkpoints nor the newest.
    let mut omitted_messages = dropped.messages;
    let mut dropped_bytes = dropped.bytes;
    let newest = slots.len().saturating_sub(1);
    for slot in slots.iter_mut().take(newest) {
        if size <= max_bytes {
            break;
        }
        if slot.checkpoint {
            continue;
        }
        slot.alive = false;
        size -= render::item_len(slot.role, slot.original) + 1;
        omitted_messages += 1;
        dropped_bytes += slot.original.len();
    }

    // 2. Truncate the longest current text until the object fits.
    if size > max_bytes {
        let mut longest: BinaryHeap<(usize, Reverse<usize>)> = slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.alive)
            .map(|(i, s)| (s.original.len(), Reverse(i)))
            .collect();
        while size > max_bytes {
            let (bytes, index) = loop {
                match longest.pop() {
                    // Entries are refreshed lazily: skip those whose length changed.
                    Some((bytes, Reverse(i))) if slots[i].text().len() == bytes => {
                        break (bytes, i)
                    }
                    Some(_) => continue,
                    None => return Err(budget_exceeded(&fields, max_bytes)),
                }
            };
            if bytes == 0 {
                return Err(budget_exceeded(&fields, max_bytes));
            }
            let overflow = size - max_bytes;
            let target = bytes.saturating_sub(overflow);
            let slot = &mut slots[index];
            let (text, omitted, head) = truncate_parts(slot.original, target);
            if text == slot.text() {
                return Err(budget_exceeded(&fields, max_bytes));
            }
            size = size - render::item_len(slot.role, slot.text())
                + render::item_len(slot.role, &text);
            longest.push((text.len(), Reverse(index)));
            slot.truncated = Some(text);
            slot.omitted_bytes = omitted;
            slot.head = head;
        }
    }

    let kept: Vec<&Slot<'_>> = slots.iter().filter(|s| s.alive).collect();
    let omitted_bytes = kept.iter().map(|s| s.omitted_bytes).sum::<usize>() + dropped_bytes;
    let stats = RetentionStats {
        compacted: items.iter().any(|i| i.checkpoint),
        original_messages: items.len() + dropped.messages,
        retained_messages: kept.len(),
        omitted_messages,
        omitted_bytes,
        truncated: omitted_messages > 0 || omitted_bytes > 0,
    };
    let conversation = kept
        .iter()
        .map(|s| ConversationItem {
            role: s.role,
            text: s.text().to_owned(),
            checkpoint: s.checkpoint,
            cut: (s.omitted_bytes > 0).then_some(Cut {
                at: s.head,
                bytes: s.omitted_bytes,
            }),
        })
        .collect();
    let data = ReferenceData {
        session_id: fields.session_id.to_owned(),
        label: fields.label.to_owned(),
        cwd: fields.cwd.map(str::to_owned),
        captured_through_seq: fields.captured_through_seq,
        conversation,
    };
    Ok(Retained { data, stats })
}

/// The error naming the session (id and label, quoted so that neither can
/// break the line) whose snapshot cannot fit: with several citations, the
/// user must know which one to drop or raise the budget for.
fn budget_exceeded(fields: &SourceFields<'_>, max_bytes: usize) -> Error {
    Error::new(
        ErrorCode::BudgetExceeded,
        format!(
            "the snapshot of session {} ({}) cannot fit the byte budget of {max_bytes}",
            json::quote(fields.session_id, false),
            json::quote(fields.label, false),
        ),
    )
}

const NOTICE_HEAD: &str = "\n[… omitted ";
const NOTICE_TAIL: &str = " UTF-8 bytes …]";

fn decimal_len(mut n: usize) -> usize {
    let mut len = 1;
    while n >= 10 {
        n /= 10;
        len += 1;
    }
    len
}

/// Head and tail byte lengths kept of `text` for a retained budget of `r` bytes.
fn head_tail(text: &str, r: usize) -> (usize, usize) {
    let len = text.len();
    if len <= r {
        return (len, 0);
    }
    let mut head = r.div_ceil(2).min(len);
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail_start = len - (r / 2).min(len);
    while !text.is_char_boundary(tail_start) {
        tail_start += 1;
    }
    (head, len - tail_start)
}

/// Cut `text` to at most `max_bytes`, keeping a head and a tail around an
/// exact omission notice; the bisection is the reference's, step for step.
/// Returns the text and the number of omitted bytes.
pub fn truncate_with_notice(text: &str, max_bytes: usize) -> (String, usize) {
    let (out, omitted, _) = truncate_parts(text, max_bytes);
    (out, omitted)
}

/// [`truncate_with_notice`], and the bytes of the head kept (where the
/// omitted part was).
fn truncate_parts(text: &str, max_bytes: usize) -> (String, usize, usize) {
    let len = text.len();
    if len <= max_bytes {
        return (text.to_owned(), 0, len);
    }
    let (mut low, mut high) = (0usize, max_bytes);
    let mut best: Option<(usize, usize)> = None;
    while low <= high {
        let r = (low + high) / 2;
        let (head, tail) = head_tail(text, r);
        // r <= max_bytes < len, so something is always omitted here.
        let omitted = len - head - tail;
        let candidate_len =
            head + tail + NOTICE_HEAD.len() + decimal_len(omitted) + NOTICE_TAIL.len();
        if candidate_len <= max_bytes {
            best = Some((head, tail));
            low = r + 1;
        } else {
            if r == 0 {
                break;
            }
            high = r - 1;
        }
    }
    match best {
        None => (String::new(), len, 0),
        Some((head, tail)) => {
            let omitted = len - head - tail;
            let mut out = String::with_capacity(head + tail + 40);
            out.push_str(&text[..head]);
            out.push_str(&text[len - tail..]);
            out.push_str(NOTICE_HEAD);
            out.push_str(&omitted.to_string());
            out.push_str(NOTICE_TAIL);
            (out, omitted, head)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The reference algorithm transcribed directly (quadratic), as an oracle.
    fn oracle(
        fields: SourceFields<'_>,
        items: &[ProjectedItem<'_>],
        max: usize,
    ) -> Option<(ReferenceData, RetentionStats)> {
        struct It {
            role: Role,
            text: String,
            checkpoint: bool,
            original: String,
            omitted: usize,
            head: usize,
        }
        let mut retained: Vec<It> = items
            .iter()
            .map(|i| It {
                role: i.role,
                text: i.text.to_string(),
                checkpoint: i.checkpoint,
                original: i.text.to_string(),
                omitted: 0,
                head: 0,
            })
            .collect();
        let data = |r: &Vec<It>| ReferenceData {
            session_id: fields.session_id.into(),
            label: fields.label.into(),
            cwd: fields.cwd.map(Into::into),
            captured_through_seq: fields.captured_through_seq,
            conversation: r
                .iter()
                .map(|i| ConversationItem {
                    role: i.role,
                    text: i.text.clone(),
                    checkpoint: i.checkpoint,
                    cut: (i.omitted > 0).then_some(Cut {
                        at: i.head,
                        bytes: i.omitted,
                    }),
                })
                .collect(),
        };
        let size = |r: &Vec<It>| render::reference_json(&data(r)).len();
        let (mut omitted_messages, mut dropped) = (0, 0);
        while size(&retained) > max {
            let newest = retained.len().wrapping_sub(1);
            let Some(i) = retained
                .iter()
                .enumerate()
                .position(|(i, it)| !it.checkpoint && i != newest)
            else {
                break;
            };
            let it = retained.remove(i);
            omitted_messages += 1;
            dropped += it.original.len();
        }
        while size(&retained) > max {
            let mut longest = None;
            let mut longest_bytes = 0;
            for (i, it) in retained.iter().enumerate() {
                if it.text.len() > longest_bytes {
                    longest_bytes = it.text.len();
                    longest = Some(i);
                }
            }
            let i = longest?;
            let overflow = size(&retained) - max;
            let target = longest_bytes.saturating_sub(overflow);
            let (text, omitted, head) = truncate_oracle(&retained[i].original, target);
            if text == retained[i].text {
                return None;
            }
            retained[i].text = text;
            retained[i].omitted = omitted;
            retained[i].head = head;
        }
        let omitted_bytes = retained.iter().map(|i| i.omitted).sum::<usize>() + dropped;
        let stats = RetentionStats {
            compacted: items.iter().any(|i| i.checkpoint),
            original_messages: items.len(),
            retained_messages: retained.len(),
            omitted_messages,
            omitted_bytes,
            truncated: omitted_messages > 0 || omitted_bytes > 0,
        };
        Some((data(&retained), stats))
    }

    /// Truncation built from strings, as the reference does.
    fn truncate_oracle(text: &str, max: usize) -> (String, usize, usize) {
        if text.len() <= max {
            return (text.into(), 0, text.len());
        }
        let (mut low, mut high) = (0i64, max as i64);
        let mut best = (String::new(), text.len(), 0);
        while low <= high {
            let r = ((low + high) / 2) as usize;
            let (h, t) = head_tail(text, r);
            let omitted = text.len() - h - t;
            let kept = format!("{}{}", &text[..h], &text[text.len() - t..]);
            let candidate = format!("{kept}\n[… omitted {omitted} UTF-8 bytes …]");
            if candidate.len() <= max {
                best = (candidate, omitted, h);
                low = r as i64 + 1;
            } else {
                high = r as i64 - 1;
            }
        }
        best
    }

    fn fields() -> SourceFields<'static> {
        SourceFields {
            session_id: "s",
            label: "L",
            cwd: Some("/w"),
            captured_through_seq: 9,
        }
    }

    fn item(role: Role, text: &str, checkpoint: bool) -> ProjectedItem<'_> {
        ProjectedItem {
            role,
            text: text.into(),
            checkpoint,
        }
    }

    #[test]
    fn fits_untouched_when_small() {
        let items = [
            item(Role::User, "hi", false),
            item(Role::Assistant, "hello", false),
        ];
        let got = retain(fields(), &items, 65_536).unwrap();
        assert_eq!(got.stats.retained_messages, 2);
        assert!(!got.stats.truncated);
        assert_eq!(got.data.conversation[1].text, "hello");
    }

    #[test]
    fn drops_oldest_but_keeps_checkpoint_and_newest() {
        let long = "x".repeat(400);
        let items = [
            item(Role::User, "summary", true),
            item(Role::User, &long, false),
            item(Role::Assistant, &long, false),
            item(Role::User, "last", false),
        ];
        let got = retain(fields(), &items, 200).unwrap();
        let texts: Vec<_> = got
            .data
            .conversation
            .iter()
            .map(|c| c.text.as_str())
            .collect();
        assert_eq!(texts, ["summary", "last"]);
        assert_eq!(got.stats.omitted_messages, 2);
        assert_eq!(got.stats.omitted_bytes, 800);
        assert!(got.stats.compacted && got.stats.truncated);
        assert!(render::reference_json(&got.data).len() <= 200);
    }

    #[test]
    fn truncates_with_exact_notice() {
        let text = "a".repeat(50) + &"é".repeat(50) + &"z".repeat(50);
        let items = [item(Role::Assistant, &text, false)];
        let got = retain(fields(), &items, 200).unwrap();
        let kept = &got.data.conversation[0].text;
        assert!(
            kept.starts_with("aaaa")
                && kept.contains("omitted")
                && kept.ends_with(" UTF-8 bytes …]")
        );
        assert_eq!(render::reference_json(&got.data).len(), 200);
        // The cut is where the omitted bytes were: the head before it, the
        // tail after it, then the notice of exactly that many bytes.
        let cut = got.data.conversation[0].cut.expect("a cut");
        let notice = format!("\n[… omitted {} UTF-8 bytes …]", cut.bytes);
        let tail = &kept[cut.at..kept.len() - notice.len()];
        assert!(kept.ends_with(&notice), "{kept}");
        assert!(text.starts_with(&kept[..cut.at]) && text.ends_with(tail));
        assert_eq!(cut.at + tail.len() + cut.bytes, text.len());
        assert_eq!(cut.bytes, got.stats.omitted_bytes);
        assert_eq!(Some((got.data, got.stats)), oracle(fields(), &items, 200));
        // An item kept whole has no cut.
        let whole = retain(fields(), &items, 4000).unwrap();
        assert_eq!(whole.data.conversation[0].cut, None);
    }

    #[test]
    fn fails_when_fixed_fields_do_not_fit() {
        let items = [item(Role::User, "hello", false)];
        let err = retain(fields(), &items, 20).unwrap_err();
        assert_eq!(err.code, ErrorCode::BudgetExceeded);
        let f = fields();
        assert!(
            err.message.contains(&json::quote(f.session_id, false))
                && err.message.contains(&json::quote(f.label, false)),
            "{}",
            err.message
        );
        assert_eq!(
            retain(fields(), &[], 20).unwrap_err().code,
            ErrorCode::BudgetExceeded
        );
    }

    #[test]
    fn truncate_to_zero_is_empty() {
        assert_eq!(truncate_with_notice("abcdef", 0), (String::new(), 6));
        assert_eq!(truncate_with_notice("abcdef", 6), ("abcdef".into(), 0));
    }

    fn arb_items() -> impl Strategy<Value = Vec<ProjectedItem<'static>>> {
        let text = prop_oneof![
            "[a-z <\"\\\\\n]{1,40}",
            "[é😀<\u{1}a]{1,200}",
            "[a-z]{100,3000}",
        ];
        prop::collection::vec((any::<bool>(), any::<bool>(), text), 0..12).prop_map(|v| {
            v.into_iter()
                .map(|(assistant, checkpoint, text)| ProjectedItem {
                    role: if assistant {
                        Role::Assistant
                    } else {
                        Role::User
                    },
                    checkpoint: checkpoint && !assistant,
                    text: text.into(),
                })
                .collect()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        #[test]
        fn identical_to_the_reference(items in arb_items(), max in 60usize..4000) {
            let got = retain(fields(), &items, max).ok().map(|r| (r.data, r.stats));
            prop_assert_eq!(got, oracle(fields(), &items, max));
        }

        #[test]
        fn never_exceeds_budget_and_counts_exactly(items in arb_items(), max in 60usize..4000) {
            if let Ok(r) = retain(fields(), &items, max) {
                prop_assert!(render::reference_json(&r.data).len() <= max);
                let original: usize = items.iter().map(|i| i.text.len()).sum();
                let kept: usize = r.data.conversation.iter().map(|c| {
                    match c.text.rfind(NOTICE_HEAD) {
                        Some(at) if c.text.ends_with(NOTICE_TAIL) => at,
                        _ => c.text.len(),
                    }
                }).sum();
                prop_assert_eq!(original - kept, r.stats.omitted_bytes);
                prop_assert_eq!(r.stats.original_messages, r.stats.retained_messages + r.stats.omitted_messages);
            }
        }

        #[test]
        fn truncation_matches_string_oracle(text in "[aé😀<z]{0,300}", max in 0usize..400) {
            let (want, omitted, _) = truncate_oracle(&text, max);
            prop_assert_eq!(truncate_with_notice(&text, max), (want, omitted));
        }
    }
}
