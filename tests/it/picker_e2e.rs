//! End to end: the real binary in a tmux pane, driven with `send-keys` and
//! read with `capture-pane` through the suite's one driver
//! ([`crate::support::tmux`]). Every wait polls the screen (or a file)
//! until a deadline, never a fixed sleep, and is the condition the test
//! relies on: what a test asserts of a screen it asserts inside the wait.
//! Without tmux: fails under CI (`CI` set), else prints a `SKIPPED:` line
//! that `cargo test` shows.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use session_ref_core::mention::format_mention;

use crate::support::tmux::{
    self, quote, quote_path, strip_sgr, wait_for_content, wait_for_file, Tmux,
};

const BIN: &str = env!("CARGO_BIN_EXE_session-ref");
const HERE: &str = "/home/dev/src/session-ref";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/picker")
}

/// A shell command running the picker with `args` in the fixture store,
/// [`tmux::recorded`] in `dir`. Drafts and the title index go to the
/// test's own state and cache directories.
fn picker_command(dir: &Path, args: &[&str]) -> String {
    picker_command_env(dir, &[], args)
}

/// [`picker_command`] with extra environment variables.
fn picker_command_env(dir: &Path, env: &[(&str, &str)], args: &[&str]) -> String {
    let args: Vec<String> = args.iter().map(|a| quote(a)).collect();
    let mut vars = format!(
        "XDG_STATE_HOME={} XDG_CACHE_HOME={}",
        quote_path(&dir.join("state")),
        quote_path(&dir.join("cache"))
    );
    for (name, value) in env {
        vars.push_str(&format!(" {name}={}", quote(value)));
    }
    tmux::recorded(
        dir,
        &format!(
            "{vars} {} --store {} --cwd {HERE} {}",
            quote(BIN),
            quote_path(&fixtures()),
            args.join(" "),
        ),
    )
}

/// The picker's first row shows `label` highlighted.
fn highlighted(label: &str) -> impl Fn(&str) -> bool + '_ {
    move |screen: &str| {
        screen
            .lines()
            .nth(1)
            .is_some_and(|row| row.starts_with('›') && row.contains(label))
    }
}

fn loaded(screen: &str) -> bool {
    screen.contains("7/7 · all dirs")
}

#[test]
fn query_insert_two_mentions_and_submit_equals_prepare() {
    if !tmux::require("picker end-to-end test") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tmux = Tmux::start(
        "submit",
        100,
        30,
        &picker_command(dir.path(), &["--prompt", "compare "]),
    );
    tmux.wait_for("discovery", loaded);
    tmux.type_text("budget");
    tmux.wait_for(
        "the budget session on top",
        highlighted("Byte budget retention"),
    );
    tmux.keys(&["Enter"]);
    tmux.wait_for("the first chip", |s| {
        s.contains("sessions 1/3") && s.contains("compare @Byte budget retention")
    });
    tmux.keys(&["C-u"]);
    tmux.type_text("parser");
    tmux.wait_for(
        "the parser session on top",
        highlighted("Fix the mention parser"),
    );
    tmux.keys(&["Enter"]);
    tmux.wait_for("the second chip", |s| {
        s.contains("sessions 2/3")
            && s.contains("compare @Byte budget retention @Fix the mention parser")
    });
    tmux.keys(&["C-s"]);
    let exit = tmux.wait_for_exit(dir.path());
    let stderr = &exit.err;
    assert_eq!(exit.rc, "0", "stderr: {stderr}");
    let got = exit.out;

    // The space the picker put after the final mention is not submitted.
    let buffer = format!(
        "compare {} {}",
        format_mention("b2c9-budget", Some("Byte budget retention")),
        format_mention("7f3a-parser", Some("Fix the mention parser")),
    );
    let prepared = Command::new(BIN)
        .arg("--store")
        .arg(fixtures())
        // Labels are read live: no title index in the user's cache.
        .args(["--no-cache", "--cwd", HERE, "prepare", &buffer])
        .output()
        .unwrap();
    assert!(prepared.status.success());
    assert_eq!(got, String::from_utf8(prepared.stdout).unwrap());
}

#[test]
fn exec_gets_the_result_and_its_exit_code_is_returned() {
    if !tmux::require("picker end-to-end test") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let piped = dir.path().join("piped");
    let exec = format!("cat > {}; exit 3", quote(piped.to_str().unwrap()));
    let tmux = Tmux::start(
        "exec",
        80,
        24,
        &picker_command(
            dir.path(),
            &["--exec", &exec, "--format", "mention", "--query", "notes"],
        ),
    );
    tmux.wait_for("the notes session on top", |s| {
        highlighted("Release notes draft")(s) && s.contains("1/7")
    });
    tmux.keys(&["Enter"]);
    tmux.wait_for("the chip", |s| s.contains("@Release notes draft"));
    tmux.keys(&["M-Enter"]);
    let exit = tmux.wait_for_exit(dir.path());
    assert_eq!(exit.rc, "3");
    let mention = format_mention("d5e2-notes", Some("Release notes draft"));
    assert_eq!(
        std::fs::read_to_string(&piped).unwrap(),
        format!("{mention}\n")
    );
    assert_eq!(exit.out, "");
}

#[test]
fn escape_aborts_with_130_and_writes_nothing() {
    if !tmux::require("picker end-to-end test") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tmux = Tmux::start("abort", 80, 24, &picker_command(dir.path(), &[]));
    tmux.wait_for("discovery", loaded);
    tmux.type_text("fix");
    tmux.wait_for("the query", |s| s.starts_with("> fix"));
    tmux.keys(&["Escape"]);
    let exit = tmux.wait_for_exit(dir.path());
    assert_eq!(exit.rc, "130");
    assert_eq!(exit.out, "");
    assert_eq!(exit.err, "");
}

