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
//! rules; the envelope scanner ([`crate::store::envelope`]) must accept
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

/// A way to classify a block, for the CPU the program runs on.
pub trait Classify: Copy {
    /// The classes of `block`.
    fn classify(self, block: &[u8; 64]) -> Classes;
}

/// The portable classification.
#[derive(Debug, Clone, Copy, Default)]
pub struct Portable;

impl Classify for Portable {
    #[inline]
    fn classify(self, block: &[u8; 64]) -> Classes {
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
pub use x86::{Avx2, Avx512};

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Classes, Classify};
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
        #[inline(always)]
        fn classify(self, block: &[u8; 64]) -> Classes {
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
        #[inline(always)]
        fn classify(self, block: &[u8; 64]) -> Classes {
            // SAFETY: an `Avx512` exists only when the CPU has AVX-512BW.
            unsafe { classify_avx512(block) }
        }
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

    /// [`Classes`] of a block with AVX-512BW.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX-512BW.
    #[target_feature(enable = "avx512bw")]
    #[inline]
    unsafe fn classify_avx512(block: &[u8; 64]) -> Classes {
        // SAFETY: one unaligned 64-byte load of the 64-byte block.
        let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
        let nibble = _mm512_set1_epi8(0x0F);
        let high = _mm512_and_si512(_mm512_srli_epi16(v, 4), nibble);
        let low = _mm512_and_si512(v, nibble);
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
        match classifier {
            Classifier::Portable => Portable.classify(block),
            #[cfg(target_arch = "x86_64")]
            Classifier::Avx2(avx2) => avx2.classify(block),
            #[cfg(target_arch = "x86_64")]
            Classifier::Avx512(avx512) => avx512.classify(block),
        }
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
    }
}
