//! The Aider chat history reader (sections, heads, typed lines, title, surface) over arbitrary bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "store_input.rs"]
mod store_input;

fuzz_target!(|data: &[u8]| {
    store_input::list(data, "aider", ".aider.chat.history.md");
});