#[test]
fn editor_with_stdout_redirected_keeps_the_picker_and_stdout_clean() {
    if !tmux::require("editor_with_stdout_redirected") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tmux = Tmux::start(
        "editor",
        80,
        24,
        &picker_command_env(
            dir.path(),
            &[("EDITOR", "sed -i -e s/draft/edited/")],
            &["--format", "mention", "--prompt", "a draft prompt"],
        ),
    );
    tmux.wait_for("discovery", loaded);
    tmux.keys(&["M-e"]);
    tmux.wait_for("the edited prompt", |s| s.contains("a edited prompt"));
    tmux.keys(&["C-s"]);
    let exit = tmux.wait_for_exit(dir.path());
    let stderr = &exit.err;
    assert_eq!(exit.rc, "0", "stderr: {stderr}");
    // Exactly the result: no terminal query (ESC[6n) or drawing on stdout.
    assert_eq!(exit.out, "a edited prompt\n");
    assert_eq!(stderr, "");
}

#[test]
fn output_is_written_through_a_symlink_to_its_target() {
    if !tmux::require("output_through_a_symlink") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target.md");
    std::fs::write(&target, "old").unwrap();
    let link = dir.path().join("link.md");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let tmux = Tmux::start(
        "symlink",
        80,
        24,
        &picker_command(
            dir.path(),
            &[
                "--format",
                "mention",
                "--prompt",
                "through the link",
                "--output",
                link.to_str().unwrap(),
            ],
        ),
    );
    tmux.wait_for("discovery", loaded);
    tmux.keys(&["C-s"]);
    let exit = tmux.wait_for_exit(dir.path());
    let stderr = &exit.err;
    assert_eq!(exit.rc, "0", "stderr: {stderr}");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "through the link\n"
    );
}

