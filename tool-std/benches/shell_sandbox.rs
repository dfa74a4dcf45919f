//! What the kernel sandbox adds to a command: `run_shell("true")` sandboxed (the default)
//! against the same call with the sandbox turned off, and against spawning `sh -c true` with
//! `std::process` directly. The sandbox costs a Landlock ruleset built per call (a path opened
//! and a rule added for each workspace root, the temporary directory and the writable devices)
//! and a thread that restricts itself and starts the command (std still uses `posix_spawn`
//! where it can: nothing runs between fork and exec). Target: the sandbox adds under 5 ms. A second pair measures a `Read(.env)`
//! deny rule, whose complement lists every directory on the way to the file. Criterion
//! measures each; a run of alternating rounds after it prints the medians and differences.
//!
//! Run with `cargo bench -p tool-std --bench shell_sandbox [-- --warm-up-time 1 --measurement-time 3]`.

mod common;

use std::hint::black_box;
use std::process::Command;
use std::time::Instant;

use criterion::Criterion;
use tool_core::{Coordinator, ToolCall};
use tool_std::shell::sandbox::{SandboxConfig, status};

const ROUNDS: usize = 200;

#[cfg(not(unix))]
fn main() {
    eprintln!("run_shell is built on Unix only");
}

#[cfg(unix)]
fn main() {
    println!("sandbox on this kernel: {}", status());
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join(".env"), "SECRET=1").unwrap();
    let over = |config: SandboxConfig| -> Coordinator {
        common::builder(["run_shell"], dir.path())
            .policy(tool_core::policy::PolicyBuilder::default().allow("run_shell"))
            .state(config)
            .build()
            .unwrap()
    };
    let sandboxed = over(SandboxConfig::default());
    let unsandboxed = over(SandboxConfig {
        enabled: false,
        ..SandboxConfig::default()
    });
    let denying = over(SandboxConfig {
        deny_read: vec![".env".into()],
        ..SandboxConfig::default()
    });
    let call = ToolCall::new("run_shell", r#"{"command": "true"}"#);
    let run = |coordinator: &Coordinator| {
        let result = coordinator.call_blocking(call.clone());
        assert!(!result.is_error(), "{}", result.text());
        black_box(result);
    };
    let sh = || {
        let status = Command::new("sh").args(["-c", "true"]).status().unwrap();
        assert!(status.success());
    };

    let mut criterion = Criterion::default().configure_from_args();
    let mut group = criterion.benchmark_group("shell_sandbox");
    group.bench_function("run_shell_true_sandboxed", |b| b.iter(|| run(&sandboxed)));
    group.bench_function("run_shell_true_unsandboxed", |b| {
        b.iter(|| run(&unsandboxed));
    });
    group.bench_function("run_shell_true_sandboxed_deny_env", |b| {
        b.iter(|| run(&denying));
    });
    group.bench_function("sh_c_true", |b| b.iter(sh));
    group.finish();
    criterion.final_summary();

    let mut times: [Vec<_>; 4] = Default::default();
    for _ in 0..ROUNDS {
        for (index, coordinator) in [&sandboxed, &unsandboxed, &denying].into_iter().enumerate() {
            let started = Instant::now();
            run(coordinator);
            times[index].push(started.elapsed());
        }
        let started = Instant::now();
        sh();
        times[3].push(started.elapsed());
    }
    let [on, off, deny, by_sh] = times.map(common::median);
    let added = on.saturating_sub(off);
    println!(
        "run_shell(\"true\"): sandboxed {on:.2?}, unsandboxed {off:.2?}, sh -c true {by_sh:.2?}; the sandbox adds {added:.2?} (target under 5 ms: {})",
        if added.as_secs_f64() < 0.005 {
            "met"
        } else {
            "missed"
        }
    );
    println!(
        "with a Read(.env) deny rule: {deny:.2?} ({:.2?} over the plain sandbox)",
        deny.saturating_sub(on)
    );
}
