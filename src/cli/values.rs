//! What a flag's value must look like to be parsed at all (else a usage
//! error, exit 2, as for any flag value of the wrong type), and what shell
//! completion offers for it.

use clap::Arg;

use crate::config::PreviewWindow;
use crate::error::ErrorCode;

/// `--preview-window`, validated by [`PreviewWindow::parse`]: a bad value
/// is a usage error (exit 2) that names the contract's code.
fn parse_preview_window(text: &str) -> std::result::Result<PreviewWindow, String> {
    PreviewWindow::parse(text).map_err(|why| format!("{}: {why}", ErrorCode::InvalidConfig))
}

/// The value parser of `--preview-window`: [`parse_preview_window`], with
/// its words as the values shell completion offers (else a completion
/// script falls back to file names, which the option never takes).
#[derive(Debug, Clone, Copy)]
pub(super) struct PreviewWindowSpec;

impl clap::builder::TypedValueParser for PreviewWindowSpec {
    type Value = PreviewWindow;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&Arg>,
        value: &std::ffi::OsStr,
    ) -> std::result::Result<PreviewWindow, clap::Error> {
        parse_preview_window.parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            PreviewWindow::WORDS
                .iter()
                .map(|word| clap::builder::PossibleValue::new(*word)),
        ))
    }
}

/// `--limit` as written: decimal digits (surrounding blanks allowed), else
/// a usage error (exit 2), as for any flag value of the wrong type. Its
/// range is checked by [`parse_limit`], as the reference checks it.
pub(super) fn limit_syntax(raw: &str) -> std::result::Result<String, String> {
    let digits = raw.trim();
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        Ok(raw.to_owned())
    } else {
        Err("expected a whole number (1, 2, …)".to_owned())
    }
}
