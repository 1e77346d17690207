//! The stdio transport in front of rmcp: one JSON-RPC message per line on
//! stdin, answers on stdout, nothing else on stdout.
//!
//! rmcp's own stdio transport (3.11) ignores a line that is not JSON and
//! drops an over-long one without a word, and its pre-initialize loop
//! answers an unknown method with an `_meta` error rather than −32601; a
//! client waiting on such a request would wait forever, and a client of the
//! older revisions that probes with `server/discover` only initializes once
//! it gets −32601. So lines are read here, on a thread of their own:
//!
//! - a line is read through a bounded buffer ([`MAX_LINE`]): a longer one is
//!   skipped to its end without being kept, and refused with −32600 under
//!   the id found at its start or end (where clients write it);
//! - a line that is not JSON gets −32700, one that is not a JSON-RPC message
//!   −32600, known methods with malformed params −32602, and the next line
//!   is read;
//! - both eras of the protocol are served: a request whose `_meta` holds
//!   the 2026-07-28 revision's protocol version and client capabilities
//!   ([`is_stateless`]) goes to rmcp, which serves it without `initialize`
//!   (`server/discover` included); `server/discover` without them gets
//!   −32601, after which such a client initializes;
//! - before `initialize` (or a first stateless request), any other request
//!   but `initialize` and `ping` is answered here (−32601 for unknown
//!   methods) and notifications are dropped;
//! - everything else goes to rmcp through a channel; end of stdin closes
//!   the channel, which ends the server.
//!
//! Backpressure: at most [`MAX_IN_FLIGHT`] requests are between being read
//! and having their answer written (a cancelled one no longer counts); at
//! that many the reader stops reading stdin until an answer is written, so
//! a client that never reads its answers fills the pipes and blocks instead
//! of growing the server (rmcp itself spawns a task per request and per
//! answer without a bound). Answers are written by one thread of their
//! own, fed through a small bounded channel, never by a thread per answer.
//! A request id already in flight is refused (−32600): its answers could
//! not be told apart.
//!
//! Writes go through one lock so that a refusal written here never
//! interleaves with rmcp's answers.

use std::collections::HashSet;
use std::io::{BufRead, Write};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use rmcp::model::{ClientRequest, JsonRpcMessage, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use serde_json::{json, Value};
use tokio::sync::mpsc;

/// The longest request line accepted (1 MiB): requests are small; a longer
/// line is refused without being held.
pub const MAX_LINE: usize = 1 << 20;

/// The most requests read and not yet answered (see the module's
/// backpressure).
pub const MAX_IN_FLIGHT: usize = 32;

/// Answers waiting for the writer thread.
const WRITE_QUEUE: usize = 8;

/// How much of an over-long line's start and end is kept to find its id.
const KEPT_EDGE: usize = 512;

/// JSON-RPC error codes.
pub mod code {
    /// Not JSON.
    pub const PARSE_ERROR: i32 = -32700;
    /// Not a request object (or too large).
    pub const INVALID_REQUEST: i32 = -32600;
    /// No such method.
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// Malformed parameters.
    pub const INVALID_PARAMS: i32 = -32602;
}

/// Methods of MCP's lifecycle (2025-11-25) this server knows; before
/// `initialize` they are refused as "not initialized", anything else as
/// unknown.
const KNOWN: [&str; 12] = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
];

/// The 2026-07-28 revision's discovery request.
const DISCOVER: &str = "server/discover";

/// Whether a request carries the 2026-07-28 revision's per-request context
/// in `params._meta` (its protocol version and client capabilities), so it
/// needs no `initialize`.
pub fn is_stateless(request: &Value) -> bool {
    let Some(meta) = request.pointer("/params/_meta") else {
        return false;
    };
    serde_json::from_value::<rmcp::model::RequestMetaObject>(meta.clone()).is_ok_and(|meta| {
        meta.missing_required_keys(&rmcp::model::ProtocolVersion::V_2026_07_28)
            .is_empty()
    })
}

