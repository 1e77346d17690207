//! Opening the stores of one run: the ONE place every front-end (the
//! commands, the picker, the hooks, the MCP server) turns what it was
//! given into the caches and the catalog it lists from.
//!
//! Plain values in: the roots, the title index's directory (the program
//! decides it from `--no-cache` and the environment it read), the
//! directory ranking puts first, and the client of other machines when any
//! is asked. Nothing here reads the environment or reports what could not
//! be listed: the catalog says so (`skipped`, `unreadable`), the front-end
//! tells the person.

use std::path::PathBuf;
use std::sync::Arc;

use session_ref_core::candidates::Target;
use session_ref_stores::archive::Archive;
use session_ref_stores::remote::Remotes;
use session_ref_stores::{Caches, Catalog, StoreRoots};

use crate::engine::Engine;
use crate::limits::Limits;

/// The stores of one run and how to read them.
#[derive(Debug, Default)]
pub struct Stores {
    /// The store roots to list.
    pub roots: StoreRoots,
    /// Where the title index lives; `None` reads every log (`--no-cache`,
    /// or no cache directory).
    pub cache_dir: Option<PathBuf>,
    /// The working directory the run ranks from (its sessions first).
    pub cwd: Option<String>,
    /// The client of the other machines whose sessions are listed too;
    /// `None` when the run asks none.
    pub remotes: Option<Remotes>,
    /// session-ref's archive, listed after the stores (and, in its auto
    /// mode, kept with every listing); `None`: none.
    pub archive: Option<Archive>,
}

impl Stores {
    /// The stores under `roots`, read without an index, ranking from no
    /// directory, on this machine alone.
    pub fn new(roots: StoreRoots) -> Self {
        Stores {
            roots,
            ..Stores::default()
        }
    }

    /// With the title index in `dir` (`None`: none).
    pub fn cache_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.cache_dir = dir;
        self
    }

    /// Ranking from `cwd`.
    pub fn cwd(mut self, cwd: Option<String>) -> Self {
        self.cwd = cwd;
        self
    }

    /// Listing the sessions of `remotes` too (`None`: this machine's only).
    pub fn remotes(mut self, remotes: Option<Remotes>) -> Self {
        self.remotes = remotes;
        self
    }

    /// Listing (and keeping) through `archive` too (`None`: no archive).
    pub fn archive(mut self, archive: Option<Archive>) -> Self {
        self.archive = archive;
        self
    }

    /// The caches of the run, for a front-end that lists by itself (the
    /// picker streams its listing, search lists through its index): the
    /// title index, the ranking cwd, the remotes' client and the archive.
    pub fn caches(self) -> Caches {
        let mut caches = Caches::for_run(self.cache_dir.as_deref(), self.cwd.as_deref());
        if let Some(client) = self.remotes {
            caches = caches.with(client);
        }
        if let Some(archive) = self.archive {
            caches = caches.with(archive);
        }
        caches
    }

    /// List the stores now (blocking): the catalog of the run.
    pub fn catalog(mut self) -> Catalog {
        let roots = std::mem::take(&mut self.roots);
        Catalog::load_with(Arc::new(self.caches()), &roots)
    }

    /// List the stores now and make an engine over them.
    pub fn engine(self, limits: Limits, target: Target) -> Engine {
        Engine::new(Arc::new(self.catalog()), limits, target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use session_ref_stores::kinds::native;

    #[test]
    fn a_run_lists_its_roots_through_its_title_index() {
        let store = tempfile::tempdir().unwrap();
        let cache = tempfile::tempdir().unwrap();
        std::fs::write(
            store.path().join("a.jsonl"),
            "{\"type\":\"session\",\"version\":1,\"id\":\"a\",\"createdAt\":\"2025-01-01T00:00:00Z\",\"cwd\":\"/w\"}\n{\"seq\":1,\"type\":\"session/title\",\"data\":{\"title\":\"Alpha\"}}\n",
        )
        .unwrap();
        let roots = StoreRoots::new().with(native::KIND, store.path());
        let open = || {
            Stores::new(roots.clone())
                .cache_dir(Some(cache.path().to_owned()))
                .cwd(Some("/w".into()))
        };
        let caches = open().caches();
        assert!(caches
            .get::<session_ref_stores::index::title::TitleIndex>()
            .enabled());
        assert_eq!(
            caches.get::<session_ref_stores::TargetCwd>().0.as_deref(),
            Some("/w")
        );
        let engine = open().engine(Limits::default(), Target::default());
        assert_eq!(engine.catalog.len(), 1);
        assert_eq!(engine.default_label("a"), "Alpha");
        // Without an index, the same listing.
        let plain = Stores::new(roots.clone()).catalog();
        assert_eq!(plain.get(0).id, "a");
    }
}
