//! Background jobs that outlive `toolbox call --session NAME`: each session's jobs live in a
//! process of their own, the session's *keeper*, which the first call that starts a job starts
//! (`toolbox session keep NAME`, detached from the terminal) and later calls ask.
//!
//! A call of the session runs the shell tools through [`Kept`]: the call is authorized where it
//! was made (policy, hooks, the person at the terminal), and only then is its tool run by the
//! keeper, whose coordinator holds the jobs (`run_shell` with `run_in_background`,
//! `shell_output`, `kill_shell`, `list_shells`); a command in the foreground runs in the call
//! as before. The keeper builds its coordinator from the session's workspace and settings as a
//! call does, so a job gets the same kernel sandbox and the same deny rules (its hooks and
//! approvals were the call's), and it cuts long output into artifacts of its own (`art_job_N`),
//! which the reply carries into the session's store.
//!
//! The keeper listens on `jobs.sock` in the session's folder (the user's alone), answers only
//! its own user, and ends, stopping its jobs, when `toolbox session remove` asks, on SIGTERM,
//! SIGINT or SIGHUP, when its socket is gone, or after [`IDLE`] with no job running and nothing
//! asked.

use std::ffi::OsString;
use std::io::BufRead as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
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
use tool_core::spec::ToolSpec;
use tool_core::tool::{Prepared, RequiredState, ToolFuture, ToolHandle};
use tool_core::{Coordinator, Tool, ToolCall, ToolError, ToolOutput, Toolset};

use crate::{Failure, SessionArgs};

/// The tools whose calls the keeper runs.
pub(crate) const JOB_TOOLS: [&str; 4] = ["run_shell", "shell_output", "kill_shell", "list_shells"];
/// The keeper's socket, in the session's folder.
const SOCKET: &str = "jobs.sock";
/// How long a keeper with no job running and nothing asked waits before it ends.
const IDLE: Duration = Duration::from_secs(15 * 60);
/// The variable a test sets to end idle keepers sooner (milliseconds).
const IDLE_VARIABLE: &str = "TOOLBOX_KEEPER_IDLE_MS";
/// How often the keeper looks whether it should end.
const TICK: Duration = Duration::from_millis(250);
/// How long a call waits for the keeper's answer.
const ANSWER_WITHIN: Duration = Duration::from_secs(30);
/// The longest request or reply line read.
const MAX_LINE: u64 = 64 << 20;
/// The prefix of the artifacts the keeper keeps, so their ids never meet the session's own.
pub(crate) const ARTIFACT_PREFIX: &str = "art_job_";

/// What a call asks the keeper.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Request {
    /// Run one of [`JOB_TOOLS`], authorized by the call, with the call's own arguments.
    Call {
        tool: String,
        arguments: String,
        call_id: String,
        /// The options the keeper must have been started with for this call's job to run as
        /// the call would run it (see [`Link::options`]).
        options: Vec<String>,
    },
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

/// A session's way to its keeper, for the calls of one `toolbox call --session NAME`.
pub(crate) struct Link {
    name: String,
    dir: PathBuf,
    /// The options a keeper is started with: the workspace and where the settings come from.
    options: Vec<OsString>,
}

impl Link {
    /// The keeper of session `name`, whose folder is `dir`.
    pub(crate) fn new(name: &str, dir: &Path) -> Self {
        Link {
            name: name.to_owned(),
            dir: dir.to_owned(),
            options: Vec::new(),
        }
    }

    /// The keeper for a call with these `session` options in `workspace`: one it starts is
    /// started with them, and one started with others does not start this call's jobs.
    pub(crate) fn for_call(mut self, workspace: &Path, session: &SessionArgs) -> Self {
        let mut options: Vec<OsString> = vec!["--workspace".into(), workspace.into()];
        if let Some(settings) = &session.settings {
            // Absolute, as the keeper may be asked from another directory.
            let settings = std::path::absolute(settings).unwrap_or_else(|_| settings.clone());
            options.extend(["--settings".into(), settings.into()]);
        }
        if session.no_discover {
            options.push("--no-discover".into());
        }
        self.options = options;
        self
    }

    fn socket(&self) -> PathBuf {
        self.dir.join(SOCKET)
    }

    fn options(&self) -> Vec<String> {
        self.options
            .iter()
            .map(|option| option.to_string_lossy().into_owned())
            .collect()
    }

    /// A connection to the running keeper, `None` when there is none.
    async fn connect(&self) -> Result<Option<UnixStream>, String> {
        match UnixStream::connect(self.socket()).await {
            Ok(stream) => Ok(Some(stream)),
            Err(error)
                if matches!(
                    error.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused
                ) =>
            {
                Ok(None)
            }
            Err(error) => Err(format!(
                "cannot reach the background jobs of session `{}` at `{}`: {error}",
                self.name,
                self.socket().display()
            )),
        }
    }

