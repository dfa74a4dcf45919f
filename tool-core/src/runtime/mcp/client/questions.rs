//! An imported tool's call answering its server's questions: a form for the user
//! (`elicitation/create`), a message from a model (`sampling/createMessage`) and the roots
//! (`roots/list`), whether the server sends them as requests while the call waits (2025-11-25)
//! or in an `input_required` result (2026-07-28). Each is answered by the **calling**
//! [`Session`] ([`Asker`]), so our user answers through our approver, and the calls in flight
//! on a connection are found for the requests that come to the client's handler
//! ([`AskRoutes`]).
//!
//! The client declares elicitation (form), sampling and roots on every connection, because
//! whether a question can be answered is known only per call: one connection carries the calls
//! of every coordinator and session the tools were put in, each with its own approver. A call
//! whose session cannot answer refuses the request with the reason (a JSON-RPC error whose
//! message says why), which a server's tool reads as the reason it got no answer; not declaring
//! would have every server refuse itself before asking, for every caller.
//!
//! Roots are our side's workspace roots (the boundary our own tools keep to), as `file://`
//! URIs; a call without a workspace asks the session's approver for its client's roots.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{ElicitRequestParams, ElicitResult, RequestId};
use rmcp::service::{InboundStreamOrigin, RequestContext};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::super::elicit;
use crate::ToolError;
use crate::context::ToolContext;
use crate::coordinator::Session;
use crate::definition::context::FromContext;
use crate::runtime::approval::Root;

/// How long a request tied to a call waits for that call to be registered: the call registers
/// its request id just after sending, and the server may ask before that.
const TIE_WAIT: Duration = Duration::from_secs(5);

/// Answers one call's questions through the session that called the imported tool.
pub(super) struct Asker {
    /// The imported tool's name, for messages.
    tool: String,
    /// The name its server was imported under: what elicitation hooks match.
    server: String,
    /// The calling session; `Err` says why there is none (a call outside a coordinator).
    session: Result<Session, String>,
    /// The call's workspace, whose roots answer `roots/list` (made into MCP roots only when a
    /// server asks, which few do).
    workspace: Option<crate::Workspace>,
    /// Set when our own client's answer comes with our call's next run (our session is served
    /// at 2026-07-28): the call stops and returns this pending error.
    pending: Mutex<Option<ToolError>>,
    /// Fires with `pending`.
    stop: CancellationToken,
    /// Fires when the call has ended, however it ended: a question still being asked for it
    /// is withdrawn.
    ended: CancellationToken,
}

impl Asker {
    /// The asker of the call running in `ctx`, a tool of server `server`.
    pub(super) fn of(ctx: &ToolContext, server: &str) -> Self {
        let tool = ctx.call().tool.to_string();
        let session = Session::from_context(ctx).map_err(|error| error.to_string());
        let workspace = ctx.workspace().cloned();
        Asker {
            tool,
            server: server.to_owned(),
            session,
            workspace,
            pending: Mutex::new(None),
            stop: CancellationToken::new(),
            ended: CancellationToken::new(),
        }
    }

    /// Cancelled when the call has ended; the call holds [`ending`](Self::ending)'s guard.
    pub(super) fn ended(&self) -> &CancellationToken {
        &self.ended
    }

    /// A guard that marks the call ended when dropped (answered, failed, cancelled, dropped
    /// by a timeout, or panicked).
    pub(super) fn ending(&self) -> tokio_util::sync::DropGuard {
        self.ended.clone().drop_guard()
    }

    /// Cancelled when the call must stop and return [`take_pending`](Self::take_pending).
    pub(super) fn stopped(&self) -> &CancellationToken {
        &self.stop
    }

