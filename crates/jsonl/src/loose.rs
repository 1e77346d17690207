//! The one lenient-JSON toolkit of the store readers: allocation-light
//! pieces for reading logs in one pass.
//!
//! Log readers must tell "not JSON" (a torn tail) from "JSON of another
//! shape" and must not fail on unexpected types where the model tolerates
//! them (a block whose `text` is a number is just not a text block). Parsing
//! into `serde_json::Value` does that but allocates a tree for every line;
//! instead, [`Loose`] and [`LooseBlock`] borrow strings from the line and
//! skip everything else, and the field helpers ([`string`], [`is_str`], …)
//! read `&RawValue` fields of a borrowed envelope only when asked.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use crate::envelope;
use session_ref_core::model::Block;

/// Any JSON value, keeping only what the readers look at.
#[derive(Debug, Clone, PartialEq)]
pub enum Loose<'a> {
    /// A string, borrowed from the input when it has no escapes.
    Str(Cow<'a, str>),
    /// A non-negative integer.
    U64(u64),
    /// A negative integer.
    I64(i64),
    /// Any other number.
    F64(f64),
    /// `true`, `false`, `null`, an array or an object.
    Other,
}

/// The largest integer JavaScript holds exactly.
const MAX_SAFE: u64 = (1 << 53) - 1;

impl<'a> Loose<'a> {
    /// The string, when it is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Loose::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The string, owned, when it is one.
    pub fn into_string(self) -> Option<String> {
        match self {
            Loose::Str(s) => Some(s.into_owned()),
            _ => None,
        }
    }

    /// A non-negative integer JavaScript holds exactly (`3`, `3.0`, `3e0`).
    pub fn whole_number(&self) -> Option<u64> {
        match *self {
            Loose::U64(v) if v <= MAX_SAFE => Some(v),
            Loose::F64(f) if f.fract() == 0.0 && (0.0..=MAX_SAFE as f64).contains(&f) => {
                Some(f as u64)
            }
            _ => None,
        }
    }
}

struct LooseVisitor;

impl<'de> Visitor<'de> for LooseVisitor {
    type Value = Loose<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Loose::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Loose::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Loose::Str(Cow::Owned(v)))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Loose::U64(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(if v >= 0 {
            Loose::U64(v as u64)
        } else {
            Loose::I64(v)
        })
    }
    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Loose::F64(v))
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Loose::Other)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Loose::Other)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Loose::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Loose::Other)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Loose<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(LooseVisitor)
    }
}

/// A content block: `{"type":"text","text":S}` is text; anything else
/// (another type, a non-string text, not even an object) is kept as other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LooseBlock(pub Block);

struct BlockVisitor;

impl<'de> Visitor<'de> for BlockVisitor {
    type Value = LooseBlock;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a content block")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut kind = None;
        let mut text = None;
        // Later duplicate keys win, as in JavaScript.
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match key.as_ref() {
                "type" => kind = Some(map.next_value::<Loose<'de>>()?),
                "text" => text = Some(map.next_value::<Loose<'de>>()?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(LooseBlock(match (kind, text) {
            (Some(Loose::Str(k)), Some(Loose::Str(t))) if k == "text" => {
                Block::Text(t.into_owned())
            }
            (Some(Loose::Str(k)), _) => Block::Other(k.into_owned()),
            _ => Block::Other(String::new()),
        }))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        LooseVisitor
            .visit_seq(seq)
            .map(|_| LooseBlock(Block::Other(String::new())))
    }
    fn visit_borrowed_str<E>(self, _: &'de str) -> Result<Self::Value, E> {
        Ok(LooseBlock(Block::Other(String::new())))
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(LooseBlock(Block::Other(String::new())))
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(LooseBlock(Block::Other(String::new())))
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(LooseBlock(Block::Other(String::new())))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(LooseBlock(Block::Other(String::new())))
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(LooseBlock(Block::Other(String::new())))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(LooseBlock(Block::Other(String::new())))
    }
}

impl<'de> Deserialize<'de> for LooseBlock {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(BlockVisitor)
    }
}

/// Unwrap a list of loose blocks.
pub fn blocks(list: Vec<LooseBlock>) -> Vec<Block> {
    list.into_iter().map(|b| b.0).collect()
}

