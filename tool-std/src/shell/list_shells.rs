//! `list_shells`: the session's background jobs.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tool_core::context::ToolContext;
use tool_core::{Structured, tool};

use crate::shell::jobs::ShellJobs;

/// The session's background jobs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ShellList {
    /// Every job, oldest first.
    pub jobs: Vec<JobSummary>,
}

/// One background job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct JobSummary {
    /// Its id.
    pub job_id: String,
    /// The command line.
    pub command: String,
    /// What it does, as the call that started it said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `running`, `exited with code 0`, `killed by SIGTERM (stopped by kill_shell)`, ...
    pub status: String,
    /// How long it ran, or has been running, in milliseconds.
    pub runtime_ms: u64,
}

/// What the model reads: one line per job (id, status, run time, command, description).
impl std::fmt::Display for ShellList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.jobs.is_empty() {
            return writeln!(f, "No background jobs.");
        }
        for job in &self.jobs {
            write!(
                f,
                "{}: {} ({}): {}",
                job.job_id,
                job.status,
                crate::shell::output::duration(job.runtime_ms),
                job.command
            )?;
            match &job.description {
                Some(description) => writeln!(f, " ({description})")?,
                None => writeln!(f)?,
            }
        }
        Ok(())
    }
}

/// List the background jobs this session started with `run_shell` (`run_in_background`):
/// id, command, status and how long each has run.
#[tool(read_only, closed_world, name = "list_shells", tags("shell"))]
fn list_shells(ctx: &ToolContext) -> Structured<ShellList> {
    let jobs = ctx
        .session_state::<ShellJobs>()
        .all()
        .iter()
        .map(|job| JobSummary {
            job_id: job.id.clone(),
            command: job.command.clone(),
            description: job.description.clone(),
            status: job.status(),
            runtime_ms: u64::try_from(job.runtime().as_millis()).unwrap_or(u64::MAX),
        })
        .collect();
    Structured(ShellList { jobs })
}
