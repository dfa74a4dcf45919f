//! Asking the MCP client's user: the policy's approval of a call, and a running tool's own
//! questions ([`Session::elicit`](crate::context::Session::elicit), a form); and asking the
//! client itself for a tool: a message from its model
//! ([`Session::sample`](crate::context::Session::sample), `sampling/createMessage`) and its
//! roots ([`Session::roots`](crate::context::Session::roots), `roots/list`), which travel the
//! same ways as a tool's question, each only when the client declared the capability
//! ([`ClientAbilities`]; at 2026-07-28 a call that failed for want of one is the protocol's
//! MissingRequiredClientCapability error, -32021).
//!
//! An approval is a form ([`question`]) saying what the call will do (the request's preview,
//! why the policy asks, the arguments) and offering "approve once", "approve this tool for
//! the session" (when the server allows session grants) and "reject", with optional guidance
//! for the model. A tool's question is its own form ([`form`]). How the two protocol versions
//! carry them (a request sent while the call waits at 2025-11-25; at 2026-07-28 an
//! `input_required` round trip whose state is sealed, [`ApprovalStates`], and which runs the
//! call again from the start with the answers) is told at [`RoundTripApprover`], with what the
//! seal does and does not guard. A client that declared no elicitation capability cannot be asked: such a call is
//! refused, and a tool's question gets that reason as its error.
//!
//! Its jobs: the forms and the answers read back ([`question`], [`form`], [`answer`]), the
//! approver that asks while the call waits ([`ElicitingApprover`]), the round trip's approver
//! ([`RoundTripApprover`]) and its sealed state ([`ApprovalStates`], [`RoundState`]).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rmcp::model::{
    ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema, InputRequest,
    RequestStateCodec, RequestStateError, SealOptions,
};
use rmcp::service::{Peer, RoleServer};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::BoxFuture;
use crate::definition::context::CancellationToken;
use crate::runtime::approval::{
    Answer, ApprovalRequest, ApprovalResponse, ApprovalScope, Approver, Question, QuestionRequest,
    RequestKind, Root, Sampled, SamplingRequest, Speaker, Unanswered, UnansweredKind,
};

/// The key of the approval question in an `input_required` result's `inputRequests`, and of
/// its answer in the retry's `inputResponses`.
pub(super) const INPUT_KEY: &str = "approval";

/// How long a 2026-07-28 client has to come back with its user's answer: long enough for a
/// person to read the question, short enough that an old state is not lying around.
const STATE_TTL: Duration = Duration::from_secs(15 * 60);

/// The largest answer a request state carries, as JSON: a state travels with every later
/// round, so one answer may not make it unwieldy. A larger answer is asked again, saying so.
const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// The longest guidance for the model an approval's answer carries on to a later round.
const MAX_GUIDANCE_BYTES: usize = 4 * 1024;

/// The longest argument text shown in a question; longer is cut (the preview still names the
/// resources).
const MAX_ARGUMENTS_SHOWN: usize = 2_000;

/// The form that asks about `request`: its message and the schema of the answer.
pub(super) fn question(request: &ApprovalRequest, offer_session: bool) -> ElicitRequestParams {
    let message = match &request.kind {
        RequestKind::Plan { plan } => {
            format!("The model presents a plan. Accepting it lets the work begin.\n\n{plan}")
        }
        _ => {
            let mut arguments = request.arguments.to_string();
            if arguments.len() > MAX_ARGUMENTS_SHOWN {
                let mut cut = MAX_ARGUMENTS_SHOWN;
                while !arguments.is_char_boundary(cut) {
                    cut -= 1;
                }
                arguments.truncate(cut);
                arguments.push_str(" …");
            }
            format!(
                "Allow this tool call?\n{}\nWhy you are asked: {}\nArguments: {arguments}",
                request.preview, request.reason
            )
        }
    };
    let approve_once = match request.kind {
        RequestKind::Plan { .. } => "Accept the plan",
        _ => "Approve this call",
    };
    let mut choices = vec![json!({ "const": "once", "title": approve_once })];
    if offer_session && matches!(request.kind, RequestKind::Call) {
        choices.push(json!({
            "const": "session",
            "title": format!("Approve every `{}` call for this session", request.tool),
        }));
    }
    choices.push(json!({ "const": "reject", "title": "Reject" }));
    let schema = json!({
        "type": "object",
        "properties": {
            "decision": {
                "type": "string",
                "title": "Decision",
                "oneOf": choices,
            },
            "guidance": {
                "type": "string",
                "title": "Guidance for the model",
                "description": "Optional: what the model should do instead, or keep in mind.",
            },
        },
        "required": ["decision"],
    });
    let requested_schema: ElicitationSchema = serde_json::from_value(schema)
        .expect("the approval form is a valid elicitation schema (tested)");
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema,
    }
}

/// The client's answer as an approval: accepted with "once" or "session" approves (a session
/// only when it was offered), anything else rejects, with the user's guidance for the model.
pub(super) fn answer(result: &ElicitResult, offer_session: bool) -> ApprovalResponse {
    let content = result.content.as_ref();
    let field = |name: &str| {
        content
            .and_then(|content| content.get(name))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|text| !text.is_empty())
    };
    let guidance = field("guidance").map(str::to_owned);
    match result.action {
        ElicitationAction::Accept => match field("decision") {
            Some("once") => ApprovalResponse::once(),
            Some("session") if offer_session => ApprovalResponse::Approve(ApprovalScope::Session),
            Some("session") => ApprovalResponse::once(),
            Some("reject") => ApprovalResponse::Reject { guidance },
            _ => ApprovalResponse::not_asked(
                "the client's answer chose none of the offered decisions (once, session, reject)",
            ),
        },
        ElicitationAction::Decline => ApprovalResponse::Reject {
            guidance: Some(guidance.unwrap_or_else(|| "the user declined the request".to_owned())),
        },
        ElicitationAction::Cancel => {
            ApprovalResponse::reject("the user dismissed the question without answering")
        }
        _ => ApprovalResponse::reject("the client's answer was none the server knows"),
    }
}

/// The client's answer to the approval question as a later round's state carries it: the
/// action, and only the decision and the guidance (cut to [`MAX_GUIDANCE_BYTES`]), never
/// whatever else the client sent along.
pub(super) fn normalized_approval(result: &ElicitResult) -> Value {
    let action = match result.action {
        ElicitationAction::Accept => "accept",
        ElicitationAction::Decline => "decline",
        _ => "cancel",
    };
    let mut content = serde_json::Map::new();
    for (name, limit) in [("decision", 64), ("guidance", MAX_GUIDANCE_BYTES)] {
        if let Some(text) = result
            .content
            .as_ref()
            .and_then(|content| content.get(name))
            .and_then(Value::as_str)
        {
            let mut cut = text.len().min(limit);
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            content.insert(name.to_owned(), json!(&text[..cut]));
        }
    }
    json!({"action": action, "content": content})
}

/// Asks a 2025-11-25 client's user with `elicitation/create`, while the call waits.
pub(super) struct ElicitingApprover {
    pub(super) peer: Peer<RoleServer>,
    pub(super) offer_session: bool,
    /// The `tools/call` request's token: a client that cancels the call stops waiting for
    /// the answer too.
    pub(super) cancel: CancellationToken,
    /// What the client declared it can do besides asking its user.
    pub(super) client: ClientAbilities,
}

/// What a client declared it can do for a tool besides asking its user: write a message with
/// its model (`sampling`), list its roots (`roots`).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct ClientAbilities {
    pub(super) sampling: bool,
    pub(super) roots: bool,
}

