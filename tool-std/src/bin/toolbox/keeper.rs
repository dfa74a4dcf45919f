//! Background jobs that outlive `toolbox call --session NAME`: each session's jobs live in a
//! process of their own, the session's *keeper*, which the first call that starts a job starts
//! (`toolbox session keep NAME`, detached from the terminal) and later calls ask.
//!
//! A call of the session runs the shell tools through [`Kept`]: the call is authorized where it
//! was made (policy, hooks, the person at the terminal), and only then is its tool run by the
//! keeper, whose coordinator holds the jobs (`run_shell` with `run_in_background`,
//! `shell_output`, `kill_shell`, `list_shells`); a command in the foreground runs in the call
//! as before. The keeper builds its coordinator from the session's workspace and settings as a
//! call does, so a job gets the same kernel sandbox and deny rules; a call whose settings
//! differ from the keeper's (another file, or a file changed since) is refused a new job. Long
//! output is cut into artifacts of the keeper's own (`art_job_N`), which the reply carries into
//! the session's store; job and artifact numbers go on from one keeper to the next.
//!
//! The keeper listens on `jobs.sock` in the session's folder (the user's alone, and hidden from
//! every command `toolbox` runs), and answers a request only with the secret it wrote beside it
//! (`keeper.json`): a command that reached the socket, where the sandbox cannot stop it, still
//! cannot use it. It ends, stopping its jobs, when `toolbox session remove` asks (or sends it
//! SIGTERM), on SIGTERM, SIGINT or SIGHUP, when its socket is gone, or [`IDLE`] after its last
//! job ended and nothing asked.

use std::ffi::OsString;
use std::io::BufRead as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tool_core::context::{CancellationToken, ToolContext};
use tool_core::middleware::{Artifact, Artifacts};
use tool_core::output::Content;
use tool_core::policy::Mode;
use tool_core::schema::Schema;
use tool_core::settings::Settings;
use tool_core::spec::ToolSpec;
use tool_core::tool::{Prepared, RequiredState, ToolFuture, ToolHandle};
use tool_core::{Coordinator, Tool, ToolCall, ToolError, ToolOutput, Toolset};
use tool_std::shell::FirstJobNumber;

use crate::replace::replace_file;
use crate::{Failure, SessionArgs};

/// The tools whose calls the keeper runs.
pub(crate) const JOB_TOOLS: [&str; 4] = ["run_shell", "shell_output", "kill_shell", "list_shells"];
/// The keeper's socket, in the session's folder.
const SOCKET: &str = "jobs.sock";
/// What the keeper tells its callers (its pid and secret) and keeps for the next keeper (the
/// numbers to go on from), in the session's folder.
const STATE: &str = "keeper.json";
/// How long a keeper waits, after its last job ended and the last call asked, before it ends.
const IDLE: Duration = Duration::from_secs(15 * 60);
/// The variable a test sets to end idle keepers sooner (milliseconds).
const IDLE_VARIABLE: &str = "TOOLBOX_KEEPER_IDLE_MS";
/// How often the keeper looks whether it should end.
const TICK: Duration = Duration::from_millis(250);
/// How long a call waits for the keeper's answer: the longest is kill_shell's, which waits
/// for the job's end after SIGKILL.
const ANSWER_WITHIN: Duration = Duration::from_secs(30);
/// How long the keeper waits for a request, or for its answer to be taken.
const CONNECTION_WITHIN: Duration = Duration::from_secs(10);
/// The longest reply line a call reads.
const MAX_LINE: u64 = 64 << 20;
/// The longest request line the keeper reads (before it knows the secret is right).
const MAX_REQUEST: u64 = 1 << 20;
/// The most connections the keeper answers at once; more are closed unanswered.
const MAX_CONNECTIONS: usize = 64;
/// The prefix of the artifacts the keeper keeps, so their ids never meet the session's own.
pub(crate) const ARTIFACT_PREFIX: &str = "art_job_";

/// A request, with the keeper's secret.
#[derive(Debug, Serialize, Deserialize)]
struct Envelope {
    secret: String,
    request: Request,
}

