//! One store, every front-end, one answer (#26): the demo store
//! (`assets/demo`) asked the same things through the command line, the
//! picker (in tmux), the MCP server, every hook and `remote serve`, all
//! black box through the built binary. Each rule (the list order, the
//! snapshot of a session, what names a session) must come out the same
//! whichever front-end is asked, so a front-end that grows its own copy of
//! a rule and lets it drift fails here.
//!
//! - order: `candidates --json`, the picker's rows and MCP `list_sessions`;
//! - snapshot: `preview --json`'s context, byte for byte, is MCP
//!   `read_session`'s text, the session's MCP resource, what the `cite`
//!   prompt adds after the mention, each hook's added context before its
//!   stats (the demo sessions are within every host's cap), and the
//!   snapshot a client builds from `remote serve` (through a loopback
//!   "ssh" that runs the remote command here: no sshd needed);
//! - session argument: an id, its unique start, its mention and its URI
//!   name the same session in `preview`, `mention` and `read_session`, and
//!   a name that is ambiguous or unknown fails with the same line in all
//!   three; `ID@HOST` names the remote's session to the command line and to
//!   MCP alike.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::support::mcp::Client;
use crate::support::tmux::{self, quote, quote_path, Tmux};
use crate::support::{feed, hook_context, hook_input, run, stderr, stdout};

/// The directory the demo's sessions are asked from: its first group.
const CWD: &str = "/home/dev/projects/payments-api";

/// The agents whose hook adds context (every `hook AGENT`).
const HOOKS: [&str; 5] = ["claude", "codex", "gemini", "copilot", "qwen"];

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo")
}

/// `session-ref --store DEMO --cwd CWD ARGS`: stdout, which must be a
/// success's.
fn cli(args: &[&str]) -> String {
    let demo = demo();
    let mut all = vec!["--store", demo.to_str().unwrap(), "--cwd", CWD];
    all.extend_from_slice(args);
    let out = run(&all, "");
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

/// `candidates --json`: every session of the demo, best first.
fn candidates() -> Vec<Value> {
    let rows: Vec<Value> = cli(&["candidates", "--json", "--limit", "1000"])
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        rows.len() > 10,
        "the demo store lists its sessions: {rows:?}"
    );
    rows
}

fn field<'v>(row: &'v Value, name: &str) -> &'v str {
    row[name]
        .as_str()
        .unwrap_or_else(|| panic!("no {name}: {row}"))
}

/// `preview --json ID`'s context, the snapshot every front-end must
/// give, and whether the budget cut the session.
fn preview(session: &str) -> (String, bool) {
    let out: Value = serde_json::from_str(&cli(&["preview", "--json", session])).unwrap();
    let reference = &out["reference"];
    let cut = reference["truncated"] == true || reference["omittedMessages"] != 0;
    (out["context"].as_str().unwrap().to_owned(), cut)
}

/// The MCP server over the demo store, initialized, its snapshots at the
/// command line's default budget (its own default is smaller: what every
/// agent keeps whole), so both cut a long session at the same place.
fn mcp() -> Client {
    Client::start(&demo(), &["--cwd", CWD, "--max-reference-bytes", "65536"])
}

