//! Importing the tools of MCP servers as dynamic [`Tool`](crate::Tool)s: [`McpClient`] (one
//! server, started from a command over stdio or reached at a streamable HTTP URL),
//! [`ImportedTool`] (one of its tools), [`import`] (every server of an [`McpConfig`], read
//! from a `.mcp.json` in Claude Code's format).
//!
//! An imported tool is a tool like any other: it goes in a [`Toolset`](crate::Toolset) and is
//! called through the coordinator, so the policy, approvals, hooks, middleware, budgets and
//! events apply to it, under its name `mcp__<server>__<tool>` (rules such as
//! `mcp__github__*` match it).
//!
//! ```no_run
//! use tool_core::{Coordinator, ToolCall, Toolset, mcp::client::{self, McpConfig}};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let imported = client::import(&McpConfig::load(".mcp.json")?).await;
//! for failure in &imported.failures {
//!     eprintln!("{failure}"); // a server that did not start does not stop the others
//! }
//! let coordinator = Coordinator::builder()
//!     .toolset(Toolset::all().union(imported.toolset)?)
//!     .build()?;
//! let result = coordinator
//!     .call(ToolCall::new("mcp__files__read_text_file", r#"{"path": "notes.md"}"#))
//!     .await;
//! # Ok(())
//! # }
//! ```
//! Names, the effect class (annotations believed only for servers the user trusts), results,
//! progress, a server's questions and changing tools: the guide's MCP page (`docs/mcp.md`).

mod config;
mod connection;
mod error;
mod questions;
mod tool;

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use rmcp::RoleClient;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotification, CancelledNotificationParam,
    ClientNotification, ClientRequest, InputResponses, ProgressToken, RequestId, ServerResult,
    Tool as McpTool,
};
use rmcp::service::{Peer, PeerRequestOptions, ServiceError};
use serde_json::{Map, Value};

pub use config::{McpConfig, McpConfigError, McpServerConfig, McpTransport};
pub use error::McpClientError;
pub use tool::ImportedTool;

use crate::context::ToolContext;
use crate::coordinator::ToolsetChanges;
use crate::spec::ToolSpec;
use crate::{Coordinator, Tool, ToolError, ToolOutput, Toolset};
use connection::{Connection, ListChanged};

/// A connection to one MCP server, restarted (or reopened) on the next call after it dies.
/// Cheap to clone; the server is stopped when the last clone (and the last tool imported from
/// it) is dropped.
#[derive(Clone)]
pub struct McpClient {
    inner: Arc<Inner>,
}

struct Inner {
    config: McpServerConfig,
    /// The live connection; `None` after one was found gone, until the next call connects.
    connection: tokio::sync::Mutex<Option<Arc<Connection>>>,
    /// The server's tools as last listed, by their names on the server: the name each got
    /// here, and its definition. A new listing keeps the names and sees what changed.
    named: Mutex<BTreeMap<String, (String, McpTool)>>,
    /// Moves when the server's tool list changed, or the server was reconnected.
    list_changed: ListChanged,
}

impl std::fmt::Debug for McpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpClient")
            .field("server", &self.inner.config.name)
            .field("target", &self.inner.config.target())
            .finish_non_exhaustive()
    }
}

impl McpClient {
    /// Starts the server (or reaches it) and runs the MCP handshake.
    ///
    /// # Errors
    /// [`McpClientError`]: the command could not be started, or the handshake failed (with how
    /// the process ended and the end of its stderr).
    pub async fn connect(config: McpServerConfig) -> Result<McpClient, McpClientError> {
        let list_changed = Arc::new(tokio::sync::watch::Sender::new(0));
        let connection = connection::connect(&config, &list_changed).await?;
        Ok(McpClient {
            inner: Arc::new(Inner {
                config,
                connection: tokio::sync::Mutex::new(Some(Arc::new(connection))),
                named: Mutex::default(),
                list_changed,
            }),
        })
    }

    /// Hears each time the server says its tool list changed (and each reconnection).
    #[must_use]
    pub fn list_changes(&self) -> ToolsetChanges {
        ToolsetChanges::from_receiver(self.inner.list_changed.subscribe())
    }

    /// The server's configuration.
    #[must_use]
    pub fn config(&self) -> &McpServerConfig {
        &self.inner.config
    }

