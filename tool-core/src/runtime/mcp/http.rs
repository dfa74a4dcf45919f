//! Serving a coordinator over MCP's streamable HTTP transport (feature `mcp-http`): rmcp's
//! `StreamableHttpService` mounted in an axum router, behind the checks a server reachable over
//! the network needs. This module owns the HTTP side only: the options ([`HttpOptions`]), the
//! router ([`router`]), the listener ([`HttpServer`]), bearer authentication (one shared token,
//! or one per client, whose requests it tags with the client's name), the bound on a message's
//! size and the JSON-RPC answers to bodies rmcp would refuse in plain text. What a request does
//! is [`McpServer`]'s.
//!
//! Stateless by default (rmcp's legacy session mode off), so any number of instances serve one
//! address behind any balancer; [`HttpOptions::legacy_sessions`] gives 2025-11-25 clients a
//! session, each a coordinator session of its own. Loopback by default, `Host` and `Origin`
//! checked, and a non-loopback address refused without a token
//! ([`HttpError::Unauthenticated`]) unless a proxy in front authenticates. A client that closes
//! the response cancels the call. Each option and why it is the default: the guide's MCP page
//! (`docs/mcp.md`, "Serving over HTTP").
//!
//! ```no_run
//! use tool_core::{Coordinator, Toolset, mcp::{HttpOptions, HttpServer}};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let coordinator = Coordinator::builder().toolset(Toolset::all()).build()?;
//! let server = HttpServer::bind(coordinator, HttpOptions::loopback(0)).await?;
//! eprintln!("serving at {}", server.url());
//! server.run().await?; // until `server.shutdown_token()` is cancelled
//! # Ok(())
//! # }
//! ```

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes, HttpBody as _};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use subtle::ConstantTimeEq;
use tokio_util::sync::CancellationToken;

use super::McpServer;
use super::malformed::{too_large, unreadable};
use rmcp::model::{ErrorData, RequestId, ServerJsonRpcMessage};
use sha2::{Digest, Sha256};

/// The origins a browser on this machine sends: allowed by default on a loopback address.
const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

/// The `Host` names a loopback server answers to (rmcp's DNS-rebinding guard).
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// How long a 2025-11-25 session ([`HttpOptions::legacy_sessions`]) lives without a message
/// either way. rmcp's default (5 minutes) would end a session, and the call in it, while its
/// user reads a question; an hour bounds what a vanished client leaves behind.
pub const LEGACY_SESSION_IDLE: Duration = Duration::from_secs(60 * 60);

/// How to serve over HTTP: where, at which path, and who may call.
///
/// ```
/// use tool_core::mcp::HttpOptions;
///
/// let options = HttpOptions::loopback(8080)
///     .allow_origin("https://app.example.com")
///     .bearer_token("s3cret");
/// assert_eq!(options.address().to_string(), "127.0.0.1:8080");
/// assert_eq!(options.path(), "/mcp");
/// ```
#[derive(Clone)]
pub struct HttpOptions {
    address: SocketAddr,
    path: String,
    allowed_origins: Vec<String>,
    allowed_hosts: Vec<String>,
    bearer_token: Option<Arc<str>>,
    /// Per-client tokens: the client's name, and its token.
    client_tokens: Vec<(Arc<str>, Arc<str>)>,
    /// How long a client's session lives without a request.
    client_idle: Duration,
    allow_unauthenticated: bool,
    legacy_sessions: bool,
}

impl std::fmt::Debug for HttpOptions {
    // The token stays out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpOptions")
            .field("address", &self.address)
            .field("path", &self.path)
            .field("allowed_origins", &self.allowed_origins)
            .field("allowed_hosts", &self.allowed_hosts)
            .field("bearer_token", &self.bearer_token.as_ref().map(|_| "<set>"))
            .field(
                "client_tokens",
                &self
                    .client_tokens
                    .iter()
                    .map(|(name, _)| name)
                    .collect::<Vec<_>>(),
            )
            .field("allow_unauthenticated", &self.allow_unauthenticated)
            .field("legacy_sessions", &self.legacy_sessions)
            .finish()
    }
}

