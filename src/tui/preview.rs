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

    /// Bytes retention cut from kept messages, and how many it cut
    /// (the rest of `omittedBytes` is the dropped messages', SPEC §7).
    pub fn cut(&self) -> (usize, usize) {
        self.context.data.first().map_or((0, 0), |d| {
            d.conversation
                .iter()
                .filter_map(|item| item.cut)
                .fold((0, 0), |(bytes, n), cut| (bytes + cut.bytes, n + 1))
        })
    }

    /// Bytes of the messages dropped whole: `omittedBytes` less what was
    /// cut from kept ones.
    pub fn dropped_bytes(&self) -> usize {
        self.stats()
            .map_or(0, |s| s.omitted_bytes.saturating_sub(self.cut().0))
    }

    /// The parts of the one-line summary, in the order shown: kept/omitted
    /// messages, the dropped messages' bytes, the bytes cut from kept ones,
    /// budget use, and whether the snapshot is compacted or truncated (as
    /// `session-ref preview` says), each with its rank (0 most important:
    /// what the snapshot lacks, compacted and truncated, goes last).
    fn summary_parts(&self) -> Vec<(u8, String)> {
        let Some(s) = self.stats() else {
            return Vec::new();
        };
        let mut parts = vec![
            (
                2,
                format!("kept {}/{} msgs", s.retained_messages, s.original_messages),
            ),
            (
                3,
                format!(
                    "omitted {} msgs, {}",
                    s.omitted_messages,
                    display::human_bytes(self.dropped_bytes() as u64)
                ),
            ),
        ];
        let (cut, n) = self.cut();
        if n > 0 {
            parts.push((
                4,
                format!(
                    "cut {} from {n} kept msg{}",
                    display::human_bytes(cut as u64),
                    if n == 1 { "" } else { "s" }
                ),
            ));
        }
        parts.push((
            5,
            format!(
                "budget {} of {}",
                display::human_bytes(self.used as u64),
                display::human_bytes(self.budget as u64),
            ),
        ));
        if s.compacted {
            parts.push((0, "compacted".to_owned()));
        }
        if s.truncated {
            parts.push((1, "truncated".to_owned()));
        }
        parts
    }

    /// The whole one-line summary.
    pub fn summary(&self) -> String {
        join_parts(self.summary_parts().into_iter().map(|(_, p)| p))
    }

    /// The summary in at most `width` columns: the least important parts
    /// (budget use first) give way before `compacted` and `truncated` do;
    /// what still does not fit is cut with `…`.
    pub fn summary_within(&self, width: usize) -> String {
        let mut parts = self.summary_parts();
        loop {
            let line = join_parts(parts.iter().map(|(_, p)| p.clone()));
            if display::width(&line) <= width || parts.len() <= 1 {
                return display::truncate_width(&line, width);
            }
            let least = parts
                .iter()
                .enumerate()
                .max_by_key(|(_, (rank, _))| *rank)
                .map(|(i, _)| i)
                .unwrap_or(0);
            parts.remove(least);
        }
    }
}

fn join_parts(parts: impl Iterator<Item = String>) -> String {
    parts.collect::<Vec<_>>().join(" · ")
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
    // is never mistaken for the start of the session; bytes cut from a
    // kept message are counted apart (they are marked where they were).
    if let Some(stats) = snapshot.stats() {
        if let Some(note) = omission_note(stats.omitted_messages, snapshot) {
            out.push(Line::raw(""));
            out.extend(
                text::wrap(&note, width)
                    .into_iter()
                    .map(|row| Line::styled(row, theme.dim())),
            );
        }
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
        let body = |out: &mut Vec<Line<'static>>, part: &str| {
            for row in text::wrap(part, width.saturating_sub(2)) {
                out.push(Line::raw(format!("  {row}")));
            }
        };
        match item.cut.filter(|cut| item.text.is_char_boundary(cut.at)) {
            // The head, a mark where the budget cut, the tail (and the
            // notice the text itself carries).
            Some(cut) => {
                let (head, tail) = item.text.split_at(cut.at);
                body(&mut out, head);
                out.push(Line::styled(
                    format!("  … {} cut …", display::human_bytes(cut.bytes as u64)),
                    theme.dim(),
                ));
                body(&mut out, tail.strip_prefix('\n').unwrap_or(tail));
            }
            None => body(&mut out, &item.text),
        }
    }
    Laid { lines: out, newest }
}