#[test]
fn an_aborted_prompt_is_saved_and_restored_by_the_next_picker() {
    if !tmux::require("aborted_prompt_is_saved") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first");
    std::fs::create_dir(&first).unwrap();
    let state = first.join("state");
    let env = [("XDG_STATE_HOME", state.to_str().unwrap())];
    let tmux = Tmux::start(
        "draft1",
        80,
        24,
        &picker_command_env(&first, &env, &["--format", "mention"]),
    );
    tmux.wait_for("discovery", loaded);
    tmux.keys(&["Tab"]);
    tmux.type_text("words worth keeping");
    tmux.wait_for("the prompt", |s| s.contains("words worth keeping"));
    tmux.keys(&["Escape"]);
    let exit = tmux.wait_for_exit(&first);
    assert_eq!(exit.rc, "130");
    let stderr = &exit.err;
    let saved: Vec<PathBuf> = std::fs::read_dir(state.join("session-ref"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(saved.len(), 1, "stderr: {stderr}");
    assert_eq!(
        std::fs::read_to_string(&saved[0]).unwrap(),
        "words worth keeping"
    );
    assert!(
        stderr.starts_with("session-ref: note: the prompt was saved to ")
            && stderr.contains(saved[0].to_str().unwrap()),
        "stderr: {stderr}"
    );
    drop(tmux);

    // The next picker offers it; alt-r restores it; delivering removes it.
    let second = dir.path().join("second");
    std::fs::create_dir(&second).unwrap();
    let tmux = Tmux::start(
        "draft2",
        80,
        24,
        &picker_command_env(&second, &env, &["--format", "mention"]),
    );
    tmux.wait_for("the offer", |s| s.contains("alt-r restores it"));
    tmux.keys(&["M-r"]);
    tmux.wait_for("the restored prompt", |s| s.contains("words worth keeping"));
    tmux.keys(&["C-s"]);
    let exit = tmux.wait_for_exit(&second);
    let stderr = &exit.err;
    assert_eq!(exit.rc, "0", "stderr: {stderr}");
    assert_eq!(exit.out, "words worth keeping\n");
    assert!(!saved[0].exists(), "the delivered draft is removed");
}

/// A pane command that takes pastes as an editor or an agent's prompt
/// does: bracketed paste on, each byte read at once (no line editing, no
/// echo), everything written to `path` by `cat` (the pane's foreground
/// process).
fn paste_sink(path: &Path) -> String {
    format!(
        "printf '\\033[?2004h'; stty -icanon -echo; exec cat > {}",
        quote(path.to_str().unwrap())
    )
}

/// A tmux server whose first pane runs [`paste_sink`] (writing to
/// `dir/pasted`) and whose second window runs the picker with `args` and
/// `--tmux-paste` naming that pane; the server and the pane's id.
fn picker_pasting_into_a_program(name: &str, dir: &Path, args: &[&str]) -> (Tmux, String) {
    let tmux = Tmux::start(name, 80, 24, &paste_sink(&dir.join("pasted")));
    let sink = tmux.first_pane();
    tmux.wait_for_command(&sink, "cat");
    let mut args = args.to_vec();
    args.extend(["--tmux-paste", &sink]);
    tmux.new_window(&picker_command(dir, &args));
    (tmux, sink)
}

/// The drafts saved under `dir`'s state directory, with their content.
fn drafts(dir: &Path) -> Vec<String> {
    match std::fs::read_dir(dir.join("state/session-ref")) {
        Ok(entries) => entries
            .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
            .collect(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn tmux_paste_into_a_program_is_bracketed_without_a_trailing_newline() {
    if !tmux::require("tmux_paste_into_a_program") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (tmux, _) = picker_pasting_into_a_program(
        "paste",
        dir.path(),
        &["--format", "mention", "--query", "notes"],
    );
    tmux.wait_for("the notes session on top", |s| {
        highlighted("Release notes draft")(s) && s.contains("1/7")
    });
    tmux.keys(&["Enter"]);
    tmux.wait_for("the chip", |s| s.contains("@Release notes draft"));
    tmux.keys(&["C-s"]);
    let exit = tmux.wait_for_exit(dir.path());
    let stderr = &exit.err;
    assert_eq!(exit.rc, "0", "stderr: {stderr}");
    let mention = format_mention("d5e2-notes", Some("Release notes draft"));
    // The mention ends the result with a newline; the paste does not.
    wait_for_content(
        &dir.path().join("pasted"),
        &format!("\x1b[200~{mention}\x1b[201~"),
        &tmux,
    );
    assert_eq!(exit.out, "");
}

#[test]
fn tmux_paste_into_a_shell_is_refused_before_the_picker_opens() {
    if !tmux::require("tmux_paste_into_a_shell") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tmux = Tmux::start("shell", 80, 24, "exec bash --norc --noprofile -i");
    let shell = tmux.first_pane();
    tmux.wait_for_command(&shell, "bash");
    tmux.new_window(&picker_command(
        dir.path(),
        &[
            "--prompt",
            "kept on the command line",
            "--tmux-paste",
            &shell,
        ],
    ));
    // No key is sent: the run ends by itself, before any picker.
    let exit = tmux.wait_for_exit(dir.path());
    let stderr = &exit.err;
    assert_eq!(exit.rc, "1", "stderr: {stderr}");
    assert_eq!(
        *stderr,
        format!(
            "session-ref: SESSION_REFERENCE_PASTE_REFUSED: --tmux-paste: refused to paste into \
             tmux pane {shell}: a shell (bash) reads its input and would run the pasted text; \
             --tmux-paste-force pastes anyway\n"
        )
    );
    assert_eq!(exit.out, "");
    assert!(!tmux.pane_text(&shell).contains("kept"));
}

#[test]
fn tmux_paste_to_no_such_pane_fails_before_the_picker_opens() {
    if !tmux::require("tmux_paste_to_no_such_pane") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tmux = Tmux::start(
        "nopane",
        80,
        24,
        &format!(
            "{}; sleep 60",
            picker_command(dir.path(), &["--tmux-paste", "%999"])
        ),
    );
    // No key is sent: a picker that opened would wait for one.
    let exit = tmux.wait_for_exit(dir.path());
    let stderr = &exit.err;
    assert_eq!(exit.rc, "1", "stderr: {stderr}");
    assert_eq!(
        stderr,
        "session-ref: SESSION_REFERENCE_TMUX: --tmux-paste: tmux has no pane \"%999\"\n"
    );
    assert_eq!(exit.out, "");
}

/// The pane session-ref itself runs on: when it exits, whatever started
/// it (a shell) would read the paste. Refused, before the picker opens.
#[test]
fn tmux_paste_into_its_own_pane_is_refused() {
    if !tmux::require("tmux_paste_into_its_own_pane") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Job control: session-ref is the pane's foreground process, not sh.
    // stdin, stdout and stderr are not the pane: its controlling terminal is.
    let command = picker_command(dir.path(), &["--tmux-paste", "OWN-PANE"])
        .replace("'OWN-PANE'", "\"$TMUX_PANE\" < /dev/null");
    let tmux = Tmux::start("own", 80, 24, &format!("set -m; {command}; sleep 60"));
    let exit = tmux.wait_for_exit(dir.path());
    let stderr = &exit.err;
    assert_eq!(exit.rc, "1", "stderr: {stderr}");
    assert!(
        stderr.starts_with("session-ref: SESSION_REFERENCE_PASTE_REFUSED: ")
            && stderr.contains("it is the terminal session-ref runs on"),
        "stderr: {stderr}"
    );
}

#[test]
fn a_pane_gone_by_submit_keeps_the_prompt() {
    if !tmux::require("pane_gone_keeps_the_prompt") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (tmux, sink) = picker_pasting_into_a_program(
        "delivery",
        dir.path(),
        &["--format", "mention", "--prompt", "do not lose me"],
    );
    tmux.wait_for("discovery", loaded);
    tmux.run(&["kill-pane", "-t", &sink]);
    tmux.keys(&["C-s"]);
    let exit = tmux.wait_for_exit(dir.path());
    let stderr = &exit.err;
    assert_eq!(exit.rc, "1", "stderr: {stderr}");
    assert!(
        stderr.starts_with(&format!(
            "session-ref: SESSION_REFERENCE_TMUX: --tmux-paste: tmux has no pane \"{sink}\"\n\
             session-ref: note: the prompt was saved to "
        )),
        "stderr: {stderr}"
    );
    assert_eq!(drafts(dir.path()), ["do not lose me"]);
}

#[test]
fn a_pane_that_runs_a_shell_by_submit_is_refused_and_the_prompt_kept() {
    if !tmux::require("pane_turned_shell_keeps_the_prompt") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (tmux, sink) = picker_pasting_into_a_program(
        "turned",
        dir.path(),
        &["--format", "mention", "--prompt", "echo never-run > ran"],
    );
    tmux.wait_for("discovery", loaded);
    // The program in the pane quits and a shell takes it over.
    let here = dir.path().to_str().unwrap();
    tmux.run(&["respawn-pane", "-k", "-t", &sink, "-c", here, "exec sh -i"]);
    tmux.wait_for_command(&sink, "sh");
    tmux.keys(&["C-s"]);
    let exit = tmux.wait_for_exit(dir.path());
    let stderr = &exit.err;
    assert_eq!(exit.rc, "1", "stderr: {stderr}");
    assert!(
        stderr.starts_with("session-ref: SESSION_REFERENCE_PASTE_REFUSED: ")
            && stderr.contains("session-ref: note: the prompt was saved to "),
        "stderr: {stderr}"
    );
    assert_eq!(drafts(dir.path()), ["echo never-run > ran"]);
    assert!(!tmux.pane_text(&sink).contains("never-run"));
    assert!(!dir.path().join("ran").exists(), "the shell ran the prompt");
}

#[test]
fn a_prompt_that_cannot_be_saved_is_printed_on_stderr() {
    if !tmux::require("unsaved_prompt_on_stderr") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tmux = Tmux::start(
        "unsaved",
        80,
        24,
        &picker_command_env(
            dir.path(),
            &[("XDG_STATE_HOME", "/dev/null/state")],
            &["--prompt", "last"],
        ),
    );
    tmux.wait_for("discovery", loaded);
    // Edited (an unedited --prompt is not saved on abort).
    tmux.keys(&["Tab"]);
    tmux.type_text(" copy");
    tmux.wait_for("the edit", |s| s.contains("last copy"));
    tmux.keys(&["Escape"]);
    let exit = tmux.wait_for_exit(dir.path());
    assert_eq!(exit.rc, "130");
    let stderr = &exit.err;
    assert!(
        stderr.starts_with(
            "session-ref: SESSION_REFERENCE_DELIVERY_FAILED: cannot save the prompt ("
        ) && stderr.ends_with("it was:\nlast copy\n"),
        "stderr: {stderr}"
    );
}

/// A tmux server whose one pane runs `command`, with a client attached
/// (a popup needs one): a second server's pane runs `tmux attach` on the
/// first; keys for the popup go to that second server.
fn attached(name: &str, command: &str) -> (Tmux, Tmux) {
    let inner = Tmux::start(&format!("{name}-inner"), 100, 30, command);
    let client = Tmux::start(
        &format!("{name}-client"),
        100,
        30,
        &format!("env -u TMUX tmux -L {} attach", inner.socket()),
    );
    // The client shows the inner session's status line once attached.
    client.wait_for("the client to attach", |s| s.contains("[0]"));
    (inner, client)
}

/// Issue 22.2: `session-ref --tmux … > out` typed at a bash prompt. The
/// result goes to `out`, as without `--tmux`; the shell's pane receives
/// nothing, so the session's `$(touch …)` and backticks never run.
#[test]
fn tmux_popup_at_a_shell_prompt_writes_stdout_and_the_shell_runs_nothing() {
    if !tmux::require("tmux_popup_at_a_shell_prompt") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let store = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tmux");
    let shell = format!(
        "cd {dir} && exec env HOME={dir} HISTFILE=/dev/null PS1='READY$ ' \
         XDG_CACHE_HOME={cache} XDG_STATE_HOME={state} SR={bin} FIX={store} \
         bash --norc --noprofile -i",
        dir = quote(dir.path().to_str().unwrap()),
        cache = quote(dir.path().join("cache").to_str().unwrap()),
        state = quote(dir.path().join("state").to_str().unwrap()),
        bin = quote(BIN),
        store = quote(store.to_str().unwrap()),
    );
    let (inner, client) = attached("prompt", &shell);
    let pane = inner.first_pane();
    inner.wait_for("the prompt", |s| s.contains("READY$"));
    inner.type_text(&format!(
        "\"$SR\" --store \"$FIX\" --cwd {HERE} --query probe --tmux center,90%,90% \
         > out 2> err; echo $? > rc"
    ));
    inner.keys(&["Enter"]);
    client.wait_for("the popup", highlighted_anywhere("Shell injection probe"));
    client.keys(&["Enter"]);
    client.wait_for("the chip", |s| s.contains("@Shell injection probe"));
    client.keys(&["C-s"]);
    let exit = client.wait_for_exit(dir.path());
    let stderr = &exit.err;
    assert_eq!(exit.rc, "0", "stderr: {stderr}");

    // Wait for the next prompt, then look: nothing ran, nothing was typed.
    inner.wait_for("the shell to be idle at its next prompt", |s| {
        s.lines().filter(|l| l.starts_with("READY$")).count() >= 2
            && s.lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .map(str::trim_end)
                == Some("READY$")
    });
    let pwned: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("pwned"))
        .collect();
    assert!(pwned.is_empty(), "the shell ran session text: {pwned:?}");
    let text = inner.pane_text(&pane);
    for pasted in [
        "pwned",
        "Referenced sessions",
        "idempotency_keys",
        "not found",
    ] {
        assert!(!text.contains(pasted), "the pane got {pasted:?}:\n{text}");
    }
    let last = text.lines().rev().find(|l| !l.trim().is_empty()).unwrap();
    assert_eq!(last.trim_end(), "READY$");
    let mention = format_mention("9a1c-injection", Some("Shell injection probe"));
    let prepared = Command::new(BIN)
        .arg("--store")
        .arg(&store)
        .args(["--no-cache", "--cwd", HERE, "prepare", &mention])
        .output()
        .unwrap();
    assert!(prepared.status.success());
    let prepared = String::from_utf8(prepared.stdout).unwrap();
    assert!(prepared.contains("$(touch pwned-substitution)") && prepared.contains('`'));
    assert_eq!(exit.out, prepared);

    // An abort: exit 130, nothing on stdout.
    inner.type_text(&format!(
        "\"$SR\" --store \"$FIX\" --cwd {HERE} --tmux > out2 2> err2; echo $? > rc2"
    ));
    inner.keys(&["Enter"]);
    client.wait_for("the popup", highlighted_anywhere("Shell injection probe"));
    client.keys(&["Escape"]);
    let rc = wait_for_file(&dir.path().join("rc2"), &client);
    let stderr = std::fs::read_to_string(dir.path().join("err2")).unwrap();
    assert_eq!(rc.trim(), "130", "stderr: {stderr}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out2")).unwrap(),
        ""
    );

    // --exec runs here, after the popup: its stdout is ours, its code too.
    inner.type_text(&format!(
        "\"$SR\" --store \"$FIX\" --cwd {HERE} --format mention --query probe --tmux \
         --exec 'tr a-z A-Z; exit 3' > out3 2> err3; echo $? > rc3"
    ));
    inner.keys(&["Enter"]);
    client.wait_for("the popup", highlighted_anywhere("Shell injection probe"));
    client.keys(&["Enter"]);
    client.wait_for("the chip", |s| s.contains("@Shell injection probe"));
    client.keys(&["C-s"]);
    let rc = wait_for_file(&dir.path().join("rc3"), &client);
    let stderr = std::fs::read_to_string(dir.path().join("err3")).unwrap();
    assert_eq!(rc.trim(), "3", "stderr: {stderr}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out3")).unwrap(),
        format!("{}\n", mention.to_uppercase())
    );
}

