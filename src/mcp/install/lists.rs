//! The MCP entries that are not one key of a JSON object or TOML table:
//! Mistral Vibe's `[[mcp_servers]]` array of tables (ours the one named
//! `session-ref`), and the YAML blocks of Goose (`extensions:`) and
//! Continue CLI (`mcpServers:`), edited as text by
//! [`crate::settings_file::yaml`].
//!
//! The rules are those of [`super`]: an entry already as wanted is left
//! unchanged, one of our name that runs another program is refused, ours
//! with another program or arguments is rewritten, and uninstall removes
//! ours only.

use std::path::Path;

use serde_json::{Map, Value};

use super::entry::{is_ours, program_of, taken, Change, NAME};
use crate::error::Result;
use crate::settings_file::yaml::Block;
use crate::settings_file::{malformed, parse_toml};

/// A TOML value as JSON, for comparing entries (dates as their text).
fn toml_json(value: &toml_edit::Value) -> Value {
    match value {
        toml_edit::Value::String(s) => Value::String(s.value().clone()),
        toml_edit::Value::Integer(i) => Value::from(*i.value()),
        toml_edit::Value::Float(f) => Value::from(*f.value()),
        toml_edit::Value::Boolean(b) => Value::Bool(*b.value()),
        toml_edit::Value::Datetime(d) => Value::String(d.value().to_string()),
        toml_edit::Value::Array(a) => Value::Array(a.iter().map(toml_json).collect()),
        toml_edit::Value::InlineTable(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.to_owned(), toml_json(v)))
                .collect(),
        ),
    }
}

/// A TOML table as JSON (nested tables included).
fn table_json(table: &toml_edit::Table) -> Value {
    let mut out = Map::new();
    for (key, item) in table.iter() {
        let value = match item {
            toml_edit::Item::Value(v) => toml_json(v),
            toml_edit::Item::Table(t) => table_json(t),
            _ => continue,
        };
        out.insert(key.to_owned(), value);
    }
    Value::Object(out)
}

/// The `[[mcp_servers]]` of a Vibe config (`None`: there are none),
/// refusing one written another way.
fn servers<'d>(
    path: &Path,
    doc: &'d mut toml_edit::DocumentMut,
) -> Result<Option<&'d mut toml_edit::ArrayOfTables>> {
    match doc.get_mut("mcp_servers") {
        None => Ok(None),
        Some(toml_edit::Item::ArrayOfTables(servers)) => Ok(Some(servers)),
        Some(_) => Err(malformed(
            path,
            "\"mcp_servers\" is not an array of tables ([[mcp_servers]]); \
             write it as [[mcp_servers]] tables to let session-ref add one",
        )),
    }
}

/// The index and JSON of the `[[mcp_servers]]` entry named ours.
fn ours_in(servers: &toml_edit::ArrayOfTables) -> Option<(usize, Value)> {
    servers
        .iter()
        .enumerate()
        .map(|(i, t)| (i, table_json(t)))
        .find(|(_, t)| t.get("name").and_then(Value::as_str) == Some(NAME))
}

/// Add `desired` to the `[[mcp_servers]]` of a Vibe config text.
pub fn add_toml_list(path: &Path, text: Option<&str>, desired: toml_edit::Table) -> Result<Change> {
    let mut doc = parse_toml(path, text)?;
    let wanted = table_json(&desired);
    let Some(servers) = servers(path, &mut doc)? else {
        let mut servers = toml_edit::ArrayOfTables::new();
        servers.push(desired);
        doc.insert("mcp_servers", toml_edit::Item::ArrayOfTables(servers));
        return Ok(Change::Changed(doc.to_string()));
    };
    match ours_in(servers) {
        Some((_, current)) if current == wanted => return Ok(Change::Unchanged),
        Some((_, current)) if !is_ours(&current) => {
            return Err(taken(path, current.get("command").unwrap_or(&Value::Null)))
        }
        Some((index, _)) => {
            let entry = servers.get_mut(index).expect("found");
            for (key, item) in desired.iter() {
                entry.insert(key, item.clone());
            }
        }
        None => servers.push(desired),
    }
    Ok(Change::Changed(doc.to_string()))
}

