//! What the Claude Code and Codex readers share: lenient access to JSON
//! fields, streaming line reads (plain or zstd) that ignore a torn tail, the
//! surface builder, title cutting, and a cache of per-file facts keyed by
//! path, length and modification time (held in a catalog's `Caches`).
//!
//! Foreign logs are written by other programs while we read them, in
//! formats we do not control. Every reader here is lenient: a line that does
//! not parse, or whose fields have unexpected types, is passed over; only
//! I/O failures (a file that vanished, a stream that cannot be decoded) make
//! a session unreadable.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

mod builder;

pub use builder::{LineSays, SurfaceBuilder};

use crate::error::ReadError;
use crate::model::{Surface, SurfaceSink};
use crate::store::has_suffix;
use session_ref_jsonl::lines::{self, LineReader};

/// The longest title cut from a first prompt, in characters (Unicode scalar values).
pub const TITLE_CHARS: usize = 80;

/// Largest read issued while probing the head of a file. Listing reads only
/// the first lines of each log; reading in small pieces keeps that from
/// pulling whole buffers of multi-gigabyte logs into memory.
const HEAD_READ: usize = 32 * 1024;

/// A reader whose every `read` asks for at most `cap` bytes.
struct SmallReads<R> {
    inner: R,
    cap: usize,
}

impl<R: Read> Read for SmallReads<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(self.cap);
        self.inner.read(&mut buf[..n])
    }
}

/// The most of a zstd stream listing decompresses looking for a fact (a
/// title, a cwd): 256 MiB. A small `.zst` file can unpack to gigabytes;
/// past this, listing gives up on the fact (the title falls back).
pub const MAX_LISTING_ZSTD: u64 = 256 << 20;

/// A boxed byte stream (a file, or a zstd decoder over one).
pub type Stream = Box<dyn Read + Send>;

/// Whether `path` is a zstd-compressed log (`*.jsonl.zst`).
pub fn is_zstd(path: &Path) -> bool {
    has_suffix(path, ".zst")
}

/// Open a log for streaming, decompressing `*.zst` files on the fly (for
/// `listing`, no further than [`MAX_LISTING_ZSTD`] bytes). With `head` set,
/// reads are issued in small pieces (32 KiB), so that probing the first
/// lines of a huge log does not read a whole buffer of it.
pub fn open_lines(path: &Path, head: bool, listing: bool) -> io::Result<LineReader<Stream>> {
    let file = File::open(path)?;
    let stream: Stream = if is_zstd(path) {
        let decoder = zstd::stream::read::Decoder::new(file)?;
        if listing {
            Box::new(decoder.take(MAX_LISTING_ZSTD))
        } else {
            Box::new(decoder)
        }
    } else if head {
        Box::new(SmallReads {
            inner: file,
            cap: HEAD_READ,
        })
    } else {
        Box::new(file)
    };
    Ok(LineReader::new(stream))
}

/// Visit the lines of `path` in order until `visit` returns `false`, as
/// listing reads them: lines longer than [`lines::MAX_LISTING_LINE`] are
/// passed over unseen, and a zstd stream is read no further than
/// [`MAX_LISTING_ZSTD`] bytes once decompressed. So listing memory and time
/// do not grow with a hostile line or a decompression bomb.
///
/// `visit` receives the 1-based line number and the line's bytes, and says
/// whether the line parsed. The result is the number of the last complete
/// line: a line that ended with `\n`, or a final line without one that
/// parsed (a final unterminated line that does not parse is a torn tail
/// being written and is ignored).
pub fn read_lines(
    path: &Path,
    head: bool,
    visit: impl FnMut(u64, &[u8]) -> Visit,
) -> Result<u64, ReadError> {
    visit_lines(path, head, true, visit)
}

/// [`read_lines`] for reading a whole session (its surface): every line up
/// to [`lines::MAX_SESSION_LINE`] is seen (a longer one is read past as a
/// line that does not parse), and a zstd stream is read to its end.
pub fn read_all_lines(
    path: &Path,
    visit: impl FnMut(u64, &[u8]) -> Visit,
) -> Result<u64, ReadError> {
    visit_lines(path, false, false, visit)
}