/// Assert `got` is `want` byte for byte; on failure, where they part
/// (snapshots are long: the whole of both would bury the difference).
fn same(what: &str, got: &str, want: &str) {
    if got == want {
        return;
    }
    let at = got
        .bytes()
        .zip(want.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or(got.len().min(want.len()));
    let around = |s: &str| -> String {
        let start = (0..=at.saturating_sub(60).min(s.len()))
            .rev()
            .find(|&i| s.is_char_boundary(i))
            .unwrap_or(0);
        s[start..].chars().take(160).collect()
    };
    panic!(
        "{what}: {} bytes where {} were expected, first differing at byte {at}:\n  got:  {:?}\n  want: {:?}",
        got.len(),
        want.len(),
        around(got),
        around(want)
    );
}

/// `read_session {session}`: its text, and whether it is an error.
fn read_session(client: &mut Client, session: &str) -> (String, bool) {
    let result = client.call("read_session", json!({"session": session}));
    let text = result["content"][0]["text"].as_str().unwrap().to_owned();
    (text, result["isError"] == true)
}

#[test]
fn candidates_and_mcp_list_sessions_give_one_order() {
    let listed: Vec<String> = candidates()
        .iter()
        .map(|r| field(r, "sessionId").to_owned())
        .collect();
    let mut client = mcp();
    let result = client.call("list_sessions", json!({"limit": 100}));
    let sessions = result["structuredContent"]["sessions"]
        .as_array()
        .unwrap_or_else(|| panic!("{result}"));
    let served: Vec<&str> = sessions.iter().map(|s| field(s, "sessionId")).collect();
    assert_eq!(served, listed, "MCP list_sessions against candidates");
}

/// The label a picker row shows: after the highlight and the bar, up to
/// the gap before the directory.
fn row_label(row: &str) -> String {
    let text: String = row.chars().skip(3).collect();
    text.split("  ").next().unwrap_or("").trim().to_owned()
}

#[test]
fn the_pickers_rows_are_in_the_candidates_order() {
    if !tmux::require("the_pickers_rows_are_in_the_candidates_order") {
        return;
    }
    let labels: Vec<String> = candidates()
        .iter()
        .map(|r| field(r, "label").to_owned())
        .collect();
    let dir = tempfile::tempdir().unwrap();
    // Wide enough for every label whole, tall enough for every row; no
    // preview beside the list.
    let picker = tmux::recorded(
        dir.path(),
        &format!(
            "XDG_STATE_HOME={} XDG_CACHE_HOME={} {} --store {} --cwd {CWD} --preview-window hidden",
            quote_path(&dir.path().join("state")),
            quote_path(&dir.path().join("cache")),
            quote(env!("CARGO_BIN_EXE_session-ref")),
            quote_path(&demo()),
        ),
    );
    let tmux = Tmux::start("consistency", 200, labels.len() as u16 + 16, &picker);
    let counts = format!("{0}/{0} · all dirs", labels.len());
    tmux.wait_for("every session listed, in the candidates order", |s| {
        let rows: Vec<String> = s
            .lines()
            .skip(1)
            .take(labels.len())
            .map(row_label)
            .collect();
        s.lines().next().is_some_and(|h| h.contains(&counts)) && rows == labels
    });
    tmux.keys(&["Escape"]);
    assert_eq!(tmux.wait_for_exit(dir.path()).rc, "130");
}

#[test]
fn every_front_end_gives_the_preview_snapshot_byte_for_byte() {
    let rows = candidates();
    let mut client = mcp();
    // Per hook, how many sessions it gave whole (and so were compared).
    let mut whole: HashMap<&str, usize> = HashMap::new();
    let mut uncut = 0;
    for row in &rows {
        let id = field(row, "sessionId");
        let mention = field(row, "mention");
        let (snapshot, cut) = preview(id);
        uncut += usize::from(!cut);
        assert!(
            snapshot.starts_with("## Referenced sessions") && snapshot.contains(id),
            "{id}: {snapshot}"
        );

        let (text, error) = read_session(&mut client, id);
        assert!(!error, "{id}: {text}");
        same(&format!("MCP read_session {id}"), &text, &snapshot);

        let uri = session_ref_core::uri::encode(id);
        let read = client.request("resources/read", json!({"uri": uri}));
        let contents = &read["result"]["contents"][0];
        assert_eq!(contents["uri"], uri.as_str(), "{read}");
        let text = contents["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{read}"));
        same(&format!("MCP resource {uri} of {id}"), text, &snapshot);

        // The cite prompt's best match for an id is that session.
        let cited = client.request(
            "prompts/get",
            json!({"name": "cite", "arguments": {"query": id}}),
        );
        let text = cited["result"]["messages"][0]["content"]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{cited}"));
        same(
            &format!("MCP cite {id}"),
            text,
            &format!("{mention}\n\n{snapshot}"),
        );

        for agent in HOOKS {
            let (text, gave_whole) = hook(agent, mention);
            // Where the host's cap allows the whole (a session the budget
            // does not cut, kept whole by the hook): the snapshot.
            if gave_whole && !cut {
                same(&format!("hook {agent} on {id}"), &text, &snapshot);
                *whole.entry(agent).or_default() += 1;
            }
        }
    }
    // Gemini CLI's and Copilot CLI's caps take every session whole; the
    // others' cut the longest only.
    for agent in HOOKS {
        let compared = whole.get(agent).copied().unwrap_or(0);
        let least = match agent {
            "gemini" | "copilot" => uncut,
            _ => uncut / 2,
        };
        assert!(
            compared >= least.max(1),
            "hook {agent}: {compared} of {uncut} sessions compared whole"
        );
    }
}

