//! `toolbox serve` with a client nobody here wrote: the official MCP Python SDK (`mcp` 2.3),
//! over stdio, in its automatic mode (protocol 2026-07-28, found by `server/discover`) and its
//! legacy mode (2025-11-25, the `initialize` handshake). The checks are in
//! `tests/mcp/client_stdio.py` (list, call, progress, errors; a client that cannot be asked)
//! and `tests/mcp/approvals_stdio.py` (approval by elicitation, and the sealed request state
//! of the 2026-07-28 round trip).
//!
//! The SDK lives in a virtual environment that `.ci/run` makes (`target/mcp-venv`); give
//! another with `TOOLKIT_MCP_PYTHON=/path/to/python`. Without one the test says so and passes,
//! unless `TOOLKIT_REQUIRE_MCP_CLIENTS` is set, as CI sets it.

use std::path::PathBuf;
use std::process::Command;

mod peers;
use peers::{python, script_passed};

/// Runs `script` (in tests/mcp) against `toolbox serve` on a fresh workspace, in `mode`, and
/// checks that it printed each of `checks`.
fn run_script(script: &str, mode: &str, checks: &[&str]) {
    let Some(python) = python() else { return };
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(workspace.path().join("notes.md"), "# Notes\nbuy milk\n").unwrap();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mcp")
        .join(script);
    let output = Command::new(python)
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_toolbox"))
        .arg(workspace.path())
        .arg(mode)
        .output()
        .expect("python runs");
    script_passed(&output, checks);
}

const CLIENT_CHECKS: &[&str] = &[
    "ok protocol",
    "ok list",
    "ok call",
    "ok structured",
    "ok union output schema",
    "ok progress",
    "ok tool error",
    "ok invalid arguments",
    "ok approval refused",
    "ok unknown tool",
];

/// What both protocol versions do when the user is asked.
const APPROVAL_CHECKS: &[&str] = &[
    "ok elicitation accepted",
    "ok elicitation rejected with guidance",
    "ok elicitation declined",
    "ok session approval",
];

#[test]
fn the_python_sdk_lists_and_calls_over_stdio_at_2026_07_28() {
    run_script(
        "client_stdio.py",
        "auto",
        &[CLIENT_CHECKS, &["ok list caching"]].concat(),
    );
}

#[test]
fn the_python_sdk_lists_and_calls_over_stdio_at_2025_11_25() {
    run_script("client_stdio.py", "legacy", CLIENT_CHECKS);
}

#[test]
fn the_python_sdk_answers_approvals_by_the_input_required_round_trip_at_2026_07_28() {
    let round_trip = [
        "ok plan refused mid-tool",
        "ok tampered state refused",
        "ok state of another call refused",
        "ok round trip by hand",
    ];
    run_script(
        "approvals_stdio.py",
        "auto",
        &[APPROVAL_CHECKS, &round_trip].concat(),
    );
}

#[test]
fn the_python_sdk_answers_approvals_by_elicitation_create_at_2025_11_25() {
    run_script(
        "approvals_stdio.py",
        "legacy",
        &[
            APPROVAL_CHECKS,
            &["ok plan asked", "ok cancelled while asking"],
        ]
        .concat(),
    );
}