impl HttpOptions {
    /// Serve at `address` (port 0: a free port, see [`HttpServer::local_addr`]), path `/mcp`.
    #[must_use]
    pub fn new(address: SocketAddr) -> Self {
        HttpOptions {
            address,
            path: "/mcp".to_owned(),
            allowed_origins: Vec::new(),
            allowed_hosts: Vec::new(),
            bearer_token: None,
            client_tokens: Vec::new(),
            client_idle: LEGACY_SESSION_IDLE,
            allow_unauthenticated: false,
            legacy_sessions: false,
        }
    }

    /// Serve at `127.0.0.1:port`.
    #[must_use]
    pub fn loopback(port: u16) -> Self {
        Self::new(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port))
    }

    /// The path of the MCP endpoint (default `/mcp`); it must start with `/`.
    #[must_use]
    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// Allow browser requests from `origin`: `scheme://host`, `scheme://host:port`,
    /// `scheme://host:*` (any port) or `null`. Repeat for several.
    #[must_use]
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins.push(origin.into());
        self
    }

    /// Answer requests whose `Host` is `host` (`name` or `name:port`). Repeat for several. On a
    /// loopback address the loopback names are always allowed.
    #[must_use]
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.allowed_hosts.push(host.into());
        self
    }

    /// Require `Authorization: Bearer <token>` on every request.
    #[must_use]
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer_token = Some(Arc::from(token.into()));
        self
    }

    /// Admit the client `name` by its own bearer `token`, and serve it in a coordinator session
    /// of its own ([`Coordinator::new_session`](crate::Coordinator::new_session)), kept while
    /// the server runs, whatever protocol version it speaks and without an MCP session: its
    /// grants, the files it read, its artifacts, background jobs, todo list and mode are its
    /// own (until it idles out, [`client_idle`](Self::client_idle)). Repeat for each client.
    /// Every request must then carry one of the tokens (or the
    /// [`bearer_token`](Self::bearer_token), whose requests share the server's session).
    ///
    /// ```
    /// use tool_core::mcp::HttpOptions;
    ///
    /// let options = HttpOptions::loopback(8080)
    ///     .client_token("alice", "a-long-random-token")
    ///     .client_token("bob", "another-long-random-token");
    /// # let _ = options;
    /// ```
    #[must_use]
    pub fn client_token(mut self, name: impl Into<String>, token: impl Into<String>) -> Self {
        self.client_tokens
            .push((Arc::from(name.into()), Arc::from(token.into())));
        self
    }

    /// How long a session of a client admitted by its own token
    /// ([`client_token`](Self::client_token)) lives without a request (default
    /// [`LEGACY_SESSION_IDLE`], an hour): then it is dropped, its background jobs stopped, and
    /// the client's next request starts a new one.
    #[must_use]
    pub fn client_idle(mut self, idle: Duration) -> Self {
        self.client_idle = idle;
        self
    }

    /// Serve on a non-loopback address without a bearer token: for a server behind a proxy
    /// that authenticates. Refused otherwise ([`HttpError::Unauthenticated`]).
    #[must_use]
    pub fn allow_unauthenticated(mut self, allow: bool) -> Self {
        self.allow_unauthenticated = allow;
        self
    }

    /// Give clients speaking MCP 2025-11-25 a session (`Mcp-Session-Id`, kept in this
    /// process), so that the server can ask them while a call runs: the approval of a call,
    /// and a tool's own questions, model messages and roots (`elicitation/create`,
    /// `sampling/createMessage`, `roots/list`), whose answers come back on requests of their
    /// own that the session ties to the waiting call. Off by default: without sessions
    /// the server is stateless, so any number of instances serve one address behind any load
    /// balancer, and a 2025-11-25 client is told it cannot be asked. With them, one instance
    /// serves each 2025-11-25 client (a single instance, or a balancer with sticky sessions).
    /// Clients speaking 2026-07-28 are served statelessly either way, and asked through the
    /// `input_required` round trip.
    ///
    /// Each session is a coordinator session of its own
    /// ([`Coordinator::new_session`](crate::Coordinator::new_session)), so "approve every call
    /// of this tool for the session" is offered and holds for that client alone. A session is
    /// closed after [`LEGACY_SESSION_IDLE`] without a message either way (a user taking longer
    /// to answer a question loses the call).
    #[must_use]
    pub fn legacy_sessions(mut self, sessions: bool) -> Self {
        self.legacy_sessions = sessions;
        self
    }

    /// The address to listen on.
    #[must_use]
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The path of the MCP endpoint.
    #[must_use]
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Every mistake in the options, checked before anything listens.
    fn validate(&self) -> Result<(), HttpError> {
        if !self.path.starts_with('/') || self.path.contains(['?', '#']) {
            return Err(HttpError::Path(self.path.clone()));
        }
        if let Some(origin) = self.allowed_origins.iter().find(|o| !origin_is_valid(o)) {
            return Err(HttpError::Origin(origin.clone()));
        }
        let unfit = |token: &str| {
            token.is_empty()
                || token
                    .bytes()
                    .any(|byte| byte.is_ascii_whitespace() || byte < 0x20)
        };
        let tokens = || {
            self.bearer_token
                .iter()
                .chain(self.client_tokens.iter().map(|(_, token)| token))
        };
        if tokens().any(|token| unfit(token)) {
            return Err(HttpError::Token);
        }
        let mut seen = std::collections::HashSet::new();
        if tokens().any(|token| !seen.insert(&**token)) {
            return Err(HttpError::RepeatedToken);
        }
        let mut names = std::collections::HashSet::new();
        if let Some((name, _)) = self
            .client_tokens
            .iter()
            .find(|(name, _)| !names.insert(&**name))
        {
            return Err(HttpError::RepeatedClient(name.to_string()));
        }
        if !self.address.ip().is_loopback() && tokens().next().is_none() {
            if !self.allow_unauthenticated {
                return Err(HttpError::Unauthenticated {
                    address: self.address,
                });
            }
            tracing::warn!(
                address = %self.address,
                "serving MCP on a non-loopback address without a bearer token: whoever reaches it can call the tools"
            );
        }
        Ok(())
    }

    /// rmcp's configuration: stateless, Origin always checked, Host as documented.
    fn service_config(
        &self,
        shutdown: &CancellationToken,
        limit: usize,
    ) -> StreamableHttpServerConfig {
        let loopback = self.address.ip().is_loopback();
        let mut origins = self.allowed_origins.clone();
        let mut hosts = self.allowed_hosts.clone();
        if loopback {
            origins.extend(LOOPBACK_ORIGINS.iter().map(|&o| o.to_owned()));
            hosts.extend(LOOPBACK_HOSTS.iter().map(|&h| h.to_owned()));
            // Bound to another loopback address (127.0.0.2), the URL printed names it.
            hosts.push(self.address.ip().to_string());
        }
        let config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(self.legacy_sessions)
            .with_json_response(true)
            .with_max_request_body_bytes(limit)
            // Long calls answered on an SSE stream stay alive through proxies.
            .with_sse_keep_alive(Some(Duration::from_secs(15)))
            .with_cancellation_token(shutdown.child_token())
            .with_allowed_origins(origins)
            .enforce_origin_validation();
        if hosts.is_empty() {
            config.disable_allowed_hosts()
        } else {
            config.with_allowed_hosts(hosts)
        }
    }
}

