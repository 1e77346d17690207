//! The agents' settings files, read and edited the one careful way that
//! `hook install|uninstall` and `mcp install|uninstall` share (and that
//! `setup --undo` builds on).
//!
//! - **Locked**: [`lock`] takes an advisory lock (`flock`) on a lock file
//!   beside each file before it is read, so two installs run together both
//!   land: each reads what the other wrote.
//! - **Through links**: a symlinked file is edited at its target (the link
//!   stays); the lock, backup and temporary file live in the target's
//!   directory.
//! - **Regular files only**: anything else (a FIFO, `/dev/null`, a device, a
//!   directory) is refused after a `stat`, before it is opened; the open is
//!   non-blocking and a file over [`MAX_BYTES`] is refused, so nothing hangs
//!   or fills memory.
//! - **Read-only stays read-only**: a file without write permission is
//!   reported and left untouched.
//! - **Backups as private as the original**: `NAME.session-ref-backup-SECS.NANOS`,
//!   created exclusively (a counter is added on a clash) with at most the
//!   original's mode before any byte is written, then given its mode and owner.
//! - **Atomic**: the new text goes to a temporary file in the same directory
//!   (0600 until done, then the original's mode and owner) renamed over it.
//! - **Surgical TOML edits**: [`parse_toml`] opens a text as `toml_edit`
//!   does, which keeps comments and layout around what is changed.
//! - **Surgical JSON edits**: [`JsonDoc`] changes one property or array
//!   element in the text and keeps every other byte, comments (JSONC, which
//!   Gemini CLI, Qwen Code and opencode accept) and layout included; what an
//!   install inserts, an uninstall removes to the byte.
//! - **Checked YAML edits**: [`yaml`] adds or removes one entry of a
//!   top-level block as text, kept only when the new text parses to the old
//!   value with that one change (Goose, Continue CLI).

pub mod yaml;

use std::fs::{File, Metadata, OpenOptions};
use std::io::{Read, Write as _};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use jsonc_parser::common::Ranged;
use serde_json::Value;

use crate::error::{Error, Result};

/// The largest settings file read (16 MiB): settings are small, and a link
/// to an endless file must not fill memory.
pub const MAX_BYTES: u64 = 16 << 20;

/// The most symlinks followed from one path (as the kernel's `ELOOP`).
const MAX_LINKS: usize = 40;

fn io_error(what: &str, path: &Path, e: std::io::Error) -> Error {
    Error::invalid_config(format!("cannot {what} {}: {e}", path.display()))
}

/// The file a path names once its symlinks are followed: the link's target
/// (which may not exist yet), or the path itself.
pub fn resolve(path: &Path) -> Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = std::fs::read_link(&current)
                    .map_err(|e| io_error("read the link", &current, e))?;
                current = match current.parent() {
                    Some(dir) => dir.join(target),
                    None => target,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(Error::invalid_config(format!(
        "{} is a loop of symlinks; it was left untouched",
        path.display()
    )))
}

/// What kind of file `meta` describes, for an error.
fn kind_of(meta: &Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// The metadata of the resolved file `real` (`None` when absent), refusing
/// anything but a regular file. `shown` is the path the user knows.
fn regular(shown: &Path, real: &Path) -> Result<Option<Metadata>> {
    match std::fs::symlink_metadata(real) {
        Ok(meta) if meta.is_file() => Ok(Some(meta)),
        Ok(meta) => Err(not_regular(shown, real, kind_of(&meta))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_error("read", shown, e)),
    }
}

fn not_regular(shown: &Path, real: &Path, kind: &str) -> Error {
    let through = if shown == real {
        String::new()
    } else {
        format!(" (it links to {})", real.display())
    };
    Error::invalid_config(format!(
        "{}{through} is {kind}, not a regular settings file; it was left untouched",
        shown.display()
    ))
}

/// Read a settings file (through its links); absent is `None`. Anything but
/// a regular UTF-8 file of at most [`MAX_BYTES`] is refused.
pub fn read(path: &Path) -> Result<Option<String>> {
    let real = resolve(path)?;
    if regular(path, &real)?.is_none() {
        return Ok(None);
    }
    // Non-blocking and not following a link swapped in since the stat: a
    // FIFO put there now cannot hang the open.
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(&real)
    {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error("read", path, e)),
    };
    let meta = file.metadata().map_err(|e| io_error("read", path, e))?;
    if !meta.is_file() {
        return Err(not_regular(path, &real, kind_of(&meta)));
    }
    let too_big = || {
        Error::invalid_config(format!(
            "{} is over {} MiB, too big for a settings file; it was left untouched",
            path.display(),
            MAX_BYTES >> 20
        ))
    };
    if meta.len() > MAX_BYTES {
        return Err(too_big());
    }
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| io_error("read", path, e))?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(too_big());
    }
    String::from_utf8(bytes).map(Some).map_err(|_| {
        Error::invalid_config(format!(
            "{} is not a valid settings file (not UTF-8 text); it was left untouched",
            path.display()
        ))
    })
}

