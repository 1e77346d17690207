//! JSON string serialization with JavaScript's `JSON.stringify` escaping, and
//! the tag-safe variant that spells every `<` as `\u003c` (SPEC §5, §8).
//!
//! Sizes are computed without building strings so retention can account for
//! bytes in constant time per change. Numbers are formatted by `ryu-js`,
//! which implements JavaScript's `Number.prototype.toString`.

/// How one character serializes inside a JSON string.
#[inline]
fn escape_of(c: char, tag_safe: bool) -> Option<&'static str> {
    Some(match c {
        '"' => "\\\"",
        '\\' => "\\\\",
        '\u{08}' => "\\b",
        '\u{0C}' => "\\f",
        '\n' => "\\n",
        '\r' => "\\r",
        '\t' => "\\t",
        '<' if tag_safe => "\\u003c",
        c if (c as u32) < 0x20 => return Some(CONTROL_ESCAPES[c as usize]),
        _ => return None,
    })
}

/// `\u00xx` spellings of the control characters, lower-case hex as JavaScript writes them.
const CONTROL_ESCAPES: [&str; 32] = [
    "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007", "\\b",
    "\\t", "\\n", "\\u000b", "\\f", "\\r", "\\u000e", "\\u000f", "\\u0010", "\\u0011", "\\u0012",
    "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017", "\\u0018", "\\u0019", "\\u001a",
    "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f",
];

/// Whether ASCII byte `b` has an escape (a quick test before [`escape_of`]).
#[inline]
fn needs_escape(b: u8, tag_safe: bool) -> bool {
    b < 0x20 || b == b'"' || b == b'\\' || (tag_safe && b == b'<')
}

