//! Starting a command line the one way every shell tool does: under `bash -c` (`sh -c` where
//! there is no bash; or directly where bash would only start one program, see
//! [`direct`](super::direct)), in a process group (and if need be a session) of its own with no
//! controlling terminal,
//! stdin from `/dev/null`, an environment that turns interactive prompts, pagers and colours
//! off, and stdout and stderr into one pipe so their lines stay in the order written.

use std::io::{self, PipeReader};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

use super::direct::Direct;
use super::sandbox::Prepared;

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

/// How a command is cut off from the terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Detach {
    /// A session of its own (`setsid`): it leaves this process's controlling terminal behind.
    Session,
    /// A process group of its own: enough when this process has no controlling terminal, as
    /// the command then has none to leave (and, leading no session, cannot acquire one).
    Group,
}

impl Detach {
    /// What this process needs now: [`Session`](Detach::Session) when it has a controlling
    /// terminal (or that cannot be read), else [`Group`](Detach::Group).
    ///
    /// The difference is the cost of starting the command. A process group is set by
    /// `posix_spawn`, which std uses when it can: it costs the same whatever this process's
    /// size. `setsid` needs code run in the child before `exec`, so std forks, copying the page
    /// tables of the whole process and paying a copy-on-write fault for each page touched after
    /// (measured: 4 ms against 16 ms per `bash -c true` in a process with 64 MiB resident).
    pub(crate) fn needed() -> Detach {
        // `/proc/self/stat`: `pid (comm) state ppid pgrp session tty_nr ...`; tty_nr is 0
        // without a controlling terminal. The command name may hold spaces and parentheses.
        let tty = stat_fields(Path::new("/proc/self/stat"))
            .and_then(|fields| fields.get(4)?.parse::<i64>().ok());
        if tty == Some(0) {
            Detach::Group
        } else {
            Detach::Session
        }
    }
}

/// The fields of a `/proc/<pid>/stat` file after the command name (`state ppid pgrp session
/// tty_nr ...`): the name may hold spaces and parentheses, so the fields start after its last
/// `)`.
pub(crate) fn stat_fields(stat: &Path) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(stat).ok()?;
    let (_, fields) = text.rsplit_once(')')?;
    Some(fields.split_whitespace().map(str::to_owned).collect())
}

/// Starts `command` in `workdir` (see [`spawn_detached`]), cut off from the terminal as
/// [`Detach::needed`] says, confined by `sandbox` when given.
pub(crate) fn spawn(
    command: &str,
    workdir: &Path,
    sandbox: Option<&Prepared>,
) -> io::Result<Spawned> {
    spawn_detached(command, workdir, Detach::needed(), sandbox)
}

/// Starts `command` in `workdir`, cut off from the terminal by `detach`, confined by `sandbox`
/// when given: directly when a shell would only have started its program (see
/// [`direct`](super::direct)) and no bubblewrap stands between, else under [`shell()`].
pub(crate) fn spawn_detached(
    command: &str,
    workdir: &Path,
    detach: Detach,
    sandbox: Option<&Prepared>,
) -> io::Result<Spawned> {
    let wrapped = sandbox.is_some_and(Prepared::wraps);
    // Under a `bwrap` of its own `bwrap` is the program started, and the saving of not
    // starting bash is small beside it; the shell then starts the program exactly as it would.
    if let Some(direct) = Direct::plan(command).filter(|_| !wrapped) {
        // A program the kernel would not execute (a script without `#!`, removed since it was
        // found) is the shell's to run or to report, as it would have been.
        if let Ok(spawned) = start(direct.command(workdir), workdir, detach, sandbox) {
            return Ok(spawned);
        }
    }
    let mut shell = match sandbox {
        Some(sandbox) => sandbox.command(shell()),
        None => Command::new(shell()),
    };
    shell.arg("-c").arg(command);
    start(shell, workdir, detach, sandbox)
}