/// `scheme://host[:port|:*]` with an http(s) scheme and nothing after the authority, or `null`.
fn origin_is_valid(origin: &str) -> bool {
    if origin == "null" {
        return true;
    }
    let Some((scheme, rest)) = origin.split_once("://") else {
        return false;
    };
    if !matches!(scheme, "http" | "https") || rest.is_empty() || rest.contains(['/', '?', '#']) {
        return false;
    }
    let authority = rest.strip_suffix(":*").unwrap_or(rest);
    authority
        .parse::<axum::http::uri::Authority>()
        .is_ok_and(|parsed| !parsed.host().is_empty() && !authority.contains('@'))
}

/// Why an HTTP server could not start, or stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HttpError {
    /// A non-loopback address without a bearer token, and no explicit opt-out.
    #[error(
        "refusing to serve on {address} without authentication: anyone who can reach it could call the tools. Give a bearer token, bind a loopback address (127.0.0.1), or, when a proxy in front authenticates, allow unauthenticated serving explicitly"
    )]
    Unauthenticated {
        /// The address asked for.
        address: SocketAddr,
    },
    /// The endpoint path is not an absolute path.
    #[error(
        "the endpoint path `{0}` must start with `/` and have no query or fragment, like `/mcp`"
    )]
    Path(String),
    /// An allowed origin that is not an origin.
    #[error(
        "`{0}` is not an origin: write `scheme://host`, `scheme://host:port` or `scheme://host:*` (http or https, no path), or `null`"
    )]
    Origin(String),
    /// The bearer token is empty or holds whitespace or control characters.
    #[error(
        "the bearer token must be non-empty printable text without whitespace (an HTTP header value)"
    )]
    Token,
    /// Two clients were given the same token: a request bearing it could not say whose it is.
    #[error("two clients have the same bearer token; give each client a token of its own")]
    RepeatedToken,
    /// Two clients were given the same name.
    #[error("two clients are named `{0}`; give each client a name of its own")]
    RepeatedClient(String),
    /// The address could not be listened on.
    #[error("cannot listen on {address}: {source}")]
    Bind {
        /// The address asked for.
        address: SocketAddr,
        /// The system's reason.
        #[source]
        source: std::io::Error,
    },
    /// The server stopped on an I/O error.
    #[error("the HTTP server stopped: {0}")]
    Serve(#[source] std::io::Error),
}