    /// The pending error that stopped the call.
    pub(super) fn take_pending(&self) -> Option<ToolError> {
        self.pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    fn session(&self) -> Result<&Session, String> {
        self.session.as_ref().map_err(Clone::clone)
    }

    /// The reason a request got no answer, from our session's error. A pending one stops the
    /// call (see [`pending`](Self::pending)).
    fn refusal(&self, error: ToolError) -> String {
        if error.is_pending() {
            *self.pending.lock().unwrap_or_else(PoisonError::into_inner) = Some(error);
            self.stop.cancel();
            return format!(
                "`{}`'s caller asks its own client, whose answer comes with the call's next run: this call is abandoned and made again then",
                self.tool
            );
        }
        error.to_string()
    }

    /// Our user's answer to the server's form, with our session's elicitation hooks around
    /// it.
    pub(super) async fn elicit(
        &self,
        params: &ElicitRequestParams,
    ) -> Result<ElicitResult, String> {
        let question = elicit::to_question(params)
            .map_err(|problem| format!("the question cannot be asked: {problem}"))?;
        let answer = self
            .session()?
            .elicit_for_server(&self.server, question)
            .await
            .map_err(|error| self.refusal(error))?;
        Ok(elicit::elicit_result(&answer))
    }

    /// A message from our session's model (its approver speaks for it), as a
    /// `CreateMessageResult`.
    pub(super) async fn sample(&self, params: &Value) -> Result<Value, String> {
        let request = elicit::to_sampling_request(params)?;
        let sampled = self
            .session()?
            .sample(request)
            .await
            .map_err(|error| self.refusal(error))?;
        Ok(elicit::sampled_result(&sampled))
    }

    /// Our roots, as a `ListRootsResult`: the call's workspace roots, else the session's.
    pub(super) async fn roots(&self) -> Result<Value, String> {
        if let Some(workspace) = &self.workspace {
            let roots: Vec<Root> = workspace
                .roots()
                .iter()
                .map(|root| Root::directory(root))
                .collect();
            return Ok(elicit::roots_result(&roots));
        }
        let roots = self
            .session()?
            .roots()
            .await
            .map_err(|error| self.refusal(error))?;
        Ok(elicit::roots_result(&roots))
    }

    /// The answer to one request of an `input_required` result (`{"method", "params"}`), as
    /// the result the retry carries.
    pub(super) async fn answer(&self, request: &Value) -> Result<Value, String> {
        let params = &request["params"];
        match request["method"].as_str() {
            Some("elicitation/create") => {
                let params: ElicitRequestParams = serde_json::from_value(params.clone())
                    .map_err(|error| format!("the question is malformed ({error})"))?;
                let result = self.elicit(&params).await?;
                serde_json::to_value(result).map_err(|error| error.to_string())
            }
            Some("sampling/createMessage") => self.sample(params).await,
            Some("roots/list") => self.roots().await,
            other => Err(format!(
                "the server asked for `{}`, which is not a request a client answers (elicitation/create, sampling/createMessage, roots/list)",
                other.unwrap_or("(no method)")
            )),
        }
    }
}

/// The calls in flight on one connection, for the server's requests to find theirs.
///
/// A request is tied to a call by the stream it came on: streamable HTTP sends a call's
/// requests on that call's response stream, and rmcp marks them with the call's request id.
/// The protocol has no field naming the call (a progress token in a request's `_meta` is the
/// server's own, for that request), so over stdio a request is the only call's in flight;
/// when several are in flight it is refused, saying that it cannot be told whose it is
/// (answering it in the wrong call's name would show one call's user another call's
/// question).
#[derive(Default)]
pub(super) struct AskRoutes {
    calls: Mutex<Vec<Route>>,
    registered: tokio::sync::Notify,
    serial: std::sync::atomic::AtomicU64,
}

struct Route {
    serial: u64,
    id: Option<RequestId>,
    asker: Arc<Asker>,
}

/// A call's place among the routes, removed when dropped (however the call ends).
pub(super) struct Registered {
    routes: Arc<AskRoutes>,
    serial: u64,
}

impl Registered {
    /// Ties the call to its request, once sent.
    pub(super) fn tie(&self, id: RequestId) {
        let mut calls = self.routes.lock();
        if let Some(route) = calls.iter_mut().find(|route| route.serial == self.serial) {
            route.id = Some(id);
        }
        drop(calls);
        self.routes.registered.notify_waiters();
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.routes
            .lock()
            .retain(|route| route.serial != self.serial);
        // A request waiting for an untied call to be tied learns that this one never will be.
        self.routes.registered.notify_waiters();
    }
}

impl AskRoutes {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Route>> {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers a call about to be sent.
    pub(super) fn register(self: &Arc<Self>, asker: Arc<Asker>) -> Registered {
        let serial = self
            .serial
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.lock().push(Route {
            serial,
            id: None,
            asker,
        });
        Registered {
            routes: Arc::clone(self),
            serial,
        }
    }

    /// The asker of the call a server's request belongs to, or why none can answer it.
    ///
    /// A request that came on a call's own HTTP response stream belongs to that call. Any
    /// other (every request over stdio; over HTTP, one on the standalone GET stream, where
    /// some servers send what a tool asks while it runs) goes to the only call in flight on the
    /// connection, and is refused when there are several: it could be put to the wrong user.
    pub(super) async fn route(
        &self,
        context: &RequestContext<RoleClient>,
    ) -> Result<Arc<Asker>, String> {
        let id = match context.extensions.get::<InboundStreamOrigin>() {
            Some(InboundStreamOrigin::OutboundRequest(id)) => Some(id.clone()),
            _ => None,
        };
        self.route_tied(id).await
    }

