//! Command hooks: a shell command speaking Claude Code's hook protocol.
//!
//! The command runs through `sh -c` in the input's `cwd`, with `CLAUDE_PROJECT_DIR` set to it
//! and the input JSON on stdin. Stdout and stderr are captured up to [`OUTPUT_CAP`] bytes each
//! (the rest is read and dropped, so the hook never blocks on a full pipe).
//!
//! The hook runs as the leader of a new process group, and the whole group is killed with
//! `SIGKILL` when the hook times out, when its future is dropped, and when the hook exits:
//! background children (`sleep 600 &`) would otherwise outlive it, and hold its stdout open so
//! that reading it never ends.

use std::borrow::Cow;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

use super::Hook;
use super::event::HookInput;
use super::output::HookOutput;
use crate::BoxFuture;

/// How long a command hook may run unless told otherwise: 60 seconds, as in Claude Code.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// How much of a hook's stdout, and of its stderr, is kept: 1 MiB each.
pub const OUTPUT_CAP: usize = 1 << 20;

/// A hook that runs a shell command.
///
/// ```no_run
/// # async fn demo() {
/// use std::time::Duration;
/// use tool_core::hooks::{CommandHook, Hook, HookInput};
/// use serde_json::json;
///
/// let hook = CommandHook::new("./hooks/check-bash.sh").timeout(Duration::from_secs(5));
/// let input = HookInput::pre_tool_use("Bash", json!({"command": "ls"})).cwd("/work");
/// let output = hook.run(&input).await;
/// if let Some(message) = output.block {
///     println!("blocked: {message}");
/// }
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandHook {
    /// The command, run with `sh -c`.
    pub command: String,
    /// The longest it may run; then its whole process group is killed.
    pub timeout: Duration,
}

impl CommandHook {
    /// A hook running `command`, with the [`DEFAULT_TIMEOUT`].
    pub fn new(command: impl Into<String>) -> Self {
        CommandHook {
            command: command.into(),
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// The same hook with another timeout.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    async fn execute(&self, input: &HookInput) -> HookOutput {
        let stdin_json = match serde_json::to_vec(input) {
            Ok(json) => json,
            Err(error) => return HookOutput::error(format!("could not encode its input: {error}")),
        };
        let mut command = Command::new("sh");
        command.arg("-c").arg(&self.command);
        // An empty cwd (unknown) leaves the hook in this process's directory.
        if !input.cwd.as_os_str().is_empty() {
            command
                .current_dir(&input.cwd)
                .env("CLAUDE_PROJECT_DIR", &input.cwd);
        } else if let Ok(here) = std::env::current_dir() {
            command.env("CLAUDE_PROJECT_DIR", here);
        }
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(error) => {
                return HookOutput::error(format!(
                    "could not be started in `{}`: {error}",
                    input.cwd.display()
                ));
            }
        };
        // The child leads its own group, so its pid is the group's id.
        let mut group = ProcessGroup(
            child
                .id()
                .and_then(|pid| i32::try_from(pid).ok())
                .and_then(rustix::process::Pid::from_raw),
        );
        let (Some(mut stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return HookOutput::error("could not be given its pipes");
        };

        let feed = async move {
            // A hook that does not read its input closes the pipe: not an error.
            let _ = stdin.write_all(&stdin_json).await;
            drop(stdin);
        };
        let wait = async {
            let status = child.wait().await;
            // Whatever the hook left running dies with it, which also closes its pipes.
            group.kill();
            status
        };
        let run = async {
            let ((), status, stdout, stderr) =
                tokio::join!(feed, wait, read_capped(stdout), read_capped(stderr));
            (status, stdout, stderr)
        };

        let output = match tokio::time::timeout(self.timeout, run).await {
            Ok((Ok(status), stdout, stderr)) => {
                HookOutput::from_command(input.event(), status.code(), &stdout, &stderr)
            }
            Ok((Err(error), _, _)) => {
                HookOutput::error(format!("could not be waited for: {error}"))
            }
            Err(_elapsed) => {
                group.kill();
                // Reap the leader; after SIGKILL this does not wait long.
                let _ = child.wait().await;
                HookOutput::error(format!(
                    "timed out after {} and was killed with its child processes",
                    super::describe(self.timeout)
                ))
            }
        };
        group.disarm();
        output
    }
}

impl Hook for CommandHook {
    fn name(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.command)
    }

    fn run<'a>(&'a self, input: &'a HookInput) -> BoxFuture<'a, HookOutput> {
        Box::pin(self.execute(input))
    }

    fn identity(&self) -> Option<&str> {
        Some(&self.command)
    }
}

/// A hook's process group, killed on drop too so that a cancelled hook leaves nothing behind.
struct ProcessGroup(Option<rustix::process::Pid>);

impl ProcessGroup {
    /// The group was killed and its leader reaped: nothing is left to kill on drop.
    fn disarm(&mut self) {
        self.0 = None;
    }

    fn kill(&self) {
        if let Some(pgid) = self.0 {
            // ESRCH (the group is gone) is harmless. The id cannot name another group while the
            // leader is unreaped, and after it is reaped only its own background children keep
            // the group alive.
            let _ = rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL);
        }
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Reads all of `reader`, keeping the first [`OUTPUT_CAP`] bytes, with a note of what was
/// dropped.
async fn read_capped(mut reader: impl AsyncRead + Unpin) -> String {
    let mut kept = Vec::new();
    let mut dropped: u64 = 0;
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        match reader.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(read) => {
                let room = OUTPUT_CAP.saturating_sub(kept.len());
                let keep = read.min(room);
                kept.extend_from_slice(&buffer[..keep]);
                dropped += (read - keep) as u64;
            }
        }
    }
    let mut text = String::from_utf8_lossy(&kept).into_owned();
    if dropped > 0 {
        text.push_str(&format!(
            "\n[{dropped} more bytes dropped: output is kept up to {OUTPUT_CAP} bytes]"
        ));
    }
    text
}
