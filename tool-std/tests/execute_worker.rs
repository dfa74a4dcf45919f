//! `execute` crash-isolated: the interpreter in a worker process of monty's own
//! ([`Isolation::Worker`]), run by the `monty` binary that PyPI's `pydantic-monty-runtime`
//! installs (`.ci/run` puts it in its virtual environment and names it in
//! `TOOLKIT_MONTY_WORKER`). The same code gives the same answers as in-process; what the
//! process boundary adds is tested here: a worker that dies takes only the run with it, the
//! run's whole memory is bounded, and a stop leaves no worker behind.
//!
//! Without `TOOLKIT_MONTY_WORKER` each test says why it did not run and passes, unless
//! `TOOLKIT_REQUIRE_MCP_CLIENTS` is set (as CI sets it: every outside peer must be there).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tool_core::context::CancellationToken;
use tool_core::{Coordinator, ToolCall, ToolError, ToolResult, Toolset, Workspace, tool};
use tool_std::code::{CodeModeConfig, Isolation};

mod common;
use common::{Fixture, err, ok};

mod peers;
use peers::monty_worker;

/// The tests look at this process's worker children, so they run one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// A fixture over `tools` whose `execute` runs in a worker, limited by `config`; the guard
/// keeps the other tests of this file waiting.
fn in_worker(tools: &[&str], config: CodeModeConfig) -> Option<(Fixture, MutexGuard<'static, ()>)> {
    let program = monty_worker()?;
    let serial = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(tools.iter().copied()).unwrap())
        .workspace(Workspace::new(&root).unwrap())
        .state(CodeModeConfig {
            isolation: Isolation::worker(program),
            ..config
        })
        .build()
        .unwrap();
    let fixture = Fixture {
        dir,
        root,
        coordinator,
    };
    Some((fixture, serial))
}

fn execute(fx: &Fixture, code: &str) -> ToolResult {
    fx.call("execute", json!({ "code": code }))
}

fn run(fx: &Fixture, code: &str) -> Value {
    let result = execute(fx, code);
    ok(&result);
    result.structured().cloned().unwrap()
}

/// The pids of this process's children that are monty workers and still running.
fn live_workers() -> Vec<i32> {
    let mut pids = Vec::new();
    for task in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let children = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        for pid in children
            .split_whitespace()
            .filter_map(|pid| pid.parse().ok())
        {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // `pid (comm) state ...`: a zombie has been killed, only not yet reaped.
            let Some((comm, rest)) = stat.split_once(") ") else {
                continue;
            };
            if comm.ends_with("(monty") && !rest.starts_with('Z') {
                pids.push(pid);
            }
        }
    }
    pids
}

