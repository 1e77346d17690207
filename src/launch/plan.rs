//! The command that starts an agent, built from the table
//! ([`super::table`]) and a session: pure argv building, and the checks
//! made before anything starts (the program on `PATH`, the working
//! directory, the log still there). Nothing here starts a process.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::table::{Launcher, Resume, Start, Word};
use crate::error::{Error, Result};
use session_ref_core::json;
use session_ref_stores::model::SessionRecord;

/// The longest one argument may be on Linux (`MAX_ARG_STRLEN`, 32 pages,
/// its final NUL included): a longer first prompt cannot be passed.
pub const MAX_ARG_BYTES: usize = 32 * 4096 - 1;

/// A command ready to start: the program found on `PATH`, its arguments
/// (each one argv word, never read by a shell) and the directory it
/// starts in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// The program, as found on `PATH`.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// The session's working directory.
    pub cwd: PathBuf,
}

impl Plan {
    /// The command as one POSIX shell line (`cd CWD && PROGRAM ARGS…`),
    /// every word quoted that needs it: what `--print` writes, for a
    /// script to run. Nothing starts it here.
    pub fn shell_line(&self) -> String {
        use session_ref_stores::remote::shell_quote;
        let mut line = format!(
            "cd {} && {}",
            shell_quote(&self.cwd.to_string_lossy()),
            shell_quote(&self.program.to_string_lossy())
        );
        for arg in &self.args {
            line.push(' ');
            line.push_str(&shell_quote(arg));
        }
        line
    }
}

/// What the words of a row stand for in one command.
struct Values<'a> {
    id: &'a str,
    log: &'a Path,
    prompt: &'a str,
}

fn expand(words: &[Word], values: &Values<'_>) -> Vec<String> {
    words
        .iter()
        .map(|word| match *word {
            Word::Lit(text) => text.to_owned(),
            Word::IdAfter(head) => format!("{head}{}", values.id),
            Word::Id => values.id.to_owned(),
            Word::Log => values.log.to_string_lossy().into_owned(),
            Word::PromptAfter(head) => format!("{head}{}", values.prompt),
            Word::Prompt => values.prompt.to_owned(),
        })
        .collect()
}

/// The arguments that make `launcher`'s agent resume session `id` (its log
/// at `log`), or why it cannot.
pub fn resume_args(launcher: &Launcher, id: &str, log: &Path) -> Result<Vec<String>> {
    let words = match launcher.resume {
        Resume::Words(words) => words,
        Resume::Unsupported(why) => {
            return Err(Error::cannot_launch(format!(
                "{} sessions cannot be resumed: {why}",
                launcher.agent
            )))
        }
    };
    passable(expand(
        words,
        &Values {
            id,
            log,
            prompt: "",
        },
    ))
}

/// The arguments that start `launcher`'s agent with `prompt` as its first
/// prompt, or why they cannot.
pub fn start_args(launcher: &Launcher, prompt: &str) -> Result<Vec<String>> {
    let (words, refused) = match launcher.start {
        Start::Words(words, refused) => (words, refused),
        Start::Unsupported(why) => {
            return Err(Error::cannot_launch(format!(
                "cannot hand a session off to {}: {why}",
                launcher.agent
            )))
        }
    };
    if let Some(first) = prompt.chars().next().filter(|c| refused.contains(*c)) {
        return Err(Error::cannot_launch(format!(
            "{} would read a first prompt starting with {first:?} as an option or a file: start the prompt with another character",
            launcher.agent
        )));
    }
    passable(expand(
        words,
        &Values {
            id: "",
            log: Path::new(""),
            prompt,
        },
    ))
}

/// `args` when each can be one argv word: no NUL, at most [`MAX_ARG_BYTES`].
fn passable(args: Vec<String>) -> Result<Vec<String>> {
    for arg in &args {
        if arg.contains('\0') {
            return Err(Error::cannot_launch(
                "an argument holds a NUL character, which no command line can pass",
            ));
        }
        if arg.len() > MAX_ARG_BYTES {
            return Err(Error::cannot_launch(format!(
                "the first prompt is {} bytes, and one argument holds at most {MAX_ARG_BYTES}: \
                 cite less (--max-reference-bytes N)",
                arg.len()
            )));
        }
    }
    Ok(args)
}

