//! What a hook is told: the [`HookEvent`] it runs for and the [`HookInput`] it receives, which
//! serializes to exactly the JSON Claude Code writes on a command hook's stdin.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::runtime::approval::{Answer, Question};
use crate::runtime::policy::Mode;

/// The moments of a tool call at which hooks run, with Claude Code's names.
///
/// ```
/// use tool_core::hooks::HookEvent;
///
/// assert_eq!(HookEvent::PreToolUse.as_str(), "PreToolUse");
/// assert_eq!("PostToolUseFailure".parse::<HookEvent>().unwrap(), HookEvent::PostToolUseFailure);
/// assert!("Stop".parse::<HookEvent>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[non_exhaustive]
pub enum HookEvent {
    /// Before the policy decides and the tool runs: may block the call, decide its
    /// permission (never lifting a deny or ask rule), defer it, or replace its input.
    PreToolUse,
    /// After the tool succeeded: may add context for the model or replace what it reads.
    PostToolUse,
    /// After the tool failed.
    PostToolUseFailure,
    /// When the user would be asked to approve the call: may allow or deny in their place.
    PermissionRequest,
    /// After the policy (safety, a deny rule, the mode, a condition) or the user denied the
    /// call: may tell the model it can retry (`retry: true`), to log or escalate a denial.
    PermissionDenied,
    /// Once after a batch of calls (one model turn's) has fully resolved, before the next
    /// model call: sees every call and result at once; may add context or stop the turn.
    PostToolBatch,
    /// When an imported MCP server's tool asks the user a question (`elicitation/create`)
    /// while it runs: may answer in the user's place (`action` and `content`), or decline
    /// (exit code 2). Matched by the server's name, not a tool's.
    Elicitation,
    /// After the question of an [`Elicitation`](Self::Elicitation) was answered (by the user
    /// or a hook), before the answer goes back to the server: may replace the answer, or
    /// decline (exit code 2). Matched by the server's name.
    ElicitationResult,
}

impl HookEvent {
    /// Every event, in the order of a call.
    pub const ALL: [HookEvent; 8] = [
        HookEvent::PreToolUse,
        HookEvent::PermissionRequest,
        HookEvent::PermissionDenied,
        HookEvent::Elicitation,
        HookEvent::ElicitationResult,
        HookEvent::PostToolUse,
        HookEvent::PostToolUseFailure,
        HookEvent::PostToolBatch,
    ];

    /// Claude Code's name of the event.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::PostToolUseFailure => "PostToolUseFailure",
            HookEvent::PermissionRequest => "PermissionRequest",
            HookEvent::PermissionDenied => "PermissionDenied",
            HookEvent::PostToolBatch => "PostToolBatch",
            HookEvent::Elicitation => "Elicitation",
            HookEvent::ElicitationResult => "ElicitationResult",
        }
    }

    /// `true` for the events of one tool call, whose matcher matches the tool's names and
    /// whose input names the tool; `false` for a batch's event (matched by every tool of the
    /// batch) and the elicitation events (matched by the MCP server's name).
    #[must_use]
    pub const fn is_per_call(self) -> bool {
        !matches!(
            self,
            HookEvent::PostToolBatch | HookEvent::Elicitation | HookEvent::ElicitationResult
        )
    }

    /// A dense index, for per-event tables.
    pub(crate) const fn index(self) -> usize {
        match self {
            HookEvent::PreToolUse => 0,
            HookEvent::PermissionRequest => 1,
            HookEvent::PostToolUse => 2,
            HookEvent::PostToolUseFailure => 3,
            HookEvent::PermissionDenied => 4,
            HookEvent::PostToolBatch => 5,
            HookEvent::Elicitation => 6,
            HookEvent::ElicitationResult => 7,
        }
    }
}

impl fmt::Display for HookEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An event name that is none of the events hooks run for here.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown hook event `{0}`; expected one of `PreToolUse`, `PostToolUse`, `PostToolUseFailure`, `PermissionRequest`, `PermissionDenied`, `PostToolBatch`, `Elicitation`, `ElicitationResult`"
)]
pub struct UnknownHookEvent(pub String);

impl FromStr for HookEvent {
    type Err = UnknownHookEvent;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        HookEvent::ALL
            .into_iter()
            .find(|event| event.as_str() == text)
            .ok_or_else(|| UnknownHookEvent(text.to_owned()))
    }
}

