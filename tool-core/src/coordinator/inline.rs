//! The common call, run without a future of its own: [`CallFuture`].
//!
//! Most calls are of a synchronous tool (a `#[tool]` on a plain `fn`), allowed by the policy
//! outright, in a coordinator with no hooks and no middleware. For those, the future
//! [`Coordinator::call`] returns runs the whole call as an ordinary function on its first
//! poll: there is no async state to build, move and drop. Every other call goes on, boxed,
//! through the staged async path (`run_staged`): authorize, middleware, hooks.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use super::{Coordinator, Staged};
use crate::middleware::Started;
use crate::{BoxFuture, ToolCall, ToolError, ToolResult};

/// The future of [`Coordinator::call`]. Lazy like any future: nothing happens until it is
/// polled.
#[must_use = "a call does nothing unless awaited"]
pub struct CallFuture<'c> {
    state: State<'c>,
}

enum State<'c> {
    Start {
        coordinator: &'c Coordinator,
        call: ToolCall,
    },
    Running(BoxFuture<'c, ToolResult>),
    Finished,
}

/// How far the synchronous part got.
enum Begun {
    /// The call is over.
    Done(ToolResult),
    /// The call needs the async path.
    Later(Staged, Option<Instant>),
}

impl<'c> CallFuture<'c> {
    pub(super) fn new(coordinator: &'c Coordinator, call: ToolCall) -> Self {
        CallFuture {
            state: State::Start { coordinator, call },
        }
    }
}

impl Future for CallFuture<'_> {
    type Output = ToolResult;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        let this = self.get_mut();
        match std::mem::replace(&mut this.state, State::Finished) {
            State::Start { coordinator, call } => match coordinator.begin(call) {
                Begun::Done(result) => Poll::Ready(result),
                Begun::Later(staged, started) => {
                    let mut running = Box::pin(coordinator.run_staged(staged, started, None));
                    let poll = running.as_mut().poll(cx);
                    if poll.is_pending() {
                        this.state = State::Running(running);
                    }
                    poll
                }
            },
            State::Running(mut running) => {
                let poll = running.as_mut().poll(cx);
                if poll.is_pending() {
                    this.state = State::Running(running);
                }
                poll
            }
            State::Finished => Poll::Ready(ToolResult::failure(
                String::new(),
                ToolError::failed("internal error: a finished call was polled again"),
            )),
        }
    }
}

impl std::fmt::Debug for CallFuture<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.state {
            State::Start { .. } => "CallFuture::Start",
            State::Running(_) => "CallFuture::Running",
            State::Finished => "CallFuture::Finished",
        })
    }
}

impl Coordinator {
    /// Runs a call to its end if nothing in it waits; otherwise hands it on, staged.
    fn begin(&self, call: ToolCall) -> Begun {
        let started = self.inner.events.as_ref().map(|_| Instant::now());
        let staged = match self.stage(call) {
            Ok(staged) => staged,
            Err(result) => return Begun::Done(*result),
        };
        if !staged.tool.spec().synchronous
            || !self.inner.hooks.is_empty()
            || !self.inner.chain.is_empty()
        {
            return Begun::Later(staged, started);
        }
        let decision = self.decide(&staged, &self.session());
        if self.needs_authorizing(&decision) {
            return Begun::Later(staged, started);
        }
        self.decided(&staged, &decision);
        let ctx = self.open(staged.id, &staged.tool, staged.depth);
        let outcome = match crate::middleware::start(&*staged.tool, staged.prepared, &ctx) {
            Started::Done(outcome) => outcome,
            // Only a hand-written tool that declared itself synchronous and is not can get
            // here; its future borrows this frame and cannot be awaited later.
            Started::Running(_) => Err(ToolError::failed(format!(
                "internal error: `{}` is declared synchronous, but its invoke returned a future that is not ready",
                staged.tool.spec().name
            ))),
        };
        let result = ToolResult::from_outcome(ctx.into_call().id, outcome);
        self.finished(&result, staged.tool.spec().name.clone(), started);
        Begun::Done(result)
    }
}
