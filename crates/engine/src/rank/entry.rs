//! The ranked entries: a listed session with its label, group and the
//! haystacks the terms are matched against, converted once per label.

use nucleo_matcher::{Utf32Str, Utf32String};

use super::char_set::CharSet;
use crate::order::Place;
use session_ref_core::candidates::{group_rank, Target};
use session_ref_core::escape::safe_label;
use session_ref_stores::model::SessionRecord;

/// Index of an [`Entry`] in the picker's arrival-ordered entry list.
pub type EntryId = u32;

/// A listed session with its label and what ranking and the list read.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The listed record.
    pub record: SessionRecord,
    /// The label: its session's latest title, or the id while the title is
    /// unknown, absent or unreadable, made safe (SPEC §6,
    /// [`session_ref_core::escape::safe_label`]): what the list shows and a
    /// mention cites. Set through [`Entry::set_title`] and
    /// [`Entry::relabel`], which keep its haystack in step; the haystack is
    /// the text as the log holds it, which the query matches.
    label: String,
    /// Whether `label` differs from the text its haystack was made from.
    label_altered: bool,
    /// This record's own title, once read.
    pub title: Option<String>,
    /// Whether the title has been read.
    pub title_known: bool,
    /// Group rank (0 same cwd as the target, 1 no cwd, 2 other cwd).
    pub group: u8,
    /// Whether the cwd is the target's or below it (what ctrl-o keeps).
    pub within: bool,
    /// Last activity ([`session_ref_stores::last_activity`], Unix seconds), once read.
    pub activity: Option<i64>,
    /// What the terms are matched against, converted once.
    pub(super) haystacks: Haystacks,
}

/// An entry's label, cwd (whole and last component) and id as
/// nucleo-matcher reads them, converted when the entry is made or
/// relabelled rather than on every keystroke, with the characters each
/// holds. Laid out so that the characters and the label's handle share a
/// cache line: a full pass reads them for every entry (an entry is
/// hundreds of bytes, so each line read is a miss).
#[derive(Debug, Clone)]
#[repr(C, align(64))]
pub(super) struct Haystacks {
    pub(super) chars: FieldChars,
    pub(super) label: Utf32String,
    pub(super) cwd_tail: Utf32String,
    pub(super) id: Utf32String,
    pub(super) cwd: Utf32String,
}

// The claim above, checked when compiling.
const _: () =
    assert!(std::mem::offset_of!(Haystacks, label) + std::mem::size_of::<Utf32String>() <= 64);

/// The characters of each field of [`Haystacks`].
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub(super) struct FieldChars {
    pub(super) label: CharSet,
    pub(super) cwd_tail: CharSet,
    pub(super) id: CharSet,
    pub(super) cwd: CharSet,
}

/// `text` exactly as `Utf32Str::new` presents it to the matcher (which
/// keeps the original bytes when every grapheme starts with an ASCII
/// character, where `Utf32String::from` would not).
pub(super) fn haystack(text: &str) -> Utf32String {
    let mut buf = Vec::new();
    match Utf32Str::new(text, &mut buf) {
        Utf32Str::Ascii(_) => Utf32String::Ascii(text.into()),
        Utf32Str::Unicode(chars) => Utf32String::Unicode(chars.into()),
    }
}

impl Entry {
    /// An entry for `record`, labelled by its id until its title is known.
    pub fn new(record: SessionRecord, target: &Target) -> Self {
        let cwd = record.cwd.as_deref().unwrap_or("");
        let trimmed = cwd.trim_end_matches('/');
        let cwd_tail = trimmed.rfind('/').map_or(0, |slash| slash + 1);
        let mut group = group_rank(record.cwd.as_deref(), target.cwd.as_deref());
        // `/w/p/` is the directory `/w/p` (the picker's `--cwd` is
        // normalised; a session may have recorded a trailing slash).
        if group == 2 && within(record.cwd.as_deref(), target.cwd.as_deref()) {
            let trim = |p: &str| p.trim_end_matches('/').len();
            if trim(cwd) == target.cwd.as_deref().map_or(0, trim) {
                group = 0;
            }
        }
        let (id, cwd, cwd_tail) = (
            haystack(&record.id),
            haystack(cwd),
            haystack(&cwd[cwd_tail..]),
        );
        let shown = safe_label(&record.id);
        let label_altered = matches!(shown, std::borrow::Cow::Owned(_));
        let chars = |field: &Utf32String| CharSet::of_field(field.slice(..));
        let haystacks = Haystacks {
            chars: FieldChars {
                label: chars(&id),
                cwd: chars(&cwd),
                cwd_tail: chars(&cwd_tail),
                id: chars(&id),
            },
            label: id.clone(),
            cwd,
            cwd_tail,
            id,
        };
        Entry {
            group,
            within: within(record.cwd.as_deref(), target.cwd.as_deref()),
            label: shown.into_owned(),
            label_altered,
            title: None,
            title_known: false,
            activity: None,
            haystacks,
            record,
        }
    }

    /// Where this entry stands in the list ([`crate::order`]).
    pub fn place(&self) -> Place<'_> {
        Place {
            group: self.group,
            activity: self.activity,
            record: &self.record,
        }
    }

    /// The label: its session's latest title, or the id while the title is
    /// unknown, absent or unreadable, made safe.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Record the title read for this session (`None`: absent or
    /// unreadable); it becomes the label.
    pub fn set_title(&mut self, title: Option<String>) {
        self.relabel(title.clone().unwrap_or_else(|| self.record.id.clone()));
        self.title = title;
        self.title_known = true;
    }

    /// Change the label to `label` as the log holds it, which the query
    /// matches; it is shown made safe (records sharing an id all carry the
    /// title of the first of them in record order, as the engine labels
    /// them).
    pub fn relabel(&mut self, label: String) {
        let safe = safe_label(&label);
        let altered = matches!(safe, std::borrow::Cow::Owned(_));
        if !altered && !self.label_altered && safe == self.label {
            // The same text, shown as it is matched: nothing to redo.
            return;
        }
        self.haystacks.label = haystack(&label);
        self.haystacks.chars.label = CharSet::of_field(self.haystacks.label.slice(..));
        self.label = safe.into_owned();
        self.label_altered = altered;
    }

    /// The cwd as a term sees it: the last component, or all of it, and
    /// its characters.
    pub(super) fn cwd(&self, full: bool) -> (Utf32Str<'_>, CharSet) {
        let hay = &self.haystacks;
        if full {
            (hay.cwd.slice(..), hay.chars.cwd)
        } else {
            (hay.cwd_tail.slice(..), hay.chars.cwd_tail)
        }
    }
}

/// Whether `cwd` is `target` or a directory below it.
pub fn within(cwd: Option<&str>, target: Option<&str>) -> bool {
    let (Some(cwd), Some(target)) = (cwd, target) else {
        return false;
    };
    let target = target.trim_end_matches('/');
    match cwd.strip_prefix(target) {
        Some(rest) => rest.is_empty() || rest.starts_with('/') || target.is_empty(),
        None => false,
    }
}
