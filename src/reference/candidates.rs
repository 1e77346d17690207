//! Candidate listing and ranking (SPEC §6): the reference's exact substring
//! rule, then fuzzy-only matches for the picker and `candidates --fuzzy`.

use crate::matching::FuzzyMatcher;
use crate::store::model::SessionRecord;

/// The session a message is being prepared for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Target {
    /// Its id: excluded from candidates, rejected as a reference.
    pub session_id: Option<String>,
    /// Its working directory: same-cwd candidates rank first.
    pub cwd: Option<String>,
}

/// Group rank: 0 same cwd as the target, 1 no cwd, 2 any other cwd.
pub fn group_rank(candidate_cwd: Option<&str>, target_cwd: Option<&str>) -> u8 {
    match (candidate_cwd, target_cwd) {
        (Some(c), Some(t)) if c == t => 0,
        (None, _) => 1,
        _ => 2,
    }
}

/// One ranked candidate: an index into the record slice and its label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ranked {
    /// Index of the record in record order.
    pub index: usize,
    /// Latest title, or the id.
    pub label: String,
    /// Group rank (0, 1, 2).
    pub rank: u8,
    /// Whether the exact substring rule keeps it (always true without a query).
    pub exact: bool,
    /// Fuzzy score of a fuzzy-only match (0 for exact ones).
    pub score: u32,
}

/// JavaScript's `toLocaleLowerCase` for the root locale.
pub fn lower(text: &str) -> String {
    text.to_lowercase()
}

/// Whether the exact rule keeps a record: id, cwd or label contains the
/// lower-cased query, case-insensitively.
pub fn exact_match(record: &SessionRecord, label: &str, needle_lower: &str) -> bool {
    needle_lower.is_empty()
        || lower(&record.id).contains(needle_lower)
        || record
            .cwd
            .as_deref()
            .is_some_and(|c| lower(c).contains(needle_lower))
        || lower(label).contains(needle_lower)
}

/// The reference's `listCandidates`.
///
/// `records` are in record order. `titles` is asked, once, for the titles of
/// the records whose labels are needed (by index); a `None` title (absent or
/// unreadable) labels the candidate with its id. With an empty query only
/// the first `limit` ranked records are asked for; otherwise every record is.
pub fn exact(
    records: &[SessionRecord],
    target: &Target,
    query: &str,
    limit: usize,
    titles: &mut dyn FnMut(&[usize]) -> Vec<Option<String>>,
) -> Vec<Ranked> {
    let needle = lower(query);
    let mut pool = eligible(records, target);
    if needle.is_empty() {
        pool.truncate(limit);
    }
    let wanted: Vec<usize> = pool.iter().map(|&(i, _)| i).collect();
    let found = titles(&wanted);
    let mut ranked: Vec<Ranked> = pool
        .into_iter()
        .zip(found)
        .map(|((index, rank), title)| Ranked {
            index,
            label: title.unwrap_or_else(|| records[index].id.clone()),
            rank,
            exact: true,
            score: 0,
        })
        .filter(|r| exact_match(&records[r.index], &r.label, &needle))
        .collect();
    ranked.truncate(limit);
    ranked
}

/// Records other than the target, sorted by group rank then record order.
fn eligible(records: &[SessionRecord], target: &Target) -> Vec<(usize, u8)> {
    let mut pool: Vec<(usize, u8)> = records
        .iter()
        .enumerate()
        .filter(|(_, r)| target.session_id.as_deref() != Some(r.id.as_str()))
        .map(|(i, r)| (i, group_rank(r.cwd.as_deref(), target.cwd.as_deref())))
        .collect();
    // Stable: record order is kept within a rank.
    pool.sort_by_key(|&(_, rank)| rank);
    pool
}

