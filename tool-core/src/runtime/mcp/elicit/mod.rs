//! Asking the MCP client's user: the policy's approval of a call, and a running tool's own
//! questions ([`Session::elicit`](crate::coordinator::Session::elicit), a form); and asking the
//! client itself for a tool: a message from its model
//! ([`Session::sample`](crate::coordinator::Session::sample), `sampling/createMessage`) and its
//! roots ([`Session::roots`](crate::coordinator::Session::roots), `roots/list`), which travel the
//! same ways as a tool's question, each only when the client declared the capability
//! ([`ClientAbilities`]; at 2026-07-28 a call that failed for want of one is the protocol's
//! MissingRequiredClientCapability error, -32021).
//!
//! An approval is a form ([`question`]) saying what the call will do (the request's preview,
//! why the policy asks, the arguments) and offering "approve once", "approve this tool for
//! the session" (when the server allows session grants) and "reject", with optional guidance
//! for the model. A tool's question is its own form (`wire::form`). How the two protocol versions
//! carry them (a request sent while the call waits at 2025-11-25; at 2026-07-28 an
//! `input_required` round trip whose state is sealed, [`ApprovalStates`], and which runs the
//! call again from the start with the answers) is told at [`RoundTripApprover`], with what the
//! seal does and does not guard. A client that declared no elicitation capability cannot be
//! asked: such a call is refused, and a tool's question gets that reason as its error.
//!
//! Its jobs, a file each: `wire`, the forms and the answers read back, sampling and roots
//! both ways; `session`, the approver that asks while the call waits ([`ElicitingApprover`]);
//! `round_trip`, the round trip's approver ([`RoundTripApprover`]) and a round's questions;
//! `sealed`, the state a round carries ([`RoundState`], sealed by [`ApprovalStates`]).

mod round_trip;
mod sealed;
mod session;
#[cfg(test)]
mod tests;
mod wire;

pub(super) use round_trip::{Answered, QuestionsRound, RoundTripApprover};
pub use sealed::StateKeyTooShort;
pub(super) use sealed::{ApprovalStates, RoundState};
pub(super) use session::{ClientAbilities, ElicitingApprover};
pub(super) use wire::{
    INPUT_KEY, answer, elicit_result, input_request, normalized_approval, question, roots_result,
    sampled_result, to_question, to_sampling_request,
};
