//! The archive on native stores: kept sessions stay listed and read the
//! same once deleted, copies are incremental and deduplicated, the bound
//! holds, and a damaged manifest is never written over.

use std::path::Path;
use std::sync::Arc;

use super::*;
use crate::catalog::Catalog;
use crate::kinds::native;

/// A native session `id` saying `text`.
fn session(dir: &Path, id: &str, text: &str) {
    let lines = [
        format!("{{\"type\":\"session\",\"version\":1,\"id\":\"{id}\",\"createdAt\":\"2025-01-01T00:00:00Z\",\"cwd\":\"/w\"}}"),
        format!("{{\"seq\":1,\"type\":\"user/message\",\"data\":{{\"id\":\"u\",\"source\":{{\"kind\":\"user\"}},\"content\":[{{\"type\":\"text\",\"text\":\"{text}\"}}]}}}}"),
        format!("{{\"seq\":2,\"type\":\"session/title\",\"data\":{{\"title\":\"T {id}\"}}}}"),
    ];
    std::fs::write(dir.join(format!("{id}.jsonl")), lines.join("\n") + "\n").unwrap();
}

fn catalog(store: &Path, archive: Archive) -> Catalog {
    let roots = StoreRoots::new().with(native::KIND, store);
    Catalog::load_with(Arc::new(Caches::default().with(archive)), &roots)
}

/// The records of `store` listed without an archive.
fn listed(store: &Path) -> Vec<crate::model::SessionRecord> {
    catalog(store, Archive::default())
        .ordered()
        .cloned()
        .collect()
}

/// A store of session `a`, kept in the archive `dir`: (store, the
/// archive's parent, dir, the records kept).
fn kept_alpha() -> (
    tempfile::TempDir,
    tempfile::TempDir,
    std::path::PathBuf,
    Vec<crate::model::SessionRecord>,
) {
    let store = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let dir = data.path().join("archive");
    session(store.path(), "a", "alpha");
    let records = listed(store.path());
    Archive::new(dir.clone()).keep(&records).unwrap();
    (store, data, dir, records)
}

fn ids(catalog: &Catalog) -> Vec<(String, bool)> {
    let mut ids: Vec<_> = catalog
        .ordered()
        .map(|r| (r.id.clone(), r.archived))
        .collect();
    ids.sort();
    ids
}

#[test]
fn a_kept_session_deleted_from_its_store_stays_listed_archived_and_reads_the_same() {
    let store = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let dir = data.path().join("archive");
    session(store.path(), "a", "alpha");
    session(store.path(), "b", "beta");
    let live = catalog(store.path(), Archive::new(dir.clone()));
    let before = live.read_surface(live.find("a").unwrap()).unwrap();
    let records: Vec<_> = live.ordered().cloned().collect();
    let report = Archive::new(dir.clone()).keep(&records).unwrap();
    assert_eq!(
        (report.kept, report.copied, report.archived_only),
        (2, 2, 0)
    );
    // Unchanged: nothing copied again.
    let again = Archive::new(dir.clone()).keep(&records).unwrap();
    assert_eq!((again.copied, again.unchanged), (0, 2));

    std::fs::remove_file(store.path().join("a.jsonl")).unwrap();
    let after = catalog(store.path(), Archive::new(dir.clone()));
    assert_eq!(ids(&after), [("a".into(), true), ("b".into(), false)]);
    let archived = after.find("a").unwrap();
    assert_eq!(after.read_surface(archived).unwrap(), before);
    assert_eq!(after.read_title(archived).unwrap().as_deref(), Some("T a"));
    assert!(
        archived.path.starts_with(&dir),
        "read from the archive's view"
    );
    // A session in both is listed once, the live one.
    assert!(!after.find("b").unwrap().archived);
    // Without the archive, the store alone.
    assert_eq!(
        ids(&catalog(store.path(), Archive::default())),
        [("b".into(), false)]
    );
    // Another root's runs do not list it.
    let other = tempfile::tempdir().unwrap();
    assert!(catalog(other.path(), Archive::new(dir.clone())).is_empty());
    // The report counts it as the archive's alone.
    let live_now: Vec<_> = after.ordered().filter(|r| !r.archived).cloned().collect();
    let report = Archive::new(dir.clone()).keep(&live_now).unwrap();
    assert_eq!((report.kept, report.archived_only), (1, 1));
    assert!(Archive::new(dir.clone()).purge().unwrap());
    assert!(!dir.exists());
    assert_eq!(
        ids(&catalog(store.path(), Archive::new(dir))),
        [("b".into(), false)]
    );
}

