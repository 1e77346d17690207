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
