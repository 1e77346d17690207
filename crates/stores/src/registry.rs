//! The one table of store kinds ([`REGISTRY`]) and the lookups by flag and
//! by name: the only place that names every kind. Adding an agent is one
//! file in `kinds/` and one row here. Above the kinds (it imports each
//! one's `KIND`); nothing a kind imports comes from here.

use crate::kinds::{
    aider, amp, antigravity, claude, cline, codex, continue_cli, copilot, crush, cursor, droid,
    gemini, goose, kilo, kimi, native, opencode, pi, qwen, vibe,
};
use crate::model::StoreKind;

/// Every store kind, in the order roots are read and flags are listed.
pub static REGISTRY: &[StoreKind] = &[
    native::KIND,
    claude::KIND,
    codex::KIND,
    gemini::KIND,
    pi::KIND,
    qwen::KIND,
    copilot::KIND,
    opencode::KIND,
    antigravity::KIND,
    cursor::KIND,
    cline::KIND,
    kilo::KIND,
    droid::KIND,
    crush::KIND,
    goose::KIND,
    continue_cli::KIND,
    kimi::KIND,
    vibe::KIND,
    amp::KIND,
    aider::KIND,
];

/// The registered kind whose flag is `flag`.
pub fn kind_by_flag(flag: &str) -> Option<StoreKind> {
    REGISTRY.iter().copied().find(|k| k.store().flag() == flag)
}

/// The registered kind named `name`.
pub fn kind_by_name(name: &str) -> Option<StoreKind> {
    REGISTRY.iter().copied().find(|k| k.as_str() == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_names_each_kind_and_flag_once() {
        let names: Vec<&str> = REGISTRY.iter().map(|k| k.as_str()).collect();
        let flags: Vec<&str> = REGISTRY.iter().map(|k| k.store().flag()).collect();
        assert_eq!(
            names,
            [
                "hydra",
                "claude",
                "codex",
                "gemini",
                "pi",
                "qwen",
                "copilot",
                "opencode",
                "antigravity",
                "cursor",
                "cline",
                "kilo",
                "droid",
                "crush",
                "goose",
                "continue",
                "kimi",
                "vibe",
                "amp",
                "aider"
            ]
        );
        assert_eq!(
            flags,
            [
                "store",
                "claude",
                "codex",
                "gemini",
                "pi",
                "qwen",
                "copilot",
                "opencode",
                "antigravity",
                "cursor",
                "cline",
                "kilo",
                "droid",
                "crush",
                "goose",
                "continue",
                "kimi",
                "vibe",
                "amp",
                "aider"
            ]
        );
        assert_eq!(kind_by_flag("store"), Some(native::KIND));
        assert_eq!(kind_by_name("codex"), Some(codex::KIND));
    }
}
