//! The list: sessions arriving from discovery, their titles and activity,
//! the one order they are listed in (group, then the sort, then record
//! order), ranking by the filter, and the highlight that stays on the
//! session the user moved to.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::{Effect, Scope, SortOrder, State, Submit};
use session_ref_engine::order::{self, SortBy};
use session_ref_engine::rank::{Entry, EntryId};
use session_ref_stores::ScanEvent;

impl State {
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

    /// Switch between every session and this directory's (which needs a
    /// known directory).
    pub(super) fn toggle_scope(&mut self) {
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

    /// Switch the order between last activity and creation.
    pub(super) fn toggle_sort(&mut self) {
        self.sort = match self.sort {
            SortOrder::Activity => SortOrder::Created,
            SortOrder::Created => SortOrder::Activity,
        };
        self.resort();
    }

    pub(super) fn discovered(&mut self, events: Vec<ScanEvent>, fx: &mut Vec<Effect>) {
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

    /// Discovery has finished: mentions of sessions no store lists are
    /// said, and a submit that waited for the whole listing goes on.
    pub(super) fn discovery_done(&mut self, fx: &mut Vec<Effect>) {
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

    /// Titles read: the entries are labelled by them (records sharing an
    /// id by their first's), re-ranked at the next settle.
    pub(super) fn titles_read(&mut self, titles: Vec<(EntryId, Option<String>)>) {
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

    /// Last activity read: the entries whose time changed move to their
    /// places when the list is sorted by activity.
    pub(super) fn activity_read(&mut self, times: Vec<(EntryId, i64)>) {
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

    /// Ask for the latest prompt of each session in view whose label is
    /// shared, not asked for yet (once per session). Only the rows shown
    /// need it, and reading a log whole for each of thousands of sessions
    /// sharing generic titles took the CPU listing needs (#25 item 11);
    /// rows scrolled into view are asked for at the next settle.
    pub(super) fn ask_latest_prompts(&mut self, fx: &mut Vec<Effect>) {
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

    pub(super) fn rank(&mut self, key: (String, Scope)) {
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
    pub(super) fn tracked(&self, same: bool) -> Option<EntryId> {
        if same && self.pinned {
            self.hits.get(self.selected).map(|h| h.id)
        } else {
            None
        }
    }

    /// Put the highlight on `keep` ([`State::tracked`]) after a re-rank,
    /// else on the top row with the view at the top. A new query (or mode,
    /// or scope) forgets the user's move.
    pub(super) fn place_highlight(&mut self, same: bool, keep: Option<EntryId>) {
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

    pub(super) fn select(&mut self, index: isize, fx: &mut Vec<Effect>) {
        let last = self.hits.len().saturating_sub(1) as isize;
        self.selected = index.clamp(0, last.max(0)) as usize;
        self.pinned = true;
        self.clamp_list();
        self.ensure_preview(fx);
    }

    pub(super) fn clamp_list(&mut self) {
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
}

#[cfg(test)]
#[path = "list_tests.rs"]
mod tests;