/// What a call asks the keeper.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Request {
    /// Run one of [`JOB_TOOLS`], authorized by the call, with the call's own arguments.
    Call {
        tool: String,
        arguments: String,
        call_id: String,
        /// The call's settings as [`fingerprint`] tells them: a job starts only under the
        /// settings the keeper was started with.
        settings: String,
    },
    /// How many jobs are running (for `session list`; not counted as the session's use).
    Status,
    /// Stop every job and end.
    Stop,
}

/// What the keeper answers.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Reply {
    content: Vec<Content>,
    structured: Option<Value>,
    /// The tool's error, as its message.
    error: Option<String>,
    /// The artifacts this call cut, to join the session's store.
    artifacts: Vec<KeptArtifact>,
}

#[derive(Debug, Serialize, Deserialize)]
struct KeptArtifact {
    id: String,
    tool: String,
    call_id: String,
    text: String,
}

/// `keeper.json`: the running keeper's pid and secret, and where the next keeper's numbers
/// start.
#[derive(Debug, Default, Serialize, Deserialize)]
struct KeeperState {
    pid: u32,
    /// When the keeper started, as the kernel counts (`/proc/PID/stat`, field 22): a pid
    /// taken by another process since is not it.
    #[serde(default)]
    started: u64,
    secret: String,
    next_job: u64,
    next_artifact: u64,
}

impl KeeperState {
    fn read(dir: &Path) -> Option<KeeperState> {
        serde_json::from_slice(&std::fs::read(dir.join(STATE)).ok()?).ok()
    }

    fn write(&self, dir: &Path) -> std::io::Result<()> {
        let text = serde_json::to_vec(self).map_err(std::io::Error::other)?;
        replace_file(&dir.join(STATE), &text, Some(0o600))
    }
}

/// A session's way to its keeper, for the calls of one `toolbox call --session NAME`.
pub(crate) struct Link {
    name: String,
    dir: PathBuf,
    /// The options a keeper is started with: the workspace and where the settings come from.
    options: Vec<OsString>,
    /// The call's settings, as [`fingerprint`] tells them.
    settings: String,
}

impl Link {
    /// The keeper of session `name`, whose folder is `dir`.
    pub(crate) fn new(name: &str, dir: &Path) -> Self {
        Link {
            name: name.to_owned(),
            dir: dir.to_owned(),
            options: Vec::new(),
            settings: String::new(),
        }
    }

    /// The keeper for a call with these `session` options in `workspace`: one it starts is
    /// started with them, and one started with other settings does not start this call's jobs.
    pub(crate) fn for_call(
        mut self,
        workspace: &Path,
        session: &SessionArgs,
        settings: Option<&Settings>,
    ) -> Self {
        let mut options: Vec<OsString> = vec!["--workspace".into(), workspace.into()];
        if let Some(settings) = &session.settings {
            // Absolute, as the keeper may be asked from another directory.
            let settings = std::path::absolute(settings).unwrap_or_else(|_| settings.clone());
            options.extend(["--settings".into(), settings.into()]);
        }
        if session.no_discover {
            options.push("--no-discover".into());
        }
        self.settings = fingerprint(&options, settings);
        self.options = options;
        self
    }

