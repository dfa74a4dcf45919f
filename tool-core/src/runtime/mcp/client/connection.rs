//! One live connection to a server: the child process (killed with its process group when the
//! connection is dropped) and its bounded stderr, or the HTTP transport; the rmcp client
//! running over it; the routing of the server's progress notifications to the calls
//! waiting for them; and hearing that the server's tool list changed
//! (`notifications/tools/list_changed` from a 2025-11-25 server, a `subscriptions/listen`
//! stream opened on a 2026-07-28 server that declares `listChanged`).

use std::collections::{HashMap, VecDeque};
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{
    ClientConfig, ElicitRequestParams, ElicitResult, ErrorCode, Implementation,
    ProgressNotificationParam, ProgressToken, ProtocolVersion, ServerNotification,
    SubscriptionFilter,
};
// SEP-2577 deprecates sampling and roots in a later protocol; 2025-11-25 and 2026-07-28,
// which this client speaks, have them.
#[expect(deprecated)]
use rmcp::model::{CreateMessageRequestParams, CreateMessageResult, ListRootsResult};
use rmcp::service::{
    ClientCacheConfig, ClientInitializeError, ClientLifecycleMode, NotificationContext,
    RequestContext, RunningService, ServiceError,
};
use rmcp::{ClientHandler, ErrorData, RoleClient};
use tokio::io::AsyncReadExt;
use tokio::sync::watch;

use super::config::{McpServerConfig, McpTransport};
use super::error::McpClientError;
use super::questions::{AskRoutes, Asker};
use crate::context::Progress;

/// How long a server has to answer the handshake (Claude Code's default `MCP_TIMEOUT`); a
/// server that takes longer is reported, not waited for forever.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// How long to wait before opening `subscriptions/listen` again after its stream ended, at
/// first and at most (the pause doubles while it keeps failing).
const LISTEN_RETRY_FIRST: Duration = Duration::from_secs(1);
const LISTEN_RETRY_LAST: Duration = Duration::from_secs(30);
/// How much of a server's stderr is kept for messages: its last bytes.
const STDERR_KEPT: usize = 8 * 1024;
/// How much of it a message shows.
const STDERR_SHOWN: usize = 2 * 1024;
/// Progress notifications kept for a token no call has claimed yet (the call registers its
/// token just after sending: a fast server can report before that).
const EARLY_PER_TOKEN: usize = 32;
const EARLY_TOKENS: usize = 64;

/// A connection's rmcp client.
pub(super) type Service = RunningService<RoleClient, Handler>;

/// The live connection.
pub(super) struct Connection {
    pub(super) service: Service,
    pub(super) routes: Arc<ProgressRoutes>,
    /// The calls in flight, for the server's questions to find theirs.
    pub(super) asks: Arc<AskRoutes>,
    pub(super) child: Option<ChildGuard>,
    /// The task reading the `subscriptions/listen` stream, stopped with the connection.
    pub(super) _listening: Option<Listening>,
}

/// A task aborted when dropped.
pub(super) struct Listening(tokio::task::JoinHandle<()>);

