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
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// Upper bound on one line read for a header probe; a longer first line is not a header.
pub const MAX_HEADER_LINE: usize = 1 << 20;

/// The most of one line that listing (titles, heads, cwds) buffers: 4 MiB.
/// Longer lines are skipped by listing; the facts it looks for (ids, cwds,
/// titles, first prompts) are short, and a line this long is a pasted blob.
pub const MAX_LISTING_LINE: usize = 4 << 20;

/// The longest line reading a whole session keeps: 32 MiB (far above a
/// pasted screenshot; assembling a line costs about three times its size). A longer line
/// is read past, never assembled, and reads as a line that does not parse
/// (see the module doc for why).
pub const MAX_SESSION_LINE: usize = 32 << 20;

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

/// Reading at an offset, without a shared cursor: how the pieces of one
/// log are read on several threads at once ([`fold_lines_at`]).
pub trait ReadAt: Sync {
    /// Read into `buf` from byte `offset`: the number of bytes read, 0 at
    /// the end of the file.
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize>;
}

impl ReadAt for File {
    #[cfg(unix)]
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        std::os::unix::fs::FileExt::read_at(self, buf, offset)
    }

    #[cfg(windows)]
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        std::os::windows::fs::FileExt::seek_read(self, buf, offset)
    }
}

impl ReadAt for [u8] {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let start = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(self.len());
        let n = buf.len().min(self.len() - start);
        buf[..n].copy_from_slice(&self[start..start + n]);
        Ok(n)
    }
}

/// How [`fold_lines_at`] cuts a log: pieces of `piece` bytes, `round` of
/// them read and parsed at once, lines kept up to `max_line` bytes.
#[derive(Debug, Clone, Copy)]
pub struct Pieces {
    /// Bytes of one piece: one task of rayon's pool.
    pub piece: usize,
    /// Pieces read and parsed before their lines are visited.
    pub round: usize,
    /// The longest line put together from pieces (its `\n` aside); a
    /// longer line is read past and parsed as an empty line. At least
    /// `piece`, since a line within one piece is parsed where it lies.
    pub max_line: usize,
}

impl Pieces {
    /// 256 KiB pieces, 16 at a time: a piece stays in its core's L2 cache
    /// from the read to the parse, and a round (4 MiB) keeps both cores
    /// busy between the serial visits.
    pub const LOG: Pieces = Pieces {
        piece: 256 * 1024,
        round: 16,
        max_line: MAX_SESSION_LINE,
    };
}

/// `f` of every line of `piece` (each ended by `\n`, the last one possibly
/// not), in order: the `parse` of [`fold_lines_at`] for a reader that takes
/// lines one at a time.
pub fn map_each_line<T>(piece: &[u8], f: impl Fn(&[u8]) -> T) -> Vec<T> {
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
}

/// How far [`fold_lines_at`] read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinesRead {
    /// Bytes read from the start offset, the torn last line included.
    pub bytes: u64,
    /// Whether the last line read has no `\n` (it may still be written).
    pub torn: bool,
}

/// One piece read and parsed on a worker.
struct Piece<T> {
    /// The bytes before the piece's first `\n` (the end of a line begun in
    /// an earlier piece), or the whole piece when it has no `\n`.
    head: Vec<u8>,
    /// Whether a `\n` ends `head`.
    head_ends: bool,
    /// `parse` of the whole lines between the first and the last `\n`.
    lines: Vec<T>,
    /// The bytes after the last `\n`: the start of a line that goes on.
    tail: Vec<u8>,
    /// Whether the piece read fewer bytes than asked: the end of the file.
    short: bool,
    /// Bytes read.
    len: usize,
}

