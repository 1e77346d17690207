//! `session-ref mcp` driven over stdio by a small JSON-RPC client, against
//! the built binary: the protocol (handshakes, errors, limits, end of
//! input), the tools, resources and prompt, and `mcp install|uninstall`.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support;
use crate::support::mcp::Client;
use crate::support::{command, stdout, Session};

/// A native store: a few sessions with titles, a large one, and one whose
/// text holds a marker for search.
fn store(dir: &Path) {
    Session::new("alpha", "2025-01-03T00:00:00Z", Some("/w/a"))
        .title("Alpha idempotency keys")
        .user("How do we make payments idempotent?")
        .assistant("Use idempotency keys <k> & retries.")
        .write(dir, "alpha.jsonl");
    Session::new("beta", "2025-01-02T00:00:00Z", Some("/w/b"))
        .title("Beta dashboard")
        .user("the xylophone chart is broken")
        .assistant("Fixed the chart.")
        .write(dir, "beta.jsonl");
    Session::new("big", "2024-12-01T00:00:00Z", None)
        .user("write a long answer")
        .assistant(&"é and some text. ".repeat(4_000))
        .write(dir, "big.jsonl");
}

/// `preview --json`'s object at `budget` bytes.
fn preview(store_dir: &Path, id: &str, budget: usize) -> Value {
    let home = tempfile::tempdir().unwrap();
    let out = command(home.path())
        .arg("--store")
        .arg(store_dir)
        .args([
            "--max-reference-bytes",
            &budget.to_string(),
            "preview",
            "--json",
            id,
        ])
        .output()
        .unwrap();
    serde_json::from_str(&stdout(&out)).unwrap()
}

fn text_of(result: &Value) -> &str {
    result["content"][0]["text"].as_str().expect("a text block")
}

#[test]
fn claude_codes_probe_gets_method_not_found_then_both_versions_negotiate() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path());
    for version in ["2025-11-25", "2025-06-18"] {
        let mut client = Client::spawn(dir.path(), &[]);
        let probe = client.request("server/discover", json!({}));
        assert_eq!(probe["error"]["code"], -32601, "{probe}");
        let init = client.request(
            "initialize",
            json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
        );
        assert_eq!(init["result"]["protocolVersion"], version);
        assert_eq!(init["result"]["serverInfo"]["name"], "session-ref");
        let caps = &init["result"]["capabilities"];
        assert!(
            caps["tools"].is_object()
                && caps["resources"].is_object()
                && caps["prompts"].is_object()
        );
        client.notify("notifications/initialized", json!({}));
        // After initialize too, an unknown method is -32601.
        for method in ["server/discover", "no/such/method"] {
            assert_eq!(client.request(method, json!({}))["error"]["code"], -32601);
        }
        assert!(client.close().success());
    }
}

/// The 2026-07-28 revision's per-request context, as a client puts it in
/// every request's `_meta`.
fn stateless_meta(client: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": client, "version": "1"}
    })
}

/// The stateless revision (2026-07-28) is served by the same stdio server
/// as `initialize`: `server/discover` names both eras' versions, requests
/// carrying their context in `_meta` are answered without a handshake,
/// with `resultType` and cache hints; older clients see neither.
#[test]
fn the_stateless_revision_is_served_beside_initialize() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path());
    let mut client = Client::spawn(dir.path(), &[]);
    let meta = stateless_meta("claude-code");
    let discover = client.request("server/discover", json!({"_meta": meta}));
    let versions = discover["result"]["supportedVersions"].as_array().unwrap();
    for version in ["2026-07-28", "2025-11-25", "2025-06-18"] {
        assert!(versions.contains(&json!(version)), "{discover}");
    }
    assert_eq!(discover["result"]["resultType"], "complete");
    assert!(discover["result"]["capabilities"]["tools"].is_object());
    let tools = client.request("tools/list", json!({"_meta": meta}));
    assert_eq!(
        tools["result"]["tools"].as_array().unwrap().len(),
        3,
        "{tools}"
    );
    assert_eq!(tools["result"]["resultType"], "complete");
    assert_eq!(tools["result"]["cacheScope"], "private");
    assert!(tools["result"]["ttlMs"].as_u64().unwrap() > 0);
    let resources = client.request("resources/list", json!({"_meta": meta}));
    assert_eq!(resources["result"]["ttlMs"], 15_000, "{resources}");
    let read = client.request(
        "tools/call",
        json!({"name": "read_session", "arguments": {"session": "alpha"}, "_meta": meta}),
    );
    let read = &read["result"];
    assert_eq!(read["resultType"], "complete");
    assert_eq!(
        text_of(read),
        preview(dir.path(), "alpha", 32_768)["context"]
            .as_str()
            .unwrap()
    );
    // The client named in `_meta` counts: Claude Code gets text only.
    assert!(read.get("structuredContent").is_none(), "{read}");
    let bad = client.request(
        "tools/call",
        json!({"name": "list_sessions", "arguments": 7, "_meta": meta}),
    );
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    // Without its context, a request of this lifecycle is refused.
    let bare = client.request("tools/list", json!({}));
    assert_eq!(bare["error"]["code"], -32602, "{bare}");
    assert!(client.close().success());

    // A client of the older revision sees results as before.
    let mut client = Client::start(dir.path(), &[]);
    let tools = client.request("tools/list", json!({}));
    for key in ["resultType", "ttlMs", "cacheScope"] {
        assert!(tools["result"].get(key).is_none(), "{key}: {tools}");
    }
    assert!(client.close().success());
}

#[test]
fn malformed_and_oversized_lines_get_errors_and_the_server_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path());
    let mut client = Client::start(dir.path(), &[]);
    client.send_raw(b"{this is not json\n");
    let parse = client.receive();
    assert_eq!(
        (parse["id"].clone(), parse["error"]["code"].clone()),
        (Value::Null, json!(-32700))
    );
    client.send_raw(b"[1,2,3]\n");
    assert_eq!(client.receive()["error"]["code"], -32600);
    // 4 MiB in one line, its id at the end (where Claude Code writes it).
    let mut huge = br#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"read_session","arguments":{"session":""#.to_vec();
    huge.extend(std::iter::repeat_n(b'x', 4 << 20));
    huge.extend(br#""}},"id":77}"#);
    huge.push(b'\n');
    client.send_raw(&huge);
    let refused = client.answer_to(&json!(77));
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert!(refused["error"]["message"]
        .as_str()
        .unwrap()
        .contains("longer than"));
    // Bad params of a known method.
    let bad = client.request("tools/call", json!(7));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    // Still serving.
    let listed = client.call("list_sessions", json!({}));
    assert_eq!(listed["isError"], false);
    assert!(client.close().success());
}

#[test]
fn end_of_stdin_exits_zero_before_and_after_initialize() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path());
    assert!(Client::spawn(dir.path(), &[]).close().success());
    let mut client = Client::start(dir.path(), &[]);
    // Work in flight does not hold the exit.
    client.send(&json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "search_sessions", "arguments": {"query": "xylophone"}}}));
    assert!(client.close().success());
}

