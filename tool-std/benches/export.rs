//! Exporting the whole of tool-std in every dialect: cold (a fresh toolset, so every tool's
//! schema is rewritten for the dialect) against cached (the toolset keeps each tool's export
//! per dialect), with making the toolset alone as the baseline of the cold case. Throughput
//! is in tools, so criterion's figure per element is the time per tool.
//!
//! Run with `cargo bench -p tool-std --bench export`.

// Linked for its tools: the registry holds what is linked.
extern crate tool_std;

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use tool_core::Toolset;
use tool_core::schema::{Dialect, export_tool};

fn tool_std() -> Toolset {
    Toolset::from_crate("tool_std")
}

fn whole_toolset(c: &mut Criterion) {
    let tools = tool_std().len() as u64;
    let mut group = c.benchmark_group("export_tool_std");
    group.throughput(Throughput::Elements(tools));
    group.bench_function("baseline: make the toolset only", |b| {
        b.iter(|| black_box(tool_std()));
    });
    for dialect in Dialect::ALL {
        group.bench_with_input(
            BenchmarkId::new("cold", dialect.key()),
            &dialect,
            |b, &dialect| {
                b.iter(|| black_box(tool_std().export(dialect)));
            },
        );
        let toolset = tool_std();
        let _ = toolset.export(dialect);
        group.bench_with_input(
            BenchmarkId::new("cached", dialect.key()),
            &dialect,
            |b, &dialect| b.iter(|| black_box(toolset.export(dialect))),
        );
    }
    group.finish();
}

fn per_tool_uncached(c: &mut Criterion) {
    let toolset = tool_std();
    let mut group = c.benchmark_group("export_tool");
    group.throughput(Throughput::Elements(toolset.len() as u64));
    for dialect in Dialect::ALL {
        group.bench_with_input(
            BenchmarkId::from_parameter(dialect.key()),
            &dialect,
            |b, &dialect| {
                b.iter(|| {
                    for tool in toolset.iter() {
                        let _ = black_box(export_tool(&**tool, dialect));
                    }
                });
            },
        );
    }
    group.finish();
}

criterion_group!(benches, whole_toolset, per_tool_uncached);
criterion_main!(benches);
