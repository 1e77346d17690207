//! The fast path of native event lines: read the envelope of a line
//! (`seq`, `type`, the raw text of `data`) in one pass that builds no
//! values, and say nothing when in doubt.
//!
//! # Why a scanner of its own
//!
//! Four fifths of a native log's bytes are `tool/result` lines (and
//! `assistant/chunk` lines add more) that a snapshot only needs to know are
//! valid events with an increasing seq. The general reader
//! (`session_ref_stores::kinds::native`) parses every line with `serde_json` into a
//! borrowed envelope whose `data` is a `&RawValue`; that is exact, but it
//! walks every string byte by byte twice (once for the grammar, once for
//! UTF-8) and is most of the time a large `prepare` takes. This scanner
//! validates a whole line with SIMD UTF-8 validation ([`simdutf8`]) and a
//! grammar walk that crosses string contents 64 bytes at a time
//! ([`crate::string_blocks`]): vector compares classify a block,
//! and a few bit operations find its escaped bytes and where a string
//! ends, so ordinary escapes (tool output has one every 40 bytes or so)
//! cost nothing of their own; only a closing quote, a `\u` escape or a
//! fault stops the walk.
//!
//! # Why it is exact
//!
//! [`scan`] answers `Some` only for lines that `serde_json` reads, as the
//! general reader's envelope, to exactly the same `seq`, `type` and `data`;
//! every other line (and any doubt) gets `None`, and the caller parses it
//! the general way. It accepts a subset of what that parse accepts:
//!
//! - The whole line is UTF-8, and no byte below `0x20` appears, in a
//!   string or between tokens. `serde_json` rejects control characters
//!   inside strings and checks the UTF-8 of `data` and of the strings it
//!   decodes; it does not check the UTF-8 of the values it ignores and
//!   allows tabs and carriage returns between tokens: such lines go the
//!   general way.
//! - The grammar is RFC 8259's as `serde_json` implements it (numbers
//!   without leading zeros, escapes `\" \\ \/ \b \f \n \r \t \uXXXX`,
//!   spaces between tokens), with nesting at most [`MAX_DEPTH`] deep.
//!   `serde_json` does not check surrogates in the `\u` escapes of values it
//!   ignores or keeps raw, and neither does this scanner; strings it decodes
//!   (`seq`, `type`, top-level keys) are taken only when they hold no
//!   backslash at all.
//! - The top level is an object whose keys hold no backslash; `seq`,
//!   `type` and `data` each appear at most once (a repeated one makes the
//!   derived envelope fail, and the general reader then resolves it as
//!   `JSON.parse` does, the last one winning); `seq` is an integer from 1
//!   to 15 digits without fraction or exponent (so a whole number that
//!   JavaScript holds exactly) and `type` a string.
//! - `data` is any value; `null` reads as absent, as `Option<&RawValue>`
//!   reads it. Its text is the value's own, without the spaces around it,
//!   as `RawValue` keeps it.
//!
//! `tests` below checks [`scan`] against `serde_json` on generated and
//! mutated lines: whenever it answers, the general envelope parse gives the
//! same answer.

#[cfg(target_arch = "x86_64")]
use crate::string_blocks::{Avx2, Avx512};
use crate::string_blocks::{Classifier, Classify, Portable, Utf8Check};

mod grammar;
#[cfg(test)]
mod tests;

use grammar::{Scanner, StringStops};

pub use grammar::MAX_DEPTH;

/// The envelope of a native event line, as the general reader reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Envelope<'a> {
    /// The event's seq: positive, at most 15 digits.
    pub seq: u64,
    /// The event's type.
    pub kind: &'a str,
    /// The raw text of `data`; `None` when it is absent or `null`.
    pub data: Option<&'a str>,
}

/// The envelope of `line` when the scanner can vouch for it; `None` when
/// the line must be parsed the general way (it may still be a valid event).
/// Uses the fastest block classification of this CPU
/// ([`Classifier::detect`]); every classification gives the same answer.
#[inline]
pub fn scan(line: &[u8]) -> Option<Envelope<'_>> {
    scan_with(Classifier::detect(), line)
}

/// [`scan`] with a given block classification.
pub fn scan_with(classifier: Classifier, line: &[u8]) -> Option<Envelope<'_>> {
    let text = simdutf8::basic::from_utf8(line).ok()?;
    // A line holds no `\n`, so the first line must be all of it.
    match scan_first_line(classifier, text)? {
        (envelope, length) if length == line.len() => Some(envelope),
        _ => None,
    }
}

/// [`scan`] of the first line of `text` (up to its first `\n`, which the
/// scanner stops at wherever it is): the envelope and the line's length
/// without its `\n`. `None` when the first line must be parsed the general
/// way. How lines are read from a stretch of a log whose UTF-8 was
/// validated as a whole, without looking for each line's end first.
pub fn scan_first_line(classifier: Classifier, text: &str) -> Option<(Envelope<'_>, usize)> {
    scan_first_line_of(classifier, Stretch::Text(text))
}