#[test]
fn tools_are_read_only_and_answer_json_as_text_and_structured_content() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path());
    let mut client = Client::start(dir.path(), &["--cwd", "/w/b"]);
    let tools = client.request("tools/list", json!({}));
    let tools = tools["result"]["tools"].as_array().unwrap().clone();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["list_sessions", "search_sessions", "read_session"]);
    for tool in &tools {
        assert_eq!(tool["annotations"]["readOnlyHint"], true);
        assert_eq!(tool["inputSchema"]["type"], "object");
    }

    // list_sessions: the --cwd's sessions first; the picker's query syntax.
    let all = client.call("list_sessions", json!({}));
    assert_eq!(all["isError"], false);
    assert_eq!(
        serde_json::from_str::<Value>(text_of(&all)).unwrap(),
        all["structuredContent"]
    );
    let sessions = all["structuredContent"]["sessions"].as_array().unwrap();
    assert_eq!(sessions[0]["sessionId"], "beta");
    for key in [
        "sessionId",
        "label",
        "agent",
        "createdAt",
        "updatedAt",
        "mention",
    ] {
        assert!(sessions[0].get(key).is_some(), "{key}");
    }
    assert_eq!(sessions[0]["agent"], "hydra");
    let found = client.call("list_sessions", json!({"query": "idemp !beta", "limit": 5}));
    let found = found["structuredContent"]["sessions"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0]["label"], "Alpha idempotency keys");
    let other_cwd = client.call(
        "list_sessions",
        json!({"cwd": "/w/a", "sort": "created", "limit": 1}),
    );
    assert_eq!(
        other_cwd["structuredContent"]["sessions"][0]["sessionId"],
        "alpha"
    );
    let bad = client.call("list_sessions", json!({"sort": "sideways"}));
    assert_eq!(bad["isError"], true);

    // search_sessions: as `search` finds them, with hits.
    let searched = client.call("search_sessions", json!({"query": "xylophone"}));
    let hits = &searched["structuredContent"]["sessions"];
    assert_eq!(hits.as_array().unwrap().len(), 1, "{searched}");
    assert_eq!(hits[0]["sessionId"], "beta");
    assert_eq!(hits[0]["hits"][0]["role"], "user");
    assert_eq!(hits[0]["hits"][0]["beforeCompaction"], false);
    assert!(hits[0]["hits"][0]["snippet"]
        .as_str()
        .unwrap()
        .contains("xylophone"));
    let bad_regex = client.call("search_sessions", json!({"query": "(", "regex": true}));
    assert_eq!(bad_regex["isError"], true);

    // read_session: preview --json's context at 32,768 bytes, by id, URI or mention.
    let expected = preview(dir.path(), "big", 32_768);
    let by_id = client.call("read_session", json!({"session": "big"}));
    assert_eq!(text_of(&by_id), expected["context"].as_str().unwrap());
    assert_eq!(
        by_id["structuredContent"],
        json!({"reference": expected["reference"]})
    );
    assert_eq!(by_id["structuredContent"]["reference"]["truncated"], true);
    let uri = stdout(&support::run(&["uri", "encode", "alpha"], ""))
        .trim()
        .to_owned();
    let by_uri = client.call("read_session", json!({"session": uri}));
    assert_eq!(
        text_of(&by_uri),
        preview(dir.path(), "alpha", 32_768)["context"]
            .as_str()
            .unwrap()
    );
    let mention = sessions.iter().find(|s| s["sessionId"] == "alpha").unwrap()["mention"].clone();
    let by_mention = client.call(
        "read_session",
        json!({"session": mention, "max_bytes": 2000}),
    );
    assert_eq!(
        text_of(&by_mention),
        text_of(&by_uri),
        "a small session is whole at 2000 bytes"
    );
    let small = client.call("read_session", json!({"session": "big", "max_bytes": 5000}));
    assert_eq!(
        text_of(&small),
        preview(dir.path(), "big", 5000)["context"]
            .as_str()
            .unwrap()
    );

    // Unknown or malformed: an error result naming it, not a protocol error.
    let unknown = client.call("read_session", json!({"session": "no-such-session"}));
    assert_eq!(unknown["isError"], true);
    assert!(text_of(&unknown).contains("no-such-session"), "{unknown}");
    let malformed = client.call("read_session", json!({"session": "hydra-session:%%"}));
    assert_eq!(malformed["isError"], true);
    let no_tool = client.request(
        "tools/call",
        json!({"name": "write_session", "arguments": {}}),
    );
    assert!(no_tool.get("error").is_some());
    assert!(client.close().success());
}

/// Claude Code and Codex hand the model a result's structured content
/// alone when it has one: their `read_session` result has none, so the
/// model reads the snapshot as text, framed as `preview` frames it. The
/// others get the stats beside the text, never a second copy of it.
#[test]
fn every_client_gets_the_snapshot_as_text_and_never_twice() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path());
    let expected = preview(dir.path(), "alpha", 32_768);
    let snapshot = expected["context"].as_str().unwrap();
    for (name, version, structured) in [
        ("claude-code", "2025-11-25", false),
        ("codex-mcp-client", "2025-06-18", false),
        ("gemini-cli-mcp-client", "2025-06-18", true),
        ("github-copilot-developer", "2025-06-18", true),
        ("qwen-code-mcp-client", "2025-06-18", true),
        ("opencode", "2025-06-18", true),
    ] {
        let mut client = Client::spawn(dir.path(), &[]);
        client.request(
            "initialize",
            json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": name, "version": "1"}}),
        );
        client.notify("notifications/initialized", json!({}));
        let read = client.call("read_session", json!({"session": "alpha"}));
        assert_eq!(read["content"].as_array().unwrap().len(), 1, "{name}");
        assert_eq!(read["content"][0]["type"], "text", "{name}");
        assert_eq!(text_of(&read), snapshot, "{name}");
        if structured {
            assert_eq!(
                read["structuredContent"],
                json!({"reference": expected["reference"]}),
                "{name}"
            );
        } else {
            assert!(read.get("structuredContent").is_none(), "{name}: {read}");
        }
        // The other tools answer JSON both ways, for every client.
        let listed = client.call("list_sessions", json!({"query": "alpha"}));
        assert_eq!(
            serde_json::from_str::<Value>(text_of(&listed)).unwrap(),
            listed["structuredContent"],
            "{name}"
        );
        assert!(client.close().success());
    }
}

#[test]
fn max_reference_bytes_changes_the_default_budget() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path());
    let mut client = Client::start(dir.path(), &["--max-reference-bytes", "60000"]);
    let read = client.call("read_session", json!({"session": "big"}));
    assert_eq!(
        text_of(&read),
        preview(dir.path(), "big", 60_000)["context"]
            .as_str()
            .unwrap()
    );
    let tools = client.request("tools/list", json!({}));
    let read_tool = &tools["result"]["tools"][2];
    assert_eq!(
        read_tool["inputSchema"]["properties"]["max_bytes"]["default"],
        60_000
    );
    assert!(
        read_tool["_meta"]["anthropic/maxResultSizeChars"]
            .as_u64()
            .unwrap()
            > 60_000
    );
    assert!(client.close().success());
}