    /// Starts the session's keeper and connects to it.
    async fn start(&self) -> Result<UnixStream, String> {
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

    /// Sends `request` on `stream` and reads the reply.
    async fn ask(&self, stream: UnixStream, request: &Request) -> Result<Reply, String> {
        let failed = |error: std::io::Error| {
            format!(
                "the background jobs of session `{}` did not answer: {error}",
                self.name
            )
        };
        let mut line = serde_json::to_vec(request).map_err(|error| error.to_string())?;
        line.push(b'\n');
        let (read, mut write) = stream.into_split();
        let mut reply = String::new();
        let exchange = async {
            write.write_all(&line).await?;
            BufReader::new(read.take(MAX_LINE))
                .read_line(&mut reply)
                .await
        };
        // The longest answer is kill_shell's, which waits for the job's end after SIGKILL.
        match tokio::time::timeout(ANSWER_WITHIN, exchange).await {
            Ok(done) => done.map_err(failed)?,
            Err(_) => return Err(failed(std::io::ErrorKind::TimedOut.into())),
        };
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
        let stream = match self.connect().await {
            Ok(Some(stream)) => stream,
            Ok(None) if !start => return None,
            Ok(None) => match self.start().await {
                Ok(stream) => stream,
                Err(why) => return Some(Err(ToolError::failed(why))),
            },
            Err(why) => return Some(Err(ToolError::failed(why))),
        };
        let request = Request::Call {
            tool: tool.to_owned(),
            arguments: arguments.to_owned(),
            call_id: ctx.call().call_id.clone(),
            options: self.options(),
        };
        let reply = match self.ask(stream, &request).await {
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

    /// Stops the keeper and its jobs, when there is one; how many jobs were still running.
    pub(crate) async fn stop(&self) -> Result<Option<usize>, String> {
        let Some(stream) = self.connect().await? else {
            return Ok(None);
        };
        let reply = self.ask(stream, &Request::Stop).await?;
        Ok(Some(
            reply
                .structured
                .and_then(|stopped| stopped.as_u64())
                .and_then(|stopped| usize::try_from(stopped).ok())
                .unwrap_or(0),
        ))
    }

    /// How many of the session's jobs are running, `None` without a keeper.
    pub(crate) async fn running(&self) -> Option<usize> {
        let stream = self.connect().await.ok()??;
        let request = Request::Call {
            tool: "list_shells".to_owned(),
            arguments: "{}".to_owned(),
            call_id: String::new(),
            options: self.options(),
        };
        let reply = self.ask(stream, &request).await.ok()?;
        let jobs = reply.structured?.get("jobs")?.as_array()?.clone();
        Some(
            jobs.iter()
                .filter(|job| job.get("status").and_then(Value::as_str) == Some("running"))
                .count(),
        )
    }
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
            // jobs, is the keeper's (none yet: the tool answers that there are no jobs).
            if (tool != "run_shell" || starts_job)
                && let Some(outcome) = self.link.forward(tool, &sent, ctx, starts_job).await
            {
                return outcome;
            }
            self.inner.invoke(prepared, ctx).await
        })
    }
}

/// `toolbox session keep NAME`: the keeper of session `name`'s jobs, until it should end.
pub(crate) fn keep(name: &str, session: &SessionArgs) -> Result<u8, Failure> {
    // Out of the caller's terminal session: closing the terminal does not end the jobs.
    let _ = rustix::process::setsid();
    let dir = crate::sessions::sessions_dir()?.join(name);
    let runtime = crate::runtime()?;
    let resolved = session.resolve()?;
    let workspace = resolved.workspace.root().to_owned();
    let options = Link::new(name, &dir)
        .for_call(&workspace, session)
        .options();
    let artifacts = Artifacts::default().with_id_prefix(ARTIFACT_PREFIX);
    let calls = CancellationToken::new();
    let toolset = Toolset::named(JOB_TOOLS).map_err(|error| Failure::setup(error.to_string()))?;
    let coordinator =
        crate::keeper_coordinator(toolset, session, resolved, calls.clone(), &artifacts)?;
    // The calls were authorized where they were made; the safety layer, the deny rules and
    // the sandbox still hold here.
    coordinator.set_mode(Mode::Bypass);
    let socket = dir.join(SOCKET);
    let listener = runtime.block_on(async { bind(&socket) }).map_err(|error| {
        Failure::setup(format!("cannot listen at `{}`: {error}", socket.display()))
    })?;
    let bound = identity(&socket);
    {
        use std::io::Write as _;
        let mut stdout = std::io::stdout();
        let _ = writeln!(stdout, "ready").and_then(|()| stdout.flush());
    }
    let keeper = Keeper {
        coordinator: &coordinator,
        artifacts: &artifacts,
        options,
    };
    let served = runtime.block_on(async {
        crate::signals::until_stopped(keeper.serve(listener, &socket, bound), &calls).await
    });
    drop(coordinator);
    if identity(&socket) == bound {
        let _ = std::fs::remove_file(&socket);
    }
    match served {
        Ok(()) => Ok(0),
        Err(stop) => Ok(crate::signals::shut_down(stop, runtime)),
    }
}

