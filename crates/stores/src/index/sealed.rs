//! The container of session-ref's cache files (title-index shards, the
//! search index's manifest): four bytes naming the file kind, a format
//! number, a CRC-32 of the payload, then the payload in bincode. A file of
//! another kind or format, damaged or cut short is recognised as such and
//! rebuilt by its owner, never misread or reported as an error.

use bincode::Options;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// Bytes before the payload: kind, format, CRC-32.
pub const HEADER_LEN: usize = 12;

/// The bincode options of payloads: varint integers, and no length read
/// from the payload may exceed `limit` bytes (so damage cannot make a
/// decoder allocate more than the file holds).
pub fn codec(limit: u64) -> impl Options {
    bincode::DefaultOptions::new().with_limit(limit)
}

/// `value` sealed in a file of `kind` and `format`.
pub fn seal<T: Serialize>(kind: &[u8; 4], format: u32, value: &T) -> bincode::Result<Vec<u8>> {
    let payload = codec(u64::MAX).serialize(value)?;
    let mut bytes = Vec::with_capacity(HEADER_LEN + payload.len());
    bytes.extend_from_slice(kind);
    bytes.extend_from_slice(&format.to_le_bytes());
    bytes.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
    bytes.extend_from_slice(&payload);
    Ok(bytes)
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
    codec(payload.len() as u64).deserialize(payload).ok()
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