/// [`scan_first_line`] of bytes whose UTF-8 was not validated: the
/// classification checks it as it goes ([`Classifier::checks_utf8`]), so
/// the bytes are passed over once. Always `None` with a classification
/// that does not check UTF-8.
pub fn scan_first_line_of_bytes(
    classifier: Classifier,
    bytes: &[u8],
) -> Option<(Envelope<'_>, usize)> {
    scan_first_line_of(classifier, Stretch::Bytes(bytes))
}

/// A stretch of a log: known to be UTF-8, or bytes whose UTF-8 the scan
/// must check.
#[derive(Clone, Copy)]
enum Stretch<'a> {
    Text(&'a str),
    Bytes(&'a [u8]),
}

fn scan_first_line_of(
    classifier: Classifier,
    stretch: Stretch<'_>,
) -> Option<(Envelope<'_>, usize)> {
    match classifier {
        Classifier::Portable => scan_classified(Portable, stretch),
        #[cfg(target_arch = "x86_64")]
        Classifier::Avx2(avx2) => avx2_scan(avx2, stretch),
        #[cfg(target_arch = "x86_64")]
        Classifier::Avx512(avx512) => avx512_scan(avx512, stretch),
    }
}

/// [`scan_classified`] compiled for AVX2, so that the classification of a
/// block is inlined into the string walk.
#[cfg(target_arch = "x86_64")]
fn avx2_scan(avx2: Avx2, stretch: Stretch<'_>) -> Option<(Envelope<'_>, usize)> {
    #[target_feature(enable = "avx2")]
    fn compiled(avx2: Avx2, stretch: Stretch<'_>) -> Option<(Envelope<'_>, usize)> {
        scan_classified(avx2, stretch)
    }
    // SAFETY: an `Avx2` exists only when the CPU has AVX2.
    unsafe { compiled(avx2, stretch) }
}

/// [`scan_classified`] compiled for AVX-512BW.
#[cfg(target_arch = "x86_64")]
fn avx512_scan(avx512: Avx512, stretch: Stretch<'_>) -> Option<(Envelope<'_>, usize)> {
    #[target_feature(enable = "avx512bw")]
    fn compiled(avx512: Avx512, stretch: Stretch<'_>) -> Option<(Envelope<'_>, usize)> {
        scan_classified(avx512, stretch)
    }
    // SAFETY: an `Avx512` exists only when the CPU has AVX-512BW.
    unsafe { compiled(avx512, stretch) }
}

/// The members of the JSON object that is all of `line` (spaces around it
/// aside), in order, each as its key and the raw text of its value (as a
/// `RawValue` holds it: without the spaces around it), given to `member`.
/// `None` when the scanner cannot vouch for the object, or when `member`
/// says `None`: the caller then parses the line the general way. Keys are
/// taken only without a backslash, so a key's text is the key; values are
/// checked with the grammar [`scan`] checks (see the module docs for what
/// it leaves to the general parse).
pub fn object_members<'a>(
    line: &'a str,
    member: impl FnMut(&'a str, &'a str) -> Option<()>,
) -> Option<()> {
    container_items(line, Container::Object, member)
}

/// The elements of the JSON array that is all of `text` (spaces around it
/// aside), in order, as the raw text of each (without the spaces around
/// it), given to `element`; `None` as for [`object_members`].
pub fn array_elements<'a>(
    text: &'a str,
    mut element: impl FnMut(&'a str) -> Option<()>,
) -> Option<()> {
    container_items(text, Container::Array, |_, raw| element(raw))
}

/// Which container [`container_items`] reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Container {
    Object,
    Array,
}

/// The items of the container that is all of `text`: each member's key and
/// value, or each element (with an empty key), given to `item`.
fn container_items<'a>(
    text: &'a str,
    container: Container,
    item: impl FnMut(&'a str, &'a str) -> Option<()>,
) -> Option<()> {
    match Classifier::detect() {
        Classifier::Portable => items_classified(Portable, text, container, item),
        #[cfg(target_arch = "x86_64")]
        Classifier::Avx2(avx2) => {
            #[target_feature(enable = "avx2")]
            fn compiled<'a>(
                avx2: Avx2,
                text: &'a str,
                container: Container,
                item: impl FnMut(&'a str, &'a str) -> Option<()>,
            ) -> Option<()> {
                items_classified(avx2, text, container, item)
            }
            // SAFETY: an `Avx2` exists only when the CPU has AVX2.
            unsafe { compiled(avx2, text, container, item) }
        }
        #[cfg(target_arch = "x86_64")]
        Classifier::Avx512(avx512) => {
            #[target_feature(enable = "avx512bw")]
            fn compiled<'a>(
                avx512: Avx512,
                text: &'a str,
                container: Container,
                item: impl FnMut(&'a str, &'a str) -> Option<()>,
            ) -> Option<()> {
                items_classified(avx512, text, container, item)
            }
            // SAFETY: an `Avx512` exists only when the CPU has AVX-512BW.
            unsafe { compiled(avx512, text, container, item) }
        }
    }
}

