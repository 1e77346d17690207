//! The per-kind caches a catalog owns ([`Caches`]), the one lock helper
//! every cache takes its guards with (see "Locks" in the crate docs), the
//! run's working directory ([`TargetCwd`]) and a file's modification
//! time, the fallback of every kind's last activity. Base of the crate:
//! it imports nothing of it. (The caches of one run, with the title index
//! opened, are made by `Caches::for_run` in `catalog`, which sits above
//! the index.)

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// The guard of `m`, also when a panicking holder poisoned it: the data
/// are caches, never left half-written in a way a reader could misuse. See
/// "Locks" in the module docs for when a guard may be held.
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// When `path` was last modified (Unix seconds), `None` when unknown.
pub fn modified_secs(path: &Path) -> Option<i64> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    let secs = modified
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs();
    i64::try_from(secs).ok()
}

/// Caches of per-kind facts, one value per type, created on first use.
///
/// Each store kind keeps its caches in a type of its own (e.g. a struct of
/// [`crate::kinds::foreign::FileCache`]s) and asks for it with [`Caches::get`]; the
/// catalog owns one `Caches` and shares it with its readers.
#[derive(Default)]
pub struct Caches {
    slots: Mutex<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>,
}

impl fmt::Debug for Caches {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.slots.lock().map_or(0, |s| s.len());
        f.debug_struct("Caches").field("kinds", &count).finish()
    }
}

impl Caches {
    /// Caches holding `value` as the cache value of its type (e.g. the
    /// run's [`TargetCwd`]).
    pub fn with<T: Send + Sync + 'static>(self, value: T) -> Caches {
        self.with_shared(Arc::new(value))
    }

    /// Caches holding `value`, shared with whoever else holds it, as the
    /// cache value of its type.
    pub fn with_shared<T: Send + Sync + 'static>(self, value: Arc<T>) -> Caches {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        slots.insert(TypeId::of::<T>(), value);
        drop(slots);
        self
    }

    /// The cache value of type `T`, created with `T::default()` the first time.
    pub fn get<T: Default + Send + Sync + 'static>(&self) -> Arc<T> {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        let slot = slots
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Arc::new(T::default()));
        Arc::clone(slot)
            .downcast::<T>()
            .expect("a cache slot holds the type it is keyed by")
    }
}

/// The working directory a run ranks from (`--cwd`, else the current
/// directory), kept in the run's [`Caches`] for a kind that recognises a
/// session's project only by comparing it with a candidate: Gemini CLI's
/// older project folders are named by a hash of the project root, which
/// they record nowhere else.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TargetCwd(pub Option<String>);

/// The working directories of the sessions this run has listed so far
/// (beside the run's own, [`TargetCwd`]): where a kind that keeps its logs inside
/// projects (Aider's `.aider.chat.history.md` at a project's root) looks,
/// instead of walking the disk. Filled by the catalog's scan as records
/// arrive (and by the search index's listing); the kinds that read it
/// ([`crate::Store::uses_known_cwds`]) are scanned after every other kind.
/// Only grows: a directory once known stays known for the caches' life.
#[derive(Debug, Default)]
pub struct KnownCwds {
    dirs: Mutex<std::collections::BTreeSet<String>>,
}

impl KnownCwds {
    /// Remember `cwd`.
    pub fn note(&self, cwd: &str) {
        if cwd.is_empty() {
            return;
        }
        let mut dirs = lock(&self.dirs);
        if !dirs.contains(cwd) {
            dirs.insert(cwd.to_owned());
        }
    }

    /// Every directory known, sorted.
    pub fn all(&self) -> Vec<String> {
        lock(&self.dirs).iter().cloned().collect()
    }
}

/// A directory as sessions record their working directory (and as
/// Node's `path.resolve` spells it): absolute (a relative path is taken
/// from `current_dir`), without a trailing slash, `.` or `..`. The picker
/// normalises `--cwd` with it (the reference compares directories as
/// strings, so the input is normalised, not the rule); symbolic links are
/// left as given.
pub fn normalize_dir(cwd: &str, current_dir: Option<&str>) -> String {
    use std::path::Component;
    let given = Path::new(cwd);
    let joined = match current_dir {
        Some(base) if given.is_relative() => Path::new(base).join(given),
        _ => given.to_path_buf(),
    };
    let mut parts: Vec<String> = Vec::new();
    let mut root = String::new();
    for component in joined.components() {
        match component {
            Component::Prefix(p) => root.push_str(&p.as_os_str().to_string_lossy()),
            Component::RootDir => root.push('/'),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop();
            }
            Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
        }
    }
    let normal = format!("{root}{}", parts.join("/"));
    if normal.is_empty() {
        cwd.to_owned()
    } else {
        normal
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caches_are_per_type_and_per_owner() {
        #[derive(Default)]
        struct Counter(std::sync::atomic::AtomicU32);
        let a = Caches::default();
        a.get::<Counter>()
            .0
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        assert_eq!(
            a.get::<Counter>()
                .0
                .load(std::sync::atomic::Ordering::Relaxed),
            1
        );
        let b = Caches::default();
        assert_eq!(
            b.get::<Counter>()
                .0
                .load(std::sync::atomic::Ordering::Relaxed),
            0
        );
    }
}
