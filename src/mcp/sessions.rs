//! The sessions the MCP server answers from: the engine's live listing
//! ([`session_ref_engine::listing`]), opened from the server's validated
//! flags and kept fresh in the background. What a listing holds and how it
//! is refreshed is the engine's; this module says where it comes from, and
//! warms the search index from the first listing.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crate::config::Config;
use crate::error::Result;
use session_ref_engine::listing::Live;
pub use session_ref_engine::listing::{Listing, FRESH_FOR};
use session_ref_engine::SessionArg;

/// Where the server's sessions come from (the validated global flags).
#[derive(Debug, Clone)]
pub struct Source {
    /// The validated global flags: stores, `--cwd`, `--session`, limits
    /// (the byte budget is per call), the title index's directory.
    pub config: Config,
    /// The search index's directory (`None`: searches read the logs).
    pub search_index: Option<std::path::PathBuf>,
}

/// The server's listing, refreshed in the background.
#[derive(Debug)]
pub struct Sessions {
    source: Source,
    live: Arc<Live>,
}

impl Sessions {
    /// Sessions of `source`, not listed yet: call [`Sessions::warm`].
    pub fn new(source: Source) -> Arc<Sessions> {
        let config = source.config.clone();
        let live = Live::new(!config.remotes.hosts.is_empty(), move |remotes| {
            let none = crate::config::remotes::RemoteSettings::default();
            let hosts = if remotes { &config.remotes } else { &none };
            let stores = crate::commands::stores(&config, config.target.cwd.as_deref(), hosts);
            Listing::load(stores, config.limits, config.target.clone())
        });
        Arc::new(Sessions { source, live })
    }

    /// Where the sessions come from.
    pub fn source(&self) -> &Source {
        &self.source
    }

    /// Start the first listing on rayon's pool, then warm the search index
    /// from it at the lowest priority.
    pub fn warm(&self) {
        let index = self.source.search_index.clone();
        self.live.warm(move |listing| {
            if let Some(dir) = index {
                let cancel = Arc::new(AtomicBool::new(false));
                crate::search::warm::spawn(listing.engine.catalog.clone(), dir, cancel, |_| {});
            }
        });
    }

    /// The current listing, waiting for the first one; a reload is started
    /// in the background when it is older than [`FRESH_FOR`].
    pub fn listing(&self) -> Arc<Listing> {
        self.live.listing()
    }

    /// What the session argument `arg` names (the engine's one rule) and a
    /// listing that knows it when any does.
    pub fn resolve(&self, arg: &str) -> Result<(Arc<Listing>, SessionArg)> {
        Ok(self.live.resolve(arg)?)
    }
}
