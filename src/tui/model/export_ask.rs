//! What the picker's export (`alt-x`, [`super::export`]) asks and answers,
//! without the picker's state: the question, why nothing was written, the
//! file name a label starts from and the format a path names. A leaf, so
//! the state and the driver can name these types with no import circle.

use std::path::{Path, PathBuf};

use crate::tui::line::LineInput;
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