/// `--tmux` from a key binding (`run-shell -b`, as in the README) with
/// `--tmux-paste` naming the pane: the picker opens in a popup over it and
/// the result is pasted there, bracketed, without a trailing newline; an
/// abort pastes nothing and leaves no view mode.
#[test]
fn tmux_popup_from_a_key_binding_pastes_where_asked_and_an_abort_leaves_no_view_mode() {
    if !tmux::require("tmux_popup_from_a_key_binding") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let pasted = dir.path().join("pasted");
    let (inner, client) = attached("popup", &paste_sink(&pasted));
    let pane = inner.first_pane();
    inner.wait_for_command(&pane, "cat");
    // The popup's run gets these from the invoking one: the test's own.
    let pick = format!(
        "env XDG_CACHE_HOME={} XDG_STATE_HOME={} {} --store {} --cwd {} --format mention \
         --query notes --tmux center,90%,90% --tmux-paste {pane} || true",
        quote(dir.path().join("cache").to_str().unwrap()),
        quote(dir.path().join("state").to_str().unwrap()),
        quote(BIN),
        quote(fixtures().to_str().unwrap()),
        HERE,
    );
    let run = |command: &str| inner.run(&["run-shell", "-b", command]);
    // An abort: the popup closes, the pane is not left in view mode.
    run(&pick);
    client.wait_for("the popup", highlighted_anywhere("Release notes draft"));
    client.keys(&["Escape"]);
    client.wait_for("the popup to close", |s| !s.contains("Release notes draft"));
    let mode = inner.ask(&["display-message", "-p", "#{pane_in_mode}"]);
    assert_eq!(mode, "0");
    assert_eq!(std::fs::read_to_string(&pasted).unwrap(), "");
    // A submit: the mention is pasted into the pane.
    run(&pick);
    client.wait_for("the popup", highlighted_anywhere("Release notes draft"));
    client.keys(&["Enter"]);
    client.wait_for("the chip", |s| s.contains("@Release notes draft"));
    client.keys(&["C-s"]);
    let mention = format_mention("d5e2-notes", Some("Release notes draft"));
    wait_for_content(&pasted, &format!("\x1b[200~{mention}\x1b[201~"), &client);
}

