//! The container of session-ref's cache files (title-index shards, the
//! search index's manifest): four bytes naming the file kind, a format
//! number, a CRC-32 of the payload, then the payload in postcard. A file of
//! another kind or format, damaged or cut short is recognised as such and
//! rebuilt by its owner, never misread or reported as an error.
//!
//! [`encode`] and [`decode`] are also the one encoding of the values kept
//! inside such files (per-file facts, a fold's resume state). postcard
//! (varint integers, lengths checked against the bytes left, so damage
//! cannot make a decoder allocate more than the input holds) replaced
//! bincode 1, which is unmaintained (RUSTSEC-2025-0141); the formats were
//! bumped with it, so files written with bincode are rebuilt. bitcode,
//! measured beside it (`tools/codec-compare`, BENCHMARKS.md), decodes a
//! 10,000-entry shard faster but encodes it slower, and cannot decode a
//! prefix ([`decode_prefix`], which pruning relies on to read only the
//! head of each shard).

use serde::de::DeserializeOwned;
use serde::Serialize;

/// Bytes before the payload: kind, format, CRC-32.
pub const HEADER_LEN: usize = 12;

/// `value` in the cache files' encoding; `None` when it cannot be encoded
/// (a path that is not UTF-8).
pub fn encode<T: Serialize + ?Sized>(value: &T) -> Option<Vec<u8>> {
    postcard::to_allocvec(value).ok()
}

/// The value encoded in `bytes` by [`encode`]; `None` when they hold none.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Option<T> {
    postcard::from_bytes(bytes).ok()
}

/// The value encoded at the start of `bytes`, whatever follows it (a
/// prefix of a file read to learn its head).
pub fn decode_prefix<T: DeserializeOwned>(bytes: &[u8]) -> Option<T> {
    postcard::take_from_bytes(bytes)
        .ok()
        .map(|(value, _)| value)
}

/// `value` sealed in a file of `kind` and `format`.
pub fn seal<T: Serialize>(kind: &[u8; 4], format: u32, value: &T) -> Option<Vec<u8>> {
    let payload = encode(value)?;
    let mut bytes = Vec::with_capacity(HEADER_LEN + payload.len());
    bytes.extend_from_slice(kind);
    bytes.extend_from_slice(&format.to_le_bytes());
    bytes.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
    bytes.extend_from_slice(&payload);
    Some(bytes)
}

/// The value sealed in `bytes`; `None` when they are of another kind or
/// format, damaged or truncated.
pub fn open<T: DeserializeOwned>(kind: &[u8; 4], format: u32, bytes: &[u8]) -> Option<T> {
    let (found_kind, rest) = bytes.split_first_chunk::<4>()?;
    let (found_format, rest) = rest.split_first_chunk::<4>()?;
    let (crc, payload) = rest.split_first_chunk::<4>()?;
    if found_kind != kind
        || u32::from_le_bytes(*found_format) != format
        || u32::from_le_bytes(*crc) != crc32fast::hash(payload)
    {
        return None;
    }
    decode(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_value_opens_and_any_damage_is_refused() {
        let value = (7u64, String::from("payload"), vec![1u32, 2, 3]);
        let bytes = seal(b"TEST", 3, &value).unwrap();
        assert_eq!(
            open::<(u64, String, Vec<u32>)>(b"TEST", 3, &bytes),
            Some(value)
        );
        assert_eq!(open::<(u64, String, Vec<u32>)>(b"TEST", 4, &bytes), None);
        assert_eq!(open::<(u64, String, Vec<u32>)>(b"OTHR", 3, &bytes), None);
        for cut in 0..bytes.len() {
            assert_eq!(
                open::<(u64, String, Vec<u32>)>(b"TEST", 3, &bytes[..cut]),
                None
            );
        }
        for at in 0..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x40;
            assert_eq!(
                open::<(u64, String, Vec<u32>)>(b"TEST", 3, &flipped),
                None,
                "byte {at}"
            );
        }
    }
}
