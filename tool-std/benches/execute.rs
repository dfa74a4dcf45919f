//! Code mode's per-call overhead: `execute` running Python that calls a trivial read-only
//! tool 100 times, against 100 direct `Coordinator::call`s of the same tool, and `execute`
//! with code that calls nothing (the fixed cost of a run: a thread, parsing, compiling), and
//! with the 100 calls awaited together through `asyncio.gather` (each a task of its own).
//!
//! Run with `cargo bench -p tool-std --bench execute`. Criterion reports each side; the
//! closing lines time the three interleaved in the same run and print the overhead code mode
//! adds to each call, `(execute_100 - execute_0) / 100 - direct`: what a call from code
//! costs beyond the call itself (the suspension, the hop between the interpreter's thread and
//! the runtime, the conversion of arguments and result).
//!
//! With `TOOLKIT_MONTY_WORKER` naming monty's worker binary, the same figures follow for runs
//! in a worker process (`Isolation::Worker`): a process started per run, a pipe round trip
//! per call.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;
use tokio::runtime::Runtime;
use tool_core::{Coordinator, ToolCall, Toolset, tool};
use tool_std::code::{CodeModeConfig, Isolation};

/// Add one to a number (its text is the result: code converts it with `int`).
#[tool(read_only, name = "bench_increment")]
fn increment(n: i64) -> i64 {
    n + 1
}

const CALLS: usize = 100;
const EXECUTE_100: &str =
    "total = 0\nfor i in range(100):\n    total += int(bench_increment(n=i))\ntotal\n";
const EXECUTE_100_GATHERED: &str = "import asyncio\nresults = await asyncio.gather(*[bench_increment(n=i) for i in range(100)])\nsum(int(r) for r in results)\n";
const EXECUTE_0: &str = "total = 0\nfor i in range(100):\n    total += i + 1\ntotal\n";

fn coordinator(isolation: Isolation) -> Coordinator {
    Coordinator::builder()
        .toolset(Toolset::named(["execute", "bench_increment"]).expect("linked"))
        // The default allows 50 calls a run.
        .state(CodeModeConfig {
            max_tool_calls: 100,
            isolation,
            ..CodeModeConfig::default()
        })
        .build()
        .unwrap()
}

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// 100 direct calls, one after another, as a model's round trips would make them (without
/// the model).
async fn direct(coordinator: &Coordinator) -> i64 {
    let mut total = 0;
    for i in 0..CALLS {
        let call = ToolCall::new("bench_increment", format!(r#"{{"n": {i}}}"#));
        total += coordinator.call(call).await.text().parse::<i64>().unwrap();
    }
    total
}

async fn execute(coordinator: &Coordinator, code: &str) -> i64 {
    let call = ToolCall::new("execute", serde_json::json!({ "code": code }).to_string());
    let result = coordinator.call(call).await;
    assert!(!result.is_error(), "{}", result.text());
    result.structured().unwrap()["value"].as_i64().unwrap()
}

fn criterion_benches(c: &mut Criterion, runtime: &Runtime, coordinator: &Coordinator) {
    let expected = 5050;
    assert_eq!(runtime.block_on(direct(coordinator)), expected);
    assert_eq!(
        runtime.block_on(execute(coordinator, EXECUTE_100)),
        expected
    );
    assert_eq!(
        runtime.block_on(execute(coordinator, EXECUTE_100_GATHERED)),
        expected
    );
    assert_eq!(runtime.block_on(execute(coordinator, EXECUTE_0)), expected);
    let mut group = c.benchmark_group("execute");
    group.bench_function("direct_100_calls", |b| {
        b.iter(|| runtime.block_on(direct(coordinator)));
    });
    group.bench_function("execute_100_calls", |b| {
        b.iter(|| runtime.block_on(execute(coordinator, EXECUTE_100)));
    });
    group.bench_function("execute_100_gathered_calls", |b| {
        b.iter(|| runtime.block_on(execute(coordinator, EXECUTE_100_GATHERED)));
    });
    group.bench_function("execute_no_calls", |b| {
        b.iter(|| runtime.block_on(execute(coordinator, EXECUTE_0)));
    });
    group.finish();
}

/// Medians of `rounds` interleaved rounds of the four sides: direct, execute with 100 calls,
/// with 100 gathered calls, with none.
fn interleaved(runtime: &Runtime, coordinator: &Coordinator, rounds: usize) -> [Duration; 4] {
    let mut times: [Vec<Duration>; 4] = Default::default();
    for _ in 0..rounds {
        let start = Instant::now();
        black_box(runtime.block_on(direct(coordinator)));
        times[0].push(start.elapsed());
        for (side, code) in [(1, EXECUTE_100), (2, EXECUTE_100_GATHERED), (3, EXECUTE_0)] {
            let start = Instant::now();
            black_box(runtime.block_on(execute(coordinator, code)));
            times[side].push(start.elapsed());
        }
    }
    times.map(|mut times| {
        times.sort();
        times[times.len() / 2]
    })
}

fn main() {
    let runtime = runtime();
    let coordinator = coordinator(Isolation::InProcess);
    let mut criterion = Criterion::default().configure_from_args();
    criterion_benches(&mut criterion, &runtime, &coordinator);
    criterion.final_summary();
    report("execute", interleaved(&runtime, &coordinator, 101), 101);
    if let worker @ Isolation::Worker { .. } = Isolation::from_env() {
        let isolated = self::coordinator(worker);
        report(
            "execute in a worker",
            interleaved(&runtime, &isolated, 31),
            31,
        );
    }
}

fn report(what: &str, [direct, hundred, gathered, none]: [Duration; 4], rounds: usize) {
    let calls = u32::try_from(CALLS).expect("small");
    let direct_per_call = direct / calls;
    let execute_per_call = hundred.saturating_sub(none) / calls;
    let gathered_per_call = gathered.saturating_sub(none) / calls;
    println!(
        "{what}: 100 direct calls {direct:?}, execute with 100 calls {hundred:?}, with 100 gathered calls {gathered:?}, with none {none:?} (medians of {rounds} interleaved rounds)"
    );
    println!(
        "{what}: a call from code costs {execute_per_call:?} ({gathered_per_call:?} gathered) against {direct_per_call:?} direct: {:?} of overhead per call; a run's fixed cost {none:?}",
        execute_per_call.saturating_sub(direct_per_call)
    );
}
