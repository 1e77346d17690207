//! YAML settings (Goose's `config.yaml`, Continue CLI's `config.yaml`)
//! edited as text: one entry added to, or removed from, one top-level
//! block, every other byte — comments, order, quoting — kept.
//!
//! Why text: no YAML library here writes back the comments and layout it
//! read, and these files are the person's own. Why still safe: the text is
//! parsed (`serde_norway`) before the edit, to find the block and its
//! entries, and again after it; the edit is kept only when the new text
//! parses to exactly the old value with the one entry added or removed.
//! Anything else — a block written inline (`key: [...]`), entries the line
//! scan does not count as the parser does, anchors or tags that move what
//! a line means — is refused with the file untouched, and the person is
//! told to add the entry by hand.
//!
//! What install appends, uninstall removes to the byte: an entry is added
//! after the last line of its block (a new block at the end of the file),
//! and removed with the line break before it (a block left empty with the
//! lines install wrote for it).

use std::path::Path;

use serde_json::Value;
use serde_norway::{Mapping, Value as Yaml};

use super::malformed::malformed;
use crate::error::{Error, Result};

/// How the entries sit in their top-level block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A list of entries, each naming itself with `name:` (Continue CLI's
    /// `mcpServers:`).
    List,
    /// A map of entries by name (Goose's `extensions:`).
    Map,
}

/// One top-level block of a YAML settings text, and the entry to edit.
#[derive(Debug, Clone, Copy)]
pub struct Block<'a> {
    /// The file, for errors.
    pub path: &'a Path,
    /// The block's key (`mcpServers`, `extensions`).
    pub key: &'a str,
    /// How its entries sit.
    pub shape: Shape,
    /// The entry's name.
    pub name: &'a str,
}

/// The error for a text this module will not edit.
fn unsafe_shape(path: &Path, why: impl std::fmt::Display) -> Error {
    Error::invalid_config(format!(
        "{} {why}, which session-ref does not edit as text; it was left untouched \
         (add the entry by hand, or write the block one entry a line)",
        path.display()
    ))
}

/// The top-level mapping of a YAML text (blank or comments only: empty).
fn parse(path: &Path, text: &str) -> Result<Mapping> {
    if lines(text).iter().all(|l| !l.content) {
        return Ok(Mapping::new());
    }
    let value: Yaml = serde_norway::from_str(text).map_err(|e| malformed(path, e))?;
    match value {
        Yaml::Null => Ok(Mapping::new()),
        Yaml::Mapping(root) => Ok(root),
        _ => Err(malformed(path, "the top level is not a mapping")),
    }
}

/// A line of the text: its byte range (without the line break), its
/// indentation and what it holds.
#[derive(Debug, Clone, Copy)]
struct Line {
    start: usize,
    end: usize,
    indent: usize,
    content: bool,
}

fn lines(text: &str) -> Vec<Line> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let end = text[start..].find('\n').map_or(text.len(), |n| start + n);
        let line = &text[start..end];
        let body = line.trim_start_matches([' ', '\t']);
        let body = body.trim_end_matches('\r');
        out.push(Line {
            start,
            end,
            indent: line.len() - line.trim_start_matches([' ', '\t']).len(),
            content: !body.is_empty() && !body.starts_with('#'),
        });
        start = end + 1;
    }
    out
}

/// Where a block sits in the text.
struct Found {
    lines: Vec<Line>,
    /// The key's line.
    key: usize,
    /// The lines of the block's entries' first lines.
    items: Vec<usize>,
    /// The block's last line with content (the key's own when empty).
    last: usize,
}

