//! Dispatch overhead: `Coordinator::call` on a `#[tool]` function against a hand-written
//! baseline doing the same work (parse the JSON into a struct, call the function, serialize
//! the result).
//!
//! Run with `cargo bench -p tool-core --bench dispatch`. Criterion reports each side; the
//! closing lines measure both sides interleaved in the same run and print the ratio. The
//! target is "within a few times a hand-written call" (at most 5x): a model's turn takes
//! 0.3-30 s, so nothing on the one call path is bought with clarity.

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

use criterion::{BatchSize, Criterion};
use tool_core::{Coordinator, ToolCall, Toolset, tool};

/// The system allocator, counting allocations: how many a call makes is printed beside its
/// time, a figure the machine's noise does not move.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is passed to the system allocator unchanged; only a counter is added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on as it is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// Allocations per call of `run`, over 1,000 calls of a call made beforehand.
fn allocations_per_call(call: &ToolCall, run: impl Fn(ToolCall)) -> f64 {
    let calls: Vec<ToolCall> = (0..1_000).map(|_| call.clone()).collect();
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    for call in calls {
        run(call);
    }
    (ALLOCATIONS.load(Ordering::Relaxed) - before) as f64 / 1_000.0
}

/// Add two integers.
#[tool(read_only, name = "bench_add")]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

#[derive(serde::Deserialize)]
struct AddArgs {
    a: i64,
    b: i64,
}

fn plain_add(a: i64, b: i64) -> i64 {
    a + b
}

const ARGUMENTS: &str = r#"{"a": 20, "b": 22}"#;

/// The baseline: what a hand-written dispatch does for this tool. It receives the same owned
/// call as the coordinator (and so frees the same strings), parses the arguments into a
/// struct, calls the function and serializes the result.
fn baseline(call: ToolCall) -> String {
    let args: AddArgs = serde_json::from_str(&call.arguments).expect("valid");
    serde_json::to_string(&plain_add(args.a, args.b)).expect("serializable")
}

/// Polls a future that completes without waiting, as a synchronous tool's call does; no
/// runtime is involved, so the figure is the framework's own cost.
fn complete<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
    }
}

fn coordinator() -> Coordinator {
    Coordinator::builder()
        .toolset(Toolset::named(["bench_add"]).expect("linked"))
        .build()
        .unwrap()
}

fn criterion_benches(c: &mut Criterion) {
    let coordinator = coordinator();
    let call = ToolCall::new("bench_add", ARGUMENTS).with_call_id("call_1");
    assert_eq!(complete(coordinator.call(call.clone())).text(), "42");
    let mut group = c.benchmark_group("dispatch");
    group.bench_function("baseline", |b| {
        b.iter_batched(|| call.clone(), baseline, BatchSize::SmallInput);
    });
    group.bench_function("coordinator_call", |b| {
        b.iter_batched(
            || call.clone(),
            |call| complete(coordinator.call(call)),
            BatchSize::SmallInput,
        );
    });
    group.finish();
}

/// Times `rounds` alternating batches of both sides and returns the median ratio.
fn interleaved_ratio(rounds: usize, batch: usize) -> (Duration, Duration, f64) {
    let coordinator = coordinator();
    let call = ToolCall::new("bench_add", ARGUMENTS).with_call_id("call_1");
    let mut ratios = Vec::with_capacity(rounds);
    let (mut base_total, mut ours_total) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..rounds {
        let calls: Vec<ToolCall> = (0..batch).map(|_| call.clone()).collect();
        let start = Instant::now();
        for call in calls {
            black_box(baseline(black_box(call)));
        }
        let base = start.elapsed();
        let calls: Vec<ToolCall> = (0..batch).map(|_| call.clone()).collect();
        let start = Instant::now();
        for call in calls {
            black_box(complete(coordinator.call(call)));
        }
        let ours = start.elapsed();
        base_total += base;
        ours_total += ours;
        ratios.push(ours.as_secs_f64() / base.as_secs_f64());
    }
    ratios.sort_by(f64::total_cmp);
    let per_call = |total: Duration| total / u32::try_from(rounds * batch).expect("small");
    (
        per_call(base_total),
        per_call(ours_total),
        ratios[rounds / 2],
    )
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    criterion_benches(&mut criterion);
    criterion.final_summary();
    // The call's future is moved (copied) at least once per call: its size is a cost.
    let future_size =
        std::mem::size_of_val(&coordinator().call(ToolCall::new("bench_add", ARGUMENTS)));
    println!("dispatch: the future of Coordinator::call is {future_size} bytes");
    let counted = coordinator();
    let call = ToolCall::new("bench_add", ARGUMENTS).with_call_id("call_1");
    let base_allocations = allocations_per_call(&call, |call| drop(black_box(baseline(call))));
    let our_allocations =
        allocations_per_call(&call, |call| drop(black_box(complete(counted.call(call)))));
    println!(
        "dispatch: allocations per call: baseline {base_allocations}, Coordinator::call {our_allocations}"
    );
    let (base, ours, ratio) = interleaved_ratio(201, 2_000);
    println!("dispatch: baseline {base:?}/call, Coordinator::call {ours:?}/call");
    println!(
        "dispatch ratio (median of 201 interleaved rounds): {ratio:.2}x (target <= 5x: {})",
        if ratio <= 5.0 { "met" } else { "missed" }
    );
}
