//! Encode and decode a 10,000-entry title-index shard (the shape of
//! `crates/stores/src/index/title.rs`) with postcard and with bitcode:
//! a warm listing decodes the shard once, a listing that changed
//! something encodes it once. Prints the fastest and the median of 101
//! runs of each.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Stamp {
    len: u64,
    mtime_ns: i128,
    inode: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
enum Listed {
    Record {
        id: String,
        cwd: Option<String>,
        created_at: String,
    },
    Skipped {
        reason: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Title {
    title: Option<String>,
    offset: Option<u64>,
    inputs: u64,
    scanned: u64,
    guard: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Entry {
    kind: String,
    path: PathBuf,
    listed: Option<(Stamp, Listed)>,
    title: Option<(Stamp, Title)>,
    fact: Option<(Stamp, Vec<u8>)>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct IndexFile {
    version: u32,
    entries: Vec<Entry>,
}

fn shard() -> IndexFile {
    let entries = (0..10_000u64)
        .map(|i| {
            let stamp = Stamp {
                len: 20_000 + i * 37,
                mtime_ns: 1_764_000_000_000_000_000 + i as i128 * 1_000_003,
                inode: 4_000_000 + i,
            };
            Entry {
                kind: "claude".to_owned(),
                path: PathBuf::from(format!(
                    "/home/dev/.claude/projects/-home-dev-projects-app{}/{:08x}-0000-4000-8000-{:012x}.jsonl",
                    i % 40,
                    i,
                    i
                )),
                listed: Some((
                    stamp,
                    Listed::Record {
                        id: format!("{i:08x}-0000-4000-8000-{i:012x}"),
                        cwd: Some(format!("/home/dev/projects/app{}", i % 40)),
                        created_at: format!("2026-11-{:02}T10:{:02}:00.000Z", 1 + i % 28, i % 60),
                    },
                )),
                title: Some((
                    stamp,
                    Title {
                        title: (i % 3 != 0).then(|| format!("Fix the flaky test in module {i}")),
                        offset: Some(1_000 + i),
                        inputs: 0,
                        scanned: stamp.len,
                        guard: "0a7d2c1e9f3b4a5c".to_owned(),
                    },
                )),
                fact: (i % 2 == 0).then(|| (stamp, vec![1, 2, 3, 4, 5, 6, 7, 8])),
            }
        })
        .collect();
    IndexFile {
        version: 4,
        entries,
    }
}

/// The fastest and the median of 101 runs (on a shared machine the
/// fastest is the figure least disturbed by other work).
fn timed(mut f: impl FnMut()) -> String {
    let mut times: Vec<Duration> = (0..101)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    format!("{:.2?} / {:.2?}", times[0], times[times.len() / 2])
}

fn main() {
    let index = shard();
    let post = postcard::to_allocvec(&index).unwrap();
    let bit = bitcode::serialize(&index).unwrap();
    assert_eq!(postcard::from_bytes::<IndexFile>(&post).unwrap(), index);
    assert_eq!(bitcode::deserialize::<IndexFile>(&bit).unwrap(), index);
    println!("| codec | bytes | decode, fastest / median of 101 | encode, fastest / median of 101 |");
    println!("|---|---|---|---|");
    let decode = timed(|| {
        black_box(postcard::from_bytes::<IndexFile>(black_box(&post)).unwrap());
    });
    let encode = timed(|| {
        black_box(postcard::to_allocvec(black_box(&index)).unwrap());
    });
    println!("| postcard | {} | {decode} | {encode} |", post.len());
    let decode = timed(|| {
        black_box(bitcode::deserialize::<IndexFile>(black_box(&bit)).unwrap());
    });
    let encode = timed(|| {
        black_box(bitcode::serialize(black_box(&index)).unwrap());
    });
    println!("| bitcode | {} | {decode} | {encode} |", bit.len());
}