/// What a hook receives: Claude Code's hook input.
///
/// Serialized, it is the JSON object a command hook reads on stdin, with Claude Code's field
/// names; fields that do not apply (`tool_response` outside `PostToolUse`, `error` outside
/// `PostToolUseFailure`, an unknown `tool_use_id`) are omitted, never `null`.
///
/// `tool_name` is the name the hook's matcher matched, as a script written for Claude Code
/// expects: a hook registered for `Bash` on a tool `run_shell` aliased `Bash` reads
/// `"tool_name": "Bash"`. One field is our extension: `tool_name_canonical`, always present,
/// is the tool's own name (`run_shell`), the same as `tool_name` when the matcher matched that
/// (`*` always does). [`Hooks::run`](super::Hooks::run) sets both for each hook it runs.
///
/// ```
/// use tool_core::hooks::HookInput;
/// use serde_json::json;
///
/// let input = HookInput::pre_tool_use("Bash", json!({"command": "ls"}))
///     .session_id("s1")
///     .cwd("/work");
/// assert_eq!(
///     serde_json::to_value(&input).unwrap(),
///     json!({
///         "session_id": "s1",
///         "cwd": "/work",
///         "hook_event_name": "PreToolUse",
///         "tool_name": "Bash",
///         "tool_name_canonical": "Bash",
///         "tool_input": {"command": "ls"},
///         "permission_mode": "default",
///     })
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct HookInput {
    /// The session (conversation) the call belongs to.
    pub session_id: String,
    /// The working directory: a command hook runs here, and `CLAUDE_PROJECT_DIR` names it.
    /// Defaults to the process's current directory.
    pub cwd: PathBuf,
    /// The event.
    pub hook_event_name: HookEvent,
    /// The tool's name as the hook's matcher matched it: an alias (`Bash`) when the matcher
    /// named that alias, else the tool's own name. Claude Code's field. Empty, and omitted,
    /// for the events that are not one call's ([`HookEvent::is_per_call`]).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub tool_name: String,
    /// The tool's own (canonical) name, whichever name the matcher matched. Our extension to
    /// Claude Code's input, for scripts that want one name per tool.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub tool_name_canonical: String,
    /// The call's arguments (`null`, and omitted, outside one call's events).
    #[serde(skip_serializing_if = "Value::is_null")]
    pub tool_input: Value,
    /// The model's id for the call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// What the tool returned (`PostToolUse` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_response: Option<Value>,
    /// Why the tool failed (`PostToolUseFailure` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Why the call was denied (`PermissionDenied` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Every call of the batch with its result (`PostToolBatch` only), in the batch's order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<BatchCall>>,
    /// The MCP server asking the question (`Elicitation`, `ElicitationResult`): the name it
    /// was imported under, which the hooks' matcher matches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mcp_server_name: Option<String>,
    /// Pairs an `Elicitation` with its `ElicitationResult`: the same id in both.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    /// The question put to the user (`Elicitation`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The elicitation's mode (`Elicitation`, `ElicitationResult`): always `"form"`, the only
    /// mode the client declares.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// The form's JSON Schema (`Elicitation`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requested_schema: Option<Value>,
    /// The answer (`ElicitationResult`): `"accept"`, `"decline"` or `"cancel"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// What an accepted answer filled in (`ElicitationResult`, when accepted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<Value>,
    /// The session's permission mode, by Claude Code's name.
    #[serde(serialize_with = "serialize_claude_mode")]
    pub permission_mode: Mode,
}

fn serialize_claude_mode<S: Serializer>(mode: &Mode, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(mode.claude_name())
}

impl HookInput {
    fn new(event: HookEvent, tool_name: impl Into<String>, tool_input: Value) -> Self {
        let tool_name = tool_name.into();
        HookInput {
            session_id: String::new(),
            // The process's directory until the caller names the workspace's.
            cwd: std::env::current_dir().unwrap_or_default(),
            hook_event_name: event,
            tool_name_canonical: tool_name.clone(),
            tool_name,
            tool_input,
            tool_use_id: None,
            tool_response: None,
            error: None,
            reason: None,
            tool_calls: None,
            mcp_server_name: None,
            elicitation_id: None,
            message: None,
            mode: None,
            requested_schema: None,
            action: None,
            content: None,
            permission_mode: Mode::Default,
        }
    }

    /// The input of a `PreToolUse` hook.
    pub fn pre_tool_use(tool_name: impl Into<String>, tool_input: Value) -> Self {
        HookInput::new(HookEvent::PreToolUse, tool_name, tool_input)
    }

    /// The input of a `PermissionRequest` hook.
    pub fn permission_request(tool_name: impl Into<String>, tool_input: Value) -> Self {
        HookInput::new(HookEvent::PermissionRequest, tool_name, tool_input)
    }

    /// The input of a `PermissionDenied` hook, with why the call was denied.
    pub fn permission_denied(
        tool_name: impl Into<String>,
        tool_input: Value,
        reason: impl Into<String>,
    ) -> Self {
        let mut input = HookInput::new(HookEvent::PermissionDenied, tool_name, tool_input);
        input.reason = Some(reason.into());
        input
    }

    /// The input of a `PostToolBatch` hook: every call of the batch with its result. Its
    /// `tool_name` and `tool_input` are empty; `tool_calls` holds the calls.
    pub fn post_tool_batch(tool_calls: Vec<BatchCall>) -> Self {
        let mut input = HookInput::new(HookEvent::PostToolBatch, String::new(), Value::Null);
        input.tool_calls = Some(tool_calls);
        input
    }

