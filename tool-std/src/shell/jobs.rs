//! [`ShellJobs`]: the background jobs of one coordinator's session, by id.
//!
//! The table is a session value (`ctx.session_state::<ShellJobs>()`), dropped with the
//! coordinator; each job owns its [`Process`] handle, and dropping a handle stops its process
//! group, so no job outlives the coordinator. Nothing a job runs holds the table: its
//! supervisor thread shares only the process's own state.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tool_core::ToolError;

use super::output::OUTPUT_CAP;
use super::process::Process;
use super::sandbox::{Bounds, Prepared};

/// Ended jobs kept for `shell_output` and `list_shells`; past this many the oldest ended ones
/// are forgotten (each may hold up to [`OUTPUT_CAP`] bytes of output). Running jobs are never
/// forgotten.
pub(crate) const KEEP_ENDED: usize = 32;

/// The number a session's first background job gets (`shell_N`): 1 unless the coordinator is
/// given another as state. For a program whose sessions' jobs outlive one process (`toolbox
/// call --session` starts a keeper of them when the last one has ended), so that an id is never
/// given to two jobs of one session.
///
/// ```
/// use tool_core::{Coordinator, ToolCall, Toolset, Workspace, policy::PolicyBuilder};
/// use tool_std::shell::FirstJobNumber;
///
/// let dir = tempfile::tempdir().unwrap();
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["run_shell", "kill_shell"]).unwrap())
///     .workspace(Workspace::new(dir.path()).unwrap())
///     .policy(PolicyBuilder::default().allow("run_shell").allow("kill_shell"))
///     .state(FirstJobNumber(8))
///     .build()
///     .unwrap();
/// let job = r#"{"command": "sleep 30", "run_in_background": true}"#;
/// let started = coordinator.call_blocking(ToolCall::new("run_shell", job));
/// assert_eq!(started.structured().unwrap()["job_id"], "shell_8");
/// coordinator.call_blocking(ToolCall::new("kill_shell", r#"{"id": "shell_8"}"#));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FirstJobNumber(pub u64);

/// The background jobs of a session. Made on first use by
/// [`session_state`](tool_core::context::ToolContext::session_state).
#[derive(Default)]
pub(crate) struct ShellJobs {
    jobs: Mutex<Vec<Arc<Job>>>,
    /// How many jobs were started.
    next_id: AtomicU64,
    /// The number of the first one (see [`FirstJobNumber`]); 0 before it.
    first: AtomicU64,
}

/// One background job.
pub(crate) struct Job {
    pub(crate) id: String,
    pub(crate) command: String,
    pub(crate) description: Option<String>,
    pub(crate) process: Process,
    /// The output position the last `shell_output` read up to.
    pub(crate) read_up_to: Mutex<u64>,
    /// What its sandbox allowed, when it has one, to explain a refusal once it failed.
    pub(crate) sandbox: Option<Bounds>,
}

impl ShellJobs {
    /// Starts `command` in `workdir` as a new job, confined by `sandbox` when given; returns
    /// it.
    pub(crate) fn start(
        &self,
        command: String,
        description: Option<String>,
        workdir: &std::path::Path,
        sandbox: Option<&Prepared>,
        first: FirstJobNumber,
    ) -> std::io::Result<Arc<Job>> {
        let process = Process::start(&command, workdir, OUTPUT_CAP, sandbox)?;
        let sandbox = sandbox.map(|sandbox| sandbox.bounds(workdir));
        let first = match self.first.compare_exchange(
            0,
            first.0.max(1),
            Ordering::Relaxed,
            Ordering::Relaxed,
        ) {
            Ok(_) => first.0.max(1),
            Err(set) => set,
        };
        let number = first + self.next_id.fetch_add(1, Ordering::Relaxed);
        let id = format!("shell_{number}");
        let job = Arc::new(Job {
            id,
            command,
            description,
            process,
            read_up_to: Mutex::new(0),
            sandbox,
        });
        let mut jobs = self.lock();
        let ended = jobs
            .iter()
            .filter(|job| job.process.exit().is_some())
            .count();
        let mut forget = ended.saturating_sub(KEEP_ENDED - 1);
        jobs.retain(|job| {
            let keep = forget == 0 || job.process.exit().is_none();
            forget -= usize::from(!keep);
            keep
        });
        jobs.push(Arc::clone(&job));
        Ok(job)
    }

    /// The job `id`.
    ///
    /// # Errors
    /// An error for the model naming the jobs there are, when none has that id.
    pub(crate) fn get(&self, id: &str) -> Result<Arc<Job>, ToolError> {
        let jobs = self.lock();
        if let Some(job) = jobs.iter().find(|job| job.id == id) {
            return Ok(Arc::clone(job));
        }
        let started = self.next_id.load(Ordering::Relaxed);
        let first = self.first.load(Ordering::Relaxed);
        let ids: Vec<&str> = jobs.iter().map(|job| job.id.as_str()).collect();
        let forgotten = id
            .strip_prefix("shell_")
            .and_then(|n| n.parse::<u64>().ok())
            // Numbers below the first were given by an earlier process of the session.
            .is_some_and(|n| (1..first + started).contains(&n));
        Err(ToolError::failed(if forgotten {
            format!(
                "shell job `{id}` ended and was forgotten: only the {KEEP_ENDED} newest ended jobs are kept; the jobs are: {}",
                ids.join(", ")
            )
        } else if ids.is_empty() {
            format!(
                "no shell job `{id}`: this session has started none (run_shell with run_in_background=true starts one)"
            )
        } else {
            format!(
                "no shell job `{id}`; the jobs are: {} (list_shells shows them)",
                ids.join(", ")
            )
        }))
    }

    /// Every job, oldest first.
    pub(crate) fn all(&self) -> Vec<Arc<Job>> {
        self.lock().clone()
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Arc<Job>>> {
        self.jobs.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Job {
    /// `running`, `exited with code 0`, `killed by SIGTERM (kill_shell)`, ...
    pub(crate) fn status(&self) -> String {
        match self.process.exit() {
            None if self.process.was_terminated() => "stopping".to_owned(),
            None => "running".to_owned(),
            Some(exit) if self.process.was_terminated() => {
                format!("{exit} (stopped by kill_shell)")
            }
            Some(exit) => exit.to_string(),
        }
    }

    /// How long it ran, or has been running.
    pub(crate) fn runtime(&self) -> Duration {
        self.process.duration()
    }
}
