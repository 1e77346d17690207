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

mod json;
mod malformed;
pub mod yaml;

pub use json::{json_object, parse_json, render_new, JsonDoc, Step};
pub use malformed::malformed;

use std::fs::{File, Metadata, OpenOptions};
use std::io::{Read, Write as _};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

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

/// A TOML settings text (absent = empty) as a document to edit in place:
/// comments and layout are kept by `toml_edit`.
pub fn parse_toml(path: &Path, text: Option<&str>) -> Result<toml_edit::DocumentMut> {
    text.unwrap_or("")
        .parse::<toml_edit::DocumentMut>()
        .map_err(|e| malformed(path, e.to_string().trim_end()))
}