impl Drop for Listening {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Moves when the server's tool list changed: shared by every connection to one server.
pub(super) type ListChanged = Arc<watch::Sender<u64>>;

fn bump(list_changed: &ListChanged) {
    list_changed.send_modify(|generation| *generation += 1);
}

/// On a 2026-07-28 server that declares `tools.listChanged`, opens `subscriptions/listen` for
/// tool list changes and moves `list_changed` on each. (A 2025-11-25 server sends
/// `notifications/tools/list_changed` on the connection, which [`Handler`] hears.)
fn listen(service: &Service, list_changed: &ListChanged) -> Option<Listening> {
    let info = service.peer().peer_info()?;
    let declared = info
        .capabilities
        .tools
        .as_ref()
        .is_some_and(|tools| tools.list_changed == Some(true));
    if info.protocol_version < ProtocolVersion::V_2026_07_28 || !declared {
        return None;
    }
    let peer = service.peer().clone();
    let list_changed = Arc::clone(list_changed);
    Some(Listening(tokio::spawn(async move {
        let mut pause = LISTEN_RETRY_FIRST;
        loop {
            let filter = SubscriptionFilter::builder().tools_list_changed().build();
            match peer.listen(filter).await {
                Ok(mut subscription) => {
                    pause = LISTEN_RETRY_FIRST;
                    // What changed before the acknowledgement was not announced on this stream
                    // (a stream has no replay): whoever follows lists again.
                    bump(&list_changed);
                    while let Ok(Some(notification)) = subscription.next().await {
                        if matches!(
                            notification,
                            ServerNotification::ToolListChangedNotification(_)
                        ) {
                            bump(&list_changed);
                        }
                    }
                }
                Err(ServiceError::McpError(error)) => {
                    tracing::warn!(error = %error.message, "the MCP server refused subscriptions/listen: its tool list changes will not be followed");
                    return;
                }
                Err(error) => {
                    tracing::debug!(%error, "subscriptions/listen could not be opened");
                }
            }
            // The stream ended (a server restarted behind its URL drops it) while the
            // connection may still carry calls, as a stateless HTTP one does: listen again,
            // after a pause that grows while it keeps failing. A closed connection is
            // replaced by the next listing, which listens anew: whoever follows lists again.
            if peer.is_transport_closed() {
                bump(&list_changed);
                return;
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(LISTEN_RETRY_LAST);
        }
    })))
}

impl Connection {
    /// Whether the connection can still carry a call.
    pub(super) fn is_alive(&self) -> bool {
        if self.service.is_closed() || self.service.is_transport_closed() {
            return false;
        }
        self.child
            .as_ref()
            .is_none_or(|child| child.exit_status().is_none())
    }

    /// Why the connection is gone, as an error naming the server and, for a process, how it
    /// ended and the tail of its stderr.
    pub(super) async fn gone(&self, server: &str) -> McpClientError {
        match &self.child {
            Some(child) => {
                // The transport closes when the child's stdout does; its exit is reaped just
                // after. Wait a moment for it so that the message can say how it ended.
                let status = child.wait_exit(Duration::from_secs(2)).await;
                child.stderr.wait_drained(Duration::from_millis(500)).await;
                McpClientError::Exited {
                    server: server.to_owned(),
                    status: status.unwrap_or_else(|| "is no longer answering".to_owned()),
                    stderr: child.stderr.tail(),
                }
            }
            None => McpClientError::Closed {
                server: server.to_owned(),
            },
        }
    }
}

/// Starts the server (or reaches it) and runs the MCP handshake.
pub(super) async fn connect(
    config: &McpServerConfig,
    list_changed: &ListChanged,
) -> Result<Connection, McpClientError> {
    let routes = Arc::new(ProgressRoutes::default());
    let asks = Arc::new(AskRoutes::default());
    let handler = Handler {
        routes: Arc::clone(&routes),
        asks: Arc::clone(&asks),
        list_changed: Arc::clone(list_changed),
    };
    // `server/discover` first (protocol 2026-07-28), the `initialize` handshake of 2025-11-25
    // and older for a server that does not know it (or, when so configured, at once).
    let lifecycle = if config.legacy_protocol {
        ClientLifecycleMode::Initialize
    } else {
        ClientLifecycleMode::Auto {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            legacy_version: Some(ProtocolVersion::V_2025_11_25),
        }
    };
    match &config.transport {
        McpTransport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let mut process = tokio::process::Command::new(command);
            process
                .args(args)
                .envs(env.iter().map(|(k, v)| (k, v)))
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                // Its own process group, so that dropping the connection ends the server and
                // whatever it started; and killed on drop should the group kill miss it.
                .process_group(0)
                .kill_on_drop(true);
            if let Some(cwd) = cwd {
                process.current_dir(cwd);
            }
            let mut child = process.spawn().map_err(|source| McpClientError::Spawn {
                server: config.name.clone(),
                command: config.target(),
                source,
            })?;
            let (Some(stdin), Some(stdout), Some(stderr)) =
                (child.stdin.take(), child.stdout.take(), child.stderr.take())
            else {
                return Err(McpClientError::Spawn {
                    server: config.name.clone(),
                    command: config.target(),
                    source: std::io::Error::other("the child's pipes were not set up"),
                });
            };
            let guard = ChildGuard::watch(child, StderrTail::collect(stderr));
            match handshake(handler, (stdout, stdin), lifecycle).await {
                Ok(service) => Ok(Connection {
                    _listening: listen(&service, list_changed),
                    service,
                    routes,
                    asks,
                    child: Some(guard),
                }),
                Err(error) => {
                    let status = guard.wait_exit(Duration::from_secs(2)).await;
                    guard.stderr.wait_drained(Duration::from_millis(500)).await;
                    Err(McpClientError::Start {
                        server: config.name.clone(),
                        target: config.target(),
                        reason: match status {
                            Some(status) => format!("it {status} ({error})"),
                            None => error.to_string(),
                        },
                        stderr: guard.stderr.tail(),
                    })
                }
            }
        }
        McpTransport::Http { url, headers } => {
            let transport = http_transport(config, url, headers)?;
            let service = handshake(handler, transport, lifecycle)
                .await
                .map_err(|error| McpClientError::Start {
                    server: config.name.clone(),
                    target: config.target(),
                    reason: error,
                    stderr: String::new(),
                })?;
            Ok(Connection {
                _listening: listen(&service, list_changed),
                service,
                routes,
                asks,
                child: None,
            })
        }
    }
}

/// rmcp's client handshake, bounded by [`STARTUP_TIMEOUT`]. The error is its message.
async fn handshake<T, E, A>(
    handler: Handler,
    transport: T,
    lifecycle: ClientLifecycleMode,
) -> Result<Service, String>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let started = rmcp::service::serve_client_with_lifecycle(handler, transport, lifecycle);
    match tokio::time::timeout(STARTUP_TIMEOUT, started).await {
        Ok(Ok(service)) => {
            // rmcp keeps a `tools/list` for its `ttlMs` (an hour from our server), forgotten
            // only on a list-changed notification. A listing here is made because the list
            // may have changed without one (a listen stream opened anew, a server restarted
            // behind its URL): it must come from the server. It is made seldom, so nothing
            // is lost by not keeping it.
            service
                .peer()
                .set_response_cache_config(ClientCacheConfig::disabled())
                .await;
            Ok(service)
        }
        Ok(Err(error)) if error.is_authorization_required() => Err(format!(
            "it wants authorization (`WWW-Authenticate: {}`): give it an `Authorization` header, as `\"headers\": {{\"Authorization\": \"Bearer ${{TOKEN}}\"}}` in `.mcp.json`",
            error.auth_challenge().unwrap_or_default()
        )),
        // rmcp's message here names the transport's Rust types; what the user can act on is
        // the innermost cause (a refused connection, a name that does not resolve).
        Ok(Err(ClientInitializeError::TransportError { error, .. })) => Err(format!(
            "cannot reach it: {}",
            innermost_cause(&*error.error)
        )),
        Ok(Err(error)) => Err(error.to_string()),
        Err(_) => Err(format!(
            "it did not answer the MCP handshake within {} s",
            STARTUP_TIMEOUT.as_secs()
        )),
    }
}

