//! What the shell tools' tests share beyond the common fixture: a coordinator over the shell
//! tools (with an artifact store the test can read, a policy and a cancellation token of its
//! choosing), replies parsed into the tools' own types, and a look at `/proc` for the
//! processes of a group.

// Each test binary compiles its own copy of this module and uses a subset of it.
#![allow(dead_code)]

use std::path::Path;
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use tool_core::context::CancellationToken;
use tool_core::middleware::Artifacts;
use tool_core::policy::{Mode, PolicyBuilder};
use tool_core::{Coordinator, ToolCall, ToolResult, Toolset, Workspace};

pub const SHELL_TOOLS: [&str; 4] = ["run_shell", "shell_output", "kill_shell", "list_shells"];

/// A temporary workspace and a coordinator over the shell tools in it.
pub struct Shell {
    pub dir: tempfile::TempDir,
    pub coordinator: Coordinator,
    pub artifacts: Artifacts,
    pub cancellation: CancellationToken,
}

impl Shell {
    /// Every shell tool, each allowed.
    pub fn new() -> Self {
        Self::with(allow_all(), Mode::Default)
    }

    /// The shell tools under `policy`, in `mode`.
    pub fn with(policy: PolicyBuilder, mode: Mode) -> Self {
        Self::sandboxed(policy, mode, None)
    }

    /// The shell tools under `policy`, in `mode`, with `sandbox` as the sandbox's
    /// configuration (the default without one).
    pub fn sandboxed(
        policy: PolicyBuilder,
        mode: Mode,
        sandbox: Option<tool_std::shell::sandbox::SandboxConfig>,
    ) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let artifacts = Artifacts::default();
        let cancellation = CancellationToken::new();
        let mut builder = Coordinator::builder()
            .toolset(Toolset::named(SHELL_TOOLS).unwrap())
            .workspace(Workspace::new(dir.path()).unwrap())
            .state(artifacts.clone())
            .policy(policy)
            .mode(mode)
            .cancellation(cancellation.clone());
        if let Some(sandbox) = sandbox {
            builder = builder.state(sandbox);
        }
        let coordinator = builder.build().unwrap();
        Shell {
            dir,
            coordinator,
            artifacts,
            cancellation,
        }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// `tool` called with `arguments`, as a model calls it.
    pub fn call(&self, tool: &str, arguments: serde_json::Value) -> ToolResult {
        self.coordinator
            .call_blocking(ToolCall::new(tool, arguments.to_string()))
    }

    /// `tool`'s successful structured reply, as `T`.
    pub fn reply<T: DeserializeOwned>(&self, tool: &str, arguments: serde_json::Value) -> T {
        structured(&self.call(tool, arguments))
    }

    /// `command` run to its end.
    pub fn run(&self, command: &str) -> tool_std::ShellRun {
        self.run_with(serde_json::json!({ "command": command }))
    }

    /// run_shell called with `arguments`, which must run a command to its end.
    pub fn run_with(&self, arguments: serde_json::Value) -> tool_std::ShellRun {
        match self.reply("run_shell", arguments) {
            tool_std::ShellReply::Finished(run) => run,
            other => panic!("expected a finished command, got {other:?}"),
        }
    }

    /// `command` started as a background job; its id.
    pub fn start(&self, command: &str) -> String {
        match self.reply(
            "run_shell",
            serde_json::json!({ "command": command, "run_in_background": true }),
        ) {
            tool_std::ShellReply::Started(started) => started.job_id,
            other => panic!("expected a started job, got {other:?}"),
        }
    }

    /// shell_output of `id` with `arguments` added.
    pub fn job_output(&self, id: &str, mut arguments: serde_json::Value) -> tool_std::JobOutput {
        arguments["id"] = id.into();
        self.reply("shell_output", arguments)
    }

    /// Reads job `id`'s new output until `done` holds for what was read in all (at most
    /// 10 seconds); everything read.
    pub fn read_until(&self, id: &str, done: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut seen = String::new();
        loop {
            seen.push_str(&self.job_output(id, serde_json::json!({})).output);
            if done(&seen) {
                return seen;
            }
            assert!(
                Instant::now() < deadline,
                "job {id} never printed what was awaited; it printed {seen:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// A policy that allows every shell tool.
pub fn allow_all() -> PolicyBuilder {
    SHELL_TOOLS
        .iter()
        .fold(PolicyBuilder::default(), |policy, tool| policy.allow(*tool))
}

/// The structured reply of a successful result, as `T`.
pub fn structured<T: DeserializeOwned>(result: &ToolResult) -> T {
    assert!(!result.is_error(), "{}", result.text());
    let value = result.structured().expect("a structured reply").clone();
    serde_json::from_value(value).unwrap()
}

/// The pids of the processes of group `pgid` that are alive (not zombies: a zombie has ended,
/// and who reaps it is up to its parent, here possibly a container's init).
pub fn live_members(pgid: u32) -> Vec<u32> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue; // it ended while we looked
        };
        // `pid (comm) state ppid pgrp ...`: the command name may hold spaces and parentheses.
        let Some((_, fields)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = fields.split_whitespace().collect();
        if fields.get(2).and_then(|pgrp| pgrp.parse::<u32>().ok()) == Some(pgid)
            && fields.first() != Some(&"Z")
        {
            members.push(pid);
        }
    }
    members
}

/// Waits (at most 5 seconds: signals are delivered asynchronously) until group `pgid` has no
/// live process; the pids still alive otherwise.
pub fn group_gone(pgid: u32) -> Result<(), Vec<u32>> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let members = live_members(pgid);
        if members.is_empty() {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(members);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The process group id a command printed as the first line of its output (read from
/// `/proc/$$/stat`: under bubblewrap the group's leader is `bwrap`, not the shell).
pub fn first_line_pgid(output: &str) -> u32 {
    output
        .lines()
        .next()
        .and_then(|line| line.trim().parse().ok())
        .unwrap_or_else(|| panic!("expected a pid on the first line of {output:?}"))
}
