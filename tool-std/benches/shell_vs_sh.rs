//! `run_shell("true")` through a coordinator, against spawning `sh -c true` with
//! `std::process` directly: what the tool adds to starting a process (the policy's shell
//! analysis, bash instead of sh, a session of its own, the supervisor thread, the structured
//! reply). Target: at most 1.5x. `bash -c true` spawned the same way is measured too, to tell
//! what bash costs over sh (dash, on Debian) from what the tool costs over bash. `true` is a
//! line run_shell starts without bash (see `shell/direct.rs`), so the same is measured for a
//! program that is not a shell builtin, `uname -s`. Criterion measures each; a run of
//! alternating rounds after it prints the ratios of the medians. The commands run without the
//! kernel sandbox, as `sh -c` does: what the sandbox adds is `shell_sandbox`'s figure.
//!
//! Run with `cargo bench -p tool-std --bench shell_vs_sh [-- --warm-up-time 1 --measurement-time 3]`.

mod common;

use std::hint::black_box;
use std::process::Command;
use std::time::Instant;

use criterion::Criterion;
use tool_core::ToolCall;

const ROUNDS: usize = 200;

#[cfg(not(unix))]
fn main() {
    eprintln!("run_shell is built on Unix only");
}

#[cfg(unix)]
fn main() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let unsandboxed = tool_std::shell::sandbox::SandboxConfig {
        enabled: false,
        ..Default::default()
    };
    let coordinator = common::builder(["run_shell"], dir.path())
        .policy(tool_core::policy::PolicyBuilder::default().allow("run_shell"))
        .state(unsandboxed)
        .build()
        .unwrap();
    let mut criterion = Criterion::default().configure_from_args();
    for command in ["true", "uname -s"] {
        let call = ToolCall::new(
            "run_shell",
            serde_json::json!({ "command": command }).to_string(),
        );
        let run_shell = || {
            let result = coordinator.call_blocking(call.clone());
            assert!(!result.is_error(), "{}", result.text());
            black_box(result);
        };
        let spawn = |shell: &str| {
            let status = Command::new(shell)
                .args(["-c", command])
                .stdout(std::process::Stdio::null())
                .status()
                .unwrap();
            assert!(status.success());
        };
        let sh = || spawn("sh");
        let bash = || spawn("bash");

        let mut group = criterion.benchmark_group(format!("shell_vs_sh/{command}"));
        group.bench_function("run_shell", |b| b.iter(run_shell));
        group.bench_function("sh_c", |b| b.iter(sh));
        group.bench_function("bash_c", |b| b.iter(bash));
        group.finish();

        let (mut ours, mut by_sh, mut by_bash) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            let started = Instant::now();
            run_shell();
            ours.push(started.elapsed());
            let started = Instant::now();
            sh();
            by_sh.push(started.elapsed());
            let started = Instant::now();
            bash();
            by_bash.push(started.elapsed());
        }
        let ours = common::median(ours);
        let (by_sh, by_bash) = (common::median(by_sh), common::median(by_bash));
        let ratio = ours.as_secs_f64() / by_sh.as_secs_f64();
        println!(
            "run_shell({command:?}): {ours:.2?}; sh -c {command:?}: {by_sh:.2?}; {ratio:.2}x (target at most 1.5x: {})",
            if ratio <= 1.5 { "met" } else { "missed" }
        );
        println!(
            "bash -c {command:?}: {by_bash:.2?}: bash over sh {:.2}x, run_shell over bash {:.2}x",
            by_bash.as_secs_f64() / by_sh.as_secs_f64(),
            ours.as_secs_f64() / by_bash.as_secs_f64()
        );
    }
    criterion.final_summary();
}