fn visit_lines(
    path: &Path,
    head: bool,
    listing: bool,
    mut visit: impl FnMut(u64, &[u8]) -> Visit,
) -> Result<u64, ReadError> {
    let mut reader = open_lines(path, head, listing).map_err(|e| ReadError::io(path, &e))?;
    reader = reader.with_limit(if listing {
        lines::MAX_LISTING_LINE
    } else {
        lines::MAX_SESSION_LINE
    });
    let mut complete = 0;
    while let Some(line) = reader.next_line().map_err(|e| ReadError::io(path, &e))? {
        if line.oversized {
            if line.terminated {
                complete = line.number;
            }
            continue;
        }
        let verdict = visit(line.number, line.bytes);
        if line.terminated || verdict.parsed {
            complete = line.number;
        }
        if verdict.stop {
            break;
        }
    }
    Ok(complete)
}

/// How far [`read_lines_span`] read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// The number of the last complete line (as [`read_all_lines`] counts).
    pub complete: u64,
    /// The number of the last line read, complete or not.
    pub lines: u64,
    /// The byte offset after the last byte read.
    pub end: u64,
    /// Whether the last line read ended with `\n` (or nothing was read):
    /// then `end` is a line start, where reading can later go on.
    pub clean: bool,
}

/// [`read_all_lines`] over the bytes of a plain (not compressed) log from
/// byte `from`, a line start after `lines` lines, to byte `to`: the lines
/// are numbered on from `lines + 1` and visited as [`read_all_lines`]
/// visits them, so reading a log in two spans visits what one read does.
pub fn read_lines_span(
    path: &Path,
    from: u64,
    lines: u64,
    to: u64,
    mut visit: impl FnMut(u64, &[u8]) -> Visit,
) -> Result<Span, ReadError> {
    use std::io::{Seek, SeekFrom};
    let io = |e: io::Error| ReadError::io(path, &e);
    let mut file = File::open(path).map_err(io)?;
    file.seek(SeekFrom::Start(from)).map_err(io)?;
    let mut reader = LineReader::new(file.take(to.saturating_sub(from)))
        .numbered_after(lines)
        .with_limit(lines::MAX_SESSION_LINE);
    let mut span = Span {
        complete: lines,
        lines,
        end: from,
        clean: true,
    };
    while let Some(line) = reader.next_line().map_err(io)? {
        span.lines = line.number;
        span.end += line.len as u64 + u64::from(line.terminated);
        span.clean = line.terminated;
        let verdict = visit(line.number, line.bytes);
        if line.terminated || verdict.parsed {
            span.complete = line.number;
        }
        if verdict.stop {
            span.clean = false;
            break;
        }
    }
    Ok(span)
}

/// [`read_lines_span`] with the lines parsed on both cores, from byte
/// `from` (a line start after `lines` lines) to byte `to` (the end without
/// it), of a plain log: `parse` reads a line into what the fold needs
/// (`None`: the line does not parse) without state, so the log is read and
/// parsed in pieces on rayon's pool ([`lines::fold_lines_at`]); `fold`
/// takes the results in line order, numbered as [`read_lines_span`]
/// numbers them (an error from it stops the reading), and the span is
/// counted as it counts it. Memory: two rounds of parsed lines, or the
/// longest line.
pub fn fold_lines_span<T: Send>(
    path: &Path,
    from: u64,
    lines: u64,
    to: Option<u64>,
    parse: impl Fn(&[u8]) -> Option<T> + Sync,
    fold: impl FnMut(u64, T) -> Result<(), ReadError>,
) -> Result<Span, ReadError> {
    fold_lines_span_in(path, from, lines, to, lines::Pieces::LOG, parse, fold)
}

/// [`fold_lines_span`] reading the log in `pieces`.
fn fold_lines_span_in<T: Send>(
    path: &Path,
    from: u64,
    lines: u64,
    to: Option<u64>,
    pieces: lines::Pieces,
    parse: impl Fn(&[u8]) -> Option<T> + Sync,
    mut fold: impl FnMut(u64, T) -> Result<(), ReadError>,
) -> Result<Span, ReadError> {
    let io = |e: io::Error| ReadError::io(path, &e);
    let file = File::open(path).map_err(io)?;
    let mut number = lines;
    let mut complete = lines;
    let read = lines::fold_lines_at(
        &file,
        from,
        to.map(|to| to.saturating_sub(from)),
        pieces,
        |piece| lines::map_each_line(piece, &parse),
        |parsed, torn| {
            let count = parsed.len();
            for (at, outcome) in parsed.into_iter().enumerate() {
                number += 1;
                let terminated = !(torn && at + 1 == count);
                if terminated || outcome.is_some() {
                    complete = number;
                }
                if let Some(value) = outcome {
                    fold(number, value)?;
                }
            }
            Ok(())
        },
        io,
    )?;
    Ok(Span {
        complete,
        lines: number,
        end: from + read.bytes,
        clean: !read.torn,
    })
}