/// `--tmux` inside tmux with no client to show the popup on (a detached
/// session): a tmux failure with its own code, not a configuration error.
#[test]
fn tmux_popup_without_a_client_is_a_tmux_error() {
    if !tmux::require("tmux_popup_without_a_client") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tmux = Tmux::start(
        "noclient",
        80,
        24,
        &format!("{}; sleep 60", picker_command(dir.path(), &["--tmux"])),
    );
    let exit = tmux.wait_for_exit(dir.path());
    let stderr = &exit.err;
    assert_eq!(exit.rc, "1", "stderr: {stderr}");
    assert!(
        stderr
            .starts_with("session-ref: SESSION_REFERENCE_TMUX: --tmux: tmux cannot open the popup"),
        "stderr: {stderr}"
    );
    assert_eq!(exit.out, "");
}

/// Some row shows `label` highlighted (the popup draws inside a border).
fn highlighted_anywhere(label: &str) -> impl Fn(&str) -> bool + '_ {
    move |screen: &str| {
        screen
            .lines()
            .any(|row| row.contains('›') && row.contains(label))
    }
}

#[test]
fn alt_r_steps_through_older_drafts_and_keeps_what_it_replaced() {
    if !tmux::require("alt_r_steps_through_older_drafts") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let drafts = dir.path().join("state/session-ref");
    std::fs::create_dir_all(&drafts).unwrap();
    let mut saved = Vec::new();
    for (i, text) in ["older words", "newer words"].iter().enumerate() {
        let path = drafts.join(format!("draft-{i}-1.md"));
        std::fs::write(&path, text).unwrap();
        let when = std::time::SystemTime::now() - Duration::from_secs(600 - 60 * i as u64);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(when)
            .unwrap();
        saved.push(path);
    }
    let tmux = Tmux::start(
        "drafts",
        80,
        24,
        &picker_command(dir.path(), &["--format", "mention"]),
    );
    tmux.wait_for("the offer", |s| s.contains("2 prompts you did not send"));
    tmux.keys(&["Tab"]);
    tmux.type_text("fresh words");
    tmux.wait_for("the prompt", |s| s.contains("fresh words"));
    tmux.keys(&["M-r"]);
    tmux.wait_for("the newest draft", |s| {
        s.contains("newer words") && s.contains("saved prompt 1 of 2")
    });
    tmux.keys(&["M-r"]);
    tmux.wait_for("the older draft", |s| {
        s.contains("older words") && s.contains("saved prompt 2 of 2")
    });
    tmux.keys(&["C-s"]);
    let exit = tmux.wait_for_exit(dir.path());
    let stderr = &exit.err;
    assert_eq!(exit.rc, "0", "stderr: {stderr}");
    assert_eq!(exit.out, "older words\n");
    // The delivered draft is gone, the other stays, and what the drafts
    // replaced was saved as one.
    assert!(!saved[0].exists() && saved[1].exists(), "stderr: {stderr}");
    assert!(
        stderr.contains("note: the prompt a saved one replaced was saved to "),
        "stderr: {stderr}"
    );
    let texts: Vec<String> = std::fs::read_dir(&drafts)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert!(texts.contains(&"fresh words".to_owned()), "{texts:?}");
    assert_eq!(texts.len(), 2, "{texts:?}");
}