/// The message of the last error in `error`'s chain of sources, looking through rmcp's HTTP
/// client error to reqwest's (which rmcp wraps without naming it as the source).
fn innermost_cause(error: &(dyn std::error::Error + 'static)) -> String {
    use rmcp::transport::streamable_http_client::StreamableHttpError;
    let mut innermost = error;
    loop {
        let next = match innermost.downcast_ref::<StreamableHttpError<reqwest::Error>>() {
            Some(StreamableHttpError::Client(client)) => {
                Some(client as &(dyn std::error::Error + 'static))
            }
            _ => innermost.source(),
        };
        match next {
            Some(next) => innermost = next,
            None => return innermost.to_string(),
        }
    }
}

type HttpTransport = rmcp::transport::StreamableHttpClientTransport<reqwest::Client>;

/// rmcp's streamable HTTP client over our own reqwest client: rustls with ring, so that it does
/// not depend on which crypto provider the application installed.
fn http_transport(
    config: &McpServerConfig,
    url: &str,
    headers: &[(String, String)],
) -> Result<HttpTransport, McpClientError> {
    use reqwest::header::{HeaderName, HeaderValue};
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

    let http_error = |reason: String| McpClientError::Http {
        server: config.name.clone(),
        reason,
    };
    let mut custom = HashMap::new();
    for (name, value) in headers {
        let header = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| http_error(format!("`{name}` is not a valid header name")))?;
        let value = HeaderValue::from_str(value).map_err(|_| {
            http_error(format!(
                "the value of header `{name}` has characters a header cannot carry"
            ))
        })?;
        custom.insert(header, value);
    }
    let client = crate::runtime::https::client().map_err(http_error)?;
    Ok(HttpTransport::with_client(
        client,
        StreamableHttpClientTransportConfig::with_uri(url).custom_headers(custom),
    ))
}

/// The client side of the protocol: who we are, where progress notifications go, who
/// answers the server's questions, and who hears that the tool list changed.
pub(super) struct Handler {
    routes: Arc<ProgressRoutes>,
    asks: Arc<AskRoutes>,
    list_changed: ListChanged,
}

impl Handler {
    /// `answering`'s result for the call `context` belongs to, or a refusal with the reason;
    /// given up when the server cancels its request or the call ends.
    async fn answer<T, F>(
        &self,
        context: &RequestContext<RoleClient>,
        answering: impl FnOnce(Arc<Asker>) -> F,
    ) -> Result<T, ErrorData>
    where
        F: Future<Output = Result<T, String>>,
    {
        let refused = |reason: String| ErrorData::new(ErrorCode::INVALID_REQUEST, reason, None);
        let asker = self.asks.route(context).await.map_err(refused)?;
        let ended = asker.ended().clone();
        tokio::select! {
            answered = answering(asker) => answered.map_err(refused),
            () = context.ct.cancelled() => Err(refused("the server cancelled its request".to_owned())),
            // A question must not outlive the call it was asked for: our user would answer
            // for a call that is over.
            () = ended.cancelled() => Err(refused(
                "the tool call this request came with has ended, so its question was withdrawn".to_owned(),
            )),
        }
    }
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        // Declared on every connection: whether a request can be answered is known per call
        // (its session's approver), and a call that cannot answer refuses with the reason
        // (see `questions`). Built from JSON: rmcp marks the sampling and roots types
        // deprecated (SEP-2577, a later protocol); 2025-11-25 and 2026-07-28 have them.
        info.capabilities = serde_json::from_value(serde_json::json!({
            "elicitation": {"form": {}},
            "sampling": {},
            "roots": {"listChanged": false},
        }))
        .unwrap_or_default();
        info.client_info = Implementation::new("toolkit", env!("CARGO_PKG_VERSION"));
        info
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.answer(
            &context,
            |asker| async move { asker.elicit(&request).await },
        )
        .await
    }

    #[expect(deprecated)]
    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let params = serde_json::to_value(params).unwrap_or_default();
        let result = self
            .answer(&context, |asker| async move { asker.sample(&params).await })
            .await?;
        serde_json::from_value(result).map_err(|error| {
            ErrorData::internal_error(
                format!("the model's message cannot be sent ({error})"),
                None,
            )
        })
    }

    #[expect(deprecated)]
    async fn list_roots(
        &self,
        context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        let result = self
            .answer(&context, |asker| async move { asker.roots().await })
            .await?;
        serde_json::from_value(result).map_err(|error| {
            ErrorData::internal_error(format!("the roots cannot be sent ({error})"), None)
        })
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.routes.deliver(params);
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        bump(&self.list_changed);
    }
}

