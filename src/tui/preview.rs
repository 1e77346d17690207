//! The snapshot a mention injects, as the preview pane shows it: the exact
//! context `prepare` would add for a message citing only that session, its
//! stats, and the text laid out by role or raw. Pure: the snapshot is
//! computed by the driver with the engine.

use std::sync::Arc;

use ratatui::text::{Line, Span};

use crate::display;
use crate::error::Error;
use crate::tui::text;
use crate::tui::theme::Theme;
use session_ref_core::prepare::{Context, ReferenceStats};
use session_ref_core::render;
use session_ref_stores::kinds::native;
use session_ref_stores::model::StoreKind;

/// What a preview is cached by: the session and the label its mention
/// carries (the label is part of the snapshot).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PreviewKey {
    /// Session id.
    pub session_id: String,
    /// Label of the mention.
    pub label: String,
}

/// One computed snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// The context `prepare` injects for this session alone.
    pub context: Context,
    /// Serialized bytes of its reference object (what the budget limits).
    pub used: usize,
    /// The budget (`maxReferenceBytes`).
    pub budget: usize,
}

impl Snapshot {
    /// Wrap a single-source context computed under `budget`.
    pub fn new(context: Context, budget: usize) -> Self {
        let used = context
            .data
            .first()
            .map_or(0, |d| render::reference_json(d).len());
        Snapshot {
            context,
            used,
            budget,
        }
    }

    /// The source's stats, as `preview --json` reports them.
    pub fn stats(&self) -> Option<&ReferenceStats> {
        self.context.references.first()
    }

    /// The one-line summary: kept/omitted messages, omitted bytes, budget
    /// use, and whether the snapshot is compacted or truncated (as
    /// `session-ref preview` says).
    pub fn summary(&self) -> String {
        let Some(s) = self.stats() else {
            return String::new();
        };
        let mut out = format!(
            "kept {}/{} msgs · omitted {} msgs, {} · budget {} of {}",
            s.retained_messages,
            s.original_messages,
            s.omitted_messages,
            display::human_bytes(s.omitted_bytes as u64),
            display::human_bytes(self.used as u64),
            display::human_bytes(self.budget as u64),
        );
        if s.compacted {
            out.push_str(" · compacted");
        }
        if s.truncated {
            out.push_str(" · truncated");
        }
        out
    }
}

/// A cached preview.
#[derive(Debug, Clone, PartialEq)]
pub enum PreviewSlot {
    /// Being computed.
    Loading,
    /// Computed.
    Ready(Arc<Snapshot>),
    /// Reading or retaining the session failed.
    Failed(Error),
}

/// How the preview shows a snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PreviewMode {
    /// The retained conversation, by role.
    #[default]
    Readable,
    /// The context text exactly as it will be sent.
    Raw,
}

/// What the preview says about the session besides its snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct About {
    /// The store kind (a native log's seq means something; a transcript's
    /// line number does not).
    pub kind: StoreKind,
    /// Last activity (Unix seconds), when known.
    pub activity: Option<i64>,
    /// The current time (Unix seconds).
    pub now: i64,
}

/// A snapshot laid out for the pane.
#[derive(Debug, Clone, PartialEq)]
pub struct Laid {
    /// The lines, wrapped.
    pub lines: Vec<Line<'static>>,
    /// The line of the newest kept message's role (by role only): where
    /// the preview opens, so that what is read first is a message's start.
    pub newest: Option<usize>,
}

/// The lines of a snapshot wrapped to `width` columns.
pub fn lines(
    snapshot: &Snapshot,
    mode: PreviewMode,
    width: usize,
    theme: Theme,
    about: About,
) -> Vec<Line<'static>> {
    lay_out(snapshot, mode, width, theme, about).lines
}

/// [`lines`], and where the newest kept message starts.
pub fn lay_out(
    snapshot: &Snapshot,
    mode: PreviewMode,
    width: usize,
    theme: Theme,
    about: About,
) -> Laid {
    match mode {
        PreviewMode::Raw => Laid {
            lines: text::wrap(&snapshot.context.text, width)
                .into_iter()
                .map(Line::raw)
                .collect(),
            newest: None,
        },
        PreviewMode::Readable => readable(snapshot, width, theme, about),
    }
}