#[test]
fn sessions_are_resources_newest_first_in_pages_read_as_the_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..105 {
        // A native log's last activity is its creation (its events carry no
        // time); the file times are set too, and must not count.
        let created = format!("2023-11-15T{:02}:{:02}:00Z", i / 60, i % 60);
        let path = Session::new(&format!("s{i:03}"), &created, Some("/w"))
            .title(&format!("Session {i}"))
            .user("hello")
            .write(dir.path(), &format!("s{i:03}.jsonl"));
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        let time = std::time::UNIX_EPOCH + Duration::from_secs(1_700_000_000 - i * 60);
        file.set_modified(time).unwrap();
    }
    let mut client = Client::start(dir.path(), &[]);
    let first = client.request("resources/list", json!({}));
    let page = first["result"]["resources"].as_array().unwrap();
    assert_eq!(page.len(), 100);
    assert_eq!(page[0]["name"], "Session 104", "newest first");
    assert_eq!(page[1]["name"], "Session 103");
    assert!(page[0]["uri"]
        .as_str()
        .unwrap()
        .starts_with("hydra-session:"));
    assert!(page[0]["description"]
        .as_str()
        .unwrap()
        .starts_with("hydra · /w · last active 2023-11-"));
    let cursor = first["result"]["nextCursor"].clone();
    let second = client.request("resources/list", json!({"cursor": cursor}));
    let rest = second["result"]["resources"].as_array().unwrap();
    assert_eq!(rest.len(), 5);
    assert_eq!(rest[4]["name"], "Session 0");
    assert!(second["result"].get("nextCursor").is_none());

    let uri = page[0]["uri"].clone();
    let read = client.request("resources/read", json!({"uri": uri}));
    let contents = &read["result"]["contents"][0];
    assert_eq!(contents["uri"], uri);
    let tool = client.call("read_session", json!({"session": uri}));
    assert_eq!(contents["text"].as_str().unwrap(), text_of(&tool));
    let unknown_uri = stdout(&support::run(&["uri", "encode", "gone"], ""))
        .trim()
        .to_owned();
    let missing = client.request("resources/read", json!({"uri": unknown_uri}));
    assert_eq!(missing["error"]["code"], -32002, "{missing}");
    assert!(missing["error"]["message"]
        .as_str()
        .unwrap()
        .contains("gone"));
    assert!(client.close().success());
}

#[test]
fn cite_puts_the_best_matchs_mention_and_snapshot_in_one_user_message() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path());
    let mut client = Client::start(dir.path(), &[]);
    let listed = client.request("prompts/list", json!({}));
    assert_eq!(listed["result"]["prompts"][0]["name"], "cite");
    assert_eq!(
        listed["result"]["prompts"][0]["arguments"][0]["name"],
        "query"
    );
    let got = client.request(
        "prompts/get",
        json!({"name": "cite", "arguments": {"query": "idempotency keys"}}),
    );
    let messages = got["result"]["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0]["role"], "user");
    let text = messages[0]["content"]["text"].as_str().unwrap();
    let mention = stdout(&support::run(
        &["mention", "alpha", "--label", "Alpha idempotency keys"],
        "",
    ));
    let snapshot = preview(dir.path(), "alpha", 32_768);
    assert_eq!(
        text,
        format!(
            "{}\n\n{}",
            mention.trim_end(),
            snapshot["context"].as_str().unwrap()
        )
    );
    // By what was said, when no title matches.
    let by_text = client.request(
        "prompts/get",
        json!({"name": "cite", "arguments": {"query": "xylophone"}}),
    );
    assert!(by_text["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap()
        .contains("(hydra-session:"));
    let none = client.request(
        "prompts/get",
        json!({"name": "cite", "arguments": {"query": "zzzzqqq"}}),
    );
    assert!(none["error"]["message"]
        .as_str()
        .unwrap()
        .contains("zzzzqqq"));
    assert!(client.close().success());
}

#[test]
fn a_cancelled_request_stops_and_the_server_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path());
    let mut client = Client::start(dir.path(), &[]);
    client.send(&json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "search_sessions", "arguments": {"query": "answer"}}}));
    client.notify(
        "notifications/cancelled",
        json!({"requestId": 9, "reason": "test"}),
    );
    let ping = client.request("ping", json!({}));
    assert!(ping["result"].is_object(), "{ping}");
    assert!(client.close().success());
}

/// A `/proc/PID/status` field's number (`VmRSS` in KiB, `Threads`).
fn proc_status(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status
        .lines()
        .find(|line| line.starts_with(&format!("{field}:")))
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"));
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// A client that writes 10,000 requests and reads nothing: the server
/// stops reading once its answers cannot be written, its memory and
/// threads stay bounded (it used to start a thread per blocked answer and
/// keep every answer: 516 threads, 281 MB here), and once read it answers
/// every request, once.
#[test]
fn a_client_that_never_reads_keeps_the_server_bounded_then_gets_every_answer() {
    const REQUESTS: u64 = 10_000;
    if !Path::new("/proc/self/status").exists() {
        assert!(std::env::var_os("CI").is_none(), "/proc is needed");
        eprintln!("SKIPPED: no /proc to read the server's memory and threads from");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    store(dir.path());
    let home = tempfile::tempdir().unwrap();
    let mut child = command(home.path())
        .arg("--store")
        .arg(dir.path())
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let written = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let writer = {
        let written = written.clone();
        std::thread::spawn(move || {
            let line = |value: Value| format!("{value}\n").into_bytes();
            stdin.write_all(&line(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}))).unwrap();
            stdin
                .write_all(&line(
                    json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                ))
                .unwrap();
            for id in 1..=REQUESTS {
                // Every tenth a tool call (a job on the pool), the rest a
                // 4 KB answer that needs no job.
                let request = if id % 10 == 0 {
                    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "list_sessions", "arguments": {}}})
                } else {
                    json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {}})
                };
                stdin.write_all(&line(request)).unwrap();
                written.store(id, std::sync::atomic::Ordering::SeqCst);
            }
            stdin
        })
    };
    // Until the writer is blocked: nothing written for half a second.
    let mut last = u64::MAX;
    let start = Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(500));
        let now = written.load(std::sync::atomic::Ordering::SeqCst);
        if now == last || start.elapsed() > Duration::from_secs(20) {
            break;
        }
        last = now;
    }
    let (rss_kib, threads) = (
        proc_status(child.id(), "VmRSS"),
        proc_status(child.id(), "Threads"),
    );
    let cores = std::thread::available_parallelism().map_or(1, usize::from) as u64;
    assert!(
        written.load(std::sync::atomic::Ordering::SeqCst) < REQUESTS,
        "the server read every request while its answers piled up"
    );
    assert!(threads <= cores + 8, "{threads} threads on {cores} cores");
    assert!(rss_kib < 120 * 1024, "{rss_kib} KiB resident");
    // Read now: every request is answered, once.
    let mut seen = std::collections::HashSet::new();
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let answer: Value = serde_json::from_str(&line.unwrap()).unwrap();
        assert!(answer.get("result").is_some(), "{answer}");
        assert!(
            seen.insert(answer["id"].as_u64().unwrap()),
            "answered twice: {answer}"
        );
        if seen.len() as u64 == REQUESTS + 1 {
            break;
        }
    }
    assert_eq!(seen.len() as u64, REQUESTS + 1);
    drop(writer.join().unwrap());
    assert!(child.wait().unwrap().success());
}

