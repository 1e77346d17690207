//! A JSON document an agent rewrites whole after each turn (Continue's
//! session file, Kimi's `state.json`), read as far as it is whole: a reader
//! can meet a prefix while the agent writes, and the members and list items
//! complete before the cut are still what the session says.
//!
//! The list's items are values by default; [`parse_with`] reads them as
//! another type, such as `&RawValue` (each item checked and kept as its
//! bytes, nothing built), for a reader that needs only a few of them.

use std::marker::PhantomData;

use serde::de::{Deserialize, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// A JSON object read as far as it is whole, its list's items as `I`.
#[derive(Debug, Clone, PartialEq)]
pub struct TornObject<I = Value> {
    /// Every member that was whole (not the list).
    pub members: Map<String, Value>,
    /// The items of the list member, each pushed once it parsed.
    pub items: Vec<I>,
    /// Whether the list member was met (even empty, or null).
    pub has_list: bool,
    /// Whether the bytes ended before the object did.
    pub torn: bool,
}

impl<I> Default for TornObject<I> {
    fn default() -> Self {
        TornObject {
            members: Map::new(),
            items: Vec::new(),
            has_list: false,
            torn: false,
        }
    }
}

impl<I> TornObject<I> {
    /// Member `key` as a string, when it is a non-blank one.
    pub fn text(&self, key: &str) -> Option<&str> {
        self.members
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
    }
}

/// The object in `bytes`, its member `list` (an array) read item by item.
/// Bytes cut short give what was whole before the cut; any other malformed
/// JSON (or a document that is not an object) is an error.
pub fn parse(bytes: &[u8], list: &str) -> Result<TornObject, serde_json::Error> {
    parse_with(bytes, list)
}

/// [`parse`], the list's items read as `I` (the same rules: what was whole
/// before a cut, and an error for any other malformed JSON).
pub fn parse_with<'de, I: Deserialize<'de>>(
    bytes: &'de [u8],
    list: &str,
) -> Result<TornObject<I>, serde_json::Error> {
    let mut object = TornObject::default();
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let read = Top {
        into: &mut object,
        list,
    }
    .deserialize(&mut de)
    .and_then(|()| de.end());
    match read {
        Ok(()) => Ok(object),
        Err(e) if e.is_eof() => {
            object.torn = true;
            Ok(object)
        }
        Err(e) => Err(e),
    }
}

struct Top<'c, I> {
    into: &'c mut TornObject<I>,
    list: &'c str,
}

impl<'de, I: Deserialize<'de>> DeserializeSeed<'de> for Top<'_, I> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, I: Deserialize<'de>> Visitor<'de> for Top<'_, I> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key == self.list {
                self.into.has_list = true;
                map.next_value_seed(Items(&mut self.into.items, PhantomData))?;
            } else {
                let value: Value = map.next_value()?;
                self.into.members.insert(key, value);
            }
        }
        Ok(())
    }
}

struct Items<'c, 'de, I>(&'c mut Vec<I>, PhantomData<&'de ()>);

impl<'de, I: Deserialize<'de>> DeserializeSeed<'de> for Items<'_, 'de, I> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, I: Deserialize<'de>> Visitor<'de> for Items<'_, 'de, I> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array, or null")
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(item) = seq.next_element::<I>()? {
            self.0.push(item);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_object_gives_its_members_and_list() {
        let read = parse(br#"{"a":"x","h":[1,{"b":2}],"n":null}"#, "h").unwrap();
        assert_eq!(read.text("a"), Some("x"));
        assert_eq!(
            read.items,
            [serde_json::json!(1), serde_json::json!({"b": 2})]
        );
        assert!(!read.torn);
        assert!(read.members.contains_key("n"));
    }

    #[test]
    fn a_cut_object_gives_what_was_whole() {
        let whole = br#"{"a":"x","h":[{"m":1},{"m":2}],"usage":{"t":3}}"#;
        for cut in 1..whole.len() {
            let read = parse(&whole[..cut], "h").unwrap();
            assert!(read.torn, "{cut}");
            assert!(read.items.len() <= 2);
            if cut > 29 {
                assert_eq!(read.items.len(), 2, "{cut}");
            }
        }
        assert!(parse(b"[1]", "h").is_err());
        // Items kept as their bytes follow the same rules, cut or whole.
        for cut in 1..=whole.len() {
            let bytes = &whole[..cut];
            let raw = parse_with::<&serde_json::value::RawValue>(bytes, "h").unwrap();
            let values = parse(bytes, "h").unwrap();
            let reparsed: Vec<Value> = raw
                .items
                .iter()
                .map(|r| serde_json::from_str(r.get()).unwrap())
                .collect();
            assert_eq!(reparsed, values.items, "{cut}");
            assert_eq!((raw.members, raw.torn), (values.members, values.torn));
        }
        assert!(parse(br#"{"a":x}"#, "h").is_err());
    }
}
