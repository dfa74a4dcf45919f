//! `run_shell`: a command line run under bash without a terminal, to its end or its time
//! limit, or started as a background job; over the [`shell`](crate::shell) engine.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tool_core::context::ToolContext;
use tool_core::error::{ArgumentError, ArgumentProblem};
use tool_core::{Structured, ToolError, Workspace, WorkspacePath, tool};

use crate::fs::io_error;
use crate::shell::jobs::{FirstJobNumber, ShellJobs};
use crate::shell::output::{self, OUTPUT_CAP};
use crate::shell::process::{Exit, GRACE, Process};
use crate::shell::read_only::is_read_only;
use crate::shell::sandbox::{CallSandbox, Lasting};

/// The time limit of a command when the call gives none: two minutes.
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// The longest time limit a call may ask for: ten minutes.
pub const MAX_TIMEOUT_MS: u64 = 600_000;
/// How long a stopped command may take to end after SIGKILL before the call gives up waiting
/// (a process in uninterruptible sleep), on top of [`GRACE`].
const KILL_WAIT: Duration = Duration::from_secs(3);

/// How often a command still running reports its progress (a UI's progress line, an MCP
/// client's `notifications/progress`): seconds run of its time limit, and its last line.
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

/// The longest last line of output a progress report carries.
const PROGRESS_LINE_CHARS: usize = 200;

/// What `run_shell` answers: how a command ended, or the id of the background job it
/// started. The structured value of the result deserializes into it.
///
/// ```
/// use tool_core::{Coordinator, ToolCall, Toolset, Workspace, policy::PolicyBuilder};
/// use tool_std::ShellReply;
///
/// let dir = tempfile::tempdir().unwrap();
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["run_shell"]).unwrap())
///     .workspace(Workspace::new(dir.path()).unwrap())
///     .policy(PolicyBuilder::default().allow("run_shell"))
///     .build()
///     .unwrap();
/// let call = ToolCall::new("run_shell", r#"{"command": "echo out; echo err >&2; exit 3"}"#);
/// let result = coordinator.call_blocking(call);
/// let reply: ShellReply = serde_json::from_value(result.structured().unwrap().clone()).unwrap();
/// let ShellReply::Finished(run) = reply else { panic!("not a background job") };
/// assert_eq!((run.exit_code, run.timed_out), (Some(3), false));
/// assert_eq!(run.output, "out\nerr\n");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ShellReply {
    /// The command ran to its end (or its time limit).
    Finished(ShellRun),
    /// The command runs on as a background job.
    Started(ShellJobStarted),
}

/// How a command ended, and what it printed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ShellRun {
    /// The exit code, when the command exited (0 is success).
    pub exit_code: Option<i32>,
    /// The signal that ended it (`SIGTERM`, `SIGKILL`, ...), when one did.
    pub signal: Option<String>,
    /// It ran past its time limit and was stopped.
    pub timed_out: bool,
    /// How long it ran, in milliseconds.
    pub duration_ms: u64,
    /// Its stdout and stderr, in the order written, terminal codes removed; the head and tail
    /// when long.
    pub output: String,
    /// The artifact holding the whole output, when `output` is cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact: Option<String>,
    /// What else to know (output dropped past the cap, the time limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A background job started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ShellJobStarted {
    /// The job's id, for `shell_output`, `kill_shell` and `list_shells`.
    pub job_id: String,
    /// What to do next.
    pub message: String,
}

/// What the model reads: the status, the wall time, any note, then the output as it came.
///
/// ```
/// use tool_std::{ShellReply, ShellRun};
///
/// let run = ShellRun {
///     exit_code: Some(1),
///     signal: None,
///     timed_out: false,
///     duration_ms: 1_250,
///     output: "error: \"x\" not found\n".to_owned(),
///     artifact: None,
///     note: None,
/// };
/// assert_eq!(
///     ShellReply::Finished(run).to_string(),
///     "Exit code: 1\nWall time: 1.2 s\nOutput:\nerror: \"x\" not found\n"
/// );
/// ```
impl std::fmt::Display for ShellReply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShellReply::Finished(run) => run.fmt(f),
            ShellReply::Started(job) => job.fmt(f),
        }
    }
}

impl std::fmt::Display for ShellRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.timed_out, self.exit_code, &self.signal) {
            (true, _, Some(signal)) => {
                writeln!(f, "Timed out: stopped at its time limit ({signal})")?;
            }
            (true, _, None) => writeln!(f, "Timed out: stopped at its time limit")?,
            (false, Some(code), _) => writeln!(f, "Exit code: {code}")?,
            (false, None, Some(signal)) => writeln!(f, "Ended by signal: {signal}")?,
            (false, None, None) => writeln!(f, "Exit status: unknown")?,
        }
        writeln!(f, "Wall time: {}", output::duration(self.duration_ms))?;
        output::write_output(f, self.note.as_deref(), &self.output)
    }
}