/// `hook AGENT` on a prompt citing `mention`: the snapshot it adds (its
/// context before the stats), and whether it kept the session whole.
fn hook(agent: &str, mention: &str) -> (String, bool) {
    let input = hook_input(agent, &format!("what did we decide in {mention}?"));
    let demo = demo();
    let args = [
        "--store",
        demo.to_str().unwrap(),
        "--cwd",
        CWD,
        "hook",
        agent,
    ];
    let out = run(&args, &input.to_string());
    assert!(out.status.success(), "{agent}: {}", stderr(&out));
    let answer: Value = serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|e| panic!("{agent} on {mention}: {e}: {}", stdout(&out)));
    let context =
        hook_context(agent, &answer).unwrap_or_else(|| panic!("{agent} on {mention}: {answer}"));
    let (text, stats) = context
        .split_once("\n\n<referenced-sessions-stats>\n")
        .unwrap_or_else(|| panic!("{agent} on {mention}: {context}"));
    let stats: Value = serde_json::from_str(
        stats
            .strip_suffix("\n</referenced-sessions-stats>")
            .unwrap_or_else(|| panic!("{agent}: {stats}")),
    )
    .unwrap_or_else(|e| panic!("{agent} on {mention}: {e}: {stats}"));
    let reference = &stats["references"][0];
    let kept_whole = reference["truncated"] == false
        && reference["omittedMessages"] == 0
        && reference["retainedMessages"] == reference["originalMessages"];
    (text.to_owned(), kept_whole)
}

