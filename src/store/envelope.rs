//! The fast path of native event lines: read the envelope of a line
//! (`seq`, `type`, the raw text of `data`) in one pass that builds no
//! values, and say nothing when in doubt.
//!
//! # Why a scanner of its own
//!
//! Four fifths of a native log's bytes are `tool/result` lines (and
//! `assistant/chunk` lines add more) that a snapshot only needs to know are
//! valid events with an increasing seq. The general reader
//! ([`crate::store::native`]) parses every line with `serde_json` into a
//! borrowed envelope whose `data` is a `&RawValue`; that is exact, but it
//! walks every string byte by byte twice (once for the grammar, once for
//! UTF-8) and is most of the time a large `prepare` takes. This scanner
//! validates a whole line with SIMD UTF-8 validation ([`simdutf8`]) and a
//! grammar walk that crosses string contents 64 bytes at a time, with a bit
//! mask of the quotes, backslashes and control bytes of each block
//! ([`SpecialBytes`]): a string dense with escapes costs a few bit
//! operations per escape.
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

/// The deepest nesting the scanner follows (deeper lines go the general way).
pub const MAX_DEPTH: u32 = 64;

/// The largest seq the scanner reads itself: 15 digits, below 2^53.
const MAX_SEQ_DIGITS: usize = 15;

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
pub fn scan(line: &[u8]) -> Option<Envelope<'_>> {
    let text = simdutf8::basic::from_utf8(line).ok()?;
    let mut scanner = Scanner {
        bytes: line,
        at: 0,
        specials: SpecialBytes::new(line, 0),
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
                kind = Some(text.get(start + 1..start + 1 + raw.len())?);
            }
            b"data" if !data_seen => {
                data_seen = true;
                scanner.value()?;
                let raw = text.get(start..scanner.at)?;
                data = (raw != "null").then_some(raw);
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
    if scanner.at != line.len() {
        return None;
    }
    Some(Envelope {
        seq: seq?,
        kind: kind?,
        data,
    })
}

/// The length of an escape by the byte after its backslash: 2 for
/// `\" \\ \/ \b \f \n \r \t`, 6 for `\u` (four hex digits follow), 0 for
/// anything else (not JSON).
const ESCAPE_LENGTH: [u8; 256] = {
    let mut table = [0u8; 256];
    let simple = *b"\"\\/bfnrt";
    let mut i = 0;
    while i < simple.len() {
        table[simple[i] as usize] = 2;
        i += 1;
    }
    table[b'u' as usize] = 6;
    table
};

/// The special bytes of a line ([`is_special`]) from some position on, found 64
/// bytes at a time: each block's compares compile to vector instructions,
/// and its hits are kept as a bit mask, so that a string dense with escapes
/// costs a bit operation per escape rather than a new search.
struct SpecialBytes<'a> {
    bytes: &'a [u8],
    /// Where the current block starts.
    base: usize,
    /// Bit i set: `bytes[base + i]` is special ([`is_special`]) and not
    /// passed yet.
    mask: u64,
}

impl<'a> SpecialBytes<'a> {
    fn new(bytes: &'a [u8], from: usize) -> Self {
        SpecialBytes {
            bytes,
            base: from,
            mask: special_mask(bytes, from),
        }
    }

    /// The position of the next special byte.
    fn next(&mut self) -> Option<usize> {
        while self.mask == 0 {
            self.base += 64;
            if self.base >= self.bytes.len() {
                return None;
            }
            self.mask = special_mask(self.bytes, self.base);
        }
        let at = self.base + self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        Some(at)
    }

    /// Pass over everything before `position` (at or after the current
    /// block's start).
    fn skip_to(&mut self, position: usize) {
        let offset = position.saturating_sub(self.base);
        if offset < 64 {
            self.mask &= u64::MAX << offset;
        } else {
            self.base = position;
            self.mask = special_mask(self.bytes, position);
        }
    }
}

/// Whether the scanner must stop at `b` inside a string: the closing
/// quote, an escape, or a control byte (not JSON there).
#[inline(always)]
fn is_special(b: u8) -> u8 {
    u8::from(b == b'"') | u8::from(b == b'\\') | u8::from(b < 0x20)
}

