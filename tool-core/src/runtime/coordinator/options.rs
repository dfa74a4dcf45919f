//! [`CallOptions`]: what one call brings of its own besides the call (a cancellation token, a
//! progress sink, an approver), for a caller that serves several users through one
//! coordinator: an MCP server answers each client's call with that client's progress
//! notifications and asks that client, not a console.
//!
//! The sink and the approver stay with the call: its nested calls ([`ToolCaller`](super::ToolCaller))
//! and its own questions ([`Session::ask`](super::Session::ask)) use them too.

use std::fmt;
use std::sync::Arc;

use crate::definition::context::{CallProgress, CancellationToken, ProgressSink, ToolContext};
use crate::runtime::approval::Approver;

/// One call's own cancellation, progress sink and approver, for
/// [`Coordinator::call_with`](super::Coordinator::call_with). Each is optional; what is not
/// given is the coordinator's.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use tool_core::{tool, Coordinator, ToolCall, Toolset};
/// use tool_core::approval::DenyAll;
/// use tool_core::context::{Progress, ProgressUpdate};
/// use tool_core::coordinator::CallOptions;
///
/// /// Count to three.
/// #[tool(name = "doc_calloptions_count")]
/// fn count(progress: Progress) -> &'static str {
///     for step in 1..=3 {
///         progress.report(f64::from(step), Some(3.0), None);
///     }
///     "counted"
/// }
///
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["doc_calloptions_count"]).unwrap())
///     .build()
///     .unwrap();
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let sink = Arc::clone(&seen);
/// let options = CallOptions::new()
///     .progress(move |update: ProgressUpdate| sink.lock().unwrap().push(update.progress))
///     .approver(DenyAll);
/// let call = ToolCall::new("doc_calloptions_count", "{}");
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// // Not read-only, so the policy asks: this call's own approver answers.
/// let result = coordinator.call_with(call.clone(), options.clone()).await;
/// assert!(result.is_error());
/// assert!(seen.lock().unwrap().is_empty());
///
/// coordinator.grant("doc_calloptions_count").unwrap();
/// let result = coordinator.call_with(call, options).await;
/// assert_eq!(result.text(), "counted");
/// assert_eq!(*seen.lock().unwrap(), [1.0, 2.0, 3.0]);
/// # });
/// ```
#[derive(Clone, Default)]
pub struct CallOptions {
    pub(crate) cancel: Option<CancellationToken>,
    pub(crate) scope: CallScope,
}

/// What a call hands on to its context, its nested calls and its questions.
#[derive(Clone, Default)]
pub(crate) struct CallScope {
    pub(crate) progress: Option<Arc<dyn ProgressSink>>,
    pub(crate) approver: Option<Arc<dyn Approver>>,
    /// Why nobody can be asked about this call, when its caller knows (an MCP client without
    /// elicitation): then no approver is asked, and a call that needs approval is refused
    /// with this reason.
    pub(crate) nobody_to_ask: Option<Arc<str>>,
}

impl CallScope {
    /// Attaches this scope to `ctx`, with its progress sink where
    /// [`ToolContext::progress`] reads it.
    pub(crate) fn attach(self, ctx: &mut ToolContext) {
        if let Some(sink) = &self.progress {
            ctx.extensions_mut().insert(CallProgress(Arc::clone(sink)));
        }
        // An empty scope is what `of` reads where none is attached: most calls attach nothing.
        let empty =
            self.progress.is_none() && self.approver.is_none() && self.nobody_to_ask.is_none();
        if !empty {
            ctx.extensions_mut().insert(self);
        }
    }

    /// The scope attached to `ctx`: none for a detached context, which has the default.
    pub(crate) fn of(ctx: &ToolContext) -> CallScope {
        ctx.extensions()
            .get::<CallScope>()
            .cloned()
            .unwrap_or_default()
    }
    /// Who answers this call's approvals and the user's questions: none when nobody can be
    /// asked, else its own approver, else the coordinator's (`fallback`).
    pub(crate) fn approver<'a>(
        &'a self,
        fallback: Option<&'a Arc<dyn Approver>>,
    ) -> Option<&'a Arc<dyn Approver>> {
        match (&self.approver, &self.nobody_to_ask) {
            (_, Some(_)) => None,
            (Some(approver), None) => Some(approver),
            (None, None) => fallback,
        }
    }

    /// Who speaks for the call's client (its model's messages, its roots): its own approver
    /// even when the user cannot be asked (an MCP client without elicitation may still
    /// sample), none when nobody can be asked and it has none, else the coordinator's.
    /// The public options never set both; the MCP server does.
    pub(crate) fn client<'a>(
        &'a self,
        fallback: Option<&'a Arc<dyn Approver>>,
    ) -> Option<&'a Arc<dyn Approver>> {
        match (&self.approver, &self.nobody_to_ask) {
            (Some(approver), _) => Some(approver),
            (None, Some(_)) => None,
            (None, None) => fallback,
        }
    }
}