    /// The server's tools (every page of `tools/list`) as tools named `mcp__<server>__<tool>`.
    ///
    /// # Errors
    /// [`McpClientError`] when the server cannot be reached or does not answer the listing.
    pub async fn tools(&self) -> Result<Vec<ImportedTool>, McpClientError> {
        self.tools_naming(&mut HashSet::new()).await
    }

    async fn tools_naming(
        &self,
        taken: &mut HashSet<String>,
    ) -> Result<Vec<ImportedTool>, McpClientError> {
        let listed = self.list().await?;
        let mut named = self.named();
        let mut next = BTreeMap::new();
        let tools = listed
            .into_iter()
            .map(|remote| {
                let name = match named.remove(&*remote.name) {
                    Some((name, _)) => {
                        taken.insert(name.clone());
                        name
                    }
                    None => tool_name(&self.inner.config.name, &remote.name, taken),
                };
                next.insert(remote.name.to_string(), (name.clone(), remote.clone()));
                ImportedTool::new(self.clone(), name, remote)
            })
            .collect();
        *named = next;
        Ok(tools)
    }

    /// Every page of the server's `tools/list`.
    async fn list(&self) -> Result<Vec<McpTool>, McpClientError> {
        let connection = self.live().await?;
        match connection.service.peer().list_all_tools().await {
            Ok(listed) => Ok(listed),
            Err(ServiceError::TransportClosed | ServiceError::TransportSend(_)) => {
                Err(self.lost(&connection).await)
            }
            Err(error) => Err(McpClientError::Request {
                server: self.inner.config.name.clone(),
                action: "list its tools".to_owned(),
                reason: error.to_string(),
            }),
        }
    }

