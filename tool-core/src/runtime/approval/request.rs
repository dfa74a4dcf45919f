//! What the user is asked about one call ([`ApprovalRequest`], of a [`RequestKind`]), with
//! its preview and the rule an "always" answer would add, and what comes back
//! ([`ApprovalResponse`], with an [`ApprovalScope`]).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::definition::context::CallInfo;
use crate::definition::spec::{Effect, ResourceKind};
use crate::definition::tool::Resource;
use crate::definition::workspace::ResolvedPath;
use crate::runtime::policy::shell::CommandLine;
use crate::runtime::policy::{DecisionSource, Mode, PolicyLayer};

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
    /// asks through [`Session::ask`](crate::coordinator::Session::ask)). Approving it means "go
    /// ahead": leave plan mode, into the mode an [`ApprovalScope::Mode`] answer names, else
    /// the default mode. A rejection's guidance says what to plan differently.
    ///
    /// Every approver answers it as it answers a call: [`AutoApprove`](super::AutoApprove) accepts, [`DenyAll`](super::DenyAll)
    /// rejects, [`ChannelApprover`](super::ChannelApprover) forwards it to its UI, which tells the two apart by
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
