//! Where a scan through JSON strings must stop, found 64 bytes at a time:
//! the closing quote, a control byte (not JSON in a string), an escape
//! that is not JSON, and a `\u` escape (whose four hex digits the caller
//! checks). Everything else inside a string, ordinary escapes included,
//! is passed over as part of a 64-bit mask.
//!
//! # How
//!
//! Each block of 64 bytes is classified into four bit masks ([`Classes`]):
//! quotes, backslashes, control bytes, and the letters of the simple
//! escapes (`" \ / b f n r t`). Which bytes are escaped follows from the
//! backslash mask alone with a few integer operations ([`escaped`], the
//! carry-propagating trick of simdjson): a byte is escaped when an odd run
//! of backslashes ends right before it, and a run may cross blocks. From
//! these, [`stops`] gives the bytes a string scan stops at. A string dense
//! with escapes (tool output has one every 40 bytes or so) thus costs a few
//! vector and bit operations per block, and no branch per escape.
//!
//! The classification has three implementations of one contract: a
//! portable one (plain Rust that compilers vectorize with SSE2), and AVX2
//! and AVX-512BW ones with `std::arch`, chosen at run time by
//! [`Classifier::detect`]. Property tests below hold every one available
//! on the machine to a byte-by-byte reference, and the escape trick to a
//! byte-by-byte reading of backslash runs.
//!
//! # Why hand-written
//!
//! The JSON crates with SIMD (`simd-json`, `sonic-rs`) parse whole
//! documents into their own values, with their own grammar and number
//! rules; the envelope scanner ([`crate::envelope`]) must accept
//! only what `serde_json` reads to the same envelope and must not build
//! values. What it needs from SIMD is this one classification, which is
//! a few intrinsics; the `unsafe` is confined to the two `#[target_feature]`
//! functions that load a block.

/// The classes of the 64 bytes of a block: bit i is byte i.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Classes {
    /// `"`.
    pub quote: u64,
    /// `\`.
    pub backslash: u64,
    /// Bytes below `0x20`.
    pub control: u64,
    /// The letters of the simple escapes: `" \ / b f n r t` (not `u`).
    pub simple_escape: u64,
}

/// The bytes that follow a backslash in the simple escapes of JSON.
pub const SIMPLE_ESCAPES: &[u8; 8] = b"\"\\/bfnrt";

/// Bit i set: byte i of the block is escaped, that is, an odd run of
/// backslashes ends right before it. `carry` says whether the previous
/// block ended with such a run (1) or not (0); it is updated for the next.
#[inline]
pub fn escaped(backslash: u64, carry: &mut u64) -> u64 {
    const EVEN_BITS: u64 = 0x5555_5555_5555_5555;
    // An escaped first byte is not the start of a run, whatever it is.
    let backslash = backslash & !*carry;
    let follows_backslash = backslash << 1 | *carry;
    // Runs starting on odd bits: adding them to the mask clears each run
    // and sets the bit after it; the runs starting on even bits are then
    // the ones the sum leaves marked after their end.
    let odd_starts = backslash & !EVEN_BITS & !follows_backslash;
    let (ends_of_odd_started, overflow) = odd_starts.overflowing_add(backslash);
    *carry = u64::from(overflow);
    let flip = ends_of_odd_started << 1;
    (EVEN_BITS ^ flip) & follows_backslash
}

/// Bit i set: a string scan stops at byte i of the block: an unescaped
/// quote, a control byte, or an escaped byte that is not a simple escape
/// (`u`, or one that is not JSON). `carry` as for [`escaped`].
#[inline]
pub fn stops(classes: Classes, carry: &mut u64) -> u64 {
    let escaped = escaped(classes.backslash, carry);
    (classes.quote & !escaped) | classes.control | (escaped & !classes.simple_escape)
}

// The error bits of the lookup algorithm: what a pair of bytes (the
// one before, and this one) can be wrong by. Each table below gives,
// for one nibble, the errors a pair with that nibble may have; a pair
// has an error when all three agree on it.
const TOO_SHORT: u8 = 1 << 0;
const TOO_LONG: u8 = 1 << 1;
const OVERLONG_3: u8 = 1 << 2;
const TOO_LARGE: u8 = 1 << 3;
const SURROGATE: u8 = 1 << 4;
const OVERLONG_2: u8 = 1 << 5;
const TOO_LARGE_1000: u8 = 1 << 6;
const OVERLONG_4: u8 = 1 << 6;
const TWO_CONTINUATIONS: u8 = 1 << 7;
const CARRY: u8 = TOO_SHORT | TOO_LONG | TWO_CONTINUATIONS;

