//! The effects the loop hands to rayon's pool: previews, resume plans,
//! exports, the search index's warm-up, conversation search (local and
//! remote) and preparing the output. Each posts its result as a [`Msg`].

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use ratatui::backend::Backend;

use super::search::{search_records, search_remote};
use super::{spawn_job, Driver, Host, Msg, Warm};
use crate::config::PickFormat;
use crate::error::Error;
use crate::tui::model::ExportFailure;
use crate::tui::preview::{PreviewKey, Snapshot};
use crate::tui::remote_search::RemoteAsk;
use session_ref_core::export::{self, ExportFormat};
use session_ref_core::uri;
use session_ref_engine::engine::{render_jsonl, render_text, Engine};
use session_ref_engine::rank::EntryId;
use session_ref_stores::model::SessionRecord;

impl<B: Backend, H: Host> Driver<B, H> {
    /// Compute a preview in a job with `Engine::preview`, exactly as
    /// `session-ref preview ID --label L` does. Before discovery ends, the
    /// engine reads the highlighted record alone (a subset of the catalog
    /// sharing its caches). A request whose candidate is no longer
    /// highlighted when its turn comes is dropped.
    pub(super) fn load_preview(&self, key: PreviewKey, record: SessionRecord) {
        let engine = self.engine_for(record);
        let wanted = Arc::clone(&self.wanted);
        spawn_job(self.tx.clone(), move |tx| {
            if *wanted.lock().unwrap_or_else(|e| e.into_inner()) != Some(key.clone()) {
                let _ = tx.send(Msg::PreviewDropped(key));
                return;
            }
            let budget = engine.limits.max_reference_bytes;
            let result = engine
                .preview(&uri::encode(&key.session_id), Some(&key.label))
                .map(|context| Snapshot::new(context, budget))
                .map_err(crate::error::Error::from);
            let _ = tx.send(Msg::Preview(key, result));
        });
    }

    /// The engine over every session once discovery has ended; before,
    /// over `record` alone (a subset of the catalog sharing its caches).
    pub(super) fn engine_for(&self, record: SessionRecord) -> Engine {
        self.engine.clone().unwrap_or_else(|| {
            let catalog = self.state.catalog().subset([record]);
            Engine::new(Arc::new(catalog), self.limits, self.target.clone())
        })
    }

    /// Plan a resume or hand-off in a job ([`crate::launch::plan_for`],
    /// as `session-ref resume`/`handoff` plan it), agents looked up on
    /// `$PATH`.
    pub(super) fn plan_launch(&self, record: SessionRecord, launch: crate::launch::Launch) {
        let engine = self.engine_for(record.clone());
        spawn_job(self.tx.clone(), move |tx| {
            let path = std::env::var_os("PATH");
            let plan = crate::launch::plan_for(&engine, &record, &launch, path.as_deref());
            let _ = tx.send(Msg::Planned(plan));
        });
    }

    /// Write the export `alt-x` asked for off the UI thread (see
    /// [`export_to`]).
    pub(super) fn export(
        &self,
        record: SessionRecord,
        path: PathBuf,
        format: ExportFormat,
        overwrite: bool,
    ) {
        let engine = self.engine_for(record.clone());
        spawn_job(self.tx.clone(), move |tx| {
            let result = export_to(&engine, &record.id, format, &path, overwrite);
            let _ = tx.send(Msg::Exported(result));
        });
    }

    /// Once listing is done, bring the search index up to date in the
    /// background at the lowest priority ([`crate::search::warm`]), so the
    /// first conversation search answers from it. Stopped by a
    /// conversation search (which reads the logs it needs itself) and
    /// started again when the latest search ends; stopped when the picker
    /// ends.
    pub(super) fn warm_search_index(&mut self) {
        let Some(dir) = self.state.search_index() else {
            return;
        };
        if matches!(self.warm, Warm::Running(_) | Warm::Done) {
            return;
        }
        let cancel = Arc::new(AtomicBool::new(false));
        self.warm = Warm::Running(Arc::clone(&cancel));
        let tx = self.tx.clone();
        crate::search::warm::spawn(
            Arc::clone(self.state.catalog()),
            dir.to_path_buf(),
            cancel,
            move |warmed| {
                let _ = tx.send(Msg::IndexWarmed(warmed));
            },
        );
    }

