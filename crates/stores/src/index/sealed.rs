//! The container of session-ref's cache files (title-index shards, the
//! search index's manifest): four bytes naming the file kind, a format
//! number, a CRC-32 of the payload, then the payload. A file of another
//! kind or format, damaged or cut short is recognised as such and rebuilt
//! by its owner, never misread or reported as an error.
//!
//! The payload is a small *head* and the *value*, each encoded by
//! [`encode`], the head's length first (`u32`, little-endian). The head
//! holds what a reader wants without the whole file (a title shard's
//! kind and first path, so pruning reads a few bytes per shard); files
//! without one seal `()`.
//!
//! [`encode`] and [`decode`] are also the one encoding of the values kept
//! inside such files (per-file facts, a fold's resume state). It is
//! bitcode (serde mode): chosen by measurement over postcard, which
//! replaced bincode 1 (unmaintained, RUSTSEC-2025-0141) first. A warm
//! listing of 10,000 sessions decodes one shard; with bitcode it took
//! 4–6 % less CPU than with postcard for Claude Code, Codex and native
//! stores (BENCHMARKS.md, "Cache encoding"). bitcode checks every length
//! against the bytes it has, so a damaged length cannot make it allocate
//! beyond its input; being columnar, it cannot decode a prefix of a value,
//! which is why the head is sealed on its own.

use serde::de::DeserializeOwned;
use serde::Serialize;

/// Bytes before the payload: kind, format, CRC-32.
pub const HEADER_LEN: usize = 12;

/// Bytes before the head: its length.
const HEAD_LEN_BYTES: usize = 4;

/// `value` in the cache files' encoding; `None` when it cannot be encoded
/// (a path that is not UTF-8).
pub fn encode<T: Serialize + ?Sized>(value: &T) -> Option<Vec<u8>> {
    bitcode::serialize(value).ok()
}

/// The value encoded in `bytes` by [`encode`]; `None` when they hold none.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Option<T> {
    bitcode::deserialize(bytes).ok()
}

/// `value` sealed in a file of `kind` and `format`, with no head.
pub fn seal<T: Serialize>(kind: &[u8; 4], format: u32, value: &T) -> Option<Vec<u8>> {
    seal_with_head(kind, format, &(), value)
}

/// `value` sealed in a file of `kind` and `format`, after `head` (read
/// alone by [`peek_head`]).
pub fn seal_with_head<H: Serialize, T: Serialize>(
    kind: &[u8; 4],
    format: u32,
    head: &H,
    value: &T,
) -> Option<Vec<u8>> {
    let head = encode(head)?;
    let body = encode(value)?;
    let head_len = u32::try_from(head.len()).ok()?;
    let mut payload = Vec::with_capacity(HEAD_LEN_BYTES + head.len() + body.len());
    payload.extend_from_slice(&head_len.to_le_bytes());
    payload.extend_from_slice(&head);
    payload.extend_from_slice(&body);
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
    let payload = checked_payload(kind, format, bytes)?;
    let (_, body) = split_head(payload)?;
    decode(body)
}

/// The head sealed at the start of `bytes`, which may be only the first
/// bytes of the file (the checksum covers the whole payload, so it cannot
/// be checked here; the head must decode within its own length).
pub fn peek_head<H: DeserializeOwned>(kind: &[u8; 4], format: u32, bytes: &[u8]) -> Option<H> {
    let (found_kind, rest) = bytes.split_first_chunk::<4>()?;
    let (found_format, rest) = rest.split_first_chunk::<4>()?;
    let (_crc, payload) = rest.split_first_chunk::<4>()?;
    if found_kind != kind || u32::from_le_bytes(*found_format) != format {
        return None;
    }
    let (head, _) = split_head(payload)?;
    decode(head)
}

/// The payload of `bytes` when kind, format and checksum are right.
fn checked_payload<'a>(kind: &[u8; 4], format: u32, bytes: &'a [u8]) -> Option<&'a [u8]> {
    let (found_kind, rest) = bytes.split_first_chunk::<4>()?;
    let (found_format, rest) = rest.split_first_chunk::<4>()?;
    let (crc, payload) = rest.split_first_chunk::<4>()?;
    (found_kind == kind
        && u32::from_le_bytes(*found_format) == format
        && u32::from_le_bytes(*crc) == crc32fast::hash(payload))
    .then_some(payload)
}

/// A payload's encoded head and the encoded value after it.
fn split_head(payload: &[u8]) -> Option<(&[u8], &[u8])> {
    let (len, rest) = payload.split_first_chunk::<HEAD_LEN_BYTES>()?;
    let len = usize::try_from(u32::from_le_bytes(*len)).ok()?;
    (len <= rest.len()).then(|| rest.split_at(len))
}

#[cfg(test)]
mod tests {
    use super::*;

    type Value = (u64, String, Vec<u32>);

    #[test]
    fn a_sealed_value_opens_and_any_damage_is_refused() {
        let value: Value = (7, String::from("payload"), vec![1, 2, 3]);
        let bytes = seal(b"TEST", 3, &value).unwrap();
        assert_eq!(open::<Value>(b"TEST", 3, &bytes), Some(value));
        assert_eq!(open::<Value>(b"TEST", 4, &bytes), None);
        assert_eq!(open::<Value>(b"OTHR", 3, &bytes), None);
        for cut in 0..bytes.len() {
            assert_eq!(open::<Value>(b"TEST", 3, &bytes[..cut]), None);
        }
        for at in 0..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x40;
            assert_eq!(open::<Value>(b"TEST", 3, &flipped), None, "byte {at}");
        }
    }

    #[test]
    fn a_head_reads_from_the_first_bytes_alone() {
        let head = (String::from("claude"), String::from("/p/a.jsonl"));
        let value: Value = (9, "x".repeat(10_000), (0..1000).collect());
        let bytes = seal_with_head(b"TEST", 3, &head, &value).unwrap();
        assert_eq!(open::<Value>(b"TEST", 3, &bytes), Some(value));
        let prefix = &bytes[..HEADER_LEN + HEAD_LEN_BYTES + 32];
        assert_eq!(
            peek_head::<(String, String)>(b"TEST", 3, prefix),
            Some(head.clone())
        );
        assert_eq!(peek_head::<(String, String)>(b"TEST", 4, prefix), None);
        // A head cut short is not decoded.
        let short = &bytes[..HEADER_LEN + HEAD_LEN_BYTES + 3];
        assert_eq!(peek_head::<(String, String)>(b"TEST", 3, short), None);
    }

    #[test]
    fn a_damaged_encoding_never_panics_and_never_decodes_beyond_its_bytes() {
        let value: Value = (u64::MAX, "ü".repeat(50), vec![u32::MAX; 64]);
        let bytes = encode(&value).unwrap();
        for cut in 0..bytes.len() {
            let _ = decode::<Value>(&bytes[..cut]);
        }
        for at in 0..bytes.len() {
            for flip in [0x01, 0x80, 0xff] {
                let mut damaged = bytes.clone();
                damaged[at] ^= flip;
                let _ = decode::<Value>(&damaged);
            }
        }
    }
}