/// Advisory locks on the lock files beside some settings files, held until
/// dropped (then the lock files are removed).
#[derive(Debug)]
pub struct Locks {
    held: Vec<(PathBuf, File)>,
}

impl Drop for Locks {
    fn drop(&mut self) {
        // Removed while still locked: whoever opened it meanwhile sees on
        // locking that the path no longer names it, and opens anew.
        for (path, _file) in self.held.drain(..).rev() {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// The lock file of the resolved settings file `real`.
fn lock_path(real: &Path) -> PathBuf {
    let name = real.file_name().unwrap_or_default().to_string_lossy();
    real.with_file_name(format!("{name}.session-ref-lock"))
}

/// Lock `paths` (through their links) for one read-edit-write, in a fixed
/// order so that two installs locking overlapping sets cannot deadlock.
/// With `create`, missing directories are made (install); without, a file
/// whose directory is missing needs no lock (there is nothing to edit).
/// A path that is not a regular file is refused here, before any lock file
/// is made beside it.
pub fn lock(paths: &[&Path], create: bool) -> Result<Locks> {
    let mut reals = Vec::new();
    for path in paths {
        let real = resolve(path)?;
        regular(path, &real)?;
        reals.push(real);
    }
    reals.sort();
    reals.dedup();
    let mut locks = Locks { held: Vec::new() };
    for real in reals {
        let dir = real.parent().unwrap_or(Path::new("."));
        if !dir.is_dir() {
            if !create {
                continue;
            }
            std::fs::create_dir_all(dir).map_err(|e| io_error("create", dir, e))?;
        }
        let path = lock_path(&real);
        loop {
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o600)
                .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
                .open(&path)
                .map_err(|e| io_error("lock", &path, e))?;
            file.lock().map_err(|e| io_error("lock", &path, e))?;
            let held = file.metadata().map_err(|e| io_error("lock", &path, e))?;
            let same = std::fs::symlink_metadata(&path)
                .is_ok_and(|now| now.dev() == held.dev() && now.ino() == held.ino());
            if same {
                locks.held.push((path, file));
                break;
            }
        }
    }
    Ok(locks)
}

/// One file to replace, with its current text (`None` when absent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Write {
    /// The file (a link is written through).
    pub path: PathBuf,
    /// Its current text.
    pub before: Option<String>,
    /// Its new text.
    pub after: String,
}

/// Give `file` the mode and owner of `meta` (the owner only where allowed:
/// a user cannot give a file away, root can).
fn like(file: &File, meta: &Metadata) -> std::io::Result<()> {
    let _ = std::os::unix::fs::fchown(file, Some(meta.uid()), Some(meta.gid()));
    file.set_permissions(std::fs::Permissions::from_mode(meta.mode() & 0o7777))
}

/// A file name not used yet in `dir`: `stem`, then `stem-1`, `stem-2`, …,
/// created exclusively with `mode`.
fn create_unique(dir: &Path, stem: &str, mode: u32) -> Result<(PathBuf, File)> {
    for n in 0..1000u32 {
        let path = if n == 0 {
            dir.join(stem)
        } else {
            dir.join(format!("{stem}-{n}"))
        };
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .custom_flags(libc::O_CLOEXEC)
            .open(&path)
        {
            Ok(file) => return Ok((path, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io_error("create", &path, e)),
        }
    }
    Err(Error::invalid_config(format!(
        "cannot create {}: too many files of that name",
        dir.join(stem).display()
    )))
}

fn now_stamp() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    format!("{}.{:09}", now.as_secs(), now.subsec_nanos())
}

/// Copy `text`, the content of `real` (whose metadata is `meta`), to a new
/// backup beside it, as private as the original from its first byte.
pub fn backup(real: &Path, text: &str, meta: &Metadata) -> Result<PathBuf> {
    let dir = real.parent().unwrap_or(Path::new("."));
    let name = real.file_name().unwrap_or_default().to_string_lossy();
    let stem = format!("{name}.session-ref-backup-{}", now_stamp());
    let (path, mut file) = create_unique(dir, &stem, meta.mode() & 0o600)?;
    let written = file
        .write_all(text.as_bytes())
        .and_then(|()| like(&file, meta))
        .and_then(|()| file.sync_all());
    if let Err(e) = written {
        let _ = std::fs::remove_file(&path);
        return Err(io_error("write", &path, e));
    }
    Ok(path)
}

/// Replace `real` by `text` atomically: a temporary file in its directory,
/// private until it has the original's mode and owner, renamed over it.
fn replace(real: &Path, text: &str, meta: Option<&Metadata>) -> Result<()> {
    let dir = real.parent().unwrap_or(Path::new("."));
    let name = real.file_name().unwrap_or_default().to_string_lossy();
    let stem = format!(".{name}.session-ref-{}-{}", std::process::id(), now_stamp());
    let (temp, mut file) = create_unique(dir, &stem, 0o600)?;
    let written = file
        .write_all(text.as_bytes())
        .and_then(|()| meta.map_or(Ok(()), |meta| like(&file, meta)))
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::rename(&temp, real));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(io_error("write", real, e));
    }
    Ok(())
}

