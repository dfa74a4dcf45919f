//! [`Process`]: one running command line and its whole lifetime, from start to the last
//! process of its group stopped.
//!
//! A supervisor thread per process reads its output pipe into an [`OutputBuffer`] and waits
//! for the shell to exit. It is a thread, not a task, so that a background job keeps being read
//! whatever runtime the call that started it ran on. The call ends when the *shell* exits, not
//! when the pipe closes: a child it left running may hold the pipe open for ever
//! (opencode#22012), so after the exit the supervisor reads only what is already in the pipe,
//! then stops. What the shell left running in its group is then stopped too (SIGTERM, and
//! SIGKILL after a grace period): a command's processes end with it, and a server that must
//! keep running is a job for `run_in_background`.
//!
//! Stopping a process ([`Process::terminate`], or dropping its handle before it ended) sends
//! SIGTERM to its whole group, and SIGKILL to the group after [`GRACE`] if the shell is still
//! running. Until the supervisor has reaped the shell, its pid cannot be reused, so the group
//! signalled is the command's own.

use std::io::Read as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags};
use rustix::process::{Pid, Signal};
use tokio::sync::watch;

use super::output::OutputBuffer;
use super::sandbox::Prepared;
use super::spawn::{Spawned, spawn};

/// How long a process group has between SIGTERM and SIGKILL.
pub(crate) const GRACE: Duration = Duration::from_secs(2);
/// How often the supervisor looks whether the shell has exited while its pipe stays open.
const TICK: Duration = Duration::from_millis(20);
/// After the shell exited with its pipe still open, the output is over once the pipe has been
/// quiet this long.
const DRAIN_QUIET: Duration = Duration::from_millis(10);
/// After the shell exited, the pipe is read this long at most: a child it left writing without
/// pause never lets it be quiet.
const DRAIN_MAX: Duration = Duration::from_millis(200);

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exit {
    /// It exited with this code.
    Code(i32),
    /// A signal ended it.
    Signal(i32),
    /// Its status could not be read (the wait failed).
    Unknown,
}

impl Exit {
    pub(crate) fn code(self) -> Option<i32> {
        match self {
            Exit::Code(code) => Some(code),
            _ => None,
        }
    }

    /// The signal's name (`SIGKILL`), or `signal N` for one without a common name.
    pub(crate) fn signal(self) -> Option<String> {
        let Exit::Signal(number) = self else {
            return None;
        };
        let name = match number {
            1 => "SIGHUP",
            2 => "SIGINT",
            3 => "SIGQUIT",
            4 => "SIGILL",
            6 => "SIGABRT",
            7 => "SIGBUS",
            8 => "SIGFPE",
            9 => "SIGKILL",
            11 => "SIGSEGV",
            13 => "SIGPIPE",
            14 => "SIGALRM",
            15 => "SIGTERM",
            _ => return Some(format!("signal {number}")),
        };
        Some(name.to_owned())
    }
}

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Exit::Code(code) => write!(f, "exited with code {code}"),
            Exit::Signal(_) => write!(f, "killed by {}", self.signal().unwrap_or_default()),
            Exit::Unknown => f.write_str("ended (its exit status could not be read)"),
        }
    }
}

/// What the supervisor and every handle of one process share.
struct Shared {
    /// The shell's pid, which is also its process group's id.
    pid: Pid,
    output: Mutex<OutputBuffer>,
    /// SIGTERM was sent to the group by [`Process::terminate`].
    terminated: AtomicBool,
    /// SIGKILL was sent to the group by [`Process::terminate`] after the grace period.
    killed: AtomicBool,
    /// When the shell was seen to exit.
    ended: Mutex<Option<Instant>>,
    /// Processes of its group were still running when the shell had exited (and were sent
    /// SIGTERM).
    left_running: AtomicBool,
}

/// A running (or ended) command line. Dropping the handle before the command ended stops it.
pub(crate) struct Process {
    shared: Arc<Shared>,
    exit: watch::Receiver<Option<Exit>>,
    started: Instant,
}

impl Process {
    /// Starts `command` in `workdir` (see [`spawn`](super::spawn)), confined by `sandbox`
    /// when given, its output kept up to `output_cap` bytes.
    pub(crate) fn start(
        command: &str,
        workdir: &std::path::Path,
        output_cap: usize,
        sandbox: Option<&Prepared>,
    ) -> std::io::Result<Process> {
        let Spawned { child, output } = spawn(command, workdir, sandbox)?;
        let wrapped = sandbox.is_some_and(Prepared::wraps);
        let pid = Pid::from_child(&child);
        lock(&LIVE_GROUPS).push(pid);
        let shared = Arc::new(Shared {
            pid,
            output: Mutex::new(OutputBuffer::new(output_cap)),
            terminated: AtomicBool::new(false),
            killed: AtomicBool::new(false),
            ended: Mutex::new(None),
            left_running: AtomicBool::new(false),
        });
        let (exited, exit) = watch::channel(None);
        let supervisor = Arc::clone(&shared);
        let spawned = std::thread::Builder::new()
            .name(format!("shell-{}", pid.as_raw_nonzero()))
            .spawn(move || supervise(child, output, wrapped, &supervisor, &exited));
        let process = Process {
            shared,
            exit,
            started: Instant::now(),
        };
        // Without its supervisor nobody would read or reap it: the `?` drops `process`, which
        // stops it.
        spawned?;
        Ok(process)
    }

