//! Drafts: a prompt the user typed survives leaving the picker without
//! delivering it (Esc, ctrl-c, a signal, a failed terminal, output or
//! delivery). It is saved as a file in the user's state directory
//! (`$XDG_STATE_HOME/session-ref`, else `~/.local/state/session-ref`), its
//! path is printed on stderr, and the next picker offers to restore them,
//! newest first (or `--prompt-file PATH` starts from one). At most
//! [`KEPT`] are kept: saving drops the oldest beyond that, and a draft
//! whose text a newer one repeats.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// session-ref's state directory: `$XDG_STATE_HOME/session-ref` when that
/// is set to an absolute path (the XDG rule), else
/// `~/.local/state/session-ref`; `None` without either. Drafts and the
/// `setup` receipt live there.
pub fn state_dir(env: impl Fn(&str) -> Option<String>, home: Option<&Path>) -> Option<PathBuf> {
    let base = match env("XDG_STATE_HOME").filter(|d| Path::new(d).is_absolute()) {
        Some(dir) => PathBuf::from(dir),
        None => home?.join(".local").join("state"),
    };
    Some(base.join("session-ref"))
}

/// The directory drafts are kept in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drafts {
    dir: PathBuf,
}

/// A saved draft offered for restoring.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Draft {
    /// Its file.
    pub path: PathBuf,
    /// The prompt it holds.
    pub text: String,
}

/// How draft files are named: `draft-<unix seconds>-<pid>.md`.
const PREFIX: &str = "draft-";
const SUFFIX: &str = ".md";

/// Most drafts kept: older ones are removed when a draft is saved.
pub const KEPT: usize = 20;

impl Drafts {
    /// Drafts kept in `dir`.
    pub fn in_dir(dir: PathBuf) -> Self {
        Drafts { dir }
    }

