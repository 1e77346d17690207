//! Tests of the forward, parallel and backward line readers.

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