/// [`read_all_lines`] by [`fold_lines_span`] (a `.zst` log, which can only
/// be read in order, line by line): the number of the last complete line.
pub fn fold_all_lines<T: Send>(
    path: &Path,
    parse: impl Fn(&[u8]) -> Option<T> + Sync,
    mut fold: impl FnMut(u64, T),
) -> Result<u64, ReadError> {
    if is_zstd(path) {
        return read_all_lines(path, |number, bytes| match parse(bytes) {
            Some(value) => {
                fold(number, value);
                Visit::NEXT
            }
            None => Visit::BAD,
        });
    }
    fold_lines_span(path, 0, 0, None, parse, |number, value| {
        fold(number, value);
        Ok(())
    })
    .map(|span| span.complete)
}

/// What `pick` finds in the last line of `path` where it finds anything,
/// looking only at lines holding `word`. A plain log is scanned from its
/// end, as far as needed; a zstd stream cannot be read backward and is read
/// forward, whole.
pub fn last_line_where<T>(
    path: &Path,
    word: &[u8],
    pick: impl Fn(&[u8]) -> Option<T>,
) -> Result<Option<T>, ReadError> {
    let word = memchr::memmem::Finder::new(word);
    let found = |bytes: &[u8]| word.find(bytes).and_then(|_| pick(bytes));
    if is_zstd(path) {
        let mut last = None;
        read_lines(path, false, |_, bytes| {
            last = found(bytes).or(last.take());
            Visit::NEXT
        })?;
        return Ok(last);
    }
    lines::scan_backward(path, found).map_err(|e| ReadError::io(path, &e))
}

/// What a line visitor reports to [`read_lines`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Visit {
    /// The line parsed as JSON of the expected overall shape.
    pub parsed: bool,
    /// Stop reading after this line.
    pub stop: bool,
}

impl Visit {
    /// The line parsed; keep reading.
    pub const NEXT: Visit = Visit {
        parsed: true,
        stop: false,
    };
    /// The line did not parse; keep reading.
    pub const BAD: Visit = Visit {
        parsed: false,
        stop: false,
    };
    /// The line parsed and nothing more is needed.
    pub const DONE: Visit = Visit {
        parsed: true,
        stop: true,
    };
}

/// Whether `text`, after leading whitespace, starts with any of `prefixes`.
pub fn starts_with_any(text: &str, prefixes: &[&str]) -> bool {
    let text = text.trim_start();
    prefixes.iter().any(|p| text.starts_with(p))
}

/// The title a first prompt gives: its first non-blank line, cut to
/// [`TITLE_CHARS`] characters, without surrounding whitespace. `None` when
/// the text is blank.
pub fn title_from_text(text: &str) -> Option<String> {
    let line = text.trim_start().lines().next()?.trim_end();
    if line.is_empty() {
        return None;
    }
    let cut: String = line.chars().take(TITLE_CHARS).collect();
    Some(cut.trim_end().to_owned())
}

/// The texts of a message's `content` as most agents store it: a string
/// is one text; an array gives the `text` of its items of `type: "text"`
/// (Anthropic-style blocks, OpenAI-style parts).
pub fn text_items(content: Option<&serde_json::Value>) -> Vec<&str> {
    use serde_json::Value;
    match content {
        Some(Value::String(text)) => vec![text.as_str()],
        Some(Value::Array(items)) => items
            .iter()
            .filter(|i| i.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|i| i.get("text").and_then(Value::as_str))
            .collect(),
        _ => Vec::new(),
    }
}

