//! Export from the picker (`alt-x`): the highlighted session's
//! conversation written to a file the person names, as `session-ref
//! export ID --output FILE` writes it. The question starts at
//! `./<slug of the label>.md`; the extension says the format (`.md`,
//! `.html`, `.json`). The driver writes off the UI thread
//! ([`Effect::Export`]), privately (0600 in a file of its own, written
//! atomically), and never over an existing file unless `enter` is pressed
//! again after the picker said it exists. The result is said in the
//! status line.

use std::path::{Path, PathBuf};

use super::{Effect, State};
use crate::tui::line::{Edit, LineInput};
use session_ref_core::escape::safe_label;
use session_ref_core::export::ExportFormat;
use session_ref_stores::model::SessionRecord;

/// The export's question while it is asked.
#[derive(Debug, Clone)]
pub struct ExportAsk {
    /// The session to export.
    pub record: SessionRecord,
    /// The path being typed.
    pub path: LineInput,
    /// The picker said the file exists: `enter` again replaces it.
    pub overwrite: bool,
    /// A write is in flight.
    pub writing: bool,
}

/// Why an export from the picker wrote nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExportFailure {
    /// The file exists and replacing it was not confirmed.
    Exists(PathBuf),
    /// Reading the session or writing the file failed: why.
    Failed(String),
}

/// The file name an export of a session labelled `label` starts from: its
/// ASCII letters and digits, lowercased, other runs one `-` (so no `/`,
/// `..`, `$` or quote survives), at most 48 of them; `session` when none.
pub fn slug(label: &str) -> String {
    let mut out = String::new();
    for c in label.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
        if out.len() >= 48 {
            break;
        }
    }
    let out = out.trim_end_matches('-');
    if out.is_empty() {
        "session".to_owned()
    } else {
        out.to_owned()
    }
}

/// The format a path's extension names, `None` for another one.
pub fn format_of(path: &Path) -> Option<ExportFormat> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "md" | "markdown" => Some(ExportFormat::Markdown),
        "html" | "htm" => Some(ExportFormat::Html),
        "json" => Some(ExportFormat::Json),
        _ => None,
    }
}

/// A path as the status line shows it: one printable line.
pub fn shown(path: &Path) -> String {
    safe_label(&path.to_string_lossy()).into_owned()
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slug_keeps_letters_and_digits_only() {
        assert_eq!(
            slug("$(touch PWNED) ../../etc/x `id`"),
            "touch-pwned-etc-x-id"
        );
        assert_eq!(slug("Fix: the *login* test"), "fix-the-login-test");
        assert_eq!(slug("../.."), "session");
        assert_eq!(slug("ünïcode only ✓"), "n-code-only");
        assert!(slug(&"a".repeat(200)).len() <= 48);
    }

    #[test]
    fn the_extension_says_the_format() {
        assert_eq!(format_of(Path::new("a.md")), Some(ExportFormat::Markdown));
        assert_eq!(format_of(Path::new("a.HTML")), Some(ExportFormat::Html));
        assert_eq!(format_of(Path::new("./x/a.json")), Some(ExportFormat::Json));
        assert_eq!(format_of(Path::new("a.txt")), None);
        assert_eq!(format_of(Path::new("md")), None);
    }
}