/// The axum router serving `server` (an [`McpServer`], or a [`Coordinator`](crate::Coordinator) served with the
/// defaults) at `options.path()`, with Origin, Host and bearer
/// checks, for embedding in an application's own router and server. Stateless: see the module
/// doc. Cancel `shutdown` to end the response streams still open (a graceful shutdown of the
/// server around it does not end them by itself).
///
/// # Errors
/// [`HttpError`]: the options are inconsistent (path, origins, token, or a non-loopback
/// address without authentication).
///
/// ```
/// use tool_core::{Coordinator, Toolset, context::CancellationToken, mcp::{self, HttpOptions}};
///
/// let coordinator = Coordinator::builder().toolset(Toolset::all()).build().unwrap();
/// let mcp = mcp::router(coordinator, &HttpOptions::loopback(8080), CancellationToken::new()).unwrap();
/// let app: axum::Router = axum::Router::new().merge(mcp);
/// # let _ = app;
/// ```
pub fn router(
    server: impl Into<McpServer>,
    options: &HttpOptions,
    shutdown: CancellationToken,
) -> Result<Router, HttpError> {
    options.validate()?;
    let mut server = server.into().over_http(options.legacy_sessions);
    if !options.client_tokens.is_empty() {
        server = server.with_client_sessions(options.client_idle);
    }
    let limit = server.message_limit();
    let router = if options.legacy_sessions {
        let mut sessions = LocalSessionManager::default();
        sessions.session_config.keep_alive = Some(LEGACY_SESSION_IDLE);
        // rmcp makes the service of each session when it starts (`initialize`), and drops it
        // when the session ends or idles out: a coordinator session per client.
        let service: StreamableHttpService<McpServer, LocalSessionManager> =
            StreamableHttpService::new(
                move || Ok(server.for_new_session()),
                Arc::new(sessions),
                options.service_config(&shutdown, limit),
            );
        Router::new()
            .route_service(&options.path, service)
            .route_layer(middleware::from_fn(session_ended))
    } else {
        let service: StreamableHttpService<McpServer, NeverSessionManager> =
            StreamableHttpService::new(
                move || Ok(server.clone()),
                Arc::new(NeverSessionManager::default()),
                options.service_config(&shutdown, limit),
            );
        Router::new().route_service(&options.path, service)
    };
    // Before rmcp sees a POST: its answers to a body that is not JSON (415) and to one over
    // the limit (a plain-text 413) say nothing a JSON-RPC client can read.
    let router = router.route_layer(middleware::from_fn_with_state(limit, read_message));
    let tokens = Tokens {
        shared: options.bearer_token.clone(),
        clients: options.client_tokens.clone(),
    };
    Ok(if tokens.any() {
        router.route_layer(middleware::from_fn_with_state(
            Arc::new(tokens),
            require_bearer,
        ))
    } else {
        router
    })
}

