//! The authorize stage of a call, and the hooks after it.
//!
//! Order, Claude Code's ("How permissions are evaluated"), and why:
//! 1. PreToolUse hooks, for every call, so an audit hook sees the calls the rules deny too: a
//!    hook may stop the call with its reason, replace the input (validated, classified and
//!    confined again like model input), ask, or allow;
//! 2. the policy decides on the input as it now is: safety (the workspace boundary, protected
//!    paths), deny rules, the mode, ask rules, allow rules; a deny ends the call, whatever the
//!    hook said;
//! 3. the budget is charged for what the call now does, so nobody is asked about a call that
//!    could not run (a call the user then rejects has still been made, and counts);
//! 4. a hook's ask makes the call ask; its allow settles the default ask, never an ask rule or
//!    the mode's ask;
//! 5. an ask goes to PermissionRequest hooks, then to the approver; without an approver it is
//!    a deny that says so.
//!
//! Nothing of the call's own effect happens before the policy: a hook only reads its input.
//! After the approver's wait the call's paths are confined again and the call decided again,
//! on the file system and the session as they are then (`decide_after_wait`).

use serde_json::Value;

use super::{Coordinator, Staged};
use crate::definition::call::arguments_value;
use crate::definition::context::CancellationToken;
use crate::definition::output::Content;
use crate::definition::tool::ToolHandle;
use crate::definition::unanswered::Unanswered;
use crate::runtime::approval::{
    ApprovalRequest, ApprovalResponse, ApprovalScope, NO_APPROVER, NOBODY_ANSWERED, NOBODY_TO_ASK,
};
use crate::runtime::budget::BudgetExhausted;
use crate::runtime::events::CallEvent;
use crate::runtime::hooks::{BatchCall, CombinedOutput, HookEvent, HookInput};
use crate::runtime::policy::{
    ClassifiedCall, Decision, DecisionSource, Mode, PolicyContext, PolicyLayer, RulePattern,
    Verdict,
};
use crate::{ToolError, ToolResult};

/// Why a call did not pass: the error, and whether a hook asked to stop the agent's turn
/// (`continue: false`).
pub(super) struct Refusal {
    pub(super) error: ToolError,
    pub(super) stop: Option<String>,
    /// The policy denied the call (not a hook, not the budget): PermissionDenied hooks hear
    /// of it, with this reason.
    pub(super) permission_denied: Option<String>,
}

impl From<ToolError> for Refusal {
    fn from(error: ToolError) -> Self {
        Refusal {
            error,
            stop: None,
            permission_denied: None,
        }
    }
}

impl Coordinator {
    /// Decides whether a staged call may run (a hook may replace its input, in place). On
    /// success, returns the context lines hooks added for the model.
    pub(super) async fn authorize(
        &self,
        staged: &mut Staged,
        snapshot: &PolicyContext,
        batch_abort: Option<&CancellationToken>,
    ) -> Result<Vec<String>, Refusal> {
        let mut context = Vec::new();
        let hooked = self.inner.hooks.has(HookEvent::PreToolUse);
        // Boxed: only a call with PreToolUse hooks waits on them, and every call's future
        // (moved whole when its caller pins it) would otherwise carry their state.
        let hook_decision = if hooked {
            Box::pin(self.pre_tool_use(staged, snapshot, &mut context)).await?
        } else {
            None
        };

        // The rules, the mode and the boundary, on the session as it is after the hooks.
        let after_hooks;
        let snapshot = if hooked {
            after_hooks = self.snapshot();
            &after_hooks
        } else {
            snapshot
        };
        let mut decision = self.decide(staged, snapshot);
        if decision.verdict == Verdict::Deny {
            return Err(self.refuse(staged, decision));
        }
        if let Some(budget) = &self.inner.budget
            && let Err(exhausted) = budget.charge(staged.effect, snapshot.mode)
        {
            return Err(self.refuse(staged, exhausted_decision(&exhausted)));
        }
        if let Some(hook_decision) = hook_decision {
            match hook_decision.verdict {
                // A hook may ask about a call the policy allows.
                Verdict::Ask => decision = hook_decision,
                // A hook's allow skips the default prompt; never the user's ask rules, an ask
                // of the mode, or a deny (that returned above), as in Claude Code.
                Verdict::Allow
                    if decision.verdict == Verdict::Ask
                        && decision.source.layer == PolicyLayer::Default =>
                {
                    decision = hook_decision;
                }
                Verdict::Allow | Verdict::Deny => {}
            }
        }
        self.decided(staged, &decision);

        if decision.verdict == Verdict::Ask {
            // Boxed, as the hooks are below: a call that asks waits for a person anyway, and
            // the wait's state is then not carried, unused, by every call's future (which is
            // moved whole when a caller pins it).
            Box::pin(self.ask(staged, &decision, snapshot, batch_abort, &mut context)).await?;
            self.decide_after_wait(staged)?;
        }
        Ok(context)
    }

