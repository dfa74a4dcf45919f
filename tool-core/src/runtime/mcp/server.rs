//! [`McpServer`]: rmcp's `ServerHandler` over a coordinator.
//!
//! Each `tools/call` runs through [`Coordinator::call_with`] with options of its own: the
//! request's cancellation token, a progress sink sending `notifications/progress` to this
//! client when the request carries a `progressToken`, and who answers its approvals (this
//! client, by elicitation; see `elicit.rs`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities,
    ContentBlock, CustomRequest, CustomResult, ElicitResult, ErrorData, Implementation,
    InputRequests, InputRequiredResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ResourceContents as McpResourceContents, ServerCapabilities, ServerConfig, SubscriptionFilter,
    Tool as McpTool,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer, SubscriptionContext};
use rmcp::{ServerHandler, ServiceExt};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::elicit::{
    Answered, ApprovalStates, ClientAbilities, ElicitingApprover, INPUT_KEY, QuestionsRound,
    RoundState, RoundTripApprover, StateKeyTooShort, answer, input_request, normalized_approval,
    question,
};
use super::malformed;
use super::progress::ProgressForwarder;
use super::stdio::{DEFAULT_MAX_MESSAGE_BYTES, Handshake, LineTransport};
use super::subscriptions::{self, ToolList};
use crate::approval::{ApprovalRequest, ApprovalResponse, UnansweredKind};
use crate::coordinator::CallOptions;
use crate::definition::output::{Content, ResourceContents};
use crate::{Coordinator, ToolCall, ToolError, ToolResult};

/// How long a 2026-07-28 client may keep a `tools/list` result (`ttlMs`) when it does not
/// listen for changes. The toolset can change while served
/// ([`Coordinator::update_toolset`], an imported server's tools changing); each change is
/// announced at once on `subscriptions/listen` (and to a 2025-11-25 client with
/// `notifications/tools/list_changed`), so a client that listens refetches then, and the TTL
/// only bounds how stale the list of a client that does not listen can get: an hour, as
/// toolsets change seldom (an imported server's upgrade, a tool added by the application).
pub const TOOLS_LIST_TTL: Duration = Duration::from_secs(60 * 60);

/// The coordinator session of each client, by the name its bearer token gives it, with when
/// the client last made a request. A session idle longer than `idle` is dropped the next time
/// any client makes one (its background jobs stop with it), and the client's next request
/// starts a new session.
#[cfg(feature = "mcp-http")]
struct ClientSessions {
    idle: std::time::Duration,
    sessions: Mutex<std::collections::HashMap<Arc<str>, (Coordinator, std::time::Instant)>>,
}

#[cfg(feature = "mcp-http")]
impl ClientSessions {
    fn new(idle: std::time::Duration) -> Self {
        ClientSessions {
            idle,
            sessions: Mutex::default(),
        }
    }

    /// The session of the client `name`, made from `server` if it has none (or had one that
    /// idled out); every session idle too long is dropped first.
    fn session(&self, name: &Arc<str>, server: &Coordinator) -> Coordinator {
        let now = std::time::Instant::now();
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        sessions.retain(|_, (_, used)| now.saturating_duration_since(*used) < self.idle);
        let (session, used) = sessions
            .entry(Arc::clone(name))
            .or_insert_with(|| (server.new_session(), now));
        *used = now;
        session.clone()
    }
}

