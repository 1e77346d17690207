//! The highlighted session's preview: asked for once per session and
//! label, kept while it is computed, opened at its newest message (or, in
//! conversation search, at the hit), scrolled within its lines, hidden or
//! shown.

use std::sync::Arc;

use super::State;
use super::{step, Effect};
use crate::error::Error;
use crate::tui::preview::{self, PreviewKey, PreviewMode, PreviewSlot, Snapshot};

impl State {
    /// The cached preview of the highlighted candidate.
    pub fn current_preview(&self) -> Option<&PreviewSlot> {
        self.preview_for.as_ref().and_then(|k| self.previews.get(k))
    }

    /// The preview the highlighted candidate needs.
    pub fn preview_key(&self) -> Option<&PreviewKey> {
        self.preview_for.as_ref()
    }

    /// What the preview says about the highlighted session.
    pub fn about(&self) -> preview::About {
        let entry = self.current();
        preview::About {
            kind: entry.map_or(session_ref_stores::kinds::native::KIND, |e| e.record.kind),
            activity: entry.and_then(|e| e.activity),
            now: self.setup.now,
        }
    }

    /// Switch the preview between readable and raw.
    pub(super) fn toggle_preview_mode(&mut self) {
        self.preview_mode = match self.preview_mode {
            PreviewMode::Readable => PreviewMode::Raw,
            PreviewMode::Raw => PreviewMode::Readable,
        };
        self.preview_follow = self.preview_mode == PreviewMode::Readable;
        self.preview_scroll = 0;
        self.scroll_preview(0);
    }

    /// `ctrl-/`: hide the preview (the list takes its room) or show it.
    pub(super) fn toggle_preview(&mut self) {
        self.preview_window.hidden = !self.preview_window.hidden;
        // The list and the prompt changed size: as on a resize.
        self.clamp_list();
        self.scroll_prompt();
        self.scroll_preview(0);
    }

    /// A preview request dropped unstarted: asked for again when its
    /// session is highlighted.
    pub(super) fn preview_dropped(&mut self, key: &PreviewKey) {
        if self.previews.get(key) == Some(&PreviewSlot::Loading) {
            self.previews.remove(key);
        }
    }

    /// A preview computed (or why it could not be).
    pub(super) fn preview_ready(&mut self, key: PreviewKey, result: Result<Snapshot, Error>) {
        let slot = match result {
            Ok(snapshot) => PreviewSlot::Ready(Arc::new(snapshot)),
            Err(e) => PreviewSlot::Failed(e),
        };
        self.previews.insert(key, slot);
        self.scroll_preview(0);
    }

    pub(super) fn ensure_preview(&mut self, fx: &mut Vec<Effect>) {
        let Some(entry) = self.current() else {
            self.preview_for = None;
            return;
        };
        let key = PreviewKey {
            session_id: entry.record.id.clone(),
            label: entry.label().to_owned(),
        };
        let record = entry.record.clone();
        let seek = self
            .search_row(self.hits[self.selected].id)
            .and_then(|row| {
                let first = row.best.highlights.first()?;
                (!row.best.before_compaction).then(|| row.best.snippet[first.clone()].to_owned())
            });
        if self.preview_for.as_ref() != Some(&key) || seek != self.preview_seek {
            self.preview_scroll = 0;
            self.preview_follow = self.preview_mode == PreviewMode::Readable && seek.is_none();
            self.preview_for = Some(key.clone());
            self.seek_pending = seek.is_some();
            self.preview_seek = seek;
        }
        if !self.previews.contains_key(&key) {
            self.previews.insert(key.clone(), PreviewSlot::Loading);
            fx.push(Effect::LoadPreview { key, record });
        } else if self.preview_follow || self.preview_seek.is_some() {
            // A cached preview opens at its newest lines too (or at the hit).
            self.scroll_preview(0);
        }
    }

    pub(super) fn scroll_preview(&mut self, lines: isize) {
        let body = self.areas().preview_body;
        let (total, newest) = match self.current_preview() {
            Some(PreviewSlot::Ready(snapshot)) => {
                let laid = preview::lay_out(
                    snapshot,
                    self.preview_mode,
                    body.width as usize,
                    self.setup.theme,
                    self.about(),
                );
                (laid.lines.len(), laid.newest)
            }
            _ => (0, None),
        };
        let max = total.saturating_sub(body.height as usize);
        if let (Some(line), Some(PreviewSlot::Ready(_))) =
            (self.seek_line(), self.current_preview())
        {
            // In search mode, open at the line of the hit, a line of
            // context above it.
            self.preview_scroll = line.saturating_sub(1).min(max);
            return;
        }
        // Following, the preview opens at the newest kept message: its
        // role line in view, at the top when the message is longer than
        // the pane (never mid-paragraph), else with the end of the
        // snapshot at the bottom.
        self.preview_scroll = if self.preview_follow {
            newest.map_or(max, |start| start.min(max))
        } else {
            step(self.preview_scroll, lines, max)
        };
    }

    /// The preview line holding the hit to scroll to (the first that
    /// contains the matched text, case-insensitively), consumed once found
    /// or once the ready preview lacks it.
    fn seek_line(&mut self) -> Option<usize> {
        if !self.seek_pending {
            return None;
        }
        let Some(PreviewSlot::Ready(snapshot)) = self.current_preview() else {
            return None;
        };
        let body = self.areas().preview_body;
        let lines = preview::lines(
            snapshot,
            self.preview_mode,
            body.width as usize,
            self.setup.theme,
            self.about(),
        );
        self.seek_pending = false;
        let needle = self.preview_seek.as_ref()?.to_lowercase();
        lines.iter().position(|line| {
            let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
            text.to_lowercase().contains(&needle)
        })
    }
}

#[cfg(test)]
#[path = "preview_tests.rs"]
mod tests;