    /// [`route`](Self::route) for a request tied to the call `id` (`None`: to no call),
    /// waiting up to [`TIE_WAIT`] for a call being sent to be tied.
    async fn route_tied(&self, id: Option<RequestId>) -> Result<Arc<Asker>, String> {
        let deadline = tokio::time::Instant::now() + TIE_WAIT;
        loop {
            let registered = self.registered.notified();
            tokio::pin!(registered);
            registered.as_mut().enable();
            match self.find(id.as_ref()) {
                Found::Call(asker) => return Ok(asker),
                Found::Nobody(reason) => return Err(reason),
                Found::NotYet => {}
            }
            if tokio::time::timeout_at(deadline, registered).await.is_err() {
                return Err(
                    "the request names a call of this client that is not (or no longer) in flight"
                        .to_owned(),
                );
            }
        }
    }

    fn find(&self, id: Option<&RequestId>) -> Found {
        let calls = self.lock();
        if let Some(id) = id {
            if let Some(route) = calls.iter().find(|route| route.id.as_ref() == Some(id)) {
                return Found::Call(Arc::clone(&route.asker));
            }
            // Named, but not registered: the call may be just being sent.
            return if calls.iter().any(|route| route.id.is_none()) {
                Found::NotYet
            } else {
                Found::Nobody(
                    "the request names a call of this client that is not (or no longer) in flight"
                        .to_owned(),
                )
            };
        }
        match calls.as_slice() {
            [only] => Found::Call(Arc::clone(&only.asker)),
            [] => Found::Nobody(
                "no tool call of this client is in flight, so nobody can be asked".to_owned(),
            ),
            several => Found::Nobody(format!(
                "{} tool calls of this client are in flight and the request does not say which one asks (over stdio nothing can; over streamable HTTP only a request sent on the call's own response stream does, and this one came on another), so it cannot be put to the right user",
                several.len()
            )),
        }
    }
}

enum Found {
    Call(Arc<Asker>),
    NotYet,
    Nobody(String),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::CallInfo;

    fn asker(tool: &'static str) -> Arc<Asker> {
        Arc::new(Asker::of(
            &ToolContext::detached(CallInfo::new("c", tool, 0)),
            "fx",
        ))
    }

    fn routed_to(found: Found) -> Result<String, String> {
        match found {
            Found::Call(asker) => Ok(asker.tool.clone()),
            Found::NotYet => Err("not yet".to_owned()),
            Found::Nobody(reason) => Err(reason),
        }
    }

    #[test]
    fn a_request_naming_no_call_is_the_only_calls_and_refused_among_several() {
        let routes = Arc::new(AskRoutes::default());
        assert!(
            routed_to(routes.find(None))
                .unwrap_err()
                .contains("no tool call")
        );
        let first = routes.register(asker("first"));
        assert_eq!(routed_to(routes.find(None)).unwrap(), "first");
        let second = routes.register(asker("second"));
        let refused = routed_to(routes.find(None)).unwrap_err();
        assert!(refused.contains("2 tool calls"), "{refused}");
        drop(first);
        assert_eq!(routed_to(routes.find(None)).unwrap(), "second");
        drop(second);
    }

    #[test]
    fn a_request_naming_its_call_goes_to_it_and_waits_for_a_call_being_sent() {
        let routes = Arc::new(AskRoutes::default());
        let first = routes.register(asker("first"));
        first.tie(RequestId::Number(1));
        let second = routes.register(asker("second"));
        // The second call is still being sent: a request naming id 2 may be its.
        assert_eq!(
            routed_to(routes.find(Some(&RequestId::Number(2)))).unwrap_err(),
            "not yet"
        );
        second.tie(RequestId::Number(2));
        assert_eq!(
            routed_to(routes.find(Some(&RequestId::Number(2)))).unwrap(),
            "second"
        );
        assert_eq!(
            routed_to(routes.find(Some(&RequestId::Number(1)))).unwrap(),
            "first"
        );
        let gone = routed_to(routes.find(Some(&RequestId::Number(3)))).unwrap_err();
        assert!(gone.contains("not (or no longer) in flight"), "{gone}");
    }

    #[tokio::test]
    async fn a_request_waiting_for_a_call_being_sent_is_refused_at_once_when_the_send_fails() {
        let routes = Arc::new(AskRoutes::default());
        let being_sent = routes.register(asker("first"));
        let waiting = {
            let routes = Arc::clone(&routes);
            tokio::spawn(async move { routes.route_tied(Some(RequestId::Number(7))).await })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        let started = tokio::time::Instant::now();
        // The send failed: the call is gone without ever being tied.
        drop(being_sent);
        let refused = match waiting.await.unwrap() {
            Ok(_) => panic!("routed to a call that never was tied"),
            Err(reason) => reason,
        };
        assert!(
            refused.contains("not (or no longer) in flight"),
            "{refused}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "refused only after {:?}",
            started.elapsed()
        );
    }

    #[tokio::test]
    async fn a_call_outside_a_coordinator_refuses_saying_why() {
        let asker = asker("t");
        let refused = asker.roots().await.unwrap_err();
        assert!(refused.contains("Coordinator"), "{refused}");
    }
}