    /// How long it ran, or has been running.
    pub(crate) fn duration(&self) -> Duration {
        lock(&self.shared.ended)
            .unwrap_or_else(Instant::now)
            .saturating_duration_since(self.started)
    }

    /// How it ended, once it has (and its output has been read to the end).
    pub(crate) fn exit(&self) -> Option<Exit> {
        *self.exit.borrow()
    }

    /// Waits until it has ended and its output has been read.
    pub(crate) async fn wait(&self) -> Exit {
        let mut exit = self.exit.clone();
        match exit.wait_for(Option::is_some).await {
            Ok(exit) => exit.unwrap_or(Exit::Unknown),
            // The supervisor is gone without a word: only if its thread died.
            Err(_) => Exit::Unknown,
        }
    }

    /// Its output so far.
    pub(crate) fn output(&self) -> MutexGuard<'_, OutputBuffer> {
        lock(&self.shared.output)
    }

    /// Whether, once the shell had exited, processes it started were still running in its
    /// group (they are stopped). Known once [`exit`](Self::exit) is.
    pub(crate) fn left_running(&self) -> bool {
        self.shared.left_running.load(Ordering::Relaxed)
    }

    /// Whether [`terminate`](Self::terminate) was called.
    pub(crate) fn was_terminated(&self) -> bool {
        self.shared.terminated.load(Ordering::Relaxed)
    }

    /// Stops the whole process group: SIGTERM now, SIGKILL after [`GRACE`] if the shell has
    /// not ended by then. Returns at once; [`wait`](Self::wait) for the end. Calling it again,
    /// or after the end, does nothing.
    pub(crate) fn terminate(&self) {
        if self.exit().is_some() {
            return;
        }
        if self.shared.terminated.swap(true, Ordering::Relaxed) {
            return;
        }
        signal_group(self.shared.pid, Signal::TERM);
        let shared = Arc::clone(&self.shared);
        let mut exit = self.exit.clone();
        // A thread, not a task: a handle is also dropped where there is no runtime.
        let escalation = std::thread::Builder::new()
            .name("shell-kill".to_owned())
            .spawn(move || {
                let deadline = Instant::now() + GRACE;
                while Instant::now() < deadline {
                    if exit.borrow_and_update().is_some() {
                        return;
                    }
                    std::thread::sleep(TICK);
                }
                if exit.borrow().is_none() {
                    shared.killed.store(true, Ordering::Relaxed);
                    signal_group(shared.pid, Signal::KILL);
                }
            });
        if escalation.is_err() {
            // No thread for the grace period: no grace.
            signal_group(self.shared.pid, Signal::KILL);
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.terminate();
    }
}