    /// A connection to the running keeper, with its secret; `None` when there is none.
    async fn connect(&self) -> Result<Option<(UnixStream, String)>, String> {
        let socket = self.dir.join(SOCKET);
        match std::fs::symlink_metadata(&socket) {
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(self.unreachable(&error)),
            Ok(found) => {
                use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _};
                let own = found.uid() == rustix::process::getuid().as_raw();
                if !found.file_type().is_socket() || !own {
                    return Err(format!(
                        "`{}` is not the socket of session `{}`'s background jobs (it is a link, a file or a folder, or another user's); remove the session with `toolbox session remove {1}`",
                        socket.display(),
                        self.name
                    ));
                }
            }
        }
        let connected = with_short_path(&self.dir, |socket| async move {
            UnixStream::connect(socket).await
        })
        .await;
        let stream = match connected {
            Ok(stream) => stream,
            Err(error) if error.kind() == std::io::ErrorKind::ConnectionRefused => return Ok(None),
            Err(error) => return Err(self.unreachable(&error)),
        };
        match KeeperState::read(&self.dir).filter(|state| !state.secret.is_empty()) {
            Some(state) => Ok(Some((stream, state.secret))),
            None => Err(format!(
                "the keeper of session `{}` is running, but `{}` is missing or damaged, so it cannot be asked; `toolbox session remove {0}` stops it",
                self.name,
                self.dir.join(STATE).display()
            )),
        }
    }

    fn unreachable(&self, error: &std::io::Error) -> String {
        format!(
            "cannot reach the background jobs of session `{}` at `{}`: {error}",
            self.name,
            self.dir.join(SOCKET).display()
        )
    }

    /// Starts the session's keeper and connects to it.
    async fn start(&self) -> Result<(UnixStream, String), String> {
        let program = std::env::current_exe()
            .map_err(|error| format!("cannot find this program to keep the jobs: {error}"))?;
        let mut command = std::process::Command::new(program);
        command
            .args(["session", "keep", &self.name])
            .args(&self.options)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null());
        let name = self.name.clone();
        // The keeper says `ready` once it listens, or why it cannot.
        let said = tokio::task::spawn_blocking(move || {
            let mut child = command.spawn().map_err(|error| error.to_string())?;
            let mut line = String::new();
            let stdout = child.stdout.take().ok_or("no output to read")?;
            let read = std::io::BufReader::new(stdout).read_line(&mut line);
            match read {
                Ok(_) if line.trim_end() == "ready" => Ok(()),
                Ok(_) if !line.is_empty() => Err(line.trim_end().to_owned()),
                _ => Err(match child.wait() {
                    Ok(status) => format!("it ended at once ({status})"),
                    Err(error) => error.to_string(),
                }),
            }
        })
        .await
        .map_err(|error| error.to_string())
        .and_then(|said| said);
        if let Err(why) = said {
            return Err(format!(
                "cannot keep background jobs for session `{name}`: {why}"
            ));
        }
        self.connect()
            .await?
            .ok_or_else(|| format!("the keeper of session `{name}` started but does not answer"))
    }

    /// Sends `request` on `stream` with `secret` and reads the reply.
    async fn ask(
        &self,
        (stream, secret): (UnixStream, String),
        request: Request,
    ) -> Result<Reply, String> {
        let failed = |error: std::io::Error| {
            format!(
                "the background jobs of session `{}` did not answer ({error}); if its keeper is stuck, `toolbox session remove {0}` stops it",
                self.name
            )
        };
        let mut line =
            serde_json::to_vec(&Envelope { secret, request }).map_err(|error| error.to_string())?;
        line.push(b'\n');
        let (read, mut write) = stream.into_split();
        let mut reply = String::new();
        let exchange = async {
            write.write_all(&line).await?;
            BufReader::new(read.take(MAX_LINE))
                .read_line(&mut reply)
                .await
        };
        match tokio::time::timeout(ANSWER_WITHIN, exchange).await {
            Ok(Ok(n)) if n > 0 => {}
            Ok(Ok(_)) => return Err(failed(std::io::ErrorKind::UnexpectedEof.into())),
            Ok(Err(error)) => return Err(failed(error)),
            Err(_) => return Err(failed(std::io::ErrorKind::TimedOut.into())),
        }
        serde_json::from_str(&reply).map_err(|error| {
            format!(
                "the background jobs of session `{}` answered what this program cannot read ({error})",
                self.name
            )
        })
    }

    /// Runs `tool` with `arguments` in the keeper, starting it when `start` and there is none;
    /// `None` when there is none and `start` is false.
    async fn forward(
        &self,
        tool: &str,
        arguments: &str,
        ctx: &ToolContext,
        start: bool,
    ) -> Option<Result<ToolOutput, ToolError>> {
        let connection = match self.connect().await {
            Ok(Some(connection)) => connection,
            Ok(None) if !start => return None,
            Ok(None) => match self.start().await {
                Ok(connection) => connection,
                Err(why) => return Some(Err(ToolError::failed(why))),
            },
            Err(why) => return Some(Err(ToolError::failed(why))),
        };
        let request = Request::Call {
            tool: tool.to_owned(),
            arguments: arguments.to_owned(),
            call_id: ctx.call().call_id.clone(),
            settings: self.settings.clone(),
        };
        let reply = match self.ask(connection, request).await {
            Ok(reply) => reply,
            Err(why) => return Some(Err(ToolError::failed(why))),
        };
        if let Some(store) = ctx.state::<Artifacts>() {
            for artifact in reply.artifacts {
                store.restore(Artifact {
                    id: artifact.id,
                    tool: artifact.tool,
                    call_id: artifact.call_id,
                    text: artifact.text.into(),
                });
            }
        }
        Some(match reply.error {
            Some(error) => Err(ToolError::failed(error)),
            None => {
                let mut output = ToolOutput::from_content(reply.content);
                output.structured = reply.structured;
                Ok(output)
            }
        })
    }

    /// Whether this session has had a keeper (its jobs may have ended with it).
    fn had_keeper(&self) -> bool {
        self.dir.join(STATE).exists()
    }

    /// Stops the keeper and its jobs, when there is one; how many jobs were still running
    /// (0 when not known). A keeper that does not answer (stuck, or its socket gone) is sent
    /// SIGTERM, which ends it the same way.
    pub(crate) async fn stop(&self) -> Option<usize> {
        if let Ok(Some(connection)) = self.connect().await
            && let Ok(reply) = self.ask(connection, Request::Stop).await
        {
            let stopped = reply.structured.and_then(|stopped| stopped.as_u64());
            return Some(stopped.and_then(|n| usize::try_from(n).ok()).unwrap_or(0));
        }
        let state = KeeperState::read(&self.dir)?;
        let same = state.pid != 0 && start_time(state.pid) == Some(state.started);
        if !same || !is_keeper_of(state.pid, &self.name) {
            return None;
        }
        terminate_and_wait(state.pid).await;
        Some(0)
    }

    /// How many of the session's jobs are running, `None` without a keeper.
    pub(crate) async fn running(&self) -> Option<usize> {
        let connection = self.connect().await.ok()??;
        let reply = self.ask(connection, Request::Status).await.ok()?;
        usize::try_from(reply.structured?.as_u64()?).ok()
    }
}