    /// The state directory from the environment: `$XDG_STATE_HOME` when set
    /// to an absolute path (the XDG rule), else `~/.local/state`; `None`
    /// without either.
    pub fn locate(env: impl Fn(&str) -> Option<String>, home: Option<&Path>) -> Option<Self> {
        state_dir(env, home).map(Drafts::in_dir)
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Save `text` as a new draft, readable by the user alone; its path.
    /// Then prune: a draft with the same text goes (the new one replaces
    /// it), and so does every draft beyond the newest [`KEPT`].
    pub fn save(&self, text: &str) -> io::Result<PathBuf> {
        let path = self.write(text)?;
        prune(&path, self.all());
        Ok(path)
    }

    fn write(&self, text: &str) -> io::Result<PathBuf> {
        session_ref_stores::private::dir(&self.dir)?;
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let mut n = 0u32;
        loop {
            let name = match n {
                0 => format!("{PREFIX}{secs}-{}{SUFFIX}", std::process::id()),
                n => format!("{PREFIX}{secs}-{}-{n}{SUFFIX}", std::process::id()),
            };
            let path = self.dir.join(name);
            match session_ref_stores::private::create_new(&path) {
                Ok(mut file) => {
                    file.write_all(text.as_bytes())?;
                    file.sync_all()?;
                    return Ok(path);
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && n < 100 => n += 1,
                Err(e) => return Err(e),
            }
        }
    }

    /// The newest draft (by modification time, then name), if any can be read.
    pub fn latest(&self) -> Option<Draft> {
        self.all().into_iter().next()
    }

    /// Every draft that can be read, newest first (by modification time,
    /// then name).
    pub fn all(&self) -> Vec<Draft> {
        listed(&self.dir, |name| {
            name.starts_with(PREFIX) && name.ends_with(SUFFIX)
        })
    }
}

/// The readable files in `dir` whose name `is_draft` accepts, newest first
/// (by modification time, then name).
pub(crate) fn listed(dir: &Path, is_draft: impl Fn(&str) -> bool) -> Vec<Draft> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<_> = entries
        .flatten()
        .filter(|e| is_draft(&e.file_name().to_string_lossy()))
        .filter_map(|e| {
            let meta = e.metadata().ok()?;
            meta.is_file()
                .then(|| (meta.modified().ok(), e.file_name(), e.path()))
        })
        .collect();
    found.sort_unstable_by(|a, b| b.cmp(a));
    found
        .into_iter()
        .filter_map(|(.., path)| {
            let text = std::fs::read_to_string(&path).ok()?;
            Some(Draft { path, text })
        })
        .collect()
}

/// The one pruning rule of drafts (the picker's and the hooks'), applied
/// after `saved` was written: a draft with the same text as an earlier one
/// replaces it, and every draft beyond the newest [`KEPT`] goes. `drafts`
/// is newest first, as [`listed`] gives them.
pub(crate) fn prune(saved: &Path, drafts: Vec<Draft>) {
    let text = drafts
        .iter()
        .find(|d| d.path == saved)
        .map(|d| d.text.clone());
    let mut kept = 0;
    for draft in drafts {
        let repeat = draft.path != saved && Some(&draft.text) == text.as_ref();
        if repeat || kept >= KEPT {
            let _ = std::fs::remove_file(&draft.path);
        } else {
            kept += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_state_directory_follows_xdg() {
        let env = |v: Option<&'static str>| {
            move |k: &str| (k == "XDG_STATE_HOME").then_some(v?.to_owned())
        };
        let home = Path::new("/home/u");
        assert_eq!(
            Drafts::locate(env(Some("/s")), Some(home)).unwrap().dir(),
            Path::new("/s/session-ref")
        );
        assert_eq!(
            Drafts::locate(env(None), Some(home)).unwrap().dir(),
            Path::new("/home/u/.local/state/session-ref")
        );
        // A relative XDG_STATE_HOME is ignored, as the specification says.
        assert_eq!(
            Drafts::locate(env(Some("rel")), Some(home)).unwrap().dir(),
            Path::new("/home/u/.local/state/session-ref")
        );
        assert!(Drafts::locate(env(None), None).is_none());
    }

    #[test]
    fn saved_drafts_are_private_and_the_newest_is_offered() {
        let dir = tempfile::tempdir().unwrap();
        let drafts = Drafts::in_dir(dir.path().join("session-ref"));
        assert!(drafts.latest().is_none());
        let first = drafts.save("first prompt").unwrap();
        let old = SystemTime::now() - std::time::Duration::from_secs(60);
        std::fs::File::options()
            .write(true)
            .open(&first)
            .unwrap()
            .set_modified(old)
            .unwrap();
        let second = drafts.save("second @[x](hydra-session:eA)").unwrap();
        assert_ne!(first, second);
        let latest = drafts.latest().unwrap();
        assert_eq!(latest.path, second);
        assert_eq!(latest.text, "second @[x](hydra-session:eA)");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&second).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
            let mode = std::fs::metadata(drafts.dir())
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o700);
        }
    }

    #[test]
    fn saving_prunes_repeats_and_all_but_the_newest_kept() {
        let dir = tempfile::tempdir().unwrap();
        let drafts = Drafts::in_dir(dir.path().join("session-ref"));
        let age = |path: &Path, seconds: u64| {
            std::fs::File::options()
                .write(true)
                .open(path)
                .unwrap()
                .set_modified(SystemTime::now() - std::time::Duration::from_secs(seconds))
                .unwrap();
        };
        for i in 0..KEPT + 5 {
            let path = drafts.save(&format!("draft {i}")).unwrap();
            age(&path, 10_000 - i as u64);
        }
        let all = drafts.all();
        assert_eq!(all.len(), KEPT);
        assert_eq!(all[0].text, format!("draft {}", KEPT + 4));
        assert_eq!(all[KEPT - 1].text, "draft 5");
        // The same text again: one draft of it, the new one.
        let again = drafts.save("draft 7").unwrap();
        let all = drafts.all();
        assert_eq!(all.len(), KEPT);
        assert_eq!(all.iter().filter(|d| d.text == "draft 7").count(), 1);
        assert_eq!(all[0].path, again);
    }
}
