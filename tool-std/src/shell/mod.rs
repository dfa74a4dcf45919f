//! The shell tools (`run_shell`, `shell_output`, `kill_shell`, `list_shells`) and the engine
//! under them: starting a command line without a terminal (`spawn`), without a shell
//! where one would add nothing (`direct`), watching it to its
//! end and stopping its whole process group (`process`), what it printed as the model reads
//! it (`output`), the session's background jobs (`jobs`), which command lines only read
//! ([`read_only`]), and the kernel sandbox commands run in ([`sandbox`]); the last two are
//! public, as are [`terminate_all`], [`kill_all`] and [`running`], for a program that must
//! stop every command it started at once (on a signal) rather than session by session.
//!
//! Linux (and other Unix) only: a command runs in a process group of its own (and a session
//! of its own when this process has a controlling terminal), and is stopped by signalling its
//! process group.

pub(crate) mod direct;
pub(crate) mod jobs;
pub use jobs::FirstJobNumber;
pub(crate) mod kill_shell;
pub(crate) mod list_shells;
pub(crate) mod output;
pub(crate) mod process;
pub mod read_only;
pub(crate) mod run_shell;
pub mod sandbox;
pub(crate) mod shell_output;
pub(crate) mod spawn;

/// Sends SIGTERM to the process group of every command the shell tools of this process have
/// started and not seen end: the commands of calls still running and every background job of
/// every session. For a program that must stop now (it got SIGTERM or Ctrl-C) and cannot wait
/// for its coordinators to be dropped, which stops the same processes one by one. Returns how
/// many groups were signalled.
///
/// ```
/// use tool_core::{Coordinator, ToolCall, Toolset, Workspace, policy::PolicyBuilder};
///
/// let dir = tempfile::tempdir().unwrap();
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["run_shell"]).unwrap())
///     .workspace(Workspace::new(dir.path()).unwrap())
///     .policy(PolicyBuilder::default().allow("run_shell"))
///     .build()
///     .unwrap();
/// let job = r#"{"command": "sleep 30", "run_in_background": true}"#;
/// assert!(!coordinator.call_blocking(ToolCall::new("run_shell", job)).is_error());
/// assert_eq!(tool_std::shell::running(), 1);
///
/// assert_eq!(tool_std::shell::terminate_all(), 1);
/// while tool_std::shell::running() > 0 {
///     std::thread::sleep(std::time::Duration::from_millis(10));
/// }
/// ```
pub fn terminate_all() -> usize {
    process::signal_every_group(false)
}

/// Sends SIGKILL to the process group of every command the shell tools of this process have
/// started and not seen end: [`terminate_all`]'s last resort, for what did not end on SIGTERM
/// in the time the program could give it. Returns how many groups were signalled.
pub fn kill_all() -> usize {
    process::signal_every_group(true)
}

/// How many of the commands the shell tools of this process have started are still running
/// (a process of their group is): what a program stopping after [`terminate_all`] waits on.
pub fn running() -> usize {
    process::live_groups()
}