/// A coordinator served over MCP. Cheap to clone (the coordinator is shared).
///
/// ```no_run
/// use tool_core::{Coordinator, Toolset, mcp};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let coordinator = Coordinator::builder().toolset(Toolset::all()).build()?;
/// mcp::serve_stdio(coordinator).await?; // until the client closes stdin
/// # Ok(())
/// # }
/// ```
///
/// # Approval by elicitation
///
/// The coordinator's policy applies to every call; when it asks, the server asks the client's
/// user through elicitation, and the answer is the approval (once, or every call of that tool
/// for the session; or a rejection whose guidance the model reads):
/// `elicitation/create` on protocol 2025-11-25, the `input_required` round trip on 2026-07-28
/// (its request state sealed with HMAC-SHA256, so a client cannot forge an approval or move
/// it to another call). A client without the elicitation capability cannot be asked: such a
/// call is refused, saying so. A question a tool asks while it runs (a plan presented with
/// [`Session::ask`](crate::coordinator::Session::ask), a nested call that needs approval) reaches
/// a 2025-11-25 client the same way; a 2026-07-28 round trip cannot wait for it (the retry
/// starts the call again), so it is refused with that reason.
///
/// # A tool's own questions
///
/// A tool that asks the user a form ([`Session::elicit`](crate::coordinator::Session::elicit))
/// asks the client: by `elicitation/create` on 2025-11-25, while the tool waits; on
/// 2026-07-28 through the `input_required` round trip, which ends the tool's run at its
/// first unanswered question and runs the call again from the start once the client brings
/// the answers (each round adds answers, sealed in the request state). A tool should
/// therefore ask before it acts. A message from the client's model
/// ([`Session::sample`](crate::coordinator::Session::sample)) and the client's roots
/// ([`Session::roots`](crate::coordinator::Session::roots)) are asked the same ways, when the
/// client declared sampling or roots; at 2026-07-28 a call that failed for want of one of
/// them is the JSON-RPC error -32021 (MissingRequiredClientCapability) naming it. Served over
/// stateless HTTP, a 2025-11-25 client cannot be asked (its answer would come back on a
/// request no session ties to the call), and the tool is told so, unless the server gives
/// such clients sessions (`HttpOptions::legacy_sessions`, feature `mcp-http`).
///
/// The seal's key is made from the OS's randomness when the server is made: a state is valid
/// only in the process that sealed it, for 15 minutes from the call's first round. Several
/// instances behind one address (a load balancer, where the retry may reach another
/// instance) need one key: [`with_state_key`](Self::with_state_key).
///
/// "For the session" grants go to the coordinator's session, which is the whole server
/// process: right over stdio (one client), too wide when one coordinator serves several
/// users; turn the choice off with [`session_approvals`](Self::session_approvals).
///
/// # `tools/list` caching
///
/// On 2026-07-28 the list carries `ttlMs` ([`TOOLS_LIST_TTL`]) and `cacheScope: "public"`
/// (the list is the same for every caller: it depends on the server's toolset, never on who
/// asks; what a caller may then do is the policy's decision at call time).
///
/// # List changes
///
/// The coordinator's toolset may change while served ([`Coordinator::update_toolset`]); the
/// server declares `tools: { listChanged: true }` and announces each change that alters the
/// list (a burst of changes as one): to a 2025-11-25 client on a connection with a peer
/// (stdio) as `notifications/tools/list_changed`; to a 2026-07-28 client on its
/// `subscriptions/listen` stream, when it asked for `toolsListChanged` (over stdio, and over
/// HTTP where the listen request's response is the SSE stream).
#[derive(Clone)]
pub struct McpServer {
    coordinator: Coordinator,
    /// The `tools/list` entries, made once per toolset generation.
    tools: Arc<ToolList>,
    /// Seals the request states of approvals asked over the 2026-07-28 round trip.
    states: Arc<ApprovalStates>,
    /// Whether an approval may be given for the rest of the session.
    offer_session: bool,
    /// Numbers the calls, so each has an id of its own (its approval is told from its nested
    /// calls' by it).
    calls: Arc<AtomicU64>,
    /// Served over stateless HTTP, where a 2025-11-25 client cannot be asked: its
    /// `elicitation/create` answer would come back in a request of its own, which no session
    /// ties to the call waiting for it.
    stateless_http: bool,
    /// The largest message read, over stdio and HTTP.
    max_message_bytes: usize,
    /// The coordinator session of each client named by its bearer token (HTTP with
    /// per-client tokens), made on its first request.
    #[cfg(feature = "mcp-http")]
    clients: Option<Arc<ClientSessions>>,
    /// `serverInfo`: the name and version a client shows for this server.
    name: Arc<str>,
    version: Arc<str>,
}

impl McpServer {
    /// Serves `coordinator`'s toolset. A tool the MCP dialect cannot declare is left out (and
    /// logged); every tool-core tool can be, so this is for hand-written tools with broken
    /// schemas.
    #[must_use]
    pub fn new(coordinator: Coordinator) -> Self {
        McpServer {
            tools: Arc::new(ToolList::new(coordinator.clone())),
            coordinator,
            states: Arc::new(ApprovalStates::random()),
            offer_session: true,
            calls: Arc::default(),
            stateless_http: false,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            #[cfg(feature = "mcp-http")]
            clients: None,
            name: Arc::from("toolkit"),
            version: Arc::from(env!("CARGO_PKG_VERSION")),
        }
    }

    /// The name and version this server gives as its `serverInfo`, which a client shows its
    /// user (default: `toolkit` and tool-core's version): an application's own, so that its
    /// users recognise it.
    ///
    /// ```
    /// use tool_core::{Coordinator, Toolset, mcp::McpServer};
    ///
    /// let coordinator = Coordinator::builder().toolset(Toolset::all()).build().unwrap();
    /// let server = McpServer::new(coordinator).named("my-agent", "2.1.0");
    /// # drop(server);
    /// ```
    #[must_use]
    pub fn named(mut self, name: &str, version: &str) -> Self {
        self.name = Arc::from(name);
        self.version = Arc::from(version);
        self
    }

