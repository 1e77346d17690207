//! Live ranking for the picker: SPEC §6's fuzzy variant (exact-rule matches
//! first in group-then-record order, then fuzzy-only matches by score) over
//! candidates whose lower-cased fields are cached, so a re-rank on every
//! keystroke stays fast for 100k sessions. Pure.

use memchr::memmem::Finder;

use crate::matching::{FuzzyMatcher, Pattern};
use crate::reference::candidates::{group_rank, lower, Target};
use crate::store::model::SessionRecord;

/// Index of an [`Entry`] in the picker's arrival-ordered entry list.
pub type EntryId = u32;

/// A listed session with its label, and the fields ranking reads laid out
/// in one allocation (label, cwd and id, then the same lower-cased, each
/// ended by a NUL) so a re-rank over 100k entries touches little memory.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The listed record.
    pub record: SessionRecord,
    /// The label: its session's latest title, or the id while the title is
    /// unknown, absent or unreadable.
    pub label: String,
    /// This record's own title, once read.
    pub title: Option<String>,
    /// Whether the title has been read.
    pub title_known: bool,
    /// Group rank (0 same cwd as the target, 1 no cwd, 2 other cwd).
    pub group: u8,
    hay: Box<str>,
    /// Where each field ends in `hay`: label, cwd, id, then the lower-cased three.
    ends: [u32; 6],
}

impl Entry {
    /// An entry for `record`, labelled by its id until its title is known.
    pub fn new(record: SessionRecord, target: &Target) -> Self {
        let mut entry = Entry {
            group: group_rank(record.cwd.as_deref(), target.cwd.as_deref()),
            label: String::new(),
            title: None,
            title_known: false,
            hay: Box::from(""),
            ends: [0; 6],
            record,
        };
        entry.relabel(entry.record.id.clone());
        entry
    }

    /// Record the title read for this session (`None`: absent or
    /// unreadable); it becomes the label.
    pub fn set_title(&mut self, title: Option<String>) {
        self.relabel(title.clone().unwrap_or_else(|| self.record.id.clone()));
        self.title = title;
        self.title_known = true;
    }

    /// Change the label (records sharing an id all carry the title of the
    /// first of them in record order, as the engine labels them).
    pub fn relabel(&mut self, label: String) {
        let cwd = self.record.cwd.as_deref().unwrap_or("");
        let fields = [label.as_str(), cwd, self.record.id.as_str()];
        let lowered = fields.map(lower);
        let mut hay =
            String::with_capacity(2 * (label.len() + cwd.len() + self.record.id.len()) + 6);
        let lowered_refs = lowered.iter().map(String::as_str);
        for (i, field) in fields.into_iter().chain(lowered_refs).enumerate() {
            hay.push_str(field);
            self.ends[i] = u32::try_from(hay.len()).expect("fields under 4 GiB");
            hay.push('\0');
        }
        self.hay = hay.into_boxed_str();
        self.label = label;
    }

    fn field(&self, i: usize) -> &str {
        let start = if i == 0 {
            0
        } else {
            self.ends[i - 1] as usize + 1
        };
        &self.hay[start..self.ends[i] as usize]
    }

    /// Label, cwd (empty when absent) and id, as the fuzzy rule scores them.
    fn fields(&self) -> [&str; 3] {
        [self.field(0), self.field(1), self.field(2)]
    }

    /// The reference's rule: id, cwd or label contains the lower-cased
    /// query (`finder` searches for it; an empty query is in everything).
    /// A needle without NUL cannot match across the NULs ending the fields,
    /// so the three lower-cased fields are searched at once.
    fn exact(&self, finder: &Finder<'_>) -> bool {
        if finder.needle().contains(&0) {
            return (3..6).any(|i| finder.find(self.field(i).as_bytes()).is_some());
        }
        let lowered = &self.hay[self.ends[2] as usize + 1..];
        finder.find(lowered.as_bytes()).is_some()
    }
}

/// One matching candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    /// The entry.
    pub id: EntryId,
    /// Whether the exact rule keeps it.
    pub exact: bool,
    /// Fuzzy score of a fuzzy-only match (0 for exact ones).
    pub score: u32,
}

/// Rank the entries of `pool` (given in group-then-record order) for `query`.
pub fn rank(
    entries: &[Entry],
    pool: &[EntryId],
    query: &str,
    matcher: &mut FuzzyMatcher,
) -> Vec<Hit> {
    let needle = lower(query);
    // Byte search is substring search: a UTF-8 needle only matches at
    // character boundaries.
    let finder = Finder::new(needle.as_bytes());
    let pattern = Pattern::new(query);
    let mut hits = Vec::new();
    let mut fuzzy = Vec::new();
    for &id in pool {
        let entry = &entries[id as usize];
        if entry.exact(&finder) {
            hits.push(Hit {
                id,
                exact: true,
                score: 0,
            });
        } else if let Some(score) = matcher.best_score_pattern(&pattern, entry.fields()) {
            fuzzy.push(Hit {
                id,
                exact: false,
                score,
            });
        }
    }
    // Stable: equal scores keep group-then-record order.
    fuzzy.sort_by_key(|h| std::cmp::Reverse(h.score));
    hits.extend(fuzzy);
    hits
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
    use crate::store::model::{record_order, StoreKind};
    use proptest::prelude::*;
    use std::path::Path;
    use std::sync::Arc;

    fn record(id: &str, cwd: Option<&str>, day: u32) -> SessionRecord {
        SessionRecord::new(
            StoreKind::Hydra,
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
    fn fields_do_not_run_into_each_other() {
        let t = target();
        let mut e = Entry::new(record("ID-1", Some("/W/x"), 1), &t);
        e.set_title(Some("Ab".into()));
        assert_eq!(e.fields(), ["Ab", "/W/x", "ID-1"]);
        let finds = |q: &str| e.exact(&Finder::new(lower(q).as_bytes()));
        assert!(finds("ab") && finds("/w/X") && finds("id-1") && finds(""));
        assert!(!finds("b/w") && !finds("xid") && !finds("ab\0/w"));
        let none = Entry::new(record("s", None, 1), &t);
        assert_eq!(none.fields(), ["s", "", "s"]);
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
            let engine = candidates::fuzzy(&records, &labels, &t, &query, usize::MAX, &mut m);
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
