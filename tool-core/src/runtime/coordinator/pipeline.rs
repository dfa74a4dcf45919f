//! One call, top to bottom: [`Coordinator::call`](super::Coordinator::call) and
//! [`call_with`](super::Coordinator::call_with) run [`stage`](super::Coordinator::stage)
//! then [`run`](super::Coordinator::run), and those call the stages in this order, each in
//! one place:
//!
//! 1. **look up** the tool (`prepare.rs`): an unknown name answers with the closest names;
//! 2. **prepare** (`prepare.rs`): parse and validate the arguments, with the workspace in
//!    scope so `WorkspacePath` arguments arrive resolved;
//! 3. **classify** (`prepare.rs`): the call's effect (per call for `read_only_if` tools), its
//!    command arguments analysed, every path resolved against the workspace boundary;
//! 4. **authorize** (`authorize.rs`), in Claude Code's order: PreToolUse hooks for every call
//!    (they may stop it, change the input, which is then validated and classified again, ask
//!    or allow); the [`Policy`](crate::policy::Policy) decides from a snapshot of the session;
//!    the budget is charged; an ask goes to PermissionRequest hooks, then to the
//!    [`Approver`](crate::approval::Approver), after whose wait the paths are confined again and
//!    the call decided again;
//! 5. **run** (`context.rs` opens the call's context): the middleware chain (built once, at
//!    `build()`), which ends in the one place a tool's code is called, beside the `Tool`
//!    trait, its panics caught;
//! 6. **after** (`authorize.rs`): PostToolUse / PostToolUseFailure hooks (PermissionDenied
//!    hooks instead, for a call the policy denied);
//! 7. **finish** (here): the event sink hears the call ended, and the result is the answer.
//!
//! A hook's `permissionDecision` (Claude Code's protocol) may settle whether to ask at all, but
//! never overrides a deny from safety or the user's deny rules, nor an ask rule.
//!
//! Every failure is a [`ToolResult`] the model can read; nothing a tool does can crash the
//! coordinator.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Instant;

use super::authorize;
use super::{CallScope, Coordinator};
use crate::definition::context::CancellationToken;
use crate::definition::spec::Effect;
use crate::definition::tool::{Prepared, ToolHandle};
use crate::definition::workspace::ResolvedPath;
use crate::runtime::events::{CallEvent, EventSink};
use crate::runtime::middleware::{Downstream, Invocation};
use crate::runtime::policy::shell::CommandLine;
use crate::{ToolCall, ToolError, ToolResult};

/// `future`'s output, or `None` if `token` is cancelled first (or already). Most calls are
/// authorized without waiting: only a future that is still pending registers with the token,
/// which takes its lock twice, so a call that does not wait pays one atomic load.
async fn unless_cancelled<F: std::future::Future>(
    token: &CancellationToken,
    mut future: std::pin::Pin<&mut F>,
) -> Option<F::Output> {
    let mut cancelled = None;
    std::future::poll_fn(|cx| {
        if token.is_cancelled() {
            return std::task::Poll::Ready(None);
        }
        if let std::task::Poll::Ready(output) = future.as_mut().poll(cx) {
            return std::task::Poll::Ready(Some(output));
        }
        let waiting = cancelled.get_or_insert_with(|| Box::pin(token.cancelled()));
        match waiting.as_mut().poll(cx) {
            std::task::Poll::Ready(()) => std::task::Poll::Ready(None),
            std::task::Poll::Pending => std::task::Poll::Pending,
        }
    })
    .await
}

/// Sends a call's `Finished` event (as cancelled) if the call's future is dropped before the
/// call ends; disarmed when it ends. Nothing at all without an event sink.
struct Unfinished(Option<Armed>);

struct Armed {
    events: Arc<dyn EventSink>,
    call_id: String,
    tool: Cow<'static, str>,
    started: Instant,
}

