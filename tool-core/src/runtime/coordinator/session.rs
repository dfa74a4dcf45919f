//! [`Session`]: a running tool's handle on the session of the coordinator that runs it: the
//! permission mode, and the approver. For tools with an approval flow of their own (presenting
//! a plan), so that no tool needs a branch in the coordinator.

use std::sync::{Arc, Mutex, PoisonError};

use super::{CallScope, Coordinator};
use crate::ToolError;
use crate::definition::context::{CallInfo, FromContext, ToolContext};
use crate::runtime::approval::{ApprovalRequest, ApprovalResponse, ApprovalScope, RequestKind};
use crate::runtime::events::CallEvent;
use crate::runtime::hooks::{HookEvent, HookInput};
use crate::runtime::policy::{Mode, Verdict};

/// A running tool's handle on its coordinator's session: a context parameter, by value,
/// marked `#[ctx]` (the name is too common for the macro to take every `Session` for context).
///
/// It reads the session's permission [`Mode`], asks the coordinator's approver a question of
/// the tool's own ([`ApprovalRequest::plan`], say), and changes the mode as far as the answer
/// allows: a tool may enter plan mode on its own, and switch to any other mode only when an
/// answer to its own [`ask`](Self::ask) chose that mode (see [`set_mode`](Self::set_mode)).
/// The application, which speaks for the user, changes it freely with
/// [`Coordinator::set_mode`]. A tool using it is usually `self_approving`:
/// the policy does not ask before it runs, because the tool asks itself.
///
/// ```
/// use tool_core::{tool, Coordinator, ToolCall, ToolError, Toolset};
/// use tool_core::approval::{ApprovalRequest, ApprovalResponse, AutoApprove};
/// use tool_core::context::{CallInfo, Session};
/// use tool_core::policy::Mode;
///
/// /// Show the user a plan; once accepted, leave plan mode.
/// #[tool(self_approving, name = "doc_session_plan")]
/// async fn plan(plan: String, #[ctx] session: Session, call: CallInfo) -> Result<&'static str, ToolError> {
///     match session.ask(ApprovalRequest::plan(&call, plan)).await {
///         ApprovalResponse::Approve(_) => {
///             session.set_mode(Mode::Default)?;
///             Ok("accepted")
///         }
///         _ => Ok("keep planning"),
///     }
/// }
///
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["doc_session_plan"]).unwrap())
///     .mode(Mode::Plan)
///     .approver(AutoApprove)
///     .build()
///     .unwrap();
/// let result = coordinator.call_blocking(ToolCall::new("doc_session_plan", r#"{"plan": "1. Do it"}"#));
/// assert_eq!(result.text(), "accepted");
/// assert_eq!(coordinator.mode(), Mode::Default);
/// ```
#[derive(Clone)]
pub struct Session {
    coordinator: Coordinator,
    call: CallInfo,
    /// The mode an answer to this call's own question allowed it to switch to.
    approved: Arc<Mutex<Option<Mode>>>,
    /// The call's own approver, or why nobody can be asked
    /// ([`CallOptions`](super::CallOptions)); else the coordinator's approver is asked.
    scope: CallScope,
}

impl Session {
    /// The session's permission mode now.
    #[must_use]
    pub fn mode(&self) -> Mode {
        self.coordinator.mode()
    }

    /// Switches the session's permission mode; calls decided from now on (this tool's own
    /// nested calls too) see the new mode.
    ///
    /// A tool speaks for the model, not the user, so it may not loosen the session on its
    /// own: it may always enter [`Mode::Plan`] (the strictest) or keep the mode as it is, and
    /// switch to another mode only when an approval answered through [`ask`](Self::ask) in
    /// this call chose it: the mode an [`ApprovalScope::Mode`] answer names, or
    /// [`Mode::Default`] for a plan accepted with any other scope.
    ///
    /// # Errors
    /// [`ToolError::Denied`] when nobody approved `mode`; the mode stays as it was.
    pub fn set_mode(&self, mode: Mode) -> Result<(), ToolError> {
        let approved = *self.approved.lock().unwrap_or_else(PoisonError::into_inner);
        if mode != Mode::Plan && mode != self.mode() && approved != Some(mode) {
            let asked = match approved {
                Some(approved) => format!("the answer to its question chose {approved} mode"),
                None => "no answer to a question of its own chose a mode".to_owned(),
            };
            return Err(ToolError::denied(
                format!(
                    "`{}` may not switch the session to {mode} mode: {asked}. A tool may enter plan mode on its own, and switch to another mode only when the user chose that mode in answer to its question (Session::ask)",
                    self.call.tool
                ),
                "session mode",
            ));
        }
        self.coordinator.set_mode(mode);
        Ok(())
    }