/// The UUID at the end of a file stem (`rollout-…-<uuid>`), if there is one.
pub fn trailing_uuid(path: &Path) -> Option<String> {
    // Lossy: the UUID tail is ASCII, whatever the rest of the name holds.
    let name = path.file_name()?.to_string_lossy();
    let name: &str = &name;
    let stem = name
        .strip_suffix(".zst")
        .unwrap_or(name)
        .strip_suffix(".jsonl")?;
    let start = stem.len().checked_sub(36)?;
    let tail = stem.get(start..)?;
    let shaped = tail.bytes().enumerate().all(|(i, b)| match i {
        8 | 13 | 18 | 23 => b == b'-',
        _ => b.is_ascii_hexdigit(),
    });
    shaped.then(|| tail.to_owned())
}

/// Fold the log at `path` into `sink`, each line saying one thing
/// (`says`): the surface of a reader whose lines map one to one onto
/// [`LineSays`] (Antigravity, Cursor CLI). With the last complete line.
pub fn fold_said_lines<S: SurfaceSink>(
    path: &Path,
    says: impl Fn(&[u8]) -> Option<LineSays> + Sync,
    sink: S,
) -> Result<(S, u64), ReadError> {
    let mut builder = SurfaceBuilder::new(sink);
    let last = fold_all_lines(path, says, |seq, said| builder.apply(seq, said))?;
    Ok((builder.into_sink(), last))
}

/// [`fold_said_lines`], with the tool calls and results `tools` reads of
/// each line when the sink asks for them ([`SurfaceSink::wants_tools`];
/// otherwise `tools` is never called).
pub fn fold_said_lines_with_tools<S: SurfaceSink>(
    path: &Path,
    says: impl Fn(&[u8]) -> Option<LineSays> + Sync,
    tools: impl Fn(&[u8]) -> Vec<crate::model::ToolEvent> + Sync,
    sink: S,
) -> Result<(S, u64), ReadError> {
    let mut builder = SurfaceBuilder::new(sink);
    let wanted = builder.wants_tools();
    let read = |bytes: &[u8]| {
        let said = says(bytes)?;
        Some((said, if wanted { tools(bytes) } else { Vec::new() }))
    };
    let last = fold_all_lines(path, read, |seq, (said, found)| {
        builder.apply(seq, said);
        for tool in found {
            builder.tool(seq, tool);
        }
    })?;
    Ok((builder.into_sink(), last))
}

/// [`fold_said_lines`] into a whole [`Surface`].
pub fn read_said_lines(
    path: &Path,
    says: impl Fn(&[u8]) -> Option<LineSays> + Sync,
) -> Result<Surface, ReadError> {
    let mut builder = SurfaceBuilder::default();
    let last = fold_all_lines(path, says, |seq, said| builder.apply(seq, said))?;
    Ok(builder.finish(last))
}

/// What identifies one version of a file: its length and modification time,
/// plus a caller-chosen version of whatever else the cached value depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    version: u64,
}

type Slot<T> = (Stamp, Arc<OnceLock<Result<Arc<T>, ReadError>>>);

/// A cache of facts computed from one file (a field of a store kind's
/// caches, which the catalog's [`Caches`](crate::Caches) owns).
///
/// An entry is valid while the file keeps its length and modification time
/// (logs are append-only, so any write changes one of them). Each lookup
/// costs one `stat`. Concurrent lookups of the same file version compute the
/// value once; the others wait for it.
pub struct FileCache<T> {
    entries: Mutex<HashMap<PathBuf, Slot<T>>>,
}

impl<T> Default for FileCache<T> {
    fn default() -> Self {
        FileCache {
            entries: Mutex::new(HashMap::new()),
        }
    }
}

impl<T> FileCache<T> {
    /// The value for the current version of `path` (and `version`), computed
    /// by `compute` when absent or stale. A file that cannot be `stat`ed is
    /// an error.
    pub fn get(
        &self,
        path: &Path,
        version: u64,
        compute: impl FnOnce() -> Result<T, ReadError>,
    ) -> Result<Arc<T>, ReadError> {
        let meta = std::fs::metadata(path).map_err(|e| ReadError::io(path, &e))?;
        let stamp = Stamp {
            len: meta.len(),
            modified: meta.modified().ok(),
            version,
        };
        let cell = {
            let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
            match entries.get(path) {
                Some((known, cell)) if *known == stamp => cell.clone(),
                _ => {
                    let cell = Arc::new(OnceLock::new());
                    entries.insert(path.to_owned(), (stamp, cell.clone()));
                    cell
                }
            }
        };
        cell.get_or_init(|| compute().map(Arc::new)).clone()
    }
}