/// A query too large to rank (a 100 KB one of 50,000 terms kept a core
/// busy for two minutes) is refused at once, JSON-RPC −32602 naming the
/// limit; so is a `cwd` longer than a path can be.
#[test]
fn oversized_queries_are_refused_at_once_as_invalid_params() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path());
    let mut client = Client::start(dir.path(), &[]);
    let huge = vec!["ab"; 50_000].join(" ");
    let many = vec!["ab"; 33].join(" ");
    for (tool, args, says) in [
        ("list_sessions", json!({"query": huge}), "bytes"),
        ("list_sessions", json!({"query": many}), "33 terms"),
        (
            "search_sessions",
            json!({"query": "x".repeat(2_000)}),
            "2000 bytes",
        ),
        ("list_sessions", json!({"cwd": "/a".repeat(3_000)}), "cwd"),
    ] {
        let start = Instant::now();
        let answer = client.request("tools/call", json!({"name": tool, "arguments": args}));
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{tool} took {:?}",
            start.elapsed()
        );
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(tool) && message.contains(says),
            "{message}"
        );
    }
    let cite = client.request(
        "prompts/get",
        json!({"name": "cite", "arguments": {"query": huge}}),
    );
    assert_eq!(cite["error"]["code"], -32602, "{cite}");
    // At the limits, a query runs.
    let listed = client.call("list_sessions", json!({"query": vec!["a"; 32].join(" ")}));
    assert_eq!(listed["isError"], false, "{listed}");
    assert!(client.close().success());
}

/// The server's CPU time so far, in clock ticks (`/proc/PID/stat`'s
/// utime + stime).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // After the command name's closing parenthesis: state is field 3,
    // utime 14 and stime 15.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

/// The CPU ticks `pid` spends from now until it is idle (no tick for
/// 300 ms), after `act`.
fn cpu_until_idle(pid: u32, act: impl FnOnce()) -> u64 {
    let start = cpu_ticks(pid);
    act();
    let mut last = cpu_ticks(pid);
    loop {
        std::thread::sleep(Duration::from_millis(300));
        let now = cpu_ticks(pid);
        if now == last {
            return now - start;
        }
        last = now;
    }
}

/// A ranking as long as the limits allow (32 fuzzy terms against
/// directory names of 2,000 characters) stops when cancelled: the server
/// spends a fraction of the CPU the whole ranking takes (it used to rank to
/// the end, its answer thrown away).
#[test]
fn cancelling_a_long_ranking_stops_it() {
    if !Path::new("/proc/self/stat").exists() {
        assert!(std::env::var_os("CI").is_none(), "/proc is needed");
        eprintln!("SKIPPED: no /proc to read the server's CPU time from");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for i in 0..300 {
        let cwd = format!("/w/{}{i}", "ab".repeat(1_000));
        Session::new(&format!("s-{i}"), "2025-01-03T00:00:00Z", Some(&cwd))
            .title(&format!("session {i}"))
            .user("hello")
            .write(dir.path(), &format!("s{i}.jsonl"));
    }
    let mut client = Client::start(dir.path(), &[]);
    // The listing and the search index's warm-up first.
    client.call("list_sessions", json!({"query": "session"}));
    let pid = client.pid();
    cpu_until_idle(pid, || {});
    let query = vec![format!("{}a", "aabb".repeat(7)); 32].join(" ");
    let args = json!({"name": "list_sessions", "arguments": {"query": query}});
    let started = Instant::now();
    let whole = cpu_until_idle(pid, || {
        let answer = client.request("tools/call", args.clone());
        assert_eq!(answer["result"]["isError"], false, "{answer}");
    });
    let took = started.elapsed();
    let cancelled = cpu_until_idle(pid, || {
        client.send(&json!({"jsonrpc": "2.0", "id": 5000, "method": "tools/call", "params": args}));
        std::thread::sleep(took / 10);
        client.notify(
            "notifications/cancelled",
            json!({"requestId": 5000, "reason": "test"}),
        );
    });
    assert!(
        cancelled * 2 < whole,
        "cancelled: {cancelled} ticks, the whole ranking: {whole} ({took:?})"
    );
    let ping = client.request("ping", json!({}));
    assert!(ping["result"].is_object(), "{ping}");
    assert!(client.close().success());
}

/// `list_sessions` is cancelled like a search: the cancelled request gets
/// no answer and frees its place, and the server goes on.
#[test]
fn a_cancelled_ranking_stops_and_the_server_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path());
    let mut client = Client::start(dir.path(), &[]);
    let query = vec!["lpha"; 32].join(" | ");
    for id in 1000..1100 {
        client.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "list_sessions", "arguments": {"query": query}}}));
        client.notify(
            "notifications/cancelled",
            json!({"requestId": id, "reason": "test"}),
        );
    }
    // Had the cancelled requests kept their places, this would wait for
    // ever behind them.
    let listed = client.call("list_sessions", json!({"query": "alpha"}));
    assert_eq!(
        listed["structuredContent"]["sessions"][0]["sessionId"],
        "alpha"
    );
    assert!(client.close().success());
}

/// `read_session`'s `max_bytes` is capped at the configured maximum
/// (`--max-reference-bytes`, else 65,536 as for `prepare`, and no more than
/// Codex and Gemini CLI take whole in one text block): a larger one is
/// taken as that maximum, as `tools/list` says.
#[test]
fn max_bytes_is_capped_at_the_configured_maximum() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path());
    let given = &["--max-reference-bytes", "40000"][..];
    for (flags, client, most) in [
        (&[][..], "test", 65_536),
        (&[][..], "codex-mcp-client", 47_000),
        (&[][..], "gemini-cli-mcp-client", 39_000),
        (given, "test", 40_000),
        (given, "codex-mcp-client", 40_000),
    ] {
        let mut client_ = Client::spawn(dir.path(), flags);
        client_.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": client, "version": "1"}}),
        );
        client_.notify("notifications/initialized", json!({}));
        let tools = client_.request("tools/list", json!({}));
        let read_tool = &tools["result"]["tools"][2];
        let described = read_tool["inputSchema"]["properties"]["max_bytes"]["description"]
            .as_str()
            .unwrap();
        assert!(
            described.contains(&format!("at most {most} ")),
            "{client}: {described}"
        );
        assert_eq!(
            read_tool["_meta"]["anthropic/maxResultSizeChars"],
            most + 16_384,
            "{client}"
        );
        let read = client_.call(
            "read_session",
            json!({"session": "big", "max_bytes": 1_000_000_000u64}),
        );
        assert_eq!(read["isError"], false, "{read}");
        let capped = preview(dir.path(), "big", most);
        assert_eq!(
            text_of(&read),
            capped["context"].as_str().unwrap(),
            "{client}"
        );
        assert!(text_of(&read).len() < most + 4096);
        assert!(client_.close().success());
    }
}