fn readable(snapshot: &Snapshot, width: usize, theme: Theme, meta: About) -> Laid {
    let mut out = Vec::new();
    let mut newest = None;
    let Some(data) = snapshot.context.data.first() else {
        return Laid { lines: out, newest };
    };
    let mut about = format!(
        "{} · {}",
        display::one_line(&display::label_shown(&data.label, meta.kind), usize::MAX),
        display::printable(data.cwd.as_deref().unwrap_or("no cwd")),
    );
    if let Some(time) = meta.activity {
        about.push_str(&format!(
            " · active {} ago",
            display::age_since(time, meta.now)
        ));
    }
    if let Some(stats) = snapshot.stats() {
        about.push_str(&format!(" · {} messages", stats.original_messages));
    }
    if meta.kind == native::KIND {
        about.push_str(&format!(" · through seq {}", data.captured_through_seq));
    }
    out.extend(
        text::wrap(&about, width)
            .into_iter()
            .map(|row| Line::styled(row, theme.dim())),
    );
    // Said where the kept messages start, so that what the budget left out
    // is never mistaken for the start of the session.
    if let Some(stats) = snapshot.stats().filter(|s| s.omitted_messages > 0) {
        let n = stats.omitted_messages;
        let note = format!(
            "… {n} message{} ({}) not kept: over the budget",
            if n == 1 { "" } else { "s" },
            display::human_bytes(stats.omitted_bytes as u64)
        );
        out.push(Line::raw(""));
        out.extend(
            text::wrap(&note, width)
                .into_iter()
                .map(|row| Line::styled(row, theme.dim())),
        );
    }
    if data.conversation.is_empty() {
        out.push(Line::raw(""));
        out.push(Line::styled("(no conversation to inject)", theme.dim()));
    }
    for item in &data.conversation {
        out.push(Line::raw(""));
        let who = if item.checkpoint {
            Span::styled(
                "checkpoint · summary of the conversation before a compaction",
                theme.accent(),
            )
        } else {
            Span::styled(item.role.as_str(), theme.role(item.role))
        };
        newest = Some(out.len());
        out.push(Line::from(who));
        for row in text::wrap(&item.text, width.saturating_sub(2)) {
            out.push(Line::raw(format!("  {row}")));
        }
    }
    Laid { lines: out, newest }
}

#[cfg(test)]
mod tests {
    use super::*;
    use session_ref_core::prepare::{build_context, ReadSource, SourceRef};
    use session_ref_stores::model::{Block, EventKind, MessageSource, Surface, SurfaceEvent};

    fn snapshot(budget: usize) -> Snapshot {
        let message = |seq, text: &str, user| SurfaceEvent {
            seq,
            kind: if user {
                EventKind::UserMessage {
                    source: MessageSource::User,
                    content: vec![Block::Text(text.into())],
                }
            } else {
                EventKind::AssistantMessage {
                    content: vec![Block::Text(text.into())],
                }
            },
        };
        let surface = Surface {
            events: vec![
                message(1, "first question about the parser", true),
                message(2, "an answer\nover two lines", false),
                message(3, "thanks", true),
            ],
            captured_through_seq: 3,
        };
        let sources = [SourceRef {
            session_id: "s1".into(),
            label: "Fix <parser>".into(),
        }];
        let read = vec![ReadSource::of_surface(Some("/w"), &surface, budget)];
        Snapshot::new(build_context(&sources, read).unwrap(), budget)
    }

    fn plain(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn summary_reports_the_stats_and_the_budget() {
        let full = snapshot(65_536);
        assert_eq!(
            full.used,
            render::reference_json(&full.context.data[0]).len()
        );
        assert_eq!(
            full.summary(),
            format!(
                "kept 3/3 msgs · omitted 0 msgs, 0 B · budget {} B of 64.0 KiB",
                full.used
            )
        );
        let tight = snapshot(150);
        let s = tight.stats().unwrap();
        assert!(s.omitted_messages > 0 && tight.used <= 150);
        assert!(tight
            .summary()
            .contains(&format!("omitted {} msgs", s.omitted_messages)));
        assert_eq!(tight.summary().ends_with(" · truncated"), s.truncated);
        assert!(!full.summary().contains("truncated"));
        // The readable view says how many messages the budget left out.
        let about = About {
            kind: native::KIND,
            activity: None,
            now: 0,
        };
        let shown = plain(&lines(
            &tight,
            PreviewMode::Readable,
            200,
            Theme { color: false },
            about,
        ));
        let n = s.omitted_messages;
        let note = format!("… {n} message{} (", if n == 1 { "" } else { "s" });
        assert!(
            shown
                .iter()
                .any(|l| l.starts_with(&note) && l.ends_with("not kept: over the budget")),
            "{shown:?}"
        );
        let whole = plain(&lines(
            &full,
            PreviewMode::Readable,
            200,
            Theme { color: false },
            about,
        ));
        assert!(!whole.iter().any(|l| l.contains("not kept")));
    }

    #[test]
    fn readable_lines_by_role_and_raw_lines_are_the_context() {
        let snap = snapshot(65_536);
        let theme = Theme { color: false };
        let about = About {
            kind: native::KIND,
            activity: None,
            now: 0,
        };
        let readable = plain(&lines(&snap, PreviewMode::Readable, 40, theme, about));
        assert_eq!(
            readable,
            [
                "Fix <parser> · /w · 3 messages · through",
                "seq 3",
                "",
                "user",
                "  first question about the parser",
                "",
                "assistant",
                "  an answer",
                "  over two lines",
                "",
                "user",
                "  thanks",
            ]
        );
        // The newest message starts at its role line.
        let laid = lay_out(&snap, PreviewMode::Readable, 40, theme, about);
        assert_eq!(laid.newest, Some(10));
        assert_eq!(
            lay_out(&snap, PreviewMode::Raw, 40, theme, about).newest,
            None
        );
        let raw = plain(&lines(&snap, PreviewMode::Raw, 1000, theme, about));
        // A transcript's preview says when it was last active, not its seq.
        let claude = About {
            kind: session_ref_stores::kinds::claude::KIND,
            activity: Some(100),
            now: 100 + 2 * 86_400,
        };
        let first = plain(&lines(&snap, PreviewMode::Readable, 80, theme, claude));
        assert_eq!(first[0], "Fix <parser> · /w · active 2d ago · 3 messages");
        assert_eq!(raw.join("\n"), snap.context.text);
        assert!(snap.context.text.contains("\\u003cparser>"));
    }
}