    /// The largest message this server reads, in bytes (default
    /// [`DEFAULT_MAX_MESSAGE_BYTES`], 16 MiB). A longer message is not read: over stdio it is
    /// skipped to its end and answered with an error naming the limit (to the request's `id`
    /// when the line shows it), and the session goes on; over HTTP the request is answered
    /// `413 Payload Too Large` with that error as its JSON-RPC body.
    ///
    /// ```
    /// use tool_core::{Coordinator, Toolset, mcp::McpServer};
    ///
    /// let coordinator = Coordinator::builder().toolset(Toolset::all()).build().unwrap();
    /// let server = McpServer::new(coordinator).max_message_bytes(64 * 1024 * 1024);
    /// assert_eq!(server.message_limit(), 64 * 1024 * 1024);
    /// ```
    #[must_use]
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.max_message_bytes = bytes;
        self
    }

    /// The largest message this server reads ([`max_message_bytes`](Self::max_message_bytes)).
    #[must_use]
    pub fn message_limit(&self) -> usize {
        self.max_message_bytes
    }

    /// This server as served over HTTP: stateless (see `stateless_http`) unless 2025-11-25
    /// clients get `sessions`.
    #[cfg(feature = "mcp-http")]
    pub(super) fn over_http(mut self, sessions: bool) -> Self {
        self.stateless_http = !sessions;
        // Stateless, one coordinator answers every client: a grant "for the session" would
        // hold for all of them. With sessions, each client has a coordinator session of its
        // own ([`for_new_session`](Self::for_new_session)), and the grant is its alone.
        self.offer_session = sessions;
        self
    }

    /// This server keeping a coordinator session per client named by a bearer token, each
    /// dropped after `idle` without a request (its background jobs stopped).
    #[cfg(feature = "mcp-http")]
    pub(super) fn with_client_sessions(mut self, idle: std::time::Duration) -> Self {
        self.clients = Some(Arc::new(ClientSessions::new(idle)));
        self.offer_session = true;
        self
    }

    /// The coordinator a request is served by: the session of the client its bearer token
    /// names (made with [`Coordinator::new_session`] on the client's first request), else
    /// this server's own.
    fn coordinator_for(&self, context: &RequestContext<RoleServer>) -> Coordinator {
        #[cfg(feature = "mcp-http")]
        if let Some(clients) = &self.clients
            && let Some(parts) = context.extensions.get::<axum::http::request::Parts>()
            && let Some(super::http::ClientName(name)) =
                parts.extensions.get::<super::http::ClientName>()
        {
            return clients.session(name, &self.coordinator);
        }
        let _ = context;
        self.coordinator.clone()
    }

    /// This server for a new MCP session: its coordinator's [`new_session`]
    /// (`Coordinator::new_session`), so that the client's grants, files read, artifacts, jobs,
    /// todo list and mode are its own, and go when the session ends.
    ///
    /// [`new_session`]: crate::Coordinator::new_session
    #[cfg(feature = "mcp-http")]
    pub(super) fn for_new_session(&self) -> Self {
        let mut server = self.clone();
        server.coordinator = self.coordinator.new_session();
        server
    }

    /// Seals approval request states with `key` instead of a random key of this process: give
    /// every instance serving one address the same secret, so a client's retry may reach any
    /// of them (and a restart keeps open questions valid).
    ///
    /// ```
    /// use tool_core::{Coordinator, Toolset, mcp::McpServer};
    ///
    /// let coordinator = Coordinator::builder().toolset(Toolset::all()).build().unwrap();
    /// let key = b"a secret of at least 32 bytes, shared by every instance";
    /// let server = McpServer::new(coordinator.clone()).with_state_key(key).unwrap();
    /// assert!(McpServer::new(coordinator).with_state_key(b"short").is_err());
    /// # drop(server);
    /// ```
    ///
    /// # Errors
    /// [`StateKeyTooShort`] when the key has fewer than 32 bytes.
    pub fn with_state_key(mut self, key: &[u8]) -> Result<Self, StateKeyTooShort> {
        self.states = Arc::new(ApprovalStates::with_key(key)?);
        Ok(self)
    }

    /// Whether the user may approve a tool for the rest of the session (default: yes). The
    /// session is the coordinator's: turn this off when one coordinator serves several users.
    #[must_use]
    pub fn session_approvals(mut self, offer: bool) -> Self {
        self.offer_session = offer;
        self
    }

    /// The `tools/list` entries as they are now, in the toolset's order (by name).
    #[must_use]
    pub fn tools(&self) -> Arc<[McpTool]> {
        self.tools.current()
    }
}