/// [`container_items`] with blocks classified by `classifier`.
#[inline(always)]
fn items_classified<'a, C: Classify>(
    classifier: C,
    text: &'a str,
    container: Container,
    mut item: impl FnMut(&'a str, &'a str) -> Option<()>,
) -> Option<()> {
    let (open, close) = match container {
        Container::Object => (b'{', b'}'),
        Container::Array => (b'[', b']'),
    };
    let bytes = text.as_bytes();
    let mut scanner = Scanner {
        bytes,
        at: 0,
        stops: StringStops::new(classifier, bytes, 0),
    };
    scanner.skip_spaces();
    scanner.eat(open)?;
    scanner.skip_spaces();
    if scanner.peek()? == close {
        scanner.at += 1;
    } else {
        loop {
            scanner.skip_spaces();
            let key = match container {
                Container::Object => {
                    let key_start = scanner.at + 1;
                    let key = scanner.key()?;
                    scanner.skip_spaces();
                    text.get(key_start..key_start + key.len())?
                }
                Container::Array => "",
            };
            let start = scanner.at;
            scanner.value()?;
            item(key, text.get(start..scanner.at)?)?;
            scanner.skip_spaces();
            match scanner.next()? {
                b',' => continue,
                byte if byte == close => break,
                _ => return None,
            }
        }
    }
    scanner.skip_spaces();
    (scanner.at == bytes.len()).then_some(())
}

/// The scan itself, of the first line of `stretch`, with blocks classified
/// by `classifier`. The `\n` that ends the line is a control byte: inside
/// a string it stops the string walk (a fault), and between tokens no
/// grammar rule accepts it, so nothing after it is ever taken.
///
/// The UTF-8 of bytes not known to be text is checked by the
/// classification, as strings are walked ([`Utf8Check`]). That covers the
/// line: outside strings, every byte the grammar accepts is ASCII; inside
/// them, every byte is in a classified block; and a run of blocks starts
/// only right after an opening quote or a `\u` escape, ASCII both. A
/// sequence left cut off at the end of a run lies past the end of its
/// string, so past the line (bytes that do not matter) or where the grammar
/// accepts ASCII only. Blocks reach past the line's end, so a fault there
/// makes the scan give up, never answer wrongly.
#[inline(always)]
fn scan_classified<C: Classify>(
    classifier: C,
    stretch: Stretch<'_>,
) -> Option<(Envelope<'_>, usize)> {
    let (line, checked) = match stretch {
        Stretch::Text(text) => (text.as_bytes(), true),
        Stretch::Bytes(bytes) => (bytes, false),
    };
    let mut scanner = Scanner {
        bytes: line,
        at: 0,
        stops: StringStops::new(classifier, line, 0),
    };
    scanner.skip_spaces();
    scanner.eat(b'{')?;
    let mut seq = None;
    let mut kind = None;
    let mut data = None;
    let mut data_seen = false;
    scanner.skip_spaces();
    if scanner.peek()? == b'}' {
        // No seq: not an event.
        return None;
    }
    loop {
        scanner.skip_spaces();
        let key = scanner.key()?;
        scanner.skip_spaces();
        let start = scanner.at;
        match key {
            b"seq" if seq.is_none() => seq = Some(scanner.seq()?),
            b"type" if kind.is_none() => {
                scanner.eat(b'"')?;
                let raw = scanner.plain_string()?;
                kind = Some(start + 1..start + 1 + raw.len());
            }
            b"data" if !data_seen => {
                data_seen = true;
                scanner.value()?;
                let raw = &line[start..scanner.at];
                data = (raw != b"null").then_some(start..scanner.at);
            }
            b"seq" | b"type" | b"data" => return None,
            _ => scanner.value()?,
        }
        scanner.skip_spaces();
        match scanner.next()? {
            b',' => continue,
            b'}' => break,
            _ => return None,
        }
    }
    scanner.skip_spaces();
    let length = scanner.at;
    if length != line.len() && line[length] != b'\n' {
        return None;
    }
    if !checked && scanner.stops.utf8.valid() != Some(true) {
        return None;
    }
    // A range of the line that starts and ends next to ASCII grammar
    // bytes, so at character boundaries.
    let text_of = |range: std::ops::Range<usize>| match stretch {
        Stretch::Text(text) => text.get(range),
        // SAFETY: the line is UTF-8 (checked above), and the range's ends
        // are character boundaries.
        Stretch::Bytes(bytes) => Some(unsafe { std::str::from_utf8_unchecked(&bytes[range]) }),
    };
    let envelope = Envelope {
        seq: seq?,
        kind: text_of(kind?)?,
        data: match data {
            Some(range) => Some(text_of(range)?),
            None => None,
        },
    };
    Some((envelope, length))
}