/// The resolved file `path` names and its metadata (`None` when absent),
/// refusing anything but a writable regular file: what [`apply`] checks
/// before it writes, and `setup` before it offers a change.
pub fn writable(path: &Path) -> Result<(PathBuf, Option<Metadata>)> {
    let real = resolve(path)?;
    let meta = regular(path, &real)?;
    if let Some(meta) = &meta {
        if meta.mode() & 0o222 == 0 {
            return Err(Error::invalid_config(format!(
                "{} is read-only; it was left untouched (make it writable to change it)",
                path.display()
            )));
        }
    }
    Ok((real, meta))
}

/// What an installer did or, not committed, would do.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Installed {
    /// The report for a person.
    pub report: String,
    /// The files written (or to write), with their texts before and after.
    pub writes: Vec<Write>,
    /// The backups made of the earlier texts, in order.
    pub backups: Vec<PathBuf>,
}

impl Installed {
    /// Apply `writes` when `commit` (under the caller's [`lock`]; see
    /// [`apply`]), adding a `backup:` line to `report` for each backup.
    pub fn finish(writes: Vec<Write>, mut report: String, commit: bool) -> Result<Installed> {
        let backups = if commit { apply(&writes)? } else { Vec::new() };
        for backup in &backups {
            report.push_str(&format!("backup: {}\n", backup.display()));
        }
        Ok(Installed {
            report,
            writes,
            backups,
        })
    }
}

/// Write every change (under the caller's [`lock`]): each file is checked
/// first (a regular file, writable), so a refusal writes none; then each
/// existing one is backed up and each replaced atomically, through its
/// links. Returns the backups made, in order.
pub fn apply(writes: &[Write]) -> Result<Vec<PathBuf>> {
    let mut checked = Vec::new();
    for write in writes {
        checked.push(writable(&write.path)?);
    }
    let mut backups = Vec::new();
    for (write, (real, meta)) in writes.iter().zip(checked) {
        let dir = real.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(|e| io_error("create", dir, e))?;
        if let (Some(before), Some(meta)) = (&write.before, &meta) {
            backups.push(backup(&real, before, meta)?);
        }
        replace(&real, &write.after, meta.as_ref())?;
    }
    Ok(backups)
}

