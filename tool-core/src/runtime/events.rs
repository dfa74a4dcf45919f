//! What a UI sees of tool execution: [`CallEvent`]s sent to an [`EventSink`] as each call is
//! requested, decided, waits for approval, starts, reports progress and finishes. The
//! coordinator does no I/O of its own; whoever watches renders.
//!
//! Events cost nothing when nobody watches: the coordinator builds them only when a sink is
//! set.

use std::borrow::Cow;
use std::time::Duration;

use tokio::sync::mpsc;

use crate::definition::context::ProgressUpdate;
use crate::definition::spec::Effect;
use crate::runtime::approval::ApprovalRequest;
use crate::runtime::policy::Decision;

/// One step of one call.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum CallEvent {
    /// A call arrived (the name as the model sent it; it may be unknown).
    Requested {
        /// The call id.
        call_id: String,
        /// The tool name or alias the model used.
        tool: String,
    },
    /// The policy (and hooks) decided.
    Decided {
        /// The call id.
        call_id: String,
        /// The tool's name.
        tool: Cow<'static, str>,
        /// This call's effect.
        effect: Effect,
        /// The decision, with its reason and source.
        decision: Decision,
    },
    /// The user is being asked.
    AwaitingApproval {
        /// What the user sees.
        request: Box<ApprovalRequest>,
    },
    /// The tool started running.
    Started {
        /// The call id.
        call_id: String,
        /// The tool's name.
        tool: Cow<'static, str>,
    },
    /// The tool reported progress.
    Progress(ProgressUpdate),
    /// A hook's message for the user: its `systemMessage`, or why it failed (a failing hook
    /// does not stop the call).
    HookNotice {
        /// The call id.
        call_id: String,
        /// The hook's name (a command hook's command).
        hook: String,
        /// The message.
        message: String,
        /// `true` when the hook failed, `false` for a message it chose to show.
        is_error: bool,
    },
    /// The call ended, in success or failure.
    Finished {
        /// The call id.
        call_id: String,
        /// The tool's name (as the model sent it, when the tool is unknown).
        tool: Cow<'static, str>,
        /// `true` when the call failed, was denied or rejected.
        is_error: bool,
        /// The error kind ([`ToolError::kind`](crate::ToolError::kind)) when it failed.
        error_kind: Option<&'static str>,
        /// From the request to the result.
        elapsed: Duration,
    },
}

impl CallEvent {
    /// The id of the call this event is about.
    #[must_use]
    pub fn call_id(&self) -> &str {
        match self {
            CallEvent::Requested { call_id, .. }
            | CallEvent::Decided { call_id, .. }
            | CallEvent::Started { call_id, .. }
            | CallEvent::HookNotice { call_id, .. }
            | CallEvent::Finished { call_id, .. } => call_id,
            CallEvent::AwaitingApproval { request } => &request.call_id,
            CallEvent::Progress(update) => &update.call.call_id,
        }
    }
}

/// Receives call events. Implemented for closures and for Tokio channel senders (an unbounded
/// one, or a bounded one whose events are dropped when it is full, so a slow UI never stalls
/// the tools).
///
/// ```
/// use tool_core::{tool, Coordinator, ToolCall, Toolset, events::CallEvent};
///
/// /// Say hello.
/// #[tool(read_only, name = "doc_events_hello")]
/// fn hello() -> &'static str { "hello" }
///
/// let (events, mut received) = tokio::sync::mpsc::unbounded_channel();
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["doc_events_hello"]).unwrap())
///     .events(events)
///     .build().unwrap();
/// coordinator.call_blocking(ToolCall::new("doc_events_hello", "{}"));
/// let mut steps = Vec::new();
/// while let Ok(event) = received.try_recv() {
///     steps.push(match event {
///         CallEvent::Requested { .. } => "requested",
///         CallEvent::Decided { .. } => "decided",
///         CallEvent::Started { .. } => "started",
///         CallEvent::Finished { .. } => "finished",
///         _ => "other",
///     });
/// }
/// assert_eq!(steps, ["requested", "decided", "started", "finished"]);
/// ```
pub trait EventSink: Send + Sync + 'static {
    /// Called for each event, from the task running the call: return quickly.
    fn send(&self, event: CallEvent);
}

impl<F: Fn(CallEvent) + Send + Sync + 'static> EventSink for F {
    fn send(&self, event: CallEvent) {
        self(event);
    }
}

impl EventSink for mpsc::UnboundedSender<CallEvent> {
    fn send(&self, event: CallEvent) {
        // A closed receiver means nobody watches any more; the calls go on.
        let _ = mpsc::UnboundedSender::send(self, event);
    }
}

impl EventSink for mpsc::Sender<CallEvent> {
    fn send(&self, event: CallEvent) {
        let _ = self.try_send(event);
    }
}
