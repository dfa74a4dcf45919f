//! `toolbox serve` with a client nobody here wrote: the official MCP Python SDK (`mcp` 2.3),
//! over stdio, in its automatic mode (protocol 2026-07-28, found by `server/discover`) and its
//! legacy mode (2025-11-25, the `initialize` handshake). The checks are in
//! `tests/mcp/client_stdio.py`.
//!
//! The SDK lives in a virtual environment that `.ci/run` makes (`target/mcp-venv`); give
//! another with `TOOLKIT_MCP_PYTHON=/path/to/python`. Without one the test says so and passes,
//! unless `TOOLKIT_REQUIRE_MCP_CLIENTS` is set, as CI sets it.

use std::path::PathBuf;
use std::process::Command;

fn python() -> Option<PathBuf> {
    if let Some(python) = std::env::var_os("TOOLKIT_MCP_PYTHON") {
        return Some(PathBuf::from(python));
    }
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/mcp-venv/bin/python");
    if venv.exists() {
        return Some(venv);
    }
    assert!(
        std::env::var_os("TOOLKIT_REQUIRE_MCP_CLIENTS").is_none(),
        "the MCP Python SDK is required here: run .ci/run, or set TOOLKIT_MCP_PYTHON to a python with `mcp==2.3.0`"
    );
    eprintln!("skipped: no MCP Python SDK (run .ci/run to install it in target/mcp-venv)");
    None
}

fn run_client(mode: &str) {
    let Some(python) = python() else { return };
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(workspace.path().join("notes.md"), "# Notes\nbuy milk\n").unwrap();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client_stdio.py");
    let output = Command::new(python)
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_toolbox"))
        .arg(workspace.path())
        .arg(mode)
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    for check in [
        "ok protocol",
        "ok list",
        "ok call",
        "ok structured",
        "ok union output schema",
        "ok tool error",
        "ok invalid arguments",
        "ok approval refused",
        "ok unknown tool",
    ] {
        assert!(
            stdout.contains(check),
            "`{check}` missing:\n{stdout}\n{stderr}"
        );
    }
}

#[test]
fn the_python_sdk_lists_and_calls_over_stdio_at_2026_07_28() {
    run_client("auto");
}

#[test]
fn the_python_sdk_lists_and_calls_over_stdio_at_2025_11_25() {
    run_client("legacy");
}
