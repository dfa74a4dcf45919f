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
//! [`Session::elicit`](crate::context::Session::elicit)). The call's approver answers it
//! ([`Approver::elicit`]); an approver that cannot says so, and the tool gets that reason.
//! PermissionRequest hooks decide permissions only, and never see these questions.

use std::borrow::Cow;
use std::fmt;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, oneshot};

use crate::BoxFuture;
use crate::definition::context::CallInfo;
use crate::definition::spec::{Effect, ResourceKind};
use crate::definition::tool::Resource;
use crate::definition::workspace::ResolvedPath;
use crate::runtime::policy::shell::CommandLine;
use crate::runtime::policy::{DecisionSource, Mode, PolicyLayer};

pub use super::question::{
    Answer, Question, QuestionRequest, Root, Sampled, SamplingRequest, SchemaError, Speaker,
    Unanswered, UnansweredKind,
};

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

/// What the user is asked about one call: whether it may run (the policy asks), or, from a
/// tool with its own approval flow, whether its plan is accepted ([`kind`](Self::kind)).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ApprovalRequest {
    /// What is asked: a call to run, or a plan to accept.
    pub kind: RequestKind,
    /// The call's id.
    pub call_id: String,
    /// The tool's name.
    pub tool: Cow<'static, str>,
    /// The arguments as the model sent them (a JSON string when they were not valid JSON).
    pub arguments: serde_json::Value,
    /// What the call does: read-only calls are rarely asked about, destructive ones deserve
    /// attention.
    pub effect: Effect,
    /// The resources the call names.
    pub resources: Vec<Resource>,
    /// Why the policy asks.
    pub reason: Cow<'static, str>,
    /// Which layer and rule asked.
    pub source: DecisionSource,
    /// A one-line summary to show: the tool and what it acts on.
    pub preview: String,
    /// A rule the UI can offer as a pattern grant, such as `run_shell(cargo test:*)`.
    pub suggested_rule: Option<String>,
}

impl ApprovalRequest {
    /// A request, with its preview and suggested rule derived from the call.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        call_id: String,
        tool: Cow<'static, str>,
        arguments: &str,
        effect: Effect,
        resources: &[Resource],
        paths: &[ResolvedPath],
        reason: Cow<'static, str>,
        source: DecisionSource,
    ) -> Self {
        let arguments = crate::definition::call::arguments_value(arguments);
        ApprovalRequest {
            kind: RequestKind::Call,
            preview: preview(&tool, effect, resources),
            suggested_rule: suggested_rule(&tool, resources, paths),
            call_id,
            tool,
            arguments,
            effect,
            resources: resources.to_vec(),
            reason,
            source,
        }
    }
}

impl ApprovalRequest {
    /// A request to accept a plan, made by the running call `call` (a plan-presentation tool
    /// asks through [`Session::ask`](crate::context::Session::ask)). Approving it means "go
    /// ahead": leave plan mode, into the mode an [`ApprovalScope::Mode`] answer names, else
    /// the default mode. A rejection's guidance says what to plan differently.
    ///
    /// Every approver answers it as it answers a call: [`AutoApprove`] accepts, [`DenyAll`]
    /// rejects, [`ChannelApprover`] forwards it to its UI, which tells the two apart by
    /// [`kind`](Self::kind).
    ///
    /// ```
    /// use tool_core::approval::{ApprovalRequest, RequestKind};
    /// use tool_core::context::CallInfo;
    ///
    /// let call = CallInfo::new("call_1", "present_plan", 0);
    /// let request = ApprovalRequest::plan(&call, "1. Add the parser\n2. Test it");
    /// assert!(matches!(&request.kind, RequestKind::Plan { plan } if plan.starts_with("1. Add")));
    /// assert_eq!(request.preview, "present_plan: a plan of 2 lines");
    /// assert_eq!(request.arguments["plan"], "1. Add the parser\n2. Test it");
    /// ```
    pub fn plan(call: &CallInfo, plan: impl Into<String>) -> Self {
        let plan = plan.into();
        let lines = plan.lines().count();
        ApprovalRequest {
            call_id: call.call_id.clone(),
            tool: call.tool.clone(),
            arguments: serde_json::json!({ "plan": plan }),
            // What follows an accepted plan changes things.
            effect: Effect::Mutating,
            resources: Vec::new(),
            reason: Cow::Borrowed(
                "the model presents its plan: accepting it leaves plan mode and lets the work begin",
            ),
            source: DecisionSource::new(PolicyLayer::SelfApproving, call.tool.to_string()),
            preview: format!(
                "{}: a plan of {lines} line{}",
                call.tool,
                if lines == 1 { "" } else { "s" }
            ),
            suggested_rule: None,
            kind: RequestKind::Plan { plan },
        }
    }
}

