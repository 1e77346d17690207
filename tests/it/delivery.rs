//! Delivery checks that need no terminal: a destination that cannot be
//! written, or a prompt file that cannot be read, fails before the picker
//! opens (nothing typed is lost), with its own code.

use crate::support::{assert_fails_with, run, stderr};

#[test]
fn an_unwritable_output_fails_before_the_picker_opens() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().to_str().unwrap();
    for output in [
        dir.path().join("no/such/dir/out.md"),
        dir.path().to_path_buf(),
    ] {
        let out = run(
            &["--store", store, "--output", output.to_str().unwrap()],
            "",
        );
        assert_fails_with(&out, "SESSION_REFERENCE_DELIVERY_FAILED");
        assert!(
            stderr(&out).contains(output.to_str().unwrap()),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn a_prompt_file_must_be_readable_and_excludes_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().to_str().unwrap();
    let missing = dir.path().join("missing.md");
    let out = run(
        &["--store", store, "--prompt-file", missing.to_str().unwrap()],
        "",
    );
    assert_fails_with(&out, "SESSION_REFERENCE_INVALID_CONFIG");
    assert!(stderr(&out).contains("--prompt-file"), "{}", stderr(&out));
    let out = run(
        &[
            "--store",
            store,
            "--prompt",
            "x",
            "--prompt-file",
            missing.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}