/// By the high nibble of the byte before.
const BEFORE_HIGH: [u8; 16] = [
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TWO_CONTINUATIONS,
    TWO_CONTINUATIONS,
    TWO_CONTINUATIONS,
    TWO_CONTINUATIONS,
    TOO_SHORT | OVERLONG_2,
    TOO_SHORT,
    TOO_SHORT | OVERLONG_3 | SURROGATE,
    TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
];

/// By the low nibble of the byte before.
const BEFORE_LOW: [u8; 16] = [
    CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4,
    CARRY | OVERLONG_2,
    CARRY,
    CARRY,
    CARRY | TOO_LARGE,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
];

/// By the high nibble of this byte.
const THIS_HIGH: [u8; 16] = [
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_LONG | OVERLONG_2 | TWO_CONTINUATIONS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
    TOO_LONG | OVERLONG_2 | TWO_CONTINUATIONS | OVERLONG_3 | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTINUATIONS | SURROGATE | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTINUATIONS | SURROGATE | TOO_LARGE,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
];

/// A way to classify a block, for the CPU the program runs on.
pub trait Classify: Copy {
    /// The UTF-8 check made with this classification.
    type Utf8: Utf8Check;

    /// The classes of `block`, its UTF-8 checked into `utf8`.
    fn classify(self, block: &[u8; 64], utf8: &mut Self::Utf8) -> Classes;
}

/// A check of UTF-8 made while blocks are classified. Blocks come in runs:
/// each block of a run starts where the one before it ended, and a run
/// starts ([`Utf8Check::restart`]) where the byte before it, if any, is
/// ASCII. What the blocks of a run hold is checked as one text, except
/// that a sequence cut off by the end of a run's last block is not an
/// error: the caller knows whether bytes past that point matter.
pub trait Utf8Check: Copy {
    /// The check before any block.
    fn new() -> Self;

    /// The next block starts a new run.
    fn restart(&mut self);

    /// Whether every block classified so far is UTF-8 (as above); `None`
    /// when this check does not look at UTF-8 at all.
    fn valid(&self) -> Option<bool>;
}

/// The check of a classification that leaves UTF-8 to its caller.
#[derive(Debug, Clone, Copy, Default)]
pub struct Unchecked;

impl Utf8Check for Unchecked {
    #[inline(always)]
    fn new() -> Self {
        Unchecked
    }

    #[inline(always)]
    fn restart(&mut self) {}

    #[inline(always)]
    fn valid(&self) -> Option<bool> {
        None
    }
}

/// The portable classification.
#[derive(Debug, Clone, Copy, Default)]
pub struct Portable;

impl Classify for Portable {
    type Utf8 = Unchecked;

    #[inline]
    fn classify(self, block: &[u8; 64], _: &mut Unchecked) -> Classes {
        Classes {
            quote: gather(block, |b| b == b'"'),
            backslash: gather(block, |b| b == b'\\'),
            control: gather(block, |b| b < 0x20),
            simple_escape: gather(block, |b| SIMPLE_ESCAPES.contains(&b)),
        }
    }
}

/// Bit i set: `test(block[i])`, computed without branches so that it
/// compiles to vector instructions.
#[inline(always)]
fn gather(block: &[u8; 64], test: impl Fn(u8) -> bool) -> u64 {
    let mut hits = [0u8; 64];
    for (hit, &b) in hits.iter_mut().zip(block) {
        *hit = u8::from(test(b));
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

/// Which classification the scanner uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Classifier {
    /// [`Portable`].
    Portable,
    /// [`Avx2`], on a CPU with AVX2.
    #[cfg(target_arch = "x86_64")]
    Avx2(Avx2),
    /// [`Avx512`], on a CPU with AVX-512BW.
    #[cfg(target_arch = "x86_64")]
    Avx512(Avx512),
}

impl Classifier {
    /// The fastest classification this CPU runs.
    #[inline]
    pub fn detect() -> Classifier {
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(avx512) = Avx512::detect() {
                return Classifier::Avx512(avx512);
            }
            if let Some(avx2) = Avx2::detect() {
                return Classifier::Avx2(avx2);
            }
        }
        Classifier::Portable
    }

    /// Whether the classification checks UTF-8 itself ([`Utf8Check`]).
    pub fn checks_utf8(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        if let Classifier::Avx512(_) = self {
            return true;
        }
        false
    }

    /// Every classification this CPU runs, the portable one first (for
    /// tests and benchmarks that compare them).
    pub fn available() -> Vec<Classifier> {
        let mut all = vec![Classifier::Portable];
        #[cfg(target_arch = "x86_64")]
        {
            all.extend(Avx2::detect().map(Classifier::Avx2));
            all.extend(Avx512::detect().map(Classifier::Avx512));
        }
        all
    }
}

