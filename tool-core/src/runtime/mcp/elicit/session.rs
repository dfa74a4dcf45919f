//! Asking while the call waits (2025-11-25): [`ElicitingApprover`] sends `elicitation/create`
//! (and sampling and roots requests) to the client, as far as [`ClientAbilities`] allow.

use rmcp::service::{Peer, RoleServer};

use super::wire::{answer, form, question, sampling_params, to_answer, to_roots, to_sampled};
use crate::BoxFuture;
use crate::definition::context::CancellationToken;
use crate::runtime::approval::{
    Answer, ApprovalRequest, ApprovalResponse, Approver, QuestionRequest, Root, Sampled,
    SamplingRequest, Unanswered,
};

/// Asks a 2025-11-25 client's user with `elicitation/create`, while the call waits.
pub(in crate::runtime::mcp) struct ElicitingApprover {
    pub(in crate::runtime::mcp) peer: Peer<RoleServer>,
    pub(in crate::runtime::mcp) offer_session: bool,
    /// The `tools/call` request's token: a client that cancels the call stops waiting for
    /// the answer too.
    pub(in crate::runtime::mcp) cancel: CancellationToken,
    /// What the client declared it can do besides asking its user.
    pub(in crate::runtime::mcp) client: ClientAbilities,
}

/// What a client declared it can do for a tool besides asking its user: write a message with
/// its model (`sampling`), list its roots (`roots`).
#[derive(Debug, Clone, Copy, Default)]
pub(in crate::runtime::mcp) struct ClientAbilities {
    pub(in crate::runtime::mcp) sampling: bool,
    pub(in crate::runtime::mcp) roots: bool,
}

impl ClientAbilities {
    /// `Err` saying the client cannot do `what`, unless `able`.
    pub(super) fn check(
        able: bool,
        tool: &str,
        what: &str,
        capability: &'static str,
    ) -> Result<(), Unanswered> {
        if able {
            return Ok(());
        }
        Err(Unanswered::missing_capability(
            capability,
            format!(
                "`{tool}` asked for {what}, but this MCP client did not declare the {capability} capability"
            ),
        ))
    }
}

impl ElicitingApprover {
    /// `request`'s answer, unless the call is cancelled first.
    async fn unless_cancelled<T>(
        &self,
        request: impl Future<Output = Result<T, rmcp::service::ServiceError>>,
    ) -> Result<T, Unanswered> {
        tokio::select! {
            biased;
            () = self.cancel.cancelled() => Err(Unanswered::new(
                "the call was cancelled while the client was being asked",
            )),
            answered = request => answered.map_err(|error| Unanswered::new(format!(
                "the MCP client could not answer ({error})"
            ))),
        }
    }
}

impl Approver for ElicitingApprover {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        Box::pin(async move {
            let ask = self
                .peer
                .create_elicitation(question(request, self.offer_session));
            tokio::select! {
                // A cancellation that came first wins over an answer that came after it.
                biased;
                () = self.cancel.cancelled() => ApprovalResponse::Abort,
                answered = ask => match answered {
                    Ok(result) => answer(&result, self.offer_session),
                    Err(error) => ApprovalResponse::not_asked(format!(
                        "the MCP client could not ask the user ({error})"
                    )),
                },
            }
        })
    }

    fn elicit<'a>(
        &'a self,
        request: &'a QuestionRequest,
    ) -> BoxFuture<'a, Result<Answer, Unanswered>> {
        Box::pin(async move {
            let result = self
                .unless_cancelled(self.peer.create_elicitation(form(&request.question)?))
                .await?;
            to_answer(&result).ok_or_else(|| {
                Unanswered::new(
                    "the MCP client answered the question with an action the server does not know",
                )
            })
        })
    }

    fn sample<'a>(
        &'a self,
        tool: &'a str,
        request: &'a SamplingRequest,
    ) -> BoxFuture<'a, Result<Sampled, Unanswered>> {
        Box::pin(async move {
            ClientAbilities::check(
                self.client.sampling,
                tool,
                "a message from the client's model",
                "sampling",
            )?;
            let params = serde_json::from_value(sampling_params(request)).map_err(|error| {
                Unanswered::new(format!("the sampling request is malformed ({error})"))
            })?;
            // SEP-2577 deprecates sampling in a later protocol; 2025-11-25 has it.
            #[expect(deprecated)]
            let result = self
                .unless_cancelled(self.peer.create_message(params))
                .await?;
            to_sampled(&serde_json::to_value(result).unwrap_or_default())
        })
    }

    fn list_roots<'a>(&'a self, tool: &'a str) -> BoxFuture<'a, Result<Vec<Root>, Unanswered>> {
        Box::pin(async move {
            ClientAbilities::check(self.client.roots, tool, "the client's roots", "roots")?;
            // SEP-2577 deprecates roots in a later protocol; 2025-11-25 has them.
            #[expect(deprecated)]
            let result = self.unless_cancelled(self.peer.list_roots()).await?;
            to_roots(&serde_json::to_value(result).unwrap_or_default())
        })
    }
}