/// Where answers are written.
pub type Out = Arc<Mutex<Box<dyn Write + Send>>>;

/// Write one message and a newline, and flush.
fn write_line(out: &Out, line: &str) -> std::io::Result<()> {
    let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
    out.write_all(line.as_bytes())?;
    out.write_all(b"\n")?;
    out.flush()
}

/// A JSON-RPC error response. The message (serde's words, which may quote
/// what the client sent) is escaped as every error shown to a person is.
pub fn error_response(id: &Value, code: i32, message: &str) -> String {
    let message = crate::display::escape_unsafe_lines(message);
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

/// A request id as a key (`1` and `"1"` differ).
fn key(id: &RequestId) -> String {
    serde_json::to_string(id).unwrap_or_default()
}

/// The requests read and not yet answered, by id.
#[derive(Debug, Default)]
pub struct InFlight {
    ids: Mutex<HashSet<String>>,
    freed: Condvar,
}

impl InFlight {
    /// Count request `id` in, waiting while [`MAX_IN_FLIGHT`] are; `false`
    /// when that id is already in flight.
    pub fn admit(&self, id: &RequestId) -> bool {
        let mut ids = self.ids.lock().unwrap_or_else(|e| e.into_inner());
        while ids.len() >= MAX_IN_FLIGHT {
            ids = self.freed.wait(ids).unwrap_or_else(|e| e.into_inner());
        }
        ids.insert(key(id))
    }

    /// Request `id` was answered or cancelled.
    pub fn release(&self, id: &RequestId) {
        let mut ids = self.ids.lock().unwrap_or_else(|e| e.into_inner());
        if ids.remove(&key(id)) {
            self.freed.notify_all();
        }
    }

    /// How many requests are in flight.
    pub fn len(&self) -> usize {
        self.ids.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One answer for the writer thread, and the request it answers.
type Outgoing = (String, Option<RequestId>);

/// The transport rmcp serves on.
pub struct StdioTransport {
    incoming: mpsc::Receiver<RxJsonRpcMessage<RoleServer>>,
    outgoing: mpsc::Sender<Outgoing>,
}

/// Ends when every answer handed to the writer thread is written (or
/// stdout failed): [`Written::wait`].
#[derive(Debug)]
pub struct Written(std::sync::mpsc::Receiver<()>);

impl Written {
    /// Wait at most `limit` for the writer thread to finish (once the
    /// transport is dropped); whether it did.
    pub fn wait(&self, limit: Duration) -> bool {
        !matches!(
            self.0.recv_timeout(limit),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout)
        )
    }
}

impl StdioTransport {
    /// Read `input` on a thread of its own and write to `out` from
    /// another.
    pub fn start(input: impl BufRead + Send + 'static, out: Out) -> (StdioTransport, Written) {
        let (tx, incoming) = mpsc::channel(64);
        let (outgoing, mut queue) = mpsc::channel::<Outgoing>(WRITE_QUEUE);
        let in_flight = Arc::new(InFlight::default());
        let (reader_out, reader_flight) = (out.clone(), in_flight.clone());
        std::thread::Builder::new()
            .name("session-ref-mcp-stdin".into())
            .spawn(move || read_loop(input, &reader_out, &tx, &reader_flight))
            .expect("a thread starts");
        let (done, written) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("session-ref-mcp-stdout".into())
            .spawn(move || {
                let mut failed = false;
                while let Some((line, answers)) = queue.blocking_recv() {
                    // Once stdout failed, answers are dropped, still freeing
                    // their requests' places.
                    if !failed && write_line(&out, &line).is_err() {
                        failed = true;
                    }
                    if let Some(id) = answers {
                        in_flight.release(&id);
                    }
                }
                drop(done);
            })
            .expect("a thread starts");
        (StdioTransport { incoming, outgoing }, Written(written))
    }
}

impl Transport<RoleServer> for StdioTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let outgoing = self.outgoing.clone();
        async move {
            let answers = match &item {
                JsonRpcMessage::Response(response) => Some(response.id.clone()),
                JsonRpcMessage::Error(error) => error.id.clone(),
                _ => None,
            };
            let line = serde_json::to_string(&item).map_err(std::io::Error::other)?;
            // Waits while the writer is behind (a full pipe): no thread
            // is held meanwhile.
            outgoing
                .send((line, answers))
                .await
                .map_err(|_| std::io::Error::other("the MCP writer has stopped"))
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        self.incoming.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.incoming.close();
        Ok(())
    }
}

/// One line as read: whole, or too long (its edges kept).
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A line within [`MAX_LINE`], without its line break.
    Whole(Vec<u8>),
    /// A longer line: its first and last [`KEPT_EDGE`] bytes.
    TooLong {
        /// The start.
        head: Vec<u8>,
        /// The end.
        tail: Vec<u8>,
    },
}

