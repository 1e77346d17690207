//! The backward scan: a log's lines from the last to the first, read in
//! chunks from the end, so that a title (the last title line) is found
//! without reading the rest of the file.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use super::limits::MAX_LISTING_LINE;

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
