//! The store directories a run reads ([`StoreRoots`], in registry order),
//! every kind's default locations and their `--help` spelling, and the
//! check of a root named on the command line ([`unusable_root`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::caches::Caches;
use crate::model::StoreKind;
use crate::registry::REGISTRY;
use crate::store::ScanEvent;

/// The store directories to read, each with its kind, in registry order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoreRoots {
    roots: Vec<(StoreKind, PathBuf)>,
}

impl StoreRoots {
    /// No roots.
    pub fn new() -> Self {
        StoreRoots::default()
    }

    /// These roots and `path` of `kind` (kept in registry order, then in
    /// the order given).
    pub fn with(mut self, kind: StoreKind, path: impl Into<PathBuf>) -> Self {
        self.push(kind, path);
        self
    }

    /// Add `path` of `kind`.
    pub fn push(&mut self, kind: StoreKind, path: impl Into<PathBuf>) {
        let rank = |k: StoreKind| REGISTRY.iter().position(|r| *r == k);
        let at = self
            .roots
            .iter()
            .position(|(k, _)| rank(*k) > rank(kind))
            .unwrap_or(self.roots.len());
        self.roots.insert(at, (kind, path.into()));
    }

    /// Whether no directory is named.
    pub fn is_empty(&self) -> bool {
        self.roots.is_empty()
    }

    /// Every root with its kind.
    pub fn iter(&self) -> impl Iterator<Item = (StoreKind, &PathBuf)> {
        self.roots.iter().map(|(kind, path)| (*kind, path))
    }

    /// The roots of one kind.
    pub fn of(&self, kind: StoreKind) -> impl Iterator<Item = &PathBuf> {
        self.iter().filter(move |(k, _)| *k == kind).map(|(_, p)| p)
    }

    /// The default locations (SPEC §1) of every registered kind, from an
    /// environment lookup and a home directory, whether or not they exist.
    pub fn default_locations(
        env: impl Fn(&str) -> Option<String>,
        home: Option<&Path>,
    ) -> StoreRoots {
        let mut roots = StoreRoots::new();
        for kind in REGISTRY {
            for path in kind.store().default_roots(&env, home) {
                roots.push(*kind, path);
            }
        }
        roots
    }

    /// Keep only directories that exist, and files (a default root may
    /// name a database: `OPENCODE_DB`).
    pub fn existing(self) -> StoreRoots {
        StoreRoots {
            roots: self
                .roots
                .into_iter()
                .filter(|(_, p)| p.is_dir() || p.is_file())
                .collect(),
        }
    }
}

/// The default roots of `kind` as `--help` states them
/// (`$CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects`): its
/// [`crate::Store::default_roots`] evaluated with every variable standing for
/// itself, then with none set and `~` as the home directory, so the help
/// cannot drift from what discovery does.
pub fn default_roots_help(kind: StoreKind) -> String {
    let spell = |roots: Vec<PathBuf>| -> Vec<String> {
        roots.iter().map(|p| p.display().to_string()).collect()
    };
    let store = kind.store();
    let from_env = spell(store.default_roots(&|var| Some(format!("${var}")), None));
    let from_home = spell(store.default_roots(&|_| None, Some(Path::new("~"))));
    let mut all = from_env;
    for path in from_home {
        if !all.contains(&path) {
            all.push(path);
        }
    }
    all.join(", else ")
}

