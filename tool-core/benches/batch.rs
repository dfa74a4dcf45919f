//! Batch scheduling: `call_batch` of 100 read-only calls that each wait 10 ms, against the
//! ideal wall time `ceil(100 / limit) * 10 ms` for several concurrency limits.
//!
//! Run with `cargo bench -p tool-core --bench batch`. Prints, per limit, the median wall time
//! of several runs and its ratio to the ideal (target: at most 1.3x).

use std::time::{Duration, Instant};

use tool_core::{Coordinator, ToolCall, Toolset, coordinator::BatchOptions, tool};

/// Wait 10 ms, as a read-only call waiting on I/O does.
#[tool(read_only, name = "bench_wait")]
async fn wait() -> &'static str {
    tokio::time::sleep(Duration::from_millis(10)).await;
    "done"
}

const CALLS: usize = 100;
const RUNS: usize = 9;

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let mut all_met = true;
    for limit in [5, 10, 25, 100] {
        let coordinator = Coordinator::builder()
            .toolset(Toolset::named(["bench_wait"]).expect("linked"))
            .batch(BatchOptions::limit(limit))
            .build()
            .unwrap();
        let mut times: Vec<Duration> = (0..RUNS)
            .map(|_| {
                let calls: Vec<ToolCall> = (0..CALLS)
                    .map(|i| ToolCall::new("bench_wait", "{}").with_call_id(i.to_string()))
                    .collect();
                let start = Instant::now();
                let results = runtime.block_on(coordinator.call_batch(calls));
                let elapsed = start.elapsed();
                assert!(results.iter().all(|r| r.text() == "done"));
                elapsed
            })
            .collect();
        times.sort();
        let median = times[RUNS / 2];
        let waves = u32::try_from(CALLS.div_ceil(limit)).expect("small");
        let ideal = Duration::from_millis(10) * waves;
        let ratio = median.as_secs_f64() / ideal.as_secs_f64();
        let met = ratio <= 1.3;
        all_met &= met;
        println!(
            "call_batch, {CALLS} calls of 10 ms, limit {limit:>3}: median {median:>9.2?} against ideal {ideal:>9.2?}: {ratio:.2}x (target <= 1.30x: {})",
            if met { "met" } else { "missed" }
        );
    }
    println!(
        "call_batch: {}",
        if all_met {
            "all targets met"
        } else {
            "some targets missed"
        }
    );
}
