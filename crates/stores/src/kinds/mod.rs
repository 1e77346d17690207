//! One module per agent, each a unit type implementing [`Store`](crate::Store)
//! and a `KIND` handle registered in [`REGISTRY`](crate::REGISTRY):
//! [`native`] (Hydra's own logs), [`claude`] (Claude Code), [`codex`]
//! (Codex CLI), [`gemini`] (Gemini CLI), [`pi`], [`qwen`] (Qwen Code),
//! [`copilot`] (GitHub Copilot CLI), [`opencode`], [`antigravity`]
//! (Antigravity CLI), [`cursor`] (Cursor CLI), [`cline`] (Cline CLI),
//! [`kilo`] (Kilo Code CLI, read by opencode's reader), [`droid`] (Factory
//! Droid), [`crush`] (Crush), [`goose`], [`continue_cli`] (Continue CLI),
//! [`kimi`] (Kimi CLI), [`vibe`] (Mistral Vibe), [`amp`] (Amp's local thread
//! copies), [`aider`] (Aider). [`sqlite`] opens the agents' SQLite databases;
//! [`foreign`] holds what the readers of other agents' JSONL logs share;
//! [`torn`], how a file rewritten in place is read.
//!
//! Adding an agent is one new module here implementing the trait, plus one
//! line in the registry.

pub mod aider;
pub mod amp;
pub mod antigravity;
pub mod claude;
pub mod cline;
pub mod codex;
pub mod continue_cli;
pub mod copilot;
pub mod crush;
pub mod cursor;
pub mod droid;
pub mod foreign;
pub mod gemini;
pub mod goose;
pub mod kilo;
pub mod kimi;
pub mod native;
pub mod opencode;
pub mod pi;
pub mod qwen;
pub mod row_title;
pub mod sqlite;
pub mod tools;
pub mod torn;
pub mod vibe;

/// A reason for skipping a file that is how an agent keeps its sessions,
/// not a problem to warn about: a sub-agent's log is part of its parent
/// session, an archived session is hidden by the agent itself, a legacy
/// copy is listed from the database. `--verbose`
/// counts these in one line each instead of a warning per file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoutineSkip {
    /// The skip reason the kind reports, exactly.
    pub reason: &'static str,
    /// What one such file is, for the count (`opencode sub-agent session`).
    pub one: &'static str,
    /// What several are (`opencode sub-agent sessions`).
    pub many: &'static str,
}

/// Every [`RoutineSkip`], in the order their counts are reported.
pub const ROUTINE_SKIPS: &[RoutineSkip] = &[
    RoutineSkip {
        reason: opencode::SUBAGENT,
        one: "opencode sub-agent session",
        many: "opencode sub-agent sessions",
    },
    RoutineSkip {
        reason: opencode::ARCHIVED,
        one: "archived opencode session",
        many: "archived opencode sessions",
    },
    RoutineSkip {
        reason: opencode::LEGACY_COPY,
        one: "legacy opencode file of a session in its database",
        many: "legacy opencode files of sessions in its database",
    },
    RoutineSkip {
        reason: kilo::SUBAGENT,
        one: "Kilo Code sub-agent session",
        many: "Kilo Code sub-agent sessions",
    },
    RoutineSkip {
        reason: kilo::ARCHIVED,
        one: "archived Kilo Code session",
        many: "archived Kilo Code sessions",
    },
    RoutineSkip {
        reason: crush::CHILD,
        one: "Crush child session (a sub-agent's or a title's)",
        many: "Crush child sessions (sub-agents' and titles')",
    },
    RoutineSkip {
        reason: cline::SUBAGENT,
        one: "Cline sub-agent session",
        many: "Cline sub-agent sessions",
    },
    RoutineSkip {
        reason: gemini::SUBAGENT,
        one: "Gemini CLI sub-agent chat",
        many: "Gemini CLI sub-agent chats",
    },
    RoutineSkip {
        reason: antigravity::TRUNCATED_COPY,
        one: "Antigravity CLI truncated transcript beside its full one",
        many: "Antigravity CLI truncated transcripts beside their full ones",
    },
    RoutineSkip {
        reason: antigravity::SUBAGENT,
        one: "Antigravity CLI sub-agent conversation",
        many: "Antigravity CLI sub-agent conversations",
    },
    RoutineSkip {
        reason: cursor::SUBAGENT,
        one: "Cursor CLI sub-agent transcript",
        many: "Cursor CLI sub-agent transcripts",
    },
    RoutineSkip {
        reason: goose::SUBAGENT,
        one: "Goose sub-agent session",
        many: "Goose sub-agent sessions",
    },
    RoutineSkip {
        reason: goose::INTERNAL,
        one: "Goose internal session",
        many: "Goose internal sessions",
    },
    RoutineSkip {
        reason: goose::LEGACY_COPY,
        one: "legacy Goose file of a session in its database",
        many: "legacy Goose files of sessions in its database",
    },
    RoutineSkip {
        reason: kimi::ARCHIVED,
        one: "archived Kimi CLI session",
        many: "archived Kimi CLI sessions",
    },
    RoutineSkip {
        reason: codex::REVIEW,
        one: "Codex review sub-agent rollout",
        many: "Codex review sub-agent rollouts",
    },
];

/// The index in [`ROUTINE_SKIPS`] of a skip `reason`, when it is routine.
pub fn routine_skip(reason: &str) -> Option<usize> {
    ROUTINE_SKIPS.iter().position(|r| r.reason == reason)
}
