//! The bounds of one run of code: [`CodeModeConfig`] (what a coordinator's state sets), where
//! the interpreter runs ([`Isolation`]), and [`Limit`] (which bound stopped a run, with its
//! value, as the model reads it).

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

/// The limits of `execute`, given to the coordinator as state to change the defaults. Each
/// stops a run with an error naming it and its value.
///
/// ```
/// use std::time::Duration;
/// use tool_core::{Coordinator, Toolset};
/// use tool_std::code::CodeModeConfig;
///
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["execute", "read_file"]).unwrap())
///     .state(CodeModeConfig {
///         time_limit: Duration::from_secs(5),
///         max_tool_calls: 10,
///         ..CodeModeConfig::default()
///     })
///     .build()
///     .unwrap();
/// # drop(coordinator);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeModeConfig {
    /// Wall time of a whole run, the tool calls it makes included (default 30 s). When the
    /// call of `execute` has a sooner time limit of its own (its `timeout_ms`, the
    /// coordinator's default timeout, a caller's deadline), the run ends a little before that
    /// instead, stopped by this limit, so that what it did is reported.
    pub time_limit: Duration,
    /// Interpreter steps (bytecode instructions) a run may take (default 100 million). Counted
    /// in blocks of [`STEPS_PER_CHECK`], where the interpreter checks its limits, so a run
    /// stops within one block past the limit; work inside one built-in call (`sorted` of a
    /// long list) counts as the instructions around it, and is bounded by the time limit.
    pub max_steps: u64,
    /// Tool calls a run may make (default 50).
    pub max_tool_calls: u32,
    /// Bytes the code may print (default 64 KiB).
    pub max_printed_bytes: usize,
    /// How deeply Python functions may call each other (default 200): deeper raises
    /// `RecursionError`, which the code can catch, as in Python.
    pub max_recursion_depth: usize,
    /// The largest single allocation the code may ask for, in bytes (default 256 MiB):
    /// `'x' * 10**12`, `[0] * n`, `2 ** n` and the like are refused before they allocate,
    /// raising `MemoryError`, which ends the run. This is not a bound on the run's total
    /// memory (monty can only keep that with its own global allocator, which a library cannot
    /// install); without it, an allocation too large to make would abort the whole process,
    /// not just the run. In a worker ([`Isolation::Worker`]) the worker's own allocator bounds
    /// the whole run instead.
    pub max_allocation: usize,
    /// Bytes an in-process run may add to the process in all (default 256 MiB, what a script
    /// that reads and reshapes a few large tool results needs, far from what starves an
    /// agent): past it, the code raises `MemoryError` and the run ends. Kept where the program
    /// installs [`CountingAllocator`](super::CountingAllocator) as its global allocator
    /// (`toolbox` does; see [`counts_memory`](super::counts_memory)), where it stands for
    /// [`max_allocation`](Self::max_allocation) too; elsewhere only each large allocation is
    /// bounded, by `max_allocation`. A worker has its own bound ([`Isolation::Worker`]'s `max_memory`).
    pub max_memory: usize,
    /// Where the interpreter runs (default: [`Isolation::detect`], a worker where its binary
    /// exists, else this process).
    pub isolation: Isolation,
}

/// Where `execute` runs the interpreter.
///
/// A worker needs monty's `monty` binary of the same release as the monty this crate links
/// ([`Isolation::MONTY_RELEASE`]): PyPI's `pydantic-monty-runtime==0.0.23` installs it
/// (`pip install`, then `bin/monty`), as does `cargo install monty-runtime@0.0.23`. Where it
/// exists, the worker is the default ([`Isolation::detect`], which
/// [`CodeModeConfig::default`] takes): named by `TOOLKIT_MONTY_WORKER`, or the `monty` on the
/// `PATH` when it is that release. Elsewhere the run is in-process, which needs nothing but
/// this crate.
///
/// | | in-process | worker |
/// |---|---|---|
/// | a panic in the interpreter | an error result | an error result |
/// | an abort (native stack overflow, allocator failure) | ends the agent | ends the worker: an error result, the agent goes on |
/// | memory | the run's total bounded ([`CodeModeConfig::max_memory`]) where the program installs [`CountingAllocator`](super::CountingAllocator); each large allocation bounded everywhere | the run's total bounded (`max_memory`) |
/// | steps | counted ([`CodeModeConfig::max_steps`]) | not counted: the worker reports no steps, the time limit bounds the run |
/// | a stop (limit, cancellation) | at the next check, within [`STEPS_PER_CHECK`] instructions | at once: the worker is killed |
/// | cost | none | a process started per run (a few milliseconds) and a pipe round trip per call |
///
/// ```
/// use tool_std::code::{CodeModeConfig, Isolation};
///
/// let config = CodeModeConfig {
///     isolation: Isolation::worker("/opt/monty/bin/monty"),
///     ..CodeModeConfig::default()
/// };
/// assert!(matches!(config.isolation, Isolation::Worker { max_memory, .. } if max_memory == 512 * 1024 * 1024));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Isolation {
    /// On a thread of this process: a panic is caught and becomes an error; an abort is not.
    InProcess,
    /// In a worker process of monty's own, started for the run and killed at its end.
    Worker {
        /// The `monty` binary.
        program: PathBuf,
        /// Bytes the run may hold at once, enforced by the worker's allocator: past it, the
        /// code raises `MemoryError` and the run ends.
        max_memory: usize,
    },
}