/// Exact matches first in the reference's order, then fuzzy-only matches,
/// best score first, ties by group rank then record order (SPEC §6).
///
/// `labels[i]` is the label of `records[i]`.
pub fn fuzzy(
    records: &[SessionRecord],
    labels: &[String],
    target: &Target,
    query: &str,
    limit: usize,
    matcher: &mut FuzzyMatcher,
) -> Vec<Ranked> {
    let needle = lower(query);
    let mut exact_hits = Vec::new();
    let mut fuzzy_hits = Vec::new();
    for (index, rank) in eligible(records, target) {
        let record = &records[index];
        let label = &labels[index];
        if exact_match(record, label, &needle) {
            exact_hits.push(Ranked {
                index,
                label: label.clone(),
                rank,
                exact: true,
                score: 0,
            });
        } else if let Some(score) = matcher.best_score(
            query,
            [
                label.as_str(),
                record.cwd.as_deref().unwrap_or(""),
                &record.id,
            ],
        ) {
            fuzzy_hits.push(Ranked {
                index,
                label: label.clone(),
                rank,
                exact: false,
                score,
            });
        }
    }
    // Stable sort keeps rank-then-record order among equal scores.
    fuzzy_hits.sort_by_key(|r| std::cmp::Reverse(r.score));
    exact_hits.extend(fuzzy_hits);
    exact_hits.truncate(limit);
    exact_hits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::model::StoreKind;
    use std::path::Path;
    use std::sync::Arc;

    fn record(id: &str, cwd: Option<&str>, created: &str) -> SessionRecord {
        SessionRecord::new(
            StoreKind::Hydra,
            Arc::from(Path::new("/s")),
            format!("/s/{id}.jsonl").into(),
            id.into(),
            cwd.map(Into::into),
            created.into(),
        )
    }

    fn fixture() -> Vec<SessionRecord> {
        let mut records = vec![
            record("a", Some("/other"), "2025-01-05T00:00:00Z"),
            record("b", None, "2025-01-04T00:00:00Z"),
            record("c", Some("/here"), "2025-01-03T00:00:00Z"),
            record("d", Some("/here"), "2025-01-02T00:00:00Z"),
            record("self", Some("/here"), "2025-01-06T00:00:00Z"),
        ];
        records.sort_by(crate::store::model::record_order);
        records
    }

    fn ids(records: &[SessionRecord], ranked: &[Ranked]) -> Vec<String> {
        ranked.iter().map(|r| records[r.index].id.clone()).collect()
    }

    fn target() -> Target {
        Target {
            session_id: Some("self".into()),
            cwd: Some("/here".into()),
        }
    }

    #[test]
    fn empty_query_ranks_and_reads_only_the_first_titles() {
        let records = fixture();
        let mut asked = Vec::new();
        let ranked = exact(&records, &target(), "", 3, &mut |wanted| {
            asked.extend_from_slice(wanted);
            wanted
                .iter()
                .map(|&i| (records[i].id == "c").then(|| "Title C".to_owned()))
                .collect()
        });
        assert_eq!(ids(&records, &ranked), ["c", "d", "b"]);
        assert_eq!(ranked[0].label, "Title C");
        assert_eq!(ranked[1].label, "d");
        assert_eq!(asked.len(), 3);
    }

    #[test]
    fn query_reads_every_title_and_filters_case_insensitively() {
        let records = fixture();
        let mut asked = 0;
        let ranked = exact(&records, &target(), "OTH", 10, &mut |wanted| {
            asked += wanted.len();
            wanted
                .iter()
                .map(|&i| (records[i].id == "b").then(|| "other ideas".to_owned()))
                .collect()
        });
        assert_eq!(asked, 4);
        assert_eq!(ids(&records, &ranked), ["b", "a"]);
    }

    #[test]
    fn fuzzy_matches_follow_exact_ones() {
        let records = fixture();
        let labels: Vec<String> = records
            .iter()
            .map(|r| match r.id.as_str() {
                "a" => "refactor parser".to_owned(),
                "d" => "rpa".to_owned(),
                _ => r.id.clone(),
            })
            .collect();
        let mut matcher = FuzzyMatcher::new();
        let ranked = fuzzy(&records, &labels, &target(), "rpa", 10, &mut matcher);
        assert_eq!(ids(&records, &ranked), ["d", "a"]);
        assert!(ranked[0].exact && !ranked[1].exact);
    }
}