    /// What was decided before a wait may no longer hold after it: another call on this
    /// coordinator (an agent's sub-agent, say) may have replaced a directory on a path with a
    /// symlink leading out, or the session may have changed (plan mode switched on, a deny
    /// added). So the paths are confined again as they are now, and the call decided again on
    /// the session as it is now: neither a hook's allow nor an approval outranks a deny.
    fn decide_after_wait(&self, staged: &mut Staged) -> Result<(), Refusal> {
        staged.paths = self.resolve_paths(&staged.prepared, staged.effect);
        let now = self.decide(staged, &self.snapshot());
        if now.verdict == Verdict::Deny {
            return Err(self.refuse(staged, now));
        }
        Ok(())
    }

    pub(super) fn decide(&self, staged: &Staged, snapshot: &PolicyContext) -> Decision {
        let call = ClassifiedCall::new(staged.tool.spec())
            .with_effect(staged.effect)
            .with_resources(staged.prepared.resources())
            .with_commands(&staged.commands)
            .with_paths(&staged.paths)
            .with_arguments(&staged.arguments);
        self.inner.policy.decide(&call, snapshot)
    }

    pub(super) fn decided(&self, staged: &Staged, decision: &Decision) {
        if let Some(events) = &self.inner.events {
            events.send(CallEvent::Decided {
                call_id: staged.call_id.clone(),
                tool: staged.tool.spec().name.clone(),
                effect: staged.effect,
                decision: decision.clone(),
            });
        }
    }

    fn refuse(&self, staged: &Staged, decision: Decision) -> Refusal {
        self.decided(staged, &decision);
        let by_policy = !matches!(
            decision.source.layer,
            PolicyLayer::Hook | PolicyLayer::Budget
        );
        let mut refusal = Refusal::from(ToolError::denied(
            decision.reason.clone(),
            decision.source.to_string(),
        ));
        refusal.permission_denied = by_policy.then(|| decision.reason.into_owned());
        refusal
    }

    /// The PreToolUse hooks of a staged call: they may stop or defer it (its refusal), deny
    /// it, change its input (validated, classified and confined again here) or add context
    /// for the model; returns the decision they gave, if any.
    async fn pre_tool_use(
        &self,
        staged: &mut Staged,
        snapshot: &PolicyContext,
        context: &mut Vec<String>,
    ) -> Result<Option<Decision>, Refusal> {
        let input = self.hook_input(
            HookInput::pre_tool_use(
                staged.tool.spec().name.to_string(),
                arguments_value(&staged.arguments),
            ),
            &staged.call_id,
            snapshot.mode,
        );
        let outcome = self
            .run_hooks(HookEvent::PreToolUse, &staged.tool, &input)
            .await;
        context.extend(outcome.additional_context.iter().cloned());
        if let Some(stop) = outcome.stops.first() {
            let decision = Decision::deny(
                format!("a hook stopped the session: {}", stop.message),
                DecisionSource::new(PolicyLayer::Hook, stop.hook.clone()),
            );
            let mut refusal = self.refuse(staged, decision);
            refusal.stop = Some(stop.message.clone());
            return Err(refusal);
        }
        let hook_decision = outcome.decision();
        if let Some(denied) = hook_decision
            .as_ref()
            .filter(|d| d.verdict == Verdict::Deny)
        {
            return Err(self.refuse(staged, denied.clone()));
        }
        // Deferred: not decided now. The call ends pending (`ToolError::is_pending`), for
        // the embedding program to settle and run again; nothing of it has run.
        if let Some(deferred) = outcome.defers.first() {
            let why = if deferred.message.is_empty() {
                format!("hook `{}` deferred the decision", deferred.hook)
            } else {
                format!(
                    "hook `{}` deferred the decision: {}",
                    deferred.hook, deferred.message
                )
            };
            return Err(Refusal::from(ToolError::from_error(Unanswered::pending(
                format!("`{}` was not run: {why}", staged.tool.spec().name),
            ))));
        }
        match outcome.updated_input {
            // Validated like model input, classified and confined again.
            Some(updated) => self.restage(staged, Value::Object(updated))?,
            // The hook took time: the paths are confined as they are now.
            None => staged.paths = self.resolve_paths(&staged.prepared, staged.effect),
        }
        Ok(hook_decision)
    }

