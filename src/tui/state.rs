//! The picker's state machine: [`update`] takes an [`Action`] (a key, a
//! discovery batch, a computed preview, …) and returns [`Effect`]s as data
//! for the driver to perform. No terminal, no I/O, no clock: tests feed
//! actions and assert state and effects.
//!
//! Ranking is deferred: edits and background data only mark the list stale,
//! and [`State::settle`] re-ranks once (the driver calls it after draining a
//! batch of events, before drawing; actions that need the list settle first).

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};

use crate::config::Limits;
use crate::config::PickFormat;
use crate::config::PreviewWindow;
use crate::error::Error;
use crate::search::hits::{Hit as SearchHit, SessionMatch};
use crate::tui::keymap::Context;
use crate::tui::layout::{self, Areas};
use crate::tui::line::{Edit, LineInput};
use crate::tui::preview::{self, PreviewKey, PreviewMode, PreviewSlot, Snapshot};
use crate::tui::prompt::Prompt;
use crate::tui::remote_search::{RemoteAnswer, RemoteAsk, RemoteSearches};
use crate::tui::theme::Theme;
use session_ref_core::candidates::Target;
use session_ref_core::mention;
use session_ref_core::prepare::normalize_references;
use session_ref_engine::order::{self, SortBy};
use session_ref_engine::rank::{Entry, EntryId, Hit, Reranker};
use session_ref_stores::model::SessionRecord;
use session_ref_stores::{Catalog, ScanEvent};

/// The longest time between two clicks on a row that makes them a double
/// click (which inserts the row's mention, as fzf accepts on one).
pub const DOUBLE_CLICK: Duration = Duration::from_millis(500);

/// Which input receives typing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Focus {
    /// The filter line.
    #[default]
    Filter,
    /// The prompt buffer.
    Prompt,
}

/// Which sessions are listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scope {
    /// Every session.
    #[default]
    All,
    /// Only sessions whose cwd is the target's or below it.
    Here,
}

/// The list's order within each group (this directory, no directory, others).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortOrder {
    /// Most recently active first (the log's modification time), as the
    /// agents' own resume pickers sort.
    #[default]
    Activity,
    /// Newest created first: the reference's record order.
    Created,
}

/// A one-off message in the footer, cleared by the next key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flash {
    /// Whether it reports a failure.
    pub error: bool,
    /// The text.
    pub text: String,
}

/// Where a submit stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Submit {
    /// Not submitted.
    #[default]
    Idle,
    /// Submitted while sessions were still being discovered: prepares when
    /// discovery ends.
    Waiting,
    /// Being prepared.
    Preparing,
}

/// How the picker ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    /// Deliver this text (written once, after the terminal is restored).
    Submit(String),
    /// The user aborted: nothing is written, exit 130.
    Abort,
}

/// What a picker run starts from.
#[derive(Debug, Clone)]
pub struct Setup {
    /// Limits (`maxReferences`, `maxReferenceBytes`).
    pub limits: Limits,
    /// The target session and cwd.
    pub target: Target,
    /// What submit writes.
    pub format: PickFormat,
    /// Initial filter text.
    pub query: String,
    /// Initial prompt text.
    pub prompt: String,
    /// The current time (Unix seconds), for ages.
    pub now: i64,
    /// The home directory, shown as `~`.
    pub home: Option<String>,
    /// Styles.
    pub theme: Theme,
    /// What to show when discovery finds no session at all.
    pub empty_hint: String,
    /// Drafts saved by earlier runs, newest first, offered for restoring.
    pub drafts: Vec<crate::draft::Draft>,
    /// What the catalog reads with (the title index, when in use).
    pub caches: Arc<session_ref_stores::Caches>,
    /// The conversation-search index's directory (`None`: `--no-cache`).
    pub search_index: Option<std::path::PathBuf>,
    /// `--preview-window`: where the preview sits, its size, whether it
    /// starts hidden.
    pub preview_window: PreviewWindow,
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
    fn by_user(&self) -> bool {
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
    /// End the picker.
    Exit(Exit),
}

/// A session conversation search found, as the list shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchRow {
    /// The core's ranking score (higher first).
    pub score: f64,
    /// The hit shown: the best matching message's line.
    pub best: SearchHit,
    /// Matches over the whole history.
    pub matches: usize,
}

/// Conversation search mode: the filter text is a query over what was
/// said, answered by a background search.
#[derive(Debug, Default)]
pub(crate) struct SearchMode {
    /// Tells current answers from those of a superseded search.
    generation: u64,
    /// The query the current results answer (`None`: none asked yet).
    asked: Option<String>,
    /// How many entries existed when it was asked (discovery may add more).
    asked_over: usize,
    /// Whether the search is still running.
    pub(crate) running: bool,
    /// Why the query could not run (a bad regex).
    pub(crate) error: Option<String>,
    /// Matching sessions found so far.
    pub(crate) rows: HashMap<EntryId, SearchRow>,
    /// The asked query compiled, to highlight its matches in the preview
    /// (`None`: none asked, or it does not compile).
    pub(crate) compiled: Option<crate::search::query::Query>,
}