impl ClientAbilities {
    /// `Err` saying the client cannot do `what`, unless `able`.
    fn check(
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

/// `sampling/createMessage`'s params for `request`. Built as JSON: rmcp marks its sampling
/// types deprecated (SEP-2577 deprecates sampling and roots in a later protocol; both stay in
/// 2025-11-25 and 2026-07-28, which this server speaks).
fn sampling_params(request: &SamplingRequest) -> Value {
    let messages: Vec<Value> = request
        .messages()
        .iter()
        .map(|(speaker, text)| {
            let role = match speaker {
                Speaker::Assistant => "assistant",
                _ => "user",
            };
            json!({"role": role, "content": {"type": "text", "text": text}})
        })
        .collect();
    let mut params = json!({"messages": messages, "maxTokens": request.max_tokens()});
    if let Some(prompt) = request.system_prompt() {
        params["systemPrompt"] = json!(prompt);
    }
    params
}

/// The text of a sampling message's content: one part, or an array of parts; parts that are
/// not text are left out.
fn text_parts(content: &Value) -> Vec<&str> {
    let parts = match content {
        Value::Array(parts) => parts.iter().collect::<Vec<_>>(),
        part => vec![part],
    };
    parts
        .into_iter()
        .filter(|part| part["type"] == "text")
        .filter_map(|part| part["text"].as_str())
        .collect()
}

/// A `CreateMessageResult` (JSON) as the message a tool reads: its text parts, joined.
fn to_sampled(result: &Value) -> Result<Sampled, Unanswered> {
    let model = result["model"].as_str();
    let texts = text_parts(&result["content"]);
    match model {
        Some(model) if result["role"] == "assistant" && !texts.is_empty() => {
            let mut sampled = Sampled::new(texts.join("\n"), model);
            sampled.stop_reason = result["stopReason"].as_str().map(str::to_owned);
            Ok(sampled)
        }
        _ => Err(Unanswered::new(
            "the MCP client's answer is not a text message from its model (a CreateMessageResult with role assistant, text content and a model)",
        )),
    }
}

/// A `ListRootsResult` (JSON) as roots.
fn to_roots(result: &Value) -> Result<Vec<Root>, Unanswered> {
    let bad =
        || Unanswered::new("the MCP client's answer is not a list of roots (a ListRootsResult)");
    result["roots"]
        .as_array()
        .ok_or_else(bad)?
        .iter()
        .map(|root| {
            let uri = root["uri"].as_str().ok_or_else(bad)?;
            Ok(Root::new(uri, root["name"].as_str().map(str::to_owned)))
        })
        .collect()
}

/// The other way, for the client importing a server's tools: a `sampling/createMessage`
/// request (its params as JSON) as the [`SamplingRequest`] our session answers. Only text
/// passes: a message with no text part (an image, a tool result) is refused, saying so, and
/// one with text and other parts says in its text what was left out.
pub(super) fn to_sampling_request(params: &Value) -> Result<SamplingRequest, String> {
    let max_tokens = params["maxTokens"]
        .as_u64()
        .and_then(|tokens| u32::try_from(tokens).ok())
        .filter(|tokens| *tokens > 0)
        .ok_or("the sampling request has no `maxTokens` (a positive whole number)")?;
    let messages = params["messages"]
        .as_array()
        .filter(|messages| !messages.is_empty())
        .ok_or("the sampling request has no `messages`")?;
    let mut conversation = Vec::with_capacity(messages.len());
    for (index, message) in messages.iter().enumerate() {
        let speaker = match message["role"].as_str() {
            Some("assistant") => Speaker::Assistant,
            Some("user") => Speaker::User,
            _ => {
                return Err(format!(
                    "message {index} of the sampling request has no role `user` or `assistant`"
                ));
            }
        };
        let texts = text_parts(&message["content"]);
        if texts.is_empty() {
            return Err(format!(
                "message {index} of the sampling request has no text, and only text messages can be passed on"
            ));
        }
        let mut text = texts.join("\n");
        let left_out = match &message["content"] {
            Value::Array(parts) => parts.iter().filter(|part| part["type"] != "text").count(),
            _ => 0,
        };
        if left_out > 0 {
            // Said in the message, so that the model answering knows it has not seen all.
            text.push_str(&format!(
                "\n[{left_out} part(s) of this message that are not text (an image, audio) were left out: only text is passed on]"
            ));
        }
        conversation.push((speaker, text));
    }
    let mut request = SamplingRequest::from_conversation(conversation, max_tokens);
    if let Some(prompt) = params["systemPrompt"].as_str() {
        request = request.with_system_prompt(prompt);
    }
    Ok(request)
}

/// The other way: the message our session's model wrote, as a `CreateMessageResult` (JSON).
pub(super) fn sampled_result(sampled: &Sampled) -> Value {
    let mut result = json!({
        "role": "assistant",
        "content": {"type": "text", "text": sampled.text},
        "model": sampled.model,
    });
    if let Some(reason) = &sampled.stop_reason {
        result["stopReason"] = json!(reason);
    }
    result
}

/// The other way: roots as a `ListRootsResult` (JSON).
pub(super) fn roots_result(roots: &[Root]) -> Value {
    let roots: Vec<Value> = roots
        .iter()
        .map(|root| match &root.name {
            Some(name) => json!({"uri": root.uri, "name": name}),
            None => json!({"uri": root.uri}),
        })
        .collect();
    json!({ "roots": roots })
}

/// The other way: a server's form as the [`Question`] our session asks, or why it cannot be
/// asked (a URL elicitation, which we do not declare; a form [`Question::new`] refuses).
pub(super) fn to_question(params: &ElicitRequestParams) -> Result<Question, String> {
    match params {
        ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } => {
            let schema = serde_json::to_value(requested_schema)
                .map_err(|error| format!("the form's schema cannot be read ({error})"))?;
            Question::new(message.clone(), schema).map_err(|error| error.to_string())
        }
        _ => Err(
            "only form elicitation is supported (this client declares no URL elicitation)"
                .to_owned(),
        ),
    }
}

/// The other way: our user's answer as the server's `ElicitResult`.
pub(super) fn elicit_result(answer: &Answer) -> ElicitResult {
    match answer {
        Answer::Accept(content) => ElicitResult::new(ElicitationAction::Accept)
            .with_content(Value::Object(content.clone())),
        Answer::Decline => ElicitResult::new(ElicitationAction::Decline),
        _ => ElicitResult::new(ElicitationAction::Cancel),
    }
}

/// A tool's question as an elicitation form.
pub(super) fn form(question: &Question) -> Result<ElicitRequestParams, Unanswered> {
    let requested_schema: ElicitationSchema = serde_json::from_value(question.schema().clone())
        .map_err(|error| {
            Unanswered::new(format!(
                "the question's form cannot be sent as an MCP elicitation ({error})"
            ))
        })?;
    Ok(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: question.message().to_owned(),
        requested_schema,
    })
}

/// The client's elicitation result as the tool's answer; `None` for an action nobody knows.
pub(super) fn to_answer(result: &ElicitResult) -> Option<Answer> {
    match result.action {
        ElicitationAction::Accept => Some(Answer::Accept(
            result
                .content
                .as_ref()
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
        )),
        ElicitationAction::Decline => Some(Answer::Decline),
        ElicitationAction::Cancel => Some(Answer::Cancel),
        _ => None,
    }
}

/// The SHA-256 of what a question shows and asks for: an answer given to one question is
/// never taken for another asked under the same key.
pub(super) fn question_digest(question: &Question) -> String {
    sha256_hex(&format!("{}\n{}", question.message(), question.schema()))
}