/// Reads a POST's body (up to `limit` bytes) and passes it to rmcp. A body over the limit is
/// answered `413 Payload Too Large` with an error naming the limit; a body rmcp cannot parse
/// (its `415`, which says nothing a JSON-RPC client reads) `400 Bad Request` with a parse
/// error (-32700) when it is not JSON, or an invalid request (-32600, to its `id`) when it is
/// JSON but no message: each a JSON-RPC error body, which a client reads as the answer to
/// what it sent. An unknown notification is accepted (202) and dropped, as JSON-RPC never
/// answers a notification. rmcp's own refusals (a wrong `Accept`, Origin or Host) come first.
async fn read_message(State(limit): State<usize>, request: Request, next: Next) -> Response {
    let is_json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            let essence = value.split_once(';').map_or(value, |(essence, _)| essence);
            essence.trim().eq_ignore_ascii_case("application/json")
        });
    // Anything else is rmcp's to answer (405, 406, 415 for another content type).
    if request.method() != axum::http::Method::POST || !is_json {
        return next.run(request).await;
    }
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    if declared.is_some_and(|length| length > limit as u64) {
        return json_rpc_error(StatusCode::PAYLOAD_TOO_LARGE, too_large(limit), None);
    }
    let (parts, body) = request.into_parts();
    let bytes = match read_body(body, limit).await {
        Ok(bytes) => bytes,
        Err(BodyProblem::TooLarge) => {
            return json_rpc_error(StatusCode::PAYLOAD_TOO_LARGE, too_large(limit), None);
        }
        Err(BodyProblem::Broken(error)) => {
            return (
                StatusCode::BAD_REQUEST,
                format!("the request body could not be read: {error}"),
            )
                .into_response();
        }
    };
    // rmcp parses the message; only when it cannot (its 415 for a JSON body) is the body
    // read again here, to say why in JSON-RPC. A message that parses is parsed once.
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes.clone())))
        .await;
    if response.status() != StatusCode::UNSUPPORTED_MEDIA_TYPE {
        return response;
    }
    match unreadable(&bytes) {
        Some((error, id)) => json_rpc_error(StatusCode::BAD_REQUEST, error, id),
        None => StatusCode::ACCEPTED.into_response(),
    }
}

/// Why a body was not read.
enum BodyProblem {
    TooLarge,
    Broken(axum::Error),
}

/// A body read whole, refused as soon as it grows past `limit` bytes.
async fn read_body(body: Body, limit: usize) -> Result<Bytes, BodyProblem> {
    let mut body = std::pin::pin!(body);
    let mut collected = Vec::new();
    while let Some(frame) = std::future::poll_fn(|cx| body.as_mut().poll_frame(cx)).await {
        let frame = frame.map_err(BodyProblem::Broken)?;
        if let Ok(data) = frame.into_data() {
            if collected.len() + data.len() > limit {
                return Err(BodyProblem::TooLarge);
            }
            collected.extend_from_slice(&data);
        }
    }
    Ok(Bytes::from(collected))
}

/// An HTTP response whose body is a JSON-RPC error.
fn json_rpc_error(status: StatusCode, error: ErrorData, id: Option<RequestId>) -> Response {
    let message = ServerJsonRpcMessage::error(error, id);
    let body = serde_json::to_vec(&message).unwrap_or_default();
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}

