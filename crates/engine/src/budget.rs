//! Fitting the cited sessions into what a host agent lets a hook add.
//!
//! Claude Code keeps a hook's added context whole up to 10,000 characters
//! and Codex up to 10,000 bytes; beyond that each host cuts it its own way
//! (a file path and a preview, or a cut through the middle). So the hook
//! sizes the snapshots itself: every source is retained by the exact
//! retention of `prepare` (SPEC §7) under one shared per-source byte budget,
//! the largest for which the whole added text, measured as the host measures
//! it, fits the cap. Sources smaller than that budget stay whole and leave
//! their share to the others. Pure: the sessions are read by the caller,
//! each folded into what the largest budget can need ([`ReadSource`]), which
//! is all that any smaller budget needs too.

use crate::error::{Error, Result};
use session_ref_core::json;
use session_ref_core::prepare::{
    context_source_json, Context, ReadSource, ReferenceStats, SourceRef,
};
use session_ref_core::projection::ProjectedItem;
use session_ref_core::render;
use session_ref_core::retention::{retain_after, Dropped, SourceFields};

/// How a host counts the size of a hook's added context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// UTF-16 code units, JavaScript's `length` (Claude Code, a Node program).
    /// An upper bound of the characters in any other sense.
    Utf16Units,
    /// UTF-8 bytes (Codex).
    Utf8Bytes,
}

impl Measure {
    /// The size of `text` in this unit.
    pub fn of(self, text: &str) -> usize {
        match self {
            Measure::Utf16Units => text.encode_utf16().count(),
            Measure::Utf8Bytes => text.len(),
        }
    }

    /// The unit's name in messages.
    pub fn unit(self) -> &'static str {
        match self {
            Measure::Utf16Units => "characters",
            Measure::Utf8Bytes => "bytes",
        }
    }
}

/// The added context of a hook: the exact context text `prepare` renders for
/// these snapshots, then the statistics of what was omitted, as the context
/// message's `source` object of `prepare --format jsonl` (tag-safe, so a
/// label cannot close the tags).
pub fn added_context(context: &Context) -> String {
    let stats = json::stringify_value(&context_source_json(&context.references));
    format!(
        "{}\n\n<referenced-sessions-stats>\n{}\n</referenced-sessions-stats>",
        context.text,
        stats.replace('<', "\\u003c")
    )
}

/// A source projected once, retained many times.
struct Projected<'a> {
    source: &'a SourceRef,
    cwd: Option<&'a str>,
    seq: u64,
    items: Vec<ProjectedItem<'a>>,
    dropped: Dropped,
}

/// The context of `sources` (read as `read`) whose [`added_context`] fits
/// `cap` in `measure`, each source retained under the same byte budget, the
/// largest that fits, and never above `max_reference_bytes`.
///
/// Fails with `SESSION_REFERENCE_BUDGET_EXCEEDED` when not even a one-byte
/// budget per source fits (the ids and labels alone are too long).
pub fn fit(
    sources: &[SourceRef],
    read: &[ReadSource],
    max_reference_bytes: usize,
    cap: usize,
    measure: Measure,
) -> Result<Context> {
    let projected: Vec<Projected<'_>> = sources
        .iter()
        .zip(read)
        .map(|(source, read)| {
            let (items, dropped) = read.retained.held_items();
            Projected {
                source,
                cwd: read.cwd.as_deref(),
                seq: read.captured_through_seq,
                items,
                dropped,
            }
        })
        .collect();
    let fits = |budget: usize| -> Option<Context> {
        let context = build(&projected, budget).ok()?;
        (measure.of(&added_context(&context)) <= cap).then_some(context)
    };
    // Most citations fit whole: one retention pass.
    if let Some(context) = fits(max_reference_bytes) {
        return Ok(context);
    }
    // The largest fitting budget below the maximum, by bisection. A larger
    // budget never makes a retained object smaller, so the fitting budgets
    // are (as good as) a prefix; whatever is returned has been checked to fit.
    let (mut low, mut high) = (1, max_reference_bytes - 1);
    let mut best = None;
    while low <= high {
        let mid = low + (high - low) / 2;
        match fits(mid) {
            Some(context) => {
                best = Some(context);
                low = mid + 1;
            }
            None => high = mid - 1,
        }
    }
    best.ok_or_else(|| {
        Error::BudgetExceeded(format!(
            "the cited sessions cannot fit the hook's budget of {cap} {}",
            measure.unit()
        ))
    })
}

