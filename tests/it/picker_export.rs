//! End to end: `alt-x` in the real picker (tmux, the suite's one driver)
//! asks for a file, starting from a safe slug of the label, writes the
//! export there privately, says so in the status line, and replaces an
//! existing file only when `enter` is pressed again. The label is hostile
//! (`$(touch PWNED)`, `../`): nothing runs and nothing lands outside the
//! picker's directory.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::support::tmux::{self, quote, quote_path, Tmux};

const BIN: &str = env!("CARGO_BIN_EXE_session-ref");
const LABEL: &str = "$(touch PWNED) ../../etc/x `id`";

/// A native store holding one session titled [`LABEL`].
fn store(dir: &Path) -> std::path::PathBuf {
    let store = dir.join("store");
    std::fs::create_dir_all(&store).unwrap();
    let lines = [
        serde_json::json!({"type": "session", "version": 1, "id": "s-export",
            "cwd": "/w", "createdAt": "2026-11-30T12:00:00Z"}),
        serde_json::json!({"seq": 1, "type": "user/message", "data": {"id": "u1",
            "source": {"kind": "user"}, "content": [{"type": "text", "text": "Export me, please."}]}}),
        serde_json::json!({"seq": 2, "type": "assistant/message", "data": {"message": {"id": "a1",
            "content": [{"type": "text", "text": "Sure <b>thing</b>."}]}}}),
        serde_json::json!({"seq": 3, "type": "session/title", "data": {"title": LABEL}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(store.join("s-export.jsonl"), text).unwrap();
    store
}

#[test]
fn alt_x_exports_privately_under_a_safe_name_and_asks_before_replacing() {
    if !tmux::require("alt_x_export") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let store = store(dir.path());
    let command = format!(
        "cd {} && XDG_STATE_HOME={} XDG_CACHE_HOME={} {} --store {} --cwd /w",
        quote_path(&work),
        quote_path(&dir.path().join("state")),
        quote_path(&dir.path().join("cache")),
        quote(BIN),
        quote_path(&store),
    );
    let tmux = Tmux::start("export", 100, 30, &tmux::recorded(dir.path(), &command));
    tmux.wait_for("the session listed", |s| s.contains("1/1 · all dirs"));
    tmux.keys(&["M-x"]);
    let slug = "touch-pwned-etc-x-id";
    tmux.wait_for("the question with the slug", |s| {
        s.contains("Export to") && s.contains(&format!("./{slug}.md"))
    });
    tmux.keys(&["Enter"]);
    let file = work.join(format!("{slug}.md"));
    tmux.wait_for("the status line says where", |s| {
        s.contains(&format!("exported to ./{slug}.md"))
    });
    let written = std::fs::read_to_string(&file).unwrap();
    assert!(written.contains("Export me, please.") && written.contains("Sure <b>thing</b>."));
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);

    // Again, as HTML over an existing file: asked first, then replaced.
    let html = work.join("page.html");
    std::fs::write(&html, "keep me").unwrap();
    tmux.keys(&["M-x", "C-u"]);
    tmux.type_text("page.html");
    tmux.wait_for("the new path typed", |s| s.contains("page.html"));
    tmux.keys(&["Enter"]);
    tmux.wait_for("told the file exists", |s| {
        s.contains("page.html exists: enter replaces it")
    });
    assert_eq!(std::fs::read_to_string(&html).unwrap(), "keep me");
    tmux.keys(&["Enter"]);
    tmux.wait_for("replaced", |s| s.contains("exported to page.html"));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains("Sure &lt;b&gt;thing&lt;/b&gt;."));
    assert!(!page.contains("<b>"));

    tmux.keys(&["Escape"]);
    let exit = tmux.wait_for_exit(dir.path());
    assert_eq!(exit.rc, "130", "{}", exit.err);
    assert!(exit.out.is_empty());
    // Nothing the label spells ran or escaped the directory.
    let mut names: Vec<String> = std::fs::read_dir(&work)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["page.html".to_owned(), format!("{slug}.md")]);
    for place in [dir.path(), &work, Path::new(".")] {
        assert!(!place.join("PWNED").exists(), "{}", place.display());
    }
}
