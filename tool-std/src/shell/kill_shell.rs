//! `kill_shell`: stop a background job's whole process group.
//!
//! The tool is mutating, not destructive: it ends processes this session itself started as
//! jobs (no other process can be named), which `run_shell` can start again; what a job was
//! doing when stopped is the job's own business, as it is when its time is up. It is
//! idempotent: killing an ended job reports how it ended and changes nothing.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tool_core::context::ToolContext;
use tool_core::{Structured, ToolError, tool};

use crate::shell::jobs::ShellJobs;
use crate::shell::process::GRACE;

/// How long, past the grace period, to wait for a killed job to end before answering.
const KILL_WAIT: Duration = Duration::from_secs(3);

/// A job stopped, or found ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct JobKilled {
    /// The job's id.
    pub job_id: String,
    /// How it ended (`killed by SIGTERM (stopped by kill_shell)`), or `stopping` if it has
    /// not ended yet.
    pub status: String,
    /// It had already ended before this call: nothing was stopped.
    pub already_ended: bool,
}

/// What the model reads: how the job ended, or that it had ended already.
impl std::fmt::Display for JobKilled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.already_ended {
            writeln!(
                f,
                "Job {} had already ended ({}): nothing was stopped",
                self.job_id, self.status
            )
        } else {
            writeln!(f, "Job {}: {}", self.job_id, self.status)
        }
    }
}

/// Stop a background job (started by `run_shell` with `run_in_background`) and every process
/// it started: SIGTERM to its process group, then SIGKILL after 2 seconds. Its output can
/// still be read with `shell_output`.
///
/// # Arguments
/// * `id` - The job's id, as `run_shell` returned it.
#[tool(
    closed_world,
    name = "kill_shell",
    aliases("KillShell"),
    idempotent,
    tags("shell")
)]
async fn kill_shell(
    ctx: ToolContext,
    #[serde(alias = "shell_id", alias = "bash_id", alias = "job_id")] id: String,
) -> Result<Structured<JobKilled>, ToolError> {
    let job = ctx.session_state::<ShellJobs>().get(&id)?;
    let already_ended = job.process.exit().is_some();
    if !already_ended {
        job.process.terminate();
        // Answered when it has ended, so the status says how.
        let _ = tokio::time::timeout(GRACE + KILL_WAIT, job.process.wait()).await;
    }
    Ok(Structured(JobKilled {
        job_id: job.id.clone(),
        status: job.status(),
        already_ended,
    }))
}