/// Read `source` from byte `start` to `start + limit` (or its end) and give
/// `visit` the results of `parse` for every line, in line order: `parse`
/// takes whole lines (each ended by `\n`, the last one possibly not) and
/// returns one result per line; `visit` takes runs of those results, with
/// whether the run's last line is torn (the end of the data, no `\n`).
/// An empty segment after the last `\n` is not a line.
///
/// Pieces of `pieces.piece` bytes are read and parsed on rayon's pool, each
/// where it is read (the bytes stay in that core's cache, and reading, the
/// kernel's copy, is shared by the cores); a line cut by a piece boundary is
/// put together and parsed on the calling thread, unless it is longer than
/// `pieces.max_line`: then it is read past and parsed as an empty line (one
/// result, so lines keep their numbers). The lines of a round are visited
/// while the next round is read, so memory is one round of buffers and two
/// of parsed results, or the longest line kept when it is longer.
///
/// The data ends at the first piece that reads short: a log that grows
/// while it is read gives the lines written before that read, as one
/// sequential reading would. A read error is returned after the lines
/// before it are visited; an error from `visit` stops the reading.
pub fn fold_lines_at<S: ReadAt + ?Sized, T: Send, E>(
    source: &S,
    start: u64,
    limit: Option<u64>,
    pieces: Pieces,
    parse: impl Fn(&[u8]) -> Vec<T> + Sync,
    mut visit: impl FnMut(Vec<T>, bool) -> Result<(), E>,
    io_error: impl Fn(io::Error) -> E,
) -> Result<LinesRead, E> {
    use rayon::prelude::*;
    let piece_size = pieces.piece.max(1);
    let round_bytes = piece_size as u64 * pieces.round.max(1) as u64;
    let end = limit.map_or(u64::MAX, |limit| start.saturating_add(limit));
    // Buffers given back after serving as the head of a piece without a
    // line end (the middle of a long line): such a piece hands its buffer
    // over instead of a copy, and the buffer is reused for a later piece.
    let spare: std::sync::Mutex<Vec<Vec<u8>>> = std::sync::Mutex::new(Vec::new());
    let give_back = |head: Vec<u8>| {
        if head.capacity() >= piece_size {
            if let Ok(mut spare) = spare.lock() {
                if spare.len() < 2 * pieces.round.max(1) {
                    spare.push(head);
                }
            }
        }
    };
    // Read and parse the pieces of the round that starts at `from`.
    let read_round = |from: u64, buffers: &mut Vec<Vec<u8>>| -> Vec<io::Result<Piece<T>>> {
        let wanted: Vec<usize> = (0..pieces.round.max(1) as u64)
            .map(|i| from.saturating_add(i * piece_size as u64))
            .take_while(|&at| at < end)
            .map(|at| (end - at).min(piece_size as u64) as usize)
            .collect();
        if buffers.len() < wanted.len() {
            buffers.resize_with(wanted.len(), Vec::new);
        }
        let read_piece = |(i, buf): (usize, &mut Vec<u8>)| -> io::Result<Piece<T>> {
            if buf.len() < piece_size {
                // Given away as the head of a piece without a line end.
                *buf = spare
                    .lock()
                    .map_or(None, |mut spare| spare.pop())
                    .unwrap_or_default();
                buf.resize(piece_size, 0);
            }
            let want = wanted[i];
            let at = from + (i * piece_size) as u64;
            let mut len = 0;
            while len < want {
                match source.read_at(&mut buf[len..want], at + len as u64) {
                    Ok(0) => break,
                    Ok(n) => len += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            Ok(Piece::of(buf, len, len < want, &parse))
        };
        match wanted.len() {
            0 => Vec::new(),
            1 => vec![read_piece((0, &mut buffers[0]))],
            n => buffers[..n]
                .par_iter_mut()
                .enumerate()
                .map(read_piece)
                .collect(),
        }
    };
    let mut buffers: Vec<Vec<u8>> = Vec::new();
    let mut offset = start;
    // The start of a line that goes on into the next piece.
    let mut carry: Vec<u8> = Vec::new();
    // Whether the line in `carry` grew past `pieces.max_line` (then
    // `carry` is empty and the rest of the line is read past).
    let mut oversized = false;
    // Add `bytes` to the line being put together, unless it is too long.
    let grow = |carry: &mut Vec<u8>, oversized: &mut bool, bytes: &[u8]| {
        if *oversized {
            return;
        }
        if carry.len() + bytes.len() > pieces.max_line {
            *oversized = true;
            *carry = Vec::new();
        } else {
            carry.extend_from_slice(bytes);
        }
    };
    let mut round_start = start;
    let mut round = read_round(start, &mut buffers);
    while !round.is_empty() {
        // The next round is read while this one is visited (the pieces'
        // results own their bytes, so the buffers are free), unless this
        // one ended the data.
        let next_start = round_start.saturating_add(round_bytes);
        let goes_on = next_start < end
            && round
                .iter()
                .all(|piece| piece.as_ref().is_ok_and(|piece| !piece.short));
        let mut next = Vec::new();
        let visited = rayon::in_place_scope(|scope| {
            if goes_on {
                scope.spawn(|_| next = read_round(next_start, &mut buffers));
            }
            for piece in round {
                let piece = piece.map_err(&io_error)?;
                offset += piece.len as u64;
                if piece.head_ends {
                    grow(&mut carry, &mut oversized, &piece.head);
                    // Ended by its `\n`, so that an empty line is a line.
                    carry.push(b'\n');
                    visit(parse(&carry), false)?;
                    if !piece.lines.is_empty() {
                        visit(piece.lines, false)?;
                    }
                    oversized = false;
                    carry = Vec::new();
                    grow(&mut carry, &mut oversized, &piece.tail);
                } else {
                    grow(&mut carry, &mut oversized, &piece.head);
                    give_back(piece.head);
                }
                if piece.short {
                    break;
                }
            }
            Ok(())
        });
        visited?;
        round = next;
        round_start = next_start;
    }
    let torn = !carry.is_empty() || oversized;
    if torn {
        visit(parse(&carry), true)?;
    }
    Ok(LinesRead {
        bytes: offset - start,
        torn,
    })
}

impl<T> Piece<T> {
    /// The piece of the first `len` bytes of `buf` (`short`: the end of the
    /// file), its whole lines parsed by `parse`. A piece without a line end
    /// takes `buf` itself as its head (no copy; the reader gives it back).
    fn of(buf: &mut Vec<u8>, len: usize, short: bool, parse: impl Fn(&[u8]) -> Vec<T>) -> Self {
        let data = &buf[..len];
        match memchr::memchr(b'\n', data) {
            None => Piece {
                head: {
                    let mut head = std::mem::take(buf);
                    head.truncate(len);
                    head
                },
                head_ends: false,
                lines: Vec::new(),
                tail: Vec::new(),
                short,
                len,
            },
            Some(first) => {
                let last = memchr::memrchr(b'\n', data).unwrap_or(first);
                let whole = &data[first + 1..=last];
                Piece {
                    head: data[..first].to_vec(),
                    head_ends: true,
                    lines: if whole.is_empty() {
                        Vec::new()
                    } else {
                        parse(whole)
                    },
                    tail: data[last + 1..].to_vec(),
                    short,
                    len,
                }
            }
        }
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

    /// The lines of `bytes` (each ended by `\n`, the last one possibly
    /// not), as [`fold_lines_at`] asks of its `parse`.
    fn split_lines(bytes: &[u8]) -> Vec<Vec<u8>> {
        let mut lines: Vec<Vec<u8>> = bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
        if bytes.ends_with(b"\n") || bytes.is_empty() {
            lines.pop();
        }
        lines
    }

    /// Lines as [`fold_lines_at`] gave them, each with whether it was torn.
    type Seen = Vec<(Vec<u8>, bool)>;

    /// The lines [`fold_lines_at`] gives of `source` from `start` for
    /// `limit` bytes, with whether each was torn, and what it returned.
    fn folded<S: ReadAt + ?Sized>(
        source: &S,
        start: u64,
        limit: Option<u64>,
        pieces: Pieces,
    ) -> io::Result<(Seen, LinesRead)> {
        let mut seen = Vec::new();
        let read = fold_lines_at(
            source,
            start,
            limit,
            pieces,
            split_lines,
            |lines, torn| {
                let count = lines.len();
                for (at, line) in lines.into_iter().enumerate() {
                    seen.push((line, torn && at + 1 == count));
                }
                Ok::<(), io::Error>(())
            },
            |e| e,
        )?;
        Ok((seen, read))
    }

    const SHAPES: [Pieces; 6] = [
        Pieces {
            piece: 1,
            round: 1,
            max_line: usize::MAX,
        },
        Pieces {
            piece: 2,
            round: 3,
            max_line: usize::MAX,
        },
        Pieces {
            piece: 3,
            round: 2,
            max_line: usize::MAX,
        },
        Pieces {
            piece: 7,
            round: 16,
            max_line: usize::MAX,
        },
        Pieces {
            piece: 64,
            round: 3,
            max_line: usize::MAX,
        },
        Pieces::LOG,
    ];

    #[test]
    fn pieces_read_past_a_line_over_the_limit_as_an_empty_line() {
        let long = "x".repeat(200);
        let at_limit = "y".repeat(64);
        let torn_long = format!("\n{}", "z".repeat(100));
        for torn_end in ["", torn_long.as_str()] {
            let content = format!("a\n{long}\n{at_limit}\n\n{long}{long}\nb{torn_end}");
            let mut expected: Seen = vec![
                (b"a".to_vec(), false),
                (vec![], false),
                (at_limit.clone().into_bytes(), false),
                (vec![], false),
                (vec![], false),
            ];
            if torn_end.is_empty() {
                expected.push((b"b".to_vec(), true));
            } else {
                // The torn last line is over the limit too: nothing of it
                // is shown, but it is read and the end is torn.
                expected.push((b"b".to_vec(), false));
            }
            // A line within one piece is kept whatever its length.
            for shape in SHAPES.into_iter().filter(|shape| shape.piece <= 64) {
                let pieces = Pieces {
                    max_line: 64,
                    ..shape
                };
                let (seen, read) = folded(content.as_bytes(), 0, None, pieces).unwrap();
                assert_eq!(seen, expected, "{pieces:?}");
                assert_eq!(read.bytes, content.len() as u64);
                assert!(read.torn);
            }
        }
    }

    #[test]
    fn pieces_give_every_line_once_in_order() {
        let big: Vec<u8> = (0..200_000u32)
            .flat_map(|i| format!("line{}\n", "x".repeat((i % 7) as usize)).into_bytes())
            .collect();
        let long = format!("a\n{}\n\nb", "y".repeat(600_000)).into_bytes();
        for content in [
            &b"a\nb\nc\n"[..],
            b"a\n\nc",
            b"",
            b"\n",
            b"\n\n",
            b"only",
            &big,
            &long,
        ] {
            let expected: Vec<Vec<u8>> = {
                let mut reader = LineReader::new(content);
                let mut lines = Vec::new();
                while let Some(line) = reader.next_line().unwrap() {
                    lines.push(line.bytes.to_vec());
                }
                lines
            };
            let ends_torn = !content.is_empty() && !content.ends_with(b"\n");
            for pieces in SHAPES {
                let (seen, read) = folded(content, 0, None, pieces).unwrap();
                let lines: Vec<Vec<u8>> = seen.iter().map(|(line, _)| line.clone()).collect();
                assert_eq!(lines, expected, "{pieces:?}");
                // Only the last line can be torn, and only without a final newline.
                let torn: Vec<bool> = seen.iter().map(|&(_, torn)| torn).collect();
                assert_eq!(torn.last().copied().unwrap_or(false), ends_torn);
                assert!(torn.iter().rev().skip(1).all(|&t| !t));
                let whole = LinesRead {
                    bytes: content.len() as u64,
                    torn: ends_torn,
                };
                assert_eq!(read, whole, "{pieces:?}");
            }
        }
    }

    #[test]
    fn folds_on_a_one_thread_pool_whose_handle_is_gone() {
        // How the picker warms the search index: on a pool of one
        // low-priority thread, whose handle is dropped once the job is
        // given. Rounds read ahead and pieces parsed "in parallel" then
        // all run on that thread.
        let content: Vec<u8> = (0..5_000u32)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .collect();
        let (tx, rx) = std::sync::mpsc::channel();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        pool.spawn(move || {
            let pieces = Pieces {
                piece: 7,
                round: 4,
                max_line: usize::MAX,
            };
            let seen = folded(&content[..], 0, None, pieces).map(|(seen, _)| seen.len());
            tx.send(seen.ok()).unwrap();
        });
        drop(pool);
        let lines = rx.recv_timeout(std::time::Duration::from_secs(60)).unwrap();
        assert_eq!(lines, Some(5_000));
    }

    #[test]
    fn a_span_reads_from_its_start_to_its_limit() {
        let content = b"one\ntwo\nthree\nfour";
        for pieces in SHAPES {
            let (seen, read) = folded(&content[..], 4, Some(10), pieces).unwrap();
            let expected = [(b"two".to_vec(), false), (b"three".to_vec(), false)];
            assert_eq!(seen, expected, "{pieces:?}");
            assert_eq!(
                read,
                LinesRead {
                    bytes: 10,
                    torn: false
                }
            );
            // A limit inside a line ends with that line torn.
            let (seen, read) = folded(&content[..], 4, Some(7), pieces).unwrap();
            assert_eq!(seen, [(b"two".to_vec(), false), (b"thr".to_vec(), true)]);
            assert_eq!(
                read,
                LinesRead {
                    bytes: 7,
                    torn: true
                }
            );
            // From the end: nothing.
            let (seen, read) = folded(&content[..], 19, None, pieces).unwrap();
            assert!(seen.is_empty());
            assert_eq!(
                read,
                LinesRead {
                    bytes: 0,
                    torn: false
                }
            );
        }
    }

    /// A log whose reads fail, or come back short, from some offset on.
    struct Faulty {
        content: Vec<u8>,
        /// Reads at or after this offset fail.
        fails_from: u64,
        /// A read that starts at exactly this offset gets nothing, as if
        /// the log ended there when it was read (and grew later).
        short_at: Option<u64>,
    }

    impl ReadAt for Faulty {
        fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
            if offset >= self.fails_from {
                return Err(io::Error::other("disk"));
            }
            if self.short_at == Some(offset) {
                return Ok(0);
            }
            self.content[..].read_at(buf, offset)
        }
    }

    #[test]
    fn a_read_error_comes_after_the_lines_read_before_it() {
        let faulty = Faulty {
            content: b"ab\ncd\nef\ngh\n".to_vec(),
            fails_from: 6,
            short_at: None,
        };
        let mut seen = Vec::new();
        let result = fold_lines_at(
            &faulty,
            0,
            None,
            Pieces {
                piece: 3,
                round: 4,
                max_line: usize::MAX,
            },
            split_lines,
            |lines, _| {
                seen.extend(lines);
                Ok(())
            },
            |e| e,
        );
        assert_eq!(result.unwrap_err().to_string(), "disk");
        assert_eq!(seen, [b"ab".to_vec(), b"cd".to_vec()]);
    }

    #[test]
    fn the_data_ends_at_the_first_piece_that_reads_short() {
        // The log "grew" between the reads of pieces 1 and 2: what the
        // later piece read is not used, as one reading from the start
        // would have met the end first.
        for short_at in [4u64, 6] {
            let faulty = Faulty {
                content: b"ab\ncd\nef\ngh\n".to_vec(),
                fails_from: u64::MAX,
                short_at: Some(short_at),
            };
            let (seen, read) = folded(
                &faulty,
                0,
                None,
                Pieces {
                    piece: 2,
                    round: 8,
                    max_line: usize::MAX,
                },
            )
            .unwrap();
            let lines: Vec<&[u8]> = seen.iter().map(|(line, _)| &line[..]).collect();
            if short_at == 4 {
                assert_eq!(lines, [&b"ab"[..], b"c"]);
                assert_eq!(
                    read,
                    LinesRead {
                        bytes: 4,
                        torn: true
                    }
                );
            } else {
                assert_eq!(lines, [&b"ab"[..], b"cd"]);
                assert_eq!(
                    read,
                    LinesRead {
                        bytes: 6,
                        torn: false
                    }
                );
            }
        }
    }

    #[test]
    fn an_error_from_the_visitor_stops_the_reading() {
        let mut visits = 0;
        let result = fold_lines_at(
            &b"a\nb\nc\n"[..],
            0,
            None,
            Pieces {
                piece: 1,
                round: 1,
                max_line: usize::MAX,
            },
            split_lines,
            |_, _| {
                visits += 1;
                Err("stop")
            },
            |_| "io",
        );
        assert_eq!((result, visits), (Err("stop"), 1));
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
