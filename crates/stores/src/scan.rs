//! What discovery reports of each file ([`ScanEvent`]) and the walk every
//! kind's listing shares ([`walk_files`], [`has_suffix`]). The kinds list
//! their files with these; discovering the sessions of whole roots and
//! remote hosts ([`crate::scan`]) sits above, in `catalog`.

use std::path::{Path, PathBuf};

use crate::model::SessionRecord;

/// What discovery reports, one file at a time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScanEvent {
    /// A listed session.
    Record(SessionRecord),
    /// A file that is not a session (wrong header, sub-agent log, …).
    Skipped {
        /// The file.
        path: PathBuf,
        /// Why it is not listed.
        reason: String,
    },
    /// A file that looks like a session but cannot be listed (I/O error,
    /// unsupported compression). Counted and shown, never silently dropped.
    Unreadable {
        /// The file.
        path: PathBuf,
        /// What failed.
        reason: String,
    },
}

/// Why a symbolic link with a session's name inside a store is not listed.
pub const SYMLINK: &str = "a symbolic link: a store's sessions are read in the store, \
     never through a link (which may point anywhere)";

/// Files below `root` (recursively, symbolic links not followed) whose name
/// satisfies `keep`, in byte order of their paths; `root` itself when it is
/// a file (named by the user, so kept whatever its name). Unreadable
/// directories are reported through `on_error`, and so are symbolic links
/// that `keep` would take, as skipped ([`SYMLINK`]).
///
/// `walkdir` does the walk (it handles deep trees and reports each failing
/// directory with its path); the files are then sorted by path bytes, the
/// order ties are broken in (SPEC §3).
pub fn walk_files(
    root: &Path,
    keep: &dyn Fn(&Path) -> bool,
    on_error: &mut dyn FnMut(ScanEvent),
) -> Vec<PathBuf> {
    // A root may name one session file (`--claude FILE.jsonl`).
    if std::fs::symlink_metadata(root).is_ok_and(|m| m.is_file()) {
        return vec![root.to_path_buf()];
    }
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(root).follow_links(false) {
        match entry {
            Ok(entry) => {
                if entry.file_type().is_file() && keep(entry.path()) {
                    files.push(entry.into_path());
                } else if entry.file_type().is_symlink() && keep(entry.path()) {
                    // Said, not dropped silently: `--verbose` names it.
                    on_error(ScanEvent::Skipped {
                        path: entry.into_path(),
                        reason: SYMLINK.to_owned(),
                    });
                }
            }
            Err(e) => {
                let path = e.path().unwrap_or(root).to_path_buf();
                let reason = match e.io_error() {
                    Some(io) => io.to_string(),
                    None => e.to_string(),
                };
                on_error(ScanEvent::Unreadable { path, reason });
            }
        }
    }
    files.sort_by(|a, b| {
        a.as_os_str()
            .as_encoded_bytes()
            .cmp(b.as_os_str().as_encoded_bytes())
    });
    files
}

/// Whether a path's file name ends in `suffix`. Compared as bytes: a file
/// name need not be UTF-8 (paths are bytes on Unix), and such a session is
/// listed like any other.
pub fn has_suffix(path: &Path, suffix: &str) -> bool {
    path.file_name()
        .is_some_and(|n| n.as_encoded_bytes().ends_with(suffix.as_bytes()))
}
