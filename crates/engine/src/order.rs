//! THE list order: where a session stands in a list of sessions, for
//! every front-end that lists them (`candidates --sort`, the picker's
//! rows, MCP `list_sessions`).
//!
//! The target's directory first, then sessions without a directory, then
//! the rest (SPEC §6's groups); within a group either the record order
//! (newest created first, SPEC §6) or, sorted by activity, the most
//! recently active first; ties in record order. A session whose last
//! activity is unknown (not read yet, or unreadable) counts as active
//! when it was created: its log was written then at least, so rows stand
//! in their final order while activity is read instead of jumping. Those
//! with neither go last.

use std::cmp::Ordering;

use session_ref_stores::model::{record_order, SessionRecord};

/// How a list is ordered within a directory group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortBy {
    /// Newest created first (the reference's record order).
    #[default]
    Created,
    /// Most recently active first.
    Updated,
}

/// What a session's place in a list depends on.
#[derive(Debug, Clone, Copy)]
pub struct Place<'a> {
    /// Its group rank for the target (0 the target's directory, 1 no
    /// directory, 2 another; see `session_ref_core::candidates::group_rank`).
    pub group: u8,
    /// Its last activity (Unix seconds), when known.
    pub activity: Option<i64>,
    /// The listed record.
    pub record: &'a SessionRecord,
}

impl Place<'_> {
    /// The instant the activity sort orders by: the last activity, else
    /// the creation.
    pub fn active_at(&self) -> Option<i64> {
        self.activity
            .or_else(|| self.record.created.map(|c| c.unix_seconds()))
    }
}

