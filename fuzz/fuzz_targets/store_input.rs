//! Shared by the line-parser targets: write the input as a one-file store
//! of a kind, list it, and read every record's title and surface (every
//! line parser of the format runs). Only panics and hangs are findings.

use std::path::PathBuf;

use session_ref_stores::{kind_by_name, Catalog, StoreRoots};

/// A directory of this process's own, in memory when `/dev/shm` exists.
fn scratch() -> PathBuf {
    let base = if std::path::Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    base.join(format!("session-ref-fuzz-{}", std::process::id()))
}

/// List `data` as the file `relative` under a store root of `kind`.
pub fn list(data: &[u8], kind: &str, relative: &str) {
    let root = scratch();
    let file = root.join(relative);
    std::fs::create_dir_all(file.parent().expect("a parent")).expect("scratch directory");
    std::fs::write(&file, data).expect("scratch file");
    let store = kind_by_name(kind).expect("a registered kind");
    let catalog = Catalog::load(&StoreRoots::new().with(store, root));
    for record in catalog.ordered() {
        let _ = catalog.read_title(record);
        let _ = catalog.read_surface(record);
    }
}
