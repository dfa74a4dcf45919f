//! `present_plan`: the way out of plan mode. The plan goes to the coordinator's approver as a
//! plan request ([`ApprovalRequest::plan`], through [`Session::ask`], so PermissionRequest
//! hooks may answer first). The tool is `self_approving`: the policy does not ask about it
//! separately (it asks itself; only a user's ask rule naming it makes the policy ask too), and
//! plan mode lets it run.
//!
//! - Accepted: plan mode ends, into the mode an [`ApprovalScope::Mode`] answer names (Claude
//!   Code's "yes, and auto-accept edits"), else `default`. Outside plan mode the mode stays as
//!   it was unless the answer names one. An answer naming plan mode keeps (or puts) the session
//!   in plan mode, and the model is told not to start.
//! - Rejected: not an error result (the tool did its job, which was to ask); the result
//!   carries the user's guidance and tells the model to keep planning, without starting.
//! - Aborted: a cancelled call.
//!
//! Only a call from the model itself (depth 0) may present a plan: one from a sub-agent, or
//! from any tool calling tools, is denied, since accepting it would end plan mode for the
//! whole session on a plan the model's own agent never presented. (Code in `execute` cannot
//! call it at all: [`NOT_CALLABLE_FROM_CODE`](crate::code::NOT_CALLABLE_FROM_CODE).)

use tool_core::approval::{ApprovalRequest, ApprovalResponse, ApprovalScope};
use tool_core::context::CallInfo;
use tool_core::coordinator::Session;
use tool_core::policy::Mode;
use tool_core::{ToolError, tool};

/// Present your plan to the user for approval, when you are in plan mode and have finished
/// planning an implementation (not for research or questions). If the user accepts it, plan
/// mode ends and you carry the plan out; if not, you get their guidance and keep planning.
///
/// # Arguments
/// * `plan` - The plan, in Markdown: concise, step by step, naming the files to change.
#[tool(
    self_approving,
    closed_world,
    name = "present_plan",
    aliases("ExitPlanMode"),
    tags("steering")
)]
async fn present_plan(
    plan: String,
    #[ctx] session: Session,
    call: CallInfo,
) -> Result<String, ToolError> {
    if plan.trim().is_empty() {
        return Err(ToolError::failed(
            "`plan` is empty; write the plan (the steps, the files to change) before presenting it",
        ));
    }
    if call.depth > 0 {
        // A sub-agent (or a tool calling tools) is not the agent the user is planning with:
        // its plan accepted would end plan mode for the whole session, the model's own agent
        // included, on a plan that agent never presented.
        return Err(ToolError::denied(
            "only the agent the user talks to presents plans; a sub-agent (or a tool calling tools) cannot present one or end plan mode. Put the plan in your report instead",
            "present_plan: nested call",
        ));
    }
    if !session.can_ask() {
        return Err(ToolError::failed(
            "nobody can approve a plan in this session (the application gave the coordinator no approver, or its client cannot ask the user); write the plan in your reply to the user instead, and wait for their answer",
        ));
    }
    let planning = session.mode() == Mode::Plan;
    match session.ask(ApprovalRequest::plan(&call, plan)).await {
        ApprovalResponse::Approve(scope) => {
            // The mode the user chose to continue in; else an accepted plan ends plan mode,
            // and outside plan mode the mode stays as it was.
            let next = match scope {
                ApprovalScope::Mode(mode) => Some(mode),
                _ if planning => Some(Mode::Default),
                _ => None,
            };
            if let Some(mode) = next {
                // The mode the answer chose (or the default a plain acceptance allows).
                session.set_mode(mode)?;
            }
            if next == Some(Mode::Plan) {
                // Approved, but the user keeps the session in plan mode: nothing may start.
                return Ok(
                    "The user approved your plan but kept the session in plan mode: you are still in plan mode, where only read-only tools run. Do not start the work; wait for the user to end plan mode, or ask them how to go on."
                        .to_owned(),
                );
            }
            let now = match next {
                Some(mode) if planning => format!("Plan mode is over (now in {mode} mode). "),
                Some(mode) => format!("The session is now in {mode} mode. "),
                None => String::new(),
            };
            Ok(format!(
                "The user approved your plan. {now}Carry it out now, step by step; keep the todo list up to date if you have one."
            ))
        }
        ApprovalResponse::Reject { guidance } => {
            let still = if planning {
                "You are still in plan mode: "
            } else {
                ""
            };
            // The answer to the question the tool asked, not a failure of the tool: the model
            // reads the guidance and plans again.
            Ok(match guidance.filter(|text| !text.trim().is_empty()) {
                Some(guidance) => format!(
                    "The user did not approve the plan. Their guidance: {guidance}\n{still}revise the plan with this in mind (using read-only tools to look further if needed), then present it again. Do not start the work."
                ),
                None => format!(
                    "The user did not approve the plan and said nothing more. {still}ask the user what they want changed, then present a revised plan. Do not start the work."
                ),
            })
        }
        ApprovalResponse::Abort => Err(ToolError::Cancelled),
        // Nobody saw the plan: not an answer to plan again from, a failure to say.
        ApprovalResponse::NotAsked { reason } => Err(ToolError::failed(format!(
            "the plan could not be shown to the user: {reason}; tell the user the plan is ready and ask them to review it"
        ))),
    }
}
