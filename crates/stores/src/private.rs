//! What session-ref writes holds session text (caches, indexes, drafts), so
//! it is readable by the user alone whatever the umask: directories 0700,
//! files 0600. Directories and files an older version left wider (0755,
//! 0644) are tightened when they are opened again. The one place these
//! modes are decided.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

/// The mode of a directory we write in.
pub const DIR_MODE: u32 = 0o700;
/// The mode of a file we write.
pub const FILE_MODE: u32 = 0o600;

/// Make `dir` (and any missing parent, each 0700) and tighten `dir` itself
/// to 0700 if it is wider, so that whatever an older version left in it is
/// out of other users' reach. A directory owned by someone else is left as
/// it is (it is not ours to change).
pub fn dir(dir: &Path) -> io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, DIR_MODE);
    builder.create(dir)?;
    tighten(dir, DIR_MODE);
    Ok(())
}

/// Open `path` with `options`, created 0600 if it is new, and tightened to
/// 0600 if it exists wider.
pub fn open(options: &mut OpenOptions, path: &Path) -> io::Result<File> {
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(options, FILE_MODE);
    let file = options.open(path)?;
    tighten_file(&file);
    Ok(file)
}

/// Create `path` for writing; it must not exist yet.
pub fn create_new(path: &Path) -> io::Result<File> {
    open(OpenOptions::new().write(true).create_new(true), path)
}

/// A temporary file in `dir` (0600), to be persisted over its target: the
/// atomic replacement of a cache file.
pub fn temp_in(dir: &Path) -> io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(FILE_MODE));
    builder.tempfile_in(dir)
}

/// Replace `path` whole with `bytes`: written to a 0600 file beside it,
/// synced, then renamed over it.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut temp = temp_in(dir)?;
    temp.as_file_mut().write_all(bytes)?;
    temp.as_file().sync_data()?;
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(unix)]
fn tighten(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    let wide = std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o077 != 0);
    if wide {
        // Fails for a directory of another user: left alone then.
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode));
    }
}

#[cfg(not(unix))]
fn tighten(_: &Path, _: u32) {}

#[cfg(unix)]
fn tighten_file(file: &File) {
    use std::os::unix::fs::PermissionsExt;
    let wide = file
        .metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o077 != 0);
    if wide {
        let _ = file.set_permissions(std::fs::Permissions::from_mode(FILE_MODE));
    }
}

#[cfg(not(unix))]
fn tighten_file(_: &File) {}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn wider_directories_and_files_are_tightened_when_opened() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("old");
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let file = dir.join("f");
        std::fs::write(&file, "x").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        super::dir(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        open(OpenOptions::new().append(true), &file).unwrap();
        assert_eq!(mode(&file), 0o600);
        let new = root.path().join("a/b");
        super::dir(&new).unwrap();
        assert_eq!((mode(&root.path().join("a")), mode(&new)), (0o700, 0o700));
        write_atomic(&new.join("c"), b"y").unwrap();
        assert_eq!(mode(&new.join("c")), 0o600);
        create_new(&new.join("d")).unwrap();
        assert_eq!(mode(&new.join("d")), 0o600);
    }
}