/// Starts `command` in `workdir` with stdin from `/dev/null`, stdout and stderr into one pipe,
/// [`NON_INTERACTIVE_ENV`], cut off from the terminal by `detach`, confined by `sandbox`.
fn start(
    mut command: Command,
    workdir: &Path,
    detach: Detach,
    sandbox: Option<&Prepared>,
) -> io::Result<Spawned> {
    let (output, writer) = std::io::pipe()?;
    command
        .current_dir(workdir)
        .stdin(Stdio::null())
        .stdout(writer.try_clone()?)
        .stderr(writer)
        .envs(NON_INTERACTIVE_ENV.iter().copied());
    match detach {
        Detach::Group => {
            command.process_group(0);
        }
        // SAFETY: the closure runs in the child between fork and exec, where only
        // async-signal-safe calls are allowed; it makes one system call (setsid(2), which is
        // async-signal-safe) and allocates nothing. A new session detaches the command from
        // the controlling terminal (so a read of /dev/tty fails instead of waiting) and makes
        // it the leader of a new process group, which a timeout or kill signals as a whole.
        Detach::Session => unsafe {
            command.pre_exec(|| {
                rustix::process::setsid()?;
                Ok(())
            });
        },
    }
    let child = match sandbox {
        Some(sandbox) => sandbox.spawn(&mut command)?,
        None => command.spawn()?,
    };
    // The pipe's write ends held by `command` are closed here, so the read end sees the end of
    // the output once the command's own processes have closed theirs.
    drop(command);
    Ok(Spawned { child, output })
}

#[cfg(test)]
mod tests {
    use std::io::Read as _;

    use super::*;

    /// The `session`, `tty_nr` and `pgrp` of a process, from `/proc/<pid>/stat`.
    fn ids(pid: u32) -> (i64, i64, i64) {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let (_, fields) = stat.rsplit_once(')').unwrap();
        let fields: Vec<i64> = fields
            .split_whitespace()
            .skip(2)
            .take(3)
            .map(|field| field.parse().unwrap())
            .collect();
        (fields[1], fields[2], fields[0])
    }

    #[test]
    fn each_way_of_detaching_gives_a_group_of_its_own_without_a_terminal() {
        for detach in [Detach::Session, Detach::Group] {
            let mut spawned =
                spawn_detached("echo started; sleep 5", Path::new("/"), detach, None).unwrap();
            let mut first = [0u8; 8];
            spawned.output.read_exact(&mut first).unwrap();
            let pid = spawned.child.id();
            let (session, tty, pgrp) = ids(pid);
            assert_eq!(
                pgrp,
                i64::from(pid),
                "{detach:?}: the leader of its own group"
            );
            assert_eq!(tty, 0, "{detach:?}: no controlling terminal");
            if detach == Detach::Session {
                assert_eq!(session, i64::from(pid), "the leader of its own session");
            }
            spawned.child.kill().unwrap();
            spawned.child.wait().unwrap();
        }
    }

    /// Output and exit status of `command` run to its end.
    fn run(spawned: Spawned) -> (String, std::process::ExitStatus) {
        let Spawned {
            mut child,
            mut output,
        } = spawned;
        let mut text = String::new();
        output.read_to_string(&mut text).unwrap();
        (text, child.wait().unwrap())
    }

    #[test]
    fn a_command_run_directly_prints_and_ends_as_under_bash() {
        let dir = tempfile::tempdir().unwrap();
        let workdir = dir.path().canonicalize().unwrap();
        std::fs::write(workdir.join("file with spaces"), "").unwrap();
        for command in [
            "ls -a",
            "ls 'file with spaces' missing",
            "printenv PWD _",
            r#"sh -c 'echo "$0 $1"; exit 3' zero "one two""#,
            "sh -c 'kill -TERM $$'",
            "true",
            "false",
            "no-such-program-anywhere --flag",
        ] {
            let mut bash = Command::new(shell());
            bash.arg("-c").arg(command);
            let by_bash = run(start(bash, &workdir, Detach::Group, None).unwrap());
            let ours = run(spawn_detached(command, &workdir, Detach::Group, None).unwrap());
            assert_eq!(ours, by_bash, "{command:?}");
        }
        assert!(
            Direct::plan("printenv PWD _").is_some(),
            "run directly, not by bash"
        );
    }
}
