//! The registry with 1,000 linked `#[tool]` functions: building it (what the first
//! `Registry::global()` does), and looking a tool up by name.
//!
//! Run with `cargo bench -p bench-registry-1000`. Targets: first `Registry::global()` under
//! 2 ms, lookup by name under 50 ns.

use std::hint::black_box;
use std::time::Instant;

use criterion::Criterion;
use tool_core::Registry;

fn main() {
    // The very first call, timed once: nothing is warm, as in a starting program.
    let start = Instant::now();
    let registry = Registry::global();
    let first = start.elapsed();
    assert_eq!(registry.len(), bench_registry_1000::tool_count());

    let mut criterion = Criterion::default().configure_from_args();
    criterion.bench_function("registry/build_1000", |b| {
        b.iter(|| black_box(Registry::linked().expect("valid")));
    });
    criterion.bench_function("registry/lookup_by_name", |b| {
        b.iter(|| black_box(registry.get(black_box("tool_0517"))));
    });
    criterion.bench_function("registry/lookup_missing", |b| {
        b.iter(|| black_box(registry.get(black_box("tool_9999"))));
    });
    criterion.final_summary();
    println!(
        "first Registry::global() with {} tools: {first:?} (target < 2 ms: {})",
        registry.len(),
        if first.as_secs_f64() < 0.002 {
            "met"
        } else {
            "missed"
        }
    );
}
