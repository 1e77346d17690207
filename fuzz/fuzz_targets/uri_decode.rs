//! `uri::decode` over arbitrary text: never panics, and whatever it accepts
//! is canonical (encoding the id gives the same URI back).
#![no_main]

use libfuzzer_sys::fuzz_target;
use session_ref_core::uri;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for candidate in [text.to_string(), format!("{}{text}", uri::SCHEME)] {
        if let Ok(id) = uri::decode(&candidate) {
            assert_eq!(uri::encode(&id), candidate);
            assert_eq!(uri::decode(&uri::encode(&id)).as_deref(), Ok(id.as_str()));
        }
    }
});