/// An answer to a tool's question, as a round's state carries it on to the next round.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Answered {
    /// The digest of the question answered, when the server asked it (a client may also
    /// answer a question before it is asked: then this is `None`).
    pub(super) question: Option<String>,
    /// The client's `ElicitResult`, as it sent it.
    pub(super) response: Value,
}

/// What the questions of a tool asked over one 2026-07-28 round came to.
#[derive(Debug, Default)]
pub(super) struct QuestionsRound {
    /// The requests made and not answered, in the order made: key, digest of what was
    /// asked, and the request for the `input_required` result.
    pub(super) pending: Vec<(String, String, InputRequest)>,
    /// The answers the tool took, by key: carried in the next round's state, so the tool,
    /// run again from the start, finds them again.
    pub(super) used: BTreeMap<String, Answered>,
    /// The capabilities the tool needed and the client had not declared (`sampling`,
    /// `roots`), each with the [`generation`](Self::generation) it was asked in.
    pub(super) missing: Vec<(&'static str, usize)>,
    /// Whether the tool was handed a pending error: every later request of the run is
    /// pending at once.
    pub(super) pending_delivered: bool,
    /// How many pending or missing-capability errors the tool was handed so far: requests
    /// made in one generation were made at once, none knowing how the others ended.
    pub(super) generation: usize,
    /// The generation the pending requests were made in (all in one: once one is handed
    /// over, no more are made).
    pub(super) pending_generation: Option<usize>,
}

impl QuestionsRound {
    /// The capabilities missing for requests made at once with the pending ones: the tool
    /// asked for them together, so it will fail for want of them whatever the user answers,
    /// and the call is better refused now than after a round of questions.
    pub(super) fn missing_beside_pending(&self) -> Vec<&'static str> {
        let mut missing = Vec::new();
        for (capability, generation) in &self.missing {
            if Some(*generation) == self.pending_generation && !missing.contains(capability) {
                missing.push(*capability);
            }
        }
        missing
    }
}

/// A future that is pending once (waking itself at once), then ready.
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        context: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        if self.0 {
            return std::task::Poll::Ready(());
        }
        self.0 = true;
        context.waker().wake_by_ref();
        std::task::Poll::Pending
    }
}

/// The approver of one 2026-07-28 round: it answers the call's own approval with the answer
/// the client brought back (second round), or keeps the request to ask about and rejects for
/// now (first round; the server then answers `input_required` instead of the result).
/// Only the first question of the round can be the call's own, and only when it is about this
/// very call; anything after it is asked while the tool runs, and is refused: the round trip
/// cannot wait for it.
///
/// # How a question travels
///
/// - **2025-11-25** (a connection with a session): the server sends `elicitation/create` and
///   waits for the answer while the call waits, held at its approval stage or inside the
///   tool ([`ElicitingApprover`]). A plan a tool presents
///   ([`Session::ask`](crate::context::Session::ask)) goes the same way.
/// - **2026-07-28** (stateless): a server may not send requests of its own, so the call ends
///   with an `input_required` result carrying what is asked, and a request state sealed with
///   HMAC-SHA256 ([`ApprovalStates`]); the client asks its user and calls again with the
///   answers and the state; the server checks the seal (a forged or changed state is the
///   JSON-RPC error -32602), checks that the state is for this very tool and these exact
///   arguments, and **runs the call again from the start** with the answers
///   ([`RoundTripApprover`]):
///   - the policy's approval ends the call before its tool runs (key `approval`);
///   - a tool's question ends the tool's run at the first question no answer was brought
///     for (the tool gets a pending error, [`Unanswered::is_pending`], and must return it;
///     every later request of that run is pending at once, so a tool that carries on gets
///     no further answers); its key is the one the tool gave
///     ([`Question::with_key`](crate::approval::Question::with_key)) or its order among the
///     call's requests to the client (`question-1`, `sampling-2`, `roots-3`, ...), and each
///     request of a run needs its own (a second request under a used key is the tool's
///     error); requests made at once (`tokio::join!`) go out in one round. On the next run,
///     every question answered so far is answered again from the answers, and the next one
///     goes out: each round adds answers, carried in the sealed state ([`RoundState`]) so
///     that an earlier round's answer (and the approval) cannot be changed. The state
///     carries each answer as the server read it (action and checked content, at most
///     64 KiB), never the client's raw response, and every round's state expires when the
///     first round's does. An answer that does not fit its question is asked again, the
///     reason added to its message; one given to another question under the same key is
///     asked again too.
///
///   A tool therefore should ask before it acts: until its questions are answered, nothing
///   after them has run. A question asked once the tool runs about another call's approval
///   (a nested call needing approval, a plan) cannot be carried this way, and is refused
///   with a reason saying so.
///
/// A client that declared no elicitation capability cannot be asked: such a call is refused,
/// and a tool's question gets that reason as its error.
///
/// The first round of a round trip is a real call up to where it asked: hooks before it ran,
/// and events and budgets saw a call that did not complete (yet).
///
/// The seal keeps a client from making up an approval the server never asked, or from moving
/// one to another tool or other arguments: an approval is taken only through a sealed state
/// that asked it. A tool's own question may be answered without a state (the client holds the
/// answer either way, as it does a form's): a client that knows what a tool asks may answer
/// ahead. Each state carries a random nonce, and a server takes a state once: brought back
/// again, it is refused, so "approve once" runs the call once. (Instances sharing a key each
/// remember what they took, so a client that sends one state to several instances can have it
/// taken once by each; a shared store would close that, at the cost of the statelessness the
/// protocol is for.) The seal cannot stop a client from answering for its user: the client
/// holds the answer either way.
pub(super) struct RoundTripApprover {
    /// The id the server gave the `tools/call`'s call.
    call_id: String,
    /// The call's tool and arguments: its own approval is about them.
    tool: String,
    arguments: Value,
    /// The answer the client brought back, taken by the call's own approval.
    answer: Mutex<Option<ApprovalResponse>>,
    /// Set by the first question of the round: every later one is asked mid-run.
    asked_before: Mutex<bool>,
    /// The request to ask the client about, once the policy asked.
    asked: Arc<Mutex<Option<ApprovalRequest>>>,
    /// The answers to the tool's own questions the client brought (this round's and, from
    /// the state, earlier rounds'), by key.
    answers: HashMap<String, Answered>,
    /// How many questions the tool asked so far: names the ones it gave no key.
    questions_asked: AtomicUsize,
    /// The keys of the requests made in this run: a second request under one of them would
    /// take (or overwrite) the first one's answer, and the rounds would never end.
    keys_used: Mutex<HashSet<String>>,
    /// What the tool's questions came to.
    questions: Arc<Mutex<QuestionsRound>>,
    /// What the client declared it can do besides asking its user.
    client: ClientAbilities,
}

impl RoundTripApprover {
    /// The approver of the round of call `call_id` (`tool` with `arguments`, its JSON text),
    /// with the answer the client brought back, if it did.
    pub(super) fn new(
        call_id: String,
        tool: &str,
        arguments: &str,
        answer: Option<ApprovalResponse>,
        asked: Arc<Mutex<Option<ApprovalRequest>>>,
    ) -> Self {
        RoundTripApprover {
            answers: HashMap::new(),
            questions_asked: AtomicUsize::new(0),
            keys_used: Mutex::default(),
            questions: Arc::default(),
            client: ClientAbilities::default(),
            call_id,
            tool: tool.to_owned(),
            arguments: serde_json::from_str(arguments)
                .unwrap_or_else(|_| Value::String(arguments.to_owned())),
            answer: Mutex::new(answer),
            asked_before: Mutex::new(false),
            asked,
        }
    }