/// Listens at `socket`, in place of a socket no keeper answers at any more.
fn bind(socket: &Path) -> std::io::Result<UnixListener> {
    use std::os::unix::fs::{FileTypeExt as _, PermissionsExt as _};
    if std::fs::symlink_metadata(socket).is_ok_and(|kind| kind.file_type().is_socket()) {
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

struct Keeper<'a> {
    coordinator: &'a Coordinator,
    artifacts: &'a Artifacts,
    options: Vec<String>,
}

impl Keeper<'_> {
    /// Answers calls until asked to stop, until its socket is gone, or until idle.
    async fn serve(&self, listener: UnixListener, socket: &Path, bound: Option<(u64, u64)>) {
        let idle_for = std::env::var(IDLE_VARIABLE)
            .ok()
            .and_then(|ms| ms.parse().ok())
            .map_or(IDLE, Duration::from_millis);
        let mut last_asked = Instant::now();
        loop {
            match tokio::time::timeout(TICK, listener.accept()).await {
                Ok(Ok((stream, _))) => {
                    last_asked = Instant::now();
                    if self.answer(stream).await == Answered::Stop {
                        return;
                    }
                }
                Ok(Err(_)) => tokio::time::sleep(TICK).await,
                Err(_) => {}
            }
            let running = tool_std::shell::running() > 0;
            let idle = !running && last_asked.elapsed() > idle_for;
            // The session removed by hand: nobody can ask for these jobs any more.
            if idle || identity(socket) != bound {
                self.stop_jobs().await;
                return;
            }
        }
    }

    /// Reads one request from `stream` and answers it.
    async fn answer(&self, stream: UnixStream) -> Answered {
        // Only this user's calls: the folder is theirs alone, and this says so again.
        let own = stream
            .peer_cred()
            .is_ok_and(|peer| peer.uid() == rustix::process::getuid().as_raw());
        if !own {
            return Answered::Call;
        }
        let (read, mut write) = stream.into_split();
        let mut line = String::new();
        let read = tokio::time::timeout(
            Duration::from_secs(10),
            BufReader::new(read.take(MAX_LINE)).read_line(&mut line),
        )
        .await;
        if !matches!(read, Ok(Ok(n)) if n > 0) {
            return Answered::Call;
        }
        let (reply, answered) = match serde_json::from_str::<Request>(&line) {
            Ok(Request::Stop) => {
                let stopped = self.stop_jobs().await;
                let reply = Reply {
                    structured: Some(Value::from(stopped)),
                    ..Reply::default()
                };
                (reply, Answered::Stop)
            }
            Ok(Request::Call {
                tool,
                arguments,
                call_id,
                options,
            }) => (
                self.call(&tool, &arguments, &call_id, &options).await,
                Answered::Call,
            ),
            Err(error) => (
                Reply {
                    error: Some(format!("not a request this keeper reads: {error}")),
                    ..Reply::default()
                },
                Answered::Call,
            ),
        };
        if let Ok(mut text) = serde_json::to_vec(&reply) {
            text.push(b'\n');
            let _ = write.write_all(&text).await;
        }
        answered
    }

    async fn call(&self, tool: &str, arguments: &str, call_id: &str, options: &[String]) -> Reply {
        if !JOB_TOOLS.contains(&tool) {
            return Reply {
                error: Some(format!("`{tool}` is not a tool of background jobs")),
                ..Reply::default()
            };
        }
        if tool == "run_shell" && options != self.options {
            return Reply {
                error: Some(format!(
                    "this session's background jobs run with other options ({}) than this call ({}): start the job in a session of its own, or stop these jobs with `toolbox session remove`",
                    self.options.join(" "),
                    options.join(" ")
                )),
                ..Reply::default()
            };
        }
        let before: Vec<String> = self.artifacts.list().into_iter().map(|a| a.id).collect();
        let result = self
            .coordinator
            .call(ToolCall::new(tool, arguments).with_call_id(call_id))
            .await;
        let artifacts = self
            .artifacts
            .list()
            .into_iter()
            .filter(|artifact| !before.contains(&artifact.id))
            .map(|artifact| KeptArtifact {
                id: artifact.id,
                tool: artifact.tool,
                call_id: artifact.call_id,
                text: artifact.text.to_string(),
            })
            .collect();
        let error = result.error().map(ToString::to_string);
        Reply {
            content: result.content,
            structured: result.structured,
            error,
            artifacts,
        }
    }

    /// Stops every job (SIGTERM, SIGKILL to what is left after the grace period); how many
    /// were running.
    async fn stop_jobs(&self) -> usize {
        let running = tool_std::shell::terminate_all();
        let deadline = Instant::now() + Duration::from_secs(3);
        while tool_std::shell::running() > 0 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        tool_std::shell::kill_all();
        running
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Answered {
    Call,
    Stop,
}
