//! JSON settings with comments (JSONC), edited in place: [`JsonDoc`] changes
//! one property or array element of the text and keeps every other byte,
//! so what an install inserts an uninstall removes to the byte. The edits
//! are spliced into the text at the ranges `jsonc_parser`'s AST gives.

use std::path::Path;

use jsonc_parser::common::Ranged;
use serde_json::Value;

use super::malformed::malformed;
use crate::error::Result;

fn parse_options() -> jsonc_parser::ParseOptions {
    // Comments and trailing commas (JSONC, as the agents that accept
    // comments read it); none of JSON5's other liberties.
    jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

/// The value of a JSON settings text, comments allowed (blank = `{}`).
pub fn parse_json(path: &Path, text: &str) -> Result<Value> {
    if text.trim().is_empty() {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    jsonc_parser::parse_to_serde_value::<Value>(text, &parse_options())
        .map_err(|e| malformed(path, e))
}

/// A JSON settings text (absent or blank = `{}`) as a document to edit,
/// with its top-level object, refusing anything but an object.
pub fn json_object(
    path: &Path,
    text: Option<&str>,
) -> Result<(JsonDoc, serde_json::Map<String, Value>)> {
    let doc = JsonDoc::new(path, text)?;
    match doc.value() {
        Value::Object(root) => Ok((doc, root)),
        _ => Err(malformed(path, "the top level is not an object")),
    }
}

/// One step of a path into a JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step<'a> {
    /// An object's property.
    Key(&'a str),
    /// An array's element.
    Index(usize),
}

/// A JSON settings text being edited in place.
#[derive(Debug, Clone)]
pub struct JsonDoc {
    text: String,
}

/// Where a node is: its range, and for objects and arrays its children's
/// ranges (for an object, each property's whole range).
struct Node {
    start: usize,
    end: usize,
    children: Vec<(usize, usize)>,
    is_object: bool,
    is_array: bool,
}

fn node_of(value: &jsonc_parser::ast::Value<'_>) -> Node {
    use jsonc_parser::ast::Value as V;
    let range = value.range();
    let (children, is_object, is_array) = match value {
        V::Object(o) => (
            o.properties
                .iter()
                .map(|p| (p.range.start, p.range.end))
                .collect(),
            true,
            false,
        ),
        V::Array(a) => (
            a.elements
                .iter()
                .map(|e| (e.range().start, e.range().end))
                .collect(),
            false,
            true,
        ),
        _ => (Vec::new(), false, false),
    };
    Node {
        start: range.start,
        end: range.end,
        children,
        is_object,
        is_array,
    }
}

impl JsonDoc {
    /// A document of `text` (blank = `{}`), refusing a text that is not a
    /// JSON object.
    pub fn new(path: &Path, text: Option<&str>) -> Result<JsonDoc> {
        let text = match text {
            Some(text) if !text.trim().is_empty() => text.to_owned(),
            _ => "{}\n".to_owned(),
        };
        if !parse_json(path, &text)?.is_object() {
            return Err(malformed(path, "the top level is not an object"));
        }
        Ok(JsonDoc { text })
    }

    /// The text as it stands.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The value as it stands.
    pub fn value(&self) -> Value {
        jsonc_parser::parse_to_serde_value::<Value>(&self.text, &parse_options())
            .unwrap_or(Value::Null)
    }

    /// The node at `path`, with the index of a property's value when the
    /// last step is a key (the property's own range is then a child of the
    /// parent).
    fn node(&self, path: &[Step<'_>]) -> Option<Node> {
        self.at(path, |value| Some(node_of(value)))
    }

    /// The position of property `key` among the object at `path`'s.
    fn key_index(&self, path: &[Step<'_>], key: &str) -> Option<usize> {
        self.at(path, |value| match value {
            jsonc_parser::ast::Value::Object(o) => {
                o.properties.iter().rposition(|p| p.name.as_str() == key)
            }
            _ => None,
        })
    }

    /// `read` of the value at `path` in the text parsed afresh (the last
    /// property of a repeated key, as JSON readers take it); `None` when
    /// the text does not parse or nothing is at `path`.
    fn at<R>(
        &self,
        path: &[Step<'_>],
        read: impl FnOnce(&jsonc_parser::ast::Value<'_>) -> Option<R>,
    ) -> Option<R> {
        let parsed = jsonc_parser::parse_to_ast(
            &self.text,
            &jsonc_parser::CollectOptions::default(),
            &parse_options(),
        )
        .ok()?;
        let mut value = parsed.value.as_ref()?;
        for step in path {
            value = match (step, value) {
                (Step::Key(key), jsonc_parser::ast::Value::Object(o)) => {
                    &o.properties
                        .iter()
                        .rev()
                        .find(|p| p.name.as_str() == *key)?
                        .value
                }
                (Step::Index(i), jsonc_parser::ast::Value::Array(a)) => a.elements.get(*i)?,
                _ => return None,
            };
        }
        read(value)
    }

    /// The indentation unit of the text: the whitespace before the first
    /// line that starts with some, else two spaces.
    fn unit(&self) -> String {
        for line in self.text.lines().skip(1) {
            let ws: String = line
                .chars()
                .take_while(|c| *c == ' ' || *c == '\t')
                .collect();
            if !ws.is_empty() && ws.len() < line.len() {
                return if ws.starts_with('\t') {
                    "\t".to_owned()
                } else {
                    ws
                };
            }
        }
        "  ".to_owned()
    }

    /// The leading whitespace of the line holding byte `at`.
    fn indent_at(&self, at: usize) -> String {
        let line_start = self.text[..at].rfind('\n').map_or(0, |i| i + 1);
        self.text[line_start..]
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect()
    }

    /// Whether byte `at` is the first non-blank one of its line.
    fn starts_line(&self, at: usize) -> bool {
        let line_start = self.text[..at].rfind('\n').map_or(0, |i| i + 1);
        self.text[line_start..at]
            .chars()
            .all(|c| c == ' ' || c == '\t')
    }

    /// `value` as JSON text: pretty (lines after the first indented by
    /// `indent`) or compact.
    fn render(&self, value: &Value, indent: &str, pretty: bool) -> String {
        if !pretty {
            return serde_json::to_string(value).expect("JSON serializes");
        }
        let unit = self.unit();
        let mut out = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
        let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
        serde::Serialize::serialize(value, &mut ser).expect("JSON serializes");
        let text = String::from_utf8(out).expect("JSON is UTF-8");
        text.replace('\n', &format!("\n{indent}"))
    }

    /// The first `,` in `[from, to)`, skipping comments.
    fn comma_in(&self, from: usize, to: usize) -> Option<usize> {
        let bytes = self.text.as_bytes();
        let mut i = from;
        while i < to {
            match bytes[i] {
                b',' => return Some(i),
                b'/' if bytes.get(i + 1) == Some(&b'/') => {
                    i = self.text[i..].find('\n').map_or(to, |n| i + n);
                }
                b'/' if bytes.get(i + 1) == Some(&b'*') => {
                    i = self.text[i + 2..].find("*/").map_or(to, |n| i + 2 + n + 2);
                }
                _ => i += 1,
            }
        }
        None
    }

    /// The end of the line from `from` when only blanks and comments follow
    /// on it (the `\n`'s position), else where something else starts.
    fn line_end_after(&self, from: usize, to: usize) -> usize {
        let bytes = self.text.as_bytes();
        let mut i = from;
        while i < to {
            match bytes[i] {
                b' ' | b'\t' | b'\r' => i += 1,
                b'/' if bytes.get(i + 1) == Some(&b'/') => {
                    return self.text[i..].find('\n').map_or(to, |n| i + n).min(to);
                }
                b'/' if bytes.get(i + 1) == Some(&b'*') => match self.text[i + 2..].find("*/") {
                    Some(n) if !self.text[i..i + 2 + n].contains('\n') => i = i + 2 + n + 2,
                    _ => return i,
                },
                _ => return i,
            }
        }
        to
    }

    /// The start of the blanks (line breaks included) just before `at`.
    fn blanks_before(&self, at: usize) -> usize {
        let trimmed = self.text[..at].trim_end_matches([' ', '\t', '\r', '\n']);
        trimmed.len()
    }

    fn splice(&mut self, edits: &mut [(usize, usize, String)]) {
        edits.sort_by_key(|e| std::cmp::Reverse(e.0));
        for (from, to, with) in edits.iter() {
            self.text.replace_range(*from..*to, with);
        }
    }

    /// Add `item` (an object's `"key": value` when `key` is given, else an
    /// array's element) at the end of the container `node`.
    fn append(&mut self, node: &Node, key: Option<&str>, value: &Value) {
        let open_indent = self.indent_at(node.start);
        let item = |doc: &Self, indent: &str, pretty: bool| {
            let rendered = doc.render(value, indent, pretty);
            match key {
                Some(key) => {
                    let key = serde_json::to_string(key).expect("a string serializes");
                    if pretty {
                        format!("{key}: {rendered}")
                    } else {
                        format!("{key}:{rendered}")
                    }
                }
                None => rendered,
            }
        };
        let close = node.end - 1;
        let Some(&(_, last_end)) = node.children.last() else {
            let inside = &self.text[node.start + 1..close];
            let indent = format!("{open_indent}{}", self.unit());
            let text = format!("\n{indent}{}", item(self, &indent, true));
            if inside.trim().is_empty() {
                let edit = (node.start + 1, close, format!("{text}\n{open_indent}"));
                self.splice(&mut [edit]);
            } else {
                let at = self.blanks_before(close);
                let tail = if at == close {
                    format!("\n{open_indent}")
                } else {
                    String::new()
                };
                self.splice(&mut [(at, at, format!("{text}{tail}"))]);
            }
            return;
        };
        let pretty = self.text[node.start..node.end].contains('\n');
        let trailing = self.comma_in(last_end, close);
        if !pretty {
            let edit = match trailing {
                Some(comma) => (comma + 1, comma + 1, format!("{},", item(self, "", false))),
                None => (last_end, last_end, format!(",{}", item(self, "", false))),
            };
            self.splice(&mut [edit]);
            return;
        }
        let (last_start, _) = *node.children.last().expect("not empty");
        let indent = if self.starts_line(last_start) {
            self.indent_at(last_start)
        } else {
            format!("{open_indent}{}", self.unit())
        };
        let after = trailing.map_or(last_end, |comma| comma + 1);
        let at = self.line_end_after(after, close);
        let mut text = format!("\n{indent}{}", item(self, &indent, true));
        if trailing.is_some() {
            text.push(',');
        }
        if at == close || self.text.as_bytes()[at] != b'\n' {
            text.push_str(&format!("\n{open_indent}"));
        }
        let mut edits = vec![(at, at, text)];
        if trailing.is_none() {
            edits.push((last_end, last_end, ",".to_owned()));
        }
        self.splice(&mut edits);
    }

    /// Remove child `index` of the container `node`, with its separator and
    /// the blanks before it (the inverse of [`JsonDoc::append`]).
    fn remove_child(&mut self, node: &Node, index: usize) {
        let (start, end) = node.children[index];
        let close = node.end - 1;
        let prev_end = index
            .checked_sub(1)
            .map_or(node.start + 1, |i| node.children[i].1);
        let next_start = node.children.get(index + 1).map_or(close, |c| c.0);
        let blank = |from: usize, to: usize| self.text[from..to].trim().is_empty();
        if node.children.len() == 1 && blank(node.start + 1, start) && blank(end, close) {
            self.splice(&mut [(node.start + 1, close, String::new())]);
            return;
        }
        let from = self.blanks_before(start).max(prev_end);
        let mut edits = vec![(from, end, String::new())];
        match self.comma_in(end, next_start) {
            Some(comma) => edits.push((comma, comma + 1, String::new())),
            None => {
                if let Some(comma) = self.comma_in(prev_end, start) {
                    edits.push((comma, comma + 1, String::new()));
                }
            }
        }
        self.splice(&mut edits);
    }

    /// Set `key` of the object at `path` to `value`: its value replaced in
    /// place when the key is there, else the property appended. Missing
    /// objects on the way are created (as one inserted property).
    pub fn set(&mut self, path: &[Step<'_>], key: &str, value: &Value) -> bool {
        for depth in 0..path.len() {
            if self.node(&path[..=depth]).is_none() {
                let Step::Key(missing) = path[depth] else {
                    return false;
                };
                let mut nested = serde_json::Map::new();
                nested.insert(key.to_owned(), value.clone());
                let mut built = Value::Object(nested);
                for step in path[depth + 1..].iter().rev() {
                    let Step::Key(k) = step else { return false };
                    let mut outer = serde_json::Map::new();
                    outer.insert((*k).to_owned(), built);
                    built = Value::Object(outer);
                }
                return self.set(&path[..depth], missing, &built);
            }
        }
        let Some(node) = self.node(path).filter(|n| n.is_object) else {
            return false;
        };
        if let Some(child) = self.node(&[path, &[Step::Key(key)]].concat()) {
            let indent = self.indent_at(child.start);
            let pretty = self.text[node.start..node.end].contains('\n');
            let text = self.render(value, &indent, pretty);
            self.splice(&mut [(child.start, child.end, text)]);
        } else {
            self.append(&node, Some(key), value);
        }
        true
    }

    /// Append `value` to the array at `path` (created, with the objects on
    /// the way, when missing).
    pub fn push(&mut self, path: &[Step<'_>], value: &Value) -> bool {
        match self.node(path) {
            Some(node) if node.is_array => {
                self.append(&node, None, value);
                true
            }
            Some(_) => false,
            None => match path.split_last() {
                Some((Step::Key(key), parent)) => {
                    self.set(parent, key, &Value::Array(vec![value.clone()]))
                }
                _ => false,
            },
        }
    }

    /// Replace the value at `path` (which must exist) by `value`.
    pub fn replace(&mut self, path: &[Step<'_>], value: &Value) -> bool {
        let Some(node) = self.node(path) else {
            return false;
        };
        let indent = self.indent_at(node.start);
        let pretty = self.text[node.start..node.end].contains('\n') || self.starts_line(node.start);
        let text = self.render(value, &indent, pretty);
        self.splice(&mut [(node.start, node.end, text)]);
        true
    }

    /// Remove the value at `path` (a property or an array element) with
    /// its separator; `false` when there is none.
    pub fn delete(&mut self, path: &[Step<'_>]) -> bool {
        let Some((last, parent_path)) = path.split_last() else {
            return false;
        };
        let Some(parent) = self.node(parent_path) else {
            return false;
        };
        let index = match last {
            Step::Key(key) if parent.is_object => self.key_index(parent_path, key),
            Step::Index(i) if parent.is_array && *i < parent.children.len() => Some(*i),
            _ => None,
        };
        let Some(index) = index else {
            return false;
        };
        self.remove_child(&parent, index);
        true
    }
}

/// A new settings file holding `value`: two-space indented, final newline.
pub fn render_new(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("JSON serializes");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const P: &str = "/x/settings.json";

    fn doc(text: &str) -> JsonDoc {
        JsonDoc::new(Path::new(P), Some(text)).unwrap()
    }

    #[test]
    fn an_inserted_property_is_removed_to_the_byte() {
        for original in [
            "{\n  \"a\": 1\n}\n",
            "{\n  \"a\": 1 // mine\n}\n",
            "// top\n{\n    \"a\": [1, 2], /* b */\n    \"c\": {}\n}",
            "{\n  \"a\": 1,\n}\n",
            "{\"a\":1}",
            "{}",
            "{\n\t\"a\": {\n\t\t\"b\": true\n\t}\n}\n",
        ] {
            let mut d = doc(original);
            assert!(d.set(
                &[Step::Key("srv")],
                "session-ref",
                &json!({"command": "x", "args": ["mcp"]})
            ));
            let value = d.value();
            assert_eq!(
                value["srv"]["session-ref"]["args"],
                json!(["mcp"]),
                "{}",
                d.text()
            );
            assert!(d.delete(&[Step::Key("srv")]), "{}", d.text());
            assert_eq!(d.text(), original, "round trip of {original:?}");
        }
    }

    #[test]
    fn array_elements_round_trip() {
        for original in [
            "{\"allow\": [\"Bash(ls)\"]}\n",
            "{\n  \"allow\": [\n    \"Bash(ls)\" // ok\n  ]\n}\n",
            "{\n  \"allow\": []\n}\n",
        ] {
            let mut d = doc(original);
            assert!(d.push(&[Step::Key("allow")], &json!("mcp__x")));
            let allowed = d.value()["allow"].as_array().unwrap().clone();
            assert_eq!(allowed.last().unwrap(), "mcp__x", "{}", d.text());
            let at = allowed.len() - 1;
            assert!(d.delete(&[Step::Key("allow"), Step::Index(at)]));
            assert_eq!(d.text(), original);
        }
    }

    #[test]
    fn comments_stay_where_they_are() {
        let original =
            "{\n  // the theme\n  \"theme\": \"dark\", // trailing\n  /* last */ \"n\": 3\n}\n";
        let mut d = doc(original);
        d.set(
            &[Step::Key("mcpServers")],
            "session-ref",
            &json!({"command": "x"}),
        );
        let text = d.text().to_owned();
        assert!(text.starts_with("{\n  // the theme\n  \"theme\": \"dark\", // trailing\n  /* last */ \"n\": 3,\n  \"mcpServers\": {\n    \"session-ref\": {\n      \"command\": \"x\"\n    }\n  }\n}"), "{text}");
        d.delete(&[Step::Key("mcpServers")]);
        assert_eq!(d.text(), original);
    }

    #[test]
    fn non_objects_and_json5_are_refused() {
        assert!(JsonDoc::new(Path::new(P), Some("[]")).is_err());
        assert!(JsonDoc::new(Path::new(P), Some("{a: 1}")).is_err());
        assert!(JsonDoc::new(Path::new(P), Some("{\"a\": 'x'}")).is_err());
        assert!(JsonDoc::new(Path::new(P), Some("{\"a\": 1} // ok")).is_ok());
    }
}