    fn named(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, (String, McpTool)>> {
        self.inner
            .named
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Keeps `coordinator`'s tools from this server in step with the server's list, from now
    /// until the client or the coordinator is gone (see the module docs); `keep` says which
    /// of the server's tools belong in the coordinator (all: `|_| true`). The tools already
    /// in the coordinator are those [`tools`](Self::tools) or [`import`] made.
    ///
    /// Spawns a task on the current Tokio runtime, which holds neither the client nor the
    /// coordinator alive.
    pub async fn keep_in_sync(
        &self,
        coordinator: &Coordinator,
        keep: impl Fn(&ToolSpec) -> bool + Send + Sync + 'static,
    ) {
        self.follow(coordinator, Arc::new(keep));
    }

    fn follow(&self, coordinator: &Coordinator, keep: Keep) {
        let mut changes = self.list_changes();
        let client = Arc::downgrade(&self.inner);
        let coordinator = coordinator.downgrade();
        tokio::spawn(async move {
            // Once at the start, for what changed since the tools were listed; then on each
            // change the server announces.
            loop {
                let (Some(inner), Some(coordinator)) =
                    (Weak::upgrade(&client), coordinator.upgrade())
                else {
                    return;
                };
                let client = McpClient { inner };
                let mut pause = RESYNC_RETRY_FIRST;
                for attempt in 1..=RESYNC_ATTEMPTS {
                    match client.resync(&coordinator, &*keep).await {
                        Ok(()) => break,
                        Err(error) => {
                            // A lost connection is reopened by the next attempt (a server
                            // restarting takes a moment); a few attempts, then the next change.
                            tracing::warn!(%error, attempt, "the MCP server's changed tools could not be listed");
                            if attempt < RESYNC_ATTEMPTS {
                                tokio::time::sleep(pause).await;
                                pause *= 2;
                            }
                        }
                    }
                }
                drop((client, coordinator));
                if changes.changed().await.is_none() {
                    return;
                }
            }
        });
    }

    /// Lists the server's tools again and brings `coordinator`'s in step, in one update: a
    /// tool the server no longer lists is removed, a new one added under a new name, a changed
    /// one replaced under its name; an unchanged one is left as it is (so an unchanged list
    /// changes nothing, and the coordinator announces nothing).
    async fn resync(
        &self,
        coordinator: &Coordinator,
        keep: &(dyn Fn(&ToolSpec) -> bool + Send + Sync),
    ) -> Result<(), McpClientError> {
        let listed = self.list().await?;
        let server = &self.inner.config.name;
        coordinator.update_toolset(|tools| {
            let mut named = self.named();
            let mut taken: HashSet<String> = tools
                .iter()
                .flat_map(|tool| tool.spec().names().map(str::to_owned).collect::<Vec<_>>())
                .collect();
            let mut next = BTreeMap::new();
            for remote in listed {
                let key = remote.name.to_string();
                let name = match named.remove(&key) {
                    Some((name, before)) if before == remote => {
                        next.insert(key, (name, before));
                        continue;
                    }
                    Some((name, _)) => {
                        tools.remove(&name);
                        name
                    }
                    None => tool_name(server, &key, &mut taken),
                };
                let tool = ImportedTool::new(self.clone(), name.clone(), remote.clone());
                if keep(tool.spec())
                    && let Err(error) = tools.add(tool)
                {
                    tracing::warn!(%error, server, "an MCP server's tool was left out");
                }
                next.insert(key, (name, remote));
            }
            // What remains was not listed again: gone from the server.
            for (name, _) in named.values() {
                tools.remove(name);
            }
            *named = next;
        });
        Ok(())
    }

    /// The end of the server process's stderr (empty for an HTTP server).
    pub async fn stderr_tail(&self) -> String {
        let connection = self.inner.connection.lock().await;
        connection
            .as_ref()
            .and_then(|connection| connection.child.as_ref())
            .map(|child| child.stderr.tail())
            .unwrap_or_default()
    }

    /// The process id of the server's current process (`None` for an HTTP server, or when the
    /// server is not running).
    pub async fn process_id(&self) -> Option<u32> {
        let connection = self.inner.connection.lock().await;
        connection.as_ref()?.child.as_ref()?.pid()
    }

    /// Stops the server now (it is started again by the next call).
    pub async fn close(&self) {
        let connection = self.inner.connection.lock().await.take();
        if let Some(connection) = connection.and_then(|c| Arc::try_unwrap(c).ok()) {
            let mut service = connection.service;
            let _ = service.close().await;
        }
    }

    /// The live connection: the current one, or a new one when there is none. A connection
    /// found gone is reported (how the server ended, its stderr) and forgotten, so the next
    /// call starts the server again.
    async fn live(&self) -> Result<Arc<Connection>, McpClientError> {
        let mut slot = self.inner.connection.lock().await;
        match slot.take() {
            Some(connection) if connection.is_alive() => {
                *slot = Some(Arc::clone(&connection));
                Ok(connection)
            }
            Some(gone) => {
                drop(slot);
                Err(gone.gone(&self.inner.config.name).await)
            }
            None => {
                let connection = Arc::new(
                    connection::connect(&self.inner.config, &self.inner.list_changed).await?,
                );
                *slot = Some(Arc::clone(&connection));
                // A new process (or a server restarted behind its URL) may list other tools.
                self.inner
                    .list_changed
                    .send_modify(|generation| *generation += 1);
                Ok(connection)
            }
        }
    }

    /// The error for a connection that broke during a request; it is forgotten, so the next
    /// call reconnects.
    async fn lost(&self, connection: &Arc<Connection>) -> McpClientError {
        {
            let mut slot = self.inner.connection.lock().await;
            if slot
                .as_ref()
                .is_some_and(|current| Arc::ptr_eq(current, connection))
            {
                *slot = None;
            }
        }
        connection.gone(&self.inner.config.name).await
    }

    /// Calls the server's tool `remote` with `arguments`, forwarding progress and
    /// cancellation, and answering the server's questions through the calling session: while
    /// the call waits (2025-11-25, through the connection's handler), or round after round of
    /// `input_required` results (2026-07-28), at most [`MAX_ROUNDS`].
    async fn call(
        &self,
        remote: &str,
        arguments: Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let server = &self.inner.config.name;
        let connection = self.live().await.map_err(ToolError::from_error)?;
        let asker = Arc::new(questions::Asker::of(ctx, server));
        // However this call ends, a question the server asked for it is withdrawn then.
        let _ending = asker.ending();
        let mut params = CallToolRequestParams::new(remote.to_owned()).with_arguments(arguments);
        // Up to MAX_ROUNDS rounds of answers, each sent: the call is sent once more than
        // that, and a server still asking then is given up on before our user is asked again.
        let mut state_only_rounds = 0;
        for round in 0..=MAX_ROUNDS {
            let response = self.send_round(&connection, &params, &asker, ctx).await?;
            let asked = match response {
                Ok(ServerResult::CallToolResult(result)) => return tool::output(result),
                Ok(ServerResult::InputRequiredResult(_)) if round == MAX_ROUNDS => break,
                Ok(ServerResult::InputRequiredResult(asked)) => asked,
                Ok(_) => {
                    return Err(ToolError::failed(format!(
                        "MCP server `{server}` answered `tools/call` with something that is not a tool result"
                    )));
                }
                Err(ServiceError::McpError(error)) => {
                    return Err(ToolError::failed(format!(
                        "MCP server `{server}` refused the call to `{remote}`: {}",
                        error.message
                    )));
                }
                Err(ServiceError::TransportClosed | ServiceError::TransportSend(_)) => {
                    return Err(ToolError::from_error(self.lost(&connection).await));
                }
                Err(error) => {
                    return Err(ToolError::failed(format!(
                        "MCP server `{server}` failed the call to `{remote}`: {error}"
                    )));
                }
            };
            // A round that asks nothing (a request state alone) says "come back later": sent
            // again after a pause that grows, as rmcp's own client does, not at once.
            if asked
                .input_requests
                .as_ref()
                .is_none_or(|requests| requests.is_empty())
            {
                let pause = state_only_pause(state_only_rounds);
                state_only_rounds += 1;
                tokio::select! {
                    biased;
                    () = ctx.cancellation().cancelled() => return Err(ToolError::Cancelled),
                    () = tokio::time::sleep(pause) => {}
                }
            } else {
                state_only_rounds = 0;
            }
            // Answered one at a time, in the server's order: a person answers one form at a
            // time.
            let requests = asked.input_requests.unwrap_or_default();
            if requests.len() > MAX_REQUESTS_PER_ROUND {
                return Err(ToolError::failed(format!(
                    "MCP server `{server}`'s tool `{remote}` asked for {} answers at once; at most {MAX_REQUESTS_PER_ROUND} are put to this session in one round, so none was asked and the call was given up",
                    requests.len()
                )));
            }
            let mut responses = InputResponses::new();
            let mut user_cancelled = false;
            for (key, request) in requests {
                let request = serde_json::to_value(&request).unwrap_or_default();
                let is_form = request["method"] == "elicitation/create";
                if user_cancelled && is_form {
                    // The user dismissed a form of this round: the others are dismissed with
                    // it rather than put in front of them one after another.
                    responses.insert(key, serde_json::json!({"action": "cancel"}));
                    continue;
                }
                let answered = tokio::select! {
                    biased;
                    () = ctx.cancellation().cancelled() => return Err(ToolError::Cancelled),
                    answered = asker.answer(&request) => answered,
                };
                match answered {
                    Ok(response) => {
                        user_cancelled |= is_form && response["action"] == "cancel";
                        responses.insert(key, response);
                    }
                    Err(reason) => {
                        if let Some(pending) = asker.take_pending() {
                            return Err(pending);
                        }
                        return Err(ToolError::failed(format!(
                            "MCP server `{server}`'s tool `{remote}` asked for input ({}) that this session could not give: {reason}",
                            request["method"].as_str().unwrap_or("a request")
                        )));
                    }
                }
            }
            params.input_responses = (!responses.is_empty()).then_some(responses);
            params.request_state = asked.request_state;
        }
        Err(ToolError::failed(format!(
            "MCP server `{server}`'s tool `{remote}` still asked for input after {MAX_ROUNDS} rounds (of answers, or of waiting when it asked for nothing), so the call was given up"
        )))
    }

    /// Sends one round of a `tools/call` and waits for its response, routing the call's
    /// progress and questions to it meanwhile. `Err` is the call's end: cancelled, stopped
    /// for a question our own client answers on our next run, or the connection lost.
    async fn send_round(
        &self,
        connection: &Arc<Connection>,
        params: &CallToolRequestParams,
        asker: &Arc<questions::Asker>,
        ctx: &ToolContext,
    ) -> Result<Result<ServerResult, ServiceError>, ToolError> {
        let peer = connection.service.peer().clone();
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params.clone()));
        // Registered before sending: the server may ask before the send returns.
        let registered = connection.asks.register(Arc::clone(asker));
        let handle = match peer
            .send_cancellable_request(request, PeerRequestOptions::no_options())
            .await
        {
            Ok(handle) => handle,
            Err(_) => return Err(ToolError::from_error(self.lost(connection).await)),
        };
        let token = handle.progress_token.clone();
        registered.tie(handle.id.clone());
        connection.routes.register(token.clone(), ctx.progress());
        // Unregistered however the call ends: answered, cancelled, or dropped by a timeout.
        let routed = Routed {
            routes: Arc::clone(&connection.routes),
            token,
        };
        let mut cancel = CancelOnDrop {
            peer: Some(peer),
            id: handle.id.clone(),
        };
        let response = tokio::select! {
            response = handle.await_response() => response,
            () = ctx.cancellation().cancelled() => {
                cancel.send_now().await;
                return Err(ToolError::Cancelled);
            }
            () = asker.stopped().cancelled() => {
                cancel.send_now().await;
                return Err(asker.take_pending().unwrap_or(ToolError::Cancelled));
            }
        };
        cancel.peer = None;
        // rmcp delivers notifications on tasks of their own, started before the response
        // arrived: let those of this call land before its progress stops being routed.
        tokio::task::yield_now().await;
        drop(routed);
        drop(registered);
        Ok(response)
    }
}

