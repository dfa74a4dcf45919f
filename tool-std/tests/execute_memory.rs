//! Code mode's total memory bound in-process (issue 24, class 6): with the counting allocator
//! installed, as `toolbox` installs it, a run that keeps what it allocates stops with
//! `MemoryError` at `CodeModeConfig::max_memory`, and the process does not grow by
//! gigabytes. Its own test binary: the global allocator is the program's.

use std::time::{Duration, Instant};

use serde_json::json;
use tool_core::{Coordinator, ToolCall, Toolset, Workspace};
use tool_std::code::{CodeModeConfig, CountingAllocator, Isolation, counts_memory};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// The process's resident set, in bytes (Linux).
fn resident() -> u64 {
    let status = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = status
        .split_whitespace()
        .nth(1)
        .and_then(|field| field.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

fn coordinator(dir: &std::path::Path, config: CodeModeConfig) -> Coordinator {
    Coordinator::builder()
        .toolset(Toolset::named(["execute"]).unwrap())
        .workspace(Workspace::new(dir).unwrap())
        // The in-process run is what this file is about; a worker (the default where its
        // binary exists) has its own bound, tested in execute_worker.rs.
        .state(CodeModeConfig {
            isolation: Isolation::InProcess,
            ..config
        })
        .build()
        .unwrap()
}

#[test]
fn a_run_that_keeps_what_it_allocates_stops_at_the_memory_limit() {
    assert!(counts_memory());
    let dir = tempfile::tempdir().unwrap();
    let coordinator = coordinator(dir.path(), CodeModeConfig::default());
    let attacks = [
        // The issue's: 3 GiB in 2 s before.
        "x = []\nfor i in range(40):\n    x.append('a' * 10**8)\nlen(x)",
        "x = []\nfor i in range(40):\n    x.append(b'a' * 10**8)\nlen(x)",
        "x = []\nfor i in range(40):\n    x.append([0] * 10**7)\nlen(x)",
        "s = 'a'\nfor i in range(40):\n    s = s + s\nlen(s)",
        "d = {}\nfor i in range(10**8):\n    d[i] = str(i) * 10\nlen(d)",
    ];
    for code in attacks {
        let before = resident();
        let started = Instant::now();
        let result = coordinator.call_blocking(ToolCall::new(
            "execute",
            json!({ "code": code }).to_string(),
        ));
        let grew = resident().saturating_sub(before);
        let text = result.text();
        assert!(result.is_error(), "{code}: ran to its end: {text}");
        assert!(text.contains("MemoryError"), "{code}: {text}");
        assert!(
            grew < 1024 * 1024 * 1024,
            "{code}: the process grew by {} MiB",
            grew / (1024 * 1024)
        );
        assert!(started.elapsed() < Duration::from_secs(60), "{code}");
    }
}

#[test]
fn a_run_under_the_limit_keeps_what_it_needs() {
    let dir = tempfile::tempdir().unwrap();
    let coordinator = coordinator(dir.path(), CodeModeConfig::default());
    let code = "x = []\nfor i in range(10):\n    x.append('a' * 10**6)\nsum(len(s) for s in x)";
    let result = coordinator.call_blocking(ToolCall::new(
        "execute",
        json!({ "code": code }).to_string(),
    ));
    assert!(!result.is_error(), "{}", result.text());
    assert!(result.text().contains("10000000"), "{}", result.text());
}

#[test]
fn the_limit_is_the_configured_one() {
    let dir = tempfile::tempdir().unwrap();
    let small = CodeModeConfig {
        max_memory: 16 * 1024 * 1024,
        ..CodeModeConfig::default()
    };
    let coordinator = coordinator(dir.path(), small);
    let code = "x = []\nfor i in range(10):\n    x.append('a' * 4 * 10**6)\nlen(x)";
    let result = coordinator.call_blocking(ToolCall::new(
        "execute",
        json!({ "code": code }).to_string(),
    ));
    assert!(result.is_error(), "{}", result.text());
    assert!(result.text().contains("MemoryError"), "{}", result.text());
}
