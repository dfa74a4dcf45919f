//! Setup shared by the benches: the corpus directory to search (the first non-flag argument,
//! or the crate sources under `$CARGO_HOME/registry/src`), whether an external tool is on the
//! `PATH`, coordinators over a directory, and timing helpers (medians, line counts).
//!
//! `benches/common/mod.rs` is not a bench target: Cargo only discovers `benches/*.rs` and
//! `benches/*/main.rs`, and every bench is listed in `Cargo.toml`.

// Each bench includes this module with `mod common;` and uses only some of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use tool_core::coordinator::CoordinatorBuilder;
use tool_core::{Coordinator, ToolCall, Toolset, Workspace};
use tool_std::fs::FileSession;

/// The directory given as the first argument that is not a flag.
pub fn dir_argument() -> Option<PathBuf> {
    std::env::args()
        .skip(1)
        .find(|arg| !arg.starts_with('-'))
        .map(PathBuf::from)
}

/// The first directory under `$CARGO_HOME/registry/src` (`~/.cargo` without `CARGO_HOME`),
/// which holds the sources of the crates a build downloaded.
pub fn registry_src() -> Option<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")))?;
    std::fs::read_dir(home.join("registry/src"))
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .next()
}

/// The corpus: the directory argument, or else the crate sources of [`registry_src`].
pub fn corpus() -> PathBuf {
    dir_argument()
        .or_else(registry_src)
        .expect("a corpus directory")
}

/// Whether `program --version` runs, i.e. the program is on the `PATH`.
pub fn on_path(program: &str) -> bool {
    Command::new(program).arg("--version").output().is_ok()
}

/// A builder with these tools over a workspace at `dir`.
pub fn builder<const N: usize>(tools: [&str; N], dir: &Path) -> CoordinatorBuilder {
    Coordinator::builder()
        .toolset(Toolset::named(tools).unwrap())
        .workspace(Workspace::new(dir).unwrap())
}

/// A coordinator with these tools over a workspace at `dir`.
pub fn coordinator<const N: usize>(tools: [&str; N], dir: &Path) -> Coordinator {
    builder(tools, dir).build().unwrap()
}

/// A coordinator with one editing tool over `dir`: a file session and a policy that allows it.
pub fn editing_coordinator(tool: &str, dir: &Path) -> Coordinator {
    builder([tool], dir)
        .state(FileSession::default())
        .policy(tool_core::policy::PolicyBuilder::default().allow(tool))
        .build()
        .unwrap()
}

/// The lines of a tool's result.
pub fn result_lines(coordinator: &Coordinator, call: &ToolCall) -> usize {
    coordinator
        .call_blocking(call.clone())
        .text()
        .lines()
        .count()
}

/// The newlines in a command's output.
pub fn newlines(output: &[u8]) -> usize {
    output.iter().filter(|&&b| b == b'\n').count()
}

/// The median of some timings.
pub fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}
