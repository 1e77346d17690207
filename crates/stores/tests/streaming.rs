//! Streaming retention over real store kinds: every session of the
//! project's fixtures (native, Claude Code, Codex), folded while read,
//! retains exactly what its whole surface retains.

use std::path::Path;

use session_ref_core::projection::project;
use session_ref_core::retention::{retain, SourceFields};
use session_ref_core::streaming::RetainingSink;
use session_ref_stores::kinds::{claude, codex, native};
use session_ref_stores::{Catalog, StoreRoots};

#[test]
fn every_store_kind_streams_what_its_whole_surface_retains() {
    // The repository's fixtures and demo store.
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let fixtures = here.join("tests/fixtures");
    let roots = StoreRoots::new()
        .with(native::KIND, here.join("assets/demo"))
        .with(claude::KIND, fixtures.join("claude/projects"))
        .with(codex::KIND, fixtures.join("codex/sessions"));
    let catalog = Catalog::load(&roots);
    let mut kinds = std::collections::BTreeSet::new();
    for record in catalog.ordered() {
        let Ok(surface) = catalog.read_surface(record) else {
            continue;
        };
        kinds.insert(record.kind.as_str());
        for max in [200, 700, 4_000, 65_536] {
            let mut streamed = RetainingSink::new(max);
            let last = catalog.fold_surface(record, &mut streamed).unwrap();
            assert_eq!(last, surface.captured_through_seq, "{:?}", record.path);
            let fields = SourceFields {
                session_id: "s",
                label: "L",
                cwd: Some("/w"),
                captured_through_seq: last,
            };
            let whole = retain(fields, &project(&surface), max).ok();
            assert_eq!(
                streamed.finish(fields).ok(),
                whole,
                "{:?} {max}",
                record.path
            );
        }
    }
    assert_eq!(kinds.len(), 3, "{kinds:?}");
}
