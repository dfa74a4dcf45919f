//! The [`Coordinator`]: runs a model's tool calls against a [`Toolset`].
//!
//! One call goes through fixed stages: look the tool up (an unknown name answers with the
//! closest names), prepare (parse, validate, classify, extract resources), authorize, invoke
//! (panics caught), and shape the result. Every failure is a [`ToolResult`] the model can read;
//! nothing a tool does can crash the coordinator.
//!
//! The authorize stage, marked in [`Coordinator::call`], is where the policy, approvals and
//! hooks attach; today every prepared call is allowed.

use std::sync::{Arc, OnceLock};

use tokio::runtime::{Handle, Runtime, RuntimeFlavor};

use crate::context::{ProgressSink, SharedContext};
use crate::panic::{Guarded, guard};
use crate::tool::{Prepared, ToolHandle};
use crate::{
    CallInfo, CancellationToken, ToolCall, ToolContext, ToolError, ToolOutput, ToolResult, Toolset,
    Workspace,
};

/// Runs tool calls. Cheap to clone; clones share everything.
///
/// ```
/// use tool_core::{tool, Coordinator, ToolCall, Toolset};
///
/// /// Add two integers.
/// #[tool(read_only, name = "doc_coordinator_add")]
/// fn add(a: i64, b: i64) -> i64 { a + b }
///
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["doc_coordinator_add"]).unwrap())
///     .build();
/// let result = coordinator.call_blocking(ToolCall::new("doc_coordinator_add", r#"{"a": 1, "b": 2}"#));
/// assert_eq!(result.text(), "3");
///
/// let result = coordinator.call_blocking(ToolCall::new("doc_coordinator_add", r#"{"a": 1}"#));
/// assert!(result.is_error());
/// assert!(result.text().contains("missing required argument `b` (an integer)"));
/// ```
#[derive(Clone)]
pub struct Coordinator {
    inner: Arc<Inner>,
}

struct Inner {
    toolset: Toolset,
    shared: Arc<SharedContext>,
    /// The runtime `call_blocking` drives calls on when the caller has none.
    runtime: OnceLock<Result<Runtime, String>>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // The last clone may be dropped inside some other runtime, where a blocking shutdown
        // would panic; calls in flight on our runtime have ended by now.
        if let Some(Ok(runtime)) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// Configures a [`Coordinator`].
#[must_use = "a builder does nothing until `.build()`"]
#[derive(Default)]
pub struct CoordinatorBuilder {
    toolset: Option<Toolset>,
    shared: SharedContext,
}

impl CoordinatorBuilder {
    /// The tools offered (default: every linked tool, [`Toolset::all`]).
    pub fn toolset(mut self, toolset: Toolset) -> Self {
        self.toolset = Some(toolset);
        self
    }

    /// A state value, reached by tools through a `State<T>` parameter. One value per type; a
    /// second value of the same type replaces the first.
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.shared.state.insert(Arc::new(value));
        self
    }

    /// A state value already behind an `Arc`, shared with the caller.
    pub fn shared_state<T: Send + Sync + 'static>(mut self, value: Arc<T>) -> Self {
        self.shared.state.insert(value);
        self
    }

    /// The workspace tools work in.
    pub fn workspace(mut self, workspace: Workspace) -> Self {
        self.shared.workspace = Some(workspace);
        self
    }

    /// A token that cancels every running call when cancelled.
    pub fn cancellation(mut self, token: CancellationToken) -> Self {
        self.shared.cancellation = token;
        self
    }

    /// Where tools' progress reports go.
    pub fn on_progress(mut self, sink: impl ProgressSink) -> Self {
        self.shared.progress = Some(Arc::new(sink));
        self
    }

    /// Builds the coordinator.
    ///
    /// # Panics
    /// Without an explicit toolset, when the registry is invalid (see
    /// [`Registry::global`](crate::Registry::global)).
    #[must_use]
    pub fn build(self) -> Coordinator {
        Coordinator {
            inner: Arc::new(Inner {
                toolset: self.toolset.unwrap_or_else(Toolset::all),
                shared: Arc::new(self.shared),
                runtime: OnceLock::new(),
            }),
        }
    }
}

impl Coordinator {
    /// Starts configuring a coordinator.
    pub fn builder() -> CoordinatorBuilder {
        CoordinatorBuilder::default()
    }

    /// The tools this coordinator offers.
    #[must_use]
    pub fn toolset(&self) -> &Toolset {
        &self.inner.toolset
    }

    /// Runs one call to its result. Async and blocking tools need a Tokio runtime; synchronous
    /// tools run on any executor.
    pub async fn call(&self, call: ToolCall) -> ToolResult {
        let ToolCall {
            id,
            name,
            arguments,
            depth,
        } = call;
        let Some(tool) = self.inner.toolset.get(&name) else {
            let suggestions = self.inner.toolset.suggest(&name);
            return ToolResult::failure(id, ToolError::UnknownTool { name, suggestions });
        };
        let prepared = match guard(|| tool.prepare(&arguments)) {
            Ok(prepared) => prepared,
            Err(error) => return ToolResult::failure(id, error),
        };
        // Not needed past this point: dropped now, they are not carried in the future.
        drop((name, arguments));
        // Authorize: the policy, approvals and PreToolUse hooks decide here, from the spec and
        // the prepared call (its effect and resources). Until they exist every call may run.
        let ctx = ToolContext::new(
            CallInfo {
                id,
                tool: tool.spec().name.clone(),
                depth,
            },
            None,
            Arc::clone(&self.inner.shared),
        );
        let outcome = invoke(tool, prepared, &ctx).await;
        ToolResult::from_outcome(ctx.into_call().id, outcome)
    }

    /// Runs one call from synchronous code and waits for its result.
    ///
    /// Outside any runtime it drives the call on a runtime of its own; inside a multi-threaded
    /// Tokio runtime it blocks in place; inside a current-thread runtime, which cannot block, it
    /// runs the call on a helper thread.
    pub fn call_blocking(&self, call: ToolCall) -> ToolResult {
        match Handle::try_current() {
            Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
                tokio::task::block_in_place(|| handle.block_on(self.call(call)))
            }
            Ok(_) => {
                // Kept for the answer if the helper thread itself fails.
                let id = call.id.clone();
                std::thread::scope(|scope| {
                    scope
                        .spawn(|| self.call_on_own_runtime(call))
                        .join()
                        .unwrap_or_else(|payload| {
                            ToolResult::failure(id, crate::panic::panicked(payload.as_ref()))
                        })
                })
            }
            Err(_) => self.call_on_own_runtime(call),
        }
    }

    fn call_on_own_runtime(&self, call: ToolCall) -> ToolResult {
        let runtime = self.inner.runtime.get_or_init(|| {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|error| error.to_string())
        });
        match runtime {
            Ok(runtime) => runtime.block_on(self.call(call)),
            Err(error) => ToolResult::failure(
                call.id,
                ToolError::failed(format!("could not start a runtime for the call: {error}")),
            ),
        }
    }
}

async fn invoke(
    tool: &ToolHandle,
    prepared: Prepared,
    ctx: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    // A synchronous tool runs inside `invoke` itself; its panic is caught here. An async
    // tool's panic happens while its future is polled, and is caught by `Guarded`.
    let future = guard(|| Ok(tool.invoke(prepared, ctx)))?;
    // A synchronous tool's result is already there: take it without polling.
    match future.into_ready() {
        Ok(result) => result,
        Err(pending) => Guarded(pending).await,
    }
}

impl std::fmt::Debug for Coordinator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Coordinator")
            .field("toolset", &self.inner.toolset)
            .finish_non_exhaustive()
    }
}
