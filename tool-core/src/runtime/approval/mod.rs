//! Asking the user: the [`Approver`] trait and its implementations ([`AutoApprove`],
//! [`DenyAll`], [`ChannelApprover`]), what is asked ([`ApprovalRequest`], about a call or a
//! plan: [`RequestKind`]), what comes back
//! ([`ApprovalResponse`] with an [`ApprovalScope`]), and the [`GrantsFile`] where "always"
//! answers are kept.
//!
//! The coordinator asks only when the policy says [`Verdict::Ask`](crate::policy::Verdict::Ask); an
//! approver never decides policy, and the policy never does I/O. A console approver for the
//! `toolbox` command lives with that command.
//!
//! A running tool may also put a question of its own to the user, a form
//! ([`Question`], answered with an [`Answer`]; asked through
//! [`Session::elicit`](crate::coordinator::Session::elicit)). The call's approver answers it
//! ([`Approver::elicit`]); an approver that cannot says so, and the tool gets that reason.
//! PermissionRequest hooks decide permissions only, and never see these questions.
//!
//! Its files: `request` (what is asked and answered), `approvers` (the approvers above),
//! `grants` (the grants file) and `question` (a tool's own questions: forms, sampling, roots).

use crate::BoxFuture;

mod approvers;
mod grants;
mod question;
mod request;

pub use approvers::{AutoApprove, ChannelApprover, DenyAll, PendingApproval, PendingQuestion};
pub use grants::{GrantsError, GrantsFile};
pub use question::{
    Answer, Question, QuestionRequest, Root, Sampled, SamplingRequest, SchemaError, Speaker,
    Unanswered, UnansweredKind,
};
pub use request::{ApprovalRequest, ApprovalResponse, ApprovalScope, RequestKind};

/// Why a call that needed the user's approval got none, as its refusal's
/// [`decided_by`](crate::ToolError::Denied) names it: the session has nobody to ask...
pub(crate) const NOBODY_TO_ASK: &str = "nobody to ask";
/// ...it has no approver...
pub(crate) const NO_APPROVER: &str = "no approver configured";
/// ...or its approver did not answer. Read back by [`went_unasked`].
pub(crate) const NOBODY_ANSWERED: &str = "nobody answered";

/// Whether `error` is the refusal of a call that needed the user's approval when nobody
/// could give it (no approver, a session with nobody to ask, an approver that did not
/// answer): the refusal a front end can turn into a remedy for the person running it (a
/// terminal to be asked at, an allow rule, a mode), rather than the model's "do not retry".
///
/// ```
/// use tool_core::{Coordinator, ToolCall, Toolset, approval, tool};
///
/// /// Save a note.
/// #[tool(name = "doc_unasked_save")]
/// fn save(text: String) -> String { text }
///
/// // No approver: a call the policy would ask about is refused.
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["doc_unasked_save"]).unwrap())
///     .build()
///     .unwrap();
/// let result = coordinator.call_blocking(ToolCall::new("doc_unasked_save", r#"{"text": "hi"}"#));
/// assert!(result.error().is_some_and(approval::went_unasked));
/// ```
#[must_use]
pub fn went_unasked(error: &crate::ToolError) -> bool {
    let crate::ToolError::Denied { decided_by, .. } = error else {
        return false;
    };
    [NOBODY_TO_ASK, NO_APPROVER, NOBODY_ANSWERED]
        .iter()
        .any(|source| {
            *decided_by
                == crate::policy::DecisionSource::new(crate::policy::PolicyLayer::User, *source)
                    .to_string()
        })
}

/// Answers approval requests: a UI, a protocol peer, or a fixed answer.
///
/// ```
/// use tool_core::{BoxFuture, approval::{ApprovalRequest, ApprovalResponse, Approver}};
///
/// /// Approves what reads, rejects the rest with a hint.
/// struct ReadsOnly;
///
/// impl Approver for ReadsOnly {
///     fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
///         let answer = if request.effect.is_read_only() {
///             ApprovalResponse::once()
///         } else {
///             ApprovalResponse::reject("only reads are allowed right now")
///         };
///         Box::pin(async move { answer })
///     }
/// }
/// ```
pub trait Approver: Send + Sync + 'static {
    /// Answers one request. Called only for calls the policy asks about; may take as long as
    /// the user does.
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse>;

    /// Puts a running tool's own question (a form) to the user, and returns the answer.
    ///
    /// The default cannot: it answers [`Unanswered`], saying that this approver answers
    /// approvals only, and the tool reports that. [`ChannelApprover`] forwards questions to
    /// its UI ([`ChannelApprover::answering_questions`]); the MCP server asks its client.
    fn elicit<'a>(
        &'a self,
        request: &'a QuestionRequest,
    ) -> BoxFuture<'a, Result<Answer, Unanswered>> {
        Box::pin(std::future::ready(Err(Unanswered::new(format!(
            "`{}` asked the user a question, but this session's approver answers approval requests only, not questions of a tool's own",
            request.tool
        )))))
    }

    /// Asks the client's model for a message, for the running tool `tool` (MCP's sampling).
    ///
    /// The default cannot, saying so; the MCP server asks its client.
    fn sample<'a>(
        &'a self,
        tool: &'a str,
        _request: &'a SamplingRequest,
    ) -> BoxFuture<'a, Result<Sampled, Unanswered>> {
        Box::pin(std::future::ready(Err(Unanswered::new(format!(
            "`{tool}` asked for a message from the client's model, but this session has no client that can write one"
        )))))
    }

    /// The client's roots, for the running tool `tool` (MCP's `roots/list`).
    ///
    /// The default has none to give, saying so; the MCP server asks its client.
    fn list_roots<'a>(&'a self, tool: &'a str) -> BoxFuture<'a, Result<Vec<Root>, Unanswered>> {
        Box::pin(std::future::ready(Err(Unanswered::new(format!(
            "`{tool}` asked for the client's roots, but this session has no client that declares roots"
        )))))
    }
}
