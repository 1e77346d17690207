//! Live ranking for the picker: a layer over SPEC §6's one ranking
//! ([`candidates::rank`]) that keeps each entry's lower-cased fields, so a
//! re-rank on every keystroke stays fast for 100k sessions, narrows a
//! growing query to the previous hits, and finds what to highlight. Pure.

use crate::matching::FuzzyMatcher;
use crate::reference::candidates::{self, group_rank, lower, Fields, Target};
use crate::store::model::SessionRecord;

/// Index of an [`Entry`] in the picker's arrival-ordered entry list.
pub type EntryId = u32;

/// A listed session with its label and the fields ranking reads
/// ([`Fields`], cached so a re-rank over 100k entries stays fast).
#[derive(Debug, Clone)]
pub struct Entry {
    /// The listed record.
    pub record: SessionRecord,
    /// The label: its session's latest title, or the id while the title is
    /// unknown, absent or unreadable (the catalog's labelling rule).
    pub label: String,
    /// This record's own title, once read.
    pub title: Option<String>,
    /// Whether the title has been read.
    pub title_known: bool,
    /// Group rank (0 same cwd as the target, 1 no cwd, 2 other cwd).
    pub group: u8,
    fields: Fields,
}

impl Entry {
    /// An entry for `record`, labelled by its id until its title is known.
    pub fn new(record: SessionRecord, target: &Target) -> Self {
        Entry {
            group: group_rank(record.cwd.as_deref(), target.cwd.as_deref()),
            label: record.id.clone(),
            title: None,
            title_known: false,
            fields: Fields::new(&record.id, record.cwd.as_deref(), &record.id),
            record,
        }
    }

    /// Record the title read for this session (`None`: absent or
    /// unreadable); it becomes the label, until the catalog's rule says
    /// otherwise for a shared id.
    pub fn set_title(&mut self, title: Option<String>) {
        self.relabel(title.clone().unwrap_or_else(|| self.record.id.clone()));
        self.title = title;
        self.title_known = true;
    }

    /// Change the label.
    pub fn relabel(&mut self, label: String) {
        if label != self.label {
            self.fields = Fields::new(&label, self.record.cwd.as_deref(), &self.record.id);
            self.label = label;
        }
    }

    /// What ranking matches on.
    pub fn fields(&self) -> &Fields {
        &self.fields
    }
}

/// One matching candidate.
pub type Hit = candidates::Hit<EntryId>;

/// Rank the entries of `pool` (given in group-then-record order) for
/// `query`: SPEC §6's fuzzy ranking ([`candidates::rank`]) over the
/// entries' cached fields.
pub fn rank(
    entries: &[Entry],
    pool: &[EntryId],
    query: &str,
    matcher: &mut FuzzyMatcher,
) -> Vec<Hit> {
    candidates::rank(pool, |id| &entries[id as usize].fields, query, matcher)
}

/// Whether every match of `next` is among the matches of `previous`, so a
/// re-rank may start from the previous hits: `next` extends `previous`
/// (both lower-cased) and `previous` is not empty.
pub fn narrows(previous: &str, next: &str) -> bool {
    !previous.is_empty() && lower(next).starts_with(&lower(previous))
}

/// Char indices of `text` to highlight for `query`: the first
/// case-insensitive occurrence of the whole query, else the fuzzy match
/// positions; empty when neither matches.
pub fn highlight(text: &str, query: &str, matcher: &mut FuzzyMatcher) -> Vec<usize> {
    if query.is_empty() {
        return Vec::new();
    }
    if let Some(found) = substring_chars(text, &lower(query)) {
        return found;
    }
    matcher
        .indices(query, text)
        .map(|v| v.into_iter().map(|i| i as usize).collect())
        .unwrap_or_default()
}

