//! Starting a command line the one way every shell tool does: under `bash -c` (`sh -c` where
//! there is no bash), in a session and process group of its own with no controlling terminal,
//! stdin from `/dev/null`, an environment that turns interactive prompts, pagers and colours
//! off, and stdout and stderr into one pipe so their lines stay in the order written.

use std::io::{self, PipeReader};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

/// Variables set for every command, each so that a program that would wait for a person fails
/// or goes on at once instead (gemini-cli#24707: a prompt nobody can answer hangs the agent).
pub(crate) const NON_INTERACTIVE_ENV: &[(&str, &str)] = &[
    // git: never ask for credentials on a terminal, nor through a helper program.
    ("GIT_TERMINAL_PROMPT", "0"),
    ("GIT_ASKPASS", ""),
    ("SSH_ASKPASS", ""),
    ("GCM_INTERACTIVE", "never"),
    // git commit without -m, git merge, git rebase -i: take the message or plan as it is.
    ("GIT_EDITOR", "true"),
    // apt, dpkg and pip: take the defaults, ask nothing.
    ("DEBIAN_FRONTEND", "noninteractive"),
    ("PIP_NO_INPUT", "1"),
    // Pagers print and return instead of waiting for keys.
    ("PAGER", "cat"),
    ("GIT_PAGER", "cat"),
    ("MANPAGER", "cat"),
    ("SYSTEMD_PAGER", ""),
    // No colours or cursor tricks to strip afterwards.
    ("TERM", "dumb"),
    ("NO_COLOR", "1"),
];

/// The shell that runs command lines: the first `bash` on the `PATH`, else `/bin/sh`.
pub(crate) fn shell() -> &'static Path {
    static SHELL: OnceLock<PathBuf> = OnceLock::new();
    SHELL.get_or_init(|| {
        std::env::var_os("PATH")
            .iter()
            .flat_map(std::env::split_paths)
            .map(|dir| dir.join("bash"))
            .find(|bash| bash.is_file())
            .unwrap_or_else(|| PathBuf::from("/bin/sh"))
    })
}

/// A command started: the shell's process (the leader of its own process group: its pid is
/// the group's id) and the read end of the pipe its stdout and stderr share.
pub(crate) struct Spawned {
    pub(crate) child: Child,
    pub(crate) output: PipeReader,
}

/// Starts `command` under [`shell()`] in `workdir`.
pub(crate) fn spawn(command: &str, workdir: &Path) -> io::Result<Spawned> {
    let (output, writer) = std::io::pipe()?;
    let mut shell = Command::new(shell());
    shell
        .arg("-c")
        .arg(command)
        .current_dir(workdir)
        .stdin(Stdio::null())
        .stdout(writer.try_clone()?)
        .stderr(writer)
        .envs(NON_INTERACTIVE_ENV.iter().copied());
    // SAFETY: the closure runs in the child between fork and exec, where only
    // async-signal-safe calls are allowed; it makes one system call (setsid(2), which is
    // async-signal-safe) and allocates nothing. A new session detaches the command from any
    // controlling terminal (so a read of /dev/tty fails instead of waiting) and makes it the
    // leader of a new process group, which a timeout or kill signals as a whole.
    unsafe {
        shell.pre_exec(|| {
            rustix::process::setsid()?;
            Ok(())
        });
    }
    let child = shell.spawn()?;
    // The pipe's write ends held by `shell` are closed here, so the read end sees the end of
    // the output once the command's own processes have closed theirs.
    drop(shell);
    Ok(Spawned { child, output })
}
