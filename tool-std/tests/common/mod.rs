//! The one fixture tool-std's integration tests share: a temporary workspace, a coordinator
//! built over tool-std's tools in it, and the helpers every test file used to repeat (writing
//! and reading files in the workspace, calling a tool, taking a result's text as a success or
//! an error). A change to how the tools are set up for a test is made here, once.
//!
//! What one test file needs beyond this (files with an age, a workspace below the temporary
//! directory, a shorthand for its tool) stays in that file, as an extension of [`Fixture`].

// Each test binary compiles its own copy of this module and uses a subset of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use tool_core::policy::PolicyBuilder;
use tool_core::{Coordinator, ToolCall, ToolResult, Toolset, Workspace};
use tool_std::fs::FileSession;

/// A coordinator over `root` offering `tools`. Tools that change files are given a `policy`,
/// and with it the [`FileSession`] in which they keep what this session has read; tools that
/// only read are given neither.
pub fn coordinator(root: &Path, tools: &[&str], policy: Option<PolicyBuilder>) -> Coordinator {
    let builder = Coordinator::builder()
        .toolset(Toolset::named(tools.iter().copied()).unwrap())
        .workspace(Workspace::new(root).unwrap());
    match policy {
        Some(policy) => builder.state(FileSession::default()).policy(policy),
        None => builder,
    }
    .build()
    .unwrap()
}

/// A policy that allows each of `tools`.
pub fn allowing(tools: &[&str]) -> PolicyBuilder {
    tools
        .iter()
        .fold(PolicyBuilder::default(), |policy, &tool| policy.allow(tool))
}

/// `tool` called with `arguments`, as a model calls it.
pub fn call(coordinator: &Coordinator, tool: &str, arguments: serde_json::Value) -> ToolResult {
    coordinator.call_blocking(ToolCall::new(tool, arguments.to_string()))
}

/// A temporary directory, a workspace in it and a coordinator over that workspace.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    /// The workspace's root: `dir` itself unless built with [`Fixture::build`].
    pub root: PathBuf,
    pub coordinator: Coordinator,
}

impl Fixture {
    /// `tools` that only read, over a fresh temporary directory.
    pub fn new(tools: &[&str]) -> Self {
        Self::over(tempfile::tempdir().unwrap(), tools, None)
    }

    /// `tools` that change files, each allowed, over a fresh temporary directory.
    pub fn allowing(tools: &[&str], allowed: &[&str]) -> Self {
        Self::over(tempfile::tempdir().unwrap(), tools, Some(allowing(allowed)))
    }

    /// `tools` over `dir`, already holding what the test needs before the coordinator is built.
    pub fn over(dir: tempfile::TempDir, tools: &[&str], policy: Option<PolicyBuilder>) -> Self {
        let root = dir.path().to_path_buf();
        Self::build(dir, root, tools, policy)
    }

    /// `tools` over the workspace `root`, which lies in `dir`.
    pub fn build(
        dir: tempfile::TempDir,
        root: PathBuf,
        tools: &[&str],
        policy: Option<PolicyBuilder>,
    ) -> Self {
        let coordinator = coordinator(&root, tools, policy);
        Fixture {
            dir,
            root,
            coordinator,
        }
    }

    /// Writes `bytes` to `name` in the workspace, creating its directories.
    pub fn file(&self, name: &str, bytes: &[u8]) {
        let path = self.root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }

    /// The bytes of `name` in the workspace.
    pub fn bytes(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.root.join(name)).unwrap()
    }

    pub fn call(&self, tool: &str, arguments: serde_json::Value) -> ToolResult {
        call(&self.coordinator, tool, arguments)
    }
}

/// The text of a result that must be a success.
pub fn ok(result: &ToolResult) -> String {
    assert!(!result.is_error(), "{}", result.text());
    result.text().into_owned()
}

/// The text of a result that must be an error.
pub fn err(result: &ToolResult) -> String {
    assert!(
        result.is_error(),
        "expected an error, got: {}",
        result.text()
    );
    result.text().into_owned()
}