/// [`Isolation::detect`]: a worker where its binary exists, else in-process.
impl Default for Isolation {
    fn default() -> Self {
        Isolation::detect()
    }
}

impl Isolation {
    /// The variable [`from_env`](Self::from_env) reads.
    pub const ENV: &'static str = "TOOLKIT_MONTY_WORKER";

    /// A worker run by `program`, with a 512 MiB memory bound.
    #[must_use]
    pub fn worker(program: impl Into<PathBuf>) -> Self {
        Isolation::Worker {
            program: program.into(),
            max_memory: 512 * 1024 * 1024,
        }
    }

    /// The release of monty this crate links, which a worker binary must be.
    pub const MONTY_RELEASE: &'static str = "0.0.23";

    /// A worker when `TOOLKIT_MONTY_WORKER` names the `monty` binary, else in-process.
    #[must_use]
    pub fn from_env() -> Self {
        Self::from_var(std::env::var_os(Self::ENV))
    }

    /// The default: a worker where its binary exists, else in-process. The binary is the one
    /// `TOOLKIT_MONTY_WORKER` names, else the `monty` on the `PATH` when `monty --version`
    /// says it is [`MONTY_RELEASE`](Self::MONTY_RELEASE) (another release speaks another
    /// protocol). Looked for once per process.
    ///
    /// ```
    /// use tool_std::code::Isolation;
    ///
    /// match Isolation::detect() {
    ///     Isolation::Worker { program, .. } => assert!(!program.as_os_str().is_empty()),
    ///     _ => {}
    /// }
    /// ```
    #[must_use]
    pub fn detect() -> Self {
        static FOUND: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
        if let Isolation::Worker { program, .. } = Self::from_env() {
            return Isolation::worker(program);
        }
        let found = FOUND.get_or_init(|| {
            let monty = std::env::var_os("PATH")
                .iter()
                .flat_map(std::env::split_paths)
                .map(|dir| dir.join("monty"))
                .find(|path| path.is_file())?;
            let said = std::process::Command::new(&monty)
                .arg("--version")
                .stdin(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .output()
                .ok()?;
            is_our_release(&String::from_utf8_lossy(&said.stdout)).then_some(monty)
        });
        match found {
            Some(program) => Isolation::worker(program),
            None => Isolation::InProcess,
        }
    }

    fn from_var(value: Option<OsString>) -> Self {
        match value {
            Some(program) if !program.is_empty() => Isolation::worker(program),
            _ => Isolation::InProcess,
        }
    }
}

/// Whether `monty --version` said it is the worker of [`Isolation::MONTY_RELEASE`].
fn is_our_release(said: &str) -> bool {
    let mut words = said.split_whitespace();
    words.next() == Some("monty-runtime") && words.next() == Some(Isolation::MONTY_RELEASE)
}

/// How many interpreter instructions run between two checks of the limits: monty checks its
/// own limits and polls the host's print writer once every 256 instructions.
pub const STEPS_PER_CHECK: u64 = 256;

impl Default for CodeModeConfig {
    fn default() -> Self {
        CodeModeConfig {
            time_limit: Duration::from_secs(30),
            max_steps: 100_000_000,
            max_tool_calls: 50,
            max_printed_bytes: 64 * 1024,
            max_recursion_depth: 200,
            max_allocation: 256 * 1024 * 1024,
            max_memory: 256 * 1024 * 1024,
            isolation: Isolation::detect(),
        }
    }
}

/// Why a run was stopped before it ended.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Limit {
    /// It ran past [`CodeModeConfig::time_limit`].
    #[error(
        "the time limit of {} s (wall time, tool calls included): do less in one run (fewer calls, smaller loops), or split the work over several runs",
        .0.as_secs_f64()
    )]
    Time(Duration),
    /// It took more than [`CodeModeConfig::max_steps`] steps.
    #[error(
        "the step limit of {0} interpreter steps: the code computes too much; look for a loop that does not end, or do less in one run"
    )]
    Steps(u64),
    /// It made more than [`CodeModeConfig::max_tool_calls`] tool calls.
    #[error(
        "the tool call limit of {0} calls per run: make fewer calls (narrow a search instead of reading every file), or split the work over several runs"
    )]
    ToolCalls(u32),
    /// It printed more than [`CodeModeConfig::max_printed_bytes`].
    #[error(
        "the printed output limit of {0} bytes: print less (a count, the first lines, a summary), or return the value instead"
    )]
    Printed(usize),
}

#[cfg(test)]
mod tests {
    use super::{Isolation, is_our_release};

    #[test]
    fn a_monty_on_the_path_is_the_worker_only_when_it_is_our_release() {
        assert!(is_our_release("monty-runtime 0.0.23\n"));
        assert!(!is_our_release("monty-runtime 0.0.22\n"));
        assert!(!is_our_release("monty 0.0.23\n"));
    }

    #[test]
    fn the_environment_chooses_a_worker_only_when_it_names_one() {
        assert_eq!(Isolation::from_var(None), Isolation::InProcess);
        assert_eq!(Isolation::from_var(Some("".into())), Isolation::InProcess);
        assert_eq!(
            Isolation::from_var(Some("/opt/monty".into())),
            Isolation::worker("/opt/monty")
        );
    }
}
