//! [`ToolCaller`]: a running tool's handle for calling other tools through the coordinator that
//! runs it. A nested call is an ordinary call, one level deeper: the same session, policy,
//! hooks, approver, budget and events, no special case anywhere in the call path. Cancelling
//! the calling tool's call cancels its nested calls.

use std::sync::Arc;
use std::time::Instant;

use super::{CallScope, Coordinator};
use crate::definition::context::{CallInfo, CancellationToken, FromContext, ToolContext};
use crate::{ToolCall, ToolError, ToolResult, Toolset};

/// How deep calls may nest (a tool calling a tool calling a tool ...): deeper is refused, so a
/// tool that calls itself ends instead of running until the stack or the budget runs out.
pub const MAX_NESTING: u32 = 8;

/// A running tool's handle for calling other tools: a context parameter, like `Workspace`.
///
/// Each call goes through the coordinator running the tool, as a call from the model would:
/// looked up, validated, decided by the same policy on the same session (a deny rule, plan
/// mode, an approval, a budget all apply), with hooks and events, one level deeper
/// ([`CallInfo::depth`]). Cancelling the calling tool's call (a timeout, the user) cancels the
/// calls it makes.
///
/// ```
/// use tool_core::{tool, Coordinator, ToolCall, Toolset, coordinator::ToolCaller};
///
/// /// Add two integers.
/// #[tool(read_only, name = "doc_toolcaller_add")]
/// fn add(a: i64, b: i64) -> i64 { a + b }
///
/// /// Add up a list of integers, two at a time, with the `doc_toolcaller_add` tool.
/// #[tool(read_only, name = "doc_toolcaller_sum")]
/// async fn sum(numbers: Vec<i64>, tools: ToolCaller) -> Result<String, tool_core::ToolError> {
///     let mut total = 0;
///     for n in numbers {
///         let arguments = serde_json::json!({ "a": total, "b": n }).to_string();
///         let result = tools.call(ToolCall::new("doc_toolcaller_add", arguments)).await;
///         total = result.text().parse().map_err(tool_core::ToolError::failed)?;
///     }
///     Ok(total.to_string())
/// }
///
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["doc_toolcaller_add", "doc_toolcaller_sum"]).unwrap())
///     .build()
///     .unwrap();
/// let result = coordinator.call_blocking(ToolCall::new("doc_toolcaller_sum", r#"{"numbers": [1, 2, 3]}"#));
/// assert_eq!(result.text(), "6");
/// ```
#[derive(Clone)]
pub struct ToolCaller {
    coordinator: Coordinator,
    parent: CallInfo,
    cancellation: CancellationToken,
    deadline: Option<Instant>,
    /// The calling call's own progress sink and approver: its nested calls use them too.
    scope: CallScope,
}

impl ToolCaller {
    /// Runs a call, one level below the calling tool's.
    pub async fn call(&self, call: ToolCall) -> ToolResult {
        let call = call.nested_in(&self.parent);
        if call.depth > MAX_NESTING {
            return ToolResult::failure(
                call.call_id,
                ToolError::denied(
                    format!(
                        "`{}` would run {} calls deep, more than the {MAX_NESTING} allowed; a tool is probably calling itself. Do the work without nesting calls this deep.",
                        call.name, call.depth
                    ),
                    "nesting limit",
                ),
            );
        }
        let started = Instant::now();
        match self.coordinator.stage(call, started) {
            Ok(mut staged) => {
                staged.parent_cancellation = Some(self.cancellation.clone());
                staged.parent_deadline = self.deadline;
                staged.scope = self.scope.clone();
                self.coordinator.run(staged, started, None).await
            }
            Err(result) => result,
        }
    }

    /// Runs calls one after another, each one level below the calling tool's; results in the
    /// order of the calls.
    pub async fn call_all(&self, calls: impl IntoIterator<Item = ToolCall>) -> Vec<ToolResult> {
        let mut results = Vec::new();
        for call in calls {
            results.push(self.call(call).await);
        }
        results
    }

    /// The tools this handle can call: the toolset of the coordinator running the calling tool.
    /// A tool that offers other tools to someone else (a script, a sub-agent) lists them
    /// from here, with their specs and schemas; whether a call of one may run is still the
    /// policy's decision, made when it is called.
    ///
    /// ```
    /// use tool_core::{tool, Coordinator, ToolCall, Toolset, coordinator::ToolCaller};
    ///
    /// /// Say hello.
    /// #[tool(read_only, name = "doc_toolcaller_toolset_hello")]
    /// fn hello() -> &'static str { "hello" }
    ///
    /// /// Name the tools this tool could call.
    /// #[tool(read_only, name = "doc_toolcaller_toolset_list")]
    /// fn list(tools: ToolCaller) -> String {
    ///     let toolset = tools.toolset();
    ///     let names: Vec<&str> = toolset.iter().map(|tool| tool.spec().name.as_ref()).collect();
    ///     names.join(", ")
    /// }
    ///
    /// let coordinator = Coordinator::builder()
    ///     .toolset(Toolset::named(["doc_toolcaller_toolset_hello", "doc_toolcaller_toolset_list"]).unwrap())
    ///     .build()
    ///     .unwrap();
    /// let result = coordinator.call_blocking(ToolCall::new("doc_toolcaller_toolset_list", "{}"));
    /// assert_eq!(result.text(), "doc_toolcaller_toolset_hello, doc_toolcaller_toolset_list");
    /// ```
    /// A snapshot: the set as it is now (see
    /// [`Coordinator::update_toolset`](crate::Coordinator::update_toolset)).
    #[must_use]
    pub fn toolset(&self) -> Arc<Toolset> {
        self.coordinator.toolset()
    }

    /// The call of the tool that holds this handle.
    #[must_use]
    pub fn parent(&self) -> &CallInfo {
        &self.parent
    }

    /// When the calling tool's time limit runs out, if it has one
    /// ([`ToolContext::deadline`]): no call through this handle runs past it.
    #[must_use]
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }
}

impl std::fmt::Debug for ToolCaller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolCaller")
            .field("parent", &self.parent)
            .finish_non_exhaustive()
    }
}

impl FromContext<'_> for ToolCaller {
    fn from_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        let Some(coordinator) = Coordinator::of(ctx) else {
            return Err(ToolError::failed(format!(
                "`{}` calls other tools, so it must run under a Coordinator (it was called with a detached context)",
                ctx.call().tool
            )));
        };
        Ok(ToolCaller {
            coordinator,
            parent: ctx.call().clone(),
            cancellation: ctx.cancellation().clone(),
            deadline: ctx.deadline(),
            scope: CallScope::of(ctx),
        })
    }
}