/// `serde_json::from_slice` of a log line, faster: a line that is UTF-8
/// (checked at once, with SIMD) is read as text, which `serde_json` does not
/// check again, where reading bytes checks every borrowed string and raw
/// value with `std::str::from_utf8` (most of the time a Claude Code line
/// took). The same result either way: on UTF-8 the two reads agree, and a
/// line that is not UTF-8 is read as bytes, as before.
pub fn from_line<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8]) -> serde_json::Result<T> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_slice(bytes),
    }
}

/// A value's fields read by `scan` (the envelope scanner, through
/// [`scan_fields`]), or by `serde_json` where `scan` is in doubt.
pub fn scan_or_parse<'a, T: serde::Deserialize<'a>>(
    text: &'a str,
    scan: impl FnOnce(&'a str) -> Option<T>,
) -> Option<T> {
    scan(text).or_else(|| serde_json::from_str(text).ok())
}

/// [`scan_or_parse`] of a log line: its UTF-8 checked once, as for
/// [`from_line`] (a line that is not UTF-8 is read as bytes).
pub fn scan_or_parse_line<'a, T: serde::Deserialize<'a>>(
    bytes: &'a [u8],
    scan: impl FnOnce(&'a str) -> Option<T>,
) -> Option<T> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => scan_or_parse(text, scan),
        Err(_) => serde_json::from_slice(bytes).ok(),
    }
}

/// Whether `bytes` is well-formed JSON at all (tells a torn tail from a bad
/// shape). Text that is not UTF-8 is not JSON, even where the JSON scanner
/// would pass over the bad bytes inside a string it ignores.
pub fn is_json(bytes: &[u8]) -> bool {
    std::str::from_utf8(bytes).is_ok() && serde_json::from_slice::<IgnoredAny>(bytes).is_ok()
}

/// The text of a JSON value as a field of a line holds it, without the
/// spaces around it: what the field helpers below read. A borrowed
/// [`RawValue`] is one; so is a [`RawText`].
pub trait JsonText: Copy {
    /// The value's JSON text.
    fn json(&self) -> &str;
}

impl JsonText for &RawValue {
    fn json(&self) -> &str {
        self.get()
    }
}

/// A value's JSON text, borrowed from its line: what a `&RawValue` field
/// holds, but which a scanner that has already checked the text can make
/// without `serde_json` checking it again (`serde_json` cannot borrow a
/// `RawValue` from a string otherwise). Read from JSON, it is the text of
/// a `&RawValue`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawText<'a>(pub &'a str);

impl JsonText for RawText<'_> {
    fn json(&self) -> &str {
        self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for RawText<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        <&'de RawValue>::deserialize(deserializer).map(|raw| RawText(raw.get()))
    }
}

/// The fields `keys` of the JSON object `text`, each as its raw text
/// (`null` as absent, as `Option<&RawValue>` reads it), read by the
/// envelope scanner; `None` when it is in doubt, a field given twice
/// included (which a derived `Deserialize` refuses): the object is then
/// read by `serde_json`. Where it answers, a struct of these fields as
/// `Option<&RawValue>` reads the same texts.
pub fn scan_fields<'a, const N: usize>(
    text: &'a str,
    keys: [&str; N],
) -> Option<[Option<RawText<'a>>; N]> {
    let mut found = [None; N];
    let mut seen = [false; N];
    envelope::object_members(text, |key, raw| {
        if let Some(at) = keys.iter().position(|&k| k == key) {
            if std::mem::replace(&mut seen[at], true) {
                return None;
            }
            found[at] = (raw != "null").then_some(RawText(raw));
        }
        Some(())
    })?;
    Some(found)
}