    /// Asks as the coordinator asks about a call: PermissionRequest hooks matching this tool
    /// first (a hook's allow is an approval for this request only, its deny a rejection with
    /// the hook's reason), then the approver (watchers get a
    /// [`CallEvent::AwaitingApproval`] first). Returns the answer; its scope is the tool's to
    /// act on: nothing is granted by asking, but the mode an approval chose (see
    /// [`set_mode`](Self::set_mode)) is the one this handle may then switch to.
    ///
    /// The request goes out as this call's: its `tool` and `call_id` are set to this call's,
    /// whatever they were, and a plan request is made again from its plan (so its preview,
    /// effect and reason say what it is).
    ///
    /// Without an approver nobody can answer: the answer is a rejection whose guidance says
    /// so, for the model to read.
    pub async fn ask(&self, mut request: ApprovalRequest) -> ApprovalResponse {
        // A tool asks in its own name: the user is never shown another tool, or another
        // call, as the one asking; a plan is shown as what it is (its preview, effect and
        // reason made again from the plan itself).
        if let RequestKind::Plan { plan } = &request.kind {
            request = ApprovalRequest::plan(&self.call, plan.clone());
        }
        request.tool = self.call.tool.clone();
        request.call_id = self.call.call_id.clone();
        let answer = self.answer(&request).await;
        let approved = match &answer {
            ApprovalResponse::Approve(ApprovalScope::Mode(mode)) => Some(*mode),
            ApprovalResponse::Approve(_) if matches!(request.kind, RequestKind::Plan { .. }) => {
                Some(Mode::Default)
            }
            _ => None,
        };
        *self.approved.lock().unwrap_or_else(PoisonError::into_inner) = approved;
        answer
    }

    /// The answer to `request`: a hook's, else the approver's.
    async fn answer(&self, request: &ApprovalRequest) -> ApprovalResponse {
        if let Some(answer) = self.hook_answer(request).await {
            return answer;
        }
        let Some(approver) = self
            .scope
            .approver(self.coordinator.inner.approver.as_ref())
        else {
            let why =
                self.scope.nobody_to_ask.as_deref().unwrap_or(
                    "this session has no way to ask the user (no approver is configured)",
                );
            return ApprovalResponse::reject(format!(
                "{why}, so `{}` could not be answered; tell the user what you wanted them to approve",
                self.call.tool
            ));
        };
        if let Some(events) = &self.coordinator.inner.events {
            events.send(CallEvent::AwaitingApproval {
                request: Box::new(request.clone()),
            });
        }
        approver.approve(request).await
    }

    /// A PermissionRequest hook's answer to `request`, if a hook decided.
    async fn hook_answer(&self, request: &ApprovalRequest) -> Option<ApprovalResponse> {
        let inner = &self.coordinator.inner;
        if !inner.hooks.has(HookEvent::PermissionRequest) {
            return None;
        }
        let toolset = self.coordinator.toolset();
        let tool = toolset.get(&self.call.tool)?;
        let input = self.coordinator.hook_input(
            HookInput::permission_request(self.call.tool.to_string(), request.arguments.clone()),
            &self.call.call_id,
            self.mode(),
        );
        let outcome = self
            .coordinator
            .run_hooks(HookEvent::PermissionRequest, tool, &input)
            .await;
        match outcome.decision()? {
            hook if hook.verdict == Verdict::Allow => Some(ApprovalResponse::once()),
            hook if hook.verdict == Verdict::Deny => Some(ApprovalResponse::reject(hook.reason)),
            _ => None,
        }
    }

    /// Whether anyone may answer [`ask`](Self::ask): the coordinator has an approver, or
    /// PermissionRequest hooks match this tool (by its name or an alias; they may still leave
    /// the question open). Hooks for other tools never see this tool's questions.
    #[must_use]
    pub fn can_ask(&self) -> bool {
        let inner = &self.coordinator.inner;
        if self.scope.approver(inner.approver.as_ref()).is_some() {
            return true;
        }
        if self.scope.nobody_to_ask.is_some() {
            return false;
        }
        let toolset = self.coordinator.toolset();
        let Some(tool) = toolset.get(&self.call.tool) else {
            return false;
        };
        let names: Vec<&str> = tool.spec().names().collect();
        inner
            .hooks
            .registered(HookEvent::PermissionRequest)
            .any(|(matcher, _)| matcher.matches(&names))
    }

    /// The call of the tool that holds this handle.
    #[must_use]
    pub fn call(&self) -> &CallInfo {
        &self.call
    }
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("call", &self.call)
            .field("mode", &self.mode())
            .finish_non_exhaustive()
    }
}

impl FromContext<'_> for Session {
    fn from_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        let Some(coordinator) = &ctx.coordinator else {
            return Err(ToolError::failed(format!(
                "`{}` works on the session's mode and approvals, so it must run under a Coordinator (it was called with a detached context)",
                ctx.call().tool
            )));
        };
        Ok(Session {
            coordinator: coordinator.clone(),
            call: ctx.call().clone(),
            approved: Arc::default(),
            scope: ctx.scope.clone(),
        })
    }
}
