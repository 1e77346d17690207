//! session-ref-stores: read coding agents' session logs (native Hydra,
//! Claude Code, Codex, Gemini CLI) into one model, read-only.
//!
//! One interface ([`Store`]), one registry of store kinds ([`REGISTRY`]),
//! one shared scan, and the [`Catalog`] every reader of sessions goes
//! through: list the sessions under some roots, then read any one's title,
//! folded conversation ([`model::Surface`]) or whole history. The
//! conversation model and its semantics come from `session-ref-core`.
//!
//! ```no_run
//! use session_ref_stores::{Catalog, StoreRoots};
//!
//! // Every agent's default location (from HOME and each agent's variables).
//! let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
//! let roots = StoreRoots::default_locations(|name| std::env::var(name).ok(), home.as_deref());
//! let catalog = Catalog::load(&roots.existing());
//! for record in catalog.ordered().take(5) {
//!     let title = catalog.read_title(record).ok().flatten();
//!     println!("{} {} {}", record.kind, record.id, title.unwrap_or_default());
//! }
//! ```
//!
//! The crate is laid out in layers, each importing only those below it:
//!
//! - the base every kind imports, each from its defining module (never
//!   through these re-exports): `store` (the [`Store`] trait, [`Env`],
//!   [`env_or_home`], and the types that name it and that it names:
//!   [`StoreKind`], [`model::SessionRecord`], [`ScanEvent`], with
//!   [`walk_files`] and [`has_suffix`]), `error` ([`ReadError`]), `caches`
//!   ([`Caches`], [`TargetCwd`], [`normalize_dir`], [`modified_secs`], the
//!   `lock` helper) and [`model`] (the core's conversation model, the
//!   record order);
//! - [`kinds`]: one module per agent, each a unit type implementing
//!   [`Store`];
//! - `registry`: [`REGISTRY`], the one table of kinds, with
//!   [`kind_by_flag`] and [`kind_by_name`] (no kind imports it);
//! - `roots`: [`StoreRoots`] in registry order, default discovery and its
//!   `--help` spelling, [`unusable_root`];
//! - [`remote`]: sessions of other machines;
//! - `catalog`: the [`Catalog`], discovery over roots and remote hosts
//!   ([`scan()`]), [`reader_of`], [`read_title`] and [`last_activity`]
//!   through the title index;
//! - `session-ref-jsonl` (a crate of its own): the JSONL line reader and
//!   the SIMD scanner that reads log lines without building a JSON tree;
//! - [`index`]: the title index (listing without reading logs again) and the
//!   journals that let a fold resume where it stopped;
//! - [`search`]: the searchable text of a session and the search index kept
//!   in the user's cache directory.
//!
//! Stores are only ever opened for reading; the indexes are written to a
//! cache directory of their own, atomically.
//!
//! # The interface: a trait over unit types, and a registry
//!
//! Each kind of store (native `hydra`, `claude`, `codex`, …) is one file
//! holding a unit type that implements [`Store`]: its name and flag, its
//! default roots from the environment, how to list the files under a root,
//! how to read a title and how to fold a surface. All readers have the one
//! signature of the trait: `(&Caches, &SessionRecord) -> Result<_, ReadError>`.
//!
//! A trait object, rather than an enum with one `match` per operation, is
//! the choice because the set of kinds must be open at one point only:
//! [`REGISTRY`], the table of kinds. The registry drives discovery
//! ([`StoreRoots::default_locations`], [`scan`]), the command-line flags
//! (`--store`, `--claude`, `--codex`: each kind's [`Store::flag`]), the
//! `--verbose` report and the "no sessions found" hint. A [`StoreKind`] is a
//! copyable handle to a registered store, compared by name. Adding an agent
//! is one new file implementing [`Store`] plus one line in [`REGISTRY`];
//! its flag follows from the entry.
//!
//! # State
//!
//! Per-kind caches (file facts keyed by path, length and modification time)
//! live in a [`Caches`] owned by the catalog, not in statics: two catalogs
//! (two tests, two stores) never see each other's cached facts, and a
//! catalog's caches go away with it.
//!
//! # Locks
//!
//! Stores are read on rayon's pool, and a thread that waits in rayon's
//! `join` (under `par_iter`, `scope`, `install`) runs other queued tasks on
//! its own stack meanwhile. So the rules for every lock in the readers and
//! their caches, which this section is the one statement of:
//!
//! 1. No lock guard, and no `OnceLock` being initialised, is held across a
//!    call that may run rayon work. Such a task could take the same lock
//!    on the same thread (std's `Mutex` is not reentrant), or wait for it
//!    while its holder waits for the task buried beneath it: a deadlock.
//! 2. A lock is held only to look up, insert or merge values in a map
//!    ([`Caches`]' slots, `FileCache` entries, Claude Code's folder
//!    summaries, the title index's shards, changes and fingerprints,
//!    Gemini CLI's scanned roots); reading files happens outside it, or in
//!    a `OnceLock` initialiser that does no parallel work.
//! 3. Work that needs the result of a parallel read (Claude Code's
//!    folder summaries) reads without the lock, then re-takes it to merge,
//!    accepting that two threads may read the same files once each.
//!
//! Guards are taken with `lock`, which also recovers from poisoning.

#![warn(missing_docs)]

pub mod archive;
pub mod index;
pub mod kinds;
pub mod model;
pub mod private;
pub mod remote;
pub mod search;

// The base every kind imports (nothing of the crate above it), then the
// registry and what reads through it. Private modules: the API is these
// re-exports at the crate root.
mod caches;
mod catalog;
mod error;
mod registry;
mod roots;
mod store;

pub use caches::{modified_secs, normalize_dir, Caches, KnownCwds, TargetCwd};
pub use catalog::{last_activity, read_title, reader_of, scan, Catalog, RecordId, RootTally};
pub use error::ReadError;
pub use model::StoreKind;
pub use registry::{kind_by_flag, kind_by_name, REGISTRY};
pub use roots::{default_roots_help, unusable_root, StoreRoots};
pub use store::{env_or_home, has_suffix, walk_files, Env, ScanEvent, Store, SYMLINK};