/// Where each in-flight call's progress goes, by progress token.
///
/// rmcp hands each notification to the handler on a task of its own, so a notification can
/// reach us just before its call registered, or just after it finished: early ones are kept
/// (a few, for a few tokens: the oldest token's are dropped first), late ones are dropped.
#[derive(Default)]
pub(super) struct ProgressRoutes {
    state: Mutex<RoutesState>,
}

#[derive(Default)]
struct RoutesState {
    calls: HashMap<ProgressToken, Progress>,
    early: HashMap<ProgressToken, Vec<ProgressNotificationParam>>,
    /// The tokens in `early`, oldest first.
    early_order: VecDeque<ProgressToken>,
    /// Tokens of calls that finished recently: their stragglers are dropped.
    finished: VecDeque<ProgressToken>,
}

impl ProgressRoutes {
    fn deliver(&self, params: ProgressNotificationParam) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(progress) = state.calls.get(&params.progress_token) {
            report(progress, &params);
            return;
        }
        if state.finished.contains(&params.progress_token) {
            return;
        }
        let state = &mut *state;
        if let Some(early) = state.early.get_mut(&params.progress_token) {
            if early.len() < EARLY_PER_TOKEN {
                early.push(params);
            }
            return;
        }
        if state.early_order.len() >= EARLY_TOKENS
            && let Some(oldest) = state.early_order.pop_front()
        {
            state.early.remove(&oldest);
        }
        state.early_order.push_back(params.progress_token.clone());
        state
            .early
            .insert(params.progress_token.clone(), vec![params]);
    }

    /// Sends `token`'s notifications to `progress`, those that came early first.
    pub(super) fn register(&self, token: ProgressToken, progress: Progress) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(early) = state.early.remove(&token) {
            state.early_order.retain(|kept| kept != &token);
            for params in &early {
                report(&progress, params);
            }
        }
        state.calls.insert(token, progress);
    }

    /// Stops routing `token`'s notifications: its call has finished.
    pub(super) fn unregister(&self, token: &ProgressToken) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.calls.remove(token);
        if state.finished.len() >= EARLY_TOKENS {
            state.finished.pop_front();
        }
        state.finished.push_back(token.clone());
    }
}