/// The first root of `roots` (as named on the command line) that cannot
/// be a store, with what is wrong, as the message of a usage error:
/// nothing at that path; a symbolic link to nothing, or to anything but a
/// directory (a store's own files are never read through a link, so the
/// link would list nothing); a FIFO, device or socket; a regular file that
/// is not a session of its kind (`--claude notes.txt`). A root named on the
/// command line is the user's choice: skipping it silently, as listing
/// skips a stray file in a store directory, would list nothing and say
/// nothing. A directory is a store, even an empty one; a file that cannot
/// be read, or a kind without a single-file form (Gemini CLI's root is a
/// directory), is left to listing, which reports it.
pub fn unusable_root(roots: &StoreRoots) -> Option<String> {
    roots.iter().find_map(|(kind, root)| {
        let store = kind.store();
        let named = || {
            format!(
                "--{} {}",
                store.flag(),
                session_ref_core::escape::path_for_person(root)
            )
        };
        let meta = match std::fs::symlink_metadata(root) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Some(format!("{}: no such file or directory", named()))
            }
            Err(_) => return None,
        };
        let kind_of = |t: std::fs::FileType| {
            use std::os::unix::fs::FileTypeExt;
            if t.is_fifo() {
                "a FIFO"
            } else if t.is_char_device() || t.is_block_device() {
                "a device"
            } else if t.is_socket() {
                "a socket"
            } else if t.is_dir() {
                "a directory"
            } else {
                "a regular file"
            }
        };
        if meta.file_type().is_symlink() {
            return match std::fs::metadata(root) {
                Ok(target) if target.is_dir() => None,
                Ok(target) => Some(format!(
                    "{}: a symbolic link to {}: name the session file itself{}",
                    named(),
                    kind_of(target.file_type()),
                    std::fs::canonicalize(root)
                        .map(|t| format!(" ({})", session_ref_core::escape::path_for_person(&t)))
                        .unwrap_or_default()
                )),
                Err(_) => Some(format!(
                    "{}: a symbolic link to nothing (its target does not exist)",
                    named()
                )),
            };
        }
        if meta.is_dir() {
            return None;
        }
        if !meta.is_file() {
            return Some(format!(
                "{}: {}, not a store directory or a session file",
                named(),
                kind_of(meta.file_type())
            ));
        }
        if !store.lists_each_file() {
            return None;
        }
        let at: Arc<Path> = Arc::from(root.as_path());
        match store.list_file(&Caches::default(), &at, root) {
            ScanEvent::Skipped { reason, .. } => Some(format!(
                "{}: not a {} session: {reason}",
                named(),
                kind.as_str()
            )),
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::{claude, codex, gemini, native, opencode, pi, qwen};

    #[test]
    fn default_locations_follow_the_environment() {
        let home = Path::new("/home/u");
        let none = StoreRoots::default_locations(|_| None, Some(home));
        assert_eq!(
            none.of(native::KIND).collect::<Vec<_>>(),
            [Path::new("/home/u/.hydra/sessions")]
        );
        assert_eq!(
            none.of(claude::KIND).collect::<Vec<_>>(),
            [Path::new("/home/u/.claude/projects")]
        );
        assert_eq!(
            none.of(codex::KIND).collect::<Vec<_>>(),
            [Path::new("/home/u/.codex/sessions")]
        );
        assert_eq!(
            none.of(gemini::KIND).collect::<Vec<_>>(),
            [Path::new("/home/u/.gemini")]
        );
        let env = |k: &str| match k {
            "HYDRA_SESSIONS" => Some("/h".to_owned()),
            "CLAUDE_CONFIG_DIR" => Some("/c".to_owned()),
            "CODEX_HOME" => Some("/x".to_owned()),
            "GEMINI_CLI_HOME" => Some("/g".to_owned()),
            "PI_CODING_AGENT_DIR" => Some("/p".to_owned()),
            "COPILOT_HOME" => Some("/c".to_owned()),
            "QWEN_HOME" => Some("/q".to_owned()),
            "XDG_DATA_HOME" => Some("/d".to_owned()),
            "CLINE_DIR" => Some("/l".to_owned()),
            _ => None,
        };
        let set = StoreRoots::default_locations(env, Some(home));
        let all: Vec<(&str, &Path)> = set.iter().map(|(k, p)| (k.as_str(), p.as_path())).collect();
        assert_eq!(
            all,
            [
                ("hydra", Path::new("/h")),
                ("claude", Path::new("/c/projects")),
                ("codex", Path::new("/x/sessions")),
                ("gemini", Path::new("/g/.gemini")),
                ("pi", Path::new("/p/sessions")),
                ("qwen", Path::new("/q/projects")),
                ("copilot", Path::new("/c/session-state")),
                ("opencode", Path::new("/d/opencode")),
                ("antigravity", Path::new("/home/u/.gemini/antigravity-cli")),
                ("cursor", Path::new("/home/u/.cursor")),
                ("cline", Path::new("/l/data/sessions")),
                ("kilo", Path::new("/d/kilo")),
                ("droid", Path::new("/home/u/.factory/sessions")),
                ("crush", Path::new("/d/crush")),
                ("goose", Path::new("/d/goose")),
                ("continue", Path::new("/home/u/.continue/sessions")),
                ("kimi", Path::new("/home/u/.kimi")),
                ("vibe", Path::new("/home/u/.vibe/logs/session/unified")),
                ("amp", Path::new("/d/amp/threads")),
                ("aider", Path::new("/home/u/.aider")),
            ]
        );
    }

    #[test]
    fn default_roots_help_spells_each_kinds_discovery() {
        assert_eq!(
            default_roots_help(claude::KIND),
            "$CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects"
        );
        assert_eq!(
            default_roots_help(native::KIND),
            "$HYDRA_SESSIONS, else ~/.hydra/sessions"
        );
        assert_eq!(
            default_roots_help(gemini::KIND),
            "$GEMINI_CLI_HOME/.gemini, else ~/.gemini"
        );
        assert_eq!(
            default_roots_help(pi::KIND),
            "$PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions"
        );
        assert_eq!(
            default_roots_help(qwen::KIND),
            "$QWEN_RUNTIME_DIR/projects, else $QWEN_HOME/projects, else ~/.qwen/projects"
        );
        let runtime = |k: &str| (k == "QWEN_RUNTIME_DIR").then(|| "/r".to_owned());
        assert_eq!(
            qwen::KIND
                .store()
                .default_roots(&runtime, Some(Path::new("/home/u"))),
            [
                PathBuf::from("/r/projects"),
                PathBuf::from("/home/u/.qwen/projects")
            ]
        );
        assert_eq!(
            default_roots_help(opencode::KIND),
            "$OPENCODE_DB, else ~/.local/share/opencode"
        );
    }

    #[test]
    fn roots_keep_registry_order_then_the_order_given() {
        let roots = StoreRoots::new()
            .with(codex::KIND, "/x1")
            .with(native::KIND, "/h")
            .with(codex::KIND, "/x2")
            .with(claude::KIND, "/c");
        let all: Vec<&str> = roots.iter().map(|(_, p)| p.to_str().unwrap()).collect();
        assert_eq!(all, ["/h", "/c", "/x1", "/x2"]);
    }
}