/// Why serving stopped with an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The connection could not start: the client's first messages were not a valid MCP
    /// handshake (or `server/discover`), or the transport closed before it.
    #[error("the MCP connection could not start: {0}")]
    Start(Box<rmcp::service::ServerInitializeError>),
    /// The client closed the connection before it sent anything: nothing was asked, nothing
    /// is wrong (a client probing whether the server starts, or a user who typed Ctrl-D).
    #[error("the client closed the connection before the MCP handshake")]
    ClosedBeforeHandshake,
    /// What the client sent first was not the start of an MCP session: a line that is not
    /// JSON-RPC (its start is kept), or a request other than `initialize` (or the 2026-07-28
    /// protocol's) before the handshake.
    #[error("the client did not speak MCP: it sent {0}")]
    NotMcp(String),
    /// The task serving the connection panicked or was cancelled.
    #[error("the MCP connection ended abnormally: {0}")]
    Connection(#[from] tokio::task::JoinError),
}

/// Serves `coordinator` on stdin and stdout until the client closes stdin. Calls still running
/// a quarter of a second after stdin closed are cancelled (their tools' tokens), so that the
/// server exits soon after its client leaves, as the client expects before it sends SIGTERM.
///
/// # Errors
/// [`ServeError`]: the connection could not start, or ended abnormally.
pub async fn serve_stdio(coordinator: Coordinator) -> Result<(), ServeError> {
    McpServer::new(coordinator).serve_stdio().await
}

impl McpServer {
    /// Serves on stdin and stdout until the client closes stdin (cancelling the calls still
    /// running shortly after): [`serve_stdio`] for a server
    /// configured first ([`with_state_key`](Self::with_state_key),
    /// [`session_approvals`](Self::session_approvals)).
    ///
    /// # Errors
    /// [`ServeError`]: the connection could not start, or ended abnormally.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        // rmcp's loop, at the end of its input, waits up to 5 s for the handlers still running
        // before it cancels them; a client leaving with a call in flight (the MCP Python SDK
        // closes stdin, then sends SIGTERM 2 s later) would kill the server before its tools
        // were told to stop. So the end of stdin is noticed here, and after a short grace for
        // answers already on their way the whole service is cancelled, which cancels every
        // request's token at once.
        let closed = CancellationToken::new();
        let stop = CancellationToken::new();
        let handshake = Arc::new(Handshake::default());
        let limit = self.max_message_bytes;
        let running = match pipes() {
            Some((input, output)) => {
                let input = NoticeEnd::new(input, closed.clone());
                let lines = LineTransport::new(input, output, limit, handshake.clone());
                self.serve_with_ct(lines, stop.clone()).await
            }
            None => {
                let (input, output) = rmcp::transport::stdio();
                let input = NoticeEnd::new(input, closed.clone());
                let lines = LineTransport::new(input, output, limit, handshake.clone());
                self.serve_with_ct(lines, stop.clone()).await
            }
        }
        .map_err(|error| not_started(error, &handshake))?;
        let waiting = running.waiting();
        tokio::pin!(waiting);
        tokio::select! {
            ended = &mut waiting => {
                ended?;
            }
            () = async {
                closed.cancelled().await;
                tokio::time::sleep(STDIN_CLOSED_GRACE).await;
            } => {
                stop.cancel();
                waiting.await?;
            }
        }
        Ok(())
    }
}

/// Why a connection did not start, said from what the client sent.
fn not_started(error: rmcp::service::ServerInitializeError, handshake: &Handshake) -> ServeError {
    use rmcp::service::ServerInitializeError as Failed;
    match error {
        Failed::ConnectionClosed(_) => match handshake.unreadable() {
            Some(line) => ServeError::NotMcp(format!("`{line}`")),
            None => ServeError::ClosedBeforeHandshake,
        },
        Failed::ExpectedInitializeRequest(Some(message)) => {
            let sent = serde_json::to_value(&message)
                .ok()
                .and_then(|value| {
                    value
                        .get("method")
                        .and_then(|m| m.as_str())
                        .map(str::to_owned)
                })
                .map_or_else(
                    || "a response before it was asked anything".to_owned(),
                    |method| format!("`{method}` before `initialize`"),
                );
            ServeError::NotMcp(sent)
        }
        error => ServeError::Start(Box::new(error)),
    }
}

