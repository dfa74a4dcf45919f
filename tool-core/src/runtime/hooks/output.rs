//! What one hook answered: [`HookOutput`], and how a command hook's exit code, stdout and
//! stderr become one, following Claude Code's protocol.
//!
//! - Exit 0: stdout that is a JSON object is the structured answer ([`HookOutput::from_json`]);
//!   other stdout is plain output, kept but never a decision; stdout that starts with `{` and
//!   does not parse is a non-blocking error.
//! - Exit 2: blocking; stderr is the message for the model. Stdout is ignored, as in Claude
//!   Code.
//! - Anything else: a non-blocking error carrying stderr; the call goes on.
//!
//! A JSON answer is read into the types of its fields by the crate's one configuration reader
//! (`runtime::config`); one with a field of the wrong type is ignored whole and becomes a
//! non-blocking error naming the field by its path: applying half of an answer (an
//! `updatedInput` without the decision that came with it) would do something the hook never
//! said.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::event::HookEvent;
use crate::definition::args::json_kind;
use crate::runtime::approval::Answer;
use crate::runtime::config;
use crate::runtime::policy::Verdict;

/// A hook's permission decision, with its reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookPermission {
    /// Allow, ask or deny.
    pub verdict: Verdict,
    /// Why, for the user (allow, ask) or the model (deny).
    pub reason: Option<String>,
}

/// What one hook answered. Every field is optional; [`HookOutput::default`] is "nothing to
/// say", the answer of a hook that exits 0 silently.
///
/// In-process hooks build one directly:
///
/// ```
/// use tool_core::hooks::HookOutput;
/// use tool_core::policy::Verdict;
///
/// let out = HookOutput::default().permission(Verdict::Deny, "no pushes on Fridays");
/// assert_eq!(out.permission.unwrap().verdict, Verdict::Deny);
/// assert!(HookOutput::block("rm -rf is not allowed").block.is_some());
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct HookOutput {
    /// Blocking (exit 2, or `decision: "block"` after the tool ran): the message for the model.
    /// Before a call it blocks the call; for a permission request it denies; after a call the
    /// message goes to the model.
    pub block: Option<String>,
    /// `continue: false`: stop the agent's turn, with `stopReason` (empty if none was given).
    pub stop: Option<String>,
    /// `suppressOutput`: do not show the hook's output to the user.
    pub suppress_output: bool,
    /// `systemMessage`: a warning for the user.
    pub system_message: Option<String>,
    /// `permissionDecision` (or the legacy `decision: "approve"/"block"` before a call, or a
    /// permission request's `decision.behavior`).
    pub permission: Option<HookPermission>,
    /// `permissionDecision: "defer"` (PreToolUse): the call is not decided now; it ends
    /// pending, for the embedding program to settle and run again. The reason, if given.
    pub defer: Option<String>,
    /// `retry: true` (PermissionDenied): the model may try the call again.
    pub retry: bool,
    /// `updatedInput`: an object replacing the tool's input.
    pub updated_input: Option<Map<String, Value>>,
    /// `additionalContext`: text added for the model.
    pub additional_context: Option<String>,
    /// `updatedToolOutput`: replaces what the model reads of the tool's result.
    pub updated_tool_output: Option<Value>,
    /// `action` and `content` (Elicitation, ElicitationResult): the answer to an MCP server's
    /// question, given in the user's place (Elicitation) or replacing theirs
    /// (ElicitationResult).
    pub answer: Option<Answer>,
    /// Stdout that was not JSON: kept for the log, never a decision.
    pub plain_output: Option<String>,
    /// A non-blocking error: the hook failed, timed out or answered nonsense; the call goes on.
    pub error: Option<String>,
}

impl HookOutput {
    /// A blocking answer with this message for the model.
    pub fn block(message: impl Into<String>) -> Self {
        HookOutput {
            block: Some(message.into()),
            ..HookOutput::default()
        }
    }

