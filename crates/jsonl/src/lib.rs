//! session-ref-jsonl: reading coding agents' JSONL logs fast.
//!
//! [`lines`] reads a file line by line, forward, backward or in parallel
//! pieces; [`envelope`] scans a line's top-level members without building a
//! JSON tree (SIMD string blocks from [`string_blocks`]); [`loose`] reads
//! the scanned fields into typed values, falling back to `serde_json`
//! whenever the scanner is unsure.
//!
//! A crate of its own, below the store readers (`session-ref-stores`) and
//! above the core only (for the conversation model's content blocks): the
//! readers are the part of listing and `prepare` that every byte of a log
//! goes through, so they are fuzzed, property-tested against `serde_json`
//! and benchmarked on their own, and know nothing of any agent's format.

#![warn(missing_docs)]

pub mod envelope;
pub mod lines;
pub mod loose;
pub mod string_blocks;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