impl Unfinished {
    fn arm(coordinator: &Coordinator, staged: &Staged, started: Instant) -> Self {
        Unfinished(coordinator.inner.events.as_ref().map(|events| Armed {
            events: Arc::clone(events),
            call_id: staged.call_id.clone(),
            tool: staged.tool.spec().name.clone(),
            started,
        }))
    }

    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for Unfinished {
    fn drop(&mut self) {
        if let Some(armed) = self.0.take() {
            armed.events.send(CallEvent::Finished {
                call_id: armed.call_id,
                tool: armed.tool,
                is_error: true,
                error_kind: Some(ToolError::Cancelled.kind()),
                elapsed: armed.started.elapsed(),
            });
        }
    }
}

/// A call after lookup and preparation: everything later stages need.
pub(crate) struct Staged {
    pub(crate) call_id: String,
    pub(crate) tool: ToolHandle,
    pub(crate) arguments: String,
    pub(crate) depth: u32,
    pub(crate) prepared: Prepared,
    pub(crate) effect: Effect,
    /// Each command argument, analysed (in the order of the command resources).
    pub(crate) commands: Vec<CommandLine>,
    pub(crate) paths: Vec<ResolvedPath>,
    /// The calling tool's token, for a nested call: cancelling it cancels this call.
    pub(crate) parent_cancellation: Option<CancellationToken>,
    /// The calling tool's deadline, for a nested call: this call's is no later.
    pub(crate) parent_deadline: Option<Instant>,
    /// The call's own progress sink and approver ([`CallOptions`]), handed on to its nested
    /// calls.
    pub(crate) scope: CallScope,
}

impl Coordinator {
    /// Stages 1 to 3: looks the tool up, prepares and classifies the call. A failure is the
    /// call's result.
    #[expect(
        clippy::result_large_err,
        reason = "the failure is the call's answer, moved once to the caller"
    )]
    pub(crate) fn stage(&self, call: ToolCall, started: Instant) -> Result<Staged, ToolResult> {
        let ToolCall {
            call_id,
            name,
            arguments,
            depth,
            // The provider's data is for the reply the caller formats, not for running the call.
            provider_data: _,
        } = call;
        if let Some(events) = &self.inner.events {
            events.send(CallEvent::Requested {
                call_id: call_id.clone(),
                tool: name.clone(),
            });
        }
        let tool = match self.lookup(&name) {
            Ok(tool) => tool,
            Err(error) => {
                return Err(self.finish(ToolResult::failure(call_id, error), name.into(), started));
            }
        };
        let prepared = match self.prepare(&tool, &arguments) {
            Ok(prepared) => prepared,
            Err(error) => {
                let name = tool.spec().name.clone();
                return Err(self.finish(ToolResult::failure(call_id, error), name, started));
            }
        };
        let (effect, commands, paths) = self.classify(&tool, &prepared);
        Ok(Staged {
            call_id,
            tool,
            arguments,
            depth,
            prepared,
            effect,
            commands,
            paths,
            parent_cancellation: None,
            parent_deadline: None,
            scope: CallScope::default(),
        })
    }

    /// Stages 4 to 7 of a staged call: authorize, run through the middleware chain to the
    /// tool, the hooks after it, finish. `batch_abort` is cancelled when the user aborts.
    pub(crate) async fn run(
        &self,
        mut staged: Staged,
        started: Instant,
        batch_abort: Option<&CancellationToken>,
    ) -> ToolResult {
        // Should this future be dropped before the call ends (the caller gave up, a batch was
        // dropped), the event sink still hears that the call finished, as cancelled.
        let unfinished = Unfinished::arm(self, &staged, started);
        let snapshot = self.snapshot();
        // A call cancelled while it waits to be authorized (on a PreToolUse hook, a
        // PermissionRequest hook, the approver) ends there: the wait is dropped, which kills a
        // hook's processes, and the tool never runs.
        let cancelled = staged
            .parent_cancellation
            .clone()
            .unwrap_or_else(|| self.inner.shared.cancellation.clone());
        let authorized = {
            let authorizing = std::pin::pin!(self.authorize(&mut staged, &snapshot, batch_abort));
            unless_cancelled(&cancelled, authorizing)
                .await
                .unwrap_or_else(|| Err(authorize::Refusal::from(ToolError::Cancelled)))
        };
        let context = match authorized {
            Ok(context) => context,
            Err(mut refusal) => {
                if let Some(reason) = refusal.permission_denied.take()
                    && !self.inner.hooks.is_empty()
                {
                    // Boxed, as every hook stage is: see `after_hooks` below.
                    Box::pin(self.permission_denied_hooks(
                        &staged,
                        &reason,
                        snapshot.mode,
                        &mut refusal,
                    ))
                    .await;
                }
                unfinished.disarm();
                let name = staged.tool.spec().name.clone();
                let mut result = ToolResult::failure(staged.call_id, refusal.error);
                result.stop = refusal.stop;
                return self.finish(result, name, started);
            }
        };

        let Staged {
            call_id,
            tool,
            arguments,
            depth,
            prepared,
            effect,
            commands: _,
            paths: _,
            parent_cancellation,
            parent_deadline,
            scope,
        } = staged;
        let mut ctx = self
            .open(call_id, &tool, depth, parent_cancellation)
            .with_deadline(self.deadline(&tool, parent_deadline));
        scope.attach(&mut ctx);
        let invocation = Invocation {
            spec: tool.spec(),
            effect,
            mode: snapshot.mode,
            ctx: &ctx,
        };
        // Cancelled between its authorization and now: the tool is not started at all.
        let outcome = if ctx.is_cancelled() {
            Err(ToolError::Cancelled)
        } else {
            Downstream::new(&self.inner.chain, &*tool, prepared, &invocation)
                .run()
                .await
        };
        let mut result = ToolResult::from_outcome(ctx.into_call().call_id, outcome);
        result.context.extend(context);

        if !self.inner.hooks.is_empty() {
            // Boxed: a coordinator without hooks never waits on them, and every call's future
            // (moved whole when its caller pins it) would otherwise carry their state.
            Box::pin(self.after_hooks(&tool, &arguments, &mut result, snapshot.mode)).await;
        }
        unfinished.disarm();
        self.finish(result, tool.spec().name.clone(), started)
    }

    /// Tells the event sink the call finished; returns its result.
    pub(crate) fn finish(
        &self,
        result: ToolResult,
        tool: Cow<'static, str>,
        started: Instant,
    ) -> ToolResult {
        if let Some(events) = &self.inner.events {
            events.send(CallEvent::Finished {
                call_id: result.call_id.clone(),
                tool,
                is_error: result.is_error(),
                error_kind: result.error().map(ToolError::kind),
                elapsed: started.elapsed(),
            });
        }
        result
    }
}
