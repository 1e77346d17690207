//! The fields of the JSON that session-ref prints (`candidates --json`,
//! `search --json`, `doctor --json`, the MCP tools' results), each
//! documented in a table beside the code that writes it.
//!
//! Why: docs/reference.md is generated from these tables, and each table
//! is checked by a test that serializes a real value and compares its
//! keys ([`key_paths`]) with the table's, so that neither the doc nor the
//! table can drift from what is printed.

use std::collections::BTreeSet;

use serde_json::Value;

/// One field of a JSON output: its path (`a.b`, `list[].c`) and meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// Where it is: members joined by `.`, `[]` for an array's elements.
    pub path: &'static str,
    /// What it holds, for a person.
    pub meaning: &'static str,
    /// Written only for a session of another machine (`--remote`).
    pub remote_only: bool,
}

impl Field {
    /// A field at `path` holding `meaning`.
    pub const fn new(path: &'static str, meaning: &'static str) -> Field {
        Field {
            path,
            meaning,
            remote_only: false,
        }
    }

    /// A field written only for a session of another machine.
    pub const fn remote(path: &'static str, meaning: &'static str) -> Field {
        Field {
            path,
            meaning,
            remote_only: true,
        }
    }
}

/// Every path of `value`'s members, as [`Field::path`] writes them.
pub fn key_paths(value: &Value) -> BTreeSet<String> {
    let mut paths = BTreeSet::new();
    collect(value, "", &mut paths);
    paths
}

fn collect(value: &Value, at: &str, paths: &mut BTreeSet<String>) {
    match value {
        Value::Object(members) => {
            for (key, member) in members {
                let path = if at.is_empty() {
                    key.clone()
                } else {
                    format!("{at}.{key}")
                };
                paths.insert(path.clone());
                collect(member, &path, paths);
            }
        }
        Value::Array(items) => {
            let path = format!("{at}[]");
            for item in items {
                collect(item, &path, paths);
            }
        }
        _ => {}
    }
}

/// The paths of a table.
pub fn table_paths(fields: &[Field]) -> BTreeSet<String> {
    fields.iter().map(|f| f.path.to_owned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_name_members_and_array_elements() {
        let value = serde_json::json!({"a": 1, "b": [{"c": null}, {"d": {"e": true}}]});
        let want: BTreeSet<String> = ["a", "b", "b[].c", "b[].d", "b[].d.e"]
            .into_iter()
            .map(str::to_owned)
            .collect();
        assert_eq!(key_paths(&value), want);
    }
}