/// A `DELETE` that ended a session answers 204 No Content. rmcp answers 202 Accepted, which
/// says the deletion is yet to happen; the MCP Python SDK takes only 200 or 204 as a session
/// ended, and logs a failure otherwise.
async fn session_ended(request: Request, next: Next) -> Response {
    let delete = request.method() == axum::http::Method::DELETE;
    let response = next.run(request).await;
    if delete && response.status() == StatusCode::ACCEPTED {
        StatusCode::NO_CONTENT.into_response()
    } else {
        response
    }
}

/// Lets a request through only with `Authorization: Bearer <token>` (the scheme in any case,
/// RFC 7235). The comparison takes the same time wherever the first difference is.
/// The bearer tokens a server admits: one its requests share the server's session under, and
/// one per named client, each served in a session of its own.
struct Tokens {
    shared: Option<Arc<str>>,
    clients: Vec<(Arc<str>, Arc<str>)>,
}

impl Tokens {
    fn any(&self) -> bool {
        self.shared.is_some() || !self.clients.is_empty()
    }
}

/// The client a request's bearer token names, put in the request's extensions for
/// [`McpServer`] to find the client's session by (rmcp hands the request's parts on).
#[derive(Debug, Clone)]
pub(super) struct ClientName(pub(super) Arc<str>);

async fn require_bearer(
    State(tokens): State<Arc<Tokens>>,
    mut request: Request,
    next: Next,
) -> Response {
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, credentials)| credentials.trim());
    let Some(presented) = presented else {
        // RFC 6750 §3: no credentials get the bare challenge; wrong ones name the error.
        return unauthorized(
            "Bearer",
            "this server needs `Authorization: Bearer <token>`",
        );
    };
    // Digests of equal length, compared in constant time: comparing the tokens themselves
    // would end early on a length that differs, and tell the token's length. Every token is
    // compared, so the time taken does not say which one matched.
    let digest = Sha256::digest(presented.as_bytes());
    let matches = |token: &str| bool::from(digest.ct_eq(&Sha256::digest(token.as_bytes())));
    let mut admitted = tokens.shared.as_deref().is_some_and(matches);
    let mut client = None;
    for (name, token) in &tokens.clients {
        if matches(token) {
            admitted = true;
            client = Some(Arc::clone(name));
        }
    }
    if !admitted {
        return unauthorized(
            r#"Bearer error="invalid_token""#,
            "the bearer token is wrong",
        );
    }
    if let Some(name) = client {
        request.extensions_mut().insert(ClientName(name));
    }
    next.run(request).await
}

fn unauthorized(challenge: &'static str, message: &'static str) -> Response {
    let mut response = (StatusCode::UNAUTHORIZED, message).into_response();
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static(challenge),
    );
    response
}

/// An HTTP server bound to its address, not yet serving: learn where it listens
/// ([`local_addr`](Self::local_addr), [`url`](Self::url)), then [`run`](Self::run) it.
pub struct HttpServer {
    listener: tokio::net::TcpListener,
    router: Router,
    local_addr: SocketAddr,
    path: String,
    shutdown: CancellationToken,
}