/// The whole picker state. Views read it; only [`update`] and
/// [`State::settle`] change it.
#[derive(Debug)]
pub struct State {
    pub(crate) setup: Setup,
    /// Every session discovered so far: the one catalog, appended to here
    /// and shared with the engine once discovery has ended.
    catalog: Arc<Catalog>,
    /// One entry per catalog record, in arrival order (an [`EntryId`] is
    /// the record's [`RecordId`](session_ref_stores::RecordId)).
    pub(crate) entries: Vec<Entry>,
    /// Entry ids in the list's order ([`State::compare`]: group, then the
    /// sort, then record order), the target's records left out (SPEC §6's
    /// pool, as `candidates::eligible` makes it), kept sorted as sessions
    /// arrive and their activity is read.
    order: Vec<EntryId>,
    /// `position[id]`: where entry `id` sits in `order` (`u32::MAX`: not there).
    position: Vec<u32>,
    /// Entries by session id (several records may share one).
    by_id: HashMap<String, Vec<EntryId>>,
    /// Entries whose cwd is the target's or below it.
    pub(crate) here_count: usize,
    /// The ranked list.
    pub(crate) hits: Vec<Hit>,
    pub(crate) selected: usize,
    pub(crate) list_offset: usize,
    /// Whether the user moved the highlight since the query last changed.
    pinned: bool,
    pub(crate) discovering: bool,
    pub(crate) titles_pending: usize,
    pub(crate) unreadable: usize,
    pub(crate) skipped: usize,
    pub(crate) filter: LineInput,
    pub(crate) scope: Scope,
    pub(crate) sort: SortOrder,
    pub(crate) focus: Focus,
    pub(crate) prompt: Prompt,
    pub(crate) prompt_scroll: usize,
    pub(crate) previews: HashMap<PreviewKey, PreviewSlot>,
    pub(crate) preview_mode: PreviewMode,
    pub(crate) preview_scroll: usize,
    /// Whether the preview keeps its newest kept message in view, from its
    /// role line (until the user scrolls it).
    preview_follow: bool,
    preview_for: Option<PreviewKey>,
    pub(crate) help: bool,
    pub(crate) help_scroll: usize,
    pub(crate) flash: Option<Flash>,
    /// The saved draft restored into the prompt (to be removed once this
    /// run has delivered or saved the prompt).
    pub(crate) restored: Option<std::path::PathBuf>,
    /// Stepping through the drafts: what was typed before the first
    /// `alt-r` and which draft (index in `setup.drafts`) is shown, `None`
    /// when the typed text is.
    pub(crate) drafts_shown: Option<(String, Option<usize>)>,
    pub(crate) submit: Submit,
    pub(crate) size: (u16, u16),
    /// Query and scope the hits were ranked for.
    ranked: Option<(String, Scope)>,
    /// Entries or labels changed since the last rank.
    stale: bool,
    /// Labels that more than one session carries.
    shared_labels: HashSet<String>,
    /// The latest typed prompt of each session carrying a shared label,
    /// which tells a fork from its parent in the list (`None`: asked for,
    /// or it has none). A display concern: labels stay the catalog's.
    latest_prompts: HashMap<EntryId, Option<String>>,
    /// The ranking, with what it keeps of earlier queries over the same
    /// entries and scope.
    reranker: Reranker,
    /// Conversation search, when the filter is in that mode.
    pub(crate) search: Option<SearchMode>,
    /// Text of the hit the preview should scroll to once it is ready.
    preview_seek: Option<String>,
    /// Whether the preview has yet to be scrolled to `preview_seek`.
    seek_pending: bool,
    /// Search generations handed out (kept across toggles so a stale
    /// answer never matches a new search).
    search_generation: u64,
    /// Conversation search on other machines (kept across toggles: a
    /// request in flight is answered whatever the picker does meanwhile).
    pub(crate) remote: RemoteSearches,
    /// Where the preview sits, its size, and whether `ctrl-/` hid it.
    pub(crate) preview_window: PreviewWindow,
    /// The last click on a row: when, and which session (the first half
    /// of a double click).
    last_click: Option<(Instant, EntryId)>,
}

/// Apply `action`; return what the driver must do.
pub fn update(state: &mut State, action: Action) -> Vec<Effect> {
    let mut effects = Vec::new();
    state.apply(action, &mut effects);
    effects
}