/// The elements of a JSON array value, as raw text (non-arrays give
/// nothing): read by the envelope scanner, or by `serde_json` when it is in
/// doubt.
pub fn raw_elements(raw: Option<RawText<'_>>) -> Vec<RawText<'_>> {
    let Some(RawText(text)) = raw else {
        return Vec::new();
    };
    let mut found = Vec::new();
    if envelope::array_elements(text, |element| {
        found.push(RawText(element));
        Some(())
    })
    .is_some()
    {
        return found;
    }
    serde_json::from_str::<Vec<RawText<'_>>>(text).unwrap_or_default()
}

/// A JSON string value, or `None` for anything else (absent, null, number, …).
pub fn string(raw: Option<impl JsonText>) -> Option<String> {
    let raw = raw?;
    if !raw.json().starts_with('"') {
        return None;
    }
    serde_json::from_str(raw.json()).ok()
}

/// A JSON string value that is not empty.
pub fn non_empty(raw: Option<impl JsonText>) -> Option<String> {
    string(raw).filter(|s| !s.is_empty())
}

/// Whether a JSON value is literally `true`.
pub fn is_true(raw: Option<impl JsonText>) -> bool {
    raw.is_some_and(|r| r.json() == "true")
}

/// Whether a JSON value is the string `expected` (compared without
/// allocating when the value holds no escapes).
pub fn is_str(raw: Option<impl JsonText>, expected: &str) -> bool {
    let Some(raw) = raw else { return false };
    let text = raw.json();
    if let Some(inner) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        if !inner.contains('\\') {
            return inner == expected;
        }
        return serde_json::from_str::<String>(text).is_ok_and(|s| s == expected);
    }
    false
}

