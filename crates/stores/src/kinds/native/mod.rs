//! The native Hydra session log (SPEC §3): a header line, then one event per line.
//!
//! Reading a whole log ([`fold_surface`], what `prepare` and previews do)
//! is bound by parsing. Two things make it fast without changing a result:
//! each line's envelope is read by the allocation-free scanner of
//! [`session_ref_jsonl::envelope`] when it can vouch for the line (the general
//! `serde_json` parse, `parse_event`, takes every other line), so that
//! the tool results and streaming deltas that make most of a log are only
//! validated, never parsed into values; and the log is read and parsed in
//! pieces on both cores, then folded in order ([`lines::fold_lines_at`]:
//! each core reads its own pieces, so the kernel's copy is shared and a
//! piece is still in that core's cache when it is parsed). The scanner
//! finds each line's end itself and, with AVX-512, checks UTF-8 in the same
//! pass (`read_piece`). Pieces are read, not memory-mapped: a mapped log truncated
//! while it is read kills the process with `SIGBUS` (no error, no restored
//! terminal), and mapping saved only about 0.08 s of CPU over three 300 MB
//! logs.
//! Property tests below hold all of it to the line-by-line general parse,
//! on hostile lines too.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::caches::Caches;
use crate::error::ReadError;
use crate::index::journal::{Folded, Journal, ResumePoint};
use crate::model::{SessionRecord, StoreKind, Surface, SurfaceEvent, SurfaceSink};
use crate::store::{env_or_home, Env, Store};
use crate::store::{has_suffix, ScanEvent};
use session_ref_jsonl::lines::{self, Pieces};
use session_ref_jsonl::loose::Loose;

mod event;

pub use event::COMPACTION_MARKER;
use event::{parse_event, read_piece, read_piece_with_tools, Event, LineFault, RawEvent};

/// The native store.
pub struct Native;

/// The native store's kind.
pub const KIND: StoreKind = StoreKind::new(&Native);

impl Store for Native {
    fn name(&self) -> &'static str {
        "hydra"
    }

    fn flag(&self) -> &'static str {
        "store"
    }

    fn origin(&self) -> &'static str {
        "native Hydra stores"
    }

    fn root_help(&self) -> &'static str {
        "Native session store directory"
    }

    fn default_roots(&self, env: Env<'_>, home: Option<&Path>) -> Vec<PathBuf> {
        env_or_home(env, home, "HYDRA_SESSIONS", &[], &[".hydra", "sessions"])
    }

    fn wants(&self, path: &Path) -> bool {
        has_suffix(path, ".jsonl")
    }

    fn list_file(&self, _: &Caches, root: &Arc<Path>, path: &Path) -> ScanEvent {
        match read_record(root, path.to_owned()) {
            Ok(Ok(record)) => ScanEvent::Record(record),
            Ok(Err(why)) => ScanEvent::Skipped {
                path: path.to_owned(),
                reason: why.to_string(),
            },
            Err(e) => ScanEvent::Unreadable {
                path: path.to_owned(),
                reason: e.to_string(),
            },
        }
    }

    /// A native log's events carry no time: the only time it records is
    /// its header's `createdAt`, which is its last activity (the file's
    /// modification time when it does not parse). So a copied or cloned
    /// store keeps its ages and order.
    fn last_activity(&self, _: &Caches, record: &SessionRecord) -> Option<i64> {
        session_ref_core::time::Instant::parse_rfc3339(&record.created_at)
            .map(session_ref_core::time::Instant::unix_seconds)
            .or_else(|| crate::caches::modified_secs(&record.path))
    }

    fn read_title(&self, _: &Caches, record: &SessionRecord) -> Result<Option<String>, ReadError> {
        read_title(&record.path).map_err(|e| ReadError::io(&record.path, &e))
    }

    fn read_surface(&self, _: &Caches, record: &SessionRecord) -> Result<Surface, ReadError> {
        read_surface(record)
    }

    fn title_after(
        &self,
        _: &Caches,
        record: &SessionRecord,
        floor: u64,
    ) -> Option<Result<Option<(String, u64)>, ReadError>> {
        Some(read_title_from(&record.path, floor).map_err(|e| ReadError::io(&record.path, &e)))
    }

    fn fold_surface(
        &self,
        _: &Caches,
        record: &SessionRecord,
        sink: &mut dyn SurfaceSink,
    ) -> Result<u64, ReadError> {
        fold_surface(record, sink).map(|(_, last)| last)
    }

    fn fold_resumable(
        &self,
        _: &Caches,
        record: &SessionRecord,
        len: u64,
        from: Option<&ResumePoint>,
    ) -> Result<Folded, ReadError> {
        let start = from.and_then(|point| {
            let state: FoldState = crate::index::sealed::decode(&point.state)?;
            (point.lines >= 1).then_some(Start {
                byte: point.offset,
                read: point.lines,
                last_seq: state.last_seq,
            })
        });
        let continued = start.is_some();
        let (journal, end) = fold_span(
            record,
            Journal::new(0),
            Pieces::LOG,
            start.unwrap_or_default(),
            Some(len),
        )?;
        let resume = end.clean.then(|| ResumePoint {
            offset: end.byte,
            lines: end.read,
            state: crate::index::sealed::encode(&FoldState {
                last_seq: end.last_seq,
            })
            .unwrap_or_default(),
        });
        Ok(Folded {
            ops: journal.into_ops(),
            chosen: 0,
            continued,
            resume,
        })
    }
}