impl std::fmt::Debug for HttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpServer")
            .field("local_addr", &self.local_addr)
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl HttpServer {
    /// Checks the options and listens on their address.
    ///
    /// # Errors
    /// [`HttpError`]: inconsistent options, or the address cannot be listened on.
    pub async fn bind(
        server: impl Into<McpServer>,
        options: HttpOptions,
    ) -> Result<Self, HttpError> {
        let shutdown = CancellationToken::new();
        let router = router(server, &options, shutdown.clone())?;
        let bind_error = |source| HttpError::Bind {
            address: options.address,
            source,
        };
        let listener = tokio::net::TcpListener::bind(options.address)
            .await
            .map_err(bind_error)?;
        let local_addr = listener.local_addr().map_err(bind_error)?;
        Ok(HttpServer {
            listener,
            router,
            local_addr,
            path: options.path,
            shutdown,
        })
    }

    /// The address listened on (the actual port when port 0 was asked for).
    #[must_use]
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The endpoint's URL, such as `http://127.0.0.1:8080/mcp`.
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://{}{}", self.local_addr, self.path)
    }

    /// Cancel this token to stop the server: it stops accepting, ends open response streams,
    /// and [`run`](Self::run) returns once the connections are closed.
    #[must_use]
    pub fn shutdown_token(&self) -> CancellationToken {
        self.shutdown.clone()
    }

    /// Serves until the shutdown token is cancelled.
    ///
    /// # Errors
    /// [`HttpError::Serve`]: the listener failed.
    pub async fn run(self) -> Result<(), HttpError> {
        let shutdown = self.shutdown;
        axum::serve(self.listener, self.router)
            .with_graceful_shutdown(async move { shutdown.cancelled_owned().await })
            .await
            .map_err(HttpError::Serve)
    }
}

/// Serves `server` (an [`McpServer`], or a [`Coordinator`](crate::Coordinator) served with the defaults) over
/// streamable HTTP as `options` say, until the process ends.
///
/// # Errors
/// [`HttpError`]: inconsistent options, the address cannot be listened on, or the listener
/// failed.
pub async fn serve_http(
    server: impl Into<McpServer>,
    options: HttpOptions,
) -> Result<(), HttpError> {
    HttpServer::bind(server, options).await?.run().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_checked_for_shape() {
        for good in [
            "http://localhost:3000",
            "https://app.example.com",
            "http://[::1]:*",
            "null",
        ] {
            assert!(origin_is_valid(good), "{good}");
        }
        for bad in [
            "localhost:3000",
            "ftp://x",
            "https://app.example.com/",
            "https://",
            "https://user@host",
        ] {
            assert!(!origin_is_valid(bad), "{bad}");
        }
    }

    #[test]
    fn a_public_address_without_a_token_is_refused_unless_allowed() {
        let public = HttpOptions::new("0.0.0.0:8080".parse().unwrap());
        assert!(matches!(
            public.validate(),
            Err(HttpError::Unauthenticated { .. })
        ));
        assert!(public.clone().bearer_token("t").validate().is_ok());
        assert!(public.allow_unauthenticated(true).validate().is_ok());
    }

    #[test]
    fn a_path_must_be_absolute() {
        let options = HttpOptions::loopback(0).with_path("mcp");
        assert!(matches!(options.validate(), Err(HttpError::Path(_))));
    }

    #[test]
    fn an_empty_or_spaced_token_is_refused() {
        for token in ["", "a b"] {
            let options = HttpOptions::loopback(0).bearer_token(token);
            assert!(matches!(options.validate(), Err(HttpError::Token)));
        }
        let spaced = HttpOptions::loopback(0).client_token("alice", "a b");
        assert!(matches!(spaced.validate(), Err(HttpError::Token)));
    }

    #[test]
    fn clients_need_tokens_and_names_of_their_own() {
        let shared = HttpOptions::loopback(0)
            .bearer_token("same")
            .client_token("alice", "same");
        assert!(matches!(shared.validate(), Err(HttpError::RepeatedToken)));
        let twins = HttpOptions::loopback(0)
            .client_token("alice", "one")
            .client_token("alice", "two");
        assert!(
            matches!(twins.validate(), Err(HttpError::RepeatedClient(name)) if name == "alice")
        );
        let fine = HttpOptions::loopback(0)
            .client_token("alice", "one")
            .client_token("bob", "two");
        assert!(fine.validate().is_ok());
    }

    #[test]
    fn client_tokens_alone_authenticate_a_server_off_loopback() {
        let address = SocketAddr::from(([192, 0, 2, 1], 8080));
        assert!(matches!(
            HttpOptions::new(address).validate(),
            Err(HttpError::Unauthenticated { .. })
        ));
        assert!(
            HttpOptions::new(address)
                .client_token("alice", "one")
                .validate()
                .is_ok()
        );
    }
}
