//! The MCP tools' arguments as types: what each tool takes, its JSON
//! Schema (derived with schemars, as rmcp's `Parameters<T>` expects) and
//! the checks that turn what arrived into a request the tool runs.
//!
//! Every argument is an [`Arg`] of a [`Kind`]: it deserializes from any
//! JSON, keeping a value that is not of its kind, so a wrong one is the
//! tool's error result naming the argument (`limit must be a whole number
//! from 1 (got 0)`, the `session-ref: CODE: message` shape of every
//! error), never rmcp's "failed to deserialize parameters" text; and the
//! arguments are checked in a fixed order whatever order they came in.
//! `null` is taken as absent, as before.
//!
//! The schemas are made by [`input_schema`], not by rmcp's
//! `schema_for_input`: rmcp's adds `$schema` and serializes through
//! schemars' keyword reordering (`description` first), and clients have
//! been shown the same schemas byte for byte since the tools were
//! written (a test here pins them). Descriptions and defaults are
//! therefore `extend(…)` entries, which schemars appends after the
//! kind's own keywords, rather than doc comments, which it puts first.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::JsonObject;
use rmcp::schemars::{self, json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::config;
use crate::error::{Error, Result};
use session_ref_core::json as js;
use session_ref_engine::order::SortBy;
use session_ref_engine::rank::Query;

/// `list_sessions`'s default `limit`.
pub const LIST_LIMIT: usize = 20;
/// `search_sessions`'s default `limit`.
pub const SEARCH_LIMIT: usize = 10;
/// The most sessions one call lists.
pub const MOST: usize = 500;
/// The longest `query` a tool or the `cite` prompt takes, in bytes: a
/// picker query is a few words, and ranking's cost grows with its terms
/// (a 100 KB query of 50,000 terms kept a core busy for two minutes).
pub const MAX_QUERY_BYTES: usize = 1024;
/// The most terms (alternatives included) of a `list_sessions` or `cite`
/// query.
pub const MAX_QUERY_TERMS: usize = 32;
/// The longest `cwd` taken, in bytes (Linux's `PATH_MAX`).
pub const MAX_CWD_BYTES: usize = 4096;

/// What JSON an argument must be: how it is read, how its schema starts,
/// and how a value of another kind is refused.
pub trait Kind: Sized {
    /// What a value must be, after the argument's name (`must be a string`).
    const MUST: &'static str;
    /// The value, or `None` when `value` is not of this kind.
    fn read(value: &Value) -> Option<Self>;
    /// The kind's JSON Schema (a field's attributes add to it).
    fn schema() -> Schema;
    /// Why `value`, given as `key`, is refused.
    fn refusal(key: &str, value: &Value) -> String {
        format!("{key} {} (got {value})", Self::MUST)
    }
}

/// One argument as it arrived: a value of its kind, or the JSON that is
/// not one (refused by [`Arg::take`] with the argument's name).
#[derive(Debug, Clone)]
pub struct Arg<K>(std::result::Result<K, Value>);

impl<K: Kind> Arg<K> {
    /// The value of an argument given as `key`, `None` when absent (or
    /// `null`), an invalid-config error when of another kind.
    pub fn take(arg: Option<Arg<K>>, key: &str) -> Result<Option<K>> {
        match arg {
            None => Ok(None),
            Some(Arg(Ok(value))) => Ok(Some(value)),
            Some(Arg(Err(value))) => Err(Error::invalid_config(K::refusal(key, &value))),
        }
    }
}

impl<'de, K: Kind> Deserialize<'de> for Arg<K> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Ok(Arg(K::read(&value).ok_or(value)))
    }
}

impl<K: Kind> JsonSchema for Arg<K> {
    fn schema_name() -> Cow<'static, str> {
        std::any::type_name::<K>().into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        K::schema()
    }
}

/// A string.
#[derive(Debug, Clone)]
pub struct Text(pub String);

impl Kind for Text {
    const MUST: &'static str = "must be a string";
    fn read(value: &Value) -> Option<Self> {
        value.as_str().map(|s| Text(s.to_owned()))
    }
    fn schema() -> Schema {
        json_schema!({"type": "string"})
    }
}

/// A whole number from 1 to JavaScript's largest safe integer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Count(pub u64);

impl Count {
    /// The count as a `usize`, at most `most`.
    pub fn at_most(self, most: usize) -> usize {
        usize::try_from(self.0).unwrap_or(usize::MAX).min(most)
    }
}