    /// With the answers the client brought to the tool's own questions, and where to record
    /// what those questions came to.
    pub(super) fn with_answers(
        mut self,
        answers: HashMap<String, Answered>,
        questions: Arc<Mutex<QuestionsRound>>,
    ) -> Self {
        self.answers = answers;
        self.questions = questions;
        self
    }

    /// With what the client declared it can do besides asking its user.
    pub(super) fn with_client(mut self, client: ClientAbilities) -> Self {
        self.client = client;
        self
    }

    /// [`ClientAbilities::check`], recording a capability the client lacks.
    fn able(
        &self,
        able: bool,
        tool: &str,
        what: &str,
        capability: &'static str,
    ) -> Result<(), Unanswered> {
        let checked = ClientAbilities::check(able, tool, what, capability);
        if checked.is_err() {
            let mut questions = self
                .questions
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let generation = questions.generation;
            questions.missing.push((capability, generation));
        }
        checked
    }

    /// The key of the call's next request to the client: the one given, else `prefix-N`
    /// with N its order among the call's requests. A key used before in this run is the
    /// tool's error: each request needs its own (a generated key never repeats, and a given
    /// one cannot look like one: [`Question::with_key`] refuses that shape).
    fn next_key(
        &self,
        tool: &str,
        given: Option<&str>,
        prefix: &str,
    ) -> Result<String, Unanswered> {
        let ordinal = self.questions_asked.fetch_add(1, Ordering::SeqCst) + 1;
        let key = given.map_or_else(|| format!("{prefix}-{ordinal}"), str::to_owned);
        let mut used = self
            .keys_used
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if !used.insert(key.clone()) {
            return Err(Unanswered::new(format!(
                "`{tool}` made a second request to the client under the key `{key}` in one call; give each request its own key (Question::with_key, SamplingRequest::with_key), or none"
            )));
        }
        Ok(key)
    }

    /// The answer the client brought under `key` to this very request (`digest`), read by
    /// `read` (`Err`: unusable, and why; asked again); recorded as used, so the next round's
    /// state carries it. Else `request` is recorded as pending (given why the answer brought
    /// was not used, if one was), and the tool told to wait.
    fn answer_or_ask<T>(
        &self,
        key: String,
        digest: String,
        request: impl FnOnce(Option<&str>) -> InputRequest,
        read: impl FnOnce(&Value) -> Result<(T, Value), String>,
    ) -> Result<T, Unanswered> {
        let brought = self.answers.get(&key).filter(|answered| {
            answered
                .question
                .as_ref()
                .is_none_or(|asked| *asked == digest)
        });
        let mut questions = self
            .questions
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let read = brought.map(|answered| {
            let (answer, normalized) = read(&answered.response)?;
            let size = normalized.to_string().len();
            if size > MAX_ANSWER_BYTES {
                return Err(format!(
                    "it is {size} bytes long, more than the {MAX_ANSWER_BYTES} bytes an answer may have"
                ));
            }
            Ok((answer, normalized))
        });
        let problem = match read {
            // Only what was read travels on in the state: not the client's raw response.
            Some(Ok((answer, normalized))) => {
                questions.used.insert(
                    key,
                    Answered {
                        question: Some(digest),
                        response: normalized,
                    },
                );
                return Ok(answer);
            }
            Some(Err(problem)) => Some(problem),
            None => None,
        };
        questions
            .pending
            .push((key, digest, request(problem.as_deref())));
        questions.pending_generation = Some(questions.generation);
        // Never read by the model: the server answers `input_required` instead.
        Err(Unanswered::pending(
            "waiting for the MCP client's answer (input_required); return this error (`?`): the call will run again from the start with the answer",
        ))
    }

    /// Pending at once, when a request of this run is already known by the tool to be
    /// pending: a tool that carried on past that error (`unwrap_or`) gets no more answers,
    /// so it does nothing it would do again when the call runs again with the answers.
    fn after_pending(&self) -> Result<(), Unanswered> {
        let questions = self
            .questions
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if questions.pending_delivered {
            return Err(Unanswered::pending(
                "an earlier request of this call is waiting for the MCP client's answer (input_required), so no other request is made in this run; return that error (`?`): the call will run again from the start with the answers",
            ));
        }
        Ok(())
    }

    /// `outcome` as the tool gets it. A pending or missing-capability one is handed over
    /// after one yield, so the requests a tool makes at once (`tokio::join!`) are all made
    /// before any of them is known to have ended so: they go out in one round, and a
    /// capability missing for one of them is known beside the others
    /// ([`QuestionsRound::missing_beside_pending`]). Once a pending one is handed over, every
    /// later request of the run is pending at once ([`after_pending`](Self::after_pending)).
    fn deliver<'a, T: Send + 'a>(
        &self,
        outcome: Result<T, Unanswered>,
    ) -> BoxFuture<'a, Result<T, Unanswered>> {
        let kind = match &outcome {
            Err(error) if error.kind != UnansweredKind::Failed => error.kind,
            _ => return Box::pin(std::future::ready(outcome)),
        };
        let questions = Arc::clone(&self.questions);
        Box::pin(async move {
            YieldOnce(false).await;
            let mut questions = questions.lock().unwrap_or_else(PoisonError::into_inner);
            questions.generation += 1;
            if kind == UnansweredKind::Pending {
                questions.pending_delivered = true;
            }
            drop(questions);
            outcome
        })
    }

    /// Whether `request` is this call's own approval: the round's first question, about
    /// this call, its tool and its arguments.
    fn is_own(&self, request: &ApprovalRequest) -> bool {
        let first = !std::mem::replace(
            &mut *self
                .asked_before
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
            true,
        );
        first
            && request.call_id == self.call_id
            && matches!(request.kind, RequestKind::Call)
            && request.tool == self.tool
            && request.arguments == self.arguments
    }
}