/// What a resumed fold of a log needs besides the lines before it: the
/// last seq read, which the next one must exceed.
#[derive(Debug, Default, Serialize, Deserialize)]
struct FoldState {
    last_seq: u64,
}

/// Why a file is not a native session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotASession {
    /// The file is empty or its first line is not JSON.
    NoHeader,
    /// The first line is JSON but not a version-1 session header.
    BadHeader(&'static str),
}

impl std::fmt::Display for NotASession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotASession::NoHeader => f.write_str("first line is not a JSON session header"),
            NotASession::BadHeader(why) => write!(f, "first line is not a session header: {why}"),
        }
    }
}

/// Parse a header line into a record.
pub fn parse_header(
    root: &Arc<Path>,
    path: PathBuf,
    line: &[u8],
) -> Result<SessionRecord, NotASession> {
    let value: Value = serde_json::from_slice(line).map_err(|_| NotASession::NoHeader)?;
    let Value::Object(map) = value else {
        return Err(NotASession::BadHeader("not an object"));
    };
    if map.get("type").and_then(Value::as_str) != Some("session") {
        return Err(NotASession::BadHeader("type is not \"session\""));
    }
    if map.get("version").and_then(Value::as_f64) != Some(1.0) {
        return Err(NotASession::BadHeader("version is not 1"));
    }
    let Some(Value::String(id)) = map.get("id") else {
        return Err(NotASession::BadHeader("id is not a string"));
    };
    let Some(Value::String(created_at)) = map.get("createdAt") else {
        return Err(NotASession::BadHeader("createdAt is not a string"));
    };
    let cwd = match map.get("cwd") {
        None => None,
        Some(Value::String(cwd)) => Some(cwd.clone()),
        Some(_) => return Err(NotASession::BadHeader("cwd is not a string")),
    };
    Ok(SessionRecord::new(
        KIND,
        root.clone(),
        path,
        id.clone(),
        cwd,
        created_at.clone(),
    ))
}

/// Read the header of `path`: `Ok(None)` when the file is not a session.
pub fn read_record(
    root: &Arc<Path>,
    path: PathBuf,
) -> std::io::Result<Result<SessionRecord, NotASession>> {
    Ok(match lines::first_line(&path)? {
        Some(line) => parse_header(root, path, &line),
        None => Err(NotASession::NoHeader),
    })
}

/// The latest title, scanning from the end of the log: the last line that
/// parses as a `session/title` event with a string title.
///
/// Only the title events are parsed whole. A line is passed over unless it
/// holds the word `title`, or a `\u` or `\/` escape (the only escapes that
/// can spell a letter or the `/` of `"session/title"`), and, when it does,
/// unless its `type` is `session/title`; so a log without any title is
/// read to its start but not parsed.
pub fn read_title(path: &Path) -> std::io::Result<Option<String>> {
    Ok(read_title_from(path, 0)?.map(|(title, _)| title))
}