impl Kind for Count {
    const MUST: &'static str = "must be a whole number from 1";
    fn read(value: &Value) -> Option<Self> {
        value
            .as_u64()
            .filter(|&n| (1..=config::MAX_SAFE_INTEGER).contains(&n))
            .map(Count)
    }
    fn schema() -> Schema {
        json_schema!({"type": "integer", "minimum": 1})
    }
}

/// `true` or `false`.
#[derive(Debug, Clone, Copy)]
pub struct Flag(pub bool);

impl Kind for Flag {
    const MUST: &'static str = "must be true or false";
    fn read(value: &Value) -> Option<Self> {
        value.as_bool().map(Flag)
    }
    fn schema() -> Schema {
        json_schema!({"type": "boolean"})
    }
}

/// `updated` or `created`: the list order within a directory group.
#[derive(Debug, Clone, Copy)]
pub struct Sort(pub SortBy);

impl Kind for Sort {
    const MUST: &'static str = "must be \"updated\" or \"created\"";
    fn read(value: &Value) -> Option<Self> {
        match value.as_str()? {
            "updated" => Some(Sort(SortBy::Updated)),
            "created" => Some(Sort(SortBy::Created)),
            _ => None,
        }
    }
    fn schema() -> Schema {
        json_schema!({"type": "string", "enum": ["updated", "created"]})
    }
    fn refusal(key: &str, value: &Value) -> String {
        match value.as_str() {
            Some(text) => format!("{key} {} (got {})", Self::MUST, js::quote(text, false)),
            None => Text::refusal(key, value),
        }
    }
}

/// `list_sessions`'s arguments.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars", extend("additionalProperties" = false))]
pub struct ListArgs {
    #[serde(default)]
    #[schemars(with = "Arg<Text>", length(max = MAX_QUERY_BYTES), extend("description" = "Filter in the picker's syntax (at most 32 terms); empty lists everything."))]
    query: Option<Arg<Text>>,
    #[serde(default)]
    #[schemars(with = "Arg<Text>", length(max = MAX_CWD_BYTES), extend("description" = "Directory whose sessions rank first (default: the server's --cwd)."))]
    cwd: Option<Arg<Text>>,
    #[serde(default)]
    #[schemars(with = "Arg<Count>", range(max = MOST), extend("default" = LIST_LIMIT, "description" = "Most sessions returned."))]
    limit: Option<Arg<Count>>,
    #[serde(default)]
    #[schemars(with = "Arg<Sort>", extend("default" = "updated", "description" = "Within a directory group: last activity or creation, newest first."))]
    sort: Option<Arg<Sort>>,
}

/// `search_sessions`'s arguments.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars", extend("additionalProperties" = false))]
pub struct SearchArgs {
    #[schemars(with = "Arg<Text>", length(max = MAX_QUERY_BYTES), extend("description" = "Words and \"phrases\", or a regular expression with regex."))]
    query: Option<Arg<Text>>,
    #[serde(default)]
    #[schemars(with = "Arg<Flag>", extend("default" = false, "description" = "Read query as one regular expression (Rust syntax)."))]
    regex: Option<Arg<Flag>>,
    #[serde(default)]
    #[schemars(with = "Arg<Count>", range(max = MOST), extend("default" = SEARCH_LIMIT, "description" = "Most sessions returned."))]
    limit: Option<Arg<Count>>,
}

/// `read_session`'s arguments. `max_bytes`'s default and description
/// name the server's budget and the client's largest, so they are added
/// when the tools are listed ([`super::tools::definitions`]).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars", extend("additionalProperties" = false))]
pub struct ReadArgs {
    #[schemars(with = "Arg<Text>", extend("description" = "Session id, canonical mention or hydra-session: URI."))]
    session: Option<Arg<Text>>,
    #[serde(default)]
    #[schemars(with = "Arg<Count>")]
    max_bytes: Option<Arg<Count>>,
}

/// A `list_sessions` call to run.
#[derive(Debug, Clone, PartialEq)]
pub struct ListRequest {
    /// The filter, in the picker's syntax; empty lists everything.
    pub query: String,
    /// The directory whose sessions rank first (`None`: the server's).
    pub cwd: Option<String>,
    /// Most sessions returned.
    pub limit: usize,
    /// The order within a directory group.
    pub sort: SortBy,
}

/// A `search_sessions` call to run.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchRequest {
    /// Words and phrases, or a regular expression.
    pub query: String,
    /// Whether `query` is a regular expression.
    pub regex: bool,
    /// Most sessions returned.
    pub limit: usize,
}

/// A `read_session` call to run.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadRequest {
    /// The session argument as given.
    pub session: String,
    /// The snapshot's byte budget, `None` for the server's.
    pub max_bytes: Option<Count>,
}