impl Approver for RoundTripApprover {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        let response = if !self.is_own(request) {
            ApprovalResponse::not_asked(format!(
                "`{}` asked the user while a tool was already running; this MCP client speaks protocol 2026-07-28, \
                 where a server can ask only before a call runs (the input_required round trip starts the call again), \
                 so the question could not be put to the user",
                request.tool
            ))
        } else if let Some(answer) = self
            .answer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            answer
        } else {
            *self.asked.lock().unwrap_or_else(PoisonError::into_inner) = Some(request.clone());
            // Never read by the model: the server answers `input_required` instead.
            ApprovalResponse::reject("waiting for the client to ask the user")
        };
        Box::pin(async move { response })
    }

    /// Answers from what the client brought, when it answered this very question under its
    /// key with an answer that fits; else records the question for the `input_required`
    /// result and leaves it unanswered (the tool's run ends, and runs again with the answer).
    fn elicit<'a>(
        &'a self,
        request: &'a QuestionRequest,
    ) -> BoxFuture<'a, Result<Answer, Unanswered>> {
        if let Err(pending) = self.after_pending() {
            return self.deliver(Err(pending));
        }
        let question = &request.question;
        let key = self.next_key(&request.tool, question.key(), "question");
        // A form the client could not be shown is the tool's error now, not a round trip.
        let outcome = key
            .and_then(|key| Ok((key, form(question)?)))
            .and_then(|(key, params)| {
                self.answer_or_ask(
                    key,
                    // The question as the tool asked it, even when asked again with a reason:
                    // the answer to either is the answer to it.
                    question_digest(question),
                    |problem| match (problem, params.clone()) {
                        (
                            Some(problem),
                            ElicitRequestParams::FormElicitationParams {
                                meta,
                                message,
                                requested_schema,
                            },
                        ) => input_request(
                            "elicitation/create",
                            &ElicitRequestParams::FormElicitationParams {
                                meta,
                                message: format!(
                                    "{message}\n\n(Asked again: the previous answer could not be used, because {problem}.)"
                                ),
                                requested_schema,
                            },
                        ),
                        _ => input_request("elicitation/create", &params),
                    },
                    |response| {
                        let result = serde_json::from_value::<ElicitResult>(response.clone())
                            .map_err(|error| format!("it was not an elicitation result ({error})"))?;
                        let answer = to_answer(&result)
                            .ok_or("its action was none of accept, decline and cancel")?;
                        // An answer that does not fit is asked again rather than read.
                        if let Answer::Accept(content) = &answer {
                            question.check(content)?;
                        }
                        let normalized = match &answer {
                            Answer::Accept(content) => {
                                json!({"action": "accept", "content": content})
                            }
                            Answer::Decline => json!({"action": "decline"}),
                            _ => json!({"action": "cancel"}),
                        };
                        Ok((answer, normalized))
                    },
                )
            });
        self.deliver(outcome)
    }

    fn sample<'a>(
        &'a self,
        tool: &'a str,
        request: &'a SamplingRequest,
    ) -> BoxFuture<'a, Result<Sampled, Unanswered>> {
        if let Err(pending) = self.after_pending() {
            return self.deliver(Err(pending));
        }
        let key = self.next_key(tool, request.key(), "sampling");
        let params = sampling_params(request);
        let outcome = self
            .able(
                self.client.sampling,
                tool,
                "a message from the client's model",
                "sampling",
            )
            .and(key)
            .and_then(|key| {
                self.answer_or_ask(
                    key,
                    sha256_hex(&params.to_string()),
                    |_| input_request("sampling/createMessage", &params),
                    |response| {
                        let sampled = to_sampled(response).map_err(|error| error.reason)?;
                        let mut normalized = json!({
                            "role": "assistant",
                            "model": sampled.model,
                            "content": {"type": "text", "text": sampled.text},
                        });
                        if let Some(reason) = &sampled.stop_reason {
                            normalized["stopReason"] = json!(reason);
                        }
                        Ok((sampled, normalized))
                    },
                )
            });
        self.deliver(outcome)
    }

    fn list_roots<'a>(&'a self, tool: &'a str) -> BoxFuture<'a, Result<Vec<Root>, Unanswered>> {
        if let Err(pending) = self.after_pending() {
            return self.deliver(Err(pending));
        }
        let key = self.next_key(tool, None, "roots");
        let outcome = self
            .able(self.client.roots, tool, "the client's roots", "roots")
            .and(key)
            .and_then(|key| {
                self.answer_or_ask(
                    key,
                    sha256_hex("roots/list"),
                    |_| input_request("roots/list", &json!({})),
                    |response| {
                        let roots = to_roots(response).map_err(|error| error.reason)?;
                        let listed: Vec<Value> = roots
                            .iter()
                            .map(|root| match &root.name {
                                Some(name) => json!({"uri": root.uri, "name": name}),
                                None => json!({"uri": root.uri}),
                            })
                            .collect();
                        Ok((roots, json!({"roots": listed})))
                    },
                )
            });
        self.deliver(outcome)
    }
}

/// What a sealed 2026-07-28 request state says: which call was asked about, and what.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct RoundState {
    /// The tool called.
    pub(super) tool: String,
    /// SHA-256 of the arguments' JSON text, in hex.
    pub(super) arguments_sha256: String,
    /// What the user was shown of the policy's approval question, when this round asked it:
    /// the request's preview.
    pub(super) preview: Option<String>,
    /// Whether "approve for the session" was offered.
    pub(super) offer_session: bool,
    /// The client's answer to the approval question of an earlier round (its
    /// `ElicitResult`): the call, run again from the start, is asked again and takes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) approval: Option<Value>,
    /// The tool's own questions this round asked: key and question digest.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(super) asked: BTreeMap<String, String>,
    /// The answers to the tool's questions of earlier rounds.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(super) answers: BTreeMap<String, Answered>,
    /// Random, so that a server can tell a state it has taken already.
    pub(super) nonce: String,
    /// When the round trip's first state expires, in seconds since the Unix epoch: every
    /// later round's state expires then too, so answering round after round cannot keep a
    /// call (and the answers it carries) open for ever.
    pub(super) deadline: u64,
}

/// Now, in seconds since the Unix epoch.
fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

impl RoundState {
    /// The state of a round of `tool` with `arguments` (asking for approval when `preview`
    /// is given), with a fresh nonce and nothing answered yet.
    pub(super) fn new(
        tool: &str,
        arguments: &str,
        preview: Option<String>,
        offer_session: bool,
    ) -> Self {
        let mut nonce = [0_u8; 16];
        getrandom::fill(&mut nonce).expect("the OS provides randomness");
        RoundState {
            tool: tool.to_owned(),
            arguments_sha256: sha256_hex(arguments),
            preview,
            offer_session,
            approval: None,
            asked: BTreeMap::new(),
            answers: BTreeMap::new(),
            nonce: nonce.iter().map(|byte| format!("{byte:02x}")).collect(),
            deadline: unix_now() + STATE_TTL.as_secs(),
        }
    }
}

/// Seals and opens the request states of approvals asked over the 2026-07-28 round trip.
pub(super) struct ApprovalStates {
    codec: RequestStateCodec,
    /// The nonces of the states taken, until they would have expired anyway.
    taken: Mutex<HashMap<String, Instant>>,
}

/// A key for sealing request states was shorter than 32 bytes.
#[derive(Debug, thiserror::Error)]
#[error(
    "the request-state key has {length} bytes; give at least 32 bytes of secret randomness (the same on every instance behind one address)"
)]
pub struct StateKeyTooShort {
    /// How long the key was.
    pub length: usize,
}

/// Why a request state brought back by a client was refused.
#[derive(Debug, thiserror::Error)]
pub(super) enum StateRefused {
    #[error(
        "the requestState failed its integrity check: it was not made by this server (or by a server with the same key), or it was changed; call the tool again without requestState and inputResponses to be asked anew"
    )]
    Forged,
    #[error(
        "the requestState has expired (a call's questions are open for 15 minutes from its first round); call the tool again without requestState and inputResponses to be asked anew"
    )]
    Expired,
    #[error(
        "the requestState was made for another call ({what}); send it back only with the call it came with"
    )]
    OtherCall { what: String },
    #[error(
        "the requestState was used already: an answer approves one call; call the tool again without requestState and inputResponses to be asked anew"
    )]
    Taken,
}

impl ApprovalStates {
    /// States sealed with a key made now from the OS's randomness: valid in this process only.
    pub(super) fn random() -> Self {
        let mut key = [0_u8; 32];
        getrandom::fill(&mut key).expect("the OS provides randomness");
        ApprovalStates {
            codec: RequestStateCodec::new_unchecked(key.to_vec()),
            taken: Mutex::default(),
        }
    }

    /// States sealed with `key`, which every instance serving one address must share.
    pub(super) fn with_key(key: &[u8]) -> Result<Self, StateKeyTooShort> {
        RequestStateCodec::try_new(key.to_vec())
            .map(|codec| ApprovalStates {
                codec,
                taken: Mutex::default(),
            })
            .map_err(|_| StateKeyTooShort { length: key.len() })
    }

    /// The sealed state of an approval asked about `tool` with `arguments`.
    pub(super) fn seal(&self, asked: &RoundState) -> String {
        // What is left until the first round's deadline (at least a second: a state sealed
        // as the deadline passes is refused as expired when it comes back).
        let left = asked.deadline.saturating_sub(unix_now()).max(1);
        self.codec
            .seal_json_with(
                asked,
                &SealOptions::new().ttl(Duration::from_secs(left).min(STATE_TTL)),
            )
            .expect("an approval state serializes")
    }