fn report(progress: &Progress, params: &ProgressNotificationParam) {
    progress.report(params.progress, params.total, params.message.as_deref());
}

/// The server's process: its exit status as it comes, and its process group killed on drop.
pub(super) struct ChildGuard {
    pid: Option<u32>,
    exited: watch::Receiver<Option<String>>,
    waiter: tokio::task::JoinHandle<()>,
    pub(super) stderr: StderrTail,
}

impl ChildGuard {
    fn watch(mut child: tokio::process::Child, stderr: StderrTail) -> Self {
        let pid = child.id();
        let (sender, exited) = watch::channel(None);
        let waiter = tokio::spawn(async move {
            let status = match child.wait().await {
                Ok(status) => describe(status),
                Err(error) => format!("could not be waited for ({error})"),
            };
            let _ = sender.send(Some(status));
        });
        ChildGuard {
            pid,
            exited,
            waiter,
            stderr,
        }
    }

    /// The process id.
    pub(super) fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// How the process ended, if it has.
    pub(super) fn exit_status(&self) -> Option<String> {
        self.exited.borrow().clone()
    }

    /// How the process ended, waiting up to `limit` for it to.
    async fn wait_exit(&self, limit: Duration) -> Option<String> {
        let mut exited = self.exited.clone();
        let ended = tokio::time::timeout(limit, exited.wait_for(Option::is_some)).await;
        match ended {
            Ok(Ok(status)) => status.clone(),
            _ => None,
        }
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        if let Some(pid) = self.pid.and_then(|pid| i32::try_from(pid).ok())
            && let Some(group) = rustix::process::Pid::from_raw(pid)
        {
            // The server is its group's leader (process_group(0)): this ends it and the
            // processes it started in its group, even when the leader itself has exited (a
            // wrapper such as `npx` that leaves its child serving on the pipes): the group
            // lives as long as a member does, and its id is not given to another group while
            // it does. Synchronous, so it works without a runtime.
            let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        }
        // Dropping the `Child` inside the task kills the server (kill_on_drop) if the group
        // kill missed it.
        self.waiter.abort();
        self.stderr.reader.abort();
    }
}

/// "exited with status 3", "was killed by signal 9".
fn describe(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => format!("was killed by signal {signal}"),
        (None, None) => "exited".to_owned(),
    }
}

/// The last [`STDERR_KEPT`] bytes a server wrote to stderr.
pub(super) struct StderrTail {
    kept: Arc<Mutex<VecDeque<u8>>>,
    done: watch::Receiver<bool>,
    reader: tokio::task::JoinHandle<()>,
}

impl StderrTail {
    fn collect(mut stderr: tokio::process::ChildStderr) -> Self {
        let kept = Arc::new(Mutex::new(VecDeque::with_capacity(1024)));
        let (sender, done) = watch::channel(false);
        let sink = Arc::clone(&kept);
        let reader = tokio::spawn(async move {
            let mut buffer = [0_u8; 4096];
            while let Ok(read) = stderr.read(&mut buffer).await {
                if read == 0 {
                    break;
                }
                let mut kept = sink.lock().unwrap_or_else(PoisonError::into_inner);
                kept.extend(&buffer[..read]);
                let excess = kept.len().saturating_sub(STDERR_KEPT);
                kept.drain(..excess);
            }
            let _ = sender.send(true);
        });
        StderrTail { kept, done, reader }
    }

    /// Waits up to `limit` for the server's stderr to close, so that a message about its exit
    /// has its last words.
    async fn wait_drained(&self, limit: Duration) {
        let mut done = self.done.clone();
        let _ = tokio::time::timeout(limit, done.wait_for(|done| *done)).await;
    }

    /// The last lines, at most [`STDERR_SHOWN`] bytes, trimmed.
    pub(super) fn tail(&self) -> String {
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        let skip = kept.len().saturating_sub(STDERR_SHOWN);
        let bytes: Vec<u8> = kept.iter().skip(skip).copied().collect();
        let text = String::from_utf8_lossy(&bytes);
        // Start at a line when the tail was cut.
        let text = if skip > 0 {
            text.split_once('\n').map_or(&*text, |(_, rest)| rest)
        } else {
            &text
        };
        text.trim().to_owned()
    }
}