/// Tool arguments that are not an object are invalid params (−32602), not
/// an unknown method.
#[test]
fn non_object_tool_arguments_are_invalid_params() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path());
    let mut client = Client::start(dir.path(), &[]);
    for arguments in [json!(7), json!([1]), json!("x"), json!(true)] {
        let answer = client.request(
            "tools/call",
            json!({"name": "list_sessions", "arguments": arguments}),
        );
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
    }
    let listed = client.call("list_sessions", json!({}));
    assert_eq!(listed["isError"], false);
    assert!(client.close().success());
}

/// `mcp install AGENT` then `uninstall` in a scratch home: the files and
/// what they hold.
fn install_round_trip(agent: &str, project: bool) -> (String, Value) {
    let home = tempfile::tempdir().unwrap();
    let proj = home.path().join("proj");
    std::fs::create_dir_all(&proj).unwrap();
    let run = |args: &[&str]| {
        let out = command(home.path())
            .current_dir(&proj)
            .env("HOME", home.path())
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", support::stderr(&out));
        stdout(&out)
    };
    let mut args = vec!["mcp", "install", agent];
    if project {
        args.push("--project");
    }
    let report = run(&args);
    let file = report
        .lines()
        .find_map(|l| {
            l.split(" in ")
                .nth(1)
                .filter(|_| l.starts_with("registered"))
        })
        .unwrap_or_else(|| panic!("{report}"))
        .to_owned();
    let text = std::fs::read_to_string(&file).unwrap();
    let value: Value = if file.ends_with(".toml") {
        json!({"toml": text})
    } else {
        serde_json::from_str(&text).unwrap()
    };
    assert!(run(&args).contains("left unchanged"), "install twice");
    let mut undo = args.clone();
    undo[1] = "uninstall";
    let removed = run(&undo);
    assert!(removed.contains("removed"), "{removed}");
    let after = std::fs::read_to_string(&file).unwrap();
    assert!(
        !after.contains("session-ref\"") || !after.contains("\"mcp\""),
        "{after}"
    );
    (report, value)
}

#[test]
fn mcp_install_registers_as_each_agents_mcp_add_and_uninstall_removes_it() {
    let exe = support::bin().to_string_lossy().into_owned();
    let (report, claude) = install_round_trip("claude", false);
    assert_eq!(
        claude["mcpServers"]["session-ref"],
        json!({"type": "stdio", "command": exe, "args": ["mcp"], "env": {}})
    );
    assert!(report.contains("mcp__session-ref"), "{report}");
    let (_, claude_project) = install_round_trip("claude", true);
    assert_eq!(claude_project["mcpServers"]["session-ref"]["type"], "stdio");
    let (_, codex) = install_round_trip("codex", false);
    assert_eq!(
        codex["toml"],
        format!("[mcp_servers.session-ref]\ncommand = \"{exe}\"\nargs = [\"mcp\"]\n")
    );
    let (_, gemini) = install_round_trip("gemini", false);
    assert_eq!(
        gemini["mcpServers"]["session-ref"],
        json!({"command": exe, "args": ["mcp"], "trust": true})
    );
    let (_, qwen) = install_round_trip("qwen", true);
    assert_eq!(qwen["mcpServers"]["session-ref"]["trust"], true);
    let (_, copilot) = install_round_trip("copilot", false);
    assert_eq!(
        copilot["mcpServers"]["session-ref"],
        json!({"tools": ["*"], "type": "local", "command": exe, "args": ["mcp"]})
    );
    let (_, opencode) = install_round_trip("opencode", false);
    assert_eq!(
        opencode["mcp"]["session-ref"],
        json!({"type": "local", "command": [exe, "mcp"]})
    );
    let (report, kimi) = install_round_trip("kimi", false);
    assert_eq!(
        kimi["mcpServers"]["session-ref"],
        json!({"command": exe, "args": ["mcp"]})
    );
    assert!(report.contains(".kimi/mcp.json"), "{report}");
    let (report, kilo) = install_round_trip("kilo", false);
    assert!(report.contains(".config/kilo/kilo.json"), "{report}");
    assert_eq!(
        kilo["mcp"]["session-ref"],
        json!({"type": "local", "command": [exe, "mcp"]})
    );
    let (report, droid) = install_round_trip("droid", false);
    assert!(report.contains(".factory/mcp.json"), "{report}");
    assert_eq!(
        droid["mcpServers"]["session-ref"],
        json!({"type": "stdio", "command": exe, "args": ["mcp"], "env": {}, "disabled": false})
    );
    let (report, crush) = install_round_trip("crush", false);
    assert!(report.contains(".config/crush/crush.json"), "{report}");
    assert_eq!(crush["$schema"], "https://charm.land/crush.json");
    assert_eq!(
        crush["mcp"]["session-ref"],
        json!({"type": "stdio", "command": exe, "args": ["mcp"]})
    );
    let (report, _) = install_round_trip("crush", true);
    assert!(report.contains("proj/crush.json"), "{report}");
    let (report, antigravity) = install_round_trip("antigravity", false);
    assert!(
        report.contains(".gemini/antigravity-cli/mcp_config.json"),
        "{report}"
    );
    assert_eq!(
        antigravity["mcpServers"]["session-ref"],
        json!({"command": exe, "args": ["mcp"]})
    );
    let (report, cursor) = install_round_trip("cursor", false);
    assert!(report.contains(".cursor/mcp.json"), "{report}");
    assert!(report.contains("cannot add context"), "{report}");
    assert_eq!(
        cursor["mcpServers"]["session-ref"],
        json!({"command": exe, "args": ["mcp"]})
    );
    let (_, cursor_project) = install_round_trip("cursor", true);
    assert_eq!(cursor_project["mcpServers"]["session-ref"]["command"], exe);
    let (report, cline) = install_round_trip("cline", false);
    assert!(
        report.contains(".cline/data/settings/cline_mcp_settings.json"),
        "{report}"
    );
    assert_eq!(
        cline["mcpServers"]["session-ref"],
        json!({"transport": {"type": "stdio", "command": exe, "args": ["mcp"]}})
    );
}

