//! Keeping a blocked prompt where the user can find it again.
//!
//! When a hook stops a prompt, Codex's interactive view shows the reason but
//! `codex exec` prints only "hook: UserPromptSubmit Blocked" and its rollout
//! keeps nothing. So the hook writes the prompt, with the reason and where it
//! came from, to a file in `$XDG_STATE_HOME/session-ref/drafts/` (by default
//! `~/.local/state/session-ref/drafts/`), the recovery directory of
//! session-ref ([`crate::draft`] decides where that is). The file keeps the
//! reason with the prompt, so it lives in its own `drafts/` folder, apart
//! from the picker's restorable drafts.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// The drafts directory from an environment lookup and a home directory.
pub fn drafts_dir(env: impl Fn(&str) -> Option<String>, home: Option<&Path>) -> Option<PathBuf> {
    crate::draft::Drafts::locate(env, home).map(|drafts| drafts.dir().join("drafts"))
}

/// A prompt that was stopped, and why.
#[derive(Debug, Clone, Copy)]
pub struct Draft<'a> {
    /// Which hook stopped it (`claude` or `codex`).
    pub agent: &'a str,
    /// The session it was typed into.
    pub session_id: &'a str,
    /// The session's working directory.
    pub cwd: &'a str,
    /// The error line.
    pub reason: &'a str,
    /// The prompt exactly as typed.
    pub prompt: &'a str,
}

/// The line that separates the header from the prompt in a draft file.
pub const PROMPT_MARKER: &str = "--- prompt as typed (everything below this line) ---\n";

/// The text of a draft file: a header, the marker line, then the prompt
/// byte for byte.
pub fn render(draft: &Draft<'_>) -> String {
    format!(
        "{}\nagent: {}\nsession: {}\ncwd: {}\n{PROMPT_MARKER}{}",
        draft.reason, draft.agent, draft.session_id, draft.cwd, draft.prompt
    )
}

/// Write `draft` to a new file in `dir` (created, private to the user) and
/// return its path. Then prune by the picker's rule
/// ([`crate::draft::prune`]): the same draft saved before goes, and so does
/// every draft beyond the newest [`crate::draft::KEPT`].
pub fn save(dir: &Path, draft: &Draft<'_>) -> std::io::Result<PathBuf> {
    session_ref_stores::private::dir(dir)?;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let stem = format!(
        "{}-{:09}-{}-{}",
        now.as_secs(),
        now.subsec_nanos(),
        draft.agent,
        std::process::id()
    );
    let path = dir.join(format!("{stem}{SUFFIX}"));
    let mut file = session_ref_stores::private::create_new(&path)?;
    file.write_all(render(draft).as_bytes())?;
    crate::draft::prune(&path, crate::draft::listed(dir, is_draft));
    Ok(path)
}

/// How hook draft files are named: `<secs>-<nanos>-<agent>-<pid>.txt`.
const SUFFIX: &str = ".txt";

fn is_draft(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_digit()) && name.ends_with(SUFFIX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_directory_follows_xdg_state_home() {
        let home = Path::new("/home/u");
        assert_eq!(
            drafts_dir(|_| None, Some(home)).unwrap(),
            Path::new("/home/u/.local/state/session-ref/drafts")
        );
        let env = |k: &str| (k == "XDG_STATE_HOME").then(|| "/state".to_owned());
        assert_eq!(
            drafts_dir(env, Some(home)).unwrap(),
            Path::new("/state/session-ref/drafts")
        );
        // A relative XDG path is invalid by the specification and ignored.
        let relative = |k: &str| (k == "XDG_STATE_HOME").then(|| "state".to_owned());
        assert_eq!(
            drafts_dir(relative, Some(home)).unwrap(),
            Path::new("/home/u/.local/state/session-ref/drafts")
        );
        assert_eq!(drafts_dir(|_| None, None), None);
    }

    #[test]
    fn a_saved_draft_ends_with_the_prompt_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let prompt = "see @[x](hydra-session:x)\n\ttrailing ";
        let draft = Draft {
            agent: "codex",
            session_id: "s",
            cwd: "/w",
            reason: "session-ref: SESSION_REFERENCE_READ_FAILED: gone",
            prompt,
        };
        let path = save(&dir.path().join("drafts"), &draft).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with(draft.reason));
        let (_, kept) = text.split_once(PROMPT_MARKER).unwrap();
        assert_eq!(kept, prompt);
    }

    #[test]
    fn hook_drafts_are_pruned_like_the_pickers() {
        use std::os::unix::fs::PermissionsExt;
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("drafts");
        let draft = |prompt| Draft {
            agent: "claude",
            session_id: "s",
            cwd: "/w",
            reason: "session-ref: SESSION_NOT_FOUND: x",
            prompt,
        };
        let prompts: Vec<String> = (0..crate::draft::KEPT + 3)
            .map(|n| format!("p{n}"))
            .collect();
        let mut paths = Vec::new();
        for prompt in &prompts {
            paths.push(save(&dir, &draft(prompt)).unwrap());
        }
        // A file of the user's own in the folder is not a draft.
        std::fs::write(dir.join("notes.txt"), "mine").unwrap();
        let again = save(&dir, &draft(prompts.last().unwrap())).unwrap();
        let left = crate::draft::listed(&dir, is_draft);
        assert_eq!(left.len(), crate::draft::KEPT);
        assert_eq!(left[0].path, again);
        // The repeat replaced its earlier copy; the oldest are gone.
        assert!(!paths.last().unwrap().exists());
        assert!(!paths[0].exists() && !paths[2].exists() && paths[3].exists());
        assert!(dir.join("notes.txt").exists());
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!((mode(&dir), mode(&again)), (0o700, 0o600));
    }
}
