//! The one table of how each store kind's agent is started on a session
//! ([`LAUNCHERS`]): its program, the words that resume a session, the
//! words that start it with a first prompt, and the version whose own
//! `--help` or source each row follows. One row per kind of
//! `session_ref_stores::REGISTRY`, in its order (a test keeps them equal).
//!
//! Checked on 2026-12-03 by running each npm package's `--help`
//! (`npm install --prefix /tmp/agents …`, the versions below, offline) and,
//! where the help leaves the parsing open, by reading the package's code:
//! Gemini CLI's `SessionSelector.findSession` (a session is found by its
//! id among the chats of the project the cwd names), pi's `cli/args.js`
//! (an argument starting with `-` is an option and one starting with `@`
//! a file to include, with no `--`). The resume words were then run
//! (offline, with an unknown id): Claude Code, Gemini CLI, Qwen Code,
//! opencode and Copilot CLI each looked the joined `--opt=ID` up as a
//! session id ("No conversation found with session ID: …" and the like),
//! and `codex resume -- ID` parsed and opened its TUI. Antigravity CLI and Cursor CLI do not
//! install here: their rows follow `shared/spec/formats/not-run-here.md`,
//! the readers named in their stores' module docs, and Cursor's public CLI
//! reference.

/// One word of an agent's command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Word {
    /// This word as written.
    Lit(&'static str),
    /// This text followed by the session id, one word (`--resume=ID`:
    /// never read as an option, whatever the id starts with).
    IdAfter(&'static str),
    /// The session id alone (after a `--`, so never read as an option).
    Id,
    /// The session's log file, an absolute path (pi takes one).
    Log,
    /// This text followed by the first prompt, one word.
    PromptAfter(&'static str),
    /// The first prompt alone (after a `--` where the agent's parser has
    /// one).
    Prompt,
}

/// How an agent resumes a session, or why it cannot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resume {
    /// The words after the program.
    Words(&'static [Word]),
    /// No command line resumes it, and why (said to the person).
    Unsupported(&'static str),
}

/// How an agent starts a new session with a first prompt, or why it
/// cannot be handed one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// The words after the program, and the characters a prompt must not
    /// start with (where a bare word is read as an option or a file).
    Words(&'static [Word], &'static str),
    /// No command line starts it with a prompt, and why.
    Unsupported(&'static str),
}

/// One kind's agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launcher {
    /// The store kind's name (`session_ref_stores::StoreKind::as_str`).
    pub kind: &'static str,
    /// The agent's name for a person.
    pub agent: &'static str,
    /// The program looked up on `PATH`.
    pub program: &'static str,
    /// The version whose help or source the row follows.
    pub version: &'static str,
    /// Resuming one of its sessions.
    pub resume: Resume,
    /// Starting it with a first prompt (a hand-off's target).
    pub start: Start,
}

use Word::{Id, IdAfter, Lit, Log, Prompt, PromptAfter};

/// Every kind's agent, in registry order.
pub static LAUNCHERS: &[Launcher] = &[
    Launcher {
        kind: "hydra",
        agent: "Hydra",
        program: "hydra",
        version: "-",
        resume: Resume::Unsupported(
            "Hydra's sessions are written by Hydra's own server, which has no command line to resume one",
        ),
        start: Start::Unsupported("Hydra is not started from a command line"),
    },
    Launcher {
        kind: "claude",
        agent: "Claude Code",
        program: "claude",
        version: "2.1.332",
        // `-r, --resume [value]`; `[prompt]` after `--` (commander). Run
        // here: it finds an id in any project folder of the store, not only
        // the cwd's, so no folder check is made.
        resume: Resume::Words(&[IdAfter("--resume=")]),
        start: Start::Words(&[Lit("--"), Prompt], ""),
    },
    Launcher {
        kind: "codex",
        agent: "Codex",
        program: "codex",
        version: "0.171.0",
        // `codex resume [SESSION_ID] [PROMPT]`; `codex [PROMPT]` (clap).
        resume: Resume::Words(&[Lit("resume"), Lit("--"), Id]),
        start: Start::Words(&[Lit("--"), Prompt], ""),
    },
    Launcher {
        kind: "gemini",
        agent: "Gemini CLI",
        program: "gemini",
        version: "0.61.0",
        // `-r, --resume` (a session id of the cwd's project);
        // `-i, --prompt-interactive` (yargs).
        resume: Resume::Words(&[IdAfter("--resume=")]),
        start: Start::Words(&[PromptAfter("--prompt-interactive=")], ""),
    },
    Launcher {
        kind: "pi",
        agent: "pi",
        program: "pi",
        version: "0.73.1",
        // `--session <path|id>` takes the next word whatever it is; a
        // message is a bare word that starts with neither `-` nor `@`.
        resume: Resume::Words(&[Lit("--session"), Log]),
        start: Start::Words(&[Prompt], "-@"),
    },
    Launcher {
        kind: "qwen",
        agent: "Qwen Code",
        program: "qwen",
        version: "0.24.4",
        // `-r, --resume` (an id), `-i, --prompt-interactive` (yargs).
        resume: Resume::Words(&[IdAfter("--resume=")]),
        start: Start::Words(&[PromptAfter("--prompt-interactive=")], ""),
    },
    Launcher {
        kind: "copilot",
        agent: "Copilot CLI",
        program: "copilot",
        version: "1.0.102",
        // `-r, --resume [<value>]` (optional value: joined);
        // `-i, --interactive <prompt>`.
        resume: Resume::Words(&[IdAfter("--resume=")]),
        start: Start::Words(&[PromptAfter("--interactive=")], ""),
    },
    Launcher {
        kind: "opencode",
        agent: "opencode",
        program: "opencode",
        version: "1.18.33",
        // `-s, --session` (id to continue), `--prompt` (the TUI's first prompt).
        resume: Resume::Words(&[IdAfter("--session=")]),
        start: Start::Words(&[PromptAfter("--prompt=")], ""),
    },
    Launcher {
        kind: "antigravity",
        agent: "Antigravity CLI",
        program: "agy",
        version: "1.x (not run here)",
        resume: Resume::Words(&[IdAfter("--conversation=")]),
        start: Start::Unsupported(
            "no documented Antigravity CLI argument starts it with a first prompt",
        ),
    },
    Launcher {
        kind: "cursor",
        agent: "Cursor CLI",
        program: "cursor-agent",
        version: "2026.07 (not run here)",
        // `--resume [chat id]` (optional value: joined); `cursor-agent
        // [prompt]` starts the interactive agent with it.
        resume: Resume::Words(&[IdAfter("--resume=")]),
        start: Start::Words(&[Prompt], "-"),
    },
    Launcher {
        kind: "cline",
        agent: "Cline CLI",
        program: "cline",
        version: "3.0.65",
        // `--id <session-id>` always opens the TUI (formats/cline.md).
        resume: Resume::Words(&[IdAfter("--id=")]),
        start: Start::Unsupported(
            "`cline PROMPT` runs the prompt as a task with every tool auto-approved, not an interactive session",
        ),
    },
    Launcher {
        kind: "kilo",
        agent: "Kilo Code CLI",
        program: "kilo",
        version: "7.7.7",
        // opencode's options (yargs): `-s, --session` (id to continue),
        // `--prompt` (the TUI's first prompt); read from `kilo --help`.
        resume: Resume::Words(&[IdAfter("--session=")]),
        start: Start::Words(&[PromptAfter("--prompt=")], ""),
    },
    Launcher {
        kind: "droid",
        agent: "Factory Droid",
        program: "droid",
        version: "0.225.2",
        // `-r, --resume [sessionId]` (optional value: joined), `droid
        // [prompt...]` starts interactive mode with it (commander; `--`
        // ends its options); read from `droid --help`. The TUI resume is
        // local; `droid exec -s` would fetch the session from Factory.
        resume: Resume::Words(&[IdAfter("--resume=")]),
        start: Start::Words(&[Lit("--"), Prompt], ""),
    },
    Launcher {
        kind: "crush",
        agent: "Crush",
        program: "crush",
        version: "source 37f36e9 (not run here)",
        resume: Resume::Unsupported(
            "Crush has no command-line option that opens a past session (its TUI lists them: open Crush in the project and pick it there)",
        ),
        start: Start::Unsupported(
            "Crush's only prompt argument is `crush run`, which answers once and exits, not an interactive session",
        ),
    },
    Launcher {
        kind: "goose",
        agent: "Goose",
        program: "goose",
        version: "1.20 (CLI reference; not run here)",
        // `goose session --resume --session-id <ID>` (clap: `--session-id=ID`
        // is one word); `goose run --interactive --text <TEXT>` answers the
        // text and stays in the session. Read from Goose's CLI commands
        // guide (documentation/docs/guides/goose-cli-commands.md).
        resume: Resume::Words(&[Lit("session"), Lit("--resume"), IdAfter("--session-id=")]),
        start: Start::Words(&[Lit("run"), Lit("--interactive"), PromptAfter("--text=")], ""),
    },
    Launcher {
        kind: "continue",
        agent: "Continue CLI",
        program: "cn",
        version: "1.5.47",
        // `cn --help`: `--resume` takes only the last session; `--fork
        // <sessionId>` opens a new session holding that one's history
        // (`useChat.ts`: `loadSessionById`, then `startNewSession`), the
        // one way to go on from a chosen session. `cn [prompt]` starts
        // interactive with it (commander; `--` ends its options).
        resume: Resume::Words(&[IdAfter("--fork=")]),
        start: Start::Words(&[Lit("--"), Prompt], ""),
    },
    Launcher {
        kind: "kimi",
        agent: "Kimi CLI",
        program: "kimi",
        version: "1.52.0 (reference docs; not run here)",
        // `-S, --session ID` resumes that session of the working directory
        // (sessions are kept per directory, so it runs in the session's).
        resume: Resume::Words(&[IdAfter("--session=")]),
        start: Start::Unsupported(
            "Kimi CLI's `--prompt` answers once and exits; it has no argument that opens its shell with a first prompt",
        ),
    },
    Launcher {
        kind: "vibe",
        agent: "Mistral Vibe",
        program: "vibe",
        version: "3.0.2 (source; not run here)",
        // argparse: `--resume SESSION_ID` (`--resume=ID` one word), and the
        // optional positional initial prompt after `--`; Vibe itself prints
        // `vibe --resume <id>` when a session ends.
        resume: Resume::Words(&[IdAfter("--resume=")]),
        start: Start::Words(&[Lit("--"), Prompt], ""),
    },
    Launcher {
        kind: "amp",
        agent: "Amp",
        program: "amp",
        version: "not run here (threads kept by Amp's servers)",
        resume: Resume::Unsupported(
            "Amp continues a thread from Amp's servers (`amp threads continue`), which session-ref never calls: the local copy cannot be resumed from here",
        ),
        start: Start::Unsupported("Amp is not run here, so no first-prompt argument was checked"),
    },
    Launcher {
        kind: "aider",
        agent: "Aider",
        program: "aider",
        version: "0.86.2",
        // `--restore-chat-history` reloads the whole history file, not one
        // of its sessions (../shared/spec/formats/aider.md).
        resume: Resume::Unsupported(
            "Aider resumes no single session: `aider --restore-chat-history` in the project reloads its whole history file",
        ),
        start: Start::Unsupported(
            "`aider --message` runs one message and exits; Aider has no argument that starts a conversation with a first prompt",
        ),
    },
];

/// The row of store kind `kind`.
pub fn launcher(kind: &str) -> Option<&'static Launcher> {
    LAUNCHERS.iter().find(|l| l.kind == kind)
}

/// The kinds a session can be handed off to (their agent starts with a
/// first prompt), in table order.
pub fn handoff_targets() -> impl Iterator<Item = &'static Launcher> {
    LAUNCHERS
        .iter()
        .filter(|l| matches!(l.start, Start::Words(..)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_row_per_registered_kind_in_registry_order() {
        let kinds: Vec<&str> = LAUNCHERS.iter().map(|l| l.kind).collect();
        let registry: Vec<&str> = session_ref_stores::REGISTRY
            .iter()
            .map(|k| k.as_str())
            .collect();
        assert_eq!(kinds, registry);
    }

    #[test]
    fn handoff_targets_are_the_agents_with_a_first_prompt() {
        let targets: Vec<&str> = handoff_targets().map(|l| l.kind).collect();
        assert_eq!(
            targets,
            [
                "claude", "codex", "gemini", "pi", "qwen", "copilot", "opencode", "cursor", "kilo",
                "droid", "goose", "continue", "vibe"
            ]
        );
        assert_eq!(launcher("cline").map(|l| l.program), Some("cline"));
        assert!(launcher("nope").is_none());
    }
}