/// Where `a` stands against `b` in a list sorted by `sort`: the one list
/// order (see the module documentation). A total order on records with
/// distinct paths; callers sort stably, so records it calls equal keep
/// the order they were given in.
pub fn compare(sort: SortBy, a: &Place<'_>, b: &Place<'_>) -> Ordering {
    let by_activity = match sort {
        SortBy::Updated => b.active_at().cmp(&a.active_at()),
        SortBy::Created => Ordering::Equal,
    };
    a.group
        .cmp(&b.group)
        .then(by_activity)
        .then_with(|| record_order(a.record, b.record))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use session_ref_core::candidates::{eligible, group_rank, Target};
    use session_ref_stores::kinds::native;
    use session_ref_stores::Catalog;

    fn record(n: usize, created: Option<u32>, cwd: Option<&str>) -> SessionRecord {
        let created_at = created.map_or_else(
            || "not a time".to_owned(),
            |day| format!("2025-01-{:02}T00:00:00Z", day % 28 + 1),
        );
        SessionRecord::new(
            native::KIND,
            std::sync::Arc::from(std::path::Path::new("/s")),
            std::path::PathBuf::from(format!("/s/{n}.jsonl")),
            format!("s{n}"),
            cwd.map(str::to_owned),
            created_at,
        )
    }

    fn spec() -> impl Strategy<Value = Vec<(Option<u32>, u8, Option<i64>)>> {
        proptest::collection::vec(
            (
                proptest::option::of(0u32..40),
                0u8..3,
                proptest::option::of(0i64..5),
            ),
            0..30,
        )
    }

    fn cwd_of(at: u8) -> Option<&'static str> {
        [Some("/t"), None, Some("/o")][usize::from(at)]
    }

    proptest! {
        #[test]
        fn compare_is_a_total_order(specs in spec(), sort_by_activity in any::<bool>()) {
            let sort = if sort_by_activity { SortBy::Updated } else { SortBy::Created };
            let records: Vec<SessionRecord> = specs
                .iter()
                .enumerate()
                .map(|(n, (created, at, _))| record(n, *created, cwd_of(*at)))
                .collect();
            let places: Vec<Place> = specs
                .iter()
                .zip(&records)
                .map(|((_, _, activity), record)| Place {
                    group: group_rank(record.cwd.as_deref(), Some("/t")),
                    activity: activity.map(|d| 1_735_689_600 + d * 86_400),
                    record,
                })
                .collect();
            for a in &places {
                prop_assert_eq!(compare(sort, a, a), Ordering::Equal);
                for b in &places {
                    prop_assert_eq!(compare(sort, a, b), compare(sort, b, a).reverse());
                    for c in &places {
                        if compare(sort, a, b).is_le() && compare(sort, b, c).is_le() {
                            prop_assert!(compare(sort, a, c).is_le());
                        }
                    }
                }
            }
            // Sorted: groups ascending; within a group, by activity newest
            // first (or record order).
            let mut sorted = places.clone();
            sorted.sort_by(|a, b| compare(sort, a, b));
            for pair in sorted.windows(2) {
                let (a, b) = (&pair[0], &pair[1]);
                prop_assert!(a.group <= b.group);
                if a.group == b.group {
                    match sort {
                        SortBy::Updated => prop_assert!(a.active_at() >= b.active_at()),
                        SortBy::Created => {
                            prop_assert!(record_order(a.record, b.record).is_le())
                        }
                    }
                }
            }
        }

        #[test]
        fn sorted_by_creation_it_is_the_pool_every_ranking_starts_from(specs in spec()) {
            // SPEC §6's order of `candidates` (groups, then record order)
            // is the list order sorted by creation.
            let dir = tempfile::tempdir().unwrap();
            for (n, (created, at, _)) in specs.iter().enumerate() {
                let created = created.map_or_else(
                    || "not a time".to_owned(),
                    |day| format!("2025-01-{:02}T00:00:00Z", day % 28 + 1),
                );
                let cwd = cwd_of(*at).map_or_else(String::new, |c| format!(",\"cwd\":\"{c}\""));
                std::fs::write(
                    dir.path().join(format!("{n}.jsonl")),
                    format!("{{\"type\":\"session\",\"version\":1,\"id\":\"s{n}\",\"createdAt\":\"{created}\"{cwd}}}\n"),
                )
                .unwrap();
            }
            let roots = session_ref_stores::StoreRoots::new().with(native::KIND, dir.path());
            let catalog = Catalog::load(&roots);
            let target = Target { session_id: None, cwd: Some("/t".into()) };
            let pool: Vec<usize> = eligible(&catalog, &target).into_iter().map(|(id, _)| id).collect();
            let place = |id: usize| {
                let record = catalog.get(id);
                Place {
                    group: group_rank(record.cwd.as_deref(), target.cwd.as_deref()),
                    activity: None,
                    record,
                }
            };
            let mut sorted = pool.clone();
            sorted.reverse();
            sorted.sort_by(|&a, &b| compare(SortBy::Created, &place(a), &place(b)));
            prop_assert_eq!(sorted, pool);
        }
    }

    #[test]
    fn unknown_activity_counts_as_the_creation_and_neither_goes_last() {
        let (old, new, undated) = (
            record(0, Some(1), None),
            record(1, Some(9), None),
            record(2, None, None),
        );
        let at = |record, activity| Place {
            group: 1,
            activity,
            record,
        };
        let day = |d: i64| Some(1_735_689_600 + d * 86_400);
        // `old` was active on day 5, after `new` was created (day 9 is
        // later): `new` first; `undated` (no activity, no date) last.
        let mut list = [at(&undated, None), at(&old, day(4)), at(&new, None)];
        list.sort_by(|a, b| compare(SortBy::Updated, a, b));
        let ids: Vec<&str> = list.iter().map(|p| p.record.id.as_str()).collect();
        assert_eq!(ids, ["s1", "s0", "s2"]);
        // Active later than `new`'s creation: first.
        let mut list = [at(&new, None), at(&old, day(20))];
        list.sort_by(|a, b| compare(SortBy::Updated, a, b));
        assert_eq!(list[0].record.id, "s0");
        // By creation, activity does not count.
        list.sort_by(|a, b| compare(SortBy::Created, a, b));
        assert_eq!(list[0].record.id, "s1");
        // The group comes first whatever the sort.
        let other = Place {
            group: 2,
            activity: day(30),
            record: &old,
        };
        assert_eq!(
            compare(SortBy::Updated, &at(&undated, None), &other),
            Ordering::Less
        );
    }
}
