//! What comes into the picker's state machine ([`Action`]: keys, the
//! mouse, background results) and what goes out of it ([`Effect`]: work
//! for the driver), as plain data, so that tests can feed one and assert
//! the other.

use std::time::{Duration, Instant};

use crossterm::event::{MouseEvent, MouseEventKind};

use crate::config::PickFormat;
use crate::error::Error;
use crate::search::hits::SessionMatch;
use crate::tui::line::Edit;
use crate::tui::preview::{PreviewKey, Snapshot};
use crate::tui::remote_search::{RemoteAnswer, RemoteAsk};
use session_ref_engine::rank::EntryId;
use session_ref_stores::model::SessionRecord;
use session_ref_stores::ScanEvent;

/// The longest time between two clicks on a row that makes them a double
/// click (which inserts the row's mention, as fzf accepts on one).
pub const DOUBLE_CLICK: Duration = Duration::from_millis(500);

/// How the picker ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    /// Deliver this text (written once, after the terminal is restored).
    Submit(String),
    /// The user aborted: nothing is written, exit 130.
    Abort,
    /// Start this command (resume or hand-off), once the terminal is
    /// restored.
    Launch(crate::launch::Plan),
}

/// Everything that can happen to the picker.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Edit the focused input.
    Edit(Edit),
    /// Text pasted into the focused input.
    Paste(String),
    /// Move the highlight by this many candidates.
    Move(isize),
    /// Move the highlight by this many pages.
    Page(isize),
    /// Insert the highlighted candidate's mention at the prompt's cursor.
    InsertMention,
    /// Switch focus between filter and prompt.
    ToggleFocus,
    /// Switch between all sessions and this directory's.
    ToggleScope,
    /// Switch the order between last activity and creation.
    ToggleSort,
    /// Switch the preview between readable and raw.
    TogglePreviewMode,
    /// Hide the preview (the list takes its room) or show it again.
    TogglePreview,
    /// Scroll the preview by lines.
    PreviewScroll(isize),
    /// Scroll the preview by pages.
    PreviewPage(isize),
    /// Scroll the preview to its end (`true`) or its start.
    PreviewEdge(bool),
    /// A click or a turn of the wheel, and when it was read (two clicks
    /// on a row within [`DOUBLE_CLICK`] are a double click: the time is
    /// data, so the state reads no clock).
    Mouse(MouseEvent, Instant),
    /// Open or close the help screen.
    ToggleHelp,
    /// Scroll the help screen.
    HelpScroll(isize),
    /// Edit the prompt in `$EDITOR`.
    OpenEditor,
    /// Replace the prompt with the next older draft an earlier run saved
    /// (after the oldest, what was typed comes back).
    RestoreDraft,
    /// The editor returned (the new text, or why it failed).
    EditorDone(Result<String, String>),
    /// Prepare the prompt and finish.
    Submit,
    /// The prepared output, or why preparing failed.
    Prepared(Result<String, Error>),
    /// Leave without output.
    Abort,
    /// Resume the highlighted session with its own agent.
    Resume,
    /// Open the hand-off chooser on the highlighted session.
    Handoff,
    /// Move the chooser's highlight.
    ChooserMove(isize),
    /// Hand off to the chooser's highlighted agent.
    Choose,
    /// Close the chooser.
    CloseChooser,
    /// Ask for a file to export the highlighted session to.
    Export,
    /// Write the export to the path asked for.
    ConfirmExport,
    /// Close the export's question.
    CloseExport,
    /// Where the export was written, or why not (see [`Effect::Export`]).
    Exported(Result<std::path::PathBuf, super::export_ask::ExportFailure>),
    /// The command a resume or hand-off starts, or why it cannot (see
    /// [`Effect::PlanLaunch`]).
    Planned(Result<crate::launch::Plan, Error>),
    /// The terminal has this many columns and rows.
    Resize(u16, u16),
    /// Files classified by discovery.
    Discovered(Vec<ScanEvent>),
    /// Discovery has finished.
    DiscoveryDone,
    /// Titles read (`None`: absent or unreadable).
    Titles(Vec<(EntryId, Option<String>)>),
    /// Last activity read (Unix seconds).
    Activity(Vec<(EntryId, i64)>),
    /// The latest typed prompt of sessions whose label another session
    /// carries too (`None`: none, or unreadable).
    LatestPrompts(Vec<(EntryId, Option<String>)>),
    /// A preview computed.
    PreviewReady(PreviewKey, Result<Snapshot, Error>),
    /// A preview request dropped unstarted (its candidate was no longer
    /// highlighted); it is asked for again when it is.
    PreviewDropped(PreviewKey),
    /// Switch the filter between session titles and conversation search.
    ToggleSearch,
    /// Conversation search `generation` found this session.
    SearchFound(u64, EntryId, SessionMatch),
    /// Conversation search `generation` ended (or why it could not run).
    SearchDone(u64, Result<(), String>),
    /// A remote answered a conversation search (see
    /// [`Effect::SearchRemote`]).
    RemoteSearched {
        /// The host, as configured.
        host: String,
        /// The picker query it answers.
        query: String,
        /// Its matches, or why it could not search.
        answer: RemoteAnswer,
    },
}