/// How many requests one `input_required` round may carry: a server asking for more at once
/// is refused before our user is asked any (a person answers forms one by one).
const MAX_REQUESTS_PER_ROUND: usize = 16;

/// How many `input_required` rounds one call answers before giving up (rmcp's own default):
/// a server that keeps asking does not keep the call alive for ever.
const MAX_ROUNDS: usize = rmcp::model::DEFAULT_MRTR_MAX_ROUNDS;

/// The pause before sending a call again after its `state_only_rounds`-th round in a row
/// that asked for nothing: 50, 100, 200, then 250 ms (rmcp's client's schedule).
fn state_only_pause(state_only_rounds: u32) -> std::time::Duration {
    std::time::Duration::from_millis((50u64 << state_only_rounds.min(3)).min(250))
}

/// A call's progress route, removed when the call ends however it ends.
struct Routed {
    routes: Arc<connection::ProgressRoutes>,
    token: ProgressToken,
}

impl Drop for Routed {
    fn drop(&mut self) {
        self.routes.unregister(&self.token);
    }
}

/// Tells the server a request is abandoned when the call stops waiting for it without an
/// answer: explicitly on cancellation, from `Drop` when the call's future is dropped.
struct CancelOnDrop {
    /// `None` once there is nothing to cancel.
    peer: Option<Peer<RoleClient>>,
    id: RequestId,
}