/// The text of an argument when it is one (for the size checks, made
/// before any argument's kind is).
fn text_of(arg: &Option<Arg<Text>>) -> Option<&str> {
    match arg {
        Some(Arg(Ok(Text(text)))) => Some(text),
        _ => None,
    }
}

impl ListArgs {
    /// Refuse a query or directory too large to be worth ranking
    /// ([`check_query`], [`MAX_CWD_BYTES`]); the server answers JSON-RPC
    /// −32602 before taking a job.
    pub fn check_size(&self) -> std::result::Result<(), String> {
        if let Some(query) = text_of(&self.query) {
            check_query(query, true)?;
        }
        match text_of(&self.cwd) {
            Some(cwd) if cwd.len() > MAX_CWD_BYTES => Err(format!(
                "cwd is {} bytes long; at most {MAX_CWD_BYTES} are taken",
                cwd.len()
            )),
            _ => Ok(()),
        }
    }

    /// The call to run, or the first argument (query, limit, sort, cwd)
    /// that is not of its kind.
    pub fn check(self) -> Result<ListRequest> {
        let query = Arg::take(self.query, "query")?.map_or_else(String::new, |t| t.0);
        let limit = Arg::take(self.limit, "limit")?.map_or(LIST_LIMIT, |n| n.at_most(MOST));
        let sort = Arg::take(self.sort, "sort")?.map_or(SortBy::Updated, |s| s.0);
        let cwd = Arg::take(self.cwd, "cwd")?.map(|t| t.0);
        Ok(ListRequest {
            query,
            cwd,
            limit,
            sort,
        })
    }
}

impl SearchArgs {
    /// Refuse a query too long to search ([`check_query`]).
    pub fn check_size(&self) -> std::result::Result<(), String> {
        text_of(&self.query).map_or(Ok(()), |query| check_query(query, false))
    }

    /// The call to run, or the first argument (query, regex, limit) that
    /// is missing or not of its kind.
    pub fn check(self) -> Result<SearchRequest> {
        let Some(Text(query)) = Arg::take(self.query, "query")? else {
            return Err(Error::invalid_config("query is required"));
        };
        let regex = Arg::take(self.regex, "regex")?.is_some_and(|f| f.0);
        let limit = Arg::take(self.limit, "limit")?.map_or(SEARCH_LIMIT, |n| n.at_most(MOST));
        Ok(SearchRequest {
            query,
            regex,
            limit,
        })
    }
}

impl ReadArgs {
    /// The call to run, or the first argument (session, max_bytes) that
    /// is missing or not of its kind.
    pub fn check(self) -> Result<ReadRequest> {
        let Some(Text(session)) = Arg::take(self.session, "session")? else {
            return Err(Error::invalid_config("session is required"));
        };
        let max_bytes = Arg::take(self.max_bytes, "max_bytes")?;
        Ok(ReadRequest { session, max_bytes })
    }
}

/// Whether a query is short enough to rank or search: at most
/// [`MAX_QUERY_BYTES`] and, when `ranked` (the picker's syntax),
/// [`MAX_QUERY_TERMS`] terms. The refusal says which limit and by how much.
pub fn check_query(query: &str, ranked: bool) -> std::result::Result<(), String> {
    if query.len() > MAX_QUERY_BYTES {
        return Err(format!(
            "query is {} bytes long; at most {MAX_QUERY_BYTES} are taken",
            query.len()
        ));
    }
    let terms = if ranked {
        Query::parse(query).terms()
    } else {
        0
    };
    if terms > MAX_QUERY_TERMS {
        return Err(format!(
            "query has {terms} terms; at most {MAX_QUERY_TERMS} are taken"
        ));
    }
    Ok(())
}

