//! [`Session`]: a running tool's handle on the session of the coordinator that runs it: the
//! permission mode, and the approver. For tools with an approval flow of their own (presenting
//! a plan), so that no tool needs a branch in the coordinator, and for tools that put a
//! question of their own to the user ([`Session::elicit`]).

use std::sync::{Arc, Mutex, PoisonError};

use super::{CallScope, Coordinator};
use crate::ToolError;
use crate::definition::context::{CallInfo, CancellationToken, FromContext, ToolContext};
use crate::runtime::approval::{
    Answer, ApprovalRequest, ApprovalResponse, ApprovalScope, Question, QuestionRequest,
    RequestKind, Root, Sampled, SamplingRequest,
};
use crate::runtime::events::CallEvent;
use crate::runtime::hooks::{HookEvent, HookInput};
use crate::runtime::policy::{Mode, Verdict};

/// Why nobody can be asked, when no approver is configured and the caller gave no reason.
const NO_USER: &str = "this session has no way to ask the user (no approver is configured)";
const NO_CLIENT: &str = "this session has no client to ask (no approver is configured)";

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
/// use tool_core::context::CallInfo;
/// use tool_core::coordinator::Session;
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
    /// The call's cancellation: a call cancelled while its question waits stops waiting.
    cancellation: CancellationToken,
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

    /// Puts a question of the tool's own to the user (a form: [`Question`]) and returns the
    /// answer: the content the user filled in (checked against the question's schema), or
    /// that they declined or dismissed it. The call's approver answers
    /// ([`Approver::elicit`](crate::approval::Approver::elicit)): the one its caller gave
    /// ([`CallOptions`](super::CallOptions)), else the coordinator's. PermissionRequest hooks
    /// are about permission and never answer it.
    ///
    /// Over MCP the client's user answers: at protocol 2025-11-25 by `elicitation/create`
    /// while the tool waits; at 2026-07-28 by the `input_required` round trip, which ends
    /// this run of the tool at its first unanswered question and runs the tool again from the
    /// start once the client brings the answers back. So **ask before acting**: a tool that
    /// changes something and then asks would change it again on the re-run. Until this method
    /// has answered every question, a tool can know that nothing of its own has happened yet.
    ///
    /// **Return a pending answer with `?`.** While the answer is on its way, the error is
    /// pending ([`ToolError::is_pending`]): the run's result is thrown away and the call runs
    /// again with the answer, so a tool that carries on instead (`.unwrap_or(Answer::Cancel)`)
    /// and acts would act twice. A tool that handles errors itself must return a pending one
    /// as it is; every later request of that run (`elicit`, `sample`, `roots`) is pending at
    /// once, and gets no answer.
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_core::{tool, Coordinator, ToolCall, ToolError, Toolset};
    /// use tool_core::approval::{Answer, Question};
    /// use tool_core::coordinator::Session;
    ///
    /// /// Ask the user for a color.
    /// #[tool(read_only, name = "doc_session_elicit")]
    /// async fn pick_color(#[ctx] session: Session) -> Result<String, ToolError> {
    ///     let question = Question::new(
    ///         "Which color?",
    ///         json!({"type": "object", "properties": {"color": {"type": "string", "enum": ["red", "blue"]}}}),
    ///     )?;
    ///     match session.elicit(question).await? {
    ///         Answer::Accept(content) => Ok(format!("{}", content["color"])),
    ///         _ => Ok("no color".to_owned()),
    ///     }
    /// }
    ///
    /// // Nobody to ask: the tool gets an error it reports, saying so.
    /// let coordinator = Coordinator::builder()
    ///     .toolset(Toolset::named(["doc_session_elicit"]).unwrap())
    ///     .build()
    ///     .unwrap();
    /// let result = coordinator.call_blocking(ToolCall::new("doc_session_elicit", "{}"));
    /// assert!(result.is_error());
    /// assert!(result.text().contains("no approver"), "{}", result.text());
    /// ```
    ///
    /// # Errors
    /// A [`ToolError`] saying why there is no answer: nobody can be asked (no approver, or
    /// one that answers approvals only, or an MCP client without the elicitation capability),
    /// the asking failed, or the answer did not fit the question's schema; or that it is
    /// pending ([`ToolError::is_pending`]), to be returned at once.
    pub async fn elicit(&self, question: Question) -> Result<Answer, ToolError> {
        let approver = match self.user() {
            Ok(approver) => approver,
            Err(why) => {
                return Err(ToolError::failed(format!(
                    "{why}, so `{}` could not ask its question ({}); tell the user what you need to know",
                    self.call.tool,
                    question.message()
                )));
            }
        };
        let request =
            QuestionRequest::new(self.call.call_id.clone(), self.call.tool.clone(), question);
        let answer = self
            .unless_cancelled(approver.elicit(&request))
            .await?
            .map_err(ToolError::from_error)?;
        if let Answer::Accept(content) = &answer {
            request.question.check(content).map_err(|problem| {
                ToolError::failed(format!(
                    "the user's answer to `{}`'s question did not fit it: {problem}",
                    self.call.tool
                ))
            })?;
        }
        Ok(answer)
    }

    /// An imported MCP server's question, put as [`elicit`](Self::elicit) puts a tool's own,
    /// with Claude Code's elicitation hooks around it, matched by `server` (the name the
    /// server was imported under):
    ///
    /// 1. Elicitation hooks see the question first and may answer it in the user's place (an
    ///    `action`, with `content` for an accept) or decline it (exit code 2); then the user
    ///    is not asked, so a session nobody can be asked in is answered by its hooks. An
    ///    accept whose content does not fit the form is not an answer: the hook's error is
    ///    logged and the user is asked.
    /// 2. Otherwise the user is asked ([`elicit`](Self::elicit)).
    /// 3. ElicitationResult hooks see the answer, whoever gave it, and may replace it (an
    ///    accept that does not fit the form is refused likewise, and the answer stands) or
    ///    decline it (exit code 2).
    ///
    /// Both events carry the same `elicitation_id`.
    #[cfg(feature = "mcp")]
    pub(crate) async fn elicit_for_server(
        &self,
        server: &str,
        question: Question,
    ) -> Result<Answer, ToolError> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static ELICITATIONS: AtomicU64 = AtomicU64::new(0);
        let hooks = &self.coordinator.inner.hooks;
        let id = format!(
            "{}-elicitation-{}",
            self.call.call_id,
            ELICITATIONS.fetch_add(1, Ordering::Relaxed)
        );
        let mut answered = None;
        if hooks.has(HookEvent::Elicitation) {
            let input = HookInput::elicitation(server, &id, &question);
            answered = self
                .server_hooks_answer(HookEvent::Elicitation, server, input, &question)
                .await;
        }
        let mut answer = match answered {
            Some(answer) => answer,
            None => self.elicit(question.clone()).await?,
        };
        if hooks.has(HookEvent::ElicitationResult) {
            let input = HookInput::elicitation_result(server, &id, &answer);
            if let Some(replaced) = self
                .server_hooks_answer(HookEvent::ElicitationResult, server, input, &question)
                .await
            {
                answer = replaced;
            }
        }
        Ok(answer)
    }

    /// The answer the `event` hooks matching `server` gave to `question`, if they gave one
    /// that fits it.
    #[cfg(feature = "mcp")]
    async fn server_hooks_answer(
        &self,
        event: HookEvent,
        server: &str,
        input: HookInput,
        question: &Question,
    ) -> Option<Answer> {
        let input = self.coordinator.session_input(input, self.mode());
        let outcome = self
            .coordinator
            .run_hooks_matching(event, &[server], &input, &self.call.call_id)
            .await;
        let answer = outcome.elicitation_answer()?;
        if let Answer::Accept(content) = &answer
            && let Err(problem) = question.check(content)
        {
            let hook = outcome.answer.as_ref().map_or("?", |answer| &answer.hook);
            tracing::warn!(
                hook,
                event = event.as_str(),
                server,
                "a hook's answer to the server's question was ignored: it does not fit the form ({problem})"
            );
            return None;
        }
        Some(answer)
    }

    /// Asks the client's model for a message (MCP's sampling): over MCP the client writes it,
    /// by `sampling/createMessage` at 2025-11-25 or through the `input_required` round trip
    /// at 2026-07-28 (which, as for [`elicit`](Self::elicit), runs the call again with the
    /// answer: ask before acting, and return a pending error with `?`). Who answers is the
    /// call's approver
    /// ([`Approver::sample`](crate::approval::Approver::sample)), which speaks for its client.
    ///
    /// # Errors
    /// A [`ToolError`] saying why there is no message: no client that can write one (no
    /// approver, or an MCP client without the sampling capability), or the asking failed.
    pub async fn sample(&self, request: SamplingRequest) -> Result<Sampled, ToolError> {
        let approver = self.client("a message from the client's model")?;
        self.unless_cancelled(approver.sample(&self.call.tool, &request))
            .await?
            .map_err(ToolError::from_error)
    }

    /// The client's roots (MCP's `roots/list`): the directories or resources its user opened
    /// to the server, asked as [`sample`](Self::sample) asks.
    ///
    /// # Errors
    /// A [`ToolError`] saying why there are none to read: no client that declares roots, or
    /// the asking failed.
    pub async fn roots(&self) -> Result<Vec<Root>, ToolError> {
        let approver = self.client("the client's roots")?;
        self.unless_cancelled(approver.list_roots(&self.call.tool))
            .await?
            .map_err(ToolError::from_error)
    }

    /// `waiting`'s output, or [`ToolError::Cancelled`] when the call is cancelled first (an
    /// approver may wait on its user for ever; the call must not).
    async fn unless_cancelled<T>(&self, waiting: impl Future<Output = T>) -> Result<T, ToolError> {
        tokio::select! {
            biased;
            () = self.cancellation.cancelled() => Err(ToolError::Cancelled),
            output = waiting => Ok(output),
        }
    }

    /// Who asks the call's user (its own approver, else the coordinator's), or why nobody can.
    fn user(&self) -> Result<&Arc<dyn crate::approval::Approver>, &str> {
        self.scope
            .approver(self.coordinator.inner.approver.as_ref())
            .ok_or_else(|| self.nobody_to_ask(NO_USER))
    }

    /// Who speaks for the call's client, or why nobody does.
    fn client(&self, what: &str) -> Result<&Arc<dyn crate::approval::Approver>, ToolError> {
        self.scope
            .client(self.coordinator.inner.approver.as_ref())
            .ok_or_else(|| {
                ToolError::failed(format!(
                    "{}, so `{}` could not ask for {what}",
                    self.nobody_to_ask(NO_CLIENT),
                    self.call.tool
                ))
            })
    }

    /// Why nobody can be asked: the reason the call's caller gave, else `otherwise`.
    fn nobody_to_ask<'a>(&'a self, otherwise: &'a str) -> &'a str {
        self.scope.nobody_to_ask.as_deref().unwrap_or(otherwise)
    }

    /// The answer to `request`: a hook's, else the approver's.
    async fn answer(&self, request: &ApprovalRequest) -> ApprovalResponse {
        if let Some(answer) = self.hook_answer(request).await {
            return answer;
        }
        let approver = match self.user() {
            Ok(approver) => approver,
            Err(why) => {
                return ApprovalResponse::reject(format!(
                    "{why}, so `{}` could not be answered; tell the user what you wanted them to approve",
                    self.call.tool
                ));
            }
        };
        if let Some(events) = &self.coordinator.inner.events {
            events.send(CallEvent::AwaitingApproval {
                request: Box::new(request.clone()),
            });
        }
        self.unless_cancelled(approver.approve(request))
            .await
            .unwrap_or_else(|_| {
                ApprovalResponse::reject(format!(
                    "`{}` was cancelled while its question waited for an answer",
                    self.call.tool
                ))
            })
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
        let Some(coordinator) = Coordinator::of(ctx) else {
            return Err(ToolError::failed(format!(
                "`{}` works on the session's mode and approvals, so it must run under a Coordinator (it was called with a detached context)",
                ctx.call().tool
            )));
        };
        Ok(Session {
            coordinator,
            call: ctx.call().clone(),
            approved: Arc::default(),
            scope: CallScope::of(ctx),
            cancellation: ctx.cancellation().clone(),
        })
    }
}
