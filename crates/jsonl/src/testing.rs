//! Generated JSON objects for the property tests of readers that scan
//! fields ([`crate::loose::scan_fields`]): this crate's own, and the
//! store readers' (enabled there by the `testing` feature, a
//! dev-dependency only).

use proptest::prelude::*;

/// JSON values of many shapes, some not JSON at all.
pub fn arb_value() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "null",
        "true",
        "12",
        "-0.5e2",
        "\"s\"",
        "\"e \\\" \\n \\u00e9 é\"",
        "{}",
        "[]",
        "[1, {\"a\":[null]}]",
        "{\"a\":1,\"a\":2}",
        "\"\\x\"",
        "01",
        "[1,]",
        "{\"type\":\"text\",\"text\":\"hi\"}",
        "[{\"type\":\"input_text\",\"text\":\"t\"},{\"type\":\"text\",\"text\":\"u\"}]",
    ])
    .prop_map(str::to_owned)
}

/// Objects of the fields `keys` and others, repeated, escaped or
/// spaced, with values of [`arb_value`].
pub fn arb_object(keys: &[&'static str]) -> impl Strategy<Value = String> {
    let mut all = keys.to_vec();
    all.extend(["other", "\\u0074ype"]);
    let member = (prop::sample::select(all), arb_value()).prop_map(|(k, v)| format!("\"{k}\":{v}"));
    let spacing = prop::sample::select(vec!["", " ", "\t"]);
    (prop::collection::vec(member, 0..7), spacing).prop_map(|(members, space)| {
        format!("{space}{{{}}}{space}", members.join(&format!("{space},")))
    })
}
