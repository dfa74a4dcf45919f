//! The approvers that come with the crate: [`AutoApprove`], [`DenyAll`], and
//! [`ChannelApprover`], which hands each request to a UI over a channel.

use std::fmt;

use tokio::sync::{mpsc, oneshot};

use super::{Answer, ApprovalRequest, ApprovalResponse, Approver, QuestionRequest, Unanswered};
use crate::BoxFuture;

/// Approves every request, once. For tests, scripted runs and trusted automation.
///
/// ```
/// use tool_core::{tool, Coordinator, ToolCall, Toolset, approval::AutoApprove};
///
/// /// Append a line to the log.
/// #[tool(name = "doc_autoapprove_append")]
/// fn append(line: String) -> String {
///     format!("appended {line}")
/// }
///
/// let call = ToolCall::new("doc_autoapprove_append", r#"{"line": "done"}"#);
///
/// // `append` changes state, so the policy asks; with nobody to ask, the call is denied ...
/// let unattended = Coordinator::builder()
///     .toolset(Toolset::named(["doc_autoapprove_append"]).unwrap())
///     .build()
///     .unwrap();
/// assert!(unattended.call_blocking(call.clone()).is_error());
///
/// // ... and with `AutoApprove`, it runs.
/// let trusted = Coordinator::builder()
///     .toolset(Toolset::named(["doc_autoapprove_append"]).unwrap())
///     .approver(AutoApprove)
///     .build()
///     .unwrap();
/// assert_eq!(trusted.call_blocking(call).text(), "appended done");
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct AutoApprove;

impl Approver for AutoApprove {
    fn approve<'a>(&'a self, _: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        Box::pin(std::future::ready(ApprovalResponse::once()))
    }
}

/// Rejects every request: nothing the policy asks about runs.
///
/// ```
/// use tool_core::{tool, Coordinator, ToolCall, ToolError, Toolset, approval::DenyAll};
///
/// /// Delete a note.
/// #[tool(destructive, name = "doc_denyall_delete")]
/// fn delete(title: String) -> String {
///     format!("deleted {title}")
/// }
///
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["doc_denyall_delete"]).unwrap())
///     .approver(DenyAll)
///     .build()
///     .unwrap();
/// let result = coordinator.call_blocking(ToolCall::new("doc_denyall_delete", r#"{"title": "todo"}"#));
/// assert!(matches!(result.error(), Some(ToolError::Rejected { .. })));
/// assert!(result.text().contains("use read-only tools")); // what the model reads
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct DenyAll;

impl Approver for DenyAll {
    fn approve<'a>(&'a self, _: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        Box::pin(std::future::ready(ApprovalResponse::Reject {
            guidance: Some(
                "nothing that needs approval may run in this session; use read-only tools"
                    .to_owned(),
            ),
        }))
    }
}

/// Sends each request over a channel to a UI or protocol task, and waits for its answer.
///
/// ```
/// use tool_core::{tool, Coordinator, ToolCall, Toolset};
/// use tool_core::approval::{ApprovalResponse, ChannelApprover};
///
/// /// Append a line to the log.
/// #[tool(name = "doc_channelapprover_append")]
/// fn append(line: String) -> String {
///     format!("appended {line}")
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let (approver, mut requests) = ChannelApprover::new(16);
/// // A UI task shows each request and answers it.
/// tokio::spawn(async move {
///     while let Some(pending) = requests.recv().await {
///         println!("{}? {}", pending.request().preview, pending.request().reason);
///         pending.respond(ApprovalResponse::once());
///     }
/// });
///
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["doc_channelapprover_append"]).unwrap())
///     .approver(approver)
///     .build()
///     .unwrap();
/// let result = coordinator.call(ToolCall::new("doc_channelapprover_append", r#"{"line": "done"}"#)).await;
/// assert_eq!(result.text(), "appended done");
/// # });
/// ```
///
/// When the receiving side is gone, or drops a request unanswered, the call is rejected with a
/// note saying that nobody answered.
#[derive(Debug, Clone)]
pub struct ChannelApprover {
    requests: mpsc::Sender<PendingApproval>,
    questions: Option<mpsc::Sender<PendingQuestion>>,
}

impl ChannelApprover {
    /// An approver and the receiver of its requests; at most `capacity` requests wait unread.
    /// It answers no tool's own question until given a channel for them
    /// ([`answering_questions`](Self::answering_questions)).
    #[must_use]
    pub fn new(capacity: usize) -> (Self, mpsc::Receiver<PendingApproval>) {
        let (requests, receiver) = mpsc::channel(capacity.max(1));
        (
            ChannelApprover {
                requests,
                questions: None,
            },
            receiver,
        )
    }