/// `program` found in the directories of `path` (a `PATH` value): the
/// first regular file there that is executable.
pub fn find_program(program: &str, path: Option<&OsStr>) -> Option<PathBuf> {
    std::env::split_paths(path?)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// `launcher`'s program on `path`, or `SESSION_REFERENCE_AGENT_MISSING`.
fn program_on_path(launcher: &Launcher, path: Option<&OsStr>) -> Result<PathBuf> {
    find_program(launcher.program, path).ok_or_else(|| {
        Error::agent_missing(format!(
            "{} is not installed: no `{}` on PATH",
            launcher.agent, launcher.program
        ))
    })
}

/// The session's working directory, when it still exists as a directory.
pub fn session_cwd(record: &SessionRecord) -> Result<PathBuf> {
    let quoted = json::quote(&record.id, false);
    let cwd = record
        .cwd
        .as_deref()
        .filter(|c| !c.is_empty())
        .ok_or_else(|| {
            Error::cannot_launch(format!(
                "session {quoted} has no recorded working directory to start in"
            ))
        })?;
    let dir = PathBuf::from(cwd);
    if !dir.is_absolute() || !dir.is_dir() {
        return Err(Error::cannot_launch(format!(
            "the working directory of session {quoted} no longer exists: {}",
            crate::display::path_for_person(&dir)
        )));
    }
    Ok(dir)
}

/// Whether the session can be resumed from this machine: its own, and its
/// log still where it was listed.
fn check_resumable(record: &SessionRecord) -> Result<()> {
    let quoted = json::quote(&record.id, false);
    if let Some(host) = &record.host {
        return Err(Error::cannot_launch(format!(
            "session {quoted} is on {}: resume it there",
            crate::display::escape_unsafe(host)
        )));
    }
    if !record.path.exists() {
        return Err(Error::cannot_launch(format!(
            "the log of session {quoted} is gone: {}",
            crate::display::path_for_person(&record.path)
        )));
    }
    Ok(())
}

/// The command that resumes `record` with its own agent, every check made.
pub fn resume(record: &SessionRecord, path: Option<&OsStr>) -> Result<Plan> {
    let launcher = super::table::launcher(record.kind.as_str()).ok_or_else(|| {
        Error::cannot_launch(format!("no agent is known for {} sessions", record.kind))
    })?;
    let args = resume_args(launcher, &record.id, &record.path)?;
    check_resumable(record)?;
    let cwd = session_cwd(record)?;
    let program = program_on_path(launcher, path)?;
    Ok(Plan { program, args, cwd })
}

/// The command that starts `to` in `record`'s working directory with
/// `prompt` (the hand-off's framed snapshot) first, every check made.
pub fn handoff(
    record: &SessionRecord,
    to: &Launcher,
    prompt: &str,
    path: Option<&OsStr>,
) -> Result<Plan> {
    let args = start_args(to, prompt)?;
    if let Some(host) = &record.host {
        return Err(Error::cannot_launch(format!(
            "session {} is on {}: its working directory is there",
            json::quote(&record.id, false),
            crate::display::escape_unsafe(host)
        )));
    }
    let cwd = session_cwd(record)?;
    let program = program_on_path(to, path)?;
    Ok(Plan { program, args, cwd })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use crate::launch::table::launcher;

    fn row(kind: &str) -> &'static Launcher {
        launcher(kind).unwrap()
    }

    #[test]
    fn each_agent_resumes_with_its_own_words() {
        let log = Path::new("/s/x.jsonl");
        let cases = [
            ("claude", vec!["--resume=abc"]),
            ("codex", vec!["resume", "--", "abc"]),
            ("gemini", vec!["--resume=abc"]),
            ("pi", vec!["--session", "/s/x.jsonl"]),
            ("qwen", vec!["--resume=abc"]),
            ("copilot", vec!["--resume=abc"]),
            ("opencode", vec!["--session=abc"]),
            ("antigravity", vec!["--conversation=abc"]),
            ("cursor", vec!["--resume=abc"]),
            ("cline", vec!["--id=abc"]),
        ];
        for (kind, want) in cases {
            assert_eq!(resume_args(row(kind), "abc", log).unwrap(), want, "{kind}");
        }
        let err = resume_args(row("hydra"), "abc", log).unwrap_err();
        assert_eq!(err.code, ErrorCode::CannotLaunch);
    }

    #[test]
    fn an_id_that_looks_like_an_option_stays_a_value() {
        let args = resume_args(
            row("claude"),
            "--dangerously-skip-permissions",
            Path::new("/l"),
        );
        assert_eq!(args.unwrap(), ["--resume=--dangerously-skip-permissions"]);
        let args = resume_args(row("codex"), "-c", Path::new("/l")).unwrap();
        assert_eq!(args, ["resume", "--", "-c"]);
    }

    #[test]
    fn each_agent_starts_with_a_first_prompt_its_own_way() {
        let cases = [
            ("claude", vec!["--", "go $(x)"]),
            ("codex", vec!["--", "go $(x)"]),
            ("gemini", vec!["--prompt-interactive=go $(x)"]),
            ("pi", vec!["go $(x)"]),
            ("qwen", vec!["--prompt-interactive=go $(x)"]),
            ("copilot", vec!["--interactive=go $(x)"]),
            ("opencode", vec!["--prompt=go $(x)"]),
            ("cursor", vec!["go $(x)"]),
        ];
        for (kind, want) in cases {
            assert_eq!(start_args(row(kind), "go $(x)").unwrap(), want, "{kind}");
        }
        for kind in ["hydra", "antigravity", "cline"] {
            let err = start_args(row(kind), "go").unwrap_err();
            assert_eq!(err.code, ErrorCode::CannotLaunch, "{kind}");
        }
    }

    #[test]
    fn a_prompt_the_agent_would_misread_or_cannot_take_is_refused() {
        for prompt in ["-p yes", "@/etc/passwd"] {
            let err = start_args(row("pi"), prompt).unwrap_err();
            assert_eq!(err.code, ErrorCode::CannotLaunch, "{prompt}");
        }
        assert!(start_args(row("claude"), "-p yes").is_ok());
        let long = "x".repeat(MAX_ARG_BYTES);
        assert!(start_args(row("claude"), &long).is_ok());
        let err = start_args(row("gemini"), &long).unwrap_err();
        assert!(err.message.contains("--max-reference-bytes"), "{err}");
        assert!(start_args(row("claude"), "a\0b").is_err());
    }

    #[test]
    fn the_printed_line_quotes_every_word_that_needs_it() {
        let plan = Plan {
            program: "/usr/bin/claude".into(),
            args: vec!["--resume=a b".into(), "$(touch x)".into(), "it's".into()],
            cwd: "/tmp/my dir".into(),
        };
        assert_eq!(
            plan.shell_line(),
            r"cd '/tmp/my dir' && /usr/bin/claude '--resume=a b' '$(touch x)' 'it'\''s'"
        );
    }

    fn record(cwd: Option<&str>, log: &Path) -> SessionRecord {
        SessionRecord::new(
            session_ref_stores::kinds::claude::KIND,
            std::sync::Arc::from(Path::new("/")),
            log.to_owned(),
            "abc".into(),
            cwd.map(str::to_owned),
            "2026-11-01T10:00:00Z".into(),
        )
    }

    #[test]
    fn a_session_that_cannot_start_here_says_why_before_the_agent_is_looked_up() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("abc.jsonl");
        std::fs::write(&log, "{}\n").unwrap();
        let cwd = dir.path().to_str().unwrap();
        let why = |r: &SessionRecord| resume(r, None).unwrap_err();
        // All is well but the agent: not on PATH.
        assert_eq!(why(&record(Some(cwd), &log)).code, ErrorCode::AgentMissing);
        let cases = [
            (record(None, &log), "no recorded working directory"),
            (record(Some("relative/dir"), &log), "no longer exists"),
            (record(Some("/nonexistent/gone"), &log), "no longer exists"),
            (record(Some(cwd), &dir.path().join("gone.jsonl")), "is gone"),
            (
                SessionRecord {
                    host: Some("devbox".into()),
                    ..record(Some(cwd), &log)
                },
                "is on devbox",
            ),
        ];
        for (r, said) in cases {
            let err = why(&r);
            assert_eq!(err.code, ErrorCode::CannotLaunch, "{err}");
            assert!(err.message.contains(said), "{err}");
        }
        let remote = SessionRecord {
            host: Some("devbox".into()),
            ..record(Some(cwd), &log)
        };
        let err = handoff(&remote, row("codex"), "go", None).unwrap_err();
        assert_eq!(err.code, ErrorCode::CannotLaunch);
        let err = handoff(&record(Some(cwd), &log), row("codex"), "go", None).unwrap_err();
        assert_eq!(err.code, ErrorCode::AgentMissing);
    }

    #[test]
    fn programs_are_found_on_path_only_when_executable() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let agent = bin.join("claude");
        std::fs::write(&agent, "#!/bin/sh\n").unwrap();
        let path = std::env::join_paths([Path::new("/nonexistent"), &bin]).unwrap();
        assert_eq!(find_program("claude", Some(&path)), None);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).unwrap();
            assert_eq!(find_program("claude", Some(&path)), Some(agent));
        }
        // A relative PATH entry is never searched (it would depend on where
        // session-ref runs, not where the agent starts).
        assert_eq!(find_program("claude", Some(OsStr::new("bin"))), None);
        assert_eq!(find_program("claude", None), None);
    }
}