impl std::fmt::Display for ShellJobStarted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The message names the job: "started in the background as sh_1; read its ...".
        let mut message = self.message.chars();
        if let Some(first) = message.next() {
            write!(f, "{}", first.to_uppercase())?;
        }
        writeln!(f, "{}", message.as_str())
    }
}

/// Run a shell command line (bash) in the workspace and return its exit code and output
/// (stdout and stderr together, in order, terminal codes removed; long output is cut to its
/// head and tail and kept whole as an artifact). There is no terminal: stdin is empty and
/// prompts fail at once, so pass flags such as `--yes` or `-m` instead of waiting for input.
/// The command ends at its time limit (2 minutes by default), its whole process group
/// stopped; so do processes it leaves running when it exits. For a server or watcher, set
/// `run_in_background` and read its output with `shell_output`. Commands run in a sandbox
/// where the system has one: they may write only inside the workspace and `$TMPDIR`, and have
/// no network unless it is configured; `note` says what the sandbox refused.
///
/// # Arguments
/// * `command` - The command line to run (bash syntax).
/// * `workdir` - The directory to run it in, inside the workspace (default: the workspace root).
/// * `timeout_ms` - Time limit in milliseconds (default 120000, at most 600000). Not applied to a background job.
/// * `run_in_background` - Start it as a background job and return its id at once.
/// * `description` - What the command does, in a few words (shown by `list_shells`).
#[tool(
    name = "run_shell",
    aliases("Bash"),
    open_world,
    read_only_if = only_reads,
    // The tool keeps its own time limit (`timeout_ms`, up to ten minutes) and stops the
    // command itself; the coordinator's default limit must not cut it short.
    timeout_ms = 620_000,
    tags("shell")
)]
async fn run_shell(
    ctx: ToolContext,
    ws: Workspace,
    #[arg(command)] command: String,
    #[serde(alias = "directory", alias = "cwd")] workdir: Option<WorkspacePath>,
    #[serde(alias = "timeout")]
    #[schemars(range(min = 1, max = 600_000))]
    #[arg(default = DEFAULT_TIMEOUT_MS)]
    timeout_ms: u64,
    #[arg(default)] run_in_background: bool,
    description: Option<String>,
) -> Result<Structured<ShellReply>, ToolError> {
    if timeout_ms == 0 || timeout_ms > MAX_TIMEOUT_MS {
        return Err(invalid(
            "timeout_ms",
            format!(
                "milliseconds from 1 to {MAX_TIMEOUT_MS} (10 minutes); for longer, set run_in_background"
            ),
            timeout_ms.to_string(),
        ));
    }
    if command.trim().is_empty() {
        // Run, an empty command succeeds and says nothing: the model would read that as done.
        return Err(invalid(
            "command",
            "the shell command to run".to_owned(),
            format!("{command:?}"),
        ));
    }
    let dir = match &workdir {
        Some(path) => {
            let shown = path.sent().display().to_string();
            let metadata = ws
                .metadata(path)
                .map_err(|error| io_error(&ws, &shown, &error))?;
            if !metadata.is_dir() {
                return Err(ToolError::failed(format!(
                    "workdir `{shown}` is a file, not a directory; give the directory to run the command in"
                )));
            }
            path.in_workspace(&ws)
        }
        None => ws.root().to_owned(),
    };
    let not_started = |error: std::io::Error| {
        ToolError::failed(format!(
            "the command could not be started ({error}) by {}",
            crate::shell::spawn::shell().display()
        ))
    };
    let lasting = if run_in_background {
        Lasting::Job
    } else {
        Lasting::Command
    };
    let sandbox = CallSandbox::for_call(&ctx, &ws, lasting)?;
    if run_in_background {
        let job = ctx
            .session_state::<ShellJobs>()
            .start(
                command,
                description,
                &dir,
                sandbox.prepared.as_ref(),
                ctx.state::<FirstJobNumber>()
                    .map_or(FirstJobNumber(1), |first| **first),
            )
            .map_err(not_started)?;
        let unsandboxed = sandbox
            .unsandboxed
            .map(|why| format!(" ({why})"))
            .unwrap_or_default();
        return Ok(Structured(ShellReply::Started(ShellJobStarted {
            message: format!(
                "started in the background as {id}{unsandboxed}; read its output with shell_output(id=\"{id}\"), stop it with kill_shell(id=\"{id}\")",
                id = job.id
            ),
            job_id: job.id.clone(),
        })));
    }
    let process = Process::start(&command, &dir, OUTPUT_CAP, sandbox.prepared.as_ref())
        .map_err(not_started)?;
    let limit = Duration::from_millis(timeout_ms);
    let cancellation = ctx.cancellation().clone();
    let progress = ctx.progress();
    let out_of_time = tokio::time::sleep(limit);
    tokio::pin!(out_of_time);
    let mut ticks =
        tokio::time::interval_at(tokio::time::Instant::now() + PROGRESS_EVERY, PROGRESS_EVERY);
    let (exit, timed_out) = loop {
        tokio::select! {
            exit = process.wait() => break (Some(exit), false),
            () = &mut out_of_time => break (stop(&process).await, true),
            () = cancellation.cancelled() => {
                stop(&process).await;
                return Err(ToolError::Cancelled);
            }
            _ = ticks.tick() => report_progress(&progress, &process, limit),
        }
    };
    let mut notes: Vec<String> = sandbox.unsandboxed.iter().cloned().collect();
    if timed_out {
        notes.push(format!(
            "the command ran past its time limit of {timeout_ms} ms and was stopped (its whole process group); raise timeout_ms (at most {MAX_TIMEOUT_MS}) or set run_in_background"
        ));
    }
    if !timed_out && process.left_running() {
        notes.push(
            "processes the command left running (`cmd &`) were stopped when it exited; start a server or watcher with run_in_background to keep it"
                .to_owned(),
        );
    }
    if exit.is_none() {
        notes.push(
            "the command did not end even after SIGKILL (a process in uninterruptible sleep?)"
                .to_owned(),
        );
    }
    let (text, dropped) = {
        let buffer = process.output();
        let (bytes, dropped) = buffer.since(0);
        (output::clean(bytes), dropped)
    };
    if dropped > 0 {
        notes.push(format!(
            "the first {dropped} bytes of output were dropped: at most the last {OUTPUT_CAP} bytes are kept"
        ));
    }
    let exit = exit.unwrap_or(Exit::Unknown);
    if exit != Exit::Code(0)
        && let Some(refused) = sandbox.denial(&text, &dir)
    {
        notes.push(refused);
    }
    let fitted = output::fit(&ctx, text);
    Ok(Structured(ShellReply::Finished(ShellRun {
        exit_code: exit.code(),
        signal: exit.signal(),
        timed_out,
        duration_ms: u64::try_from(process.duration().as_millis()).unwrap_or(u64::MAX),
        output: fitted.text,
        artifact: fitted.artifact,
        note: (!notes.is_empty()).then(|| notes.join("; ")),
    })))
}

