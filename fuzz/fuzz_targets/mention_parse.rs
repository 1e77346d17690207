//! Mention scanning and parsing over arbitrary text: never panics, spans lie
//! in order within the text on character boundaries, and a successful parse
//! names one reference per span.
#![no_main]

use libfuzzer_sys::fuzz_target;
use session_ref_core::mention;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let spans = mention::scan(&text);
    let mut last_end = 0;
    for span in &spans {
        assert!(span.range.start >= last_end && span.range.end <= text.len());
        assert!(text.is_char_boundary(span.range.start) && text.is_char_boundary(span.range.end));
        last_end = span.range.end;
    }
    if let Ok(parsed) = mention::parse_text(&text) {
        assert_eq!(parsed.references.len(), spans.len());
    }
});