/// Runs `use_path` with a path to `dir`'s socket short enough for a socket address (108
/// bytes): the path itself, or the same folder through one of this process's descriptors.
async fn with_short_path<T, F>(
    dir: &Path,
    use_path: impl FnOnce(PathBuf) -> F,
) -> std::io::Result<T>
where
    F: std::future::Future<Output = std::io::Result<T>>,
{
    use std::os::fd::AsRawFd as _;
    let socket = dir.join(SOCKET);
    if socket.as_os_str().len() < 100 {
        return use_path(socket).await;
    }
    let folder = std::fs::File::open(dir)?;
    let short = PathBuf::from(format!("/proc/self/fd/{}/{SOCKET}", folder.as_raw_fd()));
    let done = use_path(short).await;
    drop(folder);
    done
}

/// Whether process `pid` is the keeper of session `name` (not a process that took its pid).
fn is_keeper_of(pid: u32, name: &str) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|cmdline| {
        let words: Vec<&[u8]> = cmdline.split(|&b| b == 0).collect();
        words
            .windows(3)
            .any(|w| w == [&b"session"[..], &b"keep"[..], name.as_bytes()])
    })
}

/// When process `pid` started, in clock ticks since boot (`/proc/PID/stat`, field 22).
fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command's name, which is in parentheses and may hold spaces.
    let (_, rest) = stat.rsplit_once(") ")?;
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Sends SIGTERM to `pid` and waits (5 s at most) for it to end.
async fn terminate_and_wait(pid: u32) {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return;
    };
    let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline && rustix::process::test_kill_process(pid).is_ok() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// What the settings of a call are, as far as a job's sandbox and deny rules go: the options
/// and the settings as loaded (permissions, sandbox, conditions, the files they came from),
/// as a SHA-256. Taken from what was loaded, not read again, so a file changed between the
/// two cannot slip through.
fn fingerprint(options: &[OsString], settings: Option<&Settings>) -> String {
    use sha2::{Digest as _, Sha256};
    let mut text = format!("{options:?}\n");
    if let Some(settings) = settings {
        text.push_str(&format!(
            "{:?}\n{:?}\n{:?}\n{:?}",
            settings.permissions, settings.sandbox, settings.conditions, settings.files
        ));
    }
    hex(&Sha256::digest(text.as_bytes()))
}