/// Sends `signal` to every process of the group `pgid`. A group with no process left
/// (`ESRCH`) is already where the signal would take it.
fn signal_group(pgid: Pid, signal: Signal) -> bool {
    rustix::process::kill_process_group(pgid, signal).is_ok()
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The supervisor thread: reads the pipe until the shell has exited and the pipe is closed or
/// quiet, reaps the shell, publishes how it ended, then stops what it left in its group.
///
/// `wrapped`: the child is `bwrap`, which waits for the shell and exits with its code, or with
/// 128 + N when a signal N ended it; that is read back as the signal. A `bwrap` ended by a
/// signal itself was signalled with its group (a timeout, a cancel): the shell may still be
/// running, ignoring it, so its end is waited for (SIGKILL after [`GRACE`]) before it is
/// published.
fn supervise(
    mut child: std::process::Child,
    mut pipe: std::io::PipeReader,
    wrapped: bool,
    shared: &Shared,
    exited: &watch::Sender<Option<Exit>>,
) {
    let mut chunk = vec![0u8; 64 * 1024];
    let mut pipe_open = true;
    let mut status: Option<Exit> = None;
    loop {
        if pipe_open {
            let wait = if status.is_some() { DRAIN_QUIET } else { TICK };
            match readable(&pipe, wait) {
                Ok(true) => match pipe.read(&mut chunk) {
                    Ok(0) => pipe_open = false,
                    Ok(n) => lock(&shared.output).push(&chunk[..n]),
                    Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => pipe_open = false,
                },
                // Quiet: after the exit, everything the shell wrote has been read.
                Ok(false) if status.is_some() => break,
                Ok(false) => {}
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => pipe_open = false,
            }
        }
        if status.is_none() {
            // With the pipe closed only the exit is left to wait for; terminate() does not
            // need this thread, so blocking here is safe.
            status = if pipe_open {
                match child.try_wait() {
                    Ok(status) => status.map(exit_of),
                    Err(_) => Some(Exit::Unknown),
                }
            } else {
                Some(child.wait().map_or(Exit::Unknown, exit_of))
            };
            if status.is_some() {
                *lock(&shared.ended) = Some(Instant::now());
            }
        }
        if status.is_some() && !pipe_open {
            break;
        }
        // What the shell left running may write on without pause: what came in the time
        // allowed is all that is read.
        let drained_long = lock(&shared.ended).is_some_and(|ended| ended.elapsed() > DRAIN_MAX);
        if status.is_some() && drained_long {
            break;
        }
    }
    drop(pipe);
    let mut status = status.unwrap_or(Exit::Unknown);
    if wrapped {
        status = match status {
            Exit::Code(code @ 129..=192) => Exit::Signal(code - 128),
            Exit::Signal(signal) if signal_group(shared.pid, Signal::TERM) => {
                // Killed here, or by `terminate`'s own escalation meanwhile.
                if kill_leftovers(shared.pid) || shared.killed.load(Ordering::Relaxed) {
                    Exit::Signal(libc::SIGKILL)
                } else {
                    Exit::Signal(signal)
                }
            }
            other => other,
        };
    }
    // SIGTERM to what the shell left before the end is published, so the reply can say so;
    // the wait for them to go (and SIGKILL) after.
    let left = signal_group(shared.pid, Signal::TERM);
    shared.left_running.store(left, Ordering::Relaxed);
    let _ = exited.send(Some(status));
    if left {
        kill_leftovers(shared.pid);
    }
    lock(&LIVE_GROUPS).retain(|&pid| pid != shared.pid);
}

/// The process groups of the commands this process started whose supervisor has not yet seen
/// them end (shell reaped, what it left in its group gone): what [`signal_every_group`]
/// signals when the whole program must stop at once, without waiting for each handle's owner
/// to drop it. A group leaves the list only after its shell was reaped and the group found
/// empty, so the ids listed are this process's commands' own.
static LIVE_GROUPS: Mutex<Vec<Pid>> = Mutex::new(Vec::new());

/// How many commands have a process group this process has not yet seen end.
pub(crate) fn live_groups() -> usize {
    lock(&LIVE_GROUPS).len()
}

/// Sends SIGTERM (or, with `kill`, SIGKILL) to the process group of every command this process
/// started and has not seen end, background jobs included; returns how many groups there were.
pub(crate) fn signal_every_group(kill: bool) -> usize {
    let signal = if kill { Signal::KILL } else { Signal::TERM };
    let groups = lock(&LIVE_GROUPS).clone();
    for &pgid in &groups {
        signal_group(pgid, signal);
    }
    groups.len()
}

fn exit_of(status: std::process::ExitStatus) -> Exit {
    use std::os::unix::process::ExitStatusExt as _;
    match (status.code(), status.signal()) {
        (Some(code), _) => Exit::Code(code),
        (None, Some(signal)) => Exit::Signal(signal),
        (None, None) => Exit::Unknown,
    }
}

/// Waits [`GRACE`] for what a shell that has ended left running in its group (and was sent
/// SIGTERM) to go, then sends SIGKILL to whatever is left; `true` when that was needed.
fn kill_leftovers(pgid: Pid) -> bool {
    let deadline = Instant::now() + GRACE;
    while Instant::now() < deadline {
        if !group_running(pgid) {
            return false;
        }
        std::thread::sleep(TICK);
    }
    signal_group(pgid, Signal::KILL)
}

/// Whether a process of group `pgid` is still running: not only there, as a zombie its parent
/// has not reaped is (an orphan of `bwrap` waits for init, which in a container may be slow or
/// never come), but alive.
fn group_running(pgid: Pid) -> bool {
    if rustix::process::test_kill_process_group(pgid).is_err() {
        return false;
    }
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return true;
    };
    let wanted = pgid.as_raw_nonzero().get().to_string();
    entries.flatten().any(|entry| {
        let is_pid = entry
            .file_name()
            .to_str()
            .is_some_and(|name| name.bytes().all(|byte| byte.is_ascii_digit()));
        if !is_pid {
            return false;
        }
        let Some(fields) = super::spawn::stat_fields(&entry.path().join("stat")) else {
            return false;
        };
        let state = fields.first().map(String::as_str);
        let group = fields.get(2).map(String::as_str);
        state != Some("Z") && group == Some(wanted.as_str())
    })
}

/// Whether `pipe` has something to read (or is closed) within `wait`.
fn readable(pipe: &std::io::PipeReader, wait: Duration) -> std::io::Result<bool> {
    let mut fds = [PollFd::new(pipe, PollFlags::IN)];
    // The waits here are milliseconds: they always fit a timespec.
    let timeout = rustix::event::Timespec::try_from(wait).ok();
    let ready = rustix::event::poll(&mut fds, timeout.as_ref())?;
    Ok(ready > 0)
}
