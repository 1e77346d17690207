//! A small MCP client over the stdio of the built binary's `mcp` server,
//! one JSON-RPC line at a time: the one every test that talks to the
//! server uses (tests/it/mcp.rs and consistency.rs, tests/hostile.rs).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::command;

/// A running `session-ref … mcp` and a client for it; the server is
/// killed when dropped.
pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    _home: tempfile::TempDir,
    next: i64,
}

impl Client {
    /// Start `session-ref ARGS mcp` over `store_dir` and initialize.
    pub fn start(store_dir: &Path, extra: &[&str]) -> Client {
        Client::start_with(store_dir, extra, &[])
    }

    /// [`Client::start`] with extra environment variables for the server.
    pub fn start_with(store_dir: &Path, extra: &[&str], env: &[(&str, &Path)]) -> Client {
        let mut client = Client::spawn_with(store_dir, extra, env);
        let init = client.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}),
        );
        assert_eq!(init["result"]["protocolVersion"], "2025-06-18", "{init}");
        client.notify("notifications/initialized", json!({}));
        client
    }

    /// Start the server without a handshake.
    pub fn spawn(store_dir: &Path, extra: &[&str]) -> Client {
        Client::spawn_with(store_dir, extra, &[])
    }

    fn spawn_with(store_dir: &Path, extra: &[&str], env: &[(&str, &Path)]) -> Client {
        let home = tempfile::tempdir().unwrap();
        let mut cmd = command(home.path());
        cmd.arg("--store").arg(store_dir).args(extra).arg("mcp");
        for (name, value) in env {
            cmd.env(name, value);
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn session-ref mcp");
        let out = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Client {
            stdin: child.stdin.take(),
            child,
            lines,
            _home: home,
            next: 100,
        }
    }

    /// Write `bytes` to the server's stdin as they are.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// Send one JSON-RPC message.
    pub fn send(&mut self, value: &Value) {
        let mut line = value.to_string();
        line.push('\n');
        self.send_raw(line.as_bytes());
    }

    /// The next line on stdout: always one JSON-RPC message.
    pub fn receive(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(30))
            .expect("an answer within 30 s");
        let value: Value = serde_json::from_str(&line).expect("stdout holds JSON only");
        assert_eq!(value["jsonrpc"], "2.0", "{line}");
        value
    }

    /// The answer to request `id` (skipping notifications).
    pub fn answer_to(&mut self, id: &Value) -> Value {
        loop {
            let value = self.receive();
            if value.get("method").is_none() && &value["id"] == id {
                return value;
            }
        }
    }

    /// Send request `method` with `params`; its answer.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = json!(self.next);
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.answer_to(&id)
    }

    /// Send notification `method` with `params`.
    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Call `tool` with `args`; the result.
    pub fn call(&mut self, tool: &str, args: Value) -> Value {
        let answer = self.request("tools/call", json!({"name": tool, "arguments": args}));
        answer["result"].clone()
    }

    /// Close stdin and wait for the exit status (at most 10 s).
    pub fn close(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "no exit after end of stdin"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Client {
    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