/// How long calls running when stdin closes have to answer before they are cancelled: long
/// enough for a quick call that was already running, well under the 2 s a client gives the
/// server to exit before it sends SIGTERM.
const STDIN_CLOSED_GRACE: Duration = Duration::from_millis(250);

/// A reader that cancels `closed` when its input ends (or fails): how [`serve_stdio`] learns
/// that the client has gone, which rmcp's loop does not tell.
struct NoticeEnd<R> {
    inner: R,
    closed: CancellationToken,
}

impl<R> NoticeEnd<R> {
    fn new(inner: R, closed: CancellationToken) -> Self {
        NoticeEnd { inner, closed }
    }
}

impl<R: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for NoticeEnd<R> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = std::pin::Pin::new(&mut self.inner).poll_read(cx, buf);
        let ended = match &polled {
            // Nothing read into room there was: the end of the input.
            std::task::Poll::Ready(Ok(())) => buf.filled().len() == before && buf.remaining() > 0,
            std::task::Poll::Ready(Err(_)) => true,
            std::task::Poll::Pending => false,
        };
        if ended {
            self.closed.cancel();
        }
        polled
    }
}

/// stdin and stdout as pipes the runtime's reactor polls, when both are pipes (as a client
/// that spawns its server makes them). Tokio's own stdin and stdout do each read and write
/// on a blocking thread: two thread hand-offs a call, which dominate a quick call's latency.
/// Not pipes (a terminal, a file), or a runtime without I/O, they are not used.
#[cfg(unix)]
fn pipes() -> Option<(
    tokio::net::unix::pipe::Receiver,
    tokio::net::unix::pipe::Sender,
)> {
    use std::os::fd::AsFd;
    use tokio::net::unix::pipe::{Receiver, Sender};
    let is_fifo = |fd: std::os::fd::BorrowedFd<'_>| {
        rustix::fs::fstat(fd).is_ok_and(|stat| {
            rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::Fifo
        })
    };
    let (stdin, stdout) = (std::io::stdin(), std::io::stdout());
    if !is_fifo(stdin.as_fd()) || !is_fifo(stdout.as_fd()) {
        return None;
    }
    // Duplicates, so that the process's own descriptors 0 and 1 stay open when these close.
    let input = stdin.as_fd().try_clone_to_owned().ok()?;
    let output = stdout.as_fd().try_clone_to_owned().ok()?;
    // Registering with the reactor panics on a runtime built without I/O; keep tokio's
    // stdio there instead of failing.
    std::panic::catch_unwind(move || {
        Some((
            Receiver::from_owned_fd(input).ok()?,
            Sender::from_owned_fd(output).ok()?,
        ))
    })
    .ok()
    .flatten()
}

#[cfg(not(unix))]
fn pipes() -> Option<(tokio::io::Stdin, tokio::io::Stdout)> {
    None
}