    /// The input of an `Elicitation` hook: MCP server `server` asks `question`; the same
    /// `elicitation_id` comes with its `ElicitationResult`.
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_core::approval::Question;
    /// use tool_core::hooks::HookInput;
    ///
    /// let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
    /// let question = Question::new("Your name?", schema.clone()).unwrap();
    /// let input = HookInput::elicitation("github", "e1", &question).session_id("s1").cwd("/work");
    /// assert_eq!(
    ///     serde_json::to_value(&input).unwrap(),
    ///     json!({
    ///         "session_id": "s1",
    ///         "cwd": "/work",
    ///         "hook_event_name": "Elicitation",
    ///         "mcp_server_name": "github",
    ///         "elicitation_id": "e1",
    ///         "message": "Your name?",
    ///         "mode": "form",
    ///         "requested_schema": schema,
    ///         "permission_mode": "default",
    ///     })
    /// );
    /// ```
    pub fn elicitation(
        server: impl Into<String>,
        elicitation_id: impl Into<String>,
        question: &Question,
    ) -> Self {
        let mut input = HookInput::new(HookEvent::Elicitation, String::new(), Value::Null);
        input.mcp_server_name = Some(server.into());
        input.elicitation_id = Some(elicitation_id.into());
        input.message = Some(question.message().to_owned());
        input.mode = Some("form".to_owned());
        input.requested_schema = Some(question.schema().clone());
        input
    }

    /// The input of an `ElicitationResult` hook: the answer to the question of the
    /// `Elicitation` with the same `elicitation_id`.
    pub fn elicitation_result(
        server: impl Into<String>,
        elicitation_id: impl Into<String>,
        answer: &Answer,
    ) -> Self {
        let mut input = HookInput::new(HookEvent::ElicitationResult, String::new(), Value::Null);
        input.mcp_server_name = Some(server.into());
        input.elicitation_id = Some(elicitation_id.into());
        input.mode = Some("form".to_owned());
        let (action, content) = match answer {
            Answer::Accept(content) => ("accept", Some(Value::Object(content.clone()))),
            Answer::Decline => ("decline", None),
            Answer::Cancel => ("cancel", None),
        };
        input.action = Some(action.to_owned());
        input.content = content;
        input
    }

    /// The input of a `PostToolUse` hook, with what the tool returned.
    pub fn post_tool_use(
        tool_name: impl Into<String>,
        tool_input: Value,
        tool_response: Value,
    ) -> Self {
        let mut input = HookInput::new(HookEvent::PostToolUse, tool_name, tool_input);
        input.tool_response = Some(tool_response);
        input
    }

    /// The input of a `PostToolUseFailure` hook, with why the tool failed.
    pub fn post_tool_use_failure(
        tool_name: impl Into<String>,
        tool_input: Value,
        error: impl Into<String>,
    ) -> Self {
        let mut input = HookInput::new(HookEvent::PostToolUseFailure, tool_name, tool_input);
        input.error = Some(error.into());
        input
    }

    /// This input as a hook whose matcher matched the tool by `matched` receives it.
    pub(super) fn as_matched(&self, matched: &str, canonical: &str) -> Self {
        let mut input = self.clone();
        matched.clone_into(&mut input.tool_name);
        canonical.clone_into(&mut input.tool_name_canonical);
        input
    }

    /// The same input with this session id.
    #[must_use]
    pub fn session_id(mut self, session_id: impl Into<String>) -> Self {
        self.session_id = session_id.into();
        self
    }

    /// The same input with this working directory.
    #[must_use]
    pub fn cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = cwd.into();
        self
    }

    /// The same input with the model's id for the call.
    #[must_use]
    pub fn tool_use_id(mut self, tool_use_id: impl Into<String>) -> Self {
        self.tool_use_id = Some(tool_use_id.into());
        self
    }

    /// The same input with this permission mode.
    #[must_use]
    pub fn permission_mode(mut self, mode: Mode) -> Self {
        self.permission_mode = mode;
        self
    }

    /// The event this input is for.
    #[must_use]
    pub fn event(&self) -> HookEvent {
        self.hook_event_name
    }
}

/// One call of a batch as a `PostToolBatch` hook sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct BatchCall {
    /// The tool's name as the model called it.
    pub tool_name: String,
    /// The call's arguments.
    pub tool_input: Value,
    /// The model's id for the call.
    pub tool_use_id: String,
    /// What the tool returned, when it succeeded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_response: Option<Value>,
    /// Why it failed (or was not run), when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl BatchCall {
    /// A call of a batch, with its success (`tool_response`) or failure (`error`).
    pub fn new(
        tool_name: impl Into<String>,
        tool_input: Value,
        tool_use_id: impl Into<String>,
        outcome: Result<Value, String>,
    ) -> Self {
        let (tool_response, error) = match outcome {
            Ok(response) => (Some(response), None),
            Err(error) => (None, Some(error)),
        };
        BatchCall {
            tool_name: tool_name.into(),
            tool_input,
            tool_use_id: tool_use_id.into(),
            tool_response,
            error,
        }
    }
}
