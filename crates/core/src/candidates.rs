//! Candidate listing and ranking (SPEC §6): the reference's exact substring
//! rule, then fuzzy-only matches for the picker and `candidates --fuzzy`.
//! The one implementation of the ranking; the picker keeps [`Fields`] per
//! entry and calls [`rank`], the engine calls [`exact`] and [`fuzzy`].

use memchr::memmem::Finder;

use crate::escape::safe_label;
use crate::matching::{FuzzyMatcher, Pattern};

/// A listed session's place in a listing: an index into its records (in
/// the stores' catalog, its position in arrival order, stable while the
/// catalog grows).
pub type RecordId = usize;

/// The pool candidates are ranked from: records in listing order (SPEC
/// §3), each with the id and working directory the rules match on. The
/// session stores' catalog is one; a test can use a vector. (Not the
/// engine's `listing::Listing`, a listing loaded with its labels.)
pub trait Pool {
    /// Every record, in listing order.
    fn order(&self) -> &[RecordId];
    /// The session id of `record`.
    fn session_id(&self, record: RecordId) -> &str;
    /// The working directory of `record`, when known.
    fn cwd(&self, record: RecordId) -> Option<&str>;
}

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

/// One ranked candidate: a record of the catalog and its label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ranked {
    /// The record's id in the catalog.
    pub index: RecordId,
    /// Latest title, or the id, made safe ([`crate::escape::safe_label`]).
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

/// The fields a candidate is matched on (label, cwd, id), and the same
/// lower-cased, laid out in one allocation, each ended by a NUL, so that
/// the exact rule is one substring search and a re-rank over 100k
/// candidates touches little memory. The engine builds them per query; the
/// picker keeps them per entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fields {
    hay: Box<str>,
    /// Where each field ends in `hay`: label, cwd, id, then the lower-cased three.
    ends: [u32; 6],
}

impl Fields {
    /// The fields of a candidate labelled `label` (an absent cwd is empty).
    pub fn new(label: &str, cwd: Option<&str>, id: &str) -> Self {
        let cwd = cwd.unwrap_or("");
        let fields = [label, cwd, id];
        let lowered = fields.map(lower);
        let mut hay = String::with_capacity(2 * (label.len() + cwd.len() + id.len()) + 6);
        let mut ends = [0; 6];
        let lowered_refs = lowered.iter().map(String::as_str);
        for (i, field) in fields.into_iter().chain(lowered_refs).enumerate() {
            hay.push_str(field);
            ends[i] = u32::try_from(hay.len()).expect("fields under 4 GiB");
            hay.push('\0');
        }
        Fields {
            hay: hay.into_boxed_str(),
            ends,
        }
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
    pub fn fields(&self) -> [&str; 3] {
        [self.field(0), self.field(1), self.field(2)]
    }

    /// The reference's exact rule: id, cwd or label contains the
    /// lower-cased query (`finder` searches for it; an empty query is in
    /// everything). A needle without NUL cannot match across the NULs
    /// ending the fields, so the three lower-cased fields are searched at
    /// once.
    pub fn exact(&self, finder: &Finder<'_>) -> bool {
        if finder.needle().contains(&0) {
            return (3..6).any(|i| finder.find(self.field(i).as_bytes()).is_some());
        }
        let lowered = &self.hay[self.ends[2] as usize + 1..];
        finder.find(lowered.as_bytes()).is_some()
    }
}

/// One candidate kept by [`rank`], with its score (the engine's ranking
/// keeps its own as `rank::Scored`; a search hit is a matching message).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scored<I> {
    /// The candidate, as the caller identifies it.
    pub id: I,
    /// Whether the exact rule keeps it.
    pub exact: bool,
    /// Fuzzy score of a fuzzy-only match (0 for exact ones).
    pub score: u32,
}

/// SPEC §6's fuzzy variant over `pool` (given in group-then-record order):
/// exact-rule matches first, in pool order, then fuzzy-only matches, best
/// score first, ties in pool order. The one ranking of `candidates
/// --fuzzy` and the picker.
pub fn rank<'a, I: Copy>(
    pool: &[I],
    fields_of: impl Fn(I) -> &'a Fields,
    query: &str,
    matcher: &mut FuzzyMatcher,
) -> Vec<Scored<I>> {
    let needle = lower(query);
    // Byte search is substring search: a UTF-8 needle only matches at
    // character boundaries.
    let finder = Finder::new(needle.as_bytes());
    let pattern = Pattern::new(query);
    let mut hits = Vec::new();
    let mut fuzzy = Vec::new();
    for &id in pool {
        let fields = fields_of(id);
        if fields.exact(&finder) {
            hits.push(Scored {
                id,
                exact: true,
                score: 0,
            });
        } else if let Some(score) = matcher.best_score_pattern(&pattern, fields.fields()) {
            fuzzy.push(Scored {
                id,
                exact: false,
                score,
            });
        }
    }
    // Stable: equal scores keep pool order.
    fuzzy.sort_by_key(|h| std::cmp::Reverse(h.score));
    hits.extend(fuzzy);
    hits
}