#[cfg(target_arch = "x86_64")]
pub use x86::{Avx2, Avx512, Avx512Utf8};

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Classes, Classify, Unchecked, Utf8Check, BEFORE_HIGH, BEFORE_LOW, THIS_HIGH};
    use std::arch::x86_64::*;

    /// The AVX2 classification. A value exists only on a CPU with AVX2
    /// ([`Avx2::detect`]), which is what makes [`Classify::classify`] safe.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Avx2 {
        _detected: (),
    }

    impl Avx2 {
        /// The classification, when this CPU has AVX2.
        #[inline]
        pub fn detect() -> Option<Avx2> {
            is_x86_feature_detected!("avx2").then_some(Avx2 { _detected: () })
        }
    }

    impl Classify for Avx2 {
        type Utf8 = Unchecked;

        #[inline(always)]
        fn classify(self, block: &[u8; 64], _: &mut Unchecked) -> Classes {
            // SAFETY: an `Avx2` exists only when the CPU has AVX2.
            unsafe { classify_avx2(block) }
        }
    }

    /// The AVX-512BW classification. A value exists only on a CPU with
    /// AVX-512BW ([`Avx512::detect`]).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Avx512 {
        _detected: (),
    }

    impl Avx512 {
        /// The classification, when this CPU has AVX-512BW.
        #[inline]
        pub fn detect() -> Option<Avx512> {
            is_x86_feature_detected!("avx512bw").then_some(Avx512 { _detected: () })
        }
    }

    impl Classify for Avx512 {
        type Utf8 = Avx512Utf8;

        #[inline(always)]
        fn classify(self, block: &[u8; 64], utf8: &mut Avx512Utf8) -> Classes {
            // SAFETY: an `Avx512` exists only when the CPU has AVX-512BW.
            unsafe { classify_avx512(block, utf8) }
        }
    }

    /// The UTF-8 check of the AVX-512 classification: the block before
    /// (zeros at the start of a run, as ASCII would be) and the errors
    /// found so far, one bit set in a byte for each.
    #[derive(Debug, Clone, Copy)]
    pub struct Avx512Utf8 {
        previous: __m512i,
        errors: __m512i,
    }

    impl Utf8Check for Avx512Utf8 {
        #[inline(always)]
        fn new() -> Self {
            // SAFETY: zeroing a vector needs no CPU feature beyond SSE2.
            let zero = unsafe { _mm512_setzero_si512() };
            Avx512Utf8 {
                previous: zero,
                errors: zero,
            }
        }

        #[inline(always)]
        fn restart(&mut self) {
            // SAFETY: as in `new`.
            self.previous = unsafe { _mm512_setzero_si512() };
        }

        #[inline(always)]
        fn valid(&self) -> Option<bool> {
            let mut lanes = [0u64; 8];
            // SAFETY: a 64-byte store into a 64-byte array.
            unsafe { _mm512_storeu_si512(lanes.as_mut_ptr().cast(), self.errors) };
            Some(lanes.iter().all(|&lane| lane == 0))
        }
    }

    /// A 16-entry table in every 128-bit lane, for `vpshufb`.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX-512F.
    #[target_feature(enable = "avx512bw")]
    #[inline]
    unsafe fn table(entries: &[u8; 16]) -> __m512i {
        // SAFETY: a 16-byte load of the 16-entry table.
        unsafe { _mm512_broadcast_i32x4(_mm_loadu_si128(entries.as_ptr().cast())) }
    }

    /// Check the UTF-8 of the block `v` (its high and low nibbles given)
    /// after `utf8.previous`, and make it the block before the next.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX-512BW.
    #[target_feature(enable = "avx512bw")]
    #[inline]
    unsafe fn check_utf8(v: __m512i, high: __m512i, utf8: &mut Avx512Utf8) {
        let nibble = _mm512_set1_epi8(0x0F);
        // 128-bit lanes: the previous block's last, then this block's
        // first three, so that `alignr` within each lane shifts the whole
        // block right by 1 to 3 bytes, the previous block's last bytes in.
        let lanes = _mm512_permutex2var_epi64(
            utf8.previous,
            _mm512_set_epi64(13, 12, 11, 10, 9, 8, 7, 6),
            v,
        );
        let before1 = _mm512_alignr_epi8::<15>(v, lanes);
        let before2 = _mm512_alignr_epi8::<14>(v, lanes);
        let before3 = _mm512_alignr_epi8::<13>(v, lanes);
        // SAFETY: the caller's CPU has AVX-512BW.
        let (before_high, before_low, this_high) =
            unsafe { (table(&BEFORE_HIGH), table(&BEFORE_LOW), table(&THIS_HIGH)) };
        let special = _mm512_and_si512(
            _mm512_and_si512(
                _mm512_shuffle_epi8(
                    before_high,
                    _mm512_and_si512(_mm512_srli_epi16(before1, 4), nibble),
                ),
                _mm512_shuffle_epi8(before_low, _mm512_and_si512(before1, nibble)),
            ),
            _mm512_shuffle_epi8(this_high, high),
        );
        // Third and fourth bytes of a sequence: two continuations in a
        // row are right exactly there.
        let third = _mm512_subs_epu8(before2, _mm512_set1_epi8((0xE0u8 - 0x80) as i8));
        let fourth = _mm512_subs_epu8(before3, _mm512_set1_epi8((0xF0u8 - 0x80) as i8));
        let must_continue = _mm512_and_si512(
            _mm512_or_si512(third, fourth),
            _mm512_set1_epi8(0x80u8 as i8),
        );
        utf8.errors = _mm512_or_si512(utf8.errors, _mm512_xor_si512(must_continue, special));
        utf8.previous = v;
    }

    /// Per high nibble, the group bit of the simple escapes with that high
    /// nibble: 0x2_ (`"` `/`), 0x5_ (`\`), 0x6_ (`b f n`), 0x7_ (`r t`).
    const HIGH_NIBBLE_GROUPS: [i8; 16] = [0, 0, 1, 0, 0, 2, 4, 8, 0, 0, 0, 0, 0, 0, 0, 0];

    /// Per low nibble, the groups in which a simple escape has that low
    /// nibble: 2 (`"` `b` `r`), 4 (`t`), 6 (`f`), C (`\`), E (`n`), F (`/`).
    const LOW_NIBBLE_GROUPS: [i8; 16] = [0, 0, 1 | 4 | 8, 0, 8, 0, 4, 0, 0, 0, 0, 0, 2, 0, 4, 1];

    /// The classes of 32 bytes, each mask in the low 32 bits.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn classify_avx2_half(v: __m256i) -> [u32; 4] {
        let quote = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'"' as i8));
        let backslash = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8));
        // b <= 0x1F exactly when min(b, 0x1F) == b (unsigned).
        let control = _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(0x1F)), v);
        let nibble = _mm256_set1_epi8(0x0F);
        let high = _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble);
        let low = _mm256_and_si256(v, nibble);
        let high_table =
            _mm256_broadcastsi128_si256(_mm_loadu_si128(HIGH_NIBBLE_GROUPS.as_ptr().cast()));
        let low_table =
            _mm256_broadcastsi128_si256(_mm_loadu_si128(LOW_NIBBLE_GROUPS.as_ptr().cast()));
        let groups = _mm256_and_si256(
            _mm256_shuffle_epi8(high_table, high),
            _mm256_shuffle_epi8(low_table, low),
        );
        let not_simple = _mm256_cmpeq_epi8(groups, _mm256_setzero_si256());
        [
            _mm256_movemask_epi8(quote) as u32,
            _mm256_movemask_epi8(backslash) as u32,
            _mm256_movemask_epi8(control) as u32,
            !(_mm256_movemask_epi8(not_simple) as u32),
        ]
    }

    /// [`Classes`] of a block with AVX2.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn classify_avx2(block: &[u8; 64]) -> Classes {
        // SAFETY: both unaligned 32-byte loads lie inside the 64-byte block.
        let (low, high) = unsafe {
            (
                _mm256_loadu_si256(block.as_ptr().cast()),
                _mm256_loadu_si256(block.as_ptr().add(32).cast()),
            )
        };
        // SAFETY: the caller's CPU has AVX2.
        let (low, high) = unsafe { (classify_avx2_half(low), classify_avx2_half(high)) };
        let join = |k: usize| u64::from(low[k]) | u64::from(high[k]) << 32;
        Classes {
            quote: join(0),
            backslash: join(1),
            control: join(2),
            simple_escape: join(3),
        }
    }

    /// [`Classes`] of a block with AVX-512BW, its UTF-8 checked.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX-512BW.
    #[target_feature(enable = "avx512bw")]
    #[inline]
    unsafe fn classify_avx512(block: &[u8; 64], utf8: &mut Avx512Utf8) -> Classes {
        // SAFETY: one unaligned 64-byte load of the 64-byte block.
        let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
        let nibble = _mm512_set1_epi8(0x0F);
        let high = _mm512_and_si512(_mm512_srli_epi16(v, 4), nibble);
        let low = _mm512_and_si512(v, nibble);
        // SAFETY: the caller's CPU has AVX-512BW.
        unsafe { check_utf8(v, high, utf8) };
        // SAFETY: 16-byte loads of the 16-entry tables.
        let (high_table, low_table) = unsafe {
            (
                _mm512_broadcast_i32x4(_mm_loadu_si128(HIGH_NIBBLE_GROUPS.as_ptr().cast())),
                _mm512_broadcast_i32x4(_mm_loadu_si128(LOW_NIBBLE_GROUPS.as_ptr().cast())),
            )
        };
        Classes {
            quote: _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'"' as i8)),
            backslash: _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\\' as i8)),
            control: _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0x20)),
            simple_escape: _mm512_test_epi8_mask(
                _mm512_shuffle_epi8(high_table, high),
                _mm512_shuffle_epi8(low_table, low),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The classes read byte by byte.
    fn reference(block: &[u8; 64]) -> Classes {
        let mut classes = Classes::default();
        for (i, &b) in block.iter().enumerate() {
            let bit = 1u64 << i;
            if b == b'"' {
                classes.quote |= bit;
            }
            if b == b'\\' {
                classes.backslash |= bit;
            }
            if b < 0x20 {
                classes.control |= bit;
            }
            if SIMPLE_ESCAPES.contains(&b) {
                classes.simple_escape |= bit;
            }
        }
        classes
    }

    fn classify_with(classifier: Classifier, block: &[u8; 64]) -> Classes {
        fn run<C: Classify>(classifier: C, block: &[u8; 64]) -> Classes {
            classifier.classify(block, &mut C::Utf8::new())
        }
        match classifier {
            Classifier::Portable => run(Portable, block),
            #[cfg(target_arch = "x86_64")]
            Classifier::Avx2(avx2) => run(avx2, block),
            #[cfg(target_arch = "x86_64")]
            Classifier::Avx512(avx512) => run(avx512, block),
        }
    }

    /// Whether `bytes` are UTF-8 by `classifier`'s check, as one run of
    /// blocks and a block of spaces after it (so a sequence cut off at the
    /// end is an error, as for `std`); `None` when it does not check.
    fn utf8_by_blocks<C: Classify>(classifier: C, bytes: &[u8]) -> Option<bool> {
        let mut utf8 = C::Utf8::new();
        for chunk in bytes.chunks(64) {
            let mut block = [b' '; 64];
            block[..chunk.len()].copy_from_slice(chunk);
            classifier.classify(&block, &mut utf8);
        }
        classifier.classify(&[b' '; 64], &mut utf8);
        utf8.valid()
    }

    /// A classification's UTF-8 check as a function of the bytes.
    type Check = fn(&[u8]) -> Option<bool>;

    /// The lookup algorithm byte by byte, with the tables the vector check
    /// uses: whether `bytes` are UTF-8. Three ASCII bytes go before (as at
    /// the start of a run) and ASCII after (so a cut-off end is an error).
    fn lookup_model(bytes: &[u8]) -> Option<bool> {
        let padded = [&[0u8; 3][..], bytes, b" "].concat();
        Some(padded.windows(4).all(|pair| {
            let [before3, before2, before1, this] = [pair[0], pair[1], pair[2], pair[3]];
            let special = BEFORE_HIGH[usize::from(before1 >> 4)]
                & BEFORE_LOW[usize::from(before1 & 0x0F)]
                & THIS_HIGH[usize::from(this >> 4)];
            let must_continue =
                (before2.saturating_sub(0xE0 - 0x80) | before3.saturating_sub(0xF0 - 0x80)) & 0x80;
            must_continue ^ special == 0
        }))
    }

    /// The byte-by-byte model of the lookup algorithm, then the
    /// classifications of this machine that check UTF-8. Without AVX-512,
    /// the tables are still checked, through the model, and the vector
    /// check is said to be skipped (no CPU of this machine runs it).
    fn utf8_checks() -> Vec<Check> {
        let mut checks: Vec<Check> = vec![lookup_model];
        #[cfg(target_arch = "x86_64")]
        if Avx512::detect().is_some() {
            checks.push(|bytes| utf8_by_blocks(Avx512::detect()?, bytes));
        }
        if checks.len() == 1 {
            eprintln!("SKIPPED: the AVX-512 UTF-8 check (this CPU has no AVX-512BW); the scalar model of its tables was checked");
        }
        checks
    }

    /// Which bytes of `bytes` are escaped, read byte by byte.
    fn escaped_reference(bytes: &[u8]) -> Vec<bool> {
        let mut out = Vec::with_capacity(bytes.len());
        let mut pending = false;
        for &b in bytes {
            out.push(pending);
            pending = !pending && b == b'\\';
        }
        out
    }

    /// Which bytes of `bytes` are escaped, by [`escaped`] block by block.
    fn escaped_by_blocks(bytes: &[u8]) -> Vec<bool> {
        let mut carry = 0;
        let mut out = Vec::with_capacity(bytes.len());
        for chunk in bytes.chunks(64) {
            let backslash = chunk
                .iter()
                .enumerate()
                .fold(0u64, |m, (i, &b)| m | u64::from(b == b'\\') << i);
            let mask = escaped(backslash, &mut carry);
            out.extend((0..chunk.len()).map(|i| mask >> i & 1 == 1));
        }
        out
    }

    #[test]
    fn this_machine_runs_the_vector_classifications() {
        let available = Classifier::available();
        assert_eq!(available[0], Classifier::Portable);
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("avx512bw") {
            assert_eq!(available.len(), 3);
            assert!(matches!(Classifier::detect(), Classifier::Avx512(_)));
        }
    }

    #[test]
    fn every_byte_value_is_classified_as_the_reference_does() {
        for start in [0u8, 64, 128, 192] {
            let block: [u8; 64] = std::array::from_fn(|i| start.wrapping_add(i as u8));
            for classifier in Classifier::available() {
                assert_eq!(
                    classify_with(classifier, &block),
                    reference(&block),
                    "{classifier:?}"
                );
            }
        }
    }

    #[test]
    fn backslash_runs_escape_what_follows_an_odd_run() {
        // Every run length 0..=130 ending at every offset of two blocks.
        for run in 0..=130usize {
            for end in run..192 {
                let mut bytes = vec![b'a'; 192];
                bytes[end - run..end].fill(b'\\');
                assert_eq!(
                    escaped_by_blocks(&bytes),
                    escaped_reference(&bytes),
                    "{run} {end}"
                );
            }
        }
    }

    #[test]
    fn only_the_avx512_classification_checks_utf8() {
        for classifier in Classifier::available() {
            let checks = match classifier {
                Classifier::Portable => utf8_by_blocks(Portable, b"\xff"),
                #[cfg(target_arch = "x86_64")]
                Classifier::Avx2(avx2) => utf8_by_blocks(avx2, b"\xff"),
                #[cfg(target_arch = "x86_64")]
                Classifier::Avx512(avx512) => utf8_by_blocks(avx512, b"\xff"),
            };
            assert_eq!(checks.is_some(), classifier.checks_utf8(), "{classifier:?}");
        }
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("avx512bw") {
            assert_eq!(utf8_checks().len(), 2);
        }
    }

    /// Bytes that make UTF-8 interesting: every kind of lead byte and
    /// continuation, the bounds of overlong, surrogate and too-large
    /// sequences, and ASCII.
    const UTF8_EDGES: [u8; 20] = [
        0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xED,
        0xEF, 0xF0, 0xF4, 0xF5, 0xFF,
    ];

    #[test]
    fn every_short_sequence_at_every_offset_is_checked_as_std_does() {
        let checks = utf8_checks();
        // Every sequence of up to four edge bytes, put where it crosses a
        // block boundary or not, after ASCII and after a valid character.
        let mut sequences: Vec<Vec<u8>> = vec![Vec::new()];
        for _ in 0..4 {
            let longer: Vec<Vec<u8>> = sequences
                .iter()
                .filter(|seq| seq.len() == sequences.last().map_or(0, Vec::len))
                .flat_map(|seq| {
                    UTF8_EDGES.iter().map(move |&b| {
                        let mut seq = seq.clone();
                        seq.push(b);
                        seq
                    })
                })
                .collect();
            sequences.extend(longer);
        }
        for seq in &sequences {
            // Four-byte sequences (160,000) where they end a block.
            let (offsets, befores): (&[usize], &[&[u8]]) = if seq.len() < 4 {
                (
                    &[0, 1, 14, 15, 16, 17, 30, 31, 47, 60, 61, 62, 63, 64, 125],
                    &[b"a", "é".as_bytes(), "😀".as_bytes()],
                )
            } else {
                (&[13, 60, 61, 62, 63], &[b"a"])
            };
            for &at in offsets {
                for before in befores {
                    let mut bytes = b"x".repeat(at);
                    bytes.extend_from_slice(before);
                    bytes.extend_from_slice(seq);
                    bytes.extend_from_slice(b"tail");
                    let expected = std::str::from_utf8(&bytes).is_ok();
                    for check in &checks {
                        assert_eq!(check(&bytes), Some(expected), "{bytes:x?}");
                    }
                }
            }
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn a_sequence_cut_off_at_the_end_of_a_run_is_left_to_the_caller() {
        let Some(avx512) = Avx512::detect() else {
            eprintln!("SKIPPED: runs of the AVX-512 UTF-8 check (this CPU has no AVX-512BW)");
            return;
        };
        let mut utf8 = <Avx512 as Classify>::Utf8::new();
        let mut block = [b'a'; 64];
        block[63] = 0xE2;
        avx512.classify(&block, &mut utf8);
        assert_eq!(utf8.valid(), Some(true));
        // The run goes on with the rest of the sequence: valid.
        let mut next = [b'b'; 64];
        next[..2].copy_from_slice(&[0x82, 0xAC]);
        avx512.classify(&next, &mut utf8);
        assert_eq!(utf8.valid(), Some(true));
        // A new run after ASCII starts afresh; an error stays.
        utf8.restart();
        let mut bad = [b'c'; 64];
        bad[5] = 0x80;
        avx512.classify(&bad, &mut utf8);
        utf8.restart();
        avx512.classify(&[b'd'; 64], &mut utf8);
        assert_eq!(utf8.valid(), Some(false));
    }

    /// Bytes rich in what the classification looks for.
    fn arb_bytes(len: std::ops::Range<usize>) -> impl Strategy<Value = Vec<u8>> {
        let byte = prop_oneof![
            4 => Just(b'\\'),
            2 => Just(b'"'),
            1 => prop::sample::select(SIMPLE_ESCAPES.to_vec()),
            1 => Just(b'u'),
            1 => 0u8..0x20,
            1 => any::<u8>(),
            2 => Just(b'a'),
        ];
        prop::collection::vec(byte, len)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn vector_classifications_equal_the_reference(bytes in arb_bytes(64..65)) {
            let block: [u8; 64] = bytes.try_into().unwrap();
            for classifier in Classifier::available() {
                prop_assert_eq!(classify_with(classifier, &block), reference(&block), "{:?}", classifier);
            }
        }

        #[test]
        fn escapes_found_block_by_block_equal_a_byte_by_byte_reading(bytes in arb_bytes(0..400)) {
            prop_assert_eq!(escaped_by_blocks(&bytes), escaped_reference(&bytes));
        }

        #[test]
        fn text_is_checked_as_std_checks_it(
            text in "[a\\u{e9}\\u{6771}\\u{1F600}\\u{7f}\\u{80}\\u{7ff}\\u{800}\\u{ffff}\\u{10000}\\u{10ffff}]{0,150}",
            noise in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..3),
        ) {
            let mut bytes = text.into_bytes();
            for (at, byte) in noise {
                let at = at.index(bytes.len() + 1);
                bytes.insert(at, byte);
            }
            let expected = std::str::from_utf8(&bytes).is_ok();
            for check in utf8_checks() {
                prop_assert_eq!(check(&bytes), Some(expected), "{:x?}", bytes);
            }
        }
    }
}
