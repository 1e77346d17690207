//! Conversation search in the picker: the filter text asked of a
//! background search over this machine's sessions and of each remote with
//! its own index, the answers of a superseded query ignored, the rows
//! listed this machine's first, each best score first. Its data
//! (`SearchMode`, [`SearchRow`]) is the state's, beside [`State`] in the
//! parent.

use super::{Effect, Scope, SearchMode, SearchRow, State};
use crate::search::hits::SessionMatch;
use crate::tui::remote_search::RemoteAnswer;
use session_ref_engine::rank::{EntryId, Scored};

impl State {
    /// Switch the filter between session titles and conversation search
    /// (leaving it stops the running search and asks no remote).
    pub(super) fn toggle_search(&mut self, fx: &mut Vec<Effect>) {
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

    /// A remote answered `query`: its rows are listed, and the query it
    /// should answer next (if the filter moved on meanwhile) is sent.
    pub(super) fn remote_searched(
        &mut self,
        host: &str,
        query: &str,
        answer: RemoteAnswer,
        fx: &mut Vec<Effect>,
    ) {
        let next = self.remote.answered(host, query, answer);
        fx.extend(next.map(Effect::SearchRemote));
        self.remote_rows(query, Some(host));
    }

    /// Search `generation` ended (or why it could not run): said when it
    /// is the current one.
    pub(super) fn search_done(&mut self, generation: u64, result: Result<(), String>) {
        if let Some(search) = self.search.as_mut().filter(|s| s.generation == generation) {
            search.running = false;
            search.error = result.err();
        }
    }

    /// Search mode: ask for a new search when the query changed (or
    /// discovery found more sessions since it was asked), and list what
    /// was found best score first.
    pub(super) fn settle_search(&mut self, fx: &mut Vec<Effect>) {
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
            .map(|id| Scored {
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
    pub(super) fn search_found(&mut self, generation: u64, id: EntryId, found: SessionMatch) {
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

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "remote_search_tests.rs"]
mod remote_tests;
