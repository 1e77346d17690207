//! What one backward scan of a Claude Code transcript finds (step 1 of
//! the title rules in `title`): its latest custom and AI titles and its
//! summary lines. Both the session's own title and its project folder's
//! summaries (`folder`) are read from these facts, so they sit below both.

use std::path::Path;

use memchr::memmem;

use super::line::Line;
use crate::error::ReadError;
use crate::kinds::foreign::{read_lines, Visit};
use session_ref_jsonl::lines;
use session_ref_jsonl::loose::{is_str, string};

/// What one backward scan of a transcript finds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct TailFacts {
    /// The latest non-blank `custom-title`.
    pub(super) custom_title: Option<String>,
    /// The latest non-blank `ai-title` after the latest custom title (all
    /// of the file when there is none).
    pub(super) ai_title: Option<String>,
    /// `(leafUuid, summary)` of the file's summary lines in file order;
    /// `None` when the scan stopped early at a custom title.
    pub(super) summaries: Option<Vec<(String, String)>>,
}

/// A summary line's `(leafUuid, summary)`, when it has both and the summary
/// is not blank.
fn summary_entry(line: &Line<'_>) -> Option<(String, String)> {
    if !is_str(line.kind, "summary") {
        return None;
    }
    let text = string(line.summary).filter(|s| !s.trim().is_empty())?;
    Some((string(line.leaf_uuid)?, text))
}

/// Scan a transcript from its end for titles and summaries. Claude Code
/// writes these line types with literal keys, so lines without the words
/// are passed over without parsing.
pub(super) fn tail_facts(path: &Path) -> Result<TailFacts, ReadError> {
    let title_word = memmem::Finder::new(b"-title");
    let summary_word = memmem::Finder::new(b"summary");
    let mut facts = TailFacts::default();
    let mut summaries = Vec::new();
    let custom = lines::scan_backward(path, |bytes| {
        let maybe_title = title_word.find(bytes).is_some();
        if !maybe_title && summary_word.find(bytes).is_none() {
            return None;
        }
        let line = Line::parse(bytes)?;
        if is_str(line.kind, "custom-title") {
            return string(line.custom_title).filter(|t| !t.trim().is_empty());
        }
        if facts.ai_title.is_none() && is_str(line.kind, "ai-title") {
            facts.ai_title = string(line.ai_title).filter(|t| !t.trim().is_empty());
        }
        summaries.extend(summary_entry(&line));
        None
    })
    .map_err(|e| ReadError::io(path, &e))?;
    if custom.is_some() {
        facts.custom_title = custom;
    } else {
        summaries.reverse();
        facts.summaries = Some(summaries);
    }
    Ok(facts)
}

/// Every summary line of a file, in order.
pub(super) fn summaries_of(path: &Path) -> Result<Vec<(String, String)>, ReadError> {
    let word = memmem::Finder::new(b"summary");
    let mut found = Vec::new();
    read_lines(path, false, |_, bytes| {
        if word.find(bytes).is_some() {
            if let Some(entry) = Line::parse(bytes).as_ref().and_then(summary_entry) {
                found.push(entry);
            }
        }
        Visit::NEXT
    })?;
    Ok(found)
}