#[test]
fn an_unedited_prompt_given_on_the_command_line_is_not_saved() {
    if !tmux::require("unedited_prompt_not_saved") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tmux = Tmux::start(
        "unedited",
        80,
        24,
        &picker_command(dir.path(), &["--prompt", "as given"]),
    );
    tmux.wait_for("discovery", loaded);
    tmux.keys(&["Escape"]);
    let exit = tmux.wait_for_exit(dir.path());
    assert_eq!(exit.rc, "130");
    let stderr = &exit.err;
    assert!(!stderr.contains("saved"), "stderr: {stderr}");
    assert!(!dir.path().join("state/session-ref").exists());
}

#[test]
fn prepare_reading_a_terminal_says_how_to_end_the_message() {
    if !tmux::require("prepare_on_a_terminal") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let command = format!(
        "XDG_CACHE_HOME={} {} --store {} prepare > {}; echo done",
        quote(dir.path().join("cache").to_str().unwrap()),
        quote(BIN),
        quote(fixtures().to_str().unwrap()),
        quote(out.to_str().unwrap()),
    );
    let tmux = Tmux::start(
        "stdin",
        100,
        10,
        &format!("sh -c {}; sleep 30", quote(&command)),
    );
    tmux.wait_for("the hint", |s| {
        s.contains("reading the message from the terminal") && s.contains("ctrl-d")
    });
    tmux.type_text("plain words");
    tmux.keys(&["Enter", "C-d"]);
    tmux.wait_for("the end", |s| s.contains("done"));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "plain words\n");
}

/// A store of native sessions with these (id, title) in `dir/store`, its
/// sessions in the picker's target directory; its path.
fn titled_store(dir: &Path, sessions: &[(&str, &str)]) -> PathBuf {
    let store = dir.join("store");
    std::fs::create_dir_all(&store).unwrap();
    for (i, (id, title)) in sessions.iter().enumerate() {
        let lines = [
            serde_json::json!({"type": "session", "version": 1, "id": id, "cwd": HERE,
                "createdAt": format!("2025-05-{:02}T12:00:00Z", 10 + i)}),
            serde_json::json!({"seq": 1, "type": "user/message", "data": {"id": "u1",
                "source": {"kind": "user"}, "content": [{"type": "text", "text": "A question."}]}}),
            serde_json::json!({"seq": 2, "type": "session/title", "data": {"title": title}}),
        ];
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(store.join(format!("{id}.jsonl")), text).unwrap();
    }
    store
}

/// The picker on `store` (instead of the fixtures), as [`picker_command`].
fn picker_on(dir: &Path, store: &Path, args: &[&str]) -> String {
    picker_command(dir, args).replacen(
        &quote(fixtures().to_str().unwrap()),
        &quote(store.to_str().unwrap()),
        1,
    )
}

const LONG_TS: &str = "TypeScript SDK: typed client for the sessions endpoint and its pagination";
const LONG_PY: &str = "Python SDK: async client with retries for the sessions endpoint";

#[test]
fn side_by_side_a_label_takes_its_pane_and_scrolls_to_a_match_past_the_cut() {
    if !tmux::require("side_by_side_labels") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let store = titled_store(dir.path(), &[("ts-sdk", LONG_TS), ("py-sdk", LONG_PY)]);
    let tmux = Tmux::start("labels", 110, 30, &picker_on(dir.path(), &store, &[]));
    // Side by side at 110 columns, a label shows ~40 of its pane's 49
    // columns (it showed 19 when cwd, age and kind kept theirs). Waits for
    // the row too, not only the header (a capture can hold the header of
    // a frame over the rows of the one before).
    tmux.wait_for("discovery and a label ~40 columns wide", |s| {
        s.contains("2/2 · all dirs")
            && s.lines().nth(1).is_some_and(|row| {
                let pane: String = row.chars().take_while(|&c| c != '│').collect();
                pane.contains(&LONG_PY[..36]) || pane.contains(&LONG_TS[..36])
            })
    });
    // A match at the end of a label: the row scrolls to it.
    tmux.type_text("pagination");
    // Waits for the whole row: a capture can hold the new header over the
    // rows of the frame before, or a row half redrawn (CI caught
    // "…its paginats …", the new cells over the old). A row that never
    // scrolls to the match times out with the screen.
    tmux.wait_for("the match in view", |s| {
        s.contains("1/2 · all dirs")
            && s.lines()
                .nth(1)
                .is_some_and(|r| r.starts_with("›▌ …") && r.contains("its pagination"))
    });
    tmux.keys(&["Escape"]);
    tmux.wait_for_exit(dir.path());
}

