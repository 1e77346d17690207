//! The Amp thread reader (whole and cut-short files: listing, title, surface) over arbitrary bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "store_input.rs"]
mod store_input;

fuzz_target!(|data: &[u8]| {
    store_input::list(data, "amp", "T-00000000-0000-4000-8000-000000000001.json");
});