/// What an [`ApprovalRequest`] asks.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RequestKind {
    /// May this call run? The policy asks.
    Call,
    /// Is this plan accepted? Asked by a plan-presentation tool, in plan mode: accepting it
    /// leaves plan mode.
    Plan {
        /// The plan, as the model wrote it (Markdown).
        plan: String,
    },
}

fn preview(tool: &str, effect: Effect, resources: &[Resource]) -> String {
    let mut text = format!("{tool} ({effect})");
    for (i, resource) in resources.iter().enumerate() {
        text.push_str(if i == 0 { ": " } else { ", " });
        text.push_str(&resource.arg);
        text.push_str(" = ");
        text.push_str(&resource.value);
    }
    text
}

/// Tools whose second word is a subcommand, so that `cargo test:*` means "cargo's tests". For
/// anything else (an interpreter with `-c`, a script) a prefix could allow arbitrary code, so
/// the exact command is suggested instead.
const SUBCOMMAND_TOOLS: &[&str] = &[
    "cargo", "docker", "git", "go", "just", "kubectl", "make", "npm", "pnpm", "poetry", "uv",
    "yarn",
];

/// A rule that covers this call and no more than its like: a subcommand prefix of a well-known
/// tool (`run_shell(cargo test:*)`) or else the exact command; the exact file, relative to the
/// workspace and with glob characters escaped; the URL's domain. `None` when no rule would be
/// both right and narrow: a compound command, a path outside the workspace.
fn suggested_rule(tool: &str, resources: &[Resource], paths: &[ResolvedPath]) -> Option<String> {
    let resource = resources.first()?;
    match resource.kind {
        ResourceKind::Command => {
            // One command, all of it known, writing no file: else no rule is both right and
            // narrow. A `*` in it would be read as a wildcard.
            let line = CommandLine::analyze(&resource.value);
            let [run] = line.runs() else { return None };
            if !line.is_fully_known()
                || !line.writes().is_empty()
                || !run.assignments.is_empty()
                || !line.assigned_variables().is_empty()
            {
                return None;
            }
            let command = run.text();
            if command.contains('*') {
                return None;
            }
            let mut words = run.words.iter().map(|word| word.text.as_str());
            let (first, second) = (words.next()?, words.next());
            match second {
                Some(second)
                    if SUBCOMMAND_TOOLS.contains(&first)
                        && second
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
                        && !second.starts_with('-') =>
                {
                    Some(format!("{tool}({first} {second} *)"))
                }
                _ => Some(format!("{tool}({command})")),
            }
        }
        ResourceKind::Path => {
            let relative = paths
                .iter()
                .find(|path| path.arg == resource.arg)?
                .relative
                .as_ref()?;
            let relative = relative.to_str().filter(|text| !text.is_empty())?;
            Some(format!("{tool}(./{})", globset::escape(relative)))
        }
        ResourceKind::Url => {
            let host = url::Url::parse(&resource.value)
                .ok()?
                .host_str()?
                .to_owned();
            Some(format!("{tool}(domain:{host})"))
        }
    }
}