    /// The approval a client's state says was asked, checked: sealed here, not expired, and
    /// for this tool with these very arguments.
    pub(super) fn open(
        &self,
        state: &str,
        tool: &str,
        arguments: &str,
    ) -> Result<RoundState, StateRefused> {
        let asked: RoundState = self.codec.open_json(state).map_err(|error| match error {
            RequestStateError::Expired => StateRefused::Expired,
            _ => StateRefused::Forged,
        })?;
        if asked.deadline <= unix_now() {
            return Err(StateRefused::Expired);
        }
        if asked.tool != tool {
            return Err(StateRefused::OtherCall {
                what: format!("a call of `{}`, not `{tool}`", asked.tool),
            });
        }
        if asked.arguments_sha256 != sha256_hex(arguments) {
            return Err(StateRefused::OtherCall {
                what: format!("`{tool}` with other arguments"),
            });
        }
        let now = Instant::now();
        let mut taken = self.taken.lock().unwrap_or_else(PoisonError::into_inner);
        taken.retain(|_, expires| *expires > now);
        if taken.insert(asked.nonce.clone(), now + STATE_TTL).is_some() {
            return Err(StateRefused::Taken);
        }
        Ok(asked)
    }
}

/// The SHA-256 of `text`, in lowercase hex.
fn sha256_hex(text: &str) -> String {
    use std::fmt::Write as _;
    Sha256::digest(text.as_bytes())
        .iter()
        .fold(String::with_capacity(64), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        })
}

