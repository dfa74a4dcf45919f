//! `run_shell("true")` through a coordinator, against spawning `sh -c true` with
//! `std::process` directly: what the tool adds to starting a process (the policy's shell
//! analysis, bash instead of sh, a session of its own, the supervisor thread, the structured
//! reply). Target: at most 1.5x. Criterion measures each; a run of alternating pairs after it
//! prints the ratio of the medians.
//!
//! Run with `cargo bench -p tool-std --bench shell_vs_sh [-- --warm-up-time 1 --measurement-time 3]`.

mod common;

use std::hint::black_box;
use std::process::Command;
use std::time::Instant;

use criterion::Criterion;
use tool_core::ToolCall;

const ROUNDS: usize = 200;

fn main() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let coordinator = common::builder(["run_shell"], dir.path())
        .policy(tool_core::policy::PolicyBuilder::default().allow("run_shell"))
        .build()
        .unwrap();
    let call = ToolCall::new("run_shell", r#"{"command": "true"}"#);
    let run_shell = || {
        let result = coordinator.call_blocking(call.clone());
        assert!(!result.is_error(), "{}", result.text());
        black_box(result);
    };
    let sh = || {
        let status = Command::new("sh").args(["-c", "true"]).status().unwrap();
        assert!(status.success());
    };

    let mut criterion = Criterion::default().configure_from_args();
    let mut group = criterion.benchmark_group("shell_vs_sh");
    group.bench_function("run_shell_true", |b| b.iter(run_shell));
    group.bench_function("sh_c_true", |b| b.iter(sh));
    group.finish();
    criterion.final_summary();

    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let started = Instant::now();
        run_shell();
        ours.push(started.elapsed());
        let started = Instant::now();
        sh();
        theirs.push(started.elapsed());
    }
    let (ours, theirs) = (common::median(ours), common::median(theirs));
    let ratio = ours.as_secs_f64() / theirs.as_secs_f64();
    println!(
        "run_shell(\"true\"): {ours:.2?}; sh -c true: {theirs:.2?}; {ratio:.2}x (target at most 1.5x: {})",
        if ratio <= 1.5 { "met" } else { "missed" }
    );
}
