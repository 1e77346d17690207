//! THE session-argument rule: what an argument naming one session names.
//! Every front-end that takes a session from a person or an agent
//! (`preview`, `mention`, MCP `read_session`, a session's resource, the
//! `/cite` prompt) reads it here, so an id, the start of one, a mention, a
//! `hydra-session:` URI or an `ID@HOST` of another machine name the same
//! session everywhere.
//!
//! In order: a listed id as given (even one that looks like a mention or
//! ends in `@HOST`: ids of other machines are listed ids); a canonical
//! mention, alone, as `candidates --json` prints it (its label kept); a
//! `hydra-session:` URI; the start of exactly one listed id, at least
//! [`MIN_ID_PREFIX`] characters (the start of several is refused with
//! them). Anything else is the argument as given: reading it fails as an
//! unknown session.

use crate::error::{Error, Result};
use session_ref_core::{json, mention, uri};
use session_ref_stores::Catalog;

/// Fewest characters an id prefix must have to name a session: shorter
/// ones are too easily the start of a session meant by nobody.
pub const MIN_ID_PREFIX: usize = 4;

/// A session named by a front-end's argument: `preview`, `mention`, MCP
/// `read_session`, a session's resource, the `/cite` prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionArg {
    /// The session id.
    pub id: String,
    /// The label the argument carried (a mention's), if any.
    pub label: Option<String>,
}

impl SessionArg {
    /// Read `arg` without the stores: a canonical mention as `candidates
    /// --json` prints it (`@[label](hydra-session:…)`, surrounding blanks
    /// allowed) gives its id and label, a `hydra-session:` URI its id;
    /// `None` for anything else (an id, or its start, even one that starts
    /// with `@[`). A URI that is not canonical fails as it would in a
    /// prompt, and so does text holding a mention that is not all of it.
    pub fn parse(arg: &str) -> Result<Option<SessionArg>> {
        let trimmed = arg.trim();
        if trimmed.starts_with("@[") {
            let spans = mention::scan(trimmed);
            let span = match spans.as_slice() {
                [] => return Ok(None),
                [span] => span,
                _ => {
                    return Err(Error::InvalidReference(format!(
                        "{} holds more than one mention: name one session",
                        json::quote(arg, false)
                    )))
                }
            };
            if span.range != (0..trimmed.len()) {
                return Err(Error::InvalidReference(format!(
                    "{} holds text besides its mention: give the mention alone",
                    json::quote(arg, false)
                )));
            }
            return Ok(Some(SessionArg {
                id: uri::decode(&trimmed[span.uri.clone()])?,
                label: span
                    .label
                    .clone()
                    .map(|raw| mention::unescape_label(&trimmed[raw])),
            }));
        }
        if arg.starts_with(uri::SCHEME) {
            return Ok(Some(SessionArg {
                id: uri::decode(arg)?,
                label: None,
            }));
        }
        Ok(None)
    }