/// How far an approval reaches.
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use tool_core::{tool, BoxFuture, Coordinator, ToolCall, Toolset};
/// use tool_core::approval::{ApprovalRequest, ApprovalResponse, ApprovalScope, Approver};
///
/// /// Append a line to the log.
/// #[tool(name = "doc_approvalscope_append")]
/// fn append(line: String) -> String {
///     format!("appended {line}")
/// }
///
/// /// Says yes for the rest of the session, and counts how often it was asked.
/// struct YesForTheSession(Arc<AtomicUsize>);
///
/// impl Approver for YesForTheSession {
///     fn approve<'a>(&'a self, _: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
///         self.0.fetch_add(1, Ordering::SeqCst);
///         Box::pin(async { ApprovalResponse::Approve(ApprovalScope::Session) })
///     }
/// }
///
/// let asked = Arc::new(AtomicUsize::new(0));
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["doc_approvalscope_append"]).unwrap())
///     .approver(YesForTheSession(Arc::clone(&asked)))
///     .build()
///     .unwrap();
/// for line in ["one", "two"] {
///     let call = ToolCall::new("doc_approvalscope_append", format!(r#"{{"line": "{line}"}}"#));
///     assert_eq!(coordinator.call_blocking(call).text(), format!("appended {line}"));
/// }
/// assert_eq!(asked.load(Ordering::SeqCst), 1); // the second call ran on the session's grant
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalScope {
    /// This call only.
    Once,
    /// Every call of this tool, for the rest of the session.
    Session,
    /// Every call of this tool, now and in later sessions (kept in the grants file).
    Always,
    /// Every call matching a permission rule such as `run_shell(cargo test:*)`.
    Pattern {
        /// The rule, in the policy's rule syntax.
        rule: String,
        /// Keep it in the grants file for later sessions too.
        always: bool,
    },
    /// This call, and switch the session to this permission mode: Claude Code's "yes, and
    /// auto-accept edits" (`{"mode": "accept_edits"}`), and how accepting a plan chooses the
    /// mode the work continues in.
    Mode(Mode),
}

/// The user's answer.
///
/// ```
/// use tool_core::approval::{ApprovalResponse, ApprovalScope};
///
/// assert_eq!(ApprovalResponse::once(), ApprovalResponse::Approve(ApprovalScope::Once));
/// assert_eq!(
///     ApprovalResponse::reject("run the tests first"),
///     ApprovalResponse::Reject { guidance: Some("run the tests first".to_owned()) }
/// );
///
/// // As a UI across a process boundary sends it.
/// let answer: ApprovalResponse = serde_json::from_str(
///     r#"{"approve": {"pattern": {"rule": "run_shell(cargo test:*)", "always": true}}}"#,
/// )
/// .unwrap();
/// assert_eq!(
///     answer,
///     ApprovalResponse::Approve(ApprovalScope::Pattern {
///         rule: "run_shell(cargo test:*)".to_owned(),
///         always: true,
///     })
/// );
/// assert_eq!(serde_json::from_str::<ApprovalResponse>(r#""abort""#).unwrap(), ApprovalResponse::Abort);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalResponse {
    /// Run the call; the scope says what else the answer covers.
    Approve(ApprovalScope),
    /// Do not run the call. The guidance, if any, is passed to the model.
    Reject {
        /// What the user wants done instead.
        guidance: Option<String>,
    },
    /// Do not run this call, and stop: calls of the same batch not yet started are cancelled.
    Abort,
    /// The question could not be put to the user, or the answer was none of the choices (an
    /// MCP client that failed, a form answered with no decision): the call is denied with
    /// this reason, and the model is not told that the user said anything.
    NotAsked {
        /// Why no answer was had.
        reason: String,
    },
}

impl ApprovalResponse {
    /// Approve this call only.
    #[must_use]
    pub const fn once() -> Self {
        ApprovalResponse::Approve(ApprovalScope::Once)
    }

    /// Nobody could answer: see [`ApprovalResponse::NotAsked`].
    pub fn not_asked(reason: impl Into<String>) -> Self {
        ApprovalResponse::NotAsked {
            reason: reason.into(),
        }
    }

    /// Reject with guidance for the model.
    pub fn reject(guidance: impl Into<String>) -> Self {
        ApprovalResponse::Reject {
            guidance: Some(guidance.into()),
        }
    }
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