#[test]
fn copies_are_deduplicated_incremental_and_bounded() {
    let store = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let dir = data.path().join("archive");
    session(store.path(), "a", "same");
    std::fs::copy(
        store.path().join("a.jsonl"),
        store.path().join("copy.jsonl"),
    )
    .unwrap();
    let records = listed(store.path());
    assert_eq!(records.len(), 2, "the same id twice, two files");
    Archive::new(dir.clone()).keep(&records).unwrap();
    let blobs = std::fs::read_dir(dir.join(blobs::DIR)).unwrap().count();
    assert_eq!(blobs, 1, "the same bytes are stored once");
    // A changed file is copied again; the old copy goes.
    session(store.path(), "a", "changed, and longer than before");
    let report = Archive::new(dir.clone()).keep(&records).unwrap();
    assert_eq!((report.copied, report.unchanged), (1, 1));
    assert_eq!(std::fs::read_dir(dir.join(blobs::DIR)).unwrap().count(), 2);
    // A bound too small for a new copy: sessions in their store are
    // dropped first, and what does not fit is not kept.
    session(store.path(), "c", "another");
    let records = listed(store.path());
    let tiny = Archive::new(dir.clone()).with_max_bytes(1);
    let report = tiny.keep(&records).unwrap();
    assert!(report.stored_bytes <= 1, "{report:?}");
    // Both old copies dropped for the new ones, which still do not fit.
    assert_eq!(
        (report.kept, report.not_kept, report.evicted),
        (0, 2, 2),
        "{report:?}"
    );
}

#[test]
fn a_damaged_manifest_is_reported_and_never_written_over() {
    let (store, _data, dir, records) = kept_alpha();
    let manifest = dir.join(manifest::FILE);
    let mut bytes = std::fs::read(&manifest).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&manifest, &bytes).unwrap();
    let err = Archive::new(dir.clone()).keep(&records).unwrap_err();
    assert!(err.message.contains("damaged"), "{err}");
    assert_eq!(std::fs::read(&manifest).unwrap(), bytes, "left as it was");
    let listed = catalog(store.path(), Archive::new(dir.clone()));
    assert_eq!(listed.unreadable.len(), 1);
    // purge refuses a folder holding what the archive never writes.
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();
    assert!(Archive::new(dir.clone()).purge().is_err());
    assert!(dir.join("notes.txt").exists());
}

#[test]
fn a_failed_write_keeps_everything_archived_before_and_says_why() {
    let (store, _data, dir, _) = kept_alpha();
    let manifest = std::fs::read(dir.join(manifest::FILE)).unwrap();
    // The blob folder cannot be written (as on a full disk; a real full
    // disk is tests/it/keep.rs's): a file stands where it should be.
    let blobs = dir.join(blobs::DIR);
    let aside = dir.join("blobs-aside");
    std::fs::rename(&blobs, &aside).unwrap();
    std::fs::write(&blobs, "not a folder").unwrap();
    session(store.path(), "b", "beta");
    let both = listed(store.path());
    let err = Archive::new(dir.clone()).keep(&both).unwrap_err();
    std::fs::remove_file(&blobs).unwrap();
    std::fs::rename(&aside, &blobs).unwrap();
    assert!(
        err.message.contains("nothing archived before was lost"),
        "{err}"
    );
    assert_eq!(std::fs::read(dir.join(manifest::FILE)).unwrap(), manifest);
    std::fs::remove_file(store.path().join("a.jsonl")).unwrap();
    let listed = catalog(store.path(), Archive::new(dir));
    assert!(listed.find("a").unwrap().archived);
}
