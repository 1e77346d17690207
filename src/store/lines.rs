//! Line access to append-only JSONL logs: forward streaming with line numbers,
//! and a backward scan so titles are found from the end of a file without
//! reading the rest.
//!
//! Memory: listing never holds more than [`MAX_LISTING_LINE`] bytes of one
//! line. A longer line (a pasted image, a hostile 1 GiB line) is read past,
//! never assembled: the backward scan and a bounded [`LineReader`] skip it
//! without showing it to their visitor. Reading a whole session (preview,
//! prepare) uses an unbounded reader: every line counts there. A whole
//! native log is read in batches of whole lines ([`LineBatches`]).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// Upper bound on one line read for a header probe; a longer first line is not a header.
pub const MAX_HEADER_LINE: usize = 1 << 20;

/// The most of one line that listing (titles, heads, cwds) buffers: 4 MiB.
/// Longer lines are skipped by listing; the facts it looks for (ids, cwds,
/// titles, first prompts) are short, and a line this long is a pasted blob.
pub const MAX_LISTING_LINE: usize = 4 << 20;

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
        }))
    }
}

/// Reads a file in batches of whole lines, into one buffer reused from
/// batch to batch: how a whole log is folded with its lines parsed in
/// parallel ([`map_lines`]). A line longer than the buffer grows it, so the
/// buffer holds the larger of its size and the longest line.
pub struct LineBatches<R> {
    reader: R,
    buf: Vec<u8>,
    /// Bytes of `buf` read.
    filled: usize,
    /// Bytes at the front of `buf` handed out by the last batch.
    consumed: usize,
    eof: bool,
    /// A read error, reported once the lines read before it are handed out.
    error: Option<io::Error>,
}

/// Whole lines of a file, as [`LineBatches`] hands them out.
#[derive(Debug)]
pub struct LineBatch<'a> {
    /// The lines, each ended by `\n` except the last one when `torn`.
    pub bytes: &'a [u8],
    /// Whether the last line has no `\n` (the end of the file).
    pub torn: bool,
}

impl<R: Read> LineBatches<R> {
    /// Batches of about `size` bytes from `reader`.
    pub fn new(reader: R, size: usize) -> Self {
        LineBatches {
            reader,
            buf: vec![0; size.max(1)],
            filled: 0,
            consumed: 0,
            eof: false,
            error: None,
        }
    }

    /// The next batch: as many whole lines as the buffer holds (at the end
    /// of the file, the rest, torn or not); `None` at the end of the file.
    /// An empty final segment after the last `\n` is not a line.
    pub fn next_batch(&mut self) -> io::Result<Option<LineBatch<'_>>> {
        self.buf.copy_within(self.consumed..self.filled, 0);
        self.filled -= self.consumed;
        self.consumed = 0;
        loop {
            while !self.eof && self.error.is_none() && self.filled < self.buf.len() {
                match self.reader.read(&mut self.buf[self.filled..]) {
                    Ok(0) => self.eof = true,
                    Ok(n) => self.filled += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => self.error = Some(e),
                }
            }
            let data = &self.buf[..self.filled];
            let end = if self.eof {
                if data.is_empty() {
                    return Ok(None);
                }
                data.len()
            } else {
                match memchr::memrchr(b'\n', data) {
                    Some(nl) => nl + 1,
                    None => match self.error.take() {
                        Some(e) => return Err(e),
                        // One line fills the buffer: make room for more of it.
                        None => {
                            let grown = self.buf.len() * 2;
                            self.buf.resize(grown, 0);
                            continue;
                        }
                    },
                }
            };
            self.consumed = end;
            return Ok(Some(LineBatch {
                bytes: &self.buf[..end],
                torn: self.buf[end - 1] != b'\n',
            }));
        }
    }
}

/// Bytes of lines [`map_lines`] gives one task of rayon's pool.
const MAP_PIECE: usize = 256 * 1024;

/// `f` applied to every line of `bytes` (lines ended by `\n`, the last one
/// possibly not), in pieces of about [`MAP_PIECE`] bytes on rayon's pool:
/// one result per line, in line order (piece by piece).
pub fn map_lines<T: Send>(bytes: &[u8], f: impl Fn(&[u8]) -> T + Sync) -> Vec<Vec<T>> {
    map_pieces(bytes, |piece| {
        let mut out = Vec::with_capacity(piece.len() / 512 + 1);
        let mut rest = piece;
        while !rest.is_empty() {
            let (line, next) = match memchr::memchr(b'\n', rest) {
                Some(nl) => (&rest[..nl], &rest[nl + 1..]),
                None => (rest, &rest[rest.len()..]),
            };
            out.push(f(line));
            rest = next;
        }
        out
    })
}

