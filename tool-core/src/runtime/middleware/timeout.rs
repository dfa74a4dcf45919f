//! The call's time limit: a tool's `timeout_ms`, else the coordinator's default.

use std::time::Duration;

use super::{Downstream, Invocation, Middleware};
use crate::{BoxFuture, ToolError, ToolOutput};

/// Ends calls that run too long: the tool's own `timeout_ms`, else a default for every tool.
///
/// At the limit the call's cancellation token is cancelled (so a cooperative tool stops) and
/// the call ends with [`ToolError::TimedOut`]. A synchronous tool cannot be interrupted: it runs
/// to its end before the timer is looked at, so mark long synchronous tools `blocking` (they
/// run on the blocking pool, and the call ends at its limit while the thread finishes).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Timeout {
    default: Option<Duration>,
}

impl Timeout {
    /// Applies each tool's `timeout_ms`, and `default` to tools without one.
    pub(crate) fn new(default: Option<Duration>) -> Self {
        Timeout { default }
    }
}

impl Middleware for Timeout {
    fn handle<'a>(
        &'a self,
        call: &'a Invocation<'a>,
        next: Downstream<'a>,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let Some(limit) = call.spec.timeout.or(self.default) else {
                return next.run().await;
            };
            if let Ok(result) = tokio::time::timeout(limit, next.run()).await {
                result
            } else {
                call.ctx.cancellation().cancel();
                Err(ToolError::TimedOut { after: limit })
            }
        })
    }
}
