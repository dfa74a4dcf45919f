//! What all the hooks of one event answered together: [`CombinedOutput`], aggregated from each
//! hook's [`HookOutput`] in registration order, whatever order they finished in.

use std::fmt;

use serde_json::{Map, Value};

use super::output::HookOutput;
use crate::runtime::approval::Answer;
use crate::runtime::policy::{Decision, DecisionSource, PolicyLayer, Verdict};

/// A message from one hook, naming the hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookMessage {
    /// The hook's name (a command hook's command).
    pub hook: String,
    /// What it said.
    pub message: String,
}

impl fmt::Display for HookMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "hook `{}`: {}", self.hook, self.message)
    }
}

/// The permission decision of the hooks: the strictest one given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookDecision {
    /// The hook that gave it (the first registered among those giving the strictest verdict).
    pub hook: String,
    /// Allow, ask or deny.
    pub verdict: Verdict,
    /// Its reason, if the hook gave one.
    pub reason: Option<String>,
}

/// A hook's answer to an MCP server's question, naming the hook.
#[derive(Debug, Clone, PartialEq)]
pub struct HookAnswer {
    /// The hook that gave it.
    pub hook: String,
    /// Its answer.
    pub answer: Answer,
}

/// What the matching hooks of one event answered, together.
///
/// Aggregation rules:
/// - `blocks`, `stops`, `errors`, `system_messages`, `additional_context`: every hook's, in
///   registration order;
/// - `permission`: the strictest verdict (deny > ask > allow); among equals, the first
///   registered;
/// - `updated_input`, `updated_tool_output`: if several hooks replace it, the **last
///   registered** wins (later settings files register later, so the most local one wins);
/// - `suppress_output`: if any hook asks;
/// - `answer` (Elicitation, ElicitationResult): a refusal (decline or cancel) over an
///   accept, the first registered among refusals and the last registered among accepts (as
///   for `updated_input`); a block declines (see
///   [`elicitation_answer`](Self::elicitation_answer)).
///
/// ```
/// use tool_core::hooks::{hook_fn, HookEvent, HookInput, HookOutput, Hooks};
/// use tool_core::policy::{PolicyLayer, Verdict};
/// use serde_json::json;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut hooks = Hooks::new();
/// hooks.register(HookEvent::PreToolUse, "*", hook_fn("reads-are-fine", |_: &HookInput| async {
///     HookOutput::default().permission(Verdict::Allow, "reads are fine").additional_context("checked")
/// })).unwrap();
/// hooks.register(HookEvent::PreToolUse, "read_file", hook_fn("secrets", |input: &HookInput| {
///     let secret = input.tool_input["path"].as_str().is_some_and(|path| path.ends_with(".env"));
///     async move {
///         let output = HookOutput::default();
///         if secret { output.permission(Verdict::Ask, "this file holds secrets") } else { output }
///     }
/// })).unwrap();
///
/// let input = HookInput::pre_tool_use("read_file", json!({"path": ".env"}));
/// let outcome = hooks.run(HookEvent::PreToolUse, &["read_file"], &input).await;
/// assert_eq!(outcome.hooks_run, 2);
/// assert_eq!(outcome.additional_context, ["checked"]);
/// // The strictest permission wins, and becomes the hooks' decision.
/// let decision = outcome.decision().unwrap();
/// assert_eq!((decision.verdict, decision.source.layer), (Verdict::Ask, PolicyLayer::Hook));
/// assert_eq!(decision.reason, "this file holds secrets");
/// # });
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct CombinedOutput {
    /// How many hooks ran (identical command hooks count once).
    pub hooks_run: usize,
    /// Blocking answers (exit 2, or `decision: "block"` after a call): messages for the model.
    pub blocks: Vec<HookMessage>,
    /// The strictest permission decision.
    pub permission: Option<HookDecision>,
    /// PreToolUse hooks that deferred the decision (`permissionDecision: "defer"`), with
    /// their reasons. Outranks every decision but a deny (Claude Code: deny > defer > ask >
    /// allow).
    pub defers: Vec<HookMessage>,
    /// A PermissionDenied hook said the model may retry the call (`retry: true`).
    pub retry: bool,
    /// A replacement tool input, to be validated like any model input.
    pub updated_input: Option<Map<String, Value>>,
    /// Text added for the model.
    pub additional_context: Vec<String>,
    /// A replacement of what the model reads of the tool's result.
    pub updated_tool_output: Option<Value>,
    /// The hooks' answer to an MCP server's question (Elicitation, ElicitationResult).
    pub answer: Option<HookAnswer>,
    /// Warnings for the user.
    pub system_messages: Vec<HookMessage>,
    /// Requests to stop the agent's turn (`continue: false`), with their reasons.
    pub stops: Vec<HookMessage>,
    /// Some hook asked not to show its output to the user.
    pub suppress_output: bool,
    /// Stdout that was not JSON, for the log.
    pub plain_outputs: Vec<HookMessage>,
    /// Non-blocking errors: failed, timed-out or confused hooks. The call goes on.
    pub errors: Vec<HookMessage>,
}

