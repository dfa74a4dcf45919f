//! The signals that stop `toolbox` (SIGINT, SIGTERM and SIGHUP: Ctrl-C, `kill`, the terminal
//! or the client going away) and what stopping means for `call` and stdio `serve`: every call
//! in flight is cancelled (run_shell then stops its command's process group), every command
//! the shell tools started is sent SIGTERM (background jobs too), the calls get a moment to
//! end (a second signal cuts it short), what is left is sent SIGKILL, the runtime's tasks are
//! dropped (killing the processes their handles own), and the program exits with the shell's
//! status for the signal (128 + its number). Without this the default action killed `toolbox` alone, and the
//! commands it had started, each in a process group (and session) of its own that no Ctrl-C
//! reaches, ran on with init as their parent.
//!
//! `serve --http` stops on the same signals with a graceful shutdown of its own (`serve.rs`).

use std::future::Future;
use std::io::{IsTerminal, Write};
use std::time::Duration;

use tool_core::context::CancellationToken;

/// How long the cancelled calls have to end before `toolbox` exits anyway: run_shell's
/// command ends on its SIGTERM in milliseconds, and a client that sent the signal waits little.
const CALLS_END_WITHIN: Duration = Duration::from_millis(1500);

/// A signal that stops `toolbox`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// SIGINT: Ctrl-C.
    Interrupt,
    /// SIGTERM: `kill`, a client ending its server.
    Terminate,
    /// SIGHUP: the terminal closed.
    Hangup,
}

impl Stop {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Stop::Interrupt => "SIGINT",
            Stop::Terminate => "SIGTERM",
            Stop::Hangup => "SIGHUP",
        }
    }

    /// The exit status a shell reports for a process this signal ended: 128 + its number.
    pub(crate) fn exit_code(self) -> u8 {
        match self {
            Stop::Hangup => 129,
            Stop::Interrupt => 130,
            Stop::Terminate => 143,
        }
    }
}

/// Listens for the stopping signals from the moment it is made (so a signal sent as soon as
/// `toolbox` has said it is ready is caught). A signal that cannot be listened for keeps its
/// default action (ending the process).
pub(crate) struct Listener {
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    terminate: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    hangup: Option<tokio::signal::unix::Signal>,
}

impl Listener {
    /// Starts listening. Needs a Tokio runtime with I/O enabled (entered, or in a task).
    pub(crate) fn new() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Listener {
                interrupt: signal(SignalKind::interrupt()).ok(),
                terminate: signal(SignalKind::terminate()).ok(),
                hangup: signal(SignalKind::hangup()).ok(),
            }
        }
        #[cfg(not(unix))]
        Listener {}
    }

    /// The next stopping signal.
    pub(crate) async fn next(&mut self) -> Stop {
        #[cfg(unix)]
        {
            tokio::select! {
                () = heard(self.interrupt.as_mut()) => Stop::Interrupt,
                () = heard(self.terminate.as_mut()) => Stop::Terminate,
                () = heard(self.hangup.as_mut()) => Stop::Hangup,
            }
        }
        #[cfg(not(unix))]
        {
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
            Stop::Interrupt
        }
    }
}

/// Resolves when `listener` hears its signal; never, without a listener (or once the runtime
/// shuts down and it hears nothing more).
#[cfg(unix)]
async fn heard(listener: Option<&mut tokio::signal::unix::Signal>) {
    let heard = match listener {
        Some(listener) => listener.recv().await.is_some(),
        None => false,
    };
    if !heard {
        std::future::pending::<()>().await;
    }
}

/// Runs `work` (a call, a stdio server whose coordinator `calls` cancels) to its end, unless a
/// stopping signal comes first: then stops the calls and commands as the module says and
/// returns the signal, for the caller to [`shut_down`] with.
pub(crate) async fn until_stopped<T>(
    work: impl Future<Output = T>,
    calls: &CancellationToken,
) -> Result<T, Stop> {
    let mut listener = Listener::new();
    tokio::pin!(work);
    let stop = tokio::select! {
        done = &mut work => return Ok(done),
        stop = listener.next() => stop,
    };
    // At a terminal, over the progress line (and the `^C` the terminal echoed), not after it.
    // Not `eprintln!`, which panics when stderr is gone, as it is after SIGHUP: the commands
    // must be stopped whether or not anyone reads why.
    let clear = if std::io::stderr().is_terminal() {
        "\r\x1b[2K"
    } else {
        ""
    };
    let _ = writeln!(
        std::io::stderr(),
        "{clear}toolbox: stopped by {}: cancelling the calls in flight and stopping the commands they started",
        stop.name()
    );
    calls.cancel();
    stop_commands(false);
    // Done when the work has ended (a call answers once its tool has stopped what it ran) or
    // every command is gone (a server's work never ends by itself); a second signal means now.
    tokio::select! {
        _ = &mut work => {}
        () = commands_ended() => {}
        () = tokio::time::sleep(CALLS_END_WITHIN) => {}
        _ = listener.next() => {}
    }
    stop_commands(true);
    Err(stop)
}

/// After [`until_stopped`] returned `stop` (and the caller dropped its coordinator): drops
/// every task still on `runtime`, which kills the processes their handles own (an imported MCP
/// server, a hook's command, a code-mode worker: each killed on drop), waiting a moment at most
/// for threads still busy in a blocking call (dropping the runtime would wait for them as long
/// as they take); returns the exit code.
pub(crate) fn shut_down(stop: Stop, runtime: tokio::runtime::Runtime) -> u8 {
    runtime.shutdown_timeout(SHUT_DOWN_WITHIN);
    stop.exit_code()
}

/// How long [`shut_down`] waits for threads busy in a blocking call.
const SHUT_DOWN_WITHIN: Duration = Duration::from_millis(100);

/// Resolves once no command the shell tools started is running.
pub(crate) async fn commands_ended() {
    #[cfg(unix)]
    while tool_std::shell::running() > 0 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// SIGTERM (or SIGKILL) to every command the shell tools started and that has not ended.
pub(crate) fn stop_commands(kill: bool) {
    #[cfg(unix)]
    {
        if kill {
            tool_std::shell::kill_all();
        } else {
            tool_std::shell::terminate_all();
        }
    }
    #[cfg(not(unix))]
    let _ = kill;
}
