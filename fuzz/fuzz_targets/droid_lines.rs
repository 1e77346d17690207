//! The Factory Droid transcript readers (listing, title, surface) over
//! arbitrary bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "store_input.rs"]
mod store_input;

fuzz_target!(|data: &[u8]| {
    store_input::list(
        data,
        "droid",
        "-home-me-alpha/007f9cdf-1f2e-4b7a-9c1d-0a1b2c3d4e5f.jsonl",
    );
});