/// `bytes` in lowercase hex.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// `toolset` with its shell tools run through the session's keeper.
pub(crate) fn kept(mut toolset: Toolset, link: &Arc<Link>) -> Toolset {
    for name in JOB_TOOLS {
        if let Some(inner) = toolset.remove(name) {
            let kept = Kept {
                inner,
                link: Arc::clone(link),
            };
            // Put back under the same name: it cannot clash.
            let _ = toolset.add(ToolHandle::Shared(Arc::new(kept)));
        }
    }
    toolset
}

/// A shell tool whose jobs the session's keeper holds: the same spec, schema and arguments,
/// so the call is judged exactly as the tool's own.
struct Kept {
    inner: ToolHandle,
    link: Arc<Link>,
}

/// A call of a [`Kept`] tool: its arguments as sent, and as the tool itself prepared them.
struct KeptArguments {
    sent: String,
    prepared: Prepared,
}

impl Tool for Kept {
    fn spec(&self) -> &ToolSpec {
        self.inner.spec()
    }

    fn input_schema(&self) -> &Schema {
        self.inner.input_schema()
    }

    fn output_schema(&self) -> Option<&Schema> {
        self.inner.output_schema()
    }

    fn required_state(&self) -> &'static [RequiredState] {
        self.inner.required_state()
    }

    fn prepare(&self, arguments: &str) -> Result<Prepared, ToolError> {
        let prepared = self.inner.prepare(arguments)?;
        let effect = prepared.effect(self.inner.spec());
        let resources = prepared.resources().to_vec();
        Ok(Prepared::new(KeptArguments {
            sent: arguments.to_owned(),
            prepared,
        })
        .with_effect(effect)
        .with_resources(resources))
    }

    fn invoke<'a>(&'a self, prepared: Prepared, ctx: &'a ToolContext) -> ToolFuture<'a> {
        ToolFuture::new(async move {
            let KeptArguments { sent, prepared } = prepared.take::<KeptArguments>()?;
            let tool = self.inner.spec().name.as_ref();
            let starts_job = tool == "run_shell"
                && serde_json::from_str::<Value>(&sent).is_ok_and(|arguments| {
                    arguments.get("run_in_background") == Some(&Value::Bool(true))
                });
            // A command in the foreground is the call's own; a job, or a question about
            // jobs, is the keeper's.
            if tool == "run_shell" && !starts_job {
                return self.inner.invoke(prepared, ctx).await;
            }
            if let Some(outcome) = self.link.forward(tool, &sent, ctx, starts_job).await {
                return outcome;
            }
            // No keeper: there are no jobs, or they ended with the keeper.
            if tool != "list_shells" && self.link.had_keeper() {
                return Err(ToolError::failed(format!(
                    "the background jobs of this session have ended and were forgotten: they are kept until {} after the last one ended, or until `toolbox session remove {}`; list_shells shows the jobs there are",
                    crate::sessions::minutes(idle_for()),
                    self.link.name
                )));
            }
            self.inner.invoke(prepared, ctx).await
        })
    }
}

/// How long an idle keeper waits before it ends.
fn idle_for() -> Duration {
    std::env::var(IDLE_VARIABLE)
        .ok()
        .and_then(|ms| ms.parse().ok())
        .map_or(IDLE, Duration::from_millis)
}

/// `toolbox session keep NAME`: the keeper of session `name`'s jobs, until it should end. A
/// failure to start is said on stdout, where the call that started it reads.
pub(crate) fn keep(name: &str, session: &SessionArgs) -> Result<u8, Failure> {
    close_inherited_descriptors();
    // Out of the caller's terminal session: closing the terminal does not end the jobs.
    let _ = rustix::process::setsid();
    keep_jobs(name, session).inspect_err(|failure| say(&failure.message))
}

/// Writes one line on stdout, for the call that started the keeper.
fn say(line: &str) {
    use std::io::Write as _;
    let mut stdout = std::io::stdout();
    let _ = writeln!(stdout, "{line}").and_then(|()| stdout.flush());
}