#[test]
fn uninstall_gives_back_each_new_agents_file_as_it_was() {
    // The person's own servers and settings stay, byte for byte.
    for (agent, file, before) in [
        (
            "kilo",
            ".config/kilo/kilo.jsonc",
            "{\n  // mine\n  \"model\": \"mock/mock-model\",\n  \"mcp\": {\"other\": {\"type\": \"local\", \"command\": [\"x\"]}}\n}\n",
        ),
        (
            "droid",
            ".factory/mcp.json",
            "{\"mcpServers\": {\"other\": {\"type\": \"stdio\", \"command\": \"x\", \"args\": [], \"env\": {}, \"disabled\": false}}}\n",
        ),
        (
            "crush",
            ".config/crush/crush.json",
            "{\n  \"$schema\": \"https://charm.land/crush.json\",\n  \"options\": {\"debug\": true}\n}\n",
        ),
    ] {
        let home = tempfile::tempdir().unwrap();
        let path = home.path().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, before).unwrap();
        let run = |args: &[&str]| {
            let out = command(home.path())
                .env("HOME", home.path())
                .args(args)
                .output()
                .unwrap();
            assert!(out.status.success(), "{agent}: {}", support::stderr(&out));
        };
        run(&["mcp", "install", agent]);
        let during = std::fs::read_to_string(&path).unwrap();
        assert!(during.contains("session-ref"), "{agent}: {during}");
        run(&["mcp", "uninstall", agent]);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), before, "{agent}");
    }
}

#[test]
fn kimi_has_no_project_mcp_file_and_uninstall_keeps_its_other_servers() {
    let home = tempfile::tempdir().unwrap();
    let share = home.path().join("share");
    std::fs::create_dir_all(&share).unwrap();
    let original = "{\n  \"mcpServers\": {\n    \"context7\": {\"url\": \"https://mcp.context7.com/mcp\", \"transport\": \"http\"}\n  }\n}\n";
    std::fs::write(share.join("mcp.json"), original).unwrap();
    let run = |args: &[&str]| {
        command(home.path())
            .env("HOME", home.path())
            .env("KIMI_SHARE_DIR", &share)
            .args(args)
            .output()
            .unwrap()
    };
    let project = run(&["mcp", "install", "kimi", "--project"]);
    assert!(!project.status.success());
    assert!(support::stderr(&project).contains("no project MCP file"));
    assert!(run(&["mcp", "install", "kimi"]).status.success());
    let value: Value =
        serde_json::from_str(&std::fs::read_to_string(share.join("mcp.json")).unwrap()).unwrap();
    assert_eq!(value["mcpServers"]["context7"]["transport"], "http");
    assert!(value["mcpServers"]["session-ref"]["command"].is_string());
    assert!(run(&["mcp", "uninstall", "kimi"]).status.success());
    assert_eq!(
        std::fs::read_to_string(share.join("mcp.json")).unwrap(),
        original
    );
}

#[test]
fn claude_install_pre_approves_the_tools_and_uninstall_takes_only_that_back() {
    let home = tempfile::tempdir().unwrap();
    let settings = home.path().join(".claude").join("settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(
        &settings,
        "{\"permissions\": {\"allow\": [\"Bash(ls)\"]}}\n",
    )
    .unwrap();
    std::fs::write(home.path().join(".claude.json"), "{\"numStartups\": 3}\n").unwrap();
    let run = |args: &[&str]| {
        command(home.path())
            .env("HOME", home.path())
            .args(args)
            .output()
            .unwrap()
    };
    assert!(
        run(&["--max-reference-bytes", "60000", "mcp", "install", "claude"])
            .status
            .success()
    );
    let allowed: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(
        allowed["permissions"]["allow"],
        json!(["Bash(ls)", "mcp__session-ref"])
    );
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(home.path().join(".claude.json")).unwrap())
            .unwrap();
    assert_eq!(config["numStartups"], 3);
    assert_eq!(
        config["mcpServers"]["session-ref"]["args"],
        json!(["mcp", "--max-reference-bytes", "60000"])
    );
    let backups = std::fs::read_dir(home.path()).unwrap().filter(|e| {
        e.as_ref()
            .unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with(".claude.json.session-ref-backup-")
    });
    assert_eq!(backups.count(), 1);
    assert!(run(&["mcp", "uninstall", "claude"]).status.success());
    let allowed: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(allowed["permissions"]["allow"], json!(["Bash(ls)"]));
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(home.path().join(".claude.json")).unwrap())
            .unwrap();
    assert_eq!(config, json!({"numStartups": 3}));
}

/// Whether `text` holds a character that would act on a terminal.
fn has_control(text: &str) -> bool {
    text.chars()
        .any(|c| session_ref::display::is_unsafe(c) && c != '\n')
}

#[test]
fn a_control_sequence_in_an_error_never_reaches_the_client_raw() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path());
    let mut client = Client::start(dir.path(), &[]);
    let evil = "x\u{1b}]0;pwned\u{7}\u{1b}[2J\u{202e}";
    let answers = [
        // An unknown tool and prompt, named by the client.
        client.request("tools/call", json!({"name": evil, "arguments": {}})),
        client.request("prompts/get", json!({"name": evil, "arguments": {}})),
        // An unknown session, as an argument, a URI and a query.
        client.request("resources/read", json!({"uri": evil})),
        client.request(
            "tools/call",
            json!({"name": "read_session", "arguments": {"session": evil}}),
        ),
        client.request(
            "prompts/get",
            json!({"name": "cite", "arguments": {"query": evil}}),
        ),
        // Params serde refuses, quoting what was sent.
        client.request("tools/call", json!({"name": 7, "arguments": {evil: evil}})),
    ];
    for answer in answers {
        let message = answer["error"]["message"]
            .as_str()
            .or_else(|| answer["result"]["content"][0]["text"].as_str())
            .unwrap_or_else(|| panic!("no error text: {answer}"));
        assert!(!has_control(message), "{message:?}");
        let structured = answer["result"]["structuredContent"].to_string();
        let structured: Value = serde_json::from_str(&structured).unwrap();
        assert!(!has_control(&structured.to_string()), "{structured}");
    }
    let listed = client.call("list_sessions", json!({}));
    assert_eq!(listed["isError"], false);
    assert!(client.close().success());
}