/// Bit i set: `bytes[from + i]` is special ([`is_special`]), for i < 64.
#[inline]
fn special_mask(bytes: &[u8], from: usize) -> u64 {
    let rest = bytes.get(from..).unwrap_or_default();
    // The last bytes of a line are padded with spaces (not special), so
    // that they take the same vector path.
    let mut padded = [b' '; 64];
    let block = match rest.first_chunk::<64>() {
        Some(block) => block,
        None => {
            padded[..rest.len()].copy_from_slice(rest);
            &padded
        }
    };
    let mut hits = [0u8; 64];
    for (hit, &b) in hits.iter_mut().zip(block) {
        *hit = is_special(b);
    }
    // Each group of eight 0/1 bytes gathered into eight bits: the product
    // puts byte i's bit at bit 56 + i, with no carries between them.
    hits.chunks_exact(8)
        .enumerate()
        .fold(0, |mask, (k, group)| {
            let group = u64::from_le_bytes(group.try_into().unwrap_or_default());
            mask | (group.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k)
        })
}

/// A cursor over one line.
struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
    /// The line's special bytes, one block of 64 bytes found at a
    /// time as the cursor moves forward (so short strings share a block).
    specials: SpecialBytes<'a>,
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.at += 1;
        Some(b)
    }

    fn eat(&mut self, expected: u8) -> Option<()> {
        (self.next()? == expected).then_some(())
    }

    /// Spaces: the scanner leaves lines with tabs or carriage returns
    /// between tokens to the general parse.
    fn skip_spaces(&mut self) {
        while self.bytes.get(self.at) == Some(&b' ') {
            self.at += 1;
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.at + word.len();
        (self.bytes.get(self.at..end)? == word).then(|| self.at = end)
    }

    /// A string whose opening quote is consumed, without backslashes: its
    /// contents. `None` for an unterminated string, one with escapes or
    /// one with control bytes.
    fn plain_string(&mut self) -> Option<&'a [u8]> {
        let rest = &self.bytes[self.at..];
        let end = self.next_special()? - self.at;
        if rest[end] != b'"' {
            return None;
        }
        self.at += end + 1;
        Some(&rest[..end])
    }

    /// The position of the next quote or backslash at or after the cursor.
    fn next_special(&mut self) -> Option<usize> {
        self.specials.skip_to(self.at);
        self.specials.next()
    }

    /// A key of the top-level object, up to and including its colon.
    fn key(&mut self) -> Option<&'a [u8]> {
        self.eat(b'"')?;
        let key = self.plain_string()?;
        self.skip_spaces();
        self.eat(b':')?;
        Some(key)
    }

    /// A string whose opening quote is consumed: its contents checked
    /// (escapes, no control bytes) and passed over.
    fn skip_string(&mut self) -> Option<()> {
        loop {
            let at = self.next_special()?;
            match self.bytes[at] {
                b'"' => {
                    self.at = at + 1;
                    return Some(());
                }
                b'\\' => {}
                _ => return None,
            }
            // A table rather than a `match`: the escapes of a text come in
            // no predictable order.
            let length = ESCAPE_LENGTH[usize::from(*self.bytes.get(at + 1)?)];
            if length == 0 {
                return None;
            }
            if length == 6 {
                let hex = self.bytes.get(at + 2..at + 6)?;
                if !hex.iter().all(u8::is_ascii_hexdigit) {
                    return None;
                }
            }
            self.at = at + usize::from(length);
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
        self.at - start
    }

    /// A number as `serde_json` reads it: `-`? (`0` | [1-9][0-9]*)
    /// (`.` [0-9]+)? ([eE] [+-]? [0-9]+)?.
    fn number(&mut self) -> Option<()> {
        if self.peek()? == b'-' {
            self.at += 1;
        }
        match self.peek()? {
            b'0' => self.at += 1,
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            if self.digits() == 0 {
                return None;
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if self.digits() == 0 {
                return None;
            }
        }
        Some(())
    }

    /// The value of `seq`: 1 to 15 digits, no leading zero, and no fraction
    /// or exponent after them.
    fn seq(&mut self) -> Option<u64> {
        let start = self.at;
        if !matches!(self.peek()?, b'1'..=b'9') {
            return None;
        }
        let count = self.digits();
        if count > MAX_SEQ_DIGITS || matches!(self.peek(), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        let digits = &self.bytes[start..self.at];
        Some(
            digits
                .iter()
                .fold(0u64, |n, &d| n * 10 + u64::from(d - b'0')),
        )
    }

    /// Any value, passed over; nesting followed without recursion.
    fn value(&mut self) -> Option<()> {
        // Bit i of `objects` tells whether the container at depth i + 1 is
        // an object (else an array).
        let mut objects: u64 = 0;
        let mut depth: u32 = 0;
        'value: loop {
            self.skip_spaces();
            match self.next()? {
                b'"' => self.skip_string()?,
                open @ (b'{' | b'[') => {
                    if depth == MAX_DEPTH {
                        return None;
                    }
                    let object = open == b'{';
                    objects = objects << 1 | u64::from(object);
                    depth += 1;
                    self.skip_spaces();
                    let close = if object { b'}' } else { b']' };
                    if self.peek()? == close {
                        self.at += 1;
                        objects >>= 1;
                        depth -= 1;
                    } else {
                        if object {
                            self.member_key()?;
                        }
                        continue 'value;
                    }
                }
                b't' => self.literal(b"rue")?,
                b'f' => self.literal(b"alse")?,
                b'n' => self.literal(b"ull")?,
                b'-' | b'0'..=b'9' => {
                    self.at -= 1;
                    self.number()?;
                }
                _ => return None,
            }
            // After a value: close containers until a comma asks for more.
            loop {
                if depth == 0 {
                    return Some(());
                }
                self.skip_spaces();
                let object = objects & 1 == 1;
                match self.next()? {
                    b',' => {
                        if object {
                            self.skip_spaces();
                            self.member_key()?;
                        }
                        continue 'value;
                    }
                    b'}' if object => {}
                    b']' if !object => {}
                    _ => return None,
                }
                objects >>= 1;
                depth -= 1;
            }
        }
    }

    /// A key inside a nested object, up to and including its colon.
    fn member_key(&mut self) -> Option<()> {
        self.eat(b'"')?;
        self.skip_string()?;
        self.skip_spaces();
        self.eat(b':')
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde::Deserialize;
    use serde_json::value::RawValue;

    /// The general reader's envelope (as in `native.rs`), read by serde_json.
    #[derive(Deserialize)]
    struct General<'a> {
        #[serde(borrow)]
        seq: Option<crate::store::loose::Loose<'a>>,
        #[serde(rename = "type", borrow)]
        kind: Option<crate::store::loose::Loose<'a>>,
        #[serde(borrow)]
        data: Option<&'a RawValue>,
    }

    /// What the general parse makes of a line, as an envelope when it is
    /// one the scanner could report.
    fn general(line: &[u8]) -> Option<(Option<u64>, Option<String>, Option<String>)> {
        let raw: General<'_> = serde_json::from_slice(line).ok()?;
        Some((
            raw.seq.as_ref().and_then(|s| s.whole_number()),
            raw.kind
                .as_ref()
                .and_then(|k| k.as_str())
                .map(str::to_owned),
            raw.data.map(|d| d.get().to_owned()),
        ))
    }

    fn agrees(line: &[u8]) -> Result<(), TestCaseError> {
        if let Some(envelope) = scan(line) {
            let expected = general(line);
            prop_assert_eq!(
                Some((
                    Some(envelope.seq),
                    Some(envelope.kind.to_owned()),
                    envelope.data.map(str::to_owned)
                )),
                expected,
                "{:?}",
                String::from_utf8_lossy(line)
            );
        }
        Ok(())
    }

    #[test]
    fn reads_ordinary_events() {
        let line = br#"{"seq":12,"type":"tool/result","data":{"toolCallId":"c","content":[{"type":"text","text":"a\nb \"q\" \u00e9 \\"}],"n":-1.5e+3,"t":true,"f":false,"z":null}}"#;
        let envelope = scan(line).unwrap();
        assert_eq!(envelope.seq, 12);
        assert_eq!(envelope.kind, "tool/result");
        assert!(envelope.data.unwrap().starts_with(r#"{"toolCallId""#));
        let spaced =
            br#"  { "seq" : 3 , "type" : "x" , "data" :  [ 1 , { } , [ ] ]  , "k" : "v" }  "#;
        assert_eq!(
            scan(spaced),
            Some(Envelope {
                seq: 3,
                kind: "x",
                data: Some("[ 1 , { } , [ ] ]")
            })
        );
        let null = br#"{"data":null,"type":"assistant/chunk","seq":999999999999999}"#;
        assert_eq!(
            scan(null),
            Some(Envelope {
                seq: 999_999_999_999_999,
                kind: "assistant/chunk",
                data: None
            })
        );
    }

    #[test]
    fn leaves_doubtful_lines_to_the_general_parse() {
        for line in [
            &br#"{"seq":1,"seq":2,"type":"x","data":{}}"#[..],
            br#"{"seq":1,"type":"x","type":"y"}"#,
            br#"{"seq":1,"type":"x","data":1,"data":2}"#,
            br#"{"se\u0071":1,"type":"x"}"#,
            br#"{"seq":1,"type":"x\/y"}"#,
            br#"{"seq":1.0,"type":"x"}"#,
            br#"{"seq":1e0,"type":"x"}"#,
            br#"{"seq":0,"type":"x"}"#,
            br#"{"seq":01,"type":"x"}"#,
            br#"{"seq":1000000000000000,"type":"x"}"#,
            br#"{"seq":"1","type":"x"}"#,
            br#"{"seq":1,"type":5}"#,
            br#"{"seq":1}"#,
            br#"{"type":"x"}"#,
            br#"{}"#,
            br#"[1,"x"]"#,
            b"{\"seq\":1,\"type\":\"x\",\"data\":\"a\tb\"}",
            b"{\"seq\":1,\"type\":\"x\",\"data\":1}\r",
            b"{\"seq\":1,\"type\":\"x\",\"other\":\"\xff\"}",
            br#"{"seq":1,"type":"x","data":"\x"}"#,
            br#"{"seq":1,"type":"x","data":"\u12"}"#,
            br#"{"seq":1,"type":"x","data":[1,]}"#,
            br#"{"seq":1,"type":"x","data":{"a":1,}}"#,
            br#"{"seq":1,"type":"x","data":{"a"}}"#,
            br#"{"seq":1,"type":"x","data":{1:2}}"#,
            br#"{"seq":1,"type":"x","data":-}"#,
            br#"{"seq":1,"type":"x","data":1.}"#,
            br#"{"seq":1,"type":"x","data":1e}"#,
            br#"{"seq":1,"type":"x","data":tru}"#,
            br#"{"seq":1,"type":"x"} x"#,
            br#"{"seq":1,"type":"x""#,
            b"",
        ] {
            assert_eq!(scan(line), None, "{}", String::from_utf8_lossy(line));
        }
        let deep = format!(
            r#"{{"seq":1,"type":"x","data":{}{}}}"#,
            "[".repeat(MAX_DEPTH as usize + 1),
            "]".repeat(MAX_DEPTH as usize + 1)
        );
        assert_eq!(scan(deep.as_bytes()), None);
        let deep_enough = format!(
            r#"{{"seq":1,"type":"x","data":{}{}}}"#,
            "[".repeat(MAX_DEPTH as usize),
            "]".repeat(MAX_DEPTH as usize)
        );
        assert!(scan(deep_enough.as_bytes()).is_some());
    }

    #[test]
    fn special_masks_mark_every_quote_and_backslash() {
        let line: Vec<u8> = (0..300u32)
            .map(|i| match i % 11 {
                0 => b'"',
                3 if i % 2 == 0 => b'\\',
                _ => b'a' + (i % 26) as u8,
            })
            .collect();
        for from in [0, 1, 63, 64, 200, 250, 299, 300] {
            let mut specials = SpecialBytes::new(&line, from);
            let found: Vec<usize> = std::iter::from_fn(|| specials.next()).collect();
            let expected: Vec<usize> = (from..line.len())
                .filter(|&i| line[i] == b'"' || line[i] == b'\\')
                .collect();
            assert_eq!(found, expected, "{from}");
        }
        let mut specials = SpecialBytes::new(&line, 0);
        assert_eq!(specials.next(), Some(0));
        specials.skip_to(100);
        assert_eq!(specials.next(), Some(102));
        specials.skip_to(112);
        assert_eq!(specials.next(), Some(121));
    }

    #[test]
    fn control_bytes_are_found_anywhere() {
        for len in [0usize, 1, 63, 64, 65, 200] {
            let text = "é".repeat(len / 2) + &"a".repeat(len % 2);
            let clean = format!(
                "{{\"seq\":1,\"type\":\"t\u{7f}\",\"data\":{{\"k\":\"{text}\",\"n\":[1,\"~\"]}}}}"
            );
            assert!(scan(clean.as_bytes()).is_some());
            for at in 0..clean.len() {
                let mut dirty = clean.clone().into_bytes();
                dirty[at] = [0x1f, b'\t', 0x00][at % 3];
                assert_eq!(scan(&dirty), None, "{len} {at}");
            }
        }
    }

    /// Pieces of JSON lines, hostile ones among them.
    fn arb_piece() -> impl Strategy<Value = String> {
        prop_oneof![
            Just(r#""seq":"#.to_owned()),
            Just(r#""type":"#.to_owned()),
            Just(r#""data":"#.to_owned()),
            Just(r#""tool/result""#.to_owned()),
            Just(r#"{"type":"text","text":"a\nb"}"#.to_owned()),
            Just(r#""\ud800""#.to_owned()),
            Just(r#""\u00E9\/""#.to_owned()),
            Just(r#""\q""#.to_owned()),
            "[0-9]{1,17}",
            Just("-0.5E+2".to_owned()),
            Just("1e400".to_owned()),
            Just("null".to_owned()),
            Just("true".to_owned()),
            Just(",".to_owned()),
            Just(":".to_owned()),
            Just(" ".to_owned()),
            Just("\t".to_owned()),
            Just("{".to_owned()),
            Just("}".to_owned()),
            Just("[".to_owned()),
            Just("]".to_owned()),
            Just("\"".to_owned()),
            Just("\\".to_owned()),
            "\"[a-z/ é😀<\\\\\"]{0,12}\"",
        ]
    }

    /// A well-formed event line with random values, then mutated.
    fn arb_line() -> impl Strategy<Value = Vec<u8>> {
        let value = prop_oneof![
            arb_piece(),
            Just(r#"{"a":[1,{"b":"c\"d"}],"e":-0}"#.to_owned()),
            "[0-9]{1,3}".prop_map(|n| format!("[{n},\"x\",{{}}]")),
        ];
        let member = prop_oneof![
            "[0-9]{1,17}".prop_map(|n| format!(r#""seq":{n}"#)),
            "[a-z/]{0,16}".prop_map(|t| format!(r#""type":"{t}""#)),
            value.clone().prop_map(|v| format!(r#""data":{v}"#)),
            value.prop_map(|v| format!(r#""other":{v}"#)),
        ];
        let mutation = prop_oneof![
            3 => Just(None),
            1 => (any::<prop::sample::Index>(), arb_piece()).prop_map(Some),
        ];
        (
            prop::collection::vec(member, 0..6),
            prop::collection::vec(mutation, 0..3),
            any::<prop::sample::Index>(),
            prop::collection::vec(any::<u8>(), 0..2),
        )
            .prop_map(|(members, mutations, cut, noise)| {
                let mut line = format!("{{{}}}", members.join(",")).into_bytes();
                for (at, piece) in mutations.into_iter().flatten() {
                    let at = at.index(line.len() + 1);
                    line.splice(at..at, piece.into_bytes());
                }
                if !noise.is_empty() {
                    let at = cut.index(line.len() + 1);
                    line.splice(at..at, noise);
                }
                line
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        #[test]
        fn whenever_the_scanner_answers_serde_json_agrees(line in arb_line()) {
            agrees(&line)?;
        }

        #[test]
        fn arbitrary_bytes_never_mislead_it(line in prop::collection::vec(any::<u8>(), 0..64)) {
            agrees(&line)?;
        }
    }
}
