//! The codex log readers (listing, title, surface) over arbitrary bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "store_input.rs"]
mod store_input;

fuzz_target!(|data: &[u8]| {
    store_input::list(
        data,
        "codex",
        "2026/01/05/rollout-2026-01-05T07-00-00-0c0ffee0-0000-4000-8000-000000000001.jsonl",
    );
});