/// Put `text` back into `path` (under the caller's [`lock`]), as `setup
/// --undo` does when the file still holds exactly what setup wrote: no
/// backup (what is replaced is session-ref's own recorded edit), atomic,
/// the file's mode and owner kept.
pub fn restore(path: &Path, text: &str) -> Result<()> {
    let (real, meta) = writable(path)?;
    replace(&real, text, meta.as_ref())
}

/// Remove `path` (under the caller's [`lock`]), a file `setup` created and
/// that still holds exactly what it wrote: no backup.
pub fn discard(path: &Path) -> Result<()> {
    let (real, _) = writable(path)?;
    match std::fs::remove_file(&real) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io_error("remove", path, e)),
        _ => Ok(()),
    }
}

/// Remove a settings file of our own (under the caller's [`lock`]), after a
/// backup of `text`, its content. Returns the backup.
pub fn remove(path: &Path, text: &str) -> Result<PathBuf> {
    let real = resolve(path)?;
    let Some(meta) = regular(path, &real)? else {
        return Err(Error::invalid_config(format!(
            "{} does not exist",
            path.display()
        )));
    };
    let saved = backup(&real, text, &meta)?;
    std::fs::remove_file(&real).map_err(|e| io_error("remove", path, e))?;
    Ok(saved)
}

// ---- JSON with comments, edited in place --------------------------------