/// [`read_title`] among the lines that start at or after byte `floor` (a
/// line start): the title and the offset of its line. How the title index
/// searches only what was appended since it last looked.
pub fn read_title_from(path: &Path, floor: u64) -> std::io::Result<Option<(String, u64)>> {
    let word = memchr::memmem::Finder::new(b"title");
    let unicode = memchr::memmem::Finder::new(b"\\u");
    let slash = memchr::memmem::Finder::new(b"\\/");
    lines::scan_backward_to(path, floor, |line, at| {
        let spelled =
            word.find(line).is_some() || unicode.find(line).is_some() || slash.find(line).is_some();
        if !spelled || !may_be_title(line) {
            return None;
        }
        match parse_event(line) {
            Ok((_, Event::Title(title))) => Some((title, at)),
            _ => None,
        }
    })
}

/// Whether a line may be a `session/title` event: its `type` is that
/// string, or its envelope does not read directly (a repeated key, which
/// [`parse_event`] resolves).
fn may_be_title(line: &[u8]) -> bool {
    match serde_json::from_slice::<RawEvent<'_>>(line) {
        Ok(raw) => raw.kind.as_ref().and_then(Loose::as_str) == Some("session/title"),
        Err(_) => true,
    }
}

/// Read and fold the whole log of `record`.
pub fn read_surface(record: &SessionRecord) -> Result<Surface, ReadError> {
    let (mut surface, last) = fold_surface(record, Surface::default())?;
    surface.captured_through_seq = last;
    Ok(surface)
}

/// Fold the whole log of `record` into `sink`: the sink and the seq of
/// the last complete event read (0 when none).
///
/// The log is read and parsed in pieces on rayon's pool
/// ([`lines::fold_lines_at`], `read_event`, which needs no state), and
/// the results are folded in line order, so errors, seqs and events come
/// exactly as a line-by-line reading gives them. Memory: one round of
/// pieces and their parsed events (only message texts are kept), or the
/// longest line when it is longer.
pub fn fold_surface<S: SurfaceSink>(
    record: &SessionRecord,
    sink: S,
) -> Result<(S, u64), ReadError> {
    fold_in_pieces(record, sink, Pieces::LOG)
}

/// [`fold_surface`] reading the log in `pieces`.
fn fold_in_pieces<S: SurfaceSink>(
    record: &SessionRecord,
    sink: S,
    pieces: Pieces,
) -> Result<(S, u64), ReadError> {
    fold_span(record, sink, pieces, Start::default(), None).map(|(sink, end)| (sink, end.last_seq))
}

/// Where folding a log starts: a line start, the lines before it (the
/// header is line 1; none: the log's start) and the last seq read.
#[derive(Debug, Default, Clone, Copy)]
struct Start {
    byte: u64,
    read: u64,
    last_seq: u64,
}

/// Where a fold ended ([`Start`] for a fold that goes on from there, when
/// `clean`: the last line read was complete).
#[derive(Debug, Clone, Copy)]
struct End {
    byte: u64,
    read: u64,
    last_seq: u64,
    clean: bool,
}