/// The whole of a file an agent rewrites or appends as one document (a
/// JSON thread, a Markdown history), refused when larger than `max` bytes:
/// past that it is not one of the agent's files.
pub fn read_bounded(path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
    let meta = std::fs::metadata(path).map_err(|e| ReadError::io(path, &e))?;
    if meta.len() > max {
        return Err(ReadError {
            path: path.to_owned(),
            line: None,
            message: format!("larger than {} MiB: not a session file", max >> 20),
        });
    }
    std::fs::read(path).map_err(|e| ReadError::io(path, &e))
}

/// The surface a fold into a sink gives (`fold` returns the seq of its
/// last event), without assistant messages that never received text: a
/// kind's `read_surface` through its `fold_surface`.
pub fn folded_surface(
    fold: impl FnOnce(&mut Surface) -> Result<u64, ReadError>,
) -> Result<Surface, ReadError> {
    let mut surface = Surface::default();
    let last = fold(&mut surface)?;
    surface.drop_empty_assistant_messages();
    surface.captured_through_seq = last;
    Ok(surface)
}

/// What a person typed in a prompt an agent wraps in tags before the model
/// sees it (Cursor CLI's `<user_query>`, Antigravity CLI's
/// `<USER_REQUEST>`): the text inside every `<wrapper>…</wrapper>` block,
/// joined by a blank line, when the prompt has one (an unclosed block runs
/// to the end); else the text with the blocks of other tags it opens or
/// ends with, on lines of their own (`<timestamp>…</timestamp>`,
/// `<ADDITIONAL_METADATA>…`: what the agent injected), taken off. Trimmed; `None` when nothing is left.
pub fn typed_inside(text: &str, wrapper: &str) -> Option<String> {
    let open = format!("<{wrapper}>");
    let close = format!("</{wrapper}>");
    let mut inside = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(&open) {
        let after = &rest[at + open.len()..];
        let (inner, next) = match after.find(&close) {
            Some(end) => (&after[..end], &after[end + close.len()..]),
            None => (after, ""),
        };
        let inner = inner.trim();
        if !inner.is_empty() {
            inside.push(inner);
        }
        rest = next;
    }
    if rest.len() != text.len() {
        return (!inside.is_empty()).then(|| inside.join("\n\n"));
    }
    let mut text = text.trim();
    while let Some(after) = leading_block(text) {
        text = after.trim_start();
    }
    while let Some(before) = trailing_block(text) {
        text = before.trim_end();
    }
    (!text.is_empty()).then(|| text.to_owned())
}

/// A tag name as agents write their wrappers (`user_query`, `USER_REQUEST`).
fn is_tag_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// `text` after the `<tag>…</tag>` block it starts with, if it starts with one.
fn leading_block(text: &str) -> Option<&str> {
    let name = text.strip_prefix('<')?.split_once('>')?.0;
    if !is_tag_name(name) {
        return None;
    }
    let close = format!("</{name}>");
    let end = text.find(&close)?;
    let after = &text[end + close.len()..];
    // A block of its own lines, not markup inside a typed line.
    (after.is_empty() || after.starts_with(['\n', '\r'])).then_some(after)
}

/// `text` before the `<tag>…</tag>` block it ends with, if it ends with one.
fn trailing_block(text: &str) -> Option<&str> {
    let body = text.strip_suffix('>')?;
    let start = body.rfind("</")?;
    let name = &body[start + 2..];
    if !is_tag_name(name) {
        return None;
    }
    let open = format!("<{name}>");
    let begin = text[..start].rfind(&open)?;
    let before = &text[..begin];
    (before.is_empty() || before.ends_with('\n')).then_some(before)
}

/// What the Claude Code and Codex reader tests share.
#[cfg(test)]
pub(crate) mod testing {
    use crate::model::{EventKind, MessageSource, Surface};
    use session_ref_core::projection::join_text;