/// Closes every descriptor but stdin, stdout and stderr that the keeper was started with: a
/// caller's pipe (a test runner's, make's jobserver) held open by a keeper that lives on
/// would keep its reader waiting, and a job would get it too.
fn close_inherited_descriptors() {
    // SAFETY: called first thing in `toolbox session keep`, before this process opens any
    // file: no object owns a descriptor above 2, so none is closed under an owner.
    unsafe {
        libc::close_range(3, u32::MAX, 0);
    }
}

fn keep_jobs(name: &str, session: &SessionArgs) -> Result<u8, Failure> {
    let dir = crate::sessions::session_dir(name)?;
    let runtime = crate::runtime()?;
    let resolved = session.resolve()?;
    let workspace = resolved.workspace.root().to_owned();
    crate::sessions::kept_apart_from(std::slice::from_ref(&workspace))?;
    let link = Link::new(name, &dir).for_call(&workspace, session, resolved.settings.as_ref());
    if runtime
        .block_on(link.connect())
        .is_ok_and(|keeper| keeper.is_some())
    {
        return Err(Failure::setup(format!(
            "session `{name}` has a keeper already"
        )));
    }
    let numbers = KeeperState::read(&dir).unwrap_or_default();
    let artifacts = Artifacts::default().with_ids(ARTIFACT_PREFIX, numbers.next_artifact);
    let calls = CancellationToken::new();
    let toolset = Toolset::named(JOB_TOOLS).map_err(|error| Failure::setup(error.to_string()))?;
    let first_job = FirstJobNumber(numbers.next_job.max(1));
    let coordinator = crate::keeper_coordinator(
        toolset,
        session,
        resolved,
        calls.clone(),
        &artifacts,
        first_job,
    )?;
    // The calls were authorized where they were made; the safety layer, the deny rules and
    // the sandbox still hold here.
    coordinator.set_mode(Mode::Bypass);
    let listener = runtime
        .block_on(with_short_path(&dir, |socket| async move { bind(&socket) }))
        .map_err(|error| {
            Failure::setup(format!(
                "cannot listen at `{}`: {error}",
                dir.join(SOCKET).display()
            ))
        })?;
    let socket = dir.join(SOCKET);
    let bound = identity(&socket);
    let keeper = Arc::new(Keeper {
        coordinator,
        artifacts,
        dir: dir.clone(),
        settings: link.settings,
        state: Mutex::new(KeeperState {
            pid: std::process::id(),
            started: start_time(std::process::id()).unwrap_or(0),
            secret: secret()
                .map_err(|error| Failure::setup(format!("cannot make a secret: {error}")))?,
            next_job: first_job.0,
            next_artifact: numbers.next_artifact.max(1),
        }),
        last_active: Mutex::new(Instant::now()),
        requests: AtomicU64::new(0),
        stopping: CancellationToken::new(),
    });
    keeper.save().map_err(|error| {
        Failure::setup(format!(
            "cannot write `{}`: {error}",
            dir.join(STATE).display()
        ))
    })?;
    say("ready");
    let served = runtime.block_on(async {
        crate::signals::until_stopped(Arc::clone(&keeper).serve(listener, &socket, bound), &calls)
            .await
    });
    // Asked to stop, the keeper leaves the folder alone: `session remove` is deleting it.
    if identity(&socket) == bound && !keeper.stopping.is_cancelled() {
        let _ = std::fs::remove_file(&socket);
        // Gone: nothing is to be asked, or signalled, under its pid; the numbers stay.
        let mut state = lock(&keeper.state);
        state.pid = 0;
        state.started = 0;
        state.secret.clear();
        let _ = state.write(&dir);
    }
    drop(keeper);
    match served {
        Ok(()) => Ok(0),
        Err(stop) => Ok(crate::signals::shut_down(stop, runtime)),
    }
}

/// A secret of 128 random bits, in hex.
fn secret() -> std::io::Result<String> {
    use std::io::Read as _;
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(hex(&bytes))
}