    /// PermissionDenied hooks, after the policy denied a call: they may log or escalate it,
    /// and tell the model it may retry (`retry: true`), which the denial then says.
    pub(super) async fn permission_denied_hooks(
        &self,
        staged: &Staged,
        reason: &str,
        mode: Mode,
        refusal: &mut Refusal,
    ) {
        if !self.inner.hooks.has(HookEvent::PermissionDenied) {
            return;
        }
        let input = self.hook_input(
            HookInput::permission_denied(
                staged.tool.spec().name.to_string(),
                arguments_value(&staged.arguments),
                reason,
            ),
            &staged.call_id,
            mode,
        );
        let outcome = self
            .run_hooks(HookEvent::PermissionDenied, &staged.tool, &input)
            .await;
        if let ToolError::Denied { reason, .. } = &mut refusal.error {
            if outcome.retry {
                reason.push_str(
                    " (a PermissionDenied hook says this call may be retried, changed to fit the rule)",
                );
            }
            for context in &outcome.additional_context {
                reason.push('\n');
                reason.push_str(context);
            }
        }
    }

    /// The call with the input a hook gave it: validated like any model input, classified and
    /// resolved again.
    fn restage(&self, staged: &mut Staged, input: Value) -> Result<(), Refusal> {
        let arguments = input.to_string();
        match self.prepare(&staged.tool, &arguments) {
            Ok(prepared) => {
                (staged.effect, staged.commands, staged.paths) =
                    self.classify(&staged.tool, &prepared);
                staged.prepared = prepared;
                staged.arguments = arguments;
                Ok(())
            }
            Err(error) => {
                let error = ToolError::failed(format!(
                    "a PreToolUse hook replaced this call's arguments with invalid ones, so the tool did not run: {error}"
                ));
                Err(Refusal::from(error))
            }
        }
    }

    /// Settles an ask: PermissionRequest hooks first, then the approver.
    async fn ask(
        &self,
        call: &Staged,
        decision: &Decision,
        snapshot: &PolicyContext,
        batch_abort: Option<&CancellationToken>,
        context: &mut Vec<String>,
    ) -> Result<(), ToolError> {
        let spec = call.tool.spec();
        if self.inner.hooks.has(HookEvent::PermissionRequest) {
            let input = self.hook_input(
                HookInput::permission_request(
                    spec.name.to_string(),
                    arguments_value(&call.arguments),
                ),
                &call.call_id,
                snapshot.mode,
            );
            let outcome = self
                .run_hooks(HookEvent::PermissionRequest, &call.tool, &input)
                .await;
            match outcome.decision() {
                Some(hook) if hook.verdict == Verdict::Allow => return Ok(()),
                Some(hook) if hook.verdict == Verdict::Deny => {
                    return Err(ToolError::denied(hook.reason, hook.source.to_string()));
                }
                _ => {}
            }
        }
        let Some(approver) = call.scope.approver(self.inner.approver.as_ref()) else {
            let (why, source) = match &call.scope.nobody_to_ask {
                Some(why) => (why.as_ref(), NOBODY_TO_ASK),
                None => ("this session has no way to ask", NO_APPROVER),
            };
            return Err(ToolError::denied(
                format!(
                    "`{}` needs the user's approval ({}), and {why}; \
                     do not retry it: tell the user what you wanted to do",
                    spec.name, decision.reason
                ),
                DecisionSource::new(PolicyLayer::User, source).to_string(),
            ));
        };
        let request = ApprovalRequest::new(
            call.call_id.clone(),
            spec.name.clone(),
            &call.arguments,
            call.effect,
            call.prepared.resources(),
            &call.paths,
            decision.reason.clone(),
            decision.source.clone(),
        );
        if let Some(events) = &self.inner.events {
            events.send(CallEvent::AwaitingApproval {
                request: Box::new(request.clone()),
            });
        }
        match approver.approve(&request).await {
            ApprovalResponse::Approve(scope) => {
                self.remember(&scope, &spec.name, context);
                Ok(())
            }
            ApprovalResponse::Reject { guidance } => Err(ToolError::Rejected { guidance }),
            ApprovalResponse::Abort => {
                if let Some(abort) = batch_abort {
                    abort.cancel();
                }
                Err(ToolError::Cancelled)
            }
            ApprovalResponse::NotAsked { reason } => Err(ToolError::denied(
                format!(
                    "`{}` needs the user's approval ({}), and {reason}; do not retry it: tell the user what you wanted to do",
                    spec.name, decision.reason
                ),
                DecisionSource::new(PolicyLayer::User, NOBODY_ANSWERED).to_string(),
            )),
        }
    }