    pub(super) fn stop_warming(&mut self) {
        if let Warm::Running(cancel) = &self.warm {
            cancel.store(true, Ordering::Relaxed);
            self.warm = Warm::Stopped;
        }
    }

    pub(super) fn cancel_search(&mut self) {
        if let Some(cancel) = self.search_cancel.take() {
            cancel.store(true, Ordering::Relaxed);
        }
    }

    /// Run a conversation search in a job (stopping the previous one),
    /// posting each match as it is decided.
    pub(super) fn search(
        &mut self,
        generation: u64,
        query: String,
        records: Vec<(EntryId, SessionRecord)>,
    ) {
        self.cancel_search();
        self.stop_warming();
        self.search_generation = Some(generation);
        let cancel = Arc::new(AtomicBool::new(false));
        self.search_cancel = Some(Arc::clone(&cancel));
        let caches = Arc::clone(self.state.catalog().caches());
        let index = self.state.search_index().map(Path::to_path_buf);
        spawn_job(self.tx.clone(), move |tx| {
            let mut emit = |id, found| tx.send(Msg::SearchFound(generation, id, found)).is_ok();
            let result = search_records(
                &caches,
                index.as_deref(),
                &query,
                &records,
                &cancel,
                &mut emit,
            );
            let _ = tx.send(Msg::SearchDone(generation, result));
        });
    }

    /// Ask one remote to search (its answer posted as
    /// [`Msg::RemoteSearched`]) on a plain thread of its own: the answer may
    /// take up to the client's deadlines, and a slow host must hold no
    /// rayon thread (previews, titles and the local search run there). The
    /// state sends at most one per host at a time.
    pub(super) fn search_remote(&self, ask: RemoteAsk) {
        let remotes = self
            .state
            .catalog()
            .caches()
            .get::<session_ref_stores::remote::Remotes>();
        let tx = self.tx.clone();
        let job = ask.clone();
        let spawned = std::thread::Builder::new()
            .name("remote-search".to_owned())
            .spawn(move || {
                let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    search_remote(&remotes, &job)
                }))
                .unwrap_or_else(|_| Err(format!("{}: the search failed", job.host)));
                let _ = tx.send(Msg::RemoteSearched(job, answer));
            });
        if let Err(e) = spawned {
            let why = format!("{}: cannot start a search: {e}", ask.host);
            let _ = self.tx.send(Msg::RemoteSearched(ask, Err(why)));
        }
    }

    /// Prepare with `Engine::prepare_text`, exactly as `session-ref prepare
    /// TEXT` does, and render in `format`.
    pub(super) fn prepare(&self, text: String, format: PickFormat) {
        let Some(engine) = self.engine.clone() else {
            let _ = self.tx.send(Msg::Prepared(Err(Error::internal(
                "prepare was asked for while sessions were still being discovered",
            ))));
            return;
        };
        spawn_job(self.tx.clone(), move |tx| {
            let result = engine.prepare_text(&text).map(|messages| match format {
                PickFormat::Jsonl => render_jsonl(&messages),
                PickFormat::Text | PickFormat::Mention => render_text(&messages),
            });
            let _ = tx.send(Msg::Prepared(result.map_err(crate::error::Error::from)));
        });
    }
}

/// The picker's export: the session `id`'s conversation in `format`
/// written to `path` as `export --output` writes it
/// ([`crate::commands::write_export`]); an existing `path` (a link too)
/// only when `overwrite`.
fn export_to(
    engine: &Engine,
    id: &str,
    format: ExportFormat,
    path: &Path,
    overwrite: bool,
) -> std::result::Result<PathBuf, ExportFailure> {
    if !overwrite && path.symlink_metadata().is_ok() {
        return Err(ExportFailure::Exists(path.to_path_buf()));
    }
    let failed = |why: String| ExportFailure::Failed(why);
    let (header, messages) = engine.export(id, None, false).map_err(|e| {
        failed(
            crate::error::Error::from(e)
                .message_for_person()
                .into_owned(),
        )
    })?;
    crate::commands::write_export(path, &export::export(&header, &messages, format))
        .map_err(|e| failed(e.to_string()))?;
    Ok(path.to_path_buf())
}