/// Read the next line of at most `max` bytes; `None` at end of input.
pub fn read_line(input: &mut impl BufRead, max: usize) -> std::io::Result<Option<Line>> {
    let mut line = Vec::new();
    let mut too_long: Option<(Vec<u8>, Vec<u8>)> = None;
    let mut any = false;
    loop {
        let available = match input.fill_buf() {
            Ok(available) => available,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            break;
        }
        any = true;
        let newline = memchr::memchr(b'\n', available);
        let take = newline.map_or(available.len(), |at| at);
        let piece = &available[..take];
        match &mut too_long {
            Some((_, tail)) => {
                tail.extend_from_slice(piece);
                let excess = tail.len().saturating_sub(KEPT_EDGE);
                tail.drain(..excess);
            }
            None if line.len() + piece.len() > max => {
                line.extend_from_slice(
                    &piece[..KEPT_EDGE.saturating_sub(line.len()).min(piece.len())],
                );
                line.truncate(KEPT_EDGE);
                let mut tail = piece[piece.len().saturating_sub(KEPT_EDGE)..].to_vec();
                tail.truncate(KEPT_EDGE);
                too_long = Some((std::mem::take(&mut line), tail));
            }
            None => line.extend_from_slice(piece),
        }
        let consumed = newline.map_or(take, |at| at + 1);
        input.consume(consumed);
        if newline.is_some() {
            break;
        }
    }
    if !any {
        return Ok(None);
    }
    Ok(Some(match too_long {
        Some((head, tail)) => Line::TooLong { head, tail },
        None => {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            Line::Whole(line)
        }
    }))
}

