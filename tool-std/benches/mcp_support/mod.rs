//! What the MCP benches share: the directory they serve (copies of this repository's tracked
//! sources), where the peer servers are installed, one timed tool call through rmcp's client,
//! and percentiles of the samples.
//!
//! `benches/mcp_support/mod.rs` is not a bench target: Cargo only discovers `benches/*.rs` and
//! `benches/*/main.rs`.

// Each bench includes this module with `mod mcp_support;` and uses only some of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{Peer, RoleClient};
use serde_json::Value;

/// How many copies of the repository's sources make the tree: 4 copies of its 400-odd tracked
/// files are about 1,700 files and 15 MB, a mid-sized project.
pub const COPIES: usize = 4;

/// The repository root (the parent of this crate's directory).
pub fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tool-std sits in the workspace")
        .to_owned()
}

/// A temporary tree of [`COPIES`] copies (`copy1/`, `copy2/`, ...) of the repository's tracked
/// files, as `git ls-files` names them; the same tree for every server.
pub fn make_tree() -> tempfile::TempDir {
    let repository = repository();
    let listed = std::process::Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(&repository)
        .output()
        .expect("git ls-files runs (the benches copy the repository's tracked files)");
    assert!(listed.status.success(), "git ls-files failed");
    let files: Vec<&[u8]> = listed
        .stdout
        .split(|&byte| byte == 0)
        .filter(|name| !name.is_empty())
        .collect();
    let dir = tempfile::tempdir().expect("a temporary directory");
    for copy in 1..=COPIES {
        let root = dir.path().join(format!("copy{copy}"));
        for name in &files {
            let name = Path::new(std::str::from_utf8(name).expect("UTF-8 file names"));
            let from = repository.join(name);
            // A tracked file deleted in the working tree is skipped.
            if !from.is_file() {
                continue;
            }
            let to = root.join(name);
            std::fs::create_dir_all(to.parent().expect("a file has a parent"))
                .expect("create a directory in the tree");
            std::fs::copy(&from, &to).expect("copy a file into the tree");
        }
    }
    dir
}

/// The first of: the environment variable `variable`, `$HOME/.cache/toolkit-bench-tools/bin/NAME`
/// (where `cargo install --root` puts it), `NAME` on the `PATH`.
pub fn installed(variable: &str, name: &str) -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(variable) {
        return Some(PathBuf::from(path));
    }
    let cached = std::env::var_os("HOME").map(|home| {
        PathBuf::from(home)
            .join(".cache/toolkit-bench-tools/bin")
            .join(name)
    });
    if let Some(cached) = cached.filter(|path| path.is_file()) {
        return Some(cached);
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(name))
            .find(|path| path.is_file())
    })
}

/// The node binary and the reference filesystem server's entry point, from `TOOLKIT_NODE` and
/// `TOOLKIT_NODE_MODULES` (as `.ci/run` exports them).
pub fn node_filesystem_server() -> Result<(PathBuf, PathBuf), String> {
    let node = std::env::var_os("TOOLKIT_NODE")
        .ok_or("TOOLKIT_NODE is not set (the node binary; .ci/run exports it)")?;
    let modules = std::env::var_os("TOOLKIT_NODE_MODULES")
        .ok_or("TOOLKIT_NODE_MODULES is not set (the node_modules .ci/run installs)")?;
    let script =
        PathBuf::from(modules).join("@modelcontextprotocol/server-filesystem/dist/index.js");
    if !script.is_file() {
        return Err(format!("{} does not exist", script.display()));
    }
    Ok((PathBuf::from(node), script))
}

/// One call's outcome: how long it took and how many bytes of text it returned.
pub struct Sample {
    /// From sending the request to having the whole result.
    pub took: Duration,
    /// The result's text content, in bytes: the same work gives about the same size.
    pub bytes: usize,
}

/// Calls `tool` with `arguments` and times it. A transport error or an `isError` result is an
/// `Err` with what the server said.
pub async fn timed_call(
    peer: &Peer<RoleClient>,
    tool: &str,
    arguments: &Value,
) -> Result<Sample, String> {
    let arguments = arguments
        .as_object()
        .cloned()
        .ok_or("the arguments are a JSON object")?;
    let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
    let started = Instant::now();
    let result = peer
        .call_tool(params)
        .await
        .map_err(|error| format!("{tool}: {error}"))?;
    let took = started.elapsed();
    let text = text_of(&result);
    if result.is_error == Some(true) {
        return Err(format!("{tool} returned an error: {text}"));
    }
    Ok(Sample {
        took,
        bytes: text.len(),
    })
}

/// The text parts of a result, joined.
pub fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|content| content.as_text().map(|text| text.text.as_str()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `percent`th percentile (nearest rank) of sorted samples.
pub fn percentile(sorted: &[Duration], percent: usize) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = (sorted.len() * percent).div_ceil(100).max(1);
    sorted[rank.min(sorted.len()) - 1]
}

/// A duration in microseconds, for tables.
pub fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

/// The resident set size of process `pid` in kB (`VmRSS` in `/proc/PID/status`), on Linux.
pub fn rss_kb(pid: u32) -> Option<u64> {
    status_kb(pid, "VmRSS:")
}

/// The most memory process `pid` has held resident since it started, in kB (`VmHWM`).
pub fn peak_rss_kb(pid: u32) -> Option<u64> {
    status_kb(pid, "VmHWM:")
}

/// The part of process `pid`'s resident memory that is its own (`RssAnon`): heap and stacks,
/// not the pages of its executable and libraries, which the page cache shares and can drop.
pub fn anon_rss_kb(pid: u32) -> Option<u64> {
    status_kb(pid, "RssAnon:")
}

/// The field named `field` (with its colon) of `/proc/PID/status`, in kB.
fn status_kb(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}