#[test]
fn mcp_install_keeps_other_servers_and_uninstall_restores_the_file() {
    for (agent, file, other) in [
        (
            "antigravity",
            ".gemini/antigravity-cli/mcp_config.json",
            r#"{"command": "npx", "args": ["x"]}"#,
        ),
        (
            "cursor",
            ".cursor/mcp.json",
            r#"{"url": "http://localhost:1"}"#,
        ),
        (
            "cline",
            ".cline/data/settings/cline_mcp_settings.json",
            r#"{"transport": {"type": "sse", "url": "http://localhost:2"}, "disabled": true}"#,
        ),
    ] {
        let home = tempfile::tempdir().unwrap();
        let path = home.path().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let original =
            format!("{{\n  // servers\n  \"mcpServers\": {{\n    \"other\": {other}\n  }}\n}}\n");
        std::fs::write(&path, &original).unwrap();
        let run = |args: &[&str]| {
            command(home.path())
                .current_dir(home.path())
                .env("HOME", home.path())
                .args(args)
                .output()
                .unwrap()
        };
        let out = run(&["mcp", "install", agent]);
        assert!(out.status.success(), "{agent}: {}", support::stderr(&out));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains("// servers") && text.contains(other),
            "{agent}: {text}"
        );
        assert!(text.contains("session-ref"), "{agent}: {text}");
        let out = run(&["mcp", "uninstall", agent]);
        assert!(out.status.success(), "{agent}: {}", support::stderr(&out));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), original, "{agent}");
        if agent != "cursor" {
            let out = run(&["mcp", "install", agent, "--project"]);
            assert!(!out.status.success(), "{agent}");
            assert!(
                support::stderr(&out).contains("SESSION_REFERENCE_INVALID_CONFIG"),
                "{agent}: {}",
                support::stderr(&out)
            );
            assert_eq!(std::fs::read_to_string(&path).unwrap(), original, "{agent}");
        }
    }
}

/// Run `session-ref ARGS` in a scratch home `h` (its working directory
/// `h/proj`) with the extra environment `vars`.
fn run_in(h: &Path, vars: &[(&str, &Path)], args: &[&str]) -> std::process::Output {
    let proj = h.join("proj");
    std::fs::create_dir_all(&proj).unwrap();
    let mut cmd = command(h);
    cmd.current_dir(&proj).env("HOME", h);
    for (key, value) in vars {
        cmd.env(key, value);
    }
    cmd.args(args).output().unwrap()
}

/// Install into `file` (holding `before`, or absent), check the entry the
/// agent reads with `entry`, install again (unchanged), uninstall: the file
/// is `before` to the byte (absent: what a created file is left as).
fn round_trip_text(
    agent: &str,
    vars: &[(&str, &Path)],
    file: &Path,
    before: Option<&str>,
    check: impl Fn(&str),
) -> String {
    if let Some(before) = before {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, before).unwrap();
    }
    let home = vars
        .iter()
        .find(|(k, _)| *k == "HOME")
        .map(|(_, v)| v.to_path_buf())
        .unwrap();
    let run = |args: &[&str]| {
        let out = run_in(&home, vars, args);
        assert!(out.status.success(), "{agent}: {}", support::stderr(&out));
        stdout(&out)
    };
    let report = run(&["mcp", "install", agent]);
    assert!(
        report.contains(&format!("in {}", file.display())),
        "{agent}: {report}"
    );
    let during = std::fs::read_to_string(file).unwrap();
    check(&during);
    assert!(run(&["mcp", "install", agent]).contains("left unchanged"));
    assert!(run(&["mcp", "uninstall", agent]).contains("removed the MCP server"));
    let after = std::fs::read_to_string(file).unwrap();
    if let Some(before) = before {
        assert_eq!(after, before, "{agent}");
    }
    assert!(
        run(&["mcp", "uninstall", agent]).contains("has no session-ref MCP server"),
        "{agent}"
    );
    after
}

/// `mcp install AGENT` with `file` holding `text`: refused with an error
/// saying `says`, the file untouched.
fn refused_untouched(h: &Path, agent: &str, file: &Path, text: &str, says: &str) {
    std::fs::write(file, text).unwrap();
    let out = run_in(h, &[], &["mcp", "install", agent]);
    support::assert_fails_with(&out, "SESSION_REFERENCE_INVALID_CONFIG");
    assert!(
        support::stderr(&out).contains(says),
        "{}",
        support::stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(file).unwrap(), text);
}

fn yaml(text: &str) -> serde_norway::Value {
    serde_norway::from_str(text).unwrap()
}

#[test]
fn vibe_gets_a_named_mcp_servers_table_and_keeps_the_rest_byte_for_byte() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let exe = support::bin().to_string_lossy().into_owned();
    let before = "# my Vibe\nactive_model = \"mock\" # keep me\nenable_telemetry = false\n\n[[providers]]\nname = \"mock\"\napi_base = \"http://127.0.0.1:18080/v1\"\n\n[[mcp_servers]]\nname = \"fetch\"\ntransport = \"stdio\"\ncommand = \"uvx\"\nargs = [\"mcp-server-fetch\"]\n\n[[models]]\nname = \"mock-model\"\nprovider = \"mock\"\nalias = \"mock\"\n";
    let vibe_home = h.join("vibe-home");
    let check = |text: &str| {
        let doc: toml_edit::DocumentMut = text.parse().unwrap();
        let servers = doc["mcp_servers"].as_array_of_tables().unwrap();
        assert_eq!(servers.len(), 2, "{text}");
        let ours = servers.get(1).unwrap();
        assert_eq!(ours["name"].as_str(), Some("session-ref"));
        assert_eq!(ours["transport"].as_str(), Some("stdio"));
        assert_eq!(ours["command"].as_str(), Some(exe.as_str()));
        let args: Vec<&str> = ours["args"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|a| a.as_str())
            .collect();
        assert_eq!(args, ["mcp"]);
        assert_eq!(servers.get(0).unwrap()["command"].as_str(), Some("uvx"));
    };
    round_trip_text(
        "vibe",
        &[("HOME", h), ("VIBE_HOME", &vibe_home)],
        &vibe_home.join("config.toml"),
        Some(before),
        check,
    );
    // Without $VIBE_HOME: ~/.vibe; a new file holds our table alone.
    let created = round_trip_text(
        "vibe",
        &[("HOME", h)],
        &h.join(".vibe/config.toml"),
        None,
        |text| {
            assert_eq!(
                text,
                format!("[[mcp_servers]]\nname = \"session-ref\"\ntransport = \"stdio\"\ncommand = \"{exe}\"\nargs = [\"mcp\"]\n")
            )
        },
    );
    assert_eq!(created, "");
    // A project's .vibe/config.toml, read by Vibe in a trusted folder.
    let out = run_in(h, &[], &["mcp", "install", "vibe", "--project"]);
    assert!(out.status.success(), "{}", support::stderr(&out));
    assert!(stdout(&out).contains("only in a folder you trusted"));
    assert!(h.join("proj/.vibe/config.toml").is_file());
    // An inline `mcp_servers = [...]` is refused, untouched.
    let inline = "mcp_servers = [{name = \"a\", transport = \"stdio\", command = \"a\"}]\n";
    let config = h.join(".vibe/config.toml");
    refused_untouched(h, "vibe", &config, inline, "[[mcp_servers]]");
    refused_untouched(
        h,
        "vibe",
        &config,
        "[[mcp_servers]\n",
        "is not a valid settings file",
    );
}