    /// Resolve a session argument: a URI, a listed id (even one that
    /// looks like a mention), a mention ([`SessionArg::parse`]), or the
    /// start of exactly one listed id (at least [`MIN_ID_PREFIX`]
    /// characters; the start of several is refused with their ids).
    /// Anything else is returned as given: reading it fails as an unknown
    /// session.
    pub fn resolve(catalog: &Catalog, arg: &str) -> Result<SessionArg> {
        let as_given = SessionArg {
            id: arg.to_owned(),
            label: None,
        };
        if !arg.starts_with(uri::SCHEME) && catalog.find(arg).is_some() {
            return Ok(as_given);
        }
        if let Some(named) = SessionArg::parse(arg)? {
            return Ok(named);
        }
        if arg.chars().count() < MIN_ID_PREFIX {
            return Ok(as_given);
        }
        let mut starting: Vec<&str> = Vec::new();
        for record in catalog.ordered() {
            if record.id.starts_with(arg) && !starting.contains(&record.id.as_str()) {
                starting.push(&record.id);
            }
        }
        match starting.as_slice() {
            [] => Ok(as_given),
            [id] => Ok(SessionArg {
                id: (*id).to_owned(),
                label: None,
            }),
            several => {
                let shown: Vec<String> = several
                    .iter()
                    .take(5)
                    .map(|id| json::quote(id, false))
                    .collect();
                Err(Error::InvalidReference(format!(
                    "{} is the start of {} session ids ({}{}): give more of it",
                    json::quote(arg, false),
                    several.len(),
                    shown.join(", "),
                    if several.len() > 5 { ", …" } else { "" }
                )))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use session_ref_core::ErrorCode;
    use session_ref_stores::kinds::native;
    use session_ref_stores::StoreRoots;

    /// A catalog listing native sessions with `ids`.
    fn catalog(ids: &[String]) -> (tempfile::TempDir, Catalog) {
        let dir = tempfile::tempdir().unwrap();
        for (n, id) in ids.iter().enumerate() {
            std::fs::write(
                dir.path().join(format!("{n}.jsonl")),
                format!(
                    "{{\"type\":\"session\",\"version\":1,\"id\":{},\"createdAt\":\"2025-01-01T00:00:00Z\"}}\n",
                    json::quote(id, false)
                ),
            )
            .unwrap();
        }
        let roots = StoreRoots::new().with(native::KIND, dir.path());
        let catalog = Catalog::load(&roots);
        (dir, catalog)
    }

    fn named(id: &str, label: Option<&str>) -> SessionArg {
        SessionArg {
            id: id.to_owned(),
            label: label.map(str::to_owned),
        }
    }

    fn ids() -> impl Strategy<Value = Vec<String>> {
        proptest::collection::btree_set("[a-c][a-c0-9@.-]{0,9}", 1..8)
            .prop_map(|set| set.into_iter().collect())
    }

    proptest! {
        #[test]
        fn an_id_its_uri_and_its_mention_name_the_same_session(
            ids in ids(),
            pick in any::<proptest::sample::Index>(),
            label in "[^\u{0}-\u{1f}]{0,12}",
        ) {
            let (_dir, catalog) = catalog(&ids);
            let id = pick.get(&ids);
            prop_assert_eq!(SessionArg::resolve(&catalog, id).unwrap(), named(id, None));
            prop_assert_eq!(
                SessionArg::resolve(&catalog, &uri::encode(id)).unwrap(),
                named(id, None)
            );
            let mention = mention::format_mention(id, Some(&label));
            prop_assert_eq!(
                SessionArg::resolve(&catalog, &mention).unwrap(),
                named(id, Some(&label))
            );
            prop_assert_eq!(
                SessionArg::resolve(&catalog, &format!(" {mention}\n")).unwrap(),
                named(id, Some(&label))
            );
        }

        #[test]
        fn the_start_of_ids_names_one_or_is_refused_or_given_back(
            ids in ids(),
            pick in any::<proptest::sample::Index>(),
            cut in 0usize..10,
        ) {
            let (_dir, catalog) = catalog(&ids);
            let id = pick.get(&ids);
            let start: String = id.chars().take(cut).collect();
            let starting: Vec<&String> = ids.iter().filter(|i| i.starts_with(&start)).collect();
            let resolved = SessionArg::resolve(&catalog, &start);
            if ids.contains(&start) || start.starts_with(uri::SCHEME) {
                prop_assert_eq!(resolved.unwrap(), named(&start, None));
            } else if start.chars().count() < MIN_ID_PREFIX {
                // Too short to name anyone: as given (reading it fails).
                prop_assert_eq!(resolved.unwrap(), named(&start, None));
            } else if starting.len() == 1 {
                prop_assert_eq!(resolved.unwrap(), named(starting[0], None));
            } else {
                let err = resolved.unwrap_err();
                prop_assert_eq!(err.code(), ErrorCode::InvalidReference);
                let starts = format!("is the start of {} session ids", starting.len());
                prop_assert!(err.to_string().contains(&starts), "{}", err);
            }
        }
    }

    #[test]
    fn an_id_of_another_machine_or_shaped_like_a_mention_is_a_listed_id() {
        let listed = ["abc@devbox".to_owned(), "@[x](y)".to_owned()];
        let (_dir, catalog) = catalog(&listed);
        for id in &listed {
            assert_eq!(SessionArg::resolve(&catalog, id).unwrap(), named(id, None));
        }
        // `ID@HOST` of a host that is not listed is an id as given.
        assert_eq!(
            SessionArg::resolve(&catalog, "zz@elsewhere").unwrap(),
            named("zz@elsewhere", None)
        );
        // Its start names it, as any id's.
        assert_eq!(
            SessionArg::resolve(&catalog, "abc@").unwrap(),
            named("abc@devbox", None)
        );
    }

    #[test]
    fn a_mention_must_be_the_whole_argument_and_a_uri_canonical() {
        let (_dir, catalog) = catalog(&["s-1".to_owned()]);
        let cite = mention::format_mention("s-1", Some("Fix [it]"));
        for bad in [
            format!("{cite} and more"),
            format!("{cite} {cite}"),
            "hydra-session:".to_owned(),
            "hydra-session:%%".to_owned(),
        ] {
            let err = SessionArg::resolve(&catalog, &bad).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidReference, "{bad}");
        }
        // Without the stores, the same reading of mentions and URIs.
        assert_eq!(
            SessionArg::parse(&cite).unwrap(),
            Some(named("s-1", Some("Fix [it]")))
        );
        assert_eq!(SessionArg::parse("s-1").unwrap(), None);
        assert_eq!(SessionArg::parse("@[not a mention").unwrap(), None);
    }
}