impl CallOptions {
    /// No options: the call runs as [`Coordinator::call`](super::Coordinator::call) runs it.
    #[must_use]
    pub fn new() -> Self {
        CallOptions::default()
    }

    /// A token that stops this call on its own (an MCP client's `notifications/cancelled`, a
    /// UI's stop button): cancelling it cancels the call's token, as the coordinator's own
    /// cancellation or a timeout would, and the call ends as
    /// [`ToolError::Cancelled`](crate::ToolError::Cancelled) once the tool has stopped. The
    /// coordinator's cancellation still stops it too.
    ///
    /// ```
    /// use tool_core::coordinator::CallOptions;
    /// use tool_core::{tool, Coordinator, ToolCall, ToolError, Toolset, context::CancellationToken};
    ///
    /// /// Wait until stopped.
    /// #[tool(read_only, name = "doc_call_cancellable_wait")]
    /// async fn wait(stop: CancellationToken) -> Result<String, ToolError> {
    ///     stop.cancelled().await;
    ///     Err(ToolError::Cancelled)
    /// }
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let coordinator = Coordinator::builder()
    ///     .toolset(Toolset::named(["doc_call_cancellable_wait"]).unwrap())
    ///     .build()
    ///     .unwrap();
    /// let stop = CancellationToken::new();
    /// let call = ToolCall::new("doc_call_cancellable_wait", "{}");
    /// let call = coordinator.call_with(call, CallOptions::new().cancel(stop.clone()));
    /// stop.cancel();
    /// assert!(matches!(call.await.error(), Some(ToolError::Cancelled)));
    /// # });
    /// ```
    #[must_use]
    pub fn cancel(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// Where this call's progress reports go, and its nested calls': instead of the
    /// coordinator's [`on_progress`](super::CoordinatorBuilder::on_progress) sink.
    #[must_use]
    pub fn progress(mut self, sink: impl ProgressSink) -> Self {
        self.scope.progress = Some(Arc::new(sink));
        self
    }

    /// Who answers when this call, or one of its nested calls, needs approval, and what the
    /// tool asks itself ([`Session::ask`](super::Session::ask)): instead of the coordinator's
    /// approver.
    #[must_use]
    pub fn approver(mut self, approver: impl Approver) -> Self {
        self.scope.approver = Some(Arc::new(approver));
        self.scope.nobody_to_ask = None;
        self
    }

    /// Nobody can be asked about this call, for the reason given (say, "the MCP client
    /// cannot show the user a question"): a call that needs approval is refused, and the
    /// model reads this reason, instead of the coordinator's approver being asked. Replaces
    /// an [`approver`](Self::approver) given before.
    ///
    /// ```
    /// use tool_core::{tool, Coordinator, ToolCall, Toolset};
    /// use tool_core::approval::AutoApprove;
    /// use tool_core::coordinator::CallOptions;
    ///
    /// /// Append a line.
    /// #[tool(name = "doc_calloptions_nobody_append")]
    /// fn append(line: String) -> String { line }
    ///
    /// let coordinator = Coordinator::builder()
    ///     .toolset(Toolset::named(["doc_calloptions_nobody_append"]).unwrap())
    ///     .approver(AutoApprove)
    ///     .build()
    ///     .unwrap();
    /// let call = ToolCall::new("doc_calloptions_nobody_append", r#"{"line": "x"}"#);
    /// let options = CallOptions::new().nobody_to_ask("the client cannot show the user a question");
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let result = coordinator.call_with(call, options).await;
    /// assert!(result.is_error());
    /// assert!(result.text().contains("the client cannot show the user a question"));
    /// # });
    /// ```
    #[must_use]
    pub fn nobody_to_ask(mut self, reason: impl Into<String>) -> Self {
        self.scope.nobody_to_ask = Some(Arc::from(reason.into()));
        self.scope.approver = None;
        self
    }
}

impl fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallOptions")
            .field("cancel", &self.cancel.is_some())
            .field("progress", &self.scope.progress.is_some())
            .field("approver", &self.scope.approver.is_some())
            .field("nobody_to_ask", &self.scope.nobody_to_ask)
            .finish()
    }
}
