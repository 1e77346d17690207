//! The prompt and what goes into it: typing and pastes (into the focused
//! input), mentions inserted from the list, the editor's text, saved drafts
//! restored, the mentions no store lists flagged, and the submit that
//! checks the prompt as `prepare` will.

use super::{Effect, Exit, Focus, State, Submit};
use crate::config::PickFormat;
use crate::tui::line::Edit;
use crate::tui::prompt::Prompt;
use session_ref_core::mention;
use session_ref_core::prepare::normalize_references;

impl State {
    /// The prompt buffer.
    pub fn prompt(&self) -> &Prompt {
        &self.prompt
    }

    /// The prompt as typed so far.
    pub fn prompt_text(&self) -> &str {
        self.prompt.text()
    }

    /// Whether no store lists session `id` (a mention's): decided once the
    /// listing is complete, other machines' included; `false` before.
    pub fn unknown_session(&self, id: &str) -> bool {
        !self.discovering
            && !self.by_id.contains_key(id)
            && self.setup.target.session_id.as_deref() != Some(id)
    }

    /// The mentions in the prompt whose session no store lists, said in
    /// the footer (as an error: the submit would fail) when there are any.
    /// Called when the listing completes and when the prompt is replaced
    /// (a draft restored, the editor's text); the chips say it meanwhile.
    pub(super) fn flag_unknown_mentions(&mut self) {
        if self.discovering {
            return;
        }
        let text = self.prompt.text();
        let mut unknown: Vec<String> = Vec::new();
        for span in self.prompt.mentions() {
            let Ok(id) = session_ref_core::uri::decode(&text[span.uri.clone()]) else {
                continue;
            };
            if self.unknown_session(&id) {
                let label = span
                    .label
                    .clone()
                    .map_or_else(|| id.clone(), |raw| mention::unescape_label(&text[raw]));
                let named = format!("@{} ({id})", crate::display::one_line(&label, 40));
                if !unknown.contains(&named) {
                    unknown.push(named);
                }
            }
        }
        if unknown.is_empty() {
            return;
        }
        let what = if unknown.len() == 1 {
            format!("{} cites a session no store lists", unknown[0])
        } else {
            format!("these cite sessions no store lists: {}", unknown.join(", "))
        };
        let text = match self.flash.take() {
            Some(before) => format!("{}; {what}: remove it or the submit fails", before.text),
            None => format!("{what}: remove it or the submit fails"),
        };
        self.error(text);
    }

    /// The saved draft this run restored, if any.
    pub fn restored_draft(&self) -> Option<&std::path::Path> {
        self.restored.as_deref()
    }

    /// What was typed before a draft replaced it, when it is not the
    /// prompt now: to save as a draft whatever the run's end, so that
    /// restoring loses nothing.
    pub fn set_aside(&self) -> Option<&str> {
        let (typed, _) = self.drafts_shown.as_ref()?;
        (!typed.trim().is_empty() && typed != self.prompt.text()).then_some(typed.as_str())
    }

    /// `alt-r`: show the next older draft; after the oldest, what was typed
    /// before the first `alt-r`. A prompt edited since the last `alt-r` is
    /// what was typed from then on (it is never dropped).
    pub(super) fn restore_draft(&mut self) {
        let count = self.setup.drafts.len();
        if count == 0 {
            self.info("no saved prompt to restore");
            return;
        }
        let current = self.prompt.text().to_owned();
        let next = match &self.drafts_shown {
            Some((typed, shown)) => {
                let showing = match shown {
                    Some(at) => &self.setup.drafts[*at].text,
                    None => typed,
                };
                if *showing != current {
                    (current, Some(0))
                } else {
                    let after = shown.map_or(0, |at| at + 1);
                    let wrap = (typed.trim().is_empty()).then_some(0);
                    (typed.clone(), (after < count).then_some(after).or(wrap))
                }
            }
            None => (current, Some(0)),
        };
        let (typed, shown) = next;
        match shown {
            Some(at) => {
                let draft = &self.setup.drafts[at];
                self.prompt.set_text(&draft.text);
                self.restored = Some(draft.path.clone());
                let rest = if at + 1 < count {
                    "alt-r: an older one"
                } else if typed.trim().is_empty() {
                    "the oldest; alt-r: the newest again"
                } else {
                    "the oldest; alt-r: back to what you typed"
                };
                self.info(&format!("saved prompt {} of {count} ({rest})", at + 1));
            }
            None => {
                self.prompt.set_text(&typed);
                self.restored = None;
                self.info("back to what you typed (alt-r: the saved prompts again)");
            }
        }
        self.drafts_shown = Some((typed, shown));
        self.focus = Focus::Prompt;
        self.scroll_prompt();
    }