    /// Records what an approval's scope grants beyond this call.
    fn remember(&self, scope: &ApprovalScope, tool: &str, context: &mut Vec<String>) {
        let (rule, persist) = match scope {
            ApprovalScope::Once => return,
            ApprovalScope::Session => (tool, false),
            ApprovalScope::Always => (tool, true),
            ApprovalScope::Pattern { rule, always } => (rule.as_str(), *always),
            ApprovalScope::Mode(mode) => {
                self.set_mode(*mode);
                return;
            }
        };
        let parsed = match RulePattern::parse(rule) {
            Ok(parsed) => parsed,
            Err(error) => {
                // The call itself was approved and runs; only the wider grant is lost.
                tracing::warn!(%error, "an approval's pattern is not a valid rule; approved once");
                context.push(format!(
                    "note: the approval's pattern `{rule}` is not a valid rule ({error}); this call was approved once"
                ));
                return;
            }
        };
        self.update_session(|session| session.grants = session.grants.with(parsed));
        if persist {
            match &self.inner.grants_file {
                Some(file) => {
                    if let Err(error) = file.add(rule) {
                        tracing::warn!(%error, "could not keep an \"always\" approval");
                    }
                }
                None => tracing::warn!(
                    rule,
                    "an \"always\" approval was granted for this session only: the coordinator has no grants file"
                ),
            }
        }
    }

    pub(super) fn hook_input(&self, input: HookInput, call_id: &str, mode: Mode) -> HookInput {
        self.session_input(input, mode).tool_use_id(call_id)
    }

    /// `input` with what every hook hears of the session: its id, the workspace root as the
    /// working directory (the process's without a workspace), the mode.
    pub(super) fn session_input(&self, input: HookInput, mode: Mode) -> HookInput {
        let cwd = self.inner.shared.workspace.as_ref().map_or_else(
            || std::env::current_dir().unwrap_or_default(),
            |workspace| workspace.root().to_owned(),
        );
        input
            .session_id(self.inner.session_id.clone())
            .cwd(cwd)
            .permission_mode(mode)
    }

    pub(super) async fn run_hooks(
        &self,
        event: HookEvent,
        tool: &ToolHandle,
        input: &HookInput,
    ) -> CombinedOutput {
        let names: Vec<&str> = tool.spec().names().collect();
        let call_id = input.tool_use_id.as_deref().unwrap_or_default();
        self.run_hooks_matching(event, &names, input, call_id).await
    }