/// The `inputSchema` of a tool taking `T`: schemars' draft 2020-12 schema
/// without `$schema` or the type's title and doc (as rmcp strips them), its
/// keywords in the order they were added (see the module doc).
pub fn input_schema<T: JsonSchema>() -> Arc<JsonObject> {
    let mut settings = schemars::generate::SchemaSettings::draft2020_12();
    settings.meta_schema = None;
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let Value::Object(mut object) = schema.to_value() else {
        unreachable!("a struct's schema is an object")
    };
    object.remove("title");
    object.remove("description");
    Arc::new(object)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn list(args: Value) -> ListArgs {
        serde_json::from_value(args).unwrap()
    }

    #[test]
    fn schemas_are_the_ones_clients_have_been_shown() {
        let schema = |s: Arc<JsonObject>| js::stringify_value(&Value::Object((*s).clone()));
        assert_eq!(
            schema(input_schema::<ListArgs>()),
            js::stringify_value(&json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "maxLength": 1024, "description": "Filter in the picker's syntax (at most 32 terms); empty lists everything."},
                    "cwd": {"type": "string", "maxLength": 4096, "description": "Directory whose sessions rank first (default: the server's --cwd)."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 500, "default": 20, "description": "Most sessions returned."},
                    "sort": {"type": "string", "enum": ["updated", "created"], "default": "updated", "description": "Within a directory group: last activity or creation, newest first."}
                },
                "additionalProperties": false
            }))
        );
        assert_eq!(
            schema(input_schema::<SearchArgs>()),
            js::stringify_value(&json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "maxLength": 1024, "description": "Words and \"phrases\", or a regular expression with regex."},
                    "regex": {"type": "boolean", "default": false, "description": "Read query as one regular expression (Rust syntax)."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 500, "default": 10, "description": "Most sessions returned."}
                },
                "required": ["query"],
                "additionalProperties": false
            }))
        );
        assert_eq!(
            schema(input_schema::<ReadArgs>()),
            js::stringify_value(&json!({
                "type": "object",
                "properties": {
                    "session": {"type": "string", "description": "Session id, canonical mention or hydra-session: URI."},
                    "max_bytes": {"type": "integer", "minimum": 1}
                },
                "required": ["session"],
                "additionalProperties": false
            }))
        );
    }

    #[test]
    fn arguments_are_checked_in_order_and_refused_by_name() {
        let refused = |args: Value| {
            list(args)
                .check()
                .unwrap_err()
                .message_for_person()
                .into_owned()
        };
        // Whatever order they came in: query, limit, sort, cwd.
        assert_eq!(
            refused(json!({"sort": "bad", "limit": 0, "query": 1})),
            "query must be a string (got 1)"
        );
        assert_eq!(
            refused(json!({"cwd": 1, "sort": "x\u{7}"})),
            "sort must be \"updated\" or \"created\" (got \"x\\u0007\")"
        );
        assert_eq!(refused(json!({"sort": 3})), "sort must be a string (got 3)");
        assert_eq!(
            refused(json!({"limit": 1.5})),
            "limit must be a whole number from 1 (got 1.5)"
        );
        assert_eq!(
            refused(json!({"limit": 9_007_199_254_740_992u64})),
            "limit must be a whole number from 1 (got 9007199254740992)"
        );
        // `null` is absent; unknown arguments are passed over; a large
        // limit is taken as the most.
        let request = list(json!({"query": null, "limit": 100_000, "other": 1}))
            .check()
            .unwrap();
        assert_eq!(
            request,
            ListRequest {
                query: String::new(),
                cwd: None,
                limit: MOST,
                sort: SortBy::Updated
            }
        );
        let search: SearchArgs = serde_json::from_value(json!({"query": null})).unwrap();
        let err = search.check().unwrap_err();
        assert_eq!(err.message_for_person(), "query is required");
        let read: ReadArgs = serde_json::from_value(json!({"max_bytes": "a"})).unwrap();
        assert_eq!(
            read.check().unwrap_err().message_for_person(),
            "session is required"
        );
    }

    #[test]
    fn queries_and_directories_too_large_to_rank_are_refused_first() {
        let words = vec!["w"; MAX_QUERY_TERMS].join(" ");
        assert!(list(json!({"query": words})).check_size().is_ok());
        let more = format!("{words} | x");
        let refused = list(json!({"query": more})).check_size().unwrap_err();
        assert!(refused.contains("33 terms"), "{refused}");
        // Searching takes as many words as fit, ranking does not.
        let search = |args: Value| serde_json::from_value::<SearchArgs>(args).unwrap();
        assert!(search(json!({"query": more})).check_size().is_ok());
        let long = "a".repeat(MAX_QUERY_BYTES + 1);
        let refused = list(json!({"query": long})).check_size().unwrap_err();
        assert!(refused.contains("1025 bytes"), "{refused}");
        let refused = search(json!({"query": long})).check_size().unwrap_err();
        assert!(refused.contains("1025 bytes"), "{refused}");
        let at_most = "a".repeat(MAX_QUERY_BYTES);
        assert!(list(json!({"query": at_most})).check_size().is_ok());
        let cwd = "/".repeat(MAX_CWD_BYTES + 1);
        assert!(list(json!({"cwd": cwd})).check_size().is_err());
        // Wrong kinds are the tool's to report.
        assert!(list(json!({"query": 7})).check_size().is_ok());
    }
}