/// Append `s` as a quoted JSON string to `out`.
pub fn write_str(out: &mut String, s: &str, tag_safe: bool) {
    out.reserve(s.len() + 2);
    out.push('"');
    let mut start = 0;
    // Only ASCII bytes are ever escaped, so scanning bytes (not chars)
    // finds the same places and slices only at character boundaries.
    for (i, &b) in s.as_bytes().iter().enumerate() {
        if b >= 0x80 || !needs_escape(b, tag_safe) {
            continue;
        }
        if let Some(esc) = escape_of(b as char, tag_safe) {
            out.push_str(&s[start..i]);
            out.push_str(esc);
            start = i + 1;
        }
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// `s` as a quoted JSON string.
pub fn quote(s: &str, tag_safe: bool) -> String {
    let mut out = String::new();
    write_str(&mut out, s, tag_safe);
    out
}

/// UTF-8 length of `s` serialized as a quoted JSON string.
pub fn str_len(s: &str, tag_safe: bool) -> usize {
    let bytes = s.as_bytes();
    2 + bytes.len()
        + if tag_safe {
            escape_extras::<true>(bytes)
        } else {
            escape_extras::<false>(bytes)
        }
}

/// The bytes escaping adds to `bytes`. Summed over blocks of 32 bytes in
/// bytes (at most 5 × 32 = 160, no overflow) and without branches, so that
/// it compiles to byte-wide vector instructions: texts are dense with
/// escapes and non-ASCII, and every message text of a `prepare` is
/// weighed.
fn escape_extras<const TAG_SAFE: bool>(bytes: &[u8]) -> usize {
    let mut blocks = bytes.chunks_exact(32);
    let mut extra = 0usize;
    for block in &mut blocks {
        let sum = block
            .iter()
            .fold(0u8, |sum, &b| sum.wrapping_add(escape_extra(b, TAG_SAFE)));
        extra += usize::from(sum);
    }
    for &b in blocks.remainder() {
        extra += usize::from(escape_extra(b, TAG_SAFE));
    }
    extra
}

/// The bytes that escaping byte `b` adds. Only ASCII bytes are ever
/// escaped; multi-byte sequences are literal.
#[inline(always)]
fn escape_extra(b: u8, tag_safe: bool) -> u8 {
    // `\"`, `\\` and the controls with a one-letter escape add one byte;
    // the other controls (`\u00xx`) and a tag-safe `<` (`\u003c`) add five.
    let short = u8::from(b == b'"')
        | u8::from(b == b'\\')
        | u8::from(b == 0x08)
        | u8::from(b == 0x0C)
        | u8::from(b == b'\n')
        | u8::from(b == b'\r')
        | u8::from(b == b'\t');
    let long = (u8::from(b < 0x20) & (short ^ 1)) | (u8::from(tag_safe) & u8::from(b == b'<'));
    short + 5 * long
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Tag-safe JSON as the reference makes it: serialize, then replace
    /// every `<` by `\u003c`.
    fn make_tag_safe(json: &str) -> String {
        json.replace('<', "\\u003c")
    }

    #[test]
    fn escapes_like_javascript() {
        assert_eq!(quote("a\"b\\c", false), r#""a\"b\\c""#);
        assert_eq!(
            quote("\u{8}\u{c}\n\r\t\u{1}\u{1f}", false),
            r#""\b\f\n\r\t\u0001\u001f""#
        );
        assert_eq!(quote("/\u{7f}\u{2028}é😀", false), "\"/\u{7f}\u{2028}é😀\"");
        assert_eq!(quote("<a>", true), r#""\u003ca>""#);
        assert_eq!(quote("<a>", false), r#""<a>""#);
    }

    proptest! {
        #[test]
        fn matches_serde_json_and_its_length(s in any::<String>()) {
            let plain = quote(&s, false);
            prop_assert_eq!(&plain, &serde_json::to_string(&s).unwrap());
            prop_assert_eq!(str_len(&s, false), plain.len());
            let safe = quote(&s, true);
            prop_assert_eq!(&safe, &make_tag_safe(&plain));
            prop_assert_eq!(str_len(&s, true), safe.len());
        }
    }
}

/// Append `value` as JavaScript's `JSON.stringify` writes a parsed value:
/// object keys that are array indices first in ascending order, then the
/// others in insertion order; numbers as JavaScript formats doubles.
pub fn write_value(out: &mut String, value: &serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(out, n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => write_str(out, s, false),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut indexed: Vec<(u32, &String, &Value)> = map
                .iter()
                .filter_map(|(k, v)| array_index(k).map(|i| (i, k, v)))
                .collect();
            indexed.sort_by_key(|&(i, _, _)| i);
            let named = map.iter().filter(|(k, _)| array_index(k).is_none());
            let ordered = indexed.into_iter().map(|(_, k, v)| (k, v)).chain(named);
            out.push('{');
            for (i, (key, item)) in ordered.enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_str(out, key, false);
                out.push(':');
                write_value(out, item);
            }
            out.push('}');
        }
    }
}

/// `JSON.stringify` of a parsed value, as a string.
pub fn stringify_value(value: &serde_json::Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

/// A canonical array index (`0`, `17`, not `017`), below 2^32 - 1.
fn array_index(key: &str) -> Option<u32> {
    if key.is_empty()
        || (key.len() > 1 && key.starts_with('0'))
        || !key.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    key.parse::<u32>().ok().filter(|&i| i != u32::MAX)
}

/// JavaScript's `Number.prototype.toString` for a finite double (`null`
/// otherwise, as `JSON.stringify` writes non-finite numbers).
///
/// `ryu-js` implements ECMAScript's Number::toString: the shortest digits
/// that round-trip, the closest of them, an exact tie to the even one, and
/// the spec's choice between fixed and exponent notation. It replaced a
/// hand-written search that formatted every non-integer a second time with
/// 800 digits to detect ties (see `cargo bench --bench json`).
fn write_number(out: &mut String, x: f64) {
    if !x.is_finite() {
        out.push_str("null");
        return;
    }
    out.push_str(ryu_js::Buffer::new().format_finite(x));
}

#[cfg(test)]
mod value_tests {
    use super::*;

    fn js(json: &str) -> String {
        stringify_value(&serde_json::from_str(json).unwrap())
    }

    #[test]
    fn numbers_format_like_javascript() {
        assert_eq!(js("[0, -0, 1, 1.0, 1.5, 100, 1e21, 1e20, 123e-7, 0.000001, 1.5e-7, -2.5, 12345678901234567890]"),
                   "[0,0,1,1,1.5,100,1e+21,100000000000000000000,0.0000123,0.000001,1.5e-7,-2.5,12345678901234567000]");
    }

    #[test]
    fn numbers_parse_like_javascript() {
        // Correctly rounded where a fast parser is one unit in the last place off.
        assert_eq!(
            js("[2.2250738585072011e-308, -3.872141038486654e+60, 5.4656695466712265e-301, 0.30000000000000004, 1e-400]"),
            "[2.225073858507201e-308,-3.872141038486654e+60,5.4656695466712265e-301,0.30000000000000004,0]"
        );
    }

    #[test]
    fn negative_zero_and_non_finite_numbers_are_written_as_javascript_writes_them() {
        let mut out = String::new();
        for x in [-0.0, f64::NAN, f64::INFINITY, -1e-7, 5e-324, f64::MAX] {
            write_number(&mut out, x);
            out.push(' ');
        }
        assert_eq!(out, "0 null null -1e-7 5e-324 1.7976931348623157e+308 ");
    }

    #[test]
    fn number_ties_round_to_even_like_javascript() {
        // Exactly halfway between two shortest spellings: JavaScript takes the even one.
        assert_eq!(
            js("[1317433522065807.25, 191250478966572.625, 1251805207118022.2, 0.5, 2.5e-7, 1e21, 123.456]"),
            "[1317433522065807.2,191250478966572.62,1251805207118022.2,0.5,2.5e-7,1e+21,123.456]"
        );
    }

    #[test]
    fn keys_order_like_javascript() {
        assert_eq!(
            js(r#"{"b":1,"2":2,"a":3,"10":4,"01":5,"1":6}"#),
            r#"{"1":6,"2":2,"10":4,"b":1,"a":3,"01":5}"#
        );
        assert_eq!(js(r#"{"a":1,"b":2,"a":3}"#), r#"{"a":3,"b":2}"#);
        assert_eq!(js(r#"{"s":"<\u2028\/"}"#), "{\"s\":\"<\u{2028}/\"}");
    }
}