    /// A non-blocking error.
    pub fn error(message: impl Into<String>) -> Self {
        HookOutput {
            error: Some(message.into()),
            ..HookOutput::default()
        }
    }

    /// The same answer with a permission decision and its reason.
    #[must_use]
    pub fn permission(mut self, verdict: Verdict, reason: impl Into<String>) -> Self {
        self.permission = Some(HookPermission {
            verdict,
            reason: Some(reason.into()),
        });
        self
    }

    /// The same answer with text added for the model.
    #[must_use]
    pub fn additional_context(mut self, context: impl Into<String>) -> Self {
        self.additional_context = Some(context.into());
        self
    }

    /// The same answer with a replacement tool input.
    #[must_use]
    pub fn updated_input(mut self, input: Map<String, Value>) -> Self {
        self.updated_input = Some(input);
        self
    }

    /// The same answer with a replacement of what the model reads.
    #[must_use]
    pub fn updated_tool_output(mut self, output: Value) -> Self {
        self.updated_tool_output = Some(output);
        self
    }

    /// The same answer with an answer to an MCP server's question (Elicitation,
    /// ElicitationResult).
    #[must_use]
    pub fn answer(mut self, answer: Answer) -> Self {
        self.answer = Some(answer);
        self
    }

    /// The same answer with a warning for the user.
    #[must_use]
    pub fn system_message(mut self, message: impl Into<String>) -> Self {
        self.system_message = Some(message.into());
        self
    }

    /// The same answer asking to stop, with this reason.
    #[must_use]
    pub fn stop(mut self, reason: impl Into<String>) -> Self {
        self.stop = Some(reason.into());
        self
    }

    /// The answer of a command hook, from its exit code (`None` if a signal ended it), stdout
    /// and stderr, for `event`.
    #[must_use]
    pub fn from_command(
        event: HookEvent,
        exit_code: Option<i32>,
        stdout: &str,
        stderr: &str,
    ) -> Self {
        let stderr = stderr.trim();
        match exit_code {
            Some(0) => HookOutput::from_stdout(event, stdout),
            Some(2) if stderr.is_empty() => {
                HookOutput::block("blocked by a hook (exit code 2, nothing on stderr)")
            }
            Some(2) => HookOutput::block(stderr),
            Some(code) => {
                HookOutput::error(with_stderr(format!("exited with code {code}"), stderr))
            }
            None => HookOutput::error(with_stderr("was ended by a signal".to_owned(), stderr)),
        }
    }

    fn from_stdout(event: HookEvent, stdout: &str) -> Self {
        let text = stdout.trim();
        if text.is_empty() {
            return HookOutput::default();
        }
        if !text.starts_with('{') {
            return HookOutput {
                plain_output: Some(text.to_owned()),
                ..HookOutput::default()
            };
        }
        match serde_json::from_str::<Value>(text) {
            Ok(value) => HookOutput::from_json(event, &value),
            Err(error) => HookOutput {
                plain_output: Some(text.to_owned()),
                error: Some(format!(
                    "printed output that starts with `{{` but is not valid JSON ({error}); expected one JSON object with Claude Code's hook output fields"
                )),
                ..HookOutput::default()
            },
        }
    }

    /// The answer a hook gave as a JSON object with Claude Code's hook output fields. Unknown
    /// fields are ignored; a known field of the wrong type makes the whole answer a
    /// non-blocking error naming the field.
    ///
    /// ```
    /// use tool_core::hooks::{HookEvent, HookOutput};
    /// use tool_core::policy::Verdict;
    /// use serde_json::json;
    ///
    /// let out = HookOutput::from_json(HookEvent::PreToolUse, &json!({
    ///     "hookSpecificOutput": {
    ///         "hookEventName": "PreToolUse",
    ///         "permissionDecision": "deny",
    ///         "permissionDecisionReason": "secrets stay secret",
    ///     }
    /// }));
    /// assert_eq!(out.permission.unwrap().verdict, Verdict::Deny);
    ///
    /// let out = HookOutput::from_json(HookEvent::PreToolUse, &json!({"systemMessage": 3}));
    /// assert!(out.error.unwrap().contains("`systemMessage` should be a string"));
    /// ```
    #[must_use]
    pub fn from_json(event: HookEvent, value: &Value) -> Self {
        match parse_json(event, value) {
            Ok(output) => output,
            Err(problem) => HookOutput {
                plain_output: Some(value.to_string()),
                error: Some(format!("answered JSON that was ignored: {problem}")),
                ..HookOutput::default()
            },
        }
    }
}