/// The request `method` with `params` as an `input_required` input request.
pub(super) fn input_request(method: &str, params: &impl Serialize) -> InputRequest {
    let request = json!({ "method": method, "params": params });
    serde_json::from_value(request)
        .expect("elicitation, sampling and roots requests are input requests (tested)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::definition::context::CallInfo;

    fn plan() -> ApprovalRequest {
        ApprovalRequest::plan(&CallInfo::new("c1", "present_plan", 0), "1. Do it")
    }

    #[test]
    fn the_question_is_a_valid_elicitation_and_input_request() {
        let params = question(&plan(), true);
        let value = serde_json::to_value(&params).unwrap();
        assert_eq!(value["mode"], "form");
        assert_eq!(value["requestedSchema"]["required"][0], "decision");
        // A plan is accepted or not: no session grant is offered for it.
        let choices = value["requestedSchema"]["properties"]["decision"]["oneOf"]
            .as_array()
            .unwrap();
        assert_eq!(choices.len(), 2, "{choices:?}");
        let request = serde_json::to_value(input_request("elicitation/create", &params)).unwrap();
        assert_eq!(request["method"], "elicitation/create");
    }

    #[test]
    fn every_form_question_new_accepts_reaches_rmcp_unchanged() {
        for properties in [
            json!({"name": {"type": "string", "title": "Name", "minLength": 1, "maxLength": 4_294_967_295_u32, "default": "Ada"}}),
            json!({"mail": {"type": "string", "format": "email", "description": "where"}}),
            json!({"age": {"type": "integer", "minimum": -3, "maximum": 150, "default": 30}}),
            json!({"score": {"type": "number", "minimum": 0.5, "maximum": 99.5, "default": 1.5}}),
            json!({"ok": {"type": "boolean", "default": true}}),
            json!({"s": {"type": "string", "enum": ["a", "b"], "default": "a"}}),
            json!({"s": {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]}}),
            json!({"s": {"type": "string", "oneOf": [{"const": "a", "title": "A"}], "default": "a"}}),
            json!({"m": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}, "minItems": 1, "maxItems": 2}}),
            json!({"m": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "X"}]}, "default": ["x"]}}),
        ] {
            let schema = json!({"type": "object", "properties": properties, "required": []});
            let question = Question::new("q", schema.clone()).unwrap();
            let ElicitRequestParams::FormElicitationParams {
                requested_schema, ..
            } = form(&question).unwrap()
            else {
                panic!("a form")
            };
            assert_eq!(serde_json::to_value(requested_schema).unwrap(), schema);
        }
    }

    #[test]
    fn answers_map_to_approvals() {
        let accept = |content: Value| {
            let mut result = ElicitResult::new(ElicitationAction::Accept);
            result.content = Some(content);
            result
        };
        assert_eq!(
            answer(&accept(json!({"decision": "once"})), true),
            ApprovalResponse::once()
        );
        assert_eq!(
            answer(&accept(json!({"decision": "session"})), true),
            ApprovalResponse::Approve(ApprovalScope::Session)
        );
        assert_eq!(
            answer(&accept(json!({"decision": "session"})), false),
            ApprovalResponse::once(),
            "a session grant that was not offered is not taken"
        );
        assert_eq!(
            answer(
                &accept(json!({"decision": "reject", "guidance": "use notes.md"})),
                true
            ),
            ApprovalResponse::reject("use notes.md")
        );
        assert!(matches!(
            answer(&ElicitResult::new(ElicitationAction::Decline), true),
            ApprovalResponse::Reject { guidance: Some(g) } if g.contains("declined")
        ));
        // No offered decision: nobody answered, not a rejection by the user.
        assert!(matches!(
            answer(&accept(json!({"decision": "always"})), true),
            ApprovalResponse::NotAsked { .. }
        ));
    }

    #[test]
    fn a_sealed_state_opens_only_for_its_own_call_and_unchanged() {
        let states = ApprovalStates::random();
        let sealed = states.seal(&RoundState::new(
            "write_file",
            r#"{"path":"a"}"#,
            Some("write_file (mutating): path = a".into()),
            true,
        ));
        assert!(
            states
                .open(&sealed, "write_file", r#"{"path":"a"}"#)
                .is_ok()
        );
        assert!(matches!(
            states.open(&sealed, "write_file", r#"{"path":"b"}"#),
            Err(StateRefused::OtherCall { .. })
        ));
        assert!(matches!(
            states.open(&sealed, "run_shell", r#"{"path":"a"}"#),
            Err(StateRefused::OtherCall { .. })
        ));
        // A character in the middle of the body: every bit of it is data (the last character
        // of a part may hold only padding bits, and be refused by the decoding instead).
        let body_start = sealed.find('.').unwrap() + 1;
        let at = body_start + (sealed[body_start..].find('.').unwrap() / 2);
        let mut tampered = sealed.clone();
        let changed = if &sealed[at..=at] == "A" { "B" } else { "A" };
        tampered.replace_range(at..=at, changed);
        assert!(matches!(
            states.open(&tampered, "write_file", r#"{"path":"a"}"#),
            Err(StateRefused::Forged)
        ));
        // Another process's key (a restart, an instance without the shared key).
        assert!(matches!(
            ApprovalStates::random().open(&sealed, "write_file", r#"{"path":"a"}"#),
            Err(StateRefused::Forged)
        ));
        // Taken once above: brought back again, it is refused.
        assert!(matches!(
            states.open(&sealed, "write_file", r#"{"path":"a"}"#),
            Err(StateRefused::Taken)
        ));
    }

    fn call_request(call_id: &str, tool: &'static str, arguments: Value) -> ApprovalRequest {
        let mut request = plan();
        request.kind = RequestKind::Call;
        request.call_id = call_id.into();
        request.tool = tool.into();
        request.arguments = arguments;
        request
    }

    fn round(answer: Option<ApprovalResponse>) -> RoundTripApprover {
        RoundTripApprover::new(
            "mcp-1".into(),
            "write_file",
            r#"{"path": "a"}"#,
            answer,
            Arc::default(),
        )
    }

    #[tokio::test]
    async fn the_answer_approves_only_the_calls_own_first_question_once() {
        let approver = round(Some(ApprovalResponse::once()));
        let own = call_request("mcp-1", "write_file", json!({"path": "a"}));
        assert_eq!(approver.approve(&own).await, ApprovalResponse::once());
        // Asked again in the same round (a tool asking mid-run): refused, not approved.
        assert!(matches!(
            approver.approve(&own).await,
            ApprovalResponse::NotAsked { reason } if reason.contains("already running")
        ));
    }

    #[tokio::test]
    async fn a_question_about_other_arguments_or_another_tool_is_not_the_calls_own() {
        for other in [
            call_request("mcp-1", "write_file", json!({"path": "b"})),
            call_request("mcp-1", "run_shell", json!({"path": "a"})),
            call_request("mcp-2", "write_file", json!({"path": "a"})),
        ] {
            let approver = round(Some(ApprovalResponse::once()));
            assert!(
                matches!(
                    approver.approve(&other).await,
                    ApprovalResponse::NotAsked { .. }
                ),
                "{other:?}"
            );
            assert!(approver.asked.lock().unwrap().is_none());
        }
    }

    fn name_question() -> QuestionRequest {
        let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
        QuestionRequest::new("mcp-1", "greet", Question::new("Name?", schema).unwrap())
    }

    fn answered(question: Option<String>, response: Value) -> Answered {
        Answered { question, response }
    }

    #[tokio::test]
    async fn questions_asked_at_once_are_pending_together_under_their_order_of_asking() {
        let questions = Arc::new(Mutex::new(QuestionsRound::default()));
        let approver = round(None).with_answers(HashMap::new(), Arc::clone(&questions));
        let (one, two) = (name_question(), name_question());
        let (first, second) = tokio::join!(approver.elicit(&one), approver.elicit(&two));
        assert!(first.unwrap_err().is_pending());
        assert!(second.unwrap_err().is_pending());
        let keys: Vec<String> = questions
            .lock()
            .unwrap()
            .pending
            .iter()
            .map(|p| p.0.clone())
            .collect();
        assert_eq!(keys, ["question-1", "question-2"]);
    }

    #[tokio::test]
    async fn a_second_request_under_a_used_key_is_the_tools_error_naming_the_key() {
        let questions = Arc::new(Mutex::new(QuestionsRound::default()));
        let response = json!({"action": "accept", "content": {"name": "Ada"}});
        let answers = HashMap::from([("name".to_owned(), answered(None, response))]);
        let approver = round(None).with_answers(answers, Arc::clone(&questions));
        let keyed = || {
            let mut request = name_question();
            request.question = request.question.with_key("name").unwrap();
            request
        };
        assert!(approver.elicit(&keyed()).await.is_ok());
        // Asked again under the same key: not the first answer again (the tool would loop).
        let error = approver.elicit(&keyed()).await.unwrap_err();
        assert!(
            error.reason.contains("`name`") && error.reason.contains("its own key"),
            "{error}"
        );
        assert!(questions.lock().unwrap().pending.is_empty());
    }

    #[tokio::test]
    async fn after_a_pending_error_every_later_request_of_the_run_is_pending_at_once() {
        let questions = Arc::new(Mutex::new(QuestionsRound::default()));
        // The second question is answered: still not taken once the tool carried on past
        // the first one's pending error, lest the tool act on it twice.
        let response = json!({"action": "accept", "content": {"name": "Ada"}});
        let answers = HashMap::from([("question-2".to_owned(), answered(None, response))]);
        let approver = round(None)
            .with_answers(answers, Arc::clone(&questions))
            .with_client(ClientAbilities {
                sampling: true,
                roots: true,
            });
        let pending = approver.elicit(&name_question()).await.unwrap_err();
        assert!(pending.is_pending(), "{pending}");
        assert!(
            crate::ToolError::from_error(pending).is_pending(),
            "the tool can tell it apart"
        );
        let later = approver.elicit(&name_question()).await.unwrap_err();
        assert!(later.is_pending(), "{later}");
        assert!(
            approver
                .sample("greet", &SamplingRequest::new("hi", 10))
                .await
                .unwrap_err()
                .is_pending()
        );
        assert!(approver.list_roots("greet").await.unwrap_err().is_pending());
        let questions = questions.lock().unwrap();
        assert_eq!(questions.pending.len(), 1, "only the first went out");
        assert!(questions.used.is_empty());
    }

    #[tokio::test]
    async fn a_brought_answer_is_taken_and_carried_on() {
        let questions = Arc::new(Mutex::new(QuestionsRound::default()));
        let response = json!({"action": "accept", "content": {"name": "Ada"}});
        let answers = HashMap::from([("question-1".to_owned(), answered(None, response))]);
        let approver = round(None).with_answers(answers, Arc::clone(&questions));
        let answer = approver.elicit(&name_question()).await.unwrap();
        assert!(matches!(answer, Answer::Accept(content) if content["name"] == "Ada"));
        let questions = questions.lock().unwrap();
        assert!(questions.pending.is_empty());
        let used = &questions.used["question-1"];
        assert_eq!(
            used.question.as_deref(),
            Some(question_digest(&name_question().question).as_str())
        );
    }

    #[tokio::test]
    async fn an_answer_that_does_not_fit_or_was_for_another_question_is_asked_again() {
        for brought in [
            answered(None, json!({"action": "accept", "content": {"name": 7}})),
            answered(None, json!(12345)),
            answered(
                Some("another question".into()),
                json!({"action": "accept", "content": {"name": "Ada"}}),
            ),
        ] {
            let questions = Arc::new(Mutex::new(QuestionsRound::default()));
            let answers = HashMap::from([("question-1".to_owned(), brought.clone())]);
            let approver = round(None).with_answers(answers, Arc::clone(&questions));
            assert!(
                approver.elicit(&name_question()).await.is_err(),
                "{brought:?}"
            );
            assert_eq!(questions.lock().unwrap().pending.len(), 1, "{brought:?}");
        }
    }

    #[tokio::test]
    async fn an_answer_that_does_not_fit_is_asked_again_saying_why_under_the_same_digest() {
        let questions = Arc::new(Mutex::new(QuestionsRound::default()));
        let brought = answered(None, json!({"action": "accept", "content": {"name": 7}}));
        let answers = HashMap::from([("question-1".to_owned(), brought)]);
        let approver = round(None).with_answers(answers, Arc::clone(&questions));
        assert!(approver.elicit(&name_question()).await.is_err());
        let questions = questions.lock().unwrap();
        let (key, digest, request) = &questions.pending[0];
        assert_eq!(key, "question-1");
        assert_eq!(digest, &question_digest(&name_question().question));
        let message = serde_json::to_value(request).unwrap()["params"]["message"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(
            message.starts_with("Name?") && message.contains("`name` should be a string"),
            "{message}"
        );
    }

    #[tokio::test]
    async fn only_the_answer_as_read_travels_on_not_what_the_client_sent_along() {
        let questions = Arc::new(Mutex::new(QuestionsRound::default()));
        let response = json!({
            "action": "accept",
            "content": {"name": "Ada"},
            "_meta": {"padding": "x".repeat(10_000)},
        });
        let answers = HashMap::from([("question-1".to_owned(), answered(None, response))]);
        let approver = round(None).with_answers(answers, Arc::clone(&questions));
        assert!(approver.elicit(&name_question()).await.is_ok());
        assert_eq!(
            questions.lock().unwrap().used["question-1"].response,
            json!({"action": "accept", "content": {"name": "Ada"}})
        );
    }

    #[tokio::test]
    async fn an_answer_too_large_to_carry_is_asked_again_saying_so() {
        let questions = Arc::new(Mutex::new(QuestionsRound::default()));
        let huge = "x".repeat(MAX_ANSWER_BYTES + 1);
        let response = json!({"action": "accept", "content": {"name": huge}});
        let answers = HashMap::from([("question-1".to_owned(), answered(None, response))]);
        let approver = round(None).with_answers(answers, Arc::clone(&questions));
        assert!(
            approver
                .elicit(&name_question())
                .await
                .unwrap_err()
                .is_pending()
        );
        let questions = questions.lock().unwrap();
        assert!(questions.used.is_empty());
        let message = serde_json::to_value(&questions.pending[0].2).unwrap()["params"]["message"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(message.contains("bytes an answer may have"), "{message}");
    }

    #[test]
    fn an_approval_carried_on_keeps_only_the_decision_and_the_guidance() {
        let mut result = ElicitResult::new(ElicitationAction::Accept);
        result.content = Some(json!({
            "decision": "once",
            "guidance": "g".repeat(MAX_GUIDANCE_BYTES + 10),
            "extra": "not carried",
        }));
        let normalized = normalized_approval(&result);
        assert_eq!(normalized["action"], "accept");
        assert_eq!(normalized["content"]["decision"], "once");
        assert_eq!(
            normalized["content"]["guidance"].as_str().unwrap().len(),
            MAX_GUIDANCE_BYTES
        );
        assert!(normalized["content"].get("extra").is_none());
    }

    #[test]
    fn a_state_past_the_first_rounds_deadline_is_expired() {
        let states = ApprovalStates::random();
        let mut state = RoundState::new("write_file", "{}", None, false);
        state.deadline = unix_now().saturating_sub(1);
        let sealed = states.seal(&state);
        assert!(matches!(
            states.open(&sealed, "write_file", "{}"),
            Err(StateRefused::Expired)
        ));
    }

    #[tokio::test]
    async fn sampling_without_the_capability_is_refused_and_recorded_as_missing() {
        let questions = Arc::new(Mutex::new(QuestionsRound::default()));
        let approver = round(None).with_answers(HashMap::new(), Arc::clone(&questions));
        let error = approver
            .sample("greet", &SamplingRequest::new("hi", 10))
            .await
            .unwrap_err();
        assert!(error.reason.contains("sampling capability"), "{error}");
        assert_eq!(
            error.kind,
            UnansweredKind::MissingCapability("sampling"),
            "the server tells it apart from the tool's other failures"
        );
        assert_eq!(questions.lock().unwrap().missing, [("sampling", 0)]);
    }

    #[tokio::test]
    async fn a_capability_missing_beside_a_pending_question_is_known_before_the_round() {
        let questions = Arc::new(Mutex::new(QuestionsRound::default()));
        let approver = round(None).with_answers(HashMap::new(), Arc::clone(&questions));
        let (question, sampling) = (name_question(), SamplingRequest::new("hi", 10));
        let (asked, sampled) = tokio::join!(
            approver.elicit(&question),
            approver.sample("greet", &sampling)
        );
        assert!(asked.unwrap_err().is_pending());
        assert!(sampled.is_err());
        assert_eq!(
            questions.lock().unwrap().missing_beside_pending(),
            ["sampling"]
        );
    }

    #[tokio::test]
    async fn a_capability_missing_before_a_question_the_tool_went_on_to_ask_is_not_beside_it() {
        // The tool took the missing sampling in its stride, then asked: the question goes out.
        let questions = Arc::new(Mutex::new(QuestionsRound::default()));
        let approver = round(None).with_answers(HashMap::new(), Arc::clone(&questions));
        assert!(
            approver
                .sample("greet", &SamplingRequest::new("hi", 10))
                .await
                .is_err()
        );
        assert!(
            approver
                .elicit(&name_question())
                .await
                .unwrap_err()
                .is_pending()
        );
        let questions = questions.lock().unwrap();
        assert_eq!(questions.pending.len(), 1);
        assert!(questions.missing_beside_pending().is_empty());
    }

    #[test]
    fn sampling_requests_and_answers_map_to_and_from_the_protocol() {
        let request = SamplingRequest::new("hi", 10)
            .with_message(Speaker::Assistant, "hello")
            .with_system_prompt("be brief");
        let params = sampling_params(&request);
        assert_eq!(params["messages"][1]["role"], "assistant");
        assert_eq!(params["systemPrompt"], "be brief");
        assert!(matches!(
            serde_json::to_value(input_request("sampling/createMessage", &params)).unwrap()["method"].as_str(),
            Some("sampling/createMessage")
        ));
        let sampled = to_sampled(&json!({
            "role": "assistant", "model": "m", "stopReason": "endTurn",
            "content": {"type": "text", "text": "Paris"}
        }))
        .unwrap();
        assert_eq!(
            (sampled.text.as_str(), sampled.model.as_str()),
            ("Paris", "m")
        );
        assert!(
            to_sampled(
                &json!({"role": "user", "model": "m", "content": {"type": "text", "text": "x"}})
            )
            .is_err()
        );
        let roots = to_roots(&json!({"roots": [{"uri": "file:///a", "name": "a"}]})).unwrap();
        assert_eq!(roots, [Root::new("file:///a", Some("a".into()))]);
        assert!(to_roots(&json!({"roots": [{"name": "no uri"}]})).is_err());
    }

    #[test]
    fn the_clients_conversions_invert_the_servers() {
        let request = SamplingRequest::new("hi", 10)
            .with_message(Speaker::Assistant, "hello")
            .with_system_prompt("be brief");
        assert_eq!(
            to_sampling_request(&sampling_params(&request)).unwrap(),
            request
        );
        let mut sampled = Sampled::new("Paris", "m");
        sampled.stop_reason = Some("endTurn".into());
        assert_eq!(to_sampled(&sampled_result(&sampled)).unwrap(), sampled);
        let roots = [
            Root::new("file:///a", Some("a".into())),
            Root::new("file:///b", None),
        ];
        assert_eq!(to_roots(&roots_result(&roots)).unwrap(), roots);
        let question = Question::new(
            "Name?",
            json!({"type": "object", "properties": {"name": {"type": "string", "minLength": 1}}, "required": ["name"]}),
        )
        .unwrap();
        assert_eq!(to_question(&form(&question).unwrap()).unwrap(), question);
        for answer in [
            Answer::Decline,
            Answer::Cancel,
            Answer::Accept(serde_json::Map::new()),
        ] {
            assert_eq!(to_answer(&elicit_result(&answer)), Some(answer));
        }
    }

    #[test]
    fn a_sampling_request_without_text_or_tokens_is_refused_saying_what_is_missing() {
        let image = json!({"maxTokens": 5, "messages": [{"role": "user", "content": {"type": "image", "data": "", "mimeType": "image/png"}}]});
        assert!(
            to_sampling_request(&image)
                .unwrap_err()
                .contains("only text")
        );
        let no_tokens =
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "x"}}]});
        assert!(
            to_sampling_request(&no_tokens)
                .unwrap_err()
                .contains("maxTokens")
        );
        let mixed = json!({"maxTokens": 5, "messages": [{"role": "user", "content": [
            {"type": "text", "text": "What is in this picture?"},
            {"type": "image", "data": "", "mimeType": "image/png"}
        ]}]});
        let request = to_sampling_request(&mixed).unwrap();
        let text = &request.messages()[0].1;
        assert!(text.starts_with("What is in this picture?"), "{text}");
        assert!(
            text.contains("[1 part(s) of this message that are not text"),
            "{text}"
        );
        let zero_tokens = json!({"maxTokens": 0, "messages": [{"role": "user", "content": {"type": "text", "text": "x"}}]});
        assert!(
            to_sampling_request(&zero_tokens)
                .unwrap_err()
                .contains("a positive whole number")
        );
    }
}
