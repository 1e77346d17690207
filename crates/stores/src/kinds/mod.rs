//! One module per agent, each a unit type implementing [`Store`](crate::Store)
//! and a `KIND` handle registered in [`REGISTRY`](crate::REGISTRY):
//! [`native`] (Hydra's own logs), [`claude`] (Claude Code), [`codex`]
//! (Codex CLI), [`gemini`] (Gemini CLI). [`foreign`] holds what the readers
//! of other agents' JSONL logs share.
//!
//! Adding an agent is one new module here implementing the trait, plus one
//! line in the registry.

pub mod claude;
pub mod codex;
pub mod copilot;
pub mod foreign;
pub mod gemini;
pub mod native;
pub mod opencode;
pub mod pi;
pub mod qwen;
