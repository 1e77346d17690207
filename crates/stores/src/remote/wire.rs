//! The remote protocol's messages, the one set both ends use: the
//! server's hello and the answers to `list` and `fold` (the `search`
//! answer is the engine's `search::wire`), and the bounded line both
//! ends read. The exchange is described in the parent module.

use std::io::BufRead;

use serde::{Deserialize, Serialize};

/// The version of the exchange this build speaks.
pub const PROTOCOL: u64 = 1;

/// The longest line either end accepts: a listing of tens of thousands of
/// sessions, or the journal of a large session, fits; a runaway remote
/// does not exhaust memory.
pub const MAX_LINE: usize = 256 << 20;

/// The server's first line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hello {
    /// Always `remote`: what tells a `session-ref` from any other output
    /// (a login banner, a shell's message).
    pub session_ref: String,
    /// The exchange's version ([`PROTOCOL`]).
    pub protocol: u64,
    /// The server's `session-ref` version.
    pub version: String,
}

impl Hello {
    /// This build's hello.
    pub fn ours() -> Self {
        Hello {
            session_ref: "remote".to_owned(),
            protocol: PROTOCOL,
            version: env!("CARGO_PKG_VERSION").to_owned(),
        }
    }
}

/// One session of a listing, as sent.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WireSession {
    /// The session id on the remote.
    pub id: String,
    /// The store kind (`claude`, …).
    pub kind: String,
    /// Working directory, when known.
    pub cwd: Option<String>,
    /// Creation time as logged.
    pub created_at: String,
    /// The log's path on the remote.
    pub path: String,
    /// The store root it was found under.
    pub root: String,
    /// Latest title, when it has one.
    pub title: Option<String>,
    /// Last activity (Unix seconds), when known.
    pub updated_at: Option<i64>,
}

/// A listing, as sent.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct WireListing {
    /// The sessions.
    pub sessions: Vec<WireSession>,
    /// `(path, reason)` of files that could not be listed.
    #[serde(default)]
    pub unreadable: Vec<(String, String)>,
    /// `(kind, root, sessions)` of every store root read.
    #[serde(default)]
    pub roots: Vec<(String, String, usize)>,
}

/// A fold, as sent.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WireFold {
    /// [`journal::encode`] of stream 0, base64.
    pub journal: String,
    /// The seq of the last complete event read.
    pub captured_through_seq: u64,
}

/// Read one line (without its `\n`) into `line`: `false` at the end of
/// the data, an error for a line over `max` bytes (read no further).
pub fn read_bounded_line(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    max: usize,
) -> Result<bool, String> {
    loop {
        let available = reader.fill_buf().map_err(|e| e.to_string())?;
        if available.is_empty() {
            return Ok(!line.is_empty());
        }
        match memchr::memchr(b'\n', available) {
            Some(at) => {
                if line.len() + at > max {
                    return Err(format!("a line over {max} bytes"));
                }
                line.extend_from_slice(&available[..at]);
                reader.consume(at + 1);
                return Ok(true);
            }
            None => {
                let n = available.len();
                if line.len() + n > max {
                    return Err(format!("a line over {max} bytes"));
                }
                line.extend_from_slice(available);
                reader.consume(n);
            }
        }
    }
}