/// Whether no worker runs within 10 s (a killed one is reaped in the background).
fn no_worker_left() -> bool {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(10) {
        if live_workers().is_empty() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// Set by `worker_test_started`: the code is running in its worker.
static STARTED: AtomicBool = AtomicBool::new(false);

/// Say the code has started.
#[tool(read_only, name = "worker_test_started")]
fn started() -> &'static str {
    STARTED.store(true, Ordering::SeqCst);
    "noted"
}

#[path = "execute_support/rendezvous.rs"]
mod rendezvous;

#[test]
fn code_in_a_worker_reads_a_file_and_greps_and_combines_the_results() {
    let Some((fx, _serial)) =
        in_worker(&["execute", "read_file", "grep"], CodeModeConfig::default())
    else {
        return;
    };
    fx.file("notes.md", b"alpha\nbeta\ngamma\n");
    fx.file("src/a.rs", b"// TODO: one\n");
    let answer = run(
        &fx,
        r#"
text = read_file(path="notes.md")
print("read", len(text.splitlines()), "lines")
{"second": text.splitlines()[1].split("\t")[1], "files": grep("TODO").splitlines()}
"#,
    );
    assert_eq!(
        answer,
        json!({
            "printed": "read 3 lines\n",
            "value": {"second": "beta", "files": ["src/a.rs"]},
            "tool_calls": 2
        })
    );
    assert!(no_worker_left(), "the run's worker outlived it");
}

#[test]
fn awaited_calls_in_a_worker_run_side_by_side() {
    let Some((fx, _serial)) = in_worker(
        &["execute", "execute_test_rendezvous"],
        CodeModeConfig::default(),
    ) else {
        return;
    };
    let answer = run(
        &fx,
        "import asyncio\nawait asyncio.gather(execute_test_rendezvous(), execute_test_rendezvous())",
    );
    assert_eq!(answer["value"], json!(["met", "met"]));
}

#[test]
fn a_failed_call_in_a_worker_raises_an_exception_the_code_catches() {
    let Some((fx, _serial)) = in_worker(&["execute", "read_file"], CodeModeConfig::default())
    else {
        return;
    };
    let answer = run(
        &fx,
        "try:\n    read_file('missing.txt')\nexcept Exception as error:\n    caught = type(error).__name__ + ': ' + str(error)\ncaught",
    );
    let caught = answer["value"].as_str().unwrap();
    assert!(
        caught.starts_with("RuntimeError: read_file: ") && caught.contains("missing.txt"),
        "{caught}"
    );
}

#[test]
fn the_worker_sandbox_has_no_filesystem_of_its_own() {
    let Some((fx, _serial)) = in_worker(&["execute", "read_file"], CodeModeConfig::default())
    else {
        return;
    };
    let text = err(&execute(
        &fx,
        "from pathlib import Path\nPath('/etc/passwd').read_text()",
    ));
    assert!(
        text.contains("PermissionError") && text.contains("call the tools' functions"),
        "{text}"
    );
}

#[test]
fn an_infinite_loop_in_a_worker_is_stopped_by_the_time_limit_and_the_worker_killed() {
    let Some((fx, _serial)) = in_worker(
        &["execute", "read_file"],
        CodeModeConfig {
            time_limit: Duration::from_millis(500),
            ..CodeModeConfig::default()
        },
    ) else {
        return;
    };
    let text = err(&execute(&fx, "print('started')\nwhile True:\n    pass\n"));
    assert!(
        text.starts_with("the code was stopped by the time limit of 0.5 s"),
        "{text}"
    );
    assert!(text.ends_with("started\n"), "{text}");
    assert!(no_worker_left(), "a stopped run's worker still runs");
}

#[test]
fn printing_too_much_in_a_worker_is_stopped_by_the_output_limit() {
    let Some((fx, _serial)) = in_worker(
        &["execute", "read_file"],
        CodeModeConfig {
            max_printed_bytes: 100,
            ..CodeModeConfig::default()
        },
    ) else {
        return;
    };
    let text = err(&execute(&fx, "while True:\n    print('line')\n"));
    assert!(
        text.starts_with("the code was stopped by the printed output limit of 100 bytes"),
        "{text}"
    );
    let printed = text.split_once("printed before it stopped:)\n").unwrap().1;
    assert_eq!(printed.len(), 100, "what fits is kept: {printed:?}");
}

#[test]
fn too_many_tool_calls_in_a_worker_are_stopped_by_the_call_limit() {
    let Some((fx, _serial)) = in_worker(
        &["execute", "read_file"],
        CodeModeConfig {
            max_tool_calls: 3,
            ..CodeModeConfig::default()
        },
    ) else {
        return;
    };
    fx.file("a.txt", b"a\n");
    let text = err(&execute(
        &fx,
        "for _ in range(10):\n    read_file('a.txt')\n",
    ));
    assert!(
        text.starts_with("the code was stopped by the tool call limit of 3 calls per run"),
        "{text}"
    );
}

#[test]
fn a_runs_total_memory_in_a_worker_is_bounded() {
    let Some(program) = monty_worker() else {
        return;
    };
    let Some((fx, _serial)) = in_worker(
        &["execute", "read_file"],
        CodeModeConfig {
            isolation: Isolation::Worker {
                program,
                max_memory: 64 * 1024 * 1024,
            },
            ..CodeModeConfig::default()
        },
    ) else {
        return;
    };
    // Each piece is small (no single allocation is large); together they pass the bound,
    // which in-process only a global allocator could see.
    let text = err(&execute(
        &fx,
        "kept = []\nfor i in range(1000):\n    kept.append('x' * 1_000_000)\nlen(kept)",
    ));
    assert!(text.contains("MemoryError"), "{text}");
    // The bound ended that run only.
    assert_eq!(run(&fx, "len('x' * 1_000_000)")["value"], 1_000_000);
}

#[test]
fn a_worker_that_dies_ends_only_its_run_and_the_next_run_works() {
    let Some((fx, _serial)) = in_worker(
        &["execute", "worker_test_started"],
        CodeModeConfig {
            time_limit: Duration::from_secs(60),
            ..CodeModeConfig::default()
        },
    ) else {
        return;
    };
    // A crash inside the interpreter (a native stack overflow, an allocator abort) ends its
    // process as a signal does: the worker is killed from outside here to be one, once the
    // code is running in it.
    let killer = std::thread::spawn(|| {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(30) {
            if STARTED.load(Ordering::SeqCst)
                && let [pid] = live_workers()[..]
            {
                let pid = rustix::process::Pid::from_raw(pid).unwrap();
                rustix::process::kill_process(pid, rustix::process::Signal::KILL).unwrap();
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    });
    let result = execute(
        &fx,
        "print('computing')
worker_test_started()
while True:
    pass
",
    );
    assert!(killer.join().unwrap(), "no worker was seen to kill");
    let text = err(&result);
    assert!(
        text.starts_with("the Python interpreter failed (monty worker crashed")
            && text.contains("only the worker process was lost"),
        "{text}"
    );
    assert_eq!(run(&fx, "6 * 7")["value"], 42);
}

#[test]
fn cancelling_the_call_kills_a_computing_worker() {
    let Some(program) = monty_worker() else {
        return;
    };
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let dir = tempfile::tempdir().unwrap();
    let cancel = CancellationToken::new();
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["execute"]).unwrap())
        .workspace(Workspace::new(dir.path()).unwrap())
        .cancellation(cancel.clone())
        .state(CodeModeConfig {
            time_limit: Duration::from_secs(120),
            isolation: Isolation::worker(program),
            ..CodeModeConfig::default()
        })
        .build()
        .unwrap();
    let canceller = std::thread::spawn(move || {
        let started = Instant::now();
        while live_workers().is_empty() && started.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(10));
        }
        cancel.cancel();
    });
    let result = coordinator.call_blocking(ToolCall::new(
        "execute",
        json!({ "code": "while True:\n    pass\n" }).to_string(),
    ));
    canceller.join().unwrap();
    assert!(
        matches!(result.error(), Some(ToolError::Cancelled)),
        "{}",
        result.text()
    );
    assert!(no_worker_left(), "a cancelled run's worker still runs");
}

#[test]
fn a_worker_program_that_is_not_there_is_named_with_how_to_install_it() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let dir = tempfile::tempdir().unwrap();
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["execute"]).unwrap())
        .workspace(Workspace::new(dir.path()).unwrap())
        .state(CodeModeConfig {
            isolation: Isolation::worker("/nonexistent/monty"),
            ..CodeModeConfig::default()
        })
        .build()
        .unwrap();
    let result = coordinator.call_blocking(ToolCall::new(
        "execute",
        json!({ "code": "1 + 1" }).to_string(),
    ));
    let text = err(&result);
    assert!(
        text.contains("/nonexistent/monty")
            && text.contains("pip install pydantic-monty-runtime==0.0.23"),
        "{text}"
    );
}
