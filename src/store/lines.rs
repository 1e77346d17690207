//! Line access to append-only JSONL logs: forward streaming with line numbers,
//! and a backward scan so titles are found from the end of a file without
//! reading the rest.
//!
//! Memory: listing never holds more than [`MAX_LISTING_LINE`] bytes of one
//! line. A longer line (a pasted image, a hostile 1 GiB line) is read past,
//! never assembled: the backward scan and a bounded [`LineReader`] skip it
//! without showing it to their visitor. Reading a whole session (preview,
//! prepare) uses an unbounded reader: every line counts there.

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

/// Read the first line of a file, at most [`MAX_HEADER_LINE`] bytes.
/// `None` for an empty file or a first line longer than the cap.
pub fn first_line(path: &Path) -> io::Result<Option<Vec<u8>>> {
    let file = File::open(path)?;
    let mut reader = BufReader::with_capacity(16 * 1024, file.take(MAX_HEADER_LINE as u64 + 1));
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
