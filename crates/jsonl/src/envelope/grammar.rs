//! The grammar walk of the envelope scanner: a cursor over one line
//! ([`Scanner`]) that checks JSON values as `serde_json` reads them, and
//! the string stops it crosses strings by ([`StringStops`]), found one
//! block of 64 bytes at a time. Apart from the envelope's API because it
//! is the part that must agree with `serde_json` byte for byte (the
//! property tests in `tests` check it), while the API only chooses the
//! block classification and reads members off the walk.

use crate::string_blocks::{self, Classify, Utf8Check};

/// The deepest nesting the scanner follows (deeper lines go the general way).
pub const MAX_DEPTH: u32 = 64;

/// The largest seq the scanner reads itself: 15 digits, below 2^53.
pub(super) const MAX_SEQ_DIGITS: usize = 15;

/// The bytes of a line a string scan stops at ([`string_blocks::stops`])
/// from some position on, found one block of 64 bytes at a time.
pub(super) struct StringStops<'a, C: Classify> {
    pub(super) classifier: C,
    pub(super) bytes: &'a [u8],
    /// Where the current block starts.
    pub(super) base: usize,
    /// Bit i set: the scan stops at `bytes[base + i]`, not passed yet.
    pub(super) mask: u64,
    /// Whether an odd run of backslashes ends the current block.
    pub(super) carry: u64,
    /// The UTF-8 check of the blocks classified.
    pub(super) utf8: C::Utf8,
}

impl<'a, C: Classify> StringStops<'a, C> {
    /// The stops from `from` on, where no escape is pending (the byte
    /// before `from`, if any, is not an escaping backslash).
    #[inline(always)]
    pub(super) fn new(classifier: C, bytes: &'a [u8], from: usize) -> Self {
        let mut stops = StringStops {
            classifier,
            bytes,
            base: from,
            mask: 0,
            carry: 0,
            utf8: C::Utf8::new(),
        };
        stops.mask = stops.block_stops();
        stops
    }

    /// The stops of the block at `base`, given the carry into it.
    #[inline(always)]
    pub(super) fn block_stops(&mut self) -> u64 {
        let rest = self.bytes.get(self.base..).unwrap_or_default();
        let mut padded = [b' '; 64];
        let block = block_of(rest, &mut padded);
        string_blocks::stops(
            self.classifier.classify(block, &mut self.utf8),
            &mut self.carry,
        )
    }

    /// The position of the next stop.
    #[inline(always)]
    pub(super) fn next(&mut self) -> Option<usize> {
        if self.mask == 0 {
            self.mask = self.next_block_with_stops()?;
        }
        let at = self.base + self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        // A backslash that ends the bytes escapes the padding after them:
        // a stop past the end, where the line is not JSON.
        (at < self.bytes.len()).then_some(at)
    }

    /// Move to the next block with a stop and give its stops: the walk
    /// through a long string. Its state is kept in locals, so that it stays
    /// in registers from block to block; whole blocks are loaded straight
    /// from the bytes, and only the last, short one is padded.
    #[inline(always)]
    pub(super) fn next_block_with_stops(&mut self) -> Option<u64> {
        let mut base = self.base;
        let mut carry = self.carry;
        let mut utf8 = self.utf8;
        let found = loop {
            base += 64;
            let Some(rest) = self.bytes.get(base..).filter(|rest| !rest.is_empty()) else {
                break None;
            };
            let mut padded = [b' '; 64];
            let block = block_of(rest, &mut padded);
            let mask = string_blocks::stops(self.classifier.classify(block, &mut utf8), &mut carry);
            if mask != 0 {
                break Some(mask);
            }
        };
        self.base = base;
        self.carry = carry;
        self.utf8 = utf8;
        found
    }

    /// Pass over everything before `position` (at or after the current
    /// block's start), where no escape is pending.
    #[inline(always)]
    pub(super) fn skip_to(&mut self, position: usize) {
        let offset = position.saturating_sub(self.base);
        if offset < 64 {
            self.mask &= u64::MAX << offset;
        } else {
            // Only right after an opening quote or a `\u` escape: ASCII.
            self.base = position;
            self.carry = 0;
            self.utf8.restart();
            self.mask = self.block_stops();
        }
    }
}

