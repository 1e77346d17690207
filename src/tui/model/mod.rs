//! The picker's state machine: [`update`] takes an [`Action`] (a key, a
//! discovery batch, a computed preview, …) and returns [`Effect`]s as data
//! for the driver to perform. No terminal, no I/O, no clock: tests feed
//! actions and assert state and effects.
//!
//! Ranking is deferred: edits and background data only mark the list stale,
//! and [`State::settle`] re-ranks once (the driver calls it after draining a
//! batch of events, before drawing; actions that need the list settle first).
//!
//! This module holds the [`State`] (all of its data) and dispatches each
//! action; what an action does lives with the part of the picker it
//! concerns, each an `impl State` of its own beside this one, so that a
//! change to one part is read in one file: `action` (what comes in and what
//! goes out), `list` (discovery, the list order, ranking, the highlight),
//! `search` (conversation search, here and on remotes), `launch` (resume
//! and hand-off, and the hand-off's chooser), `prompt` (the
//! prompt, the drafts, mentions, submit), `preview` (the highlighted
//! session's preview and its scrolling) and `mouse` (clicks and the wheel).
//! Imports run one way: the parts import this module, this module only
//! `action`, which imports neither. The key table ([`crate::tui::keymap`])
//! sits above: it reads [`Context`] and makes [`Action`]s, and nothing here
//! imports it.

mod action;
mod export;
mod export_ask;
pub use export_ask::{ExportAsk, ExportFailure};
mod launch;
mod list;
mod mouse;
mod preview;
mod prompt;
mod search;

#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod launch_tests;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use ratatui::layout::Rect;

use crate::config::Limits;
use crate::config::PickFormat;
use crate::config::PreviewWindow;
use crate::search::hits::Hit as SearchHit;
use crate::tui::layout::{self, Areas};
use crate::tui::line::LineInput;
use crate::tui::preview::{PreviewKey, PreviewMode, PreviewSlot};
use crate::tui::prompt::Prompt;
use crate::tui::remote_search::RemoteSearches;
use crate::tui::theme::Theme;
use session_ref_core::candidates::Target;
use session_ref_engine::rank::{Entry, EntryId, Reranker, Scored};
use session_ref_stores::Catalog;

pub use action::{Action, Effect, Exit, DOUBLE_CLICK};

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

/// The hand-off chooser: which session, and the highlighted agent.
#[derive(Debug, Clone, PartialEq)]
pub struct Chooser {
    /// The session to hand off.
    pub record: session_ref_stores::model::SessionRecord,
    /// Index in [`Chooser::agents`].
    pub selected: usize,
}

impl Chooser {
    /// The agents offered, in the table's order: every one a session can
    /// be handed to (its own agent too: a new session of it, where
    /// `alt-o` continues the old one).
    pub fn agents() -> Vec<&'static crate::launch::Launcher> {
        crate::launch::handoff_targets().collect()
    }
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

/// What the key table ([`crate::tui::keymap`]) needs to know about the
/// picker to look a key up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Context {
    /// Which input has the focus.
    pub focus: Focus,
    /// Whether the help screen is open.
    pub help: bool,
    /// Whether the hand-off chooser is open.
    pub chooser: bool,
    /// Whether the export asks for its file.
    pub export: bool,
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
    pub(crate) hits: Vec<Scored>,
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
    /// The hand-off chooser, while it is open.
    pub(crate) chooser: Option<Chooser>,
    /// The export's question, while it is asked.
    pub(crate) export: Option<ExportAsk>,
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
            chooser: None,
            export: None,
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

    /// The filter text.
    pub fn query(&self) -> &str {
        self.filter.text()
    }

    /// What the key table needs to know.
    pub fn key_context(&self) -> Context {
        Context {
            focus: self.focus,
            help: self.help,
            chooser: self.chooser.is_some(),
            export: self.export.is_some(),
        }
    }

    /// The panes for the current size.
    pub fn areas(&self) -> Areas {
        layout::areas(
            Rect::new(0, 0, self.size.0, self.size.1),
            self.preview_window,
        )
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
            Action::Edit(edit) if self.export.is_some() => self.export_edit(edit),
            Action::Edit(edit) => self.edit(edit),
            Action::Paste(text) if self.export.is_some() => {
                if let Some(ask) = self.export.as_mut() {
                    ask.path.insert_str(&text);
                    ask.overwrite = false;
                }
            }
            Action::Paste(text) => self.paste(&text),
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
            Action::ToggleScope => self.toggle_scope(),
            Action::ToggleSort => self.toggle_sort(),
            Action::TogglePreviewMode => self.toggle_preview_mode(),
            Action::TogglePreview => self.toggle_preview(),
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
            Action::ToggleSearch => self.toggle_search(fx),
            Action::SearchFound(generation, id, found) => self.search_found(generation, id, found),
            Action::RemoteSearched {
                host,
                query,
                answer,
            } => self.remote_searched(&host, &query, answer, fx),
            Action::SearchDone(generation, result) => self.search_done(generation, result),
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
            Action::EditorDone(Ok(text)) => self.edited(&text),
            Action::EditorDone(Err(why)) => self.error(format!("$EDITOR: {why}")),
            Action::Submit => self.submit(fx),
            Action::Prepared(Ok(output)) => fx.push(Effect::Exit(Exit::Submit(output))),
            Action::Prepared(Err(e)) => {
                self.submit = Submit::Idle;
                self.error(format!("{}: {}", e.code, e.message_for_person()));
            }
            Action::Abort => fx.push(Effect::Exit(Exit::Abort)),
            Action::Resume => {
                self.settle_into(fx);
                self.resume(fx);
            }
            Action::Handoff => {
                self.settle_into(fx);
                self.open_chooser();
            }
            Action::ChooserMove(by) => self.chooser_move(by),
            Action::Choose => self.choose(fx),
            Action::CloseChooser => self.chooser = None,
            Action::Planned(result) => self.planned(result, fx),
            Action::Export => {
                self.settle_into(fx);
                self.ask_export();
            }
            Action::ConfirmExport => self.confirm_export(fx),
            Action::CloseExport => self.export = None,
            Action::Exported(result) => self.exported(result),
            Action::Resize(width, height) => {
                self.size = (width, height);
                self.clamp_list();
                self.scroll_prompt();
                self.scroll_preview(0);
            }
            Action::Discovered(events) => self.discovered(events, fx),
            Action::DiscoveryDone => self.discovery_done(fx),
            Action::Titles(titles) => self.titles_read(titles),
            Action::LatestPrompts(found) => self.latest_prompts.extend(found),
            Action::Activity(times) => self.activity_read(times),
            Action::PreviewDropped(key) => self.preview_dropped(&key),
            Action::PreviewReady(key, result) => self.preview_ready(key, result),
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

/// `value + delta`, kept within `0..=max`.
fn step(value: usize, delta: isize, max: usize) -> usize {
    value.saturating_add_signed(delta).min(max)
}
