//! What wraps every invocation: the [`Middleware`] chain, built once when the coordinator is
//! built, and [`Downstream`], through which the chain reaches the tool.
//!
//! A middleware runs after the call was authorized (policy, hooks, approval) and around the
//! tool itself: it can time it, change its output, refuse it or record it. The builder adds the
//! built-in ones itself (a timeout, the output limit with its [`Artifacts`] store, tracing
//! spans), each once, when asked for them; add your own with
//! [`CoordinatorBuilder::middleware`](crate::coordinator::CoordinatorBuilder::middleware).

mod artifacts;
mod output_limit;
mod spans;
mod timeout;

use std::sync::Arc;

use crate::definition::context::ToolContext;
use crate::definition::spec::{Effect, ToolSpec};
use crate::definition::tool::{Prepared, Tool};
use crate::runtime::policy::Mode;
use crate::{BoxFuture, ToolError, ToolOutput};

pub use artifacts::{Artifact, Artifacts};
pub(crate) use output_limit::OutputLimit;
pub(crate) use spans::CallSpans;
pub(crate) use timeout::Timeout;

/// The call a middleware wraps: the tool's spec, this call's effect, the mode it was decided
/// in, and its context (call id, cancellation, state).
#[derive(Debug)]
#[non_exhaustive]
pub struct Invocation<'a> {
    /// The tool's spec.
    pub spec: &'a ToolSpec,
    /// This call's effect.
    pub effect: Effect,
    /// The permission mode the call was authorized in.
    pub mode: Mode,
    /// The call's context.
    pub ctx: &'a ToolContext,
}

/// One link of the chain around every invocation.
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use tool_core::{tool, BoxFuture, Coordinator, ToolCall, ToolError, ToolOutput, Toolset};
/// use tool_core::middleware::{Downstream, Invocation, Middleware};
///
/// /// Counts the calls that fail.
/// struct CountFailures(Arc<AtomicUsize>);
///
/// impl Middleware for CountFailures {
///     fn handle<'a>(&'a self, _call: &'a Invocation<'a>, next: Downstream<'a>)
///         -> BoxFuture<'a, Result<ToolOutput, ToolError>>
///     {
///         Box::pin(async move {
///             let result = next.run().await;
///             if result.is_err() {
///                 self.0.fetch_add(1, Ordering::Relaxed);
///             }
///             result
///         })
///     }
/// }
///
/// /// Look for the answer.
/// #[tool(read_only, name = "doc_middleware_search")]
/// fn search() -> Result<String, ToolError> {
///     Err(ToolError::failed("nothing found"))
/// }
///
/// let failures = Arc::new(AtomicUsize::new(0));
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["doc_middleware_search"]).unwrap())
///     .middleware(CountFailures(Arc::clone(&failures)))
///     .build()
///     .unwrap();
/// coordinator.call_blocking(ToolCall::new("doc_middleware_search", "{}"));
/// assert_eq!(failures.load(Ordering::Relaxed), 1);
/// ```
pub trait Middleware: Send + Sync + 'static {
    /// Handles one invocation; `next.run()` runs the rest of the chain and the tool.
    fn handle<'a>(
        &'a self,
        call: &'a Invocation<'a>,
        next: Downstream<'a>,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>>;
}

/// The rest of the chain, then the tool.
#[must_use = "the tool runs only when `next.run()` is awaited"]
pub struct Downstream<'a> {
    rest: &'a [Arc<dyn Middleware>],
    tool: &'a dyn Tool,
    prepared: Prepared,
    call: &'a Invocation<'a>,
}

impl<'a> Downstream<'a> {
    pub(crate) fn new(
        chain: &'a [Arc<dyn Middleware>],
        tool: &'a dyn Tool,
        prepared: Prepared,
        call: &'a Invocation<'a>,
    ) -> Self {
        Downstream {
            rest: chain,
            tool,
            prepared,
            call,
        }
    }

    /// Runs the rest of the chain and the tool.
    pub async fn run(self) -> Result<ToolOutput, ToolError> {
        match self.rest.split_first() {
            Some((first, rest)) => {
                let call = self.call;
                first
                    .handle(
                        call,
                        Downstream {
                            rest,
                            tool: self.tool,
                            prepared: self.prepared,
                            call,
                        },
                    )
                    .await
            }
            // The chain's end: the tool itself.
            None => {
                crate::definition::tool::invoke_guarded(self.tool, self.prepared, self.call.ctx)
                    .await
            }
        }
    }
}
