//! Export from the picker (`alt-x`): the highlighted session's
//! conversation written to a file the person names, as `session-ref
//! export ID --output FILE` writes it. The question starts at
//! `./<slug of the label>.md`; the extension says the format (`.md`,
//! `.html`, `.json`). The driver writes off the UI thread
//! ([`Effect::Export`]), privately (0600 in a file of its own, written
//! atomically), and never over an existing file unless `enter` is pressed
//! again after the picker said it exists. The result is said in the
//! status line.

use std::path::PathBuf;

use super::export_ask::{format_of, shown, slug, ExportAsk, ExportFailure};
use super::{Effect, State};
use crate::tui::line::{Edit, LineInput};

impl State {
    /// `alt-x`: ask where to export the highlighted session.
    pub(super) fn ask_export(&mut self) {
        let Some(entry) = self.current() else {
            self.error("no session to export".to_owned());
            return;
        };
        let path = LineInput::new(&format!("./{}.md", slug(entry.label())));
        self.export = Some(ExportAsk {
            record: entry.record.clone(),
            path,
            overwrite: false,
            writing: false,
        });
    }

    /// An edit of the path; a changed path is no longer confirmed.
    pub(super) fn export_edit(&mut self, edit: Edit) {
        if let Some(ask) = self.export.as_mut() {
            if ask.path.apply(edit) {
                ask.overwrite = false;
            }
        }
    }

    /// `enter`: write the export, when the path names a format.
    pub(super) fn confirm_export(&mut self, fx: &mut Vec<Effect>) {
        let Some(ask) = self.export.as_mut().filter(|ask| !ask.writing) else {
            return;
        };
        let path = PathBuf::from(ask.path.text().trim());
        let Some(format) = format_of(&path) else {
            self.error("export: name a .md, .html or .json file".to_owned());
            return;
        };
        ask.writing = true;
        fx.push(Effect::Export {
            record: ask.record.clone(),
            path,
            format,
            overwrite: ask.overwrite,
        });
    }

    /// The driver's answer: said in the status line; an existing file
    /// asks once more.
    pub(super) fn exported(&mut self, result: Result<PathBuf, ExportFailure>) {
        let Some(ask) = self.export.as_mut() else {
            return;
        };
        ask.writing = false;
        match result {
            Ok(path) => {
                self.export = None;
                self.info(&format!("exported to {}", shown(&path)));
            }
            Err(ExportFailure::Exists(path)) => {
                ask.overwrite = true;
                self.error(format!(
                    "{} exists: enter replaces it, esc keeps it",
                    shown(&path)
                ));
            }
            Err(ExportFailure::Failed(why)) => self.error(format!("export: {why}")),
        }
    }
}