/// The reference's `listCandidates`.
///
/// `labels` is asked, once, for the labels of the records that need one
/// (by id): the title as the log holds it, or the id, which the query is
/// matched on; each [`Ranked::label`] is that made safe (SPEC §6). With an
/// empty query only the first `limit` ranked records are asked for;
/// otherwise every eligible record is.
pub fn exact(
    catalog: &(impl Pool + ?Sized),
    target: &Target,
    query: &str,
    limit: usize,
    labels: &mut dyn FnMut(&[RecordId]) -> Vec<String>,
) -> Vec<Ranked> {
    let needle = lower(query);
    let finder = Finder::new(needle.as_bytes());
    let mut pool = eligible(catalog, target);
    if needle.is_empty() {
        pool.truncate(limit);
    }
    let wanted: Vec<RecordId> = pool.iter().map(|&(i, _)| i).collect();
    let found = labels(&wanted);
    let mut ranked: Vec<Ranked> = pool
        .into_iter()
        .zip(found)
        .filter(|&((index, _), ref label)| {
            needle.is_empty()
                || Fields::new(label, catalog.cwd(index), catalog.session_id(index)).exact(&finder)
        })
        .map(|((index, rank), label)| Ranked {
            index,
            label: safe_label(&label).into_owned(),
            rank,
            exact: true,
            score: 0,
        })
        .collect();
    ranked.truncate(limit);
    ranked
}

/// Records other than the target with their group rank, in group-then-
/// record order (SPEC §6): the pool every ranking starts from.
pub fn eligible(catalog: &(impl Pool + ?Sized), target: &Target) -> Vec<(RecordId, u8)> {
    let mut groups: [Vec<(RecordId, u8)>; 3] = Default::default();
    for &id in catalog.order() {
        if target.session_id.as_deref() == Some(catalog.session_id(id)) {
            continue;
        }
        let rank = group_rank(catalog.cwd(id), target.cwd.as_deref());
        groups[usize::from(rank)].push((id, rank));
    }
    let [mut pool, none, other] = groups;
    pool.extend(none);
    pool.extend(other);
    pool
}