/// The elements of a JSON array value (non-arrays give nothing).
pub fn elements(raw: Option<&RawValue>) -> Vec<&RawValue> {
    raw.and_then(|r| serde_json::from_str::<Vec<&RawValue>>(r.get()).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn raw(json: &str) -> Box<RawValue> {
        RawValue::from_string(json.to_owned()).unwrap()
    }

    /// A line as the readers borrow it: raw values and loose strings.
    #[derive(serde::Deserialize, Debug)]
    struct Probe<'a> {
        #[serde(borrow)]
        a: Option<&'a RawValue>,
        #[serde(borrow)]
        b: Option<Loose<'a>>,
        c: Option<Vec<LooseBlock>>,
    }

    /// What a read of a line gives, comparable.
    fn probe(read: serde_json::Result<Probe<'_>>) -> Option<(Option<String>, String, String)> {
        read.ok().map(|p| {
            (
                p.a.map(|a| a.get().to_owned()),
                format!("{:?}", p.b),
                format!("{:?}", p.c),
            )
        })
    }

    /// The three fields as a derived struct of `&RawValue` reads them.
    #[derive(serde::Deserialize)]
    struct Three<'a> {
        #[serde(borrow)]
        a: Option<&'a RawValue>,
        #[serde(borrow)]
        b: Option<&'a RawValue>,
        #[serde(borrow)]
        c: Option<&'a RawValue>,
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn fields_scanned_read_as_a_derived_struct_reads_them(text in crate::testing::arb_object(&["a", "b", "c"])) {
            let general = serde_json::from_str::<Three<'_>>(&text)
                .ok()
                .map(|t| [t.a, t.b, t.c].map(|f| f.map(RawValue::get)));
            if let Some(scanned) = scan_fields(&text, ["a", "b", "c"]) {
                prop_assert_eq!(Some(scanned.map(|f| f.map(|r| r.0))), general, "{}", text);
            }
        }

        #[test]
        fn elements_read_as_serde_json_reads_them(
            elements in prop::collection::vec(crate::testing::arb_value(), 0..5),
            space in prop::sample::select(vec!["", " ", "\t"]),
            wrapped in any::<bool>(),
        ) {
            let inner = elements.join(&format!(",{space}"));
            let text = if wrapped { format!("{space}[{space}{inner}]{space}") } else { inner };
            let general: Vec<String> = serde_json::from_str::<Vec<&RawValue>>(&text)
                .map(|list| list.iter().map(|r| r.get().to_owned()).collect())
                .unwrap_or_default();
            let got: Vec<String> = raw_elements(Some(RawText(&text))).iter().map(|r| r.0.to_owned()).collect();
            prop_assert_eq!(got, general, "{}", text);
        }
    }

    #[test]
    fn ordinary_fields_and_elements_are_scanned() {
        let text = r#"{"a":{"x":[1,"y"]},"b":null,"z":"q\"r","c":"é"}"#;
        let [a, b, c] = scan_fields(text, ["a", "b", "c"]).unwrap();
        assert_eq!(
            (a.map(|r| r.0), b, c.map(|r| r.0)),
            (Some(r#"{"x":[1,"y"]}"#), None, Some("\"é\""))
        );
        let mut seen = Vec::new();
        assert!(envelope::array_elements(r#"[1, {"a":2} ,"s"]"#, |e| {
            seen.push(e);
            Some(())
        })
        .is_some());
        assert_eq!(seen, ["1", r#"{"a":2}"#, "\"s\""]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn a_line_reads_as_serde_json_reads_its_bytes(
            a in "[a-z\\u{e9}\\u{1F600}\\\\\"]{0,8}",
            b in "[a-z\\u{e9} ]{0,8}",
            order in 0usize..3,
            noise in prop::option::of((any::<prop::sample::Index>(), any::<u8>())),
        ) {
            let fields = [
                format!(r#""a":{{"x":"{a}"}}"#),
                format!(r#""b":"{b}""#),
                format!(r#""c":[{{"type":"text","text":"{b}"}}],"d":"{a}""#),
            ];
            let mut line = format!("{{{},{},{}}}", fields[order], fields[(order + 1) % 3], fields[(order + 2) % 3]).into_bytes();
            if let Some((at, byte)) = noise {
                let at = at.index(line.len() + 1);
                line.insert(at, byte);
            }
            prop_assert_eq!(
                probe(from_line(&line)),
                probe(serde_json::from_slice(&line)),
                "{:x?}", line
            );
        }
    }

    #[test]
    fn lenient_fields() {
        assert_eq!(string(Some(&*raw(r#""a\nb""#))).as_deref(), Some("a\nb"));
        assert_eq!(string(Some(&*raw("5"))), None);
        assert_eq!(string(None::<&RawValue>), None);
        assert_eq!(non_empty(Some(&*raw(r#""""#))), None);
        assert!(is_true(Some(&*raw("true"))));
        assert!(!is_true(Some(&*raw(r#""true""#))));
        assert!(is_str(Some(&*raw(r#""user""#)), "user"));
        assert!(is_str(Some(&*raw(r#""\u0075ser""#)), "user"));
        assert!(!is_str(Some(&*raw(r#""users""#)), "user"));
        assert!(!is_str(Some(&*raw("null")), "user"));
        assert_eq!(elements(Some(&*raw("[1, {\"a\":2}]"))).len(), 2);
        assert!(elements(Some(&*raw("{}"))).is_empty());
    }

    #[test]
    fn borrows_plain_strings_and_reads_numbers() {
        let v: Loose<'_> = serde_json::from_str(r#""plain""#).unwrap();
        assert!(matches!(v, Loose::Str(Cow::Borrowed("plain"))));
        let v: Loose<'_> = serde_json::from_str(r#""esc\n""#).unwrap();
        assert_eq!(v.as_str(), Some("esc\n"));
        for (json, n) in [
            ("3", Some(3)),
            ("3.0", Some(3)),
            ("3e0", Some(3)),
            ("-1", None),
            ("1.5", None),
            ("9007199254740992", None),
        ] {
            let v: Loose<'_> = serde_json::from_str(json).unwrap();
            assert_eq!(v.whole_number(), n, "{json}");
        }
        let v: Loose<'_> = serde_json::from_str(r#"{"a":[1,{"b":2}]}"#).unwrap();
        assert_eq!(v, Loose::Other);
    }

    #[test]
    fn json_is_utf8() {
        assert!(is_json(br#"{"a":["\u00e9"]}"#));
        assert!(!is_json(b"{\"a\":[\"\xff\"]}"));
        assert!(!is_json(b"{\"a\""));
    }

    #[test]
    fn blocks_are_lenient() {
        let list: Vec<LooseBlock> = serde_json::from_str(
            r#"[{"type":"text","text":"a"},{"type":"text","text":5},{"type":"image"},"odd",{"text":"x"},{"type":"text","text":"1","text":"2"}]"#,
        )
        .unwrap();
        assert_eq!(
            blocks(list),
            [
                Block::Text("a".into()),
                Block::Other("text".into()),
                Block::Other("image".into()),
                Block::Other(String::new()),
                Block::Other(String::new()),
                Block::Text("2".into()),
            ]
        );
    }
}
