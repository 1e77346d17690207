//! Reading one log in pieces on rayon's pool ([`fold_lines_at`]): each
//! piece is read and its whole lines parsed where it was read, and lines
//! cut by a piece boundary are put together on the calling thread. Apart
//! from the forward reader because it is the only part that runs on
//! several threads and reads at offsets ([`ReadAt`]).

use std::fs::File;
use std::io;

use super::limits::MAX_SESSION_LINE;

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