/// Stops the process's group and waits for the end: `None` if it did not come.
async fn stop(process: &Process) -> Option<Exit> {
    process.terminate();
    tokio::time::timeout(GRACE + KILL_WAIT, process.wait())
        .await
        .ok()
}

/// `read_only_if`: the call only reads when its command line does (see
/// [`read_only`](crate::shell::read_only)); where and how long it runs does not matter.
fn only_reads(
    command: &str,
    _workdir: Option<&WorkspacePath>,
    _timeout_ms: &u64,
    _run_in_background: &bool,
    _description: Option<&String>,
) -> bool {
    is_read_only(command)
}

/// Reports a running command's progress: seconds run of its time limit, and the last line it
/// printed, if any.
fn report_progress(progress: &tool_core::context::Progress, process: &Process, limit: Duration) {
    let ran = process.duration().as_secs_f64().floor();
    let last_line = {
        let buffer = process.output();
        let (bytes, _) = buffer.since(buffer.end().saturating_sub(4 * PROGRESS_LINE_CHARS as u64));
        let text = output::clean(bytes);
        text.lines()
            .rev()
            .map(str::trim)
            .find(|line| !line.is_empty())
            .map(|line| line.chars().take(PROGRESS_LINE_CHARS).collect::<String>())
    };
    let message = match last_line {
        Some(line) => format!("running for {ran} s: {line}"),
        None => format!("running for {ran} s"),
    };
    progress.report(ran, Some(limit.as_secs_f64().floor()), Some(&message));
}

/// An argument of `run_shell` with a value it cannot take: the model reads what was expected.
fn invalid(arg: &str, expected: String, found: String) -> ToolError {
    ToolError::InvalidArguments {
        tool: "run_shell".to_owned(),
        errors: vec![ArgumentError {
            path: format!("$.{arg}"),
            problem: ArgumentProblem::Invalid { expected, found },
        }],
    }
}