fn substring_chars(text: &str, needle_lower: &str) -> Option<Vec<usize>> {
    let lowered: Vec<String> = text.chars().map(|c| c.to_lowercase().collect()).collect();
    (0..lowered.len()).find_map(|start| {
        let mut rest = needle_lower;
        let mut end = start;
        while !rest.is_empty() && end < lowered.len() {
            rest = rest.strip_prefix(lowered[end].as_str())?;
            end += 1;
        }
        rest.is_empty().then(|| (start..end).collect())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::candidates;
    use crate::store::model::record_order;
    use crate::store::{native, Catalog, ScanEvent};
    use proptest::prelude::*;
    use std::path::Path;
    use std::sync::Arc;

    fn record(id: &str, cwd: Option<&str>, day: u32) -> SessionRecord {
        SessionRecord::new(
            native::KIND,
            Arc::from(Path::new("/s")),
            format!("/s/{id}.jsonl").into(),
            id.into(),
            cwd.map(Into::into),
            format!("2025-01-{day:02}T00:00:00Z"),
        )
    }

    /// Entries in record order, labelled, and the pool in group-then-record order.
    fn setup(
        specs: &[(&str, Option<&str>, &str)],
        target: &Target,
    ) -> (Vec<SessionRecord>, Vec<String>, Vec<Entry>, Vec<EntryId>) {
        let mut records: Vec<SessionRecord> = specs
            .iter()
            .enumerate()
            .map(|(i, (id, cwd, _))| record(id, *cwd, 1 + (i as u32 % 28)))
            .collect();
        records.sort_by(record_order);
        let labels: Vec<String> = records
            .iter()
            .map(|r| specs.iter().find(|s| s.0 == r.id).unwrap().2.to_owned())
            .collect();
        let entries: Vec<Entry> = records
            .iter()
            .zip(&labels)
            .map(|(r, l)| {
                let mut e = Entry::new(r.clone(), target);
                e.set_title((l != &r.id).then(|| l.clone()));
                e
            })
            .collect();
        let mut pool: Vec<EntryId> = (0..entries.len() as EntryId)
            .filter(|&i| target.session_id.as_deref() != Some(&entries[i as usize].record.id))
            .collect();
        pool.sort_by_key(|&i| entries[i as usize].group);
        (records, labels, entries, pool)
    }

    fn target() -> Target {
        Target {
            session_id: Some("self".into()),
            cwd: Some("/w/here".into()),
        }
    }

    #[test]
    fn exact_matches_first_then_fuzzy_by_score() {
        let specs = [
            ("a1", Some("/w/other"), "refactor the parser"),
            ("b2", None, "rpa notes"),
            ("c3", Some("/w/here"), "Fix lexer"),
            ("self", Some("/w/here"), "rpa self"),
            ("d4", Some("/w/here"), "repair plan"),
        ];
        let (_, _, entries, pool) = setup(&specs, &target());
        let mut m = FuzzyMatcher::new();
        let hits = rank(&entries, &pool, "rpa", &mut m);
        let ids: Vec<&str> = hits
            .iter()
            .map(|h| entries[h.id as usize].record.id.as_str())
            .collect();
        assert_eq!(ids[0], "b2");
        assert!(hits[0].exact && hits[1..].iter().all(|h| !h.exact));
        assert_eq!(ids.len(), 3);
        assert!(!ids.contains(&"self"));
        let all = rank(&entries, &pool, "", &mut m);
        assert_eq!(all.len(), 4);
        assert_eq!(entries[all[0].id as usize].group, 0);
    }

    #[test]
    fn highlights_substrings_then_subsequences() {
        let mut m = FuzzyMatcher::new();
        assert_eq!(highlight("Fix Parser bug", "PARS", &mut m), [4, 5, 6, 7]);
        assert_eq!(highlight("refactor parser", "rp", &mut m), [0, 9]);
        assert!(highlight("abc", "xyz", &mut m).is_empty());
        assert!(highlight("abc", "", &mut m).is_empty());
        assert_eq!(highlight("Ünïcode", "nï", &mut m), [1, 2]);
    }

    #[test]
    fn narrowing_is_only_for_extensions() {
        assert!(narrows("pa", "par"));
        assert!(narrows("PA", "par"));
        assert!(!narrows("", "p"));
        assert!(!narrows("par", "pa"));
        assert!(!narrows("pa", "xpa"));
    }

    fn label_strategy() -> impl Strategy<Value = String> {
        proptest::string::string_regex("[a-dA-D /-]{0,12}").unwrap()
    }

    proptest! {
        /// The picker's ranking is `candidates --fuzzy` (the engine's rule)
        /// without a limit, and starting from the previous hits when the
        /// query grows gives the same list.
        #[test]
        fn agrees_with_the_engine_and_narrows_exactly(
            labels in proptest::collection::vec(label_strategy(), 1..30),
            query in "[a-dA-D/ ]{1,4}",
            extra in "[a-d]{1,2}",
        ) {
            let ids: Vec<String> = (0..labels.len()).map(|i| format!("s{i}")).collect();
            let cwds = [Some("/w/here"), None, Some("/w/ab"), Some("/w/cd")];
            let specs: Vec<(&str, Option<&str>, &str)> = ids
                .iter()
                .zip(&labels)
                .enumerate()
                .map(|(i, (id, l))| (id.as_str(), cwds[i % 4], l.as_str()))
                .collect();
            let t = target();
            let (records, labels, entries, pool) = setup(&specs, &t);
            let mut m = FuzzyMatcher::new();
            let ours = rank(&entries, &pool, &query, &mut m);
            let catalog = Catalog::from_events(records.iter().cloned().map(ScanEvent::Record));
            let engine = candidates::fuzzy(&catalog, &labels, &t, &query, usize::MAX, &mut m);
            let ours_ids: Vec<usize> = ours.iter().map(|h| h.id as usize).collect();
            let engine_ids: Vec<usize> = engine.iter().map(|r| r.index).collect();
            prop_assert_eq!(&ours_ids, &engine_ids);

            let longer = format!("{query}{extra}");
            let full = rank(&entries, &pool, &longer, &mut m);
            let mut narrowed_pool: Vec<EntryId> = ours.iter().map(|h| h.id).collect();
            let position = |id: &EntryId| pool.iter().position(|p| p == id).unwrap();
            narrowed_pool.sort_by_key(position);
            prop_assert_eq!(full, rank(&entries, &narrowed_pool, &longer, &mut m));
        }
    }
}
