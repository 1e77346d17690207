//! Kilo Code CLI sessions (npm `@kilocode/cli`, the `kilo` command): a fork
//! of opencode that keeps opencode's database under its own names, read by
//! the opencode reader ([`Family`]) with Kilo's paths, variables
//! and schema facts.
//!
//! Followed: Kilo Code CLI 7.7.7, run offline against the mock model
//! (`../shared/spec/formats/kilo.md`: `run`, `-c`, `-s`, `--fork`,
//! `--title`, `-f`, `@file`, piped stdin, a `task` sub-agent, automatic
//! and `/compact` compaction, `/rename`, `/fork`), and Kilo's own source,
//! `Kilo-Org/kilocode` `packages/opencode/src/session/session.sql.ts`
//! (commit `18369fa08ad4d1d9939c643d2dfee0eeefadb30d`) and
//! `session/compaction.ts` (`02bc3f2126348148b50e49c581641c9123eeb05c`),
//! read through the `search` tool.
//!
//! # Where the sessions are
//!
//! A root (`--kilo DIR`) is Kilo's data directory, `$XDG_DATA_HOME/kilo`,
//! else `~/.local/share/kilo`, holding `kilo.db` (WAL mode); or one
//! database file. `$KILO_DB` moves the database (absolute, or relative to
//! the data directory). Other release channels write `kilo-<channel>.db`,
//! or go on with an `opencode-<channel>.db` already there: all are read.
//! Kilo has no legacy JSON sessions (its `storage/` folder holds only
//! `session_diff/`, file diffs), so no `storage/` is read.
//!
//! # What differs from opencode
//!
//! - The `session` table keeps opencode's columns and adds Kilo's
//!   (`current_state`, `recent_progress`; 7.7.7 also has `path`, `agent`,
//!   `model`); the columns read are opencode's ([`db::SESSION_REQUIRED`]),
//!   so the added ones change nothing. `message` and `part` are opencode
//!   1.x's, their JSON the same (`summary: true` marks a compaction's
//!   summary in Kilo's `compaction.ts` as in opencode).
//! - Kilo's `session_message` table was empty in every 7.7.7 session run
//!   here; when it holds rows of the columns read it is read as opencode
//!   2.x's (assumed, not seen).
//! - After an automatic compaction Kilo adds a user message whose parts
//!   are all `synthetic` (the replayed prompt, a `<system-reminder>` that
//!   the agent changed): not what the person typed, as opencode's
//!   synthetic parts are not.
//!
//! Everything else is opencode's rule, and the same code: the title
//! (`session.title` unless still `New session - <ISO time>`, which every
//! `kilo run` session keeps without `--title`; then the first prompt, as
//! stored: `run` wraps an argument holding a space in double quotes),
//! sub-agents (`parent_id` set) and archived sessions skipped, forks
//! (`parent_id` NULL, `<title> (fork #1)`) listed as sessions of their
//! own, the synthetic parts of `@file`/`-f`, compaction, undo.

use crate::kinds::opencode::{db, Family};
use crate::model::StoreKind;

/// Why a Kilo sub-agent session is not listed.
pub(crate) const SUBAGENT: &str = "Kilo Code sub-agent session (part of its parent session)";
/// Why an archived Kilo session is not listed.
pub(crate) const ARCHIVED: &str = "archived in Kilo Code (its session list hides it)";

/// Kilo's database, for the reasons a reader gives.
const DIALECT: db::Dialect = db::Dialect {
    product: "Kilo Code",
    newest_known: "20260423164316_add_session_metadata_fields",
    follows: "Kilo Code CLI 7.7.7",
};

/// The Kilo Code CLI member of the opencode family.
pub const KILO: Family = Family {
    name: "kilo",
    origin: "Kilo Code CLI",
    root_help: "Kilo Code CLI data directory (holding kilo.db; \
                $XDG_DATA_HOME/kilo when set) or database file",
    app: "kilo",
    db_var: "KILO_DB",
    channels: &["kilo-", "opencode-"],
    legacy: false,
    dialect: &DIALECT,
    subagent: SUBAGENT,
    archived: ARCHIVED,
    kind: || KIND,
};

/// The registry handle of [`KILO`].
pub const KIND: StoreKind = StoreKind::new(&KILO);

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::store::Store;

    #[test]
    fn default_roots_follow_kilo_db_and_xdg() {
        let home = Some(Path::new("/home/u"));
        let none = |_: &str| None;
        assert_eq!(
            KILO.default_roots(&none, home),
            [PathBuf::from("/home/u/.local/share/kilo")]
        );
        let xdg = |k: &str| (k == "XDG_DATA_HOME").then(|| "/x".to_owned());
        assert_eq!(KILO.default_roots(&xdg, home), [PathBuf::from("/x/kilo")]);
        let absolute = |k: &str| (k == "KILO_DB").then(|| "/db/k.db".to_owned());
        assert_eq!(
            KILO.default_roots(&absolute, home),
            [PathBuf::from("/db/k.db")]
        );
        let relative = |k: &str| (k == "KILO_DB").then(|| "dev.db".to_owned());
        assert_eq!(
            KILO.default_roots(&relative, home),
            [PathBuf::from("/home/u/.local/share/kilo/dev.db")]
        );
        let opencode = |k: &str| (k == "OPENCODE_DB").then(|| "/db/o.db".to_owned());
        assert_eq!(
            KILO.default_roots(&opencode, home),
            [PathBuf::from("/home/u/.local/share/kilo")]
        );
    }

    #[test]
    fn the_names_and_reasons_are_kilos() {
        assert_eq!((KILO.name(), KILO.flag()), ("kilo", "kilo"));
        assert_ne!(SUBAGENT, crate::kinds::opencode::SUBAGENT);
        assert_ne!(ARCHIVED, crate::kinds::opencode::ARCHIVED);
        assert_eq!(KIND.as_str(), "kilo");
    }
}