/// The id of a request too long to parse, when its start or end shows it
/// at the top level (`{"jsonrpc":"2.0","id":…` or `…,"id":…}`).
pub fn edge_id(head: &[u8], tail: &[u8]) -> Value {
    const ID: &str = r#""id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")"#;
    let at_start = regex::bytes::Regex::new(&format!(
        r#"^\s*\{{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?{ID}"#
    ))
    .expect("a valid pattern");
    let at_end =
        regex::bytes::Regex::new(&format!(r#",\s*{ID}\s*\}}\s*$"#)).expect("a valid pattern");
    for (pattern, text) in [(&at_end, tail), (&at_start, head)] {
        if let Some(found) = pattern.captures(text).and_then(|c| c.get(1)) {
            if let Ok(id) = serde_json::from_slice::<Value>(found.as_bytes()) {
                return id;
            }
        }
    }
    Value::Null
}

/// What to do with one line.
#[derive(Debug)]
pub enum Verdict {
    /// Nothing (a blank line, a notification before `initialize`).
    Skip,
    /// Answer this error line.
    Refuse(String),
    /// Hand this to rmcp.
    Forward(Box<RxJsonRpcMessage<RoleServer>>),
}

/// Decide one whole line; `initialized` says whether `initialize` was
/// already handed on, and is set when this line is it.
pub fn judge(line: &[u8], initialized: &mut bool) -> Verdict {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Skip;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(e) => {
            return Verdict::Refuse(error_response(
                &Value::Null,
                code::PARSE_ERROR,
                &format!("Parse error: not JSON ({e})"),
            ))
        }
    };
    let id = value.get("id").cloned().unwrap_or(Value::Null);
    let method = value
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let is_request = value.get("id").is_some() && method.is_some();
    if value.get("jsonrpc").and_then(Value::as_str) != Some("2.0") || !value.is_object() {
        return Verdict::Refuse(error_response(
            &id,
            code::INVALID_REQUEST,
            "Invalid Request: not a JSON-RPC 2.0 message",
        ));
    }
    let stateless = is_request && is_stateless(&value);
    // A discovery without the new revision's context is a client of the
    // older ones probing: −32601 is what makes it initialize.
    if is_request && method.as_deref() == Some(DISCOVER) && !stateless {
        return Verdict::Refuse(error_response(
            &id,
            code::METHOD_NOT_FOUND,
            &format!("Method not found: {DISCOVER} (without the 2026-07-28 request _meta)"),
        ));
    }
    if !*initialized {
        match method.as_deref() {
            Some("initialize") if is_request => *initialized = true,
            Some("ping") if is_request => {}
            // Answered without choosing a lifecycle.
            Some(DISCOVER) if stateless => {}
            // The first stateless request chooses that lifecycle.
            Some(_) if stateless => *initialized = true,
            Some(method) if is_request => {
                let (code, why) = if KNOWN.contains(&method) {
                    (
                        code::INVALID_REQUEST,
                        format!("{method}: the server is not initialized yet"),
                    )
                } else {
                    (
                        code::METHOD_NOT_FOUND,
                        format!("Method not found: {method}"),
                    )
                };
                return Verdict::Refuse(error_response(&id, code, &why));
            }
            _ => return Verdict::Skip,
        }
    }
    let params = value.get("params").cloned();
    match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value) {
        // rmcp takes a known method whose params do not fit (`arguments`
        // that are not an object) for a custom request, and answers it
        // −32601: it is −32602.
        Ok(JsonRpcMessage::Request(request))
            if matches!(request.request, ClientRequest::CustomRequest(_))
                && KNOWN.contains(&method.as_deref().unwrap_or_default()) =>
        {
            let method = method.unwrap_or_default();
            Verdict::Refuse(error_response(
                &id,
                code::INVALID_PARAMS,
                &format!(
                    "Invalid params for {method}: {}",
                    params_error(&method, params.unwrap_or(Value::Null))
                ),
            ))
        }
        Ok(message) => Verdict::Forward(Box::new(message)),
        Err(e) if is_request => {
            let method = method.unwrap_or_default();
            let known = KNOWN.contains(&method.as_str());
            Verdict::Refuse(error_response(
                &id,
                if known {
                    code::INVALID_PARAMS
                } else {
                    code::INVALID_REQUEST
                },
                &format!("Invalid params for {method}: {e}"),
            ))
        }
        // A malformed notification or response: JSON-RPC answers neither.
        Err(_) if method.is_some() || id.is_null() => Verdict::Skip,
        Err(e) => Verdict::Refuse(error_response(
            &id,
            code::INVALID_REQUEST,
            &format!("Invalid Request: {e}"),
        )),
    }
}

/// Why `params` do not fit `method`'s parameters: serde's word for it.
fn params_error(method: &str, params: Value) -> String {
    use rmcp::model as m;
    fn why<T: serde::de::DeserializeOwned>(params: Value) -> Option<String> {
        serde_json::from_value::<T>(params)
            .err()
            .map(|e| e.to_string())
    }
    let found = match method {
        "tools/call" => why::<m::CallToolRequestParams>(params),
        "resources/read" => why::<m::ReadResourceRequestParams>(params),
        "prompts/get" => why::<m::GetPromptRequestParams>(params),
        "initialize" => why::<m::InitializeRequestParams>(params),
        _ => None,
    };
    found.unwrap_or_else(|| "they do not fit the method".to_owned())
}

