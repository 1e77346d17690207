//! Benchmark of JavaScript-compatible number formatting in the JSON
//! serializer (`reference::json`): the comparison that chose `ryu-js` over
//! the hand-written shortest-digits search. Run with
//! `cargo bench --bench json`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use session_ref_core::json::stringify_value;

fn bench_numbers(c: &mut Criterion) {
    // Non-integers of every magnitude, as token counts, costs and timings
    // in real logs are; integers take another path and are left out.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let numbers: Vec<serde_json::Value> = (0..10_000)
        .map(|i| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mantissa = (state >> 11) as f64 / (1u64 << 53) as f64;
            let x = (mantissa + 0.001) * 10f64.powi((i % 40) - 20);
            serde_json::json!(x)
        })
        .collect();
    let array = serde_json::Value::Array(numbers);
    let mut group = c.benchmark_group("json");
    group.throughput(Throughput::Elements(10_000));
    group.bench_function("stringify 10k non-integer numbers", |b| {
        b.iter(|| stringify_value(black_box(&array)))
    });
    group.finish();
}

criterion_group!(benches, bench_numbers);
criterion_main!(benches);