fn parse_options() -> jsonc_parser::ParseOptions {
    // Comments and trailing commas (JSONC, as the agents that accept
    // comments read it); none of JSON5's other liberties.
    jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

/// The error for a settings file that cannot be used as it is.
pub fn malformed(path: &Path, why: impl std::fmt::Display) -> Error {
    Error::invalid_config(format!(
        "{} is not a valid settings file ({why}); it was left untouched",
        path.display()
    ))
}

/// The value of a JSON settings text, comments allowed (blank = `{}`).
pub fn parse_json(path: &Path, text: &str) -> Result<Value> {
    if text.trim().is_empty() {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    jsonc_parser::parse_to_serde_value::<Value>(text, &parse_options())
        .map_err(|e| malformed(path, e))
}

/// A JSON settings text (absent or blank = `{}`) as a document to edit,
/// with its top-level object, refusing anything but an object.
pub fn json_object(
    path: &Path,
    text: Option<&str>,
) -> Result<(JsonDoc, serde_json::Map<String, Value>)> {
    let doc = JsonDoc::new(path, text)?;
    match doc.value() {
        Value::Object(root) => Ok((doc, root)),
        _ => Err(malformed(path, "the top level is not an object")),
    }
}

/// A TOML settings text (absent = empty) as a document to edit in place:
/// comments and layout are kept by `toml_edit`.
pub fn parse_toml(path: &Path, text: Option<&str>) -> Result<toml_edit::DocumentMut> {
    text.unwrap_or("")
        .parse::<toml_edit::DocumentMut>()
        .map_err(|e| malformed(path, e.to_string().trim_end()))
}

/// One step of a path into a JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step<'a> {
    /// An object's property.
    Key(&'a str),
    /// An array's element.
    Index(usize),
}

/// A JSON settings text being edited in place.
#[derive(Debug, Clone)]
pub struct JsonDoc {
    text: String,
}

/// Where a node is: its range, and for objects and arrays its children's
/// ranges (for an object, each property's whole range).
struct Node {
    start: usize,
    end: usize,
    children: Vec<(usize, usize)>,
    is_object: bool,
    is_array: bool,
}

fn node_of(value: &jsonc_parser::ast::Value<'_>) -> Node {
    use jsonc_parser::ast::Value as V;
    let range = value.range();
    let (children, is_object, is_array) = match value {
        V::Object(o) => (
            o.properties
                .iter()
                .map(|p| (p.range.start, p.range.end))
                .collect(),
            true,
            false,
        ),
        V::Array(a) => (
            a.elements
                .iter()
                .map(|e| (e.range().start, e.range().end))
                .collect(),
            false,
            true,
        ),
        _ => (Vec::new(), false, false),
    };
    Node {
        start: range.start,
        end: range.end,
        children,
        is_object,
        is_array,
    }
}

impl JsonDoc {
    /// A document of `text` (blank = `{}`), refusing a text that is not a
    /// JSON object.
    pub fn new(path: &Path, text: Option<&str>) -> Result<JsonDoc> {
        let text = match text {
            Some(text) if !text.trim().is_empty() => text.to_owned(),
            _ => "{}\n".to_owned(),
        };
        if !parse_json(path, &text)?.is_object() {
            return Err(malformed(path, "the top level is not an object"));
        }
        Ok(JsonDoc { text })
    }

    /// The text as it stands.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The value as it stands.
    pub fn value(&self) -> Value {
        jsonc_parser::parse_to_serde_value::<Value>(&self.text, &parse_options())
            .unwrap_or(Value::Null)
    }

    /// The node at `path`, with the index of a property's value when the
    /// last step is a key (the property's own range is then a child of the
    /// parent).
    fn node(&self, path: &[Step<'_>]) -> Option<Node> {
        self.at(path, |value| Some(node_of(value)))
    }

    /// The position of property `key` among the object at `path`'s.
    fn key_index(&self, path: &[Step<'_>], key: &str) -> Option<usize> {
        self.at(path, |value| match value {
            jsonc_parser::ast::Value::Object(o) => {
                o.properties.iter().rposition(|p| p.name.as_str() == key)
            }
            _ => None,
        })
    }

    /// `read` of the value at `path` in the text parsed afresh (the last
    /// property of a repeated key, as JSON readers take it); `None` when
    /// the text does not parse or nothing is at `path`.
    fn at<R>(
        &self,
        path: &[Step<'_>],
        read: impl FnOnce(&jsonc_parser::ast::Value<'_>) -> Option<R>,
    ) -> Option<R> {
        let parsed = jsonc_parser::parse_to_ast(
            &self.text,
            &jsonc_parser::CollectOptions::default(),
            &parse_options(),
        )
        .ok()?;
        let mut value = parsed.value.as_ref()?;
        for step in path {
            value = match (step, value) {
                (Step::Key(key), jsonc_parser::ast::Value::Object(o)) => {
                    &o.properties
                        .iter()
                        .rev()
                        .find(|p| p.name.as_str() == *key)?
                        .value
                }
                (Step::Index(i), jsonc_parser::ast::Value::Array(a)) => a.elements.get(*i)?,
                _ => return None,
            };
        }
        read(value)
    }

    /// The indentation unit of the text: the whitespace before the first
    /// line that starts with some, else two spaces.
    fn unit(&self) -> String {
        for line in self.text.lines().skip(1) {
            let ws: String = line
                .chars()
                .take_while(|c| *c == ' ' || *c == '\t')
                .collect();
            if !ws.is_empty() && ws.len() < line.len() {
                return if ws.starts_with('\t') {
                    "\t".to_owned()
                } else {
                    ws
                };
            }
        }
        "  ".to_owned()
    }

    /// The leading whitespace of the line holding byte `at`.
    fn indent_at(&self, at: usize) -> String {
        let line_start = self.text[..at].rfind('\n').map_or(0, |i| i + 1);
        self.text[line_start..]
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect()
    }

    /// Whether byte `at` is the first non-blank one of its line.
    fn starts_line(&self, at: usize) -> bool {
        let line_start = self.text[..at].rfind('\n').map_or(0, |i| i + 1);
        self.text[line_start..at]
            .chars()
            .all(|c| c == ' ' || c == '\t')
    }

    /// `value` as JSON text: pretty (lines after the first indented by
    /// `indent`) or compact.
    fn render(&self, value: &Value, indent: &str, pretty: bool) -> String {
        if !pretty {
            return serde_json::to_string(value).expect("JSON serializes");
        }
        let unit = self.unit();
        let mut out = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
        let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
        serde::Serialize::serialize(value, &mut ser).expect("JSON serializes");
        let text = String::from_utf8(out).expect("JSON is UTF-8");
        text.replace('\n', &format!("\n{indent}"))
    }

    /// The first `,` in `[from, to)`, skipping comments.
    fn comma_in(&self, from: usize, to: usize) -> Option<usize> {
        let bytes = self.text.as_bytes();
        let mut i = from;
        while i < to {
            match bytes[i] {
                b',' => return Some(i),
                b'/' if bytes.get(i + 1) == Some(&b'/') => {
                    i = self.text[i..].find('\n').map_or(to, |n| i + n);
                }
                b'/' if bytes.get(i + 1) == Some(&b'*') => {
                    i = self.text[i + 2..].find("*/").map_or(to, |n| i + 2 + n + 2);
                }
                _ => i += 1,
            }
        }
        None
    }

    /// The end of the line from `from` when only blanks and comments follow
    /// on it (the `\n`'s position), else where something else starts.
    fn line_end_after(&self, from: usize, to: usize) -> usize {
        let bytes = self.text.as_bytes();
        let mut i = from;
        while i < to {
            match bytes[i] {
                b' ' | b'\t' | b'\r' => i += 1,
                b'/' if bytes.get(i + 1) == Some(&b'/') => {
                    return self.text[i..].find('\n').map_or(to, |n| i + n).min(to);
                }
                b'/' if bytes.get(i + 1) == Some(&b'*') => match self.text[i + 2..].find("*/") {
                    Some(n) if !self.text[i..i + 2 + n].contains('\n') => i = i + 2 + n + 2,
                    _ => return i,
                },
                _ => return i,
            }
        }
        to
    }

    /// The start of the blanks (line breaks included) just before `at`.
    fn blanks_before(&self, at: usize) -> usize {
        let trimmed = self.text[..at].trim_end_matches([' ', '\t', '\r', '\n']);
        trimmed.len()
    }

    fn splice(&mut self, edits: &mut [(usize, usize, String)]) {
        edits.sort_by_key(|e| std::cmp::Reverse(e.0));
        for (from, to, with) in edits.iter() {
            self.text.replace_range(*from..*to, with);
        }
    }

    /// Add `item` (an object's `"key": value` when `key` is given, else an
    /// array's element) at the end of the container `node`.
    fn append(&mut self, node: &Node, key: Option<&str>, value: &Value) {
        let open_indent = self.indent_at(node.start);
        let item = |doc: &Self, indent: &str, pretty: bool| {
            let rendered = doc.render(value, indent, pretty);
            match key {
                Some(key) => {
                    let key = serde_json::to_string(key).expect("a string serializes");
                    if pretty {
                        format!("{key}: {rendered}")
                    } else {
                        format!("{key}:{rendered}")
                    }
                }
                None => rendered,
            }
        };
        let close = node.end - 1;
        let Some(&(_, last_end)) = node.children.last() else {
            let inside = &self.text[node.start + 1..close];
            let indent = format!("{open_indent}{}", self.unit());
            let text = format!("\n{indent}{}", item(self, &indent, true));
            if inside.trim().is_empty() {
                let edit = (node.start + 1, close, format!("{text}\n{open_indent}"));
                self.splice(&mut [edit]);
            } else {
                let at = self.blanks_before(close);
                let tail = if at == close {
                    format!("\n{open_indent}")
                } else {
                    String::new()
                };
                self.splice(&mut [(at, at, format!("{text}{tail}"))]);
            }
            return;
        };
        let pretty = self.text[node.start..node.end].contains('\n');
        let trailing = self.comma_in(last_end, close);
        if !pretty {
            let edit = match trailing {
                Some(comma) => (comma + 1, comma + 1, format!("{},", item(self, "", false))),
                None => (last_end, last_end, format!(",{}", item(self, "", false))),
            };
            self.splice(&mut [edit]);
            return;
        }
        let (last_start, _) = *node.children.last().expect("not empty");
        let indent = if self.starts_line(last_start) {
            self.indent_at(last_start)
        } else {
            format!("{open_indent}{}", self.unit())
        };
        let after = trailing.map_or(last_end, |comma| comma + 1);
        let at = self.line_end_after(after, close);
        let mut text = format!("\n{indent}{}", item(self, &indent, true));
        if trailing.is_some() {
            text.push(',');
        }
        if at == close || self.text.as_bytes()[at] != b'\n' {
            text.push_str(&format!("\n{open_indent}"));
        }
        let mut edits = vec![(at, at, text)];
        if trailing.is_none() {
            edits.push((last_end, last_end, ",".to_owned()));
        }
        self.splice(&mut edits);
    }

    /// Remove child `index` of the container `node`, with its separator and
    /// the blanks before it (the inverse of [`JsonDoc::append`]).
    fn remove_child(&mut self, node: &Node, index: usize) {
        let (start, end) = node.children[index];
        let close = node.end - 1;
        let prev_end = index
            .checked_sub(1)
            .map_or(node.start + 1, |i| node.children[i].1);
        let next_start = node.children.get(index + 1).map_or(close, |c| c.0);
        let blank = |from: usize, to: usize| self.text[from..to].trim().is_empty();
        if node.children.len() == 1 && blank(node.start + 1, start) && blank(end, close) {
            self.splice(&mut [(node.start + 1, close, String::new())]);
            return;
        }
        let from = self.blanks_before(start).max(prev_end);
        let mut edits = vec![(from, end, String::new())];
        match self.comma_in(end, next_start) {
            Some(comma) => edits.push((comma, comma + 1, String::new())),
            None => {
                if let Some(comma) = self.comma_in(prev_end, start) {
                    edits.push((comma, comma + 1, String::new()));
                }
            }
        }
        self.splice(&mut edits);
    }

    /// Set `key` of the object at `path` to `value`: its value replaced in
    /// place when the key is there, else the property appended. Missing
    /// objects on the way are created (as one inserted property).
    pub fn set(&mut self, path: &[Step<'_>], key: &str, value: &Value) -> bool {
        for depth in 0..path.len() {
            if self.node(&path[..=depth]).is_none() {
                let Step::Key(missing) = path[depth] else {
                    return false;
                };
                let mut nested = serde_json::Map::new();
                nested.insert(key.to_owned(), value.clone());
                let mut built = Value::Object(nested);
                for step in path[depth + 1..].iter().rev() {
                    let Step::Key(k) = step else { return false };
                    let mut outer = serde_json::Map::new();
                    outer.insert((*k).to_owned(), built);
                    built = Value::Object(outer);
                }
                return self.set(&path[..depth], missing, &built);
            }
        }
        let Some(node) = self.node(path).filter(|n| n.is_object) else {
            return false;
        };
        if let Some(child) = self.node(&[path, &[Step::Key(key)]].concat()) {
            let indent = self.indent_at(child.start);
            let pretty = self.text[node.start..node.end].contains('\n');
            let text = self.render(value, &indent, pretty);
            self.splice(&mut [(child.start, child.end, text)]);
        } else {
            self.append(&node, Some(key), value);
        }
        true
    }

    /// Append `value` to the array at `path` (created, with the objects on
    /// the way, when missing).
    pub fn push(&mut self, path: &[Step<'_>], value: &Value) -> bool {
        match self.node(path) {
            Some(node) if node.is_array => {
                self.append(&node, None, value);
                true
            }
            Some(_) => false,
            None => match path.split_last() {
                Some((Step::Key(key), parent)) => {
                    self.set(parent, key, &Value::Array(vec![value.clone()]))
                }
                _ => false,
            },
        }
    }

    /// Replace the value at `path` (which must exist) by `value`.
    pub fn replace(&mut self, path: &[Step<'_>], value: &Value) -> bool {
        let Some(node) = self.node(path) else {
            return false;
        };
        let indent = self.indent_at(node.start);
        let pretty = self.text[node.start..node.end].contains('\n') || self.starts_line(node.start);
        let text = self.render(value, &indent, pretty);
        self.splice(&mut [(node.start, node.end, text)]);
        true
    }

    /// Remove the value at `path` (a property or an array element) with
    /// its separator; `false` when there is none.
    pub fn delete(&mut self, path: &[Step<'_>]) -> bool {
        let Some((last, parent_path)) = path.split_last() else {
            return false;
        };
        let Some(parent) = self.node(parent_path) else {
            return false;
        };
        let index = match last {
            Step::Key(key) if parent.is_object => self.key_index(parent_path, key),
            Step::Index(i) if parent.is_array && *i < parent.children.len() => Some(*i),
            _ => None,
        };
        let Some(index) = index else {
            return false;
        };
        self.remove_child(&parent, index);
        true
    }
}

/// A new settings file holding `value`: two-space indented, final newline.
pub fn render_new(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("JSON serializes");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const P: &str = "/x/settings.json";

    fn doc(text: &str) -> JsonDoc {
        JsonDoc::new(Path::new(P), Some(text)).unwrap()
    }

    #[test]
    fn an_inserted_property_is_removed_to_the_byte() {
        for original in [
            "{\n  \"a\": 1\n}\n",
            "{\n  \"a\": 1 // mine\n}\n",
            "// top\n{\n    \"a\": [1, 2], /* b */\n    \"c\": {}\n}",
            "{\n  \"a\": 1,\n}\n",
            "{\"a\":1}",
            "{}",
            "{\n\t\"a\": {\n\t\t\"b\": true\n\t}\n}\n",
        ] {
            let mut d = doc(original);
            assert!(d.set(
                &[Step::Key("srv")],
                "session-ref",
                &json!({"command": "x", "args": ["mcp"]})
            ));
            let value = d.value();
            assert_eq!(
                value["srv"]["session-ref"]["args"],
                json!(["mcp"]),
                "{}",
                d.text()
            );
            assert!(d.delete(&[Step::Key("srv")]), "{}", d.text());
            assert_eq!(d.text(), original, "round trip of {original:?}");
        }
    }

    #[test]
    fn array_elements_round_trip() {
        for original in [
            "{\"allow\": [\"Bash(ls)\"]}\n",
            "{\n  \"allow\": [\n    \"Bash(ls)\" // ok\n  ]\n}\n",
            "{\n  \"allow\": []\n}\n",
        ] {
            let mut d = doc(original);
            assert!(d.push(&[Step::Key("allow")], &json!("mcp__x")));
            let allowed = d.value()["allow"].as_array().unwrap().clone();
            assert_eq!(allowed.last().unwrap(), "mcp__x", "{}", d.text());
            let at = allowed.len() - 1;
            assert!(d.delete(&[Step::Key("allow"), Step::Index(at)]));
            assert_eq!(d.text(), original);
        }
    }

    #[test]
    fn comments_stay_where_they_are() {
        let original =
            "{\n  // the theme\n  \"theme\": \"dark\", // trailing\n  /* last */ \"n\": 3\n}\n";
        let mut d = doc(original);
        d.set(
            &[Step::Key("mcpServers")],
            "session-ref",
            &json!({"command": "x"}),
        );
        let text = d.text().to_owned();
        assert!(text.starts_with("{\n  // the theme\n  \"theme\": \"dark\", // trailing\n  /* last */ \"n\": 3,\n  \"mcpServers\": {\n    \"session-ref\": {\n      \"command\": \"x\"\n    }\n  }\n}"), "{text}");
        d.delete(&[Step::Key("mcpServers")]);
        assert_eq!(d.text(), original);
    }

    #[test]
    fn non_objects_and_json5_are_refused() {
        assert!(JsonDoc::new(Path::new(P), Some("[]")).is_err());
        assert!(JsonDoc::new(Path::new(P), Some("{a: 1}")).is_err());
        assert!(JsonDoc::new(Path::new(P), Some("{\"a\": 'x'}")).is_err());
        assert!(JsonDoc::new(Path::new(P), Some("{\"a\": 1} // ok")).is_ok());
    }
}