fn with_stderr(what: String, stderr: &str) -> String {
    if stderr.is_empty() {
        what
    } else {
        format!("{what}: {stderr}")
    }
}

/// A hook's JSON answer, as Claude Code's protocol has it. Fields not here are ignored, and
/// `null` is absent.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Answered {
    #[serde(rename = "continue")]
    keep_going: Option<bool>,
    stop_reason: Option<String>,
    suppress_output: Option<bool>,
    system_message: Option<String>,
    reason: Option<String>,
    decision: Option<String>,
    hook_specific_output: Option<Specific>,
}

/// `hookSpecificOutput`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Specific {
    hook_event_name: Option<String>,
    permission_decision: Option<String>,
    permission_decision_reason: Option<String>,
    updated_input: Option<Map<String, Value>>,
    retry: Option<bool>,
    additional_context: Option<String>,
    // `null` is an output of its own here.
    #[serde(default, deserialize_with = "config::kept_even_if_null")]
    updated_tool_output: Option<Value>,
    decision: Option<RequestDecision>,
    // Read for the elicitation events only (`parse_answer`): another event's hook may use
    // these names for its own ends.
    action: Option<Value>,
    content: Option<Value>,
}

/// Claude Code's PermissionRequest form: `decision: { behavior, updatedInput?, message? }`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RequestDecision {
    behavior: Option<String>,
    message: Option<String>,
    updated_input: Option<Map<String, Value>>,
}

fn parse_json(event: HookEvent, value: &Value) -> Result<HookOutput, String> {
    if !value.is_object() {
        return Err(format!(
            "the output should be a JSON object, found {}",
            json_kind(value)
        ));
    }
    let answered: Answered = config::read(value, "").map_err(|error| error.to_string())?;
    let mut output = HookOutput::default();

    if answered.keep_going == Some(false) {
        output.stop = Some(answered.stop_reason.unwrap_or_default());
    }
    output.suppress_output = answered.suppress_output.unwrap_or(false);
    output.system_message = answered.system_message;

    let reason = answered.reason;
    match answered.decision.as_deref() {
        None => {}
        Some("block") => match event {
            // Before a call, and when asked for permission, `block` is the legacy deny.
            HookEvent::PreToolUse | HookEvent::PermissionRequest => {
                output.permission = Some(HookPermission {
                    verdict: Verdict::Deny,
                    reason,
                });
            }
            // The call is over (or was denied already): the reason goes to the model; after a
            // batch, the turn stops with it.
            // For an MCP server's question, a block declines it.
            HookEvent::PostToolUse
            | HookEvent::PostToolUseFailure
            | HookEvent::PermissionDenied
            | HookEvent::PostToolBatch
            | HookEvent::Elicitation
            | HookEvent::ElicitationResult => {
                output.block = Some(reason.unwrap_or_else(|| "blocked by a hook".to_owned()));
            }
        },
        Some("approve") => {
            output.permission = Some(HookPermission {
                verdict: Verdict::Allow,
                reason,
            });
        }
        Some(other) => {
            return Err(format!(
                "`decision` should be \"block\" or \"approve\", found \"{other}\""
            ));
        }
    }

    if let Some(specific) = answered.hook_specific_output {
        parse_specific(event, specific, &mut output)?;
    }
    Ok(output)
}