/// A coordinator served with the defaults: [`McpServer::new`].
impl From<Coordinator> for McpServer {
    fn from(coordinator: Coordinator) -> Self {
        McpServer::new(coordinator)
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new(&*self.name, &*self.version))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let list = ListToolsResult::with_all_items(self.tools.current().to_vec());
        if !is_stateless(&context) {
            return Ok(list);
        }
        let ttl = u64::try_from(TOOLS_LIST_TTL.as_millis()).unwrap_or(u64::MAX);
        Ok(list.with_ttl_ms(ttl).with_cache_scope(CacheScope::Public))
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        Err(malformed::unparsed_request(
            &request.method,
            request.params.as_ref(),
            is_stateless(&context),
        ))
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // A 2025-11-25 client (only those send `initialized`) hears of list changes on its
        // connection; over stateless HTTP nothing outlives the request to carry them.
        if !self.stateless_http {
            subscriptions::announce_to_peer(&self.tools, context.peer);
        }
    }

    fn accepted_subscription_filter(
        &self,
        _requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(subscriptions::accepted_filter())
    }

    async fn listen(&self, subscription: SubscriptionContext) -> Result<(), ErrorData> {
        subscriptions::listen(&self.tools, subscription).await;
        Ok(())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = match &request.arguments {
            Some(arguments) => Value::Object(arguments.clone()).to_string(),
            None => "{}".to_owned(),
        };
        let call_id = format!("mcp-{}", self.calls.fetch_add(1, Ordering::Relaxed));
        // rmcp cancels `context.ct` on the client's `notifications/cancelled` (stdio) or when
        // the response stream closes (HTTP): the tool's own token follows it.
        let mut options = CallOptions::new().cancel(context.ct.clone());
        let mut flushed = None;
        if let Some(token) = context.meta.get_progress_token() {
            let (forwarder, flush) = ProgressForwarder::new(context.peer.clone(), token);
            options = options.progress(forwarder);
            flushed = Some(flush);
        }
        let asked = Arc::new(Mutex::new(None));
        let questions = Arc::new(Mutex::new(QuestionsRound::default()));
        let mut approval_brought = None;
        let mut deadline = None;
        let capabilities = context.client_capabilities();
        let client = ClientAbilities {
            sampling: capabilities.as_ref().is_some_and(|c| c.sampling.is_some()),
            roots: capabilities.as_ref().is_some_and(|c| c.roots.is_some()),
        };
        if self.stateless_http && !is_stateless(&context) {
            options = options.nobody_to_ask(
                "this server is served over stateless HTTP, where a client speaking MCP 2025-11-25 cannot be asked (its answer to elicitation/create needs a session, which the server gives only when started with sessions for such clients); a client speaking 2026-07-28 is asked through the input_required round trip",
            );
        } else {
            if is_stateless(&context) {
                let brought = self.brought_back(&request, &arguments)?;
                approval_brought = brought.approval_response.clone();
                deadline = brought.deadline;
                options = options.approver(
                    RoundTripApprover::new(
                        call_id.clone(),
                        &request.name,
                        &arguments,
                        brought.approval,
                        Arc::clone(&asked),
                    )
                    .with_answers(brought.answers, Arc::clone(&questions))
                    .with_client(client),
                );
            } else {
                options = options.approver(ElicitingApprover {
                    peer: context.peer.clone(),
                    offer_session: self.offer_session,
                    cancel: context.ct.clone(),
                    client,
                });
            }
            if !can_elicit(capabilities) {
                // The user cannot be asked (approvals, forms), but the client may still
                // write a message or list its roots: its approver stays for those.
                options.scope.nobody_to_ask = Some(Arc::from(
                    "this MCP client did not declare the elicitation capability, so the server cannot ask the user \
                     (whoever runs the server can let such calls through: an allow rule for the tool in its settings, \
                     or the accept_edits mode for file edits, as `toolbox serve --mode accept_edits`)",
                ));
            }
        }
        let result = self
            .coordinator_for(&context)
            .call_with(
                ToolCall::new(request.name.to_string(), arguments.clone()).with_call_id(call_id),
                options,
            )
            .await;
        // The call's progress goes out before its response.
        if let Some(flushed) = flushed {
            flushed.wait().await;
        }
        let asked = asked.lock().unwrap_or_else(PoisonError::into_inner).take();
        let questions =
            std::mem::take(&mut *questions.lock().unwrap_or_else(PoisonError::into_inner));
        if let Some(missing) = missing_capabilities(&questions.missing_beside_pending()) {
            // The tool asked at once for what the client cannot do and for an answer: it
            // would fail after the user answered, so it is refused before they are asked.
            return Err(missing);
        }
        if asked.is_some() || !questions.pending.is_empty() {
            return Ok(self.next_round(
                &request,
                &arguments,
                asked,
                (approval_brought, deadline),
                questions,
            ));
        }
        // Only a stateless call that failed for want of a capability is that error (naming
        // every capability the run lacked): a tool that failed for another reason (or went
        // on without it) gets its own result.
        if is_stateless(&context)
            && let Some(UnansweredKind::MissingCapability(capability)) = result
                .error()
                .and_then(ToolError::unanswered)
                .map(|unanswered| unanswered.kind)
        {
            let mut missing: Vec<&'static str> = vec![capability];
            for (other, _) in &questions.missing {
                if !missing.contains(other) {
                    missing.push(other);
                }
            }
            if let Some(missing) = missing_capabilities(&missing) {
                return Err(missing);
            }
        }
        if let Some(ToolError::UnknownTool { .. } | ToolError::Unavailable { .. }) = result.error()
        {
            return Err(ErrorData::invalid_params(result.text().into_owned(), None));
        }
        Ok(CallToolResponse::Complete(to_mcp(&result)))
    }
}