/// Listens at `socket`, in place of a socket no keeper answers at any more.
fn bind(socket: &Path) -> std::io::Result<UnixListener> {
    use std::os::unix::fs::{FileTypeExt as _, PermissionsExt as _};
    if std::fs::symlink_metadata(socket).is_ok_and(|kind| kind.file_type().is_socket()) {
        // Another keeper's, answering: never taken from it (it would stop its jobs).
        if std::os::unix::net::UnixStream::connect(socket).is_ok() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::AddrInUse,
                "another keeper listens there",
            ));
        }
        std::fs::remove_file(socket)?;
    }
    let listener = UnixListener::bind(socket)?;
    std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o600))?;
    Ok(listener)
}

/// The device and inode of `path`, to tell the keeper's own socket from one put in its place.
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::symlink_metadata(path)
        .ok()
        .map(|metadata| (metadata.dev(), metadata.ino()))
}

struct Keeper {
    coordinator: Coordinator,
    artifacts: Artifacts,
    dir: PathBuf,
    /// Its settings, as [`fingerprint`] tells them.
    settings: String,
    state: Mutex<KeeperState>,
    /// When a call last asked, or a job last ran.
    last_active: Mutex<Instant>,
    /// Requests answered, to give each call an id of its own here.
    requests: AtomicU64,
    /// Cancelled when asked to stop.
    stopping: CancellationToken,
}

impl Keeper {
    /// Answers calls, each connection on a task of its own, until asked to stop, until its
    /// socket is gone, or until idle.
    async fn serve(
        self: Arc<Self>,
        listener: UnixListener,
        socket: &Path,
        bound: Option<(u64, u64)>,
    ) {
        let idle_for = idle_for();
        let connections = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
        loop {
            tokio::select! {
                () = self.stopping.cancelled() => return,
                accepted = listener.accept() => {
                    if let Ok((stream, _)) = accepted
                        && let Ok(slot) = Arc::clone(&connections).try_acquire_owned()
                    {
                        let keeper = Arc::clone(&self);
                        tokio::spawn(async move {
                            keeper.answer(stream).await;
                            drop(slot);
                        });
                    }
                }
                () = tokio::time::sleep(TICK) => {}
            }
            if tool_std::shell::running() > 0 {
                *lock(&self.last_active) = Instant::now();
            }
            let idle = lock(&self.last_active).elapsed() > idle_for;
            // The session removed by hand: nobody can ask for these jobs any more.
            if idle || identity(socket) != bound {
                self.stop_jobs().await;
                return;
            }
        }
    }

    /// Reads one request from `stream` and answers it.
    async fn answer(self: Arc<Self>, stream: UnixStream) {
        // Only this user's calls: the folder is theirs alone, and this says so again.
        let own = stream
            .peer_cred()
            .is_ok_and(|peer| peer.uid() == rustix::process::getuid().as_raw());
        if !own {
            return;
        }
        let (read, mut write) = stream.into_split();
        let mut line = String::new();
        let read = tokio::time::timeout(
            CONNECTION_WITHIN,
            BufReader::new(read.take(MAX_REQUEST)).read_line(&mut line),
        )
        .await;
        if !matches!(read, Ok(Ok(n)) if n > 0) {
            return;
        }
        let envelope = match serde_json::from_str::<Envelope>(&line) {
            Ok(envelope) => envelope,
            Err(error) => {
                let reply = Reply {
                    error: Some(format!("not a request this keeper reads: {error}")),
                    ..Reply::default()
                };
                return send(&mut write, &reply).await;
            }
        };
        let expected = lock(&self.state).secret.clone();
        if !same_secret(&envelope.secret, &expected) {
            let reply = Reply {
                error: Some("not this keeper's secret".to_owned()),
                ..Reply::default()
            };
            return send(&mut write, &reply).await;
        }
        let reply = match envelope.request {
            Request::Status => Reply {
                structured: Some(Value::from(
                    u64::try_from(tool_std::shell::running()).unwrap_or(u64::MAX),
                )),
                ..Reply::default()
            },
            Request::Stop => {
                let stopped = self.stop_jobs().await;
                let reply = Reply {
                    structured: Some(Value::from(stopped)),
                    ..Reply::default()
                };
                send(&mut write, &reply).await;
                self.stopping.cancel();
                return;
            }
            Request::Call {
                tool,
                arguments,
                call_id,
                settings,
            } => {
                *lock(&self.last_active) = Instant::now();
                let reply = self.call(&tool, &arguments, &call_id, &settings).await;
                *lock(&self.last_active) = Instant::now();
                reply
            }
        };
        send(&mut write, &reply).await;
    }

