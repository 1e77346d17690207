//! Line access to append-only JSONL logs: forward streaming with line numbers,
//! and a backward scan so titles are found from the end of a file without
//! reading the rest.
//!
//! Memory: listing never holds more than [`MAX_LISTING_LINE`] bytes of one
//! line. A longer line (a pasted image, a hostile 1 GiB line) is read past,
//! never assembled: the backward scan and a bounded [`LineReader`] skip it
//! without showing it to their visitor. Reading a whole session (preview,
//! prepare, search, hooks) keeps lines up to [`MAX_SESSION_LINE`] (32 MiB)
//! and reads a longer one past as a line that does not parse. Such a line
//! is one message far larger than any snapshot keeps (retention would cut
//! it to a head and tail within the budget, SPEC §7), and holding it, then
//! its decoded text, cost several times its size (4 to 8 GB for one 2 GiB
//! line, #25 item 8); passing over it keeps every path's memory bounded
//! (a deliberate difference from the reference, SPEC §7). A whole log is
//! read in pieces on both cores ([`fold_lines_at`]).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

mod backward;
mod limits;
mod pieces;
#[cfg(test)]
mod tests;

pub use backward::{scan_backward, scan_backward_to, scan_backward_within};
pub use pieces::{fold_lines_at, map_each_line, LinesRead, Pieces, ReadAt};

/// Upper bound on one line read for a header probe; a longer first line is not a header.
pub const MAX_HEADER_LINE: usize = 1 << 20;

pub use limits::{MAX_LISTING_LINE, MAX_SESSION_LINE};

/// One line of a log.
#[derive(Debug)]
pub struct Line<'a> {
    /// 1-based line number.
    pub number: u64,
    /// The bytes without the trailing `\n`.
    pub bytes: &'a [u8],
    /// Whether a `\n` ended the line (false only for a possibly torn last line).
    pub terminated: bool,
    /// Whether the line was longer than the reader's limit: then `bytes`
    /// is empty (the line was read past, not kept).
    pub oversized: bool,
    /// The line's length in bytes without its `\n`, kept or not (where
    /// the next line starts, for a reader counting offsets).
    pub len: usize,
}

/// Streams the lines of a file, reusing one buffer.
pub struct LineReader<R> {
    reader: BufReader<R>,
    buf: Vec<u8>,
    number: u64,
    /// The longest line kept; longer ones come back `oversized`.
    limit: usize,
}

impl LineReader<File> {
    /// Open `path` for streaming.
    pub fn open(path: &Path) -> io::Result<Self> {
        Ok(Self::new(File::open(path)?))
    }
}

impl<R: Read> LineReader<R> {
    /// Stream lines from any reader (a decompressor, a test buffer).
    pub fn new(reader: R) -> Self {
        LineReader {
            reader: BufReader::with_capacity(256 * 1024, reader),
            buf: Vec::with_capacity(4096),
            number: 0,
            limit: usize::MAX,
        }
    }

    /// Number the lines from `lines + 1`: the reader starts after `lines`
    /// lines already read (a fold resumed in the middle of a log).
    pub fn numbered_after(mut self, lines: u64) -> Self {
        self.number = lines;
        self
    }

    /// Keep at most `limit` bytes of a line (its `\n` aside); longer lines
    /// are read past and come back [`Line::oversized`], so memory does not
    /// grow with line length.
    pub fn with_limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// The next line, or `None` at end of file. An empty final segment after
    /// the last `\n` is not a line.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.buf.clear();
        let mut read = 0usize;
        let mut oversized = false;
        let mut terminated = false;
        loop {
            let available = match self.reader.fill_buf() {
                Ok(available) => available,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                break;
            }
            let (taken, done) = match memchr::memchr(b'\n', available) {
                Some(nl) => (nl + 1, true),
                None => (available.len(), false),
            };
            let content = &available[..taken - usize::from(done)];
            if !oversized && self.buf.len() + content.len() > self.limit {
                oversized = true;
                self.buf = Vec::new();
            }
            if !oversized {
                self.buf.extend_from_slice(content);
            }
            read += taken;
            self.reader.consume(taken);
            if done {
                terminated = true;
                break;
            }
        }
        if read == 0 {
            return Ok(None);
        }
        self.number += 1;
        Ok(Some(Line {
            number: self.number,
            bytes: &self.buf,
            terminated,
            oversized,
            len: read - usize::from(terminated),
        }))
    }
}

/// Read the first line of a file, at most [`MAX_HEADER_LINE`] bytes.
/// `None` for an empty file or a first line longer than the cap.
pub fn first_line(path: &Path) -> io::Result<Option<Vec<u8>>> {
    let file = File::open(path)?;
    // Header lines are a few hundred bytes: a small first read keeps a
    // listing of 10,000 files from copying 16 KiB of each.
    let mut reader = BufReader::with_capacity(2 * 1024, file.take(MAX_HEADER_LINE as u64 + 1));
    let mut buf = Vec::new();
    reader.read_until(b'\n', &mut buf)?;
    if buf.last() == Some(&b'\n') {
        buf.pop();
    } else if buf.len() > MAX_HEADER_LINE {
        return Ok(None);
    }
    Ok((!buf.is_empty()).then_some(buf))
}