impl McpServer {
    /// The `input_required` result of a 2026-07-28 round that asked something: the policy's
    /// approval question (`asked`), or the tool's requests to the client; its sealed state
    /// carries what this round asked, the answers the tool took, and the approval brought
    /// from an earlier round (the next run is asked again, and takes the same answer), and
    /// the first round's deadline (`brought`: that approval and deadline, from the state the
    /// client brought back, if it did).
    fn next_round(
        &self,
        request: &CallToolRequestParams,
        arguments: &str,
        asked: Option<ApprovalRequest>,
        (approval_brought, deadline): (Option<Value>, Option<u64>),
        questions: QuestionsRound,
    ) -> CallToolResponse {
        let mut state = RoundState::new(
            &request.name,
            arguments,
            asked.as_ref().map(|asked| asked.preview.clone()),
            self.offer_session,
        );
        if let Some(deadline) = deadline {
            state.deadline = deadline;
        }
        let mut requests = InputRequests::new();
        match &asked {
            Some(asked) => {
                requests.insert(
                    INPUT_KEY.to_owned(),
                    input_request("elicitation/create", &question(asked, self.offer_session)),
                );
            }
            None => state.approval = approval_brought,
        }
        for (key, digest, request) in questions.pending {
            state.asked.insert(key.clone(), digest);
            requests.insert(key, request);
        }
        state.answers = questions.used;
        CallToolResponse::InputRequired(InputRequiredResult::new(
            Some(requests),
            Some(self.states.seal(&state)),
        ))
    }

    /// What a 2026-07-28 client brought back with its retry, its request state checked
    /// (sealed here, unexpired, for this very call, not taken before; refused, it is the
    /// JSON-RPC error -32602, saying why): the answer to the policy's approval question,
    /// and the answers to the tool's own questions, of this round and of earlier ones.
    ///
    /// An approval is taken only through a sealed state that asked it. A tool's own question
    /// may be answered without one (the client holds the answer either way, and a client
    /// may answer a question it knows the tool will ask); an answer the state carries from
    /// an earlier round cannot be changed, and one given to another question under the
    /// same key is not taken.
    fn brought_back(
        &self,
        request: &CallToolRequestParams,
        arguments: &str,
    ) -> Result<Brought, ErrorData> {
        let responses = request.input_responses.clone().unwrap_or_default();
        let Some(state) = &request.request_state else {
            let answers = responses
                .into_iter()
                .filter(|(key, _)| key != INPUT_KEY)
                .map(|(key, response)| {
                    (
                        key,
                        Answered {
                            question: None,
                            response,
                        },
                    )
                })
                .collect();
            return Ok(Brought {
                approval: None,
                approval_response: None,
                answers,
                deadline: None,
            });
        };
        let state = self
            .states
            .open(state, &request.name, arguments)
            .map_err(|refused| ErrorData::invalid_params(refused.to_string(), None))?;
        // A session grant only if it was offered then and is still offered now.
        let offer_session = state.offer_session && self.offer_session;
        let approval_response = if state.preview.is_some() {
            responses.get(INPUT_KEY).cloned()
        } else {
            state.approval.clone()
        };
        let approval_result = approval_response
            .and_then(|response| serde_json::from_value::<ElicitResult>(response).ok());
        // Carried on to later rounds as read, not as the client sent it.
        let approval_response = approval_result.as_ref().map(normalized_approval);
        let approval = match approval_result {
            Some(response) => Some(answer(&response, offer_session)),
            None if state.preview.is_some() => Some(ApprovalResponse::reject(
                "the client came back without the user's answer to the approval question",
            )),
            None => None,
        };
        let mut answers: HashMap<String, Answered> = state.answers.into_iter().collect();
        for (key, question) in state.asked {
            if let Some(response) = responses.get(&key) {
                answers.insert(
                    key,
                    Answered {
                        question: Some(question),
                        response: response.clone(),
                    },
                );
            }
        }
        Ok(Brought {
            approval,
            approval_response,
            answers,
            deadline: Some(state.deadline),
        })
    }
}

/// What a 2026-07-28 client brought back with its retry: see [`McpServer::brought_back`].
struct Brought {
    /// The answer to the policy's approval question, as an approval.
    approval: Option<ApprovalResponse>,
    /// That answer as the client sent it, to carry on into a later round's state.
    approval_response: Option<Value>,
    /// The answers to the tool's own questions, by key.
    answers: HashMap<String, Answered>,
    /// The first round's deadline, which every later round keeps.
    deadline: Option<u64>,
}

/// The protocol's MissingRequiredClientCapability error (-32021, HTTP 400) naming the
/// capabilities a tool failed for want of, if any: at 2026-07-28 a call that needed what the
/// client did not declare is that error rather than a tool result.
fn missing_capabilities(missing: &[&'static str]) -> Option<ErrorData> {
    if missing.is_empty() {
        return None;
    }
    let required: serde_json::Map<String, Value> = missing
        .iter()
        .map(|capability| {
            (
                (*capability).to_owned(),
                Value::Object(serde_json::Map::new()),
            )
        })
        .collect();
    serde_json::from_value(Value::Object(required))
        .ok()
        .map(ErrorData::missing_required_client_capability)
}

/// Whether the request speaks protocol 2026-07-28 or later: stateless, so the server may not
/// send requests of its own, and list results carry caching hints.
fn is_stateless(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28)
}

