//! `shell_output`: what a background job printed since the last look, and how it is doing.

use regex::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tool_core::context::ToolContext;
use tool_core::{Structured, ToolError, tool};

use crate::shell::jobs::ShellJobs;
use crate::shell::output::{self, OUTPUT_CAP};
use crate::shell::sandbox::denial_note;

/// A background job's new output and status, as `shell_output` answers.
///
/// ```
/// use tool_core::{Coordinator, ToolCall, Toolset, Workspace, policy::PolicyBuilder};
/// use tool_std::{JobOutput, ShellReply};
///
/// let dir = tempfile::tempdir().unwrap();
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["run_shell", "shell_output"]).unwrap())
///     .workspace(Workspace::new(dir.path()).unwrap())
///     .policy(PolicyBuilder::default().allow("run_shell"))
///     .build()
///     .unwrap();
/// let call = |tool: &str, arguments: serde_json::Value| {
///     let result = coordinator.call_blocking(ToolCall::new(tool, arguments.to_string()));
///     result.structured().unwrap().clone()
/// };
/// let started = call("run_shell", serde_json::json!({
///     "command": "echo compiling; echo done",
///     "run_in_background": true,
/// }));
/// let ShellReply::Started(job) = serde_json::from_value(started).unwrap() else { panic!() };
/// let mut printed = String::new();
/// let ended = loop {
///     let read = call("shell_output", serde_json::json!({ "id": job.job_id }));
///     let output: JobOutput = serde_json::from_value(read).unwrap();
///     printed.push_str(&output.output); // only what is new since the last read
///     if output.exit_code.is_some() {
///         break output;
///     }
///     std::thread::sleep(std::time::Duration::from_millis(10));
/// };
/// assert_eq!((ended.status.as_str(), printed.as_str()), ("exited with code 0", "compiling\ndone\n"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct JobOutput {
    /// The job's id.
    pub job_id: String,
    /// `running`, `exited with code 0`, `killed by SIGTERM (stopped by kill_shell)`, ...
    pub status: String,
    /// The exit code, once it exited.
    pub exit_code: Option<i32>,
    /// The signal that ended it, if one did.
    pub signal: Option<String>,
    /// How long it ran, or has been running, in milliseconds.
    pub runtime_ms: u64,
    /// Its output (since the last read, with `since_last`), lines matching `filter` only when
    /// one is given; the head and tail when long.
    pub output: String,
    /// The artifact holding the whole of `output`, when it is cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact: Option<String>,
    /// What else to know (output dropped before it was read, a line not yet ended).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// What the model reads: the job's status and run time, any note, then its new output.
impl std::fmt::Display for JobOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "Job {}: {} ({})",
            self.job_id,
            self.status,
            output::duration(self.runtime_ms)
        )?;
        output::write_output(f, self.note.as_deref(), &self.output)
    }
}

/// Read a background job's output (started by `run_shell` with `run_in_background`): what it
/// printed since the last read, and its status (running, or how it ended). While the job runs,
/// only whole lines are returned; a line still being written comes with the next read.
///
/// # Arguments
/// * `id` - The job's id, as `run_shell` returned it.
/// * `filter` - Only lines matching this regular expression (Rust regex syntax). Lines that do not match are still counted as read.
/// * `since_last` - Only what is new since the last read (default true); false for all of its output kept. Either way the next read starts after this one.
#[tool(
    read_only,
    closed_world,
    name = "shell_output",
    aliases("BashOutput"),
    tags("shell")
)]
fn shell_output(
    ctx: &ToolContext,
    #[serde(alias = "bash_id", alias = "shell_id", alias = "job_id")] id: String,
    filter: Option<String>,
    #[arg(default = true)] since_last: bool,
) -> Result<Structured<JobOutput>, ToolError> {
    let filter = filter
        .as_deref()
        .map(Regex::new)
        .transpose()
        .map_err(|error| {
            ToolError::failed(format!(
                "filter is not a valid regular expression ({error}); escape special characters such as `(` or `[` with `\\`"
            ))
        })?;
    let job = ctx.session_state::<ShellJobs>().get(&id)?;
    // The status before the output: a job seen ended has all its output in the buffer.
    let exit = job.process.exit();
    let mut notes = Vec::new();
    let text = {
        let buffer = job.process.output();
        let mut read_up_to = job
            .read_up_to
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let from = if since_last { *read_up_to } else { 0 };
        let (bytes, dropped) = buffer.since(from);
        if dropped > 0 {
            notes.push(format!(
                "{dropped} bytes of output were dropped before they were read: a job keeps at most its last {OUTPUT_CAP} bytes"
            ));
        }
        // While the job runs, a line still being written waits for its end.
        let whole = match exit {
            Some(_) => bytes.len(),
            None => bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1),
        };
        if whole < bytes.len() {
            notes.push(format!(
                "{} bytes of a line not yet ended are held for the next read",
                bytes.len() - whole
            ));
        }
        *read_up_to = buffer.end() - (bytes.len() - whole) as u64;
        output::clean(&bytes[..whole])
    };
    // A job that failed in the sandbox: what it was refused, from what this read shows.
    let failed = exit.is_some_and(|exit| exit.code() != Some(0));
    if let Some(bounds) = job.sandbox.as_ref().filter(|_| failed)
        && let Some(refused) = denial_note(&text, bounds)
    {
        notes.push(refused);
    }
    let text = match &filter {
        Some(filter) => {
            let mut kept = String::new();
            for line in text.lines().filter(|line| filter.is_match(line)) {
                kept.push_str(line);
                kept.push('\n');
            }
            kept
        }
        None => text,
    };
    let fitted = output::fit(ctx, text);
    Ok(Structured(JobOutput {
        job_id: job.id.clone(),
        status: job.status(),
        exit_code: exit.and_then(|exit| exit.code()),
        signal: exit.and_then(|exit| exit.signal()),
        runtime_ms: u64::try_from(job.runtime().as_millis()).unwrap_or(u64::MAX),
        output: fitted.text,
        artifact: fitted.artifact,
        note: (!notes.is_empty()).then(|| notes.join("; ")),
    }))
}