impl CancelOnDrop {
    fn notification(&self) -> ClientNotification {
        ClientNotification::CancelledNotification(CancelledNotification::new(
            CancelledNotificationParam::new(
                Some(self.id.clone()),
                Some("the caller cancelled the tool call".to_owned()),
            ),
        ))
    }

    async fn send_now(&mut self) {
        let notification = self.notification();
        if let Some(peer) = self.peer.take() {
            let _ = peer.send_notification(notification).await;
        }
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let notification = self.notification();
        if let Some(peer) = self.peer.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(async move {
                let _ = peer.send_notification(notification).await;
            });
        }
    }
}

/// How often a follower lists a server's tools again when listing fails, and the first pause
/// between attempts (doubling after each).
const RESYNC_ATTEMPTS: u32 = 5;
const RESYNC_RETRY_FIRST: std::time::Duration = std::time::Duration::from_secs(1);

/// Which of a server's tools belong in the coordinator kept in sync.
type Keep = Arc<dyn Fn(&ToolSpec) -> bool + Send + Sync>;

/// The servers' tools, and the servers that could not be imported.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Imported {
    /// Every tool of every server that started.
    pub toolset: Toolset,
    /// The servers that started.
    pub clients: Vec<McpClient>,
    /// The servers that did not start or list their tools, each error naming the server.
    pub failures: Vec<McpClientError>,
}

impl Imported {
    /// Keeps `coordinator`'s tools from every imported server in step with that server's
    /// list ([`McpClient::keep_in_sync`]); `keep` says which tools belong (all: `|_| true`).
    ///
    /// ```no_run
    /// use tool_core::{Coordinator, Toolset, mcp::client::{self, McpConfig}};
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let imported = client::import(&McpConfig::load(".mcp.json")?).await;
    /// let coordinator = Coordinator::builder()
    ///     .toolset(Toolset::all().union(imported.toolset.clone())?)
    ///     .build()?;
    /// imported.keep_in_sync(&coordinator, |_| true).await;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn keep_in_sync(
        &self,
        coordinator: &Coordinator,
        keep: impl Fn(&ToolSpec) -> bool + Send + Sync + 'static,
    ) {
        let keep: Keep = Arc::new(keep);
        for client in &self.clients {
            client.follow(coordinator, Arc::clone(&keep));
        }
    }
}

