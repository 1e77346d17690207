//! Reading JSONL logs fast: [`lines`] reads a file line by line, forward,
//! backward or in parallel chunks; [`envelope`] scans a line's top-level
//! members without building a JSON tree (SIMD string blocks from
//! [`string_blocks`]); [`loose`] reads the scanned fields into typed values,
//! falling back to `serde_json` whenever the scanner is unsure.

pub mod envelope;
pub mod lines;
pub mod loose;
pub mod string_blocks;