/// Retain every source under `budget` bytes and render the context.
fn build(projected: &[Projected<'_>], budget: usize) -> Result<Context> {
    let mut data = Vec::with_capacity(projected.len());
    let mut references = Vec::with_capacity(projected.len());
    for (input_index, p) in projected.iter().enumerate() {
        let fields = SourceFields {
            session_id: &p.source.session_id,
            label: &p.source.label,
            cwd: p.cwd,
            captured_through_seq: p.seq,
        };
        let retained = retain_after(fields, &p.items, budget, p.dropped)?;
        let stats = retained.stats;
        references.push(ReferenceStats {
            session_id: p.source.session_id.clone(),
            label: p.source.label.clone(),
            captured_through_seq: p.seq,
            compacted: stats.compacted,
            original_messages: stats.original_messages,
            retained_messages: stats.retained_messages,
            omitted_messages: stats.omitted_messages,
            omitted_bytes: stats.omitted_bytes,
            truncated: stats.truncated,
            input_index,
        });
        data.push(retained.data);
    }
    Ok(Context {
        text: render::render_context(&data),
        data,
        references,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use session_ref_core::prepare::build_context;
    use session_ref_stores::model::Surface;
    use session_ref_stores::model::{Block, EventKind, MessageSource, SurfaceEvent};

    fn surface(texts: &[&str]) -> Surface {
        let mut surface = Surface::default();
        for (i, text) in texts.iter().enumerate() {
            let content = vec![Block::Text((*text).to_owned())];
            surface.events.push(SurfaceEvent {
                seq: i as u64 + 1,
                kind: if i % 2 == 0 {
                    EventKind::UserMessage {
                        source: MessageSource::User,
                        content,
                    }
                } else {
                    EventKind::AssistantMessage { content }
                },
            });
        }
        surface.captured_through_seq = texts.len() as u64;
        surface
    }

    fn source(id: &str) -> SourceRef {
        SourceRef {
            session_id: id.into(),
            label: id.into(),
        }
    }

    #[test]
    fn small_sources_are_whole_and_identical_to_prepare() {
        let s = surface(&["hi", "hello"]);
        let read = [ReadSource::of_surface(Some("/w"), &s, 65_536)];
        let sources = [source("a")];
        let fitted = fit(&sources, &read, 65_536, 10_000, Measure::Utf8Bytes).unwrap();
        let whole = ReadSource::of_surface(Some("/w"), &s, 65_536);
        assert_eq!(fitted, build_context(&sources, vec![whole]).unwrap());
    }

    #[test]
    fn the_cap_is_met_exactly_enough_and_shared() {
        let big = "x".repeat(20_000);
        let small = surface(&["short question", "short answer"]);
        // The newest item is never dropped, only cut: the budget is used up.
        let large = surface(&["question", &big]);
        let read = [
            ReadSource::of_surface(None, &small, 65_536),
            ReadSource::of_surface(None, &large, 65_536),
        ];
        let sources = [source("small"), source("large")];
        for measure in [Measure::Utf8Bytes, Measure::Utf16Units] {
            let fitted = fit(&sources, &read, 65_536, 10_000, measure).unwrap();
            let size = measure.of(&added_context(&fitted));
            assert!(size <= 10_000, "{size}");
            // Nearly all of the cap is used: one more byte of budget would not fit.
            assert!(size > 9_900, "{size}");
            assert!(
                !fitted.references[0].truncated,
                "the small source stays whole"
            );
            assert!(fitted.references[1].truncated);
            assert_eq!(fitted.references[1].input_index, 1);
        }
    }

    #[test]
    fn characters_let_more_non_ascii_text_through_than_bytes() {
        let big = "é".repeat(20_000);
        let s = surface(&[&big]);
        let read = [ReadSource::of_surface(None, &s, 65_536)];
        let sources = [source("a")];
        let chars = fit(&sources, &read, 65_536, 10_000, Measure::Utf16Units).unwrap();
        let bytes = fit(&sources, &read, 65_536, 10_000, Measure::Utf8Bytes).unwrap();
        assert!(chars.text.len() > bytes.text.len());
        assert!(Measure::Utf16Units.of(&added_context(&chars)) <= 10_000);
        assert_eq!("😀".len(), 4);
        assert_eq!(Measure::Utf16Units.of("😀"), 2);
    }

    #[test]
    fn a_cap_below_the_fixed_text_is_a_budget_error() {
        let s = surface(&["hi"]);
        let read = [ReadSource::of_surface(None, &s, 65_536)];
        let err = fit(&[source("a")], &read, 65_536, 300, Measure::Utf8Bytes).unwrap_err();
        assert_eq!(err.code(), session_ref_core::ErrorCode::BudgetExceeded);
        assert!(err.to_string().contains("300 bytes"), "{err}");
    }
}