#[test]
fn continue_gets_an_mcp_servers_item_only_in_an_existing_config() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let exe = support::bin().to_string_lossy().into_owned();
    // No config.yaml: cn runs on its hub configuration, which install must
    // not replace by a file without models.
    let out = run_in(h, &[], &["mcp", "install", "continue"]);
    support::assert_fails_with(&out, "SESSION_REFERENCE_INVALID_CONFIG");
    assert!(support::stderr(&out).contains("hub configuration"));
    assert!(!h.join(".continue").exists());
    let out = run_in(h, &[], &["mcp", "install", "continue", "--project"]);
    support::assert_fails_with(&out, "SESSION_REFERENCE_INVALID_CONFIG");
    assert!(support::stderr(&out).contains("no project MCP file"));

    let before = "name: Mock Assistant # mine\nversion: 1.0.0\nschema: v1\nmodels:\n  - name: mock\n    provider: openai\n    model: mock-model\n    apiBase: http://127.0.0.1:18080/v1\n# my servers\nmcpServers:\n  - name: docs\n    command: docs-mcp # local\n    args: [\"--stdio\"]\n\n# the end\n";
    let check = |text: &str| {
        let value = yaml(text);
        let servers = value["mcpServers"].as_sequence().unwrap();
        assert_eq!(servers.len(), 2, "{text}");
        assert_eq!(servers[0]["name"].as_str(), Some("docs"));
        assert_eq!(servers[1]["name"].as_str(), Some("session-ref"));
        assert_eq!(servers[1]["command"].as_str(), Some(exe.as_str()));
        assert_eq!(servers[1]["args"][0].as_str(), Some("mcp"));
        assert!(text.contains("# my servers") && text.ends_with("\n# the end\n"));
    };
    round_trip_text(
        "continue",
        &[("HOME", h)],
        &h.join(".continue/config.yaml"),
        Some(before),
        check,
    );
    // $CONTINUE_GLOBAL_DIR, and a config with no mcpServers yet.
    let dir = h.join("cn-home");
    let bare = "name: Local\nversion: 1.0.0\nmodels: []\n";
    round_trip_text(
        "continue",
        &[("HOME", h), ("CONTINUE_GLOBAL_DIR", &dir)],
        &dir.join("config.yaml"),
        Some(bare),
        |text| {
            assert_eq!(
                yaml(text)["mcpServers"][0]["name"].as_str(),
                Some("session-ref")
            )
        },
    );
    // A list written inline is refused, the file untouched.
    let inline = "name: Local\nversion: 1.0.0\nmcpServers: [{name: a, command: b}]\n";
    let config = h.join(".continue/config.yaml");
    refused_untouched(h, "continue", &config, inline, "add the entry by hand");
    let not_a_list = "name: Local\nmcpServers:\n  docs:\n    command: x\n";
    refused_untouched(
        h,
        "continue",
        &config,
        not_a_list,
        "\"mcpServers\" is not a list",
    );
}

#[test]
fn goose_gets_an_extension_and_malformed_or_linked_files_are_handled_as_the_others() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let exe = support::bin().to_string_lossy().into_owned();
    let before = "# goose\nGOOSE_PROVIDER: openai\nextensions:\n  developer:\n    bundled: true\n    display_name: Developer\n    enabled: true # on\n    name: developer\n    timeout: 300\n    type: builtin\nGOOSE_MODEL: gpt-4o\n";
    let check = |text: &str| {
        let value = yaml(text);
        assert_eq!(
            value["extensions"]["developer"]["type"].as_str(),
            Some("builtin")
        );
        let ours = &value["extensions"]["session-ref"];
        assert_eq!(ours["enabled"].as_bool(), Some(true));
        assert_eq!(ours["type"].as_str(), Some("stdio"));
        assert_eq!(ours["name"].as_str(), Some("session-ref"));
        assert_eq!(ours["cmd"].as_str(), Some(exe.as_str()));
        assert_eq!(ours["args"][0].as_str(), Some("mcp"));
        assert_eq!(ours["timeout"].as_u64(), Some(300));
        assert_eq!(value["GOOSE_MODEL"].as_str(), Some("gpt-4o"));
    };
    let config = h.join(".config/goose/config.yaml");
    round_trip_text("goose", &[("HOME", h)], &config, Some(before), check);
    // $GOOSE_PATH_ROOT (absolute) and $XDG_CONFIG_HOME move the file.
    let root = h.join("goose-root");
    let created = round_trip_text(
        "goose",
        &[("HOME", h), ("GOOSE_PATH_ROOT", &root)],
        &root.join("config/config.yaml"),
        None,
        |text| assert!(text.starts_with("extensions:\n  session-ref:\n"), "{text}"),
    );
    assert_eq!(created, "");
    let xdg = h.join("xdg");
    round_trip_text(
        "goose",
        &[("HOME", h), ("XDG_CONFIG_HOME", &xdg)],
        &xdg.join("goose/config.yaml"),
        Some("GOOSE_MODEL: x"),
        |text| {
            assert_eq!(
                yaml(text)["extensions"]["session-ref"]["type"].as_str(),
                Some("stdio")
            )
        },
    );
    let out = run_in(h, &[], &["mcp", "install", "goose", "--project"]);
    support::assert_fails_with(&out, "SESSION_REFERENCE_INVALID_CONFIG");

    // Malformed: refused, untouched.
    let broken = "extensions:\n  developer: [\n";
    refused_untouched(h, "goose", &config, broken, "is not a valid settings file");

    // A link (a dotfile manager's) is edited at its target, the link kept;
    // a link to something not a regular file is refused.
    std::fs::remove_file(&config).unwrap();
    std::fs::create_dir_all(h.join("dotfiles")).unwrap();
    std::fs::write(h.join("dotfiles/goose.yaml"), before).unwrap();
    std::os::unix::fs::symlink(h.join("dotfiles/goose.yaml"), &config).unwrap();
    let out = run_in(h, &[], &["mcp", "install", "goose"]);
    assert!(out.status.success(), "{}", support::stderr(&out));
    assert!(std::fs::symlink_metadata(&config)
        .unwrap()
        .file_type()
        .is_symlink());
    check(&std::fs::read_to_string(h.join("dotfiles/goose.yaml")).unwrap());
    // doctor reads it where Goose does.
    let out = run_in(h, &[], &["doctor", "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let goose = report["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["agent"] == "goose")
        .unwrap();
    assert_eq!(goose["found"], true, "{goose}");
    assert_eq!(goose["mcp"]["installed"], true, "{goose}");
    assert_eq!(goose["mcp"]["program"], exe.as_str());
    assert!(run_in(h, &[], &["mcp", "uninstall", "goose"])
        .status
        .success());
    assert_eq!(
        std::fs::read_to_string(h.join("dotfiles/goose.yaml")).unwrap(),
        before
    );
    std::fs::remove_file(&config).unwrap();
    std::os::unix::fs::symlink("/dev/null", &config).unwrap();
    let out = run_in(h, &[], &["mcp", "install", "goose"]);
    support::assert_fails_with(&out, "SESSION_REFERENCE_INVALID_CONFIG");
    assert!(support::stderr(&out).contains("not a regular settings file"));
}