/// What the budget left out, said before the kept messages: `… 21
/// messages (5.8 KiB) not kept, 1.2 KiB cut from 1 kept message: over the
/// budget`; `None` when nothing was.
fn omission_note(dropped: usize, snapshot: &Snapshot) -> Option<String> {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let (cut, cut_from) = snapshot.cut();
    let cut = (cut_from > 0).then(|| {
        format!(
            "{} cut from {cut_from} kept message{}",
            display::human_bytes(cut as u64),
            plural(cut_from)
        )
    });
    let note = match (dropped, cut) {
        (0, None) => return None,
        (0, Some(cut)) => cut,
        (n, None) => format!(
            "{n} message{} ({}) not kept",
            plural(n),
            display::human_bytes(snapshot.dropped_bytes() as u64)
        ),
        (n, Some(cut)) => format!(
            "{n} message{} ({}) not kept, {cut}",
            plural(n),
            display::human_bytes(snapshot.dropped_bytes() as u64)
        ),
    };
    Some(format!("… {note}: over the budget"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use session_ref_core::prepare::{build_context, ReadSource, SourceRef};
    use session_ref_stores::model::{Block, EventKind, MessageSource, Surface, SurfaceEvent};

    fn snapshot(budget: usize) -> Snapshot {
        snapshot_of(
            &[
                "first question about the parser",
                "an answer\nover two lines",
                "thanks",
            ],
            budget,
        )
    }

    /// A native session of `texts`, user and assistant in turn.
    fn snapshot_of(texts: &[&str], budget: usize) -> Snapshot {
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
            events: texts
                .iter()
                .enumerate()
                .map(|(i, text)| message(i as u64 + 1, text, i % 2 == 0))
                .collect(),
            captured_through_seq: texts.len() as u64,
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
                .any(|l| l.starts_with(&note) && l.ends_with(": over the budget")),
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

    #[test]
    fn bytes_cut_from_a_kept_message_are_counted_apart_and_marked_at_the_cut() {
        // Two short messages dropped, the newest (long) one cut.
        let long = format!("{}{}", "head words ".repeat(150), "tail words ".repeat(150));
        let snap = snapshot_of(&["dropped one", "dropped two!", &long], 1024);
        let s = snap.stats().unwrap();
        assert_eq!((s.omitted_messages, s.retained_messages), (2, 1));
        let (cut, n) = snap.cut();
        assert_eq!(n, 1);
        assert_eq!(
            snap.dropped_bytes(),
            "dropped one".len() + "dropped two!".len()
        );
        assert_eq!(snap.dropped_bytes() + cut, s.omitted_bytes);
        assert!(cut > 1024, "{cut}");
        let about = About {
            kind: native::KIND,
            activity: None,
            now: 0,
        };
        let theme = Theme { color: true };
        let laid = lines(&snap, PreviewMode::Readable, 200, theme, about);
        let shown = plain(&laid);
        let note = format!(
            "… 2 messages (23 B) not kept, {} cut from 1 kept message: over the budget",
            display::human_bytes(cut as u64)
        );
        assert!(shown.contains(&note), "{shown:#?}");
        // The mark sits between the head and the tail, dim.
        let mark = format!("  … {} cut …", display::human_bytes(cut as u64));
        let at = shown.iter().position(|l| *l == mark).expect("the mark");
        assert!(shown[at - 1].contains("head words"), "{shown:#?}");
        assert!(shown[at + 1].contains("tail words"), "{shown:#?}");
        assert_eq!(laid[at].style, theme.dim());
        // The snapshot's bytes are prepare's: the text still carries its
        // own notice, and the raw view is the context text.
        let kept = &snap.context.data[0].conversation[0].text;
        assert!(kept.ends_with(&format!("[… omitted {cut} UTF-8 bytes …]")));
        let raw = plain(&lines(&snap, PreviewMode::Raw, 100_000, theme, about));
        assert_eq!(raw.join("\n"), snap.context.text);
        assert!(!snap.context.text.contains(" cut …"));
        // The stats line says both.
        assert!(
            snap.summary().contains("omitted 2 msgs, 23 B · cut "),
            "{}",
            snap.summary()
        );
        // Only cut, nothing dropped.
        let only = snapshot_of(&[&long], 1024);
        let shown = plain(&lines(&only, PreviewMode::Readable, 200, theme, about));
        assert!(
            shown
                .iter()
                .any(|l| l.starts_with("… ")
                    && l.ends_with("cut from 1 kept message: over the budget")),
            "{shown:#?}"
        );
        assert!(!shown.iter().any(|l| l.contains("not kept")), "{shown:#?}");
    }

    #[test]
    fn the_stats_line_drops_the_budget_before_compacted_and_truncated() {
        let long = "word ".repeat(600);
        let snap = snapshot_of(&["dropped one", "dropped two!", &long], 1024);
        let whole = snap.summary();
        assert!(whole.ends_with(" · truncated"), "{whole}");
        for width in [20, 40, 60, 80, 100, 120, 200] {
            let line = snap.summary_within(width);
            assert!(display::width(&line) <= width, "{width}: {line}");
            if width >= "kept 1/3 msgs · truncated".len() {
                assert!(line.ends_with("truncated"), "{width}: {line}");
            }
            if line.contains("budget") {
                assert!(
                    line.contains("cut ") && line.contains("omitted"),
                    "{width}: {line}"
                );
            }
        }
        assert_eq!(snap.summary_within(200), whole);
        assert!(!snap.summary_within(60).contains("budget"));
    }
}
