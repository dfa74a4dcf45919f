//! A served toolset that changes while clients are connected: the server announces it
//! (`notifications/tools/list_changed` on 2025-11-25, the `subscriptions/listen` stream on
//! 2026-07-28), and the MCP client follows a server whose tools change, so `toolbox serve
//! --mcp-config` passes a change on to its own clients.
//!
//! The clients are the official MCP Python SDK (`tests/mcp/list_changed.py`, driven step by
//! step from here: it prints `step NAME`, the test changes the toolset and answers `done NAME`)
//! and tool-core's own client. The upstream server is a coordinator served over HTTP in this
//! process, whose toolset the test changes.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use tool_core::context::CancellationToken;
use tool_core::mcp::{HttpOptions, HttpServer};
use tool_core::{Coordinator, Toolset, tool};

// The standard tools, for `toolbox`'s toolset.
use tool_std as _;

mod peers;
use peers::python;

/// A tool the served toolset starts with.
#[tool(read_only, name = "listed_base")]
fn base() -> &'static str {
    "base"
}

/// A tool added while served.
#[tool(read_only, name = "listed_extra")]
fn extra() -> &'static str {
    "extra"
}

fn extra_tool() -> tool_core::tool::ToolHandle {
    Toolset::named(["listed_extra"])
        .unwrap()
        .iter()
        .next()
        .unwrap()
        .clone()
}

/// A coordinator with `listed_base`, served over HTTP on loopback in this process.
struct Upstream {
    coordinator: Coordinator,
    url: String,
    shutdown: CancellationToken,
    /// The server runs on it until the test ends.
    _runtime: tokio::runtime::Runtime,
}

impl Upstream {
    fn start() -> Upstream {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let coordinator = Coordinator::builder()
            .toolset(Toolset::named(["listed_base"]).unwrap())
            .build()
            .unwrap();
        let server = runtime
            .block_on(HttpServer::bind(
                coordinator.clone(),
                HttpOptions::loopback(0),
            ))
            .unwrap();
        let url = server.url();
        let shutdown = server.shutdown_token();
        runtime.spawn(server.run());
        Upstream {
            coordinator,
            url,
            shutdown,
            _runtime: runtime,
        }
    }

    /// What the test does at each step the script asks for.
    fn act(&self, step: &str) {
        match step {
            "unchanged" => {
                // The tool taken out and put back: the same set.
                self.coordinator.update_toolset(|tools| {
                    let tool = tools.remove("listed_base").unwrap();
                    tools.add(tool).unwrap();
                });
            }
            "add" => self.coordinator.add_tool(extra_tool()).unwrap(),
            "remove" => {
                self.coordinator.remove_tool("listed_extra").unwrap();
            }
            other => panic!("the script asked for an unknown step `{other}`"),
        }
    }
}

impl Drop for Upstream {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

/// Runs `list_changed.py` against `target` in `mode`, changing `upstream`'s toolset at each
/// step it asks for; checks that it printed each of `checks`.
fn run_script(upstream: &Upstream, target: &str, mode: &str, added: &str, checks: &[&str]) {
    let Some(python) = python() else { return };
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/list_changed.py");
    let mut child = Command::new(python)
        .arg(script)
        .args([target, mode, added])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python runs");
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let mut printed = String::new();
    for line in stdout.lines() {
        let line = line.unwrap();
        printed.push_str(&line);
        printed.push('\n');
        if let Some(step) = line.strip_prefix("step ") {
            upstream.act(step);
            writeln!(stdin, "done {step}").unwrap();
            stdin.flush().unwrap();
        }
    }
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{printed}\n{stderr}");
    for check in checks {
        assert!(
            printed.contains(check),
            "`{check}` missing:\n{printed}\n{stderr}"
        );
    }
}

const LISTEN_CHECKS: &[&str] = &[
    "ok listen acknowledged",
    "ok no announcement for an unchanged list",
    "ok added tool announced",
    "ok a stream without toolsListChanged hears nothing",
    "ok removed tool announced",
];

#[test]
fn the_python_sdk_hears_of_changes_on_subscriptions_listen_over_http() {
    let upstream = Upstream::start();
    let url = upstream.url.clone();
    run_script(&upstream, &url, "auto", "listed_extra", LISTEN_CHECKS);
}