impl State {
    /// A picker about to discover sessions, sized 80x24 until told otherwise.
    pub fn new(setup: Setup) -> Self {
        let offer = match setup.drafts.len() {
            0 => None,
            1 => Some("a prompt you did not send was saved: alt-r restores it".to_owned()),
            n => Some(format!(
                "{n} prompts you did not send were saved: alt-r restores them, newest first"
            )),
        }
        .map(|text| Flash { error: false, text });
        let catalog = Arc::new(Catalog::with_caches(Arc::clone(&setup.caches)));
        let remote = RemoteSearches::new(
            setup
                .caches
                .get::<session_ref_stores::remote::Remotes>()
                .hosts()
                .iter()
                .map(|h| h.host.clone()),
        );
        let preview_window = setup.preview_window;
        State {
            filter: LineInput::new(&setup.query),
            prompt: Prompt::new(&setup.prompt),
            setup,
            catalog,
            entries: Vec::new(),
            order: Vec::new(),
            position: Vec::new(),
            by_id: HashMap::new(),
            here_count: 0,
            hits: Vec::new(),
            selected: 0,
            list_offset: 0,
            pinned: false,
            discovering: true,
            titles_pending: 0,
            unreadable: 0,
            skipped: 0,
            scope: Scope::All,
            sort: SortOrder::default(),
            focus: Focus::Filter,
            prompt_scroll: 0,
            previews: HashMap::new(),
            preview_mode: PreviewMode::Readable,
            preview_scroll: 0,
            preview_follow: true,
            preview_for: None,
            help: false,
            help_scroll: 0,
            flash: offer,
            restored: None,
            drafts_shown: None,
            submit: Submit::Idle,
            size: (80, 24),
            ranked: None,
            stale: true,
            shared_labels: HashSet::new(),
            latest_prompts: HashMap::new(),
            reranker: Reranker::new(),
            search: None,
            preview_seek: None,
            seek_pending: false,
            search_generation: 0,
            remote,
            preview_window,
            last_click: None,
        }
    }

    /// Re-rank if the query, scope, sessions or labels changed, keep the
    /// highlight visible and ask for its preview. Returns the effects.
    pub fn settle(&mut self) -> Vec<Effect> {
        let mut effects = Vec::new();
        self.settle_into(&mut effects);
        effects
    }

    /// Where the conversation search keeps its index, when in use.
    pub fn search_index(&self) -> Option<&std::path::Path> {
        self.setup.search_index.as_deref()
    }

    /// The sessions discovered so far.
    pub fn catalog(&self) -> &Arc<Catalog> {
        &self.catalog
    }

    /// The prompt buffer.
    pub fn prompt(&self) -> &Prompt {
        &self.prompt
    }

    /// The filter text.
    pub fn query(&self) -> &str {
        self.filter.text()
    }

    /// The highlighted candidate.
    pub fn current(&self) -> Option<&Entry> {
        self.hits
            .get(self.selected)
            .map(|h| &self.entries[h.id as usize])
    }

    /// Labels of the ranked candidates, best first.
    pub fn ranked_labels(&self) -> Vec<&str> {
        self.hits
            .iter()
            .map(|h| self.entries[h.id as usize].label())
            .collect()
    }

    /// The cached preview of the highlighted candidate.
    pub fn current_preview(&self) -> Option<&PreviewSlot> {
        self.preview_for.as_ref().and_then(|k| self.previews.get(k))
    }

    /// The preview the highlighted candidate needs.
    pub fn preview_key(&self) -> Option<&PreviewKey> {
        self.preview_for.as_ref()
    }