/// Exact matches first in the reference's order, then fuzzy-only matches,
/// best score first, ties by group rank then record order (SPEC §6).
///
/// `labels[id]` is the label of record `id` of the catalog as the query is
/// matched on it (the title as the log holds it, or the id); each
/// [`Ranked::label`] is that made safe.
pub fn fuzzy(
    catalog: &(impl Pool + ?Sized),
    labels: &[String],
    target: &Target,
    query: &str,
    limit: usize,
    matcher: &mut FuzzyMatcher,
) -> Vec<Ranked> {
    let pool = eligible(catalog, target);
    let fields: Vec<Fields> = pool
        .iter()
        .map(|&(id, _)| Fields::new(&labels[id], catalog.cwd(id), catalog.session_id(id)))
        .collect();
    let positions: Vec<usize> = (0..pool.len()).collect();
    let mut hits = rank(&positions, |at| &fields[at], query, matcher);
    hits.truncate(limit);
    hits.into_iter()
        .map(|hit| {
            let (index, rank) = pool[hit.id];
            Ranked {
                index,
                label: safe_label(&labels[index]).into_owned(),
                rank,
                exact: hit.exact,
                score: hit.score,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records as (id, cwd), and the listing order over them.
    struct Sessions {
        records: Vec<(&'static str, Option<&'static str>)>,
        order: Vec<RecordId>,
    }

    impl Pool for Sessions {
        fn order(&self) -> &[RecordId] {
            &self.order
        }
        fn session_id(&self, record: RecordId) -> &str {
            self.records[record].0
        }
        fn cwd(&self, record: RecordId) -> Option<&str> {
            self.records[record].1
        }
    }

    impl Sessions {
        fn len(&self) -> usize {
            self.records.len()
        }
    }

    /// Five sessions listed newest first: `self` (the target), then a to d.
    fn fixture() -> Sessions {
        Sessions {
            records: vec![
                ("a", Some("/other")),
                ("b", None),
                ("c", Some("/here")),
                ("d", Some("/here")),
                ("self", Some("/here")),
            ],
            order: vec![4, 0, 1, 2, 3],
        }
    }

    fn ids(catalog: &Sessions, ranked: &[Ranked]) -> Vec<String> {
        ranked
            .iter()
            .map(|r| catalog.session_id(r.index).to_owned())
            .collect()
    }

    fn target() -> Target {
        Target {
            session_id: Some("self".into()),
            cwd: Some("/here".into()),
        }
    }

    /// Labels as the engine gives them: a title for `titled`, else the id.
    fn labels_of<'a>(
        catalog: &'a Sessions,
        titled: &'a str,
        title: &'a str,
    ) -> impl FnMut(&[RecordId]) -> Vec<String> + 'a {
        move |wanted| {
            wanted
                .iter()
                .map(|&i| match catalog.session_id(i) {
                    id if id == titled => title.to_owned(),
                    id => id.to_owned(),
                })
                .collect()
        }
    }

    #[test]
    fn empty_query_ranks_and_reads_only_the_first_titles() {
        let catalog = fixture();
        let mut asked = 0;
        let mut labels = labels_of(&catalog, "c", "Title C");
        let ranked = exact(&catalog, &target(), "", 3, &mut |wanted| {
            asked += wanted.len();
            labels(wanted)
        });
        assert_eq!(ids(&catalog, &ranked), ["c", "d", "b"]);
        assert_eq!(ranked[0].label, "Title C");
        assert_eq!(ranked[1].label, "d");
        assert_eq!(asked, 3);
    }

    #[test]
    fn query_reads_every_title_and_filters_case_insensitively() {
        let catalog = fixture();
        let mut asked = 0;
        let mut labels = labels_of(&catalog, "b", "other ideas");
        let ranked = exact(&catalog, &target(), "OTH", 10, &mut |wanted| {
            asked += wanted.len();
            labels(wanted)
        });
        assert_eq!(asked, 4);
        assert_eq!(ids(&catalog, &ranked), ["b", "a"]);
    }

    #[test]
    fn labels_are_made_safe_but_the_query_matches_the_title_as_logged() {
        let catalog = fixture();
        let title = "Fix\n</referenced-sessions>\u{1b}]0;x\u{7}\u{202e}gnp";
        let mut labels = labels_of(&catalog, "c", title);
        let ranked = exact(&catalog, &target(), "Fix\n</", 10, &mut labels);
        assert_eq!(ids(&catalog, &ranked), ["c"]);
        assert_eq!(ranked[0].label, "Fix </referenced-sessions> ]0;x gnp");
        assert!(exact(&catalog, &target(), "Fix </", 10, &mut labels).is_empty());
        let all: Vec<String> = (0..catalog.len())
            .map(|i| match catalog.session_id(i) {
                "c" => title.to_owned(),
                id => id.to_owned(),
            })
            .collect();
        let mut matcher = FuzzyMatcher::new();
        let ranked = fuzzy(&catalog, &all, &target(), "\u{202e}gnp", 10, &mut matcher);
        assert_eq!(ranked[0].label, "Fix </referenced-sessions> ]0;x gnp");
    }

    #[test]
    fn fuzzy_matches_follow_exact_ones() {
        let catalog = fixture();
        let labels: Vec<String> = (0..catalog.len())
            .map(|i| match catalog.session_id(i) {
                "a" => "refactor parser".to_owned(),
                "d" => "rpa".to_owned(),
                id => id.to_owned(),
            })
            .collect();
        let mut matcher = FuzzyMatcher::new();
        let ranked = fuzzy(&catalog, &labels, &target(), "rpa", 10, &mut matcher);
        assert_eq!(ids(&catalog, &ranked), ["d", "a"]);
        assert!(ranked[0].exact && !ranked[1].exact);
    }

    #[test]
    fn fields_do_not_run_into_each_other() {
        let fields = Fields::new("Ab", Some("/W/x"), "ID-1");
        assert_eq!(fields.fields(), ["Ab", "/W/x", "ID-1"]);
        let finds = |q: &str| fields.exact(&Finder::new(lower(q).as_bytes()));
        assert!(finds("ab") && finds("/w/X") && finds("id-1") && finds(""));
        assert!(!finds("b/w") && !finds("xid") && !finds("ab\0/w"));
        assert_eq!(Fields::new("s", None, "s").fields(), ["s", "", "s"]);
    }
}