/// `f` applied to pieces of about [`MAP_PIECE`] bytes of whole lines of
/// `bytes` on rayon's pool, in order: for a caller that reads the lines of
/// a piece itself (see [`map_lines`] for the contract on lines).
pub fn map_pieces<T: Send>(bytes: &[u8], f: impl Fn(&[u8]) -> Vec<T> + Sync) -> Vec<Vec<T>> {
    use rayon::prelude::*;
    let mut pieces = Vec::with_capacity(bytes.len() / MAP_PIECE + 1);
    let mut start = 0;
    while start < bytes.len() {
        let cut = start + MAP_PIECE;
        let end = match bytes.get(cut..) {
            Some(after) => memchr::memchr(b'\n', after).map_or(bytes.len(), |nl| cut + nl + 1),
            None => bytes.len(),
        };
        pieces.push(&bytes[start..end]);
        start = end;
    }
    match pieces.as_slice() {
        [] => Vec::new(),
        [only] => vec![f(only)],
        _ => pieces.par_iter().map(|piece| f(piece)).collect(),
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

/// Visit the lines of a file from the last to the first until `visit`
/// returns `Some`. Lines are given without their `\n`; the first line of the
/// file is visited last. Reads only as much of the file as the search needs,
/// and every byte once: a line longer than one read is assembled once, when
/// its start is found. Lines longer than [`MAX_LISTING_LINE`] are skipped
/// (never assembled).
pub fn scan_backward<T>(
    path: &Path,
    visit: impl FnMut(&[u8]) -> Option<T>,
) -> io::Result<Option<T>> {
    scan_backward_within(path, MAX_LISTING_LINE, visit)
}

/// [`scan_backward`] skipping lines longer than `limit` bytes.
pub fn scan_backward_within<T>(
    path: &Path,
    limit: usize,
    mut visit: impl FnMut(&[u8]) -> Option<T>,
) -> io::Result<Option<T>> {
    scan_backward_from(path, 0, limit, |line, _| visit(line))
}

/// [`scan_backward`] over the lines that start at or after byte `floor`
/// (which must be the start of a line), each given with the offset where it
/// starts: how only the bytes appended since an earlier scan are searched.
pub fn scan_backward_to<T>(
    path: &Path,
    floor: u64,
    visit: impl FnMut(&[u8], u64) -> Option<T>,
) -> io::Result<Option<T>> {
    scan_backward_from(path, floor, MAX_LISTING_LINE, visit)
}

/// The backward scan itself: lines starting at or after `floor`, those
/// longer than `limit` bytes skipped without being assembled.
fn scan_backward_from<T>(
    path: &Path,
    floor: u64,
    limit: usize,
    mut visit: impl FnMut(&[u8], u64) -> Option<T>,
) -> io::Result<Option<T>> {
    const CHUNK: u64 = 64 * 1024;
    let mut file = File::open(path)?;
    let mut end = file.seek(SeekFrom::End(0))?;
    if end <= floor {
        return Ok(None);
    }
    // The end of the line whose start is not read yet, as the chunks read
    // so far hold it: the nearest chunk first.
    let mut pieces: Vec<Vec<u8>> = Vec::new();
    let mut held = 0usize;
    // The line whose start is not read yet is longer than `limit`: its
    // pieces are dropped, and it is skipped when its start is found.
    let mut oversized = false;
    let mut line = Vec::new();
    let mut skip_final_newline = true;
    while end > floor {
        let start = end.saturating_sub(CHUNK).max(floor);
        let mut chunk = vec![0u8; (end - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut chunk)?;
        let mut line_end = chunk.len();
        if skip_final_newline {
            if chunk.last() == Some(&b'\n') {
                line_end -= 1;
            }
            skip_final_newline = false;
        }
        while let Some(nl) = memchr::memrchr(b'\n', &chunk[..line_end]) {
            let at = start + nl as u64 + 1;
            let head = &chunk[nl + 1..line_end];
            let found = if oversized || held + head.len() > limit {
                None
            } else if pieces.is_empty() {
                visit(head, at)
            } else {
                join_pieces(&mut line, head, &mut pieces);
                visit(&line, at)
            };
            if found.is_some() {
                return Ok(found);
            }
            pieces.clear();
            held = 0;
            oversized = false;
            line_end = nl;
        }
        chunk.truncate(line_end);
        if oversized || held + chunk.len() > limit {
            pieces.clear();
            held = 0;
            oversized = true;
        } else {
            held += chunk.len();
            pieces.push(chunk);
        }
        end = start;
    }
    // The first line has no `\n` before it.
    if oversized {
        return Ok(None);
    }
    let first = pieces.pop().unwrap_or_default();
    join_pieces(&mut line, &first, &mut pieces);
    if line.len() > limit {
        return Ok(None);
    }
    Ok(visit(&line, floor))
}

/// `line` := `head` followed by `pieces` in reverse order; empties `pieces`.
fn join_pieces(line: &mut Vec<u8>, head: &[u8], pieces: &mut Vec<Vec<u8>>) {
    line.clear();
    line.reserve(head.len() + pieces.iter().map(Vec::len).sum::<usize>());
    line.extend_from_slice(head);
    while let Some(piece) = pieces.pop() {
        line.extend_from_slice(&piece);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn lines_backward(content: &[u8]) -> Vec<String> {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(content).unwrap();
        let mut seen = Vec::new();
        let none: Option<()> = scan_backward(file.path(), |line| {
            seen.push(String::from_utf8_lossy(line).into_owned());
            None
        })
        .unwrap();
        assert!(none.is_none());
        seen
    }

    #[test]
    fn backward_scan_sees_every_line_once() {
        assert_eq!(lines_backward(b"a\nb\nc\n"), ["c", "b", "a"]);
        assert_eq!(lines_backward(b"a\nb\nc"), ["c", "b", "a"]);
        assert_eq!(lines_backward(b"a\n\nc\n"), ["c", "", "a"]);
        assert_eq!(lines_backward(b""), [""; 0]);
        let big: Vec<u8> = (0..50_000)
            .flat_map(|i| format!("line{i}\n").into_bytes())
            .collect();
        let seen = lines_backward(&big);
        assert_eq!(seen.len(), 50_000);
        assert_eq!(seen[0], "line49999");
        assert_eq!(seen[49_999], "line0");
    }

    #[test]
    fn backward_scan_assembles_lines_longer_than_a_read() {
        let chunk = 64 * 1024;
        for lengths in [
            vec![3 * chunk + 17, 5, chunk - 1, chunk, chunk + 1],
            vec![2 * chunk - 1],
            vec![0, 200_000, 1],
        ] {
            let lines: Vec<String> = lengths
                .iter()
                .enumerate()
                .map(|(i, &len)| {
                    // Every position spelled differently, so pieces out of order show.
                    (0..len)
                        .map(|j| char::from(b'a' + ((i * 7 + j / 3 + j) % 26) as u8))
                        .collect()
                })
                .collect();
            for end in ["", "\n"] {
                let content = lines.join("\n") + end;
                let mut expected = lines.clone();
                expected.reverse();
                assert_eq!(lines_backward(content.as_bytes()), expected, "{lengths:?}");
            }
        }
    }

    #[test]
    fn backward_scan_to_a_floor_sees_only_later_lines_with_their_offsets() {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        let long = "y".repeat(200_000);
        let content = format!("aa\nbbb\n{long}\ncc\n");
        file.write_all(content.as_bytes()).unwrap();
        for floor in [0u64, 3, 7] {
            let mut seen = Vec::new();
            let none: Option<()> = scan_backward_to(file.path(), floor, |line, at| {
                seen.push((line.len(), at));
                None
            })
            .unwrap();
            assert!(none.is_none());
            let all = [(2, 200_008), (200_000, 7), (3, 3), (2, 0)];
            let expected: Vec<_> = all.into_iter().filter(|&(_, at)| at >= floor).collect();
            assert_eq!(seen, expected, "floor {floor}");
        }
        let past_end: Option<()> = scan_backward_to(file.path(), 200_011, |_, _| None).unwrap();
        assert!(past_end.is_none());
    }

    #[test]
    fn lines_over_the_limit_are_skipped_whole_and_never_assembled() {
        let chunk = 64 * 1024;
        let long = "x".repeat(3 * chunk + 5);
        let content = format!("first\n{long}\nmid\n{long}\nlast\n");
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(content.as_bytes()).unwrap();
        let mut seen = Vec::new();
        let none: Option<()> = scan_backward_within(file.path(), chunk, |line| {
            seen.push(String::from_utf8_lossy(line).into_owned());
            None
        })
        .unwrap();
        assert!(none.is_none());
        assert_eq!(seen, ["last", "mid", "first"]);
        // A long first line is skipped too, and a line at the limit is kept.
        for (content, expected) in [
            (format!("{long}\nb\n"), vec!["b".to_owned()]),
            (
                format!("{}\nb", "y".repeat(chunk)),
                vec!["b".to_owned(), "y".repeat(chunk)],
            ),
        ] {
            let mut file = tempfile::NamedTempFile::new().unwrap();
            file.write_all(content.as_bytes()).unwrap();
            let mut seen = Vec::new();
            let _: Option<()> = scan_backward_within(file.path(), chunk, |line| {
                seen.push(String::from_utf8_lossy(line).into_owned());
                None
            })
            .unwrap();
            assert_eq!(seen, expected);
        }

        let mut reader = LineReader::new(content.as_bytes()).with_limit(10);
        let mut got = Vec::new();
        while let Some(line) = reader.next_line().unwrap() {
            got.push((
                line.number,
                line.bytes.to_vec(),
                line.oversized,
                line.terminated,
            ));
        }
        assert_eq!(
            got,
            [
                (1, b"first".to_vec(), false, true),
                (2, vec![], true, true),
                (3, b"mid".to_vec(), false, true),
                (4, vec![], true, true),
                (5, b"last".to_vec(), false, true),
            ]
        );
    }

    /// Reads `content` through [`LineBatches`] in reads of at most
    /// `step` bytes: each batch's lines, and whether it was torn.
    fn batched(content: &[u8], size: usize, step: usize) -> Vec<(Vec<Vec<u8>>, bool)> {
        struct Trickle<'a>(&'a [u8], usize);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.0.len().min(buf.len()).min(self.1);
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut batches = LineBatches::new(Trickle(content, step), size);
        let mut out = Vec::new();
        while let Some(batch) = batches.next_batch().unwrap() {
            let lines = map_lines(batch.bytes, <[u8]>::to_vec);
            out.push((lines.into_iter().flatten().collect(), batch.torn));
        }
        out
    }

    #[test]
    fn batches_hold_whole_lines_in_order() {
        let big: Vec<u8> = (0..200_000u32)
            .flat_map(|i| format!("line{}\n", "x".repeat((i % 7) as usize)).into_bytes())
            .collect();
        for content in [&b"a\nb\nc\n"[..], b"a\n\nc", b"", b"\n", b"only", &big] {
            let expected: Vec<Vec<u8>> = {
                let mut reader = LineReader::new(content);
                let mut lines = Vec::new();
                while let Some(line) = reader.next_line().unwrap() {
                    lines.push(line.bytes.to_vec());
                }
                lines
            };
            for (size, step) in [(1, 1), (3, 2), (7, 100), (64, 5), (1 << 20, 1 << 16)] {
                let batches = batched(content, size, step);
                let lines: Vec<Vec<u8>> = batches.iter().flat_map(|(l, _)| l.clone()).collect();
                assert_eq!(lines, expected, "{size} {step}");
                // Only the last batch can end torn, and only without a final newline.
                let torn: Vec<bool> = batches.iter().map(|&(_, t)| t).collect();
                let ends_torn = !content.is_empty() && !content.ends_with(b"\n");
                assert_eq!(torn.last().copied().unwrap_or(false), ends_torn);
                assert!(torn.iter().rev().skip(1).all(|&t| !t));
            }
        }
    }

    #[test]
    fn a_read_error_comes_after_the_lines_read_before_it() {
        struct Failing(bool);
        impl Read for Failing {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if std::mem::replace(&mut self.0, true) {
                    return Err(io::Error::other("disk"));
                }
                buf[..7].copy_from_slice(b"ab\ncd\ne");
                Ok(7)
            }
        }
        let mut batches = LineBatches::new(Failing(false), 64);
        let batch = batches.next_batch().unwrap().unwrap();
        assert_eq!((batch.bytes, batch.torn), (&b"ab\ncd\n"[..], false));
        assert_eq!(batches.next_batch().unwrap_err().to_string(), "disk");
    }

    #[test]
    fn forward_reader_marks_torn_tail() {
        let mut reader = LineReader::new(&b"one\ntwo"[..]);
        let first = reader.next_line().unwrap().unwrap();
        assert_eq!(
            (first.number, first.bytes, first.terminated),
            (1, &b"one"[..], true)
        );
        let second = reader.next_line().unwrap().unwrap();
        assert_eq!(
            (second.number, second.bytes, second.terminated),
            (2, &b"two"[..], false)
        );
        assert!(reader.next_line().unwrap().is_none());
    }
}