/// Whether the client can show its user a form (form mode is what a bare `elicitation: {}`
/// declares).
fn can_elicit(capabilities: Option<ClientCapabilities>) -> bool {
    capabilities
        .and_then(|capabilities| capabilities.elicitation)
        .is_some_and(|elicitation| elicitation.form.is_some() || elicitation.url.is_none())
}

/// A result as MCP's `CallToolResult`: content parts, the structured value (an object; mirrored
/// as text when the tool gave no text of its own), `isError`, and hook context as text.
fn to_mcp(result: &ToolResult) -> CallToolResult {
    let mut content: Vec<ContentBlock> = result
        .content
        .iter()
        .map(|part| match part {
            Content::Text { text } => ContentBlock::text(text.clone()),
            Content::Image { data, mime_type } => {
                ContentBlock::image(data.clone(), mime_type.clone())
            }
            Content::Audio { data, mime_type } => {
                ContentBlock::audio(data.clone(), mime_type.clone())
            }
            Content::Resource {
                uri,
                mime_type,
                contents,
            } => ContentBlock::resource(match contents {
                ResourceContents::Text { text } => McpResourceContents::TextResourceContents {
                    uri: uri.clone(),
                    mime_type: mime_type.clone(),
                    text: text.clone(),
                    meta: None,
                },
                ResourceContents::Blob { blob } => McpResourceContents::BlobResourceContents {
                    uri: uri.clone(),
                    mime_type: mime_type.clone(),
                    blob: blob.clone(),
                    meta: None,
                },
            }),
        })
        .collect();
    let structured = result.structured.clone().filter(Value::is_object);
    if content.is_empty()
        && let Some(value) = &result.structured
    {
        content.push(ContentBlock::text(value.to_string()));
    }
    content.extend(
        result
            .context
            .iter()
            .map(|note| ContentBlock::text(note.clone())),
    );
    let mut mcp = if result.is_error() {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    mcp.structured_content = structured;
    mcp
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Toolset;

    #[cfg(feature = "mcp-http")]
    #[test]
    fn a_clients_session_is_kept_between_requests_and_dropped_once_idle() {
        let server = Coordinator::builder()
            .toolset(Toolset::named(Vec::<String>::new()).unwrap())
            .build()
            .unwrap();
        let clients = ClientSessions::new(std::time::Duration::from_millis(200));
        let (alice, bob): (Arc<str>, Arc<str>) = (Arc::from("alice"), Arc::from("bob"));
        let first = clients.session(&alice, &server).session_id().to_owned();
        assert_eq!(clients.session(&alice, &server).session_id(), first);
        assert_ne!(clients.session(&bob, &server).session_id(), first);
        assert_ne!(first, server.session_id());
        std::thread::sleep(std::time::Duration::from_millis(250));
        // Any client's request drops the idle sessions; alice's next one starts anew.
        let _ = clients.session(&bob, &server);
        assert_eq!(clients.sessions.lock().unwrap().len(), 1);
        assert_ne!(clients.session(&alice, &server).session_id(), first);
    }

    #[test]
    fn a_later_round_keeps_the_first_rounds_deadline() {
        let coordinator = Coordinator::builder()
            .toolset(Toolset::named(Vec::<String>::new()).unwrap())
            .build()
            .unwrap();
        let server = McpServer::new(coordinator);
        // A first round sealed long ago: its deadline is sooner than a new one would be.
        let mut first = RoundState::new("greet", "{}", None, false);
        first.deadline -= 600;
        let request: CallToolRequestParams = serde_json::from_value(serde_json::json!({
            "name": "greet",
            "arguments": {},
            "requestState": server.states.seal(&first),
        }))
        .unwrap();
        let brought = server.brought_back(&request, "{}").unwrap();
        assert_eq!(brought.deadline, Some(first.deadline));
        let mut questions = QuestionsRound::default();
        questions.pending.push((
            "question-1".into(),
            "digest".into(),
            input_request("roots/list", &serde_json::json!({})),
        ));
        let CallToolResponse::InputRequired(next) =
            server.next_round(&request, "{}", None, (None, brought.deadline), questions)
        else {
            panic!("a round asking a question is input_required");
        };
        let sealed = serde_json::to_value(&next).unwrap()["requestState"]
            .as_str()
            .unwrap()
            .to_owned();
        let second = server.states.open(&sealed, "greet", "{}").unwrap();
        assert_eq!(second.deadline, first.deadline);
    }
}
