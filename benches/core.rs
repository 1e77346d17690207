//! Benchmarks of the paths that must stay fast at scale: retention of a huge
//! session, listing 10,000 sessions, finding a title at the end of a large
//! log (or finding that it has none), folding a large log, and scanning a
//! prompt for mentions. Run with `cargo bench --bench core`.

use std::hint::black_box;
use std::io::Write;
use std::path::Path;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use session_ref_core::mention;
use session_ref_core::projection::{ProjectedItem, Role};
use session_ref_core::retention::{retain, SourceFields};
use session_ref_stores::model::SessionRecord;
use session_ref_stores::{kinds::native, Catalog, StoreRoots};

fn items(count: usize, text_len: usize) -> Vec<ProjectedItem<'static>> {
    (0..count)
        .map(|i| ProjectedItem {
            role: if i % 2 == 0 {
                Role::User
            } else {
                Role::Assistant
            },
            text: format!("message {i} <é> ").repeat(text_len / 16).into(),
            checkpoint: i == 0,
        })
        .collect()
}

fn bench_retention(c: &mut Criterion) {
    let fields = SourceFields {
        session_id: "s",
        label: "label",
        cwd: Some("/w"),
        captured_through_seq: 1,
    };
    let mut group = c.benchmark_group("retention");
    for (count, len) in [(1_000, 2_000), (20_000, 500), (10, 1_000_000)] {
        let items = items(count, len);
        let bytes: usize = items.iter().map(|i| i.text.len()).sum();
        group.throughput(Throughput::Bytes(bytes as u64));
        group.bench_function(format!("{count}x{len}B into 64KiB"), |b| {
            b.iter(|| retain(fields, black_box(&items), 65_536).unwrap())
        });
    }
    group.finish();
}

fn write_session(path: &Path, id: &str, messages: usize, text: &str, titled: bool) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(f, r#"{{"type":"session","version":1,"id":"{id}","createdAt":"2025-01-01T00:00:00Z","cwd":"/w"}}"#).unwrap();
    for seq in 1..=messages as u64 {
        writeln!(
            f,
            r#"{{"seq":{seq},"type":"user/message","data":{{"id":"m{seq}","source":{{"kind":"user"}},"content":[{{"type":"text","text":"{text}"}}]}}}}"#
        )
        .unwrap();
    }
    if titled {
        writeln!(
            f,
            r#"{{"seq":{},"type":"session/title","data":{{"title":"T"}}}}"#,
            messages + 1
        )
        .unwrap();
    }
}

fn bench_store(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let many = dir.path().join("many");
    std::fs::create_dir(&many).unwrap();
    for i in 0..10_000 {
        write_session(
            &many.join(format!("s{i:05}.jsonl")),
            &format!("s{i}"),
            20,
            "hello there",
            true,
        );
    }
    let big = dir.path().join("big.jsonl");
    // ~55 MB each; message texts hold escapes, as real ones do.
    let text = r#"line one\nline \"two\" "#.repeat(10);
    write_session(&big, "big", 200_000, &text, true);
    let untitled = dir.path().join("untitled.jsonl");
    write_session(&untitled, "untitled", 200_000, &text, false);
    let roots = StoreRoots::new().with(native::KIND, &many);

    let mut group = c.benchmark_group("store");
    group.sample_size(10);
    group.bench_function("list 10k sessions", |b| {
        b.iter(|| Catalog::load(black_box(&roots)))
    });
    group.bench_function("list 10k sessions + all titles", |b| {
        b.iter_batched(
            || Catalog::load(&roots),
            |catalog| {
                catalog
                    .ordered()
                    .filter_map(|r| native::read_title(&r.path).unwrap())
                    .count()
            },
            BatchSize::LargeInput,
        )
    });
    group.bench_function("title at end of 55 MB log", |b| {
        b.iter(|| native::read_title(black_box(&big)).unwrap())
    });
    group.bench_function("no title in 55 MB log", |b| {
        b.iter(|| native::read_title(black_box(&untitled)).unwrap())
    });
    let record = SessionRecord::new(
        native::KIND,
        std::sync::Arc::from(dir.path()),
        big.clone(),
        "big".into(),
        None,
        "2025-01-01T00:00:00Z".into(),
    );
    group.throughput(Throughput::Bytes(std::fs::metadata(&big).unwrap().len()));
    group.bench_function("fold 55 MB log", |b| {
        b.iter(|| native::read_surface(black_box(&record)).unwrap())
    });
    group.finish();
}

fn bench_mentions(c: &mut Criterion) {
    let mut group = c.benchmark_group("mentions");
    let prose =
        "Compare @[Plan \\] v2](hydra-session:ImFiYyI) with hydra-session:ImFiYyI. ".repeat(4_000);
    let unclosed = "@[".repeat(150_000);
    for (name, text) in [
        ("300 KB of prose", prose),
        ("300 KB of unclosed @[", unclosed),
    ] {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| b.iter(|| mention::scan(black_box(&text))));
    }
    group.finish();
}

criterion_group!(benches, bench_retention, bench_store, bench_mentions);
criterion_main!(benches);
