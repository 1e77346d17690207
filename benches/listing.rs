//! Listing 10,000 native sessions two ways, in one run so both see the
//! same machine: the shared scan (`walkdir` + rayon's pool, what
//! `Catalog::load` does) against the hand-written walk and per-call scoped
//! threads it replaced (kept here only as the baseline). Run with
//! `cargo bench --bench listing`.

use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use session_ref_stores::{kinds::native, Catalog, StoreRoots};

/// The replaced walk: a stack of directories read with `read_dir`.
fn hand_walk(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                pending.push(entry.path());
            } else if kind.is_file() {
                files.push(entry.path());
            }
        }
    }
    files.sort();
    files
}

/// The replaced `parallel_map`: scoped threads spawned for each call.
fn scoped_threads<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> usize {
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(1, 8)
        .min(items.len());
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                black_box(work(item));
                done.fetch_add(1, Ordering::Relaxed);
            });
        }
    });
    done.into_inner()
}

fn bench_listing(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("many");
    for i in 0..10_000 {
        let day = root.join(format!("{:02}", i % 30));
        std::fs::create_dir_all(&day).unwrap();
        let mut f = std::fs::File::create(day.join(format!("s{i:05}.jsonl"))).unwrap();
        writeln!(f, r#"{{"type":"session","version":1,"id":"s{i}","createdAt":"2025-01-01T00:00:00Z","cwd":"/w"}}"#).unwrap();
    }
    let roots = StoreRoots::new().with(native::KIND, &root);
    let shared_root: Arc<Path> = Arc::from(root.as_path());
    let mut group = c.benchmark_group("listing");
    group.sample_size(20);
    group.bench_function("10k sessions: walkdir + rayon (Catalog::load)", |b| {
        b.iter(|| Catalog::load(black_box(&roots)).len())
    });
    group.bench_function("10k sessions: hand walk + scoped threads (before)", |b| {
        b.iter(|| {
            let files = hand_walk(&root);
            scoped_threads(&files, |path| {
                native::read_record(&shared_root, path.clone())
            })
        })
    });
    group.finish();
}

criterion_group!(benches, bench_listing);
criterion_main!(benches);