    /// What the key table needs to know.
    pub fn key_context(&self) -> Context {
        Context {
            focus: self.focus,
            help: self.help,
        }
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
    fn flag_unknown_mentions(&mut self) {
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
    fn restore_draft(&mut self) {
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

    /// The panes for the current size.
    pub fn areas(&self) -> Areas {
        layout::areas(
            Rect::new(0, 0, self.size.0, self.size.1),
            self.preview_window,
        )
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

    /// Whether more than one session carries `label` (forks start with
    /// their parent's first prompt, so they share its label).
    pub fn shared_label(&self, label: &str) -> bool {
        self.shared_labels.contains(label)
    }

    /// The latest typed prompt of entry `id`, once read: known only for a
    /// session whose label is shared ([`State::shared_label`]).
    pub fn latest_prompt(&self, id: EntryId) -> Option<&str> {
        self.latest_prompts.get(&id)?.as_deref()
    }

    /// Sessions listed under the current scope.
    pub fn total_in_scope(&self) -> usize {
        match self.scope {
            Scope::All => self.order.len(),
            Scope::Here => self.here_count,
        }
    }

    fn apply(&mut self, action: Action, fx: &mut Vec<Effect>) {
        let by_user = action.by_user();
        if by_user && self.submit != Submit::Idle && action != Action::Abort {
            return;
        }
        if by_user {
            self.flash = None;
        }
        match action {
            Action::Edit(edit) => self.edit(edit),
            Action::Paste(text) => match self.focus {
                Focus::Filter => self.filter.insert_str(&text),
                Focus::Prompt => {
                    self.prompt.insert_str(&text);
                    self.scroll_prompt();
                }
            },
            Action::Move(delta) => {
                self.settle_into(fx);
                self.select(self.selected as isize + delta, fx);
            }
            Action::Page(pages) => {
                self.settle_into(fx);
                let page = self.areas().list.height.max(1) as isize;
                self.select(self.selected as isize + pages * page, fx);
            }
            Action::InsertMention => {
                self.settle_into(fx);
                self.insert_mention();
            }
            Action::ToggleFocus => {
                self.focus = match self.focus {
                    Focus::Filter => Focus::Prompt,
                    Focus::Prompt => Focus::Filter,
                }
            }
            Action::ToggleScope => {
                self.scope = match self.scope {
                    Scope::All => Scope::Here,
                    Scope::Here => Scope::All,
                };
                self.pinned = false;
                if self.scope == Scope::Here && self.setup.target.cwd.is_none() {
                    self.info("no current directory is known: every session is listed");
                    self.scope = Scope::All;
                }
            }
            Action::ToggleSort => {
                self.sort = match self.sort {
                    SortOrder::Activity => SortOrder::Created,
                    SortOrder::Created => SortOrder::Activity,
                };
                self.resort();
            }
            Action::TogglePreviewMode => {
                self.preview_mode = match self.preview_mode {
                    PreviewMode::Readable => PreviewMode::Raw,
                    PreviewMode::Raw => PreviewMode::Readable,
                };
                self.preview_follow = self.preview_mode == PreviewMode::Readable;
                self.preview_scroll = 0;
                self.scroll_preview(0);
            }
            Action::TogglePreview => {
                self.preview_window.hidden = !self.preview_window.hidden;
                // The list and the prompt changed size: as on a resize.
                self.clamp_list();
                self.scroll_prompt();
                self.scroll_preview(0);
            }
            Action::PreviewScroll(lines) => {
                self.preview_follow = false;
                self.scroll_preview(lines);
            }
            Action::PreviewPage(pages) => {
                self.preview_follow = false;
                let page = self.areas().preview_body.height.max(1) as isize;
                self.scroll_preview(pages * page);
            }
            Action::PreviewEdge(end) => {
                self.preview_follow = end;
                self.preview_scroll = 0;
                self.scroll_preview(0);
            }
            Action::Mouse(event, at) => self.mouse(event, at, fx),
            Action::ToggleSearch => {
                if self.search.take().is_some() {
                    fx.push(Effect::CancelSearch);
                    self.remote.want(None);
                } else {
                    self.search = Some(SearchMode::default());
                }
                self.pinned = false;
                self.preview_seek = None;
                self.stale = true;
            }
            Action::SearchFound(generation, id, found) => self.search_found(generation, id, found),
            Action::RemoteSearched {
                host,
                query,
                answer,
            } => {
                let next = self.remote.answered(&host, &query, answer);
                fx.extend(next.map(Effect::SearchRemote));
                self.remote_rows(&query, Some(&host));
            }
            Action::SearchDone(generation, result) => {
                if let Some(search) = self.search.as_mut().filter(|s| s.generation == generation) {
                    search.running = false;
                    search.error = result.err();
                }
            }
            Action::ToggleHelp => {
                self.help = !self.help;
                self.help_scroll = 0;
            }
            Action::HelpScroll(lines) => {
                let area = Rect::new(0, 0, self.size.0, self.size.1);
                let rows = crate::tui::help::line_count(area);
                let visible = layout::help_popup(area, rows).height.saturating_sub(2) as usize;
                self.help_scroll = step(self.help_scroll, lines, rows.saturating_sub(visible));
            }
            Action::OpenEditor => fx.push(Effect::OpenEditor(self.prompt.text().to_owned())),
            Action::RestoreDraft => {
                self.restore_draft();
                self.flag_unknown_mentions();
            }
            Action::EditorDone(Ok(text)) => {
                self.prompt.set_text(&text);
                self.focus = Focus::Prompt;
                self.scroll_prompt();
                self.flag_unknown_mentions();
            }
            Action::EditorDone(Err(why)) => self.error(format!("$EDITOR: {why}")),
            Action::Submit => self.submit(fx),
            Action::Prepared(Ok(output)) => fx.push(Effect::Exit(Exit::Submit(output))),
            Action::Prepared(Err(e)) => {
                self.submit = Submit::Idle;
                self.error(format!("{}: {}", e.code, e.message_for_person()));
            }
            Action::Abort => fx.push(Effect::Exit(Exit::Abort)),
            Action::Resize(width, height) => {
                self.size = (width, height);
                self.clamp_list();
                self.scroll_prompt();
                self.scroll_preview(0);
            }
            Action::Discovered(events) => self.discovered(events, fx),
            Action::DiscoveryDone => {
                self.discovering = false;
                self.flag_unknown_mentions();
                // Previews of a shared id computed while discovering read the
                // highlighted record; `prepare` reads the id's first record.
                let shared = &self.by_id;
                self.previews
                    .retain(|key, _| shared.get(&key.session_id).is_none_or(|ids| ids.len() < 2));
                if self.submit == Submit::Waiting {
                    self.submit = Submit::Idle;
                    self.submit(fx);
                }
            }
            Action::Titles(titles) => {
                let mut touched = Vec::new();
                for (id, title) in titles {
                    if let Some(entry) = self.entries.get_mut(id as usize) {
                        if !entry.title_known {
                            self.titles_pending = self.titles_pending.saturating_sub(1);
                        }
                        entry.set_title(title);
                        touched.push(entry.record.id.clone());
                    }
                }
                self.label_shared(touched);
                self.stale = true;
            }
            Action::LatestPrompts(found) => self.latest_prompts.extend(found),
            Action::Activity(times) => {
                let mut moved = Vec::new();
                for (id, time) in times {
                    if let Some(entry) = self.entries.get_mut(id as usize) {
                        if entry.activity != Some(time) {
                            entry.activity = Some(time);
                            moved.push(id);
                        }
                    }
                }
                if self.sort == SortOrder::Activity {
                    self.replace(moved);
                }
            }
            Action::PreviewDropped(key) => {
                if self.previews.get(&key) == Some(&PreviewSlot::Loading) {
                    self.previews.remove(&key);
                }
            }
            Action::PreviewReady(key, result) => {
                let slot = match result {
                    Ok(snapshot) => PreviewSlot::Ready(Arc::new(snapshot)),
                    Err(e) => PreviewSlot::Failed(e),
                };
                self.previews.insert(key, slot);
                self.scroll_preview(0);
            }
        }
    }

    /// The wheel scrolls what it is over (the list moves its highlight, as
    /// in fzf). A click on a row highlights it, and a second click on the
    /// same session within [`DOUBLE_CLICK`] of the first (`when` tells) inserts its
    /// mention, as fzf accepts on a double click; a click on the filter
    /// gives it the focus, a click on the prompt's text the focus and the
    /// cursor there.
    fn mouse(&mut self, event: MouseEvent, when: Instant, fx: &mut Vec<Effect>) {
        const WHEEL: isize = 3;
        let at = Position::new(event.column, event.row);
        let areas = self.areas();
        let wheel = match event.kind {
            MouseEventKind::ScrollDown => Some(WHEEL),
            MouseEventKind::ScrollUp => Some(-WHEEL),
            _ => None,
        };
        if self.help {
            if let Some(lines) = wheel {
                self.apply(Action::HelpScroll(lines), fx);
            }
            return;
        }
        let over = |area: Rect| area.contains(at);
        let in_preview =
            over(areas.preview_body) || over(areas.preview_stats) || over(areas.preview_header);
        let body = areas.prompt_body;
        // The prompt's rows from edge to edge (its text is indented by one).
        let prompt_rows = Rect::new(0, body.y, self.size.0, body.height);
        match (wheel, event.kind) {
            (Some(lines), _) if over(areas.list) => self.apply(Action::Move(lines), fx),
            (Some(lines), _) if in_preview => self.apply(Action::PreviewScroll(lines), fx),
            (Some(lines), _) if over(areas.prompt_body) => {
                let rows = self.prompt.layout(body.width as usize).rows.len();
                let max = rows.saturating_sub(body.height as usize);
                self.prompt_scroll = step(self.prompt_scroll, lines.signum(), max);
            }
            (None, MouseEventKind::Down(MouseButton::Left)) => {
                let earlier = self.last_click.take();
                if over(areas.list) {
                    self.settle_into(fx);
                    let row = (at.y - areas.list.y) as usize + self.list_offset;
                    let Some(id) = self.hits.get(row).map(|h| h.id) else {
                        return;
                    };
                    self.select(row as isize, fx);
                    let double = earlier.is_some_and(|(then, on)| {
                        on == id && when.saturating_duration_since(then) <= DOUBLE_CLICK
                    });
                    if double {
                        self.insert_mention();
                    } else {
                        self.last_click = Some((when, id));
                    }
                } else if over(areas.filter) {
                    self.focus = Focus::Filter;
                } else if over(prompt_rows) && body.width > 0 {
                    self.focus = Focus::Prompt;
                    let row = (at.y - body.y) as usize + self.prompt_scroll;
                    let col = at.x.saturating_sub(body.x) as usize;
                    self.prompt.place_cursor(row, col, body.width as usize);
                    self.scroll_prompt();
                } else if over(areas.prompt_header) {
                    self.focus = Focus::Prompt;
                }
            }
            _ => {}
        }
    }

    fn edit(&mut self, edit: Edit) {
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

    fn discovered(&mut self, events: Vec<ScanEvent>, fx: &mut Vec<Effect>) {
        // No engine job holds the catalog while discovery runs, so this
        // appends in place.
        let catalog = Arc::make_mut(&mut self.catalog);
        let skipped = catalog.skipped.len();
        let unreadable = catalog.unreadable.len();
        let fresh = catalog.append(events);
        self.skipped += catalog.skipped.len() - skipped;
        self.unreadable += catalog.unreadable.len() - unreadable;
        if fresh.is_empty() {
            return;
        }
        let target = &self.setup.target;
        let mut to_read = Vec::new();
        let mut listed = Vec::new();
        for id in fresh {
            let record = self.catalog.get(id).clone();
            let entry_id = EntryId::try_from(id).expect("fewer than 2^32 sessions");
            debug_assert_eq!(self.entries.len(), id);
            self.entries.push(Entry::new(record.clone(), target));
            // The target's own session is not a candidate (SPEC §6).
            if target.session_id.as_deref() == Some(record.id.as_str()) {
                continue;
            }
            self.by_id
                .entry(record.id.clone())
                .or_default()
                .push(entry_id);
            listed.push(entry_id);
            to_read.push((entry_id, record));
        }
        self.position.resize(self.entries.len(), u32::MAX);
        self.here_count += listed
            .iter()
            .filter(|&&id| self.entries[id as usize].within)
            .count();
        self.place(listed);
        self.titles_pending += to_read.len();
        self.stale = true;
        self.label_shared(to_read.iter().map(|(_, r)| r.id.clone()).collect());
        fx.push(Effect::ReadTitles(to_read));
    }

    /// Relabel the records of these session ids by the catalog's rule
    /// ([`Catalog::label`]): records sharing an id all carry the title of
    /// the first of them in record order, as the engine labels them.
    fn label_shared(&mut self, ids: Vec<String>) {
        for id in ids {
            let Some(group) = self.by_id.get(&id).filter(|g| g.len() > 1) else {
                continue;
            };
            for &member in group {
                let entries = &self.entries;
                let label = self
                    .catalog
                    .label(member as usize, |source| entries[source].title.clone());
                self.entries[member as usize].relabel(label);
            }
        }
    }

    /// The engine's one list order ([`order::compare`]): group rank, then
    /// the sort (last activity, or record order), record order breaking
    /// ties; a session whose activity is not read yet counts as active
    /// when it was created.
    fn compare(&self, a: EntryId, b: EntryId) -> Ordering {
        let (a, b) = (&self.entries[a as usize], &self.entries[b as usize]);
        let sort = match self.sort {
            SortOrder::Activity => SortBy::Updated,
            SortOrder::Created => SortBy::Created,
        };
        order::compare(sort, &a.place(), &b.place())
    }

    /// Sort `order` again (the sort changed) and re-rank.
    fn resort(&mut self) {
        let mut order = std::mem::take(&mut self.order);
        order.sort_by(|&a, &b| self.compare(a, b));
        self.order = order;
        self.reposition(0);
        self.stale = true;
    }

    /// Put `ids`, entries not in `order`, in their places: sorted among
    /// themselves and merged into the sorted list, so that a batch of k
    /// sessions arriving in a list of n costs O(n + k log k), not a sort
    /// of the whole list (#25 item 11). Re-ranked at the next settle.
    fn place(&mut self, mut ids: Vec<EntryId>) {
        if ids.is_empty() {
            return;
        }
        ids.sort_by(|&a, &b| self.compare(a, b));
        let old = std::mem::take(&mut self.order);
        let first = old.partition_point(|&id| self.compare(id, ids[0]) != Ordering::Greater);
        let mut merged = Vec::with_capacity(old.len() + ids.len());
        merged.extend_from_slice(&old[..first]);
        let (mut i, mut j) = (first, 0);
        while i < old.len() && j < ids.len() {
            if self.compare(old[i], ids[j]) == Ordering::Greater {
                merged.push(ids[j]);
                j += 1;
            } else {
                merged.push(old[i]);
                i += 1;
            }
        }
        merged.extend_from_slice(&old[i..]);
        merged.extend_from_slice(&ids[j..]);
        self.order = merged;
        self.reposition(first);
        self.stale = true;
    }

    /// Move `ids` (entries whose activity changed) to their new places.
    fn replace(&mut self, ids: Vec<EntryId>) {
        let ids: Vec<EntryId> = ids
            .into_iter()
            .filter(|&id| self.position[id as usize] != u32::MAX)
            .collect();
        if ids.is_empty() {
            return;
        }
        for &id in &ids {
            self.position[id as usize] = u32::MAX;
        }
        let position = &self.position;
        self.order.retain(|&id| position[id as usize] != u32::MAX);
        self.reposition(0);
        self.place(ids);
    }

    /// `position` again for `order` from index `from` on.
    fn reposition(&mut self, from: usize) {
        for (at, &id) in self.order.iter().enumerate().skip(from) {
            self.position[id as usize] = at as u32;
        }
    }

    fn settle_into(&mut self, fx: &mut Vec<Effect>) {
        if self.search.is_some() {
            self.settle_search(fx);
        } else {
            let key = (self.filter.text().to_owned(), self.scope);
            if self.stale || self.ranked.as_ref() != Some(&key) {
                self.rank(key);
            }
        }
        self.ask_latest_prompts(fx);
        self.ensure_preview(fx);
    }

    /// Ask for the latest prompt of each session in view whose label is
    /// shared, not asked for yet (once per session). Only the rows shown
    /// need it, and reading a log whole for each of thousands of sessions
    /// sharing generic titles took the CPU listing needs (#25 item 11);
    /// rows scrolled into view are asked for at the next settle.
    fn ask_latest_prompts(&mut self, fx: &mut Vec<Effect>) {
        if self.shared_labels.is_empty() {
            return;
        }
        let height = self.areas().list.height as usize;
        let end = self.hits.len().min(self.list_offset + height);
        let mut batch = Vec::new();
        for hit in &self.hits[self.list_offset.min(end)..end] {
            let entry = &self.entries[hit.id as usize];
            if self.shared_labels.contains(entry.label())
                && !self.latest_prompts.contains_key(&hit.id)
            {
                self.latest_prompts.insert(hit.id, None);
                batch.push((hit.id, entry.record.clone()));
            }
        }
        if !batch.is_empty() {
            fx.push(Effect::ReadLatestPrompts(batch));
        }
    }

    /// Search mode: ask for a new search when the query changed (or
    /// discovery found more sessions since it was asked), and list what
    /// was found best score first.
    fn settle_search(&mut self, fx: &mut Vec<Effect>) {
        let query = self.filter.text().trim().to_owned();
        let entries = self.entries.len();
        let Some(search) = self.search.as_mut() else {
            return;
        };
        let grown = !self.discovering && search.asked_over != entries;
        if search.asked.as_deref() != Some(query.as_str()) || grown {
            self.search_generation += 1;
            search.generation = self.search_generation;
            search.asked = Some(query.clone());
            search.asked_over = entries;
            search.rows.clear();
            search.error = None;
            search.compiled = crate::search::query::Query::parse_picker(&query).ok();
            search.running = !query.is_empty();
            if query.is_empty() {
                fx.push(Effect::CancelSearch);
            } else {
                // Sessions of other machines are searched there, below.
                let records = self
                    .order
                    .iter()
                    .map(|&id| (id, &self.entries[id as usize].record))
                    .filter(|(_, record)| record.host.is_none())
                    .map(|(id, record)| (id, record.clone()))
                    .collect();
                fx.push(Effect::Search {
                    generation: search.generation,
                    query: query.clone(),
                    records,
                });
            }
            self.stale = true;
            // Other machines search with their own indexes; an answer known
            // for this query is listed at once. A query that does not parse
            // is reported by the local search and sent nowhere.
            let remote_query = (!self.remote.is_empty()
                && !query.is_empty()
                && crate::search::query::Query::parse_picker(&query).is_ok())
            .then_some(query.as_str());
            let asks = self.remote.want(remote_query);
            fx.extend(asks.into_iter().map(Effect::SearchRemote));
            self.remote_rows(&query, None);
        }
        // A key no title filter can have, so switching modes re-ranks.
        let key = (format!("\u{0}search\u{0}{query}"), self.scope);
        if self.stale || self.ranked.as_ref() != Some(&key) {
            self.rank_search(key);
        }
    }

    /// List the search's rows: this machine's, then other machines'; each
    /// best score first, then list order.
    fn rank_search(&mut self, key: (String, Scope)) {
        let same = self.ranked.as_ref() == Some(&key);
        let keep = self.tracked(same);
        let Some(search) = self.search.as_ref() else {
            return;
        };
        let mut ids: Vec<EntryId> = search
            .rows
            .keys()
            .copied()
            .filter(|&id| {
                self.position
                    .get(id as usize)
                    .is_some_and(|&p| p != u32::MAX)
            })
            .filter(|&id| self.scope == Scope::All || self.entries[id as usize].within)
            .collect();
        // This machine's matches first, then other machines': remote
        // answers arrive later and never push a local row down.
        let remote = |id: &EntryId| self.entries[*id as usize].record.host.is_some();
        ids.sort_by(|a, b| {
            let score = |id: &EntryId| search.rows[id].score;
            remote(a)
                .cmp(&remote(b))
                .then(score(b).total_cmp(&score(a)))
                .then(self.position[*a as usize].cmp(&self.position[*b as usize]))
        });
        self.hits = ids
            .into_iter()
            .map(|id| Hit {
                id,
                exact: true,
                score: 0,
            })
            .collect();
        self.place_highlight(same, keep);
        self.ranked = Some(key);
        self.stale = false;
        self.clamp_list();
    }

    /// A match of the current search: scored by the core (its recency
    /// from the session's last activity), listed at the next settle.
    fn search_found(&mut self, generation: u64, id: EntryId, found: SessionMatch) {
        let Some(search) = self.search.as_mut().filter(|s| s.generation == generation) else {
            return;
        };
        let Some(entry) = self.entries.get(id as usize) else {
            return;
        };
        if found.hits.is_empty() {
            return;
        }
        search
            .rows
            .insert(id, scored(&found, entry.activity, self.setup.now));
        self.stale = true;
    }

    /// List what other machines found for `query` when it is the query
    /// searched now (only `only`'s answer, when given). A match names its
    /// session `ID@HOST` and is shown on that session's listed row; one the
    /// listing lacks (begun there since) is left out, as is a match
    /// without a hit (a broken remote: nothing to show).
    fn remote_rows(&mut self, query: &str, only: Option<&str>) {
        let Some(search) = self
            .search
            .as_mut()
            .filter(|s| s.asked.as_deref() == Some(query))
        else {
            return;
        };
        for (host, answer) in self.remote.answers(query) {
            let Ok(found) = answer else {
                continue;
            };
            if only.is_some_and(|h| h != host) {
                continue;
            }
            for (record, matched) in found {
                let entries = &self.entries;
                let listed = self.by_id.get(&record.id).and_then(|ids| {
                    ids.iter()
                        .copied()
                        .find(|&id| entries[id as usize].record.host.as_deref() == Some(host))
                });
                let Some(id) = listed.filter(|_| !matched.hits.is_empty()) else {
                    continue;
                };
                let activity = entries[id as usize].activity;
                search
                    .rows
                    .insert(id, scored(matched, activity, self.setup.now));
            }
        }
        self.stale = true;
    }

    /// The search row of a listed session, in search mode.
    pub fn search_row(&self, id: EntryId) -> Option<&SearchRow> {
        self.search.as_ref().and_then(|s| s.rows.get(&id))
    }

    /// The search query whose matches the preview highlights: in
    /// conversation search, when the highlighted session is one of its
    /// matches (the preview was opened from a match).
    pub fn preview_matches(&self) -> Option<&crate::search::query::Query> {
        let hit = self.hits.get(self.selected)?;
        self.search_row(hit.id)?;
        self.search.as_ref()?.compiled.as_ref()
    }

    /// Whether the filter searches conversations rather than titles.
    pub fn searching(&self) -> bool {
        self.search.is_some()
    }

    fn rank(&mut self, key: (String, Scope)) {
        let same = self.ranked.as_ref() == Some(&key);
        let keep = self.tracked(same);
        // What the reranker kept holds for these entries, labels and scope only.
        let rescoped = !matches!(&self.ranked, Some((_, scope)) if *scope == key.1);
        if self.stale || rescoped {
            self.reranker.forget();
        }
        let pool: Vec<EntryId> = self
            .order
            .iter()
            .copied()
            .filter(|&id| self.scope == Scope::All || self.entries[id as usize].within)
            .collect();
        if self.stale {
            self.find_shared_labels();
        }
        self.hits = self.reranker.rank(&self.entries, &pool, &key.0);
        self.place_highlight(same, keep);
        self.ranked = Some(key);
        self.stale = false;
        self.clamp_list();
    }

    /// The session the highlight must stay on through a re-rank: as fzf's
    /// `--track`, the one the user moved to, while the query stays
    /// (sessions arriving, titles and activity read move it in the list;
    /// the highlight follows it, so Enter inserts the session shown
    /// highlighted). `None` until the user moves: the highlight then stays
    /// on the top row of the current order, not on whichever session
    /// arrived first (#25 item 10).
    fn tracked(&self, same: bool) -> Option<EntryId> {
        if same && self.pinned {
            self.hits.get(self.selected).map(|h| h.id)
        } else {
            None
        }
    }

    /// Put the highlight on `keep` ([`State::tracked`]) after a re-rank,
    /// else on the top row with the view at the top. A new query (or mode,
    /// or scope) forgets the user's move.
    fn place_highlight(&mut self, same: bool, keep: Option<EntryId>) {
        if !same {
            self.pinned = false;
        }
        match keep.and_then(|id| self.hits.iter().position(|h| h.id == id)) {
            Some(at) => self.selected = at,
            None => {
                self.selected = 0;
                self.list_offset = 0;
            }
        }
    }

    fn find_shared_labels(&mut self) {
        let mut first: HashMap<&str, &str> = HashMap::new();
        let mut shared = HashSet::new();
        for entry in &self.entries {
            let id = entry.record.id.as_str();
            if *first.entry(entry.label()).or_insert(id) != id {
                shared.insert(entry.label().to_owned());
            }
        }
        self.shared_labels = shared;
    }

    fn select(&mut self, index: isize, fx: &mut Vec<Effect>) {
        let last = self.hits.len().saturating_sub(1) as isize;
        self.selected = index.clamp(0, last.max(0)) as usize;
        self.pinned = true;
        self.clamp_list();
        self.ensure_preview(fx);
    }

    fn clamp_list(&mut self) {
        let height = self.areas().list.height.max(1) as usize;
        if self.hits.is_empty() {
            self.selected = 0;
            self.list_offset = 0;
            return;
        }
        self.selected = self.selected.min(self.hits.len() - 1);
        if self.selected < self.list_offset {
            self.list_offset = self.selected;
        } else if self.selected >= self.list_offset + height {
            self.list_offset = self.selected + 1 - height;
        }
        self.list_offset = self.list_offset.min(self.hits.len().saturating_sub(height));
    }

    fn ensure_preview(&mut self, fx: &mut Vec<Effect>) {
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

    fn insert_mention(&mut self) {
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

    fn submit(&mut self, fx: &mut Vec<Effect>) {
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

    fn scroll_prompt(&mut self) {
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

    fn scroll_preview(&mut self, lines: isize) {
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

    fn info(&mut self, text: &str) {
        self.flash = Some(Flash {
            error: false,
            text: text.to_owned(),
        });
    }

    fn error(&mut self, text: String) {
        self.flash = Some(Flash { error: true, text });
    }
}

/// The row of a session the search found (at least one hit): scored by
/// the core, its recency from the session's last activity.
fn scored(found: &SessionMatch, activity: Option<i64>, now: i64) -> SearchRow {
    let age_days = activity.map(|time| (now - time) as f64 / 86_400.0);
    SearchRow {
        score: found.score(age_days),
        best: found.best().clone(),
        matches: found.matches,
    }
}

/// `value + delta`, kept within `0..=max`.
fn step(value: usize, delta: isize, max: usize) -> usize {
    value.saturating_add_signed(delta).min(max)
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "search_tests.rs"]
mod search_tests;

#[cfg(test)]
#[path = "remote_search_tests.rs"]
mod remote_search_tests;