impl Block<'_> {
    /// The parsed entries of the block (`None`: no block), refusing a
    /// block of another shape.
    fn entries<'r>(&self, root: &'r Mapping) -> Result<Option<Vec<(usize, &'r Yaml)>>> {
        let Some(block) = root.get(self.key) else {
            return Ok(None);
        };
        let named = |item: &Yaml| item.get("name").and_then(Yaml::as_str) == Some(self.name);
        match (self.shape, block) {
            (_, Yaml::Null) => Ok(Some(Vec::new())),
            (Shape::List, Yaml::Sequence(items)) => Ok(Some(
                items
                    .iter()
                    .enumerate()
                    .filter(|(_, item)| named(item))
                    .collect(),
            )),
            (Shape::Map, Yaml::Mapping(items)) => Ok(Some(
                items
                    .iter()
                    .enumerate()
                    .filter(|(_, (k, _))| k.as_str() == Some(self.name))
                    .map(|(i, (_, v))| (i, v))
                    .collect(),
            )),
            (Shape::List, _) => Err(malformed(
                self.path,
                format!("\"{}\" is not a list", self.key),
            )),
            (Shape::Map, _) => Err(malformed(
                self.path,
                format!("\"{}\" is not a map", self.key),
            )),
        }
    }

    fn len(&self, root: &Mapping) -> usize {
        match root.get(self.key) {
            Some(Yaml::Sequence(items)) => items.len(),
            Some(Yaml::Mapping(items)) => items.len(),
            _ => 0,
        }
    }

    /// The entry named [`Block::name`], as JSON (`None`: there is none).
    pub fn entry(&self, text: &str) -> Result<Option<Value>> {
        let root = parse(self.path, text)?;
        let entries = self.entries(&root)?.unwrap_or_default();
        match entries.first() {
            None => Ok(None),
            Some((_, entry)) => serde_json::to_value(entry)
                .map(Some)
                .map_err(|e| malformed(self.path, e)),
        }
    }

    /// The block's lines in `text`, checked against the parse.
    fn find(&self, text: &str, root: &Mapping) -> Result<Option<Found>> {
        let lines = lines(text);
        let is_key = |l: &Line| {
            let line = &text[l.start..l.end];
            l.indent == 0
                && [format!("{}:", self.key), format!("\"{}\":", self.key)]
                    .iter()
                    .any(|k| line.starts_with(k.as_str()))
        };
        let Some(key) = lines.iter().position(|l| l.content && is_key(l)) else {
            return match root.contains_key(self.key) {
                true => Err(unsafe_shape(
                    self.path,
                    format!("spells its \"{}\" key in a way", self.key),
                )),
                false => Ok(None),
            };
        };
        let line = &text[lines[key].start..lines[key].end];
        let after = line.split_once(':').map_or("", |(_, v)| v).trim();
        if !after.is_empty() && !after.starts_with('#') {
            return Err(unsafe_shape(
                self.path,
                format!("writes its \"{}\" inline (on the key's line)", self.key),
            ));
        }
        let mut end = key + 1;
        while end < lines.len() {
            let l = &lines[end];
            let dash = text[l.start..l.end].starts_with('-') && self.shape == Shape::List;
            if l.content && l.indent == 0 && !dash {
                break;
            }
            end += 1;
        }
        let content: Vec<usize> = (key + 1..end).filter(|&i| lines[i].content).collect();
        let last = content.last().copied().unwrap_or(key);
        let items: Vec<usize> = match content.first() {
            None => Vec::new(),
            Some(&first) => {
                let indent = lines[first].indent;
                content
                    .into_iter()
                    .filter(|&i| lines[i].indent == indent)
                    .filter(|&i| {
                        let body = text[lines[i].start + indent..lines[i].end].starts_with('-');
                        body == (self.shape == Shape::List)
                    })
                    .collect()
            }
        };
        if items.len() != self.len(root) {
            return Err(unsafe_shape(
                self.path,
                format!("holds \"{}\" entries laid out in a way", self.key),
            ));
        }
        Ok(Some(Found {
            lines,
            key,
            items,
            last,
        }))
    }

    /// `entry` as the lines of one item of the block, at `indent`.
    fn render(&self, entry: &Value, indent: usize) -> Result<String> {
        let yaml = serde_norway::to_string(entry).map_err(|e| malformed(self.path, e))?;
        let pad = " ".repeat(indent);
        let mut out = Vec::new();
        match self.shape {
            Shape::List => {
                for (i, line) in yaml.lines().enumerate() {
                    let lead = if i == 0 { "- " } else { "  " };
                    out.push(format!("{pad}{lead}{line}"));
                }
            }
            Shape::Map => {
                let name =
                    serde_norway::to_string(self.name).map_err(|e| malformed(self.path, e))?;
                out.push(format!("{pad}{}:", name.trim_end()));
                for line in yaml.lines() {
                    out.push(format!("{pad}  {line}"));
                }
            }
        }
        Ok(out.join("\n"))
    }

    /// `text` (absent: empty) with `entry` added at the end of the block
    /// (created at the end of the file when missing). The caller has
    /// checked that there is no entry of that name.
    pub fn add(&self, text: Option<&str>, entry: &Value) -> Result<String> {
        let text = text.unwrap_or("");
        let root = parse(self.path, text)?;
        if self.entries(&root)?.is_some_and(|e| !e.is_empty()) {
            return Err(unsafe_shape(
                self.path,
                format!("has an entry {}", self.name),
            ));
        }
        let after = match self.find(text, &root)? {
            None => {
                let item = self.render(entry, 2)?;
                let key = self.key;
                if text.is_empty() || text.ends_with('\n') {
                    format!("{text}{key}:\n{item}\n")
                } else {
                    // The file's last line keeps having no line break.
                    format!("{text}\n{key}:\n{item}")
                }
            }
            Some(found) => {
                let indent = found.items.first().map_or(2, |&i| found.lines[i].indent);
                let at = found.lines[found.last].end;
                let at = at - usize::from(text[..at].ends_with('\r'));
                let item = self.render(entry, indent)?;
                format!("{}\n{item}{}", &text[..at], &text[at..])
            }
        };
        let mut expected = root.clone();
        let value = serde_norway::to_value(entry).map_err(|e| malformed(self.path, e))?;
        match (self.shape, expected.get_mut(self.key)) {
            (Shape::List, Some(Yaml::Sequence(items))) => items.push(value),
            (Shape::Map, Some(Yaml::Mapping(items))) => {
                items.insert(self.name.into(), value);
            }
            (shape, _) => {
                let block = match shape {
                    Shape::List => Yaml::Sequence(vec![value]),
                    Shape::Map => {
                        Yaml::Mapping([(Yaml::from(self.name), value)].into_iter().collect())
                    }
                };
                expected.insert(self.key.into(), block);
            }
        }
        self.checked(after, &expected)
    }

    /// `text` without the entry (and without its block when nothing else
    /// is left in it); `None` when there is no such entry.
    pub fn remove(&self, text: &str) -> Result<Option<String>> {
        let root = parse(self.path, text)?;
        let Some(index) = self
            .entries(&root)?
            .and_then(|e| e.first().map(|(i, _)| *i))
        else {
            return Ok(None);
        };
        let found = self
            .find(text, &root)?
            .ok_or_else(|| unsafe_shape(self.path, format!("holds \"{}\" in a way", self.key)))?;
        let lines = &found.lines;
        let first = found.items[index];
        let last = match found.items.get(index + 1) {
            Some(&next) => (first..next).rfind(|&i| lines[i].content).unwrap_or(first),
            None => found.last,
        };
        // Install's own block: the key's bare line, then the one entry.
        let key_line = &text[lines[found.key].start..lines[found.key].end];
        let alone = found.items.len() == 1
            && first == found.key + 1
            && key_line.trim_end() == format!("{}:", self.key);
        let mut expected = root.clone();
        let after = if alone {
            expected.remove(self.key);
            let (from, to) = match lines[last].end {
                end if end < text.len() => (lines[found.key].start, end + 1),
                end => (lines[found.key].start.saturating_sub(1), end),
            };
            format!("{}{}", &text[..from], &text[to..])
        } else {
            match expected.get_mut(self.key) {
                Some(Yaml::Sequence(items)) => {
                    items.remove(index);
                }
                Some(Yaml::Mapping(items)) => {
                    items.shift_remove(self.name);
                }
                _ => {}
            }
            let mut end = lines[last].end;
            end -= usize::from(text[..end].ends_with('\r'));
            let from = lines[first].start - 1;
            let from = from - usize::from(text[..from].ends_with('\r'));
            format!("{}{}", &text[..from], &text[end..])
        };
        self.checked(after, &expected).map(Some)
    }

    /// `after` when it parses to `expected`, else the refusal.
    fn checked(&self, after: String, expected: &Mapping) -> Result<String> {
        match parse(self.path, &after) {
            Ok(root) if root == *expected => Ok(after),
            _ => Err(unsafe_shape(
                self.path,
                format!("holds \"{}\" in a way", self.key),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn block(shape: Shape) -> Block<'static> {
        Block {
            path: Path::new("/x/config.yaml"),
            key: match shape {
                Shape::List => "mcpServers",
                Shape::Map => "extensions",
            },
            shape,
            name: "session-ref",
        }
    }

    fn entry(shape: Shape) -> Value {
        match shape {
            Shape::List => {
                json!({"name": "session-ref", "command": "/b/session-ref", "args": ["mcp"]})
            }
            Shape::Map => {
                json!({"enabled": true, "type": "stdio", "name": "session-ref", "cmd": "/b/session-ref", "args": ["mcp"], "timeout": 300})
            }
        }
    }

    #[test]
    fn an_added_entry_is_removed_to_the_byte() {
        for (shape, original) in [
            (Shape::List, ""),
            (Shape::List, "name: Mine\nversion: 1.0.0\n"),
            (Shape::List, "name: Mine # who\nversion: 1.0.0"),
            (Shape::List, "mcpServers:\n  - name: docs # mine\n    command: docs-mcp\n\n# models\nmodels: []\n"),
            (Shape::List, "mcpServers:\n- name: docs\n  command: docs-mcp\n  args:\n  - x\nrules: []\n"),
            (Shape::List, "# top\nmcpServers:\n    - name: a\n      command: a\n    # between\n    - name: b\n      command: b\n"),
            (Shape::Map, "GOOSE_PROVIDER: openai\nextensions:\n  developer:\n    enabled: true\n    type: builtin\n    name: developer\n    timeout: 300\n    bundled: true\nGOOSE_MODEL: gpt-4o\n"),
            (Shape::Map, "extensions:\n    todo: {enabled: true, type: platform, name: todo, description: ''}\n"),
        ] {
            let b = block(shape);
            let added = b.add(Some(original), &entry(shape)).unwrap();
            assert_eq!(b.entry(&added).unwrap(), Some(entry(shape)), "{added}");
            assert_eq!(b.remove(&added).unwrap().as_deref(), Some(original), "{added}");
        }
    }

    #[test]
    fn a_new_block_is_what_the_agents_write() {
        let b = block(Shape::List);
        assert_eq!(
            b.add(None, &entry(Shape::List)).unwrap(),
            "mcpServers:\n  - name: session-ref\n    command: /b/session-ref\n    args:\n    - mcp\n"
        );
        let g = block(Shape::Map);
        assert_eq!(
            g.add(Some("GOOSE_MODEL: x\n"), &entry(Shape::Map)).unwrap(),
            "GOOSE_MODEL: x\nextensions:\n  session-ref:\n    enabled: true\n    type: stdio\n    name: session-ref\n    cmd: /b/session-ref\n    args:\n    - mcp\n    timeout: 300\n"
        );
    }

    #[test]
    fn an_entry_in_an_emptied_block_leaves_the_block() {
        let b = block(Shape::List);
        let original = "mcpServers:\n  - name: other\n    command: x\n";
        let added = b.add(Some(original), &entry(Shape::List)).unwrap();
        let mine = "mcpServers:\n  - name: session-ref\n    command: /b/session-ref\n    args:\n    - mcp\n";
        let removed_other = added.replace("  - name: other\n    command: x\n", "");
        assert_eq!(removed_other, mine);
        assert_eq!(b.remove(mine).unwrap().as_deref(), Some(""));
        assert_eq!(b.remove(original).unwrap(), None);
    }

    #[test]
    fn shapes_it_cannot_edit_are_refused() {
        let b = block(Shape::List);
        for text in [
            "mcpServers: []\n",
            "mcpServers: [{name: a, command: b}]\n",
            "mcpServers:\n  name: a\n",
            "- a\n- b\n",
            "mcpServers:\n  - name: a\n  command: b\n",
            "{mcpServers: []}\n",
            "a: 1\n---\nb: 2\n",
            "mcpServers:\n  - name: [\n",
        ] {
            assert!(b.add(Some(text), &entry(Shape::List)).is_err(), "{text}");
        }
        let g = block(Shape::Map);
        assert!(g
            .add(Some("extensions:\n  - a\n"), &entry(Shape::Map))
            .is_err());
        assert!(g
            .add(Some("extensions:\n  session-ref: {}\n"), &entry(Shape::Map))
            .is_err());
    }
}