/// Read lines until end of input or until rmcp is gone, forwarding at
/// most [`MAX_IN_FLIGHT`] requests not yet answered.
fn read_loop(
    mut input: impl BufRead,
    out: &Out,
    tx: &mpsc::Sender<RxJsonRpcMessage<RoleServer>>,
    in_flight: &InFlight,
) {
    let mut initialized = false;
    loop {
        let verdict = match read_line(&mut input, MAX_LINE) {
            Ok(None) => return,
            Err(e) => {
                eprintln!("session-ref: mcp: cannot read stdin: {e}");
                return;
            }
            Ok(Some(Line::TooLong { head, tail })) => Verdict::Refuse(error_response(
                &edge_id(&head, &tail),
                code::INVALID_REQUEST,
                &format!("Invalid Request: longer than {MAX_LINE} bytes, refused"),
            )),
            Ok(Some(Line::Whole(line))) => judge(&line, &mut initialized),
        };
        match verdict {
            Verdict::Skip => {}
            Verdict::Refuse(line) => {
                if write_line(out, &line).is_err() {
                    return;
                }
            }
            Verdict::Forward(message) => {
                match &*message {
                    // Blocks while too many are in flight: backpressure.
                    JsonRpcMessage::Request(request) if !in_flight.admit(&request.id) => {
                        let id = serde_json::to_value(&request.id).unwrap_or_default();
                        let refusal = error_response(
                            &id,
                            code::INVALID_REQUEST,
                            "Invalid Request: a request with this id is still in progress",
                        );
                        if write_line(out, &refusal).is_err() {
                            return;
                        }
                        continue;
                    }
                    // A cancelled request gets no answer: its place is free.
                    JsonRpcMessage::Notification(notification) => {
                        if let rmcp::model::ClientNotification::CancelledNotification(cancelled) =
                            &notification.notification
                        {
                            if let Some(id) = &cancelled.params.request_id {
                                in_flight.release(id);
                            }
                        }
                    }
                    _ => {}
                }
                if tx.blocking_send(*message).is_err() {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Vec<Line> {
        let mut reader = std::io::BufReader::with_capacity(7, input);
        std::iter::from_fn(|| read_line(&mut reader, max).unwrap()).collect()
    }

    #[test]
    fn long_lines_are_skipped_keeping_only_their_edges() {
        let long = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":7,\"x\":\"{}\"}}",
            "a".repeat(5000)
        );
        let input = format!("short\r\n{long}\nnext");
        let read = lines(input.as_bytes(), 100);
        assert_eq!(read[0], Line::Whole(b"short".to_vec()));
        let Line::TooLong { head, tail } = &read[1] else {
            panic!("not refused")
        };
        assert!(head.len() <= KEPT_EDGE && tail.len() <= KEPT_EDGE);
        assert_eq!(edge_id(head, tail), json!(7));
        assert_eq!(read[2], Line::Whole(b"next".to_vec()));
        assert_eq!(read.len(), 3);
    }

    #[test]
    fn ids_are_found_at_either_end_only_at_the_top_level() {
        let tail = br#"..."}},"jsonrpc":"2.0","id":"a\"b"}"#;
        assert_eq!(
            edge_id(b"{\"method\":\"x\",\"params\":{\"id\":3", tail),
            json!("a\"b")
        );
        assert_eq!(
            edge_id(b"{\"method\":\"x\",\"params\":{\"id\":3", b"zz"),
            Value::Null
        );
        assert_eq!(edge_id(b" { \"id\" : -4 ,", b"zz"), json!(-4));
    }

    #[test]
    fn lines_are_judged_before_rmcp_sees_them() {
        let mut init = false;
        let refused = |v: Verdict| match v {
            Verdict::Refuse(line) => serde_json::from_str::<Value>(&line).unwrap(),
            other => panic!("not refused: {other:?}"),
        };
        let e = refused(judge(b"{not json", &mut init));
        assert_eq!(
            (e["id"].clone(), e["error"]["code"].clone()),
            (Value::Null, json!(-32700))
        );
        let e = refused(judge(
            br#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}"#,
            &mut init,
        ));
        assert_eq!(
            (e["id"].clone(), e["error"]["code"].clone()),
            (json!(1), json!(-32601))
        );
        let e = refused(judge(
            br#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
            &mut init,
        ));
        assert_eq!(e["error"]["code"], json!(-32600));
        assert!(matches!(
            judge(
                br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                &mut init
            ),
            Verdict::Skip
        ));
        assert!(matches!(judge(b"  ", &mut init), Verdict::Skip));
        let init_line = br#"{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        assert!(matches!(judge(init_line, &mut init), Verdict::Forward(_)));
        assert!(init);
        assert!(matches!(
            judge(br#"{"jsonrpc":"2.0","id":4,"method":"no/such"}"#, &mut init),
            Verdict::Forward(_)
        ));
        let e = refused(judge(
            br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":7}"#,
            &mut init,
        ));
        assert_eq!(e["error"]["code"], json!(-32602));
        let e = refused(judge(br#"[1,2]"#, &mut init));
        assert_eq!(e["error"]["code"], json!(-32600));
        for arguments in ["7", "[1]", "\"x\"", "true"] {
            let line = format!(
                r#"{{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{{"name":"list_sessions","arguments":{arguments}}}}}"#
            );
            let e = refused(judge(line.as_bytes(), &mut init));
            assert_eq!(
                (e["id"].clone(), e["error"]["code"].clone()),
                (json!(6), json!(-32602)),
                "{e}"
            );
            assert!(
                e["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("tools/call"),
                "{e}"
            );
        }
        assert!(matches!(
            judge(
                br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_sessions","arguments":{}}}"#,
                &mut init
            ),
            Verdict::Forward(_)
        ));
    }

    #[test]
    fn requests_with_the_stateless_context_need_no_initialize() {
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
        let mut init = false;
        let discover =
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{meta}}}}}"#);
        assert!(matches!(
            judge(discover.as_bytes(), &mut init),
            Verdict::Forward(_)
        ));
        assert!(!init, "a discovery chooses no lifecycle");
        // Half the context is none: refused as before initialize.
        let half = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        assert!(matches!(
            judge(half.as_bytes(), &mut init),
            Verdict::Refuse(_)
        ));
        let list =
            format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{{{meta}}}}}"#);
        assert!(matches!(
            judge(list.as_bytes(), &mut init),
            Verdict::Forward(_)
        ));
        assert!(init, "the first stateless request chooses that lifecycle");
    }

    #[test]
    fn a_request_in_flight_holds_its_place_until_released() {
        let in_flight = Arc::new(InFlight::default());
        for n in 0..MAX_IN_FLIGHT {
            assert!(in_flight.admit(&RequestId::Number(n as i64)));
        }
        assert_eq!(in_flight.len(), MAX_IN_FLIGHT);
        let waiting = {
            let in_flight = in_flight.clone();
            std::thread::spawn(move || in_flight.admit(&RequestId::String("x".into())))
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!waiting.is_finished(), "admitted past the limit");
        in_flight.release(&RequestId::Number(0));
        assert!(waiting.join().unwrap());
        assert_eq!(in_flight.len(), MAX_IN_FLIGHT);
        // A duplicate id is not admitted; `1` and `"1"` are two ids.
        in_flight.release(&RequestId::Number(1));
        assert!(!in_flight.admit(&RequestId::Number(2)));
        in_flight.release(&RequestId::Number(3));
        assert!(in_flight.admit(&RequestId::String("2".into())));
    }
}