    /// This approver, forwarding tools' own questions ([`Question`]s) to the returned
    /// receiver too; at most `capacity` questions wait unread.
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_core::{tool, Coordinator, ToolCall, ToolError, Toolset};
    /// use tool_core::approval::{Answer, ChannelApprover, Question};
    /// use tool_core::context::Session;
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

/// Why the grants file could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GrantsError {
    /// The file exists but could not be read, or could not be written.
    #[error("grants file `{}`: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the file system said.
        source: std::io::Error,
    },
    /// The file is not a grants file.
    #[error(
        "grants file `{}` is not valid ({source}); expected a JSON object like {{\"allow\": [\"run_shell(cargo test:*)\"]}}",
        path.display()
    )]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What the parser said.
        source: serde_json::Error,
    },
}

/// The file where "always" approvals are kept between sessions: a JSON object
/// `{"allow": ["rule", ...]}` in the policy's rule syntax. Writes replace the file atomically
/// (a temporary file in the same directory, then a rename), so a crash never leaves half a file.
///
/// ```
/// use tool_core::approval::GrantsFile;
///
/// let dir = tempfile::tempdir().unwrap();
/// let grants = GrantsFile::new(dir.path().join("grants.json"));
/// assert!(grants.load().unwrap().is_empty()); // no file yet: no grants
/// grants.add("run_shell(cargo test:*)").unwrap();
/// grants.add("run_shell(cargo test:*)").unwrap(); // kept once
/// assert_eq!(grants.load().unwrap(), ["run_shell(cargo test:*)"]);
/// ```
#[derive(Debug, Clone)]
pub struct GrantsFile {
    path: PathBuf,
}

/// One writer at a time within the process, whatever `GrantsFile` value it goes through (an
/// agent and its subagent may each have one for the same file): read-modify-write must not
/// interleave. Another process writing the same file at the same moment can still lose a grant.
static WRITING: Mutex<()> = Mutex::new(());

#[derive(Debug, Default, Serialize, Deserialize)]
struct GrantsDocument {
    #[serde(default)]
    allow: Vec<String>,
}

impl GrantsFile {
    /// The grants file at `path` (it need not exist yet).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        GrantsFile { path: path.into() }
    }

    /// Where the file is.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The rules granted so far; none when the file does not exist.
    ///
    /// # Errors
    /// When the file cannot be read or is not a grants file.
    pub fn load(&self) -> Result<Vec<String>, GrantsError> {
        Ok(self.read()?.allow)
    }

    /// Adds a rule (once) and writes the file atomically.
    ///
    /// # Errors
    /// When the file cannot be read, parsed or written; the old file is then left as it was.
    pub fn add(&self, rule: &str) -> Result<(), GrantsError> {
        let _writing = WRITING
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut document = self.read()?;
        if document.allow.iter().any(|existing| existing == rule) {
            return Ok(());
        }
        document.allow.push(rule.to_owned());
        self.write(&document)
    }

    fn read(&self) -> Result<GrantsDocument, GrantsError> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Ok(GrantsDocument::default());
            }
            Err(source) => {
                return Err(GrantsError::Io {
                    path: self.path.clone(),
                    source,
                });
            }
        };
        serde_json::from_str(&text).map_err(|source| GrantsError::Invalid {
            path: self.path.clone(),
            source,
        })
    }

    fn write(&self, document: &GrantsDocument) -> Result<(), GrantsError> {
        let io = |source| GrantsError::Io {
            path: self.path.clone(),
            source,
        };
        let dir = match self.path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&dir).map_err(io)?;
        let mut text = serde_json::to_vec_pretty(document).map_err(|error| io(error.into()))?;
        text.push(b'\n');
        let file_name = self
            .path
            .file_name()
            .map_or_else(|| "grants".into(), |name| name.to_string_lossy());
        // Unique per write, so no two writers ever share a temporary file.
        static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let write = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let temp = dir.join(format!(".{file_name}.{}.{write}.tmp", std::process::id()));
        let written = (|| {
            let mut file = std::fs::File::create(&temp)?;
            file.write_all(&text)?;
            file.sync_all()?;
            std::fs::rename(&temp, &self.path)
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        written.map_err(io)
    }
}