/// A home whose config names the remote `lo`, reached through a loopback
/// "ssh": a script that drops ssh's options and host and runs the remote
/// command here, so the client talks to a real `remote serve` over the
/// demo store.
fn loopback_remote(home: &Path) -> PathBuf {
    let ssh = home.join("loopback-ssh");
    std::fs::write(
        &ssh,
        "#!/bin/sh\nwhile [ \"$1\" != -- ]; do shift; done\nshift 2\nexec sh -c \"$1\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&ssh, std::fs::Permissions::from_mode(0o755)).unwrap();
    let config = home.join("config");
    std::fs::create_dir_all(config.join("session-ref")).unwrap();
    let command = format!(
        "env XDG_CACHE_HOME={} {}",
        quote_path(&home.join("remote-cache")),
        quote(env!("CARGO_BIN_EXE_session-ref"))
    );
    std::fs::write(
        config.join("session-ref/config.toml"),
        format!(
            "ssh_command = {:?}\n\n[[remote]]\nhost = \"lo\"\ncommand = {command:?}\nargs = [\"--store\", {:?}]\n",
            ssh.to_str().unwrap(),
            demo().to_str().unwrap(),
        ),
    )
    .unwrap();
    config
}

#[test]
fn remote_serve_gives_the_preview_snapshot_byte_for_byte() {
    let home = tempfile::tempdir().unwrap();
    let config = loopback_remote(home.path());
    let empty = home.path().join("no-local-sessions");
    std::fs::create_dir(&empty).unwrap();
    let env = [("XDG_CONFIG_HOME", config.as_path())];
    // Run with the remote configured and no local session.
    let here = |args: &[&str]| {
        let mut command = crate::support::command(home.path());
        command
            .env("XDG_CONFIG_HOME", &config)
            .arg("--store")
            .arg(&empty)
            .args(args);
        let out = feed(&mut command, "");
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        stdout(&out)
    };
    let mut client = Client::start_with(&empty, &["--max-reference-bytes", "65536"], &env);
    for row in candidates() {
        let id = field(&row, "sessionId");
        let remote_id = format!("{id}@lo");
        let answer: Value =
            serde_json::from_str(&here(&["preview", "--json", &remote_id])).unwrap();
        let through = answer["context"].as_str().unwrap();
        // Byte for byte, but for the id it cites (`ID@HOST`).
        same(
            &format!("the remote's snapshot of {id}"),
            &through.replace(&remote_id, id),
            &preview(id).0,
        );
        // `ID@HOST` names it to MCP as to the command line.
        let (text, error) = read_session(&mut client, &remote_id);
        assert!(!error, "{remote_id}: {text}");
        same(&format!("MCP read_session {remote_id}"), &text, through);
        // Its label is the session's title, else its id (here `ID@HOST`).
        let label = match field(&row, "label") {
            label if label == id => remote_id.as_str(),
            label => label,
        };
        let mention = here(&["mention", &remote_id]);
        let want = session_ref_core::mention::format_mention(&remote_id, Some(label));
        assert_eq!(mention.trim_end(), want, "mention {remote_id}");
    }
}

#[test]
fn an_id_its_start_its_mention_and_its_uri_name_one_session_everywhere() {
    let rows = candidates();
    let mut client = mcp();
    // A session whose id starts unlike every other's: its first 8
    // characters are a unique start.
    let ids: Vec<&str> = rows.iter().map(|r| field(r, "sessionId")).collect();
    let (row, start) = rows
        .iter()
        .find_map(|r| {
            let id = field(r, "sessionId");
            let start = id.get(..8)?;
            let unique = ids.iter().filter(|other| other.starts_with(start)).count() == 1;
            (unique && start.len() < id.len()).then_some((r, start))
        })
        .expect("a session with a unique 8-character start");
    let id = field(row, "sessionId");
    let (snapshot, _) = preview(id);
    let uri = session_ref_core::uri::encode(id);
    for name in [id, start, field(row, "mention"), uri.as_str()] {
        same(&format!("preview {name}"), &preview(name).0, &snapshot);
        let (text, error) = read_session(&mut client, name);
        assert!(!error, "{name}: {text}");
        same(&format!("MCP read_session {name}"), &text, &snapshot);
        assert_eq!(
            cli(&["mention", name]).trim_end(),
            field(row, "mention"),
            "mention {name}"
        );
    }

    // What does not name one session fails alike: the line the command
    // line prints is the text MCP answers, with the same code.
    let shared = ids
        .iter()
        .filter_map(|id| id.get(..4))
        .find(|start| ids.iter().filter(|id| id.starts_with(start)).count() > 1)
        .expect("a start several ids share");
    for name in [shared, "no-such-session-0000"] {
        let demo = demo();
        let out = run(
            &[
                "--store",
                demo.to_str().unwrap(),
                "--cwd",
                CWD,
                "preview",
                name,
            ],
            "",
        );
        assert_eq!(out.status.code(), Some(1), "preview {name}");
        let (text, error) = read_session(&mut client, name);
        assert!(error, "MCP read_session {name}: {text}");
        assert_eq!(format!("{text}\n"), stderr(&out), "{name}");
        let out = run(
            &[
                "--store",
                demo.to_str().unwrap(),
                "--cwd",
                CWD,
                "mention",
                name,
            ],
            "",
        );
        // `mention` says the same of the name, then how to write one anyway.
        assert_eq!(out.status.code(), Some(1), "mention {name}");
        let said = stderr(&out);
        let code = text.split(": ").take(2).collect::<Vec<_>>().join(": ");
        assert!(
            said.starts_with(&format!("{code}: ")) && said.contains(&format!("{name:?}")),
            "mention {name}: {said} (MCP: {text})"
        );
    }
}