/// Remove our `[[mcp_servers]]` entry (and the array when that empties it).
pub fn remove_toml_list(path: &Path, text: &str) -> Result<Change> {
    let mut doc = parse_toml(path, Some(text))?;
    let Some(servers) = servers(path, &mut doc)? else {
        return Ok(Change::Unchanged);
    };
    let Some((index, _)) = ours_in(servers).filter(|(_, entry)| is_ours(entry)) else {
        return Ok(Change::Unchanged);
    };
    servers.remove(index);
    if servers.is_empty() {
        doc.remove("mcp_servers");
    }
    Ok(Change::Changed(doc.to_string()))
}

/// Our `[[mcp_servers]]` entry of a Vibe config text, as JSON.
pub fn toml_list_entry(path: &Path, text: &str) -> Result<Option<Value>> {
    let mut doc = parse_toml(path, Some(text))?;
    Ok(servers(path, &mut doc)?.and_then(|s| ours_in(s).map(|(_, entry)| entry)))
}

/// Put `desired` in a YAML block (see [`Block::add`]).
pub fn add_yaml(block: &Block<'_>, text: Option<&str>, desired: &Value) -> Result<Change> {
    let current = match text {
        Some(text) => block.entry(text)?,
        None => None,
    };
    let text = match (current, text) {
        (Some(current), _) if current == *desired => return Ok(Change::Unchanged),
        (Some(current), _) if !is_ours(&current) => {
            let program = program_of(&current).unwrap_or("no command");
            return Err(taken(block.path, program));
        }
        (Some(_), Some(text)) => block.remove(text)?,
        _ => text.map(str::to_owned),
    };
    block.add(text.as_deref(), desired).map(Change::Changed)
}

/// Remove our entry from a YAML block.
pub fn remove_yaml(block: &Block<'_>, text: &str) -> Result<Change> {
    if !block.entry(text)?.is_some_and(|e| is_ours(&e)) {
        return Ok(Change::Unchanged);
    }
    Ok(match block.remove(text)? {
        Some(after) => Change::Changed(after),
        None => Change::Unchanged,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vibe_entry(exe: &str) -> toml_edit::Table {
        crate::agents::vibe::mcp_entry(exe, &["mcp".to_owned()])
    }

    #[test]
    fn vibes_servers_keep_every_other_byte() {
        let path = Path::new("/v/config.toml");
        let before = "# mine\nactive_model = \"mock\" # keep\n\n[[providers]]\nname = \"mock\"\n\n[[mcp_servers]]\nname = \"fetch\" # theirs\ntransport = \"stdio\"\ncommand = \"uvx\"\n\n[[models]]\nname = \"m\"\n";
        let Change::Changed(after) =
            add_toml_list(path, Some(before), vibe_entry("/b/session-ref")).unwrap()
        else {
            panic!("unchanged")
        };
        assert!(after.contains("name = \"fetch\" # theirs"), "{after}");
        let entry = toml_list_entry(path, &after).unwrap().unwrap();
        assert_eq!(
            entry,
            serde_json::json!({"name": "session-ref", "transport": "stdio", "command": "/b/session-ref", "args": ["mcp"]})
        );
        assert_eq!(
            add_toml_list(path, Some(&after), vibe_entry("/b/session-ref")).unwrap(),
            Change::Unchanged
        );
        assert_eq!(
            remove_toml_list(path, &after).unwrap(),
            Change::Changed(before.to_owned())
        );
        let Change::Changed(alone) =
            add_toml_list(path, None, vibe_entry("/b/session-ref")).unwrap()
        else {
            panic!("unchanged")
        };
        assert_eq!(
            alone,
            "[[mcp_servers]]\nname = \"session-ref\"\ntransport = \"stdio\"\ncommand = \"/b/session-ref\"\nargs = [\"mcp\"]\n"
        );
        assert_eq!(
            remove_toml_list(path, &alone).unwrap(),
            Change::Changed(String::new())
        );
        let theirs = "[[mcp_servers]]\nname = \"session-ref\"\ntransport = \"stdio\"\ncommand = \"/bin/other\"\n";
        assert!(add_toml_list(path, Some(theirs), vibe_entry("/b/session-ref")).is_err());
        assert_eq!(remove_toml_list(path, theirs).unwrap(), Change::Unchanged);
        assert!(add_toml_list(path, Some("mcp_servers = []\n"), vibe_entry("x")).is_err());
    }
}
