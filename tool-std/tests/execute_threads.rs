//! `execute`'s interpreter thread ends with the call: a run whose future is dropped (a client
//! that stops waiting; the coordinator's timeout, which drops it before it cancels the call)
//! stops computing instead of running on to its own time limit. Alone in its test binary, so that no other test's
//! interpreter thread is counted.

use std::time::{Duration, Instant};

use serde_json::json;
use tool_core::{Coordinator, ToolCall, Toolset};
use tool_std::code::CodeModeConfig;

/// How many threads of this process are interpreter threads.
fn interpreter_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .filter(|name| name.trim() == "execute-python")
        .count()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_whose_call_is_dropped_leaves_no_interpreter_thread_computing() {
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["execute"]).unwrap())
        .state(CodeModeConfig {
            time_limit: Duration::from_secs(60),
            max_steps: u64::MAX,
            ..CodeModeConfig::default()
        })
        .build()
        .unwrap();
    let code = json!({ "code": "while True:\n    pass\n" }).to_string();
    // A client that stops waiting drops the call and cancels nothing.
    let call = coordinator.call(ToolCall::new("execute", code));
    let dropped = tokio::time::timeout(Duration::from_millis(200), call).await;
    assert!(dropped.is_err(), "the code loops until stopped");
    let started = Instant::now();
    while interpreter_threads() > 0 {
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "the interpreter thread is still running {:?} after the call was dropped",
            started.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
