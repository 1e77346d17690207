//! What a test does when something it needs (node, the seed, tmux) is not
//! installed: under CI (`CI` set) that is a failure, so a green run means
//! the test ran; elsewhere it says so on the real stderr, past the test
//! harness's capture, so `cargo test` shows that it did nothing.

use std::io::Write;

/// Report `what` is missing: panic under CI, else print a `SKIPPED:` line.
/// The caller returns after it.
pub fn missing(test: &str, what: &str) {
    if std::env::var_os("CI").is_some_and(|v| !v.is_empty()) {
        panic!("{test}: {what} (CI is set: a missing prerequisite fails the test)");
    }
    // `eprintln!` would be captured and hidden for a passing test.
    let _ = writeln!(std::io::stderr(), "SKIPPED: {test}: {what}");
}