impl CombinedOutput {
    /// `true` if a hook blocked.
    #[must_use]
    pub fn is_blocked(&self) -> bool {
        !self.blocks.is_empty()
    }

    /// `true` if a hook asked to stop the agent's turn.
    #[must_use]
    pub fn should_stop(&self) -> bool {
        !self.stops.is_empty()
    }

    /// Every blocking message, one per line, for the model.
    #[must_use]
    pub fn block_message(&self) -> Option<String> {
        join_messages(&self.blocks)
    }

    /// The hooks' verdict as a policy [`Decision`] from [`PolicyLayer::Hook`]: a block is a deny
    /// (before a call it stops the call; for a permission request it denies), otherwise the
    /// strictest permission decision. `None` if the hooks decided nothing.
    #[must_use]
    pub fn decision(&self) -> Option<Decision> {
        if let Some(message) = self.block_message() {
            let hooks: Vec<&str> = self
                .blocks
                .iter()
                .map(|block| block.hook.as_str())
                .collect();
            return Some(Decision::deny(
                message,
                DecisionSource::new(PolicyLayer::Hook, hooks.join(", ")),
            ));
        }
        let permission = self.permission.as_ref()?;
        let reason = permission.reason.clone().unwrap_or_else(|| {
            format!("hook `{}` decided {}", permission.hook, permission.verdict)
        });
        Some(Decision::new(
            permission.verdict,
            reason,
            DecisionSource::new(PolicyLayer::Hook, permission.hook.clone()),
        ))
    }

    /// The answer the hooks gave to an MCP server's question: a block declines it (exit code
    /// 2, as Claude Code has it), else the aggregated `answer`. `None`: no hook answered, and
    /// the user is asked (Elicitation) or keeps their answer (ElicitationResult).
    #[must_use]
    pub fn elicitation_answer(&self) -> Option<Answer> {
        if self.is_blocked() {
            return Some(Answer::Decline);
        }
        self.answer.as_ref().map(|answer| answer.answer.clone())
    }

    /// Adds one hook's answer; called in registration order.
    pub(crate) fn absorb(&mut self, hook: &str, output: HookOutput) {
        let message = |message: String| HookMessage {
            hook: hook.to_owned(),
            message,
        };
        self.hooks_run += 1;
        if let Some(block) = output.block {
            self.blocks.push(message(block));
        }
        if let Some(permission) = output.permission {
            let stricter = self
                .permission
                .as_ref()
                .is_none_or(|current| permission.verdict > current.verdict);
            if stricter {
                self.permission = Some(HookDecision {
                    hook: hook.to_owned(),
                    verdict: permission.verdict,
                    reason: permission.reason,
                });
            }
        }
        if let Some(reason) = output.defer {
            self.defers.push(message(reason));
        }
        self.retry |= output.retry;
        if output.updated_input.is_some() {
            self.updated_input = output.updated_input;
        }
        if let Some(answer) = output.answer {
            // A later answer replaces an accept (the last accept wins, and a refusal stands
            // over it); nothing replaces a refusal (the first refusal wins).
            let replaces = self
                .answer
                .as_ref()
                .is_none_or(|current| matches!(current.answer, Answer::Accept(_)));
            if replaces {
                self.answer = Some(HookAnswer {
                    hook: hook.to_owned(),
                    answer,
                });
            }
        }
        self.additional_context.extend(output.additional_context);
        if output.updated_tool_output.is_some() {
            self.updated_tool_output = output.updated_tool_output;
        }
        if let Some(warning) = output.system_message {
            self.system_messages.push(message(warning));
        }
        if let Some(reason) = output.stop {
            self.stops.push(message(reason));
        }
        self.suppress_output |= output.suppress_output;
        if let Some(text) = output.plain_output {
            self.plain_outputs.push(message(text));
        }
        if let Some(error) = output.error {
            self.errors.push(message(error));
        }
    }
}

fn join_messages(messages: &[HookMessage]) -> Option<String> {
    if messages.is_empty() {
        return None;
    }
    Some(
        messages
            .iter()
            .map(|message| message.message.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
    )
}