impl Action {
    /// Whether the user caused it (a key or a paste), as opposed to a
    /// background result.
    pub(super) fn by_user(&self) -> bool {
        // Moving the pointer is not doing something.
        if let Action::Mouse(event, _) = self {
            return !matches!(event.kind, MouseEventKind::Moved);
        }
        !matches!(
            self,
            Action::Resize(..)
                | Action::Discovered(_)
                | Action::DiscoveryDone
                | Action::Titles(_)
                | Action::Activity(_)
                | Action::PreviewReady(..)
                | Action::PreviewDropped(_)
                | Action::SearchFound(..)
                | Action::SearchDone(..)
                | Action::RemoteSearched { .. }
                | Action::Prepared(_)
                | Action::Planned(_)
                | Action::EditorDone(_)
        )
    }
}

/// What the driver must do.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Read these sessions' titles in the background; answer with [`Action::Titles`].
    ReadTitles(Vec<(EntryId, SessionRecord)>),
    /// Read the latest typed prompt of these sessions (each shares its
    /// label with another: a fork and its parent) in the background;
    /// answer with [`Action::LatestPrompts`].
    ReadLatestPrompts(Vec<(EntryId, SessionRecord)>),
    /// Compute this preview off the UI thread; answer with [`Action::PreviewReady`].
    LoadPreview {
        /// Cache key (session id and mention label).
        key: PreviewKey,
        /// The highlighted record.
        record: SessionRecord,
    },
    /// Run `$EDITOR` on this text; answer with [`Action::EditorDone`].
    OpenEditor(String),
    /// Prepare this text as `prepare` does, rendered in `format`; answer
    /// with [`Action::Prepared`].
    Prepare {
        /// The prompt buffer.
        text: String,
        /// `text` or `jsonl`.
        format: PickFormat,
    },
    /// Search the conversations of `records` (in this order, newest
    /// first) for `query` off the UI thread, stopping the previous search;
    /// answer with [`Action::SearchFound`] per match, then
    /// [`Action::SearchDone`].
    Search {
        /// Tells this search's answers from a superseded one's.
        generation: u64,
        /// The filter text: words, "phrases", or `re:` and a regex.
        query: String,
        /// The sessions to search.
        records: Vec<(EntryId, SessionRecord)>,
    },
    /// Stop the running search (its answers are ignored anyway).
    CancelSearch,
    /// Ask a remote to search its conversations with its own index, on a
    /// thread of its own (never the UI's, never rayon's); answer with
    /// [`Action::RemoteSearched`]. At most one is in flight per host
    /// ([`crate::tui::remote_search`]).
    SearchRemote(RemoteAsk),
    /// Plan starting an agent on `record` off the UI thread (every check
    /// made, a hand-off's prompt prepared); answer with [`Action::Planned`].
    PlanLaunch {
        /// The session.
        record: SessionRecord,
        /// Resume it, or hand it to which agent.
        launch: crate::launch::Launch,
    },
    /// Export `record` to `path` off the UI thread (privately, 0600;
    /// an existing file only when `overwrite`); answer with
    /// [`Action::Exported`].
    Export {
        /// The session.
        record: SessionRecord,
        /// Where to write.
        path: std::path::PathBuf,
        /// In which format.
        format: session_ref_core::export::ExportFormat,
        /// Replace an existing file.
        overwrite: bool,
    },
    /// End the picker.
    Exit(Exit),
}
