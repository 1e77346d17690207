//! The remote client and protocol's tests.

use super::connection::{batch_mode_overridden, check_protocol};
use super::*;
use std::io::BufReader;

#[test]
fn an_ssh_command_that_turns_batch_mode_off_is_refused() {
    for ssh in [
        "ssh -o BatchMode=no",
        "ssh -oBatchMode=no -p 22",
        "ssh -o 'batchmode no'",
        "env X=1 ssh -o BATCHMODE=No",
    ] {
        assert!(batch_mode_overridden(ssh).is_some(), "{ssh}");
    }
    for ssh in [
        "ssh",
        "ssh -o BatchMode=yes -p 2222",
        "ssh -o ConnectTimeout=3",
        "",
    ] {
        assert_eq!(batch_mode_overridden(ssh), None, "{ssh}");
    }
    let host = RemoteHost::new("devbox");
    let refused = Connection::open("ssh -o BatchMode=no", &host, Duration::from_secs(1))
        .err()
        .expect("refused");
    assert!(refused.contains("sets -o BatchMode=no"), "{refused}");
}

#[test]
fn shell_quoting_keeps_every_argument_one_word() {
    assert_eq!(shell_quote("--claude"), "--claude");
    assert_eq!(shell_quote("/home/a b"), "'/home/a b'");
    assert_eq!(shell_quote("it's"), r"'it'\''s'");
    assert_eq!(shell_quote("$(touch x)"), "'$(touch x)'");
    assert_eq!(shell_quote(""), "''");
}

#[test]
fn an_id_names_a_remote_by_its_configured_host() {
    let remotes = Remotes::new(
        vec![RemoteHost::new("devbox"), RemoteHost::new("me@ci")],
        "",
        Duration::from_secs(3),
    );
    assert_eq!(
        remotes
            .split_id("abc@devbox")
            .map(|(h, id)| (h.host.as_str(), id)),
        Some(("devbox", "abc"))
    );
    assert_eq!(
        remotes
            .split_id("a@b@me@ci")
            .map(|(h, id)| (h.host.as_str(), id)),
        Some(("me@ci", "a@b"))
    );
    assert!(remotes.split_id("abc@laptop").is_none());
    assert!(remotes.split_id("@devbox").is_none());
    assert!(remotes.split_id("abcdevbox").is_none());
}

#[test]
fn lines_are_bounded() {
    let mut reader = BufReader::with_capacity(4, &b"abc\ndefghij\nxy"[..]);
    let mut line = Vec::new();
    assert_eq!(read_bounded_line(&mut reader, &mut line, 5), Ok(true));
    assert_eq!(line, b"abc");
    line.clear();
    assert!(read_bounded_line(&mut reader, &mut line, 5).is_err());
    let mut reader = BufReader::new(&b"xy"[..]);
    line.clear();
    assert_eq!(read_bounded_line(&mut reader, &mut line, 5), Ok(true));
    assert_eq!(line, b"xy");
    line.clear();
    assert_eq!(read_bounded_line(&mut reader, &mut line, 5), Ok(false));
}

#[test]
fn protocols_must_agree_and_the_older_end_is_named() {
    let hello = |protocol| Hello {
        protocol,
        ..Hello::ours()
    };
    assert!(check_protocol("h", hello(PROTOCOL)).is_ok());
    assert!(check_protocol("h", hello(PROTOCOL + 1))
        .unwrap_err()
        .contains("upgrade session-ref here"));
    assert!(check_protocol("h", hello(0))
        .unwrap_err()
        .contains("upgrade session-ref on h"));
}

#[test]
fn a_slow_remote_never_delays_local_rows() {
    // A remote that takes a second to fail, beside the demo store: every
    // local session is found before the remote's verdict arrives.
    let caches = Caches::default().with(Remotes::new(
        vec![RemoteHost::new("slowbox")],
        "sleep 1; false",
        Duration::from_secs(5),
    ));
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/demo");
    let roots = crate::roots::StoreRoots::new().with(crate::kinds::native::KIND, demo);
    let found = Mutex::new(Vec::new());
    crate::catalog::scan(&caches, &roots, &|e| lock(&found).push(e));
    let found = found.into_inner().unwrap();
    let remote_at = found
        .iter()
        .position(
            |e| matches!(e, ScanEvent::Unreadable { path, .. } if path == Path::new("slowbox")),
        )
        .expect("the remote's failure is reported");
    let records = found
        .iter()
        .filter(|e| matches!(e, ScanEvent::Record(_)))
        .count();
    assert!(records >= 12, "{records}");
    assert_eq!(
        remote_at,
        found.len() - 1,
        "local rows came first: {found:?}"
    );
}

#[test]
fn an_unreachable_host_is_one_reason_not_a_hang() {
    // `false` stands for an ssh that fails at once.
    let remotes = Remotes::new(
        vec![RemoteHost::new("nowhere")],
        "false",
        Duration::from_secs(2),
    );
    let found = Mutex::new(Vec::new());
    remotes.scan(&|e| lock(&found).push(e));
    let found = found.into_inner().unwrap();
    assert!(
        matches!(
            &found[..],
            [ScanEvent::Unreadable { path, reason }] if path == Path::new("nowhere") && !reason.is_empty()
        ),
        "{found:?}"
    );
}