#[test]
fn preview_window_places_the_preview_and_ctrl_slash_hides_it() {
    if !tmux::require("preview_window") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Below the list at 120 columns (side by side by default), 8 rows.
    let tmux = Tmux::start(
        "window",
        120,
        30,
        &picker_command(dir.path(), &["--preview-window", "down:8"]),
    );
    // Whichever session the highlight tracks once activity is read (one
    // fixture is broken on purpose: its preview is an error), the pane's
    // place is what is checked.
    let at = |screen: &str| screen.lines().position(|l| l.starts_with("─ Preview: "));
    // 30 rows: filter, list, 8 preview rows, 6 prompt rows, footer; no
    // pane beside the list.
    let below = |s: &str| at(s) == Some(30 - 1 - 6 - 8) && !s.contains('│');
    tmux.wait_for("discovery and a preview below the list", |s| {
        loaded(s) && below(s) && (s.contains("kept ") || s.contains("✗ "))
    });
    // ctrl-/ (0x1f, as terminals send it) hides it; again shows it.
    tmux.keys(&["-H", "1f"]);
    tmux.wait_for("no preview, the list highlighted", |s| {
        !s.contains("Preview: ") && s.lines().nth(1).is_some_and(|r| r.starts_with('›'))
    });
    tmux.keys(&["-H", "1f"]);
    tmux.wait_for("the preview again, below the list", below);
    tmux.keys(&["Escape"]);
    tmux.wait_for_exit(dir.path());

    // A bad value is a usage error before any terminal is touched.
    let out = Command::new(BIN)
        .args(["--store", "/nonexistent", "--preview-window", "up:30%"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("SESSION_REFERENCE_INVALID_CONFIG"), "{said}");
    assert!(said.contains("[right|down][:SIZE[%]][:hidden]"), "{said}");
}

/// An SGR mouse press and release of the left button at 0-based `x`, `y`,
/// as a terminal reports a click.
fn sgr_click(x: u16, y: u16) -> String {
    format!("\x1b[<0;{};{}M\x1b[<0;{};{}m", x + 1, y + 1, x + 1, y + 1)
}

#[test]
fn a_double_click_inserts_a_row_and_a_click_in_the_prompt_moves_the_cursor() {
    if !tmux::require("mouse") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tmux = Tmux::start(
        "mouse",
        100,
        30,
        &picker_command(
            dir.path(),
            &["--format", "mention", "--prompt", "compare the parser"],
        ),
    );
    tmux.wait_for("discovery", loaded);
    // A click in the prompt's first row (y 24 at 30 rows, text from x 1),
    // column 8: before "the". Typing goes there.
    tmux.type_text(&sgr_click(1 + 8, 24));
    tmux.type_text("X ");
    let screen = tmux.wait_for("the text inserted there, the list settled", |s| {
        loaded(s) && s.contains("compare X the parser")
    });
    // A double click (two clicks at once) on the second row inserts it.
    let second = screen.lines().nth(2).unwrap().to_owned();
    let row: String = second.chars().skip(3).collect();
    let label = row.split("  ").next().unwrap().trim().to_owned();
    assert!(!label.is_empty(), "no second row:\n{screen}");
    tmux.type_text(&format!("{}{}", sgr_click(5, 2), sgr_click(5, 2)));
    let chip = format!("@{label}");
    tmux.wait_for("its chip", |s| {
        s.contains("sessions 1/3") && s.contains(&chip)
    });
    tmux.keys(&["C-s"]);
    let exit = tmux.wait_for_exit(dir.path());
    let out = exit.out;
    assert_eq!(exit.rc, "0");
    assert!(out.starts_with("compare X "), "{out}");
    assert!(out.contains(&format!("@[{label}](hydra-session:")), "{out}");
}

/// The bottom row of a screen.
fn footer(screen: &str) -> &str {
    screen.lines().last().unwrap_or("")
}

#[test]
fn the_footer_and_the_help_teach_search_and_the_query_syntax() {
    if !tmux::require("footer_and_help_teach_search") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tmux = Tmux::start("discover", 80, 24, &picker_command(dir.path(), &[]));
    tmux.wait_for("discovery, the footer naming search", |s| {
        loaded(s) && footer(s).contains("ctrl-t search")
    });
    // F1: the query syntax, and descriptions wrapped, not cut. Inside the
    // popup (76 columns, centred: its border at columns 2 and 77), rows
    // joined: a wrapped description reads whole.
    let flat = |s: &str| -> String {
        s.lines()
            .map(|l| l.chars().skip(3).take(74).collect::<String>())
            .collect::<Vec<_>>()
            .join(" ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    tmux.keys(&["F1"]);
    // The popup's body, not only its border (a capture can land between).
    tmux.wait_for("the help", |s| {
        s.contains("Keys (esc closes)") && flat(s).contains("Anywhere")
    });
    // Two pages and two rows: the filter's heading and its first key.
    tmux.keys(&["PageDown", "PageDown", "Down", "Down"]);
    tmux.wait_for("the filter's keys, wrapped whole", |s| {
        s.contains("Filter (the query line)")
            && flat(s).contains("insert the highlighted session's mention in the prompt")
    });
    // Scrolled to its end: both query syntaxes.
    tmux.keys(&["PageDown"; 8]);
    tmux.wait_for("the end of the help: both query syntaxes", |s| {
        let flat = flat(s);
        s.contains("Conversation search syntax")
            && flat.contains("'word exact: found as typed")
            && flat.contains("re:REGEX a regular expression")
    });
    tmux.keys(&["Escape"]);
    tmux.wait_for("the help closed", |s| !s.contains("Keys (esc closes)"));
    // Conversation search ranks by the search's score and says so. The
    // preview, opened from a match, shows the matches in the match style
    // (yellow, as in the list; tmux writes it as `33` or as colour 3 of its
    // palette).
    tmux.keys(&["C-t"]);
    tmux.type_text("preview");
    let yellow = |l: &str| l.contains("[33m") || l.contains(";33m") || l.contains("38;5;3m");
    tmux.wait_for_styled(
        "search results and their preview, matches in yellow",
        |styled| {
            let screen = strip_sgr(styled);
            let Some(rule) = screen.lines().position(|l| l.starts_with("─ Preview")) else {
                return false;
            };
            let previewed: Vec<&str> = styled
                .lines()
                .skip(rule + 2)
                .filter(|l| strip_sgr(l).to_lowercase().contains("preview"))
                .collect();
            screen.starts_with("search: preview")
                && screen
                    .lines()
                    .next()
                    .is_some_and(|l| l.contains("by match score"))
                && screen.contains("kept ")
                && !previewed.is_empty()
                && previewed.iter().all(|l| yellow(l))
        },
    );
    tmux.keys(&["Escape"]);
    tmux.wait_for_exit(dir.path());
}

#[test]
fn search_highlights_matches_on_a_terminal_and_never_in_a_pipe() {
    if !tmux::require("search_highlights_on_a_terminal") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let piped = dir.path().join("piped");
    let search = |redirect: &str| {
        format!(
            "XDG_CACHE_HOME={} {} --store {} search preview {redirect}",
            quote(dir.path().join("cache").to_str().unwrap()),
            quote(BIN),
            quote(fixtures().to_str().unwrap()),
        )
    };
    let command = format!(
        "{}; {}; echo done; sleep 30",
        search(""),
        search(&format!("> {}", quote(piped.to_str().unwrap())))
    );
    let tmux = Tmux::start(
        "searchcolor",
        160,
        40,
        &format!("sh -c {}", quote(&command)),
    );
    // A hit line: the match is preceded by an SGR turning on bold/yellow.
    let hit =
        |l: &&str| l.contains(": ") && l.contains('#') && l.to_lowercase().contains("preview");
    let highlighted = |l: &str| {
        let before = l.to_lowercase().find("preview").and_then(|at| l.get(..at));
        before.is_some_and(|b| b.ends_with('m') && b.contains("\u{1b}["))
    };
    tmux.wait_for_styled("the searches done, the hit highlighted", |styled| {
        strip_sgr(styled).contains("done") && styled.lines().find(hit).is_some_and(highlighted)
    });
    let file = std::fs::read_to_string(&piped).unwrap();
    assert!(file.to_lowercase().contains("preview"), "{file}");
    assert!(!file.contains('\u{1b}'), "{file:?}");
}

#[test]
fn a_prompt_citing_a_session_no_store_has_is_flagged_once_listed() {
    if !tmux::require("unknown_mention_flagged") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let gone = format_mention("gone-0000-session", Some("Deleted long ago"));
    let tmux = Tmux::start(
        "unknown",
        100,
        24,
        &picker_command(dir.path(), &["--prompt", &format!("see {gone}")]),
    );
    tmux.wait_for("the verdict", |s| {
        let flat = s.split_whitespace().collect::<Vec<_>>().join(" ");
        s.contains("1 not found")
            && flat.contains("@Deleted long ago (gone-0000-session) cites a session no store lists")
    });
    tmux.keys(&["Escape"]);
    tmux.wait_for_exit(dir.path());
}

#[test]
fn a_chip_wider_than_the_prompt_is_cut_with_an_ellipsis() {
    if !tmux::require("wide_chip_ellipsis") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let label = format!("Wide label {}", "and more words ".repeat(8));
    let mention = format_mention("7f3a-parser", Some(label.trim_end()));
    let tmux = Tmux::start(
        "widechip",
        60,
        24,
        &picker_command(dir.path(), &["--prompt", &mention]),
    );
    tmux.wait_for("the chip, cut with an ellipsis", |s| {
        s.lines()
            .find(|l| l.contains("@Wide label"))
            .is_some_and(|row| row.trim_end().ends_with('…'))
    });
    tmux.keys(&["Escape"]);
    tmux.wait_for_exit(dir.path());
}

/// Write `count` native sessions of other directories into `dir`, the
/// newest created last, titled `Elsewhere N`.
fn elsewhere_store(dir: &Path, count: usize) {
    std::fs::create_dir_all(dir).unwrap();
    for i in 0..count {
        let id = format!("elsewhere-{i:05}");
        let lines = [
            serde_json::json!({"type": "session", "version": 1, "id": id,
                "cwd": format!("/home/dev/other/p{}", i % 17),
                "createdAt": format!("2025-06-{:02}T{:02}:{:02}:00Z", 1 + i / 1440 % 28, i / 60 % 24, i % 60)}),
            serde_json::json!({"seq": 1, "type": "session/title", "data": {"title": format!("Elsewhere {i}")}}),
        ];
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(dir.join(format!("{id}.jsonl")), text).unwrap();
    }
}

#[test]
fn the_picker_opens_on_this_directorys_session_even_when_it_is_discovered_last() {
    // #25 item 10: the highlight followed the session discovered first and
    // Enter inserted it. Sessions of other directories are listed first
    // (the first store given, thousands of them, in several batches), this
    // directory's one last (the second store): until the user moves, the
    // highlight stays on the top row, this directory's session.
    if !tmux::require("the_picker_opens_on_this_directorys_session") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let others = dir.path().join("others");
    elsewhere_store(&others, 4000);
    let here = titled_store(dir.path(), &[("here-1", "The session of this directory")]);
    let command = picker_command(dir.path(), &["--format", "mention"]).replacen(
        &quote(fixtures().to_str().unwrap()),
        &format!(
            "{} --store {}",
            quote(others.to_str().unwrap()),
            quote(here.to_str().unwrap())
        ),
        1,
    );
    let tmux = Tmux::start("opens-on-top", 120, 30, &command);
    // A top row highlighted on another session times out with the screen.
    tmux.wait_for("everything listed, the top row highlighted", |s| {
        s.lines().next().is_some_and(|header| {
            header.contains("4001/4001")
                && !header.contains("discovering")
                && !header.contains("reading titles")
        }) && highlighted("The session of this directory")(s)
    });
    tmux.keys(&["Enter"]);
    tmux.wait_for("the mention in the prompt", |s| {
        s.contains("@The session of this directory")
    });
    tmux.keys(&["C-s"]);
    let exit = tmux.wait_for_exit(dir.path());
    let stderr = &exit.err;
    assert_eq!(exit.rc, "0", "stderr: {stderr}");
    assert_eq!(
        exit.out,
        format!(
            "{}\n",
            format_mention("here-1", Some("The session of this directory"))
        )
    );
}