    async fn call(&self, tool: &str, arguments: &str, call_id: &str, settings: &str) -> Reply {
        if !JOB_TOOLS.contains(&tool) {
            return Reply {
                error: Some(format!("`{tool}` is not a tool of background jobs")),
                ..Reply::default()
            };
        }
        if tool == "run_shell" && settings != self.settings {
            return Reply {
                error: Some(format!(
                    "this session's background jobs run under other settings than this call's (another --settings file or --no-discover, or a settings file changed since the first job started), and a job must run under the settings that authorized it: stop the session's jobs with `toolbox session remove {}`, or start this one in another session",
                    session_name(&self.dir)
                )),
                ..Reply::default()
            };
        }
        // An id of the keeper's own, so what this call cut is told from what a call at the
        // same time cut.
        let own_id = format!(
            "{call_id}#{}",
            self.requests.fetch_add(1, Ordering::Relaxed)
        );
        let result = self
            .coordinator
            .call(ToolCall::new(tool, arguments).with_call_id(own_id.clone()))
            .await;
        let artifacts = self
            .artifacts
            .list()
            .into_iter()
            .filter(|artifact| artifact.call_id == own_id)
            .map(|artifact| KeptArtifact {
                id: artifact.id,
                tool: artifact.tool,
                call_id: call_id.to_owned(),
                text: artifact.text.to_string(),
            })
            .collect::<Vec<_>>();
        self.note_numbers(&result, &artifacts);
        let error = result.error().map(ToString::to_string);
        Reply {
            content: result.content,
            structured: result.structured,
            error,
            artifacts,
        }
    }

    /// Keeps where the next keeper's numbers start, past the job and artifacts of this call.
    fn note_numbers(&self, result: &tool_core::ToolResult, artifacts: &[KeptArtifact]) {
        let number = |id: &str, prefix: &str| {
            id.strip_prefix(prefix)
                .and_then(|number| number.parse::<u64>().ok())
        };
        let job = crate::background_job(result).and_then(|id| number(id, "shell_"));
        let artifact = artifacts
            .iter()
            .filter_map(|artifact| number(&artifact.id, ARTIFACT_PREFIX))
            .max();
        if job.is_none() && artifact.is_none() {
            return;
        }
        {
            let mut state = lock(&self.state);
            if let Some(job) = job {
                state.next_job = state.next_job.max(job + 1);
            }
            if let Some(artifact) = artifact {
                state.next_artifact = state.next_artifact.max(artifact + 1);
            }
        }
        // Lost, the next keeper would give a number again: said nowhere (the reply is out).
        let _ = self.save();
    }

    fn save(&self) -> std::io::Result<()> {
        let state = lock(&self.state);
        state.write(&self.dir)
    }

    /// Stops every job (SIGTERM, SIGKILL to what is left after the grace period); how many
    /// were running.
    async fn stop_jobs(&self) -> usize {
        let running = tool_std::shell::running();
        crate::signals::stop_commands(false);
        tokio::select! {
            () = crate::signals::commands_ended() => {}
            () = tokio::time::sleep(Duration::from_secs(3)) => {}
        }
        crate::signals::stop_commands(true);
        running
    }
}

/// Writes `reply` on one line, waiting no longer than a reader that does not read deserves.
async fn send(write: &mut tokio::net::unix::OwnedWriteHalf, reply: &Reply) {
    if let Ok(mut text) = serde_json::to_vec(reply) {
        text.push(b'\n');
        let _ = tokio::time::timeout(CONNECTION_WITHIN, write.write_all(&text)).await;
    }
}

/// Compares two secrets in time that does not depend on where they differ.
fn same_secret(given: &str, expected: &str) -> bool {
    given.len() == expected.len()
        && given
            .bytes()
            .zip(expected.bytes())
            .fold(0u8, |differ, (a, b)| differ | (a ^ b))
            == 0
}

/// The session's name, from its folder.
fn session_name(dir: &Path) -> String {
    dir.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
