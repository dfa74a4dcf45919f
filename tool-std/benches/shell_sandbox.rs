//! What the kernel sandbox adds to a command: `run_shell("true")` sandboxed on each engine
//! against the same call with the sandbox turned off, and against spawning `sh -c true` with
//! `std::process` directly. With Landlock alone the sandbox costs a ruleset built per call (a
//! path opened and a rule added for each workspace root, the temporary directory and the
//! writable devices) and a thread that restricts itself and starts the command (std still
//! uses `posix_spawn`); under bubblewrap (the default where it works) it costs entering the
//! kept view's namespaces between fork and exec (std then forks instead of `posix_spawn`)
//! and the checks that the view is still current (`bwrap` itself runs only when it is not);
//! the sandbox's own namespaces (what a machine without `bwrap` gets) cost the same once built.
//! Target: the
//! sandbox adds under 5 ms. Each engine is measured again with a `Read(.env)` deny rule (with
//! Landlock alone a complement listing every directory on the way; under bubblewrap one more
//! mount). Criterion measures each; a run of alternating rounds after it prints the medians
//! and differences.
//!
//! Run with `cargo bench -p tool-std --bench shell_sandbox [-- --warm-up-time 1 --measurement-time 3]`.

mod common;

use std::hint::black_box;
use std::process::Command;
use std::time::Instant;

use criterion::Criterion;
use tool_core::{Coordinator, ToolCall};
use tool_std::shell::sandbox::{SandboxConfig, engine, status};

const ROUNDS: usize = 200;

#[cfg(not(unix))]
fn main() {
    eprintln!("run_shell is built on Unix only");
}

#[cfg(unix)]
fn main() {
    println!("sandbox on this kernel: {}", status());
    println!("file system engine: {}", engine());
    let own_engine = SandboxConfig {
        assume_no_bubblewrap: true,
        ..SandboxConfig::default()
    }
    .engine();
    println!("without bubblewrap: {own_engine}");
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join(".env"), "SECRET=1").unwrap();
    let over = |config: SandboxConfig| -> Coordinator {
        common::builder(["run_shell"], dir.path())
            .policy(tool_core::policy::PolicyBuilder::default().allow("run_shell"))
            .state(config)
            .build()
            .unwrap()
    };
    let engine = |bubblewrap: bool, deny: bool| SandboxConfig {
        bubblewrap,
        deny_read: if deny {
            vec![".env".into()]
        } else {
            Vec::new()
        },
        ..SandboxConfig::default()
    };
    // The sandbox's own namespaces, as a machine without `bwrap` gets them.
    let own = |deny: bool| SandboxConfig {
        assume_no_bubblewrap: true,
        ..engine(true, deny)
    };
    // (name, coordinator): the default engine first (bubblewrap where it works).
    let setups = [
        ("bubblewrap", over(engine(true, false))),
        ("bubblewrap, Read(.env) denied", over(engine(true, true))),
        ("own namespaces", over(own(false))),
        ("own namespaces, Read(.env) denied", over(own(true))),
        ("Landlock alone", over(engine(false, false))),
        (
            "Landlock alone, Read(.env) denied",
            over(engine(false, true)),
        ),
        (
            "unsandboxed",
            over(SandboxConfig {
                enabled: false,
                ..SandboxConfig::default()
            }),
        ),
    ];
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
    for (name, coordinator) in &setups {
        group.bench_function(format!("run_shell_true {name}"), |b| {
            b.iter(|| run(coordinator));
        });
    }
    group.bench_function("sh_c_true", |b| b.iter(sh));
    group.finish();
    criterion.final_summary();

    let mut times: Vec<Vec<_>> = vec![Vec::new(); setups.len() + 1];
    for _ in 0..ROUNDS {
        for (index, (_, coordinator)) in setups.iter().enumerate() {
            let started = Instant::now();
            run(coordinator);
            times[index].push(started.elapsed());
        }
        let started = Instant::now();
        sh();
        times[setups.len()].push(started.elapsed());
    }
    let medians: Vec<_> = times.into_iter().map(common::median).collect();
    let unsandboxed = medians[setups.len() - 1];
    println!(
        "run_shell(\"true\") medians of {ROUNDS} interleaved rounds; sh -c true {:.2?}",
        medians[setups.len()]
    );
    for ((name, _), median) in setups.iter().zip(&medians).take(setups.len() - 1) {
        let added = median.saturating_sub(unsandboxed);
        println!(
            "  {name}: {median:.2?}, {added:.2?} over unsandboxed ({unsandboxed:.2?}); target under 5 ms: {}",
            if added.as_secs_f64() < 0.005 {
                "met"
            } else {
                "missed"
            }
        );
    }
}
