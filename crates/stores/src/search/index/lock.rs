//! The index directory's writer lock: one run writes at a time, and a run
//! that finds the lock taken skips its commit rather than wait.

use std::fs::{File, OpenOptions};
use std::path::Path;

/// The lock file's name in the index directory.
pub(super) const LOCK: &str = "lock";

/// Whether another run holds the lock of the index in `dir` (is writing
/// it now). A directory without a lock file is not locked.
pub fn held_elsewhere(dir: &Path) -> bool {
    let Ok(lock) = OpenOptions::new().write(true).open(dir.join(LOCK)) else {
        return false;
    };
    match lock.try_lock() {
        Ok(()) => {
            let _ = lock.unlock();
            false
        }
        Err(_) => true,
    }
}

/// Take `lock` if it is free now or within a few milliseconds. A lock is
/// held by an open file description, and a child process forked elsewhere
/// in this process (a picker's `--exec`, a test binary's helpers) keeps a
/// copy of a description until it execs: a commit right after the last
/// one could otherwise find its own just-released lock still taken. A run
/// that really holds the lock keeps it longer than this, and the commit is
/// then skipped as before.
pub(super) fn lock_briefly(lock: &File) -> bool {
    for _ in 0..20 {
        if lock.try_lock().is_ok() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    false
}