    pub(super) fn edit(&mut self, edit: Edit) {
        match self.focus {
            Focus::Filter => {
                self.filter.apply(edit);
            }
            Focus::Prompt => {
                let width = self.areas().prompt_body.width as usize;
                self.prompt.apply(edit, width);
                self.scroll_prompt();
            }
        }
    }

    /// Text pasted into the focused input.
    pub(super) fn paste(&mut self, text: &str) {
        match self.focus {
            Focus::Filter => self.filter.insert_str(text),
            Focus::Prompt => {
                self.prompt.insert_str(text);
                self.scroll_prompt();
            }
        }
    }

    /// The editor returned `text`: it replaces the prompt, which takes the
    /// focus.
    pub(super) fn edited(&mut self, text: &str) {
        self.prompt.set_text(text);
        self.focus = Focus::Prompt;
        self.scroll_prompt();
        self.flag_unknown_mentions();
    }

    pub(super) fn insert_mention(&mut self) {
        let Some(entry) = self.current() else {
            self.error("no candidate to insert".to_owned());
            return;
        };
        let id = entry.record.id.clone();
        let mention = mention::format_mention(&id, Some(entry.label()));
        let cited = self.prompt.referenced_ids();
        let max = self.setup.limits.max_references;
        if !cited.contains(&id) && cited.len() >= max {
            self.error(format!(
                "a message may cite at most {max} sessions (--max-references): remove a mention first"
            ));
            return;
        }
        self.prompt.insert_mention(&mention);
        self.scroll_prompt();
    }

    pub(super) fn submit(&mut self, fx: &mut Vec<Effect>) {
        if self.submit != Submit::Idle {
            return;
        }
        let text = self.prompt.submitted().to_owned();
        if text.trim().is_empty() {
            self.error(
                "nothing to submit: write a message, or press enter on a session to mention it"
                    .to_owned(),
            );
            return;
        }
        let checked = self.prompt.parse().and_then(|parsed| {
            Ok(normalize_references(
                self.setup.target.session_id.as_deref(),
                &parsed.references,
                self.setup.limits.max_references,
            )?)
        });
        if let Err(e) = checked {
            self.error(format!("{}: {}", e.code, e.message_for_person()));
            return;
        }
        match self.setup.format {
            PickFormat::Mention => fx.push(Effect::Exit(Exit::Submit(format!("{text}\n")))),
            _ if self.discovering => {
                self.submit = Submit::Waiting;
                self.info("waiting for discovery to finish… (esc aborts)");
            }
            format => {
                self.submit = Submit::Preparing;
                fx.push(Effect::Prepare { text, format });
            }
        }
    }

    pub(super) fn scroll_prompt(&mut self) {
        let body = self.areas().prompt_body;
        let layout = self.prompt.layout(body.width as usize);
        let height = (body.height as usize).max(1);
        let row = layout.cursor_row;
        if row < self.prompt_scroll {
            self.prompt_scroll = row;
        } else if row >= self.prompt_scroll + height {
            self.prompt_scroll = row + 1 - height;
        }
        let rows = layout.rows.len().max(row + 1);
        self.prompt_scroll = self.prompt_scroll.min(rows.saturating_sub(height));
    }
}

#[cfg(test)]
#[path = "prompt_tests.rs"]
mod tests;
