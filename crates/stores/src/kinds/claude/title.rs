//! The title of a Claude Code session.
//!
//! Titles follow the precedence of `FORMATS.md`: the latest `custom-title`,
//! the latest `ai-title`, a `summary` whose `leafUuid` is one of the
//! session's uuids (summaries collected across the project folder), the
//! first genuine prompt, the slash command name. They are found with:
//!
//! 1. one backward scan of the session file (`tail::TailFacts`) that stops at
//!    the last `custom-title` (the top rule, so nothing older matters) and
//!    otherwise also collects the latest `ai-title` and the file's own
//!    summaries; cached per file version;
//! 2. the folder's summaries (`leafUuid` → summary), gathered from its
//!    files newest first (reusing step 1 per file) and only from files
//!    modified since the session began: a summary naming one of the
//!    session's uuids was written after the session started, so older
//!    files cannot hold one, and titling the newest sessions of a large
//!    folder reads only the newest files. The folder's file list is cached
//!    and revalidated by the folder's modification time (files created or
//!    removed); summary lines appended to an existing sibling while a
//!    long-lived picker runs are thus picked up at the next folder change,
//!    while a one-shot command always sees the current state;
//! 3. only when those summaries are not empty and step 1 gave no title:
//!    a backward scan of the session for the last line carrying a uuid
//!    they name (a byte search for `"uuid":"`, no JSON parse), cached per
//!    file version and folder listing. When several summaries name one
//!    leaf, the most recently modified file's last one wins;
//! 4. a forward head read for the first genuine prompt, or the first slash
//!    command name when there is none; cached per file version.
//!
//! Every file is thus read at most a bounded number of times per version,
//! whatever the number of sessions in its folder: listing a folder is
//! linear, not quadratic, and the first screen of a listing reads little
//! more than the sessions it shows.

use std::collections::HashMap;
use std::path::Path;

use memchr::memmem;

use super::folder::{folder_summaries, FolderCaches};
use super::line::{Line, Prompt};
use super::tail::tail_facts;
use crate::caches::Caches;
use crate::error::ReadError;
use crate::kinds::foreign::{read_lines, title_from_text, FileCache, Visit};
use crate::model::SessionRecord;
use session_ref_jsonl::lines;

/// The title of a prompt made only of images (Claude Code's own list shows
/// the same).
const IMAGE_TITLE: &str = "[Image]";

/// What titling remembers between calls, owned by the catalog's [`Caches`].
#[derive(Default)]
pub(super) struct ClaudeCaches {
    /// Transcripts' backward scans and project folders' summaries.
    pub(super) folder: FolderCaches,
    /// Titles from the folder's summaries, per folder generation.
    summary_titles: FileCache<Option<String>>,
    /// Titles from the first prompt.
    head_titles: FileCache<Option<String>>,
}

/// The session's title, by the precedence of the module docs.
pub fn read_title(caches: &Caches, record: &SessionRecord) -> Result<Option<String>, ReadError> {
    let caches = caches.get::<ClaudeCaches>();
    let path = &record.path;
    let tail = caches.folder.tails.get(path, 0, || tail_facts(path))?;
    if let Some(title) = tail.custom_title.as_ref().or(tail.ai_title.as_ref()) {
        return Ok(Some(title.clone()));
    }
    if let Some(folder) = path.parent() {
        let (generation, by_leaf) = folder_summaries(&caches.folder, folder, record.created);
        if !by_leaf.is_empty() {
            let found = caches
                .summary_titles
                .get(path, generation, || summary_title(path, &by_leaf))?;
            if let Some(title) = found.as_ref() {
                return Ok(Some(title.clone()));
            }
        }
    }
    let head = caches.head_titles.get(path, 0, || head_title(path))?;
    Ok((*head).clone())
}

/// The summary of the last line of the session whose `uuid` is a summary's
/// `leafUuid`. Uuids are found by bytes: `"uuid":"` can only be a key
/// (inside a JSON string its quotes would be escaped), and uuid values need
/// no escapes.
fn summary_title(
    path: &Path,
    by_leaf: &HashMap<String, String>,
) -> Result<Option<String>, ReadError> {
    const KEY: &[u8] = b"\"uuid\":\"";
    let finder = memmem::Finder::new(KEY);
    lines::scan_backward(path, |bytes| {
        finder.find_iter(bytes).find_map(|at| {
            let value = &bytes[at + KEY.len()..];
            let end = memchr::memchr(b'"', value)?;
            let uuid = std::str::from_utf8(&value[..end]).ok()?;
            by_leaf.get(uuid).cloned()
        })
    })
    .map_err(|e| ReadError::io(path, &e))
}

/// The first prompt's first line (≤ 80 chars; `[Image]` for a prompt made
/// only of images), else the first slash command name, reading forward only
/// as far as needed.
pub(super) fn head_title(path: &Path) -> Result<Option<String>, ReadError> {
    let mut title = None;
    let mut command = None;
    read_lines(path, true, |_, bytes| {
        let Some(line) = Line::parse(bytes) else {
            return Visit::BAD;
        };
        if !line.is_plain_user() {
            return Visit::NEXT;
        }
        match Prompt::of(line.message().content) {
            Prompt::Typed(texts) => title = title_from_text(&texts.join("\n")),
            Prompt::ImagesOnly => title = Some(IMAGE_TITLE.to_owned()),
            Prompt::Command(name) => {
                command.get_or_insert(name);
            }
            Prompt::Nothing => {}
        }
        if title.is_some() {
            Visit::DONE
        } else {
            Visit::NEXT
        }
    })?;
    Ok(title.or(command))
}