    /// This approver, forwarding tools' own questions ([`Question`](super::Question)s) to the returned
    /// receiver too; at most `capacity` questions wait unread.
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_core::{tool, Coordinator, ToolCall, ToolError, Toolset};
    /// use tool_core::approval::{Answer, ChannelApprover, Question};
    /// use tool_core::coordinator::Session;
    ///
    /// /// Greet the user by the name they give.
    /// #[tool(read_only, name = "doc_channelapprover_greet")]
    /// async fn greet(#[ctx] session: Session) -> Result<String, ToolError> {
    ///     let question = Question::new(
    ///         "What is your name?",
    ///         json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
    ///     )?;
    ///     match session.elicit(question).await? {
    ///         Answer::Accept(content) => Ok(format!("Hello, {}!", content["name"].as_str().unwrap_or("?"))),
    ///         _ => Ok("The user would rather not say.".to_owned()),
    ///     }
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let (approver, _approvals) = ChannelApprover::new(16);
    /// let (approver, mut questions) = approver.answering_questions(16);
    /// tokio::spawn(async move {
    ///     while let Some(pending) = questions.recv().await {
    ///         let content = json!({"name": "Ada"}).as_object().unwrap().clone();
    ///         pending.respond(Answer::Accept(content));
    ///     }
    /// });
    /// let coordinator = Coordinator::builder()
    ///     .toolset(Toolset::named(["doc_channelapprover_greet"]).unwrap())
    ///     .approver(approver)
    ///     .build()
    ///     .unwrap();
    /// let result = coordinator.call(ToolCall::new("doc_channelapprover_greet", "{}")).await;
    /// assert_eq!(result.text(), "Hello, Ada!");
    /// # });
    /// ```
    #[must_use]
    pub fn answering_questions(
        mut self,
        capacity: usize,
    ) -> (Self, mpsc::Receiver<PendingQuestion>) {
        let (questions, receiver) = mpsc::channel(capacity.max(1));
        self.questions = Some(questions);
        (self, receiver)
    }
}

impl Approver for ChannelApprover {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        Box::pin(async move {
            let (answer, answered) = oneshot::channel();
            let pending = PendingApproval {
                request: request.clone(),
                answer,
            };
            if self.requests.send(pending).await.is_err() {
                return unanswered("the approval channel is closed");
            }
            answered
                .await
                .unwrap_or_else(|_| unanswered("the request was dropped without an answer"))
        })
    }

    fn elicit<'a>(
        &'a self,
        request: &'a QuestionRequest,
    ) -> BoxFuture<'a, Result<Answer, Unanswered>> {
        Box::pin(async move {
            let Some(questions) = &self.questions else {
                return Err(Unanswered::new(format!(
                    "`{}` asked the user a question, but this session's approval channel takes approval requests only (the application made its ChannelApprover without `answering_questions`)",
                    request.tool
                )));
            };
            let (answer, answered) = oneshot::channel();
            let pending = PendingQuestion {
                request: request.clone(),
                answer,
            };
            if questions.send(pending).await.is_err() {
                return Err(Unanswered::new(
                    "nobody answered the question (the question channel is closed)",
                ));
            }
            answered.await.map_err(|_| {
                Unanswered::new("nobody answered the question (it was dropped without an answer)")
            })
        })
    }
}

/// One tool's question waiting for an answer, as the receiver of
/// [`ChannelApprover::answering_questions`] gets it.
pub struct PendingQuestion {
    request: QuestionRequest,
    answer: oneshot::Sender<Answer>,
}

impl PendingQuestion {
    /// What is asked, and by which call.
    #[must_use]
    pub fn request(&self) -> &QuestionRequest {
        &self.request
    }

    /// Answers. An accepted answer is checked against the question's schema before the tool
    /// sees it; an answer to a call that has meanwhile been cancelled is dropped.
    pub fn respond(self, answer: Answer) {
        let _ = self.answer.send(answer);
    }
}

impl fmt::Debug for PendingQuestion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PendingQuestion")
            .field("request", &self.request)
            .finish_non_exhaustive()
    }
}

fn unanswered(why: &str) -> ApprovalResponse {
    ApprovalResponse::Reject {
        guidance: Some(format!(
            "nobody answered the approval request ({why}); ask the user before trying again"
        )),
    }
}

/// One request waiting for an answer, as a [`ChannelApprover`]'s receiver gets it.
pub struct PendingApproval {
    request: ApprovalRequest,
    answer: oneshot::Sender<ApprovalResponse>,
}

impl PendingApproval {
    /// What is asked.
    #[must_use]
    pub fn request(&self) -> &ApprovalRequest {
        &self.request
    }

    /// Answers. An answer to a call that has meanwhile been cancelled is dropped.
    pub fn respond(self, response: ApprovalResponse) {
        let _ = self.answer.send(response);
    }
}

impl fmt::Debug for PendingApproval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PendingApproval")
            .field("request", &self.request)
            .finish_non_exhaustive()
    }
}