/// Starts (or reaches) every server of `config` and imports its tools. A server that fails is
/// reported in [`Imported::failures`] and does not stop the others.
pub async fn import(config: &McpConfig) -> Imported {
    let mut imported = Imported::default();
    let mut taken = HashSet::new();
    for server in &config.servers {
        let client = match McpClient::connect(server.clone()).await {
            Ok(client) => client,
            Err(error) => {
                imported.failures.push(error);
                continue;
            }
        };
        match client.tools_naming(&mut taken).await {
            Ok(tools) => {
                for tool in tools {
                    // Names are unique by construction (`taken`).
                    if let Err(error) = imported.toolset.add(tool) {
                        imported.failures.push(McpClientError::Request {
                            server: server.name.clone(),
                            action: "provide a usable tool".to_owned(),
                            reason: error.to_string(),
                        });
                    }
                }
                imported.clients.push(client);
            }
            Err(error) => imported.failures.push(error),
        }
    }
    imported
}

/// The longest name any provider accepts.
const MAX_NAME: usize = 64;

/// `mcp__<server>__<tool>`, each part normalized as Claude Code does, made unique among
/// `taken` and fitted to 64 characters with a hash suffix (see the module docs).
///
/// ```
/// # use std::collections::HashSet;
/// use tool_core::mcp::client::tool_name;
///
/// let mut taken = HashSet::new();
/// assert_eq!(tool_name("my files", "read.file", &mut taken), "mcp__my_files__read_file");
/// // Another tool normalized to the same name gets a hash suffix.
/// let second = tool_name("my files", "read file", &mut taken);
/// assert!(second.starts_with("mcp__my_files__read_file_") && second.len() == 33, "{second}");
/// ```
pub fn tool_name(server: &str, tool: &str, taken: &mut HashSet<String>) -> String {
    let plain = format!("mcp__{}__{}", normalize(server), normalize(tool));
    let name = if plain.len() <= MAX_NAME && !taken.contains(&plain) {
        plain
    } else {
        let hash = fnv1a(format!("{server}\0{tool}").as_bytes());
        let keep: String = plain.chars().take(MAX_NAME - 9).collect();
        let mut name = format!("{keep}_{hash:08x}");
        // A second collision (of hashes) is not worth a scheme of its own: count up.
        let mut salt = 0_u32;
        while taken.contains(&name) {
            salt += 1;
            let hash = fnv1a(format!("{server}\0{tool}\0{salt}").as_bytes());
            name = format!("{keep}_{hash:08x}");
        }
        name
    };
    taken.insert(name.clone());
    name
}

/// Every character outside `[a-zA-Z0-9_-]` replaced by `_` (Claude Code's
/// `normalizeNameForMCP`).
pub(super) fn normalize(part: &str) -> String {
    part.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// FNV-1a, 32 bits: a stable hash for name suffixes (std's hasher is not stable across runs).
fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5_u32, |hash, byte| {
        (hash ^ u32::from(*byte)).wrapping_mul(0x0100_0193)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_claude_codes_with_replaced_characters() {
        let mut taken = HashSet::new();
        assert_eq!(
            tool_name("github", "create_issue", &mut taken),
            "mcp__github__create_issue"
        );
        assert_eq!(
            tool_name("my.server", "list files", &mut taken),
            "mcp__my_server__list_files"
        );
    }

    #[test]
    fn an_over_long_name_is_cut_to_64_with_a_stable_hash() {
        let long = "synchronize-all-customer-data-across-multiple-systems";
        let first = tool_name("enterprise-database", long, &mut HashSet::new());
        let again = tool_name("enterprise-database", long, &mut HashSet::new());
        assert_eq!(first.len(), 64);
        assert_eq!(first, again);
        assert!(
            first.starts_with("mcp__enterprise-database__synchronize"),
            "{first}"
        );
        assert!(crate::spec::is_valid_tool_name(&first));
    }

    #[test]
    fn a_taken_name_gets_a_hash_suffix() {
        let mut taken = HashSet::new();
        let first = tool_name("s", "a.b", &mut taken);
        let second = tool_name("s", "a b", &mut taken);
        assert_eq!(first, "mcp__s__a_b");
        assert_ne!(first, second);
        assert!(second.starts_with("mcp__s__a_b_"), "{second}");
    }
}