/// Fold the lines of `record`'s log from `start` to byte `to` (the end
/// without it) into `sink`, read and parsed in `pieces`: a log folded in
/// two spans folds as in one.
fn fold_span<S: SurfaceSink>(
    record: &SessionRecord,
    mut sink: S,
    pieces: Pieces,
    start: Start,
    to: Option<u64>,
) -> Result<(S, End), ReadError> {
    let path = &record.path;
    let io = |e: std::io::Error| ReadError::io(path, &e);
    let file = std::fs::File::open(path).map_err(io)?;
    // Lines read so far (the header is line 1).
    let mut read = start.read;
    let mut last_seq = start.last_seq;
    let span = to.map(|to| to.saturating_sub(start.byte));
    let wants_tools = sink.wants_tools();
    let visit = |outcomes: Vec<Result<(u64, Event), LineFault>>, torn: bool| {
        let count = outcomes.len();
        for (at, outcome) in outcomes.into_iter().enumerate() {
            read += 1;
            let number = read;
            if number == 1 {
                // The header: listing read it; here it only has to be there.
                continue;
            }
            let terminated = !(torn && at + 1 == count);
            let (seq, event) = match outcome {
                Ok(parsed) => parsed,
                Err(LineFault::NotJson) if !terminated => break,
                Err(LineFault::NotJson) => {
                    return Err(ReadError::at(path, number, "line is not valid JSON"))
                }
                Err(LineFault::Shape(why)) => return Err(ReadError::at(path, number, &why)),
            };
            if seq <= last_seq {
                return Err(ReadError::at(
                    path,
                    number,
                    &format!("seq {seq} does not increase (previous {last_seq})"),
                ));
            }
            last_seq = seq;
            match event {
                Event::Surface(kind) => sink.push(SurfaceEvent { seq, kind }),
                Event::SurfaceWithTools(kind, tools) => {
                    sink.push(SurfaceEvent { seq, kind });
                    for tool in tools {
                        sink.tool(seq, tool);
                    }
                }
                Event::Compact(through) => sink.shadow_through(through),
                Event::Chunk | Event::Title(_) | Event::Unknown => {}
            }
        }
        Ok(())
    };
    let done = if wants_tools {
        lines::fold_lines_at(
            &file,
            start.byte,
            span,
            pieces,
            read_piece_with_tools,
            visit,
            io,
        )?
    } else {
        lines::fold_lines_at(&file, start.byte, span, pieces, read_piece, visit, io)?
    };
    if read == 0 {
        return Err(ReadError::at(path, 1, "missing session header"));
    }
    Ok((
        sink,
        End {
            byte: start.byte + done.bytes,
            read,
            last_seq,
            clean: !done.torn,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::event::*;
    use super::*;
    use crate::model::{EventKind, MessageSource};
    use proptest::prelude::*;
    use session_ref_jsonl::envelope;
    use std::io::Write;

    fn root() -> Arc<Path> {
        Arc::from(Path::new("/store"))
    }

    fn write_log(lines: &str) -> (tempfile::NamedTempFile, SessionRecord) {
        let mut file = tempfile::Builder::new()
            .suffix(".jsonl")
            .tempfile()
            .unwrap();
        file.write_all(lines.as_bytes()).unwrap();
        let record = read_record(&root(), file.path().to_owned())
            .unwrap()
            .unwrap();
        (file, record)
    }

    const HEADER: &str =
        r#"{"type":"session","version":1,"id":"s1","createdAt":"2025-01-01T00:00:00Z","cwd":"/w"}"#;

    fn user(seq: u64, text: &str) -> String {
        format!(
            r#"{{"seq":{seq},"type":"user/message","data":{{"id":"m{seq}","source":{{"kind":"user"}},"content":[{{"type":"text","text":"{text}"}}]}}}}"#
        )
    }

    #[test]
    fn header_rules() {
        let ok = parse_header(&root(), "a.jsonl".into(), HEADER.as_bytes()).unwrap();
        assert_eq!((ok.id.as_str(), ok.cwd.as_deref()), ("s1", Some("/w")));
        for bad in [
            r#"{"type":"session","version":2,"id":"s","createdAt":"x"}"#,
            r#"{"type":"event","version":1,"id":"s","createdAt":"x"}"#,
            r#"{"type":"session","version":1,"id":5,"createdAt":"x"}"#,
            r#"{"type":"session","version":1,"id":"s","createdAt":"x","cwd":null}"#,
            r#"["session"]"#,
            "not json",
        ] {
            assert!(
                parse_header(&root(), "a.jsonl".into(), bad.as_bytes()).is_err(),
                "{bad}"
            );
        }
        let no_cwd = parse_header(
            &root(),
            "a".into(),
            br#"{"type":"session","version":1,"id":"","createdAt":"soon"}"#,
        )
        .unwrap();
        assert_eq!(
            (no_cwd.id.as_str(), no_cwd.cwd, no_cwd.created),
            ("", None, None)
        );
    }

    #[test]
    fn folds_compaction_chunks_and_titles() {
        let log = [
            HEADER.to_owned(),
            user(1, "old"),
            r#"{"seq":2,"type":"assistant/chunk","data":{"messageId":"a","delta":"par"}}"#.into(),
            r#"{"seq":3,"type":"session/title","data":{"title":"First"}}"#.into(),
            r#"{"seq":4,"type":"session/compact","data":{"throughSeq":2}}"#.into(),
            r#"{"seq":5,"type":"user/message","data":{"id":"c","source":{"kind":"compaction","marker":"@hydraharness/harness-compaction"},"content":[{"type":"text","text":"sum"}]}}"#.into(),
            r#"{"seq":6,"type":"assistant/message","data":{"message":{"id":"a","content":[{"type":"reasoning","text":"hm"},{"type":"text","text":"ok"}]}}}"#.into(),
            r#"{"seq":7,"type":"tool/result","data":{"toolCallId":"t","content":[]}}"#.into(),
            r#"{"seq":8,"type":"future/thing","data":7}"#.into(),
            r#"{"seq":9,"type":"session/title","data":{"title":""}}"#.into(),
        ]
        .join("\n")
            + "\n{\"seq\":10,\"type\":\"user";
        let (file, record) = write_log(&log);
        let surface = read_surface(&record).unwrap();
        assert_eq!(surface.captured_through_seq, 9);
        let seqs: Vec<u64> = surface.events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, [5, 6, 7]);
        assert!(matches!(
            &surface.events[0].kind,
            EventKind::UserMessage {
                source: MessageSource::Checkpoint,
                ..
            }
        ));
        assert_eq!(read_title(file.path()).unwrap().as_deref(), Some(""));
    }

    #[test]
    fn bad_lines_make_the_session_unreadable() {
        for (body, line) in [
            (format!("{}\nnot json\n{}\n", user(1, "a"), user(2, "b")), 3),
            (format!("{}\n{}\n", user(2, "a"), user(2, "b")), 3),
            (
                format!(
                    "{}\n{{\"seq\":3,\"type\":\"session/title\",\"data\":{{\"title\":1}}}}\n",
                    user(2, "a")
                ),
                3,
            ),
            (format!("{}\nnot json\n", user(1, "a")), 3),
            ("{\"type\":\"user/message\",\"data\":{}}\n".to_owned(), 2),
        ] {
            let (_file, record) = write_log(&format!("{HEADER}\n{body}"));
            let err = read_surface(&record).unwrap_err();
            assert_eq!(err.line, Some(line), "{body}");
        }
    }

    #[test]
    fn a_line_that_is_not_utf8_does_not_parse() {
        let bad = r#"{"seq":2,"type":"session/title","data":{"title":"caf"#.as_bytes();
        let bad = [bad, b"\xe9\"}}"].concat();
        let body = format!("{HEADER}\n{}\n", user(1, "a")).into_bytes();
        // As the torn last line of a log being written: ignored.
        let (file, record) = write_log(&format!("{HEADER}\n"));
        std::fs::write(file.path(), [&body[..], &bad].concat()).unwrap();
        let surface = read_surface(&record).unwrap();
        assert_eq!(surface.captured_through_seq, 1);
        assert_eq!(read_title(file.path()).unwrap(), None);
        // Anywhere else: the session is unreadable at that line.
        std::fs::write(file.path(), [&body[..], &bad, b"\n"].concat()).unwrap();
        let err = read_surface(&record).unwrap_err();
        assert_eq!(err.line, Some(3));
        assert_eq!(err.message, "line is not valid JSON");
    }

    #[test]
    fn repeated_keys_keep_the_last_value_as_json_parse_does() {
        let log = format!(
            "{HEADER}\n{}\n{}\n{}\n",
            r#"{"seq":1,"seq":2,"type":"user/message","data":{"id":"m","source":{"kind":"user"},"content":[{"type":"text","text":"a"}]}}"#,
            r#"{"seq":3,"type":"session/title","data":{"title":"first","title":"second"}}"#,
            r#"{"seq":4,"type":"user/message","data":{"id":"m","source":{"kind":"plugin","kind":"user"},"content":[],"content":[{"type":"text","text":"b"}]}}"#,
        );
        let (file, record) = write_log(&log);
        let surface = read_surface(&record).unwrap();
        assert_eq!(surface.captured_through_seq, 4);
        let seqs: Vec<u64> = surface.events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, [2, 4]);
        assert!(matches!(
            &surface.events[1].kind,
            EventKind::UserMessage { source: MessageSource::User, content }
                if content == &[crate::model::Block::Text("b".into())]
        ));
        assert_eq!(read_title(file.path()).unwrap().as_deref(), Some("second"));
    }

    #[test]
    fn title_scan_passes_over_bad_lines() {
        let log = format!(
            "{HEADER}\n{}\n{{\"seq\":2,\"type\":\"session/title\",\"data\":{{\"title\":\"T\"}}}}\nbroken\n{{\"seq\":4,\"type\":\"session/title\",\"data\":{{\"title\":5}}}}\n",
            user(1, "a")
        );
        let (file, _) = write_log(&log);
        assert_eq!(read_title(file.path()).unwrap().as_deref(), Some("T"));
        let escaped = format!("{HEADER}\n{{\"seq\":1,\"type\":\"session\\/\\u0074itle\",\"data\":{{\"title\":\"E\"}}}}\n");
        let (file, _) = write_log(&escaped);
        assert_eq!(read_title(file.path()).unwrap().as_deref(), Some("E"));
        // No literal "title" anywhere: the escapes alone must not hide it.
        let spelled = format!(
            "{HEADER}\n{}\n{}\n{}\n",
            r#"{"seq":1,"type":"session\/\u0074itl\u0065","data":{"\u0074itle":"U"}}"#,
            r#"{"seq":2,"type":"user/message","data":{"id":"m","source":{"kind":"user"},"content":[{"type":"text","text":"the title is \"X\""}]}}"#,
            r#"{"seq":3,"type":"assistant/message","data":{"message":{"id":"a","content":[{"type":"text","text":"line\nbreak"}]}}}"#,
        );
        let (file, _) = write_log(&spelled);
        assert_eq!(read_title(file.path()).unwrap().as_deref(), Some("U"));
    }
    /// The fold as it was before batches and the fast path: line by line,
    /// every line through [`parse_event`].
    fn fold_line_by_line(record: &SessionRecord) -> Result<(Surface, u64), ReadError> {
        let path = &record.path;
        let mut reader = lines::LineReader::open(path).unwrap();
        if reader.next_line().unwrap().is_none() {
            return Err(ReadError::at(path, 1, "missing session header"));
        }
        let mut sink = Surface::default();
        let mut last_seq = 0u64;
        while let Some(line) = reader.next_line().unwrap() {
            let (seq, event) = match parse_event(line.bytes) {
                Ok(parsed) => parsed,
                Err(LineFault::NotJson) if !line.terminated => break,
                Err(LineFault::NotJson) => {
                    return Err(ReadError::at(path, line.number, "line is not valid JSON"))
                }
                Err(LineFault::Shape(why)) => return Err(ReadError::at(path, line.number, &why)),
            };
            if seq <= last_seq {
                return Err(ReadError::at(
                    path,
                    line.number,
                    &format!("seq {seq} does not increase (previous {last_seq})"),
                ));
            }
            last_seq = seq;
            match event {
                Event::Surface(kind) => sink.push(SurfaceEvent { seq, kind }),
                Event::SurfaceWithTools(kind, tools) => {
                    sink.push(SurfaceEvent { seq, kind });
                    for tool in tools {
                        sink.tool(seq, tool);
                    }
                }
                Event::Compact(through) => sink.shadow_through(through),
                Event::Chunk | Event::Title(_) | Event::Unknown => {}
            }
        }
        Ok((sink, last_seq))
    }

    /// Event lines of every kind, well-formed and hostile: repeated keys,
    /// escapes where the scanner reads plain strings, `type` nested,
    /// invalid JSON, bytes that are not UTF-8, control characters.
    fn arb_event_line() -> impl Strategy<Value = Vec<u8>> {
        let kind = prop_oneof![
            Just("tool/result"),
            Just("assistant/chunk"),
            Just("user/message"),
            Just("assistant/message"),
            Just("session/title"),
            Just("session/compact"),
            Just("future/thing"),
            Just("tool\\/result"),
            Just("\\u0074ool/result"),
        ];
        let text = prop_oneof![
            Just("plain".to_owned()),
            Just("a\\nb \\\"q\\\" \\\\ é😀".to_owned()),
            Just("lone \\ud800 surrogate".to_owned()),
            Just("\\u00e9\\/".to_owned()),
            "[a-z ]{0,20}",
        ];
        let data = prop_oneof![
            text.clone().prop_map(|t| format!(r#"{{"toolCallId":"c","content":[{{"type":"text","text":"{t}"}}]}}"#)),
            text.clone().prop_map(|t| format!(r#"{{"messageId":"a","delta":"{t}"}}"#)),
            text.clone().prop_map(|t| format!(r#"{{"id":"u","source":{{"kind":"user"}},"content":[{{"type":"text","text":"{t}"}},{{"type":"image"}}]}}"#)),
            text.clone().prop_map(|t| format!(r#"{{"id":"u","source":{{"kind":"compaction","marker":"{COMPACTION_MARKER}"}},"content":[{{"type":"text","text":"{t}"}}]}}"#)),
            text.clone().prop_map(|t| format!(r#"{{"id":"u","source":{{"kind":"plugin","kind":"user"}},"content":[],"content":[{{"type":"text","text":"{t}"}}]}}"#)),
            text.clone().prop_map(|t| format!(r#"{{"message":{{"id":"a","content":[{{"type":"reasoning","text":"{t}"}},{{"type":"text","text":"{t}"}},{{"type":"tool-call","input":{{"type":"x"}}}}]}}}}"#)),
            text.clone().prop_map(|t| format!(r#"{{"title":"{t}"}}"#)),
            Just(r#"{"title":1}"#.to_owned()),
            Just(r#"{"throughSeq":2}"#.to_owned()),
            Just(r#"{"throughSeq":2.0,"throughSeq":"x"}"#.to_owned()),
            Just("null".to_owned()),
            Just("[]".to_owned()),
            Just("7".to_owned()),
            Just(r#"{"type":"user/message","seq":1}"#.to_owned()),
        ];
        let seq = prop_oneof![
            (1u64..50).prop_map(|n| n.to_string()),
            Just("0".to_owned()),
            Just("2.0".to_owned()),
            Just("\"3\"".to_owned()),
            Just("1e400".to_owned()),
            Just("9007199254740993".to_owned()),
        ];
        let order = prop::sample::select(vec![
            "{\"seq\":S,\"type\":\"T\",\"data\":D}",
            "{\"data\":D,\"type\":\"T\",\"seq\":S}",
            "{\"seq\":S,\"type\":\"other\",\"type\":\"T\",\"data\":D}",
            "{\"seq\":S,\"type\":\"T\",\"data\":D,\"data\":D}",
            " {\"seq\": S , \"type\":\"T\" ,\"data\":D, \"x\":[{\"type\":\"T\"}]} ",
            "{\"seq\":S,\"type\":\"T\",\"data\":D,}",
            "{\"seq\":S,\"type\":\"T\",\"data\":D",
            "{\"seq\":S,\"type\":\"T\",\"data\":D}\t",
        ]);
        let noise = prop_oneof![
            6 => Just(Vec::new()),
            1 => Just(b"\xff".to_vec()),
            1 => Just(b"\x01".to_vec()),
            1 => Just(b"\\".to_vec()),
            1 => Just(b"\"".to_vec()),
        ];
        (order, seq, kind, data, noise, any::<prop::sample::Index>()).prop_map(
            |(order, seq, kind, data, noise, at)| {
                let line = order
                    .replace('S', &seq)
                    .replace('T', kind)
                    .replace('D', &data);
                let mut line = line.into_bytes();
                let at = at.index(line.len() + 1);
                line.splice(at..at, noise);
                line
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn the_fast_path_reads_every_line_as_the_general_parse(line in arb_event_line()) {
            prop_assert_eq!(read_event(&line), parse_event(&line), "{}", String::from_utf8_lossy(&line));
        }

        #[test]
        fn pieces_read_every_line_as_the_general_parse(
            lines in prop::collection::vec(arb_event_line(), 0..12),
            end in prop::sample::select(vec!["\n", ""]),
        ) {
            let mut piece = lines.join(&b'\n').to_vec();
            if !lines.is_empty() {
                piece.extend_from_slice(end.as_bytes());
            }
            let expected: Vec<_> = lines.iter().map(|line| parse_event(line)).collect();
            prop_assert_eq!(read_piece(&piece), expected, "{}", String::from_utf8_lossy(&piece));
        }

        #[test]
        fn folds_in_pieces_equal_the_line_by_line_fold(
            lines in prop::collection::vec(arb_event_line(), 0..12),
            ends in prop::sample::select(vec!["\n", ""]),
            piece in 1usize..400,
            round in 1usize..5,
        ) {
            let mut log = format!("{HEADER}\n").into_bytes();
            for (i, line) in lines.iter().enumerate() {
                if i > 0 {
                    log.push(b'\n');
                }
                log.extend_from_slice(line);
            }
            if !lines.is_empty() {
                log.extend_from_slice(ends.as_bytes());
            }
            let (file, record) = write_log(HEADER);
            std::fs::write(file.path(), &log).unwrap();
            let expected = fold_line_by_line(&record);
            for pieces in [Pieces { piece, round, max_line: usize::MAX }, Pieces::LOG] {
                let got = fold_in_pieces(&record, Surface::default(), pieces);
                prop_assert_eq!(&got, &expected, "{}", String::from_utf8_lossy(&log));
            }
        }
    }

    #[test]
    fn a_torn_last_line_ending_in_a_backslash_is_ignored() {
        // Cut while a string was written, right after a backslash: the
        // scanner must not read past the log's last byte.
        let body = format!("{HEADER}\n{}\n", user(1, "a"));
        let (file, record) = write_log(&body);
        for torn in [r#"{"seq":2,"type":"tool/result","data":{"x":"\"#, r#"{"\"#] {
            std::fs::write(file.path(), format!("{body}{torn}")).unwrap();
            let surface = read_surface(&record).unwrap();
            assert_eq!(surface.captured_through_seq, 1, "{torn}");
        }
    }

    #[test]
    fn ordinary_lines_take_the_fast_path() {
        for line in [
            r#"{"seq":5,"type":"tool/result","data":{"toolCallId":"c1","content":[{"type":"text","text":" 819 a\n 1655 \"b\" é 東京 😀"}]}}"#,
            r#"{"seq":2,"type":"assistant/chunk","data":{"messageId":"a1","delta":"back\\s"}}"#,
            &user(1, "hello"),
            r#"{"seq":4,"type":"assistant/message","data":{"message":{"id":"a1","content":[{"type":"reasoning","text":"r"},{"type":"text","text":"t"}]}}}"#,
        ] {
            let envelope = envelope::scan(line.as_bytes()).unwrap();
            assert!(
                event_of(envelope.seq, envelope.kind, envelope.data).is_ok(),
                "{line}"
            );
            assert_eq!(read_event(line.as_bytes()), parse_event(line.as_bytes()));
        }
    }

    #[test]
    fn an_empty_log_has_no_header_and_a_header_alone_folds_to_nothing() {
        let (file, record) = write_log(HEADER);
        std::fs::write(file.path(), b"").unwrap();
        let err = read_surface(&record).unwrap_err();
        assert_eq!(
            (err.line, err.message.as_str()),
            (Some(1), "missing session header")
        );
        std::fs::write(file.path(), HEADER).unwrap();
        assert_eq!(read_surface(&record).unwrap(), Surface::default());
    }
}