    /// A surface as `(seq, speaker, text)`, the speaker being `user`,
    /// `checkpoint`, `assistant` or `tool`.
    pub fn texts(surface: &Surface) -> Vec<(u64, &'static str, String)> {
        surface
            .events
            .iter()
            .map(|e| match &e.kind {
                EventKind::UserMessage { source, content } => {
                    let speaker = match source {
                        MessageSource::Checkpoint => "checkpoint",
                        _ => "user",
                    };
                    (e.seq, speaker, join_text(content))
                }
                EventKind::AssistantMessage { content } => (e.seq, "assistant", join_text(content)),
                EventKind::ToolResult => (e.seq, "tool", String::new()),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Block, EventKind};
    use proptest::prelude::*;
    use std::io::Write;

    /// A line "parses" when it starts with `o`.
    fn parse_o(bytes: &[u8]) -> Option<Vec<u8>> {
        bytes.starts_with(b"o").then(|| bytes.to_vec())
    }

    /// A line visitor keeping, numbered, the lines [`parse_o`] reads.
    fn keep_o(kept: &mut Vec<(u64, Vec<u8>)>) -> impl FnMut(u64, &[u8]) -> Visit + '_ {
        |number, bytes| match parse_o(bytes) {
            Some(value) => {
                kept.push((number, value));
                Visit::NEXT
            }
            None => Visit::BAD,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]
        #[test]
        fn spans_folded_in_pieces_fold_as_read_line_by_line(
            lines in prop::collection::vec("[ox]{0,9}", 0..14),
            end in prop::sample::select(vec!["\n", ""]),
            skip in 0usize..4,
            cut in 0usize..200,
            piece in 1usize..40,
            round in 1usize..4,
        ) {
            let mut content = lines.join("\n");
            if !lines.is_empty() {
                content.push_str(end);
            }
            let mut file = tempfile::NamedTempFile::new().unwrap();
            file.write_all(content.as_bytes()).unwrap();
            // Start after `skip` whole lines; end anywhere after that.
            let skip = skip.min(lines.len());
            let from: u64 = lines[..skip].iter().map(|l| l.len() as u64 + 1).sum::<u64>()
                .min(content.len() as u64);
            let to = from + cut as u64;
            let mut expected = Vec::new();
            let expected_span = read_lines_span(file.path(), from, skip as u64, to, keep_o(&mut expected)).unwrap();
            let mut got = Vec::new();
            let pieces = lines::Pieces { piece, round, max_line: usize::MAX };
            let span = fold_lines_span_in(file.path(), from, skip as u64, Some(to), pieces, parse_o, |number, value| {
                got.push((number, value));
                Ok(())
            }).unwrap();
            prop_assert_eq!(&got, &expected);
            prop_assert_eq!(span, expected_span);
            // And the whole log as `read_all_lines` reads it.
            let mut whole = Vec::new();
            let complete = read_all_lines(file.path(), keep_o(&mut whole)).unwrap();
            let mut folded = Vec::new();
            let folded_complete = fold_all_lines(file.path(), parse_o, |number, value| folded.push((number, value))).unwrap();
            prop_assert_eq!((folded, folded_complete), (whole, complete));
        }
    }

    #[test]
    fn titles_are_first_lines_cut_to_80_chars() {
        assert_eq!(
            title_from_text("\n  fix the build\nthen test").as_deref(),
            Some("fix the build")
        );
        assert_eq!(title_from_text("line\r\nnext").as_deref(), Some("line"));
        assert_eq!(title_from_text(" \n\t"), None);
        let long = "é".repeat(100);
        let cut = title_from_text(&long).unwrap();
        assert_eq!(cut.chars().count(), 80);
        assert_eq!(cut.len(), 160);
    }

    #[test]
    fn uuid_from_rollout_names() {
        let p = Path::new(
            "/s/2026/01/02/rollout-2026-01-02T18-39-45-019b7f94-51b4-7593-922e-ba12b5b73b52.jsonl",
        );
        assert_eq!(
            trailing_uuid(p).as_deref(),
            Some("019b7f94-51b4-7593-922e-ba12b5b73b52")
        );
        let z = Path::new("rollout-x-019b7f94-51b4-7593-922e-ba12b5b73b52.jsonl.zst");
        assert!(trailing_uuid(z).is_some());
        assert_eq!(trailing_uuid(Path::new("rollout-short.jsonl")), None);
        assert_eq!(
            trailing_uuid(Path::new(
                "rollout-x-019b7f94-51b4-7593-922e-ba12b5b73b5z.jsonl"
            )),
            None
        );
    }

    #[test]
    fn builder_merges_by_key_and_shadows() {
        let mut b = SurfaceBuilder::default();
        b.user(1, vec!["old".into()]);
        b.shadow();
        b.assistant(2, Some("m"), vec![]);
        b.user(3, vec!["q".into()]);
        b.assistant(4, Some("m"), vec!["a".into()]);
        b.assistant(5, Some("empty"), vec![]);
        b.assistant(6, None, vec!["b".into()]);
        let s = b.finish(9);
        let seqs: Vec<u64> = s.events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, [2, 3, 6]);
        assert_eq!(
            s.events[0].kind,
            EventKind::AssistantMessage {
                content: vec![Block::Text("a".into())]
            }
        );
        assert_eq!(s.captured_through_seq, 9);
    }