/// The block that starts `rest`: its first 64 bytes, or, at the end of a
/// line, what is left padded with spaces (no stop) in `padded`, so that
/// the last bytes take the same vector path.
#[inline(always)]
pub(super) fn block_of<'b>(rest: &'b [u8], padded: &'b mut [u8; 64]) -> &'b [u8; 64] {
    match rest.first_chunk::<64>() {
        Some(block) => block,
        None => {
            padded[..rest.len()].copy_from_slice(rest);
            padded
        }
    }
}

/// A cursor over one line.
pub(super) struct Scanner<'a, C: Classify> {
    pub(super) bytes: &'a [u8],
    pub(super) at: usize,
    /// Where strings end (or the scan gives up), one block of 64 bytes
    /// found at a time as the cursor moves forward (so short strings share
    /// a block).
    pub(super) stops: StringStops<'a, C>,
}

impl<'a, C: Classify> Scanner<'a, C> {
    #[inline(always)]
    pub(super) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    #[inline(always)]
    pub(super) fn next(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.at += 1;
        Some(b)
    }

    #[inline(always)]
    pub(super) fn eat(&mut self, expected: u8) -> Option<()> {
        (self.next()? == expected).then_some(())
    }

    /// Spaces: the scanner leaves lines with tabs or carriage returns
    /// between tokens to the general parse.
    #[inline(always)]
    pub(super) fn skip_spaces(&mut self) {
        while self.bytes.get(self.at) == Some(&b' ') {
            self.at += 1;
        }
    }

    #[inline(always)]
    pub(super) fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.at + word.len();
        (self.bytes.get(self.at..end)? == word).then(|| self.at = end)
    }

    /// A string whose opening quote is consumed, without backslashes: its
    /// contents. `None` for an unterminated string, one with escapes or
    /// one with control bytes.
    #[inline(always)]
    pub(super) fn plain_string(&mut self) -> Option<&'a [u8]> {
        let start = self.at;
        let end = self.next_stop()?;
        let contents = &self.bytes[start..end];
        if self.bytes[end] != b'"' || contents.contains(&b'\\') {
            return None;
        }
        self.at = end + 1;
        Some(contents)
    }

    /// The next stop of a string scan at or after the cursor, which is
    /// inside a string where no escape is pending.
    #[inline(always)]
    pub(super) fn next_stop(&mut self) -> Option<usize> {
        self.stops.skip_to(self.at);
        self.stops.next()
    }

    /// A key of the top-level object, up to and including its colon.
    #[inline(always)]
    pub(super) fn key(&mut self) -> Option<&'a [u8]> {
        self.eat(b'"')?;
        let key = self.plain_string()?;
        self.skip_spaces();
        self.eat(b':')?;
        Some(key)
    }

    /// A string whose opening quote is consumed: its contents checked
    /// (escapes, no control bytes) and passed over. It stops only at the
    /// closing quote, at `\u` escapes (whose hex digits are checked here)
    /// and where the string is not JSON.
    #[inline(always)]
    pub(super) fn skip_string(&mut self) -> Option<()> {
        loop {
            let at = self.next_stop()?;
            match self.bytes[at] {
                b'"' => {
                    self.at = at + 1;
                    return Some(());
                }
                b'u' => {
                    let hex = self.bytes.get(at + 1..at + 5)?;
                    if !hex.iter().all(u8::is_ascii_hexdigit) {
                        return None;
                    }
                    self.at = at + 5;
                }
                _ => return None,
            }
        }
    }

    #[inline(always)]
    pub(super) fn digits(&mut self) -> usize {
        let start = self.at;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
        self.at - start
    }

    /// A number as `serde_json` reads it: `-`? (`0` | [1-9][0-9]*)
    /// (`.` [0-9]+)? ([eE] [+-]? [0-9]+)?.
    #[inline(always)]
    pub(super) fn number(&mut self) -> Option<()> {
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
    #[inline(always)]
    pub(super) fn seq(&mut self) -> Option<u64> {
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
    #[inline(always)]
    pub(super) fn value(&mut self) -> Option<()> {
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
    #[inline(always)]
    pub(super) fn member_key(&mut self) -> Option<()> {
        self.eat(b'"')?;
        self.skip_string()?;
        self.skip_spaces();
        self.eat(b':')
    }
}