    /// Runs the hooks of `event` whose matcher matches one of `names`, logging their failures
    /// and sending their notices to the watchers as call `call_id`'s.
    pub(super) async fn run_hooks_matching(
        &self,
        event: HookEvent,
        names: &[&str],
        input: &HookInput,
        call_id: &str,
    ) -> CombinedOutput {
        let outcome = self.inner.hooks.run(event, names, input).await;
        for error in &outcome.errors {
            tracing::warn!(hook = %error.hook, event = event.as_str(), "hook failed: {}", error.message);
        }
        if let Some(events) = &self.inner.events {
            let notices = (outcome.system_messages.iter().map(|m| (m, false)))
                .chain(outcome.errors.iter().map(|m| (m, true)));
            for (notice, is_error) in notices {
                events.send(CallEvent::HookNotice {
                    call_id: call_id.to_owned(),
                    hook: notice.hook.clone(),
                    message: notice.message.clone(),
                    is_error,
                });
            }
        }
        outcome
    }

    /// PostToolBatch hooks, once every call of a batch has resolved: `asked` is each call's
    /// name and arguments, in the order of `results`.
    pub(super) async fn post_batch_hooks(
        &self,
        asked: &[(String, String)],
        results: &mut [ToolResult],
    ) {
        let calls: Vec<BatchCall> = asked
            .iter()
            .zip(results.iter())
            .map(|((name, arguments), result)| {
                let outcome = match result.error() {
                    Some(error) => Err(error.to_string()),
                    None => Ok(result
                        .structured()
                        .cloned()
                        .unwrap_or_else(|| Value::String(result.text().into_owned()))),
                };
                BatchCall::new(
                    name.clone(),
                    arguments_value(arguments),
                    result.call_id.clone(),
                    outcome,
                )
            })
            .collect();
        let mut names: Vec<&str> = asked.iter().map(|(name, _)| name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        let input = self.session_input(HookInput::post_tool_batch(calls), self.snapshot().mode);
        let outcome = self
            .inner
            .hooks
            .run(HookEvent::PostToolBatch, &names, &input)
            .await;
        for error in &outcome.errors {
            tracing::warn!(hook = %error.hook, event = "PostToolBatch", "hook failed: {}", error.message);
        }
        let Some(last) = results.last_mut() else {
            return;
        };
        last.context
            .extend(outcome.additional_context.iter().cloned());
        if let Some(message) = outcome.block_message() {
            last.context.push(message.clone());
            last.stop.get_or_insert(message);
        }
        if let Some(stop) = outcome.stops.first() {
            last.stop.get_or_insert_with(|| stop.message.clone());
        }
    }

    /// PostToolUse or PostToolUseFailure hooks: they may add context for the model, give it
    /// feedback, or replace what it reads.
    pub(super) async fn after_hooks(
        &self,
        tool: &ToolHandle,
        arguments: &str,
        result: &mut ToolResult,
        mode: Mode,
    ) {
        let event = if result.is_error() {
            HookEvent::PostToolUseFailure
        } else {
            HookEvent::PostToolUse
        };
        if !self.inner.hooks.has(event) {
            return;
        }
        let name = tool.spec().name.to_string();
        let input = match result.error() {
            Some(error) => HookInput::post_tool_use_failure(
                name,
                arguments_value(arguments),
                error.to_string(),
            ),
            None => {
                let response = result
                    .structured()
                    .cloned()
                    .unwrap_or_else(|| Value::String(result.text().into_owned()));
                HookInput::post_tool_use(name, arguments_value(arguments), response)
            }
        };
        let input = self.hook_input(input, &result.call_id.clone(), mode);
        let outcome = self.run_hooks(input.event(), tool, &input).await;
        if let Some(replacement) = outcome.updated_tool_output {
            let text = match &replacement {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            result.content = vec![Content::text(text)];
            if result.structured.is_some() {
                result.structured = Some(replacement);
            }
        }
        for block in outcome.blocks {
            result.context.push(format!(
                "feedback from hook `{}`: {}",
                block.hook, block.message
            ));
        }
        result.context.extend(outcome.additional_context);
        if let Some(stop) = outcome.stops.into_iter().next() {
            result.stop = Some(stop.message);
        }
    }
}

/// The denial of a call whose budget is used up, telling the model to wrap up.
fn exhausted_decision(exhausted: &BudgetExhausted) -> Decision {
    Decision::deny(
        format!(
            "{exhausted}; do not start more of these calls: wrap up with what you have, \
             and tell the user what is done and what is left"
        ),
        DecisionSource::new(PolicyLayer::Budget, exhausted.kind.as_str()),
    )
}