#[cfg(test)]
mod tests {
    use super::super::line::command_name;
    use super::super::testing::{assistant, read_title, record_of, user, write};

    #[test]
    fn title_precedence() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("-home-dev-shop");
        let base = [
            user("u1", r#""  \nfirst prompt line\nsecond""#),
            assistant("a1", "m", r#"[{"type":"text","text":"ok"}]"#),
        ];
        let title = |name: &str, extra: &[String]| {
            let mut lines = base.to_vec();
            lines.extend_from_slice(extra);
            let path = write(&folder, name, &lines);
            read_title(&record_of(dir.path(), &path)).unwrap()
        };
        let custom =
            |t: &str| format!(r#"{{"type":"custom-title","customTitle":"{t}","sessionId":"s1"}}"#);
        let ai = |t: &str| format!(r#"{{"type":"ai-title","aiTitle":"{t}","sessionId":"s1"}}"#);
        assert_eq!(
            title("plain.jsonl", &[]).as_deref(),
            Some("first prompt line")
        );
        assert_eq!(
            title("ai.jsonl", &[ai("AI one"), ai("AI two")]).as_deref(),
            Some("AI two")
        );
        assert_eq!(
            title(
                "custom.jsonl",
                &[
                    custom("Mine"),
                    ai("AI later"),
                    custom("Renamed"),
                    ai("AI last")
                ]
            )
            .as_deref(),
            Some("Renamed")
        );
        assert_eq!(
            title("blank.jsonl", &[custom("Kept"), custom("  ")]).as_deref(),
            Some("Kept")
        );
    }

    #[test]
    fn summaries_title_sessions_across_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("-home-dev-shop");
        let a = write(
            &folder,
            "a.jsonl",
            &[
                user("ua1", r#""question a""#),
                assistant("aa1", "m1", r#"[{"type":"text","text":"answer a"}]"#),
                user("ua2", r#""more a""#),
            ],
        );
        let b = write(
            &folder,
            "b.jsonl",
            &[
                r#"{"type":"summary","summary":"Old summary of A","leafUuid":"aa1"}"#.into(),
                r#"{"type":"summary","summary":"Summary of A","leafUuid":"ua2"}"#.into(),
                r#"{"type":"summary","summary":"Nobody's","leafUuid":"zz"}"#.into(),
                user("ub1", r#""question b""#),
            ],
        );
        let c = write(
            &folder,
            "c.jsonl",
            &[
                user("uc1", r#""question c""#),
                r#"{"type":"ai-title","aiTitle":"AI C"}"#.into(),
            ],
        );
        let root = dir.path();
        assert_eq!(
            read_title(&record_of(root, &a)).unwrap().as_deref(),
            Some("Summary of A")
        );
        assert_eq!(
            read_title(&record_of(root, &b)).unwrap().as_deref(),
            Some("question b")
        );
        assert_eq!(
            read_title(&record_of(root, &c)).unwrap().as_deref(),
            Some("AI C")
        );
        // A new file in the folder is seen (the folder changed).
        write(
            &folder,
            "d.jsonl",
            &[r#"{"type":"summary","summary":"Newest","leafUuid":"ua1"}"#.into()],
        );
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
        std::fs::File::open(&folder)
            .unwrap()
            .set_modified(later)
            .unwrap();
        // The last line with a known uuid wins: ua2 is after ua1.
        assert_eq!(
            read_title(&record_of(root, &a)).unwrap().as_deref(),
            Some("Summary of A")
        );
        let e = write(
            &folder,
            "e.jsonl",
            &[
                r#"{"type":"summary","summary":"For E","leafUuid":"ue1"}"#.into(),
                user("ue1", r#""question e""#),
            ],
        );
        std::fs::File::open(&folder)
            .unwrap()
            .set_modified(later + std::time::Duration::from_secs(5))
            .unwrap();
        assert_eq!(
            read_title(&record_of(root, &e)).unwrap().as_deref(),
            Some("For E")
        );
    }

    #[test]
    fn slash_command_is_the_last_resort() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "p/s.jsonl",
            &[
                user("u0", r#""<command-message>init is analyzing your codebase…</command-message>\n<command-name>/init</command-name>""#),
                r#"{"type":"user","isMeta":true,"message":{"content":[{"type":"text","text":"Please analyze this codebase"}]},"uuid":"m"}"#.into(),
                user("u1", r#"[{"type":"tool_result","tool_use_id":"t","content":"x"}]"#),
            ],
        );
        assert_eq!(
            read_title(&record_of(dir.path(), &path))
                .unwrap()
                .as_deref(),
            Some("/init")
        );
        assert_eq!(
            command_name("<command-name> /x </command-name>").as_deref(),
            Some("/x")
        );
        assert_eq!(command_name("<command-name></command-name>"), None);
    }
}