fn parse_specific(
    event: HookEvent,
    specific: Specific,
    output: &mut HookOutput,
) -> Result<(), String> {
    if let Some(name) = &specific.hook_event_name
        && name != event.as_str()
    {
        return Err(format!(
            "`hookSpecificOutput.hookEventName` is \"{name}\" but the hook ran for \"{event}\""
        ));
    }
    let reason = specific.permission_decision_reason.clone();
    match specific.permission_decision.as_deref() {
        None => {}
        Some(text) => {
            let verdict = match text {
                "allow" => Verdict::Allow,
                "ask" => Verdict::Ask,
                "deny" => Verdict::Deny,
                "defer" if event == HookEvent::PreToolUse => {
                    output.defer = Some(reason.unwrap_or_default());
                    return parse_rest(event, specific, output);
                }
                other => {
                    let expected = if event == HookEvent::PreToolUse {
                        "\"allow\", \"deny\", \"ask\" or \"defer\""
                    } else {
                        "\"allow\", \"deny\" or \"ask\""
                    };
                    return Err(format!(
                        "`hookSpecificOutput.permissionDecision` should be {expected}, found \"{other}\""
                    ));
                }
            };
            output.permission = Some(HookPermission { verdict, reason });
        }
    }
    parse_rest(event, specific, output)
}

/// The fields of `hookSpecificOutput` besides the permission decision.
fn parse_rest(event: HookEvent, specific: Specific, output: &mut HookOutput) -> Result<(), String> {
    if matches!(event, HookEvent::Elicitation | HookEvent::ElicitationResult) {
        output.answer = parse_answer(&specific)?;
    }
    if let Some(input) = specific.updated_input {
        output.updated_input = Some(input);
    }
    output.retry = specific.retry.unwrap_or(false);
    output.additional_context = specific.additional_context;
    output.updated_tool_output = specific.updated_tool_output;

    if let Some(decision) = specific.decision {
        let verdict = match decision.behavior.as_deref() {
            Some("allow") => Verdict::Allow,
            Some("deny") => Verdict::Deny,
            Some(other) => {
                return Err(format!(
                    "`hookSpecificOutput.decision.behavior` should be \"allow\" or \"deny\", found \"{other}\""
                ));
            }
            None => {
                return Err(
                    "`hookSpecificOutput.decision.behavior` is missing; expected \"allow\" or \"deny\""
                        .to_owned(),
                );
            }
        };
        output.permission = Some(HookPermission {
            verdict,
            reason: decision.message,
        });
        if let Some(input) = decision.updated_input {
            output.updated_input = Some(input);
        }
    }
    Ok(())
}

/// An elicitation hook's `action` and `content`: `None` when it gave no action (and then no
/// content: content without an action says nothing about which answer it belongs to).
fn parse_answer(specific: &Specific) -> Result<Option<Answer>, String> {
    let content: Option<Map<String, Value>> = match &specific.content {
        Some(value) => {
            config::read(value, "hookSpecificOutput.content").map_err(|error| error.to_string())?
        }
        None => None,
    };
    let action: Option<&str> = match &specific.action {
        Some(value) => {
            config::read(value, "hookSpecificOutput.action").map_err(|error| error.to_string())?
        }
        None => None,
    };
    let answer = match (action, content) {
        (None, Some(_)) => {
            return Err(
                "`hookSpecificOutput.content` came without `hookSpecificOutput.action`; expected `\"action\": \"accept\"` with it"
                    .to_owned(),
            );
        }
        (None, None) => return Ok(None),
        (Some("accept"), content) => Answer::Accept(content.unwrap_or_default()),
        (Some("decline" | "cancel"), Some(_)) => {
            return Err(
                "`hookSpecificOutput.content` goes with `\"action\": \"accept\"` only; a declined or cancelled question has no content"
                    .to_owned(),
            );
        }
        (Some("decline"), None) => Answer::Decline,
        (Some("cancel"), None) => Answer::Cancel,
        (Some(other), _) => {
            return Err(format!(
                "`hookSpecificOutput.action` should be \"accept\", \"decline\" or \"cancel\", found \"{other}\""
            ));
        }
    };
    Ok(Some(answer))
}