    #[test]
    fn read_lines_ignores_only_a_torn_unparsed_tail() {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(b"{}\nbad\n{}\n{\"torn").unwrap();
        let mut seen = Vec::new();
        let last = read_lines(file.path(), false, |n, bytes| {
            seen.push(n);
            if serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_ok() {
                Visit::NEXT
            } else {
                Visit::BAD
            }
        })
        .unwrap();
        assert_eq!(seen, [1, 2, 3, 4]);
        assert_eq!(last, 3);
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(b"{}\n{}").unwrap();
        let last = read_lines(file.path(), true, |_, _| Visit::NEXT).unwrap();
        assert_eq!(last, 2);
        let last = read_lines(file.path(), true, |_, _| Visit::DONE).unwrap();
        assert_eq!(last, 1);
    }

    #[test]
    fn zstd_logs_stream_and_corrupt_ones_fail() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("a.jsonl.zst");
        std::fs::write(&good, zstd::encode_all(&b"{}\n{}\n"[..], 3).unwrap()).unwrap();
        assert_eq!(read_lines(&good, true, |_, _| Visit::NEXT).unwrap(), 2);
        let bad = dir.path().join("b.jsonl.zst");
        std::fs::write(&bad, b"not zstd at all\n").unwrap();
        assert!(read_lines(&bad, true, |_, _| Visit::NEXT).is_err());
    }

    #[test]
    fn file_cache_recomputes_when_the_file_changes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, "a").unwrap();
        let cache: FileCache<usize> = FileCache::default();
        let calls = std::cell::Cell::new(0);
        let len = || {
            calls.set(calls.get() + 1);
            Ok(std::fs::read(&path).unwrap().len())
        };
        assert_eq!(*cache.get(&path, 0, len).unwrap(), 1);
        assert_eq!(*cache.get(&path, 0, len).unwrap(), 1);
        assert_eq!(calls.get(), 1);
        assert_eq!(*cache.get(&path, 1, len).unwrap(), 1);
        assert_eq!(calls.get(), 2);
        std::fs::write(&path, "abc").unwrap();
        assert_eq!(*cache.get(&path, 1, len).unwrap(), 3);
        std::fs::remove_file(&path).unwrap();
        assert!(cache.get(&path, 1, len).is_err());
        assert_eq!(calls.get(), 3);
    }

    #[test]
    fn typed_inside_keeps_the_wrapped_text_and_drops_injected_blocks() {
        let cursor = "<timestamp>Tuesday, Jul 21, 2026, 6:57 PM (UTC+8)</timestamp>\n<user_query>\nhello — ✓\n</user_query>";
        assert_eq!(
            typed_inside(cursor, "user_query").as_deref(),
            Some("hello — ✓")
        );
        let two = "<user_query>a</user_query>\n<attached_files>F</attached_files><user_query>b";
        assert_eq!(typed_inside(two, "user_query").as_deref(), Some("a\n\nb"));
        assert_eq!(
            typed_inside("<user_query> </user_query>", "user_query"),
            None
        );
        // No wrapper: the blocks it opens and ends with are injected.
        let bare = "<ADDITIONAL_METADATA>\ntime\n</ADDITIONAL_METADATA>\nfix <b>it</b>\n<USER_SETTINGS_CHANGE>x</USER_SETTINGS_CHANGE>";
        assert_eq!(
            typed_inside(bare, "USER_REQUEST").as_deref(),
            Some("fix <b>it</b>")
        );
        assert_eq!(
            typed_inside("plain words", "USER_REQUEST").as_deref(),
            Some("plain words")
        );
        assert_eq!(
            typed_inside("a < b > c", "USER_REQUEST").as_deref(),
            Some("a < b > c")
        );
        assert_eq!(typed_inside("<x>only</x>", "USER_REQUEST"), None);
    }
}
